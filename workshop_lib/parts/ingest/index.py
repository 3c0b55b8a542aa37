"""The document index: versioned chunk tables, their registry, and the alias view DOCS.

Each profile's chunks live in their own table (DOCS_V1, DOCS_V2, ...). DOC_INDEXES records
which manifest built each table and whether it is complete. The view DOCS reads exactly one
table; retrieval always reads the view, so moving the alias (promote, rollback) switches
every reader at once. DOC_ALIAS remembers the previous table for rollback, DOC_ALIAS_LOG
every promotion, refusal and rollback. All SQL is the engine's (eng.statements.docs).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workshop_lib.engines.dbtypes import Row, one_row
from workshop_lib.engines.hits import Hit
from workshop_lib.engines.rows import (
    AliasLogRow,
    AliasRow,
    ChunkHashRow,
    DocCountsRow,
    DocumentChunkRow,
    DocumentHitRow,
    IndexRow,
    ViewTargetRow,
    first_as,
    row_as,
    rows_as,
)
from workshop_lib.errors import WorkshopError
from workshop_lib.parts.retrieval import check_k, check_query

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine
    from workshop_lib.parts.ingest.chunking import Chunk

TABLE_NAME = re.compile(r"^DOCS_[A-Z][A-Z0-9_]{0,19}$")
MAX_K = 1000


class NoActiveIndex(WorkshopError, RuntimeError):
    """Retrieval over DOCS before any table was promoted."""


@dataclass(frozen=True)
class IndexInfo:
    table: str
    profile: dict
    manifest_sha: str
    status: str          # 'building' until every chunk of the manifest is stored, then 'complete'
    docs: int
    chunks: int
    created_at: str
    completed_at: str | None


@dataclass(frozen=True)
class AliasState:
    alias: str
    target: str | None          # the table the view DOCS reads now (None: no view yet)
    previous: str | None        # where `rollback` goes
    target_complete: bool


def fill(statement: str, table: str) -> str:
    """A statement with its table name filled in; the name is checked first, because it is
    put into SQL text (table names cannot be bind variables)."""
    if not isinstance(table, str) or not TABLE_NAME.match(table):
        raise ValueError(f"{table!r} is not a document table name (DOCS_ followed by letters, digits or _)")
    return statement.replace("{t}", table)


def ensure_schema(eng: Engine) -> None:
    """The registry, the alias row and the log (creating what is missing; nothing is dropped)."""
    with eng.transaction() as cur:
        for ddl in eng.statements.docs.DDL:
            cur.execute(ddl)


def ensure_table(eng: Engine, table: str) -> None:
    with eng.transaction() as cur:
        for ddl in eng.statements.docs.TABLE_DDL:
            cur.execute(fill(ddl, table))


def register(eng: Engine, table: str, profile_json: str, manifest_sha: str) -> None:
    with eng.transaction() as cur:
        cur.execute(eng.statements.docs.REGISTER, {"t": table, "profile": profile_json, "sha": manifest_sha})


def mark_building(eng: Engine, table: str) -> None:
    with eng.transaction() as cur:
        cur.execute(eng.statements.docs.MARK_BUILDING, {"t": table})


def mark_complete(eng: Engine, table: str) -> tuple[int, int]:
    """Record the table as complete with its document and chunk counts; returns them."""
    sql = eng.statements.docs
    with eng.transaction() as cur:
        counts = row_as(DocCountsRow, one_row(cur.execute(fill(sql.COUNTS, table))))
        docs, chunks = int(counts.docs), int(counts.chunks)
        cur.execute(sql.MARK_COMPLETE, {"t": table, "docs": docs, "chunks": chunks})
    return docs, chunks


def drop_table(eng: Engine, table: str) -> None:
    """DESTRUCTIVE: drop a document table and its registry row. Refused for the table the
    alias reads and the one rollback would go to."""
    state = alias_state(eng)
    if table in (state.target, state.previous):
        raise ValueError(f"{table} is the alias's {'target' if table == state.target else 'rollback table'}; "
                         "promote another table first")
    sql = eng.statements.docs
    with eng.transaction() as cur:
        cur.execute(fill(sql.TABLE_DROP, table))
        cur.execute(sql.INDEX_DELETE, {"t": table})


def stored_hashes(eng: Engine, table: str) -> dict[str, str]:
    """chunk hash -> doc_id of every chunk stored in `table` ({} when the table does not exist)."""
    if table not in eng.backend.object_names():
        return {}
    rows = rows_as(ChunkHashRow, eng.query(fill(eng.statements.docs.CHUNK_HASHES, table)))
    return {r.chunk_hash: r.doc_id for r in rows}


def write_chunks(eng: Engine, table: str, chunks: list[Chunk], vectors: list[Any]) -> None:
    """Insert chunks with their vectors in one transaction; a chunk whose hash is already
    stored is left as it is (so a re-run or a second ingest at the same time adds nothing twice)."""
    rows = [{**chunk.row(), "vec": eng.backend.vector_param(vector)} for chunk, vector in zip(chunks, vectors)]
    with eng.transaction() as cur:
        cur.executemany(fill(eng.statements.docs.CHUNK_INSERT, table), rows)


def delete_chunks(eng: Engine, table: str, hashes: list[str]) -> None:
    if not hashes:
        return
    with eng.transaction() as cur:
        cur.executemany(fill(eng.statements.docs.CHUNK_DELETE, table), [{"h": h} for h in hashes])


def _info(eng: Engine, row: Row) -> IndexInfo:
    r = row_as(IndexRow, row)
    return IndexInfo(r.table_name, json.loads(eng.backend.read_text(r.profile)), r.manifest_sha, r.status,
                     int(r.docs or 0), int(r.chunks or 0), str(r.created_at),
                     None if r.completed_at is None else str(r.completed_at))


def _has_schema(eng: Engine) -> bool:
    """Reads do not create anything (the chat service's /health calls them often)."""
    return {"DOC_INDEXES", "DOC_ALIAS", "DOC_ALIAS_LOG"} <= eng.backend.object_names()


def info(eng: Engine, table: str) -> IndexInfo | None:
    if not _has_schema(eng):
        return None
    rows = eng.query(eng.statements.docs.INDEX_GET, {"t": table})
    return _info(eng, rows[0]) if rows else None


def list_indexes(eng: Engine) -> list[IndexInfo]:
    if not _has_schema(eng):
        return []
    return [_info(eng, row) for row in eng.query(eng.statements.docs.INDEX_LIST)]


def alias_target(eng: Engine) -> str | None:
    """The table the view DOCS reads now, from the view's own definition (one query), or None."""
    found = first_as(ViewTargetRow, eng.query(eng.statements.docs.VIEW_TARGET))
    return re.findall(r"\w+", eng.backend.read_text(found.target))[-1].upper() if found else None


def alias_state(eng: Engine) -> AliasState:
    """What the view reads now, where rollback goes, and whether the target is complete."""
    sql = eng.statements.docs
    if not _has_schema(eng):
        return AliasState(sql.ALIAS, None, None, False)
    target = alias_target(eng)
    recorded = first_as(AliasRow, eng.query(sql.ALIAS_GET, {"alias_name": sql.ALIAS}))
    previous = recorded.previous_table if recorded else None
    target_info = info(eng, target) if target else None
    return AliasState(sql.ALIAS, target, previous, bool(target_info and target_info.status == "complete"))


def set_alias(eng: Engine, table: str, *, previous: str | None, action: str, detail: dict) -> None:
    """Record the switch (alias row and log), then point the view at `table`. On SQLite it is
    one transaction (DDL is transactional). On Oracle CREATE OR REPLACE VIEW commits by itself,
    and commits the rows written before it (SQL Language Reference, "COMMIT": DDL commits
    implicitly), so the bookkeeping is written first: a failure before the DDL leaves nothing
    changed, and a stop between the two leaves the row ahead of the view, which repair_alias
    finishes on the next promotion or rollback."""
    sql = eng.statements.docs
    with eng.transaction() as cur:
        cur.execute(sql.ALIAS_SET, {"alias_name": sql.ALIAS, "t": table, "prev": previous})
        cur.execute(sql.LOG_INSERT, {"alias_name": sql.ALIAS, "action": action, "t": table, "detail": json.dumps(detail)})
        for statement in sql.VIEW_REPLACE:
            cur.execute(fill(statement, table))


def repair_alias(eng: Engine) -> str | None:
    """When the alias row and the view disagree (a switch stopped after its bookkeeping and
    before its DDL), finish the switch if the recorded table exists, else put the row back on
    what the view reads (a switch only ever goes to a complete table). Returns the table the view
    reads afterwards when it repaired, else None."""
    sql = eng.statements.docs
    if not _has_schema(eng):
        return None
    recorded = first_as(AliasRow, eng.query(sql.ALIAS_GET, {"alias_name": sql.ALIAS}))
    target = alias_target(eng)
    if recorded is None or recorded.table_name == target:
        return None
    table, previous = recorded.table_name, recorded.previous_table
    with eng.transaction() as cur:
        found = info(eng, table) if TABLE_NAME.match(table) and table in eng.backend.object_names() else None
        if found is not None and found.status == "complete":
            for statement in sql.VIEW_REPLACE:
                cur.execute(fill(statement, table))
            return table
        if target is None:
            cur.execute(sql.ALIAS_DELETE, {"alias_name": sql.ALIAS})
        else:
            cur.execute(sql.ALIAS_SET, {"alias_name": sql.ALIAS, "t": target, "prev": previous})
    return target


def clear_alias(eng: Engine) -> None:
    """Remove the view and the alias row (tables, registry and log are kept): retrieval over
    DOCS then says no index is active until the next promotion. Part 8's notebook calls this
    so that re-running its promotion cells tells the same story."""
    sql = eng.statements.docs
    ensure_schema(eng)
    with eng.transaction() as cur:
        cur.execute(sql.VIEW_DROP)
        cur.execute(sql.ALIAS_DELETE, {"alias_name": sql.ALIAS})


def log_refusal(eng: Engine, table: str, detail: dict) -> None:
    sql = eng.statements.docs
    with eng.transaction() as cur:
        cur.execute(sql.LOG_INSERT, {"alias_name": sql.ALIAS, "action": "refused", "t": table, "detail": json.dumps(detail)})


def history(eng: Engine, n: int = 20) -> list[dict]:
    if not _has_schema(eng):
        return []
    sql = eng.statements.docs
    rows = rows_as(AliasLogRow, eng.query(sql.LOG_LIST, {"alias_name": sql.ALIAS, "n": n}))
    return [{"at": str(r.created_at), "action": r.action, "table": r.table_name,
             **json.loads(eng.backend.read_text(r.detail))} for r in rows]


def search(eng: Engine, question: str, k: int = 5, *, table: str | None = None, vector: Any = None) -> list[Hit]:
    """The k chunks nearest the question: from `table`, or from the alias view DOCS (what
    every reader uses). Each hit: doc_id, chunk_no, source, text, similarity. `vector` is
    the question's embedding when the caller already has it (it is not computed again)."""
    question = check_query(question)
    k = check_k(k, "k", MAX_K)
    sql = eng.statements.docs
    if table is None:
        if alias_target(eng) is None:
            raise NoActiveIndex("no document index is active yet: ingest a manifest and promote it "
                                "(`workshop ingest MANIFEST --profile v1 --promote`, or Part 8's notebook)")
        statement = sql.SEARCH.replace("{t}", sql.ALIAS)
    else:
        if table not in eng.backend.object_names():
            raise ValueError(f"there is no document table {table}: ingest its profile first")
        statement = fill(sql.SEARCH, table)
    if vector is None:
        vector = eng.model.embed([question])[0]
    rows = rows_as(DocumentHitRow, eng.query(statement, {"qv": eng.backend.vector_param(vector), "k": k}))
    return [Hit(doc_id=r.doc_id, chunk_no=int(r.chunk_no), source=r.source, text=eng.backend.read_text(r.body),
                similarity=float(r.similarity)) for r in rows]


MAX_DOCUMENT_CHUNKS = 200


def document(eng: Engine, doc_id: str) -> list[Hit]:
    """The chunks of one document of the active index, in order (at most MAX_DOCUMENT_CHUNKS): each
    doc_id, chunk_no, text. Empty when no index is active or it holds no such document."""
    if alias_target(eng) is None:
        return []
    sql = eng.statements.docs
    rows = rows_as(DocumentChunkRow, eng.query(sql.DOCUMENT_CHUNKS.replace("{t}", sql.ALIAS),
                                               {"d": str(doc_id)[:400], "k": MAX_DOCUMENT_CHUNKS}))
    return [Hit(doc_id=doc_id, chunk_no=int(r.chunk_no), text=eng.backend.read_text(r.body)) for r in rows]

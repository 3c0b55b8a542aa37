"""Part 3, Oracle lane: the database's own hybrid search beside the learner's one-statement RRF.

Oracle AI Database fuses keyword and vector search itself: a hybrid vector index holds an
Oracle Text index and a vector index over one column, and DBMS_HYBRID_VECTOR.SEARCH runs both
and fuses them (here with RRF, as the learner's statement does). The Oracle Agent Memory SDK
searches this way. `compare` runs both on the same probe so the notebook can show what each
returns. The statements are the engine's (`eng.statements.native_hybrid`, in
engines/oracle/sql.py); the embedded engine has no hybrid vector index, so there every call
raises NativeHybridUnavailable with the reason.

The index is built on a snapshot of the knowledge memories (this scope and the shared schema
facts) in its own table, HYBRID_DEMO, rebuilt by `build_index`: the store's RECORDS already
carries a CONTEXT index on the same column.
"""
from __future__ import annotations

import json
from typing import Any

from workshop_lib.core.arguments import check_k, check_query
from workshop_lib.core.scope import Scope
from workshop_lib.engines.rows import CountRow, NativeHitRow, row_as, rows_as
from workshop_lib.errors import WorkshopError
from workshop_lib.parts import retrieval

# DBMS_HYBRID_VECTOR.SEARCH's JSON parameters (PL/SQL Packages and Types Reference, SEARCH:
# https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/dbms_hybrid_vector1.html):
# search_fusion UNION keeps a row either search found; search_scorer RRF ranks by reciprocal rank.
INDEX_NAME = "HYBRID_DEMO_HVI"
FUSION = "UNION"
SCORER = "RRF"
RETURNED = ["rowid", "score", "vector_score", "text_score"]


class NativeHybridUnavailable(WorkshopError, RuntimeError):
    """The engine has no native hybrid search (the embedded engine)."""


def _statements(eng: Any):
    found = eng.statements.native_hybrid
    if found is None:
        raise NativeHybridUnavailable(
            f"the {eng.name} engine has no hybrid vector index: DBMS_HYBRID_VECTOR.SEARCH is Oracle AI "
            "Database's own hybrid search, so this comparison runs on the Oracle lane only",
            "run the notebook with WORKSHOP_ENGINE=oracle (the Codespace's default) to see it")
    return found


def build_index(eng: Any) -> int:
    """(Re)build HYBRID_DEMO from the knowledge memories of this scope and the shared one, then
    its hybrid vector index; returns how many memories it holds. DDL commits by itself on Oracle."""
    sql = _statements(eng)
    prefix = eng.store.prefix
    with eng.transaction() as cur:  # DDL commits by itself on Oracle: three steps, as written
        cur.execute(sql.DROP)
        cur.execute(sql.TABLE_DDL)
    with eng.transaction() as cur:
        cur.execute(sql.FILL.replace("{p}", prefix), Scope(eng.user_id, eng.agent_id).binds())
    with eng.transaction() as cur:
        cur.execute(sql.INDEX_DDL)
    return int(row_as(CountRow, eng.query(sql.COUNT)[0]).n)


def search_params(eng: Any, probe: str, k: int) -> str:
    """The JSON document SEARCH takes: the probe for the vector side, the same escaped keyword
    expression the learner's keyword leg uses for the text side (a CONTAINS query)."""
    keywords = eng.statements.keyword_expression(probe) or eng.statements.no_match
    return json.dumps({
        "hybrid_index_name": INDEX_NAME,
        "search_fusion": FUSION,
        "search_scorer": SCORER,
        "vector": {"search_text": probe},
        "text": {"contains": keywords},
        "return": {"values": RETURNED, "topN": k},
    })


def native_hybrid_search(eng: Any, probe: str, k: int = 5) -> list[dict]:
    """The k best memories by DBMS_HYBRID_VECTOR.SEARCH: record_id, content and the three scores
    the database reports. Call build_index first."""
    check_query(probe, "probe")
    check_k(k, maximum=100)
    sql = _statements(eng)
    rows = rows_as(NativeHitRow, eng.query(sql.SEARCH, {"params": search_params(eng, probe, k)}))
    return [{"record_id": r.memory_id, "content": eng.backend.read_text(r.content), "score": _num(r.score),
             "vector_score": _num(r.vector_score), "text_score": _num(r.text_score)} for r in rows]


def compare(eng: Any, probe: str, k: int = 5, *, rrf=None) -> list[dict]:
    """Rank by rank: the learner's one-statement RRF (or `rrf`, a function like
    hybrid_rrf_search_memories) next to the database's native hybrid search, same probe."""
    ours = (rrf or retrieval.hybrid_rrf_search_memories)(eng, probe, k=k)
    native = native_hybrid_search(eng, probe, k)
    return [{"rank": i + 1,
             "one_statement_rrf": ours[i]["record_id"] if i < len(ours) else None,
             "native_hybrid": native[i]["record_id"] if i < len(native) else None,
             "native_score": native[i]["score"] if i < len(native) else None}
            for i in range(max(len(ours), len(native)))]


def _num(value: Any) -> float | None:
    return None if value is None else float(value)

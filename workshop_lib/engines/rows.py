"""The rows the engines' statements return, each column named (issue 37, item 2).

Every statement that returns rows declares its row type next to its binds in
engines/statement_sets.py (`stmt("kw k ...", KeywordRow)`), and tests/test_statement_sets.py
parses the statement in both dialects and fails when its SELECT list does not give these
columns, in this order. Code that runs a statement names its columns:

    for row in rows_as(KeywordRow, eng.query(sql.KEYWORD_SEARCH, binds)):
        row.record_id, row.score_txt

so nothing reads `row[2]` and hopes the column order never changes. A column holding text the
database may return as a LOB is typed `object`: read it with `eng.backend.read_text(...)`.

engines/database.py's `query_named(db, statement, binds)` is for SQL whose columns no row type
declares (the learner's own statement in Part 3): each row a dict of its column names to values.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar

from workshop_lib.errors import WorkshopError

NamedRow = tuple[Any, ...]  # every row type below is a NamedTuple (its _fields name its columns)
RowT = TypeVar("RowT", bound=NamedRow)


def columns(row_type: type[NamedRow]) -> tuple[str, ...]:
    """The column names a row type declares."""
    names: tuple[str, ...] = getattr(row_type, "_fields", ())
    return names


class RowShapeError(WorkshopError, ValueError):
    """A statement returned a row with another number of columns than its row type names."""


def row_as(row_type: type[RowT], values: Sequence[object]) -> RowT:
    """One row of a statement as its row type; a row of another width is said plainly."""
    names = columns(row_type)
    if len(values) != len(names):
        raise RowShapeError(f"The statement returned {len(values)} column(s), but its row type "
                            f"{row_type.__name__} names {len(names)}: {', '.join(names)}.",
                            fix="Select exactly the columns the statement's row type names "
                                "(workshop_lib/engines/rows.py), in that order.")
    make: Callable[[Sequence[object]], RowT] = getattr(row_type, "_make")  # noqa: B009 - a NamedTuple's own constructor
    return make(values)


def rows_as(row_type: type[RowT], rows: Iterable[Sequence[object]]) -> list[RowT]:
    """Every row of a statement as its row type."""
    return [row_as(row_type, r) for r in rows]


def each_as(row_type: type[RowT], rows: Iterable[Sequence[object]]) -> Iterator[RowT]:
    """The rows of a statement as its row type, one at a time (a cursor read only as far as needed)."""
    return (row_as(row_type, r) for r in rows)


def first_as(row_type: type[RowT], rows: Sequence[Sequence[object]]) -> RowT | None:
    """The first row of a statement as its row type, or None when it returned none."""
    return row_as(row_type, rows[0]) if rows else None


def maybe_as(row_type: type[RowT], row: Sequence[object] | None) -> RowT | None:
    """A row a cursor's fetchone() gave as its row type, or None when there was none."""
    return None if row is None else row_as(row_type, row)


# ------------------------------------------------------------------ shared shapes
class CountRow(NamedTuple):
    n: int


class EmbeddingRow(NamedTuple):
    embedding: object  # the vector as the driver returns it (bytes, array, or JSON text)


# ------------------------------------------------------------------ the memory store (core/store.py)
class MetaRow(NamedTuple):
    k: str
    v: object


class RecordRow(NamedTuple):
    seq: int
    record_type: str
    record_id: str
    thread_id: str | None
    user_id: str | None
    agent_id: str | None
    role: str | None
    content: object
    metadata: object
    created_at: object


class RecordHitRow(NamedTuple):
    seq: int
    record_type: str
    record_id: str
    thread_id: str | None
    user_id: str | None
    agent_id: str | None
    role: str | None
    content: object
    metadata: object
    created_at: object
    distance: float


class ScopedHitRow(NamedTuple):
    seq: int
    record_type: str
    record_id: str
    thread_id: str | None
    user_id: str | None
    agent_id: str | None
    role: str | None
    content: object
    metadata: object
    created_at: object
    distance: float
    live: int


class SeqRow(NamedTuple):
    seq: int


class ThreadIdRow(NamedTuple):
    thread_id: str


class ThreadRow(NamedTuple):
    thread_id: str
    user_id: str | None


class KeywordRow(NamedTuple):
    """Part 3's keyword search: a memory and its full-text score (higher is better)."""

    record_id: str
    content: object
    metadata: object
    score_txt: float


class HybridRow(NamedTuple):
    """Part 3's one-statement RRF: a memory, its rank in each list (the sentinel when missing) and the fused score."""

    record_id: str
    content: object
    metadata: object
    r_vec: int
    r_txt: int
    rrf_score: float


class VectorRankRow(NamedTuple):
    record_id: str
    distance: float


# ------------------------------------------------------------------ memory over time (core/lifecycle.py)
class StatusRow(NamedTuple):
    status: str
    changed_by: str | None
    changed_at: object
    reason: object
    replaced_by: str | None
    expires_at: object
    live: int


class HistoryRow(NamedTuple):
    seq: int
    record_type: str
    record_id: str
    thread_id: str | None
    user_id: str | None
    agent_id: str | None
    role: str | None
    content: object
    metadata: object
    created_at: object
    status: str | None
    changed_by: str | None
    changed_at: object
    reason: object
    replaced_by: str | None
    expires_at: object
    live: int


class RecordSeqRow(NamedTuple):
    record_seq: int


class AuditRow(NamedTuple):
    created_at: object
    action: str
    subject_hash: str
    actor: str | None
    detail: object


class AuditSubjectRow(NamedTuple):
    seq: int
    subject_hash: str


# ------------------------------------------------------------------ Part 8's document index (parts/ingest/index.py)
class IndexRow(NamedTuple):
    table_name: str
    profile: object
    manifest_sha: str
    status: str
    docs: int | None
    chunks: int | None
    created_at: object
    completed_at: object


class DocCountsRow(NamedTuple):
    docs: int
    chunks: int


class ChunkHashRow(NamedTuple):
    chunk_hash: str
    doc_id: str


class DocumentChunkRow(NamedTuple):
    chunk_no: int
    body: object


class DocumentHitRow(NamedTuple):
    doc_id: str
    chunk_no: int
    source: str
    body: object
    similarity: float


class AliasRow(NamedTuple):
    table_name: str
    previous_table: str | None


class ViewTargetRow(NamedTuple):
    target: object  # embedded: the view's SQL (its last word is the table); Oracle: the table's name


class AliasLogRow(NamedTuple):
    created_at: object
    action: str
    table_name: str | None
    detail: object


# ------------------------------------------------------------------ Part 5's catalog (data/catalog.py, parts/grounded.py)
class ItemHashRow(NamedTuple):
    item_id: str
    doc_hash: str


class AvailabilityRow(NamedTuple):
    item_id: str
    unlocode: str
    units_available: int | None


class PortUnitsRow(NamedTuple):
    unlocode: str
    units_available: int | None


class CatalogMatchRow(NamedTuple):
    item_id: str
    item_name: str
    category: str
    description: object
    price_usd: float
    price_unit: str
    similarity: float


class PortRow(NamedTuple):
    unlocode: str
    port_name: str
    country_code: str
    region: str
    latitude: float
    longitude: float


class ResponseRow(NamedTuple):
    response: object


# ------------------------------------------------------------------ the chat service's telemetry (parts/chat/telemetry.py)
class ModesPerMinuteRow(NamedTuple):
    minute: str
    resp_mode: str
    n: int


class RecentRow(NamedTuple):
    created_at: str
    thread_id: str | None
    resp_mode: str
    latency_ms: float
    question_text: object
    decision_explain: object


# ------------------------------------------------------------------ Oracle's own hybrid search (parts/native_hybrid.py)
class NativeHitRow(NamedTuple):
    memory_id: str
    content: object
    score: float
    vector_score: float
    text_score: float



# ------------------------------------------------------------------ the engines' own reads
# Statements no statement set declares (engines/<engine>/sql.py's catalog reads, integrity checks,
# the doctor's checks, the model's calls): each row type is named beside the engine code reading it.
class NameRow(NamedTuple):
    """One name: an object the schema holds, a privilege or role granted, an index."""

    name: str


class ValueRow(NamedTuple):
    """One value a statement computes: a parameter's setting, a reranker's JSON answer, a quick_check's line."""

    value: object


class NumberRow(NamedTuple):
    """One number a statement computes: a reranker model's score, a spatial tolerance."""

    number: float


class VectorTotalsRow(NamedTuple):
    """The embedded engine's nearest-neighbour index read end to end (the doctor's check)."""

    vectors: int
    total_bytes: int | None


class TableCommentRow(NamedTuple):
    table_name: str
    comments: str | None


class ColumnCommentRow(NamedTuple):
    table_name: str
    column_name: str
    comments: str | None


class TableInfoRow(NamedTuple):
    """SQLite's PRAGMA table_info: one column of a table."""

    cid: int
    name: str
    type: str
    notnull: int
    dflt_value: object
    pk: int


class ForeignKeyListRow(NamedTuple):
    """SQLite's PRAGMA foreign_key_list: one column pair of a foreign key (`from` and `to` renamed)."""

    id: int
    seq: int
    table: str
    from_column: str
    to_column: str  # SUPPLYCHAIN's keys name the referenced column (SQLite gives NULL only when they do not)
    on_update: str
    on_delete: str
    match: str


class ColumnLayoutRow(NamedTuple):
    """Oracle's data dictionary: a column's declared type in parts (USER_TAB_COLUMNS)."""

    table_name: str
    column_name: str
    data_type: str
    data_length: int | None
    data_precision: int | None
    data_scale: int | None


class DictionaryColumnRow(NamedTuple):
    """Oracle's data dictionary: a column of a schema with its comment (ALL_TAB_COLUMNS)."""

    table_name: str
    column_name: str
    data_type: str
    data_length: int | None
    data_precision: int | None
    data_scale: int | None
    nullable: str
    comments: str | None


class DictionaryForeignKeyRow(NamedTuple):
    table_name: str
    constraint_name: str
    column_name: str
    ref_table: str
    ref_column: str


class IndexStatusRow(NamedTuple):
    """Oracle's USER_INDEXES for the doctor: an index and its three statuses."""

    index_name: str
    index_type: str
    status: str
    domidx_status: str
    domidx_opstatus: str


class TablePrivilegeRow(NamedTuple):
    owner: str
    table_name: str
    privilege: str


class DomainIndexStatusRow(NamedTuple):
    """Oracle's ALL_INDEXES for the doctor: a (spatial) index's three statuses."""

    status: str
    domidx_status: str
    domidx_opstatus: str


class HostAceRow(NamedTuple):
    """Oracle's USER_HOST_ACES: a network privilege granted on a host."""

    host: str
    lower_port: int | None
    upper_port: int | None
    privilege: str


class DirectoryGrantRow(NamedTuple):
    """Oracle's ALL_TAB_PRIVS for a DIRECTORY: a privilege on it."""

    table_name: str
    privilege: str

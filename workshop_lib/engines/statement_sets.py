"""The typed sets of statements each engine runs, with the bind names each statement takes.

Each engine's statement module (embedded/sql.py, oracle/sql.py) fills every field in its
own dialect. The field list lives here once, so the two dialects cannot drift apart: a
missing or unknown statement fails when the set is built, and tests/test_statement_sets.py
checks that every statement of both dialects takes exactly the binds declared next to it
here. Lesson code reads a statement by name and binds the names listed, in any order;
it never guesses a bind name or a column order from one dialect.

`{p}` in a store statement is the store's table-name prefix (filled when the set is built);
`{t}` in a DOCS statement is the versioned chunk table it runs on.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from workshop_lib.engines.dbtypes import TableName, TableSpec
from workshop_lib.engines.rows import (
    AliasLogRow,
    AliasRow,
    AuditRow,
    AuditSubjectRow,
    AvailabilityRow,
    CatalogMatchRow,
    ChunkHashRow,
    CountRow,
    DocCountsRow,
    DocumentChunkRow,
    DocumentHitRow,
    EmbeddingRow,
    HistoryRow,
    HybridRow,
    IndexRow,
    ItemHashRow,
    KeywordRow,
    MetaRow,
    ModesPerMinuteRow,
    NamedRow,
    NativeHitRow,
    PortRow,
    PortUnitsRow,
    RecentRow,
    RecordHitRow,
    RecordRow,
    RecordSeqRow,
    ResponseRow,
    ScopedHitRow,
    SeqRow,
    StatusRow,
    ThreadIdRow,
    ThreadRow,
    VectorRankRow,
    ViewTargetRow,
)


def stmt(binds: str = "", row: type[NamedRow] | None = None) -> Any:
    """A statement field that takes the named binds (space-separated) and, when it returns rows,
    the row type naming its result columns (engines/rows.py)."""
    return field(metadata={"binds": frozenset(binds.split()), "row": row})


def ddl() -> Any:
    """A field of DDL or other statement lists/maps: no binds."""
    return field(metadata={"binds": None})


@dataclass(frozen=True)
class StoreStatements:
    """The memory store (core/store.py). The searches and Part 3's retrieval read one scope (u, a)
    and the shared schema knowledge (shared_u, shared_a; NULL leaves it out). RECORD_SEQ reads the key
    RECORD_INSERT generated, by the record's own key, in the same transaction."""

    META_SELECT: str = stmt("", MetaRow)
    META_INSERT: str = stmt("meta_key v")
    RECORD_GET: str = stmt("rt rid", RecordRow)
    RECORD_INSERT: str = stmt("rt rid tid u a role content meta")
    RECORD_SEQ: str = stmt("rt rid", SeqRow)
    RECORD_LIST: str = stmt("rt tid tid_free u u_free a a_free hist", RecordRow)
    RECORD_NEWEST: str = stmt("rt tid tid_free u u_free a a_free hist n", RecordRow)
    RECORD_SET_CONTENT: str = stmt("content seq")
    RECORD_SET_METADATA: str = stmt("meta seq")
    RECORD_DELETE: str = stmt("seq")
    RECORD_COUNT: str = stmt("types", CountRow)
    CHUNK_DELETE: str = stmt("seq")
    CHUNK_INSERT_TEXT: str = stmt("seq txt")
    CHUNK_INSERT_VECTOR: str = stmt("seq txt vec")
    THREAD_GET: str = stmt("tid", ThreadRow)
    THREAD_INSERT: str = stmt("tid u a")
    THREAD_DELETE: str = stmt("tid")
    THREAD_CHUNKS_DELETE: str = stmt("tid")
    THREAD_RECORDS_DELETE: str = stmt("tid")
    THREADS_OF_USER: str = stmt("actor", ThreadIdRow)
    THREADS_OF_AGENT: str = stmt("actor", ThreadIdRow)
    SCOPED_CHILD_SEQS_OF_USER: str = stmt("actor types", SeqRow)
    SCOPED_CHILD_SEQS_OF_AGENT: str = stmt("actor types", SeqRow)
    SEARCH_BY_TEXT: str = stmt("q types tid tid_free u u_free a a_free shared_u shared_a", RecordHitRow)
    SEARCH_BY_VECTOR: str = stmt("qv types tid tid_free u u_free a a_free shared_u shared_a", RecordHitRow)
    SEARCH_SCOPED_KNN: str = stmt("q n rt u a shared_u shared_a", ScopedHitRow)
    KEYWORD_SEARCH: str = stmt("kw k u a shared_u shared_a", KeywordRow)
    HYBRID_RRF: str = stmt("q kw n k rrf_k u a shared_u shared_a", HybridRow)
    VECTOR_RANKED: str = stmt("q n u a shared_u shared_a", VectorRankRow)
    SCHEMA: list[tuple[str, list[str]]] = ddl()   # (object name, its DDL statements), in creation order
    DROP: dict[str, str] = ddl()                  # object name -> DROP statement
    OBSOLETE: dict[str, str] = ddl()              # objects of older versions to drop when a store is opened


@dataclass(frozen=True)
class MemoryStatements:
    """Memory over time (core/lifecycle.py): a status row per memory, the audit, erasure traces."""

    MIGRATIONS: list[tuple[str, list[str]]] = ddl()  # tables added to existing stores, in order
    DROP: dict[str, str] = ddl()
    STATUS_INSERT: str = stmt("seq st actor why repl expiry")
    STATUS_GET: str = stmt("seq", StatusRow)
    STATUS_DELETE: str = stmt("seq")
    THREAD_STATUS_DELETE: str = stmt("tid")
    HISTORY: str = stmt("types u a", HistoryRow)
    EXPIRED_DUE: str = stmt("", RecordSeqRow)
    AUDIT_INSERT: str = stmt("act subj actor detail")
    AUDIT_LIST: str = stmt("", AuditRow)
    TRACE_RECORDS: str = stmt("u", CountRow)
    TRACE_THREADS: str = stmt("u", CountRow)
    TRACE_ORPHAN_CHUNKS: str = stmt("", CountRow)
    TRACE_VECTOR_INDEX: str = stmt("u", CountRow)
    TRACE_TEXT_INDEX: str = stmt("kw", CountRow)
    CHAT_ERASE: str = stmt("u")
    # Erasure reaches past the rows (core/lifecycle.py): the caches' rows written for the
    # user, the audit's keyed hashes, and what each engine runs once the deletes committed.
    AUDIT_SUBJECTS: str = stmt("", AuditSubjectRow)
    AUDIT_SET_SUBJECT: str = stmt("seq subj")
    RESPONSE_CACHE_ERASE: str = stmt("u")
    EMBEDDING_CACHE_ERASE: str = stmt("u")
    CACHE_WRITERS_ERASE: str = stmt("u")
    PURGE_DELETED: list[str] = ddl()  # after an erasure commits: deleted text out of the indexes and files
    TRACE_CACHE_ROWS: str = stmt("u", CountRow)
    TRACE_CACHE_TEXT: str = stmt("term", CountRow)
    TRACE_CHAT_LOG: str = stmt("u", CountRow)
    TRACE_AUDIT: str = stmt("u plain", CountRow)
    TRACE_TEXT_TOKENS: str = stmt("tok", CountRow)


@dataclass(frozen=True)
class DocsStatements:
    """Part 8's versioned document index (parts/ingest/index.py)."""

    ALIAS: str = ddl()            # the alias name the view is called by
    DDL: list[str] = ddl()        # registry, alias and log tables
    TABLE_DDL: list[str] = ddl()  # one versioned chunk table ({t})
    REGISTER: str = stmt("t profile sha")
    MARK_BUILDING: str = stmt("t")
    MARK_COMPLETE: str = stmt("t docs chunks")
    INDEX_GET: str = stmt("t", IndexRow)
    INDEX_LIST: str = stmt("", IndexRow)
    TABLE_DROP: str = stmt()
    INDEX_DELETE: str = stmt("t")
    CHUNK_HASHES: str = stmt("", ChunkHashRow)
    CHUNK_INSERT: str = stmt("h doc_id chunk_no source lang tags body n_units vec")
    CHUNK_DELETE: str = stmt("h")
    COUNTS: str = stmt("", DocCountsRow)
    SEARCH: str = stmt("qv k", DocumentHitRow)
    DOCUMENT_CHUNKS: str = stmt("d k", DocumentChunkRow)
    ALIAS_GET: str = stmt("alias_name", AliasRow)
    ALIAS_SET: str = stmt("alias_name t prev")
    VIEW_REPLACE: list[str] = ddl()
    VIEW_TARGET: str = stmt("", ViewTargetRow)
    VIEW_DROP: str = stmt()
    ALIAS_DELETE: str = stmt("alias_name")
    LOG_INSERT: str = stmt("alias_name action t detail")
    LOG_LIST: str = stmt("alias_name n", AliasLogRow)


@dataclass(frozen=True)
class CatalogStatements:
    """Part 5's catalog, availability and caches (data/catalog.py, parts/grounded.py)."""

    DDL: list[str] = ddl()
    ITEM_HASHES: str = stmt("", ItemHashRow)
    ITEM_INSERT: str = stmt("item_id item_name category description price_usd price_unit doc_hash doc")
    ITEM_UPDATE: str = stmt("item_id item_name category description price_usd price_unit doc_hash doc")
    ITEM_DELETE: str = stmt("item_id")
    AVAIL_DELETE_ITEM: str = stmt("item_id")
    AVAIL_INSERT: str = stmt("item_id unlocode units")
    ITEM_COUNT: str = stmt("", CountRow)
    AVAILABILITY_ALL: str = stmt("", AvailabilityRow)
    MATCH_ABOVE_THRESHOLD: str = stmt("qv k min_similarity", CatalogMatchRow)
    CLOSEST_ITEMS: str = stmt("qv k", CatalogMatchRow)
    AVAILABILITY_OF_ITEM: str = stmt("item_id", PortUnitsRow)
    PORTS: str = stmt("", PortRow)
    EMBED_TEXT: str = stmt("txt", EmbeddingRow)
    EMB_CACHE_GET: str = stmt("h m", EmbeddingRow)
    EMB_CACHE_PUT: str = stmt("h m txt vec")
    EMB_CACHE_COUNT: str = stmt("", CountRow)
    EMB_CACHE_CLEAR: str = stmt()
    RESP_CACHE_GET: str = stmt("cache_key", ResponseRow)
    RESP_CACHE_DELETE: str = stmt("cache_key")
    RESP_CACHE_INSERT: str = stmt("cache_key m p q r")
    RESP_CACHE_COUNT: str = stmt("", CountRow)
    RESP_CACHE_CLEAR: str = stmt()
    CACHE_WRITER_PUT: str = stmt("c cache_key u")  # who a cache row was written for (erasure deletes it)
    CACHE_WRITERS_CLEAR: str = stmt()


@dataclass(frozen=True)
class ChatStatements:
    """The chat service's telemetry (parts/chat/telemetry.py)."""

    DDL: list[str] = ddl()
    INSERT: str = stmt("tid usr qhash qtext shortq rmode latency cached embhit usedllm explain")
    COUNT: str = stmt("", CountRow)
    MODES_PER_MINUTE: str = stmt("", ModesPerMinuteRow)
    RECENT: str = stmt("n", RecentRow)


@dataclass(frozen=True)
class NativeHybridStatements:
    """Oracle's own hybrid search, shown beside Part 3's one-statement RRF (parts/native_hybrid.py):
    a snapshot table of the knowledge memories, a hybrid vector index on it, DBMS_HYBRID_VECTOR.SEARCH.
    FILL names the store's tables with the `{p}` prefix. The embedded engine has no such index."""

    DROP: str = stmt()
    TABLE_DDL: str = stmt()
    FILL: str = stmt("u a shared_u shared_a")
    INDEX_DDL: str = stmt()
    COUNT: str = stmt("", CountRow)
    SEARCH: str = stmt("params", NativeHitRow)


@dataclass(frozen=True)
class SupplyChainStatements:
    """Reads of SUPPLYCHAIN as loaded (data/supplychain.py: sample, counts), for a table the dataset's
    specs or the dictionary name (identifiers checked there, never user text as it is)."""

    count: Callable[[TableName], str]                       # one table's row count (CountRow)
    first_rows: Callable[[TableSpec, list[str], int], str]  # the first n rows by primary key, the named columns


@dataclass(frozen=True)
class EngineStatements:
    """Every statement set of one engine, reached as `eng.statements.<set>`."""

    store: Callable[[str, int], StoreStatements]   # (table-name prefix, vector dimensions) -> the store's set
    memory: Callable[[str], MemoryStatements]      # (table-name prefix) -> memory over time
    docs: DocsStatements
    catalog: CatalogStatements
    chat: ChatStatements
    supplychain: SupplyChainStatements             # SUPPLYCHAIN's row counts and first rows
    agent_queries: Mapping[str, str]               # Part 6's reference queries over SUPPLYCHAIN, by name
    ping: str                                      # the cheapest statement the database answers
    keyword_expression: Callable[[str], str | None]  # any user text as a safe full-text query, or None
    no_match: str                                  # a full-text expression that matches nothing
    native_hybrid: NativeHybridStatements | None = None  # the database's own hybrid search, where it has one


def declared_rows(bundle: type) -> dict[str, type[NamedRow] | None]:
    """Statement name -> the row type naming its result columns (None: it returns no rows)."""
    return {f.name: f.metadata["row"] for f in fields(bundle) if f.metadata.get("binds") is not None}


def declared_binds(bundle: type) -> dict[str, frozenset[str]]:
    """Statement name -> the binds it takes, for one of the sets above (lists and maps left out)."""
    return {f.name: f.metadata["binds"] for f in fields(bundle) if f.metadata.get("binds") is not None}


# The single-statement fields of the store's set, in declaration order.
STATEMENT_NAMES: list[str] = list(declared_binds(StoreStatements))

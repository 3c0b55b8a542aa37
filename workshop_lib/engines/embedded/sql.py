"""Every SQL statement the embedded engine (SQLite + sqlite-vec + FTS5) runs.

Statements are templates: `{p}` is the store's table-name prefix and `{dim}` the
vector dimension. `embed(text)` is the embedding model registered as a SQL function,
so the query embedding is computed inside the database, as Oracle's VECTOR_EMBEDDING is.
The Oracle engine has a module of the same statement names (workshop_lib/engines/oracle/sql.py).
"""
from __future__ import annotations

from workshop_lib.engines.dbtypes import TableName, TableSpec

# Statements written the same way for both engines are defined once (portable_sql.py).
from workshop_lib.engines.portable_sql import (  # re-exported: part of this module's statement set
    AGENT_QUERIES as AGENT_QUERIES,
)
from workshop_lib.engines.portable_sql import (  # noqa: F401 - part of this dialect's statement set
    CHUNK_DELETE,
    MEMORY_PORTABLE,
    META_INSERT,
    META_SELECT,
    PLAN_SQL,
    RECORD_DELETE,
    RECORD_SET_CONTENT,
    RECORD_SET_METADATA,
    SENTINEL,
    SHARED_ID_PREFIX,
    THREAD_CHUNKS_DELETE,
    THREAD_DELETE,
    THREAD_GET,
    THREAD_INSERT,
    THREAD_RECORDS_DELETE,
    THREADS_OF_AGENT,
    THREADS_OF_USER,
    with_prefix,
)
from workshop_lib.engines.statement_sets import (
    STATEMENT_NAMES,
    CatalogStatements,
    ChatStatements,
    DocsStatements,
    MemoryStatements,
    StoreStatements,
)

# ---------------------------------------------------------------- memory store schema
SCHEMA = [
    ("STORE_META", [
        "CREATE TABLE IF NOT EXISTS {p}STORE_META (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
    ]),
    ("THREADS", [
        """CREATE TABLE IF NOT EXISTS {p}THREADS (
            thread_id  TEXT PRIMARY KEY,
            user_id    TEXT,
            agent_id   TEXT,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))""",
    ]),
    ("RECORDS", [
        """CREATE TABLE IF NOT EXISTS {p}RECORDS (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            record_type TEXT NOT NULL,
            record_id   TEXT NOT NULL,
            thread_id   TEXT,
            user_id     TEXT,
            agent_id    TEXT,
            role        TEXT,
            content     TEXT,
            metadata    TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
            created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            UNIQUE (record_type, record_id))""",
        "CREATE INDEX IF NOT EXISTS {p}RECORDS_SCOPE_IX ON {p}RECORDS (user_id, agent_id, record_type)",
        "CREATE INDEX IF NOT EXISTS {p}RECORDS_THREAD_IX ON {p}RECORDS (thread_id)",
    ]),
    ("RECORD_CHUNKS", [
        """CREATE TABLE IF NOT EXISTS {p}RECORD_CHUNKS (
            record_seq INTEGER NOT NULL,
            chunk_no   INTEGER NOT NULL DEFAULT 0,
            chunk_text TEXT,
            embedding  BLOB NOT NULL,
            PRIMARY KEY (record_seq, chunk_no))""",
    ]),
    # Full-text index over RECORDS.content, kept in sync by triggers.
    ("RECORDS_FTS", [
        """CREATE VIRTUAL TABLE IF NOT EXISTS {p}RECORDS_FTS USING fts5(
            content, content='{p}RECORDS', content_rowid='seq', tokenize='porter unicode61')""",
        "INSERT INTO {p}RECORDS_FTS({p}RECORDS_FTS) VALUES ('rebuild')",
    ]),
    ("RECORDS_FTS_AI", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_FTS_AI AFTER INSERT ON {p}RECORDS BEGIN
            INSERT INTO {p}RECORDS_FTS(rowid, content) VALUES (new.seq, new.content);
        END""",
    ]),
    ("RECORDS_FTS_AD", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_FTS_AD AFTER DELETE ON {p}RECORDS BEGIN
            INSERT INTO {p}RECORDS_FTS({p}RECORDS_FTS, rowid, content) VALUES ('delete', old.seq, old.content);
        END""",
    ]),
    ("RECORDS_FTS_AU", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_FTS_AU AFTER UPDATE OF content ON {p}RECORDS BEGIN
            INSERT INTO {p}RECORDS_FTS({p}RECORDS_FTS, rowid, content) VALUES ('delete', old.seq, old.content);
            INSERT INTO {p}RECORDS_FTS(rowid, content) VALUES (new.seq, new.content);
        END""",
    ]),
    # Nearest-neighbour index (sqlite-vec vec0, exact KNN): one row per chunk (the store
    # writes chunk 0 only, so the rowid is the record's seq), partitioned by scope so a
    # search scans only its user's/agent's memories; kind is a metadata column. It holds
    # unit vectors compared by L2: on unit vectors L2 ranks exactly as cosine does
    # (cosine distance = L2^2 / 2), and sqlite-vec's L2 loop is the cheaper one (and the
    # one its builds vectorise). Kept in sync with RECORD_CHUNKS and RECORDS.metadata by
    # the triggers below. chunk_size=64: vec0 allocates a whole chunk for each new
    # partition, so every new user (one partition per record type) costs 64 vectors of disk,
    # not the default 1,024 (1 MB per new user id a chat client makes up); an exact KNN over
    # 50,000 vectors in one partition measured no slower.
    ("RECORDS_KNN", [
        """CREATE VIRTUAL TABLE IF NOT EXISTS {p}RECORDS_KNN USING vec0(
            scope TEXT PARTITION KEY,
            embedding float[{dim}] distance_metric=l2,
            kind TEXT,
            chunk_size=64)""",
        # Back-fill from the stored chunks (an older store, or one being upgraded).
        """INSERT INTO {p}RECORDS_KNN (rowid, scope, kind, embedding)
            SELECT c.record_seq, json_array(m.record_type, m.user_id, m.agent_id),
                   COALESCE(json_extract(m.metadata, '$.kind'), ''), vec_normalize(c.embedding)
              FROM {p}RECORD_CHUNKS c JOIN {p}RECORDS m ON m.seq = c.record_seq
             WHERE c.chunk_no = 0""",
    ]),
    ("RECORDS_KNN_AI", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_KNN_AI AFTER INSERT ON {p}RECORD_CHUNKS
            WHEN new.chunk_no = 0 BEGIN
            INSERT INTO {p}RECORDS_KNN (rowid, scope, kind, embedding)
            SELECT new.record_seq, json_array(m.record_type, m.user_id, m.agent_id),
                   COALESCE(json_extract(m.metadata, '$.kind'), ''), vec_normalize(new.embedding)
              FROM {p}RECORDS m WHERE m.seq = new.record_seq;
        END""",
    ]),
    ("RECORDS_KNN_AD", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_KNN_AD AFTER DELETE ON {p}RECORD_CHUNKS
            WHEN old.chunk_no = 0 BEGIN
            DELETE FROM {p}RECORDS_KNN WHERE rowid = old.record_seq;
        END""",
    ]),
    ("RECORDS_KNN_AU", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_KNN_AU AFTER UPDATE OF metadata ON {p}RECORDS BEGIN
            UPDATE {p}RECORDS_KNN SET kind = COALESCE(json_extract(new.metadata, '$.kind'), '')
             WHERE rowid = new.seq;
        END""",
    ]),
    # The columns the knowledge filter reads, in a narrow index: the keyword leg checks
    # each full-text match here instead of reading the wide RECORDS row (statements name
    # it with INDEXED BY; SQLite would otherwise look rows up by seq in the table). The
    # last column must stay the very expression _KNOWLEDGE tests, or the index stops covering.
    ("RECORDS_KNOWLEDGE_IX", [
        """CREATE INDEX IF NOT EXISTS {p}RECORDS_KNOWLEDGE_IX ON {p}RECORDS (
            seq, user_id, agent_id, record_type, COALESCE(json_extract(metadata, '$.kind'), ''))""",
    ])
]

DROP = {
    "STORE_META": "DROP TABLE IF EXISTS {p}STORE_META",
    "THREADS": "DROP TABLE IF EXISTS {p}THREADS",
    "RECORDS": "DROP TABLE IF EXISTS {p}RECORDS",
    "RECORD_CHUNKS": "DROP TABLE IF EXISTS {p}RECORD_CHUNKS",
    "RECORDS_FTS": "DROP TABLE IF EXISTS {p}RECORDS_FTS",
    "RECORDS_FTS_AI": "DROP TRIGGER IF EXISTS {p}RECORDS_FTS_AI",
    "RECORDS_FTS_AD": "DROP TRIGGER IF EXISTS {p}RECORDS_FTS_AD",
    "RECORDS_FTS_AU": "DROP TRIGGER IF EXISTS {p}RECORDS_FTS_AU",
    "RECORDS_KNN": "DROP TABLE IF EXISTS {p}RECORDS_KNN",
    "RECORDS_KNN_AI": "DROP TRIGGER IF EXISTS {p}RECORDS_KNN_AI",
    "RECORDS_KNN_AD": "DROP TRIGGER IF EXISTS {p}RECORDS_KNN_AD",
    "RECORDS_KNN_AU": "DROP TRIGGER IF EXISTS {p}RECORDS_KNN_AU",
    "RECORDS_KNOWLEDGE_IX": "DROP INDEX IF EXISTS {p}RECORDS_KNOWLEDGE_IX",
}

# Derived objects an earlier version created and this one replaces (dropped in reverse
# order, then rebuilt from RECORD_CHUNKS): never a table that holds memories.
OBSOLETE = {
    "RECORDS_VEC": "DROP TABLE IF EXISTS {p}RECORDS_VEC",     # cosine vec0 of raw vectors
    "RECORDS_VEC_AI": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AI",
    "RECORDS_VEC_AD": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AD",
    "RECORDS_VEC_AU": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AU",
}

EXISTING_OBJECTS = "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger', 'index')"

# ---------------------------------------------------------------- memory store DML
_COLS = "m.seq, m.record_type, m.record_id, m.thread_id, m.user_id, m.agent_id, m.role, m.content, m.metadata, m.created_at"

# Scope rule shared by list and search: *_free = 1 leaves a dimension open; otherwise the
# column must equal the value, and a NULL value matches only NULL (unscoped) rows.
_ACTOR_SCOPE = """(:tid_free = 1 OR m.thread_id = :tid OR (:tid IS NULL AND m.thread_id IS NULL))
   AND (:u_free = 1 OR m.user_id = :u OR (:u IS NULL AND m.user_id IS NULL))
   AND (:a_free = 1 OR m.agent_id = :a OR (:a IS NULL AND m.agent_id IS NULL))"""
# The shared schema knowledge (portable_sql.SHARED_ID_PREFIX): read beside a scope, never instead.
_SHARED_KNOWLEDGE = f"""(m.user_id = :shared_u AND m.agent_id = :shared_a AND m.record_type = 'memory'
        AND m.record_id GLOB '{SHARED_ID_PREFIX}*')"""
_SCOPE = f"""instr(:types, ',' || m.record_type || ',') > 0
   AND ({_ACTOR_SCOPE}
        OR {_SHARED_KNOWLEDGE})"""

# Memory over time: a record is live unless its MEMORY_STATUS row (the MEMORY block at the
# end of this module) marks it superseded, forgotten or expired, or its expiry has passed.
# Every read path applies this; only history (RECORD_LIST with :hist = 1) skips it.
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


def _live(seq: str) -> str:
    return f"""NOT EXISTS (SELECT 1 FROM {{p}}MEMORY_STATUS ms WHERE ms.record_seq = {seq}
          AND (ms.status <> 'valid' OR ms.expires_at <= {_NOW}))"""



RECORD_GET = f"SELECT {_COLS} FROM {{p}}RECORDS m WHERE m.record_type = :rt AND m.record_id = :rid"
RECORD_INSERT = """INSERT INTO {p}RECORDS (record_type, record_id, thread_id, user_id, agent_id, role, content, metadata)
VALUES (:rt, :rid, :tid, :u, :a, :role, :content, :meta)"""
# The key the insert generated, read back by the record's own unique key (one statement for both dialects' stores).
RECORD_SEQ = "SELECT seq FROM {p}RECORDS WHERE record_type = :rt AND record_id = :rid"
RECORD_LIST = f"""SELECT {_COLS} FROM {{p}}RECORDS m
 WHERE m.record_type = :rt AND {_ACTOR_SCOPE} AND (:hist = 1 OR {_live("m.seq")})
 ORDER BY m.seq"""
# The newest :n records of a scope, newest first (a bounded read of a long history).
RECORD_NEWEST = f"""SELECT {_COLS} FROM {{p}}RECORDS m
 WHERE m.record_type = :rt AND {_ACTOR_SCOPE} AND (:hist = 1 OR {_live("m.seq")})
 ORDER BY m.seq DESC LIMIT :n"""
RECORD_COUNT = "SELECT COUNT(*) FROM {p}RECORDS m WHERE instr(:types, ',' || m.record_type || ',') > 0"

# Text the model cannot embed (embed() returns NULL) gets no chunk: it stays keyword-searchable only.
CHUNK_INSERT_TEXT = """INSERT INTO {p}RECORD_CHUNKS (record_seq, chunk_no, chunk_text, embedding)
SELECT :seq, 0, :txt, e FROM (SELECT embed(:txt) AS e) WHERE e IS NOT NULL"""
CHUNK_INSERT_VECTOR = "INSERT INTO {p}RECORD_CHUNKS (record_seq, chunk_no, chunk_text, embedding) VALUES (:seq, 0, :txt, :vec)"

SCOPED_CHILD_SEQS_OF_USER = "SELECT seq FROM {p}RECORDS m WHERE m.user_id = :actor AND instr(:types, ',' || m.record_type || ',') > 0"
SCOPED_CHILD_SEQS_OF_AGENT = "SELECT seq FROM {p}RECORDS m WHERE m.agent_id = :actor AND instr(:types, ',' || m.record_type || ',') > 0"

# Exact cosine scan, nearest first; the store reads rows until k pass the metadata filter.
SEARCH_BY_TEXT = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb)
SELECT {_COLS}, vec_distance_cosine(c.embedding, q.emb) AS distance
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q
 WHERE {_SCOPE} AND q.emb IS NOT NULL AND {_live("m.seq")}
 ORDER BY distance, m.seq"""
SEARCH_BY_VECTOR = f"""SELECT {_COLS}, vec_distance_cosine(c.embedding, :qv) AS distance
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq
 WHERE {_SCOPE} AND {_live("m.seq")}
 ORDER BY distance, m.seq"""

# The common case of an agent's turn (one record type, one user, one agent): k nearest
# from the vec0 index's partition for that scope instead of scanning every chunk, and the
# shared schema knowledge scanned exactly beside it (a few hundred facts; none when
# :shared_u is NULL). The union's first :n is the first :n of both scopes together.
SEARCH_SCOPED_KNN = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
own AS MATERIALIZED (
    SELECT v.rowid AS seq, v.distance * v.distance / 2.0 AS distance
      FROM q CROSS JOIN {{p}}RECORDS_KNN v
     WHERE q.emb IS NOT NULL AND v.embedding MATCH vec_normalize(q.emb) AND v.k = :n
       AND v.scope = json_array(:rt, :u, :a)),
shared AS MATERIALIZED (
    SELECT m.seq, vec_distance_cosine(c.embedding, q.emb) AS distance
      FROM q CROSS JOIN {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq AND c.chunk_no = 0
     WHERE q.emb IS NOT NULL AND m.record_type = :rt AND {_SHARED_KNOWLEDGE}),
knn AS (
    SELECT seq, MIN(distance) AS distance
      FROM (SELECT seq, distance FROM own UNION ALL SELECT seq, distance FROM shared)
     GROUP BY seq)
SELECT {_COLS}, knn.distance, CASE WHEN {_live("m.seq")} THEN 1 ELSE 0 END AS live
  FROM knn JOIN {{p}}RECORDS m ON m.seq = knn.seq
 ORDER BY knn.distance, m.seq
 LIMIT :n"""

# ---------------------------------------------------------------- retrieval (Part 3)
# Knowledge memories: this scope and the shared schema knowledge, record type 'memory', never
# tool output.
_KNOWLEDGE = f"""((m.user_id = :u AND m.agent_id = :a) OR {_SHARED_KNOWLEDGE})
   AND m.record_type = 'memory' AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'"""

# The vector leg of knowledge retrieval: sqlite-vec's exact KNN over RECORDS_KNN, inside
# the partition of this scope (record type 'memory', this user, this agent), skipping tool
# output while it scans, and beside it the shared schema knowledge scanned exactly; d is the
# cosine distance, each scope's first :n kept (the union holds the first :n of both together).
# MATERIALIZED: vec0 accepts no other ORDER BY than its own.
_VEC_TOP = f"""vec_own AS MATERIALIZED (
    SELECT v.rowid AS seq, v.distance * v.distance / 2.0 AS d
      FROM q CROSS JOIN {{p}}RECORDS_KNN v
     WHERE q.emb IS NOT NULL AND v.embedding MATCH vec_normalize(q.emb) AND v.k = :n
       AND v.scope = json_array('memory', :u, :a) AND v.kind <> 'tool_output'),
vec_shared AS MATERIALIZED (
    SELECT m.seq, vec_distance_cosine(c.embedding, q.emb) AS d
      FROM q CROSS JOIN {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq AND c.chunk_no = 0
     WHERE q.emb IS NOT NULL AND {_SHARED_KNOWLEDGE}
       AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'
     ORDER BY d, m.seq LIMIT :n),
vec_top AS (
    SELECT seq, MIN(d) AS d FROM (SELECT seq, d FROM vec_own UNION ALL SELECT seq, d FROM vec_shared)
     GROUP BY seq)"""

# The keyword leg: every full-text match scored by bm25 and checked against the knowledge
# filter in the narrow RECORDS_KNOWLEDGE_IX; only the top rows read the RECORDS table.
def _txt_top(limit: str) -> str:
    return f"""txt_top AS (
    SELECT m.seq, bm25({{p}}RECORDS_FTS) AS bm
      FROM {{p}}RECORDS_FTS JOIN {{p}}RECORDS m INDEXED BY {{p}}RECORDS_KNOWLEDGE_IX ON m.seq = {{p}}RECORDS_FTS.rowid
     WHERE {{p}}RECORDS_FTS MATCH :kw AND {_KNOWLEDGE} AND {_live("m.seq")}
     ORDER BY bm, m.seq LIMIT {limit})"""


KEYWORD_SEARCH = f"""WITH {_txt_top(":k")}
SELECT m.record_id, m.content, m.metadata, -t.bm AS score_txt
  FROM txt_top t JOIN {{p}}RECORDS m ON m.seq = t.seq
 ORDER BY t.bm, t.seq"""

# Reciprocal Rank Fusion in one statement: two ranked lists, FULL OUTER JOIN, missing
# ranks become SENTINEL (portable_sql.py), fused score = 1/(rrf_k + r_vec) + 1/(rrf_k + r_txt).
# Each list is cut to its top :n (a bounded top-n sort) *before* ROW_NUMBER numbers it:
# numbering every candidate first would sort all memories and scan them again.
HYBRID_RRF = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
{_VEC_TOP},
vec_ranked AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY d, seq) AS r_vec FROM vec_top WHERE {_live("vec_top.seq")}),
vec AS (
    SELECT seq, r_vec FROM vec_ranked WHERE r_vec <= :n),
{_txt_top(":n")},
txt AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY bm, seq) AS r_txt FROM txt_top),
fused AS (
    SELECT COALESCE(v.seq, t.seq) AS seq,
           COALESCE(v.r_vec, {SENTINEL}) AS r_vec,
           COALESCE(t.r_txt, {SENTINEL}) AS r_txt
      FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)
SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,
       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score
  FROM fused f JOIN {{p}}RECORDS m ON m.seq = f.seq
 ORDER BY rrf_score DESC, f.r_vec, f.r_txt
 LIMIT :k"""

# The two ranked lists on their own, for checks and benchmarks that fuse independently.
VECTOR_RANKED = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
{_VEC_TOP}
SELECT m.record_id, t.d AS distance
  FROM vec_top t JOIN {{p}}RECORDS m ON m.seq = t.seq
 WHERE {_live("t.seq")}
 ORDER BY t.d, t.seq
 LIMIT :n"""

_NAMES = STATEMENT_NAMES  # one list for both dialects (workshop_lib/engines/statement_sets.py)


def statements(prefix: str, dim: int) -> StoreStatements:
    """All store and retrieval statements with the prefix filled in."""
    def fill(sql: str) -> str:
        return sql.replace("{p}", prefix).replace("{dim}", str(dim))

    return StoreStatements(
        **{name: fill(globals()[name]) for name in STATEMENT_NAMES},
        SCHEMA=[(name, [fill(s) for s in ddl]) for name, ddl in SCHEMA],
        DROP={name: fill(sql) for name, sql in DROP.items()},
        OBSOLETE={name: fill(sql) for name, sql in OBSOLETE.items()},
    )


# ---------------------------------------------------------------- chat service telemetry
# One row per answered /chat request (workshop_lib/parts/chat). Bind names match Oracle's.
CHAT_DDL = [
    """CREATE TABLE IF NOT EXISTS CHAT_INTERACTIONS (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        thread_id TEXT,
        user_id TEXT,
        question_hash TEXT NOT NULL,
        question_text TEXT,
        resp_mode TEXT NOT NULL CHECK (resp_mode IN ('rag', 'hybrid', 'fallback')),
        short_query_active INTEGER NOT NULL,
        used_llm TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        embedding_cache_hit INTEGER,
        from_cache INTEGER NOT NULL,
        decision_explain TEXT NOT NULL CHECK (json_valid(decision_explain)))""",
    "CREATE INDEX IF NOT EXISTS CHAT_INTERACTIONS_AT ON CHAT_INTERACTIONS (created_at)",
]
CHAT_INSERT = """INSERT INTO CHAT_INTERACTIONS (thread_id, user_id, question_hash, question_text, resp_mode,
    short_query_active, used_llm, latency_ms, embedding_cache_hit, from_cache, decision_explain)
    VALUES (:tid, :usr, :qhash, :qtext, :rmode, :shortq, :usedllm, :latency, :embhit, :cached, :explain)"""
CHAT_COUNT = "SELECT COUNT(*) FROM CHAT_INTERACTIONS"
CHAT_MODES_PER_MINUTE = """SELECT substr(created_at, 1, 16) AS minute, resp_mode, COUNT(*) AS n
    FROM CHAT_INTERACTIONS GROUP BY substr(created_at, 1, 16), resp_mode ORDER BY minute, resp_mode"""
CHAT_RECENT = """SELECT created_at, thread_id, resp_mode, latency_ms, question_text, decision_explain
    FROM CHAT_INTERACTIONS ORDER BY id DESC LIMIT :n"""


CHAT = ChatStatements(DDL=CHAT_DDL, INSERT=CHAT_INSERT, COUNT=CHAT_COUNT,
                      MODES_PER_MINUTE=CHAT_MODES_PER_MINUTE, RECENT=CHAT_RECENT)


# ---------------------------------------------------------------- Part 5 catalog
# Part 5's catalog (workshop_lib/data/catalog.py): embed() is the model as a SQL function.
CATALOG = CatalogStatements(
    DDL=[
        """CREATE TABLE IF NOT EXISTS CATALOG_ITEMS (
            item_id     TEXT PRIMARY KEY,
            item_name   TEXT NOT NULL,
            category    TEXT NOT NULL CHECK (category IN ('equipment', 'service')),
            description TEXT NOT NULL,
            price_usd   REAL NOT NULL CHECK (price_usd >= 0),
            price_unit  TEXT NOT NULL,
            doc_hash    TEXT NOT NULL,
            embedding   BLOB NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS CATALOG_AVAILABILITY (
            item_id         TEXT NOT NULL REFERENCES CATALOG_ITEMS (item_id),
            unlocode        TEXT NOT NULL CHECK (length(unlocode) = 5),
            units_available INTEGER CHECK (units_available IS NULL OR units_available >= 0),
            PRIMARY KEY (item_id, unlocode))""",
        """CREATE TABLE IF NOT EXISTS EMBEDDING_CACHE (
            text_sha256 TEXT NOT NULL,
            model_name  TEXT NOT NULL,
            source_text TEXT NOT NULL,
            embedding   BLOB NOT NULL,
            created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            PRIMARY KEY (text_sha256, model_name))""",
        """CREATE TABLE IF NOT EXISTS RESPONSE_CACHE (
            cache_key        TEXT PRIMARY KEY,
            model_name       TEXT NOT NULL,
            persona          TEXT NOT NULL,
            normalized_query TEXT NOT NULL,
            response         TEXT NOT NULL CHECK (json_valid(response)),
            created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))""",
        # Whom each cache row was written for (the caches are shared, keyed by the question):
        # erase_user deletes that user's rows (MEMORY.RESPONSE_CACHE_ERASE, EMBEDDING_CACHE_ERASE).
        """CREATE TABLE IF NOT EXISTS CACHE_WRITERS (
            cache_name TEXT NOT NULL CHECK (cache_name IN ('response', 'embedding')),
            cache_key  TEXT NOT NULL,
            user_id    TEXT NOT NULL,
            PRIMARY KEY (cache_name, cache_key, user_id))""",
        "CREATE INDEX IF NOT EXISTS CACHE_WRITERS_USER_IX ON CACHE_WRITERS (user_id)",
    ],
    ITEM_HASHES="SELECT item_id, doc_hash FROM CATALOG_ITEMS",
    ITEM_INSERT="""INSERT INTO CATALOG_ITEMS (item_id, item_name, category, description, price_usd, price_unit, doc_hash, embedding)
VALUES (:item_id, :item_name, :category, :description, :price_usd, :price_unit, :doc_hash, embed(:doc))""",
    ITEM_UPDATE="""UPDATE CATALOG_ITEMS
   SET item_name = :item_name, category = :category, description = :description, price_usd = :price_usd,
       price_unit = :price_unit, doc_hash = :doc_hash, embedding = embed(:doc)
 WHERE item_id = :item_id""",
    ITEM_DELETE="DELETE FROM CATALOG_ITEMS WHERE item_id = :item_id",
    AVAIL_DELETE_ITEM="DELETE FROM CATALOG_AVAILABILITY WHERE item_id = :item_id",
    AVAIL_INSERT="INSERT INTO CATALOG_AVAILABILITY (item_id, unlocode, units_available) VALUES (:item_id, :unlocode, :units)",
    ITEM_COUNT="SELECT COUNT(*) FROM CATALOG_ITEMS",
    AVAILABILITY_ALL="""SELECT item_id, unlocode, units_available FROM CATALOG_AVAILABILITY
 WHERE units_available IS NOT NULL ORDER BY item_id, unlocode""",
    # the question's vector is bound as :qv (float32 blob); similarity = 1 - cosine distance
    MATCH_ABOVE_THRESHOLD="""SELECT item_id, item_name, category, description, price_usd, price_unit,
       1 - vec_distance_cosine(embedding, :qv) AS similarity
  FROM CATALOG_ITEMS
 WHERE 1 - vec_distance_cosine(embedding, :qv) >= :min_similarity
 ORDER BY similarity DESC, item_id
 LIMIT :k""",
    CLOSEST_ITEMS="""SELECT item_id, item_name, category, description, price_usd, price_unit,
       1 - vec_distance_cosine(embedding, :qv) AS similarity
  FROM CATALOG_ITEMS
 ORDER BY similarity DESC, item_id
 LIMIT :k""",
    AVAILABILITY_OF_ITEM="""SELECT unlocode, units_available FROM CATALOG_AVAILABILITY
 WHERE item_id = :item_id ORDER BY unlocode""",
    PORTS="""SELECT unlocode, port_name, country_code, region, latitude, longitude
  FROM SUPPLYCHAIN.PORTS ORDER BY unlocode""",
    EMBED_TEXT="SELECT embed(:txt)",
    EMB_CACHE_GET="SELECT embedding FROM EMBEDDING_CACHE WHERE text_sha256 = :h AND model_name = :m",
    EMB_CACHE_PUT="""INSERT INTO EMBEDDING_CACHE (text_sha256, model_name, source_text, embedding)
VALUES (:h, :m, :txt, :vec) ON CONFLICT (text_sha256, model_name) DO NOTHING""",
    EMB_CACHE_COUNT="SELECT COUNT(*) FROM EMBEDDING_CACHE",
    EMB_CACHE_CLEAR="DELETE FROM EMBEDDING_CACHE",
    RESP_CACHE_GET="SELECT response FROM RESPONSE_CACHE WHERE cache_key = :cache_key",
    # replace = delete + insert in one transaction (on Oracle a long :r stays a CLOB bind in VALUES)
    RESP_CACHE_DELETE="DELETE FROM RESPONSE_CACHE WHERE cache_key = :cache_key",
    RESP_CACHE_INSERT="""INSERT INTO RESPONSE_CACHE (cache_key, model_name, persona, normalized_query, response)
VALUES (:cache_key, :m, :p, :q, :r)""",
    RESP_CACHE_COUNT="SELECT COUNT(*) FROM RESPONSE_CACHE",
    RESP_CACHE_CLEAR="DELETE FROM RESPONSE_CACHE",
    CACHE_WRITER_PUT="""INSERT INTO CACHE_WRITERS (cache_name, cache_key, user_id) VALUES (:c, :cache_key, :u)
ON CONFLICT (cache_name, cache_key, user_id) DO NOTHING""",
    CACHE_WRITERS_CLEAR="DELETE FROM CACHE_WRITERS",
)


# ---------------------------------------------------------------- SUPPLYCHAIN on SQLite
# SUPPLYCHAIN is an attached database; Oracle type names work as SQLite declared types and
# keep the catalog Oracle-like. Names come from the dataset spec, never from user text.
SC_OWNER = "SUPPLYCHAIN"
PING = "SELECT 1"
# Mirrors of Oracle's ALL_TAB_COMMENTS / ALL_COL_COMMENTS, read by the engine's catalog().
SC_COMMENT_TABLES_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {SC_OWNER}.ALL_TAB_COMMENTS (
        OWNER VARCHAR2(128) NOT NULL, TABLE_NAME VARCHAR2(128) NOT NULL,
        TABLE_TYPE VARCHAR2(11) NOT NULL, COMMENTS VARCHAR2(4000),
        PRIMARY KEY (OWNER, TABLE_NAME))""",
    f"""CREATE TABLE IF NOT EXISTS {SC_OWNER}.ALL_COL_COMMENTS (
        OWNER VARCHAR2(128) NOT NULL, TABLE_NAME VARCHAR2(128) NOT NULL,
        COLUMN_NAME VARCHAR2(128) NOT NULL, COMMENTS VARCHAR2(4000),
        PRIMARY KEY (OWNER, TABLE_NAME, COLUMN_NAME))""",
]
SC_DELETE_TAB_COMMENTS = f"DELETE FROM {SC_OWNER}.ALL_TAB_COMMENTS WHERE OWNER = :owner"
SC_DELETE_COL_COMMENTS = f"DELETE FROM {SC_OWNER}.ALL_COL_COMMENTS WHERE OWNER = :owner"
SC_INSERT_TAB_COMMENT = f"INSERT INTO {SC_OWNER}.ALL_TAB_COMMENTS VALUES (:owner, :tab, 'TABLE', :comments)"
SC_INSERT_COL_COMMENT = f"INSERT INTO {SC_OWNER}.ALL_COL_COMMENTS VALUES (:owner, :tab, :col, :comments)"
SC_FOREIGN_KEY_CHECK = f"PRAGMA {SC_OWNER}.foreign_key_check"


def sc_create_table(table: TableSpec) -> str:
    lines = [f"{c.name} {c.oracle_type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    lines.append(f"PRIMARY KEY ({', '.join(table.primary_key)})")
    for fk in table.foreign_keys:
        # Inside an attached database, REFERENCES names the table without a schema.
        lines.append(f"FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.ref_table} ({', '.join(fk.ref_columns)})")
    body = ",\n    ".join(lines)
    return f"CREATE TABLE IF NOT EXISTS {SC_OWNER}.{table.name} (\n    {body}\n)"


def sc_table_info(table_name: str) -> str:
    return f'PRAGMA {SC_OWNER}.table_info("{table_name}")'


def sc_drop_table(table: TableSpec) -> str:
    return f"DROP TABLE {SC_OWNER}.{table.name}"


def sc_delete(table: TableSpec) -> str:
    return f"DELETE FROM {SC_OWNER}.{table.name}"


def sc_insert(table: TableSpec) -> str:
    return (f"INSERT INTO {SC_OWNER}.{table.name} ({', '.join(table.column_names)}) "
            f"VALUES ({', '.join('?' * len(table.columns))})")


def sc_count(table: TableName) -> str:
    return f"SELECT COUNT(*) FROM {SC_OWNER}.{table.name}"


def sc_select(table: TableSpec, columns: list[str], limit: int) -> str:
    return (f"SELECT {', '.join(columns)} FROM {SC_OWNER}.{table.name} "
            f"ORDER BY {', '.join(table.primary_key)} LIMIT {int(limit)}")


# ---------------------------------------------------------------- integrity (workshop doctor)
# quick_check per database file; FTS5's own check of the index against RECORDS; the KNN
# index read in full (a damaged vector chunk shows as "vectors blob read error") and its
# row count compared with the chunks it mirrors.
QUICK_CHECK = "PRAGMA {schema}.quick_check(5)"
FTS_INTEGRITY = "INSERT INTO {p}RECORDS_FTS({p}RECORDS_FTS) VALUES ('integrity-check')"
KNN_READ_ALL = "SELECT COUNT(*), SUM(length(embedding)) FROM {p}RECORDS_KNN"
KNN_EXPECTED = "SELECT COUNT(*) FROM {p}RECORD_CHUNKS WHERE chunk_no = 0"


# ---------------------------------------------------------------- run_sql (agent tool)
# Every table, index and view of the memory store's own database (main and temp): a
# read-only query may read SUPPLYCHAIN only (EmbeddedSupplyChain.read_only_query).
MAIN_OBJECT_NAMES = "SELECT name FROM main.sqlite_master UNION SELECT name FROM temp.sqlite_master"

# The whole days from one date column to another, for the assistant's composed queries (a voyage's
# days from departure to arrival). SUPPLYCHAIN's dates are ISO text here: julianday() counts days.
DAYS_BETWEEN = "CAST(julianday({end}) - julianday({start}) AS INTEGER)"
# A date as DAYS_BETWEEN reads it (the date the data is stated as of, from its comments): ISO text.
DATE_LITERAL = "'{date}'"

# The three ports nearest a point, by great-circle distance (haversine, mean Earth radius
# 6371.0088 km) over PORTS.LATITUDE / LONGITUDE. Oracle answers the same question with
# SDO_NN over its spatial index (oracle/sql.py NEAREST_PORTS).
NEAREST_PORTS = """SELECT PORT_NAME, UNLOCODE,
       ROUND(2 * 6371.0088 * asin(sqrt(
             power(sin(radians(LATITUDE - :lat) / 2), 2)
           + cos(radians(:lat)) * cos(radians(LATITUDE)) * power(sin(radians(LONGITUDE - :lon) / 2), 2))), 1) AS DISTANCE_KM
  FROM SUPPLYCHAIN.PORTS
 ORDER BY DISTANCE_KM, PORT_NAME
 LIMIT 3"""


# ---------------------------------------------------------------- Part 8 document index
# Versioned chunk tables (DOCS_V1, DOCS_V2, ...) named by their chunking profile, a registry
# of them, and the alias view DOCS that retrieval reads (workshop_lib/parts/ingest).
# {t} is a physical table name, checked against DOC_TABLE_NAME before it is filled in.
DOCS = DocsStatements(
    ALIAS="DOCS",
    DDL=[
        """CREATE TABLE IF NOT EXISTS DOC_INDEXES (
            table_name   TEXT PRIMARY KEY,
            profile      TEXT NOT NULL CHECK (json_valid(profile)),
            manifest_sha TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('building', 'complete')),
            docs         INTEGER NOT NULL DEFAULT 0,
            chunks       INTEGER NOT NULL DEFAULT 0,
            created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            completed_at TEXT)""",
        """CREATE TABLE IF NOT EXISTS DOC_ALIAS (
            alias_name     TEXT PRIMARY KEY,
            table_name     TEXT NOT NULL,
            previous_table TEXT)""",
        """CREATE TABLE IF NOT EXISTS DOC_ALIAS_LOG (
            seq        INTEGER PRIMARY KEY AUTOINCREMENT,
            alias_name TEXT NOT NULL,
            action     TEXT NOT NULL CHECK (action IN ('promote', 'rollback', 'refused')),
            table_name TEXT NOT NULL,
            detail     TEXT NOT NULL CHECK (json_valid(detail)),
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))""",
    ],
    TABLE_DDL=[
        """CREATE TABLE IF NOT EXISTS {t} (
            chunk_hash TEXT PRIMARY KEY,
            doc_id     TEXT NOT NULL,
            chunk_no   INTEGER NOT NULL,
            source     TEXT NOT NULL,
            lang       TEXT,
            tags       TEXT NOT NULL CHECK (json_valid(tags)),
            body       TEXT NOT NULL,
            n_units    INTEGER NOT NULL,
            embedding  BLOB NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS {t}_DOC ON {t} (doc_id, chunk_no)",
    ],
    REGISTER="""INSERT INTO DOC_INDEXES (table_name, profile, manifest_sha, status) VALUES (:t, :profile, :sha, 'building')
ON CONFLICT (table_name) DO UPDATE SET profile = excluded.profile, manifest_sha = excluded.manifest_sha""",
    MARK_BUILDING="UPDATE DOC_INDEXES SET status = 'building', completed_at = NULL WHERE table_name = :t",
    MARK_COMPLETE="""UPDATE DOC_INDEXES SET status = 'complete', docs = :docs, chunks = :chunks,
    completed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = :t""",
    INDEX_GET="SELECT table_name, profile, manifest_sha, status, docs, chunks, created_at, completed_at FROM DOC_INDEXES WHERE table_name = :t",
    INDEX_LIST="SELECT table_name, profile, manifest_sha, status, docs, chunks, created_at, completed_at FROM DOC_INDEXES ORDER BY table_name",
    TABLE_DROP="DROP TABLE IF EXISTS {t}",
    INDEX_DELETE="DELETE FROM DOC_INDEXES WHERE table_name = :t",
    CHUNK_HASHES="SELECT chunk_hash, doc_id FROM {t}",
    CHUNK_INSERT="""INSERT INTO {t} (chunk_hash, doc_id, chunk_no, source, lang, tags, body, n_units, embedding)
VALUES (:h, :doc_id, :chunk_no, :source, :lang, :tags, :body, :n_units, :vec)
ON CONFLICT (chunk_hash) DO NOTHING""",
    CHUNK_DELETE="DELETE FROM {t} WHERE chunk_hash = :h",
    COUNTS="SELECT COUNT(DISTINCT doc_id) AS docs, COUNT(*) AS chunks FROM {t}",
    # Exact nearest chunks by cosine distance (a full scan: the promotion gate measures the
    # chunking, not an approximate index). Ties broken by hash so results are repeatable.
    SEARCH="""SELECT doc_id, chunk_no, source, body, 1 - vec_distance_cosine(embedding, :qv) AS similarity
  FROM {t}
 ORDER BY vec_distance_cosine(embedding, :qv), chunk_hash
 LIMIT :k""",
    # One document's chunks in order (the reader joins them back into the document).
    DOCUMENT_CHUNKS="SELECT chunk_no, body FROM {t} WHERE doc_id = :d ORDER BY chunk_no LIMIT :k",
    ALIAS_GET="SELECT table_name, previous_table FROM DOC_ALIAS WHERE alias_name = :alias_name",
    ALIAS_SET="""INSERT INTO DOC_ALIAS (alias_name, table_name, previous_table) VALUES (:alias_name, :t, :prev)
ON CONFLICT (alias_name) DO UPDATE SET table_name = excluded.table_name, previous_table = excluded.previous_table""",
    # SQLite has no CREATE OR REPLACE VIEW; DDL is transactional, so drop + create is atomic.
    VIEW_REPLACE=["DROP VIEW IF EXISTS DOCS", """CREATE VIEW DOCS AS
SELECT chunk_hash, doc_id, chunk_no, source, lang, tags, body, n_units, embedding FROM {t}"""],
    # What the view reads now (the alias's truth): its definition names one table.
    VIEW_TARGET="SELECT sql AS target FROM sqlite_master WHERE type = 'view' AND name = 'DOCS'",
    VIEW_DROP="DROP VIEW IF EXISTS DOCS",
    ALIAS_DELETE="DELETE FROM DOC_ALIAS WHERE alias_name = :alias_name",
    LOG_INSERT="INSERT INTO DOC_ALIAS_LOG (alias_name, action, table_name, detail) VALUES (:alias_name, :action, :t, :detail)",
    LOG_LIST="SELECT created_at, action, table_name, detail FROM DOC_ALIAS_LOG WHERE alias_name = :alias_name ORDER BY seq DESC LIMIT :n",
)


# ---------------------------------------------------------------- memory over time
# Status, supersession links and expiry of memories, and the audit of erasures
# (workshop_lib/core/store.py, workshop_lib/parts/memory). These tables came after the first
# store version: the store adds them to an existing store when it opens it (MIGRATIONS),
# never dropping or rewriting what is there. No row in MEMORY_STATUS means "valid, no expiry".
# Times are UTC ISO-8601 text, the form strftime writes, so comparing them as text is correct.
MEMORY = MemoryStatements(
    **MEMORY_PORTABLE,
    MIGRATIONS=[
        ("MEMORY_STATUS", [
            """CREATE TABLE IF NOT EXISTS {p}MEMORY_STATUS (
                record_seq  INTEGER PRIMARY KEY,
                status      TEXT NOT NULL CHECK (status IN ('valid', 'superseded', 'forgotten', 'expired')),
                changed_by  TEXT NOT NULL,
                changed_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
                reason      TEXT,
                replaced_by TEXT,
                expires_at  TEXT)""",
            "CREATE INDEX IF NOT EXISTS {p}MEMORY_STATUS_EXP_IX ON {p}MEMORY_STATUS (status, expires_at)",
        ]),
        ("MEMORY_AUDIT", [
            """CREATE TABLE IF NOT EXISTS {p}MEMORY_AUDIT (
                seq          INTEGER PRIMARY KEY AUTOINCREMENT,
                action       TEXT NOT NULL,
                subject_hash TEXT NOT NULL,
                actor        TEXT NOT NULL,
                detail       TEXT NOT NULL CHECK (json_valid(detail)),
                created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))""",
        ]),
    ],
    DROP={
        "MEMORY_STATUS": "DROP TABLE IF EXISTS {p}MEMORY_STATUS",
        "MEMORY_AUDIT": "DROP TABLE IF EXISTS {p}MEMORY_AUDIT",
    },
    STATUS_INSERT="""INSERT INTO {p}MEMORY_STATUS (record_seq, status, changed_by, reason, replaced_by, expires_at)
VALUES (:seq, :st, :actor, :why, :repl, :expiry)""",
    STATUS_GET=f"""SELECT ms.status, ms.changed_by, ms.changed_at, ms.reason, ms.replaced_by, ms.expires_at,
       CASE WHEN ms.status = 'valid' AND (ms.expires_at IS NULL OR ms.expires_at > {_NOW}) THEN 1 ELSE 0 END AS live
  FROM {{p}}MEMORY_STATUS ms WHERE ms.record_seq = :seq""",
    # Every memory of one user+agent scope with its status (a subject's history is read from it).
    HISTORY=f"""SELECT {_COLS}, ms.status, ms.changed_by, ms.changed_at, ms.reason, ms.replaced_by, ms.expires_at,
       CASE WHEN {_live("m.seq")} THEN 1 ELSE 0 END AS live
  FROM {{p}}RECORDS m LEFT JOIN {{p}}MEMORY_STATUS ms ON ms.record_seq = m.seq
 WHERE m.user_id = :u AND m.agent_id = :a AND instr(:types, ',' || m.record_type || ',') > 0
 ORDER BY m.seq""",
    EXPIRED_DUE=f"""SELECT ms.record_seq FROM {{p}}MEMORY_STATUS ms
 WHERE ms.status = 'valid' AND ms.expires_at <= {_NOW}""",
    AUDIT_LIST="SELECT created_at, action, subject_hash, actor, detail FROM {p}MEMORY_AUDIT ORDER BY seq",
    # What is left of a user after erasure (the dialect-free counts are in MEMORY_PORTABLE).
    # The vector index itself (vec0): rows whose record is gone, and rows in the user's partitions.
    TRACE_VECTOR_INDEX="""SELECT COUNT(*) FROM {p}RECORDS_KNN v
 WHERE v.rowid NOT IN (SELECT seq FROM {p}RECORDS) OR json_extract(v.scope, '$[1]') = :u""",
    # The full-text index itself: documents that still match a term the user wrote.
    TRACE_TEXT_INDEX="SELECT COUNT(*) FROM {p}RECORDS_FTS WHERE {p}RECORDS_FTS MATCH :kw",
    # After an erasure commits. FTS5 deletes only add delete markers: the erased rows' tokens
    # stay in the segment blocks ({p}RECORDS_FTS_data) until segments merge; 'optimize' merges
    # them all into one, without the deleted entries (https://sqlite.org/fts5.html, "The
    # 'optimize' Command"). The connection runs with PRAGMA secure_delete=ON (engine.py), so
    # freed pages and cells are zeroed; the checkpoint copies the zeroed pages into the file and
    # truncates the write-ahead log, whose old frames still hold the text
    # (https://sqlite.org/pragma.html#pragma_secure_delete, #pragma_wal_checkpoint).
    PURGE_DELETED=[
        "INSERT INTO {p}RECORDS_FTS({p}RECORDS_FTS) VALUES ('optimize')",
        "PRAGMA wal_checkpoint(TRUNCATE)",
    ],
    # Cache rows whose text holds a word (case-insensitive; JSON escapes non-ASCII in responses).
    TRACE_CACHE_TEXT="""SELECT (SELECT COUNT(*) FROM RESPONSE_CACHE
          WHERE instr(lower(normalized_query), lower(:term)) > 0 OR instr(lower(response), lower(:term)) > 0)
     + (SELECT COUNT(*) FROM EMBEDDING_CACHE WHERE instr(lower(source_text), lower(:term)) > 0)""",
    # Segment blocks of the full-text index that hold a token's bytes (tokens are stored
    # lower-cased; a token stored after a prefix it shares with the one before it is not seen).
    TRACE_TEXT_TOKENS="SELECT COUNT(*) FROM {p}RECORDS_FTS_data WHERE instr(block, CAST(lower(:tok) AS BLOB)) > 0",
)


def memory_statements(prefix: str) -> MemoryStatements:
    """The MEMORY block with the store's table-name prefix filled in."""
    return with_prefix(MEMORY, prefix)

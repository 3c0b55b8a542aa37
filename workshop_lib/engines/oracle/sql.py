"""Every SQL statement the Oracle engine runs against the memory store.

The twin of workshop_lib/engines/embedded/sql.py: the same statement names, the same bind
names and the same result columns in the same order, written for Oracle AI Database
(23ai / 26ai). Statements are templates: `{p}` is the store's table-name prefix and
`{dim}` the vector dimension. The query embedding is computed inside the database by
the ONNX model loaded as ALL_MINILM_L12_V2 (`VECTOR_EMBEDDING(... USING :q AS data)`).

Every statement here is parsed by tests/test_oracle_sql.py with sqlglot's Oracle
dialect; constructs sqlglot cannot parse are listed there with the Oracle
documentation page that defines them.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from workshop_lib.engines.dbtypes import TableName, TableSpec

# Statements written the same way for both engines are defined once (portable_sql.py).
from workshop_lib.engines.portable_sql import (  # re-exported: part of this module's statement set
    CHUNK_DELETE as CHUNK_DELETE,
)
from workshop_lib.engines.portable_sql import (  # noqa: F401 - part of this dialect's statement set
    MEMORY_PORTABLE,
    META_INSERT,
    META_SELECT,
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
    NativeHybridStatements,
    StoreStatements,
)

MODEL_NAME = "ALL_MINILM_L12_V2"
DIM = 384
# The model reads about 256 word pieces; the engine cuts the text it embeds to this many
# characters, which keeps every embedding input a plain VARCHAR2 (< 4000 bytes).
EMBED_INPUT_CHARS = 1000

# ---------------------------------------------------------------- memory store schema
# One entry per managed object (table or index): the store creates the missing ones.
SCHEMA = [
    ("STORE_META", [
        """CREATE TABLE {p}STORE_META (
            k VARCHAR2(128) CONSTRAINT {p}STORE_META_PK PRIMARY KEY,
            v VARCHAR2(4000) NOT NULL)""",
    ]),
    ("THREADS", [
        """CREATE TABLE {p}THREADS (
            thread_id  VARCHAR2(512) CONSTRAINT {p}THREADS_PK PRIMARY KEY,
            user_id    VARCHAR2(512),
            agent_id   VARCHAR2(512),
            created_at TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL)""",
    ]),
    ("RECORDS", [
        """CREATE TABLE {p}RECORDS (
            seq         NUMBER GENERATED ALWAYS AS IDENTITY CONSTRAINT {p}RECORDS_PK PRIMARY KEY,
            record_type VARCHAR2(32) NOT NULL,
            record_id   VARCHAR2(512) NOT NULL,
            thread_id   VARCHAR2(512),
            user_id     VARCHAR2(512),
            agent_id    VARCHAR2(512),
            role        VARCHAR2(32),
            content     CLOB,
            metadata    CLOB CONSTRAINT {p}RECORDS_META_JSON CHECK (metadata IS JSON),
            created_at  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
            CONSTRAINT {p}RECORDS_UK UNIQUE (record_type, record_id))""",
        "CREATE INDEX {p}RECORDS_SCOPE_IX ON {p}RECORDS (user_id, agent_id, record_type)",
        "CREATE INDEX {p}RECORDS_THREAD_IX ON {p}RECORDS (thread_id)",
    ]),
    ("RECORD_CHUNKS", [
        """CREATE TABLE {p}RECORD_CHUNKS (
            record_seq NUMBER NOT NULL
                       CONSTRAINT {p}RECORD_CHUNKS_FK REFERENCES {p}RECORDS (seq) ON DELETE CASCADE,
            chunk_no   NUMBER DEFAULT 0 NOT NULL,
            chunk_text CLOB,
            embedding  VECTOR({dim}, FLOAT32) NOT NULL,
            CONSTRAINT {p}RECORD_CHUNKS_PK PRIMARY KEY (record_seq, chunk_no))""",
    ]),
    # Oracle Text index over RECORDS.content, synchronised when a transaction commits.
    ("RECORDS_TEXT_IX", [
        """CREATE INDEX {p}RECORDS_TEXT_IX ON {p}RECORDS (content)
            INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')""",
    ]),
    # No vector index: every vector statement is an exact search within one user's scope (the
    # scope index finds their rows), as on the embedded engine, so both engines rank alike and
    # erasure leaves no copy of a vector behind. An HNSW index served no query (no statement
    # asked for FETCH APPROX) and kept deleted vectors in its graph until repopulated ("Once an
    # HNSW index is created, any subsequent inserts, updates, or deletes ... will not be
    # reflected in the index": https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/hnsw-index-architecture-transaction-support-and-persistence.html).
    # Stores made by earlier versions lose theirs when opened (OBSOLETE).
]

DROP = {
    "STORE_META": "DROP TABLE IF EXISTS {p}STORE_META PURGE",
    "THREADS": "DROP TABLE IF EXISTS {p}THREADS PURGE",
    "RECORDS": "DROP TABLE IF EXISTS {p}RECORDS CASCADE CONSTRAINTS PURGE",
    "RECORD_CHUNKS": "DROP TABLE IF EXISTS {p}RECORD_CHUNKS PURGE",
    "RECORDS_TEXT_IX": "DROP INDEX IF EXISTS {p}RECORDS_TEXT_IX FORCE",
}

# Objects an earlier version created that this one does not use (dropped when a store is opened).
OBSOLETE = {
    "RECORD_CHUNKS_VEC_IX": "DROP INDEX IF EXISTS {p}RECORD_CHUNKS_VEC_IX",  # the HNSW index (see SCHEMA)
}

EXISTING_OBJECTS = "SELECT object_name FROM user_objects WHERE object_type IN ('TABLE', 'INDEX')"

# ---------------------------------------------------------------- memory store DML
_COLS = (
    "m.seq, m.record_type, m.record_id, m.thread_id, m.user_id, m.agent_id, m.role, m.content, m.metadata, "
    "TO_CHAR(m.created_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF3\"Z\"') AS created_at"
)

# Scope rule shared by list and search: *_free = 1 leaves a dimension open; otherwise the
# column must equal the value, and a NULL value matches only NULL (unscoped) rows.
_ACTOR_SCOPE = """(:tid_free = 1 OR m.thread_id = :tid OR (:tid IS NULL AND m.thread_id IS NULL))
   AND (:u_free = 1 OR m.user_id = :u OR (:u IS NULL AND m.user_id IS NULL))
   AND (:a_free = 1 OR m.agent_id = :a OR (:a IS NULL AND m.agent_id IS NULL))"""
# The shared schema knowledge (portable_sql.SHARED_ID_PREFIX): read beside a scope, never instead.
# LIKE with a constant prefix and a trailing '%' (the prefix holds no '%' or '_'):
# https://docs.oracle.com/database/122/SQLRF/Pattern-matching-Conditions.htm
_SHARED_KNOWLEDGE = f"""(m.user_id = :shared_u AND m.agent_id = :shared_a AND m.record_type = 'memory'
        AND m.record_id LIKE '{SHARED_ID_PREFIX}%')"""
_SCOPE = f"""INSTR(:types, ',' || m.record_type || ',') > 0
   AND ({_ACTOR_SCOPE}
        OR {_SHARED_KNOWLEDGE})"""

_QUERY_EMBEDDING = f"VECTOR_EMBEDDING({MODEL_NAME} USING :q AS data)"

# Memory over time: a record is live unless its MEMORY_STATUS row (the MEMORY block at the
# end of this module) marks it superseded, forgotten or expired, or its expiry has passed.
_NOW = "SYS_EXTRACT_UTC(SYSTIMESTAMP)"


def _live(seq: str) -> str:
    return f"""NOT EXISTS (SELECT 1 FROM {{p}}MEMORY_STATUS ms WHERE ms.record_seq = {seq}
          AND (ms.status <> 'valid' OR ms.expires_at <= {_NOW}))"""


RECORD_GET = f"SELECT {_COLS} FROM {{p}}RECORDS m WHERE m.record_type = :rt AND m.record_id = :rid"
RECORD_INSERT = """INSERT INTO {p}RECORDS (record_type, record_id, thread_id, user_id, agent_id, role, content, metadata)
VALUES (:rt, :rid, :tid, :u, :a, :role, :content, :meta)"""
# The key the insert generated (the identity column), read back by the record's own unique key.
RECORD_SEQ = "SELECT seq FROM {p}RECORDS WHERE record_type = :rt AND record_id = :rid"
RECORD_LIST = f"""SELECT {_COLS} FROM {{p}}RECORDS m
 WHERE m.record_type = :rt AND {_ACTOR_SCOPE} AND (:hist = 1 OR {_live("m.seq")})
 ORDER BY m.seq"""
# The newest :n records of a scope, newest first (a bounded read of a long history).
# Row limiting clause: https://docs.oracle.com/cd/F32587_01/sqlrf/img_text/row_limiting_clause.html
RECORD_NEWEST = f"""SELECT {_COLS} FROM {{p}}RECORDS m
 WHERE m.record_type = :rt AND {_ACTOR_SCOPE} AND (:hist = 1 OR {_live("m.seq")})
 ORDER BY m.seq DESC FETCH FIRST :n ROWS ONLY"""
RECORD_COUNT = "SELECT COUNT(*) FROM {p}RECORDS m WHERE INSTR(:types, ',' || m.record_type || ',') > 0"

# :txt is stored whole; the model reads its first EMBED_INPUT_CHARS characters (SUBSTR of a
# CLOB bind is a CLOB, which VECTOR_EMBEDDING converts to VARCHAR2 itself).
CHUNK_INSERT_TEXT = f"""INSERT INTO {{p}}RECORD_CHUNKS (record_seq, chunk_no, chunk_text, embedding)
VALUES (:seq, 0, :txt, VECTOR_EMBEDDING({MODEL_NAME} USING SUBSTR(:txt, 1, {EMBED_INPUT_CHARS}) AS data))"""
CHUNK_INSERT_VECTOR = """INSERT INTO {p}RECORD_CHUNKS (record_seq, chunk_no, chunk_text, embedding)
VALUES (:seq, 0, :txt, :vec)"""

SCOPED_CHILD_SEQS_OF_USER = "SELECT seq FROM {p}RECORDS m WHERE m.user_id = :actor AND INSTR(:types, ',' || m.record_type || ',') > 0"
SCOPED_CHILD_SEQS_OF_AGENT = "SELECT seq FROM {p}RECORDS m WHERE m.agent_id = :actor AND INSTR(:types, ',' || m.record_type || ',') > 0"

# Exact cosine scan, nearest first; the store reads rows until k pass the metadata filter.
SEARCH_BY_TEXT = f"""WITH q_emb AS (SELECT {_QUERY_EMBEDDING} AS emb FROM dual)
SELECT {_COLS}, VECTOR_DISTANCE(c.embedding, q_emb.emb, COSINE) AS distance
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q_emb
 WHERE {_SCOPE} AND {_live("m.seq")}
 ORDER BY distance, m.seq"""
# One record type, one user, one agent (and the shared schema knowledge): the k nearest only (the store widens :n when a
# metadata filter leaves fewer than k). Exact, like the other statements, so both engines rank alike.
SEARCH_SCOPED_KNN = f"""WITH q_emb AS (SELECT {_QUERY_EMBEDDING} AS emb FROM dual)
SELECT {_COLS}, VECTOR_DISTANCE(c.embedding, q_emb.emb, COSINE) AS distance,
       CASE WHEN {_live("m.seq")} THEN 1 ELSE 0 END AS live
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q_emb
 WHERE m.record_type = :rt AND ((m.user_id = :u AND m.agent_id = :a) OR {_SHARED_KNOWLEDGE})
 ORDER BY distance, m.seq
 FETCH FIRST :n ROWS ONLY"""
SEARCH_BY_VECTOR = f"""SELECT {_COLS}, VECTOR_DISTANCE(c.embedding, :qv, COSINE) AS distance
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq
 WHERE {_SCOPE} AND {_live("m.seq")}
 ORDER BY distance, m.seq"""

# ---------------------------------------------------------------- retrieval (Part 3)
# Knowledge memories: this scope and the shared schema knowledge, record type 'memory', never
# tool output. (Oracle stores '' as NULL, so "no kind" is tested with IS NULL, not with a default.)
_KNOWLEDGE = f"""((m.user_id = :u AND m.agent_id = :a) OR {_SHARED_KNOWLEDGE}) AND m.record_type = 'memory'
   AND (JSON_VALUE(m.metadata, '$.kind') IS NULL OR JSON_VALUE(m.metadata, '$.kind') <> 'tool_output')
   AND {_live("m.seq")}"""

# Oracle Text: CONTAINS(..., label) > 0 filters, SCORE(label) is the relevance (0..100).
KEYWORD_SEARCH = f"""SELECT m.record_id, m.content, m.metadata, SCORE(1) AS score_txt
  FROM {{p}}RECORDS m
 WHERE CONTAINS(m.content, :kw, 1) > 0 AND {_KNOWLEDGE}
 ORDER BY SCORE(1) DESC, m.seq
 FETCH FIRST :k ROWS ONLY"""

# Reciprocal Rank Fusion in one statement: two ranked lists, FULL OUTER JOIN, missing
# ranks become SENTINEL (portable_sql.py), fused score = 1/(rrf_k + r_vec) + 1/(rrf_k + r_txt).
# Ties break as in the embedded twin: by distance / text score, then insertion order.
# Each list is ranked in one CTE and cut in the next (WHERE r <= :n): ordering by a
# ROW_NUMBER alias in the same query block is not a documented form (ORA-30483 risk).
HYBRID_RRF = f"""WITH q_emb AS (
    SELECT {_QUERY_EMBEDDING} AS emb FROM dual),
vec_ranked AS (
    SELECT m.seq,
           ROW_NUMBER() OVER (ORDER BY VECTOR_DISTANCE(c.embedding, q_emb.emb, COSINE), m.seq) AS r_vec
      FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q_emb
     WHERE {_KNOWLEDGE}),
vec AS (
    SELECT seq, r_vec FROM vec_ranked WHERE r_vec <= :n),
txt_ranked AS (
    SELECT m.seq,
           ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, m.seq) AS r_txt
      FROM {{p}}RECORDS m
     WHERE CONTAINS(m.content, :kw, 1) > 0 AND {_KNOWLEDGE}),
txt AS (
    SELECT seq, r_txt FROM txt_ranked WHERE r_txt <= :n),
fused AS (
    SELECT COALESCE(v.seq, t.seq) AS seq,
           NVL(v.r_vec, {SENTINEL}) AS r_vec,
           NVL(t.r_txt, {SENTINEL}) AS r_txt
      FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)
SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,
       1 / (:rrf_k + f.r_vec) + 1 / (:rrf_k + f.r_txt) AS rrf_score
  FROM fused f JOIN {{p}}RECORDS m ON m.seq = f.seq
 ORDER BY rrf_score DESC, f.r_vec, f.r_txt
 FETCH FIRST :k ROWS ONLY"""

# The two ranked lists on their own, for checks and benchmarks that fuse independently.
VECTOR_RANKED = f"""WITH q_emb AS (SELECT {_QUERY_EMBEDDING} AS emb FROM dual)
SELECT m.record_id, VECTOR_DISTANCE(c.embedding, q_emb.emb, COSINE) AS distance
  FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q_emb
 WHERE {_KNOWLEDGE}
 ORDER BY distance, m.seq
 FETCH FIRST :n ROWS ONLY"""

# Oracle's native hybrid search, beside the one-statement RRF above (Part 3, Oracle lane):
# a snapshot of the knowledge memories in HYBRID_DEMO, a hybrid vector index on it (one domain
# index holding an Oracle Text index and a vector index, embeddings by the in-database model;
# IVF needs no vector memory pool), and DBMS_HYBRID_VECTOR.SEARCH, whose JSON result (an array
# of {rowid, score, vector_score, text_score}) JSON_TABLE turns into rows. The index is built
# after the rows are in, so it holds them all (DML after creation is synchronised in the
# background). Sources, 23ai AI Vector Search User's Guide / PL/SQL Packages and Types:
# https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/create-hybrid-vector-index.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/guidelines-and-restrictions-hybrid-vector-indexes.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/dbms_hybrid_vector1.html (SEARCH)
# https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/searchpipeline.html (JSON_TABLE over SEARCH)
NATIVE_HYBRID = NativeHybridStatements(
    DROP="DROP TABLE IF EXISTS HYBRID_DEMO PURGE",
    TABLE_DDL="""CREATE TABLE HYBRID_DEMO (
    memory_id VARCHAR2(512) PRIMARY KEY,
    content   CLOB NOT NULL)""",
    FILL=f"""INSERT INTO HYBRID_DEMO (memory_id, content)
SELECT m.record_id, m.content FROM {{p}}RECORDS m WHERE {_KNOWLEDGE}""",
    INDEX_DDL=f"""CREATE HYBRID VECTOR INDEX HYBRID_DEMO_HVI ON HYBRID_DEMO (content)
  PARAMETERS ('MODEL {MODEL_NAME} VECTOR_IDXTYPE IVF')""",
    COUNT="SELECT COUNT(*) FROM HYBRID_DEMO",
    SEARCH="""SELECT h.memory_id, h.content, r.score, r.vector_score, r.text_score
  FROM JSON_TABLE(DBMS_HYBRID_VECTOR.SEARCH(JSON(:params)), '$[*]'
         COLUMNS (row_id       VARCHAR2(18) PATH '$.rowid',
                  score        NUMBER       PATH '$.score',
                  vector_score NUMBER       PATH '$.vector_score',
                  text_score   NUMBER       PATH '$.text_score')) r
  JOIN HYBRID_DEMO h ON h.rowid = CHARTOROWID(r.row_id)
 ORDER BY r.score DESC, h.memory_id""",
)

_NAMES = STATEMENT_NAMES  # one list for both dialects (workshop_lib/engines/statement_sets.py)

# ---------------------------------------------------------------- engine helpers
# The query embedding on its own (eng.model.embed) and the smoke test of the model.
EMBED = f"SELECT {_QUERY_EMBEDDING} FROM dual"
MODEL_DIMENSIONS = f"SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING({MODEL_NAME} USING 'hello' AS data)) FROM dual"
PING = "SELECT 1 FROM dual"

# ---------------------------------------------------------------- data dictionary (scanner)
DICTIONARY_TABLES = """SELECT t.table_name, c.comments
  FROM all_tables t LEFT JOIN all_tab_comments c ON c.owner = t.owner AND c.table_name = t.table_name
 WHERE t.owner = :owner AND t.nested = 'NO' AND t.secondary = 'N' AND t.table_name NOT LIKE 'DR$%'
 ORDER BY t.table_name"""
DICTIONARY_COLUMNS = """SELECT c.table_name, c.column_name, c.data_type, c.data_length, c.data_precision,
       c.data_scale, c.nullable, cc.comments
  FROM all_tab_columns c
  LEFT JOIN all_col_comments cc
    ON cc.owner = c.owner AND cc.table_name = c.table_name AND cc.column_name = c.column_name
 WHERE c.owner = :owner
 ORDER BY c.table_name, c.column_id"""
DICTIONARY_FOREIGN_KEYS = """SELECT fk.table_name, fk.constraint_name, fkc.column_name, pk.table_name AS ref_table,
       pkc.column_name AS ref_column
  FROM all_constraints fk
  JOIN all_cons_columns fkc
    ON fkc.owner = fk.owner AND fkc.constraint_name = fk.constraint_name
  JOIN all_constraints pk
    ON pk.owner = fk.r_owner AND pk.constraint_name = fk.r_constraint_name
  JOIN all_cons_columns pkc
    ON pkc.owner = pk.owner AND pkc.constraint_name = pk.constraint_name AND pkc.position = fkc.position
 WHERE fk.owner = :owner AND fk.constraint_type = 'R'
 ORDER BY fk.table_name, fk.constraint_name, fkc.position"""

# ---------------------------------------------------------------- doctor checks (as AGENT)
CHECK_PRIVILEGES = """SELECT privilege FROM user_sys_privs
UNION SELECT granted_role FROM user_role_privs"""
CHECK_MODEL = "SELECT model_name, mining_function FROM user_mining_models WHERE model_name = :model"
CHECK_INDEXES = """SELECT index_name, index_type, status, NVL(domidx_status, 'VALID') AS domidx_status,
       NVL(domidx_opstatus, 'VALID') AS domidx_opstatus
  FROM user_indexes
 WHERE table_name IN (:records_table, :chunks_table)
 ORDER BY index_name"""
CHECK_VECTOR_MEMORY = "SELECT value FROM v$parameter WHERE name = 'vector_memory_size'"
CHECK_SUPPLYCHAIN_ACCESS = """SELECT COUNT(*) FROM all_tables WHERE owner = 'SUPPLYCHAIN'"""
CHECK_PORTS_SPATIAL_INDEX = """SELECT status, NVL(domidx_status, 'VALID'), NVL(domidx_opstatus, 'VALID')
  FROM all_indexes WHERE owner = 'SUPPLYCHAIN' AND index_name = 'PORTS_LOCATION_SIX'"""

# ---------------------------------------------------------------- optional reranker
# DBMS_VECTOR.RERANK scores documents with a third-party reranker (Cohere, Vertex AI)
# described by a JSON parameter document; it returns a JSON array of {index, score, content}.
RERANK_REST = "SELECT DBMS_VECTOR.RERANK(:q, JSON(:docs), JSON(:params)) FROM dual"
_RERANK_PREDICTION = "SELECT PREDICTION({model} USING :q AS first_input, :doc AS second_input) FROM dual"
_MODEL_IDENTIFIER = re.compile(r"^[A-Z][A-Z0-9_$#]{0,122}$")


def rerank_prediction(model: str) -> str:
    """Score one (query, document) pair with an in-database ONNX cross-encoder (a regression
    model with inputs first_input / second_input, as Oracle's reranking pipeline exports it)."""
    if not _MODEL_IDENTIFIER.match(model):
        raise ValueError(f"ORACLE_RERANK_MODEL={model!r} is not a plain Oracle model name")
    return _RERANK_PREDICTION.replace("{model}", model)


# The whole days from one date column to another, for the assistant's composed queries. A DATE
# minus a DATE is a NUMBER of days, with a fraction for a time of day (SQL Language Reference, Data
# Types, "Datetime/Interval Arithmetic", Table 2-5:
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/Data-Types.html); TRUNC (date)
# drops the time of day first, so the count is of calendar days.
DAYS_BETWEEN = "(TRUNC({end}) - TRUNC({start}))"
# A date in DAYS_BETWEEN (the date the data is stated as of, from its comments): the ANSI date literal,
# DATE 'YYYY-MM-DD' (SQL Language Reference, Literals, "Datetime Literals":
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/Literals.html).
DATE_LITERAL = "DATE '{date}'"

# ---------------------------------------------------------------- SUPPLYCHAIN (run as its owner)
# Rendered from workshop_lib.data.supplychain_data.TABLES, like the embedded engine's DDL. On
# Oracle PORTS also gets LOCATION, an SDO_GEOMETRY point built from LONGITUDE/LATITUDE.
SUPPLYCHAIN = "SUPPLYCHAIN"
PORT_LOCATION = (
    "LOCATION", "SDO_GEOMETRY",
    "The port's representative point as an Oracle Spatial geometry: SDO_GEOMETRY type 2001 "
    "(a 2-D point) in SRID 4326, WGS 84 longitude/latitude, filled from LONGITUDE and LATITUDE. "
    "Use it with SDO_WITHIN_DISTANCE or SDO_NN for distance questions; longitude is the first "
    "ordinate, latitude the second.",
)
SC_EXISTING_COLUMNS = """SELECT table_name, column_name, data_type, data_length, data_precision, data_scale
  FROM user_tab_columns
 ORDER BY table_name, column_id"""
SC_SET_PORT_LOCATION = """UPDATE SUPPLYCHAIN.PORTS
   SET location = SDO_GEOMETRY(2001, 4326, SDO_POINT_TYPE(longitude, latitude, NULL), NULL, NULL)"""

# SDO_NN and SDO_WITHIN_DISTANCE need a spatial index (ORA-13226 without one), and the index
# needs a USER_SDO_GEOM_METADATA row: longitude -180..180 and latitude -90..90, SRID 4326
# (WGS 84). Run as SUPPLYCHAIN, the owner. Sources: Spatial Developer's Guide 26ai, "Geometry
# Metadata Views" and "CREATE INDEX" (INDEXTYPE IS MDSYS.SPATIAL_INDEX_V2, layer_gtype=POINT
# for point data):
# https://docs.oracle.com/en/database/oracle/oracle-database/26/spatl/geometry-metadata-views.html
# https://docs.oracle.com/en/database/oracle/oracle-database/26/spatl/create-index.html
# Tolerance 0.05: for geodetic data (SRID 4326) the tolerance is in metres; 26ai creates
# missing metadata with 0.05 (Geometry Metadata Views, above), and the guide's "Tolerance"
# section (1.5.5 of .../26/spatl/data-model.html) gives 0.05 m as the geodetic minimum
# (docs/oracle.md says what was re-read). A database seeded with the earlier 0.005 gets
# the row and the index rebuilt (OracleEngine._port_spatial_index).
PORT_GEOM_TOLERANCE = 0.05
SC_PORT_GEOM_TOLERANCES = """SELECT d.sdo_tolerance
  FROM user_sdo_geom_metadata m, TABLE(m.diminfo) d
 WHERE m.table_name = 'PORTS' AND m.column_name = 'LOCATION'"""
SC_PORT_GEOM_METADATA_DELETE = """DELETE FROM user_sdo_geom_metadata
 WHERE table_name = 'PORTS' AND column_name = 'LOCATION'"""
SC_PORT_GEOM_METADATA = f"""INSERT INTO user_sdo_geom_metadata (table_name, column_name, diminfo, srid)
VALUES ('PORTS', 'LOCATION',
        SDO_DIM_ARRAY(SDO_DIM_ELEMENT('LONGITUDE', -180, 180, {PORT_GEOM_TOLERANCE}),
                      SDO_DIM_ELEMENT('LATITUDE', -90, 90, {PORT_GEOM_TOLERANCE})),
        4326)"""
SC_PORT_SPATIAL_INDEX_DROP = "DROP INDEX PORTS_LOCATION_SIX"
SC_PORT_SPATIAL_INDEX_EXISTS = "SELECT COUNT(*) FROM user_indexes WHERE index_name = 'PORTS_LOCATION_SIX'"
SC_PORT_SPATIAL_INDEX = """CREATE INDEX PORTS_LOCATION_SIX ON PORTS (LOCATION)
  INDEXTYPE IS MDSYS.SPATIAL_INDEX_V2 PARAMETERS ('layer_gtype=POINT')"""
# The nearest ports to a point, in kilometres (SDO_NN with SDO_NN_DISTANCE, unit=KM):
# https://docs.oracle.com/en/database/oracle/oracle-database/26/spatl/sdo_nn.html
NEAREST_PORTS = """SELECT p.PORT_NAME, p.UNLOCODE, ROUND(SDO_NN_DISTANCE(1), 1) AS DISTANCE_KM
  FROM SUPPLYCHAIN.PORTS p
 WHERE SDO_NN(p.LOCATION, SDO_GEOMETRY(2001, 4326, SDO_POINT_TYPE(:lon, :lat, NULL), NULL, NULL),
              'sdo_num_res=3 unit=KM', 1) = 'TRUE'
 ORDER BY DISTANCE_KM"""


def _ident(name: str) -> str:
    if not _MODEL_IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a plain upper-case Oracle identifier")
    return name


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def sc_columns(table: TableSpec) -> list[tuple[str, str]]:
    cols = [(c.name, c.oracle_type) for c in table.columns]
    if table.name == "PORTS":
        cols.append((PORT_LOCATION[0], PORT_LOCATION[1]))
    return cols


def sc_create_table(table: TableSpec) -> str:
    lines = [f"{_ident(c.name)} {c.oracle_type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    if table.name == "PORTS":
        lines.append(f"{PORT_LOCATION[0]} {PORT_LOCATION[1]}")
    lines.append(f"CONSTRAINT {table.name}_PK PRIMARY KEY ({', '.join(table.primary_key)})")
    for fk in table.foreign_keys:
        lines.append(
            f"CONSTRAINT {table.name}_{'_'.join(fk.columns)}_FK FOREIGN KEY ({', '.join(fk.columns)}) "
            f"REFERENCES {SUPPLYCHAIN}.{_ident(fk.ref_table)} ({', '.join(fk.ref_columns)})"
        )
    body = ",\n    ".join(lines)
    return f"CREATE TABLE {SUPPLYCHAIN}.{_ident(table.name)} (\n    {body})"


def sc_drop_table(table: TableSpec) -> str:
    return f"DROP TABLE {SUPPLYCHAIN}.{_ident(table.name)} CASCADE CONSTRAINTS PURGE"


def sc_delete(table: TableSpec) -> str:
    return f"DELETE FROM {SUPPLYCHAIN}.{_ident(table.name)}"


def sc_insert(table: TableSpec) -> str:
    names = [c.name for c in table.columns]
    # Rows are tuples: python-oracledb binds them by position, the names are for reading.
    marks = ", ".join(f":{n.lower()}" for n in names)
    return f"INSERT INTO {SUPPLYCHAIN}.{_ident(table.name)} ({', '.join(names)}) VALUES ({marks})"


def sc_comments(table: TableSpec) -> list[str]:
    name = f"{SUPPLYCHAIN}.{_ident(table.name)}"
    out = [f"COMMENT ON TABLE {name} IS {_literal(table.comment)}"]
    out += [f"COMMENT ON COLUMN {name}.{_ident(c.name)} IS {_literal(c.comment)}" for c in table.columns]
    if table.name == "PORTS":
        out.append(f"COMMENT ON COLUMN {name}.{PORT_LOCATION[0]} IS {_literal(PORT_LOCATION[2])}")
    return out


def sc_grant_select(table: TableSpec, grantee: str) -> str:
    return f"GRANT SELECT ON {SUPPLYCHAIN}.{_ident(table.name)} TO {_ident(grantee.upper())}"


def sc_count(table: TableName) -> str:
    return f"SELECT COUNT(*) FROM {SUPPLYCHAIN}.{_ident(table.name)}"


_HELPER_NAMES = ["EMBED", "MODEL_DIMENSIONS", "PING", "DICTIONARY_TABLES", "DICTIONARY_COLUMNS",
                 "DICTIONARY_FOREIGN_KEYS", "CHECK_PRIVILEGES", "CHECK_MODEL", "CHECK_INDEXES",
                 "CHECK_VECTOR_MEMORY", "CHECK_SUPPLYCHAIN_ACCESS", "RERANK_REST", "SC_EXISTING_COLUMNS",
                 "SC_SET_PORT_LOCATION", "CHECK_PORTS_SPATIAL_INDEX", "SC_PORT_GEOM_TOLERANCES",
                 "SC_PORT_GEOM_METADATA_DELETE", "SC_PORT_GEOM_METADATA", "SC_PORT_SPATIAL_INDEX_EXISTS",
                 "SC_PORT_SPATIAL_INDEX", "SC_PORT_SPATIAL_INDEX_DROP", "NEAREST_PORTS"]


def statements(prefix: str, dim: int) -> StoreStatements:
    """All store and retrieval statements with the prefix filled in."""
    # A store with another vector_dim works with precomputed vectors only: the model
    # itself always makes DIM-dimension embeddings.
    def fill(sql: str) -> str:
        return sql.replace("{p}", prefix).replace("{dim}", str(dim))

    return StoreStatements(
        **{name: fill(globals()[name]) for name in STATEMENT_NAMES},
        SCHEMA=[(name, [fill(s) for s in ddl]) for name, ddl in SCHEMA],
        DROP={name: fill(sql) for name, sql in DROP.items()},
        OBSOLETE={name: fill(sql) for name, sql in OBSOLETE.items()},
    )


def _store_named(prefix: str, dim: int) -> dict[str, str]:
    """The memory store's statements, its schema's DDL one by one, its drops and obsolete objects."""
    ns = statements(prefix, dim)
    out = {name: getattr(ns, name) for name in _NAMES}
    out.update({name: globals()[name] for name in _HELPER_NAMES})
    for name, ddl in ns.SCHEMA:
        for i, stmt in enumerate(ddl):
            out[f"SCHEMA.{name}[{i}]"] = stmt
    out.update({f"DROP.{name}": sql for name, sql in ns.DROP.items()})
    out["EXISTING_OBJECTS"] = EXISTING_OBJECTS
    out.update({f"OBSOLETE.{name}": stmt for name, stmt in ns.OBSOLETE.items()})
    return out


def _memory_named(prefix: str) -> dict[str, str]:
    """Memory over time (the MEMORY block at the end of this module)."""
    mem = memory_statements(prefix)
    out: dict[str, str] = {}
    for name, ddl in mem.MIGRATIONS:
        out.update({f"MEMORY.MIGRATIONS.{name}[{i}]": stmt for i, stmt in enumerate(ddl)})
    out.update({f"MEMORY.DROP.{name}": stmt for name, stmt in mem.DROP.items()})
    out.update({f"MEMORY.{name}": stmt for name, stmt in vars(mem).items() if isinstance(stmt, str)})
    out.update({f"MEMORY.PURGE_DELETED[{i}]": stmt for i, stmt in enumerate(mem.PURGE_DELETED)})
    return out


def _supplychain_named(t: Any) -> dict[str, str]:
    """Every statement setup runs for one SUPPLYCHAIN table."""
    out = {f"SC.{t.name}.create": sc_create_table(t), f"SC.{t.name}.drop": sc_drop_table(t),
           f"SC.{t.name}.delete": sc_delete(t), f"SC.{t.name}.insert": sc_insert(t),
           f"SC.{t.name}.grant": sc_grant_select(t, "AGENT"), f"SC.{t.name}.count": sc_count(t),
           f"SC.{t.name}.select": sc_select(t, t.column_names, 5)}
    out.update({f"SC.{t.name}.comment[{i}]": stmt for i, stmt in enumerate(sc_comments(t))})
    return out


def _set_named(label: str, fields: Mapping[str, Any]) -> dict[str, str]:
    """A statement set's fields by name; a list field's statements as NAME[i]."""
    out: dict[str, str] = {}
    for name, value in fields.items():
        if isinstance(value, list):
            out.update({f"{label}.{name}[{i}]": stmt for i, stmt in enumerate(value)})
        else:
            out[f"{label}.{name}"] = value
    return out


def all_named_statements(prefix: str = "", dim: int = DIM, tables: Iterable[Any] = ()) -> dict[str, str]:
    """Every named statement of this module, filled in (for the tests and for review); SUPPLYCHAIN's
    statements for each of `tables` (the dataset's table specs, data/supplychain_data.py's TABLES)."""
    out = _store_named(prefix, dim)
    out.update(_memory_named(prefix))
    out["RERANK_PREDICTION"] = rerank_prediction("MY_RERANKER")
    out.update({f"NATIVE_HYBRID.{name}": stmt.replace("{p}", prefix) for name, stmt in vars(NATIVE_HYBRID).items()})
    for t in tables:
        out.update(_supplychain_named(t))
    for i, stmt in enumerate(CHAT_DDL):
        out[f"CHAT.DDL[{i}]"] = stmt
    out.update(_set_named("CATALOG", vars(CATALOG)))
    out.update({k: v.replace("{t}", "DOCS_V1") for k, v in _set_named("DOCS", vars(DOCS)).items() if k != "DOCS.ALIAS"})
    out.update({"CHAT.INSERT": CHAT_INSERT, "CHAT.COUNT": CHAT_COUNT, "CHAT.MODES_PER_MINUTE": CHAT_MODES_PER_MINUTE,
                "CHAT.RECENT": CHAT_RECENT})
    out.update({"RUN_SQL.READ_ONLY_TRANSACTION": READ_ONLY_TRANSACTION,
                "RUN_SQL.SESSION_SCHEMA": SESSION_SCHEMA.format(schema="SUPPLYCHAIN"),
                "RUN_SQL.READ_ONLY_QUERY": READ_ONLY_QUERY.format(query=AGENT_QUERIES["active_voyages_per_carrier"]),
                "RUN_SQL.READ_ONLY_QUERY_RENAMED": READ_ONLY_QUERY_RENAMED.format(
                    columns=positional_columns(2), query="SELECT v.VOYAGE_ID, p.VOYAGE_ID FROM VOYAGES v, VOYAGES p"),
                "RUN_SQL.READER_SYSTEM_PRIVILEGES": READER_SYSTEM_PRIVILEGES,
                "RUN_SQL.READER_OBJECT_PRIVILEGES": READER_OBJECT_PRIVILEGES,
                "RUN_SQL.READER_PUBLIC_PACKAGES": READER_PUBLIC_PACKAGES,
                "RUN_SQL.READER_HOST_ACES": READER_HOST_ACES,
                "RUN_SQL.READER_DIRECTORY_GRANTS": READER_DIRECTORY_GRANTS})
    out.update({f"AGENT.{name}": sql.format(voyage_id=1001) for name, sql in AGENT_QUERIES.items()})
    return out


# ---------------------------------------------------------------- chat service telemetry
# One row per answered /chat request (workshop_lib/parts/chat). IF NOT EXISTS (23ai and later):
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/CREATE-TABLE.html
# IS JSON check constraint: https://docs.oracle.com/en/database/oracle/oracle-database/23/adjsn/
# Bind names avoid Oracle reserved words (MODE, UID, ...).
CHAT_DDL = [
    """CREATE TABLE IF NOT EXISTS CHAT_INTERACTIONS (
        id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        created_at TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL,
        thread_id VARCHAR2(200),
        user_id VARCHAR2(200),
        question_hash VARCHAR2(64) NOT NULL,
        question_text CLOB,
        resp_mode VARCHAR2(10) NOT NULL CHECK (resp_mode IN ('rag', 'hybrid', 'fallback')),
        short_query_active NUMBER(1) NOT NULL,
        used_llm VARCHAR2(20) NOT NULL,
        latency_ms NUMBER NOT NULL,
        embedding_cache_hit NUMBER(1),
        from_cache NUMBER(1) NOT NULL,
        decision_explain CLOB NOT NULL CHECK (decision_explain IS JSON))""",
    "CREATE INDEX IF NOT EXISTS CHAT_INTERACTIONS_AT ON CHAT_INTERACTIONS (created_at)",
]
CHAT_INSERT = """INSERT INTO CHAT_INTERACTIONS (thread_id, user_id, question_hash, question_text, resp_mode,
    short_query_active, used_llm, latency_ms, embedding_cache_hit, from_cache, decision_explain)
    VALUES (:tid, :usr, :qhash, :qtext, :rmode, :shortq, :usedllm, :latency, :embhit, :cached, :explain)"""
CHAT_COUNT = "SELECT COUNT(*) FROM CHAT_INTERACTIONS"
CHAT_MODES_PER_MINUTE = """SELECT TO_CHAR(created_at, 'YYYY-MM-DD"T"HH24:MI') AS minute, resp_mode, COUNT(*) AS n
    FROM CHAT_INTERACTIONS GROUP BY TO_CHAR(created_at, 'YYYY-MM-DD"T"HH24:MI'), resp_mode ORDER BY minute, resp_mode"""
CHAT_RECENT = """SELECT TO_CHAR(created_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF3') AS created_at, thread_id, resp_mode, latency_ms,
    question_text, decision_explain
    FROM CHAT_INTERACTIONS ORDER BY id DESC FETCH FIRST :n ROWS ONLY"""


CHAT = ChatStatements(DDL=CHAT_DDL, INSERT=CHAT_INSERT, COUNT=CHAT_COUNT,
                      MODES_PER_MINUTE=CHAT_MODES_PER_MINUTE, RECENT=CHAT_RECENT)


# ---------------------------------------------------------------- Part 5 catalog
# Part 5's catalog (workshop_lib/data/catalog.py): the same names as the embedded engine's CATALOG. VECTOR(384, FLOAT32) matches ALL_MINILM_L12_V2;
# VECTOR_DISTANCE(..., COSINE) and VECTOR_EMBEDDING(model USING :x AS data) are documented in
# the SQL Language Reference; CREATE TABLE IF NOT EXISTS needs 23ai or later.
_CATALOG_EMBED = f"VECTOR_EMBEDDING({MODEL_NAME} USING :doc AS data)"
CATALOG = CatalogStatements(
    DDL=[
        f"""CREATE TABLE IF NOT EXISTS CATALOG_ITEMS (
            item_id     VARCHAR2(20) PRIMARY KEY,
            item_name   VARCHAR2(100) NOT NULL,
            category    VARCHAR2(20) NOT NULL CHECK (category IN ('equipment', 'service')),
            description VARCHAR2(1000) NOT NULL,
            price_usd   NUMBER(10, 2) NOT NULL CHECK (price_usd >= 0),
            price_unit  VARCHAR2(80) NOT NULL,
            doc_hash    VARCHAR2(64) NOT NULL,
            embedding   VECTOR({DIM}, FLOAT32) NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS CATALOG_AVAILABILITY (
            item_id         VARCHAR2(20) NOT NULL REFERENCES CATALOG_ITEMS (item_id),
            unlocode        VARCHAR2(5) NOT NULL CHECK (LENGTH(unlocode) = 5),
            units_available NUMBER(6) CHECK (units_available IS NULL OR units_available >= 0),
            PRIMARY KEY (item_id, unlocode))""",
        f"""CREATE TABLE IF NOT EXISTS EMBEDDING_CACHE (
            text_sha256 VARCHAR2(64) NOT NULL,
            model_name  VARCHAR2(128) NOT NULL,
            source_text VARCHAR2(4000) NOT NULL,
            embedding   VECTOR({DIM}, FLOAT32) NOT NULL,
            created_at  TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL,
            PRIMARY KEY (text_sha256, model_name))""",
        """CREATE TABLE IF NOT EXISTS RESPONSE_CACHE (
            cache_key        VARCHAR2(64) PRIMARY KEY,
            model_name       VARCHAR2(128) NOT NULL,
            persona          VARCHAR2(64) NOT NULL,
            normalized_query VARCHAR2(4000) NOT NULL,
            response         CLOB NOT NULL CHECK (response IS JSON),
            created_at       TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL)""",
        # Whom each cache row was written for (erase_user deletes that user's rows); the twin of
        # the embedded table. IF NOT EXISTS: SQL Language Reference 23ai, CREATE TABLE.
        """CREATE TABLE IF NOT EXISTS CACHE_WRITERS (
            cache_name VARCHAR2(16) NOT NULL CHECK (cache_name IN ('response', 'embedding')),
            cache_key  VARCHAR2(64) NOT NULL,
            user_id    VARCHAR2(512) NOT NULL,
            PRIMARY KEY (cache_name, cache_key, user_id))""",
        "CREATE INDEX IF NOT EXISTS CACHE_WRITERS_USER_IX ON CACHE_WRITERS (user_id)",
    ],
    ITEM_HASHES="SELECT item_id, doc_hash FROM CATALOG_ITEMS",
    ITEM_INSERT=f"""INSERT INTO CATALOG_ITEMS (item_id, item_name, category, description, price_usd, price_unit, doc_hash, embedding)
VALUES (:item_id, :item_name, :category, :description, :price_usd, :price_unit, :doc_hash, {_CATALOG_EMBED})""",
    ITEM_UPDATE=f"""UPDATE CATALOG_ITEMS
   SET item_name = :item_name, category = :category, description = :description, price_usd = :price_usd,
       price_unit = :price_unit, doc_hash = :doc_hash, embedding = {_CATALOG_EMBED}
 WHERE item_id = :item_id""",
    ITEM_DELETE="DELETE FROM CATALOG_ITEMS WHERE item_id = :item_id",
    AVAIL_DELETE_ITEM="DELETE FROM CATALOG_AVAILABILITY WHERE item_id = :item_id",
    AVAIL_INSERT="INSERT INTO CATALOG_AVAILABILITY (item_id, unlocode, units_available) VALUES (:item_id, :unlocode, :units)",
    ITEM_COUNT="SELECT COUNT(*) FROM CATALOG_ITEMS",
    AVAILABILITY_ALL="""SELECT item_id, unlocode, units_available FROM CATALOG_AVAILABILITY
 WHERE units_available IS NOT NULL ORDER BY item_id, unlocode""",
    MATCH_ABOVE_THRESHOLD="""SELECT item_id, item_name, category, description, price_usd, price_unit,
       1 - VECTOR_DISTANCE(embedding, :qv, COSINE) AS similarity
  FROM CATALOG_ITEMS
 WHERE 1 - VECTOR_DISTANCE(embedding, :qv, COSINE) >= :min_similarity
 ORDER BY similarity DESC, item_id
 FETCH FIRST :k ROWS ONLY""",
    CLOSEST_ITEMS="""SELECT item_id, item_name, category, description, price_usd, price_unit,
       1 - VECTOR_DISTANCE(embedding, :qv, COSINE) AS similarity
  FROM CATALOG_ITEMS
 ORDER BY similarity DESC, item_id
 FETCH FIRST :k ROWS ONLY""",
    AVAILABILITY_OF_ITEM="""SELECT unlocode, units_available FROM CATALOG_AVAILABILITY
 WHERE item_id = :item_id ORDER BY unlocode""",
    PORTS="""SELECT unlocode, port_name, country_code, region, latitude, longitude
  FROM SUPPLYCHAIN.PORTS ORDER BY unlocode""",
    EMBED_TEXT=f"SELECT VECTOR_EMBEDDING({MODEL_NAME} USING :txt AS data) FROM dual",
    EMB_CACHE_GET="SELECT embedding FROM EMBEDDING_CACHE WHERE text_sha256 = :h AND model_name = :m",
    EMB_CACHE_PUT="""MERGE INTO EMBEDDING_CACHE c
USING (SELECT :h AS text_sha256, :m AS model_name, :txt AS source_text, :vec AS embedding FROM dual) s
   ON (c.text_sha256 = s.text_sha256 AND c.model_name = s.model_name)
 WHEN NOT MATCHED THEN INSERT (text_sha256, model_name, source_text, embedding)
      VALUES (s.text_sha256, s.model_name, s.source_text, s.embedding)""",
    EMB_CACHE_COUNT="SELECT COUNT(*) FROM EMBEDDING_CACHE",
    EMB_CACHE_CLEAR="DELETE FROM EMBEDDING_CACHE",
    RESP_CACHE_GET="SELECT response FROM RESPONSE_CACHE WHERE cache_key = :cache_key",
    # replace = delete + insert in one transaction (on Oracle a long :r stays a CLOB bind in VALUES)
    RESP_CACHE_DELETE="DELETE FROM RESPONSE_CACHE WHERE cache_key = :cache_key",
    RESP_CACHE_INSERT="""INSERT INTO RESPONSE_CACHE (cache_key, model_name, persona, normalized_query, response)
VALUES (:cache_key, :m, :p, :q, :r)""",
    RESP_CACHE_COUNT="SELECT COUNT(*) FROM RESPONSE_CACHE",
    RESP_CACHE_CLEAR="DELETE FROM RESPONSE_CACHE",
    # Recorded once per (cache, key, user): MERGE ... WHEN NOT MATCHED THEN INSERT, as EMB_CACHE_PUT
    # (SQL Language Reference 23ai, MERGE: .../sqlrf/MERGE.html).
    CACHE_WRITER_PUT="""MERGE INTO CACHE_WRITERS w
USING (SELECT :c AS cache_name, :cache_key AS cache_key, :u AS user_id FROM dual) s
   ON (w.cache_name = s.cache_name AND w.cache_key = s.cache_key AND w.user_id = s.user_id)
 WHEN NOT MATCHED THEN INSERT (cache_name, cache_key, user_id) VALUES (s.cache_name, s.cache_key, s.user_id)""",
    CACHE_WRITERS_CLEAR="DELETE FROM CACHE_WRITERS",
)


def sc_select(table: TableSpec, columns: list[str], limit: int) -> str:
    cols = ", ".join(_ident(c) for c in columns)
    return (f"SELECT {cols} FROM {SUPPLYCHAIN}.{_ident(table.name)} "
            f"ORDER BY {', '.join(table.primary_key)} FETCH FIRST {int(limit)} ROWS ONLY")


# ---------------------------------------------------------------- run_sql (agent tool)
# OracleSupplyChain.read_only_query runs these on its own connection, as the reader user
# (ORACLE_READER_USER, default SC_READER: CREATE SESSION and SELECT on the SUPPLYCHAIN tables
# only, so AGENT's tables are not even visible to it). A read-only transaction (SQL Language
# Reference, SET TRANSACTION), names resolved in SUPPLYCHAIN (ALTER SESSION, CURRENT_SCHEMA),
# and the learner's or model's query wrapped as an inline view, where only a query parses.
# The query sits on lines of its own: a trailing `-- comment` in it ends at its newline
# instead of swallowing the closing parenthesis and the row-limit bind (DPY-4008).
READ_ONLY_TRANSACTION = "SET TRANSACTION READ ONLY"
SESSION_SCHEMA = "ALTER SESSION SET CURRENT_SCHEMA = {schema}"
READ_ONLY_QUERY = "SELECT * FROM (\n{query}\n) FETCH FIRST :max_rows ROWS ONLY"
# The same wrapper for a query whose result has two columns of one name (SELECT v.*, p.*):
# `SELECT *` over it fails with ORA-00918, so the WITH clause's column alias list names the
# columns by position (SQL Language Reference, SELECT, subquery_factoring_clause:
# query_name (c_alias, ...) AS (subquery)):
# https://docs.oracle.com/cd/E82638_01/sqlrf/img_text/subquery_factoring_clause.html
READ_ONLY_QUERY_RENAMED = "WITH run_sql_q ({columns}) AS (\n{query}\n) SELECT * FROM run_sql_q FETCH FIRST :max_rows ROWS ONLY"


def positional_columns(n: int) -> str:
    """The column alias list for READ_ONLY_QUERY_RENAMED: C1, C2, ... Cn."""
    if not isinstance(n, int) or not 1 <= n <= 1000:  # Oracle's limit on columns per table/view
        raise ValueError(f"a query returns 1 to 1000 columns, not {n!r}")
    return ", ".join(f"C{i}" for i in range(1, n + 1))


# Run as the reader user by `workshop doctor`: what it may do must be exactly CREATE SESSION
# and SELECT on SUPPLYCHAIN (Database Reference: USER_SYS_PRIVS, USER_ROLE_PRIVS, USER_TAB_PRIVS).
READER_SYSTEM_PRIVILEGES = """SELECT privilege FROM user_sys_privs
UNION SELECT granted_role FROM user_role_privs"""
READER_OBJECT_PRIVILEGES = """SELECT owner, table_name, privilege FROM user_tab_privs
 WHERE grantee = USER ORDER BY owner, table_name, privilege"""
# What PUBLIC is granted stays callable by the reader, and a function is callable inside
# run_sql's SELECT. So the doctor names the network and file packages PUBLIC may EXECUTE, and
# whether anything lets the reader use them: a host ACE (network calls without one fail with
# ORA-24247) or a DIRECTORY grant (UTL_FILE and BFILE reads need one). ALL_TAB_PRIVS lists
# grants to the user and to PUBLIC; USER_HOST_ACES the current user's network ACEs (Database
# Reference 21c/23ai, ALL_TAB_PRIVS, USER_HOST_ACES; Security Guide, "Checking Privilege
# Assignments That Affect User Access to Network Hosts"):
# https://docs.oracle.com/en/database/oracle/oracle-database/21/refrn/ALL_TAB_PRIVS.html
# https://docs.oracle.com/database/122/REFRN/USER_HOST_ACES.htm
# https://docs.oracle.com/en/database/oracle/oracle-database/19/dbseg/checking-privilege-assignments-that-affect-user-access-network-hosts.html
NETWORK_PACKAGES = ("UTL_HTTP", "UTL_TCP", "UTL_SMTP", "UTL_MAIL", "UTL_INADDR", "HTTPURITYPE", "DBMS_LDAP")
FILE_PACKAGES = ("UTL_FILE", "DBMS_LOB", "DBMS_XSLPROCESSOR", "DBMS_ADVISOR")
READER_PUBLIC_PACKAGES = """SELECT DISTINCT table_name FROM all_tab_privs
 WHERE grantee = 'PUBLIC' AND privilege = 'EXECUTE' AND table_schema IN ('SYS', 'MDSYS', 'XDB')
   AND table_name IN ({names})
 ORDER BY table_name""".format(names=", ".join(f"'{n}'" for n in NETWORK_PACKAGES + FILE_PACKAGES))
READER_HOST_ACES = """SELECT host, lower_port, upper_port, privilege FROM user_host_aces
 WHERE status = 'GRANTED' ORDER BY host, privilege"""
READER_DIRECTORY_GRANTS = """SELECT table_name, privilege FROM all_tab_privs
 WHERE type = 'DIRECTORY' AND grantee IN (USER, 'PUBLIC') ORDER BY table_name, privilege"""

# The offline model's run_sql queries are portable SQL defined once, in the embedded module.
from workshop_lib.engines.portable_sql import AGENT_QUERIES as AGENT_QUERIES  # noqa: E402 - this dialect's set too

# ---------------------------------------------------------------- Part 8 document index
# The same names as the embedded engine's DOCS (workshop_lib/parts/ingest). Chunks are
# embedded with eng.model.embed (the in-database model) and bound as VECTOR. MERGE ... WHEN NOT
# MATCHED THEN INSERT is the idempotent insert (SQL Language Reference, MERGE); CREATE OR
# REPLACE VIEW swaps the alias in one statement (SQL Language Reference, CREATE VIEW);
# USER_DEPENDENCIES names the table a view reads (Database Reference, ALL_DEPENDENCIES).
DOCS = DocsStatements(
    ALIAS="DOCS",
    DDL=[
        """CREATE TABLE IF NOT EXISTS DOC_INDEXES (
            table_name   VARCHAR2(128) PRIMARY KEY,
            profile      VARCHAR2(4000) NOT NULL CHECK (profile IS JSON),
            manifest_sha VARCHAR2(64) NOT NULL,
            status       VARCHAR2(10) NOT NULL CHECK (status IN ('building', 'complete')),
            docs         NUMBER DEFAULT 0 NOT NULL,
            chunks       NUMBER DEFAULT 0 NOT NULL,
            created_at   TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL,
            completed_at TIMESTAMP)""",
        """CREATE TABLE IF NOT EXISTS DOC_ALIAS (
            alias_name     VARCHAR2(128) PRIMARY KEY,
            table_name     VARCHAR2(128) NOT NULL,
            previous_table VARCHAR2(128))""",
        """CREATE TABLE IF NOT EXISTS DOC_ALIAS_LOG (
            seq        NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            alias_name VARCHAR2(128) NOT NULL,
            action     VARCHAR2(10) NOT NULL CHECK (action IN ('promote', 'rollback', 'refused')),
            table_name VARCHAR2(128) NOT NULL,
            detail     VARCHAR2(4000) NOT NULL CHECK (detail IS JSON),
            created_at TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL)""",
    ],
    TABLE_DDL=[
        f"""CREATE TABLE IF NOT EXISTS {{t}} (
            chunk_hash VARCHAR2(64) PRIMARY KEY,
            doc_id     VARCHAR2(400) NOT NULL,
            chunk_no   NUMBER NOT NULL,
            source     VARCHAR2(400) NOT NULL,
            lang       VARCHAR2(16),
            tags       VARCHAR2(4000) NOT NULL CHECK (tags IS JSON),
            body       CLOB NOT NULL,
            n_units    NUMBER NOT NULL,
            embedding  VECTOR({DIM}, FLOAT32) NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS {t}_DOC ON {t} (doc_id, chunk_no)",
    ],
    REGISTER="""MERGE INTO DOC_INDEXES d
USING (SELECT :t AS table_name FROM dual) s
ON (d.table_name = s.table_name)
WHEN MATCHED THEN UPDATE SET d.profile = :profile, d.manifest_sha = :sha
WHEN NOT MATCHED THEN INSERT (table_name, profile, manifest_sha, status) VALUES (:t, :profile, :sha, 'building')""",
    MARK_BUILDING="UPDATE DOC_INDEXES SET status = 'building', completed_at = NULL WHERE table_name = :t",
    MARK_COMPLETE="""UPDATE DOC_INDEXES SET status = 'complete', docs = :docs, chunks = :chunks,
    completed_at = SYSTIMESTAMP WHERE table_name = :t""",
    INDEX_GET="SELECT table_name, profile, manifest_sha, status, docs, chunks, created_at, completed_at FROM DOC_INDEXES WHERE table_name = :t",
    INDEX_LIST="SELECT table_name, profile, manifest_sha, status, docs, chunks, created_at, completed_at FROM DOC_INDEXES ORDER BY table_name",
    TABLE_DROP="DROP TABLE IF EXISTS {t} PURGE",
    INDEX_DELETE="DELETE FROM DOC_INDEXES WHERE table_name = :t",
    CHUNK_HASHES="SELECT chunk_hash, doc_id FROM {t}",
    CHUNK_INSERT="""MERGE INTO {t} d
USING (SELECT :h AS chunk_hash FROM dual) s
ON (d.chunk_hash = s.chunk_hash)
WHEN NOT MATCHED THEN INSERT (chunk_hash, doc_id, chunk_no, source, lang, tags, body, n_units, embedding)
VALUES (:h, :doc_id, :chunk_no, :source, :lang, :tags, :body, :n_units, :vec)""",
    CHUNK_DELETE="DELETE FROM {t} WHERE chunk_hash = :h",
    COUNTS="SELECT COUNT(DISTINCT doc_id) AS docs, COUNT(*) AS chunks FROM {t}",
    # Exact search (no vector index): the promotion gate measures the chunking, not an
    # approximate index. FETCH FIRST takes a bind (SQL Language Reference, row_limiting_clause).
    SEARCH="""SELECT doc_id, chunk_no, source, body, 1 - VECTOR_DISTANCE(embedding, :qv, COSINE) AS similarity
  FROM {t}
 ORDER BY VECTOR_DISTANCE(embedding, :qv, COSINE), chunk_hash
 FETCH FIRST :k ROWS ONLY""",
    # One document's chunks in order (the reader joins them back into the document).
    DOCUMENT_CHUNKS="SELECT chunk_no, body FROM {t} WHERE doc_id = :d ORDER BY chunk_no FETCH FIRST :k ROWS ONLY",
    ALIAS_GET="SELECT table_name, previous_table FROM DOC_ALIAS WHERE alias_name = :alias_name",
    ALIAS_SET="""MERGE INTO DOC_ALIAS d
USING (SELECT :alias_name AS alias_name FROM dual) s
ON (d.alias_name = s.alias_name)
WHEN MATCHED THEN UPDATE SET d.table_name = :t, d.previous_table = :prev
WHEN NOT MATCHED THEN INSERT (alias_name, table_name, previous_table) VALUES (:alias_name, :t, :prev)""",
    VIEW_REPLACE=["""CREATE OR REPLACE VIEW DOCS AS
SELECT chunk_hash, doc_id, chunk_no, source, lang, tags, body, n_units, embedding FROM {t}"""],
    VIEW_TARGET="""SELECT referenced_name AS target FROM USER_DEPENDENCIES
 WHERE name = 'DOCS' AND type = 'VIEW' AND referenced_type = 'TABLE'""",
    VIEW_DROP="DROP VIEW IF EXISTS DOCS",
    ALIAS_DELETE="DELETE FROM DOC_ALIAS WHERE alias_name = :alias_name",
    LOG_INSERT="INSERT INTO DOC_ALIAS_LOG (alias_name, action, table_name, detail) VALUES (:alias_name, :action, :t, :detail)",
    LOG_LIST="""SELECT created_at, action, table_name, detail FROM DOC_ALIAS_LOG WHERE alias_name = :alias_name
 ORDER BY seq DESC FETCH FIRST :n ROWS ONLY""",
)


# ---------------------------------------------------------------- memory over time
# Status, supersession links and expiry of memories, and the audit of erasures
# (workshop_lib/core/store.py, workshop_lib/parts/memory); the twin of the MEMORY block of
# embedded/sql.py, same names, binds and columns. The store adds these tables to an existing
# store when it opens it (MIGRATIONS): additions only. Times are bound and read as UTC text
# 'YYYY-MM-DDTHH:MM:SS.fffZ' (TO_TIMESTAMP / TO_CHAR with the same format model). Sources:
# SQL Language Reference 23ai, "CREATE TABLE" (identity_clause; references_clause ON DELETE
# CASCADE), "IS JSON condition", "TO_TIMESTAMP", "SYS_EXTRACT_UTC", "Format Models"
# (datetime elements FF3, quoted literal text), "EXISTS Condition":
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/CREATE-TABLE.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/IS-JSON-condition.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/TO_TIMESTAMP.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/SYS_EXTRACT_UTC.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/Format-Models.html
# Oracle Text keeps deleted rows out of CONTAINS results as soon as the delete commits
# (the index is SYNC (ON COMMIT)); CTX_DDL.OPTIMIZE_INDEX later purges their tokens:
# https://docs.oracle.com/en/database/oracle/oracle-database/23/ccref/CTX_DDL-package.html
_TS_FORMAT = "'YYYY-MM-DD\"T\"HH24:MI:SS.FF3\"Z\"'"
MEMORY = MemoryStatements(
    **MEMORY_PORTABLE,
    MIGRATIONS=[
        ("MEMORY_STATUS", [
            """CREATE TABLE {p}MEMORY_STATUS (
                record_seq  NUMBER CONSTRAINT {p}MEMORY_STATUS_PK PRIMARY KEY
                            CONSTRAINT {p}MEMORY_STATUS_FK REFERENCES {p}RECORDS (seq) ON DELETE CASCADE,
                status      VARCHAR2(16) NOT NULL
                            CONSTRAINT {p}MEMORY_STATUS_CK CHECK (status IN ('valid', 'superseded', 'forgotten', 'expired')),
                changed_by  VARCHAR2(512) NOT NULL,
                changed_at  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
                reason      VARCHAR2(4000),
                replaced_by VARCHAR2(512),
                expires_at  TIMESTAMP)""",
            "CREATE INDEX {p}MEMORY_STATUS_EXP_IX ON {p}MEMORY_STATUS (status, expires_at)",
        ]),
        ("MEMORY_AUDIT", [
            """CREATE TABLE {p}MEMORY_AUDIT (
                seq          NUMBER GENERATED ALWAYS AS IDENTITY CONSTRAINT {p}MEMORY_AUDIT_PK PRIMARY KEY,
                action       VARCHAR2(32) NOT NULL,
                subject_hash VARCHAR2(64) NOT NULL,
                actor        VARCHAR2(512) NOT NULL,
                detail       CLOB NOT NULL CONSTRAINT {p}MEMORY_AUDIT_JSON CHECK (detail IS JSON),
                created_at   TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL)""",
        ]),
    ],
    DROP={
        "MEMORY_STATUS": "DROP TABLE IF EXISTS {p}MEMORY_STATUS PURGE",
        "MEMORY_AUDIT": "DROP TABLE IF EXISTS {p}MEMORY_AUDIT PURGE",
    },
    STATUS_INSERT=f"""INSERT INTO {{p}}MEMORY_STATUS (record_seq, status, changed_by, reason, replaced_by, expires_at)
VALUES (:seq, :st, :actor, :why, :repl, TO_TIMESTAMP(:expiry, {_TS_FORMAT}))""",
    STATUS_GET=f"""SELECT ms.status, ms.changed_by, TO_CHAR(ms.changed_at, {_TS_FORMAT}) AS changed_at, ms.reason,
       ms.replaced_by, TO_CHAR(ms.expires_at, {_TS_FORMAT}) AS expires_at,
       CASE WHEN ms.status = 'valid' AND (ms.expires_at IS NULL OR ms.expires_at > {_NOW}) THEN 1 ELSE 0 END AS live
  FROM {{p}}MEMORY_STATUS ms WHERE ms.record_seq = :seq""",
    HISTORY=f"""SELECT {_COLS}, ms.status, ms.changed_by, TO_CHAR(ms.changed_at, {_TS_FORMAT}) AS changed_at,
       ms.reason, ms.replaced_by, TO_CHAR(ms.expires_at, {_TS_FORMAT}) AS expires_at,
       CASE WHEN {_live("m.seq")} THEN 1 ELSE 0 END AS live
  FROM {{p}}RECORDS m LEFT JOIN {{p}}MEMORY_STATUS ms ON ms.record_seq = m.seq
 WHERE m.user_id = :u AND m.agent_id = :a AND INSTR(:types, ',' || m.record_type || ',') > 0
 ORDER BY m.seq""",
    EXPIRED_DUE=f"""SELECT ms.record_seq FROM {{p}}MEMORY_STATUS ms
 WHERE ms.status = 'valid' AND ms.expires_at <= {_NOW}""",
    AUDIT_LIST=f"""SELECT TO_CHAR(created_at, {_TS_FORMAT}) AS created_at, action, subject_hash, actor, detail
  FROM {{p}}MEMORY_AUDIT ORDER BY seq""",
    # The user's vectors: their chunks' rows (there is no vector index holding copies; TRACE_ORPHAN_CHUNKS,
    # in MEMORY_PORTABLE, counts chunks left without a record).
    TRACE_VECTOR_INDEX="""SELECT COUNT(*) FROM {p}RECORD_CHUNKS c JOIN {p}RECORDS m ON m.seq = c.record_seq
 WHERE m.user_id = :u""",
    TRACE_TEXT_INDEX="SELECT COUNT(*) FROM {p}RECORDS m WHERE CONTAINS(m.content, :kw) > 0",
    # ---- erasure that reaches the indexes (issue 36, defect 1); separate from the statements above.
    # After an erasure commits. Oracle Text marks deleted documents as removed but keeps their
    # tokens in the index until it is optimised in FULL mode ("Document Invalidation and Garbage
    # Collection": https://docs.oracle.com/en/database/oracle/oracle-database/19/ccapp/document-invalidation-and-garbage-collection.html;
    # CTX_DDL.OPTIMIZE_INDEX(idx_name, optlevel), "Full mode compacts data and removes rows":
    # https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/optimize_index.html).
    # No vector index to repopulate: RECORD_CHUNKS has none (exact search; see SCHEMA).
    PURGE_DELETED=["BEGIN CTX_DDL.OPTIMIZE_INDEX('{p}RECORDS_TEXT_IX', 'FULL'); END;"],
    TRACE_CACHE_TEXT="""SELECT (SELECT COUNT(*) FROM RESPONSE_CACHE
          WHERE INSTR(LOWER(normalized_query), LOWER(:term)) > 0 OR INSTR(LOWER(response), LOWER(:term)) > 0)
     + (SELECT COUNT(*) FROM EMBEDDING_CACHE WHERE INSTR(LOWER(source_text), LOWER(:term)) > 0)
  FROM dual""",
    # Rows of the text index's token table for a word. The index data table is DR$<index>$I
    # (BASIC_STORAGE attributes, i_table_clause: https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/basic_storage-attributes.html);
    # its TOKEN_TEXT column (upper-case words under the default lexer) is not in the reference:
    # proven only on the live lane (tests/test_memory_over_time.py, marked oracle).
    TRACE_TEXT_TOKENS="SELECT COUNT(*) FROM DR${p}RECORDS_TEXT_IX$I WHERE token_text = UPPER(:tok)",
)


def memory_statements(prefix: str) -> MemoryStatements:
    """The MEMORY block with the store's table-name prefix filled in."""
    return with_prefix(MEMORY, prefix)

"""Statements written identically for SQLite and Oracle, defined once: store statements,
Part 6's reference queries and the offline SQL planner's templates; and the helper that
fills a block's `{p}` table-name prefix.

Both engines' statement modules import them, so each module still holds the whole set
its engine runs (workshop_lib/engines/statement_sets.py lists the names). `{p}` is the
table-name prefix. Bind names avoid Oracle's reserved words.
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

Block = TypeVar("Block")

# The rank Part 3's hybrid statements give a memory missing from one of the two lists (COALESCE /
# NVL after the FULL OUTER JOIN): far below any real rank, so 1/(rrf_k + SENTINEL) adds almost
# nothing. retrieval.py, the checks, the hints and the benchmark read this one name.
SENTINEL = 999_999

# The scanner's schema facts (record ids `schema:...`, parts/scanner.py's Fact.record_id) in the
# shared scope (core/scope.py's SHARED) are the one knowledge every user reads. A knowledge read
# binds its own scope (:u, :a) and the shared one (:shared_u, :shared_a) and reads both in the
# same statement; binding :shared_u to NULL leaves the shared knowledge out (the store contract's
# own searches). Each dialect writes the prefix test its way (GLOB in SQLite, LIKE in Oracle):
# both compare case-sensitively.
SHARED_ID_PREFIX = "schema:"

META_SELECT = "SELECT k, v FROM {p}STORE_META"
META_INSERT = "INSERT INTO {p}STORE_META (k, v) VALUES (:meta_key, :v)"
RECORD_SET_CONTENT = "UPDATE {p}RECORDS SET content = :content WHERE seq = :seq"
RECORD_SET_METADATA = "UPDATE {p}RECORDS SET metadata = :meta WHERE seq = :seq"
RECORD_DELETE = "DELETE FROM {p}RECORDS WHERE seq = :seq"
CHUNK_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq = :seq"
THREAD_GET = "SELECT thread_id, user_id FROM {p}THREADS WHERE thread_id = :tid"
THREAD_INSERT = "INSERT INTO {p}THREADS (thread_id, user_id, agent_id) VALUES (:tid, :u, :a)"
THREAD_DELETE = "DELETE FROM {p}THREADS WHERE thread_id = :tid"
THREAD_CHUNKS_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq IN (SELECT seq FROM {p}RECORDS WHERE thread_id = :tid)"
THREAD_RECORDS_DELETE = "DELETE FROM {p}RECORDS WHERE thread_id = :tid"
THREADS_OF_USER = "SELECT thread_id FROM {p}THREADS WHERE user_id = :actor"
THREADS_OF_AGENT = "SELECT thread_id FROM {p}THREADS WHERE agent_id = :actor"


# Memory over time: the statements of the MEMORY block that both dialects write the same way
# (each engine's MEMORY block includes them).
MEMORY_PORTABLE = {
    "STATUS_DELETE": "DELETE FROM {p}MEMORY_STATUS WHERE record_seq = :seq",
    "THREAD_STATUS_DELETE": """DELETE FROM {p}MEMORY_STATUS
 WHERE record_seq IN (SELECT seq FROM {p}RECORDS WHERE thread_id = :tid)""",
    "AUDIT_INSERT": """INSERT INTO {p}MEMORY_AUDIT (action, subject_hash, actor, detail)
VALUES (:act, :subj, :actor, :detail)""",
    # What is left of a user after erasure: rows, threads, chunks without a record.
    "TRACE_RECORDS": "SELECT COUNT(*) FROM {p}RECORDS WHERE user_id = :u",
    "TRACE_THREADS": "SELECT COUNT(*) FROM {p}THREADS WHERE user_id = :u",
    "TRACE_ORPHAN_CHUNKS": """SELECT COUNT(*) FROM {p}RECORD_CHUNKS c
 WHERE NOT EXISTS (SELECT 1 FROM {p}RECORDS m WHERE m.seq = c.record_seq)""",
    "CHAT_ERASE": "DELETE FROM CHAT_INTERACTIONS WHERE user_id = :u",
    # The audit's subject hashes, re-keyed once when the store's audit key is made (older
    # rows held a plain SHA-256 of the id, which anyone can recompute from a guess).
    "AUDIT_SUBJECTS": "SELECT seq, subject_hash FROM {p}MEMORY_AUDIT",
    "AUDIT_SET_SUBJECT": "UPDATE {p}MEMORY_AUDIT SET subject_hash = :subj WHERE seq = :seq",
    # Part 5's caches are shared and keyed by the question; CACHE_WRITERS says whom each row
    # was written for. Erasure deletes the user's rows, and rows no writer was recorded for
    # (written before writers were recorded: anyone's).
    "RESPONSE_CACHE_ERASE": """DELETE FROM RESPONSE_CACHE
 WHERE cache_key IN (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'response' AND w.user_id = :u)
    OR cache_key NOT IN (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'response')""",
    "EMBEDDING_CACHE_ERASE": """DELETE FROM EMBEDDING_CACHE
 WHERE text_sha256 IN (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'embedding' AND w.user_id = :u)
    OR text_sha256 NOT IN (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'embedding')""",
    "CACHE_WRITERS_ERASE": "DELETE FROM CACHE_WRITERS WHERE user_id = :u",
    "TRACE_CACHE_ROWS": """SELECT COUNT(*) FROM (
    SELECT r.cache_key FROM RESPONSE_CACHE r WHERE r.cache_key IN
           (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'response' AND w.user_id = :u)
    UNION ALL
    SELECT e.text_sha256 FROM EMBEDDING_CACHE e WHERE e.text_sha256 IN
           (SELECT w.cache_key FROM CACHE_WRITERS w WHERE w.cache_name = 'embedding' AND w.user_id = :u)) x""",
    "TRACE_CHAT_LOG": "SELECT COUNT(*) FROM CHAT_INTERACTIONS WHERE user_id = :u",
    # Audit rows that name the user: by id, by the unkeyed SHA-256 of the id, as the actor,
    # or in the detail (a reason may quote them).
    "TRACE_AUDIT": """SELECT COUNT(*) FROM {p}MEMORY_AUDIT
 WHERE subject_hash IN (:u, :plain) OR actor = :u OR INSTR(detail, :u) > 0""",
}

def with_prefix(block: Block, prefix: str) -> Block:
    """A statement block with `{p}` replaced by the store's table-name prefix, in nested values too."""
    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{p}", prefix)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [fill(v) for v in value]
        return value
    changes = {f.name: fill(getattr(block, f.name)) for f in dataclasses.fields(block)}  # type: ignore[arg-type]
    return dataclasses.replace(block, **changes)  # type: ignore[type-var]


# The offline model's queries (workshop_lib/parts/agent/offline.py): written as a model would send
# them through run_sql, in portable SQL, so the same text runs on both engines (both engines'
# statement modules import them, and the parse test reads them with sqlglot's Oracle dialect).
AGENT_QUERIES = {
    "active_voyages_per_carrier": """SELECT ca.CARRIER_NAME, COUNT(*) AS ACTIVE_VOYAGES
  FROM VOYAGES v
  JOIN VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER
  JOIN CARRIERS ca ON ca.CARRIER_ID = ve.CARRIER_ID
 WHERE v.STATUS = 'ACTIVE'
 GROUP BY ca.CARRIER_NAME
 ORDER BY ACTIVE_VOYAGES DESC, ca.CARRIER_NAME""",
    "declared_value_of_voyage": """SELECT v.VOYAGE_NUMBER, SUM(ci.QUANTITY * ci.UNIT_VALUE_CENTS) AS TOTAL_UNIT_VALUE_CENTS
  FROM CARGO_ITEMS ci
  JOIN CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID
  JOIN VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID
 WHERE v.VOYAGE_ID = {voyage_id}
 GROUP BY v.VOYAGE_NUMBER""",
}

# The offline SQL planner's templates (workshop_lib/parts/agent/sqlplan.py), portable like
# AGENT_QUERIES: both engines run the filled text through read_only_query (no LIMIT: the row
# cap is max_rows). Placeholders take only names from the data dictionary, integers, fixed
# keywords and one quoted literal ({q}: letters, digits and spaces, quotes doubled).
# tests/test_answers.py parses every statement the evaluation plans with sqlglot's Oracle dialect.
PLAN_SQL = {
    "entities": ("SELECT 'VESSEL' AS KIND, VESSEL_NAME AS NAME, IMO_NUMBER AS ID FROM VESSELS "
                 "WHERE INSTR(UPPER({q}), UPPER(VESSEL_NAME)) > 0 "
                 "UNION ALL SELECT 'CARRIER', CARRIER_NAME, CARRIER_ID FROM CARRIERS "
                 "WHERE INSTR(UPPER({q}), UPPER(CARRIER_NAME)) > 0 "
                 "UNION ALL SELECT 'PORT', PORT_NAME, PORT_ID FROM PORTS "
                 "WHERE INSTR(UPPER({q}), UPPER(PORT_NAME)) > 0 OR INSTR(UPPER({q}), UNLOCODE) > 0"),
    "voyage_value": ("SELECT SUM(ci.QUANTITY * ci.UNIT_VALUE_CENTS) AS TOTAL_UNIT_VALUE_CENTS FROM CARGO_ITEMS ci "
                     "JOIN CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID WHERE c.VOYAGE_ID = {voyage}"),
    "voyage_vessel_column": ("SELECT ve.{col} FROM VOYAGES v JOIN VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                             "WHERE v.VOYAGE_ID = {voyage}"),
    "voyage_position_column": "SELECT {col} FROM VESSEL_POSITIONS WHERE VOYAGE_ID = {voyage}",
    "voyage_position": ("SELECT LATITUDE, LONGITUDE, SPEED_KNOTS, REPORTED_AT FROM VESSEL_POSITIONS "
                        "WHERE VOYAGE_ID = {voyage}"),
    "voyage_carrier": ("SELECT ca.CARRIER_NAME FROM VOYAGES v JOIN VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                       "JOIN CARRIERS ca ON ca.CARRIER_ID = ve.CARRIER_ID WHERE v.VOYAGE_ID = {voyage}"),
    "voyage_vessel": ("SELECT ve.VESSEL_NAME, ve.IMO_NUMBER FROM VOYAGES v JOIN VESSELS ve "
                      "ON ve.IMO_NUMBER = v.IMO_NUMBER WHERE v.VOYAGE_ID = {voyage}"),
    "voyage_status": "SELECT v.STATUS FROM VOYAGES v WHERE v.VOYAGE_ID = {voyage}",
    "voyage_route": ("SELECT o.PORT_NAME AS ORIGIN, d.PORT_NAME AS DESTINATION, v.DEPARTURE_DATE, v.ARRIVAL_DATE, "
                     "v.STATUS FROM VOYAGES v JOIN PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                     "JOIN PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID WHERE v.VOYAGE_ID = {voyage}"),
    "vessel_carrier": ("SELECT ca.CARRIER_NAME FROM VESSELS ve JOIN CARRIERS ca ON ca.CARRIER_ID = ve.CARRIER_ID "
                       "WHERE ve.IMO_NUMBER = {imo}"),
    "row_column": "SELECT {col} FROM {table} WHERE {key} = {value}",
    "group_by_column": ("SELECT t.{col}, COUNT(*) AS N FROM {table} t{joins}{where} GROUP BY t.{col} "
                        "ORDER BY N DESC, t.{col}"),
    "group_by_parent": ("SELECT {alias}.{name}, COUNT(*) AS N FROM {table} t{joins}{where} GROUP BY {alias}.{name} "
                        "ORDER BY N DESC, {alias}.{name}"),
    "top": "SELECT {name}, {col} FROM {table} ORDER BY {col} {order}, {name}",
    "list": "SELECT {alias}.{name} FROM {table} {alias}{joins}{where} ORDER BY {alias}.{name}",
    "count": "SELECT COUNT(*) AS N FROM {table} t{joins}{where}",
    "aggregate": "SELECT {fn}(t.{col}) AS AGG_VALUE FROM {table} t{joins}{where}",
    "join": " JOIN {table} {alias} ON {alias}.{col} = {other}.{other_col}",
    "where": " WHERE {conditions}",
    # the evaluation's ground truth: every row of one SUPPLYCHAIN table
    "all_rows": "SELECT {columns} FROM {owner}.{table}",
}

# The assistant's composed queries (workshop_lib/assistant/planner.py): identifiers come from the
# data dictionary, every value the question names is a named bind (:p0, :p1 ...).
COMPOSE_SQL = {
    "select": "SELECT {columns} FROM {table} t{joins}{where}{group}{order}",
    "join": " JOIN {table} {alias} ON {alias}.{col} = {other}.{other_col}",
    # a port reached through a voyage at either end ("the ports it sailed from or to")
    "join_either": " JOIN {table} {alias} ON ({alias}.{col} = {other}.{other_col} OR {alias}.{col2} = {other}.{other_col})",
    "where": " WHERE {conditions}",
    "group": " GROUP BY {refs}",
    "having": " HAVING COUNT(*) {op} :{bind}",
    "order": " ORDER BY {refs}",
    "compare": "{ref} {op} :{bind}",
    "contains": "UPPER({ref}) LIKE :{bind}",
    "not_null": "{ref} IS NOT NULL",
    "is_null": "{ref} IS NULL",
    # the row no row of a table below points at ("ports no voyage ends at"); a correlated [NOT] EXISTS
    # subquery is standard SQL and Oracle's (SQL Language Reference, "EXISTS Condition":
    # https://docs.oracle.com/cd/E57425_01/121/SQLRF/conditions013.htm)
    "none_below": "NOT EXISTS (SELECT 1 FROM {table} n WHERE {conditions})",
    "points_at": "n.{col} = {ref}",
    # two keys down ("carriers none of whose ships has a scheduled voyage"): a row below the one below
    "some_below": "EXISTS (SELECT 1 FROM {table} m WHERE {conditions})",
    "lower_points_at": "m.{col} = {ref}",
    "either": "({first} OR {second})",
    "both": "({first} AND {second})",
    "count": "COUNT(*) AS N",
    "labelled": "{key} || ' (' || {name} || ')'",
    "count_distinct": "COUNT(DISTINCT {ref}) AS N",
    "aggregate": "{fn}({ref}) AS AGG_VALUE",
    "distinct_values": "SELECT DISTINCT {column} FROM {table}",
}

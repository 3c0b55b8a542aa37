"""Prototype of the proposed speed change to workshop_lib/embedded/sql.py.

Nothing here is imported by the library. The benchmark installs these objects into its
own temporary database and runs the proposed statements side by side with the
library's current ones, so the before/after figures come from the same run.

Two changes, measured separately:

1. ``restructured``: the same exact scan, but each CTE keeps only its top ``:n`` rows
   (``ORDER BY ... LIMIT :n``, which SQLite runs as a bounded top-n sort) *before*
   ``ROW_NUMBER()`` numbers them. The current HYBRID_RRF numbers every candidate row
   (a full sort of all memories, then a window pass over all of them) and cuts to
   ``:n`` afterwards. Same ranks, same results, no schema change.
2. ``vec0``: (1) plus the vector leg read from a sqlite-vec ``vec0`` virtual table
   (``distance_metric=cosine``), partitioned by the knowledge scope
   ``json_array(record_type, user_id, agent_id)`` and with ``kind`` as a metadata
   column, so the KNN scan touches only this user's/agent's memories and filters
   tool output while it scans. Triggers keep it in sync with RECORD_CHUNKS. Still an
   exact (brute-force) KNN: sqlite-vec 0.1.x has no ANN index.
"""
from __future__ import annotations

from workshop_lib import retrieval

# Knowledge memories: the library's own filter (workshop_lib/embedded/sql.py _KNOWLEDGE).
_KNOWLEDGE = """m.user_id = :u AND m.agent_id = :a AND m.record_type = 'memory'
   AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'"""

_TXT_AND_FUSION = f"""txt_top AS (
    SELECT m.seq, bm25({{p}}RECORDS_FTS) AS bm
      FROM {{p}}RECORDS_FTS JOIN {{p}}RECORDS m ON m.seq = {{p}}RECORDS_FTS.rowid
     WHERE {{p}}RECORDS_FTS MATCH :kw AND {_KNOWLEDGE}
     ORDER BY bm, m.seq LIMIT :n),
txt AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY bm, seq) AS r_txt FROM txt_top),
fused AS (
    SELECT COALESCE(v.seq, t.seq) AS seq,
           COALESCE(v.r_vec, 999999) AS r_vec,
           COALESCE(t.r_txt, 999999) AS r_txt
      FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)
SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,
       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score
  FROM fused f JOIN {{p}}RECORDS m ON m.seq = f.seq
 ORDER BY rrf_score DESC, f.r_vec, f.r_txt
 LIMIT :k"""

# (1) Same exact scan; top-n first, then ROW_NUMBER over n rows only.
HYBRID_RRF_RESTRUCTURED = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
vec_top AS (
    SELECT m.seq, vec_distance_cosine(c.embedding, q.emb) AS d
      FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q
     WHERE {_KNOWLEDGE} AND q.emb IS NOT NULL
     ORDER BY d, m.seq LIMIT :n),
vec AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY d, seq) AS r_vec FROM vec_top),
{_TXT_AND_FUSION}"""

# (2) The vector leg from the vec0 table: exact KNN inside this scope's partition.
_VEC0_TOP = """vec_top AS MATERIALIZED (
    SELECT v.rowid AS seq, v.distance AS d
      FROM q CROSS JOIN {p}RECORDS_VEC v
     WHERE q.emb IS NOT NULL AND v.embedding MATCH q.emb AND v.k = :n
       AND v.scope = json_array('memory', :u, :a) AND v.kind <> 'tool_output')"""

HYBRID_RRF_VEC0 = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
{_VEC0_TOP},
vec AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY d, seq) AS r_vec FROM vec_top),
{_TXT_AND_FUSION}"""

VECTOR_RANKED_VEC0 = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
{_VEC0_TOP}
SELECT m.record_id, t.d AS distance
  FROM vec_top t JOIN {{p}}RECORDS m ON m.seq = t.seq
 ORDER BY t.d, t.seq"""

# Schema additions (entries for sql.SCHEMA / sql.DROP). One chunk per record (chunk_no 0),
# so the chunk's record_seq is the vec0 rowid.
_VEC_ROW = """json_array(m.record_type, m.user_id, m.agent_id),
           COALESCE(json_extract(m.metadata, '$.kind'), '')"""

SCHEMA = [
    ("RECORDS_VEC", [
        """CREATE VIRTUAL TABLE IF NOT EXISTS {p}RECORDS_VEC USING vec0(
            scope TEXT PARTITION KEY,
            embedding float[{dim}] distance_metric=cosine,
            kind TEXT)""",
        # Back-fill an existing store (no-op on a new one).
        f"""INSERT INTO {{p}}RECORDS_VEC (rowid, scope, kind, embedding)
    SELECT c.record_seq, {_VEC_ROW}, c.embedding
      FROM {{p}}RECORD_CHUNKS c JOIN {{p}}RECORDS m ON m.seq = c.record_seq
     WHERE c.chunk_no = 0""",
    ]),
    ("RECORDS_VEC_AI", [
        f"""CREATE TRIGGER IF NOT EXISTS {{p}}RECORDS_VEC_AI AFTER INSERT ON {{p}}RECORD_CHUNKS
    WHEN new.chunk_no = 0 BEGIN
    INSERT INTO {{p}}RECORDS_VEC (rowid, scope, kind, embedding)
    SELECT new.record_seq, {_VEC_ROW}, new.embedding FROM {{p}}RECORDS m WHERE m.seq = new.record_seq;
END""",
    ]),
    ("RECORDS_VEC_AD", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_VEC_AD AFTER DELETE ON {p}RECORD_CHUNKS
    WHEN old.chunk_no = 0 BEGIN
    DELETE FROM {p}RECORDS_VEC WHERE rowid = old.record_seq;
END""",
    ]),
    ("RECORDS_VEC_AU", [
        """CREATE TRIGGER IF NOT EXISTS {p}RECORDS_VEC_AU AFTER UPDATE OF metadata ON {p}RECORDS BEGIN
    UPDATE {p}RECORDS_VEC SET kind = COALESCE(json_extract(new.metadata, '$.kind'), '')
     WHERE rowid = new.seq;
END""",
    ]),
]

DROP = {
    "RECORDS_VEC": "DROP TABLE IF EXISTS {p}RECORDS_VEC",
    "RECORDS_VEC_AI": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AI",
    "RECORDS_VEC_AD": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AD",
    "RECORDS_VEC_AU": "DROP TRIGGER IF EXISTS {p}RECORDS_VEC_AU",
}

VARIANTS = {
    "restructured": HYBRID_RRF_RESTRUCTURED,
    "vec0": HYBRID_RRF_VEC0,
}


def _fill(eng, sql: str) -> str:
    return sql.replace("{p}", eng.store.prefix).replace("{dim}", str(eng.store.vector_dim))


def install(eng) -> None:
    """Create (or re-create and back-fill) the vec0 table and its triggers in eng's store."""
    if eng.name != "embedded":
        raise ValueError("the vec0 proposal is for the embedded engine only")
    eng.store  # open the store (and its schema) before our transaction
    with eng.transaction() as cur:
        for name in reversed(list(DROP)):
            cur.execute(_fill(eng, DROP[name]))
        for _, ddl in SCHEMA:
            for stmt in ddl:
                cur.execute(_fill(eng, stmt))


def uninstall(eng) -> None:
    eng.store
    with eng.transaction() as cur:
        for name in reversed(list(DROP)):
            cur.execute(_fill(eng, DROP[name]))


def hybrid(eng, query: str, variant: str, k: int = 5, per_list: int = 30, rrf_k: int = retrieval.RRF_K) -> list[dict]:
    """hybrid_rrf_search_memories with a proposed statement in place of eng.sql.HYBRID_RRF."""
    retrieval.check_query(query)
    kw = retrieval.keyword_expression(eng, query) or eng.no_match_expression
    params = {"q": query, "kw": kw, "n": per_list, "rrf_k": rrf_k, "k": k,
              "u": eng.user_id, "a": eng.agent_id}
    return retrieval.hybrid_rows(eng, eng.query(_fill(eng, VARIANTS[variant]), params))


def vector_ranked_ids(eng, query: str, n: int = 30) -> list[str]:
    params = {"q": query, "n": n, "u": eng.user_id, "a": eng.agent_id}
    return [r[0] for r in eng.query(_fill(eng, VECTOR_RANKED_VEC0), params)]


# ------------------------------------------------------------------ bound-finding prototype
# NOT proposed as is: the vector leg answered by numpy from an in-memory copy of the
# vectors (a static snapshot taken at install time, no invalidation on writes), exposed
# to SQL as a function returning the top-n seqs as a JSON array. It shows what the hybrid
# statement costs when its vector leg costs what the numpy floor costs, i.e. what is left
# for the full-text leg and the fusion.
HYBRID_RRF_NUMPY = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
vec AS (
    SELECT CAST(j.value AS INTEGER) AS seq, CAST(j.key AS INTEGER) + 1 AS r_vec
      FROM q, json_each(bench_knn(q.emb, :n)) j
     WHERE q.emb IS NOT NULL),
{_TXT_AND_FUSION}"""

VARIANTS["numpy (prototype)"] = HYBRID_RRF_NUMPY


def install_numpy_knn(eng) -> int:
    """Register bench_knn(emb, n) over a snapshot of this scope's knowledge vectors."""
    import json as _json

    import numpy as np

    p = eng.store.prefix
    rows = eng.query(
        f"""SELECT m.seq, c.embedding FROM {p}RECORDS m JOIN {p}RECORD_CHUNKS c ON c.record_seq = m.seq
             WHERE {_KNOWLEDGE} ORDER BY m.seq""", {"u": eng.user_id, "a": eng.agent_id})
    seqs = np.array([r[0] for r in rows], dtype=np.int64)
    dim = eng.store.vector_dim
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim).copy()

    def knn(emb: bytes | None, n: int) -> str | None:
        if emb is None or not len(seqs):
            return "[]"
        scores = matrix @ np.frombuffer(emb, dtype=np.float32)
        n = min(int(n), len(seqs))
        part = np.argpartition(-scores, n - 1)[:n]
        # Same order as the exact scan: distance, then seq.
        order = part[np.lexsort((seqs[part], -scores[part]))]
        return _json.dumps(seqs[order].tolist())

    eng.conn.create_function("bench_knn", 2, knn)
    return len(seqs)

"""Statements the speed run times next to the library's own (embedded engine only).

Nothing here is imported by the library. Two extra rows, so the summary shows, in the
same run and over the same store, what the library's hybrid statement replaced and
what is left of its cost:

- ``PRE_VEC0_HYBRID_RRF`` ("before"): HYBRID_RRF exactly as workshop_lib/engines/embedded/sql.py
  had it before commit e2acd02 ("cut each ranked list before numbering it; vector leg
  on a sqlite-vec vec0 index"). Exact cosine scan of every knowledge memory, each list
  numbered in full by ROW_NUMBER and cut to :n afterwards.
- ``prototype_hybrid_sql()`` (a PROTOTYPE, not used by the library and not proposed as
  is): the library's HYBRID_RRF with its vec0 vector leg swapped for the KNN answered with
  numpy from an in-memory snapshot of the vectors (taken once, never updated on writes),
  bound into the statement as a JSON array with the query's vector. It shows what the
  statement costs when its vector leg costs what the numpy floor costs, i.e. what the
  full-text leg and the fusion add.
"""
from __future__ import annotations

import json

import numpy as np

from workshop_lib.core.scope import Scope
from workshop_lib.engines.embedded import sql as lib_sql
from workshop_lib.parts import retrieval

# The pre-vec0 statement, kept for comparison only (the library's HYBRID_RRF replaced it).
PRE_VEC0_HYBRID_RRF = f"""WITH q AS MATERIALIZED (SELECT embed(:q) AS emb),
vec AS (
    SELECT m.seq, ROW_NUMBER() OVER (ORDER BY vec_distance_cosine(c.embedding, q.emb), m.seq) AS r_vec
      FROM {{p}}RECORDS m JOIN {{p}}RECORD_CHUNKS c ON c.record_seq = m.seq CROSS JOIN q
     WHERE {lib_sql._KNOWLEDGE} AND q.emb IS NOT NULL
     ORDER BY r_vec LIMIT :n),
txt_scored AS (
    SELECT m.seq, bm25({{p}}RECORDS_FTS) AS bm
      FROM {{p}}RECORDS_FTS JOIN {{p}}RECORDS m ON m.seq = {{p}}RECORDS_FTS.rowid
     WHERE {{p}}RECORDS_FTS MATCH :kw AND {lib_sql._KNOWLEDGE}),
txt AS (
    SELECT seq, ROW_NUMBER() OVER (ORDER BY bm, seq) AS r_txt
      FROM txt_scored ORDER BY r_txt LIMIT :n),
fused AS (
    SELECT COALESCE(v.seq, t.seq) AS seq,
           COALESCE(v.r_vec, {lib_sql.SENTINEL}) AS r_vec,
           COALESCE(t.r_txt, {lib_sql.SENTINEL}) AS r_txt
      FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)
SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,
       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score
  FROM fused f JOIN {{p}}RECORDS m ON m.seq = f.seq
 ORDER BY rrf_score DESC, f.r_vec, f.r_txt
 LIMIT :k"""

# PROTOTYPE (not in the library): the query's vector bound as :qv (computed before the statement,
# as the library's embed(:q) would), and the vector leg read from :knn, a JSON array of the top-n
# seqs that numpy found, best first; d is the position, so ROW_NUMBER keeps numpy's order.
_LIB_QUERY = "q AS MATERIALIZED (SELECT embed(:q) AS emb)"
_NUMPY_QUERY = "q AS MATERIALIZED (SELECT :qv AS emb)"
_NUMPY_VEC_TOP = """vec_top AS MATERIALIZED (
    SELECT CAST(j.value AS INTEGER) AS seq, CAST(j.key AS INTEGER) AS d
      FROM json_each(:knn) j)"""


def prototype_hybrid_sql() -> str | None:
    """The library's HYBRID_RRF with the numpy vector leg; None if the library's text changed shape."""
    if lib_sql._VEC_TOP not in lib_sql.HYBRID_RRF or _LIB_QUERY not in lib_sql.HYBRID_RRF:
        return None
    return lib_sql.HYBRID_RRF.replace(lib_sql._VEC_TOP, _NUMPY_VEC_TOP).replace(_LIB_QUERY, _NUMPY_QUERY)


def hybrid(eng, query: str, sql: str, k: int = 5, per_list: int = 30, rrf_k: int = retrieval.RRF_K,
           knn: NumpyKnn | None = None) -> list[dict]:
    """hybrid_rrf_search_memories with `sql` (a {p} template) in place of the library's HYBRID_RRF;
    with `knn`, the prototype's binds too (the query's vector and numpy's top seqs)."""
    retrieval.check_query(query)
    kw = retrieval.keyword_expression(eng, query) or eng.statements.no_match
    params = {"q": query, "kw": kw, "n": per_list, "rrf_k": rrf_k, "k": k, **Scope(eng.user_id, eng.agent_id).binds()}
    if knn is not None:
        params.update(knn.binds(query, per_list))
    return retrieval.hybrid_rows(eng, retrieval.query_named(eng, sql.replace("{p}", eng.store.prefix), params))


class NumpyKnn:
    """PROTOTYPE: a snapshot of this scope's knowledge vectors, answering the KNN with numpy."""

    def __init__(self, eng) -> None:
        self.eng = eng
        p = eng.store.prefix
        rows = eng.query(
            f"""SELECT m.seq, c.embedding FROM {p}RECORDS m JOIN {p}RECORD_CHUNKS c ON c.record_seq = m.seq
                 WHERE {lib_sql._KNOWLEDGE} ORDER BY m.seq""", Scope(eng.user_id, eng.agent_id).binds())
        self.seqs = np.array([r[0] for r in rows], dtype=np.int64)
        self.matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()

    def binds(self, query: str, n: int) -> dict[str, object]:
        """:qv, the query's vector as the store binds it (None: no direction), and :knn, the top-n seqs."""
        vector = np.asarray(self.eng.model.embed([query])[0], dtype=np.float32)
        if not vector.any() or not len(self.seqs):
            return {"qv": None, "knn": "[]"}
        scores = self.matrix @ vector
        n = min(int(n), len(self.seqs))
        part = np.argpartition(-scores, n - 1)[:n]
        top = self.seqs[part[np.lexsort((self.seqs[part], -scores[part]))]].tolist()  # distance, then seq
        return {"qv": self.eng.backend.vector_param(vector.tolist()), "knn": json.dumps(top)}


def install_numpy_knn(eng) -> NumpyKnn:
    """PROTOTYPE: the snapshot the prototype row reads (taken once, before its timing)."""
    return NumpyKnn(eng)

"""Reference retrieval for Part 3: vector + rerank, keyword, and hybrid RRF.

These are the instructor's implementations. The notebook's TODOs ask learners to write
`retrieve_knowledge` and `hybrid_rrf_search_memories` themselves; the checks compare
their results with these. The SQL lives in the engine's statements module.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from workshop_lib.core.arguments import MAX_QUERY_CHARS, check_k, check_query  # noqa: F401 - one rule everywhere
from workshop_lib.core.scope import Scope
from workshop_lib.engines.database import query_named as query_named  # rows by column name (Part 3's TODO 2)
from workshop_lib.engines.hits import Hit
from workshop_lib.engines.portable_sql import SENTINEL as SENTINEL  # a memory missing from one list (the statements')
from workshop_lib.engines.rows import HybridRow, KeywordRow, VectorRankRow, rows_as
from workshop_lib.errors import WorkshopError

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

MAX_K = 100_000  # results a retrieval caller can ask for (the store's own limit is the SQL integer range)
MAX_PER_LIST = 4096  # sqlite-vec's largest k for one nearest-neighbour list
RRF_K = 60


# ------------------------------------------------------------------ argument checks
def normalize_kinds(kinds: Any) -> list[str] | None:
    """Accept a list, a comma-separated string (LLMs send those), or None."""
    if kinds is None:
        return None
    if isinstance(kinds, str):
        kinds = [s.strip() for s in kinds.split(",")]
    if not isinstance(kinds, (list, tuple, set)) or not all(isinstance(x, str) for x in kinds):
        raise ValueError(f"kinds must be a list of strings or a comma-separated string, got {kinds!r}")
    kinds = [k.strip() for k in kinds if k.strip()]
    return kinds or None


def _meta(value: Any, eng) -> dict:
    value = eng.backend.read_text(value)
    if isinstance(value, dict):
        return value
    return json.loads(value) if value else {}


# ------------------------------------------------------------------ vector + rerank
def rerank(eng: Engine, query: str, candidates: list[Hit], top_k: int, content_key: str = "body") -> list[Hit]:
    """Second stage: a cross-encoder reorders candidates when the engine has one;
    otherwise this passes the vector order through, cut to top_k."""
    return eng.model.rerank(query, candidates, top_k=top_k, content_key=content_key)


def retrieve_knowledge(eng: Engine, query: str, k: int = 5, kinds: list[str] | str | None = None) -> list[Hit]:
    """Semantic search over the knowledge memories of `eng`'s scope (eng.scoped(user) for another
    user) and the shared schema knowledge, then rerank."""
    check_query(query)
    check_k(k, "k", MAX_K)
    kinds = normalize_kinds(kinds)
    hits = eng.memory.search(query, record_types=["memory"], max_results=k * 4)  # oversample 4x for the reranker
    candidates: list[Hit] = []
    for h in hits:
        kind = h.metadata.get("kind")
        if kind == "tool_output":
            continue  # logs of past tool calls are not knowledge
        if kinds is not None and kind not in kinds:
            continue
        candidates.append(Hit(kind=kind or "?", subject=h.metadata.get("subject", ""), body=h.content,
                              metadata=h.metadata, distance=float(h.distance)))
    return rerank(eng, query, candidates, top_k=k, content_key="body")


# ------------------------------------------------------------------ keyword
def keyword_expression(eng: Engine, query: str) -> str | None:
    """The engine's full-text query for any user text (operators escaped)."""
    return eng.statements.keyword_expression(query)


def _scope(eng: Engine) -> dict[str, str]:
    """The binds of the engine's scope: its user and agent, and the shared schema knowledge that
    every statement below reads beside them (core/scope.py)."""
    return Scope(eng.user_id, eng.agent_id).binds()


def keyword_search_memories(eng: Engine, query: str, k: int = 5) -> list[Hit]:
    """Full-text search over the knowledge memories of `eng`'s scope and the shared schema
    knowledge, best score first."""
    check_query(query)
    check_k(k, "k", MAX_K)
    kw = keyword_expression(eng, query)
    if kw is None:
        return []
    rows = rows_as(KeywordRow, eng.query(eng.store.sql.KEYWORD_SEARCH, {"kw": kw, "k": k, **_scope(eng)}))
    out: list[Hit] = []
    for row in rows:
        meta = _meta(row.metadata, eng)
        out.append(Hit(record_id=row.record_id, kind=meta.get("kind", "memory"), subject=meta.get("subject", ""),
                       content=eng.backend.read_text(row.content) or "", score_txt=float(row.score_txt)))
    return out


# ------------------------------------------------------------------ hybrid
def hybrid_rrf_search_memories(eng: Engine, query: str, k: int = 5, per_list: int = 30,
                               rrf_k: int = RRF_K) -> list[Hit]:
    """Vector and full-text ranks fused with Reciprocal Rank Fusion, in one SQL statement that
    reads `eng`'s scope and the shared schema knowledge together."""
    check_query(query)
    check_k(k, "k", MAX_K)
    check_k(per_list, "per_list", MAX_PER_LIST)
    check_k(rrf_k, "rrf_k", MAX_K)
    kw = keyword_expression(eng, query) or eng.statements.no_match
    params = {"q": query, "kw": kw, "n": per_list, "rrf_k": rrf_k, "k": k, **_scope(eng)}
    return hybrid_rows(eng, rows_as(HybridRow, eng.query(eng.store.sql.HYBRID_RRF, params)))


HYBRID_COLUMNS = HybridRow._fields  # what a hybrid statement selects, by name, in any order


class MissingColumns(WorkshopError, ValueError):
    """A hybrid statement's rows lack a column hybrid_rows reads by name."""


def hybrid_rows(eng: Engine, rows: Iterable[HybridRow | Mapping[str, Any]]) -> list[Hit]:
    """Shape hybrid rows as hit dicts, reading each column by its name (record_id, content, metadata,
    r_vec, r_txt, rrf_score): rows of the library's statement, or the dicts of retrieval.query_named."""
    out: list[Hit] = []
    for given in rows:
        row = given._asdict() if isinstance(given, HybridRow) else given
        missing = [c for c in HYBRID_COLUMNS if c not in row]
        if missing:
            raise MissingColumns(f"the rows have no column {', '.join(missing)} (your final SELECT names "
                                 f"{', '.join(row) or 'none'})",
                                 fix=f"name every column of the final SELECT as {', '.join(HYBRID_COLUMNS)} "
                                     "(with AS where a column is computed).")
        meta = _meta(row["metadata"], eng)
        out.append(Hit(record_id=row["record_id"], kind=meta.get("kind", "memory"), subject=meta.get("subject", ""),
                       content=(eng.backend.read_text(row["content"]) or "")[:500],
                       r_vec=int(row["r_vec"]), r_txt=int(row["r_txt"]), rrf_score=float(row["rrf_score"])))
    return out


# ------------------------------------------------------------------ the two lists, for checking
def vector_ranked_ids(eng: Engine, query: str, n: int = 30) -> list[str]:
    check_query(query)
    n = check_k(n, "n", MAX_PER_LIST)
    return [r.record_id for r in rows_as(VectorRankRow, eng.query(eng.store.sql.VECTOR_RANKED,
                                                                    {"q": query, "n": n, **_scope(eng)}))]


def keyword_ranked_ids(eng: Engine, query: str, n: int = 30) -> list[str]:
    return [h["record_id"] for h in keyword_search_memories(eng, query, k=n)]


def rrf_fuse(vec_ids: list[str], txt_ids: list[str], k: int = 5, rrf_k: int = RRF_K) -> list[Hit]:
    """Reciprocal Rank Fusion in plain Python, the reference the SQL is checked against."""
    r_vec = {rid: i + 1 for i, rid in enumerate(vec_ids)}
    r_txt = {rid: i + 1 for i, rid in enumerate(txt_ids)}
    fused: list[Hit] = []
    for rid in dict.fromkeys(list(vec_ids) + list(txt_ids)):
        rv, rt = r_vec.get(rid, SENTINEL), r_txt.get(rid, SENTINEL)
        fused.append(Hit(record_id=rid, r_vec=rv, r_txt=rt, rrf_score=1.0 / (rrf_k + rv) + 1.0 / (rrf_k + rt)))
    fused.sort(key=lambda h: (-h["rrf_score"], h["r_vec"], h["r_txt"]))
    return fused[:k]

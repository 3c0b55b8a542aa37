"""Retrieval quality over the scanned SUPPLYCHAIN memories.

Four strategies, each through the library's public functions:

- ``vector``: ``retrieval.retrieve_knowledge`` (cosine search, oversampled 4x, then rerank),
- ``keyword``: ``retrieval.keyword_search_memories`` (full text, BM25),
- ``hybrid``: ``retrieval.hybrid_rrf_search_memories`` (the one-statement SQL RRF),
- ``hybrid+rerank``: hybrid candidates (4x oversampled) through ``retrieval.rerank``.
  The embedded engine has no cross-encoder, so its rerank is a pass-through and this
  row equals ``hybrid`` there; on Oracle it is DBMS_VECTOR.RERANK when a reranker is loaded.

A question is *found at k* when any of its subjects (each one answers it on its own)
is among the top k hits; ``recall@k`` is the share of answerable questions found at k (workshop_lib.parts.evaluation, as in Part 3)
and ``MRR`` the mean of 1/rank of the first answering subject (0 beyond depth 10).
Questions with no answer are reported apart: what came back, and how similar it was.

The SQL fusion is cross-checked against ranx's RRF over the same two ranked lists.
"""
from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workshop_lib.engines.embedded import text_query
from workshop_lib.parts import retrieval
from workshop_lib.parts.evaluation import first_rank, found_at, reciprocal_rank

QUESTIONS_PATH = Path(__file__).with_name("questions.jsonl")
CATEGORIES = ("paraphrase", "exact", "mixed", "natural", "no_answer")
DEPTH = 10          # hits fetched per strategy; MRR is MRR@10
PER_LIST = 30       # candidates per ranked list in the hybrid (the library default)
RRF_K = retrieval.RRF_K
CHECK_K = (5, 10)   # top-k depths compared in the ranx cross-check

# Words that carry no meaning on their own: a "paraphrase" may share these with its
# answer and still count as sharing no words. The full-text stopwords, plus a few more
# function words that the keyword leg keeps but that do not make two texts share a topic.
STOPWORDS = text_query.STOPWORDS | frozenset("any anything could each every may whom would".split())


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    question: str
    subjects: tuple[str, ...]
    note: str = ""

    @property
    def answerable(self) -> bool:
        return bool(self.subjects)


def load_questions(path: Path | str = QUESTIONS_PATH) -> list[Question]:
    """Read and shape-check the question file (one JSON object per line)."""
    out: list[Question] = []
    seen: set[str] = set()
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc})") from None
        missing = {"id", "category", "question", "subjects"} - d.keys()
        if missing:
            raise ValueError(f"{path}:{n}: missing {sorted(missing)}")
        if d["id"] in seen:
            raise ValueError(f"{path}:{n}: duplicate id {d['id']!r}")
        seen.add(d["id"])
        if d["category"] not in CATEGORIES:
            raise ValueError(f"{path}:{n}: category {d['category']!r} is not one of {CATEGORIES}")
        if not isinstance(d["question"], str) or not d["question"].strip():
            raise ValueError(f"{path}:{n}: empty question")
        subjects = d["subjects"]
        if not isinstance(subjects, list) or not all(isinstance(s, str) and s for s in subjects):
            raise ValueError(f"{path}:{n}: subjects must be a list of subject names")
        if (d["category"] == "no_answer") != (not subjects):
            raise ValueError(f"{path}:{n}: no_answer questions, and only they, have no subjects")
        out.append(Question(d["id"], d["category"], d["question"], tuple(subjects), d.get("note", "")))
    return out


@functools.lru_cache(maxsize=1)
def _tokenizer_db():
    import sqlean

    conn = sqlean.connect(":memory:", check_same_thread=False)
    # The same tokenizer as the store's RECORDS_FTS (workshop_lib/engines/embedded/sql.py).
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    return conn


def fts_terms(text: str) -> set[str]:
    """The terms the full-text index makes of `text` (porter-stemmed, lower case)."""
    conn = _tokenizer_db()
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t (x) VALUES (?)", (text,))
    return {row[0] for row in conn.execute("SELECT term FROM v")}


@functools.lru_cache(maxsize=1)
def _stop_terms() -> frozenset[str]:
    return frozenset().union(*(fts_terms(w) for w in STOPWORDS))


def content_terms(text: str) -> set[str]:
    return {t for t in fts_terms(text) if len(t) > 1 and t not in _stop_terms()}


def validate_questions(questions: list[Question], bodies: dict[str, list[str]]) -> list[str]:
    """Problems with the question set against the scanned facts ({subject: [memory text]})."""
    problems = []
    for q in questions:
        for s in q.subjects:
            if s not in bodies:
                problems.append(f"{q.id}: subject {s} is not among the scanned facts")
        if q.category == "paraphrase":
            mine = content_terms(q.question)
            for s in q.subjects:
                shared = mine & set().union(*(content_terms(b) for b in bodies.get(s, [])))
                if shared:
                    problems.append(f"{q.id}: paraphrase shares {sorted(shared)} with {s}")
    if sum(q.answerable for q in questions) < 50 or len(questions) < 60:
        problems.append(f"only {len(questions)} questions; the benchmark wants at least 60")
    return problems


def scanned_bodies(eng) -> dict[str, list[str]]:
    """{subject: [content]} of the scanned schema memories in the engine's scope."""
    out: dict[str, list[str]] = {}
    for rec in eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id):
        meta = rec.metadata or {}
        if str(rec.id).startswith("schema:") and meta.get("subject"):
            out.setdefault(meta["subject"], []).append(rec.content or "")
    return out


# ------------------------------------------------------------------ strategies
def _hybrid_rerank(eng, q: str, k: int) -> list[dict]:
    candidates = retrieval.hybrid_rrf_search_memories(eng, q, k=k * 4, per_list=PER_LIST)
    return retrieval.rerank(eng, q, candidates, top_k=k, content_key="content")


STRATEGIES: dict[str, Callable] = {
    "vector": lambda eng, q, k: retrieval.retrieve_knowledge(eng, q, k=k),
    "keyword": lambda eng, q, k: retrieval.keyword_search_memories(eng, q, k=k),
    "hybrid": lambda eng, q, k: retrieval.hybrid_rrf_search_memories(eng, q, k=k, per_list=PER_LIST),
    "hybrid+rerank": _hybrid_rerank,
}


@dataclass
class QualityResult:
    engine: str
    n_questions: int
    summary: list[dict]                 # one row per strategy
    by_category: list[dict]             # recall@5 per category and strategy
    misses: list[dict]                  # questions missed at 5 by at least one strategy
    no_answer: list[dict]               # what came back for questions with no answer
    gate: dict                          # how well the engine's min_score separates them
    ranx: dict                          # the fusion cross-check
    rerank_note: str
    ranks: dict = field(default_factory=dict)   # {strategy: {qid: rank or None}}


def run_quality(eng, questions: list[Question], *, progress: bool = False) -> QualityResult:
    from tqdm.auto import tqdm

    hits: dict[str, dict[str, list[dict]]] = {name: {} for name in STRATEGIES}
    for q in tqdm(questions, desc="quality: questions", disable=not progress, leave=False):
        for name, fn in STRATEGIES.items():
            hits[name][q.id] = fn(eng, q.question, DEPTH)

    answerable = [q for q in questions if q.answerable]
    ranks = {name: {q.id: first_rank([h["subject"] for h in hits[name][q.id]], q.subjects) for q in answerable}
             for name in STRATEGIES}

    summary = [{"strategy": name, "questions": len(answerable), **_metrics(ranks[name], answerable)}
               for name in STRATEGIES]
    no_answer = [_no_answer_row(q, hits) for q in questions if not q.answerable]
    return QualityResult(eng.name, len(questions), summary, _by_category(ranks, answerable), _misses(answerable, ranks, hits), no_answer,
                         _gate(eng, answerable, hits, no_answer),
                         ranx_crosscheck(eng, [q.question for q in questions]), _rerank_note(eng, questions, hits), ranks)


def _metrics(ranks: dict[str, int | None], qs: list[Question]) -> dict:
    """recall@1, recall@5 and MRR of one strategy over some questions, from the rank of their first hit."""
    rs = [ranks[q.id] for q in qs]
    n = max(len(rs), 1)
    return {"recall@1": sum(found_at(r, 1) for r in rs) / n,
            "recall@5": sum(found_at(r, 5) for r in rs) / n,
            "MRR": sum(reciprocal_rank(r) for r in rs) / n}


def _by_category(ranks: dict, answerable: list[Question]) -> list[dict]:
    """Each strategy's recall@5 per category of question (categories with no question left out)."""
    by_category = []
    for cat in CATEGORIES:
        qs = [q for q in answerable if q.category == cat]
        if qs:
            by_category.append({"category": cat, "questions": len(qs),
                                **{name: _metrics(ranks[name], qs)["recall@5"] for name in STRATEGIES}})
    return by_category


def _misses(answerable: list[Question], ranks: dict, hits: dict) -> list[dict]:
    """The answerable questions some strategy does not answer in its top 5, with every strategy's rank."""
    misses = []
    for q in answerable:
        row_ranks = {name: ranks[name][q.id] for name in STRATEGIES}
        if any(r is None or r > 5 for r in row_ranks.values()):
            misses.append({"id": q.id, "category": q.category, "question": q.question,
                           "expected": ", ".join(_short(s) for s in q.subjects),
                           **{name: row_ranks[name] for name in STRATEGIES},
                           "hybrid top-1": _short(hits["hybrid"][q.id][0]["subject"]) if hits["hybrid"][q.id] else "-"})
    return misses


def _no_answer_row(q: Question, hits: dict) -> dict:
    """What each strategy returned for a question the knowledge does not answer."""
    v, kw, hy = hits["vector"][q.id], hits["keyword"][q.id], hits["hybrid"][q.id]
    return {
        "id": q.id, "question": q.question,
        "vector best sim": round(1.0 - v[0]["distance"], 3) if v else None,
        "vector top-1": _short(v[0]["subject"]) if v else "-",
        "keyword hits": len(kw),
        "keyword top-1": f"{_short(kw[0]['subject'])} ({kw[0]['score_txt']:.2f})" if kw else "-",
        "hybrid top-1": (f"{_short(hy[0]['subject'])} (r_vec={hy[0]['r_vec']}, r_txt={_rank(hy[0]['r_txt'])})"
                         if hy else "-"),
    }


def _gate(eng, answerable: list[Question], hits: dict, no_answer: list[dict]) -> dict:
    """How the engine's min_score separates the answerable questions' best similarity from the others'."""
    min_score = float(eng.model.thresholds.min_score)
    best_ans = [1.0 - hits["vector"][q.id][0]["distance"] for q in answerable if hits["vector"][q.id]]
    best_none = [r["vector best sim"] for r in no_answer if r["vector best sim"] is not None]
    return {
        "min_score": min_score,
        "answerable_median_best_sim": _median(best_ans),
        "no_answer_median_best_sim": _median(best_none),
        "answerable_kept": sum(s >= min_score for s in best_ans) / max(len(best_ans), 1),
        "no_answer_gated": sum(s < min_score for s in best_none) / max(len(best_none), 1),
        "no_answer_with_keyword_hits": sum(r["keyword hits"] > 0 for r in no_answer),
        "n_no_answer": len(no_answer),
    }


def _rerank_note(eng, questions: list[Question], hits: dict) -> str:
    """Whether hybrid+rerank changed hybrid's top 5 on any question, and why on the embedded engine."""
    same = all([h["record_id"] for h in hits["hybrid+rerank"][q.id][:5]] ==
               [h["record_id"] for h in hits["hybrid"][q.id][:5]] for q in questions)
    if eng.name == "embedded":
        return ("The embedded engine ships no cross-encoder: rerank is a pass-through, so "
                f"hybrid+rerank {'equals' if same else 'DIFFERS FROM'} hybrid on every question.")
    return (f"rerank on {eng.name}: hybrid+rerank "
            f"{'equals hybrid (no reranker loaded?)' if same else 'reorders hybrid candidates'}.")


def _short(subject: str) -> str:
    return subject.replace("SUPPLYCHAIN.", "")


def _rank(r: int) -> str:
    return "-" if r >= retrieval.SENTINEL else str(r)


def _median(xs: list[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    mid = len(s) // 2
    return round(s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2, 3)


# ------------------------------------------------------------------ the fusion cross-check
def ranx_crosscheck(eng, queries: list[str], *, k: int = max(CHECK_K), per_list: int = PER_LIST,
                    rrf_k: int = RRF_K, hybrid: Callable | None = None,
                    vector_ids: Callable | None = None) -> dict:
    """SQL RRF vs ranx's RRF (fuse(method="rrf", params={"k": rrf_k}), norm=None) over
    the same two ranked lists, for every query.

    Each list enters ranx with score per_list + 1 - rank (strictly decreasing, so ranx
    derives the same 1-based ranks). ranx sums 1/(k + rank) over the lists a document is
    in; the SQL adds 1/(k + SENTINEL) for a missing rank, a ~1e-6 constant, so scores are
    compared after removing it. The SQL breaks score ties by (r_vec, r_txt); ranx does not
    define an order among equal scores, so its hits are ordered by (-score, r_vec, r_txt)
    for the top-k comparison, and ties that straddle the cut-off are counted.
    """
    from ranx import Run, fuse

    hybrid = hybrid or (lambda q, kk: retrieval.hybrid_rrf_search_memories(eng, q, k=kk, per_list=per_list, rrf_k=rrf_k))
    vector_ids = vector_ids or (lambda q: retrieval.vector_ranked_ids(eng, q, per_list))
    vec_lists, txt_lists, sql_hits = {}, {}, {}
    for i, q in enumerate(queries):
        qid = f"q{i}"
        vec_lists[qid] = vector_ids(q)
        txt_lists[qid] = retrieval.keyword_ranked_ids(eng, q, per_list)
        sql_hits[qid] = hybrid(q, k)

    def run(lists: dict[str, list[str]], name: str) -> Run:
        return Run({qid: {rid: float(per_list + 1 - r) for r, rid in enumerate(ids, start=1)}
                    for qid, ids in lists.items()}, name=name)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba type-safety chatter inside ranx
        fused = fuse(runs=[run(vec_lists, "vector"), run(txt_lists, "keyword")], norm=None,
                     method="rrf", params={"k": rrf_k}).to_dict()

    report = {"queries": len(queries), "per_list": per_list, "rrf_k": rrf_k, "max_score_diff": 0.0,
              "library_rrf_fuse_agrees": 0}
    for cut in CHECK_K:
        report[f"top{cut}_identical"] = 0
        report[f"top{cut}_ties_at_cut"] = 0
        report[f"top{cut}_raw_ranx_order_identical"] = 0
    disagreements: list[dict] = []
    for i, q in enumerate(queries):
        qid = f"q{i}"
        _compare_query(report, disagreements, q, vec_lists[qid], txt_lists[qid], fused.get(qid, {}), sql_hits[qid],
                       k=k, rrf_k=rrf_k)
    report["agree"] = (all(report[f"top{cut}_identical"] == len(queries) for cut in CHECK_K)
                       and report["max_score_diff"] < 1e-9)
    report["disagreements"] = disagreements[:10]
    return report


def _compare_query(report: dict, disagreements: list[dict], q: str, vec: list[str], txt: list[str],
                   scores: dict[str, float], sql: list[dict], *, k: int, rrf_k: int) -> None:
    """One query's SQL hits against ranx's fused scores and the library's rrf_fuse, counted into `report`."""
    rv = {rid: r for r, rid in enumerate(vec, start=1)}
    rt = {rid: r for r, rid in enumerate(txt, start=1)}
    ordered = sorted(scores, key=lambda rid: (-scores[rid], rv.get(rid, retrieval.SENTINEL),
                                              rt.get(rid, retrieval.SENTINEL)))
    raw = sorted(scores, key=lambda rid: -scores[rid])  # stable: ranx's own order among ties
    eps = 1.0 / (rrf_k + retrieval.SENTINEL)
    for h in sql:
        expected = scores.get(h["record_id"])
        if expected is None:
            report["max_score_diff"] = float("inf")
            continue
        own = h["rrf_score"] - eps * ((h["r_vec"] >= retrieval.SENTINEL) + (h["r_txt"] >= retrieval.SENTINEL))
        report["max_score_diff"] = max(report["max_score_diff"], abs(own - expected))
    sql_ids = [h["record_id"] for h in sql]
    reference = [h["record_id"] for h in retrieval.rrf_fuse(vec, txt, k=k, rrf_k=rrf_k)]
    report["library_rrf_fuse_agrees"] += reference == sql_ids
    for cut in CHECK_K:
        ok = sql_ids[:cut] == ordered[:cut]
        report[f"top{cut}_identical"] += ok
        report[f"top{cut}_raw_ranx_order_identical"] += sql_ids[:cut] == raw[:cut]
        if len(ordered) > cut and abs(scores[ordered[cut - 1]] - scores[ordered[cut]]) < 1e-15:
            report[f"top{cut}_ties_at_cut"] += 1
        if not ok:
            disagreements.append({"query": q, "cut": cut, "sql": sql_ids[:cut], "ranx": ordered[:cut]})

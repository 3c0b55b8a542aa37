"""Ingest throughput and search latency at growing memory counts.

One temporary store grows through the sizes (1k -> 10k -> 100k): each step adds the
missing synthetic memories through the real store (``eng.store.add`` in batches, in the
engine's user/agent scope, record type ``memory``, metadata kind/subject), embedding
included, and then times, side by side and interleaved, for a fixed set of queries:

- ours: the library as it is: ``retrieve_knowledge`` (vector), ``keyword_search_memories``
  (keyword), ``hybrid_rrf_search_memories`` (hybrid, the one-statement SQL), plus the
  hybrid's two legs on their own (``vector_ranked_ids``, the vec0 KNN, and
  ``keyword_ranked_ids``, both at ``per_list``);
- the floor: exact cosine top-k over the same vectors in a numpy array (no database),
  query embedding included;
- the usual alternative: both retrievals in Python, fused in Python the way LangChain's
  EnsembleRetriever does (weighted RRF, c=60, equal weights): rank_bm25's BM25Okapi (what
  LangChain's BM25Retriever uses) + numpy cosine; and the same with bm25s, a much faster
  BM25, when it is installed;
- on the embedded engine, from ``bench/variants.py``: "before", the hybrid statement as it
  was before the vec0 change, and a numpy-KNN prototype (not used by the library).

Warm-up: every method runs a few queries before timing. Measurement: ``rounds`` passes
over the queries; for each query the methods run in a freshly shuffled (seeded) order, so
no method always runs first (cold), last, or after the same neighbour. Figures are p50 / p95 over all samples.
"""
from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from workshop_lib.parts import retrieval

from . import synth, variants

K = 5
PER_LIST = 30
RRF_C = 60
BATCH = 1_000


def _tokens(text: str) -> list[str]:
    # Lower-cased word tokens: what a BM25 retriever is usually fed (no stemming).
    return re.findall(r"\w+", text.lower())


@dataclass
class Snapshot:
    """The knowledge memories as the floor and the alternative see them."""
    ids: list[str]
    texts: list[str]
    matrix: np.ndarray       # (n, dim) float32, unit rows


def knowledge_snapshot(eng) -> Snapshot:
    """Vectors and texts of the memories knowledge retrieval searches (this scope, not tool output)."""
    if eng.name == "embedded":
        p = eng.store.prefix
        rows = eng.query(
            f"""SELECT m.record_id, m.content, c.embedding
                  FROM {p}RECORDS m JOIN {p}RECORD_CHUNKS c ON c.record_seq = m.seq
                 WHERE m.user_id = :u AND m.agent_id = :a AND m.record_type = 'memory'
                   AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'
                 ORDER BY m.seq""", {"u": eng.user_id, "a": eng.agent_id})
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return Snapshot([r[0] for r in rows], [r[1] or "" for r in rows], matrix.copy())
    recs = [r for r in eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id)
            if (r.metadata or {}).get("kind") != "tool_output" and r.content]
    texts = [r.content for r in recs]
    vecs = []
    for i in range(0, len(texts), BATCH):
        vecs.append(np.asarray(eng.model.embed(texts[i:i + BATCH]), dtype=np.float32))
    matrix = np.vstack(vecs) if vecs else np.zeros((0, eng.model.dim), dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return Snapshot([r.id for r in recs], texts, matrix)


def _query_embedder(eng) -> Callable[[str], np.ndarray]:
    if eng.name == "embedded":
        from workshop_lib.engines.embedded import embedder

        return lambda q: embedder.embed([q])[0]

    def embed(q: str) -> np.ndarray:
        v = np.asarray(eng.model.embed([q])[0], dtype=np.float32)
        return v / max(float(np.linalg.norm(v)), 1e-12)

    return embed


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, best first (ties by index, like ORDER BY ..., seq)."""
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))]


def ensemble_rrf(lists: list[list[str]], k: int, weights: list[float] | None = None, c: int = RRF_C) -> list[str]:
    """LangChain EnsembleRetriever's weighted reciprocal rank fusion, on id lists."""
    weights = weights or [1.0 / len(lists)] * len(lists)
    scores: dict[str, float] = {}
    for w, ids in zip(weights, lists):
        for rank, rid in enumerate(ids, start=1):
            scores[rid] = scores.get(rid, 0.0) + w / (rank + c)
    return sorted(scores, key=lambda rid: -scores[rid])[:k]


class Baselines:
    """The floor and the Python alternatives over one snapshot."""

    def __init__(self, eng, snap: Snapshot) -> None:
        self.snap = snap
        self.embed = _query_embedder(eng)
        t0 = time.perf_counter()
        corpus = [_tokens(t) for t in snap.texts]
        self.build_s = {"tokenize": time.perf_counter() - t0}
        from rank_bm25 import BM25Okapi

        t0 = time.perf_counter()
        self.bm25 = BM25Okapi(corpus) if corpus else None
        self.build_s["rank_bm25 index"] = time.perf_counter() - t0
        try:
            import logging

            import bm25s

            logging.getLogger("bm25s").setLevel(logging.WARNING)
        except ImportError:  # optional: the fast alternative is skipped
            self.bm25s = None
        else:
            t0 = time.perf_counter()
            self.bm25s = bm25s.BM25()
            self.bm25s.index(corpus, show_progress=False)
            self.build_s["bm25s index"] = time.perf_counter() - t0

    # the floor
    def cosines(self, q: str, ids: list[str]) -> np.ndarray:
        """Cosine similarity of the query to the given memories (for checking, not timed)."""
        if not hasattr(self, "_row"):
            self._row = {rid: i for i, rid in enumerate(self.snap.ids)}
        return self.snap.matrix[[self._row[i] for i in ids]] @ self.embed(q)

    def vector(self, q: str, k: int = K) -> list[str]:
        scores = self.snap.matrix @ self.embed(q)
        return [self.snap.ids[i] for i in _top(scores, k)]

    def keyword(self, q: str, k: int = K) -> list[str]:
        scores = self.bm25.get_scores(_tokens(q))
        idx = [i for i in _top(scores, k) if scores[i] > 0]
        return [self.snap.ids[i] for i in idx]

    def keyword_fast(self, q: str, k: int = K) -> list[str]:
        toks = [t for t in _tokens(q) if t in self.bm25s.vocab_dict]
        if not toks:
            return []
        scores = self.bm25s.get_scores(toks)
        return [self.snap.ids[i] for i in _top(scores, k) if scores[i] > 0]

    def hybrid(self, q: str, k: int = K) -> list[str]:
        return ensemble_rrf([self.vector(q, PER_LIST), self.keyword(q, PER_LIST)], k)

    def hybrid_fast(self, q: str, k: int = K) -> list[str]:
        return ensemble_rrf([self.vector(q, PER_LIST), self.keyword_fast(q, PER_LIST)], k)


@dataclass
class SizeResult:
    n: int
    knowledge: int
    ingest_s: float
    ingested: int
    latency: dict[str, dict[str, float]]          # method -> {p50, p95, mean} in ms
    samples: int
    build_s: dict[str, float] = field(default_factory=dict)
    agree: dict[str, str] = field(default_factory=dict)
    fts_matches: dict[str, float] = field(default_factory=dict)   # rows the keyword MATCH hits per query

    @property
    def ingest_rate(self) -> float:
        return self.ingested / self.ingest_s if self.ingest_s else float("nan")


def grow(eng, start: int, stop: int, *, progress: bool = False) -> float:
    """Add synthetic memories [start, stop) through the store; returns seconds taken."""
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    for s in tqdm(range(start, stop, BATCH), desc=f"ingest {start:,}->{stop:,}", disable=not progress,
                  leave=False, unit="batch"):
        batch = list(synth.memories(s, min(stop, s + BATCH)))
        eng.store.add([m.text for m in batch], record_type="memory", record_ids=[m.record_id for m in batch],
                      metadata=[m.metadata for m in batch], user_ids=eng.user_id, agent_ids=eng.agent_id)
    return time.perf_counter() - t0


BEFORE = "before hybrid (pre-vec0 exact scan)"
PROTOTYPE = "prototype hybrid (numpy knn, not in library)"


def methods_for(eng, base: Baselines, *, with_variants: bool,
                knn: variants.NumpyKnn | None = None) -> dict[str, Callable[[str], object]]:
    m: dict[str, Callable[[str], object]] = {
        "ours vector": lambda q: retrieval.retrieve_knowledge(eng, q, k=K),
        "ours keyword": lambda q: retrieval.keyword_search_memories(eng, q, k=K),
        "ours hybrid": lambda q: retrieval.hybrid_rrf_search_memories(eng, q, k=K, per_list=PER_LIST),
        "ours vector leg": lambda q: retrieval.vector_ranked_ids(eng, q, PER_LIST),
        "ours keyword leg": lambda q: retrieval.keyword_ranked_ids(eng, q, PER_LIST),
        "floor vector": lambda q: base.vector(q, K),
        "alt keyword": lambda q: base.keyword(q, K),
        "alt hybrid": lambda q: base.hybrid(q, K),
    }
    if base.bm25s is not None:
        m["alt-fast keyword"] = lambda q: base.keyword_fast(q, K)
        m["alt-fast hybrid"] = lambda q: base.hybrid_fast(q, K)
    if with_variants:
        m[BEFORE] = lambda q: variants.hybrid(eng, q, variants.PRE_VEC0_HYBRID_RRF, k=K, per_list=PER_LIST)
        proto = variants.prototype_hybrid_sql()
        if proto is not None and knn is not None:
            m[PROTOTYPE] = lambda q: variants.hybrid(eng, q, proto, k=K, per_list=PER_LIST, knn=knn)
    return m


def measure(methods: dict[str, Callable], queries: list[str], rounds: int, *, warmup: int = 3,
            progress: bool = False, desc: str = "latency",
            outputs: dict[str, dict[str, object]] | None = None) -> dict[str, list[float]]:
    """Interleaved timing: per query, all methods, in a freshly shuffled order (seeded), so
    no method always runs first, last, or right after the same neighbour (whose work
    would leave its caches warm or cold)."""
    import random

    from tqdm.auto import tqdm

    names = list(methods)
    for q in queries[:warmup]:
        for name in names:
            methods[name](q)
    samples: dict[str, list[float]] = {name: [] for name in names}
    total = rounds * len(queries)
    with tqdm(total=total, desc=desc, disable=not progress, leave=False, unit="query") as bar:
        rng = random.Random(20250602)
        for r in range(rounds):
            for q in queries:
                order = names[:]
                rng.shuffle(order)
                for name in order:
                    t0 = time.perf_counter()
                    got = methods[name](q)
                    samples[name].append((time.perf_counter() - t0) * 1000.0)
                    if outputs is not None and r == 0:
                        outputs.setdefault(name, {})[q] = got
                bar.update(1)
    return samples


def _stats(xs: list[float]) -> dict[str, float]:
    return {"p50": float(np.percentile(xs, 50)), "p95": float(np.percentile(xs, 95)),
            "mean": statistics.fmean(xs)}


def _ids(hits) -> list[str]:
    return [h["record_id"] if isinstance(h, dict) else h for h in hits]


def check_agreement(outputs: dict[str, dict[str, object]], queries: list[str], base: Baselines) -> dict[str, str]:
    """Same answers? (first timed round) The other hybrid statements vs the library's, and
    the library's vec0 vector leg vs the numpy floor's exact top-per_list over the same vectors
    (lists that differ only in the order or choice among equal distances count as same distances)."""
    out = {}
    lib = outputs["ours hybrid"]
    for name in (BEFORE, PROTOTYPE):
        if name in outputs:
            same = sum(_ids(outputs[name][q]) == _ids(lib[q]) for q in queries)
            out[name.split(" (")[0] + " vs ours hybrid"] = f"{same}/{len(queries)} identical top-{K}"
    leg = outputs["ours vector leg"]
    floor = {q: base.vector(q, PER_LIST) for q in queries}
    same = sum(leg[q] == floor[q] for q in queries)
    same_dist = sum(len(leg[q]) == len(floor[q]) and np.allclose(base.cosines(q, leg[q]), base.cosines(q, floor[q]),
                                                                 atol=1e-5) for q in queries)
    overlap = statistics.fmean(len(set(leg[q]) & set(floor[q])) / max(len(floor[q]), 1) for q in queries)
    out["ours vector leg vs floor"] = (f"{same}/{len(queries)} identical top-{PER_LIST} id lists, "
                                       f"{same_dist}/{len(queries)} same distances rank by rank (id overlap "
                                       f"{overlap:.3f})")
    return out


def fts_match_counts(eng, queries: list[str]) -> dict[str, float]:
    """How many rows each query's full-text expression matches (all of them get a bm25 score)."""
    if eng.name != "embedded":
        return {}
    p = eng.store.prefix
    counts = []
    for q in queries:
        kw = retrieval.keyword_expression(eng, q)
        counts.append(eng.query(f"SELECT count(*) FROM {p}RECORDS_FTS WHERE {p}RECORDS_FTS MATCH :kw",
                                {"kw": kw})[0][0] if kw else 0)
    return {"median": float(np.median(counts)), "p95": float(np.percentile(counts, 95)), "max": float(max(counts))}


@dataclass
class SpeedResult:
    engine: str
    sizes: list[SizeResult]
    queries: int
    rounds: list[int]
    vec_build_flags: str = ""   # sqlite-vec's vec_debug() build flags, e.g. "avx rescore diskann"


def run_speed(eng, queries: list[str], sizes: list[int], *, rounds: list[int] | int = 3,
              with_variants: bool | None = None, progress: bool = False) -> SpeedResult:
    """Grow eng's store through `sizes` and time every method at each size."""
    if with_variants is None:
        with_variants = eng.name == "embedded"
    if isinstance(rounds, int):
        rounds = [rounds] * len(sizes)
    results: list[SizeResult] = []
    have = 0
    eng.model.embed(["load the embedding model before anything is timed"])
    for n, r in zip(sizes, rounds):
        ingest_s = grow(eng, have, n, progress=progress)
        ingested, have = n - have, n
        snap = knowledge_snapshot(eng)
        base = Baselines(eng, snap)
        build = dict(base.build_s)
        knn = None
        if with_variants:
            t0 = time.perf_counter()
            knn = variants.install_numpy_knn(eng)
            build["prototype numpy snapshot"] = time.perf_counter() - t0
        outputs: dict[str, dict[str, object]] = {}
        samples = measure(methods_for(eng, base, with_variants=with_variants, knn=knn), queries, r,
                          progress=progress, desc=f"latency @ {n:,}", outputs=outputs)
        agree = check_agreement(outputs, queries, base)
        results.append(SizeResult(n, len(snap.ids), ingest_s, ingested,
                                  {name: _stats(xs) for name, xs in samples.items()},
                                  len(queries) * r, build, agree, fts_match_counts(eng, queries)))
    return SpeedResult(eng.name, results, len(queries), list(rounds))

"""Markdown summary and figures for a benchmark run."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from workshop_lib.engines.portable_sql import SENTINEL

from .quality import QualityResult
from .speed import BEFORE, PROTOTYPE, SpeedResult

TARGET_RATIO = 5.0  # the goal: hybrid at 100k within 5x the numpy floor


def table(rows: list[dict], columns: list[str] | None = None, fmt: dict | None = None) -> str:
    """A markdown table (pandas + tabulate); `fmt` maps a column to a formatter, None shows as '-'."""
    if not rows:
        return "_(none)_\n"
    columns = columns or list(rows[0])
    fmt = fmt or {}

    def cell(col, value):
        if value is None:
            return "-"
        if col in fmt:
            return fmt[col](value)
        if isinstance(value, float):
            return f"{value:.3f}"
        return str(value).replace("|", "\\|")

    frame = pd.DataFrame([[cell(c, r.get(c)) for c in columns] for r in rows], columns=columns)
    return frame.to_markdown(index=False, disable_numparse=True) + "\n"


def _ms(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _x(x: float) -> str:
    return f"{x:.1f}x" if x < 100 else f"{x:.0f}x"


# ------------------------------------------------------------------ quality
def quality_markdown(q: QualityResult) -> str:
    out = ["## Quality\n",
           f"{q.n_questions} questions ({sum(r['questions'] for r in q.by_category)} answerable, "
           f"{len(q.no_answer)} with no answer) over the scanned SUPPLYCHAIN memories. "
           "Found at k = any subject that answers the question is in the top k; MRR is MRR@10.\n",
           table(q.summary, ["strategy", "questions", "recall@1", "recall@5", "MRR"]),
           f"\n{q.rerank_note}\n",
           "\n### recall@5 by question category\n",
           table(q.by_category),
           "\n### Fusion cross-check: SQL RRF vs ranx RRF (k=60) on the same two lists\n"]
    r = q.ranx
    verdict = "AGREE" if r["agree"] else "DISAGREE"
    out.append(
        f"**{verdict}** on {r['queries']} queries (per_list={r['per_list']}): top-5 ids identical for "
        f"{r['top5_identical']}/{r['queries']}, top-10 for {r['top10_identical']}/{r['queries']}; largest "
        f"score difference {r['max_score_diff']:.1e} after removing the SQL's 1/(k+{SENTINEL}) sentinel term "
        "(ranx adds nothing for a missing rank). "
        f"The library's own `rrf_fuse` agrees on {r['library_rrf_fuse_agrees']}/{r['queries']}. "
        f"Ties: {r['top5_ties_at_cut']} queries have equal scores across the top-5 cut-off; ranx leaves the "
        "order of equal scores undefined, so ids are compared with ties ordered the SQL's way "
        f"(r_vec, then r_txt). In ranx's own dict order the top-5 matches on {r['top5_raw_ranx_order_identical']}"
        f"/{r['queries']} (the rest differ only inside tied groups).\n")
    if r["disagreements"]:
        out.append(table(r["disagreements"]))
    g = q.gate
    out += ["\n### Questions with no answer\n",
            table(q.no_answer),
            f"\nVector best similarity (1 - cosine distance): median {g['answerable_median_best_sim']} for "
            f"answerable questions vs {g['no_answer_median_best_sim']} for unanswerable ones. The engine's "
            f"min_score={g['min_score']} gates {g['no_answer_gated']:.0%} of the unanswerable questions but keeps "
            f"the best hit of only {g['answerable_kept']:.0%} of the answerable ones. Keyword search returns "
            f"something for {g['no_answer_with_keyword_hits']}/{g['n_no_answer']} unanswerable questions, and "
            "hybrid always returns k hits: neither ranking says 'no answer' by itself.\n",
            "\n### Misses (answering subject not in the top 5 of at least one strategy; rank shown, - = not in top 10)\n",
            table(q.misses)]
    return "\n".join(out)


# ------------------------------------------------------------------ speed
OURS = [("vector", "ours vector", "floor vector", "floor vector"),
        ("keyword", "ours keyword", "alt keyword", "alt-fast keyword"),
        ("hybrid", "ours hybrid", "alt hybrid", "alt-fast hybrid")]


def kernel(build_flags: str) -> str:
    """How this sqlite-vec build computes the L2 distances of the vec0 scan."""
    simd = " ".join(f.upper() for f in build_flags.split() if f in ("avx", "neon"))
    return f"{simd} L2 loop" if simd else "scalar L2 loop, no SIMD in this build"


def bound(size, search: str, build_flags: str) -> str:
    """What the library's time is made of, in words and in this run's numbers."""
    lat = size.latency
    if search == "vector":
        return (f"retrieve_knowledge -> store.search -> SEARCH_SCOPED_KNN: vec0 exact KNN ({kernel(build_flags)}) in the "
                f"scope's partition, k = 4x the asked k (the vec0 leg alone at per_list: "
                f"{_ms(lat['ours vector leg']['p50'])} ms)")
    if search == "keyword":
        m = size.fts_matches
        rows = f": median {m['median']:,.0f}, p95 {m['p95']:,.0f} rows per query" if m else ""
        return f"FTS5 computes bm25() for every row matching any OR term{rows}"
    return (f"vec0 exact KNN ({kernel(build_flags)}) over the scope partition ({_ms(lat['ours vector leg']['p50'])} ms) "
            f"+ FTS leg at per_list ({_ms(lat['ours keyword leg']['p50'])} ms)")


def ratio_rows(s: SpeedResult) -> list[dict]:
    rows = []
    for size in s.sizes:
        lat = size.latency
        floor = lat["floor vector"]["p50"]
        for label, ours, alt, fast in OURS:
            row = {"memories": f"{size.n:,}", "search": label,
                   "ours p50 ms": lat[ours]["p50"], "ours p95 ms": lat[ours]["p95"],
                   "floor p50 ms": floor, "ours/floor": lat[ours]["p50"] / floor,
                   "alt p50 ms": lat[alt]["p50"], "ours/alt": lat[ours]["p50"] / lat[alt]["p50"]}
            if fast in lat:
                row["alt-fast p50 ms"] = lat[fast]["p50"]
                row["ours/alt-fast"] = lat[ours]["p50"] / lat[fast]["p50"]
            row["bounded by"] = bound(size, label, s.vec_build_flags) if "ours vector leg" in lat else None
            rows.append(row)
    return rows


def before_after_rows(s: SpeedResult) -> list[dict]:
    rows = []
    for size in s.sizes:
        lat = size.latency
        if BEFORE not in lat:
            continue
        floor = lat["floor vector"]
        for name in (BEFORE, "ours hybrid", PROTOTYPE):
            if name in lat:
                rows.append({"memories": f"{size.n:,}", "statement": name,
                             "p50 ms": lat[name]["p50"], "p95 ms": lat[name]["p95"],
                             "p50 / floor p50": lat[name]["p50"] / floor["p50"],
                             "p95 / floor p95": lat[name]["p95"] / floor["p95"],
                             "vs before (p50)": lat[BEFORE]["p50"] / lat[name]["p50"]})
    return rows


def speed_markdown(s: SpeedResult) -> str:
    fmt_ms = {c: _ms for c in ("ours p50 ms", "ours p95 ms", "floor p50 ms", "alt p50 ms", "alt-fast p50 ms",
                               "p50 ms", "p95 ms")}
    fmt_x = {c: _x for c in ("ours/floor", "ours/alt", "ours/alt-fast", "p50 / floor p50", "p95 / floor p95")}
    fmt_x["vs before (p50)"] = lambda v: "-" if abs(v - 1) < 1e-9 else (
        f"{v:.1f}x faster" if v >= 1 else f"{1 / v:.1f}x slower")
    ingest = [{"memories": f"{z.n:,}", "added": f"{z.ingested:,}", "seconds": z.ingest_s,
               "memories/s": z.ingest_rate, "knowledge (searched)": f"{z.knowledge:,}",
               "timed queries x rounds": z.samples,
               **{f"build {k} s": v for k, v in z.build_s.items()}} for z in s.sizes]
    out = ["## Speed\n",
           f"Engine `{s.engine}`. {s.queries} fixed queries, rounds per size {s.rounds}, methods interleaved "
           "(shuffled order per query) after a warm-up. k=5, per_list=30. **Ours** = the library as it is "
           "(`retrieve_knowledge`, `keyword_search_memories`, `hybrid_rrf_search_memories`; on the embedded "
           "engine the hybrid's vector leg is the sqlite-vec vec0 index of workshop_lib/engines/embedded/sql.py). "
           "**Floor** = exact numpy cosine top-k over the same vectors (query embedding included; BLAS threads "
           "as in the table above). **Alt** = Python BM25 (rank_bm25, as LangChain's BM25Retriever) + numpy "
           "cosine, fused with EnsembleRetriever-style RRF; for vector search the alternative is the numpy "
           "floor itself; **alt-fast** = the same with bm25s. The floor and the alternatives search a "
           "pre-filtered in-memory copy of the knowledge memories; ours filters scope and tool output at "
           "query time, in the database.\n",
           "\n### Ingest (through `eng.store.add`, batches of 1,000, embedding and the vec0/FTS triggers included)\n",
           table(ingest, fmt={"seconds": lambda v: f"{v:.1f}", "memories/s": lambda v: f"{v:,.0f}",
                              **{f"build {k} s": (lambda v: f"{v:.2f}") for z in s.sizes for k in z.build_s}}),
           "\n### Latency and ratios (measured side by side in the same run)\n",
           "Ratios are p50 over p50; x > 1 means ours is slower.\n",
           table(ratio_rows(s), fmt={**fmt_ms, **fmt_x})]
    ba = before_after_rows(s)
    if ba:
        out += ["\n### Hybrid before/after the vec0 change, same run, same store\n",
                "before = HYBRID_RRF as it was before commit e2acd02 (exact scan of every knowledge memory, "
                "full ROW_NUMBER, kept in bench/variants.py for this row only); after = the library's statement "
                "(top-n before ROW_NUMBER, vector leg on the vec0 index). The prototype swaps the library's vec0 "
                "leg for a numpy KNN over an in-memory snapshot: not used by the library, it only shows what the "
                "statement costs when its vector leg costs what the floor costs.\n",
                table(ba, fmt={**fmt_ms, **fmt_x})]
    agree = [{"memories": f"{z.n:,}", **z.agree} for z in s.sizes if z.agree]
    if agree:
        out += ["\nSame answers:\n", table(agree)]
    out += ["\n### Target check\n", target_check(s)]
    all_rows = []
    for size in s.sizes:
        for name, st in size.latency.items():
            all_rows.append({"memories": f"{size.n:,}", "method": name, "p50 ms": st["p50"], "p95 ms": st["p95"],
                             "mean ms": st["mean"]})
    out += ["\n### Every method\n", table(all_rows, fmt={"p50 ms": _ms, "p95 ms": _ms, "mean ms": _ms})]
    return "\n".join(out)


def target_check(s: SpeedResult) -> str:
    big = s.sizes[-1]
    lat = big.latency
    floor = lat["floor vector"]
    lines = []
    if big.n < 100_000:
        lines.append(f"- The goal is set at 100,000 memories; this run's largest size is {big.n:,}, so the lines "
                     "below are indicative only.")
    for name in ("ours hybrid", BEFORE, PROTOTYPE):
        if name in lat:
            r50, r95 = lat[name]["p50"] / floor["p50"], lat[name]["p95"] / floor["p95"]
            ok = "meets" if r50 <= TARGET_RATIO else "misses"
            lines.append(f"- {name} at {big.n:,}: p50 {_x(r50)} / p95 {_x(r95)} the floor: **{ok}** the "
                         f"{TARGET_RATIO:.0f}x goal (p50).")
    if "ours vector leg" in lat:
        vleg, kleg = lat["ours vector leg"], lat["ours keyword leg"]
        lines.append(
            f"- What bounds ours hybrid at {big.n:,} (p50): its vec0 vector leg alone takes {_ms(vleg['p50'])} ms "
            f"= {_x(vleg['p50'] / floor['p50'])} the floor ({_ms(floor['p50'])} ms): an exact scan of every "
            f"vector in the scope partition by sqlite-vec's {kernel(s.vec_build_flags)}, against numpy's BLAS "
            "matrix-vector product (sqlite-vec 0.1.9 has no approximate index; the DiskANN and IVF indexes "
            f"of 0.1.10a4 refuse partition keys). The FTS leg adds {_ms(kleg['p50'])} ms (p95 "
            f"{_ms(kleg['p95'])} ms): FTS5 scores every row that matches any OR term. The two legs timed on "
            f"their own add up to {_ms(vleg['p50'] + kleg['p50'])} ms of the statement's "
            f"{_ms(lat['ours hybrid']['p50'])} ms; the fusion itself costs little.")
        if PROTOTYPE in lat:
            lines.append(
                f"- With the vector leg at floor cost (the numpy prototype) the same statement takes "
                f"{_ms(lat[PROTOTYPE]['p50'])} ms p50 ({_x(lat[PROTOTYPE]['p50'] / floor['p50'])}), p95 "
                f"{_ms(lat[PROTOTYPE]['p95'])} ms ({_x(lat[PROTOTYPE]['p95'] / floor['p95'])}): what is left is "
                "the FTS leg, whose p95 is set by the queries with common words.")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ figures
def quality_png(q: QualityResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    metrics = ["recall@1", "recall@5", "MRR"]
    strategies = [r["strategy"] for r in q.summary]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.5))
    x = np.arange(len(metrics))
    w = 0.8 / len(strategies)
    for i, row in enumerate(q.summary):
        vals = [row[m] for m in metrics]
        bars = ax1.bar(x + i * w - 0.4 + w / 2, vals, w, label=row["strategy"])
        ax1.bar_label(bars, fmt="%.2f", fontsize=7)
    ax1.set_xticks(x, metrics)
    ax1.set_ylim(0, 1.18)
    ax1.set_title(f"Retrieval quality ({q.engine}, {q.summary[0]['questions']} answerable questions)")
    ax1.legend(fontsize=8, loc="upper center", ncols=len(strategies), frameon=False)
    cats = [r["category"] for r in q.by_category]
    x = np.arange(len(cats))
    for i, name in enumerate(strategies):
        ax2.bar(x + i * w - 0.4 + w / 2, [r[name] for r in q.by_category], w, label=name)
    ax2.set_xticks(x, [f"{r['category']}\n(n={r['questions']})" for r in q.by_category])
    ax2.set_ylim(0, 1.18)
    ax2.set_title("recall@5 by question category")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def latency_png(s: SpeedResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [z.n for z in s.sizes]
    names = [n for n in s.sizes[0].latency if " leg" not in n]
    fig, ax = plt.subplots(figsize=(8.5, 5.5))
    colors = plt.get_cmap("tab20").colors
    for i, name in enumerate(names):
        ys = [z.latency[name]["p50"] for z in s.sizes]
        style = "-" if name.startswith("ours") else "--" if name.startswith(("before", "prototype")) else ":"
        ax.plot(ns, ys, style, marker="o", label=name, color=colors[(2 * i) % 20 + (i >= 10)])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("memories in the store")
    ax.set_ylabel("p50 latency (ms, log)")
    ax.set_title(f"Search latency vs memory count ({s.engine}, k=5)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

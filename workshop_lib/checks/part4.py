"""Hard-stop check for Part 4's TODO: the answer-mode decision.

`check_decide_mode(decide_mode)` runs the learner's function through every branch
(rag, hybrid, each hybrid gate failing alone, fallback, a blank model answer, the
short-query switch, both score modes, the dot-product mapping) and compares it with
the reference in workshop_lib.parts.gates. The first difference stops the notebook with a
message that says which case, what was expected, why, and what came back.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workshop_lib.checks import CheckFailed, call_learner, passed
from workshop_lib.parts import gates

TODO = "TODO 1 (decide_mode)"
LONG = ("Column SUPPLYCHAIN.VESSELS.CAPACITY_TEU: cargo capacity in TEU, twenty-foot equivalent units, "
        "the number of 20-foot containers the ship can carry. Never tons.")            # 150 chars
SHORT = "Capacity is in TEU, not tons."                                                # 29 chars

BASE = gates.ModeConfig()  # low 0.60, high 0.75, min_similarity_for_hybrid 0.60, 2 chunks, 200 chars


@dataclass
class Case:
    name: str
    similarities: list[float]
    chunks: list[Any]
    why: str
    config: gates.ModeConfig = BASE
    query_tokens: int = 8
    used_llm_answer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        sims = ", ".join(f"{s:g}" for s in self.similarities) or "none"
        cfg = self.config
        knobs = [f"score_mode={cfg.score_mode}", f"distance={cfg.distance}"]
        if cfg.score_mode == "raw":
            lo, hi = cfg.raw_thresholds()
            knobs.append(f"raw_{cfg.distance}_low={lo}, raw_{cfg.distance}_high={hi}")
        else:
            knobs.append(f"threshold_low={cfg.threshold_low}, threshold_high={cfg.threshold_high}")
        text = (f"case '{self.name}': similarities [{sims}] over {len(self.chunks)} chunk(s) "
                f"({sum(len(gates.chunk_text(c)) for c in self.chunks)} chars), query_tokens={self.query_tokens}, "
                + ", ".join(knobs))
        if self.used_llm_answer is not None:
            text += f", used_llm_answer={self.used_llm_answer!r}"
        return text


def _chunks(n: int, text: str = LONG) -> list[dict[str, Any]]:
    return [{"record_id": f"mem-{i}", "subject": f"SUPPLYCHAIN.T{i}", "text": text} for i in range(n)]


def cases() -> list[Case]:
    """Every named case, in the order the check runs them."""
    short = BASE.with_()
    dot = BASE.with_(distance="dot")
    raw_cos = BASE.with_(score_mode="raw", raw_cosine_low=0.40, raw_cosine_high=0.55)
    raw_dot = BASE.with_(score_mode="raw", distance="dot", raw_dot_low=0.20, raw_dot_high=0.50)
    return [
        *_band_cases(),
        *_gate_cases(),
        *_fallback_cases(),
        *_short_query_cases(short),
        *_score_scale_cases(dot, raw_cos, raw_dot),
        *_edge_cases(short, raw_dot),
    ]


def _band_cases() -> list[Case]:
    """The two bands and their lower edges (>=)."""
    return [
        Case("rag", [0.82, 0.64, 0.41], _chunks(3),
             "the best similarity 0.82 is >= threshold_high 0.75; the used chunks are the two scoring >= threshold_low 0.60"),
        Case("rag at the boundary", [0.75, 0.70], _chunks(2),
             "a best similarity exactly equal to threshold_high counts as rag (>=)"),
        Case("hybrid", [0.68, 0.63, 0.30], _chunks(3),
             "0.60 <= best 0.68 < 0.75 and every hybrid gate holds: 2 chunks >= 0.60, 300 chars >= 200"),
        Case("hybrid at the boundary", [0.60, 0.60], _chunks(2),
             "a best similarity exactly equal to threshold_low is in the hybrid band (>=) and the gates hold"),
    ]


def _gate_cases() -> list[Case]:
    """Each hybrid gate failing on its own."""
    return [
        Case("gate min_chunks_for_hybrid fails alone", [0.62], [{"text": LONG + " " + LONG}],
             "best 0.62 is in the hybrid band but only 1 chunk scores >= threshold_low and min_chunks_for_hybrid=2"),
        Case("gate min_total_context_chars fails alone", [0.66, 0.61], _chunks(2, SHORT),
             f"2 chunks qualify but they hold {2 * len(SHORT)} chars and min_total_context_chars=200"),
        Case("gate min_similarity_for_hybrid fails alone", [0.63, 0.62], _chunks(2),
             "best 0.63 is in the band [0.60, 0.75) but below min_similarity_for_hybrid=0.65",
             config=BASE.with_(min_similarity_for_hybrid=0.65)),
    ]


def _fallback_cases() -> list[Case]:
    """Nothing good enough retrieved, and the model's answer (blank or not)."""
    return [
        Case("below threshold_low", [0.55, 0.50], _chunks(2), "best 0.55 < threshold_low 0.60"),
        Case("nothing retrieved", [], [], "no chunk came back, so there is nothing to answer from"),
        Case("blank model answer", [0.82, 0.64], _chunks(2),
             "the model returned a blank answer, which always forces fallback", used_llm_answer="   "),
        Case("model answer used", [0.82, 0.64], _chunks(2),
             "0.82 >= 0.75 and the model's answer is not blank", used_llm_answer="Capacity is counted in TEU."),
    ]


def _short_query_cases(short: gates.ModeConfig) -> list[Case]:
    """Short questions tighten the thresholds, by the delta or by an override."""
    return [
        Case("short query tightens (rag becomes hybrid)", [0.77, 0.70], _chunks(2),
             "query_tokens=2 <= short_query_max_tokens=3 raises both thresholds by short_query_delta=0.05 "
             "to 0.65 / 0.80, so 0.77 is no longer rag", config=short, query_tokens=2),
        Case("same scores, long query", [0.77, 0.70], _chunks(2),
             "query_tokens=8 > short_query_max_tokens=3, so the thresholds stay 0.60 / 0.75 and 0.77 is rag",
             config=short, query_tokens=8),
        Case("short query override", [0.80, 0.76], _chunks(2),
             "a short query with short_query_threshold_low=0.70 / short_query_threshold_high=0.90 set uses those "
             "values instead of the deltas, so 0.80 is hybrid",
             config=BASE.with_(short_query_threshold_low=0.70, short_query_threshold_high=0.90), query_tokens=1),
    ]


def _score_scale_cases(dot: gates.ModeConfig, raw_cos: gates.ModeConfig, raw_dot: gates.ModeConfig) -> list[Case]:
    """The score scales: a dot product mapped to [0, 1], raw cosine and raw dot thresholds."""
    return [
        Case("dot product mapped to [0, 1] (rag)", [0.60, 0.40], _chunks(2),
             "distance='dot' in normalized mode maps raw r to (r + 1) / 2: 0.60 -> 0.80 >= 0.75", config=dot),
        Case("dot product mapped to [0, 1] (hybrid)", [0.30, 0.25], _chunks(2),
             "(0.30 + 1) / 2 = 0.65 and (0.25 + 1) / 2 = 0.625: both in the hybrid band, gates hold", config=dot),
        Case("raw cosine thresholds", [0.58, 0.45], _chunks(2),
             "score_mode='raw' compares the raw score with raw_cosine_low=0.40 / raw_cosine_high=0.55, "
             "not with threshold_low/high", config=raw_cos),
        Case("raw dot thresholds (no mapping)", [0.35, 0.25], _chunks(2),
             "score_mode='raw' with distance='dot' compares raw dot products with raw_dot_low=0.20 / "
             "raw_dot_high=0.50 without the (r + 1) / 2 mapping: 0.35 is hybrid (and min_similarity_for_hybrid is "
             "always on the normalized scale: (0.35 + 1) / 2 = 0.675 >= 0.60)", config=raw_dot),
    ]


def _edge_cases(short: gates.ModeConfig, raw_dot: gates.ModeConfig) -> list[Case]:
    """Edges learners miss: the short-query boundary, unsorted scores,
    what the gates count, a clamped band, the normalized hybrid floor in raw mode."""
    return [
        Case("short query at the boundary", [0.77, 0.70], _chunks(2),
             "query_tokens=3 equals short_query_max_tokens=3, and short means query_tokens <= the maximum (<=, "
             "not <), so the thresholds are 0.65 / 0.80 and 0.77 is hybrid", config=short, query_tokens=3),
        Case("one token past the short boundary", [0.77, 0.70], _chunks(2),
             "query_tokens=4 > short_query_max_tokens=3, so the thresholds stay 0.60 / 0.75 and 0.77 is rag",
             config=short, query_tokens=4),
        Case("unsorted scores", [0.41, 0.82, 0.64], _chunks(3),
             "the best score is the largest one (0.82), wherever it is in the list; the first one (0.41) is not "
             "the best"),
        Case("min_chunks counts only chunks that cleared the gate", [0.66, 0.30, 0.20],
             [{"text": LONG + " " + LONG}, {"text": LONG}, {"text": LONG}],
             "3 chunks came back but only 1 scores >= threshold_low 0.60, and min_chunks_for_hybrid=2 counts "
             "only those"),
        Case("context chars count only chunks that cleared the gate", [0.68, 0.62, 0.30],
             [{"text": SHORT}, {"text": SHORT}, {"text": LONG}],
             f"the two chunks >= threshold_low hold {2 * len(SHORT)} chars < min_total_context_chars=200; the "
             f"third chunk ({len(LONG)} chars) scored 0.30 and does not count"),
        Case("inverted short-query band is clamped", [0.85, 0.82], _chunks(2),
             "a short query with short_query_threshold_low=0.90 above the tightened high threshold 0.80 would "
             "invert the band: low is clamped to min(low, high) = 0.80, so 0.85 is rag and both chunks are used",
             config=BASE.with_(short_query_threshold_low=0.90), query_tokens=1),
        Case("raw mode keeps the normalized hybrid floor", [0.15, 0.10], _chunks(2),
             "0.15 is in the raw band [0.00, 0.50), but min_similarity_for_hybrid is always on the normalized "
             "scale: (0.15 + 1) / 2 = 0.575 < 0.60",
             config=raw_dot.with_(raw_dot_low=0.0)),
    ]


def _compare(case: Case, got: Any, want: gates.ModeDecision) -> None:
    where = case.describe()
    if not isinstance(got, gates.ModeDecision):
        raise CheckFailed(TODO, f"{where}: your function returned {type(got).__name__} ({got!r:.60}), not a ModeDecision",
                          "end every branch with `return gates.make_decision(mode, ...)` as the TODO cell above shows.")
    if got.mode != want.mode:
        why = case.why or want.decision_explain.get("reason") or "that is what the rules give"
        raise CheckFailed(TODO, f"{where}: should be {want.mode} because {why}; you returned {got.mode}.",
                          _boundary_hint(case, want, got))
    got_ids = [gates.chunk_text(c) for c in got.used_chunks]
    want_ids = [gates.chunk_text(c) for c in want.used_chunks]
    if sorted(got_ids) != sorted(want_ids):
        raise CheckFailed(
            TODO, f"{where}: the mode is right ({got.mode}) but you used {len(got_ids)} chunk(s); expected "
                  f"{len(want_ids)} (the chunks scoring >= the active low threshold, and none for fallback).",
            "pass `used=[i for i, s in enumerate(scores) if s >= low]` to make_decision (scores on the "
            "threshold scale).")
    if got.sources_used != want.sources_used:
        raise CheckFailed(TODO, f"{where}: sources_used is {got.sources_used!r}, expected {want.sources_used!r}.",
                          "make_decision fills it from `used`; check the positions you pass.")
    g, w = got.decision_explain, want.decision_explain
    if bool(g.get("short_query_active")) != bool(w.get("short_query_active")):
        raise CheckFailed(TODO, f"{where}: short_query_active is {g.get('short_query_active')}, expected "
                                f"{w.get('short_query_active')} (short means query_tokens <= short_query_max_tokens).",
                          "pass short_query_active= to make_decision.")
    gt, wt = g.get("thresholds", {}), w.get("thresholds", {})
    for key in ("low", "high"):
        if abs(float(gt.get(key, float("nan"))) - float(wt[key])) > 1e-9:
            raise CheckFailed(TODO, f"{where}: decision_explain thresholds {key}={gt.get(key)}, expected {wt[key]:g} "
                                    "(the thresholds actually applied, after any short-query tightening).",
                              "pass low= and high= to make_decision.")
    if g.get("used_llm") != w.get("used_llm"):
        raise CheckFailed(TODO, f"{where}: used_llm is {g.get('used_llm')!r}, expected {w.get('used_llm')!r}.",
                          "pass used_llm_answer= through to make_decision.")


def _boundary_hint(case: Case, want: gates.ModeDecision, got: Any) -> str:
    """Name the gate an off-by-one fails: a count or a sum exactly AT its minimum is enough."""
    if want.mode == "hybrid" and got.mode == "fallback":
        cfg, used = case.config, want.used_chunks
        raw_best = max(case.similarities)
        normalized_best = max(min(1.0, max(0.0, (s + 1) / 2 if cfg.distance == "dot" else s)) for s in case.similarities)
        if raw_best < cfg.min_similarity_for_hybrid <= normalized_best:
            # Checked first: the same case often has exactly min_chunks_for_hybrid chunks too.
            return (f"min_similarity_for_hybrid={cfg.min_similarity_for_hybrid:g} is always compared on the normalized "
                    f"scale: the best score here is {raw_best:g} raw but {normalized_best:g} normalized, so this gate "
                    "holds. Compare max(normalized) with it, normalized = [min(1.0, max(0.0, (s + 1) / 2 if "
                    "config.distance == 'dot' else s)) for s in similarities], not with the raw score.")
        if len(used) == cfg.min_chunks_for_hybrid:
            return (f"exactly min_chunks_for_hybrid={cfg.min_chunks_for_hybrid} chunks cleared the gate, and that is "
                    "enough: fail this gate only when len(used) < min_chunks_for_hybrid, with used = the positions "
                    "whose score >= low (an off-by-one, <= or len(used) - 1, refuses it).")
        if sum(len(gates.chunk_text(c)) for c in used) == cfg.min_total_context_chars:
            return (f"the used chunks hold exactly min_total_context_chars={cfg.min_total_context_chars} characters, "
                    "which is enough: fail this gate only when the sum < min_total_context_chars.")
    return "re-read the rule for this branch in the markdown above the TODO."


def _run(fn: Callable[..., Any], case: Case) -> Any:
    try:
        return call_learner(TODO, case.describe(), fn, list(case.similarities), list(case.chunks), config=case.config,
                            query_tokens=case.query_tokens, used_llm_answer=case.used_llm_answer)
    except CheckFailed as failed:
        if "used positions" in failed.problem:
            raise CheckFailed(TODO, failed.problem, "used holds 0-based positions into chunks: "
                              "[i for i, s in enumerate(scores) if s >= low] (enumerate starts at 0; no start=1, "
                              "no + 1).") from None
        raise


def check_decide_mode(fn: Callable[..., Any], *, quiet: bool = False) -> None:
    """The named cases first (their messages say why), then random inputs over every branch."""
    all_cases = cases()
    for case in all_cases + random_cases():
        want = gates.decide_mode(case.similarities, case.chunks, config=case.config,
                                 query_tokens=case.query_tokens, used_llm_answer=case.used_llm_answer)
        _compare(case, _run(fn, case), want)
    if not quiet:
        passed(TODO, f"all {len(all_cases)} named cases and {len(random_cases())} random ones agree with the reference")


def random_cases(n: int = 300, seed: int = 4) -> list[Case]:
    """Random inputs over every mode, both score modes, short and long queries (seeded: the same
    every run, so a learner can reproduce a failing case)."""
    rng = random.Random(seed)
    configs = [BASE, BASE.with_(distance="dot"), BASE.with_(min_chunks_for_hybrid=1, min_total_context_chars=0),
               BASE.with_(score_mode="raw", raw_cosine_low=0.35, raw_cosine_high=0.5),
               BASE.with_(score_mode="raw", distance="dot", raw_dot_low=0.1, raw_dot_high=0.45),
               BASE.with_(short_query_delta=0.1, short_query_max_tokens=5)]
    out = []
    for i in range(n):
        cfg = rng.choice(configs)
        k = rng.randint(0, 5)
        lo = -0.2 if cfg.distance == "dot" else 0.3
        sims = [round(rng.uniform(lo, 0.95), 2) for _ in range(k)]
        texts = [rng.choice([LONG, SHORT, LONG[:90]]) for _ in range(k)]
        answer = rng.choice([None, None, None, "", "  ", "An answer."])
        out.append(Case(f"random #{i}", sims, [{"text": t} for t in texts], "",
                        config=cfg, query_tokens=rng.randint(0, 10), used_llm_answer=answer))
    return out

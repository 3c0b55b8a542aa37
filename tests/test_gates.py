"""Part 4: per-turn retrieval, calibration, and the rag / hybrid / fallback decision."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workshop_lib.checks import CheckFailed
from workshop_lib.checks import part4 as check4
from workshop_lib.parts import calibration, gates
from workshop_lib.parts.gates import ModeConfig, decide_mode

LONG = check4.LONG
SHORT = check4.SHORT
RANK = {"fallback": 0, "hybrid": 1, "rag": 2}


def chunks(n, text=LONG):
    return [{"record_id": f"m{i}", "subject": f"S.T{i}", "text": text} for i in range(n)]


# ============================================================================ decide_mode: every branch
EXPECTED_MODES = {
    "rag": "rag",
    "rag at the boundary": "rag",
    "hybrid": "hybrid",
    "hybrid at the boundary": "hybrid",
    "gate min_chunks_for_hybrid fails alone": "fallback",
    "gate min_total_context_chars fails alone": "fallback",
    "gate min_similarity_for_hybrid fails alone": "fallback",
    "below threshold_low": "fallback",
    "nothing retrieved": "fallback",
    "blank model answer": "fallback",
    "model answer used": "rag",
    "short query tightens (rag becomes hybrid)": "hybrid",
    "same scores, long query": "rag",
    "short query override": "hybrid",
    "dot product mapped to [0, 1] (rag)": "rag",
    "dot product mapped to [0, 1] (hybrid)": "hybrid",
    "raw cosine thresholds": "rag",
    "raw dot thresholds (no mapping)": "hybrid",
    "raw mode keeps the normalized hybrid floor": "fallback",
    "short query at the boundary": "hybrid",
    "one token past the short boundary": "rag",
    "unsorted scores": "rag",
    "min_chunks counts only chunks that cleared the gate": "fallback",
    "context chars count only chunks that cleared the gate": "fallback",
    "inverted short-query band is clamped": "rag",
}


@pytest.mark.parametrize("case", check4.cases(), ids=lambda c: c.name)
def test_every_branch(case):
    d = decide_mode(case.similarities, case.chunks, config=case.config, query_tokens=case.query_tokens,
                    used_llm_answer=case.used_llm_answer)
    assert d.mode == EXPECTED_MODES[case.name]
    assert d.decision_explain["mode"] == d.mode
    if d.mode == "fallback":
        assert d.used_chunks == [] and d.sources_used == "none"
        assert d.decision_explain["used_llm"] == "fallback"


def test_each_hybrid_gate_failing_alone_names_that_gate():
    by_name = {c.name: c for c in check4.cases()}
    for gate in ("min_chunks_for_hybrid", "min_total_context_chars", "min_similarity_for_hybrid"):
        c = by_name[f"gate {gate} fails alone"]
        d = decide_mode(c.similarities, c.chunks, config=c.config, query_tokens=c.query_tokens)
        failed = [name for name, g in d.decision_explain["hybrid_gates"].items() if not g["ok"]]
        assert failed == [gate]
        assert gate in d.reason


def test_explain_payload_and_metadata():
    d = decide_mode([0.64, 0.82, 0.41], chunks(3), config=ModeConfig(), query_tokens=8, query="  How   big? ")
    ex = d.decision_explain
    for key in ("thresholds", "effective_query", "short_query_active", "used_llm", "mode", "score_mode", "distance"):
        assert key in ex
    assert ex["effective_query"] == "How big?"
    assert ex["thresholds"]["low"] == 0.60 and ex["thresholds"]["high"] == 0.75
    sims = [m["similarity"] for m in d.retrieved_chunks_metadata]
    assert sims == sorted(sims, reverse=True)
    assert [m["used"] for m in d.retrieved_chunks_metadata] == [True, True, False]
    assert all(len(m["text"]) <= gates.PREVIEW_CHARS for m in d.retrieved_chunks_metadata)
    assert d.sources_used == "partial" and ex["used_llm"] == "none"
    assert decide_mode([0.9, 0.8], chunks(2), config=ModeConfig(), query_tokens=8).sources_used == "all"


def test_short_query_tightening_and_overrides():
    cfg = ModeConfig(short_query_delta=0.1)
    assert gates.active_thresholds(cfg, 3) == pytest.approx((0.70, 0.85, True))
    assert gates.active_thresholds(cfg, 4) == (0.60, 0.75, False)
    cfg = ModeConfig(short_query_threshold_high=0.95, short_query_threshold_low=0.8)
    assert gates.active_thresholds(cfg, 0) == (0.8, 0.95, True)
    # capped at 1 in normalized mode
    assert gates.active_thresholds(ModeConfig(threshold_high=0.98, short_query_delta=0.1), 1)[1] == 1.0


def test_dot_mapping():
    assert gates.normalized_similarity(0.0, "dot") == 0.5
    assert gates.normalized_similarity(1.0, "dot") == 1.0
    assert gates.normalized_similarity(-1.0, "dot") == 0.0
    assert gates.normalized_similarity(0.42, "cosine") == 0.42


@pytest.mark.parametrize("kwargs, words", [
    ({"distance": "euclidean"}, "not supported"),
    ({"distance": 3}, "not supported"),
    ({"score_mode": "percent"}, "not supported"),
    ({"score_mode": "raw"}, "raw_cosine_low"),
    ({"score_mode": "raw", "distance": "dot", "raw_dot_low": 0.1}, "raw_dot_high"),
    ({"score_mode": "raw", "raw_cosine_low": 0.6, "raw_cosine_high": 0.5}, "above"),
    ({"threshold_low": 0.8, "threshold_high": 0.7}, "above"),
    ({"threshold_high": 1.5}, "between 0 and 1"),
    ({"threshold_low": float("nan")}, "finite"),
    ({"min_chunks_for_hybrid": 0}, ">= 1"),
    ({"min_chunks_for_hybrid": True}, ">= 1"),
    ({"min_total_context_chars": -1}, ">= 0"),
    ({"short_query_delta": -0.1}, ">= 0"),
    ({"threshold_low": "0.6"}, "finite number"),
])
def test_mode_config_rejects_bad_values(kwargs, words):
    with pytest.raises(ValueError, match=words):
        ModeConfig(**kwargs)


def test_mode_config_aliases_and_engine_defaults():
    assert ModeConfig(distance="DOT_PRODUCT").distance == "dot"
    cfg = ModeConfig.for_engine({"min_score": 0.3, "threshold_low": 0.30, "threshold_high": 0.37})
    assert (cfg.threshold_low, cfg.threshold_high, cfg.min_similarity_for_hybrid) == (0.30, 0.37, 0.30)
    with pytest.raises(ValueError, match="no field"):
        ModeConfig.for_engine({"threshold_low": 0.3, "threshold_high": 0.4}, thresold_low=0.2)


@pytest.mark.parametrize("args, words", [
    (([0.5], []), "pair up"),
    (([0.5, "x"], chunks(2)), "finite numbers"),
    (([float("nan")], chunks(1)), "finite numbers"),
    (([1.7], chunks(1)), "did you pass a distance"),
    (("0.5", chunks(1)), "list of numbers"),
    (([0.5], [{"id": 1}]), "text"),
])
def test_decide_mode_rejects_bad_input(args, words):
    with pytest.raises(ValueError, match=words):
        decide_mode(*args, config=ModeConfig(), query_tokens=5)


def test_decide_mode_rejects_bad_tokens_config_and_answer():
    with pytest.raises(ValueError, match="query_tokens"):
        decide_mode([0.5], chunks(1), config=ModeConfig(), query_tokens=-1)
    with pytest.raises(ValueError, match="ModeConfig"):
        decide_mode([0.5], chunks(1), config={"threshold_low": 0.5}, query_tokens=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="used_llm_answer"):
        decide_mode([0.5], chunks(1), config=ModeConfig(), query_tokens=1, used_llm_answer=42)  # type: ignore[arg-type]


def test_chunks_as_strings_or_content_dicts():
    d = decide_mode([0.9, 0.7], [LONG, {"content": LONG}], config=ModeConfig(), query_tokens=8)
    assert d.mode == "rag" and len(d.used_chunks) == 2


# ---------------------------------------------------------------- invariants (hypothesis)
configs = st.sampled_from([
    ModeConfig(), ModeConfig(distance="dot"), ModeConfig(min_chunks_for_hybrid=1, min_total_context_chars=0),
    ModeConfig(score_mode="raw", raw_cosine_low=0.3, raw_cosine_high=0.5),
    ModeConfig(score_mode="raw", distance="dot", raw_dot_low=0.0, raw_dot_high=0.4),
    ModeConfig(short_query_delta=0.2, short_query_max_tokens=6),
])
scores = st.lists(st.floats(min_value=-0.99, max_value=0.99, allow_nan=False), max_size=6)
texts = st.sampled_from([LONG, SHORT, "x" * 120])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs, sims=scores, data=st.data(), qt=st.integers(0, 12),
       answer=st.one_of(st.none(), st.sampled_from(["", "  ", "\n", "ok"])))
def test_decision_invariants(cfg, sims, data, qt, answer):
    cs = [{"text": data.draw(texts)} for _ in sims]
    d = decide_mode(sims, cs, config=cfg, query_tokens=qt, used_llm_answer=answer)
    low, high, short = gates.active_thresholds(cfg, qt)
    best = max((gates.score_on_threshold_scale(s, cfg) for s in sims), default=None)
    assert d.mode in gates.MODES and d.sources_used in gates.SOURCES_USED
    assert d.decision_explain["short_query_active"] == short
    if answer is not None and not answer.strip():
        assert d.mode == "fallback"
    _assert_the_mode_fits_the_scores(d, cfg, best, low, high)
    meta = [m["score"] for m in d.retrieved_chunks_metadata]
    assert meta == sorted(meta, reverse=True) and len(meta) == len(sims)


def _assert_the_mode_fits_the_scores(d, cfg, best, low, high):
    """rag above high, hybrid between the thresholds with every gate holding, fallback with no chunk used;
    a used chunk is never below low."""
    if d.mode == "rag":
        assert best is not None and best >= high
    if d.mode == "hybrid":
        assert best is not None and low <= best < high
        assert all(g["ok"] for g in d.decision_explain["hybrid_gates"].values())
    if d.mode == "fallback":
        assert d.used_chunks == [] and d.sources_used == "none"
    else:
        assert all(gates.score_on_threshold_scale(c["score"], cfg) >= low for c in d.used_chunks)


@settings(max_examples=200, deadline=None)
@given(cfg=configs, sims=scores, bump=st.floats(0, 0.5), qt=st.integers(4, 12))
def test_higher_scores_never_downgrade_and_short_queries_never_upgrade(cfg, sims, bump, qt):
    cs = chunks(len(sims))
    base = decide_mode(sims, cs, config=cfg, query_tokens=qt)
    higher = decide_mode([min(0.99, s + bump) for s in sims], cs, config=cfg, query_tokens=qt)
    assert RANK[higher.mode] >= RANK[base.mode]
    short = decide_mode(sims, cs, config=cfg.with_(short_query_max_tokens=qt), query_tokens=qt)
    assert RANK[short.mode] <= RANK[base.mode]


# ============================================================================ the hard-stop check
def test_check_passes_the_reference():
    check4.check_decide_mode(decide_mode, quiet=True)


def _ignores_gates(similarities, chunks, *, config, query_tokens, used_llm_answer=None):
    low, high, short = gates.active_thresholds(config, query_tokens)
    best = max(similarities, default=0)
    mode = "rag" if best >= high else "hybrid" if best >= low else "fallback"
    used = [i for i, s in enumerate(similarities) if s >= low]
    return gates.make_decision(mode, similarities=similarities, chunks=chunks, config=config, used=used,
                               query_tokens=query_tokens, low=low, high=high, short_query_active=short,
                               used_llm_answer=used_llm_answer)


def test_check_names_the_failing_gate():
    with pytest.raises(CheckFailed) as err:
        check4.check_decide_mode(_ignores_gates, quiet=True)
    msg = str(err.value)
    assert "best 0.62" in msg and "min_chunks_for_hybrid=2" in msg
    assert "should be fallback" in msg and "you returned hybrid" in msg


def test_check_catches_missing_dot_mapping_and_blank_answer():
    def no_mapping(similarities, chunks, *, config, query_tokens, used_llm_answer=None):
        cfg = config.with_(distance="cosine") if config.score_mode == "normalized" else config
        sims = [max(-1.0, min(1.0, s)) for s in similarities]
        return decide_mode(sims, chunks, config=cfg, query_tokens=query_tokens, used_llm_answer=used_llm_answer)

    with pytest.raises(CheckFailed, match=r"\(r \+ 1\) / 2"):
        check4.check_decide_mode(no_mapping, quiet=True)

    def ignores_blank(similarities, chunks, *, config, query_tokens, used_llm_answer=None):
        return decide_mode(similarities, chunks, config=config, query_tokens=query_tokens,
                           used_llm_answer=None if not (used_llm_answer or "").strip() else used_llm_answer)

    with pytest.raises(CheckFailed, match="blank answer"):
        check4.check_decide_mode(ignores_blank, quiet=True)


def test_check_reports_stub_and_wrong_return_type():
    def stub(*a, **k):
        raise NotImplementedError()

    with pytest.raises(CheckFailed, match="not implemented"):
        check4.check_decide_mode(stub)
    with pytest.raises(CheckFailed, match="not a ModeDecision"):
        check4.check_decide_mode(lambda *a, **k: "rag")


# ============================================================================ calibration (pure)
def test_choose_threshold_separates_and_is_deterministic():
    rel = [0.8, 0.7, 0.65, 0.9]
    irr = [0.2, 0.3, 0.35, 0.1]
    t = calibration.choose_threshold(rel, irr)
    assert 0.35 < t < 0.65
    assert t == calibration.choose_threshold(list(reversed(rel)), sorted(irr))
    assert t == pytest.approx(0.5, abs=1e-3)  # middle of the widest perfect-separation run
    r = calibration.rates(rel, irr, t)
    assert r["tpr"] == 1.0 and r["fpr"] == 0.0 and r["youden_j"] == 1.0


def test_choose_threshold_with_overlap():
    rng = np.random.default_rng(0)
    rel, irr = rng.normal(0.45, 0.08, 200), rng.normal(0.2, 0.08, 200)
    t = calibration.choose_threshold(rel, irr)
    assert 0.28 < t < 0.38
    best_j = max(calibration.threshold_curve(rel, irr)["youden_j"])
    assert calibration.rates(rel, irr, t)["youden_j"] == pytest.approx(best_j)


def test_calibration_rejects_empty_or_nan():
    with pytest.raises(ValueError, match="empty"):
        calibration.choose_threshold([], [0.1])
    with pytest.raises(ValueError, match="NaN"):
        calibration.choose_threshold([0.5, math.nan], [0.1])


def test_suggest_thresholds_orders_the_band():
    rng = np.random.default_rng(1)
    rel, irr = rng.normal(0.45, 0.1, 100), rng.normal(0.2, 0.08, 100)
    s = calibration.suggest_thresholds(rel, irr)
    assert s["threshold_low"] <= s["min_score"] <= s["threshold_high"]
    ModeConfig(threshold_low=s["threshold_low"], threshold_high=s["threshold_high"])  # valid config


def test_labelled_pairs_are_well_formed():
    assert len(calibration.RELEVANT_PAIRS) >= 25 and len(calibration.IRRELEVANT_PAIRS) >= 25
    relevant = set(calibration.RELEVANT_PAIRS)
    for q, s in calibration.IRRELEVANT_PAIRS:
        assert (q, s) not in relevant


# ============================================================================ on a seeded engine
QUESTION = "What is the capacity of a ship in TEU?"


def test_calibration_on_the_engine(seeded_engine):
    a = calibration.similarity_distributions(seeded_engine)
    b = calibration.similarity_distributions(seeded_engine)
    assert len(a.relevant) == len(calibration.RELEVANT_PAIRS)
    assert len(a.irrelevant) == len(calibration.IRRELEVANT_PAIRS)
    np.testing.assert_allclose(a.relevant, b.relevant, atol=1e-6)
    t = calibration.choose_threshold(*a)
    assert t == calibration.choose_threshold(*b)
    # the model separates the labelled pairs far better than chance
    assert calibration.rates(*a, t)["youden_j"] > 0.5
    assert np.median(a.relevant) > np.median(a.irrelevant)


def test_retrieve_turn_filters_and_counts(seeded_engine):
    eng = seeded_engine
    turn = gates.retrieve_turn(eng, QUESTION, top_k=3, min_score=0.0)
    assert len(turn.chunks) == 3
    assert "SUPPLYCHAIN.VESSELS.CAPACITY_TEU" in turn.subjects
    sims = turn.similarities
    assert sims == sorted(sims, reverse=True)
    assert turn.query_tokens == eng.model.count_tokens(QUESTION) > 0
    assert turn.context_tokens == sum(eng.model.count_tokens(c.text) for c in turn.chunks)
    assert all(c.tokens > 0 for c in turn.chunks)
    # the score filter drops everything below min_score, never more than top_k kept
    strict = gates.retrieve_turn(eng, QUESTION, top_k=10, min_score=sims[1])
    assert all(s >= sims[1] for s in strict.similarities) and len(strict.chunks) <= 10
    assert strict.below_min_score > 0
    none = gates.retrieve_turn(eng, QUESTION, min_score=1.0)
    assert none.chunks == [] and none.context_tokens == 0
    assert "kept" in turn.summary() or "chunk" in turn.summary()
    frame = turn.to_frame(everything=True)
    assert set(frame["status"]) >= {"kept", "beyond_top_k"}


def test_retrieve_turn_default_min_score_and_top_k(seeded_engine):
    turn = gates.retrieve_turn(seeded_engine, QUESTION)
    assert turn.min_score == seeded_engine.model.thresholds.min_score and turn.top_k == gates.DEFAULT_TOP_K
    assert len(turn.chunks) <= 5 and all(s >= turn.min_score for s in turn.similarities)


def test_retrieve_turn_category_filter(seeded_engine):
    cols = gates.retrieve_turn(seeded_engine, QUESTION, min_score=0.0, category="column")
    assert cols.chunks and {c.kind for c in cols.chunks} == {"column"}
    two = gates.retrieve_turn(seeded_engine, "join voyages to ports", min_score=0.0, top_k=8,
                              category=["table", "relationship"])
    assert two.chunks and {c.kind for c in two.chunks} <= {"table", "relationship"}
    assert gates.retrieve_turn(seeded_engine, QUESTION, min_score=0.0, category="no_such_kind").chunks == []


@pytest.mark.parametrize("kwargs, words", [
    ({"query": ""}, "empty"),
    ({"query": "   "}, "empty"),
    ({"query": None}, "string"),
    ({"top_k": 0}, "at least 1"),
    ({"top_k": 2.5}, "integer"),
    ({"top_k": True}, "integer"),
    ({"min_score": 1.5}, "between 0 and 1"),
    ({"min_score": -0.1}, "between 0 and 1"),
    ({"min_score": "0.5"}, "number"),
    ({"min_score": float("nan")}, "between 0 and 1"),
    ({"category": 5}, "category must be"),
    ({"category": {"kind": "column"}}, "category must be"),
    ({"category": [""]}, "non-empty string"),
    ({"category": []}, "empty list"),
])
def test_retrieve_turn_rejects_bad_input(seeded_engine, kwargs, words):
    args = {"query": QUESTION, **kwargs}
    with pytest.raises(ValueError, match=words):
        gates.retrieve_turn(seeded_engine, args.pop("query"), **args)


class FakeLLM:
    model = "fake"

    def __init__(self, text):
        self.text = text

    def answer_from_context(self, question, context):
        if isinstance(self.text, Exception):
            raise self.text
        return self.text


def test_answer_modes_end_to_end(seeded_engine):
    cfg = ModeConfig.for_engine(seeded_engine)
    good = gates.answer(seeded_engine, "How is the IMO check digit computed?", config=cfg)
    assert good.mode in ("rag", "hybrid") and "IMO_NUMBER" in good.text
    assert good.used_llm == "none"
    off = gates.answer(seeded_engine, "What is a good recipe for pasta carbonara?", config=cfg)
    assert off.mode == "fallback" and off.text.startswith("I don't have stored knowledge")
    assert off.decision.sources_used == "none"


def test_answer_with_a_model(seeded_engine):
    cfg = ModeConfig.for_engine(seeded_engine, threshold_low=0.0, threshold_high=0.0, min_similarity_for_hybrid=0.0)
    q = "How is the IMO check digit computed?"
    used = gates.answer(seeded_engine, q, config=cfg, llm=FakeLLM("Multiply digits by 7..2."))
    assert used.mode == "rag" and used.text == "Multiply digits by 7..2." and used.used_llm == "primary"
    blank = gates.answer(seeded_engine, q, config=cfg, llm=FakeLLM("   "))
    assert blank.mode == "fallback" and blank.used_llm == "fallback" and "I don't have" in blank.text
    broken = gates.answer(seeded_engine, q, config=cfg, llm=FakeLLM(TimeoutError("slow")))
    assert broken.mode == "fallback"


def test_diagnose_live_examples(seeded_engine):
    eng = seeded_engine
    subject = "SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS"
    q = "Is the declared value of goods stored in dollars or cents?"
    too_strict = gates.retrieve_turn(eng, q, min_score=0.99)
    assert gates.diagnose(too_strict, expected_subject=subject)[0]["symptom"] == gates.DEBUG_TABLE[0]["symptom"]
    full = gates.retrieve_turn(eng, q, min_score=0.0, top_k=20)
    rank = full.subjects.index(subject) + 1
    if rank > 1:
        cut = gates.retrieve_turn(eng, q, min_score=0.0, top_k=rank - 1)
        assert any(r["symptom"] == gates.DEBUG_TABLE[2]["symptom"]
                   for r in gates.diagnose(cut, expected_subject=subject))
    costly = gates.diagnose(full, token_budget=50)
    assert any(r["symptom"] == gates.DEBUG_TABLE[3]["symptom"] for r in costly)
    assert list(gates.debug_table().columns) == ["symptom", "likely cause", "knob"]


@pytest.mark.parametrize("rel, irr", [
    ([0.80, 0.85, 0.90, 0.95], [0.10, 0.20, 0.30]),          # perfectly separated
    ([0.701, 0.702, 0.703] * 10, [0.698, 0.699] * 10),      # separated, cuts within one rounding step
    (np.linspace(0.5, 0.9, 50), np.linspace(0.1, 0.49, 50)),
])
def test_calibrate_never_empties_the_hybrid_band(rel, irr):
    """Issue 36 risk 6: a model that separates the pairs well put both cuts at one place, so
    min_score == threshold_high and the hybrid mode could not happen."""
    s = calibration.suggest_thresholds(rel, irr)
    assert s["threshold_low"] <= s["min_score"] < s["threshold_high"], s


def test_calibrate_refuses_when_no_band_fits_below_one():
    with pytest.raises(ValueError, match="no room for the hybrid band"):
        calibration.suggest_thresholds([1.0, 1.0], [0.999, 0.9999])


def test_a_saved_calibration_with_an_empty_hybrid_band_is_ignored(tmp_path, monkeypatch):
    import json

    from workshop_lib import config

    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path))
    model = "M"
    config.thresholds_path().write_text(json.dumps({"embedded": {
        "model": model, "min_score": 0.5, "threshold_low": 0.4, "threshold_high": 0.5}}))
    assert config.thresholds_for("embedded", model) == config.THRESHOLDS["embedded"]
    config.thresholds_path().write_text(json.dumps({"embedded": {
        "model": model, "min_score": 0.5, "threshold_low": 0.4, "threshold_high": 0.6}}))
    assert config.thresholds_for("embedded", model).threshold_high == 0.6


def test_the_calibration_measured_on_each_engine_leaves_a_hybrid_band(seeded_engine):
    """Risk 6 on the live lane: the labelled pairs measured on the engine's own model."""
    dist = calibration.similarity_distributions(seeded_engine)
    s = calibration.suggest_thresholds(dist.relevant, dist.irrelevant)
    assert s["threshold_low"] <= s["min_score"] < s["threshold_high"], s

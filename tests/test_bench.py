"""The retrieval benchmark (bench/): its question set, and the quick run end to end."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

# bench/ is a folder at the repository root, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import quality, run, speed, synth


def test_question_file_is_well_formed():
    questions = quality.load_questions()
    assert len(questions) >= 60
    cats = {q.category for q in questions}
    assert cats == set(quality.CATEGORIES)
    assert sum(not q.answerable for q in questions) >= 5
    probe = "TEU 20-foot equivalent capacity unit for vessels"
    assert any(q.question == probe for q in questions)


def test_every_named_subject_exists_among_the_scanned_facts(seeded_engine):
    questions = quality.load_questions()
    bodies = quality.scanned_bodies(seeded_engine)
    # Also checks that no "paraphrase" shares a content word with the memory that answers it.
    assert quality.validate_questions(questions, bodies) == []


def test_validation_catches_unknown_subjects_and_shared_words():
    q = [quality.Question("x1", "paraphrase", "vessel capacity", ("SUPPLYCHAIN.NOPE",)),
         quality.Question("x2", "paraphrase", "How many boxes fit?", ("SUPPLYCHAIN.A",))]
    problems = quality.validate_questions(q, {"SUPPLYCHAIN.A": ["Boxes fit in here."]})
    assert any("NOPE" in p for p in problems)
    assert any("x2" in p and "box" in p for p in problems)


def test_synthetic_memories_are_deterministic_and_batch_independent():
    whole = list(synth.memories(0, 50))
    parts = list(synth.memories(0, 20)) + list(synth.memories(20, 50))
    assert whole == parts
    assert len({m.record_id for m in whole}) == 50
    assert {m.metadata["kind"] for m in synth.memories(0, 500)} >= {"observation", "note", "tool_output"}


def test_python_fusion_and_top_k_helpers():
    assert speed.ensemble_rrf([["a", "b"], ["b", "c"]], k=3) == ["b", "a", "c"]
    scores = np.array([0.5, 0.9, 0.9, 0.1], dtype=np.float32)
    assert speed._top(scores, 3).tolist() == [1, 2, 0]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench-results")
    assert run.main(["--quick", "--engine", "embedded", "--no-progress", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_quick_run_writes_summary_and_figures(quick_run):
    summary = (quick_run / "summary.md").read_text()
    for heading in ("## Quality", "## Speed", "### Target check", "Fusion cross-check"):
        assert heading in summary
    assert (quick_run / "quality.png").stat().st_size > 1000
    assert (quick_run / "latency.png").stat().st_size > 1000


@pytest.mark.slow
def test_quick_run_hybrid_recall_is_not_below_either_leg(quick_run):
    results = json.loads((quick_run / "results.json").read_text())
    by = {row["strategy"]: row for row in results["quality"]["summary"]}
    assert by["hybrid"]["recall@5"] >= max(by["vector"]["recall@5"], by["keyword"]["recall@5"])
    # The embedded engine's rerank is a pass-through.
    assert by["hybrid+rerank"] == {**by["hybrid"], "strategy": "hybrid+rerank"}


@pytest.mark.slow
def test_quick_run_sql_rrf_agrees_with_ranx(quick_run):
    ranx = json.loads((quick_run / "results.json").read_text())["quality"]["ranx"]
    assert ranx["agree"], ranx["disagreements"]
    assert ranx["top5_identical"] == ranx["queries"] == ranx["library_rrf_fuse_agrees"]


@pytest.mark.slow
def test_quick_run_speed_figures_are_sane(quick_run):
    sp = json.loads((quick_run / "results.json").read_text())["speed"]
    (size,) = sp["sizes"]
    assert size["n"] == 1000 and size["ingested"] == 1000
    for name in ("ours vector", "ours keyword", "ours hybrid", "ours vector leg", "ours keyword leg",
                 "floor vector", "alt hybrid", speed.BEFORE, speed.PROTOTYPE):
        assert 0 < size["latency"][name]["p50"] <= size["latency"][name]["p95"]
    # The pre-vec0 statement and the numpy prototype return what the library's hybrid returns.
    agree = size["agree"]
    assert agree["before hybrid vs ours hybrid"].startswith("10/10")
    assert agree["prototype hybrid vs ours hybrid"].startswith("10/10")
    summary = (quick_run / "summary.md").read_text()
    assert "bounded by" in summary and "before hybrid (pre-vec0 exact scan)" in summary


# ------------------------------------------------------------------ the vec0 index the hybrid's vector leg reads
def _vec_rows(eng):
    return sorted(eng.query("SELECT rowid, scope, kind FROM RECORDS_KNN"))


def _expected_vec_rows(eng):
    return sorted(eng.query(
        """SELECT c.record_seq, json_array(m.record_type, m.user_id, m.agent_id),
                  COALESCE(json_extract(m.metadata, '$.kind'), '')
             FROM RECORD_CHUNKS c JOIN RECORDS m ON m.seq = c.record_seq"""))


def test_vec0_index_stays_in_sync_and_matches_the_pre_vec0_statement(fresh_engine):
    """The library's RECORDS_KNN follows every write, and the hybrid statement that reads it
    answers like the pre-vec0 exact scan the benchmark keeps for its before/after row."""
    from bench import variants
    from workshop_lib.parts import retrieval

    eng = fresh_engine
    if eng.name != "embedded":
        pytest.skip("the vec0 index is the embedded engine's")
    store = eng.store
    store.add(["Vessel capacity is counted in TEU.", "AIS reports give the latest position."],
              record_ids=["m1", "m2"], metadata=[{"kind": "note"}, {"kind": "note"}],
              user_ids=eng.user_id, agent_ids=eng.agent_id)
    assert _vec_rows(eng) == _expected_vec_rows(eng) and len(_vec_rows(eng)) == 2
    store.add(["Ran SELECT * FROM SUPPLYCHAIN.PORTS", "a message"], record_ids=["m3", "t1"],
              metadata=[{"kind": "tool_output"}, None], user_ids=eng.user_id, agent_ids=eng.agent_id)
    store.add("in a thread", record_type="message", thread_ids="th1", user_ids=eng.user_id, agent_ids=eng.agent_id)
    store.update("memory", "m1", metadata={"kind": "tool_output"})
    store.update("memory", "m2", text="AIS position reports, replaced by newer ones.")
    store.delete("memory", "t1")
    assert _vec_rows(eng) == _expected_vec_rows(eng)
    q = "where is the ship now"
    assert retrieval.vector_ranked_ids(eng, q, 10) == ["m2"]
    assert variants.hybrid(eng, q, variants.PRE_VEC0_HYBRID_RRF) == retrieval.hybrid_rrf_search_memories(eng, q)
    store.delete_thread("th1")
    store.delete("user_profile", eng.user_id, cascade=True)
    assert _vec_rows(eng) == _expected_vec_rows(eng) == []


# A store made before RECORDS_KNN existed: its vec0 index compared raw vectors by cosine.
_OLD_INDEX = [
    """CREATE VIRTUAL TABLE RECORDS_VEC USING vec0(
        scope TEXT PARTITION KEY, embedding float[256] distance_metric=cosine, kind TEXT)""",
    """INSERT INTO RECORDS_VEC (rowid, scope, kind, embedding)
        SELECT c.record_seq, json_array(m.record_type, m.user_id, m.agent_id),
               COALESCE(json_extract(m.metadata, '$.kind'), ''), c.embedding
          FROM RECORD_CHUNKS c JOIN RECORDS m ON m.seq = c.record_seq""",
    """CREATE TRIGGER RECORDS_VEC_AD AFTER DELETE ON RECORD_CHUNKS BEGIN
        DELETE FROM RECORDS_VEC WHERE rowid = old.record_seq; END""",
]


def test_opening_an_older_store_rebuilds_the_knn_index_and_keeps_every_memory(tmp_path):
    from workshop_lib import connect
    from workshop_lib.parts import retrieval

    eng = connect("embedded", path=tmp_path)
    eng.store.add(["Vessel capacity is counted in TEU.", "AIS reports give the latest position."],
                  record_ids=["m1", "m2"], user_ids=eng.user_id, agent_ids=eng.agent_id)
    with eng.transaction() as cur:   # turn it into a store of the previous version
        for name in ("RECORDS_KNN_AI", "RECORDS_KNN_AD", "RECORDS_KNN_AU"):
            cur.execute(f"DROP TRIGGER {name}")
        cur.execute("DROP TABLE RECORDS_KNN")
        cur.execute("DROP INDEX RECORDS_KNOWLEDGE_IX")
        for stmt in _OLD_INDEX:
            cur.execute(stmt)
    before = eng.query("SELECT seq, record_id, content, metadata FROM RECORDS ORDER BY seq")
    eng.close()

    eng = connect("embedded", path=tmp_path)
    _ = eng.store                               # opening the store: what setup or a notebook does
    names = {r[0] for r in eng.query("SELECT name FROM sqlite_master")}
    assert "RECORDS_VEC" not in names and "RECORDS_VEC_AD" not in names
    assert {"RECORDS_KNN", "RECORDS_KNN_AI", "RECORDS_KNOWLEDGE_IX"} <= names
    assert eng.query("SELECT seq, record_id, content, metadata FROM RECORDS ORDER BY seq") == before
    assert _vec_rows(eng) == _expected_vec_rows(eng) and len(_vec_rows(eng)) == 2
    q = "where is the ship now"          # same order as the exact scan of RECORD_CHUNKS
    assert retrieval.vector_ranked_ids(eng, q, 2) == [r.id for r, _ in eng.store.search(q, k=2)]
    eng.store.delete("memory", "m1")     # no trigger of the old index is left to fail
    assert _vec_rows(eng) == _expected_vec_rows(eng)


@pytest.mark.slow
def test_ingest_bench_reports_every_stage_of_both_corpora():
    from bench import ingest

    frame = ingest.run(docs=40, progress=False)
    assert set(frame["stage"]) == {"read_clean", "sanitize", "chunk", "embed", "write"}
    synthetic = frame[frame["corpus"] == "synthetic (40 docs)"]
    assert len(synthetic) == 5 and (synthetic["documents"] == 40).all() and (synthetic["chunks"] > 40).all()
    shipped = frame[frame["corpus"] == "shipped (32 docs)"].groupby("profile")["chunks"].first().to_dict()
    assert shipped == {"v1": 31, "v2": 101, "v3": 889}

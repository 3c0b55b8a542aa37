"""The retrieval benchmark (bench/): its question set, and the quick run end to end."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

# bench/ is a folder at the repository root, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import quality, run, speed, synth  # noqa: E402


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


def test_quick_run_writes_summary_and_figures(quick_run):
    summary = (quick_run / "summary.md").read_text()
    for heading in ("## Quality", "## Speed", "### Target check", "Fusion cross-check"):
        assert heading in summary
    assert (quick_run / "quality.png").stat().st_size > 1000
    assert (quick_run / "latency.png").stat().st_size > 1000


def test_quick_run_hybrid_recall_is_not_below_either_leg(quick_run):
    results = json.loads((quick_run / "results.json").read_text())
    by = {row["strategy"]: row for row in results["quality"]["summary"]}
    assert by["hybrid"]["recall@5"] >= max(by["vector"]["recall@5"], by["keyword"]["recall@5"])
    # The embedded engine's rerank is a pass-through.
    assert by["hybrid+rerank"] == {**by["hybrid"], "strategy": "hybrid+rerank"}


def test_quick_run_sql_rrf_agrees_with_ranx(quick_run):
    ranx = json.loads((quick_run / "results.json").read_text())["quality"]["ranx"]
    assert ranx["agree"], ranx["disagreements"]
    assert ranx["top5_identical"] == ranx["queries"] == ranx["library_rrf_fuse_agrees"]


def test_quick_run_speed_figures_are_sane(quick_run):
    sp = json.loads((quick_run / "results.json").read_text())["speed"]
    (size,) = sp["sizes"]
    assert size["n"] == 1000 and size["ingested"] == 1000
    for name in ("ours vector", "ours keyword", "ours hybrid", "floor vector", "alt hybrid"):
        assert 0 < size["latency"][name]["p50"] <= size["latency"][name]["p95"]
    # The proposed statements return what the library returns.
    assert all(v.startswith("10/10") for k, v in size["proposal_agree"].items() if k != "vector leg (vec0)")


# ------------------------------------------------------------------ the proposed library change
def _vec_rows(eng):
    return sorted(eng.query("SELECT rowid, scope, kind FROM RECORDS_VEC"))


def _expected_vec_rows(eng):
    return sorted(eng.query(
        """SELECT c.record_seq, json_array(m.record_type, m.user_id, m.agent_id),
                  COALESCE(json_extract(m.metadata, '$.kind'), '')
             FROM RECORD_CHUNKS c JOIN RECORDS m ON m.seq = c.record_seq"""))


def test_proposed_vec0_table_stays_in_sync_with_the_store(fresh_engine):
    from bench import proposal
    from workshop_lib import retrieval

    eng = fresh_engine
    if eng.name != "embedded":
        pytest.skip("the vec0 proposal is for the embedded engine")
    store = eng.store
    store.add(["Vessel capacity is counted in TEU.", "AIS reports give the latest position."],
              record_ids=["m1", "m2"], metadata=[{"kind": "note"}, {"kind": "note"}],
              user_ids=eng.user_id, agent_ids=eng.agent_id)
    proposal.install(eng)  # back-fills the two rows above
    assert _vec_rows(eng) == _expected_vec_rows(eng)
    store.add(["Ran SELECT * FROM SUPPLYCHAIN.PORTS", "a message"], record_ids=["m3", "t1"],
              metadata=[{"kind": "tool_output"}, None], user_ids=eng.user_id, agent_ids=eng.agent_id)
    store.add("in a thread", record_type="message", thread_ids="th1", user_ids=eng.user_id, agent_ids=eng.agent_id)
    store.update("memory", "m1", metadata={"kind": "tool_output"})
    store.update("memory", "m2", text="AIS position reports, replaced by newer ones.")
    store.delete("memory", "t1")
    assert _vec_rows(eng) == _expected_vec_rows(eng)
    q = "where is the ship now"
    assert proposal.vector_ranked_ids(eng, q, 10) == retrieval.vector_ranked_ids(eng, q, 10) == ["m2"]
    store.delete_thread("th1")
    store.delete("user_profile", eng.user_id, cascade=True)
    assert _vec_rows(eng) == _expected_vec_rows(eng)


def test_patch_files_match_the_prototype(tmp_path):
    """bench/patches/*.diff applied to the library's sql.py give the statements bench/proposal.py times."""
    import importlib.util
    import re
    import shutil
    import subprocess
    from pathlib import Path

    from bench import proposal

    if shutil.which("patch") is None:
        pytest.skip("the `patch` program is not installed")
    root = Path(__file__).resolve().parents[1]
    target = tmp_path / "sql.py"
    shutil.copy(root / "workshop_lib" / "embedded" / "sql.py", target)
    for diff in sorted((root / "bench" / "patches").glob("*.diff")):
        done = subprocess.run(["patch", "-s", "-N", str(target), str(diff)], capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"{diff.name} no longer applies to workshop_lib/embedded/sql.py (applied already, or "
                        f"the file changed): {done.stdout.strip()}")
    spec = importlib.util.spec_from_file_location("patched_sql", target)
    patched = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(patched)
    ns = patched.statements("", 256)

    def norm(sql: str) -> str:
        return re.sub(r"\s+", " ", sql).strip()

    def fill(sql: str) -> str:
        return sql.replace("{p}", "").replace("{dim}", "256")

    assert norm(ns.HYBRID_RRF) == norm(fill(proposal.HYBRID_RRF_VEC0))
    assert norm(ns.VECTOR_RANKED) == norm(fill(proposal.VECTOR_RANKED_VEC0))
    schema = dict(ns.SCHEMA)
    for name, ddl in proposal.SCHEMA:
        assert [norm(s) for s in schema[name]] == [norm(fill(s)) for s in ddl]

"""Scanner and reference retrieval on the seeded SUPPLYCHAIN memories (every engine)."""
from __future__ import annotations

import pytest

from workshop_lib.core.scope import Scope
from workshop_lib.parts import retrieval, scanner

PROBE = "TEU 20-foot equivalent capacity unit for vessels"


def test_scan_schema_facts(seeded_engine):
    facts = scanner.scan_schema(seeded_engine, "SUPPLYCHAIN")
    kinds = {f.kind for f in facts}
    assert kinds == {"table", "column", "relationship"}
    by_subject = {f.subject: f for f in facts}
    cap = by_subject["SUPPLYCHAIN.VESSELS.CAPACITY_TEU"]
    assert cap.body.startswith("Column SUPPLYCHAIN.VESSELS.CAPACITY_TEU of type NUMBER (")
    assert "Meaning:" in cap.body and "TEU" in cap.body
    assert by_subject["SUPPLYCHAIN.VESSELS"].body.startswith("Table SUPPLYCHAIN.VESSELS.")
    assert sum(1 for f in facts if f.kind == "table") == 7
    assert all(f.subject == f.subject.upper() for f in facts)


def test_write_facts_is_an_upsert(seeded_engine):
    facts = scanner.scan_schema(seeded_engine, "SUPPLYCHAIN")
    before = seeded_engine.store.count("memory")
    again = scanner.write_facts(seeded_engine, facts, progress=False)
    assert again == {"added": 0, "updated": 0, "unchanged": len(facts)}
    assert seeded_engine.store.count("memory") == before
    rec = seeded_engine.store.get("memory", facts[0].record_id)
    assert rec.metadata["kind"] == facts[0].kind and rec.metadata["subject"] == facts[0].subject


def test_retrieve_knowledge_positions_question(seeded_engine):
    hits = retrieval.retrieve_knowledge(seeded_engine, "Where do we record vessel current positions?", k=3)
    assert "SUPPLYCHAIN.VESSEL_POSITIONS" in [h["subject"] for h in hits]
    assert set(hits[0]) == {"kind", "subject", "body", "metadata", "distance"}
    assert [h["distance"] for h in hits] == sorted(h["distance"] for h in hits)


def test_retrieve_knowledge_kinds_filter(seeded_engine):
    as_list = retrieval.retrieve_knowledge(seeded_engine, "vessel capacity", k=5, kinds=["column"])
    as_text = retrieval.retrieve_knowledge(seeded_engine, "vessel capacity", k=5, kinds="column, ")
    assert as_list and all(h["kind"] == "column" for h in as_list)
    assert [h["subject"] for h in as_list] == [h["subject"] for h in as_text]
    assert retrieval.retrieve_knowledge(seeded_engine, "vessel capacity", k=2, kinds=[]) == \
        retrieval.retrieve_knowledge(seeded_engine, "vessel capacity", k=2)


def test_retrieve_knowledge_drops_tool_output(seeded_engine):
    store = seeded_engine.store
    store.add(["Tool output: vessel capacity query returned 30 rows"], record_ids="tool-out-1",
              metadata={"kind": "tool_output", "subject": "tool"},
              user_ids=seeded_engine.user_id, agent_ids=seeded_engine.agent_id)
    try:
        hits = retrieval.retrieve_knowledge(seeded_engine, "Tool output: vessel capacity query returned rows", k=10)
        assert all(h["kind"] != "tool_output" for h in hits)
        kw = retrieval.keyword_search_memories(seeded_engine, "Tool output vessel capacity", k=50)
        assert all(h["kind"] != "tool_output" for h in kw)
    finally:
        store.delete("memory", "tool-out-1")


def test_probe_hybrid_ranks_capacity_teu_first(seeded_engine):
    hits = retrieval.hybrid_rrf_search_memories(seeded_engine, PROBE, k=5)
    assert hits[0]["subject"] == "SUPPLYCHAIN.VESSELS.CAPACITY_TEU"
    for h in hits:
        assert isinstance(h["r_vec"], int) and isinstance(h["r_txt"], int) and isinstance(h["rrf_score"], float)
    assert [h["rrf_score"] for h in hits] == sorted((h["rrf_score"] for h in hits), reverse=True)


@pytest.mark.parametrize("query", [
    PROBE,
    "Where do we record vessel current positions?",
    "ORA-00904 invalid identifier",
    "cargo value in cents",
    "which carrier operates a voyage",
    "IMO number check digit",
])
def test_hybrid_sql_equals_independent_rrf(seeded_engine, query):
    per_list, k = 30, 10
    vec = retrieval.vector_ranked_ids(seeded_engine, query, per_list)
    txt = retrieval.keyword_ranked_ids(seeded_engine, query, per_list)
    expected = retrieval.rrf_fuse(vec, txt, k=k)
    got = retrieval.hybrid_rrf_search_memories(seeded_engine, query, k=k, per_list=per_list)
    assert [(h["record_id"], h["r_vec"], h["r_txt"]) for h in got] == \
        [(h["record_id"], h["r_vec"], h["r_txt"]) for h in expected]
    for g, e in zip(got, expected):
        assert g["rrf_score"] == pytest.approx(e["rrf_score"], rel=1e-9)


def test_sentinel_for_missing_ranks(seeded_engine):
    # A question with no keyword overlap at all: every hit comes from the vector list only.
    hits = retrieval.hybrid_rrf_search_memories(seeded_engine, "!!! ???", k=3)
    assert hits and all(h["r_txt"] == retrieval.SENTINEL for h in hits)
    assert hits[0]["rrf_score"] == pytest.approx(1 / 61 + 1 / (60 + retrieval.SENTINEL))


def test_keyword_terms_beat_whole_question_phrase(seeded_engine):
    """Quoting the whole question as one phrase finds nothing; OR-ing the escaped
    terms finds the column whose comment uses most of them."""
    question = "capacity in twenty-foot equivalent units for each vessel"
    eng = seeded_engine
    if eng.name != "embedded":
        pytest.skip("phrase comparison written in FTS5 syntax")
    phrase = '"' + question.replace('"', '""') + '"'
    as_phrase = eng.query(eng.store.sql.KEYWORD_SEARCH, {"kw": phrase, "k": 5, **Scope(eng.user_id, eng.agent_id).binds()})
    as_terms = retrieval.keyword_search_memories(eng, question, k=5)
    assert as_phrase == []
    assert "SUPPLYCHAIN.VESSELS.CAPACITY_TEU" in [h["subject"] for h in as_terms[:3]]


def test_keyword_search_shape_and_order(seeded_engine):
    hits = retrieval.keyword_search_memories(seeded_engine, "TEU", k=5)
    assert hits and set(hits[0]) == {"record_id", "kind", "subject", "content", "score_txt"}
    assert "SUPPLYCHAIN.VESSELS.CAPACITY_TEU" in [h["subject"] for h in hits]
    scores = [h["score_txt"] for h in hits]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("fn", [retrieval.retrieve_knowledge, retrieval.keyword_search_memories,
                                retrieval.hybrid_rrf_search_memories])
def test_bad_arguments_are_clear_errors(seeded_engine, fn):
    for bad_query in ["", "   ", None, 42]:
        with pytest.raises(ValueError, match="query"):
            fn(seeded_engine, bad_query)
    for bad_k in [0, -3, 2.5, True]:
        with pytest.raises(ValueError, match="k"):
            fn(seeded_engine, "vessels", k=bad_k)
    with pytest.raises(ValueError, match="limit"):
        fn(seeded_engine, "x" * 200_000)


def test_bad_kinds_are_clear_errors(seeded_engine):
    with pytest.raises(ValueError, match="kinds"):
        retrieval.retrieve_knowledge(seeded_engine, "vessels", kinds=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kinds"):
        retrieval.retrieve_knowledge(seeded_engine, "vessels", kinds=[1, 2])  # type: ignore[list-item]

"""Any user text is safe: full-text operators, quotes, error codes, emoji, huge strings.
It gets a correct result or a clear ValueError, never a driver crash, and stored data
never changes."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workshop_lib import retrieval

HOSTILE = [
    "ORA-00904", "ORA-00904: invalid identifier", "TEU", "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a AND b OR c",
    "*", "vessel*", "^start", "col:value", "capacity_teu:TEU", '"', '""', "'", "''", "it's", '"unbalanced',
    "(", ")", "((a)", "{", "}", "{TEU}", "%", "_", "$", "?", "!", "-", "--", "- -", "+", "a+b", "a - b", "\\",
    "; DROP TABLE RECORDS; --", "' OR 1=1 --", "\x00", "tab\tand\nnewline", "😀", "🚢 TEU 📦", "ÆØÅ ÉÈ ñ",
    "日本語のクエリ", "x" * 50_000, "TEU " * 12_000,
]


def _snapshot(eng):
    return eng.query("SELECT record_type, record_id, content, metadata FROM RECORDS ORDER BY seq")


@pytest.fixture(scope="module")
def snapshot(seeded_engine):
    return _snapshot(seeded_engine)


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:20]))
def test_hostile_text_never_crashes(seeded_engine, snapshot, text):
    kw = retrieval.keyword_search_memories(seeded_engine, text, k=5)
    hy = retrieval.hybrid_rrf_search_memories(seeded_engine, text, k=5)
    vec = retrieval.retrieve_knowledge(seeded_engine, text, k=5)
    assert isinstance(kw, list) and isinstance(hy, list) and isinstance(vec, list)
    assert len(hy) <= 5 and len(kw) <= 5
    assert _snapshot(seeded_engine) == snapshot


def test_error_code_is_found_literally(seeded_engine):
    eng = seeded_engine
    eng.store.add(["Runbook: ORA-00904 means invalid identifier, usually a misspelt column"],
                  record_ids="runbook-ora-00904", metadata={"kind": "runbook", "subject": "RUNBOOK.ORA-00904"},
                  user_ids=eng.user_id, agent_ids=eng.agent_id)
    try:
        hits = retrieval.keyword_search_memories(eng, "ORA-00904", k=3)
        assert hits[0]["record_id"] == "runbook-ora-00904"
        assert retrieval.hybrid_rrf_search_memories(eng, "ORA-00904", k=3)[0]["record_id"] == "runbook-ora-00904"
    finally:
        eng.store.delete("memory", "runbook-ora-00904")


@pytest.mark.parametrize("text", ["", " ", "\n\t"])
def test_empty_text_is_a_clear_error(seeded_engine, text):
    for fn in (retrieval.keyword_search_memories, retrieval.hybrid_rrf_search_memories, retrieval.retrieve_knowledge):
        with pytest.raises(ValueError, match="empty"):
            fn(seeded_engine, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=300).filter(lambda s: s.strip()))
def test_any_text_property(seeded_engine, snapshot, text):
    for fn in (retrieval.keyword_search_memories, retrieval.hybrid_rrf_search_memories):
        hits = fn(seeded_engine, text, k=3)
        assert len(hits) <= 3
    assert _snapshot(seeded_engine) == snapshot


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flt=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
                        max_leaves=8))
def test_malformed_metadata_filters(seeded_engine, snapshot, flt):
    """A dict filter is applied; anything else is a clear ValueError."""
    store = seeded_engine.store
    if isinstance(flt, dict):
        assert isinstance(store.search("vessels", k=2, metadata_filter=flt), list)
        assert isinstance(store.list("memory", metadata_filter=flt, limit=5), list)
    elif flt is not None:
        with pytest.raises(ValueError, match="metadata_filter"):
            store.search("vessels", k=2, metadata_filter=flt)
    assert _snapshot(seeded_engine) == snapshot

"""Any user text is safe: full-text operators, quotes, error codes, emoji, huge strings.
It gets a correct result or a clear ValueError, never a driver crash, and stored data
never changes."""
from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workshop_lib.parts import retrieval

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


@pytest.mark.parametrize("query", ["3.5", "25,000", "2024-05-01", "25,000 TEU"])
def test_numbers_are_found_by_keyword_search(seeded_engine, query):
    """Issue 36 risk 1: Oracle Text indexes `3.5` and `25,000` as one token each (numjoin,
    numgroup); the keyword expression must ask for that token, not for the phrase `3 5`."""
    eng = seeded_engine
    eng.store.add(["Reefer plug-in limit 3.5 t per bay; 25,000 TEU terminal; closed 2024-05-01"],
                  record_ids="numbers-note", metadata={"kind": "note", "subject": "NOTE.NUMBERS"},
                  user_ids=eng.user_id, agent_ids=eng.agent_id)
    try:
        hits = retrieval.keyword_search_memories(eng, query, k=3)
        assert hits and hits[0]["record_id"] == "numbers-note", hits
    finally:
        eng.store.delete("memory", "numbers-note")


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


# ---------------------------------------------------------------- input classes that once crashed
# Each is a clear ValueError naming the argument, and nothing is written.
def _deep(levels: int, leaf=1):
    value = leaf
    for i in range(levels):
        value = {"a": value} if i % 2 else [value]
    return {"root": value}


NOT_AN_ID = st.one_of(st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.lists(st.text(max_size=3), max_size=2),
                      st.integers(), st.floats(allow_nan=True), st.binary(max_size=4), st.booleans())
BAD_METADATA = st.one_of(
    st.builds(lambda v: {"kind": v}, st.one_of(st.integers(), st.floats(allow_nan=False), st.lists(st.text(max_size=2), max_size=2),
                                               st.booleans())),
    st.builds(lambda v: {"x": v}, st.sampled_from([float("nan"), float("inf"), float("-inf")])),
    st.builds(lambda v: {"x": {"y": [1, v]}}, st.sampled_from([float("nan"), float("inf")])),
    st.builds(_deep, st.integers(min_value=40, max_value=3000)),
)
HUGE_K = st.integers(min_value=2**31, max_value=2**80)
SURROGATE_TEXT = st.builds(lambda a, s, b: a + s + b, st.text(max_size=20), st.characters(categories=["Cs"]),
                           st.text(max_size=20))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=BAD_METADATA)
def test_bad_metadata_is_a_value_error_and_writes_nothing(seeded_engine, snapshot, meta):
    store = seeded_engine.store
    with pytest.raises(ValueError, match="metadata"):
        store.add(["hostile metadata"], metadata=meta, user_ids=seeded_engine.user_id)
    if "kind" not in meta:  # filters may name any kind; depth and non-finite numbers are refused
        with pytest.raises(ValueError, match="metadata_filter"):
            store.search("vessels", k=2, metadata_filter=meta)
        with pytest.raises(ValueError, match="metadata_filter"):
            store.list("memory", metadata_filter=meta)
    assert _snapshot(seeded_engine) == snapshot


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=NOT_AN_ID, where=st.sampled_from(["record_ids", "user_ids", "thread_ids", "agent_ids", "get", "update",
                                             "delete", "search_user", "list_thread", "record_type", "search_types"]))
def test_ids_and_types_that_are_not_strings_are_value_errors(seeded_engine, snapshot, bad, where):
    store = seeded_engine.store
    calls = {
        "record_ids": lambda: store.add(["x"], record_ids=[bad]),
        "user_ids": lambda: store.add(["x"], user_ids=[bad]),
        "thread_ids": lambda: store.add(["x"], thread_ids=[bad]),
        "agent_ids": lambda: store.add(["x"], agent_ids=[bad]),
        "get": lambda: store.get("memory", bad),
        "update": lambda: store.update("memory", bad, text="x"),
        "delete": lambda: store.delete("memory", bad),
        "search_user": lambda: store.search("x", k=1, user_id=bad, exact_user_match=True),
        "list_thread": lambda: store.list("memory", thread_id=bad),
        "record_type": lambda: store.add(["x"], record_type=bad),
        "search_types": lambda: store.search("x", k=1, record_types=[bad]),
    }
    with pytest.raises(ValueError):
        calls[where]()
    assert _snapshot(seeded_engine) == snapshot


@pytest.mark.parametrize("texts", [None, 5, {"a": "b"}, b"bytes", [None], [1, 2]])
def test_texts_that_are_not_strings(seeded_engine, snapshot, texts):
    with pytest.raises(ValueError, match="texts"):
        seeded_engine.store.add(texts)
    assert _snapshot(seeded_engine) == snapshot


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=HUGE_K, big=st.integers(min_value=4097, max_value=2**70))
def test_huge_k_per_list_and_n_are_value_errors(seeded_engine, k, big):
    eng = seeded_engine
    for call in (lambda: eng.store.search("x", k=k), lambda: eng.memory.search("x", max_results=k),
                 lambda: retrieval.retrieve_knowledge(eng, "x", k=k),
                 lambda: retrieval.keyword_search_memories(eng, "x", k=k),
                 lambda: retrieval.hybrid_rrf_search_memories(eng, "x", k=k),
                 lambda: retrieval.hybrid_rrf_search_memories(eng, "x", per_list=big),
                 lambda: retrieval.vector_ranked_ids(eng, "x", n=big)):
        with pytest.raises(ValueError, match=r"k|per_list|\bn\b|max_results"):
            call()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=SURROGATE_TEXT)
def test_lone_surrogates_give_a_result_or_a_value_error(seeded_engine, snapshot, text):
    from workshop_lib.parts import gates

    eng = seeded_engine
    for call in (lambda: retrieval.retrieve_knowledge(eng, text, k=2),
                 lambda: retrieval.keyword_search_memories(eng, text, k=2),
                 lambda: retrieval.hybrid_rrf_search_memories(eng, text, k=2),
                 lambda: gates.retrieve_turn(eng, text),
                 lambda: eng.store.add([text]),
                 lambda: eng.store.search(text, k=1)):
        with contextlib.suppress(ValueError):
            call()
    assert _snapshot(eng) == snapshot


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(min_size=1, max_size=40), SURROGATE_TEXT,
                      st.sampled_from(["\x00", "\x00reefer", "\x01\x02", "\ufeff", "\u200b"])))
def test_catalog_match_takes_any_text(catalog_engine, text):
    from workshop_lib.parts import grounded

    try:
        result = grounded.match_catalog(catalog_engine, text)
    except ValueError:
        return
    assert isinstance(result, grounded.MatchResult)


@pytest.fixture(scope="module")
def catalog_engine(tmp_path_factory):
    from workshop_lib import connect
    from workshop_lib.data import catalog, supplychain

    eng = connect("embedded", path=tmp_path_factory.mktemp("catalog-bad-input"))
    supplychain.seed(eng, progress=False)
    catalog.seed(eng, progress=False)
    yield eng
    eng.close()

"""The memory-store contract (docs/architecture.md, "The memory store"): every documented
example, then the edge cases the contract implies. Runs on every engine through the `store` fixture."""
from __future__ import annotations

import pytest

from workshop_lib.core.records import MessageRecord
from workshop_lib.core.store import MemoryStore, SchemaError, SchemaPolicy

# ---------------------------------------------------------------- the documented examples


def test_doc_search_abstract(store):
    assert store.add(["Searchable abstract memory"], record_type="memory",
                     record_ids="mem-search-abstract-docs") == ["mem-search-abstract-docs"]
    assert store.search("Searchable", 1, record_types={"memory"})[0][0].id == "mem-search-abstract-docs"


def test_doc_metadata_scalar(store):
    assert store.add(["pizza release"], record_type="memory", record_ids="mem-search-meta-source-docs",
                     metadata={"source": "slack"}) == ["mem-search-meta-source-docs"]
    assert any(r.id == "mem-search-meta-source-docs"
               for r, _ in store.search("pizza", k=3, metadata_filter={"source": "slack"}))


def test_doc_metadata_nested(store):
    assert store.add(["pizza review"], record_type="memory", record_ids="mem-search-meta-review-docs",
                     metadata={"review": {"status": "open"}}) == ["mem-search-meta-review-docs"]
    assert any(r.id == "mem-search-meta-review-docs"
               for r, _ in store.search("pizza", k=3, metadata_filter={"review": {"status": "open"}}))


def test_doc_metadata_list_exact(store):
    assert store.add(["pizza tags"], record_type="memory", record_ids="mem-search-meta-tags-docs",
                     metadata={"tags": ["prod", "urgent"]}) == ["mem-search-meta-tags-docs"]
    assert any(r.id == "mem-search-meta-tags-docs"
               for r, _ in store.search("pizza", k=3, metadata_filter={"tags": ["prod", "urgent"]}))


def test_doc_add_agent_and_user(store):
    assert store.add_agent("a-docs-agent", "Support assistant") == "a-docs-agent"
    assert store.add_user("u-docs-profile", "Prefers concise answers.") == "u-docs-profile"
    assert store.get("agent_profile", "a-docs-agent").content == "Support assistant"


def test_doc_delete(store):
    assert store.add(["Delete me"], record_type="memory", record_ids="mem-delete-docs") == ["mem-delete-docs"]
    assert store.delete("memory", "mem-delete-docs") == 1
    assert store.get("memory", "mem-delete-docs") is None


def test_doc_delete_thread_missing(store):
    assert store.delete_thread("c1") == 0


def test_doc_get(store):
    assert store.add(["Remember this"], record_type="memory", record_ids="mem-get-docs") == ["mem-get-docs"]
    assert store.get("memory", "mem-get-docs").id == "mem-get-docs"


def test_doc_list(store):
    assert store.add(["First listed", "Second listed"], record_type="memory",
                     record_ids=["mem-list-docs-1", "mem-list-docs-2"]) == ["mem-list-docs-1", "mem-list-docs-2"]
    assert [r.id for r in store.list("memory", limit=2)] == ["mem-list-docs-1", "mem-list-docs-2"]
    assert store.add_user("u-list-docs", "Prefers concise answers.") == "u-list-docs"
    assert any(r.id == "u-list-docs" for r in store.list("user_profile", user_id=None, limit=10))


def test_doc_list_thread_messages_empty(store):
    assert store.list_thread_messages("c1") == []


def test_doc_search_thread_scope(store):
    assert store.add(["pizza preference"], record_type="memory", record_ids="mem-search-docs",
                     thread_ids="c-search-docs") == ["mem-search-docs"]
    results = store.search("pizza", 1, thread_id="c-search-docs", exact_thread_match=True, record_types={"memory"})
    assert results[0][0].id == "mem-search-docs"


def test_doc_update(store):
    assert store.add(["Original note"], record_type="memory", record_ids="mem-update-docs") == ["mem-update-docs"]
    assert store.update("memory", "mem-update-docs", text="Updated note") == 1
    assert store.get("memory", "mem-update-docs").content == "Updated note"


# ---------------------------------------------------------------- search rules


@pytest.mark.parametrize("bad_k", [0, -1, 1.5, "3", True, None])
def test_search_k_must_be_at_least_one(store, bad_k):
    store.add(["anything"], record_ids="m1")
    with pytest.raises(ValueError, match="k"):
        store.search("anything", k=bad_k)


def test_search_needs_exactly_one_query(store):
    store.add(["anything"], record_ids="m1")
    with pytest.raises(ValueError, match="exactly one"):
        store.search(None, k=1)
    with pytest.raises(ValueError, match="exactly one"):
        store.search("anything", k=1, query_vector=[0.0] * store.vector_dim)


def test_search_rejects_empty_query_and_wrong_dimension(store):
    with pytest.raises(ValueError, match="non-empty"):
        store.search("   ", k=1)
    with pytest.raises(ValueError, match="dimensions"):
        store.search(query_vector=[0.1, 0.2], k=1)


@pytest.mark.parametrize("bad", [
    "zeros", "nan", "inf", "text",
])
def test_vectors_without_a_direction_are_refused_and_nothing_is_written(store, bad):
    dim = store.vector_dim
    vec = {"zeros": [0.0] * dim, "nan": [float("nan")] + [0.1] * (dim - 1),
           "inf": [float("inf")] + [0.1] * (dim - 1), "text": ["x"] * dim}[bad]
    store.add(["kept"], record_ids="k1", embeddings=[[0.1] * dim])
    with pytest.raises(ValueError, match="embedding"):
        store.add(["new"], record_ids="n1", embeddings=[vec])
    with pytest.raises(ValueError, match="embedding"):
        store.update("memory", "k1", embedding=vec)
    with pytest.raises(ValueError, match="embedding"):
        store.search(query_vector=vec, k=1)
    assert store.get("memory", "n1") is None
    assert [r.id for r, _ in store.search(query_vector=[0.1] * dim, k=5)] == ["k1"]


def test_search_sorted_by_increasing_distance(store):
    store.add(["container ship capacity", "pizza with cheese", "shipping lanes in Asia", "weather today"],
              record_ids=["a", "b", "c", "d"])
    results = store.search("vessel capacity", k=4)
    distances = [d for _, d in results]
    assert distances == sorted(distances)
    assert results[0][0].id == "a"
    assert len(results) == 4


def test_search_with_query_vector_matches_text_search(store, fresh_engine):
    store.add(["container ship capacity", "pizza with cheese"], record_ids=["a", "b"])
    vec = fresh_engine.model.embed(["ship capacity"])[0]
    by_vec = [(r.id, round(d, 4)) for r, d in store.search(query_vector=vec, k=2)]
    by_text = [(r.id, round(d, 4)) for r, d in store.search("ship capacity", k=2)]
    assert by_vec == by_text


def test_search_k_caps_results(store):
    store.add([f"note number {i}" for i in range(6)])
    assert len(store.search("note", k=3)) == 3


def test_metadata_filter_nested_is_partial_and_recursive(store):
    store.add(["pizza review"], record_ids="r1", metadata={"review": {"status": "open", "by": "ann"}, "x": 1})
    assert [r.id for r, _ in store.search("pizza", k=3, metadata_filter={"review": {"status": "open"}})] == ["r1"]
    assert store.search("pizza", k=3, metadata_filter={"review": {"status": "closed"}}) == []
    assert store.search("pizza", k=3, metadata_filter={"review": "open"}) == []
    assert store.search("pizza", k=3, metadata_filter={"missing": 1}) == []


def test_metadata_filter_lists_by_exact_equality(store):
    store.add(["pizza tags"], record_ids="t1", metadata={"tags": ["prod", "urgent"]})
    assert store.search("pizza", k=3, metadata_filter={"tags": ["urgent", "prod"]}) == []  # order matters
    assert store.search("pizza", k=3, metadata_filter={"tags": ["prod"]}) == []  # length matters
    assert len(store.search("pizza", k=3, metadata_filter={"tags": ["prod", "urgent"]})) == 1


def test_metadata_filter_applies_before_k(store):
    # The only matching record is far from the query; it must still be found with k=1.
    store.add(["pizza margherita", "pizza funghi", "tax law of 1999"], record_ids=["p1", "p2", "t"],
              metadata=[{"s": "a"}, {"s": "a"}, {"s": "b"}])
    assert [r.id for r, _ in store.search("pizza", k=1, metadata_filter={"s": "b"})] == ["t"]


def test_scope_flags(store):
    store.add(["pizza for ann"], record_ids="m-ann", user_ids="ann", agent_ids="bot")
    store.add(["pizza for bob"], record_ids="m-bob", user_ids="bob", agent_ids="bot")
    store.add(["pizza for nobody"], record_ids="m-none")
    everything = {r.id for r, _ in store.search("pizza", k=10, record_types={"memory"})}
    assert everything == {"m-ann", "m-bob", "m-none"}
    # exact_*_match=False leaves the dimension open even when an id is given.
    assert {r.id for r, _ in store.search("pizza", k=10, user_id="ann", record_types={"memory"})} == everything
    assert {r.id for r, _ in store.search("pizza", k=10, user_id="ann", exact_user_match=True)} == {"m-ann"}
    # exact match with None means "unscoped on that dimension".
    assert {r.id for r, _ in store.search("pizza", k=10, user_id=None, exact_user_match=True,
                                          record_types={"memory"})} == {"m-none"}
    assert {r.id for r, _ in store.search("pizza", k=10, agent_id="bot", exact_agent_match=True)} == {"m-ann", "m-bob"}


def test_profiles_are_scoped_by_their_actor_in_search(store):
    store.add_user("ann", "Ann loves pizza")
    store.add_agent("bot", "A pizza ordering bot")
    ids = {(r.record_type, r.id) for r, _ in store.search("pizza", k=10, user_id="ann", exact_user_match=True)}
    assert ("user_profile", "ann") in ids and ("agent_profile", "bot") not in ids
    ids = {(r.record_type, r.id) for r, _ in store.search("pizza", k=10, agent_id="bot", exact_agent_match=True)}
    assert ids == {("agent_profile", "bot")}
    # Default search covers messages, memories and profiles.
    store.add(["pizza message"], record_type="message", record_ids="msg1", thread_ids="t1")
    types = {r.record_type for r, _ in store.search("pizza", k=10)}
    assert types == {"user_profile", "agent_profile", "message"}


def test_record_types_filter(store):
    store.add(["pizza fact"], record_type="fact", record_ids="f1")
    store.add(["pizza memory"], record_type="memory", record_ids="m1")
    assert [r.id for r, _ in store.search("pizza", k=5, record_types={"fact"})] == ["f1"]
    with pytest.raises(ValueError, match="record_type"):
        store.search("pizza", k=5, record_types={"nonsense"})


# ---------------------------------------------------------------- add / get / list


def test_add_generates_ids_and_keeps_order(store):
    ids = store.add(["one", "two", "three"])
    assert len(ids) == 3 and len(set(ids)) == 3
    assert [r.content for r in store.list("memory")] == ["one", "two", "three"]


def test_add_duplicate_id_is_rejected_and_changes_nothing(store):
    store.add(["original"], record_ids="dup")
    with pytest.raises(ValueError, match="already exists"):
        store.add(["new one", "another"], record_ids=["fresh", "dup"])
    assert store.get("memory", "dup").content == "original"
    assert store.get("memory", "fresh") is None  # the batch rolled back as a whole


def test_add_rejects_bad_arguments(store):
    with pytest.raises(ValueError):
        store.add(["x"], record_type="user_profile")
    with pytest.raises(ValueError):
        store.add(["x", "y"], record_ids=["only-one"])
    with pytest.raises(ValueError):
        store.add(["x"], metadata="not a dict")
    with pytest.raises(ValueError):
        store.add(["x"], embeddings=[[0.1, 0.2]])


def test_get_is_typed(store):
    store.add(["a fact"], record_type="fact", record_ids="f1")
    assert store.get("memory", "f1") is None
    assert store.get("fact", "f1").record_type == "fact"
    with pytest.raises(ValueError):
        store.get("nonsense", "f1")


def test_list_limit_default_cap_and_none(store):
    store.list_limit = 3
    store.add([f"n{i}" for i in range(5)])
    assert len(store.list("memory")) == 3
    assert len(store.list("memory", limit=None)) == 5


def test_list_newest_reads_only_the_last_records_oldest_first(store):
    store.add([f"n{i}" for i in range(6)], record_ids=[f"r{i}" for i in range(6)], user_ids="ann")
    store.add(["other"], record_ids="o", user_ids="bob")
    assert [r.id for r in store.list("memory", limit=None, user_id="ann", newest=2)] == ["r4", "r5"]
    assert [r.id for r in store.list("memory", limit=None, user_id="ann", newest=50)] == [f"r{i}" for i in range(6)]
    assert store.list("memory", user_id="ann", newest=0) == []
    with pytest.raises(ValueError, match="newest"):
        store.list("memory", newest=-1)


def test_list_omitted_versus_none_scope(store):
    store.add(["scoped"], record_ids="s", user_ids="ann", thread_ids="t1")
    store.add(["unscoped"], record_ids="u")
    assert {r.id for r in store.list("memory")} == {"s", "u"}
    assert {r.id for r in store.list("memory", user_id=None)} == {"u"}
    assert {r.id for r in store.list("memory", user_id="ann")} == {"s"}
    assert {r.id for r in store.list("memory", thread_id=None)} == {"u"}
    assert {r.id for r in store.list("memory", thread_id="t1", user_id="ann")} == {"s"}


def test_list_metadata_filter_omitted_none_dict(store):
    store.add(["with"], record_ids="w", metadata={"a": {"b": 1}, "tags": ["x", "y"]})
    store.add(["without"], record_ids="wo")
    assert {r.id for r in store.list("memory")} == {"w", "wo"}
    assert {r.id for r in store.list("memory", metadata_filter=None)} == {"wo"}
    assert {r.id for r in store.list("memory", metadata_filter={"a": {"b": 1}})} == {"w"}
    assert {r.id for r in store.list("memory", metadata_filter={"tags": ["y", "x"]})} == set()


def test_profiles_ignore_scope_filters_in_list(store):
    store.add_user("ann", "info")
    assert [r.id for r in store.list("user_profile", user_id="someone-else")] == ["ann"]
    assert store.get("user_profile", "ann").user_id is None


def test_list_thread_messages_last_n(store):
    store.add(["m1", "m2", "m3"], record_type="message", thread_ids="c9", roles=["user", "assistant", "user"])
    msgs = store.list_thread_messages("c9")
    assert [m.content for m in msgs] == ["m1", "m2", "m3"]
    assert isinstance(msgs[0], MessageRecord) and msgs[1].role == "assistant"
    assert [m.content for m in store.list_thread_messages("c9", last_n=2)] == ["m2", "m3"]
    assert store.list_thread_messages("c9", last_n=0) == []


# ---------------------------------------------------------------- update


def test_update_semantics(store):
    store.add(["pizza original"], record_ids="u1", metadata={"v": 1})
    # text=None clears content and embedding: the record is no longer searchable.
    assert store.update("memory", "u1", text=None) == 1
    assert store.get("memory", "u1").content is None
    assert store.search("pizza", k=5) == []
    # index_text re-embeds without touching the content.
    assert store.update("memory", "u1", text="tax law", index_text="pizza margherita") == 1
    assert store.get("memory", "u1").content == "tax law"
    assert store.search("pizza margherita", k=1)[0][0].id == "u1"
    # "" keeps an explicit empty content and clears the embedding.
    assert store.update("memory", "u1", text="") == 1
    assert store.get("memory", "u1").content == ""
    assert store.search("pizza", k=5) == []
    # metadata replaces; None clears.
    assert store.update("memory", "u1", metadata={"v": 2}) == 1
    assert store.get("memory", "u1").metadata == {"v": 2}
    assert store.update("memory", "u1", metadata=None) == 1
    assert store.get("memory", "u1").metadata is None


def test_update_with_precomputed_embedding(store, fresh_engine):
    store.add(["tax law"], record_ids="e1")
    vec = fresh_engine.model.embed(["pizza"])[0]
    assert store.update("memory", "e1", embedding=vec) == 1
    assert store.search("pizza", k=1)[0][0].id == "e1"
    assert store.update("memory", "e1", embedding=None) == 1
    assert store.search("pizza", k=1) == []


def test_update_errors_and_missing(store):
    store.add(["x"], record_ids="x1")
    assert store.update("memory", "nope", text="y") == 0
    with pytest.raises(ValueError, match="at least one"):
        store.update("memory", "x1")
    with pytest.raises(ValueError):
        store.update("memory", "x1", text=None, index_text="y")
    with pytest.raises(ValueError):
        store.update("memory", "x1", index_text="y", embedding=[0.0] * store.vector_dim)
    with pytest.raises(ValueError):
        store.update("nonsense", "x1", text="y")
    assert store.get("memory", "x1").content == "x"


# ---------------------------------------------------------------- delete


def test_delete_thread_removes_messages_memories_and_chunks(store):
    store.add(["hello pizza", "bye pizza"], record_type="message", thread_ids="c2", user_ids="ann")
    store.add(["thread memory pizza"], record_ids="tm", thread_ids="c2")
    store.add(["other pizza"], record_ids="keep")
    assert store.delete_thread("c2") == 1
    assert store.list_thread_messages("c2") == []
    assert store.get("memory", "tm") is None
    assert [r.id for r, _ in store.search("pizza", k=10)] == ["keep"]
    assert store.delete("thread", "c2") == 0


def test_delete_cascade_user_profile(store):
    store.add_user("ann", "Ann")
    store.add(["ann thread msg"], record_type="message", thread_ids="t-ann", user_ids="ann")
    store.add(["ann memory"], record_ids="am", user_ids="ann")
    store.add(["ann fact"], record_type="fact", record_ids="af", user_ids="ann")
    store.add(["bob memory"], record_ids="bm", user_ids="bob")
    assert store.delete("user_profile", "ann", cascade=True) == 1
    assert store.get("user_profile", "ann") is None
    assert store.get("memory", "am") is None and store.get("fact", "af") is None
    assert store.list_thread_messages("t-ann") == []
    assert store.get("memory", "bm") is not None
    # Scoped cleanup runs even when the profile is already gone; it counts 0.
    store.add(["late ann memory"], record_ids="late", user_ids="ann")
    assert store.delete("user_profile", "ann", cascade=True) == 0
    assert store.get("memory", "late") is None


def test_delete_without_cascade_keeps_children(store):
    store.add_agent("bot", "Bot")
    store.add(["bot memory"], record_ids="bm", agent_ids="bot")
    assert store.delete("agent_profile", "bot") == 1
    assert store.get("memory", "bm") is not None


def test_cascade_rolls_back_as_one_transaction(store, monkeypatch):
    store.add_user("ann", "Ann")
    store.add(["ann memory"], record_ids="am", user_ids="ann")
    store.add(["ann msg"], record_type="message", thread_ids="t-ann", user_ids="ann")

    def boom(*args, **kwargs):
        raise RuntimeError("simulated failure half-way through the cascade")

    monkeypatch.setattr(store, "_cascade_actor", boom)
    with pytest.raises(RuntimeError, match="simulated"):
        store.delete("user_profile", "ann", cascade=True)
    assert store.get("user_profile", "ann") is not None  # the profile delete was rolled back too
    assert store.get("memory", "am") is not None
    assert len(store.list_thread_messages("t-ann")) == 1


def test_delete_rejects_unknown_type(store):
    with pytest.raises(ValueError):
        store.delete("nonsense", "x")


# ---------------------------------------------------------------- schema policies and prefixes


def test_schema_policies(fresh_engine):
    eng = fresh_engine
    with pytest.raises(SchemaError, match="missing"):
        MemoryStore(eng, schema_policy=SchemaPolicy.REQUIRE_EXISTING, table_name_prefix="P1_")
    s = MemoryStore(eng, schema_policy=SchemaPolicy.CREATE_IF_EMPTY, table_name_prefix="P1_")
    s.add(["kept"], record_ids="k")
    # Re-opening never destroys data.
    assert MemoryStore(eng, schema_policy="require_existing", table_name_prefix="P1_").get("memory", "k")
    assert MemoryStore(eng, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY, table_name_prefix="P1_").get("memory", "k")
    # A partial schema: CREATE_IF_EMPTY refuses, CREATE_IF_NECESSARY fills the gap.
    eng.backend.drop_objects(s.sql.DROP, ["THREADS"])
    with pytest.raises(SchemaError):
        MemoryStore(eng, schema_policy=SchemaPolicy.CREATE_IF_EMPTY, table_name_prefix="P1_")
    s2 = MemoryStore(eng, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY, table_name_prefix="P1_")
    assert s2.get("memory", "k").content == "kept"
    # RECREATE is the destructive one.
    s3 = MemoryStore(eng, schema_policy=SchemaPolicy.RECREATE, table_name_prefix="P1_")
    assert s3.get("memory", "k") is None
    eng.backend.drop_objects(s3.sql.DROP, [n for n, _ in s3.sql.SCHEMA])


def test_table_name_prefix_isolates_stores(fresh_engine):
    a = MemoryStore(fresh_engine, schema_policy="create_if_necessary", table_name_prefix="PA_")
    b = MemoryStore(fresh_engine, schema_policy="create_if_necessary", table_name_prefix="PB_")
    a.add(["only in a"], record_ids="x")
    assert b.get("memory", "x") is None
    with pytest.raises(ValueError, match="prefix"):
        MemoryStore(fresh_engine, table_name_prefix="bad; DROP TABLE x")
    with pytest.raises(ValueError, match="schema_policy"):
        MemoryStore(fresh_engine, schema_policy="sometimes")
    for s in (a, b):
        fresh_engine.backend.drop_objects(s.sql.DROP, [n for n, _ in s.sql.SCHEMA])


def test_memory_client_scopes_to_user_and_agent(fresh_engine):
    eng = fresh_engine
    eng.memory.add("vessel capacity is in TEU", metadata={"kind": "column", "subject": "S.V.C"})
    eng.store.add(["vessel capacity for someone else"], user_ids="other", agent_ids=eng.agent_id)
    hits = eng.memory.search("vessel capacity", record_types=["memory"], max_results=5)
    assert [h.content for h in hits] == ["vessel capacity is in TEU"]
    assert hits[0].metadata["kind"] == "column" and isinstance(hits[0].distance, float)


def test_scoped_search_matches_the_full_scan(store):
    """An agent's turn (one type, exact user and agent) reads the nearest-neighbour statement;
    it must give what the full scan gives, and widen until a metadata filter finds k rows."""
    texts = [f"reefer container note {i} about cold chain temperature" for i in range(40)]
    texts += ["tax law of 1999 has nothing to do with ships"]
    metas = [{"n": i, "tag": "common"} for i in range(40)] + [{"n": 40, "tag": "rare"}]
    store.add(texts, user_ids="ann", agent_ids="bot", metadata=metas)
    store.add(["reefer note for someone else"], user_ids="bob", agent_ids="bot")
    scoped = dict(user_id="ann", agent_id="bot", exact_user_match=True, exact_agent_match=True)
    fast = store.search("reefer temperature", k=5, record_types={"memory"}, **scoped)
    scan = store.search("reefer temperature", k=5, record_types={"memory", "fact"}, **scoped)  # two types: full scan
    assert [(r.id, round(d, 6)) for r, d in fast] == [(r.id, round(d, 6)) for r, d in scan]
    rare = store.search("reefer temperature", k=1, record_types={"memory"}, metadata_filter={"tag": "rare"}, **scoped)
    assert [r.content for r, _ in rare] == [texts[-1]]
    assert all(r.user_id == "ann" for r, _ in store.search("reefer", k=50, record_types={"memory"}, **scoped))


def test_scoped_search_with_huge_k(store):
    store.add(["reefer one", "reefer two"], user_ids="ann", agent_ids="bot")
    hits = store.search("reefer", k=10_000, user_id="ann", agent_id="bot", exact_user_match=True,
                        exact_agent_match=True, record_types={"memory"})
    assert len(hits) == 2


# ---------------------------------------------------------------- scopes and threads
def test_an_id_held_by_another_scope_is_refused_with_the_scope(store):
    """Ids are unique per record type across the store (get/update/delete take no scope)."""
    store.add(["ann's"], record_ids="shared-id", user_ids="ann", agent_ids="a1")
    with pytest.raises(ValueError, match="another scope.*'ann'"):
        store.add(["bob's"], record_ids="shared-id", user_ids="bob", agent_ids="a1")
    assert store.get("memory", "shared-id").content == "ann's"


def test_a_thread_belongs_to_the_user_who_started_it(store):
    store.add(["ann starts"], record_type="message", thread_ids="t-own", user_ids="ann")
    with pytest.raises(ValueError, match="belongs to another user"):
        store.add(["bob joins"], record_type="message", thread_ids="t-own", user_ids="bob")
    store.add(["unscoped thread memory"], record_ids="t-own-mem", thread_ids="t-own")  # documented: allowed
    assert [m.content for m in store.list_thread_messages("t-own")] == ["ann starts"]


def test_reading_the_store_never_creates_tables(tmp_path):
    """Store creation is explicit: connect(create=True), prepare() or open_store()."""
    import sqlean

    from workshop_lib import connect

    sqlean.connect(str(tmp_path / "workshop.sqlite")).close()  # an empty database file, no store tables
    eng = connect("embedded", path=tmp_path, create=False)
    before = eng.backend.object_names()
    with pytest.raises(SchemaError, match=r"eng.open_store\(\)"):
        eng.store.count()
    assert eng.backend.object_names() == before
    eng.open_store()
    assert eng.store.count() == 0 and {"RECORDS", "THREADS"} <= eng.backend.object_names()
    eng.close()


# ---------------------------------------------------------------- the records form of add


def test_add_records_stores_each_drafts_values_like_the_list_form(store):
    from workshop_lib.core.records import RecordDraft
    ids = store.add_records([RecordDraft("Draft one about cranes", id="draft-one", metadata={"source": "drafts"},
                                         user_id="u-draft", agent_id="a-draft"),
                             RecordDraft("Draft two about berths", user_id="u-draft")])
    assert ids[0] == "draft-one" and len(ids) == 2 and ids[1] != ids[0]
    one, two = store.get("memory", ids[0]), store.get("memory", ids[1])
    assert (one.content, one.metadata, one.user_id, one.agent_id) == ("Draft one about cranes", {"source": "drafts"},
                                                                      "u-draft", "a-draft")
    assert (two.content, two.user_id, two.agent_id) == ("Draft two about berths", "u-draft", None)
    assert store.add_records([]) == []


def test_add_records_keeps_a_messages_roles_and_thread(store):
    from workshop_lib.core.records import RecordDraft
    store.add_records([RecordDraft("Where is the Aurelia?", thread_id="t-drafts", user_id="u-draft"),
                       RecordDraft("Off Lisbon.", thread_id="t-drafts", user_id="u-draft", role="assistant")],
                      record_type="message")
    assert [(m.role, m.content) for m in store.list_thread_messages("t-drafts")] == [
        ("user", "Where is the Aurelia?"), ("assistant", "Off Lisbon.")]


@pytest.mark.parametrize("records, problem", [
    ("just a string", "must be a list of RecordDraft"),
    ("one draft", r"must be a list of RecordDraft, got RecordDraft \(one record goes in a list of one"),
    (["a plain string in the list"], r"must be RecordDraft values, got str \(from workshop_lib import RecordDraft;"),
    ("embeddings", "1 of 2 records carry an embedding"),
])
def test_add_records_refuses_what_is_not_a_list_of_drafts_and_stores_nothing(store, records, problem):
    from workshop_lib.core.records import RecordDraft
    if records == "one draft":
        records = RecordDraft("not in a list", id="draft-vec")
    if records == "embeddings":
        records = [RecordDraft("with a vector", id="draft-vec", embedding=[0.0] * store.engine.model.dim),
                   RecordDraft("without one", id="draft-novec")]
    with pytest.raises(ValueError, match=problem):
        store.add_records(records)
    assert store.get("memory", "draft-vec") is None and store.get("memory", "draft-novec") is None


def test_the_notebooks_import_record_draft_from_the_package():
    import workshop_lib
    from workshop_lib.core.records import RecordDraft
    assert workshop_lib.RecordDraft is RecordDraft and "RecordDraft" in workshop_lib.__all__


def test_add_records_is_all_or_nothing(store):
    from workshop_lib.core.records import RecordDraft
    with pytest.raises(ValueError, match="unique"):
        store.add_records([RecordDraft("first", id="draft-twice"), RecordDraft("second", id="draft-twice")])
    assert store.get("memory", "draft-twice") is None

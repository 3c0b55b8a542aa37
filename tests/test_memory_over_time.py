"""Memory over time on both engines: status, supersession, expiry, history, erasure, the write
path, the running summary, the budgeted card, the agent and the chat service.

The Oracle lane runs with ORACLE_DSN (a scratch prefix) and is skipped with its reason otherwise.
"""
from __future__ import annotations

import os
import sqlite3
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from tests.conftest import ENGINES, ORACLE_SKIP_REASON
from workshop_lib import connect
from workshop_lib.core.llm import fake_response, scripted
from workshop_lib.core.store import SchemaPolicy
from workshop_lib.parts import retrieval
from workshop_lib.parts.agent import memory as agent_memory
from workshop_lib.parts.memory import card, card_answer, extract, summary, writer
from workshop_lib.parts.memory.consolidate import Neighbour, decide
from workshop_lib.prepare import prepare

U, A = "ana", "memory_agent"


def _skip_without_oracle(name: str) -> None:
    if name == "oracle" and not os.environ.get("ORACLE_DSN"):
        pytest.skip(ORACLE_SKIP_REASON)


@pytest.fixture(params=ENGINES)
def eng(request, tmp_path):
    """An empty store (a temporary folder; on Oracle a scratch prefix, dropped afterwards)."""
    _skip_without_oracle(request.param)
    if request.param == "embedded":
        engine = connect("embedded", path=tmp_path)
        engine.open_store()
        yield engine
        engine.close()
        return
    engine = connect("oracle")
    scratch = engine.open_store(SchemaPolicy.RECREATE, table_name_prefix="T" + uuid.uuid4().hex[:8].upper() + "_")
    yield engine
    engine.backend.drop_objects(scratch.mem.DROP, [n for n, _ in scratch.mem.MIGRATIONS][::-1])
    engine.backend.drop_objects(scratch.sql.DROP, [n for n, _ in scratch.sql.SCHEMA])
    engine.close()


def _knowledge_ids(e, query: str) -> dict[str, set[str]]:
    """Ids every read path returns for `query` in the engine's own scope."""
    paths = {
        "store.search": {r.id for r, _ in e.store.search(query, k=50)},
        "store.search (scoped)": {r.id for r, _ in e.store.search(query, k=50, user_id=e.user_id, agent_id=e.agent_id,
                                                                  exact_user_match=True, exact_agent_match=True,
                                                                  record_types={"memory"})},
        "store.search (vector)": {r.id for r, _ in e.store.search(query_vector=e.model.embed([query])[0], k=50)},
        "store.list": {r.id for r in e.store.list("memory", limit=None)},
        "keyword": {h["record_id"] for h in retrieval.keyword_search_memories(e, query, k=50)},
        "hybrid": {h["record_id"] for h in retrieval.hybrid_rrf_search_memories(e, query, k=50)},
        "vector ranked": set(retrieval.vector_ranked_ids(e, query, n=50)),
        "retrieve_knowledge": {h["metadata"].get("rid") for h in retrieval.retrieve_knowledge(e, query, k=20)},
    }
    return paths


def _add_knowledge(e, rid: str, text: str) -> str:
    return e.store.add([text], record_ids=rid, metadata={"kind": "note", "subject": "home port", "rid": rid},
                       user_ids=e.user_id, agent_ids=e.agent_id)[0]


# ---------------------------------------------------------------- status on every read path
@pytest.mark.parametrize("status", ["superseded", "forgotten", "expired"])
def test_a_memory_that_is_not_valid_leaves_every_read_path(eng, status):
    old = _add_knowledge(eng, "m-old", "The home port of the analyst is Rotterdam harbour")
    new = _add_knowledge(eng, "m-new", "The home port of the analyst is Hamburg harbour")
    for path, ids in _knowledge_ids(eng, "home port harbour Rotterdam").items():
        assert {old, new} <= ids, path
    kwargs = {"replaced_by": new} if status == "superseded" else {}
    assert eng.store.set_status("memory", old, status, by=U, reason="test", **kwargs) == 1
    for path, ids in _knowledge_ids(eng, "home port harbour Rotterdam").items():
        assert old not in ids and new in ids, f"{path} returned a {status} memory"
    assert [r.id for r in eng.store.list("memory", limit=None, include_history=True)] == [old, new]
    state = eng.store.status("memory", old)
    assert (state.status, state.changed_by, state.reason, state.live) == (status, U, "test", False)
    assert state.replaced_by == (new if status == "superseded" else None)


def test_expiry_hides_a_memory_before_and_after_the_sweep(eng):
    soon = _add_knowledge(eng, "m-soon", "The quay crane booking holds until Friday")
    later = _add_knowledge(eng, "m-later", "The quay crane contract runs for ten years")
    now = datetime.now(UTC)
    eng.store.set_expiry("memory", soon, now - timedelta(seconds=1))
    eng.store.set_expiry("memory", later, now + timedelta(days=365))
    for path, ids in _knowledge_ids(eng, "quay crane booking").items():
        assert soon not in ids and later in ids, path  # past its expiry, not yet swept
    assert eng.store.expire_due() == 1
    assert eng.store.status("memory", soon).status == "expired"
    assert eng.store.status("memory", later).live
    assert eng.store.expire_due() == 0


def test_marking_valid_again_restores_search(eng):
    rid = _add_knowledge(eng, "m-back", "Our broker for customs is Kuehne Nagel")
    eng.store.set_status("memory", rid, "forgotten", by=U)
    assert rid not in {r.id for r, _ in eng.store.search("customs broker", k=10)}
    eng.store.set_status("memory", rid, "valid", by=U, reason="said again")
    assert rid in {r.id for r, _ in eng.store.search("customs broker", k=10)}


@pytest.mark.parametrize("call, message", [
    (lambda s: s.set_status("memory", "m1", "deleted", by=U), "status must be one of"),
    (lambda s: s.set_status("memory", "m1", "superseded", by=U), "replaced_by is required"),
    (lambda s: s.set_status("memory", "m1", "forgotten", by=U, replaced_by="m2"), "replaced_by is required"),
    (lambda s: s.set_status("memory", "m1", "forgotten", by=""), "by must name"),
    (lambda s: s.set_status("message", "m1", "forgotten", by=U), "only memories have a status"),
    (lambda s: s.set_status("memory", "m1", "superseded", by=U, replaced_by="other"), "same user and agent scope"),
    (lambda s: s.set_expiry("memory", "m1", datetime(2030, 1, 1)), "time zone"),
    (lambda s: s.set_expiry("memory", "m1", "next week"), "ISO-8601"),
    (lambda s: s.history(user_id=U, agent_id=A, record_types=["message"]), "memory types"),
])
def test_bad_status_input_is_a_clear_error(eng, call, message):
    eng.store.add(["one"], record_ids="m1", user_ids=U, agent_ids=A)
    eng.store.add(["two"], record_ids="other", user_ids="bob", agent_ids=A)
    with pytest.raises(ValueError, match=message):
        call(eng.store)
    assert eng.store.status("memory", "m1").status == "valid"


def test_a_subjects_history_shows_every_version_with_who_when_why(eng):
    for text in ("My home port is Rotterdam.", "Actually, my home port is Hamburg.", "Forget my home port."):
        writer.observe_user_turn(eng, text, user_id=U, agent_id=A, thread_id="t1")
    hist = eng.store.history(user_id=U, agent_id=A, subject="home port")
    assert [(h.record.content, h.state.status) for h in hist] == [
        ("My home port is Rotterdam.", "superseded"), ("My home port is Hamburg.", "forgotten")]
    assert hist[0].state.replaced_by == hist[1].record.id
    assert all(h.state.changed_by == U and h.state.changed_at and "the user said" in h.state.reason for h in hist)
    assert eng.store.list("fact", limit=None, user_id=U, agent_id=A) == []


# ---------------------------------------------------------------- migration of an existing store
def test_an_existing_store_gets_the_new_tables_without_losing_data(tmp_path):
    eng = connect("embedded", path=tmp_path)
    eng.open_store()
    eng.store.add(["The home port is Rotterdam", "hello"], record_type="memory", record_ids=["k1", "k2"],
                  user_ids=eng.user_id, agent_ids=eng.agent_id)
    eng.store.add(["first message"], record_type="message", thread_ids="th", user_ids=U, agent_ids=A)
    db = eng.path  # type: ignore[attr-defined]
    eng.close()
    # Make it a store of the previous version: the same file without the memory-over-time tables.
    con = sqlite3.connect(db)
    con.execute("DROP TABLE MEMORY_STATUS")
    con.execute("DROP TABLE MEMORY_AUDIT")
    con.commit()
    con.close()
    old = connect("embedded", path=tmp_path, create=False)
    store = old.store  # REQUIRE_EXISTING: opening adds only what later versions introduced
    assert {"MEMORY_STATUS", "MEMORY_AUDIT"} <= old.backend.object_names()
    assert store.count() == 3 and store.get("memory", "k1").content == "The home port is Rotterdam"
    assert [r.id for r, _ in store.search("home port Rotterdam", k=1)] == ["k1"]
    assert store.set_status("memory", "k1", "forgotten", by="test") == 1
    assert "k1" not in {h["record_id"] for h in retrieval.keyword_search_memories(old, "Rotterdam")}
    old.close()


# ---------------------------------------------------------------- erasure
def test_erasing_a_user_leaves_nothing_in_any_record_or_index_and_is_audited(eng):
    eng.store.add_user(U, "Ana, an analyst in Oslo")
    for text in ("My home port is Trondheimsfjord.", "Our zebracarrier quote is 777 cents.",
                 "Answer in dollars, not cents.", "Filler about Kristiansund and nothing else."):
        writer.observe_user_turn(eng, text, user_id=U, agent_id=A, thread_id="t-ana")
        eng.store.add([text], record_type="message", thread_ids="t-ana", user_ids=U, agent_ids=A)
    writer.fold_thread(eng, "t-ana", user_id=U, message_budget=5, summary_budget=100)
    writer.observe_user_turn(eng, "My home port is Bergen.", user_id="bob", agent_id=A, thread_id="t-bob")
    terms = ["Trondheimsfjord", "zebracarrier", "Kristiansund"]
    before = eng.store.user_trace(U, terms)
    assert before["records"] >= 8 and before["text_index_matches"] >= 3 and before["threads"] == 1
    detail = eng.store.erase_user(U, by="dpo", reason="erasure request 42")
    assert detail["records"] == before["records"]
    after = eng.store.user_trace(U, terms)
    assert before["text_index_tokens"] >= 3 and before["audit_rows_naming_user"] == 0
    assert set(after) >= {"records", "threads", "orphan_chunks", "vector_index_rows", "text_index_matches",
                          "text_index_tokens", "cache_rows", "cache_text_rows", "chat_log_rows",
                          "audit_rows_naming_user"}
    assert not any(after.values()), after
    assert ("file_term_bytes" in after) == (eng.name == "embedded")
    audit = eng.store.audit_log()[-1]
    assert audit["action"] == "erase_user" and audit["by"] == "dpo" and U not in str(audit)
    assert audit["subject_hash"] == eng.store.subject_hash(U)
    assert audit["detail"]["reason"] == "erasure request 42"
    assert [r.content for r in eng.store.list("fact", limit=None, user_id="bob")] == ["My home port is Bergen."]


# ---------------------------------------------------------------- extraction
@pytest.mark.parametrize("text, want", [
    ("My home port is Rotterdam.", ("fact", "home port", "Rotterdam", "remember")),
    ("Remember that our main carrier is Maersk.", ("fact", "main carrier", "Maersk", "remember")),
    ("Keep in mind that my budget is 40000 cents.", ("fact", "budget", "40000 cents", "remember")),
    ("I prefer answers in cents.", ("preference", "currency unit", "answers in cents", "remember")),
    ("Answer in dollars, not cents.", ("preference", "currency unit", "Answer in dollars, not cents", "remember")),
    ("From now on, answer in one sentence.", ("guideline", "answer length", "answer in one sentence", "remember")),
    ("Please forget my home port.", ("fact", "home port", "", "forget")),
    ("I work for Acme Logistics.", ("fact", "employer", "Acme Logistics", "remember")),
    ("Actually, my manager is Kari now.", ("fact", "manager", "Kari", "remember")),
    ("I am a freight analyst.", ("fact", "role", "freight analyst", "remember")),
    ("I'm based in Oslo.", ("fact", "location", "Oslo", "remember")),
])
def test_offline_extractor_reads_cues_and_plain_statements(text, want):
    (c,) = extract.extract_offline(text)
    assert (c.record_type, c.subject, c.value, c.op) == want


def test_offline_extractor_resolves_it_to_the_last_subject_and_states_its_limits():
    (c,) = extract.extract_offline("Actually it is Hamburg.", last_subject="home port")
    assert (c.subject, c.value, c.text) == ("home port", "Hamburg", "My home port is Hamburg.")
    assert extract.extract_offline("Actually it is Hamburg.") == []          # no subject to resolve "it" to
    assert extract.extract_offline("What is my home port?") == []           # a question states nothing
    assert extract.extract_offline("My home port is not Rotterdam.") == []  # negation is not understood
    assert extract.extract_offline("Show me voyage 1001.") == []            # a request, not a preference
    (c,) = extract.extract_offline("Remember that CARGO_ITEMS.UNIT_VALUE_CENTS is in US cents.")
    assert (c.record_type, c.kind) == ("memory", "correction")


def test_model_extraction_is_validated_and_falls_back_to_the_rules():
    good = scripted(fake_response('{"memories": [{"type": "fact", "subject": "Home Port", '
                                  '"value": "Oslo", "text": "My home port is Oslo", "op": "remember"}]}'))
    cands, how = extract.extract_with_model(good, "we moved everything to Oslo last spring")
    assert how == "model" and [(c.record_type, c.subject, c.value) for c in cands] == [("fact", "home port", "Oslo")]
    for bad in ('not json', '{"memories": [{"type": "secret", "text": "x"}]}', '{"memories": "x"}',
                '{"memories": [{"type": "fact", "text": 5}]}', '{"memories": [' + ','.join(['{"type":"fact","text":"a"}'] * 9) + ']}'):
        cands, how = extract.extract_with_model(scripted(fake_response(bad)), "My home port is Oslo.")
        assert how.startswith("rules (model output refused") and [c.value for c in cands] == ["Oslo"], bad


# ---------------------------------------------------------------- consolidation
T = {"memory_duplicate": 0.65, "memory_forget": 0.52}


def _n(i, subject, value, sim, record_type="fact"):
    return Neighbour(f"f{i}", record_type, f"My {subject} is {value}.", subject, value, sim)


@pytest.mark.parametrize("cand, neighbours, action, targets", [
    (extract.Candidate("fact", "My home port is Oslo.", "home port", "Oslo"), [], "ADD", ()),
    (extract.Candidate("fact", "My home port is Oslo.", "home port", "Oslo"), [_n(1, "home port", "Bergen", 0.9)], "SUPERSEDE", ("f1",)),
    (extract.Candidate("fact", "My home port is Oslo.", "home port", "Oslo"), [_n(1, "home port", "oslo", 0.99)], "SKIP", ("f1",)),
    (extract.Candidate("fact", "My home port is Oslo, pier 3.", "home port", "Oslo, pier 3"),
     [_n(1, "home port", "Oslo", 0.9)], "UPDATE", ("f1",)),
    (extract.Candidate("fact", "My home port is Oslo.", "home port", "Oslo"),
     [_n(1, "home port", "Bergen", 0.9, "preference")], "ADD", ()),
    (extract.Candidate("fact", "home port", "home port", "", op="forget"), [_n(1, "home port", "Oslo", 0.3)], "FORGET", ("f1",)),
    (extract.Candidate("fact", "the cat", "the cat", "", op="forget"), [_n(1, "home port", "Oslo", 0.1)], "SKIP", ()),
    (extract.Candidate("fact", "We ship reefers.", "", ""), [_n(1, "", "", 0.9)], "SKIP", ("f1",)),
    (extract.Candidate("fact", "We ship reefers.", "", ""), [_n(1, "", "", 0.3)], "ADD", ()),
])
def test_consolidation_decisions(cand, neighbours, action, targets):
    d = decide(cand, neighbours, T)
    assert (d.action, d.targets) == (action, targets) and d.reason


def test_write_path_is_scoped_to_the_user(eng):
    writer.observe_user_turn(eng, "My home port is Valencia.", user_id="a", agent_id=A)
    done = writer.observe_user_turn(eng, "My home port is Bilbao.", user_id="b", agent_id=A)
    assert [d.decision.action for d in done] == ["ADD"]  # b's statement never supersedes a's
    writer.observe_user_turn(eng, "Forget my home port.", user_id="b", agent_id=A)
    assert [r.content for r in eng.store.list("fact", limit=None, user_id="a")] == ["My home port is Valencia."]
    assert eng.store.list("fact", limit=None, user_id="b") == []


def test_forget_never_reaches_schema_knowledge(eng):
    eng.store.add(["VOYAGES.STATUS is the voyage status: ACTIVE, COMPLETED or PLANNED"], user_ids=U, agent_ids=A,
                  metadata={"kind": "column", "subject": "SUPPLYCHAIN.VOYAGES.STATUS"})
    writer.observe_user_turn(eng, "Our voyage status report is due on Mondays.", user_id=U, agent_id=A)
    (done,) = writer.observe_user_turn(eng, "Forget the voyage status report.", user_id=U, agent_id=A)
    assert done.decision.action == "FORGET" and len(done.decision.targets) == 1
    assert eng.store.list("fact", limit=None, user_id=U, agent_id=A) == []
    assert eng.store.list("memory", limit=None, user_id=U, agent_id=A)[0].metadata["kind"] == "column"


def test_thresholds_are_set_per_engine(eng):
    t = writer.thresholds(eng)
    assert 0 < t["memory_forget"] < t["memory_duplicate"] < 1


# ---------------------------------------------------------------- summary and card
def test_compaction_keeps_the_newest_within_budget_and_folds_the_rest():
    msgs = [summary.Turn("user", "w " * n) for n in (5, 4, 3, 2, 1)]
    count = lambda t: len(t.split())  # noqa: E731
    c = summary.compact(msgs, 6, count)
    assert [len(m.text.split()) for m in c.fold] == [5, 4] and [len(m.text.split()) for m in c.keep] == [3, 2, 1]
    assert summary.compact(msgs, 100, count).fold == []
    c = summary.compact(msgs, 0, count)
    assert len(c.keep) == 1 and c.fold == msgs[:4]
    with pytest.raises(ValueError):
        summary.compact(msgs, -1, count)


def test_the_summary_is_its_own_record_and_never_knowledge(eng):
    for i in range(12):
        eng.store.add([f"We discussed voyage {1000 + i} at Rotterdam and decided to rebook it."], record_type="message",
                      thread_ids="th", user_ids=eng.user_id, agent_ids=eng.agent_id)
    comp = writer.fold_thread(eng, "th", user_id=eng.user_id, message_budget=40, summary_budget=60)
    assert comp.fold and comp.keep
    text, upto = writer.read_summary(eng, "th")
    folded = {m.text for m in comp.fold}
    assert upto == len(comp.fold) and text and all(ln.split(": ", 1)[1] in folded for ln in text.splitlines())
    assert eng.model.count_tokens(text) <= 60
    for path, ids in _knowledge_ids(eng, "voyage rebook Rotterdam").items():
        if path != "store.list":  # the contract's listing of every memory, not a knowledge read
            assert writer.summary_id("th") not in ids, path
    assert eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id) == []


def test_the_card_stays_within_budget_and_keeps_what_the_user_set(eng):
    T_ = "t-card"
    for text in ["My home port is Hamburg.", "Answer in dollars, not cents."] + [
            f"Tell me about voyage {1000 + i} and its containers at Busan." for i in range(30)]:
        writer.observe_user_turn(eng, text, user_id=U, agent_id=A, thread_id=T_)
        eng.store.add([text, "ok"], record_type="message", thread_ids=T_, user_ids=U, agent_ids=A, roles=["user", "assistant"])
        writer.fold_thread(eng, T_, user_id=U, message_budget=80, summary_budget=60)
    c = card.memory_card(eng, T_, "What is my home port?", user_id=U, agent_id=A, budget=150)
    assert c.total_tokens <= 150 and set(c.tokens) == {"settings", "facts", "knowledge", "summary", "recent"}
    assert c.settings == ["Answer in dollars, not cents."] and "My home port is Hamburg." in c.facts
    assert card_answer.answer_from_card(c, "What is my home port?") == "Your home port is Hamburg."
    assert card.memory_card(eng, T_, "x", user_id=U, agent_id=A, mode="off").total_tokens == 0


def test_the_card_files_preferences_guidelines_and_corrections_under_their_own_headings(eng):
    eng.store.add(["Answer in dollars, not cents."], record_type="preference", user_ids=U, agent_ids=A)
    eng.store.add(["Always name the table you read."], record_type="guideline", user_ids=U, agent_ids=A)
    eng.store.add(["VOYAGES.STATUS 'H' means on hold."], metadata={"kind": "correction"}, user_ids=U, agent_ids=A)
    text = card.memory_card(eng, "t-heads", "What is my home port?", user_id=U, agent_id=A).text()
    blocks = {b.partition(":\n")[0]: b.partition(":\n")[2] for b in text.split("\n\n")}
    assert blocks[agent_memory.PREFERENCES_HEADER] == "- Answer in dollars, not cents."
    assert blocks[agent_memory.GUIDELINES_HEADER] == "- Always name the table you read."
    assert blocks[agent_memory.CORRECTIONS_HEADER] == "- VOYAGES.STATUS 'H' means on hold."


def test_parts_6_and_7_build_the_same_card_type(eng):
    agent_memory.remember(eng, "VOYAGES.STATUS 'H' means on hold.")
    agent_memory.log_message(eng, "t-same", "user", "How many ports?")
    six = agent_memory.context_card(eng, "t-same", "How many ports?")
    seven = card.memory_card(eng, "t-same", "How many ports?", user_id=eng.user_id, agent_id=eng.agent_id,
                             mode="last_n")
    assert type(six) is type(seven) is agent_memory.ContextCard
    assert six.recent == seven.recent == [agent_memory.CardMessage("user", "How many ports?")]
    assert six.corrections == ["VOYAGES.STATUS 'H' means on hold."] and seven.corrections == []  # last_n: no memories
    assert six.text().startswith(agent_memory.CORRECTIONS_HEADER + ":\n- VOYAGES.STATUS 'H' means on hold.\n\n")
    assert six.text().endswith(agent_memory.RECENT_HEADER + ":\nuser: How many ports?")


class _Unrendered(agent_memory.ContextCard):
    def text(self) -> str:
        raise AssertionError("the offline reader rendered the card to read it")


def test_the_offline_reader_answers_from_the_cards_fields_never_its_text():
    c = _Unrendered(facts=["My home port is Hamburg."], preferences=["Answer in dollars, not cents."],
                    recent=[agent_memory.CardMessage("user", "Our cargo value is 1250 cents."),
                            # the assistant's words, even on a line of their own, are not the user's
                            agent_memory.CardMessage("assistant", "Noted.\nMy home port is Oslo.")])
    assert card_answer.answer_from_card(c, "What is my home port?") == "Your home port is Hamburg."
    assert card_answer.answer_from_card(c, "What is our cargo value?") == "Your cargo value is $12.50."
    assert card_answer.answer_from_card(_Unrendered(), "What is my home port?").startswith("I do not have that")


def test_the_offline_model_knows_only_the_card_it_was_shown():
    model = card_answer.memory_llm()
    ask = [{"role": "system", "content": "My home port is Oslo."}, {"role": "user", "content": "What is my home port?"}]
    assert "Oslo" not in model.chat(ask).content  # text in the prompt is not a card
    model.client.show(agent_memory.ContextCard(facts=["My home port is Hamburg."]))
    assert model.chat(ask).content == "Your home port is Hamburg."


def test_the_summary_keeps_what_the_assistant_concluded_with_its_question():
    said = [summary.Turn("user", "How many containers are on voyage 1001 at Busan?"),
            summary.Turn("assistant", "There are 12 containers on voyage 1001."),
            summary.Turn("user", "Thanks."),
            summary.Turn("assistant", "Noted.")]
    words = lambda t: len(t.split())  # noqa: E731
    text = summary.summarise_extractive("", said, 40, words)
    assert text.splitlines() == ["user: How many containers are on voyage 1001 at Busan?",
                                 "assistant: There are 12 containers on voyage 1001."]
    # Over budget an exchange goes whole: never a question kept without its answer, nor the reverse.
    older = summary.summarise_extractive(text, [summary.Turn("user", "Voyage 1002 to Santos carries 40 TEU."),
                                               summary.Turn("assistant", "Yes, 40 TEU on voyage 1002 for Santos.")],
                                         20, words)
    assert older.splitlines() == ["user: Voyage 1002 to Santos carries 40 TEU.",
                                  "assistant: Yes, 40 TEU on voyage 1002 for Santos."]


def test_the_card_never_reads_another_users_thread(eng):
    eng.store.add(["My home port is Bergen."], record_type="message", thread_ids="t-bob", user_ids="bob", agent_ids=A)
    with pytest.raises(ValueError, match="belongs to another user"):
        card.memory_card(eng, "t-bob", "What is my home port?", user_id=U, agent_id=A)
    with pytest.raises(ValueError, match="belongs to another user"):
        writer.fold_thread(eng, "t-bob", user_id=U, message_budget=0, summary_budget=50)


def test_a_forgotten_fact_is_scrubbed_from_the_summary(eng):
    T_ = "t-scrub"
    for text in ["Our secret supplier is Zanzibar Cables."] + [f"Voyage {1000 + i} left Busan on time." for i in range(12)]:
        eng.store.add([text], record_type="message", thread_ids=T_, user_ids=U, agent_ids=A)
        writer.observe_user_turn(eng, text, user_id=U, agent_id=A, thread_id=T_)
    writer.fold_thread(eng, T_, user_id=U, message_budget=30, summary_budget=200)
    assert "Zanzibar" in writer.read_summary(eng, T_)[0]
    writer.observe_user_turn(eng, "Forget our secret supplier.", user_id=U, agent_id=A, thread_id=T_)
    assert "Zanzibar" not in writer.read_summary(eng, T_)[0]
    c = card.memory_card(eng, T_, "Who is our secret supplier?", user_id=U, agent_id=A)
    assert "Zanzibar" not in c.text()


# ---------------------------------------------------------------- the agent and the chat service
@pytest.fixture(scope="module", params=ENGINES)
def prepared(request, tmp_path_factory):
    _skip_without_oracle(request.param)
    engine = (connect("embedded", path=tmp_path_factory.mktemp("memagent")) if request.param == "embedded"
              else connect("oracle"))
    prepare(engine, progress=False)
    yield engine
    engine.close()


def test_the_agent_recalls_corrects_applies_and_forgets(prepared):
    from workshop_lib.parts.agent import toolbox

    e, llm, thread = prepared, card_answer.memory_llm(), f"agent-{uuid.uuid4().hex[:6]}"
    registry = toolbox.build_registry(e)

    def turn(q):
        return card_answer.memory_turn(e, llm, registry, thread, q)

    turn("My home port is Rotterdam.")
    turn("Our main carrier is Maersk.")
    for i in range(12):
        turn(f"How many containers are on voyage {1001 + i}?")
    assert "Rotterdam" in turn("What is my home port?").answer                 # stated without "remember"
    turn("Actually, my home port is Hamburg.")
    reply = turn("What is my home port?").answer
    assert "Hamburg" in reply and "Rotterdam" not in reply                    # the later statement wins
    turn("Answer in dollars, not cents.")
    value = turn("What is the declared value of the cargo on voyage 1001?")
    assert "$" in value.answer and "dollars" in value.answer                  # the preference is applied
    turn("Please forget our main carrier.")
    assert "Maersk" not in turn("What is our main carrier?").answer           # forgotten
    assert all(t <= 600 for t in [value.card.total_tokens])


def test_the_chat_service_writes_and_forgets_in_the_users_scope(prepared):
    from workshop_lib.parts.chat import app as chat_app

    with TestClient(chat_app.create_app(prepared)) as client:
        ok = client.post("/chat", json={"question": "My home port is Tromso.", "user_id": "chat_ana"})
        assert ok.status_code == 200
        client.post("/chat", json={"question": "My home port is Narvik.", "user_id": "chat_bob"})
        client.post("/chat", json={"question": "Forget my home port.", "user_id": "chat_bob"})
    ana = [r.content for r in prepared.store.list("fact", limit=None, user_id="chat_ana")]
    bob = prepared.store.history(user_id="chat_bob", agent_id=prepared.agent_id)
    assert ana == ["My home port is Tromso."]
    assert [(h.record.content, h.state.status) for h in bob] == [("My home port is Narvik.", "forgotten")]
    # Erasure reaches the chat log too (its rows carry the user id).
    assert prepared.store.erase_user("chat_bob", by="test")["chat_log_rows"] == 2
    assert prepared.query("SELECT COUNT(*) FROM CHAT_INTERACTIONS WHERE user_id = :u", {"u": "chat_bob"})[0][0] == 0


def test_a_pasted_document_is_not_a_memory():
    assert extract.extract_offline("Remember that " + "the quay is long and " * 80) == []


# ---------------------------------------------------------------- the benchmark's conversations
def _bench():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/ is a folder at the repository root
    from bench import memory as bench_memory

    return bench_memory


def test_the_benchmark_has_what_the_issue_asks_for():
    bm = _bench()
    convs = bm.conversations()
    assert len(convs) >= 8 and max(len(t) for t in convs.values()) >= 60
    probes = [t for ts in convs.values() for t in ts if t.category]
    assert {p.category for p in probes} == set(bm.CATEGORIES)
    assert len({t.user for ts in convs.values() for t in ts}) > len(convs)  # a conversation with two users


def test_the_benchmark_is_deterministic_and_memory_is_what_recalls():
    bm = _bench()
    convs = {k: v for k, v in bm.conversations().items() if k in ("correct_it", "cross_user", "forget")}
    full, again = bm.run_mode("summary+memories", convs), bm.run_mode("summary+memories", convs)
    assert [p["answer"] for p in full["probes"]] == [p["answer"] for p in again["probes"]]
    assert full["tokens"] == again["tokens"]
    assert all(p["passed"] for p in full["probes"]), [p for p in full["probes"] if not p["passed"]]
    off = bm.run_mode("off", convs)
    assert not any(p["passed"] for p in off["probes"] if p["category"] in ("recall", "correction"))
    assert max(t for ts in full["tokens"].values() for t in ts) <= bm.BUDGET


def test_a_store_made_anew_does_not_inherit_old_statuses(tmp_path):
    eng = connect("embedded", path=tmp_path)
    eng.open_store()
    rid = eng.store.add(["an old memory"], user_ids=U, agent_ids=A)[0]
    eng.store.set_status("memory", rid, "forgotten", by=U)
    store = eng.store
    eng.backend.drop_objects(store.sql.DROP, [n for n, _ in store.sql.SCHEMA])  # the memory tables gone, statuses left
    fresh = eng.open_store(SchemaPolicy.CREATE_IF_NECESSARY)
    new = fresh.add(["a new memory"], user_ids=U, agent_ids=A)[0]  # the same seq as the old one
    assert [r.id for r in fresh.list("memory", limit=None)] == [new]
    eng.close()


def test_with_a_model_the_write_path_uses_its_validated_extraction_and_summary(eng):
    model = scripted(fake_response('{"memories": [{"type": "fact", "subject": "home port", "value": "Oslo", '
                                   '"text": "My home port is Oslo", "op": "remember"}]}'))
    (done,) = writer.observe_user_turn(eng, "we moved everything to Oslo last spring", user_id=U, agent_id=A,
                                       thread_id="t-model", llm=model)
    assert (done.decision.action, done.candidate.cue) == ("ADD", "model")
    for i in range(6):
        eng.store.add([f"Voyage {1000 + i} left Busan on time."], record_type="message", thread_ids="t-model",
                      user_ids=U, agent_ids=A)
    writer.fold_thread(eng, "t-model", user_id=U, message_budget=10, summary_budget=40,
                       llm=scripted(fake_response("Voyages 1000-1004 left Busan on time.")))
    assert writer.read_summary(eng, "t-model")[0] == "Voyages 1000-1004 left Busan on time."
    eng.store.add(["Voyage 2000 left Santos late."], record_type="message", thread_ids="t-model", user_ids=U, agent_ids=A)
    eng.store.add(["Voyage 2001 left Santos late."], record_type="message", thread_ids="t-model", user_ids=U, agent_ids=A)
    writer.fold_thread(eng, "t-model", user_id=U, message_budget=10, summary_budget=40,
                       llm=scripted(fake_response("word " * 200)))  # over its budget: the extractive summary
    assert "Santos" in writer.read_summary(eng, "t-model")[0]

"""One user's memories stay theirs: a fact, a correction, a preference
and a tool output stored for user A never reach user B, by any read path, with and without
the agent, through the library and through the chat service; stored tool outputs are keyed
by user and thread."""
from __future__ import annotations

import json

import httpx
import pytest
from starlette.testclient import TestClient

from workshop_lib import connect
from workshop_lib.core.llm import fake_response, scripted
from workshop_lib.data import catalog
from workshop_lib.parts import gates, retrieval
from workshop_lib.parts.agent import memory, toolbox
from workshop_lib.parts.agent.loop import agent_turn
from workshop_lib.parts.chat import app as chat_app
from workshop_lib.parts.chat.server import BackgroundServer
from workshop_lib.prepare import prepare

SECRET_FACT = "Our confidential partner code is ZEBRA4417"
SECRET_FIX = "Remember that the confidential vault column VAULT_KEY is stored as QUOKKA9923"
SECRET_PREF = "Alice prefers answers that mention PANGOLIN5511"
SECRETS = ("ZEBRA4417", "QUOKKA9923", "PANGOLIN5511", "KIWI_OUTPUT_7781")
PROBES = ["What is our confidential partner code?", "confidential partner code ZEBRA4417",
          "vault column VAULT_KEY QUOKKA9923", "which answers does the user prefer PANGOLIN5511",
          "KIWI_OUTPUT_7781", "what did the last tool return?"]
# Over HTTP the thread shows the asker's own question: these name no secret.
HTTP_PROBES = ["What is our confidential partner code?", "How is the vault column VAULT_KEY stored?",
               "Which answers does the user prefer?", "What did the kiwi output query return?",
               "Please fetch the output of call_1_run_sql"]


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("privacy"))
    prepare(engine, progress=False)
    catalog.seed(engine, progress=False)
    yield engine
    engine.close()


def _script(*replies):
    queue = iter(replies)
    return scripted(lambda **kw: next(queue))


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def _store_a_secrets(a) -> str:
    """A's fact, correction, preference and a tool output (through the library); returns A's thread."""
    a.memory.add(SECRET_FACT, metadata={"kind": "fact", "subject": "PARTNERS"})
    memory.remember(a, SECRET_FIX, subject="SUPPLYCHAIN.VAULT.VAULT_KEY")
    a.memory.add(SECRET_PREF, record_type="preference", metadata={"kind": "preference"})
    llm = _script(fake_response(None, [("run_sql", json.dumps({"sql": "SELECT 'KIWI_OUTPUT_7781' AS X"}),
                                        "call_1_run_sql")]), fake_response("done"))
    agent_turn(a, llm, toolbox.build_registry(a, thread_id="a-thread"), "a-thread", "Look up the kiwi code")
    return "a-thread"


def _every_library_read(b, thread: str, query: str) -> str:
    reads = [
        retrieval.retrieve_knowledge(b, query, k=10),
        retrieval.keyword_search_memories(b, query, k=10),
        retrieval.hybrid_rrf_search_memories(b, query, k=10),
        retrieval.vector_ranked_ids(b, query, n=30),
        [(h.content, h.metadata) for h in b.memory.search(query, max_results=20)],
        [(h.content, h.metadata) for h in b.memory.search(query, record_types=["preference", "memory", "fact"],
                                                          max_results=20)],
        [c.text for c in gates.retrieve_turn(b, query, min_score=0.0).considered],
        memory.corrections(b),
        memory.context_card(b, thread, query).text(),
        memory.thread_messages(b, thread),
    ]
    registry = toolbox.build_registry(b, thread_id=thread)
    for call in ("call_1_run_sql", "call_1_search_knowledge"):
        reads.append(registry.dispatch("x", "fetch_tool_output", json.dumps({"call_id": call})).content)
    reads.append(registry.dispatch("y", "search_knowledge", json.dumps({"query": query, "k": 20})).full)
    return json.dumps(reads, default=str)


def test_a_users_memories_never_reach_another_user_through_the_library(eng):
    a, b = eng.scoped("alice"), eng.scoped("bob")
    thread = _store_a_secrets(a)
    # A reads back what A stored (the probes below can find these records) ...
    mine = _every_library_read(a, thread, "confidential partner code ZEBRA4417 QUOKKA9923 PANGOLIN5511")
    assert {"ZEBRA4417", "QUOKKA9923", "PANGOLIN5511"} <= set(_leaks(mine))
    assert "KIWI_OUTPUT_7781" in memory.fetch_tool_output(a, "call_1_run_sql", thread)
    # ... and B, by every path, on A's thread and on B's own, gets none of it,
    for query in PROBES:
        for on_thread in (thread, "b-thread"):
            assert _leaks(_every_library_read(b, on_thread, query)) == [], query
    # while the shared schema knowledge is B's too.
    assert any(h["kind"] in ("table", "column") for h in retrieval.retrieve_knowledge(b, "vessel capacity", k=5))
    assert any(h["kind"] in ("table", "column") for h in retrieval.hybrid_rrf_search_memories(b, "vessel capacity"))
    assert retrieval.keyword_search_memories(b, "vessel", k=3)
    # The workshop's own user is a user like any other: A's records are not theirs either.
    assert _leaks(_every_library_read(eng, thread, PROBES[1])) == []
    # A memory client answers for its own scope only.
    with pytest.raises(ValueError, match="eng.scoped"):
        b.memory.search("code", user_id="alice")
    # One way to scope: the retrieval functions take no user_id of their own; a scope is eng.scoped().
    with pytest.raises(TypeError):
        retrieval.retrieve_knowledge(eng, PROBES[1], k=5, user_id="alice")  # type: ignore[call-arg]
    assert retrieval.retrieve_knowledge(eng.scoped("alice"), PROBES[1], k=5)[0]["body"] == SECRET_FACT
    assert _leaks(json.dumps(retrieval.keyword_search_memories(eng.scoped("bob"), PROBES[1]))) == []


def _chat(client, question: str, **extra) -> httpx.Response:
    return client.post("/chat", json={"question": question, **extra}, headers={"Authorization": "Bearer tok"})


def _http_probe(client, user: str, a_thread: str, b_thread: str) -> str:
    seen = []
    for question in HTTP_PROBES:
        for agent in (False, True):
            seen.append(_chat(client, question, user_id=user, agent=agent).text)
            seen.append(_chat(client, question, user_id=user, agent=agent, thread_id=b_thread).text)
            seen.append(_chat(client, question, user_id=user, agent=agent, thread_id=a_thread).text)
    for path in (f"/threads/{a_thread}?user_id={user}", f"/threads/{a_thread}", f"/threads/{b_thread}?user_id={user}"):
        seen.append(client.get(path, headers={"Authorization": "Bearer tok"}).text)
    return "\n".join(seen)


def test_a_users_memories_never_reach_another_user_through_the_service(eng):
    with TestClient(chat_app.create_app(eng, token="tok")) as client:
        # A, with the agent: remembers a fact, then runs a query whose output is stored.
        first = _chat(client, "Please remember that our confidential partner code is ZEBRA4417.",
                      user_id="carol", agent=True)
        assert first.status_code == 200, first.text
        a_thread = first.json()["thread_id"]
        sql_turn = _chat(client, "How many active voyages per carrier?", user_id="carol", agent=True,
                         thread_id=a_thread)
        assert sql_turn.status_code == 200 and sql_turn.json()["mode"] == "rag"
        # Positive control: A gets the fact back, in A's scope.
        again = _chat(client, "What is our confidential partner code?", user_id="carol", agent=True)
        assert "ZEBRA4417" in again.text
        assert "ZEBRA4417" in client.get(f"/threads/{a_thread}?user_id=carol",
                                         headers={"Authorization": "Bearer tok"}).text
        # B (and the default user) by every route, with and without the agent, on B's thread and A's.
        b_thread = _chat(client, "hello", user_id="dave").json()["thread_id"]
        for user in ("dave", "analyst"):
            assert _leaks(_http_probe(client, user, a_thread, b_thread if user == "dave" else a_thread)) == []
        refused = _chat(client, "What is our confidential partner code?", user_id="dave", thread_id=a_thread)
        assert refused.status_code == 403 and refused.json()["error_id"]
        assert client.get(f"/threads/{a_thread}?user_id=dave", headers={"Authorization": "Bearer tok"}
                          ).status_code == 403


def test_tool_outputs_are_keyed_by_user_and_thread(eng):
    a, b = eng.scoped("erin"), eng.scoped("frank")
    outputs = {}
    for who, thread, value in ((a, "t1", "ONE"), (a, "t2", "TWO"), (b, "t3", "THREE")):
        registry = toolbox.build_registry(who, thread_id=thread)
        llm = _script(fake_response(None, [("run_sql", json.dumps({"sql": f"SELECT '{value}' AS V"}),
                                            "call_1_run_sql")]), fake_response("ok"))
        agent_turn(who, llm, registry, thread, "q")
        outputs[(who.user_id, thread)] = value
    # The same call id in three scopes/threads: three records, none overwritten.
    for (user, thread), value in outputs.items():
        who = eng.scoped(user)
        assert memory.fetch_tool_output(who, "call_1_run_sql", thread) == f"V\n{value}"
        fetched = toolbox.build_registry(who, thread_id=thread).dispatch(
            "c", "fetch_tool_output", '{"call_id": "call_1_run_sql"}')
        assert fetched.content == f"V\n{value}"
    # Another user naming erin's thread and call id gets nothing (threads are owned; ids never cross users).
    with pytest.raises(ValueError, match="no stored output"):
        memory.fetch_tool_output(eng.scoped("grace"), "call_1_run_sql", "t1")
    assert "TWO" in memory.fetch_tool_output(a, "call_1_run_sql")  # no thread given: the user's latest


def test_the_service_over_a_real_socket_keeps_users_apart(eng):
    with BackgroundServer(eng, token="tok") as server:
        h = {"Authorization": "Bearer tok"}
        made = httpx.post(server.url + "/chat", headers=h, timeout=60, json={
            "question": "Please remember that the confidential vault column VAULT_KEY is stored as QUOKKA9923.",
            "user_id": "heidi", "agent": True})
        assert made.status_code == 200
        for agent in (False, True):
            got = httpx.post(server.url + "/chat", headers=h, timeout=60, json={
                "question": "How is the vault column VAULT_KEY stored?", "user_id": "ivan", "agent": agent})
            assert got.status_code == 200 and _leaks(got.text) == []
        mine = httpx.post(server.url + "/chat", headers=h, timeout=60, json={
            "question": "What do you know about the vault column VAULT_KEY?", "user_id": "heidi", "agent": True})
        assert "QUOKKA9923" in mine.text

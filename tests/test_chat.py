"""The chat service over HTTP: every field, header and status code, telemetry, streaming,
bad input that stores nothing, errors that give an id and no stack trace."""
from __future__ import annotations

import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from conftest import ENGINES, ORACLE_SKIP_REASON
from starlette.testclient import TestClient

from workshop_lib import connect
from workshop_lib.data import catalog
from workshop_lib.parts.chat import app as chat_app
from workshop_lib.parts.chat import telemetry
from workshop_lib.parts.chat.server import BackgroundServer
from workshop_lib.prepare import prepare

FIELDS = {"answer", "mode", "decision_explain", "retrieved_chunks_metadata", "used_chunks", "sources_used",
          "sources", "tool_calls", "embedding_cache_hit", "from_cache", "thread_id", "latency_ms"}


@pytest.fixture(scope="module", params=ENGINES)
def eng(request, tmp_path_factory):
    if request.param == "oracle" and not os.environ.get("ORACLE_DSN"):
        pytest.skip(ORACLE_SKIP_REASON)
    # Oracle: the bootstrapped AGENT schema, as in a Codespace (prepare and seeding are idempotent).
    engine = (connect("embedded", path=tmp_path_factory.mktemp("chat")) if request.param == "embedded"
              else connect("oracle"))
    prepare(engine, progress=False)
    catalog.seed(engine, progress=False)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def client(eng):
    with TestClient(chat_app.create_app(eng)) as c:
        yield c


def _counts(eng) -> tuple[int, int]:
    return telemetry.count(eng), eng.store.count()


def _ask(client, question, **extra):
    return client.post("/chat", json={"question": question, **extra})


@pytest.mark.parametrize("question, mode", [
    ("How is the IMO check digit computed?", "rag"),
    ("Do you have flat racks in Hamburg?", "rag"),
    ("What is a good recipe for pasta carbonara?", "fallback"),
    ("Do you sell pizza ovens?", "fallback"),
])
def test_answer_has_every_field_and_the_mode_header(client, eng, question, mode):
    before = telemetry.count(eng)
    resp = _ask(client, question)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert set(body) == FIELDS
    assert body["mode"] == mode == resp.headers["X-Answer-Mode"]
    assert body["thread_id"] == resp.headers["X-Thread-Id"]
    assert body["decision_explain"]["reason"] and body["decision_explain"]["mode"] == mode
    assert body["sources_used"] in {"all", "partial", "none"}
    assert (body["sources_used"] == "none") == (not body["used_chunks"])
    assert isinstance(body["retrieved_chunks_metadata"], list) and isinstance(body["from_cache"], bool)
    assert body["embedding_cache_hit"] in (True, False, None)
    assert telemetry.count(eng) == before + 1


def test_grounded_answer_names_its_rows_and_reports_the_caches(client):
    # a described need, not an item named: the catalog is matched by embedding (named items need none)
    body = _ask(client, "I need a refrigerated container for frozen fish").json()
    assert body["decision_explain"]["handler"].startswith("grounded")
    assert body["used_chunks"] and body["used_chunks"][0]["item_id"] == "EQ-20RF"
    assert body["embedding_cache_hit"] is False and body["from_cache"] is False
    again = _ask(client, "i need a refrigerated container for frozen fish").json()  # same normalized question
    assert again["from_cache"] is True and again["embedding_cache_hit"] is None
    assert again["answer"] == body["answer"]


def test_telemetry_row_holds_the_decision(client, eng):
    _ask(client, "TEU")
    row = telemetry.recent(eng, 1).iloc[0]
    assert row["mode"] in {"rag", "hybrid", "fallback"}
    explain = json.loads(row["decision_explain"])
    assert explain["short_query_active"] is True and "thresholds" in explain
    assert row["question"] is None, "by default only a hash of the question is stored"


def test_question_text_is_stored_only_when_asked(eng):
    with TestClient(chat_app.create_app(eng, store_question_text=True)) as c:
        assert c.post("/chat", json={"question": "Where is Tanger Med?"}).status_code == 200
    assert telemetry.recent(eng, 1).iloc[0]["question"] == "Where is Tanger Med?"


def test_thread_continues_and_is_listed(client):
    first = _ask(client, "Where is Tanger Med?").json()
    second = _ask(client, "How is the IMO check digit computed?", thread_id=first["thread_id"]).json()
    assert second["thread_id"] == first["thread_id"]
    history = client.get(f"/threads/{first['thread_id']}").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[0]["content"] == "Where is Tanger Med?" and history[1]["content"] == first["answer"]


@pytest.mark.parametrize("question, source", [
    ("Where is Tanger Med?", "SUPPLYCHAIN.PORTS: 1 row shown in the answer: Tanger Med (MAPTM)"),
    ("Which ports are in China?", "SUPPLYCHAIN.PORTS: 4 rows shown in the answer: "),
    ("How far is Hamburg from Rotterdam?", "SUPPLYCHAIN.PORTS: 2 rows shown in the answer: Rotterdam (NLRTM), Hamburg (DEHAM)"),
    ("What are the 3 oldest vessels?", "SUPPLYCHAIN.VESSELS: 3 rows shown in the answer, read with one read-only SELECT"),
    ("How many vessels does each carrier operate?", "SUPPLYCHAIN.VESSELS, SUPPLYCHAIN.CARRIERS: 15 rows shown"),
    ("How many vessels are there?", "SUPPLYCHAIN.VESSELS: one figure computed from its rows"),
    ("How is the IMO check digit computed?", "SUPPLYCHAIN.VESSELS.IMO_NUMBER"),
    ("Do you have flat racks in Hamburg?", "EQ-20FR"),
])
def test_every_grounded_answer_cites_what_grounds_it_in_words(client, question, source):
    """Rows of the data are named by their tables and the rows the answer shows (not the rows
    fetched, never a JSON blob); a port answer carries its port rows; memories and items by name."""
    body = _ask(client, question).json()
    assert body["mode"] in ("rag", "hybrid") and body["sources"], body
    lines = [f"{s['name']}: {s['detail']}" if s.get("detail") else s["name"] for s in body["sources"]]
    assert any(line.startswith(source) for line in lines), lines
    assert not any("{" in line for line in lines)


def test_thread_history_keeps_each_answers_mode_sources_tool_calls_and_why(client):
    """A reload draws the thread from GET /threads/{id}: each assistant message carries what the
    live answer carried (a grounded answer, a knowledge answer, an agent turn, in one thread)."""
    live = [_ask(client, "Do you have flat racks in Hamburg?").json()]
    thread_id = live[0]["thread_id"]
    live.append(_ask(client, "How is the IMO check digit computed?", thread_id=thread_id).json())
    live.append(_ask(client, "How many active voyages does each carrier have?", thread_id=thread_id, agent=True).json())
    live.append(_ask(client, "What is a good recipe for pasta carbonara?", thread_id=thread_id).json())
    stored = [m for m in client.get(f"/threads/{thread_id}").json()["messages"] if m["role"] == "assistant"]
    assert len(stored) == 4
    for m, answer in zip(stored, live):
        assert m["content"] == answer["answer"]
        assert {k: m[k] for k in ("mode", "sources", "tool_calls")} == {
            k: answer[k] for k in ("mode", "sources", "tool_calls")}
        assert m["decision_explain"] == json.loads(json.dumps(answer["decision_explain"]))
    assert [m["mode"] for m in stored] == ["rag", "rag", "rag", "fallback"]
    assert {s["type"] for s in stored[0]["sources"]} == {"catalog item"} and stored[0]["tool_calls"] == []
    assert stored[1]["sources"][0] == {"type": "memory", "name": "SUPPLYCHAIN.VESSELS.IMO_NUMBER",
                                       "parts": ["schema:column:SUPPLYCHAIN.VESSELS.IMO_NUMBER"],
                                       "similarity": stored[1]["sources"][0]["similarity"]}
    # The agent's tool calls are listed as tool calls, never as sources.
    assert stored[2]["sources"] == [] and [c["tool"] for c in stored[2]["tool_calls"]] == ["run_sql"]
    assert stored[2]["tool_calls"][0]["ok"] is True
    assert stored[3]["sources"] == [] and stored[3]["tool_calls"] == []


def test_sources_are_grouped_per_document_memory_and_item():
    from workshop_lib.parts.chat.history import grouped_sources, tool_calls

    used = [{"record_id": "sop/claims#3", "subject": "sop/claims", "similarity": 0.61},
            {"record_id": "guide/teu#0", "subject": "guide/teu", "similarity": 0.55},
            {"record_id": "sop/claims#7", "subject": "sop/claims", "similarity": 0.66},
            {"record_id": "schema:column:A.B.C", "subject": "A.B.C", "kind": "column", "similarity": 0.5},
            {"record_id": "m-1", "subject": None, "kind": None, "similarity": float("nan")},
            {"item_id": "EQ-1", "used": True}, {"item_id": "EQ-1", "used": True},
            {"tool": "run_sql", "call_id": "c1", "ok": True}, {"table": "SUPPLYCHAIN.VESSELS", "rows": 3}, {"x": 1}]
    groups = grouped_sources(used)  # type: ignore[arg-type]
    assert [(g["type"], g["name"], g["parts"]) for g in groups] == [
        ("document", "sop/claims", ["sop/claims#3", "sop/claims#7"]), ("document", "guide/teu", ["guide/teu#0"]),
        ("memory", "A.B.C", ["schema:column:A.B.C"]), ("memory", "m-1", ["m-1"]), ("catalog item", "EQ-1", ["EQ-1"]),
        ("source", "SUPPLYCHAIN.VESSELS", []), ("source", '{"x": 1}', [])]
    assert groups[0]["similarity"] == 0.66 and groups[4]["similarity"] is None
    assert tool_calls(used) == [{"tool": "run_sql", "call_id": "c1", "ok": True}]  # type: ignore[arg-type]


def test_streaming_sends_progress_then_exactly_one_answer(client, eng):
    before = telemetry.count(eng)
    with client.stream("POST", "/chat", json={"question": "How is the IMO check digit computed?"},
                       headers={"Accept": "text/event-stream"}) as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        text = "".join(resp.iter_text())
    events = [block.split("\n") for block in text.strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    assert names[-1] == "answer" and names.count("answer") == 1
    assert names[:-1] and set(names[:-1]) == {"progress"}
    final = json.loads(events[-1][1].removeprefix("data: "))
    assert set(final) == FIELDS and final["mode"] == "rag"
    # the routed event names the route the answer took (the router's, not a guess made before it ran)
    routed = [json.loads(lines[1].removeprefix("data: ")) for lines in events[:-1]
              if json.loads(lines[1].removeprefix("data: "))["stage"] == "routed"]
    assert [r["intent"] for r in routed] == [final["decision_explain"]["intent"]]
    assert telemetry.count(eng) == before + 1


@pytest.mark.parametrize("body, status, words", [
    (b"{not json", 400, "not valid JSON"),
    (b"[1, 2]", 422, "JSON object"),
    (b"{}", 422, "missing"),
    (b'{"question": ""}', 422, "empty"),
    (b'{"question": "   "}', 422, "empty"),
    (json.dumps({"question": "\t\n\u00a0\u3000\u2028"}).encode(), 422, "empty"),  # Unicode spaces, line separator
    (json.dumps({"question": "\u200b\ufeff\u200d "}).encode(), 422, "empty"),  # zero-width characters, a BOM
    (b'{"question": 5}', 422, "not a string"),
    (b'{"question": "hi \\ud800"}', 422, "not valid text"),  # a lone surrogate: no store can keep it
    (b'{"question": "hi", "thread_id": "\\udc00x"}', 422, "not valid text"),
    (b'{"question": "hi", "user_id": "\\ud800"}', 422, "not valid text"),
    (b'{"question": ["a"]}', 422, "not a string"),
    (b'{"question": "hi", "thread_id": 7}', 422, "thread_id"),
    (b'{"question": "hi", "user_id": {"a": 1}}', 422, "user_id"),
    (b'{"question": "hi", "persona": "x"}', 422, "unknown field"),
    (json.dumps({"question": "x" * 3000}).encode(), 413, "limit"),
    (json.dumps({"question": "x" * 1_000_000}).encode(), 413, "limit"),
    (b"\xff\xfe\x00garbage", 400, "not valid JSON"),
    (b'{"question": "hi", "agent": "yes"}', 422, "true or false"),
])
def test_bad_input_is_a_4xx_that_stores_nothing(client, eng, body, status, words):
    before = _counts(eng)
    resp = client.post("/chat", content=body, headers={"Content-Type": "application/json"})
    assert resp.status_code == status, resp.text
    error = resp.json()
    assert words in error["error"] and error["fix"]
    assert _counts(eng) == before, "a refused request must store nothing"


def test_unknown_thread_and_someone_elses_thread_are_refused(client, eng):
    before = _counts(eng)
    resp = _ask(client, "hello", thread_id="no-such-thread")
    assert resp.status_code == 404 and "unknown thread" in resp.json()["error"]
    assert client.get("/threads/no-such-thread").status_code == 404
    owned = _ask(client, "Where is Tanger Med?", user_id="alice").json()["thread_id"]
    before = _counts(eng)
    resp = _ask(client, "hello", thread_id=owned, user_id="mallory")
    assert resp.status_code == 403 and "another user" in resp.json()["error"]
    assert _counts(eng) == before


def test_an_error_inside_answering_gives_an_id_and_no_stack_trace(eng, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("vectors blob read error")

    monkeypatch.setattr(chat_app, "answer_question", broken)
    before = _counts(eng)
    with caplog.at_level(logging.ERROR, logger="workshop.chat"), TestClient(chat_app.create_app(eng)) as c:
        resp = c.post("/chat", json={"question": "anything"})
    assert resp.status_code == 500
    body = resp.json()
    assert body["error_id"] and "Traceback" not in resp.text and "vectors blob" not in resp.text
    assert body["error_id"] in caplog.text and "vectors blob read error" in caplog.text
    assert _counts(eng) == before


def test_health_and_stats(client, eng):
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["engine"] == "embedded" and health["model"] == eng.model.name
    assert health["telemetry_rows"] == telemetry.count(eng) and "documents" in health
    stats = client.get("/stats").json()
    assert stats["total"] == telemetry.count(eng) == sum(stats["modes"].values())
    assert stats["per_minute"] and set(stats["per_minute"][0]) == {"minute", "rag", "hybrid", "fallback"}
    assert 0 <= stats["fallback_share"] <= 1


def test_token_is_required_when_set(eng):
    with TestClient(chat_app.create_app(eng, token="s3cret")) as c:
        assert c.post("/chat", json={"question": "TEU"}).status_code == 401
        assert c.get("/stats").status_code == 401
        ok = c.post("/chat", json={"question": "TEU"}, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert c.get("/").status_code == 200  # the page itself carries no data


def test_page_is_served(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="ask"' in page.text and "X-Answer-Mode" in page.text


def test_concurrent_clients_on_a_real_server(eng):
    """Eight clients at once over loopback (bounded: 40 requests): no error, one telemetry row each."""
    before = telemetry.count(eng)
    questions = ["How is the IMO check digit computed?", "Where is Tanger Med?", "TEU", "Do you sell pizza ovens?"]
    with BackgroundServer(eng) as server, httpx.Client(base_url=server.url, timeout=60) as http:
        def one(i: int) -> int:
            return http.post("/chat", json={"question": questions[i % len(questions)]}).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(one, range(40)))
    assert codes == [200] * 40
    assert telemetry.count(eng) == before + 40


def test_server_and_a_notebook_kernel_write_at_the_same_time(tmp_path):
    """Another process (a notebook kernel) adds memories while the server answers and logs."""
    import subprocess
    import sys

    eng = connect("embedded", path=tmp_path)
    prepare(eng, progress=False)
    catalog.seed(eng, progress=False)
    kernel = (
        "from workshop_lib import connect\n"
        f"eng = connect('embedded', path={str(tmp_path)!r})\n"
        "for i in range(60):\n"
        "    eng.memory.add(f'kernel note {i} about reefers', record_id=f'kernel-{i}')\n"
        "print('done')\n"
    )
    questions = ["How is the IMO check digit computed?", "Where is Tanger Med?", "TEU"]
    try:
        with BackgroundServer(eng) as server, httpx.Client(base_url=server.url, timeout=60) as http:
            proc = subprocess.Popen([sys.executable, "-c", kernel], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            codes = [http.post("/chat", json={"question": questions[i % 3]}).status_code for i in range(45)]
            out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0 and "done" in out, err[-2000:]
        assert codes == [200] * 45
        assert telemetry.count(eng) == 45
        assert all(eng.store.get("memory", f"kernel-{i}") is not None for i in range(60))
    finally:
        eng.close()


def test_the_part6_agent_answers_when_asked(client, eng):
    """Issue 16: with "agent": true the Part 6 agent answers with its tools (offline planner without a key)."""
    before = telemetry.count(eng)
    resp = _ask(client, "How many active voyages does each carrier have?", agent=True)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert resp.headers["X-Answer-Mode"] == "rag" == body["mode"]
    explain = body["decision_explain"]
    assert explain["handler"] == "agent (Part 6)" and [c["tool"] for c in explain["tool_calls"]] == ["run_sql"]
    assert "Maersk" in body["answer"] and telemetry.count(eng) == before + 1
    history = client.get(f"/threads/{body['thread_id']}").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"] and history[1]["content"] == body["answer"]
    follow = _ask(client, "What is in the SUPPLYCHAIN schema?", agent=True, thread_id=body["thread_id"]).json()
    assert follow["thread_id"] == body["thread_id"] and follow["decision_explain"]["tool_calls"]


def test_chat_reads_the_promoted_document_index_and_health_names_it(tmp_path):
    """Part 8's alias: /health reports its target, and document questions are answered from
    the table it reads (embedded only: on Oracle this would move the learner's own alias)."""
    from workshop_lib.parts.ingest import pipeline, promotion

    eng = connect("embedded", path=tmp_path)
    prepare(eng, progress=False)
    catalog.seed(eng, progress=False)
    with TestClient(chat_app.create_app(eng)) as c:
        before = c.get("/health").json()["documents"]
        assert before["target"] is None and "no document index promoted yet" in before["note"]
        pipeline.ingest(eng, profile="v2", progress=False, promote=True)
        documents = c.get("/health").json()["documents"]
        assert documents == {"alias": "DOCS", "target": "DOCS_V2", "complete": True, "chunks": 101, "previous": None,
                             "note": ""}
        resp = _ask(c, "How long does a consignee have to report concealed damage?")
        body = resp.json()
        assert resp.status_code == 200 and body["mode"] == resp.headers["X-Answer-Mode"] == "rag"
        assert body["decision_explain"]["handler"] == "documents (Part 8)"
        assert body["decision_explain"]["document_index"] == "DOCS_V2"
        assert body["used_chunks"][0]["subject"] == "sop/cargo-claims"
        _assert_one_source_per_document(body)
        tariff = _ask(c, "What is the demurrage charge per day?").json()  # two chunks of one tariff document
        assert [c["subject"] for c in tariff["used_chunks"]] == ["carriers/one-demurrage-tariff"] * 2
        assert [(s["name"], len(s["parts"])) for s in tariff["sources"]] == [("carriers/one-demurrage-tariff", 2)]
        # the router sent it to the documents (not a competition with the schema facts)
        assert body["decision_explain"]["intent"] == "DOCUMENTS"
        assert body["decision_explain"]["compared"] == {"documents": "rag"}
        assert "From the documents:" in body["answer"]
        schema = _ask(c, "How is the IMO check digit computed?").json()
        assert schema["decision_explain"]["handler"] == "knowledge memories (Part 4)"
        assert schema["decision_explain"]["compared"]["document_index"] == "DOCS_V2"
        pipeline.ingest(eng, profile="v1", progress=False)
        promotion.promote(eng, corpus_profile("v1"))  # refused or not, /health must name a complete table
        assert c.get("/health").json()["documents"]["complete"] is True
    eng.close()


def _assert_one_source_per_document(body: dict) -> None:
    """One source per document, however many of its chunks the answer used."""
    names = [s["name"] for s in body["sources"]]
    assert len(names) == len(set(names)) == len({c["subject"] for c in body["used_chunks"]})
    assert sum(len(s["parts"]) for s in body["sources"]) == len(body["used_chunks"])
    assert all(s["type"] == "document" for s in body["sources"])


def corpus_profile(name):
    from workshop_lib.parts.ingest import corpus

    return corpus.load_profiles()[name]


@pytest.mark.parametrize("field, value", [("user_id", "用户" * 35), ("thread_id", "线程" * 35),
                                          ("user_id", ""), ("user_id", "   "), ("thread_id", "\t")])
def test_an_id_over_200_bytes_or_blank_is_refused_before_anything_is_stored(client, eng, field, value):
    """Issue 36 defects 4 and 5: 70 CJK characters are 210 bytes, more than the telemetry's
    VARCHAR2(200) holds on Oracle (which counts bytes); '' is NULL on Oracle. Both are a 422
    before the turn is kept, never a 500 after it, on both engines."""
    before = _counts(eng)
    response = _ask(client, "Where is Rotterdam?", **{field: value})
    assert response.status_code == 422, response.text
    assert ("bytes in UTF-8" if value.strip() else "blank") in response.json()["error"]
    assert _counts(eng) == before
    ok = _ask(client, "Where is Rotterdam?", user_id="用户" * 33)  # 198 bytes: accepted
    assert ok.status_code == 200, ok.text


def test_a_distance_between_two_ports_is_worked_out_whatever_the_router_calls_it(eng):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, "straight-line distance Shanghai to Los Angeles?")
    assert a.mode == "rag" and "km" in a.answer and "CNSHA" in a.answer and "USLAX" in a.answer
    # a port named in a question the port rows do not answer stays a question for the documents
    b = answer_question(eng, "is there a strike notice for Hamburg?")
    assert b.mode == "fallback" and "km" not in b.answer


@pytest.mark.parametrize("point, lat, lon", [("36.0 N, 5.0 W", 36.0, -5.0), ("1.3°N 103.8°E", 1.3, 103.8)])
def test_the_ports_nearest_a_point_given_as_latitude_and_longitude(eng, point, lat, lon):
    from workshop_lib.assistant.answering.answer import answer_question

    name, code, _ = eng.supplychain.nearest_ports(lon, lat)[0]
    a = answer_question(eng, f"which of our ports is closest to {point}?")
    assert a.mode == "rag" and a.answer.splitlines()[1].startswith(f"- {name} ({code})")


def test_a_short_follow_up_is_read_with_the_record_the_thread_named_and_says_so(eng):
    from workshop_lib.parts.chat.app import ChatService
    svc = ChatService(eng)
    vid, dep, arr = eng.query("SELECT VOYAGE_ID, DEPARTURE_DATE, ARRIVAL_DATE FROM SUPPLYCHAIN.VOYAGES ORDER BY VOYAGE_ID")[5]
    first, _ = svc.answer({"question": f"when does voyage {vid} leave?", "thread_id": None, "user_id": "fu-1",
                           "agent": False})
    assert str(dep)[:10] in first["answer"]
    body, mode = svc.answer({"question": "and the ETA?", "thread_id": first["thread_id"], "user_id": "fu-1",
                             "agent": False})
    assert mode == "rag" and body["answer"].startswith("Reading it as") and str(arr)[:10] in body["answer"]
    # another thread (and another user) has no previous question: nothing is read into it
    other, mode = svc.answer({"question": "and the ETA?", "thread_id": None, "user_id": "fu-2", "agent": False})
    assert mode == "fallback" and str(arr)[:10] not in other["answer"]
    # "the latest one" asks about the things just talked about, not the record named
    body, _ = svc.answer({"question": "and the latest one?", "thread_id": first["thread_id"], "user_id": "fu-1",
                          "agent": False})
    assert not body["answer"].startswith("Reading it as")
    # "and of X?": the previous question asked again of another record of the same table
    (a, wa), (b, wb) = eng.query("SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS "
                                 "ORDER BY CONTAINER_ID LIMIT 2")
    first, _ = svc.answer({"question": f"What's the gross weight of container {a}?", "thread_id": None,
                           "user_id": "fu-3", "agent": False})
    body, mode = svc.answer({"question": f"And of {b}?", "thread_id": first["thread_id"], "user_id": "fu-3",
                             "agent": False})
    assert mode == "rag" and b in body["answer"] and f"{wb:,.0f}" in body["answer"] and a not in body["answer"], \
        body["answer"]

"""Bounded work per request: run_sql's time limit holds for any statement
and blocks nobody, results are capped in bytes, what a turn stores is capped, dispatch and the
service turn hostile input into error results or 4xx answers, and the token stays out of logs."""
from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from starlette.testclient import TestClient

from workshop_lib import connect
from workshop_lib.core.llm import fake_response, scripted
from workshop_lib.data import catalog
from workshop_lib.engines import readonly
from workshop_lib.engines.readonly import SqlRefused
from workshop_lib.parts.agent import memory, toolbox
from workshop_lib.parts.agent.loop import MAX_TOOL_CALLS, agent_turn
from workshop_lib.parts.agent.tools import ToolRegistry
from workshop_lib.parts.chat import app as chat_app
from workshop_lib.parts.chat.server import BackgroundServer
from workshop_lib.prepare import prepare

# The time limits here are measured against the wall clock: with `-n auto` this module is in conftest's
# "timed" group, never beside another test that bounds a duration (such as a class graded under cell limits).

# Statements that spend their time inside ONE C-level call, or build huge values.
SLOW_SQL = [
    "SELECT length(replace(printf('%.999999c', 'a'), 'a', printf('%.999c', 'b')))",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
    # (each row's haystack depends on n: SQLite may otherwise work a constant expression out once, and a
    # fast machine then finishes the statement inside the limit)
    "SELECT instr(printf('%.900000c', 'a') || n, printf('%.90000c', 'a') || 'b') "
    "FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT n FROM r)",
]
HUGE_SQL = [
    "SELECT randomblob(1000000000), randomblob(1000000000)",
    "SELECT zeroblob(500000000) FROM VOYAGES",
    "SELECT printf('%.900000000c', 'x')",
    "SELECT printf('%.900000c', 'x') AS a, printf('%.900000c', 'y') AS b FROM VOYAGES",
]


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("limits"))
    prepare(engine, progress=False)
    catalog.seed(engine, progress=False)
    yield engine
    engine.close()


@pytest.mark.parametrize("sql", SLOW_SQL)
def test_the_time_limit_holds_for_any_statement(eng, sql):
    start = time.monotonic()
    with pytest.raises(SqlRefused, match="stopped"):
        eng.supplychain.read_only_query(sql, timeout_s=1.0)
    assert time.monotonic() - start < 1.0 + 1.5  # the limit, plus killing and reaping the worker


@pytest.mark.parametrize("sql", HUGE_SQL)
def test_results_are_capped_in_bytes(eng, sql):
    try:
        result = eng.supplychain.read_only_query(sql, max_rows=200, timeout_s=5.0)
    except SqlRefused as exc:
        assert "stopped" in str(exc) and ("bytes" in str(exc) or "memory" in str(exc) or "longer" in str(exc))
        return
    text = result.as_text()
    assert len(text.encode()) <= readonly.MAX_RESULT_BYTES + 4096
    # Either the values were cut (and the model is told so) or SQLite gave up on the value (NULL).
    assert (result.note and ("cut" in text or "passed" in text)) or all(v is None for r in result.rows for v in r)


def test_capped_result_cuts_values_and_stops_at_the_byte_limit():
    big = "é" * readonly.MAX_VALUE_BYTES
    result = readonly.capped_result(["A"], iter([(big,), ("small",)]), 10)
    assert result.rows[1] == ("small",) and "value cut" in result.rows[0][0] and not result.truncated
    assert len(result.rows[0][0].encode()) <= readonly.MAX_VALUE_BYTES and "were cut" in result.as_text()
    assert readonly.recap(result, 10) == result  # a result within the caps is left as it is
    many = readonly.capped_result(["A"], iter([("x" * 3000,)] * 1000), 200)
    assert many.truncated and "passed" in many.note and len(many.as_text()) <= readonly.MAX_RESULT_BYTES
    blob = readonly.capped_result(["B"], iter([(b"\0" * 10_000,)]), 1)
    assert "10,000-byte blob" in blob.rows[0][0]


def test_a_slow_query_blocks_no_other_request(eng):
    # An agent request whose run_sql spends its 5 s inside ONE C-level call: /health, another
    # user's chat and the engine itself answer meanwhile, and the call stops at its limit.
    # each instr() scans for about 4.6 s on the project's 2-core machine: two in a row pass the 5 s
    # limit whatever the machine's speed, and the worker is killed inside the second C-level call
    one_call = ("SELECT instr(printf('%.1000000c', 'a'), printf('%.500000c', 'a') || 'b') "
                "+ instr(printf('%.1000000c', 'a'), printf('%.499999c', 'a') || 'c')")

    def model(**kw):
        done = any(m["role"] == "tool" for m in kw["messages"])
        return fake_response("done") if done or not kw.get("tools") else fake_response(
            None, [("run_sql", json.dumps({"sql": one_call}), "c1")])

    with BackgroundServer(eng, llm=scripted(model)) as server:
        took: dict[str, float] = {}

        def slow_request():
            start = time.monotonic()
            took["reply"] = httpx.post(server.url + "/chat", timeout=60, json={
                "question": "Run the slow one", "agent": True, "user_id": "slow"}).json()
            took["agent"] = time.monotonic() - start

        agent = threading.Thread(target=slow_request)
        agent.start()
        time.sleep(1.0)
        start = time.monotonic()
        assert httpx.get(server.url + "/health", timeout=10).json()["store_records"] > 0
        assert httpx.get(server.url + "/stats", timeout=10).status_code == 200
        assert eng.query("SELECT 1")[0][0] == 1
        assert time.monotonic() - start < 2.0
        agent.join()
    assert took["reply"]["decision_explain"]["tool_calls"] == [{"tool": "run_sql", "call_id": "c1", "ok": False}]  # type: ignore[index]
    assert 4.5 < took["agent"] < 5.0 + 3.0


def test_what_a_turn_stores_is_capped(eng):
    a = eng.scoped("mallory")
    big = f"SELECT printf('%.{readonly.MAX_VALUE_BYTES}c', 'z') AS V FROM VOYAGES"
    calls = [(name, args, f"c{i}") for i, (name, args) in enumerate(
        [("run_sql", json.dumps({"sql": big}))] * 12 + [("search_knowledge", '{"query": "vessel", "k": 20}')] * 4)]
    replies = iter([fake_response(None, calls), fake_response(None, calls), fake_response("done")])
    before = eng.store.count()
    agent_turn(a, scripted(lambda **kw: next(replies)), toolbox.build_registry(a, thread_id="m1"), "m1", "q")
    stored = [r for r in eng.store.list("memory", limit=None, user_id="mallory", agent_id=a.agent_id,
                                        metadata_filter={"kind": memory.TOOL_OUTPUT})]
    total = sum(len((r.content or "").encode()) for r in stored)
    # One per call that ran (at most MAX_TOOL_CALLS a turn; the rest are error results), the question, the answer.
    assert len(stored) == MAX_TOOL_CALLS and eng.store.count() - before == len(stored) + 2
    assert all(len(r.content.encode()) <= memory.MAX_STORED_OUTPUT_BYTES + 200 for r in stored)
    # Past the turn's budget only previews are stored, each with a note.
    assert total <= memory.MAX_STORED_TURN_BYTES + len(stored) * 1000
    assert any("not stored in full" in r.content for r in stored)
    assert "tool output cut" in memory.cut_bytes("é" * 40_000, memory.MAX_STORED_OUTPUT_BYTES, "tool output")


def test_a_new_user_costs_little_disk(tmp_path):
    # vec0 allocates a chunk per new partition: a made-up user id must not cost a megabyte.
    fresh = connect("embedded", path=tmp_path)
    prepare(fresh, progress=False)

    def size():
        fresh.query("PRAGMA wal_checkpoint(TRUNCATE)")
        return sum(p.stat().st_size for p in tmp_path.iterdir() if p.is_file())

    fresh.scoped("u-first").memory.add("warm up")
    before = size()
    for i in range(10):
        fresh.scoped(f"u-{i}").memory.add("hello")
    assert (size() - before) / 10 < 200_000
    fresh.close()


def test_dispatch_never_raises():
    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: anything
        """
        return text

    hostile = ["[" * 100_000, '{"text": ' + "[" * 30_000 + "]" * 30_000 + "}", '{"text": ' + "9" * 10_000 + "}",
               '{"text": "\\ud800"}', None, 12, '{"text": "' + "x" * 70_000 + '"}', "\x00"]
    for args in hostile:
        result = registry.dispatch("c", "echo", args)  # type: ignore[arg-type]
        json.dumps(result.content).encode("utf-8")  # storable, sendable
        assert isinstance(result.content, str)
    assert not registry.dispatch("c", "echo", "[" * 100_000).ok
    assert "nested too deeply" in registry.dispatch("c", "echo", "{\"text\": " + "[" * 30_000).error
    assert registry.dispatch("c", None, "{}").error.startswith("unknown tool")  # type: ignore[arg-type]


@pytest.mark.parametrize("body", [
    b'{"question": ' + b"[" * 100_000 + b"}",
    b'{"question": "hi", "agent": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    b'{"question": ' + b"9" * 10_000 + b"}",
    b'{"question": "\\ud800 hi"}',
    b'{"question": "hi", "thread_id": "\\udfff"}',
    b'{"question": "hi", "user_id": "a\\ud800"}',
    b'{"question": "hi", "user_id": "a\\u0000"}',
])
def test_hostile_bodies_are_4xx_with_an_error_id(eng, body):
    with TestClient(chat_app.create_app(eng), raise_server_exceptions=False) as client:
        before = eng.store.count()
        resp = client.post("/chat", content=body, headers={"Content-Type": "application/json"})
        assert 400 <= resp.status_code < 500, resp.text
        assert resp.json()["error"] and resp.json()["error_id"] and resp.json()["fix"]
        assert eng.store.count() == before


def test_health_threads_and_token(eng):
    with TestClient(chat_app.create_app(eng, token="s3cret")) as client:
        assert client.get("/health").json() == {"status": "ok"}  # up, and nothing more without the token
        full = client.get("/health", headers={"Authorization": "Bearer s3cret"}).json()
        assert full["store_records"] > 0 and "telemetry_rows" in full
        assert client.get("/").status_code == 200  # the page holds no data
        assert client.get("/health?token=s3cret").status_code == 400
        assert client.post("/chat?token=s3cret", json={"question": "hi"}).status_code == 400
        assert client.get("/threads/x?user_id=a").status_code == 401
        h = {"Authorization": "Bearer s3cret"}
        thread = client.post("/chat", json={"question": "Where is Tanger Med?", "user_id": "olga"},
                             headers=h).json()["thread_id"]
        assert client.get(f"/threads/{thread}?user_id=olga", headers=h).status_code == 200
        for other in (f"/threads/{thread}?user_id=peggy", f"/threads/{thread}"):
            resp = client.get(other, headers=h)
            assert resp.status_code == 403 and "Tanger" not in resp.text


def test_the_token_never_reaches_the_access_log(eng, capsys):
    # `workshop serve`'s log set-up (uvicorn's own, with the redacting filter), on a real socket.
    import uvicorn

    from workshop_lib.parts.chat.server import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(chat_app.create_app(eng, token="t0psecret"), host="127.0.0.1", port=port,
                                           lifespan="off", log_config=chat_app.uvicorn_log_config(), access_log=True))
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    while not server.started:
        time.sleep(0.05)
    for path in ("/?token=t0psecret", "/health?token=t0psecret", "/threads/x?token=t0psecret&user_id=a"):
        httpx.get(f"http://127.0.0.1:{port}{path}", timeout=10)
    server.should_exit = True
    runner.join(10)
    logged = capsys.readouterr()
    text = logged.out + logged.err
    assert text.count("token=[redacted]") >= 3 and "t0psecret" not in text


def test_run_sql_caps_bytes_whatever_the_engine_returns(eng):
    # What run_sql hands the model is capped again (readonly.recap), so a result an engine's read-only
    # path capped in rows only (2 MB and 1 MB values, max_rows rows) still reaches the model capped.
    uncapped = readonly.QueryResult(["A", "B"], [("x" * 2_000_000, b"\0" * 1_000_000)] * 50, True)
    text = readonly.recap(uncapped, 50).as_text()
    assert len(text.encode()) <= readonly.MAX_RESULT_BYTES + 1000
    assert "value cut" in text and "passed" in text and "only the first" in text
    # On the engine, through the tool as the model calls it: values over the cap, in every row, come
    # back cut and the result stops at the byte limit; the statement went through the read-only boundary.
    sql = "SELECT printf('%.200000c', 'x') AS A, zeroblob(100000) AS B FROM VOYAGES"
    with eng.trace() as sent:
        result = toolbox.build_registry(eng).dispatch("c", "run_sql", json.dumps({"sql": sql}))
    assert result.ok and len(result.full.encode()) <= readonly.MAX_RESULT_BYTES + 1000
    assert "value cut: 200,000 bytes in all" in result.full and "passed" in result.full
    assert [(s.statement, s.via) for s in sent] == [(sql, "supplychain.read_only_query")]


def test_run_sql_refuses_text_that_is_not_text(eng):
    with pytest.raises(SqlRefused, match="lone surrogate"):
        eng.supplychain.read_only_query("SELECT '\udc80' AS X")
    with pytest.raises(SqlRefused, match="no such table"):  # the worker cannot even see the memory store
        eng.supplychain.read_only_query("SELECT content FROM RECORDS")

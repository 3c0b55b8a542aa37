"""Part 6: the tool registry, run_sql's read-only boundary, the loop, and the four-turn demo.

The model is replaced only at the client interface: the offline planner and scripted
replies both sit behind the real LLM wrapper.
"""
from __future__ import annotations

import hashlib
import json
import uuid

import pytest
from conftest import ENGINES, _require

from workshop_lib import connect
from workshop_lib.core.llm import fake_response, scripted
from workshop_lib.core.store import SchemaPolicy
from workshop_lib.data import supplychain
from workshop_lib.engines.readonly import SqlRefused
from workshop_lib.parts.agent import loop, memory, offline, toolbox
from workshop_lib.parts.agent.tools import ToolRegistry, make_tool
from workshop_lib.prepare import prepare


@pytest.fixture
def eng(tmp_path):
    engine = connect("embedded", path=tmp_path)
    prepare(engine, progress=False)
    yield engine
    engine.close()


@pytest.fixture(params=ENGINES)
def any_eng(request, tmp_path):
    """The embedded engine, and Oracle when ORACLE_DSN is set (a scratch store with its own prefix)."""
    _require(request.param)
    if request.param == "embedded":
        engine = connect("embedded", path=tmp_path)
        prepare(engine, progress=False)
        yield engine
        engine.close()
        return
    engine = connect("oracle")
    scratch = engine.open_store(SchemaPolicy.RECREATE, table_name_prefix="T" + uuid.uuid4().hex[:8].upper() + "_")
    prepare(engine, progress=False)
    yield engine
    engine.backend.drop_objects(scratch.sql.DROP, [n for n, _ in scratch.sql.SCHEMA])
    engine.close()


# ---------------------------------------------------------------- tools from functions
def test_schema_comes_from_type_hints_and_docstring():
    def lookup(table: str, limit: int = 5, exact: bool = False) -> str:
        """Look a table up.

        Args:
            table: the table name
            limit: how many rows
        """
        return table

    schema = make_tool(lookup).schema()["function"]
    assert schema["name"] == "lookup" and schema["description"] == "Look a table up."
    props = schema["parameters"]["properties"]
    assert props["table"] == {"type": "string", "description": "the table name"}
    assert props["limit"]["type"] == "integer" and props["exact"] == {"type": "boolean"}
    assert schema["parameters"]["required"] == ["table"]


@pytest.mark.parametrize("bad, message", [
    (lambda x: x, "needs a docstring"),
])
def test_tools_need_a_docstring(bad, message):
    with pytest.raises(ValueError, match=message):
        make_tool(bad)


def test_tools_need_type_hints_and_no_varargs():
    def no_hint(x) -> str:
        """Doc."""
        return x

    def varargs(*args: str) -> str:
        """Doc."""
        return args[0]

    with pytest.raises(ValueError, match="needs a type hint"):
        make_tool(no_hint)
    with pytest.raises(ValueError, match="cannot be described"):
        make_tool(varargs)


def test_dispatch_turns_every_failure_into_an_error_result():
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @registry.tool
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("boom")

    assert registry.dispatch("1", "add", '{"a": 2, "b": 3}').content == "5"
    for name, args, words in [("nope", "{}", "unknown tool"), ("add", "{bad", "not valid JSON"),
                              ("add", "[1, 2]", "JSON object"), ("add", '{"a": 1}', "do not fit"),
                              ("broken", "{}", "RuntimeError: boom")]:
        result = registry.dispatch("x", name, args)
        assert not result.ok and words in result.error and json.loads(result.content)["error"]
    with pytest.raises(ValueError, match="already registered"):
        registry.tool(name="add")(broken)  # another function under a taken name


def test_a_tool_defined_again_in_the_same_place_replaces_the_earlier_one():
    """A notebook cell run again defines its function anew: the latest version is the tool."""
    registry = ToolRegistry()

    def cell(offset: int):  # the same `def`, run twice, as a re-run cell does
        @registry.tool
        def count(table: str) -> str:
            """Count rows.

            Args:
                table: a table name
            """
            return str(len(table) + offset)
        return count

    versions = [cell(0), cell(1)]
    assert registry.tools["count"].fn is versions[-1] and registry.dispatch("c", "count", '{"table": "ab"}').content == "3"
    assert list(registry.tools) == ["count"]


def test_long_outputs_get_a_preview_and_the_rest_is_fetchable(eng):
    registry = toolbox.build_registry(eng)
    result = registry.dispatch("c-long", "search_knowledge", '{"query": "container weights", "k": 10}')
    assert len(result.full) > len(result.content) and "fetch_tool_output('c-long')" in result.content
    memory.store_tool_output(eng, "t-preview", result)
    fetched = registry.dispatch("c-fetch", "fetch_tool_output", '{"call_id": "c-long"}')
    assert fetched.content == result.full  # fetch_tool_output is never cut short itself


# ---------------------------------------------------------------- run_sql: hostile SQL
HOSTILE_SQL = [
    "DELETE FROM VOYAGES",
    "DROP TABLE VOYAGES",
    "UPDATE VOYAGES SET STATUS = 'X'",
    "INSERT INTO CARRIERS (CARRIER_ID) VALUES (999)",
    "REPLACE INTO CARRIERS (CARRIER_ID) VALUES (1)",
    "INSERT INTO VOYAGES SELECT * FROM VOYAGES",
    "CREATE TABLE x (a INTEGER)",
    "CREATE TEMP TABLE x AS SELECT 1",
    "CREATE VIEW v AS SELECT 1",
    "CREATE INDEX i ON VOYAGES (STATUS)",
    "ALTER TABLE VOYAGES ADD COLUMN x TEXT",
    "SELECT 1; DELETE FROM VOYAGES",
    "SELECT 1; SELECT 2",
    "WITH gone AS (DELETE FROM VOYAGES RETURNING *) SELECT * FROM gone",
    "PRAGMA table_info(VOYAGES)",
    "PRAGMA query_only = OFF",
    "PRAGMA writable_schema = ON",
    "ATTACH DATABASE ':memory:' AS other",
    "DETACH DATABASE SUPPLYCHAIN",
    "SELECT load_extension('/tmp/evil')",
    "SELECT * FROM RECORDS",
    "SELECT COUNT(*) FROM RECORDS",
    "SELECT * FROM main.RECORDS",
    "SELECT content FROM RECORDS_FTS WHERE RECORDS_FTS MATCH 'x'",
    "SELECT * FROM sqlite_master",
    "BEGIN",
    "COMMIT",
    "SAVEPOINT a",
    "VACUUM",
    "ANALYZE",
    "REINDEX",
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n",
    "",
    "   ;  ",
    "SELECT 'x" + "y" * 30_000 + "'",
    "SELECT 1\x00",
]


def _snapshot(eng) -> dict[str, str]:
    """A checksum of every table of both databases (rows in rowid order)."""
    out = {}
    for schema in ("main", "SUPPLYCHAIN"):
        names = [r[0] for r in eng.query(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")]
        for name in names:
            try:
                rows = eng.query(f'SELECT * FROM {schema}."{name}"')
            except Exception:  # noqa: BLE001 - virtual tables without a plain scan
                continue
            out[f"{schema}.{name}"] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return out


def test_at_least_25_hostile_statements_are_refused_and_nothing_changes(eng):
    assert len(HOSTILE_SQL) >= 25
    before = _snapshot(eng)
    for sql in HOSTILE_SQL:
        with pytest.raises(SqlRefused) as err:
            eng.supplychain.read_only_query(sql, max_rows=5, timeout_s=1.0)
        assert str(err.value), sql
    assert _snapshot(eng) == before
    # The connection is back to normal: writes through the store still work, reads still work.
    eng.store.add(["still writable after the hostile run"])
    assert eng.supplychain.read_only_query("SELECT COUNT(*) AS N FROM VOYAGES").rows == [(60,)]


def test_reads_work_and_are_capped(eng):
    result = eng.supplychain.read_only_query("SELECT VOYAGE_ID FROM VOYAGES ORDER BY VOYAGE_ID", max_rows=3)
    assert result.columns == ["VOYAGE_ID"] and len(result.rows) == 3 and result.truncated
    assert "only the first 3 rows" in result.as_text()
    with pytest.raises(SqlRefused, match="max_rows"):
        eng.supplychain.read_only_query("SELECT 1", max_rows=0)
    with pytest.raises(SqlRefused, match="longer than"):
        eng.supplychain.read_only_query(HOSTILE_SQL[-5], timeout_s=0.5)


def test_run_sql_tool_reports_refusals_to_the_model(eng):
    registry = toolbox.build_registry(eng)
    result = registry.dispatch("c1", "run_sql", json.dumps({"sql": "DROP TABLE VOYAGES"}))
    assert not result.ok and "refused" in result.error


# ---------------------------------------------------------------- the loop
def test_the_reference_loop_passes_the_part6_check(eng):
    from workshop_lib import checks

    checks.part6.check_agent_turn(lambda *a, **k: loop.agent_turn(eng, *a, **k), eng)
    assert eng.store.list("message", limit=None) == []  # the check cleans up after itself


def test_a_tool_message_always_follows_its_tool_calls(eng):
    replies = iter([fake_response(None, [("run_sql", '{"sql": "SELECT COUNT(*) AS N FROM PORTS"}', "c9")]),
                    fake_response("There are some ports.")])
    llm = scripted(lambda **kw: next(replies))
    turn = loop.agent_turn(eng, llm, toolbox.build_registry(eng), "t-order", "How many ports?")
    roles = [m["role"] for m in turn.messages]
    assert roles == ["system", "user", "assistant", "tool"]
    assert turn.messages[2]["tool_calls"][0]["id"] == turn.messages[3]["tool_call_id"] == "c9"
    assert eng.store.get("memory", memory.tool_output_id("c9", "t-order", eng)).metadata["kind"] == "tool_output"


# ---------------------------------------------------------------- the demo
QUESTIONS = [
    "What is in the SUPPLYCHAIN schema?",
    "How many active voyages does each carrier have?",
    "cargo_items.unit_value_cents is in USD cents, not dollars. Please remember that.",
    "What is the declared value of the cargo on voyage 1001 in dollars?",
]


def _turn(eng, thread, question, registry=None, use_memory=True):
    card = memory.context_card(eng, thread, question, use_memory=use_memory)
    return loop.agent_turn(eng, offline.offline_llm(), registry or toolbox.build_registry(eng), thread, question,
                           context=card.text())


def _tools_called(turn) -> list[str]:
    """The names of the tools a turn's assistant messages called, in order."""
    return [c["function"]["name"] for m in turn.messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]


def _corrections(eng) -> list:
    return [r for r in eng.store.list("memory", limit=None) if (r.metadata or {}).get("kind") == "correction"]


def test_the_four_turn_demo_remembers_a_correction_and_uses_it(eng):
    turns = [_turn(eng, "demo", q) for q in QUESTIONS]
    calls = [_tools_called(t) for t in turns]
    assert calls[0][0] == "search_knowledge" and "SUPPLYCHAIN.VOYAGES" in turns[0].answer
    assert calls[1] == ["run_sql"] and "Maersk" in turns[1].answer
    assert calls[2] == ["remember"]
    fixes = _corrections(eng)
    assert len(fixes) == 1 and "unit_value_cents" in fixes[0].content
    # Turn 4 retrieves the correction (context card and search_knowledge) and converts cents to dollars.
    assert "search_knowledge" in calls[3] and "run_sql" in calls[3]
    assert memory.context_card(eng, "demo", QUESTIONS[3]).corrections == [fixes[0].content]
    total = eng.supplychain.read_only_query(eng.statements.agent_queries["declared_value_of_voyage"].format(voyage_id=1001)).rows[0][1]
    assert f"${total / 100:,.2f}" in turns[3].answer
    # The thread holds all eight messages, in order.
    assert [m.role for m in eng.store.list_thread_messages("demo")] == ["user", "assistant"] * 4
    assert "from a correction you gave me" in turns[3].answer
    # Without the correction the column's own comment (found by search_knowledge) still says US cents.
    eng.store.delete("memory", fixes[0].id)
    again = _turn(eng, "demo-2", QUESTIONS[3])
    assert f"${total / 100:,.2f}" in again.answer and "from the comment of UNIT_VALUE_CENTS" in again.answer


def test_memory_off_gives_the_raw_figure(eng):
    _turn(eng, "setup", QUESTIONS[2])
    sql_only = toolbox.build_registry(eng)
    sql_only.tools = {"run_sql": sql_only.tools["run_sql"]}
    on = _turn(eng, "on", QUESTIONS[3])
    off = _turn(eng, "off", QUESTIONS[3], registry=sql_only, use_memory=False)
    assert "$" in on.answer and "$" not in off.answer


def test_remembering_the_same_thing_twice_stores_it_once(eng):
    first = memory.remember(eng, "UNIT_VALUE_CENTS is in US cents")
    assert memory.remember(eng, "UNIT_VALUE_CENTS is in US cents") == first
    with pytest.raises(ValueError):
        memory.remember(eng, "x", kind=memory.TOOL_OUTPUT)


# ---------------------------------------------------------------- the same on every engine
HOSTILE_ANYWHERE = [
    "DELETE FROM VOYAGES",
    "DROP TABLE VOYAGES",
    "UPDATE VOYAGES SET STATUS = 'X'",
    "INSERT INTO CARRIERS (CARRIER_ID) VALUES (999)",
    "CREATE TABLE x (a INTEGER)",
    "SELECT 1 FROM VOYAGES; DELETE FROM VOYAGES",
    "WITH gone AS (DELETE FROM VOYAGES RETURNING *) SELECT * FROM gone",
    "SELECT * FROM RECORDS",
    "",
]


def test_hostile_statements_are_refused_on_every_engine(any_eng):
    before = supplychain.counts(any_eng)
    for sql in HOSTILE_ANYWHERE:
        with pytest.raises(SqlRefused):
            any_eng.supplychain.read_only_query(sql, max_rows=5, timeout_s=5.0)
    assert supplychain.counts(any_eng) == before
    rows = any_eng.supplychain.read_only_query("SELECT COUNT(*) AS N FROM VOYAGES").rows
    assert rows == [(before["VOYAGES"],)]


def test_the_demo_on_every_engine(any_eng):
    """The four turns and the correction, on the engine at hand (Oracle: SQL through the read-only wrapper)."""
    turns = [_turn(any_eng, "demo-any", q) for q in QUESTIONS]
    total = any_eng.supplychain.read_only_query(
        any_eng.statements.agent_queries["declared_value_of_voyage"].format(voyage_id=1001)).rows[0][1]
    assert f"${float(total) / 100:,.2f}" in turns[3].answer
    assert "Maersk" in turns[1].answer


def test_nearest_ports_agree_with_haversine_on_every_engine(any_eng):
    rows = any_eng.supplychain.nearest_ports(lon=103.84, lat=1.264)  # Singapore
    assert rows[0][1] == "SGSIN" and rows[0][2] < 5

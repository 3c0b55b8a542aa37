"""Hard-stop checks for Part 6's TODOs: a tool of your own (`count_rows`), and the agent loop.

The tool is called the way the model calls it (registry.dispatch, JSON arguments). The
learner's loop is driven with scripted models (the real LLM wrapper over a fake client)
and a small tool registry, one scenario per rule of workshop_lib/parts/agent/loop.py. Each
scenario runs on its own thread id and cleans up what it wrote.
"""
from __future__ import annotations

import contextlib
import dataclasses
import uuid
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from workshop_lib.checks import CheckFailed, call_learner, checked_or_reference, describe_value, forget, has_passed, passed, say_reference
from workshop_lib.core.llm import LLM, fake_response, scripted
from workshop_lib.data import supplychain
from workshop_lib.parts.agent import loop, memory
from workshop_lib.parts.agent.tools import Tool, ToolRegistry, ToolResult, make_tool

if TYPE_CHECKING:
    from workshop_lib.core.records import Record
    from workshop_lib.engines.base import Engine

TODO1 = "TODO 1 (count_rows tool)"
TODO = "TODO 2 (agent_turn)"


# ------------------------------------------------------------------ TODO 1
# The entry points a statement may go through (engines/database.py's Sent.via): counting must go
# through the read-only boundary; the engine's own SQL methods skip it.
_BOUNDARY = "supplychain.read_only_query"
_READS_ALLOWED = ("supplychain.data_dictionary",)  # reading the table names inside the tool is fine


class _Spy:
    """Which statements a tool call sent, and through which entry point (`eng.trace()`): counting
    must go through read_only_query (the read-only boundary), and a name that fails validation
    must reach no SQL. In the grader's judge the learner's tool runs in another process: the
    judge serves its boundary (so this spy's trace sees those statements), and the others it ran
    are reported from there (`report_calls`) to the spy watching."""

    active: _Spy | None = None  # the spy now watching (report_calls adds to it)

    def __init__(self, eng: Any) -> None:
        self.eng = eng
        self.calls: list[tuple[str, str]] = []  # (entry point, the SQL), in the order they were sent

    @contextlib.contextmanager
    def watching(self) -> Iterator[_Spy]:
        self.calls.clear()
        previous, _Spy.active = _Spy.active, self
        try:
            with self.eng.trace() as sent:
                try:
                    yield self
                finally:
                    self.calls += [(s.via, s.statement) for s in sent if s.via not in _READS_ALLOWED]
        finally:
            _Spy.active = previous


def report_calls(calls: list[tuple[str, str]]) -> None:
    """Statements the learner's tool sent in another process (the grader's judge), as reported from
    there: added to the calls of the spy now watching."""
    if _Spy.active is not None:
        _Spy.active.calls += calls


def supplychain_tables(eng: Engine) -> list[str]:
    return sorted(t["table"] for t in eng.supplychain.data_dictionary("SUPPLYCHAIN")["tables"])


def _sql_of(calls: list[tuple[str, str]]) -> str:
    method, sql = calls[0]
    return f"eng.{method}({sql[:70]!r})"


def check_count_rows(registry: ToolRegistry, eng: Engine) -> None:
    """The learner's count_rows, called as the model calls it: every table, names as models send
    them, then names it must refuse before any SQL runs; the data must not change meanwhile."""
    forget(TODO1)
    tool = _count_rows_tool(registry)
    truth = {name.upper(): n for name, n in supplychain.counts(eng).items()}
    tables = supplychain_tables(eng)
    spy = _Spy(eng)
    _counts_every_table(registry, spy, tables, truth)
    _counts_names_as_sent(registry, spy, truth)
    _refuses_other_names(tool, spy, tables)
    if {name.upper(): n for name, n in supplychain.counts(eng).items()} != truth:
        raise CheckFailed(TODO1, "PORTS changed while count_rows ran", "never build SQL from a name you did not check.")
    passed(TODO1, f"counts the rows of all {len(tables)} tables through the read-only boundary, in any case, and "
                  "refuses other names before any SQL runs, naming the valid ones", fn=tool.fn)


def _count_rows_tool(registry: ToolRegistry) -> Tool:
    """The registered count_rows, with the one parameter the model must see: a required string `table`."""
    tool = registry.tools.get("count_rows")
    if tool is None:
        raise CheckFailed(TODO1, f"no tool named 'count_rows' in the registry (it has {sorted(registry.tools)})",
                          "run the TODO cell above this check first (it registers count_rows with @registry.tool), "
                          "then run this check again.")
    props = tool.parameters.get("properties", {})
    if props.get("table", {}).get("type") != "string" or tool.parameters.get("required") != ["table"]:
        raise CheckFailed(TODO1, f"the model would see the parameters {tool.parameters}; expected one required "
                          "string parameter `table`", "declare it as `def count_rows(table: str) -> str:`.")
    return tool


def _dispatch(registry: ToolRegistry, spy: _Spy, args: dict[str, Any]) -> tuple[ToolResult, list[tuple[str, str]]]:
    """One call the way the model makes it, and the engine methods it ran."""
    with spy.watching():
        result = registry.dispatch("check", "count_rows", _json(args))
    if not result.ok and result.error.startswith("NotImplementedError"):
        raise CheckFailed(TODO1, "not implemented yet: count_rows raises NotImplementedError",
                          "replace `raise NotImplementedError()` with your code and run the TODO cell again.")
    return result, list(spy.calls)


def _counts_every_table(registry: ToolRegistry, spy: _Spy, tables: list[str], truth: dict[str, int]) -> None:
    """Every table of the schema, named as in the dictionary (VOYAGES and PORTS first: the examples)."""
    for name in ["VOYAGES", "PORTS"] + [t for t in tables if t not in ("VOYAGES", "PORTS")]:
        args = {"table": name}
        result, calls = _dispatch(registry, spy, args)
        if not result.ok and not calls and result.error.startswith("ValueError"):
            raise CheckFailed(TODO1, f"count_rows({args}) was refused ({result.error[:100]!r}), but {name} is a "
                              f"SUPPLYCHAIN table: your list of valid tables misses it (the schema has {len(tables)} "
                              "tables)", "check the name against SUPPLYCHAIN_TABLES, which the cell above reads from "
                              "the data dictionary, not against a list typed by hand.")
        if not result.ok:
            raise CheckFailed(TODO1, f"count_rows({args}) failed: {result.error[:200]}",
                              "strip and upper-case the name, check it is in SUPPLYCHAIN_TABLES, then count with "
                              "eng.supplychain.read_only_query(f\"SELECT COUNT(*) AS N FROM {name}\").")
        _through_boundary(args, calls)
        _the_count(args, name, result.content, truth[name], calls)


def _counts_names_as_sent(registry: ToolRegistry, spy: _Spy, truth: dict[str, int]) -> None:
    """Names as models send them: lower case, spaces around, a trailing newline."""
    for args, name, fix in [({"table": "voyages"}, "VOYAGES", "a lower-case name (models send those): upper-case it "
                             "with .upper() before checking it"),
                            ({"table": " PORTS "}, "PORTS", "spaces around the name: strip them with .strip() before "
                             "checking it"),
                            ({"table": "Vessels\n"}, "VESSELS", "a mixed-case name with a newline: .strip().upper()")]:
        result, calls = _dispatch(registry, spy, args)
        if not result.ok:
            raise CheckFailed(TODO1, f"count_rows({args}) failed: {result.error[:160]}", fix + ".")
        _through_boundary(args, calls)
        _the_count(args, name, result.content, truth[name], calls, fix + ".")


def _refuses_other_names(tool: Tool, spy: _Spy, tables: list[str]) -> None:
    """Names that must be refused with a ValueError naming the valid tables, before any SQL runs."""
    for table, why in [("NO_SUCH_TABLE", "a table that does not exist"),
                       ("RECORDS", "the memory store's own table (not SUPPLYCHAIN)"),
                       ("VOYAGES; DROP TABLE PORTS", "an injection attempt"),
                       ("VOYAGE", "a fragment of a table name"),
                       ("", "an empty name")]:
        what = f"count_rows({{'table': {table!r}}}) ({why})"
        error = _refusal(tool, spy, what, table)
        if spy.calls:
            raise CheckFailed(TODO1, f"{what} reached the database ({_sql_of(spy.calls)} ran) before it was refused: "
                              "the name was not validated first, or not as a whole name",
                              "validate BEFORE any query, comparing the whole name: `if name not in "
                              "SUPPLYCHAIN_TABLES: raise ValueError(...)`. SUPPLYCHAIN_TABLES is a set, so `in` "
                              "matches whole names; `in` on a string, or any(name in t ...), also lets a fragment "
                              "or the empty string through, and a failed query is not a validation.")
        if not isinstance(error, ValueError):
            raise CheckFailed(TODO1, f"{what} raised {type(error).__name__}: {str(error)[:100]}; expected ValueError",
                              "raise ValueError(...): a name that is not a SUPPLYCHAIN table is an argument with a "
                              "bad value, and callers catch ValueError for that.")
        missing = [t for t in tables if t not in str(error)]
        if missing:
            raise CheckFailed(TODO1, f"{what} failed with {str(error)[:120]!r}, which does not tell the model which "
                              f"tables exist (it does not name {', '.join(missing[:3])})",
                              "raise ValueError(f\"unknown table ...; the tables are: "
                              "{', '.join(sorted(SUPPLYCHAIN_TABLES))}\").")


def _refusal(tool: Tool, spy: _Spy, what: str, table: str) -> Exception:
    """What the tool's function raised for a name it must refuse (called directly: the type matters)."""
    spy.calls.clear()
    try:
        with spy.watching():
            out = tool.fn(table=table)
    except NotImplementedError:
        raise CheckFailed(TODO1, "not implemented yet: count_rows raises NotImplementedError",
                          "replace `raise NotImplementedError()` with your code and run the TODO cell again.") from None
    except Exception as exc:  # noqa: BLE001 - the type is what is checked
        return exc
    raise CheckFailed(TODO1, f"{what} returned {str(out)[:60]!r}; it must be an error the model can read",
                      "raise ValueError for any name not in SUPPLYCHAIN_TABLES.")


def _the_count(args: dict[str, Any], name: str, content: str, rows: int, calls: list[tuple[str, str]], fix: str = "") -> None:
    text = content.strip()
    if text == str(rows):
        return
    if not text.isdigit():
        raise CheckFailed(TODO1, f"count_rows({args}) returned {content[:80]!r}; the table has {rows} rows",
                          "return just the number, as text: str(count).")
    counted = any("COUNT(" in sql.upper().replace(" ", "") for _, sql in calls)
    other = [sql for _, sql in calls if name not in sql.upper()]
    if other:
        raise CheckFailed(TODO1, f"count_rows({args}) returned {text}, but the query that ran, {other[0][:80]!r}, "
                          f"does not read {name} (which has {rows} rows)",
                          "put the checked name into the SQL: f\"SELECT COUNT(*) AS N FROM {name}\".")
    raise CheckFailed(TODO1, f"count_rows({args}) returned {text}; the table has {rows} rows",
                      fix or ("count in SQL and return that number: SELECT COUNT(*) AS N FROM {name}, then "
                              "str(result.rows[0][0])" + ("." if counted else "; read_only_query returns at most "
                              "max_rows rows (50 by default), so counting the rows it returns stops at the cap.")))


def _through_boundary(args: dict[str, Any], calls: list[tuple[str, str]]) -> None:
    other = [(m, sql) for m, sql in calls if m != _BOUNDARY]
    if other:
        raise CheckFailed(TODO1, f"count_rows({args}) counted with {_sql_of(other)}, which skips the read-only "
                          "boundary: a tool the model drives must only read, and only SUPPLYCHAIN",
                          "count with eng.supplychain.read_only_query(f\"SELECT COUNT(*) AS N FROM {name}\") and nothing else.")
    if not calls:
        raise CheckFailed(TODO1, f"count_rows({args}) returned a number without running a query: counts change, "
                          "so a number kept from before is wrong sooner or later",
                          "count on every call with eng.supplychain.read_only_query(f\"SELECT COUNT(*) AS N FROM {name}\").")


def reference_count_rows(eng: Engine) -> Callable[[str], str]:
    """The solution of TODO 1, used by later cells when the learner's version has not passed."""
    tables = set(supplychain_tables(eng))

    def count_rows(table: str) -> str:
        """Count the rows of one SUPPLYCHAIN table.

        Args:
            table: the table name, e.g. VOYAGES
        """
        name = table.strip().upper()
        if name not in tables:
            raise ValueError(f"unknown table {table!r}; the tables are: {', '.join(sorted(tables))}")
        return str(eng.supplychain.read_only_query(f"SELECT COUNT(*) AS N FROM {name}").rows[0][0])

    return count_rows


def registry_to_use(registry: ToolRegistry, eng: Engine) -> ToolRegistry:
    """The registry for the demo cells: with the learner's count_rows once its check passed."""
    tool = registry.tools.get("count_rows")
    if tool is not None and has_passed(TODO1, tool.fn):
        return registry
    say_reference(TODO1, "count_rows")
    return dataclasses.replace(registry, tools={**registry.tools, "count_rows": make_tool(reference_count_rows(eng))})


def _json(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args)


LONG_OUTPUT = "row " * 500  # 2,000 characters: longer than the preview the model may read


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Return the text it was given.

        Args:
            text: anything
        """
        return f"echo: {text}"

    @registry.tool
    def boom(reason: str = "") -> str:
        """A tool that always fails."""
        raise RuntimeError("the tool broke")

    @registry.tool
    def long_report() -> str:
        """Return a long report."""
        return LONG_OUTPUT

    return registry


MAX_CALLS = 25


class Script:
    """Replies in order; after the list, the last reply repeats. Records what each request held,
    and what the thread held at the first request. `seconds`: how far each model call moves
    the check's clock (time passes while a model thinks, not while a loop reads the clock)."""

    def __init__(self, replies: list[SimpleNamespace], *, without_tools: SimpleNamespace | None = None, clock: _Clock | None = None,
                 seconds: float = 0.0) -> None:
        self.replies = replies
        self.without_tools = without_tools  # when set: the reply to any request that offers no tools
        self.requests: list[dict[str, Any]] = []
        self.clock, self.seconds = clock, seconds
        self.thread: Callable[[], list[Any]] = list
        self.thread_at_first_call: list[Any] | None = None
        self.runaway = False
        self.not_a_dict = ""

    def __call__(self, **kwargs: Any) -> SimpleNamespace:
        if len(self.requests) >= MAX_CALLS:
            self.runaway = True
            raise RuntimeError(f"{MAX_CALLS} model calls in one turn: the loop does not stop")
        if not self.requests:
            self.thread_at_first_call = self.thread()
        odd = [m for m in kwargs["messages"] if not isinstance(m, dict)]
        if odd:
            self.not_a_dict = type(odd[0]).__name__
            raise RuntimeError(f"a message is a {self.not_a_dict}, not a dict")
        self.requests.append({"messages": [dict(m) for m in kwargs["messages"]], "tools": kwargs.get("tools")})
        if self.clock is not None:
            self.clock.now += self.seconds
        if self.without_tools is not None and not kwargs.get("tools"):
            return self.without_tools
        return self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]


def _calls(*calls: tuple[str, str, str], content: str | None = None) -> SimpleNamespace:
    return fake_response(content, list(calls))


class _Clock:
    """A clock that stands still while it is read; Script moves it on each model call."""

    def __init__(self) -> None:
        self.now = 1000.0  # not 0: a deadline of budget_s alone (no clock() +) is then already past

    def __call__(self) -> float:
        return self.now


RUNAWAY = CheckFailed(TODO, f"your loop called the model {MAX_CALLS} times in one turn and never stopped (the model "
                      "kept asking for tools, with max_iterations=3)", "loop at most max_iterations times: `for _ in "
                      "range(max_iterations):` (a `while True` loop, or one that never counts, has no cap), then make "
                      "the one forced call without tools.")


def _run(fn: Callable[..., Any], eng: Engine, script: Script, question: str, what: str, **kwargs: Any
         ) -> tuple[Any, list[tuple[str, str | None]], dict[str, Record]]:
    thread = f"check-{uuid.uuid4().hex[:8]}"

    def of_thread(**meta: str) -> list[Record]:
        return eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                              metadata_filter={"thread_id": thread, **meta})

    def messages() -> list[tuple[str, str | None]]:
        return [(m.role, m.content) for m in eng.store.list_thread_messages(thread)]

    script.thread = messages
    try:
        try:
            result = call_learner(TODO, what, fn, scripted(script), _registry(), thread, question, **kwargs)
        except CheckFailed:
            if script.runaway:
                raise RUNAWAY from None
            if script.not_a_dict:
                raise CheckFailed(TODO, f"with {what}, a message your loop sent was a {script.not_a_dict}, not a dict: "
                                  "the API takes each message as {'role': ..., 'content': ...}",
                                  "append loop.assistant_message(reply) (it turns the reply into the assistant's "
                                  "tool_calls message), and {'role': 'tool', 'tool_call_id': call.id, 'content': "
                                  "result.content} per result.") from None
            raise
        if script.runaway:  # the loop caught the error and went on
            raise RUNAWAY
        return result, messages(), {r.id: r for r in of_thread(kind=memory.TOOL_OUTPUT)}
    finally:
        for record in of_thread():
            eng.store.delete("memory", record.id)
        eng.store.delete_thread(thread)


def _turn(result: Any, what: str) -> Any:
    """The learner's result as a TurnResult (answer and messages), or a message naming what came back."""
    if isinstance(result, str):
        raise CheckFailed(TODO, f"with {what}, agent_turn returned the string {result[:60]!r}, not a TurnResult",
                          "return loop.TurnResult(answer=answer, messages=messages): the cells below read "
                          "turn.answer and turn.messages.")
    if not isinstance(getattr(result, "answer", None), str) or not isinstance(getattr(result, "messages", None), list):
        raise CheckFailed(TODO, f"with {what}, agent_turn returned {describe_value(result, 80)}; expected a "
                          "loop.TurnResult with .answer (text) and .messages (a list)",
                          "return loop.TurnResult(answer=answer, messages=messages).")
    return result


def _call_ids(outputs: dict[str, Any]) -> list[str]:
    """The call ids of the stored tool outputs (whatever record ids the store gives them)."""
    return sorted(str((r.metadata or {}).get("call_id")) for r in outputs.values())


def _thread_holds(messages: list[Any], question: str, answer: str, what: str) -> None:
    if messages != [("user", question), ("assistant", answer)]:
        raise CheckFailed(TODO, f"with {what}, the thread should hold the question then the answer "
                          f"{[('user', question), ('assistant', answer)]}; it holds {messages}",
                          "memory.log_message(eng, thread_id, 'user', question) first and memory.log_message(eng, "
                          "thread_id, 'assistant', answer) once at the end, whichever way the answer came (a reply "
                          "without tool calls, or the forced call).")


def _system(request: dict[str, Any]) -> str:
    first = request["messages"][0] if request["messages"] else {}
    return str(first.get("content")) if first.get("role") == "system" else ""


CONTEXT = "Corrections the user asked you to remember:\n- CHECK-7: the check's own correction"


def check_agent_turn(fn: Callable[..., Any], eng: Engine) -> None:
    """Drive the learner's loop through one scenario per rule of the loop, in this order; the first
    scenario that goes wrong raises its message."""
    forget(TODO)
    _answers_at_once(fn, eng)
    _context_reaches_model(fn, eng)
    _two_tool_calls(fn, eng)
    _content_and_tool_call(fn, eng)
    _failing_tools(fn, eng)
    _iteration_cap(fn, eng)
    _wall_clock_budget(fn, eng)
    passed(TODO, "answers, tool order and ids, previews and stored outputs, failing tools, the context, the "
                 "iteration cap, the budget and the forced answer all behave", fn=fn)


def _answers_at_once(fn: Callable[..., Any], eng: Engine) -> None:
    """No tool calls: the content is the answer, one model call, the thread holds both messages."""
    script = Script([fake_response("Forty-two.")])
    what = "a model that answers at once"
    result, messages, _ = _run(fn, eng, script, "What is the answer?", what)
    _expect_tool_schemas(script)
    if ("user", "What is the answer?") in messages and script.thread_at_first_call != [("user", "What is the answer?")]:
        raise CheckFailed(TODO, f"when the model was first called, the thread held {script.thread_at_first_call}: the "
                          "question must be logged FIRST, before the loop (a turn that fails or times out must still "
                          "leave the question in the thread)", "call memory.log_message(eng, thread_id, 'user', "
                          "question) as the first line of agent_turn.")
    result = _turn(result, what)
    if result.answer != "Forty-two.":
        raise CheckFailed(TODO, f"the model answered 'Forty-two.' without calling a tool, but your loop returned "
                          f"{result.answer!r}", "when reply.tool_calls is empty, reply.content is the answer: "
                          "stop the loop and return it in a TurnResult.")
    if len(script.requests) != 1:
        raise CheckFailed(TODO, f"the model answered on the first call, but your loop called it {len(script.requests)} "
                          "times", "break out of the loop as soon as a reply has no tool calls.")
    if messages != [("user", "What is the answer?"), ("assistant", "Forty-two.")]:
        raise CheckFailed(TODO, f"the thread should hold the question then the answer; it holds {messages}",
                          "memory.log_message(eng, thread_id, 'user', question) first and "
                          "memory.log_message(eng, thread_id, 'assistant', answer) at the end.")
    if _system(script.requests[0]) != loop.SYSTEM_PROMPT:
        raise CheckFailed(TODO, f"with context='' the system message should be loop.SYSTEM_PROMPT alone; it was "
                          f"{describe_value(_system(script.requests[0]), 90)}", "add \"\\n\\n\" + context only when "
                          "context is not empty.")


def _expect_tool_schemas(script: Script) -> None:
    """The first model call was made inside the loop, with the tools' JSON schemas as tools=."""
    tools = script.requests[0]["tools"] if script.requests else None
    if not tools and script.requests and any(m.get("content") == loop.FORCE_ANSWER for m in script.requests[0]["messages"]):
        raise CheckFailed(TODO, "your loop stopped before its first model call: the only call was the forced one "
                          "(it carries loop.FORCE_ANSWER), with the default 60 s budget and 5 iterations",
                          "take deadline = clock() + budget_s before the loop (budget_s alone is a duration, not a "
                          "point in time) and loop `for _ in range(max_iterations):`.")
    if not tools:
        raise CheckFailed(TODO, "the first model call had no tools", "pass tools=registry.schemas() to llm.chat.")
    if callable(tools) or not isinstance(tools, (list, tuple)):
        raise CheckFailed(TODO, f"tools= was {describe_value(tools, 60)}, not a list of tool schemas",
                          "pass tools=registry.schemas() (call it: the list it returns is what the API takes).")
    if not all(isinstance(t, dict) and t.get("type") == "function" for t in tools):
        raise CheckFailed(TODO, f"tools= held {type(tools[0]).__name__} objects; the API takes the JSON schemas of "
                          "the tools", "pass tools=registry.schemas() (one {'type': 'function', ...} dict per tool), "
                          "not the Tool objects in registry.tools.")


def _context_reaches_model(fn: Callable[..., Any], eng: Engine) -> None:
    """A context (the context card: corrections, knowledge) reaches the model in the system message."""
    script = Script([fake_response("noted")])
    _run(fn, eng, script, "Use the context", "a context card", context=CONTEXT)
    system = _system(script.requests[0]) if script.requests else ""
    if CONTEXT not in system or loop.SYSTEM_PROMPT not in system:
        elsewhere = any(CONTEXT in str(m.get("content")) for m in script.requests[0]["messages"][1:])
        raise CheckFailed(TODO, "agent_turn was given a context (the context card, with a correction) and the system "
                          "message was " + describe_value(system, 90) + (": the context went into another message"
                          if elsewhere else ": the context never reached the model, so a correction the user gave "
                          "is never used"), "start messages with {'role': 'system', 'content': loop.SYSTEM_PROMPT + "
                          "'\\n\\n' + context}.")


def _expect_tool_results_sent(script: Script) -> list[Any]:
    """The second model call carries the first call's messages, then the assistant's tool_calls
    message and one tool message per call, in order, with its id and result; returns its roles."""
    sent = script.requests[1]["messages"]
    roles = [m.get("role") for m in sent]
    if sent == script.requests[0]["messages"]:
        raise CheckFailed(TODO, "the second model call was sent exactly the messages of the first: the tool calls "
                          "and their results were lost, as when `messages` is created again inside the loop",
                          "build `messages` once, BEFORE the loop, and append to that same list in every iteration.")
    try:
        at = next(i for i, m in enumerate(sent) if m.get("role") == "assistant" and m.get("tool_calls"))
    except StopIteration:
        raise CheckFailed(TODO, f"the second model call did not contain the assistant's tool_calls message (roles: "
                          f"{roles})", "append loop.assistant_message(reply) to messages BEFORE the tool results: "
                          "the API rejects a tool message that no tool_calls message asked for.") from None
    tools_after = sent[at + 1:at + 3]
    if [m.get("role") for m in tools_after] != ["tool", "tool"] or any(m.get("role") == "tool" for m in sent[:at]):
        raise CheckFailed(TODO, f"the tool results must come right after the assistant's tool_calls message, one per "
                          f"call (roles sent: {roles})", "append the assistant message first, then one "
                          "{'role': 'tool', ...} message per call, in the order of reply.tool_calls.")
    _expect_ids_and_results(tools_after)
    return roles


def _expect_ids_and_results(tools_after: list[Any]) -> None:
    """The two tool messages carry the calls' ids and the tools' results, in the calls' order."""
    ids = [m.get("tool_call_id") for m in tools_after]
    if ids != ["call_A", "call_B"]:
        raise CheckFailed(TODO, f"the tool messages carry tool_call_id {ids}; expected ['call_A', 'call_B'] (the ids "
                          "of the calls, in order)", "set 'tool_call_id': call.id on each tool message.")
    if [m.get("content") for m in tools_after] != ["echo: a", "echo: b"]:
        raise CheckFailed(TODO, f"the tool messages hold {[m.get('content') for m in tools_after]}; expected the "
                          "results ['echo: a', 'echo: b']", "dispatch each call with registry.dispatch(call.id, "
                          "call.name, call.arguments) and send result.content.")


def _two_tool_calls(fn: Callable[..., Any], eng: Engine) -> None:
    """Two tool calls in one reply, then an answer: message order, ids, stored outputs."""
    script = Script([_calls(("echo", '{"text": "a"}', "call_A"), ("echo", '{"text": "b"}', "call_B")),
                     fake_response("done")])
    result, messages, outputs = _run(fn, eng, script, "Echo twice", "a model that calls two tools, then answers")
    if len(script.requests) < 2:
        raise CheckFailed(TODO, "after a reply with tool calls your loop never called the model again",
                          "run the tools, append their results, and call the model again in the next iteration.")
    roles = _expect_tool_results_sent(script)
    if sorted(str((r.metadata or {}).get("call_id")) for r in outputs.values()) != ["call_A", "call_B"]:
        raise CheckFailed(TODO, f"every tool call's full output must be stored as a tool_output memory; found "
                          f"{sorted(outputs)}", "call memory.store_tool_output(eng, thread_id, result) for each result.")
    result = _turn(result, "a model that calls two tools, then answers")
    returned = [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in result.messages]
    if returned != roles:
        raise CheckFailed(TODO, f"the TurnResult's messages hold the roles {returned}; they should be the "
                          f"conversation the loop built and sent, {roles}", "return loop.TurnResult(answer=answer, "
                          "messages=messages) with the same `messages` list the loop appended to.")
    if result.answer != "done":
        raise CheckFailed(TODO, f"after the tools the model answered 'done'; your loop returned {result.answer!r}",
                          "keep looping until a reply has no tool calls, and return that reply's content.")
    _thread_holds(messages, "Echo twice", "done", "a model that calls two tools, then answers")


def _content_and_tool_call(fn: Callable[..., Any], eng: Engine) -> None:
    """Real models often say something AND call a tool; the tool output is longer than the preview."""
    script = Script([_calls(("long_report", "{}", "call_L"), content="Let me look that up."), fake_response("read it")])
    result, _, outputs = _run(fn, eng, script, "Report", "a reply with both content and a tool call")
    result = _turn(result, "a reply with both content and a tool call")
    if len(script.requests) == 1:
        raise CheckFailed(TODO, f"the model's reply held text ('Let me look that up.') AND a tool call; your loop "
                          f"stopped on the text and returned {result.answer!r} without running the tool",
                          "decide on reply.tool_calls alone: stop only when it is empty (real models often write a "
                          "few words while they call tools).")
    preview = _registry().dispatch("call_L", "long_report", "{}").content
    sent = [m.get("content") for m in script.requests[1]["messages"] if m.get("role") == "tool"]
    if sent and sent[0] == LONG_OUTPUT:
        raise CheckFailed(TODO, f"the model was sent the tool's full output ({len(LONG_OUTPUT):,} characters); it "
                          f"should read the preview ({len(preview):,} characters, ending with how to fetch the rest)",
                          "send result.content in the tool message; result.full is what store_tool_output stores.")
    if sent != [preview]:
        raise CheckFailed(TODO, f"the tool message held {describe_value(sent, 90)}; expected the preview of the "
                          "result", "send {'role': 'tool', 'tool_call_id': call.id, 'content': result.content}.")
    stored = next((r for r in outputs.values() if (r.metadata or {}).get("call_id") == "call_L"), None)
    if stored is None or stored.content != LONG_OUTPUT:
        raise CheckFailed(TODO, "the stored tool_output must be the full output, not the preview",
                          "memory.store_tool_output(eng, thread_id, result) with the result dispatch returned.")


def _failing_tools(fn: Callable[..., Any], eng: Engine) -> None:
    """Failing tools never crash the loop."""
    script = Script([_calls(("boom", "{}", "c1"), ("nope", "{}", "c2"), ("echo", "{not json", "c3")),
                     fake_response("recovered")])
    try:
        result, _, outputs = _run(fn, eng, script, "Break things", "a model that calls a failing tool, an unknown tool and "
                                                             "sends malformed JSON arguments")
    except CheckFailed as failed:
        if not failed.problem.startswith("your code raised"):
            raise
        raise CheckFailed(TODO, failed.problem + "\n  A tool that fails must never crash the turn.",
                          "run every call with registry.dispatch(call.id, call.name, call.arguments): it never raises "
                          "(an unknown tool, arguments that are not JSON and a tool's own exception all come back as "
                          "an error result the model reads); do not call the tool's function or json.loads yourself.") \
            from None
    sent = script.requests[-1]["messages"] if len(script.requests) > 1 else []
    errors = [m for m in sent if m.get("role") == "tool" and "error" in str(m.get("content"))]
    if _turn(result, "failing tools").answer != "recovered" or len(errors) != 3:
        raise CheckFailed(TODO, "a tool that raises, an unknown tool name and arguments that are not JSON must each "
                          f"become an error result the model reads; the model saw {len(errors)} error result(s)",
                          "use registry.dispatch(...): it never raises and returns an error result instead.")
    if _call_ids(outputs) != ["c1", "c2", "c3"]:
        raise CheckFailed(TODO, f"the outputs of failed tool calls must be stored too (the model reads the error and "
                          f"may fetch it later); stored for the calls {_call_ids(outputs)} of c1, c2, c3", "call memory.store_tool_output(eng, "
                          "thread_id, result) for every result, whether result.ok or not.")


def _iteration_cap(fn: Callable[..., Any], eng: Engine) -> None:
    """A model that never stops calling tools: the iteration cap, then one forced answer without tools."""
    script = Script([_calls(("echo", '{"text": "again"}', f"loop{i}")) for i in range(30)],
                    without_tools=fake_response("forced answer"))
    what = "a model that keeps calling tools (max_iterations=3)"
    result, messages, _ = _run(fn, eng, script, "Loop forever", what, max_iterations=3)
    with_tools = [r for r in script.requests if r["tools"]]
    if len(script.requests) == 4 and script.requests[-1]["tools"]:
        raise CheckFailed(TODO, "the forced call after the iteration cap still offered tools: the model could call "
                          "another tool instead of answering", "make the forced call WITHOUT tools: "
                          "llm.chat(messages + [{'role': 'user', 'content': loop.FORCE_ANSWER}]).")
    if len(with_tools) != 3:
        raise CheckFailed(TODO, f"with max_iterations=3 and a model that keeps calling tools, your loop called the "
                          f"model with tools {len(with_tools)} times; expected 3", "loop at most max_iterations times.")
    if len(script.requests) != 4 or script.requests[-1]["tools"]:
        raise CheckFailed(TODO, "after the iteration cap there must be exactly one more model call WITHOUT tools, "
                          "which forces an answer", "llm.chat(messages + [{'role': 'user', 'content': "
                          "loop.FORCE_ANSWER}]) with no tools=, and return its content.")
    result = _turn(result, what)
    if result.answer != "forced answer":
        raise CheckFailed(TODO, f"the forced call answered 'forced answer'; your loop returned {result.answer!r}",
                          "return the content of the forced call.")
    _thread_holds(messages, "Loop forever", "forced answer", what)
    if any(m.get("content") == loop.FORCE_ANSWER for m in result.messages if isinstance(m, dict)):
        raise CheckFailed(TODO, "the returned messages hold the forced-answer instruction (loop.FORCE_ANSWER) as if the "
                          "user had said it; it is an instruction for one call, not part of the conversation",
                          "send it without keeping it: llm.chat(messages + [{'role': 'user', 'content': "
                          "loop.FORCE_ANSWER}]), not messages.append(...).")


def _wall_clock_budget(fn: Callable[..., Any], eng: Engine) -> None:
    """The wall-clock budget. The check's clock moves only while the model is called."""
    for seconds, budget, rounds, problem, fix in [
        (40.0, 100.0, 3, "the wall-clock budget was ignored: with a 100 s budget and 40 s per model call your loop "
         "made {n} tool rounds; expected 3 (at 0, 40 and 80 s)", "take deadline = clock() + budget_s before the loop "
         "and stop when clock() >= deadline at the start of each iteration (use the clock you are given)."),
        (50.0, 100.0, 2, "with a 100 s budget and 50 s per model call the clock read exactly the deadline (100 s) "
         "before the third call, and your loop still called the model with tools ({n} tool rounds; expected 2)",
         "stop when clock() >= deadline: reaching the deadline means the budget is spent (> lets one more call "
         "through)."),
        (50.0, 0.0, 0, "with budget_s=0 the budget is spent before the first call, and your loop still called the "
         "model with tools {n} time(s): the deadline was checked after the model call, so one call too many is made",
         "check the deadline at the START of each iteration, before llm.chat, then make the forced call.")]:
        clock = _Clock()
        script = Script([_calls(("echo", '{"text": "slow"}', f"slow{i}")) for i in range(30)],
                        without_tools=fake_response("out of time"), clock=clock, seconds=seconds)
        what = f"a {budget:g} s budget with {seconds:g} s per model call (max_iterations=10)"
        result, _, _ = _run(fn, eng, script, "Take your time", what, max_iterations=10, budget_s=budget, clock=clock)
        with_tools = [r for r in script.requests if r["tools"]]
        if rounds and not with_tools:
            raise CheckFailed(TODO, f"with {what} your loop stopped before its first model call: the deadline was "
                              "already past when the turn began", "the deadline is a point in time: deadline = clock() "
                              "+ budget_s, taken before the loop (budget_s alone is a duration, not a time).")
        if len(with_tools) != rounds:
            raise CheckFailed(TODO, problem.format(n=len(with_tools)), fix)
        if not script.requests or script.requests[-1]["tools"]:
            raise CheckFailed(TODO, f"with {what}: after the budget ran out there must be one forced model call "
                              "without tools", "when the loop ends without an answer, make the forced call.")
        if _turn(result, what).answer != "out of time":
            raise CheckFailed(TODO, f"with {what} the forced call answered 'out of time'; your loop returned "
                              f"{result.answer!r}", "return the content of the forced call.")


def agent_turn_to_use(fn: Callable[..., Any], eng: Engine) -> Callable[..., Any]:
    """The loop the demo cells run: the learner's once its check passed, the library's otherwise
    (with `eng` bound, so both are called the same way)."""
    def reference(llm: LLM, registry: ToolRegistry, thread_id: str, question: str, **options: Any) -> loop.TurnResult:
        return loop.agent_turn(eng, llm, registry, thread_id, question, **options)

    return checked_or_reference(TODO, fn, reference, "loop.agent_turn")

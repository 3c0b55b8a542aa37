"""Hard-stop checks for Part 6's TODOs: a tool of your own (`count_rows`), and the agent loop.

The tool is called the way the model calls it (registry.dispatch, JSON arguments). The
learner's loop is driven with scripted models (the real LLM wrapper over a fake client)
and a small tool registry, one scenario per rule of workshop_lib/parts/agent/loop.py. Each
scenario runs on its own thread id and cleans up what it wrote.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from workshop_lib.checks import CheckFailed, call_learner, passed
from workshop_lib.core.llm import fake_response, scripted
from workshop_lib.parts.agent import memory
from workshop_lib.parts.agent.tools import ToolRegistry

TODO1 = "TODO 1 (count_rows tool)"
TODO = "TODO 2 (agent_turn)"


def check_count_rows(registry: ToolRegistry, eng) -> None:
    tool = registry.tools.get("count_rows")
    if tool is None:
        raise CheckFailed(TODO1, f"no tool named 'count_rows' in the registry (it has {sorted(registry.tools)})",
                          "run the TODO cell above this check first (it registers count_rows with @registry.tool), "
                          "then run this check again.")
    props = tool.parameters.get("properties", {})
    if props.get("table", {}).get("type") != "string" or tool.parameters.get("required") != ["table"]:
        raise CheckFailed(TODO1, f"the model would see the parameters {tool.parameters}; expected one required "
                          "string parameter `table`", "declare it as `def count_rows(table: str) -> str:`.")
    truth = {name.upper(): n for name, n in eng.supplychain_counts().items()}
    for args, name, why in [({"table": "VOYAGES"}, "VOYAGES", "a table name as the model sends it"),
                            ({"table": "PORTS"}, "PORTS", "another table"),
                            ({"table": "voyages"}, "VOYAGES", "a lower-case name (models send those): upper-case it"),
                            ({"table": " PORTS "}, "PORTS", "spaces around the name: strip them")]:
        result = registry.dispatch("check", "count_rows", _json(args))
        if not result.ok and "NotImplementedError" in result.error:
            raise CheckFailed(TODO1, "not implemented yet: count_rows raises NotImplementedError",
                              "replace `raise NotImplementedError()` with your code and run the TODO cell again.")
        if not result.ok:
            raise CheckFailed(TODO1, f"count_rows({args}) ({why}) failed: {result.error}",
                              "strip and upper-case the name, check it is in SUPPLYCHAIN_TABLES, then count with "
                              "eng.read_only_query.")
        if result.content.strip() != str(truth[name]):
            raise CheckFailed(TODO1, f"count_rows({args}) ({why}) returned {result.content[:80]!r}; the table has "
                              f"{truth[name]} rows", "return just the number, as text: str(count).")
    for args, why in [({"table": "NO_SUCH_TABLE"}, "a table that does not exist"),
                      ({"table": "RECORDS"}, "the memory store's own table (not SUPPLYCHAIN)"),
                      ({"table": "VOYAGES; DROP TABLE PORTS"}, "an injection attempt")]:
        result = registry.dispatch("check", "count_rows", _json(args))
        if result.ok:
            raise CheckFailed(TODO1, f"count_rows({args}) ({why}) returned {result.content[:60]!r}; it must be an "
                              "error the model can read", "raise ValueError for any name not in SUPPLYCHAIN_TABLES.")
        if "VOYAGES" not in result.error:
            raise CheckFailed(TODO1, f"count_rows({args}) ({why}) failed with {result.error[:120]!r}, which does not "
                              "tell the model which tables exist", "raise ValueError(f\"unknown table ...; the tables "
                              "are: {', '.join(sorted(SUPPLYCHAIN_TABLES))}\").")
    if {name.upper(): n for name, n in eng.supplychain_counts().items()} != truth:
        raise CheckFailed(TODO1, "PORTS changed while count_rows ran", "never build SQL from a name you did not check.")
    passed(TODO1, "counts rows by name, any case, refuses unknown tables and names the valid ones")


def _json(args: dict) -> str:
    import json

    return json.dumps(args)


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

    return registry


class Script:
    """Replies in order; after the list, the last reply repeats. Records what each request held."""

    def __init__(self, replies: list[Any], *, without_tools: Any = None) -> None:
        self.replies = replies
        self.without_tools = without_tools  # when set: the reply to any request that offers no tools
        self.requests: list[dict] = []

    def __call__(self, **kwargs):
        if len(self.requests) >= 25:
            raise RuntimeError("25 model calls in one turn: the loop does not stop")
        self.requests.append({"messages": [dict(m) for m in kwargs["messages"]], "tools": kwargs.get("tools")})
        if self.without_tools is not None and not kwargs.get("tools"):
            return self.without_tools
        return self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]


def _calls(*calls: tuple[str, str, str]):
    return fake_response(None, list(calls))


class _Clock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _run(fn: Callable, eng, script: Script, question: str, what: str, **kwargs):
    thread = f"check-{uuid.uuid4().hex[:8]}"

    def of_thread(**meta):
        return eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                              metadata_filter={"thread_id": thread, **meta})

    try:
        result = call_learner(TODO, what, fn, scripted(script), _registry(), thread, question, **kwargs)
        messages = [(m.role, m.content) for m in eng.store.list_thread_messages(thread)]
        return result, messages, {r.id: r for r in of_thread(kind=memory.TOOL_OUTPUT)}
    finally:
        for record in of_thread():
            eng.store.delete("memory", record.id)
        eng.store.delete_thread(thread)


def _answer_of(result: Any) -> str | None:
    return getattr(result, "answer", result if isinstance(result, str) else None)


def check_agent_turn(fn: Callable, eng) -> None:
    # 1. No tool calls: the content is the answer, one model call, the thread holds both messages.
    script = Script([fake_response("Forty-two.")])
    result, messages, _ = _run(fn, eng, script, "What is the answer?", "a model that answers at once")
    if _answer_of(result) != "Forty-two.":
        raise CheckFailed(TODO, f"the model answered 'Forty-two.' without calling a tool, but your loop returned "
                          f"{_answer_of(result)!r}", "when reply.tool_calls is empty, reply.content is the answer: "
                          "stop the loop and return it in a TurnResult.")
    if len(script.requests) != 1:
        raise CheckFailed(TODO, f"the model answered on the first call, but your loop called it {len(script.requests)} "
                          "times", "break out of the loop as soon as a reply has no tool calls.")
    if not script.requests[0]["tools"]:
        raise CheckFailed(TODO, "the first model call had no tools", "pass tools=registry.schemas() to llm.chat.")
    if messages != [("user", "What is the answer?"), ("assistant", "Forty-two.")]:
        raise CheckFailed(TODO, f"the thread should hold the question then the answer; it holds {messages}",
                          "memory.log_message(eng, thread_id, 'user', question) first and "
                          "memory.log_message(eng, thread_id, 'assistant', answer) at the end.")

    # 2. Two tool calls in one reply, then an answer: message order, ids, stored outputs.
    script = Script([_calls(("echo", '{"text": "a"}', "call_A"), ("echo", '{"text": "b"}', "call_B")),
                     fake_response("done")])
    result, messages, outputs = _run(fn, eng, script, "Echo twice", "a model that calls two tools, then answers")
    if len(script.requests) < 2:
        raise CheckFailed(TODO, "after a reply with tool calls your loop never called the model again",
                          "run the tools, append their results, and call the model again in the next iteration.")
    sent = script.requests[1]["messages"]
    roles = [m["role"] for m in sent]
    try:
        at = next(i for i, m in enumerate(sent) if m["role"] == "assistant" and m.get("tool_calls"))
    except StopIteration:
        raise CheckFailed(TODO, f"the second model call did not contain the assistant's tool_calls message (roles: "
                          f"{roles})", "append loop.assistant_message(reply) to messages BEFORE the tool results: "
                          "the API rejects a tool message that no tool_calls message asked for.") from None
    tools_after = sent[at + 1:at + 3]
    if [m.get("role") for m in tools_after] != ["tool", "tool"] or any(m["role"] == "tool" for m in sent[:at]):
        raise CheckFailed(TODO, f"the tool results must come right after the assistant's tool_calls message, one per "
                          f"call (roles sent: {roles})", "append the assistant message first, then one "
                          "{'role': 'tool', ...} message per call, in the order of reply.tool_calls.")
    ids = [m.get("tool_call_id") for m in tools_after]
    if ids != ["call_A", "call_B"]:
        raise CheckFailed(TODO, f"the tool messages carry tool_call_id {ids}; expected ['call_A', 'call_B'] (the ids "
                          "of the calls, in order)", "set 'tool_call_id': call.id on each tool message.")
    if [m.get("content") for m in tools_after] != ["echo: a", "echo: b"]:
        raise CheckFailed(TODO, f"the tool messages hold {[m.get('content') for m in tools_after]}; expected the "
                          "results ['echo: a', 'echo: b']", "dispatch each call with registry.dispatch(call.id, "
                          "call.name, call.arguments) and send result.content.")
    if sorted(r.metadata.get("call_id") for r in outputs.values()) != ["call_A", "call_B"]:
        raise CheckFailed(TODO, f"every tool call's full output must be stored as a tool_output memory; found "
                          f"{sorted(outputs)}", "call memory.store_tool_output(eng, thread_id, result) for each result.")
    if _answer_of(result) != "done":
        raise CheckFailed(TODO, f"after the tools the model answered 'done'; your loop returned {_answer_of(result)!r}",
                          "keep looping until a reply has no tool calls, and return that reply's content.")

    # 3. Failing tools never crash the loop.
    script = Script([_calls(("boom", "{}", "c1"), ("nope", "{}", "c2"), ("echo", "{not json", "c3")),
                     fake_response("recovered")])
    result, _, _ = _run(fn, eng, script, "Break things", "a model that calls a failing tool, an unknown tool and "
                                                         "sends malformed JSON arguments")
    sent = script.requests[-1]["messages"] if len(script.requests) > 1 else []
    errors = [m for m in sent if m.get("role") == "tool" and "error" in str(m.get("content"))]
    if _answer_of(result) != "recovered" or len(errors) != 3:
        raise CheckFailed(TODO, "a tool that raises, an unknown tool name and arguments that are not JSON must each "
                          f"become an error result the model reads; the model saw {len(errors)} error result(s)",
                          "use registry.dispatch(...): it never raises and returns an error result instead.")

    # 4. A model that never stops calling tools: the iteration cap, then one forced answer without tools.
    script = Script([_calls(("echo", '{"text": "again"}', f"loop{i}")) for i in range(30)],
                    without_tools=fake_response("forced answer"))
    result, _, _ = _run(fn, eng, script, "Loop forever", "a model that keeps calling tools (max_iterations=3)",
                        max_iterations=3)
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
    if _answer_of(result) != "forced answer":
        raise CheckFailed(TODO, f"the forced call answered 'forced answer'; your loop returned {_answer_of(result)!r}",
                          "return the content of the forced call.")

    # 5. The wall-clock budget: a clock that advances 40 s per reading, budget 100 s.
    script = Script([_calls(("echo", '{"text": "slow"}', f"slow{i}")) for i in range(30)],
                    without_tools=fake_response("out of time"))
    result, _, _ = _run(fn, eng, script, "Take your time", "a 100 s budget with a clock that moves 40 s per reading "
                                                          "(max_iterations=10)",
                        max_iterations=10, budget_s=100.0, clock=_Clock(40.0))
    with_tools = [r for r in script.requests if r["tools"]]
    if len(with_tools) >= 10:
        raise CheckFailed(TODO, "the wall-clock budget was ignored: with a 100 s budget and 40 s passing between "
                          f"clock readings your loop made {len(with_tools)} tool rounds", "take deadline = clock() + "
                          "budget_s before the loop and stop when clock() >= deadline at the start of each iteration.")
    if script.requests[-1]["tools"]:
        raise CheckFailed(TODO, "after the budget ran out there must be one forced model call without tools",
                          "when the loop ends without an answer, make the forced call.")
    passed(TODO, "answers, tool order and ids, stored outputs, failing tools, the iteration cap, the budget and "
                 "the forced answer all behave")


"""One agent turn: read memory, let the model call tools, write everything back.

This is the reference for Part 6's TODO (`agent_turn`). The rules it keeps, each of which
the Part's check tests on the learner's loop:

1. the user's message is logged to the thread first, the answer last;
2. the model is called with the tool schemas; no tool calls means the content is the answer;
3. otherwise the assistant message with its tool_calls is appended as it came, THEN one
   tool message per call, in order, each carrying its call's id (the OpenAI API rejects a
   tool message that does not follow the tool_calls that asked for it);
4. every call is dispatched through the registry (an unknown tool, bad arguments or a
   failing tool is an error result, never a crash) and its output stored as a tool_output
   memory (capped per output and per turn: memory.StoreBudget);
5. the loop stops after max_iterations model calls or when the wall-clock budget is spent
   (calls asked for after the budget, or beyond MAX_TOOL_CALLS in the turn, get an error
   result instead of running, and nothing is stored for them);
6. if it stopped without an answer, one last call WITHOUT tools forces one.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from workshop_lib.parts.agent import memory

if TYPE_CHECKING:
    from workshop_lib.core.llm import ChatModel
    from workshop_lib.engines.base import Engine
    from workshop_lib.parts.agent.tools import ToolRegistry, ToolResult

SYSTEM_PROMPT = ("You are a supply-chain analyst assistant for the SUPPLYCHAIN schema. Use the tools to look "
                 "things up; answer only from what the context and the tools give you, and say so when they "
                 "do not answer the question.")
MAX_TOOL_CALLS = 16  # run per turn; a model asking for more gets error results for the rest
FORCE_ANSWER = "Answer now, in a few sentences, from what you have. Do not call tools."


# How a turn ended: the model answered, it used every iteration, or the time budget ran out.
Stopped = Literal["answer", "iterations", "budget"]


@dataclass
class TurnResult:
    answer: str
    messages: list[dict]
    tool_results: list[ToolResult] = field(default_factory=list)
    model_calls: int = 0
    stopped: Stopped = "answer"
    forced: bool = False          # the answer came from the final call without tools


def assistant_message(reply) -> dict:
    """The assistant's tool-call message, as the API expects it back in the conversation."""
    return {"role": "assistant", "content": reply.content or None,
            "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                           for c in reply.tool_calls]}


def agent_turn(eng: Engine, llm: ChatModel, registry: ToolRegistry, thread_id: str, question: str, *, context: str = "",
               max_iterations: int = 5, budget_s: float = 60.0, clock: Callable[[], float] = time.monotonic
               ) -> TurnResult:
    memory.log_message(eng, thread_id, "user", question)
    system = SYSTEM_PROMPT + ("\n\n" + context if context else "")
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": question}]
    result = TurnResult(answer="", messages=messages)
    deadline = clock() + budget_s
    stored = memory.StoreBudget()  # what this turn's tool outputs may add to the store
    answer = None
    for _ in range(max_iterations):
        if clock() >= deadline:
            result.stopped = "budget"
            break
        reply = llm.chat(messages, tools=registry.schemas())
        result.model_calls += 1
        if not reply.tool_calls:
            answer = reply.content
            break
        messages.append(assistant_message(reply))
        for call in reply.tool_calls:
            # Every call gets its tool message (the API needs one per call); one not run stores nothing.
            if clock() >= deadline:
                outcome = registry.refuse(call.id, call.name, f"not run: the turn's {budget_s:g} s budget is spent")
            elif len(result.tool_results) >= MAX_TOOL_CALLS:
                outcome = registry.refuse(call.id, call.name, f"not run: a turn runs at most {MAX_TOOL_CALLS} tool "
                                                              "calls; answer from what you have")
            else:
                outcome = registry.dispatch(call.id, call.name, call.arguments)
                memory.store_tool_output(eng, thread_id, outcome, stored)
                result.tool_results.append(outcome)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
    else:
        result.stopped = "iterations"
    if answer is None:
        reply = llm.chat(messages + [{"role": "user", "content": FORCE_ANSWER}])
        result.model_calls += 1
        answer, result.forced = reply.content, True
    result.answer = answer or ""
    memory.log_message(eng, thread_id, "assistant", result.answer)
    return result

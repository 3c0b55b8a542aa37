"""What the agent reads and writes in the store on every turn.

- thread messages (record_type "message"): the conversation, in order;
- tool outputs (a memory with kind "tool_output", id "tool:<call id>"): the full output of
  every tool call, so the model can get a short preview and fetch the rest later; Part 3's
  retrieve_knowledge skips them because a log of past calls is not knowledge;
- corrections (kind "correction"): what a user told the agent to remember.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workshop_lib.parts import retrieval

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine
    from workshop_lib.parts.agent.tools import ToolResult

TOOL_OUTPUT = "tool_output"
CORRECTION = "correction"


def tool_output_id(call_id: str) -> str:
    return f"tool:{call_id}"


def log_message(eng: Engine, thread_id: str, role: str, text: str) -> str:
    """Append one message to the thread (the thread is created on its first message)."""
    return eng.store.add([text or "(empty)"], record_type="message", thread_ids=thread_id, user_ids=eng.user_id,
                         agent_ids=eng.agent_id, roles=role)[0]


def store_tool_output(eng: Engine, thread_id: str, result: ToolResult) -> str:
    rid = tool_output_id(result.call_id)
    meta = {"kind": TOOL_OUTPUT, "subject": f"TOOL.{result.name}", "call_id": result.call_id,
            "tool": result.name, "thread_id": thread_id, "ok": result.ok}
    if eng.store.get("memory", rid) is not None:
        eng.store.delete("memory", rid)  # a replayed call id keeps only its latest output
    return eng.store.add([result.full or result.content], record_ids=rid, metadata=meta,
                         user_ids=eng.user_id, agent_ids=eng.agent_id)[0]


def fetch_tool_output(eng: Engine, call_id: str) -> str:
    record = eng.store.get("memory", tool_output_id(call_id))
    if record is None:
        raise ValueError(f"no stored output for tool call {call_id!r}")
    return record.content or ""


def remember(eng: Engine, text: str, kind: str = CORRECTION, subject: str = "") -> str:
    """Store what the user asked the agent to remember; returns the memory id."""
    if kind == TOOL_OUTPUT:
        raise ValueError("tool outputs are stored by the loop, not remembered")
    for record in _memories_of_kind(eng, kind):
        if record.content == text:
            return record.id  # said twice (or a cell run twice): one memory
    meta = {"kind": kind, "source": "conversation"}
    if subject:
        meta["subject"] = subject
    return eng.store.add([retrieval.check_query(text)], metadata=meta, user_ids=eng.user_id,
                         agent_ids=eng.agent_id)[0]


def _memories_of_kind(eng: Engine, kind: str) -> list:
    return eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                          metadata_filter={"kind": kind})


def corrections(eng: Engine) -> list[str]:
    return [h.content or "" for h in _memories_of_kind(eng, CORRECTION)]


@dataclass
class ContextCard:
    """What the agent sees before it plans a turn, and what each part costs in tokens."""

    recent: list[str]
    knowledge: list[str]
    corrections: list[str]
    tokens: dict[str, int]

    def text(self) -> str:
        parts = []
        if self.corrections:
            parts.append("Corrections the user asked you to remember (they override older knowledge):\n- "
                         + "\n- ".join(self.corrections))
        if self.knowledge:
            parts.append("Schema knowledge:\n- " + "\n- ".join(self.knowledge))
        if self.recent:
            parts.append("Recent messages in this thread:\n" + "\n".join(self.recent))
        return "\n\n".join(parts)


def context_card(eng: Engine, thread_id: str, question: str, *, use_memory: bool = True, k: int = 4,
                 last_n: int = 6) -> ContextCard:
    recent = [f"{m.role}: {m.content}" for m in eng.store.list_thread_messages(thread_id, last_n=last_n)]
    knowledge = [f"{h['subject']}: {h['body']}" for h in retrieval.retrieve_knowledge(eng, question, k=k)
                 if h["kind"] != CORRECTION] if use_memory else []
    fixes = corrections(eng) if use_memory else []
    tokens = {"recent messages": sum(eng.count_tokens(t) for t in recent),
              "knowledge": sum(eng.count_tokens(t) for t in knowledge),
              "corrections": sum(eng.count_tokens(t) for t in fixes)}
    return ContextCard(recent, knowledge, fixes, tokens)

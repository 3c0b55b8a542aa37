"""What the agent reads and writes in the store on every turn, all in the user's scope.

- thread messages (record_type "message"): the conversation, in order;
- tool outputs (a memory with kind "tool_output"): the output of every tool call, keyed by
  user, agent, thread and call id (a call id that repeats in another thread or for another
  user never overwrites or reads this one), so the model can get a short preview and fetch
  the rest later; Part 3's retrieve_knowledge skips them because a log of past calls is not
  knowledge. What is stored is capped per output and per turn (StoreBudget);
- corrections (kind "correction"): what a user told the agent to remember.

`eng` is the engine as the requesting user sees it (`eng.scoped(user_id)`): every write is in
that user's scope, every read is of that scope (plus the shared schema knowledge).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from workshop_lib.parts import retrieval

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine
    from workshop_lib.parts.agent.tools import ToolResult

TOOL_OUTPUT = "tool_output"
CORRECTION = "correction"
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_STORED_OUTPUT_BYTES = 16 * 1024     # one tool output as stored; the rest is cut with a note
MAX_STORED_TURN_BYTES = 64 * 1024       # all tool outputs of one turn together
MAX_MESSAGE_BYTES = 16 * 1024           # one thread message as stored


def tool_output_id(call_id: str, thread_id: str | None = None, eng: Engine | None = None) -> str:
    """The record id of a stored tool output. With `thread_id` (and `eng`, whose user and agent)
    the id is unique to that scope and thread; the bare form is kept for code that only
    has a call id (the Part 6 notebook's demo, the check)."""
    if thread_id is None:
        return f"tool:{call_id}"
    owner = "\x00".join([eng.user_id if eng else "", eng.agent_id if eng else "", thread_id])
    key = hashlib.sha256(owner.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    if len(call_id) > 100:  # model-chosen ids: keep the record id within the store's limits
        call_id = "h" + hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return f"tool:{key}:{call_id}"


def cut_bytes(text: str, limit: int, what: str) -> str:
    """`text` when its UTF-8 form fits `limit`; else its head and a note saying what was cut."""
    text = _SURROGATE.sub("\ufffd", text)  # no database stores a lone surrogate
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", "ignore")
    return head + f"\n... [{what} cut: {len(data):,} bytes in all, only the first {limit:,} are kept]"


@dataclass
class StoreBudget:
    """Bytes the tool outputs of one turn may still add to the store; past it only previews are kept."""

    left: int = MAX_STORED_TURN_BYTES

    def take(self, text: str, preview: str) -> str:
        size = len(text.encode("utf-8", "replace"))
        if size <= self.left:
            self.left -= size
            return text
        kept = cut_bytes(preview, max(self.left, 0) or 1, "preview") if self.left <= 0 else preview
        self.left -= len(kept.encode("utf-8", "replace"))
        return kept + (f"\n... [not stored in full: this turn's tool outputs passed "
                       f"{MAX_STORED_TURN_BYTES:,} bytes]")


def log_message(eng: Engine, thread_id: str, role: str, text: str) -> str:
    """Append one message to the thread (the thread is created on its first message)."""
    text = cut_bytes(text or "(empty)", MAX_MESSAGE_BYTES, "message")
    return eng.store.add([text], record_type="message", thread_ids=thread_id, user_ids=eng.user_id,
                         agent_ids=eng.agent_id, roles=role)[0]


def store_tool_output(eng: Engine, thread_id: str, result: ToolResult, budget: StoreBudget | None = None) -> str:
    """Store one call's output in the user's scope, keyed by thread and call id; at most
    MAX_STORED_OUTPUT_BYTES of it (and what `budget` still allows), the rest cut with a note."""
    rid = tool_output_id(result.call_id, thread_id, eng)
    meta = {"kind": TOOL_OUTPUT, "subject": f"TOOL.{result.name}", "call_id": result.call_id,
            "tool": result.name, "thread_id": thread_id, "ok": result.ok}
    text = cut_bytes(result.full or result.content, MAX_STORED_OUTPUT_BYTES, "tool output")
    if budget is not None:
        text = budget.take(text, result.content)
    old = eng.store.get("memory", rid)
    if old is not None and (old.user_id, old.agent_id) == (eng.user_id, eng.agent_id):
        eng.store.delete("memory", rid)  # a replayed call id in the same thread keeps only its latest output
    return eng.store.add([text], record_ids=rid, metadata=meta, user_ids=eng.user_id, agent_ids=eng.agent_id)[0]


def fetch_tool_output(eng: Engine, call_id: str, thread_id: str | None = None) -> str:
    """A stored output of this user's scope: of `thread_id` when given, else the latest with this call id."""
    record = eng.store.get("memory", tool_output_id(call_id, thread_id, eng)) if thread_id else None
    if record is None and thread_id is None:
        found = eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                               metadata_filter={"kind": TOOL_OUTPUT, "call_id": call_id})
        record = found[-1] if found else None
    if record is None or (record.user_id, record.agent_id) != (eng.user_id, eng.agent_id):
        raise ValueError(f"no stored output for tool call {call_id!r}" + (" in this thread" if thread_id else ""))
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


def thread_messages(eng: Engine, thread_id: str, last_n: int | None = None) -> list:
    """The thread's messages when the thread is this user's; none otherwise (another user's
    thread reads as empty, never as their conversation)."""
    messages = eng.store.list_thread_messages(thread_id)
    if messages and messages[0].user_id != eng.user_id:
        return []
    mine = [m for m in messages if m.user_id == eng.user_id]
    return mine if last_n is None else (mine[len(mine) - last_n:] if last_n else [])


# The card's section headers: `ContextCard.text()` writes them for the model. Part 7's offline reader
# (memory/card_answer.py) reads the card's fields; Part 6's offline planner, standing in for a model
# that gets only the prompt, reads the lines under CORRECTIONS_HEADER (agent/offline.py).
PREFERENCES_HEADER = "Preferences the user set (apply them to every answer)"
GUIDELINES_HEADER = "Guidelines the user set (follow them in every answer)"
CORRECTIONS_HEADER = "Corrections the user asked you to remember (they override older knowledge)"
FACTS_HEADER = "What the user told you about their world (only the latest statement of each subject is kept)"
KNOWLEDGE_HEADER = "Schema knowledge"
SUMMARY_HEADER = "Summary of the earlier conversation"
RECENT_HEADER = "Recent messages in this thread"


class CardMessage(NamedTuple):
    """One thread message as the card shows it."""

    role: str
    content: str

    def __str__(self) -> str:
        return f"{self.role}: {self.content}"


@dataclass(kw_only=True)
class ContextCard:
    """What the agent sees before it plans a turn, and what each part costs in tokens.

    Part 6's `context_card` fills the recent messages, the schema knowledge and the corrections;
    Part 7's `memory.card.memory_card` fills every section under a token budget, for one of its
    modes. `text()` is what the model reads; code that answers from the card reads the fields."""

    recent: list[CardMessage] = field(default_factory=list)
    knowledge: list[str] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)   # memories of kind correction
    preferences: list[str] = field(default_factory=list)
    guidelines: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)       # the running summary's lines ("role: sentence")
    tokens: dict[str, int] = field(default_factory=dict)
    mode: str | None = None     # Part 7's memory mode (memory.card.MODES); None for Part 6's card
    budget: int | None = None   # Part 7's token budget; None when the card is not budgeted

    @property
    def settings(self) -> list[str]:
        """Everything the user set: preferences, guidelines and corrections (one section of the budget)."""
        return self.preferences + self.guidelines + self.corrections

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    def text(self) -> str:
        parts = [header + ":\n- " + "\n- ".join(lines) for header, lines in (
            (PREFERENCES_HEADER, self.preferences), (GUIDELINES_HEADER, self.guidelines),
            (CORRECTIONS_HEADER, self.corrections), (FACTS_HEADER, self.facts), (KNOWLEDGE_HEADER, self.knowledge))
            if lines]
        if self.summary:
            parts.append(SUMMARY_HEADER + ":\n" + "\n".join(self.summary))
        if self.recent:
            parts.append(RECENT_HEADER + ":\n" + "\n".join(map(str, self.recent)))
        return "\n\n".join(parts)


def context_card(eng: Engine, thread_id: str, question: str, *, use_memory: bool = True, k: int = 4,
                 last_n: int = 6) -> ContextCard:
    recent = [CardMessage(m.role, m.content or "") for m in thread_messages(eng, thread_id, last_n=last_n)]
    knowledge = [f"{h['subject']}: {h['body']}" for h in retrieval.retrieve_knowledge(eng, question, k=k)
                 if h["kind"] != CORRECTION] if use_memory else []
    fixes = corrections(eng) if use_memory else []
    tokens = {"recent messages": sum(eng.model.count_tokens(str(m)) for m in recent),
              "knowledge": sum(eng.model.count_tokens(t) for t in knowledge),
              "corrections": sum(eng.model.count_tokens(t) for t in fixes)}
    return ContextCard(recent=recent, knowledge=knowledge, corrections=fixes, tokens=tokens)

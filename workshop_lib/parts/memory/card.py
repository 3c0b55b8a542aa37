"""The context card under a token budget: summary + last messages + knowledge + what the user set.

`memory_card` builds what a model sees before it answers, for one of four modes (the
benchmark compares them):

- "off":               nothing but the question;
- "last_n":            the last `last_n` messages;
- "summary":           the running summary + the messages not yet folded into it;
- "summary+memories":  that, plus the user's valid preferences, guidelines and corrections,
                       the facts nearest the question, and schema knowledge.

The card reports its tokens per section. Over `budget`, sections give way in this order:
knowledge (least relevant first), the summary's oldest lines, the oldest kept messages, then
the facts farthest from the question; preferences, guidelines and corrections never do (what
the user set applies to every answer) and the newest message always stays.

The card is Part 6's `ContextCard` (agent/memory.py) with every section filled: one card type,
one rendering.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from workshop_lib.parts import retrieval
from workshop_lib.parts.agent.memory import CardMessage, ContextCard
from workshop_lib.parts.memory import writer

if TYPE_CHECKING:
    from workshop_lib.core.records import MessageRecord
    from workshop_lib.engines.base import Engine

MODES = ("off", "last_n", "summary", "summary+memories")


def _set_by_user(eng: Engine, card: ContextCard, user_id: str, agent_id: str) -> None:
    card.preferences = [r.content or "" for r in eng.store.list("preference", limit=20, user_id=user_id,
                                                                agent_id=agent_id)]
    card.guidelines = [r.content or "" for r in eng.store.list("guideline", limit=20, user_id=user_id,
                                                               agent_id=agent_id)]
    card.corrections = [r.content or "" for r in eng.store.list("memory", limit=20, user_id=user_id,
                                                                agent_id=agent_id, metadata_filter={"kind": "correction"})]


def _facts(eng: Engine, question: str, user_id: str, agent_id: str, k: int) -> list[str]:
    hits = eng.store.search(question, k=k, user_id=user_id, agent_id=agent_id, exact_user_match=True,
                            exact_agent_match=True, record_types={"fact"})
    return [r.content or "" for r, _ in hits]


def memory_card(eng: Engine, thread_id: str, question: str, *, user_id: str, agent_id: str,
                mode: str = "summary+memories", budget: int = 600, last_n: int = 6, k_facts: int = 5,
                k_knowledge: int = 3) -> ContextCard:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive integer, got {budget!r}")
    card = ContextCard(mode=mode, budget=budget)
    messages = eng.store.list_thread_messages(thread_id) if mode != "off" else []
    if any(m.user_id not in (user_id, None) for m in messages):
        raise ValueError(f"thread {thread_id!r} belongs to another user; {user_id!r} cannot read it")
    _conversation(eng, card, thread_id, messages, mode, last_n)
    if mode == "summary+memories":
        _memories(eng, card, question, user_id, agent_id, k_facts, k_knowledge)
    _fit(eng, card, budget)
    return card


def _conversation(eng: Engine, card: ContextCard, thread_id: str, messages: list[MessageRecord], mode: str,
                  last_n: int) -> None:
    """The thread on the card: its last n messages, or its summary and the messages after it."""
    if mode == "last_n":
        messages = messages[-last_n:] if last_n else []
    elif mode != "off":
        text, upto = writer.read_summary(eng, thread_id)
        card.summary = [ln for ln in text.splitlines() if ln.strip()]
        messages = messages[upto:]
    card.recent = [CardMessage(m.role, m.content or "") for m in messages]


def _memories(eng: Engine, card: ContextCard, question: str, user_id: str, agent_id: str, k_facts: int,
              k_knowledge: int) -> None:
    """The user's memories on the card: what the user set, the facts nearest the question, and the
    schema knowledge (only in the workshop's own scope, where it lives)."""
    _set_by_user(eng, card, user_id, agent_id)
    card.facts = _facts(eng, question, user_id, agent_id, k_facts)
    if user_id == eng.user_id and agent_id == eng.agent_id:  # schema knowledge lives in the workshop's scope
        card.knowledge = [f"{h['subject']}: {h['body']}" for h in retrieval.retrieve_knowledge(eng, question, k=k_knowledge)
                          if h["kind"] not in ("correction", "thread_summary")]


def _count(eng: Engine, card: ContextCard) -> None:
    card.tokens = {name: sum(eng.model.count_tokens(str(t)) for t in getattr(card, name))
                   for name in ("settings", "facts", "knowledge", "summary", "recent")}


def _fit(eng: Engine, card: ContextCard, budget: int) -> None:
    """Drop the least needed lines until the card fits its budget (see the module docstring)."""
    _count(eng, card)
    for name, from_end in (("knowledge", True), ("summary", False), ("recent", False), ("facts", True)):
        keep_one = name == "recent"
        lines = getattr(card, name)
        while card.total_tokens > budget and len(lines) > (1 if keep_one else 0):
            lines.pop(-1 if from_end else 0)
            _count(eng, card)

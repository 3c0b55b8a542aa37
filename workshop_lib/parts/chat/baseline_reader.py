"""The offline reader of the memory baselines: the chat service's extractor and recall, on a context.

At a question turn the reader knows only the context a baseline gives it (baselines.py). It
builds a scratch memory of its own from it, in a fresh scope: every user line (a message, a
summary line said by the user) goes through the personal-memory extractor with consolidation
(personal.observe), and every stored memory is taken as it is. It reads in the order shown,
so a later statement of a subject wins; a ranked section (a search, best first) is read from
its last hit to its first, so the best-ranked wins. Then it answers as the chat service does
(`ChatService._answer_turn` without the agent): a question that states something goes to the
router; otherwise recall from the scratch memory (with the data), else the router.
The assistant's lines are context (counted in tokens), never read as the user's statements.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from workshop_lib.assistant.answering.answer import ChatAnswer, answer_question
from workshop_lib.assistant.answering.recall import recall_answer
from workshop_lib.parts.memory import personal
from workshop_lib.parts.memory.baselines import Context, Item

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

_SCRATCH = itertools.count(1)


def scratch_scope(label: str) -> str:
    """A scope no one has used: the reader starts empty at every question."""
    return f"reader~{label}~{next(_SCRATCH)}"


def _user_text(item: Item) -> str | None:
    if item.role == "user":
        return item.text
    if item.role == "summary" and item.text.startswith("user: "):
        return item.text.removeprefix("user: ")
    return None


def load(eng: Engine, context: Context, scope: str) -> None:
    """The context into the reader's scratch memory (see the module docstring)."""
    agent = eng.agent_id
    for section in context.sections:
        for item in (reversed(section.items) if section.ranked else section.items):
            if item.record is not None:
                eng.store.add([item.record.content or ""], record_type="fact", metadata=item.record.metadata,
                              user_ids=scope, agent_ids=agent)
            elif (text := _user_text(item)) is not None and text.strip():
                personal.observe(eng, text, user_id=scope, agent_id=agent)


def answer(eng: Engine, question: str, scope: str) -> ChatAnswer:
    """The chat service's answer to `question`, with the scratch memory as the user's memory."""
    agent = eng.agent_id
    stated = [w for w in personal.observe(eng, question, user_id=scope, agent_id=agent) if w.stored_id or w.forgotten]
    if not stated:
        recalled = recall_answer(eng, question, user_id=scope, agent_id=agent)
        if recalled is not None:
            return recalled
    return answer_question(eng.scoped(scope), question)

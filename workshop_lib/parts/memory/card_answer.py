"""Answering from the card offline, and the agent's turn with memory.

`answer_from_card` is a deterministic stand-in for a model reading the context card (no
API key needed, the benchmark uses it): it reads every statement the card holds, from its
fields, in the order it was made (summary, settings and stored facts, the user's recent
messages), lets a later statement of a
subject replace an earlier one and a "forget" remove it, and answers a question about the
user's own world from what is left, applying their currency preference. It knows nothing else.

`MemoryAwareClient` is Part 6's offline planner with that added: a question about the user's
own world is answered from the card it is shown (`show`, which `memory_turn` calls with the
card it renders into the prompt); a declared value is given in dollars when the user's
preference says dollars, not cents. `memory_turn` is one agent turn with the write path,
the budgeted card and the summary fold around Part 6's loop.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workshop_lib.core.llm import LLM, fake_response
from workshop_lib.parts.agent import loop, offline
from workshop_lib.parts.agent.memory import ContextCard
from workshop_lib.parts.memory import card as cards
from workshop_lib.parts.memory import writer
from workshop_lib.parts.memory.extract import Candidate, extract_offline, normalise

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

MODEL_NAME = "offline-planner with memory (no LLM: answers the user's own facts from the card)"
_PERSONAL = re.compile(r"\b(?:my|our)\b|\bwhere do (?:i|we) live\b|\bwho do (?:i|we) work for\b|\bwhat is my name\b", re.I)
_CENTS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:us\s+)?cents\b", re.I)
_STOP = {"what", "whats", "is", "are", "was", "my", "our", "the", "a", "an", "do", "you", "remember", "again",
         "tell", "me", "please", "which", "who", "where", "now", "current", "did", "i", "say", "said", "of"}
_ALIASES = {"live": "location", "based": "location", "work": "employer", "name": "name"}


@dataclass
class Beliefs:
    """What the card says about the user, after every statement in order."""

    facts: dict[str, str] = field(default_factory=dict)         # subject -> latest value
    preferences: dict[str, str] = field(default_factory=dict)   # dimension -> latest text


def _statements(card: ContextCard) -> list[str]:
    """What the user said or set, in the order it was made: the summary's lines, the settings, the
    stored facts, then the recent messages; the assistant's words are not the user's statements."""
    said = [*(_from_summary(line) for line in card.summary), *card.settings, *card.facts,
            *(m.content for m in card.recent if m.role != "assistant")]
    return [line for text in said for line in text.splitlines() if line.strip()]


def _from_summary(line: str) -> str:
    """A stored summary line ("user: ..." or "assistant: ...") as a statement; "" for the assistant's."""
    if line.startswith("assistant:"):
        return ""
    return re.sub(r"^(?:- |user: )", "", line)


def beliefs(card: ContextCard | None) -> Beliefs:
    b, last = Beliefs(), ""
    for text in _statements(card) if card is not None else []:
        for c in extract_offline(text, last_subject=last):
            _take(b, c)
            if c.record_type == "fact" and c.subject and c.op == "remember":
                last = c.subject
    return b


def _take(b: Beliefs, c: Candidate) -> None:
    if c.op == "forget":
        what = set(normalise(c.subject).split()) - _STOP
        for subject in [s for s in b.facts if what and (what & set(s.split()) or normalise(b.facts[s]) in normalise(c.subject))]:
            del b.facts[subject]
    elif c.record_type == "fact" and c.subject:
        b.facts[normalise(c.subject)] = c.value
    elif c.record_type in ("preference", "guideline") and c.subject:
        b.preferences[c.subject] = c.text


def wants_dollars(b: Beliefs) -> bool:
    pref = b.preferences.get("currency unit", "").lower()
    return "dollar" in pref and not re.search(r"\b(?:in|prefer) cents\b", pref)


def in_dollars(value: str) -> str:
    return _CENTS.sub(lambda m: f"${float(m.group(1).replace(',', '')) / 100:,.2f}", value)


def _subject_of(question: str, known: list[str]) -> str | None:
    words = [w for w in normalise(question).split() if w not in _STOP]
    words = [_ALIASES.get(w, w) for w in words]
    best, score = None, 0
    for subject in known:
        s_words = subject.split()
        overlap = sum(1 for w in s_words if w in words or w.rstrip("s") in words)
        if overlap == len(s_words) and overlap > score:
            best, score = subject, overlap
    return best


def answer_from_card(card: ContextCard, question: str) -> str:
    """An answer to a question about the user's own world from the card alone."""
    b = beliefs(card)
    subject = _subject_of(question, list(b.facts))
    if subject is None:
        return "I do not have that in what you have told me."
    value = b.facts[subject]
    if wants_dollars(b):
        value = in_dollars(value)
    return f"Your {subject} is {value}."


def is_personal(question: str) -> bool:
    return bool(_PERSONAL.search(question or "")) and not re.search(r"\bremember\b|\bforget\b", question, re.I)


def _total_in_dollars(reply: Any, messages: list[dict[str, Any]], b: Beliefs) -> Any:
    """The cargo's declared total said in dollars when the user asked for dollars and the answer
    to the last run_sql (a sum in cents) gives none; None to keep the reply."""
    done = offline._tool_results(messages)
    content = reply.choices[0].message.content
    if content and done and done[-1][0] == "run_sql" and "TOTAL_UNIT_VALUE_CENTS" in done[-1][1] \
            and "$" not in content and wants_dollars(b):
        rows = offline._rows(done[-1][1])
        if rows:
            number, total = rows[0][0], float(rows[0][1])
            return fake_response(f"The declared value of the cargo on voyage {number} is ${total / 100:,.2f} "
                                 f"(the sum of QUANTITY x UNIT_VALUE_CENTS is {total:,.0f} cents; you asked "
                                 "for dollars, not cents).")
    return None


class MemoryAwareClient(offline.OfflineClient):
    """Part 6's offline planner, answering the user's own facts from the card and applying their currency preference."""

    card: ContextCard | None = None  # the card of the turn (`show`); none: it knows nothing of the user

    def show(self, card: ContextCard) -> None:
        """The card this turn's prompt was rendered from: a model reads its text, this stand-in its fields."""
        self.card = card

    def _create(self, **kwargs: Any) -> Any:
        messages = kwargs["messages"]
        question = next((m["content"] for m in messages if m["role"] == "user"), "")
        b = beliefs(self.card)
        if self.card is not None and is_personal(question) and _subject_of(question, list(b.facts) or ["?"]) is not None:
            self.requests.append(kwargs)
            return fake_response(answer_from_card(self.card, question))
        reply = super()._create(**kwargs)
        in_dollars = _total_in_dollars(reply, messages, b)
        return in_dollars if in_dollars is not None else reply


def memory_llm(dictionary: dict | None = None) -> LLM:
    """`dictionary`: the data dictionary the offline planner plans from (see offline.offline_llm)."""
    return LLM(MemoryAwareClient(dictionary), MODEL_NAME)


@dataclass
class MemoryTurn:
    answer: str
    card: ContextCard
    applied: list
    turn: Any


def memory_turn(eng: Engine, llm, registry, thread_id: str, question: str, *, user_id: str | None = None,
                agent_id: str | None = None, budget: int = 600, message_budget: int = 250,
                summary_budget: int = 150, extract_llm=None, summary_llm=None) -> MemoryTurn:
    """One agent turn with memory over time: write path, budgeted card, Part 6's loop, summary fold.

    `extract_llm` / `summary_llm`: a model for the structured extraction call (validated) and the
    abstractive summary; None uses the offline rules and the extractive summary."""
    user_id, agent_id = user_id or eng.user_id, agent_id or eng.agent_id
    if (user_id, agent_id) != (eng.user_id, eng.agent_id):
        # Part 6's loop logs the thread and its tool outputs in the engine's scope: one scope for the whole turn.
        raise ValueError(f"the agent runs in the engine's scope ({eng.user_id!r}, {eng.agent_id!r}); "
                         "connect an engine for that user instead")
    # Schema corrections ("remember that X.Y is ...") are stored by the agent's remember tool, as in Part 6.
    applied = writer.observe_user_turn(eng, question, user_id=user_id, agent_id=agent_id, thread_id=thread_id,
                                       llm=extract_llm, skip_kinds=("correction",))
    card = cards.memory_card(eng, thread_id, question, user_id=user_id, agent_id=agent_id, budget=budget)
    if isinstance(getattr(llm, "client", None), MemoryAwareClient):
        llm.client.show(card)  # the offline stand-in reads the card's fields; a model reads card.text()
    turn = loop.agent_turn(eng, llm, registry, thread_id, question, context=card.text())
    writer.fold_thread(eng, thread_id, user_id=user_id, message_budget=message_budget,
                       summary_budget=summary_budget, llm=summary_llm)
    return MemoryTurn(turn.answer, card, applied, turn)

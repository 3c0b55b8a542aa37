"""Memory baselines: what each one keeps after a turn, and what it shows the reader at a question.

The conversation benchmark (parts/chat/baseline_eval.py) plays the same conversations through
every baseline; they differ only in what they keep and in the context the reader gets:

- no_memory:          nothing;
- last_n:             the last N messages (user and assistant) of the user's conversation;
- full_transcript:    every message of the user's conversation, in order;
- transcript_search:  the top-k user turns by the store's hybrid search for the question, best first;
- summary:            Part 7's running summary plus the messages not yet folded into it (the card's "summary");
- summary+memories:   that, plus the user's valid personal memories (consolidated: a correction
                      supersedes), in the order they were said: today's chat service;
- add_only:           that summary, plus every personal memory ever extracted (no update, no
                      supersede), ranked by the store's search for the question, best first.

Each baseline keeps its state in its own scope (`<user>~<baseline>`), one thread per user of a
conversation across its sessions: a user's baseline never reads another user's messages. The
reader (reader.py) is the same for all. Budgets are Part 7's (bench/memory.py uses the same).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workshop_lib.core.records import Record
from workshop_lib.parts import retrieval
from workshop_lib.parts.agent.memory import CardMessage
from workshop_lib.parts.memory import card as cards
from workshop_lib.parts.memory import personal, writer

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

NAMES = ("no_memory", "last_n", "full_transcript", "transcript_search", "summary", "summary+memories", "add_only")
LAST_N = 6
SEARCH_K = 6
CARD_BUDGET, MESSAGE_BUDGET, SUMMARY_BUDGET = 600, 250, 150
MAX_MEMORIES = 20
TRANSCRIPT_KIND = "transcript_turn"


@dataclass(frozen=True)
class Item:
    """One line the reader sees: a message, a summary line or a stored memory."""

    role: str                      # user | assistant | summary | memory
    text: str
    record: Record | None = None   # a stored memory, taken by the reader as it is


@dataclass(frozen=True)
class Section:
    items: tuple[Item, ...]
    ranked: bool = False           # best first (a search), not in the order said


@dataclass
class Context:
    sections: list[Section] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"{i.role}: {i.text}" for s in self.sections for i in s.items]

    def tokens(self, count_tokens: Callable[[str], int]) -> int:
        return sum(count_tokens(line) for line in self.lines())


def _recent_items(messages: list[CardMessage]) -> list[Item]:
    """The card's recent messages as items (a message of another role as the user's, role and all)."""
    return [Item(m.role, m.content) if m.role in ("user", "assistant") else Item("user", str(m)) for m in messages]


class Baseline:
    """No memory: keeps nothing, shows nothing. The others override `write` and `context`."""

    name = "no_memory"

    def __init__(self, eng: Engine) -> None:
        self.eng = eng

    def scope(self, user: str) -> str:
        return f"{user}~{self.name}"

    def thread(self, key: str, user: str) -> str:
        return f"{key}~{self.scope(user)}"

    def write(self, key: str, user: str, question: str, answer: str) -> None:
        """What the baseline keeps of one exchange (the user's turn and the answer it got)."""

    def context(self, key: str, user: str, question: str) -> Context:
        """What the reader is shown before it answers `question`."""
        return Context()

    def _keep_messages(self, key: str, user: str, question: str, answer: str) -> None:
        self.eng.store.add([question, answer or "(no answer)"], record_type="message",
                           thread_ids=self.thread(key, user), user_ids=self.scope(user),
                           agent_ids=self.eng.agent_id, roles=["user", "assistant"])


class LastN(Baseline):
    name = "last_n"
    last_n: int | None = LAST_N

    def write(self, key: str, user: str, question: str, answer: str) -> None:
        self._keep_messages(key, user, question, answer)

    def context(self, key: str, user: str, question: str) -> Context:
        msgs = self.eng.store.list_thread_messages(self.thread(key, user), last_n=self.last_n)
        return Context([Section(tuple(Item(m.role or "user", m.content or "") for m in msgs))])


class FullTranscript(LastN):
    name = "full_transcript"
    last_n = None


class TranscriptSearch(Baseline):
    """The user's turns indexed as records of their own kind; the hybrid search (vector + keyword,
    RRF) of the store ranks them for the question. Shared schema knowledge hits are skipped."""

    name = "transcript_search"

    def write(self, key: str, user: str, question: str, answer: str) -> None:
        self.eng.store.add([question], record_type="memory", metadata={"kind": TRANSCRIPT_KIND, "conversation": key},
                           user_ids=self.scope(user), agent_ids=self.eng.agent_id)

    def context(self, key: str, user: str, question: str) -> Context:
        hits = retrieval.hybrid_rrf_search_memories(self.eng.scoped(self.scope(user)), question, k=SEARCH_K * 5)
        turns = [h["content"] for h in hits if h["kind"] == TRANSCRIPT_KIND][:SEARCH_K]
        return Context([Section(tuple(Item("user", t) for t in turns), ranked=True)])


class Summary(Baseline):
    name = "summary"

    def write(self, key: str, user: str, question: str, answer: str) -> None:
        self._keep_messages(key, user, question, answer)
        writer.fold_thread(self.eng, self.thread(key, user), user_id=self.scope(user), message_budget=MESSAGE_BUDGET,
                           summary_budget=SUMMARY_BUDGET)

    def _summary_section(self, key: str, user: str, question: str) -> Section:
        card = cards.memory_card(self.eng, self.thread(key, user), question, user_id=self.scope(user),
                                 agent_id=self.eng.agent_id, mode="summary", budget=CARD_BUDGET)
        summary = [Item("summary", line) for line in card.summary]
        return Section(tuple(summary + _recent_items(card.recent)))

    def context(self, key: str, user: str, question: str) -> Context:
        return Context([self._summary_section(key, user, question)])


class SummaryMemories(Summary):
    """Today's chat service: personal memories consolidated as they are written (personal.observe)."""

    name = "summary+memories"
    supersede = True

    def write(self, key: str, user: str, question: str, answer: str) -> None:
        super().write(key, user, question, answer)
        personal.observe(self.eng, question, user_id=self.scope(user), agent_id=self.eng.agent_id,
                         supersede=self.supersede)

    def memories(self, user: str, question: str) -> Section:
        valid = self.eng.store.list("fact", limit=None, user_id=self.scope(user), agent_id=self.eng.agent_id,
                                    metadata_filter={"kind": personal.KIND})[-MAX_MEMORIES:]
        return Section(tuple(Item("memory", r.content or "", r) for r in valid))

    def context(self, key: str, user: str, question: str) -> Context:
        return Context([self._summary_section(key, user, question), self.memories(user, question)])


class AddOnly(SummaryMemories):
    """Every extracted memory kept side by side; nothing says which value is current, so the
    reader gets them as a memory library returns them: ranked by the store's search."""

    name = "add_only"
    supersede = False

    def memories(self, user: str, question: str) -> Section:
        hits = self.eng.store.search(question, k=MAX_MEMORIES, user_id=self.scope(user), agent_id=self.eng.agent_id,
                                     exact_user_match=True, exact_agent_match=True, record_types={"fact"},
                                     metadata_filter={"kind": personal.KIND})
        return Section(tuple(Item("memory", r.content or "", r) for r, _ in hits), ranked=True)


_CLASSES: dict[str, type[Baseline]] = {c.name: c for c in (Baseline, LastN, FullTranscript, TranscriptSearch, Summary,
                                                           SummaryMemories, AddOnly)}


def make(name: str, eng: Engine) -> Baseline:
    if name not in _CLASSES:
        raise ValueError(f"unknown baseline {name!r}: choose one of {', '.join(NAMES)} or 'all'")
    return _CLASSES[name](eng)


def names(choice: str) -> list[str]:
    """'all', one name, or several separated by commas."""
    wanted = list(NAMES) if choice.strip() == "all" else [n.strip() for n in choice.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in _CLASSES]
    if unknown or not wanted:
        raise ValueError(f"unknown baseline {(unknown or [choice])[0]!r}: choose one of {', '.join(NAMES)} or 'all'")
    return wanted

"""The record shapes the memory store returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workshop_lib.engines.hits import Hit

MESSAGE_TYPES = frozenset({"message"})
MEMORY_TYPES = frozenset({"memory", "guideline", "fact", "preference"})
PROFILE_TYPES = frozenset({"user_profile", "agent_profile"})
# Types `add` accepts; profiles go through add_user / add_agent.
ADDABLE_TYPES = MESSAGE_TYPES | MEMORY_TYPES
RECORD_TYPES = ADDABLE_TYPES | PROFILE_TYPES
# `delete` also accepts a whole thread.
DELETABLE_TYPES = RECORD_TYPES | {"thread"}


@dataclass
class Record:
    id: str
    record_type: str
    content: str | None
    metadata: dict[str, Any] | None = None
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    created_at: str | None = None
    # A memory's status as `store.get` saw it: anything but "valid" means superseded, forgotten
    # or expired, and then content and metadata are withheld (None); store.history shows them.
    status: str = "valid"


@dataclass
class MessageRecord(Record):
    role: str = "user"


@dataclass(frozen=True)
class RecordDraft:
    """One record to store, its values side by side (`store.add_records([RecordDraft(...), ...])`):
    the text, and optionally its id (else one is made), metadata, owner, thread, role (messages),
    the text to index instead of `text`, and a vector already computed."""

    text: str
    id: str | None = None
    metadata: dict[str, Any] | None = None
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    role: str = "user"
    index_text: str | None = None
    embedding: list[float] | None = None


@dataclass
class MemoryHit:
    """One search result as the memory client returns it (read by attribute in Part 3's TODO 1)."""

    id: str
    record_type: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    distance: float = 0.0

    def as_hit(self) -> Hit:
        """The same result as engines/hits.py's Hit, the type of every retrieval result."""
        return Hit(record_id=self.id, kind=str(self.metadata.get("kind", self.record_type)),
                   subject=str(self.metadata.get("subject", "")), content=self.content, metadata=self.metadata,
                   distance=float(self.distance))

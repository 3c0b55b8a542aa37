"""A small client on the store, scoped to one user and one agent.

It is what an agent calls on every turn: `memory.search(query, max_results=...)`
returns hits with `content`, `metadata` and `distance`. A search reads this scope plus the
shared schema knowledge (workshop_lib/core/scope.py), never another user's records.
"""
from __future__ import annotations

from typing import Any

from workshop_lib.core import scope
from workshop_lib.core.records import Hit, Record
from workshop_lib.core.store import MemoryStore

SHARED_OVERSAMPLE = 4  # the shared scope also holds the workshop user's own notes, filtered out after the search


class MemoryClient:
    def __init__(self, store: MemoryStore, *, user_id: str, agent_id: str) -> None:
        self.store = store
        self.user_id = user_id
        self.agent_id = agent_id

    @property
    def is_shared_scope(self) -> bool:
        return (self.user_id, self.agent_id) == scope.shared_scope()

    def _own(self, name: str, value: str | None, mine: str) -> str:
        if value is not None and value != mine:
            raise ValueError(f"this memory client reads only {name} {mine!r}, not {value!r}; "
                             f"use eng.scoped({value!r}) for another user's client")
        return mine

    def search_records(self, query: str | None = None, *, query_vector: list[float] | None = None, k: int = 5,
                       record_types: set[str] | list[str] | None = None,
                       metadata_filter: dict[str, Any] | None = None) -> list[tuple[Record, float]]:
        """(record, distance) pairs of this scope and the shared schema knowledge, nearest first."""
        types = set(record_types) if record_types else {"memory"}
        common: dict[str, Any] = {"query": query, "query_vector": query_vector, "exact_user_match": True,
                  "exact_agent_match": True, "record_types": types, "metadata_filter": metadata_filter}
        pairs = self.store.search(k=k, user_id=self.user_id, agent_id=self.agent_id, **common)
        if self.is_shared_scope or "memory" not in types:
            return pairs
        shared_user, shared_agent = scope.shared_scope()
        shared = self.store.search(k=k * SHARED_OVERSAMPLE, user_id=shared_user, agent_id=shared_agent,
                                   **{**common, "record_types": {"memory"}})
        pairs += [(r, d) for r, d in shared if scope.is_shared_knowledge(r.id)][:k]
        pairs.sort(key=lambda p: p[1])  # one embedding model: distances of both scopes compare
        return pairs[:k]

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        record_types: list[str] | set[str] | None = None,
        max_results: int = 5,
        metadata_filter: dict[str, Any] | None = None,
    ) -> list[Hit]:
        """Nearest memories of this user and agent (and the shared schema knowledge), closest first."""
        self._own("user", user_id, self.user_id)
        self._own("agent", agent_id, self.agent_id)
        pairs = self.search_records(query, k=max_results, record_types=record_types, metadata_filter=metadata_filter)
        return [
            Hit(id=r.id, record_type=r.record_type, content=r.content or "", metadata=r.metadata or {}, distance=d)
            for r, d in pairs
        ]

    def add(self, text: str, *, metadata: dict[str, Any] | None = None, record_type: str = "memory",
            record_id: str | None = None) -> str:
        """Store one memory in this client's scope."""
        return self.store.add(
            [text], record_type=record_type, record_ids=record_id, metadata=metadata,
            user_ids=self.user_id, agent_ids=self.agent_id,
        )[0]

"""A small client on the store, scoped to one user and one agent.

It is what an agent calls on every turn: `memory.search(query, max_results=...)`
returns hits with `content`, `metadata` and `distance`. A search reads this scope plus the
shared schema knowledge (workshop_lib/core/scope.py), never another user's records.
"""
from __future__ import annotations

from typing import Any

from workshop_lib.core.records import MemoryHit, Record
from workshop_lib.core.scope import Scope
from workshop_lib.core.store import MemoryStore


class MemoryClient:
    """The store as one scope reads and writes it."""

    def __init__(self, store: MemoryStore, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    @property
    def user_id(self) -> str:
        return self.scope.user

    @property
    def agent_id(self) -> str:
        return self.scope.agent

    def _own(self, name: str, value: str | None, mine: str) -> str:
        if value is not None and value != mine:
            raise ValueError(f"this memory client reads only {name} {mine!r}, not {value!r}; "
                             f"use eng.scoped({value!r}) for another user's client")
        return mine

    def search_records(self, query: str | None = None, *, query_vector: list[float] | None = None, k: int = 5,
                       record_types: set[str] | list[str] | None = None,
                       metadata_filter: dict[str, Any] | None = None) -> list[tuple[Record, float]]:
        """(record, distance) pairs of this scope and the shared schema knowledge, nearest first:
        one statement reads both (core/scope.py)."""
        return self.store.search(query=query, query_vector=query_vector, k=k, user_id=self.scope.user,
                                 agent_id=self.scope.agent, exact_user_match=True, exact_agent_match=True,
                                 record_types=set(record_types) if record_types else {"memory"},
                                 metadata_filter=metadata_filter, shared_knowledge=True)

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        record_types: list[str] | set[str] | None = None,
        max_results: int = 5,
        metadata_filter: dict[str, Any] | None = None,
    ) -> list[MemoryHit]:
        """Nearest memories of this user and agent (and the shared schema knowledge), closest first."""
        self._own("user", user_id, self.user_id)
        self._own("agent", agent_id, self.agent_id)
        pairs = self.search_records(query, k=max_results, record_types=record_types, metadata_filter=metadata_filter)
        return [
            MemoryHit(id=r.id, record_type=r.record_type, content=r.content or "", metadata=r.metadata or {}, distance=d)
            for r, d in pairs
        ]

    def add(self, text: str, *, metadata: dict[str, Any] | None = None, record_type: str = "memory",
            record_id: str | None = None) -> str:
        """Store one memory in this client's scope."""
        return self.store.add(
            [text], record_type=record_type, record_ids=record_id, metadata=metadata,
            user_ids=self.scope.user, agent_ids=self.scope.agent,
        )[0]

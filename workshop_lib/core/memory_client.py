"""A small client on the store, scoped to one user and one agent.

It is what an agent calls on every turn: `memory.search(query, max_results=...)`
returns hits with `content`, `metadata` and `distance`.
"""
from __future__ import annotations

from typing import Any

from workshop_lib.core.records import Hit
from workshop_lib.core.store import MemoryStore


class MemoryClient:
    def __init__(self, store: MemoryStore, *, user_id: str, agent_id: str) -> None:
        self.store = store
        self.user_id = user_id
        self.agent_id = agent_id

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
        """Nearest memories of this user and agent, closest first."""
        pairs = self.store.search(
            query,
            k=max_results,
            user_id=user_id or self.user_id,
            agent_id=agent_id or self.agent_id,
            exact_user_match=True,
            exact_agent_match=True,
            record_types=set(record_types) if record_types else {"memory"},
            metadata_filter=metadata_filter,
        )
        return [
            Hit(id=r.id, record_type=r.record_type, content=r.content or "", metadata=r.metadata or {}, distance=d)
            for r, d in pairs
        ]

    def add(self, text: str, *, metadata: dict | None = None, record_type: str = "memory",
            record_id: str | None = None) -> str:
        """Store one memory in this client's scope."""
        return self.store.add(
            [text], record_type=record_type, record_ids=record_id, metadata=metadata,
            user_ids=self.user_id, agent_ids=self.agent_id,
        )[0]

"""The memory store, the scoped memory client and the per-user views of one engine.

The engines sit below core and import none of it: `connect()` (core/connect.py) hands each
engine an EngineMemory, and the Engine's `store`, `open_store()`, `memory` and `scoped()`
ask it. Each is opened on first use, once, under a lock.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from workshop_lib.core.memory_client import MemoryClient
from workshop_lib.core.scope import check_scope_id
from workshop_lib.core.store import MemoryStore, SchemaPolicy

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine


class EngineMemory:
    """What `eng.store`, `eng.open_store()` and `eng.memory` read, for one engine."""

    def __init__(self, eng: Engine) -> None:
        self._eng = eng
        self._store: MemoryStore | None = None
        self._memory: MemoryClient | None = None
        self._lock = threading.Lock()  # two threads opening the store at once make one

    @contextlib.contextmanager
    def replaced(self, store: Any) -> Iterator[None]:
        """The store replaced for a while, the client with it (the grader serves a Part 6 check's store
        from its own process); the open store and client come back after."""
        with self._lock:
            saved = (self._store, self._memory)
            self._store, self._memory = store, None
        try:
            yield
        finally:
            with self._lock:
                self._store, self._memory = saved

    def store(self) -> MemoryStore:
        """The open store, or the default one opened under REQUIRE_EXISTING (creates nothing)."""
        with self._lock:
            if self._store is None:
                self._store = MemoryStore(self._eng, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
            return self._store

    def open_store(self, policy: Any = None, table_name_prefix: str = "") -> MemoryStore:
        """Without a policy: the open store, or the default store with its missing tables created.
        With one: the store reopened under it (and the scoped client with it)."""
        with self._lock:
            if policy is None:
                if self._store is None:
                    self._store = MemoryStore(self._eng, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
                return self._store
            self._store = MemoryStore(self._eng, schema_policy=policy, table_name_prefix=table_name_prefix)
            self._memory = None
            return self._store

    def memory(self) -> MemoryClient:
        """The client scoped to the engine's user_id and agent_id."""
        if self._memory is None:
            store = self.store()
            with self._lock:
                if self._memory is None:
                    self._memory = MemoryClient(store, user_id=self._eng.user_id, agent_id=self._eng.agent_id)
        return self._memory

    def scoped(self, user_id: str, agent_id: str | None = None) -> Any:
        """The engine as `user_id` (and `agent_id`) sees it: ScopedEngine, or the engine itself."""
        return scoped(self._eng, user_id, agent_id)


class ScopedEngine:
    """An engine seen by one user (and agent): every attribute but `user_id`, `agent_id` and
    `memory` is the engine's own (one connection, one lock, one store)."""

    def __init__(self, eng: Any, user_id: str, agent_id: str | None = None) -> None:
        base = eng.__dict__.get("_engine", eng)
        self.__dict__.update(_engine=base, user_id=check_scope_id(user_id, "user_id"),
                             agent_id=check_scope_id(agent_id or eng.agent_id, "agent_id"), _scoped_memory=None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_engine"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("user_id", "agent_id"):
            raise AttributeError("a scoped engine's user and agent are fixed; call eng.scoped(...) for another")
        setattr(self.__dict__["_engine"], name, value)

    def __repr__(self) -> str:
        return f"<{self._engine!r} scoped to user {self.user_id!r}, agent {self.agent_id!r}>"

    @property
    def memory(self) -> MemoryClient:
        store = self._engine.store
        client: MemoryClient | None = self.__dict__["_scoped_memory"]
        if client is None or client.store is not store:  # a scratch store opened since
            client = MemoryClient(store, user_id=self.user_id, agent_id=self.agent_id)
            self.__dict__["_scoped_memory"] = client
        return client

    def scoped(self, user_id: str, agent_id: str | None = None) -> Any:
        return scoped(self._engine, user_id, agent_id or self.agent_id)


def scoped(eng: Any, user_id: str, agent_id: str | None = None) -> Any:
    """`eng` as `user_id` (and `agent_id`, default the engine's) sees it."""
    base = eng.__dict__.get("_engine", eng)
    agent_id = agent_id or eng.agent_id
    if (user_id, agent_id) == (base.user_id, base.agent_id):
        return base
    return ScopedEngine(base, user_id, agent_id)

"""Whose memories a request reads and writes: one user (and agent), plus the shared schema knowledge.

The schema facts the scanner writes (record ids `schema:...`) belong to the workshop's
own scope (config.USER_ID / config.AGENT_ID) and are the only records every user reads.
Everything else a user or the agent stores on a user's behalf (messages, corrections,
preferences, tool outputs) is written in that user's scope and read only there.

`eng.scoped(user_id)` is the engine as one user sees it: the same connection and store,
with `user_id` and `memory` (the scoped client) of that user, so every lesson function
that takes `eng` reads and writes in that scope without a new parameter.
"""
from __future__ import annotations

from typing import Any

from workshop_lib import config
from workshop_lib.core.arguments import MAX_SCOPE_ID_BYTES, check_id

SHARED_ID_PREFIX = "schema:"   # the scanner's fact ids (Fact.record_id)


def shared_scope() -> tuple[str, str]:
    """The scope that holds the shared schema knowledge."""
    return config.USER_ID, config.AGENT_ID


def is_shared_knowledge(record_id: str | None) -> bool:
    return bool(record_id) and str(record_id).startswith(SHARED_ID_PREFIX)


def check_scope_id(value: Any, name: str) -> str:
    """A user or agent id a request is scoped to: not blank, at most MAX_SCOPE_ID_BYTES bytes in
    UTF-8 (the chat service's telemetry keeps it in a VARCHAR2(200), which counts bytes)."""
    checked = check_id(value, name, max_bytes=MAX_SCOPE_ID_BYTES)
    assert checked is not None
    return checked


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
    def memory(self):
        from workshop_lib.core.memory_client import MemoryClient

        store = self._engine.store
        client = self.__dict__["_scoped_memory"]
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

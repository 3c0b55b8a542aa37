"""The memory store, its scoped client and the scope, off the Engine: a Workspace.

A Workspace holds a database (the engine, engines/database.py's StoreDatabase) and a Scope
(core/scope.py). Every Workspace of one database shares that database's store (StoreSlot:
opened once, under a lock); `scoped(user)` is another Workspace on the same database and
store. This is the one way to scope: the Scope a Workspace holds is bound into every
statement that reads memories.

A Workspace also offers the database's members by name (explicit one-line delegations, no
attribute forwarding), so lesson code written for `eng` runs on a user's Workspace as is.
The Engine's `store`, `open_store()`, `memory`, `user_id`, `agent_id` and `scoped()` are
compatibility attributes that read the engine's own Workspace, which `connect()` hands it.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from workshop_lib.core.memory_client import MemoryClient
from workshop_lib.core.scope import DEFAULT, Scope
from workshop_lib.core.store import MemoryStore, SchemaPolicy
from workshop_lib.engines.database import Sent
from workshop_lib.engines.dbtypes import Cursor, Row

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine, EngineTraits
    from workshop_lib.engines.model import EmbeddingModel
    from workshop_lib.engines.statement_sets import EngineStatements
    from workshop_lib.engines.store_backend import StoreBackend
    from workshop_lib.engines.supplychain_schema import SupplyChainSchema


class StoreSlot:
    """The one open memory store of a database, shared by every Workspace on it."""

    def __init__(self, db: Engine) -> None:
        self._db = db
        self._store: MemoryStore | None = None
        self._lock = threading.Lock()  # two threads opening the store at once make one

    def store(self) -> MemoryStore:
        """The open store, or the default one opened under REQUIRE_EXISTING (creates nothing)."""
        with self._lock:
            if self._store is None:
                self._store = MemoryStore(self._db, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
            return self._store

    def open_store(self, policy: Any = None, table_name_prefix: str = "") -> MemoryStore:
        """Without a policy: the open store, or the default store with its missing tables created.
        With one: the store reopened under it."""
        with self._lock:
            if policy is None:
                if self._store is None:
                    self._store = MemoryStore(self._db, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
                return self._store
            self._store = MemoryStore(self._db, schema_policy=policy, table_name_prefix=table_name_prefix)
            return self._store

    @contextlib.contextmanager
    def replaced(self, store: Any) -> Iterator[None]:
        """The store replaced for a while (the grader serves a Part 6 check's store from its own
        process); the open store comes back after."""
        with self._lock:
            saved, self._store = self._store, store
        try:
            yield
        finally:
            with self._lock:
                self._store = saved


class Workspace:
    """One database seen in one scope: its store, the memory client of that scope, and the
    database's own members."""

    def __init__(self, db: Engine, scope: Scope = DEFAULT, slot: StoreSlot | None = None) -> None:
        self.db = db
        self.scope = scope
        self.slot = slot or StoreSlot(db)
        self._client: MemoryClient | None = None

    # -- the scope: the store, the client, another user's Workspace
    @property
    def user_id(self) -> str:
        return self.scope.user

    @property
    def agent_id(self) -> str:
        return self.scope.agent

    @property
    def store(self) -> MemoryStore:
        return self.slot.store()

    def open_store(self, policy: Any = None, *, table_name_prefix: str = "") -> MemoryStore:
        return self.slot.open_store(policy, table_name_prefix)

    @property
    def memory(self) -> MemoryClient:
        """The memory client of this scope (a new one when another store was opened since)."""
        store = self.store
        client = self._client
        if client is None or client.store is not store:
            client = self._client = MemoryClient(store, self.scope)
        return client

    def scoped(self, user_id: str, agent_id: str | None = None) -> Workspace | Engine:
        """The same database and store as `user_id` (and `agent_id`, default this one's) sees them:
        this Workspace for its own scope, the engine itself for the engine's scope."""
        scope = self.scope.as_user(user_id, agent_id)
        if scope == self.scope:
            return self
        if scope == Scope(self.db.user_id, self.db.agent_id):
            return self.db
        return Workspace(self.db, scope, self.slot)

    # -- the database's members, by name (engines/base.py's Engine)
    @property
    def name(self) -> str:
        return self.db.name

    @property
    def traits(self) -> EngineTraits:
        return self.db.traits

    @property
    def statements(self) -> EngineStatements:
        return self.db.statements

    @property
    def model(self) -> EmbeddingModel:
        return self.db.model

    @property
    def supplychain(self) -> SupplyChainSchema:
        return self.db.supplychain

    @property
    def backend(self) -> StoreBackend:
        return self.db.backend

    def transaction(self) -> contextlib.AbstractContextManager[Cursor]:
        return self.db.transaction()

    @overload
    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[False] = False) -> list[Row]: ...
    @overload
    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[True]) -> list[dict[str, Any]]: ...

    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: bool = False) -> list[Row] | list[dict[str, Any]]:
        if named:
            return self.db.query(sql, params, max_rows=max_rows, named=True)
        return self.db.query(sql, params, max_rows=max_rows)

    def trace(self) -> contextlib.AbstractContextManager[list[Sent]]:
        return self.db.trace()

    def close(self) -> None:
        self.db.close()

    def __repr__(self) -> str:
        return f"<{self.db!r} scoped to user {self.scope.user!r}, agent {self.scope.agent!r}>"

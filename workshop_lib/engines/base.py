"""What every engine offers the rest of the workshop (`connect()` is core/connect.py's).

Two engines implement the same interface: `oracle` (Oracle AI Database, the Codespace
default) and `embedded` (SQLite + sqlite-vec + FTS5 + a bundled model, no services).
The memory store, the scanner and the retrieval code only use the methods below.
"""
from __future__ import annotations

import abc
import contextlib
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from workshop_lib import config
from workshop_lib.engines.database import Sent, Tracer, entered
from workshop_lib.engines.dbtypes import Cursor, Row
from workshop_lib.engines.model import EmbeddingModel
from workshop_lib.engines.statement_sets import EngineStatements
from workshop_lib.engines.store_backend import StoreBackend
from workshop_lib.engines.supplychain_schema import SupplyChainSchema
from workshop_lib.errors import WorkshopError

if TYPE_CHECKING:  # types only: core builds on the engines and hands each one its Workspace
    from workshop_lib.core.memory_client import MemoryClient
    from workshop_lib.core.store import MemoryStore
    from workshop_lib.core.workspace import Workspace


# What makes an engine's Workspace (core/workspace.py: the memory store, the scope and its
# client), which connect() hands in (the engines never import core).
MemoryFactory = Callable[["Engine"], "Workspace"]


@dataclass
class ResetPlan:
    """What `workshop reset` deletes on an engine, decided before anything is opened."""

    what: str                     # the confirmation says "This deletes {what}."; "" when there is nothing
    nothing: str = ""             # said instead when there is nothing to delete
    refused: str = ""             # why not now, and the fix ("" = go ahead)
    files: list[Path] = field(default_factory=list)  # deleted as files; none: the store is recreated in the database
    after: str = ""               # said once the reset is done


class DatabaseFault(WorkshopError, RuntimeError):
    """A database problem told as one message: the file, the cause and the fix."""

    def __init__(self, path: Any, cause: str, fix: str) -> None:
        self.path, self.cause, self.fix = path, cause, fix
        super().__init__(f"{path}: {cause}. Fix: {fix}.")


class NoMemoryStore(WorkshopError, RuntimeError):
    """An engine made without its memory store (not through connect()) was asked for it."""


class StoreMissing(WorkshopError, RuntimeError):
    """The memory store does not exist and the caller asked not to create it (doctor).
    `missing` lists (what, path) for each absent file."""

    def __init__(self, message: str, missing: list[tuple[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.missing = missing or []


@dataclass(frozen=True)
class EngineTraits:
    """What an engine is like, known before connecting."""

    # What `workshop reset` deletes, decided without connecting: reset_plan(force), where
    # force overrides a refusal.
    reset_plan: Callable[[bool], ResetPlan]
    # Whether connect(name, path=folder) makes a throw-away database in that folder (so a tool
    # can measure on a copy and leave the learner's own store alone).
    scratch_copies: bool = False
    # One connection shared by every request thread: the chat service runs one request at a time.
    serialise_requests: bool = True


class Engine(abc.ABC):
    """The interface both engines implement; the store, the lessons and the tools use only this.

    Sixteen public members (tests/test_engine_interface.py keeps it so):
      name, traits                     which engine, and what it is like before connecting
      user_id, agent_id, scoped()      whose memories the engine reads and writes   } compatibility: each reads
      store, open_store(), memory      the memory store and the scope's client     } the engine's Workspace
      transaction(), query(), trace()  SQL on the engine's connection, and what was sent
                                       (the Database protocol, engines/database.py); a cursor
                                       for reads is private to the engines (`_read_cursor`, handed
                                       to the objects below in their constructors)
      statements                       every named statement of the engine's dialect, typed
      model                            the embedding model (vectors, tokens, rerank, thresholds)
      supplychain                      the SUPPLYCHAIN schema (load, dictionary, run_sql)
      backend                          what the store asks of the database (schema, binds, health)
      close()
    """

    name: str = "?"               # "oracle" | "embedded"
    traits: EngineTraits          # set by each engine class
    statements: EngineStatements  # set by each engine class
    model: EmbeddingModel         # set by each engine's __init__
    supplychain: SupplyChainSchema
    backend: StoreBackend

    def __init__(self, memory: MemoryFactory | None = None) -> None:
        """`memory` makes the engine's Workspace (core/workspace.py: the store, the scope and its
        client, handed in by connect()); without it the engine is a database alone and `store` says so."""
        self._workspace_of = memory(self) if memory is not None else None
        self._tracer = Tracer()  # every cursor of this engine reports its statements to it

    def _workspace(self) -> Workspace:
        if self._workspace_of is None:
            raise NoMemoryStore(f"this {self.name} engine was opened without its memory store. "
                                "Fix: open it with workshop_lib.connect().")
        return self._workspace_of

    # -- compatibility attributes: each reads the engine's Workspace (core/workspace.py), which
    # holds the store and the scope; the engine itself holds neither.
    @property
    def user_id(self) -> str:
        """The user of the engine's scope (the workshop's own: config.USER_ID)."""
        return self._workspace_of.user_id if self._workspace_of is not None else config.USER_ID

    @property
    def agent_id(self) -> str:
        """The agent of the engine's scope (config.AGENT_ID)."""
        return self._workspace_of.agent_id if self._workspace_of is not None else config.AGENT_ID

    @property
    def store(self) -> MemoryStore:
        """The memory store. Reading this never creates tables: a missing store is a SchemaError
        that names the fix. Creation is explicit: open_store(), which prepare() (so
        `workshop setup` and every Part's first cell) and connect(create=True) on the embedded
        engine call, and the Oracle bootstrap."""
        return self._workspace().store

    def open_store(self, policy: Any = None, *, table_name_prefix: str = "") -> MemoryStore:
        """Open the memory store and make it this engine's store.

        Without a policy: the open store, or the default store with its missing tables created
        (creating what is missing never drops anything, so this is safe on every run). With a
        policy, the store is reopened under it: doctor opens with REQUIRE_EXISTING (creates
        nothing); tests and benchmarks open a scratch store with RECREATE and a
        table_name_prefix of their own.
        """
        return self._workspace().open_store(policy, table_name_prefix=table_name_prefix)

    @property
    def memory(self) -> MemoryClient:
        """The memory client of the engine's scope (search, add, threads)."""
        return self._workspace().memory

    def scoped(self, user_id: str, agent_id: str | None = None) -> Any:
        """The engine as one user (and agent) sees it: a Workspace of that scope on the same
        connection and store (core/workspace.py), or the engine itself for its own scope."""
        own = self._workspace()
        found = own.scoped(user_id, agent_id)
        return self if found is own else found

    # -- SQL on the engine's connection (each engine package: embedded/engine.py, oracle/engine.py)
    @contextlib.contextmanager
    def _read_cursor(self) -> Iterator[Cursor]:
        """A cursor for reads, for the engine's own objects (backend, SUPPLYCHAIN, model): reads
        that stream or hold the engine's lock over several statements. A trace tells its statements
        as sent through `cursor`."""
        with entered("cursor"), self._cursor() as cur:
            yield cur

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Cursor]:
        """A cursor whose statements commit together, or roll back together on an error."""
        with entered("transaction"), self._transaction() as cur:
            yield cur

    @overload
    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[False] = False) -> list[Row]: ...
    @overload
    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[True]) -> list[dict[str, Any]]: ...

    def query(self, sql: str, params: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: bool = False) -> list[Row] | list[dict[str, Any]]:
        """Every row of one statement, or its first `max_rows` (a read that stops early). `named=True`:
        each row as a dict of its column names (engines/database.py's query_named)."""
        with entered("query"), self._cursor() as cur:
            cur.execute(sql, params or {})
            rows = self._rows(cur, max_rows)
            if not named:
                return rows
            names = [str(d[0]).lower() for d in (cur.description or [])]
            return [dict(zip(names, row, strict=True)) for row in rows] if names else []

    def trace(self) -> contextlib.AbstractContextManager[list[Sent]]:
        """`with eng.trace() as sent:` every statement this engine is sent while the block is open,
        appended to `sent` in order (engines/database.py's Sent: text, bind names, entry point)."""
        return self._tracer.trace()

    @abc.abstractmethod
    def _cursor(self) -> contextlib.AbstractContextManager[Cursor]:
        """The engine's cursor, its statements reported to self._tracer."""

    @abc.abstractmethod
    def _transaction(self) -> contextlib.AbstractContextManager[Cursor]:
        """The engine's transaction, its statements reported to self._tracer."""

    def _rows(self, cur: Cursor, max_rows: int | None = None) -> list[Row]:
        return cur.fetchall() if max_rows is None else cur.fetchmany(max_rows)

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connection(s); the engine is unusable afterwards."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}: {self}>"

    def __str__(self) -> str:
        return self.model.name


def new_id(record_type: str) -> str:
    """A fresh record id, e.g. mem-3f2a9c1d0b7e4a55."""
    return f"{record_type[:3]}-{uuid.uuid4().hex[:16]}"

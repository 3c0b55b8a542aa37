"""`connect()` and what every engine offers the rest of the workshop.

Two engines implement the same interface: `oracle` (Oracle AI Database, the Codespace
default) and `embedded` (SQLite + sqlite-vec + FTS5 + a bundled model, no services).
The memory store, the scanner and the retrieval code only use the methods below.
"""
from __future__ import annotations

import abc
import contextlib
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib import config
from workshop_lib.errors import WorkshopError

if TYPE_CHECKING:  # the store and the client import this module
    from workshop_lib.core.memory_client import MemoryClient
    from workshop_lib.core.store import MemoryStore


@dataclass
class Check:
    """One line of `workshop doctor`: what was checked, whether it passed, how to fix it."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "PASS" if self.ok else "FAIL"
        text = f"[{mark}] {self.name}: {self.detail}"
        if not self.ok and self.fix:
            text += f"\n       fix: {self.fix}"
        return text


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


class StoreMissing(WorkshopError, RuntimeError):
    """The memory store does not exist and the caller asked not to create it (doctor).
    `missing` lists (what, path) for each absent file."""

    def __init__(self, message: str, missing: list[tuple[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.missing = missing or []


class Engine(abc.ABC):
    """The interface both engines implement; the store, the lessons and the tools use only this."""

    name: str = "?"
    sql_module: Any = None  # the engine package's module of named statements (embedded/sql.py, oracle/sql.py)
    dim: int = 0
    model_name: str = "?"
    # One connection shared by every request thread: the chat service runs one request at a time.
    serialise_requests: bool = True
    # Whether connect(name, path=folder) makes a throw-away database in that folder (so a tool
    # can measure on a copy and leave the learner's own store alone).
    scratch_copies: bool = False

    def __init__(self) -> None:
        self.user_id = config.USER_ID
        self.agent_id = config.AGENT_ID
        self.thresholds = config.thresholds_for(self.name, self.model_name)
        self._store: MemoryStore | None = None
        self._memory: MemoryClient | None = None
        self._open_lock = threading.Lock()  # two threads opening the store at once make one

    # -- the memory store and the scoped client, opened on first use
    @property
    def store(self):
        """The memory store. Reading this never creates tables: a missing store is a SchemaError
        that names the fix. Creation is explicit: create_store(), which prepare() (so
        `workshop setup` and every Part's first cell) and connect(create=True) on the embedded
        engine call, and the Oracle bootstrap."""
        with self._open_lock:
            if self._store is None:
                from workshop_lib.core.store import MemoryStore, SchemaPolicy

                self._store = MemoryStore(self, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
            return self._store

    def create_store(self) -> Any:
        """The open store, or the default store with its missing tables created (creating what is
        missing never drops anything, so this is safe on every run). A scratch store opened
        with open_store stays the engine's store."""
        from workshop_lib.core.store import MemoryStore, SchemaPolicy

        with self._open_lock:
            if self._store is None:
                self._store = MemoryStore(self, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
            return self._store

    def open_store(self, policy, *, table_name_prefix: str = "") -> Any:
        """Open the store with an explicit schema policy, and make it this engine's store.

        Doctor opens with REQUIRE_EXISTING (creates nothing); tests and benchmarks open a
        scratch store with RECREATE and a table_name_prefix of their own.
        """
        from workshop_lib.core.store import MemoryStore

        with self._open_lock:
            self._store = MemoryStore(self, schema_policy=policy, table_name_prefix=table_name_prefix)
            self._memory = None
            return self._store

    @property
    def memory(self):
        if self._memory is None:
            from workshop_lib.core.memory_client import MemoryClient

            store = self.store
            with self._open_lock:
                if self._memory is None:
                    self._memory = MemoryClient(store, user_id=self.user_id, agent_id=self.agent_id)
        return self._memory

    def scoped(self, user_id: str, agent_id: str | None = None):
        """This engine as one user (and agent) sees it: their memories plus the shared schema
        knowledge (workshop_lib/core/scope.py). The same connection and store."""
        from workshop_lib.core.scope import scoped

        return scoped(self, user_id, agent_id)

    @property
    def sql(self):
        """The store's statements (prefix filled in) for this engine."""
        return self.store.sql

    # -- what engines implement (each engine package: embedded/engine.py, oracle/engine.py)
    @abc.abstractmethod
    def statements(self, prefix: str, dim: int) -> Any:
        """The memory store's named statements, table names prefixed with `prefix`."""

    @abc.abstractmethod
    def object_names(self) -> set[str]:
        """Upper-case names of the tables, indexes and triggers that exist in the store's schema."""

    @abc.abstractmethod
    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        """Run each object's DDL; objects that already exist are left as they are."""

    @abc.abstractmethod
    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        """Drop the named objects with their DROP statements (missing ones are skipped)."""

    @abc.abstractmethod
    def cursor(self) -> contextlib.AbstractContextManager[Any]:
        """A cursor for reads (context manager)."""

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[Any]:
        """A cursor whose statements commit together, or roll back together on an error."""

    def schema_lock(self) -> contextlib.AbstractContextManager[Any]:
        """Held while the store checks and creates its schema, so two first-time setups do not
        both create it. Engines whose DDL tolerates a concurrent twin need nothing."""
        return contextlib.nullcontext()

    def embed_for_store(self, texts: list[str]) -> list[Any] | None:
        """Vectors for store.add computed before its transaction, or None: the database
        embeds inside the INSERT (Oracle's VECTOR_EMBEDDING)."""
        return None

    @abc.abstractmethod
    def insert_returning_seq(self, cur: Any, sql: str, params: dict) -> int:
        """Run an INSERT and return the new row's generated key."""

    @abc.abstractmethod
    def vector_param(self, values: list[float]) -> Any:
        """A vector as this driver binds it (float32 blob, array('f'))."""

    def read_text(self, value: Any) -> Any:
        """A CLOB's text; any other fetched value (str, None, a number) as it is."""
        if value is not None and hasattr(value, "read"):
            return value.read()  # Oracle CLOB
        return value

    @abc.abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, from the engine's embedding model."""

    # A full-text expression that matches nothing (questions with no searchable term).
    no_match_expression: str = ""

    @abc.abstractmethod
    def keyword_expression(self, text: str) -> str | None:
        """Any user text as a safe full-text query (operators escaped), or None."""

    def rerank(self, query: str, candidates: list[dict], top_k: int, content_key: str = "body") -> list[dict]:
        """Second retrieval stage; engines without a reranker keep the order and cut to top_k."""
        return candidates[:top_k]

    @abc.abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of `text` for the engine's embedding model (Part 4's budgets)."""

    @abc.abstractmethod
    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token of the embedding model (Part 8's chunker counts in these)."""

    def docs_statements(self):
        """Part 8's document index statements (versioned DOCS_* tables, registry, alias view)."""
        return self.sql_module.DOCS

    @abc.abstractmethod
    def seed_supplychain(self, tables, rows, *, progress: bool = True) -> dict[str, int]:
        """Create SUPPLYCHAIN and load every row and comment (idempotent); returns the row count per table."""

    def sample_supplychain(self, table, columns: list[str], n: int) -> list[tuple]:
        """The first n rows of a SUPPLYCHAIN table by primary key, only the named columns."""
        with self.cursor() as cur:
            cur.execute(self.sql_module.sc_select(table, columns, n))
            return cur.fetchall()

    @abc.abstractmethod
    def data_dictionary(self, owner: str) -> dict:
        """Tables, columns and foreign keys of a schema with their comments."""

    def supplychain_counts(self) -> dict[str, int]:
        """Rows per SUPPLYCHAIN table as seeded here (the health check compares them with the dataset)."""
        from workshop_lib.data.supplychain_data import TABLES

        return {t.name: self.query(self.sql_module.sc_count(t))[0][0] for t in TABLES}

    def catalog_statements(self):
        """Part 5's catalog statements (CATALOG_ITEMS, availability, caches) in this engine's dialect."""
        return self.sql_module.CATALOG

    def chat_statements(self):
        """The chat service's telemetry statements (CHAT_INTERACTIONS) in this engine's dialect."""
        return self.sql_module.chat_statements()

    def query(self, sql: str, params: dict | None = None) -> list[tuple]:
        """Every row of one statement (for small results)."""
        with self.cursor() as cur:
            cur.execute(sql, params or {})
            return cur.fetchall()

    ping_sql = ""  # each engine sets its own (sql_module.PING)

    def ping(self) -> None:
        """Raise if the database does not answer."""
        self.query(self.ping_sql)

    @abc.abstractmethod
    def nearest_ports(self, lon: float, lat: float) -> list[tuple]:
        """(port name, UN/LOCODE, distance in km) of the three SUPPLYCHAIN ports nearest a point:
        Oracle Spatial's SDO_NN on Oracle, the haversine formula in SQL on the embedded engine."""

    @abc.abstractmethod
    def read_only_query(self, sql: str, *, max_rows: int = 50, timeout_s: float = 5.0) -> Any:
        """One read-only query over SUPPLYCHAIN (the agent's run_sql tool): a QueryResult, or
        agent.readonly.SqlRefused naming why the statement was refused or stopped."""

    @contextlib.contextmanager
    def unordered_reads_reversed(self) -> Iterator[bool]:
        """Inside this block, rows that a statement does not order come back in another order
        where the engine can do that (yields True), so a check can tell a result that depends on
        the order rows happen to be read in. Engines without such a switch yield False."""
        yield False

    def extra_checks(self) -> list[Check]:
        """Engine-specific lines for `workshop doctor` (Oracle: users, grants, indexes...)."""
        return []

    @classmethod
    def reset_plan(cls, *, force: bool = False) -> ResetPlan:
        """What `workshop reset` deletes (asked without connecting). By default the store's
        tables are recreated through a connection; `force` overrides a refusal."""
        return ResetPlan(f"every memory-store table of the {cls.name} engine and Part 5's caches")

    def new_id(self, record_type: str) -> str:
        """A fresh record id, e.g. mem-3f2a9c1d0b7e4a55."""
        return f"{record_type[:3]}-{uuid.uuid4().hex[:16]}"

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connection(s); the engine is unusable afterwards."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}: {self.describe()}>"

    def describe(self) -> str:
        return self.model_name


def connect(engine: str | None = None, *, path: str | Path | None = None, **options: Any) -> Engine:
    """Open the workshop's engine.

    `engine` defaults to $WORKSHOP_ENGINE, then 'embedded'. Choosing 'oracle' and not
    reaching it raises an error naming the DSN and the fix; it never falls back.
    """
    config.load_dotenv()
    name = config.engine_name(engine)
    if name == "embedded":
        return engine_class(name)(path=path, **options)
    options.pop("create", None)  # Oracle's schema is made by `make setup-oracle`, never by connect
    return engine_class(name)(**options)


def engine_class(name: str) -> Any:
    """The class of the engine `name` (oracle | embedded), imported only when asked for."""
    if config.engine_name(name) == "embedded":
        from workshop_lib.engines.embedded.engine import EmbeddedEngine

        return EmbeddedEngine
    from workshop_lib.engines.oracle.engine import OracleEngine

    return OracleEngine

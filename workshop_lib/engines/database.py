"""The database seam: what the memory store, the SUPPLYCHAIN schema object, the doctor's checks
and the Parts' checks may ask of a database (`Database`), and the tracer behind its `trace()`.

Both engines implement `Database`; nothing outside workshop_lib/engines reaches a driver
connection. A check that must see the SQL a function sent opens `with db.trace() as sent:`
instead of replacing the engine's methods: every statement sent while the block is open is
appended to `sent` as a `Sent` (its text, its bind names and the entry point it went through).
"""
from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Literal, NamedTuple, ParamSpec, Protocol, TypeVar, overload

from workshop_lib.engines.dbtypes import Cursor, Params, Row
from workshop_lib.engines.model import EmbeddingModel
from workshop_lib.engines.statement_sets import EngineStatements
from workshop_lib.engines.store_backend import StoreBackend
from workshop_lib.errors import WorkshopError

P = ParamSpec("P")
R = TypeVar("R")


class Sent(NamedTuple):
    """One statement a database was sent while a trace was open."""

    statement: str
    binds: tuple[str, ...]  # the bind names, sorted (positional binds: "1", "2" ...)
    via: str                # the entry point it went through: "query", "cursor",
                            # "transaction", "supplychain.read_only_query", "supplychain.data_dictionary" ...


def query_named(db: Database, statement: str, binds: Mapping[str, object] | None = None) -> list[dict[str, Any]]:
    """Every row of one statement as a dict of its column names (lower case, as the SELECT list names
    them: the alias, or the column after the dot) to their values, for SQL whose columns no row
    type declares (engines/rows.py), such as the learner's own statement in Part 3. A trace tells
    it as sent through `query`, like `db.query(...)`."""
    return db.query(statement, binds, named=True)


class Database(Protocol):
    """A database as the rest of the workshop sees it: SQL with named binds, a trace of what was
    sent, the dialect's statements and the embedding model. Both engines implement it."""

    @property
    def name(self) -> str: ...
    @property
    def statements(self) -> EngineStatements: ...
    @property
    def model(self) -> EmbeddingModel: ...

    def transaction(self) -> contextlib.AbstractContextManager[Cursor]:
        """A cursor whose statements commit together, or roll back together on an error."""
        ...

    @overload
    def query(self, statement: str, binds: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[False] = False) -> list[Row]: ...
    @overload
    def query(self, statement: str, binds: Mapping[str, object] | None = None, *, max_rows: int | None = None,
              named: Literal[True]) -> list[dict[str, Any]]:
        """Every row of one statement, or its first `max_rows`; `named=True`: rows as dicts."""
        ...

    def trace(self) -> contextlib.AbstractContextManager[list[Sent]]:
        """Every statement sent while the block is open, in order."""
        ...

    def close(self) -> None: ...


class StoreDatabase(Database, Protocol):
    """A database a memory store lives in (core/store.py): a Database, and what the store asks of
    it besides SQL (its schema objects, generated keys, vector binds: engines/store_backend.py)."""

    @property
    def backend(self) -> StoreBackend: ...


# The entry point the statements now being sent went through: the outermost one wins, so a
# statement `supplychain.data_dictionary()` runs through `query()` is told as sent by data_dictionary.
_VIA: ContextVar[str | None] = ContextVar("workshop_sql_entry", default=None)


@contextlib.contextmanager
def entered(via: str) -> Iterator[None]:
    """Statements sent inside the block went through `via` (unless an outer entry point is open)."""
    token = _VIA.set(via) if _VIA.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _VIA.reset(token)


def entry_point(via: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A method whose statements are told as sent through `via` (see entered)."""
    def wrap(method: Callable[P, R]) -> Callable[P, R]:
        def traced(*args: P.args, **kwargs: P.kwargs) -> R:
            with entered(via):
                return method(*args, **kwargs)
        traced.__name__, traced.__doc__, traced.__qualname__ = method.__name__, method.__doc__, method.__qualname__
        return traced
    return wrap


def bind_names(binds: object) -> tuple[str, ...]:
    if isinstance(binds, Mapping):
        return tuple(sorted(str(k) for k in binds))
    if isinstance(binds, Sequence) and not isinstance(binds, (str, bytes)):
        return tuple(str(i) for i in range(1, len(binds) + 1))
    return ()


class Tracer:
    """The traces open on one database; the engine's cursors call `record` for every statement."""

    def __init__(self) -> None:
        self._open: list[list[Sent]] = []
        self._lock = threading.Lock()

    def record(self, statement: str, binds: object = None) -> None:
        if not self._open:
            return
        sent = Sent(str(statement), bind_names(binds), _VIA.get() or "cursor")
        with self._lock:
            for trace in self._open:
                trace.append(sent)

    @contextlib.contextmanager
    def trace(self) -> Iterator[list[Sent]]:
        sent: list[Sent] = []
        with self._lock:
            self._open.append(sent)
        try:
            yield sent
        finally:
            with self._lock:
                self._open[:] = [t for t in self._open if t is not sent]


class MissingBinds(WorkshopError, ValueError):
    """A statement names a bind that the values passed with it do not give."""


# a bind is ":name" outside string literals and comments ("'10:30'" is text, "::" no bind)
_NOT_CODE = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)
_BIND = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_$#]*)")


@functools.lru_cache(maxsize=512)
def statement_binds(statement: str) -> frozenset[str]:
    """The `:name` binds a statement uses, read from its text alone (string literals and comments
    ignored): the same for both dialects, so tests can compare their statements without a database."""
    return frozenset(_BIND.findall(_NOT_CODE.sub(" ", statement)))


def check_binds(statement: str, parameters: object) -> None:
    """Named binds the statement uses and the values do not give are said plainly, before the driver
    would fail on them with its own error."""
    if not isinstance(parameters, Mapping):
        return
    missing = statement_binds(str(statement)) - {str(k).lstrip(":") for k in parameters}
    if missing:
        raise MissingBinds(f"The statement uses the bind(s) {', '.join(':' + m for m in sorted(missing))}, but the "
                           f"values passed with it name only {sorted(map(str, parameters)) or 'none'}.",
                           fix="Pass a value for every :name the statement uses (a dict of name -> value).")


class ReadsFromRaw:
    """The reads a wrapped driver cursor (`raw`) answers as it is: one row, every row, iteration."""

    raw: Any

    def fetchone(self) -> Row | None:
        row: Row | None = self.raw.fetchone()
        return row

    def fetchall(self) -> list[Row]:
        rows: list[Row] = self.raw.fetchall()
        return rows

    def fetchmany(self, size: int, /) -> list[Row]:
        rows: list[Row] = self.raw.fetchmany(size)
        return rows

    def __iter__(self) -> Iterator[Row]:
        return iter(self.raw)


class TracedCursor(ReadsFromRaw):
    """A DB-API cursor whose execute() and executemany() are recorded by the engine's tracer."""

    def __init__(self, raw: Any, tracer: Tracer) -> None:
        self.raw = raw
        self._tracer = tracer

    def execute(self, statement: str, parameters: Params = (), /) -> TracedCursor:
        self._tracer.record(statement, parameters)
        check_binds(statement, parameters)
        self.raw.execute(statement, parameters)
        return self

    def executemany(self, statement: str, rows: Sequence[Params], /) -> object:
        first = rows[0] if isinstance(rows, Sequence) and rows else None
        self._tracer.record(statement, first)
        return self.raw.executemany(statement, rows)

    def __getattr__(self, name: str) -> Any:  # rowcount, lastrowid, description, fetchmany ...
        return getattr(self.raw, name)

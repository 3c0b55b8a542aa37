"""The shapes the engines pass around: a row, bind values, the DB-API cursor they use, and the
SUPPLYCHAIN table specs the statement builders read (data/supplychain_data.py's Table fits)."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from workshop_lib.engines.hits import Hit

# A row as the driver returns it. Its columns' types depend on the statement, so they are not
# named here: issue 37 (item 2) gives each statement its named result columns.
Row = tuple[Any, ...]
# Bind values by name (`:name`), or by position for a statement written with `?` or `:1`.
Params = Mapping[str, object] | Sequence[object]


class Cursor(Protocol):
    """What the engines and the store call on a cursor: sqlite3's, or the Oracle engine's wrapper."""

    @property
    def rowcount(self) -> int: ...
    @property
    def lastrowid(self) -> int | None: ...
    @property
    def description(self) -> Sequence[Any] | None: ...

    def execute(self, statement: str, parameters: Params = ..., /) -> Cursor: ...

    def executemany(self, statement: str, rows: Sequence[Params], /) -> object: ...

    def fetchone(self) -> Row | None: ...

    def fetchall(self) -> list[Row]: ...

    def fetchmany(self, size: int, /) -> list[Row]: ...

    def __iter__(self) -> Iterator[Row]: ...


# What an engine hands the objects built on it (backend, SUPPLYCHAIN, model) for reads that stream
# or hold its lock over several statements: a context manager giving a cursor. Private to the engines.
Reader = Callable[[], AbstractContextManager[Cursor]]


class ColumnSpec(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def oracle_type(self) -> str: ...
    @property
    def nullable(self) -> bool: ...
    @property
    def comment(self) -> str: ...


class ForeignKeySpec(Protocol):
    @property
    def columns(self) -> Sequence[str]: ...
    @property
    def ref_table(self) -> str: ...
    @property
    def ref_columns(self) -> Sequence[str]: ...


class TableName(Protocol):
    """A table by name alone: all a row count needs."""

    @property
    def name(self) -> str: ...


class TableSpec(TableName, Protocol):
    """A SUPPLYCHAIN table as the statement builders read it."""

    @property
    def comment(self) -> str: ...
    @property
    def columns(self) -> Sequence[ColumnSpec]: ...
    @property
    def primary_key(self) -> Sequence[str]: ...
    @property
    def foreign_keys(self) -> Sequence[ForeignKeySpec]: ...
    @property
    def column_names(self) -> list[str]: ...


def one_row(cur: Cursor) -> Row:
    """The row a statement that always returns one (a COUNT, an embedding) returned."""
    row = cur.fetchone()
    if row is None:
        raise RuntimeError("the statement returned no row where one was expected")
    return row


# What a reranker reorders: a retrieval hit (engines/hits.py).
Candidate = Hit

"""The contract of `run_sql`: one read-only query over SUPPLYCHAIN, rows, bytes and time capped.

The boundary is enforced by each engine with the database's own mechanism
(eng.supplychain.read_only_query): on SQLite an authorizer that allows only reads of the SUPPLYCHAIN
database plus `PRAGMA query_only`, in a worker process killed at the deadline; on Oracle a
user that may only SELECT from SUPPLYCHAIN, on its own connection, and a read-only
transaction around the query wrapped as a subquery (so that nothing but a query can even parse). This module holds the
checks both share, the byte caps both apply to what comes back (`capped_result`: a value
over MAX_VALUE_BYTES is cut with a note, rows stop once the result passes MAX_RESULT_BYTES)
and the error a refused statement raises.
"""
from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workshop_lib.engines.dbtypes import Row
from workshop_lib.errors import WorkshopError

MAX_SQL_CHARS = 20_000
MAX_ROWS = 200
MAX_VALUE_BYTES = 4 * 1024          # one value as the model reads it
MAX_RESULT_BYTES = 64 * 1024        # one result, all rows together
MAX_PARAMS = 64                     # named binds of one query


class SqlRefused(WorkshopError, ValueError):
    """The statement is not one read-only query over SUPPLYCHAIN (or broke a cap)."""


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[Row]
    truncated: bool
    note: str = ""                  # why the result is cut, for the model

    def as_text(self) -> str:
        lines = [" | ".join(self.columns)] + [" | ".join("" if v is None else str(v) for v in r) for r in self.rows]
        if self.truncated:
            lines.append(f"... (only the first {len(self.rows)} rows{'; ' + self.note if self.note else ''})")
        elif self.note:
            lines.append(f"... ({self.note})")
        return "\n".join(lines)


@dataclass(frozen=True)
class PartialValue:
    """The first part of a value too long to read whole (an Oracle LOB read through its
    locator), with the size of the whole value, so the note says how long the value is."""
    head: str | bytes
    size: int
    unit: str  # "characters" (CLOB: LOB.size() counts characters) or "bytes"


def _size(value: Any) -> int:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    return len(str(value).encode("utf-8", "replace")) if value is not None else 0


def cap_value(value: Any) -> tuple[Any, bool]:
    """The value, or its first MAX_VALUE_BYTES with a note saying how long it was; and whether it was cut."""
    if value is None or isinstance(value, (int, float)):
        return value, False
    if isinstance(value, PartialValue):
        return _cut(value.head, value.size, value.unit), True
    size = _size(value)
    if size <= MAX_VALUE_BYTES:
        return value, False
    return _cut(value, size, "bytes"), True


def _cut(value: Any, size: int, unit: str) -> str:
    """The first MAX_VALUE_BYTES of a value and a note giving the size of the whole value."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<a {size:,}-byte blob; first bytes {bytes(value[:32]).hex()}...>"
    # The head and the note together fit the cap, so a result capped again (recap) is left as it is.
    note = f"... [value cut: {size:,} {unit} in all, the limit is {MAX_VALUE_BYTES:,} bytes]"
    room = MAX_VALUE_BYTES - len(note.encode("utf-8"))
    return str(value).encode("utf-8", "replace")[:room].decode("utf-8", "ignore") + note


def capped_result(columns: list[str], rows: Iterable[Row], max_rows: int) -> QueryResult:
    """At most max_rows rows and MAX_RESULT_BYTES bytes, long values cut: what any engine returns.
    `rows` is read lazily, so a cursor is never fetched past the caps."""
    kept: list[Row] = []
    total, cut_values, note = sum(_size(c) for c in columns), 0, ""
    for row in rows:
        if len(kept) == max_rows:
            return QueryResult(columns, kept, True, _cut_note(cut_values))
        capped = [cap_value(v) for v in row]
        cut_values += sum(1 for _, cut in capped if cut)
        row = tuple(v for v, _ in capped)
        total += sum(_size(v) for v in row) + 3 * len(row)
        if total > MAX_RESULT_BYTES:
            note = (f"the result passed {MAX_RESULT_BYTES:,} bytes, the limit; select fewer or narrower columns"
                    f"{'; ' + _cut_note(cut_values) if cut_values else ''}")
            return QueryResult(columns, kept, True, note)
        kept.append(row)
    return QueryResult(columns, kept, False, _cut_note(cut_values))


def recap(result: QueryResult, max_rows: int) -> QueryResult:
    """A result capped again (capped_result), whatever made it: what run_sql hands the model holds
    the caps even from an engine whose own path capped rows only; its truncation and note are kept."""
    capped = capped_result(result.columns, iter(result.rows), max_rows)
    capped.truncated, capped.note = capped.truncated or result.truncated, capped.note or result.note
    return capped


def _cut_note(cut_values: int) -> str:
    return f"{cut_values} value(s) over {MAX_VALUE_BYTES:,} bytes were cut" if cut_values else ""


def clean(sql: Any, max_rows: Any) -> tuple[str, int]:
    """The statement without trailing semicolons, and a valid row cap; SqlRefused otherwise."""
    if not isinstance(sql, str):
        raise SqlRefused(f"sql must be a string, got {type(sql).__name__}")
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise SqlRefused("sql is empty: write one SELECT query")
    if len(text) > MAX_SQL_CHARS:
        raise SqlRefused(f"sql is {len(text):,} characters; the limit is {MAX_SQL_CHARS:,}")
    if "\x00" in text:
        raise SqlRefused("sql contains a NUL character")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise SqlRefused("sql contains a lone surrogate (a broken \\u escape), which is not text")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or not 1 <= max_rows <= MAX_ROWS:
        raise SqlRefused(f"max_rows must be an integer from 1 to {MAX_ROWS}, got {max_rows!r}")
    return text, max_rows


def plain_params(params: Any) -> dict[str, str | int | float | None]:
    """Named binds as plain values a worker process can be sent: dates become ISO text (how the
    embedded engine stores them); anything else than text, numbers or dates is refused."""
    if params is None:
        return {}
    if not isinstance(params, Mapping) or len(params) > MAX_PARAMS:
        raise SqlRefused(f"params must be a mapping of at most {MAX_PARAMS} named binds")
    out: dict[str, str | int | float | None] = {}
    for name, value in params.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise SqlRefused(f"bind name {name!r} is not a plain name")
        if isinstance(value, datetime.date):
            out[name] = value.isoformat()
        elif value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
            if isinstance(value, str) and len(value) > MAX_SQL_CHARS:
                raise SqlRefused(f"bind {name} is longer than {MAX_SQL_CHARS:,} characters")
            out[name] = value
        else:
            raise SqlRefused(f"bind {name} is a {type(value).__name__}; only text, numbers and dates are bound")
    return out

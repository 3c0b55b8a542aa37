"""The contract of `run_sql`: one read-only query over SUPPLYCHAIN, rows and time capped.

The boundary is enforced by each engine with the database's own mechanism
(Engine.read_only_query): on SQLite an authorizer that allows only reads of the SUPPLYCHAIN
database plus `PRAGMA query_only`, on Oracle a read-only transaction around the query
wrapped as a subquery (so that nothing but a query can even parse). This module holds the
checks both share and the error a refused statement raises.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_SQL_CHARS = 20_000
MAX_ROWS = 200


class SqlRefused(ValueError):
    """The statement is not one read-only query over SUPPLYCHAIN (or broke a cap)."""


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple]
    truncated: bool

    def as_text(self) -> str:
        lines = [" | ".join(self.columns)] + [" | ".join("" if v is None else str(v) for v in r) for r in self.rows]
        if self.truncated:
            lines.append(f"... (only the first {len(self.rows)} rows)")
        return "\n".join(lines)


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
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or not 1 <= max_rows <= MAX_ROWS:
        raise SqlRefused(f"max_rows must be an integer from 1 to {MAX_ROWS}, got {max_rows!r}")
    return text, max_rows

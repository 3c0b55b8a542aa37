"""Seed and describe the SUPPLYCHAIN demo schema.

`seed(eng)` loads the canonical dataset from `supplychain_data` into the chosen engine:
each engine's `eng.supplychain.load` does it with its own SQL. Comments go where each
engine's catalog reader expects them: Oracle's data dictionary, or the embedded engine's
ALL_TAB_COMMENTS / ALL_COL_COMMENTS tables of the same shape.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from workshop_lib.data.supplychain_data import TABLES, TABLES_BY_NAME, rows
from workshop_lib.engines.dbtypes import TableName
from workshop_lib.engines.oracle import sql as oracle_sql
from workshop_lib.engines.rows import CountRow, row_as

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

__all__ = ["seed", "describe", "comments_block", "sample", "counts", "TABLES", "rows"]


def seed(eng: Engine, *, progress: bool = True) -> dict[str, int]:
    """Create and fill SUPPLYCHAIN on `eng`; returns the row count per table.

    Safe to run again: the dataset tables are emptied and refilled in one transaction.
    Each engine owns how: `eng.supplychain.load` in its package, with its own SQL.
    """
    data = rows()
    counts = eng.supplychain.load(TABLES, data, progress=progress)
    return counts if counts is not None else {t.name: len(data[t.name]) for t in TABLES}


def describe() -> pd.DataFrame:
    """One line per table: name, row count and the table comment."""
    data = rows()
    return pd.DataFrame(
        [{"table": t.name, "rows": len(data[t.name]), "comment": t.comment} for t in TABLES],
        columns=["table", "rows", "comment"],
    )


def comments_block(tables: list[str] | None = None) -> str:
    """The schema's comments as Oracle COMMENT ON statements (for reading, not running here)."""
    parts = []
    wanted = {name.upper() for name in tables} if tables else None
    for t in TABLES:
        if wanted is not None and t.name not in wanted:
            continue
        # The very statements the Oracle engine runs when it seeds (one copy of that SQL).
        parts.append("\n".join(statement + ";" for statement in oracle_sql.sc_comments(t)))
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------- embedded
def sample(eng: Engine, table: str, n: int = 5, columns: list[str] | None = None) -> pd.DataFrame:
    """The first n rows of a SUPPLYCHAIN table (by primary key), on either engine."""
    spec = TABLES_BY_NAME.get(str(table).upper())
    if spec is None:
        raise ValueError(f"Unknown table {table!r}; SUPPLYCHAIN has {[t.name for t in TABLES]}")
    cols = [c.upper() for c in columns] if columns else spec.column_names
    unknown = [c for c in cols if c not in spec.column_names]
    if unknown:
        raise ValueError(f"{spec.name} has no column(s) {unknown}; it has {spec.column_names}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    # Column names are checked against the spec above, never taken from user text as they are.
    return pd.DataFrame(eng.query(eng.statements.supplychain.first_rows(spec, cols, n)), columns=cols)


class _Table(NamedTuple):
    """A table by name alone (a table the dictionary lists): what a count statement reads of a spec."""

    name: str


def counts(eng: Engine, tables: Iterable[TableName] | None = None) -> dict[str, int]:
    """Rows per SUPPLYCHAIN table as loaded on `eng`: of each of `tables` (the dataset's specs, TABLES,
    as the doctor passes them), or of every table the schema's dictionary lists."""
    if tables is None:
        tables = [_Table(t["table"]) for t in eng.supplychain.data_dictionary("SUPPLYCHAIN")["tables"]]
    return {t.name: int(row_as(CountRow, eng.query(eng.statements.supplychain.count(t))[0]).n) for t in tables}

"""Seed and describe the SUPPLYCHAIN demo schema.

`seed(eng)` loads the canonical dataset from `supplychain_data` into the chosen engine:
the embedded engine is handled here, Oracle by its own `seed_supplychain`. Comments go
where each engine's catalog reader expects them: Oracle's data dictionary, or the
embedded engine's ALL_TAB_COMMENTS / ALL_COL_COMMENTS tables of the same shape.
"""
from __future__ import annotations

from datetime import date, datetime

import pandas as pd

from .oracle import sql as oracle_sql
from .progress import progress as tqdm
from .supplychain_data import OWNER, TABLES, TABLES_BY_NAME, Table, rows

__all__ = ["seed", "describe", "comments_block", "sample", "TABLES", "rows"]

# Mirrors of Oracle's ALL_TAB_COMMENTS / ALL_COL_COMMENTS for the embedded engine.
_CATALOG_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {OWNER}.ALL_TAB_COMMENTS (
        OWNER VARCHAR2(128) NOT NULL, TABLE_NAME VARCHAR2(128) NOT NULL,
        TABLE_TYPE VARCHAR2(11) NOT NULL, COMMENTS VARCHAR2(4000),
        PRIMARY KEY (OWNER, TABLE_NAME))""",
    f"""CREATE TABLE IF NOT EXISTS {OWNER}.ALL_COL_COMMENTS (
        OWNER VARCHAR2(128) NOT NULL, TABLE_NAME VARCHAR2(128) NOT NULL,
        COLUMN_NAME VARCHAR2(128) NOT NULL, COMMENTS VARCHAR2(4000),
        PRIMARY KEY (OWNER, TABLE_NAME, COLUMN_NAME))""",
]


def seed(eng, *, progress: bool = True) -> dict[str, int]:
    """Create and fill SUPPLYCHAIN on `eng`; returns the row count per table.

    Safe to run again: the dataset tables are emptied and refilled in one transaction.
    """
    data = rows()
    if eng.name == "embedded":
        return _seed_embedded(eng, data, progress)
    if eng.name == "oracle":
        counts = eng.seed_supplychain(TABLES, data)
        return counts if counts is not None else {t.name: len(data[t.name]) for t in TABLES}
    raise ValueError(f"Don't know how to seed SUPPLYCHAIN on engine {eng.name!r}")


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
def sample(eng, table: str, n: int = 5, columns: list[str] | None = None) -> pd.DataFrame:
    """The first n rows of a SUPPLYCHAIN table (by primary key), on either engine."""
    spec = TABLES_BY_NAME.get(str(table).upper())
    if spec is None:
        raise ValueError(f"Unknown table {table!r}; SUPPLYCHAIN has {[t.name for t in TABLES]}")
    cols = [c.upper() for c in columns] if columns else spec.column_names
    unknown = [c for c in cols if c not in spec.column_names]
    if unknown:
        raise ValueError(f"{spec.name} has no column(s) {unknown}; it has {spec.column_names}")
    # Names come from the spec, never from user text, so building the statement is safe.
    sql = f"SELECT {', '.join(cols)} FROM {OWNER}.{spec.name} ORDER BY {', '.join(spec.primary_key)}"
    with eng.cursor() as cur:
        cur.execute(sql)
        data = cur.fetchmany(n)
    return pd.DataFrame(data, columns=cols)


def _seed_embedded(eng, data: dict[str, list[tuple]], progress: bool = True) -> dict[str, int]:
    with eng.transaction() as cur:
        for stmt in _CATALOG_DDL:
            cur.execute(stmt)
        for table in TABLES:
            # An older layout from a previous version of the dataset is rebuilt, not patched.
            if _existing_columns(cur, table.name) not in ([], _wanted_columns(table)):
                cur.execute(f"DROP TABLE {OWNER}.{table.name}")
            cur.execute(_create_table_sql(table))
        # Children first, so no row ever points at a deleted parent.
        for table in reversed(TABLES):
            cur.execute(f"DELETE FROM {OWNER}.{table.name}")
        cur.execute(f"DELETE FROM {OWNER}.ALL_TAB_COMMENTS WHERE OWNER = ?", (OWNER,))
        cur.execute(f"DELETE FROM {OWNER}.ALL_COL_COMMENTS WHERE OWNER = ?", (OWNER,))

        for table in tqdm(TABLES, desc="Seeding SUPPLYCHAIN", unit="table", disable=not progress):
            marks = ", ".join("?" * len(table.columns))
            cur.executemany(
                f"INSERT INTO {OWNER}.{table.name} ({', '.join(table.column_names)}) VALUES ({marks})",
                [tuple(_sqlite_value(v) for v in row) for row in data[table.name]],
            )
            cur.execute(
                f"INSERT INTO {OWNER}.ALL_TAB_COMMENTS VALUES (?, ?, 'TABLE', ?)",
                (OWNER, table.name, table.comment),
            )
            cur.executemany(
                f"INSERT INTO {OWNER}.ALL_COL_COMMENTS VALUES (?, ?, ?, ?)",
                [(OWNER, table.name, c.name, c.comment) for c in table.columns],
            )

        # SQLite does not enforce foreign keys unless the connection opts in; check instead.
        broken = cur.execute(f"PRAGMA {OWNER}.foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"SUPPLYCHAIN foreign keys broken after seeding: {broken[:5]}")
        return {
            t.name: cur.execute(f"SELECT COUNT(*) FROM {OWNER}.{t.name}").fetchone()[0] for t in TABLES
        }


def _create_table_sql(table: Table) -> str:
    # Oracle type names work as SQLite declared types and keep the catalog Oracle-like.
    lines = [f"{c.name} {c.oracle_type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    lines.append(f"PRIMARY KEY ({', '.join(table.primary_key)})")
    for fk in table.foreign_keys:
        # Inside an attached database, REFERENCES must name the table without a schema.
        lines.append(
            f"FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.ref_table} ({', '.join(fk.ref_columns)})"
        )
    body = ",\n    ".join(lines)
    return f"CREATE TABLE IF NOT EXISTS {OWNER}.{table.name} (\n    {body}\n)"


def _existing_columns(cur, table_name: str) -> list[tuple[str, str]]:
    return [(r[1].upper(), r[2].upper()) for r in cur.execute(f'PRAGMA {OWNER}.table_info("{table_name}")')]


def _wanted_columns(table: Table) -> list[tuple[str, str]]:
    return [(c.name, c.oracle_type.upper()) for c in table.columns]


def _sqlite_value(value):
    # SQLite has no date type: ISO text sorts and compares correctly.
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value

"""Seed SUPPLYCHAIN into the embedded engine's attached database (Oracle's twin is
OracleSupplyChain.load). Comments go to ALL_TAB_COMMENTS / ALL_COL_COMMENTS tables
of the same shape as Oracle's data dictionary views, where the engine's catalog() reads them."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from workshop_lib.engines.dbtypes import Cursor, Row, TableSpec, one_row
from workshop_lib.engines.embedded import sql
from workshop_lib.engines.rows import CountRow, TableInfoRow, each_as, row_as
from workshop_lib.progress import progress as tqdm

if TYPE_CHECKING:
    from workshop_lib.engines.embedded.engine import EmbeddedEngine


def seed(eng: EmbeddedEngine, tables: Sequence[TableSpec], rows: Mapping[str, Sequence[Row]], *,
         progress: bool = True) -> dict[str, int]:
    """Create (or rebuild) every table, reload every row and comment in one transaction; returns counts."""
    owner = sql.SC_OWNER
    with eng.transaction() as cur:
        for stmt in sql.SC_COMMENT_TABLES_DDL:
            cur.execute(stmt)
        for table in tables:
            # An older layout from a previous version of the dataset is rebuilt, not patched.
            if _existing_columns(cur, table.name) not in ([], _wanted_columns(table)):
                cur.execute(sql.sc_drop_table(table))
            cur.execute(sql.sc_create_table(table))
        for table in reversed(tables):  # children first, so no row ever points at a deleted parent
            cur.execute(sql.sc_delete(table))
        cur.execute(sql.SC_DELETE_TAB_COMMENTS, {"owner": owner})
        cur.execute(sql.SC_DELETE_COL_COMMENTS, {"owner": owner})

        for table in tqdm(tables, desc="Seeding SUPPLYCHAIN", unit="table", disable=not progress):
            cur.executemany(sql.sc_insert(table), [tuple(_sqlite_value(v) for v in row) for row in rows[table.name]])
            cur.execute(sql.SC_INSERT_TAB_COMMENT, {"owner": owner, "tab": table.name, "comments": table.comment})
            cur.executemany(sql.SC_INSERT_COL_COMMENT, [{"owner": owner, "tab": table.name, "col": c.name,
                                                        "comments": c.comment} for c in table.columns])

        # SQLite does not enforce foreign keys unless the connection opts in; check instead.
        broken = cur.execute(sql.SC_FOREIGN_KEY_CHECK).fetchall()
        if broken:
            raise RuntimeError(f"SUPPLYCHAIN foreign keys broken after seeding: {broken[:5]}")
        return {t.name: int(row_as(CountRow, one_row(cur.execute(sql.sc_count(t)))).n) for t in tables}


def _existing_columns(cur: Cursor, table_name: str) -> list[tuple[str, str]]:
    return [(r.name.upper(), r.type.upper()) for r in each_as(TableInfoRow, cur.execute(sql.sc_table_info(table_name)))]


def _wanted_columns(table: TableSpec) -> list[tuple[str, str]]:
    return [(c.name, c.oracle_type.upper()) for c in table.columns]


def _sqlite_value(value: object) -> object:
    # SQLite has no date type: ISO text sorts and compares correctly.
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value

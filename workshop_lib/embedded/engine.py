"""The embedded engine: a SQLite file with sqlite-vec, FTS5 and the model as a SQL function.

The stock sqlite3 module of many Pythons cannot load extensions; sqlean.py can, and it
ships FTS5. SUPPLYCHAIN lives in a second file attached as schema SUPPLYCHAIN, so the
same qualified names (SUPPLYCHAIN.VESSELS) work here and on Oracle.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import sqlean
import sqlite_vec

from .. import config, embedder
from ..engine import Engine
from . import sql as statements_module
from . import text_query

STORE_FILE = "workshop.sqlite"
SUPPLYCHAIN_FILE = "supplychain.sqlite"


class EmbeddedEngine(Engine):
    name = "embedded"
    sql_module = statements_module
    ping_sql = statements_module.PING
    dim = embedder.DIM
    model_name = embedder.MODEL_NAME
    # A full-text expression that matches nothing, for questions with no searchable term.
    no_match_expression = '""'

    def __init__(self, path: str | Path | None = None) -> None:
        super().__init__()
        folder = Path(path) if path is not None else config.data_dir()
        if folder.suffix in (".sqlite", ".db"):
            folder = folder.parent
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.path = folder / STORE_FILE
        # isolation_level=None: we open and close transactions ourselves.
        self.conn = sqlean.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self.conn.enable_load_extension(True)
        sqlite_vec.load(self.conn)
        self.conn.enable_load_extension(False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA busy_timeout=5000")
        # Memory-map the store (up to 1 GiB): a vec0 KNN reads every vector of a partition,
        # and mapped pages spare it a read() and a copy per page (1.5x at 100k memories, bench/).
        self.conn.execute("PRAGMA mmap_size=1073741824")
        self.conn.execute("ATTACH DATABASE ? AS SUPPLYCHAIN", (str(folder / SUPPLYCHAIN_FILE),))
        self.conn.create_function("embed", 1, _embed_sql, deterministic=True)

    # ---------------------------------------------------------------- interface
    def statements(self, prefix: str, dim: int):
        return statements_module.statements(prefix, dim)

    def seed_supplychain(self, tables, rows, *, progress: bool = True) -> dict[str, int]:
        from . import seed

        return seed.seed(self, tables, rows, progress=progress)

    def object_names(self) -> set[str]:
        return {r[0].upper() for r in self.conn.execute(statements_module.EXISTING_OBJECTS)}

    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        with self.transaction() as cur:
            for _, ddl in objects:
                for stmt in ddl:
                    cur.execute(stmt)

    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        with self.transaction() as cur:
            for name in reversed(list(drops)):
                if name in names:
                    cur.execute(drops[name])

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
        cur = self.conn.cursor()
        try:
            yield cur
        finally:
            cur.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        cur = self.conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        else:
            cur.execute("COMMIT")
        finally:
            cur.close()

    def insert_returning_seq(self, cur, sql: str, params: dict) -> int:
        cur.execute(sql, params)
        return int(cur.lastrowid)

    def vector_param(self, values: list[float]) -> bytes:
        return np.asarray(values, dtype=np.float32).tobytes()

    def embed(self, texts: list[str]) -> list[list[float]]:
        return embedder.embed(list(texts)).tolist()

    def keyword_expression(self, text: str) -> str | None:
        return text_query.keyword_expression(text)

    def count_tokens(self, text: str) -> int:
        return embedder.count_tokens(text)

    def describe(self) -> str:
        return f"{self.path} with {self.model_name} ({self.dim} dims)"

    # ---------------------------------------------------------------- catalog
    def catalog(self, owner: str) -> dict:
        """SUPPLYCHAIN's tables, columns and keys, read as Oracle's dictionary views would be."""
        owner = owner.upper()
        if owner != "SUPPLYCHAIN":
            raise ValueError(f"The embedded engine has only the SUPPLYCHAIN schema, not {owner!r}")
        rows = self.query(
            "SELECT table_name, comments FROM SUPPLYCHAIN.ALL_TAB_COMMENTS WHERE owner = :o ORDER BY table_name",
            {"o": owner},
        )
        if not rows:
            raise RuntimeError("SUPPLYCHAIN is not seeded yet. Fix: run supplychain.seed(eng) or `workshop setup`.")
        col_comments = {
            (t, c): text
            for t, c, text in self.query(
                "SELECT table_name, column_name, comments FROM SUPPLYCHAIN.ALL_COL_COMMENTS WHERE owner = :o",
                {"o": owner},
            )
        }
        tables, columns, fks = [], [], []
        for table, comment in rows:
            tables.append({"owner": owner, "table": table, "comment": comment})
            for _, col, dtype, notnull, _, pk in self.conn.execute(f'PRAGMA SUPPLYCHAIN.table_info("{table}")'):
                columns.append({
                    "owner": owner, "table": table, "column": col.upper(),
                    "data_type": dtype.split("(")[0].upper(), "type_detail": dtype.upper(),
                    "nullable": not (notnull or pk), "comment": col_comments.get((table, col.upper())),
                })
            by_id: dict[int, dict] = {}
            for fid, _, ref_table, from_col, to_col, *_ in self.conn.execute(
                f'PRAGMA SUPPLYCHAIN.foreign_key_list("{table}")'
            ):
                fk = by_id.setdefault(fid, {"owner": owner, "table": table, "columns": [],
                                            "ref_table": ref_table.upper(), "ref_columns": []})
                fk["columns"].append(from_col.upper())
                fk["ref_columns"].append(to_col.upper())
            fks.extend(by_id[i] for i in sorted(by_id))
        return {"tables": tables, "columns": columns, "foreign_keys": fks}

    def close(self) -> None:
        self.conn.close()


def _embed_sql(text: Any) -> bytes | None:
    """SQL function embed(text): the model's vector as sqlite-vec's float32 blob."""
    if text is None:
        return None
    vec = embedder.embed([str(text)])[0]
    # Text with no known token (e.g. only control characters) has no direction: NULL,
    # which the statements treat as "nothing to compare".
    return vec.tobytes() if vec.any() else None

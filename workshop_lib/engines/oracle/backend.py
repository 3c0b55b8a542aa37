"""The Oracle engine's side of the memory store (`eng.backend`): objects in the AGENT schema,
RETURNING INTO keys, array('f') vector binds, CLOB text, and the lines `workshop doctor` adds
(users and grants, run_sql's reader, vector memory, the model, the indexes)."""
from __future__ import annotations

import array
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

import oracledb

from workshop_lib.engines.dbtypes import Cursor, Row
from workshop_lib.engines.health import Check
from workshop_lib.engines.oracle import sql as statements_module
from workshop_lib.engines.oracle.connection import (
    EMPTY_TEXT,
    REQUIRED_PRIVILEGES,
    OracleCursor,
    _first_line,
)
from workshop_lib.engines.oracle.errors import OracleWorkshopError, codes
from workshop_lib.engines.store_backend import StoreBackend

if TYPE_CHECKING:
    from workshop_lib.engines.oracle.engine import OracleEngine


ALREADY_EXISTS = "ORA-00955"  # name is already used by an existing object
_CREATED = re.compile(r"\s*CREATE\s+(?:VECTOR\s+|UNIQUE\s+)?(?:TABLE|INDEX)\s+(\w+)", re.I)


def created_name(statement: str) -> str | None:
    """The table or index a CREATE statement makes, upper-cased as the dictionary lists it."""
    m = _CREATED.match(statement)
    return m.group(1).upper() if m else None


class OracleBackend(StoreBackend):
    """DDL commits by itself in Oracle: each object is created (or dropped) on its own."""

    engine: OracleEngine

    def object_names(self) -> set[str]:
        with self.engine.cursor() as cur:
            cur.execute(statements_module.EXISTING_OBJECTS)
            return {r[0].upper() for r in cur.fetchall()}

    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        """DDL commits by itself in Oracle; each object is created on its own. The schema lock is
        a no-op here, so two processes opening a new (or upgraded) store at once both try to
        create what is missing: the second one's CREATE fails with ORA-00955 ("name is already
        used by an existing object"), which is success when the object it names now exists as a
        table or index. Any other object of that name, or any other error, still fails."""
        for name, ddl in objects:
            for stmt in ddl:
                try:
                    with self.engine.cursor() as cur:
                        cur.execute(stmt)
                except OracleWorkshopError as exc:
                    if ALREADY_EXISTS in codes(exc.error) and created_name(stmt) in self.object_names():
                        continue  # another session created it first
                    raise OracleWorkshopError(f"create {name}", exc.error) from exc

    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        for name in reversed(list(drops)):
            if name in names:
                try:
                    with self.engine.cursor() as cur:
                        cur.execute(drops[name])
                except OracleWorkshopError as exc:
                    if exc.code not in ("ORA-00942", "ORA-01418"):
                        raise

    def insert_returning_seq(self, cur: Cursor, sql: str, params: Mapping[str, object]) -> int:
        # This engine's cursors are OracleCursor, or the driver's own where a caller holds one.
        raw = cur.raw if isinstance(cur, OracleCursor) else cast(oracledb.Cursor, cur)
        out = raw.var(oracledb.DB_TYPE_NUMBER)
        cur.execute(sql, {**params, "new_seq": out})
        value = out.getvalue()
        if isinstance(value, list):  # DML RETURNING gives one value per affected row
            value = value[0]
        return int(value)

    def vector_param(self, values: list[float]) -> array.array[float]:
        return array.array("f", [float(v) for v in values])

    def read_text(self, value: object) -> str | None:
        if isinstance(value, oracledb.LOB):
            value = value.read()  # a LOB that was not fetched as a string
        if value == EMPTY_TEXT:
            return ""
        return None if value is None else str(value)

    def doctor_checks(self, prefix: str = "") -> list[Check]:
        """The user and its grants, run_sql's reader, vector memory, the model, the indexes, the reranker."""
        sc = statements_module
        out: list[Check] = []
        setup = "run `make setup-oracle` (safe to re-run)"
        try:
            have = {r[0] for r in self.engine.query(sc.CHECK_PRIVILEGES)}
            missing = [p for p in REQUIRED_PRIVILEGES if p not in have]
            visible = self.engine.query(sc.CHECK_SUPPLYCHAIN_ACCESS)[0][0]
            detail = (f"{self.engine.user} has {', '.join(REQUIRED_PRIVILEGES)}" if not missing
                      else f"{self.engine.user} lacks {', '.join(missing)}")
            detail += f"; sees {visible} SUPPLYCHAIN tables"
            out.append(Check("Oracle user and grants", not missing and visible > 0, detail, setup))
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            out.append(Check("Oracle user and grants", False, _first_line(exc), setup))
        out.append(self.engine.supplychain.reader_check())
        out.append(self.engine.supplychain.reader_packages_check())
        index_rows: list[Row] = []
        try:
            index_rows = self.engine.query(sc.CHECK_INDEXES, {"records_table": f"{prefix}RECORDS",
                                                       "chunks_table": f"{prefix}RECORD_CHUNKS"})
        except Exception as exc:  # noqa: BLE001
            out.append(Check("memory store indexes", False, _first_line(exc), setup))
        # The store searches vectors exactly (no HNSW index, issue 36 risk 5): the vector pool is
        # shown for information only, and an index an older version built should be gone.
        hnsw = f"{prefix}RECORD_CHUNKS_VEC_IX"
        has_hnsw = any(r[0] == hnsw for r in index_rows)
        try:
            value = self.engine.query(sc.CHECK_VECTOR_MEMORY)[0][0]
            out.append(Check("vector memory (VECTOR_MEMORY_SIZE)", True,
                             f"{value} in this database (the store searches exactly and needs none)", setup))
        except Exception:  # noqa: BLE001 - AGENT may not read V$PARAMETER on every database
            out.append(Check("vector memory (VECTOR_MEMORY_SIZE)", True,
                             "not readable by this user (the store searches exactly and needs none)", setup))
        try:
            loaded = self.engine.query(sc.CHECK_MODEL, {"model": self.engine.model.name})
            dims = self.engine.query(sc.MODEL_DIMENSIONS)[0][0] if loaded else 0
            out.append(Check("in-database embedding model", bool(loaded) and dims == self.engine.model.dim,
                             f"{self.engine.model.name} {'loaded' if loaded else 'not loaded'}"
                             + (f", {dims} dims (expected {self.engine.model.dim})" if loaded else ""), setup))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("in-database embedding model", False, _first_line(exc), setup))
        if index_rows:
            bad = [r[0] for r in index_rows if r[2] != "VALID" or r[3] != "VALID" or r[4] != "VALID"]
            out.append(Check("memory store indexes VALID", not bad,
                             f"{len(index_rows)} indexes" + (f", not valid: {', '.join(bad)}" if bad else ", all VALID"),
                             f"{setup}; if it persists: `workshop reset` rebuilds the store (deletes memories)"))
            out.append(Check("no vector index (exact search)", not has_hnsw,
                             f"{hnsw} {'present: it keeps erased vectors until repopulated' if has_hnsw else 'absent'}",
                             "open the store once with this version (it drops the index), e.g. `workshop setup`"))
        try:
            rows = self.engine.query(sc.CHECK_PORTS_SPATIAL_INDEX)
            ok = bool(rows) and all(v == "VALID" for v in rows[0])
            out.append(Check("spatial index on PORTS.LOCATION", ok,
                             "PORTS_LOCATION_SIX " + ("VALID" if ok else ("missing" if not rows else "/".join(rows[0]))),
                             f"{setup}; SDO_NN needs it (ORA-13226 without one)"))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("spatial index on PORTS.LOCATION", False, _first_line(exc), setup))
        out.append(Check("reranker", True, self.engine.model.reranker() or "none configured: pass-through (vector order)"))
        return out

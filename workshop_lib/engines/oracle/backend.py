"""The Oracle engine's side of the memory store (`eng.backend`): objects in the AGENT schema,
RETURNING INTO keys, array('f') vector binds, CLOB text, and the lines `workshop doctor` adds
(users and grants, run_sql's reader, vector memory, the model, the indexes)."""
from __future__ import annotations

import array
import re
from typing import TYPE_CHECKING

import oracledb

from workshop_lib.engines.health import Check
from workshop_lib.engines.oracle import sql as statements_module
from workshop_lib.engines.oracle.connection import (
    EMPTY_TEXT,
    REQUIRED_PRIVILEGES,
    _first_line,
)
from workshop_lib.engines.oracle.errors import OracleWorkshopError, codes
from workshop_lib.engines.rows import (
    CountRow,
    DomainIndexStatusRow,
    IndexStatusRow,
    NameRow,
    ValueRow,
    first_as,
    row_as,
    rows_as,
)
from workshop_lib.engines.store_backend import StoreBackend

if TYPE_CHECKING:
    from workshop_lib.engines.oracle.engine import OracleEngine


ALREADY_EXISTS = "ORA-00955"  # name is already used by an existing object
_SETUP = "run `make setup-oracle` (safe to re-run)"  # the doctor's fix for what setup creates or grants
_CREATED = re.compile(r"\s*CREATE\s+(?:VECTOR\s+|UNIQUE\s+)?(?:TABLE|INDEX)\s+(\w+)", re.I)


def created_name(statement: str) -> str | None:
    """The table or index a CREATE statement makes, upper-cased as the dictionary lists it."""
    m = _CREATED.match(statement)
    return m.group(1).upper() if m else None


class OracleBackend(StoreBackend):
    """DDL commits by itself in Oracle: each object is created (or dropped) on its own."""

    _engine: OracleEngine

    def object_names(self) -> set[str]:
        with self._read() as cur:
            cur.execute(statements_module.EXISTING_OBJECTS)
            return {r.name.upper() for r in rows_as(NameRow, cur.fetchall())}

    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        """DDL commits by itself in Oracle; each object is created on its own. The schema lock is
        a no-op here, so two processes opening a new (or upgraded) store at once both try to
        create what is missing: the second one's CREATE fails with ORA-00955 ("name is already
        used by an existing object"), which is success when the object it names now exists as a
        table or index. Any other object of that name, or any other error, still fails."""
        for name, ddl in objects:
            for stmt in ddl:
                try:
                    with self._read() as cur:
                        cur.execute(stmt)
                except OracleWorkshopError as exc:
                    if ALREADY_EXISTS in codes(exc.error) and created_name(stmt) in self.object_names():
                        continue  # another session created it first
                    raise OracleWorkshopError(f"create {name}", exc.error) from exc

    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        for name in reversed(list(drops)):
            if name in names:
                try:
                    with self._read() as cur:
                        cur.execute(drops[name])
                except OracleWorkshopError as exc:
                    if exc.code not in ("ORA-00942", "ORA-01418"):
                        raise

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
        out = [self._grants_check(), self._engine.supplychain.reader_check(),
               self._engine.supplychain.reader_packages_check()]
        indexes: list[IndexStatusRow] = []
        try:
            indexes = rows_as(IndexStatusRow, self._engine.query(statements_module.CHECK_INDEXES, {
                "records_table": f"{prefix}RECORDS", "chunks_table": f"{prefix}RECORD_CHUNKS"}))
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            out.append(Check("memory store indexes", False, _first_line(exc), _SETUP))
        out += [self._vector_memory_check(), self._model_check()]
        if indexes:
            out += self._index_checks(indexes, prefix)
        out += [self._spatial_index_check(),
                Check("reranker", True, self._engine.model.reranker() or "none configured: pass-through (vector order)")]
        return out

    def _grants_check(self) -> Check:
        sc = statements_module
        try:
            have = {r.name for r in rows_as(NameRow, self._engine.query(sc.CHECK_PRIVILEGES))}
            missing = [p for p in REQUIRED_PRIVILEGES if p not in have]
            visible = row_as(CountRow, self._engine.query(sc.CHECK_SUPPLYCHAIN_ACCESS)[0]).n
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            return Check("Oracle user and grants", False, _first_line(exc), _SETUP)
        detail = (f"{self._engine.user} has {', '.join(REQUIRED_PRIVILEGES)}" if not missing
                  else f"{self._engine.user} lacks {', '.join(missing)}")
        detail += f"; sees {visible} SUPPLYCHAIN tables"
        return Check("Oracle user and grants", not missing and visible > 0, detail, _SETUP)

    def _vector_memory_check(self) -> Check:
        # The store searches vectors exactly (no HNSW index, issue 36 risk 5): the vector pool is
        # shown for information only.
        name = "vector memory (VECTOR_MEMORY_SIZE)"
        try:
            value = row_as(ValueRow, self._engine.query(statements_module.CHECK_VECTOR_MEMORY)[0]).value
        except Exception:  # noqa: BLE001 - AGENT may not read V$PARAMETER on every database
            return Check(name, True, "not readable by this user (the store searches exactly and needs none)", _SETUP)
        return Check(name, True, f"{value} in this database (the store searches exactly and needs none)", _SETUP)

    def _model_check(self) -> Check:
        model = self._engine.model
        try:
            loaded = self._engine.query(statements_module.CHECK_MODEL, {"model": model.name})
            dims = row_as(CountRow, self._engine.query(statements_module.MODEL_DIMENSIONS)[0]).n if loaded else 0
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            return Check("in-database embedding model", False, _first_line(exc), _SETUP)
        return Check("in-database embedding model", bool(loaded) and dims == model.dim,
                     f"{model.name} {'loaded' if loaded else 'not loaded'}"
                     + (f", {dims} dims (expected {model.dim})" if loaded else ""), _SETUP)

    @staticmethod
    def _index_checks(indexes: list[IndexStatusRow], prefix: str) -> list[Check]:
        """Every store index VALID, and no vector index (an index an older version built should be gone)."""
        bad = [r.index_name for r in indexes
               if any(s != "VALID" for s in (r.status, r.domidx_status, r.domidx_opstatus))]
        hnsw = f"{prefix}RECORD_CHUNKS_VEC_IX"
        has_hnsw = any(r.index_name == hnsw for r in indexes)
        return [
            Check("memory store indexes VALID", not bad,
                  f"{len(indexes)} indexes" + (f", not valid: {', '.join(bad)}" if bad else ", all VALID"),
                  f"{_SETUP}; if it persists: `workshop reset` rebuilds the store (deletes memories)"),
            Check("no vector index (exact search)", not has_hnsw,
                  f"{hnsw} {'present: it keeps erased vectors until repopulated' if has_hnsw else 'absent'}",
                  "open the store once with this version (it drops the index), e.g. `workshop setup`"),
        ]

    def _spatial_index_check(self) -> Check:
        name = "spatial index on PORTS.LOCATION"
        try:
            found = first_as(DomainIndexStatusRow, self._engine.query(statements_module.CHECK_PORTS_SPATIAL_INDEX))
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            return Check(name, False, _first_line(exc), _SETUP)
        ok = found is not None and all(v == "VALID" for v in found)
        return Check(name, ok, "PORTS_LOCATION_SIX " + ("VALID" if ok else ("missing" if found is None else "/".join(found))),
                     f"{_SETUP}; SDO_NN needs it (ORA-13226 without one)")

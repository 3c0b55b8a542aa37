"""The embedded engine's side of the memory store (`eng.backend`): SQLite's schema objects,
generated keys, float32 vector blobs and the integrity checks `workshop doctor` runs."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from workshop_lib.engines.dbtypes import one_row
from workshop_lib.engines.embedded import sql as statements_module
from workshop_lib.engines.health import Check
from workshop_lib.engines.rows import CountRow, NameRow, ValueRow, VectorTotalsRow, each_as, row_as
from workshop_lib.engines.store_backend import StoreBackend

if TYPE_CHECKING:
    from workshop_lib.engines.embedded.engine import EmbeddedEngine


class EmbeddedBackend(StoreBackend):
    """Every statement runs under the engine's lock (through its cursor and transaction)."""

    _engine: EmbeddedEngine

    def object_names(self) -> set[str]:
        with self._read() as cur:
            return {r.name.upper() for r in each_as(NameRow, cur.execute(statements_module.EXISTING_OBJECTS))}

    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        with self._engine.transaction() as cur:
            for _, ddl in objects:
                for stmt in ddl:
                    cur.execute(stmt)

    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        with self._engine.transaction() as cur:
            for name in reversed(list(drops)):
                if name in names:
                    cur.execute(drops[name])

    @contextlib.contextmanager
    def schema_lock(self) -> Iterator[None]:
        """Hold the write lock while the store checks and creates its schema (see MemoryStore)."""
        with self._engine.transaction():
            yield

    def files(self) -> list[Path]:
        path = Path(self._engine.path)
        return [f for f in (path, path.with_name(path.name + "-wal")) if f.exists()]

    def vector_param(self, values: list[float]) -> bytes:
        return np.asarray(values, dtype=np.float32).tobytes()

    def doctor_checks(self, prefix: str = "") -> list[Check]:
        """Integrity lines for `workshop doctor`: both files, the full-text and the KNN index."""
        out = []
        for schema, path, fix in (
            ("main", self._engine.path, "restore it from a backup, or `workshop reset --yes` then `workshop setup` "
                                "(deletes stored memories)"),
            ("SUPPLYCHAIN", self._engine.supplychain_path, f"delete {self._engine.supplychain_path} and run `workshop setup` "
                                                   "(it is rebuilt; memories are kept)"),
        ):
            try:
                with self._read() as cur:
                    rows = [str(r.value) for r in each_as(ValueRow, cur.execute(
                        statements_module.QUICK_CHECK.replace("{schema}", schema)))]
                ok = rows == ["ok"]
                out.append(Check(f"integrity of {path.name}", ok, "quick_check ok" if ok else "; ".join(rows)[:300],
                                 fix))
            except Exception as exc:  # noqa: BLE001 - doctor reports every failure
                out.append(Check(f"integrity of {path.name}", False, str(exc).splitlines()[0], fix))
        store_fix = ("the memory store's indexes are damaged: restore the file from a backup, or `workshop reset "
                     "--yes` then `workshop setup` (deletes stored memories)")
        p = prefix
        try:
            with self._engine.transaction() as cur:  # FTS5's integrity-check is an INSERT: it needs a write transaction
                cur.execute(statements_module.FTS_INTEGRITY.replace("{p}", p))
            out.append(Check("full-text index", True, "FTS5 integrity-check ok"))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("full-text index", False, str(exc).splitlines()[0], store_fix))
        try:
            with self._read() as cur:
                n = row_as(VectorTotalsRow, one_row(cur.execute(statements_module.KNN_READ_ALL.replace("{p}", p)))).vectors
                want = row_as(CountRow, one_row(cur.execute(statements_module.KNN_EXPECTED.replace("{p}", p)))).n
            out.append(Check("nearest-neighbour index", n == want, f"{n} vectors read, {want} expected", store_fix))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("nearest-neighbour index", False, str(exc).splitlines()[0], store_fix))
        return out


"""SUPPLYCHAIN on the embedded engine (`eng.supplychain`): a second SQLite file attached as
schema SUPPLYCHAIN, its dictionary read as Oracle's views would be, and run_sql's queries in a
worker process that is killed at the deadline."""
from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib.engines.dbtypes import Cursor, Row, TableSpec
from workshop_lib.engines.embedded import seed
from workshop_lib.engines.embedded import sql as statements_module
from workshop_lib.engines.embedded.query_worker import WorkerAnswer, WorkerRequest
from workshop_lib.engines.readonly import QueryResult, SqlRefused, clean, plain_params
from workshop_lib.engines.rows import ColumnCommentRow, ForeignKeyListRow, TableCommentRow, TableInfoRow, rows_as
from workshop_lib.engines.supplychain_schema import DataDictionary, SupplyChainSchema

if TYPE_CHECKING:
    from workshop_lib.engines.embedded.engine import EmbeddedEngine

# Functions a read-only query may not call (extension loading, file access).
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "fileio_read", "fileio_write", "fileio_append",
                     "fileio_mkdir", "fileio_symlink", "fileio_ls", "fileio_scan", "edit", "eval", "define"}

MAX_QUERY_WORKERS = 2  # run_sql worker processes at once (each bounded in memory); more wait their turn
_QUERY_WORKERS = threading.BoundedSemaphore(MAX_QUERY_WORKERS)


class _Worker:
    """One query worker process, reused between queries until a deadline or a failure ends it."""

    def __init__(self) -> None:
        package_root = str(Path(__file__).resolve().parents[3])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen([sys.executable, "-m", "workshop_lib.engines.embedded.query_worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env)

    def ask(self, request: WorkerRequest, timeout_s: float) -> WorkerAnswer | None:
        """The answer, or None at the deadline (the process is then killed); raises OSError when
        the process is gone."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request).encode("utf-8", "surrogatepass") + b"\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], max(timeout_s, 0.01))
        if not ready:
            self.kill()
            return None
        line = self.proc.stdout.readline()
        if not line:
            raise OSError(f"exit code {self.proc.wait()}")
        answer: WorkerAnswer = json.loads(line)
        return answer

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)


_IDLE: list[_Worker] = []
_IDLE_LOCK = threading.Lock()


def _run_worker(request: WorkerRequest, timeout_s: float) -> WorkerAnswer | None:
    """The worker's answer, or None when it did not answer within timeout_s (it is killed). An
    idle worker is reused; one that timed out, failed or was refused for memory is replaced."""
    with _IDLE_LOCK:
        worker = _IDLE.pop() if _IDLE else None
    if worker is None or worker.proc.poll() is not None:
        worker = _Worker()
    try:
        answer = worker.ask(request, timeout_s)
    except (OSError, ValueError) as exc:
        worker.kill()
        # Killed by the OS (memory) or crashed: the query did not finish within its limits.
        return {"refused": f"stopped: the query's worker failed ({str(exc)[:200]}); select less"}
    if answer is None:
        return None
    kept = False
    if "memory" not in str(answer.get("refused", "")):  # a process that ran out of memory is not reused
        with _IDLE_LOCK:
            if len(_IDLE) < MAX_QUERY_WORKERS:
                _IDLE.append(worker)
                kept = True
    if not kept:
        worker.kill()
    return answer


class EmbeddedSupplyChain(SupplyChainSchema):
    """SUPPLYCHAIN in supplychain.sqlite beside the store, attached to the engine's connection."""

    days_between = statements_module.DAYS_BETWEEN
    date_literal = statements_module.DATE_LITERAL

    _engine: EmbeddedEngine

    def load(self, tables: Sequence[TableSpec], rows: Mapping[str, Sequence[Row]], *, progress: bool = True) -> dict[str, int]:
        return seed.seed(self._engine, tables, rows, progress=progress)

    def _read_only(self, sql: str, *, max_rows: int = 50, timeout_s: float = 5.0,
                   params: Mapping[str, Any] | None = None) -> QueryResult:
        """One query over the SUPPLYCHAIN database, read-only by SQLite's own checks, run in a
        worker process (query_worker.py) that is killed at timeout_s: an authorizer that allows
        only SELECT, reads of SUPPLYCHAIN tables and ordinary functions (no writes, PRAGMA,
        ATTACH, transactions or load_extension), PRAGMA query_only, one statement only, a row
        and byte cap, and limits on value size and memory. The engine's connection and its lock
        are not used, so a slow query holds up no other request."""
        text, max_rows = clean(sql, max_rows)
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= 600:
            raise SqlRefused(f"timeout_s must be a number of seconds in (0, 600], got {timeout_s!r}")
        started = time.monotonic()
        if not _QUERY_WORKERS.acquire(timeout=timeout_s):
            raise SqlRefused(f"busy: {MAX_QUERY_WORKERS} queries are running; try again in a few seconds")
        try:
            request: WorkerRequest = {"sql": text, "params": plain_params(params), "max_rows": max_rows, "timeout_s": timeout_s,
                       "supplychain": str(self._engine.supplychain_path), "denied_functions": sorted(_DENIED_FUNCTIONS)}
            answer = _run_worker(request, timeout_s - (time.monotonic() - started))
        finally:
            _QUERY_WORKERS.release()
        if answer is None or answer.get("timeout"):
            raise SqlRefused(f"stopped: the query ran longer than {timeout_s:g} s")
        if "refused" in answer:
            raise SqlRefused(answer["refused"])
        if not answer["columns"]:
            raise SqlRefused("refused: only a query that returns rows (SELECT / WITH ... SELECT) is allowed")
        rows = [tuple(bytes.fromhex(v["blob"]) if isinstance(v, dict) else v for v in r) for r in answer["rows"]]
        return QueryResult(answer["columns"], rows, answer["truncated"], answer.get("note", ""))

    def nearest_ports(self, lon: float, lat: float) -> list[Row]:
        """(port name, UN/LOCODE, km) of the three ports nearest a point (haversine in SQL)."""
        return self._engine.query(statements_module.NEAREST_PORTS, {"lon": float(lon), "lat": float(lat)})

    @contextlib.contextmanager
    def unordered_reads_reversed(self) -> Iterator[bool]:
        # SQLite's switch for exactly this: unordered SELECTs (and ties) come back reversed.
        # The cursor holds the engine's lock for the whole block: no other thread reads meanwhile.
        with self._read() as cur:
            cur.execute("PRAGMA reverse_unordered_selects=ON")
            try:
                yield True
            finally:
                cur.execute("PRAGMA reverse_unordered_selects=OFF")

    # ---------------------------------------------------------------- data dictionary
    def _read_dictionary(self, owner: str) -> DataDictionary:
        """SUPPLYCHAIN's tables, columns and keys, read as Oracle's dictionary views would be."""
        owner = owner.upper()
        if owner != "SUPPLYCHAIN":
            raise ValueError(f"The embedded engine has only the SUPPLYCHAIN schema, not {owner!r}")
        rows = self._engine.query(
            "SELECT table_name, comments FROM SUPPLYCHAIN.ALL_TAB_COMMENTS WHERE owner = :o ORDER BY table_name",
            {"o": owner},
        )
        if not rows:
            raise RuntimeError("SUPPLYCHAIN is not seeded yet. Fix: run supplychain.seed(eng) or `workshop setup`.")
        with self._read() as cur:  # one cursor (and the engine's lock) for the whole read
            return self._data_dictionary(cur, owner, rows)

    def _data_dictionary(self, cur: Cursor, owner: str, rows: list[Row]) -> DataDictionary:
        col_comments = {
            (r.table_name, r.column_name): r.comments
            for r in rows_as(ColumnCommentRow, self._engine.query(
                "SELECT table_name, column_name, comments FROM SUPPLYCHAIN.ALL_COL_COMMENTS WHERE owner = :o",
                {"o": owner},
            ))
        }
        tables, columns = [], []
        fks: list[dict[str, Any]] = []
        for described in rows_as(TableCommentRow, rows):
            table = described.table_name
            tables.append({"owner": owner, "table": table, "comment": described.comments})
            for c in rows_as(TableInfoRow, cur.execute(f'PRAGMA SUPPLYCHAIN.table_info("{table}")').fetchall()):
                columns.append({
                    "owner": owner, "table": table, "column": c.name.upper(),
                    "data_type": c.type.split("(")[0].upper(), "type_detail": c.type.upper(),
                    "nullable": not (c.notnull or c.pk), "comment": col_comments.get((table, c.name.upper())),
                })
            by_id: dict[int, dict[str, Any]] = {}
            for key in rows_as(ForeignKeyListRow, cur.execute(
                f'PRAGMA SUPPLYCHAIN.foreign_key_list("{table}")'
            ).fetchall()):
                fk = by_id.setdefault(key.id, {"owner": owner, "table": table, "columns": [],
                                               "ref_table": key.table.upper(), "ref_columns": []})
                fk["columns"].append(key.from_column.upper())
                fk["ref_columns"].append(key.to_column.upper())
            fks.extend(by_id[i] for i in sorted(by_id))
        return {"tables": tables, "columns": columns, "foreign_keys": fks}


"""run_sql's query on the embedded engine, in a process of its own that the caller kills at the deadline.

SQLite checks its progress handler only between VM steps, so one C-level function over a
large argument (replace(), instr(), printf() on megabytes) runs on past any limit inside the
calling process, holding its connection. Here the query runs in a child: the parent waits
at most the time limit and then kills it, and its own store connection is never touched.

The child reads one JSON request on stdin and writes one JSON answer on stdout. It opens
an empty in-memory database with ONLY the SUPPLYCHAIN file attached, read-only (mode=ro),
so the memory store is not even reachable; an authorizer allows nothing but SELECT, reads
and ordinary functions; PRAGMA query_only is on. Bounded by SQLite itself: the largest
string or blob any expression may build (SQLITE_LIMIT_LENGTH), the heap (hard_heap_limit,
temporary tables in memory, so no disk), and by the OS: the address space (RLIMIT_AS).
It uses the standard library's sqlite3: it needs no extension, and it can set limits.
"""
from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import TypedDict
from urllib.parse import quote

from workshop_lib.engines.readonly import capped_result


class WorkerRequest(TypedDict):
    """One query, as the engine sends it to the worker (a JSON line)."""

    sql: str
    params: dict[str, str | int | float | None]
    max_rows: int
    timeout_s: float
    supplychain: str
    denied_functions: list[str]


class WorkerAnswer(TypedDict, total=False):
    """The worker's JSON answer: the rows (a blob as {"blob": hex}), or why there are none."""

    columns: list[str]
    rows: list[list[object]]
    truncated: bool
    note: str
    refused: str
    timeout: bool


MAX_SQL_VALUE_BYTES = 1024 * 1024     # any string or blob built while the query runs
MAX_HEAP_BYTES = 192 * 1024 * 1024    # SQLite's own memory
MAX_ADDRESS_SPACE = 768 * 1024 * 1024 # the whole process (Python, SQLite, the rows)
ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE}
ACTION_NAMES = {9: "DELETE", 18: "INSERT", 19: "PRAGMA", 22: "a transaction", 23: "UPDATE", 24: "ATTACH",
                25: "DETACH", 26: "ALTER TABLE", 31: "the function", 32: "a savepoint"}


def _limit_address_space() -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: SQLite's own heap limit still holds
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = MAX_ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(MAX_ADDRESS_SPACE, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _plain(value: object) -> object:
    # JSON carries text and numbers; a (small, already capped) blob travels as hex.
    return {"blob": value.hex()} if isinstance(value, bytes) else value


def run(request: WorkerRequest) -> WorkerAnswer:
    deadline = time.monotonic() + float(request["timeout_s"])
    denied_functions = set(request["denied_functions"])
    denied: list[str] = []

    def authorize(action: int, arg1: str | None, arg2: str | None, db_name: str | None, _source: str | None) -> int:
        if action in ALLOWED:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ and db_name in ("SUPPLYCHAIN", None):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            denied.append(f"reading {arg1} (only the SUPPLYCHAIN tables can be read)")
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in denied_functions:
            return sqlite3.SQLITE_OK
        denied.append(ACTION_NAMES.get(action, f"action {action}") + (f" {arg2 or arg1}" if arg2 or arg1 else ""))
        return sqlite3.SQLITE_DENY

    conn = sqlite3.connect(":memory:", isolation_level=None, uri=True)
    uri = "file:" + quote(str(Path(request["supplychain"]).resolve())) + "?mode=ro"
    conn.execute("ATTACH DATABASE ? AS SUPPLYCHAIN", (uri,))
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_SQL_VALUE_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 1)
    conn.execute(f"PRAGMA hard_heap_limit={MAX_HEAP_BYTES}")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA query_only=ON")
    conn.set_authorizer(authorize)
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
    try:
        cur = conn.execute(request["sql"], request.get("params") or {})
        columns = [d[0] for d in cur.description or []]
        result = capped_result(columns, iter(cur.fetchone, None), int(request["max_rows"]))
    except (sqlite3.Error, sqlite3.Warning, MemoryError, OverflowError) as exc:
        text = str(exc)
        if "one statement at a time" in text:
            return {"refused": f"refused: one statement only ({text})"}
        if denied:
            return {"refused": "refused: run_sql runs one read-only query over SUPPLYCHAIN; not allowed: "
                               f"{denied[0]}"}
        if "interrupted" in text.lower():
            return {"timeout": True}
        if "too big" in text.lower():
            return {"refused": f"stopped: a value in the query grew past {MAX_SQL_VALUE_BYTES:,} bytes, the "
                               "limit for any string or blob run_sql builds"}
        if isinstance(exc, MemoryError) or "out of memory" in text.lower():
            return {"refused": "stopped: the query needed more memory than run_sql allows; select less"}
        return {"refused": f"the database rejected the query: {text}"}
    return {"columns": result.columns, "rows": [[_plain(v) for v in r] for r in result.rows],
            "truncated": result.truncated, "note": result.note}


def answer_one(line: str) -> WorkerAnswer:
    try:
        request: WorkerRequest = json.loads(line)
        return run(request)
    except MemoryError:
        return {"refused": "stopped: the query needed more memory than run_sql allows; select less"}
    except Exception as exc:  # noqa: BLE001 - the caller gets a refusal to show the model, never a traceback
        return {"refused": f"the query could not be run ({type(exc).__name__}: {str(exc)[:200]})"}


def main() -> None:
    """One request per line on stdin, one answer per line on stdout, until stdin closes. The
    caller reuses the process between queries (no start-up cost each time) and kills it at a
    deadline; every query opens its own connection, so nothing of one query outlives it."""
    _limit_address_space()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer_one(line), default=str) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

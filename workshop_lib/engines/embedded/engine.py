"""The embedded engine: a SQLite file with sqlite-vec, FTS5 and the model as a SQL function.

The stock sqlite3 module of many Pythons cannot load extensions; sqlean.py can, and it
ships FTS5. SUPPLYCHAIN lives in a second file attached as schema SUPPLYCHAIN, so the
same qualified names (SUPPLYCHAIN.VESSELS) work here and on Oracle.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import sqlean
import sqlite_vec

from workshop_lib import config
from workshop_lib.engines.base import DatabaseFault, Engine, ResetPlan, StoreMissing
from workshop_lib.engines.embedded import embedder, text_query
from workshop_lib.engines.embedded import sql as statements_module

# Functions a read-only query may not call (extension loading, file access).
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "fileio_read", "fileio_write", "fileio_append",
                     "fileio_mkdir", "fileio_symlink", "fileio_ls", "fileio_scan", "edit", "eval", "define"}

MAX_QUERY_WORKERS = 2  # run_sql worker processes at once (each bounded in memory); more wait their turn
_QUERY_WORKERS = threading.BoundedSemaphore(MAX_QUERY_WORKERS)


def _run_worker(request: dict, timeout_s: float) -> dict | None:
    """The worker's answer, or None when it did not answer within timeout_s (it is killed)."""
    package_root = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "workshop_lib.engines.embedded.query_worker"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = proc.communicate(json.dumps(request).encode("utf-8", "surrogatepass"), timeout=max(timeout_s, 0.01))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    if proc.returncode != 0 or not out:
        # Killed by the OS (memory) or crashed: the query did not finish within its limits.
        detail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        return {"refused": f"stopped: the query's worker failed ({detail[0][:200]}); select less"}
    return json.loads(out)


try:  # POSIX advisory locks mark open stores for `workshop reset` (absent on Windows)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]  # Windows: open_elsewhere() then reports False

STORE_FILE = "workshop.sqlite"
SUPPLYCHAIN_FILE = "supplychain.sqlite"
# SQLite's own wait per attempt, then our retries with backoff up to LOCK_WAIT_S in all:
# SQLite's busy handler alone lets tight writer loops starve a third writer past any timeout.
BUSY_TIMEOUT_MS = 2000
LOCK_WAIT_S = 60.0


def store_files(path: Path) -> list[Path]:
    """Every file the workshop writes for a store at `path` (what `workshop reset` deletes)."""
    out = []
    for base in (path, path.parent / SUPPLYCHAIN_FILE):
        out += [base, Path(f"{base}-wal"), Path(f"{base}-shm"), Path(f"{base}-journal")]
    return out + [lock_file(path)]


def lock_file(path: Path) -> Path:
    return Path(f"{path}.lock")


def open_elsewhere(path: Path) -> bool:
    """True when another open engine (any process) holds the store's lock file."""
    lf = lock_file(path)
    if fcntl is None or not lf.exists():
        return False
    with open(lf, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False


class EmbeddedEngine(Engine):
    """Thread-safe: one re-entrant lock serialises every use of the connection, including
    statements that call the embed() SQL function (a thread waiting on SQLite's connection
    mutex while holding the GIL deadlocks with embed() needing the GIL, so nothing may
    reach the connection unlocked)."""

    scratch_copies = True  # a SQLite file in any folder

    name = "embedded"
    serialise_requests = False  # every statement takes self._lock; run_sql runs in a worker process
    sql_module = statements_module
    ping_sql = statements_module.PING
    dim = embedder.DIM
    model_name = embedder.MODEL_NAME
    # A full-text expression that matches nothing, for questions with no searchable term.
    no_match_expression = '""'

    def __init__(self, path: str | Path | None = None, *, create: bool = True) -> None:
        """`path` is a folder (the store is workshop.sqlite in it) or a store file (.sqlite/.db),
        honoured as named; SUPPLYCHAIN is supplychain.sqlite beside it. create=True (the default)
        creates the file and the store's missing tables; create=False raises StoreMissing
        instead of creating a missing store (doctor)."""
        super().__init__()
        self._lock = threading.RLock()
        self._depth = 0
        self._embed_error: BaseException | None = None
        self._lock_fh: IO[str] | None = None
        target = Path(path) if path is not None else config.data_dir()
        if target.suffix in (".sqlite", ".db"):
            folder, self.path = target.parent, target
        else:
            folder, self.path = target, target / STORE_FILE
        self.folder = folder
        self.supplychain_path = folder / SUPPLYCHAIN_FILE
        if not create and not self.path.exists():
            missing = [("memory store", self.path)]
            if not self.supplychain_path.exists():
                missing.append(("SUPPLYCHAIN seed", self.supplychain_path))
            raise StoreMissing(f"The memory store {self.path} does not exist yet. Fix: run `workshop setup`.",
                               missing)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self._open()
        except (OSError, sqlean.Error) as exc:
            raise self._fault(exc) from exc
        if create:
            self.create_store()  # the file is the learner's own: create=True makes its tables too

    def _open(self) -> None:
        # isolation_level=None: we open and close transactions ourselves.
        self.conn = sqlean.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self.conn.enable_load_extension(True)
        sqlite_vec.load(self.conn)
        self.conn.enable_load_extension(False)
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # Switching a new file to WAL needs an exclusive lock, and SQLite does not always wait
        # for it (two first-time setups at once): retry like a write.
        self._retry_locked(lambda: self.conn.execute("PRAGMA journal_mode=WAL"))
        # Memory-map the store (up to 1 GiB): a vec0 KNN reads every vector of a partition,
        # and mapped pages spare it a read() and a copy per page (1.5x at 100k memories, bench/).
        self.conn.execute("PRAGMA mmap_size=1073741824")
        self.conn.execute("ATTACH DATABASE ? AS SUPPLYCHAIN", (str(self.supplychain_path),))
        self._retry_locked(lambda: self.conn.execute("PRAGMA SUPPLYCHAIN.journal_mode=WAL"))

        def embed_sql(text: Any) -> bytes | None:
            try:
                return _embed_sql(text)
            except BaseException as exc:
                # SQLite reports only "user-defined function raised exception"; keep the cause.
                self._embed_error = exc
                raise

        self.conn.create_function("embed", 1, embed_sql, deterministic=True)
        self._inode = os.stat(self.path).st_ino
        if fcntl is not None:
            # A shared lock for as long as this engine is open: `workshop reset` tries an
            # exclusive one to see whether kernels still have the store open.
            self._lock_fh = open(lock_file(self.path), "a+")  # noqa: SIM115 - held (locked) until close()
            fcntl.flock(self._lock_fh, fcntl.LOCK_SH)

    # ---------------------------------------------------------------- faults
    def _fault(self, exc: BaseException) -> BaseException:
        """The error a user should see for a driver error: file, cause and fix; else exc itself."""
        text = str(exc)
        low = text.lower()
        if isinstance(exc, DatabaseFault):
            return exc
        if "user-defined function raised exception" in low and self._embed_error is not None:
            cause, self._embed_error = self._embed_error, None
            if isinstance(cause, embedder.ModelUnavailable):
                return cause
            return RuntimeError(f"The embedding function embed() failed: {cause!r}")
        if isinstance(exc, PermissionError) or "readonly" in low or "unable to open" in low:
            return DatabaseFault(
                self.folder, f"cannot open or write the workshop database there ({text})",
                f"make the folder and its files writable (`chmod -R u+w {self.folder}`) or point "
                "WORKSHOP_DATA_DIR at a writable folder")
        if "disk is full" in low or "database or disk is full" in low:
            return DatabaseFault(self.path, f"the disk is full ({text})", "free disk space, then retry")
        if "database is locked" in low or "database table is locked" in low:
            return DatabaseFault(
                self.path, f"another process kept the database locked (waited up to {LOCK_WAIT_S:.0f} s: {text})",
                "another notebook kernel, `workshop setup` or `workshop serve` is writing: wait for it "
                "to finish, or stop it (restart the other kernels), then retry")
        if any(m in low for m in ("malformed", "not a database", "blob read error", "disk i/o error",
                                  "corrupt")):
            broken = self._broken_file()
            if broken == self.supplychain_path:
                return DatabaseFault(
                    broken, f"the SUPPLYCHAIN sample database is damaged ({text}); it holds no memories",
                    f"delete {broken} and run `workshop setup`, which rebuilds it (your memories are kept)")
            return DatabaseFault(
                self.path, f"the memory store is damaged ({text})",
                "restore the file from a backup if you have one; otherwise `workshop reset --yes` then "
                "`workshop setup` (this deletes stored memories). `workshop doctor` runs the integrity checks")
        return exc

    def _broken_file(self) -> Path:
        # A damaged header makes SQLite fail for every attached database alike: read the
        # files' own headers first, so the message blames the right one.
        for path in (self.path, self.supplychain_path):
            try:
                with open(path, "rb") as fh:
                    head = fh.read(16)
            except OSError:
                continue
            if head and head != b"SQLite format 3\x00":
                return path
        for schema, path in (("SUPPLYCHAIN", self.supplychain_path), ("main", self.path)):
            try:
                row = self.conn.execute(f"PRAGMA {schema}.quick_check(1)").fetchone()
                if row and row[0] != "ok":
                    return path
            except sqlean.Error:
                return path
        return self.path

    def _check_not_replaced(self) -> None:
        # After `workshop reset` this connection would keep writing to a deleted file: refuse.
        try:
            same = os.stat(self.path).st_ino == self._inode
        except FileNotFoundError:
            same = False
        if not same:
            raise DatabaseFault(
                self.path, "the database was reset or deleted by another process after this one opened it, "
                "so anything written here would be lost",
                "restart this kernel (Kernel > Restart Kernel) or process, then run again from the top")

    # ---------------------------------------------------------------- interface
    def statements(self, prefix: str, dim: int):
        return statements_module.statements(prefix, dim)

    def seed_supplychain(self, tables, rows, *, progress: bool = True) -> dict[str, int]:
        from workshop_lib.engines.embedded import seed

        return seed.seed(self, tables, rows, progress=progress)

    def object_names(self) -> set[str]:
        with self.cursor() as cur:
            return {r[0].upper() for r in cur.execute(statements_module.EXISTING_OBJECTS)}

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

    def read_only_query(self, sql: str, *, max_rows: int = 50, timeout_s: float = 5.0):
        """One query over the SUPPLYCHAIN database, read-only by SQLite's own checks, run in a
        worker process (query_worker.py) that is killed at timeout_s: an authorizer that allows
        only SELECT, reads of SUPPLYCHAIN tables and ordinary functions (no writes, PRAGMA,
        ATTACH, transactions or load_extension), PRAGMA query_only, one statement only, a row
        and byte cap, and limits on value size and memory. This connection and its lock are
        not used, so a slow query holds up no other request."""
        from workshop_lib.parts.agent.readonly import QueryResult, SqlRefused, clean

        text, max_rows = clean(sql, max_rows)
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= 600:
            raise SqlRefused(f"timeout_s must be a number of seconds in (0, 600], got {timeout_s!r}")
        started = time.monotonic()
        if not _QUERY_WORKERS.acquire(timeout=timeout_s):
            raise SqlRefused(f"busy: {MAX_QUERY_WORKERS} queries are running; try again in a few seconds")
        try:
            request = {"sql": text, "max_rows": max_rows, "timeout_s": timeout_s,
                       "supplychain": str(self.supplychain_path), "denied_functions": sorted(_DENIED_FUNCTIONS)}
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

    def nearest_ports(self, lon: float, lat: float) -> list[tuple]:
        """(port name, UN/LOCODE, km) of the three ports nearest a point (haversine in SQL)."""
        return self.query(self.sql_module.NEAREST_PORTS, {"lon": float(lon), "lat": float(lat)})

    @contextlib.contextmanager
    def unordered_reads_reversed(self) -> Iterator[bool]:
        # SQLite's switch for exactly this: unordered SELECTs (and ties) come back reversed.
        with self._lock:
            self.conn.execute("PRAGMA reverse_unordered_selects=ON")
            try:
                yield True
            finally:
                self.conn.execute("PRAGMA reverse_unordered_selects=OFF")

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
        with self._lock:
            self._check_not_replaced()
            cur = self.conn.cursor()
            try:
                yield cur
            except sqlean.Error as exc:
                raise self._fault(exc) from exc
            finally:
                cur.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """BEGIN IMMEDIATE ... COMMIT under the engine's lock. Nested calls on the same thread
        join the outer transaction. Waiting for another process's write lock is retried with
        backoff for up to LOCK_WAIT_S; a rollback runs only while a transaction is still open
        (SQLite ends it by itself on some errors, e.g. a full disk), and the original error
        is what the caller sees."""
        with self._lock:
            if self._depth:
                self._depth += 1
                cur = self.conn.cursor()
                try:
                    yield cur
                finally:
                    self._depth -= 1
                    cur.close()
                return
            self._check_not_replaced()
            cur = self.conn.cursor()
            try:
                self._retry_locked(lambda: cur.execute("BEGIN IMMEDIATE"))
                self._depth = 1
                try:
                    yield cur
                    self._retry_locked(lambda: cur.execute("COMMIT"))
                except BaseException:
                    if self.conn.in_transaction:
                        with contextlib.suppress(sqlean.Error):
                            cur.execute("ROLLBACK")
                    raise
            except sqlean.Error as exc:
                raise self._fault(exc) from exc
            finally:
                self._depth = 0
                cur.close()

    @staticmethod
    def _retry_locked(step) -> None:
        deadline = time.monotonic() + LOCK_WAIT_S
        delay = 0.005
        while True:
            try:
                step()
                return
            except sqlean.OperationalError as exc:
                if "locked" not in str(exc).lower() or time.monotonic() >= deadline:
                    raise
            # Jittered exponential backoff, so waiting writers do not retry in lockstep.
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.25)

    @contextlib.contextmanager
    def schema_lock(self) -> Iterator[None]:
        """Hold the write lock while the store checks and creates its schema (see MemoryStore)."""
        with self.transaction():
            yield

    def insert_returning_seq(self, cur, sql: str, params: dict) -> int:
        cur.execute(sql, params)
        return int(cur.lastrowid)

    def vector_param(self, values: list[float]) -> bytes:
        return np.asarray(values, dtype=np.float32).tobytes()

    def embed(self, texts: list[str]) -> list[list[float]]:
        return embedder.embed(list(texts)).tolist()

    def embed_for_store(self, texts: list[str]) -> list[Any]:
        """Vectors computed before the write transaction, so a bulk add holds the write lock
        only for its inserts (None: no direction, the text stays keyword-searchable only)."""
        out: list[Any] = []
        for i in range(0, len(texts), 256):
            vecs = embedder.embed(texts[i:i + 256])
            out += [v if v.any() else None for v in vecs]
        return out

    def keyword_expression(self, text: str) -> str | None:
        return text_query.keyword_expression(text)

    def count_tokens(self, text: str) -> int:
        return embedder.count_tokens(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return embedder.token_spans(text)

    def describe(self) -> str:
        return f"{self.path} with {self.model_name} ({self.dim} dims)"

    # ---------------------------------------------------------------- data dictionary
    def data_dictionary(self, owner: str) -> dict:
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
        with self._lock:
            return self._data_dictionary(owner, rows)

    def _data_dictionary(self, owner: str, rows) -> dict:
        col_comments = {
            (t, c): text
            for t, c, text in self.query(
                "SELECT table_name, column_name, comments FROM SUPPLYCHAIN.ALL_COL_COMMENTS WHERE owner = :o",
                {"o": owner},
            )
        }
        tables, columns = [], []
        fks: list[dict[str, Any]] = []
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

    def extra_checks(self) -> list:
        """Integrity lines for `workshop doctor`: both files, the full-text and the KNN index."""
        from workshop_lib.engines.base import Check

        out = []
        for schema, path, fix in (
            ("main", self.path, "restore it from a backup, or `workshop reset --yes` then `workshop setup` "
                                "(deletes stored memories)"),
            ("SUPPLYCHAIN", self.supplychain_path, f"delete {self.supplychain_path} and run `workshop setup` "
                                                   "(it is rebuilt; memories are kept)"),
        ):
            try:
                with self.cursor() as cur:
                    rows = [r[0] for r in cur.execute(statements_module.QUICK_CHECK.replace("{schema}", schema))]
                ok = rows == ["ok"]
                out.append(Check(f"integrity of {path.name}", ok, "quick_check ok" if ok else "; ".join(rows)[:300],
                                 fix))
            except Exception as exc:  # noqa: BLE001 - doctor reports every failure
                out.append(Check(f"integrity of {path.name}", False, str(exc).splitlines()[0], fix))
        store_fix = ("the memory store's indexes are damaged: restore the file from a backup, or `workshop reset "
                     "--yes` then `workshop setup` (deletes stored memories)")
        p = self._store.prefix if self._store is not None else ""
        try:
            with self.transaction() as cur:  # FTS5's integrity-check is an INSERT: it needs a write transaction
                cur.execute(statements_module.FTS_INTEGRITY.replace("{p}", p))
            out.append(Check("full-text index", True, "FTS5 integrity-check ok"))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("full-text index", False, str(exc).splitlines()[0], store_fix))
        try:
            with self.cursor() as cur:
                n, _ = cur.execute(statements_module.KNN_READ_ALL.replace("{p}", p)).fetchone()
                want = cur.execute(statements_module.KNN_EXPECTED.replace("{p}", p)).fetchone()[0]
            out.append(Check("nearest-neighbour index", n == want, f"{n} vectors read, {want} expected", store_fix))
        except Exception as exc:  # noqa: BLE001
            out.append(Check("nearest-neighbour index", False, str(exc).splitlines()[0], store_fix))
        return out

    @classmethod
    def reset_plan(cls, *, force: bool = False) -> ResetPlan:
        """The workshop's own database files in the data folder (never the folder itself),
        refused while another process (a kernel, `workshop serve`) has the store open, unless force."""
        store_path = config.data_dir() / STORE_FILE
        files = [f for f in store_files(store_path) if f.exists()]
        if not files:
            return ResetPlan("", nothing=f"Nothing to delete: no workshop database in {config.data_dir()}.")
        refused = "" if force or not open_elsewhere(store_path) else (
            f"{store_path} is open in another process (a notebook kernel, `workshop serve` or "
            "setup). Resetting now would lose what it writes next. Fix: shut down those kernels "
            "(Kernel > Shut Down Kernel) and servers, then run `workshop reset` again "
            "(or pass --force, then restart them).")
        after = "Kernels that still have the old database open now refuse to write: restart them." if force else ""
        return ResetPlan("the workshop database files " + ", ".join(str(f) for f in files), refused=refused,
                         files=files, after=after)

    def close(self) -> None:
        with self._lock:
            self.conn.close()
            if self._lock_fh is not None:
                self._lock_fh.close()
                self._lock_fh = None


def _embed_sql(text: Any) -> bytes | None:
    """SQL function embed(text): the model's vector as sqlite-vec's float32 blob."""
    if text is None:
        return None
    vec = embedder.embed([str(text)])[0]
    # Text with no known token (e.g. only control characters) has no direction: NULL,
    # which the statements treat as "nothing to compare".
    return vec.tobytes() if vec.any() else None

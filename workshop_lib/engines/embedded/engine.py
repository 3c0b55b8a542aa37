"""The embedded engine: a SQLite file with sqlite-vec, FTS5 and the model as a SQL function.

The stock sqlite3 module of many Pythons cannot load extensions; sqlean.py can, and it
ships FTS5. SUPPLYCHAIN lives in a second file attached as schema SUPPLYCHAIN, so the
same qualified names (SUPPLYCHAIN.VESSELS) work here and on Oracle.
"""
from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import sqlean
import sqlite_vec

from workshop_lib import config
from workshop_lib.engines.base import DatabaseFault, Engine, EngineTraits, MemoryFactory, ResetPlan, StoreMissing
from workshop_lib.engines.database import TracedCursor
from workshop_lib.engines.embedded import embedder, text_query
from workshop_lib.engines.embedded import sql as statements_module
from workshop_lib.engines.embedded.backend import EmbeddedBackend
from workshop_lib.engines.embedded.supplychain import EmbeddedSupplyChain
from workshop_lib.engines.rows import ValueRow, maybe_as
from workshop_lib.engines.statement_sets import EngineStatements, SupplyChainStatements

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


def reset_plan(force: bool = False) -> ResetPlan:
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



class EmbeddedEngine(Engine):
    """Thread-safe: one re-entrant lock serialises every use of the connection, including
    statements that call the embed() SQL function (a thread waiting on SQLite's connection
    mutex while holding the GIL deadlocks with embed() needing the GIL, so nothing may
    reach the connection unlocked)."""

    name = "embedded"
    # A SQLite file in any folder makes a scratch copy; every statement takes self._lock and
    # run_sql runs in a worker process, so requests need not be serialised.
    traits = EngineTraits(reset_plan=reset_plan, scratch_copies=True, serialise_requests=False)
    statements = EngineStatements(
        store=statements_module.statements, memory=statements_module.memory_statements,
        docs=statements_module.DOCS, catalog=statements_module.CATALOG, chat=statements_module.CHAT,
        supplychain=SupplyChainStatements(count=statements_module.sc_count, first_rows=statements_module.sc_select),
        agent_queries=statements_module.AGENT_QUERIES, ping=statements_module.PING,
        keyword_expression=text_query.keyword_expression,
        no_match='""',  # an FTS5 phrase of nothing: matches no row
    )

    def __init__(self, path: str | Path | None = None, *, create: bool = True,
                 memory: MemoryFactory | None = None) -> None:
        """`path` is a folder (the store is workshop.sqlite in it) or a store file (.sqlite/.db),
        honoured as named; SUPPLYCHAIN is supplychain.sqlite beside it. create=True (the default)
        creates the file (connect() then creates the store's missing tables); create=False raises
        StoreMissing instead of creating a missing store (doctor). `memory`: see Engine."""
        super().__init__(memory)
        self.model = embedder.WordLlamaModel(self.name)
        self.supplychain = EmbeddedSupplyChain(self, self._tracer, self._read_cursor)
        self.backend = EmbeddedBackend(self, self._read_cursor)
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

    def _open(self) -> None:
        # isolation_level=None: we open and close transactions ourselves.
        self._conn = sqlean.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._conn.enable_load_extension(True)
        sqlite_vec.load(self._conn)
        self._conn.enable_load_extension(False)
        self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # Switching a new file to WAL needs an exclusive lock, and SQLite does not always wait
        # for it (two first-time setups at once): retry like a write.
        self._retry_locked(lambda: self._conn.execute("PRAGMA journal_mode=WAL"))
        # Memory-map the store (up to 1 GiB): a vec0 KNN reads every vector of a partition,
        # and mapped pages spare it a read() and a copy per page (1.5x at 100k memories, bench/).
        self._conn.execute("PRAGMA mmap_size=1073741824")
        # Deleted content is overwritten with zeros, not left in free pages and cells, so erased
        # words do not stay in the file (erase_user; https://sqlite.org/pragma.html#pragma_secure_delete).
        self._conn.execute("PRAGMA secure_delete=ON")
        self._conn.execute("ATTACH DATABASE ? AS SUPPLYCHAIN", (str(self.supplychain_path),))
        self._retry_locked(lambda: self._conn.execute("PRAGMA SUPPLYCHAIN.journal_mode=WAL"))

        def embed_sql(text: Any) -> bytes | None:
            try:
                return _embed_sql(text)
            except BaseException as exc:
                # SQLite reports only "user-defined function raised exception"; keep the cause.
                self._embed_error = exc
                raise

        self._conn.create_function("embed", 1, embed_sql, deterministic=True)
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
                row = maybe_as(ValueRow, self._conn.execute(f"PRAGMA {schema}.quick_check(1)").fetchone())
                if row and row.value != "ok":
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
    @contextlib.contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            self._check_not_replaced()
            cur = self._conn.cursor()
            try:
                yield TracedCursor(cur, self._tracer)
            except sqlean.Error as exc:
                raise self._fault(exc) from exc
            finally:
                cur.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        """BEGIN IMMEDIATE ... COMMIT under the engine's lock. Nested calls on the same thread
        join the outer transaction. Waiting for another process's write lock is retried with
        backoff for up to LOCK_WAIT_S; a rollback runs only while a transaction is still open
        (SQLite ends it by itself on some errors, e.g. a full disk), and the original error
        is what the caller sees."""
        with self._lock:
            if self._depth:
                self._depth += 1
                cur = self._conn.cursor()
                try:
                    yield TracedCursor(cur, self._tracer)
                finally:
                    self._depth -= 1
                    cur.close()
                return
            self._check_not_replaced()
            cur = self._conn.cursor()
            try:
                self._retry_locked(lambda: cur.execute("BEGIN IMMEDIATE"))
                self._depth = 1
                try:
                    yield TracedCursor(cur, self._tracer)
                    self._retry_locked(lambda: cur.execute("COMMIT"))
                except BaseException:
                    if self._conn.in_transaction:
                        with contextlib.suppress(sqlean.Error):
                            cur.execute("ROLLBACK")
                    raise
            except sqlean.Error as exc:
                raise self._fault(exc) from exc
            finally:
                self._depth = 0
                cur.close()

    @staticmethod
    def _retry_locked(step: Callable[[], object]) -> None:
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

    def __str__(self) -> str:
        return f"{self.path} with {self.model.name} ({self.model.dim} dims)"

    def close(self) -> None:
        with self._lock:
            self._conn.close()
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

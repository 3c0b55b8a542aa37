"""The Oracle connection and its cursor: the driver check, connecting (with retries, a deadline and
a wallet), the cursor that binds only the names a statement uses, and the helpers that read values
back. The engine (engine.py), its backend, model and SUPPLYCHAIN schema all build on this module;
it imports none of them, so they import each other in one direction only."""
from __future__ import annotations

import functools
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import oracledb

from workshop_lib import config
from workshop_lib.engines.database import ReadsFromRaw, Tracer, check_binds, statement_binds
from workshop_lib.engines.dbtypes import Params, Row
from workshop_lib.engines.oracle.errors import OracleWorkshopError, codes
from workshop_lib.engines.readonly import MAX_VALUE_BYTES, PartialValue
from workshop_lib.errors import WorkshopError
from workshop_lib.progress import progress as tqdm

if TYPE_CHECKING:
    from workshop_lib.engines.oracle.engine import OracleEngine

# CLOB and BLOB columns come back as str and bytes, not LOB locators that each cost a round
# trip to read: every execute of this engine passes fetch_lobs=False (python-oracledb 3.4+,
# Cursor.execute's fetch_lobs parameter), never oracledb.defaults.fetch_lobs, which would
# change every other user of the driver in the same process.
FETCH_LOBS = False
MIN_DRIVER = (3, 4)  # the first python-oracledb whose Cursor.execute takes fetch_lobs


def require_driver(version: str = oracledb.__version__) -> None:
    """A clear error instead of a TypeError deep in the driver when python-oracledb is too old."""
    found = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    if found < MIN_DRIVER:
        raise OracleConnectionError(
            f"python-oracledb {version} is installed; the workshop needs {MIN_DRIVER[0]}.{MIN_DRIVER[1]} or later. "
            "Fix: `make install` (it installs the locked version), or `pip install -U oracledb`.")

DEFAULT_CONNECT_TIMEOUT = 60.0
# Oracle stores '' as NULL. The store contract keeps explicit empty content, so the
# engine writes this marker instead and reads it back as "" (see read_text).
EMPTY_TEXT = "\u2400"
# Strings longer than this many bytes are bound as CLOBs (a VARCHAR2 bind stops at 4000).
_MAX_VARCHAR_BYTES = 4000
# Errors that mean "not reachable yet": retried until the timeout, then reported. The
# second line is what a database says while it shuts down or restarts (the container's
# first start restarts it for vector memory): shutdown in progress (01089, 01090),
# database not mounted / not open (01094 is "ALTER DATABASE CLOSE in progress"), and the
# listener refusing new sessions while the instance is blocked or not registered
# (12516, 12518, 12519, 12520, 12521).
RETRYABLE = {"DPY-6005", "ORA-12541", "DPY-6000", "ORA-12514", "ORA-01033", "ORA-01034", "ORA-01109",
             "ORA-12537", "ORA-12528", "DPY-4011", "ORA-03113", "ORA-03114", "ORA-12170", "DPY-6001",
             "ORA-01089", "ORA-01090", "ORA-01094", "ORA-12516", "ORA-12518", "ORA-12519", "ORA-12520",
             "ORA-12521"}
REQUIRED_PRIVILEGES = ("CREATE SESSION", "CREATE TABLE", "CREATE SEQUENCE", "CREATE VIEW",
                       "CREATE PROCEDURE", "CREATE MINING MODEL", "CTXAPP")
SUPPLYCHAIN_OWNER = "SUPPLYCHAIN"


class OracleConnectionError(WorkshopError, RuntimeError):
    """The database could not be reached (or ORACLE_DSN is not set)."""


# --------------------------------------------------------------------------- settings
def connect_kwargs(user: str, password: str, dsn: str) -> dict[str, Any]:
    """oracledb.connect() arguments, wallet / TLS settings included when configured."""
    kwargs: dict[str, Any] = {"user": user, "password": password, "dsn": dsn, "tcp_connect_timeout": 5}
    config_dir = os.environ.get("ORACLE_CONFIG_DIR") or os.environ.get("ORACLE_WALLET_DIR")
    if config_dir:
        kwargs["config_dir"] = os.path.expanduser(config_dir)
    if os.environ.get("ORACLE_WALLET_DIR"):
        kwargs["wallet_location"] = os.path.expanduser(os.environ["ORACLE_WALLET_DIR"])
    if os.environ.get("ORACLE_WALLET_PASSWORD"):
        kwargs["wallet_password"] = os.environ["ORACLE_WALLET_PASSWORD"]
    return kwargs


def require_dsn(dsn: str | None = None) -> str:
    dsn = (dsn if dsn is not None else config.oracle_setting("ORACLE_DSN")).strip()
    if not dsn:
        raise OracleConnectionError(
            "WORKSHOP_ENGINE is 'oracle' but ORACLE_DSN is not set. Set it to your database, e.g. "
            "`export ORACLE_DSN=localhost:1521/FREEPDB1` for the workshop container (start it with "
            "`docker compose -f .devcontainer/docker-compose.yml up -d oracle` and run `make setup-oracle`), "
            "or use the embedded engine: `export WORKSHOP_ENGINE=embedded`."
        )
    return dsn


def _connect_within(kwargs: dict[str, Any], seconds: float) -> oracledb.Connection:
    """oracledb.connect() bounded by `seconds` in all: tcp_connect_timeout covers only the TCP
    handshake, and a listener that accepts and never answers would hang the caller for minutes.
    The attempt runs in a daemon thread; past the deadline it is abandoned (its socket closes
    when the server or the OS gives up) and the caller gets a TimeoutError."""
    box: dict[str, Any] = {}

    def attempt() -> None:
        try:
            box["conn"] = oracledb.connect(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=attempt, name="oracle-connect", daemon=True)
    worker.start()
    worker.join(max(seconds, 0.0))
    if worker.is_alive():
        raise TimeoutError(f"no answer within {seconds:.0f} s")
    if "error" in box:
        raise box["error"]
    conn: oracledb.Connection = box["conn"]
    return conn


def _refused(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "refused" in text or "errno 111" in text or "errno 61" in text


def connect_oracle(user: str, password: str, dsn: str, *, timeout: float | None = None,
                   progress: bool = True, what: str = "Oracle") -> oracledb.Connection:
    """Connect in thin mode within `timeout` seconds in all (attempts included), retrying while
    the database is starting. A closed port ("connection refused") fails at once: nothing
    listens there, and waiting would only delay the message.

    Never falls back to another engine: the error names the DSN and the fix.
    """
    if timeout is None:
        timeout = float(os.environ.get("ORACLE_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT))
    kwargs = connect_kwargs(user, password, dsn)
    deadline = time.monotonic() + timeout
    last: BaseException
    with _WaitBar(progress, timeout, f"Waiting for {what} at {dsn}") as bar:
        while True:
            remaining = deadline - time.monotonic()
            kwargs["tcp_connect_timeout"] = max(0.5, min(5.0, remaining))
            try:
                return _connect_within(kwargs, remaining)
            except TimeoutError as exc:
                last = exc
                break
            except oracledb.Error as exc:
                last = exc
                if not _worth_retrying(exc, deadline):
                    break
            bar.wait(deadline)
    _raise_connect_failure(last, user, dsn, timeout)


def _worth_retrying(exc: oracledb.Error, deadline: float) -> bool:
    """A database starting up (its errors in RETRYABLE) before the deadline; never a closed port."""
    return not _refused(exc) and bool(set(codes(exc)) & RETRYABLE) and time.monotonic() < deadline


class _WaitBar:
    """Waits between connection attempts; from the first wait on (with `show`), a bar of the seconds spent."""

    def __init__(self, show: bool, timeout: float, desc: str) -> None:
        self.show, self.timeout, self.desc = show, timeout, desc
        self.bar: Any = None

    def __enter__(self) -> _WaitBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def wait(self, deadline: float) -> None:
        if self.bar is None and self.show:
            self.bar = tqdm(total=int(self.timeout), desc=self.desc, unit="s",
                            bar_format="{desc}: {n_fmt}/{total_fmt} s {bar}")
        time.sleep(max(0.0, min(2.0, deadline - time.monotonic())))
        if self.bar is not None:
            self.bar.n = min(int(self.timeout), int(self.timeout - (deadline - time.monotonic())))
            self.bar.refresh()


def _raise_connect_failure(last: BaseException, user: str, dsn: str, timeout: float) -> NoReturn:
    """The error for the last failed attempt: a silent listener, a closed port, a database that
    never came up, or Oracle's own error; each names the DSN and the fix."""
    fix = ("Fix: start the database container (`docker compose -f .devcontainer/docker-compose.yml up -d oracle`, "
           "then wait for `docker ps` to show it healthy) and run `make setup-oracle`; in a Codespace, run "
           "`docker ps` to check the oracle service. Check that ORACLE_DSN names the right host, port and "
           "service (FREEPDB1). The workshop does not fall back to the embedded engine: to use it instead, "
           "set WORKSHOP_ENGINE=embedded.")
    if isinstance(last, TimeoutError):
        raise OracleConnectionError(
            f"Could not connect to Oracle at ORACLE_DSN={dsn!r}: the server accepted the connection but did "
            f"not answer within {timeout:.0f} s (the deadline, ORACLE_CONNECT_TIMEOUT). Something that is not "
            f"a ready Oracle listener is on that port, or the database is hung. {fix}") from None
    if _refused(last):
        raise OracleConnectionError(
            f"Could not connect to Oracle at ORACLE_DSN={dsn!r}: connection refused (nothing listens on that "
            f"host and port). {fix}") from last
    found = set(codes(last))
    if found & RETRYABLE:
        raise OracleConnectionError(
            f"Could not reach Oracle at ORACLE_DSN={dsn!r} within {int(timeout)} s ({str(last).splitlines()[0]}). "
            + fix) from last
    raise OracleWorkshopError(f"connect as {user} to {dsn}", last) from last


# --------------------------------------------------------------------------- binds
_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_BIND = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_$#]*)")


def bind_names(statement: str) -> frozenset[str]:
    """The `:name` binds a statement uses (engines/database.py reads them, for both dialects).
    At run time the driver's own parser names them (OracleCursor._binds)."""
    return statement_binds(statement)


@functools.lru_cache(maxsize=512)
def writes_store_content(statement: str) -> bool:
    """True for the store's INSERT / UPDATE of RECORDS.content (where '' must survive)."""
    return bool(re.match(r"\s*(INSERT\s+INTO|UPDATE)\s+\w*RECORDS\b", statement, re.I)) and ":content" in statement


DUPLICATE_KEY = "ORA-00001"  # unique constraint violated


@functools.lru_cache(maxsize=512)
def is_merge(statement: str) -> bool:
    return bool(re.match(r"\s*MERGE\s+INTO\b", _COMMENT.sub(" ", statement), re.I))


@functools.lru_cache(maxsize=512)
def inserts_only_missing(statement: str) -> bool:
    """True for a MERGE whose only action is WHEN NOT MATCHED THEN INSERT (the idempotent
    insert: DOCS.CHUNK_INSERT, the embedding cache). Under concurrency its unique-key
    violation means "already inserted by someone else", never lost data. A MERGE that also
    updates, or a plain INSERT, keeps every error."""
    text = _COMMENT.sub(" ", _LITERAL.sub("''", statement))
    return (is_merge(statement) and bool(re.search(r"\bWHEN\s+NOT\s+MATCHED\b", text, re.I))
            and not re.search(r"\bWHEN\s+MATCHED\b", text, re.I))


@functools.lru_cache(maxsize=512)
def embedding_only_binds(statement: str) -> frozenset[str]:
    """Binds whose every use is `VECTOR_EMBEDDING(model USING :name AS data)`.

    The model only reads the start of such a text, so the engine may cut it to
    EMBED_INPUT_CHARS before binding, which keeps it a plain VARCHAR2 however long the
    question is (a longer bind would become a CLOB the model cannot take).
    """
    text = _COMMENT.sub(" ", _LITERAL.sub("''", statement))
    out = set()
    for name in set(_BIND.findall(text)):
        bind = re.escape(name)
        uses = len(re.findall(rf"(?<![:\w]):{bind}(?![\w$#])", text))
        as_input = len(re.findall(rf"\bUSING\s+:{bind}\s+AS\s+data\b", text, re.I))
        if uses and uses == as_input:
            out.add(name)
    return frozenset(out)


class OracleCursor(ReadsFromRaw):
    """A python-oracledb cursor that binds only the names a statement uses.

    The store passes one parameter dict to several statements; oracledb rejects bind
    names a statement does not contain (DPY-4008), so extra names are dropped here.
    Errors come back as OracleWorkshopError: the Oracle message plus the fix.
    """

    def __init__(self, engine: OracleEngine, raw: oracledb.Cursor, tracer: Tracer | None = None) -> None:
        self.engine = engine
        self.raw = raw
        self._tracer = tracer or Tracer()

    def _binds(self, statement: str, params: Any) -> Any:
        """The parameters this statement uses. The driver names them: prepare() parses the
        statement client-side (no round trip) and bindnames() lists its binds in upper case."""
        if params is None or not isinstance(params, dict):
            return params if params is not None else {}
        self.raw.prepare(statement)
        used = {name.upper() for name in self.raw.bindnames()}
        embed_only = embedding_only_binds(statement)
        store_write = writes_store_content(statement)
        return {name: self.engine.bind_value(name, value, embed_only=name in embed_only,
                                             store_content=store_write and name == "content")
                for name, value in params.items() if name.upper() in used}

    def execute(self, statement: str, params: Any = None) -> OracleCursor:
        self._tracer.record(statement, params)
        check_binds(statement, params)  # a bind left out is said plainly, as on the embedded engine
        binds = self._binds(statement, params)
        try:
            self.raw.execute(statement, binds, fetch_lobs=FETCH_LOBS)
        except oracledb.Error as exc:
            if codes(exc)[:1] != [DUPLICATE_KEY] or not is_merge(statement):
                raise OracleWorkshopError("query", exc) from exc
            # Two sessions MERGE-d the same key; both saw no row and the other one committed first.
            if inserts_only_missing(statement):
                return self  # the row this statement wants exists
            try:  # an upsert: run it again; it now sees the committed row and takes WHEN MATCHED
                self.raw.execute(statement, binds, fetch_lobs=FETCH_LOBS)
            except oracledb.Error as again:
                raise OracleWorkshopError("query", again) from again
        return self

    def executemany(self, statement: str, rows: Sequence[Params]) -> None:
        """Run a statement once per row. For an insert-if-missing MERGE, batch errors are on and
        only ORA-00001 is forgiven: two sessions that both saw no row both insert it, and the
        second meets the first's committed key (the row exists, which is all the MERGE wants)."""
        self._tracer.record(statement, rows[0] if rows else None)
        idempotent = inserts_only_missing(statement)
        bound = self._one_type_per_bind([self._binds(statement, r) if isinstance(r, dict) else r for r in rows])
        try:
            self.raw.executemany(statement, bound, batcherrors=idempotent)
            if idempotent:
                other = [e for e in self.raw.getbatcherrors() if codes(e.message)[:1] != [DUPLICATE_KEY]]
                if other:
                    raise OracleWorkshopError("query", f"row {other[0].offset}: {other[0].message}")
        except oracledb.Error as exc:
            raise OracleWorkshopError("query", exc) from exc

    def _one_type_per_bind(self, rows: list[Params]) -> list[Params]:
        """The driver types each bind of a batch from its first row, so a long text bound as a
        CLOB after a short one bound as VARCHAR2 is refused (DPY-3013) before anything is sent.
        When any row of the batch holds a LOB under a name, every text under that name becomes
        a CLOB too, and the bind is declared a CLOB (Cursor.setinputsizes) for rows holding None."""
        lob_names = {name for row in rows if isinstance(row, dict)
                     if isinstance(row, Mapping) for name, value in row.items() if isinstance(value, oracledb.LOB)}
        if not lob_names:
            return rows
        self.raw.setinputsizes(**{name: oracledb.DB_TYPE_CLOB for name in sorted(lob_names)})
        return [{name: self.engine.bind_value(name, value, lob=True) if name in lob_names else value
                 for name, value in row.items()} if isinstance(row, Mapping) else row for row in rows]

    def fetchmany(self, size: int | None = None) -> list[Row]:
        rows: list[Row] = self.raw.fetchmany(size) if size is not None else self.raw.fetchmany()
        return rows


    def __getattr__(self, name: str) -> Any:  # the rest of the driver's cursor, as it types it
        return getattr(self.raw, name)


# --------------------------------------------------------------------------- helpers
AMBIGUOUS = "ORA-00918"  # column ambiguously defined
_QUERY_START = re.compile(r"\s*(SELECT|WITH)\b", re.I)  # what the driver takes for a query


def _within(conn: oracledb.Connection, deadline: float) -> None:
    """Give the next round trip only what is left of the query's deadline (call_timeout is
    per round trip, so resetting it before each one bounds execute plus fetches together)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    conn.call_timeout = max(1, int(remaining * 1000))


def _refusal(exc: BaseException) -> str:
    """What the model reads when the database rejects its query: the cause and the fix."""
    first = str(exc).splitlines()[0]
    if AMBIGUOUS in codes(exc):
        return ("the query names a column that two of its tables have (ORA-00918): qualify it with its table "
                f"alias (v.VOYAGE_ID), and give same-named result columns distinct aliases; the database said: {first}")
    if "ORA-00942" in codes(exc):
        return ("only the SUPPLYCHAIN tables can be read, and this one does not exist or is not one of them "
                f"(ORA-00942); the database said: {first}")
    return ("refused: run_sql runs one read-only query (SELECT or WITH ... SELECT) over SUPPLYCHAIN; "
            f"the database said: {first}")


def render_value(value: Any, before_round_trip: Callable[[], None] | None = None) -> Any:
    """A fetched value as the model should read it: an SDO_GEOMETRY point as its coordinates
    (POINT (longitude latitude) for SRID 4326), another database object as its type and
    attributes, instead of `<oracledb.DbObject ...>`. A LOB is read through its locator, only
    what the model may see (the cap cuts the rest), with its whole size for the cap's note;
    `before_round_trip` runs before each of those two round trips (run_sql's deadline)."""
    if isinstance(value, oracledb.LOB):
        return _read_lob(value, before_round_trip or (lambda: None))
    kind: Any = getattr(value, "type", None)
    if not hasattr(kind, "iscollection"):  # not an oracledb.DbObject (duck-typed: tests use fakes)
        return value
    if kind.name == "SDO_GEOMETRY":
        return _render_geometry(value)
    if kind.iscollection:
        return "[" + ", ".join(str(render_value(v)) for v in value.aslist()[:20]) + "]"
    parts = [f"{a.name}={render_value(getattr(value, a.name))}" for a in kind.attributes[:20]]
    return f"{kind.name}({', '.join(parts)})"


def _read_lob(lob: Any, before_round_trip: Callable[[], None]) -> Any:
    """What the model may see of a LOB (a PartialValue past the cap), in two round trips."""
    before_round_trip()
    size = lob.size()  # characters of a CLOB, bytes of a BLOB (python-oracledb, LOB.size())
    before_round_trip()
    head = lob.read(1, MAX_VALUE_BYTES + 1)
    if size > len(head):
        return PartialValue(head, size, "bytes" if isinstance(head, bytes) else "characters")
    return head


def _render_geometry(value: Any) -> str:
    """An SDO_GEOMETRY: a point as POINT (x y [z]) [SRID n], any other shape by its first ordinates."""
    point = getattr(value, "SDO_POINT", None)
    if point is not None and point.X is not None and point.Y is not None:
        coords = f"{_number(point.X)} {_number(point.Y)}" + (f" {_number(point.Z)}" if point.Z is not None else "")
        return f"POINT ({coords})" + (f" SRID {int(value.SDO_SRID)}" if value.SDO_SRID is not None else "")
    ordinates = value.SDO_ORDINATES.aslist() if value.SDO_ORDINATES is not None else []
    return f"SDO_GEOMETRY(gtype {_number(value.SDO_GTYPE)}, {len(ordinates)} ordinates: " \
           f"{' '.join(_number(o) for o in ordinates[:8])}{' ...' if len(ordinates) > 8 else ''})"


def _number(value: Any) -> str:
    return format(value, "g") if isinstance(value, float) else str(value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def declared_type(data_type: str, length: Any, precision: Any, scale: Any) -> str:
    """The type as it would be declared (VARCHAR2(100), NUMBER(9,6), DATE, TIMESTAMP(6))."""
    data_type = str(data_type).upper()
    if data_type in ("VARCHAR2", "NVARCHAR2", "CHAR", "NCHAR", "RAW"):
        return f"{data_type}({int(length)})" if length is not None else data_type
    if data_type == "NUMBER":
        if precision is None:
            return "NUMBER"
        return f"NUMBER({int(precision)})" if not scale else f"NUMBER({int(precision)},{int(scale)})"
    if data_type == "TIMESTAMP":
        return "TIMESTAMP(6)"
    return data_type


def parse_declared(spec: str) -> tuple[str, int | None, int | None, int | None]:
    """Split a declared type into what the dictionary reports: (type, length, precision, scale)."""
    m = re.fullmatch(r"\s*([A-Z_0-9 ]+?)\s*(?:\((\d+)\s*(?:,\s*(\d+))?\))?\s*", spec.upper())
    if not m:
        return spec.upper(), None, None, None
    base, a, b = m.group(1), m.group(2), m.group(3)
    if base == "NUMBER":
        return base, None, int(a) if a else None, int(b) if b else 0
    if base == "TIMESTAMP":
        return "TIMESTAMP", None, None, None
    return base, int(a) if a else None, None, None


def _input_size(spec: str) -> oracledb.DbType | None:
    base = parse_declared(spec)[0]
    return {"VARCHAR2": oracledb.DB_TYPE_VARCHAR, "CHAR": oracledb.DB_TYPE_CHAR, "NUMBER": oracledb.DB_TYPE_NUMBER,
            "DATE": oracledb.DB_TYPE_DATE, "TIMESTAMP": oracledb.DB_TYPE_TIMESTAMP}.get(base)


def parse_size(value: Any) -> int:
    """Bytes from an Oracle size parameter ('512M', '1G', '536870912', None)."""
    if value is None:
        return 0
    text = str(value).strip().upper()
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)", text)
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)]

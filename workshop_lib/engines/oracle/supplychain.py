"""SUPPLYCHAIN on the Oracle engine (`eng.supplychain`): loading it as its owner, the data
dictionary, SDO_NN's nearest ports, and run_sql's queries as the reader user on a connection
of their own."""
from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import oracledb

from workshop_lib import config
from workshop_lib.engines.database import Tracer
from workshop_lib.engines.dbtypes import Reader, Row, TableSpec
from workshop_lib.engines.health import Check
from workshop_lib.engines.oracle import sql as statements_module
from workshop_lib.engines.oracle.connection import (
    _COMMENT,
    _QUERY_START,
    AMBIGUOUS,
    SUPPLYCHAIN_OWNER,
    _first_line,
    _input_size,
    _refusal,
    _within,
    connect_oracle,
    declared_type,
    parse_declared,
    render_value,
)
from workshop_lib.engines.oracle.errors import OracleWorkshopError, codes
from workshop_lib.engines.readonly import QueryResult, SqlRefused, capped_result, clean, plain_params
from workshop_lib.engines.rows import (
    ColumnLayoutRow,
    CountRow,
    DictionaryColumnRow,
    DictionaryForeignKeyRow,
    DirectoryGrantRow,
    HostAceRow,
    NameRow,
    NumberRow,
    TableCommentRow,
    TablePrivilegeRow,
    row_as,
    rows_as,
)
from workshop_lib.engines.supplychain_schema import DataDictionary, SupplyChainSchema
from workshop_lib.progress import progress as tqdm

if TYPE_CHECKING:
    from workshop_lib.engines.oracle.engine import OracleEngine


class OracleSupplyChain(SupplyChainSchema):
    """run_sql's reader connection is opened on first use under a lock of its own, so a slow
    query never holds the store's connection."""

    days_between = statements_module.DAYS_BETWEEN
    date_literal = statements_module.DATE_LITERAL

    _engine: OracleEngine

    def __init__(self, engine: OracleEngine, tracer: Tracer, reader: Reader, *, timeout: float | None,
                 progress: bool) -> None:
        """`timeout` and `progress`: how the engine connects (the reader and the owner connect alike)."""
        super().__init__(engine, tracer, reader)
        self._timeout, self._progress = timeout, progress
        self._reader_lock = threading.Lock()
        self._reader: oracledb.Connection | None = None
        self.reader_user = config.oracle_setting("ORACLE_READER_USER").upper()

    def _reader_conn(self, deadline: float | None = None) -> oracledb.Connection:
        """The reader user's connection (opened on first use, reopened after a failure), its
        session's names resolved in SUPPLYCHAIN. Called with _reader_lock held. With a deadline
        (a run_sql call's), opening it counts against that call's time, without a progress bar."""
        if self._reader is not None and self._reader.is_healthy():
            return self._reader
        self._drop_reader()
        password = config.oracle_setting("ORACLE_READER_PASSWORD")
        try:
            timeout = self._timeout if deadline is None else max(0.5, deadline - time.monotonic())
            conn = connect_oracle(self.reader_user, password, self._engine.dsn, timeout=timeout,
                                  progress=self._progress and deadline is None, what=f"Oracle ({self.reader_user})")
        except OracleWorkshopError as exc:
            raise OracleWorkshopError(
                f"connect as {self.reader_user} (run_sql's read-only user)", exc.error,
                f"run `make setup-oracle` (step 'users' creates {self.reader_user} with CREATE SESSION and SELECT "
                "on the SUPPLYCHAIN tables); check ORACLE_READER_USER / ORACLE_READER_PASSWORD "
                "(defaults SC_READER / Welcome_12345)") from exc
        try:
            cur = conn.cursor()
            if deadline is not None:
                _within(conn, deadline)
            cur.execute(statements_module.SESSION_SCHEMA.format(schema=SUPPLYCHAIN_OWNER))
            cur.close()
        except (oracledb.Error, TimeoutError) as exc:
            with contextlib.suppress(Exception):
                conn.close()
            raise OracleWorkshopError(f"prepare {self.reader_user}'s session", exc) from exc
        self._reader = conn
        return conn

    def close_reader(self) -> None:
        """Close run_sql's connection (the engine is closing)."""
        with self._reader_lock:
            self._drop_reader()

    def _drop_reader(self) -> None:
        """Close the reader connection: the next query opens a fresh session (after a timeout or
        a failed rollback its state is unknown, and a fresh session is the only sure state)."""
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
        self._reader = None

    def _read_only(self, sql: str, *, max_rows: int = 50, timeout_s: float = 5.0,
                   params: Mapping[str, Any] | None = None) -> QueryResult:
        """One query over SUPPLYCHAIN, as the reader user (ORACLE_READER_USER: CREATE SESSION and
        SELECT on the SUPPLYCHAIN tables, nothing else), on its own connection: the store's tables
        are not visible to it, qualified or not, and the store's connection and its transactions
        are never touched. Inside a read-only transaction the text is wrapped as an inline view
        (SELECT * FROM (<query>) FETCH FIRST n ROWS), so DDL, DML, PL/SQL blocks and several
        statements cannot even parse. `timeout_s` bounds execute and fetches together: each round
        trip gets only what is left of the deadline as its call_timeout."""
        text, max_rows = clean(sql, max_rows)
        plain_params(params)  # the same checks as the embedded engine; Oracle binds dates as dates
        deadline = time.monotonic() + timeout_s
        with self._reader_lock:
            conn = self._reader_conn(deadline)
            raw = conn.cursor()
            ok = False
            try:
                raw.arraysize = max_rows + 1  # the whole capped result in the execute's round trip
                raw.prefetchrows = max_rows + 2
                _within(conn, deadline)
                raw.execute(statements_module.READ_ONLY_TRANSACTION)
                columns = self._run_wrapped(conn, raw, text, max_rows, deadline, dict(params or {}))
                rows: list[Row] = []
                while len(rows) <= max_rows:
                    _within(conn, deadline)
                    batch = raw.fetchmany(max_rows + 1 - len(rows))
                    if not batch:
                        break
                    rows += batch
                # Rendered here, inside the deadline and the reader's lock, before the rollback:
                # reading a LOB is a round trip on this connection. The same byte caps as the
                # embedded engine (per value and per result).
                result = capped_result(columns, (tuple(render_value(v, lambda: _within(conn, deadline)) for v in r)
                                                 for r in rows), max_rows)
                ok = True
            except TimeoutError:
                raise SqlRefused(f"stopped: the query ran longer than {timeout_s:g} s") from None
            except oracledb.Error as exc:
                found = codes(exc)
                if "DPY-4024" in found or "ORA-03156" in found:
                    raise SqlRefused(f"stopped: the query ran longer than {timeout_s:g} s") from None
                raise SqlRefused(_refusal(exc)) from None
            finally:
                with contextlib.suppress(Exception):
                    raw.close()
                try:
                    conn.call_timeout = 5000
                    conn.rollback()  # ends the read-only transaction
                    conn.call_timeout = 0
                except Exception:  # noqa: BLE001 - a session in an unknown state is never reused
                    ok = False
                if not ok:
                    self._drop_reader()
        return result

    @staticmethod
    def _run_wrapped(conn: oracledb.Connection, raw: oracledb.Cursor, text: str, max_rows: int, deadline: float,
                     params: Mapping[str, Any]) -> list[str]:
        """Execute the wrapped query; returns the column names. Two result columns of one name
        (SELECT v.*, p.*) make `SELECT *` over the inline view fail with ORA-00918, which SQLite
        accepts: then the driver's describe (parse() of a query: no execution) gives the names and
        the query runs again with the WITH clause's positional column alias list."""
        binds = {**params, "max_rows": max_rows + 1}
        try:
            # LOBs stay locators here: render_value reads only the first bytes of each, so a
            # multi-gigabyte CLOB built by the query never lands whole in this process.
            raw.execute(statements_module.READ_ONLY_QUERY.format(query=text), binds, fetch_lobs=True)
            return [d[0] for d in raw.description or []]
        except oracledb.Error as exc:
            if AMBIGUOUS not in codes(exc) or not _QUERY_START.match(_COMMENT.sub(" ", text)):
                raise
        # The wrapper parsed, so `text` is a subquery; on its own it is described, never run.
        _within(conn, deadline)
        raw.parse(text)
        names = [d[0] for d in raw.description or []]
        if not names or len(set(names)) == len(names):
            raise oracledb.DatabaseError(f"{AMBIGUOUS}: column ambiguously defined")
        _within(conn, deadline)
        raw.execute(statements_module.READ_ONLY_QUERY_RENAMED.format(
            columns=statements_module.positional_columns(len(names)), query=text), binds, fetch_lobs=True)
        return names


    def _read_dictionary(self, owner: str) -> DataDictionary:
        """Tables, columns and foreign keys of a schema with their comments (data dictionary)."""
        owner = owner.upper()
        rows = self._engine.query(statements_module.DICTIONARY_TABLES, {"owner": owner})
        if not rows:
            raise RuntimeError(
                f"{owner} has no tables visible to {self._engine.user}: it is not seeded yet, or {self._engine.user} may not "
                f"read it. Fix: run supplychain.seed(eng) or `make setup-oracle`."
            )
        described = rows_as(TableCommentRow, rows)
        tables = [{"owner": owner, "table": t.table_name, "comment": t.comments} for t in described]
        names = {t.table_name for t in described}
        columns = []
        for c in rows_as(DictionaryColumnRow, self._engine.query(statements_module.DICTIONARY_COLUMNS, {"owner": owner})):
            if c.table_name not in names:
                continue
            columns.append({
                "owner": owner, "table": c.table_name, "column": c.column_name, "data_type": c.data_type.split("(")[0],
                "type_detail": declared_type(c.data_type, c.data_length, c.data_precision, c.data_scale),
                "nullable": c.nullable == "Y", "comment": c.comments,
            })
        by_constraint: dict[tuple[str, str], dict[str, Any]] = {}
        for key in rows_as(DictionaryForeignKeyRow, self._engine.query(
                statements_module.DICTIONARY_FOREIGN_KEYS, {"owner": owner})):
            fk = by_constraint.setdefault((key.table_name, key.constraint_name), {
                "owner": owner, "table": key.table_name, "columns": [], "ref_table": key.ref_table, "ref_columns": []})
            fk["columns"].append(key.column_name)
            fk["ref_columns"].append(key.ref_column)
        return {"tables": tables, "columns": columns, "foreign_keys": list(by_constraint.values())}

    # ---------------------------------------------------------------- SUPPLYCHAIN
    def load(self, tables: Sequence[TableSpec], rows: Mapping[str, Sequence[Row]], *, progress: bool = True) -> dict[str, int]:
        """Create (or rebuild) SUPPLYCHAIN as its owner, reload every row, comment, grant; returns counts.

        Safe to run again: rows are replaced in one transaction; tables are only rebuilt
        when their layout differs from the dataset's. An error names the step it stopped in.
        """
        sc = statements_module
        password = os.environ.get("ORACLE_SUPPLYCHAIN_PASSWORD") or config.oracle_setting("ORACLE_APP_PASSWORD")
        owner = connect_oracle(SUPPLYCHAIN_OWNER, password, self._engine.dsn, timeout=self._timeout,
                               progress=self._progress, what=f"Oracle ({SUPPLYCHAIN_OWNER})")
        try:
            with _step(owner, "seed SUPPLYCHAIN"):
                cur = owner.cursor()
                existing = _existing_layout(cur)
            try:
                if any(existing.get(t.name) not in (None, _wanted_layout(t)) for t in tables):
                    with _step(owner, "rebuild SUPPLYCHAIN (layout changed)"):
                        for t in reversed(tables):
                            if t.name in existing:
                                cur.execute(sc.sc_drop_table(t))
                    existing = {}
                with _step(owner, "create SUPPLYCHAIN tables"):
                    for t in tables:
                        if t.name not in existing:
                            cur.execute(sc.sc_create_table(t))
                with _step(owner, "load SUPPLYCHAIN rows"):
                    _load_rows(cur, tables, rows, progress=progress and self._progress)
                    owner.commit()
                with _step(owner, "spatial index on PORTS.LOCATION"):
                    self._port_spatial_index(cur)
                with _step(owner, "comment on SUPPLYCHAIN"):
                    for t in tables:
                        for stmt in sc.sc_comments(t):
                            cur.execute(stmt)
                with _step(owner, f"grant SELECT on SUPPLYCHAIN to {self._engine.user}"):
                    for t in tables:
                        cur.execute(sc.sc_grant_select(t, self._engine.user))
                with _step(owner, f"grant SELECT on SUPPLYCHAIN to {self.reader_user}"):
                    self._grant_reader(cur, tables)
                with _step(owner, "count SUPPLYCHAIN rows"):
                    return _counts(cur, tables)
            finally:
                cur.close()
        finally:
            owner.close()

    def _grant_reader(self, cur: oracledb.Cursor, tables: Sequence[TableSpec]) -> None:
        """SELECT for run_sql's user; a reader that does not exist yet is a note, not a failed seed."""
        try:
            for t in tables:
                cur.execute(statements_module.sc_grant_select(t, self.reader_user))
        except oracledb.Error as exc:
            if "ORA-01917" not in codes(exc):  # user does not exist
                raise
            print(f"note: {self.reader_user} does not exist yet, so the agent's run_sql cannot read "
                  "SUPPLYCHAIN; `make setup-oracle` creates it")

    @staticmethod
    def _port_spatial_index(cur: oracledb.Cursor) -> None:
        """The geometry metadata and the spatial index SDO_NN needs, as the table's owner; a database
        without Oracle Spatial (the -slim images) only loses the nearest-port query, so it is a note."""
        sc = statements_module
        try:
            cur.execute(sc.SC_PORT_GEOM_TOLERANCES)
            tolerances = [float(r.number) for r in rows_as(NumberRow, cur.fetchall())]
            cur.execute(sc.SC_PORT_SPATIAL_INDEX_EXISTS)
            has_index = bool(row_as(CountRow, cur.fetchone()).n)
            if tolerances and any(t != sc.PORT_GEOM_TOLERANCE for t in tolerances):
                # Seeded with an older tolerance: the index keeps the one it was built with.
                if has_index:
                    cur.execute(sc.SC_PORT_SPATIAL_INDEX_DROP)
                    has_index = False
                cur.execute(sc.SC_PORT_GEOM_METADATA_DELETE)
                tolerances = []
            if not tolerances:
                cur.execute(sc.SC_PORT_GEOM_METADATA)
                cur.connection.commit()
            if not has_index:
                cur.execute(sc.SC_PORT_SPATIAL_INDEX)
        except oracledb.Error as exc:
            print(f"note: no spatial index on SUPPLYCHAIN.PORTS.LOCATION ({_first_line(exc)}); SDO_NN queries "
                  "will fail with ORA-13226, everything else works")

    def nearest_ports(self, lon: float, lat: float) -> list[Row]:
        """(port name, UN/LOCODE, km) of the three ports nearest a point, by Oracle Spatial's SDO_NN."""
        return self._engine.query(statements_module.NEAREST_PORTS, {"lon": float(lon), "lat": float(lat)})

    def reader_check(self) -> Check:
        """run_sql's user may do exactly two things: open a session and SELECT the SUPPLYCHAIN tables."""
        sc = statements_module
        name = f"run_sql user {self.reader_user} (least privilege)"
        fix = "run `make setup-oracle` (safe to re-run); revoke anything else granted to " + self.reader_user
        try:
            with self._reader_lock:
                cur = self._reader_conn().cursor()
                try:
                    cur.execute(sc.READER_SYSTEM_PRIVILEGES)
                    system = sorted(r.name for r in rows_as(NameRow, cur.fetchall()))
                    cur.execute(sc.READER_OBJECT_PRIVILEGES)
                    objects = rows_as(TablePrivilegeRow, cur.fetchall())
                finally:
                    cur.close()
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            return Check(name, False, _first_line(exc), fix)
        extra = [p for p in system if p != "CREATE SESSION"]
        extra += [f"{g.privilege} on {g.owner}.{g.table_name}" for g in objects
                  if g.owner != SUPPLYCHAIN_OWNER or g.privilege != "SELECT"]
        tables = sum(1 for g in objects if g.owner == SUPPLYCHAIN_OWNER and g.privilege == "SELECT")
        ok = not extra and "CREATE SESSION" in system and tables > 0
        detail = f"CREATE SESSION {'granted' if 'CREATE SESSION' in system else 'missing'}, SELECT on {tables} " \
                 "SUPPLYCHAIN tables" + (f"; also has {', '.join(extra)}" if extra else ", nothing else")
        return Check(name, ok, detail, fix)

    def reader_packages_check(self) -> Check:
        """Which network and file packages PUBLIC lets the reader run (a function is callable in
        run_sql's SELECT), and whether a host ACE or a directory grant would let them work."""
        sc = statements_module
        name = f"run_sql user {self.reader_user}: network and file packages"
        fix = (f"remove the host ACE or the directory grant of {self.reader_user} (or of PUBLIC), or revoke "
               "EXECUTE on the package from PUBLIC; see docs/oracle.md, 'The run_sql reader'")
        try:
            with self._reader_lock:
                cur = self._reader_conn().cursor()
                try:
                    cur.execute(sc.READER_PUBLIC_PACKAGES)
                    packages = [r.name for r in rows_as(NameRow, cur.fetchall())]
                    cur.execute(sc.READER_HOST_ACES)
                    aces = rows_as(HostAceRow, cur.fetchall())
                    cur.execute(sc.READER_DIRECTORY_GRANTS)
                    directories = rows_as(DirectoryGrantRow, cur.fetchall())
                finally:
                    cur.close()
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            return Check(name, False, _first_line(exc), fix)
        return Check(name, not aces and not directories, packages_detail(packages, aces, directories), fix)


def packages_detail(packages: list[str], aces: list[HostAceRow], directories: list[DirectoryGrantRow]) -> str:
    """The doctor's sentence: what PUBLIC may run, and what (if anything) lets those calls work."""
    network = [p for p in packages if p in statements_module.NETWORK_PACKAGES]
    files = [p for p in packages if p in statements_module.FILE_PACKAGES]
    said = (f"PUBLIC may run {', '.join(network) or 'no network package'} and "
            f"{', '.join(files) or 'no file package'}; ")
    said += ("no host ACE, so the database's network ACL refuses every host (ORA-24247)" if not aces else
             "host ACEs granted: " + ", ".join(f"{a.host} {a.privilege}" for a in aces))
    said += ("; no directory grant, so no file can be read or written" if not directories else
             "; directory grants: " + ", ".join(f"{d.privilege} on {d.table_name}" for d in directories))
    return said


@contextlib.contextmanager
def _step(owner: oracledb.Connection, what: str) -> Iterator[None]:
    """One step of loading SUPPLYCHAIN: an Oracle error rolls back what is not committed and is
    raised as one message naming the step."""
    try:
        yield
    except oracledb.Error as exc:
        with contextlib.suppress(oracledb.Error):
            owner.rollback()
        raise OracleWorkshopError(what, exc) from exc


def _existing_layout(cur: Any) -> dict[str, list[tuple[str, str]]]:
    """Each SUPPLYCHAIN table's (column, declared type) as the database has them now."""
    cur.execute(statements_module.SC_EXISTING_COLUMNS)
    existing: dict[str, list[tuple[str, str]]] = {}
    for c in rows_as(ColumnLayoutRow, cur.fetchall()):
        existing.setdefault(c.table_name, []).append(
            (c.column_name, declared_type(c.data_type, c.data_length, c.data_precision, c.data_scale)))
    return existing


def _wanted_layout(table: Any) -> list[tuple[str, str]]:
    """A table's (column, declared type) as the dataset defines them, spelled as the dictionary reads back."""
    return [(c, declared_type(*parse_declared(ty))) for c, ty in statements_module.sc_columns(table)]


def _load_rows(cur: oracledb.Cursor, tables: Sequence[TableSpec], rows: Mapping[str, Sequence[Row]], *, progress: bool) -> None:
    """Replace every row (children deleted first), then set the ports' geometry; not committed here."""
    sc = statements_module
    for t in reversed(tables):
        cur.execute(sc.sc_delete(t))
    for t in tqdm(tables, desc="Seeding SUPPLYCHAIN", unit="table", disable=not progress):
        # Declared bind types, so a column whose first values are NULL is still typed right.
        cur.setinputsizes(*[_input_size(c.oracle_type) for c in t.columns])
        cur.executemany(sc.sc_insert(t), [tuple(row) for row in rows[t.name]])
    cur.execute(sc.SC_SET_PORT_LOCATION)


def _counts(cur: oracledb.Cursor, tables: Sequence[TableSpec]) -> dict[str, int]:
    counts = {}
    for t in tables:
        cur.execute(statements_module.sc_count(t))
        counts[t.name] = int(row_as(CountRow, cur.fetchone()).n)
    return counts

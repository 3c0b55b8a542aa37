"""The Oracle engine's run_sql path, concurrency and driver settings, with fakes at the driver
interface (no database can run here; the Oracle lane in tests/test_agent_sql.py runs the same
behaviour against a real one).

Issue 27: run_sql runs as the reader user on its own connection (never the store's), one
deadline bounds execute plus fetches, a session whose closing rollback failed is closed,
same-named result columns do not fail (ORA-00918), SDO_GEOMETRY points read as coordinates,
an insert-if-missing MERGE forgives only ORA-00001, and the store connection is serialised.
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Any
from unittest import mock

import oracledb
import pytest

from workshop_lib import config
from workshop_lib.engines.database import statement_binds
from workshop_lib.engines.oracle import connection
from workshop_lib.engines.oracle import engine as oengine
from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.oracle import supplychain as osupplychain
from workshop_lib.engines.oracle.connection import OracleCursor, inserts_only_missing, render_value
from workshop_lib.engines.oracle.engine import OracleEngine
from workshop_lib.engines.oracle.errors import OracleWorkshopError
from workshop_lib.engines.oracle.supplychain import OracleSupplyChain
from workshop_lib.engines.readonly import SqlRefused


# --------------------------------------------------------------------------- fakes
class FakeRaw:
    """A python-oracledb cursor: records calls; `script` maps a statement prefix to what execute does."""

    def __init__(self, conn: FakeConn) -> None:
        self.conn = conn
        self.description: list[tuple[Any]] | None = None
        self.rows: list = []
        self.arraysize = 100
        self.prefetchrows = 2

    def execute(self, statement, params=None, **kwargs):
        self.conn.calls.append(("execute", statement, params, kwargs, self.conn.call_timeout))
        outcome = self.conn.on_execute(statement)
        if isinstance(outcome, BaseException):
            raise outcome
        columns, rows = outcome
        self.description = [(c,) for c in columns] if columns else None
        self.rows = list(rows)

    def prepare(self, statement):  # the store's cursor asks the driver which binds a statement uses
        self.prepared = statement

    def bindnames(self):
        return sorted(n.upper() for n in statement_binds(self.prepared))

    def parse(self, statement):
        self.conn.calls.append(("parse", statement, None, {}, self.conn.call_timeout))
        outcome = self.conn.on_parse(statement)
        if isinstance(outcome, BaseException):
            raise outcome
        self.description = [(c,) for c in outcome]

    def fetchmany(self, size):
        self.conn.calls.append(("fetchmany", size, None, {}, self.conn.call_timeout))
        self.conn.on_fetch()
        batch, self.rows = self.rows[:size], self.rows[size:]
        return batch

    def fetchall(self):
        rows, self.rows = self.rows, []
        return rows

    def fetchone(self):
        return self.rows.pop(0) if self.rows else None

    def close(self):
        pass


class FakeConn:
    def __init__(self, columns=("A",), rows=((1,),)) -> None:
        self.calls: list = []
        self.call_timeout = 0
        self.columns, self.rows = list(columns), list(rows)
        self.rollbacks = self.commits = 0
        self.closed = False
        self.fail_rollback = False

    def on_execute(self, statement):
        if statement.startswith(("SET TRANSACTION", "ALTER SESSION")):
            return [], []
        return self.columns, self.rows

    def on_parse(self, statement):
        return self.columns

    def on_fetch(self):
        pass

    def cursor(self):
        return FakeRaw(self)

    def is_healthy(self):
        return not self.closed

    def rollback(self):
        self.calls.append(("rollback", None, None, {}, self.call_timeout))
        if self.fail_rollback:
            raise oracledb.DatabaseError("DPY-4011: the database or network closed the connection")
        self.rollbacks += 1

    def commit(self):
        self.commits += 1

    def close(self):
        self.closed = True


def make_engine(monkeypatch, reader: FakeConn, store: FakeConn | None = None) -> tuple[OracleEngine, list]:
    """An OracleEngine on fake connections; returns it and the list of reader connections opened."""
    opened: list[tuple[str, FakeConn]] = []
    readers = iter([reader] + [FakeConn(reader.columns, reader.rows) for _ in range(5)])

    def connect(user, password, dsn, **_kwargs):
        conn = store if user == "AGENT" else next(readers)
        opened.append((user, conn))
        return conn

    monkeypatch.setattr(oengine, "connect_oracle", connect)
    monkeypatch.setattr(osupplychain, "connect_oracle", connect)  # run_sql's reader connects from there
    monkeypatch.setenv("ORACLE_DSN", "h:1/S")
    for name in ("ORACLE_APP_USER", "ORACLE_USER", "ORACLE_READER_USER"):
        monkeypatch.delenv(name, raising=False)
    store = store or FakeConn()
    eng = OracleEngine(progress=False)
    return eng, opened


def statements_run(conn: FakeConn) -> list[str]:
    return [c[1] for c in conn.calls if c[0] == "execute"]


# --------------------------------------------------------------------------- item 1 / 4: own connection, reader user
def test_run_sql_runs_as_the_reader_on_its_own_connection(monkeypatch):
    store, reader = FakeConn(), FakeConn(("VOYAGE_ID",), [(1001,), (1002,)])
    eng, opened = make_engine(monkeypatch, reader, store)
    result = eng.supplychain.read_only_query("SELECT VOYAGE_ID FROM VOYAGES", max_rows=5)
    assert result.rows == [(1001,), (1002,)] and result.columns == ["VOYAGE_ID"]
    assert [u for u, _ in opened] == ["AGENT", config.ORACLE_DEFAULTS["ORACLE_READER_USER"]]
    assert store.calls == [] and store.rollbacks == 0, "the store's connection (and its transactions) untouched"
    run = statements_run(reader)
    assert run[0] == osql.SESSION_SCHEMA.format(schema="SUPPLYCHAIN")  # once per session, at connect
    assert run[1] == osql.READ_ONLY_TRANSACTION
    assert run[2] == osql.READ_ONLY_QUERY.format(query="SELECT VOYAGE_ID FROM VOYAGES")
    assert reader.rollbacks == 1  # ends the read-only transaction
    eng.supplychain.read_only_query("SELECT 1 FROM dual")
    assert len(opened) == 2, "the reader's session is reused"
    assert statements_run(reader).count(osql.SESSION_SCHEMA.format(schema="SUPPLYCHAIN")) == 1


def test_a_missing_reader_user_is_named_with_its_fix(monkeypatch):
    eng, _ = make_engine(monkeypatch, FakeConn())

    def refuse(user, *_args, **_kwargs):
        raise OracleWorkshopError(f"connect as {user} to h:1/S", "ORA-01017: invalid credential or not authorized")

    monkeypatch.setattr(osupplychain, "connect_oracle", refuse)
    with pytest.raises(OracleWorkshopError, match="make setup-oracle.*SC_READER"):
        eng.supplychain.read_only_query("SELECT 1 FROM dual")


# --------------------------------------------------------------------------- item 5: failed reset closes
def test_a_session_whose_rollback_failed_is_closed_and_replaced(monkeypatch):
    reader = FakeConn()
    reader.fail_rollback = True
    eng, opened = make_engine(monkeypatch, reader)
    eng.supplychain.read_only_query("SELECT 1 FROM dual")
    assert reader.closed, "a session in an unknown state is never reused"
    eng.supplychain.read_only_query("SELECT 1 FROM dual")
    assert len(opened) == 3 and opened[2][1] is not reader


def test_a_refused_query_keeps_nothing_open(monkeypatch):
    reader = FakeConn()
    reader.on_execute = lambda s: ([], []) if s.startswith(("SET", "ALTER")) else oracledb.DatabaseError(
        "ORA-00942: table or view does not exist")
    eng, _ = make_engine(monkeypatch, reader)
    with pytest.raises(SqlRefused, match="only the SUPPLYCHAIN tables"):
        eng.supplychain.read_only_query("SELECT * FROM AGENT.RECORDS")
    assert reader.rollbacks == 1 and reader.call_timeout == 0


# --------------------------------------------------------------------------- item 6: one deadline
def test_one_deadline_bounds_execute_and_every_fetch(monkeypatch):
    """call_timeout is per round trip: before each one it is set to what is left of timeout_s."""
    clock = [1000.0]
    monkeypatch.setattr(connection.time, "monotonic", lambda: clock[0])
    reader = FakeConn(("N",), [(i,) for i in range(10)])

    def slow_fetch():
        clock[0] += 0.9  # each round trip takes 0.9 s of a 2 s budget

    reader.on_fetch = slow_fetch
    eng, _ = make_engine(monkeypatch, reader)

    def small_batches(self, size):
        self.conn.calls.append(("fetchmany", size, None, {}, self.conn.call_timeout))
        self.conn.on_fetch()
        batch, self.rows = self.rows[:1], self.rows[1:]
        return batch

    monkeypatch.setattr(FakeRaw, "fetchmany", small_batches)
    with pytest.raises(SqlRefused, match="longer than 2 s"):
        eng.supplychain.read_only_query("SELECT N FROM t", max_rows=10, timeout_s=2.0)
    timeouts = [c[4] for c in reader.calls if c[0] in ("execute", "fetchmany")][1:]  # after SESSION_SCHEMA
    assert timeouts == sorted(timeouts, reverse=True) and all(0 < t <= 2000 for t in timeouts)
    assert sum(1 for c in reader.calls if c[0] == "fetchmany") == 3  # 0.9 + 0.9 + 0.9 > 2: stopped
    assert reader.closed, "a timed-out session is closed, not reused"


def test_the_drivers_call_timeout_is_reported_as_stopped(monkeypatch):
    reader = FakeConn()
    reader.on_execute = lambda s: ([], []) if s.startswith(("SET", "ALTER")) else oracledb.DatabaseError(
        "DPY-4024: call timeout of 5000 ms exceeded")
    eng, _ = make_engine(monkeypatch, reader)
    with pytest.raises(SqlRefused, match="stopped"):
        eng.supplychain.read_only_query("SELECT 1 FROM dual")
    assert reader.closed


def test_rows_are_capped_at_max_rows_plus_one(monkeypatch):
    reader = FakeConn(("N",), [(i,) for i in range(500)])
    eng, _ = make_engine(monkeypatch, reader)
    result = eng.supplychain.read_only_query("SELECT N FROM t", max_rows=3)
    assert result.rows == [(0,), (1,), (2,)] and result.truncated
    fetched = [c[1] for c in reader.calls if c[0] == "fetchmany"]
    assert fetched == [4], "never more than max_rows + 1 rows leave the database"


# --------------------------------------------------------------------------- item 2: ORA-00918
def _ambiguous_wrapper(reader: FakeConn, described: list[str] | BaseException):
    def on_execute(statement):
        if statement.startswith(("SET", "ALTER")):
            return [], []
        if statement.startswith("SELECT * FROM ("):
            return oracledb.DatabaseError("ORA-00918: column ambiguously defined")
        return [f"C{i + 1}" for i in range(len(described))], [(1001, 9, 9)]

    reader.on_execute = on_execute
    reader.on_parse = lambda statement: described


def test_same_named_result_columns_run_with_positional_aliases(monkeypatch):
    reader = FakeConn()
    _ambiguous_wrapper(reader, ["VOYAGE_ID", "IMO_NUMBER", "IMO_NUMBER"])
    eng, _ = make_engine(monkeypatch, reader)
    sql = "SELECT v.VOYAGE_ID, v.IMO_NUMBER, s.IMO_NUMBER FROM VOYAGES v JOIN VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER"
    result = eng.supplychain.read_only_query(sql)
    assert result.columns == ["VOYAGE_ID", "IMO_NUMBER", "IMO_NUMBER"]  # the names the model wrote, as SQLite shows
    assert result.rows == [(1001, 9, 9)]
    run = statements_run(reader)
    assert run[-1] == osql.READ_ONLY_QUERY_RENAMED.format(columns="C1, C2, C3", query=sql)
    assert [c[1] for c in reader.calls if c[0] == "parse"] == [sql]  # described, never executed on its own


def test_an_ambiguous_column_inside_the_query_tells_the_model_to_qualify_it(monkeypatch):
    reader = FakeConn()
    _ambiguous_wrapper(reader, oracledb.DatabaseError("ORA-00918: column ambiguously defined"))
    eng, _ = make_engine(monkeypatch, reader)
    with pytest.raises(SqlRefused, match="qualify it with its table alias"):
        eng.supplychain.read_only_query("SELECT IMO_NUMBER FROM VOYAGES v JOIN VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER")


def test_only_a_query_is_ever_described(monkeypatch):
    """parse() executes DDL at once (python-oracledb's Cursor.parse note), so a text that is not
    a SELECT / WITH is never parsed on its own, even after an ORA-00918."""
    reader = FakeConn()
    _ambiguous_wrapper(reader, ["A", "A"])
    eng, _ = make_engine(monkeypatch, reader)
    with pytest.raises(SqlRefused):
        eng.supplychain.read_only_query("CREATE TABLE x (a NUMBER)")
    assert not [c for c in reader.calls if c[0] == "parse"]


def test_positional_columns():
    assert osql.positional_columns(3) == "C1, C2, C3"
    for bad in (0, 1001, "3", None):
        with pytest.raises(ValueError):
            osql.positional_columns(bad)


# --------------------------------------------------------------------------- item 11: geometry as coordinates
class _Type:
    def __init__(self, name, attributes=(), iscollection=False):
        self.name, self.iscollection = name, iscollection
        self.attributes = [type("A", (), {"name": a})() for a in attributes]


class _Obj:
    def __init__(self, type_name, collection=None, **attrs):
        self.type = _Type(type_name, list(attrs), iscollection=collection is not None)
        self._list = collection
        for k, v in attrs.items():
            setattr(self, k, v)

    def aslist(self):
        return list(self._list)


def test_an_sdo_geometry_point_reads_as_coordinates():
    point = _Obj("SDO_GEOMETRY", SDO_GTYPE=2001, SDO_SRID=4326,
                 SDO_POINT=_Obj("SDO_POINT_TYPE", X=4.4, Y=51.9, Z=None), SDO_ELEM_INFO=None, SDO_ORDINATES=None)
    assert render_value(point) == "POINT (4.4 51.9) SRID 4326"
    line = _Obj("SDO_GEOMETRY", SDO_GTYPE=2002, SDO_SRID=4326, SDO_POINT=None,
                SDO_ELEM_INFO=_Obj("SDO_ELEM_INFO_ARRAY", collection=[1, 2, 1]),
                SDO_ORDINATES=_Obj("SDO_ORDINATE_ARRAY", collection=[1.0, 2.0, 3.0, 4.0]))
    assert render_value(line) == "SDO_GEOMETRY(gtype 2002, 4 ordinates: 1 2 3 4)"
    other = _Obj("ADDRESS_T", STREET="Kade 1", CITY="Rotterdam")
    assert render_value(other) == "ADDRESS_T(STREET=Kade 1, CITY=Rotterdam)"
    for plain in (1, "x", None, 2.5, b"\x00"):
        assert render_value(plain) == plain


def test_run_sql_output_shows_ports_locations_as_points(monkeypatch):
    loc = _Obj("SDO_GEOMETRY", SDO_GTYPE=2001, SDO_SRID=4326,
               SDO_POINT=_Obj("SDO_POINT_TYPE", X=4.4, Y=51.9, Z=None), SDO_ELEM_INFO=None, SDO_ORDINATES=None)
    reader = FakeConn(("UNLOCODE", "LOCATION"), [("NLRTM", loc)])
    eng, _ = make_engine(monkeypatch, reader)
    text = eng.supplychain.read_only_query("SELECT UNLOCODE, LOCATION FROM PORTS").as_text()
    assert "NLRTM | POINT (4.4 51.9) SRID 4326" in text and "DbObject" not in text


# --------------------------------------------------------------------------- item 3: concurrent ingest
def test_only_insert_if_missing_merges_forgive_a_duplicate_key():
    assert inserts_only_missing(osql.DOCS.CHUNK_INSERT.replace("{t}", "DOCS_V1"))
    assert inserts_only_missing(osql.CATALOG.EMB_CACHE_PUT)
    for statement in (osql.DOCS.REGISTER, osql.DOCS.ALIAS_SET, osql.RECORD_INSERT, osql.DOCS.LOG_INSERT,
                      "INSERT INTO t SELECT * FROM s WHERE 'MERGE INTO' = 'x'"):
        assert not inserts_only_missing(statement), statement


class _BatchRaw:
    def __init__(self, errors):
        self.errors, self.calls = errors, []

    def prepare(self, statement):
        self.statement = statement

    def bindnames(self):
        return sorted(n.upper() for n in connection.bind_names(self.statement))

    def executemany(self, statement, rows, **kwargs):
        self.calls.append((statement, len(rows), kwargs))

    def getbatcherrors(self):
        return self.errors


class _Err:
    def __init__(self, message, offset):
        self.message, self.offset = message, offset


class _BindAsIs:
    def bind_value(self, name, value, **_kwargs):
        return value


def _rows(n):
    return [{"h": f"h{i}", "doc_id": "d", "chunk_no": i, "source": "s", "lang": None, "tags": "[]", "body": "b",
             "n_units": 1, "vec": None} for i in range(n)]


def test_a_second_session_inserting_the_same_chunks_is_not_an_error():
    """Both sessions saw no row; the second meets the first's committed keys (ORA-00001 per row)."""
    statement = osql.DOCS.CHUNK_INSERT.replace("{t}", "DOCS_V1")
    raw = _BatchRaw([_Err("ORA-00001: unique constraint (AGENT.SYS_C1) violated", 0),
                     _Err("ORA-00001: unique constraint (AGENT.SYS_C1) violated", 2)])
    OracleCursor(_BindAsIs(), raw).executemany(statement, _rows(3))
    assert raw.calls == [(statement, 3, {"batcherrors": True})]


def test_any_other_batch_error_still_fails():
    statement = osql.DOCS.CHUNK_INSERT.replace("{t}", "DOCS_V1")
    raw = _BatchRaw([_Err("ORA-00001: unique constraint violated", 0),
                     _Err("ORA-12899: value too large for column BODY", 1)])
    with pytest.raises(OracleWorkshopError, match="ORA-12899"):
        OracleCursor(_BindAsIs(), raw).executemany(statement, _rows(2))


def test_other_statements_run_without_batch_errors():
    raw = _BatchRaw([])
    OracleCursor(_BindAsIs(), raw).executemany(osql.DOCS.CHUNK_DELETE.replace("{t}", "DOCS_V1"), [{"h": "a"}])
    assert raw.calls[0][2] == {"batcherrors": False}


def test_a_single_insert_if_missing_forgives_only_ora_00001():
    class Raw(_BatchRaw):
        def execute(self, statement, binds, **kwargs):
            self.calls.append(statement)
            if self.errors:
                raise self.errors.pop(0)

    dup = "ORA-00001: unique constraint (AGENT.SYS_C1) violated"
    put = osql.CATALOG.EMB_CACHE_PUT
    key = {"h": "a", "m": "M", "txt": "x", "vec": None}
    raw = Raw([oracledb.IntegrityError(dup)])
    OracleCursor(_BindAsIs(), raw).execute(put, key)
    assert raw.calls == [put], "not run again: the row exists"
    with pytest.raises(OracleWorkshopError, match="ORA-01400"):
        OracleCursor(_BindAsIs(), Raw([oracledb.IntegrityError("ORA-01400: cannot insert NULL")])).execute(put, key)
    insert = osql.DOCS.LOG_INSERT
    with pytest.raises(OracleWorkshopError, match="ORA-00001"):  # a plain INSERT keeps the error
        OracleCursor(_BindAsIs(), Raw([oracledb.IntegrityError(dup)])).execute(
            insert, {"alias_name": "DOCS", "action": "promote", "t": "DOCS_V1", "detail": "{}"})


def test_an_upsert_merge_that_lost_the_race_runs_again_and_updates():
    """REGISTER / ALIAS_SET: both sessions saw no row and inserted; the loser's retry sees the
    winner's committed row and takes WHEN MATCHED. A second failure is reported."""
    class Raw(_BatchRaw):
        def execute(self, statement, binds, **kwargs):
            self.calls.append(statement)
            if self.errors:
                raise self.errors.pop(0)

    dup = "ORA-00001: unique constraint (AGENT.SYS_C2) violated"
    binds = {"t": "DOCS_V1", "profile": "{}", "sha": "x"}
    raw = Raw([oracledb.IntegrityError(dup)])
    OracleCursor(_BindAsIs(), raw).execute(osql.DOCS.REGISTER, binds)
    assert raw.calls == [osql.DOCS.REGISTER] * 2
    with pytest.raises(OracleWorkshopError, match="ORA-00001"):
        OracleCursor(_BindAsIs(), Raw([oracledb.IntegrityError(dup)] * 2)).execute(osql.DOCS.REGISTER, binds)


# --------------------------------------------------------------------------- item 4: the store connection is serialised
def test_a_transaction_holds_the_store_connection_until_it_ends(monkeypatch):
    store = FakeConn()
    eng, _ = make_engine(monkeypatch, FakeConn(), store)
    order: list[str] = []
    inside = threading.Event()

    def other_thread():
        inside.wait(5)
        eng.query("SELECT 1 FROM DUAL")
        order.append("other thread's query")

    worker = threading.Thread(target=other_thread)
    worker.start()
    with eng.transaction():
        inside.set()
        time.sleep(0.2)  # the other thread is waiting for the lock now
        order.append("transaction ends")
    worker.join(5)
    assert order == ["transaction ends", "other thread's query"]


def test_importing_the_engine_leaves_the_drivers_defaults_alone():
    assert oracledb.defaults.fetch_lobs is True


# --------------------------------------------------------------------------- doctor: least privilege
@pytest.mark.parametrize("system,objects,ok", [
    (["CREATE SESSION"], [("SUPPLYCHAIN", "VOYAGES", "SELECT"), ("SUPPLYCHAIN", "PORTS", "SELECT")], True),
    (["CREATE SESSION", "CREATE PROCEDURE"], [("SUPPLYCHAIN", "VOYAGES", "SELECT")], False),
    (["CREATE SESSION"], [("SUPPLYCHAIN", "VOYAGES", "SELECT"), ("AGENT", "RECORDS", "SELECT")], False),
    (["CREATE SESSION"], [("SUPPLYCHAIN", "VOYAGES", "UPDATE")], False),
    (["CREATE SESSION"], [], False),
])
def test_doctor_checks_the_reader_has_exactly_its_grants(monkeypatch, system, objects, ok):
    reader = FakeConn()

    def on_execute(statement):
        if statement == osql.READER_SYSTEM_PRIVILEGES:
            return ["PRIVILEGE"], [(p,) for p in system]
        if statement == osql.READER_OBJECT_PRIVILEGES:
            return ["OWNER", "TABLE_NAME", "PRIVILEGE"], objects
        return [], []

    reader.on_execute = on_execute
    eng, _ = make_engine(monkeypatch, reader)
    check = eng.supplychain.reader_check()
    assert check.ok is ok, check.detail


# --------------------------------------------------------------------------- item 10: spatial tolerance
def test_spatial_metadata_with_an_old_tolerance_is_rebuilt_at_0_05():
    class Cur:
        def __init__(self, tolerances, has_index):
            self.tolerances, self.has_index, self.run = tolerances, has_index, []
            self.connection = type("C", (), {"commit": lambda self: None})()

        def execute(self, statement):
            self.run.append(statement)
            self.last = statement

        def fetchall(self):
            return [(t,) for t in self.tolerances]

        def fetchone(self):
            return (1 if self.has_index else 0,)

    old = Cur([0.005, 0.005], True)
    OracleSupplyChain._port_spatial_index(old)
    assert old.run[2:] == [osql.SC_PORT_SPATIAL_INDEX_DROP, osql.SC_PORT_GEOM_METADATA_DELETE,
                           osql.SC_PORT_GEOM_METADATA, osql.SC_PORT_SPATIAL_INDEX]
    current = Cur([0.05, 0.05], True)
    OracleSupplyChain._port_spatial_index(current)
    assert current.run[2:] == []
    assert "0.05)" in osql.SC_PORT_GEOM_METADATA and "0.005" not in osql.SC_PORT_GEOM_METADATA
    assert "'LONGITUDE'" in osql.SC_PORT_GEOM_METADATA and "'LATITUDE'" in osql.SC_PORT_GEOM_METADATA


# --------------------------------------------------------------------------- item 7: thresholds
@pytest.mark.parametrize("engine", sorted(config.THRESHOLDS))
def test_the_hybrid_band_is_reachable_with_each_engines_defaults(engine):
    """Chunks under min_score are dropped before the mode is decided: with min_score at or above
    threshold_high every surviving chunk would be rag and hybrid could never happen."""
    from workshop_lib.parts import gates

    th = config.THRESHOLDS[engine].as_dict()
    assert th["min_score"] < th["threshold_high"]
    cfg = gates.ModeConfig.for_engine(th)
    score = (max(th["min_score"], th["threshold_low"]) + th["threshold_high"]) / 2  # kept, and in the band
    chunks = [{"text": "x" * 150}, {"text": "y" * 150}]
    decision = gates.decide_mode([score, score], chunks, config=cfg, query_tokens=10)
    assert decision.mode == "hybrid", decision.summary()


# --------------------------------------------------------------------------- Oracle lane: concurrent ingest
@pytest.mark.oracle
def test_two_sessions_inserting_the_same_chunks_at_once_store_each_once():
    """Issue 27 item 3 on a real database: session A inserts and has not committed; session B's
    MERGE sees no committed row, inserts the same keys and waits on A's; when A commits, B's rows
    fail with ORA-00001, which the insert-if-missing MERGE forgives. No error, each chunk once."""
    from conftest import _require

    from workshop_lib import connect
    from workshop_lib.parts.ingest import index

    _require("oracle")
    a, b = connect("oracle"), connect("oracle")
    table = "DOCS_T" + format(int(time.time() * 1000) % 10**9, "d")
    docs = a.statements.docs
    rows = [{"h": f"{i:064x}", "doc_id": "d", "chunk_no": i, "source": "s.md", "lang": "en", "tags": "[]",
             "body": f"chunk {i}", "n_units": 2, "vec": a.backend.vector_param([1.0] + [0.0] * (osql.DIM - 1))}
            for i in range(20)]
    errors: list[BaseException] = []
    a_inserted = threading.Event()

    def session_b():
        a_inserted.wait(30)
        try:
            with b.transaction() as cur:
                cur.executemany(index.fill(docs.CHUNK_INSERT, table), rows)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    try:
        index.ensure_table(a, table)
        worker = threading.Thread(target=session_b)
        worker.start()
        with a.transaction() as cur:
            cur.executemany(index.fill(docs.CHUNK_INSERT, table), rows)
            a_inserted.set()
            time.sleep(2.0)  # B is now blocked on A's uncommitted keys
        worker.join(60)
        assert errors == []
        assert a.query(index.fill(docs.COUNTS, table)) == [(1, 20)]
    finally:
        with a.transaction() as cur:
            cur.execute(index.fill(docs.TABLE_DROP, table))
        a.close()
        b.close()


def test_a_driver_too_old_for_per_execute_fetch_lobs_is_named():
    connection.require_driver("26.1.0")
    connection.require_driver("3.4.0")
    for old in ("2.5.1", "3.3.0"):
        with pytest.raises(connection.OracleConnectionError, match="3.4 or later"):
            connection.require_driver(old)


def test_opening_the_readers_session_counts_against_the_calls_deadline(monkeypatch):
    eng, _ = make_engine(monkeypatch, FakeConn())
    seen = {}

    def connect(user, password, dsn, **kwargs):
        seen.update(kwargs)
        return FakeConn()

    monkeypatch.setattr(osupplychain, "connect_oracle", connect)
    eng.supplychain.read_only_query("SELECT 1 FROM dual", timeout_s=2.0)
    assert 0 < seen["timeout"] <= 2.0 and seen["progress"] is False


def test_a_lob_in_a_run_sql_result_is_read_only_up_to_the_value_cap():
    """A CLOB the query builds is read through its locator, at most the cap (+1 so the cap can
    say it cut), never fetched whole into the process."""
    from unittest import mock

    import oracledb

    from workshop_lib.engines.oracle.connection import render_value
    from workshop_lib.engines.readonly import MAX_VALUE_BYTES, capped_result

    lob = mock.MagicMock(spec=oracledb.LOB)
    lob.read.return_value = "x" * (MAX_VALUE_BYTES + 1)
    lob.size.return_value = MAX_VALUE_BYTES + 1
    assert render_value(lob) == "x" * (MAX_VALUE_BYTES + 1)
    lob.read.assert_called_once_with(1, MAX_VALUE_BYTES + 1)
    result = capped_result(["DOC"], [(render_value(lob),)], 10)
    assert len(result.rows[0][0].encode()) <= MAX_VALUE_BYTES + 200 and "cut" in result.note


# --------------------------------------------------------------------------- issue 36
def _parsed_wrapper(statement: str):
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(statement, read="oracle")
    assert isinstance(tree, exp.Select) and tree.args.get("limit") is not None or tree.find(exp.Fetch), statement
    return tree


@pytest.mark.parametrize("tail", ["-- the ports", "/* the ports */", "\n-- a\n/* b */", "-- ends with ;"])
def test_a_trailing_comment_stays_inside_the_query(monkeypatch, tail):
    """Defect 3: the wrapper puts the model's query on lines of its own, so a trailing `--`
    comment ends at its newline instead of hiding `)` and `:max_rows` (DPY-4008 before)."""
    reader = FakeConn(("PORT_NAME",), [("Rotterdam",)])
    eng, _ = make_engine(monkeypatch, reader)
    sql = f"SELECT PORT_NAME FROM PORTS {tail}"
    assert eng.supplychain.read_only_query(sql).rows == [("Rotterdam",)]
    run = statements_run(reader)[-1]
    assert run == osql.READ_ONLY_QUERY.format(query=sql.strip().rstrip(";").strip())
    _parsed_wrapper(run)
    _parsed_wrapper(osql.READ_ONLY_QUERY_RENAMED.format(columns="C1", query=sql))


def test_the_positional_wrapper_parses_nested_with_and_inner_order_by():
    """Risk 7: a query with its own WITH (nested in an inline view) and ORDER BY inside the
    wrapper's WITH clause, parsed with sqlglot's Oracle dialect; the live lane runs it."""
    from sqlglot import exp

    sql = """WITH busy AS (SELECT CARRIER_ID, COUNT(*) AS N FROM VOYAGES GROUP BY CARRIER_ID ORDER BY N DESC)
SELECT b.CARRIER_ID, b.N, c.CARRIER_ID FROM (WITH inner_q AS (SELECT * FROM busy) SELECT * FROM inner_q ORDER BY N DESC) b
  JOIN CARRIERS c ON c.CARRIER_ID = b.CARRIER_ID ORDER BY b.N DESC -- busiest first"""
    tree = _parsed_wrapper(osql.READ_ONLY_QUERY_RENAMED.format(columns=osql.positional_columns(3), query=sql))
    assert len(list(tree.find_all(exp.With))) == 3 and len(list(tree.find_all(exp.Order))) == 3


class _FakeLob:
    """A CLOB locator: records, at each round trip, the call timeout, whether the reader's lock
    is held and how many rollbacks (ends of the read-only transaction) happened before it."""

    def __init__(self, text: str, conn: FakeConn, lock) -> None:
        self.text, self.conn, self.lock = text, conn, lock
        self.seen: list[tuple[Any, ...]] = []

    def _trip(self):
        self.seen.append((self.conn.call_timeout, self.lock.locked(), self.conn.rollbacks))

    def size(self):
        self._trip()
        return len(self.text)

    def read(self, offset=1, amount=None):
        self._trip()
        return self.text[offset - 1:offset - 1 + (amount or len(self.text))]


def test_lobs_are_read_inside_the_deadline_and_the_readers_lock(monkeypatch):
    """Risk 3: each LOB round trip has a call timeout, holds the reader's lock and comes before
    the rollback that ends the read-only transaction (and before another thread may close it).
    Defect 6: the note names the whole value's size, not the size of the part read."""
    from workshop_lib.engines.readonly import MAX_VALUE_BYTES

    reader = FakeConn(("DOC",), [])
    eng, _ = make_engine(monkeypatch, reader)
    lob = _FakeLob("x" * 100_000, reader, eng.supplychain._reader_lock)
    reader.rows = [(lob,)]
    monkeypatch.setattr(oengine.oracledb, "LOB", _FakeLob)
    result = eng.supplychain.read_only_query("SELECT TO_CLOB('x') FROM dual", timeout_s=3.0)
    assert len(lob.seen) == 2 and all(timeout > 0 and locked and rollbacks == 0
                                      for timeout, locked, rollbacks in lob.seen), lob.seen
    assert "100,000 characters in all" in result.rows[0][0], result.rows[0][0][-120:]
    assert len(result.rows[0][0].encode()) < MAX_VALUE_BYTES + 200 and "1 value(s)" in result.note


def test_a_lob_read_past_the_deadline_is_stopped(monkeypatch):
    reader = FakeConn(("DOC",), [])
    eng, _ = make_engine(monkeypatch, reader)
    lob = _FakeLob("x" * 10, reader, eng.supplychain._reader_lock)
    reader.rows = [(lob,), (lob,)]  # max_rows + 1: one fetch, then the rows are rendered
    reader.on_fetch = lambda: time.sleep(0.3)  # the fetch uses up the whole deadline
    monkeypatch.setattr(oengine.oracledb, "LOB", _FakeLob)
    with pytest.raises(SqlRefused, match="stopped"):
        eng.supplychain.read_only_query("SELECT TO_CLOB('x') FROM dual", max_rows=1, timeout_s=0.2)
    assert lob.seen == [], "no LOB round trip once the deadline has passed"


class _LobEngine:
    """The engine side of a batch: the real bind rules, temporary CLOBs counted."""

    def __init__(self):
        self.clobs = []

    def bind_value(self, name, value, **kwargs):
        return OracleEngine.bind_value(self, name, value, **kwargs)

    def _clob(self, value):
        lob = mock.MagicMock(spec=oracledb.LOB)
        lob.text = value
        self.clobs.append(value)
        return lob


class _SizedRaw(_BatchRaw):
    def __init__(self):
        super().__init__([])
        self.sizes = {}

    def setinputsizes(self, **sizes):
        self.sizes.update(sizes)

    def executemany(self, statement, rows, **kwargs):
        super().executemany(statement, rows, **kwargs)
        self.rows = rows


def test_a_short_body_before_a_long_one_binds_every_body_as_a_clob():
    """Defect 2: the driver types a bind from the batch's first row; a short body bound as a
    string and a long one as a LOB meet DPY-3013. Every body of such a batch is a CLOB."""
    statement = osql.DOCS.CHUNK_INSERT.replace("{t}", "DOCS_V1")
    rows = _rows(3)
    rows[0]["body"], rows[1]["body"], rows[2]["body"] = "short", "長" * 2_000, None  # 6,000 bytes in UTF-8
    raw, eng = _SizedRaw(), _LobEngine()
    OracleCursor(eng, raw).executemany(statement, rows)
    assert raw.sizes == {"body": oracledb.DB_TYPE_CLOB}
    assert [isinstance(r["body"], oracledb.LOB) for r in raw.rows] == [True, True, False]
    assert [r["body"].text for r in raw.rows[:2]] == ["short", "長" * 2_000] and raw.rows[2]["body"] is None
    assert all(isinstance(r["source"], str) for r in raw.rows), "other binds keep their types"
    short_only = _SizedRaw()
    OracleCursor(_LobEngine(), short_only).executemany(statement, _rows(3))
    assert short_only.sizes == {} and all(isinstance(r["body"], str) for r in short_only.rows)


def test_a_store_object_another_session_created_first_is_not_an_error(monkeypatch):
    """Risk 4: two processes open a new store at once; the second's CREATE meets ORA-00955.
    That is success when the object now exists; any other object of that name still fails."""
    from workshop_lib.engines.oracle.backend import OracleBackend, created_name

    schema = [d.replace("{p}", "t_") for _, ddl in osql.SCHEMA + osql.MEMORY.MIGRATIONS for d in ddl]
    assert [created_name(d) for d in schema] == [
        "T_STORE_META", "T_THREADS", "T_RECORDS", "T_RECORDS_SCOPE_IX", "T_RECORDS_THREAD_IX",
        "T_RECORD_CHUNKS", "T_RECORDS_TEXT_IX", "T_MEMORY_STATUS",
        "T_MEMORY_STATUS_EXP_IX", "T_MEMORY_AUDIT"]

    class Engine:
        def __init__(self, existing):
            self.existing, self.run = existing, []

        @contextlib.contextmanager
        def cursor(self):  # handed to the backend as its reader, as the engine hands its _read_cursor
            yield self

        def execute(self, statement, params=None):
            self.run.append(statement)
            if statement.startswith("CREATE"):
                raise OracleWorkshopError("query", "ORA-00955: name is already used by an existing object")
            self.rows = [(n,) for n in self.existing]

        def fetchall(self):
            return self.rows

    ddl = [("RECORDS", ["CREATE TABLE T_RECORDS (x NUMBER)", "CREATE INDEX T_RECORDS_IX ON T_RECORDS (x)"])]
    both = Engine({"T_RECORDS", "T_RECORDS_IX"})
    OracleBackend(both, both.cursor).create_objects(ddl)
    with pytest.raises(OracleWorkshopError, match="create RECORDS.*ORA-00955"):
        one = Engine({"T_RECORDS"})
        OracleBackend(one, one.cursor).create_objects(ddl)  # T_RECORDS_IX is some other kind of object


# --------------------------------------------------------------------------- issue 36: both engines, live on Oracle
def test_a_batch_with_a_short_chunk_before_a_long_one_is_stored(engine_name, tmp_path):
    """Defect 2 on a real database: one batch, a short body then one over 4,000 bytes in UTF-8."""
    from workshop_lib import connect
    from workshop_lib.parts.ingest import index

    eng = connect(engine_name, path=tmp_path) if engine_name == "embedded" else connect("oracle")
    eng.open_store()
    table = "DOCS_T" + format(int(time.time() * 1000) % 10**9, "d")
    docs = eng.statements.docs
    bodies = ["short", "Ü" * 3_000, "港口" * 1_500]  # 2 and 3 bytes a character in UTF-8
    rows = [{"h": f"{i:064x}", "doc_id": "d", "chunk_no": i, "source": "s.md", "lang": "en", "tags": "[]",
             "body": body, "n_units": 2, "vec": eng.backend.vector_param([1.0] + [0.0] * (eng.model.dim - 1))}
            for i, body in enumerate(bodies)]
    try:
        index.ensure_table(eng, table)
        with eng.transaction() as cur:
            cur.executemany(index.fill(docs.CHUNK_INSERT, table), rows)
        stored = sorted(eng.query(f"SELECT chunk_no, body FROM {table}"))
        assert [(n, eng.backend.read_text(b)) for n, b in stored] == [(r["chunk_no"], r["body"]) for r in rows]
    finally:
        with eng.transaction() as cur:
            cur.execute(index.fill(docs.TABLE_DROP, table))
        eng.close()


@pytest.mark.oracle
def test_two_processes_creating_a_new_store_at_once_both_succeed():
    """Risk 4 on a real database: two connections open the same new prefix at the same moment."""
    import uuid

    from conftest import _require

    from workshop_lib import connect
    from workshop_lib.core.store import SchemaPolicy

    _require("oracle")
    a, b = connect("oracle"), connect("oracle")
    prefix = "T" + uuid.uuid4().hex[:8].upper() + "_"
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def open_store(eng):
        start.wait(30)
        try:
            eng.open_store(SchemaPolicy.CREATE_IF_NECESSARY, table_name_prefix=prefix)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    workers = [threading.Thread(target=open_store, args=(e,)) for e in (a, b)]
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join(300)
        assert errors == []
        store = a.open_store(SchemaPolicy.REQUIRE_EXISTING, table_name_prefix=prefix)
        assert store.count() == 0
    finally:
        scratch = a.open_store(SchemaPolicy.CREATE_IF_NECESSARY, table_name_prefix=prefix)
        a.backend.drop_objects(scratch.mem.DROP, [n for n, _ in scratch.mem.MIGRATIONS][::-1])
        a.backend.drop_objects(scratch.sql.DROP, [n for n, _ in scratch.sql.SCHEMA])
        a.close()
        b.close()


@pytest.mark.parametrize("aces, directories, ok", [
    ([], [], True),
    ([("*", None, None, "HTTP")], [], False),
    ([], [("DATA_PUMP_DIR", "READ")], False),
])
def test_doctor_names_the_network_and_file_packages_public_may_run(monkeypatch, aces, directories, ok):
    """Risk 9: PUBLIC's EXECUTE grants stay callable by the reader (a function runs inside
    run_sql's SELECT); the doctor names them and whether an ACE or a directory grant lets them work."""
    reader = FakeConn()

    def on_execute(statement):
        if statement == osql.READER_PUBLIC_PACKAGES:
            return ["TABLE_NAME"], [("DBMS_LOB",), ("UTL_FILE",), ("UTL_HTTP",), ("UTL_TCP",)]
        if statement == osql.READER_HOST_ACES:
            return ["HOST", "LOWER_PORT", "UPPER_PORT", "PRIVILEGE"], aces
        if statement == osql.READER_DIRECTORY_GRANTS:
            return ["TABLE_NAME", "PRIVILEGE"], directories
        return [], []

    reader.on_execute = on_execute
    eng, _ = make_engine(monkeypatch, reader)
    check = eng.supplychain.reader_packages_check()
    assert check.ok is ok and "PUBLIC may run UTL_HTTP, UTL_TCP and DBMS_LOB, UTL_FILE" in check.detail, check.detail
    assert ("ORA-24247" in check.detail) is (not aces)
    assert ("no directory grant" in check.detail) is (not directories)
    assert "UTL_HTTP" in osql.READER_PUBLIC_PACKAGES and "'PUBLIC'" in osql.READER_DIRECTORY_GRANTS


@pytest.mark.oracle
def test_the_doctor_says_what_public_lets_the_reader_run_on_a_real_database():
    """Risk 9 on the live lane: the container grants the reader no host ACE and no directory."""
    from conftest import _require

    from workshop_lib import connect

    _require("oracle")
    eng = connect("oracle")
    try:
        check = eng.supplychain.reader_packages_check()  # type: ignore[attr-defined]
        assert "PUBLIC may run" in check.detail and check.ok, check.detail
    finally:
        eng.close()


# --------------------------------------------------------------------------- doctor: the store's own checks
def _doctor_store(indexes, grants=("CREATE SESSION", "CREATE TABLE", "CREATE MINING MODEL"), spatial=("VALID",) * 3):
    """A store connection answering the doctor's statements: these grants, these index rows, a loaded model."""
    store = FakeConn()
    answers = {
        osql.CHECK_PRIVILEGES: (["PRIVILEGE"], [(g,) for g in grants]),
        osql.CHECK_SUPPLYCHAIN_ACCESS: (["N"], [(9,)]),
        osql.CHECK_INDEXES: (["INDEX_NAME", "INDEX_TYPE", "STATUS", "DOMIDX_STATUS", "DOMIDX_OPSTATUS"], indexes),
        osql.CHECK_VECTOR_MEMORY: (["VALUE"], [("512M",)]),
        osql.CHECK_MODEL: (["MODEL_NAME", "MINING_FUNCTION"], [(osql.MODEL_NAME, "EMBEDDING")]),
        osql.MODEL_DIMENSIONS: (["N"], [(osql.DIM,)]),
        osql.CHECK_PORTS_SPATIAL_INDEX: (["STATUS", "D", "O"], [spatial] if spatial else []),
    }
    store.on_execute = lambda statement: answers.get(statement, ([], []))
    return store


def test_doctor_reads_the_stores_checks_by_column_name(monkeypatch):
    from workshop_lib.engines.oracle.connection import REQUIRED_PRIVILEGES

    good = [("RECORDS_PK", "NORMAL", "VALID", "VALID", "VALID"), ("RECORDS_TXT", "DOMAIN", "VALID", "VALID", "VALID")]
    eng, _ = make_engine(monkeypatch, FakeConn((), ()), _doctor_store(good, grants=REQUIRED_PRIVILEGES))
    checks = {c.name: c for c in eng.backend.doctor_checks()}
    for name in ("Oracle user and grants", "memory store indexes VALID", "no vector index (exact search)",
                 "in-database embedding model", "spatial index on PORTS.LOCATION", "vector memory (VECTOR_MEMORY_SIZE)"):
        assert checks[name].ok, (name, checks[name].detail)
    assert "sees 9 SUPPLYCHAIN tables" in checks["Oracle user and grants"].detail
    assert checks["memory store indexes VALID"].detail == "2 indexes, all VALID"
    assert f"{osql.DIM} dims" in checks["in-database embedding model"].detail
    assert "512M" in checks["vector memory (VECTOR_MEMORY_SIZE)"].detail


def test_doctor_names_an_invalid_index_a_vector_index_and_a_missing_grant(monkeypatch):
    bad = [("RECORDS_TXT", "DOMAIN", "VALID", "FAILED", "VALID"),
           ("RECORD_CHUNKS_VEC_IX", "VECTOR", "VALID", "VALID", "VALID")]
    eng, _ = make_engine(monkeypatch, FakeConn((), ()), _doctor_store(bad, grants=("CREATE SESSION",), spatial=None))
    checks = {c.name: c for c in eng.backend.doctor_checks()}
    assert not checks["memory store indexes VALID"].ok
    assert checks["memory store indexes VALID"].detail == "2 indexes, not valid: RECORDS_TXT"
    assert not checks["no vector index (exact search)"].ok
    assert not checks["Oracle user and grants"].ok and "lacks" in checks["Oracle user and grants"].detail
    assert not checks["spatial index on PORTS.LOCATION"].ok
    assert checks["spatial index on PORTS.LOCATION"].detail == "PORTS_LOCATION_SIX missing"

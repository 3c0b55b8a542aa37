"""The database seam (engines/database.py): both engines are a Database, `trace()` records every
statement sent with its bind names and entry point, and nothing built on the engine reaches its
private state or its driver connection."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from workshop_lib import connect
from workshop_lib.data import supplychain_data
from workshop_lib.engines.database import Database, Sent
from workshop_lib.engines.embedded.engine import EmbeddedEngine
from workshop_lib.engines.oracle.engine import OracleEngine
from workshop_lib.tools import seam_report


def as_database(eng: EmbeddedEngine | OracleEngine) -> Database:
    return eng  # mypy checks that both engines implement the protocol


@pytest.fixture
def eng(tmp_path: Path) -> Iterator[EmbeddedEngine]:
    engine = connect("embedded", path=tmp_path)
    assert isinstance(engine, EmbeddedEngine)
    yield engine
    engine.close()


def test_trace_records_each_statement_with_its_binds_and_entry_point(eng: EmbeddedEngine) -> None:
    db = as_database(eng)
    db.query(db.statements.ping)  # before the trace: not recorded
    with db.trace() as sent:
        db.query("SELECT :a + :b", {"b": 2, "a": 1})
        with db.transaction() as cur:
            cur.execute("CREATE TABLE t_seam (x INTEGER)")
            cur.execute("INSERT INTO t_seam (x) VALUES (:x)", {"x": 1})
        assert db.query("SELECT x FROM t_seam", max_rows=1) == [(1,)]
    db.query(db.statements.ping)  # after it: not recorded either
    assert sent == [Sent("SELECT :a + :b", ("a", "b"), "query"),
                    Sent("CREATE TABLE t_seam (x INTEGER)", (), "transaction"),
                    Sent("INSERT INTO t_seam (x) VALUES (:x)", ("x",), "transaction"),
                    Sent("SELECT x FROM t_seam", (), "query")]


def test_the_outermost_entry_point_names_what_a_schema_method_sent(eng: EmbeddedEngine) -> None:
    from workshop_lib.data import supplychain

    supplychain.seed(eng, progress=False)
    with eng.trace() as sent:
        eng.supplychain.data_dictionary("SUPPLYCHAIN")  # its queries run through query() and a cursor
        eng.supplychain.read_only_query("SELECT COUNT(*) FROM PORTS WHERE unlocode <> :p0", params={"p0": "x"})
    vias = [s.via for s in sent]
    assert len(vias) > 2 and set(vias[:-1]) == {"supplychain.data_dictionary"}
    assert vias[-1] == "supplychain.read_only_query" and sent[-1].binds == ("p0",)


def test_counts_and_first_rows_are_plain_queries_of_the_dialects_statements(eng: EmbeddedEngine) -> None:
    from workshop_lib.data import supplychain

    supplychain.seed(eng, progress=False)
    with eng.trace() as sent:
        counted = supplychain.counts(eng, supplychain_data.TABLES[:2])
        first = supplychain.sample(eng, "ports", 2, ["unlocode"])
    names = [t.name for t in supplychain_data.TABLES[:2]]
    assert counted == {n: len(supplychain_data.rows()[n]) for n in names}
    assert len(first) == 2 and list(first.columns) == ["UNLOCODE"]
    assert [s.via for s in sent] == ["query", "query", "query"]
    assert sent[0].statement == eng.statements.supplychain.count(supplychain_data.TABLES[0])


def test_traces_nest_and_end_with_their_block(eng: EmbeddedEngine) -> None:
    with eng.trace() as outer:
        eng.query("SELECT 1")
        with eng.trace() as inner:
            eng.query("SELECT 2")
        eng.query("SELECT 3")
    assert [s.statement for s in outer] == ["SELECT 1", "SELECT 2", "SELECT 3"]
    assert [s.statement for s in inner] == ["SELECT 2"]


def test_the_driver_connection_is_private(eng: EmbeddedEngine) -> None:
    assert not hasattr(eng, "conn")


def test_nothing_built_on_the_engine_reaches_its_private_state() -> None:
    total, private = seam_report.backrefs()
    assert total > 0 and private == []


def test_nothing_outside_the_engines_reaches_a_driver_connection() -> None:
    assert seam_report.conn_uses() == []


def test_code_outside_the_engines_runs_sql_three_ways() -> None:
    # transaction (statements of its own), query (one statement's rows, or its first max_rows) and the
    # read-only boundary; a new entry point is counted here (seam_report.ENTRY_POINTS keeps the names
    # that went: the cursor is private to the engines).
    assert set(seam_report.sql_entry_points()) == {"eng.transaction", "eng.query",
                                                   "eng.supplychain.read_only_query"}


def test_the_cursor_is_private_to_the_engines(eng: EmbeddedEngine) -> None:
    assert not hasattr(eng, "cursor") and not hasattr(eng.scoped("seam-user"), "cursor")


def test_no_check_or_test_replaces_an_engine_method_to_watch_sql() -> None:
    assert seam_report.patching() == []


def test_a_bind_left_out_is_said_plainly_before_the_driver_sees_it(eng: EmbeddedEngine) -> None:
    from workshop_lib.engines.database import MissingBinds, statement_binds

    assert statement_binds("SELECT ':x', a FROM t WHERE b = :b AND c::int = 1 -- :c\n AND d = :d_1 /* :e */") == {"b", "d_1"}
    with pytest.raises(MissingBinds, match=r":b") as caught:
        eng.query("SELECT :a + :b", {"a": 1})
    assert "Pass a value" in caught.value.fix
    assert eng.query("SELECT :a + :b", {"a": 1, "b": 2})[0][0] == 3  # every bind given: it runs
    assert eng.query("SELECT ':a'")[0][0] == ":a"  # a colon inside a literal is text, not a bind

"""run_sql on every engine: results with same-named columns, and nothing but
SUPPLYCHAIN readable, not even by a qualified name.

Runs on the embedded engine always and on Oracle when ORACLE_DSN points at a bootstrapped
database (`pytest -m oracle`; skipped with the reason otherwise). On Oracle the queries run as
the reader user (SC_READER), which has only CREATE SESSION and SELECT on the SUPPLYCHAIN tables.
"""
from __future__ import annotations

import json

import pytest
from conftest import ENGINES, _require

from workshop_lib import connect
from workshop_lib.data import supplychain
from workshop_lib.data.supplychain_data import TABLES
from workshop_lib.engines.readonly import SqlRefused
from workshop_lib.parts.agent import toolbox

COLUMNS = {t.name: t.column_names for t in TABLES}


@pytest.fixture(scope="module", params=ENGINES)
def sql_eng(request, tmp_path_factory):
    """SUPPLYCHAIN seeded (embedded: a fresh folder with the store created; Oracle: by the bootstrap)."""
    _require(request.param)
    if request.param == "embedded":
        eng = connect("embedded", path=tmp_path_factory.mktemp("agent_sql"))
        eng.open_store()
        supplychain.seed(eng, progress=False)
    else:
        eng = connect("oracle")
    yield eng
    eng.close()


def _run_sql(eng, sql: str):
    """The agent's run_sql tool, dispatched as the model's call would be."""
    return toolbox.build_registry(eng, max_rows=5).dispatch("call-1", "run_sql", json.dumps({"sql": sql}))


# --------------------------------------------------------------------------- same-named columns (item 2)
def test_a_join_of_two_tables_sharing_a_column_returns_both(sql_eng):
    """VOYAGES and VESSELS both have IMO_NUMBER: `SELECT v.*, s.*` has it twice. SQLite accepts that;
    on Oracle the wrapper's `SELECT *` would fail with ORA-00918 without the positional aliases."""
    result = sql_eng.supplychain.read_only_query("SELECT v.*, s.* FROM VOYAGES v JOIN VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                                     "ORDER BY v.VOYAGE_ID", max_rows=3)
    assert result.columns == COLUMNS["VOYAGES"] + COLUMNS["VESSELS"]
    assert len(result.rows) == 3 and result.truncated
    first_imo = COLUMNS["VOYAGES"].index("IMO_NUMBER")
    second_imo = len(COLUMNS["VOYAGES"]) + COLUMNS["VESSELS"].index("IMO_NUMBER")
    assert all(row[first_imo] == row[second_imo] for row in result.rows)
    ids = sql_eng.supplychain.read_only_query("SELECT VOYAGE_ID FROM VOYAGES ORDER BY VOYAGE_ID", max_rows=3).rows
    assert [row[0] for row in result.rows] == [i for (i,) in ids]


def test_the_same_column_twice(sql_eng):
    result = sql_eng.supplychain.read_only_query("SELECT VOYAGE_ID, VOYAGE_ID FROM VOYAGES ORDER BY VOYAGE_ID", max_rows=2)
    assert result.columns == ["VOYAGE_ID", "VOYAGE_ID"]
    assert all(a == b for a, b in result.rows) and len(result.rows) == 2


def test_the_tool_returns_a_same_named_join_to_the_model(sql_eng):
    out = _run_sql(sql_eng, "SELECT v.VOYAGE_ID, v.IMO_NUMBER, s.IMO_NUMBER FROM VOYAGES v "
                            "JOIN VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY v.VOYAGE_ID")
    assert out.ok, out.error
    assert out.content.splitlines()[0] == "VOYAGE_ID | IMO_NUMBER | IMO_NUMBER"


def test_an_unqualified_shared_column_is_refused_with_the_reason(sql_eng):
    with pytest.raises(SqlRefused, match="(?i)ambiguous"):
        sql_eng.supplychain.read_only_query("SELECT IMO_NUMBER FROM VOYAGES v JOIN VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER")


# --------------------------------------------------------------------------- only SUPPLYCHAIN (item 1)
def _private_names(eng) -> list[str]:
    """Qualified names of the store's own tables, as a model could write them."""
    owner = "main" if eng.name == "embedded" else eng.user
    return [f"{owner}.RECORDS", f"{owner}.RECORD_CHUNKS"]


def test_the_store_is_not_readable_by_its_qualified_name(sql_eng):
    for name in _private_names(sql_eng):
        with pytest.raises(SqlRefused):
            sql_eng.supplychain.read_only_query(f"SELECT * FROM {name}")
        out = _run_sql(sql_eng, f"SELECT COUNT(*) FROM {name}")
        assert not out.ok and out.error, f"{name} was readable through run_sql: {out.content[:200]}"


@pytest.mark.oracle
def test_the_oracle_reader_sees_no_table_of_the_store_owner():
    """The reader has no grant on the store owner's objects, so the data dictionary does not list
    them either: there is nothing to read even through a view or synonym it might find."""
    _require("oracle")
    eng = connect("oracle")
    try:
        rows = eng.supplychain.read_only_query(f"SELECT COUNT(*) FROM ALL_OBJECTS WHERE OWNER = '{eng.user}'").rows
        assert rows == [(0,)]
        visible = eng.supplychain.read_only_query("SELECT COUNT(*) FROM ALL_TABLES WHERE OWNER = 'SUPPLYCHAIN'").rows[0][0]
        assert visible == len(TABLES)
    finally:
        eng.close()

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
        rows = eng.supplychain.read_only_query(f"SELECT COUNT(*) FROM ALL_OBJECTS WHERE OWNER = '{eng.user}'").rows  # type: ignore[attr-defined]
        assert rows == [(0,)]
        visible = eng.supplychain.read_only_query("SELECT COUNT(*) FROM ALL_TABLES WHERE OWNER = 'SUPPLYCHAIN'").rows[0][0]
        assert visible == len(TABLES)
    finally:
        eng.close()


# --------------------------------------------------------------------------- issue 36
@pytest.mark.parametrize("tail", ["-- alphabetical", "/* alphabetical */", "\n-- first\n/* second */",
                                  "-- ends with ;"])
def test_a_query_ending_in_a_comment_runs(sql_eng, tail):
    """Defect 3: the model's SQL often ends with a comment; Oracle's wrapper used to lose its
    closing parenthesis and row-limit bind to a trailing `--` comment."""
    result = sql_eng.supplychain.read_only_query(f"SELECT PORT_NAME FROM PORTS ORDER BY PORT_NAME {tail}", max_rows=2)
    assert result.columns == ["PORT_NAME"] and len(result.rows) == 2 and result.truncated


NESTED = """WITH fleet AS (SELECT CARRIER_ID, COUNT(*) AS N FROM VESSELS GROUP BY CARRIER_ID ORDER BY N DESC)
SELECT b.CARRIER_ID, b.N, c.CARRIER_ID
  FROM (WITH ranked AS (SELECT CARRIER_ID, N FROM fleet) SELECT CARRIER_ID, N FROM ranked ORDER BY N DESC, CARRIER_ID) b
  JOIN CARRIERS c ON c.CARRIER_ID = b.CARRIER_ID
 ORDER BY b.N DESC, b.CARRIER_ID -- biggest fleets first"""


def test_same_named_columns_with_a_nested_with_and_inner_order_by(sql_eng):
    """Risk 7: on Oracle the two CARRIER_ID columns send the query through the positional-alias
    wrapper, whose WITH clause then holds the query's own WITH, a nested WITH and ORDER BYs."""
    result = sql_eng.supplychain.read_only_query(NESTED, max_rows=50)
    assert result.columns == ["CARRIER_ID", "N", "CARRIER_ID"] and not result.truncated
    assert all(a == c for a, _, c in result.rows) and len(result.rows) > 1
    counts = [n for _, n, _ in result.rows]
    assert counts == sorted(counts, reverse=True) and sum(counts) == len(supplychain_rows("VESSELS"))


def supplychain_rows(table: str) -> list[tuple]:
    from workshop_lib.data.supplychain_data import rows

    return rows()[table]


def test_a_long_value_is_cut_with_the_size_of_the_whole_value(sql_eng):
    """Defect 6: the note on a cut value gives the whole value's size (Oracle: a CLOB built by
    the query, read through its locator; embedded: a string built in SQLite)."""
    sql = ("SELECT TO_CLOB(RPAD('x', 4000, 'x')) || RPAD('y', 4000, 'y') || RPAD('z', 4000, 'z') AS BIG FROM dual"
           if sql_eng.name == "oracle" else "SELECT printf('%.*c', 12000, 'x') AS BIG")
    result = sql_eng.supplychain.read_only_query(sql)
    value = result.rows[0][0]
    assert "[value cut: 12,000 " in value and "in all" in value, value[-120:]
    assert "1 value(s)" in result.note


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    import math

    p1, p2, dlat, dlon = map(math.radians, (lat1, lat2, lat2 - lat1, lon2 - lon1))
    a = math.sin(dlat / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(a))


@pytest.mark.oracle
def test_spatial_operators_run_through_run_sql_as_the_reader():
    """Risk 2: the LOCATION column's comment tells the model to use SDO_NN and
    SDO_WITHIN_DISTANCE; they run as the least-privilege reader inside a read-only transaction."""
    _require("oracle")
    eng = connect("oracle")
    point = "SDO_GEOMETRY(2001, 4326, SDO_POINT_TYPE(4.14, 51.95, NULL), NULL, NULL)"  # Rotterdam
    try:
        nearest = eng.supplychain.read_only_query(
            "SELECT p.UNLOCODE, ROUND(SDO_NN_DISTANCE(1), 1) AS KM FROM PORTS p "
            f"WHERE SDO_NN(p.LOCATION, {point}, 'sdo_num_res=3 unit=KM', 1) = 'TRUE' ORDER BY KM")
        assert [r[0] for r in nearest.rows] == [r[1] for r in eng.supplychain.nearest_ports(4.14, 51.95)]
        assert nearest.rows[0][0] == "NLRTM" and nearest.rows[0][1] < 1
        within = eng.supplychain.read_only_query(
            "SELECT p.UNLOCODE FROM PORTS p "
            f"WHERE SDO_WITHIN_DISTANCE(p.LOCATION, {point}, 'distance=500 unit=KM') = 'TRUE' ORDER BY p.UNLOCODE",
            max_rows=200)
        found = {r[0] for r in within.rows}
        ports = supplychain_rows("PORTS")
        names = COLUMNS["PORTS"]
        code, lat, lon = names.index("UNLOCODE"), names.index("LATITUDE"), names.index("LONGITUDE")
        assert "NLRTM" in found
        assert {p[code] for p in ports if _km(51.95, 4.14, p[lat], p[lon]) < 490} <= found
        assert found <= {p[code] for p in ports if _km(51.95, 4.14, p[lat], p[lon]) < 510}
    finally:
        eng.close()

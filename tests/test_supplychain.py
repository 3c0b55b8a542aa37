"""The SUPPLYCHAIN dataset and its embedded seeding."""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from stdnum import imo as stdnum_imo
from stdnum import iso6346 as stdnum_iso6346

from workshop_lib import connect
from workshop_lib.data import supplychain
from workshop_lib.data.supplychain_data import REFERENCE_DATE, TABLES, TABLES_BY_NAME, imo_check_digit_ok, iso6346_check_digit_ok, rows

EXPECTED_COUNTS = {
    "CARRIERS": 15, "PORTS": 25, "VESSELS": 30, "VOYAGES": 60,
    "CONTAINERS": 150, "CARGO_ITEMS": 300,
}


@pytest.fixture(scope="module")
def data():
    return rows()


@pytest.fixture
def eng(tmp_path):
    engine = connect("embedded", path=tmp_path)
    yield engine
    engine.close()


@pytest.fixture
def seeded(eng):
    supplychain.seed(eng)
    return eng


def as_dicts(data, table):
    names = TABLES_BY_NAME[table].column_names
    return [dict(zip(names, r)) for r in data[table]]


def dump(eng) -> dict[str, list[tuple]]:
    out = {}
    for t in TABLES:
        pk = ", ".join(t.primary_key)
        out[t.name] = eng.query(f"SELECT * FROM SUPPLYCHAIN.{t.name} ORDER BY {pk}")
    out["ALL_COL_COMMENTS"] = eng.query(
        "SELECT * FROM SUPPLYCHAIN.ALL_COL_COMMENTS ORDER BY table_name, column_name")
    return out


# --------------------------------------------------------------------------- dataset
def test_table_order_and_counts(data):
    assert [t.name for t in TABLES] == [
        "CARRIERS", "PORTS", "VESSELS", "VOYAGES", "VESSEL_POSITIONS", "CONTAINERS", "CARGO_ITEMS"]
    for table, n in EXPECTED_COUNTS.items():
        assert len(data[table]) == n, table
    assert 25 <= len(data["VESSEL_POSITIONS"]) <= 30


def test_rows_match_column_order(data):
    for t in TABLES:
        assert all(len(r) == len(t.columns) for r in data[t.name]), t.name
        for i, col in enumerate(t.columns):
            if not col.nullable:
                assert all(r[i] is not None for r in data[t.name]), f"{t.name}.{col.name}"


def test_rows_deterministic():
    assert rows() == rows()


def test_primary_keys_unique(data):
    for t in TABLES:
        idx = [t.column_names.index(c) for c in t.primary_key]
        keys = [tuple(r[i] for i in idx) for r in data[t.name]]
        assert len(keys) == len(set(keys)), t.name


def test_foreign_keys_resolve(data):
    for t in TABLES:
        for fk in t.foreign_keys:
            ref = TABLES_BY_NAME[fk.ref_table]
            ref_idx = [ref.column_names.index(c) for c in fk.ref_columns]
            targets = {tuple(r[i] for i in ref_idx) for r in data[ref.name]}
            idx = [t.column_names.index(c) for c in fk.columns]
            for r in data[t.name]:
                assert tuple(r[i] for i in idx) in targets, (t.name, fk, r)


def test_voyages_status_and_dates(data):
    for v in as_dicts(data, "VOYAGES"):
        assert v["ORIGIN_PORT_ID"] != v["DESTINATION_PORT_ID"]
        assert v["STATUS"] in ("ACTIVE", "SCHEDULED", "COMPLETED")
        assert isinstance(v["DEPARTURE_DATE"], date) and v["DEPARTURE_DATE"] < v["ARRIVAL_DATE"]
        if v["STATUS"] == "COMPLETED":
            assert v["ARRIVAL_DATE"] < REFERENCE_DATE
        elif v["STATUS"] == "ACTIVE":
            assert v["DEPARTURE_DATE"] < REFERENCE_DATE < v["ARRIVAL_DATE"]
        else:
            assert v["DEPARTURE_DATE"] > REFERENCE_DATE
    statuses = {v["STATUS"] for v in as_dicts(data, "VOYAGES")}
    assert statuses == {"ACTIVE", "SCHEDULED", "COMPLETED"}


def test_a_vessel_never_sails_two_voyages_at_once(data):
    by_vessel: dict[Any, Any] = {}
    for v in as_dicts(data, "VOYAGES"):
        by_vessel.setdefault(v["IMO_NUMBER"], []).append(v)
    for legs in by_vessel.values():
        legs.sort(key=lambda v: v["DEPARTURE_DATE"])
        for a, b in zip(legs, legs[1:]):
            assert a["ARRIVAL_DATE"] <= b["DEPARTURE_DATE"]


def test_one_position_per_active_voyage(data):
    active = {(v["IMO_NUMBER"], v["VOYAGE_ID"]) for v in as_dicts(data, "VOYAGES") if v["STATUS"] == "ACTIVE"}
    positions = as_dicts(data, "VESSEL_POSITIONS")
    assert {(p["IMO_NUMBER"], p["VOYAGE_ID"]) for p in positions} == active
    assert len(positions) == len(active)


def _wrap(deg):
    return (deg + 180) % 360 - 180


def test_positions_lie_between_origin_and_destination(data):
    ports = {p["PORT_ID"]: p for p in as_dicts(data, "PORTS")}
    voyages = {v["VOYAGE_ID"]: v for v in as_dicts(data, "VOYAGES")}
    for p in as_dicts(data, "VESSEL_POSITIONS"):
        v = voyages[p["VOYAGE_ID"]]
        o, d = ports[v["ORIGIN_PORT_ID"]], ports[v["DESTINATION_PORT_ID"]]
        lo, hi = sorted((o["LATITUDE"], d["LATITUDE"]))
        assert lo - 1e-6 <= p["LATITUDE"] <= hi + 1e-6
        # Longitudes compared the short way round, so Pacific crossings work too.
        total, done = _wrap(d["LONGITUDE"] - o["LONGITUDE"]), _wrap(p["LONGITUDE"] - o["LONGITUDE"])
        assert abs(done) <= abs(total) + 1e-6 and done * total >= 0
        assert 0 <= p["HEADING_DEG"] <= 359 and 5 <= p["SPEED_KNOTS"] <= 25
        assert v["DEPARTURE_DATE"] <= p["REPORTED_AT"].date() <= REFERENCE_DATE


def test_identifiers_are_valid_for_an_independent_implementation(data):
    # python-stdnum's IMO and ISO 6346 validators, not the generator's own check-digit code.
    bad_imo = [v[0] for v in data["VESSELS"] if not stdnum_imo.is_valid(str(v[0]))]
    assert not bad_imo, f"IMO numbers with a wrong check digit: {bad_imo}"
    numbers = [r[TABLES_BY_NAME["CONTAINERS"].column_names.index("CONTAINER_NUMBER")] for r in data["CONTAINERS"]]
    bad_iso = [n for n in numbers if not stdnum_iso6346.is_valid(n)]
    assert not bad_iso, f"container numbers with a wrong ISO 6346 check digit: {bad_iso}"


def test_imo_check_digits(data):
    assert all(imo_check_digit_ok(v[0]) for v in data["VESSELS"])
    assert imo_check_digit_ok(9074729)  # a well-known valid example
    for imo, *_ in data["VESSELS"]:
        wrong = imo - imo % 10 + (imo % 10 + 1) % 10
        assert not imo_check_digit_ok(wrong)
    assert not imo_check_digit_ok(123456)  # six digits is not an IMO number


def test_iso6346_check_digits(data):
    numbers = [c[1] for c in data["CONTAINERS"]]
    assert all(iso6346_check_digit_ok(n) for n in numbers)
    assert iso6346_check_digit_ok("CSQU3054383")  # the example from the standard
    assert not iso6346_check_digit_ok("CSQU3054384")
    assert not iso6346_check_digit_ok("CSQU305438")


def test_port_coordinates(data):
    ports = {p["UNLOCODE"]: p for p in as_dicts(data, "PORTS")}
    for p in ports.values():
        assert -90 <= p["LATITUDE"] <= 90 and -180 <= p["LONGITUDE"] <= 180
        assert p["UNLOCODE"][:2] == p["COUNTRY_CODE"]
    for code, lat, lon in [("SGSIN", 1.26, 103.84), ("NLRTM", 51.95, 4.14),
                           ("CNSHA", 31.23, 121.48), ("USLAX", 33.74, -118.27)]:
        assert abs(ports[code]["LATITUDE"] - lat) < 0.5 and abs(ports[code]["LONGITUDE"] - lon) < 0.5, code


def test_cargo_values_are_integer_cents(data):
    for c in as_dicts(data, "CARGO_ITEMS"):
        assert isinstance(c["UNIT_VALUE_CENTS"], int) and c["UNIT_VALUE_CENTS"] > 0
        assert len(c["HS_CODE"]) == 6 and c["HS_CODE"].isdigit()


def test_surprising_comments_say_so():
    teu = next(c for c in TABLES_BY_NAME["VESSELS"].columns if c.name == "CAPACITY_TEU").comment.lower()
    assert "teu" in teu and "twenty-foot" in teu and "never" in teu and "ton" in teu
    cents = next(c for c in TABLES_BY_NAME["CARGO_ITEMS"].columns if c.name == "UNIT_VALUE_CENTS").comment.lower()
    assert "cents" in cents and "never" in cents and "dollars" in cents and "100" in cents
    positions = TABLES_BY_NAME["VESSEL_POSITIONS"].comment.lower()
    assert "latest" in positions and "ais" in positions and "active" in positions


# --------------------------------------------------------------------------- seeding
def test_seed_counts_match_data(eng, data):
    counts = supplychain.seed(eng)
    assert counts == {t.name: len(data[t.name]) for t in TABLES}
    for name, n in counts.items():
        assert eng.query(f"SELECT COUNT(*) FROM SUPPLYCHAIN.{name}")[0][0] == n


def test_seed_twice_is_identical(eng):
    first_counts = supplychain.seed(eng)
    first = dump(eng)
    assert supplychain.seed(eng) == first_counts
    assert dump(eng) == first


def test_seeded_values_round_trip(seeded, data):
    # Dates are stored as ISO text; everything else as given.
    got = seeded.query("SELECT * FROM SUPPLYCHAIN.VOYAGES ORDER BY VOYAGE_ID")
    want = [tuple(x.isoformat() if isinstance(x, date) else x for x in r) for r in data["VOYAGES"]]
    assert got == want
    hs = seeded.query("SELECT HS_CODE FROM SUPPLYCHAIN.CARGO_ITEMS WHERE HS_CODE LIKE '0%'")
    assert hs and all(len(h) == 6 for (h,) in hs)  # leading zeros kept


def test_no_dangling_foreign_keys_in_db(seeded):
    assert seeded.query("PRAGMA SUPPLYCHAIN.foreign_key_check") == []
    orphans = seeded.query(
        "SELECT COUNT(*) FROM SUPPLYCHAIN.CARGO_ITEMS ci "
        "LEFT JOIN SUPPLYCHAIN.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID WHERE c.CONTAINER_ID IS NULL")
    assert orphans == [(0,)]


def test_every_table_and_column_has_a_comment(seeded):
    tab = dict(seeded.query(
        "SELECT table_name, comments FROM SUPPLYCHAIN.ALL_TAB_COMMENTS WHERE owner = 'SUPPLYCHAIN' "
        "AND table_type = 'TABLE'"))
    assert set(tab) == {t.name for t in TABLES}
    assert all(text and text.strip() for text in tab.values())
    cols = {(t, c): text for t, c, text in seeded.query(
        "SELECT table_name, column_name, comments FROM SUPPLYCHAIN.ALL_COL_COMMENTS WHERE owner = 'SUPPLYCHAIN'")}
    for t in TABLES:
        for info in seeded.query(f'PRAGMA SUPPLYCHAIN.table_info("{t.name}")'):
            text = cols.get((t.name, info[1]))
            assert text and text.strip(), f"{t.name}.{info[1]}"


def test_data_dictionary_reads_tables_types_and_keys(seeded):
    cat = seeded.supplychain.data_dictionary("SUPPLYCHAIN")
    assert sorted(t["table"] for t in cat["tables"]) == sorted(t.name for t in TABLES)
    cols = {(c["table"], c["column"]): c for c in cat["columns"]}
    assert cols[("VESSELS", "CAPACITY_TEU")]["type_detail"] == "NUMBER(6)"
    assert cols[("PORTS", "LATITUDE")]["type_detail"] == "NUMBER(9,6)"
    assert cols[("CARRIERS", "ALLIANCE")]["nullable"] is True
    assert cols[("VESSELS", "VESSEL_NAME")]["nullable"] is False
    assert "never" in cols[("CARGO_ITEMS", "UNIT_VALUE_CENTS")]["comment"].lower()
    fks = {(f["table"], tuple(f["columns"]), f["ref_table"], tuple(f["ref_columns"])) for f in cat["foreign_keys"]}
    assert fks == {
        ("VESSELS", ("CARRIER_ID",), "CARRIERS", ("CARRIER_ID",)),
        ("VOYAGES", ("IMO_NUMBER",), "VESSELS", ("IMO_NUMBER",)),
        ("VOYAGES", ("ORIGIN_PORT_ID",), "PORTS", ("PORT_ID",)),
        ("VOYAGES", ("DESTINATION_PORT_ID",), "PORTS", ("PORT_ID",)),
        ("VESSEL_POSITIONS", ("IMO_NUMBER",), "VESSELS", ("IMO_NUMBER",)),
        ("VESSEL_POSITIONS", ("VOYAGE_ID",), "VOYAGES", ("VOYAGE_ID",)),
        ("CONTAINERS", ("VOYAGE_ID",), "VOYAGES", ("VOYAGE_ID",)),
        ("CARGO_ITEMS", ("CONTAINER_ID",), "CONTAINERS", ("CONTAINER_ID",)),
    }


def test_seed_leaves_the_sql_to_the_engine(data):
    class FakeSchema:
        def load(self, tables, table_rows, *, progress=True):
            self.got = (tables, table_rows)
            return {t.name: len(table_rows[t.name]) for t in tables}

    class FakeOracle:
        name = "oracle"
        supplychain = FakeSchema()

    fake = FakeOracle()
    counts = supplychain.seed(fake)
    assert fake.supplychain.got[0] is TABLES and fake.supplychain.got[1] == data
    assert counts["VESSELS"] == 30


# --------------------------------------------------------------------------- display helpers
def test_describe_frame(data):
    df = supplychain.describe()
    assert list(df.columns) == ["table", "rows", "comment"]
    assert list(df["table"]) == [t.name for t in TABLES]
    assert dict(zip(df["table"], df["rows"])) == {t.name: len(data[t.name]) for t in TABLES}


def test_comments_block_quotes_and_covers_everything():
    block = supplychain.comments_block()
    n_columns = sum(len(t.columns) for t in TABLES)
    assert block.count("COMMENT ON TABLE SUPPLYCHAIN.") == len(TABLES)
    # every column, plus PORTS.LOCATION: the SDO_GEOMETRY column only the Oracle rendering has
    assert block.count("COMMENT ON COLUMN SUPPLYCHAIN.") == n_columns + 1
    assert "COMMENT ON COLUMN SUPPLYCHAIN.PORTS.LOCATION IS" in block
    assert "carrier''s head office" in block  # single quotes doubled
    for line in block.splitlines():
        if line:
            body = line.split(" IS ", 1)[1]
            assert body.startswith("'") and body.endswith("';")
            assert "'" not in body[1:-2].replace("''", "")


def test_nearest_ports_on_both_engines(seeded_engine):
    """The same distance question on each engine (Oracle: SDO_NN over the spatial index; embedded: haversine)."""
    rows = seeded_engine.supplychain.nearest_ports(lon=9.99, lat=53.55)  # the port of Hamburg
    assert [r[1] for r in rows][:1] == ["DEHAM"] and rows[0][2] < 5
    assert len(rows) == 3 and [r[2] for r in rows] == sorted(r[2] for r in rows)
    assert 400 < rows[1][2] < 480  # Rotterdam, about 430 km away as the crow flies


class _FakeCursor:
    """Answers the two reads of _port_spatial_index: the metadata's tolerances, whether the index exists."""

    def __init__(self, tolerances, has_index, fail_on=None):
        self.tolerances, self.has_index, self.fail_on, self.sent = list(tolerances), has_index, fail_on, list[str]()
        from types import SimpleNamespace
        self.connection = SimpleNamespace(commit=lambda: self.sent.append("COMMIT"))

    def execute(self, sql, binds=None):
        if self.fail_on and self.fail_on in sql:
            import oracledb
            raise oracledb.DatabaseError("ORA-13249: internal error in Spatial index")
        self.sent.append(sql)

    def fetchall(self):
        return [(t,) for t in self.tolerances]

    def fetchone(self):
        return (int(self.has_index),)


def test_oracle_seed_creates_metadata_and_spatial_index_once(capsys):
    from workshop_lib.engines.oracle import sql as osql
    from workshop_lib.engines.oracle.supplychain import OracleSupplyChain

    fresh = _FakeCursor([], False)
    OracleSupplyChain._port_spatial_index(fresh)
    assert osql.SC_PORT_GEOM_METADATA in fresh.sent and osql.SC_PORT_SPATIAL_INDEX in fresh.sent
    assert fresh.sent.index(osql.SC_PORT_GEOM_METADATA) < fresh.sent.index(osql.SC_PORT_SPATIAL_INDEX)
    again = _FakeCursor([osql.PORT_GEOM_TOLERANCE], True)
    OracleSupplyChain._port_spatial_index(again)
    assert osql.SC_PORT_GEOM_METADATA not in again.sent and osql.SC_PORT_SPATIAL_INDEX not in again.sent
    # seeded before the tolerance became 0.05: the index is rebuilt on new metadata
    old = _FakeCursor([0.005], True)
    OracleSupplyChain._port_spatial_index(old)
    order = [osql.SC_PORT_SPATIAL_INDEX_DROP, osql.SC_PORT_GEOM_METADATA_DELETE, osql.SC_PORT_GEOM_METADATA,
             osql.SC_PORT_SPATIAL_INDEX]
    assert [s for s in old.sent if s in order] == order
    broken = _FakeCursor([osql.PORT_GEOM_TOLERANCE], False, fail_on="SPATIAL_INDEX_V2")
    OracleSupplyChain._port_spatial_index(broken)  # a database without Spatial: a note, not a failed seed
    assert "ORA-13226" in capsys.readouterr().out

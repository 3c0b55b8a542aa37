"""The SUPPLYCHAIN dataset: table specs with comments, and deterministic rows.

Pure data, no database code: both engines render the same TABLES and rows() into
their own DDL and inserts. Everything derives from a fixed random seed and a fixed
reference date, so every call on every machine gives the same rows, and voyage
statuses never drift as the calendar moves on.

Values in rows() are plain Python: int, float, str, None, datetime.date (DATE
columns) and datetime.datetime (TIMESTAMP columns, UTC).
"""
from __future__ import annotations

import math
import random
from dataclasses import astuple, dataclass, field
from datetime import date, datetime, time, timedelta

SEED = 20250602
# "Today" for the dataset: voyage statuses and AIS timestamps are relative to it.
REFERENCE_DATE = date(2025, 6, 2)
OWNER = "SUPPLYCHAIN"


# --------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class Column:
    name: str
    oracle_type: str  # Oracle spelling, e.g. NUMBER(9,6) or VARCHAR2(100)
    nullable: bool
    comment: str

    def __iter__(self):
        # Lets callers unpack a column as (name, oracle_type, nullable, comment).
        return iter(astuple(self))


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...] = field(default_factory=tuple)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def _fk(column: str, ref_table: str, ref_column: str | None = None) -> ForeignKey:
    return ForeignKey((column,), ref_table, (ref_column or column,))


_REF = REFERENCE_DATE.isoformat()

CARRIERS = Table(
    "CARRIERS",
    "Ocean carriers (shipping lines) that operate the container vessels, one row per "
    "carrier brand. Operating a ship does not mean owning it: many ships are chartered.",
    (
        Column("CARRIER_ID", "NUMBER(6)", False,
               "Surrogate key for the carrier, internal to this schema. Partners identify "
               "carriers by SCAC_CODE instead."),
        Column("SCAC_CODE", "VARCHAR2(4)", False,
               "Four-letter Standard Carrier Alpha Code (SCAC) printed on bills of lading and "
               "used in EDI messages, e.g. MAEU for Maersk. Unique per carrier."),
        Column("CARRIER_NAME", "VARCHAR2(100)", False,
               "Trading name of the line as it appears on bookings (e.g. 'Hapag-Lloyd'), "
               "not the full legal entity name."),
        Column("HQ_COUNTRY", "VARCHAR2(2)", False,
               "Country of the carrier's head office as an ISO 3166-1 alpha-2 code (DK, CH, "
               "FR...). Unrelated to the flag its ships fly; see VESSELS.FLAG_STATE."),
        Column("ALLIANCE", "VARCHAR2(40)", True,
               f"Vessel-sharing alliance the carrier belonged to on {_REF} (Gemini "
               "Cooperation, Ocean Alliance, Premier Alliance). NULL means it sails "
               "independently. Alliances are reshuffled every few years."),
    ),
    ("CARRIER_ID",),
)

PORTS = Table(
    "PORTS",
    "Container seaports where voyages start and end, one row per UN/LOCODE. The "
    "coordinates are a representative point for the port area, not each berth.",
    (
        Column("PORT_ID", "NUMBER(6)", False,
               "Surrogate key for the port, referenced by VOYAGES.ORIGIN_PORT_ID and "
               "VOYAGES.DESTINATION_PORT_ID."),
        Column("UNLOCODE", "VARCHAR2(5)", False,
               "Five-character UN/LOCODE: ISO country code plus a three-letter place code, "
               "written without the space (SGSIN = Singapore, NLRTM = Rotterdam). The "
               "identifier used in schedules and EDI; unique per port."),
        Column("PORT_NAME", "VARCHAR2(100)", False,
               "Common English name of the port. Names vary between sources (Ningbo vs "
               "Ningbo-Zhoushan), so match ports on UNLOCODE, never on the name."),
        Column("COUNTRY_CODE", "VARCHAR2(2)", False,
               "ISO 3166-1 alpha-2 country of the port; always the first two letters of "
               "UNLOCODE."),
        Column("REGION", "VARCHAR2(30)", False,
               "Trade region used for lane reporting (East Asia, North Europe, ...). A "
               "commercial grouping, not a geographic standard."),
        Column("LATITUDE", "NUMBER(9,6)", False,
               "Latitude in decimal degrees (WGS 84), positive north, negative south. Note "
               "the order: GeoJSON and SDO_GEOMETRY points store longitude first."),
        Column("LONGITUDE", "NUMBER(9,6)", False,
               "Longitude in decimal degrees (WGS 84), positive east, negative west (Los "
               "Angeles is about -118.3). Pacific routes cross the 180th meridian, so never "
               "average longitudes naively."),
    ),
    ("PORT_ID",),
)

VESSELS = Table(
    "VESSELS",
    "Container ships, one row per hull. A ship can be renamed or move to another "
    "operator during its life; its IMO number never changes, so that is the key.",
    (
        Column("IMO_NUMBER", "NUMBER(7)", False,
               "Seven-digit IMO ship identification number, fixed for the life of the hull. "
               "The 7th digit is a check digit: multiply the first six digits by 7,6,5,4,3,2, "
               "add them up and take the last digit of the sum. Not the MMSI radio id that "
               "AIS transponders broadcast."),
        Column("VESSEL_NAME", "VARCHAR2(100)", False,
               "Current name as painted on the hull. Not unique and changes on renaming; "
               "never join on it."),
        Column("CARRIER_ID", "NUMBER(6)", False,
               "Carrier operating the ship today (FK to CARRIERS). The ship may be chartered "
               "from a separate owner, which is not recorded."),
        Column("FLAG_STATE", "VARCHAR2(2)", False,
               "Flag state (ship registry) as an ISO 3166-1 alpha-2 code. Often an open "
               "registry such as Panama (PA), Liberia (LR) or Marshall Islands (MH), "
               "whatever the carrier's home country."),
        Column("YEAR_BUILT", "NUMBER(4)", False,
               "Year the ship was delivered by the shipyard (four digits)."),
        Column("CAPACITY_TEU", "NUMBER(6)", False,
               "Cargo capacity in TEU (twenty-foot equivalent units): how many 20-foot "
               "containers the ship can carry; a 40-foot box counts as 2 TEU. A count of box "
               "slots, NEVER a weight: not tons and not tonnes. For weight use "
               "DEADWEIGHT_TONNES."),
        Column("DEADWEIGHT_TONNES", "NUMBER(7)", False,
               "Deadweight in metric tonnes: the total weight the ship can load (cargo, fuel, "
               "water, stores). This, not CAPACITY_TEU, is the weight measure."),
        Column("LENGTH_M", "NUMBER(5,1)", False,
               "Length overall in metres, bow to stern."),
    ),
    ("IMO_NUMBER",),
    (_fk("CARRIER_ID", "CARRIERS"),),
)

VOYAGES = Table(
    "VOYAGES",
    f"One sailing of a vessel from an origin port to a destination port. STATUS is "
    f"stated as of the dataset's reference date {_REF}, not the current date. "
    f"Intermediate port calls are not modelled.",
    (
        Column("VOYAGE_ID", "NUMBER(8)", False,
               "Surrogate key for the voyage; numbered in order of departure."),
        Column("VOYAGE_NUMBER", "VARCHAR2(10)", False,
               "The carrier's voyage reference as printed on schedules, e.g. '214E': a "
               "sequence number plus the direction of travel (E/W eastbound/westbound, N/S). "
               "Only unique together with the vessel."),
        Column("IMO_NUMBER", "NUMBER(7)", False,
               "Vessel performing the voyage (FK to VESSELS)."),
        Column("ORIGIN_PORT_ID", "NUMBER(6)", False,
               "Port of departure (FK to PORTS). Always different from DESTINATION_PORT_ID."),
        Column("DESTINATION_PORT_ID", "NUMBER(6)", False,
               "Port of arrival (FK to PORTS)."),
        Column("DEPARTURE_DATE", "DATE", False,
               "Date the vessel leaves the origin port: actual for ACTIVE and COMPLETED "
               "voyages, planned for SCHEDULED ones. Date only; the time part is midnight."),
        Column("ARRIVAL_DATE", "DATE", False,
               "Date the vessel reaches the destination: actual for COMPLETED voyages, an "
               "estimate (ETA) for ACTIVE and SCHEDULED ones, so it can still change."),
        Column("STATUS", "VARCHAR2(12)", False,
               f"Voyage state on {_REF}: COMPLETED (arrived before that date), ACTIVE (at "
               "sea: departed, not yet arrived) or SCHEDULED (departs after it). Always one "
               "of these three upper-case values."),
    ),
    ("VOYAGE_ID",),
    (
        _fk("IMO_NUMBER", "VESSELS"),
        _fk("ORIGIN_PORT_ID", "PORTS", "PORT_ID"),
        _fk("DESTINATION_PORT_ID", "PORTS", "PORT_ID"),
    ),
)

VESSEL_POSITIONS = Table(
    "VESSEL_POSITIONS",
    "Current (latest) AIS position report for each vessel on an ACTIVE voyage: one row "
    "per active vessel, replaced by every newer report, so it is not a track history. "
    "Ships in port or between voyages have no row.",
    (
        Column("IMO_NUMBER", "NUMBER(7)", False,
               "Vessel that sent the report (FK to VESSELS). Also the primary key, because "
               "only the latest report per vessel is kept."),
        Column("VOYAGE_ID", "NUMBER(8)", False,
               "The ACTIVE voyage the vessel is sailing (FK to VOYAGES)."),
        Column("LATITUDE", "NUMBER(9,6)", False,
               "Reported latitude in decimal degrees (WGS 84), positive north."),
        Column("LONGITUDE", "NUMBER(9,6)", False,
               "Reported longitude in decimal degrees (WGS 84), positive east; wraps from "
               "+180 to -180 in the Pacific."),
        Column("SPEED_KNOTS", "NUMBER(4,1)", False,
               "Speed over ground in knots (nautical miles per hour; 1 knot = 1.852 km/h), "
               "as measured by GPS. Not speed through the water."),
        Column("HEADING_DEG", "NUMBER(3)", False,
               "Heading in whole degrees clockwise from true north (0-359). AIS uses 511 for "
               "'not available'; such reports are not stored here."),
        Column("REPORTED_AT", "TIMESTAMP", False,
               "UTC time the AIS report was received. Positions are minutes to hours old; "
               "check the age before treating one as 'now'."),
    ),
    ("IMO_NUMBER",),
    (_fk("IMO_NUMBER", "VESSELS"), _fk("VOYAGE_ID", "VOYAGES")),
)

CONTAINERS = Table(
    "CONTAINERS",
    "Shipping containers loaded for a voyage (the container manifest), one row per box "
    "per voyage. The same physical box travels on many voyages over its life.",
    (
        Column("CONTAINER_ID", "NUMBER(8)", False,
               "Surrogate key for the box on this voyage; CARGO_ITEMS point here."),
        Column("CONTAINER_NUMBER", "VARCHAR2(11)", False,
               "ISO 6346 container number: three-letter owner code, equipment category 'U', "
               "six-digit serial and a check digit, written without spaces (e.g. "
               "CSQU3054383). Not unique over time, because boxes are reused; join on "
               "CONTAINER_ID."),
        Column("VOYAGE_ID", "NUMBER(8)", False,
               "Voyage the box is loaded on (FK to VOYAGES)."),
        Column("SIZE_TYPE", "VARCHAR2(4)", False,
               "Length and type in trade shorthand: 20GP/40GP general purpose (dry), 40HC "
               "high cube (9 ft 6 in tall), 20RF/40RF refrigerated reefer. A 20-foot box is "
               "1 TEU, a 40-foot box 2 TEU. Not the ISO 6346 size-type code (22G1, 45G1)."),
        Column("TARE_WEIGHT_KG", "NUMBER(6)", False,
               "Weight of the empty box in kilograms, as marked on its door."),
        Column("GROSS_WEIGHT_KG", "NUMBER(7)", False,
               "Verified gross mass (VGM) in kilograms: tare plus cargo, declared before "
               "loading as SOLAS requires. Kilograms, not tonnes."),
        Column("REEFER_TEMP_C", "NUMBER(4,1)", True,
               "Set-point temperature in degrees Celsius for reefer boxes (20RF, 40RF); NULL "
               "for dry boxes. Negative values mean frozen cargo."),
    ),
    ("CONTAINER_ID",),
    (_fk("VOYAGE_ID", "VOYAGES"),),
)

CARGO_ITEMS = Table(
    "CARGO_ITEMS",
    "Goods packed inside each container, one row per manifest line. QUANTITY counts "
    "packages; value and weight describe what the line declares.",
    (
        Column("CARGO_ITEM_ID", "NUMBER(10)", False,
               "Surrogate key for the manifest line."),
        Column("CONTAINER_ID", "NUMBER(8)", False,
               "Container the goods are packed in (FK to CONTAINERS)."),
        Column("DESCRIPTION", "VARCHAR2(200)", False,
               "Plain-language description of the goods as declared by the shipper."),
        Column("HS_CODE", "VARCHAR2(10)", False,
               "Harmonized System tariff code at the international 6-digit level. Stored as "
               "text because codes can start with 0 (030617 = frozen shrimp); national "
               "tariff digits beyond six are not stored."),
        Column("PACKAGE_TYPE", "VARCHAR2(2)", False,
               "Kind of package per UN/ECE Recommendation 21: CT carton, BX box, BG bag, PX "
               "pallet, DR drum, CS case, PK package."),
        Column("QUANTITY", "NUMBER(8)", False,
               "Number of packages of PACKAGE_TYPE on this line (not pieces inside them)."),
        Column("GROSS_WEIGHT_KG", "NUMBER(9,2)", False,
               "Weight of the whole line in kilograms, packaging included."),
        Column("UNIT_VALUE_CENTS", "NUMBER(12)", False,
               "Declared value of ONE package as an integer number of US cents, NEVER "
               "dollars: divide by 100 for US dollars (12999 means $129.99). Multiply by "
               "QUANTITY for the line total."),
        Column("UN_NUMBER", "VARCHAR2(4)", True,
               "Four-digit UN number for dangerous goods (e.g. 3480 lithium-ion batteries); "
               "NULL means the goods are not declared as dangerous."),
    ),
    ("CARGO_ITEM_ID",),
    (_fk("CONTAINER_ID", "CONTAINERS"),),
)

# Parents before children, so inserts run top-down and deletes bottom-up.
TABLES: list[Table] = [CARRIERS, PORTS, VESSELS, VOYAGES, VESSEL_POSITIONS, CONTAINERS, CARGO_ITEMS]
TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}


# --------------------------------------------------------------------------- check digits
def imo_check_digit(first6: int | str) -> int:
    """The IMO check digit: the first six digits weighted 7, 6, 5, 4, 3, 2, summed, last digit."""
    return sum(int(d) * w for d, w in zip(str(first6), (7, 6, 5, 4, 3, 2))) % 10


def imo_check_digit_ok(imo: int) -> bool:
    """True when a 7-digit IMO number's last digit matches its check digit."""
    digits = str(imo)
    if len(digits) != 7 or not digits.isdigit():
        return False
    return imo_check_digit(digits[:6]) == int(digits[6])


# ISO 6346 letter values: counting from A=10 but skipping multiples of 11.
_ISO6346_VALUES = {}
_value = 10
for _letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    if _value % 11 == 0:
        _value += 1
    _ISO6346_VALUES[_letter] = _value
    _value += 1


def _iso6346_remainder(first10: str) -> int:
    values = [_ISO6346_VALUES[c] if c.isalpha() else int(c) for c in first10]
    return sum(v * 2**i for i, v in enumerate(values)) % 11


def iso6346_check_digit_ok(container_number: str) -> bool:
    """True when an ISO 6346 container number (e.g. CSQU3054383) has a valid check digit."""
    n = container_number.replace(" ", "").upper()
    if len(n) != 11 or not (n[:3].isalpha() and n[3] in "UJZ" and n[4:].isdigit()):
        return False
    return _iso6346_remainder(n[:10]) % 10 == int(n[10])


# --------------------------------------------------------------------------- source facts
# (SCAC, name, HQ country, alliance, container owner prefix, TEU range, flags, network, ships)
_CARRIERS = [
    ("MAEU", "Maersk", "DK", "Gemini Cooperation", "MSK", (13000, 18300), ["DK", "SG"], "GLOBAL",
     ["Maersk Kinloss", "Gunhild Maersk"]),
    ("MSCU", "MSC", "CH", None, "MSC", (15000, 24300), ["PA", "LR", "PT", "MT"], "GLOBAL",
     ["MSC Aurelia", "MSC Tessa"]),
    ("CMDU", "CMA CGM", "FR", "Ocean Alliance", "CMA", (11000, 23000), ["FR", "MT", "LR"], "GLOBAL",
     ["CMA CGM Rhone", "CMA CGM Callisto"]),
    ("COSU", "COSCO Shipping Lines", "CN", "Ocean Alliance", "CSN", (10000, 21200), ["HK", "CN", "PA"],
     "GLOBAL", ["COSCO Pride", "COSCO Galaxy"]),
    ("HLCU", "Hapag-Lloyd", "DE", "Gemini Cooperation", "HLX", (9000, 23600), ["DE", "LR", "MT"], "GLOBAL",
     ["Kyoto Express", "Valparaiso Express"]),
    ("ONEY", "Ocean Network Express (ONE)", "SG", "Premier Alliance", "ONE", (8000, 24100),
     ["JP", "PA", "SG"], "GLOBAL", ["ONE Harmony", "ONE Columba"]),
    ("EGLV", "Evergreen Marine", "TW", "Ocean Alliance", "EGH", (8000, 24000), ["SG", "PA", "GB", "TW"],
     "GLOBAL", ["Ever Acme", "Ever Lunar"]),
    ("HDMU", "HMM", "KR", "Premier Alliance", "HDM", (10000, 24000), ["KR", "PA", "MH"], "GLOBAL",
     ["HMM Hanbada", "HMM Nuri"]),
    ("YMLU", "Yang Ming", "TW", "Premier Alliance", "YML", (6000, 15000), ["LR", "TW", "SG"], "GLOBAL",
     ["YM Wellness", "YM Tiptop"]),
    ("ZIMU", "ZIM", "IL", None, "ZIM", (4000, 15000), ["LR", "MH", "IL"], "GLOBAL",
     ["ZIM Emerald", "ZIM Mount Tabor"]),
    ("WHLC", "Wan Hai Lines", "TW", None, "WHS", (1800, 8000), ["SG", "TW"], "INTRA_ASIA",
     ["Wan Hai 611", "Wan Hai 287"]),
    ("PCIU", "Pacific International Lines (PIL)", "SG", None, "PCI", (4000, 14000), ["SG"], "ASIA_SOUTH",
     ["Kota Ratna", "Kota Singa"]),
    ("XPRS", "X-Press Feeders", "SG", None, "XPR", (1000, 2800), ["SG", "LR", "PT", "MT"], "INTRA_ASIA",
     ["X-Press Anglesey", "X-Press Jade"]),
    ("SITC", "SITC", "HK", None, "SIT", (1000, 2500), ["HK", "PA"], "INTRA_ASIA",
     ["SITC Haiphong", "SITC Busan"]),
    ("MATS", "Matson", "US", None, "MAT", (2500, 3600), ["US"], "TRANSPACIFIC",
     ["Manulani", "Kaimana Hila"]),
]

# (UN/LOCODE, name, region, latitude, longitude): a representative point per port.
_PORTS = [
    ("CNSHA", "Shanghai", "East Asia", 31.233, 121.483),
    ("SGSIN", "Singapore", "Southeast Asia", 1.264, 103.840),
    ("CNNGB", "Ningbo-Zhoushan", "East Asia", 29.940, 121.840),
    ("CNSZX", "Shenzhen", "East Asia", 22.570, 114.270),
    ("CNTAO", "Qingdao", "East Asia", 36.070, 120.380),
    ("KRPUS", "Busan", "East Asia", 35.100, 129.040),
    ("HKHKG", "Hong Kong", "East Asia", 22.330, 114.120),
    ("TWKHH", "Kaohsiung", "East Asia", 22.610, 120.280),
    ("MYPKG", "Port Klang", "Southeast Asia", 3.000, 101.390),
    ("MYTPP", "Tanjung Pelepas", "Southeast Asia", 1.360, 103.550),
    ("LKCMB", "Colombo", "South Asia", 6.950, 79.840),
    ("AEJEA", "Jebel Ali (Dubai)", "Middle East", 25.010, 55.060),
    ("NLRTM", "Rotterdam", "North Europe", 51.950, 4.140),
    ("BEANR", "Antwerp-Bruges", "North Europe", 51.260, 4.400),
    ("DEHAM", "Hamburg", "North Europe", 53.540, 9.970),
    ("GBFXT", "Felixstowe", "North Europe", 51.960, 1.350),
    ("ESVLC", "Valencia", "Mediterranean", 39.450, -0.320),
    ("GRPIR", "Piraeus", "Mediterranean", 37.940, 23.630),
    ("MAPTM", "Tanger Med", "Mediterranean", 35.890, -5.500),
    ("USLAX", "Los Angeles", "North America West", 33.740, -118.260),
    ("USLGB", "Long Beach", "North America West", 33.750, -118.210),
    ("USNYC", "New York / New Jersey", "North America East", 40.680, -74.100),
    ("USSAV", "Savannah", "North America East", 32.080, -81.090),
    ("BRSSZ", "Santos", "South America", -23.960, -46.300),
    ("ZADUR", "Durban", "Africa", -29.870, 31.030),
]

_INTRA_ASIA = ["CNSHA", "CNNGB", "CNSZX", "CNTAO", "KRPUS", "HKHKG", "TWKHH",
               "SGSIN", "MYPKG", "MYTPP", "LKCMB", "AEJEA"]
_NETWORKS = {
    "GLOBAL": [p[0] for p in _PORTS],
    "INTRA_ASIA": _INTRA_ASIA,
    "ASIA_SOUTH": _INTRA_ASIA + ["ZADUR", "BRSSZ"],
    "TRANSPACIFIC": ["CNSHA", "CNNGB", "USLGB", "USLAX"],
}

# Container lessors: about a third of boxes are leased rather than carrier-owned.
_LESSOR_PREFIXES = ["TGH", "TCN", "CAI", "SEG", "FCI", "GES"]

# (size type, tare kg, max payload kg, reefer, weight for random choice)
_SIZE_TYPES = [
    ("20GP", 2200, 28000, False, 25),
    ("40GP", 3750, 26500, False, 15),
    ("40HC", 3900, 26500, False, 40),
    ("20RF", 3000, 27000, True, 5),
    ("40RF", 4500, 29000, True, 15),
]

# (description, HS code, package, kg per package, value range in cents, reefer temp, UN number)
_GOODS = [
    ("Laptop computers, 14-inch (carton of 5)", "847130", "CT", 14.0, (200000, 350000), None, None),
    ("Smartphones (carton of 20)", "851713", "CT", 9.0, (300000, 900000), None, None),
    ("Lithium-ion battery packs", "850760", "CT", 18.0, (40000, 90000), None, "3480"),
    ("Cotton T-shirts (carton of 50)", "610910", "CT", 12.0, (12000, 30000), None, None),
    ("Leather footwear (carton of 12 pairs)", "640399", "CT", 15.0, (24000, 72000), None, None),
    ("Green coffee beans, 60 kg bag", "090111", "BG", 60.5, (18000, 40000), None, None),
    ("Cocoa beans, 64 kg bag", "180100", "BG", 64.5, (25000, 50000), None, None),
    ("Polyethylene granules, 25 kg bag", "390110", "BG", 25.2, (2500, 4000), None, None),
    ("Steel hex bolts", "731815", "BX", 25.0, (3000, 7000), None, None),
    ("Wooden bedroom furniture", "940350", "PX", 180.0, (40000, 120000), None, None),
    ("Photovoltaic solar modules", "854143", "PX", 700.0, (250000, 450000), None, None),
    ("Passenger car tyres", "401110", "PX", 400.0, (150000, 300000), None, None),
    ("Plush toys (carton of 48)", "950300", "CT", 6.0, (9000, 20000), None, None),
    ("Bottled red wine (case of 12)", "220421", "CS", 16.0, (5000, 30000), None, None),
    ("Extra virgin olive oil, 5 L tins (carton of 4)", "150920", "CT", 19.5, (4000, 9000), None, None),
    ("Brake pads for passenger cars", "870830", "CT", 20.0, (15000, 40000), None, None),
    ("Solvent-based alkyd paint, 20 L drums", "320890", "DR", 26.0, (6000, 14000), None, "1263"),
    ("Porcelain floor tiles", "690721", "PX", 1100.0, (40000, 90000), None, None),
    ("Washing machines", "845011", "PK", 70.0, (20000, 45000), None, None),
    ("Split-system air conditioners", "841510", "PK", 45.0, (25000, 60000), None, None),
    ("Frozen shrimp, 10 kg carton", "030617", "CT", 10.5, (6000, 12000), -18.0, None),
    ("Frozen boneless beef cuts", "020230", "CT", 27.0, (13000, 22000), -18.0, None),
    ("Fresh bananas, 18 kg box", "080390", "BX", 19.0, (1200, 2000), 13.5, None),
    ("Fresh apples, 18 kg carton", "080810", "CT", 19.0, (1800, 3200), 1.0, None),
    ("Packaged pharmaceutical tablets", "300490", "CT", 8.0, (50000, 250000), 5.0, None),
]

N_INACTIVE_VESSELS = 2  # in port between voyages on the reference date: no AIS row
N_CONTAINERS = 150
N_CARGO_ITEMS = 300


# --------------------------------------------------------------------------- geometry
def _wrap180(deg: float) -> float:
    return (deg + 180.0) % 360.0 - 180.0


def _distance_nm(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in nautical miles (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 3440.065 * math.asin(math.sqrt(a))


def _bearing_deg(lat1: float, lon1: float, lat2: float, lon2: float) -> int:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return int(round(math.degrees(math.atan2(y, x)))) % 360


def _transit_days(origin: tuple, dest: tuple) -> int:
    """Days at sea between two PORTS rows."""
    # Sea routes are longer than great circles; ~1.5x at 15 knots is a fair average.
    nm = _distance_nm(origin[5], origin[6], dest[5], dest[6]) * 1.5
    return max(2, math.ceil(nm / (15 * 24)))


# --------------------------------------------------------------------------- rows
def _imo(rng: random.Random, used: set[int]) -> int:
    while True:
        first6 = rng.randint(930000, 989999)  # modern hulls sit in the 93xxxxx-98xxxxx range
        imo = first6 * 10 + imo_check_digit(first6)
        if imo not in used:
            used.add(imo)
            return imo


def _container_number(rng: random.Random, prefix: str, used: set[str]) -> str:
    while True:
        first10 = f"{prefix}U{rng.randint(0, 999999):06d}"
        remainder = _iso6346_remainder(first10)
        # ISO 6346 advises against serials whose remainder is 10 (check digit would be 0 twice).
        if remainder == 10 or first10 in used:
            continue
        used.add(first10)
        return first10 + str(remainder)


def rows() -> dict[str, list[tuple]]:
    """Every table's rows as tuples in column order, identical on every call."""
    rng = random.Random(SEED)  # one stream, drawn from in this order: vessels, sailings, voyages, positions, boxes

    carriers = [(i, scac, name, hq, alliance)
                for i, (scac, name, hq, alliance, *_rest) in enumerate(_CARRIERS, start=1)]

    ports = [(i, code, name, code[:2], region, lat, lon)
             for i, (code, name, region, lat, lon) in enumerate(_PORTS, start=1)]
    port_by_code = {p[1]: p for p in ports}
    port_by_id = {p[0]: p for p in ports}

    vessels, vessel_carrier = _vessels(rng)
    legs = _sailings(rng, vessels, vessel_carrier, port_by_code)
    voyages = _voyages(rng, legs, port_by_code)
    positions = _positions(rng, voyages, port_by_id)
    containers, cargo = _containers_and_cargo(rng, voyages, vessel_carrier)

    return {
        "CARRIERS": carriers,
        "PORTS": ports,
        "VESSELS": vessels,
        "VOYAGES": voyages,
        "VESSEL_POSITIONS": positions,
        "CONTAINERS": containers,
        "CARGO_ITEMS": cargo,
    }


def _vessels(rng: random.Random) -> tuple[list[tuple], dict[int, int]]:
    """Two vessels per carrier, sizes within the carrier's typical range; and each IMO's carrier id."""
    vessels, vessel_carrier = [], {}
    used_imos: set[int] = set()
    for carrier_id, (_s, _n, _h, _a, _p, (lo, hi), flags, _net, names) in enumerate(_CARRIERS, start=1):
        for name in names:
            imo = _imo(rng, used_imos)
            teu = rng.randint(lo, hi)
            dwt = int(round(teu * rng.uniform(10.0, 13.5), -2))
            length = round(90 + 64 * math.sqrt(teu / 1000), 1)
            vessels.append((imo, name, carrier_id, rng.choice(flags), rng.randint(2003, 2024), teu, dwt, length))
            vessel_carrier[imo] = carrier_id
    return vessels, vessel_carrier


def _sailings(rng: random.Random, vessels: list[tuple], vessel_carrier: dict[int, int],
              port_by_code: dict[str, tuple]) -> list[tuple]:
    """Two consecutive sailings per vessel (the second starts where the first ended), as
    (imo, origin, dest, departure, arrival, status). Active vessels are mid-ocean on the
    reference date; the others sit in port."""
    inactive = set(rng.sample([v[0] for v in vessels], N_INACTIVE_VESSELS))
    legs = []
    for imo, *_ in vessels:
        network = _NETWORKS[_CARRIERS[vessel_carrier[imo] - 1][7]]
        p0 = rng.choice(network)
        p1 = rng.choice([p for p in network if p != p0])
        p2 = rng.choice([p for p in network if p != p1])
        t1 = _transit_days(port_by_code[p0], port_by_code[p1])
        t2 = _transit_days(port_by_code[p1], port_by_code[p2])
        stay = timedelta(days=rng.randint(1, 3))  # days alongside between the two sailings
        if imo in inactive:
            arr1 = REFERENCE_DATE - timedelta(days=rng.randint(1, 4))
            dep2 = REFERENCE_DATE + timedelta(days=rng.randint(2, 6))
            legs.append((imo, p0, p1, arr1 - timedelta(days=t1), arr1, "COMPLETED"))
            legs.append((imo, p1, p2, dep2, dep2 + timedelta(days=t2), "SCHEDULED"))
        elif rng.random() < 0.5:  # active on the second sailing, first one completed
            dep2 = REFERENCE_DATE - timedelta(days=rng.randint(1, t2 - 1))
            arr1 = dep2 - stay
            legs.append((imo, p0, p1, arr1 - timedelta(days=t1), arr1, "COMPLETED"))
            legs.append((imo, p1, p2, dep2, dep2 + timedelta(days=t2), "ACTIVE"))
        else:  # active on the first sailing, the next one already scheduled
            dep1 = REFERENCE_DATE - timedelta(days=rng.randint(1, t1 - 1))
            dep2 = dep1 + timedelta(days=t1) + stay
            legs.append((imo, p0, p1, dep1, dep1 + timedelta(days=t1), "ACTIVE"))
            legs.append((imo, p1, p2, dep2, dep2 + timedelta(days=t2), "SCHEDULED"))
    return legs


def _voyages(rng: random.Random, legs: list[tuple], port_by_code: dict[str, tuple]) -> list[tuple]:
    """The VOYAGES rows: ids in departure order, a voyage number ending in its direction letter."""
    legs.sort(key=lambda leg: (leg[3], leg[0]))  # voyage ids follow departure order
    voyages = []
    for voyage_id, (imo, o, d, dep, arr, status) in enumerate(legs, start=1001):
        po, pd = port_by_code[o], port_by_code[d]
        # Direction letter: the larger of the east-west and north-south movements.
        d_lon, d_lat = _wrap180(pd[6] - po[6]), pd[5] - po[5]
        if abs(d_lon) >= abs(d_lat):
            direction = "E" if d_lon > 0 else "W"
        else:
            direction = "N" if d_lat > 0 else "S"
        voyages.append((voyage_id, f"{rng.randint(100, 999)}{direction}", imo, po[0], pd[0], dep, arr, status))
    return voyages


def _positions(rng: random.Random, voyages: list[tuple], port_by_id: dict[int, tuple]) -> list[tuple]:
    """Latest AIS fix per active vessel: interpolated along the lane by elapsed time."""
    midnight = datetime.combine(REFERENCE_DATE, time(0, 0))
    positions = []
    for voyage_id, _vn, imo, o_id, d_id, dep, arr, status in voyages:
        if status != "ACTIVE":
            continue
        reported = midnight - timedelta(minutes=rng.randint(5, 360))
        start, end = datetime.combine(dep, time(0, 0)), datetime.combine(arr, time(0, 0))
        frac = (reported - start) / (end - start)
        po, pd = port_by_id[o_id], port_by_id[d_id]
        lat = po[5] + frac * (pd[5] - po[5])
        lon = _wrap180(po[6] + frac * _wrap180(pd[6] - po[6]))
        positions.append((imo, voyage_id, round(lat, 6), round(lon, 6), round(rng.uniform(12.0, 20.5), 1),
                          _bearing_deg(lat, lon, pd[5], pd[6]), reported))
    positions.sort()
    return positions


def _containers_and_cargo(rng: random.Random, voyages: list[tuple],
                          vessel_carrier: dict[int, int]) -> tuple[list[tuple], list[tuple]]:
    """Containers spread over voyages (each voyage gets at least one), cargo lines over containers
    likewise; a box's gross weight is its tare plus its cargo."""
    per_voyage = _spread(rng, N_CONTAINERS, len(voyages))
    containers, cargo = [], []
    used_boxes: set[str] = set()
    container_id, item_id = 20001, 1
    per_box = _spread(rng, N_CARGO_ITEMS, N_CONTAINERS)
    size_weights = [s[4] for s in _SIZE_TYPES]
    for voyage, n_boxes in zip(voyages, per_voyage):
        carrier_prefix = _CARRIERS[vessel_carrier[voyage[2]] - 1][4]
        for _ in range(n_boxes):
            size, tare, max_payload, reefer, _w = rng.choices(_SIZE_TYPES, weights=size_weights)[0]
            prefix = rng.choice(_LESSOR_PREFIXES) if rng.random() < 0.3 else carrier_prefix
            number = _container_number(rng, prefix, used_boxes)
            if reefer:  # one temperature per reefer box, so only goods kept at that set-point
                temp = rng.choice(sorted({g[5] for g in _GOODS if g[5] is not None}))
                goods = [g for g in _GOODS if g[5] == temp]
            else:
                temp, goods = None, [g for g in _GOODS if g[5] is None]
            n_items = per_box[container_id - 20001]
            budget = max_payload * rng.uniform(0.3, 0.9) / n_items
            cargo_kg = 0.0
            for _ in range(n_items):
                desc, hs, pkg, kg, (v_lo, v_hi), _t, un = rng.choice(goods)
                qty = max(1, int(budget // kg))
                weight = round(qty * kg, 2)
                cargo_kg += weight
                cargo.append((item_id, container_id, desc, hs, pkg, qty, weight, rng.randint(v_lo, v_hi), un))
                item_id += 1
            containers.append((container_id, number, voyage[0], size, tare, int(round(tare + cargo_kg)), temp))
            container_id += 1
    return containers, cargo


def _spread(rng: random.Random, total: int, buckets: int) -> list[int]:
    """Split `total` into `buckets` counts of at least 1 each, at random."""
    counts = [1] * buckets
    for _ in range(total - buckets):
        counts[rng.randrange(buckets)] += 1
    return counts

"""Part 5's catalog: container equipment and shipping services, with prices and availability by port.

`seed(eng)` creates the catalog tables in the workshop database (next to the memory
store, not in SUPPLYCHAIN, which it never touches), fills them from ITEMS and
AVAILABILITY below and embeds each item inside the database: `embed(...)` on the
embedded engine, VECTOR_EMBEDDING(ALL_MINILM_L12_V2 ...) on Oracle. Re-running is safe
and cheap: only new or changed items are embedded again.

Prices are in US dollars (USD) per the unit in `price_unit`. Equipment is priced per
container per day of lease; services per entry, move, container or shipment.
Availability uses the UN/LOCODEs of the SUPPLYCHAIN ports; units_available is the
number of containers ready to lease at that port, NULL for a service offered there.

Every SQL statement the catalog, the grounded path and the caches run lives in the
engine packages, once for each engine, under the same names (`eng.statements.catalog` is the set in use).
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from workshop_lib.data.supplychain_data import rows
from workshop_lib.progress import progress as tqdm

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

CATEGORIES = ("equipment", "service")


@dataclass(frozen=True)
class Item:
    item_id: str
    name: str
    category: str          # equipment | service
    description: str
    price_usd: float
    price_unit: str        # what the USD price is for

    @property
    def document(self) -> str:
        """The text that gets embedded: what a customer would search by."""
        return f"{self.name}. {self.description}"

    @property
    def doc_hash(self) -> str:
        return hashlib.sha256(self.document.encode("utf-8")).hexdigest()


PER_DAY = "per container per day (lease)"
ITEMS: tuple[Item, ...] = (
    Item("EQ-20DV", "20' dry container", "equipment",
         "Standard 20 ft (twenty-foot) steel box, ISO 22G1, for general cargo: 33 m3 inside, up to 28 t "
         "payload. The right box for heavy, dense goods such as tiles, metal parts or bagged grain.",
         1.35, PER_DAY),
    Item("EQ-40DV", "40' dry container", "equipment",
         "Standard 40 ft (forty-foot) general-purpose dry box, ISO 42G1, 67 m3, up to 26.5 t payload, for cartons, "
         "furniture and palletised consumer goods.",
         1.95, PER_DAY),
    Item("EQ-40HC", "40' high cube container", "equipment",
         "40 ft dry box one foot taller than standard (2.9 m, ISO 45G1), 76 m3 for light, "
         "voluminous cargo like textiles, electronics in cartons or furniture.",
         2.20, PER_DAY),
    Item("EQ-45HC", "45' pallet-wide high cube", "equipment",
         "45 ft high cube with pallet-wide walls that take two Euro pallets side by side; "
         "86 m3, popular for European short-sea and door deliveries.",
         2.90, PER_DAY),
    Item("EQ-20RF", "20' reefer container", "equipment",
         "20 ft refrigerated reefer container with its own cooling unit, -30 C to +30 C, for heavy "
         "chilled or frozen loads such as meat, fish or pharmaceuticals.",
         6.50, PER_DAY),
    Item("EQ-40RH", "40' high cube reefer", "equipment",
         "40 ft high-cube refrigerated reefer container, -30 C to +30 C with controlled ventilation, "
         "for fruit, vegetables, frozen food and flowers.",
         9.80, PER_DAY),
    Item("EQ-20FR", "20' flat rack", "equipment",
         "20 ft flat rack with collapsible end walls and no roof or sides, for heavy or "
         "out-of-gauge cargo: machinery, engines, steel coils.",
         4.10, PER_DAY),
    Item("EQ-40FR", "40' flat rack", "equipment",
         "40 ft flat rack with collapsible ends for oversized loads loaded by crane from "
         "above or from the side: boats, vehicles, transformers, pipes.",
         5.60, PER_DAY),
    Item("EQ-20OT", "20' open top container", "equipment",
         "20 ft box with a removable tarpaulin roof so tall or heavy cargo can be lowered in "
         "by crane: marble blocks, scrap, machinery that does not fit through doors.",
         3.20, PER_DAY),
    Item("EQ-40OT", "40' open top container", "equipment",
         "40 ft open-top box with tarpaulin roof and removable door header, for long items "
         "loaded from above such as timber, pipes or industrial parts.",
         4.40, PER_DAY),
    Item("EQ-20TK", "20' ISO tank container", "equipment",
         "Stainless-steel tank in a 20 ft frame (about 25,000 litres) for bulk liquids: "
         "food-grade oils, wine, juice concentrate, or chemicals including hazardous ones.",
         14.00, PER_DAY),
    Item("EQ-20VH", "20' ventilated container", "equipment",
         "20 ft box with passive ventilation openings that stop condensation, used for "
         "coffee, cocoa beans and other cargo that sweats in transit.",
         2.60, PER_DAY),
    Item("EQ-GENSET", "Clip-on reefer genset", "equipment",
         "Diesel generator set clipped onto a refrigerated container so it keeps cooling on a truck or rail leg "
         "where no power plug is available.",
         38.00, "per unit per day (lease)"),
    Item("SV-CUSTOMS", "Customs brokerage", "service",
         "A licensed customs broker files the import or export declaration, classifies the goods "
         "by HS code and pays duties on your behalf so the cargo is cleared and released.",
         175.00, "per customs entry"),
    Item("SV-INSURE", "Cargo insurance", "service",
         "All-risks marine cargo insurance (Institute Cargo Clauses A) from warehouse to "
         "warehouse. Premium is 0.35% of the insured value; this price is the minimum premium.",
         50.00, "minimum premium per shipment"),
    Item("SV-REEFMON", "Reefer monitoring", "service",
         "Remote telemetry for refrigerated containers: live temperature, humidity and power "
         "alerts during the voyage, with a temperature log for claims.",
         45.00, "per container per voyage"),
    Item("SV-TRANSLOAD", "Transloading", "service",
         "Cross-dock transfer of cargo from an ocean container into a domestic truck or trailer "
         "at a warehouse near the port, so the box can be returned early.",
         420.00, "per container"),
    Item("SV-DRAYAGE", "Drayage", "service",
         "Short-haul trucking of a container between the port terminal and a warehouse or rail "
         "ramp within 50 km, including terminal appointment booking.",
         350.00, "per move"),
    Item("SV-PTI", "Reefer pre-trip inspection", "service",
         "Pre-trip inspection of a refrigerated container: cooling unit test, pull-down check and "
         "pre-cooling to the set point before loading.",
         85.00, "per container"),
    Item("SV-LASHING", "Lashing and securing", "service",
         "Certified lashing of heavy or out-of-gauge cargo on flat racks and open tops with "
         "chains, straps and timber, with a securing certificate.",
         260.00, "per container"),
    Item("SV-DGDOCS", "Dangerous goods documentation", "service",
         "Preparation of the IMDG dangerous goods declaration, UN number and class checks, "
         "labels and placards for hazardous cargo such as lithium batteries.",
         95.00, "per shipment"),
)

# item_id -> {UN/LOCODE: units ready to lease}; services map ports to None (offered there).
_EQ = {
    "EQ-20DV": "CNSHA:420 SGSIN:380 CNNGB:300 CNSZX:260 KRPUS:150 NLRTM:240 BEANR:180 DEHAM:160 "
               "USLAX:200 USNYC:120 BRSSZ:90 AEJEA:110",
    "EQ-40DV": "CNSHA:310 SGSIN:260 CNNGB:220 CNTAO:140 HKHKG:90 NLRTM:200 DEHAM:150 GBFXT:80 "
               "USLAX:170 USLGB:140 USSAV:60",
    "EQ-40HC": "CNSHA:520 SGSIN:410 CNNGB:380 CNSZX:350 CNTAO:210 KRPUS:190 TWKHH:120 MYPKG:140 "
               "NLRTM:330 BEANR:260 DEHAM:240 GBFXT:150 ESVLC:110 USLAX:300 USLGB:260 USNYC:180 USSAV:130",
    "EQ-45HC": "NLRTM:70 BEANR:55 DEHAM:40 GBFXT:35",
    "EQ-20RF": "NLRTM:40 BEANR:30 SGSIN:25 BRSSZ:45 ZADUR:20 ESVLC:15",
    "EQ-40RH": "NLRTM:95 BEANR:70 DEHAM:40 SGSIN:60 CNSHA:55 USLAX:50 USSAV:35 BRSSZ:80 ZADUR:45 "
               "ESVLC:30 MAPTM:25",
    "EQ-20FR": "CNSHA:30 KRPUS:25 DEHAM:20 NLRTM:18 USNYC:10",
    "EQ-40FR": "CNSHA:35 KRPUS:20 DEHAM:25 NLRTM:22 BEANR:15 USLAX:12 AEJEA:10",
    "EQ-20OT": "CNSHA:25 DEHAM:15 NLRTM:15 GRPIR:8 AEJEA:10",
    "EQ-40OT": "CNSHA:30 NLRTM:20 BEANR:12 USNYC:8 SGSIN:14",
    "EQ-20TK": "NLRTM:45 BEANR:40 SGSIN:35 CNSHA:25 AEJEA:20 USNYC:12",
    "EQ-20VH": "BRSSZ:30 LKCMB:15 ZADUR:10 DEHAM:12 BEANR:10",
    "EQ-GENSET": "NLRTM:30 BEANR:20 USLAX:25 USSAV:15 BRSSZ:10",
}
_SERVICES = {
    "SV-CUSTOMS": "NLRTM BEANR DEHAM GBFXT ESVLC USLAX USLGB USNYC USSAV SGSIN CNSHA AEJEA",
    "SV-INSURE": "*",
    "SV-REEFMON": "*",
    "SV-TRANSLOAD": "NLRTM DEHAM USLAX USLGB USNYC USSAV",
    "SV-DRAYAGE": "NLRTM BEANR DEHAM GBFXT USLAX USLGB USNYC USSAV",
    "SV-PTI": "NLRTM BEANR SGSIN BRSSZ ZADUR ESVLC USLAX",
    "SV-LASHING": "CNSHA KRPUS DEHAM NLRTM AEJEA",
    "SV-DGDOCS": "NLRTM BEANR DEHAM SGSIN CNSHA USNYC",
}


@functools.lru_cache(maxsize=1)
def ports() -> dict[str, dict]:
    """UN/LOCODE -> port facts, from the canonical SUPPLYCHAIN dataset (no database needed)."""
    return {code: {"unlocode": code, "name": name, "country_code": cc, "region": region,
                   "latitude": float(lat), "longitude": float(lon)}
            for _id, code, name, cc, region, lat, lon in rows()["PORTS"]}


@functools.lru_cache(maxsize=1)
def availability() -> dict[str, dict[str, int | None]]:
    """item_id -> {UN/LOCODE: units or None}, validated against the SUPPLYCHAIN ports."""
    known = ports()
    out: dict[str, dict[str, int | None]] = {}
    for item_id, spec in _EQ.items():
        out[item_id] = {code: int(n) for code, n in (p.split(":") for p in spec.split())}
    for item_id, spec in _SERVICES.items():
        codes = sorted(known) if spec == "*" else spec.split()
        out[item_id] = {code: None for code in codes}
    for item_id, where in out.items():
        unknown = set(where) - set(known)
        if unknown:
            raise ValueError(f"{item_id} lists ports that are not SUPPLYCHAIN ports: {sorted(unknown)}")
    missing = {i.item_id for i in ITEMS} ^ set(out)
    if missing:
        raise ValueError(f"ITEMS and availability disagree on {sorted(missing)}")
    return out




def availability_table(eng: Engine):
    """Units ready to lease per item (rows) and port (columns); blank where an item is not offered."""
    rows = eng.query(eng.statements.catalog.AVAILABILITY_ALL)
    frame = pd.DataFrame(rows, columns=["item_id", "unlocode", "units"])
    return frame.pivot(index="item_id", columns="unlocode", values="units")


# ============================================================================ seeding
def ensure_tables(eng: Engine) -> None:
    sql = eng.statements.catalog
    with eng.transaction() as cur:
        for ddl in sql.DDL:
            cur.execute(ddl)


def seed(eng: Engine, *, progress: bool = True) -> dict[str, int]:
    """Create and fill the catalog; returns counts. Idempotent; SUPPLYCHAIN is left alone."""
    sql = eng.statements.catalog
    ensure_tables(eng)
    where = availability()
    existing: dict[str, str] = dict(eng.query(sql.ITEM_HASHES))
    wanted = {i.item_id for i in ITEMS}
    counts = {"items": len(ITEMS), "embedded": 0, "unchanged": 0, "removed": 0, "availability_rows": 0}
    with eng.transaction() as cur:
        for item in tqdm(ITEMS, desc="Seeding catalog", unit="item", disable=not progress):
            params = {"item_id": item.item_id, "item_name": item.name, "category": item.category,
                      "description": item.description, "price_usd": item.price_usd,
                      "price_unit": item.price_unit, "doc_hash": item.doc_hash, "doc": item.document}
            if item.item_id not in existing:
                cur.execute(sql.ITEM_INSERT, params)
                counts["embedded"] += 1
            elif existing[item.item_id] != item.doc_hash:
                cur.execute(sql.ITEM_UPDATE, params)
                counts["embedded"] += 1
            else:
                counts["unchanged"] += 1
            cur.execute(sql.AVAIL_DELETE_ITEM, {"item_id": item.item_id})
            for code, units in sorted(where[item.item_id].items()):
                cur.execute(sql.AVAIL_INSERT, {"item_id": item.item_id, "unlocode": code, "units": units})
                counts["availability_rows"] += 1
        for item_id in sorted(set(existing) - wanted):
            cur.execute(sql.AVAIL_DELETE_ITEM, {"item_id": item_id})
            cur.execute(sql.ITEM_DELETE, {"item_id": item_id})
            counts["removed"] += 1
    return counts


def describe():
    """The catalog as a table (no database needed): id, name, category, price, ports."""
    import pandas as pd

    where = availability()
    return pd.DataFrame([
        {"item_id": i.item_id, "name": i.name, "category": i.category,
         "price_usd": i.price_usd, "price_unit": i.price_unit, "ports": len(where[i.item_id]),
         "units_total": sum(u for u in where[i.item_id].values() if u is not None) if i.category == "equipment" else None}
        for i in ITEMS
    ])

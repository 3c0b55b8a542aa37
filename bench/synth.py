"""Deterministic synthetic memories for the speed benchmark.

Memories look like what a supply-chain analyst's agent accumulates: voyage events,
AIS position reports, manifest lines, notes that paraphrase the schema's comments,
preferences, incident notes, and logs of past tool calls (kind ``tool_output``, which
knowledge retrieval must skip). Every value comes from the SUPPLYCHAIN dataset's own
vocabulary (table and column names, comments, carrier / port / vessel names, codes).

Memory ``i`` depends only on ``(seed, i)``, so generating 1,000 then 9,000 more gives
exactly the same texts as generating 10,000 at once.
"""
from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from workshop_lib.data.supplychain_data import OWNER, TABLES, rows

SEED = 20250602
SOURCE = "bench_synth"


@dataclass(frozen=True)
class Memory:
    record_id: str
    text: str
    metadata: dict


@functools.lru_cache(maxsize=1)
def vocabulary() -> dict:
    """Everything the templates draw from, read once from the dataset."""
    data = rows()
    carriers = {r[0]: r for r in data["CARRIERS"]}
    ports = {r[0]: r for r in data["PORTS"]}
    vessels = {r[0]: r for r in data["VESSELS"]}
    voyages = {r[0]: r for r in data["VOYAGES"]}
    containers = list(data["CONTAINERS"])
    cargo = list(data["CARGO_ITEMS"])
    positions = list(data["VESSEL_POSITIONS"])
    columns = []  # (subject, table, column, sentences of its comment)
    for t in TABLES:
        for c in t.columns:
            sentences = [s.strip() for s in re.split(r"(?<=[.;])\s+", c.comment) if len(s.strip()) > 20]
            columns.append((f"{OWNER}.{t.name}.{c.name}", t.name, c.name, sentences or [c.comment]))
    tables = [(f"{OWNER}.{t.name}", t.name, t.comment) for t in TABLES]
    return {
        "carriers": list(carriers.values()), "ports": list(ports.values()), "vessels": list(vessels.values()),
        "voyages": list(voyages.values()), "containers": containers, "cargo": cargo, "positions": positions,
        "columns": columns, "tables": tables, "carrier_by_id": carriers, "port_by_id": ports,
        "vessel_by_imo": vessels, "voyage_by_id": voyages,
    }


ANALYSTS = ["Priya", "Tomasz", "Ana", "Kenji", "Fatima", "Lars", "Chloe", "Diego", "Mei", "Olu"]
DELAY_CAUSES = ["berth congestion", "a crane outage", "fog in the approach channel", "a labour strike",
                "a customs inspection", "engine trouble", "bad weather in the Bay of Biscay",
                "a suspended rail connection", "port state control detention", "a missed tide window"]
ORA_ERRORS = [("ORA-00904", "invalid identifier"), ("ORA-00942", "table or view does not exist"),
              ("ORA-01722", "invalid number"), ("ORA-01843", "not a valid month"),
              ("ORA-00918", "column ambiguously defined"), ("ORA-01400", "cannot insert NULL"),
              ("ORA-12899", "value too large for column"), ("ORA-00936", "missing expression")]
PREFERENCES = [
    "Report container volumes in TEU, not box counts.",
    "Show port names next to their UN/LOCODE in every answer.",
    "Quote cargo values in US dollars with two decimals, converted from cents.",
    "Prefer SCAC codes over carrier names in tables.",
    "Give weights in tonnes in summaries but keep kilograms in the detail rows.",
    "Always state the reference date when talking about voyage status.",
    "List vessels by IMO number first and name second.",
    "Flag dangerous goods (UN numbers) at the top of manifest summaries.",
    "Use UTC for every AIS timestamp.",
    "Round speeds to one decimal place of knots.",
]


def _day(rng: random.Random) -> date:
    return date(2025, 1, 1) + timedelta(days=rng.randrange(0, 240))


def _vessel_bits(v, voc):
    carrier = voc["carrier_by_id"][v[2]]
    return v[1], v[0], carrier


def _t_voyage(rng, voc):
    voy = rng.choice(voc["voyages"])
    name, imo, carrier = _vessel_bits(voc["vessel_by_imo"][voy[2]], voc)
    o, d = voc["port_by_id"][voy[3]], voc["port_by_id"][voy[4]]
    dep = _day(rng)
    arr = dep + timedelta(days=rng.randrange(5, 45))
    text = (f"Voyage {voy[1]} of {name} (IMO {imo}, operated by {carrier[2]}) left {o[2]} ({o[1]}) on {dep} "
            f"and is due in {d[2]} ({d[1]}) around {arr}; status was {voy[7]} when last checked.")
    return text, "observation", f"{OWNER}.VOYAGES"


def _t_position(rng, voc):
    v = rng.choice(voc["vessels"])
    lat, lon = rng.uniform(-40, 60), rng.uniform(-179.9, 179.9)
    text = (f"AIS position for {v[1]} (IMO {v[0]}): {lat:.4f}, {lon:.4f}, speed over ground "
            f"{rng.uniform(0, 23):.1f} knots, heading {rng.randrange(0, 360)} degrees, reported "
            f"{_day(rng)} {rng.randrange(24):02d}:{rng.randrange(60):02d} UTC.")
    return text, "observation", f"{OWNER}.VESSEL_POSITIONS"


def _t_container(rng, voc):
    c = rng.choice(voc["containers"])
    voy = voc["voyage_by_id"][c[2]]
    reefer = f", reefer set to {c[6]:+.0f} C" if c[6] is not None else ""
    text = (f"Container {c[1]} ({c[3]}) was loaded on voyage {voy[1]}: tare {c[4]} kg, verified gross mass "
            f"{c[5] + rng.randrange(-300, 300)} kg{reefer}.")
    return text, "observation", f"{OWNER}.CONTAINERS"


def _t_cargo(rng, voc):
    it = rng.choice(voc["cargo"])
    qty = max(1, it[5] + rng.randrange(-20, 20))
    un = f" Dangerous goods: UN {it[8]}." if it[8] else ""
    text = (f"Manifest line in container {it[1]}: {qty} x {it[4]} of {it[2].lower()} (HS code {it[3]}), "
            f"declared at {it[7]} cents per package, {it[6]:.0f} kg gross.{un}")
    return text, "observation", f"{OWNER}.CARGO_ITEMS"


def _t_column_note(rng, voc):
    subject, table, column, sentences = rng.choice(voc["columns"])
    who = rng.choice(ANALYSTS)
    text = f"On {_day(rng)} {who} pointed out that {table}.{column} matters here: {rng.choice(sentences)}"
    return text, "note", subject


def _t_capacity(rng, voc):
    v = rng.choice(voc["vessels"])
    text = (f"{v[1]} (IMO {v[0]}, flag {v[3]}, built {v[4]}) carries up to {v[5]} TEU with a deadweight of "
            f"{v[6]} tonnes and is {v[7]} m long.")
    return text, "observation", f"{OWNER}.VESSELS"


def _t_carrier(rng, voc):
    c = rng.choice(voc["carriers"])
    alliance = f"a member of {c[4]}" if c[4] else "not in any alliance"
    text = (f"{c[2]} (SCAC {c[1]}, head office {c[3]}) is {alliance}; {rng.choice(ANALYSTS)} asked to track "
            f"its schedule reliability this quarter.")
    return text, "note", f"{OWNER}.CARRIERS"


def _t_delay(rng, voc):
    p = rng.choice(voc["ports"])
    v = rng.choice(voc["vessels"])
    text = (f"{rng.choice(DELAY_CAUSES).capitalize()} at {p[2]} ({p[1]}) held {v[1]} for "
            f"{rng.randrange(4, 96)} hours; the ETA was pushed to {_day(rng)}.")
    return text, "event", f"{OWNER}.VOYAGES"


def _t_error(rng, voc):
    code, msg = rng.choice(ORA_ERRORS)
    subject, table, column, _ = rng.choice(voc["columns"])
    text = (f"On {_day(rng)} a generated query on {table} failed with {code}: {msg} near {column}; "
            f"fixed by checking the column list of {OWNER}.{table} first.")
    return text, "lesson", f"{OWNER}.{table}"


def _t_preference(rng, voc):
    text = f"{rng.choice(ANALYSTS)}'s preference (noted {_day(rng)}): {rng.choice(PREFERENCES)}"
    return text, "preference", "USER"


def _t_tool_output(rng, voc):
    subject, table, _ = rng.choice(voc["tables"])
    text = (f"Tool run_sql returned {rng.randrange(0, 500)} rows in {rng.randrange(3, 900)} ms for "
            f"SELECT * FROM {subject} FETCH FIRST {rng.choice([10, 50, 100])} ROWS ONLY.")
    return text, "tool_output", subject


def _t_table_note(rng, voc):
    subject, table, comment = rng.choice(voc["tables"])
    first = re.split(r"(?<=\.)\s+", comment)[0]
    text = (f"Reminder about {table} ({_day(rng)}): {first} Ask {rng.choice(ANALYSTS)} before changing "
            f"how it is loaded.")
    return text, "note", subject


# (template, weight): observations dominate, as they do in a working agent's memory.
TEMPLATES = [
    (_t_voyage, 14), (_t_position, 12), (_t_container, 12), (_t_cargo, 14), (_t_column_note, 10),
    (_t_capacity, 6), (_t_carrier, 5), (_t_delay, 8), (_t_error, 4), (_t_preference, 3),
    (_t_tool_output, 8), (_t_table_note, 4),
]
_FUNCS = [t for t, _ in TEMPLATES]
_WEIGHTS = [w for _, w in TEMPLATES]


def memory(i: int, seed: int = SEED) -> Memory:
    """Synthetic memory number i (deterministic)."""
    rng = random.Random(f"{seed}:{i}")
    template = rng.choices(_FUNCS, weights=_WEIGHTS)[0]
    text, kind, subject = template(rng, vocabulary())
    return Memory(f"synth:{i:07d}", text, {"kind": kind, "subject": subject, "source": SOURCE})


def memories(start: int, stop: int, seed: int = SEED) -> Iterator[Memory]:
    for i in range(start, stop):
        yield memory(i, seed)

"""From a data question to one read-only SELECT, and from its rows to an answer, with no model.

Used by the offline planner (Part 6's agent without an API key) and by the chat service's
live-data handler. It covers the common shapes of a question about the SUPPLYCHAIN data:

    count        how many vessels / active voyages / containers on voyage 1005
    aggregate    average / total / largest / smallest <column> (of the vessels of a carrier ...)
    top          the 3 longest ships, the 5 vessels with the highest deadweight
    group        how many vessels per carrier, voyages per status, ports per region
    lookup       which vessel sails voyage N, who operates <vessel>, the capacity of <vessel>,
                 where voyage N goes, the SCAC code of <carrier>
    value        the declared value of the cargo on voyage N

Tables, columns and joins come from the data dictionary (`eng.supplychain.data_dictionary(owner)`),
and the unit of an answer from its column's comment: a column in US cents is divided by
100 and shown in dollars; a capacity in TEU is given in TEU, never as a weight. Names in
the question (vessels, carriers, ports) are resolved by a query first (`entity_sql`).
A question of another shape gets no plan (None): the caller says it needs a model.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workshop_lib.data.supplychain_data import TABLES_BY_NAME
from workshop_lib.engines.portable_sql import PLAN_SQL as SQL  # portable: both engines run them
from workshop_lib.errors import WorkshopError

TIES_SHOWN = 10  # a top-N plan fetches this many rows more, to show the ones that tie with the N-th

# Words for the tables (plural and singular), most specific first.
TABLE_WORDS = [
    ("CARGO_ITEMS", r"cargo items?|manifest lines?|cargo lines?|goods"),
    ("VESSEL_POSITIONS", r"positions?|position reports?"),
    ("CONTAINERS", r"containers?|boxes|box"),
    ("VOYAGES", r"voyages?|sailings?|trips?"),
    ("VESSELS", r"vessels?|ships?|fleet"),
    ("CARRIERS", r"carriers?|shipping lines?|lines?|operators?"),
    ("PORTS", r"ports?"),
]
# Words that name a column, beyond the words of its own name.
COLUMN_WORDS = {
    "CAPACITY_TEU": r"capacity|teu|biggest|largest|smallest|big|large",
    "DEADWEIGHT_TONNES": r"deadweight|dwt",
    "LENGTH_M": r"length|long|longest|shortest",
    "YEAR_BUILT": r"built|build year|year built|oldest|newest|age|how old",
    "SPEED_KNOTS": r"speed|fastest|slowest|knots|how fast",
    "GROSS_WEIGHT_KG": r"gross weight|heaviest|lightest|weight|gross mass",
    "TARE_WEIGHT_KG": r"tare",
    "IMO_NUMBER": r"imo",
    "SCAC_CODE": r"scac",
    "FLAG_STATE": r"flag",
    "ALLIANCE": r"alliance",
    "STATUS": r"status",
    "REGION": r"region",
    "HQ_COUNTRY": r"head office|headquarter\w*|hq",
    "REEFER_TEMP_C": r"set-?point|reefer temperature",
    "SIZE_TYPE": r"size type|size",
}
AGGREGATES = [("AVG", r"average|mean|avg"), ("SUM", r"total|sum|combined|altogether"),
              ("MAX", r"largest|biggest|highest|heaviest|longest|maximum|max|most|fastest|newest|latest"),
              ("MIN", r"smallest|lowest|lightest|shortest|minimum|min|least|slowest|oldest|earliest")]
STATUS_WORDS = {"ACTIVE": r"active|at sea|underway|under way|sailing now", "COMPLETED": r"completed|finished|arrived",
                "SCHEDULED": r"scheduled|planned|upcoming|future"}
NAME_COLUMN = {"VESSELS": "VESSEL_NAME", "CARRIERS": "CARRIER_NAME", "PORTS": "PORT_NAME", "VOYAGES": "VOYAGE_ID",
               "CONTAINERS": "CONTAINER_NUMBER", "CARGO_ITEMS": "DESCRIPTION", "VESSEL_POSITIONS": "IMO_NUMBER"}
MAX_TOP = 20


@dataclass
class Entities:
    """What the question names, resolved against the database."""
    vessels: list[tuple[str, int]] = field(default_factory=list)    # (name, IMO_NUMBER)
    carriers: list[tuple[str, int]] = field(default_factory=list)   # (name, CARRIER_ID)
    ports: list[tuple[str, int]] = field(default_factory=list)      # (name, PORT_ID)


@dataclass
class Plan:
    shape: str
    sql: str
    max_rows: int
    what: str                      # the question as the plan understood it
    column: str | None = None      # the measured column, for its unit
    unit: str = ""                 # "" | cents | TEU | tonnes | kg | m | knots
    labels: list[str] = field(default_factory=list)
    shown: int = 0                 # top-N: N (max_rows also fetches the rows that tie with the last)


def _literal(text: str) -> str:
    """The question as a SQL string literal: letters, digits and a few marks only, quotes doubled."""
    kept = re.sub(r"[^\w\s\-'&.]", " ", text)[:400]
    return "'" + kept.replace("'", "''") + "'"


def entity_sql(question: str) -> str:
    """One SELECT listing the vessels, carriers and ports whose names the question contains."""
    return SQL["entities"].format(q=_literal(question))


def parse_entities(question: str, rows: Sequence[Sequence[Any]]) -> Entities:
    """Keep whole-word matches; a name inside a longer matched name (MSC in MSC Gulsun,
    Busan in SITC Busan) is not a separate entity."""
    found = []
    for kind, name, ident in rows:
        name = str(name)
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", question, re.I) or \
                (kind == "PORT" and re.search(r"\b[A-Z]{5}\b", question)):
            found.append((str(kind), name, int(ident)))
    names = [n for _, n, _ in found]
    out = Entities()
    for kind, name, ident in found:
        if any(name != other and name.lower() in other.lower() for other in names):
            continue
        getattr(out, {"VESSEL": "vessels", "CARRIER": "carriers", "PORT": "ports"}[kind]).append((name, ident))
    return out


def _has(pattern: str, text: str) -> re.Match | None:
    return re.search(rf"\b(?:{pattern})\b", text, re.I)


def tables_in(text: str) -> list[str]:
    """Every table a text names in words, most specific first ("manifest line" is CARGO_ITEMS,
    not also CARRIERS for "line"), in the order of TABLE_WORDS."""
    found = []
    for table, words in TABLE_WORDS:
        pattern = re.compile(rf"\b(?:{words})\b", re.I)
        if pattern.search(text):
            found.append(table)
            text = pattern.sub(" ", text)
    return found


def _table_of(text: str) -> str | None:
    hits = [(m.start(), table) for table, words in TABLE_WORDS if (m := _has(words, text))]
    return min(hits)[1] if hits else None


def _columns(dictionary: dict) -> dict[str, list[tuple[str, str]]]:
    """table -> [(column, comment)] from the data dictionary."""
    out: dict[str, list[tuple[str, str]]] = {}
    for c in dictionary["columns"]:
        out.setdefault(c["table"].upper(), []).append((c["column"].upper(), c.get("comment") or ""))
    return out


_GENERIC_SIZE_WORDS = {"biggest", "largest", "smallest", "big", "large", "heaviest", "lightest", "longest", "shortest",
                       "oldest", "newest", "fastest", "slowest", "long"}


def _column_of(text: str, columns: dict[str, list[tuple[str, str]]], prefer: str | None) -> tuple[str, str] | None:
    """(table, column) the question measures: the column's own words or its synonyms."""
    hits = []
    for table, cols in columns.items():
        for col, _ in cols:
            words = COLUMN_WORDS.get(col)
            if words is None:
                continue
            m = _has(words, text)
            if m:
                # a column named outright ("deadweight") beats a size word ("largest") that only implies one
                hits.append((table != prefer, m.group(0).lower() in _GENERIC_SIZE_WORDS, m.start(), table, col))
    if not hits:
        return None
    _, _, _, table, col = min(hits)
    if col in ("STATUS", "IMO_NUMBER") and prefer and prefer != table and \
            any(c == col for c, _ in columns.get(prefer, [])):
        table = prefer
    return table, col


def unit_of(comment: str) -> str:
    """The unit a column comment states."""
    c = comment.lower()
    if "cents" in c:
        return "cents"
    for unit, word in (("TEU", "teu"), ("tonnes", "tonnes"), ("kg", "kilograms"), ("m", "metres"),
                       ("knots", "knots")):
        if word in c.split(":")[0] or (unit == "TEU" and "teu" in c[:40]):
            return unit
    return ""


def _fk_path(dictionary: dict, child: str, parent: str) -> list[tuple[str, str, str, str]] | None:
    """Joins from child to parent (child col = parent col), directly or through one table."""
    fks = [(f["table"].upper(), f["columns"][0].upper(), f["ref_table"].upper(), f["ref_columns"][0].upper())
           for f in dictionary.get("foreign_keys", []) if len(f["columns"]) == 1]
    direct = [f for f in fks if f[0] == child and f[2] == parent]
    if direct:
        # voyages -> ports: the origin is what "per port" means for departures
        return [sorted(direct, key=lambda f: "ORIGIN" not in f[1])[0]]
    for a in fks:
        if a[0] == child and a[2] != "PORTS":
            for b in fks:
                if b[0] == a[2] and b[2] == parent:
                    return [a, b]
    return None


def _join_sql(path: list[tuple[str, str, str, str]], alias0: str = "t") -> tuple[str, str]:
    """FROM-clause joins for a path, and the alias of the last table."""
    sql, prev = "", alias0
    for i, (_, col, ref_table, ref_col) in enumerate(path):
        alias = f"j{i}"
        sql += SQL["join"].format(table=ref_table, alias=alias, col=ref_col, other=prev, other_col=col)
        prev = alias
    return sql, prev


_Narrowing = tuple[str, list[str], list[str]]  # (joins, WHERE conditions, descriptions)


def _filters(text: str, table: str, ents: Entities, dictionary: dict, voyage: int | None) -> tuple[str, str, list[str]]:
    """(joins, WHERE conditions, descriptions) that narrow `table` to what the question names."""
    joins, where, said = "", [], []
    for step_joins, step_where, step_said in (_status_filter(text, table), _voyage_filter(table, voyage),
                                              _carrier_filter(table, ents), _vessel_filter(table, ents),
                                              _port_filter(text, table, ents)):
        joins += step_joins
        where += step_where
        said += step_said
    return joins, SQL["where"].format(conditions=" AND ".join(where)) if where else "", said


def _status_filter(text: str, table: str) -> _Narrowing:
    """Voyages in the statuses the question's words name ("completed", "under way")."""
    where, said = [], []
    if table == "VOYAGES":
        for status, words in STATUS_WORDS.items():
            if _has(words, text):
                where.append(f"t.STATUS = '{status}'")
                said.append(status.lower())
    return "", where, said


def _voyage_filter(table: str, voyage: int | None) -> _Narrowing:
    """The positions, containers or cargo of the voyage named by its number."""
    if voyage is None:
        return "", [], []
    if table == "VESSEL_POSITIONS":
        return "", [f"t.VOYAGE_ID = {voyage}"], []
    if table == "CONTAINERS":
        return "", [f"t.VOYAGE_ID = {voyage}"], [f"on voyage {voyage}"]
    if table == "CARGO_ITEMS":
        joins = SQL["join"].format(table="CONTAINERS", alias="c", col="CONTAINER_ID", other="t",
                                   other_col="CONTAINER_ID")
        return joins, [f"c.VOYAGE_ID = {voyage}"], [f"on voyage {voyage}"]
    return "", [], []


def _carrier_filter(table: str, ents: Entities) -> _Narrowing:
    """The vessels, or the voyages of the vessels, of the first carrier named."""
    if not ents.carriers or table not in ("VESSELS", "VOYAGES"):
        return "", [], []
    name, ident = ents.carriers[0]
    if table == "VESSELS":
        return "", [f"t.CARRIER_ID = {ident}"], [f"of {name}"]
    joins = SQL["join"].format(table="VESSELS", alias="fv", col="IMO_NUMBER", other="t", other_col="IMO_NUMBER")
    return joins, [f"fv.CARRIER_ID = {ident}"], [f"of {name}"]


def _vessel_filter(table: str, ents: Entities) -> _Narrowing:
    """The voyages, or the containers on the voyages, of the first vessel named."""
    if not ents.vessels or table not in ("VOYAGES", "CONTAINERS"):
        return "", [], []
    name, ident = ents.vessels[0]
    if table == "VOYAGES":
        return "", [f"t.IMO_NUMBER = {ident}"], [f"of {name}"]
    joins = SQL["join"].format(table="VOYAGES", alias="fy", col="VOYAGE_ID", other="t", other_col="VOYAGE_ID")
    return joins, [f"fy.IMO_NUMBER = {ident}"], [f"of {name}"]


def _port_filter(text: str, table: str, ents: Entities) -> _Narrowing:
    """Voyages from or to the ports named: two ports need a clear from and to, one takes its role
    from the question's words (from, unless only arrival words are there)."""
    where: list[str] = []
    said: list[str] = []
    if len(ents.ports) == 2 and table == "VOYAGES":
        # "from Shanghai to Rotterdam": each port's role from the word before it, or no plan at all
        roles = [_port_role(text, name) for name, _ in ents.ports]
        if sorted(r or "" for r in roles) != ["DESTINATION", "ORIGIN"]:
            raise CannotPlan("two ports named without a clear from / to")
        for (name, ident), role in zip(ents.ports, roles, strict=True):
            where.append(f"t.{role}_PORT_ID = {ident}")
            said.append(f"{'from' if role == 'ORIGIN' else 'to'} {name}")
    elif ents.ports and table == "VOYAGES":
        name, ident = ents.ports[0]
        to = _has(r"to|arriv\w*|destination|bound for|into|ends?|ending|finish\w*", text) and \
            not _has(r"from|depart\w*|leav\w*|origin|starts?|starting", text)
        where.append(f"t.{'DESTINATION' if to else 'ORIGIN'}_PORT_ID = {ident}")
        said.append(f"{'to' if to else 'from'} {name}")
    return "", where, said


class CannotPlan(WorkshopError):
    """The question names more than one plan can apply: no SELECT rather than one that ignores a name
    (caught inside plan(), which then returns None)."""


def _port_role(text: str, name: str) -> str | None:
    """ORIGIN or DESTINATION from the words just before the port's name ("from X", "to X")."""
    at = text.lower().find(name.lower())
    if at < 0:
        return None
    before = " ".join(text[:at].lower().split()[-3:])
    if re.search(r"\b(?:from|departing|leaving|out of)\s*(?:the port of\s*)?$", before):
        return "ORIGIN"
    if re.search(r"\b(?:to|for|into|arriving (?:at|in)|bound for)\s*(?:the port of\s*)?$", before):
        return "DESTINATION"
    return None


# "the number of vessels" counts; "the IMO number of a vessel" is a column
_COUNT_NUMBER_RE = re.compile(r"(?:^|\b(?:the|a|total)\s+)number of\b", re.I)
_KNOWN_CAPS = {"TEU", "IMO", "SCAC", "UN", "US", "USD", "AIS", "HS", "ID", "I", "ETA", "DWT", "ACTIVE", "COMPLETED",
               "SCHEDULED", "SUPPLYCHAIN"}


def unresolved_names(text: str, ents: Entities) -> list[str]:
    """Capitalised words (not the first) that are no resolved vessel, carrier or port: a filter
    the plan cannot apply ("Panama" in "vessels flying the Panama flag")."""
    known = " ".join(n for group in (ents.vessels, ents.carriers, ents.ports) for n, _ in group).lower()
    words = [re.sub(r"'s?$", "", w) for w in re.findall(r"[A-Za-z][\w'-]*", text)[1:]]
    return [w for w in words if w[0].isupper() and w.upper() not in _KNOWN_CAPS
            and w.lower() not in known and not re.fullmatch(r"[A-Z]{5}", w)]


# Words a count or an aggregate may carry without changing what is counted.
_FILLER = set("""a an the of in on at to for from and or is are was were be been do does did we you i our your my
there their its it this that these those how many much what which who whose whom when where why number count
counted total all any every each per by currently current now right today so far altogether overall please tell
me give show list find get have has had with database schema data dataset table tables records rows recorded
stored listed known registered held kept loaded carried sailing sail sails sailed operate operates operated run
runs running fleet whole entire some one figure value values in metres meters kg kilograms tonnes tons knots
teu units unit measured average mean avg sum largest biggest highest heaviest longest maximum max most fastest
newest latest smallest lowest lightest shortest minimum min least slowest oldest earliest top depart departs
departing leave leaves leaving arrive arrives arriving go goes going bound into out ship ships vessel vessels
voyage voyages container containers port ports carrier carriers line lines cargo item items manifest what's
how's there's does doesn't value declared worth dollars usd year built build age speed capacity deadweight dwt
length long gross weight tare flag state status region size type imo scac alliance positions position reports
report sea underway under way active completed finished arrived scheduled planned upcoming future shipping
carries carry carrying holds hold biggest end ends ending start starts starting finish finishes
combined file files board onboard aboard where from route origin destination arrival departure eta now
when state go goes fast old how
boxes box goods sailings trips trip operators operator mass set point temperature number""".split())


def unexplained_words(text: str, ents: Entities) -> list[str]:
    """Words of the question a count or an aggregate would silently ignore (a qualifier such as
    "reefer" in "how many reefer containers"): with any, the plan declines."""
    names = " ".join(n for group in (ents.vessels, ents.carriers, ents.ports) for n, _ in group).lower()
    words = [re.sub(r"'s?$", "", w) for w in re.findall(r"[a-z][a-z'-]*", text.lower())]
    return [w for w in words if w not in _FILLER and w not in names and not w.isdigit()]


_POLITE_HEAD = re.compile(r"^\s*(?:(?:hi|hello|hey|(?:good\s+)?(?:morning|afternoon|evening)|hola|bonjour|salut|moin|hallo)"
                          r"\b[,!.]?\s*)?(?:quick question\s*[-:,]?\s*)?(?:(?:please|kindly)\s+)?"
                          r"(?:(?:can|could|would) you\s+(?:please\s+)?)?(?:(?:(?:tell|show|give) me|(?:check|find out|look up|confirm)(?: for me)?|"
                          r"let me know)\s*[:,-]?\s*)?"
                          r"(?:i(?:'d| would) like to know\s*[:,-]?\s*)?", re.I)
_POLITE_TAIL = re.compile(r"[\s,.!]*(?:(?:thanks?|thank you|thx|cheers)(?: (?:a lot|very much))?|please)[.!?]*\s*$", re.I)


def core(question: str) -> str:
    """The question without greetings and politeness around it ("Please tell me: ... Thanks!")."""
    text = _POLITE_TAIL.sub("", " ".join(question.split()))
    text = _POLITE_HEAD.sub("", text, count=1)
    return text[:1].upper() + text[1:] if text else question


def plan(question: str, dictionary: dict, ents: Entities | None = None) -> Plan | None:
    """The SELECT that answers a data question, or None for a shape it does not cover."""
    text = core(question)
    ents = ents or Entities()
    if unresolved_names(text, ents):
        return None
    # A filter applies one vessel or carrier (two ports only as a voyage's from / to): a question
    # naming more gets no plan, never one that silently drops a name.
    if len(ents.vessels) > 1 or len(ents.carriers) > 1 or len(ents.ports) > 2:
        return None
    try:
        return _plan(text, dictionary, ents)
    except CannotPlan:
        return None


@dataclass
class _Question:
    """What every kind of plan reads from the question: the dictionary's columns and their comments,
    the voyage number named, whether it counts, the table it is about, the column it measures and
    the aggregate its words ask for."""
    text: str
    dictionary: dict
    ents: Entities
    cols: dict[str, list[tuple[str, str]]]
    comments: dict[tuple[str, str], str]
    voyage: int | None
    counting: bool
    target: str | None
    measured: tuple[str, str] | None
    agg: str | None

    @classmethod
    def read(cls, text: str, dictionary: dict, ents: Entities) -> _Question:
        cols = _columns(dictionary)
        voyage_m = re.search(r"\bvoyages?\s+(?:id\s+|number\s+|no\.?\s*)?(\d{3,6})\b", text, re.I)
        target = _table_of(text)
        return cls(text, dictionary, ents, cols,
                   comments={(t, c): comment for t, cs in cols.items() for c, comment in cs},
                   voyage=int(voyage_m.group(1)) if voyage_m else None,
                   counting=bool(_has(r"how many|count", text) or _COUNT_NUMBER_RE.search(text)),
                   target=target, measured=_column_of(text, cols, target),
                   agg=next((fn for fn, words in AGGREGATES if _has(words, text)), None))

    def unit(self, table: str, col: str) -> str:
        return unit_of(self.comments.get((table, col), ""))


def _plan(text: str, dictionary: dict, ents: Entities) -> Plan | None:
    """The first kind of plan that fits the question, tried in this order. A kind that recognises
    the question but cannot answer it returns None here and no later kind is tried."""
    q = _Question.read(text, dictionary, ents)
    if q.voyage is not None and _has(r"value|worth|declared", text):
        return _voyage_value(q, q.voyage)
    if q.voyage is not None and not q.counting:
        return _voyage_lookup(q, q.voyage)
    most = _most_per_group(q)
    if most is not None:
        return most
    group = re.search(r"\b(?:per|each|by|for every)\s+(?:the\s+)?([a-z_ ]+?)(?:\s+(?:operate|have|run|sail|hold)\w*|\?|$|,)",
                      text, re.I)
    if q.counting and group and q.target:
        return _per_group(q, q.target, group.group(1))
    return _lookup_count_or_aggregate(q)


def _lookup_count_or_aggregate(q: _Question) -> Plan | None:
    """The kinds tried after the voyage and group kinds: a lookup, a top-N or a listing, then a
    count, then an aggregate of the column measured."""
    found = _vessel_lookup(q) or _carrier_lookup(q) or _top(q) or _listing(q)
    if found is not None:
        return found
    if q.counting and q.target:
        return _count(q, q.target)
    if q.agg and q.measured:
        return _aggregate(q, q.agg, q.measured)
    return None


def _voyage_value(q: _Question, voyage: int) -> Plan:
    """The declared value of a voyage's cargo."""
    return Plan("value", SQL["voyage_value"].format(voyage=voyage), 1, f"the declared value of the cargo on voyage {voyage}",
                "UNIT_VALUE_CENTS", q.unit("CARGO_ITEMS", "UNIT_VALUE_CENTS"))


def _voyage_lookup(q: _Question, voyage: int) -> Plan | None:
    """One voyage: a column of its vessel or latest position, its position, carrier, vessel, status or route."""
    text, cols = q.text, q.cols
    asked = _column_of(text, cols, "VESSELS")
    if asked and asked[1] not in ("STATUS", "IMO_NUMBER"):
        table, col = asked
        unit = q.unit(table, col)
        if table == "VESSELS":
            return Plan("lookup", SQL["voyage_vessel_column"].format(col=col, voyage=voyage), 1,
                        f"the {col.lower()} of the vessel on voyage {voyage}",
                        col, unit, [col])
        if any(c == "VOYAGE_ID" for c, _ in cols.get(table, [])) and table == "VESSEL_POSITIONS":
            return Plan("lookup", SQL["voyage_position_column"].format(col=col, voyage=voyage), 1,
                        f"the latest reported {col.lower()} on voyage {voyage}", col, unit, [col])
        return None  # an attribute this plan cannot read for one voyage
    if unexplained_words(text, q.ents):
        return None  # a word the look-ups below would ignore
    if _has(r"now|currently|position|right now|at the moment", text) and _has(r"where|position|located", text):
        return Plan("lookup", SQL["voyage_position"].format(voyage=voyage), 1,
                    f"the latest reported position on voyage {voyage}",
                    labels=["latitude", "longitude", "speed (knots)", "reported at (UTC)"])
    if _has(r"carrier|operat\w*|line|runs?", text):
        return Plan("lookup", SQL["voyage_carrier"].format(voyage=voyage), 1,
                    f"the carrier operating the vessel of voyage {voyage}", labels=["carrier"])
    if _has(r"vessel|ship|sails?|sailing", text) and not _has(r"where|from|to|go|route", text):
        return Plan("lookup", SQL["voyage_vessel"].format(voyage=voyage), 1,
                    f"the vessel of voyage {voyage}", labels=["vessel", "IMO number"])
    if _has(r"status|state", text):
        return Plan("lookup", SQL["voyage_status"].format(voyage=voyage), 1, f"the status of voyage {voyage}", labels=["status"])
    if _has(r"where|from|to|go|goes|route|origin|destination|depart\w*|arriv\w*|leave|when|eta", text):
        return Plan("lookup", SQL["voyage_route"].format(voyage=voyage), 1,
                    f"the route of voyage {voyage}",
                    labels=["from", "to", "departure", "arrival", "status"])
    return None


def _most_per_group(q: _Question) -> Plan | None:
    """The top of a per-group count: "which carrier has the most vessels" is the first row of
    "how many vessels per carrier"."""
    most = re.match(r"\s*(?:which|what)\s+(\w+)\s+(?:has|have|runs?|operates?|sails?)\s+the\s+(most|fewest)\s+(\w+)\W*$",
                    q.text, re.I)
    if most and _table_of(most.group(1)) and _table_of(most.group(3)):
        p = plan(f"How many {most.group(3)} per {most.group(1)}?", q.dictionary, q.ents)
        if p is not None and p.shape == "group":
            p.shape = "group_" + most.group(2).lower()
            p.what = f"the {most.group(1).lower()} with the {most.group(2).lower()} {most.group(3).lower()}"
            return p
    return None


def _per_group(q: _Question, target: str, gtext: str) -> Plan | None:
    """Rows of `target` counted per value of one of its columns, or per row of a parent table."""
    cols, dictionary = q.cols, q.dictionary
    gcol = _column_of(gtext, {target: cols.get(target, [])}, target)
    gtable = _table_of(gtext)
    fjoins, where, said = _filters(q.text.replace(gtext, " "), target, q.ents, dictionary, q.voyage)
    what = " ".join([target.lower().replace("_", " ")] + said)
    if gcol and gcol[1] in ("STATUS", "REGION", "FLAG_STATE", "SIZE_TYPE", "ALLIANCE", "HQ_COUNTRY"):
        c = gcol[1]
        return Plan("group", SQL["group_by_column"].format(col=c, table=target, joins=fjoins, where=where), 50,
                    f"{what} per {c.lower()}", labels=[c.lower(), "count"])
    if gtable and gtable != target:
        path = _fk_path(dictionary, target, gtable)
        if path:
            joins, last = _join_sql(path)
            name = NAME_COLUMN[gtable]
            return Plan("group", SQL["group_by_parent"].format(alias=last, name=name, table=target,
                                                               joins=joins + fjoins, where=where), 50,
                        f"{what} per {gtable.lower()[:-1]}", labels=[gtable.lower()[:-1], "count"])
    return None


def _vessel_lookup(q: _Question) -> Plan | None:
    """A vessel named and one of its columns, or its carrier (None: another kind may fit)."""
    text = q.text
    if q.counting or not q.ents.vessels or _has(r"average|total|sum", text):
        return None
    name, imo = q.ents.vessels[0]
    if _has(r"carrier|operat\w*|line|owns?|runs?|running|manages?", text):
        return Plan("lookup", SQL["vessel_carrier"].format(imo=imo), 1, f"the carrier operating {name}",
                    labels=["carrier"])
    vessel_col = _column_of(text, {"VESSELS": q.cols.get("VESSELS", [])}, "VESSELS")
    if vessel_col:
        col = vessel_col[1]
        return Plan("lookup", SQL["row_column"].format(col=col, table="VESSELS", key="IMO_NUMBER", value=imo), 1,
                    f"the {col.lower()} of {name}", col, q.unit("VESSELS", col), [col])
    if _has(r"when|year", text):
        return Plan("lookup", SQL["row_column"].format(col="YEAR_BUILT", table="VESSELS", key="IMO_NUMBER",
                                                       value=imo), 1,
                    f"the year {name} was built", "YEAR_BUILT", "", ["YEAR_BUILT"])
    return None  # anything else about the vessel: the kinds after this one (its voyages...), or no plan


def _carrier_lookup(q: _Question) -> Plan | None:
    """A carrier named and one of its columns."""
    if q.counting or not q.ents.carriers or not q.measured or q.measured[0] != "CARRIERS":
        return None
    name, ident = q.ents.carriers[0]
    col = q.measured[1]
    return Plan("lookup", SQL["row_column"].format(col=col, table="CARRIERS", key="CARRIER_ID", value=ident), 1,
                f"the {col.lower()} of {name}", col, "", [col])


def _top(q: _Question) -> Plan | None:
    """The N rows with the highest or lowest value of a column; "which vessel ..." and "what is the
    smallest ship ..." / "name the largest carrier" ask for a row (N = 1), not a value."""
    text = q.text
    top = re.search(r"\b(?:top|the)\s+(\d{1,2})\b|\b(\d{1,2})\s+(?:largest|biggest|longest|newest|oldest|heaviest|"
                    r"highest|smallest|shortest|fastest|ships|vessels)", text, re.I)
    which_one = re.match(r"\s*(?:which|what)\s+(?:vessel|ship|carrier|port|container)\b", text, re.I) or re.match(
        r"\s*(?:(?:which|what)(?:'s|\s+is|\s+was|\s+are)|name)\s+the\s+\w+\s+(?:vessel|ship|carrier|port|container)s?\b",
        text, re.I)
    if not ((top or which_one) and q.measured and (q.agg in ("MAX", "MIN") or _has(r"highest|largest|lowest|most", text))
            and not unexplained_words(text, q.ents) and not q.counting):
        return None
    n = min(int(top.group(1) or top.group(2)), MAX_TOP) if top else 1
    table, col = q.measured
    order = "ASC" if q.agg == "MIN" and not _has(r"newest|latest", text) else "DESC"
    name = NAME_COLUMN[table]
    direction = "highest" if order == "DESC" else "lowest"
    what = (f"the {table.lower().replace('_', ' ').removesuffix('s')} with the {direction} {col.lower()}" if n == 1
            else f"the {n} {table.lower().replace('_', ' ')} by {col.lower()} ({direction} first)")
    return Plan("top", SQL["top"].format(name=name, col=col, table=table, order=order), n + TIES_SHOWN, what,
                col, q.unit(table, col), [name, col], shown=n)


def _listing(q: _Question) -> Plan | None:
    """The rows of one table, narrowed by what the question names ("which ships does MSC operate")."""
    text = q.text
    listing = re.match(r"\s*(?:which|what|list|show(?: me)?|give me)\s+(?:the\s+|all\s+(?:the\s+)?)?"
                       r"(vessels?|ships?|voyages?|sailings?|carriers?|ports?)\b", text, re.I)
    if listing and not q.counting and not q.agg and not unexplained_words(text, q.ents) \
            and (listed := _table_of(listing.group(1))) is not None:
        table = listed
        joins, where, said = _filters(text, table, q.ents, q.dictionary, q.voyage)
        if where or table in ("CARRIERS", "PORTS", "VESSELS"):
            name = NAME_COLUMN[table]
            return Plan("list", SQL["list"].format(alias="t", name=name, table=table, joins=joins, where=where),
                        50, " ".join([table.lower()] + said), labels=[name])
    return None


def _count(q: _Question, target: str) -> Plan | None:
    """The rows of one table, narrowed by what the question names; None when a word or a table
    of the question would be left out of the count."""
    text, measured, dictionary = q.text, q.measured, q.dictionary
    if _has(r"can|could|fits?|carry|hold", text) or (measured and measured[1] != "STATUS"):
        # "how many containers can a ship carry" is a capacity, "vessels flying a flag" a filter
        # this plan cannot apply: not a count of rows
        return None
    if unexplained_words(text, q.ents):
        return None
    explained = {target} | ({"VOYAGES"} if q.voyage is not None else set()) | \
        ({"CARRIERS"} if q.ents.carriers else set()) | ({"PORTS"} if q.ents.ports else set()) | \
        ({"VESSELS"} if q.ents.vessels else set())
    if not _has(r"and|or|plus|as well as", text):  # "containers loaded on voyages": its parent describes it
        explained |= {f["ref_table"].upper() for f in dictionary.get("foreign_keys", []) if f["table"].upper() == target}
    if set(tables_in(text)) - explained:
        return None  # "how many ships and how many ports": two counts, or a link this plan does not make
    joins, where, said = _filters(text, target, q.ents, dictionary, q.voyage)
    return Plan("count", SQL["count"].format(table=target, joins=joins, where=where), 1,
                " ".join([f"{target.lower().replace('_', ' ')}"] + said), labels=["count"])


def _aggregate(q: _Question, fn: str, measured: tuple[str, str]) -> Plan | None:
    """AVG, SUM, MAX or MIN of one column, over the table the question is about when it has the column."""
    table, col = measured
    target, cols = q.target, q.cols
    if target and target != table and target in cols and any(c == col for c, _ in cols[target]):
        table = target
    if unexplained_words(q.text, q.ents):
        return None
    joins, where, said = _filters(q.text, table, q.ents, q.dictionary, q.voyage)
    return Plan("aggregate", SQL["aggregate"].format(fn=fn, col=col, table=table, joins=joins, where=where), 1,
                " ".join([f"the {dict(AVG='average', SUM='total', MAX='largest', MIN='smallest')[fn]} "
                          f"{col.lower()} of {table.lower().replace('_', ' ')}"] + said),
                col, q.unit(table, col))


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "none recorded (NULL)"
    if unit == "cents":
        return f"${float(value) / 100:,.2f}"
    if isinstance(value, float) or (isinstance(value, str) and re.fullmatch(r"-?\d+\.\d+", value)):
        v = float(value)
        text = f"{v:,.0f}" if v.is_integer() else f"{v:,.2f}"
    elif isinstance(value, int) and not isinstance(value, bool):
        text = f"{value}" if 1000 <= value <= 2100 or value >= 1_000_000 else f"{value:,}"
    else:
        text = str(value)
    return f"{text} {unit}".strip() if unit and unit != "cents" else text


def _top_rows(p: Plan, rows: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
    """The N rows, and any that tie with the last of them: "the oldest vessel" may be two."""
    if not p.shown:
        return list(rows)
    last = rows[min(p.shown, len(rows)) - 1][1]  # a table may hold fewer rows than N
    return [r for i, r in enumerate(rows) if i < p.shown or r[1] == last]


def _render_top(p: Plan, rows: Sequence[Sequence[Any]], note: str) -> str:
    shown = _top_rows(p, rows)
    extra = len(shown) - p.shown if p.shown else 0
    ties = "" if extra <= 0 else f" ({len(shown)} tied)" if p.shown == 1 else f" (and {extra} tied with number {p.shown})"
    return (f"{p.what[0].upper() + p.what[1:]}{ties}:\n"
            + "\n".join(f"{i}. {r[0]}: {_fmt(r[1], p.unit)}" for i, r in enumerate(shown, 1)) + (note and f"\n{note.strip()}"))


def render(p: Plan, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str | None:
    """The answer written from the rows, or None when the rows answer nothing (no row, NULL)."""
    if not rows or (p.shape != "lookup" and all(v is None for v in rows[0])):
        return None
    note = _unit_note(p)
    if p.shape in ("count", "aggregate", "value"):
        cents = f" ({float(rows[0][0]):,.0f} US cents)" if p.unit == "cents" else ""
        return f"{p.what[0].upper() + p.what[1:]}: {_fmt(rows[0][0], p.unit)}{cents}{note}."
    if p.shape == "lookup":
        parts = [f"{label} {_fmt(v, p.unit if i == 0 else '')}" for i, (label, v) in enumerate(zip(p.labels, rows[0]))]
        return f"{p.what[0].upper() + p.what[1:]}: " + ", ".join(parts) + f"{note}."
    if p.shape == "top":
        return _render_top(p, rows, note)
    return _render_list_or_groups(p, rows)


def _unit_note(p: Plan) -> str:
    """What the unit of the column answered means, for cents and TEU; empty for any other."""
    if p.unit == "cents":
        return f" ({p.column} is in US cents, so the figure is divided by 100 for dollars)"
    if p.unit == "TEU":
        return " (TEU: twenty-foot equivalent units, a count of box slots, not a weight)"
    return ""


def _render_list_or_groups(p: Plan, rows: Sequence[Sequence[Any]]) -> str | None:
    """A listing, the groups with the most or fewest (ties shown), or every group with its count."""
    if p.shape == "list":
        return f"{p.what[0].upper() + p.what[1:]} ({len(rows)}):\n" + "\n".join(f"- {r[0]}" for r in rows)
    if p.shape in ("group_most", "group_fewest"):
        best = rows[0][1] if p.shape == "group_most" else min(r[1] for r in rows)
        tied = [r for r in rows if r[1] == best]
        head = f"{p.what[0].upper() + p.what[1:]}" + (f" ({len(tied)} tied)" if len(tied) > 1 else "")
        return f"{head}:\n" + "\n".join(f"- {r[0]}: {r[1]}" for r in tied)
    if p.shape == "group":
        return f"{p.what[0].upper() + p.what[1:]}:\n" + "\n".join(f"- {r[0]}: {r[1]}" for r in rows)
    return None


def rows_shown(p: Plan, rows: Sequence[Sequence[Any]]) -> int:
    """How many of the fetched rows the answer `render` wrote shows (a top-N fetches the rows that
    may tie with the last; "the most" shows only the tied winners)."""
    if not rows:
        return 0
    if p.shape == "top":
        return len(_top_rows(p, rows))
    if p.shape in ("group_most", "group_fewest"):
        best = rows[0][1] if p.shape == "group_most" else min(r[1] for r in rows)
        return sum(1 for r in rows if r[1] == best)
    if p.shape in ("list", "group"):
        return len(rows)
    return 1  # a count, an aggregate, a value or one row looked up


def tables_read(sql: str) -> list[str]:
    """The SUPPLYCHAIN tables a planned SELECT reads, in the order it names them."""
    named = re.findall(r"\b(?:FROM|JOIN)\s+(?:\w+\.)?(\w+)", sql, re.I)
    return list(dict.fromkeys(t.upper() for t in named if t.upper() in TABLES_BY_NAME))

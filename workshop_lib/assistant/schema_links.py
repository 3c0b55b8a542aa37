"""Words of a question linked to SUPPLYCHAIN tables and columns, from the data dictionary.

Every table and column is described by the words of its own name and of the first clause of
its comment (the domain expert's `COMMENT ON`, the same text Part 2's scanner turns into schema
facts), so "deadweight" finds VESSELS.DEADWEIGHT_TONNES and "verified gross mass" finds
CONTAINERS.GROSS_WEIGHT_KG because their comments say so. A small synonym layer maps everyday
words onto the comments' words (ship -> vessel, line -> carrier, box -> container). The unit of
a column is read from its comment too.
"""
from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass, field
from typing import Any

# Everyday words -> the word the schema uses. General English, not questions: each entry says
# that two words name the same thing in shipping.
SYNONYMS = {
    "ship": "vessel", "boat": "vessel", "hull": "vessel", "fleet": "vessel", "vessel": "vessel",
    "line": "carrier", "operator": "carrier", "company": "carrier", "liner": "carrier", "carrier": "carrier",
    "operates": "carrier", "operate": "carrier", "operated": "carrier",
    "box": "container", "container": "container",
    "harbour": "port", "harbor": "port", "seaport": "port", "terminal": "port", "port": "port",
    "trip": "voyage", "sailing": "voyage", "journey": "voyage", "voyage": "voyage", "rotation": "voyage", "voy": "voyage",
    "crossing": "voyage",
    "goods": "cargo", "shipment": "cargo", "consignment": "cargo", "cargo": "cargo", "manifest": "cargo",
    "packed": "cargo", "contents": "cargo", "content": "cargo", "commodity": "cargo",
    "position": "position", "location": "position", "ping": "position", "lat": "latitude", "lon": "longitude", "lng": "longitude",
    "weight": "weight", "heavy": "weight", "mass": "weight", "dwt": "deadweight",
    "temperature": "temperature", "setpoint": "temperature", "temp": "temperature",
    "built": "built", "build": "built", "constructed": "built", "delivered": "built", "age": "built",
    "old": "built", "new": "built", "newest": "built", "oldest": "built", "young": "built",
    "long": "length", "length": "length", "loa": "length",
    "fast": "speed", "speed": "speed", "slow": "speed", "knots": "speed", "faster": "speed", "slower": "speed",
    "shorter": "length", "longer": "length", "heavier": "weight", "lighter": "weight", "weigh": "weight",
    "weighs": "weight", "bigger": "capacity", "larger": "capacity", "smaller": "capacity", "older": "built",
    "newer": "built", "valuable": "value", "expensive": "value", "cheap": "value", "cheapest": "value",
    "teu": "capacity", "capacity": "capacity", "big": "capacity", "large": "capacity", "small": "capacity",
    "flag": "flag", "flagged": "flag", "registry": "flag", "registered": "flag", "flying": "flag",
    "headquarters": "head", "headquartered": "head", "hq": "head", "based": "head",
    "value": "value", "worth": "value", "price": "value",
    "live": "current", "hazardous": "dangerous", "zone": "time", "timezone": "time", "hazmat": "dangerous", "dangerous": "dangerous",
    "departure": "departure", "etd": "departure", "dep": "departure", "arr": "arrival", "arrival": "arrival", "eta": "arrival", "expected": "arrival",
    "due": "arrival", "kind": "type", "pack": "package", "qty": "quantity",
}
# Table words that belong to the table as a whole (the row's noun), from the table comments'
# subjects: "Container ships", "Ocean carriers (shipping lines)", "Container seaports" ...
TABLE_NOUNS = {"vessel": "VESSELS", "carrier": "CARRIERS", "port": "PORTS", "voyage": "VOYAGES",
               "container": "CONTAINERS", "cargo": "CARGO_ITEMS", "position": "VESSEL_POSITIONS"}
_STOP = set("""a an the of in on at to for from and or is are was were be by as it its per each one row
not no this that these those with without what which who how when where than more most less least
only also any all every there their them they we you i our your my do does did has have had never""".split())
STOP_WORDS = frozenset(_STOP)  # words that say nothing of what a table or column holds
# Words of a column's name that say its unit, not what it measures ("in tonnes" asks for a unit).
UNIT_NAME_WORDS = {"tonne", "kg", "cent", "m", "c", "deg", "metre"}
_UNIT_WORDS = {"cents": "cents", "teu": "TEU", "tonnes": "tonnes", "kilograms": "kg", "metres": "m",
               "knots": "knots", "celsius": "°C", "degrees": "degrees", "days": "days"}


@functools.lru_cache(maxsize=8192)  # every question stems the same few thousand words again
def stem(word: str) -> str:
    """A plain English singular ("vessels" -> "vessel", "boxes" -> "box", "ties" -> "tie", "ETAs" -> "eta")."""
    w = word.lower()
    if len(w) > 2 and w[-1] == "s" and w[:-1] in SYNONYMS and len(w) <= 4:
        return w[:-1]  # an abbreviation's plural ("ETAs"; not "AIS" or "STATUS")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("xes", "ches", "shes", "sses")):
        return w[:-2]
    if len(w) > 4 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def table_of_noun(word: str) -> str | None:
    """The table a noun names, through the synonyms ("boxes" -> CONTAINERS, "sailing" -> VOYAGES), or None."""
    w = stem(word.lower())
    return TABLE_NOUNS.get(SYNONYMS.get(w, w))


_NOT_HELD = r"modell?ed|stored|recorded|tracked|kept"   # "... are not modelled": what the data does not hold


def _telling_roots(sentence: str) -> list[str]:
    """The roots of a sentence's words that may name a thing (five letters or more, not the 'not
    modelled' itself)."""
    return [stem_root(w) for w in re.findall(r"[A-Za-z]+", sentence)
            if len(w) >= 5 and w.lower() not in _STOP and not re.fullmatch(_NOT_HELD, w, re.I)]


@functools.lru_cache(maxsize=8192)
def stem_root(word: str) -> str:
    """A word's singular without a verb or adverb ending ("calls", "called": call; "independently":
    independent), to compare the words of a question with those of the comments."""
    w = stem(word)
    for suffix in ("ing", "ed", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


# Two words that name one thing: the first is dropped ("-"), the second carries the meaning.
PHRASES = {("manifest", "line"): "cargo", ("cargo", "item"): "cargo", ("cargo", "line"): "cargo",
           ("shipping", "line"): "carrier", ("shipping", "company"): "carrier", ("container", "ship"): "vessel",
           ("container", "vessel"): "vessel", ("box", "ship"): "vessel", ("box", "vessel"): "vessel",
           ("position", "report"): "position", ("flag", "state"): "flag",
           ("head", "office"): "head", ("gross", "mass"): "weight", ("home", "port"): "port",
           ("set", "point"): "temperature", ("good", "line"): "cargo", ("port", "code"): "unlocode",
           ("due", "to"): "to",  # "due to sail" says what is planned, not an arrival
           ("transit", "time"): "duration", ("sailing", "time"): "duration",
           # boxes "sitting on" a voyage are on it (a box that sits somewhere for days is another question)
           ("sitting", "on"): "on", ("sits", "on"): "on", ("sit", "on"): "on",
           # a ship that "gets in" (or "gets there") arrives
           ("get", "in"): "arrival", ("gets", "in"): "arrival", ("getting", "in"): "arrival", ("get", "there"): "arrival"}


def map_words(raw: list[str]) -> list[str]:
    """Each word's stem through the phrase and synonym layers, one output word per input word."""
    if any("-w" in w or "-W" in w for w in raw):  # "speed-wise": about speed (a cheap test first: most have none)
        raw = [w[:-5] if w.lower().endswith("-wise") and len(w) > 7 else w for w in raw]
    stems = [stem(w) for w in raw]
    out = [SYNONYMS.get(s, SYNONYMS.get(w.lower(), s)) for w, s in zip(raw, stems, strict=True)]
    for i in range(len(stems) - 1):
        meaning = PHRASES.get((stems[i], stems[i + 1]))
        if meaning:
            out[i], out[i + 1] = "-", meaning
    for i in range(len(stems) - 2):
        # "takes more boxes", "holds the most containers": what a ship can take is its capacity
        if stems[i] in _CAN_TAKE and stems[i + 1] in _MORE_OR_LESS and out[i + 2] in ("container", "capacity"):
            out[i], out[i + 2] = "-", "capacity"
    return out


_CAN_TAKE = {"take", "hold", "fit", "accommodate"}
_MORE_OR_LESS = {"more", "most", "fewer", "fewest", "less", "least"}


def words_of(text: str) -> list[str]:
    """Lower-case word stems, each mapped through the phrase and synonym layers."""
    return map_words(re.findall(r"[A-Za-z][A-Za-z'-]*", text))


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    data_type: str
    comment: str
    words: frozenset[str]
    # a column worked out from others (a voyage's days from departure to arrival): its SQL, `{a}`
    # standing for the table's alias; "" for a column of the table
    sql: str = ""
    parts: tuple[str, ...] = ()     # the refs of the columns it is worked out from
    asked_by: str = ""              # for a worked-out column: the words without which it is not meant
    not_asked_by: str = ""          # ... and the words with which another is meant ("so far": not the whole span)
    # for days counted to or from the date the data is stated as of: "since" (from a start), "to" (to an end)
    counted_from_the_data_date: str = ""

    @property
    def numeric(self) -> bool:
        return self.data_type.upper() in ("NUMBER", "INTEGER", "FLOAT", "REAL", "BINARY_DOUBLE") \
            and not self.name.endswith("_ID") and self.name not in ("IMO_NUMBER",)

    @property
    def is_text(self) -> bool:
        """Held as text (a code keeps its leading zeros: "030617")."""
        return self.data_type.upper().startswith(("VARCHAR", "NVARCHAR", "CHAR", "TEXT"))

    @property
    def is_date(self) -> bool:
        return self.data_type.upper() in ("DATE", "TIMESTAMP") or self.name.endswith(("_DATE", "_AT"))

    @property
    def unit(self) -> str:
        """The unit its comment states, before any explanation ("in US cents, NEVER dollars")."""
        head = self.comment.lower().split(":")[0][:80]
        for word, unit in _UNIT_WORDS.items():
            if re.search(rf"\b{word}\b", head):
                return unit
        return ""

    @property
    def comment_words(self) -> frozenset[str]:
        return frozenset(w for w in words_of(self.comment) if w not in _STOP and w != "-")

    @property
    def null_meaning(self) -> str:
        """What the comment says an empty value means ("NULL means it sails independently"), or ""."""
        m = re.search(r"null means ([^.;]*)", self.comment, re.I)
        return m.group(1) if m else ""

    @property
    def multiplier(self) -> str | None:
        """The column its comment says to multiply by for a total ("Multiply by QUANTITY")."""
        m = re.search(r"multiply by ([A-Z_]+)", self.comment, re.I)
        return m.group(1).upper() if m else None

    @property
    def is_span(self) -> bool:
        """A count of days worked out from dates (a voyage's duration, its days at sea so far)."""
        return bool(self.sql) and self.unit == "days"

    @property
    def is_key(self) -> bool:
        return self.name.endswith("_ID")

    @property
    def ref(self) -> str:
        return f"{self.table}.{self.name}"


# A date column that starts a span, and one that ends it, by the words of their names.
_STARTS = re.compile(r"DEPART|START|BEGIN|FROM|OPEN")
_ENDS = re.compile(r"ARRIV|END|FINISH|UNTIL|CLOS")
# the words that ask how long something takes, in days ("both days counted" is no duration)
_ASKS_DAYS = (r"how (?:many|much) days|how long|duration|transit time|in days|longest|shortest|quickest|"
              r"days?\b[^?.]{0,40}?\b(?:take|took|takes|taking|last|lasted|from (?:departure|sailing|leaving)|"
              r"port to port|planned)")
# what a span of days is called ("how long", "the longest voyage", "transit time")
_SPAN_WORDS = "day days duration long length transit"
# the days up to the data's date, not the whole span: "how many days has she been at sea", "sailed how
# long ago", "at sea so far"; and the days from it still to come: "how many days until she arrives"
_ASKS_SO_FAR = r"so far|how (?:long|many days|many weeks) ago|already|since|(?:has|have|had|'s|'ve)\b[^?.]{0,40}?\bbeen\b"
_ASKS_TO_GO = r"until|till|to go|days? (?:left|remaining)|remain\w*|away|from (?:now|today)"
_SO_FAR_WORDS = "ago since"
_TO_GO_WORDS = "until till remaining"


def _add_worked_out(columns: dict[str, list[Column]], days_between: str, as_of: str = "",
                    stated: datetime.date | None = None) -> None:
    """Each table's columns worked out from its own (see _span and _box_teu), after them; no span of
    days without the engine's expression for it. `as_of`: the engine's literal of `stated`, the date the
    data is stated as of ("" when the comments state none): the days up to it and from it are columns too."""
    for table, cols in columns.items():
        found = [*(_span(table, cols, days_between, as_of, stated) if days_between else []), _box_teu(table, cols)]
        cols.extend(c for c in found if c is not None)


# "A 20-foot box is 1 TEU, a 40-foot box 2 TEU": what a box counts as, said in a column's comment
_BOX_TEU = re.compile(r"\b(\d{2})-foot box (?:is |counts as )?(\d+) TEU\b", re.I)
# the boxes' TEU is asked with words of what is loaded, not of what a ship can take
_ASKS_LOADED = (r"load\w*|manifest\w*|on board|aboard|carried|carrying|booked|boxes|containers|"
                r"on (?:it|her|(?:the |this |that )?(?:voyage|ship|vessel|sailing)s?\b)")


def _box_teu(table: str, cols: list[Column]) -> Column | None:
    """The TEU of each row's box, when a column's comment says what a box of each length counts as
    and its codes start with the length in feet (SIZE_TYPE "40HC": 2 TEU); else None."""
    for c in cols:
        sizes = _BOX_TEU.findall(c.comment)
        if len(sizes) >= 2 and not c.numeric:
            cases = " ".join(f"WHEN SUBSTR({{a}}.{c.name}, 1, 2) = '{feet}' THEN {teu}" for feet, teu in sizes)
            said = ", ".join(f"{feet}-foot {teu}" for feet, teu in sizes)
            return Column(table, "TEU", "NUMBER", f"TEU of the box ({said}), worked out from {c.name}.",
                          frozenset(words_of("teu")), sql=f"CASE {cases} END", parts=(c.ref,), asked_by=_ASKS_LOADED)
    return None


def _span(table: str, cols: list[Column], days_between: str, as_of: str = "",
          stated: datetime.date | None = None) -> list[Column]:
    """The days from a table's start date to its end date (DEPARTURE_DATE to ARRIVAL_DATE), as a
    column worked out in SQL, when the table has exactly one of each; with `as_of` (the data's date as
    a literal of the engine), also the days from the start up to that date and from it to the end."""
    dates = [c for c in cols if c.is_date and not c.name.endswith("_AT")]
    starts = [c for c in dates if _STARTS.search(c.name)]
    ends = [c for c in dates if _ENDS.search(c.name) and c not in starts]
    if len(starts) != 1 or len(ends) != 1:
        return []
    start, end = starts[0], ends[0]
    span = frozenset(w for w in words_of(_SPAN_WORDS) if w not in _STOP)
    found = [Column(table, "DURATION_DAYS", "NUMBER", f"Days from {start.name} to {end.name}, worked out from the two dates.",
                    span, sql=days_between.format(start=f"{{a}}.{start.name}", end=f"{{a}}.{end.name}"),
                    parts=(start.ref, end.ref), asked_by=_ASKS_DAYS, not_asked_by=f"{_ASKS_SO_FAR}|{_ASKS_TO_GO}")]
    if as_of and stated is not None:
        found.append(Column(table, f"DAYS_SINCE_{_stem(start.name)}", "NUMBER",
                            f"Days from {start.name} to the data's date ({stated.isoformat()}), worked out.",
                            span | frozenset(words_of(_SO_FAR_WORDS)),
                            sql=days_between.format(start=f"{{a}}.{start.name}", end=as_of),
                            parts=(start.ref,), asked_by=_ASKS_SO_FAR, not_asked_by=_ASKS_TO_GO,
                            counted_from_the_data_date="since"))
        found.append(Column(table, f"DAYS_TO_{_stem(end.name)}", "NUMBER",
                            f"Days from the data's date ({stated.isoformat()}) to {end.name}, worked out.",
                            span | frozenset(words_of(_TO_GO_WORDS)),
                            sql=days_between.format(start=as_of, end=f"{{a}}.{end.name}"),
                            parts=(end.ref,), asked_by=_ASKS_TO_GO, not_asked_by=_ASKS_SO_FAR,
                            counted_from_the_data_date="to"))
    return found


def _stem(name: str) -> str:
    """A date column's name without its kind ("DEPARTURE" of DEPARTURE_DATE)."""
    return re.sub(r"_(?:DATE|DAY|TIME)$", "", name)


def stated_date(comments: list[str]) -> datetime.date | None:
    """The date the data is stated as of ("Voyage state on 2025-06-02"), from the comments."""
    for comment in comments:
        m = re.search(r"\b(\d{4}-\d{2}-\d{2})\b", comment)
        if m and re.search(r"\b(?:as of|on|stated)\b", comment):
            return datetime.date.fromisoformat(m.group(1))
    return None


def _parts_of_the_name(words: frozenset[str] | set[str], name_words: set[str]) -> set[str]:
    """The comment words that end the column's name as its last part ("locode" of UNLOCODE, from
    "UN/LOCODE"): they name it as its name words do. Not its start: "report" of REPORTED is the same
    word, which names the column only as its other words do."""
    return {w for w in words if len(w) >= 4 and any(n.endswith(w) and len(n) - len(w) >= 2 for n in name_words)}


def _column_of(c: dict[str, Any]) -> Column:
    """A column of the dictionary with the words that name it: its name, the comment's first phrase and
    an acronym it defines ("Verified gross mass (VGM)"); the rest of the comment describes it ("printed
    on bills of lading") and names nothing."""
    comment = c.get("comment") or ""
    first = re.split(r"[.:;,(]", comment, maxsplit=1)[0] + " " + " ".join(re.findall(r"\(([A-Z]{2,6})\)", comment))
    name_words = c["column"].lower().replace("_", " ")
    words = {w for w in words_of(name_words + " " + first) if w not in _STOP and len(w) > 1 and w != "-"}
    words -= {"id", "number", "code", "surrogate", "key"} if c["column"].endswith("_ID") else set()
    return Column(c["table"].upper(), c["column"].upper(), str(c.get("data_type") or ""), comment, frozenset(words))


@dataclass
class Schema:
    """Tables, columns and foreign keys of one owner, with the words that name each."""
    columns: dict[str, list[Column]]
    foreign_keys: list[tuple[str, str, str, str]]        # (table, column, ref_table, ref_column)
    table_comments: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dictionary(cls, dictionary: dict, *, days_between: str = "", date_literal: str = "") -> Schema:
        """`days_between`: the engine's expression for the days from `{start}` to `{end}`; with it,
        a table with a start date and an end date gets the span between them as a column.
        `date_literal`: the engine's literal of a `{date}`; with it, the days from the start to the date
        the comments state the data as of, and from that date to the end, are columns too."""
        columns: dict[str, list[Column]] = {}
        for c in dictionary["columns"]:
            columns.setdefault(c["table"].upper(), []).append(_column_of(c))
        stated = stated_date([c.get("comment") or "" for c in dictionary["columns"]] +
                             [t.get("comment") or "" for t in dictionary.get("tables", [])])
        _add_worked_out(columns, days_between, date_literal.format(date=stated.isoformat()) if stated and date_literal else "",
                        stated)
        fks = [(f["table"].upper(), f["columns"][0].upper(), f["ref_table"].upper(), f["ref_columns"][0].upper())
               for f in dictionary.get("foreign_keys", []) if len(f["columns"]) == 1]
        return cls(columns, fks, {t["table"].upper(): t.get("comment") or "" for t in dictionary.get("tables", [])})

    @functools.cached_property
    def stated(self) -> datetime.date | None:
        """The date the data is stated as of ("Voyage state on 2025-06-02"), from the comments; read once."""
        return stated_date([c.comment for cols in self.columns.values() for c in cols] + list(self.table_comments.values()))

    @functools.cached_property
    def all_text(self) -> str:
        """Every table and column name and comment, and the everyday words the synonyms map onto them."""
        parts = [f"{t} {c.name} {c.comment}" for t, cols in self.columns.items() for c in cols if not c.sql]
        return " ".join([*parts, *self.table_comments.values(), *SYNONYMS]).replace("_", " ")

    @functools.cached_property
    def rare_words(self) -> frozenset[str]:
        """Acronyms that only one column's comment uses (VGM, AIS): they name that column. Other words
        of a comment describe it ("printed on bills of lading") without naming it."""
        counts: dict[str, int] = {}
        acronyms: set[str] = set()
        for cols in self.columns.values():
            for c in cols:
                acronyms |= {a.lower() for a in re.findall(r"\b[A-Z]{3,5}\b", c.comment)}
                for w in c.words:
                    counts[w] = counts.get(w, 0) + 1
        generic = set(SYNONYMS.values()) | set(TABLE_NOUNS) | _STOP | UNIT_NAME_WORDS
        for comment in self.table_comments.values():  # "AIS position reports" describes a table
            generic |= {a.lower() for a in re.findall(r"\b[A-Z]{3,5}\b", comment)}
        return frozenset(w for w, n in counts.items() if n == 1 and w in acronyms and w not in generic)

    @functools.cached_property
    def unmodelled(self) -> dict[str, str]:
        """The words of what the comments say the data does not hold ("Intermediate port calls are not
        modelled": intermediate, call), each with its sentence; a word any other sentence of a comment
        uses is left out (it names something the data does hold)."""
        comments = list(self.table_comments.values()) + [c.comment for cols in self.columns.values() for c in cols
                                                         if not c.sql]
        sentences = [x.strip() for c in comments for x in re.split(r"(?<=[.;])\s+", c) if x.strip()]
        absent = [x for x in sentences if re.search(rf"\bnot (?:{_NOT_HELD})\b", x, re.I)]
        present = {stem_root(w) for x in sentences if x not in absent for w in re.findall(r"[A-Za-z]+", x)}
        out: dict[str, str] = {}
        for x in absent:
            for root in _telling_roots(x):
                if root not in present:
                    out.setdefault(root, x)
        return out

    @functools.cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every word the schema's names and comments use, for correcting a typo ("numbr")."""
        words = set(SYNONYMS) | set(TABLE_NOUNS)
        for table, cols in self.columns.items():
            words |= {w.lower() for w in re.findall(r"[A-Za-z]+", table + " " + self.table_comments.get(table, ""))}
            for c in cols:
                words |= {w.lower() for w in re.findall(r"[A-Za-z]+", c.name.replace("_", " ") + " " + c.comment)}
        return frozenset(w for w in words if len(w) >= 4)

    @functools.cached_property
    def vocabulary_in_order(self) -> tuple[str, ...]:
        """The vocabulary sorted: a typo two words fit equally ("schedule": scheduled, schedules) is read the
        same way on every run (a set's order changes with the interpreter's hash seed)."""
        return tuple(sorted(self.vocabulary))

    def column(self, table: str, name: str) -> Column:
        return next(c for c in self.columns[table] if c.name == name)

    def name_column(self, table: str) -> Column:
        """The column a person names a row by: its *_NAME column, else its natural identifier."""
        cols = self.columns[table]
        for c in cols:
            if c.name.endswith("_NAME"):
                return c
        for preferred in ("VOYAGE_NUMBER", "CONTAINER_NUMBER", "DESCRIPTION", "IMO_NUMBER"):
            for c in cols:
                if c.name == preferred:
                    return self._named_through(c)
        return cols[0]

    def _named_through(self, col: Column) -> Column:
        """A row named by a foreign key (a position by its vessel's IMO number) is named by the row
        it references: the vessel's name."""
        for table, column, ref_table, _ in self.foreign_keys:
            if (table, column) == (col.table, col.name) and ref_table in self.columns:
                return self.name_column(ref_table)
        return col

    def is_parent_path(self, start: str, goal: str) -> bool:
        """Every hop from `start` to `goal` follows a foreign key to the row it references, so a
        row of `start` meets at most one row of `goal` (a vessel has one carrier)."""
        route = self.path(start, goal)
        return route is not None and all(hop in self.foreign_keys or self._one_to_one(hop) for hop in route)

    def _one_to_one(self, hop: tuple[str, str, str, str]) -> bool:
        """A hop to a child whose foreign key is also its key (one position per vessel)."""
        _, _, child, child_col = hop
        return bool(self.columns.get(child)) and self.columns[child][0].name == child_col

    def path(self, start: str, goal: str) -> list[tuple[str, str, str, str]] | None:
        """Foreign-key hops from `start` to `goal` (either direction), shortest first; each hop is
        (from_table, from_column, to_table, to_column)."""
        if start == goal:
            return []
        frontier: list[tuple[str, list[tuple[str, str, str, str]]]] = [(start, [])]
        seen = {start}
        while frontier:
            nxt = []
            for table, hops in frontier:
                for t, c, rt, rc in self.foreign_keys:
                    for a, ac, b, bc in ((t, c, rt, rc), (rt, rc, t, c)):
                        if a == table and b not in seen:
                            route = hops + [(a, ac, b, bc)]
                            if b == goal:
                                return route
                            seen.add(b)
                            nxt.append((b, route))
            frontier = nxt
        return None

    def tables_named(self, words: list[str]) -> list[tuple[int, str]]:
        """(position, table) for each word of the question that names a table's rows."""
        return [(i, TABLE_NOUNS[w]) for i, w in enumerate(words) if w in TABLE_NOUNS and TABLE_NOUNS[w] in self.columns]

    def columns_named(self, words: list[str], tables: list[str], *, loose: bool = False,
                      worked_out: bool = False) -> list[tuple[float, Column]]:
        """Columns of `tables` whose words the question uses, best first: the share of the
        column's name words present counts most, then any comment word. `worked_out`: the columns
        worked out from others too (the planner's, which knows when a question asks for a span)."""
        present = set(words) - {"-"}
        scored = []
        for table in tables:
            for col in self.columns.get(table, []):
                if col.sql and not worked_out:
                    continue
                score = self._named_score(col, present, loose)
                if score is not None:
                    scored.append((score, col))
        order = list(tables)
        ranked = sorted(scored, key=lambda s: (-s[0], order.index(s[1].table)))
        return self._most_specific(ranked, present)

    def _named_score(self, col: Column, present: set[str], loose: bool) -> float | None:
        """How well the words present name one column (None when they do not name it)."""
        if col.is_key and "id" not in present:
            return None  # a surrogate key is never what a person asks for by its words
        if col.sql:  # worked out from other columns: named by what it is called, with no name of its own
            hit = len(col.words & present)
            return 2.0 * hit if hit else None
        name_words = {w for w in words_of(col.name.lower().replace("_", " "))
                      if w not in _STOP and w not in UNIT_NAME_WORDS}
        name_words -= {"id", "number", "code"} if col.name.endswith("_ID") else set()
        # a word of one column's comment and no other's ("vgm") names that column
        hit_name = len(name_words & present) + len((col.words & present) & self.rare_words)
        hit_name += len(_parts_of_the_name(col.words & present - name_words, name_words))
        described = col.comment_words if loose else col.words
        hit_other = len((described - name_words) & present - set(TABLE_NOUNS))
        if not (name_words | described) & present - set(TABLE_NOUNS):
            return None  # "container" alone names the table, not its CONTAINER_NUMBER
        if hit_name or hit_other >= (1 if loose else 2):
            return hit_name * 2 + hit_other - 0.1 * len(name_words - present)
        return None

    def _most_specific(self, ranked: list[tuple[float, Column]], present: set[str]) -> list[tuple[float, Column]]:
        """The most specific match wins: a column whose matched words a better-ranked column also
        matched ("voyage numbers": VOYAGE_NUMBER, not CONTAINER_NUMBER) is not named."""
        kept: list[tuple[float, Column]] = []
        for score, col in ranked:
            mine = self._matched(col, present)
            if not any(mine < self._matched(other, present)
                       or (mine == self._matched(other, present) and other.table != col.table) for _, other in kept):
                kept.append((score, col))
        return kept

    @staticmethod
    def name_words(col: Column) -> set[str]:
        """The words of a column's own name, through the synonym layer, without its unit."""
        return {w for w in words_of(col.name.lower().replace("_", " "))
                if w not in _STOP and w not in UNIT_NAME_WORDS and w != "-"}

    @staticmethod
    def _matched(col: Column, present: set[str]) -> set[str]:
        return ({w for w in words_of(col.name.lower().replace("_", " "))} | col.words) & present - set(TABLE_NOUNS)

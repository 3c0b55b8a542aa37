"""A data question composed into one SELECT from its links: the rows it is about, what it asks of
them, and what narrows them.

    target      the table whose rows the question is about (the first table it names; else
                the table of the value it names)
    action      count | aggregate (AVG / SUM / MIN / MAX of a column) | top (a superlative) |
                group (per / by / each) | list | lookup (columns of the named row)
    filters     every value linked (= a name, code, flag, status ...), comparisons with numbers
                (over / under / before / after / between), months and years on date columns
    show        the columns asked for, on the target or on a table its foreign keys reach
                ("the smallest vessel and who operates it" shows the carrier's name)

Joins follow the declared foreign keys; values are bound, never written into the SQL text.
A question that uses a word the schema knows but the plan does not use (a column it names, a
name nobody has) gets no plan: the caller says what it cannot answer instead of answering
something else.
"""
from __future__ import annotations

import calendar
import datetime
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from workshop_lib.assistant import derived
from workshop_lib.assistant.schema_links import (
    TABLE_NOUNS,
    Column,
    Schema,
    map_words,
    stem,
    stem_root,
    table_of_noun,
    words_of,
)
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS, UNIT_SUFFIXES, Link
from workshop_lib.data import countries
from workshop_lib.engines.portable_sql import COMPOSE_SQL as SQL
from workshop_lib.errors import WorkshopError

MAX_LIST = 30
NOTHING_ASKED = "it names a row but asks nothing the data holds about it"
# Superlatives: the concept they measure (a word the synonym layer maps to a column) and the order.
SUPERLATIVES = {"largest": ("capacity", "DESC"), "biggest": ("capacity", "DESC"), "smallest": ("capacity", "ASC"),
                "heaviest": ("weight", "DESC"), "lightest": ("weight", "ASC"), "longest": ("length", "DESC"),
                "shortest": ("length", "ASC"), "oldest": ("built", "ASC"), "newest": ("built", "DESC"),
                "youngest": ("built", "DESC"), "last": ("departure", "DESC"), "fastest": ("speed", "DESC"), "slowest": ("speed", "ASC"),
                "earliest": ("departure", "ASC"), "latest": ("departure", "DESC"),
                "stalest": ("departure", "ASC"), "freshest": ("departure", "DESC"), "coldest": ("temperature", "ASC"),
                "warmest": ("temperature", "DESC"), "highest": (None, "DESC"), "lowest": (None, "ASC"),
                "maximum": (None, "DESC"), "minimum": (None, "ASC"), "max": (None, "DESC"), "min": (None, "ASC"),
                "top": (None, "DESC"), "most": (None, "DESC"), "fewest": (None, "ASC"), "least": (None, "ASC"),
                # the compass: a port's latitude and longitude
                "northernmost": ("latitude", "DESC"), "southernmost": ("latitude", "ASC"),
                "easternmost": ("longitude", "DESC"), "westernmost": ("longitude", "ASC")}
# ("southern-most", written with a hyphen)
SUPERLATIVES |= {f"{w[:-4]}-most": v for w, v in SUPERLATIVES.items() if w.endswith("ernmost")}
# "min" asks for the smallest, unless a number comes before it ("45 min" is minutes)
MIN_NOT_MINUTES = r"(?<!\d )(?<!\d)min"
_MIN_WORD = re.compile(MIN_NOT_MINUTES)
# What a superlative's concept means in the schema's words ("the heaviest box": its gross weight).
CONCEPT_WORDS = {"weight": ["gross", "weight", "deadweight"], "departure": ["departure", "date"],
                 "arrival": ["arrival", "date"], "built": ["year", "built"]}
# "the number of boxes" counts; "the number of that container", "the number of MSKU9773732" is its identifier
NUMBER_OF_ROWS = r"number of(?!\s+(?:that|this|the|its|my|our|your|his|her)\s+(?!cargo\b)[a-z]+(?<!s)\b|\s+[a-z]{3,}\d)"
COUNT_WORDS = (r"how many(?! (?:tonnes|tons|kg|kilos|kilograms|teu|metres|meters|knots|dollars|days)\b)|count|breakdown|"
               r"distribution|tally|mix|composition|make-?up|"
               r"(?:^|\bthe |\ba |\btotal )" + NUMBER_OF_ROWS)
AGGREGATES = {"average": "AVG", "mean": "AVG", "avg": "AVG", "total": "SUM", "sum": "SUM", "combined": "SUM",
              "altogether": "SUM", r"together(?! with)": "SUM", "worth": "SUM", r"add(?:s|ed|ing)? (?:it |them |those |these )?up": "SUM",
              # "how much cargo weight is in box X": a quantity of a measure over the rows ("how much is it" asks no sum)
              r"how much(?=\s+(?:[a-z-]+\s+)?(?:weight|tonnage|mass)\b)": "SUM"}
# the words that ask for a figure over rows (a count or an aggregate), for the router's handlers
AGGREGATE_WORDS = re.compile(rf"\b(?:{COUNT_WORDS}|{'|'.join(AGGREGATES)})\b", re.I)
# "running at -18", "a set point of -18": a set point; "a capacity of 20000": that value
COMPARATORS = [(r"equal to|equals|exactly|set to|set at|at(?=\s+-\d)|of(?=\s+-?\d[\d,.]*\b(?!\s*%))|=", "="),
               (r"more than|over|above|greater than|exceeding|larger than|bigger than|heavier than|longer than|"
                r"faster than|newer than|higher than|warmer than|hotter than|>", ">"),
               (r"at least|no less than|>=", ">="), (r"at most|no more than|up to|<=", "<="),
               (r"less than|under|below|fewer than|smaller than|lighter than|shorter than|slower than|"
                r"lower than|colder than|cooler than|<", "<"),
               (r"after|since|later than", ">"), (r"before|earlier than|older than|prior to", "<")]
ORIGIN_WORDS = (r"from|departing|leaving|out of|origin|starting|start|depart|departs|leave|leaves|sailing from|"
                r"load(?:s|ed|ing)? (?:at|in)")
DESTINATION_WORDS = (r"to|for|bound for|into|arriving|arrive|arrives|arriving at|destination|going to|headed|heading|"
                     r"(?:discharg|unload)\w* (?:at|in)")
_QUESTION = set("""how many much what which who whose where when is are was were do does did the a an of in on at for your
to from by with and or me show list tell give find please name there any all our we i you can could would
have has had it its their that this these those get see about currently now some number count per each
every again into onto anyway anyhow ok okay alright btw also oh hmm um well so instead too wat wats wich whats whcih wihch
terms vs versus""".split())  # and words that only lead in or frame ("in TEU terms"), and misspelt question words


# How a comparison is said back: (of a quantity, of a year or date)
_OP_WORDS = {"=": ("of", "built in"), ">": ("over", "built after"), "<": ("under", "built before"), ">=": ("at least", "built in or after"),
             "<=": ("at most", "built in or before"), "between": ("between", "built between")}


_NOUN_WORDS = "vessels|ships|boats|carriers|lines|ports|voyages|sailings|containers|boxes|cargo items|items|positions"
# the same nouns, one or several ("more than one voyage", "3 or more voyages")
_NOUNS_ONE_OR_MORE = "|".join(w[:-2] + "(?:es)?" if w.endswith("xes") else w[:-1] + "s?" for w in _NOUN_WORDS.split("|"))


# Plain English that asks, links or is polite, and says nothing about what is asked.
_PLAIN = set("""be been being am having doing done get gets getting got go goes going gone sail sails sailing sailed carry carries
travel travels travelled traveled travelling traveling standard regular normal send sends sent sending carrying carried
ride rides riding steam steams steaming put puts track tracks tracked routing
belong belongs belonging dock docks docking docked
operate operates operated operating run runs running own fly flies flying field fields deploy deploys leave leaves
leaving left arrive arrives arriving arrived depart departs departing departed head heads heading headed bound load
loaded loading declare declared weigh weighs give show tell know need want like look see find mean means hold holds
contain contains stored store recorded record use uses using used called take make come keep kept right now today
currently please thanks thank hey hello quick question just also only both either than then there here
one ones other another more most less least many much few all every each any some such same different difference gap
data database dataset file files system systems marked logged table tables row rows list listed total overall whole entire ever yet still will
shall may might should could would can lot lots really actually exactly roughly about around approximately biggest
between and due making doing receive receives received single declared declare currently latest across part
included inclusive supposed meant everything anything guy guys folks moment
move moves moving moved transport transports transporting transported planned booked add during land lands landing landed
three two four five six seven eight nine ten
named called known their theirs them they he she him her his hers its it's that's what's who's where's
which's how's when's i'm we're you're pls plz thx anything something anyone btw asap atm rn info details
tonnes tons kg kilograms kilos dollars usd metres meters feet knots teu fahrenheit celsius mph miles hour pounds lbs
thing things stuff according behind while whilst anywhere somewhere everywhere among amongst
beat beats exceed exceeds outweigh outweighs surpass surpasses
appear appears appearing exist exists existing feature features featured out nominal rated official""".split())


class NoPlan(WorkshopError):
    """The question cannot be composed into one query that answers all of it (the reason says why)."""


class NotTheDatas(NoPlan):
    """The question asks what another source holds (the catalog's stock to lease): no part of it is the data's."""


class Unexplained(NoPlan):
    """A word of the question that nothing the plan reads explains: a part the data does not hold."""

    def __init__(self, message: str, word: str) -> None:
        super().__init__(message)
        self.word = word


@dataclass
class Filter:
    column: Column
    op: str                 # = > < >= <= between contains in, not (another value or none), not in, is null
    value: Any
    said: str
    value2: Any = None
    role: str | None = None  # for a port reached from a voyage: ORIGIN | DESTINATION | EITHER


@dataclass
class Spec:
    target: str
    action: str
    fn: str | None = None
    measure: Column | None = None
    direction: str = "DESC"
    n: int = 1
    filters: list[Filter] = field(default_factory=list)
    show: list[Column] = field(default_factory=list)
    group: Column | None = None
    convert: str | None = None      # a unit the question asks the answer in
    roles: list[str] = field(default_factory=list)   # port roles shown for a voyage: ORIGIN, DESTINATION
    group_role: str | None = None   # which end of a voyage a port group counts: ORIGIN | DESTINATION
    target_role: str | None = None  # ports listed through their voyages: as ORIGIN or DESTINATION
    superlative: str = ""           # the word that asked for a top row ("oldest"), when it names its measure
    # ("longer", ">", False): "is A longer than B" is a yes or a no; True: "which is longer, A or B"
    comparative: tuple[str, str, bool] | None = None
    having: tuple[str, float] | None = None      # ("<=", 3): groups kept by their count ("flags with 3 or more ships")
    end_said: str = ""              # the end of a voyage target ports are at, said after the filters
    # "more reefers or 20GP?": each alternative as said with the values it stands for, totalled in the answer
    alternatives: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    inside_of: str = ""             # the table whose rows the target's rows are inside ("what's in the boxes")

    def said(self) -> str:
        """The filters as words, for the answer to say back what it counted."""
        return " ".join([f.said for f in self.filters if f.said] + ([self.end_said] if self.end_said else []))


@dataclass
class Plan:
    spec: Spec
    sql: str
    params: dict[str, Any]
    max_rows: int
    columns: list[Column]           # the selected columns, in order (None for a count / aggregate)
    what: str


# ============================================================================ reading the question
@dataclass
class _Words:
    """The question's words with their positions, and which are taken by a value link."""
    text: str
    raw: list[tuple[int, int, str]]
    mapped: list[str]
    taken: set[int]
    used_numbers: set[int] = field(default_factory=set)   # start offsets of numbers a filter or a limit took
    corrected: set[int] = field(default_factory=set)      # words read as the schema word they misspell
    today: datetime.date | None = None                     # the day the data is stated as of: "today" in a range
    ambiguous: set[str] = field(default_factory=set)      # columns the words fit equally well

    @classmethod
    def read(cls, text: str, links: list[Link]) -> _Words:
        text = re.sub(r"(?<=[A-Za-z]{3})/(?=[A-Za-z]{3})", " ", text)  # "size/type": two words; not "km/h"
        # ("km / h", as a reading from another language writes it: the unit, padded to its length)
        text = re.sub(r"\bkm\s+/\s+h\b", lambda m: "km/h".ljust(len(m.group(0))), text, flags=re.I)
        # "furthest north" is "northernmost" (the same length: the links' offsets stay the question's)
        text = re.sub(r"\b(?:furthest|farthest)\s+(north|south|east|west)\b",
                      lambda m: f"{m.group(1).lower()}ernmost".ljust(len(m.group(0))),
                      text, flags=re.I)
        # "per STATUS value", "by flag value": the group's values, not a declared value (padded: the same length)
        text = re.sub(r"(\b(?:per|by|each|every)\s+(?:[A-Za-z_]+\s+){1,2}?)(values?)\b",
                      lambda m: m.group(1) + " " * len(m.group(2)), text, flags=re.I)
        # "lat/long" is latitude and longitude, not a length (padded: the same length)
        text = re.sub(r"\b(lat\s*(?:/|&|,|-|\s|and\s)\s*)long\b", lambda m: m.group(1) + "lng ", text, flags=re.I)
        # "the most recent voyage" is the latest one (padded: the same length)
        text = re.sub(r"\bmost\s+recent\b", lambda m: "latest".ljust(len(m.group(0))), text, flags=re.I)
        # "container no, weight": "no" after a noun and before the next field is its number (padded: the same length)
        text = re.sub(r"\b(container|box|voyage|vessel|ship|imo|booking|job|ref|reference|un|hs)(\s+)no\b(?=\.?\s*(?:[,;/+)&?]|$|and\b))",
                      r"\1\2nr", text, flags=re.I)
        text = _day_words(text)
        raw = [(m.start(), m.end(), m.group(0).lower()) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*|\d[\d,.]*", text)]
        mapped = _cargo_lines(raw, map_words([re.sub(r"'s?$", "", w) for _, _, w in raw]), links)
        taken = {i for i, (s, e, _) in enumerate(raw) if any(lk.start < e and s < lk.end for lk in links)}
        return cls(text, raw, mapped, taken)

    def free(self) -> list[tuple[int, str]]:
        return [(i, w) for i, w in enumerate(self.mapped) if i not in self.taken]

    def take(self, start: int, end: int) -> None:
        """The words between two offsets of the text are explained (by a filter, a week, a refused unit)."""
        self.taken.update(i for i, (st, en, _) in enumerate(self.raw) if st < end and start < en)

    def has(self, pattern: str) -> re.Match | None:
        return re.search(rf"(?<![\w-])(?:{pattern})(?![\w-])", self.text, re.I)


_MONTH_WORDS = "|".join(m.lower() for m in calendar.month_name[1:])


def _day_words(text: str) -> str:
    """"Between the 16th and the end of June": the end of a month is its last day, and "the" before a
    day in a range goes; each rewrite keeps the text's length, so the links' offsets stay the question's."""
    def last_day(m: re.Match[str]) -> str:
        month = next(i for i in range(1, 13) if calendar.month_name[i].lower() == m.group(1).lower())
        return str(calendar.monthrange(2025, month)[1]).ljust(len(m.group(0)) - len(m.group(1))) + m.group(1)
    text = re.sub(rf"\bthe end of ({_MONTH_WORDS})\b", last_day, text, flags=re.I)
    # "the 5th and the 9th of June": "the" goes before both days of a range
    return re.sub(r"\bthe (\d{1,2}(?:st|nd|rd|th)?)(?=\s+(?:and|to)\s)|(?:(?<=\sand\s)|(?<=\sto\s))the (\d{1,2}(?:st|nd|rd|th)?\b)",
                  lambda m: (m.group(1) or m.group(2)).rjust(len(m.group(0))), text, flags=re.I)


def _cargo_lines(raw: list[tuple[int, int, str]], mapped: list[str], links: list[Link]) -> list[str]:
    """"The frozen shrimp lines": a line right after words of the goods is a cargo line, not a shipping line."""
    cargo = {i for i, (s, e, _) in enumerate(raw)
             if any(lk.table == "CARGO_ITEMS" and lk.start < e and s < lk.end for lk in links)}
    return ["cargo" if m == "carrier" and w in ("line", "lines") and i - 1 in cargo else m
            for i, ((_, _, w), m) in enumerate(zip(raw, mapped, strict=True))]


def _target(words: _Words, schema: Schema, links: list[Link]) -> tuple[str, int | None]:
    """The table the question is about and the position of the word that named it."""
    counted = _counted_target(words, schema, links)
    if counted is not None:
        return counted
    nouns = [(i, TABLE_NOUNS[w]) for i, w in words.free() if w in TABLE_NOUNS and TABLE_NOUNS[w] in schema.columns
             and not _a_verb_here(words, i)]
    nouns = _what_is_asked_of(words, links, nouns)
    asked = _asked_noun(words, nouns) or _asked_value(words, links)
    if asked is not None:
        return asked
    if nouns:
        return _noun_before_group(words, nouns)
    return _target_without_a_noun(words, schema, links), None


def _other_end_asked(words: _Words, links: list[Link], target: str, noun_at: int | None) -> tuple[str, int | None]:
    """"Which port does the voyage to Rotterdam leave from?": the port asked is the other end of voyages
    a named port ends; the question is about those voyages, and the port it asks is shown at its end."""
    voyage = next((i for i, w in words.free() if TABLE_NOUNS.get(w) == "VOYAGES"), None)
    if target == "PORTS" and len(_ends_asked(words)) == 2 and any(lk.table == "VOYAGES" for lk in links):
        return "VOYAGES", voyage  # "voyage 685E leaves from which port, and to which port?": its route
    if target != "PORTS" or voyage is None or not any(
            lk.table == "PORTS" and re.search(r"\b(?:to|from|for|into|out of)\s+(?:the\s+)?$", words.text[:lk.start], re.I)
            for lk in links):
        return target, noun_at
    if words.has(COUNT_WORDS):
        raise NoPlan("it counts the ports at the other end of the voyages a named port ends, which I do not count offline")
    return "VOYAGES", voyage


def _target_without_a_noun(words: _Words, schema: Schema, links: list[Link]) -> str:
    """No table noun: the table of the first value named (or the rows below it that hold the date
    asked), else the table of the column the words measure."""
    if links:
        return _child_asked(words, schema, links[0].table) or _event_at(words, schema, links[0].table) or links[0].table
    named = schema.columns_named([w for _, w in words.free()], sorted(schema.columns))
    if named and named[0][0] >= 2:  # "total TEU capacity per alliance": the rows of the column it measures
        return named[0][1].table
    if named and named[0][0] >= 1.5 and _events_counted(words, schema, named[0][1]):
        return named[0][1].table  # "how many arrivals between 10 and 20 June": each row arrives once
    if (dated := _table_of_the_event(words, schema)) is not None:
        return dated
    raise NoPlan("it names no table or value of the data")


def _event_at(words: _Words, schema: Schema, named_table: str) -> str | None:
    """"Anything arriving at Tanjung Pelepas in June?": a row with no date of its own (a port) named beside a
    day and an event's verb is where the event's rows happen (the voyages)."""
    if any(c.is_date for c in schema.columns[named_table]):
        return None
    dated = _table_of_the_event(words, schema)
    return dated if dated is not None and schema.path(dated, named_table) else None


def _table_of_the_event(words: _Words, schema: Schema) -> str | None:
    """"Anything leaving in July?": a date said with the verb of an event is about the rows of the one
    date column the event names (departed: DEPARTURE_DATE); None when no day or month is said."""
    if _month_said(words.text) is None:
        return None
    said_as = {"departed": "leaving|departing|sailing", "arrived": _ARRIVING_DAY}
    for event, verbs in _EVENTS.items():
        if words.has(rf"{verbs}|{said_as.get(event, verbs)}"):
            cols = [c for cols in schema.columns.values() for c in cols if c.is_date and c.name.lower().startswith(event[:5])]
            return cols[0].table if len(cols) == 1 else None
    return None


def _events_counted(words: _Words, schema: Schema, col: Column) -> bool:
    """A date column's event said as a plural noun ("arrivals", "departures"): the rows it happens to."""
    own = schema.name_words(col)
    return col.is_date and any(raw.endswith("s") and words.mapped[i] in own for i, (_, _, raw) in enumerate(words.raw))


def _child_asked(words: _Words, schema: Schema, named_table: str) -> str | None:
    """"When is the Manulani due at Long Beach?": a record is named and the date asked is one its rows
    below hold (a vessel's voyages arrive): those rows, filtered by the record."""
    named = [(score, c) for score, c in schema.columns_named([w for _, w in words.free()], sorted(schema.columns))
             if score >= 1.5]
    if not named and words.has(_WHEN_ASKED) and not any(c.is_date for c in schema.columns[named_table]):
        return _child_dated(words, schema, named_table)  # "when does the MSC Tessa arrive?": its voyages' dates
    if not named or not (named[0][1].is_date or _a_figure_of_rows_below(words, schema, named[0][1], named_table)) \
            or any(c.table == named_table for _, c in named):
        return None
    table = named[0][1].table
    return table if table != named_table and schema.is_parent_path(table, named_table) else None


def _a_figure_of_rows_below(words: _Words, schema: Schema, column: Column, named_table: str) -> bool:
    """"Total gross weight of everything loaded on Kota Singa 261W": a figure over the rows below the record;
    not when the record's own table has a column of that name ("the avg gross weight of a 40ft reefer")."""
    return _aggregate_asked(words) is not None and column.numeric \
        and not any(c.name == column.name for c in schema.columns[named_table])


def _child_dated(words: _Words, schema: Schema, named_table: str) -> str | None:
    """The one table right below the record's whose rows hold the arrival and departure dates a verb
    asks for (a ship's voyages); None when no verb of arriving or leaving is said, or several tables would do."""
    if not words.has(rf"{_ARRIVING_DAY}|sail(?:s|ed)?|leav\w*|left|depart\w*|etd"):
        return None
    below = [t for t in schema.columns if t != named_table and len(schema.path(t, named_table) or []) == 1
             and schema.is_parent_path(t, named_table)
             and any(c.is_date and ("ARRIVAL" in c.name or "DEPARTURE" in c.name) for c in schema.columns[t])]
    return below[0] if len(below) == 1 else None


def _counted_target(words: _Words, schema: Schema, links: list[Link]) -> tuple[str, int | None] | None:
    """"How many reefers are on voyages at sea": the rows of the value counted (None when no value
    follows "how many")."""
    counted = re.search(r"\b(?:how many|number of|count of|count the)\s+(?:the\s+|all\s+(?:the\s+)?)?", words.text, re.I)
    if not counted:
        return None
    right_after = _links_counted(links, counted.end()) or _links_after_size(words, links, counted.end())
    if not right_after and (noun := _noun_counted(words, schema, counted.end())) is not None:
        return noun
    if not right_after and re.match(r"(?:on|in|at|for|aboard)\b", words.text[counted.end():], re.I):
        # "reefers only now: how many on voyage 1012?": what is counted was named before, as a kind of row
        right_after = [lk for lk in links if lk.end <= counted.start() and lk.how == "explained"][-1:]
    if not right_after:
        return None
    # "how many Maersk ships": a name that qualifies the noun after it counts that noun's rows
    after = [(i, TABLE_NOUNS[w]) for i, w in words.free() if words.raw[i][0] - right_after[0].end in (0, 1)
             and TABLE_NOUNS.get(w) in schema.columns]
    return (after[0][1], after[0][0]) if after else (right_after[0].table, None)


def _links_after_size(words: _Words, links: list[Link], at: int) -> list[Link]:
    """"How many 40' high cubes": the links after a size that every value they name starts with."""
    size = re.match(r"\d{2}\s*(?:'|\u2019|ft\b|foot\b|-foot\b)?\s*", words.text[at:])
    if size is None:
        return []
    sized = _links_counted(links, at + size.end())
    return sized if sized and all(str(lk.value).startswith(size.group(0)[:2]) for lk in sized) else []


def _noun_counted(words: _Words, schema: Schema, at: int) -> tuple[str, int] | None:
    """"How many ships operates Hapag-Lloyd?": the table of the noun right after "how many", and where it is."""
    return next(((TABLE_NOUNS[w], i) for i, w in words.free() if words.raw[i][0] == at
                 and TABLE_NOUNS.get(w) in schema.columns and not _a_verb_here(words, i)), None)


def _links_counted(links: list[Link], at: int) -> list[Link]:
    """The links right after "how many" at `at`; past the words of a description that qualify what is
    counted ("how many frozen reefers": the reefers)."""
    start = at
    while (described := next((lk for lk in links if lk.start - at in (0, 1) and lk.how == "word"), None)):
        at = described.end
    return [lk for lk in links if lk.start - at in (0, 1)] or [lk for lk in links if lk.start - start in (0, 1)]


def _summed_below(words: _Words, schema: Schema, spec: Spec, named: list[Column], used: set[str]) -> None:
    """"How many TEU are loaded on voyage 1011?": a figure worked out per row of a table below the
    target (each box's TEU), summed over the rows below the target's rows the words name; not when
    the words ask for the rows themselves ("which boxes ...")."""
    col = next((c for c in named if c.sql and c.unit), None)
    if col is None or col.table == spec.target or not schema.is_parent_path(col.table, spec.target) \
            or words.has(r"which|list|each|per|show"):
        return
    if col.is_span and _aggregate_asked(words) != "SUM":
        # "how many days until the Ever Acme arrives": each voyage's days, not the days of all added up
        spec.target, spec.action, spec.fn, spec.measure, spec.show = col.table, "list", None, None, [col]
        used.add(col.ref)
        return
    spec.target, spec.action, spec.fn, spec.measure, spec.show = col.table, "aggregate", "SUM", col, []
    used.add(col.ref)


def _worth_of_the_goods_below(words: _Words, schema: Schema, spec: Spec, named: list[Column], used: set[str]) -> None:
    """"What's the declared value of the smartphones on voyage 281W?": the worth of goods below the target, a
    figure per package whose comment says what it is multiplied by for a line's total (UNIT_VALUE_CENTS by
    QUANTITY), is their total; not when a unit's figure or the rows themselves are asked ("unit value", "each")."""
    col = next((c for c in named if c.multiplier and c.numeric), None)
    if col is None or spec.action not in ("list", "lookup") or col.table == spec.target \
            or not schema.is_parent_path(col.table, spec.target) \
            or words.has(r"which|list|each|per|show|unit|one|single|every|highest|lowest|most|least|average"):
        return
    spec.target, spec.action, spec.fn, spec.measure, spec.show = col.table, "aggregate", "SUM", col, []
    used.add(col.ref)


# "how many TEU", "how many tonnes": a figure in a unit, not a count of rows
_HOW_MANY_UNITS = r"how many (?:metric )?(tonnes|tons|kg|kilograms|kilos|metres|meters|feet|knots|teu)\b"


def _counter_asked(words: _Words, schema: Schema) -> Column | None:
    """"How many packages of washing machines ...": what is counted is what a column's comment says it is
    the "Number of" (QUANTITY: "Number of packages ..."), not rows; that column, its word taken."""
    m = words.has(r"how many\s+([a-z]+)")
    if m is None or words_of(m.group(1))[:1] and words_of(m.group(1))[0] in TABLE_NOUNS:
        return None
    asked = stem(m.group(1))
    found = [c for cols in schema.columns.values() for c in cols
             if c.numeric and (said := re.match(r"number of ([a-z]+)", c.comment, re.I)) and stem(said.group(1)) == asked]
    if len(found) != 1:
        return None
    words.take(m.start(1), m.end(1))
    return found[0]


def _how_many_units(words: _Words, schema: Schema, spec: Spec) -> None:
    """"How many tons can the Kota Singa carry?": a figure in a unit, not a count of rows. The one column
    of the rows asked about that holds that kind of figure is shown, in the unit asked."""
    m = words.has(_HOW_MANY_UNITS)
    if m is None or spec.action not in ("count", "list", "lookup"):
        return
    unit = m.group(1).lower()
    held = _column_in_unit(schema, spec, _KINDS_OF_UNIT.get(unit, {unit}))
    if held is None:  # several (a box's tare and gross weight): the words that name one decide, as before
        return
    if _one_figure_of_several(words, spec, unit):
        spec.action, spec.fn, spec.measure, spec.show = "aggregate", "SUM", held, []
    else:
        spec.action, spec.show = "list", [held]
    if unit != "teu":
        spec.convert = unit


def _column_in_unit(schema: Schema, spec: Spec, kinds: set[str]) -> Column | None:
    """The one column of the rows in that kind of unit; a column named already only when it is that one."""
    held = [c for c in schema.columns.get(spec.target, []) if (c.unit or "").lower() in kinds]
    shown = [c for c in spec.show if c.numeric]
    if shown:  # a column named already: summed when it is the one in that unit
        held = shown if len(shown) == 1 and (shown[0].unit or "").lower() in kinds and shown[0].table == spec.target else []
    return held[0] if len(held) == 1 else None


def _one_figure_of_several(words: _Words, spec: Spec, unit: str) -> bool:
    """"Add up the boxes at sea: how many TEU?"; "how many kg of shrimp are on 874E": one total of several rows
    (not of a speed or a length; "by how many tonnes does A beat B" is a difference; "each" asks every row's)."""
    additive = unit in ("tonnes", "tons", "kg", "kilograms", "kilos", "teu") and not derived.asks_difference(words.text)
    asked = _aggregate_asked(words) == "SUM" or (additive and bool(spec.filters)
                                                 and not words.has(r"each|per|every|apiece|individually"))
    return asked and not _names_one_row(spec)


def _units_of_the_rows_above(words: _Words, schema: Schema, spec: Spec) -> None:
    """"How many TEU does the manifest show on voyage X?": the figure asked in a unit is held by the rows above
    those listed (each manifest line repeats its box's TEU), so those rows' figure is summed, once each."""
    shown = [c for c in spec.show if c.numeric]
    if not words.has(_HOW_MANY_UNITS) or spec.action != "list" or len(shown) != 1 or shown[0].table == spec.target \
            or not schema.is_parent_path(spec.target, shown[0].table) or _names_one_row(spec):
        return
    spec.target, spec.action, spec.fn, spec.measure, spec.show = shown[0].table, "aggregate", "SUM", shown[0], []


def _more_of_which(words: _Words, schema: Schema, spec: Spec, links: list[Link]) -> None:
    """"More completed voyages or more scheduled ones?", "do COSCO or Evergreen have more voyages?":
    the rows counted per value of the column the two values are of (a kind, a status, or the names of
    the rows above them; not the rows' own names, where each row is one)."""
    either = _the_choice_said(spec, links)
    if spec.action != "list" or len(either) != 1 or not words.has(r"more|fewer|less") or not words.has("or|than"):
        return
    col = either[0].column
    if col.table == spec.target and (col == schema.name_column(col.table) or
                                     col.name in ("VOYAGE_NUMBER", "CONTAINER_NUMBER", "UNLOCODE")):
        return
    if col.table != spec.target and words.has(r"takes?|carr(?:y|ies)|holds?|fits?|loads?|capacit\w*") and \
            not words.has(r"on board|aboard|loaded|booked|carrying|now|currently"):
        # "which ship takes more boxes?" asks what each can take: neither what its voyages carried nor a list
        raise NoPlan("it compares what each can take, and no count of its rows says that")
    spec.action, spec.group = "group", col
    spec.alternatives = _alternatives(words, col, links)


def _the_choice_said(spec: Spec, links: list[Link]) -> list[Filter]:
    """The filters on two values or more; of several, those whose values are said apart ("more reefers at sea or
    scheduled?": "reefers" is one word for two types, not a choice between them)."""
    either = [f for f in spec.filters if f.op == "in" and len(f.value) >= 2]
    if len(either) > 1:
        either = [f for f in either if len({(lk.start, lk.end) for lk in links
                                            if (lk.table, lk.column) == (f.column.table, f.column.name)}) >= 2]
    return either


def _alternatives(words: _Words, col: Column, links: list[Link]) -> list[tuple[str, tuple[Any, ...]]]:
    """The alternatives compared, as said with their values, when a word stands for several ("reefers":
    20RF and 40RF); none otherwise (each value is an alternative already)."""
    said: dict[tuple[int, int], list[Any]] = {}
    for lk in links:
        if (lk.table, lk.column) == (col.table, col.name):
            said.setdefault((lk.start, lk.end), []).append(lk.value)
    if not any(len(v) > 1 for v in said.values()):
        return []
    return [(words.text[a:b], tuple(v)) for (a, b), v in sorted(said.items())]


def _what_is_asked_of(words: _Words, links: list[Link], nouns: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The table nouns that may say what the question is about: not "container" of "container ships" (a noun
    right before another names a kind of the second, unless the second labels a value said right after it:
    "which ship container TCNU4171922 is on"), nor "manifests" of "... of a 40ft reefer on our manifests"
    (where a value's rows are recorded)."""
    nouns = [(i, t) for i, t in nouns if not any(j == i + 1 and j + 1 not in words.taken for j, _ in nouns)]
    return [] if links and nouns and all(_where_it_is_said(words, i) for i, _ in nouns) else nouns


def _where_it_is_said(words: _Words, i: int) -> bool:
    """"... on our manifests", "across all the voyages" at the end: where what is asked is recorded, not what."""
    start, end, _ = words.raw[i]
    return re.search(r"\b(?:on|in|across|throughout)\s+(?:all\s+)?(?:of\s+)?(?:our|the|my|their)\s+$", words.text[:start],
                     re.I) is not None and not words.text[end:].strip(" ?.!")


def _a_verb_here(words: _Words, i: int) -> bool:
    """"What do they ship?", "we want to ship": the word is a verb after a pronoun with its auxiliary,
    or after "to", not the table's noun."""
    before = [w for _, _, w in words.raw[max(0, i - 2):i]]
    return (len(before) == 2 and before[0] in ("do", "does", "did", "will", "can", "could", "would", "should")
            and before[1] in ("they", "we", "you", "i", "he", "she", "it")) or (before[-1:] == ["to"] and i >= 2
                                                                                  and words.raw[i - 2][2] in
                                                                                  ("want", "need", "have", "going"))


def _asked_noun(words: _Words, nouns: list[tuple[int, str]]) -> tuple[str, int] | None:
    """"On voyage 1059, which of the boxes ...": the noun right after which or what is what is asked
    for, wherever the other nouns stand."""
    m = re.search(r"\b(?:which|what)\s+(?:of\s+(?:the|our|my|these|those)\s+)?", words.text, re.I)
    if m is None or re.search(r"\band\s*$", words.text[:m.start()], re.I):
        return None  # "the smallest ship, and which line runs it?": a second part, not the rows asked for
    return next(((t, i) for i, t in nouns if words.raw[i][0] == m.end()), None)


def _asked_value(words: _Words, links: list[Link]) -> tuple[str, int | None] | None:
    """"Which reefers are on voyage 1017?": a value of a kind (not a name qualifying a noun after it, as
    in "which Maersk ships") right after which or what, or the subject of "how heavy is a 40ft reefer":
    its table's rows are asked for."""
    m = re.search(r"\b(?:which|what)\s+|\bhow\s+[a-z]+\s+(?:is|are|was|were)\s+(?:(?:a|an|the|our|my)\s+)?|"
                  r"^\W*(?:list|show(?: me)?|name|give me)\s+(?:all\s+)?(?:(?:the|our|my)\s+)?", words.text, re.I)
    if m is None:
        return None
    # ("list the frozen reefers": a word of the rows' own may come before the value)
    one_word = re.match(r"[a-z]+\s+", words.text[m.end():], re.I)
    starts = {m.end()} | ({m.end() + one_word.end()} if one_word else set())
    # (of two, the later is the phrase's head: "frozen reefers" are reefers)
    link = max((lk for lk in links if lk.start in starts), key=lambda lk: lk.start, default=None)
    if link is None or (link.table, link.column) in NAME_COLUMNS:
        return None
    after = re.match(r"\s+([a-z]+)", words.text[link.end:], re.I)
    return None if after and words_of(after.group(1))[0] in TABLE_NOUNS else (link.table, None)


def _noun_before_group(words: _Words, nouns: list[tuple[int, str]]) -> tuple[str, int | None]:
    """The first table noun said before "per", "each", "every" or "by" (a noun after them names the
    group), else the first noun."""
    group_at = words.has(r"per|each|every|by")
    for i, table in nouns:
        if group_at and words.raw[i][0] > group_at.start():
            continue
        return table, i
    return nouns[0][1], nouns[0][0]


_NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}
_NUMBER_NAME = {n: w for w, n in _NUMBER_WORDS.items()}
# a number in words, in lower case ("more than four containers"; "longer than ONE Harmony" names a carrier's ship)
_IN_WORDS = r"(?-i:" + "|".join(_NUMBER_WORDS) + r")"
# a count written either way ("3 or more ships", "at least three vessels")
_A_COUNT = rf"(?:\d[\d,.]*|\b{_IN_WORDS}\b)"


def _number(text: str) -> float:
    t = text.lower().replace(",", "")
    if t in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[t])
    mult = 1000 if t.endswith("k") else 1
    return float(t.rstrip("k")) * mult


def _comparisons(words: _Words) -> list[tuple[str, float, float | None, int]]:
    """(op, number, second number for between, position) for each comparison with a number."""
    out: list[tuple[str, float, float | None, int]] = []
    # "set to -18", "below zero": a set point under 0; "more than four containers": a number in words
    num = rf"(-?\d+(?:,\d{{3}})*(?:\.\d+)?k?|{_IN_WORDS})(?![\w-])"
    for said in (r"between", r"from"):  # "between 2010 and 2013", "from 2010 to 2013": both ends included
        m = re.search(rf"\b{said}\s+{num}\s+(?:and|to|till|until|through)\s+{num}", words.text, re.I)
        if m and m.start(1) not in words.used_numbers:
            out.append(("between", _number(m.group(1)), _number(m.group(2)), m.start()))
            words.used_numbers |= {m.start(1), m.start(2)}
    for m in re.finditer(rf"(?<![\w.-]){num}\s+or\s+(more|greater|above|over|fewer|less|under|below)\b", words.text, re.I):
        if m.start(1) not in words.used_numbers:  # "3 or more": the number first, the comparison after
            out.append((">=" if m.group(2).lower() in ("more", "greater", "above", "over") else "<=",
                        _number(m.group(1)), None, m.start()))
            words.used_numbers.add(m.start(1))
    for pattern, op in COMPARATORS:
        for m in re.finditer(rf"(?<![\w-])(?:{pattern})\s+(?:the\s+year\s+|a\s+|an\s+)?{num}", words.text, re.I):
            if not any(abs(m.start() - o[3]) < 3 for o in out) and m.start(1) not in words.used_numbers:
                out.append((op, _number(m.group(1)), None, m.start()))
                words.used_numbers |= {m.start(1), m.start(1) + m.group(1).startswith("-")}  # the digits' place
    # "reefer temp -18": a value below zero is one; "running at +13.5": a sign says a set point too
    for m in re.finditer(r"(?<=\s)([-+])(\d+(?:\.\d+)?)\b", words.text):
        if m.start(2) not in words.used_numbers:
            out.append(("=", float(m.group(1) + m.group(2)), None, m.start()))
            words.used_numbers |= {m.start(), m.start(2)}
    return out


_MONTH_NAMES = "|".join(calendar.month_name[1:]) + "|" + "|".join(calendar.month_abbr[1:])
# one whole date: "30 May 2025", "May 30th, 2025", "30 May", "2025-05-30"
_A_DATE = (rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES})\.?(?:,?\s+\d{{4}})?|"
           rf"(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?)")
# ("May 26 to June 1", "26 May - 1 June": with no "from", only a word of a span joins them, not "and")
# ("from 26 May up to today", "between 26 May and now": the day the data is stated as of ends it)
# ("yesterday" and "tomorrow" are written as dates before the planner reads the question: periods_named)
_TODAY = r"today|now|date|the present"
_TWO_DATES = re.compile(rf"\b(?:between|from|since)\s+(?:the\s+)?({_A_DATE})\s+(?:and|to|until|till|through|up\s+(?:to|until)|-)\s+"
                        rf"(?:the\s+)?({_A_DATE}|{_TODAY})\b|"
                        rf"\b({_A_DATE})\s*(?:\s(?:to|until|till|through)\s|[-\u2013])\s*(?:the\s+)?({_A_DATE})", re.I)


def _month_number(name: str) -> int:
    """1 to 12 for a month's name or its abbreviation ("June", "jun")."""
    return next(i for i in range(1, 13) if calendar.month_name[i].lower().startswith(name.lower()[:3]))


def _date_of(said: str, year: int) -> datetime.date:
    """The date a whole date names ("30 May 2025", "May 30", "2025-05-30"), in `year` when it says none."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", said):
        return datetime.date.fromisoformat(said)
    day = int(re.search(r"\d{1,2}(?!\d)", said).group(0))  # type: ignore[union-attr]
    month = _month_number(re.search(_MONTH_NAMES, said, re.I).group(0))  # type: ignore[union-attr]
    written = re.search(r"\d{4}", said)
    year = int(written.group(0)) if written else year
    return datetime.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _two_dates(words: _Words) -> tuple[datetime.date, datetime.date, str, int] | None:
    """"Between 30 May and 2 June", "from 2025-05-30 to 2025-06-02": a range whose ends are whole dates,
    in one month or two (a year said at one end is the other's too); its numbers and words taken."""
    m = _TWO_DATES.search(words.text)
    if m is None:
        return None
    year = int(y.group(0)) if (y := re.search(r"\d{4}", m.group(0))) else 2025  # the dataset's year
    first, second = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    lo = _date_of(first, year)
    hi = words.today if re.fullmatch(_TODAY, second, re.I) else _date_of(second, year)
    if hi is None or hi < lo:
        return None
    for n in re.finditer(r"\d+", m.group(0)):
        words.used_numbers.add(m.start() + n.start())
    words.take(m.start(), m.end())
    return lo, hi, f"between {lo.isoformat()} and {hi.isoformat()}", m.start()


def _months(words: _Words) -> tuple[datetime.date, datetime.date, str, int] | None:
    """A month (with its year, and a day or a range of days) the question names, as a date range."""
    if (both := _two_dates(words)) is not None:
        return both
    m = _month_said(words.text)
    if m is None:
        return None
    month = _month_number(m.group(3))
    year = int(m.group(5) or 2025)   # the dataset's year (VOYAGES.STATUS is stated as of 2025-06-02)
    for g in (1, 2, 4, 5):
        if m.group(g):
            words.used_numbers.add(m.start(g))
    lo, hi, said, at = _days_of_month(m, year, month)
    if (week := _week_of_month(words, m.start(3), lo, hi)) is not None:
        lo, hi, said = week
    lo, hi, said = _range_end(words, m, month, (lo, hi, said))
    return lo, hi, said, at


def _range_end(words: _Words, m: re.Match[str], month: int,
               found: tuple[datetime.date, datetime.date, str]) -> tuple[datetime.date, datetime.date, str]:
    """"between June 1 and June 7", "1 June to 7 June", "between May 20th and 25th": the second end of
    a range that starts on one day, else the range found as it is."""
    lo, hi, said = found
    year = lo.year
    end = re.match(rf"\s*(?:and|to|-|–|until|till|through)\s+(?:the\s+)?(?:({m.group(3)})\.?\s+)?(\d{{1,2}})"
                   rf"(?:st|nd|rd|th)?(?:\s+({m.group(3)})\b)?(?!\d)(?:,?\s+(\d{{4}})\b)?", words.text[m.end():], re.I)
    # "between May 20th and 25th": after "between" or "from", the second end needs no month
    spans = re.search(r"\b(?:between|from)\s+(?:the\s+)?$", words.text[:m.start()], re.I) is not None
    if lo == hi and end is not None and (end.group(1) or end.group(3) or spans) and int(end.group(2)) > lo.day:
        if end.group(4) and not m.group(5):  # "June 1 and June 7 2025": the year said once, at the end
            year = int(end.group(4))
            lo = datetime.date(year, month, lo.day)
            words.used_numbers.add(m.end() + end.start(4))
        hi = datetime.date(year, month, min(int(end.group(2)), calendar.monthrange(year, month)[1]))
        words.used_numbers.add(m.end() + end.start(2))
        said = f"between {lo.isoformat()} and {hi.isoformat()}"
    return lo, hi, said


_WEEKS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}


def _week_of_month(words: _Words, month_at: int, lo: datetime.date,
                   hi: datetime.date) -> tuple[datetime.date, datetime.date, str] | None:
    """"The first week of June": its days 1 to 7 (the last week: the month's last seven days; "mid-May"
    the 11th to the 20th; the second half or fortnight: the 16th to the end), and the days said again
    beside it ("1st to 7th") taken; None when no week
    or part is said of a whole month."""
    m = re.search(r"\b(?:(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(week|half|fortnight)|(early|mid|late))"
                  r"\s*-?\s*(?:of\s+|in\s+)?$", words.text[:month_at], re.I)
    if m is None or lo.day != 1 or hi.day < 28:
        return None
    if m.group(3):  # "mid-May": the middle ten days; "early" the first ten, "late" the rest
        start, end = {"early": (1, 10), "mid": (11, 20), "late": (21, hi.day)}[m.group(3).lower()]
    elif m.group(2).lower() != "week":  # "the second half of June": the 16th to the month's end
        later = m.group(1).lower() in ("second", "2nd", "last")
        start, end = (16, hi.day) if later else (1, 15)
        if m.group(1).lower() in ("third", "3rd", "fourth", "4th"):
            return None  # a month has two halves
    else:
        start = hi.day - 6 if m.group(1).lower() == "last" else 1 + 7 * _WEEKS[m.group(1).lower()]
        end = start + 6
    lo, hi = lo.replace(day=start), lo.replace(day=end)
    words.take(m.start(), month_at)
    for n in re.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)?\b-?", words.text):
        if lo.day <= int(n.group(1)) <= hi.day and n.start() != month_at:
            words.used_numbers.add(n.start())
            words.take(n.start(), n.end())
    return lo, hi, f"between {lo.isoformat()} and {hi.isoformat()}"


def _month_said(text: str) -> re.Match | None:
    """The month named, with its days and year as groups 1, 2, 4 and 5 ("may" in lower case is a
    month only after a preposition or with a year; "April of 2025" is April 2025)."""
    day = r"(\d{1,2})(?:st|nd|rd|th)?"
    m = re.search(rf"(?:\b(?:between\s+)?{day}(?:\s+(?:and|to)\s+|\s*[-–]\s*))?(?:\b{day}\s+(?:of\s+)?)?\b({_MONTH_NAMES})\.?"
                  rf"(?:\s+{day}\b(?!\d))?(?:,?\s+(?:of\s+)?(\d{{4}}))?\b", text, re.I)
    if not m or (m.group(3).lower() == "may" and not m.group(3)[0].isupper() and not m.group(5)
                 and not re.search(r"\b(?:in|of|during|since|before|after|until)\s+$", text[:m.start(3)], re.I)):
        return None
    return m


def _days_of_month(m: re.Match, year: int, month: int) -> tuple[datetime.date, datetime.date, str, int]:
    """The days a month match names: a range, one day, or the whole month."""
    last = calendar.monthrange(year, month)[1]
    first_day, one_day = (int(m.group(1)), None) if m.group(1) else (None, m.group(2) or m.group(4))
    if first_day is not None:
        end = int(m.group(2) or m.group(4) or last)
        lo, hi = datetime.date(year, month, min(first_day, last)), datetime.date(year, month, min(end, last))
        return lo, hi, f"between {lo.isoformat()} and {hi.isoformat()}", m.start()
    if one_day:
        d = datetime.date(year, month, min(int(one_day), last))
        return d, d, f"on {d.isoformat()}", m.start()
    return (datetime.date(year, month, 1), datetime.date(year, month, last),
            f"in {calendar.month_name[month]} {year}", m.start())


# ============================================================================ composing the spec
# asking what to choose or do ("which box should I book", "what would you recommend"): rows record
# what is, and say nothing of what someone ought to pick
_ADVICE = re.compile(r"\bshould (?:i|we)\b|\b(?:recommend\w*|suggest\w*|advi[sc]e\w*)\b|"
                     # "which container for a load of bananas": equipment for goods not yet booked
                     r"\b(?:which|what)\s+(?:\w+\s+)?(?:box|container|unit|equipment)\s+for\s+(?:a|an)\s+"
                     r"(?:[\w-]+\s+){0,2}?(?:load|shipment|consignment|lot|batch)\b", re.I)


# "any status", "whatever the status", "regardless of flag": a column whose value does not matter
_ANY_VALUE = re.compile(r"\b(?:any|whatever(?:\s+(?:the|its|their))?|regardless\s+of(?:\s+(?:the|its|their))?|"
                        r"irrespective\s+of(?:\s+(?:the|its|their))?|no\s+matter\s+(?:the|what))\s+([a-z]+)\b", re.I)


def _any_value(words: _Words, schema: Schema) -> None:
    """"How many voyages go to Rotterdam, any status?": a column said not to matter filters nothing and
    shows nothing; its words are taken."""
    named = {w for cols in schema.columns.values() for c in cols for w in schema.name_words(c)} - set(TABLE_NOUNS)
    for m in _ANY_VALUE.finditer(words.text):
        if set(words_of(m.group(1))) & named:
            words.take(m.start(), m.end())


# "to one decimal", "rounded to 2 decimal places", "rounded": how a figure is written
_PRECISION = re.compile(r"\b(?:(?:rounded|round(?:ed)? it)\s+)?(?:to\s+)?(?:(\d)|one|two|three|a)\s+decimals?"
                        r"(?:\s+places?)?\b|\brounded\b", re.I)


# boxes to lease, not boxes the data records ("how many 40' high cubes can I get at my port?")
# ("can I get a breakdown of the boxes by type?" asks for figures, not for a box)
_FIGURES_ASKED = r"(?!\s+(?:a|an|the|me)\s+(?:breakdown|list|count|number|summary|total|overview|split|tally|rundown|figure)s?\b)"
_FOR_LEASE = (r"availab\w*|in stock|ready to go|ready for pick-?up|leas(?:e|es|ed|ing)|rent(?:al|ing)?|hire|"
              rf"can (?:i|we|you) (?:get|have|grab|pick up|book){_FIGURES_ASKED}|(?:could|may) (?:i|we) (?:get|have){_FIGURES_ASKED}")


# a port named by the end of a voyage it is at ("departure port", "port of arrival"): the word says the end
_END_OF_A_PORT = re.compile(r"\b(departure|arrival)\s+ports?\b|\bports?\s+of\s+(departure|arrival)\b", re.I)


_WEEKDAY_OF_A_DATE = re.compile(rf"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+"
                                rf"(?=(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES})\b|"
                                rf"(?:{_MONTH_NAMES})\.?\s+\d)", re.I)


def _words_beside_the_query(words: _Words) -> None:
    """The words that say how to write the figure, that the whole data is meant, which end of a voyage a port
    is at, or the weekday of a date: taken before the rows are chosen."""
    for m in _PRECISION.finditer(words.text):  # how to write the figure, not what to query
        words.take(m.start(), m.end())
        words.used_numbers.add(m.start(1) if m.group(1) else m.start())
    for m in _WHOLE_DATA.finditer(words.text):  # (before the rows are chosen: "voyages" there is not what is asked)
        words.take(m.start(), m.end())
    for m in _END_OF_A_PORT.finditer(words.text):  # "the departure port": which end, not the day of departure
        words.take(*m.span(m.lastindex or 0))
    for m in _WEEKDAY_OF_A_DATE.finditer(words.text):  # "by Wednesday 4 June": the date says the day
        words.take(m.start(), m.end())
    for m in _NOT_COUNTED.finditer(words.text):  # ", not counting the tare": what the figure leaves out, said after it
        words.take(m.start(), m.end())
    for m in _ANY_ROW.finditer(words.text):  # "carriers with at least one Panama-flagged ship": any row, no count
        words.take(m.start(), m.end())
        words.used_numbers.add(m.start(1) if m.group(1) else m.start(2))


def compose(question: str, schema: Schema, links: list[Link]) -> Spec:
    if _ADVICE.search(question):
        raise NoPlan("it asks what to choose or do, which the data's rows do not say")
    links = _of_the_size_said(question, links)
    words = _Words.read(question, links)
    words.today = reference_date(schema)
    _words_beside_the_query(words)
    _any_value(words, schema)
    _correct_typos(words, schema)
    _not_modelled(words, schema)
    if words.has(_VERB_MEAN + r"|stand for|stands for|means? what|meaning of") or _asks_which_meaning(words, schema, links):
        raise NoPlan(ASKS_MEANING)
    target, noun_at = _other_end_asked(words, links, *_target(words, schema, links))
    if target == "CONTAINERS" and words.has(_FOR_LEASE):
        raise NotTheDatas("it asks which boxes one can lease, which the catalog's stock says, not the boxes the data records")
    spec = Spec(target, "list")
    counter = _counter_asked(words, schema)
    if counter is not None:
        spec.target = counter.table
    _where_a_row_is(words, schema, spec)
    _most_of(words, schema, spec)
    used_columns: set[str] = set()
    if spec.group is not None:
        used_columns.add(spec.group.ref)
    named = _named_of_the_target(words, schema, spec)
    _filters_and_action(words, schema, spec, links, named, used_columns)
    _summed_below(words, schema, spec, named, used_columns)
    _worth_of_the_goods_below(words, schema, spec, named, used_columns)
    if counter is not None and spec.action == "count":
        spec.action, spec.fn, spec.measure = "aggregate", "SUM", counter
    _how_many_units(words, schema, spec)
    _more_of_which(words, schema, spec, links)
    _show_named(schema, spec, named, used_columns)
    _units_of_the_rows_above(words, schema, spec)
    _down_to_the_row_named(words, schema, spec, named, used_columns)
    _has_it_happened(words, schema, spec)
    _through_the_row_between(schema, spec)
    _possessor_shown(words, schema, spec)
    _show_dates_filtered(schema, spec)
    _ports_of_voyages(words, schema, spec)
    _port_group_role(words, schema, spec)
    _two_part(words, schema, spec, noun_at)
    _rows_without_a_name(schema, spec)
    _comparative(words, spec)
    _not_a_total_of_which(words, spec)
    _route(words, schema, spec)
    _when(words, schema, spec)
    _unit(words, spec)
    _shown_in_unit(schema, spec)
    _rows_named_by_a_code(schema, spec)
    _all_numbers_used(words, links)
    _all_codes_known(words, links)
    _one_end_each(spec)
    _rows_below_listed(schema, spec, named, used_columns)
    _all_named_used(spec, named, used_columns)
    _no_list_for_yes_or_no(words, spec)
    _left_out_not_in_it(words, spec)
    if spec.having is not None and spec.action not in ("group", "group_top"):
        raise NoPlan("it counts rows against a number, and the question asks no count per group")
    _asks_what_the_rows_hold(words, schema, spec, noun_at)
    _points_back(words, spec)
    _every_word_explained(words, schema, spec)
    _where_is_a_place(words, spec)
    _who_is_a_party(words, schema, spec)
    _capacity_is_not_load(words, spec)
    _show_compared(spec)
    _the_form_asked(words, spec)
    _with_what_it_multiplies(schema, spec)
    _not_the_row_itself_counted(schema, spec)
    _no_total_of_a_rate(words, spec)
    # (last: what is shown beside the rows decides nothing above)
    _rows_met_on_their_own_code(schema, spec)
    _lines_with_their_count(words, schema, spec)
    return spec


_NOT_ADDED = ("knots", "°c", "degrees")  # a speed, a temperature, an angle: a total of them is no figure


def _no_total_of_a_rate(words: _Words, spec: Spec) -> None:
    """"How many knots are the Maersk ships doing?": each ship's speed, not their sum; a total asked in so many
    words gets no plan."""
    col = spec.measure
    if spec.action != "aggregate" or spec.fn != "SUM" or col is None or spec.group is not None or \
            not ((col.unit or "").lower() in _NOT_ADDED or "YEAR" in col.name):
        return
    if derived.asks_total(words.text) or _aggregate_asked(words) == "SUM":
        raise NoPlan(f"it asks a total of {_label(col)}, which adds up to no figure")
    spec.action, spec.fn, spec.measure, spec.show = "list", None, None, [col]


def _not_the_row_itself_counted(schema: Schema, spec: Spec) -> None:
    """A count of the rows that are the one row the question names ("how many mph is the Hanbada doing?"
    read as the vessels named Hanbada) answers 1 and restates the name: whatever it asks is not in the plan."""
    if spec.action != "count" or not spec.filters:
        return
    own = {schema.name_column(spec.target).ref, schema.columns[spec.target][0].ref}
    if all(f.op == "=" and f.column.ref in own for f in spec.filters):
        raise NoPlan(NOTHING_ASKED)


def _one_end_each(spec: Spec) -> None:
    """One value filtered at both ends of a voyage ("for Busan ... Busan as destination") is a value
    read twice, not a voyage from a port to itself."""
    ends = [(f.column.ref, str(f.value)) for f in spec.filters if f.role in ("ORIGIN", "DESTINATION")]
    if len(ends) != len(set(ends)) or (len(ends) == 2 and ends[0][1] == ends[1][1]):
        raise NoPlan("it names the same port for both ends of a voyage")


def _count_beside_an_aggregate(words: _Words, spec: Spec) -> None:
    """"Number of ships and total TEU": the sum answers half of it."""
    counted = words.has(r"\b(?:how many|number of)\s+(?:the\s+)?([a-z]+)")
    if spec.action == "aggregate" and counted and words_of(counted.group(1))[0] in TABLE_NOUNS:
        raise NoPlan(f"it asks how many {counted.group(1)} as well, which one {spec.fn or 'aggregate'} does not show")


def _which_row_shown(words: _Words, spec: Spec) -> None:
    """"The ship of X, which carrier?": a row of the table "which <noun>" asks for is shown, or the
    rows listed answer another question."""
    if spec.action not in ("list", "lookup"):
        return
    shown = {spec.target} | {c.table for c in spec.show} | ({spec.measure.table} if spec.measure else set()) \
        | ({"PORTS"} if spec.roles else set())  # (a voyage's ports at the ends asked)
    for m in re.finditer(r"\b(?:which|what)\s+([a-z]+)\b", words.text, re.I):
        table = table_of_noun(m.group(1))
        if table is not None and table not in shown and not any(f.column.table == table for f in spec.filters):
            raise NoPlan(f"it asks which {m.group(1)}, and the {noun(spec.target)} it would list show none")


def _worked_out(words: _Words, spec: Spec) -> None:
    """"By how many TEU", "what do they come to in total": a figure worked out from the rows, which
    rows listed one by one (or one count of both) do not give."""
    two = any(f.op == "in" and len(f.value) == 2 for f in spec.filters)
    if spec.comparative is None and derived.asks_difference(words.text) and \
            (spec.action in ("list", "lookup") or two):
        raise NoPlan("it asks for a difference, and the query would work none out")
    if spec.action == "list" and derived.asks_total(words.text):
        raise NoPlan("it asks for a total, and the rows it would list add nothing up")


def _the_form_asked(words: _Words, spec: Spec) -> None:
    """What the answer must be, whatever the plan found: "how many TEU" is a figure, "which of the two
    is bigger" a comparison; rows listed without it answer something else."""
    _count_beside_an_aggregate(words, spec)
    _worked_out(words, spec)
    _which_row_shown(words, spec)
    shows_a_figure = spec.measure is not None or any(c.numeric for c in spec.show)
    if spec.action not in ("list", "lookup") or shows_a_figure:
        return
    if (unit := words.has(_HOW_MANY_UNITS)):
        raise NoPlan(f"it asks how many {unit.group(1)}, and the rows it would list do not show that figure")
    two = any(f.op == "in" and len(f.value) == 2 for f in spec.filters)
    compared = rf"{_MORE}|{_LESS}|more|less|fewer|most|least|\w+er\s+than"
    if two and spec.comparative is None and (words.has(r"\bthan\b") or (words.has(r"which|who") and words.has(compared))):
        raise NoPlan("it asks which of the two is more, and the rows it would list compare nothing")


def _columns_the_words_name(words: _Words, schema: Schema, spec: Spec) -> list[Column]:
    """The columns near the target the free words name, best first; two numeric columns they fit
    equally well are marked ambiguous."""
    near = _near(schema, spec.target, 3)
    free_words = _column_words(words)
    scored = [(score, c) for score, c in schema.columns_named(free_words, near, worked_out=True) if score >= 1.5]
    numeric = [(score, c) for score, c in scored if c.numeric]
    if len(numeric) > 1 and numeric[0][0] == numeric[1][0] and numeric[0][1].table == numeric[1][1].table \
            and numeric[0][1].unit == numeric[1][1].unit:
        tied = (numeric[0][1], numeric[1][1])
        if (meant := _meant_by_the_concept(schema, free_words, tied)) is not None:
            # "boxes heavier than 25 t": a box's weight is its gross weight, as "the heaviest box" is
            scored = [(score, c) for score, c in scored if c == meant] + [(s, c) for s, c in scored if c != meant]
        else:  # the words fit both equally, and no concept says which
            words.ambiguous = {tied[0].ref, tied[1].ref}
    return _span_asked(words, [c for _, c in scored])


def _meant_by_the_concept(schema: Schema, free_words: list[str], tied: tuple[Column, Column]) -> Column | None:
    """Of two columns the words fit equally, the one a concept's words name better (weight: gross)."""
    for concept in dict.fromkeys(w for w in free_words if w in CONCEPT_WORDS):
        ranked = [(score, c) for score, c in schema.columns_named(CONCEPT_WORDS[concept], [tied[0].table]) if c in tied]
        if len(ranked) == 2 and ranked[0][0] > ranked[1][0] or len(ranked) == 1:
            return ranked[0][1]
    return None


def _span_asked(words: _Words, named: list[Column]) -> list[Column]:
    """A column worked out from others only when the words ask for it (a span of days when they ask
    how long: "both days counted" is no duration); asked first ("how many days from departure to
    arrival"), the columns it is worked out from are its, not asked apart."""
    named = [c for c in named if (not c.asked_by or words.has(c.asked_by)) and not (c.not_asked_by and words.has(c.not_asked_by))]
    parts = {p for c in named[:1] for p in c.parts}
    return [c for c in named if c.ref not in parts]


def _filters_and_action(words: _Words, schema: Schema, spec: Spec, links: list[Link], named: list[Column],
                        used_columns: set[str]) -> None:
    """The filters the words and the values say, then what is done with the rows."""
    spec.filters += _value_filters(words, schema, links, spec.target)
    # "IMO 9771987" is both a value of the data and a key the words give: one filter
    spec.filters += [f for f in _key_filters(words, schema)
                     if not any((g.column, g.op, str(g.value)) == (f.column, f.op, str(f.value)) for g in spec.filters)]
    _date_filter(words, schema, spec, named)
    _comparison_filters(words, schema, spec, named, used_columns)
    _year_filter(words, schema, spec, used_columns)
    _side_of_a_line(words, schema, spec)
    _current_voyage(words, schema, spec)
    _state_by_event(words, schema, spec)
    _contents(words, schema, spec, named)
    _qualifiers(words, spec, named, used_columns, schema)
    _negations(words, schema, spec, links, used_columns)
    _action(words, schema, spec, named, used_columns)
    _groups_of_the_count(words, schema, spec)
    _a_breakdown_by_something(words, spec)
    _one_per_name(spec, words, links)
    _filled_columns_shown(spec)
    if spec.group is not None and spec.action == "group":
        # "how many per alliance, and how many independent?": only the empty rows would make one group;
        # every group is shown, the empty one said as its comment says
        spec.filters = [f for f in spec.filters if not (f.op == "is null" and f.column.ref == spec.group.ref)]


# "south of the equator", "the western hemisphere": which side of the line where a coordinate is 0
_SIDE_OF_A_LINE = re.compile(r"(?:\b(?:lie|lies|lying|located|situated|sits?|sitting)\s+)?(?:\bin\s+the\s+)?"
                             r"\b(north|south|east|west)(?:ern)?\s+(?:of\s+(?:the\s+)?(?:equator|prime\s+meridian|greenwich)|"
                             r"hemisphere)\b", re.I)


def _side_of_a_line(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Ships south of the equator": the coordinate whose comment says which way is positive ("positive north")
    compared with 0, on the target's rows or the nearest ones that have it."""
    m = words.has(_SIDE_OF_A_LINE.pattern)
    if m is None:
        return
    side = m.group(1).lower()
    positive = {"north": "north", "south": "north", "east": "east", "west": "east"}[side]
    for table in [spec.target, *_near(schema, spec.target, 1)]:
        cols = [c for c in schema.columns.get(table, []) if f"positive {positive}" in c.comment.lower()]
        if cols:
            op = ">" if side == positive else "<"
            spec.filters.append(Filter(cols[0], op, 0, f"{side} of {'the equator' if positive == 'north' else 'Greenwich'}"))
            words.take(m.start(), m.end())
            return
    raise NoPlan(f"it asks what lies {side} of a line, and nothing it asks about has a position")


def _filled_columns_shown(spec: Spec) -> None:
    """"The lines with dangerous goods": a list kept to rows whose own column is filled shows that column
    too (which UN number each has)."""
    if spec.action == "list":
        spec.show += [f.column for f in spec.filters
                      if f.op == "is not null" and f.column.table == spec.target and f.column not in spec.show]


def _show_named(schema: Schema, spec: Spec, named: list[Column], used_columns: set[str]) -> None:
    """Shows each named column of the target (or of a table above it) that no filter, group or
    measure took."""
    below = {t for f in spec.filters if f.op == "none" for t in _tables_below(f)}
    for col in named:
        if spec.action in ("aggregate", "count") and col == schema.name_column(col.table):
            continue  # "the mean speed of all the ships with a live position": one figure, no names beside it
        # (a filter that excludes a value or holds several does not say which each row has: "not completed")
        taken = col.ref in used_columns or col.ref in {f.column.ref for f in spec.filters if f.op in ("=", "is null")} or \
            col in (spec.measure, spec.group) or col in spec.show
        if col.table not in below and not taken and _one_beside_each_row(schema, spec, col.table):
            spec.show.append(col)  # ("ships bound for Rotterdam, and their arrival dates": the voyage found's)


def _one_beside_each_row(schema: Schema, spec: Spec, table: str) -> bool:
    """The table's row beside each row listed is one: the target's own, the one above it, or the trip found."""
    return table == spec.target or schema.is_parent_path(spec.target, table) or _the_trip_found(schema, spec, table)


def _the_trip_found(schema: Schema, spec: Spec, table: str) -> bool:
    """The rows are found through a filter on their trips (a vessel through its voyages, one foreign key tying
    them), so each row listed is shown with the trip found, whose columns one query shows beside it."""
    return table in _trips_filtered(schema, spec) and \
        [rt for t, _, rt, _ in schema.foreign_keys if t == table].count(spec.target) == 1


def _down_to_the_row_named(words: _Words, schema: Schema, spec: Spec, named: list[Column], used_columns: set[str]) -> None:
    """"Tabor: who operates it and what flag does it fly?": the words name one row of a table below the
    target and ask its own columns too; that row is answered, with the target's name beside them (each
    row has one row above it, so one query shows both)."""
    if spec.action not in ("list", "lookup"):
        return
    used = {c.ref for c in spec.show} | {f.column.ref for f in spec.filters} | used_columns
    missing = [c for c in named if c.ref not in used and c != spec.measure and c != spec.group]
    tables = {c.table for c in missing}
    if len(tables) != 1 or not (_one_row_below(schema, spec, next(iter(tables)))
                                or _rows_below_the_one_named(words, schema, spec, next(iter(tables)))):
        return
    table = next(iter(tables))
    above = schema.name_column(spec.target)
    spec.target = table
    spec.show = [above] + [c for c in spec.show if c != above] + missing


def _through_the_row_between(schema: Schema, spec: Spec) -> None:
    """"Which ship is MSKU2761581 on?": one row named two tables below the target reaches it through one
    row of the table between (the voyage the box rides); that row is answered, the target's name beside
    it, so the answer says which of the ship's voyages it is."""
    if spec.action not in ("list", "lookup") or spec.roles or spec.show or len(spec.filters) != 1:
        return
    named = spec.filters[0]
    if named.op != "=" or named.column != schema.name_column(named.column.table):
        return
    # (one key up from the row between: a voyage's two ports are for the words to choose)
    between = [ref for t, _, ref, _ in schema.foreign_keys if t == named.column.table and ref != spec.target
               and sum((ref, r) == (t2, spec.target) for t2, _, r, _ in schema.foreign_keys) == 1]
    if len(between) == 1 and schema.is_parent_path(named.column.table, spec.target):
        spec.show = [schema.name_column(spec.target)]
        spec.target = between[0]


def _one_row_below(schema: Schema, spec: Spec, table: str) -> bool:
    """A table below the target, with a row of it named, and one key leading up from it (a voyage's
    two ports: which one the words mean is theirs to say)."""
    if table == spec.target or spec.roles or not schema.is_parent_path(table, spec.target) \
            or not any(f.column.table == table and f.op == "=" for f in spec.filters):
        return False
    return _one_key_up(schema, table, spec.target)


def _one_key_up(schema: Schema, table: str, target: str) -> bool:
    """One foreign key leads from the table up to the target (a voyage's two ports: which is for the words)."""
    return len({c for t, c, ref, _ in schema.foreign_keys if t == table and ref == target}) == 1


def _named_after_its_noun(words: _Words, spec: Spec) -> bool:
    """A row of the target named right after the target's noun ("vessel Ever Lunar"), or by a code only it has
    ("MATU9660968": a container's number names no other table's row)."""
    nouns = "|".join(re.escape(n) for n, t in TABLE_NOUNS.items() if t == spec.target)
    named = [f for f in spec.filters if f.column.table == spec.target and f.op == "=" and isinstance(f.value, str)]
    return any((f.column.table, f.column.name) in CODE_COLUMNS for f in named) or \
        bool(nouns) and any(words.has(rf"(?:{nouns})s?\s+{re.escape(f.value)}") for f in named)


def _with_what_it_multiplies(schema: Schema, spec: Spec) -> None:
    """A unit figure shown for rows ("unit value") comes with the count its comment says to multiply it by
    (QUANTITY), so the answer can say each row's total too ("the declared value of the solar modules")."""
    if spec.action not in ("list", "lookup"):
        return
    for col in list(spec.show):
        times = next((c for c in schema.columns.get(col.table, []) if c.name == col.multiplier), None)
        if times is not None and times not in spec.show:
            spec.show.append(times)


def _rows_below_the_one_named(words: _Words, schema: Schema, spec: Spec, table: str) -> bool:
    """"When does vessel Ever Lunar arrive?": a row of the target named right after the target's own noun,
    and the column asked of the table right below it, reached by one key (the ship's voyages, each with its
    arrival). Not without the noun: "the MSC Gülsün" names no row of the carrier MSC."""
    if table == spec.target or spec.roles or len(schema.path(table, spec.target) or []) != 1 \
            or not schema.is_parent_path(table, spec.target) or not _named_after_its_noun(words, spec):
        return False
    return _one_key_up(schema, table, spec.target)


def _possessor_shown(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Which carrier's ship carries the batteries?": the rows of a table said as the owner of the
    rows listed ("carrier's") are named beside them, when each listed row has one."""
    if spec.action not in ("list", "lookup"):
        return
    for m in re.finditer(r"\b([a-z]+)['’]s\s+([a-z]+)(?:\s+([a-z]+))?", words.text, re.I):
        owner = TABLE_NOUNS.get(words_of(m.group(1))[0])
        owned = {TABLE_NOUNS.get(words_of(w)[0]) for w in m.groups()[1:] if w}
        if owner and spec.target in owned and owner != spec.target and owner in schema.columns \
                and schema.is_parent_path(spec.target, owner):
            col = schema.name_column(owner)
            if col not in spec.show:
                spec.show.append(col)
            words.take(m.start(1), m.end(1))


def _show_dates_filtered(schema: Schema, spec: Spec) -> None:
    """A list of rows in a span of days shows each row's day ("arriving between 1 and 7 June"; "which ships arrive
    there in June": each ship's day, from the voyage its voyage number is shown for), when each row listed
    meets one such day."""
    for f in spec.filters:
        one_each = _one_beside_each_row(schema, spec, f.column.table)
        if spec.action == "list" and f.column.is_date and f.column not in spec.show and one_each \
                and (f.op in (">", "<", ">=", "<=") or (f.op == "between" and f.value != f.value2)):
            spec.show.append(f.column)


def _no_list_for_yes_or_no(words: _Words, spec: Spec) -> None:
    """"Is the departure date the actual one or the planned one?": a yes-or-no question that names no row is
    no list of every row (the column's comment answers it, or nothing does)."""
    if spec.action == "list" and not spec.filters and not spec.roles and \
            re.match(r"^\W*(?:is|are|was|were|does|do|did|has|have)\b(?!\s+there\b)", words.text, re.I):
        raise NoPlan("it asks yes or no, and names no rows to list")


def _named_unused(spec: Spec, named: list[Column], used_columns: set[str]) -> list[Column]:
    """The columns the words name that no part of the plan uses."""
    used = {c.ref for c in spec.show} | {f.column.ref for f in spec.filters} | used_columns
    used |= {c.ref for c in (spec.measure, spec.group) if c is not None}
    return [c for c in named if c.ref not in used and not (c.table == "PORTS" and spec.roles)
            and not (spec.action in ("aggregate", "count") and c.name.endswith("_NAME") and c.table == spec.target)]


def _rows_below_listed(schema: Schema, spec: Spec, named: list[Column], used_columns: set[str]) -> None:
    """"Which containers on 171N contain dangerous goods, and with which UN number?": a column of the rows below
    the ones listed (each box has several cargo lines) is shown by listing those rows, each with the name of the
    row it belongs to."""
    # (and a column asked that only keeps the rows: "contain dangerous goods, with which UN number?")
    missing = _named_unused(spec, named, used_columns) + [
        c for c in named if c.table != spec.target and c not in spec.show
        and any(f.column == c and f.op == "is not null" for f in spec.filters)]
    below = {c.table for c in missing}
    if spec.action != "list" or len(below) != 1 or (table := below.pop()) == spec.target \
            or not schema.is_parent_path(table, spec.target):
        return
    name = schema.name_column(spec.target)
    spec.show = [name, *[c for c in spec.show if c != name], *missing]
    spec.target = table


def _all_named_used(spec: Spec, named: list[Column], used_columns: set[str]) -> None:
    """No plan when a column the words name is in no part of it."""
    missing = _named_unused(spec, named, used_columns)
    if missing:
        raise NoPlan(f"it asks about {missing[0].ref}, which one query from {spec.target} cannot show")


def _asks_what_the_rows_hold(words: _Words, schema: Schema, spec: Spec, noun_at: int | None) -> None:
    """No plan for one row not named, a named row asked nothing about, or a column a count or an
    aggregate cannot show."""
    _rows_not_named(words, spec, noun_at)
    if _asked_nothing(spec):
        _whether_it_has(schema, spec)
    if _asked_nothing(spec):
        _the_column_of_the_unit(words, schema, spec)
    if _asked_nothing(spec):
        _lookup_shows_the_name(words, schema, spec)
    if spec.action in ("count", "group", "group_top"):
        # "the most departures": a date column named in a count names the event counted
        spec.show = [c for c in spec.show if not c.is_date]
    _figure_shows_nothing_else(spec, words)


def _asked_nothing(spec: Spec) -> bool:
    """A look-up of the row named that shows nothing of it yet."""
    return spec.action == "lookup" and not spec.show and not spec.roles and spec.measure is None


def _that_row_not_named(words: _Words, spec: Spec, noun_at: int | None) -> None:
    """"Is that sailing still at sea?": filters that name no row, and "that" or "this" before the noun."""
    if spec.action in ("list", "lookup") and not _names_one_row(spec, of_target=False) and noun_at \
            and _one_unnamed_row(words, noun_at, ("that", "this")):
        raise NoPlan(f"it asks about '{words.raw[noun_at - 1][2]} {words.raw[noun_at][2]}' without naming which")


def _rows_not_named(words: _Words, spec: Spec, noun_at: int | None) -> None:
    """No plan for one row said with "the" and no name, listed or totalled ("what does the container weigh
    in total?"), nor for "the two boxes" counted or totalled with nothing to say which two; with filters
    that name no row ("is that sailing still at sea?"), nor for one said with "that" or "this"."""
    if spec.filters:
        _that_row_not_named(words, spec, noun_at)
        return
    if spec.action in ("list", "lookup") and _one_unnamed_row(words, noun_at):
        raise NoPlan(f"it asks about one of the {noun(spec.target)} without naming which")
    if spec.action in ("list", "lookup") and (other := _another_row_pointed_at(words, noun_at)) is not None:
        raise NoPlan(f"it asks about '{other}' without naming which")  # "who operates the ship?"
    _several_not_named(words, spec)
    if spec.action == "aggregate" and _one_unnamed_row(words, noun_at) and words.raw[noun_at or 0][2] not in _MASS_NOUNS:
        raise NoPlan(f"it asks about one of the {noun(spec.target)} without naming which")


def _several_not_named(words: _Words, spec: Spec) -> None:
    """No plan for "the two boxes" or "both ships" with nothing to say which ones."""
    several = words.has(rf"(?:the|those|these|my|our|your)\s+(?:{_SMALL_COUNT})\s+[a-z]+|both(?:\s+the)?\s+[a-z]+")
    # ("the three vessels with the highest deadweight": the number is the top's own, no rows pointed back at)
    own_top = spec.action == "top" and several is not None and \
        re.search(rf"\b{spec.n}\b|\b{_NUMBER_NAME.get(spec.n, '-')}\b", several.group(0), re.I) is not None
    if spec.action in ("aggregate", "count", "top", "list", "lookup") and several and not own_top \
            and table_of_noun(several.group(0).split()[-1]) == spec.target:
        raise NoPlan(f"it asks about '{several.group(0)}' without naming which")


def _figure_shows_nothing_else(spec: Spec, words: _Words) -> None:
    """A count or an aggregate shows one figure: a column asked beside it is no plan, except the key
    said with the number a filter already uses ("voyage id 1015")."""
    if spec.action not in ("count", "aggregate", "group", "group_top"):
        return
    keyed = any(f.column.is_key and f.op == "=" for f in spec.filters)
    spec.show = [c for c in spec.show if not (c.is_key and keyed) and not _said_already(spec, c)]
    if spec.show and spec.action in ("count", "group") and spec.measure is None and not _ASKS_BESIDE.search(words.text):
        # "how many lines are declared as dangerous goods?": a count asked alone; a word that also names a
        # column ("declared", "package") asks nothing more of it (a part that does is checked as uncovered)
        spec.show = []
    if spec.show:
        article = "an" if spec.action[0] in "aeiou" else "a"
        raise NoPlan(f"it asks about {spec.show[0].ref}, which {article} {spec.action} does not show")


# a second thing asked beside a figure ("..., and what are their names?", "with their flags")
_ASKS_BESIDE = re.compile(r"\b(?:and|with|plus|also)\s+(?:what|which|who|where|when|their|its|the\s+\w+\s+of)\b|[?].*\w", re.I)


def _said_already(spec: Spec, col: Column) -> bool:
    """A column a figure already says: the groups' own ("lines per package type"), one it filters on ("lines
    with a UN number"), or one of the same kind as the measure ("total weight": the gross weight summed,
    not the tare beside it)."""
    measure = spec.measure
    same_kind = measure is not None and col.table == measure.table and bool(col.unit) and col.unit == measure.unit \
        and col.name.split("_")[-2:] == measure.name.split("_")[-2:]
    return col == spec.group or any(f.column == col for f in spec.filters) or same_kind


def _points_back(words: _Words, spec: Spec) -> None:
    """"Who operates it?", "which ships are they on?": a row the question points back to with a pronoun,
    and no filter says which; every row of the table would answer another question."""
    if spec.action in ("list", "lookup") and not spec.filters and (it := words.has(r"it|its|she|her|he|him|(?<=are |ere )they")):
        raise NoPlan(f"it asks about '{it.group(0)}' without naming which row that is")


def _whether_it_has(schema: Schema, spec: Spec) -> None:
    """"Is the HMM Hanbada in an alliance?": of a row named, whether a column of its own or of a row above it
    is filled is asked by showing the column (its value, or what its emptiness means), not by keeping only
    the rows that have it (a column of the rows below has one value per row there: not one answer)."""
    said = [f for f in spec.filters if f.op in ("is null", "is not null")]
    if len(said) != 1 or not any(f.op == "=" for f in spec.filters):
        return
    col = said[0].column
    if col.table == spec.target or schema.is_parent_path(spec.target, col.table):
        spec.filters.remove(said[0])
        spec.show.append(col)
    elif said[0].op == "is not null" and schema.is_parent_path(col.table, spec.target):
        # "does box X have dangerous goods?": its lines that do, each with its value (none listed: it has none)
        spec.target, spec.action, spec.show = col.table, "list", [col]


def _the_column_of_the_unit(words: _Words, schema: Schema, spec: Spec) -> None:
    """"What's FCIU2716756 set to in Fahrenheit?": a row named and a unit asked, no column said: the one
    column of the row's table whose unit is of that kind (the temperature, in °C)."""
    m = words.has(_A_UNIT_ASKED)
    kinds = _KINDS_OF_UNIT.get(m.group(1).lower(), set()) if m else set()
    held = [c for c in schema.columns.get(spec.target, []) if c.unit in kinds]
    if len(held) == 1:
        spec.show.append(held[0])


def _lookup_shows_the_name(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Which carrier has SCAC HDMU": the row named by a code, by its name; a row named and asked
    nothing about is no plan."""
    name = schema.name_column(spec.target)
    # "what vessel has IMO ...": what before a noun (not a verb) asks which
    asks_which = words.has(r"which|who|what(?:'s| is)? (?:the )?name|what\s+(?!(?:is|are|was|were|does|do|did|has|have)\b)[a-z]+")
    if words.has(r"who|who's|whose") and any(t != spec.target and schema.is_parent_path(spec.target, t)
                                            for t in party_tables(schema)):
        return  # "who runs the Ever Lunar?": the company above the row named (_company_above)
    if not (asks_which and all(f.column != name for f in spec.filters)):
        raise NoPlan(NOTHING_ASKED)
    spec.show.append(name)


_GOING = re.compile(r"head(?:ing|ed|s)?|going|bound|sailing|steaming", re.I)


def _column_words(words: _Words) -> list[str]:
    """The free words that may name a column: "the number of X" counts X (no *_NUMBER column); "heading
    to Rotterdam" and "where is she heading" use a verb (no heading column)."""
    where = words.has("where") is not None
    # ("in metric tonnes" asks a unit for the answer: its words name no column, not even the deadweight's)
    units = [m.span() for m in re.finditer(rf"\b{_A_UNIT_ASKED}\b", words.text, re.I)]
    out = []
    for i, w in words.free():
        following = words.raw[i + 1][2] if i + 1 < len(words.raw) else ""
        raw = words.raw[i][2]
        if (w == "number" and following == "of") or (raw.endswith("ing") and following in ("to", "for", "towards")) \
                or (where and _GOING.fullmatch(raw)) or any(a <= words.raw[i][0] < b for a, b in units):
            continue
        out.append(w)
    return out


# "where is she coming from", "where did it come from": the port the voyage under way left
_COMING_FROM = r"\bc[oa]m(?:es?|ing)\b.*\bfrom\b|where from\b|from where\b"


# the words of a day of arrival ("due in" arrives; "due to sail" leaves; "gets into Shanghai")
_ARRIVING_DAY = (r"arriv\w*|due(?! to (?:sail|leave|depart))|eta|reach\w*|dock\w*|berth\w*|land\w*|discharg\w*|"
                 r"(?:get|gets|got|getting|c[oa]me|comes|coming|pull\w*) (?:in|into|there)|(?:get|gets|got|getting) to")
# an arrival or a departure said, then "and where": the port of that end ("due tomorrow, and where?")
_DEPARTURE_SAID = r"depart\w*|leav\w*|sail\w*"
_THEN_WHERE = r"\b(?:{said})\b.*\band where\b"
_EVENT_THEN_WHERE = _THEN_WHERE.format(said=f"{_ARRIVING_DAY}|{_DEPARTURE_SAID}")


def _where_a_row_is(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Where is the Kota Singa?": a row that has no place of its own is where its latest position
    report puts it (the table whose rows point at it and hold a latitude). "Where is she heading?":
    the destination of the voyage that report names, read from the schema: the report's voyage column
    says which status its voyage has ("The ACTIVE voyage the vessel is sailing"); "where is she coming
    from?" the same voyage's origin."""
    if not words.has(r"where(?:'s|s)?") or has_place(schema, spec.target) or words.has(_EVENT_THEN_WHERE):
        return  # ("which ships arrive tomorrow, and where?": where the voyages end, not where the ships are)
    child = next((t for t, _, rt, _ in schema.foreign_keys if rt == spec.target
                  and {"LATITUDE", "LONGITUDE"} <= {c.name for c in schema.columns[t]}), None)
    if child is None:
        return
    if not words.has(_GOING.pattern + r"|going to|destination|off to|" + _COMING_FROM):
        spec.target = child
        return
    for t, column, voyage_table, _ in schema.foreign_keys:
        status = _status_named(schema, voyage_table, t, column)
        if t == child and status is not None and has_place(schema, voyage_table):
            spec.target = voyage_table
            spec.filters.append(Filter(status[0], "=", status[1], f"with {_label(status[0])} {status[1]}"))
            return


# "the voyage she's on (now)": the one a ship is making (a box's is the one voyage it belongs to)
_ITS_VOYAGE = r"\b(?:voyage|sailing|trip|rotation|journey)\s+(?:she|he|it|they)(?:'s|'re|\s+is|\s+are)\s+on\b"
_CURRENT = re.compile(r"\b(?:current(?:ly)?|present|actual|ongoing)\s+(?:voyage|sailing|trip|rotation|journey)s?\b|"
                      rf"{_ITS_VOYAGE}|"
                      r"\bon (?:its|her|their) way to\b|"  # "a ship on its way to Jebel Ali": sailing now
                      r"\b(?:under\s?way|in transit|en route|currently sailing|sailing now|out at sea|on the water)\b", re.I)


# "boxes on the Manulani right now": now, of the rows a ship carries, is its voyage under way
# ("this trip": the one she is making, unless a voyage is named)
# ("which voyage is she on now?", "ships now at sea"; not "when does it get there now?", said after a change)
_NOW = re.compile(r"\b(?:right now|at the moment|at present|as we speak|presently|currently|"
                  r"this (?:trip|voyage|sailing|crossing|journey|rotation))\b|"
                  r"\bon now\b|\bnow (?:on|at sea|sailing|under\s?way)\b", re.I)


# what a ship "has on board" now is on the voyage she is making (not "what was on board last time")
_ABOARD = re.compile(r"\b(?:on board|onboard|aboard)\b", re.I)
_IN_THE_PAST = re.compile(r"\b(?:was|were|had|did|last|previous|previously|earlier|before)\b", re.I)


def _now_said(words: _Words) -> bool:
    """"Right now", "this trip", or what a ship has on board (not what was on board); not "the next sailing
    after the one it's on now", which is not the one under way."""
    if re.search(r"\b(?:after|following)\s+the\s+one\b", words.text, re.I):
        return False
    return bool(_NOW.search(words.text) or (_ABOARD.search(words.text) and not _IN_THE_PAST.search(words.text)))


def _current_voyage(words: _Words, schema: Schema, spec: Spec) -> None:
    """"The Kyoto Express's current voyage", "voyages under way": the voyage a vessel is sailing now, whose
    status the position report's voyage column names in its comment ("The ACTIVE voyage the vessel is
    sailing"), when the rows are voyages or belong to one and no status is asked already. "Right now"
    counts too, unless a voyage is named (its own status says whether it is under way)."""
    current = _CURRENT.search(words.text)
    if not (current or _now_said(words)) or any(f.column.name == "STATUS" for f in spec.filters):
        return
    if current and re.search(r"\b(?:after|following|once|beyond)\s+(?:\S+\s+){0,2}$", words.text[:current.start()],
                             re.I):
        raise NoPlan("it asks about the voyage after the one sailing now, which one query here does not pick")
    found = _voyage_under_way(schema)
    if found is None or not _now_of_a_voyage(words, schema, spec, current, found[0]):
        return
    voyage_table, status, value = found
    if any(f.role for f in spec.filters) and spec.target_role is not None:
        raise NoPlan("it asks about voyages sailing now, and one query here cannot tie that to the port's voyages")
    if _reaches_one_voyage(schema, spec, voyage_table, bool(current)):
        spec.filters.append(Filter(status, "=", value, f"with {_label(status)} {value}"))
    elif current:
        raise NoPlan("it asks about voyages sailing now, and one query here cannot tie that to the rows it lists")


def _now_of_a_voyage(words: _Words, schema: Schema, spec: Spec, current: re.Match[str] | None, voyage_table: str) -> bool:
    """"Right now" of rows a voyage under way holds; a voyage said current, unless it is a box's own."""
    if current is None:
        return _now_is_a_voyages(words, schema, spec, voyage_table)
    return not _its_own_voyage(words, schema, spec, current, voyage_table)


def _its_own_voyage(words: _Words, schema: Schema, spec: Spec, current: re.Match[str], voyage_table: str) -> bool:
    """"The voyage it's on" said of rows that belong to one voyage each (a box), with no ship named and no "now":
    their own voyage, not the one under way."""
    return bool(re.search(r"\b(?:it|they)\b", current.group(0), re.I)) and not _now_said(words) \
        and spec.target != voyage_table and schema.is_parent_path(spec.target, voyage_table) \
        and not any(schema.is_parent_path(voyage_table, f.column.table) for f in spec.filters)


def _reaches_one_voyage(schema: Schema, spec: Spec, voyage_table: str, current: bool) -> bool:
    """The rows are voyages or belong to one, or reach one through a port's end or one join ("ships on
    their way to Colombo", "which vessels are currently sailing?"); never a port listed, either end of one."""
    if spec.target == voyage_table or schema.is_parent_path(spec.target, voyage_table) or any(f.role for f in spec.filters):
        return True
    ends = [k for k in schema.foreign_keys if k[0] == voyage_table and k[2] == spec.target]
    return current and schema.path(spec.target, voyage_table) is not None and len(ends) <= 1


def _voyage_under_way(schema: Schema) -> tuple[str, Column, str] | None:
    """(voyage table, status column, value) a foreign key's comment names as the voyage sailing now."""
    for t, column, voyage_table, _ in schema.foreign_keys:
        status = _status_named(schema, voyage_table, t, column)
        if status is not None:
            return voyage_table, status[0], status[1]
    return None


def _now_is_a_voyages(words: _Words, schema: Schema, spec: Spec, voyage_table: str) -> bool:
    """"Right now" says the voyage under way when the rows are voyages, are sailed or loaded, or belong to a
    vessel or line named; a voyage named is that voyage whatever its status, and "reefers right now" are all."""
    if any(f.column.table == voyage_table for f in spec.filters):
        return False
    return spec.target == voyage_table or words.has(r"sail\w*|loaded|aboard|on board") is not None \
        or any(schema.is_parent_path(voyage_table, f.column.table) for f in spec.filters)


# an event of a voyage said in the question, and whether it has happened ("haven't left yet": no)
_EVENTS = {"departed": r"left|departed|sailed|gone|leave|depart|sail", "arrived": r"arrived|finished|completed|docked|"
           r"got in|come in|reached|arrive|finish|complete|dock|reach"}
_NOT_YET = r"(?:haven't|hasn't|have not|has not|not|never|didn't|did not)\s+(?:yet\s+|even\s+)?|(?:yet|still)\s+to\s+"
_ALREADY = r"(?:already\s+|have\s+|has\s+|had\s+)"


def _state_by_event(words: _Words, schema: Schema, spec: Spec) -> None:
    """"How many voyages haven't left yet?", "which sailings have already arrived?": the values of a status
    column whose comment says, per value, whether the voyage has departed and arrived, that agree with
    what the words say happened; the words are taken."""
    for table, cols in schema.columns.items():
        status = next((c for c in cols if c.name == "STATUS"), None)
        states = _event_states(status.comment) if status is not None else {}
        if status is None or not states or not (spec.target == table or schema.is_parent_path(spec.target, table)):
            continue
        _filter_by_event(words, spec, status, states)
        return


def _filter_by_event(words: _Words, spec: Spec, status: Column, states: dict[str, dict[str, bool]]) -> None:
    """The status values that agree with the first event the words say happened or not; its words taken."""
    for event, verbs in _EVENTS.items():
        m = words.has(rf"(?:{_NOT_YET})(?:{verbs})|(?:{_ALREADY})(?:{verbs})")
        if m is None:
            continue
        if _event_said_otherwise(words, m):
            return
        happened = not re.match(_NOT_YET, m.group(0), re.I)
        values = [v for v, said in states.items() if said.get(event) is happened]
        if (given := next((f for f in spec.filters if f.column == status), None)) is not None:
            _agrees(given, values, f"{'' if happened else 'not '}{event}")
            values = []  # "at sea and not yet arrived": the status said says it all
        if values:
            spec.filters.append(Filter(status, "in", values, f"with {_label(status)} {' or '.join(values)}"))
        if values or given is not None:
            words.take(m.start(), m.end())
            for yet in re.finditer(r"\b(?:yet|already)\b", words.text, re.I):
                words.take(yet.start(), yet.end())
        return


def _has_it_happened(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Has its voyage left yet?", "did voyage 1050 arrive?": a yes or no about one row named is answered
    by the status whose comment says what has happened, and the day of the event asked; the words taken."""
    asks = re.match(r"\W*(?:and\s+)?(?:has|have|had|did|is|was)\b", words.text, re.I)
    if asks is None or spec.action not in ("list", "lookup") or not _names_one_row(spec, of_target=False):
        return
    event, m = next(((e, m) for e, verbs in _EVENTS.items() if (m := words.has(rf"(?:{verbs})(?:ed|s|ing)?"))),
                    ("", None))
    shown = _status_and_day(schema, spec, event) if m is not None else []
    if m is None or not shown:
        return
    spec.show += [c for c in shown if c not in spec.show]
    place = _place_of(schema, spec, event)
    if place in ("ORIGIN", "DESTINATION") and place not in spec.roles:
        spec.roles.append(place)
    for said in [m, *re.finditer(r"\b(?:yet|already|still)\b", words.text, re.I)]:
        words.take(said.start(), said.end())


def _status_and_day(schema: Schema, spec: Spec, event: str) -> list[Column]:
    """The status of the target (or a table above it) whose comment says what has happened, and that
    table's day of the event ("departed": DEPARTURE_DATE); [] when no such status."""
    for table, cols in schema.columns.items():
        status = next((c for c in cols if c.name == "STATUS" and _event_states(c.comment)), None)
        if status is not None and (table == spec.target or schema.is_parent_path(spec.target, table)):
            day = next((c for c in cols if c.is_date and c.name.startswith(event.upper()[:3])), None)
            return [c for c in (status, day) if c is not None]
    return []


def _place_of(schema: Schema, spec: Spec, event: str) -> str | None:
    """The end of the voyage where the event happens, by its key's comment ("Port of arrival" for
    arrived): the answer to "has it arrived?" says where. None when no such key."""
    stem_ = {"arrived": "arriv", "departed": "depart"}.get(event)
    if stem_ is None:
        return None
    return next((column.split("_")[0] for table, column, _, _ in schema.foreign_keys
                 if re.search(rf"\b{stem_}", schema.column(table, column).comment, re.I)
                 and (table == spec.target or schema.is_parent_path(spec.target, table))), None)


def _event_said_otherwise(words: _Words, m: re.Match[str]) -> bool:
    """"Whether they have left or not": both (the "or not" rule takes the words); "not completed": the
    words name a status value, which the negation turns round."""
    return re.match(r"\s+or\s+not\b", words.text[m.end():], re.I) is not None \
        or any(i in words.taken for i, (st, _, _) in enumerate(words.raw) if m.start() <= st < m.end())


def _agrees(given: Filter, values: list[str], event: str) -> None:
    """A status already said must be one of those the event allows ("completed and not yet arrived": none)."""
    if not set(given.value if isinstance(given.value, list) else [given.value]) <= set(values):
        raise NoPlan(f"it says {given.said} and {event}, and no row is both")


def _event_states(comment: str) -> dict[str, dict[str, bool]]:
    """From a status comment ("COMPLETED (arrived before that date), ACTIVE (at sea: departed, not yet
    arrived) or SCHEDULED (departs after it)"): per value, whether the voyage has departed and arrived."""
    out: dict[str, dict[str, bool]] = {}
    for value, said in re.findall(r"\b([A-Z]{3,})\s*\(([^)]*)\)", comment):
        state: dict[str, bool] = {}
        for event, stem_ in (("departed", "depart"), ("arrived", "arriv")):
            if re.search(rf"not yet {stem_}|{stem_}\w* after", said, re.I):
                state[event] = False
            elif re.search(rf"\b{stem_}ed\b", said, re.I):
                state[event] = True
        if state.get("arrived"):
            state["departed"] = True
        if state.get("departed") is False:
            state["arrived"] = False
        if state:
            out[value] = state
    return out


# what is in a row: "what's in it", "what is packed inside", "what do they carry / hold / contain"
ASKS_CONTENTS = (r"(?:what(?:'s| is| are| was| were)?|anything|whats)\s+(?:\w+ly\s+)?"
                  r"(?:(?:stuffed|packed|loaded|stowed|shipped|carried)\s+)?(?:in|inside)\b|"
                  r"what\s+(?:do|does|did|is|are|was|were)\s+(?:[\w'-]+\s+){1,4}?(?:carry|carrying|hold|holding|contain|containing)\b")


def _contents(words: _Words, schema: Schema, spec: Spec, named: list[Column]) -> None:
    """"What's in box CSNU8330816?": a row named, no column asked, and the question asks what is in it:
    the rows of the one table whose comment says they are inside a row of that table (CARGO_ITEMS:
    "goods packed inside each container"), filtered by the row named."""
    if named or not spec.filters or not words.has(ASKS_CONTENTS):
        return
    parent = noun(spec.target, plural=False)
    inside = [t for t, comment in schema.table_comments.items()
              if t != spec.target and schema.is_parent_path(t, spec.target)
              and len(schema.path(t, spec.target) or []) == 1
              and re.search(rf"\b(?:inside|within|in)\s+(?:each|every|a|the)?\s*{parent}", comment, re.I)]
    if len(inside) != 1:
        return
    if any(f.column.table != spec.target for f in spec.filters):
        # "which boxes are on the 273W and what's in them": each thing inside, with the box it is in
        spec.show.append(schema.name_column(spec.target))
    spec.target, spec.inside_of = inside[0], spec.target


def has_place(schema: Schema, table: str) -> bool:
    """The table's rows say where something is: a port, or coordinates."""
    return any(c.name.endswith("_PORT_ID") or c.name == "LATITUDE" for c in schema.columns.get(table, [])) \
        or table == "PORTS"


def _status_named(schema: Schema, table: str, child: str, fk: str) -> tuple[Column, str] | None:
    """The (status column, value) of `table` that the comment of `child.fk` names in capitals."""
    comment = next((c.comment for c in schema.columns[child] if c.name == fk), "")
    for col in schema.columns.get(table, []):
        for value in re.findall(r"\b[A-Z]{4,}\b", comment):
            if col.name == "STATUS" and value in col.comment:
                return col, value
    return None


def _where_is_a_place(words: _Words, spec: Spec) -> None:
    """"Where is it heading?" asks for a place: rows that show no port, position or voyage end
    (a heading in degrees) do not answer it."""
    if not words.has(r"where(?:'s|s)?") or spec.roles or spec.target_role or spec.action in ("count", "group", "group_top"):
        return
    # (a country is a place too: "where is ZIM headquartered?" is its head office's country)
    places = [c for c in _plan_columns(spec) if c.table in ("PORTS", "VESSEL_POSITIONS") and
              (c.table == "PORTS" or c.name in ("LATITUDE", "LONGITUDE")) or re.match(r"country\b", c.comment, re.I)]
    if spec.target != "PORTS" and not places:
        raise NoPlan("it asks where, and the rows it would show hold no place")


ASKS_MEANING = "it asks what something means, which the schema's comments say, not the rows"
_NOT_ALTERNATIVES = frozenset("from to into onto in on at by with over under than more less fewer not".split())


def _asks_which_meaning(words: _Words, schema: Schema, links: list[Link]) -> bool:
    """"Departure date on a scheduled voyage - actual or planned?": two words that a column's comment
    sets side by side, asked as alternatives, ask what the column means, not for rows."""
    m = re.search(r"\b([a-z]+)\s+or\s+([a-z]+)\s*\??\s*$", words.text, re.I)
    if m is None or any(lk.start >= m.start() for lk in links if lk.how in ("exact", "fuzzy", "partial", "explained")):
        return False
    pair = {stem(m.group(1).lower()), stem(m.group(2).lower())}
    if pair & _NOT_ALTERNATIVES:
        return False  # "sailed from or to": two ends, not two meanings
    return any(pair <= {stem(w) for w in re.findall(r"[a-z]+", c.comment.lower())}
               for cols in schema.columns.values() for c in cols if not c.sql)


def _not_modelled(words: _Words, schema: Schema) -> None:
    """A word of what the comments say the data does not hold ("which ports does it call at in
    between?": port calls are not modelled) asks for something no query can show."""
    for _, w in words.free():
        said = schema.unmodelled.get(stem_root(w))
        if said is not None:
            raise NoPlan(f"it asks about '{w}', and the schema says: {said}")


def _capacity_is_not_load(words: _Words, spec: Spec) -> None:
    """"How many TEU are loaded on voyage 1011?": the boxes' TEU (counted from their sizes), which a
    ship's capacity in TEU is not."""
    loaded = words.has(r"load\w*|on board|aboard|carried|carrying|booked|on (?:it|her|the voyage|the ship)")
    capacity = [c for c in [*spec.show, *([spec.measure] if spec.measure else [])] if c.unit == "TEU" and not c.sql]
    if loaded and capacity and not words.has(r"capacit\w*|can (?:take|carry|load|hold)|slots?|max\w*"):
        raise NoPlan(f"it asks for the TEU of the boxes loaded, and {capacity[0].ref} is what the ship can take, not "
                     "what it carries (the boxes' TEU come from their sizes: a 20-foot box is 1 TEU)")


def party_tables(schema: Schema) -> set[str]:
    """Tables whose rows are companies ("who runs it"): their comment's first sentence says they operate."""
    return {t for t, comment in schema.table_comments.items()
            if re.search(r"\b(?:operat\w*|compan(?:y|ies))\b", re.split(r"(?<=[a-z)])\.\s", comment, maxsplit=1)[0], re.I)}


def _who_is_a_party(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Who's the shipper of the shrimp in MSCU3700909?" asks for someone named: rows of tables that
    name nobody (no *_NAME column: a cargo line, a box) do not answer it; a ship or a line does."""
    asks_who = re.search(r"(?:^\W*|[,;:]\s*)(?:and\s+|so\s+)?(?:who|who's|whose)\b", words.text, re.I)
    if not asks_who or spec.action in ("count", "group"):
        return
    tables = {spec.target} | {c.table for c in spec.show}  # what it shows, not what it filters on
    named = {schema.name_column(t).name for t in tables if t in schema.columns}  # a position is named by its ship
    if not any(n.endswith("_NAME") for n in named):
        _who_sails_it(words, schema, spec)
        return
    _company_above(schema, spec, tables)


def _who_sails_it(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Who's sailing voyage 534E?": a row that names nobody, asked who sails or runs it, is the company above it
    (with the ship between, when there is one); asked anything else of it ("who's the shipper of the shrimp?"),
    nobody its rows name."""
    above = [t for t in sorted(party_tables(schema)) if schema.is_parent_path(spec.target, t)]
    if not above or spec.action not in ("list", "lookup") or not words.has(r"sail\w*|operat\w*|runs?|running|ran|handl\w*"):
        raise NoPlan("it asks who, and the rows it would show name nobody")
    between = [t for t in schema.columns if t not in (spec.target, above[0]) and schema.is_parent_path(spec.target, t)
               and schema.is_parent_path(t, above[0]) and schema.name_column(t).name.endswith("_NAME")]
    spec.show[:0] = [schema.name_column(t) for t in between[:1]] + [schema.name_column(above[0])]


def _company_above(schema: Schema, spec: Spec, tables: set[str]) -> None:
    """"Manulani: who runs it?": the row is named already, so who is the company above it."""
    own = schema.name_column(spec.target)
    parties = party_tables(schema)
    if spec.action != "lookup" or tables & parties or not any(f.column == own and f.op == "=" for f in spec.filters):
        return
    above = [t for t in sorted(parties) if schema.is_parent_path(spec.target, t)]
    if not above:
        raise NoPlan("it asks who, and the only name the rows hold is the one it gives")
    spec.show.insert(0, schema.name_column(above[0]))


def _show_compared(spec: Spec) -> None:
    """"Which boxes are heavier than 28 t?": each row listed with the value it was compared on."""
    if spec.action != "list":
        return
    for f in spec.filters:
        if f.op in (">", "<", ">=", "<=") and f.column not in spec.show and not f.column.is_key:
            spec.show.append(f.column)


# the whole of the data: "across all voyages", "over the whole manifest" restrict nothing
# ("across all manifests" says which lines: manifest lines, not shipping lines)
_WHOLE_DATA = re.compile(r"\b(?:across|over|on|in|for|from) (?:all|the whole|the entire)(?: (?:the|of the))? (?:voyages|"
                         r"sailings|trips|ships|vessels|containers|boxes|ports|carriers|fleet|data(?:set|base)?)\b", re.I)


_NOT_COUNTED = re.compile(r",\s*(?:not counting|not including|excluding|leaving out)\s+(?:the\s+)?([\w-]+(?:\s+[\w-]+)?)"
                          r"(?=\s*[?.!]?\s*$)", re.I)


def _left_out_not_in_it(words: _Words, spec: Spec) -> None:
    """", not counting the tare": no plan when the figure shown is one its comment says holds what is left out
    (a box's gross weight is "tare plus cargo"); the cargo lines' own weights hold no tare."""
    for m in _NOT_COUNTED.finditer(words.text):
        left_out = {stem(w) for w in re.findall(r"[a-z]+", m.group(1).lower())}
        for col in [*spec.show, *([spec.measure] if spec.measure is not None else [])]:
            if left_out & {stem(w) for w in re.findall(r"[a-z]+", col.comment.lower())}:
                raise NoPlan(f"it leaves out the {m.group(1)}, which {col.ref} includes")
_ANY_ROW = re.compile(r"\b(?:at least (one|1|a single)|(one) or more)(?= (?:[\w-]+ ){0,2}[a-z]+s?\b)(?! (?:of|more|less)\b)",
                     re.I)


# English that says "now" or is courtesy, whatever the question: no part of what it asks
_FILLER = re.compile(r"\b(?:at the moment|at present|these days|nowadays|right now|for now|as of now|as we speak|so far|"
                     r"(?:in|on) (?:the|your|our) (?:schedule|timetable|records?|books|system)|"
                     r"(?:is|are|would be) (?:fine|ok|okay|enough)|if (?:possible|you can)|by any chance|out there|"
                     r"(?:all|any|every) status(?:es)?|(?:in total|together|altogether)|metric(?= (?:tons?|tonnes?)\b)|"
                     r"on (?:its|her|their) way(?= to\b)|break(?:ing)? down(?= .*\bby\b)|on board|aboard|"
                     # a question told as someone else's: "the customer is asking when ...", "they want to know"
                     r"(?:^\W*(?:my |our |the |a )?[a-z]+(?:'s)? )?(?:(?:is|are|was|were|keeps?|kept) )?(?:asking|wondering)|"
                     r"(?:wants?|needs?|wanted|would like) to know|"
                     # "Hollis & Grange want to know ...": who asks, by their name
                     r"^\W*(?:(?-i:[A-Z])[\w'’-]*\s+(?:&\s+)?){1,4}(?:(?:is|are)\s+)?(?=asking|wondering|wants?\s+to\s+know)|"
                     r"asked me|"
                     # "US consignee wants the VGM of ...": who asks, before what they want
                     r"^\W*(?:my |our |the |a |an )?(?:[A-Za-z]+ ){0,2}?(?:wants?|needs?)(?= (?:the|a|an|to (?:see|have|get))\b)|"
                     # an interjection set apart by a mark ("Ugh — one of them got rolled", "hmm, which ...")
                     r"(?<![\w'])(?:ugh|argh|hmm+|oh|ah|oops|whoops|yikes|phew|damn|meh|alright)(?=\s*[,\u2014\u2013!.:-])|"
                     # chat's courtesy and requests: "gimme the SCAC pls", "lemme know", "can you pull it up"
                     r"gimme|lemme(?: know)?|pls|plz|thx|cheers|(?:can|could) you (?:pull|dig|look) (?:it|that|this) up|"
                     r"(?:can|could) you (?:check|confirm)(?: (?:that|this|it)(?: for me)?)?(?=\W*$)|"
                     # what the data holds, said as the assistant's: "ships you track", "in your list", "on file"
                     r"(?:that |which )?you (?:track|follow|monitor|cover|hold|list|know(?: of| about)?|keep tabs on)|"
                     r"in (?:your|the|our) (?:list|data(?:base)?|records?|system|books|files?)|on (?:file|record))\b", re.I)


def _said_by_the_plan(words: _Words, spec: Spec) -> list[tuple[int, int]]:
    """Spans of words a filter of the plan stands for: "under way" for a status filter, "out of" for a
    port of departure."""
    spans = []
    if any(f.column.name == "STATUS" for f in spec.filters):
        spans += [m.span() for pattern in (_CURRENT, _NOW) for m in pattern.finditer(words.text)]
    if any(f.role == "ORIGIN" for f in spec.filters) or "ORIGIN" in spec.roles:
        # "out of", "started", "where is it coming from": words of the port a voyage leaves
        spans += [m.span() for m in re.finditer(r"\bout of\b|\bstart(?:s|ed)?\b|\bc[oa]m(?:es?|ing)\b(?=.*\bfrom\b)",
                                                words.text, re.I)]
    if spec.convert:  # ("in short tons": the unit asked, every word of it)
        spans += [m.span() for m in re.finditer(rf"\b{re.escape(spec.convert)}\b", words.text, re.I)]
    return spans + _end_words_used(words, spec) + _shape_words_used(words, spec)


def _shape_words_used(words: _Words, spec: Spec) -> list[tuple[int, int]]:
    """Words the shape of the plan stands for: a range of days ("in the week 19-25 May"), "different",
    "break down by"."""
    said = []
    if any(f.op == "between" and f.column.is_date for f in spec.filters):
        said.append(r"\b(?:week|period|fortnight|days)\b")
    if spec.action == "distinct":
        said.append(_DIFFERENT)
    if spec.group is not None:  # "break the boxes down by type": the words that say "per"
        said.append(r"\b(?:break(?:ing)?|broken|down|grouped|split)\b")
    return [m.span() for pattern in said for m in re.finditer(pattern, words.text, re.I)]


def _end_words_used(words: _Words, spec: Spec) -> list[tuple[int, int]]:
    """"Where did it end?", "the discharge port", "port of loading": words of a voyage's end the plan uses."""
    spans = []
    if "DESTINATION" in spec.roles:  # "where did it end?": the voyage's destination
        spans += [m.span() for m in re.finditer(r"\bend(?:s|ed)?\b|\bfinish(?:es|ed)?\b", words.text, re.I)]
    roles = set(spec.roles) | {spec.target_role, spec.group_role} | {f.role for f in spec.filters}
    if "DESTINATION" in roles:  # "the discharge port", "discharging at": a voyage's destination
        spans += [m.span() for m in re.finditer(rf"\b(?:{_DISCHARGE})\b", words.text, re.I)]
    if "ORIGIN" in roles:
        spans += [m.span() for m in re.finditer(rf"\b(?:{_LOADING})\b", words.text, re.I)]
    if "DESTINATION" in roles:  # "which vessels went to Rotterdam": the verb of the voyage's end
        spans += [m.span() for m in re.finditer(r"\b(?:go|goes|going|gone|went|sail(?:s|ed|ing)?)\b(?=\s+(?:to|into|for)\b)",
                                                words.text, re.I)]
    if {"ORIGIN", "DESTINATION"} <= roles:  # "the Valencia to New York lane": the voyages between the two
        spans += [m.span() for m in re.finditer(r"\b(?:lanes?|routes?|trades?|legs?|corridors?)\b", words.text, re.I)]
    return spans


# a pronoun or question word with its verb ("we've", "they'd", "who'll"): says nothing about what is asked
_CONTRACTED = re.compile(r"(?:i|we|you|they|he|she|it|that|there|what|who|where|how|let)'(?:ve|re|ll|d|s|m)$")


def _every_word_explained(words: _Words, schema: Schema, spec: Spec) -> None:
    """A word the plan leaves unexplained ("crew", "fuel", "lost overboard") is a part of the
    question the rows would not answer: no plan. Words are explained by the comments of the
    tables and columns the plan uses, the plan's own words, and plain English function words."""
    known = _plan_vocabulary(schema, spec)
    roots = {stem_root(w) for w in known - set(_PLAIN)}
    compounds = [w for c in _plan_columns(spec) for w in c.words if len(w) >= 8]
    filler = [m.span() for m in _FILLER.finditer(words.text)] + _said_by_the_plan(words, spec)
    for i, (start, _, raw) in enumerate(words.raw):
        if _set_aside(words, i, start, filler):
            continue
        if raw in known or words.mapped[i] in known or words.mapped[i] == "-" or _plan_word(raw, words.text[start:]) \
                or _explained_by_a_root(words, start, raw, roots) or _CONTRACTED.match(raw) or _end_of_a_compound(raw, compounds):
            continue
        raise Unexplained(f"it asks about '{raw}', which the {noun(spec.target)} it would query do not record", raw)


def _explained_by_a_root(words: _Words, start: int, raw: str, roots: set[str]) -> bool:
    """"Reporting" is explained by the comment's "report" (`roots`: those of the plan's words); a plain word's root
    explains its forms, not a reference named by one ("booked" is no "booking number")."""
    root = stem_root(raw)
    return root in roots or (root in _PLAIN_ROOTS and not _A_REFERENCE.match(words.text, start + len(raw)))


_PLAIN_ROOTS = frozenset(stem_root(w) for w in _PLAIN)
_A_REFERENCE = re.compile(r"\s+(?:numbers?|no\.?|nr|references?|refs?|ids?|codes?)\b", re.I)


def _end_of_a_compound(raw: str, compounds: list[str]) -> bool:
    """"weight" of "deadweight": the end of a long word the plan's columns are named by."""
    return len(raw) >= 4 and any(w.endswith(raw) and len(w) - len(raw) >= 3 for w in compounds)


def _set_aside(words: _Words, i: int, start: int, filler: list[tuple[int, int]]) -> bool:
    """A word no plan needs to explain: taken by a link, a number (in digits, or in words a filter took:
    "below zero"), a short word, or inside a filler phrase."""
    raw = words.raw[i][2]
    return i in words.taken or raw[0].isdigit() or start in words.used_numbers or len(raw) < 3 \
        or any(a <= start < b for a, b in filler)


def _plan_tables(schema: Schema, spec: Spec) -> set[str]:
    """The tables a plan reads: its target, its columns', those its joins pass through, the table a
    "none" filter looks below to, and the ports at a voyage's end ("when does it leave port?")."""
    tables = {spec.target} | {c.table for c in _plan_columns(spec)} | \
        {t for f in spec.filters if f.op == "none" for t in _tables_below(f)}
    for table in list(tables):
        tables |= {hop[2] for hop in schema.path(spec.target, table) or []}
    if spec.roles or spec.target_role or spec.group_role or any(f.role for f in spec.filters):
        tables.add("PORTS")
    return tables


def _plan_vocabulary(schema: Schema, spec: Spec) -> set[str]:
    """The words a plan explains: plain English, the tables' nouns, the first sentence of each table
    comment it reads (what the table is; the rest explains, and explaining a word is not answering
    it: a ship "never changes" its IMO number), its date columns (a voyage's "departures") and the
    words of the columns it uses."""
    tables = _plan_tables(schema, spec)
    # a table's noun is explained only when the plan reads that table: "lines" across the manifests
    # is no count of carriers
    known = set(_QUESTION) | set(_PLAIN) | {n for n, t in TABLE_NOUNS.items() if t in tables}
    for table in tables:
        first = re.split(r"(?<=[a-z)])\.\s", schema.table_comments.get(table, ""), maxsplit=1)[0]
        known |= set(words_of(first + " " + table.replace("_", " ")))
        known |= {w for c in schema.columns[table] if c.is_date for w in schema.name_words(c)}
    known |= _columns_vocabulary(spec)
    if any(f.column.is_date and f.op in ("between", ">", "<", ">=", "<=") for f in spec.filters):
        known |= _DATE_RANGE_WORDS  # "between 1 and 5 June, both days included"
    return known


def _columns_vocabulary(spec: Spec) -> set[str]:
    """The plan's columns' words, their names', and the parts of their comments' compounds ("Set-point"
    explains "set")."""
    out: set[str] = set()
    for col in _plan_columns(spec):
        out |= set(col.words) | set(words_of(col.name.replace("_", " ")))
        out |= {w.lower() for w in re.findall(r"[A-Za-z]+(?=-[A-Za-z])|(?<=[A-Za-z]-)[A-Za-z]+", col.comment)}
    return out


# (not "first week", "last days": those narrow the range, and a plan that ignores them must not run)
_DATE_RANGE_WORDS = frozenset({"day", "days", "both", "included", "inclusive"})


def _plan_columns(spec: Spec) -> list[Column]:
    cols = list(spec.show) + [f.column for f in spec.filters]
    return cols + [c for c in (spec.measure, spec.group) if c is not None]


_COMPARATOR_WORDS = {w for pattern, _ in COMPARATORS for w in re.findall(r"[a-z]+", pattern)}


# the words that only say "equal to" ("set to", "exactly"): with no number after them they ask for the value
_EQUALS_WORDS = frozenset({"set", "equal", "equals", "exactly"})


def _plan_word(raw: str, rest: str = "") -> bool:
    """A word of the plan's own: a superlative, an aggregate, a count, a month, or a comparison's word
    followed by what it compares with ("set to" with no number after it asks what it is set to)."""
    compares = raw in _COMPARATOR_WORDS and (raw not in _EQUALS_WORDS or not rest or re.match(
        r"\S+(?:\s+\S+){0,3}?\s*(?:[-+]?\d|zero\b|minus\b|freezing\b)", rest, re.I) is not None)
    aggregate = any(re.match(rf"(?:{w})\b", rest or raw, re.I) for w in AGGREGATES)  # ("adding them up")
    return (raw in SUPERLATIVES or aggregate or compares or re.fullmatch(COUNT_WORDS, raw) is not None
            or raw.capitalize() in calendar.month_name or raw.capitalize() in calendar.month_abbr)


def _correct_typos(words: _Words, schema: Schema) -> None:
    """A word the schema does not know but nearly does ("numbr", "capactiy") is read as that word."""
    vocabulary = schema.vocabulary
    for i, (_, _, raw) in enumerate(words.raw):
        if i in words.taken or len(raw) < 4 or raw in vocabulary or raw in _QUESTION or raw in _PLAIN \
                or raw[0].isdigit() or words.mapped[i] in TABLE_NOUNS or _plan_word(raw) or raw in _NUMBER_WORDS:
            continue
        # one edit (a swap counts as one) in a word of six letters or more, never in five ("smell" is no "small")
        best = process.extractOne(raw, schema.vocabulary_in_order, scorer=DamerauLevenshtein.normalized_similarity,
                                  score_cutoff=0.82)
        if best is not None and best[0][0] == raw[0]:  # a typo keeps a word's start: "master" is no "faster"
            words.mapped[i] = map_words([best[0]])[0]
            words.corrected.add(i)


def _another_row_pointed_at(words: _Words, noun_at: int | None) -> str | None:
    """"Who operates the ship?": another table's noun, singular after "the" or "that", points at one
    row the question does not name (every row of the table would answer another question)."""
    for i, (_, _, raw) in enumerate(words.raw):
        if i != noun_at and i > 0 and i not in words.taken and words.mapped[i] in TABLE_NOUNS and stem(raw) == raw \
                and raw not in _MASS_NOUNS and words.raw[i - 1][2] in ("the", "that", "this") \
                and not (i + 1 < len(words.raw) and words.mapped[i + 1] in TABLE_NOUNS):
            return f"{words.raw[i - 1][2]} {raw}"
    return None


# nouns of a whole, not of one row: "the total value of the cargo", "the average age of the fleet"
_MASS_NOUNS = frozenset({"cargo", "fleet", "goods", "freight", "data"})


_POINTING = ("the", "this", "that", "my", "our", "your", "its", "which", "what")


def _one_unnamed_row(words: _Words, noun_at: int | None, pointing: tuple[str, ...] = _POINTING) -> bool:
    """"When was the ship built?": a singular noun after the, this or my points at one row; "which
    container?" asks to choose one, and nothing in the question chooses."""
    if noun_at is None or noun_at == 0:
        return False
    raw = words.raw[noun_at][2]
    return stem(raw) == raw and words.raw[noun_at - 1][2] in pointing


def _one_per_name(spec: Spec, words: _Words, links: list[Link]) -> None:
    """"Maersk or Hapag-Lloyd: which has more capacity?": a count or a total per name asked about,
    never one figure over both; so for any values set against each other ("do Ocean Alliance carriers
    run bigger ships on average than Premier Alliance ones?")."""
    if spec.action not in ("count", "aggregate"):
        return
    compared = words.has(r"than|vs\.?|versus|compared?|compar\w+")
    for f in spec.filters:
        # (values set against each other are named each on its own: "reefers colder than 0" names one word)
        apart = compared and len({lk.text.lower() for lk in links if lk.column == f.column.name and lk.table == f.column.table}) >= 2
        if f.op == "in" and (apart or f.column.name.endswith("_NAME") or f.column.name in ("VOYAGE_NUMBER", "SCAC_CODE")):
            spec.group, spec.action = f.column, "group"
            return


def _qualifiers(words: _Words, spec: Spec, named: list[Column], used: set[str], schema: Schema) -> None:
    """A column whose comment says what NULL means ("NULL means the goods are not declared as
    dangerous"), named by a word of that comment's NULL sentence or by its own words, qualifies the
    rows: IS NOT NULL or IS NULL, as the words say (a negation turns it round)."""
    free = {stem_root(w) for _, w in words.free()} - {stem_root(w) for w in (*TABLE_NOUNS, *_QUESTION, *_PLAIN)}
    for table in _near(schema, spec.target, 2):
        below = schema.is_parent_path(table, spec.target) and table != spec.target  # ("boxes with dangerous goods")
        if not (schema.is_parent_path(spec.target, table) or below):
            continue
        for col in schema.columns[table]:
            if (meaning := _null_meaning_said(words, col, used, free, named)) is not None:
                spec.filters.append(_null_filter_of(words, spec, col, col.null_meaning, (free, meaning), below))
                used.add(col.ref)


def _null_meaning_said(words: _Words, col: Column, used: set[str], free: set[str], named: list[Column]) -> set[str] | None:
    """The words of a column's NULL sentence, when the question names the column or says them; None otherwise. A
    column asked for is no filter unless those words are said too ("which contain dangerous goods, and with which
    UN number?" keeps the lines that have one)."""
    if not col.null_meaning or col.ref in used:
        return None
    meaning = {stem_root(w) for w in words_of(col.null_meaning) if len(w) >= 4} - {"declared"}  # (not "as")
    if _asked_for(words, col) and not free & meaning:
        return None
    return meaning if col in named or free & meaning else None


def _null_filter_of(words: _Words, spec: Spec, col: Column, null_means: str, said: tuple[set[str], set[str]],
                    below: bool) -> Filter:
    """The NULL filter the words ask (`said`: the question's free words and those of the NULL sentence); of a
    table below the target only the filled one: "boxes without dangerous goods" asks that no line of theirs
    has one, which a join does not say."""
    free, meaning = said
    found = _null_filter(words, col, null_means, bool(free & meaning), meaning)
    if below and found.op == "is null":
        raise NoPlan(f"it asks for {noun(spec.target)} none of whose {noun(col.table)} have {_label(col)}")
    return found


def _null_filter(words: _Words, col: Column, null_means: str, said_as_empty: bool, meaning: set[str]) -> Filter:
    """"NULL means it sails independently": "the independents" are the empty ones; "NULL means the
    goods are not declared as dangerous": "dangerous goods" are the filled ones; a column named by its
    own words ("carriers in an alliance") is about the filled ones. A negation turns it round; the
    words it used are taken (they are what the filter says)."""
    empty = said_as_empty and not re.search(r"\b(?:not|no|never|without)\b", null_means, re.I)
    for cue in NEGATION_RE.finditer(words.text):
        # only a negation of these words counts ("lines on voyages that haven't arrived" negates the arrival)
        after = re.findall(r"[A-Za-z]+", words.text[cue.end():])[:4]
        governed = {stem(w.lower()) for w in after}
        if governed & set(words_of(col.name.replace("_", " "))):
            empty = True  # "outside any alliance": the negation governs the column itself: the empty rows
        elif {stem_root(w) for w in words_of(" ".join(after)) if len(w) >= 4} & meaning:
            empty = not empty  # "not dangerous goods": it turns round what the words said
        else:
            continue
        words.take(cue.start(), cue.end())
        break
    words.taken |= {i for i, (_, _, raw) in enumerate(words.raw) if stem_root(raw) in meaning}
    article = "an" if _label(col)[:1] in "aeiou" else "a"
    return Filter(col, "is null" if empty else "is not null", None,
                  f"{'without' if empty else 'with'} {article} {_label(col)}")


def _asked_for(words: _Words, col: Column) -> bool:
    """"Which alliance", "what flag": the column is what the question asks for, not a qualifier."""
    names = (set(words_of(col.name.replace("_", " "))) | col.words) - set(TABLE_NOUNS)  # "which carriers": the rows
    for i, mapped in enumerate(words.mapped):
        if mapped in names and i > 0 and words.raw[i - 1][2] in ("which", "what", "whose", "its", "their"):
            return True
    return False


def _linked_already(words: _Words, start: int) -> bool:
    return any(i in words.taken for i, (s, _, _) in enumerate(words.raw) if s == start)


def _as_held(col: Column, digits: str) -> str | int:
    """The digits as the column holds them: a code held as text keeps its leading zeros ("HS 030617")."""
    return digits if col.is_text else int(digits)


def _key_filters(words: _Words, schema: Schema) -> list[Filter]:
    """"voyage 1046", "container 20017": a table's noun followed by a number is that row's key."""
    out = []
    for m in re.finditer(r"\b([a-z]+)\s+(?:id\s+|no\.?\s*|number\s+|#\s*)?(\d{3,7})\b", words.text, re.I):
        if _linked_already(words, m.start(2)):
            continue  # the number begins a value linked already ("voyage 271 S" is voyage number 271S)
        table = TABLE_NOUNS.get(words_of(m.group(1))[0] if words_of(m.group(1)) else "")
        coded = [c for cols in schema.columns.values() for c in cols
                 if c.name.split("_")[0].lower() == m.group(1).lower() and not c.is_key]
        if table is None and coded:  # "UN 1263", "IMO 9446233": the column its first word names
            col = min(coded, key=lambda c: len(schema.path(c.table, c.table) or []))
            out.append(Filter(col, "=", _as_held(col, m.group(2)), f"with {_label(col)} {m.group(2)}"))
            words.used_numbers.add(m.start(2))
            continue
        if table is None or table not in schema.columns:
            continue
        key = schema.columns[table][0]
        if table == "VESSELS" and len(m.group(2)) == 7:
            key = schema.column("VESSELS", "IMO_NUMBER")
        out.append(Filter(key, "=", int(m.group(2)), f"for {m.group(1).lower()} {m.group(2)}"))
        words.used_numbers.add(m.start(2))
    return out


def _count_of(token: str) -> int:
    return _NUMBER_WORDS[token.lower()] if token.lower() in _NUMBER_WORDS else int(token)


# a code of letters and at least three digits ("739E", "MSCU1234567"), not a unit ("500kg") or an ordinal
_CODE = re.compile(r"(?<![\w-])(?=[A-Za-z-]*\d[A-Za-z-]*\d[A-Za-z-]*\d)(?=\w*[A-Za-z])[A-Za-z0-9-]{4,}(?![\w-])")
# a size-type code in capitals ("20DV", "45R1"): too few digits for a code above, yet as much a value
_SIZE_CODE = re.compile(r"(?<![\w-])\d{2}[A-Z]{2}\d?(?![\w-])")
_NOT_A_CODE = re.compile(rf"\d+(?:{UNIT_SUFFIXES})$", re.I)


def _all_codes_known(words: _Words, links: list[Link]) -> None:
    """A code the question gives that no value of the data matches ("voyage 739E" when there is none)
    is a record the data does not hold: no plan, rather than rows that ignore it."""
    for m in [*_CODE.finditer(words.text), *_SIZE_CODE.finditer(words.text)]:
        if not _NOT_A_CODE.fullmatch(m.group(0)) and not any(lk.start <= m.start() < lk.end or m.start() < lk.start < m.end()
                                                             for lk in links):  # (a link inside it: "0813N" is 813N)
            raise NoPlan(f"it names {m.group(0)}, which the data does not hold")


# what stands between a size and the value it is of: "40' high cube", "40-foot standard dry"
_SIZE_MARK = r"\s*(?:'|\u2019|ft|foot|feet|-foot|-ft)?\s*-?\s*(?:standard\s+|regular\s+|normal\s+)?"
_SIZE_BEFORE = re.compile(rf"\b(\d{{2}})(?=\s*(?:'|\u2019|ft|foot|feet|-foot|-ft)){_SIZE_MARK}$", re.I)


def _of_the_size_said(question: str, links: list[Link]) -> list[Link]:
    """"40' standard dry boxes": of the values a word names (dry: 20GP, 40GP), those of the size said before it."""
    out = []
    for lk in links:
        size = _SIZE_BEFORE.search(question[:lk.start])
        same_span = [o for o in links if (o.start, o.end) == (lk.start, lk.end)]
        sized = [o for o in same_span if size and str(o.value).startswith(size.group(1))]
        if not size or not sized or len(sized) == len(same_span) or lk in sized:
            out.append(lk)
    return out


def _all_numbers_used(words: _Words, links: list[Link]) -> None:
    """A number the plan did not use is a part of the question it would not answer."""
    # a minus sign after a space is a number's ("at -25"), a hyphen inside a code or a date is not
    for m in re.finditer(r"(?:(?<![\w.-])|(?<=\s-)|(?<=^-))\d+(?:,\d{3})*(?:\.\d+)?k?(?![\w-])", words.text, re.I):
        inside_link = any(lk.start <= m.start() < lk.end for lk in links)
        # "40' high cube": the size written before a value that starts with it (40HC) is that value's
        # (when every value those words name starts with it: "40' reefer" is 20RF or 40RF, a size left out)
        after = [lk for lk in links if lk.start >= m.end()
                 and re.fullmatch(_SIZE_MARK, words.text[m.end():lk.start], re.I)]
        size_of = bool(after) and all(str(lk.value).startswith(m.group(0)) for lk in after)
        if m.start() not in words.used_numbers and not inside_link and not size_of:
            raise NoPlan(f"it names {m.group(0)}, which no part of the query uses")


def _near(schema: Schema, target: str, hops: int) -> list[str]:
    """Tables within `hops` foreign keys of the target, nearest first (the target itself first)."""
    found = [(len(p), t) for t in schema.columns if (p := schema.path(target, t)) is not None and len(p) <= hops]
    return [t for _, t in sorted(found)]


def _most_of(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Which carrier has the most vessels": vessels counted per carrier, the top one kept."""
    m = words.has(r"(most|fewest|least|highest number of|largest number of|smallest number of)\s+(\w+)")
    if not m:
        return
    if re.fullmatch(r"common|frequent|usual|popular", m.group(2), re.I):
        _most_common(words, schema, spec, m)
        return
    table = TABLE_NOUNS.get(words_of(m.group(2))[0] if words_of(m.group(2)) else "")
    if table is not None and table == spec.target:
        _most_per_value(words, schema, spec, m)
        return
    if table is None or schema.path(table, spec.target) is None:
        return
    spec.group = schema.name_column(spec.target)
    n = words.has(r"(?:top|which|the|first)\s+(\d+|" + "|".join(_NUMBER_WORDS) + r")\b")
    if n:
        words.used_numbers.add(n.start(1))
    spec.target, spec.action, spec.n = table, "group_top", _count_of(n.group(1)) if n else 1
    spec.direction = "ASC" if re.match(r"fewest|least|smallest", m.group(1), re.I) else "DESC"


def _most_common(words: _Words, schema: Schema, spec: Spec, most: re.Match[str]) -> None:
    """"The most common flag state among our ships": the rows counted per value of the column the words
    after it name, the top value kept (ties shown); "least common" the bottom one."""
    after = re.match(r"\s+((?:[a-z/-]+\s+){0,2}?[a-z/-]+)(?=\s+(?:among|amongst|of|in|on|across|for|is|are|was)\b|\s*[?.,]|$)",
                     words.text[most.end():], re.I)
    # "which container type is the most common?": the words after which
    before = re.search(r"\b(?:which|what)\s+((?:[a-z/-]+\s+){0,2}?[a-z/-]+)\s+(?:is|are|was|were)\s+(?:the\s+)?$",
                       words.text[:most.start()], re.I)
    said = after or before
    if said is None or not _top_value_of(schema, spec, said.group(1), most):
        return
    words.take(most.start(), most.end() + (after.end(1) if after else 0))
    if before is not None:
        words.take(before.start(1), before.end(1))


def _top_value_of(schema: Schema, spec: Spec, phrase: str, most: re.Match[str]) -> bool:
    """The target's rows counted per value of the column the phrase names, the top value kept (the
    bottom one for "fewest", "least"); False when the phrase names no such column."""
    said = words_of(phrase)
    col = _column_of_head(schema, said, [spec.target]) or _column_of_head(schema, said, _near(schema, spec.target, 2))
    if col is None:
        return False
    spec.group, spec.action, spec.n = col, "group_top", 1
    spec.direction = "ASC" if re.match(r"fewest|least|smallest", most.group(1), re.I) else "DESC"
    return True


def _column_of_head(schema: Schema, said: list[str], tables: list[str]) -> Column | None:
    """The column of `tables` the words name, when it is one of their last word too ("departure regions" is a
    port's region, not the departure date), and neither a key nor a figure; else None."""
    cols = schema.columns_named(said, tables)
    if not said or not cols or cols[0][0] < 1 or cols[0][1].is_key or cols[0][1].numeric:
        return None
    heads = {c for score, c in schema.columns_named(said[-1:], tables) if score >= 1}
    return cols[0][1] if cols[0][1] in heads else None


# "which flag states have ...", "which ports handled ...": the words that name the groups, before a verb of having
_WHICH_HAS = (r"\b(?:which|what)\s+((?:[a-z/-]+\s+){0,2}?[a-z/-]+)\s+(?:has|have|had|holds?|counts?|gets?|got|receives?|"
              r"sees?|saw|handles?|handled)\b")


# ... or "any": "do any voyage numbers appear on more than one voyage?", "is any flag used by more than 5 ships?"
_WHICH_OR_ANY_HAS = (r"\b(?:which|what|any)\s+((?:[a-z/-]+\s+){0,2}?[a-z/-]+)\s+(?:has|have|had|holds?|counts?|gets?|got|"
                     r"receives?|sees?|saw|handles?|handled|appears?|shows? up|(?:(?:is|are|was|were|been)\s+)?used)\b")


def _most_per_value(words: _Words, schema: Schema, spec: Spec, most: re.Match[str]) -> None:
    """"Which flag state has the most ships": the rows counted per value of the column the words before
    the verb name (a column of the rows counted), the top value kept (ties shown)."""
    which = re.search(_WHICH_HAS, words.text[:most.start()], re.I)
    if which is not None and _top_value_of(schema, spec, which.group(1), most):
        words.take(which.start(1), which.end(1))
        if words.has("per|each|every"):
            spec.action = "group"  # "..., with the number per region": every group's figure, the most first


def _value_filters(words: _Words, schema: Schema, links: list[Link], target: str) -> list[Filter]:
    filters = []
    for ref, group in _links_by_column(words, schema, links, target).items():
        table, column = ref.split(".")
        filters += _filters_of_links(words, table, schema.column(table, column), group, target)
    return filters


def _links_by_column(words: _Words, schema: Schema, links: list[Link], target: str) -> dict[str, list[Link]]:
    """The value links grouped by the column they filter ("TABLE.COLUMN"); a country said by one
    of its ports filters the country column when the words ask for a country or a flag."""
    by_column: dict[str, list[Link]] = {}
    for link in links:
        table, column = link.table, link.column
        code = _country_named(link)
        if code is not None and (_says_flag(words) or words.has(r"countr\w*|nation\w*")):
            link = Link(table, column, code, link.start, link.end, "country", link.text)  # the country, not its port
        if link.how == "country":
            table, column = _country_column(words, schema, target, link)
        by_column.setdefault(f"{table}.{column}", []).append(Link(table, column, link.value, link.start, link.end,
                                                                  link.how, link.text))
    return by_column


def _from_and_to(words: _Words, col: Column, spans: list[list[Link]]) -> list[Filter]:
    """Two places named for voyages (a port, or a region standing for several): the first is the origin and
    the second the destination, unless the words around them say the other way round."""
    roles = ["ORIGIN", "DESTINATION"]
    first, second = spans
    if _role(words, second[0]) == "ORIGIN" or _role(words, first[0]) == "DESTINATION":
        roles.reverse()
    return [_at_one_end(col, links, r) for links, r in zip((first, second), roles, strict=True)]


def _voyage_ends(words: _Words, col: Column, group: list[Link]) -> list[Filter] | None:
    """The ends of voyages the places said stand at: two places, from one to the other ("from East Asia to North
    America") or either at one end ("out of Shanghai or out of Ningbo"); one place said that stands for several
    ("arriving in North America": either coast); None for one value said once."""
    spans = _by_span(group)
    if len(spans) == 2:
        first, second = spans
        if re.search(r"\bor\b", words.text[first[0].end:second[0].start], re.I) and first[0].value != second[0].value:
            return [_at_one_end(col, [*first, *second], _role(words, first[0]))]
        return _from_and_to(words, col, spans)
    if len(spans) == 1 and len(group) > 1:
        return [_at_one_end(col, group, _role(words, group[0]))]
    return None


def _by_span(group: list[Link]) -> list[list[Link]]:
    """The links grouped by where the question says them, in its order ("North America" is two regions at once)."""
    spans: dict[tuple[int, int], list[Link]] = {}
    for lk in sorted(group, key=lambda lk: lk.start):
        spans.setdefault((lk.start, lk.end), []).append(lk)
    return list(spans.values())


def _at_one_end(col: Column, links: list[Link], role: str | None) -> Filter:
    """One end of a voyage at the value (or any of the values) said."""
    values = list(dict.fromkeys(lk.value for lk in links))
    said = " or ".join(str(v) for v in values)
    where = f"{'from' if role == 'ORIGIN' else 'to'} {said}" if role else said
    return Filter(col, "=", values[0], where, role=role) if len(values) == 1 else Filter(col, "in", values, where, role=role)


# a value said as the other of two ways rows may be, the first said with a verb of its own ("have sailed or are ...")
_OTHER_WAY_BEFORE = re.compile(r"\b(?:have|has|had|were|was|are|is)\s+(?:already\s+)?[a-z]+(?:ed|en|t)\s+or\s+"
                               r"(?:are|is|were|was|will\s+be|have\s+been|has\s+been)?\s*$", re.I)


def _filters_of_links(words: _Words, table: str, col: Column, group: list[Link], target: str) -> list[Filter]:
    """The filters the values linked to one column say: two ports (from and to), the words of a
    text, several values (any of them), or one value."""
    if table == "PORTS" and target != "PORTS" and (ends := _voyage_ends(words, col, group)) is not None:
        return ends
    if group[0].how == "word":  # "frozen shrimp": every word in the text
        stems = list(dict.fromkeys(str(lk.value) for lk in group))
        said = f"whose {_label(col)} mentions {' and '.join(stems)}"
        return [Filter(col, "contains", f"%{v.upper()}%", said if i == 0 else "") for i, v in enumerate(stems)]
    values = list(dict.fromkeys(lk.value for lk in group))
    if len(values) > 1:
        return [Filter(col, "in", values, " or ".join(str(v) for v in values))]
    return _one_value(words, table, col, group[0], target)


def _one_value(words: _Words, table: str, col: Column, lk: Link, target: str) -> list[Filter]:
    """The filter of one value, however many times it is said ("UN3480 lithium-ion batteries"); none for a
    value said as one of two ways rows may be ("vessels that have sailed or are scheduled to sail")."""
    if table != "PORTS" and _OTHER_WAY_BEFORE.search(words.text[:lk.start]):
        return []
    role = _role(words, lk) if table == "PORTS" and target != "PORTS" else None
    return [Filter(col, "=", lk.value, _said(col, lk.value, role), role=role)]


# Words that exclude what follows them ("ships that don't fly the Panama flag", "carriers outside
# any alliance"); each must be applied to a filter or the question gets no plan: ignored, the
# answer would be the opposite of the question under a grounded badge.
NEGATION_RE = re.compile(r"\b(?:not|never|without|except|exclud(?:e|es|ing)|leav(?:e|ing) out|outside(?:\s+of)?|"
                         r"other\s+than|apart\s+from|besides|no(?!\.)|non)\b|n't\b", re.I)  # "IMO no." is a number


def _either_way(words: _Words, cue: re.Match[str]) -> bool:
    """"Whether they've left or not": both, nothing excluded; the "or not" (and "whether") taken."""
    if not (re.search(r"\bor\s+$", words.text[:cue.start()]) and re.match(r"\s*(?:[?.!,;)]|$)", words.text[cue.end():])):
        return False
    words.take(cue.start(), cue.end())
    for m in list(re.finditer(r"\bwhether\b", words.text[:cue.start()], re.I))[-1:]:
        words.take(m.start(), m.end())
    return True


def _unit_refused(words: _Words, cue: re.Match[str]) -> bool:
    """"In dollars, not cents": a unit refused beside the one asked for excludes no row; taken."""
    m = _UNITS_REFUSED.match(words.text, cue.end())
    if cue.group(0).lower() != "not" or m is None:
        return False
    words.take(cue.start(), m.end())
    return True


def _negations(words: _Words, schema: Schema, spec: Spec, links: list[Link], used: set[str]) -> None:
    """Negates the value filter a negation word governs (its next value, within four words), or
    filters the rows with no value in the column it names, when that column's comment says what an
    empty value means ("not in any alliance": ALLIANCE IS NULL)."""
    for cue in NEGATION_RE.finditer(words.text):
        if any(i in words.taken for i, (st, en, _) in enumerate(words.raw) if st < cue.end() and cue.start() < en):
            continue  # a qualifier already applied it ("leave out the independents")
        gap = words.text[cue.end():]
        if _either_way(words, cue) or _unit_refused(words, cue):
            continue
        negated = _filters_negated(words, spec, links, cue)
        if negated:
            f = negated[0]
            if f.column.table != spec.target and schema.is_parent_path(f.column.table, spec.target):
                # "ships with no reefer on board": no row below has the value, which is not "a row below
                # has another value"
                spec.filters[spec.filters.index(f)] = _none_with(schema, spec, f)
                used |= {c.ref for c in schema.columns[f.column.table]}  # the rows below are not shown
                words.take(cue.start(), cue.end())
                continue
            _negate(spec, f, _negated_link(words, links, cue), links, cue.start())
        elif (col := _emptied_column(gap, schema, spec)) is not None:
            spec.filters.append(Filter(col, "is null", None, f"with no {_label(col)}"))
        elif (none := _none_below(words, schema, spec, cue)) is not None:
            spec.filters.append(none)
            used |= _words_of_the_clause_taken(words, schema, cue)
        elif (itself := _the_row_above_itself(words, schema, spec, cue)) is not None:
            words.take(itself.start(), itself.end())  # "the cargo weight in box X without the box itself": the goods'
        else:
            raise NoPlan(f"it says '{cue.group(0).strip()}', and I cannot tell which value it excludes")
        words.take(cue.start(), cue.end())


# a row said as itself ("without the box itself"; "not on a ship" is no figure of the goods but a filter no row passes)
_ITSELF = re.compile(r"\s*(?:the\s+)?([a-z]+)\s+(?:itself|themselves)\b", re.I)


def _the_row_above_itself(words: _Words, schema: Schema, spec: Spec, cue: re.Match) -> re.Match[str] | None:
    """"How much cargo weight is in box X without the box itself?": what is left out is the row above the target's rows
    (the box the goods are in), which the goods' own figures never include: the words that say so, else None."""
    m = _ITSELF.match(words.text, cue.end())
    table = table_of_noun(m.group(1)) if m else None
    if m is None or table is None or table == spec.target or not schema.is_parent_path(spec.target, table):
        return None
    return m


def _none_with(schema: Schema, spec: Spec, f: Filter) -> Filter:
    """"Ships NOT on an active voyage": the target's rows that no row right below them (one foreign key
    away) has the value for; deeper, or with another comparison, no plan."""
    keys = [(t, c, r) for t, c, ref, r in schema.foreign_keys if ref == spec.target and t == f.column.table]
    hops = None if keys else _two_keys_down(schema, spec, f)
    if f.op != "=" or len(keys) > 1 or f.role is not None or not keys and hops is None:
        raise NoPlan(f"it asks for {noun(spec.target)} none of whose {noun(f.column.table)} are {f.said}, "
                     "which one query here cannot do")
    said = f"with no {noun(f.column.table, False)} {f.said}".replace(" with ", " ")
    if hops is not None:  # "carriers with no scheduled sailings": no ship of theirs has a voyage with that status
        (middle, col, ref_col), lower = hops
        key = next(c for c in schema.columns[spec.target] if c.name == ref_col)
        return Filter(key, "none", (middle, (col,), (), (*lower, ((f.column.name, f.value),))), said)
    table, col, ref_col = keys[0]
    key = next(c for c in schema.columns[spec.target] if c.name == ref_col)
    return Filter(key, "none", (table, (col,), ((f.column.name, f.value),)), said)


def _two_keys_down(schema: Schema, spec: Spec, f: Filter
                   ) -> tuple[tuple[str, str, str], tuple[str, str, str]] | None:
    """(middle table, its key to the target, the target's column it points at), (the filtered table, its key
    to the middle, the middle's column it points at): the one way down two foreign keys (CARRIERS <- VESSELS <-
    VOYAGES), or None."""
    ways = [((m, c, r), (f.column.table, c2, r2)) for m, c, ref, r in schema.foreign_keys if ref == spec.target
            for t2, c2, ref2, r2 in schema.foreign_keys if t2 == f.column.table and ref2 == m]
    return ways[0] if len(ways) == 1 else None


def _none_below(words: _Words, schema: Schema, spec: Spec, cue: re.Match) -> Filter | None:
    """"Ports no voyage ever ends at", "vessels without a position report", "ports with no departures":
    the target's rows that no row of one table below it points at, through the foreign keys the words
    after the negation name (by that table's noun, or by the end a key's comment says it is: a port of
    arrival or of departure; both when the words name both ends, or none)."""
    gap = _clause_after(words.text, cue.end())
    chosen = _keys_below(schema, spec.target, _tables_said(schema, gap), _ends_said(gap))
    if len({t for t, _ in chosen}) != 1:
        return None
    table = chosen[0][0]
    if any(f.column.table == table for f in spec.filters):
        raise NoPlan(f"it narrows the {noun(table)} it says there are none of, which one query here cannot do")
    ref_col = next(r for t, c, ref, r in schema.foreign_keys if (t, c, ref) == (table, chosen[0][1], spec.target))
    key = next(c for c in schema.columns[spec.target] if c.name == ref_col)
    one_end = {_end_of(schema, table, c) for _, c in chosen}
    end_said = next(iter(one_end)) if len(one_end) == 1 else None
    said = f"with no {noun(table, False)}" + {"arrival": " arriving", "departure": " leaving"}.get(end_said or "", "")
    return Filter(key, "none", (table, tuple(c for _, c in chosen)), said)


def _tables_said(schema: Schema, text: str) -> set[str]:
    """The tables a text names: by their nouns, or by the words of what the table is ("no AIS report")."""
    said = set(words_of(text))
    return {TABLE_NOUNS[w] for w in said if w in TABLE_NOUNS} | {
        table for table, comment in schema.table_comments.items()
        if said & (set(words_of(re.split(r"[.:]", comment, maxsplit=1)[0])) - set(TABLE_NOUNS) - _PLAIN - _QUESTION)}


def _ends_said(text: str) -> set[str]:
    """The ends of a trip a text names: arrival, departure, both ("goes to or comes from")."""
    if re.search(rf"\b(?:{_EITHER_END})", text, re.I):
        return {"arrival", "departure"}
    return {end for end, said in (("arrival", _ARRIVES), ("departure", _DEPARTS)) if re.search(rf"\b(?:{said})", text, re.I)}


def _keys_below(schema: Schema, target: str, tables: set[str], ends: set[str]) -> list[tuple[str, str]]:
    """(table, key) of the foreign keys from tables below the target that the words pick: by the
    table's name when no end is said, else by the end each key is."""
    out = []
    for table, col, ref, _ in schema.foreign_keys:
        if ref != target or table == target:
            continue
        end = _end_of(schema, table, col)
        if (table in tables and not ends) or (end is not None and (not ends or end in ends) and (table in tables or ends)):
            out.append((table, col))
    return out


def _words_of_the_clause_taken(words: _Words, schema: Schema, cue: re.Match) -> set[str]:
    """After a "no rows below" filter, the clause's words say how the rows below point here ("appear
    as a destination", "ever goes to or comes from"): taken, except a word that names a column of its
    own ("no ships flagged in their HQ country" is not the same question). Returns the columns the
    taken words seemed to name (a "departure" is an end here, not a date to show)."""
    end = cue.end() + len(_clause_after(words.text, cue.end()))
    ends = re.compile(rf"\b(?:{_ARRIVES}|{_DEPARTS})", re.I)
    seemed: set[str] = set()
    for i, (st, _end, _) in enumerate(words.raw):
        if not cue.end() <= st < end or i in words.taken:
            continue
        role = any(m.start() <= st < m.end() for m in ends.finditer(words.text))
        names = words.mapped[i] not in TABLE_NOUNS and any(
            score >= 1.5 for score, _ in schema.columns_named([words.mapped[i]], sorted(schema.columns)))
        if names and not role:
            continue
        words.taken.add(i)
        seemed |= {c.ref for cols in schema.columns.values() for c in cols if words.mapped[i] in c.words}
    return seemed


def _clause_after(text: str, at: int) -> str:
    """The words after a position up to the end of their clause ("..., and their carriers?" is another)."""
    return re.split(r"[?;]|\s[-–]\s|,?\s+and\b(?!\s+(?:to|from)\b)|,\s*(?=(?:what|which|who|whose|where|when|how)\b)",
                    text[at:], maxsplit=1)[0]


def _end_of(schema: Schema, table: str, column: str) -> str | None:
    """"arrival" or "departure" when a foreign key's comment says which end of a trip it is."""
    comment = next((c.comment for c in schema.columns.get(table, []) if c.name == column), "")
    first = set(words_of(re.split(r"[.(:;]", comment, maxsplit=1)[0]))
    return next((end for end in ("arrival", "departure") if end in first), None)


def _negate(spec: Spec, f: Filter, target: Link | None, links: list[Link], at: int) -> None:
    """The filter the negation governs, negated: the value it governs alone when the filter holds others too."""
    if not _one_of_several_negated(spec, f, target, links, at):
        f.op = "not" if f.op == "=" else "not in"
        f.said = f"not {f.said}".replace("not with ", "without ")


def _one_of_several_negated(spec: Spec, f: Filter, target: Link | None, links: list[Link], at: int) -> bool:
    """"At sea and not scheduled": of the values one filter holds (ACTIVE, SCHEDULED), the one the negation
    governs is excluded on its own, and the others, said before the negation, kept; False when the filter holds
    that value alone, or values said after the negation too ("not 20GP or 40GP": neither)."""
    if target is None or f.op != "in" or target.value not in f.value or len(f.value) < 2:
        return False
    kept = [v for v in f.value if v != target.value]
    if any(lk.value in kept and lk.start > at for lk in links):
        return False
    f.op, f.value = ("=", kept[0]) if len(kept) == 1 else ("in", kept)
    f.said = f"with {_label(f.column)} {' or '.join(map(str, kept))}"
    spec.filters.append(Filter(f.column, "not", target.value, f"not with {_label(f.column)} {target.value}"))
    return True


def _negated_link(words: _Words, links: list[Link], cue: re.Match) -> Link | None:
    """The value a negation word governs: the first within four words after it."""
    nearby = [lk for lk in links if lk.start >= cue.end() and len(words.text[cue.end():lk.start].split()) <= 4]
    return min(nearby, key=lambda lk: lk.start) if nearby else None


def _filters_negated(words: _Words, spec: Spec, links: list[Link], cue: re.Match) -> list[Filter]:
    """The value filters (equal or in, no port role) on the column of the value a negation word
    governs: the first value within four words after it."""
    target = _negated_link(words, links, cue)
    # (a country is linked to one country column and filtered on the one the words say: "a flag other than Denmark")
    return [f for f in spec.filters if target is not None and f.role is None and f.op in ("=", "in")
            and ((f.column.table, f.column.name) == (target.table, target.column)
                 or target.how == "country" and f.value == target.value)]


def _emptied_column(gap: str, schema: Schema, spec: Spec) -> Column | None:
    """The column right after a negation ("no alliance", "not in any alliance") when the comment of
    the column (the target's, or of the row above it) says what NULL means."""
    m = re.match(r"\s*(?:(?:in|on|part of|of|with|have|has|a|an|any|the|belong(?:s|ing)? to|member of)\s+){0,3}"
                 r"([a-z][a-z-]*)", gap, re.I)
    if not m:
        return None
    # the target's own column, or one of the row above it (a ship is in no alliance when its carrier is not)
    above = [t for t in _near(schema, spec.target, 1) if t == spec.target or schema.is_parent_path(spec.target, t)]
    named = schema.columns_named(words_of(m.group(1)), above)
    if not named or "NULL" not in named[0][1].comment:
        return None
    return named[0][1]


def _country_column(words: _Words, schema: Schema, target: str, link: Link) -> tuple[str, str]:
    """A country's ISO code sits in several columns: the one of the table the country word qualifies
    ("Taiwanese carriers"), the one the words point at (a flag, a head office), else the one nearest
    the target."""
    candidates = [c for table in _near(schema, target, 3) for c in schema.columns[table] if "3166" in c.comment]
    if not candidates:
        raise NoPlan("it names a country, but nothing it asks about has a country")
    qualified = _table_qualified(words.text[link.end:])
    if qualified is not None and any(c.table == qualified for c in candidates):
        candidates = [c for c in candidates if c.table == qualified]
    else:
        candidates = _country_pointed_at(words, candidates)
    return candidates[0].table, candidates[0].name


def _country_pointed_at(words: _Words, candidates: list[Column]) -> list[Column]:
    """The country columns the words point at (a flag, a head office), else all of them."""
    if _says_flag(words):
        return [c for c in candidates if c.name == "FLAG_STATE"] or candidates
    if words.has(r"head ?quarter\w*|hq|head office|based"):
        return [c for c in candidates if c.name == "HQ_COUNTRY"] or candidates
    return candidates


def _table_qualified(after: str) -> str | None:
    """The table of the noun a country word qualifies: the head of "shipping lines" (not the "shipping"
    before it), of "-based carriers"; None when the words after it name no table."""
    noun = re.match(r"[\s-]*(?:based\s+|owned\s+)?([a-z]+)(?:\s+([a-z]+))?", after, re.I)
    nouns = [TABLE_NOUNS.get(w[0]) for g in (noun.groups() if noun else ()) if g and (w := words_of(g))]
    return next((t for t in reversed(nouns) if t), None)


def _country_named(link: Link) -> str | None:
    """The country code a port link's words also name ("Singapore"), else None."""
    if (link.table, link.column) != ("PORTS", "PORT_NAME"):
        return None
    said = link.text.strip().lower()
    return next((code for code, names in countries.NAMES.items() if said in (n.lower() for n in names)), None)


def _says_flag(words: _Words) -> bool:
    return bool(re.search(r"(?<!\w)(?:flag\w*|fly\w*|registered|registry|under the)", words.text, re.I))


def _role(words: _Words, link: Link) -> str:
    """The end of a voyage a port is named at; "inbound" and "outbound" are explained by it."""
    role = _role_said(words, link)
    said = words.has("inbound") if role == "DESTINATION" else words.has("outbound") if role == "ORIGIN" else None
    if said is not None:
        words.take(said.start(), said.end())
    return role


def _role_said(words: _Words, link: Link) -> str:
    before = words.text[max(0, link.start - 30):link.start].lower()
    tail = " ".join(before.split()[-3:])
    # ("left Hamburg": "left" right before the port is a departure; elsewhere it may be what remains)
    if re.search(rf"\b(?:{ORIGIN_WORDS}|left)\s*(?:the\s+)?(?:port(?:\s+of)?\s*)?$", tail):
        return "ORIGIN"
    # "for" says little ("same question for Qingdao: how many voyages start there?"): a verb of the
    # question that says which end decides first
    weak = re.search(r"\bfor\s*(?:the\s+)?(?:port(?:\s+of)?\s*)?$", tail) and not re.search(r"\bbound for\s*$", tail)
    if not weak and re.search(rf"\b(?:{DESTINATION_WORDS})\s*(?:the\s+)?(?:port(?:\s+of)?\s*)?$", tail) or \
            re.search(r"\b(?:leav\w*|left|depart\w*|sail\w*)\s+(?:[\w-]+\s+){0,3}for\s*(?:the\s+)?(?:port(?:\s+of)?\s*)?$", before):
        # ("leave for Rotterdam", "left Piraeus for Shanghai": where they go)
        return "DESTINATION"
    said = [(m, role) for role, verbs in (("DESTINATION", _ARRIVING_VERBS), ("ORIGIN", _LEAVING_VERBS))
            for m in re.finditer(rf"(?<![\w-])(?:{verbs})(?![\w-])", words.text, re.I)]
    if said:
        # the verb nearest the port says its end ("how many start in Shanghai, and how many end there?": the
        # port is where they start; the other verb belongs to the other part)
        # ("leave for Rotterdam": after "for" the port is where they go, whichever verb is nearer)
        m, role = min(said, key=lambda s: (weak and s[1] != "DESTINATION", s[0].start() > link.start,
                                           abs(s[0].start() - link.start)))
        words.take(m.start(), m.end())  # the words say which end of the voyage the port is at
        return role
    return "DESTINATION" if weak else "EITHER"


def _said(col: Column, value: Any, role: str | None) -> str:
    label = _label(col)
    if role == "ORIGIN":
        return f"from {value}"
    if role == "DESTINATION":
        return f"to {value}"
    if role == "EITHER":
        return f"from or to {value}"
    if "3166" in col.comment:
        return f"with {label} {countries.name_of(value)} ({value})"
    if col.name.endswith("_NAME") or col.name in ("VOYAGE_NUMBER", "CONTAINER_NUMBER", "UNLOCODE", "SCAC_CODE"):
        return f"of {value}"
    return f"with {label} {value}"


def _label(col: Column) -> str:
    words = col.name.lower().split("_")
    if words[-1] in ("teu", "tonnes", "kg", "m", "knots", "c", "cents", "deg", "days") and len(words) > 1:
        words = words[:-1]
    return " ".join(words) if words != ["teu"] else "TEU"


def _numeric_for(words: _Words, schema: Schema, spec: Spec, named: list[Column], at: int, value: float,
                 op: str) -> Column:
    """The column a number is compared with: the one its unit or its words name, else the one named."""
    after = words.text[at:at + 40].lower()
    # ("running at +13.5": a number written with its sign is of a column whose values have one)
    signed = words.text[at:at + 1] == "+"
    unnamed = next((c for t in _tables_named(words, schema, spec)
                    if (c := _unnamed_numeric(schema.columns.get(t, []), -abs(value) if signed else value, op))), None)
    numeric = _named_numeric(named, unnamed)
    if re.search(r"\d\s*(?:teu)\b", after):  # a column in TEU: the one named, else one of the data's own
        unit_cols = [c for c in numeric if c.unit == "TEU"] or \
            [c for cols in schema.columns.values() for c in cols if c.unit == "TEU" and not c.sql]
        return unit_cols[0]
    if numeric:
        if numeric[0].ref in words.ambiguous:
            raise NoPlan(f"it compares a number with {' or '.join(sorted(words.ambiguous))}, and the words fit both")
        return numeric[0]
    return _unnamed_or_by_unit(words, schema, spec, after, unnamed)


def _unnamed_or_by_unit(words: _Words, schema: Schema, spec: Spec, after: str, unnamed: Column | None) -> Column:
    """No column named: the one column of the rows in the unit the number is said in ("set warmer than
    10 degrees"), else the one the number fits unnamed (a year, a set point below zero)."""
    if len(by_unit := _columns_of_unit(words, schema, spec, after)) == 1:
        return by_unit[0]
    if unnamed is None:
        raise NoPlan("it compares a number with a column it does not name")
    return unnamed


# the words a unit of a column's comment is written with after a number
_UNIT_SAID = {"°C": r"°\s*[cf]|degrees?|deg|celsius|fahrenheit|c", "degrees": r"°|degrees?|deg", "knots": r"knots?|kts|kn",
              "m": r"m|metres?|meters?", "tonnes": r"tonnes?|t", "kg": r"kg|kgs|kilos?", "days": r"days?"}


def _columns_of_unit(words: _Words, schema: Schema, spec: Spec, after: str) -> list[Column]:
    """The numeric columns of the rows asked about whose unit the word after the number says."""
    unit = re.match(r"\D*?-?\d[\d,.]*\s*([°a-z]+)", after, re.I)
    if unit is None:
        return []
    said = [u for u, pattern in _UNIT_SAID.items() if re.fullmatch(pattern, unit.group(1), re.I)]
    table = next(iter(_tables_named(words, schema, spec)), spec.target)
    found = [c for c in schema.columns.get(table, []) if c.unit in said and c.numeric]
    # ("the goods in the reefers set to 13.5 C": the one column in that unit of a table next to the rows)
    near = [c for t in _near(schema, spec.target, 1) for c in schema.columns.get(t, []) if c.unit in said and c.numeric]
    return found or (near if len(near) == 1 else [])


def _tables_named(words: _Words, schema: Schema, spec: Spec) -> list[str]:
    """The rows asked about first, then the other tables the question names, by their noun or by a word
    of one of their columns' names ("voyages with reefers set to -18": REEFER_TEMP_C of CONTAINERS)."""
    free = {w for _, w in words.free() if len(w) > 3}
    return list(dict.fromkeys([spec.target, *(TABLE_NOUNS[w] for w in free if w in TABLE_NOUNS),
                               *(t for t, cols in schema.columns.items() for c in cols
                                 if free & set(c.name.lower().split("_")))]))


def _named_numeric(named: list[Column], unnamed: Column | None) -> list[Column]:
    """The numeric columns named that a number may be compared with: for a negative number, only those
    that allow one ("the average VGM of the reefers at -18": the set point's, not the weight's)."""
    signed = unnamed is not None and _signed(unnamed)
    return [c for c in named if (c.numeric or c.is_date) and (_signed(c) or not signed)]


def _signed(col: Column) -> bool:
    """A column whose comment allows values below zero."""
    return re.search(r"\bnegative\b", col.comment, re.I) is not None


def _unnamed_numeric(columns: list[Column], value: float, op: str) -> Column | None:
    """The column of the rows asked about that a number fits without being named: the one whose comment
    allows a value below zero for a negative number ("set to -18", "below zero"), the year built for a year."""
    if value < 0 or (value == 0 and op in ("<", "<=")):
        signed = [c for c in columns if c.numeric and _signed(c)]
        if len(signed) == 1:
            return signed[0]
    if 1900 <= value <= 2100:
        return next((c for c in columns if "YEAR" in c.name), None)
    return None


def _counts_rows(words: _Words, at: int, named: list[Column]) -> bool:
    """A number compared with no column of its own, followed by the rows' noun ("3 or more ships",
    "at least 2 voyages"): it counts rows, so it can only keep groups by their size."""
    after = words.text[at:at + 40]
    if any(c.numeric for c in named) or not re.search(_A_COUNT, after, re.I):
        return False
    return bool(re.match(rf"\D*?{_A_COUNT}\s+(?:or\s+\w+\s+)?(?:{_NOUNS_ONE_OR_MORE})\b", after, re.I))


def _a_breakdown_by_something(words: _Words, spec: Spec) -> None:
    """"What's the cargo mix on voyage 1014?": a breakdown asks a count per something; one count of all the rows
    answers another question, and the words do not say per what."""
    if spec.action == "count" and spec.group is None and words.has(r"breakdown|distribution|mix|composition|make-?up") \
            and not words.has(r"how many|count|number of"):
        raise NoPlan("it asks for a breakdown without saying by what (a type, a size, a carrier ...)")


def _groups_of_the_count(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Which flag states have more than 3 ships?", "which carriers have at least 3 vessels?": the rows counted
    (the noun after the number) per value of the column, or per row of the table, the words after which name;
    the groups kept by their count."""
    if spec.having is None or spec.group is not None:
        return
    which = re.search(_WHICH_OR_ANY_HAS + rf"(?=.*?{_A_COUNT})", words.text, re.I)
    said = words_of(which.group(1)) if which else []
    if which is None or not said:
        return
    counted = re.search(rf"{_A_COUNT}\s+(?:or\s+(?:more|fewer|less)\s+)?([a-z]+)", words.text[which.end():], re.I)
    table = TABLE_NOUNS.get(stem(counted.group(1))) if counted else None
    if table is not None and table != spec.target and TABLE_NOUNS.get(stem(said[-1])) == spec.target \
            and schema.path(table, spec.target) is not None:
        spec.group, spec.target, spec.action = schema.name_column(spec.target), table, "group"
    elif (col := _column_of_head(schema, said, [spec.target]) or _column_of_head(schema, said, _near(schema, spec.target, 2))):
        spec.group, spec.action = col, "group"
    else:
        return
    words.take(which.start(1), which.end(1))


def reference_year(schema: Schema) -> int | None:
    """The year the data is stated as of ("Voyage state on 2025-06-02"), from the comments."""
    ref = reference_date(schema)
    return ref.year if ref is not None else None


def reference_date(schema: Schema) -> datetime.date | None:
    """The date the data is stated as of ("Voyage state on 2025-06-02"), from the comments."""
    return schema.stated


def _comparison_filters(words: _Words, schema: Schema, spec: Spec, named: list[Column], used: set[str]) -> None:
    for op, value, value2, at in _comparisons(words):
        if re.match(r"\D*[\d,.]+k?\s+years?\b", words.text[at:at + 40], re.I):
            _age_filter(words, schema, spec, op, value, at, used)
            continue
        if _counts_rows(words, at, named):
            spec.having = (op if op != "between" else ">=", value)  # "flags with 3 or more ships": a group's count
            continue
        col = _numeric_for(words, schema, spec, named, at, value, op)
        spec.filters.append(_compared_filter(words.text[at:at + 60], col, op, value, value2))
        used.add(col.ref)


def _compared_filter(text: str, col: Column, op: str, value: float, value2: float | None) -> Filter:
    """A number compared with a column: in the column's unit, a year of a date column as that year."""
    first = value
    value, value2, given = _in_column_unit(text, col, value, value2)
    given = f"{first:g} to {given}" if given and op == "between" else given
    if col.is_date and 1900 <= value <= 2100:
        lo, hi = datetime.date(int(value), 1, 1), datetime.date(int(value), 12, 31)
        when = "before" if op in ("<", "<=") else "after" if op in (">", ">=") else "in"
        return Filter(col, op, lo if op in ("<", ">=") else hi, f"with {_label(col)} {when} {int(value)}")
    said = (f"with {_label(col)} between {value:g} and {value2:g}" if op == "between"
            else f"{_OP_WORDS[op][1 if 'YEAR' in col.name else 0]} {value:g}"
            if "YEAR" in col.name else f"with {_label(col)} {_OP_WORDS[op][0]} {value:g}")
    if given:  # "over 60,000 lbs": the number in the column's unit, and as the question gave it
        said += f" {col.unit} ({given})"
    return Filter(col, op, value, said, value2=value2)


def _age_filter(words: _Words, schema: Schema, spec: Spec, op: str, value: float, at: int, used: set[str]) -> None:
    """"Older than 15 years", "over 15 years old": an age, as of the year the data is stated for,
    filters the year built."""
    year = reference_year(schema)
    built = next((c for c in schema.columns.get(spec.target, []) if "YEAR" in c.name), None)
    if year is None or built is None:
        raise NoPlan("it asks about an age, and the data says no year it is as of")
    if not re.match(r"older|newer|younger", words.text[at:], re.I):  # "over 15 years": more age, earlier year
        op = {">": "<", "<": ">", ">=": "<=", "<=": ">="}.get(op, op)
    spec.filters.append(Filter(built, op, year - value, f"built {'before' if op in ('<', '<=') else 'after'} "
                                                        f"{int(year - value)} (over {value:g} years as of {year})"))
    used.add(built.ref)


# A unit a number is written in: (dimension, size in the dimension's base unit); Fahrenheit also
# starts 32 degrees below Celsius.
_FAHRENHEIT = r"°\s?f|fahrenheit|degrees? f(?:ahrenheit)?|f"
_SAID_UNITS = [(r"tonnes?|tons?|t|mt", ("mass", 1000.0)), (r"kg|kgs|kilos?|kilograms?", ("mass", 1.0)),
               (r"lbs?|pounds?", ("mass", 0.45359237)),
               (r"dollars?|usd|\$", ("money", 100.0)), (r"cents?", ("money", 1.0)),
               (r"knots?|kn|kts", ("speed", 1.0)), (r"km/h|kph|kilometres per hour", ("speed", 1 / 1.852)),
               (r"m|metres?|meters?", ("length", 1.0)), (r"feet|ft", ("length", 0.3048)),
               (_FAHRENHEIT, ("temperature", 5 / 9)),
               (r"°\s?c|c|celsius|degrees?(?: c| celsius)?", ("temperature", 1.0)), (r"days?", ("time", 1.0))]
_COLUMN_UNITS = {"tonnes": ("mass", 1000.0), "kg": ("mass", 1.0), "cents": ("money", 1.0),
                 "knots": ("speed", 1.0), "m": ("length", 1.0), "°C": ("temperature", 1.0), "days": ("time", 1.0)}


def _in_column_unit(text: str, col: Column, value: float, value2: float | None) -> tuple[float, float | None, str]:
    """"A VGM over 27 tonnes" compared with a column in kilograms is 27,000: the number converted to
    the column's unit (its comment's), and the words it was given in when they are another unit ("" when
    not). A unit of another kind than the column's is no plan."""
    m = re.search(r"\$?\s*\d[\d,]*(?:\.\d+)?k?\s*(" + "|".join(p for p, _ in _SAID_UNITS) + r")(?![\w/])", text, re.I)
    dollar = re.search(r"\$\s*\d", text)
    said_unit = m.group(1) if m else ("$" if dollar else None)
    if said_unit is None or col.unit not in _COLUMN_UNITS:
        return value, value2, ""
    said = next(u for p, u in _SAID_UNITS if re.fullmatch(p, said_unit, re.I))
    kind, size = _COLUMN_UNITS[col.unit]
    if said[0] != kind:
        raise NoPlan(f"it gives a number in {said_unit}, and {col.ref} is in {col.unit}")
    factor = said[1] / size
    given = m.group(0).strip() if m and factor != 1 else ""
    zero = 32.0 if re.fullmatch(_FAHRENHEIT, said_unit, re.I) else 0.0
    return (round((value - zero) * factor, 6), (round((value2 - zero) * factor, 6) if value2 is not None else None),
            given)


def _year_filter(words: _Words, schema: Schema, spec: Spec, used: set[str]) -> None:
    """"Ships built in 2023": a year the question names, equal, on the target's year column (a date
    column takes the whole year); "in 2020 or later" is one end of a range."""
    for m in _YEAR_SAID.finditer(words.text):
        g = next(i for i in (1, 2, 3) if m.group(i))
        if m.start(g) in words.used_numbers:
            continue
        found = _year_of_target(words, schema.columns.get(spec.target, []), int(m.group(g)), _year_end(words, m.end(g)))
        if found is None:
            continue
        spec.filters.append(found)
        used.add(found.column.ref)
        words.used_numbers.add(m.start(g))


def _year_of_target(words: _Words, cols: list[Column], year: int, op: str) -> Filter | None:
    """The filter a year puts on the target: its year column, else the whole year of its date column
    (the arrival's when the question says arriving); None when it has neither."""
    col = next((c for c in cols if "YEAR" in c.name), None)
    if col is not None:
        said = f"{_label(col).replace('year ', '')} in {year}" + \
            ("" if op == "=" else f" or {'later' if op == '>=' else 'earlier'}")
        return Filter(col, op, year, said)
    dates = [c for c in cols if c.is_date and not c.name.endswith("_AT")]
    if not dates:
        return None
    col = next((c for c in dates if "ARRIVAL" in c.name), dates[0]) if words.has(r"arriv\w*|eta") else dates[0]
    return _whole_year(col, year, op)


# a year named: after in/of/from/during, right after "built", or before "or later" / "onwards" ("built 2021 or later")
_YEAR_SAID = re.compile(r"\b(?:in|of|from|during)\s+((?:19|20)\d{2})\b|(?<=\bbuilt\s)((?:19|20)\d{2})\b|"
                        r"\b((?:19|20)\d{2})(?=\s+(?:(?:or|and)\s+(?:later|after|newer|earlier|before|older|prior)|"
                        r"onwards?)\b)")


def _year_end(words: _Words, at: int) -> str:
    """"=" for a year alone; ">=" for "2020 or later", "from 2018 onwards"; "<=" for "or earlier" (taken)."""
    end = re.match(r"\s*(?:(?:or|and)\s+(?:(later|after|newer|since|onwards?|beyond|more recent)|"
                   r"(earlier|before|older|prior))|(onwards?))\b", words.text[at:], re.I)
    if end is None:
        return "="
    words.take(at + end.start(), at + end.end())
    return "<=" if end.group(2) else ">="


def _whole_year(col: Column, year: int, op: str) -> Filter:
    """A date column filtered by a year: the whole year, or from its first day, or up to its last."""
    first, last = datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    if op == "=":
        return Filter(col, "between", first, f"with {_label(col)} in {year}", value2=last)
    bound = first if op == ">=" else last
    return Filter(col, op, bound, f"with {_label(col)} {op} {bound.isoformat()}")


def _date_filter(words: _Words, schema: Schema, spec: Spec, named: list[Column]) -> None:
    found = _months(words)
    if not found:
        return
    lo, hi, said, at = found
    col = _date_column_of_month(words, schema, spec, named)
    verb = "arriving" if "ARRIVAL" in col.name else "departing"
    # "an ETA later than 1 July"; not "from 3 to 5 June", a range with both ends
    before = "" if said.startswith("between") else words.text[max(0, at - 30):at].lower()
    before = re.sub(r"\b[a-z]+day\.?,?\s*$", "", before)  # "by Wednesday 4 June": the word before the weekday
    if re.search(r"(?:\bon or after|\bnot before|\bon and after)\s*(?:the\s*)?$", before):
        _since(words, spec, col, lo, verb)  # "on or after 30 May": that day too
    elif re.search(r"(?:\bon or before|\bnot after)\s*(?:the\s*)?$", before):
        spec.filters.append(Filter(col, "<=", hi, f"{verb} on or before {hi.isoformat()}"))
    elif re.search(r"(?:after|later than)\s*(?:the\s*)?$", before):
        _since(words, spec, col, hi + datetime.timedelta(days=1), verb, after=hi)
    elif re.search(r"(?:since|from|starting)\s*(?:the\s*)?$", before):
        _since(words, spec, col, lo, verb)
    elif re.search(r"(?:\bby|until|till|no later than|at the latest)\s*(?:the\s*)?$", before):
        spec.filters.append(Filter(col, "<=", hi, f"{verb} on or before {hi.isoformat()}"))  # "by 4 June": that day too
    elif re.search(r"(?:before|earlier than|prior to)\s*(?:the\s*)?$", before):
        spec.filters.append(Filter(col, "<", lo, f"{verb} before {lo.isoformat()}"))
    else:
        spec.filters.append(Filter(col, "between", lo, f"{verb} {said}", value2=hi))


# a verb in the past of the event a date column records: what happened by the day the data is stated as of
_HAPPENED = {"DEPARTURE": r"departed|left|sailed", "ARRIVAL": r"arrived|docked|reached|came in|got in|finished|ended|completed"}


def _since(words: _Words, spec: Spec, col: Column, lo: datetime.date, verb: str, *,
           after: datetime.date | None = None) -> None:
    """"Since 26 May" counts 26 May; "how many voyages departed since 26 May" counts those up to the day the data
    is stated as of (a planned departure has not happened), as does "since 26 May so far". `after`: the day said
    in "left after 30 May", whose next day `lo` is."""
    event = next((e for e in _HAPPENED if col.name.startswith(e)), None)
    happened = words.has(_HAPPENED[event]) if event else None
    end = words.has(r"so far|to date|up to (?:today|now)|until (?:today|now)")
    if words.today is not None and words.today >= lo and (happened or end):
        if end is not None:
            words.take(end.start(), end.end())
        done = verb.replace("ing", "ed")  # "departing" -> "departed"
        spec.filters.append(Filter(col, "between", lo, f"{done} between {lo.isoformat()} and {words.today.isoformat()}",
                                   value2=words.today))
        return
    spec.filters.append(Filter(col, ">", after, f"{verb} after {after.isoformat()}") if after is not None
                        else Filter(col, ">=", lo, f"{verb} on or after {lo.isoformat()}"))


def _named_of_the_target(words: _Words, schema: Schema, spec: Spec) -> list[Column]:
    """The columns the words name, each measure of rows below read as the target's own of its kind."""
    return list(dict.fromkeys(_own_of_the_kind(schema, spec, c) or c for c in _columns_the_words_name(words, schema, spec)))


def _own_of_the_kind(schema: Schema, spec: Spec, col: Column | None) -> Column | None:
    """"Which vessel can carry the most weight?": a measure of rows below the target (a box's weight) named
    by a word the target's own column of the same kind answers (the ship's deadweight) is that column."""
    if col is None or col.table == spec.target or schema.is_parent_path(spec.target, col.table) \
            or col.unit not in _COLUMN_UNITS:
        return col
    kind = _COLUMN_UNITS[col.unit][0]
    own = [c for c in schema.columns.get(spec.target, []) if c.unit in _COLUMN_UNITS and _COLUMN_UNITS[c.unit][0] == kind]
    own = [c for c in own if c.name == col.name] or own  # (a box's gross weight, of its two weights)
    return own[0] if len(own) == 1 else col


def _date_column_of_month(words: _Words, schema: Schema, spec: Spec, named: list[Column]) -> Column:
    """The date column a month filters: a named date column, else one of the tables near the
    target; the arrival date when the words say arriving, else the departure date."""
    dates = [c for c in named if c.is_date] or _dates_near(schema, spec.target)
    col: Column | None
    # "due in" arrives; "due to sail" leaves
    if words.has(rf"{_ARRIVING_DAY}|finish\w*|complet\w*|end(?:s|ed)?") and any(c.name == "ARRIVAL_DATE" for c in dates):
        col = next(c for c in dates if c.name == "ARRIVAL_DATE")
        # ("voyages that finished in May": a voyage ends when it arrives; "coming into X in June": it arrives)
        if (ended := words.has(r"finish\w*|complet\w*|end(?:s|ed)?|(?:c[oa]me|comes|coming|pull\w*) (?:in|into)")) is not None:
            words.take(ended.start(), ended.end())
    else:
        col = next((c for c in dates if "DEPARTURE" in c.name), dates[0] if dates else None)
    if col is None:
        raise NoPlan("it names a month but the data it asks about has no date")
    return col


def _dates_near(schema: Schema, target: str) -> list[Column]:
    """The date columns (not the *_AT timestamps) of the tables within two links of the target."""
    return [c for t in _near(schema, target, 2) for c in schema.columns[t] if c.is_date and not c.name.endswith("_AT")]


def _action(words: _Words, schema: Schema, spec: Spec, named: list[Column], used: set[str]) -> None:
    measure = next((c for c in named if (c.numeric or c.is_date) and c.ref not in used), None)
    if spec.action == "group_top":
        return
    group = _group(words, schema, spec) or _versus_group(words, spec)
    if group is not None:
        _group_action(words, spec, group, measure, used)
        return
    if words.has(COUNT_WORDS):
        spec.action = "count"
        _count_of_packages(words, schema, spec)
        _count_of_values(words, spec, named, used)
        return
    _measured_action(words, schema, spec, measure, used)


_VERB_MEAN = r"(?:does|do|did)\b.*\bmean"  # "what does PX mean": the verb, not the average


def _aggregate_asked(words: _Words) -> str | None:
    """The aggregate the words ask for; "what does PX mean" asks a meaning, not an average."""
    verb_mean = words.has(_VERB_MEAN + r"|(?:i|you|we)\s+mean")  # ("deadweight I mean": a clarification)
    return next((fn for w, fn in AGGREGATES.items() if words.has(w) and not (w == "mean" and verb_mean)), None)


# "its next sailing", "where's she sailing to next": the first voyage to leave after the data's date
# ("which vessel leaves Santos next", "the next ship to leave Santos": the leaving verb, a few words from "next")
_NEXT = (r"next\s+(?:[\w'-]+\s+){0,3}?(?:sailing|voyage|departure|trip|run)s?|next\s+(?:sail|leave|depart)s?\b|"
         r"(?:sail\w*|go(?:es|ing)?|head\w*)\s+(?:to\s+)?next|"
         r"(?:leav\w*|depart\w*|sail\w*)\s+(?:[\w'-]+\s+){1,3}?next\b|next\s+(?:[\w'-]+\s+){0,2}?to\s+(?:leave|sail|depart)\b")


_ARRIVING = r"(?:due|arriv\w*|com(?:es|ing)\s+in|call\w*|dock\w*)"
# "which ship is due in Busan next", "which vessel is next scheduled to arrive": the first arrival after the
# data's date, "next" on either side of the arriving verb
_NEXT_IN = rf"{_ARRIVING}\s+(?:[\w']+\s+){{0,3}}?next\b|\bnext\s+(?:[\w']+\s+){{0,2}}?{_ARRIVING}"


# "which leaves first", "which one reaches (or reached) its destination first": the earliest by that date
_FIRST_THERE = (r"(?:(leav\w*|left|depart\w*|sail\w*)|arriv\w*|reach\w*|land\w*|dock\w*|gets? (?:there|in))"
                r"[^,;?.]{0,40}?\b(first)\b(?=\s*(?:[,;?.!]|$|and\b|or\b|then\b))")  # (not "the first week")


def _measured_action(words: _Words, schema: Schema, spec: Spec, measure: Column | None, used: set[str]) -> None:
    """No group and no count: an aggregate of the measure, the rows first by a superlative, or the
    rows (one named row is a lookup)."""
    fn = _aggregate_asked(words)
    sups = _superlatives_said(words)
    if fn and measure is not None:
        _aggregate(words, schema, spec, fn, measure, sups)
        used.add(measure.ref)
        return
    sup = next((x for x in sups if x[1]), sups[0] if sups else None)
    if sup is not None:
        _top_action(words, schema, spec, sup, measure, fn, used)
        return
    if fn == "SUM" and measure is None:  # "total cartons of frozen shrimp": the packages counted
        _count_of_packages(words, schema, spec)
        if spec.action == "aggregate":
            return
    _list_action(words, spec, fn, measure)


def _superlatives_said(words: _Words) -> list[tuple[str, str | None, str]]:
    """(word, concept, direction) of each superlative said ("45 min" is minutes), "next" and "first" of an
    event first ("which one reaches its destination first", "which ship is due in next"); their words taken."""
    # ("at least 3 vessels", "at most 2 voyages" compare a number; no row is the least)
    sups = [(w, *SUPERLATIVES[w]) for start, _, w in words.raw if w in SUPERLATIVES
            and (w != "min" or _MIN_WORD.match(words.text, start))
            and not (w in ("least", "most") and re.search(r"\bat\s+$", words.text[:start], re.I))]
    if (first := words.has(_FIRST_THERE)) is not None:
        sups.insert(0, ("first", "departure" if first.group(1) else "arrival", "ASC"))
        words.take(first.start(2), first.end(2))
    if (nxt := words.has(_NEXT_IN) or words.has(_NEXT)) is not None:  # ("the next voyage due into X": its arrival)
        sups.insert(0, ("next", "arrival" if re.match(_NEXT_IN, nxt.group(0), re.I) else "departure", "ASC"))
        at = nxt.start() + nxt.group(0).lower().rindex("next")
        words.take(at, at + len("next"))
    return sups


def _list_action(words: _Words, spec: Spec, fn: str | None, measure: Column | None) -> None:
    """The rows, with the measure shown when the words ask nothing else; a lookup when the filters
    name one row."""
    if fn and measure is None and not words.has(_HOW_MANY_UNITS):  # the unit names the column summed
        raise NoPlan(f"the {fn.lower()} of what: it names no column")
    if measure is not None and not spec.filters and not words.has(r"which|list|show|what are|name"):
        spec.show.append(measure)
    spec.action = "lookup" if _names_one_row(spec) else "list"


_DIFFERENT = r"\b(?:distinct|different|unique|separate|kinds? of|variet\w*)\b"


def _count_of_values(words: _Words, spec: Spec, named: list[Column], used: set[str]) -> None:
    """"How many different flags does the fleet fly?": the distinct values of the column named best,
    counted and shown, not the rows."""
    if not words.has(_DIFFERENT):
        return
    values = [c for c in named if c.table == spec.target and not c.is_key and c.ref not in used]
    if values:  # the column the words name best ("package types": PACKAGE_TYPE before QUANTITY)
        spec.action, spec.measure = "distinct", values[0]
        used.add(values[0].ref)


def _ports_of_voyages(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Which ports do voyages leave from?", "how many ports do sailings arrive at?": the ports at the
    end of a voyage the words say (no end said: no plan), each once, not every port."""
    if spec.target != "PORTS" or spec.action not in ("list", "count") or "VOYAGES" not in schema.columns \
            or any(f.column.table == "VOYAGES" for f in spec.filters):
        return
    said = [i for i, w in words.free() if TABLE_NOUNS.get(w) == "VOYAGES"]
    if not said:
        return
    role = _voyage_end(words)
    key = schema.columns["VOYAGES"][0]
    verb = "voyages leave from" if role == "ORIGIN" else "voyages arrive at"
    spec.target_role = role
    spec.filters.append(Filter(key, "is not null", None, f"that {verb}"))
    spec.show = [c for c in spec.show if c.table != "VOYAGES"]
    words.taken.update(said)


def _group_action(words: _Words, spec: Spec, group: Column, measure: Column | None, used: set[str]) -> None:
    """Rows per group: an aggregate of the measure, the group with the most or fewest rows, or a
    count per group."""
    spec.group, spec.action = group, "group"
    used.add(group.ref)
    spec.fn = _aggregate_asked(words)
    if spec.fn and measure is not None:
        spec.measure = measure
    elif words.has("most|fewest|least|highest|lowest") and not words.has("per|each|every"):
        # (with "per region" it asks every group's figure: the ordered list says which is most too)
        spec.n = 1
        spec.direction = "ASC" if words.has("fewest|least|lowest") else "DESC"
        spec.action = "group_top"


def _ordered_by_concept(words: _Words, schema: Schema, spec: Spec, word: str, concept: str) -> Column | None:
    """The column a superlative's concept names; another table's only when it is the target's own (one row
    each), named after the word, or the voyage a row is on for "first" ("which box arrives first")."""
    own = [c for c in schema.columns.get(spec.target, []) if c.is_date]
    if word in _OF_TIME and len(own) == 1 and (_names_one_row(spec, of_target=False) or word in _OF_AGE):
        # "when did Manulani last report its position?", "which ship's position is the stalest?": the rows' one
        # time, not a voyage's departure
        return own[0]
    col = _column_of_concept(schema, spec, concept)
    if col is not None and _rows_below_ordered(schema, spec, word, col):
        return col
    if col is not None and col.table != spec.target and not _extends(schema, spec.target, col.table) \
            and not _another_noun_after(words, word, spec.target) \
            and not (word == "first" and schema.is_parent_path(spec.target, col.table)):
        # "which voyage is the longest?": a length of its ship would answer another question
        raise NoPlan(f"'{word}' {noun(spec.target, plural=False)}: the data holds no {concept} of a "
                     f"{noun(spec.target, plural=False)}, only of the rows linked to it")
    return col


def _one_date_of_rows_named(words: _Words, schema: Schema, spec: Spec) -> Column | None:
    """"Which ship sent the latest position": the one date of the one other table the words name by its
    noun (when the positions were reported), not a voyage's departure."""
    named = {t for _, _, w in words.raw if (t := table_of_noun(w)) is not None and t != spec.target}
    dated = [own for table in sorted(named) if (own := [c for c in schema.columns.get(table, []) if c.is_date])]
    one = len(dated) == 1 and len(dated[0]) == 1 and schema.path(spec.target, dated[0][0].table)
    return dated[0][0] if one else None


def _time_of_the_noun_qualified(words: _Words, schema: Schema, spec: Spec, word: str) -> Column | None:
    """"Which ship's position report is the oldest?", "the newest AIS position": "oldest" said of another
    table's rows than the target's (right after it, or as what that noun is) is their one time, not a year built."""
    after = re.search(rf"\b{word}\s+((?:[\w-]+\s+){{0,2}}[\w-]+)", words.text, re.I)
    before = re.search(rf"((?:[\w'-]+\s+){{1,3}})(?:is|was|are|were)\s+(?:the\s+)?{word}\b", words.text, re.I)
    said = (after.group(1) if after else "") + " " + (before.group(1) if before else "")
    tables = {t for w in re.findall(r"[a-z]+", said.lower()) if (t := table_of_noun(w)) not in (None, spec.target)}
    dated = [c for t in sorted(tables) for c in schema.columns.get(t, []) if c.is_date]
    return dated[0] if len(dated) == 1 and schema.path(spec.target, dated[0].table) else None


def _rows_below_ordered(schema: Schema, spec: Spec, word: str, col: Column) -> bool:
    """"Which ship is due in Busan next?": the first or next row below the target by its date (the next
    voyage there) is answered, the target's name beside it; whether the target became those rows."""
    if word not in ("first", "next") or spec.action not in ("list", "lookup") or spec.show \
            or col.table == spec.target or not schema.is_parent_path(col.table, spec.target):
        return False
    spec.show, spec.target = [schema.name_column(spec.target)], col.table
    return True


def _top_action(words: _Words, schema: Schema, spec: Spec, sup: tuple[str, str | None, str], measure: Column | None,
                fn: str | None, used: set[str]) -> None:
    """The rows first by the column a superlative orders ("the largest ships": by capacity), as
    many as the words say."""
    word, concept, direction = sup
    named_time = _one_date_of_rows_named(words, schema, spec) if word in _OF_TIME else \
        _time_of_the_noun_qualified(words, schema, spec, word) if concept == "built" else None
    col, measure = _ordered_by(words, schema, spec, sup, measure, named_time)
    if named_time is not None and col == named_time and concept:
        measure = _not_the_concepts(schema, spec, concept, measure, used)
    _rows_below_ordered(schema, spec, word, col)  # "which ship is next due at X": by the voyage's arrival named
    spec.action, spec.measure, spec.direction = "top", col, direction
    _after_the_data_date(schema, spec, word, col)
    spec.superlative = word if concept and (measure is None or concept in col.words or col == named_time) else ""
    if "YEAR" in col.name and word in ("oldest", "newest", "youngest"):
        spec.direction = "ASC" if word == "oldest" else "DESC"
    spec.n = 1 if word == "first" else _top_count(words, word)  # "which ... arrives first": one
    used.add(col.ref)
    _per_row_of_target(words, schema, spec, fn)


def _not_the_concepts(schema: Schema, spec: Spec, concept: str, measure: Column | None, used: set[str]) -> Column | None:
    """"The oldest position report": the word is said of the report's time, so the columns of its concept (a year
    built) are neither shown nor measured; the measure left."""
    meant = {c.ref for cols in schema.columns.values() for c in cols if concept in schema.name_words(c) | c.words}
    spec.show = [c for c in spec.show if c.ref not in meant]
    used |= meant
    return None if measure is not None and measure.ref in meant else measure


def _ordered_by(words: _Words, schema: Schema, spec: Spec, sup: tuple[str, str | None, str], measure: Column | None,
                named_time: Column | None) -> tuple[Column, Column | None]:
    """(the column a superlative orders by, the measure left): the one date of the rows named, what the measure is
    worked out from, the time of a figure said "last" (then no measure), or the column of its concept."""
    word, concept, _ = sup
    col = named_time or _worked_out_of(schema, spec, concept, measure, words.text)
    if (when := _time_of_the_figure(schema, word, measure, words.text)) is not None:
        # "the last speed reported by the Ever Acme": the speed of the latest report, not the highest speed
        spec.show += [measure] if measure is not None and measure not in spec.show else []
        col, measure = when, None
    if col is None and concept:
        col = _ordered_by_concept(words, schema, spec, word, concept)
    if col is None:
        raise NoPlan(f"'{word}' of what: it names no column to order by")
    return col, measure


_OF_TIME = ("last", "latest", "earliest", "stalest", "freshest")
_OF_AGE = ("stalest", "freshest")  # said only of how old a record is
_OTHER_SUPERLATIVE = re.compile(rf"\b(?:{'|'.join(re.escape(w) for w in SUPERLATIVES if w not in _OF_TIME)})\b", re.I)


def _time_of_the_figure(schema: Schema, word: str, measure: Column | None, text: str) -> Column | None:
    """The one date of the rows a figure is of, when "last", "latest" or "earliest" is said of a figure that
    is not a date (a speed, a position): the figure's rows are ordered by when, not by the figure; not when
    another superlative orders them ("the highest speed per the latest AIS")."""
    if word not in _OF_TIME or measure is None or measure.is_date or _OTHER_SUPERLATIVE.search(text):
        return None
    dated = [c for c in schema.columns[measure.table] if c.is_date]
    return dated[0] if len(dated) == 1 else None


def _after_the_data_date(schema: Schema, spec: Spec, word: str, col: Column) -> None:
    """"The next sailing": only the rows after the date the data is stated as of."""
    if word == "next" and col.is_date and (ref := reference_date(schema)) is not None:
        spec.filters.append(Filter(col, ">", ref, f"after {ref.isoformat()}"))


def _worked_out_of(schema: Schema, spec: Spec, concept: str | None, measure: Column | None,
                   text: str = "") -> Column | None:
    """"The longest voyage, departure to arrival": the dates named are what the superlative's own
    measure is worked out from, and it orders by that; else the measure named."""
    if measure is None or not concept:
        return measure
    own = _column_of_concept(schema, spec, concept)
    if own is not None and not own.is_date and measure.is_date and re.search(rf"\b(?:{'|'.join(_OF_TIME)})\b", text, re.I):
        return own  # "the fastest ship going by the last reports": the time says which reports, the speed orders
    # ("which arrives first, and on what date?": "date" alone names a date; the superlative says which one,
    # unless the words name the measure's own ("the first departure date"))
    said_alone = own is not None and own.is_date and measure.is_date and not any(
        re.search(rf"\b{re.escape(part[:5])}", text, re.I) for part in measure.name.lower().split("_") if part != "date")
    return own if own is not None and (measure.ref in own.parts or said_alone) else measure


def _extends(schema: Schema, target: str, table: str) -> bool:
    """A table whose rows are one per row of the target, keyed by it (a ship's latest position report:
    "also the primary key"): what it holds is the target's own."""
    path = schema.path(target, table) or []
    return bool(path) and all((b, bc, a, ac) in schema.foreign_keys and
                              any(c.name == bc and "primary key" in c.comment.lower() for c in schema.columns[b])
                              for a, ac, b, bc in path)


def _another_noun_after(words: _Words, word: str, target: str) -> bool:
    """"The voyage of the biggest ship": the superlative is said of another table's rows, not the target's."""
    after = re.search(rf"\b{word}\s+((?:\w+\s+){{0,2}}\w+)", words.text, re.I)
    return after is not None and any(TABLE_NOUNS.get(w) not in (None, target) for w in words_of(after.group(1)))


def _column_of_concept(schema: Schema, spec: Spec, concept: str) -> Column | None:
    """The numeric or date column a superlative's concept names: in the target, strictly then
    loosely, else in a table near it."""
    wanted = CONCEPT_WORDS.get(concept, [concept])
    return next((c for tables, loose in (([spec.target], False), ([spec.target], True),
                                         (_near(schema, spec.target, 2), False))
                 for score, c in schema.columns_named(wanted, tables, loose=loose, worked_out=True)
                 if c.numeric or c.is_date), None)


def _top_count(words: _Words, word: str) -> int:
    """How many rows a superlative asks for ("top 3", "the three largest"): 5 for a plural noun
    said with no number, else 1; between 1 and 20."""
    count = r"\d+|" + "|".join(_NUMBER_WORDS)
    n = re.search(rf"\b(?:top|first)\s+({count})\b|\b({count})\s+(?:\w+\s+)?{word}\b|\b{word}\s+({count})\b"
                  rf"|\b({count})\s+(?:[a-z]+\s+)?(?:{_NOUN_WORDS})", words.text, re.I)
    plural = any(w.endswith("s") and words_of(w)[0] in TABLE_NOUNS for _, _, w in words.raw)
    if n:
        words.used_numbers.add(next(n.start(i) for i in range(1, 5) if n.group(i)))
    found = _count_of(next(g for g in n.groups() if g)) if n else (5 if plural and not words.has(r"the\s+\w+est\s+\w+\b(?!s)") else 1)
    return max(1, min(found, 20))


def _port_group_role(words: _Words, schema: Schema, spec: Spec) -> None:
    """Ports reached from a voyage are its origin or its destination: the words must say which,
    for ports counted per group and for ports listed through their voyages ("from which ports do
    the Evergreen ships depart")."""
    if spec.target == "PORTS":
        through = {t for c in _plan_columns(spec) for a, _, t, _ in schema.path("PORTS", c.table) or []
                   if (a, t) == ("PORTS", "VOYAGES")}
        if through:
            spec.target_role = _voyage_end(words, either=True)
            spec.end_said = {"ORIGIN": "(where its voyages leave from)", "DESTINATION": "(where its voyages arrive)",
                             "EITHER": "(where its voyages leave from or arrive)"}[spec.target_role]
        return
    if spec.group is None or spec.group.table != "PORTS":
        return
    path = schema.path(spec.target, "PORTS") or []
    if any((a, b) == ("VOYAGES", "PORTS") for a, _, b, _ in path):
        spec.group_role = _end_said_of_group(spec) or _voyage_end(words)


def _end_said_of_group(spec: Spec) -> str | None:
    """The one end the ports compared were said at ("more voyages to Rotterdam or to Hamburg"), or None."""
    said = {f.role for f in spec.filters if f.column == spec.group and f.role in ("ORIGIN", "DESTINATION")}
    return said.pop() if len(said) == 1 else None


# Both ends of a voyage at once: "the ports it sailed from or to", "visited", "in and out of".
# the trade's names for a voyage's ends: the port of loading (POL) and of discharge (POD)
_DISCHARGE = r"discharg\w*|pod|unload\w*"
_LOADING = r"port of loading|loading port|pol|load port"


_EITHER_END = r"from\s+(?:or|and|&|/)\s+to|to\s+(?:or|and|&|/)\s+from|in\s+(?:or|and)\s+out|visit\w*|been to|touch\w*"
# ("end there": a voyage's last port; "the end of June" is a day)
_ENDS_AT = r"end(?:s|ed|ing)?(?! of\b)|finish\w* (?:in|at)|terminat\w*|(?:sail\w*|go(?:es)?|travel\w*) to"
# the verbs that say which end of a voyage a port is at
# (an ETA is when a voyage arrives, an ETD when it leaves: "the ETA of the Ever Acme in Tanger Med")
_ARRIVING_VERBS = r"arriv\w*|bound|destination|inbound|heading|going to|due (?:in|at)|land(?:s|ing|ed)?|eta|" + _ENDS_AT
_LEAVING_VERBS = r"depart\w*|leav\w*|origin|outbound|start\w*|begin\w*|etd"


_ARRIVES = (r"arriv\w*|destination|receiv\w*|inbound|bound for|calls? at|into|head\w* (?:to|for)|going to|"
            r"land(?:s|ing|ed)?|" + _ENDS_AT + "|" + _DISCHARGE)
_DEPARTS = r"depart\w*|origin|leav\w*|outbound|from|start\w*|sail\w* from|" + _LOADING


def _ends_asked(words: _Words) -> list[str]:
    """The ends of a voyage the words ask a port at outright: "from which port" (ORIGIN), "to which port",
    "which port does it go to" (DESTINATION), or both."""
    return [role for role, asked in (("ORIGIN", _FROM_WHICH_PORT), ("DESTINATION", _TO_WHICH_PORT)) if words.has(asked)]


def _voyage_end(words: _Words, *, either: bool = False) -> str:
    """The end of a voyage the words say a port is at ("to which port" before any verb: "when does it
    leave, and to which port?"); EITHER (when allowed) for both."""
    if either and words.has(_EITHER_END):
        return "EITHER"
    if len(asked := _ends_asked(words)) == 1:
        return asked[0]
    if words.has(_ARRIVES):
        return "DESTINATION"
    if words.has(_DEPARTS):
        return "ORIGIN"
    raise NoPlan("it does not say whether a voyage's port of departure or of arrival counts")


def _count_of_packages(words: _Words, schema: Schema, spec: Spec) -> None:
    """"How many pallets of tiles": when what is counted is a kind of unit (PACKAGE_TYPE), not rows,
    and a column of the same rows says it is the "Number of" those units, the count is its sum."""
    asked = re.search(r"(?:how many|total|number of)\s+((?:\S+\s+){0,2}\S+)", words.text, re.I)
    if asked is None or any(words_of(w) and words_of(w)[0] in TABLE_NOUNS for w in asked.group(1).split()):
        return  # "how many cargo lines are cartons" counts rows
    for f in spec.filters:
        counter = next((c for c in schema.columns.get(f.column.table, []) if c.numeric
                        and re.match(r"number of", c.comment, re.I) and f.column.name in c.comment), None)
        if counter is not None and f.column.table == spec.target:
            spec.action, spec.fn, spec.measure = "aggregate", "SUM", counter
            return


def _aggregate(words: _Words, schema: Schema, spec: Spec, fn: str, measure: Column,
               sups: list[tuple[str, str | None, str]]) -> None:
    """An average or a total; "which carrier ... the oldest ships on average" ranks it per carrier."""
    spec.action, spec.fn, spec.measure = "aggregate", fn, measure
    if sups:  # a total with a superlative ranks ("the three lines with the biggest combined TEU")
        spec.direction = next((d for _, c, d in sups if c), sups[0][2])
        if "YEAR" in measure.name and any(w in ("oldest", "newest", "youngest") for w, _, _ in sups):
            spec.direction = "ASC" if any(w == "oldest" for w, _, _ in sups) else "DESC"
        _per_row_of_target(words, schema, spec, fn)


def _per_row_of_target(words: _Words, schema: Schema, spec: Spec, fn: str | None) -> None:
    """"Which carrier operates the oldest ships on average", "which voyage has the heaviest total
    cargo": the measure sits on rows below the target, so it is aggregated per target row (AVG for
    an average, SUM otherwise) and the best of those kept."""
    col = spec.measure
    if col is None or col.table == spec.target or schema.is_parent_path(spec.target, col.table) or \
            (col.is_date and spec.superlative):
        return  # ("the next sailing ... from which port": a date ordered by its own word is no figure to add up)
    spec.group = schema.name_column(spec.target)
    spec.target, spec.action = col.table, "group_top"
    spec.fn = "AVG" if fn == "AVG" or words.has(r"on average|average|mean") else "SUM"
    if col.is_date:  # "the ports with the most departures": the rows with such a date, counted per port
        spec.fn, spec.measure = None, None
    spec.superlative = ""
    count = r"\d+|" + "|".join(_NUMBER_WORDS)
    n = re.search(rf"\b(?:top|first)\s+({count})\b|\b({count})\s+(?:[a-z]+\s+)?(?:{_NOUN_WORDS})\b", words.text, re.I)
    if n:  # "which two carriers have the most total TEU": the two best groups
        words.used_numbers.add(n.start(1) if n.group(1) else n.start(2))
        spec.n = max(1, min(_count_of(n.group(1) or n.group(2)), 20))


def _names_one_row(spec: Spec, *, of_target: bool = True) -> bool:
    """A filter names one row by its key, name or code (of the target's table; with `of_target` False, of any)."""
    return any(f.op == "=" and (f.column.table == spec.target or not of_target) and (f.column.is_key or
               (f.column.name.endswith("_NAME") or f.column.name in _CODES)) for f in spec.filters)


def _names_its_rows(spec: Spec) -> bool:
    """A filter names the target's own rows by their code or key ("box X", "boxes X and Y"), not through
    a table above them (the cargo of a ship)."""
    return any(f.op in ("=", "in") and f.column.table == spec.target and (f.column.is_key or f.column.name in _CODES)
               for f in spec.filters)


_CODES = frozenset(column for _, column in CODE_COLUMNS)  # the columns a row is named by its code in
_SMALL_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|\d+)"


def _group_phrase(words: _Words) -> re.Match[str] | None:
    """The words after "per", "each", "by" (when counting) that name the groups; None when there are
    none, or they read as a rate ("value per carton for the laptop lines"; "per type for me" is a group)."""
    counting = words.has(COUNT_WORDS) or any(words.has(w) for w in AGGREGATES)
    # "voyages by status": rows said right before "by" are split into groups, counted or not
    # ("list voyages by departure date", "the 3 heaviest boxes by VGM" are orders)
    rows_by = not words.has(r"list\w*|show\w*|sort\w*|order\w*|rank\w*|\w+est|most|least|top|\d+|"
                            r"one|two|three|four|five|ten") and \
        any(TABLE_NOUNS.get(w) for m in re.finditer(r"\b([a-z]+(?<!ed))\s+by\b", words.text, re.I)
            for w in words_of(m.group(1)))  # ("operated by": a verb's agent)
    # "top 3 carriers by total TEU": an order, not a group
    by = "|by" if (counting or rows_by) and not words.has(rf"top\s+{_SMALL_COUNT}") else ""
    # ("each of the three alliances": the groups named after "each of the"; without a count or an
    # aggregate, "list every vessel built in 2023" asks for all of them, not a figure each)
    each = rf"for each|in each|each(?: of (?:the|our|your|these|those)(?: {_SMALL_COUNT})?)?|for every|every|" \
        if counting else ""
    each += "by|" if by else ""
    m = re.search(rf"\b(?:per|{each}broken down by|grouped by|"
                  r"break(?:ing)? (?:[\w' ]+? )?down (?:[\w' ]+? )?by)\s+(?:the\s+)?"
                  r"([a-z][a-z_ -]*?)(?=\s*(?:\?|,|\.|\(|$|\bfor (?:me|us)\b|\band\b|\bwith\b|\bin\b|\bhave\b|\bhas\b|\bare\b|\bis\b|\bon\b|"
                  r"\bdo\b|\bdoes\b|\boperat|\brun|\bown))",
                  words.text, re.I)
    return None if m is None or _not_groups(m, words.text) else m


def _not_groups(m: re.Match[str], text: str) -> bool:
    """The words after "per", "each" or "by" do not name groups after all."""
    if re.search(r"\b(?:for|of|from|to|at)\s+(?:the|a|an|all|each|every|our|my|these|those)\b", m.group(1), re.I):
        return True
    if re.search(r"\bacross\s+$", text[:m.start()], re.I):
        return True  # "across every manifest": all of them at once, not one figure each
    # "voyages sailed by Hapag-Lloyd vessels": who did it, not one figure per vessel
    return re.match(r"by\s+(?!each\b|every\b)", m.group(0), re.I) is not None and \
        re.search(_AGENT_VERB, text[:m.start()], re.I) is not None


# a past participle right before "by" makes what follows its agent ("sailed by", "run by", "owned by")
_AGENT_VERB = r"\b(?:[a-z]+ed|run|flown|driven|taken|held|sent|shipped|built|made|done|kept|brought)\s+$"


def _group(words: _Words, schema: Schema, spec: Spec) -> Column | None:
    m = _group_phrase(words)
    phrase = words_of(m.group(1)) if m else []
    if m is None or not phrase:
        return None
    cols = schema.columns_named(phrase, _near(schema, spec.target, 2))
    nouns = [TABLE_NOUNS[w] for w in phrase if w in TABLE_NOUNS]
    every = m.group(0).lower().startswith("every")  # "add up every Gemini vessel": all of them, not each
    # "each Ocean Alliance carrier": a short noun phrase whose last word is a table's noun
    if phrase[-1] in TABLE_NOUNS and 1 < len(phrase) <= 4 and not every:
        return schema.name_column(TABLE_NOUNS[phrase[-1]])
    if cols and cols[0][0] >= 1.5 and not (nouns and cols[0][1].table != nouns[-1]):
        return cols[0][1]
    return _group_of_noun(words, schema, spec, nouns, every)


def _versus_group(words: _Words, spec: Spec) -> Column | None:
    """"Completed vs active vs scheduled sailings": values of one column set against each other are
    groups, one figure each, not one total over them all."""
    if not words.has(r"vs\.?|versus|compared (?:to|with)|against") or not (words.has(COUNT_WORDS) or _aggregate_asked(words)):
        return None  # ("Ever Acme vs Ever Lunar - which one's longer?" compares two rows, it counts nothing)
    return next((f.column for f in spec.filters if f.op == "in" and len(f.value) >= 2), None)


def _group_of_noun(words: _Words, schema: Schema, spec: Spec, nouns: list[str], every: bool) -> Column | None:
    """The rows of the table the group phrase names, by their name: another table's, or the rows asked
    about themselves for a total ("total value per voyage"; "average per ship" is one figure)."""
    if nouns and nouns[-1] != spec.target:
        return schema.name_column(nouns[-1])
    if nouns and not every and any(words.has(w) for w, fn in AGGREGATES.items() if fn == "SUM"):
        return schema.name_column(nouns[-1])
    return None


def _used_otherwise(spec: Spec, table: str) -> bool:
    """The table's noun already stands for a filter or the group (the rows below a "none" filter are what
    there are none of, not rows to show)."""
    return any(f.column.table == table or (f.op == "none" and table in _tables_below(f)) for f in spec.filters) \
        or (spec.group is not None and spec.group.table == table)


def _two_part(words: _Words, schema: Schema, spec: Spec, noun_at: int | None) -> None:
    """Other tables a question asks about beside its target ("and who operates it", "its carrier")."""
    for i, w in words.free():
        table = TABLE_NOUNS.get(w)
        if table is None or table == spec.target or i == noun_at or table not in schema.columns:
            continue
        if _used_otherwise(spec, table):
            _its_identifier_asked(words, schema, spec, i, table)
            continue
        if i + 1 < len(words.mapped) and words.mapped[i + 1] in TABLE_NOUNS:
            continue  # "container ships": a modifier
        if spec.action in ("count", "aggregate", "group", "group_top"):
            continue
        col = schema.name_column(table)
        if col not in spec.show and schema.path(spec.target, table) is not None:
            spec.show.append(col)


def _its_identifier_asked(words: _Words, schema: Schema, spec: Spec, at: int, table: str) -> None:
    """"Frozen reefers on voyages at sea - container no. and voyage no.": the number of rows filtered below the
    target is asked, so those rows are listed, each with the number of the row above it that was the target;
    "boxes on voyages under way - container + voyage number": the number of each row's one row above, shown."""
    said_next = words.raw[at + 1][2] if at + 1 < len(words.raw) else ""
    if said_next not in ("number", "nr", "no", "numbers") or spec.action != "list" or table == spec.target:
        return
    if schema.is_parent_path(spec.target, table):  # "boxes on voyages under way - container + voyage number"
        if (own := schema.name_column(table)) not in spec.show:
            spec.show.append(own)
        return
    if not schema.is_parent_path(table, spec.target):
        return
    above = schema.name_column(spec.target)
    spec.target, spec.show = table, [above, *[c for c in spec.show if c != above and c.table != spec.target]]


_MORE = "longer|bigger|larger|heavier|faster|newer|younger|higher|wider"
_LESS = "shorter|smaller|lighter|slower|older|lower|narrower"


def _compared_word(words: _Words) -> re.Match[str] | None:
    """The comparative the question uses: "bigger than", "a bigger ship than" (a few words may stand
    between the adjective and "than"), or "which one takes more TEU"."""
    m = words.has(rf"({_MORE}|{_LESS}|more|less|fewer)\s+(?:[\w'-]+\s+){{0,4}}?than")
    if m or not words.has(r"which|who"):
        return m
    return words.has(rf"({_MORE}|{_LESS}|more|less|fewer)")


def _comparative(words: _Words, spec: Spec) -> None:
    """"Is A longer than B": two named rows compared on the column the adjective names."""
    found = _compared_word(words)
    _not_against_all(found, spec)
    # (the two compared are rows of the target: "Ever Acme vs Ever Lunar" compared on their boxes' column would
    # list the boxes, not compare the ships)
    named = [f for f in spec.filters if f.op == "in" and len(f.value) == 2 and f.column.table == spec.target]
    if not (named and spec.action in ("list", "lookup") and any(c.numeric for c in spec.show)):
        return
    if not found and derived.asks_difference(words.text):
        spec.comparative = ("", ">", True)  # "the difference in TEU between A and B": both, and the gap
        return
    if found:
        word = next(g for g in found.groups() if g).lower()
        yes_or_no = re.match(r"\W*(?:is|are|was|were|does|do|did|can|has|have)\b", words.text, re.I) is not None
        spec.comparative = (word, ">" if re.fullmatch(rf"{_MORE}|more", word) else "<", not yes_or_no)


def _not_a_total_of_which(words: _Words, spec: Spec) -> None:
    """"Which manifest line is worth the most?": which row, by a superlative, is no total of all the rows."""
    if spec.action == "aggregate" and spec.fn == "SUM" and words.has(r"\b(?:which|what)\s+[a-z]+") and \
            words.has(r"\b(?:most|least|highest|lowest|biggest|largest|smallest|top)\b"):
        raise NoPlan("it asks which row is worth the most, and the query would add every row up")


def _not_against_all(found: re.Match[str] | None, spec: Spec) -> None:
    """"Is the Ever Lunar bigger than the average ship?": one row against a figure over all of them, which
    one query here does not compare (the average of that one row is its own value)."""
    if found and spec.action == "aggregate" and _names_one_row(spec):
        raise NoPlan("it compares one row with a figure over all rows, which one query here does not answer")


def _lines_with_their_count(words: _Words, schema: Schema, spec: Spec) -> None:
    """"What's loaded in it?": the lines of a row named, listed with nothing else asked, are shown with how many
    each holds, when a column's comment says it is the number of another column's kind ("Number of packages of
    PACKAGE_TYPE"): that count and that kind. Not when a figure is asked ("how many cartons in all?": each
    line's count is no answer to that)."""
    if spec.action != "list" or spec.show or words.has(COUNT_WORDS) or _aggregate_asked(words) or not spec.filters \
            or any(f.column.table == spec.target for f in spec.filters) \
            or schema.columns_named([w for _, w in words.free()], [spec.target]):
        return  # (the lines of a row named, "in MSCU3004114", asked nothing of their own columns)
    for col in schema.columns[spec.target]:
        kind = re.match(r"number of \w+ of ([A-Z_]+)\b", col.comment, re.I)
        of = next((c for c in schema.columns[spec.target] if kind and c.name == kind.group(1)), None)
        if of is not None:
            spec.show += [col, of]
            return


def _rows_without_a_name(schema: Schema, spec: Spec) -> None:
    """A row that has no name of its own (a position report) is what its measures say: listed or
    looked up, it shows them (latitude, longitude, speed ...)."""
    if spec.action not in ("list", "lookup", "top") or schema.name_column(spec.target).table == spec.target:
        return
    own = [c for c in schema.columns[spec.target] if (c.numeric or c.is_date) and not c.is_key]
    spec.show += [c for c in own if c not in spec.show and c != spec.measure][:5]


def _known_by_a_code(schema: Schema, spec: Spec) -> bool:
    name = schema.name_column(spec.target)
    return spec.action in ("list", "top", "lookup") and name.table == spec.target and name.name.endswith("_NUMBER")


def _rows_named_by_a_code(schema: Schema, spec: Spec) -> None:
    """A row known by a code ("voyage 993E") is listed or looked up with the name of the one row it
    belongs to (its vessel), when a single foreign key leads to a table with a name and no filter names it."""
    if not _known_by_a_code(schema, spec) or (spec.action == "lookup" and not spec.show and not spec.roles):
        return  # a lookup that asks nothing stays one
    parents = [rt for t, _, rt, _ in schema.foreign_keys if t == spec.target]
    single = [rt for rt in dict.fromkeys(parents) if parents.count(rt) == 1]
    for parent in single:
        label = schema.name_column(parent)
        if label.table == parent and label.name.endswith("_NAME") and label not in spec.show \
                and not any(f.column.table == parent for f in spec.filters):
            spec.show.append(label)
            return


def _rows_met_on_their_own_code(schema: Schema, spec: Spec) -> None:
    """"Which ships are headed for Long Beach?": a row found through a filter on its trips (a vessel through
    its voyages, the table that holds two ports) is listed with the trip's code (the voyage number), which
    is what was found; only when one foreign key ties the trips to the row."""
    if spec.action != "list" or not spec.filters:
        return
    for child in _trips_filtered(schema, spec):
        ties = [rt for t, _, rt, _ in schema.foreign_keys if t == child and rt == spec.target]
        code = schema.name_column(child)
        if len(ties) == 1 and code.table == child and code.name.endswith("_NUMBER") and code not in spec.show:
            spec.show.append(code)


def _trips_filtered(schema: Schema, spec: Spec) -> list[str]:
    """The table of trips (the one that holds a port twice: voyages) a filter of the plan is on, a port
    filtered in a role ("to Long Beach") being reached through it; only that table: a voyage's boxes would
    repeat each voyage once per box."""
    keys = [(t, rt) for t, _, rt, _ in schema.foreign_keys]
    held_twice = [t for t, rt in keys if keys.count((t, rt)) > 1]
    tables = [t for f in spec.filters for t in ([f.column.table] if f.role is None else held_twice[:1])]
    return list(dict.fromkeys(t for t in tables if t != spec.target and t in held_twice))


# "from which port", "to which port", "which port does it load at": which end a port asked for is at
_WHICH_PORT = r"(?:{end}) (?:which|what) (?:ports?|harbou?rs?)|(?:which|what) (?:ports?|harbou?rs?)\b[^,;?]*?\b(?:{end})\b"
_FROM_WHICH_PORT = _WHICH_PORT.format(end=r"from|load\w*")
_TO_WHICH_PORT = _WHICH_PORT.format(end=r"to|go\w*|arriv\w*|head\w*")
# ("due tomorrow, and at which ports?": at the end the rows are said to reach)
_AT_WHICH_PORT_ARRIVING = rf"\b(?:{_ARRIVING_DAY})\b.*\bat (?:which|what) (?:ports?|harbou?rs?)\b"


def _route(words: _Words, schema: Schema, spec: Spec) -> None:
    """"Where does it go", "from and to", "its route": the ports at both ends of each row."""
    if spec.action in ("count", "aggregate", "group", "group_top"):
        return
    asks_to, asks_from = _where_to_and_from(words)
    ends = _ends_reached(words, schema, spec, asks_to or asks_from)
    if not ends:
        return
    spec.roles += [role for role, asked in (("ORIGIN", asks_from), ("DESTINATION", asks_to))
                   if asked and role in ends and not any(f.role == role for f in spec.filters)]
    _the_end_of_a_port_shown(words, spec)
    _the_other_end(spec)
    spec.show = [c for c in spec.show if not (spec.roles and c.table == "PORTS")]


def _ends_reached(words: _Words, schema: Schema, spec: Spec, asked: bool) -> list[str]:
    """The voyage ends the rows have ports at (_port_ends); for boxes named by their codes, when the words ask
    where ("where's box X headed?"), the ends of the voyage they are on ("what's box X set to?" asks no place)."""
    ends = _port_ends(schema, spec)
    # (or rows kept by a filter on the voyage itself: "which ships arrive tomorrow, and where?")
    if not ends and asked and words.has(r"where|destination|origin|head\w*|bound") and _through_voyages(schema, spec.target) \
            and (_names_its_rows(spec) or any(f.column.table == "VOYAGES" and f.column.is_date for f in spec.filters)):
        return ["ORIGIN", "DESTINATION"]
    return ends


def _where_to_and_from(words: _Words) -> tuple[bool, bool]:
    """(whether the words ask where the rows go, where they come from)."""
    # ("due in tomorrow, and where?": where the arrival is; "between which ports": both ends)
    asks_to = words.has(r"where\b.*\b(?:go|going|head\w*|bound|sail\w*|arriv\w*|end(?:s|ed)?|finish\w*)|destination|"
                        r"\bto\b\W*$|routes?|routings?|from and to|to where|where to|between which ports|"
                        + _THEN_WHERE.format(said=_ARRIVING_DAY) + "|" + _TO_WHICH_PORT + "|" + _AT_WHICH_PORT_ARRIVING + "|"
                        + _DISCHARGE)
    asks_from = words.has(r"where\b.*\b(?:from|start\w*|depart\w*|leav\w*)|origin|from and to|routes?|routings?|from where|"
                          r"where from|between which ports|" + _THEN_WHERE.format(said=_DEPARTURE_SAID) + "|"
                          + _FROM_WHICH_PORT + "|" + _LOADING)
    return asks_to is not None, asks_from is not None


def _the_end_of_a_port_shown(words: _Words, spec: Spec) -> None:
    """"When does the box leave port, and which port?": a port shown of another table's rows is at the
    end the words say."""
    if not spec.roles and spec.target != "VOYAGES" and any(c.table == "PORTS" for c in spec.show):
        spec.roles.append(_voyage_end(words))


def _the_other_end(spec: Spec) -> None:
    """"Which voyages leave Tanger Med?": a voyage is told apart by where it goes, the end not said. An end
    said by a group of ports ("heading to North Europe", "to Spain") is shown too: it differs row by row."""
    ended = {f.role for f in spec.filters if f.role in ("ORIGIN", "DESTINATION")}
    if spec.action == "list" and spec.target == "VOYAGES" and len(ended) == 1 and not spec.roles:
        spec.roles.append(({"ORIGIN", "DESTINATION"} - ended).pop())
        spec.roles += [f.role for f in spec.filters if f.role in ended and f.column.name not in _ONE_PORT]


# the columns that name one port ("Rotterdam", "NLRTM"), not a group of them (a region, a country)
_ONE_PORT = ("PORT_NAME", "UNLOCODE", "PORT_ID")


def _port_ends(schema: Schema, spec: Spec) -> list[str]:
    """The ends of a voyage the rows asked about have ports at: a voyage's own, or, for a port shown of
    another table's rows ("when does the box leave, and from where?"), the ends of the voyage it is on."""
    ends = [c.name.split("_PORT_ID")[0] for c in schema.columns.get(spec.target, []) if c.name.endswith("_PORT_ID")]
    if ends or not any(c.table == "PORTS" for c in spec.show):
        return ends
    return ["ORIGIN", "DESTINATION"] if _through_voyages(schema, spec.target) else []


def _through_voyages(schema: Schema, table: str) -> bool:
    """The table's rows reach a port through a voyage (a box is on a voyage, which goes from one port to another)."""
    return table != "VOYAGES" and any((a, b) == ("VOYAGES", "PORTS") for a, _, b, _ in schema.path(table, "PORTS") or [])


# the words that ask for a date
_WHEN_ASKED = r"when|what date|which date|what day|which day"
_WEEKDAY_ASKED = r"(?:what|which) day of the week|(?:what|which) weekday|day of the week"


def _when(words: _Words, schema: Schema, spec: Spec) -> None:
    """"When does it leave / arrive": the date the verb names, on the target's rows."""
    if not words.has(rf"{_WHEN_ASKED}|weekday") or spec.action in ("count", "aggregate"):
        return
    dates = next(([c for c in schema.columns[t] if c.is_date] for t in _tables_reached(schema, spec)
                  if any(c.is_date for c in schema.columns[t])), []) or _dates_of_the_trip_above(words, schema, spec)
    ends = {f.role for f in spec.filters if f.role in ("ORIGIN", "DESTINATION")}
    for col in _dates_asked(words, dates, ends):
        if col not in spec.show:
            spec.show.append(col)
        _the_port_of_the_date(schema, spec, col, ends)
    if dates:
        _day_asked(words, spec)


def _dates_of_the_trip_above(words: _Words, schema: Schema, spec: Spec) -> list[Column]:
    """"When does container X arrive?", "when does it get discharged?": a row with no date of its own rides the one
    trip above it, whose dates the verb picks; [] when no verb of arriving or leaving says which."""
    if not words.has(rf"{_ARRIVING_DAY}|{_DISCHARGE}|{_DEPARTURE_SAID}|left|etd"):
        return []
    above = [rt for t, _, rt, _ in schema.foreign_keys if t == spec.target and schema.is_parent_path(spec.target, rt)]
    return next(([c for c in schema.columns[t] if c.is_date] for t in above if any(c.is_date for c in schema.columns[t])), [])


def _the_port_of_the_date(schema: Schema, spec: Spec, col: Column, ends: set[str]) -> None:
    """"When's the Kaimana Hila due in?": a voyage's day at one of its ends is said with the port there, the end
    its comment names ("the date the vessel reaches the destination"), unless the question named that port."""
    above = any(t == spec.target and rt == col.table for t, _, rt, _ in schema.foreign_keys)
    if spec.action not in ("list", "lookup") or (col.table != spec.target and not above):
        return  # (the target's own day, or the trip right above it: "when does box X sail?" with the port it sails from)
    for port in schema.columns[col.table]:
        role = port.name.removesuffix("_PORT_ID")
        if role != port.name and role not in ends and role not in spec.roles \
                and re.search(rf"\b{role.lower()}\b", col.comment.lower()):
            spec.roles.append(role)


def _day_asked(words: _Words, spec: Spec) -> None:
    """"Which weekday ...": the date shown as its day of the week; "what day did she leave?": the date."""
    if (weekday := words.has(_WEEKDAY_ASKED)) and spec.convert is None:
        spec.convert = "weekday"
        words.take(weekday.start(), weekday.end())
    elif day := words.has(r"(?:what|which|the) (day)"):
        words.take(day.start(1), day.end(1))


def _tables_reached(schema: Schema, spec: Spec) -> list[str]:
    """The target's table, then each filter's, then the tables a join passes through to reach them
    ("when did the ship carrying box X leave": the voyage between the ship and the box holds the date)."""
    filtered = [f.column.table for f in spec.filters if f.column.table != spec.target]
    passed = [a for t in filtered for a, _, _, _ in (schema.path(spec.target, t) or [])]
    return list(dict.fromkeys([spec.target, *filtered, *passed]))


def _dates_asked(words: _Words, dates: list[Column], ends: set[str] | None = None) -> list[Column]:
    """The arrival date for "when does it arrive", the departure otherwise, both for "when did she sail
    and what's the ETA". With no verb that says which, a port filtered at one end of the voyage says it:
    "when does it get into Rotterdam" is the date of the end Rotterdam is at."""
    arriving = bool(words.has(_ARRIVING_DAY)) or \
        (ends == {"DESTINATION"} and not words.has(r"sail(?:s|ed)?|leav\w*|left|depart\w*|etd"))
    chosen = [c for c in dates if ("ARRIVAL" in c.name) == bool(arriving)] or dates
    if arriving and words.has(r"sail(?:s|ed)?|leav\w*|left|depart\w*|etd"):
        return [c for c in dates if "ARRIVAL" in c.name or "DEPARTURE" in c.name][:2] or chosen[:1]
    return chosen[:1]


def _unit(words: _Words, spec: Spec) -> None:
    # "in tonnes", "how many tonnes", and a unit said on its own at the end ("weight on voyage 1014, tonnes")
    m = words.has(rf"(?:in|into|as|how many) (?:metric )?({_UNITS_ASKED})") or \
        words.has(rf"(?:[(–-]|(?<=[,(]))\s*(?:metric )?({_UNITS_ASKED})\s*(?:please|pls)?\s*\)?\s*[?.!]*\s*$")
    if m:
        spec.convert = m.group(1).lower()


# the unit a question may ask for, and the units of the columns that hold that kind of figure
_KINDS_OF_UNIT = {"dollars": {"cents"}, "usd": {"cents"}, "cents": {"cents"}, "tonnes": {"tonnes", "kg"},
                  "tons": {"tonnes", "kg"}, "t": {"tonnes", "kg"}, "kg": {"tonnes", "kg"}, "kilograms": {"tonnes", "kg"},
                  "kilos": {"tonnes", "kg"}, "km/h": {"knots"}, "kilometres per hour": {"knots"}, "feet": {"m"},
                  "ft": {"m"}, "metres": {"m"}, "meters": {"m"}, "fahrenheit": {"°C"}, "mph": {"knots"},
                  "miles per hour": {"knots"}, "pounds": {"kg", "tonnes"}, "lbs": {"kg", "tonnes"},
                  "short tons": {"tonnes", "kg"}, "long tons": {"tonnes", "kg"}}
_UNITS_ASKED = "|".join(re.escape(u) for u in sorted(_KINDS_OF_UNIT, key=len, reverse=True))
# the unit the answer is asked in ("in metric tonnes", "as km/h")
_A_UNIT_ASKED = rf"(?:in|into|as) (?:metric )?({_UNITS_ASKED})"
# the units a question may refuse ("in dollars, not cents"): those it may ask for and those the comments state
_REFUSABLE = sorted({*_KINDS_OF_UNIT, "knots", "cents", "tonnes", "metres", "teu", "celsius", "degrees"}, key=len, reverse=True)
_UNITS_REFUSED = re.compile(r"\s*(?:in\s+)?(?:" + "|".join(re.escape(u) for u in _REFUSABLE) + r")\b", re.I)


def _shown_in_unit(schema: Schema, spec: Spec) -> None:
    """"What's one carton declared at, in dollars?": a listing that shows no figure of the kind the unit
    asks for shows the one column of its rows that holds it (the value in cents)."""
    if spec.convert is None or spec.action != "list" or spec.measure is not None:
        return
    kinds = _KINDS_OF_UNIT.get(spec.convert, set())
    if any(c.unit in kinds for c in spec.show):
        return
    held = [c for c in schema.columns.get(spec.target, []) if c.unit in kinds]
    if len(held) == 1:
        spec.show.append(held[0])


# ============================================================================ SQL
class _Joins:
    def __init__(self, schema: Schema, target: str, target_role: str | None = None) -> None:
        self.schema, self.target, self.target_role = schema, target, target_role
        self.sql = ""
        self.fans_out = False   # a join from a row to its children repeats the row
        self.aliases: dict[tuple[str, str | None], str] = {(target, None): "t"}

    def alias(self, table: str, role: str | None = None) -> str:
        if table == self.target:
            return "t"
        key = (table, role)
        if key in self.aliases:
            return self.aliases[key]
        path = self.schema.path(self.target, table)
        if path is None:
            raise NoPlan(f"{table} is not linked to {self.target}")
        prev = "t"
        for n, (a, ac, b, bc) in enumerate(path):
            if (a, b) == ("VOYAGES", "PORTS") and role in ("ORIGIN", "DESTINATION"):
                ac = f"{role}_PORT_ID"
            if (a, b) == ("PORTS", "VOYAGES") and self.target_role in ("ORIGIN", "DESTINATION"):
                bc = f"{self.target_role}_PORT_ID"
            # a table reached on the way to another is the same row when shown ("the carrier of the ship
            # doing voyage 841N, and the ship's name": that ship, not every ship of the carrier)
            hop_key = (b, role if n == len(path) - 1 and role is not None else f"via{n}")
            if hop_key in self.aliases:
                prev = self.aliases[hop_key]
                continue
            prev = self._join(a, ac, b, bc, prev)
            self.aliases[hop_key] = prev
        self.aliases[key] = prev
        return prev

    def _join(self, a: str, ac: str, b: str, bc: str, prev: str) -> str:
        """One hop joined, under a new alias; a port's voyages at either end join on both columns."""
        alias = f"j{len(self.aliases)}"
        either = (a, b) == ("PORTS", "VOYAGES") and self.target_role == "EITHER"
        self.fans_out = self.fans_out or either or any(fk == (b, bc, a, ac) for fk in self.schema.foreign_keys)
        if either:
            self.sql += SQL["join_either"].format(table=b, alias=alias, col="ORIGIN_PORT_ID",
                                                  col2="DESTINATION_PORT_ID", other=prev, other_col=ac)
        else:
            self.sql += SQL["join"].format(table=b, alias=alias, col=bc, other=prev, other_col=ac)
        return alias


@dataclass
class _Select:
    """What a plan's SELECT shows: its column expressions, the columns they are, the GROUP BY and
    ORDER BY clauses, and how many rows to fetch."""
    columns: list[str]
    selected: list[Column]
    max_rows: int
    group_sql: str = ""
    order_sql: str = ""


def to_sql(spec: Spec, schema: Schema) -> Plan:
    joins = _Joins(schema, spec.target, spec.target_role)
    params: dict[str, Any] = {}
    conditions = [_condition(f, joins, params) for f in spec.filters]
    if spec.action == "distinct":
        return _distinct_plan(spec, schema, joins, conditions, params)
    name = schema.name_column(spec.target)
    key = schema.columns[spec.target][0]
    if spec.action == "count":
        select = _count_select(joins, key)
    elif spec.action == "aggregate" and spec.measure is not None and spec.fn:
        select = _aggregate_select(joins, spec.fn, spec.measure)
    elif spec.action in ("group", "group_top") and spec.group is not None:
        select = _group_select(spec, schema, joins, spec.group)
        if spec.having is not None:
            select.group_sql += SQL["having"].format(op=spec.having[0], bind=_bind(params, spec.having[1]))
    else:
        select = _rows_select(spec, schema, joins, conditions, name, key)
    where = SQL["where"].format(conditions=" AND ".join(conditions)) if conditions else ""
    sql = SQL["select"].format(columns=", ".join(select.columns), table=spec.target, joins=joins.sql, where=where,
                               group=select.group_sql, order=select.order_sql)
    return Plan(spec, sql, params, select.max_rows, select.selected, describe(spec))


def _ref(joins: _Joins, c: Column, role: str | None = None) -> str:
    return _at(joins.alias(c.table, role), c)


def _at(alias: str, c: Column) -> str:
    """The column under a table alias: its name, or the SQL a column worked out from others is."""
    return c.sql.format(a=alias) if c.sql else f"{alias}.{c.name}"


def _count_select(joins: _Joins, key: Column) -> _Select:
    """COUNT(*), or the distinct keys counted when a join repeats the target's rows."""
    columns = [SQL["count"]]
    if joins.fans_out:
        columns = [SQL["count_distinct"].format(ref=f"t.{key.name}")]
    return _Select(columns, [], 1)


def _measured(joins: _Joins, fn: str, measure: Column) -> str:
    """The aggregate of a measure; a sum of a unit value is of the unit value times the quantity it is for."""
    ref = _ref(joins, measure)
    if fn == "SUM" and measure.multiplier:
        ref += f" * {joins.alias(measure.table)}.{measure.multiplier}"
    return SQL["aggregate"].format(fn=fn, ref=ref)


def _aggregate_select(joins: _Joins, fn: str, measure: Column) -> _Select:
    return _Select([_measured(joins, fn, measure)], [], 1)


def _group_select(spec: Spec, schema: Schema, joins: _Joins, group: Column) -> _Select:
    """The group and its count (or the aggregate of the measure), largest first."""
    alias = joins.alias(group.table, spec.group_role)
    g = _at(alias, group)
    value = _measured(joins, spec.fn, spec.measure) if spec.fn and spec.measure else SQL["count"]
    group_key = schema.columns[group.table][0]
    if group_key.is_key and group == schema.name_column(group.table) \
            and not group.name.endswith("_NAME") and group.table != spec.target:
        # a name that repeats (voyage number 534E is two voyages): each row apart, labelled by both;
        # the rows of its own table grouped by it ("which voyage numbers have more than one voyage") are by value
        label = SQL["labelled"].format(key=f"{alias}.{group_key.name}", name=g)
        columns, group_sql = [label, value], SQL["group"].format(refs=f"{alias}.{group_key.name}, {g}")
    else:
        columns, group_sql = [g, value], SQL["group"].format(refs=g)
    return _Select(columns, [group], MAX_LIST, group_sql, SQL["order"].format(refs=f"2 {spec.direction}, 1"))


def _rows_select(spec: Spec, schema: Schema, joins: _Joins, conditions: list[str], name: Column,
                 key: Column) -> _Select:
    """The rows, by name (the top ones by the measure, with no empty measure), with the columns
    shown and the ports of their roles."""
    # a row named by a number that repeats (voyage 534E twice) is shown with its key too
    head = _row_heads(key, name)
    # each column once: the SQL's columns and the rows' labels must stay side by side
    selected = list(dict.fromkeys(head + [c for c in ([spec.measure] if spec.measure else []) + spec.show if c not in head]))
    columns = [_ref(joins, c) for c in selected]
    port = schema.name_column("PORTS") if "PORTS" in schema.columns else None
    for role in spec.roles:
        if port is not None:
            columns.append(f"{joins.alias('PORTS', role)}.{port.name} AS {role}")
            selected.append(Column("PORTS", role, "VARCHAR2", "", frozenset()))
    if spec.action == "top" and spec.measure is not None:
        conditions.append(SQL["not_null"].format(ref=_ref(joins, spec.measure)))
        order_sql = SQL["order"].format(refs=f"{_ref(joins, spec.measure)} {spec.direction}, {_ref(joins, name)}")
        max_rows = spec.n + 10
    else:
        order_sql = SQL["order"].format(refs=_ref(joins, name))
        max_rows = MAX_LIST + 1
    columns = list(dict.fromkeys(columns))
    if joins.fans_out:
        columns[0] = "DISTINCT " + columns[0]
    return _Select(columns, selected, max_rows, "", order_sql)


def _row_heads(key: Column, name: Column) -> list[Column]:
    """The columns a listed row is named by: its key too when its name is a number that repeats."""
    return [key, name] if key.is_key and not name.name.endswith("_NAME") and key != name else [name]


def _distinct_plan(spec: Spec, schema: Schema, joins: _Joins, conditions: list[str], params: dict[str, Any]) -> Plan:
    """The different values of one column among the rows asked about, each once."""
    assert spec.measure is not None
    ref = _ref(joins, spec.measure)
    where = SQL["where"].format(conditions=" AND ".join([*conditions, SQL["not_null"].format(ref=ref)]))
    sql = SQL["select"].format(columns="DISTINCT " + ref, table=spec.target, joins=joins.sql, where=where, group="",
                               order=SQL["order"].format(refs=ref))
    return Plan(spec, sql, params, MAX_LIST + 1, [spec.measure], describe(spec))


def _bind(params: dict[str, Any], value: Any) -> str:
    name = f"p{len(params)}"
    params[name] = value
    return name


def _tables_below(f: Filter) -> list[str]:
    """The tables a "none" filter looks down to: the one below, and the one below that when it goes two keys down."""
    return [f.value[0]] + ([f.value[3][0]] if len(f.value) > 3 else [])


def _none_below_sql(f: Filter, ref: str, params: dict[str, Any]) -> str:
    """No row of the table below points at this one, by any of the keys named (with the values named)."""
    table, keys, *held = f.value
    points = [SQL["points_at"].format(col=k, ref=ref) for k in keys]
    conditions = functools.reduce(lambda a, b: SQL["either"].format(first=a, second=b), points)
    for col, value in (held[0] if held else ()):
        conditions = SQL["both"].format(first=conditions, second=SQL["compare"].format(
            ref=f"n.{col}", op="=", bind=_bind(params, value)))
    if len(held) > 1:  # a row two keys down: some row of the table below the middle one, with the values
        lower, key, middle_col, values = held[1]
        inner = SQL["lower_points_at"].format(col=key, ref=f"n.{middle_col}")
        for col, value in values:
            inner = SQL["both"].format(first=inner, second=SQL["compare"].format(
                ref=f"m.{col}", op="=", bind=_bind(params, value)))
        conditions = SQL["both"].format(first=conditions, second=SQL["some_below"].format(table=lower, conditions=inner))
    return SQL["none_below"].format(table=table, conditions=conditions)


def _condition(f: Filter, joins: _Joins, params: dict[str, Any]) -> str:
    if f.role == "EITHER":
        first = SQL["compare"].format(ref=f"{joins.alias(f.column.table, 'ORIGIN')}.{f.column.name}", op="=",
                                      bind=_bind(params, f.value))
        second = SQL["compare"].format(ref=f"{joins.alias(f.column.table, 'DESTINATION')}.{f.column.name}", op="=",
                                       bind=_bind(params, f.value))
        return SQL["either"].format(first=first, second=second)
    ref = _ref(joins, f.column, f.role)
    if f.op == "between":
        return (SQL["compare"].format(ref=ref, op=">=", bind=_bind(params, f.value)) + " AND "
                + SQL["compare"].format(ref=ref, op="<=", bind=_bind(params, f.value2)))
    if f.op in ("is null", "is not null"):
        return SQL["is_null" if f.op == "is null" else "not_null"].format(ref=ref)
    if f.op == "none":
        return _none_below_sql(f, ref, params)
    if f.op == "contains":
        return SQL["contains"].format(ref=ref, bind=_bind(params, f.value))
    if f.op in ("not", "not in"):  # other values, and rows with no value at all
        values = f.value if f.op == "not in" else [f.value]
        other = SQL["compare"].format(ref=ref, op="<>", bind=_bind(params, values[0]))
        for v in values[1:]:
            other = SQL["both"].format(first=other, second=SQL["compare"].format(ref=ref, op="<>", bind=_bind(params, v)))
        return SQL["either"].format(first=other, second=SQL["is_null"].format(ref=ref))
    if f.op == "in":
        parts = [SQL["compare"].format(ref=ref, op="=", bind=_bind(params, v)) for v in f.value]
        out = parts[0]
        for p in parts[1:]:
            out = SQL["either"].format(first=out, second=p)
        return out
    return SQL["compare"].format(ref=ref, op=f.op, bind=_bind(params, f.value))


# ============================================================================ words
def noun(table: str, plural: bool = True) -> str:
    word = {"VESSELS": "vessel", "CARRIERS": "carrier", "PORTS": "port", "VOYAGES": "voyage",
            "CONTAINERS": "container", "CARGO_ITEMS": "cargo item", "VESSEL_POSITIONS": "vessel position"}.get(
        table, table.lower())
    return word + "s" if plural else word


def describe(spec: Spec) -> str:
    said = spec.said()
    if spec.having is not None:  # "(groups of at least 3)"
        said += f" (groups of {_OP_WORDS.get(spec.having[0], (spec.having[0],))[0]} {spec.having[1]:g})"
    return f"{noun(spec.target)} {said}".strip()

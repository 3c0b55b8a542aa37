"""The question of a turn that also states something, asked on its own.

Users put what they ask after what they say: "our customer has box MSCU3004114 with you. What's
in it?", "Our booking is on the Gunhild Maersk. Where is she heading?". The handlers read a
whole turn as one question, so the statement's words ("customer", "cant") make the planner decline.
Asked alone, the question keeps what it refers to: a pronoun ("it", "she", "they") stands for the
one container, voyage or vessel the statement names, and is replaced by it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from workshop_lib.assistant import sentences
from workshop_lib.assistant.schema_links import TABLE_NOUNS, table_of_noun
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS, Link

# a statement is a sentence of its own (a clause before a comma may be the question's own qualifier:
# "and the one I added after that, when's it due in?")
_ASKS = re.compile(r"\W*(?:which|what|where|when|who|whose|how|is|are|was|were|does|do|did|can|could|will|has|have)\b",
                   re.I)
# what points back at the statement: a pronoun, or "that sailing", "those boxes", "there"
_POINTER = re.compile(r"\b(?:it|she|he|they|them|its|her|his|that one|this one|there|"
                      r"(?:that|this|those|these|the same)\s+([a-z]+))\b", re.I)
_POSSESSIVE = {"its", "her", "his"}
_TIMES = {"month", "week", "year", "day", "morning", "afternoon", "evening", "time", "quarter", "season", "weekend"}
# a ship is "she"
_A_SHIP = {"she", "her"}
# "that lane", "this route": the two ports the statement names, from the first to the second
_LANES = {"lane", "route", "trade", "corridor", "leg", "loop", "service"}


def _lane_pointed_at(said: str, pointers: list[re.Match[str]], links: Callable[[str], Sequence[Link]]) -> str | None:
    if not any(m.group(1) and m.group(1).lower() in _LANES for m in pointers):
        return None
    # each port once, as the statement first writes it, in the order said
    ports: dict[str, str] = {}
    for lk in sorted(links(said), key=lambda lk: lk.start):
        if lk.table == "PORTS" and lk.how != "partial":
            ports.setdefault(str(lk.value), lk.text)
    return "from {} to {}".format(*ports.values()) if len(ports) == 2 else None
# the things a pronoun can stand for: one row a user ships with
_THINGS = ("CONTAINERS", "VOYAGES", "VESSELS")
_NOUN_OF = {table: noun for noun, table in TABLE_NOUNS.items()}


def asked_alone(turn: str, links: Callable[[str], Sequence[Link]],
                names_its_own: Callable[[str], bool] = lambda _: False,
                below: Callable[[str, str], bool] = lambda _a, _b: False,
                asks_of: Callable[[str, str], bool] = lambda _t, _a: False) -> str | None:
    """The turn's question without the statement before it, what points back replaced by the one thing
    the statement names; None when the turn has no statement before a question, or what the question
    points back at is not one thing. `names_its_own`: whether a question names its subject otherwise
    than by a value of the data (an item of the catalog); `below(a, b)`: whether rows of table a belong to a
    row of table b (a container's cargo lines); `asks_of(table, asked)`: whether the question asks a column of
    that table (of a box and its ship, "its verified gross weight" is the box's)."""
    parted = _parted(turn.strip())
    if parted is None:
        return None
    said, asked, in_one = parted
    # ("this month", "that week": a time, not a thing the statement named)
    pointers = [m for m in _POINTER.finditer(asked) if not (m.group(1) and m.group(1).lower() in _TIMES)]
    if in_one and not _stands_apart(said, asked, bool(pointers), links):
        return None
    if not pointers and (owned := _rows_of_the_thing(said, asked, links, below)) is not None:
        return owned
    if not pointers:
        # the statement's values may be what the question is about ("we ship from Shanghai. How many
        # voyages are there?"): asked alone, the question must name what it is about itself
        return asked if not links(said) or links(asked) or names_its_own(asked) else None
    return _pointed_at(said, asked, pointers, links, asks_of)


def _rows_of_the_thing(said: str, asked: str, links: Callable[[str], Sequence[Link]],
                       below: Callable[[str, str], bool]) -> str | None:
    """"Our brake pads are in YMLU6613997. How many cartons does the manifest show?": a question whose values are
    all of rows that belong to the one thing the statement names is about that thing's rows; None otherwise."""
    things = _things_stated(said, [], links)
    asked_links = links(asked)
    if len(things) != 1 or not asked_links:
        return None
    (table, _), link = next(iter(things.items()))
    if not all(lk.table != table and below(lk.table, table) and (lk.table, lk.column) not in NAME_COLUMNS | CODE_COLUMNS
               for lk in asked_links):
        return None  # (a question that names a row of its own, "the set point on MSKU9773732", is about that row)
    return f"{asked.rstrip().rstrip('?').rstrip()} for {_NOUN_OF[table]} {link.text}?"


def _pointed_at(said: str, asked: str, pointers: list[re.Match[str]], links: Callable[[str], Sequence[Link]],
                asks_of: Callable[[str, str], bool]) -> str | None:
    """The question with what points back replaced by the one thing the statement names; the question as
    it is when "it" has nothing stated to stand for; None when it points at no one thing."""
    if (lane := _lane_pointed_at(said, pointers, links)) is not None:
        return _POINTER.sub(lambda m: lane if m.group(1) and m.group(1).lower() in _LANES else m.group(0), asked)
    things = _the_one_asked_of(_things_stated(said, pointers, links, asked), asked, pointers, asks_of)
    if not things and links(asked) and all(m.group(0).lower() == "it" for m in pointers) \
            and not any(lk.table == "CARRIERS" for lk in links(said)):
        return asked  # nothing stated that "it" could stand for: it is the question's own subject
    if len(things) != 1:
        return None
    (table, _), link = next(iter(things.items()))
    if any(_not_the_thing(asked, m, table) for m in pointers):
        return None
    return _with_the_thing(asked, f"{_NOUN_OF[table]} {link.text}")


def _the_one_asked_of(things: dict[tuple[str, str], Link], asked: str, pointers: list[re.Match[str]],
                      asks_of: Callable[[str, str], bool]) -> dict[tuple[str, str], Link]:
    """"A box of olive oil, ONEU8933061, on the ONE Harmony. What is its gross weight?": of several things stated
    and a plain pronoun, the one whose table holds what is asked, when only one does; the things as they are
    otherwise."""
    if len(things) < 2 or any(m.group(1) for m in pointers):
        return things
    holding = {key: lk for key, lk in things.items() if asks_of(key[0], asked)}
    return holding if len(holding) == 1 else things


def _not_the_thing(asked: str, pointer: re.Match[str], table: str) -> bool:
    """"That sailing" of a box named, "there": not the thing itself (but "in there" is inside the box)."""
    if pointer.group(1) and table_of_noun(pointer.group(1)) != table:
        return True
    return pointer.group(0).lower() == "there" and not _inside(asked, pointer, table)


def _things_stated(said: str, pointers: list[re.Match[str]], links: Callable[[str], Sequence[Link]], asked: str = ""
                   ) -> dict[tuple[str, str], Link]:
    """The containers, voyages and vessels the statement names, by (table, value): the one a pointer names ("that
    voyage"), else the one of a trip the question is about (_the_one_of_a_trip)."""
    things = _rows_named(said, links)
    named = _tables_pointed_at(pointers)
    if named and sum(table in named for table, _ in things) == 1:
        # "the Kota Ratna 241W ... that voyage": the one the pointer names
        return {key: lk for key, lk in things.items() if key[0] in named}
    kept = _the_one_of_a_trip(sorted(table for table, _ in things), asked)
    return {key: lk for key, lk in things.items() if key[0] == kept} if kept else things


def _the_one_of_a_trip(tables: list[str], asked: str) -> str | None:
    """Of a voyage and the ship that sails it ("the ONE Columba, 733W"), the voyage; of a box on a voyage, the voyage
    when the question asks when or where it goes; of a box on a ship, the box when it asks what befalls its trip
    ("PCIU4937674 on the Kota Ratna. Has it arrived?"); None otherwise."""
    if tables == ["VESSELS", "VOYAGES"] or (tables in (["CONTAINERS", "VOYAGES"], ["CONTAINERS", "VESSELS", "VOYAGES"])
                                            and _OF_THE_TRIP.search(asked)):
        return "VOYAGES"
    if tables == ["CONTAINERS", "VESSELS"] and _OF_THE_TRIP.search(asked) and _BEFALLS_A_TRIP.search(asked):
        return "CONTAINERS"
    return None


def _rows_named(said: str, links: Callable[[str], Sequence[Link]]) -> dict[tuple[str, str], Link]:
    """The containers, voyages and vessels a statement names by their name, number or key ("40GP" is a kind of box,
    no box; "the failure report for voyage 1042" names a voyage by its key, which no value link gives)."""
    things = {(lk.table, str(lk.value)): lk for lk in links(said) if lk.table in _THINGS and lk.how != "partial"
              and (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS}
    for m in _KEYED.finditer(said):
        if (table := table_of_noun(m.group(1))) in _THINGS:
            things[(table, m.group(2))] = Link(table, "KEY", m.group(2), m.start(2), m.end(2), "key", m.group(2))
    return things


# what happens to a box on its trip, not to the ship ("has it arrived", "when does it get in"; not "where is she")
_BEFALLS_A_TRIP = re.compile(r"\b(?:arriv\w*|due|depart\w*|leav\w*|left|sail\w*|land\w*|discharg\w*|get(?:s)? in|eta)\b", re.I)
# a row named by its key: "voyage 1042", "container id 20055"
_KEYED = re.compile(r"\b(voyage|container|box)\s+(?:id\s+|no\.?\s+|number\s+)?(\d{3,})\b", re.I)
# a question about when or where a trip goes: of a box on a voyage, the voyage's
_OF_THE_TRIP = re.compile(r"\b(?:when|due|arriv\w*|leav\w*|left|depart\w*|sail\w*|eta|etd|where)\b", re.I)


def _tables_pointed_at(pointers: list[re.Match[str]]) -> set[str | None]:
    """The tables the pointers name ("that voyage"); "she" is the ship (or its voyage), not the box on her."""
    named = {table_of_noun(m.group(1)) for m in pointers if m.group(1)}
    if not named and {m.group(0).lower() for m in pointers} <= _A_SHIP:
        return {"VESSELS", "VOYAGES"}
    return named


def _inside(asked: str, pointer: re.Match[str], table: str) -> bool:
    """"How many cartons are in there?" of a box: inside it."""
    return table == "CONTAINERS" and re.search(r"\b(?:in|inside)\s+$", asked[:pointer.start()], re.I) is not None


def _with_the_thing(asked: str, named: str) -> str:
    """The question with each pointer replaced by the thing named ("its voyage": "container X's voyage")."""
    return _POINTER.sub(lambda m: f"{named}'s" if m.group(0).lower() in _POSSESSIVE else named, asked)


def _stands_apart(said: str, asked: str, pointed: bool, links: Callable[[str], Sequence[Link]]) -> bool:
    """In one sentence, the clause before the question is a statement of its own, not what the question
    is about ("and the Kota Singa - where ...", "MSC Aurora reefer failure: how long ...?"); without a
    pointer back, only a question that names its own subject stands alone."""
    return not _TOPIC.match(said) and (pointed or (not links(said) and bool(links(asked))))


def _parted(turn: str) -> tuple[str, str, bool] | None:
    """(what the turn states, what it asks, whether both are in one sentence), or None when it states
    nothing before its question. In one
    sentence, a clause set apart by a colon, a dash or a comma before the question ("unrelated: what
    alliance is HMM in?", "its TGHU8282269 for Bianchi, which ship is it on?") is what it states."""
    parts = sentences.split(turn)
    if (apart := _sentences_apart(parts)) is not None:
        return apart
    if len(parts) != 1 or _ASKS.match(turn):
        return None
    asked = next((m for m in _CLAUSE_END.finditer(turn) if _ASKS.match(turn[m.end():])), None)
    return (turn[:asked.start()].strip(), turn[asked.end():].strip(), True) if asked else None


def asked_part(turn: str) -> str | None:
    """What a turn that also states something asks, in its own sentences ("Zielony Dom's next box is on the
    Tessa. Who's their haulier again?": the second); None for a turn that only asks or only states."""
    apart = _sentences_apart(sentences.split(turn))
    return apart[1] if apart is not None else None


def _sentences_apart(parts: list[str]) -> tuple[str, str, bool] | None:
    """(what the sentences state, what they ask, False) when some state and some ask: the sentences
    before the first question, and after it those that state something of their own ("is the Manulani
    still due on the 4th? Pacifica has a reefer on her, SEGU1543995."), not one that says how to answer
    ("dates please"); None otherwise."""
    first = next((i for i, p in enumerate(parts) if _asks_of_its_own(p, i + 1 < len(parts))), None)
    if first is None:
        return None
    after = [i for i, p in enumerate(parts) if i > first and _states_its_own(p)]
    if not first and not after:
        return None
    return (" ".join(p for i, p in enumerate(parts) if i < first or i in after),
            " ".join(p for i, p in enumerate(parts) if i >= first and i not in after), False)


def _asks_of_its_own(sentence: str, more: bool) -> bool:
    """A sentence that asks, other than one only asking to look at a thing the next sentences ask about."""
    return _asks(sentence) and not (more and _ONLY_LOOK.match(sentence))


def _asks(sentence: str) -> bool:
    return bool(_ASKS.match(sentence)) or sentence.endswith("?")


def _states_its_own(sentence: str) -> bool:
    """A sentence that neither asks nor only says how to answer ("vessel names please"), long enough to
    state something."""
    return not _asks(sentence) and not _HOW_TO_ANSWER.search(sentence) and len(sentence.split()) > 6


# a request only to look at a thing, before the question about it ("can u check voyage 452E for me? ... which vessel
# is running it?"): it names what the question is about, as a statement would
_ONLY_LOOK = re.compile(r"\W*(?:(?:hi|hey|ok|so|and)\W+)*(?:(?:can|could|would|will)\s+(?:you|u|ya)\s+|pls\s+|please\s+)?"
                        r"(?:check|look\s+(?:at|up|into)|pull\s+up|have\s+a\s+look\s+at|dig\s+out)\s+"
                        # ("can you check when the ship gets in?" asks when: a question of its own)
                        r"(?!(?:when|where|which|what|whether|if|how|who)\b)[^?,;]{2,40}?"
                        r"(?:\s+for\s+me)?(?:\s+please)?\s*\??$", re.I)
# a sentence after a question that only says how to answer it ("voyage numbers and ships please")
_HOW_TO_ANSWER = re.compile(r"\b(?:please|pls|plz|thanks|thank you|cheers)\b", re.I)
# a clause that names the question's subject, not a statement ("and the Kota Singa - where ...?")
_TOPIC = re.compile(r"\W*(?:and|also|plus|or|what about|how about|as for)\b", re.I)
# where a clause set apart ends: a colon, a semicolon, a comma, a dash
_CLAUSE_END = re.compile(r"\s*[:;,]\s+|\s+[-\u2013\u2014]\s+|\s*[\u2013\u2014]\s*")

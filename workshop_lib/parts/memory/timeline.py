"""What the user said happened, and when: dates read from their own words, compared and counted.

A user tells the assistant about events of their own work in passing ("the Busan lot - booked that one
on February twenty-eighth", "customs put a hold on HX-2231 on Tuesday the 27th of May", "the hold was
released Friday 30 May"). Every sentence of theirs that gives a calendar date is an event: its words and
its date. A question about time is answered from the events its distinctive words point at:

- which came first (or last) of two things named: the two events' dates compared;
- how many days apart, between, or how long something lasted: the two events it names, subtracted;
- what date, when: the one event it names.

How a thing stands now is not answered from the latest dated sentence: measured on conversations
written blind, that read more wrong than right (a later change is often said without a date).

A date without a year is in the year the data is stated as of (the schema's comments say which): the
workshop's world is that year. Only English month names and numbers in digits or English words are
read; a weekday alone ("last Monday") is not a date. A sentence the user later asked to forget is never
read again (said.py's rule). Nothing here guesses: a question whose words point at no event, or at more
than the events it needs, gets None and the caller falls back.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workshop_lib.assistant.document_reader import word_root
from workshop_lib.parts.memory import personal, preferences

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

MAX_MESSAGES = 400

_MONTHS = tuple(m.lower() for m in preferences.MONTHS)  # English whatever the locale
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()


def _day_number(word: str) -> int | None:
    """1..31 from "27", "27th", "third", "twenty-eighth", "thirty first"; None otherwise."""
    w = word.lower().replace("-", " ").strip()
    if m := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", w):
        return int(m.group(1))
    parts = w.split()
    tens = {"twenty": 20, "thirty": 30}
    if parts and parts[0] in tens:
        base, rest = tens[parts[0]], parts[1:]
    else:
        base, rest = 0, parts
    if not rest:
        return base or None
    if len(rest) == 1 and rest[0] in _ORDINALS:
        return base + _ORDINALS.index(rest[0])
    if len(rest) == 1 and rest[0] in _UNITS:
        return base + _UNITS.index(rest[0])
    return {"twentieth": 20, "thirtieth": 30}.get(w)


_DAY_WORD = (r"\d{1,2}(?:st|nd|rd|th)?|(?:(?:twenty|thirty)[- ]?)?(?:" + "|".join(_ORDINALS[1:] + _UNITS[1:]) +
             r")|twentieth|thirtieth|twenty|thirty")
_MONTH = "|".join(_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
_DAY_MONTH = re.compile(rf"\b({_DAY_WORD})(?:\s+of)?\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?", re.I)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(?:the\s+)?({_DAY_WORD})\b(?:,?\s+(\d{{4}}))?", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _month(word: str) -> int:
    w = word.lower()
    return next(i + 1 for i, m in enumerate(_MONTHS) if m.startswith(w[:3]))


def dates_in(text: str, year: int) -> list[tuple[int, datetime.date]]:
    """(position, date) of every calendar date a text gives, in order; `year` when it gives none."""
    found: dict[int, datetime.date] = {}
    for m in _ISO.finditer(text):
        found[m.start()] = datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for pattern, day_at, month_at in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for m in pattern.finditer(text):
            day = _day_number(m.group(day_at))
            if day is None or any(abs(m.start() - p) < 12 for p in found):
                continue
            try:
                found[m.start()] = datetime.date(int(m.group(3) or year), _month(m.group(month_at)), day)
            except ValueError:
                continue  # "the 31st of June": not a date
    return sorted(found.items())


UNDATED = datetime.date.min  # a day said without its month
THIS_TURN = "this turn"  # the message id of the events of the turn being asked
_BARE_DAY = re.compile(rf"\b(?:on|from|until|till|by)\s+the\s+(?:{_DAY_WORD})\b(?!\s+(?:of\s+)?(?:{_MONTH}))", re.I)


@dataclass(frozen=True)
class Event:
    text: str               # the user's sentence
    date: datetime.date
    words: frozenset[str]   # the content words of its sentence
    message_id: str
    said_at: str
    own: frozenset[str] = frozenset()  # those of the clause that gives the date
    around: frozenset[str] = frozenset()  # those of the other sentences of its message
    data: str = ""          # a day the data holds of a thing of theirs ("voyage 241W arrives in Colombo"), not told
    departs: bool = False   # that day is the voyage's departure (else its arrival)
    supposed: str = ""      # the question's "if" clause that moves the data's day ("if the ETA slipped to the 14th")


def data_event(what: str, day: datetime.date, words: str, record: str, *, departs: bool) -> Event:
    """A day the data holds of a thing the user told (their voyage's departure or arrival), with the words
    that name it ("arrive eta due Colombo 241W"), beside the days they told."""
    roots = frozenset(_roots(f"{what} {words}"))
    return Event(what, day, roots, record, "", roots, data=what, departs=departs)


def events(eng: Engine, user_id: str, agent_id: str, year: int, asking: str = "") -> list[Event]:
    """Every clause of the user's that gives a date, oldest first (and those of the turn being asked,
    `asking`, last); a later request to forget what a sentence names drops it."""
    messages = eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=MAX_MESSAGES)
    said = [(m.content, m.id, m.created_at or "") for m in messages
            if getattr(m, "role", "user") == "user" and m.content and m.content != asking
            and (_MAY_HOLD_A_DATE.search(m.content) or personal.FORGET.search(m.content))]
    out: list[Event] = []
    for text, message_id, at in [*said, (asking, THIS_TURN, "")]:
        out = _with_message(out, personal.sentences(text), year, message_id, at)
    return out


def _with_message(out: list[Event], told: list[str], year: int, message_id: str, at: str) -> list[Event]:
    """The events so far with those of one message's sentences; a sentence asking to forget drops the
    events it shares a word with."""
    for sentence in told:
        if personal.FORGET.search(sentence):
            words = frozenset(_roots(sentence))
            out = [e for e in out if not (e.words & words)]
            continue
        around = frozenset(_roots(" ".join(s for s in told if s is not sentence)))
        out += [dataclasses.replace(e, around=around) for e in _dated(personal.statement_part(sentence), year, message_id, at)]
    return out


# a message worth reading for dates: it names a month or gives an ISO date (the rest are skipped unread)
_MAY_HOLD_A_DATE = re.compile(rf"\b(?:{_MONTH})\b|\d{{4}}-\d{{2}}-\d{{2}}|\bthe\s+(?:{_DAY_WORD})\b", re.I)


# the parts of a sentence a date belongs to: "off from the 16th of June, and back on the 30th"
_CLAUSE = re.compile(r",\s*|\s+(?:and|but|then|while)\s+", re.I)


def _dated(stated: str, year: int, message_id: str, at: str) -> list[Event]:
    """One event per clause of the statement that gives a date; a clause that gives a day without its
    month ("now they reopen on the sixteenth") is an undated one: what it is about is unsure."""
    out = []
    for clause in _CLAUSE.split(stated):
        words = frozenset(_roots(clause)) | frozenset(_roots(stated))
        dated = dates_in(clause, year)[:1]
        for _, day in dated:
            out.append(Event(stated, day, words, message_id, at, frozenset(_roots(clause))))
        if not dated and _BARE_DAY.search(clause):
            out.append(Event(stated, UNDATED, words, message_id, at, frozenset(_roots(clause))))
    return out


def _roots(text: str) -> set[str]:
    """The content words of a text as roots (the document reader's: "gated" and "the gate-in" meet), a
    hyphenated word as its parts."""
    return {_root(part) for w in personal.content_words(text) for part in w.split("-") if part}


def _root(word: str) -> str:
    """The reader's root, without a final e ("the quote" meets "we quoted", "the signing" "signed"); a noun
    in -nsion as its verb ("the extension" meets "we extended", "the suspension" "suspended")."""
    root = word_root(re.sub(r"nsions?$", "nd", word.lower()))
    return root[:-1] if len(root) >= 5 and root.endswith("e") else root


# what a question about time asks
_FIRST = re.compile(r"\b(?:first|earlier|earliest|sooner|before the other)\b", re.I)
_LAST = re.compile(r"\b(?:last|later|latest|most recent|after the other)\b", re.I)
_SPAN = re.compile(r"\bhow (?:many|much) (?:days|weeks)\b|\bhow long\b|\bdays? (?:apart|between)\b", re.I)
_DATE = re.compile(r"\b(?:what|which) (?:date|day)\b|\bwhen (?:did|was|were|is|do)\b", re.I)
_OPTIONS = re.compile(r"^\s*(?:the\s+)?(.+?)\s+or\s+(?:the\s+)?(.+?)\s*\??$", re.I)
# words that ask about time, not about which thing
_TIME_WORDS = frozenset(_roots("""first earlier earliest later latest last days day weeks week apart
    between long date when status now currently moment before after sooner recent many much""").union(
    {_root(w) for w in _MONTHS}))


@dataclass(frozen=True)
class Answer:
    text: str
    used: tuple[Event, ...]


def _distinctive(question: str, found: list[Event]) -> set[str]:
    """The question's words that name something (not time words), which few of the user's events share."""
    asked = _roots(question) - _TIME_WORDS
    return {w for w in asked if 0 < sum(bool(_shared({w}, e.words)) for e in found if e.message_id != THIS_TURN) <= 3}


def _best(words: set[str], found: list[Event], want: int = 0) -> list[Event]:
    """The events sharing the most of the words (at least one); with `want`, when more than that many
    tie, those whose date's own clause shares the most ("the hold was put on ..., released on ...")."""
    top = max((len(_shared(words, e.words)) for e in found), default=0)
    tied = [e for e in found if top > 0 and len(_shared(words, e.words)) == top]
    if len(tied) <= want or not want:
        return tied
    best_own = max(len(_shared(words, e.own)) for e in tied)
    return [e for e in tied if len(_shared(words, e.own)) == best_own]


def _shared(words: set[str], roots: frozenset[str]) -> set[str]:
    """The words that meet a root: the same, or one the start of the other, four letters or more
    ("signature" and "signed": "signatur" and "sign")."""
    return {w for w in words if w in roots or len(w) >= 4 and any(len(r) >= 4 and (w.startswith(r) or r.startswith(w))
                                                                   for r in roots)}


def _said(e: Event) -> str:
    if e.supposed:
        return f"{day_said(e.date)} (as you suppose: \u201c{e.supposed}\u201d, in place of the data's day for {e.data})"
    if e.data:
        return f"{day_said(e.date)} (the data: {e.data})"
    return f"{day_said(e.date)} (you told me: \u201c{e.text}\u201d)"


def day_said(day: datetime.date) -> str:
    """"4 June 2025": a day as the answers write it."""
    return f"{day.day} {day:%B %Y}"


def _which_first(question: str, found: list[Event]) -> Answer | None:
    """"Which did I book first, the Qingdao consolidation or the Busan lot?": the two things named
    after the question's last comma, each one event's, their dates compared."""
    picked = _options_named(question, found)
    if not picked:
        return None
    (a, ea), (b, eb) = picked
    if ea is eb or ea.date == eb.date:
        return None
    first, later = ((a, ea), (b, eb)) if ea.date < eb.date else ((b, eb), (a, ea))
    lead = first if _FIRST.search(question) else later
    apart = (later[1].date - first[1].date).days
    return Answer(f"{lead[0][:1].upper()}{lead[0][1:]} came {'first' if lead is first else 'last'}: {first[0]} on {_said(first[1])}, "
                  f"{later[0]} on {_said(later[1])}; {apart} days apart.", (ea, eb))


def _first_of_their_voyages(question: str, held: list[Event]) -> Answer | None:
    """"Which of my two boxes left port first?", "which one gets to Shenzhen first?": of the data's days of their
    voyages, those the words name best (the departures, or the arrivals in a port), all of one kind and of
    two voyages or more, the earliest (or the latest); None when the words name no such days or two tie."""
    words = _roots(question) - _TIME_WORDS
    scored = [(len(_shared(words, e.own)), e) for e in held]
    top = max((n for n, _ in scored), default=0)
    named = [e for n, e in scored if top and n == top]
    if len({e.message_id for e in named}) < 2 or len({e.departs for e in named}) != 1:
        return None
    ordered = sorted(named, key=lambda e: e.date)
    lead = ordered[0] if _FIRST.search(question) else ordered[-1]
    if sum(e.date == lead.date for e in named) > 1:
        return None
    return Answer(_first_or_last_said(lead, ordered), tuple(ordered))


def _first_or_last_said(lead: Event, ordered: list[Event]) -> str:
    others = "; ".join(_said(e) for e in ordered if e is not lead)
    apart = (ordered[-1].date - ordered[0].date).days
    said = f"First: {_said(lead)}; then {others}" if lead is ordered[0] else f"Last: {_said(lead)}; before it {others}"
    return f"{said}; {apart} day{'s' if apart != 1 else ''} apart."


# "which of those two dates did I tell you about first?": the order they were told in, not their dates
_ORDER_TOLD = re.compile(r"\b(?:i|we)\s+(?:tell|told|mention|mentioned|say|said|give|gave|bring|brought)\b.*"
                         r"\b(?:first|earlier|earliest|last|later|latest)\b", re.I)
_THE_TWO = re.compile(r"\b(?:those|these|the|both)\s+(?:two|2)\b|\bboth\b", re.I)


def _told_first(question: str, found: list[Event]) -> Answer | None:
    """"Which of those two dates did I tell you about first?": of the two dated things named (as "A or B"),
    or else of the last two told, the one told first (or last), by when it was said."""
    two = _the_two_told(question, found)
    if len(two) != 2 or two[0] is two[1] or two[0].said_at == two[1].said_at:
        return None
    first, later = sorted(two, key=lambda e: e.said_at)
    lead, other = (first, later) if _FIRST.search(question) else (later, first)
    day = day_said(lead.date)
    then = "then" if lead is first else "before it"
    return Answer(f"You told me about {day} {'first' if lead is first else 'last'}: \u201c{lead.text}\u201d; "
                  f"{then}, about {_said(other)}.", (lead, other))


def _the_two_told(question: str, found: list[Event]) -> list[Event]:
    """The two events named as "A or B", else the last two told ("those two dates"); [] when neither."""
    if _options_clause(question) is not None:
        return [e for _, e in _options_named(question, found)]
    if _THE_TWO.search(question):
        return [e for e in found if e.message_id != THIS_TURN][-2:]
    return []


def _options_clause(question: str) -> re.Match[str] | None:
    """"A or B" in the clause that says "or", the last such ("which came first, A or B, and how long?")."""
    return next((o for c in reversed(re.split(r"[,:;]\s+|\s+-\s+", question)) if (o := _OPTIONS.search(c))), None)


def _options_named(question: str, found: list[Event]) -> list[tuple[str, Event]]:
    """(each option as said, the one event it names) for "A or B"; [] when there is no "or", or an option
    names no event or several."""
    m = _options_clause(question)
    if m is None:
        return []
    picked = [(option.strip(" ?,."), _best(_roots(option) - _TIME_WORDS, found)) for option in (m.group(1), m.group(2))]
    return [(said, named[0]) for said, named in picked] if all(len(named) == 1 for _, named in picked) else []


# "from the booking confirmation to the truck", "between the hold and the release": each end named apart
_ENDS = re.compile(r"\b(?:from|since)\s+(.+?)\s+(?:to|until|till|and)\s+(.+?)\s*[?.!]*$|\bbetween\s+(.+?)\s+and\s+(.+?)\s*[?.!]*$",
                   re.I)


def _ends(question: str, found: list[Event]) -> list[Event] | None:
    """The two events a question names one at each end, each by the clause its date is in; None when
    it does not name them so or either end is not one event."""
    m = _ENDS.search(question)
    if not m:
        return None
    picked = []
    for side in (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4)):
        words = _roots(side) - _TIME_WORDS
        by_clause = [e for e in found if _shared(words, e.own)]
        named = _best(words, by_clause or found, want=1)
        if len(named) != 1:
            return None
        picked.append(named[0])
    return sorted(picked, key=lambda e: e.date) if picked[0] is not picked[1] else None


# a question about the day before it moved ("the original appointment", "the date I first gave")
_ORIGINAL = re.compile(r"\b(?:original(?:ly)?|initial(?:ly)?|first (?:gave|give|said|say|told|tell|mentioned|mention)|"
                       r"before (?:it|the) (?:moved|change))\b",
                       re.I)


def _as_moved(event: Event, found: list[Event]) -> Event:
    """The day a later sentence of theirs moved this one to ("they pushed the appointment back a day, it's 13 June
    now"), the latest such; the event itself when none did."""
    later = [e for e in found if e.said_at > event.said_at and e.date != UNDATED and _moved_from(e, found) is event]
    return later[-1] if later else event


# a day said as moved: the change's length is from the day it replaced
# ("change of plan: the pickup is now on 24 June", "changed to the 12th", "the 14th instead")
_MOVED_DAY = frozenset(_roots("extended postponed delayed pushed moved rescheduled brought changed change instead"))
_MOVED_SAID = re.compile(r"\b(?:extended|extends?|postponed|postpones?|delayed|delays?|pushed|moved|rescheduled|brought|"
                         r"chang(?:e|ed|es)|instead)\b", re.I)


def _span(question: str, found: list[Event]) -> Answer | None:
    """Two events the words name, or the first and the latest of several when the question says so; one
    event that moved a day ("we extended the lease to ...") with the day it moved from."""
    named = _ends(question, found) or _with_the_day_told(question, found, _best_two(question, found))
    if len(named) == 1 and (moved := _moved_from(named[0], found)) is not None:
        named = sorted([moved, named[0]], key=lambda e: e.date)
    elif len(named) == 2 and not _ORIGINAL.search(question):
        named = sorted({id(m): m for m in (_as_moved(e, found) for e in named)}.values(), key=lambda e: e.date)
    if _FIRST.search(question) and _LAST.search(question):
        # "between my first booking and my latest one": the extremes of a set, when at least three of
        # it are found (with two, a third told in other words would be missed and the span wrong)
        named = [named[0], named[-1]] if len(named) >= 3 else []
    if len(named) != 2 or named[0].date == named[1].date or _two_voyages_mixed(question, *named):
        return None
    return _the_span_said(question, *named)


def _the_span_said(question: str, a: Event, b: Event) -> Answer:
    """"9 days: from ... to ...", led by which side when the question asks "before or after"."""
    days = (b.date - a.date).days
    span = f"{days} day{'s' if days != 1 else ''}"
    side = _before_or_after(question, a, b)
    lead = f"{side.capitalize()}, by {span}" if side else span
    return Answer(f"{lead}: from {_said(a)} to {_said(b)}.", (a, b))


# "was the ISF filed before or after the ship left?": which side of the other the first thing named is
_BEFORE_OR_AFTER = re.compile(r"\b(?:before\s+or\s+after|after\s+or\s+before|earlier\s+or\s+later|later\s+or\s+earlier|"
                              r"sooner\s+or\s+later)\b", re.I)


def _before_or_after(question: str, earlier: Event, later: Event) -> str:
    """"after" or "before", said of the event the question names before asking which ("the ISF ... before or
    after the ship left": the ISF, 9 days after); "" when it does not ask, or its words name both alike."""
    m = _BEFORE_OR_AFTER.search(question)
    if m is None:
        return ""
    head, tail = _roots(question[:m.start()]) - _TIME_WORDS, _roots(question[m.end():]) - _TIME_WORDS
    for subject, other, side in ((later, earlier, "after"), (earlier, later, "before")):
        if len(_shared(head, subject.words)) > len(_shared(head, other.words)) and \
                len(_shared(tail, other.words)) >= len(_shared(tail, subject.words)):
            return side
    return ""


def _best_two(question: str, found: list[Event]) -> list[Event]:
    """The events the distinctive words name best, earliest first: of several tied with one of the data's days, that
    day; when one day of theirs leads alone, the data's day named best beside it ("days before 248E sails is the
    pick-up")."""
    words = _distinctive(question, found)
    best = _best(words, found, want=2)
    if len(best) > 2 and sum(bool(e.data) for e in best) == 1:
        best = [e for e in best if e.data]  # ("after the ship arrived": the data's day, and the one day of theirs)
    if len(best) == 1 and not best[0].data and _moved_from(best[0], found) is None:
        lead = _as_moved(best[0], found)
        rest = [e for e in found if e.data and _as_moved(e, found) is not lead]
        best += second if len(second := _best(words, rest, want=1)) == 1 else []
    return sorted(best, key=lambda e: e.date)


_TWO_COMPARED = re.compile(r"\b(?:apart|two|both|between|each other|difference)\b", re.I)


def _with_the_day_told(question: str, found: list[Event], named: list[Event]) -> list[Event]:
    """"How many days did our box sit before the ship left?": the data's day named, and the one day they told
    that the words point at most; the events named as they are otherwise."""
    if len(named) != 1 or not named[0].data:
        return named
    told = [e for e in found if not e.data and e.message_id != THIS_TURN]
    other = _best(_roots(question) - _TIME_WORDS, told, want=1)
    if len(other) > 1:  # ("Harrow's box sit in the terminal": a name of theirs is in many sentences; the rest tells)
        other = _best(_roots(question) - _TIME_WORDS - _roots(" ".join(_NAME_WORD.findall(question))), other, want=1)
    if len(other) > 1 and not _ORIGINAL.search(question):  # a day and the day it moved to: the day as it is now
        other = list({id(m): m for m in (_as_moved(e, found) for e in other)}.values())
    return sorted(named + other, key=lambda e: e.date) if len(other) == 1 else named


# a word written capitalised inside a sentence: a name ("Harrow's box")
_NAME_WORD = re.compile(r"(?<=[a-z,]\s)([A-Z][a-z]+)")


def _two_voyages_mixed(question: str, a: Event, b: Event) -> bool:
    """The data's days of two sailings where one sailing's span is asked ("how many days does my sailing take?"),
    or one voyage's departure against another's arrival: no span of either."""
    if not (a.data and b.data and a.message_id != b.message_id):
        return False
    return a.departs != b.departs or not _TWO_COMPARED.search(question)


def _moved_from(event: Event, found: list[Event]) -> Event | None:
    """The day a moved day replaced: the latest told before it that shares two of its other words; None when
    the event does not say a day moved, or no such day was told."""
    # (the clause's words, or its sentence's when the clause says only the day: "..., it's 13 June now")
    said = event.own if event.own - _TIME_WORDS else event.words
    if not (said & _MOVED_DAY and _MOVED_SAID.search(event.text)):
        return None  # (the verb as said: "moved", not "EUR 335 per move")
    words = set(said - _MOVED_DAY - _TIME_WORDS)
    # (two words shared; one of a short sentence: "they pushed the appointment back a day")
    before = [e for e in found if e.said_at < event.said_at and e.message_id != THIS_TURN
              and len(_shared(words, e.words)) >= min(2, max(1, len(words) - 1))]
    return before[-1] if before else None


# days counted from today to a day told, or back to it: "how many days ago", "how many days left until"
# ("days left", "do we have left", not "before the ship left")
_FROM_TODAY = re.compile(r"\bhow (?:many|much) (?:days|weeks)\b.*\b(?:ago|until|till|to go|remain\w*|away)\b|"
                         r"\bhow (?:many|much) (?:days|weeks)\b.*(?:\b(?:have|has|got|are|is|still)\s+(?:\w+\s+)?left\b|"
                         r"\bleft\s+(?:until|till|before|to)\b)|"
                         r"\bdays? (?:ago|left|to go)\b|\bhow long ago\b", re.I)
# a day the question gives to count from or to ("how many days is that from 2 June 2025?", "counting to 2 June")
_A_DAY_GIVEN = re.compile(rf"{_DAY_MONTH.pattern}|{_MONTH_DAY.pattern}|{_ISO.pattern}", re.I)
_TODAY = word_root("today")


def _today_told(question: str, found: list[Event], year: int) -> datetime.date | None:
    """The day the user says today is: right after "today" in the question ("counting from today, 2 June"), else
    the latest clause of theirs that says it ("Today is 2 June."); None when never said."""
    for m in re.finditer(r"\btoday\b", question, re.I):  # the day right after the word ("today, 2 June")
        if days := dates_in(question[m.end():m.end() + 30], year):
            return days[0][1]
    if len(given := dates_in(question, year)) == 1:  # "how many days is that from 2 June 2025?"
        return given[0][1]
    told = [e for e in found if _TODAY in e.own]
    return told[-1].date if told else None


_STILL_TO_COME = re.compile(r"\b(?:left|until|till|to go|remain\w*|away|kicks? in|starts?)\b", re.I)
_GONE_BY = re.compile(r"\b(?:ago|since)\b", re.I)
_FROM_NOW = re.compile(r"\b(?:today|now|ago|left|remain\w*|to go|from now)\b", re.I)


def _from_today(question: str, found: list[Event], year: int = 0, as_of: datetime.date | None = None) -> Answer | None:
    """"How many days ago was the first gate-in, counting from today, 2 June?", "how many days left until
    my doc cut-off?": the day told today is (else the data's own date, `as_of`), and the one event the other
    words name (the latest told of those they name alike: a day moved is said again in the same words)."""
    told_today = _today_told(question, found, year)
    # (the data's date stands for today only when the question counts from now in so many words)
    today = told_today or (as_of if _FROM_NOW.search(question) else None)
    event = _the_day_counted_to(question, found)
    if today is None or event is None or not _may_count(question, found, event, today, told=told_today is not None):
        return None
    days = abs((event.date - today).days)
    ends = (event, today) if event.date < today else (today, event)
    today_word = "today, " if re.search(r"\btoday\b", question, re.I) or not dates_in(question, year) else ""
    if told_today is None:
        today_word = "the data's date, "  # (no day said today: the day the data is stated as of)
    said = [_said(e) if isinstance(e, Event) else f"{today_word}{day_said(e)}" for e in ends]
    return Answer(f"{days} day{'s' if days != 1 else ''}: from {said[0]} to {said[1]}.", (event,))


def _the_day_counted_to(question: str, found: list[Event]) -> Event | None:
    """The one event the words name besides today, as a later sentence moved it (unless the original is asked:
    "until the higher rate kicks in" after "the increase is postponed to 15 June")."""
    others = [e for e in found if _TODAY not in e.own and e.message_id != THIS_TURN]
    named = _best(_distinctive(question, others) - {_TODAY}, others, want=1)
    if not named:
        return None
    return named[-1] if _ORIGINAL.search(question) else _as_moved(named[-1], found)


def _may_count(question: str, found: list[Event], event: Event, today: datetime.date, *, told: bool) -> bool:
    """Not the day itself; not "how many days left until ..." of a day already past (nor "ago" of one to come);
    with today not told, not when a later change they told may be of this day in words that do not name it."""
    if event.date == today or (event.date < today and _STILL_TO_COME.search(question)) or \
            (event.date > today and _GONE_BY.search(question)):
        return False
    return told or not any(e.said_at > event.said_at and not e.data and e.date != UNDATED and personal.CHANGE.search(e.text)
                           for e in found)


def _one_date(question: str, found: list[Event]) -> Answer | None:
    """The one event the words name, when the clause its date is in names it too (a date said in
    another clause of the sentence may be of something else)."""
    words = _distinctive(question, found)
    named = _best(words, found)
    if len(named) != 1 or not (words & named[0].own):
        return None
    # ("when did Ostrander's first shipment sail?" of "We signed with Ostrander on 2 May. Their first shipment
    # sailed two weeks after.": what the question asks is said beside the date, not with it)
    unsaid = _roots(question) - _TIME_WORDS - _shared(_roots(question), named[0].words)
    if _shared(unsaid, named[0].around):
        return None
    return Answer(f"On {_said(named[0])}.", (named[0],))


# "put the milestones in order", "in chronological order": every day told, earliest first
_IN_ORDER = re.compile(r"\b(?:in (?:date |chronological |time )?order|chronological\w*)\b", re.I)


def _in_order(question: str, found: list[Event]) -> Answer | None:
    """"Put Hanul's milestones in order - what came first?": the days of theirs the question's words point at (its
    name, its thing), earliest first; None unless at least two are."""
    words = _distinctive(question, found)
    named = sorted({id(e): e for e in found if e.date != UNDATED and not e.data and e.message_id != THIS_TURN
                    and _shared(words, e.words)}.values(), key=lambda e: e.date)
    if len(named) < 2:
        return None
    return Answer("In order: " + "; ".join(_said(e) for e in named) + ".", tuple(named))


# "... and what is it now?": the day as it stands, beside the one it was first
_NOW_TOO = re.compile(r"\b(?:now|currently|these days|at the moment|today)\b", re.I)


def _before_and_now(question: str, found: list[Event]) -> Answer | None:
    """"What was the original pick-up date and what is it now?": the day first told and the day a later sentence
    of theirs moved it to; None unless the words name one day that was moved."""
    named = [e for e in _best(_distinctive(question, found), found) if e.date != UNDATED]
    first = [e for e in named if _as_moved(e, found) is not e]
    if len(first) != 1:
        return None
    now = _as_moved(first[0], found)
    return Answer(f"First {_said(first[0])}; now {_said(now)}.", (first[0], now))


def _undated_since(result: Answer, found: list[Event]) -> bool:
    """A day said without its month, after the events an answer uses and about the same thing: the
    answer may be out of date."""
    used = set().union(*(e.words for e in result.used))
    last = max(found.index(e) for e in result.used)
    return any(e.date == UNDATED and len(e.words & used) >= 2 for e in found[last + 1:])


_HAPPENED = re.compile(r"\bwhat (?:happened|went on|was done|did (?:i|we|they|you) (?:say|tell)|took place)\b", re.I)


def _on_date(question: str, found: list[Event], year: int = 0) -> Answer | None:
    """"What happened on the first of June with the Gulf Dates shipment?": the one event told with the
    date the question gives (the one whose words it shares, when several were)."""
    asked = {day for _, day in dates_in(question, year)}
    told = [e for e in found if e.message_id != THIS_TURN and e.date in asked]
    if len(asked) != 1 or not told:
        return None
    named = _best(_roots(question) - _TIME_WORDS, told) or told
    if len({(e.text, e.date) for e in named}) != 1:
        return None
    return Answer(f"On {_said(named[0])}.", (named[0],))


def asks_what_happened(question: str) -> bool:
    """"What happened on the first of June ...": the data's rows record no happenings; the user's words do."""
    return _on_date in _steps(question)


def compares_two(question: str) -> bool:
    """Whether the question first asks which of two things came first, or the days between two:
    about two things told, whatever data values their names carry ("between our Piraeus office
    opening and the haulier contract")."""
    steps = _steps(question)
    return bool(steps) and steps[0] in (_which_first, _from_today, _span)


def names_a_day_told(eng: Engine, question: str, user_id: str, agent_id: str, year: int, data_words: set[str]) -> bool:
    """"How many days from stuffing to the ETA for the Kestrel cargo?": a span whose one end is named by a word of a
    dated sentence of the user's that the data's words (`data_words`: its tables' and columns' names) do not
    have ("stuffed"): about their days, whatever rows of the data its other words name."""
    if not compares_two(question):
        return False
    asked = _roots(question) - _TIME_WORDS - {_root(w) for w in data_words}
    return any(e.date != UNDATED and e.message_id != THIS_TURN and asked & e.own
               for e in events(eng, user_id, agent_id, year, asking=question))


def counts_from_today(question: str) -> bool:
    """"How many days ago ...", "how many days left until ...": days counted from the day told as today."""
    steps = _steps(question)
    return bool(steps) and steps[0] is _from_today


def asks_about_time(question: str) -> bool:
    """Whether the question asks which came first, how many days, or what date (cheap: no store read)."""
    return bool(_steps(question))


Step = Callable[[str, list[Event]], "Answer | None"]


def _steps(question: str) -> list[Step]:
    """The steps for what the question asks about time, first kind first."""
    asks = [
        (_told_first, bool(_ORDER_TOLD.search(question)) and (" or " in question or bool(_DAYS_SAID.search(question)))),
        (_which_first, bool(_FIRST.search(question) or _LAST.search(question)) and " or " in question),
        (_from_today, bool(_FROM_TODAY.search(question) or (_SPAN.search(question) and len(_A_DAY_GIVEN.findall(question)) == 1))),
        (_span, bool(_SPAN.search(question))),
        (_before_and_now, bool(_ORIGINAL.search(question) and _NOW_TOO.search(question))),
        (_in_order, bool(_IN_ORDER.search(question))),
        (_one_date, bool(_DATE.search(question))),
        (_on_date, bool(_HAPPENED.search(question) and _A_MONTH_SAID.search(question))),
    ]
    # (which of their boxes they told first is an order of memories: recall's)
    return [step for step, asked in asks if asked]


_DAYS_SAID = re.compile(r"\b(?:dates?|days?)\b", re.I)
_A_MONTH_SAID = re.compile(rf"\b(?:{_MONTH})\b|\d{{4}}-\d{{2}}-\d{{2}}", re.I)


def answer(eng: Engine, question: str, *, user_id: str, agent_id: str, year: int,
           held: Sequence[Event] = (), as_of: datetime.date | None = None) -> Answer | None:
    """The answer from the user's dated events to a question about time, or None (not about time,
    or its words do not point at the events it needs). `held`: the days the data holds of their things
    (data_event), read beside the ones they told ("between the ship's ETA and our deadline"); `as_of`: the date the
    data is stated as of, today when they never said which day today is."""
    steps = _steps(question)
    if not steps:
        return None
    if (_FIRST.search(question) or _LAST.search(question)) and " or " not in question and \
            (first := _first_of_their_voyages(question, list(held))) is not None:
        return first
    # (the data's days count only in a span: "when does it arrive?" is the data's own question; they come
    # first, so that a day told later without its month still says the answer may be out of date)
    held = _as_supposed(question, list(held), year)
    found = (list(held) if steps[0] in (_span, _from_today, _which_first) else []) + events(eng, user_id, agent_id, year, question)
    if not found:
        return None
    # the first kind the question asks is the one answered: a span that cannot be worked out is no
    # reason to answer with the latest date instead
    step = functools.partial(steps[0], year=year) if steps[0] is _on_date else \
        functools.partial(_from_today, year=year, as_of=as_of) if steps[0] is _from_today else steps[0]
    result = step(question, [e for e in found if e.date != UNDATED])
    return None if result is None or _undated_since(result, found) else result


# a day the question supposes for an event of the data's ("if the ETA slipped to the 14th", "say it arrives on 20 June")
_SUPPOSED = re.compile(r"\b(?:if|suppose|supposing|assuming|say|what if|in case)\b[^?,;]*", re.I)
_ARRIVING = re.compile(r"\b(?:eta|arriv\w*|gets? in|got in|due|lands?|reach\w*|docks?)\b", re.I)
_LEAVING = re.compile(r"\b(?:etd|depart\w*|leav\w*|left|sails?|sailing)\b", re.I)


def _as_supposed(question: str, held: list[Event], year: int) -> list[Event]:
    """The data's days of their things, the one of the kind an "if" clause of the question names moved to the
    day it supposes (a day of the month alone keeps the month of the data's day); as they are otherwise."""
    m = _SUPPOSED.search(question)
    if m is None or not held:
        return held
    clause = m.group(0).strip()
    departs = True if _LEAVING.search(clause) else False if _ARRIVING.search(clause) else None
    dated = dates_in(clause, year)
    bare = re.search(rf"\bthe\s+({_DAY_WORD})\b", clause, re.I)
    number = _day_number(bare.group(1)) if bare else None
    if departs is None or not (dated or number):
        return held
    out = []
    for e in held:
        if e.data and e.departs == departs:
            try:
                day = dated[0][1] if dated else e.date.replace(day=number or e.date.day)
            except ValueError:  # (the 31st of a month of 30 days)
                return held
            e = dataclasses.replace(e, date=day, supposed=clause)
        out.append(e)
    return out

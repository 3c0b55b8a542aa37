"""Whether a day of the data makes a deadline the user told ("does that beat the deadline?").

A user tells a deadline in passing ("if the cargo isn't in LA by June 20 they'll cancel", "Garrido Wines
needs their wine in New York by 18 June at the latest"). A later question asks whether an arrival the data
holds makes it, and with how many days to spare. Two days are compared, each from where it is held:

- the deadline is a dated sentence of the user's that says one (the word, "at the latest", or a day after
  "by", "before", "no later than"): the one whose words the question shares most (a customer's name);
- the day (an arrival, or a departure when the question says leaving) is the one the question's own other
  part asks ("when is the YM Wellness due in LA?"), else the one the thread's last answer gave, else that of
  the one vessel their last answers or memories name, at the deadline's port when it names one ("which
  vessel is sailing to New York?" ... "if the wine is on that sailing, do we make it?").

Of several voyages' days, the one still to come on the day the data is stated as of is meant (asked in the
past, the one gone by). Nothing is guessed: two deadlines pointed at alike, two days that may be meant, or
a day missing give no answer (None).
"""
from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workshop_lib import assistant
from workshop_lib.assistant import document_reader, planner
from workshop_lib.assistant.answering.answer import ChatAnswer, answer_question
from workshop_lib.parts.memory import personal, timeline

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

# a question about making a deadline: whether, or by how much
ASKED = re.compile(r"\b(?:deadlines?|make (?:it|the|their|our)|in time|on time|to spare|margin|beat|(?:days?|how) late|"
                   r"late against|against what (?:i|we) promised)\b|"
                   # "before my L/C runs out": a day of theirs that ends something
                   r"\b(?:before|until|by the time)\b[^?]{1,40}\b(?:runs? out|expir\w*|lapses?|ends?|closes?)\b", re.I)
# ... of a day the data holds: a ship's or a box's arriving or leaving, or the one just answered ("does that beat it?");
# not "the days between my ready date and their deadline", two days of the user's
_OF_THE_DATA = re.compile(r"\b(?:arriv\w*|reach\w*|get (?:there|in)|due|eta|etd|fits?|land\w*|leav\w*|left|depart\w*|sail\w*|"
                          r"make it|beat|in time|on time|late|that|it)\b", re.I)
# ("does my client have ... between the ship arriving and their deadline?": "have" of owning, not of the past)
_PAST = re.compile(r"\b(?:did|was|were|left|sailed|departed|arrived|reached)\b|"
                   r"\b(?:has|have|had)\s+(?:\w+\s+){0,2}?(?:been|left|sailed|departed|arrived|reached|got|come|made)\b", re.I)
_LEAVING = re.compile(r"\b(?:leav\w*|left|depart\w*|sail(?:s|ed)?\b(?!\s+(?:in|into)))", re.I)
# a sentence that gives a deadline: the word (or what ends on it: "the letter of credit expires on 30 June"), or a
# day said as the latest ("by 18 June", "no later than the
# thirtieth of May"; not "gated in by the haulier on 26 May")
_SAID = re.compile(r"\b(?:deadlines?|at the latest|expir\w*|cut-?offs?|valid (?:until|till|through)|runs? out|lapses?|"
                   r"extend\w*\s+(?:\S+\s+){0,4}?(?:to|until|till))\b|"
                   r"\b(?:by|before|no later than)\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b|"
                   r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|"
                   r"(?:first|second|third|fourth|fifth|[a-z]+(?:th|st|nd|rd))\s+of\b|(?:twenty|thirty)[- ]?[a-z]+\s+of\b)", re.I)


def answer(eng: Engine, question: str, *, user_id: str, agent_id: str, thread_id: str | None,
           ask: Callable[[str], ChatAnswer | None]) -> ChatAnswer | None:
    """The data's day compared with the deadline the user told, or None. `ask` answers one part of the
    question (from their memory with the data, or from the data)."""
    if not (ASKED.search(question) and _OF_THE_DATA.search(question)):
        return None
    schema, _ = assistant.knowledge(eng)
    year, as_of = planner.reference_year(schema), planner.reference_date(schema)
    if year is None or as_of is None:
        return None
    told = _deadline(eng, question, user_id, agent_id, year)
    if told is None:
        return None
    if _FROM_TODAY.search(question):
        return _days_from_today(told, as_of)
    event = "departure" if _LEAVING.search(question) else "arrival"
    past = _PAST.search(question) is not None
    found = _day_of_the_data(eng, question, told, _Day(event, as_of, past), ask, (user_id, agent_id, thread_id))
    if found is None:
        return None
    data, day = found
    return dataclasses.replace(data, answer=_compared(data.answer, day, told, event, past), decision_explain={
        **data.decision_explain, "reason": f"the data's {event} compared with a deadline the user gave",
        "deadline": _explained(told)})


def _explained(told: timeline.Event) -> dict[str, str]:
    """The deadline told, as an answer's explanation says it."""
    return {"said": told.text[:300], "date": told.date.isoformat(), "memory_id": told.message_id}


# the route of an answer the user's memory grounds
_MEMORY_ROUTE = {"intent": "PERSONAL_MEMORY", "method": "memory", "label": "PERSONAL_MEMORY", "unsure": False}


# the days from the data's own day to the deadline, not from a day of the data's ("how many days from today until
# that deadline?", "how many days do we have left before it?")
_FROM_TODAY = re.compile(r"\b(?:from|since|after) (?:today|now)\b|\bdays? (?:left|remaining|to go)\b|"
                         r"\b(?:have|got) left\b|\bleft (?:until|till|before)\b", re.I)


def _days_from_today(told: timeline.Event, as_of: datetime.date) -> ChatAnswer:
    """The days between the day the data is stated as of (its "today") and the deadline told."""
    days = (told.date - as_of).days
    span = f"{abs(days)} day{'s' if abs(days) != 1 else ''}"
    when = (f"{span} from today ({timeline.day_said(as_of)}, the day the data is stated as of)" if days >= 0 else
            f"the deadline passed {span} before today ({timeline.day_said(as_of)}, the day the data is stated as of)")
    source = {"record_id": told.message_id, "subject": f"what you said, {told.said_at[:16]}",
              "memory_id": told.message_id, "said_at": told.said_at, "said": told.text[:300]}
    text = (f"{when[:1].upper()}{when[1:]} to the deadline you told me ({timeline.day_said(told.date)}: "
            f"\u201c{told.text}\u201d)." if days >= 0 else
            f"{when[:1].upper()}{when[1:]}: it was {timeline.day_said(told.date)} (\u201c{told.text}\u201d).")
    return ChatAnswer(text, "rag", {"handler": "deadline", "mode": "rag", "used_llm": "none",
                                    "reason": "the days from the data's own day to a deadline the user gave",
                                    "deadline": _explained(told)},
                      [source], [source], "all", None, False, route=dict(_MEMORY_ROUTE))


def _deadline(eng: Engine, question: str, user_id: str, agent_id: str, year: int) -> timeline.Event | None:
    """The user's dated sentence that gives a deadline, the one the question's words point at most, as a change
    said of "it" right after moved it."""
    every = [e for e in timeline.events(eng, user_id, agent_id, year, question) if e.date != timeline.UNDATED]
    dated = [e for e in every if _SAID.search(e.text)]
    now = [e for e in dated if e.message_id == timeline.THIS_TURN]
    if len(now) == 1:
        return now[0]  # "they pulled their deadline forward to 15 June. Does it still make it?": the one said now
    told = [e for e in dated if e.message_id != timeline.THIS_TURN]
    if not told:
        return None
    pointed = _pointed_at(question, told)
    return None if pointed is None else _as_changed(pointed, every)


# a later sentence that moves "it" ("they've relaxed it again, now it's 18 June"), naming no thing of its own
_IT_CHANGED = re.compile(r"\b(?:chang\w*|mov\w*|relax\w*|push\w*|pull\w*|brought|postpon\w*|delay\w*|extend\w*|"
                         r"shift\w*|now)\b[^.?!]*\bit\b|\bit\b[^.?!]*\b(?:chang\w*|mov\w*|relax\w*|push\w*|pull\w*|"
                         r"brought|postpon\w*|delay\w*|extend\w*|shift\w*|now)\b", re.I)


def _as_changed(told: timeline.Event, every: list[timeline.Event]) -> timeline.Event:
    """The deadline as the sentences said right after it changed it: each later dated sentence of theirs, in order,
    that moves "it" replaces it; the first that does not ends the run."""
    for e in sorted((e for e in every if e.said_at > told.said_at and e.message_id != timeline.THIS_TURN),
                    key=lambda e: e.said_at):
        if not _IT_CHANGED.search(e.text) or _SAID.search(e.text):
            break
        told = e
    return told


def _pointed_at(question: str, told: list[timeline.Event]) -> timeline.Event | None:
    """Of the deadlines told, the one the question's words point at most; of several alike, the one told last
    when the question asks the current one ("against their current deadline": a change replaces it), else None
    (which one is meant would be a guess)."""
    asked = document_reader._stems(question)
    shared = sorted(((len(asked & document_reader._stems(e.text)), i) for i, e in enumerate(told)), reverse=True)
    if len(shared) > 1 and shared[0][0] == shared[1][0]:
        return told[max(i for n, i in shared if n == shared[0][0])] if _CURRENT.search(question) else None
    return told[shared[0][1]]


_CURRENT = re.compile(r"\b(?:current|new|latest|updated|revised|now)\b", re.I)


# the questions of a turn: "Which vessel is it on, and will it reach Port Klang before ...?" is two
_PARTS = re.compile(r"\?\s*|,?\s+and\s+(?=(?:will|would|does|do|did|is|are|can|could|when|what|which|how)\b)", re.I)


@dataclass(frozen=True)
class _Day:
    event: str               # arrival | departure
    as_of: datetime.date     # the day the data is stated as of
    past: bool               # asked in the past ("did the ship leave ...?")


def _day_of_the_data(eng: Engine, question: str, told: timeline.Event, want: _Day,
                     ask: Callable[[str], ChatAnswer | None],
                     who: tuple[str, str, str | None]) -> tuple[ChatAnswer, datetime.date] | None:
    """(the data answer that gives the day, the day): from the question's other part, else the thread's last
    answer; else the day (at the deadline's port, when it names one) of the one vessel the first of their
    last answers, or else what the user told, names. `who`: (user, agent, thread). The store is read only
    when the question's own parts give no day."""
    answered = [a for part in _PARTS.split(question) if part.strip(" ,?") and not ASKED.search(part)
                and (a := ask(part.strip(" ,") + "?")) is not None and a.mode == "rag"]
    for a in answered:
        if (day := _day_meant(a.answer, want)) is not None:
            return a, day
    user_id, agent_id, thread_id = who
    said = _last_answers(eng, thread_id, user_id, agent_id)
    if said[0] and (day := _day_meant(said[0], want)) is not None:
        given = ChatAnswer(f"The {want.event} my last answer gives: {timeline.day_said(day)}.", "rag",
                           {"handler": "deadline", "mode": "rag", "used_llm": "none"}, [], [], "all", None, False,
                           route=dict(_MEMORY_ROUTE))
        return given, day
    # what they kept, and what they said in the thread ("Goods are on MSC Tessa 874E." is kept as no memory of theirs)
    theirs = " ".join([r.content or "" for r in personal.valid_memories(eng, user_id, agent_id)]
                      + _their_words(eng, thread_id, user_id, agent_id))
    of_vessel = _the_vessels_day(eng.scoped(user_id, agent_id), [a.answer for a in answered] + said + [theirs], told, want,
                                 theirs)
    if of_vessel is None:
        return None
    asked, day = of_vessel
    return (dataclasses.replace(asked, answer="\n".join([a.answer for a in answered] + [asked.answer])), day)


def _the_vessels_day(scoped: Engine, texts: list[str], told: timeline.Event,
                     want: _Day, theirs: str = "") -> tuple[ChatAnswer, datetime.date] | None:
    """The day of the one vessel (or voyage: "booked on 289E") the first text naming any names, at the port the
    deadline names if it names one; a ship named (or several voyages listed) of which their own words name one voyage
    ("goods are on MSC Tessa 874E") is that voyage."""
    _, values = assistant.knowledge(scoped)
    found = _their_voyage_of(values, _the_ship_or_voyage_named(values, texts), theirs)
    ports = {lk.value for lk in values.links(told.text) if lk.table == "PORTS"}
    if len(found) != 1 or len(ports) > 1:
        return None
    table, value = next(iter(found))
    asked = answer_question(scoped, _when_does(f"{'voyage ' if table == 'VOYAGES' else ''}{value}", ports, want.event))
    day = _day_meant(asked.answer, want) if asked.mode == "rag" else None
    return (asked, day) if day is not None else None


_SHIP_OR_VOYAGE = (("VESSELS", "VESSEL_NAME"), ("VOYAGES", "VOYAGE_NUMBER"))


def _their_voyage_of(values: Any, found: set[tuple[str, Any]], theirs: str) -> set[tuple[str, Any]]:
    """The ship (or voyages) found, as the one voyage their own words name when they name one of it."""
    told_of = {(lk.table, lk.value) for lk in values.links(theirs) if lk.how == "exact" and (lk.table, lk.column) in _SHIP_OR_VOYAGE}
    their_voyages = {f for f in told_of if f[0] == "VOYAGES"}
    if len(their_voyages) == 1 and found and (their_voyages < found or found <= told_of):
        return their_voyages
    return found


def _the_ship_or_voyage_named(values: Any, texts: list[str]) -> set[tuple[str, Any]]:
    """(table, value) of the ships and voyages the first text naming any names; its voyages only when it names one
    ("voyage 289E (YM Tiptop)": the voyage says which of the ship's days)."""
    named = [{(lk.table, lk.value) for lk in values.links(t) if lk.how == "exact" and (lk.table, lk.column) in _SHIP_OR_VOYAGE}
             for t in texts if t]
    found = next((v for v in named if v), set())
    return {(t, v) for t, v in found if t == "VOYAGES"} or found


def _when_does(vessel: str, ports: set[str], event: str) -> str:
    """"when does the Gunhild Maersk arrive at New York?": the data question for the day of the vessel."""
    verb, where = ("leave", "from") if event == "departure" else ("arrive", "at")
    at = f" {where} {next(iter(ports))}" if ports else ""
    return f"when does the {vessel} {verb}{at}?"


def _last_answers(eng: Engine, thread_id: str | None, user_id: str, agent_id: str) -> list[str]:
    """The user's last answers, newest first: the thread's; in a thread just opened, their last ones in others
    ("that sailing" in a new session is the one an answer before named). The first is "" when the thread's
    last answer was not to them."""
    messages: list[Any] = list(eng.store.list_thread_messages(thread_id)) if thread_id else []
    if not messages:
        messages = list(eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=_LAST * 2))
    answers = [m for m in reversed(messages) if getattr(m, "role", "") == "assistant"][:_LAST]
    return [(m.content or "") if m.user_id == user_id else "" for m in answers] or [""]


_LAST = 3  # answers read back for the vessel a question points at


def _their_words(eng: Engine, thread_id: str | None, user_id: str, agent_id: str) -> list[str]:
    """The user's own messages in the thread, else (a thread just opened) their last ones in others."""
    messages: list[Any] = list(eng.store.list_thread_messages(thread_id)) if thread_id else []
    if len([m for m in messages if getattr(m, "role", "") == "user"]) <= 1:
        messages = list(eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=_LAST * 2))
    return [m.content or "" for m in messages if getattr(m, "role", "") == "user" and m.user_id == user_id]


def _day_meant(text: str, want: _Day) -> datetime.date | None:
    """The day of the event an answer gives by its label ("arrival date 2025-06-12"): of several, the one
    still to come on the day the data is stated as of (asked in the past, the one gone by); None without
    one, or with several of those."""
    said = re.findall(rf"\b{want.event} date (\d{{4}}-\d{{2}}-\d{{2}})\b", text)
    days = sorted({datetime.date.fromisoformat(d) for d in said})
    if not days:
        return None
    # of several, the one meant is the one still to come (asked in the past, gone by); two such: a guess
    meant = [d for d in days if (d <= want.as_of if want.past else d >= want.as_of)]
    if len(days) > 1 and len(meant) != 1:
        return None
    return meant[0] if meant else days[0]


def _compared(data: str, day: datetime.date, told: timeline.Event, event: str, past: bool) -> str:
    """The data answer, then the day against the deadline in days."""
    spare = (told.date - day).days
    verb = {("departure", False): "leaves", ("departure", True): "left", ("arrival", False): "arrives",
            ("arrival", True): "arrived"}[(event, past)]
    days = f"{abs(spare)} day{'s' if abs(spare) != 1 else ''}"
    verdict = (f"Yes: it {verb} on {timeline.day_said(day)}, {days} before the deadline" if spare > 0 else
               f"Just: it {verb} on {timeline.day_said(day)}, the day of the deadline" if spare == 0 else
               f"No: it {verb} on {timeline.day_said(day)}, {days} after the deadline")
    return f"{data}\n{verdict} you told me ({timeline.day_said(told.date)}: \u201c{told.text}\u201d)."


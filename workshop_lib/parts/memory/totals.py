"""Totals worked out from figures the user told: a number of boxes times a price per box, times the
days when the price is per day, for a month or a year.

Users give figures in passing ("we ship around 12 boxes a month to Jebel Ali", "the all-in rate on that
lane is USD 1,400 per container", "four 40' high cubes for about 15 days") and later ask what it comes
to. The answer multiplies the figures it found and shows each with the words it came from, so a
figure read wrongly is seen. The price is the catalog's when the question asks for it ("at your
catalog price", "lease ... from you"), else one the user gave.

Nothing is guessed: a total is worked out only when the words name exactly one count, one price and,
for a price per day, one number of days (the question's own figures first: "if I take 10 of those
reefers for 7 days"). Anything else returns None and the caller answers as before. Figures are read
in English digits and number words; a size ("40'", "40 ft") is no count.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from workshop_lib import assistant
from workshop_lib.assistant import catalog_links
from workshop_lib.data.catalog import ITEMS, Item
from workshop_lib.parts.memory import own_values, personal, preferences, said

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_NUM = r"\d[\d,]*|" + "|".join(_WORDS + list(_TENS)) + r"|a dozen|a couple of"
# what is counted: boxes in the users' words, and the moves or entries a price is per
_THINGS = (r"box(?:es)?|containers?|cans|feus?|teus?|reefers?|cubes?|units?|dry(?:\s+vans?)?|moves?|entries|entry|"
           r"shipments?|pallets?|loads?|trucks?")
_COUNT = re.compile(rf"\b({_NUM})\s+((?:(?:of\s+)?(?:those|these|the|our|my|them)\s+)?(?:[\w'’-]+\s+){{0,3}}?)"
                    rf"({_THINGS})\b(?:\s+(?:a|per|each|every)\s+(month|week|year))?", re.I)
_MONEY_WORD = re.compile(r"\b(?:bucks?|dollars?|euros?|pounds?|usd|eur|gbp)\b", re.I)
_MONTHLY = re.compile(r"\b(?:monthly|(?:a|per|each|every) month)\b", re.I)
_DAYS = re.compile(rf"\b({_NUM})\s+days?\b", re.I)
# a question that asks for a total of money
_ASKS_TOTAL = re.compile(r"\b(?:come to|comes to|bill|spend|spending|total|altogether|combined)\b", re.I)
# a price asked over a number of things or a time: a total too ("what would leasing them for ten days cost?")
_ASKS_PRICE = re.compile(r"\b(?:cost|costs|premium|pay|owe|charge)\b", re.I)
_OVER = re.compile(rf"\b(?:per|a|each|every) (?:month|year)\b|\bmonthly\b|\bfor (?:about |around )?(?:{_NUM}) days\b|"
                   r"\b(?:for|on) (?:the|those|these|them|that|all)\b|\ball of\b|\b(?:whole|full|entire)\b", re.I)
_ADDED = re.compile(r"\b(?:add|adding|plus|grand total|on top|as well|too)\b", re.I)
_ASKS_YEAR = re.compile(r"\b(?:a|per|each|every|full|whole) year\b|\b(?:yearly|annual(?:ly)?|twelve months|12 months)\b",
                        re.I)
_CATALOG = re.compile(r"\b(?:catalog(?:ue)?|your (?:price|rate|list price)|from you|with yours|lease|leasing|leased)\b",
                      re.I)
_SIZE = re.compile(r"^\s*(?:['’]|ft\b|foot\b|feet\b|-foot|-ft)", re.I)


@dataclass(frozen=True)
class Figure:
    value: float
    words: str          # the sentence it was read from
    said_at: str = ""   # "" for the question's own
    message_id: str = ""


@dataclass(frozen=True)
class Total:
    text: str
    sources: list[dict[str, str]]


def _number(word: str) -> float | None:
    w = word.lower().replace(",", "")
    if w.isdigit():
        return float(w)
    if w in _WORDS:
        return float(_WORDS.index(w))
    return {"a dozen": 12.0, "a couple of": 2.0}.get(w, _TENS.get(w))


def _counts(text: str) -> list[tuple[float, bool]]:
    """(count, per month) of the boxes a text says, not sizes ("four 40' high cubes" is four)."""
    out = []
    money = [m.span() for m in own_values.MONEY_RE.finditer(text)]
    for m in _COUNT.finditer(text):
        if _not_a_count(text, m, money):
            continue
        n = _number(m.group(1))
        if n:
            out.append((n, bool(m.group(4) and m.group(4).lower() == "month") or bool(_MONTHLY.search(text))))
    # "if we lease 6 of those": a count of the things pointed at
    out += [(n, False) for m in _OF_THOSE.finditer(text) if not out and (n := _number(m.group(1)))]
    return out


def _not_a_count(text: str, m: re.Match[str], money: list[tuple[int, int]]) -> bool:
    """A size ("40'"), days, a price ("USD 1,400 per container", "ten bucks a move"), or a rate ("one move
    per box"): no count of boxes."""
    return bool(_SIZE.match(text[m.end(1):]) or re.match(r"\s*(?:days?|hours?|weeks?)\b", text[m.end(1):], re.I)
                or any(a <= m.start(1) < b for a, b in money) or _MONEY_WORD.search(m.group(2))
                or re.match(r"\s*(?:per|a|each)\b", text[m.end():], re.I) and m.group(4) is None)


_OF_THOSE = re.compile(rf"\b({_NUM})\s+of\s+(?:those|these|them)\b(?!\s+[\w'’-]+\s+(?:{_THINGS})\b)", re.I)


def _prices(text: str) -> list[tuple[float, str, bool]]:
    """(amount, currency, per day) of each price the text gives per thing ("USD 1,400 per container")."""
    out = []
    for m in own_values.MONEY_RE.finditer(text):
        said_price = m.group(0)
        if not re.search(r"\b(?:per|a|an|each)\b|/", said_price):
            continue
        amount = re.search(r"\d[\d,]*(?:\.\d+)?", said_price)
        currency = re.search(r"USD|EUR|GBP|[$€£]|dollars?|euros?", said_price, re.I)
        if amount:
            out.append((float(amount.group(0).replace(",", "")), preferences.currency_code(currency.group(0) if currency else "USD"),
                        bool(re.search(r"\bday\b", said_price, re.I))))
    return out


def asks_a_total(question: str) -> bool:
    """What something comes to ("the lease bill", "our monthly spend", "what would leasing them for ten days
    cost?"), not a price alone ("what does our haulier charge for waiting?")."""
    totalled = bool(_ASKS_TOTAL.search(question)) or bool(_ASKS_PRICE.search(question) and _OVER.search(question))
    return totalled and re.search(r"\b(?:what|how much|how many)\b", question, re.I) is not None


@dataclass(frozen=True)
class _Working:
    count: float
    monthly: bool
    amount: float
    currency: str
    figures: list[Figure]       # the count's, the price's and the days' (when per day), as found
    days: Figure | None = None
    item: Item | None = None    # the catalog item whose price it is


def answer(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Total | None:
    """The total the question asks, from the user's figures and the catalog's prices; None unless every
    figure it needs is found once."""
    if not asks_a_total(question) or len(assistant.asked_clauses(question)) > 1 or _ADDED.search(question):
        return None  # two questions, or a sum added to one worked out before ("the grand total")
    working = _figures(eng, question, user_id, agent_id)
    return _written(working, question) if working is not None else None


def _figures(eng: Engine, question: str, user_id: str, agent_id: str) -> _Working | None:
    """The count, the price (theirs or the catalog's) and, for a price per day, the days; None unless each is found once."""
    _, statements = said._statements(eng, user_id, agent_id)
    asked = personal.content_words(question)
    count = _one_count(question, statements, asked)
    if count is None:
        return None
    (n, monthly), count_figure = count
    item = _item_asked(eng, question, count_figure, user_id, agent_id, _corrected_by(count_figure, statements)) \
        if _CATALOG.search(question) else None
    if item is not None and (ranked := catalog_links.rank(question)) and ranked[0].item != item and \
            ranked[0].item.category == "service":
        return None  # a service asked of ("insurance at your rate") is not the lease of a box
    price = _catalog_price(item) if item is not None else _one_price(statements, asked)
    if price is None:
        return None
    (amount, currency, per_day), price_figure = price
    days = _one_days(question, statements, asked) if per_day else None
    if per_day and days is None:
        return None
    used = [f for f in (count_figure, price_figure, days) if f is not None]
    return _Working(n, monthly, amount, currency, used, days, item)


def _corrected_by(count_figure: Figure, statements: list[said.Said]) -> list[str]:
    """The statements whose count the count's own statement takes back ("8 containers now, not 12"): the thing
    it counts is the one they named."""
    corrector = [s for s in statements if s.text == count_figure.words]
    return [s.text for s in statements if any(_taken_back(c, corrector) for c, _ in _counts(s.text))]


def _item_asked(eng: Engine, question: str, count_figure: Figure, user_id: str, agent_id: str,
                corrected: list[str]) -> Item | None:
    """The item: the question's, the count's, else one the user named lately ("10 of those reefers"), else the
    one of the statements the count corrects."""
    pointed = re.search(r"\b(?:those|these|them|that|same)\b", question, re.I) is not None
    recent = [m.content for m in eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=8)
              if pointed and getattr(m, "role", "user") == "user" and m.content][::-1]
    return _catalog_item([question, count_figure.words, *recent]) or _catalog_item(corrected)


def _written(w: _Working, question: str) -> Total:
    """The total with its working: each figure and the words it came from."""
    total = w.count * w.amount * (w.days.value if w.days else 1.0)
    period = " a month" if w.monthly else ""
    if w.monthly and _ASKS_YEAR.search(question):
        total, period = total * 12, " a year (12 months)"
    working = f"{w.count:g} \u00d7 {w.currency} {w.amount:,.2f}" + (f" \u00d7 {w.days.value:g} days" if w.days else "") + \
        (" \u00d7 12 months" if period.startswith(" a year") else "")
    quoted = "; ".join(dict.fromkeys(f"\u201c{f.words}\u201d" for f in w.figures if f.said_at))
    told = f" (from what you told me: {quoted})" if quoted else ""
    item = w.item
    catalog = f" The price is the catalog's for {item.name} [{item.item_id}]: USD {item.price_usd:,.2f} " \
              f"{item.price_unit}." if item is not None else ""
    sources = {f.message_id: {"record_id": f.message_id, "subject": f"what you said, {f.said_at[:16]}",
                              "said": f.words[:300]} for f in w.figures if f.said_at}
    return Total(f"{w.currency} {total:,.2f}{period}: {working}{told}.{catalog}",
                 [*sources.values(), *([{"record_id": item.item_id, "subject": item.name}] if item else [])])


T = TypeVar("T")


def _shares(figure_words: str, asked: set[str]) -> int:
    return len(asked & personal.content_words(figure_words))


def _one(found: list[tuple[T, Figure]], asked: set[str]) -> tuple[T, Figure] | None:
    """The one figure found, or the one whose sentence shares the most words with the question (a tie is
    no answer); the newest of figures of the same value (a figure said again)."""
    if len({v for v, _ in found}) == 1:
        return found[-1]
    if not found:
        return None
    ranked = sorted(found, key=lambda f: _shares(f[1].words, asked), reverse=True)
    top = _shares(ranked[0][1].words, asked)
    return ranked[0] if top > 0 and top > _shares(ranked[1][1].words, asked) else None


def _one_count(question: str, statements: list[said.Said], asked: set[str]) -> tuple[tuple[float, bool], Figure] | None:
    own = _counts(question)
    if own:
        return (own[0], Figure(own[0][0], question)) if len(own) == 1 else None
    return _one([(c, Figure(c[0], s.text, s.said_at, s.message_id)) for at, s in enumerate(statements)
                 for c in _counts(s.text) if not _taken_back(c[0], statements[at + 1:])], asked)


# "it's 8 containers now, not 12", "ten instead of twelve": the count after the negation is no longer theirs
_TAKEN_BACK = re.compile(rf"\b(?:not|instead of|rather than|no longer|down from|up from)\s+(?:the\s+)?({_NUM})\b", re.I)


def _taken_back(count: float, later: list[said.Said]) -> bool:
    """A later statement says the count is no longer this one."""
    return any(_number(m.group(1)) == count for s in later for m in _TAKEN_BACK.finditer(s.text))


def _one_price(statements: list[said.Said], asked: set[str]) -> tuple[tuple[float, str, bool], Figure] | None:
    return _one([(p, Figure(p[0], s.text, s.said_at, s.message_id)) for s in statements for p in _prices(s.text)], asked)


def _one_days(question: str, statements: list[said.Said], asked: set[str]) -> Figure | None:
    own = [n for m in _DAYS.finditer(question) if (n := _number(m.group(1)))]
    if own:
        return Figure(own[0], question) if len(own) == 1 else None
    found = _one([(n, Figure(n, s.text, s.said_at, s.message_id)) for s in statements for m in _DAYS.finditer(s.text)
                  if (n := _number(m.group(1)))], asked)
    return found[1] if found else None


def _catalog_item(texts: list[str]) -> Item | None:
    """The catalog item the first of the texts to name one names: every word of its name (but
    "container") said, the most specific when several are ("40-foot high-cube reefers" is the reefer)."""
    for text in texts:
        said_words = catalog_links.words(text, parts=True)
        named = [(len(w), i) for i in ITEMS if (w := catalog_links.words(i.name, parts=True) - {"container"}) <= said_words]
        most = max((n for n, _ in named), default=0)
        best = [i for n, i in named if n == most]
        if len(best) == 1:
            return best[0]
    return None


# the catalog's prices that are per box (or per move of one): a count of boxes multiplies them
_PER_BOX = re.compile(r"^per (?:container|unit|move)\b")


def _catalog_price(item: Item) -> tuple[tuple[float, str, bool], Figure] | None:
    if not _PER_BOX.match(item.price_unit):
        return None  # "minimum premium per shipment", "per customs entry": not a price per box
    per_day = "per day" in item.price_unit
    return (item.price_usd, "USD", per_day), Figure(item.price_usd, f"{item.name}: {item.price_unit}")


# "how many containers did I say we've got on that sailing?", "how many pallets did I tell you ...": a count
# they told, asked as told (a count they have now may have changed in words no count is read from)
_ASKS_THEIR_COUNT = re.compile(rf"\bhow many\s+(?:[\w'’-]+\s+){{0,2}}?({_THINGS})\b(?:.*?"
                               r"\b(?:did\s+(?:i|we)\s+(?:say|tell|mention|give)|(?:i|we)\s+(?:told|said|mentioned))\b|"
                               # "how many boxes do we have on the Kyoto Express now?": theirs, which only they know
                               r"\s+(?:do|did|have|will|are|am)\s+(?:we|i)\s+(?:have|got|ship\w*|send\w*|book\w*)\b)", re.I)
# a count said as the one it is not ("fourteen, not twelve"): no count of theirs
_NOT_BEFORE = re.compile(r"\b(?:not|instead of|rather than)\s+$", re.I)


def _count_corrected(later: list[Any], count: str, thing: str) -> tuple[str, Any] | None:
    """A later statement that says the count again as another ("correction - it's 24 pallets, not 18"):
    (the count said instead, that statement); None when none does."""
    for s in later:
        m = re.search(rf"\b({_NUM})\s+([a-z]+)\s*,?\s+not\s+({_NUM})\b", s.text, re.I)
        if m and personal.stem(m.group(2).lower()) == thing and _number(m.group(3)) == _number(count):
            return m.group(1), s
    return None


def told_count(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Total | None:
    """"How many boxes do we have on the Kyoto Express now?": the count of their things the user told last
    about what the question names (two or more of its words), the last count of that sentence that is no
    rejected one ("ten boxes now" after "two of the twelve got rolled"); None when they told none."""
    if (asked_thing := _ASKS_THEIR_COUNT.search(question)) is None:
        return None
    _, statements = said._statements(eng, user_id, agent_id)
    asked = personal.content_words(question)
    thing = personal.stem(asked_thing.group(1).lower())
    for at, s in reversed(list(enumerate(statements))):
        if _shares(f"{s.context} {s.text}", asked) < 2:
            continue  # ("Al-Noor bumped it back up. Final count is fifteen pallets.": the sentence before names whose)
        # ("forty-two pallets": the count is forty-two, not two; the thing counted is the one asked)
        counts = [m for m in _COUNT.finditer(s.text) if not _not_a_count(s.text, m, [])
                  and not _NOT_BEFORE.search(s.text[:m.start()]) and _number(m.group(1))
                  and s.text[max(0, m.start() - 1):m.start()] != "-" and personal.stem(m.group(3).lower()) == thing]
        if counts:
            m = counts[-1]
            said_count, words = m.group(0).strip(), f": \u201c{s.text}\u201d"
            # "twelve containers ..., sorry, fourteen, not twelve": the number said instead (the words that
            # still hold the wrong one are not repeated)
            if (fixed := re.search(rf"\b({_NUM})\s*,?\s+not\s+{re.escape(m.group(1))}\b", s.text[m.end():], re.I)):
                said_count, words = f"{fixed.group(1)} {m.group(3)}", ", correcting yourself"
            elif (later := _count_corrected(statements[at + 1:], m.group(1), thing)) is not None:
                said_count, words, s = f"{later[0]} {m.group(3)}", f", correcting it: \u201c{later[1].text}\u201d", later[1]
            text = (f"You told me {said_count} (on {s.said_at[:10]}{words}). That is your own count; "
                    "the data's manifests may list other boxes on the same ship.")
            return Total(text, [{"said": s.text, "said_at": s.said_at, "record_id": s.message_id}])
        if re.search(rf"\b(?:{_NUM})\b", s.text, re.I):
            return None  # a number said of it that is no count read here ("forty-two pallets"): no guess
    return None

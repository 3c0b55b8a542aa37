"""Prices the user was quoted, compared: the cheapest, the dearest, the first and the latest told.

A coordinator collects quotes over a conversation ("First drayage quote came in: $380 a move from Pacific
Haul.", "Got another one: Harbor Link, $340 a move.") and later asks "which is the cheapest so far?",
"which haulier quoted first?", "how does the cheapest compare with your catalog price?". A quote is a
sentence of the user's that names exactly one sum and one name of theirs (own_values): who quoted what.
The order is the order told. A comparison with the catalog takes the one item the question (or, else,
the quotes' own words) names, per the same unit.

Nothing is guessed: fewer than two quotes, a question that asks none of these, or sums in different
currencies give None and the caller answers as before. A sentence the user later asked to forget is never
read again (said.py's rule).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workshop_lib import assistant
from workshop_lib.data.catalog import ITEMS, Item
from workshop_lib.parts.memory import own_values, personal, preferences

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

MAX_MESSAGES = 200

# what a question about quotes asks: which is cheapest or dearest, which came first or last, a comparison
_CHEAPEST = re.compile(r"\b(?:cheapest|lowest|least expensive|best price|best rate)\b", re.I)
_DEAREST = re.compile(r"\b(?:dearest|priciest|most expensive|highest)\b", re.I)
_LATEST = re.compile(r"\b(?:most recent(?:ly)?|latest|last)\b", re.I)
_FIRST = re.compile(r"\b(?:first|earliest)\b", re.I)
_QUOTE_WORD = re.compile(r"\bquot\w*|\boffers?\b|\bbids?\b|\bprices? (?:i|we) (?:got|had|was given)\b", re.I)
_COMPARED = re.compile(r"\b(?:compare[sd]?|versus|vs\.?|against|than)\b", re.I)
_CATALOG = re.compile(r"\b(?:catalog(?:ue)?|your (?:own )?(?:[\w-]+ )?(?:price|rate|list price))\b", re.I)


@dataclass(frozen=True)
class Quote:
    name: str
    amount: float
    currency: str
    text: str        # the user's sentence
    said_at: str


@dataclass(frozen=True)
class Answer:
    text: str
    used: tuple[Quote, ...]


def asks(question: str) -> bool:
    """Whether the question asks which of several quotes (cheap, no store read)."""
    return bool(_QUOTE_WORD.search(question) and (_CHEAPEST.search(question) or _DEAREST.search(question) or
                                                  _LATEST.search(question) or _FIRST.search(question))) or \
        bool((_CHEAPEST.search(question) or _DEAREST.search(question)) and _COMPARED.search(question))


def told(eng: Engine, user_id: str, agent_id: str) -> list[Quote] | None:
    """The user's quotes in the order told: each sentence naming one sum and one party (a name of theirs,
    not a value of the data such as a port). None when a sentence that gives a sum in the words of a
    quote ("quote", "offer", or per the same unit as a quote) names no one party: which quote it is would
    be a guess, and so would every comparison."""
    messages = eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=MAX_MESSAGES)
    read = _Reader(eng)
    for m in messages:
        if getattr(m, "role", "user") == "user" and m.content:
            for sentence in personal.sentences(m.content):
                read.sentence(sentence, m.created_at or "")
    units = {_per(q.text) for q in read.quotes} - {""}
    return None if any(_QUOTE_WORD.search(s) or _per(s) in units for s in read.unread) else read.quotes


class _Reader:
    """The quotes read so far, and the sentences with a sum that read as none."""

    def __init__(self, eng: Engine) -> None:
        _, self.values = assistant.knowledge(eng)
        self.ports = {str(v[0]) for v in self.values.phrases if (v[1], v[2]) == ("PORTS", "PORT_NAME")}
        self.quotes: list[Quote] = []
        self.unread: list[str] = []

    def sentence(self, sentence: str, at: str) -> None:
        """One sentence of the user's: a request to forget drops the quotes of the names it says."""
        if personal.FORGET.search(sentence):
            self.quotes = [q for q in self.quotes if q.name.lower() not in sentence.lower()]
            return
        stated = personal.statement_part(sentence)
        taken = [(lk.start, lk.end) for lk in self.values.links(stated) if lk.how != "word"]
        found = _quote(stated, at, own_values.find(stated, taken, places=self.ports), self.ports)
        if found is not None:
            self.quotes.append(found)
        elif "?" not in stated and own_values.MONEY_RE.search(stated):
            self.unread.append(stated)


def _per(sentence: str) -> str:
    """What a sum is per ("a move", "per container"), as written; "" when it says none."""
    money = own_values.MONEY_RE.search(sentence)
    per = re.search(r"\b(?:a|an|per|each)\s+([a-z]+)\b", sentence[money.start():], re.I) if money else None
    return per.group(1).lower() if per else ""


def _quote(sentence: str, at: str, values: list[own_values.OwnValue], ports: set[str]) -> Quote | None:
    """The one sum and the one party a sentence names, or None. A party said after "from" reads as a
    place to the name finder ("$380 a move from Pacific Haul"): it is a party unless the data knows it as a port."""
    if "?" in sentence:
        return None
    sums = [v for v in values if v.kind == own_values.MONEY]
    names = [v for v in values if v.kind == own_values.NAME or (v.kind == own_values.PLACE and v.value.lower() not in ports)]
    if len(sums) != 1 or len(names) != 1:
        return None
    amount = re.search(r"\d[\d,]*(?:\.\d+)?", sums[0].value)
    unit = re.search(r"[$€£]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks?)\b", sums[0].value, re.I)
    if amount is None or unit is None:
        return None
    return Quote(names[0].value, float(amount.group(0).replace(",", "")), preferences.currency_code(unit.group(0)), sentence, at)


def answer(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Answer | None:
    """Each thing the question asks of the user's quotes, one line each; None when it asks none, or
    fewer than two quotes in one currency were told."""
    if not asks(question):
        return None
    quotes = told(eng, user_id, agent_id)
    if quotes is None or len(quotes) < 2 or len({q.currency for q in quotes}) != 1:
        return None
    by_price = sorted(quotes, key=lambda q: q.amount)
    picks = ((_LATEST, quotes[-1], "The most recent"), (_FIRST, quotes[0], "The first"),
             (_CHEAPEST, by_price[0], "The cheapest"), (_DEAREST, by_price[-1], "The dearest"))
    asked = [(picked, said) for pattern, picked, said in picks if pattern.search(question)]
    used = [picked for picked, _ in asked]
    lines = [f"{said} quote is {picked.name}'s, {_money(picked)} (you told me: \u201c{picked.text}\u201d)."
             for picked, said in asked]
    if not lines:
        return None
    if _CATALOG.search(question) and used and (compared := _with_the_catalog(question, used[-1], quotes)):
        lines.append(compared)
    listed = "; ".join(f"{q.name} {_money(q)}" for q in quotes)
    return Answer("\n".join(lines + [f"The quotes you told me, in order: {listed}."]), tuple(used))


def _with_the_catalog(question: str, quote: Quote, quotes: list[Quote]) -> str | None:
    """The quote against the catalog's price of the one item the question names (else the quotes' words do)."""
    named = _items_named(question) or _items_named(" ".join(q.text for q in quotes))
    if len(named) != 1 or quote.currency != "USD":
        return None
    item = named[0]
    gap = quote.amount - item.price_usd
    side = "more" if gap > 0 else "less"
    said = f"USD {abs(gap):,.2f} {side} than" if gap else "the same as"
    return (f"{quote.name}'s {_money(quote)} is {said} our catalog's {item.name} [{item.item_id}] at USD "
            f"{item.price_usd:,.2f} {item.price_unit}.")


def _items_named(text: str) -> list[Item]:
    """The catalog items whose name the text writes ("drayage", "customs brokerage")."""
    return [i for i in ITEMS if re.search(rf"\b{re.escape(i.name.lower())}\b", text.lower())]


def _money(q: Quote) -> str:
    return f"{q.currency} {q.amount:,.2f}"


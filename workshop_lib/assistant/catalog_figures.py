"""Figures the catalog's descriptions state, applied to the figure a question gives.

Some descriptions state a capacity ("33 m3 inside, up to 28 t payload") or a price that is a share
of a value ("Premium is 0.35% of the insured value; this price is the minimum premium"). A question
that gives a load ("27 tonnes of steel", "about 70 cbm of cartons") is answered by the items whose
stated capacity holds it, cheapest first, with those that do not; a question that gives a value
("goods worth $80k") is answered with the share worked out, never below the item's minimum. The
figures are read from the descriptions when the catalog is loaded, not typed in here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workshop_lib.data.catalog import ITEMS, Item

_VOLUME = re.compile(r"(\d+(?:\.\d+)?)\s*m3\b")
_PAYLOAD = re.compile(r"(\d+(?:\.\d+)?)\s*t\s+payload\b")
_SHARE = re.compile(r"(\d+(?:\.\d+)?)\s*%\s+of\s+the\s+([a-z ]*?value)\b", re.I)
# a load in the question: a number with a unit of mass or volume
_LOAD = re.compile(r"(\d+(?:[.,]\d+)?)\s*(k)?\s*(tonnes?|tons?|t|kg|kgs|kilos?|m3|cbm|cubic met(?:er|re)s?)\b", re.I)
# a value in the question: money with its currency on either side, "k" for thousands
_MONEY = re.compile(r"(?:\$|usd\s*)(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k\b)?|"
                    r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k\b)?\s*(?:usd|dollars?)\b", re.I)


@dataclass(frozen=True)
class Capacity:
    item: Item
    amount: float
    unit: str            # "t" or "m3"


def capacities(unit: str) -> list[Capacity]:
    """The items whose description states a capacity in that unit, smallest first."""
    pattern = _PAYLOAD if unit == "t" else _VOLUME
    found = [Capacity(i, float(m.group(1)), unit) for i in ITEMS if (m := pattern.search(i.description))]
    return sorted(found, key=lambda c: c.amount)


def load_in(question: str) -> tuple[float, str] | None:
    """The load a question gives, in tonnes or cubic metres; None when it gives none or several."""
    found = list(_LOAD.finditer(question))
    if len(found) != 1:
        return None
    m = found[0]
    amount = float(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1)
    unit = m.group(3).lower()
    if unit.startswith("k"):
        return amount / 1000, "t"
    return (amount, "t") if unit.startswith("t") else (amount, "m3")


@dataclass(frozen=True)
class Fit:
    need: float
    unit: str
    holding: list[Capacity]      # cheapest first
    short: list[Capacity]        # the items named or nearest that do not hold it

    def sentence(self) -> str:
        shown = f"{_num(self.need)} {self.unit}"
        lines = [f"For {shown}, by the capacity each description states:"]
        lines += [f"- {c.item.name} [{c.item.item_id}]: up to {_num(c.amount)} {c.unit}: holds it" for c in self.holding]
        lines += [f"- {c.item.name} [{c.item.item_id}]: up to {_num(c.amount)} {c.unit}: too small" for c in self.short]
        return "\n".join(lines)


def fit(question: str, named: list[Item]) -> Fit | None:
    """Which items hold the load the question gives (the smallest that does first), and which of the
    items it names do not; None when it gives no load or no description states that capacity."""
    load = load_in(question)
    if load is None:
        return None
    need, unit = load
    caps = capacities(unit)
    if not caps:
        return None
    # the cheapest that holds it first: "24 t of tiles" goes in a 20' (28 t), not the bigger 40' (26.5 t)
    holding = sorted([c for c in caps if c.amount >= need], key=lambda c: (c.item.price_usd, c.amount))
    ids = {i.item_id for i in named}
    too_small = [c for c in caps if c.amount < need]
    # the named ones that do not hold it, else the nearest ("is a standard 40' enough, or the HC?")
    short = [c for c in too_small if c.item.item_id in ids][-2:] or too_small[-1:]
    return Fit(need, unit, holding, short)


@dataclass(frozen=True)
class Share:
    item: Item
    percent: float
    of: str
    value: float

    @property
    def amount(self) -> float:
        return max(round(self.value * self.percent / 100, 2), self.item.price_usd)

    def sentence(self) -> str:
        worked = round(self.value * self.percent / 100, 2)
        floor = " (below the minimum, so the minimum applies)" if worked < self.item.price_usd else ""
        return (f"{self.item.name} [{self.item.item_id}]: {_num(self.percent)}% of the {self.of}, USD "
                f"{self.value:,.2f}, is USD {worked:,.2f}{floor}; the minimum is USD {self.item.price_usd:,.2f}. "
                f"You would pay USD {self.amount:,.2f}.")


def value_in(question: str) -> float | None:
    """The money a question gives, in dollars; None when it gives none or several."""
    found = list(_MONEY.finditer(question))
    if len(found) != 1:
        return None
    m = found[0]
    number, thousands = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return float(number.replace(",", "")) * (1000 if thousands else 1)


def share(question: str, item: Item) -> Share | None:
    """The item's price as a share of the value the question gives, when its description prices it so."""
    m = _SHARE.search(item.description)
    value = value_in(question)
    if m is None or value is None:
        return None
    if value == item.price_usd and not re.search(r"\b(?:worth|valued?|value of|invoice)\b", question, re.I):
        return None  # "the $50 cargo insurance": the item named by its own price, no value to insure
    return Share(item, float(m.group(1)), m.group(2).strip(), value)


def _num(x: float) -> str:
    return f"{x:,.2f}".rstrip("0").rstrip(".")


# A figure of a description and the unit a question may ask it in instead: (pattern of the figure,
# the words that ask for the other unit, the other unit, conversion)
_CONVERSIONS = [
    (re.compile(r"([-+]?\d+(?:\.\d+)?)\s*C\b"), re.compile(r"\b(?:fahrenheit|°\s*f|deg(?:rees)? f)\b", re.I), "F",
     lambda c: c * 9 / 5 + 32),
    (re.compile(r"(\d+(?:\.\d+)?)\s*m3\b"), re.compile(r"\b(?:cubic (?:feet|foot)|cu\.? ?ft|ft3|cbft)\b", re.I),
     "cubic feet", lambda m3: m3 * 35.3147),
    (re.compile(r"(\d+(?:\.\d+)?)\s*t\s+payload\b"), re.compile(r"\b(?:pounds?|lbs?)\b", re.I), "lb",
     lambda t: t * 2204.62),
    (re.compile(r"(\d{1,3}(?:,\d{3})*)\s*litres\b"), re.compile(r"\b(?:gallons?|gal)\b", re.I), "US gallons",
     lambda litres: litres / 3.78541),
]


def in_unit_asked(question: str, item: Item) -> str | None:
    """The item's stated figures in the unit the question asks for ("the reefer's range in Fahrenheit":
    -30 C to +30 C is -22 F to 86 F); None when it asks for no unit its description can be put in."""
    for figure, asked, unit, convert in _CONVERSIONS:
        found = [m.group(1) for m in figure.finditer(item.description)]
        if found and asked.search(question):
            stated = ", ".join(m.group(0) for m in figure.finditer(item.description))
            values = ", ".join(f"{_num(round(convert(float(v.replace(',', ''))), 1))} {unit}" for v in found)
            return f"In {unit}: {stated} is {values}."
    if re.search(r"\bin cents\b|\bcents\b\s*(?:pls|please)?\s*[?.!]?\s*$", question, re.I):
        # "daily rate in cents": the price, which is in dollars, times a hundred
        return f"In cents: USD {item.price_usd:,.2f} {item.price_unit} is {round(item.price_usd * 100):,} cents."
    return None

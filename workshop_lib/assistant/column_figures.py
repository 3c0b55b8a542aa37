"""A figure a question gives for a column, put in the unit the question asks for.

"The reefer temp column shows -18 for one box. What's that in Fahrenheit?", "GROSS_WEIGHT_KG 21446,
how many lbs?": the column's comment says its unit (Celsius, kilograms, knots, cents); the question
gives the figure and names another unit. The answer is the conversion, worked out here, with the
column whose unit it starts from; a column the question does not name, or a unit of no column, is no
answer (None).
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

# (the column's unit, the words that ask for the other unit, the other unit, conversion)
_CONVERSIONS: list[tuple[str, str, str, Callable[[float], float]]] = [
    ("°C", r"fahrenheit|°\s*f|deg(?:rees)? f|in f", "°F", lambda c: c * 9 / 5 + 32),
    ("kg", r"pounds|lbs?", "lb", lambda kg: kg * 2.20462),
    ("kg", r"tonnes|tons|\bt\b", "tonnes", lambda kg: kg / 1000),
    ("tonnes", r"pounds|lbs?", "lb", lambda t: t * 2204.62),
    ("tonnes", r"kilos|kilograms|kg", "kg", lambda t: t * 1000),
    ("m", r"feet|foot|ft", "ft", lambda m: m * 3.28084),
    ("knots", r"km\s*/?\s*h\b|kmh|kilomet(?:er|re)s? (?:an|per) hour", "km/h", lambda kn: kn * 1.852),
    ("knots", r"mph|miles (?:an|per) hour", "mph", lambda kn: kn * 1.15078),
    ("cents", r"dollars|usd|\$", "USD", lambda cents: cents / 100),
]
# a figure written on its own (not inside a code such as EGHU1547269 or 40RF)
_FIGURE = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(?![\w.]*[A-Za-z])")


@dataclass(frozen=True)
class Converted:
    column: str          # TABLE.COLUMN
    given: float
    unit: str
    value: float
    to: str

    def sentence(self) -> str:
        return (f"{_num(self.given)} {self.unit} ({self.column}) is about {_num(round(self.value, 2))} {self.to} "
                f"({self.unit} to {self.to}: worked out from the column's unit).")


def asks_another_unit(question: str) -> bool:
    """One figure given and a unit some conversion gives: the cheap test before any column is looked up."""
    figures = _figures(question)
    return len(figures) == 1 and any(_asks(question, asked) and not _written_in(question, figures[0], asked)
                                     for _, asked, _, _ in _CONVERSIONS)


def converted(question: str, columns: list[tuple[str, str]]) -> Converted | None:
    """The one figure the question gives, in the unit of the one column it names (`columns`: the
    (TABLE.COLUMN, unit) named), converted to the unit it asks for; None otherwise."""
    figures = _figures(question)
    if len(figures) != 1 or len({unit for _, unit in columns}) != 1:
        return None  # (GROSS_WEIGHT_KG is in two tables, in the same unit)
    column, unit = columns[0]
    column = column if len(columns) == 1 else column.split(".")[-1]
    for source, asked, to, convert in _CONVERSIONS:
        if source == unit and _asks(question, asked) and not _written_in(question, figures[0], asked):
            given = float(figures[0].group(1).replace(",", ""))
            return Converted(column, given, unit, convert(given), to)
    return None


def _figures(question: str) -> list[re.Match[str]]:
    """The figures written on their own; a number that names a row ("voyage 1014", "cargo line 1") is none."""
    return [m for m in _FIGURE.finditer(question)
            if not re.search(r"\b(?:voyage|line|item|box|container|cargo|id|no\.?|number|#)\s*$", question[:m.start()], re.I)]


def _written_in(question: str, figure: re.Match[str], unit: str) -> bool:
    """"more than 60,000 lbs": the unit written right after the figure is the figure's own, not one asked for."""
    return re.match(rf"\s*(?:{unit})(?!\w)", question[figure.end():], re.I) is not None


def _asks(question: str, asked: str) -> bool:
    return re.search(rf"(?:\bin|\bto|how many|into)\s+(?:\w+\s+)?(?:{asked})|\b(?:{asked})\b", question, re.I) is not None


def _num(x: float) -> str:
    return f"{x:,.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Multiplied:
    column: str          # TABLE.COLUMN whose comment says to multiply
    by: str              # the other column
    given: float
    times: float
    unit: str            # the first column's unit
    said: str            # the comment's sentence that says so
    to: str = ""         # the unit asked, when a conversion gives it
    value: float = 0.0   # the product in that unit

    def sentence(self) -> str:
        product = self.given * self.times
        out = (f"{_num(self.given)} {self.unit} ({self.column}) \u00d7 {_num(self.times)} ({self.by}) = {_num(product)} "
               f"{self.unit}, as {self.column}'s description says: \u201c{self.said}\u201d")
        return out + (f" That is about {_num(round(self.value, 2))} {self.to}." if self.to else "")


def gives_two_figures(question: str) -> bool:
    """Two figures or more written on their own: the cheap test before any column is looked up."""
    return len(_FIGURE.findall(question)) >= 2


def multiplied(question: str, columns: list[tuple[str, str, str]]) -> Multiplied | None:
    """"QUANTITY 14 and UNIT_VALUE_CENTS 67904: what's the whole line worth in USD?": two columns written with a
    figure each (`columns`: (TABLE.COLUMN, unit, comment) of the columns named), one whose comment says to multiply
    it by the other; their product, in the unit asked when a conversion gives it. None otherwise."""
    given = {ref: f for ref, _, _ in columns if (f := _figure_after(question, ref.split(".")[-1])) is not None}
    if len(given) != 2:
        return None
    for ref, unit, comment in columns:
        other = next((o for o in given if o != ref), None)
        said = re.search(rf"[^.]*\bmultipl\w*\s+by\s+{re.escape(other.split('.')[-1])}\b[^.]*\.", comment, re.I) if other else None
        if ref in given and other and said:
            found = Multiplied(ref, other, given[ref], given[other], unit, said.group(0).strip())
            for source, asked, to, convert in _CONVERSIONS:
                if source == unit and _asks(question, asked):
                    return dataclasses.replace(found, to=to, value=convert(found.given * found.times))
            return found
    return None


def _figure_after(question: str, name: str) -> float | None:
    """The figure written right after a column's name ("UNIT_VALUE_CENTS 67904", "QUANTITY = 14", "QUANTITY is 14")."""
    m = re.search(rf"\b{re.escape(name)}\b\s*(?:=|:|is|of)?\s*(-?\d{{1,3}}(?:,\d{{3}})+|-?\d+(?:\.\d+)?)", question, re.I)
    return float(m.group(1).replace(",", "")) if m else None


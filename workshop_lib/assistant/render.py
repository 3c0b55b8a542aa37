"""The answer written from a composed query's rows: every value with its unit from the column
comment (US cents shown as dollars, TEU as box slots), converted when the question asks for
another unit, and the filters said back so the reader sees what was counted."""
from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import Any

from workshop_lib.assistant.planner import _OP_WORDS, MAX_LIST, Plan, _label, noun
from workshop_lib.assistant.schema_links import Column
from workshop_lib.data import countries

TIES_NOTE = "tied with the last"
# (from unit, asked unit) -> (factor, unit shown)
CONVERSIONS = {("kg", "tonnes"): (0.001, "tonnes"), ("kg", "tons"): (0.001, "tonnes"), ("kg", "t"): (0.001, "tonnes"),
               ("tonnes", "kg"): (1000.0, "kg"), ("tonnes", "kilograms"): (1000.0, "kg"),
               ("tonnes", "kilos"): (1000.0, "kg"), ("knots", "km/h"): (1.852, "km/h"),
               ("knots", "kilometres per hour"): (1.852, "km/h"), ("m", "feet"): (3.28084, "ft"),
               ("m", "ft"): (3.28084, "ft"), ("knots", "mph"): (1.15078, "mph"),
               ("knots", "miles per hour"): (1.15078, "mph"), ("kg", "pounds"): (2.20462, "lb"),
               ("kg", "lbs"): (2.20462, "lb"), ("tonnes", "pounds"): (2204.62, "lb"), ("tonnes", "lbs"): (2204.62, "lb"),
               # the US ton of 2,000 lb and the British ton of 2,240 lb
               ("tonnes", "short tons"): (1.10231, "short tons"), ("kg", "short tons"): (0.00110231, "short tons"),
               ("tonnes", "long tons"): (0.984207, "long tons"), ("kg", "long tons"): (0.000984207, "long tons")}


def _empty_text(col: Column | None) -> str:
    """An empty value, said as its comment says it means ("none (it sails independently)") when it says."""
    return f"none ({col.null_meaning})" if col is not None and col.null_meaning else "not recorded"


def value_text(value: Any, col: Column | None, convert: str | None = None) -> str:
    if value is None:
        return _empty_text(col)
    unit = col.unit if col is not None else ""
    if unit == "cents":
        return _cents_text(value, convert)
    if col is not None and "3166" in col.comment and isinstance(value, str):
        return _country_text(value)
    if isinstance(value, datetime.date) or (convert == "weekday" and _iso_date(value)):
        return _date_text(value, convert)
    if _said_as_written(col):
        return str(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _days_across(value, col, convert) or _number_text(value, unit, convert) + _hemisphere(value, col)
    return str(value)


def _hemisphere(value: float, col: Column | None) -> str:
    """" (46.30° W)": a coordinate whose comment says which sign is north or east, said as a map says it too."""
    comment = col.comment.lower() if col is not None else ""
    for positive, ends in (("positive north", "NS"), ("positive east", "EW")):
        if positive in comment:
            return f" ({abs(float(value)):.2f}\u00b0 {ends[0] if float(value) >= 0 else ends[1]})"
    return ""


def _days_across(value: float, col: Column | None, convert: str | None) -> str | None:
    """Days counted to or from the data's date for a row on its other side (a voyage not yet left, or one
    already in): said so, not as a negative count; None otherwise."""
    if col is None or not col.counted_from_the_data_date or value >= 0:
        return None
    days = _number_text(-value, col.unit, convert)
    return f"none yet: it starts in {days}" if col.counted_from_the_data_date == "since" else f"none: it ended {days} ago"


def _said_as_written(col: Column | None) -> bool:
    """A year, a key or an IMO number: digits without a thousands separator."""
    return col is not None and ("YEAR" in col.name or col.name.endswith("_ID") or col.name == "IMO_NUMBER")


def _iso_date(value: Any) -> bool:
    return isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value) is not None


def _date_text(value: datetime.date | str, convert: str | None) -> str:
    """A date; "on what day of the week": the weekday beside it (the embedded engine returns dates as text)."""
    day = datetime.date.fromisoformat(value[:10]) if isinstance(value, str) else value
    return day.isoformat()[:10] + (f" ({day:%A})" if convert == "weekday" else "")


def _cents_text(value: Any, convert: str | None) -> str:
    """An amount in cents, in dollars unless the question asked for cents."""
    dollars = float(value) / 100
    return f"${dollars:,.2f}" if convert != "cents" else f"{float(value):,.0f} US cents"


def _country_text(code: str) -> str:
    """An ISO 3166 code with its country's name, when the code is one."""
    return f"{countries.name_of(code)} ({code})" if countries.name_of(code) != code else code


def _number_text(value: float, unit: str, convert: str | None) -> str:
    """A number with its unit, converted first when the question asked for another unit."""
    if unit == "°C" and convert == "fahrenheit":  # not a factor: the scales start at different zeros
        return f"{_num(round(float(value) * 9 / 5 + 32, 1))} °F ({_num(value)} °C)"
    if convert and (unit, convert) in CONVERSIONS:
        factor, shown = CONVERSIONS[(unit, convert)]
        return f"{_num(_as_precise_as(float(value) * factor, value))} {shown} ({_num(value)} {unit})"
    shown_unit = {"TEU": "TEU", "tonnes": "tonnes", "kg": "kg", "m": "m", "knots": "knots", "°C": "°C",
                  "days": "days"}.get(unit, "")
    if shown_unit == "days" and float(value) == 1:
        shown_unit = "day"
    return f"{_num(value)} {shown_unit}".strip()


def _as_precise_as(converted: float, stored: Any) -> float:
    """A converted figure rounded to the significant figures of the stored one (three at least): 15.6 knots is
    28.9 km/h, not 28.89 (written, as every figure, with two decimals at most)."""
    digits = len(repr(float(stored)).lstrip("-0.").replace(".", "").removesuffix("0")) if float(stored) else 3
    return float(f"{converted:.{max(3, digits)}g}")


def _num(value: Any) -> str:
    v = float(value)
    if v.is_integer():
        return f"{int(v):,}" if abs(v) >= 10000 else str(int(v))
    return f"{v:,.2f}"


def render(plan: Plan, rows: Sequence[Sequence[Any]]) -> str | None:
    """The answer, or None when no row answers (the caller says so instead)."""
    spec = plan.spec
    if spec.action == "count":
        n = rows[0][0] if rows else 0
        return f"There {'is' if n == 1 else 'are'} {n} {noun(spec.target, n != 1)} {_filters(plan)}".rstrip() + "."
    if not rows:
        return None
    if spec.action == "distinct" and spec.measure is not None:
        return _distinct(plan, spec.measure, rows)
    if spec.action == "aggregate":
        value = rows[0][0]
        if value is None:
            return None
        word = {"AVG": "average", "SUM": "total", "MAX": "largest", "MIN": "smallest"}[spec.fn or "AVG"]
        assert spec.measure is not None
        what = _label(spec.measure)
        if spec.fn == "SUM" and spec.measure.multiplier:  # a sum of unit values times how many: the lines' totals
            what = f"{what.removeprefix('unit ')} ({what} times {spec.measure.multiplier.lower()})"
        return (f"The {word} {what} of the {noun(spec.target)} {_filters(plan)}".rstrip()
                + f" is {value_text(value, spec.measure, spec.convert)}{_note(spec.measure)}.")
    if spec.action in ("group", "group_top"):
        return _group(plan, rows)
    if spec.action == "top":
        return _top(plan, rows)
    return _listing(plan, rows)


def _distinct(plan: Plan, col: Column, rows: Sequence[Sequence[Any]]) -> str:
    """"There are 5 different flag state values among the vessels: ..."; past the list's length the
    count is said as a lower bound, never guessed."""
    n = len(rows)
    shown = ", ".join(value_text(r[0], col, plan.spec.convert) for r in rows[:MAX_LIST])
    count = f"more than {MAX_LIST}" if n > MAX_LIST else str(n)
    return (f"There {'is' if n == 1 else 'are'} {count} different {_label(col)} value{'s' if n != 1 else ''} "
            f"among the {noun(plan.spec.target)} {_filters(plan)}".rstrip() + f": {shown}.")


def _filters(plan: Plan) -> str:
    return plan.spec.said()


def _note(col: Column | None) -> str:
    if col is not None and col.unit == "cents":
        return f" ({col.name} is stored in US cents and shown here in dollars)"
    if col is not None and col.unit == "TEU":
        return " (TEU: twenty-foot container slots, not a weight)"
    return ""


def _heads(plan: Plan) -> int:
    """How many leading columns name the row: its key and its name (voyage 1017, 700E), or its name."""
    return 2 if plan.columns and plan.columns[0].is_key and len(plan.columns) > 1 else 1


def _head(plan: Plan, row: Sequence[Any]) -> str:
    if _heads(plan) == 2:
        return f"{noun(plan.columns[0].table, False)} {row[0]} ({row[1]})"
    return str(row[0])


def _rest(plan: Plan, row: Sequence[Any]) -> list[str]:
    n = _heads(plan)
    return [f"{_label(c)} {value_text(v, c, plan.spec.convert)}{_times(plan, row, c, v)}"
            for c, v in zip(plan.columns[n:], row[n:])]


def _times(plan: Plan, row: Sequence[Any], col: Column, value: Any) -> str:
    """" x 8 = $28,584.00": a unit figure times the count its comment names, when the row shows that count."""
    times = next((i for i, c in enumerate(plan.columns) if c.name == col.multiplier and c.table == col.table), None)
    if times is None or not isinstance(value, (int, float)) or not isinstance(row[times], (int, float)) or row[times] == 1:
        return ""
    return f" \u00d7 {_num(row[times])} = {value_text(value * row[times], col, plan.spec.convert)}"


def _row_text(plan: Plan, row: Sequence[Any]) -> str:
    rest = _rest(plan, row)
    return _head(plan, row) + (f" ({', '.join(rest)})" if rest else "")


def _top(plan: Plan, rows: Sequence[Sequence[Any]]) -> str:
    spec = plan.spec
    n = min(spec.n, len(rows))
    measured = plan.columns.index(spec.measure) if spec.measure in plan.columns else _heads(plan)
    last = rows[n - 1][measured]
    shown = [r for i, r in enumerate(rows) if i < n or r[measured] == last]
    assert spec.measure is not None
    what = _top_what(plan, n)
    head = f"The {what}" if n == 1 else f"The {n} {what}"
    ties = f" ({len(shown)} tied)" if len(shown) > n and n == 1 else (
        f" (and {len(shown) - n} {TIES_NOTE})" if len(shown) > n else "")

    def line(row: Sequence[Any]) -> str:
        rest = [p for c, p in zip(plan.columns[_heads(plan):], _rest(plan, row)) if c != spec.measure]
        value = value_text(row[measured], spec.measure, spec.convert)
        return f"{_head(plan, row)}: {value}" + (f" ({', '.join(rest)})" if rest else "")

    return (f"{head}{ties}:\n" + "\n".join(f"{i}. {line(r)}" for i, r in enumerate(shown, 1))
            + (f"\n{_note(spec.measure).strip(' ()')}." if _note(spec.measure) else ""))


def _top_what(plan: Plan, n: int) -> str:
    """"last vessel position of Ever Acme", "vessels with the highest capacity": what the top rows are."""
    spec = plan.spec
    assert spec.measure is not None
    filters = f" {_filters(plan)}" if spec.filters else ""
    if not spec.superlative:
        return f"{noun(spec.target, n > 1)}{filters} with the {'highest' if spec.direction == 'DESC' else 'lowest'} " \
               f"{_label(spec.measure)}"
    # ("the last vessel position of Ever Acme": the rows ordered are the measure's, one per report)
    rows_of = spec.measure.table if spec.measure.is_date and spec.measure.table != spec.target else spec.target
    return f"{spec.superlative} {noun(rows_of, n > 1)}{filters}"


def _empty_group(col: Column) -> str:
    """The rows with no value, as the column's comment says what that means ("none (it sails independently)")."""
    return f"none ({col.null_meaning.strip()})" if col.null_meaning else "none"


def _group(plan: Plan, rows: Sequence[Sequence[Any]]) -> str:
    spec = plan.spec
    assert spec.group is not None
    what = (f"{ {'AVG': 'average', 'SUM': 'total', 'MAX': 'largest', 'MIN': 'smallest'}[spec.fn]} "
            f"{_label(spec.measure)}" if spec.fn and spec.measure else f"{noun(spec.target)}")
    if spec.action == "group_top":
        return _group_top(plan, rows, spec.group)
    lines = [f"- {r[0] if r[0] is not None else _empty_group(spec.group)}: "
             f"{value_text(r[1], spec.measure if spec.fn else None, spec.convert)}" for r in rows]
    kept = f" (only those with {_OP_WORDS[spec.having[0]][0]} {spec.having[1]:g})" if spec.having else ""
    # (the rows of a table grouped by its own name or number: "voyages per voyage number")
    per = _label(spec.group) if spec.group.table == spec.target else _group_word(spec.group)
    head = f"{what[0].upper() + what[1:]} per {per} {_filters(plan)}".rstrip()
    return _alternatives(plan, rows) + head + kept + ":\n" + "\n".join(lines)


def _alternatives(plan: Plan, rows: Sequence[Sequence[Any]]) -> str:
    """"More reefers or 20GP?": each alternative's count, its values added up, before the count per value."""
    spec = plan.spec
    if not spec.alternatives or spec.fn:
        return ""
    counts = {r[0]: r[1] for r in rows}
    totals = [(said, values, sum(counts.get(v, 0) for v in values)) for said, values in spec.alternatives]
    lines = [f"- {said} ({', '.join(map(str, values))}): {n}" if len(values) > 1 else f"- {said}: {n}"
             for said, values, n in totals]
    return f"{noun(spec.target)[0].upper() + noun(spec.target)[1:]} for each alternative asked:\n" + "\n".join(lines) + "\n"


def _group_top(plan: Plan, rows: Sequence[Sequence[Any]], group_col: Column) -> str:
    """The group (or the n groups) with the most or fewest rows or the highest or lowest
    aggregate, with the ones tied with the last."""
    spec = plan.spec
    last = rows[min(spec.n, len(rows)) - 1][1]
    tied = [r for i, r in enumerate(rows) if i < spec.n or r[1] == last]
    word = "most" if spec.direction == "DESC" else "fewest"
    group = _group_word(group_col)
    head = f"The {group}" if spec.n == 1 else f"The {spec.n} {group}s"
    what = (f"{ {'AVG': 'average', 'SUM': 'total'}.get(spec.fn, '')} {_label(spec.measure)}"
            if spec.fn and spec.measure else noun(spec.target))
    word = ("highest" if spec.direction == "DESC" else "lowest") if spec.fn else word
    return (f"{head} with the {word} {what} {_filters(plan)}".rstrip()
            + (f" ({len(tied)} tied)" if len(tied) > spec.n else "") + ":\n"
            + "\n".join(f"- {r[0]}: {value_text(r[1], spec.measure if spec.fn else None, spec.convert)}"
                        for r in tied))


def _compared(plan: Plan, rows: Sequence[Sequence[Any]]) -> str | None:
    """"Is A longer than B?": yes or no, with both values."""
    spec = plan.spec
    assert spec.comparative is not None
    found = _compared_values(plan, rows)
    if found is None:
        return None
    pair, measure, a, b = found
    word, op, which = spec.comparative
    word = "less" if word == "fewer" else word  # "A at 18,042 TEU is less than B"
    holds = a > b if op == ">" else a < b
    # "A at 398.50 m": not in brackets, which a unit preference reads as a figure shown twice and drops
    first, second = (f"{v} at {value_text(x, measure, spec.convert)}" for v, x in zip(pair, (a, b)))
    by = f", by {value_text(abs(a - b), measure, spec.convert)}" if a != b else ""
    if not word:  # "the difference between A and B": both values and the gap
        return f"{first} and {second}: a difference of {value_text(abs(a - b), measure, spec.convert)}."
    if which:  # "which is bigger, A or B": the one that is, and by how much
        winner, loser = (first, second) if holds else (second, first)
        return f"{winner} is {word} than {loser}{by}." if a != b else f"{first} and {second} are the same."
    if holds:
        return f"Yes: {first} is {word} than {second}{by}."
    gap = f" (a difference of {value_text(abs(a - b), measure, spec.convert)})" if a != b else ""
    return f"No: {first} is not {word} than {second}{gap}."


def _compared_values(plan: Plan, rows: Sequence[Sequence[Any]]) -> tuple[list[Any], Column, Any, Any] | None:
    """The two rows named, the numeric column compared and each row's value in it (None when
    either row or either value is missing)."""
    pair: list[Any] = next((list(f.value) for f in plan.spec.filters if f.op == "in"), [])
    measure = next((c for c in plan.columns if c.numeric), None)
    by_name = {str(r[_heads(plan) - 1]): r for r in rows}
    if measure is None or len(pair) != 2 or not all(str(v) in by_name for v in pair):
        return None
    i = plan.columns.index(measure)
    a, b = (by_name[str(v)][i] for v in pair)
    if a is None or b is None:
        return None
    return pair, measure, a, b


def _group_word(col: Column) -> str:
    """A group named by its rows' names or numbers is "per voyage", otherwise "per flag state"."""
    # (a row's own number: "VOYAGE_NUMBER" of VOYAGES; a UN number is a figure of the row's, not its name)
    own_number = col.name.endswith("_NUMBER") and (col.is_key or col.table.startswith(col.name.split("_")[0]))
    return noun(col.table, False) if col.name.endswith("_NAME") or own_number else _label(col)


def _listing(plan: Plan, rows: Sequence[Sequence[Any]]) -> str:
    spec = plan.spec
    if spec.comparative is not None:
        said = _compared(plan, rows)
        if said is not None:
            return said
    more = len(rows) > plan.max_rows - 1
    rows = rows[:plan.max_rows - 1]
    if spec.action == "lookup" and len(rows) == 1:
        parts = _rest(plan, rows[0])
        if not parts:  # the row named by a code, asked for by its name: "the carrier with SCAC HDMU is HMM"
            return f"The {noun(spec.target, False)} {_filters(plan)} is {_head(plan, rows[0])}."
        return f"{_head(plan, rows[0])}: " + ", ".join(parts) + f"{_note(spec.measure)}."
    # (a vessel shown once per voyage found is one vessel)
    n = len({tuple(r[:_heads(plan)]) for r in rows})
    head = f"{n}{'+' if more else ''} {noun(spec.target, n != 1)} {_filters(plan)}".rstrip()
    return head + ":\n" + "\n".join(f"- {_row_text(plan, r)}" for r in rows)


def rows_shown(plan: Plan, rows: Sequence[Sequence[Any]]) -> int:
    """How many of the fetched rows the answer shows (a top-N fetches rows that may tie with the last)."""
    spec = plan.spec
    if not rows or spec.action in ("count", "aggregate"):
        return 1 if spec.action in ("count", "aggregate") else 0
    if spec.action == "top":
        n = min(spec.n, len(rows))
        measured = plan.columns.index(spec.measure) if spec.measure in plan.columns else _heads(plan)
        return sum(1 for i, r in enumerate(rows) if i < n or r[measured] == rows[n - 1][measured])
    if spec.action == "group_top":
        last = rows[min(spec.n, len(rows)) - 1][1]
        return sum(1 for i, r in enumerate(rows) if i < spec.n or r[1] == last)
    return min(len(rows), plan.max_rows - 1) if spec.action != "group" else len(rows)

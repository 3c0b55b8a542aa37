"""Hard-stop checks for Part 5's TODOs: validate a model's selection, render the grounded answer.

Both run without a database or a model: the rows are CatalogMatch objects built from
the catalog's own data, and the "model output" is a list of hostile selections.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from .. import catalog, grounded
from . import CheckFailed, call_learner, passed

TODO1 = "TODO 1 (validate_selection)"
TODO2 = "TODO 2 (render_grounded_answer)"
QUESTION = "I need a refrigerated container for frozen fish"


def sample_rows(ids: tuple[str, ...] = ("EQ-20RF", "EQ-40RH", "SV-REEFMON")) -> list[grounded.CatalogMatch]:
    """Rows shaped exactly like match_catalog's, from the catalog data (no database)."""
    items = {i.item_id: i for i in catalog.ITEMS}
    where = catalog.availability()
    sims = [0.72, 0.57, 0.37, 0.33, 0.31]
    return [grounded.CatalogMatch(item_id=i, name=items[i].name, category=items[i].category,
                                  description=items[i].description, price_usd=items[i].price_usd,
                                  price_unit=items[i].price_unit, availability=dict(where[i]), similarity=sims[n])
            for n, i in enumerate(ids)]


# (selection the "model" returned, what validate_selection must return, why)
def selection_cases() -> list[tuple[Any, Any, str]]:
    return [
        (["EQ-20RF"], ["EQ-20RF"], "one id of a returned row is a valid selection"),
        (["EQ-40RH", "EQ-20RF"], ["EQ-40RH", "EQ-20RF"], "keep the order the selector chose"),
        (["EQ-20RF", "EQ-20RF", "EQ-40RH", "EQ-20RF"], ["EQ-20RF", "EQ-40RH"],
         "duplicates are dropped, first occurrence kept"),
        (["EQ-99XX"], None, "EQ-99XX is not the id of any returned row (an invented item)"),
        (["EQ-20RF", "EQ-99XX"], None, "one unknown id means the selector cannot be trusted: reject it all"),
        (["EQ-40DV"], None, "EQ-40DV is in the catalog but was NOT among the returned rows"),
        (["eq-20rf"], None, "ids must match exactly (case matters)"),
        ([" EQ-20RF"], None, "ids must match exactly (no stray spaces)"),
        ([3], None, "a number is not an id"),
        ([None], None, "None inside the list is not an id"),
        ([True], None, "a boolean is not an id"),
        ([["EQ-20RF"]], None, "a nested list is not an id"),
        (["EQ-20RF", 7], None, "a list that mixes ids and numbers is rejected"),
        (None, None, "no selection at all"),
        ({"item_ids": ["EQ-20RF"]}, None, "a dict is not a list of ids"),
        ("EQ-20RF", None, "a bare string is not a list of ids (it would be read letter by letter)"),
        ([], None, "an empty selection chooses nothing: fall back to every row"),
    ]


def check_validate_selection(fn: Callable, *, quiet: bool = False) -> None:
    rows = sample_rows()
    ids = [r.item_id for r in rows]
    for selection, want, why in selection_cases():
        got = call_learner(TODO1, f"validate_selection({selection!r}, rows)", fn, selection, rows)
        if got != want or (want is not None and not isinstance(got, list)):
            raise CheckFailed(
                TODO1,
                f"validate_selection({selection!r}, rows with ids {ids}) returned {got!r}; expected {want!r} "
                f"because {why}.",
                "return the list of chosen ids (each a str that is the item_id of a row), de-duplicated in order, "
                "or None when the selection is not a non-empty list of such ids.")
    if not quiet:
        passed(TODO1, f"{len(selection_cases())} selections, hostile ones included, handled")


_ID_RE = re.compile(r"\[((?:EQ|SV)-[A-Z0-9]+)\]")


def _shown_ids(text: str) -> list[str]:
    return _ID_RE.findall(text)


def render_cases() -> list[tuple[Any, list[str], str]]:
    """(selection, ids that must be shown in this order, why) over sample_rows()."""
    return [
        (["EQ-40RH"], ["EQ-40RH"], "the selector chose one valid row"),
        (["SV-REEFMON", "EQ-20RF"], ["SV-REEFMON", "EQ-20RF"], "show the chosen rows in the chosen order"),
        (None, ["EQ-20RF", "EQ-40RH", "SV-REEFMON"], "no selection: show every returned row, best first"),
        (["EQ-99XX"], ["EQ-20RF", "EQ-40RH", "SV-REEFMON"],
         "an invented id is rejected, so every returned row is shown and EQ-99XX never appears"),
        ({"item_ids": ["EQ-40RH"]}, ["EQ-20RF", "EQ-40RH", "SV-REEFMON"],
         "a dict is not a valid selection: fall back to every row"),
        (["EQ-40RH", "EQ-40RH"], ["EQ-40RH"], "a duplicated id is shown once"),
    ]


def check_render_answer(fn: Callable, *, quiet: bool = False) -> None:
    rows = sample_rows()
    by_id = {r.item_id: r for r in rows}
    for selection, want_ids, why in render_cases():
        text = call_learner(TODO2, f"render_grounded_answer(question, rows, {selection!r})", fn, QUESTION, rows,
                            selection)
        if not isinstance(text, str):
            raise CheckFailed(TODO2, f"with selection {selection!r} you returned {type(text).__name__}, not the answer text",
                              "return one string: the header line and one format_row(...) line per row, joined by newlines.")
        got_ids = _shown_ids(text)
        if got_ids != want_ids:
            raise CheckFailed(TODO2, f"with selection {selection!r} the answer shows rows {got_ids}; expected {want_ids} "
                                     f"because {why}.",
                              "validate the selection first; on None show every row; write each row with grounded.format_row(row).")
        for i in want_ids:
            if grounded.format_row(by_id[i]) not in text:
                raise CheckFailed(TODO2, f"row {i} is mentioned but not written with grounded.format_row(row), so its price "
                                         "and availability may not come from the row.",
                                  "build each line with grounded.format_row(row); never retype row values.")
        if "EQ-99XX" in text:
            raise CheckFailed(TODO2, "the answer mentions EQ-99XX, an id the model invented.", "render only validated rows.")
    empty = call_learner(TODO2, "render_grounded_answer(question, [], None)", fn, QUESTION, [], None)
    if not isinstance(empty, str) or _shown_ids(empty) or "don't have" not in empty:
        raise CheckFailed(TODO2, f"with no rows at all you returned {empty!r:.120}; it must say there is no match and "
                                 "name no item.",
                          "when `matches` is empty, return grounded.no_match_answer(question, []).")
    if not quiet:
        passed(TODO2, "every answer is written from validated rows only")

"""Hard-stop checks for Part 5's TODOs: validate a model's selection, render the grounded answer.

Both run without a database or a model: the rows are CatalogMatch objects built from
the catalog's own data, and the "model output" is a list of hostile selections.
"""
from __future__ import annotations

import contextlib
import copy
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from workshop_lib.checks import CheckFailed, call_learner, describe_value, diff, passed
from workshop_lib.data import catalog
from workshop_lib.parts import grounded

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
        (("SV-REEFMON", "EQ-20RF"), ["SV-REEFMON", "EQ-20RF"], "a tuple is accepted like a list (the result is a list)"),
        ({"EQ-20RF", "EQ-40RH"}, None, "a set has no order, so 'the order chosen' does not exist: only a list or "
                                       "tuple is accepted"),
        ({"EQ-20RF": 1, "EQ-40RH": 2}, None, "a dict keyed by ids is not a list of ids"),
        (iter(["EQ-20RF"]), None, "an iterator is not a list or tuple"),
        (["EQ-20RF", ""], None, "an empty string is not an id"),
    ]


def random_selections(n: int = 400, seed: int = 5) -> list[list[Any]]:
    """Seeded random selections mixing good ids, catalog ids not returned, and junk."""
    rng = random.Random(seed)
    pool = [r.item_id for r in sample_rows()] + ["EQ-40DV", "EQ-99XX", "", None, 0, 1.5, True, ["EQ-20RF"],
                                                   {"id": "EQ-20RF"}]
    return [[rng.choice(pool) for _ in range(rng.randint(0, 5))] for _ in range(n)]


def check_validate_selection(fn: Callable[..., Any], *, quiet: bool = False) -> None:
    rows = sample_rows()
    ids = [r.item_id for r in rows]
    cases = selection_cases()
    randoms = [(sel, grounded.validate_selection(sel, rows), "a random mix: one element that is not the id of a "
                "returned row rejects the selection; otherwise the ids, first occurrence kept")
               for sel in random_selections()]
    for selection, want, why in cases + randoms:
        shown = describe_value(selection)
        given = copy.deepcopy(selection) if isinstance(selection, (list, dict, set)) else selection
        try:
            got = call_learner(TODO1, f"validate_selection({shown}, rows)", fn, selection, rows)
        except CheckFailed as failed:
            if isinstance(selection, tuple) and ("does not support item assignment" in failed.problem
                                                 or "'tuple' object has no attribute" in failed.problem):
                raise CheckFailed(TODO1, f"validate_selection({shown}, rows) tried to change the tuple it was given "
                                  f"({failed.problem.splitlines()[0][len('your code raised '):]})", MUTATION_FIX) from None
            raise
        if isinstance(selection, (list, dict, set)) and selection != given:
            raise CheckFailed(TODO1, f"validate_selection({describe_value(given)}, rows) changed the selection it was "
                              f"given: afterwards it is {describe_value(selection)}", MUTATION_FIX)
        if got != want or (want is not None and type(got) is not list):
            raise CheckFailed(
                TODO1,
                f"validate_selection({shown}, rows with ids {ids}) returned {describe_value(got)}; expected "
                f"{want!r} because {why}.", _selection_hint(selection, got, want, ids))
    if not quiet:
        passed(TODO1, f"{len(cases)} named selections and {len(randoms)} random ones, hostile ones included, handled")


MUTATION_FIX = ("build a new list and return it; never sort, remove from, append to or assign into `selection`: it "
                "belongs to the caller (the chat service logs it), and a tuple cannot be changed at all.")


def _selection_hint(selection: Any, got: Any, want: Any, ids: list[str]) -> str:
    """What to change, from how the answer differs."""
    listlike = isinstance(selection, (list, tuple))
    if want is None and not listlike:
        return (f"only a list or tuple is accepted; return None for a {type(selection).__name__} "
                "(check with isinstance(selection, (list, tuple))).")
    if want is None and not selection:
        return "an empty selection is not a choice: return None (not [])."
    if want is None:
        return ("one element that is not a str equal to a returned row's item_id rejects the WHOLE selection: "
                "return None as soon as you meet it, do not skip it.")
    if got is None:
        return "every element is a returned row's id here: return them as a list."
    if type(got) is not list:
        return f"return a new list (list(...)), not a {type(got).__name__}."
    return "keep the order chosen and drop repeated ids (first occurrence wins)."


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


@contextlib.contextmanager
def reference_validator(fn: Callable[..., Any]) -> Iterator[None]:
    """Run the learner's render with the REFERENCE validate_selection in its globals, so a
    mistake in TODO 1 is charged to TODO 1 only."""
    if hasattr(fn, "with_global"):  # the grader's judge: the function runs in the learner's process
        with fn.with_global("validate_selection", grounded.validate_selection):
            yield
        return
    names = getattr(fn, "__globals__", {})
    had = "validate_selection" in names
    mine = names.get("validate_selection")
    if had:
        names["validate_selection"] = grounded.validate_selection
    try:
        yield
    finally:
        if had:
            names["validate_selection"] = mine


def check_render_answer(fn: Callable[..., Any], *, quiet: bool = False) -> None:
    with reference_validator(fn):
        _check_render(fn)
    if not quiet:
        passed(TODO2, "every answer is written from validated rows only, word for word as specified")


def _check_render(fn: Callable[..., Any]) -> None:
    rows = sample_rows()
    by_id = {r.item_id: r for r in rows}
    for selection, want_ids, why in render_cases():
        text = call_learner(TODO2, f"render_grounded_answer(question, rows, {selection!r})", fn, QUESTION, rows,
                            selection)
        if not isinstance(text, str):
            raise CheckFailed(TODO2, f"with selection {selection!r} you returned {type(text).__name__}, not the answer text",
                              "return one string: the header line and one format_row(...) line per row, joined by newlines.")
        got_ids = _shown_ids(text)
        if not got_ids and want_ids and text == grounded.no_match_answer(QUESTION, []):
            raise CheckFailed(TODO2, f"with selection {selection!r} you answered that nothing matched, but "
                              f"{len(rows)} rows matched: {why}", "an invalid selection is the selector's mistake, "
                              "not a missing match: when validate_selection returns None, show every returned row "
                              "(no_match_answer is only for an empty `matches`).")
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
        want = grounded.render_grounded_answer(QUESTION, rows, selection)
        if text != want:
            raise CheckFailed(TODO2, f"with selection {selection!r} the rows are right but the text differs from "
                                     "the specified answer:\n" + diff(want, text),
                              "return grounded.answer_header(question, n) with n = the number of rows shown, then one "
                              "grounded.format_row(row) per row, joined with '\\n' (no blank lines, nothing else).")
    empty = call_learner(TODO2, "render_grounded_answer(question, [], None)", fn, QUESTION, [], None)
    if empty != grounded.no_match_answer(QUESTION, []):
        raise CheckFailed(TODO2, f"with no rows at all you returned {empty!r:.120}; it must say there is no match and "
                                 "name no item.",
                          "when `matches` is empty, return grounded.no_match_answer(question, []).")
    other = sample_rows(("EQ-40HC", "EQ-40DV", "EQ-45HC", "EQ-20DV"))
    for selection in (None, ["EQ-45HC"], ["EQ-20DV", "EQ-40HC"], ["EQ-40HC", 1], "EQ-45HC", [], ["EQ-20RF"]):
        question = "a box for furniture"
        text = call_learner(TODO2, f"render_grounded_answer({question!r}, other rows, {selection!r})", fn, question,
                            other, selection)
        want = grounded.render_grounded_answer(question, other, selection)
        if text != want:
            raise CheckFailed(TODO2, f"with four dry-container rows and selection {selection!r} the answer differs "
                                     "from the specified one:\n" + diff(want, str(text)),
                              "validate the selection; show the chosen rows (or every row on None) under "
                              "grounded.answer_header(question, n), one grounded.format_row(row) per line.")

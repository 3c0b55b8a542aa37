"""The text of one hint level, and opening a level (recorded); the button row (widget.py) and
`hints.hint` (the package) both show what these return."""
from __future__ import annotations

from workshop_lib.hints import catalog, record
from workshop_lib.hints.catalog import part_key, todo_key

NO_FAILURE_YET = "(No check of this TODO has failed yet, so this is the general stronger hint.) "
LAST_PASSED = "(The last check of this TODO passed; this is the general stronger hint.) "


def text(part: int | str, todo: int | str, level: int, failure: str | None = None) -> str:
    """The text of one level; level 2 for the given failure class (the general hint when None)."""
    part, todo = part_key(part), todo_key(part, todo)
    hints = catalog.get(part, todo)
    if level == 1:
        return hints.nudge
    if level == 2:
        return catalog.stronger(part, todo, failure)
    if level == 3:
        return hints.outline
    raise ValueError(f"level must be 1, 2 or 3, got {level!r}")


def _number(todo: str) -> str:
    return todo.split("_", 1)[0][len("todo"):]


def open_level(part: str, todo: str, level: int) -> tuple[str, str]:
    """(title, text) of one level, recorded as opened; level 2 aims at the last failure of this TODO."""
    failure = record.last_failure(part, todo)
    body = text(part, todo, level, failure)
    if level == 2 and failure is None:
        body = (LAST_PASSED if record.runs(part, todo) else NO_FAILURE_YET) + body
    record.hint_opened(part, todo, level, failure)
    title = {1: "Hint", 2: "Stronger hint", 3: "Outline"}[level]
    return f"{title} (TODO {_number(todo)}, {part})", body

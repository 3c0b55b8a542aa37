"""Hints for a learner stuck on a TODO, in three levels, offline.

    hints.hint("part4", 1)            # the next level: 1, then 2, then 3
    hints.hint("part4", 1, level=2)   # aimed at what the last failing check of this TODO said
    hints.hint("part4", 1, level=3, confirm=True)   # the near-solution outline
    hints.levels("part4", 1)          # every text (tests and instructors)
    hints.buttons("part4", 1)         # the button row the hint cell under each TODO shows

Level 1 is a nudge about the idea; level 2 maps the failure class of the learner's last
failing check to a hint about that mistake (hints/table.py, one table per TODO in
hints/partN.py); level 3 is shown only after the learner confirms. Which levels were opened
is recorded in the notebook (hints/record.py) so `workshop grade` can report it.
"""
from __future__ import annotations

import html
from typing import Any

from workshop_lib.hints import catalog, record, widget
from workshop_lib.hints.catalog import part_key, todo_key
from workshop_lib.hints.texts import _number, open_level, text

__all__ = ["hint", "levels", "buttons", "text", "open_level"]

CONFIRM_OUTLINE = ("Level 3 is an outline close to the solution. Try levels 1 and 2 first; if you still want it, run "
                   "hints.hint({part!r}, {number}, level=3, confirm=True).")


def levels(part: int | str, todo: int | str) -> dict[int, Any]:
    """{1: nudge, 2: {failure class: hint, ..., 'general': hint}, 3: outline} for one TODO."""
    hints = catalog.get(part, todo)
    stronger = {row.id: row.hint for row in hints.failures}
    stronger.update({row.id: row.hint for row in catalog.COMMON if row.id not in stronger})
    stronger["general"] = hints.general
    return {1: hints.nudge, 2: stronger, 3: hints.outline}


def hint(part: int | str, todo: int | str, level: int | None = None, *, confirm: bool = False) -> None:
    """Show one hint level for a TODO (the next unopened one when level is None) and record it."""
    part, todo = part_key(part), todo_key(part, todo)
    if level is None:
        seen = record.opened(part, todo)
        level = min(max(seen) + 1, 3) if seen else 1
    if level not in (1, 2, 3):
        raise ValueError(f"level must be 1, 2 or 3, got {level!r}")
    if level == 3 and not confirm:
        _show(CONFIRM_OUTLINE.format(part=part, number=int(_number(todo))), None)
        return
    title, body = open_level(part, todo, level)
    _show(f"{title}:\n{body}" if level == 3 else f"{title}: {body}",
          record.hint_payload(part, todo) if record.in_kernel() else None)


def _show(plain: str, payload: dict | None) -> None:
    if not record.in_kernel():
        print(plain)
        return
    from IPython.display import display

    bundle: dict[str, Any] = {"text/plain": plain, "text/html": f"<pre style='white-space: pre-wrap'>{html.escape(plain)}</pre>"}
    if payload is not None:
        bundle[record.HINT_MIME] = payload
    display(bundle, raw=True)


def buttons(part: int | str, todo: int | str) -> None:
    """The hint cell: a row of buttons (ipywidgets), or the same hints as an HTML page section without them."""
    part, todo = part_key(part), todo_key(part, todo)
    widget.show(part, todo)

"""Find a TODO's hints by Part and TODO, and a check message's failure class."""
from __future__ import annotations

import importlib
import re

from workshop_lib.hints.table import COMMON, TodoHints, classify

# A Part still in draft (solutions/<folder>/, not yet numbered) -> its hints module in hints/.
# Numbering a draft renames the module to hints/partN.py and empties this table.
DRAFTS: dict[str, str] = {}


def part_key(part: int | str) -> str:
    text = str(part).strip().lower()
    if re.fullmatch(r"\d+", text):
        text = f"part{text}"
    if text in DRAFTS:
        return text
    if not re.fullmatch(r"part\d+", text):
        raise ValueError(f"part must look like 'part4' or 4, got {part!r}")
    return text


def todos(part: int | str) -> dict[str, TodoHints]:
    """grade_id of each TODO (e.g. 'todo1_decide_mode') -> its hints; {} for a Part without hints."""
    try:
        key = part_key(part)
        module = importlib.import_module(f"workshop_lib.hints.{DRAFTS.get(key, key)}")
    except ModuleNotFoundError:
        return {}
    return module.TODOS


def todo_key(part: int | str, todo: int | str) -> str:
    """'todo1_decide_mode' from 1, '1', 'TODO 1', 'decide_mode' or the grade_id itself."""
    known = todos(part)
    text = str(todo).strip()
    number = re.fullmatch(r"(?:todo\s*)?(\d+)", text, re.I)
    for key in known:
        if key == text or key.split("_", 1)[1] == text or (number and key.startswith(f"todo{number.group(1)}_")):
            return key
    listed = ", ".join(f"{k.split('_')[0][4:]} ({k.split('_', 1)[1]})" for k in known) or "none"
    raise ValueError(f"{part_key(part)} has no TODO {todo!r}; its TODOs are: {listed}")


def get(part: int | str, todo: int | str) -> TodoHints:
    return todos(part)[todo_key(part, todo)]


def failure_class(part: str, todo: str, message: str) -> str:
    found = classify(get(part, todo), message)
    return found.id if found else "other"


def stronger(part: str, todo: str, failure: str | None) -> str:
    """Level 2: the hint for this failure class, or the TODO's general one."""
    hints = get(part, todo)
    for row in (*hints.failures, *COMMON):
        if row.id == failure:
            return row.hint
    return hints.general

"""The shape of a TODO's hints, and how a check's message finds its level-2 hint.

Each Part's hints live in `hints/partN.py` as data: per TODO a nudge (level 1), a general
stronger hint (level 2 before any check has failed, or for a message no class names), a
near-solution outline (level 3) and a table of failure classes. A class is (id, pattern,
hint): the pattern is a regular expression searched in the check's message (the problem
and its "How to fix" text, whitespace collapsed); the first class that matches is the
failure's class. A new check message gets its hint by adding one row to its TODO's table.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Failure:
    id: str
    pattern: str
    hint: str

    def matches(self, message: str) -> bool:
        return re.search(self.pattern, message, re.I | re.S) is not None


@dataclass(frozen=True)
class TodoHints:
    nudge: str                    # level 1: the idea, no code
    general: str                  # level 2 when no class applies
    outline: str                  # level 3: the steps, close to the solution
    failures: tuple[Failure, ...] = field(default_factory=tuple)


def F(id: str, pattern: str, hint: str) -> Failure:
    return Failure(id, pattern, hint)


# Classes every TODO shares; a TODO's own rows are tried first.
COMMON = (
    F("not_implemented", r"not implemented yet",
      "The TODO cell still raises NotImplementedError, or the kernel still holds the stub: replace the line "
      "`raise NotImplementedError()` with your code, run the TODO cell (Shift+Enter), then run the check again."),
    F("not_run_yet", r"run the TODO cell above this check first|is not defined yet",
      "The check cannot see your function yet: run the TODO cell first (a cell only counts once it has run in "
      "this kernel), then the check."),
    F("crash", r"your code raised",
      "Your function raised an error on the input the message names after 'on this input'. Paste that call into "
      "a new cell, run it, and read the line the error points at; the fix is usually a missing case (None, an "
      "empty list, a key that is not there)."),
)
GENERIC = {"crash", "other"}  # classes whose hint does not name the mistake


def flatten(message: str) -> str:
    return " ".join(str(message).split())


def classify(todo: TodoHints, message: str) -> Failure | None:
    """The failure class of a check message, or None when no row names it."""
    flat = flatten(message)
    for failure in (*todo.failures, *COMMON):
        if failure.matches(flat):
            return failure
    return None

"""The base of the workshop's own exceptions.

Every error the workshop raises on purpose says what is wrong and how to put it right, so a
caller (the CLI, a notebook) can show the message without a traceback. Most classes write the
fix into the message; those that keep it apart set `fix` too.
"""
from __future__ import annotations


class WorkshopError(Exception):
    """An error raised on purpose: the message says what is wrong, `fix` how to put it right
    ("" when the message already says it)."""

    fix: str = ""

    def __init__(self, message: str = "", fix: str = "") -> None:
        super().__init__(message)
        if fix:
            self.fix = fix

"""Hard-stop checks that sit right below each TODO cell.

A failing check raises CheckFailed: one short message that names the TODO, says what
is wrong and where to look. In Jupyter it prints as that message alone, not as a long
traceback (IPython calls `_render_traceback_` when an exception has one).
"""
from __future__ import annotations

import traceback
from typing import Any, Callable

from .. import notebook_errors


class CheckFailed(Exception):
    def __init__(self, todo: str, problem: str, fix: str = "") -> None:
        self.todo, self.problem, self.fix = todo, problem, fix
        super().__init__(self.message())

    def message(self) -> str:
        text = f"{self.todo}: {self.problem}"
        if self.fix:
            text += f"\n  How to fix: {self.fix}"
        return text

    def _render_traceback_(self) -> list[str]:
        bar = "\x1b[1;31m" + "=" * 78 + "\x1b[0m"
        return [bar, "\x1b[1;31mCHECK FAILED\x1b[0m " + self.message(), bar]


def passed(todo: str, detail: str = "") -> None:
    print(f"\u2705 {todo} passed" + (f": {detail}" if detail else ""))


def call_learner(todo: str, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run the learner's function; turn a stub or a crash into a clear CheckFailed."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise CheckFailed(todo, f"not implemented yet: {what}",
                          "replace `raise NotImplementedError()` in the TODO cell above with your code, "
                          "run that cell, then run this check again.") from None
    except CheckFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - any learner crash becomes a readable message
        # Point at the learner's own line, not at library or driver internals.
        mine = [f for f in traceback.extract_tb(exc.__traceback__)
                if "site-packages" not in f.filename and "workshop_lib" not in f.filename]
        frame = mine[-1] if mine else None
        where = f" (line {frame.lineno}: `{(frame.line or '').strip()}`)" if frame and frame.line else ""
        raise CheckFailed(todo, f"your code raised {type(exc).__name__}: {exc}{where}",
                          "read the error, fix the TODO cell above and run it again.") from None


def expect(condition: bool, todo: str, problem: str, fix: str = "") -> None:
    if not condition:
        raise CheckFailed(todo, problem, fix)


def __getattr__(name: str):
    # `checks.part3.check_...` works after `from workshop_lib import checks`.
    if name.startswith("part"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)


# A check cell run before its TODO cell fails on an undefined name before any check code
# runs; in a notebook that NameError then says which cell to run first.
notebook_errors.install()

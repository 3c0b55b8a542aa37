"""Hard-stop checks that sit right below each TODO cell.

A failing check raises CheckFailed: one short message that names the TODO, says what
is wrong and where to look. In Jupyter it prints as that message alone, not as a long
traceback (IPython calls `_render_traceback_` when an exception has one).
"""
from __future__ import annotations

import contextlib
import difflib
import sys
import textwrap
import traceback
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from workshop_lib.checks import values
from workshop_lib.core import notebook_errors
from workshop_lib.errors import WorkshopError
from workshop_lib.hints import record

WIDTH = 100  # messages are wrapped so a notebook shows them without side-scrolling


def _wrap(text: str, indent: str) -> str:
    lines = []
    for line in text.splitlines() or [""]:
        # Lines that hold a quoted value or a diff marker keep their exact spacing.
        if line.lstrip().startswith(("expected:", "you wrote:", "returned:", "differs:", "^")):
            lines.append(indent + line.strip() if not line.startswith(" ") else line)
        else:
            lines.extend(textwrap.wrap(line, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                                       break_long_words=False, break_on_hyphens=False) or [indent])
    return "\n".join(lines)


class CheckFailed(WorkshopError):
    def __init__(self, todo: str, problem: str, fix: str = "") -> None:
        self.todo, self.problem, self.fix = todo, problem, fix
        super().__init__(self.message())

    def message(self) -> str:
        text = f"{self.todo}: {self.problem}"
        if self.fix:
            text += f"\n  How to fix: {self.fix}"
        return text

    def wrapped(self) -> str:
        """The message wrapped to WIDTH columns, as a notebook and the feedback page show it."""
        text = _wrap(f"{self.todo}: {self.problem}", "")
        if self.fix:
            text += "\n" + _wrap(f"How to fix: {self.fix}", "  ")
        return text

    def _render_traceback_(self) -> list[str]:
        # IPython renders a failure it shows (sometimes twice): the first time is one failed run of the check.
        if not hasattr(self, "_stuck"):
            self._stuck = _record(self.todo, None, self)
        stuck = self._stuck
        bar = "\x1b[1;31m" + "=" * 78 + "\x1b[0m"
        return [bar, "\x1b[1;31mCHECK FAILED\x1b[0m " + self.wrapped(), bar] + ([stuck] if stuck else [])


def passed(todo: str, detail: str = "", fn: Any = None) -> None:
    """Say the check passed; `fn` is remembered as the version of the TODO that passed."""
    if fn is not None:
        _PASSED[todo] = fn
    print(f"\u2705 {todo} passed" + (f": {detail}" if detail else ""))
    _record(todo, sys._getframe(1).f_globals.get("__name__"), None)


def _record(todo: str, module: str | None, failure: CheckFailed | None) -> str:
    """Record this run in the notebook for hints and the grade summary (hints/record.py); never fails a check."""
    try:
        module = module or record.module_of_failure(failure)
        record.check_ran(todo, module, None if failure is None else failure.message())
        return record.stuck_line(todo, module) if failure is not None else ""
    except Exception:  # noqa: BLE001 - the check's own verdict matters more than its record
        return ""


# The learner's function that passed each TODO's check last (by identity: a TODO cell run
# again defines a new function, which has not passed until its check runs again).
_PASSED: dict[str, Any] = {}


def forget(todo: str) -> None:
    """A check starts: until it passes, the TODO counts as not passed."""
    _PASSED.pop(todo, None)


def has_passed(todo: str, fn: Any) -> bool:
    return fn is not None and _PASSED.get(todo) is fn


def checked_or_reference(todo: str, fn: Callable[..., Any], reference: Callable[..., Any], reference_name: str
                         ) -> Callable[..., Any]:
    """What later cells run: the learner's function once its check passed, the library's otherwise.

    A wrong TODO must not hang or crash the cells after it (nor cost another TODO its points
    under nbgrader), so a function whose check failed or never ran is replaced, and the cell says so."""
    if has_passed(todo, fn):
        return fn
    say_reference(todo, reference_name)
    return reference


def say_reference(todo: str, reference_name: str) -> None:
    print(f"\u2139\ufe0f {todo}: its check has not passed for the version of your code defined last, so the cells "
          f"below use the library's {reference_name}. Fix the TODO cell, run it and its check, then run this cell "
          "again to use yours.")


def diff(expected: str, got: str, limit: int = 12) -> str:
    """Expected and actual text line by line, with the first differing span of each line marked by ^."""
    want_lines, got_lines = expected.splitlines() or [""], got.splitlines() or [""]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=want_lines, b=got_lines).get_opcodes():
        if tag == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            want = want_lines[i1 + k] if i1 + k < i2 else None
            mine = got_lines[j1 + k] if j1 + k < j2 else None
            out.append(_line_diff(want, mine))
        if len(out) >= limit:
            out.append("    ... (more lines differ)")
            break
    return "\n".join(out)


def _line_diff(want: str | None, mine: str | None) -> str:
    if mine is None:
        return f"    expected: {want!r}\n    you wrote: (this line is missing)"
    if want is None:
        return f"    expected: (no such line)\n    you wrote: {mine!r}"
    start = next((i for i, (a, b) in enumerate(zip(want, mine)) if a != b), min(len(want), len(mine)))
    # Show a window around the first difference, so near-identical long lines stay readable.
    lo = max(0, start - 30)
    cut_w, cut_m = want[lo:start + 50], mine[lo:start + 50]
    pre = "..." if lo else ""
    pad = " " * (len("    you wrote: '") + len(pre) + len(repr(mine[lo:start])) - 2)
    return (f"    expected: {pre}{cut_w!r}\n    you wrote: {pre}{cut_m!r}\n{pad}^ first difference "
            f"at character {start + 1}")


def describe_value(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 15] + f"... ({len(text)} chars)"


def _learner_running() -> contextlib.AbstractContextManager[Any]:
    """Entered while the learner's function runs under a check; the grader's re-check replaces it
    to make the reference of the TODO being graded unavailable there (tools/grading/recheck.py)."""
    return contextlib.nullcontext()


class LinesExceeded(BaseException):
    """The learner's function ran past the line limit a check set (`line_limit`): stopped in the learner's
    own process by the grader's re-check (tools/grading/judge.py). Not an Exception, so call_learner
    passes it on to the check that set the limit, which says so in its own words."""


_LINE_LIMIT = [0]


@contextlib.contextmanager
def line_limit(lines: int) -> Iterator[None]:
    """While the block runs, the grader's judge asks the learner's process to stop the learner's
    function after `lines` lines of its code (Part 8's loop guard, where the function runs elsewhere)."""
    before = _LINE_LIMIT[0]
    _LINE_LIMIT[0] = lines
    try:
        yield
    finally:
        _LINE_LIMIT[0] = before


def line_limit_now() -> int:
    return _LINE_LIMIT[0]


def call_learner(todo: str, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run the learner's function; turn a stub or a crash into a clear CheckFailed.

    `what` names the call and its input, so a crash says which case caused it. What it returned is
    rebuilt from plain values (values.plain), so no class of the learner's decides a comparison."""
    try:
        with _learner_running():  # a generator's items are read here too: its code runs now
            return values.plain(fn(*args, **kwargs), values.inputs(*args, *kwargs.values()))
    except NotImplementedError:
        raise CheckFailed(todo, f"not implemented yet: {what}",
                          "replace `raise NotImplementedError()` in the TODO cell above with your code, "
                          "run that cell, then run this check again.") from None
    except CheckFailed:
        raise
    except TypeError as exc:
        # Raised by the call itself (here, or in the learner's process when the grader's judge called it
        # there): the function does not take the arguments every caller passes.
        if getattr(exc, "at_the_call", False) or (exc.__traceback__ is not None and exc.__traceback__.tb_next is None):
            raise CheckFailed(todo, f"your function cannot be called as the TODO specifies: {exc}\n  on this input: "
                                    f"{what}", "keep the def line of the TODO cell as it was given (the parameter "
                                    "names and defaults), run the cell, then this check.") from None
        raise _crash(todo, what, exc) from None
    except Exception as exc:  # noqa: BLE001 - any learner crash becomes a readable message
        raise _crash(todo, what, exc) from None


def _crash(todo: str, what: str, exc: Exception) -> CheckFailed:
    # Point at the learner's own line, not at library or driver internals.
    mine = [f for f in traceback.extract_tb(exc.__traceback__)
            if "site-packages" not in f.filename and "workshop_lib" not in f.filename]
    frame = mine[-1] if mine else None
    where = f" (line {frame.lineno}: `{(frame.line or '').strip()}`)" if frame and frame.line else ""
    return CheckFailed(todo, f"your code raised {type(exc).__name__}: {str(exc)[:300]}{where}\n"
                             f"  on this input: {what}",
                       "read the error, fix the TODO cell above and run it again.")


def expect(condition: bool, todo: str, problem: str, fix: str = "") -> None:
    if not condition:
        raise CheckFailed(todo, problem, fix)


def __getattr__(name: str) -> ModuleType:
    # `checks.part3.check_...` works after `from workshop_lib import checks`.
    if name.startswith("part"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)


# A check cell run before its TODO cell fails on an undefined name before any check code
# runs; in a notebook that NameError then says which cell to run first.
notebook_errors.install()

"""Readable messages for the errors a learner meets by running cells out of order.

A check cell run before its TODO cell fails while Python evaluates the check's
arguments, before any check code runs, so the check cannot catch it. IPython lets a
package handle chosen exception types itself (`set_custom_exc`); the cell still counts
as failed (nbgrader and nbclient see the error), but the learner reads one message that
says which cell to run first instead of a traceback.
"""
from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

import re

# Names every Part's first code cell defines.
FIRST_CELL_NAMES = {"eng", "checks", "connect", "retrieval", "scanner", "gates", "grounded", "catalog", "pd", "plt"}
BAR = "\x1b[1;31m" + "=" * 78 + "\x1b[0m"


def name_error_message(name: str, cell_source: str) -> tuple[str, str]:
    """(headline, advice) for `name` being undefined in a cell with this source."""
    if name in FIRST_CELL_NAMES:
        return ("NOT READY", f"`{name}` is not defined yet: run the first code cell of this notebook "
                "(it imports the workshop and connects to the engine), then run this cell again.")
    if "checks.part" in cell_source:
        return ("CHECK FAILED", f"`{name}` is not defined yet: run the TODO cell above this check first "
                f"(it defines `{name}`), then run this check again.")
    return ("NOT DEFINED", f"`{name}` is not defined: run the cells above this one first (top to bottom), "
            "or check the spelling.")


def _missing_name(value: BaseException) -> str:
    name = getattr(value, "name", None)
    if name:
        return str(name)
    found = re.search(r"name '([^']+)' is not defined", str(value))
    return found.group(1) if found else "?"


def _handler(shell: InteractiveShell, etype: type[BaseException], value: BaseException, tb: TracebackType | None,
             tb_offset: int | None = None) -> list[str]:
    history = shell.user_ns.get("In") or [""]
    headline, advice = name_error_message(_missing_name(value), history[-1] if history else "")
    stb = [BAR, f"\x1b[1;31m{headline}\x1b[0m {advice}", BAR]
    # IPython does not display what a custom handler returns: show it as the cell's error
    # output, so the cell still fails for nbclient and nbgrader (no points for a NameError).
    shell._showtraceback(etype, value, stb)
    return stb


def install() -> None:
    """Handle NameError in the running IPython kernel, if there is one (idempotent)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and NameError not in getattr(shell, "custom_exceptions", ()):
        shell.set_custom_exc((NameError,), _handler)

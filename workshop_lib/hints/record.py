"""What a learner did on each TODO, kept in the kernel and written into the notebook.

Check runs and opened hints are kept per (part, todo) in this kernel, and appended to a
small journal in the data folder so a restarted kernel keeps counting. They reach the
notebook as display outputs with workshop MIME types (JupyterLab saves every MIME type of
an output, shown or not): a check cell's output holds every run of its TODO so far, the
hint cell's output holds the levels opened (updated in place through its display_id when a
button is clicked). `workshop grade` reads them back (tools/grading/summary.py).
Nothing is recorded outside a Jupyter kernel (tests, scripts).
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from workshop_lib import config
from workshop_lib.hints import catalog

CHECK_MIME = "application/vnd.workshop.check-runs+json"
HINT_MIME = "application/vnd.workshop.hints+json"
JOURNAL = "hints_journal.jsonl"
MAX_EVENTS = 300                 # per TODO and kind: a record stays small however often a check runs
MAX_JOURNAL_BYTES = 5_000_000    # past this the journal is no longer appended to (memory still counts)

_events: dict[tuple[str, str, str], list[dict]] = {}   # (kind, part, todo) -> events, oldest first
_loaded: set[tuple[str, str]] = set()


def in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def journal_path() -> Path:
    return config.data_dir() / JOURNAL


def _load(part: str, todo: str) -> None:
    """Events of an earlier kernel, from the journal, the first time a TODO is touched."""
    if (part, todo) in _loaded:
        return
    _loaded.add((part, todo))
    try:
        lines = journal_path().read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("part") == part and entry.get("todo") == todo \
                and entry.get("kind") in ("run", "hint"):
            _events.setdefault((entry["kind"], part, todo), []).append(
                {k: v for k, v in entry.items() if k not in ("kind", "part", "todo")})


def _add(kind: str, part: str, todo: str, event: dict) -> list[dict]:
    _load(part, todo)
    events = _events.setdefault((kind, part, todo), [])
    events.append(event)
    del events[:-MAX_EVENTS]
    try:
        path = journal_path()
        if not path.exists() or path.stat().st_size < MAX_JOURNAL_BYTES:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"kind": kind, "part": part, "todo": todo, **event}) + "\n")
    except OSError:
        pass  # a read-only data folder loses only the history across kernels
    return events


def runs(part: str, todo: str) -> list[dict]:
    _load(part, todo)
    return list(_events.get(("run", part, todo), []))


def hint_events(part: str, todo: str) -> list[dict]:
    _load(part, todo)
    return list(_events.get(("hint", part, todo), []))


def last_failure(part: str, todo: str) -> str | None:
    """The failure class of the latest check run of this TODO, None when it passed or never ran."""
    done = runs(part, todo)
    return done[-1].get("class") if done and not done[-1].get("ok") else None


def opened(part: str, todo: str) -> list[int]:
    return sorted({int(e["level"]) for e in hint_events(part, todo)})


def check_payload(part: str, todo: str) -> dict[str, Any]:
    return {"part": part, "todo": todo, "runs": runs(part, todo)}


def hint_payload(part: str, todo: str) -> dict[str, Any]:
    return {"part": part, "todo": todo, "opened": opened(part, todo), "events": hint_events(part, todo)}


def display_id(part: str, todo: str) -> str:
    return f"workshop-hints-{part}-{todo}"


def hint_plain(part: str, todo: str) -> str:
    levels = opened(part, todo)
    return f"hint levels opened: {', '.join(map(str, levels))}" if levels else ""


# ------------------------------------------------------------------ check runs
_TODO_LABEL = re.compile(r"TODO\s*(\d+)")


def _todo_key(part: str, label: str) -> str | None:
    number = _TODO_LABEL.search(label or "")
    if not number:
        return None
    return next((key for key in catalog.todos(part) if key.startswith(f"todo{number.group(1)}_")), None)


def _part_of(module: str) -> str | None:
    found = re.fullmatch(r"workshop_lib\.checks\.(part\d+)", module or "")
    return found.group(1) if found else None


def check_ran(label: str, module: str | None, message: str | None) -> None:
    """One run of a check: passed (message None) or failed with this message. Kernel only."""
    if not in_kernel():
        return
    part = _part_of(module or "")
    todo = _todo_key(part, label) if part else None
    if part is None or todo is None:
        return

    event: dict[str, Any] = {"ok": message is None, "at": round(time.time(), 1)}
    if message is not None:
        event["class"] = catalog.failure_class(part, todo, message)
    _add("run", part, todo, event)
    from IPython.display import display

    display({CHECK_MIME: check_payload(part, todo), "text/plain": ""}, raw=True)


def module_of_failure(exc: BaseException | None) -> str | None:
    """The workshop_lib.checks.partN module a CheckFailed was raised in (from its traceback)."""
    found = None
    tb = exc.__traceback__ if exc is not None else None
    while tb is not None:
        name = tb.tb_frame.f_globals.get("__name__", "")
        if _part_of(name):
            found = name
        tb = tb.tb_next
    return found


def hint_opened(part: str, todo: str, level: int, failure: str | None) -> None:
    if not in_kernel():
        return
    event: dict[str, Any] = {"level": level, "at": round(time.time(), 1)}
    if level == 2:
        event["class"] = failure
    _add("hint", part, todo, event)
    from IPython.display import update_display

    # The hint cell's record output (if it is on the page) now lists this level too.
    update_display({HINT_MIME: hint_payload(part, todo), "text/plain": hint_plain(part, todo)},
                   display_id=display_id(part, todo), raw=True)


def reset() -> None:
    """Forget this kernel's events (tests)."""
    _events.clear()
    _loaded.clear()


def stuck_line(label: str, module: str | None) -> str:
    """The line under a failed check's message that points at the hints for its TODO."""
    part = _part_of(module or "")
    todo = _todo_key(part, label) if part else None
    if todo is None:
        return ""
    number = todo.split("_", 1)[0][len("todo"):]
    return (f"Stuck? The hint buttons under the TODO cell, or hints.hint({part!r}, {number}) "
            "(from workshop_lib import hints), now aim at this failure.")

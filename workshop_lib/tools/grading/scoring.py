"""Points per graded cell, computed by the grader from what the notebook produced.

A graded cell earns its points (from the instructor's solutions, never from a file the
notebook could write) when it ran without an error, as nbgrader scores code cells. The
autograded notebook is read when there is one; a notebook stopped half way (its budget,
a dead kernel) is scored from the worker's per-cell log, so cells graded before keep
their points and every other cell says why it has none.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workshop_lib.tools.grading import feedback
from workshop_lib.tools.grading.scratch import tree_hash
from workshop_lib.tools.grading.submissions import Problem, Submission, read_inside

COLUMNS = ["student", "assignment", "notebook", "file", "cell", "score", "max_score", "status"]
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class Result:
    rows: list[dict] = field(default_factory=list)
    feedback: bytes | None = None
    retry: bool = False      # not the notebook's fault: grade it again, alone
    problem: bool = False    # killed, crashed or not graded: counted in the progress bar
    seconds: float = 0.0     # wall time of this notebook's grading

    @classmethod
    def failed(cls, sub: Submission, why: str, *, retry: bool, points: dict[str, float] | None = None) -> Result:
        cells = points or {"(all)": 0.0}
        return cls(rows=[_row(sub, cell, 0.0, pts, f"not graded: {why}") for cell, pts in cells.items()],
                   retry=retry, problem=True)


def _row(sub: Submission, cell: str, score, max_score: float, status: str) -> dict:
    return dict(student=sub.student, assignment=sub.part, notebook=sub.notebook, file=sub.file, cell=cell,
                score=score, max_score=max_score, status=status)


def _first_line(text: str, limit: int = 300) -> str:
    lines = [ln.strip() for ln in _ANSI.sub("", text or "").splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _log_reason(log: str) -> str:
    """The line of nbgrader's log that says what went wrong (an exception line, else the last line)."""
    lines = [ln.strip() for ln in _ANSI.sub("", log or "").splitlines() if ln.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception)\b", line) or line.startswith("[ERROR]"):
            return _first_line(line)
    return _first_line(lines[-1]) if lines else ""


def _error_status(ename: str, evalue: str, cell_timeout: int) -> str:
    if ename == "CellTimeoutError":
        return f"failed: the cell ran past its {cell_timeout} s limit (an infinite loop?)"
    return f"failed: {ename}: {_first_line(evalue)}" if ename != "CheckFailed" else f"failed: {_first_line(evalue)}"


def nothing_to_grade(sub: Submission) -> Result:
    return Result(rows=[_row(sub, "", 0.0, 0.0, "nothing to grade: this Part has no TODO")])


def score(sub: Submission, job_dir: Path, reply: dict | None, master, *, budget: int, cell_timeout: int,
          last_try: bool, sandboxed: bool = False) -> Result:
    points = master.points[sub.part]
    if not job_dir.exists():
        return Result.failed(sub, "its scratch folder was deleted while it ran", retry=not last_try, points=points)
    if not sandboxed and tree_hash(job_dir / "lib") != master.lib_hash:
        return Result.failed(sub, "the notebook changed the workshop's code while it was graded; review it by hand",
                             retry=not last_try, points=points)
    feedback = _feedback(job_dir, sub)
    autograded = f"course/autograded/{sub.student}/{sub.part}/{sub.notebook}"
    if reply is not None and reply.get("autograded"):
        rows = _from_notebook(sub, job_dir, autograded, points, cell_timeout)
        if rows is not None:
            return Result(rows=rows, feedback=feedback, problem=any(not r["status"].startswith(("passed", "failed"))
                                                                    for r in rows))
    events = _events(job_dir, "cells.jsonl")
    died = any(e.get("event") == "died" for e in events)
    if reply is None:
        cause = f"the notebook was stopped at its {budget} s budget (an infinite loop?)"
    elif died:
        cause = "the kernel died (the notebook exited Python, crashed or ran out of memory)"
    elif reply.get("worker_died") or not events:
        return Result.failed(sub, _log_reason(reply.get("log", "")) or "nbgrader could not run it",
                             retry=not last_try, points=points)
    else:
        cause = "nbgrader stopped: " + _log_reason(reply.get("log", ""))
    return Result(rows=_from_events(sub, events, points, cause, cell_timeout), feedback=feedback, problem=True)


def _from_notebook(sub: Submission, job_dir: Path, rel: str, points: dict[str, float],
                   cell_timeout: int) -> list[dict] | None:
    try:
        nb = json.loads(read_inside(job_dir, rel).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    seen = _graded_cell_statuses(nb["cells"], points, cell_timeout)
    if seen is None:
        return None
    return [_row(sub, gid, pts if seen.get(gid) == "passed" else 0.0, pts,
                 seen.get(gid, "failed: the graded cell is missing from the notebook")) for gid, pts in points.items()]


def _graded_cell_statuses(cells: list, points: dict[str, float], cell_timeout: int) -> dict[str, str] | None:
    """grade_id -> "passed" or why it failed, for the first cell of each graded id; None when a cell
    is not shaped as nbgrader writes it (the notebook was forged)."""
    seen: dict[str, str] = {}
    for cell in cells:
        try:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            outputs = [o for o in cell.get("outputs", []) if isinstance(o, dict)]
        except AttributeError:  # not a notebook nbgrader wrote: the notebook forged it
            return None
        if isinstance(grade_id, str) and grade_id in points and grade_id not in seen:
            errors = [o for o in outputs if o.get("output_type") == "error"]
            # A timed-out cell shows the KeyboardInterrupt of the interrupt first; the timeout is the cause.
            errors.sort(key=lambda o: o.get("ename") != "CellTimeoutError")
            seen[grade_id] = (_error_status(errors[0].get("ename", ""), errors[0].get("evalue", ""), cell_timeout)
                              if errors else "passed")
    return seen


def _events(job_dir: Path, rel: str) -> list[dict]:
    out: list[dict] = []
    try:
        text = read_inside(job_dir, rel, limit=50_000_000).decode("utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def _from_events(sub: Submission, events: list[dict], points: dict[str, float], cause: str,
                 cell_timeout: int) -> list[dict]:
    state: dict[str, str] = {}
    running = None
    for e in events:
        gid = e.get("grade_id") or ""
        if e.get("event") == "start":
            running = gid
        elif e.get("event") == "done":
            running = None
            if gid in points and gid not in state:
                state[gid] = ("passed" if e.get("status") == "ok"
                              else _error_status(e.get("ename", ""), e.get("evalue", ""), cell_timeout))
    rows = []
    for gid, pts in points.items():
        status = state.get(gid)
        if status is None:
            status = f"killed while this cell ran: {cause}" if gid == running else f"not run: {cause}"
        rows.append(_row(sub, gid, pts if status == "passed" else 0.0, pts, status))
    return rows


def _feedback(job_dir: Path, sub: Submission) -> bytes | None:
    rel = f"course/feedback/{sub.student}/{sub.part}/{Path(sub.notebook).stem}.html"
    try:
        html = read_inside(job_dir, rel, limit=100_000_000)
    except OSError:
        return None
    return feedback.safe_page(html.decode("utf-8", errors="replace")).encode()


def problem_rows(problems: list[Problem]) -> list[dict]:
    return [dict(student=p.student, assignment="", notebook="", file=p.file, cell="", score=0.0, max_score=0.0,
                 status=p.status) for p in problems]


def missing_rows(subs: list[Submission], problems: list[Problem], points: dict[str, dict[str, float]]) -> list[dict]:
    """A Part a learner did not hand in shows 'missing' (no score), not 0."""
    refused = {p.student for p in problems if p.status.startswith("refused")}
    learners = sorted({s.student for s in subs} | {p.student for p in problems if p.student} - refused)
    handed = {(s.student, s.part) for s in subs}
    rows = []
    for student in learners:
        for part, cells in sorted(points.items()):
            if cells and (student, part) not in handed:
                rows += [dict(student=student, assignment=part, notebook="", file="", cell=gid, score=None,
                              max_score=pts, status="missing") for gid, pts in cells.items()]
    return rows

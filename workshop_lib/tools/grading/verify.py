"""The trusted verdict: re-check what passed, and flag forgeries for review.

Everything a notebook's own run produces (its outputs, its autograded copy, its feedback)
passed through the learner's kernel, which can rewrite it or replace the check it called.
So every notebook that earned points is re-checked by `recheck.py` in a fresh sandbox: the
notebook's code cells run as nbgrader runs them (graded and locked cells from the release,
the others as the learner left them). The checks run in a second
process, the judge (judge.py, in its own sandbox), which never runs learner code and calls
the learner's functions through a pipe of plain data: its verdict is the only source of a
"passed" (a plan it cannot run, whose graded cells are not plain check calls, is re-checked
with the checks in the learner's process). `reconcile` then keeps a "passed" only when

- the re-check passed the same cell,
- no change to the workshop code, builtins or sys.modules was found before or during
  that check, no blocked or reported operation happened (see recheck.py), and
- the learner's lines before that check hold nothing from `suspicious` (a static look for
  the tools forgeries use).

Otherwise the cell gets 0 points and the status "review: <why>", listed by `workshop grade`
for the instructor to look at. A check that failed in the notebook stays failed.
"""
from __future__ import annotations

import ast
import json
import os
import re
import secrets
import select
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workshop_lib.tools.grading import judge, scratch
from workshop_lib.tools.grading.submissions import Submission

# The spellings forgeries need: reaching into frames, code objects, the module table, the
# checks or their exception, memory, or building names at run time to hide them.
_SUSPICIOUS = [
    (re.compile(r"\bsys\s*\.\s*modules\b"), "uses sys.modules"),
    (re.compile(r"__(code|globals|closure|builtins|dict|class|bases|subclasses|getattribute|import)__"),
     "touches a dunder attribute used to patch code"),
    (re.compile(r"\b__(eq|ne|hash|bool|lt|le|gt|ge|instancecheck|subclasscheck)__\b"),
     "defines how its objects compare (an object equal to everything passes any comparison)"),
    (re.compile(r"\bCheckFailed\b|\bchecks\.\w|\bworkshop_lib\s*\.\s*checks\b|import\s+[^\n]*\bchecks\b"),
     "refers to the checks"),
    (re.compile(r"\b(import|from)\s+(ctypes|gc|inspect|importlib|builtins|traceback|signal|unittest|threading)\b"),
     "imports a module that can reach into the grader's objects"),
    (re.compile(r"_getframe|f_back|f_locals|f_globals|tb_frame|gi_frame|cell_contents|settrace|setprofile"),
     "reaches into stack frames"),
    (re.compile(r"\b(exec|eval|compile|__import__|setattr|delattr)\s*\("), "runs or patches code built at run time"),
    (re.compile(r"/proc|/dev/fd|os\s*\.\s*(write|fork|forkpty|dup2?)\b"), "writes to raw file descriptors or processes"),
]
# Assigning to an attribute of a library module (`gates.decide_mode = ...`) changes the reference.
_MODULE_ASSIGN = re.compile(r"^\s*(checks|gates|grounded|retrieval|scanner|memory|calibration|workshop_lib)"
                            r"(\s*\.\s*\w+)+\s*=[^=]", re.M)


def suspicious(source: str) -> list[str]:
    """Why a TODO cell's code deserves a human look (empty for ordinary code)."""
    found = [why for pattern, why in _SUSPICIOUS if pattern.search(source)]
    if _MODULE_ASSIGN.search(source):
        found.append("assigns to an attribute of a workshop module")
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax (a magic): the patterns above still apply
        return found
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and len(node.args) > 1 and not isinstance(node.args[1], ast.Constant)):
            found.append("looks up an attribute by a computed name")
            break
    return found


def _source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def plan(released: bytes, submitted: bytes) -> tuple[list[dict], dict[str, str]]:
    """The cells the re-check runs, in the learner's order, as nbgrader runs them: graded and
    locked cells from the release (the learner cannot change them), every other code cell as
    the learner left it. A cell whose text is not one of the release's is the learner's
    ("learner": watched and looked at); the rest are the instructor's ("course"). Also
    returns the learner's TODO sources by grade_id. Stops after the last graded cell."""
    release = [c for c in json.loads(released)["cells"] if c.get("cell_type") == "code"]
    fixed, course_text = _fixed_cells(release)
    course_lines = {line.strip() for c in release for line in _source(c).splitlines()}
    cells: list[dict] = []
    todo: dict[str, str] = {}
    placed: set[str] = set()
    for cell in _code_cells(submitted):
        meta, gid = _nbgrader_metadata(cell)
        if isinstance(gid, str) and gid in fixed:
            if gid not in placed:
                placed.add(gid)
                cells.append(_released_cell(gid, *fixed[gid]))
            continue
        source = _source(cell)
        if isinstance(gid, str) and meta.get("solution") and gid not in todo:
            todo[gid] = source
        cells.append(_learner_cell(source, gid, meta, course_text, course_lines))
    last = max((i for i, c in enumerate(cells) if c["kind"] == "check"), default=-1)
    return cells[:last + 1], todo


def _nbgrader_metadata(cell: dict) -> tuple[Any, Any]:
    """(the cell's nbgrader metadata, its grade_id) as the learner's copy has them: metadata that is
    not an object (a list, a string: a hand-edited or hostile copy) counts as none, so the cell is the
    learner's; the grade_id may be of any JSON type."""
    meta = cell.get("metadata", {})
    meta = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    if not isinstance(meta, dict):
        return {}, None
    return meta, meta.get("grade_id")


def _fixed_cells(release: list[dict]) -> tuple[dict[str, tuple[dict, bool]], set[str]]:
    """grade_id -> (the released cell, whether it is graded) for graded and locked cells, and the
    text of every released cell that is not graded (the instructor's)."""
    fixed, course_text = {}, set()
    for cell in release:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") or meta.get("locked"):
            fixed[meta["grade_id"]] = (cell, bool(meta.get("grade")))
        if not meta.get("grade"):
            course_text.add(_source(cell))
    return fixed, course_text


def _code_cells(submitted: bytes) -> list[dict]:
    """The code cells of the handed-in notebook; none when it is not a notebook's JSON."""
    try:
        nb = json.loads(submitted)
        return [c for c in nb.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
    except (ValueError, AttributeError, TypeError):
        return []


def _released_cell(gid: str, cell: dict, graded: bool) -> dict:
    """A graded or locked cell as released, whatever the learner's copy says: a check, or course code."""
    source = _source(cell)
    return {"kind": "check", "grade_id": gid, "source": source} if graded else {"kind": "course", "source": source}


def _learner_cell(source: str, gid: Any, meta: Any, course_text: set[str], course_lines: set[str]) -> dict:
    """A cell as the learner left it: the instructor's when its text is a released cell's (and it is
    no TODO), else the learner's; "new" holds the lines that are in no cell of the release."""
    kind = "course" if source in course_text and not meta.get("solution") else "learner"
    new = "\n".join(line for line in source.splitlines() if line.strip() not in course_lines)
    return {"kind": kind, "grade_id": gid if isinstance(gid, str) else "", "source": source, "new": new}


def suspicious_before_checks(cells: list[dict]) -> dict[str, list[str]]:
    """check grade_id -> what is suspicious in the TODO cells run before it (a later TODO
    cannot have changed an earlier check)."""
    out: dict[str, list[str]] = {}
    seen: list[str] = []
    for cell in cells:
        if cell["kind"] == "learner":
            seen += [why for why in suspicious(cell.get("new", cell["source"])) if why not in seen]
        elif cell["kind"] == "check" and seen:
            out[cell["grade_id"]] = list(seen)
    return out


@dataclass
class Recheck:
    verdicts: dict[str, dict] = field(default_factory=dict)  # grade_id -> {"passed", "message", "changed"}
    tampering: list[tuple[int, str]] = field(default_factory=list)  # (cell, what the audit hook reported), in order
    forged: str = ""                                         # the reply channel itself was abused
    finished: bool = False
    why_stopped: str = ""
    suspicious: dict[str, list[str]] = field(default_factory=dict)  # check grade_id -> why the TODO cells before it
    split: bool = False                                      # the judge ran the checks (judge.py)


def run(sub: Submission, master, folder: Path, *, budget: float, cell_timeout: int, sandboxed: bool) -> Recheck:
    cells, _ = plan(master.release[sub.part], sub.content)
    result = Recheck(suspicious=suspicious_before_checks(cells))
    # The notebook's folder sits where it does in the notebook's own run (relative paths agree).
    here = f"course/submitted/{sub.student}/{sub.part}"
    files = {f"data/{k}": v for k, v in master.data.items()}
    if not sandboxed:  # its own copy of the code (written from memory), as the notebook's run had
        files.update({f"lib/{k}": v for k, v in master.lib.items()})
    scratch.write_tree(folder, files, ("home", "tmp", "cache", "ipython", here))
    root = Path("/job") if sandboxed else folder
    env = master.worker_env()
    env.update({"HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "WORKSHOP_DATA_DIR": str(root / "data"),
                "PYTHONPATH": "/workshop" if sandboxed else str(folder / "lib"), "IPYTHONDIR": str(root / "ipython"),
                "MPLCONFIGDIR": str(root / "cache"), "XDG_CACHE_HOME": str(root / "cache")})
    job = {"env": env, "scratch": str(root / here), "cells": cells, "cell_timeout": cell_timeout}
    if not judge.split(cells):  # a graded cell the judge cannot run: the checks run in the learner's process
        worker = scratch.Worker(env, folder, jail=(folder, master) if sandboxed else None, module=RECHECK)
        return talk(worker, job, result, budget)
    # The judge's own folder: its copy of the prepared database, its HOME; the code is the grader's snapshot.
    judge_dir = folder.with_name(folder.name + "-judge")
    data = {f"data/{k}": v for k, v in master.data.items()} if judge.needs_engine(cells) else {}
    scratch.write_tree(judge_dir, data, ("home", "tmp", "cache"))
    judge_root = Path("/job") if sandboxed else judge_dir
    judge_env = master.worker_env()
    judge_env.update({"HOME": str(judge_root / "home"), "TMPDIR": str(judge_root / "tmp"),
                      "WORKSHOP_DATA_DIR": str(judge_root / "data"), "MPLCONFIGDIR": str(judge_root / "cache"),
                      "PYTHONPATH": "/workshop" if sandboxed else str(master.workshop),
                      "XDG_CACHE_HOME": str(judge_root / "cache")})
    learner, judging = start_split(env, folder, judge_env, judge_dir, master if sandboxed else None)
    return talk_split(learner, judging, job, {"env": judge_env, "scratch": str(judge_root), "cells": cells,
                                              "cell_timeout": cell_timeout, "budget": budget,
                                              "data": str(judge_root / "data")}, result, budget)


RECHECK = "workshop_lib.tools.grading.recheck"
JUDGE = "workshop_lib.tools.grading.judge"


def start_split(env: dict, folder: Path, judge_env: dict, judge_folder: Path,
                master=None) -> tuple[scratch.Worker, scratch.Worker]:
    """The learner's re-check process and the judge, joined by two pipes made here. The learner's
    process inherits only its ends of those (its replies go to the judge); the judge alone gets a
    pipe to the grader. With `master`, each runs in its own sandbox."""
    from_learner, to_judge = os.pipe()
    from_judge, to_learner = os.pipe()
    try:
        judging = scratch.Worker(judge_env, judge_folder, jail=(judge_folder, master) if master else None,
                                 module=JUDGE, fds={"--learner-in": from_learner, "--learner-out": to_learner})
        try:
            learner = scratch.Worker(env, folder, jail=(folder, master) if master else None, module=RECHECK,
                                     fds={"--calls-fd": from_judge}, reply_fd=to_judge)
        except BaseException:
            judging.stop()
            raise
    finally:
        for fd in (to_judge, from_learner, from_judge, to_learner):
            os.close(fd)
    return learner, judging


def talk_split(learner: scratch.Worker, judging: scratch.Worker, learner_job: dict, judge_job: dict,
               result: Recheck, budget: float) -> Recheck:
    """Start the learner's re-check on its job, then read the judge's verdicts; stop both."""
    result.split = True
    try:
        stdin = learner.proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(learner_job) + "\n")
        stdin.flush()
    except (BrokenPipeError, OSError):
        pass  # the judge then sees the learner's process end, and says so
    try:
        return talk(judging, judge_job, result, budget)
    finally:
        learner.stop()


def talk(worker: scratch.Worker, job: dict, result: Recheck, budget: float) -> Recheck:
    """Send the re-check its job (signed with a fresh nonce), read its replies into `result`, stop it."""
    nonce = secrets.token_hex(16)
    expected = [c["grade_id"] for c in job["cells"] if c["kind"] == "check"]
    try:
        stdin = worker.proc.stdin
        assert stdin is not None  # the worker is started with a pipe on stdin
        stdin.write(json.dumps({"nonce": nonce, **job}) + "\n")
        stdin.flush()
        deadline = time.monotonic() + budget
        buffer = b""
        assert worker.replies is not None
        fd = worker.replies.fileno()
        while not result.finished and not result.forged:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                result.why_stopped = f"the re-check ran past its {budget:g} s budget"
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                result.why_stopped = "the re-check's process ended before the last check (the notebook exits or crashes it)"
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                _take(result, line, nonce, expected)
    except (BrokenPipeError, OSError) as exc:
        result.why_stopped = f"the re-check could not run: {exc}"
    finally:
        worker.stop()
    return result


def _take(result: Recheck, line: bytes, nonce: str, expected: list[str]) -> None:
    """One line from the re-check; anything malformed, unsigned or out of order is a forgery."""
    try:
        event = json.loads(line)
        ok = isinstance(event, dict) and secrets.compare_digest(str(event.get("nonce", "")), nonce)
    except ValueError:
        ok = False
    if not ok:
        result.forged = "the re-check's reply channel received a line the grader did not write"
        return
    kind = event.get("event")
    if kind == "tamper":
        where = event.get("cell")
        result.tampering.append((where if type(where) is int else -1, str(event.get("what", ""))[:300]))
    elif kind == "verdict":
        _take_verdict(result, event, expected)
    elif kind == "done":
        if len(result.verdicts) != len(expected):
            result.forged = "the re-check said it was done before every check had run"
        result.finished = True


def _take_verdict(result: Recheck, event: dict, expected: list[str]) -> None:
    """A check's verdict, kept when it is the next one expected (else the reply is a forgery)."""
    gid = event.get("grade_id")
    if gid not in expected or gid in result.verdicts or [g for g in expected if g not in result.verdicts][:1] != [gid]:
        result.forged = f"the re-check's reply for {gid!r} came twice or out of order"
        return
    where = event.get("cell")
    result.verdicts[gid] = {"passed": event.get("passed") is True, "message": str(event.get("message", ""))[:500],
                            "changed": [str(c)[:300] for c in event.get("changed", [])],
                            "reference": event.get("reference") is True,
                            "copied": event.get("copied") is True,
                            "cell": where if type(where) is int else None}


def reconcile(rows: list[dict], recheck: Recheck) -> list[dict]:
    """Rows whose "passed" the re-check does not confirm become "review: ..." with 0 points."""
    out = []
    for row in rows:
        why = _review_reason(row["cell"], recheck) if row["status"] == "passed" else None
        # One line: the reason may quote a check's message, which spans lines.
        out.append({**row, "score": 0.0, "status": "review: " + " ".join(why.split())} if why else row)
    return out


def _review_reason(cell: str, recheck: Recheck) -> str | None:
    if recheck.forged:
        return recheck.forged
    verdict = recheck.verdicts.get(cell)
    # What was reported in a cell after this check's cannot have changed its verdict.
    upto = verdict.get("cell") if verdict is not None else None
    tampering = [what for where, what in recheck.tampering if upto is None or where <= upto]
    if tampering:
        return "the notebook reached into the grader's checks: " + "; ".join(dict.fromkeys(tampering))[:400]
    if verdict is None:
        return ("passed in the notebook, but the grader's re-check did not reach this cell: "
                + (recheck.why_stopped or "no verdict"))
    if verdict["changed"]:
        return "the notebook changed the grading code: " + "; ".join(dict.fromkeys(verdict["changed"]))[:400]
    if verdict.get("reference"):
        return "the TODO calls the reference implementation"
    if verdict.get("copied"):
        return "the TODO copies the reference implementation"
    if not verdict["passed"]:
        return "passed in the notebook but failed the grader's re-check: " + verdict["message"]
    reasons = recheck.suspicious.get(cell)
    if reasons:
        return "passed, but a TODO cell " + "; ".join(reasons) + ": check it by hand"
    return None

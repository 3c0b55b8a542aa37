"""Grade a folder of learner notebooks with nbgrader: `workshop grade SUBMISSIONS_DIR`.

Instructors collect notebooks in any layout (one folder per learner is easiest:
`submissions/<learner>/part3_retrieval_strategies.ipynb`). Each notebook is matched to
its Part by file name, autograded in a scratch course built from solutions/, on the
embedded engine, with a per-cell timeout. A notebook that crashes or loops is reported
in the table, never fatal for the others.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from .release import REPO

COLUMNS = ["student", "assignment", "notebook", "cell", "score", "max_score", "status"]


def _run_nbgrader(course: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True)


def _student_id(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    raw = rel.parts[0] if len(rel.parts) > 1 else path.stem
    return re.sub(r"[^A-Za-z0-9_-]+", "_", raw).strip("_") or "learner"


def _scratch_course(source_root: Path) -> Path:
    course = Path(tempfile.mkdtemp(prefix="grading-"))
    shutil.copy(source_root / "nbgrader_config.py", course)
    shutil.copytree(source_root / "solutions", course / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return course


def grade_folder(submissions: Path, out: Path, *, timeout: int = 120, source_root: Path = REPO) -> pd.DataFrame:
    submissions, out = Path(submissions).resolve(), Path(out).resolve()
    if not submissions.is_dir():
        raise ValueError(f"{submissions} is not a folder of notebooks")
    course = _scratch_course(source_root)
    # Map notebook file names to the Part they belong to.
    parts = {nb.name: nb.parent.name for nb in (course / "solutions").glob("*/*.ipynb")}
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # Graded on the embedded engine, in a scratch database, so grading is repeatable anywhere.
    env.update({"WORKSHOP_ENGINE": "embedded", "WORKSHOP_DATA_DIR": str(course / "data")})

    rows: list[dict] = []
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(submissions.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        student = _student_id(path, submissions)
        assignment = parts.get(path.name)
        if assignment is None:
            rows.append(dict(student=student, assignment="?", notebook=path.name, cell="", score=0.0, max_score=0.0,
                             status=f"skipped: not a workshop notebook name ({', '.join(sorted(parts))})"))
            continue
        dest = course / "submitted" / student / assignment / path.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
        found.setdefault(assignment, []).append((student, path.name))

    logs: dict[str, str] = {}
    for assignment in sorted(found):
        gen = _run_nbgrader(course, env, "generate_assignment", assignment, "--force")
        if gen.returncode != 0:
            raise RuntimeError(f"nbgrader could not prepare {assignment}:\n{gen.stderr[-2000:]}")
        proc = _run_nbgrader(course, env, "autograde", assignment, "--create", "--force",
                             f"--ExecutePreprocessor.timeout={timeout}")
        logs[assignment] = proc.stdout + proc.stderr
        _run_nbgrader(course, env, "generate_feedback", assignment, "--force")

    rows.extend(_read_grades(course, found, logs))
    table = pd.DataFrame(rows, columns=COLUMNS)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "grades.csv", index=False)
    if (course / "feedback").exists():
        shutil.copytree(course / "feedback", out / "feedback", dirs_exist_ok=True)
    if not os.environ.get("WORKSHOP_KEEP_GRADING_COURSE"):
        shutil.rmtree(course, ignore_errors=True)
    return table


def _read_grades(course: Path, found: dict, logs: dict) -> list[dict]:
    from nbgrader.api import Gradebook, MissingEntry

    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment, entries in sorted(found.items()):
            for student, name in entries:
                notebook_id = Path(name).stem
                graded = (course / "autograded" / student / assignment / name).exists()
                try:
                    nb = gb.find_submission_notebook(notebook_id, assignment, student)
                except MissingEntry:
                    nb = None
                if not graded or nb is None:
                    rows.append(dict(student=student, assignment=assignment, notebook=name, cell="(all)",
                                     score=0.0, max_score=0.0, status=_failure_reason(logs.get(assignment, ""), student)))
                    continue
                errors, timed_out = _cell_errors(course / "autograded" / student / assignment / name)
                for grade in sorted(nb.grades, key=lambda g: g.name):
                    if grade.max_score == 0:
                        continue
                    status = "passed" if grade.score == grade.max_score else "failed"
                    if status == "failed" and grade.name in errors:
                        status = f"failed: {errors[grade.name]}"
                    if status != "passed" and timed_out:
                        status += f" (cell {timed_out} hit the timeout: infinite loop?)"
                    if grade.score is None:
                        status = "needs manual grading"
                    rows.append(dict(student=student, assignment=assignment, notebook=name, cell=grade.name,
                                     score=float(grade.score or 0.0), max_score=float(grade.max_score), status=status))
    return rows


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _cell_errors(path: Path) -> tuple[dict[str, str], str]:
    """First error line per graded cell, and the id of a cell that timed out (if any)."""
    import nbformat

    errors, timed_out = {}, ""
    for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", f"cell {i}")
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            if out.get("ename") == "CellTimeoutError":
                timed_out = timed_out or cell_id
            first = _ANSI.sub("", out.get("evalue", "")).strip().splitlines()
            errors.setdefault(cell_id, f"{out.get('ename')}: {first[0][:160] if first else ''}")
    return errors, timed_out


def _failure_reason(log: str, student: str) -> str:
    """The line of nbgrader's log that explains why a submission was not graded."""
    lines = [ln for ln in log.splitlines() if student in ln or "Timeout" in ln or "timed out" in ln.lower()]
    for ln in lines:
        if "timed out" in ln.lower() or "Timeout" in ln:
            return "error: a cell ran longer than the timeout (infinite loop?)"
    return "error: not autograded; see nbgrader's log: " + (lines[-1].strip()[-200:] if lines else "no details")


def per_todo(table: pd.DataFrame) -> pd.DataFrame:
    """For each graded cell: how many learners, how many passed, mean points."""
    graded = table[table["max_score"] > 0]
    return graded.groupby(["assignment", "cell"]).agg(
        learners=("student", "nunique"),
        passed=("status", lambda s: int((s == "passed").sum())),
        mean_points=("score", "mean"),
        max_points=("max_score", "max"),
    ).round(2)


def per_learner(table: pd.DataFrame) -> pd.DataFrame:
    """Points per learner and Part."""
    return table.pivot_table(index="student", columns="assignment", values="score", aggfunc="sum", fill_value=0.0)

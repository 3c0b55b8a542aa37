"""Where the room is stuck: per TODO, pass rate, attempts, failure classes and hints opened.

Checks record every run (passed, or the failure class of their message) and the hint cell
records the levels a learner opened, as outputs of the learner's notebook
(workshop_lib/hints/record.py). This module reads those records from the notebooks as handed
in (never executing them) and summarises them per TODO:

- pass rate: learners whose check passed / learners who handed in the Part (from the grades
  when the notebooks were graded, else from the recorded runs);
- median attempts before passing: check runs up to and including the first pass;
- the three most common failure classes across the class (counted in learners);
- hints opened: learners who opened any level, and how many opened each level.

`workshop grade --summary-only FOLDER` prints it for notebooks saved mid-session, in
seconds; `workshop grade` adds it after grading. Both write summary.csv and summary.png.
An optional penalty for opened hints is set by the instructor in nbgrader_config.py
(`c.Workshop.hint_penalty`, see tools/course.py); by default there is none.
"""
from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pandas as pd

from workshop_lib.hints.record import CHECK_MIME, HINT_MIME
from workshop_lib.tools import course
from workshop_lib.tools.grading.submissions import Submission, discover
from workshop_lib.tools.hint_cells import todo_cells

COLUMNS = ["learners", "ran_check", "passed", "pass_rate", "median_attempts", "top_failures", "hints_opened",
           "hint_levels"]


@dataclass
class TodoRecord:
    """What one learner's notebook says about one TODO."""
    student: str
    part: str
    todo: str
    runs: list[dict] = field(default_factory=list)
    opened: set[int] = field(default_factory=set)

    @property
    def passed(self) -> bool:
        return any(r.get("ok") for r in self.runs)

    @property
    def attempts_to_pass(self) -> int | None:
        return next((i for i, r in enumerate(self.runs, start=1) if r.get("ok")), None)

    @property
    def failures(self) -> set[str]:
        return {str(r.get("class") or "other") for r in self.runs if not r.get("ok")}


def course_todos(root: Path = course.REPO) -> dict[str, list[str]]:
    """part -> the grade_ids of its TODO cells, from the solution notebooks."""
    out = {}
    for part in course.assignments(root):
        for path in sorted((Path(root) / "solutions" / part).glob("*.ipynb")):
            out[part] = [gid for _, gid in todo_cells(nbformat.read(path, as_version=4))]
    return out


def notebook_stems(root: Path = course.REPO) -> dict[str, str]:
    return {p.stem: part for part in course.assignments(root) for p in (Path(root) / "solutions" / part).glob("*.ipynb")}


def read_records(sub: Submission, todos: list[str]) -> dict[str, TodoRecord]:
    """The records of each TODO in one handed-in notebook (outputs are read, nothing runs)."""
    records = {todo: TodoRecord(sub.student, sub.part, todo) for todo in todos}
    try:
        nb = json.loads(sub.content.decode("utf-8", errors="replace"))
        cells = nb.get("cells", []) if isinstance(nb, dict) else []
    except ValueError:
        return records
    for cell in cells:
        for out in cell.get("outputs", []) if isinstance(cell, dict) else []:
            data = out.get("data", {}) if isinstance(out, dict) else {}
            for mime in (CHECK_MIME, HINT_MIME):
                payload = data.get(mime)
                if not isinstance(payload, dict) or payload.get("part") != sub.part:
                    continue
                rec = records.get(str(payload.get("todo")))
                if rec is None:
                    continue
                if mime == CHECK_MIME and isinstance(payload.get("runs"), list) and len(payload["runs"]) > len(rec.runs):
                    rec.runs = [r for r in payload["runs"] if isinstance(r, dict)]  # runs are cumulative: keep the longest
                if mime == HINT_MIME:
                    rec.opened |= {int(level) for level in payload.get("opened", []) if level in (1, 2, 3)}
    return records


def collect(submissions: Path, root: Path = course.REPO) -> tuple[list[TodoRecord], list[Submission]]:
    todos = course_todos(root)
    subs, _ = discover(Path(submissions), notebook_stems(root))
    records = [rec for sub in subs for rec in read_records(sub, todos.get(sub.part, [])).values()]
    return records, subs


def summarize(records: list[TodoRecord], grades: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (part, todo)."""
    rows = []
    keys = sorted({(r.part, r.todo) for r in records})
    for part, todo in keys:
        mine = [r for r in records if (r.part, r.todo) == (part, todo)]
        learners = len({r.student for r in mine})
        passed = sum(r.passed for r in mine)
        if grades is not None and len(grades):
            cell = grades[(grades["assignment"] == part) & (grades["cell"] == f"check_{todo}")
                          & (grades["status"] != "missing")]
            if len(cell):
                learners, passed = cell["student"].nunique(), int((cell["status"] == "passed").sum())
        attempts = [r.attempts_to_pass for r in mine if r.attempts_to_pass]
        classes = Counter(c for r in mine for c in r.failures)
        levels = Counter(level for r in mine for level in r.opened)
        rows.append({
            "part": part, "todo": todo, "learners": learners, "ran_check": sum(bool(r.runs) for r in mine),
            "passed": passed, "pass_rate": round(passed / learners, 2) if learners else 0.0,
            "median_attempts": statistics.median(attempts) if attempts else None,
            "top_failures": "; ".join(f"{c} ({n})" for c, n in classes.most_common(3)),
            "hints_opened": sum(bool(r.opened) for r in mine),
            "hint_levels": ", ".join(f"L{level}: {levels[level]}" for level in (1, 2, 3)),
        })
    return pd.DataFrame(rows, columns=["part", "todo", *COLUMNS]).set_index(["part", "todo"])


def failure_counts(records: list[TodoRecord]) -> Counter:
    """(part, todo, class) -> learners who met it."""
    return Counter((r.part, r.todo, c) for r in records for c in r.failures)


def chart(summary: pd.DataFrame, records: list[TodoRecord], path: Path) -> Path:
    """Left: pass rate and share of learners who opened a hint, per TODO. Right: the most common failures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{p} {t.split('_', 1)[0]}" for p, t in summary.index]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, max(3.0, 0.5 * len(labels) + 1.5)))
    y = list(range(len(labels)))
    hinted = [h / n if n else 0 for h, n in zip(summary["hints_opened"], summary["learners"])]
    left.barh([i + 0.2 for i in y], list(summary["pass_rate"]), height=0.4, label="passed")
    left.barh([i - 0.2 for i in y], hinted, height=0.4, label="opened a hint")
    for i, m in zip(y, summary["median_attempts"]):
        if m is not None and m == m:
            left.text(1.01, i, f"median {m:g} tries", va="center", fontsize=8)
    left.set_yticks(y, labels)
    left.set_xlim(0, 1.25)
    left.invert_yaxis()
    left.set_xlabel("share of learners")
    left.legend(loc="lower right", fontsize=8)
    left.set_title("Per TODO")
    top = failure_counts(records).most_common(8)
    right.barh([f"{p} {t.split('_', 1)[0]}: {c}" for (p, t, c), _ in top], [n for _, n in top], color="tab:red")
    right.invert_yaxis()
    right.set_xlabel("learners")
    right.set_title("Most common failures")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def apply_penalty(grades: pd.DataFrame, records: list[TodoRecord], penalty: dict[int, float]) -> pd.DataFrame:
    """Scores after the instructor's hint penalty: a TODO's points times (1 - the largest fraction of the levels
    opened). An empty penalty (the default) changes nothing."""
    if not penalty or not len(grades):
        return grades
    cut = {}
    for r in records:
        fraction = max((float(penalty.get(level, 0.0)) for level in r.opened), default=0.0)
        if fraction > 0:
            cut[(r.student, r.part, f"check_{r.todo}")] = min(1.0, fraction)
    out = grades.copy()
    out["hint_penalty"] = 0.0
    for i, row in out.iterrows():
        share = cut.get((row["student"], row["assignment"], row["cell"]))
        if share and pd.notna(row["score"]) and row["score"]:
            out.at[i, "hint_penalty"] = round(float(row["score"]) * share, 2)
            out.at[i, "score"] = round(float(row["score"]) * (1 - share), 2)
    return out


def write(summary: pd.DataFrame, records: list[TodoRecord], out: Path) -> tuple[Path, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "summary.csv")
    return out / "summary.csv", chart(summary, records, out / "summary.png")


def from_folder(submissions: Path, out: Path, grades: pd.DataFrame | None = None) -> pd.DataFrame:
    """The summary of a folder of notebooks (with the grades when they were graded); writes summary.csv/.png."""
    records, _ = collect(submissions)
    summary = summarize(records, grades)
    write(summary, records, out)
    return summary


def after_grading(grades: pd.DataFrame, submissions: Path, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(grades after any hint penalty, summary); rewrites grades.csv only when a penalty is configured."""
    records, _ = collect(submissions)
    penalty = course.hint_penalty()
    graded = apply_penalty(grades, records, penalty)
    if penalty:
        graded.to_csv(Path(out) / "grades.csv", index=False)
    summary = summarize(records, graded)
    write(summary, records, out)
    return graded, summary

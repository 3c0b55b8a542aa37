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
Every notebook is hostile input: one that cannot be read (not JSON, nested too deeply, records
of the wrong shape) costs only its own row, reported with the reason; text from a notebook is
shown only through as_text (one line, no control characters, at most MAX_LABEL_CHARS), CSV cells
that a spreadsheet would run as formulas are made text, and the chart never parses mathtext.
An optional penalty for opened hints is set by the instructor in nbgrader_config.py
(`c.Workshop.hint_penalty`, see tools/course.py); by default there is none.
"""
from __future__ import annotations

import json
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pandas as pd

from workshop_lib.errors import WorkshopError
from workshop_lib.hints.record import CHECK_MIME, HINT_MIME
from workshop_lib.tools import course
from workshop_lib.tools.grading.submissions import Problem, Submission, discover
from workshop_lib.tools.hint_cells import todo_cells

MAX_LABEL_CHARS = 60   # a failure class as shown (terminal, CSV, chart): the catalogue's ids are far shorter
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
        return any(r.get("ok") is True for r in self.runs)

    @property
    def attempts_to_pass(self) -> int | None:
        return next((i for i, r in enumerate(self.runs, start=1) if r.get("ok") is True), None)

    @property
    def failures(self) -> set[str]:
        """The failure classes met, as text that is safe to show (see as_text)."""
        return {as_text(r.get("class")) or "other" if isinstance(r.get("class"), str) else "other"
                for r in self.runs if r.get("ok") is not True}


def course_todos(root: Path = course.REPO) -> dict[str, list[str]]:
    """part -> the grade_ids of its TODO cells, from the solution notebooks."""
    out = {}
    for part in course.assignments(root):
        for path in sorted((Path(root) / "solutions" / part).glob("*.ipynb")):
            out[part] = [gid for _, gid in todo_cells(nbformat.read(path, as_version=4))]
    return out


def notebook_stems(root: Path = course.REPO) -> dict[str, str]:
    return {p.stem: part for part in course.assignments(root) for p in (Path(root) / "solutions" / part).glob("*.ipynb")}


class Unreadable(WorkshopError, ValueError):
    """A handed-in notebook the summary cannot read at all (its row says why)."""


def as_text(value: object, limit: int = MAX_LABEL_CHARS) -> str:
    """Text from a learner's notebook as it may be shown: one line, no control or format
    characters (terminal escapes, bidi overrides), at most `limit` characters."""
    text = value if isinstance(value, str) else type(value).__name__
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text[:limit * 4])
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _spreadsheet_safe(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: one starting with = + - @ (or a tab or CR) would be
    run as a formula, so it gets a leading apostrophe (OWASP, CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _items(value: object) -> list:
    return value if isinstance(value, list) else []


def read_records(sub: Submission, todos: list[str], notes: list[str] | None = None) -> dict[str, TodoRecord]:
    """The records of each TODO in one handed-in notebook (outputs are read, nothing runs).
    Unreadable for a notebook that is not JSON (or nested too deeply to parse); a record of the
    wrong shape is skipped, with a line in `notes`."""
    records = {todo: TodoRecord(sub.student, sub.part, todo) for todo in todos}
    notes = [] if notes is None else notes
    for mime, payload in _payloads(_notebook(sub), sub.part):
        todo = payload.get("todo")
        rec = records.get(todo) if isinstance(todo, str) else None
        if rec is not None:
            _add_record(rec, mime, payload, notes)
    return records


def _notebook(sub: Submission) -> dict:
    """The handed-in notebook's JSON object, or Unreadable saying why it is none."""
    try:
        nb = json.loads(sub.content.decode("utf-8", errors="replace"))
    except RecursionError:
        raise Unreadable("its JSON is nested too deeply to read") from None
    except ValueError as exc:
        raise Unreadable(f"not a notebook (invalid JSON: {as_text(str(exc), 120)})") from None
    if not isinstance(nb, dict):
        raise Unreadable(f"not a notebook (a JSON {type(nb).__name__}, not an object)")
    return nb


def _payloads(nb: dict, part: str) -> Iterator[tuple[str, dict]]:
    """(mime, payload) of every check and hint record of this Part in the outputs, in notebook order;
    outputs and payloads of another shape are passed over."""
    for cell in _items(nb.get("cells")):
        for out in _items(cell.get("outputs")) if isinstance(cell, dict) else []:
            data = out.get("data") if isinstance(out, dict) else None
            if not isinstance(data, dict):
                continue
            for mime in (CHECK_MIME, HINT_MIME):
                payload = data.get(mime)
                if isinstance(payload, dict) and payload.get("part") == part:
                    yield mime, payload


def _add_record(rec: TodoRecord, mime: str, payload: dict, notes: list[str]) -> None:
    """A check record's runs (the longest list wins: runs are cumulative) or a hint record's levels
    opened, into the TODO's record; a record whose list is not a list is skipped with a note."""
    if mime == CHECK_MIME:
        runs = payload.get("runs")
        if not isinstance(runs, list):
            notes.append(f"a check record of {rec.todo} whose runs are not a list was skipped")
        elif len(runs) > len(rec.runs):
            rec.runs = [r for r in runs if isinstance(r, dict)]  # runs are cumulative: keep the longest
        return
    opened = payload.get("opened")
    if not isinstance(opened, list):
        notes.append(f"a hint record of {rec.todo} whose 'opened' is not a list was skipped")
        return
    rec.opened |= {level for level in opened if type(level) is int and level in (1, 2, 3)}


def collect(submissions: Path, root: Path = course.REPO) -> tuple[list[TodoRecord], list[Problem]]:
    """Every TODO record of the class, and the notebooks that could not be (fully) read, with why:
    one bad notebook costs only its own row."""
    todos = course_todos(root)
    subs, _ = discover(Path(submissions), notebook_stems(root))
    records: list[TodoRecord] = []
    problems: list[Problem] = []
    for sub in subs:
        notes: list[str] = []
        try:
            records += read_records(sub, todos.get(sub.part, []), notes).values()
        except Unreadable as exc:
            problems.append(Problem(sub.student, sub.file, f"could not be read: {exc}"))
        except Exception as exc:  # noqa: BLE001 - whatever else a notebook holds costs only its own row
            problems.append(Problem(sub.student, sub.file, f"could not be read ({type(exc).__name__}: "
                                                           f"{as_text(str(exc), 120)})"))
        if notes:
            problems.append(Problem(sub.student, sub.file, f"partly read: {notes[0]}"
                                    + (f" (and {len(notes) - 1} more)" if len(notes) > 1 else "")))
    return records, problems


def report(problems: list[Problem]) -> str:
    """The notebooks the summary could not (fully) read, one line each, as plain text."""
    return "\n".join(f"  {as_text(p.student, 30):12s} {as_text(p.file, 80)}: {as_text(p.status, 200)}"
                     for p in problems)


def summarize(records: list[TodoRecord], grades: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (part, todo)."""
    rows = []
    keys = sorted({(r.part, r.todo) for r in records})
    for part, todo in keys:
        mine = [r for r in records if (r.part, r.todo) == (part, todo)]
        rows.append(_summary_row(part, todo, mine, grades))
    return pd.DataFrame(rows, columns=["part", "todo", *COLUMNS]).set_index(["part", "todo"])


def _summary_row(part: str, todo: str, mine: list[TodoRecord], grades: pd.DataFrame | None) -> dict:
    """The summary's row of one TODO, from its learners' records (and nbgrader's grades, if any)."""
    learners, passed = _learners_and_passed(part, todo, mine, grades)
    attempts = [r.attempts_to_pass for r in mine if r.attempts_to_pass]
    classes = Counter(c for r in mine for c in r.failures)
    levels = Counter(level for r in mine for level in r.opened)
    return {
        "part": part, "todo": todo, "learners": learners, "ran_check": sum(bool(r.runs) for r in mine),
        "passed": passed, "pass_rate": round(passed / learners, 2) if learners else 0.0,
        "median_attempts": statistics.median(attempts) if attempts else None,
        "top_failures": "; ".join(f"{c} ({n})" for c, n in classes.most_common(3)),
        "hints_opened": sum(bool(r.opened) for r in mine),
        "hint_levels": ", ".join(f"L{level}: {levels[level]}" for level in (1, 2, 3)),
    }


def _learners_and_passed(part: str, todo: str, mine: list[TodoRecord], grades: pd.DataFrame | None) -> tuple[int, int]:
    """How many learners a TODO has and how many passed it: from nbgrader's grades of its check cell
    when there are some, else from the check records."""
    learners = len({r.student for r in mine})
    passed = sum(r.passed for r in mine)
    if grades is not None and len(grades):
        cell = grades[(grades["assignment"] == part) & (grades["cell"] == f"check_{todo}")
                      & (grades["status"] != "missing")]
        if len(cell):
            learners, passed = cell["student"].nunique(), int((cell["status"] == "passed").sum())
    return learners, passed


def failure_counts(records: list[TodoRecord]) -> Counter:
    """(part, todo, class) -> learners who met it."""
    return Counter((r.part, r.todo, c) for r in records for c in r.failures)


def chart(summary: pd.DataFrame, records: list[TodoRecord], path: Path) -> Path:
    """Left: pass rate and share of learners who opened a hint, per TODO. Right: the most common failures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Labels hold learners' text: "$...$" must stay text, never reach the mathtext parser or TeX.
    with plt.rc_context({"text.parse_math": False, "text.usetex": False}):
        return _draw(plt, summary, records, path)


def _draw(plt, summary: pd.DataFrame, records: list[TodoRecord], path: Path) -> Path:
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


def write(summary: pd.DataFrame, records: list[TodoRecord], out: Path,
          problems: list[Problem] | None = None) -> tuple[Path, Path | None]:
    """summary.csv (cells a spreadsheet would run as formulas made text) and summary.png; a chart
    that cannot be drawn is a line in `problems`, never a lost summary.csv."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary.map(_spreadsheet_safe).to_csv(out / "summary.csv")
    try:
        return out / "summary.csv", chart(summary, records, out / "summary.png")
    except Exception as exc:  # noqa: BLE001 - the table is written; the picture says why it is missing
        if problems is not None:
            problems.append(Problem("", "summary.png", f"not drawn ({type(exc).__name__}: {as_text(str(exc), 160)})"))
        return out / "summary.csv", None


def from_folder(submissions: Path, out: Path, grades: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[Problem]]:
    """The summary of a folder of notebooks (with the grades when they were graded), and the notebooks
    it could not read; writes summary.csv/.png."""
    records, problems = collect(submissions)
    summary = summarize(records, grades)
    write(summary, records, out, problems)
    return summary, problems


def after_grading(grades: pd.DataFrame, submissions: Path, out: Path,
                  problems: list[Problem] | None = None) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(grades after any hint penalty, summary); rewrites grades.csv only when a penalty is configured.
    The penalty is applied and written first; whatever then stops the summary is a line in `problems`
    and the summary is None, never an exception that would lose the grades' review list."""
    problems = [] if problems is None else problems
    records, unread = collect(submissions)
    problems += unread
    penalty = course.hint_penalty()
    graded = apply_penalty(grades, records, penalty)
    if penalty:
        graded.to_csv(Path(out) / "grades.csv", index=False)
    try:
        summary = summarize(records, graded)
        write(summary, records, out, problems)
    except Exception as exc:  # noqa: BLE001 - the grades stand; the instructor is told what is missing
        problems.append(Problem("", "summary.csv", f"the class summary could not be written ({type(exc).__name__}: "
                                                   f"{as_text(str(exc), 200)})"))
        return graded, None
    return graded, summary

"""Grade a folder of learner notebooks: `workshop grade SUBMISSIONS_DIR`.

One folder per learner (`submissions/<learner>/part3_retrieval_strategies.ipynb`; renamed
downloads such as `part3_retrieval_strategies (1).ipynb` are matched to their Part). Each
notebook is autograded by nbgrader (its Python API) in its own scratch course with its own
copy of the workshop code and a fresh, prepared embedded database, by one of several
worker processes in parallel, in a scrubbed environment (no API keys, its own HOME and
TMPDIR), with a time limit per cell and a budget per notebook. Every process a notebook
started is killed when it ends.

Scores are computed here, in the grader, from the autograded notebook (or, for a notebook
killed half way, from the per-cell log) and the points of the instructor's solutions; a
grade above a cell's maximum cannot arise. A notebook whose grading failed for a reason
that is not its own (its scratch folder vanished, the workshop code changed under it) is
graded again, alone, at the end.

On Linux every notebook runs in its own bubblewrap sandbox (sandbox.py): it sees its
scratch folder, the code snapshot and the Python installation, and nothing else. Where
the sandbox cannot run, grade_folder refuses unless `sandboxed=False` says the
submissions are trusted. Every notebook that earned points is then re-checked
(verify.py): its cells run again in a fresh sandbox, and the instructor's checks give the
verdict, run by a judge process that never runs learner code (judge.py; what Part 6's
checks hand the learner's loop is served from there, served.py). A
cell that passed in the notebook but not there, or a notebook that changed the checks
or the library under them, is flagged for review (status "review: ...", 0 points).
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import pandas as pd

from workshop_lib.errors import WorkshopError
from workshop_lib.progress import progress as tqdm
from workshop_lib.tools import course
from workshop_lib.tools.grading import processes, sandbox, scoring, scratch, verify
from workshop_lib.tools.grading.submissions import Submission, discover

COLUMNS = scoring.COLUMNS

DEFAULT_CELL_TIMEOUT = 60       # seconds one cell may run
DEFAULT_NOTEBOOK_BUDGET = 240   # seconds one notebook may take in all


class SandboxUnavailable(WorkshopError, RuntimeError):
    """The OS sandbox cannot run here and the submissions were not declared trusted."""

    fix = ("grade on Linux with bubblewrap (README, Grading), or, only for submissions you trust, "
           "pass --no-sandbox-i-trust-submissions")


def grade_folder(submissions: Path, out: Path, *, cell_timeout: int = DEFAULT_CELL_TIMEOUT,
                 notebook_budget: int = DEFAULT_NOTEBOOK_BUDGET, workers: int | None = None,
                 progress: bool = True, source_root: Path = course.REPO, sandboxed: bool = True) -> pd.DataFrame:
    """Grade every learner's notebooks; `sandboxed=False` only for submissions you trust."""
    submissions, out = Path(submissions).resolve(), Path(out).resolve()
    if not submissions.is_dir():
        raise ValueError(f"{submissions} is not a folder of notebooks")
    if sandboxed and (why := sandbox.problem()):
        raise SandboxUnavailable(why)
    processes.become_subreaper()  # orphans of dead workers come back here, to be killed at the end
    work = scratch.new_run_folder()  # also removes the scratch of runs whose grader died
    try:
        master = scratch.Master.build(source_root, work / "master")
        subs, problems = discover(submissions, master.parts)  # read into memory before any learner code runs
        out.mkdir(parents=True, exist_ok=True)
        log = out / "results.jsonl"
        done = _resume(log, subs)
        todo = [s for s in subs if (s.student, s.part, s.sha256) not in done]
        rows: list[dict] = [r for rows_ in done.values() for r in rows_]
        feedback: dict[str, bytes] = {}

        runner = _Runner(master, work, cell_timeout, notebook_budget, out, log, feedback, sandboxed)
        rows += runner.run_all(todo, workers or max(1, min(os.cpu_count() or 1, len(todo) or 1)), progress)
        rows += scoring.problem_rows(problems)
        rows += scoring.missing_rows(subs, problems, master.points)
        table = pd.DataFrame(rows, columns=COLUMNS)
        _write(out, table, {"feedback": feedback, "logs": runner.logs})
        return table
    finally:
        processes.kill_descendants(os.getpid())
        if not os.environ.get("WORKSHOP_KEEP_GRADING_COURSE"):
            shutil.rmtree(work, ignore_errors=True)


class _Runner:
    """Hands notebooks to worker processes and turns what comes back into rows."""

    def __init__(self, master, work: Path, cell_timeout: int, budget: int, out: Path, log: Path, feedback: dict,
                 sandboxed: bool):
        self.master, self.work, self.cell_timeout, self.budget = master, work, cell_timeout, budget
        self.sandboxed = sandboxed
        self.out, self.log, self.feedback = out, log, feedback
        self.logs: dict[str, bytes] = {}
        self.local = threading.local()
        self.workers: list[scratch.Worker] = []
        self.lock = threading.Lock()
        self.counter = 0

    def run_all(self, todo: list[Submission], n_workers: int, progress: bool) -> list[dict]:
        rows: list[dict] = []
        retry: list[Submission] = []
        learners = {s.student for s in todo}
        left = {s: sum(1 for t in todo if t.student == s) for s in learners}
        problems = failed = 0
        bar = tqdm(total=len(todo), desc="grading", unit="notebook", disable=not progress or not todo)
        try:
            with ThreadPoolExecutor(max_workers=n_workers) as pool:
                futures = {pool.submit(self.grade, sub): sub for sub in todo}
                for future in as_completed(futures):
                    sub = futures[future]
                    result = future.result()
                    if result.retry:
                        retry.append(sub)
                    else:
                        rows += self.keep(sub, result)
                        problems += result.problem
                        failed += any(r["max_score"] > 0 and r["status"] != "passed" for r in result.rows)
                    left[sub.student] -= 1
                    bar.update(1)
                    bar.set_postfix(learners=f"{sum(1 for v in left.values() if v == 0)}/{len(learners)}",
                                    not_full_marks=failed, killed_or_ungraded=problems, refresh=False)
            for sub in retry:  # alone now: nothing else runs beside it
                result = self.grade(sub, last_try=True)
                rows += self.keep(sub, result)
        finally:
            bar.close()
            for worker in self.workers:
                worker.stop()
        return rows

    def grade(self, sub: Submission, last_try: bool = False) -> scoring.Result:
        if not self.master.points.get(sub.part):
            return scoring.nothing_to_grade(sub)
        with self.lock:
            self.counter += 1
            n = self.counter
        job_dir = self.work / f"nb-{n:04d}"
        started = time.monotonic()
        try:
            job = self.master.make_job(job_dir, sub, n, self.cell_timeout, self.sandboxed)
        except OSError as exc:  # the work folder was damaged by another notebook
            return scoring.Result.failed(sub, f"could not prepare its scratch folder: {exc}", retry=not last_try)
        if self.sandboxed:  # one sandbox, and so one worker, per notebook
            worker = scratch.Worker(job["env"], job_dir, jail=(job_dir, self.master))
            try:
                reply = worker.run(job, self.budget)
            finally:
                worker.stop()
        else:
            kept: scratch.Worker | None = getattr(self.local, "worker", None)
            if kept is None or not kept.alive():
                kept = self.local.worker = scratch.Worker(self.master.worker_env(), self.master.where)
                with self.lock:
                    self.workers.append(kept)
            worker = kept
            reply = worker.run(job, self.budget)
        result = scoring.score(sub, job_dir, reply, self.master, budget=self.budget, cell_timeout=self.cell_timeout,
                               last_try=last_try, sandboxed=self.sandboxed)
        if any(r["status"] == "passed" for r in result.rows):
            # The notebook's own outputs are the learner's to forge: re-check what passed.
            verdicts = verify.run(sub, self.master, self.work / f"verify-{n:04d}", budget=self.budget,
                                  cell_timeout=self.cell_timeout, sandboxed=self.sandboxed)
            result.rows = verify.reconcile(result.rows, verdicts)
        result.seconds = round(time.monotonic() - started, 2)
        if result.problem and reply and reply.get("log"):
            # nbgrader's own log, for the instructor: where a "not graded" row came from.
            self.logs[f"{sub.student}/{sub.part}.log"] = reply["log"].encode()
        if result.feedback is not None:
            self.feedback[f"{sub.student}/{sub.part}/{Path(sub.notebook).stem}.html"] = result.feedback
        shutil.rmtree(job_dir, ignore_errors=True)
        return result

    def keep(self, sub: Submission, result: scoring.Result) -> list[dict]:
        # Results are written as each notebook finishes: a crash of the grader loses nothing graded.
        with self.lock, open(self.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"student": sub.student, "part": sub.part, "sha256": sub.sha256,
                                 "seconds": result.seconds, "rows": result.rows}) + "\n")
        return result.rows


def _resume(log: Path, subs: list[Submission]) -> dict[tuple[str, str, str], list[dict]]:
    """Rows already graded by an earlier run for the very same notebook (same bytes)."""
    if not log.exists():
        return {}
    wanted = {(s.student, s.part, s.sha256) for s in subs}
    done = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
            key = (entry["student"], entry["part"], entry["sha256"])
        except (ValueError, KeyError, TypeError):
            continue
        if key in wanted:
            done[key] = entry["rows"]
    return done


def _write(out: Path, table: pd.DataFrame, folders: dict[str, dict[str, bytes]]) -> None:
    """grades.csv, and each folder's files (feedback HTML, nbgrader logs) from memory."""
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "grades.csv", index=False)
    for folder, files in folders.items():
        for rel, data in files.items():
            path = out / folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def per_todo(table: pd.DataFrame) -> pd.DataFrame:
    """For each graded cell: how many learners handed it in, how many passed, mean points."""
    graded = table[(table["max_score"] > 0) & (table["status"] != "missing")]
    return graded.groupby(["assignment", "cell"]).agg(
        learners=("student", "nunique"),
        passed=("status", lambda s: int((s == "passed").sum())),
        mean_points=("score", "mean"),
        max_points=("max_score", "max"),
    ).round(2)


def per_learner(table: pd.DataFrame) -> pd.DataFrame:
    """Points per learner and Part; a Part not handed in shows 'missing'."""
    graded = table[(table["assignment"] != "") & (table["max_score"] > 0)]
    if graded.empty:
        return pd.DataFrame()
    points = graded.pivot_table(index="student", columns="assignment", values="score", aggfunc="sum")
    missing = graded[graded["status"] == "missing"][["student", "assignment"]].drop_duplicates()
    shown = points.astype(object)
    for student, part in missing.itertuples(index=False):
        shown.loc[student, part] = "missing"
    return shown

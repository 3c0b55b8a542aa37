"""How fast `workshop grade` grades a class, and what loops cost.

    python -m bench.grading [--learners 40] [--workers 1,2] [--loops 2] [--sandbox both] [--out DIR]

Builds a synthetic class in a temporary folder: every learner hands in Parts 1-8; most
notebooks are the solutions, some are partial (one TODO done), a few crash (a TODO
raises), `--loops` loop forever in a TODO, and one is hostile (it deletes the folders
above it). The class is graded once per worker count in `--workers`, in the same run,
so the figures compare side by side. With `--sandbox both` (the default) each worker
count is graded with the bubblewrap sandbox and without it (the trusted mode), one after
the other in the same run, and `sandbox_cost` is the ratio of their wall times. With `--part6 both`
the class is graded twice per worker count, Part 6 re-checked by the judge (`split`, as
`workshop grade` does) and in the learner's process (`in-process`, the path before issue 35),
alternating, so the two figures come from the same class on the same machine. Reported:
notebooks, wall time, notebooks/s, the speed-up over the first worker count, the seconds
spent in looping notebooks, and the review flags (0 on this class: it forges nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import nbformat
import pandas as pd

from workshop_lib.tools import course
from workshop_lib.tools.grading import grade_folder, judge

PARTS = [p for p in course.assignments() if p != "part9"]
CRASH = "raise RuntimeError('my code is broken')\n"
LOOP = "while True:\n    pass\n"
HOSTILE = ("import shutil, pathlib\nfor up in list(pathlib.Path.cwd().parents)[3:5]:\n"
           "    shutil.rmtree(up, ignore_errors=True)\n")


def _notebook(part: str, kind: str) -> nbformat.NotebookNode:
    name = next((course.REPO / "solutions" / part).glob("*.ipynb")).name
    solution = nbformat.read(course.REPO / "solutions" / part / name, as_version=4)
    learner = nbformat.read(course.REPO / "notebooks" / part / name, as_version=4)
    answers = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in solution.cells}
    todos = [gid for gid in answers if gid and gid.startswith("todo")]
    for cell in learner.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid not in todos:
            continue
        first = gid == todos[0]
        if kind == "correct" or (kind == "partial" and first):
            cell.source = "\n".join(ln for ln in answers[gid].splitlines() if "### BEGIN" not in ln and "### END" not in ln)
        elif kind in ("crash", "loop", "hostile") and first:
            cell.source = {"crash": CRASH, "loop": LOOP, "hostile": HOSTILE}[kind] + answers[gid]
    return learner


def make_class(root: Path, learners: int, loops: int) -> dict[tuple[str, str], str]:
    """Write the class; returns (learner, part) -> kind."""
    kinds = {}
    for i in range(learners):
        learner = f"learner{i:03d}"
        for j, part in enumerate(PARTS):
            kind = "correct"
            if i % 10 == 3:
                kind = "partial"
            elif i % 10 == 7 and j == 2:
                kind = "crash"
            kinds[(learner, part)] = kind
    looping = [k for k in kinds if k[1] == "part4"][:loops]
    for key in looping:
        kinds[key] = "loop"
    kinds[(f"learner{learners - 1:03d}", "part3")] = "hostile"
    for (learner, part), kind in kinds.items():
        folder = root / learner
        folder.mkdir(parents=True, exist_ok=True)
        name = next((course.REPO / "solutions" / part).glob("*.ipynb")).name
        nbformat.write(_notebook(part, kind), folder / name)
    return kinds


def _seconds(target: Path, kinds: dict) -> dict[str, float]:
    """Seconds spent in the notebooks with an endless loop, and in Part 6's."""
    seconds = {}
    for line in (target / "results.jsonl").read_text().splitlines():
        entry = json.loads(line)
        seconds[(entry["student"], entry["part"])] = entry.get("seconds", 0.0)
    return {"seconds_in_loops": round(sum(s for k, s in seconds.items() if kinds.get(k) == "loop"), 1),
            "part6_s": round(sum(s for k, s in seconds.items() if k[1] == "part6"), 1)}


def _cells(table: pd.DataFrame) -> dict[str, int]:
    return {"graded_cells": int((table.max_score > 0).sum()), "passed_cells": int((table.status == "passed").sum()),
            "review_cells": int(table.status.str.startswith("review").sum())}


def run(learners: int, workers: list[int], loops: int, cell_timeout: int, budget: int, out: Path,
        sandbox_modes: list[bool] | None = None, part6_paths: list[str] | None = None) -> pd.DataFrame:
    rows = []
    sandbox_modes = sandbox_modes or [True, False]
    part6_paths = part6_paths or ["split"]
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        subs = Path(tmp) / "submissions"
        kinds = make_class(subs, learners, loops)
        for n, sandboxed, path in [(n, s, p) for n in workers for s in sandbox_modes for p in part6_paths]:
            target = Path(tmp) / f"out-{n}-{'sandbox' if sandboxed else 'trusted'}-{path}"
            started = time.perf_counter()
            with judge.in_process(judge.PART6 if path == "in-process" else ()):
                table = grade_folder(subs, target, cell_timeout=cell_timeout, notebook_budget=budget, workers=n,
                                     sandboxed=sandboxed)
            wall = time.perf_counter() - started
            rows.append({"workers": n, "sandbox": sandboxed, "part6": path, "notebooks": len(kinds),
                         "wall_s": round(wall, 1), "notebooks_per_s": round(len(kinds) / wall, 2),
                         "loop_notebooks": loops, **_seconds(target, kinds), **_cells(table)})
    result = pd.DataFrame(rows)
    result["speedup"] = (result.wall_s.iloc[0] / result.wall_s).round(2)
    trusted = result[~result.sandbox].drop_duplicates("workers").set_index("workers").wall_s
    result["sandbox_cost"] = [round(w / trusted[n], 2) if s and n in trusted else None
                              for n, s, w in zip(result.workers, result.sandbox, result.wall_s)]
    out.mkdir(parents=True, exist_ok=True)
    (out / "grading.md").write_text(result.to_markdown(index=False) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--workers", default=str(os.cpu_count() or 1), help="comma-separated worker counts")
    parser.add_argument("--loops", type=int, default=2)
    parser.add_argument("--cell-timeout", type=int, default=60)
    parser.add_argument("--budget", type=int, default=240)
    parser.add_argument("--sandbox", choices=["both", "on", "off"], default="both",
                        help="grade with the bubblewrap sandbox, without it, or both (the ratio is sandbox_cost)")
    parser.add_argument("--part6", choices=["split", "in-process", "both"], default="split",
                        help="re-check Part 6 in the judge (as `workshop grade` does), in the learner's process "
                             "(the path before issue 35), or both, one after the other")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    modes = {"both": [True, False], "on": [True], "off": [False]}[args.sandbox]
    paths = {"both": ["split", "in-process"], "split": ["split"], "in-process": ["in-process"]}[args.part6]
    table = run(args.learners, [int(w) for w in args.workers.split(",")], args.loops, args.cell_timeout,
                args.budget, args.out, modes, paths)
    print(table.to_markdown(index=False))
    for row in table[table.sandbox_cost.notna()].itertuples():
        print(f"sandbox cost with {row.workers} worker(s): {row.sandbox_cost:.2f}x the wall time without it")


if __name__ == "__main__":
    main()

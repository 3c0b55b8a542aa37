"""The notebooks as learners and instructors meet them: in sync with nbgrader, without
outputs, learner notebooks stop at their first TODO, and grading gives full, zero and
partial marks (the solutions run in tests/test_learner_path.py, twice in one kernel)."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from conftest import cell_errors, graded_cells, run_notebook
from nbclient.exceptions import CellExecutionError

from workshop_lib.tools import release

REPO = release.REPO
SOLUTIONS = sorted((REPO / "solutions").glob("*/*.ipynb"))
LEARNER = sorted((REPO / "notebooks").glob("*/*.ipynb"))


def _execute(path: Path, engine: str, data_dir: Path, monkeypatch) -> nbformat.NotebookNode:
    return run_notebook(nbformat.read(path, as_version=4), path.parent, data_dir, monkeypatch, engine=engine)


def _code(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_every_part_has_a_solution_and_a_learner_notebook():
    assert SOLUTIONS, "no solution notebooks found"
    assert [p.relative_to(REPO / "solutions") for p in SOLUTIONS] == \
        [p.relative_to(REPO / "notebooks") for p in LEARNER]


def test_notebooks_are_what_nbgrader_generates():
    generated = release.generate_into_copy()
    for path in LEARNER:
        rel = path.relative_to(REPO / "notebooks")
        fresh = json.loads((generated / rel).read_text())
        committed = json.loads(path.read_text())
        assert committed == fresh, (f"notebooks/{rel} is out of sync with solutions/; "
                                    "run `make notebooks` and commit the result")


@pytest.mark.parametrize("path", SOLUTIONS + LEARNER, ids=lambda p: str(p.relative_to(REPO)))
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path} has outputs: clear them"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.parent.name)
def test_learner_notebook_stops_at_first_todo(path, tmp_path, monkeypatch, solution_runs):
    graded = graded_cells(nbformat.read(path, as_version=4))
    if not graded:  # a Part without TODOs runs through
        # Its learner notebook is its solution notebook, cell for cell: the solution's shared run
        # (conftest.SolutionRuns) is read instead of executing the same code again.
        solution = REPO / "solutions" / path.relative_to(REPO / "notebooks")
        assert _code(path) == _code(solution), f"{path.name}: no TODOs, yet its code differs from the solution's"
        nb, once = solution_runs.get(solution)
        assert not cell_errors(nb.cells[:once]), f"{path.name}: {cell_errors(nb.cells[:once])[0][1][-800:]}"
        return
    with pytest.raises(CellExecutionError) as info:
        _execute(path, "embedded", tmp_path, monkeypatch)
    message = str(info.value)
    assert graded[0].source.splitlines()[0] in message, "it should stop at the first check cell"
    assert "CHECK FAILED" in message and "not implemented yet" in message
    assert "Traceback" not in message.split("CHECK FAILED", 1)[1], "the check should print one message, not a traceback"

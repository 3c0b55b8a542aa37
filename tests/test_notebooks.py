"""The notebooks as learners and instructors meet them: in sync with nbgrader, without
outputs, solutions run top to bottom, learner notebooks stop at their first TODO, and
grading gives full, zero and partial marks."""
from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from workshop_lib.tools import release

REPO = release.REPO
SOLUTIONS = sorted((REPO / "solutions").glob("*/*.ipynb"))
LEARNER = sorted((REPO / "notebooks").glob("*/*.ipynb"))
ENGINES = ["embedded", pytest.param("oracle", marks=pytest.mark.oracle)]


def _graded_cells(nb) -> list:
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


def _execute(path: Path, engine: str, data_dir: Path, monkeypatch) -> nbformat.NotebookNode:
    if engine == "oracle" and not os.environ.get("ORACLE_DSN"):
        from conftest import ORACLE_SKIP_REASON

        pytest.skip(ORACLE_SKIP_REASON)
    monkeypatch.setenv("WORKSHOP_ENGINE", engine)
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(data_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


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
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.parent.name)
def test_solution_runs_top_to_bottom(path, engine, tmp_path, monkeypatch):
    nb = _execute(path, engine, tmp_path, monkeypatch)
    passed = "\n".join(o.get("text", "") for c in _graded_cells(nb) for o in c.outputs)
    assert passed.count("passed") == len(_graded_cells(nb)), "every check should print that it passed"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.parent.name)
def test_learner_notebook_stops_at_first_todo(path, tmp_path, monkeypatch):
    graded = _graded_cells(nbformat.read(path, as_version=4))
    if not graded:
        _execute(path, "embedded", tmp_path, monkeypatch)  # a Part without TODOs runs through
        return
    with pytest.raises(CellExecutionError) as info:
        _execute(path, "embedded", tmp_path, monkeypatch)
    message = str(info.value)
    assert graded[0].source.splitlines()[0] in message, "it should stop at the first check cell"
    assert "CHECK FAILED" in message and "not implemented yet" in message
    assert "Traceback" not in message.split("CHECK FAILED", 1)[1], "the check should print one message, not a traceback"

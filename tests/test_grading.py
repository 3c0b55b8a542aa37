"""nbgrader round trip on a scratch course: solutions score full marks, untouched learner
notebooks score zero, and a notebook with only TODO 2 done gets exactly TODO 2's points."""
from __future__ import annotations

import shutil

import nbformat
import pytest

from workshop_lib import release
from workshop_lib.grading import grade_folder

REPO = release.REPO
PART3 = "part3_retrieval_strategies.ipynb"


def _points(path) -> dict[str, float]:
    nb = nbformat.read(path, as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}


def _with_only(todo_id: str):
    """The learner notebook with one TODO filled in from the solution."""
    solution = nbformat.read(REPO / "solutions" / "part3" / PART3, as_version=4)
    learner = nbformat.read(REPO / "notebooks" / "part3" / PART3, as_version=4)
    answer = next(c.source for c in solution.cells if c.metadata.get("nbgrader", {}).get("grade_id") == todo_id)
    for cell in learner.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == todo_id:
            cell.source = "\n".join(line for line in answer.splitlines() if "### BEGIN" not in line and "### END" not in line)
    return learner


@pytest.mark.notebooks
def test_round_trip(tmp_path):
    subs = tmp_path / "submissions"
    for part in sorted((REPO / "solutions").iterdir()):
        for nb in part.glob("*.ipynb"):
            (subs / "full").mkdir(parents=True, exist_ok=True)
            (subs / "zero").mkdir(parents=True, exist_ok=True)
            shutil.copy(nb, subs / "full" / nb.name)
            shutil.copy(REPO / "notebooks" / part.name / nb.name, subs / "zero" / nb.name)
    (subs / "partial").mkdir()
    nbformat.write(_with_only("todo2_retrieve_knowledge"), subs / "partial" / PART3)
    (subs / "stray").mkdir()
    (subs / "stray" / "my_scratch.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))

    table = grade_folder(subs, tmp_path / "out", timeout=300)

    every_cell = {}
    for part in (REPO / "solutions").iterdir():
        for nb in part.glob("*.ipynb"):
            every_cell.update(_points(nb))
    full = table[table.student == "full"]
    zero = table[table.student == "zero"]
    partial = table[table.student == "partial"]
    assert set(full.cell) == set(every_cell)
    assert full.score.sum() == sum(every_cell.values()) and (full.status == "passed").all()
    assert zero.score.sum() == 0 and len(zero) == len(every_cell)
    assert zero.status.str.contains("not implemented yet").all()
    p3 = _points(REPO / "solutions" / "part3" / PART3)
    assert partial.score.sum() == p3["check_todo2_retrieve_knowledge"]
    assert partial.set_index("cell").score["check_todo2_retrieve_knowledge"] == p3["check_todo2_retrieve_knowledge"]
    assert table[table.student == "stray"].status.str.startswith("skipped").all()
    assert (tmp_path / "out" / "grades.csv").exists()
    assert list((tmp_path / "out" / "feedback" / "full").rglob("*.html"))

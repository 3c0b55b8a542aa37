"""Put a hint cell right under every TODO (solution) cell of the solution notebooks.

`workshop hints insert [PARTS...]` adds, under each nbgrader solution cell whose grade_id
is `todoN_name`, a locked, ungraded cell that shows that TODO's hint buttons. A hint cell
already present (found by its grade_id `hints_todoN_name`) is put back in place with the
canonical source and metadata, so running the command again changes nothing. Learner
notebooks come from the solutions as always (`workshop notebooks`).
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from workshop_lib.tools.course import REPO, assignments

TODO_ID = re.compile(r"^todo(\d+)_\w+$")


def todo_number(grade_id: str) -> int:
    """N of a TODO cell's grade id `todoN_name`."""
    match = TODO_ID.match(grade_id)
    if match is None:
        raise ValueError(f"{grade_id!r} is not a TODO grade id (todoN_name)")
    return int(match.group(1))


def hint_source(part: str, number: int) -> str:
    return (f"# Stuck? Hints for TODO {number}, in three levels (no penalty unless your instructor says so).\n"
            "from workshop_lib import hints\n\n"
            f"hints.buttons({part!r}, {number})")


def hint_metadata(grade_id: str) -> dict:
    # Locked and read-only: nbgrader restores its source when grading; it is never graded.
    return {"editable": False, "deletable": False,
            "nbgrader": {"grade": False, "grade_id": f"hints_{grade_id}", "locked": True, "schema_version": 3,
                         "solution": False, "task": False}}


def todo_cells(nb) -> list[tuple[int, str]]:
    """(index, grade_id) of every TODO (solution) cell, in notebook order."""
    found = []
    for i, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution") and TODO_ID.match(meta.get("grade_id", "")):
            found.append((i, meta["grade_id"]))
    return found


def _hint_id(cell) -> str | None:
    gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
    return gid[len("hints_"):] if gid.startswith("hints_") else None


def with_hint_cells(nb, part: str):
    """The notebook with exactly one canonical hint cell right under each TODO cell."""
    todos = {gid for _, gid in todo_cells(nb)}
    kept = [c for c in nb.cells if _hint_id(c) not in todos]  # hint cells of existing TODOs are re-placed below
    cells = []
    for cell in kept:
        cells.append(cell)
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution") and gid in todos:
            number = todo_number(gid)
            hint = nbformat.v4.new_code_cell(hint_source(part, number), metadata=hint_metadata(gid))
            hint.id = f"hints-{gid.replace('_', '-')}"[:64]
            cells.append(hint)
    nb.cells = cells
    return nb


def insert(parts: list[str] | None = None, root: Path = REPO) -> list[Path]:
    """Insert (or repair) the hint cells of these Parts' solution notebooks; returns the files changed."""
    changed = []
    for part in parts or assignments(root):
        for path in sorted((Path(root) / "solutions" / part).glob("*.ipynb")):
            before = path.read_text(encoding="utf-8")
            nb = with_hint_cells(nbformat.reads(before, as_version=4), part)
            after = nbformat.writes(nb) + "\n"
            if after != before:
                path.write_text(after, encoding="utf-8")
                changed.append(path)
    return changed


def missing(part: str, root: Path = REPO) -> list[str]:
    """grade_ids of the TODOs of a Part whose hint cell is not right under them."""
    out = []
    for path in sorted((Path(root) / "solutions" / part).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for i, gid in todo_cells(nb):
            below = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            if below is None or _hint_id(below) != gid or below.source != hint_source(part, todo_number(gid)):
                out.append(gid)
    return out

"""Regenerate the learner notebooks (notebooks/) from the instructor sources (solutions/).

    python -m workshop_lib.tools.release            # every Part
    python -m workshop_lib.tools.release part3      # one Part

nbgrader replaces each solution region with a stub; outputs are cleared, so what lands in
notebooks/ is exactly what learners should start from. No gradebook is written here.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from workshop_lib.tools import course
from workshop_lib.tools.course import REPO, assignments

__all__ = ["REPO", "assignments", "generate", "generate_into_copy"]


def generate(names: list[str] | None = None, root: Path = REPO) -> list[Path]:
    written = []
    with tempfile.TemporaryDirectory(prefix="release-db-") as tmp:
        # nbgrader records the cells in a gradebook even here; keep it out of the repository.
        nbgrader = course.api(root, CourseDirectory={"db_url": f"sqlite:///{Path(tmp) / 'gradebook.db'}"})
        for name in names or assignments(root):
            course.check(nbgrader.generate_assignment(name, force=True, create=True), f"generate_assignment {name}")
            written.extend(sorted((root / "notebooks" / name).glob("*.ipynb")))
    return written


def generate_into_copy() -> Path:
    """Generate every Part in a scratch copy of the course; returns its notebooks/ folder."""
    scratch = Path(tempfile.mkdtemp(prefix="release-"))
    shutil.copy(REPO / "nbgrader_config.py", scratch)
    shutil.copytree(REPO / "solutions", scratch / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    generate(root=scratch)
    return scratch / "notebooks"


if __name__ == "__main__":
    for path in generate(sys.argv[1:] or None):
        print(f"wrote {path.relative_to(REPO)}")

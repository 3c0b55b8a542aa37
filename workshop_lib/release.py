"""Regenerate the learner notebooks (notebooks/) from the instructor sources (solutions/).

    python -m workshop_lib.release            # every Part
    python -m workshop_lib.release part3      # one Part

nbgrader replaces each solution region with a stub and drops hidden tests; outputs are
cleared, so what lands in notebooks/ is exactly what learners should start from.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def assignments(root: Path = REPO) -> list[str]:
    return sorted(p.name for p in (root / "solutions").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def _nbgrader(root: Path, *args: str) -> None:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")


def generate(names: list[str] | None = None, root: Path = REPO) -> list[Path]:
    written = []
    for name in names or assignments(root):
        _nbgrader(root, "generate_assignment", name, "--force", "--no-db")
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

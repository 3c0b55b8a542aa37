"""The nbgrader course, through nbgrader's Python API: one place for `make notebooks`
(generate the learner notebooks) and `workshop grade` (autograde and feedback).

The course settings live in nbgrader_config.py at the repository root (nbgrader's own
tools read it there too); `api(root)` loads them and points the course at `root`.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from workshop_lib.config import REPO_ROOT
from workshop_lib.errors import WorkshopError

REPO = REPO_ROOT
CONFIG_FILE = REPO / "nbgrader_config.py"


class CourseError(WorkshopError, RuntimeError):
    """An nbgrader step failed; the message holds nbgrader's own log."""


def config(root: Path, config_file: Path = CONFIG_FILE, **sections: dict[str, Any]):
    """The course's nbgrader settings (from config_file) with the course folder at `root`,
    plus overrides such as `Execute={"timeout": 60}`."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config_file = Path(config_file)
    cfg = PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()
    merged = Config(cfg)
    merged.CourseDirectory.root = str(Path(root).resolve())
    for section, values in sections.items():
        for key, value in values.items():
            setattr(merged[section], key, value)
    return merged


def api(root: Path, config_file: Path = CONFIG_FILE, **sections: dict[str, Any]):
    """An NbGraderAPI on the course folder `root` (no exchange: this course is not distributed)."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    # nbgrader runs the `alembic` command of its own environment to check the gradebook.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    cfg = config(root, config_file, **sections)
    return NbGraderAPI(coursedir=CourseDirectory(config=cfg), config=cfg)


def check(result: dict, step: str) -> dict:
    """Raise CourseError with nbgrader's log when a step did not succeed."""
    if not result.get("success"):
        raise CourseError(f"nbgrader {step} failed:\n{result.get('log', '')[-3000:]}\n{result.get('error', '')[-3000:]}")
    return result


def assignments(root: Path = REPO) -> list[str]:
    """The Parts: folders of solutions/ holding a notebook."""
    return sorted(p.name for p in (Path(root) / "solutions").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def points(notebook: Path) -> dict[str, float]:
    """grade_id -> points of every graded cell of a source notebook (the trusted maximum)."""
    nb = json.loads(Path(notebook).read_text())
    out = {}
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and meta.get("grade_id"):
            out[meta["grade_id"]] = float(meta.get("points") or 0)
    return out


def hint_penalty(config_file: Path = CONFIG_FILE) -> dict[int, float]:
    """The instructor's penalty for opened hints: {level: fraction of the TODO's points}, from
    `c.Workshop.hint_penalty` in nbgrader_config.py. None set (the default): no penalty."""
    from traitlets.config.loader import PyFileConfigLoader

    config_file = Path(config_file)
    cfg = PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()
    raw = cfg.Workshop.get("hint_penalty") or {}
    penalty = {int(level): float(fraction) for level, fraction in dict(raw).items()}
    bad = {level: f for level, f in penalty.items() if level not in (1, 2, 3) or not 0.0 <= f <= 1.0}
    if bad:
        raise ValueError(f"c.Workshop.hint_penalty in {config_file.name}: levels are 1, 2, 3 and fractions 0..1; "
                         f"got {bad}")
    return penalty

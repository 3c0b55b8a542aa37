"""The install a hundred attendees run on the same morning: every package pinned by the
committed lock, and the learner's install free of test, grading and benchmark packages."""
from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "constraints.txt"
# Packages that must never reach a learner's venv (they are for tests, grading and benchmarks).
NOT_FOR_LEARNERS = {"pytest", "pytest-xdist", "execnet", "hypothesis", "sqlglot", "ruff", "nbgrader", "ranx", "numba",
                    "llvmlite", "seaborn", "fastparquet", "ir-datasets", "rank-bm25", "bm25s", "radon", "mando",
                    "import-linter", "grimp"}
# Installed by hand or by pip itself, not by the project.
TOOLS = {"pip", "setuptools", "wheel", "uv", "workshop-lib"}


def _locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        found = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)\s*(?:;\s*(.+))?$", line)
        if found and (found.group(3) is None or Marker(found.group(3)).evaluate()):
            pins[canonicalize_name(found.group(1))] = found.group(2)
    return pins


def _closure(name: str, extras: set[str]) -> set[str]:
    """Every distribution `name[extras]` pulls in, as installed here."""
    seen: set[str] = set()
    todo = [(name, frozenset(extras))]
    while todo:
        dist_name, dist_extras = todo.pop()
        key = canonicalize_name(dist_name)
        dist = metadata.distribution(dist_name)
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in (dist_extras or {""})):
                continue
            child = canonicalize_name(req.name)
            if child == key:  # self-referencing extras
                todo.append((dist_name, frozenset(req.extras)))
                continue
            if child not in seen:
                seen.add(child)
                todo.append((req.name, frozenset(req.extras)))
    return seen


def test_every_installed_package_has_the_locked_version():
    pins = _locked()
    wrong = {}
    # Only the environment's site-packages: once setuptools is imported (nbgrader's tools do),
    # its private _vendor folder is on sys.path and its bundled copies would count as installed.
    site = [p for p in sys.path if p.endswith("site-packages")]
    for dist in metadata.distributions(path=site):
        name = canonicalize_name(dist.metadata["Name"])
        if name in TOOLS:
            continue
        if name not in pins:
            wrong[name] = f"{dist.version} (not in the lock: run `make lock`)"
        elif dist.version != pins[name]:
            wrong[name] = f"{dist.version} installed, {pins[name]} locked"
    assert not wrong, f"installed versions differ from {LOCK.name}: {wrong}"


def test_the_lock_covers_every_extra_of_the_project():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = _locked()
    declared = list(project["dependencies"]) + [d for deps in project["optional-dependencies"].values() for d in deps]
    missing = [d for d in declared if canonicalize_name(Requirement(d).name) not in set(pins) | {"workshop-lib"}]
    assert not missing, f"not in the lock (run `make lock`): {missing}"


def test_learner_install_carries_no_test_or_bench_packages():
    learner = _closure("workshop_lib", {"notebooks"})
    assert "jupyterlab" in learner and "wordllama" in learner
    leaked = sorted(learner & NOT_FOR_LEARNERS)
    assert not leaked, f"the learner's install (`.[notebooks]`) pulls in {leaked}"
    everything = _closure("workshop_lib", {"test"})
    assert {"pytest", "nbgrader", "ranx"} <= everything

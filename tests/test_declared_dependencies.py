"""Every package workshop_lib imports is installed by the install that runs it.

The assistant once imported a package only the test install brought in (transitively), so
`make workshop` on a fresh machine stopped with ModuleNotFoundError while `make test` passed.
Imports at module level must come with the learner's install (the core dependencies and the
`notebooks` extra, with what they require); imports inside functions may also come from the
`instructor` extra (grading runs nbgrader only when asked).
"""
from __future__ import annotations

import ast
import importlib.metadata as metadata
import sys
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workshop_lib"


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _closure(extras: set[str]) -> set[str]:
    """The distributions `pip install workshop_lib[extras]` installs (from the installed metadata)."""
    seen: set[str] = set()
    visited: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, set[str]]] = [("workshop_lib", extras)]
    while todo:
        name, wanted = todo.pop()
        if (_norm(name), frozenset(wanted)) in visited:
            continue
        visited.add((_norm(name), frozenset(wanted)))
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker and not any(req.marker.evaluate(env) for env in envs):
                continue
            dist = _norm(req.name)
            if dist == "workshop-lib":
                todo.append((name, wanted | set(req.extras)))
                continue
            seen.add(dist)
            todo.append((req.name, set(req.extras)))
    return seen


def _imports() -> dict[tuple[str, bool], list[str]]:
    """(top-level module, imported at module level) -> the files importing it."""
    found: dict[tuple[str, bool], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "workshop_lib":
                    continue
                key = (top, node.col_offset == 0)
                found.setdefault(key, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_import_comes_with_its_install() -> None:
    owners = metadata.packages_distributions()
    learner = _closure({"notebooks"})
    instructor = learner | _closure({"notebooks", "instructor"})
    missing = []
    for (module, at_top), files in _imports().items():
        dists = {_norm(d) for d in owners.get(module, [module])}
        allowed = learner if at_top else instructor
        if not dists & allowed:
            where = "module level" if at_top else "inside a function"
            missing.append(f"{module} ({where}, {files[0]}): not installed by "
                           f"{'the learner' if at_top else 'the learner or instructor'} install")
    assert not missing, "declare these in pyproject.toml's dependencies:\n" + "\n".join(missing)


def test_the_learner_install_is_not_the_test_install() -> None:
    """The check above means something only if the test extras bring packages the learner lacks."""
    assert "pytest" not in _closure({"notebooks"})
    assert "pytest" in _closure({"test"})

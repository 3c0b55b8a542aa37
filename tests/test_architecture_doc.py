"""docs/architecture.md kept true: every path and module it names exists, the layout lists every
top-level module, the Engine's shape lists each small object's public members, the Parts table
names every module of each lesson package, and the type-checking claim matches pyproject."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import tomllib
from pathlib import Path

from workshop_lib.errors import WorkshopError

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "workshop_lib"
PAGE = (ROOT / "docs" / "architecture.md").read_text()
# A relative path in the page is read from the repository, the package, or the package's parts/,
# tools/ or engines/ (the page says `core/store.py`, `agent/memory.py`, `grading/`, `oracle/`).
BASES = (ROOT, LIB, LIB / "parts", LIB / "tools", LIB / "engines")
# A path: words joined by '/', ending in '/' or a file extension the project uses. MIME types
# (text/plain) and version pairs (23ai/26ai) end in neither.
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+(?:[\w-]+\.(?:py|sql|md|yml|yaml|html|txt|toml|json|jsonl|cfg))?)(?![\w/])")
MODULE = re.compile(r"\bworkshop_lib(?:\.\w+)+")


def paths_named(text: str) -> set[str]:
    return {m.group(1) for m in PATH.finditer(text)} - {"/"}


def resolves(path: str) -> bool:
    """A path exists under one of BASES; 'partN' stands for any Part's number."""
    pattern = path.rstrip("/").replace("partN", "part[0-9]")
    return any(any(base.glob(pattern)) for base in BASES)


def cited_object(dotted: str) -> object:
    """Import the longest module prefix of a dotted name, then read the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_path_it_names_exists():
    named = paths_named(PAGE)
    assert len(named) > 40, sorted(named)  # the reader found the paths, not nothing
    missing = sorted(p for p in named if not resolves(p))
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_module_it_cites_resolves():
    cited = set(MODULE.findall(PAGE))
    assert "workshop_lib.errors.WorkshopError" in cited
    broken = []
    for dotted in sorted(cited):
        try:
            cited_object(dotted)
        except (ImportError, AttributeError) as exc:
            broken.append(f"{dotted}: {exc}")
    assert not broken, "docs/architecture.md cites what does not resolve:\n" + "\n".join(broken)


def _code_block(after_heading: str) -> str:
    section = PAGE.split(after_heading, 1)[1]
    return section.split("```", 2)[1]


def test_the_layout_lists_every_top_level_module_and_package():
    block = _code_block("## Layout")
    listed = set(re.findall(r"^  (\w+(?:\.py|/))", block, re.M))
    actual = {p.name + ("/" if p.is_dir() else "") for p in LIB.iterdir()
              if p.name != "__pycache__" and (p.is_dir() or p.suffix == ".py")}
    assert listed == actual, f"the layout lists {sorted(listed - actual)} that are gone and misses {sorted(actual - listed)}"


def _public(cls: type) -> set[str]:
    names = {n for n in dir(cls) if not n.startswith("_")}
    names |= {n for n in getattr(cls, "__annotations__", {}) if not n.startswith("_")}
    # attributes set in a method (`self.thresholds = ...`), the ABCs' way of declaring data
    names |= {n for n in re.findall(r"self\.(\w+)\s*(?::[^=\n]*)?=(?!=)", inspect.getsource(cls)) if not n.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls)}
    return names


def test_the_engine_shape_lists_every_public_member_of_its_four_objects():
    block = _code_block("### The Engine's shape")
    # "+-- statements   EngineStatements (engines/statement_sets.py): ..." then lines of ".member"
    objects = re.findall(r"\+-- (\w+)\s+(\w+) \((engines/\w+)\.py\)[^\n]*\n((?:\s+\|?\s+(?:\.\w+(?:\([^)]*\))?\s*)+\n)+)", block)
    assert [o[0] for o in objects] == ["statements", "model", "supplychain", "backend"], objects
    wrong = []
    for attr, cls_name, path, lines in objects:
        cls = getattr(importlib.import_module("workshop_lib." + path.replace("/", ".")), cls_name)
        listed = set(re.findall(r"\.(\w+)", lines))
        if listed != _public(cls):
            wrong.append(f"eng.{attr} ({cls_name}): listed but absent {sorted(listed - _public(cls))}, "
                         f"present but not listed {sorted(_public(cls) - listed)}")
    # The engines' own files: "  embedded/  engine.py  embedder.py (WordLlamaModel) ..."
    for engine, files in re.findall(r"^  (embedded|oracle)/\s+(.*)$", block, re.M):
        wrong += [f"engines/{engine}/{f}: no such file" for f in re.findall(r"(\w+\.py)", files)
                  if not (LIB / "engines" / engine / f).exists()]
    assert not wrong, "docs/architecture.md, The Engine's shape:\n" + "\n".join(wrong)


def test_the_parts_table_names_every_module_of_each_lesson_package():
    rows = dict(re.findall(r"`(agent|memory|ingest|chat)/` \(([^)]*)\)", PAGE))
    assert set(rows) == {"agent", "memory", "ingest", "chat"}, rows
    wrong = []
    for package, text in rows.items():
        listed = set(re.findall(r"`([\w.]+)`", text))
        files = {p.stem for p in (LIB / "parts" / package).glob("*.py") if p.stem != "__init__"}
        files |= {p.name for p in (LIB / "parts" / package).glob("*.html")}
        if listed != files:
            wrong.append(f"parts/{package}/: named but absent {sorted(listed - files)}, not named {sorted(files - listed)}")
    assert not wrong, "docs/architecture.md, the Parts table:\n" + "\n".join(wrong)


def test_the_type_checking_claim_matches_pyproject():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    strict = next(o["module"] for o in mypy["overrides"] if o.get("disallow_untyped_defs"))
    packages = sorted(m.removeprefix("workshop_lib.").removesuffix(".*") + "/" for m in strict)
    sentence = PAGE.split("## Tests, types and lint", 1)[1].split("complexity gate", 1)[0]
    assert f"strict flags on {' and '.join(f'`{p}`' for p in packages)}" in " ".join(sentence.split()), sentence


def test_the_readers_would_catch_a_wrong_page():
    page = "see `core/nothing.py`, `engines/` and text/plain, Oracle 23ai/26ai, `checks/partN.py`"
    assert paths_named(page) == {"core/nothing.py", "engines/", "checks/partN.py"}
    assert [p for p in sorted(paths_named(page)) if not resolves(p)] == ["core/nothing.py"]
    assert cited_object("workshop_lib.errors.WorkshopError") is WorkshopError
    for bad in ("workshop_lib.errors.NoSuchError", "workshop_lib.no_such_module"):
        try:
            cited_object(bad)
        except (ImportError, AttributeError):
            continue
        raise AssertionError(f"{bad} resolved")

"""Imports go down the layers (pyproject.toml's [tool.importlinter], checked by `lint-imports` in
`make test`), and none hides inside a function to dodge a cycle: a workshop import inside a function
is allowed only for a heavy dependency or a plugin lookup, with a comment saying so."""
from __future__ import annotations

import ast
import re
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "workshop_lib"
# Why an import may wait for its function: "# heavy: <the dependency>" or "# plugin lookup: <what>".
REASON = re.compile(r"#\s*(heavy|plugin lookup):\s*\S")
# The grading processes import the workshop in a set order (recheck.py's docstring: imported, then
# snapshotted, before any learner code runs; served.py is loaded by both); their function-level imports
# are not yet reviewed.
NOT_YET_REVIEWED = {LIB / "tools" / "grading" / name for name in ("judge.py", "recheck.py", "served.py")}


def function_level_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every workshop import inside a function without its reason."""
    lines = source.splitlines()
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            said = lines[node.lineno - 1] + (lines[node.lineno - 2] if node.lineno >= 2 else "")
            found += [(node.lineno, m) for m in modules if m.split(".")[0] == "workshop_lib" and not REASON.search(said)]
    return found


def test_no_workshop_import_waits_inside_a_function_without_its_reason():
    found = [f"{p.relative_to(LIB.parent)}:{line}: {module}" for p in sorted(LIB.rglob("*.py"))
             if p not in NOT_YET_REVIEWED for line, module in function_level_imports(p.read_text())]
    assert not found, ("import these at the top of the module; if that makes a cycle, move the piece that belongs "
                       "lower or pass it in (docs/architecture.md, Layers). Only a heavy dependency or a plugin "
                       "lookup waits, with `# heavy: ...` or `# plugin lookup: ...`:\n" + "\n".join(found))


def test_the_rule_catches_a_hidden_import_and_accepts_a_stated_reason():
    hidden = "def f():\n    from workshop_lib.core.store import MemoryStore\n    return MemoryStore\n"
    assert function_level_imports(hidden) == [(2, "workshop_lib.core.store")]
    method = "class C:\n    async def f(self):\n        import workshop_lib.checks as c\n        return c\n"
    assert function_level_imports(method) == [(3, "workshop_lib.checks")]
    stated = ("def f():\n    from workshop_lib.tools import hint_cells  # heavy: nbformat\n"
              "    # plugin lookup: the engine asked for\n    from workshop_lib.engines.oracle import engine\n")
    assert function_level_imports(stated) == []
    top = "from workshop_lib import config\nimport matplotlib\ndef f():\n    import matplotlib.pyplot as plt\n"
    assert function_level_imports(top) == []


def test_the_layers_are_the_ones_the_architecture_page_names():
    config = (LIB.parent / "pyproject.toml").read_text()
    layers = re.search(r'type = "layers".*?layers = \[(.*?)\]', config, re.S)
    assert layers is not None, "pyproject.toml has no layers contract"
    names = re.findall(r'"([^"]+)"', layers.group(1))
    page = (LIB.parent / "docs" / "architecture.md").read_text()
    section = page.split("### Layers", 1)[-1].split("\n## ", 1)[0].replace("\\|", "|")
    missing = [n for n in names if f"`{n}`" not in section]
    assert not missing, f"docs/architecture.md's Layers section does not show {missing}"


def _contract_layers(name_start: str) -> list[set[str]]:
    """The module names of each layer of the pyproject contract whose name starts with `name_start`."""
    config = (LIB.parent / "pyproject.toml").read_text()
    block = config.split(f'name = "{name_start}', 1)[1].split("[[tool.importlinter.contracts]]", 1)[0]
    body = re.search(r"layers = \[(.*?)\n\]", block, re.S)
    assert body is not None, f"no layers in the contract {name_start!r}"
    return [set(re.findall(r"workshop_lib[\w.]*", layer)) for layer in re.findall(r'"""(.*?)"""|"([^"\n]+)"', body.group(1), re.S)
            for layer in [layer[0] or layer[1]]]


def test_the_assistant_contract_places_every_part_and_every_module_of_the_assistant():
    # A module the contract does not name is not kept from importing the answering (a cycle through the
    # Parts); a new one must be placed.
    placed = set().union(*_contract_layers("The assistant:"))
    parts = {f"workshop_lib.parts.{p.stem if p.is_file() else p.name}" for p in (LIB / "parts").iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assistant = {f"workshop_lib.assistant.{p.stem}" for p in (LIB / "assistant").glob("*.py") if p.stem != "__init__"}
    missing = sorted((parts | assistant | {"workshop_lib.assistant.answering"}) - placed)
    assert not missing, f"place these in pyproject.toml's assistant contract: {missing}"

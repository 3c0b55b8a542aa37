"""How wide the database seam is, measured from the source (issue 37, item 1).

    python -m workshop_lib.tools.seam_report            # the figures
    python -m workshop_lib.tools.seam_report --list     # and every place counted

Read from the code without connecting (the Oracle engine cannot run here):
  members    public names reachable from `eng.`: the Engine's own, then those of the objects it
             exposes (statements, model, supplychain, backend; store and memory apart), per engine
  backrefs   references from the backend, SUPPLYCHAIN, model, connection, store and doctor code into
             the object they were built on (`self.engine.x`, `self.db.x`), and how many are private (`._x`)
  conn       uses of an engine's `.conn` outside workshop_lib/engines (library, tests, bench)
  run SQL    the distinct engine entry points code outside workshop_lib/engines sends SQL through
  statement  the distinct ways code outside workshop_lib/engines reaches a statement
  patching   places in checks/ and tests/ that replace an engine's methods or connection to watch SQL
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import re
import sys
from collections import Counter
from pathlib import Path

from workshop_lib.engines.registry import engine_class

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "workshop_lib"
ENGINES = ("embedded", "oracle")
EXPOSED = ("statements", "model", "supplychain", "backend")
APART = {"store": "workshop_lib.core.store:MemoryStore", "memory": "workshop_lib.core.memory_client:MemoryClient"}
# The code built on the engine: what it reaches back into.
BUILT_ON = ("engines/store_backend.py", "engines/supplychain_schema.py", "engines/model.py",
            "engines/embedded/backend.py", "engines/embedded/supplychain.py", "engines/embedded/embedder.py",
            "engines/oracle/backend.py", "engines/oracle/supplychain.py", "engines/oracle/model.py",
            "engines/oracle/connection.py", "core/store.py", "core/lifecycle.py", "tools/doctor.py")
HOLDERS = re.compile(r"^(self\.(_?engine|_?eng|_?db)|eng|engine|db)$")
ENGINE_LIKE = re.compile(r"(^|\.)(_?eng|engine|_?db|database|fresh|scoped)$")
# Names that went (execute, insert_returning_seq, sample, counts) stay listed: one brought back is counted.
ENTRY_POINTS = ("query", "execute", "executemany", "executescript", "cursor", "transaction", "conn",
                "read_only_query", "insert_returning_seq", "sample", "counts")
PATCHING = re.compile(r"setattr\((eng|target|self\.eng)\b|\beng\w*\.(query|execute|cursor|transaction|conn)\s*=[^=]"
                      r"|\b_orig\w*\s*=\s*eng|\bwraps\(|monkeypatch\.setattr\(eng\w*[,.]")


def _load(spec: str) -> type:
    module, _, name = spec.partition(":")
    cls: type = getattr(importlib.import_module(module), name)
    return cls


def _own_classes(cls: type) -> list[type]:
    return [c for c in cls.__mro__ if c.__module__.startswith("workshop_lib")]


def _self_assigned(cls: type) -> set[str]:
    """Names a class's methods assign on `self` (instance attributes)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(cls).strip() if cls.__module__ else "")):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) and el.value.id == "self":
                    names.add(el.attr)
    return names


def public_members(cls: type) -> set[str]:
    """Public names of a workshop class: methods, properties, class attributes, fields, instance attributes."""
    names: set[str] = set()
    for c in _own_classes(cls):
        names |= set(vars(c)) | set(getattr(c, "__annotations__", {})) | _self_assigned(c)
    return {n for n in names if not n.startswith("_")}


def _attribute_class(engine: type, attr: str) -> type | None:
    """The class of an engine's exposed object: a class attribute's type, or `self.attr = Class(...)`."""
    value = getattr(engine, attr, None)
    if value is not None and not isinstance(value, property) and not callable(value):
        return type(value)
    for c in _own_classes(engine):
        module = sys.modules[c.__module__]
        for node in ast.walk(ast.parse(inspect.getsource(c))):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and any(isinstance(t, ast.Attribute) and t.attr == attr and ast.unparse(t.value) == "self"
                            for t in node.targets)):
                found = getattr(module, ast.unparse(node.value.func).split(".")[0], None)
                for part in ast.unparse(node.value.func).split(".")[1:]:
                    found = getattr(found, part, None)
                if isinstance(found, type):
                    return found
    return None


def members() -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for name in ENGINES:
        engine = engine_class(name)
        row = {"engine": len(public_members(engine))}
        for attr in EXPOSED:
            cls = _attribute_class(engine, attr)
            row[attr] = len(public_members(cls)) if cls is not None else -1
        row["total"] = sum(row.values())
        for attr, apart in APART.items():
            row[attr] = len(public_members(_load(apart)))
        out[name] = row
    return out


def _python_files(*folders: Path) -> list[Path]:
    return sorted(p for f in folders if f.exists() for p in f.rglob("*.py"))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def backrefs() -> tuple[int, list[str]]:
    """(references into the object built on, the private ones as 'file:line text')."""
    total, private = 0, []
    for rel in BUILT_ON:
        path = LIB / rel
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and HOLDERS.match(ast.unparse(node.value)):
                holder = ast.unparse(node.value)
                if holder in ("eng", "engine", "db") and rel != "tools/doctor.py":
                    continue  # a parameter of that name outside the doctor is not a back-reference
                total += 1
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    private.append(f"{_rel(path)}:{node.lineno} {ast.unparse(node)}")
    return total, private


def conn_uses() -> list[str]:
    """`x.conn` (or `x._conn`) outside workshop_lib/engines, x not `self` (a test's own fake connection holder)."""
    found = []
    for path in _python_files(LIB, ROOT / "tests", ROOT / "bench"):
        if path.is_relative_to(LIB / "engines"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("conn", "_conn") and ast.unparse(node.value) != "self":
                found.append(f"{_rel(path)}:{node.lineno} {ast.unparse(node)}")
    return found


def _outside_engines() -> list[Path]:
    return [p for p in _python_files(LIB) if not p.is_relative_to(LIB / "engines") and p.name != "seam_report.py"]


def sql_entry_points() -> Counter[str]:
    """'eng.query', 'eng.supplychain.read_only_query' ...: calls on an engine-like object outside engines/."""
    seen: Counter[str] = Counter()
    for path in _outside_engines():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ENTRY_POINTS:
                base = ast.unparse(node.value)
                via = base.rsplit(".", 1)[-1] if base.endswith((".supplychain", ".backend")) else ""
                if ENGINE_LIKE.search(base) or via:
                    seen["eng." + (via + "." if via else "") + node.attr] += 1
    return seen


def statement_routes() -> Counter[str]:
    """How code outside engines/ reaches a statement: eng.statements, a store's .sql / .mem,
    supplychain.sql, or an engine's statement module imported."""
    seen: Counter[str] = Counter()
    for path in _outside_engines():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "statements" and not isinstance(node.ctx, ast.Store):
                seen["eng.statements"] += 1
            elif isinstance(node, ast.Attribute) and node.attr in ("sql", "mem") and re.search(
                    r"(store|supplychain)$", ast.unparse(node.value)):
                seen[f"{ast.unparse(node.value).rsplit('.', 1)[-1]}.{node.attr}"] += 1
            elif isinstance(node, ast.ImportFrom) and node.module and re.match(r"workshop_lib\.engines(\.\w+)*$", node.module):
                for alias in node.names:
                    if re.search(r"sql$", f"{node.module}.{alias.name}"):
                        seen[f"import {node.module}.{alias.name}"] += 1
    return seen


def patching() -> list[str]:
    found = []
    for path in _python_files(LIB / "checks", ROOT / "tests"):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if PATCHING.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{_rel(path)}:{i} {line.strip()[:110]}")
    return found


def _show(title: str, items: list[str], listing: bool) -> None:
    print(f"{title}: {len(items)}")
    if listing:
        for item in items:
            print("   ", item)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list every place counted")
    listing = parser.parse_args(argv).list
    for name, row in members().items():
        parts = " + ".join(f"{k} {v}" for k, v in row.items() if k not in ("total", *APART))
        print(f"members reachable from eng. ({name}): {row['total']} = {parts}"
              f"  (besides: store {row['store']}, memory {row['memory']})")
    total, private = backrefs()
    print(f"back-references into the engine/database: {total}")
    _show("  of them into private state", private, True)
    _show("uses of .conn outside workshop_lib/engines", conn_uses(), listing)
    entries = sql_entry_points()
    print(f"ways to run SQL outside workshop_lib/engines: {len(entries)}  ("
          + ", ".join(f"{k} {v}" for k, v in sorted(entries.items())) + ")")
    routes = statement_routes()
    print(f"ways to reach a statement outside workshop_lib/engines: {len(routes)}  ("
          + ", ".join(f"{k} {v}" for k, v in sorted(routes.items())) + ")")
    _show("engine methods or connection replaced to watch SQL (checks/, tests/)", patching(), True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Count the columns lesson code reads from query results by position (issue 37, item 2).

    python -m workshop_lib.tools.row_reads [--list] [folder ...]   (default: workshop_lib/parts workshop_lib/checks)

Read from the AST, one function at a time. A query result is what `<x>.query(...)`,
`<x>.fetchall()`, `<x>.fetchmany(...)` return (a list of rows) or `<x>.fetchone()`,
`one_row(...)` return (one row); a row is also the loop or comprehension variable over a
result (or over `<cur>.execute(...)`), or `rows[0]` of one; a parameter is a result (or a row)
when a call in the same module passes it one (`hybrid_rows(eng, eng.query(...))`).
Two kinds of positional read:

- indexed:  `row[2]`, `rows[0][0]`, `eng.query(...)[0][0]`
- unpacked: `for a, b, c in rows`, `a, b = row` (the column order matched by hand)

Reading a column by name (`row.subject`, `row["subject"]`) or through a row type's `_make`
is not counted.
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ["workshop_lib/parts", "workshop_lib/checks"]
_LIST_CALLS = {"query", "fetchall", "fetchmany"}
_ROW_CALLS = {"fetchone", "one_row"}


def _called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
        if isinstance(node.func, ast.Name):
            return node.func.id
    return None


@dataclass
class _Scope:
    results: set[str] = field(default_factory=set)  # names holding a list of rows
    rows: set[str] = field(default_factory=set)     # names holding one row

    def is_result(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.results
        return _called(node) in _LIST_CALLS | {"execute"}

    def is_row(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.rows
        if isinstance(node, ast.Subscript) and _int(node.slice):
            return self.is_result(node.value)
        return _called(node) in _ROW_CALLS


def _int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


@dataclass(frozen=True)
class Read:
    path: str
    line: int
    col: int
    kind: str  # "indexed" or "unpacked"
    text: str


def _functions(tree: ast.Module) -> Iterator[ast.AST]:
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one function, not those of the functions nested in it."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _bind(scope: _Scope, target: ast.expr, value: ast.expr, unpacked: list[ast.expr]) -> None:
    """What an assignment or loop makes of its names."""
    if isinstance(target, ast.Name):
        if scope.is_result(value) and not isinstance(value, ast.Name) or (
                isinstance(value, ast.Name) and value.id in scope.results):
            scope.results.add(target.id)
        elif scope.is_row(value):
            scope.rows.add(target.id)
    elif isinstance(target, ast.Tuple) and scope.is_row(value):
        unpacked.append(target)


def _learn(scope: _Scope, nodes: list[ast.AST]) -> list[ast.expr]:
    """Read a function's assignments and loops (twice, so order of definition does not matter)."""
    unpacked: list[ast.expr] = []
    for _ in range(2):
        unpacked = []
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                _bind(scope, node.targets[0], node.value, unpacked)
            elif isinstance(node, (ast.For, ast.comprehension)) and scope.is_result(node.iter):
                if isinstance(node.target, ast.Name):
                    scope.rows.add(node.target.id)
                elif isinstance(node.target, ast.Tuple):
                    unpacked.append(node.target)
    return unpacked


def _params(fn: ast.AST) -> list[str]:
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return []


def _passed(scope: _Scope, nodes: list[ast.AST], seeds: dict[str, _Scope], named: dict[str, list[str]]) -> bool:
    """Mark the parameters of this module's functions that a call here passes a result or a row."""
    changed = False
    for node in nodes:
        name = _called(node)
        if name not in named or not isinstance(node, ast.Call):
            continue
        for param, arg in zip(named[name], node.args):
            seed = seeds.setdefault(name, _Scope())
            kind = seed.results if scope.is_result(arg) else seed.rows if scope.is_row(arg) else None
            if kind is not None and param not in kind:
                kind.add(param)
                changed = True
    return changed


def _scopes(tree: ast.Module) -> list[tuple[ast.AST, list[ast.AST], _Scope]]:
    """Each function with its nodes and what its names hold, parameters passed results included."""
    fns = list(_functions(tree))
    named = {fn.name: _params(fn) for fn in fns if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))}
    seeds: dict[str, _Scope] = {}
    done: list[tuple[ast.AST, list[ast.AST], _Scope]] = []
    for _ in range(4):  # until no call marks a new parameter
        done, changed = [], False
        for fn in fns:
            seed = seeds.get(getattr(fn, "name", ""), _Scope())
            scope = _Scope(set(seed.results), set(seed.rows))
            nodes = list(_own_nodes(fn))
            _learn(scope, nodes)
            changed |= _passed(scope, nodes, seeds, named)
            done.append((fn, nodes, scope))
        if not changed:
            break
    return done


def reads_in(path: Path, source: str) -> list[Read]:
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[Read] = []
    rel = str(path.relative_to(ROOT)) if path.is_absolute() and path.is_relative_to(ROOT) else str(path)
    for _fn, nodes, scope in _scopes(tree):
        for target in _learn(scope, nodes):
            found.append(Read(rel, target.lineno, target.col_offset, "unpacked", lines[target.lineno - 1].strip()))
        for node in nodes:
            if isinstance(node, ast.Subscript) and _int(node.slice) and scope.is_row(node.value):
                found.append(Read(rel, node.lineno, node.col_offset, "indexed", lines[node.lineno - 1].strip()))
    return sorted(set(found), key=lambda r: (r.path, r.line, r.col, r.kind))


def count(folders: list[str]) -> list[Read]:
    out: list[Read] = []
    for folder in folders:
        base = Path(folder) if Path(folder).is_absolute() else ROOT / folder
        for path in sorted(base.rglob("*.py")) if base.is_dir() else [base]:
            out += reads_in(path, path.read_text(encoding="utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="show every read")
    parser.add_argument("folders", nargs="*", default=DEFAULT)
    args = parser.parse_args(argv)
    reads = count(args.folders)
    if args.list:
        for r in reads:
            print(f"{r.path}:{r.line}: {r.kind:8s} {r.text[:110]}")
    indexed = sum(1 for r in reads if r.kind == "indexed")
    print(f"positional row reads in {' '.join(args.folders)}: {len(reads)} "
          f"(indexed {indexed}, unpacked {len(reads) - indexed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Whether a TODO cell copies the reference implementation of its TODO.

The reference functions live in the workshop package the learner has installed, so their source is
one `inspect.getsource` away. The judge (judge.py) compares the function the TODO cells define with
the reference of the TODO after normalising both, and a copy scores 0 ("review: the TODO copies the
reference implementation"). Normalised means: docstrings, comments, annotations and decorators
dropped; the names of arguments and locals (of either function) replaced by their order of first
use in the body; a module's name in front of a global dropped (`loop.SYSTEM_PROMPT` and
`SYSTEM_PROMPT` are one name); the parameter list left out (a copy may drop the reference's
`eng`). What is left is the function's statements and expressions, and the workshop names it
uses. Two independently written functions rarely agree on all of that; short ones can (there are
few ways to write five lines), so a body under MIN_NODES is never called a copy.
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

MIN_NODES = 50  # AST nodes in a normalised body: below that, a match may be the only natural way to write it

# The reference of each TODO whose check the judge runs, as (module, path to the function inside it).
REFERENCES: dict[str, tuple[str, str]] = {
    "check_comment_facts": ("workshop_lib.parts.scanner", "comment_facts"),
    "check_retrieve_knowledge": ("workshop_lib.parts.retrieval", "retrieve_knowledge"),
    "check_hybrid_rrf": ("workshop_lib.parts.retrieval", "hybrid_rrf_search_memories"),
    "check_decide_mode": ("workshop_lib.parts.gates", "decide_mode"),
    "check_validate_selection": ("workshop_lib.parts.grounded", "validate_selection"),
    "check_render_answer": ("workshop_lib.parts.grounded", "render_grounded_answer"),
    "check_count_rows": ("workshop_lib.checks.part6", "reference_count_rows.count_rows"),
    "check_agent_turn": ("workshop_lib.parts.agent.loop", "agent_turn"),
    "check_decide": ("workshop_lib.parts.memory.consolidate", "decide"),
    "check_compact": ("workshop_lib.parts.memory.summary", "compact"),
    "check_window_spans": ("workshop_lib.parts.ingest.chunking", "window_spans"),
    "check_should_promote": ("workshop_lib.parts.ingest.promotion", "should_promote"),
}
# TODOs whose instructor solution is, normalised, the reference itself (Part 5's two): there a copy
# cannot be told from the expected answer, so they are not compared (tests/test_judge_split.py keeps
# this list exact).
SOLUTION_IS_REFERENCE = {"check_validate_selection", "check_render_answer"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def reference_node(check: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The reference function of a check's TODO, parsed from the workshop's own source file."""
    found = REFERENCES.get(check)
    spec = importlib.util.find_spec(found[0]) if found else None
    if found is None or spec is None or spec.origin is None:
        return None
    node: ast.AST = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for part in found[1].split("."):
        inner = getattr(node, "body", [])
        node = next((n for n in inner if isinstance(n, _FUNCTIONS) and n.name == part), None)  # type: ignore[assignment]
        if node is None:
            return None
    return node if isinstance(node, _FUNCTIONS) else None


def defined(sources: list[str], name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The last top-level function `name` the cells define (a cell that is not Python is skipped)."""
    last = None
    for source in sources:
        # IPython's magics and shell lines are not Python: blanked, the rest of the cell is read.
        lines = ["" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()]
        try:
            tree = ast.parse("\n".join(lines))
        except (SyntaxError, ValueError):
            continue
        last = next((n for n in reversed(tree.body) if isinstance(n, _FUNCTIONS) and n.name == name), last)
    return last


def copies(sources: list[str], check: str) -> bool:
    """Whether the TODO cells (`sources`, in order) define the function of `check`'s TODO as a copy
    of its reference."""
    reference = reference_node(check) if check not in SOLUTION_IS_REFERENCE else None
    if reference is None:
        return False
    mine = defined(sources, reference.name)
    if mine is None:
        return False
    names = _local_names(reference) | _local_names(mine)
    theirs, ours = normalised(reference, names), normalised(mine, names)
    return ours == theirs and sum(1 for _ in ast.walk(ast.parse(ours))) >= MIN_NODES


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, _FUNCTIONS) and node is not fn:
            names.add(node.name)
    return names


class _Normalise(ast.NodeTransformer):
    def __init__(self, names: set[str]) -> None:
        self.names, self.order = names, dict[str, str]()

    def _canonical(self, name: str) -> str:
        return self.order.setdefault(name, f"_{len(self.order)}") if name in self.names else name

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(id=self._canonical(node.id), ctx=ast.Load())

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg(arg=self._canonical(node.arg))

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id not in self.names:
            return ast.Name(id=node.attr, ctx=ast.Load())  # module.name: the import style is not the code
        return ast.Attribute(value=self.visit(node.value), attr=node.attr, ctx=ast.Load())

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return self.visit(ast.Assign(targets=[node.target], value=node.value))

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Module)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            node.decorator_list = []
        if isinstance(node, _FUNCTIONS):
            node.returns = None
            node.name = self._canonical(node.name)
        return super().generic_visit(node)


def normalised(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> str:
    """The body of `fn` as normalised text (the module docstring says what is dropped or renamed)."""
    import copy

    body = ast.Module(body=copy.deepcopy(fn.body), type_ignores=[])
    for node in ast.walk(body):
        if isinstance(node, ast.arg):
            node.annotation = None
    tree = _Normalise(names).visit(body)
    return ast.unparse(ast.fix_missing_locations(tree))

"""The re-check: a learner's TODO cells run again, and the instructor's checks judge them.

    python -m workshop_lib.tools.grading.recheck --reply-fd N [--calls-fd M]   (in a fresh sandbox)

With --calls-fd (Parts 2 to 8: the checks in judge.SPLIT) the checks do not run
here: at each graded cell this process tells the judge (judge.py, another process that never
runs learner code) that the cell is reached, then answers the judge's calls of the learner's
functions with plain data, and reports what the defences below saw. Its lines go to the
judge only; it holds no descriptor, secret or frame of the grader's. The integrity of those
verdicts rests on the process split; what follows is a second line there, and the only line
for a plan the judge cannot run (without --calls-fd: the checks run in this process). During a
Part 6 call the objects the check hands the function are stand-ins whose calls the judge
answers, and the engine's store and read-only boundary are the judge's (served.py).

The notebook's own run cannot be trusted for its verdict: its kernel can replace a check
in its module or in sys.modules, swap a function's __code__, patch CheckFailed or the
library a check compares with, or rewrite its own outputs. This process starts clean,
and before any learner code runs it:

1. imports the whole workshop package and keeps a snapshot of every module's functions,
   classes and modules, of `builtins` and of the sys.modules entries (`Snapshot`);
2. installs an audit hook (PEP 578; a hook cannot be removed once added). It blocks and
   reports, at once, the ways Python code reaches past its own objects: changing an
   attribute of a snapshotted function or class (`object.__setattr__`, which covers
   `__code__`), ctypes, the gc's object lists, `sys._current_frames`, trace and profile
   functions, /proc/*/mem, fd and environ; and reports frame and code access, exec and
   compile when a learner cell calls them directly.

It then runs the notebook's code cells in an IPython shell object (no kernel; the plan
comes from verify.plan); at each graded cell it restores the snapshot (undoing any change
to the workshop code, to builtins or to sys.modules, and reporting it), and calls the
check it captured at the start on the learner's objects. One JSON line per event goes
to the grader; every line carries the job's nonce, which the learner's code never sees
unless it reaches into this process in one of the reported ways (code that runs between
cells, a finalizer, a thread or a signal handler, can: hence the judge).
"""
from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import importlib
import json
import os
import pkgutil
import signal
import sys
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workshop_lib.checks import CheckFailed

LEARNER = "<learner-cell-"
COURSE = "<course-cell-"
_FRAME_ATTRS = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "f_locals", "f_globals", "__code__",
                "gi_code", "cr_code", "ag_code", "__closure__", "__globals__"}
_REPORTED = {"sys._getframe", "exec", "compile", "code.__new__", "function.__new__", "sys.addaudithook"}
_BLOCKED = {"sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents"}
# A check may trace the learner's code (Part 8 counts its lines); learner code may not trace anything.
_TRACING = {"sys.settrace", "sys.setprofile", "sys._setprofileallthreads", "sys._settraceallthreads"}
_MISSING = object()
# The reference of each check's TODO (module, function): unavailable to the learner's function while
# that check runs it; a TODO that calls it (or is it) is flagged "the TODO calls the reference".
REFERENCES = {
    "check_comment_facts": [("workshop_lib.parts.scanner", "comment_facts")],
    "check_retrieve_knowledge": [("workshop_lib.parts.retrieval", "retrieve_knowledge")],
    "check_hybrid_rrf": [("workshop_lib.parts.retrieval", "hybrid_rrf_search_memories")],
    "check_decide_mode": [("workshop_lib.parts.gates", "decide_mode")],
    "check_validate_selection": [("workshop_lib.parts.grounded", "validate_selection")],
    "check_render_answer": [("workshop_lib.parts.grounded", "render_grounded_answer")],
    "check_agent_turn": [("workshop_lib.parts.agent.loop", "agent_turn")],
    "check_decide": [("workshop_lib.parts.memory.consolidate", "decide")],
    "check_compact": [("workshop_lib.parts.memory.summary", "compact")],
    "check_window_spans": [("workshop_lib.parts.ingest.chunking", "window_spans")],
    "check_should_promote": [("workshop_lib.parts.ingest.promotion", "should_promote")],
}
NO_REFERENCE = "the reference is not available while grading"
_GATE = "_workshop_reference_gate"


class ReferenceGate:
    """Makes each reference function raise while the learner's function runs under the check of
    its TODO (`current`), and remembers that it was called; at any other time it runs as before.

    The function object itself is changed (its code calls the gate), so every name bound to it,
    in any module or in the learner's cells, reaches the gate."""

    def __init__(self) -> None:
        self.current: set[str] = set()    # "module:function" of the check now running
        self.running = [0]                 # >0 while the learner's function runs under a check
        self.called = [False]
        self.originals: dict[str, Callable] = {}

    def install(self) -> None:
        import workshop_lib.checks as checks_pkg

        for module_name, name in {r for refs in REFERENCES.values() for r in refs}:
            module = importlib.import_module(module_name)
            fn = getattr(module, name)
            key = f"{module_name}:{name}"
            copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            copy.__kwdefaults__ = fn.__kwdefaults__
            self.originals[key] = copy
            scope: dict[str, Any] = {}
            exec(compile(f"def {name}(*args, **kwargs):\n    return {_GATE}({key!r}, args, kwargs)\n",
                         "<reference-gate>", "exec"), scope)
            fn.__globals__[_GATE] = self._gate()  # a function: the snapshot restores it if replaced
            fn.__code__ = scope[name].__code__
        checks_pkg._learner_running = self._learner_running()

    def _gate(self) -> Callable[[str, tuple, dict], Any]:
        current, running, called, originals = self.current, self.running, self.called, self.originals

        def gate(key: str, args: tuple, kwargs: dict) -> Any:
            if running[0] and key in current:
                called[0] = True
                raise RuntimeError(f"{NO_REFERENCE}: {key.replace(':', '.')}")
            return originals[key](*args, **kwargs)

        return gate

    def _learner_running(self) -> Callable[[], Any]:
        running = self.running

        class _Running:
            def __enter__(self) -> None:
                running[0] += 1

            def __exit__(self, *exc: object) -> None:
                running[0] -= 1

        def learner_running() -> _Running:
            return _Running()

        return learner_running

    def checking(self, check_name: str) -> None:
        """The check about to run ("" after it): its TODO's references become unavailable to the learner."""
        self.current.clear()
        self.current.update(f"{m}:{n}" for m, n in REFERENCES.get(check_name, []))
        self.running[0] = 0
        self.called[0] = False


# Libraries the checks and the reference code compare with: learner code that replaces one of
# their functions or methods (json.dumps, math.isclose, pandas.DataFrame.equals) is reported
# and undone like a change to the workshop. Modules that replace their own functions as they
# run (sys, warnings, matplotlib, IPython) are not on this list: honest code changes them.
_COMPARED_WITH = ("json", "math", "cmath", "statistics", "random", "re", "copy", "difflib", "dataclasses",
                  "textwrap", "uuid", "operator", "functools", "itertools", "collections", "numpy", "pandas")


def _snapshotted(name: str) -> bool:
    top = name.partition(".")[0]
    return top == "workshop_lib" or top in _COMPARED_WITH


def _is_tracked(value) -> bool:
    return isinstance(value, (types.FunctionType, type, types.ModuleType, types.BuiltinFunctionType))


class Snapshot:
    """What the workshop code, the libraries the checks compare with, this re-check's own module,
    builtins and sys.modules held before any learner code ran."""

    OWN = "<re-check>"  # this module runs as __main__, which the IPython shell re-points

    def __init__(self, own: types.ModuleType | None = None) -> None:
        self.modules = {name: m for name, m in list(sys.modules.items())
                        if _snapshotted(name) and isinstance(m, types.ModuleType)}
        if own is not None:
            self.modules[self.OWN] = own
        self.dicts = {name: {k: v for k, v in vars(m).items() if _is_tracked(v)} for name, m in self.modules.items()}
        self.keys = {name: set(vars(m)) for name, m in self.modules.items()}
        self.builtins = dict(vars(builtins))
        # function -> (its code, defaults, keyword defaults); class -> its attributes
        self.functions: dict[types.FunctionType, tuple[types.CodeType, tuple | None, dict | None]] = {}
        self.classes: dict[type, dict[str, Any]] = {}
        self._record_functions_and_classes()
        self.ids = self._guarded_ids()

    def _record_functions_and_classes(self) -> None:
        """The code and defaults of every function and the attributes of every class a snapshotted
        module defines (not those it imports), and the code of those classes' methods."""
        for name, values in self.dicts.items():
            defined_here = self.modules[name].__name__
            for value in values.values():
                if isinstance(value, types.FunctionType) and value.__module__ == defined_here:
                    self.functions[value] = (value.__code__, value.__defaults__, value.__kwdefaults__)
                elif isinstance(value, type) and value.__module__ == defined_here:
                    self.classes[value] = dict(vars(value))
        for attrs in self.classes.values():
            for attr in attrs.values():
                if isinstance(attr, types.FunctionType):
                    self.functions[attr] = (attr.__code__, attr.__defaults__, attr.__kwdefaults__)

    def _guarded_ids(self) -> set[int]:
        """The ids of the workshop's and this module's modules, functions and classes.

        The audit hook blocks attribute changes on the workshop's and this module's objects; the
        libraries' objects are compared and restored at each graded cell instead (their code
        may set attributes on itself while it runs)."""
        guarded = {m.__name__ for name, m in self.modules.items() if name == self.OWN or name.startswith("workshop_lib")}
        ids = {id(m) for m in self.modules.values() if m.__name__ in guarded}
        return ids | {id(x) for x in [*self.functions, *self.classes] if x.__module__ in guarded}

    def changes(self) -> list[str]:
        """What differs now, one line each (a module's mutable state is not compared, only its code)."""
        out = []
        for name, module in self.modules.items():
            out += self._module_changes(name, module)
        now = vars(builtins)
        for key, value in self.builtins.items():
            if now.get(key, _MISSING) is not value:
                out.append(f"builtins.{key} was replaced or deleted")
        out += [f"builtins.{k} was added" for k in now if k not in self.builtins]
        return out + self._code_changes()

    def _module_changes(self, name: str, module: types.ModuleType) -> list[str]:
        """A module replaced in sys.modules, and names of it replaced, deleted or added."""
        out = []
        if name != self.OWN and sys.modules.get(name) is not module:
            out.append(f"sys.modules[{name!r}] was replaced")
        now = vars(module)
        for key, value in self.dicts[name].items():
            if now.get(key, _MISSING) is not value:
                out.append(f"{name}.{key} was replaced or deleted")
        for key in self._added(name):
            out.append(f"{name}.{key} was added")
        return out

    def _code_changes(self) -> list[str]:
        """Functions whose code or defaults were replaced, classes with a method replaced."""
        out = []
        for fn, (code, defaults, kwdefaults) in self.functions.items():
            if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
                out.append(f"{fn.__module__}.{fn.__qualname__} had its code or defaults replaced")
        for cls, attrs in self.classes.items():
            now_cls = vars(cls)
            if any(now_cls.get(k, _MISSING) is not v for k, v in attrs.items() if _is_tracked(v) or callable(v)):
                out.append(f"{cls.__module__}.{cls.__qualname__} had a method replaced")
        return out

    def _added(self, name: str) -> list[str]:
        """Names added to a module that would shadow a builtin, or any added to a checks module
        (a submodule imported later is not an addition)."""
        now = vars(self.modules[name])
        return [key for key, value in list(now.items()) if key not in self.keys[name]
                and (hasattr(builtins, key) or name.startswith("workshop_lib.checks"))
                and not (isinstance(value, types.ModuleType) and value.__name__ == f"{name}.{key}")]

    def restore(self) -> None:
        for name, module in self.modules.items():
            if name != self.OWN:
                sys.modules[name] = module
            now = vars(module)
            now.update(self.dicts[name])
            for key in self._added(name):
                del now[key]
        now = vars(builtins)
        for key in [k for k in now if k not in self.builtins]:
            del now[key]
        now.update(self.builtins)
        for fn, (code, defaults, kwdefaults) in self.functions.items():
            if fn.__code__ is not code:
                fn.__code__ = code
            fn.__defaults__, fn.__kwdefaults__ = defaults, kwdefaults
        for cls, attrs in self.classes.items():
            for key, value in attrs.items():
                if key not in ("__dict__", "__weakref__", "__doc__") and vars(cls).get(key, _MISSING) is not value:
                    type.__setattr__(cls, key, value)


def _import_workshop() -> None:
    import workshop_lib

    for info in pkgutil.walk_packages(workshop_lib.__path__, "workshop_lib."):
        if info.name.startswith(("workshop_lib.tools", "workshop_lib.engines.oracle")):
            continue  # the instructor's tools and the Oracle driver: not used by a graded notebook
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a module that cannot load here cannot be used by a check either
            continue


def resolve_check(source: str, snapshot: Snapshot):
    """(check function, argument expressions) of a graded cell `checks.partN.check_x(a, b)`."""
    tree = ast.parse(source)
    calls = [n.value for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    if len(tree.body) != 1 or len(calls) != 1:
        raise ValueError("a graded cell is one check call")
    call, names = calls[0], list[str]()
    node = call.func
    while isinstance(node, ast.Attribute):
        names.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id != "checks" or len(names) != 2:
        raise ValueError("a graded cell calls checks.<part>.<check>")
    module = f"workshop_lib.checks.{names[0]}"
    fn = snapshot.dicts.get(module, {}).get(names[1])
    if not isinstance(fn, types.FunctionType):
        raise ValueError(f"no check {module}.{names[1]}")
    return fn, call.args, call.keywords


def main() -> None:
    own = sys.modules[__name__]  # before the shell exists: this module, whatever its name
    fd, calls_fd, job = _read_job()
    nonce = job.pop("nonce", None)  # none when the judge reads the lines: it holds no secret here
    guard = [False]   # the hook's own calls are not reported
    cell: list[int | None] = [None]

    write, encode = os.write, _json_encoder()  # bound now: learner code may replace either later

    def emit(**line) -> None:
        guard[0] = True
        try:
            signed = line if nonce is None else {"nonce": nonce, **line}
            write(fd, (encode(signed) + "\n").encode("utf-8", "surrogatepass"))
        finally:
            guard[0] = False

    # In this order, all before any learner code runs: the workshop imported, the shell made,
    # the snapshot taken, the audit hook installed.
    _import_workshop()
    from workshop_lib.checks import CheckFailed

    gate = ReferenceGate()
    gate.install()
    shell = _shell()
    snapshot = Snapshot(own)
    sys.addaudithook(_audit_hook(snapshot.ids, emit, guard, cell))
    # Learner output is not read: the verdicts come from the checks alone.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    cell_timeout = int(job["cell_timeout"])
    signal.signal(signal.SIGALRM, _alarm(cell_timeout))
    cells = _Cells(shell, snapshot, CheckFailed, emit, cell, cell_timeout, gate)
    if calls_fd is not None:
        cells.calls = _Calls(calls_fd)
    for index, item in enumerate(job["cells"]):
        if item["kind"] == "check":
            cells.check(index, item)
        else:
            cells.run(index, item)
    emit(event="done")
    os._exit(0)  # learner threads and atexit handlers get no say after the last verdict


def _json_encoder() -> Callable[[Any], str]:
    """A JSON encoder for the reply lines that uses neither the json module nor anything looked up
    when it runs: builtins are bound now and it calls itself and `quoted` through its closure, so learner
    code that replaces json.dumps, a JSONEncoder method, a builtin or this module's globals cannot
    change what the grader reads. Values are what emit sends: str, int, float, bool, None, and
    lists and dicts of them."""
    def quoted(value: str, _ord=ord, _join=str.join) -> str:
        """A JSON string: quotes and backslashes escaped, control characters and surrogates as \\u."""
        out = []
        for ch in value:
            code = _ord(ch)
            if ch == '"' or ch == "\\":
                out.append("\\" + ch)
            elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
                out.append(f"\\u{code:04x}")
            else:
                out.append(ch)
        return '"' + _join("", out) + '"'

    def encode(value: Any, _type=type, _str=str, _repr=repr, _float_repr=float.__repr__,
               _int_repr=int.__repr__, _join=str.join) -> str:
        kind = _type(value)
        if value is None:
            return "null"
        if kind is bool:
            return "true" if value else "false"
        if kind is int:
            return _int_repr(value)
        if kind is float:
            text = _float_repr(value)
            return text if text not in ("nan", "inf", "-inf") else "null"
        if kind is str:
            return quoted(value)
        if kind is list or kind is tuple:
            return "[" + _join(",", [encode(v) for v in value]) + "]"
        if kind is dict:
            return "{" + _join(",", [encode(_str(k)) + ":" + encode(v) for k, v in value.items()]) + "}"
        return encode(_repr(value))

    return encode


def _read_job() -> tuple[int, int | None, dict]:
    """The reply descriptor, the judge's descriptor when the judge runs the checks (both kept from any
    child process) and the job read from stdin; the process then has the job's environment only and
    works in its scratch folder."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--reply-fd", type=int, required=True)
    parser.add_argument("--calls-fd", type=int)
    args = parser.parse_args()
    fd, calls_fd = args.reply_fd, args.calls_fd
    for kept in (fd, calls_fd):
        if kept is not None:
            os.set_inheritable(kept, False)
    job = json.loads(sys.stdin.readline())
    os.environ.clear()
    os.environ.update(job["env"])
    os.chdir(job["scratch"])
    return fd, calls_fd, job


def _shell() -> Any:
    """An IPython shell object (no kernel) to run the cells in."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    settings = Config()
    settings.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=settings)
    shell.builtin_trap.__enter__()  # display, get_ipython: IPython's builtins are part of the snapshot
    return shell


def _audit_hook(trusted: set[int], emit: Callable[..., None], guard: list[bool],
                cell: list[int | None]) -> Callable[[str, tuple], None]:
    """The hook that blocks and reports what learner code must not do (the module docstring lists it).
    It acts only while a cell runs (`cell`) and ignores the grader's own calls (`guard`)."""

    def hook(event: str, args: tuple) -> None:
        if guard[0] or cell[0] is None:
            return
        guard[0] = True
        try:
            why = _blocked_outright(event, args, trusted)
            block = why is not None
            learner_only = None if why is not None else _learner_event(event, args)
            # _learner_caller and _check_tracer_stopped read the frames above them: they are
            # called from this function directly, never from a step it calls.
            if learner_only is not None and _learner_caller(learner_only[2]) and not (
                    event in _TRACING and _check_tracer_stopped()):
                why, block = learner_only[0], learner_only[1]
        finally:
            guard[0] = False
        if why:
            emit(event="tamper", cell=cell[0], what=why)
            if block:
                raise RuntimeError(f"blocked by the grader: {why}")

    return hook


def _blocked_outright(event: str, args: tuple, trusted: set[int]) -> str | None:
    """What an event does that is blocked whoever raised it, or None: changing an attribute of a
    trusted object, ctypes or another blocked event, opening a process's memory, descriptors,
    environment or maps under /proc."""
    if event in ("object.__setattr__", "object.__delattr__") and id(args[0]) in trusted:
        return f"{event} {args[1]!r} on {getattr(args[0], '__qualname__', args[0])!r}"
    if event.startswith("ctypes.") or event in _BLOCKED:
        return event
    if event == "open" and isinstance(args[0], str) and args[0].startswith("/proc/") and \
            any(p in args[0] for p in ("/mem", "/fd", "/environ", "/maps")):
        return f"open {args[0]}"
    return None


def _learner_event(event: str, args: tuple) -> tuple[str, bool, int] | None:
    """For an event that counts only when learner code raised it: (what it does, whether it is
    blocked, how many frames up the learner's code may be); None for any other event. Tracing
    is blocked (unless a check's own tracer is being removed), frame attributes may be read
    (reported) but not set, the rest is reported."""
    if event in _TRACING:
        return event, True, 2
    if event == "object.__getattr__" and args[1] in _FRAME_ATTRS:
        return f"read {args[1]}", False, 2
    if event in ("object.__setattr__", "object.__delattr__") and args[1] in _FRAME_ATTRS | {
            "__class__", "__bases__", "__dict__"}:
        return f"{event} {args[1]!r}", True, 2
    if event in _REPORTED:
        return event, False, 1 if event in ("exec", "compile") else 2
    return None


def _learner_caller(depth: int = 2) -> bool:
    """Whether the code that raised an audit event, or up to `depth` frames from it, is a learner
    cell. Called by the hook only, directly: frame 0 is this function, 1 the hook, 2 that code."""
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(depth):
        if frame is None:
            return False
        if frame.f_code.co_filename.startswith(LEARNER):
            return True
        frame = frame.f_back
    return False


def _check_tracer_stopped() -> bool:
    """Whether a trace event is the interpreter removing a check's own tracer: a check's trace
    function that stops a runaway loop (Part 8) clears the learner frame's tracer and raises, and
    the interpreter then clears the global tracer, an event raised in the learner's frame. That
    frame is then untraced while the check's tracer (code from a workshop file) is still set;
    a learner's frame under the check's tracer is traced. Called by the hook only, directly."""
    tracer = sys.gettrace()
    frame = sys._getframe(2)  # 0 this function, 1 the hook, 2 the code that raised the event
    code = getattr(tracer, "__code__", None)
    return (frame is not None and frame.f_trace is None and isinstance(code, types.CodeType)
            and code.co_filename.startswith(_WORKSHOP_DIR) and code.co_filename.endswith(".py"))


_WORKSHOP_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _alarm(cell_timeout: int) -> Callable[..., None]:
    """The SIGALRM handler that stops a cell at its time limit."""
    def alarm(*_args):
        raise TimeoutError(f"the cell ran past its {cell_timeout} s limit")

    return alarm


class _Cells:
    """Runs the notebook's cells in order: the learner's and the course's in the shell, each graded
    cell as the check captured at the start, on the learner's objects, with its verdict sent."""

    def __init__(self, shell: Any, snapshot: Snapshot, check_failed: type[CheckFailed], emit: Callable[..., None],
                 cell: list[int | None], cell_timeout: int, gate: ReferenceGate) -> None:
        self.shell, self.ns, self.snapshot, self.gate = shell, shell.user_ns, snapshot, gate
        self.check_failed, self.emit, self.cell, self.cell_timeout = check_failed, emit, cell, cell_timeout
        self.bound: dict[str, Any] = {}  # name -> the object a course cell left in it (kept: no id is reused)
        self.calls: _Calls | None = None  # the judge's requests, when the judge runs the checks

    def _replaced(self, arg_nodes: list) -> list[str]:
        return [f"the TODO cells replaced `{n.id}`, which the check is given" for n in arg_nodes
                if isinstance(n, ast.Name) and n.id in self.bound and self.ns.get(n.id) is not self.bound[n.id]]

    def check(self, index: int, item: dict) -> None:
        """A graded cell: the snapshot restored (what changed is reported with the verdict), then the
        captured check called on the objects its arguments name (or, with the judge, `serve`)."""
        if self.calls is not None:
            self.serve(index, item)
            return
        ns, snapshot, source = self.ns, self.snapshot, item["source"]
        gid = item["grade_id"]
        changed = snapshot.changes()
        snapshot.restore()
        try:
            fn, arg_nodes, kw_nodes = resolve_check(source, snapshot)
        except (SyntaxError, ValueError) as exc:
            self.emit(event="verdict", grade_id=gid, cell=index, passed=False, message=f"grader: {exc}", changed=changed)
            return
        changed += self._replaced(arg_nodes)
        self.cell[0] = index
        signal.setitimer(signal.ITIMER_REAL, self.cell_timeout)
        try:
            args = [eval(compile(ast.Expression(n), "<check-args>", "eval"), ns) for n in arg_nodes]
            kwargs = {k.arg: eval(compile(ast.Expression(k.value), "<check-args>", "eval"), ns)
                      for k in kw_nodes}
            self.gate.checking(fn.__name__)
            fn(*args, **kwargs)
            passed, message = True, ""
        except self.check_failed as exc:
            passed, message = False, exc.message()[:1000]
        except BaseException as exc:  # noqa: BLE001 - whatever the learner's code raised fails the check
            passed, message = False, f"{type(exc).__name__}: {str(exc)[:500]}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.cell[0] = None
            reference = self.gate.called[0]
            self.gate.checking("")
        changed += snapshot.changes()
        snapshot.restore()
        self.emit(event="verdict", grade_id=gid, cell=index, passed=passed, message=message, changed=changed,
                  reference=reference)

    def serve(self, index: int, item: dict) -> None:
        """A graded cell run by the judge (judge.py): the snapshot restored, the judge told, then each of
        its calls of the learner's function answered with plain data until it says the check ended;
        what changed meanwhile and whether the reference was called are reported after it."""
        from workshop_lib.tools.grading import judge

        calls, snapshot = self.calls, self.snapshot
        assert calls is not None
        changed = snapshot.changes()
        snapshot.restore()
        try:
            _, name, arg_nodes = judge.check_call(item["source"])
        except (SyntaxError, ValueError):
            name, arg_nodes = "", []
        changed += self._replaced(arg_nodes)
        targets = {n.id: self.ns.get(n.id, _MISSING) for n in arg_nodes if isinstance(n, ast.Name)}
        self.gate.checking(name)
        self.emit(event="reached", cell=index, changed=changed)
        with _planted(name, targets, judge):
            while True:
                message = calls.next()
                if message.get("event") == "end" and message.get("cell") == index:
                    break
                if message.get("event") == "call":
                    self.emit(**self._answer(index, message, targets))
        reference = self.gate.called[0]
        self.gate.checking("")
        changed = snapshot.changes()
        snapshot.restore()
        self.emit(event="report", cell=index, changed=changed, reference=reference)

    def _answer(self, index: int, message: dict, targets: dict[str, Any]) -> dict:
        """One call of the learner's function, as the judge asked: its arguments rebuilt, run under the
        reference gate, the time limit and (Part 8) a line limit; what it returned as plain data."""
        import workshop_lib.checks as checks_pkg
        from workshop_lib.checks import values
        from workshop_lib.tools.grading import served, wire

        seq, fn = message.get("seq"), targets.get(str(message.get("name")), _MISSING)
        if fn is _MISSING:
            return {"event": "raised", "seq": seq, "type": "NameError",
                    "message": f"name {message.get('name')!r} is not defined"}
        records: list = []
        swapped: list[tuple[dict, str, Any]] = []
        assert self.calls is not None
        caller = served.Caller(self.emit, self.calls.next, seq)
        try:
            fn = _member(fn, message.get("member"))
            args, kwargs = _call_arguments(fn, message, records, swapped, served.stand_in(caller))
        except (wire.Garbage, TypeError, ValueError) as exc:
            return {"event": "raised", "seq": seq, "type": "RuntimeError", "message": f"grader: {exc}"}
        except Exception as exc:  # noqa: BLE001 - a member the learner's object does not have, as the call would fail
            return _raised(seq, exc, [])
        if message.get("get") is True:
            return {"event": "return", "seq": seq, "value": wire.encode(values.plain(fn), []), "after": []}
        mutable = [a for a in [*args, *kwargs.values()] if type(a) in (list, dict)]
        known = {id(r): i for i, r in enumerate(records)}
        keep = set(known)
        previous = sys.gettrace()
        eng: Any = targets.get(str(message.get("engine")))
        sent: list[str] = []
        engine_calls: list[tuple[str, str]] = []
        self.cell[0] = index
        signal.setitimer(signal.ITIMER_REAL, max(0.01, float(message.get("timeout") or self.cell_timeout)))
        # The learner's function is called in this frame, the one that catches what it raises: `at_call`
        # (a TypeError of the call itself) is told by the traceback having no frame below this one.
        try:
            with contextlib.ExitStack() as stack:
                what = message.get("serves")
                if what in ("store", "queries"):
                    stack.enter_context(served.serving(eng, caller, what == "store", what == "queries", engine_calls))
                _watch_call(stack, message, eng, sent)
                with checks_pkg._learner_running():  # a generator's items are read here too: its code runs now
                    got = fn(*args, **kwargs)
                    value, after = values.plain(got, keep), values.plain(mutable, keep)
                sys.settrace(previous)
            return {"event": "return", "seq": seq, "value": wire.encode(value, [], known),
                    "after": wire.encode(after, [], known), "statements": values.plain(sent),
                    "engine_calls": values.plain(engine_calls)}
        except _Endless:
            return {"event": "raised", "seq": seq, "loop": True, "statements": values.plain(sent),
                    "engine_calls": values.plain(engine_calls)}
        except BaseException as exc:  # noqa: BLE001 - whatever the learner's function raised goes to the judge
            return {**_raised(seq, exc, sent), "engine_calls": values.plain(engine_calls)}
        finally:
            sys.settrace(previous)
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.cell[0] = None
            _put_back(swapped)

    def run(self, index: int, item: dict) -> None:
        """A learner's or a course cell, in the shell's namespace, under the time limit."""
        kind, source = item["kind"], item["source"]
        name = f"{LEARNER if kind == 'learner' else COURSE}{index}>"
        before = dict(self.ns)
        self.cell[0] = index
        signal.setitimer(signal.ITIMER_REAL, self.cell_timeout)
        try:
            code = compile(self.shell.transform_cell(source), name, "exec")
            exec(code, self.ns)
        except BaseException:  # noqa: BLE001 - as nbgrader does, a failing cell does not stop the notebook
            pass
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.cell[0] = None
        if kind == "course":
            # Only what this cell bound itself: a course cell after a TODO (the locked hint cell) must not
            # make the TODO's replacement of `eng` look like the course's own.
            self.bound.update({k: v for k, v in self.ns.items() if not k.startswith("_") and before.get(k, _MISSING) is not v})


def _member(obj: Any, path: Any) -> Any:
    """The member of the learner's object the judge names (Part 6: registry.dispatch, registry.tools[name].fn):
    attributes, and keys of a dict. Looked up here, in the learner's process (its code may run)."""
    if path is None or path == []:
        return obj
    if type(path) is not list or len(path) > 4 or not all(type(p) is str and len(p) <= 100 for p in path):
        raise ValueError("a member is a short list of names")
    for step in path:
        obj = obj[step] if isinstance(obj, dict) else getattr(obj, step)
    return obj


def _call_arguments(fn: Any, message: dict, records: list, swapped: list[tuple[dict, str, Any]],
                    stub: Callable[[Any, Any], Any] | None = None) -> tuple[Any, Any]:
    """(args, kwargs) of a call the judge asked for, rebuilt from plain data (the records built are
    appended to `records`, the check's served objects built by `stub`); and the globals it names
    (Part 5) put in the function's module for the call, what they replaced appended to `swapped` as
    each is put (the caller puts those back). Raises wire.Garbage, TypeError or ValueError for what
    is not the protocol."""
    from workshop_lib.tools.grading import wire

    args = wire.decode(message.get("args"), records, stub=stub)
    kwargs = wire.decode(message.get("kwargs"), records, stub=stub)
    names = getattr(fn, "__globals__", None)
    for key, ref in dict(message.get("globals") or {}).items():
        if type(names) is dict and key in names:
            swapped.append((names, key, names[key]))
            names[key] = wire.decode({"$fn": ref}, [])
    return args, kwargs


def _put_back(swapped: list[tuple[dict, str, Any]]) -> None:
    """The globals _call_arguments replaced, as they were."""
    for names, key, mine in swapped:
        names[key] = mine


def _watch_call(stack: contextlib.ExitStack, message: dict, eng: Any, sent: list[str]) -> None:
    """What the judge asked for around one call, entered on `stack`: the SQL the learner's engine runs
    recorded in `sent`, its unordered reads reversed, and the line limit's tracer, set last so that
    only the call itself runs under it (the caller removes it)."""
    if message.get("statements") is True:
        from workshop_lib.checks.part3 import recording_queries  # the check's own recorder, not a copy

        stack.enter_context(recording_queries(eng, sent))
    if message.get("reversed_reads") is True:
        stack.enter_context(eng.supplychain.unordered_reads_reversed())
    limit = message.get("max_lines")
    if type(limit) is int and limit > 0:
        sys.settrace(_line_guard(limit))


def _raised(seq: Any, exc: BaseException, sent: list[str]) -> dict:
    """What the learner's function raised, for the judge: its type's name, its text (bounded), and
    whether the call itself raised it (no frame below the caller's: wrong arguments)."""
    from workshop_lib.checks import values

    at_call = exc.__traceback__ is not None and exc.__traceback__.tb_next is None
    # A KeyError's text is the repr of its key: the key itself is sent, the judge's KeyError shows it so again.
    key = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 and type(exc.args[0]) is str else None
    return {"event": "raised", "seq": seq, "type": type(exc).__name__, "message": _text(exc) if key is None else key[:1000],
            "at_call": at_call, "statements": values.plain(sent)}


@contextlib.contextmanager
def _planted(check: str, targets: dict[str, Any], judge: Any) -> Iterator[None]:
    """The records a Part 3 check plants in the judge's engine, planted in the learner's engine too
    (the object its notebook binds to the check's engine argument) while the judge runs the check."""
    from workshop_lib.checks import part3

    roles = judge.SPLIT.get(check, ())
    names = [n for n, role in zip(targets, roles) if role == "engine"]
    if check not in judge.PLANTED or not names:
        yield
        return
    try:
        plants = part3.planted(targets[names[0]])
        plants.__enter__()
    except Exception:  # noqa: BLE001 - not an engine: the learner's function reads what it can, and fails
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            plants.__exit__(None, None, None)


class _Endless(BaseException):
    """The learner's function ran past the line limit the judge asked for."""


def _line_guard(limit: int) -> Callable[..., Any]:
    """A tracer that stops the learner's code after `limit` lines (as Part 8's check does in process)."""
    count = [0]

    def local(frame, event, _arg):
        if event == "line":
            count[0] += 1
            if count[0] > limit:
                frame.f_trace = None  # see _check_tracer_stopped: this is the grader removing its tracer
                raise _Endless()
        return local

    def calls(frame, event, _arg):
        return local if "workshop_lib" not in frame.f_code.co_filename else None

    return calls


def _text(exc: BaseException) -> str:
    try:
        return str.__str__(str(exc))[:1000]
    except BaseException:  # noqa: BLE001 - an exception whose str fails still names its type
        return ""


class _Calls:
    """The judge's requests, one JSON object a line (blocking reads: this process only answers).
    A line that is not one is skipped; the end of the pipe (the judge is gone) ends this process."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer = fd, b""

    def next(self) -> dict:
        from workshop_lib.tools.grading import wire

        while True:
            at = self.buffer.find(b"\n")
            if at >= 0:
                line, self.buffer = self.buffer[:at], self.buffer[at + 1:]
                try:
                    return wire.loads(line)
                except wire.Garbage:
                    continue
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                os._exit(0)
            self.buffer += chunk


if __name__ == "__main__":
    main()

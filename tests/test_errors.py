"""One base for the workshop's exceptions: every class raised on purpose derives from
WorkshopError (with its `fix`), so a caller catches one class instead of importing each."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import workshop_lib
from workshop_lib.errors import WorkshopError


def _exception_classes() -> list[type[BaseException]]:
    found = {}
    for info in pkgutil.walk_packages(workshop_lib.__path__, "workshop_lib."):
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


# Signals, not errors: they derive from BaseException only, on purpose, so that a learner's
# `except Exception` cannot swallow the grader's stop (the check that set the limit reports it).
SIGNALS = {"workshop_lib.checks.LinesExceeded", "workshop_lib.tools.grading.recheck._Endless"}


def test_every_exception_class_of_the_library_derives_from_the_base():
    classes = _exception_classes()
    assert len(classes) >= 18, sorted(c.__name__ for c in classes)
    names = {f"{c.__module__}.{c.__qualname__}": c for c in classes}
    stray = sorted(n for n, c in names.items() if not issubclass(c, WorkshopError) and n not in SIGNALS)
    assert not stray, f"derive these from workshop_lib.errors.WorkshopError: {stray}"
    assert all(not issubclass(names[n], Exception) for n in SIGNALS if n in names)


def test_the_base_carries_message_and_fix():
    err = WorkshopError("the store is missing", fix="run `workshop setup`")
    assert str(err) == "the store is missing" and err.fix == "run `workshop setup`"
    assert WorkshopError("no separate fix").fix == ""


@pytest.mark.parametrize("name, builtin", [
    ("workshop_lib.core.store.SchemaError", RuntimeError),
    ("workshop_lib.engines.readonly.SqlRefused", ValueError),
    ("workshop_lib.parts.ingest.manifest.ManifestError", ValueError),
    ("workshop_lib.engines.embedded.embedder.ModelUnavailable", RuntimeError),
])
def test_existing_callers_still_catch_the_builtin_base(name, builtin):
    module, _, cls = name.rpartition(".")
    assert issubclass(getattr(importlib.import_module(module), cls), builtin)


def test_classes_with_their_own_fix_keep_it():
    from workshop_lib.checks import CheckFailed
    from workshop_lib.engines.base import DatabaseFault

    assert CheckFailed("todo1_x", "wrong", "do it right").fix == "do it right"
    fault = DatabaseFault("data/workshop.sqlite", "the file is not a database", "run `workshop reset`")
    assert fault.fix == "run `workshop reset`" and "Fix: run `workshop reset`." in str(fault)


# ============================================================================ the tree in errors.py, and the CLI
TREE_LINE = re.compile(r"^(?P<indent> {4,})(?P<name>\w+)(?: \((?P<builtins>[\w, ]+)\))?\s+(?P<module>[\w.]+)$")


def documented_tree(doc: str) -> dict[str, tuple[str | None, str, tuple[str, ...]]]:
    """name -> (parent named one level up, module, builtin bases) from the tree in a docstring."""
    tree: dict[str, tuple[str | None, str, tuple[str, ...]]] = {}
    stack: list[tuple[int, str]] = []
    for line in doc.splitlines():
        m = TREE_LINE.match(line)
        if not m:
            continue
        depth = len(m["indent"]) // 4
        stack = [(d, n) for d, n in stack if d < depth]
        builtins = tuple(b.strip() for b in (m["builtins"] or "").split(",") if b.strip())
        tree[m["name"]] = (stack[-1][1] if stack else None, m["module"], builtins)
        stack.append((depth, m["name"]))
    return tree


def code_tree() -> dict[str, tuple[str | None, str, tuple[str, ...]]]:
    tree: dict[str, tuple[str | None, str, tuple[str, ...]]] = {}
    for c in _exception_classes():
        if not issubclass(c, WorkshopError):
            continue
        parent = next((b.__name__ for b in c.__bases__ if issubclass(b, WorkshopError)), None)
        builtins = tuple(b.__name__ for b in c.__bases__ if b.__module__ == "builtins" and b is not Exception)
        tree[c.__name__] = (parent, c.__module__.removeprefix("workshop_lib."), builtins)
    return tree


def test_the_tree_in_errors_py_is_the_tree_in_the_code():
    import workshop_lib.errors

    documented, actual = documented_tree(workshop_lib.errors.__doc__ or ""), code_tree()
    assert len(actual) >= 28 and documented["WorkshopError"] == (None, "errors", ())
    wrong = sorted(set(documented.items()) ^ set(actual.items()))
    assert not wrong, f"workshop_lib/errors.py's tree and the code differ (name, (parent, module, builtins)): {wrong}"


def test_the_tree_reader_sees_a_wrong_tree():
    doc = "    WorkshopError        errors\n        Lost (ValueError)    core.store\n            Deeper    core.store\n"
    assert documented_tree(doc) == {"WorkshopError": (None, "errors", ()), "Lost": ("WorkshopError", "core.store", ("ValueError",)),
                                    "Deeper": ("Lost", "core.store", ())}
    assert set(documented_tree(doc).items()) ^ set(code_tree().items())


def test_the_cli_prints_a_workshop_error_once_without_a_traceback(monkeypatch, capsys):
    from workshop_lib.tools import cli

    def refuse(*args, **kwargs):
        raise WorkshopError("the store is locked by another process", fix="close the other notebook")

    monkeypatch.setattr(cli, "_connect", refuse)
    assert cli.main(["setup"]) == 1
    err = capsys.readouterr().err
    assert err == "the store is locked by another process\nFix: close the other notebook\n"
    assert cli.error_text(WorkshopError("run `workshop setup` first", fix="run `workshop setup`")) == "run `workshop setup` first"


def test_the_cli_keeps_the_traceback_of_a_bug(monkeypatch):
    from workshop_lib.tools import cli

    def bug(*args, **kwargs):
        raise KeyError("not an error the workshop raises on purpose")

    monkeypatch.setattr(cli, "_connect", bug)
    with pytest.raises(KeyError):
        cli.main(["setup"])
    assert cli.main(["--help"]) == 0


def test_the_workshop_command_ends_with_the_message_and_status_1(tmp_path):
    """End to end, as a user runs it: a refused rollback (PromotionRefused) on a fresh store."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "WORKSHOP_DATA_DIR": str(tmp_path), "WORKSHOP_ENGINE": "embedded"}
    out = subprocess.run([sys.executable, "-m", "workshop_lib.tools.cli", "alias", "rollback"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert "nothing to roll back" in out.stderr and "Traceback" not in out.stderr

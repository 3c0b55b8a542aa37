"""One base for the workshop's exceptions: every class raised on purpose derives from
WorkshopError (with its `fix`), so a caller catches one class instead of importing each."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

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

"""Helpers for the agent-memory retrieval workshop on Oracle AI Database."""
from .engine import Engine, connect

# Modules a notebook reaches as `workshop_lib.<name>`; they load on first use so that
# `import workshop_lib` stays quick.
_LAZY = ("supplychain", "scanner", "retrieval", "checks", "gates", "grounded", "catalog", "calibration", "llm",
         "evaluation", "maps")
__all__ = ["connect", "Engine", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)

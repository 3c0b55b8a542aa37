"""Helpers for the agent-memory retrieval workshop on Oracle AI Database."""
from .engine import Engine, connect

__all__ = ["connect", "Engine", "supplychain", "scanner", "retrieval"]


def __getattr__(name):
    # Submodules load on first use so `import workshop_lib` stays quick.
    if name in ("supplychain", "scanner", "retrieval", "checks", "gates", "grounded", "catalog", "calibration",
                "llm", "evaluation"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)

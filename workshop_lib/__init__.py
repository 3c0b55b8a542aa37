"""Helpers for the agent-memory retrieval workshop on Oracle AI Database."""
from workshop_lib.core.connect import connect
from workshop_lib.core.records import RecordDraft
from workshop_lib.engines.base import Engine

# The modules a notebook uses, reachable as `workshop_lib.<name>` (so `from workshop_lib import
# retrieval, checks` works) and loaded on first use so that `import workshop_lib` stays quick.
# Where each lives (docs/architecture.md): engines/, core/, data/, parts/, tools/.
_LAZY = {"checks": "checks", "supplychain": "data.supplychain", "catalog": "data.catalog", "maps": "data.maps",
         "llm": "core.llm", "scanner": "parts.scanner", "retrieval": "parts.retrieval",
         "evaluation": "parts.evaluation", "gates": "parts.gates", "calibration": "parts.calibration",
         "grounded": "parts.grounded", "agent": "parts.agent"}
__all__ = ["connect", "Engine", "RecordDraft", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{_LAZY[name]}")
    raise AttributeError(name)

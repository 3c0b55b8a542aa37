"""Which class is which engine, by name (oracle | embedded), and opening one (core/connect.py's connect())."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from workshop_lib import config
from workshop_lib.engines.base import Engine, MemoryFactory


def engine_class(name: str) -> type[Engine]:
    """The class of the engine `name` (oracle | embedded), imported only when asked for."""
    if config.engine_name(name) == "embedded":
        # plugin lookup: an engine's module (and its driver) loads when that engine is asked for
        from workshop_lib.engines.embedded.engine import EmbeddedEngine

        return EmbeddedEngine
    # plugin lookup: an engine's module (and its driver) loads when that engine is asked for
    from workshop_lib.engines.oracle.engine import OracleEngine

    return OracleEngine


def open_engine(name: str, memory: MemoryFactory, *, path: str | Path | None = None, **options: Any) -> Engine:
    """The engine `name` opened with its memory store (`memory`: see Engine). On the embedded engine
    create=True (the default) also creates the store's missing tables: the file is the learner's own;
    create=False raises StoreMissing when it does not exist. Oracle's schema is made by
    `make setup-oracle`, never here."""
    if config.engine_name(name) == "embedded":
        create = options.get("create", True)
        # The file's path is the embedded engine's own option, passed on with the others.
        eng = engine_class(name)(memory=memory, **{**options, "path": path})
        if create:
            eng.open_store()
        return eng
    options.pop("create", None)
    return engine_class(name)(memory=memory, **options)

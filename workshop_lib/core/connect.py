"""`connect()`: the workshop's engine, with its Workspace (core/workspace.py: the store and the scope) handed in."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from workshop_lib import config
from workshop_lib.core.workspace import Workspace
from workshop_lib.engines.base import Engine
from workshop_lib.engines.registry import open_engine


def connect(engine: str | None = None, *, path: str | Path | None = None, **options: Any) -> Engine:
    """Open the workshop's engine.

    `engine` defaults to $WORKSHOP_ENGINE, then 'embedded'. Choosing 'oracle' and not
    reaching it raises an error naming the DSN and the fix; it never falls back. On the
    embedded engine create=True (the default) creates the store's missing tables too.
    """
    config.load_dotenv()
    return open_engine(config.engine_name(engine), Workspace, path=path, **options)

"""What the memory store asks of the database under it (`eng.backend`): its schema objects,
vector binds, text values, and the engine's own health lines."""
from __future__ import annotations

import abc
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib.engines.dbtypes import Reader
from workshop_lib.engines.health import Check

if TYPE_CHECKING:
    from workshop_lib.engines.database import Database


class StoreBackend(abc.ABC):
    """The database side of core/store.py's schema lifecycle and writes."""

    def __init__(self, engine: Database, reader: Reader) -> None:
        """`engine`: the database the store lives in (its queries and transactions; each engine's
        backend reads its own engine's settings: the file, the user); `reader`: its cursor for
        reads that hold its lock over several statements (engines/dbtypes.py)."""
        self._engine = engine
        self._read = reader

    @abc.abstractmethod
    def object_names(self) -> set[str]:
        """Upper-case names of the tables, indexes and triggers that exist in the store's schema."""

    @abc.abstractmethod
    def create_objects(self, objects: list[tuple[str, list[str]]]) -> None:
        """Run each object's DDL; objects that already exist are left as they are."""

    @abc.abstractmethod
    def drop_objects(self, drops: dict[str, str], names: list[str]) -> None:
        """Drop the named objects with their DROP statements (missing ones are skipped)."""

    def schema_lock(self) -> contextlib.AbstractContextManager[Any]:
        """Held while the store checks and creates its schema, so two first-time setups do not
        both create it. Engines whose DDL tolerates a concurrent twin need nothing."""
        return contextlib.nullcontext()

    @abc.abstractmethod
    def vector_param(self, values: list[float]) -> Any:
        """A vector as this driver binds it (float32 blob, array('f'))."""

    def read_text(self, value: Any) -> Any:
        """A text column's value as str (a CLOB is read); any other value (None, a number) as it is."""
        if value is not None and hasattr(value, "read"):
            return value.read()
        return value

    def files(self) -> list[Path]:
        """The files the store's bytes are written to, which `user_trace` reads byte by byte
        (the embedded engine's database and its write-ahead log); none for a database server."""
        return []

    def doctor_checks(self, prefix: str = "") -> list[Check]:
        """Engine-specific lines for `workshop doctor` (integrity, users, grants, indexes...) of the
        store whose tables start with `prefix` (the store the doctor opened)."""
        return []

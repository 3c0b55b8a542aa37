"""Whose memories a request reads and writes: one user (and agent), plus the shared schema knowledge.

The schema facts the scanner writes (record ids `schema:...`) belong to the workshop's
own scope (config.USER_ID / config.AGENT_ID) and are the only records every user reads.
Everything else a user or the agent stores on a user's behalf (messages, corrections,
preferences, tool outputs) is written in that user's scope and read only there.

`eng.scoped(user_id)` is the engine as one user sees it (core/engine_memory.py's ScopedEngine):
the same connection and store, with `user_id` and `memory` (the scoped client) of that user,
so every lesson function that takes `eng` reads and writes in that scope without a new parameter.
"""
from __future__ import annotations

from typing import Any

from workshop_lib import config
from workshop_lib.core.arguments import MAX_SCOPE_ID_BYTES, check_id

SHARED_ID_PREFIX = "schema:"   # the scanner's fact ids (Fact.record_id)


def shared_scope() -> tuple[str, str]:
    """The scope that holds the shared schema knowledge."""
    return config.USER_ID, config.AGENT_ID


def is_shared_knowledge(record_id: str | None) -> bool:
    return bool(record_id) and str(record_id).startswith(SHARED_ID_PREFIX)


def check_scope_id(value: Any, name: str) -> str:
    """A user or agent id a request is scoped to: not blank, at most MAX_SCOPE_ID_BYTES bytes in
    UTF-8 (the chat service's telemetry keeps it in a VARCHAR2(200), which counts bytes)."""
    checked = check_id(value, name, max_bytes=MAX_SCOPE_ID_BYTES)
    assert checked is not None
    return checked

"""Whose memories a request reads and writes, as a value: `Scope(user, agent)`.

A scope is bound into the statements that read it (`Scope.binds()`): its own user and agent,
and the shared scope whose schema facts (record ids `schema:...`, written by the scanner)
every user reads in the same statement. Everything else a user or the agent stores on a
user's behalf (messages, corrections, preferences, tool outputs) is written in that user's
scope and read only there. The workshop's own user (config.USER_ID / config.AGENT_ID) holds
the shared knowledge: `SHARED`, also the scope an engine starts in (`DEFAULT`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workshop_lib import config
from workshop_lib.core.arguments import MAX_SCOPE_ID_BYTES, check_id


def check_scope_id(value: Any, name: str) -> str:
    """A user or agent id a request is scoped to: not blank, at most MAX_SCOPE_ID_BYTES bytes in
    UTF-8 (the chat service's telemetry keeps it in a VARCHAR2(200), which counts bytes)."""
    checked = check_id(value, name, max_bytes=MAX_SCOPE_ID_BYTES)
    assert checked is not None
    return checked


@dataclass(frozen=True)
class Scope:
    """One user and one agent; both ids checked when the scope is made."""

    user: str
    agent: str

    def __post_init__(self) -> None:
        check_scope_id(self.user, "user_id")
        check_scope_id(self.agent, "agent_id")

    def binds(self) -> dict[str, str]:
        """This scope and the shared knowledge, as the binds of a knowledge read (u, a, shared_u, shared_a)."""
        return {"u": self.user, "a": self.agent, "shared_u": SHARED.user, "shared_a": SHARED.agent}

    def as_user(self, user: str, agent: str | None = None) -> Scope:
        """Another user's scope (the same agent unless one is given)."""
        return Scope(user, agent or self.agent)


# The scope the scanner's facts are written in, read by every scope beside its own records.
SHARED = Scope(config.USER_ID, config.AGENT_ID)
DEFAULT = SHARED  # the scope an engine opened by connect() reads and writes


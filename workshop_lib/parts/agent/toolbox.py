"""The agent's four tools, registered on one engine (as one user sees it)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workshop_lib.engines.readonly import SqlRefused, recap
from workshop_lib.parts import retrieval
from workshop_lib.parts.agent import memory
from workshop_lib.parts.agent.tools import ToolRegistry

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine


def build_registry(eng: Engine, *, max_rows: int = 50, timeout_s: float = 5.0,
                   thread_id: str | None = None) -> ToolRegistry:
    """The four tools, working in `eng`'s scope (eng.scoped(user) for a user of the chat service);
    `thread_id`: the thread whose stored outputs fetch_tool_output reads (default: the user's latest)."""
    registry = ToolRegistry()

    @registry.tool
    def search_knowledge(query: str, k: int = 5) -> str:
        """Search the agent's knowledge memories (schema facts and corrections) with hybrid retrieval.

        Args:
            query: what to look for, in plain words
            k: how many memories to return (1-20)
        """
        hits = retrieval.hybrid_rrf_search_memories(eng, query, k=max(1, min(int(k), 20)))
        return json.dumps([{"kind": h["kind"], "subject": h["subject"], "content": h["content"][:400]} for h in hits])

    @registry.tool
    def run_sql(sql: str) -> str:
        """Run ONE read-only SELECT over the SUPPLYCHAIN tables and return the rows as text.

        Args:
            sql: a single SELECT (or WITH ... SELECT) statement; no writes, no PRAGMA, no semicolons
        """
        try:
            result = eng.supplychain.read_only_query(sql, max_rows=max_rows, timeout_s=timeout_s)
        except SqlRefused as exc:
            raise ValueError(str(exc)) from None  # dispatch turns it into an error result for the model
        # The byte caps hold for what the model reads whatever the engine capped itself.
        return recap(result, max_rows).as_text()

    @registry.tool
    def remember(text: str, subject: str = "") -> str:
        """Store a correction or fact the user asked you to remember; it is retrieved on later turns.

        Args:
            text: the fact, in one or two sentences
            subject: the table or column it is about, e.g. SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS
        """
        rid = memory.remember(eng, text, memory.CORRECTION, subject.upper())
        return json.dumps({"stored": rid, "kind": memory.CORRECTION})

    @registry.tool(preview=False)
    def fetch_tool_output(call_id: str) -> str:
        """Return the full output of an earlier tool call whose preview was cut short.

        Args:
            call_id: the id of that tool call
        """
        return memory.fetch_tool_output(eng, call_id, thread_id)

    return registry

"""What a thread keeps of each answer, so that a reload shows it exactly as it was answered.

An answer's mode, its sources (grouped per document, memory subject or catalog item), its
tool calls (kept apart: a tool call is an action the agent took, not a source) and its
`decision_explain` are built once by `citations`/`answer_metadata`, sent with the live
answer and stored as the metadata of the assistant's message; `thread_payload` returns
them with the thread, so the page renders a stored answer with the same code as a live one.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only (no import cycle)
    from workshop_lib.assistant.answering.answer import ChatAnswer
    from workshop_lib.core.records import MessageRecord
    from workshop_lib.engines.base import Engine

# The keys an assistant message carries in GET /threads/{id}, as in a live answer.
ANSWER_KEYS = ("mode", "sources", "tool_calls", "decision_explain")


def _source_of(chunk: dict[str, Any]) -> tuple[str, str]:
    """(type, name) of what a used chunk came from: rows of the data (named by their tables), a
    catalog row, a document (its chunks' ids are `<doc_id>#<n>` with the doc id as subject), a
    memory (named by its subject), or whatever another handler names (never an unnamed line)."""
    if chunk.get("tables"):
        return "data", ", ".join(chunk["tables"])
    if chunk.get("table") and chunk.get("row"):
        return "data", str(chunk["table"])
    if chunk.get("item_id"):
        return "catalog item", str(chunk["item_id"])
    record_id, subject = str(chunk.get("record_id") or ""), chunk.get("subject")
    if subject and record_id.startswith(f"{subject}#"):
        return "document", str(subject)
    if subject or record_id:
        return "memory", str(subject or record_id)
    name = next((str(chunk[k]) for k in ("source", "name", "table", "id") if chunk.get(k)), None)
    return "source", name or json.dumps(chunk, sort_keys=True, default=str)[:200]


def grouped_sources(used_chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per document / memory subject / catalog item, in the order first used, with
    the ids of its parts and its best similarity (None when the handler has no score)."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for chunk in used_chunks:
        if "tool" in chunk:  # an agent's tool call, listed by tool_calls()
            continue
        kind, name = _source_of(chunk)
        group = groups.setdefault((kind, name), {"type": kind, "name": name, "parts": [], "similarity": None})
        part = chunk.get("record_id") or chunk.get("item_id")
        if part is not None and part not in group["parts"]:
            group["parts"].append(part)
        if chunk.get("row"):
            group["parts"].append(str(chunk["row"]))
        if "rows_shown" in chunk:
            group["rows_shown"] = group.get("rows_shown", 0) + int(chunk["rows_shown"])
            group["figure"] = chunk.get("shape") in ("count", "aggregate", "value")
        score = chunk.get("similarity")
        if isinstance(score, (int, float)) and (group["similarity"] is None or score > group["similarity"]):
            group["similarity"] = round(float(score), 4)
    return [_described(g) for g in groups.values()]


def _described(group: dict[str, Any]) -> dict[str, Any]:
    """Rows of the data get a `detail` a person reads: how many rows the answer shows, and which."""
    if group["type"] != "data":
        return group
    rows, figure = group.pop("rows_shown", None), group.pop("figure", False)
    named = group["parts"]
    n = rows if rows is not None else len(named)
    detail = "one figure computed from its rows" if figure else f"{n} row{'' if n == 1 else 's'} shown in the answer"
    if named:
        detail += ": " + ", ".join(named[:8]) + (f" and {len(named) - 8} more" if len(named) > 8 else "")
    elif rows is not None:
        detail += ", read with one read-only SELECT (its SQL is under \"why this answer\")"
    return {**group, "detail": detail}


def tool_calls(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's tool calls (succeeded or not), each {tool, call_id, ok}."""
    return [{"tool": c["tool"], "call_id": c.get("call_id"), "ok": bool(c.get("ok"))} for c in chunks if "tool" in c]


def citations(result: ChatAnswer) -> dict[str, list[dict[str, Any]]]:
    """The `sources` and `tool_calls` fields of an answer."""
    return {"sources": grouped_sources(result.used_chunks), "tool_calls": tool_calls(result.retrieved_chunks_metadata)}


def answer_metadata(result: ChatAnswer) -> dict[str, Any]:
    """What the assistant's message stores besides its text (JSON the store accepts)."""
    return _jsonable({"mode": result.mode, **citations(result), "decision_explain": result.decision_explain})


def attach_to_last_answer(eng: Engine, thread_id: str, metadata: dict[str, Any]) -> None:
    """Store `metadata` on the thread's newest message when it is the assistant's (the agent
    logs its own messages; the caller holds the engine lock, so no other turn came between)."""
    last = eng.store.list_thread_messages(thread_id, last_n=1)
    if last and last[0].role == "assistant":
        eng.store.update("message", last[0].id, metadata=metadata)


def thread_payload(thread_id: str, messages: list[MessageRecord]) -> dict[str, Any]:
    """GET /threads/{id}: every message; an assistant's with its mode, sources, tool calls and
    decision_explain (None for a message stored before answers kept them)."""
    out = []
    for m in messages:
        item: dict[str, Any] = {"role": m.role, "content": m.content, "created_at": m.created_at}
        if m.role == "assistant":
            meta = m.metadata or {}
            item.update({key: meta.get(key) for key in ANSWER_KEYS})
        out.append(item)
    return {"thread_id": thread_id, "messages": out}


def _jsonable(value: Any) -> Any:
    """Plain JSON: tuples as lists, non-finite floats as None (the store refuses NaN), other
    objects as their text."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if hasattr(value, "item"):  # a numpy scalar
        return _jsonable(value.item())
    return str(value)

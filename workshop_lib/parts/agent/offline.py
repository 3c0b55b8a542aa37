"""A deterministic stand-in for a chat model, for running Part 6 with no API key.

It implements the client interface the workshop's LLM wrapper calls
(`client.chat.completions.create(messages=..., tools=...)`) and plays a planner: from the
question it picks tool calls, and it writes the answer ONLY from what the context and the
tool results say. It knows no facts of its own; in particular it converts UNIT_VALUE_CENTS
to dollars only when a correction memory (in the context or returned by search_knowledge)
says the column is in cents. Every notebook cell that uses it says so.
"""
from __future__ import annotations

import json
import re
from typing import Any

from workshop_lib.core.llm import LLM, fake_response
from workshop_lib.engines.embedded.sql import AGENT_QUERIES

MODEL_NAME = "offline-planner (no LLM: plans tool calls by rules, answers only from tool results)"
CORRECTIONS_HEADER = "Corrections the user asked you to remember"


def offline_llm() -> LLM:
    return LLM(OfflineClient(), MODEL_NAME)


class OfflineClient:
    def __init__(self) -> None:
        from types import SimpleNamespace

        self.requests: list[dict] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        messages = kwargs["messages"]
        question = next((m["content"] for m in messages if m["role"] == "user"), "")
        done = _tool_results(messages)
        step = _next_call(question, done) if kwargs.get("tools") else None
        if step is not None:
            name, args = step
            return fake_response(None, [(name, json.dumps(args), f"call_{len(self.requests)}_{name}")])
        return fake_response(_answer(question, done, _corrections(messages, done)))


_TRUNCATED = re.compile(r"fetch_tool_output\('([^']+)'\) returns the rest\]$")


def _tool_results(messages: list[dict]) -> list[tuple[str, str]]:
    """(tool name, content) of every tool result so far, in order; a fetched full output
    replaces the preview it completes."""
    names = {}
    out: list[tuple[str, str]] = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
        if m["role"] == "tool":
            name = names.get(m.get("tool_call_id"), "?")
            if name == "fetch_tool_output" and out and _TRUNCATED.search(out[-1][1]):
                out[-1] = (out[-1][0], m["content"])
            else:
                out.append((name, m["content"]))
    return out


def _voyage(question: str) -> int | None:
    found = re.search(r"\bvoyage\s+(?:id\s+)?(\d{3,6})\b", question, re.I)
    return int(found.group(1)) if found else None


def _subject(question: str) -> str:
    found = re.search(r"\b([A-Za-z_]+)\.([A-Za-z_]+)\b", question)
    return f"SUPPLYCHAIN.{found.group(1).upper()}.{found.group(2).upper()}" if found else ""


def _plan(question: str) -> list[tuple[str, dict]]:
    q = question.lower()
    if "remember" in q:
        text = re.sub(r"^\s*(please\s+)?remember( that)?[:,]?\s*", "", question, flags=re.I)
        text = re.sub(r"[.\s]*please remember( that)?( it| this)?\.?\s*$", "", text, flags=re.I) or question
        return [("remember", {"text": text.strip(), "subject": _subject(question)})]
    if "voyage" in q and "carrier" in q:
        return [("run_sql", {"sql": AGENT_QUERIES["active_voyages_per_carrier"]})]
    if "value" in q and _voyage(question) is not None:
        return [("search_knowledge", {"query": question, "k": 5}),
                ("run_sql", {"sql": AGENT_QUERIES["declared_value_of_voyage"].format(voyage_id=_voyage(question))})]
    if "schema" in q or "what is in" in q:
        return [("search_knowledge", {"query": "Table SUPPLYCHAIN documented purpose", "k": 20})]
    return [("search_knowledge", {"query": question, "k": 3})]


def _next_call(question: str, done: list[tuple[str, str]]) -> tuple[str, dict] | None:
    if done and (truncated := _TRUNCATED.search(done[-1][1])):
        # Only a preview came back: the full output is stored, one call away.
        return "fetch_tool_output", {"call_id": truncated.group(1)}
    plan = _plan(question)
    return plan[len(done)] if len(done) < len(plan) else None


def _corrections(messages: list[dict], done: list[tuple[str, str]]) -> list[str]:
    found = []
    system = next((m["content"] for m in messages if m["role"] == "system"), "") or ""
    if CORRECTIONS_HEADER in system:
        block = system.split(CORRECTIONS_HEADER, 1)[1].split("\n\n", 1)[0]
        found += [ln[2:].strip() for ln in block.splitlines() if ln.startswith("- ")]
    for name, content in done:
        if name == "search_knowledge":
            try:
                found += [h["content"] for h in json.loads(content) if h.get("kind") == "correction"]
            except (ValueError, TypeError, AttributeError):
                continue
    return found


def _rows(content: str) -> list[list[str]]:
    lines = [ln for ln in content.splitlines() if ln and not ln.startswith("...")]
    return [ln.split(" | ") for ln in lines[1:]]


def _answer(question: str, done: list[tuple[str, str]], corrections: list[str]) -> str:
    if not done:
        return "I have not looked anything up, so I cannot answer that from the workshop's data."
    failed = [c for _, c in done if c.startswith('{"error"')]
    if failed:
        return "A tool call failed, so I cannot answer reliably: " + json.loads(failed[-1])["error"]
    name, content = done[-1]
    if name == "remember":
        return f"Noted. I stored this as a correction ({json.loads(content)['stored']}) and will use it from now on."
    if name == "run_sql" and "ACTIVE_VOYAGES" in content.splitlines()[0]:
        rows = _rows(content)
        return "Active voyages per carrier: " + "; ".join(f"{r[0]} {r[1]}" for r in rows) + f" ({len(rows)} carriers)."
    if name == "run_sql" and "TOTAL_UNIT_VALUE_CENTS" in content:
        rows = _rows(content)
        if not rows:
            return "That voyage has no cargo lines."
        number, total = rows[0][0], float(rows[0][1])
        in_cents = any("unit_value_cents" in c.lower() and "cent" in c.lower() for c in corrections)
        if in_cents:
            return (f"The declared value of the cargo on voyage {number} is ${total / 100:,.2f}: the sum of "
                    f"QUANTITY x UNIT_VALUE_CENTS is {total:,.0f}, and a correction you gave me says "
                    "UNIT_VALUE_CENTS is in US cents, so I divided by 100.")
        return (f"The sum of QUANTITY x UNIT_VALUE_CENTS for voyage {number} is {total:,.0f}. I have no note on "
                "the unit of UNIT_VALUE_CENTS, so that is the raw figure.")
    if name == "search_knowledge":
        try:
            hits = json.loads(content)
        except ValueError:
            return "From the schema knowledge (partial): " + content[:300]
        tables = [h["subject"] for h in hits if h["kind"] == "table"]
        if "schema" in question.lower() and tables:
            return "The SUPPLYCHAIN schema holds these tables, among others: " + ", ".join(tables) + "."
        return "From the schema knowledge: " + " | ".join(f"{h['subject']}: {h['content'][:160]}" for h in hits[:3])
    return content[:500]

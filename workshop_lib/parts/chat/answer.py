"""How the chat service answers one question, and the record of how it did.

Catalog, availability and port questions go to Part 5's grounded handlers (answers
rendered from rows); everything else to Part 4's answer modes over the knowledge
memories and, once Part 7 promoted a document index, the documents its alias reads; with
`agent` set, Part 6's agent answers with its tools. Either way the result carries the
mode (rag / hybrid / fallback) and a `decision_explain` that says why.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from workshop_lib.core.arguments import check_query
from workshop_lib.parts import gates, grounded

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

# Intents whose answer is rendered from database rows by Part 5's handlers.
GROUNDED_INTENTS = ("EQUIPMENT_RAG", "EQUIPMENT_AVAILABILITY", "PORT_LOCATION")


@dataclass
class ChatAnswer:
    answer: str
    mode: str                                   # rag | hybrid | fallback
    decision_explain: dict[str, Any]
    retrieved_chunks_metadata: list[dict[str, Any]]
    used_chunks: list[dict[str, Any]]
    sources_used: str                           # all | partial | none
    embedding_cache_hit: bool | None
    from_cache: bool
    used_llm: str = "none"
    short_query_active: bool = False
    route: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        data = asdict(self)
        for private in ("used_llm", "short_query_active", "route"):
            data.pop(private)
        return data


def route_of(question: str) -> grounded.Route:
    """The routing decision alone (rules: the routing contract of Part 5), for progress events."""
    return grounded.classify_rules(question)


def answer_question(eng: Engine, question: str, *, llm=None) -> ChatAnswer:
    route = route_of(question)
    if route.intent in GROUNDED_INTENTS:
        return _grounded(eng, question, route, llm)
    return _knowledge(eng, question, route, llm)


def _grounded(eng: Engine, question: str, route: grounded.Route, llm) -> ChatAnswer:
    g = grounded.ask(eng, question, llm=llm)
    # Rows found: rag (the answer is the rows). No row above the threshold: an honest fallback.
    found = g.grounded and (bool(g.item_ids) or g.intent == "PORT_LOCATION")
    mode = "rag" if found else "fallback"
    rows = [{"item_id": i, "used": found} for i in g.item_ids]
    explain: dict[str, Any] = {"mode": mode, "handler": "grounded (Part 5)", "intent": g.intent, "route_method": g.route_method,
               "reason": g.selection_status, "rows": g.item_ids, "ports": g.ports, "used_llm": "none" if llm is None
               else "primary", "short_query_active": False}
    return ChatAnswer(g.text, mode, explain, rows, rows if found else [], "all" if found else "none",
                      g.embedding_cache_hit, g.from_cache, explain["used_llm"], False,
                      {"intent": g.intent, "method": g.route_method})


_RANK = {"fallback": 0, "hybrid": 1, "rag": 2}


def _knowledge(eng: Engine, question: str, route: grounded.Route, llm) -> ChatAnswer:
    """Part 4's modes over the knowledge memories and, once Part 7 promoted a document index,
    over the documents the alias DOCS reads; the better-grounded of the two answers.

    The question is embedded once for both. The model writes only the answer that is used:
    it can only lower a mode (a blank answer is a fallback), so documents that beat the
    memories' decision without the model also beat it with the model."""
    vector = eng.embed([check_query(question)])[0]
    turn = gates.retrieve_turn(eng, question, min_score=0.0, vector=vector)
    config = gates.ModeConfig.for_engine(eng)
    docs = _documents(eng, question, vector)
    memory_best = max(turn.similarities, default=0.0)

    def documents_win(memory_mode: str) -> bool:
        return (docs is not None and docs.mode != "fallback"
                and (_RANK[docs.mode], _best(docs)) > (_RANK[memory_mode], memory_best))

    a = gates.answer_turn(turn, config)
    if llm is not None and not documents_win(a.mode):
        a = gates.answer_turn(turn, config, llm=llm)
    if documents_win(a.mode):
        return _from_documents(docs, route, llm, compared={"memories": a.mode, "documents": docs.mode})
    d = a.decision
    explain = {**d.decision_explain, "handler": "knowledge memories (Part 4)", "intent": route.intent}
    if docs is not None:
        explain["compared"] = {"memories": a.mode, "documents": docs.mode, "document_index": docs.table}
    used = [{k: c.get(k) for k in ("record_id", "subject", "kind", "similarity")} for c in d.used_chunks]
    return ChatAnswer(a.text, a.mode, explain, d.retrieved_chunks_metadata, used, d.sources_used, None, False,
                      d.used_llm, bool(d.decision_explain.get("short_query_active")),
                      {"intent": route.intent, "method": route.method})


def _documents(eng: Engine, question: str, vector):
    """Part 7's answer over the active document index, or None when none is promoted."""
    from workshop_lib.parts.ingest import ask, index

    try:
        return ask.ask(eng, question, vector=vector)
    except index.NoActiveIndex:
        return None


def _best(docs) -> float:
    return max((h["similarity"] for h in docs.hits), default=0.0)


def _from_documents(docs, route: grounded.Route, llm, compared: dict) -> ChatAnswer:
    from workshop_lib.parts.ingest import ask

    d = docs.decision
    text = ask.render(docs)
    used_llm = "none"
    if llm is not None:
        try:
            text = llm.answer_from_context(docs.question, [c["text"] for c in d.used_chunks]) or text
            used_llm = "primary"
        except Exception:  # noqa: BLE001 - any model failure means the deterministic text answers
            pass
    explain = {**d.decision_explain, "handler": "documents (Part 7)", "document_index": docs.table,
               "intent": route.intent, "compared": compared, "used_llm": used_llm}
    used = [{k: c.get(k) for k in ("record_id", "subject", "similarity")} for c in d.used_chunks]
    return ChatAnswer(text, d.mode, explain, d.retrieved_chunks_metadata, used, d.sources_used, None, False, used_llm,
                      bool(d.decision_explain.get("short_query_active")), {"intent": route.intent, "method": route.method})


def agent_answer(eng: Engine, question: str, thread_id: str, *, llm=None) -> ChatAnswer:
    """Part 6's agent: one turn with its tools and memory (it logs the thread messages itself).

    Mode: rag when its answer came from tool results, hybrid when it had to be forced after
    the iteration cap or budget, fallback when no tool call succeeded."""
    from workshop_lib.parts.agent import loop, memory, offline, toolbox

    model = llm or offline.offline_llm()
    card = memory.context_card(eng, thread_id, question)
    turn = loop.agent_turn(eng, model, toolbox.build_registry(eng, thread_id=thread_id), thread_id, question,
                           context=card.text())
    succeeded = [r for r in turn.tool_results if r.ok]
    mode = "fallback" if not succeeded else ("hybrid" if turn.forced else "rag")
    calls = [{"tool": r.name, "call_id": r.call_id, "ok": r.ok} for r in turn.tool_results]
    explain = {"mode": mode, "handler": "agent (Part 6)", "model": model.model, "tool_calls": calls,
               "model_calls": turn.model_calls, "stopped": turn.stopped, "forced_answer": turn.forced,
               "context_tokens": card.tokens, "corrections_in_context": len(card.corrections)}
    return ChatAnswer(answer=turn.answer, mode=mode, decision_explain=explain, retrieved_chunks_metadata=calls,
                      used_chunks=[c for c in calls if c["ok"]], sources_used="all" if succeeded else "none",
                      embedding_cache_hit=None, from_cache=False, used_llm="primary" if llm else "none",
                      route={"intent": "AGENT", "method": "request flag"})

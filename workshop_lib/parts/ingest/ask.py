"""Retrieval over the document alias, decided with Part 4's answer modes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workshop_lib.engines.hits import Hit
from workshop_lib.parts import gates
from workshop_lib.parts.ingest import index

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine


@dataclass(frozen=True)
class DocumentAnswer:
    question: str
    table: str                # the table the alias pointed to when the question was asked
    hits: list[Hit]
    decision: gates.ModeDecision

    @property
    def mode(self) -> str:
        return self.decision.mode


def ask(eng: Engine, question: str, *, k: int = 3, config: gates.ModeConfig | None = None,
        vector=None) -> DocumentAnswer:
    """The k chunks nearest the question through the alias DOCS, and Part 4's decision on them
    (rag / hybrid / fallback, with the engine's calibrated thresholds unless `config` is given).
    `vector`: the question's embedding, when the caller already has it. Raises
    index.NoActiveIndex when nothing is promoted."""
    hits = index.search(eng, question, k, vector=vector)
    table = index.alias_target(eng) or ""
    chunks = [{"record_id": f"{h['doc_id']}#{h['chunk_no']}", "subject": h["doc_id"], "text": h["text"]} for h in hits]
    decision = gates.decide_mode([h["similarity"] for h in hits], chunks, config=config or gates.ModeConfig.for_engine(eng),
                                 query_tokens=eng.model.count_tokens(question), query=question)
    return DocumentAnswer(question, table, hits, decision)


def render(answer: DocumentAnswer) -> str:
    """An answer written from the chunks the decision used (no model), or an honest fallback."""
    decision = answer.decision
    if decision.mode == "fallback":
        return (f"The documents do not answer \u201c{' '.join(answer.question.split())}\u201d closely enough "
                "to rely on.")
    lead = "From the documents:" if decision.mode == "rag" else "These document passages partly match the question:"
    return "\n".join([lead] + [f"- [{c.get('subject')}, similarity {c['similarity']:.2f}] {c['text']}"
                                for c in decision.used_chunks])

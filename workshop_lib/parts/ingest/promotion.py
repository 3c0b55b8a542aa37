"""Golden queries decide whether a new index may replace the active one.

evaluate() runs each golden question against one table and counts a hit when the
expected document is among the top k chunks (recall@k, the same definition as Part 3's
evaluation). should_promote() is the gate (Part 8's second TODO; this is the reference).
promote() evaluates the candidate and the active table with the same questions and k,
asks the gate, and moves the alias only when it says yes; rollback() moves it back.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workshop_lib.errors import WorkshopError
from workshop_lib.parts import evaluation
from workshop_lib.parts.ingest import corpus, index

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine


@dataclass(frozen=True)
class GoldenReport:
    table: str
    k: int
    n: int                 # golden questions asked
    hits: int              # questions whose document was in the top k
    misses: tuple = field(default_factory=tuple)   # (question, expected doc_id, top doc_ids)

    @property
    def recall(self) -> float:
        return self.hits / self.n if self.n else 0.0


@dataclass(frozen=True)
class PromotionDecision:
    promote: bool
    reason: str


def evaluate(eng: Engine, table: str, golden: list[corpus.GoldenQuery], k: int, *,
             vectors: list | None = None) -> GoldenReport:
    """recall@k of `table` on the golden questions; `vectors` are their embeddings when the
    caller evaluates several tables (each question is embedded once, not once per table)."""
    vectors = eng.model.embed([q.question for q in golden]) if vectors is None and golden else vectors
    hits, misses = 0, []
    for q, vector in zip(golden, vectors or []):
        found = [hit["doc_id"] for hit in index.search(eng, q.question, k, table=table, vector=vector)]
        if evaluation.found_at(evaluation.first_rank(found, {q.doc_id}), k):
            hits += 1
        else:
            misses.append((q.question, q.doc_id, tuple(found)))
    return GoldenReport(table, k, len(golden), hits, tuple(misses))


def should_promote(candidate: GoldenReport, active: GoldenReport | None, min_recall: float) -> PromotionDecision:
    """Promote only a candidate that answered golden questions, reaches the bar, and is not
    worse than the active index (equal is fine: a re-chunking that keeps recall may ship)."""
    if candidate.n == 0:
        return PromotionDecision(False, f"{candidate.table}: no golden queries were run, so its recall is unknown")
    if candidate.recall < min_recall:
        return PromotionDecision(False, f"{candidate.table}: recall@{candidate.k} {candidate.recall:.2f} is below the bar "
                               f"{min_recall:.2f}")
    if active is not None and candidate.recall < active.recall:
        return PromotionDecision(False, f"{candidate.table}: recall@{candidate.k} {candidate.recall:.2f} is worse than the "
                               f"active {active.table}'s {active.recall:.2f}")
    return PromotionDecision(True, f"{candidate.table}: recall@{candidate.k} {candidate.recall:.2f} reaches the bar "
                          f"{min_recall:.2f}" + (f" and the active {active.table}'s {active.recall:.2f}" if active else ""))


@dataclass(frozen=True)
class Promotion:
    decision: PromotionDecision
    candidate: GoldenReport | None
    active: GoldenReport | None
    alias: index.AliasState


class PromotionRefused(WorkshopError, RuntimeError):
    """The table cannot be considered at all (missing or incomplete); the gate was not asked."""


def promote(eng: Engine, profile: corpus.Profile, *, golden: list[corpus.GoldenQuery] | None = None,
            gate: Callable[[GoldenReport, GoldenReport | None, float], PromotionDecision] = should_promote) -> Promotion:
    """Evaluate the profile's table and the active one on the golden queries; move the alias
    to the new table when the gate says so. A refusal is logged and changes nothing."""
    golden = corpus.load_golden() if golden is None else golden
    table = profile.table
    found = index.info(eng, table)
    if found is None:
        raise PromotionRefused(f"{table} does not exist: run `workshop ingest MANIFEST --profile {profile.name}` first")
    if found.status != "complete":
        raise PromotionRefused(f"{table} is not complete (an ingest stopped before the end): run the same "
                               f"`workshop ingest ... --profile {profile.name}` again to finish it, then promote")
    index.repair_alias(eng)  # a switch that stopped between its bookkeeping and its DDL
    state = index.alias_state(eng)
    vectors = eng.model.embed([q.question for q in golden]) if golden else []
    candidate = evaluate(eng, table, golden, profile.k, vectors=vectors)
    active = None
    if state.target and state.target != table and state.target_complete:
        active = evaluate(eng, state.target, golden, profile.k, vectors=vectors)
    decision = gate(candidate, active, profile.min_recall)
    if not isinstance(decision, PromotionDecision):
        raise TypeError(f"the gate must return a PromotionDecision(promote, reason), got {type(decision).__name__}")
    detail = {"reason": decision.reason, "recall": round(candidate.recall, 4), "k": profile.k,
              "active": active.table if active else None, "active_recall": round(active.recall, 4) if active else None}
    if decision.promote and state.target != table:
        index.set_alias(eng, table, previous=state.target, action="promote", detail=detail)
    elif not decision.promote:
        index.log_refusal(eng, table, detail)
    return Promotion(decision, candidate, active, index.alias_state(eng))


def rollback(eng: Engine) -> index.AliasState:
    """Point the alias back at the table it read before the last promotion (a second rollback
    goes forward again). Refused when there is no previous table or it is not complete."""
    index.repair_alias(eng)
    state = index.alias_state(eng)
    if state.previous is None:
        raise PromotionRefused("there is nothing to roll back to: the alias has had only one table "
                               f"({state.target or 'none yet'})")
    previous = index.info(eng, state.previous)
    if previous is None or previous.status != "complete" or state.previous not in eng.backend.object_names():
        raise PromotionRefused(f"cannot roll back to {state.previous}: it is missing or not complete")
    index.set_alias(eng, state.previous, previous=state.target, action="rollback",
                    detail={"reason": f"rolled back from {state.target}"})
    return index.alias_state(eng)

"""The write path, step 2: consolidate a candidate against its nearest memories.

`decide` is the reference for the Part's first TODO. Given a candidate and its nearest
memories in the same user+agent scope (each with its cosine similarity), it returns one of:

- FORGET    the user asked to forget: every neighbour of the same subject, or similar enough
            (>= memory_forget), is marked forgotten; nothing matches -> SKIP;
- SKIP      the same statement is already stored (same subject and value, or, without a
            subject, similarity >= memory_duplicate);
- SUPERSEDE the same subject with a different value: the new memory replaces the old one,
            which is marked superseded with a link to it (the later statement wins);
- UPDATE    the same fact refined: the new value contains every word of the old one and more
            ("Rotterdam" -> "Rotterdam, Maasvlakte II"); the old memory's text is replaced in place
            (without a subject: similarity >= memory_duplicate and the new text contains the old);
- ADD       nothing close: a new memory.

Only neighbours of the candidate's record type count (a preference never replaces a fact).
The similarity thresholds depend on the embedding model, so they are set per engine in
config.MEMORY_THRESHOLDS and measured by `calibrate` (as Part 4 does for its gates).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from workshop_lib.parts.memory.extract import Candidate, normalise

Action = Literal["ADD", "UPDATE", "SUPERSEDE", "SKIP", "FORGET"]
ACTIONS: tuple[Action, ...] = get_args(Action)
# Part 7's thresholds stay a plain dict (memory_duplicate, memory_forget): the learner's TODO reads
# thresholds["memory_duplicate"], and config.MEMORY_THRESHOLDS is that dict per engine.
MemoryThresholds = dict[str, float]


def as_action(value: object) -> Action:
    """`value` as one of ACTIONS, or a ValueError naming them (a learner's tuple is read this way)."""
    for action in ACTIONS:
        if isinstance(value, str) and value == action:
            return action
    raise ValueError(f"a consolidation action is one of {ACTIONS}, not {value!r}")


@dataclass(frozen=True)
class Neighbour:
    """A stored memory near the candidate: id, type, text, subject, value and similarity (1 - distance)."""

    id: str
    record_type: str
    text: str
    subject: str
    value: str
    similarity: float


@dataclass(frozen=True)
class Decision:
    action: Action
    targets: tuple[str, ...] = ()   # ids the action applies to (UPDATE/SUPERSEDE: one; FORGET: one or more)
    reason: str = ""


def refines(longer: str, shorter: str) -> bool:
    """True when `longer` has every word of `shorter` and more (a refinement, not a contradiction)."""
    a, b = normalise(longer).split(), normalise(shorter).split()
    return bool(b) and len(a) > len(b) and all(w in a for w in b)


def same_topic(a: str, b: str) -> bool:
    """Two subjects name the same thing: every word of one is in the other ("port" / "home port")."""
    wa, wb = set(normalise(a).split()), set(normalise(b).split())
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def decide(candidate: Candidate, neighbours: list[Neighbour], thresholds: MemoryThresholds) -> Decision:
    """What to do with `candidate` given its scored neighbours (any order)."""
    subject = normalise(candidate.subject)
    ranked = sorted(neighbours, key=lambda n: -n.similarity)  # nearest first, stable for ties
    if candidate.op == "forget":
        return _forget(ranked, subject, thresholds)
    same_type = [n for n in ranked if n.record_type == candidate.record_type]
    if subject:
        same_subject = [n for n in same_type if normalise(n.subject) == subject]
        if same_subject:
            return _on_same_subject(candidate, same_subject[0])
    if same_type and same_type[0].similarity >= thresholds["memory_duplicate"]:
        best = same_type[0]
        if refines(candidate.text, best.text):
            return Decision("UPDATE", (best.id,), "the same statement with more detail")
        return Decision("SKIP", (best.id,), f"duplicate (similarity {best.similarity:.2f})")
    return Decision("ADD", (), "nothing close stored")


def _forget(ranked: list[Neighbour], subject: str, thresholds: MemoryThresholds) -> Decision:
    """Forget matches by subject or by meaning, across record types: "forget my home port" must
    reach the fact however it was typed."""
    hits = [n for n in ranked if same_topic(n.subject, subject) or n.similarity >= thresholds["memory_forget"]]
    if not hits:
        return Decision("SKIP", (), "nothing stored matches what to forget")
    return Decision("FORGET", tuple(n.id for n in hits), f"{len(hits)} memory(ies) match")


def _on_same_subject(candidate: Candidate, old: Neighbour) -> Decision:
    """A memory of the same type on the same subject is stored: the same value is skipped, a more
    detailed one updates it, another supersedes it."""
    if normalise(candidate.value) == normalise(old.value):
        return Decision("SKIP", (old.id,), f"same {candidate.subject} already stored")
    if refines(candidate.value, old.value):
        return Decision("UPDATE", (old.id,), f"refines the stored {candidate.subject}")
    return Decision("SUPERSEDE", (old.id,), f"new value for {candidate.subject}")

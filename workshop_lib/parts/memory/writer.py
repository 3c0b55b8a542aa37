"""The write path: after each user turn, extract, consolidate and apply; fold old messages.

`observe_user_turn` runs extraction (rules, or a model whose output is validated), finds each
candidate's nearest memories in the same user+agent scope, asks `consolidate.decide` what to
do and does it: ADD a memory, UPDATE it in place, SUPERSEDE (a new memory, the old one marked
superseded with a link), SKIP, or FORGET (marked forgotten). `fold_thread` keeps a thread's
raw messages under a token budget by folding the oldest into the running summary record.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workshop_lib import config
from workshop_lib.core.records import MEMORY_TYPES, RecordDraft
from workshop_lib.parts.memory import extract, summary
from workshop_lib.parts.memory.consolidate import Decision, MemoryThresholds, Neighbour, as_action
from workshop_lib.parts.memory.consolidate import decide as reference_decide

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

NEIGHBOURS = 5
CONVERSATION = "conversation"
USER_FACT = "user_fact"


@dataclass
class Applied:
    candidate: extract.Candidate
    decision: Decision
    stored_id: str | None = None   # the memory written (ADD, SUPERSEDE, UPDATE)


def thresholds(eng: Engine) -> MemoryThresholds:
    return config.memory_thresholds(eng.name)


def neighbours(eng: Engine, cand: extract.Candidate, *, user_id: str, agent_id: str) -> list[Neighbour]:
    """The nearest live memories the user stated (source "conversation") in this user and agent scope,
    of the candidate's record type (every memory type for a forget)."""
    types = sorted(MEMORY_TYPES) if cand.op == "forget" else [cand.record_type]
    out = []
    for record_type in types:
        for rec, distance in eng.store.search(cand.text, k=NEIGHBOURS, user_id=user_id, agent_id=agent_id,
                                              exact_user_match=True, exact_agent_match=True,
                                              record_types={record_type}):
            meta = rec.metadata or {}
            if meta.get("source") != CONVERSATION:
                continue  # only what the user said: never schema knowledge, tool outputs or summaries
            if meta.get("kind") in ("tool_output", summary.SUMMARY_KIND):
                continue
            out.append(Neighbour(rec.id, rec.record_type, rec.content or "", str(meta.get("subject", "")).lower(),
                                 str(meta.get("value", "")), 1.0 - float(distance)))
    return out


def _metadata(cand: extract.Candidate, thread_id: str | None) -> dict:
    meta = {"kind": cand.kind or (USER_FACT if cand.record_type == "fact" else cand.record_type),
            "source": CONVERSATION, "subject": cand.subject, "value": cand.value, "cue": cand.cue}
    if thread_id:
        meta["thread_id"] = thread_id
    return meta


def apply(eng: Engine, cand: extract.Candidate, decision: Decision, *, user_id: str, agent_id: str,
          thread_id: str | None = None) -> Applied:
    store, done = eng.store, Applied(cand, decision)
    why = f"the user said: {cand.text[:200]}"
    if decision.action == "ADD":
        done.stored_id = store.add_records([RecordDraft(cand.text, metadata=_metadata(cand, thread_id), user_id=user_id,
                                                        agent_id=agent_id)], cand.record_type)[0]
    elif decision.action == "UPDATE":
        (target,) = decision.targets
        store.update(cand.record_type, target, text=cand.text, metadata=_metadata(cand, thread_id))
        done.stored_id = target
    elif decision.action == "SUPERSEDE":
        (target,) = decision.targets
        done.stored_id = store.add_records([RecordDraft(cand.text, metadata=_metadata(cand, thread_id), user_id=user_id,
                                                        agent_id=agent_id)], cand.record_type)[0]
        store.set_status(cand.record_type, target, "superseded", by=user_id, reason=why, replaced_by=done.stored_id)
    elif decision.action == "FORGET":
        gone = []
        for target in decision.targets:
            for record_type in sorted(MEMORY_TYPES):
                rec = store.get(record_type, target)
                if rec is not None and store.set_status(record_type, target, "forgotten", by=user_id, reason=why):
                    gone.append(str((rec.metadata or {}).get("value") or rec.content or ""))
                    break
        scrub_summaries(eng, user_id, gone)
    return done


def scrub_summaries(eng: Engine, user_id: str, values: list[str]) -> None:
    """A forgotten memory must not live on in a thread summary: drop the summary lines that state it."""
    values = [extract.normalise(v) for v in values if extract.normalise(v)]
    if not values:
        return
    for rec in eng.store.list("memory", limit=None, user_id=user_id, agent_id=None,
                              metadata_filter={"kind": summary.SUMMARY_KIND}):
        lines = (rec.content or "").splitlines()
        kept = [ln for ln in lines if not any(v in extract.normalise(ln) for v in values)]
        if len(kept) != len(lines):
            eng.store.update("memory", rec.id, text="\n".join(kept) or "(nothing to keep)", index_text="")


def _last_subject(eng: Engine, user_id: str, agent_id: str, thread_id: str | None) -> str:
    facts = eng.store.list("fact", limit=None, user_id=user_id, agent_id=agent_id,
                           metadata_filter={"thread_id": thread_id} if thread_id else None)
    return str((facts[-1].metadata or {}).get("subject", "")) if facts else ""


def as_decision(got: Any) -> Decision:
    """A `decide` result as a Decision: a learner's (action, targets[, reason]) tuple is read the same way."""
    if isinstance(got, Decision):
        return got
    action, targets, *rest = got
    return Decision(as_action(action), tuple(targets), str(rest[0]) if rest else "")


def as_compaction(got: Any) -> summary.Compaction:
    """A `compact` result as a Compaction: a learner's (fold, keep) pair is read the same way."""
    if isinstance(got, summary.Compaction):
        return got
    fold, keep = got
    return summary.Compaction(fold=list(fold), keep=list(keep))


def observe_user_turn(eng: Engine, text: str, *, user_id: str, agent_id: str, thread_id: str | None = None,
                      llm=None, skip_kinds: tuple[str, ...] = (), kept_elsewhere: frozenset[str] = frozenset(),
                      decide: Callable[..., Any] = reference_decide) -> list[Applied]:
    """Extract, consolidate and apply what one user turn says; returns what was done, in order.

    `decide` is the consolidation rule (Part 7's TODO 1); the library's reference by default.
    `kept_elsewhere`: sentences another writer already keeps as memories (the chat service's
    personal memories): a fact candidate with that text is not stored a second time."""
    last = _last_subject(eng, user_id, agent_id, thread_id)
    if llm is not None:
        cands, _how = extract.extract_with_model(llm, text, last_subject=last)
    else:
        cands = extract.extract_offline(text, last_subject=last)
    done = []
    for cand in cands:
        if (cand.kind and cand.kind in skip_kinds) or (cand.op == "remember" and cand.record_type == "fact"
                                                        and cand.text.strip() in kept_elsewhere):
            continue
        decision = as_decision(decide(cand, neighbours(eng, cand, user_id=user_id, agent_id=agent_id), thresholds(eng)))
        done.append(apply(eng, cand, decision, user_id=user_id, agent_id=agent_id, thread_id=thread_id))
    return done


# ------------------------------------------------------------------ the running summary
def summary_id(thread_id: str) -> str:
    return f"summary:{thread_id}"


def read_summary(eng: Engine, thread_id: str) -> tuple[str, int]:
    """(summary text, how many of the thread's messages it covers)."""
    rec = eng.store.get("memory", summary_id(thread_id))
    if rec is None:
        return "", 0
    return rec.content or "", int((rec.metadata or {}).get("upto", 0))


def fold_thread(eng: Engine, thread_id: str, *, user_id: str, message_budget: int, summary_budget: int,
                llm=None, compact: Callable[..., Any] = summary.compact) -> summary.Compaction:
    """Fold the oldest unsummarised messages into the summary until the rest fit message_budget.

    `compact` is the split (Part 7's TODO 2); the library's reference by default."""
    text, upto = read_summary(eng, thread_id)
    messages = eng.store.list_thread_messages(thread_id)
    if any(m.user_id not in (user_id, None) for m in messages):
        raise ValueError(f"thread {thread_id!r} belongs to another user; {user_id!r} cannot fold it")
    messages = messages[upto:]
    turns = [summary.Turn(m.role, m.content or "") for m in messages]
    comp = as_compaction(compact(turns, message_budget, eng.model.count_tokens))
    if not comp.fold:
        return comp
    if llm is not None:
        new = summary.summarise_with_model(llm, text, comp.fold, summary_budget, eng.model.count_tokens)
    else:
        new = summary.summarise_extractive(text, comp.fold, summary_budget, eng.model.count_tokens)
    meta = {"kind": summary.SUMMARY_KIND, "thread_id": thread_id, "upto": upto + len(comp.fold)}
    rid = summary_id(thread_id)
    # Scoped to the thread and its user, not to the agent: retrieval (which reads the agent's
    # knowledge) never returns a summary, and it has no vector. Erasing the user removes it.
    if eng.store.get("memory", rid) is None:
        eng.store.add([new or "(nothing to keep)"], record_ids=rid, metadata=meta, thread_ids=thread_id,
                      user_ids=user_id, agent_ids=None, index_texts="")
    else:
        eng.store.update("memory", rid, text=new or "(nothing to keep)", index_text="", metadata=meta)
    return comp

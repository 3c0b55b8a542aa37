"""Hard-stop checks for the memory-over-time Part: the consolidation decision and the compaction step.

Each check runs the learner's function on named cases first, in an order where each case
is the first to catch one typical mistake (so the message names it: a neighbour of another
record type, the first neighbour instead of the nearest, a strict > at the threshold, a
forget that stops at one memory, folding the newest messages...), then on random cases
against the reference (workshop_lib.parts.memory).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workshop_lib.checks import CheckFailed, call_learner, checked_or_reference, describe_value, forget, passed
from workshop_lib.parts.memory.consolidate import ACTIONS, Neighbour
from workshop_lib.parts.memory.consolidate import decide as reference_decide
from workshop_lib.parts.memory.extract import Candidate
from workshop_lib.parts.memory.summary import Turn
from workshop_lib.parts.memory.summary import compact as reference_compact

TODO1 = "TODO 1 (decide)"
TODO2 = "TODO 2 (compact)"
THRESHOLDS = {"memory_duplicate": 0.65, "memory_forget": 0.52}


def _fact(text: str, subject: str = "", value: str = "", record_type: str = "fact", op: str = "remember") -> Candidate:
    return Candidate(record_type, text, subject, value, op=op)


def _n(i: int, subject: str, value: str, sim: float, record_type: str = "fact", text: str = "") -> Neighbour:
    return Neighbour(f"m{i}", record_type, text or (f"My {subject} is {value}." if subject else value), subject, value, sim)


@dataclass(frozen=True)
class Case:
    name: str
    candidate: Candidate
    neighbours: tuple
    why: str              # what a wrong answer here usually means


# Each case is the first to catch one mistake (the mistake tests check that order).
DECIDE_CASES = [
    Case("nothing stored yet", _fact("My home port is Oslo.", "home port", "Oslo"), (),
         "with no neighbours there is nothing to compare: ADD, with no targets."),
    Case("the same subject with another value", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "home port", "Bergen", 0.91),),
         "the user stated a new value for a subject already stored: SUPERSEDE the stored memory (the later "
         "statement wins), with its id as the target."),
    Case("the same subject and value said again", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "home port", "Oslo", 0.99),),
         "the same value is already stored for this subject: SKIP it (a duplicate), with the stored id as the target."),
    Case("a refinement of the stored value", _fact("My home port is Oslo, pier 3.", "home port", "Oslo, pier 3"),
         (_n(1, "home port", "Oslo", 0.93),),
         "the new value has every word of the old one and more: it refines the fact, so UPDATE the stored "
         "memory in place (use refines(new_value, old_value))."),
    Case("the same subject in another record type", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "home port", "Bergen", 0.95, "preference"),),
         "only neighbours of the candidate's own record type count (a preference never replaces a fact): "
         "filter on n.record_type == candidate.record_type."),
    Case("two stored versions, the nearest listed last", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "home port", "Bergen", 0.62), _n(2, "home port", "Molde", 0.88)),
         "neighbours come in any order: act on the NEAREST one (highest similarity), not on the first in the list."),
    Case("a subject written with other capitals and spaces", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "Home  Port", "Bergen", 0.9),),
         "compare subjects and values normalised (normalise(...): lower case, words only); 'Home  Port' is "
         "'home port'."),
    Case("no subject, similarity exactly at memory_duplicate", _fact("We ship reefers to Asia."),
         (_n(1, "", "We ship reefers to Asia weekly.", 0.65, text="We ship reefers to Asia weekly."),),
         "a similarity equal to memory_duplicate is a duplicate: compare with >=, not >. SKIP it."),
    Case("no subject, more detail than a near duplicate", _fact("We ship reefers to Asia every week by rail."),
         (_n(1, "", "We ship reefers to Asia.", 0.8, text="We ship reefers to Asia."),),
         "above memory_duplicate and the new text has every word of the stored one and more: UPDATE it."),
    Case("no subject, nothing close", _fact("We ship reefers to Asia."),
         (_n(1, "", "Our budget is 40000 cents.", 0.3, text="Our budget is 40000 cents."),),
         "below memory_duplicate the neighbour is another statement: ADD."),
    Case("forget two memories of one subject", _fact("home port", "home port", op="forget"),
         (_n(1, "home port", "Oslo", 0.4), _n(2, "port", "Bergen", 0.3), _n(3, "main carrier", "Maersk", 0.1)),
         "FORGET every matching memory (subject words contained in one another, or similarity >= "
         "memory_forget), nearest first, not only the best one."),
    Case("forget by meaning alone", _fact("the reefer thing", "reefer thing", op="forget"),
         (_n(1, "plug quote", "12500 cents", 0.58), _n(2, "home port", "Oslo", 0.2)),
         "a forget reaches a memory by similarity >= memory_forget (not memory_duplicate): FORGET it."),
    Case("forget with nothing that matches", _fact("the cat", "cat", op="forget"),
         (_n(1, "home port", "Oslo", 0.1),),
         "when nothing matches there is nothing to forget: SKIP with no targets (not FORGET with none)."),
    Case("forget across record types", _fact("currency", "currency", op="forget"),
         (_n(1, "currency unit", "dollars", 0.45, "preference"),),
         "a forget is not limited to one record type: the user may forget a preference too."),
]


def _as_decision(todo: str, what: str, got: Any) -> tuple[str, tuple]:
    action = getattr(got, "action", None)
    targets = getattr(got, "targets", None)
    if action is None and isinstance(got, (tuple, list)) and len(got) >= 2:
        action, targets = got[0], got[1]
    if action not in ACTIONS:
        raise CheckFailed(todo, f"{what} returned {describe_value(got)}; expected a Decision whose action is one "
                                f"of {ACTIONS}",
                          'return Decision("ADD", (), "why"), Decision("SUPERSEDE", (old.id,), "why")...')
    if not isinstance(targets, (tuple, list)) or not all(isinstance(t, str) for t in targets):
        raise CheckFailed(todo, f"{what} returned targets {describe_value(targets)}; targets are the ids (strings) "
                                "of the stored memories the action applies to",
                          "put n.id in the targets, not the Neighbour itself.")
    return action, tuple(targets)


def _decide(fn: Callable, cand: Candidate, neighbours: list, what: str) -> tuple[str, tuple]:
    given = list(neighbours)
    got = call_learner(TODO1, what, fn, cand, given, dict(THRESHOLDS))
    if given != list(neighbours):
        raise CheckFailed(TODO1, f"{what}: your function changed the neighbours list it was given",
                          "sort a copy: ranked = sorted(neighbours, key=...), never neighbours.sort().")
    return _as_decision(TODO1, what, got)


def _want(cand: Candidate, neighbours: list) -> tuple[str, tuple]:
    d = reference_decide(cand, list(neighbours), dict(THRESHOLDS))
    return d.action, d.targets


def _random_case(rng: random.Random) -> tuple[Candidate, list]:
    subjects = ["home port", "main carrier", "port", "budget", "", "Home Port"]
    values = ["Oslo", "Oslo pier 3", "Bergen", "Maersk", "40000 cents"]
    op = "forget" if rng.random() < 0.25 else "remember"
    subject = rng.choice(subjects)
    value = "" if op == "forget" else rng.choice(values)
    cand = Candidate(rng.choice(["fact", "preference"]), f"My {subject} is {value}.", subject, value, op=op)
    neighbours = [Neighbour(f"m{i}", rng.choice(["fact", "preference"]), f"My {s} is {v}.", s, v,
                            round(rng.choice([rng.random(), 0.65, 0.52]), 2))
                  for i, (s, v) in enumerate((rng.choice(subjects), rng.choice(values)) for _ in range(rng.randint(0, 4)))]
    return cand, neighbours


def check_decide(fn: Callable) -> None:
    """TODO 1: the consolidation decision, on the named cases, then 300 random ones against the reference."""
    forget(TODO1)
    for case in DECIDE_CASES:
        what = f"decide(<{case.name}>)"
        got, want = _decide(fn, case.candidate, list(case.neighbours), what), _want(case.candidate, list(case.neighbours))
        if got != want:
            raise CheckFailed(TODO1, f"case '{case.name}': expected {want[0]} {list(want[1])}, got {got[0]} "
                                     f"{list(got[1])}.", case.why)
    rng = random.Random(26)
    for _ in range(300):
        cand, neighbours = _random_case(rng)
        what = f"decide({cand}, {neighbours})"
        got, want = _decide(fn, cand, neighbours, what), _want(cand, neighbours)
        if got != want:
            raise CheckFailed(TODO1, f"on this input: {describe_value(cand, 200)} with neighbours "
                                     f"{describe_value(neighbours, 400)}\n  expected {want}, got {got}",
                              "go through the rules in the order the TODO lists them.")
    passed(TODO1, f"{len(DECIDE_CASES)} named cases and 300 random ones agree with the reference", fn=fn)


# ------------------------------------------------------------------ TODO 2
def _words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class CompactCase:
    name: str
    sizes: tuple           # words per message, oldest first
    budget: int
    why: str


COMPACT_CASES = [
    CompactCase("everything fits", (3, 2, 4), 10,
                "the messages fit the budget (9 <= 10): nothing folds; keep all of them, fold []."),
    CompactCase("a total exactly at the budget", (4, 4, 2, 2), 8,
                "a kept total equal to the budget fits: compare used + cost > budget to stop, not >=."),
    CompactCase("over budget", (5, 4, 3, 2, 1), 7,
                "keep the NEWEST messages that fit (3 + 2 + 1 = 6 tokens) and fold the older ones."),
    CompactCase("the newest message alone is over budget", (1, 2, 9), 5,
                "the newest message is always kept, even alone over the budget (the model must see the question): "
                "keep [the 9-token message], fold the rest."),
    CompactCase("a budget of zero", (2, 2), 0,
                "with a budget of 0 only the newest message stays; everything older folds."),
    CompactCase("a large message in the middle", (1, 1, 8, 1, 1), 4,
                "stop at the first (newest-to-oldest) message that does not fit: the kept messages are the newest "
                "unbroken run, not every small message that would still fit."),
]


def _turns(sizes) -> list:
    # Characters and tokens differ on purpose: each word is one token but several characters.
    return [Turn("user" if i % 2 == 0 else "assistant", " ".join(f"word{i}x{j}" for j in range(n)))
            for i, n in enumerate(sizes)]


def _compact(fn: Callable, msgs: list, budget: int, what: str):
    given = list(msgs)
    got = call_learner(TODO2, what, fn, given, budget, _words)
    if given != msgs:
        raise CheckFailed(TODO2, f"{what}: your function changed the list of messages it was given",
                          "build new lists (slices: messages[:cut], messages[cut:]); do not pop or remove.")
    fold, keep = (getattr(got, "fold", None), getattr(got, "keep", None))
    if fold is None and isinstance(got, (tuple, list)) and len(got) == 2:
        fold, keep = got
    if not isinstance(fold, list) or not isinstance(keep, list):
        raise CheckFailed(TODO2, f"{what} returned {describe_value(got)}; expected Compaction(fold=[...], keep=[...])",
                          "return summary.Compaction(fold=..., keep=...) with two lists of messages.")
    return fold, keep


def _explain(name: str, msgs: list, fold: list, keep: list, want_fold: list, want_keep: list, why: str) -> str:
    size = {id(m): _words(m.text) for m in msgs}
    show = lambda ms: [size.get(id(m), "?") for m in ms]  # noqa: E731
    head = (f"case '{name}' (tokens per message, oldest first: {show(msgs)}): expected fold {show(want_fold)} "
            f"keep {show(want_keep)}, got fold {show(fold)} keep {show(keep)}.")
    ids = [id(m) for m in msgs]
    if len(fold) + len(keep) != len(msgs) or sorted(map(id, fold + keep)) != sorted(ids):
        return head + " Messages went missing or were doubled: fold + keep must be exactly the input."
    if msgs and not keep:
        return head + (" You kept nothing: the newest message is always kept, even alone over the budget "
                       "(the model must see the question it answers).")
    if msgs and any(m is msgs[-1] for m in fold):
        return head + " You folded the newest message: the summary takes the OLDEST messages, the newest stay."
    if keep and fold and ids.index(id(keep[0])) < ids.index(id(fold[-1])):
        return (head + " You kept older messages past one that did not fit: the kept messages must be the newest "
                "unbroken run (stop at the first message, newest to oldest, that does not fit).")
    if [id(m) for m in fold + keep] != ids:
        return head + " Every message is there but not in order: fold the OLDEST, keep the newest, both oldest first."
    return head + " " + why


def check_compact(fn: Callable) -> None:
    """TODO 2: the compaction step, on the named cases, then 200 random ones against the reference."""
    forget(TODO2)
    msgs = _turns((2, 2))
    try:
        fn(list(msgs), -1, _words)
    except ValueError:
        pass
    except NotImplementedError:
        call_learner(TODO2, "compact(messages, -1, count_tokens)", fn, msgs, -1, _words)
    except Exception as exc:  # noqa: BLE001
        raise CheckFailed(TODO2, f"a negative budget raised {type(exc).__name__}, not ValueError",
                          "start with: if budget < 0: raise ValueError(...)") from None
    else:
        raise CheckFailed(TODO2, "compact(messages, -1, count_tokens) returned instead of raising ValueError",
                          "a negative budget is a caller's mistake: raise ValueError naming it.")
    for case in COMPACT_CASES:
        msgs = _turns(case.sizes)
        what = f"compact(<{case.name}>, budget={case.budget}, count_tokens)"
        fold, keep = _compact(fn, msgs, case.budget, what)
        want = reference_compact(msgs, case.budget, _words)
        if [id(m) for m in fold] != [id(m) for m in want.fold] or [id(m) for m in keep] != [id(m) for m in want.keep]:
            if [m.text for m in fold] == [m.text for m in want.fold] and [m.text for m in keep] == [m.text for m in want.keep]:
                continue  # equal messages, other objects: fine
            chars = reference_compact(msgs, case.budget, len)
            if [id(m) for m in fold] == [id(m) for m in chars.fold] and [id(m) for m in keep] == [id(m) for m in chars.keep]:
                raise CheckFailed(TODO2, f"case '{case.name}': you measured the messages in characters (len), "
                                         "but the budget is in tokens.",
                                  "count each message with count_tokens(m.text), the function you are given.")
            raise CheckFailed(TODO2, _explain(case.name, msgs, fold, keep, want.fold, want.keep, case.why),
                              "walk from the newest message backwards, adding its tokens (count_tokens(m.text)) "
                              "while they fit; everything before that run folds.")
    rng = random.Random(7)
    for _ in range(200):
        sizes = tuple(rng.randint(0, 9) for _ in range(rng.randint(0, 9)))
        budget = rng.randint(0, 30)
        msgs = _turns(sizes)
        what = f"compact(messages of {list(sizes)} tokens, budget={budget}, count_tokens)"
        fold, keep = _compact(fn, msgs, budget, what)
        want = reference_compact(msgs, budget, _words)
        if [m.text for m in fold] != [m.text for m in want.fold] or [m.text for m in keep] != [m.text for m in want.keep]:
            raise CheckFailed(TODO2, _explain("random", msgs, fold, keep, want.fold, want.keep,
                                              "follow the rules of the TODO in order."),
                              "walk from the newest message backwards while the tokens fit the budget.")
    passed(TODO2, f"{len(COMPACT_CASES)} named cases and 200 random ones agree with the reference", fn=fn)


def decide_to_use(decide: Callable) -> Callable:
    """The consolidation rule the cells below run: the learner's once its check passed, the reference otherwise."""
    return checked_or_reference(TODO1, decide, reference_decide, "consolidate.decide")


def compact_to_use(compact: Callable) -> Callable:
    """The compaction the cells below run: the learner's once its check passed, the reference otherwise."""
    return checked_or_reference(TODO2, compact, reference_compact, "summary.compact")

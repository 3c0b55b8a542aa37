"""Hard-stop checks for the memory-over-time Part: the consolidation decision and the compaction step.

Each check runs the learner's function on named cases first, in an order where each case
is the first to catch one typical mistake (a neighbour of another record type, the first
neighbour instead of the nearest, values compared raw, a strict > at the threshold, a forget
that stops at one memory, folding the newest messages...), then on random cases against the
reference (workshop_lib.parts.memory). When an answer is wrong, the check names the mistake
by finding which known wrong version of the rules gives that same answer (`decide_with` and
`compact_with`); only when none does is the message the case's rule.

The return types are part of the contract, as the TODOs say: `decide` returns a
`Decision` whose `targets` is a tuple of ids, `compact` a `summary.Compaction` of two lists
of the messages it was given. The cells below the TODOs read those fields.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from workshop_lib.checks import CheckFailed, call_learner, checked_or_reference, describe_value, forget, passed
from workshop_lib.parts.memory.consolidate import ACTIONS, Decision, Neighbour, refines, same_topic
from workshop_lib.parts.memory.consolidate import decide as reference_decide
from workshop_lib.parts.memory.extract import Candidate, normalise
from workshop_lib.parts.memory.summary import Compaction, Turn
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
    neighbours: tuple[Any, ...]
    why: str              # the rule this case tests, said when no known mistake explains the answer


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
    Case("three stored versions, the nearest listed last", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "home port", "Bergen", 0.74), _n(2, "home port", "Molde", 0.62), _n(3, "home port", "Tromso", 0.88)),
         "neighbours come in any order: act on the NEAREST one (highest similarity), not on the first in the list."),
    Case("a subject written with other capitals and spaces", _fact("My home port is Oslo.", "home port", "Oslo"),
         (_n(1, "Home  Port", "Bergen", 0.9),),
         "compare subjects and values normalised (normalise(...): lower case, words only); 'Home  Port' is "
         "'home port'."),
    Case("the same value in other capitals", _fact("My home port is oslo.", "home port", "oslo"),
         (_n(1, "home port", "OSLO", 0.97),),
         "'oslo' and 'OSLO' are the same value: compare normalise(candidate.value) == normalise(old.value) and SKIP."),
    Case("the same value with other punctuation and spacing",
         _fact("My home port is Oslo, pier 3.", "home port", "Oslo, pier 3"),
         (_n(1, "home port", "oslo  pier 3", 0.96),),
         "'Oslo, pier 3' and 'oslo  pier 3' are the same value once normalised (lower case, words only): SKIP."),
    Case("a refinement said in other words",
         _fact("Update: the home port is now Oslo, pier 3.", "home port", "Oslo, pier 3"),
         (_n(1, "home port", "Oslo", 0.9, text="Home port Oslo (since March)."),),
         "the VALUE 'Oslo, pier 3' refines the stored value 'Oslo' (the texts around them differ): UPDATE, "
         "with refines(candidate.value, old.value)."),
    Case("a new value whose text repeats the old one",
         _fact("My home port is Bergen now, no longer Oslo.", "home port", "Bergen"),
         (_n(1, "home port", "Oslo", 0.9, text="Oslo."),),
         "the value 'Bergen' does not refine 'Oslo', even though the new text contains the old text: SUPERSEDE."),
    Case("no subject, similarity exactly at memory_duplicate", _fact("We ship reefers to Asia."),
         (_n(1, "", "We ship reefers to Asia weekly.", 0.65, text="We ship reefers to Asia weekly."),),
         "a similarity equal to memory_duplicate is a duplicate: compare with >=, not >. SKIP it, with its id."),
    Case("no subject, more detail than a near duplicate", _fact("We ship reefers to Asia every week by rail."),
         (_n(1, "", "We ship reefers to Asia.", 0.8, text="We ship reefers to Asia."),),
         "above memory_duplicate and the new text has every word of the stored one and more: UPDATE it."),
    Case("no subject, nothing close", _fact("We ship reefers to Asia."),
         (_n(1, "", "Our budget is 40000 cents.", 0.3, text="Our budget is 40000 cents."),),
         "below memory_duplicate the neighbour is another statement: ADD."),
    Case("forget two memories of one subject", _fact("home port", "home port", op="forget"),
         (_n(1, "port", "Bergen", 0.4), _n(2, "home port", "Oslo", 0.3), _n(3, "main carrier", "Maersk", 0.1)),
         "FORGET every matching memory (subject words contained in one another, or similarity >= "
         "memory_forget), nearest first, not only the best one."),
    Case("forget by meaning, far above both thresholds", _fact("the reefer thing", "reefer thing", op="forget"),
         (_n(1, "plug quote", "12500 cents", 0.8), _n(2, "home port", "Oslo", 0.2)),
         "a forget reaches a memory by meaning too: similarity 0.8 >= memory_forget, whatever its subject: FORGET it."),
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


# The mistakes `decide` is checked for, in the order they are tried: (problem, fix).
DECIDE_MISTAKES: dict[str, tuple[str, str]] = {
    "any_type": ("you compared with neighbours of every record type: only neighbours of the candidate's own record "
                 "type count (a preference never replaces a fact)",
                 "after the forget branch keep [n for n in ranked if n.record_type == candidate.record_type]."),
    "unsorted": ("you acted on the first neighbour in the list: neighbours come in any order, act on the NEAREST one "
                 "(highest similarity)",
                 "sort a copy nearest first: ranked = sorted(neighbours, key=lambda n: -n.similarity)."),
    "ascending": ("you sorted the neighbours ascending, so the FARTHEST one came first: act on the NEAREST one "
                  "(highest similarity)",
                  "sort by -n.similarity (or pass reverse=True): highest similarity first."),
    "subjects_raw": ("you did not normalise the subjects: compare subjects and values normalised (normalise(...): lower "
                     "case, words only); 'Home  Port' is 'home port' (lower() alone keeps the double space)",
                     "normalise(n.subject) == normalise(candidate.subject)."),
    "values_lower": ("you compared the values lower-cased only: normalise also drops punctuation and extra spaces, so "
                     "'Oslo, pier 3' and 'oslo  pier 3' are the same value",
                     "compare normalise(candidate.value) == normalise(old.value), not .lower()."),
    "values_raw": ("you compared the values as given: 'oslo' and 'OSLO' are the same value once normalised",
                   "compare normalise(candidate.value) == normalise(old.value), not candidate.value == old.value."),
    "refines_texts": ("you tested refines on the whole texts: for a matching subject the rule compares the VALUES "
                      "(the texts carry other words around them)",
                      "use refines(candidate.value, old.value); refines(candidate.text, n.text) is rule 4, for a "
                      "candidate without a subject."),
    "no_subject_guard": ("a candidate without a subject went through the same-subject rule: two empty subjects are "
                         "not the same subject",
                         "apply rule 3 only when the candidate has a subject: `if candidate.subject:` (an empty string "
                         "is false; `is not None` lets '' through)."),
    "gt": ("a similarity equal to memory_duplicate is a duplicate",
           "compare with >=, not >: mine[0].similarity >= thresholds['memory_duplicate']."),
    "forget_same_type": ("a forget is not limited to one record type: the user may forget a preference too",
                         "handle candidate.op == 'forget' before filtering on record_type."),
    "forget_exact": ("you matched the forget's subject exactly: 'port' and 'home port' name the same thing",
                     "match with same_topic(n.subject, candidate.subject) (every word of one subject is in the "
                     "other), not ==."),
    "forget_one": ("FORGET every matching memory (subject words contained in one another, or similarity >= "
                   "memory_forget), nearest first, not only the best one",
                   "collect every hit in a list and return tuple(n.id for n in hits)."),
    "forget_dup_threshold": ("a forget reaches a memory by similarity >= memory_forget (not memory_duplicate)",
                             "use thresholds['memory_forget'] in the forget branch."),
    "forget_subject_only": ("a forget reaches a memory by meaning too: similarity >= memory_forget matches whatever "
                            "the memory's subject",
                            "a hit is same_topic(n.subject, candidate.subject) OR n.similarity >= "
                            "thresholds['memory_forget']."),
    "forget_similarity_only": ("a forget reaches a memory by its subject too, however low its similarity",
                               "a hit is same_topic(n.subject, candidate.subject) OR n.similarity >= "
                               "thresholds['memory_forget']."),
    "forget_empty": ("when nothing matches there is nothing to forget: SKIP with no targets (not FORGET with none)",
                     "if not hits: return Decision('SKIP', (), '...')."),
}


def decide_with(mistake: str, cand: Candidate, neighbours: Sequence[Neighbour], th: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """The reference's rules with one named mistake of DECIDE_MISTAKES ('' for none): what a learner
    who makes that mistake returns, as (action, targets)."""
    if mistake == "unsorted":
        ranked = list(neighbours)
    else:
        ranked = sorted(neighbours, key=lambda n: n.similarity if mistake == "ascending" else -n.similarity)
    if cand.op == "forget":
        return _forget_with(mistake, cand, ranked, th)
    mine = ranked if mistake == "any_type" else [n for n in ranked if n.record_type == cand.record_type]
    same = _same_subject(mistake, cand, mine)
    if same:
        return _same_subject_with(mistake, cand, same[0])
    if mine and (mine[0].similarity > th["memory_duplicate"] if mistake == "gt"
                 else mine[0].similarity >= th["memory_duplicate"]):
        return ("UPDATE" if refines(cand.text, mine[0].text) else "SKIP"), (mine[0].id,)
    return "ADD", ()


def _forget_with(mistake: str, cand: Candidate, ranked: list[Neighbour], th: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """A forget request under the mistake: the memories it matches by subject or by meaning."""
    pool = [n for n in ranked if n.record_type == cand.record_type] if mistake == "forget_same_type" else ranked
    key = "memory_duplicate" if mistake == "forget_dup_threshold" else "memory_forget"

    def hit(n: Neighbour) -> bool:
        if mistake == "forget_exact":
            by_subject = bool(normalise(cand.subject)) and normalise(n.subject) == normalise(cand.subject)
        else:
            by_subject = same_topic(n.subject, cand.subject)
        by_meaning = n.similarity >= th[key]
        one_way: dict[str, bool] = {"forget_subject_only": by_subject, "forget_similarity_only": by_meaning}
        return one_way.get(mistake, by_subject or by_meaning)

    hits = [n for n in pool if hit(n)][:1 if mistake == "forget_one" else None]
    if not hits and mistake != "forget_empty":
        return "SKIP", ()
    return "FORGET", tuple(n.id for n in hits)


def _same_subject(mistake: str, cand: Candidate, mine: list[Neighbour]) -> list[Neighbour]:
    """The neighbours on the candidate's subject (none when it has no subject, unless the mistake
    drops that guard)."""
    if not (cand.subject or mistake == "no_subject_guard"):
        return []
    return [n for n in mine if (n.subject == cand.subject if mistake == "subjects_raw"
                                else normalise(n.subject) == normalise(cand.subject))]


def _same_subject_with(mistake: str, cand: Candidate, old: Neighbour) -> tuple[str, tuple[Any, ...]]:
    """A candidate on the subject of a stored memory, under the mistake: the same value is a SKIP,
    a refinement an UPDATE, anything else a SUPERSEDE."""
    if mistake == "values_raw":
        equal = cand.value == old.value
    elif mistake == "values_lower":
        equal = cand.value.strip().lower() == old.value.strip().lower()
    else:
        equal = normalise(cand.value) == normalise(old.value)
    if equal:
        return "SKIP", (old.id,)
    new, was = (cand.text, old.text) if mistake == "refines_texts" else (cand.value, old.value)
    return ("UPDATE" if refines(new, was) else "SUPERSEDE"), (old.id,)


def _decide_mistake(cand: Candidate, neighbours: Sequence[Neighbour], got: tuple[str, tuple[Any, ...]],
                    want: tuple[str, tuple[Any, ...]]) -> tuple[str, str] | None:
    """(problem, fix) naming the mistake that gives `got`, or None when no known one does."""
    action = got[0]
    if action == want[0] and not got[1] and want[1]:
        return (f"the action {action} is right but its targets are empty: {action} names the stored memory it acts on",
                f"return Decision('{action}', (n.id,), '...') with the id of that memory (the nearest match).")
    for mistake, (problem, fix) in DECIDE_MISTAKES.items():
        if decide_with(mistake, cand, neighbours, THRESHOLDS) == got:
            return problem, fix
    return None


DECISION_FIX = ("return Decision(action, targets, reason) as the TODO says, e.g. Decision('SKIP', (old.id,), 'already "
                "stored') or Decision('ADD', (), 'new'): the cells below read .action, .targets and .reason.")


def _as_decision(todo: str, what: str, got: Any) -> tuple[str, tuple[Any, ...]]:
    """The learner's Decision as (action, targets); any other shape stops with what is wrong with it."""
    if not isinstance(got, Decision):
        shape = ("a plain tuple" if isinstance(got, tuple) else "a list" if isinstance(got, list)
                 else "a dict" if isinstance(got, dict) else f"a {type(got).__name__}")
        raise CheckFailed(todo, f"{what} returned {shape}, {describe_value(got)}; the TODO asks for a Decision",
                          DECISION_FIX)
    action, targets = got.action, got.targets
    if action not in ACTIONS:
        capitals = isinstance(action, str) and action.strip().upper() in ACTIONS
        raise CheckFailed(todo, f"{what} returned a Decision whose action is {describe_value(action)}; the action is "
                                f"one of {ACTIONS}" + (", in capitals and without spaces" if capitals else ""),
                          'return Decision("ADD", (), "why"), Decision("SUPERSEDE", (old.id,), "why")...')
    _check_targets(todo, what, targets)
    return action, targets


def _check_targets(todo: str, what: str, targets: Any) -> None:
    """A Decision's targets: a tuple (not a string, a list, a set or a generator) of ids, not of Neighbours."""
    if isinstance(targets, str):
        raise CheckFailed(todo, f"{what} returned targets {describe_value(targets)}, a string, not a tuple: (old.id) "
                                "without a comma is just old.id in parentheses",
                          "write (old.id,) with the comma, or tuple(n.id for n in hits).")
    if isinstance(targets, Neighbour) or (isinstance(targets, (tuple, list))
                                          and any(isinstance(t, Neighbour) for t in targets)):
        raise CheckFailed(todo, f"{what} returned targets holding Neighbour objects; targets are the ids (strings) "
                                "of the stored memories the action applies to",
                          "put n.id in the targets, not the Neighbour itself: (old.id,), tuple(n.id for n in hits).")
    if isinstance(targets, list):
        raise CheckFailed(todo, f"{what} returned targets as a list, {describe_value(targets)}; the TODO asks for a "
                                "tuple of ids",
                          "write (old.id,) (with the comma) or tuple(n.id for n in hits), not [old.id].")
    if not isinstance(targets, tuple):
        shown = describe_value(targets) if isinstance(targets, (set, frozenset, dict, int, float)) else ""
        raise CheckFailed(todo, f"{what} returned targets as a {type(targets).__name__} {shown}".rstrip()
                                + "; the TODO asks for a tuple of ids",
                          "write (old.id,) (with the comma) or tuple(n.id for n in hits): a generator or a set is "
                          "not a tuple.")
    if not all(isinstance(t, str) for t in targets):
        raise CheckFailed(todo, f"{what} returned targets {describe_value(targets)}; targets are the ids (strings) "
                                "of the stored memories the action applies to",
                          "put n.id in the targets: (old.id,), tuple(n.id for n in hits).")


def _decide(fn: Callable[..., Any], cand: Candidate, neighbours: list[Any], what: str) -> tuple[str, tuple[Any, ...]]:
    given = list(neighbours)
    got = call_learner(TODO1, what, fn, cand, given, dict(THRESHOLDS))
    if given != list(neighbours):
        raise CheckFailed(TODO1, f"{what}: your function changed the neighbours list it was given",
                          "sort a copy: ranked = sorted(neighbours, key=...), never neighbours.sort().")
    return _as_decision(TODO1, what, got)


def _want(cand: Candidate, neighbours: list[Any]) -> tuple[str, tuple[Any, ...]]:
    d = reference_decide(cand, list(neighbours), dict(THRESHOLDS))
    return d.action, d.targets


def _random_case(rng: random.Random) -> tuple[Candidate, list[Any]]:
    subjects = ["home port", "main carrier", "port", "budget", "", "Home Port"]
    values = ["Oslo", "Oslo pier 3", "Bergen", "Maersk", "40000 cents", "oslo", "Oslo, pier 3"]
    op = "forget" if rng.random() < 0.25 else "remember"
    subject = rng.choice(subjects)
    value = "" if op == "forget" else rng.choice(values)
    cand = Candidate(rng.choice(["fact", "preference"]), f"My {subject} is {value}.", subject, value, op=op)
    neighbours = [Neighbour(f"m{i}", rng.choice(["fact", "preference"]), f"My {s} is {v}.", s, v,
                            round(rng.choice([rng.random(), 0.65, 0.52]), 2))
                  for i, (s, v) in enumerate((rng.choice(subjects), rng.choice(values)) for _ in range(rng.randint(0, 4)))]
    return cand, neighbours


def _show(d: tuple[str, tuple[Any, ...]]) -> str:
    return f"{d[0]} {list(d[1])}"


def check_decide(fn: Callable[..., Any]) -> None:
    """TODO 1: the consolidation decision, on the named cases, then 300 random ones against the reference."""
    forget(TODO1)
    for case in DECIDE_CASES:
        what = f"decide(<{case.name}>)"
        got, want = _decide(fn, case.candidate, list(case.neighbours), what), _want(case.candidate, list(case.neighbours))
        if got != want:
            problem, fix = _decide_mistake(case.candidate, case.neighbours, got, want) or (case.why, case.why)
            raise CheckFailed(TODO1, f"case '{case.name}': expected {_show(want)}, got {_show(got)}: "
                                     f"{problem.rstrip('.')}.",
                              fix if fix != problem else "re-read the rule of the TODO this case names.")
    rng = random.Random(26)
    for _ in range(300):
        cand, neighbours = _random_case(rng)
        what = f"decide({cand}, {neighbours})"
        got, want = _decide(fn, cand, neighbours, what), _want(cand, neighbours)
        if got != want:
            problem, fix = _decide_mistake(cand, neighbours, got, want) or (
                "", "go through the rules in the order the TODO lists them.")
            raise CheckFailed(TODO1, f"on this input: {describe_value(cand, 200)} with neighbours "
                                     f"{describe_value(neighbours, 400)}\n  expected {_show(want)}, got {_show(got)}"
                                     + (f": {problem}" if problem else ""), fix)
    passed(TODO1, f"{len(DECIDE_CASES)} named cases and 300 random ones agree with the reference", fn=fn)


# ------------------------------------------------------------------ TODO 2
_TOKEN = re.compile(r"[A-Za-z]{1,4}|\d|[^\sA-Za-z\d]")


def count_tokens(text: str) -> int:
    """The check's tokenizer: runs of at most four letters, single digits and punctuation marks.
    It differs on purpose from every naive count (words, split(), len()), so code that counts
    anything but count_tokens(m.text) gets another answer."""
    if not isinstance(text, str):
        raise TypeError(f"count_tokens takes a message's text (a str), not a {type(text).__name__}: call "
                        "count_tokens(m.text)")
    return len(_TOKEN.findall(text))


def _words(text: str) -> int:
    return len(text.split())


# Words of known token counts; a message of n tokens is built from them (about n / 2 words, 3n characters).
_VOCAB = [("reefer", 2), ("berth,", 3), ("vessels", 2), ("40ft", 3), ("quay", 1)]
# One-token names that make every message's text its own (a 0-token message is blanks, as many as its place).
_PORTS = ["Oslo", "Kiel", "Riga", "Bari", "Cork", "Oran", "Hull", "Lome", "Suva", "Apia", "Gdyn", "Aden"]


def _text(n: int, i: int) -> str:
    if n == 0:
        return " " * (i + 1)
    words, left, k = [_PORTS[i % len(_PORTS)]], n - 1, i
    while left:
        word, cost = _VOCAB[k % len(_VOCAB)]
        k += 1
        if cost <= left:
            words.append(word)
            left -= cost
    return " ".join(words)


@dataclass(frozen=True)
class CompactCase:
    name: str
    sizes: tuple[int, ...]  # tokens per message, oldest first
    budget: int
    why: str


COMPACT_CASES = [
    CompactCase("everything fits", (3, 2, 4), 10,
                "the messages fit the budget (9 <= 10): nothing folds; keep all of them, fold []."),
    CompactCase("three long messages, a small budget", (6, 7, 5), 3,
                "the budget counts tokens, not messages: the newest message (5 tokens) is over the budget of 3 on "
                "its own, so it alone stays."),
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
    CompactCase("many short messages", (1,) * 10, 9,
                "nine one-token messages fit a budget of 9: keep the newest nine, fold the oldest."),
]


def _turns(sizes: Sequence[int]) -> list[Any]:
    # Tokens, words and characters all differ: a 4-token message has 2-3 words and a dozen characters.
    return [Turn("user" if i % 2 == 0 else "assistant", _text(n, i)) for i, n in enumerate(sizes)]


def _by_count(msgs: list[Any], budget: int, count: Callable[[str], int], *, at_budget_stops: bool = False,
              keeps_overflow: bool = False) -> Compaction:
    kept, used = 0, 0
    for m in reversed(msgs):
        cost = count(m.text)
        if keeps_overflow:
            kept, used = kept + 1, used + cost
            if used > budget:
                break
            continue
        if kept and (used + cost >= budget if at_budget_stops else used + cost > budget):
            break
        kept, used = kept + 1, used + cost
    cut = len(msgs) - kept
    return Compaction(fold=msgs[:cut], keep=msgs[cut:])


def _split(msgs: list[Any], cut: int) -> Compaction:
    cut = max(0, min(len(msgs), cut))
    return Compaction(fold=msgs[:cut], keep=msgs[cut:])


# The mistakes `compact` is checked for, in the order they are tried: (how it splits, problem, fix).
COMPACT_MISTAKES: dict[str, tuple[Callable[[list[Any], int], Compaction], str, str]] = {
    "at_budget": (lambda ms, b: _by_count(ms, b, count_tokens, at_budget_stops=True),
                  "a kept total equal to the budget fits, and you stopped there",
                  "compare used + cost > budget to stop, not >=."),
    "words": (lambda ms, b: _by_count(ms, b, _words),
              "you counted words (split()), but the budget is in tokens, and a word is often several tokens",
              "count each message with count_tokens(m.text), the function you are given."),
    "keeps_overflow": (lambda ms, b: _by_count(ms, b, count_tokens, keeps_overflow=True),
                       "you kept the message that took the total over the budget (you added it, then tested)",
                       "test used + cost > budget BEFORE you add a message, and stop without adding it (the newest "
                       "message is the only one kept over the budget)."),
    "budget_as_count": (lambda ms, b: _split(ms, len(ms) - max(b, 1)),
                        "you read the budget as a number of messages; it is a number of tokens",
                        "walk from the newest message backwards adding count_tokens(m.text) while the total fits."),
    "all_or_newest": (lambda ms, b: _split(ms, 0 if count_tokens(" ".join(m.text for m in ms)) <= b else len(ms) - 1),
                      "you measured the whole thread at once and kept either everything or only the newest message",
                      "count each message on its own, newest first, and stop at the first one that does not fit: "
                      "the kept run can be any length."),
    "characters": (lambda ms, b: _by_count(ms, b, len),
                   "you measured the messages in characters (len), but the budget is in tokens",
                   "count each message with count_tokens(m.text), the function you are given."),
}

COMPACTION_FIX = ("return summary.Compaction(fold=list(messages[:cut]), keep=list(messages[cut:])): two lists of the "
                  "messages you were given, as the TODO says.")


def _compact(fn: Callable[..., Any], msgs: list[Any], budget: int, what: str) -> tuple[list[Any], list[Any]]:
    """The learner's Compaction as (fold, keep); any other shape stops with what is wrong with it."""
    given = list(msgs)
    try:
        got = call_learner(TODO2, what, fn, given, budget, count_tokens)
    except CheckFailed as failed:
        if "count_tokens takes a message's text" in failed.problem:
            raise CheckFailed(TODO2, failed.problem, "count each message by its text: count_tokens(m.text), not "
                              "count_tokens(m).") from None
        raise
    if given != msgs:
        raise CheckFailed(TODO2, f"{what}: your function changed the list of messages it was given",
                          "build new lists (slices: messages[:cut], messages[cut:]); do not pop or remove.")
    if not isinstance(got, Compaction):
        shape = ("a plain tuple" if isinstance(got, tuple) else "one list" if isinstance(got, list)
                 else f"a {type(got).__name__}")
        raise CheckFailed(TODO2, f"{what} returned {shape}, {describe_value(got)}; expected "
                                 "Compaction(fold=[...], keep=[...])", COMPACTION_FIX)
    fold, keep = got.fold, got.keep
    for name, part in (("fold", fold), ("keep", keep)):
        if not isinstance(part, list):
            raise CheckFailed(TODO2, f"{what} returned a Compaction whose {name} is {type(part).__name__} "
                                     f"{describe_value(part, 80)}; fold and keep are lists", COMPACTION_FIX)
        strange = next((x for x in part if not isinstance(x, Turn)), None)
        if isinstance(strange, str):
            raise CheckFailed(TODO2, f"{what}: {name} holds texts (str, such as {describe_value(strange, 60)}), not "
                                     "messages: the summary and the prompt need each message whole, with its role",
                              "put the messages themselves in fold and keep (messages[:cut], messages[cut:]), not "
                              "m.text.")
        if strange is not None:
            raise CheckFailed(TODO2, f"{what}: {name} holds {describe_value(strange, 60)} "
                                     f"({type(strange).__name__}), not one of the messages you were given",
                              COMPACTION_FIX)
    return fold, keep


def _texts(ms: list[Any]) -> list[str]:
    return [m.text for m in ms]


def _explain(msgs: list[Any], fold: list[Any], keep: list[Any], budget: int) -> tuple[str, str] | None:
    """(problem, fix) naming the mistake behind a wrong split, or None when no known one explains it."""
    want = reference_compact(msgs, budget, count_tokens)
    if _texts(fold) == _texts(want.keep) and _texts(keep) == _texts(want.fold):
        return ("you swapped fold and keep: fold is the OLDER messages that go into the summary, keep the newest "
                "run that stays word for word", "return summary.Compaction(fold=messages[:cut], keep=messages[cut:]).")
    if len(fold) + len(keep) != len(msgs) or sorted(_texts(fold + keep)) != sorted(_texts(msgs)):
        return ("messages went missing or were doubled: fold + keep must be exactly the input",
                "cut once and return messages[:cut] and messages[cut:].")
    for split, problem, fix in COMPACT_MISTAKES.values():
        mistaken = split(list(msgs), budget)
        if _texts(mistaken.fold) == _texts(fold) and _texts(mistaken.keep) == _texts(keep):
            return problem, fix
    return _explain_what_was_kept(msgs, fold, keep)


def _explain_what_was_kept(msgs: list[Any], fold: list[Any], keep: list[Any]) -> tuple[str, str] | None:
    """(problem, fix) for a split of every message that keeps the wrong ones: none, not the newest,
    not an unbroken run, or out of order; None when it is none of these."""
    if msgs and not keep:
        return ("you kept nothing: the newest message is always kept, even alone over the budget (the model must "
                "see the question it answers)", "stop only once you kept a message: if kept and used + cost > budget.")
    if msgs and any(m is msgs[-1] or m == msgs[-1] for m in fold):
        return ("you folded the newest message: the summary takes the OLDEST messages, the newest stay",
                "walk from the newest message backwards: for m in reversed(messages).")
    place = {m.text: i for i, m in enumerate(msgs)}  # texts are distinct when they hold tokens
    if keep and fold and place.get(keep[0].text, -1) < place.get(fold[-1].text, -1):
        return ("you kept older messages past one that did not fit: the kept messages must be the newest unbroken run "
                "(stop at the first message, newest to oldest, that does not fit)",
                "break at the first message that does not fit; do not skip it and go on.")
    if _texts(fold + keep) != _texts(msgs):
        return ("every message is there but not in order: fold the OLDEST, keep the newest, both oldest first",
                "return slices of messages (messages[:cut], messages[cut:]), which keep the order.")
    return None


def _sizes(ms: list[Any]) -> list[int]:
    return [count_tokens(m.text) for m in ms]


def check_compact(fn: Callable[..., Any]) -> None:
    """TODO 2: the compaction step, on the named cases, then 200 random ones against the reference."""
    forget(TODO2)
    msgs = _turns((2, 2))
    try:
        fn(list(msgs), -1, count_tokens)
    except ValueError:
        pass
    except NotImplementedError:
        call_learner(TODO2, "compact(messages, -1, count_tokens)", fn, msgs, -1, count_tokens)
    except Exception as exc:  # noqa: BLE001
        raise CheckFailed(TODO2, f"a negative budget raised {type(exc).__name__}, not ValueError",
                          "start with: if budget < 0: raise ValueError(...)") from None
    else:
        raise CheckFailed(TODO2, "compact(messages, -1, count_tokens) returned instead of raising ValueError",
                          "a negative budget is a caller's mistake: raise ValueError naming it.")
    named = [(c.name, c.sizes, c.budget, c.why) for c in COMPACT_CASES]
    rng = random.Random(7)
    rand = [("random", tuple(rng.randint(0, 9) for _ in range(rng.randint(0, 9))), rng.randint(0, 30), "")
            for _ in range(200)]
    for name, sizes, budget, why in named + rand:
        msgs = _turns(sizes)
        what = f"compact(<{name}>, budget={budget}, count_tokens)" if why else \
            f"compact(messages of {list(sizes)} tokens, budget={budget}, count_tokens)"
        fold, keep = _compact(fn, msgs, budget, what)
        want = reference_compact(msgs, budget, count_tokens)
        if _texts(fold) == _texts(want.fold) and _texts(keep) == _texts(want.keep):
            continue  # the same messages (equal copies are fine)
        head = (f"case '{name}' (tokens per message, oldest first: {list(sizes)}; budget {budget}): expected fold "
                f"{_sizes(want.fold)} keep {_sizes(want.keep)}, got fold {_sizes(fold)} keep {_sizes(keep)}.")
        problem, fix = _explain(msgs, fold, keep, budget) or (
            why or "follow the rules of the TODO in order.",
            "walk from the newest message backwards, adding its tokens (count_tokens(m.text)) while they fit; "
            "everything before that run folds.")
        raise CheckFailed(TODO2, f"{head} {problem[:1].upper()}{problem[1:]}.", fix)
    passed(TODO2, f"{len(COMPACT_CASES)} named cases and 200 random ones agree with the reference", fn=fn)


def decide_to_use(decide: Callable[..., Any]) -> Callable[..., Any]:
    """The consolidation rule the cells below run: the learner's once its check passed, the reference otherwise."""
    return checked_or_reference(TODO1, decide, reference_decide, "consolidate.decide")


def compact_to_use(compact: Callable[..., Any]) -> Callable[..., Any]:
    """The compaction the cells below run: the learner's once its check passed, the reference otherwise."""
    return checked_or_reference(TODO2, compact, reference_compact, "summary.compact")

"""The memory-over-time Part's checks against the wrong code learners write.

For each TODO: wrong implementations (each must be stopped, with a message naming ITS
mistake) and correct ones written differently (each must pass).
"""
from __future__ import annotations

import re
import textwrap
from typing import Any

import pytest

from workshop_lib.checks import CheckFailed
from workshop_lib.checks import part7 as checks
from workshop_lib.parts.memory.consolidate import Decision, decide, refines, same_topic
from workshop_lib.parts.memory.extract import normalise
from workshop_lib.parts.memory.summary import Compaction, compact


def _cells() -> dict[str, str]:
    import json

    from workshop_lib.tools import release

    path = next((release.REPO / "solutions" / "part7").glob("*.ipynb"))
    nb = json.loads(path.read_text())
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
            for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id")}


def _namespace() -> dict:
    import workshop_lib.checks
    from workshop_lib.parts.memory import summary
    from workshop_lib.parts.memory.consolidate import Neighbour

    return {"checks": workshop_lib.checks, "Decision": Decision, "Neighbour": Neighbour, "refines": refines,
            "same_topic": same_topic, "normalise": normalise, "summary": summary}



def _learner(todo: str, name: str, *edits: tuple[str, str]):
    """The solution cell of `todo` as a learner would edit it: each (old, new) must still apply."""
    source = "\n".join(line for line in _cells()[todo].splitlines() if "### " not in line)
    for old, new in edits:
        assert old in source, f"the solution no longer contains {old!r}: update the wrong version {name!r}"
        source = source.replace(old, new)
    ns = _namespace()
    exec(compile(source, f"<learner {name}>", "exec"), ns)
    return ns[todo.split("_", 1)[1]]


def _written(name: str, source: str):
    """A correct variant written from scratch, as a learner would."""
    ns = _namespace()
    exec(compile(textwrap.dedent(source), f"<learner {name}>", "exec"), ns)
    return ns[name.split(":")[0]]


# ---------------------------------------------------------------- TODO 1: decide
def make_decide(*, same_type=True, nearest=True, normalised=True, ge=True, forget_all=True,
                forget_key="memory_forget", skip_empty_forget=True, check_duplicate=True, check_refine=True,
                forget_any_type=True, ids=True):
    """The reference's rules with one of them broken."""
    norm = normalise if normalised else (lambda t: t)
    tid = (lambda n: n.id) if ids else (lambda n: n)

    def forget(candidate, ranked, thresholds):
        pool = ranked if forget_any_type else [n for n in ranked if n.record_type == candidate.record_type]
        hits = [n for n in pool if same_topic(n.subject, candidate.subject) or n.similarity >= thresholds[forget_key]]
        if not forget_all:
            hits = hits[:1]
        if not hits and skip_empty_forget:
            return Decision("SKIP", ())
        return Decision("FORGET", tuple(tid(n) for n in hits))

    def same_subject(candidate, pool):
        same = [n for n in pool if norm(n.subject) == norm(candidate.subject)] if candidate.subject else []
        if not same:
            return None
        old = same[0]
        if check_duplicate and norm(candidate.value) == norm(old.value):
            return Decision("SKIP", (tid(old),))
        if check_refine and refines(candidate.value, old.value):
            return Decision("UPDATE", (tid(old),))
        return Decision("SUPERSEDE", (tid(old),))

    def fn(candidate, neighbours, thresholds):
        ranked = sorted(neighbours, key=lambda n: -n.similarity) if nearest else list(neighbours)
        if candidate.op == "forget":
            return forget(candidate, ranked, thresholds)
        pool = [n for n in ranked if n.record_type == candidate.record_type] if same_type else ranked
        found = same_subject(candidate, pool)
        if found is not None:
            return found
        if pool and (pool[0].similarity >= thresholds["memory_duplicate"] if ge
                     else pool[0].similarity > thresholds["memory_duplicate"]):
            if refines(candidate.text, pool[0].text):
                return Decision("UPDATE", (tid(pool[0]),))
            return Decision("SKIP", (tid(pool[0]),))
        return Decision("ADD", ())
    return fn


def always_add(candidate, neighbours, thresholds):
    return Decision("ADD", ())


def mutates_input(candidate, neighbours, thresholds):
    neighbours.sort(key=lambda n: -n.similarity)
    return decide(candidate, list(neighbours), thresholds)


WRONG_DECIDE = {
    "always ADD": (always_add, r"SUPERSEDE the stored memory \(the later statement wins\)"),
    "no duplicate check": (make_decide(check_duplicate=False), r"already stored for this subject: SKIP"),
    "refinement treated as contradiction": (make_decide(check_refine=False), r"refines the fact, so UPDATE"),
    "neighbours of every record type": (make_decide(same_type=False), r"only neighbours of the candidate's own record type"),
    "first neighbour, not the nearest": (make_decide(nearest=False), r"act on the NEAREST one"),
    "subjects compared raw": (make_decide(normalised=False), r"compare subjects and values normalised"),
    "strict > at the threshold": (make_decide(ge=False), r"compare with >=, not >"),
    "forget stops at one memory": (make_decide(forget_all=False), r"FORGET every matching memory"),
    "forget uses the duplicate threshold": (make_decide(forget_key="memory_duplicate"), r"by similarity >= memory_forget"),
    "FORGET with no targets": (make_decide(skip_empty_forget=False), r"nothing to forget: SKIP with no targets"),
    "forget limited to one record type": (make_decide(forget_any_type=False), r"not limited to one record type"),
    "Neighbour objects as targets": (make_decide(ids=False), r"put n\.id in the targets"),
    "sorts the caller's list": (mutates_input, r"changed the neighbours list"),
    "a stub": (lambda c, n, t: (_ for _ in ()).throw(NotImplementedError()), r"not implemented yet"),
}


D = "todo1_decide"
VALUE_TEST = "normalise(candidate.value) == normalise(old.value)"
# Wrong versions a learner writes from the TODO's text: the solution cell with one edit, and the
# fragment of the message that must name that mistake.
WRONG_DECIDE.update({
    "values compared as given": (_learner(D, "raw values", (VALUE_TEST, "candidate.value == old.value")),
                                 r"compared the values as given"),
    "values only lower-cased": (_learner(D, "lower values", (VALUE_TEST, "candidate.value.lower() == old.value.lower()")),
                                r"compared the values lower-cased only"),
    "values stripped and lower-cased": (_learner(D, "strip lower", (VALUE_TEST, "candidate.value.strip().lower() == "
                                                                                "old.value.strip().lower()")),
                                        r"normalise also drops punctuation and extra spaces"),
    "subjects only lower-cased": (_learner(D, "lower subjects", ("normalise(n.subject) == normalise(candidate.subject)",
                                                                 "n.subject.lower() == candidate.subject.lower()")),
                                  r"compare subjects and values normalised.*lower\(\) alone keeps the double space"),
    "refines tested on the whole texts": (_learner(D, "refines texts", ("refines(candidate.value, old.value)",
                                                                        "refines(candidate.text, old.text)")),
                                          r"tested refines on the whole texts"),
    "targets as a list": (_learner(D, "list targets", ("(old.id,)", "[old.id]"), ("(mine[0].id,)", "[mine[0].id]"),
                                   ("tuple(n.id for n in hits)", "[n.id for n in hits]"), ('"SKIP", ()', '"SKIP", []'),
                                   ('"ADD", ()', '"ADD", []')),
                          r"targets as a list.*the TODO asks for a tuple"),
    "a plain tuple instead of a Decision": (_learner(D, "plain tuple", ("Decision(", "(")),
                                            r"returned a plain tuple.*the TODO asks for a Decision"),
    "(old.id) without the comma": (_learner(D, "no comma", ("(old.id,)", "(old.id)")),
                                   r"a string, not a tuple: \(old\.id\) without a comma"),
    "targets as a generator": (_learner(D, "generator", ("tuple(n.id for n in hits)", "(n.id for n in hits)")),
                               r"a generator or a set is not a tuple"),
    "actions in lower case": (_learner(D, "lower actions", ('"ADD"', '"add"')), r"in capitals"),
    "no subject guard": (_learner(D, "no guard", ("    if candidate.subject:\n", "    if candidate.subject is not None:\n")),
                         r"without a subject went through the same-subject rule"),
    "a duplicate skipped with no target": (_learner(D, "skip no target", ('Decision("SKIP", (mine[0].id,), "duplicate")',
                                                                          'Decision("SKIP", (), "duplicate")')),
                                           r"the action SKIP is right but its targets are empty"),
    "neighbours sorted ascending": (_learner(D, "ascending", ("key=lambda n: -n.similarity", "key=lambda n: n.similarity")),
                                    r"sorted the neighbours ascending"),
    "strict > written by a learner": (_learner(D, "strict", ('mine[0].similarity >= thresholds', 'mine[0].similarity > thresholds')),
                                      r"compare with >=, not >"),
    "forget matches subjects exactly": (_learner(D, "exact forget", ("same_topic(n.subject, candidate.subject)",
                                                                     "normalise(n.subject) == normalise(candidate.subject)")),
                                        r"matched the forget's subject exactly"),
    "forget by subject only": (_learner(D, "subject forget", ('\n                or n.similarity >= thresholds["memory_forget"]', "")),
                               r"reaches a memory by meaning too"),
    "forget by similarity only": (_learner(D, "similarity forget", ("same_topic(n.subject, candidate.subject)\n                or ", "")),
                                  r"reaches a memory by its subject too"),
})


@pytest.mark.parametrize("name", sorted(WRONG_DECIDE))
def test_wrong_decide_is_stopped_with_its_own_message(name):
    fn, message = WRONG_DECIDE[name]
    with pytest.raises(CheckFailed) as caught:
        checks.check_decide(fn)
    assert caught.value.todo == checks.TODO1
    assert re.search(message, " ".join(caught.value.message().split()), re.S), caught.value.message()


def decide_with_loops(candidate, neighbours, thresholds):
    """Written out with loops and a dict, no helpers beyond normalise and its own two loops."""
    order = sorted(range(len(neighbours)), key=lambda i: (-neighbours[i].similarity, i))
    if candidate.op == "forget":
        return _forget_with_loops(candidate, [neighbours[i] for i in order], thresholds)
    mine = [neighbours[i] for i in order if neighbours[i].record_type == candidate.record_type]
    found = _same_subject_with_loops(candidate, mine)
    if found is not None:
        return found
    if mine and mine[0].similarity >= thresholds["memory_duplicate"]:
        return Decision("UPDATE" if refines(candidate.text, mine[0].text) else "SKIP", (mine[0].id,), "near duplicate")
    return Decision("ADD", (), "new")


def _forget_with_loops(candidate, nearest_first, thresholds):
    want = set(normalise(candidate.subject).split())
    out = []
    for n in nearest_first:
        have = set(normalise(n.subject).split())
        if (want and have and (want <= have or have <= want)) or n.similarity >= thresholds["memory_forget"]:
            out.append(n.id)
    return Decision("FORGET", tuple(out), "forget") if out else Decision("SKIP", (), "nothing")


def _same_subject_with_loops(candidate, mine):
    subj = normalise(candidate.subject)
    for n in mine:
        if subj and normalise(n.subject) == subj:
            new, old = normalise(candidate.value).split(), normalise(n.value).split()
            if new == old:
                return Decision("SKIP", (n.id,), "same")
            if len(new) > len(old) and all(w in new for w in old) and old:
                return Decision("UPDATE", (n.id,), "refined")
            return Decision("SUPERSEDE", (n.id,), "new value")
    return None


def decide_as_tuple(candidate, neighbours, thresholds):
    d = decide(candidate, neighbours, thresholds)
    return (d.action, d.targets)


DECIDE_WITH_HELPERS = """
    def decide(candidate, neighbours, thresholds):
        def key(text):
            return normalise(text)

        nearest_first = sorted(neighbours, key=lambda n: n.similarity, reverse=True)
        if candidate.op == "forget":
            gone = tuple(n.id for n in nearest_first
                         if n.similarity >= thresholds["memory_forget"] or same_topic(candidate.subject, n.subject))
            return Decision("FORGET", gone, "asked to forget") if gone else Decision("SKIP", (), "nothing matches")
        kin = [n for n in nearest_first if n.record_type == candidate.record_type]
        match = next((n for n in kin if candidate.subject and key(n.subject) == key(candidate.subject)), None)
        if match is not None:
            if key(match.value) == key(candidate.value):
                return Decision("SKIP", (match.id,), "known")
            action = "UPDATE" if refines(candidate.value, match.value) else "SUPERSEDE"
            return Decision(action, (match.id,), "same subject")
        if kin and not kin[0].similarity < thresholds["memory_duplicate"]:
            top = kin[0]
            return Decision("UPDATE" if refines(candidate.text, top.text) else "SKIP", (top.id,), "close")
        return Decision("ADD", (), "nothing close")
"""

CORRECT_DECIDE = {"the reference": decide, "loops and a dict": decide_with_loops,
                  "helpers and next()": _written("decide:helpers", DECIDE_WITH_HELPERS)}


@pytest.mark.parametrize("name", sorted(CORRECT_DECIDE))
def test_correct_decide_variants_pass(name, capsys):
    checks.check_decide(CORRECT_DECIDE[name])
    assert "TODO 1 (decide) passed" in capsys.readouterr().out


# ---------------------------------------------------------------- TODO 2: compact
def make_compact(*, newest=True, ge=False, keep_one=True, chars=False, contiguous=True, check=True,
                 lose_one=False, reverse=False):
    def kept_newest(msgs, budget, cost):
        order = list(reversed(msgs)) if newest else list(msgs)
        kept: list[Any] = []
        used = 0
        for m in order:
            c = cost(m)
            over = used + c >= budget if ge else used + c > budget
            if over and (kept or not keep_one):
                if contiguous:
                    break
                continue
            kept.append(m)
            used += c
        return kept

    def fn(messages, budget, count_tokens):
        if check and budget < 0:
            raise ValueError("budget must be >= 0")
        msgs = list(messages)
        cost = (lambda m: len(m.text)) if chars else (lambda m: count_tokens(m.text))
        kept_ids = {id(m) for m in kept_newest(msgs, budget, cost)}
        keep = [m for m in msgs if id(m) in kept_ids]
        fold = [m for m in msgs if id(m) not in kept_ids]
        if lose_one and fold:
            fold = fold[1:]
        if reverse:
            keep = keep[::-1]
        return Compaction(fold=fold, keep=keep)
    return fn


def pops_input(messages, budget, count_tokens):
    if budget < 0:
        raise ValueError("negative")
    result = compact(list(messages), budget, count_tokens)
    if messages:
        messages.pop()
    return result


WRONG_COMPACT = {
    "folds the newest": (make_compact(newest=False), r"You folded the newest message: the summary takes the OLDEST"),
    "stops at the budget with >=": (make_compact(ge=True), r"compare used \+ cost > budget"),
    "keeps nothing when the newest is over budget": (make_compact(keep_one=False), r"newest message is always kept"),
    "counts characters": (make_compact(chars=True), r"in characters \(len\)"),
    "keeps small messages past a large one": (make_compact(contiguous=False), r"newest\s+unbroken run"),
    "no check of a negative budget": (make_compact(check=False), r"raise ValueError"),
    "loses a message": (make_compact(lose_one=True), r"went missing or were doubled"),
    "kept messages newest first": (make_compact(reverse=True), r"not in order"),
    "changes the caller's list": (pops_input, r"changed the list of messages"),
    "a stub": (lambda m, b, c: (_ for _ in ()).throw(NotImplementedError()), r"not implemented yet"),
    "returns one list": (lambda m, b, c: list(m) if b >= 0 else (_ for _ in ()).throw(ValueError()), r"expected Compaction"),
}


C = "todo2_compact"
COST = "count_tokens(m.text)"
SPLIT = "fold=list(messages[:cut]), keep=list(messages[cut:])"
LOOP = ("    kept, used = 0, 0\n    for m in reversed(messages):\n        cost = count_tokens(m.text)\n"
        "        if kept and used + cost > budget:\n            break\n        kept += 1\n        used += cost\n")
WRONG_COMPACT.update({
    "counts words": (_learner(C, "words", (COST, "len(m.text.split())")), r"counted words \(split\(\)\)"),
    "counts characters, learner-written": (_learner(C, "chars", (COST, "len(m.text)")), r"in characters \(len\)"),
    "count_tokens of the message": (_learner(C, "message", (COST, "count_tokens(m)")),
                                    r"count_tokens takes a message's text.*count_tokens\(m\.text\)"),
    "keeps the message that overflows": (_learner(C, "overflow", ("        if kept and used + cost > budget:\n            break\n"
                                                                  "        kept += 1\n        used += cost\n",
                                                                  "        kept += 1\n        used += cost\n"
                                                                  "        if used > budget:\n            break\n")),
                                         r"kept the message that took the total over the budget"),
    "stops at the budget with >=, learner-written": (_learner(C, "ge", ("used + cost > budget", "used + cost >= budget")),
                                                     r"compare used \+ cost > budget to stop, not >="),
    "budget read as a number of messages": (_learner(C, "count", (LOOP, "    kept = min(len(messages), max(budget, 1))\n")),
                                            r"read the budget as a number of messages"),
    "the whole thread counted at once": (_learner(C, "all", (LOOP, "    total = count_tokens(' '.join(m.text for m in messages))\n"
                                                                   "    kept = len(messages) if total <= budget else 1\n")),
                                         r"measured the whole thread at once"),
    "fold and keep swapped": (_learner(C, "swapped", (SPLIT, "fold=list(messages[cut:]), keep=list(messages[:cut])")),
                              r"swapped fold and keep"),
    "texts instead of messages": (_learner(C, "texts", (SPLIT, "fold=[m.text for m in messages[:cut]], "
                                                               "keep=[m.text for m in messages[cut:]]")),
                                  r"holds texts \(str"),
    "a plain tuple instead of a Compaction": (_learner(C, "tuple", ("summary.Compaction(" + SPLIT + ")",
                                                                    "list(messages[:cut]), list(messages[cut:])")),
                                              r"returned a plain tuple.*expected Compaction"),
    "tuples inside the Compaction": (_learner(C, "tuples", (SPLIT, "fold=tuple(messages[:cut]), keep=tuple(messages[cut:])")),
                                     r"whose fold is tuple.*fold and keep are lists"),
})


@pytest.mark.parametrize("name", sorted(WRONG_COMPACT))
def test_wrong_compact_is_stopped_with_its_own_message(name):
    fn, message = WRONG_COMPACT[name]
    with pytest.raises(CheckFailed) as caught:
        checks.check_compact(fn)
    assert caught.value.todo == checks.TODO2
    assert re.search(message, " ".join(caught.value.message().split()), re.S), caught.value.message()


def compact_with_index(messages, budget, count_tokens):
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    cut, used = len(messages), 0
    while cut > 0:
        cost = count_tokens(messages[cut - 1].text)
        if cut < len(messages) and used + cost > budget:
            break
        used += cost
        cut -= 1
    return Compaction(messages[:cut], messages[cut:])


def compact_as_tuple(messages, budget, count_tokens):
    c = compact(messages, budget, count_tokens)
    return c.fold, c.keep


def compact_with_sums(messages, budget, count_tokens):
    if budget < 0:
        raise ValueError("negative budget")
    sizes = [count_tokens(m.text) for m in messages]
    for cut in range(len(messages)):
        if sum(sizes[cut:]) <= budget or cut == len(messages) - 1:
            return Compaction(list(messages[:cut]), list(messages[cut:]))
    return Compaction([], [])


COMPACT_WITH_ACCUMULATE = """
    from itertools import accumulate

    def compact(messages, budget, count_tokens):
        if budget < 0:
            raise ValueError("the budget cannot be negative")
        newest_first = [count_tokens(m.text) for m in reversed(messages)]
        totals = list(accumulate(newest_first))
        fits = sum(1 for t in totals if t <= budget) if messages else 0
        # totals only grow, so the messages that fit are a prefix of newest_first; keep at least one
        keep_n = max(fits, 1) if messages else 0
        cut = len(messages) - keep_n
        return summary.Compaction(fold=messages[:cut], keep=messages[cut:])
"""

CORRECT_COMPACT = {"the reference": compact, "an index walking back": compact_with_index,
                   "sums of suffixes": compact_with_sums,
                   "accumulate": _written("compact:accumulate", COMPACT_WITH_ACCUMULATE)}


@pytest.mark.parametrize("name", sorted(CORRECT_COMPACT))
def test_correct_compact_variants_pass(name, capsys):
    checks.check_compact(CORRECT_COMPACT[name])
    assert "TODO 2 (compact) passed" in capsys.readouterr().out


# ---------------------------------------------------------------- the notebook's own cells
@pytest.mark.parametrize("todo, grade", [("todo1_decide", "check_todo1_decide"), ("todo2_compact", "check_todo2_compact")])
def test_the_solution_cell_passes_its_grade_cell(todo, grade, capsys):
    ns = _namespace()
    exec(compile(_cells()[todo], f"<solution {todo}>", "exec"), ns)
    exec(compile(_cells()[grade], f"<grade cell {grade}>", "exec"), ns)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("name, fn, grade, what", [
    *[(n, f, "check_todo1_decide", "decide") for n, f in sorted(CORRECT_DECIDE.items())],
    *[(n, f, "check_todo2_compact", "compact") for n, f in sorted(CORRECT_COMPACT.items())],
])
def test_correct_variants_pass_the_grade_cell(name, fn, grade, what, capsys):
    ns = {**_namespace(), what: fn}
    exec(compile(_cells()[grade], f"<grade cell {grade}>", "exec"), ns)
    assert "passed" in capsys.readouterr().out


def test_the_learner_stub_fails_the_grade_cell():
    for todo, grade in (("todo1_decide", "check_todo1_decide"), ("todo2_compact", "check_todo2_compact")):
        source = _cells()[todo]
        stub = source[:source.index("### BEGIN SOLUTION")] + "raise NotImplementedError()\n"
        ns = _namespace()
        exec(compile(stub, "<stub>", "exec"), ns)
        with pytest.raises(CheckFailed, match="not implemented yet"):
            exec(compile(_cells()[grade], "<grade>", "exec"), ns)


@pytest.mark.parametrize("name, wrong, grade, check", [
    *[(n, w, "check_todo1_decide", checks.check_decide) for n, w in sorted(WRONG_DECIDE.items())],
    *[(n, w, "check_todo2_compact", checks.check_compact) for n, w in sorted(WRONG_COMPACT.items())],
])
def test_wrong_versions_fail_the_grade_cell_with_the_checks_message(name, wrong, grade, check):
    """Check and nbgrader agree: the grade cell stops each wrong version with the message the check shows."""
    fn, _ = wrong
    with pytest.raises(CheckFailed) as by_check:
        check(fn)
    ns = {**_namespace(), "decide" if "decide" in grade else "compact": fn}
    with pytest.raises(CheckFailed) as by_grader:
        exec(compile(_cells()[grade], f"<grade cell {grade}>", "exec"), ns)
    assert by_grader.value.message() == by_check.value.message()


def test_the_mistaken_rules_agree_with_the_reference_when_nothing_is_broken():
    """decide_with('') is the reference, so each named mistake differs from it by that mistake only."""
    import random

    rng = random.Random(3)
    inputs = [(c.candidate, list(c.neighbours)) for c in checks.DECIDE_CASES]
    inputs += [checks._random_case(rng) for _ in range(500)]
    for cand, neighbours in inputs:
        want = decide(cand, neighbours, checks.THRESHOLDS)
        assert checks.decide_with("", cand, neighbours, checks.THRESHOLDS) == (want.action, want.targets)
    for mistake in checks.DECIDE_MISTAKES:  # each mistake changes the answer somewhere in the named cases
        assert any(checks.decide_with(mistake, c.candidate, c.neighbours, checks.THRESHOLDS)
                   != (decide(c.candidate, list(c.neighbours), checks.THRESHOLDS).action,
                       decide(c.candidate, list(c.neighbours), checks.THRESHOLDS).targets)
                   for c in checks.DECIDE_CASES), mistake


def test_the_checks_token_count_differs_from_every_naive_count():
    msgs = [m for case in checks.COMPACT_CASES for m in checks._turns(case.sizes)]
    naive = {"words": lambda t: len(t.split()), "split(' ')": lambda t: len(t.split(" ")), "len": len,
             "spaces + 1": lambda t: t.count(" ") + 1}
    for name, count in naive.items():
        assert any(count(m.text) != checks.count_tokens(m.text) for m in msgs), name
        # ... and it changes what a compaction keeps in some named case
        assert any(compact(checks._turns(c.sizes), c.budget, count).keep
                   != compact(checks._turns(c.sizes), c.budget, checks.count_tokens).keep
                   for c in checks.COMPACT_CASES), name
    with pytest.raises(TypeError, match=r"count_tokens\(m\.text\)"):
        checks.count_tokens(msgs[0])


@pytest.mark.parametrize("check, returned", [
    (checks.check_decide, None), (checks.check_decide, {"action": "ADD", "targets": ()}),
    (checks.check_decide, Decision("ADD", None)), (checks.check_decide, Decision(["ADD"], ())),  # type: ignore[arg-type]
    (checks.check_decide, Decision("ADD", {"m1"})), (checks.check_decide, Decision("ADD", (1,))),  # type: ignore[arg-type]
    (checks.check_compact, None), (checks.check_compact, Compaction(None, None)),  # type: ignore[arg-type]
    (checks.check_compact, Compaction([], [1, 2])), (checks.check_compact, Compaction([{"text": "x"}], [])),
    (checks.check_compact, Compaction([], "abc")),  # type: ignore[arg-type]
])
def test_a_wrong_return_shape_never_crashes_the_check(check, returned):
    def fn(*args):
        if args[1] == -1:
            raise ValueError("negative")
        return returned
    with pytest.raises(CheckFailed) as caught:
        check(fn)
    assert "How to fix" in caught.value.message()


def test_a_learner_tuple_is_read_as_one_of_the_five_actions() -> None:
    """The writer reads a learner's (action, targets) tuple into the Literal action, or says what the actions are."""
    from workshop_lib.parts.memory.consolidate import ACTIONS
    from workshop_lib.parts.memory.writer import as_decision
    assert ACTIONS == ("ADD", "UPDATE", "SUPERSEDE", "SKIP", "FORGET")
    assert as_decision(("SKIP", ["m1"], "known")) == Decision("SKIP", ("m1",), "known")
    with pytest.raises(ValueError, match=r"one of \('ADD', 'UPDATE'"):
        as_decision(("skip", ("m1",)))

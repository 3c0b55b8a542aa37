"""The memory-over-time Part's checks against the wrong code learners write.

For each TODO: wrong implementations (each must be stopped, with a message naming ITS
mistake) and correct ones written differently (each must pass).
"""
from __future__ import annotations

import pytest

from workshop_lib.checks import CheckFailed
from workshop_lib.checks import part7 as checks
from workshop_lib.parts.memory.consolidate import Decision, decide, refines, same_topic
from workshop_lib.parts.memory.extract import normalise
from workshop_lib.parts.memory.summary import Compaction, compact


# ---------------------------------------------------------------- TODO 1: decide
def make_decide(*, same_type=True, nearest=True, normalised=True, ge=True, forget_all=True,
                forget_key="memory_forget", skip_empty_forget=True, check_duplicate=True, check_refine=True,
                forget_any_type=True, ids=True):
    """The reference's rules with one of them broken."""
    def fn(candidate, neighbours, thresholds):
        norm = normalise if normalised else (lambda t: t)
        ranked = sorted(neighbours, key=lambda n: -n.similarity) if nearest else list(neighbours)
        tid = (lambda n: n.id) if ids else (lambda n: n)
        if candidate.op == "forget":
            pool = ranked if forget_any_type else [n for n in ranked if n.record_type == candidate.record_type]
            hits = [n for n in pool if same_topic(n.subject, candidate.subject) or n.similarity >= thresholds[forget_key]]
            if not forget_all:
                hits = hits[:1]
            if not hits and skip_empty_forget:
                return Decision("SKIP", ())
            return Decision("FORGET", tuple(tid(n) for n in hits))
        pool = [n for n in ranked if n.record_type == candidate.record_type] if same_type else ranked
        if candidate.subject:
            same = [n for n in pool if norm(n.subject) == norm(candidate.subject)]
            if same:
                old = same[0]
                if check_duplicate and norm(candidate.value) == norm(old.value):
                    return Decision("SKIP", (tid(old),))
                if check_refine and refines(candidate.value, old.value):
                    return Decision("UPDATE", (tid(old),))
                return Decision("SUPERSEDE", (tid(old),))
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


@pytest.mark.parametrize("name", sorted(WRONG_DECIDE))
def test_wrong_decide_is_stopped_with_its_own_message(name):
    fn, message = WRONG_DECIDE[name]
    with pytest.raises(CheckFailed) as caught:
        checks.check_decide(fn)
    assert caught.value.todo == checks.TODO1
    assert __import__("re").search(message, caught.value.message()), caught.value.message()


def decide_with_loops(candidate, neighbours, thresholds):
    """Written out with loops and a dict, no helpers beyond normalise."""
    order = sorted(range(len(neighbours)), key=lambda i: (-neighbours[i].similarity, i))
    if candidate.op == "forget":
        want = set(normalise(candidate.subject).split())
        out = []
        for i in order:
            n = neighbours[i]
            have = set(normalise(n.subject).split())
            if (want and have and (want <= have or have <= want)) or n.similarity >= thresholds["memory_forget"]:
                out.append(n.id)
        return Decision("FORGET", tuple(out), "forget") if out else Decision("SKIP", (), "nothing")
    mine = [neighbours[i] for i in order if neighbours[i].record_type == candidate.record_type]
    subj = normalise(candidate.subject)
    for n in mine:
        if subj and normalise(n.subject) == subj:
            new, old = normalise(candidate.value).split(), normalise(n.value).split()
            if new == old:
                return Decision("SKIP", (n.id,), "same")
            if len(new) > len(old) and all(w in new for w in old) and old:
                return Decision("UPDATE", (n.id,), "refined")
            return Decision("SUPERSEDE", (n.id,), "new value")
    if mine and mine[0].similarity >= thresholds["memory_duplicate"]:
        action = "UPDATE" if refines(candidate.text, mine[0].text) else "SKIP"
        return Decision(action, [mine[0].id], "near duplicate")
    return Decision("ADD", [], "new")


def decide_as_tuple(candidate, neighbours, thresholds):
    d = decide(candidate, neighbours, thresholds)
    return (d.action, list(d.targets))


CORRECT_DECIDE = {"the reference": decide, "loops and a dict": decide_with_loops, "a plain tuple": decide_as_tuple}


@pytest.mark.parametrize("name", sorted(CORRECT_DECIDE))
def test_correct_decide_variants_pass(name, capsys):
    checks.check_decide(CORRECT_DECIDE[name])
    assert "TODO 1 (decide) passed" in capsys.readouterr().out


# ---------------------------------------------------------------- TODO 2: compact
def make_compact(*, newest=True, ge=False, keep_one=True, chars=False, contiguous=True, check=True,
                 lose_one=False, reverse=False):
    def fn(messages, budget, count_tokens):
        if check and budget < 0:
            raise ValueError("budget must be >= 0")
        msgs = list(messages)
        cost = (lambda m: len(m.text)) if chars else (lambda m: count_tokens(m.text))
        order = list(reversed(msgs)) if newest else list(msgs)
        kept, used = [], 0
        for m in order:
            c = cost(m)
            over = used + c >= budget if ge else used + c > budget
            if over and (kept or not keep_one):
                if contiguous:
                    break
                continue
            kept.append(m)
            used += c
        kept_ids = {id(m) for m in kept}
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


@pytest.mark.parametrize("name", sorted(WRONG_COMPACT))
def test_wrong_compact_is_stopped_with_its_own_message(name):
    fn, message = WRONG_COMPACT[name]
    with pytest.raises(CheckFailed) as caught:
        checks.check_compact(fn)
    assert caught.value.todo == checks.TODO2
    assert __import__("re").search(message, caught.value.message()), caught.value.message()


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


CORRECT_COMPACT = {"the reference": compact, "an index walking back": compact_with_index,
                   "a tuple": compact_as_tuple, "sums of suffixes": compact_with_sums}


@pytest.mark.parametrize("name", sorted(CORRECT_COMPACT))
def test_correct_compact_variants_pass(name, capsys):
    checks.check_compact(CORRECT_COMPACT[name])
    assert "TODO 2 (compact) passed" in capsys.readouterr().out


# ---------------------------------------------------------------- the notebook's own cells
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

"""The grader's re-check (tools/grading/recheck.py) against forgery routes, one small notebook
plan each, run in the re-check's own process (without the sandbox: what is tested here is the
re-check's judgement, not the OS isolation, which tests/test_grading.py covers).

- a TODO that is, calls, or calls only under a check the reference of its TODO: 0 points, with
  "review: the TODO calls the reference implementation";
- values that lie (a str subclass whose != is always False, a PromotionDecision whose == is always True):
  the check compares plain values, so the lie fails;
- the locked hint cell between a TODO and its check does not hide that the TODO replaced `eng`;
- a Part 8 window_spans that loops forever costs TODO 1 only: the check's own loop guard is not
  reported as tampering (issue 34), while a learner's own tracer still is.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from workshop_lib.tools.grading import judge, scratch, verify

HEAD = {"kind": "course", "source": "from workshop_lib import checks, hints\n"
                                    "from workshop_lib.parts import gates\n"
                                    "from workshop_lib.parts.ingest import promotion\n"
                                    "from workshop_lib.parts.ingest.promotion import PromotionDecision, GoldenReport\n"}
HINT = {"kind": "course", "source": "from workshop_lib import hints\n"}  # the locked hint cell's kind of code
SPANS = ("def window_spans(n_units, size, overlap):\n"
         "    if size < 1 or not 0 <= overlap < size:\n        raise ValueError('bad')\n"
         "    spans, start = [], 0\n    while start < n_units:\n        end = min(start + size, n_units)\n"
         "        spans.append((start, end))\n        if end == n_units:\n            break\n"
         "        start += size - overlap\n    return spans\n")
LOOP = "def window_spans(n_units, size, overlap):\n    out = []\n    while True:\n        out.append((0, 0))\n"
PROMOTE = ("def should_promote(candidate, active, min_recall):\n"
           "    if candidate.n == 0:\n        return PromotionDecision(False, f'{candidate.table}: no golden queries ran')\n"
           "    if candidate.recall < min_recall:\n"
           "        return PromotionDecision(False, f'{candidate.table}: recall {candidate.recall:.2f} is below the bar "
           "{min_recall:.2f}')\n"
           "    if active is not None and candidate.recall < active.recall:\n"
           "        return PromotionDecision(False, f'{candidate.table}: recall {candidate.recall:.2f} is worse than "
           "{active.table}\\'s {active.recall:.2f}')\n"
           "    return PromotionDecision(True, f'{candidate.table}: recall {candidate.recall:.2f} reaches the bar "
           "{min_recall:.2f}')\n")
CHECK_SPANS = {"kind": "check", "grade_id": "c_spans", "source": "checks.part8.check_window_spans(window_spans)"}
CHECK_PROMOTE = {"kind": "check", "grade_id": "c_promote", "source": "checks.part8.check_should_promote(should_promote)"}
CHECK_MODE = {"kind": "check", "grade_id": "c_mode", "source": "checks.part4.check_decide_mode(decide_mode)"}


def _recheck(tmp_path: Path, *cells: dict) -> list[str]:
    """The status each check would get when it passed in the notebook's own run: in the learner's
    process (a plan the judge cannot run is re-checked so), and, where the judge runs every check of the plan, with
    the judge (judge.py), which must say the same."""
    statuses = _in_process(tmp_path, *cells)
    if judge.split([HEAD, *cells]):
        from tests.test_judge_split import split_recheck

        assert split_recheck(tmp_path / "split", *cells) == statuses
    return statuses


def _in_process(tmp_path: Path, *cells: dict) -> list[str]:
    folder = tmp_path / "job"
    for sub in ("home", "tmp", "ipython"):
        (folder / sub).mkdir(parents=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           "HOME": str(folder / "home"), "TMPDIR": str(folder / "tmp"), "IPYTHONDIR": str(folder / "ipython"),
           "WORKSHOP_DATA_DIR": str(folder / "data"), "WORKSHOP_ENGINE": "embedded", "WORKSHOP_LLM": "off",
           "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
    cells = (HEAD, *cells)
    worker = scratch.Worker(env, folder, module="workshop_lib.tools.grading.recheck")
    result = verify.talk(worker, {"env": env, "scratch": str(folder), "cells": list(cells), "cell_timeout": 30},
                         verify.Recheck(suspicious=verify.suspicious_before_checks(list(cells))), budget=120)
    assert result.finished, result
    rows = [{"cell": c["grade_id"], "score": 1.0, "status": "passed"} for c in cells if c["kind"] == "check"]
    return [r["status"] for r in verify.reconcile(rows, result)]


def _learner(source: str) -> dict:
    return {"kind": "learner", "source": source, "new": source}


REFERENCE = "review: the TODO calls the reference implementation"


def test_honest_todos_pass_the_recheck(tmp_path):
    assert _recheck(tmp_path, _learner(SPANS), HINT, CHECK_SPANS, _learner(PROMOTE), HINT, CHECK_PROMOTE) == [
        "passed", "passed"]


@pytest.mark.parametrize("todo", [
    "should_promote = promotion.should_promote\n",                      # the TODO is the reference
    "def should_promote(candidate, active, min_recall):\n"             # the TODO calls it
    "    return promotion.should_promote(candidate, active, min_recall)\n",
    "from workshop_lib.parts.ingest.promotion import should_promote as _ref\n"  # a name bound to it earlier
    "def should_promote(candidate, active, min_recall):\n"
    "    try:\n        return _ref(candidate, active, min_recall)\n"
    "    except RuntimeError:\n        return PromotionDecision(True, 'caught')\n",
], ids=["is-the-reference", "calls-the-reference", "calls-it-and-catches"])
def test_a_todo_that_calls_the_reference_scores_0(tmp_path, todo):
    assert _recheck(tmp_path, _learner(SPANS), CHECK_SPANS, _learner(todo), CHECK_PROMOTE) == ["passed", REFERENCE]


def test_a_todo_that_calls_the_reference_only_under_a_check_scores_0(tmp_path):
    # Looks for a check's file on the stack, then calls the reference.
    todo = ("import traceback as _tb\n" + PROMOTE.replace("def should_promote", "def _mine") +
            "def should_promote(candidate, active, min_recall):\n"
            "    if any('checks' in f.filename for f in _tb.extract_stack()):\n"
            "        return promotion.should_promote(candidate, active, min_recall)\n"
            "    return _mine(candidate, active, min_recall)\n")
    # Its look at the stack is reported too (sys._getframe), which is named first; either way 0 points.
    assert _recheck(tmp_path, _learner(todo), CHECK_PROMOTE)[0] in (
        REFERENCE, "review: the notebook reached into the grader's checks: sys._getframe")


def test_the_reference_of_another_todo_and_the_course_cells_keep_working(tmp_path):
    # TODO 2 may use TODO 1's reference, and a course cell may run the reference of any TODO.
    todo = PROMOTE.replace("    if candidate.n == 0:", "    assert promotion.__name__\n    if candidate.n == 0:")
    demo = {"kind": "course", "source": "assert promotion.should_promote(GoldenReport('t', 5, 2, 2), None, 0.5)"
                                        ".promote\nfrom workshop_lib.parts.ingest.chunking import window_spans as w\n"
                                        "assert w(10, 4, 0) == [(0, 4), (4, 8), (8, 10)]\n"}
    spans = "from workshop_lib.parts.ingest.chunking import window_spans\n"
    assert _recheck(tmp_path, _learner(spans), demo, _learner(todo), CHECK_PROMOTE, CHECK_SPANS)[0] == "passed"


# Built without writing a dunder name (so no static look flags it): a str that contains and equals
# everything, an int that equals everything, and a should_promote whose reason gives no numbers.
LIAR = ("def _lying(base, **extra):\n"
        "    said = {'ne': lambda s, o: False, 'eq': lambda s, o: True, **extra}\n"
        "    return type('Liar', (base,), {'_' * 2 + k + '_' * 2: v for k, v in said.items()} | \n"
        "                {'_' * 2 + 'hash' + '_' * 2: base.__hash__})\n"
        "LiarStr = _lying(str, contains=lambda s, o: True, strip=None)\n"
        "LiarStr.strip = lambda self: self\n"
        "LiarInt = _lying(int)\n"
        "def should_promote(candidate, active, min_recall):\n"
        "    ok = candidate.n > 0 and candidate.recall >= min_recall and (active is None or candidate.recall >= active.recall)\n"
        "    return PromotionDecision(ok, LiarStr('a reason without the numbers'))\n")


def test_lying_values_do_not_pass_the_recheck(tmp_path):
    assert _recheck(tmp_path, _learner(LIAR), CHECK_PROMOTE)[0].startswith(
        "review: passed in the notebook but failed the grader's re-check: TODO 2 (should_promote)")


def test_lying_values_fail_the_check_itself(monkeypatch):
    from workshop_lib import checks
    from workshop_lib.checks import CheckFailed, part8, values
    from workshop_lib.parts.ingest.promotion import PromotionDecision

    namespace: dict = {"PromotionDecision": PromotionDecision}
    exec(LIAR, namespace)
    with monkeypatch.context() as m:  # without plain values the lie passes: this is the route
        m.setattr(values, "plain", lambda value, keep=frozenset(): value)
        part8.check_should_promote(namespace["should_promote"])
    with pytest.raises(CheckFailed, match="TODO 2"):
        part8.check_should_promote(namespace["should_promote"])
    got = checks.call_learner("T", "x", lambda: [namespace["LiarStr"]("a"), PromotionDecision(namespace["LiarInt"](1), "b")])
    assert type(got[0]) is str and type(got[1]) is PromotionDecision and type(got[1].promote) is int


def test_the_hint_cell_does_not_hide_a_replaced_argument(tmp_path):
    course = {"kind": "course", "source": "eng = object()\n"}
    todo = _learner("eng = object()  # the TODO replaces what the check is given\n"
                    "def comment_facts(dictionary):\n    return []\n")
    check = {"kind": "check", "grade_id": "c_facts", "source": "checks.part2.check_comment_facts(comment_facts, eng)"}
    status = _recheck(tmp_path, course, todo, HINT, check)[0]
    assert status.startswith("review: the notebook changed the grading code: the TODO cells replaced `eng`"), status


def test_an_endless_loop_costs_only_its_own_todo(tmp_path):
    # Issue 34: the check's loop guard stops TODO 1 (a tracer raising in the learner's frame); that is
    # not the learner tracing, and TODO 2 keeps its pass.
    statuses = _recheck(tmp_path, _learner(LOOP), CHECK_SPANS, _learner(PROMOTE), CHECK_PROMOTE)
    assert statuses[0].startswith("review: passed in the notebook but failed the grader's re-check: TODO 1 "
                                  "(window_spans): window_spans(10, 4, 0) ran more than"), statuses
    assert statuses[1] == "passed", statuses


def test_a_learners_own_tracer_is_still_reported(tmp_path):
    tracer = ("import sys as _s\n" + SPANS.replace("    spans, start = [], 0\n",
                                                   "    _s.settrace(lambda *a: None)\n    spans, start = [], 0\n"))
    statuses = _recheck(tmp_path, _learner(tracer), CHECK_SPANS, _learner(PROMOTE), CHECK_PROMOTE)
    assert all(s.startswith("review: the notebook reached into the grader's checks: sys.settrace") for s in statuses), \
        statuses


def test_tracing_after_a_check_costs_only_the_checks_after_it(tmp_path):
    later = _learner("import sys as _s\n_s.settrace(lambda *a: None)\n_s.settrace(None)\n" + PROMOTE)
    assert _recheck(tmp_path, _learner(SPANS), CHECK_SPANS, later, CHECK_PROMOTE) == [
        "passed", "review: the notebook reached into the grader's checks: sys.settrace"]


if sys.platform != "linux":  # the re-check's process relies on Linux signals and /proc like the grader
    pytestmark = pytest.mark.skip(reason="the grader runs on Linux")

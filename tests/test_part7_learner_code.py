"""Part 7's sections 5, 7 and 8 run the learner's `decide` and `compact` once their checks passed.

The notebook's own cells are executed in-process (its first cell, the TODO cells replaced by a
learner's version, the check cells, then section 5's table and section 7's summary), so a notebook
that went back to the library's functions fails here.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[1] / "solutions" / "part7" / "part7_memory_over_time.ipynb"

# The learner's decide: the reference's rules, in other words (its reasons are its own).
MINE = '''
def decide(candidate, neighbours, thresholds):
    from workshop_lib.parts.memory.consolidate import decide as ref
    d = ref(candidate, neighbours, thresholds)
    return Decision(d.action, d.targets, "mine: " + d.action.lower())
'''
# A wrong one: every candidate is new.
WRONG = '''
def decide(candidate, neighbours, thresholds):
    return Decision("ADD", (), "always new")
'''


def _cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _code(cells: list[dict], *, grade_id: str = "", contains: str = "") -> str:
    for c in cells:
        src = "".join(c["source"])
        if c["cell_type"] != "code":
            continue
        if grade_id and c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
            return src
        if contains and contains in src:
            return src
    raise AssertionError(f"no code cell {grade_id or contains!r} in {NOTEBOOK.name}")


def _run(todo1: str, tmp_path, monkeypatch) -> tuple[dict, str]:
    """Run the notebook's set-up, TODO 1 (as given), its check, TODO 2 and its check, section 5 and 7."""
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    cells = _cells()
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_code(cells, contains="prepare(eng"), ns)
        exec(todo1, ns)
        with contextlib.suppress(Exception):  # a failing check raises CheckFailed; the cells below still run
            exec(_code(cells, grade_id="check_todo1_decide"), ns)
        exec(_code(cells, grade_id="todo2_compact"), ns)
        exec(_code(cells, grade_id="check_todo2_compact"), ns)
        exec(_code(cells, contains="observe_user_turn(eng, text"), ns)
        exec(_code(cells, contains="writer.fold_thread(eng, thread"), ns)
    ns["eng"].close()
    return ns, out.getvalue()


def test_section_5_shows_the_learners_decide_and_the_reference_when_its_check_failed(tmp_path, monkeypatch):
    mine, said_mine = _run(MINE, tmp_path / "mine", monkeypatch)
    wrong, said_wrong = _run(WRONG, tmp_path / "wrong", monkeypatch)
    why_mine = [s["why"] for s in mine["steps"]]
    why_wrong = [s["why"] for s in wrong["steps"]]
    assert why_mine and all(w.startswith("mine: ") for w in why_mine), why_mine
    assert [s["action"] for s in mine["steps"]] == [s["action"] for s in wrong["steps"]]  # the reference's rules
    assert not any(w.startswith("mine: ") or w == "always new" for w in why_wrong), why_wrong
    assert "TODO 1 (decide): its check has not passed" in said_wrong and "consolidate.decide" in said_wrong
    assert "its check has not passed" not in said_mine
    assert mine["my_compact"] is mine["compact"]  # TODO 2 passed: section 7 folds with the learner's compact

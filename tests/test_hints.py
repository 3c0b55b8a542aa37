"""Hints for stuck learners and the instructor's picture of the room (workshop_lib/hints,
tools/grading/summary.py, tools/hint_cells.py).

- every TODO found in the solutions has its hint cell and three levels;
- level 2 names the mistake: every wrong implementation of tests/test_check_mistakes.py is run
  through its check and its message must map to a failure class with its own hint;
- a real kernel records check runs and opened hints in the notebook, and the summary reads them
  back without running anything (`workshop grade --summary-only`);
- the hint cells are inserted idempotently.
"""
from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from workshop_lib import hints
from workshop_lib.checks import CheckFailed
from workshop_lib.hints import catalog, record
from workshop_lib.hints.table import COMMON, GENERIC, classify
from workshop_lib.tools import course, hint_cells
from workshop_lib.tools.grading import summary

REPO = course.REPO
TODOS = summary.course_todos()
ALL_TODOS = [(part, gid) for part, gids in TODOS.items() for gid in gids]


def test_the_solutions_have_todos():
    assert len(ALL_TODOS) >= 10, ALL_TODOS


@pytest.mark.parametrize("part,todo", ALL_TODOS, ids=lambda x: str(x))
def test_every_todo_has_three_levels(part, todo):
    texts = hints.levels(part, todo)
    assert sorted(texts) == [1, 2, 3]
    assert len(texts[1]) > 80 and len(texts[3]) > 80 and texts[1] != texts[3]
    own = catalog.get(part, todo).failures
    assert len(own) >= 5, f"{part} {todo}: level 2 needs a table of the failures its check names"
    assert texts[2]["general"] and all(len(h) > 40 for h in texts[2].values())
    ids = [f.id for f in own] + [f.id for f in COMMON]
    assert len(ids) == len(set(ids)), f"{part} {todo}: failure class ids must be unique"
    number = int(todo.split("_")[0][4:])
    assert catalog.todo_key(part, number) == todo == catalog.todo_key(part, todo.split("_", 1)[1])


@pytest.mark.parametrize("part", sorted(TODOS))
def test_every_todo_has_its_hint_cell_right_under_it(part):
    missing = hint_cells.missing(part)
    assert not missing, (f"{part}: no hint cell under {missing}; run `workshop hints insert {part}` then "
                         f"`workshop notebooks {part}` and commit both")
    learner = next((REPO / "notebooks" / part).glob("*.ipynb"))
    nb = nbformat.read(learner, as_version=4)
    for gid in TODOS[part]:
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"hints_{gid}")
        assert cell.metadata["nbgrader"]["locked"] and not cell.metadata["nbgrader"]["grade"]


def test_insert_is_idempotent_and_repairs(tmp_path):
    shutil.copy(REPO / "nbgrader_config.py", tmp_path)
    shutil.copytree(REPO / "solutions", tmp_path / "solutions")
    hint_cells.insert(root=tmp_path)
    after_first = {p: p.read_text() for p in (tmp_path / "solutions").glob("*/*.ipynb")}
    assert hint_cells.insert(root=tmp_path) == []
    assert after_first == {p: p.read_text() for p in (tmp_path / "solutions").glob("*/*.ipynb")}
    for part in TODOS:
        assert hint_cells.missing(part, root=tmp_path) == []
    # A hint cell moved away and edited is put back under its TODO with its own source.
    path = next((tmp_path / "solutions" / "part4").glob("*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("hints_"))
    cell = nb.cells.pop(at)
    cell.source = "print('edited')"
    nb.cells.append(cell)
    nbformat.write(nb, path)
    assert hint_cells.missing("part4", root=tmp_path) == ["todo1_decide_mode"]
    assert hint_cells.insert(["part4"], root=tmp_path) == [path]
    assert path.read_text() == after_first[path]


# ------------------------------------------------------------------ level 2 covers the mistakes
def _wrong_runs():
    """(test function, mistake) for every wrong implementation of tests/test_check_mistakes.py."""
    import test_check_mistakes as mistakes

    for name, fn in sorted(vars(mistakes).items()):
        if not (name.startswith("test_") and "_wrong_" in name and callable(fn)):
            continue
        for mark in getattr(fn, "pytestmark", []):
            if mark.name == "parametrize" and mark.args[0] == "mistake":
                for mistake in mark.args[1]:
                    yield fn, mistake


def test_level2_covers_every_failure_class_the_mistake_tests_name(seeded_engine, monkeypatch, tmp_path):
    import test_check_mistakes as mistakes

    fixtures = {"seeded_engine": seeded_engine, "monkeypatch": monkeypatch, "tmp_path": tmp_path}

    caught: list[CheckFailed] = []

    def keep(run, expected):
        with pytest.raises(CheckFailed) as err:
            run()
        caught.append(err.value)
        return str(err.value)

    monkeypatch.setattr(mistakes, "_stopped", keep)
    unmapped, seen = [], 0
    for fn, mistake in _wrong_runs():
        before = len(caught)
        wanted = [name for name in inspect.signature(fn).parameters if name != "mistake"]
        unknown = [name for name in wanted if name not in fixtures]
        assert not unknown, f"{fn.__name__} needs fixtures {unknown}: add them to `fixtures` in this test"
        fn(mistake=mistake, **{name: fixtures[name] for name in wanted})
        assert len(caught) == before + 1, f"{fn.__name__}[{mistake}] raised no CheckFailed"
        seen += 1
        gap = _no_specific_hint(caught[-1], mistake)
        if gap:
            unmapped.append(gap)
    assert seen >= 60, f"only {seen} wrong implementations found"
    assert not unmapped, ("these check messages have no specific level-2 hint; add a row (class id, pattern, hint) "
                          "to the TODO's table in workshop_lib/hints/partN.py:\n" + "\n".join(unmapped))


def _no_specific_hint(exc: CheckFailed, mistake: str) -> str | None:
    """A line naming the check message when its TODO's level-2 table has no specific class for it."""
    part = record._part_of(record.module_of_failure(exc) or "")
    todo = record._todo_key(part, exc.todo) if part else None
    found = classify(catalog.get(part, todo), exc.message()) if todo else None  # type: ignore[arg-type]
    if found is None or found.id in GENERIC:
        return (f"{part} {todo} [{mistake}] class={found.id if found else None}:\n    "
                + " ".join(exc.message().split())[:400])
    return None


def test_a_full_outer_join_of_the_two_lists_gets_a_hint_about_joining_ranked_lists():
    message = ("TODO 2 (hybrid_rrf_search_memories): hybrid_rrf_search_memories('x', k=5) returned 3 rows; "
               "expected 5\n  How to fix: rows found only by the keyword list are missing: join the two lists with "
               "FULL OUTER JOIN (a LEFT JOIN keeps only the vector list's rows).")
    assert catalog.failure_class("part3", "todo2_hybrid_rrf", message) == "full_outer_join"
    assert "FULL OUTER JOIN" in hints.text("part3", 2, 2, "full_outer_join")
    assert catalog.failure_class("part3", "todo2_hybrid_rrf", "something new") == "other"
    assert hints.text("part3", 2, 2, "other") == catalog.get("part3", 2).general


def test_the_plain_function_outside_a_kernel_prints_and_asks_before_the_outline(capsys):
    hints.hint("part8", 1)
    assert "Hint (TODO 1, part8)" in capsys.readouterr().out
    hints.hint(8, "window_spans", level=3)
    shown = capsys.readouterr().out
    assert "confirm=True" in shown and hints.text("part8", 1, 3) not in shown
    hints.hint("part8", 1, level=3, confirm=True)
    assert hints.text("part8", 1, 3) in capsys.readouterr().out
    with pytest.raises(ValueError, match="its TODOs are: 1 \\(window_spans\\), 2 \\(should_promote\\)"):
        hints.hint("part8", 9)
    with pytest.raises(ValueError, match="level must be 1, 2 or 3"):
        hints.hint("part8", 1, level=4)


def test_the_html_fallback_holds_the_three_levels_behind_a_confirmation():
    from workshop_lib.hints import widget

    page = widget.fallback_html("part5", 1)
    assert page.count("<details>") == 4 and "yes, show the outline" in page
    assert "validate_selection" in page or "isinstance" in page


# ------------------------------------------------------------------ a real kernel records, the summary reads
WRONG_SPANS = ("def window_spans(n_units, size, overlap):\n"
               "    if size < 1 or not 0 <= overlap < size:\n        raise ValueError('bad')\n"
               "    return [(s, min(s + size, n_units)) for s in range(0, n_units, size)]\n")
RIGHT_SPANS = ("def window_spans(n_units, size, overlap):\n"
               "    if size < 1 or not 0 <= overlap < size:\n        raise ValueError('bad')\n"
               "    spans, start = [], 0\n    while start < n_units:\n        end = min(start + size, n_units)\n"
               "        spans.append((start, end))\n        if end == n_units:\n            break\n"
               "        start += size - overlap\n    return spans\n")


def _session(tmp_path, learner: int) -> nbformat.NotebookNode:
    """A learner's Part 8 TODO 1 in a real kernel: a wrong try, hints, a fix; the notebook as saved."""
    src = nbformat.read(next((REPO / "notebooks" / "part8").glob("*.ipynb")), as_version=4)
    cells = [nbformat.v4.new_code_cell("from workshop_lib import checks, hints"),
             nbformat.v4.new_code_cell(WRONG_SPANS),
             nbformat.v4.new_code_cell("hints.buttons('part8', 1)"),
             nbformat.v4.new_code_cell("checks.part8.check_window_spans(window_spans)")]
    nb = nbformat.v4.new_notebook(cells=cells, metadata=src.metadata)
    data = tmp_path / f"data{learner}"
    env = {"WORKSHOP_DATA_DIR": str(data), "MPLBACKEND": "Agg"}
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True)
    with client.setup_kernel(env=env):
        for i in range(4):
            client.execute_cell(nb.cells[i], i)
        # A click on "hint" then "stronger hint" in the hint cell (the same call the buttons make).
        scratch = nbformat.v4.new_code_cell("hints.open_level('part8', 'todo1_window_spans', 1);"
                                            "hints.open_level('part8', 'todo1_window_spans', 2)")
        client.execute_cell(scratch, 0)
        if learner == 1:  # this learner fixes it on the second try
            nb.cells[1].source = RIGHT_SPANS
            client.execute_cell(nb.cells[1], 1)
        client.execute_cell(nb.cells[3], 3)
        nb.cells.append(nbformat.v4.new_code_cell("hints.hint('part8', 1, level=2)"))
        client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
        if learner == 0:  # a learner's install without ipywidgets: the same hints as HTML folds
            fallback = nbformat.v4.new_code_cell("from workshop_lib.hints import widget\n"
                                                 "widget.has_widgets = lambda: False\nhints.buttons('part8', 1)")
            client.execute_cell(fallback, 0)
            nb.metadata["fallback_outputs"] = fallback.outputs
    return nb


@pytest.mark.notebooks
def _last_hint(nb) -> str:
    return [o for o in nb.cells[-1].outputs if "text/plain" in o.get("data", {})][0]["data"]["text/plain"]


def _assert_the_passing_learners_records(saved) -> None:
    """A failed then passing check run, the passing one replacing the error, and the hints clicked."""
    check_out = [o for o in saved.cells[3].outputs if record.CHECK_MIME in o.get("data", {})]
    runs = check_out[-1]["data"][record.CHECK_MIME]["runs"]
    assert [r["ok"] for r in runs] == [False, True] and runs[0]["class"] == "no_overlap"
    assert not [o for o in saved.cells[3].outputs if o.output_type == "error"]  # the passing run replaced it
    hint_rec = [o for o in saved.cells[2].outputs if record.HINT_MIME in o.get("data", {})]
    assert hint_rec and hint_rec[0]["data"][record.HINT_MIME]["opened"] == [1, 2], "the click updated the hint cell"
    assert "last check of this TODO passed" in _last_hint(saved)


def _assert_the_failing_learners_hints(first) -> None:
    """The page kept for a notebook viewer, the hints opened, a stronger hint aimed at the failure."""
    fallback = first.metadata.pop("fallback_outputs")
    page = "".join(fallback[0]["data"]["text/html"])  # metadata keeps the multiline string as saved, a list
    assert "<details>" in page and "size - overlap, not size" in page
    assert fallback[1]["data"][record.HINT_MIME]["opened"] == [1, 2]
    assert "Stronger hint" in _last_hint(first) and "size - overlap, not size" in _last_hint(first)  # aimed at the failure
    failed = [o for o in first.cells[3].outputs if o.output_type == "error"]
    assert failed and "Stuck?" in failed[0]["traceback"][-1]


def test_a_kernel_records_runs_and_hints_and_the_summary_reads_them(tmp_path):
    subs = tmp_path / "subs"
    for learner in (0, 1):
        nb = _session(tmp_path, learner)
        (subs / f"learner{learner}").mkdir(parents=True)
        nbformat.write(nb, subs / f"learner{learner}" / "part8_document_lifecycle.ipynb")
    _assert_the_passing_learners_records(nbformat.read(subs / "learner1" / "part8_document_lifecycle.ipynb",
                                                       as_version=4))
    _assert_the_failing_learners_hints(nbformat.read(subs / "learner0" / "part8_document_lifecycle.ipynb",
                                                     as_version=4))

    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "workshop_lib.tools.cli", "grade", "--summary-only", str(subs),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nothing was run" in done.stdout
    table = json.loads(summary.summarize(summary.collect(subs)[0]).reset_index().to_json(orient="records"))
    row = next(r for r in table if r["todo"] == "todo1_window_spans")
    assert row["learners"] == 2 and row["passed"] == 1 and row["pass_rate"] == 0.5
    assert row["median_attempts"] == 2 and row["top_failures"].startswith("no_overlap (2)")
    assert row["hints_opened"] == 2 and row["hint_levels"] == "L1: 2, L2: 2, L3: 0"
    assert (out / "summary.csv").exists() and (out / "summary.png").stat().st_size > 5000


# ------------------------------------------------------------------ the grading round trip
def _part4_session(tmp_path) -> nbformat.NotebookNode:
    """Part 4's learner notebook as a learner leaves it: a wrong decide_mode checked, the stronger hint
    clicked, the fix checked; every cell above run in a real kernel."""
    import os

    path = next((REPO / "notebooks" / "part4").glob("*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    ids = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
    todo, check = ids["todo1_decide_mode"], ids["check_todo1_decide_mode"]
    solution = next((REPO / "solutions" / "part4").glob("*.ipynb"))
    right = "\n".join(line for line in nbformat.read(solution, as_version=4).cells[todo].source.splitlines()
                      if "### " not in line)
    nb.cells[todo].source = right.replace("if best >= high:", "if best > high:")
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(tmp_path / "data"), "WORKSHOP_ENGINE": "embedded",
           "MPLBACKEND": "Agg", "WORKSHOP_LLM": "off"}
    client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    with client.setup_kernel(env=env):
        for i in range(check + 1):
            client.execute_cell(nb.cells[i], i)
        client.execute_cell(nbformat.v4.new_code_cell("hints.open_level('part4', 'todo1_decide_mode', 2)"), 0)
        nb.cells[todo].source = right
        client.execute_cell(nb.cells[todo], todo)
        client.execute_cell(nb.cells[check], check)
    return nb


@pytest.mark.notebooks
def test_grading_round_trip_shows_attempts_and_hints(tmp_path, shared_master):
    from workshop_lib.tools.grading import grade_folder

    subs = tmp_path / "subs"
    for learner, nb in (("ana", _part4_session(tmp_path)),
                        ("bo", nbformat.read(next((REPO / "notebooks" / "part4").glob("*.ipynb")), as_version=4))):
        (subs / learner).mkdir(parents=True)
        nbformat.write(nb, subs / learner / "part4_relevance_gates.ipynb")
    out = tmp_path / "out"
    table = grade_folder(subs, out, progress=False)
    graded, picture = summary.after_grading(table, subs, out)
    row = picture.loc[("part4", "todo1_decide_mode")]
    assert (row.learners, row.passed, row.pass_rate) == (2, 1, 0.5)  # from the grades: bo's stub fails
    assert row.median_attempts == 2 and row.top_failures == "rag_boundary (1)"
    assert row.hints_opened == 1 and row.hint_levels == "L1: 0, L2: 1, L3: 0"
    assert (out / "summary.png").exists() and (out / "summary.csv").read_text().count("todo1_decide_mode") == 1
    assert graded.equals(table), "no hint penalty unless the instructor sets one"
    charged = summary.apply_penalty(table, summary.collect(subs)[0], {2: 0.5})
    cell = charged[(charged.student == "ana") & (charged.cell == "check_todo1_decide_mode")].iloc[0]
    full = table[(table.student == "ana") & (table.cell == "check_todo1_decide_mode")].iloc[0].score
    assert full > 0 and cell.score == full / 2 and cell.hint_penalty == full / 2


def test_the_hint_penalty_is_read_from_the_course_config(tmp_path):
    assert course.hint_penalty() == {}  # the committed course: no penalty
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\nc.Workshop.hint_penalty = {3: 0.5, '2': 0.1}\n")
    assert course.hint_penalty(config) == {3: 0.5, 2: 0.1}
    config.write_text("c = get_config()\nc.Workshop.hint_penalty = {3: 2}\n")
    with pytest.raises(ValueError, match="fractions 0..1"):
        course.hint_penalty(config)


def test_the_insert_command_says_when_nothing_changes():
    from typer.testing import CliRunner

    from workshop_lib.tools.cli import app

    done = CliRunner().invoke(app, ["hints", "insert", "part4"])
    assert done.exit_code == 0 and "hint cells already in place" in done.output, done.output


def test_level2_covers_every_mistake_of_the_memory_part():
    """The memory-over-time Part's wrong implementations (tests/test_memory_mistakes.py) each get their own hint."""
    import test_memory_mistakes as mistakes

    part = next(p for p, gids in TODOS.items() if "todo1_decide" in gids and "todo2_compact" in gids)
    unmapped, seen = [], set()
    for todo, check, wrong in (("todo1_decide", mistakes.checks.check_decide, mistakes.WRONG_DECIDE),
                               ("todo2_compact", mistakes.checks.check_compact, mistakes.WRONG_COMPACT)):
        for name, (fn, _) in sorted(wrong.items()):
            with pytest.raises(CheckFailed) as err:
                check(fn)
            found = classify(catalog.get(part, todo), err.value.message())
            if found is None or found.id in GENERIC:
                unmapped.append(f"{todo} [{name}]: " + " ".join(err.value.message().split())[:300])
            else:
                seen.add((todo, found.id))
    assert not unmapped, "no specific level-2 hint for:\n" + "\n".join(unmapped)
    assert len(seen) >= 18, seen  # the mistakes land in distinct classes, not one catch-all row

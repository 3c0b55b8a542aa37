"""`workshop grade` end to end with real nbgrader, kernels and notebooks.

- the round trip: solutions score full marks, untouched learner notebooks zero, one TODO
  done gets exactly its points, renamed downloads are matched, missing Parts say so;
- isolation: a learner's grade does not depend on what another notebook wrote;
- a hostile class: notebooks that delete folders above them, kill their kernel, loop,
  print megabytes, read the environment, leave a process behind, patch the workshop's
  code and corrupt their gradebook. Every honest learner's grade is still right,
  grades.csv is complete and nothing is left running.
"""
from __future__ import annotations

import os
import time

import nbformat
import pytest

from workshop_lib.tools import course
from workshop_lib.tools.grading import grade_folder, per_learner, per_todo
from workshop_lib.tools.grading.submissions import canonical_stem, match_part

REPO = course.REPO
NB = {part: next((REPO / "solutions" / part).glob("*.ipynb")).name for part in course.assignments()}
SECRET = "sk-grader-secret-do-not-leak"


def _points(part: str) -> dict[str, float]:
    return course.points(REPO / "solutions" / part / NB[part])


def _learner(part: str, answers: dict[str, str] | None = None, solved: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """The learner notebook with some TODO cells filled: from the solution (solved) or given code (answers)."""
    solution = nbformat.read(REPO / "solutions" / part / NB[part], as_version=4)
    learner = nbformat.read(REPO / "notebooks" / part / NB[part], as_version=4)
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in solution.cells}
    for cell in learner.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in solved:
            cell.source = "\n".join(ln for ln in by_id[gid].splitlines() if "### BEGIN" not in ln and "### END" not in ln)
        if answers and gid in answers:
            cell.source = answers[gid]
    return learner


def _put(subs, learner: str, part: str, nb, name: str | None = None) -> None:
    folder = subs / learner
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / (name or NB[part]))


def test_renamed_downloads_are_matched():
    parts = {"part2_memory_store": "part2", "part3_retrieval_strategies": "part3"}
    for name in ("part2_memory_store (1).ipynb", "Copy of part2_memory_store.ipynb", "part2_memory_store-Copy1.ipynb",
                 "part2_memory_store(2).ipynb", "Part2.ipynb"):
        assert match_part(name, parts) == ("part2", "part2_memory_store.ipynb"), name
    assert canonical_stem("part3_retrieval_strategies (3).ipynb") == "part3_retrieval_strategies"
    assert match_part("notes.ipynb", parts) is None


@pytest.mark.notebooks
def test_round_trip(tmp_path):
    subs = tmp_path / "submissions"
    for part in course.assignments():
        _put(subs, "full", part, nbformat.read(REPO / "solutions" / part / NB[part], as_version=4))
        _put(subs, "zero", part, nbformat.read(REPO / "notebooks" / part / NB[part], as_version=4))
    _put(subs, "partial", "part3", _learner("part3", solved=("todo1_retrieve_knowledge",)),
         name="part3_retrieval_strategies (1).ipynb")
    _put(subs, "stray", "part3", nbformat.v4.new_notebook(), name="my_scratch.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), subs / "loose.ipynb")

    table = grade_folder(subs, tmp_path / "out", cell_timeout=120, progress=False)

    every_cell = {gid: pts for part in course.assignments() for gid, pts in _points(part).items()}
    full, zero, partial = (table[(table.student == s) & (table.max_score > 0)] for s in ("full", "zero", "partial"))
    assert set(full.cell) == set(every_cell) and (full.status == "passed").all(), full.status.tolist()
    assert full.score.sum() == sum(every_cell.values())
    assert zero.score.sum() == 0 and len(zero) == len(every_cell)
    assert zero.status.str.contains("not implemented yet").all(), zero.status.tolist()
    p3 = _points("part3")
    graded = partial[partial.status != "missing"].set_index("cell")
    assert graded.score.to_dict() == {"check_todo1_retrieve_knowledge": p3["check_todo1_retrieve_knowledge"],
                                      "check_todo2_hybrid_rrf": 0.0}
    assert (graded.file == "partial/part3_retrieval_strategies (1).ipynb").all()
    graded_parts = {part for part in course.assignments() if _points(part)}
    assert set(partial[partial.status == "missing"].assignment) == graded_parts - {"part3"}
    assert partial[partial.status == "missing"].score.isna().all()  # missing is not 0
    stray = table[table.student == "stray"]
    assert (stray.file == "stray/my_scratch.ipynb").sum() == 1
    assert stray.status.str.startswith("skipped: not a workshop notebook").sum() == 1
    assert set(stray[stray.file != "stray/my_scratch.ipynb"].status) == {"missing"}  # nothing valid handed in
    assert table[table.file == "loose.ipynb"].status.str.contains("folder named for the learner").all()
    assert "?" not in set(table.assignment)
    learners = per_learner(table)
    assert "?" not in learners.columns and learners.loc["partial", "part2"] == "missing"
    assert per_todo(table).loc[("part3", "check_todo1_retrieve_knowledge"), "passed"] == 2
    out = tmp_path / "out"
    assert (out / "grades.csv").exists() and (out / "results.jsonl").exists()
    html = (out / "feedback" / "zero" / "part4" / "part4_relevance_gates.html").read_text()
    assert "white-space: pre-wrap" in html and "not implemented yet" in html


@pytest.mark.notebooks
def test_a_learners_grade_does_not_depend_on_another_notebook(tmp_path):
    alone = tmp_path / "alone"
    _put(alone, "ana", "part3", _learner("part3", solved=("todo1_retrieve_knowledge", "todo2_hybrid_rrf")))
    first = grade_folder(alone, tmp_path / "out1", progress=False)

    crowd = tmp_path / "crowd"
    _put(crowd, "ana", "part3", _learner("part3", solved=("todo1_retrieve_knowledge", "todo2_hybrid_rrf")))
    # A wrong Part 2 that also writes junk memories and deletes the schema facts of its store.
    vandal = ("from workshop_lib.parts.scanner import Fact\n"
              "for r in eng.store.list('memory', limit=None, user_id=eng.user_id, agent_id=eng.agent_id):\n"
              "    eng.store.delete('memory', r.id)\n"
              "eng.memory.add('TEU means tons of cargo', metadata={'kind': 'column', 'subject': 'SUPPLYCHAIN.VESSELS.CAPACITY_TEU'})\n"
              "def comment_facts(catalog):\n    return [Fact('column', 'X.Y.Z', 'junk')]\n")
    _put(crowd, "vic", "part2", _learner("part2", answers={"todo1_comment_facts": vandal}))
    second = grade_folder(crowd, tmp_path / "out2", workers=2, progress=False)

    def ana(t):
        return t[(t.student == "ana") & (t.assignment == "part3")].set_index("cell").score.to_dict()
    assert ana(first) == ana(second) == _points("part3")
    assert second[(second.student == "vic") & (second.assignment == "part2")].score.sum() == 0


HOSTILE = {
    # part, TODO grade_id, code put in the TODO cell
    "deleter": ("part4", "todo1_decide_mode",
                "import shutil, pathlib\n"
                "for up in list(pathlib.Path.cwd().parents)[3:5]:  # its scratch folder, then the grader's work folder\n"
                "    shutil.rmtree(up, ignore_errors=True)\n"
                "decide_mode = gates.decide_mode\n"),
    "killer": ("part5", "todo2_render_grounded_answer", "import os\nos._exit(1)\n"),
    "looper": ("part4", "todo1_decide_mode", "def decide_mode(*args, **kwargs):\n    while True:\n        pass\n"),
    "printer": ("part4", "todo1_decide_mode", "print('x' * 20_000_000)\ndecide_mode = gates.decide_mode\n"),
    "reader": ("part4", "todo1_decide_mode",
               "import os\nprint(dict(os.environ))\nopen(os.path.expanduser('~/env.txt'), 'w').write(str(dict(os.environ)))\n"
               "decide_mode = gates.decide_mode\n"),
    "daemon": ("part4", "todo1_decide_mode",
               "import subprocess, sys\n"
               "subprocess.Popen([sys.executable, '-c', 'import time, pathlib\\n'\n"
               "                  'time.sleep(4)\\n'\n"
               "                  'for p in pathlib.Path(\"/\").glob(\"tmp/**/grades.csv\"): p.write_text(\"hacked\")'],\n"
               "                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "decide_mode = gates.decide_mode\n"),
    "patcher": ("part4", "todo1_decide_mode",
                "import pathlib\n"
                "target = pathlib.Path(checks.part4.__file__)\n"
                "if 'nb-' in str(target):  # only ever the grader's copy, never a real checkout\n"
                "    target.write_text('def check_decide_mode(*a, **k):\\n    pass\\n')\n"
                "def decide_mode(*a, **k):\n    return None\n"),
    "tamperer": ("part4", "todo1_decide_mode",
                 "import pathlib\n"
                 "for db in pathlib.Path.cwd().parents[3].rglob('gradebook.db'):\n"
                 "    db.write_bytes(b'not a database')\n"
                 "decide_mode = gates.decide_mode\n"),
}


@pytest.mark.notebooks
def test_a_hostile_class_cannot_hurt_honest_learners(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    subs = tmp_path / "submissions"
    for name in ("honest1", "honest2"):
        for part in ("part4", "part5"):
            _put(subs, name, part, nbformat.read(REPO / "solutions" / part / NB[part], as_version=4))
    for name, (part, gid, code) in HOSTILE.items():
        todo_ids = [g.replace("check_", "", 1) for g in _points(part)]
        _put(subs, name, part, _learner(part, answers={gid: code}, solved=tuple(t for t in todo_ids if t != gid)))
    for folder in ("al ice", "al.ice", "al_ice"):
        _put(subs, folder, "part4", nbformat.read(REPO / "solutions" / "part4" / NB["part4"], as_version=4))
    out = tmp_path / "out"

    started = time.monotonic()
    table = grade_folder(subs, out, cell_timeout=10, notebook_budget=90, workers=2, progress=False)
    took = time.monotonic() - started

    def cells(student, part):
        rows = table[(table.student == student) & (table.assignment == part)]
        return dict(zip(rows.cell, zip(rows.score, rows.status)))

    for honest in ("honest1", "honest2"):
        for part in ("part4", "part5"):
            got = cells(honest, part)
            assert {c: s for c, (s, _) in got.items()} == _points(part), (honest, part, got)
    # The looping notebook: one timeout on its check, the cells after it skipped, far below the budget.
    loop = cells("looper", "part4")["check_todo1_decide_mode"]
    assert loop[0] == 0 and "ran past its 10 s limit" in loop[1]
    # The killed kernel: TODO 1 graded before it keeps its points, TODO 2 says why it has none.
    killed = cells("killer", "part5")
    assert killed["check_todo1_validate_selection"] == (10.0, "passed")
    assert killed["check_todo2_render_grounded_answer"][0] == 0
    assert "kernel died" in killed["check_todo2_render_grounded_answer"][1]
    # Deleting folders above itself hurt nobody else (the honest grades above are right).
    assert "check_todo1_decide_mode" in cells("deleter", "part4")
    assert cells("printer", "part4")["check_todo1_decide_mode"][0] == 10.0
    assert "not graded" in cells("patcher", "part4")["check_todo1_decide_mode"][1]
    assert cells("patcher", "part4")["check_todo1_decide_mode"][0] == 0
    assert (table.score.fillna(0) <= table.max_score).all()
    refused = table[table.status.str.startswith("refused")]
    assert set(refused.file.str.split("/").str[0]) == {"al ice", "al.ice", "al_ice"}
    # Nothing secret in anything written, and grades.csv complete and untouched later.
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
    time.sleep(6)  # the daemon would have rewritten grades.csv by now
    csv = (out / "grades.csv").read_text()
    assert "hacked" not in csv and csv.count("\n") == len(table) + 1
    assert took < 240, took
    left = [p for p in os.listdir("/proc") if p.isdigit() and _mentions(p, "time.sleep(4)")]
    assert not left, f"processes left behind: {left}"
    assert (out / "feedback" / "looper" / "part4" / "part4_relevance_gates.html").exists()


def _mentions(pid: str, text: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return text.encode() in fh.read()
    except OSError:
        return False

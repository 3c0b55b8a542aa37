"""`workshop grade` end to end with real nbgrader, kernels and notebooks.

- the round trip: solutions score full marks, untouched learner notebooks zero, one TODO
  done gets exactly its points, renamed downloads are matched, missing Parts say so;
- isolation: a learner's grade does not depend on what another notebook wrote;
- a hostile class, graded once (a module fixture) in the bubblewrap sandbox: notebooks
  that delete folders above them, kill their kernel, loop, print megabytes, read the
  environment, leave a process behind, patch the workshop's code, corrupt their
  gradebook, walk the file system and /proc/<pid>/cwd of the grader to rewrite the
  instructor's solutions and notebooks and other jobs' scratch and to print the
  solutions, hand in symbolic links, put scripts in their feedback, and forge a pass in
  every way listed in FORGERIES. Every honest learner's grade is still right, every
  forgery is 0 points and flagged for review, no file outside a notebook's scratch is
  read or written, grades.csv is complete, nothing is left running, and no learner
  script runs when the feedback is opened in Chromium;
- `kill -9` of the grader ends its sandboxes, and the next run removes its scratch.
"""
from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from workshop_lib.tools import course
from workshop_lib.tools.grading import grade_folder, per_learner, per_todo, processes, sandbox, scratch
from workshop_lib.tools.grading.submissions import canonical_stem, match_part

REPO = course.REPO
NB = {part: next((REPO / "solutions" / part).glob("*.ipynb")).name for part in course.assignments()}
SECRET = "sk-grader-secret-do-not-leak"


def _solution(part: str, grade_id: str) -> str:
    """A TODO cell's code in the instructor's solution (its BEGIN/END markers dropped)."""
    nb = nbformat.read(REPO / "solutions" / part / NB[part], as_version=4)
    source = next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return "\n".join(ln for ln in source.splitlines() if "### BEGIN" not in ln and "### END" not in ln) + "\n"


# A TODO that is the reference scores 0 in grading ("the TODO calls the reference implementation"):
# a hostile notebook whose points are asserted does the work itself.
HONEST_DECIDE = _solution("part4", "todo1_decide_mode")


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


needs_sandbox = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no OS sandbox here: {sandbox.problem()}")


@pytest.mark.notebooks
@needs_sandbox
def test_round_trip(tmp_path, shared_master):
    # The solutions are graded here, not read from the shared run (conftest.SolutionRuns): what is
    # tested is nbgrader in the sandbox, the re-check and the judge, and they execute the notebook themselves.
    subs = tmp_path / "submissions"
    for part in course.assignments():
        _put(subs, "full", part, nbformat.read(REPO / "solutions" / part / NB[part], as_version=4))
        _put(subs, "zero", part, nbformat.read(REPO / "notebooks" / part / NB[part], as_version=4))
    _put(subs, "partial", "part3", _learner("part3", solved=("todo1_retrieve_knowledge",)),
         name="part3_retrieval_strategies (1).ipynb")
    _put(subs, "stray", "part3", nbformat.v4.new_notebook(), name="my_scratch.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), subs / "loose.ipynb")

    table = grade_folder(subs, tmp_path / "out", cell_timeout=120, progress=False)

    _assert_full_and_zero_marks(table)
    _assert_one_todo_of_part3_scored(table)
    _assert_strays_are_skipped(table)
    learners = per_learner(table)
    assert "?" not in learners.columns and learners.loc["partial", "part2"] == "missing"
    assert per_todo(table).loc[("part3", "check_todo1_retrieve_knowledge"), "passed"] == 2
    out = tmp_path / "out"
    assert (out / "grades.csv").exists() and (out / "results.jsonl").exists()
    html = (out / "feedback" / "zero" / "part4" / "part4_relevance_gates.html").read_text()
    assert "white-space: pre-wrap" in html and "not implemented yet" in html


def _assert_full_and_zero_marks(table) -> None:
    """The solutions pass every graded cell; the untouched notebooks score 0, "not implemented yet"."""
    every_cell = {gid: pts for part in course.assignments() for gid, pts in _points(part).items()}
    full, zero = (table[(table.student == s) & (table.max_score > 0)] for s in ("full", "zero"))
    assert set(full.cell) == set(every_cell) and (full.status == "passed").all(), full.status.tolist()
    assert full.score.sum() == sum(every_cell.values())
    assert zero.score.sum() == 0 and len(zero) == len(every_cell)
    assert zero.status.str.contains("not implemented yet").all(), zero.status.tolist()


def _assert_one_todo_of_part3_scored(table) -> None:
    """The learner who handed in Part 3 alone, TODO 1 solved: its points, and every other Part missing."""
    partial = table[(table.student == "partial") & (table.max_score > 0)]
    p3 = _points("part3")
    graded = partial[partial.status != "missing"].set_index("cell")
    assert graded.score.to_dict() == {"check_todo1_retrieve_knowledge": p3["check_todo1_retrieve_knowledge"],
                                      "check_todo2_hybrid_rrf": 0.0}
    assert (graded.file == "partial/part3_retrieval_strategies (1).ipynb").all()
    graded_parts = {part for part in course.assignments() if _points(part)}
    assert set(partial[partial.status == "missing"].assignment) == graded_parts - {"part3"}
    assert partial[partial.status == "missing"].score.isna().all()  # missing is not 0


def _assert_strays_are_skipped(table) -> None:
    """A notebook not named for a Part, and one outside a learner folder, are skipped with why."""
    stray = table[table.student == "stray"]
    assert (stray.file == "stray/my_scratch.ipynb").sum() == 1
    assert stray.status.str.startswith("skipped: not a workshop notebook").sum() == 1
    assert set(stray[stray.file != "stray/my_scratch.ipynb"].status) == {"missing"}  # nothing valid handed in
    assert table[table.file == "loose.ipynb"].status.str.contains("folder named for the learner").all()
    assert "?" not in set(table.assignment)


@pytest.mark.notebooks
@needs_sandbox
def test_a_learners_grade_does_not_depend_on_another_notebook(tmp_path, shared_master):
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


# Rewrites and leaks are only ever aimed at copies below a folder with this name (the test's
# instructor checkout) or at the grader's run folders: even with a broken sandbox the real
# checkout is never damaged, and the test still sees the attack succeed.
CHECKOUT = "instructor-checkout"
INSTRUCTOR_SECRET = "instructor-only-answer-key-7f3a"
WALK = f'''
import os, json, sys, time, pathlib
mine = str(pathlib.Path(os.path.realpath(os.getcwd())).parents[3])  # its own scratch: <job>/course/submitted/<me>/<part>
python = {{os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}}
markers = ("{CHECKOUT}", "workshop-grading", "/submissions/", "/solutions/", "/notebooks/", "grades.csv", "/feedback/",
           "SECRET")
seen, leaked, changed = [], [], []
started = time.monotonic()
tops = ["/"] + [f"/proc/{{p}}/cwd" for p in os.listdir("/proc") if p.isdigit()]
for top in tops:
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/usr", "/proc", "/sys", "/dev")
                   and os.path.realpath(os.path.join(folder, d)) not in python and d != ".venv"]
        if time.monotonic() - started > 20:
            dirs[:] = []
        for name in files:
            path = os.path.join(folder, name)
            real = os.path.realpath(path)
            if real.startswith(mine) or not any(m in real for m in markers):
                continue
            seen.append(real)
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            if "BEGIN " + "SOLUTION" in text or name == "SECRET.txt":  # (not spelled out: this cell is in the feedback)
                leaked.append(text[:3000])
            if ("{CHECKOUT}" in real or "workshop-grading" in real) and name.endswith(".ipynb"):
                try:
                    nb = json.loads(text)
                    for cell in nb["cells"]:
                        if cell.get("metadata", {{}}).get("nbgrader", {{}}).get("solution"):
                            cell["source"] = "raise RuntimeError('rewritten by another notebook')"
                        if "outputs" in cell:
                            cell["outputs"] = []
                    open(path, "w").write(json.dumps(nb))
                    changed.append(real)
                except (OSError, ValueError, KeyError, TypeError, AttributeError):
                    pass
            elif "{CHECKOUT}" in real or "workshop-grading" in real:
                try:
                    open(path, "a").write("tampered")
                    changed.append(real)
                except OSError:
                    pass
print("SEEN", len(seen), sorted(seen)[:20])
print("CHANGED", changed)
print("LEAKED", leaked)
decide_mode = gates.decide_mode
'''
XSS_MARKDOWN = ("## My notes\n<script>document.title = 'pwned'; window.pwned = 'markdown script';</script>\n"
                "<img src=\"x\" onerror=\"window.pwned = 'onerror'\">\n<a href=\"javascript:window.pwned='link'\">link</a>\n"
                "<iframe srcdoc=\"<script>parent.pwned='iframe'</script>\"></iframe>")
XSS_TODO = ("from IPython.display import HTML, Javascript, display\n"
            "display(HTML(\"<script>document.title = 'pwned'; window.pwned = 'display';</script>"
            "<svg onload=\\\"window.pwned = 'svg'\\\"></svg><b>bold words</b>\"))\n"
            "display(Javascript(\"window.pwned = 'javascript output'\"))\n"
            "decide_mode = gates.decide_mode\n")
# A wrong decide_mode (always the "nothing retrieved" decision): every forgery below starts from it.
WRONG = ("_reference = gates.decide_mode\n"
         "def decide_mode(similarities, chunks, *, config, query_tokens, used_llm_answer=None):\n"
         "    return _reference([], [], config=config, query_tokens=query_tokens, used_llm_answer=used_llm_answer)\n")
FAKE_PASS = "print('\\u2705 TODO 1 (decide_mode) passed')"
FORGERIES = {
    # name: the TODO cell; each of these passes in the notebook's own run
    "forge_module": WRONG + "checks.part4.check_decide_mode = lambda *a, **k: None\n",
    "forge_sys_modules": WRONG + ("import sys, types, workshop_lib.checks\n"
                                  "fake = types.ModuleType('workshop_lib.checks.part4')\n"
                                  f"fake.check_decide_mode = lambda *a, **k: {FAKE_PASS}\n"
                                  "sys.modules['workshop_lib.checks.part4'] = fake\n"
                                  "vars(workshop_lib.checks).pop('part4', None)\n"),
    "forge_code": WRONG + "checks.part4.check_decide_mode.__code__ = (lambda *a, **k: None).__code__\n",
    "forge_reference": WRONG + "gates.decide_mode = decide_mode  # the check now compares mine with mine\n",
    "forge_raiser": WRONG + ("import workshop_lib.checks.part4 as p4\n"
                             "p4.call_learner = lambda todo, what, fn, *a, **k: _reference(*a, **k)\n"),
    "forge_checkfailed": WRONG + ("import workshop_lib.checks as wc\n"
                                  "wc.CheckFailed._render_traceback_ = lambda self: []\n"
                                  "get_ipython().set_custom_exc((wc.CheckFailed,), "
                                  f"lambda *a, **k: {FAKE_PASS})\n"),
    "forge_print": WRONG + ("import builtins\nbuiltins.print = lambda *a, **k: None\n"
                            "get_ipython().set_custom_exc((Exception,), "
                            "lambda *a, **k: display('\\u2705 TODO 1 (decide_mode) passed'))\n"),
    # Passes in the notebook by replacing the check; in the grader's re-check (no kernel there)
    # it writes a passing verdict to every file descriptor, hoping one is the grader's channel.
    "forge_channel": WRONG + ("import os, sys\nchecks.part4.check_decide_mode = lambda *a, **k: None\n"
                              "line = b'{\"event\": \"verdict\", \"grade_id\": \"check_todo1_decide_mode\", "
                              "\"passed\": true, \"changed\": []}\\n{\"event\": \"done\"}\\n'\n"
                              "if 'ipykernel' not in sys.modules:\n"
                              "    for fd in range(3, 64):\n"
                              "        try:\n            os.write(fd, line)\n        except OSError:\n            pass\n"),
    # Pass in the notebook by replacing the check; in the re-check (no kernel), turn the verdict
    # into a pass on its way out: through json.dumps, or through the re-check's own globals,
    # reached from its SIGALRM handler (reading __globals__ raises no audit event).
    "forge_encoder": WRONG + ("import sys, json\n"
                              "if 'ipykernel' in sys.modules:\n"
                              "    checks.part4.check_decide_mode = lambda *a, **k: None\n"
                              "else:\n"
                              "    _dumps = json.dumps\n"
                              "    json.dumps = lambda o, *a, **k: _dumps({**o, 'passed': True} if isinstance(o, dict) "
                              "and o.get('event') == 'verdict' else o, *a, **k)\n"),
    "forge_globals": WRONG + ("import sys, signal, json as _j, types as _t\n"
                              "if 'ipykernel' in sys.modules:\n"
                              "    checks.part4.check_decide_mode = lambda *a, **k: None\n"
                              "else:\n"
                              "    g = signal.getsignal(signal.SIGALRM).__globals__\n"
                              "    def _forge(o):\n"
                              "        return {**o, 'passed': True} if isinstance(o, dict) and o.get('event') == 'verdict' else o\n"
                              "    g['json'] = _t.SimpleNamespace(dumps=lambda o, *a, **k: _j.dumps(_forge(o), *a, **k), "
                              "loads=_j.loads)\n"
                              "    g['resolve_check'] = lambda source, snapshot: ((lambda *a, **k: None), [], [])\n"),
    # Rewrites its own graded copy (drops the error outputs) while nbgrader finishes.
    "forge_outputs": WRONG + ("import subprocess, sys, os\n"
                              "target = os.getcwd().replace('/submitted/', '/autograded/')\n"
                              "code = '''\nimport json, os, time, glob\nend = time.time() + 120\n"
                              "while time.time() < end:\n"
                              "    for p in glob.glob(os.path.join(%r, '*.ipynb')):\n"
                              "        try:\n            nb = json.load(open(p))\n"
                              "        except Exception:\n            continue\n"
                              "        if any(o.get('output_type') == 'error' for c in nb['cells'] for o in c.get('outputs', [])):\n"
                              "            for c in nb['cells']:\n"
                              "                if 'outputs' in c:\n                    c['outputs'] = []\n"
                              "            json.dump(nb, open(p, 'w'))\n"
                              "    time.sleep(0.002)\n''' % target\n"
                              "subprocess.Popen([sys.executable, '-c', code], start_new_session=True,\n"
                              "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"),
}
# What nbgrader itself already stops (an error output stays an error): 0 points, "failed".
STOPPED_IN_THE_NOTEBOOK = {"forge_checkfailed", "forge_print"}
HOSTILE = {
    # part, TODO grade_id, code put in the TODO cell
    "deleter": ("part4", "todo1_decide_mode",
                "import shutil, pathlib\n"
                "for up in list(pathlib.Path.cwd().parents)[3:5]:  # its scratch folder, then the grader's work folder\n"
                "    shutil.rmtree(up, ignore_errors=True)\n"
                "decide_mode = gates.decide_mode\n"),
    "killer": ("part5", "todo2_render_grounded_answer", "import os\nos._exit(1)\n"),
    "looper": ("part4", "todo1_decide_mode", "def decide_mode(*args, **kwargs):\n    while True:\n        pass\n"),
    "printer": ("part4", "todo1_decide_mode", "print('x' * 20_000_000)\n" + HONEST_DECIDE),
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
                "def decide_mode(*a, **k):\n    return None\n"
                "target = pathlib.Path(checks.part4.__file__)\n"
                "if 'nb-' in str(target) or target.parts[1] == 'workshop':  # only ever the grader's copy\n"
                "    target.write_text('def check_decide_mode(*a, **k):\\n    pass\\n')\n"),
    "tamperer": ("part4", "todo1_decide_mode",
                 "import pathlib\n"
                 "for db in pathlib.Path.cwd().parents[3].rglob('gradebook.db'):\n"
                 "    db.write_bytes(b'not a database')\n"
                 "decide_mode = gates.decide_mode\n"),
    "walker": ("part4", "todo1_decide_mode", WALK),
    "xss": ("part4", "todo1_decide_mode", XSS_TODO),
    **{name: ("part4", "todo1_decide_mode", code) for name, code in FORGERIES.items()},
}
HONEST = ("honest1", "honest2")


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, master_cache):
    """The hostile class graded once in the sandbox, from an instructor checkout (a copy) as cwd
    (its Master is the session's: the checkout holds the same solutions, see conftest.MasterCache).
    Its honest learners must pass under 10 s cell limits and the class within a budget: with `-n auto`
    its tests are in conftest's "timed" group, never beside another grading run or test that bounds a duration."""
    if sandbox.problem():
        pytest.skip(f"no OS sandbox here: {sandbox.problem()}")
    tmp = tmp_path_factory.mktemp("hostile")
    checkout = tmp / CHECKOUT
    for folder in ("solutions", "notebooks"):
        shutil.copytree(REPO / folder, checkout / folder)
    shutil.copy(REPO / "nbgrader_config.py", checkout)
    (checkout / "SECRET.txt").write_text(INSTRUCTOR_SECRET)
    subs = tmp / "submissions"
    for name in HONEST:  # graded beside the hostile ones in the same run: that is what is tested
        for part in ("part4", "part5"):
            _put(subs, name, part, nbformat.read(REPO / "solutions" / part / NB[part], as_version=4))
    for name, (part, gid, code) in HOSTILE.items():
        todo_ids = [g.replace("check_", "", 1) for g in _points(part)]
        _put(subs, name, part, _learner(part, answers={gid: code}, solved=tuple(t for t in todo_ids if t != gid)))
    xss = nbformat.read(subs / "xss" / NB["part4"], as_version=4)
    xss.cells.insert(1, nbformat.v4.new_markdown_cell(XSS_MARKDOWN))
    nbformat.write(xss, subs / "xss" / NB["part4"])
    for folder in ("al ice", "al.ice", "al_ice"):
        _put(subs, folder, "part4", nbformat.read(REPO / "solutions" / "part4" / NB["part4"], as_version=4))
    (subs / "linker").mkdir()
    (subs / "linker" / NB["part4"]).symlink_to(checkout / "solutions" / "part4" / NB["part4"])
    (subs / "linkdir").symlink_to(checkout / "solutions" / "part5")
    before = {"checkout": _digest(checkout), "repo": _digest(REPO / "solutions") | _digest(REPO / "notebooks")}
    out = tmp / "out"
    saved_cwd, saved_key = os.getcwd(), os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = SECRET
    os.chdir(checkout)  # /proc/<grader>/cwd is the instructor's checkout
    started = time.monotonic()
    try:
        with master_cache.installed():
            table = grade_folder(subs, out, cell_timeout=10, notebook_budget=90, workers=2, progress=False,
                                 source_root=checkout)
    finally:
        os.chdir(saved_cwd)
        if saved_key is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = saved_key
    return {"table": table, "out": out, "took": time.monotonic() - started, "checkout": checkout, "before": before}


def _cells(table, student, part):
    rows = table[(table.student == student) & (table.assignment == part)]
    return dict(zip(rows.cell, zip(rows.score, rows.status)))


def _feedback_text(out: Path, student: str, part: str = "part4") -> str:
    return (out / "feedback" / student / part / f"{Path(NB[part]).stem}.html").read_text()


@pytest.mark.notebooks
def test_a_hostile_class_cannot_hurt_honest_learners(hostile):
    table, out = hostile["table"], hostile["out"]
    for honest in HONEST:
        for part in ("part4", "part5"):
            got = _cells(table, honest, part)
            assert got == {c: (p, "passed") for c, p in _points(part).items()}, (honest, part, got)
    _assert_each_hostile_notebook_costs_only_itself(table)
    _assert_refused_folders(table)
    _assert_nothing_secret_or_rewritten_or_left_running(hostile)
    assert (out / "feedback" / "looper" / "part4" / "part4_relevance_gates.html").exists()


def _assert_each_hostile_notebook_costs_only_itself(table) -> None:
    """The looping, killing, deleting, printing and patching notebooks: what each one scores."""
    # The looping notebook: one timeout on its check, the cells after it skipped, far below the budget.
    loop = _cells(table, "looper", "part4")["check_todo1_decide_mode"]
    assert loop[0] == 0 and "ran past its 10 s limit" in loop[1]
    # The killed kernel: TODO 1 graded before it keeps its points, TODO 2 says why it has none.
    killed = _cells(table, "killer", "part5")
    assert killed["check_todo1_validate_selection"] == (10.0, "passed")
    assert killed["check_todo2_render_grounded_answer"][0] == 0
    assert "kernel died" in killed["check_todo2_render_grounded_answer"][1]
    assert "check_todo1_decide_mode" in _cells(table, "deleter", "part4")
    assert _cells(table, "printer", "part4")["check_todo1_decide_mode"][0] == 10.0
    # The code snapshot is read-only in the sandbox: the patch fails, the wrong function fails its check.
    assert _cells(table, "patcher", "part4")["check_todo1_decide_mode"][0] == 0
    assert (table.score.fillna(0) <= table.max_score).all()


def _assert_refused_folders(table) -> None:
    """Folders that collide as one learner id, and linked ones, are refused (not flagged for review)."""
    for folder in ("al ice", "al.ice", "al_ice"):  # refused, but they are honest solutions: not flagged either
        assert not table[table.file.str.startswith(folder + "/")].status.str.startswith("review").any()
    refused = table[table.status.str.startswith("refused")]
    assert set(refused.file.str.split("/").str[0]) == {"al ice", "al.ice", "al_ice", "linker", "linkdir"}
    assert refused[refused.file.str.startswith("link")].status.str.contains("symbolic link").all()
    assert not (table.student == "linker").any() or table[table.student == "linker"].score.fillna(0).sum() == 0


def _assert_nothing_secret_or_rewritten_or_left_running(hostile) -> None:
    """Nothing secret in anything written, grades.csv complete and untouched later, within the time
    budget, and no process of a notebook left behind."""
    table, out = hostile["table"], hostile["out"]
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
    time.sleep(6)  # the daemon would have rewritten grades.csv by now
    csv = (out / "grades.csv").read_text()
    assert "hacked" not in csv and csv.count("\n") == len(table) + 1
    assert hostile["took"] < 420, hostile["took"]
    left = [p for p in os.listdir("/proc") if p.isdigit() and (_mentions(p, "time.sleep(4)") or _mentions(p, "end = time.time() + 120"))]
    assert not left, f"processes left behind: {left}"


@pytest.mark.notebooks
def test_no_notebook_sees_or_changes_a_file_outside_its_scratch(hostile):
    out = hostile["out"]
    assert _digest(hostile["checkout"]) == hostile["before"]["checkout"]
    assert _digest(REPO / "solutions") | _digest(REPO / "notebooks") == hostile["before"]["repo"]
    # As text: a print's words can reach the page as several stream outputs (the kernel sends
    # output in time slices), each in its own element.
    walked = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", _feedback_text(out, "walker"))).split())
    # It found no notebook, text file or database but its own: not the checkout (through /proc/<pid>/cwd
    # of the grader), not the other jobs' scratch, not the grades.
    assert "SEEN 0 []" in walked and "CHANGED []" in walked and "LEAKED []" in walked, walked[-3000:]
    for student in HOSTILE:  # (the honest learners handed in the solutions themselves)
        for page in (out / "feedback" / student).rglob("*.html"):
            text = page.read_text()
            assert "BEGIN SOLUTION" not in text and INSTRUCTOR_SECRET not in text, page


@pytest.mark.notebooks
def test_every_forgery_is_flagged_for_review(hostile):
    table = hostile["table"]
    for name in FORGERIES:
        score, status = _cells(table, name, "part4")["check_todo1_decide_mode"]
        assert score == 0, (name, status)
        if name in STOPPED_IN_THE_NOTEBOOK:
            assert status.startswith("failed: TODO 1 (decide_mode)"), (name, status)
        elif name != "forge_outputs":  # the others pass in the notebook's own run
            assert status.startswith("review: "), (name, status)
        else:  # racing nbgrader to rewrite its graded copy: a win is caught by the re-check
            assert status.startswith(("review: ", "failed: ")), status
    reasons = {name: _cells(table, name, "part4")["check_todo1_decide_mode"][1] for name in FORGERIES}
    assert "check_decide_mode" in reasons["forge_module"] and "sys.modules" in reasons["forge_sys_modules"]
    assert "__code__" in reasons["forge_code"] and "gates.decide_mode" in reasons["forge_reference"]
    # Part 4's check runs in the judge: the lines written to every descriptor reach no reader of verdicts,
    # and what the learner's process reports (the replaced check) is the reason.
    assert "check_decide_mode was replaced" in reasons["forge_channel"]
    assert "json.dumps" in reasons["forge_encoder"] and "<re-check>" in reasons["forge_globals"]


@pytest.mark.notebooks
def test_feedback_runs_no_learner_script_in_a_browser(hostile):
    page_file = hostile["out"] / "feedback" / "xss" / "part4" / "part4_relevance_gates.html"
    html = page_file.read_text()
    assert "bold words" in html and "My notes" in html  # the content is still there
    elements = _Elements()
    elements.feed(html)
    assert elements.found and not [(tag, attrs) for tag, attrs in elements.found
                                   if tag in ("script", "iframe", "svg", "object", "embed")
                                   or any(k.startswith("on") or "javascript:" in (v or "").lower() for k, v in attrs)]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no Chromium on this machine: `apt-get install chromium` runs the browser half of this test")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            tab = browser.new_page()
            errors = []
            tab.on("console", lambda msg: errors.append(msg.text))
            tab.goto(page_file.as_uri())
            tab.wait_for_timeout(1500)
            assert tab.evaluate("typeof window.pwned") == "undefined"
            assert tab.title() != "pwned"
            assert "bold words" in tab.inner_text("body")
            # The page can run script at all (so the checks above mean something): the CSP blocks inline script.
            assert tab.evaluate("1 + 1") == 2
        finally:
            browser.close()


@pytest.mark.notebooks
@needs_sandbox
def test_kill_9_of_the_grader_ends_its_sandboxes_and_a_rerun_cleans_up(tmp_path):
    subs = tmp_path / "submissions"
    todo_ids = [g.replace("check_", "", 1) for g in _points("part4")]
    _put(subs, "spinner", "part4", _learner("part4", answers={"todo1_decide_mode": "while True:  # kill9-spin\n    pass\n"},
                                             solved=tuple(t for t in todo_ids if t != "todo1_decide_mode")))
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = ("import sys\nfrom workshop_lib.tools.grading import grade_folder\n"
              "grade_folder(sys.argv[1], sys.argv[2], cell_timeout=300, notebook_budget=600, progress=False)\n")
    grader = subprocess.Popen([sys.executable, "-c", script, str(subs), str(tmp_path / "out")],
                              env={**os.environ, "TMPDIR": str(temp)}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        assert _kernels_in_sandboxes(grader.pid, timeout_s=120), "the notebook never started"
        time.sleep(2)  # its TODO cell is looping now
        everything = processes.descendants(grader.pid)
    finally:
        grader.send_signal(signal.SIGKILL)
        grader.wait()
    assert not _still_alive(everything, timeout_s=15), "processes outlived the grader"
    runs = temp / scratch.RUNS
    left = [p for p in runs.iterdir() if p.is_dir()]
    assert left, "the killed run left its scratch folder (what the next run must clean)"
    fresh = scratch.new_run_folder(temp)
    assert [p for p in runs.iterdir() if p.is_dir()] == [fresh]


class _Elements(HTMLParser):
    """Elements and attributes as a browser's tokenizer sees them (escaped text is not markup)."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))


def _kernels_in_sandboxes(pid: int, timeout_s: float) -> list:
    """The kernels running inside the sandboxes a grader started, once there is one (or [] when
    none started within the time)."""
    deadline, spinning = time.monotonic() + timeout_s, list[object]()
    while time.monotonic() < deadline and not spinning:
        time.sleep(1)
        sandboxes = [int(p) for p in processes.descendants(pid) if _mentions(str(p), "bwrap")]
        spinning = [p for b in sandboxes for p in processes.descendants(b) if _mentions(str(p), "ipykernel")]
    return spinning


def _still_alive(pids, timeout_s: float) -> list:
    """The processes still alive after waiting up to timeout_s for all of them to end."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    return [p for p in pids if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return b") Z " not in fh.read()
    except OSError:
        return False


def _mentions(pid: str, text: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return text.encode() in fh.read()
    except OSError:
        return False

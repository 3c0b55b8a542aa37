"""The judge (tools/grading/judge.py): the checks run in a process that never runs learner code,
and call the learner's function in the learner's re-check process through a pipe of plain data.

Each test is a small notebook plan run through the grader's own `verify.start_split` and
`talk_split` (without the OS sandbox: what is tested here is the split, not bubblewrap)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from tests.test_recheck_routes import PROMOTE, SPANS
from workshop_lib.tools.grading import judge, scratch, verify

ROOT = Path(__file__).resolve().parents[1]
HEAD = {"kind": "course", "source": "from workshop_lib import checks, hints\n"
                                    "from workshop_lib.parts import gates\n"
                                    "from workshop_lib.parts.ingest import promotion\n"
                                    "from workshop_lib.parts.ingest.promotion import PromotionDecision, GoldenReport\n"}


def _env(folder: Path) -> dict[str, str]:
    for sub in ("home", "tmp", "ipython"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "HOME": str(folder / "home"),
            "TMPDIR": str(folder / "tmp"), "IPYTHONDIR": str(folder / "ipython"),
            "WORKSHOP_DATA_DIR": str(folder / "data"), "WORKSHOP_ENGINE": "embedded", "WORKSHOP_LLM": "off",
            "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}


def split_recheck(tmp_path: Path, *cells: dict, cell_timeout: int = 30, data: Path | None = None,
                  budget: float = 120) -> list[str]:
    """The status each check gets when it passed in the notebook's own run, the judge deciding."""
    plan, result = _run(tmp_path, cells, cell_timeout, data, budget)
    rows = [{"cell": c["grade_id"], "score": 1.0, "status": "passed"} for c in plan if c["kind"] == "check"]
    return [r["status"] for r in verify.reconcile(rows, result)]


def judged(tmp_path: Path, *cells: dict, data: Path | None = None) -> list[bool]:
    """The judge's own verdict on each check (before the learner's reports are weighed)."""
    plan, result = _run(tmp_path, cells, 30, data, 120)
    return [result.verdicts[c["grade_id"]]["passed"] for c in plan if c["kind"] == "check"]


def judged_and_rechecked(tmp_path: Path, *cells: dict, data: Path | None = None) -> tuple[list[bool], list[str]]:
    """Both of the above from ONE run of the plan: the judge's own verdict on each check, and the status
    it gets when it passed in the notebook's own run (running the same submission twice tests nothing more)."""
    plan, result = _run(tmp_path, cells, 30, data, 120)
    checks = [c for c in plan if c["kind"] == "check"]
    rows = [{"cell": c["grade_id"], "score": 1.0, "status": "passed"} for c in checks]
    return ([result.verdicts[c["grade_id"]]["passed"] for c in checks],
            [r["status"] for r in verify.reconcile(rows, result)])


def in_process(tmp_path: Path, *cells: dict, data: Path | None = None) -> list[bool]:
    """The verdicts of the same plan where the checks run in the learner's process."""
    plan = [HEAD, *cells]
    env = _env(tmp_path)
    if data is not None:
        shutil.copytree(data, tmp_path / "data")
    worker = scratch.Worker(env, tmp_path, module=verify.RECHECK)
    result = verify.talk(worker, {"env": env, "scratch": str(tmp_path), "cells": plan, "cell_timeout": 30},
                         verify.Recheck(), budget=120)
    return [result.verdicts[c["grade_id"]]["passed"] for c in plan if c["kind"] == "check"]


def _run(tmp_path: Path, cells: tuple[dict, ...], cell_timeout: int, data: Path | None,
         budget: float) -> tuple[list[dict], verify.Recheck]:
    plan = [HEAD, *cells]
    assert judge.split(plan)
    learner_dir, judge_dir = tmp_path / "learner", tmp_path / "judge"
    env, judge_env = _env(learner_dir), _env(judge_dir)
    if data is not None:  # each process gets its own copy of the prepared database, as in grading
        shutil.copytree(data, learner_dir / "data")
        shutil.copytree(data, judge_dir / "data")
    learner, judging = verify.start_split(env, learner_dir, judge_env, judge_dir)
    job = {"env": env, "scratch": str(learner_dir), "cells": plan, "cell_timeout": cell_timeout}
    judge_job = {"env": judge_env, "scratch": str(judge_dir), "cells": plan, "cell_timeout": cell_timeout,
                 "budget": budget, "data": str(judge_dir / "data")}
    result = verify.talk_split(learner, judging, job, judge_job,
                               verify.Recheck(suspicious=verify.suspicious_before_checks(plan)), budget=budget)
    assert result.finished and result.split, result
    return plan, result


def _learner(source: str) -> dict:
    return {"kind": "learner", "source": source, "new": source}


def _check(part: str, name: str, *args: str) -> dict:
    return {"kind": "check", "grade_id": f"c_{name}", "source": f"checks.{part}.{name}({', '.join(args)})"}


CHECK_SPANS = _check("part8", "check_window_spans", "window_spans")
CHECK_PROMOTE = _check("part8", "check_should_promote", "should_promote")


def _solution(part: str, grade_id: str) -> str:
    nb = nbformat.read(next((ROOT / "solutions" / part).glob("*.ipynb")), as_version=4)
    return next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _imports(part: str) -> dict:
    """The notebook's import lines, as one course cell (what its TODO cells rely on)."""
    nb = nbformat.read(next((ROOT / "notebooks" / part).glob("*.ipynb")), as_version=4)
    lines = {ln for c in nb.cells if c.cell_type == "code" for ln in c.source.splitlines()
             if ln.startswith(("from workshop_lib", "import json"))}
    return {"kind": "course", "source": "\n".join(sorted(lines)) + "\n"}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """A prepared database (as `workshop grade` builds once per run): copied for each process."""
    from workshop_lib import connect
    from workshop_lib.prepare import prepare

    folder = tmp_path_factory.mktemp("prepared")
    eng = connect("embedded", path=folder)
    try:
        prepare(eng, progress=False)
    finally:
        eng.close()
    for lock in folder.glob("*.lock"):
        lock.unlink()
    return folder


TODOS: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
         "part2": [("todo1_comment_facts", "check_comment_facts", ("comment_facts", "eng"))],
         "part3": [("todo1_retrieve_knowledge", "check_retrieve_knowledge", ("retrieve_knowledge", "eng")),
                   ("todo2_hybrid_rrf", "check_hybrid_rrf", ("hybrid_rrf_search_memories", "eng"))],
         "part4": [("todo1_decide_mode", "check_decide_mode", ("decide_mode",))],
         "part5": [("todo1_validate_selection", "check_validate_selection", ("validate_selection",)),
                   ("todo2_render_grounded_answer", "check_render_answer", ("render_grounded_answer",))],
         "part7": [("todo1_decide", "check_decide", ("decide",)), ("todo2_compact", "check_compact", ("compact",))],
         "part8": [("todo1_window_spans", "check_window_spans", ("window_spans",)),
                   ("todo2_should_promote", "check_should_promote", ("should_promote",))]}


@pytest.mark.parametrize("part", sorted(TODOS))
def test_the_solutions_pass_every_split_part(tmp_path, part, prepared):
    cells = [_imports(part), {"kind": "course", "source": "eng = connect()\n"}]
    for gid, check, args in TODOS[part]:
        cells += [_learner(_solution(part, gid)), _check(part, check, *args)]
    assert split_recheck(tmp_path, *cells, data=prepared) == ["passed"] * len(TODOS[part])


def test_a_wrong_todo_fails_with_the_checks_own_message(tmp_path):
    statuses = split_recheck(tmp_path, _learner(SPANS.replace("size - overlap", "size")), CHECK_SPANS,
                             _learner(PROMOTE), CHECK_PROMOTE)
    assert statuses[0].startswith("review: passed in the notebook but failed the grader's re-check: TODO 1 "
                                  "(window_spans): window_spans("), statuses
    assert "do not overlap" in statuses[0] and statuses[1] == "passed", statuses


# A should_promote that promotes everything: wrong (TODO 2 is worth 0), and each attack below tries to make
# the grader believe it passed.
WRONG = "def should_promote(candidate, active, min_recall):\n    return PromotionDecision(True, 'always')\n"
# Lines a forger would write: a verdict in the old re-check's format, and answers in the judge's.
FORGE = ("import os as _os\n"
         "_LINES = b''.join(__import__('json').dumps(x).encode() + b'\\n' for x in (\n"
         "    {'nonce': '', 'event': 'verdict', 'grade_id': 'c_check_should_promote', 'cell': 2, 'passed': True,\n"
         "     'message': '', 'changed': []},\n"
         "    {'event': 'report', 'cell': 2, 'changed': [], 'reference': False},\n"
         "    {'event': 'return', 'seq': 1, 'value': True, 'after': []}, {'event': 'done'}))\n"
         "def _forge(*_a):\n"
         "    for fd in range(3, 40):\n"
         "        try:\n            _os.write(fd, _LINES)\n"
         "        except OSError:\n            pass\n")
ROUTES = {
    # a finalizer that runs while the snapshot is restored, between cells
    "finalizer": FORGE + "class _Bomb:\n    pass\n_Bomb.__del__ = _forge\n_b = _Bomb()\ndel _b\n_c = [_Bomb()]\n",
    # a thread that writes whenever it gets the interpreter
    "thread": FORGE + "import threading as _t, time as _ti\n"
                      "def _loop():\n    for _ in range(400):\n        _forge()\n        _ti.sleep(0.005)\n"
                      "_t.Thread(target=_loop, daemon=True).start()\n",
    # a signal handler (handed the current frame) that fires while the check runs
    "signal": FORGE + "import signal as _s\n_s.signal(_s.SIGVTALRM, _forge)\n"
                      "_s.setitimer(_s.ITIMER_VIRTUAL, 0.001, 0.001)\n",
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_forged_verdict_between_cells_scores_0(tmp_path, route):
    verdicts, statuses = judged_and_rechecked(tmp_path, _learner(ROUTES[route] + WRONG), CHECK_PROMOTE)
    assert verdicts == [False]
    assert statuses[0].startswith("review:"), statuses


# What the check or the library uses, changed in the learner's process where no audit hook or snapshot
# sees it: a thread patching between cells (a check's code object through ctypes, a module-level dict
# of a check, a patch of the reference that undoes itself after its first use). In the judge's process
# none of it exists. The TODO is wrong; the judge's verdict is what it deserves.
PATCHES = {
    "ctypes-code": "import ctypes as _c, threading as _t, time as _ti\n"
                   "from workshop_lib.checks import part8 as _p8\n"
                   "def _patch():\n"
                   "    for _ in range(2000):\n"
                   "        try:\n"
                   "            _c.pythonapi.PyObject_SetAttr(_c.py_object(_p8.check_should_promote),\n"
                   "                _c.py_object('__co' + 'de__'), _c.py_object((lambda fn: None).__code__))\n"
                   "        except Exception:\n            pass\n"
                   "        _ti.sleep(0.001)\n"
                   "_t.Thread(target=_patch, daemon=True).start()\n",
    "self-restoring": "_ref = promotion.should_promote\n"
                      "def _once(*a, **k):\n    promotion.should_promote = _ref\n    return PromotionDecision(True, 'always')\n"
                      "promotion.should_promote = _once\n",
}


@pytest.mark.parametrize("route", sorted(PATCHES))
def test_a_patch_the_snapshot_does_not_see_changes_nothing(tmp_path, route):
    verdicts, statuses = judged_and_rechecked(tmp_path, _learner(PATCHES[route] + WRONG), CHECK_PROMOTE)
    assert verdicts == [False]
    assert statuses[0].startswith("review:"), statuses


def test_a_module_level_dict_the_check_uses_is_the_judges_own(tmp_path, prepared):
    # A comment_facts that gets a missing comment wrong (only the check's edge-case dictionary has one),
    # and a cell that empties that dictionary in place: the snapshot compares code, not a module's data.
    wrong = _solution("part2", "todo1_comment_facts").replace('"(no comment)"', '"none"')
    assert wrong != _solution("part2", "todo1_comment_facts")
    empty = ("from workshop_lib.checks import part2 as _p2\n"
             "for _key in ('tables', 'columns'):\n    _p2.EDGE_DICTIONARY[_key].clear()\n")
    cells = [_imports("part2"), {"kind": "course", "source": "eng = connect()\n"}, _learner(empty + wrong),
             _check("part2", "check_comment_facts", "comment_facts", "eng")]
    assert in_process(tmp_path / "old", *cells, data=prepared) == [True]  # the route, where the check shares the process
    assert judged(tmp_path, *cells, data=prepared) == [False]
    honest = [*cells[:2], _learner(empty + _solution("part2", "todo1_comment_facts")), cells[3]]
    assert judged(tmp_path / "honest", *honest, data=prepared) == [True]


def test_an_attribute_set_on_the_engine_does_not_reach_the_judge(tmp_path, prepared):
    # A comment_facts that gives up on any real schema (more than the edge case's two tables), and an
    # engine whose dictionary the TODO cell emptied: where the check reads the learner's engine, the
    # reference is empty too and the forgery passes; the judge reads its own.
    wrong = _solution("part2", "todo1_comment_facts").replace(
        "    facts = []\n", "    facts = []\n    if len(dictionary['tables']) > 2:\n        return facts\n")
    cells = [_imports("part2"), {"kind": "course", "source": "eng = connect()\n"},
             _learner("class _Empty:\n    def data_dictionary(self, owner):\n"
                      "        return {'tables': [], 'columns': [], 'foreign_keys': []}\n"
                      "eng.supplychain = _Empty()\n" + wrong),
             _check("part2", "check_comment_facts", "comment_facts", "eng")]
    assert in_process(tmp_path / "old", *cells, data=prepared) == [True]
    status = split_recheck(tmp_path, *cells, data=prepared)[0]
    assert status.startswith("review: passed in the notebook but failed the grader's re-check: TODO 1 "
                             "(comment_facts): 58 fact(s) missing on the SUPPLYCHAIN dictionary"), status


HANG = "import time as _ti\ndef window_spans(n_units, size, overlap):\n    _ti.sleep(600)\n"
LOOP = "def window_spans(n_units, size, overlap):\n    out = []\n    while True:\n        out.append((0, 0))\n"
FLOOD = "def window_spans(n_units, size, overlap):\n    return ['x' * (17 * 1024 * 1024)]\n"


@pytest.mark.parametrize("todo", [HANG, LOOP, FLOOD], ids=["hangs", "loops", "floods"])
def test_a_todo_that_hangs_or_floods_costs_only_its_own_points(tmp_path, todo):
    # 4 s cell limits, the honest checks after the hang must finish within theirs: with `-n auto` this test
    # is in conftest's "timed" group, never beside another test that bounds a duration.
    statuses = split_recheck(tmp_path, _learner(todo), CHECK_SPANS, _learner(PROMOTE), CHECK_PROMOTE, cell_timeout=4)
    assert statuses[0].startswith("review: passed in the notebook but failed the grader's re-check: TODO 1"), statuses
    assert statuses[1] == "passed", statuses


def test_the_learners_process_holds_no_end_of_the_graders_channel(tmp_path):
    # The learner's cell lists its descriptors; the judge's pipe to the grader is not among them.
    spy = _learner("import os as _os\n_seen = []\n"
                   "for _f in _os.listdir('/proc/self/fd'):\n"
                   "    try:\n        _seen.append(_os.readlink('/proc/self/fd/' + _f))\n"
                   "    except OSError:\n        pass\n"
                   "open('fds.txt', 'w').write(' '.join(_seen))\n" + PROMOTE)
    plan = [HEAD, spy, CHECK_PROMOTE]
    learner_dir, judge_dir = tmp_path / "learner", tmp_path / "judge"
    env, judge_env = _env(learner_dir), _env(judge_dir)
    learner, judging = verify.start_split(env, learner_dir, judge_env, judge_dir)
    assert judging.replies is not None
    graders = f"pipe:[{os.fstat(judging.replies.fileno()).st_ino}]"
    result = verify.talk_split(learner, judging, {"env": env, "scratch": str(learner_dir), "cells": plan,
                                                  "cell_timeout": 30},
                               {"env": judge_env, "scratch": str(judge_dir), "cells": plan, "cell_timeout": 30,
                                "budget": 60, "data": str(judge_dir)}, verify.Recheck(), budget=60)
    assert result.verdicts["c_check_should_promote"]["passed"], result
    seen = (learner_dir / "fds.txt").read_text().split()
    assert seen and graders not in seen, (graders, seen)
    assert sum(s.startswith("pipe:") for s in seen) <= 3, seen  # stdin, and its two ends to the judge


if sys.platform != "linux":
    pytestmark = pytest.mark.skip(reason="the grader runs on Linux")


@pytest.mark.parametrize("mistake", ["LIMIT without ORDER BY in a CTE", "no tie-break on m.seq", "no user or agent scope"])
def test_part3_sees_the_sql_the_learners_engine_ran(tmp_path, prepared, mistake):
    # The learner's process reports the statements its engine ran and reads unordered rows in reverse
    # when the judge asks; the judge inspects those statements and compares the results with its own.
    from tests.test_check_mistakes import P3H_WRONG, p3_hybrid

    edit, words = P3H_WRONG[mistake]
    cells = [_imports("part3"), {"kind": "course", "source": "eng = connect()\n"}, _learner(edit(p3_hybrid())),
             _check("part3", "check_hybrid_rrf", "hybrid_rrf_search_memories", "eng")]
    status = split_recheck(tmp_path, *cells, data=prepared)[0]
    assert status.startswith("review: passed in the notebook but failed the grader's re-check: TODO 2"), status
    assert all(w in status for w in words), (words, status)


# ------------------------------------------------------------------ Part 6: its checks in the judge too
P6_HEAD = {"kind": "course", "source": "import json\nimport time\nfrom workshop_lib import checks, connect\n"
                                       "from workshop_lib.parts.agent import loop, memory, toolbox\n"
                                       "eng = connect()\nregistry = toolbox.build_registry(eng)\n"
                                       "SUPPLYCHAIN_TABLES = {t['table'] for t in "
                                       "eng.supplychain.data_dictionary('SUPPLYCHAIN')['tables']}\n"}
CHECK_COUNT = _check("part6", "check_count_rows", "registry", "eng")
CHECK_TURN = _check("part6", "check_agent_turn", "agent_turn", "eng")


def part6(tmp_path: Path, prepared: Path, tool: str, turn: str) -> list[str]:
    """The statuses of Part 6's two checks, the judge deciding (each passed in the notebook's own run)."""
    return split_recheck(tmp_path, P6_HEAD, _learner(tool), CHECK_COUNT, _learner(turn), CHECK_TURN, data=prepared)


def test_part6_solutions_pass_in_the_judge(tmp_path, prepared):
    assert part6(tmp_path, prepared, _solution("part6", "todo1_count_rows"),
                 _solution("part6", "todo2_agent_turn")) == ["passed", "passed"]


def _in_process_statuses(prepared: Path, folder: Path, variants: dict[str, str], run) -> dict[str, str]:
    """What the visible check says of each variant, run in this process as the notebook runs it, as the
    status the grader gives when the judge says the same: "passed", or the check's message."""
    import textwrap

    from workshop_lib import connect
    from workshop_lib.checks import CheckFailed

    shutil.copytree(prepared, folder)
    eng = connect("embedded", path=folder)
    out = {}
    try:
        for name, source in variants.items():
            try:
                run(eng, textwrap.dedent(source), name)
                out[name] = "passed"
            except CheckFailed as failed:
                why = "passed in the notebook but failed the grader's re-check: " + failed.message()[:1000][:500]
                out[name] = "review: " + " ".join(why.split())
    finally:
        eng.close()
    return out


def _through_the_judge(tmp_path: Path, prepared: Path, variants: dict[str, str], check: str, args: tuple[str, ...],
                       before: str = "") -> dict[str, str]:
    """Each variant as a TODO cell followed by its check, all in one notebook plan, the judge deciding."""
    import textwrap

    cells: list[dict] = [P6_HEAD]
    for i, source in enumerate(variants.values()):
        cells += [_learner(before + textwrap.dedent(source)),
                  {"kind": "check", "grade_id": f"c{i}", "source": f"checks.part6.{check}({', '.join(args)})"}]
    statuses = split_recheck(tmp_path, *cells, data=prepared, budget=600)
    return dict(zip(variants, statuses))


def _visible_and_judged(tmp_path, prepared, variants: dict, right: dict, check: str, args: tuple[str, str],
                        namespace, name: str) -> tuple[dict, dict]:
    """(the visible check's verdicts, the judge's) for every variant; the visible check passes exactly
    the solution and the correct variants."""
    from tests import test_check_mistakes as mistakes
    from workshop_lib import checks

    def run(eng, source, fn):
        ns = mistakes._define(source, fn, ns=namespace(eng))
        getattr(checks.part6, check)(ns[name], eng)

    expected = _in_process_statuses(prepared, tmp_path / "in-process", variants, run)
    assert [n for n, s in expected.items() if s == "passed"] == ["solution", *right]
    return expected, _through_the_judge(tmp_path / "judge", prepared, variants, check, args)


def test_part6_count_rows_variants_get_the_same_verdict_in_the_judge(tmp_path, prepared):
    # Every wrong count_rows the check tests keep, and every correct variant: the judge (the tool run in the
    # learner's process, its queries served by the judge) gives the message the visible check gives.
    from tests import test_check_mistakes as mistakes

    variants = {"solution": mistakes.p6_tool(), **mistakes.P6T_RIGHT,
                **{name: make(mistakes.p6_tool()) for name, (make, _) in mistakes.P6T_WRONG.items()}}
    expected, got = _visible_and_judged(tmp_path, prepared, variants, mistakes.P6T_RIGHT, "check_count_rows",
                                        ("registry", "eng"), mistakes._p6_tool_namespace, "registry")
    assert got == expected


def test_part6_agent_turn_variants_get_the_same_verdict_in_the_judge(tmp_path, prepared):
    # Every wrong agent loop the check tests keep, and every correct variant: the judge (the loop run in the
    # learner's process, the model, the tools, the clock and the store served by the judge) says the same.
    from tests import test_check_mistakes as mistakes

    variants = {"solution": mistakes.p6_solution(), **mistakes.P6_RIGHT,
                **{name: make(mistakes.p6_solution()) for name, (make, _) in mistakes.P6_WRONG.items()}}
    expected, got = _visible_and_judged(tmp_path, prepared, variants, mistakes.P6_RIGHT, "check_agent_turn",
                                        ("agent_turn", "eng"), mistakes._p6_namespace, "agent_turn")
    # The library's own loop passes the visible check; the grader gives it 0 (issue 35: the reference).
    expected["the library's loop"] = "review: the TODO calls the reference implementation"
    for name, why in WORDED_APART.items():  # the same verdict and the words the check tests ask for
        mine, theirs = got.pop(name), expected.pop(name)
        assert mine.startswith(theirs[:90]) and mine != theirs, why
        assert all(" ".join(w.split()) in mine for w in mistakes.P6_WRONG[name][1]), (name, mine)
    assert got == expected


# Messages the judge words apart from the visible check (the verdict and the mistake named are the same):
WORDED_APART = {
    "schemas method passed uncalled": "the bound method is shown as the stand-in's (served.py), not the registry's",
    "arguments parsed by hand": "the crash's line is not named: the traceback stays in the learner's process",
}


# An agent loop that never makes the forced call (wrong), and the routes of issue 35 in the learner's process.
NO_FORCED_ANSWER = _solution("part6", "todo2_agent_turn").replace(
    'answer = llm.chat(messages + [{"role": "user", "content": loop.FORCE_ANSWER}]).content', 'answer = ""')
P6_PATCH = PATCHES["ctypes-code"].replace("part8 as _p8", "part6 as _p8").replace("check_should_promote",
                                                                                     "check_agent_turn")


@pytest.mark.parametrize("route", [*sorted(ROUTES), "ctypes-code"])
def test_part6_forgeries_in_the_learners_process_change_nothing(tmp_path, prepared, route):
    assert "FORCE_ANSWER" not in NO_FORCED_ANSWER
    code = ROUTES.get(route, P6_PATCH)
    cells = [P6_HEAD, _learner(code + NO_FORCED_ANSWER), CHECK_TURN]
    verdicts, statuses = judged_and_rechecked(tmp_path, *cells, data=prepared)
    assert verdicts == [False]
    assert statuses[0].startswith("review:"), statuses


# A count_rows that answers 3 for every table, through the boundary. Where the check reads the learner's
# engine (in-process), an engine whose counts say 3, or a check whose idea of "the boundary" is the engine's
# own query method, lets it pass; the judge counts on its own engine and watches its own boundary.
THREE = _solution("part6", "todo1_count_rows").replace('f"SELECT COUNT(*) AS N FROM {name}"',
                                                        'f"SELECT 3 AS N FROM {name} LIMIT 1"')
# the check counts the tables with the engine's count statement: an attribute set on the engine that
# turns every count into 3
ON_THE_ENGINE = ("import dataclasses\n_count = eng.statements.supplychain.count\n"
                 "eng.statements = dataclasses.replace(eng.statements, supplychain=dataclasses.replace(\n"
                 "    eng.statements.supplychain, count=lambda t: _count(t).replace('COUNT(*)', '3')))\n")
QUERY = _solution("part6", "todo1_count_rows").replace(
    'eng.supplychain.read_only_query(f"SELECT COUNT(*) AS N FROM {name}").rows[0][0]',
    'eng.query(f"SELECT COUNT(*) FROM {name}")[0][0]')
MODULE_STRING = "from workshop_lib.checks import part6 as _p6\n_p6._BOUNDARY = 'query'\n"


@pytest.mark.parametrize("route", ["an attribute set on the engine", "a module-level string of the check"])
def test_part6_state_of_the_learners_process_does_not_reach_the_judge(tmp_path, prepared, route):
    todo = ON_THE_ENGINE + THREE if route == "an attribute set on the engine" else MODULE_STRING + QUERY
    assert "SELECT 3 AS N" in THREE and "eng.query(" in QUERY
    cells = [P6_HEAD, _learner(todo), CHECK_COUNT]
    assert in_process(tmp_path / "old", *cells, data=prepared) == [True]  # the route, where the check shares the process
    assert judged(tmp_path, *cells, data=prepared) == [False]


# ------------------------------------------------------------------ a TODO that copies the reference
COPIED = "review: the TODO copies the reference implementation"


def _pasted(module, name: str) -> str:
    """The reference's source as `inspect.getsource` gives it, pasted into a TODO cell."""
    import inspect

    return "from __future__ import annotations\n" + inspect.getsource(getattr(module, name))


def test_a_todo_that_pastes_the_reference_scores_0(tmp_path):
    from workshop_lib.parts.ingest import promotion

    todo = _pasted(promotion, "should_promote")
    assert judged(tmp_path / "judged", _learner(todo), CHECK_PROMOTE) == [True]  # it is correct, and not the author's
    assert split_recheck(tmp_path, _learner(SPANS), CHECK_SPANS, _learner(todo), CHECK_PROMOTE) == ["passed", COPIED]


def test_an_adapted_copy_of_the_agent_loop_scores_0(tmp_path, prepared):
    # getsource(loop.agent_turn), made to run in the notebook: `eng` dropped from the parameters (the
    # notebook's global), the loop module's names qualified, comments and the docstring changed.
    from workshop_lib.parts.agent import loop

    todo = _pasted(loop, "agent_turn").replace("eng: Engine, ", "")
    for name in ("SYSTEM_PROMPT", "TurnResult(", "assistant_message(", "MAX_TOOL_CALLS", "FORCE_ANSWER"):
        todo = todo.replace(name, "loop." + name)
    todo = todo.replace("# Every call gets its tool message", "# my own words").replace(") -> loop.TurnResult:", "):")
    cells = [P6_HEAD, _learner(_solution("part6", "todo1_count_rows")), CHECK_COUNT, _learner(todo), CHECK_TURN]
    assert split_recheck(tmp_path, *cells, data=prepared) == ["passed", COPIED]


def test_correct_variants_and_the_solutions_are_not_copies():
    # Every correct variant the check tests keep is its author's own; Part 5's solutions are the reference
    # itself, so those two TODOs are not compared (copies.SOLUTION_IS_REFERENCE, the next test).
    import textwrap

    from tests import test_check_mistakes as mistakes
    from workshop_lib.tools.grading import copies

    tables: list[dict] = [getattr(mistakes, k) for k in dir(mistakes) if k.endswith("_RIGHT")]
    variants = [textwrap.dedent(v) for d in tables for v in d.values() if isinstance(v, str)]
    variants += [edit(mistakes.p3_hybrid()) for edit in mistakes.P3H_RIGHT.values() if callable(edit)]
    assert len(variants) >= 25
    flagged = [(c, v[:60]) for v in variants for c in copies.REFERENCES if copies.copies([v], c)]
    assert flagged == []


def test_only_the_solutions_that_are_the_reference_are_left_uncompared():
    from workshop_lib.tools.grading import copies

    todos: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
        **TODOS, "part6": [("todo1_count_rows", "check_count_rows", ()), ("todo2_agent_turn", "check_agent_turn", ())]}
    same = set()
    for part, items in todos.items():
        for gid, check, _ in items:
            assert not copies.copies([_solution(part, gid)], check), check
            reference = copies.reference_node(check)
            assert reference is not None, check
            mine = copies.defined([_solution(part, gid)], reference.name)
            assert mine is not None, check
            names = copies._local_names(reference) | copies._local_names(mine)
            if copies.normalised(mine, names) == copies.normalised(reference, names):
                same.add(check)
    assert same == copies.SOLUTION_IS_REFERENCE
    assert set(copies.REFERENCES) == set(judge.SPLIT)


# /proc/self/mem, opened where the audit hook looks only at str paths: by a bytes path, or as "mem" after
# chdir("/proc/self"). Each writes into the learner's own memory (a bytes object changes in place), and
# leaves a note saying it did; the check runs in the judge's process, whose memory it cannot reach.
MEM = ("import os as _os, sys as _sys\n"
       "_here = _os.getcwd()\n"
       "def _poke(opened):\n"
       "    target = bytes(range(65, 81))\n"
       "    at = id(target) + _sys.getsizeof(b'') - 1\n"
       "    with opened() as mem:\n"
       "        mem.seek(at)\n"
       "        mem.write(b'Z' * 16)\n"
       "    return target == b'Z' * 16\n"
       "def _after_chdir():\n"
       "    _os.chdir('/proc/self')\n"
       "    try:\n        return open('mem', 'r+b', buffering=0)\n"
       "    finally:\n        _os.chdir(_here)\n"
       "_done = [_poke(lambda: open(b'/proc/self/mem', 'r+b', buffering=0)), _poke(_after_chdir)]\n"
       "open(_os.path.join(_here, 'mem.txt'), 'w').write(repr(_done))\n")


def test_proc_self_mem_changes_the_learners_memory_only(tmp_path):
    verdicts, statuses = judged_and_rechecked(tmp_path, _learner(MEM + WRONG), CHECK_PROMOTE)
    assert (tmp_path / "learner" / "mem.txt").read_text() == "[True, True]"  # the route works in the learner's process
    assert statuses[0].startswith("review: passed in the notebook but failed the grader's re-check: TODO 2"), statuses
    assert verdicts == [False]


def test_part6_a_callback_outside_the_served_methods_is_refused(tmp_path, prepared):
    # The stand-ins' channel used by hand: a method the judge does not serve, on the store and on the model.
    probe = ("import os as _os\n_here = _os.getcwd()\n_orig = agent_turn\n"
             "def agent_turn(llm, registry, thread_id, question, **options):\n"
             "    seen = []\n"
             "    for target, method in (('store', 'drop_objects'), (0, '__init__'), ('query', 'query')):\n"
             "        try:\n            llm._caller(target, method, (), {})\n"
             "        except Exception as exc:\n            seen.append(type(exc).__name__ + ': ' + str(exc))\n"
             "    open(_os.path.join(_here, 'refused.txt'), 'w').write('\\n'.join(seen))\n"
             "    return _orig(llm, registry, thread_id, question, **options)\n")
    cells = [P6_HEAD, _learner(NO_FORCED_ANSWER + "\n" + probe), CHECK_TURN]
    assert judged(tmp_path, *cells, data=prepared) == [False]
    refused = (tmp_path / "learner" / "refused.txt").read_text().splitlines()
    assert refused == ["Garbage: no method 'drop_objects' is served on the store",
                       "Garbage: no method '__init__' is served on the llm",
                       "Garbage: no method 'query' is served on the query"], refused

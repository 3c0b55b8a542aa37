"""The grader's pure rules, without notebooks: what counts as a forgery, how the re-check's
verdicts turn into rows, the re-check's reply channel, the notebook plan, reading scratch
and submissions without following links, the feedback sanitiser, the run folders, the
sandbox's command line and the re-check's snapshot of the workshop code."""
from __future__ import annotations

import json
import os
import sys
from html.parser import HTMLParser

import nbformat
import pytest

from workshop_lib.tools import course
from workshop_lib.tools.grading import feedback, recheck, sandbox, scratch, verify
from workshop_lib.tools.grading.submissions import discover, read_inside

REPO = course.REPO
PARTS = {"part4_relevance_gates": "part4"}

FORGED_TODO_CELLS = [
    "checks.part4.check_decide_mode = lambda *a, **k: None",
    "import sys\nsys.modules['workshop_lib.checks.part4'] = object()",
    "checks.part4.check_decide_mode.__code__ = (lambda: None).__code__",
    "gates.decide_mode = decide_mode",
    "import workshop_lib.checks.part4 as p4\np4.call_learner = lambda *a: None",
    "from workshop_lib.checks import CheckFailed\nCheckFailed.__init__ = lambda self, *a: None",
    "import builtins\nbuiltins.print = lambda *a: None",
    "import ctypes",
    "import gc\ngc.get_referrers(1)",
    "x = getattr(obj, 'f_' + 'back')",
    "class Anything:\n    def __eq__(self, other):\n        return True",
    "from unittest import mock\ndef decide_mode(*a, **k):\n    return mock.ANY",
    "import os\nos.write(7, b'{}')",
    "exec(open('/tmp/x').read())",
    "open('/proc/1/cwd/solutions/x.ipynb').read()",
]


@pytest.mark.parametrize("code", FORGED_TODO_CELLS)
def test_the_tools_of_forgery_are_suspicious(code):
    assert verify.suspicious(code), code


def _todo_sources(root):
    for nb_path in sorted(root.glob("part*/*.ipynb")):
        for cell in nbformat.read(nb_path, as_version=4).cells:
            if cell.metadata.get("nbgrader", {}).get("solution"):
                yield f"{nb_path.name}:{cell.metadata['nbgrader']['grade_id']}", cell.source


def test_the_solutions_are_not_suspicious():
    found = {name: verify.suspicious(src) for name, src in _todo_sources(REPO / "solutions")}
    assert found and not any(found.values()), {k: v for k, v in found.items() if v}


def test_a_suspicious_todo_flags_only_the_checks_after_it():
    cells = [{"kind": "learner", "grade_id": "todo1", "source": "def f():\n    return 1\n"},
             {"kind": "check", "grade_id": "check1", "source": ""},
             {"kind": "learner", "grade_id": "todo2", "source": "import os\nos._exit(1)\nimport ctypes\n"},
             {"kind": "check", "grade_id": "check2", "source": ""}]
    assert list(verify.suspicious_before_checks(cells)) == ["check2"]


def _rows(*statuses):
    return [dict(student="s", assignment="part4", notebook="n", file="f", cell=f"c{i}", score=10.0, max_score=10.0,
                 status=st) for i, st in enumerate(statuses)]


def _verdict(passed=True, changed=(), message=""):
    return {"passed": passed, "message": message, "changed": list(changed)}


def test_reconcile_keeps_a_confirmed_pass_and_flags_everything_else():
    clean = verify.Recheck(verdicts={"c0": _verdict(), "c1": _verdict()}, finished=True)
    assert verify.reconcile(_rows("passed", "passed"), clean) == _rows("passed", "passed")
    cases = {
        "disagrees": verify.Recheck(verdicts={"c0": _verdict(False, message="TODO 1: wrong\n  How to fix: this")}),
        "changed": verify.Recheck(verdicts={"c0": _verdict(changed=["gates.decide_mode was replaced"])}),
        "tampered": verify.Recheck(verdicts={"c0": _verdict()}, tampering=[(0, "ctypes.dlopen")]),
        "reference": verify.Recheck(verdicts={"c0": {**_verdict(False), "reference": True}}),
        "forged": verify.Recheck(verdicts={"c0": _verdict()}, forged="a line the grader did not write"),
        "unreached": verify.Recheck(why_stopped="the re-check ran past its 90 s budget"),
        "suspicious": verify.Recheck(verdicts={"c0": _verdict()}, suspicious={"c0": ["uses sys.modules"]}),
    }
    for name, result in cases.items():
        row = verify.reconcile(_rows("passed"), result)[0]
        assert row["score"] == 0 and row["status"].startswith("review: "), (name, row)
        assert "\n" not in row["status"]
    assert verify.reconcile(_rows("passed"), cases["reference"])[0]["status"] == (
        "review: the TODO calls the reference implementation")
    # What happened in a cell after a check cannot have changed that check's verdict: it costs only later checks.
    later = verify.Recheck(verdicts={"c0": {**_verdict(), "cell": 3}, "c1": {**_verdict(), "cell": 7}},
                           tampering=[(5, "sys.settrace")], finished=True)
    assert [r["status"] for r in verify.reconcile(_rows("passed", "passed"), later)] == [
        "passed", "review: the notebook reached into the grader's checks: sys.settrace"]
    # A failed cell stays failed with its own reason, whatever the re-check says.
    failed = _rows("failed: TODO 1: wrong")
    assert verify.reconcile(failed, cases["tampered"]) == failed


def test_the_reply_channel_takes_only_signed_lines_in_order():
    def take(*events, nonce="n0"):
        result = verify.Recheck()
        for event in events:
            verify._take(result, json.dumps(event).encode(), nonce, ["a", "b"])
        return result

    good = take({"nonce": "n0", "event": "verdict", "grade_id": "a", "passed": True},
                {"nonce": "n0", "event": "verdict", "grade_id": "b", "passed": False, "message": "no"},
                {"nonce": "n0", "event": "done"})
    assert good.finished and not good.forged and good.verdicts["a"]["passed"] and not good.verdicts["b"]["passed"]
    assert take({"event": "verdict", "grade_id": "a", "passed": True}).forged  # unsigned
    assert take({"nonce": "guess", "event": "done"}).forged
    assert take({"nonce": "n0", "event": "verdict", "grade_id": "b", "passed": True}).forged  # out of order
    assert take({"nonce": "n0", "event": "verdict", "grade_id": "a", "passed": True},
                {"nonce": "n0", "event": "verdict", "grade_id": "a", "passed": True}).forged  # twice
    assert take({"nonce": "n0", "event": "done"}).forged  # done before the checks
    result = verify.Recheck()
    verify._take(result, b"not json", "n0", ["a"])
    assert result.forged


def _a_learners_part4(released: bytes) -> dict:
    """Part 4 as a learner hands it in: a TODO filled, the check emptied, one course cell edited
    and a cell added."""
    nb = json.loads(released)
    course_cells = 0
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == "todo1_decide_mode":
            cell["source"] = "decide_mode = 'mine'"
        elif meta.get("grade"):
            cell["source"] = "pass  # the learner emptied the check"
        elif cell["cell_type"] == "code" and not meta.get("locked") and course_cells == 0:
            course_cells += 1
            cell["source"] += "\nedited = True"
    nb["cells"].insert(3, {"cell_type": "code", "metadata": {}, "source": "added = 1", "outputs": [],
                           "execution_count": None})
    return nb


def test_the_recheck_plan_runs_what_nbgrader_runs():
    released = (REPO / "notebooks" / "part4" / "part4_relevance_gates.ipynb").read_bytes()
    nb = _a_learners_part4(released)
    cells, todo = verify.plan(released, json.dumps(nb).encode())
    assert todo == {"todo1_decide_mode": "decide_mode = 'mine'"}
    checks = [c for c in cells if c["kind"] == "check"]
    assert [c["source"] for c in checks] == ["checks.part4.check_decide_mode(decide_mode)"]
    assert cells[-1]["kind"] == "check"
    learner = [c["source"] for c in cells if c["kind"] == "learner"]
    assert "added = 1" in learner and "decide_mode = 'mine'" in learner
    assert any(src.endswith("edited = True") for src in learner)  # an edited course cell is the learner's
    assert all(c["kind"] != "learner" or "edited" in c["source"] or c["source"] in ("added = 1", "decide_mode = 'mine'")
               for c in cells)
    assert verify.plan(released, b"{not a notebook") == ([], {})


@pytest.mark.parametrize("nbgrader", [[], "todo1_decide_mode", 7, None, {"grade_id": ["x"], "solution": True}])
def test_cell_metadata_of_any_json_type_is_planned_not_a_crash(nbgrader):
    released = (REPO / "notebooks" / "part4" / "part4_relevance_gates.ipynb").read_bytes()
    nb = _a_learners_part4(released)
    todo_cell = next(c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                     == "todo1_decide_mode")
    todo_cell["metadata"]["nbgrader"] = nbgrader
    cells, todo = verify.plan(released, json.dumps(nb).encode())
    assert "todo1_decide_mode" not in todo  # its metadata no longer says it is the TODO
    assert any(c["kind"] == "learner" and c["source"] == "decide_mode = 'mine'" for c in cells)
    assert cells[-1]["kind"] == "check"  # the released check still runs, as nbgrader would
    released_text = {"".join(c["source"]) for c in json.loads(released)["cells"]}
    course = next(c for c in nb["cells"] if c["cell_type"] == "code" and not c.get("metadata", {}).get("nbgrader")
                  and "".join(c["source"]) in released_text)
    course["metadata"]["nbgrader"] = nbgrader  # a course cell left as released, its metadata replaced
    cells, _ = verify.plan(released, json.dumps(nb).encode())
    assert cells[-1]["kind"] == "check"


def test_scratch_and_submissions_are_read_without_following_links(tmp_path):
    (tmp_path / "outside.txt").write_text("the instructor's file")
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (root / "d" / "real.txt").write_text("mine")
    (root / "d" / "link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "dirlink").symlink_to(tmp_path)
    os.mkfifo(root / "d" / "fifo")
    assert read_inside(root, "d/real.txt") == b"mine"
    for rel in ("d/link.txt", "dirlink/outside.txt", "d/fifo", "d/missing"):
        with pytest.raises(OSError):
            read_inside(root, rel)
    with pytest.raises(OSError):
        read_inside(root, "d/real.txt", limit=2)


def test_symlinked_submissions_are_refused_with_a_line(tmp_path):
    solution = REPO / "solutions" / "part4" / "part4_relevance_gates.ipynb"
    subs = tmp_path / "subs"
    (subs / "ana").mkdir(parents=True)
    (subs / "ana" / "part4_relevance_gates.ipynb").write_bytes(solution.read_bytes())
    (subs / "bob").mkdir()
    (subs / "bob" / "part4_relevance_gates.ipynb").symlink_to(solution)
    (subs / "cat").symlink_to(solution.parent)
    (subs / "dan").mkdir()
    (subs / "dan" / "inner").symlink_to(solution.parent)
    found, problems = discover(subs, PARTS)
    assert [(s.student, s.file) for s in found] == [("ana", "ana/part4_relevance_gates.ipynb")]
    refused = {p.file: p.status for p in problems}
    assert set(refused) == {"bob/part4_relevance_gates.ipynb", "cat", "dan/inner"}
    assert all("symbolic link" in why for why in refused.values())


XSS = [
    "<script>window.pwned = 1</script>",
    "<img src=x onerror=\"window.pwned = 1\">",
    "<a href=\"javascript:window.pwned = 1\">x</a>",
    "<a href=\" JaVaScRiPt:window.pwned = 1\">x</a>",
    "<iframe srcdoc=\"<script>parent.pwned = 1</script>\"></iframe>",
    "<svg onload=\"window.pwned = 1\"></svg>",
    "<object data=\"data:text/html,<script>parent.pwned=1</script>\"></object>",
    "<embed src=\"data:text/html,x\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<base href=\"https://evil.example/\">",
    "<form action=\"https://evil.example/\"><button>go</button></form>",
    "<div style=\"background-image: url(https://evil.example/x.png)\">x</div>",
    "<img src=\"data:text/html;base64,PHNjcmlwdD4=\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
]


class _Elements(HTMLParser):
    """Every element and attribute as a browser's tokenizer sees them (style/script text is not markup)."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize("attack", XSS)
def test_feedback_keeps_no_way_to_run_or_fetch(attack):
    page = feedback.safe_page(f"<html><head><title>t</title></head><body><p>kept words</p>{attack}</body></html>")
    assert "kept words" in page
    parser = _Elements()
    parser.feed(page)
    for tag, attrs in parser.found:
        assert tag not in ("script", "iframe", "svg", "object", "embed", "base", "form", "math", "frame"), tag
        assert tag != "meta" or attrs.get("http-equiv") == "Content-Security-Policy" or "charset" in attrs, attrs
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            if name in ("href", "src"):
                assert value.strip().lower().startswith(("https://", "http://", "#", "mailto:", "data:image/")), value
            if name == "style":
                assert "url(" not in value, value
    head = page[:page.index("</head>")]
    assert "Content-Security-Policy" in head and "script-src" not in head and "default-src 'none'" in head
    assert head.index("Content-Security-Policy") < head.index("<style")


def test_feedback_keeps_inline_images_and_links():
    png = "data:image/png;base64,iVBORw0KGgo="
    page = feedback.safe_page(f'<p><img src="{png}" alt="plot"><a href="https://docs.python.org/">docs</a></p>')
    assert png in page and 'href="https://docs.python.org/"' in page


def test_a_rerun_removes_the_scratch_of_dead_runs_only(tmp_path):
    base = tmp_path / scratch.RUNS
    base.mkdir()
    dead = base / "run-dead"
    dead.mkdir()
    (dead / "owner").write_text("999999999 12345")  # no such process
    reused = base / "run-reused"
    reused.mkdir()
    (reused / "owner").write_text(f"{os.getpid()} not-my-start-time")  # the pid lives on in another process
    alive = base / "run-alive"
    alive.mkdir()
    (alive / "owner").write_text(f"{os.getpid()} {scratch._started(os.getpid())}")
    starting = base / "run-starting"
    starting.mkdir()  # no owner file yet: a run that is starting
    fresh = scratch.new_run_folder(tmp_path)
    assert sorted(p.name for p in base.iterdir()) == sorted(["run-alive", "run-starting", fresh.name])


def test_the_sandbox_binds_only_what_grading_needs(tmp_path):
    if sandbox.bwrap() is None:
        pytest.skip("bubblewrap is not installed")
    cmd = sandbox.command(["python", "-V"], scratch=tmp_path / "job", workshop=tmp_path / "code", etc=tmp_path)
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop"):
        assert flag in cmd
    binds = [(cmd[i], cmd[i + 1], cmd[i + 2]) for i, a in enumerate(cmd) if a in ("--bind", "--ro-bind")]
    writable = [b for b in binds if b[0] == "--bind"]
    assert writable == [("--bind", str(tmp_path / "job"), sandbox.JOB)]
    sources = {b[1] for b in binds}
    assert "/" not in sources and "/etc" not in sources and str(REPO) not in sources and "/home" not in sources
    assert not any(s.startswith(str(REPO) + "/") and ".venv" not in s for s in sources), sources
    assert cmd[cmd.index("--") + 1:] == ["python", "-V"]


def test_the_recheck_snapshot_finds_and_undoes_a_patched_check():
    import workshop_lib.checks.part4 as p4
    from workshop_lib.parts import gates

    snap = recheck.Snapshot()
    original, reference, code = p4.check_decide_mode, gates.decide_mode, p4._compare.__code__
    try:
        p4.check_decide_mode = lambda *a, **k: None
        gates.decide_mode = lambda *a, **k: None  # type: ignore[assignment]
        sys.modules["workshop_lib.checks.part4"] = object()  # type: ignore[assignment]
        p4._compare.__code__ = (lambda case, got, want: None).__code__
        import builtins
        builtins.isinstance = lambda *a: True
        changes = "\n".join(snap.changes())
        for needle in ("checks.part4.check_decide_mode", "gates.decide_mode", "sys.modules['workshop_lib.checks.part4']",
                       "_compare had its code", "builtins.isinstance"):
            assert needle in changes, (needle, changes)
    finally:
        snap.restore()
    assert p4.check_decide_mode is original and gates.decide_mode is reference and p4._compare.__code__ is code
    assert sys.modules["workshop_lib.checks.part4"] is p4 and isinstance(1, str) is False
    assert snap.changes() == []


@pytest.mark.parametrize("source,ok", [("checks.part4.check_decide_mode(decide_mode)", True),
                                       ("checks.part4.check_decide_mode(decide_mode); x = 1", False),
                                       ("import os", False), ("other.part4.check_decide_mode(f)", False),
                                       ("checks.part4.no_such_check(f)", False)])
def test_a_graded_cell_resolves_to_a_captured_check_only(source, ok):
    import workshop_lib.checks.part4  # noqa: F401 - in the snapshot

    snap = recheck.Snapshot()
    if ok:
        fn, args, _ = recheck.resolve_check(source, snap)
        assert fn is snap.dicts["workshop_lib.checks.part4"]["check_decide_mode"] and len(args) == 1
    else:
        with pytest.raises((ValueError, SyntaxError)):
            recheck.resolve_check(source, snap)


def test_without_a_sandbox_grading_is_refused_unless_trusted(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from workshop_lib.tools import grading
    from workshop_lib.tools.cli import app

    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    sandbox.problem.cache_clear()
    try:
        (tmp_path / "subs" / "ana").mkdir(parents=True)
        result = CliRunner().invoke(app, ["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "out")])
        assert result.exit_code == 2, result.output
        assert "bubblewrap is not installed" in result.output and "--no-sandbox-i-trust-submissions" in result.output
        assert not (tmp_path / "out").exists()
        with pytest.raises(grading.SandboxUnavailable):
            grading.grade_folder(tmp_path / "subs", tmp_path / "out")
    finally:
        sandbox.problem.cache_clear()

"""What a learner does that the authors did not plan for: run a notebook twice in the
same kernel, run a check before its TODO cell, re-run setup. None of it may end in a
raw traceback, and saved outputs must read as finished (no widgets, no bars at 0%)."""
from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import cell_errors, graded_cells, run_notebook
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from workshop_lib import connect
from workshop_lib.core.notebook_errors import name_error_message
from workshop_lib.prepare import prepare
from workshop_lib.tools import release

SOLUTIONS = sorted((release.REPO / "solutions").glob("*/*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def _run(nb, path, tmp_path, monkeypatch, engine: str = "embedded"):
    return run_notebook(nb, path.parent, tmp_path, monkeypatch, engine=engine, allow_errors=True)


def _errors(nb) -> list[tuple[int, str]]:
    return cell_errors(nb.cells)


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.fixture(scope="module", params=[pytest.param((p, e), id=f"{p.parent.name}-{e}",
                                                     marks=[pytest.mark.oracle] if e == "oracle" else [])
                                        for e in ("embedded", "oracle") for p in SOLUTIONS])
def solution_run(request, solution_runs):
    """The shared run of each solution notebook on each engine (conftest.SolutionRuns)."""
    path, engine = request.param
    return (path, *solution_runs.get(path, engine))


@pytest.mark.notebooks
def test_solution_runs_top_to_bottom_twice_in_one_kernel(solution_run):
    path, nb, once = solution_run
    assert not _errors(nb), f"{path.name}: cells fail (cell numbers from the top of one run): " + \
        "; ".join(f"cell {i % once}: {_plain(tb)[-300:]}" for i, tb in _errors(nb))
    for run in (nb.cells[:once], nb.cells[once:]):
        checks = graded_cells(nbformat.from_dict({"cells": run}))
        said = "\n".join(o.get("text", "") for c in checks for o in c.outputs)
        assert said.count("passed") == len(checks), f"{path.name}: every check should print that it passed, each run"


@pytest.mark.notebooks
def test_solution_outputs_read_as_finished(solution_run):
    """Saved outputs read as finished: no widget placeholders, progress bars end in their final state."""
    path, nb, _ = solution_run
    nb = copy.deepcopy(nb)  # the coalescing below must not change what the other test reads
    CoalesceStreamsPreprocessor().preprocess(nb, {})
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            # A widget is allowed only with a sentence for where it is not rendered (the hint buttons), never a repr.
            assert WIDGET not in data or not re.match(r"^\w+\(", data.get("text/plain", "")), \
                f"{path.name} displays a widget; saved it reads as {data.get('text/plain', '')[:40]!r}"
            text = out.get("text", "")
            for line in text.splitlines():
                assert not re.search(r"\b0%\|", line), f"{path.name}: a progress bar is saved at 0%: {line!r}"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", [p for p in SOLUTIONS if "checks.part" in p.read_text()],
                         ids=lambda p: p.parent.name)
def test_check_run_before_its_todo_says_which_cell_to_run(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    checks = [i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade")]
    assert checks
    for i in checks:  # swap each check with the solution cell right above it
        todo = max(j for j in range(i) if nb.cells[j].metadata.get("nbgrader", {}).get("solution"))
        nb.cells[todo], nb.cells[i] = nb.cells[i], nb.cells[todo]
    # A variant, so a kernel of its own; only the cells up to the last check (Part 7's benchmarks after it
    # take longer than all of its checks together and have nothing to say about them).
    nb.cells = nb.cells[:max(checks) + 1]
    _run(nb, path, tmp_path, monkeypatch)
    errors = _errors(nb)
    assert errors, "a check run before its TODO must fail"
    for i, tb in errors:
        text = _plain(tb)
        assert "CHECK FAILED" in text and "run the TODO cell above this check first" in text, text[-500:]
        assert "Traceback" not in text and "----" not in text, f"raw traceback in cell {i}: {text[-500:]}"


def test_name_error_messages_say_what_to_run():
    assert name_error_message("eng", "checks.part3.check_x(fn, eng)")[1].startswith("`eng` is not defined yet: run the first")
    headline, advice = name_error_message("retrieve_knowledge", "checks.part3.check_retrieve_knowledge(retrieve_knowledge, eng)")
    assert headline == "CHECK FAILED" and "TODO cell above" in advice
    assert name_error_message("x", "print(x)")[0] == "NOT DEFINED"


def test_second_prepare_updates_nothing(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        first = prepare(eng, progress=False)
        assert first["written"]["added"] == first["facts"]
        second = prepare(eng, progress=False)
        assert second["written"] == {"added": 0, "updated": 0, "unchanged": first["facts"]}
    finally:
        eng.close()


def test_learner_facts_and_library_facts_are_stored_alike(tmp_path):
    """Part 2's scan (the learner's comment_facts) and prepare() must not rewrite each other's facts."""
    from workshop_lib.parts import scanner

    eng = connect("embedded", path=tmp_path)
    try:
        prepare(eng, progress=False)

        def learner(catalog):  # what the TODO asks for: Fact(kind, subject, body), no extra metadata
            return [scanner.Fact(f.kind, f.subject, f.body) for f in scanner.comment_facts(catalog)]

        facts = scanner.scan_schema(eng, "SUPPLYCHAIN", mine_comments=learner)
        assert scanner.write_facts(eng, facts, progress=False)["updated"] == 0
        assert prepare(eng, progress=False)["written"]["updated"] == 0
    finally:
        eng.close()


# =============================================================== Parts 6-8, cell by cell on one kernel
def _solution(part: str, grade_id: str, *edits: tuple[str, str]) -> str:
    """A TODO cell as the solution notebook writes it, optionally edited into a mistake."""
    notebook = nbformat.read(next((release.REPO / "solutions" / part).glob("*.ipynb")), as_version=4)
    source = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    text = "\n".join(line for line in source.splitlines() if "### " not in line)
    for old, new in edits:
        assert old in text, f"the solution no longer contains {old!r}"
        text = text.replace(old, new)
    return text


class Learner:
    """A learner in JupyterLab: one live kernel, cells run one at a time. Run All stops at the
    first cell that fails (JupyterLab's default); a TODO is fixed by editing its cell and
    running that cell, then its check, again."""

    def __init__(self, part: str, client: NotebookClient) -> None:
        self.part, self.client, self.nb = part, client, client.nb
        self.shown: list[str] = []  # every error a cell showed, as the learner saw it

    def index(self, grade_id: str) -> int:
        return next(i for i, c in enumerate(self.nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)

    def run(self, i: int) -> str:
        """Run one cell; its error text ('' when it ran cleanly)."""
        cell = self.nb.cells[i]
        if cell.cell_type != "code":
            return ""
        self.client.execute_cell(cell, i)
        errors = [_plain("\n".join(o.traceback)) for o in cell.outputs if o.output_type == "error"]
        self.shown += errors
        return "\n".join(errors)

    def run_all_from(self, start: int) -> int | None:
        """Run cells from `start` until one fails; its index, or None when all ran."""
        for i in range(start, len(self.nb.cells)):
            if self.run(i):
                return i
        return None

    def write(self, grade_id: str, source: str) -> int:
        i = self.index(grade_id)
        self.nb.cells[i].source = source
        return i

    def solution(self, grade_id: str, *edits: tuple[str, str]) -> str:
        return _solution(self.part, grade_id, *edits)

    def fix(self, todo: str, check: str, source: str) -> str:
        """Edit the TODO cell, run it and then its check; the check's error text ('' when it passed)."""
        assert not self.run(self.write(todo, source)), "re-running a TODO cell must not fail"
        return self.run(self.index(check))

    def output(self, i: int) -> str:
        return "".join(o.get("text", "") for o in self.nb.cells[i].get("outputs", []))


def _no_raw_traceback(learner: Learner) -> None:
    for text in learner.shown:
        assert "CHECK FAILED" in text and "Traceback" not in text and "----" not in text, text[-800:]


@contextlib.contextmanager
def _learner(part: str, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("WORKSHOP_LLM", "off")
    path = next((release.REPO / "notebooks" / part).glob("*.ipynb"))
    client = NotebookClient(nbformat.read(path, as_version=4), timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    with client.setup_kernel():
        yield Learner(part, client)


def _stops_at(learner: Learner, start: int, check: str, words: str) -> int:
    stopped = learner.run_all_from(start)
    assert stopped == learner.index(check), f"Run All should stop at {check}, it stopped at cell {stopped}"
    assert words in learner.shown[-1], learner.shown[-1][-800:]
    return stopped


@pytest.mark.notebooks
def test_part6_learner_fixes_each_todo_by_rerunning_its_cell(tmp_path, monkeypatch):
    with _learner("part6", tmp_path, monkeypatch) as me:
        at = _stops_at(me, 0, "check_todo1_count_rows", "not implemented yet")
        # A first try that forgets upper-casing, then the fix: the same cell run again replaces the tool.
        wrong = me.solution("todo1_count_rows", ("name = table.strip().upper()", "name = table.strip()"))
        assert "upper-case it" in me.fix("todo1_count_rows", "check_todo1_count_rows", wrong)
        assert me.fix("todo1_count_rows", "check_todo1_count_rows", me.solution("todo1_count_rows")) == ""
        # A right version replaced by a wrong one must not still pass.
        assert "upper-case it" in me.fix("todo1_count_rows", "check_todo1_count_rows", wrong)
        assert me.fix("todo1_count_rows", "check_todo1_count_rows", me.solution("todo1_count_rows")) == ""
        at = _stops_at(me, at + 1, "check_todo2_agent_turn", "not implemented yet")
        # agent_turn returning the answer text: stopped by its check, not by a crash further down.
        as_text = me.solution("todo2_agent_turn", ("    return loop.TurnResult(answer=answer, messages=messages)",
                                                   "    return answer"))
        assert "returned the string" in me.fix("todo2_agent_turn", "check_todo2_agent_turn", as_text)
        # Going on without fixing it: the demo runs the library's loop and says so.
        demo = next(i for i in range(at + 1, len(me.nb.cells)) if "turn_fn = " in me.nb.cells[i].source)
        assert me.run_all_from(at + 1) is None, me.shown[-1][-800:]
        assert "use the library's loop.agent_turn" in me.output(demo)
        # Fixed: the check passes and the demo runs the learner's loop.
        assert me.fix("todo2_agent_turn", "check_todo2_agent_turn", me.solution("todo2_agent_turn")) == ""
        assert me.run_all_from(at + 1) is None, me.shown[-1][-800:]
        assert "library's" not in me.output(demo)
        _no_raw_traceback(me)


@pytest.mark.notebooks
def test_part8_learner_fixes_each_todo_and_a_wrong_chunker_cannot_hang_later_cells(tmp_path, monkeypatch):
    with _learner("part8", tmp_path, monkeypatch) as me:
        at = _stops_at(me, 0, "check_todo1_window_spans", "not implemented yet")
        # A chunker that never moves forward when overlap is 0 (profile v1): its check stops it ...
        stuck = me.solution("todo1_window_spans", ("start += size - overlap", "start += overlap"))
        assert "endless loop" in me.fix("todo1_window_spans", "check_todo1_window_spans", stuck)
        # ... and going on, the histogram and the ingests use the library's chunker instead of hanging.
        at2 = _stops_at(me, at + 1, "check_todo2_should_promote", "not implemented yet")
        assert any("use the library's chunking.window_spans" in me.output(i) for i in range(at + 1, at2))
        assert me.fix("todo1_window_spans", "check_todo1_window_spans", me.solution("todo1_window_spans")) == ""
        tie = me.solution("todo2_should_promote", ("candidate.recall < active.recall:", "candidate.recall <= active.recall:"))
        assert "as good as the active" in me.fix("todo2_should_promote", "check_todo2_should_promote", tie)
        assert me.fix("todo2_should_promote", "check_todo2_should_promote", me.solution("todo2_should_promote")) == ""
        assert me.run_all_from(at2 + 1) is None, me.shown[-1][-800:]
        _no_raw_traceback(me)


@pytest.mark.notebooks
def test_part8_wrong_chunker_costs_only_its_own_points_under_run_all(tmp_path, monkeypatch):
    """nbgrader runs every cell with errors allowed: a chunker that hangs must not take the kernel,
    and TODO 2 down with it."""
    with _learner("part8", tmp_path, monkeypatch) as me:
        me.write("todo1_window_spans", me.solution("todo1_window_spans", ("start += size - overlap", "start += overlap")))
        me.write("todo2_should_promote", me.solution("todo2_should_promote"))
        for i in range(len(me.nb.cells)):
            me.run(i)
        assert me.shown and all("TODO 1 (window_spans)" in text for text in me.shown), me.shown
        assert "TODO 2 (should_promote) passed" in me.output(me.index("check_todo2_should_promote"))


# =============================================================== Parts 6-8 in JupyterLab, in a real browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "learner-path-token"
# (TODO cell, a line that finds it on the page, what its check prints when it passes), in notebook order,
# and a text the last cell prints.
PLAN = {"part6": ([("todo1_count_rows", "def count_rows(table: str)", "TODO 1 (count_rows tool) passed"),
                   ("todo2_agent_turn", "def agent_turn(llm, registry", "TODO 2 (agent_turn) passed")],
                  '"memory off"'),  # the last table's row (quoted: exactly that text, not the markdown's)
        "part8": ([("todo1_window_spans", "def window_spans(n_units, size, overlap)", "TODO 1 (window_spans) passed"),
                   ("todo2_should_promote", "def should_promote(candidate, active", "TODO 2 (should_promote) passed")],
                  "the alias still reads")}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a copy of the learner notebooks (the browser saves into it, never into the repo),
    every cell rendered (no windowing) so that the page holds every output."""
    from workshop_lib.tools.cli import lab_command

    root = tmp_path_factory.mktemp("lab")
    for part in PLAN:
        shutil.copytree(release.REPO / "notebooks" / part, root / part)
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _, env = lab_command([])
    env.update(WORKSHOP_ENGINE="embedded", WORKSHOP_DATA_DIR=str(root / "data"), WORKSHOP_LLM="off",
               MPLBACKEND="Agg", JUPYTER_RUNTIME_DIR=str(root / "runtime"))
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={TOKEN}", "--ServerApp.port_retries=0",
           f"--LabApp.user_settings_dir={root / 'settings'}"] + (["--allow-root"] if os.getuid() == 0 else [])
    log = root / "lab.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server by its PID, with its kernels (one process group)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def _menu(page, top: str, item: str) -> None:
    page.click(f".lm-MenuBar-itemLabel:text-is('{top}')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


def _shown_errors(page) -> list[str]:
    """Errors as the page renders them (JupyterLab shows an error in a stderr output, as it does progress bars)."""
    shown = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()
    return [t for t in shown if "Error" in t or "FAILED" in t or "Traceback" in t]


@pytest.mark.notebooks
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine: `apt-get install chromium` runs the browser test")
@pytest.mark.parametrize("part", sorted(PLAN))
def test_in_jupyterlab_run_all_then_fix_each_todo_by_rerunning_its_cell(part, lab):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (`make install-test`)")
    todos, last_words = PLAN[part]
    path = next((release.REPO / "notebooks" / part).glob("*.ipynb")).name
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(f"{lab}/lab/tree/{part}/{path}?token={TOKEN}")
            page.wait_for_selector("text=/Python 3.*Idle/")
            _menu(page, "Run", "Run All Cells")
            for grade_id, finds, passed_words in todos:
                # Run All (or Run ... and All Below) stopped at this TODO's check, with one readable message.
                page.wait_for_function("[...document.querySelectorAll('.jp-OutputArea-output')]"
                                       ".some(e => e.innerText.includes('CHECK FAILED'))")
                shown = _shown_errors(page)
                assert shown, "the check's message should be on the page"
                for text in shown:
                    assert "CHECK FAILED" in text and "not implemented yet" in text and "Traceback" not in text, text
                # The learner writes the TODO cell and runs it (Shift+Enter), then the hint buttons' cell
                # below it and the check below that (Shift+Enter twice).
                page.locator(".jp-CodeCell", has_text=finds).locator(".cm-content").click()
                page.keyboard.press("Control+a")
                page.keyboard.insert_text(_solution(part, grade_id))
                for _ in range(3):
                    page.keyboard.press("Shift+Enter")
                page.wait_for_selector(f"text={passed_words}")
                assert not _shown_errors(page), _shown_errors(page)
                _menu(page, "Run", "Run Selected Cell and All Below")
            page.wait_for_selector(f"text={last_words}")
            assert not _shown_errors(page), _shown_errors(page)
            page.keyboard.press("Control+s")
        finally:
            browser.close()

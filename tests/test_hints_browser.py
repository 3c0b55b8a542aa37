"""The hint buttons in a real JupyterLab (ipywidgets rendered by its widget manager), driven by
Playwright on Debian's Chromium: run the cells, click "hint", "stronger hint" (aimed at the
check's failure) and "show outline" (only after "yes"), save, and find the levels opened and
the check's run recorded in the saved notebook."""
from __future__ import annotations

import json
import os
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

from workshop_lib.hints import record, saved, text
from workshop_lib.tools.cli import LEARNER_JUPYTER_CONFIG

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (`make install-test`)")
pytest.importorskip("ipywidgets", reason="ipywidgets is not installed: the buttons need it")
pytestmark = [pytest.mark.notebooks, pytest.mark.skipif(CHROMIUM is None, reason=(
    "no Chromium on this machine: `apt-get install chromium` (Debian) runs the browser test"))]
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "hints-test-token"
WRONG = ("def window_spans(n_units, size, overlap):\n"
         "    if size < 1 or not 0 <= overlap < size:\n        raise ValueError('bad')\n"
         "    return [(s, min(s + size, n_units)) for s in range(0, n_units, size)]")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _notebook() -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_code_cell("from workshop_lib import checks, hints"),
             nbformat.v4.new_code_cell(WRONG),
             nbformat.v4.new_code_cell("hints.buttons('part8', 1)"),
             nbformat.v4.new_code_cell("checks.part8.check_window_spans(window_spans)")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """One JupyterLab for the module (starting one takes seconds); each test opens a notebook of its own."""
    tmp_path = tmp_path_factory.mktemp("lab")
    root = tmp_path / "root"
    root.mkdir()
    port = _free_port()
    # Its own runtime, workspace and settings folders: nothing restored from another JupyterLab of this user.
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(tmp_path / "data"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "ws"), "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           # the learner's JupyterLab configuration (`workshop lab`): hint rows are saved readable
           "JUPYTER_CONFIG_PATH": str(LEARNER_JUPYTER_CONFIG)}
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={TOKEN}", "--ServerApp.port_retries=0"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp_path / "lab.log", "w")  # noqa: SIM115 - the server writes to it until the teardown closes it
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=5):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                os.killpg(proc.pid, signal.SIGKILL)
                pytest.fail("jupyter lab did not start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
            time.sleep(0.3)
    yield base, root
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    log.close()


@pytest.fixture
def lab(lab_server, request):
    """The module's JupyterLab and a fresh notebook of this test's own (never one another test ran or saved)."""
    base, root = lab_server
    path = root / f"{request.node.name}.ipynb"
    nbformat.write(_notebook(), path)
    return base, path


def _open_and_run_all(page, base: str, path: Path) -> None:
    page.goto(f"{base}/lab/tree/{path.name}?reset&token={TOKEN}")
    page.locator(".jp-Notebook").wait_for()
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    select = page.locator(".jp-Dialog").get_by_role("button", name="Select", exact=True)
    try:  # JupyterLab may ask which kernel to use although the notebook names one
        select.wait_for(timeout=3_000)
        select.click()
    except playwright.Error:
        pass
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    try:  # the last cell ran: the check failed (a loaded machine needs time to start the kernel)
        page.get_by_text("CHECK FAILED").wait_for(timeout=180_000)
    except playwright.Error:
        page.screenshot(path=str(path.parent.parent / f"{path.stem}.png"))
        raise


def _saved_when(path: Path, ready, seconds: float = 30) -> dict:
    """The saved notebook once `ready` holds (or the deadline passed). JupyterLab writes the file in
    place, so a read can meet it empty or half written: that read waits for the next."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            saved_nb = json.loads(path.read_text())
        except json.JSONDecodeError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
            continue
        if ready(saved_nb) or time.monotonic() > deadline:
            return saved_nb
        time.sleep(0.5)


def _browser_page(p):
    """Debian's Chromium, headless, one page with a generous default timeout."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(60_000)
    return browser, page


def _records(saved: dict, mime: str) -> list[dict]:
    """The payloads of one record type in a saved notebook's outputs, in cell order."""
    return [o["data"][mime] for c in saved["cells"] for o in c.get("outputs", []) if mime in o.get("data", {})]


def _saved_once_all_levels_opened(path, timeout_s: float = 30) -> dict:
    """The notebook as saved, read again until its hint record says levels 1, 2 and 3 were opened
    (or the time is up: the caller's assertion then names what was found)."""
    deadline = time.monotonic() + timeout_s
    while True:
        saved = json.loads(path.read_text())
        found = _records(saved, record.HINT_MIME)
        if (found and found[0]["opened"] == [1, 2, 3]) or time.monotonic() >= deadline:
            return saved
        time.sleep(0.5)


def test_clicking_the_hint_buttons(lab):
    base, path = lab
    with playwright.sync_playwright() as p:
        browser, page = _browser_page(p)
        try:
            _open_and_run_all(page, base, path)
            shown = page.locator(".workshop-hint-text")

            page.locator("button.workshop-hint-1").click()
            page.wait_for_function("document.querySelector('.workshop-hint-text').innerText.includes('Hint (TODO 1')")
            assert text("part8", 1, 1)[:60] in shown.inner_text()

            page.locator("button.workshop-hint-2").click()
            page.wait_for_function("document.querySelector('.workshop-hint-text').innerText.includes('Stronger')")
            assert text("part8", 1, 2, "no_overlap")[:60] in shown.inner_text(), shown.inner_text()

            page.locator("button.workshop-hint-3").click()
            confirm = page.locator("button.workshop-hint-confirm")
            confirm.wait_for()
            assert "Outline" not in shown.inner_text(), "the outline must wait for the confirmation"
            confirm.click()
            page.wait_for_function("document.querySelector('.workshop-hint-text').innerText.includes('Outline')")
            assert "start += size - overlap" in shown.inner_text()
            page.wait_for_function("[...document.querySelectorAll('.jp-OutputArea-output')]"
                                   ".some(e => e.innerText.includes('hint levels opened: 1, 2, 3'))")
            page.keyboard.press("Control+s")
            saved = _saved_once_all_levels_opened(path)
            found = _records(saved, record.HINT_MIME)
            assert found and found[0]["opened"] == [1, 2, 3], found
            runs = [r["runs"] for r in _records(saved, record.CHECK_MIME)]
            assert runs and runs[0][-1] == {**runs[0][-1], "ok": False, "class": "no_overlap"}
        finally:
            browser.close()


def test_after_a_kernel_restart_and_a_reload_the_hint_row_reads_as_text(lab):
    """The next morning: the notebook was saved, the kernel restarted, the page reloaded. The
    hint row is a readable line, never "Error displaying widget: model not found"."""
    base, path = lab
    with playwright.sync_playwright() as p:
        browser, page = _browser_page(p)
        try:
            _open_and_run_all(page, base, path)
            page.locator("button.workshop-hint-1").wait_for()  # live buttons while the kernel runs
            page.keyboard.press("Control+s")
            on_disk = _saved_when(path, lambda nb: any(record.HINT_MIME in o.get("data", {}) for c in nb["cells"]
                                                        for o in c.get("outputs", [])))
            rows = [o for c in on_disk["cells"] for o in c.get("outputs", []) if (o.get("metadata") or {}).get(saved.MARK)]
            assert rows and all(saved.WIDGET_VIEW not in o["data"] and "text/html" in o["data"] for o in rows), rows
            assert page.locator("button.workshop-hint-1").count() == 1  # the open page keeps its buttons

            page.get_by_role("menuitem", name="Kernel", exact=True).click()
            page.get_by_role("menuitem", name="Restart Kernel…").click()
            page.locator(".jp-Dialog .jp-mod-accept").click()  # "Restart" in the confirmation
            page.locator(".jp-Dialog").wait_for(state="detached")
            page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
            page.reload()
            page.locator(".jp-Notebook").wait_for()
            row = page.locator(".workshop-hint-saved")
            row.wait_for()
            assert "Hint buttons for TODO 1" in row.inner_text() and "hints.hint('part8', 1)" in row.inner_text()
            page.wait_for_timeout(2_000)  # the widget manager has restored what it can by now
            outputs = " ".join(page.locator(".jp-OutputArea-output").all_inner_texts())
            assert "Error displaying widget" not in outputs and "model not found" not in outputs, outputs
        finally:
            browser.close()

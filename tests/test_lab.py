"""`make workshop` opens JupyterLab the way a learner meets it: rooted at notebooks/,
every Part in the file browser, nbgrader's instructor tools hidden."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from workshop_lib.tools import release
from workshop_lib.tools.cli import lab_command

TOKEN = "workshop-test-token"
PARTS = sorted(p.parent.name for p in (release.REPO / "notebooks").glob("*/*.ipynb"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    cmd, env = lab_command(["--no-browser", f"--port={port}", "--ip=127.0.0.1",
                            f"--IdentityProvider.token={TOKEN}", "--ServerApp.port_retries=0"])
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path_factory.mktemp("runtime"))
    log = tmp_path_factory.mktemp("log") / "lab.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if _get(f"{base}/api/status?token={TOKEN}")[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.3)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"jupyter lab did not answer within 60 s:\n{log.read_text()[-3000:]}")
    yield base
    os.killpg(proc.pid, signal.SIGTERM)  # stop the server by its PID (and its process group)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


def test_file_browser_shows_every_part(server):
    assert {"part1", "part2", "part3", "part4", "part5"} <= set(PARTS)
    status, body = _get(f"{server}/api/contents/?token={TOKEN}")
    assert status == 200
    listed = {item["name"] for item in json.loads(body)["content"]}
    assert set(PARTS) <= listed, f"the server root should be notebooks/ with every Part; it lists {sorted(listed)}"
    for part in PARTS:
        status, body = _get(f"{server}/api/contents/{part}?token={TOKEN}")
        assert status == 200
        assert any(i["name"].endswith(".ipynb") for i in json.loads(body)["content"]), part


def test_instructor_tools_are_hidden_from_learners(server):
    status, body = _get(f"{server}/lab?token={TOKEN}")
    assert status == 200
    page = body.decode()
    start = page.index('id="jupyter-config-data"')
    config = json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
    assert "@jupyter/nbgrader" in config["disabledExtensions"], "nbgrader's toolbar should be disabled for learners"
    assert _get(f"{server}/formgrader?token={TOKEN}")[0] == 404

"""The chat page in a real browser: Playwright driving Debian's Chromium against the
service on loopback. Type a question, see the answer, its mode badge (the same as the
X-Answer-Mode header) and its sources; reload and see the thread again."""
from __future__ import annotations

import shutil

import pytest

from workshop_lib import connect
from workshop_lib.data import catalog
from workshop_lib.parts.chat.server import BackgroundServer
from workshop_lib.prepare import prepare

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (`make install-test`)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=(
    "no Chromium on this machine: `apt-get install chromium` (Debian) runs the browser test; .ci/run installs it"))
# Flags for a sandboxed CI machine with no network: no first-run, background or component traffic.
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    eng = connect("embedded", path=tmp_path_factory.mktemp("browser"))
    prepare(eng, progress=False)
    catalog.seed(eng, progress=False)
    with BackgroundServer(eng) as srv:
        yield srv
    eng.close()


@pytest.fixture
def page(server, tmp_path):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context()
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        yield tab
        context.close()
        browser.close()


def _ask(page, question: str) -> tuple[str, dict]:
    page.fill("#question", question)
    with page.expect_response(lambda r: r.url.endswith("/chat")) as info:
        page.click("#send")
    response = info.value
    return response.headers["x-answer-mode"], response.json()


def test_a_question_gets_an_answer_with_its_mode_badge_and_sources(server, page):
    page.goto(server.url + "/")
    mode, body = _ask(page, "How is the IMO check digit computed?")
    answer = page.locator(".msg.assistant").last
    answer.wait_for()
    assert answer.locator(".badge").inner_text().lower() == mode == body["mode"]
    assert "check digit" in answer.locator(".answer").inner_text()
    sources = answer.locator("li.source").all_inner_texts()
    assert sources and "SUPPLYCHAIN.VESSELS.IMO_NUMBER" in sources
    answer.locator("summary").click()
    assert '"reason"' in answer.locator("pre").inner_text()

    mode2, _ = _ask(page, "What is a good recipe for pasta carbonara?")
    last = page.locator(".msg.assistant").last
    page.wait_for_function("document.querySelectorAll('.msg.assistant').length >= 2")
    assert mode2 == "fallback" and last.locator(".badge").inner_text().lower() == "fallback"

    page.reload()  # the thread comes back from GET /threads/{id}
    page.wait_for_selector(".msg.user")
    assert page.locator(".msg.user").count() == 2 and page.locator(".msg.assistant").count() == 2


def test_a_refused_question_shows_what_to_fix(server, page):
    page.goto(server.url + "/")
    page.evaluate("document.getElementById('question').removeAttribute('maxlength')")
    page.fill("#question", "x" * 2500)
    page.click("#send")
    status = page.locator("#status")
    status.wait_for()
    page.wait_for_function("document.getElementById('status').textContent.length > 0")
    assert "limit" in status.inner_text() and page.locator(".msg.assistant").count() == 0

"""The chat page in a real browser: Playwright driving Debian's Chromium against the
service on loopback, offline (no model key: the grounded handlers, Part 4's modes, Part 8's
documents and Part 6's offline planner answer). Type a question, see the answer, its mode
badge (the same as the X-Answer-Mode header), its sources grouped per document and its
"why this answer"; reload and see every answer drawn exactly as it was; the agent toggle;
a blank question refused in the page; no failed request or console error on load; the
token read from the URL fragment and sent as a header."""
from __future__ import annotations

import json
import shutil
from contextlib import contextmanager
from typing import Any

import pytest

from workshop_lib import connect
from workshop_lib.data import catalog
from workshop_lib.parts.chat.server import BackgroundServer
from workshop_lib.parts.ingest import pipeline
from workshop_lib.prepare import prepare

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (`make install-test`)")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason=(
    "no Chromium on this machine: `apt-get install chromium` (Debian) runs the browser test; .ci/run installs it"))]
# Flags for a sandboxed CI machine with no network: no first-run, background or component traffic.
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "fragment-token-7c1e"
TARIFF = "What is the demurrage charge per day?"  # answered from two chunks of one carrier tariff


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("browser"))
    prepare(engine, progress=False)
    catalog.seed(engine, progress=False)
    pipeline.ingest(engine, profile="v2", progress=False, promote=True)  # Part 8's documents answer too
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def server(eng):
    with BackgroundServer(eng) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


class Watch:
    """Every request, failed response and console error of one tab."""

    def __init__(self, tab) -> None:
        self.requests: list[Any] = []
        self.failures: list[Any] = []
        self.console_errors: list[Any] = []
        tab.on("request", lambda r: self.requests.append(r))
        tab.on("response", lambda r: self.failures.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        tab.on("requestfailed", lambda r: self.failures.append(f"failed {r.url}: {r.failure}"))
        tab.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))

    def chat_requests(self) -> list:
        return [r for r in self.requests if r.url.endswith("/chat")]


@contextmanager
def _tab(browser):
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    try:
        yield tab, Watch(tab)
    finally:
        context.close()


@pytest.fixture
def page(browser):
    with _tab(browser) as (tab, _):
        yield tab


def _ask(page, question: str) -> tuple[str, dict]:
    count = page.locator(".msg.assistant").count()
    page.fill("#question", question)
    with page.expect_response(lambda r: r.url.endswith("/chat")) as info:
        page.click("#send")
    response = info.value
    page.wait_for_function(f"document.querySelectorAll('.msg.assistant').length > {count}")
    return response.headers["x-answer-mode"], response.json()


def _answers_html(page) -> list[str]:
    """Each answer as drawn (a "why this answer" the test opened counts as closed)."""
    return page.eval_on_selector_all(".msg.assistant", """nodes => nodes.map(n => {
        const copy = n.cloneNode(true);
        copy.querySelectorAll("details").forEach(d => d.removeAttribute("open"));
        return copy.outerHTML;
    })""")


def _reload(page, answers: int) -> None:
    page.reload()  # the thread comes back from GET /threads/{id}
    page.wait_for_function(f"document.querySelectorAll('.msg.assistant').length === {answers}")


def test_an_answer_shows_its_badge_grouped_sources_and_why_and_a_reload_keeps_them(server, page):
    page.goto(server.url + "/")
    mode, body = _ask(page, "How is the IMO check digit computed?")
    answer = page.locator(".msg.assistant").last
    assert answer.locator(".badge").inner_text().lower() == mode == body["mode"] == "rag"
    assert "check digit" in answer.locator(".answer").inner_text()
    assert answer.locator("li.source .name").all_inner_texts() == ["SUPPLYCHAIN.VESSELS.IMO_NUMBER"]
    assert answer.locator("li.tool-call").count() == 0
    answer.locator("summary").click()
    assert json.loads(answer.locator("pre").inner_text()) == body["decision_explain"]

    mode, body = _ask(page, TARIFF)
    tariff = page.locator(".msg.assistant").last
    assert tariff.locator(".badge").inner_text().lower() == mode == body["mode"]
    # One line per document, not one per chunk: the tariff's two chunks are one source.
    names = tariff.locator("li.source .name").all_inner_texts()
    assert len(names) == len(set(names)) == len({c["subject"] for c in body["used_chunks"]})
    assert len(body["used_chunks"]) > len(names)
    assert "2 passages" in tariff.locator("li.source").first.inner_text()

    mode, _ = _ask(page, "What is a good recipe for pasta carbonara?")
    assert mode == "fallback" and page.locator(".msg.assistant").last.locator(".badge").inner_text().lower() == "fallback"

    before = _answers_html(page)
    _reload(page, 3)
    assert page.locator(".msg.user").count() == 3
    # Drawn from the stored thread exactly as they were drawn live: badge, sources, why.
    assert _answers_html(page) == before
    tariff = page.locator(".msg.assistant").nth(1)
    tariff.locator("summary").click()
    assert json.loads(tariff.locator("pre").inner_text())["handler"] == "documents (Part 8)"


def test_the_agent_toggle_sends_agent_and_shows_labelled_tool_calls(server, browser):
    with _tab(browser) as (page, watch):
        page.goto(server.url + "/")
        page.check("#agent")
        mode, body = _ask(page, "How many active voyages does each carrier have?")
        assert json.loads(watch.chat_requests()[-1].post_data)["agent"] is True
        answer = page.locator(".msg.assistant").last
        assert answer.locator(".badge").inner_text().lower() == mode == "rag"
        assert body["decision_explain"]["handler"] == "agent (Part 6)"
        calls = answer.locator(".tool-calls")
        assert "Tool calls" in calls.locator(".label").inner_text()
        assert calls.locator("li.tool-call .name").all_inner_texts() == ["run_sql"]
        assert answer.locator("li.source").count() == 0  # a tool call is not listed as a source

        before = _answers_html(page)
        _reload(page, 1)
        assert _answers_html(page) == before and page.is_checked("#agent")
        page.uncheck("#agent")
        _ask(page, "How is the IMO check digit computed?")
        assert "agent" not in json.loads(watch.chat_requests()[-1].post_data)


@pytest.mark.parametrize("blank", ["     ", "\t \u00a0 \u3000", "\u200b\ufeff"])
def test_a_blank_question_is_refused_in_the_page(server, browser, blank):
    with _tab(browser) as (page, watch):
        page.goto(server.url + "/")
        page.fill("#question", blank)
        page.click("#send")
        page.wait_for_function("document.getElementById('status').textContent.length > 0")
        assert "empty" in page.locator("#status").inner_text()
        page.press("#question", "Enter")
        assert watch.chat_requests() == [] and page.locator(".msg").count() == 0


def test_a_long_paste_is_sent_whole_and_the_servers_refusal_is_shown(server, browser):
    """Nothing is cut in the page: a 20,000-character paste reaches the server, and its 413
    (what the limit is and what to do) is shown, with the question given back to shorten."""
    with _tab(browser) as (page, watch):
        page.goto(server.url + "/")
        assert page.get_attribute("#question", "maxlength") is None
        pasted = "Where is Tanger Med? " + "x" * 19_979
        page.fill("#question", pasted)
        assert len(page.input_value("#question")) == 20_000
        with page.expect_response(lambda r: r.url.endswith("/chat")) as info:
            page.click("#send")
        assert info.value.status == 413
        page.wait_for_function("document.getElementById('status').textContent.length > 0")
        shown = page.locator("#status").inner_text()
        assert "20,000 characters; the limit is 2,000" in shown and "shorter" in shown
        assert json.loads(watch.chat_requests()[-1].post_data)["question"] == pasted
        assert page.locator(".msg").count() == 0 and page.input_value("#question") == pasted


def test_data_and_port_answers_cite_their_rows_in_words(server, page):
    page.goto(server.url + "/")
    _, body = _ask(page, "What are the 3 oldest vessels?")
    source = page.locator(".msg.assistant").last.locator("li.source")
    assert source.count() == 1 and body["mode"] == "rag"
    text = source.inner_text()
    assert text.startswith("SUPPLYCHAIN.VESSELS (3 rows shown in the answer") and "{" not in text
    assert body["used_chunks"][0]["rows_shown"] == 3 and "FROM" not in text  # no SQL, no JSON: words

    _, body = _ask(page, "Where is Tanger Med?")
    assert body["mode"] == "rag"
    port = page.locator(".msg.assistant").last.locator("li.source")
    assert port.all_inner_texts() == ["SUPPLYCHAIN.PORTS (1 row shown in the answer: Tanger Med (MAPTM))"]


def test_loading_and_reloading_the_page_has_no_failed_request_or_console_error(server, browser):
    with _tab(browser) as (page, watch):
        page.goto(server.url + "/", wait_until="networkidle")
        _ask(page, "Where is Tanger Med?")
        _reload(page, 1)
        page.wait_for_load_state("networkidle")
        assert watch.failures == [] and watch.console_errors == []
        assert any(r.url.endswith("/threads/" + page.evaluate("sessionStorage.getItem('threadId')"))
                   for r in watch.requests)


def test_the_token_is_read_from_the_fragment_and_sent_as_a_header(eng, browser):
    with BackgroundServer(eng, token=TOKEN) as secured, _tab(browser) as (page, watch):
        page.goto(secured.url + "/")  # no token: the page loads, and says how to open it
        page.fill("#question", "Where is Tanger Med?")
        page.click("#send")
        page.wait_for_function("document.getElementById('status').textContent.includes('#token=')")
        assert page.locator(".msg").count() == 0

        page.goto(secured.url + f"/#token={TOKEN}")
        page.reload()  # a fresh load with the fragment (a fragment-only navigation does not reload)
        _, body = _ask(page, "Where is Tanger Med?")
        assert body["mode"] == "rag"
        _reload(page, 1)
        api = [r for r in watch.requests if "/chat" in r.url or "/threads/" in r.url]
        assert len(api) >= 3
        assert "authorization" not in api[0].all_headers()
        assert all(r.all_headers().get("authorization") == f"Bearer {TOKEN}" for r in api[1:])
        assert all(TOKEN not in r.url for r in watch.requests)  # the fragment never leaves the browser

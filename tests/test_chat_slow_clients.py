"""The chat service under slow clients (parts/chat/server.py): a bounded number of clients on
loopback that trickle their headers or their body a byte at a time are closed after the
deadline, a new connection over the cap closes the oldest idle one, /health answers
throughout, and the log stays small whatever the clients or the event loop do."""
from __future__ import annotations

import asyncio
import errno
import io
import logging
import socket
import threading
import time

import httpx
import pytest

from workshop_lib import connect
from workshop_lib.parts.chat import server as chat_server
from workshop_lib.parts.chat.server import BackgroundServer, LogBudget

# Deadlines and answer times are measured here: with `-n auto` this module is in conftest's "timed" group,
# never beside another test that bounds a duration.
HEADER_S, BODY_S, CAP = 1.0, 1.5, 12
SLOW_HEADERS, SLOW_BODIES = 30, 4       # more slow clients than the cap, bounded in count
TRICKLE_S, RUN_S = 0.2, 6.0             # a byte every 0.2 s, for at most 6 s


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("slow"))
    yield engine
    engine.close()


def _trickle(sock: socket.socket, data: bytes, started: float, closed_after: list[float], stop: threading.Event) -> None:
    """Sends `data` a byte at a time; records when the server closed the connection."""
    sock.settimeout(TRICKLE_S)
    try:
        for byte in data:
            if stop.is_set() or time.monotonic() - started > RUN_S:
                return
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(4096) == b"":
                    closed_after.append(time.monotonic() - started)
                    return
            except TimeoutError:
                continue  # nothing from the server yet: trickle on
            except OSError:  # reset by the server
                closed_after.append(time.monotonic() - started)
                return
    finally:
        sock.close()


def _slow_client(port: int, request: bytes, closed_after: list[float], stop: threading.Event) -> None:
    """Sends the whole request, headers included, a byte at a time."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
    _trickle(sock, request, time.monotonic(), closed_after, stop)


def _slow_body(port: int, request: bytes, closed_after: list[float], stop: threading.Event) -> None:
    """Sends the headers at once, then the body a byte at a time."""
    head, _, rest = request.partition(b"\r\n\r\n")
    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
    started = time.monotonic()
    sock.sendall(head + b"\r\n\r\n")
    _trickle(sock, rest, started, closed_after, stop)


def test_slow_clients_are_dropped_and_health_still_answers(eng, capfd):
    headers = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    body = (b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
            b'{"question": "' + b"a" * 180)
    closed: dict[str, list[float]] = {"headers": [], "body": []}
    stop = threading.Event()
    with BackgroundServer(eng, header_timeout_s=HEADER_S, body_timeout_s=BODY_S, max_connections=CAP) as server:
        port = server.port
        threads = []
        for i in range(SLOW_BODIES + SLOW_HEADERS):
            kind = "body" if i < SLOW_BODIES else "headers"
            # The body's headers go in one packet, then the body trickles.
            data = body if kind == "body" else headers
            t = threading.Thread(target=_slow_client if kind == "headers" else _slow_body,
                                 args=(port, data, closed[kind], stop), daemon=True)
            t.start()
            threads.append(t)
        time.sleep(0.3)  # every slow client connected: more than the cap
        answered = []
        for _ in range(6):
            t0 = time.monotonic()
            reply = httpx.get(f"{server.url}/health", timeout=5)
            answered.append((reply.status_code, time.monotonic() - t0))
            time.sleep(0.3)
        for t in threads:
            t.join(RUN_S + 2)
        stop.set()
    assert all(status == 200 for status, _ in answered), answered
    assert max(took for _, took in answered) < 1.0, answered  # served at once, not after the slow ones left
    # Every slow client was closed: over the cap at once, else at its deadline (never held for the whole run).
    assert len(closed["headers"]) == SLOW_HEADERS and max(closed["headers"]) < HEADER_S + 1.0, closed
    assert len(closed["body"]) == SLOW_BODIES and max(closed["body"]) < HEADER_S + BODY_S + 1.0, closed
    logged = capfd.readouterr()
    text = logged.out + logged.err
    assert len(text.encode()) < 20_000 and "Traceback" not in text, text[-3000:]


def test_a_connection_over_the_cap_gets_a_503_when_all_are_busy(eng, monkeypatch):
    # Every connection busy answering (a slow answer): the next one is refused at once, not queued.
    from workshop_lib.parts.chat import app as chat_app

    release = threading.Event()

    def slow_answer(self, req):
        release.wait(10)
        return {"thread_id": "t"}, "grounded"

    monkeypatch.setattr(chat_app.ChatService, "answer", slow_answer)
    with BackgroundServer(eng, max_connections=2) as server:
        def ask():
            return httpx.post(f"{server.url}/chat", json={"question": "Where is Tanger Med?"}, timeout=15)

        results: list = []
        busy = [threading.Thread(target=lambda: results.append(ask())) for _ in range(2)]
        for t in busy:
            t.start()
        time.sleep(0.5)
        refused = httpx.get(f"{server.url}/health", timeout=5)
        release.set()
        for t in busy:
            t.join(15)
    assert refused.status_code == 503 and "busy" in refused.text
    assert [r.status_code for r in results] == [200, 200]


# ------------------------------------------------------------------ the log budget
def _budgeted_logger(name: str) -> tuple[logging.Logger, io.StringIO]:
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(LogBudget())
    logger = logging.getLogger(name)
    logger.handlers, logger.propagate, logger.level = [handler], False, logging.INFO
    return logger, buf


def test_a_flood_of_failed_accepts_writes_a_small_log_without_tracebacks(monkeypatch):
    logger, buf = _budgeted_logger("test.slow.accept")
    monkeypatch.setattr(chat_server, "log", logger)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(20_000):  # what a descriptor-starved accept loop reports, again and again
            try:
                raise OSError(errno.EMFILE, "Too many open files")
            except OSError as exc:
                chat_server.loop_exception_handler(loop, {"message": "socket.accept() out of system resource",
                                                          "exception": exc})
    finally:
        loop.close()
    text = buf.getvalue()
    assert "socket.accept() out of system resource" in text and "Too many open files" in text
    assert "Traceback" not in text and len(text) < 5_000, len(text)


def test_the_log_budget_bounds_errors_tracebacks_and_total_size():
    logger, buf = _budgeted_logger("test.slow.budget")
    for i in range(5_000):
        try:
            raise ValueError("x" * 50_000)
        except ValueError:
            logger.exception("request %d failed: %s", i, "y" * 100_000)
    text = buf.getvalue()
    assert text.count("Traceback") == 1 and len(text) < 30 * 2_200 + 10_000, len(text)
    budget = LogBudget(total_bytes=10_000)
    records = [logging.LogRecord("x", logging.ERROR, __file__, 1, "e" * 3_000, None, None) for _ in range(50)]
    assert sum(budget.filter(r) for r in records) <= 5  # past the total, a line a minute

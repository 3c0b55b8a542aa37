"""Run the chat app: `workshop serve` (run) or a background thread (notebooks, tests, the load bench).

Both run uvicorn with a guarded HTTP protocol, so slow or idle clients cannot hold the service:

- a connection must send its request line and headers within HEADER_TIMEOUT_S (a client that
  sends a byte every few seconds is closed; uvicorn itself waits for them forever), and the
  body within BODY_TIMEOUT_S after them;
- at most `max_connections` are open at once (below the process's descriptor limit, so accept()
  never fails for lack of descriptors); a new connection over the cap closes the oldest one that
  is still waiting for its headers, or gets a 503 when every connection is busy with a request;
- the log has a budget (LogBudget): warnings and errors, and access lines, are rate-limited, a
  traceback is written once per message and minute and cut short, and past a total size only a
  line a minute is kept, so no flood of failed connections can fill the disk. The event loop's
  own errors (a failed accept) are logged through it in one line, without a traceback.
"""
from __future__ import annotations

import asyncio
import logging
import resource
import socket
import threading
import time
import traceback
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from workshop_lib.parts.chat.app import BODY_READ_S, create_app, uvicorn_log_config

HEADER_TIMEOUT_S = 10.0       # request line and headers (a browser sends them in one packet)
BODY_TIMEOUT_S = BODY_READ_S  # the body after them (at most app.MAX_BODY_BYTES)
log = logging.getLogger("uvicorn.error")


def default_max_connections() -> int:
    """Half the soft descriptor limit (the rest for the database, the model and the log), at most 1,000."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(8, min(1000, (soft if soft > 0 else 1024) // 2))


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with header and body deadlines and a cap on open connections.
    The limits are class attributes: `guarded_protocol` makes a subclass with a server's own."""

    header_timeout_s = HEADER_TIMEOUT_S
    body_timeout_s = BODY_TIMEOUT_S
    max_connections = 500

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._deadline_for = ""
        self._waiting_since = self.loop.time()
        super().connection_made(transport)
        self._arm("headers", self.header_timeout_s)
        if len(self.connections) > self.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.transport.is_closing() or self._waiting_for_headers():
            return  # the headers' deadline keeps running: it is not reset by each byte that trickles in
        if self.cycle.more_body:
            if self._deadline_for != "body":
                self._arm("body", self.body_timeout_s)
        else:
            self._disarm()  # the request is read: the app answers in its own time

    def on_response_complete(self) -> None:
        # The next request on a kept-alive connection has the same deadline for its headers. Armed
        # before uvicorn's own handler, which may go on to a pipelined request (handle_events above).
        self._waiting_since = self.loop.time()
        self._arm("headers", self.header_timeout_s)
        super().on_response_complete()

    # ---------------------------------------------------------------- the guard
    def _waiting_for_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self, what: str, seconds: float) -> None:
        self._disarm()
        self._deadline_for = what
        self._deadline = self.loop.call_later(seconds, self._expired, what)

    def _disarm(self) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()  # type: ignore[union-attr]
        self._deadline, self._deadline_for = None, ""

    def _expired(self, what: str) -> None:
        late = self._waiting_for_headers() if what == "headers" else bool(self.cycle and self.cycle.more_body)
        if late and not self.transport.is_closing():
            log.info("closed a connection from %s: its %s took longer than %.0f s", self._peer(), what,
                     self.header_timeout_s if what == "headers" else self.body_timeout_s)
            self.transport.close()

    def _make_room(self) -> None:
        """Over the cap: close the oldest connection still waiting for its headers (a slow or idle
        client), or refuse this one with a 503 when every other is busy with a request."""
        idle = [c for c in self.connections
                if c is not self and isinstance(c, GuardedH11Protocol) and c._waiting_for_headers()
                and not c.transport.is_closing()]
        if idle:
            oldest = min(idle, key=lambda c: c._waiting_since)
            log.info("closed the oldest idle connection (from %s): %d connections is the cap", oldest._peer(),
                     self.max_connections)
            oldest.transport.close()
            return
        body = b"the chat service is busy: every connection is answering a request; try again in a moment\n"
        self.transport.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                             b"retry-after: 5\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        log.warning("refused a connection with 503: all %d connections are busy", self.max_connections)
        self.transport.close()

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "?"


def guarded_protocol(*, header_timeout_s: float = HEADER_TIMEOUT_S, body_timeout_s: float = BODY_TIMEOUT_S,
                     max_connections: int | None = None) -> type[GuardedH11Protocol]:
    if header_timeout_s <= 0 or body_timeout_s <= 0:
        raise ValueError("header_timeout_s and body_timeout_s must be more than 0 seconds")
    cap = default_max_connections() if max_connections is None else max_connections
    if cap < 1:
        raise ValueError("max_connections must be at least 1")
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {
        "header_timeout_s": header_timeout_s, "body_timeout_s": body_timeout_s, "max_connections": cap})


class LogBudget(logging.Filter):
    """Bounds what the service writes to its log, whatever clients do (module docstring).

    Per minute at most `errors_per_minute` warnings and errors and `lines_per_minute` other
    lines; the first kept line after a minute with dropped ones says how many were dropped. A
    traceback only on the first record of each message in a minute, cut to its last
    `max_traceback_chars`; a message cut to `max_message_chars`. Past `total_bytes`, a line a
    minute of each kind, without tracebacks."""

    def __init__(self, name: str = "", *, errors_per_minute: int = 30, lines_per_minute: int = 600,
                 max_message_chars: int = 2_000, max_traceback_chars: int = 8_000,
                 total_bytes: int = 50_000_000) -> None:
        super().__init__(name)
        self.limits = {True: errors_per_minute, False: lines_per_minute}
        self.max_message_chars, self.max_traceback_chars = max_message_chars, max_traceback_chars
        self.total_bytes, self.written = total_bytes, 0
        self._lock = threading.Lock()
        self._minute = time.monotonic()
        self._kept = {True: 0, False: 0}
        self._dropped = {True: 0, False: 0}
        self._traced: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        serious = record.levelno >= logging.WARNING
        admitted = self._admit(record, serious)
        if admitted is None:
            return False
        trace, rewrite, dropped = admitted
        message = record.getMessage()
        if rewrite and (dropped or len(message) > self.max_message_chars):
            message = self._cut_message(message, dropped)
            record.msg, record.args = message, None
        self._cut_traceback(record, trace)
        with self._lock:
            self.written += len(message) + len(record.exc_text or "") + 80
        return True

    def _admit(self, record: logging.LogRecord, serious: bool) -> tuple[bool, bool, int] | None:
        """Counts the record against this minute's limit (one line a minute once the byte budget is
        spent): None when it is dropped, else whether to keep its traceback (the first of its kind,
        budget left), whether to rewrite its message, and how many lines were dropped before it."""
        with self._lock:
            now = time.monotonic()
            if now - self._minute >= 60:
                self._minute, self._kept, self._traced = now, {True: 0, False: 0}, set()
            spent = self.written >= self.total_bytes
            limit = 1 if spent else self.limits[serious]
            if self._kept[serious] >= limit:
                self._dropped[serious] += 1
                return None
            self._kept[serious] += 1
            key = (record.name, str(record.msg)[:200])
            trace = bool(record.exc_info) and not spent and key not in self._traced
            self._traced.add(key)
            # uvicorn's access formatter reads the record's args: its (short) lines are kept as they are
            rewrite = record.name != "uvicorn.access"
            dropped = self._dropped[serious] if rewrite else 0
            self._dropped[serious] -= dropped
        return trace, rewrite, dropped

    def _cut_message(self, message: str, dropped: int) -> str:
        """The message cut to max_message_chars, prefixed with the count of lines dropped before it."""
        if len(message) > self.max_message_chars:
            message = f"{message[:self.max_message_chars]}... ({len(message):,} characters)"
        if dropped:
            message = f"[{dropped} log lines dropped by the log budget] {message}"
        return message

    def _cut_traceback(self, record: logging.LogRecord, trace: bool) -> None:
        """Keeps the record's traceback, its head and tail within max_traceback_chars, when it is to
        be traced; else drops it."""
        if trace and record.exc_info:
            text = "".join(traceback.format_exception(*record.exc_info))
            head = self.max_traceback_chars // 8
            record.exc_text = text if len(text) <= self.max_traceback_chars else \
                f"{text[:head]}\n... (traceback cut) ...\n{text[-(self.max_traceback_chars - head):]}"
        else:
            record.exc_info, record.exc_text = None, None


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's errors (a failed accept(), a callback that raised) in one log line each,
    through the log budget, never asyncio's traceback per event."""
    exc = context.get("exception")
    detail = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
    log.error("event loop: %s%s", context.get("message", "unknown error"), detail)


class GuardedServer(uvicorn.Server):
    """uvicorn's server with the loop's errors logged by loop_exception_handler."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(loop_exception_handler)
        await super().startup(sockets)


def server_config(app: Any, *, host: str, port: int, log_level: str = "info", header_timeout_s: float = HEADER_TIMEOUT_S,
                  body_timeout_s: float = BODY_TIMEOUT_S, max_connections: int | None = None) -> uvicorn.Config:
    """uvicorn's configuration with the guarded protocol and the budgeted log."""
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, log_config=uvicorn_log_config(),
                          lifespan="off", timeout_keep_alive=5,
                          http=guarded_protocol(header_timeout_s=header_timeout_s, body_timeout_s=body_timeout_s,
                                                max_connections=max_connections))


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class BackgroundServer:
    def __init__(self, eng, *, host: str = "127.0.0.1", port: int | None = None,
                 header_timeout_s: float = HEADER_TIMEOUT_S, body_timeout_s: float = BODY_TIMEOUT_S,
                 max_connections: int | None = None, **app_options) -> None:
        self.host, self.port = host, port or free_port(host)
        config = server_config(create_app(eng, **app_options), host=self.host, port=self.port, log_level="warning",
                               header_timeout_s=header_timeout_s, body_timeout_s=body_timeout_s,
                               max_connections=max_connections)
        self._server = GuardedServer(config)
        self._thread = threading.Thread(target=self._server.run, name=f"chat-server-{self.port}", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 20.0) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the chat server did not start on {self.url} (is the port taken?)")
            time.sleep(0.05)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout_s)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

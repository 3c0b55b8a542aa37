"""Run the chat app in a background thread (notebooks, tests, the load bench).

`workshop serve` is the way to run it for people; this is for a notebook cell that
starts the service, calls it and stops it again.
"""
from __future__ import annotations

import socket
import threading
import time

import uvicorn

from workshop_lib.parts.chat.app import create_app


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class BackgroundServer:
    def __init__(self, eng, *, host: str = "127.0.0.1", port: int | None = None, **app_options) -> None:
        self.host, self.port = host, port or free_port(host)
        config = uvicorn.Config(create_app(eng, **app_options), host=self.host, port=self.port,
                                log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
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

"""A bounded load run against the chat service on loopback.

    python -m bench.chat_load [--clients 20] [--requests 2000] [--in-process]

Starts the service on 127.0.0.1 (a free port) over a throw-away embedded engine, sends
`--requests` POST /chat from `--clients` concurrent clients (a fixed mix of knowledge,
catalog, port and off-topic questions), stops by itself, and reports errors, p50/p95
latency, requests/s, and whether telemetry holds exactly one row per request.

The service runs in a process of its own, as `workshop serve` runs it. With `--in-process` it runs
in a thread of the clients' process instead (how this benchmark ran until November 2026): the
clients' threads then share the service's interpreter lock, and every figure is slower.
"""
from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx

from workshop_lib import connect
from workshop_lib.data import catalog
from workshop_lib.parts.chat import telemetry
from workshop_lib.parts.chat.app import create_app
from workshop_lib.parts.chat.server import BackgroundServer, GuardedServer, free_port, server_config
from workshop_lib.prepare import prepare
from workshop_lib.progress import progress

QUESTIONS = [
    "How is the IMO check digit computed?", "What is the capacity of a ship in TEU?", "TEU",
    "Do you have flat racks in Hamburg?", "I need a refrigerated container for frozen fish", "Where is Tanger Med?",
    "Which ports are in North Europe?", "What is a good recipe for pasta carbonara?", "Do you sell pizza ovens?",
    "When was the ship built?",
]


def _serve(folder: str, port: int) -> None:
    """The service over the engine in `folder`, in the process this runs in (the child's target)."""
    eng = connect("embedded", path=folder)
    GuardedServer(server_config(create_app(eng), host="127.0.0.1", port=port, log_level="warning")).run()


@contextlib.contextmanager
def _service(eng, folder: str, in_process: bool, start_s: float = 120.0) -> Iterator[str]:
    """The service's URL while it runs: in a child process (as served), or in a thread of this one."""
    if in_process:
        with BackgroundServer(eng) as server:
            yield server.url
        return
    port = free_port()
    child = multiprocessing.get_context("spawn").Process(target=_serve, args=(folder, port), daemon=True)
    child.start()
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + start_s
    try:
        while True:
            with contextlib.suppress(httpx.TransportError):
                httpx.get(f"{url}/health", timeout=2)
                break
            if not child.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the chat service did not start on {url} within {start_s:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        child.terminate()
        child.join(10)


def run(clients: int = 20, requests: int = 2000, timeout_s: float = 600.0, in_process: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="chat-load-") as folder:
        eng = connect("embedded", path=folder)
        prepare(eng, progress=False)
        catalog.seed(eng, progress=False)
        telemetry.ensure_table(eng)
        before = telemetry.count(eng)
        latencies: list[float] = []
        errors: dict[int, int] = {}
        deadline = time.monotonic() + timeout_s
        with _service(eng, folder, in_process) as url, httpx.Client(base_url=url, timeout=60,
                                                                  limits=httpx.Limits(max_connections=clients)) as http:
            bar = progress(total=requests, desc="chat requests", unit="req")

            def one(i: int) -> None:
                if time.monotonic() > deadline:  # bounded in time as well as in count
                    errors[-1] = errors.get(-1, 0) + 1
                    return
                t0 = time.perf_counter()
                status = http.post("/chat", json={"question": QUESTIONS[i % len(QUESTIONS)]}).status_code
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    errors[status] = errors.get(status, 0) + 1
                bar.update()

            t0 = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                list(pool.map(one, range(requests)))
            wall = time.perf_counter() - t0
            bar.close()
        rows = telemetry.count(eng) - before
        eng.close()
    cuts = statistics.quantiles(latencies, n=20)
    return {"service": "in-process" if in_process else "own process", "clients": clients, "requests": requests,
            "errors": errors, "wall_s": round(wall, 1),
            "requests_per_s": round(requests / wall, 1), "p50_ms": round(statistics.median(latencies) * 1000, 1),
            "p95_ms": round(cuts[18] * 1000, 1), "telemetry_rows": rows, "rows_equal_requests": rows == requests}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--in-process", action="store_true", help="the service in a thread of this process")
    args = parser.parse_args()
    for key, value in run(args.clients, args.requests, in_process=args.in_process).items():
        print(f"{key:20s} {value}")

"""Embedding in batches, under a rate limit, with retries: the code a remote embedding API
needs. On the embedded engine the model is local and fast, but the same batcher runs, so
what the notebook shows is what a paid, rate-limited endpoint would get."""
from __future__ import annotations

import collections
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workshop_lib.errors import WorkshopError
from workshop_lib.progress import progress as progress_bar


class EmbeddingFailed(WorkshopError, RuntimeError):
    """A batch still failed after every retry; earlier batches were already handed on."""


class RateLimiter:
    """At most `per_minute` calls in any 60-second window (a sliding window of call times)."""

    def __init__(self, per_minute: int | None, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if per_minute is not None and (isinstance(per_minute, bool) or not isinstance(per_minute, int) or per_minute < 1):
            raise ValueError(f"rate_limit_per_min must be a positive integer or None, got {per_minute!r}")
        self.per_minute, self.clock, self.sleep = per_minute, clock, sleep
        self.calls: collections.deque[float] = collections.deque()
        self.waited_s = 0.0

    def acquire(self) -> None:
        if self.per_minute is None:
            return
        while True:
            now = self.clock()
            while self.calls and now - self.calls[0] >= 60.0:
                self.calls.popleft()
            if len(self.calls) < self.per_minute:
                self.calls.append(now)
                return
            wait = 60.0 - (now - self.calls[0])
            self.waited_s += wait
            self.sleep(wait)


@dataclass
class BatchStats:
    batches: int = 0
    texts: int = 0
    retries: int = 0
    waited_s: float = 0.0
    embed_s: float = 0.0
    errors: list[str] = field(default_factory=list)


def embed_batches(texts: Sequence[str], embed: Callable[[list[str]], Sequence[Any]], on_batch: Callable[[int, list[Any]], None],
                  *, batch_size: int = 64, rate_limit_per_min: int | None = None, retries: int = 3,
                  backoff_s: float = 1.0, progress: bool = True, clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], None] = time.sleep) -> BatchStats:
    """Embed `texts` in order, `batch_size` at a time, at most `rate_limit_per_min` calls to
    `embed` per minute. A failing call is retried up to `retries` times with doubling backoff.
    `on_batch(first_index, vectors)` receives each batch as soon as it is embedded (the
    pipeline writes it at once, so a crash later loses nothing that was embedded)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    limiter = RateLimiter(rate_limit_per_min, clock=clock, sleep=sleep)
    stats = BatchStats()
    bar = progress_bar(total=len(texts), desc="Embedding", unit="chunk", disable=not progress)
    try:
        for first in range(0, len(texts), batch_size):
            batch = list(texts[first:first + batch_size])
            for attempt in range(retries + 1):
                limiter.acquire()
                started = time.perf_counter()
                try:
                    vectors = list(embed(batch))
                    if len(vectors) != len(batch):
                        raise EmbeddingFailed(f"the embedder returned {len(vectors)} vectors for {len(batch)} texts")
                    break
                except Exception as exc:
                    stats.errors.append(f"batch {first // batch_size}: {type(exc).__name__}: {exc}")
                    if attempt == retries:
                        raise EmbeddingFailed(f"batch {first // batch_size} (texts {first}-{first + len(batch) - 1}) "
                                              f"failed {retries + 1} times; last error: {exc}") from exc
                    stats.retries += 1
                    sleep(backoff_s * 2**attempt)
                finally:
                    stats.embed_s += time.perf_counter() - started
            on_batch(first, vectors)
            stats.batches += 1
            stats.texts += len(batch)
            bar.update(len(batch))
    finally:
        bar.close()
        stats.waited_s = limiter.waited_s
    return stats

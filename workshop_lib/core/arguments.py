"""One rule for each kind of argument every layer takes: query text, result counts, scores.

The store, retrieval, the gates, the grounded handlers and the document index all call
these, so a question is refused with the same words wherever it enters."""
from __future__ import annotations

import math
from typing import Any

MAX_QUERY_CHARS = 100_000
MAX_K = 2**31 - 1  # larger k cannot be bound as a SQL integer on every driver


def check_query(value: Any, name: str = "query", *, hint: str = "type a question or a few keywords") -> str:
    """Text to search with: a non-blank string of at most MAX_QUERY_CHARS that SQL can store."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} is empty (a non-empty string is needed): {hint}")
    if len(value) > MAX_QUERY_CHARS:
        raise ValueError(f"{name} is {len(value):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, e.g. from broken JSON escapes
        raise ValueError(f"{name} is not valid text: {exc.reason} at position {exc.start}") from None
    return value


def check_k(k: Any, name: str = "k", maximum: int = MAX_K) -> int:
    """A result count: an int from 1 to `maximum`, else a ValueError naming the argument."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"{name} must be an integer >= 1, got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be at least 1, got {k}")
    if k > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {k}")
    return k


def check_unit_interval(value: Any, name: str) -> float:
    """A real number in [0, 1] (not a bool, not NaN): a similarity or a threshold."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    value = float(value)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1 (a similarity), got {value}")
    return value

"""One rule for each kind of argument every layer takes: query text, result counts, scores.

The store, retrieval, the gates, the grounded handlers and the document index all call
these, so a question is refused with the same words wherever it enters."""
from __future__ import annotations

import math
from typing import Any

MAX_QUERY_CHARS = 100_000
MAX_K = 2**31 - 1  # larger k cannot be bound as a SQL integer on every driver
# Ids are measured in UTF-8 bytes on both engines: Oracle's VARCHAR2(n) holds n bytes under the
# default length semantics (NLS_LENGTH_SEMANTICS=BYTE), so 70 CJK characters (210 bytes) do
# not fit a VARCHAR2(200) although they are 70 characters. SQL Language Reference, "Data
# Types", VARCHAR2: https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/Data-Types.html
MAX_ID_BYTES = 512        # the store's record, thread, user and agent ids: VARCHAR2(512)
MAX_SCOPE_ID_BYTES = 200  # a request's user and thread ids: CHAT_INTERACTIONS' VARCHAR2(200)


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


def check_id(value: Any, name: str, *, max_bytes: int = MAX_ID_BYTES, optional: bool = False) -> str | None:
    """An id: a string that is not blank (Oracle stores '' as NULL, which would make a record
    unscoped and a search by it match every unscoped row), at most `max_bytes` bytes in UTF-8,
    without NUL or lone surrogates. None passes only when `optional`."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be {'a string or None' if optional else 'a string'}, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} is empty or blank ({value!r}); an id needs at least one visible character"
                         + (" (pass None for no value)" if optional else ""))
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError(f"{name} contains a lone surrogate, which no database can store") from None
    if "\x00" in value:
        raise ValueError(f"{name} contains a NUL character")
    if size > max_bytes:
        raise ValueError(f"{name} is {size:,} bytes in UTF-8 ({len(value):,} characters); the limit is "
                         f"{max_bytes:,} bytes (the database column counts bytes, and a character outside "
                         "ASCII takes 2 to 4)")
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
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1 (a similarity), got {number}")
    return number

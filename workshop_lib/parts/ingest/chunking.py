"""Cutting a document into chunks: windows of `size` units that share `overlap` units.

A unit is a character or a token of the engine's embedding model. The window arithmetic
(window_spans) is Part 8's first TODO; this module holds the reference the check compares
with. Window edges then move inwards to the nearest word boundary, so no chunk starts or
ends in the middle of a word (a chunk is never longer than `size` units).
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from workshop_lib.parts.ingest.corpus import Profile

SNAP = 20  # characters an edge may move to reach a word boundary; past that the word is cut


def window_spans(n_units: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Half-open windows (start, end) over n_units units: each `size` long (the last may be
    shorter), each starting size - overlap after the previous one, the last ending at n_units.
    No window lies wholly inside the previous one; n_units == 0 gives no window."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be from 0 to size - 1 ({size - 1}), got {overlap}")
    spans, start = [], 0
    while start < n_units:
        end = min(start + size, n_units)
        spans.append((start, end))
        if end == n_units:
            break
        start += size - overlap
    return spans


@dataclass(frozen=True)
class Chunk:
    doc_id: str
    chunk_no: int
    text: str
    start: int          # character offsets in the cleaned document
    end: int
    n_units: int
    source: str
    tags: tuple[str, ...] = ()
    lang: str | None = None

    @property
    def hash(self) -> str:
        """Identical text is one chunk, whichever document it came from (dedupe key)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def row(self) -> dict:
        return {"h": self.hash, "doc_id": self.doc_id, "chunk_no": self.chunk_no, "source": self.source,
                "lang": self.lang, "tags": json.dumps(list(self.tags)), "body": self.text, "n_units": self.n_units}


_WORD = re.compile(r"\w")


def _inside_word(text: str, i: int) -> bool:
    """Position i falls between two word characters (cutting there would split a word)."""
    return bool(_WORD.match(text[i - 1]) and _WORD.match(text[i]))


def _snap_start(text: str, start: int, end: int) -> int:
    """Start moved forward to a word start, unless that is more than SNAP chars or past end."""
    s = start
    while 0 < s < end and s - start < SNAP and _inside_word(text, s):
        s += 1
    return start if s - start >= SNAP or s >= end else s


def _snap_end(text: str, s: int, end: int) -> int:
    """End moved back to a word end, unless that is more than SNAP chars or before s."""
    e = end
    while s < e < len(text) and end - e < SNAP and _inside_word(text, e):
        e -= 1
    return end if end - e >= SNAP or e <= s else e


def _snap(text: str, start: int, end: int) -> tuple[int, int]:
    """Move start forward to a word start and end back to a word end (at most SNAP chars each),
    then trim the spaces at both ends."""
    s = _snap_start(text, start, end)
    e = _snap_end(text, s, end)
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def chunk_document(text: str, profile: Profile, token_spans: Callable[[str], list[tuple[int, int]]], *,
               doc_id: str, source: str, tags: tuple[str, ...] = (), lang: str | None = None,
               spans: Callable[[int, int, int], list[tuple[int, int]]] = window_spans) -> list[Chunk]:
    """The chunks of one cleaned document under `profile`. `spans` is the window function
    (the learner's, in Part 8's notebook)."""
    offsets = None if profile.unit == "chars" else token_spans(text)  # None: unit i is text[i]
    n = len(text) if offsets is None else len(offsets)
    chunks: list[Chunk] = []
    for a, b in spans(n, profile.size, profile.overlap):
        if offsets is None:
            start, end = a, b
        else:
            start, end = offsets[a][0], offsets[b - 1][1]
        start, end = _snap(text, start, end)
        body = text[start:end]
        if body.strip():
            chunks.append(Chunk(doc_id, len(chunks), body, start, end, b - a, source, tags, lang))
    return chunks

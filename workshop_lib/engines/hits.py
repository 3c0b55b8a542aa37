"""One type for every retrieval result the lesson code returns as a dict (issue 37, item 2).

The public API fixes which text key a result carries, and learners' code and the checks read
them: knowledge hits (`retrieval.retrieve_knowledge`, Part 3's TODO 1) carry `body`, memory
hits (`keyword_search_memories`, `hybrid_rrf_search_memories`) carry `content`, document
chunks (`ingest/index.py`) and the gates' chunks carry `text`. So `Hit` is one TypedDict
with every key a retrieval fills, each result filling its own, and `hit_text` is the one
place that reads a hit's text whichever key holds it (the reranker and the gates use it).

The memory client's search (`eng.memory.search`) returns `core.records.MemoryHit` objects
instead: Part 3's TODO reads them by attribute (`hit.content`, `hit.metadata`), and
`MemoryHit.as_hit()` gives the same result as a `Hit`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

TEXT_KEYS = ("text", "content", "body")  # the keys a hit's text may sit under, in the order read


class Hit(TypedDict, total=False):
    """A retrieval result: what was found, its text, and the scores of the retriever that found it."""

    record_id: str            # a memory's id (keyword, hybrid, the memory client)
    kind: str                 # table | column | relationship | memory ... (metadata's kind)
    subject: str              # what the memory is about (metadata's subject)
    body: str                 # knowledge hits: the memory's text
    content: str              # memory hits: the memory's text (cut to 500 characters by hybrid)
    text: str                 # document chunks and the gates' chunks: the chunk's text
    metadata: dict[str, Any]
    distance: float           # cosine distance, lower is nearer (vector search)
    similarity: float         # 1 - distance (documents, gates)
    score_txt: float          # full-text score, higher is better (keyword search)
    r_vec: int                # rank in the vector list (the sentinel when missing)
    r_txt: int                # rank in the keyword list (the sentinel when missing)
    rrf_score: float          # the fused score (hybrid)
    doc_id: str               # documents: which document, which chunk, from where
    chunk_no: int
    source: str
    rerank_score: float       # what a reranker gave it (Oracle, when one is configured)


def hit_text(hit: Mapping[str, object], key: str | None = None) -> str | None:
    """A hit's text: under `key` when given, else under the first of TEXT_KEYS it has (None: no text)."""
    for name in (key,) if key else TEXT_KEYS:
        value = hit.get(name)
        if isinstance(value, str):
            return value
    return None

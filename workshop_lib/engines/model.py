"""The embedding model of an engine (`eng.model`): vectors, tokens, reranking, thresholds."""
from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

from workshop_lib import config
from workshop_lib.engines.dbtypes import Candidate


class EmbeddingModel(abc.ABC):
    """What the lessons ask of the engine's embedding model. Both engines embed inside SQL as
    well (VECTOR_EMBEDDING on Oracle, the embed() function on SQLite); these are the same
    model's answers in Python."""

    name: str = "?"   # the model's name (ALL_MINILM_L12_V2, wordllama-l2-supercat)
    dim: int = 0      # dimensions of its vectors

    def __init__(self, engine_name: str) -> None:
        # Scores depend on the model: each engine's minimum scores and answer-mode bands.
        self.thresholds = config.thresholds_for(engine_name, self.name)

    @abc.abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text."""

    def embed_for_store(self, texts: list[str]) -> list[Any] | None:
        """Vectors for store.add computed before its transaction, or None: the database
        embeds inside the INSERT (Oracle's VECTOR_EMBEDDING)."""
        return None

    @abc.abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of `text` (Part 4's budgets)."""

    @abc.abstractmethod
    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token (Part 8's chunker counts in these)."""

    def rerank(self, query: str, candidates: Sequence[Candidate], top_k: int, content_key: str = "body") -> list[Candidate]:
        """Second retrieval stage; engines without a reranker keep the order and cut to top_k."""
        return list(candidates[:top_k])

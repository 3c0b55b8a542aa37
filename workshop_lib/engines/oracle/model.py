"""The Oracle engine's embedding model (`eng.model`): ALL_MINILM_L12_V2 inside the database,
called through VECTOR_EMBEDDING, and the optional in-database reranker."""
from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from workshop_lib.engines.dbtypes import Candidate, Reader, one_row
from workshop_lib.engines.hits import hit_text
from workshop_lib.engines.model import EmbeddingModel
from workshop_lib.engines.oracle import sql as statements_module
from workshop_lib.engines.rows import EmbeddingRow, NumberRow, ValueRow, row_as

if TYPE_CHECKING:
    from workshop_lib.engines.oracle.engine import OracleEngine


class OracleModel(EmbeddingModel):
    """Every call is a statement on the engine's connection: the model lives in the database."""

    name = statements_module.MODEL_NAME
    dim = statements_module.DIM

    def __init__(self, engine: OracleEngine, reader: Reader) -> None:
        super().__init__(engine.name)
        self._engine = engine
        self._read = reader  # the engine's cursor: embedding several texts on one

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        with self._read() as cur:
            for text in texts:
                cur.execute(statements_module.EMBED, {"q": text})
                vec = row_as(EmbeddingRow, one_row(cur)).embedding
                out.append([float(x) for x in vec])  # type: ignore[attr-defined]  # a VECTOR is fetched as an array
        return out

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Approximate WordPiece tokens of the all-MiniLM-L12-v2 tokenizer.

        The model's own tokenizer lives inside the ONNX graph in the database, not in
        Python, so this splits what BERT's basic tokenizer splits (words and single
        punctuation marks), then cuts a long word into its first 10 characters and pieces
        of 6, as WordPiece splits rare words. Typically within ~15% of the real count.
        """
        spans = []
        for m in re.finditer(r"\w+|[^\w\s]", text):
            start, end = m.span()
            cuts = [start] + list(range(start + 10, end, 6)) + [end]
            spans += list(zip(cuts, cuts[1:]))
        return spans

    def count_tokens(self, text: str) -> int:
        return len(self.token_spans(text[:20_000]))


    # ---------------------------------------------------------------- rerank
    def reranker(self) -> str | None:
        """What rerank() uses: an in-database ONNX model, DBMS_VECTOR.RERANK, or None (pass-through)."""
        if os.environ.get("ORACLE_RERANK_MODEL"):
            return f"in-database model {os.environ['ORACLE_RERANK_MODEL'].upper()}"
        if os.environ.get("ORACLE_RERANK_PARAMS"):
            return "DBMS_VECTOR.RERANK"
        return None

    def rerank(self, query: str, candidates: Sequence[Candidate], top_k: int, content_key: str = "body") -> list[Candidate]:
        """Reorder candidates with the configured reranker; without one, keep the vector order."""
        if not candidates or self.reranker() is None:
            return list(candidates[:top_k])
        texts = [hit_text(c, content_key) or "" for c in candidates]
        if os.environ.get("ORACLE_RERANK_MODEL"):
            statement = statements_module.rerank_prediction(os.environ["ORACLE_RERANK_MODEL"].upper())
            scores = []
            with self._read() as cur:
                for text in texts:
                    cur.execute(statement, {"q": query, "doc": text})
                    scores.append(float(row_as(NumberRow, one_row(cur)).number))
        else:
            docs = json.dumps({"documents": texts})
            answer = row_as(ValueRow, self._engine.query(statements_module.RERANK_REST, {
                "q": query, "docs": docs, "params": os.environ["ORACLE_RERANK_PARAMS"]})[0]).value
            body = self._engine.backend.read_text(answer)  # a CLOB is read, then parsed like a string
            result: Any = json.loads(body) if isinstance(body, str) else answer  # [{index, score, content}, ...]
            scores = [-math.inf] * len(texts)
            for item in result:
                scores[int(item["index"])] = float(item["score"])
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
        return [{**candidates[i], "rerank_score": scores[i]} for i in order[:top_k]]

    # ---------------------------------------------------------------- data dictionary

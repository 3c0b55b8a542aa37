"""The embedded engine's embedding model: WordLlama, loaded from its pip package.

Its weights and tokenizer ship inside the package folder, which has the `weights/`
and `tokenizers/` layout WordLlama's loader expects of a cache folder, so loading
never touches the network.
"""
from __future__ import annotations

import functools
import logging
from pathlib import Path

import numpy as np

MODEL_NAME = "wordllama-l2-supercat-256"
DIM = 256
_MAX_CHARS = 20_000


@functools.lru_cache(maxsize=1)
def load():
    # wordllama calls logging.basicConfig(level=INFO) when imported, which would print every
    # library's INFO lines (httpx, matplotlib...) in notebooks: put the root logger back.
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    import wordllama
    from wordllama import WordLlama

    root.setLevel(level)
    root.handlers[:] = handlers

    folder = Path(wordllama.__file__).parent
    return WordLlama.load(config="l2_supercat", dim=DIM, cache_dir=folder, disable_download=True)


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length float32 vectors, one row per text."""
    vecs = load().embed([t[:_MAX_CHARS] for t in texts], norm=False)
    vecs = np.asarray(vecs, dtype=np.float32).reshape(len(texts), DIM)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.maximum(norms, 1e-12)


def count_tokens(text: str) -> int:
    """Token count with the model's own tokenizer (used for Part 4's budgets)."""
    return len(load().tokenizer.encode(text[:_MAX_CHARS], add_special_tokens=False).ids)

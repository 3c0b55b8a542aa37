"""The embedded engine's embedding model: WordLlama, loaded from its pip package.

Its weights and tokenizer ship inside the package folder, which has the `weights/`
and `tokenizers/` layout WordLlama's loader expects of a cache folder, so loading
never touches the network.
"""
from __future__ import annotations

import functools
import logging
import sys
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from workshop_lib.engines.model import EmbeddingModel
from workshop_lib.errors import WorkshopError

MODEL_NAME = "wordllama-l2-supercat-256"
DIM = 256
_MAX_CHARS = 20_000
_load_lock = threading.Lock()


# What the workshop uses of WordLlama (the package ships no type information).
class _Encoding(Protocol):
    @property
    def offsets(self) -> list[tuple[int, int]]: ...


class _Tokenizer(Protocol):
    def encode(self, text: str, *, add_special_tokens: bool) -> _Encoding: ...


class _WordModel(Protocol):
    @property
    def tokenizer(self) -> _Tokenizer: ...

    def embed(self, texts: list[str], *, norm: bool) -> np.ndarray: ...


class ModelUnavailable(WorkshopError, RuntimeError):
    """The model's weights or tokenizer cannot be loaded; reinstalling the package fixes it."""


def load() -> _WordModel:
    with _load_lock:  # one load, even when several threads ask at once
        try:
            return _load()
        except Exception as exc:  # noqa: BLE001 - every cause has the same fix
            folder = _package_folder()
            raise ModelUnavailable(
                f"The embedding model {MODEL_NAME} could not be loaded from {folder} "
                f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}). "
                f"Fix: reinstall the package that ships its weights: `{sys.executable} -m pip install "
                "--force-reinstall --no-deps wordllama` (`workshop setup` cannot repair it)."
            ) from None


def _package_folder() -> str:
    try:
        import importlib.util

        spec = importlib.util.find_spec("wordllama")
        return str(Path(spec.origin).parent) if spec and spec.origin else "the wordllama package (not installed)"
    except Exception:  # noqa: BLE001
        return "the wordllama package"


@functools.lru_cache(maxsize=1)
def _load() -> _WordModel:
    # wordllama calls logging.basicConfig(level=INFO) when imported, which would print every
    # library's INFO lines (httpx, matplotlib...) in notebooks: put the root logger back.
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    import wordllama
    from wordllama import WordLlama

    root.setLevel(level)
    root.handlers[:] = handlers

    folder = Path(wordllama.__file__).parent
    model: _WordModel = WordLlama.load(config="l2_supercat", dim=DIM, cache_dir=folder, disable_download=True)
    return model


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length float32 vectors, one row per text."""
    for t in texts:
        if not isinstance(t, str):
            raise ValueError(f"texts to embed must be strings, got {type(t).__name__}")
    # A lone surrogate (e.g. '\\ud800' from broken JSON) is not encodable: the tokenizer
    # would raise TypeError. Replace it; the rest of the text still embeds.
    texts = [t.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(t) else t for t in texts]
    vecs = load().embed([t[:_MAX_CHARS] for t in texts], norm=False)
    vecs = np.asarray(vecs, dtype=np.float32).reshape(len(texts), DIM)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    unit: np.ndarray = vecs / np.maximum(norms, 1e-12)
    return unit


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def count_tokens(text: str) -> int:
    """Token count with the model's own tokenizer (used for Part 4's budgets)."""
    return len(token_spans(text[:_MAX_CHARS]))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character span of each of the model's tokens in `text` (no length limit: the chunker
    needs every token of a document, not just what one embedding reads)."""
    if _has_surrogate(text):
        text = text.encode("utf-8", "replace").decode("utf-8")
    return list(load().tokenizer.encode(text, add_special_tokens=False).offsets)


class WordLlamaModel(EmbeddingModel):
    """The embedded engine's model (`eng.model`): WordLlama from its pip package, in process."""

    name = MODEL_NAME
    dim = DIM

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = embed(list(texts)).tolist()
        return vectors

    def embed_for_store(self, texts: list[str]) -> list[Any]:
        """Vectors computed before the write transaction, so a bulk add holds the write lock
        only for its inserts (None: no direction, the text stays keyword-searchable only)."""
        out: list[Any] = []
        for i in range(0, len(texts), 256):
            vecs = embed(texts[i:i + 256])
            out += [v if v.any() else None for v in vecs]
        return out

    def count_tokens(self, text: str) -> int:
        return count_tokens(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return token_spans(text)

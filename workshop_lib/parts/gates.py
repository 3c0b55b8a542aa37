"""Part 4: relevance gates on every turn, and the rag / hybrid / fallback answer modes.

Two steps run on every user turn:

1. `retrieve_turn` embeds the question once, finds the nearest knowledge memories,
   drops every chunk whose similarity (1 - cosine distance) is below `min_score`,
   keeps at most `top_k`, optionally only of some `kind` (table, column,
   relationship), and counts the tokens of the question and of the context.
2. `decide_mode` looks at the similarities that survived and picks how to answer:
   `rag` (the context clearly covers the question), `hybrid` (it partly does, and the
   hybrid gates agree there is enough of it) or `fallback` (say honestly that the
   knowledge does not cover it). It is a pure function: no database, no model.

`answer` chains the two and, without a language model, writes a deterministic answer
from the chunks it used. Thresholds depend on the embedding model, so they come from
`eng.model.thresholds` (config.THRESHOLDS); `workshop_lib.parts.calibration` shows how the
embedded engine's values were chosen.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from workshop_lib.config import Thresholds
from workshop_lib.core.arguments import check_k, check_query, check_unit_interval
from workshop_lib.core.llm import ContextAnswerer
from workshop_lib.engines.hits import hit_text

# --------------------------------------------------------------------------- constants
_DISTANCE_ALIASES = {
    "cosine": "cosine",
    "dot": "dot", "dot_product": "dot", "inner_product": "dot",
}
SCORE_MODES = ("normalized", "raw")
MODES = ("rag", "hybrid", "fallback")
SOURCES_USED = ("all", "partial", "none")

DEFAULT_TOP_K = 5
OVERSAMPLE = 4          # look at 4x top_k neighbours so filters still leave top_k chunks
MIN_CANDIDATES = 20
PREVIEW_CHARS = 140
KNOWN_KINDS = ("table", "column", "relationship")


# =========================================================================== retrieval
@dataclass
class RetrievedChunk:
    """One knowledge memory seen by `retrieve_turn`."""

    record_id: str
    kind: str
    subject: str
    text: str
    similarity: float          # 1 - cosine distance
    tokens: int = 0
    status: str = "kept"       # kept | below_min_score | beyond_top_k | other_category | tool_output
    metadata: dict[str, Any] = field(default_factory=dict)

    def as_chunk(self) -> dict[str, Any]:
        """The shape `decide_mode` takes."""
        return {"record_id": self.record_id, "kind": self.kind, "subject": self.subject, "text": self.text}


@dataclass
class GatedTurn:
    """What one turn of retrieval produced, with the numbers needed to debug it."""

    query: str
    chunks: list[RetrievedChunk]
    query_tokens: int
    context_tokens: int
    min_score: float
    top_k: int
    category: tuple[str, ...] | None
    considered: list[RetrievedChunk]
    tokenizer: str

    @property
    def similarities(self) -> list[float]:
        return [c.similarity for c in self.chunks]

    @property
    def subjects(self) -> list[str]:
        return [c.subject for c in self.chunks]

    def as_chunks(self) -> list[dict[str, Any]]:
        return [c.as_chunk() for c in self.chunks]

    @property
    def below_min_score(self) -> int:
        return sum(c.status == "below_min_score" for c in self.considered)

    def to_frame(self, *, everything: bool = False):
        """A table of the chunks kept (or, with everything=True, of every neighbour looked at)."""
        import pandas as pd

        rows = self.considered if everything else self.chunks
        return pd.DataFrame(
            [{"similarity": round(c.similarity, 3), "kind": c.kind, "subject": c.subject,
              "tokens": c.tokens, "status": c.status, "preview": _preview(c.text, 80)} for c in rows],
            columns=["similarity", "kind", "subject", "tokens", "status", "preview"],
        )

    def summary(self) -> str:
        cat = ", ".join(self.category) if self.category else "any kind"
        return (f"{len(self.chunks)} chunk(s) kept of {len(self.considered)} looked at "
                f"(min_score={self.min_score:.2f}, top_k={self.top_k}, category={cat}); "
                f"query {self.query_tokens} tokens, context {self.context_tokens} tokens ({self.tokenizer})")


def check_category(category: Any) -> tuple[str, ...] | None:
    """None, one kind ('column') or several (['table', 'column'])."""
    if category is None:
        return None
    if isinstance(category, str):
        items: Iterable[Any] = [category]
    elif isinstance(category, (list, tuple, set, frozenset)):
        items = sorted(category) if isinstance(category, (set, frozenset)) else category
    else:
        raise ValueError(
            f"category must be None, a kind such as 'column', or a list of kinds; got a "
            f"{type(category).__name__} ({category!r}). Known kinds: {', '.join(KNOWN_KINDS)}"
        )
    kinds = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ValueError(f"each category must be a non-empty string such as 'column', got {item!r}")
        kinds.append(item.strip().lower())
    if not kinds:
        raise ValueError("category is an empty list: pass None to search every kind")
    return tuple(dict.fromkeys(kinds))


def token_counter(eng):
    """(function, description) counting tokens the way the engine's model does."""
    model = getattr(eng, "model", None)  # None: called without an engine
    if model is not None:
        return model.count_tokens, f"{model.name} tokenizer"
    return _approx_tokens, "approximate count (words and punctuation)"


def _approx_tokens(text: str) -> int:
    return len(re.findall(r"\w+|[^\w\s]", text))


def retrieve_turn(eng, query: str, *, top_k: int = DEFAULT_TOP_K, min_score: float | None = None,
                  category: str | Sequence[str] | None = None, vector: Any = None) -> GatedTurn:
    """Per-turn retrieval: embed, vector search, score filter, top-K, token counts.

    min_score defaults to eng.model.thresholds.min_score (0.60 on Oracle's MiniLM, unmeasured; the
    embedded model's value is calibrated in Part 4). category filters on the memory's
    metadata `kind`. `vector`: the question's embedding when the caller already has it.
    """
    check_query(query)
    check_k(top_k, "top_k")
    min_score = check_unit_interval(eng.model.thresholds.min_score if min_score is None else min_score, "min_score")
    kinds = check_category(category)

    # 1. embed the question once, with the same model that embedded the memories
    if vector is None:
        vector = eng.model.embed([query])[0]
    # 2. nearest knowledge memories of this user and agent (oversampled for the filters)
    n = max(top_k * OVERSAMPLE, MIN_CANDIDATES)
    pairs = eng.memory.search_records(  # this user's scope and the shared schema knowledge only
        query_vector=vector, k=n, record_types={"memory"},
        metadata_filter={"kind": kinds[0]} if kinds and len(kinds) == 1 else None,
    )
    count, tokenizer = token_counter(eng)
    considered: list[RetrievedChunk] = []
    kept: list[RetrievedChunk] = []
    for record, distance in pairs:
        meta = record.metadata or {}
        kind = str(meta.get("kind") or "memory")
        chunk = RetrievedChunk(record_id=record.id, kind=kind, subject=str(meta.get("subject", "")),
                               text=record.content or "", similarity=1.0 - float(distance), metadata=meta)
        # 3. filters: never tool logs, the category, the minimum score, then top-K
        if kind == "tool_output":
            chunk.status = "tool_output"
        elif kinds is not None and kind not in kinds:
            chunk.status = "other_category"
        elif chunk.similarity < min_score:
            chunk.status = "below_min_score"
        elif len(kept) >= top_k:
            chunk.status = "beyond_top_k"
        else:
            chunk.tokens = count(chunk.text)
            kept.append(chunk)
        considered.append(chunk)
    # 4. token counts: what this turn adds to the prompt
    return GatedTurn(query=query, chunks=kept, query_tokens=count(query),
                      context_tokens=sum(c.tokens for c in kept), min_score=min_score, top_k=top_k,
                      category=kinds, considered=considered, tokenizer=tokenizer)


# =========================================================================== answer modes
@dataclass(frozen=True)
class ModeConfig:
    """Every knob of the answer-mode decision. Bad values are rejected when it is created.

    score_mode="normalized": thresholds are similarities in [0, 1]. A cosine score is
    used as is (1 - cosine distance); a dot product is mapped with (raw + 1) / 2.
    score_mode="raw": the raw score is compared with raw_cosine_low/high or
    raw_dot_low/high, whichever matches `distance`.
    Short questions (query_tokens <= short_query_max_tokens) tighten both thresholds:
    each is raised by short_query_delta, or replaced by the short_query_threshold_*
    override when one is set (in the units of the active score mode).
    """

    threshold_low: float = 0.60
    threshold_high: float = 0.75
    score_mode: str = "normalized"
    distance: str = "cosine"
    raw_cosine_low: float | None = None
    raw_cosine_high: float | None = None
    raw_dot_low: float | None = None
    raw_dot_high: float | None = None
    min_similarity_for_hybrid: float = 0.60
    min_chunks_for_hybrid: int = 2
    min_total_context_chars: int = 200
    short_query_max_tokens: int = 3
    short_query_delta: float = 0.05
    short_query_threshold_low: float | None = None
    short_query_threshold_high: float | None = None

    def __post_init__(self) -> None:
        # In this order, so that a config with several bad values names the same one first as before.
        self._normalise_choices()
        self._check_similarity_thresholds()
        self._check_numbers()
        self._check_bands()

    def _normalise_choices(self) -> None:
        """distance and score_mode: a supported name, stored in its canonical spelling."""
        if not isinstance(self.distance, str) or self.distance.strip().lower() not in _DISTANCE_ALIASES:
            raise ValueError(
                f"ModeConfig.distance {self.distance!r} is not supported: use 'cosine' or 'dot' "
                "(euclidean and manhattan distances have no similarity scale to put thresholds on)"
            )
        object.__setattr__(self, "distance", _DISTANCE_ALIASES[self.distance.strip().lower()])
        if not isinstance(self.score_mode, str) or self.score_mode.strip().lower() not in SCORE_MODES:
            raise ValueError(f"ModeConfig.score_mode {self.score_mode!r} is not supported: use 'normalized' or 'raw'")
        object.__setattr__(self, "score_mode", self.score_mode.strip().lower())

    def _check_similarity_thresholds(self) -> None:
        """The normalized thresholds: numbers in [0, 1], low not above high."""
        for name in ("threshold_low", "threshold_high", "min_similarity_for_hybrid"):
            _check_number(self, name)
            check_unit_interval(getattr(self, name), f"ModeConfig.{name}")
        if self.threshold_low > self.threshold_high:
            raise ValueError(f"ModeConfig.threshold_low ({self.threshold_low}) is above "
                             f"threshold_high ({self.threshold_high})")

    def _check_numbers(self) -> None:
        """The optional thresholds are finite numbers when set; the delta and the counts are not negative."""
        for name in ("raw_cosine_low", "raw_cosine_high", "raw_dot_low", "raw_dot_high",
                     "short_query_threshold_low", "short_query_threshold_high"):
            _check_number(self, name, optional=True)
        _check_number(self, "short_query_delta")
        if self.short_query_delta < 0:
            raise ValueError(f"ModeConfig.short_query_delta must be >= 0 (it tightens), got {self.short_query_delta}")
        _check_count(self, "min_chunks_for_hybrid", 1)
        _check_count(self, "min_total_context_chars", 0)
        _check_count(self, "short_query_max_tokens", 0)

    def _check_bands(self) -> None:
        """Raw mode has both raw thresholds of its distance, in order; a short-query override pair is in order."""
        if self.score_mode == "raw":
            low, high = self.raw_thresholds()
            if low is None or high is None:
                raise ValueError(
                    f"score_mode='raw' with distance={self.distance!r} needs raw_{self.distance}_low and "
                    f"raw_{self.distance}_high; set both, or use score_mode='normalized'"
                )
            if low > high:
                raise ValueError(f"raw_{self.distance}_low ({low}) is above raw_{self.distance}_high ({high})")
        lo, hi = self.short_query_threshold_low, self.short_query_threshold_high
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"short_query_threshold_low ({lo}) is above short_query_threshold_high ({hi})")

    @classmethod
    def for_engine(cls, eng_or_thresholds: Any, **overrides: Any) -> ModeConfig:
        """The engine's configured thresholds (config.THRESHOLDS), with any field overridden."""
        given = eng_or_thresholds if isinstance(eng_or_thresholds, (dict, Thresholds)) else eng_or_thresholds.model.thresholds
        th: dict[str, Any] = given.as_dict() if isinstance(given, Thresholds) else dict(given)
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in th.items() if k in names}
        values.setdefault("min_similarity_for_hybrid", th["threshold_low"])
        unknown = set(overrides) - names
        if unknown:
            raise ValueError(f"ModeConfig has no field(s) {sorted(unknown)}; fields: {sorted(names)}")
        values.update(overrides)
        return cls(**values)

    def with_(self, **changes: Any) -> ModeConfig:
        """A copy with some knobs changed (validated again)."""
        return replace(self, **changes)

    def raw_thresholds(self) -> tuple[float | None, float | None]:
        if self.distance == "dot":
            return self.raw_dot_low, self.raw_dot_high
        return self.raw_cosine_low, self.raw_cosine_high

    def base_thresholds(self) -> tuple[float, float]:
        """(low, high) in the units of the score mode, before any short-query tightening."""
        if self.score_mode == "raw":
            low, high = self.raw_thresholds()
            assert low is not None and high is not None  # __post_init__ refuses a raw mode without both
            return float(low), float(high)
        return self.threshold_low, self.threshold_high


def _check_number(config: ModeConfig, name: str, *, optional: bool = False) -> None:
    """A ModeConfig field is a finite number (None allowed when optional); a bool is not a number here."""
    value = getattr(config, name)
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"ModeConfig.{name} must be a finite number, got {value!r}")


def _check_count(config: ModeConfig, name: str, minimum: int) -> None:
    """A ModeConfig field is an integer of at least `minimum`."""
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"ModeConfig.{name} must be an integer >= {minimum}, got {value!r}")


def normalized_similarity(raw: float, distance: str) -> float:
    """A score on the [0, 1] scale: cosine similarity as is, dot product as (raw + 1) / 2."""
    value = (raw + 1.0) / 2.0 if distance == "dot" else raw
    return min(1.0, max(0.0, value))


def score_on_threshold_scale(raw: float, config: ModeConfig) -> float:
    """The number compared with the thresholds: raw in raw mode, normalized otherwise."""
    return float(raw) if config.score_mode == "raw" else normalized_similarity(raw, config.distance)


def active_thresholds(config: ModeConfig, query_tokens: int) -> tuple[float, float, bool]:
    """(low, high, short_query_active) for a question of this many tokens."""
    low, high = config.base_thresholds()
    short = query_tokens <= config.short_query_max_tokens
    if short:
        low = config.short_query_threshold_low if config.short_query_threshold_low is not None \
            else low + config.short_query_delta
        high = config.short_query_threshold_high if config.short_query_threshold_high is not None \
            else high + config.short_query_delta
        if config.score_mode == "normalized":
            low, high = min(low, 1.0), min(high, 1.0)
        low = min(low, high)
    return float(low), float(high), short


@dataclass
class ModeDecision:
    """How to answer this turn, and why."""

    mode: str
    decision_explain: dict[str, Any]
    retrieved_chunks_metadata: list[dict[str, Any]]
    used_chunks: list[dict[str, Any]]
    sources_used: str

    @property
    def reason(self) -> str:
        return self.decision_explain.get("reason", "")

    @property
    def used_llm(self) -> str:
        return self.decision_explain.get("used_llm", "none")

    def summary(self) -> str:
        th = self.decision_explain.get("thresholds", {})
        best = self.decision_explain.get("best_score")
        best_txt = "none" if best is None else f"{best:.3f}"
        return (f"{self.mode.upper()}: best {best_txt} vs low {th.get('low', float('nan')):.3f} / "
                f"high {th.get('high', float('nan')):.3f}; {len(self.used_chunks)} chunk(s) used "
                f"({self.sources_used}); {self.reason}")


def chunk_text(chunk: Any) -> str:
    """The text of a chunk given as a string, a dict with 'text' or 'content', or an object."""
    if isinstance(chunk, str):
        return chunk
    if isinstance(chunk, dict):
        value = hit_text(chunk, "text" if "text" in chunk else "content")
    else:
        value = getattr(chunk, "text", getattr(chunk, "content", None))
    if not isinstance(value, str):
        raise ValueError(f"each chunk needs its text (a 'text' or 'content' string), got {chunk!r:.80}")
    return value


def _chunk_dict(chunk: Any) -> dict[str, Any]:
    if isinstance(chunk, str):
        return {"text": chunk}
    if isinstance(chunk, dict):
        out = dict(chunk)
    elif hasattr(chunk, "as_chunk"):
        out = chunk.as_chunk()
    else:
        out = {k: getattr(chunk, k) for k in ("record_id", "kind", "subject") if hasattr(chunk, k)}
    out["text"] = chunk_text(chunk)
    out.pop("content", None)
    return out


def _check_sequence(value: Any, what: str) -> None:
    """A list-like argument: a str, bytes or dict is not one, though str and bytes are Sequences."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Sequence):
        raise ValueError(f"{what}, got {type(value).__name__}")


def _checked_similarity(s: Any, config: ModeConfig) -> float:
    """One similarity as a float: a finite number, and inside [-1, 1] for cosine."""
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
        raise ValueError(f"similarities must be finite numbers, got {s!r}")
    if config.distance == "cosine" and not -1.0001 <= s <= 1.0001:
        raise ValueError(f"a cosine similarity lies in [-1, 1], got {s}; did you pass a distance?")
    return float(s)


def check_inputs(similarities: Any, chunks: Any, config: Any, query_tokens: Any,
                 used_llm_answer: Any = None) -> list[float]:
    """Validate decide_mode's arguments; returns the scores as floats."""
    if not isinstance(config, ModeConfig):
        raise ValueError(f"config must be a ModeConfig, got {type(config).__name__}")
    _check_sequence(similarities, "similarities must be a list of numbers")
    _check_sequence(chunks, "chunks must be a list")
    if len(similarities) != len(chunks):
        raise ValueError(f"{len(similarities)} similarities for {len(chunks)} chunks: they must pair up")
    scores = [_checked_similarity(s, config) for s in similarities]
    for c in chunks:
        chunk_text(c)
    if isinstance(query_tokens, bool) or not isinstance(query_tokens, int) or query_tokens < 0:
        raise ValueError(f"query_tokens must be an integer >= 0, got {query_tokens!r}")
    if used_llm_answer is not None and not isinstance(used_llm_answer, str):
        raise ValueError(f"used_llm_answer must be None (no model) or the model's text, got {type(used_llm_answer).__name__}")
    return scores


def hybrid_gates(scores: Sequence[float], texts: Sequence[str], *, low: float, config: ModeConfig) -> dict[str, dict]:
    """The three hybrid gates, each with its measured value, its limit and whether it holds."""
    best_norm = max((normalized_similarity(s, config.distance) for s in scores), default=0.0)
    supporting = [i for i, s in enumerate(scores) if score_on_threshold_scale(s, config) >= low]
    chars = sum(len(texts[i]) for i in supporting)
    return {
        "min_similarity_for_hybrid": {"value": round(best_norm, 6), "limit": config.min_similarity_for_hybrid,
                                      "ok": best_norm >= config.min_similarity_for_hybrid},
        "min_chunks_for_hybrid": {"value": len(supporting), "limit": config.min_chunks_for_hybrid,
                                  "ok": len(supporting) >= config.min_chunks_for_hybrid},
        "min_total_context_chars": {"value": chars, "limit": config.min_total_context_chars,
                                    "ok": chars >= config.min_total_context_chars},
    }


def _sources_used(n_used: int, n_chunks: int) -> str:
    """none, all or partial: how many of the retrieved chunks the answer uses."""
    if not n_used:
        return "none"
    return "all" if n_used == n_chunks else "partial"


def _used_llm(mode: str, used_llm_answer: str | None) -> str:
    """fallback (the model's answer is not used), primary (a model wrote it) or none."""
    if mode == "fallback":
        return "fallback"
    return "primary" if used_llm_answer is not None else "none"


def make_decision(mode: str, *, similarities: Sequence[float], chunks: Sequence[Any], config: ModeConfig,
                  query_tokens: int, used: Iterable[int] = (), low: float, high: float,
                  short_query_active: bool, used_llm_answer: str | None = None, query: str | None = None,
                  reason: str = "", gates: dict | None = None) -> ModeDecision:
    """Package a decision: explain payload, chunk metadata sorted by similarity, used chunks.

    `used` holds the positions (in `chunks`) of the chunks that go into the answer;
    a fallback uses none, whatever is passed.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    scores = [float(s) for s in similarities]
    used_set = set() if mode == "fallback" else {int(i) for i in used}
    if any(i < 0 or i >= len(chunks) for i in used_set):
        raise ValueError(f"used positions {sorted(used_set)} do not all point into {len(chunks)} chunks")
    order = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))
    metadata, used_chunks = [], []
    for rank, i in enumerate(order, start=1):
        c = _chunk_dict(chunks[i])
        sim = normalized_similarity(scores[i], config.distance)
        metadata.append({
            "rank": rank, "record_id": c.get("record_id"), "kind": c.get("kind"), "subject": c.get("subject"),
            "score": round(scores[i], 6), "similarity": round(sim, 6), "chars": len(c["text"]),
            "text": _preview(c["text"]), "used": i in used_set,
        })
        if i in used_set:
            used_chunks.append({**c, "score": scores[i], "similarity": sim})
    sources = _sources_used(len(used_chunks), len(chunks))
    used_llm = _used_llm(mode, used_llm_answer)
    best = max(scores) if scores else None
    explain = {
        "mode": mode,
        "reason": reason,
        "score_mode": config.score_mode,
        "distance": config.distance,
        "thresholds": {
            "low": round(low, 6), "high": round(high, 6),
            "configured_low": config.base_thresholds()[0], "configured_high": config.base_thresholds()[1],
            "min_similarity_for_hybrid": config.min_similarity_for_hybrid,
            "min_chunks_for_hybrid": config.min_chunks_for_hybrid,
            "min_total_context_chars": config.min_total_context_chars,
        },
        "best_score": best,
        "best_similarity": None if best is None else normalized_similarity(best, config.distance),
        "effective_query": " ".join(query.split()) if isinstance(query, str) else None,
        "query_tokens": query_tokens,
        "short_query_active": bool(short_query_active),
        "used_llm": used_llm,
        "hybrid_gates": gates,
    }
    return ModeDecision(mode=mode, decision_explain=explain, retrieved_chunks_metadata=metadata,
                    used_chunks=used_chunks, sources_used=sources)


def decide_mode(similarities: Sequence[float], chunks: Sequence[Any], *, config: ModeConfig, query_tokens: int,
                used_llm_answer: str | None = None, query: str | None = None) -> ModeDecision:
    """rag / hybrid / fallback for one turn (the reference for the Part 4 TODO).

    similarities: one raw score per chunk, higher = closer (1 - cosine distance, or the
    dot product when config.distance == 'dot'). used_llm_answer: None when no model
    wrote the answer, else the model's text (a blank one forces fallback).
    """
    scores = check_inputs(similarities, chunks, config, query_tokens, used_llm_answer)
    texts = [chunk_text(c) for c in chunks]
    low, high, short = active_thresholds(config, query_tokens)
    on_scale = [score_on_threshold_scale(s, config) for s in scores]
    used = [i for i, v in enumerate(on_scale) if v >= low]
    best = max(on_scale, default=None)
    gates = None
    common: dict[str, Any] = dict(similarities=scores, chunks=chunks, config=config, query_tokens=query_tokens, low=low,
                                  high=high, short_query_active=short, used_llm_answer=used_llm_answer, query=query)

    if used_llm_answer is not None and not used_llm_answer.strip():
        return make_decision("fallback", reason="the model returned a blank answer", **common)
    if best is None:
        return make_decision("fallback", reason="no chunks were retrieved", **common)
    if best >= high:
        return make_decision("rag", used=used, reason=f"best score {best:.3f} >= high threshold {high:.3f}", **common)
    if best >= low:
        gates = hybrid_gates(scores, texts, low=low, config=config)
        failed = [f"{name}={g['limit']} (got {g['value']})" for name, g in gates.items() if not g["ok"]]
        if not failed:
            return make_decision("hybrid", used=used, gates=gates,
                                 reason=f"best score {best:.3f} is in the hybrid band [{low:.3f}, {high:.3f}) "
                                        "and every hybrid gate holds", **common)
        return make_decision("fallback", gates=gates,
                             reason=f"best score {best:.3f} is in the hybrid band but a hybrid gate failed: "
                                    + "; ".join(failed), **common)
    return make_decision("fallback", reason=f"best score {best:.3f} < low threshold {low:.3f}", **common)


# =========================================================================== answering
@dataclass
class Answer:
    query: str
    mode: str
    text: str
    decision: ModeDecision
    turn: GatedTurn

    @property
    def used_llm(self) -> str:
        return self.decision.used_llm


def render_deterministic(query: str, decision: ModeDecision, turn: GatedTurn | None = None) -> str:
    """An answer written from the chunks the decision used, or an honest fallback."""
    if decision.mode == "fallback":
        closest = decision.retrieved_chunks_metadata[0] if decision.retrieved_chunks_metadata else None
        text = f"I don't have stored knowledge that answers \u201c{' '.join(query.split())}\u201d."
        if closest is not None:
            text += (f" The closest memory is {closest['subject'] or closest['record_id']} "
                     f"(similarity {closest['similarity']:.2f}), which is not close enough to rely on.")
        return text + " Try naming the table or column you mean."
    lead = ("From the schema knowledge:" if decision.mode == "rag"
            else "These stored facts partly match the question; check they cover what you need:")
    lines = [lead]
    for c in decision.used_chunks:
        label = c.get("subject") or c.get("record_id") or "memory"
        lines.append(f"- [{label}, similarity {c['similarity']:.2f}] {c['text']}")
    return "\n".join(lines)


def answer(eng, query: str, *, config: ModeConfig | None = None, llm: ContextAnswerer | None = None, top_k: int = DEFAULT_TOP_K,
           category: str | Sequence[str] | None = None) -> Answer:
    """Retrieve, decide, answer. Without an LLM the answer is written from the used chunks.

    Retrieval here keeps the top_k nearest chunks with no score floor, so the decision
    sees the weak ones too (they show up as unused in retrieved_chunks_metadata).
    """
    turn = retrieve_turn(eng, query, top_k=top_k, min_score=0.0, category=category)
    return answer_turn(turn, config or ModeConfig.for_engine(eng), llm=llm)


def answer_turn(turn: GatedTurn, config: ModeConfig, *, llm: ContextAnswerer | None = None) -> Answer:
    """Decide and answer from a turn already retrieved (answer() without the retrieval). With
    llm=None nothing but the decision and a deterministic text is computed."""
    query = turn.query
    args: dict[str, Any] = dict(config=config, query_tokens=turn.query_tokens, query=query)
    decision = decide_mode(turn.similarities, turn.as_chunks(), **args)
    if llm is not None and decision.mode != "fallback":
        try:
            text = llm.answer_from_context(query, [c["text"] for c in decision.used_chunks])
        except Exception:  # noqa: BLE001 - any model failure means the deterministic path answers
            text = ""
        decision = decide_mode(turn.similarities, turn.as_chunks(), used_llm_answer=text or "", **args)
        if decision.mode != "fallback":
            return Answer(query, decision.mode, text, decision, turn)
    return Answer(query, decision.mode, render_deterministic(query, decision, turn), decision, turn)


# =========================================================================== debugging
DEBUG_TABLE = [
    {"symptom": "A question the knowledge covers gets no chunks (or a fallback)",
     "likely cause": "the right memory scores below min_score",
     "knob": "lower min_score, or recalibrate it for this model; improve the memory's text"},
    {"symptom": "The context holds memories about unrelated tables",
     "likely cause": "min_score too low: weak matches pass the gate",
     "knob": "raise min_score toward threshold_high; add a category filter"},
    {"symptom": "The right memory exists but is missing from the context",
     "likely cause": "top_k too small: it ranks just below the cut",
     "knob": "raise top_k (5 -> 8-10) or filter by category so others do not crowd it out"},
    {"symptom": "Each turn costs many prompt tokens",
     "likely cause": "top_k too high, or long memories",
     "knob": "lower top_k; keep memories short; filter by category"},
    {"symptom": "One-word questions get confident rag answers",
     "likely cause": "short-query tightening is off or too weak",
     "knob": "raise short_query_delta or short_query_max_tokens"},
    {"symptom": "Answers in the hybrid band always fall back",
     "likely cause": "a hybrid gate is stricter than the data (see hybrid_gates in decision_explain)",
     "knob": "lower min_chunks_for_hybrid or min_total_context_chars, or top_k up so more chunks qualify"},
]


def debug_table():
    import pandas as pd

    return pd.DataFrame(DEBUG_TABLE, columns=["symptom", "likely cause", "knob"])


def diagnose(turn: GatedTurn, *, expected_subject: str | None = None, token_budget: int | None = None) -> list[dict]:
    """Match a live turn against DEBUG_TABLE; returns the rows that apply, with evidence."""
    found = []
    if expected_subject is not None:
        seen = {c.subject: c for c in turn.considered}
        hit = seen.get(expected_subject)
        if hit is None or hit.status == "below_min_score":
            sim = "not among the neighbours looked at" if hit is None else f"similarity {hit.similarity:.3f}"
            found.append({**DEBUG_TABLE[0], "evidence": f"{expected_subject}: {sim} < min_score {turn.min_score:.2f}"})
        elif hit.status == "beyond_top_k":
            rank = [c.subject for c in turn.considered if c.status in ("kept", "beyond_top_k")].index(expected_subject) + 1
            found.append({**DEBUG_TABLE[2], "evidence": f"{expected_subject} ranks {rank} but top_k={turn.top_k}"})
        table = ".".join(expected_subject.split(".")[:2])
        strangers = [c.subject for c in turn.chunks if not c.subject.startswith(table)]
        if strangers and 2 * len(strangers) > len(turn.chunks):  # most of the context is off-table
            found.append({**DEBUG_TABLE[1], "evidence": f"{len(strangers)} of {len(turn.chunks)} chunks are about "
                                                        f"other tables (e.g. {strangers[0]})"})
    if token_budget is not None and turn.context_tokens > token_budget:
        found.append({**DEBUG_TABLE[3], "evidence": f"{turn.context_tokens} context tokens > budget {token_budget}"})
    return found


def _preview(text: str, n: int = PREVIEW_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"

"""One CHAT_INTERACTIONS row per answered request, in the engine's own database."""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from workshop_lib.engines.rows import CountRow, ModesPerMinuteRow, RecentRow, row_as, rows_as

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine


def ensure_table(eng: Engine) -> None:
    """Create the telemetry table where missing (never drops anything)."""
    with eng.transaction() as cur:
        for ddl in eng.statements.chat.DDL:
            cur.execute(ddl)


def question_hash(question: str) -> str:
    return hashlib.sha256(question.encode("utf-8")).hexdigest()


def record(eng: Engine, *, question: str, store_text: bool, thread_id: str | None, user_id: str | None, mode: str,
           short_query_active: bool, used_llm: str, latency_ms: float, embedding_cache_hit: bool | None,
           from_cache: bool, decision_explain: dict[str, Any]) -> None:
    """Log one answered request. The question's text is kept only when `store_text` (privacy flag)."""
    params = {
        "tid": thread_id, "usr": user_id, "qhash": question_hash(question),
        "qtext": question if store_text else None, "rmode": mode, "shortq": int(bool(short_query_active)),
        "usedllm": used_llm, "latency": float(latency_ms),
        "embhit": None if embedding_cache_hit is None else int(bool(embedding_cache_hit)),
        "cached": int(bool(from_cache)), "explain": json.dumps(decision_explain, default=str),
    }
    with eng.transaction() as cur:
        cur.execute(eng.statements.chat.INSERT, params)


def count(eng: Engine) -> int:
    return int(row_as(CountRow, eng.query(eng.statements.chat.COUNT)[0]).n)


def modes_per_minute(eng: Engine) -> pd.DataFrame:
    """Answers per minute and mode: one column per mode, one row per minute (fallback spikes show here)."""
    rows = rows_as(ModesPerMinuteRow, eng.query(eng.statements.chat.MODES_PER_MINUTE))
    frame = pd.DataFrame([(r.minute, r.resp_mode, r.n) for r in rows], columns=["minute", "mode", "n"])
    table = frame.pivot_table(index="minute", columns="mode", values="n", aggfunc="sum", fill_value=0)
    for mode in ("rag", "hybrid", "fallback"):
        if mode not in table.columns:
            table[mode] = 0
    return table[["rag", "hybrid", "fallback"]].astype(int)


def recent(eng: Engine, n: int = 20) -> pd.DataFrame:
    rows = rows_as(RecentRow, eng.query(eng.statements.chat.RECENT, {"n": int(n)}))
    read = eng.backend.read_text
    return pd.DataFrame([(r.created_at, r.thread_id, r.resp_mode, r.latency_ms, read(r.question_text),
                          read(r.decision_explain)) for r in rows],
                        columns=["created_at", "thread_id", "mode", "latency_ms", "question", "decision_explain"])

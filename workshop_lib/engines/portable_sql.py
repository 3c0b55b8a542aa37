"""Store statements written identically for SQLite and Oracle, defined once, and the helper
that fills a block's `{p}` table-name prefix.

Both engines' statement modules import them, so each module still holds the whole set
its engine runs (workshop_lib/engines/statement_sets.py lists the names). `{p}` is the
table-name prefix. Bind names avoid Oracle's reserved words.
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

Block = TypeVar("Block")

META_SELECT = "SELECT k, v FROM {p}STORE_META"
META_INSERT = "INSERT INTO {p}STORE_META (k, v) VALUES (:k, :v)"
RECORD_SET_CONTENT = "UPDATE {p}RECORDS SET content = :content WHERE seq = :seq"
RECORD_SET_METADATA = "UPDATE {p}RECORDS SET metadata = :meta WHERE seq = :seq"
RECORD_DELETE = "DELETE FROM {p}RECORDS WHERE seq = :seq"
CHUNK_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq = :seq"
THREAD_GET = "SELECT thread_id, user_id FROM {p}THREADS WHERE thread_id = :tid"
THREAD_INSERT = "INSERT INTO {p}THREADS (thread_id, user_id, agent_id) VALUES (:tid, :u, :a)"
THREAD_DELETE = "DELETE FROM {p}THREADS WHERE thread_id = :tid"
THREAD_CHUNKS_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq IN (SELECT seq FROM {p}RECORDS WHERE thread_id = :tid)"
THREAD_RECORDS_DELETE = "DELETE FROM {p}RECORDS WHERE thread_id = :tid"
THREADS_OF_USER = "SELECT thread_id FROM {p}THREADS WHERE user_id = :actor"
THREADS_OF_AGENT = "SELECT thread_id FROM {p}THREADS WHERE agent_id = :actor"


# Memory over time: the statements of the MEMORY block that both dialects write the same way
# (each engine's MEMORY block includes them).
MEMORY_PORTABLE = {
    "STATUS_DELETE": "DELETE FROM {p}MEMORY_STATUS WHERE record_seq = :seq",
    "THREAD_STATUS_DELETE": """DELETE FROM {p}MEMORY_STATUS
 WHERE record_seq IN (SELECT seq FROM {p}RECORDS WHERE thread_id = :tid)""",
    "AUDIT_INSERT": """INSERT INTO {p}MEMORY_AUDIT (action, subject_hash, actor, detail)
VALUES (:act, :subj, :actor, :detail)""",
    # What is left of a user after erasure: rows, threads, chunks without a record.
    "TRACE_RECORDS": "SELECT COUNT(*) FROM {p}RECORDS WHERE user_id = :u",
    "TRACE_THREADS": "SELECT COUNT(*) FROM {p}THREADS WHERE user_id = :u",
    "TRACE_ORPHAN_CHUNKS": """SELECT COUNT(*) FROM {p}RECORD_CHUNKS c
 WHERE NOT EXISTS (SELECT 1 FROM {p}RECORDS m WHERE m.seq = c.record_seq)""",
    "CHAT_ERASE": "DELETE FROM CHAT_INTERACTIONS WHERE user_id = :u",
}

def with_prefix(block: Block, prefix: str) -> Block:
    """A statement block with `{p}` replaced by the store's table-name prefix, in nested values too."""
    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{p}", prefix)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [fill(v) for v in value]
        return value
    changes = {f.name: fill(getattr(block, f.name)) for f in dataclasses.fields(block)}  # type: ignore[arg-type]
    return dataclasses.replace(block, **changes)  # type: ignore[type-var]

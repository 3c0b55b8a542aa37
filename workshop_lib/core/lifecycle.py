"""Memory over time: status, supersession links, expiry, history and erasure.

A memory (record types memory, fact, preference, guideline) is `valid` until it is marked
`superseded` (a later statement contradicted it; `replaced_by` names the memory that
replaced it), `forgotten` (the user asked) or `expired` (its `expires_at` passed). Marking
never deletes the record ("mark, don't delete"): history can still show it. Every read path
leaves non-valid memories out, in SQL (the engines' statements test MEMORY_STATUS), and a
superseded or forgotten memory also loses its vector, so nearest-neighbour lists never
spend a slot on it. Who changed the status, when and why is kept with it.

Erasing a user is different: it deletes every record, thread, vector and status of that
user, their chat log rows and the cache rows written for them, then clears the deleted text
out of the indexes (and, on the embedded engine, out of the file), and writes an audit row
that holds a keyed hash of the id (HMAC-SHA-256 under a secret of this store, kept in its
STORE_META), never the id itself nor a hash anyone could recompute from a guess.
The MemoryStore mixes this class in; its SQL is the MEMORY block of each statements module.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workshop_lib.core.records import MEMORY_TYPES, Record
from workshop_lib.engines.database import StoreDatabase
from workshop_lib.engines.dbtypes import Cursor
from workshop_lib.engines.rows import (
    AuditRow,
    AuditSubjectRow,
    CountRow,
    HistoryRow,
    MetaRow,
    RecordRow,
    RecordSeqRow,
    StatusRow,
    first_as,
    maybe_as,
    rows_as,
)

STATUSES = ("valid", "superseded", "forgotten", "expired")
MAX_REASON_CHARS = 1000


@dataclass
class MemoryStatus:
    """A memory's status as stored: no row means valid, set by nobody, no expiry."""

    status: str = "valid"
    changed_by: str | None = None
    changed_at: str | None = None
    reason: str | None = None
    replaced_by: str | None = None
    expires_at: str | None = None
    live: bool = True  # valid and not past its expiry: what every read path returns


@dataclass
class HistoryEntry:
    record: Record
    state: MemoryStatus


def iso_utc(when: datetime | str | None) -> str | None:
    """A time as the stores keep it: UTC, 'YYYY-MM-DDTHH:MM:SS.fffZ'."""
    if when is None:
        return None
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"expires_at {when!r} is not an ISO-8601 time") from None
    if not isinstance(when, datetime):
        raise ValueError(f"expires_at must be a datetime, an ISO-8601 string or None, got {type(when).__name__}")
    if when.tzinfo is None:
        raise ValueError("expires_at needs a time zone (use datetime.now(timezone.utc) + timedelta(...))")
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


AUDIT_KEY = "audit_key"  # the STORE_META key of the store's audit secret
FILE_READ_BYTES = 1 << 20


def plain_hash(user_id: str) -> str:
    """The unkeyed SHA-256 of an id (what audit rows held before keyed hashes): anyone can
    recompute it from a guessed id, so it is only ever fed to the keyed hash."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()


def keyed_hash(key: str, user_id: str) -> str:
    """HMAC-SHA-256 of the id's plain hash under the store's secret (an old row's plain hash
    re-keyed the same way gives the same value, so every erasure is found by one formula)."""
    return _rekeyed(key, plain_hash(user_id))


def _rekeyed(key: str, old_plain_hash: str) -> str:
    return hmac.new(bytes.fromhex(key), old_plain_hash.encode("ascii"), hashlib.sha256).hexdigest()


def count_in_files(files: Iterable[Path], words: Iterable[str]) -> int:
    """Occurrences of each word (UTF-8; ASCII letters in any case) in the raw bytes of the files,
    read in bounded pieces that overlap by the longest word."""
    needles = sorted({w.lower().encode("utf-8") for w in words if w and w.strip()})
    if not needles:
        return 0
    overlap = max(len(n) for n in needles) - 1
    total = 0
    for path in files:
        tail = b""
        with open(path, "rb") as fh:
            while piece := fh.read(FILE_READ_BYTES):
                window = tail + piece.lower()
                # a match wholly inside the tail was counted with the piece before
                total += sum(window.count(n) - tail.count(n) for n in needles)
                tail = window[-overlap:] if overlap else b""
    return total


def _check_actor(by: Any, reason: Any) -> None:
    if not isinstance(by, str) or not by.strip():
        raise ValueError("by must name who changes the memory (a user id, 'consolidation', 'system')")
    if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS):
        raise ValueError(f"reason must be a string of at most {MAX_REASON_CHARS} characters or None")


class LifecycleMixin:
    """Status, expiry, history and erasure methods of MemoryStore (self.engine, self.sql, self.mem)."""

    engine: StoreDatabase
    sql: Any
    mem: Any
    # MemoryStore's own helpers, declared for the type checker (the mixin is never used alone).
    _embed_chunk: Any
    _row_to_record: Any
    _delete_record: Any
    _cascade_actor: Any

    # ------------------------------------------------------------------ status
    @staticmethod
    def _check_memory_key(record_type: str, record_id: str) -> None:
        if not isinstance(record_type, str) or record_type not in MEMORY_TYPES:
            raise ValueError(f"only memories have a status; record_type must be one of {sorted(MEMORY_TYPES)}, "
                             f"got {record_type!r}")
        if not isinstance(record_id, str):
            raise ValueError(f"record_id must be a string, got {type(record_id).__name__}")

    def _memory_row(self, cur: Cursor, record_type: str, record_id: str) -> RecordRow | None:
        """The memory's row, read inside the caller's transaction."""
        self._check_memory_key(record_type, record_id)
        cur.execute(self.sql.RECORD_GET, {"rt": record_type, "rid": record_id})
        return maybe_as(RecordRow, cur.fetchone())

    def _read_status(self, cur: Cursor, seq: int) -> MemoryStatus:
        """The status of the memory at `seq`, read inside the caller's transaction."""
        cur.execute(self.mem.STATUS_GET, {"seq": seq})
        return self._status_or_valid(maybe_as(StatusRow, cur.fetchone()))

    def _query_status(self, seq: int) -> MemoryStatus:
        """The status of the memory at `seq`, read on its own (a read, outside any transaction)."""
        return self._status_or_valid(first_as(StatusRow, self.engine.query(self.mem.STATUS_GET, {"seq": seq})))

    def _status_or_valid(self, row: StatusRow | None) -> MemoryStatus:
        return MemoryStatus() if row is None else self._status_of(row)

    def _status_of(self, row: StatusRow | HistoryRow) -> MemoryStatus:
        """A status from a row carrying StatusRow's columns (a history row does; no status row: valid)."""
        return MemoryStatus(row.status or "valid", row.changed_by, str(row.changed_at) if row.changed_at else None,
                            self.engine.backend.read_text(row.reason), row.replaced_by,
                            str(row.expires_at) if row.expires_at else None, bool(row.live))

    def status(self, record_type: str, record_id: str) -> MemoryStatus | None:
        """The memory's status, or None if there is no such memory."""
        self._check_memory_key(record_type, record_id)
        row = first_as(RecordRow, self.engine.query(self.sql.RECORD_GET, {"rt": record_type, "rid": record_id}))
        return None if row is None else self._query_status(row.seq)

    def set_status(self, record_type: str, record_id: str, status: str, *, by: str, reason: str | None = None,
                   replaced_by: str | None = None) -> int:
        """Mark a memory valid, superseded, forgotten or expired; returns 1, or 0 if there is no such memory.

        `superseded` needs `replaced_by`, the id of a memory of the same type that replaced it.
        Superseded, forgotten and expired memories lose their vector; marking one valid again
        re-embeds it. The expiry is kept."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {list(STATUSES)}, got {status!r}")
        _check_actor(by, reason)
        if (status == "superseded") != (replaced_by is not None):
            raise ValueError("replaced_by is required for 'superseded' and only for it")
        if replaced_by is not None and (not isinstance(replaced_by, str) or replaced_by == record_id):
            raise ValueError("replaced_by must be the id of another memory")
        with self.engine.transaction() as cur:
            row = self._memory_row(cur, record_type, record_id)
            if row is None:
                return 0
            if replaced_by is not None:
                cur.execute(self.sql.RECORD_GET, {"rt": record_type, "rid": replaced_by})
                other = maybe_as(RecordRow, cur.fetchone())
                if other is None or (other.user_id, other.agent_id) != (row.user_id, row.agent_id):
                    raise ValueError(f"replaced_by {replaced_by!r} is not a {record_type} in the same user and agent scope")
            seq = row.seq
            before = self._read_status(cur, seq)
            self._write_status(cur, seq, status, by, reason, replaced_by, before.expires_at)
            if status == "valid":
                if before.status != "valid":
                    self._embed_chunk(cur, seq, self.engine.backend.read_text(row.content) or "", None)
            else:
                cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        return 1

    def _write_status(self, cur: Cursor, seq: int, status: str, by: str | None, reason: str | None,
                      replaced_by: str | None, expires_at: str | None) -> None:
        cur.execute(self.mem.STATUS_DELETE, {"seq": seq})
        cur.execute(self.mem.STATUS_INSERT, {"seq": seq, "st": status, "actor": by, "why": reason,
                                             "repl": replaced_by, "expiry": expires_at})

    def set_expiry(self, record_type: str, record_id: str, expires_at: datetime | str | None, *,
                   by: str = "system") -> int:
        """Give a memory an expiry time (None removes it); past it, no read path returns the memory."""
        exp = iso_utc(expires_at)
        _check_actor(by, None)
        with self.engine.transaction() as cur:
            row = self._memory_row(cur, record_type, record_id)
            if row is None:
                return 0
            before = self._read_status(cur, row.seq)
            self._write_status(cur, row.seq, before.status, by, before.reason, before.replaced_by, exp)
        return 1

    def expire_due(self, *, by: str = "system") -> int:
        """Mark every valid memory past its expiry `expired` and drop its vector; returns how many."""
        with self.engine.transaction() as cur:
            cur.execute(self.mem.EXPIRED_DUE)
            due = [r.record_seq for r in rows_as(RecordSeqRow, cur.fetchall())]
            for seq in due:
                before = self._read_status(cur, seq)
                self._write_status(cur, seq, "expired", by, "expiry passed", None, before.expires_at)
                cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        return len(due)

    # ------------------------------------------------------------------ history
    def history(self, *, user_id: str, agent_id: str, subject: str | None = None,
                record_types: Iterable[str] | None = None) -> list[HistoryEntry]:
        """Every memory of one user and agent, valid or not, oldest first, with its status;
        `subject` keeps those whose metadata subject equals it (case-insensitive)."""
        for name, value in (("user_id", user_id), ("agent_id", agent_id)):
            if not isinstance(value, str):
                raise ValueError(f"{name} must be a string")
        types = set(record_types) if record_types is not None else set(MEMORY_TYPES)
        if not types or not types <= MEMORY_TYPES:
            raise ValueError(f"record_types must be memory types {sorted(MEMORY_TYPES)}")
        want = subject.strip().lower() if isinstance(subject, str) else None
        out = []
        binds = {"u": user_id, "a": agent_id, "types": "," + ",".join(sorted(types)) + ","}
        for row in rows_as(HistoryRow, self.engine.query(self.mem.HISTORY, binds)):
            rec = self._row_to_record(row)
            if want is not None and str((rec.metadata or {}).get("subject", "")).strip().lower() != want:
                continue
            out.append(HistoryEntry(rec, self._status_of(row)))
        return out

    # ------------------------------------------------------------------ erasure
    def _audit_key(self, cur: Cursor) -> str:
        """The store's audit secret (STORE_META), made on first use; audit rows written before it
        held plain SHA-256 hashes, which are re-keyed in the same transaction."""
        cur.execute(self.sql.META_SELECT)
        meta = {r.k: r.v for r in rows_as(MetaRow, cur.fetchall())}
        if AUDIT_KEY in meta:
            return str(meta[AUDIT_KEY])
        key = secrets.token_hex(32)
        cur.execute(self.sql.META_INSERT, {"meta_key": AUDIT_KEY, "v": key})
        cur.execute(self.mem.AUDIT_SUBJECTS)
        for audit in rows_as(AuditSubjectRow, cur.fetchall()):
            cur.execute(self.mem.AUDIT_SET_SUBJECT, {"seq": audit.seq, "subj": _rekeyed(key, str(audit.subject_hash))})
        return key

    def subject_hash(self, user_id: str) -> str:
        """The hash an erasure's audit row names this user by (keyed: whoever reads the audit
        without this store cannot test a guessed id against it)."""
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        with self.engine.transaction() as cur:
            return keyed_hash(self._audit_key(cur), user_id)

    def erase_user(self, user_id: str, *, by: str, reason: str = "erasure requested") -> dict[str, int]:
        """Delete everything of one user (profile, threads, messages, memories, vectors, statuses,
        chat log rows, cache rows written for them) in one transaction, write an audit row naming
        the user by a keyed hash only, then purge the deleted text from the indexes and files
        (the engine's PURGE_DELETED: FTS5 'optimize' and a WAL checkpoint; Oracle Text OPTIMIZE FULL)."""
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        _check_actor(by, reason)
        records = self._count(self.mem.TRACE_RECORDS, {"u": user_id})
        threads = self._count(self.mem.TRACE_THREADS, {"u": user_id})
        names = self.engine.backend.object_names()
        with self.engine.transaction() as cur:
            self._delete_record(cur, "user_profile", user_id)
            self._cascade_actor(cur, "user_profile", user_id)
            chat_rows = cache_rows = 0
            if "CHAT_INTERACTIONS" in names:
                cur.execute(self.mem.CHAT_ERASE, {"u": user_id})
                chat_rows = max(cur.rowcount, 0)
            if {"RESPONSE_CACHE", "EMBEDDING_CACHE", "CACHE_WRITERS"} <= names:
                for stmt in (self.mem.RESPONSE_CACHE_ERASE, self.mem.EMBEDDING_CACHE_ERASE):
                    cur.execute(stmt, {"u": user_id})
                    cache_rows += max(cur.rowcount, 0)
                cur.execute(self.mem.CACHE_WRITERS_ERASE, {"u": user_id})
            detail = {"records": records, "threads": threads, "chat_log_rows": chat_rows, "cache_rows": cache_rows}
            cur.execute(self.mem.AUDIT_INSERT, {"act": "erase_user", "subj": keyed_hash(self._audit_key(cur), user_id),
                                                "actor": by, "detail": json.dumps({**detail, "reason": reason})})
        for stmt in self.mem.PURGE_DELETED:  # after the commit: the indexes see the deletes first
            self.engine.query(stmt)  # each on its own, outside a transaction (a WAL checkpoint needs that)
        return detail

    def user_trace(self, user_id: str, terms: Iterable[str] = ()) -> dict[str, int]:
        """What of a user is left, each count named for what it proves (all zero after erase_user;
        `terms` are distinctive words the user wrote, the id too if it is distinctive):

        records, threads       rows that carry the user id
        orphan_chunks          chunks (text and vector) whose record is gone, anyone's
        vector_index_rows      vectors filed under the user, and (embedded) vec0 rows without a record
        text_index_matches     rows the full-text index still returns for a term
        text_index_tokens      the full-text index's own storage holding a term: FTS5 segment blocks
                               (embedded), rows of the Oracle Text token table (deleted rows' tokens
                               stay there until OPTIMIZE FULL)
        cache_rows             Part 5 cache rows recorded as written for the user
        cache_text_rows        cache rows whose text holds a term, whoever wrote them
        chat_log_rows          chat service log rows of the user
        audit_rows_naming_user audit rows holding the id, or its unkeyed SHA-256, as subject,
                               actor or in the detail
        file_term_bytes        (embedded only) occurrences of a term in the raw bytes of the
                               database file and its write-ahead log: free pages, index
                               segments and old log frames included
        """
        words = [t for t in terms if isinstance(t, str) and re.search(r"\w", t)]
        names = self.engine.backend.object_names()
        out = {}
        count = self._count
        out["records"] = count(self.mem.TRACE_RECORDS, {"u": user_id})
        out["threads"] = count(self.mem.TRACE_THREADS, {"u": user_id})
        out["orphan_chunks"] = count(self.mem.TRACE_ORPHAN_CHUNKS)
        out["vector_index_rows"] = count(self.mem.TRACE_VECTOR_INDEX, {"u": user_id})
        out["text_index_matches"] = sum(
            count(self.mem.TRACE_TEXT_INDEX, {"kw": kw}) for t in words
            if (kw := self.engine.statements.keyword_expression(t)))
        out["text_index_tokens"] = sum(count(self.mem.TRACE_TEXT_TOKENS, {"tok": w})
                                       for t in words for w in re.findall(r"\w+", t))
        caches = {"RESPONSE_CACHE", "EMBEDDING_CACHE", "CACHE_WRITERS"} <= names
        out["cache_rows"] = count(self.mem.TRACE_CACHE_ROWS, {"u": user_id}) if caches else 0
        out["cache_text_rows"] = sum(count(self.mem.TRACE_CACHE_TEXT, {"term": t}) for t in words) if caches else 0
        out["chat_log_rows"] = (count(self.mem.TRACE_CHAT_LOG, {"u": user_id})
                                if "CHAT_INTERACTIONS" in names else 0)
        out["audit_rows_naming_user"] = count(self.mem.TRACE_AUDIT, {"u": user_id, "plain": plain_hash(user_id)})
        files = self.engine.backend.files()
        if files:
            out["file_term_bytes"] = count_in_files(files, words)
        return out

    def audit_log(self) -> list[dict[str, Any]]:
        return [{"at": str(r.created_at), "action": r.action, "subject_hash": r.subject_hash, "by": r.actor,
                 "detail": json.loads(self.engine.backend.read_text(r.detail) or "{}")}
                for r in rows_as(AuditRow, self.engine.query(self.mem.AUDIT_LIST))]

    def _count(self, statement: str, binds: Mapping[str, object] | None = None) -> int:
        """The count a COUNT statement returns."""
        found = first_as(CountRow, self.engine.query(statement, binds or {}))
        if found is None:
            raise RuntimeError("the statement returned no row where one was expected")
        return int(found.n)

"""The memory store: one contract, two engines.

The store keeps every record (messages, memories, guidelines, facts, preferences and
actor profiles) in one RECORDS table, its embedding in RECORD_CHUNKS, and thread rows
in THREADS. All SQL comes from the engine's statement sets (`eng.statements.store`), so this file
holds only the contract's rules: argument checks, scope semantics, metadata matching
and transactions.

Concurrency: the engine serialises every store call of one process (a re-entrant lock
around its connection), and writers of several processes wait for each other with retries
(embedded: WAL, busy timeout, backoff); schema creation runs under the engine's
schema_lock and re-checks what exists, so two first-time setups never both create it.

Ids and scopes: a record id is unique per record type across the whole store (get, update
and delete take no scope, as documented). An add() whose id another scope already holds
is refused with a message naming that scope, and setup's scanner never updates a record
of another scope. A thread belongs to the user that created it: writes that name another
user are refused (a message from user B must not land in user A's context).

Bad input: every argument is checked before anything is written; wrong types, non-finite
numbers or nesting deeper than MAX_METADATA_DEPTH in metadata, and out-of-range k are a
ValueError naming the argument.
"""
from __future__ import annotations

import builtins  # MemoryStore.list shadows list in its class body
import dataclasses
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from workshop_lib.core.arguments import MAX_K, MAX_QUERY_CHARS, check_id, check_k, check_query  # noqa: F401 - re-exported
from workshop_lib.core.lifecycle import LifecycleMixin
from workshop_lib.core.records import ADDABLE_TYPES, DELETABLE_TYPES, MEMORY_TYPES, PROFILE_TYPES, RECORD_TYPES, MessageRecord, Record, RecordDraft
from workshop_lib.core.scope import SHARED
from workshop_lib.engines.base import new_id
from workshop_lib.engines.database import StoreDatabase
from workshop_lib.engines.dbtypes import Cursor, Row
from workshop_lib.engines.rows import (
    HistoryRow,
    MetaRow,
    RecordHitRow,
    RecordRow,
    ScopedHitRow,
    SeqRow,
    ThreadIdRow,
    ThreadRow,
    each_as,
    first_as,
    maybe_as,
    row_as,
    rows_as,
)
from workshop_lib.errors import WorkshopError

SCHEMA_VERSION = "1"
DEFAULT_LIST_LIMIT = 100
def _shared_binds(shared_knowledge: bool) -> dict[str, object]:
    """The shared scope's binds of a search: SHARED to read its schema facts, NULL to leave them out."""
    if shared_knowledge:
        return {"shared_u": SHARED.user, "shared_a": SHARED.agent}
    return {"shared_u": None, "shared_a": None}


MAX_KNN = 4096  # sqlite-vec's largest k; past it the store scans instead
MAX_METADATA_DEPTH = 32  # deeper JSON would hit Python's recursion limit in matching


class _Omitted:
    """Marks an argument the caller did not pass (different from passing None)."""

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Any = _Omitted()


class SchemaPolicy(str, Enum):  # noqa: UP042 - str() of a StrEnum member is its value, not SchemaPolicy.NAME
    REQUIRE_EXISTING = "require_existing"
    CREATE_IF_EMPTY = "create_if_empty"
    CREATE_IF_NECESSARY = "create_if_necessary"
    RECREATE = "recreate"


class SchemaError(WorkshopError, RuntimeError):
    """The managed schema is missing or out of date for the chosen policy."""


def metadata_matches(stored: object, wanted: object) -> bool:
    """Partial match: dicts recursively, everything else (lists included) by equality."""
    if isinstance(wanted, dict):
        if not isinstance(stored, dict):
            return False
        return all(key in stored and metadata_matches(stored[key], value) for key, value in wanted.items())
    return bool(stored == wanted)


def _depth(value: Any) -> int:
    """Nesting depth of dicts and lists, without recursion (the input may be 100k deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            deepest = max(deepest, level)
            if level > MAX_METADATA_DEPTH:
                return level
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _check_count(value: object, name: str) -> None:
    """A row count: a non-negative integer, or None for no bound."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")


def _check_metadata(metadata: Any, what: str = "metadata") -> None:
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"{what} must be a dict or None, got {type(metadata).__name__}")
    if metadata is not None:
        if _depth(metadata) > MAX_METADATA_DEPTH:
            raise ValueError(f"{what} is nested more than {MAX_METADATA_DEPTH} levels deep")
        try:
            json.dumps(metadata, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"{what} must be JSON-serialisable with finite numbers: {exc}") from None
        if what == "metadata" and "kind" in metadata and not isinstance(metadata["kind"], str):
            # The nearest-neighbour index keeps kind as a text column.
            raise ValueError(f"metadata['kind'] must be a string, got {type(metadata['kind']).__name__}")


def _check_id(value: Any, name: str, *, optional: bool = False) -> None:
    check_id(value, name, optional=optional)


def _check_optional_text(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} must be a string or None, got {type(value).__name__}")


def _check_text(value: Any, name: str) -> None:
    """Text SQL can store: a lone surrogate (broken JSON escapes) is not encodable."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{name} is not valid text: {exc.reason} at position {exc.start}") from None


def _check_record_type(record_type: str, allowed: Iterable[str], action: str) -> None:
    if not isinstance(record_type, str) or record_type not in allowed:
        raise ValueError(
            f"Unsupported record_type {record_type!r} for {action}; use one of {sorted(allowed)}"
        )


def _as_list(value: Any, n: int, name: str) -> builtins.list[Any]:
    """Spread a per-record argument (scalar or list) over n records."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} has {len(value)} items but {n} texts were given")
        return list(value)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} must be a string, None or a list of them, got {type(value).__name__}")
    return [value] * n



def _checked_drafts(records: Any) -> builtins.list[RecordDraft]:
    """add_records' argument as a list of RecordDraft, each with a vector or none with one."""
    if isinstance(records, (str, RecordDraft)) or not isinstance(records, Sequence):
        raise ValueError(f"records must be a list of RecordDraft, got {type(records).__name__} "
                         "(one record goes in a list of one: [RecordDraft(text, ...)])")
    odd = [r for r in records if not isinstance(r, RecordDraft)]
    if odd:
        raise ValueError(f"records must be RecordDraft values, got {type(odd[0]).__name__} "
                         "(from workshop_lib import RecordDraft; RecordDraft(text, user_id=..., metadata=...))")
    with_vector = sum(r.embedding is not None for r in records)
    if with_vector not in (0, len(records)):
        raise ValueError(f"{with_vector} of {len(records)} records carry an embedding: give every record one, or none")
    return builtins.list(records)


@dataclass
class _NewRecord:
    """One record of an add() call, its arguments checked."""

    text: str
    record_id: str
    metadata: dict[str, Any] | None
    thread_id: str | None
    user_id: str | None
    agent_id: str | None
    role: str | None          # stored for messages only
    index_text: str           # what is embedded and keyword-indexed
    vector: Any = None        # the caller's vector, or one computed before the transaction
    precomputed: bool = False  # vector came from the engine's model before the transaction


def _given(value: object) -> bool:
    """An update() argument passed with a value (not left out, not None)."""
    return value is not OMITTED and value is not None


def _check_update(text: object, index_text: object, embedding: object, metadata: object) -> None:
    """update()'s arguments, before anything is read or written."""
    if all(v is OMITTED for v in (text, index_text, embedding, metadata)):
        raise ValueError("update() needs at least one of text, index_text, embedding or metadata")
    if text is None and (_given(index_text) or _given(embedding)):
        raise ValueError("text=None clears the record; do not pass index_text or embedding with it")
    if _given(index_text) and _given(embedding):
        raise ValueError("Pass index_text or embedding, not both")
    for name, value in (("text", text), ("index_text", index_text)):
        if _given(value) and not isinstance(value, str):
            raise ValueError(f"{name} must be a string or None")
        _check_text(value, name)
    if metadata is not OMITTED:
        _check_metadata(metadata)


def _search_types(record_types: object) -> set[str]:
    """search()'s record_types checked, as a set (None: every type)."""
    if record_types is None:
        return set(RECORD_TYPES)
    if isinstance(record_types, str) or not isinstance(record_types, (set, frozenset, list, tuple)):
        raise ValueError(f"record_types must be a set or list of record types, got {record_types!r}")
    for t in record_types:
        _check_record_type(t, RECORD_TYPES, "search")
    return set(record_types)


def _check_search_query(query: object, query_vector: object, metadata_filter: object) -> None:
    """Exactly one of query and query_vector; the text and the filter well formed."""
    if (query is None) == (query_vector is None):
        raise ValueError("Pass exactly one of query and query_vector")
    if query is not None:
        check_query(query)
    if metadata_filter is not None:
        _check_metadata(metadata_filter, "metadata_filter")


def _add_columns(n: int, record_ids: object, thread_ids: object, user_ids: object, agent_ids: object,
                 index_texts: object, roles: object) -> dict[str, list[Any]]:
    """add()'s per-record arguments spread over its n texts and checked, by argument name."""
    columns = {"record_ids": _as_list(record_ids, n, "record_ids") if record_ids is not None else [None] * n,
               "thread_ids": _as_list(thread_ids, n, "thread_ids"),
               "user_ids": _as_list(user_ids, n, "user_ids"), "agent_ids": _as_list(agent_ids, n, "agent_ids"),
               "index_texts": _as_list(index_texts, n, "index_texts"),
               "roles": _as_list(roles if roles is not None else "user", n, "roles")}
    for name, values in columns.items():
        for v in values:
            if name in ("index_texts", "roles"):
                _check_optional_text(v, name)
            else:
                _check_id(v, name, optional=True)
            _check_text(v, name)
    return columns


def _texts_and_vectors(texts: Any, embeddings: Any) -> tuple[list[str], Any]:
    """add()'s texts as a checked list, and its embeddings as one vector per text."""
    if texts is None or not isinstance(texts, (str, list, tuple)):
        raise ValueError(f"texts must be a string or a list of strings, got {type(texts).__name__}")
    if isinstance(texts, str):
        texts = [texts]
        if embeddings and not isinstance(embeddings[0], (list, tuple)) and not hasattr(embeddings[0], "__len__"):
            embeddings = [embeddings]
    texts = list(texts)
    if any(not isinstance(t, str) for t in texts):
        raise ValueError("texts must be strings")
    for t in texts:
        _check_text(t, "texts")
    return texts, embeddings


class MemoryStore(LifecycleMixin):
    """The store contract (docs/architecture.md, "The memory store") on top of an engine's connection and SQL."""

    def __init__(
        self,
        engine: StoreDatabase,
        *,
        schema_policy: SchemaPolicy | str = SchemaPolicy.REQUIRE_EXISTING,
        table_name_prefix: str = "",
        vector_dim: int | None = None,
        list_limit: int = DEFAULT_LIST_LIMIT,
    ) -> None:
        if not re.fullmatch(r"(?:[A-Za-z][A-Za-z0-9_]{0,19})?", table_name_prefix or ""):
            raise ValueError(
                "table_name_prefix must start with a letter and hold only letters, digits "
                f"and underscores (at most 20), got {table_name_prefix!r}"
            )
        try:
            self.schema_policy = SchemaPolicy(schema_policy)
        except ValueError:
            raise ValueError(
                f"Unknown schema_policy {schema_policy!r}; use one of {[p.name for p in SchemaPolicy]}"
            ) from None
        self.engine = engine
        self.prefix = (table_name_prefix or "").upper()
        self.vector_dim = int(vector_dim or engine.model.dim)
        self.list_limit = list_limit
        self.sql = engine.statements.store(self.prefix, self.vector_dim)
        self.mem = engine.statements.memory(self.prefix)  # memory over time (status, audit)
        self._apply_schema_policy()
        self._migrate()

    # ------------------------------------------------------------------ schema
    def _apply_schema_policy(self) -> None:
        wanted = [name for name, _ in self.sql.SCHEMA]
        names = self.engine.backend.object_names()
        if (self.schema_policy is SchemaPolicy.RECREATE or any(self.prefix + n not in names for n in wanted)
                or any(self.prefix + n in names for n in self.sql.OBSOLETE)):
            # Something to create: decide again under the write lock, as another process
            # (a second first-time setup) may be creating the same objects right now.
            with self.engine.backend.schema_lock():
                self._apply_schema_policy_locked(wanted, self.engine.backend.object_names())
        else:
            self._write_or_check_meta(fresh=False)

    def _apply_schema_policy_locked(self, wanted: list[str], names: set[str]) -> None:
        present = [n for n in wanted if self.prefix + n in names]
        missing = [name for name in wanted if name not in present]
        if self.schema_policy is SchemaPolicy.RECREATE:
            self._drop_store(names, present)
            missing = wanted
        elif self._policy_refuses(present, missing):
            raise SchemaError(self._schema_problem(missing))
        # Derived indexes an older version built and this one rebuilds differently or not at all.
        self.engine.backend.drop_objects(self.sql.OBSOLETE, [n for n in self.sql.OBSOLETE if self.prefix + n in names])
        if missing:
            self._create_missing(missing, names)
        self._write_or_check_meta(fresh=bool(missing))

    def _policy_refuses(self, present: list[str], missing: list[str]) -> bool:
        """The policy forbids creating what is missing: part of an existing store (CREATE_IF_EMPTY),
        or anything at all (REQUIRE_EXISTING)."""
        if self.schema_policy is SchemaPolicy.CREATE_IF_EMPTY:
            return bool(present and missing)
        return self.schema_policy is SchemaPolicy.REQUIRE_EXISTING and bool(missing)

    def _drop_store(self, names: set[str], present: list[str]) -> None:
        """RECREATE: the later versions' tables first (they point at the records), then the store's."""
        later = [n for n, _ in self.mem.MIGRATIONS if self.prefix + n in names]
        self.engine.backend.drop_objects(self.mem.DROP, later[::-1])
        self.engine.backend.drop_objects(self.sql.DROP, present)

    def _create_missing(self, missing: list[str], names: set[str]) -> None:
        if "RECORDS" in missing and self.schema_policy is not SchemaPolicy.RECREATE:
            # Statuses point at record seqs: with RECORDS made anew they would attach to new records.
            stale = [n for n in ("MEMORY_STATUS",) if self.prefix + n in names]
            self.engine.backend.drop_objects(self.mem.DROP, stale)
        self.engine.backend.create_objects([(n, ddl) for n, ddl in self.sql.SCHEMA if n in missing])

    def _migrate(self) -> None:
        """Add the objects later versions introduced (memory status, audit) to a store that
        lacks them, whatever the policy: only additions, so a learner's existing store keeps
        every record and gains the new tables the read paths need."""
        wanted = [n for n, _ in self.mem.MIGRATIONS]
        if all(self.prefix + n in self.engine.backend.object_names() for n in wanted):
            return
        with self.engine.backend.schema_lock():
            names = self.engine.backend.object_names()
            missing = [(n, ddl) for n, ddl in self.mem.MIGRATIONS if self.prefix + n not in names]
            if missing:
                self.engine.backend.create_objects(missing)

    def _schema_problem(self, missing: list[str]) -> str:
        return (
            f"The memory store schema (prefix {self.prefix!r}) is incomplete: missing {missing}. "
            f"Policy {self.schema_policy.name} does not create objects. Fix: run `workshop setup` "
            "(`make setup-oracle` on Oracle), or call prepare(eng) or eng.open_store() in Python."
        )

    def _write_or_check_meta(self, fresh: bool) -> None:
        want = {"schema_version": SCHEMA_VERSION, "vector_dim": str(self.vector_dim)}
        have = {r.k: r.v for r in rows_as(MetaRow, self.engine.query(self.sql.META_SELECT))}
        if all(k in have for k in want):
            self._check_meta(have, want)
            return
        # Only a store missing a key needs the write lock (opening an existing store writes nothing).
        with self.engine.transaction() as cur:
            cur.execute(self.sql.META_SELECT)
            have = {r.k: r.v for r in rows_as(MetaRow, cur.fetchall())}
            self._check_meta(have, want)
            for key, value in want.items():
                if key not in have:
                    cur.execute(self.sql.META_INSERT, {"meta_key": key, "v": value})

    @staticmethod
    def _check_meta(have: Mapping[str, object], want: Mapping[str, str]) -> None:
        """A key the store holds with another value than this workshop needs is a SchemaError."""
        for key, value in want.items():
            if key in have and have[key] != value:
                raise SchemaError(
                    f"The memory store schema has {key}={have[key]} but this workshop needs "
                    f"{value}. Fix: `workshop reset` (destroys stored memories) or use another "
                    "table_name_prefix."
                )

    # ------------------------------------------------------------------ helpers
    def _row_to_record(self, row: RecordRow | RecordHitRow | ScopedHitRow | HistoryRow) -> Record:
        """A record from a row whose first columns are RecordRow's (a hit's and a history row's are)."""
        read_text = self.engine.backend.read_text
        meta = read_text(row.metadata)
        # Profiles are unscoped; the actor identity is the record id.
        scoped = row.record_type not in PROFILE_TYPES
        kwargs = dict(
            id=row.record_id, record_type=row.record_type, content=read_text(row.content),
            metadata=json.loads(meta) if meta else None,
            user_id=row.user_id if scoped else None, agent_id=row.agent_id if scoped else None,
            thread_id=row.thread_id if scoped else None,
            created_at=str(row.created_at) if row.created_at is not None else None,
        )
        if row.record_type == "message":
            return MessageRecord(role=row.role or "user", **kwargs)
        return Record(**kwargs)

    @staticmethod
    def _scope_params(prefix: str, value: str | None, constrained: bool) -> dict[str, object]:
        # free=1 leaves the dimension open; otherwise match value (None means SQL NULL).
        return {f"{prefix}_free": 0 if constrained else 1, prefix: value}

    def _embed_chunk(self, cur: Cursor, seq: int, text: str | None, vector: Any) -> None:
        cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        if vector is not None:
            cur.execute(self.sql.CHUNK_INSERT_VECTOR,
                        {"seq": seq, "txt": text, "vec": self.engine.backend.vector_param(self._check_vector(vector))})
        elif text:
            cur.execute(self.sql.CHUNK_INSERT_TEXT, {"seq": seq, "txt": text})

    def _check_vector(self, vector: Any) -> list[float]:
        try:
            values = [float(x) for x in vector]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"embedding must be a sequence of numbers ({exc})") from None
        if len(values) != self.vector_dim:
            raise ValueError(f"embedding has {len(values)} dimensions; this store uses {self.vector_dim}")
        # Cosine distance needs a direction: NaN, infinity or all zeros would poison the ranking.
        if not all(math.isfinite(x) for x in values) or not any(values):
            raise ValueError("embedding must have finite values and at least one non-zero value")
        return values

    def _ensure_thread(self, cur: Cursor, thread_id: str, user_id: str | None, agent_id: str | None,
                       record_type: str) -> None:
        cur.execute(self.sql.THREAD_GET, {"tid": thread_id})
        thread = maybe_as(ThreadRow, cur.fetchone())
        if thread is None:
            cur.execute(self.sql.THREAD_INSERT, {"tid": thread_id, "u": user_id, "a": agent_id})
            return
        owner = thread.user_id
        # A thread belongs to the user who started it. Another user's write is refused; so is
        # a message with no user in an owned thread. (Unscoped memories attached to a thread,
        # user None, stay allowed: the contract documents them.)
        if owner is not None and user_id != owner and (user_id is not None or record_type == "message"):
            raise ValueError(
                f"thread_id {thread_id!r} belongs to another user; user_id {user_id!r} cannot write "
                "into it. Use a thread id of your own.")

    def _insert(self, cur: Any, record_type: str, rec: _NewRecord) -> int:
        cur.execute(self.sql.RECORD_GET, {"rt": record_type, "rid": rec.record_id})
        row = maybe_as(RecordRow, cur.fetchone())
        if row is not None:
            if ((row.thread_id, row.user_id, row.agent_id) != (rec.thread_id, rec.user_id, rec.agent_id)
                    and record_type not in PROFILE_TYPES):
                raise ValueError(
                    f"A {record_type} with id {rec.record_id!r} already exists in another scope (user "
                    f"{row.user_id!r}, agent {row.agent_id!r}, thread {row.thread_id!r}); record ids are unique per record "
                    "type across the store. Choose another id, or leave record_ids out to get a fresh one.")
            raise ValueError(f"A {record_type} with id {rec.record_id!r} already exists; use update() to change it")
        params = {
            "rt": record_type, "rid": rec.record_id, "tid": rec.thread_id, "u": rec.user_id, "a": rec.agent_id,
            "role": rec.role if record_type == "message" else None, "content": rec.text,
            "meta": json.dumps(rec.metadata) if rec.metadata is not None else None,
        }
        cur.execute(self.sql.RECORD_INSERT, params)
        # the generated key, read back by the record's unique key in this transaction
        return int(row_as(SeqRow, cur.execute(self.sql.RECORD_SEQ, {"rt": record_type, "rid": rec.record_id}).fetchone()).seq)

    # ------------------------------------------------------------------ add
    def add(
        self,
        texts: str | list[str],
        record_type: str = "memory",
        record_ids: str | list[str | None] | None = None,  # None in a list: an id is made for that record
        metadata: dict[str, Any] | builtins.list[dict[str, Any] | None] | None = None,
        thread_ids: str | list[str | None] | None = None,
        user_ids: str | list[str | None] | None = None,
        agent_ids: str | list[str | None] | None = None,
        embeddings: list[float] | list[list[float]] | None = None,
        index_texts: str | list[str | None] | None = None,
        roles: str | list[str] | None = None,
    ) -> list[str]:
        """Insert one or more records; returns their ids in input order. All or nothing.

        Engines that embed in Python (embedded) compute the vectors before the transaction,
        so the write lock is held only for the inserts, however large the batch."""
        _check_record_type(record_type, ADDABLE_TYPES, "add")
        texts, embeddings = _texts_and_vectors(texts, embeddings)
        if not texts:
            return []
        n = len(texts)
        metas = metadata if isinstance(metadata, list) else [metadata] * n
        if len(metas) != n:
            raise ValueError(f"metadata has {len(metas)} items but {n} texts were given")
        for m in metas:
            _check_metadata(m)
        columns = _add_columns(n, record_ids, thread_ids, user_ids, agent_ids, index_texts, roles)
        vecs = self._add_vectors(embeddings, n)
        ids = [i if i is not None else new_id(record_type) for i in columns["record_ids"]]
        if len(set(ids)) != n:
            raise ValueError("record_ids must be unique within one add() call")
        records = [_NewRecord(text, rid, meta, tid, uid, aid, role, itext if itext is not None else text, vec)
                   for text, rid, meta, tid, uid, aid, role, itext, vec in zip(
                       texts, ids, metas, columns["thread_ids"], columns["user_ids"], columns["agent_ids"],
                       columns["roles"], columns["index_texts"], vecs)]
        self._precompute_vectors(records)
        with self.engine.transaction() as cur:
            for rec in records:
                self._write_new(cur, record_type, rec)
        return ids

    def _add_vectors(self, embeddings: Any, n: int) -> builtins.list[builtins.list[float] | None]:
        """add()'s embeddings checked, one per text (None: the store embeds the text)."""
        vecs: builtins.list[Any] = list(embeddings) if embeddings is not None else [None] * n
        if len(vecs) != n:
            raise ValueError(f"embeddings has {len(vecs)} items but {n} texts were given")
        return [self._check_vector(v) if v is not None else None for v in vecs]

    def add_records(self, records: Sequence[RecordDraft], record_type: str = "memory") -> list[str]:
        """`add` with one RecordDraft per record instead of parallel lists; the same checks, ids in
        input order, all or nothing. Either every draft carries an embedding or none does."""
        drafts = _checked_drafts(records)
        vectors = [r.embedding for r in drafts if r.embedding is not None]
        return self.add([r.text for r in drafts], record_type, record_ids=[r.id for r in drafts],
                        metadata=[r.metadata for r in drafts], thread_ids=[r.thread_id for r in drafts],
                        user_ids=[r.user_id for r in drafts], agent_ids=[r.agent_id for r in drafts],
                        embeddings=vectors or None, index_texts=[r.index_text for r in drafts],
                        roles=[r.role for r in drafts])

    def _precompute_vectors(self, records: list[_NewRecord]) -> None:
        """Vectors for the records that have none, when the engine embeds in Python (before the
        write transaction); where the database embeds inside the INSERT, nothing is computed here."""
        todo = [r for r in records if r.vector is None and r.index_text]
        computed = self.engine.model.embed_for_store([r.index_text for r in todo]) if todo else None
        if computed is not None:
            for rec, vector in zip(todo, computed):
                rec.vector, rec.precomputed = vector, True

    def _write_new(self, cur: Any, record_type: str, rec: _NewRecord) -> None:
        if rec.thread_id is not None:
            self._ensure_thread(cur, rec.thread_id, rec.user_id, rec.agent_id, record_type)
        seq = self._insert(cur, record_type, rec)
        if not rec.precomputed:
            self._embed_chunk(cur, seq, rec.index_text, rec.vector)
            return
        cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        if rec.vector is not None:  # None: no direction, keyword-searchable only
            cur.execute(self.sql.CHUNK_INSERT_VECTOR, {
                "seq": seq, "txt": rec.index_text, "vec": self.engine.backend.vector_param(rec.vector)})

    def _add_profile(self, record_type: str, actor_id: str, information: str) -> str:
        check_id(actor_id, f"{record_type} id")
        if not isinstance(information, str):
            raise ValueError("information must be a string")
        scope_u = actor_id if record_type == "user_profile" else None
        scope_a = actor_id if record_type == "agent_profile" else None
        with self.engine.transaction() as cur:
            # The actor id is kept in its scope column so search can scope profiles.
            profile = _NewRecord(information, actor_id, None, None, scope_u, scope_a, None, information)
            seq = self._insert(cur, record_type, profile)
            self._embed_chunk(cur, seq, information, None)
        return actor_id

    def add_user(self, user_id: str, information: str) -> str:
        """Add a user_profile record whose id is the user id; returns it (refused if it exists)."""
        return self._add_profile("user_profile", user_id, information)

    def add_agent(self, agent_id: str, information: str) -> str:
        """Add an agent_profile record whose id is the agent id; returns it (refused if it exists)."""
        return self._add_profile("agent_profile", agent_id, information)

    # ------------------------------------------------------------------ read
    def get(self, record_type: str, record_id: str) -> Record | None:
        """The record of this type with this id, or None. Ids are unique per record type.

        A memory that is not live (superseded, forgotten, or past its expiry) comes back with
        its content and metadata withheld (None) and `status` saying why, so that no read path
        returns its words while the id stays visibly taken; `history()` shows every version."""
        _check_record_type(record_type, RECORD_TYPES, "get")
        _check_id(record_id, "record_id")
        row = first_as(RecordRow, self.engine.query(self.sql.RECORD_GET, {"rt": record_type, "rid": record_id}))
        if row is None:
            return None
        rec = self._row_to_record(row)
        if record_type in MEMORY_TYPES:
            state = self._query_status(row.seq)
            if not state.live:
                status = "expired" if state.status == "valid" else state.status
                return dataclasses.replace(rec, content=None, metadata=None, status=status)
        return rec

    def list(
        self,
        record_type: str,
        limit: int | None = OMITTED,
        thread_id: str | None = OMITTED,
        user_id: str | None = OMITTED,
        agent_id: str | None = OMITTED,
        metadata_filter: Mapping[str, object] | None = OMITTED,
        *,
        include_history: bool = False,
        newest: int | None = None,
    ) -> list[Record]:
        """Records of one type in insertion order, at most `limit` (None: all); with `newest`, only
        the newest that many are read (a bounded read of a long history), still oldest first.

        A scope argument left out does not filter; passing None asks for records with no
        value there (unscoped). `metadata_filter` matches stored metadata that contains
        every key and value (nested dicts recursively, lists by exact equality).
        Superseded, forgotten and expired memories are left out unless `include_history`.
        """
        _check_record_type(record_type, RECORD_TYPES, "list")
        if limit is OMITTED:
            limit = self.list_limit
        _check_count(limit, "limit")
        _check_count(newest, "newest")
        if metadata_filter is not OMITTED and metadata_filter is not None:
            _check_metadata(metadata_filter, "metadata_filter")
        scope = {"thread_id": thread_id, "user_id": user_id, "agent_id": agent_id}
        for name, value in scope.items():
            if value is not OMITTED:
                _check_id(value, name, optional=True)
        params = self._list_params(record_type, include_history, thread_id, user_id, agent_id)
        if limit == 0 or newest == 0:
            return []
        if newest is not None:
            params["n"] = newest
        statement = self.sql.RECORD_LIST if newest is None else self.sql.RECORD_NEWEST
        out = self._list_read(statement, params, metadata_filter, limit)
        return out if newest is None else out[::-1]

    def _list_read(self, statement: str, params: Mapping[str, object], metadata_filter: Mapping[str, object] | None,
                   limit: int | None) -> builtins.list[Record]:
        """At most `limit` rows are read; with a metadata filter, 4x that, widened (x4, the statement
        run again) until `limit` pass or no row is left."""
        n = limit if metadata_filter is OMITTED or limit is None else 4 * limit
        while True:
            rows = self.engine.query(statement, params, max_rows=n)
            out: builtins.list[Record] = self._records_kept(rows, metadata_filter, limit)
            if n is None or len(rows) < n or (limit is not None and len(out) >= limit):
                return out
            n *= 4

    def _list_params(self, record_type: str, include_history: bool, thread_id: object, user_id: object,
                     agent_id: object) -> dict[str, object]:
        """The binds of a listing: the type, whether history counts, and each scope given (a profile
        type is never scoped)."""
        unscoped = record_type in PROFILE_TYPES
        params: dict[str, object] = {"rt": record_type, "hist": 1 if include_history else 0}
        for name, value in (("tid", thread_id), ("u", user_id), ("a", agent_id)):
            constrained = value is not OMITTED and not unscoped
            params.update(self._scope_params(name, None if value is OMITTED else value, constrained))  # type: ignore[arg-type]
        return params

    def _records_kept(self, rows: builtins.list[Row], metadata_filter: Mapping[str, object] | None,
                      limit: int | None) -> builtins.list[Record]:
        """The rows read as records, those the metadata filter keeps, at most `limit`."""
        out: builtins.list[Record] = []
        for row in each_as(RecordRow, rows):
            rec = self._row_to_record(row)
            if metadata_filter is not OMITTED:
                if metadata_filter is None:
                    if rec.metadata is not None:
                        continue
                elif not metadata_matches(rec.metadata or {}, metadata_filter):
                    continue
            out.append(rec)
            if limit is not None and len(out) >= limit:
                break
        return out

    def list_thread_messages(self, thread_id: str, last_n: int | None = None) -> builtins.list[MessageRecord]:
        """The thread's messages in order; `last_n` keeps only the most recent n."""
        _check_id(thread_id, "thread_id")
        if last_n is not None and (not isinstance(last_n, int) or isinstance(last_n, bool) or last_n < 0):
            raise ValueError(f"last_n must be a non-negative integer or None, got {last_n!r}")
        msgs = self.list("message", limit=None, thread_id=thread_id)
        if last_n is not None:
            msgs = msgs[len(msgs) - last_n:] if last_n else []
        return msgs  # type: ignore[return-value]

    def search(
        self,
        query: str | None = None,
        k: int = 5,
        *,
        query_vector: builtins.list[float] | None = None,
        thread_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        exact_user_match: bool = False,
        exact_agent_match: bool = False,
        exact_thread_match: bool = False,
        record_types: set[str] | builtins.list[str] | None = None,
        metadata_filter: Mapping[str, object] | None = None,
        shared_knowledge: bool = False,
    ) -> builtins.list[tuple[Record, float]]:
        """(record, cosine distance) pairs, nearest first. `shared_knowledge=True` also reads the
        scanner's shared schema facts (core/scope.py's SHARED) in the same statement: the memory
        client's read of one scope."""
        check_k(k)
        for name, value in (("thread_id", thread_id), ("user_id", user_id), ("agent_id", agent_id)):
            _check_id(value, name, optional=True)
        types = _search_types(record_types)
        _check_search_query(query, query_vector, metadata_filter)
        params: dict[str, Any] = {"types": "," + ",".join(sorted(types)) + ","}
        params.update(self._scope_params("tid", thread_id, exact_thread_match))
        params.update(self._scope_params("u", user_id, exact_user_match))
        params.update(self._scope_params("a", agent_id, exact_agent_match))
        params.update(_shared_binds(shared_knowledge))
        one_scope = exact_user_match and exact_agent_match and not exact_thread_match
        if query is not None and len(types) == 1 and one_scope and user_id is not None and agent_id is not None:
            return self._search_scoped(query, k, next(iter(types)), (user_id, agent_id), metadata_filter,
                                       shared_knowledge)
        if query is not None:
            statement, params["q"] = self.sql.SEARCH_BY_TEXT, query
        else:
            statement, params["qv"] = self.sql.SEARCH_BY_VECTOR, self.engine.backend.vector_param(self._check_vector(query_vector))
        return self._scan(statement, params, k, metadata_filter)

    def _scan(self, statement: str, params: Mapping[str, object], k: int, metadata_filter: Mapping[str, object] | None
              ) -> builtins.list[tuple[Record, float]]:
        """The k nearest rows that pass the metadata filter: k rows are read, or with a filter 4k,
        widened (x4, the statement run again) until k pass or no row is left."""
        n = k if metadata_filter is None else 4 * k
        while True:
            rows = self.engine.query(statement, params, max_rows=n)
            out: list[tuple[Record, float]] = []
            for row in each_as(RecordHitRow, rows):
                rec = self._row_to_record(row)
                if metadata_filter is not None and not metadata_matches(rec.metadata or {}, metadata_filter):
                    continue
                out.append((rec, float(row.distance)))
                if len(out) >= k:
                    return out
            if len(rows) < n:
                return out
            n *= 4

    def _search_scoped(self, query: str, k: int, record_type: str, scope: tuple[str, str],
                       metadata_filter: Mapping[str, object] | None, shared_knowledge: bool
                       ) -> builtins.list[tuple[Record, float]]:
        """The k nearest of one type in one user+agent scope (an agent's turn), and the shared
        knowledge when asked, read from the engine's nearest-neighbour statement; widened until
        k pass the metadata filter."""
        n = k if metadata_filter is None else 4 * k
        shared = _shared_binds(shared_knowledge)
        while n <= MAX_KNN:
            rows = rows_as(ScopedHitRow, self.engine.query(
                self.sql.SEARCH_SCOPED_KNN, {"q": query, "rt": record_type, "u": scope[0], "a": scope[1], "n": n, **shared}))
            out = []
            for row in rows:
                if not row.live:
                    continue  # expired, not yet swept (superseded and forgotten ones have no vector)
                rec = self._row_to_record(row)
                if metadata_filter is None or metadata_matches(rec.metadata or {}, metadata_filter):
                    out.append((rec, float(row.distance)))
            if len(out) >= k or len(rows) < n:
                return out[:k]
            n *= 4
        # Very large k or a very selective filter: the full scan, read in widening windows.
        params: dict[str, object] = {"types": f",{record_type},", "q": query}
        params.update(self._scope_params("tid", None, False))
        params.update(self._scope_params("u", scope[0], True))
        params.update(self._scope_params("a", scope[1], True))
        return self._scan(self.sql.SEARCH_BY_TEXT, {**params, **shared}, k, metadata_filter)

    # ------------------------------------------------------------------ update
    def update(
        self,
        record_type: str,
        record_id: str,
        text: str | None = OMITTED,
        index_text: str | None = OMITTED,
        embedding: Any = OMITTED,
        metadata: dict[str, Any] | None = OMITTED,
    ) -> int:
        """Change a record: its text (re-embedded), only what is embedded (`index_text`), the
        embedding itself, or the metadata (replaced whole). Returns 1, or 0 if no such record."""
        _check_record_type(record_type, RECORD_TYPES, "update")
        _check_id(record_id, "record_id")
        _check_update(text, index_text, embedding, metadata)
        vector = self._check_vector(embedding) if embedding is not OMITTED and embedding is not None else None
        with self.engine.transaction() as cur:
            cur.execute(self.sql.RECORD_GET, {"rt": record_type, "rid": record_id})
            row = maybe_as(RecordRow, cur.fetchone())
            if row is None:
                return 0
            current_text = self._set_columns(cur, row, text, metadata)
            self._update_chunk(cur, row.seq, current_text, (text, index_text, embedding), vector)
        return 1

    def _set_columns(self, cur: Cursor, row: RecordRow, text: str | None, metadata: dict[str, Any] | None) -> str | None:
        """Write the text and the metadata update() was given; the record's text now."""
        current_text: str | None = self.engine.backend.read_text(row.content)
        if text is not OMITTED:
            cur.execute(self.sql.RECORD_SET_CONTENT, {"seq": row.seq, "content": text})
            current_text = text
        if metadata is not OMITTED:
            cur.execute(self.sql.RECORD_SET_METADATA,
                        {"seq": row.seq, "meta": json.dumps(metadata) if metadata is not None else None})
        return current_text

    def _update_chunk(self, cur: Cursor, seq: int, current_text: str | None,
                      given: tuple[str | None, str | None, Any], vector: builtins.list[float] | None) -> None:
        """What the embedding should now be, from update()'s (text, index_text, embedding)."""
        text, index_text, embedding = given
        if text is None or embedding is None:
            cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        elif vector is not None:
            chunk_text = index_text if isinstance(index_text, str) else current_text
            self._embed_chunk(cur, seq, chunk_text, vector)
        elif index_text is not OMITTED:
            self._embed_chunk(cur, seq, index_text if index_text is not None else current_text, None)
        elif text is not OMITTED:
            self._embed_chunk(cur, seq, text, None)  # "" clears the embedding

    # ------------------------------------------------------------------ delete
    def delete(self, record_type: str, record_id: str, cascade: bool = False) -> int:
        """Delete one record in one transaction; returns how many were deleted (0 or 1).

        `cascade=True` on a user or agent profile also deletes that actor's threads (with
        their messages) and the records scoped to it. record_type "thread" deletes a thread.
        """
        _check_record_type(record_type, DELETABLE_TYPES, "delete")
        _check_id(record_id, "record_id")
        if record_type == "thread":
            return self.delete_thread(record_id)
        with self.engine.transaction() as cur:
            removed = self._delete_record(cur, record_type, record_id)
            if cascade and record_type in PROFILE_TYPES:
                self._cascade_actor(cur, record_type, record_id)
        return removed

    def _delete_record(self, cur: Cursor, record_type: str, record_id: str) -> int:
        cur.execute(self.sql.RECORD_GET, {"rt": record_type, "rid": record_id})
        row = maybe_as(RecordRow, cur.fetchone())
        if row is None:
            return 0
        self._delete_seq(cur, row.seq)
        return 1

    def _delete_seq(self, cur: Cursor, seq: int) -> None:
        """One record's rows: its status, its chunk, the record."""
        cur.execute(self.mem.STATUS_DELETE, {"seq": seq})
        cur.execute(self.sql.CHUNK_DELETE, {"seq": seq})
        cur.execute(self.sql.RECORD_DELETE, {"seq": seq})

    def _cascade_actor(self, cur: Cursor, record_type: str, actor_id: str) -> None:
        column = "u" if record_type == "user_profile" else "a"
        cur.execute(self.sql.THREADS_OF_USER if column == "u" else self.sql.THREADS_OF_AGENT, {"actor": actor_id})
        for thread in rows_as(ThreadIdRow, cur.fetchall()):
            self._delete_thread_rows(cur, thread.thread_id)
        scoped = self.sql.SCOPED_CHILD_SEQS_OF_USER if column == "u" else self.sql.SCOPED_CHILD_SEQS_OF_AGENT
        types = "," + ",".join(sorted(MEMORY_TYPES | {"message"})) + ","
        cur.execute(scoped, {"actor": actor_id, "types": types})
        for child in rows_as(SeqRow, cur.fetchall()):
            self._delete_seq(cur, child.seq)

    def _delete_thread_rows(self, cur: Cursor, thread_id: str) -> int:
        cur.execute(self.mem.THREAD_STATUS_DELETE, {"tid": thread_id})
        cur.execute(self.sql.THREAD_CHUNKS_DELETE, {"tid": thread_id})
        cur.execute(self.sql.THREAD_RECORDS_DELETE, {"tid": thread_id})
        cur.execute(self.sql.THREAD_DELETE, {"tid": thread_id})
        return max(cur.rowcount, 0)

    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread with its messages and memories in one transaction; returns 1 or 0."""
        _check_id(thread_id, "thread_id")
        with self.engine.transaction() as cur:
            return self._delete_thread_rows(cur, thread_id)

    # ------------------------------------------------------------------ misc
    def count(self, record_type: str | None = None) -> int:
        """How many records of this type (None: of every type) the store holds."""
        if record_type is not None:
            _check_record_type(record_type, RECORD_TYPES, "count")
        types = "," + ",".join(sorted([record_type] if record_type else RECORD_TYPES)) + ","
        return self._count(self.sql.RECORD_COUNT, {"types": types})

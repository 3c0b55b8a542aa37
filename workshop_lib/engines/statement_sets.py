"""The typed set of statements the memory store runs.

Each engine's statement module (embedded/sql.py, oracle/sql.py) fills every field in its
own dialect; the store reads them as `store.sql.NAME`. The list of names lives here once,
so the two dialects cannot drift apart (a missing statement fails when the set is built).
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class StoreStatements:
    META_SELECT: str
    META_INSERT: str
    RECORD_GET: str
    RECORD_INSERT: str
    RECORD_LIST: str
    RECORD_SET_CONTENT: str
    RECORD_SET_METADATA: str
    RECORD_DELETE: str
    RECORD_COUNT: str
    CHUNK_DELETE: str
    CHUNK_INSERT_TEXT: str
    CHUNK_INSERT_VECTOR: str
    THREAD_GET: str
    THREAD_INSERT: str
    THREAD_DELETE: str
    THREAD_CHUNKS_DELETE: str
    THREAD_RECORDS_DELETE: str
    THREADS_OF_USER: str
    THREADS_OF_AGENT: str
    SCOPED_CHILD_SEQS_OF_USER: str
    SCOPED_CHILD_SEQS_OF_AGENT: str
    SEARCH_BY_TEXT: str
    SEARCH_BY_VECTOR: str
    SEARCH_SCOPED_KNN: str
    KEYWORD_SEARCH: str
    HYBRID_RRF: str
    VECTOR_RANKED: str
    SCHEMA: list[tuple[str, list[str]]]   # (object name, its DDL statements), in creation order
    DROP: dict[str, str]                  # object name -> DROP statement
    OBSOLETE: dict[str, str]              # objects of older versions to drop when a store is opened


# The single-statement fields, in declaration order.
STATEMENT_NAMES: list[str] = [f.name for f in fields(StoreStatements) if f.type == "str"]

"""The Oracle engine: Oracle AI Database (23ai / 26ai) through python-oracledb thin mode.

Embeddings are computed in the database by the ONNX model ALL_MINILM_L12_V2
(`VECTOR_EMBEDDING`), full text by an Oracle Text CONTEXT index (`CONTAINS` / `SCORE`),
and vectors are searched exactly (the store has no vector index: see SCHEMA in sql.py). Every statement comes from
workshop_lib/engines/oracle/sql.py. The database is prepared by `make setup-oracle`
(workshop_lib/tools/oracle_bootstrap.py); this module and connection.py only connect and run statements.

Settings (workshop_lib.config.oracle_setting / environment):
  ORACLE_DSN              host:port/service, an Easy Connect string or a tnsnames alias (required)
  ORACLE_APP_USER / ORACLE_APP_PASSWORD  the workshop's application user (AGENT); ORACLE_USER /
                                         ORACLE_PASSWORD are still read when these are unset
  ORACLE_CONFIG_DIR       folder with tnsnames.ora (Autonomous Database wallet folder)
  ORACLE_WALLET_DIR / ORACLE_WALLET_PASSWORD   wallet for mutual TLS (Autonomous Database)
  ORACLE_CONNECT_TIMEOUT  overall connect deadline in seconds, retries included (default 60)
  ORACLE_SUPPLYCHAIN_PASSWORD            password of the SUPPLYCHAIN owner (default ORACLE_APP_PASSWORD)
  ORACLE_READER_USER / ORACLE_READER_PASSWORD  the user run_sql's queries run as (default SC_READER):
                                         CREATE SESSION and SELECT on the SUPPLYCHAIN tables only
  ORACLE_RERANK_MODEL     optional in-database ONNX cross-encoder used by rerank()
  ORACLE_RERANK_PARAMS    optional JSON parameters for DBMS_VECTOR.RERANK (third-party reranker)
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import oracledb

from workshop_lib import config
from workshop_lib.engines.base import Engine, EngineTraits, MemoryFactory, ResetPlan
from workshop_lib.engines.dbtypes import Cursor, Row
from workshop_lib.engines.oracle import sql as statements_module
from workshop_lib.engines.oracle import text_query
from workshop_lib.engines.oracle.backend import OracleBackend
from workshop_lib.engines.oracle.connection import (
    _MAX_VARCHAR_BYTES,
    EMPTY_TEXT,
    OracleCursor,
    connect_oracle,
    require_driver,
    require_dsn,
)
from workshop_lib.engines.oracle.errors import OracleWorkshopError
from workshop_lib.engines.oracle.model import OracleModel
from workshop_lib.engines.oracle.supplychain import OracleSupplyChain
from workshop_lib.engines.statement_sets import EngineStatements, SupplyChainStatements


# --------------------------------------------------------------------------- engine
def reset_plan(force: bool = False) -> ResetPlan:
    """The store's tables in the AGENT schema, recreated through a connection; SUPPLYCHAIN stays."""
    return ResetPlan("every memory-store table of the Oracle AGENT schema and Part 5's caches")


class OracleEngine(Engine):
    """Thread-safe: one re-entrant lock serialises every use of the store's connection (a
    cursor or a transaction holds it until it is closed), so one thread's commit or rollback
    never ends another thread's transaction. run_sql's queries use a second connection, as
    the reader user, under a lock of its own (read_only_query)."""

    name = "oracle"
    model: OracleModel
    supplychain: OracleSupplyChain
    traits = EngineTraits(reset_plan=reset_plan, scratch_copies=False, serialise_requests=True)
    statements = EngineStatements(
        store=statements_module.statements, memory=statements_module.memory_statements,
        docs=statements_module.DOCS, catalog=statements_module.CATALOG, chat=statements_module.CHAT,
        supplychain=SupplyChainStatements(count=statements_module.sc_count, first_rows=statements_module.sc_select),
        agent_queries=statements_module.AGENT_QUERIES, ping=statements_module.PING,
        keyword_expression=text_query.keyword_expression, no_match=text_query.NO_MATCH_EXPRESSION,
        native_hybrid=statements_module.NATIVE_HYBRID,
    )

    def __init__(self, *, dsn: str | None = None, user: str | None = None, password: str | None = None,
                 timeout: float | None = None, progress: bool = True,
                 memory: MemoryFactory | None = None) -> None:
        """`memory`: see Engine (connect() hands it in)."""
        super().__init__(memory)
        require_driver()
        self.dsn = require_dsn(dsn)
        self.user = (user or config.oracle_setting("ORACLE_APP_USER")).upper()
        self._password = password if password is not None else config.oracle_setting("ORACLE_APP_PASSWORD")
        self._timeout = timeout
        self._progress = progress
        self._lock = threading.RLock()
        self.model = OracleModel(self, self._read_cursor)
        self.backend = OracleBackend(self, self._read_cursor)
        self.supplychain = OracleSupplyChain(self, self._tracer, self._read_cursor, timeout=timeout, progress=progress)
        self._conn = self._connect()

    def _connect(self) -> oracledb.Connection:
        return connect_oracle(self.user, self._password, self.dsn, timeout=self._timeout,
                              progress=self._progress, what=f"Oracle ({self.user})")

    def _live_conn(self) -> oracledb.Connection:
        # After a database restart the old session is gone; reconnect once, quietly.
        with self._lock:
            if not self._conn.is_healthy():
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = self._connect()
            return self._conn

    # ---------------------------------------------------------------- binds
    def bind_value(self, name: str, value: Any, *, embed_only: bool = False, store_content: bool = False,
                   lob: bool = False) -> Any:
        """`value` as this driver binds it under `name`; `lob`: a text as a temporary CLOB (a batch
        whose other rows hold one)."""
        if lob and isinstance(value, str):
            return self._clob(value)
        if store_content and value == "":
            return EMPTY_TEXT  # the store keeps explicit empty content; Oracle would store NULL
        if isinstance(value, str):
            if embed_only:
                return value[:statements_module.EMBED_INPUT_CHARS]
            if len(value) > _MAX_VARCHAR_BYTES // 4 and len(value.encode("utf-8")) > _MAX_VARCHAR_BYTES:
                return self._clob(value)
        if isinstance(value, bool):
            return int(value)
        return value

    def _clob(self, value: str) -> oracledb.LOB:
        """A temporary CLOB holding `value` (Connection.createlob), for a text over 4,000 bytes
        and for every text of a batch that holds one."""
        lob: oracledb.LOB = self._live_conn().createlob(oracledb.DB_TYPE_CLOB, value)
        return lob

    # ---------------------------------------------------------------- interface
    @contextlib.contextmanager
    def _cursor(self) -> Iterator[OracleCursor]:
        with self._lock:
            raw = self._live_conn().cursor()
            try:
                yield OracleCursor(self, raw, self._tracer)
            finally:
                raw.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[OracleCursor]:
        with self._lock:
            conn = self._live_conn()
            raw = conn.cursor()
            try:
                yield OracleCursor(self, raw, self._tracer)
            except BaseException:
                with contextlib.suppress(oracledb.Error):
                    conn.rollback()
                raise
            else:
                try:
                    conn.commit()
                except oracledb.Error as exc:
                    raise OracleWorkshopError("commit", exc) from exc
            finally:
                raw.close()

    def _rows(self, cur: Cursor, max_rows: int | None = None) -> list[Row]:
        # A statement that returns no rows (DDL, DML) has no description: nothing to fetch.
        if not (isinstance(cur, OracleCursor) and cur.raw.description):
            return []
        return cur.fetchall() if max_rows is None else cur.fetchmany(max_rows)

    def __str__(self) -> str:
        return f"{self.user}@{self.dsn} with {self.model.name} ({self.model.dim} dims, in-database)"

    def close(self) -> None:
        self.supplychain.close_reader()
        with contextlib.suppress(Exception):
            self._conn.close()



"""The SUPPLYCHAIN sample schema on one engine (`eng.supplychain`): loading it, reading its
dictionary, the nearest-ports query and the agent's read-only queries. Its row counts and first
rows are plain queries (data/supplychain.py: counts, sample, on eng.statements.supplychain)."""
from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from workshop_lib.engines.database import Database, Tracer, entered, entry_point
from workshop_lib.engines.dbtypes import Reader, Row, TableSpec

if TYPE_CHECKING:
    from workshop_lib.engines.readonly import QueryResult


# The schema's tables, columns and foreign keys, each a row of Oracle's dictionary views as a dict
# (keys: owner, table, column, comment, data_type, type_detail, nullable, columns, ref_table, ref_columns).
DataDictionary = dict[str, list[dict[str, Any]]]


class SupplyChainSchema(abc.ABC):
    """Everything an engine does with SUPPLYCHAIN. `supplychain.seed(eng)` (the public call)
    renders the dataset and hands it to `load`."""

    # the dialect's expression for the whole days from `{start}` to `{end}` (two date columns)
    days_between: str = ""
    # the dialect's literal of a `{date}` (YYYY-MM-DD), for the days up to the data's own date
    date_literal: str = ""

    def __init__(self, engine: Database, tracer: Tracer, reader: Reader) -> None:
        """`engine`: the database SUPPLYCHAIN lives in; `tracer`: its trace, which the read-only
        boundary reports its statements to (they run on a connection or process of their own);
        `reader`: its cursor for reads that hold its lock over several statements."""
        self._engine = engine
        self._tracer = tracer
        self._read = reader

    @abc.abstractmethod
    def load(self, tables: Sequence[TableSpec], rows: Mapping[str, Sequence[Row]], *, progress: bool = True) -> dict[str, int]:
        """Create SUPPLYCHAIN and load every row and comment (idempotent); returns the row count per table."""

    @entry_point("supplychain.data_dictionary")
    def data_dictionary(self, owner: str) -> DataDictionary:
        """Tables, columns and foreign keys of a schema with their comments."""
        return self._read_dictionary(owner)

    @abc.abstractmethod
    def _read_dictionary(self, owner: str) -> DataDictionary:
        """data_dictionary, in the engine's own way."""

    @abc.abstractmethod
    def nearest_ports(self, lon: float, lat: float) -> list[Row]:
        """(port name, UN/LOCODE, distance in km) of the three ports nearest a point:
        Oracle Spatial's SDO_NN on Oracle, the haversine formula in SQL on the embedded engine."""

    def read_only_query(self, sql: str, *, max_rows: int = 50, timeout_s: float = 5.0,
                        params: Mapping[str, Any] | None = None) -> QueryResult:
        """One read-only query over SUPPLYCHAIN (the agent's run_sql tool): a QueryResult, or
        engines.readonly.SqlRefused naming why the statement was refused or stopped. `params`
        binds values by name (:p0 ...): str, int, float or datetime.date."""
        with entered("supplychain.read_only_query"):
            self._tracer.record(sql, params)
            return self._read_only(sql, max_rows=max_rows, timeout_s=timeout_s, params=params)

    @abc.abstractmethod
    def _read_only(self, sql: str, *, max_rows: int, timeout_s: float,
                   params: Mapping[str, Any] | None) -> QueryResult:
        """read_only_query, on the engine's own read-only path (a reader user, a worker process)."""

    @contextlib.contextmanager
    def unordered_reads_reversed(self) -> Iterator[bool]:
        """Inside this block, rows that a statement does not order come back in another order
        where the engine can do that (yields True), so a check can tell a result that depends on
        the order rows happen to be read in. Engines without such a switch yield False."""
        yield False

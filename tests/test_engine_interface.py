"""The Engine interface stays narrow: sixteen documented members, the rest grouped into
small objects (statements, model, supplychain, backend), and engines add no public member
the interface does not list, besides their own connection settings."""
from __future__ import annotations

import inspect
import re

import pytest

from workshop_lib import connect
from workshop_lib.engines.base import Engine, EngineTraits
from workshop_lib.engines.embedded.engine import EmbeddedEngine
from workshop_lib.engines.model import EmbeddingModel
from workshop_lib.engines.oracle.engine import OracleEngine
from workshop_lib.engines.statement_sets import EngineStatements
from workshop_lib.engines.store_backend import StoreBackend
from workshop_lib.engines.supplychain_schema import SupplyChainSchema

INTERFACE = {"name", "traits", "user_id", "agent_id", "scoped", "store", "open_store", "memory",
             "transaction", "query", "trace", "statements", "model", "supplychain",
             "backend", "close"}
# What each engine keeps of its own: where it points (not part of the interface). The driver
# connection is private (`_conn`): nothing outside the engine packages reaches it.
ENGINE_OWN = {EmbeddedEngine: {"path", "folder", "supplychain_path"},
              OracleEngine: {"dsn", "user", "bind_value"}}


def public_members(cls: type) -> set[str]:
    names = {n for n in dir(cls) if not n.startswith("_")}
    names |= {n for n in getattr(cls, "__annotations__", {}) if not n.startswith("_")}
    init = inspect.getsource(vars(cls)["__init__"]) if "__init__" in vars(cls) else ""
    names |= set(re.findall(r"self\.([a-z]\w*)\s*(?::[^=]+)?=(?!=)", init))
    return names


def test_the_engine_interface_has_sixteen_members():
    assert public_members(Engine) == INTERFACE


def test_every_member_is_documented_in_the_engine_docstring():
    doc = Engine.__doc__ or ""
    undocumented = [n for n in INTERFACE if not re.search(rf"\b{n}\b", doc)]
    assert not undocumented, f"list these in Engine's docstring: {undocumented}"
    for name in INTERFACE:
        member = inspect.getattr_static(Engine, name, None)
        if callable(member) or isinstance(member, property):
            assert (getattr(member, "__doc__", None) or "").strip(), f"Engine.{name} has no docstring"


@pytest.mark.parametrize("cls", [EmbeddedEngine, OracleEngine])
def test_engines_add_nothing_public_but_their_connection(cls):
    extra = public_members(cls) - INTERFACE - ENGINE_OWN[cls]
    assert not extra, f"{cls.__name__} adds {sorted(extra)}: put it on its statements, model, supplychain or backend"


@pytest.mark.parametrize("cls", [EmbeddedEngine, OracleEngine])
def test_each_engine_fills_the_grouped_parts(cls):
    assert isinstance(cls.statements, EngineStatements) and isinstance(cls.traits, EngineTraits)
    source = inspect.getsource(cls.__init__)
    for part in ("model", "supplychain", "backend"):
        assert f"self.{part} = " in source or f"self.{part}, " in source or f".{part}, " in source, part


def test_the_grouped_parts_are_abstract_where_an_engine_must_answer():
    assert {"embed", "count_tokens", "token_spans"} <= EmbeddingModel.__abstractmethods__
    assert {"load", "_read_dictionary", "nearest_ports", "_read_only"} <= SupplyChainSchema.__abstractmethods__
    assert {"object_names", "create_objects", "drop_objects",
            "vector_param"} <= StoreBackend.__abstractmethods__


def test_the_embedded_engine_answers_through_its_parts(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        assert len(eng.model.embed(["a voyage"])[0]) == eng.model.dim == 256
        assert eng.model.thresholds.min_score > 0
        assert {"RECORDS", "RECORD_CHUNKS"} <= eng.backend.object_names()
        assert eng.query(eng.statements.ping) == [(1,)]
        assert eng.statements.keyword_expression("") is None and eng.statements.no_match
        assert eng.store.sql.RECORD_GET == eng.statements.store("", eng.model.dim).RECORD_GET
        assert str(tmp_path) in str(eng) and "embedded" in repr(eng)
        assert EmbeddedEngine.traits.scratch_copies and not EmbeddedEngine.traits.serialise_requests
    finally:
        eng.close()

"""Shared fixtures: every suite runs on the embedded engine, and on Oracle when
ORACLE_DSN points at a bootstrapped database (`pytest -m oracle`)."""
from __future__ import annotations

import os
import uuid

import pytest

from workshop_lib import connect
from workshop_lib.core.store import MemoryStore, SchemaPolicy

ORACLE_SKIP_REASON = (
    "Oracle lane skipped: ORACLE_DSN is not set. To run it, start the database "
    "(docker compose -f .devcontainer/docker-compose.yml up -d oracle), run `make setup-oracle`, "
    "export ORACLE_DSN=localhost:1521/FREEPDB1 and run `pytest -m oracle`."
)

ENGINES = ["embedded", pytest.param("oracle", marks=pytest.mark.oracle)]


def _require(name: str) -> None:
    if name == "oracle" and not os.environ.get("ORACLE_DSN"):
        pytest.skip(ORACLE_SKIP_REASON)


@pytest.fixture(params=ENGINES)
def engine_name(request) -> str:
    _require(request.param)
    return request.param


@pytest.fixture
def fresh_engine(engine_name, tmp_path):
    """An engine whose memory store is empty (a temporary folder, or a fresh prefix on Oracle)."""
    if engine_name == "embedded":
        eng = connect("embedded", path=tmp_path)
        yield eng
        eng.close()
        return
    eng = connect("oracle")
    prefix = "T" + uuid.uuid4().hex[:8].upper() + "_"
    scratch = eng.open_store(SchemaPolicy.RECREATE, table_name_prefix=prefix)
    yield eng
    eng.backend.drop_objects(scratch.mem.DROP, [n for n, _ in scratch.mem.MIGRATIONS][::-1])  # memory status, audit
    eng.backend.drop_objects(scratch.sql.DROP, [n for n, _ in scratch.sql.SCHEMA])
    eng.close()


@pytest.fixture
def store(fresh_engine) -> MemoryStore:
    return fresh_engine.store


@pytest.fixture(scope="session", params=ENGINES)
def seeded_engine(request, tmp_path_factory):
    """SUPPLYCHAIN seeded and scanned into memories, shared by the read-only retrieval tests."""
    _require(request.param)
    from workshop_lib.data import supplychain
    from workshop_lib.parts import scanner

    if request.param == "embedded":
        eng = connect("embedded", path=tmp_path_factory.mktemp("seeded"))
    else:
        eng = connect("oracle")
    supplychain.seed(eng)
    scanner.write_facts(eng, scanner.scan_schema(eng, "SUPPLYCHAIN"), progress=False)
    yield eng
    eng.close()


def pytest_collection_modifyitems(config, items):
    """Every test that executes notebooks is slow: `make test-fast` (-m "not slow") leaves them out."""
    for item in items:
        if item.get_closest_marker("notebooks"):
            item.add_marker(pytest.mark.slow)

"""Shared fixtures: every suite runs on the embedded engine, and on Oracle when
ORACLE_DSN points at a bootstrapped database (`pytest -m oracle`)."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

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


def answers_engine(name: str, folder, *, docs: bool = False):
    """An engine with the seed, the scanned schema facts and the catalog (and, with `docs`, Part 8's
    index promoted): what the chat service's answer path reads."""
    from workshop_lib.parts.chat import answer_eval

    _require(name)
    engine = connect("embedded", path=folder) if name == "embedded" else connect("oracle")
    answer_eval.prepare_engine(engine, docs=docs)
    return engine


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


def run_notebook(nb, folder, data_dir, monkeypatch, *, engine: str = "embedded", allow_errors: bool = False):
    """Execute a notebook with nbclient the way every notebook test does: its folder as the
    working directory, a data folder of its own, the plots drawn off screen and no LLM.
    On the Oracle engine without ORACLE_DSN the test is skipped with the reason."""
    from nbclient import NotebookClient

    if engine == "oracle":
        _require("oracle")
    monkeypatch.setenv("WORKSHOP_ENGINE", engine)
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(data_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("WORKSHOP_LLM", "off")
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return nb


def graded_cells(nb) -> list:
    """The check cells nbgrader grades."""
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


class SolutionRuns:
    """Each solution notebook executed once per engine per test session, "Run All" twice in one kernel
    as a learner does (the second pass shows every cell can be run again). Tests that only read the
    outputs share it; a test that needs a variant (a wrong TODO, cells moved) runs its own kernel and
    says why. The notebooks returned are shared: copy one before changing it."""

    def __init__(self, tmp_path_factory) -> None:
        self._tmp = tmp_path_factory
        self._runs: dict[tuple[Path, str], tuple] = {}

    def get(self, path: Path, engine: str = "embedded") -> tuple:
        """(the notebook with both passes' outputs, the number of cells in one pass)."""
        import nbformat

        if (path, engine) not in self._runs:
            nb = nbformat.read(path, as_version=4)
            once = len(nb.cells)
            nb.cells = nb.cells + copy.deepcopy(nb.cells)
            with pytest.MonkeyPatch.context() as monkeypatch:
                run_notebook(nb, path.parent, self._tmp.mktemp(f"{path.parent.name}-{engine}"), monkeypatch,
                             engine=engine, allow_errors=True)
            self._runs[path, engine] = (nb, once)
        return self._runs[path, engine]


@pytest.fixture(scope="session")
def solution_runs(tmp_path_factory) -> SolutionRuns:
    return SolutionRuns(tmp_path_factory)


def cell_errors(cells) -> list[tuple[int, str]]:
    """(cell index, traceback) of every error output."""
    return [(i, "\n".join(out.traceback)) for i, cell in enumerate(cells)
            for out in cell.get("outputs", []) if out.output_type == "error"]


class MasterCache:
    """What `workshop grade` builds before it grades anything (scratch.Master.build: nbgrader's
    generate_assignment for every Part and a prepared database, about 10 s), built once per test session
    for each content of what it reads from the source folder (nbgrader_config.py and solutions/; a copy
    of the checkout has the same content). The build is deterministic for that content; each grading run
    gets its own copy of the built folder (a run's notebooks never touch the cached one), so what is
    graded, and how, is unchanged."""

    def __init__(self, tmp_path_factory) -> None:
        from workshop_lib.tools.grading import scratch

        self._tmp = tmp_path_factory
        self._scratch = scratch
        self._build = scratch.Master.build
        self._built: dict[str, scratch.Master] = {}

    @staticmethod
    def _key(source_root: Path) -> str:
        digest = hashlib.sha256()
        read = [source_root / "nbgrader_config.py", *sorted((source_root / "solutions").rglob("*"))]
        for path in read:
            if path.is_file() and ".ipynb_checkpoints" not in path.parts:
                digest.update(str(path.relative_to(source_root)).encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()

    def build(self, source_root: Path, where: Path):
        key = self._key(Path(source_root))
        if key not in self._built:
            self._built[key] = self._build(source_root, self._tmp.mktemp("master") / "master")
        master = self._built[key]
        shutil.copytree(master.where, where, symlinks=True, dirs_exist_ok=True)
        return dataclasses.replace(master, where=Path(where))

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """grade_folder builds through the cache while the block runs."""
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(self._scratch.Master, "build", self.build)
            yield


@pytest.fixture(scope="session")
def master_cache(tmp_path_factory) -> MasterCache:
    return MasterCache(tmp_path_factory)


@pytest.fixture
def shared_master(master_cache) -> Iterator[None]:
    """grade_folder in this test reuses the session's built Master (see MasterCache)."""
    with master_cache.installed():
        yield

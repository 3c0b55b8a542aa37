"""Shared fixtures: every suite runs on the embedded engine, and on Oracle when
ORACLE_DSN points at a bootstrapped database (`pytest -m oracle`)."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import itertools
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

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


@pytest.fixture(scope="module", params=ENGINES)
def eng(request, tmp_path_factory):
    """A module's own answering engine (answers_engine), on each engine in turn, unless the module
    defines its own `eng`."""
    engine = answers_engine(request.param, tmp_path_factory.mktemp("answering"))
    yield engine
    engine.close()


_talkers = itertools.count()


def talk(service, prefix: str, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(answer, mode) of each (thread, text) turn, said by a user of its own (no memory of another test's)."""
    return conversation(service, f"{prefix}-{next(_talkers)}", turns)


def conversation(service, user: str, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(answer, mode) of each (thread, text) turn one user sends the chat service, as POST /chat would."""
    out: list[tuple[str, str]] = []
    threads: dict[str, str] = {}
    for thread, text in turns:
        body, mode = service.answer({"question": text, "thread_id": threads.get(thread), "user_id": user,
                                     "agent": False})
        threads.setdefault(thread, body["thread_id"])
        out.append((body["answer"], mode))
    return out


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A module's own chat service over an embedded answering engine (answers_engine), unless the module
    defines its own `service`."""
    from workshop_lib.parts.chat.app import ChatService

    engine = answers_engine("embedded", tmp_path_factory.mktemp("service"))
    yield ChatService(engine)
    engine.close()


@pytest.fixture(scope="module")
def docs_eng(tmp_path_factory):
    """A module's own answering engine with Part 8's index promoted (embedded only: on Oracle this
    would move the learner's alias)."""
    engine = answers_engine("embedded", tmp_path_factory.mktemp("answering-docs"), docs=True)
    yield engine
    engine.close()


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


# ---- The suite on every core (pytest-xdist; pyproject's addopts: -n auto --dist loadscope) ----
# One worker runs each group of tests whole, one group after another: a test module is a group (its
# module fixtures are built once), unless GROUPS below names another group for the module or the test.
# Session fixtures are built once per worker; each worker has its own tmp_path_factory folder (so its
# own databases, notebook runs, grading scratch and JupyterLab folders).
GROUPS = {
    # Durations bounded in the test (a time limit, cell limits, a budget), and every test that grades end
    # to end (a grading run keeps both cores busy; they share the session's Master, MasterCache): on one
    # worker one after another, so none of them runs beside another and starves its bounds.
    "tests/test_grading.py": "timed",
    "tests/test_hints.py::test_grading_round_trip_shows_attempts_and_hints": "timed",
    "tests/test_judge_split.py::test_a_todo_that_hangs_or_floods_costs_only_its_own_points": "timed",
    "tests/test_limits.py": "timed",
    "tests/test_chat_slow_clients.py": "timed",
    # Tests that read the solution notebooks' runs (conftest.SolutionRuns: each notebook once per engine).
    "tests/test_learner_path.py": "solution-runs",
    "tests/test_notebooks.py::test_learner_notebook_stops_at_first_todo": "solution-runs",
}
# The longest groups start first, so the workers finish together (the others keep the collection's order);
# test_judge_split.py is the longest of `make test-fast`.
FIRST_GROUPS = ("timed", "solution-runs", "tests/test_judge_split.py")
MAX_WORKERS = 4  # more workers wait on the longest group and each builds its own session fixtures


def group_of(nodeid: str) -> str:
    """The group of a test: GROUPS' entry for the longest prefix of its id (a module, a test or a
    test with its parameters), else its module."""
    listed = [key for key in GROUPS if nodeid == key or nodeid.startswith((key + "::", key + "["))]
    return GROUPS[max(listed, key=len)] if listed else nodeid.split("::", 1)[0]


def pytest_xdist_auto_num_workers(config) -> int | None:
    """`-n auto`: one worker per core this process may use, at most MAX_WORKERS
    (PYTEST_XDIST_AUTO_NUM_WORKERS, when set, decides instead)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


class GroupScheduling(LoadScopeScheduling):
    """xdist's `--dist loadscope` with group_of as the scope. (xdist's own `--dist loadgroup` with
    `xdist_group` marks would do the same, but with pytest 9.2 it no longer groups anything:
    pytest-xdist issue 1386.)"""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)


def pytest_xdist_make_scheduler(config, log):
    return GroupScheduling(config, log) if config.getvalue("dist") == "loadscope" else None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Every test that executes notebooks is slow: `make test-fast` (-m "not slow") leaves them out.
    On an xdist worker, the FIRST_GROUPS go first (the order the groups are handed out in)."""
    for item in items:
        if item.get_closest_marker("notebooks"):
            item.add_marker(pytest.mark.slow)
    result = yield  # pytest orders the tests by their fixtures
    if hasattr(config, "workerinput"):  # every worker collects the same tests in the same order
        first = {name: i for i, name in enumerate(FIRST_GROUPS)}
        items.sort(key=lambda item: first.get(group_of(item.nodeid), len(first)))  # stable
    return result


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
    says why. The notebooks returned are shared: copy one before changing it. With `-n auto` the tests
    that read it are one group (GROUPS), so each notebook still runs once."""

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
    graded, and how, is unchanged. With `-n auto` the grading tests are one group (GROUPS): it is built once."""

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


def to_stored_precision(converted: float, stored: float) -> str:
    """A converted figure as the answers write it: rounded to the significant figures of the stored one, three at
    least, then with two decimals (15.6 knots is "28.90" km/h, not 28.89)."""
    digits = max(3, len(f"{stored:g}".lstrip("-0.").replace(".", "")))
    rounded = float(f"{converted:.{digits}g}")
    return (f"{int(rounded):,}" if abs(rounded) >= 10000 else str(int(rounded))) if rounded.is_integer() else f"{rounded:,.2f}"

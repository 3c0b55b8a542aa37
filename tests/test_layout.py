"""The house rules that keep the two engines apart: engine-specific SQL and engine
branches live only in the engine packages (workshop_lib/engines/embedded, workshop_lib/engines/oracle)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "workshop_lib"
ENGINE_PACKAGES = (LIB / "engines",)  # the engines and the statements they share
HINTS = LIB / "hints"  # hint texts quote the SQL a learner writes in a notebook; nothing there runs it
# Part 6's count_rows TODO is a one-line query the learner writes; its check quotes it and runs the
# reference the same way (through read_only_query), so that statement lives with the TODO.
LEARNER_SQL = (HINTS, LIB / "checks")
# A statement keyword at the start of a string literal: SQL written outside an engine.
SQL_STRING = re.compile(r"""(?:f|rf|fr)?(?:\"\"\"|\"|')\s*(SELECT\b|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|"""
                        r"""CREATE\s+(?:TABLE|INDEX|VIEW|OR)|DROP\s+(?:TABLE|INDEX|VIEW)|MERGE\s+INTO|PRAGMA\s|ATTACH\s)""",
                        )  # upper case, as the project writes SQL (prose like "select the rows" is fine)
# eng.name == "oracle", name != 'embedded', engine_name() == "oracle", name in ("oracle", ...)
ENGINE_BRANCH = re.compile(r"""\b\w*(?:name|engine)(?:\(\))?\s*(?:==|!=)\s*['"](?:oracle|embedded)['"]"""
                           r"""|name\s+in\s+[(\[{]\s*['"](?:oracle|embedded)""")
# An engine's own classes and helpers (its store files, its model); the engines' statement modules
# and the Oracle bootstrap (a command of its own) may be imported by name.
ENGINE_INTERNALS = re.compile(r"""workshop_lib\.engines\.(?:embedded|oracle)\.(?:engine|embedder)\b"""
                              r"""|from\s+workshop_lib\.engines\.(?:embedded|oracle)\s+import\s+.*\b(?:engine|embedder)\b""")


def _library_files() -> list[Path]:
    return [p for p in LIB.rglob("*.py") if not any(pkg in p.parents for pkg in ENGINE_PACKAGES)]


def test_no_sql_strings_outside_the_engine_packages():
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()[:90]}"
             for p in _library_files() if not any(d in p.parents for d in LEARNER_SQL)
             for i, line in enumerate(p.read_text().splitlines(), 1) if SQL_STRING.search(line)]
    assert not found, "SQL belongs in workshop_lib/engines/embedded/sql.py or workshop_lib/engines/oracle/sql.py:\n" + "\n".join(found)


def test_no_engine_name_branches_outside_the_engine_packages():
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()[:90]}"
             for p in _library_files() for i, line in enumerate(p.read_text().splitlines(), 1)
             if ENGINE_BRANCH.search(line)]
    assert not found, "ask the engine (its statements, model, supplychain or backend) instead of branching on its name:\n" + "\n".join(found)


def test_no_engine_internals_imported_outside_the_engine_packages():
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()[:90]}"
             for p in _library_files() for i, line in enumerate(p.read_text().splitlines(), 1)
             if ENGINE_INTERNALS.search(line)]
    assert not found, "ask the engine (a method, or engine_class(name) before connecting) instead:\n" + "\n".join(found)


def test_the_rules_would_catch_a_violation():
    assert SQL_STRING.search('    rows = eng.query("SELECT COUNT(*) FROM SUPPLYCHAIN.PORTS")')
    assert SQL_STRING.search('    sql = f"""\n') is None and SQL_STRING.search('sql = f"""SELECT x FROM y"""')
    assert ENGINE_BRANCH.search('if eng.name == "oracle":')
    for branch in ('    if name == "embedded":', "if engine != 'oracle':", 'if config.engine_name() == "embedded":',
                   'elif name in ["oracle", "embedded"]:'):
        assert ENGINE_BRANCH.search(branch), branch
    assert ENGINE_BRANCH.search('model_name = "oracle-minilm"') is None
    assert ENGINE_INTERNALS.search("        from workshop_lib.engines.embedded.engine import STORE_FILE, open_elsewhere")
    assert ENGINE_INTERNALS.search("from workshop_lib.engines.embedded.embedder import ModelUnavailable")
    assert ENGINE_INTERNALS.search("from workshop_lib.engines.oracle import engine")
    assert ENGINE_INTERNALS.search("from workshop_lib.engines.oracle import bootstrap") is None

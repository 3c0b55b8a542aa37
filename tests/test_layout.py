"""The house rules that keep the two engines apart: engine-specific SQL and engine
branches live only in the engine packages (workshop_lib/engines/embedded, workshop_lib/engines/oracle)."""
from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "workshop_lib"
ENGINE_PACKAGES = (LIB / "engines",)  # the engines and the statements they share
HINTS = LIB / "hints"  # hint texts quote the SQL a learner writes in a notebook; nothing there runs it
# Part 6's count_rows TODO is a one-line query the learner writes; its check quotes it and runs the
# reference the same way (through read_only_query), so that statement lives with the TODO.
LEARNER_SQL = (HINTS, LIB / "checks")
# The Oracle bootstrap (a command in tools/) runs setup/oracle/*.sql and the engines' statements; the
# strings it holds that start like SQL are privilege names ("CREATE TABLE"), which it checks it was granted.
PRIVILEGE_NAMES = (LIB / "tools" / "oracle_bootstrap.py",)
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
             for p in _library_files() if not any(d in p.parents for d in LEARNER_SQL) and p not in PRIVILEGE_NAMES
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


# ============================================================================ values formatted into SQL text
# Values reach a statement as binds (`:name`), never as text: a formatted value is an injection
# and a plan-cache miss. A placeholder is a value when it stands where SQL puts one: after a
# comparison, LIKE, IN (, VALUES (, LIMIT/OFFSET, BETWEEN, or inside quotes. A placeholder that
# names a table, a column, a qualifier (`{t}.`, `.{c}`) or a bind (`:{name}`) is an identifier.
# The statement modules hold the templates; the ones that format values are listed below.
STATEMENT_MODULES = tuple(LIB / "engines" / m for m in ("portable_sql.py", "embedded/sql.py", "oracle/sql.py"))
# The offline planner's templates (workshop_lib/parts/agent/sqlplan.py) and the offline model's
# queries fill integers it parsed and one quote-doubled literal ({q}) into the text: known, to
# move to binds (issue 37); listed so that no other template may do it.
VALUE_TEMPLATES = {"PLAN_SQL", "AGENT_QUERIES"}
# Placeholders the rule reads as values that are not: the schema is a name (ALTER SESSION SET
# CURRENT_SCHEMA = name), and the package list is filled at import from this module's constants.
NOT_VALUES = {"SESSION_SCHEMA", "READER_PUBLIC_PACKAGES"}
SQL_WORDS = re.compile(r"\b(?:SELECT|FROM|WHERE|AND|OR|SET|VALUES|JOIN|HAVING|LIMIT|OFFSET|LIKE|IN|BETWEEN|FETCH)\b")
HOLE = "\x00"
VALUE_BEFORE = re.compile(r"(?:=|<|>|\bLIKE|\bIN\s*\(|\bVALUES\s*\(|\bLIMIT|\bOFFSET|\bBETWEEN|\bFETCH\s+FIRST|\bTHEN|\bELSE)\s*$", re.I)


def _format_holes(text: str) -> str | None:
    """A str.format template with each replacement field as HOLE (None if it is not one)."""
    try:
        return "".join(lit.replace(HOLE, "") + (HOLE if field is not None else "") for lit, field, _, _ in string.Formatter().parse(text))
    except ValueError:
        return None


def _value_holes(text: str) -> int:
    """How many holes of a SQL-looking text (HOLE marks a formatted part) stand where a value goes."""
    if not SQL_WORDS.search(text.replace(HOLE, " ")):
        return 0
    count = 0
    for i, ch in enumerate(text):
        if ch != HOLE:
            continue
        before, after = text[:i], text[i + 1:]
        quoted = before.rstrip("%").endswith("'") and after.lstrip("%").startswith("'")
        identifier = before.endswith((":", ".")) or after.startswith(".")
        count += quoted or (not identifier and bool(VALUE_BEFORE.search(before)))
    return count


def _fragment(node: ast.AST) -> str | None:
    """The text of an f-string, literal.format(...), literal % ... or literal + ..., with HOLEs."""
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else HOLE for v in node.values)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
        return _format_holes(node.func.value.value)
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        if isinstance(node.op, ast.Mod):
            return re.sub(r"%(?:\(\w+\))?[-+ #0]*\d*(?:\.\d+)?[sdrfi]", HOLE, node.left.value)
        if isinstance(node.op, ast.Add) and not isinstance(node.right, ast.Constant):
            return node.left.value + HOLE
    return None


def _fragments(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text with HOLEs) for every piece of text built with formatted parts."""
    return [(getattr(node, "lineno", 0), text) for node in ast.walk(tree) if (text := _fragment(node)) is not None]


def _templates(tree: ast.Module) -> list[tuple[int, str, str]]:
    """(line, name, template with HOLEs) for every str constant assigned at a statement module's top level."""
    found = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            name = next((t.id for t in targets if isinstance(t, ast.Name)), "")
            for node in ast.walk(stmt.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and (holes := _format_holes(node.value)):
                    found.append((node.lineno, name, holes))
    return found


def formatted_values(source: str) -> list[int]:
    """Lines of SQL text built with a value formatted into it (code outside the statement modules)."""
    return sorted({line for line, text in _fragments(ast.parse(source)) if _value_holes(text)})


def value_templates(source: str) -> list[tuple[int, str]]:
    """(line, name) of statement templates with a value placeholder (a statement module's constants)."""
    return sorted({(line, name) for line, name, text in _templates(ast.parse(source)) if _value_holes(text)})


def test_no_values_formatted_into_sql_text():
    found = [f"{p.relative_to(ROOT)}:{line}: {p.read_text().splitlines()[line - 1].strip()[:90]}"
             for p in sorted(LIB.rglob("*.py")) if p not in STATEMENT_MODULES
             for line in formatted_values(p.read_text())]
    assert not found, "bind values (:name) instead of formatting them into SQL text:\n" + "\n".join(found)


def test_statement_templates_format_identifiers_only():
    found = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in STATEMENT_MODULES
             for line, name in value_templates(p.read_text()) if name not in VALUE_TEMPLATES | NOT_VALUES]
    assert not found, "a template's placeholders name tables, columns and binds; values are binds:\n" + "\n".join(found)
    listed = {name for p in STATEMENT_MODULES for _, name in value_templates(p.read_text())}
    assert listed == VALUE_TEMPLATES | NOT_VALUES, "a listed template formats no value any more: remove it from the list"


WRONG_SQL = {  # each formats a value into the text: flagged
    "f-string": 'sql = f"SELECT * FROM RECORDS WHERE user_id = {user}"',
    "f-string fragment": "where += f\" AND status = '{status}'\"",
    "f-string LIKE": "cond = f\"UPPER(name) LIKE '%{word}%'\"",
    "f-string IN": 'sql = f"DELETE FROM RECORDS WHERE seq IN ({ids})"',
    "format": 'sql = "SELECT k FROM META WHERE k = {}".format(key)',
    "format named": 'sql = "... FROM t WHERE {col} = {value}".format(col=c, value=v)',
    "percent": "sql = \"SELECT * FROM t WHERE x = '%s'\" % v",
    "percent named": 'sql = "UPDATE t SET n = %(n)d WHERE id = 1" % row',
    "concatenation": 'sql = "SELECT * FROM t WHERE id = " + str(i)',
    "limit": 'sql = f"SELECT * FROM t FETCH FIRST {k} ROWS ONLY"',
}
RIGHT_SQL = {  # identifiers and bind names only, or not SQL: passed
    "bind": 'sql = f"SELECT * FROM {table} WHERE user_id = :u"',
    "bind name": 'cond = f"{ref} {op} :{bind}"',
    "qualified columns": 'on = f" JOIN {table} {alias} ON {alias}.{col} = {other}.{other_col}"',
    "column list": 'sql = "SELECT {columns} FROM {table} t{where}".format(columns=c, table=t, where=w)',
    "prose": 'msg = f"expected {n} rows, got {m}"',
    "prose with a number": 'msg = f"threshold = {x}"',
    "percent prose": 'msg = "%s rows in %s" % (n, t)',
    "constant": 'sql = "SELECT * FROM t WHERE id = :id"',
}
WRONG_TEMPLATE = 'PLANS = {"by_id": "SELECT * FROM t WHERE id = {id}", "named": "... WHERE name = \'{name}\'"}'
RIGHT_TEMPLATE = 'COMPOSE = {"join": " JOIN {table} {alias} ON {alias}.{col} = {other}.{other_col}", "compare": "{ref} {op} :{bind}"}'


@pytest.mark.parametrize("kind", WRONG_SQL)
def test_a_formatted_value_is_caught(kind):
    assert formatted_values(WRONG_SQL[kind]) == [1], WRONG_SQL[kind]


@pytest.mark.parametrize("kind", RIGHT_SQL)
def test_identifiers_and_binds_pass(kind):
    assert formatted_values(RIGHT_SQL[kind]) == [], RIGHT_SQL[kind]


def test_templates_with_value_placeholders_are_caught():
    assert value_templates(WRONG_TEMPLATE) == [(1, "PLANS")]
    assert value_templates(RIGHT_TEMPLATE) == []

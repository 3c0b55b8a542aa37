"""Read the workshop's Oracle `.sql` files (setup/oracle/) into named statements.

The files are plain SQL*Plus scripts a DBA can read or run by hand. Conventions:

* `-- name: some_name` on its own line names the statement that follows;
* a SQL statement ends with `;` at the end of a line;
* a PL/SQL block (DECLARE / BEGIN / CREATE [OR REPLACE] PROCEDURE ...) ends with a
  line holding only `/`;
* SQL*Plus commands (STARTUP, SHUTDOWN, WHENEVER, SET, PROMPT, EXIT) take one line and
  are kept apart, because python-oracledb cannot run them;
* `{placeholder}` marks an identifier (a user or tablespace name) the bootstrap fills
  in after validating it; values are always `:bind` variables.

The bootstrap runs the named statements; tests/test_oracle_sql.py parses all of them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SQLPLUS_COMMANDS = ("STARTUP", "SHUTDOWN", "WHENEVER", "SET", "PROMPT", "EXIT", "SPOOL", "CONNECT")
_PLSQL_START = re.compile(
    r"^\s*(DECLARE|BEGIN|CREATE\s+(OR\s+REPLACE\s+)?(PROCEDURE|FUNCTION|PACKAGE|TRIGGER|TYPE))\b", re.I
)
_NAME = re.compile(r"^\s*--\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_IDENTIFIER = re.compile(r"^[A-Z][A-Z0-9_$#]{0,127}$")


@dataclass(frozen=True)
class Statement:
    name: str | None
    text: str
    kind: str  # "sql" | "plsql" | "sqlplus"
    path: str
    line: int

    @property
    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER.findall(self.text))

    def render(self, **identifiers: str) -> str:
        """The statement with its `{placeholders}` replaced by validated identifiers."""
        missing = self.placeholders - set(identifiers)
        if missing:
            raise ValueError(f"{self.name or self.text[:40]}: no value for {sorted(missing)}")
        for key, value in identifiers.items():
            if key in self.placeholders and not _IDENTIFIER.match(str(value)):
                raise ValueError(
                    f"{key}={value!r} is not a plain upper-case Oracle identifier "
                    "(letters, digits, _ $ #; starting with a letter)"
                )
        return _PLACEHOLDER.sub(lambda m: str(identifiers[m.group(1)]), self.text)


def _ends_statement(line: str, in_quote: bool) -> tuple[bool, bool]:
    """(statement ends on this line, still inside a quoted literal after it)."""
    stripped = []
    i = 0
    while i < len(line):
        ch = line[i]
        if in_quote:
            if ch == "'":
                in_quote = False
        elif ch == "'":
            in_quote = True
        elif line.startswith("--", i):
            break
        stripped.append(ch)
        i += 1
    text = "".join(stripped).rstrip()
    return (not in_quote and text.endswith(";")), in_quote


class _Reader:
    """parse()'s state: the statements read so far and the one being read (its name, lines,
    first line, kind, and whether a quoted literal is still open)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.statements: list[Statement] = []
        self.name: str | None = None
        self.buf: list[str] = []
        self.start = 0
        self.kind = ""
        self.in_quote = False

    def flush(self, kind: str, body: str) -> None:
        body = body.strip()
        if kind == "sql" and body.endswith(";"):
            body = body[:-1].rstrip()
        if body:
            self.statements.append(Statement(self.name, body, kind, self.path, self.start))
        self.name, self.buf = None, []

    def begin(self, lineno: int, line: str) -> bool:
        """A line between statements: True when it is used up here (a name, a blank or comment
        line, a one-line SQL*Plus command); otherwise it starts a SQL or PL/SQL statement."""
        m = _NAME.match(line)
        if m:
            self.name = m.group(1)
            return True
        if not line.strip() or line.strip().startswith("--"):
            return True
        self.start = lineno
        first = line.strip().split()[0].rstrip(";").upper()
        if first in SQLPLUS_COMMANDS:
            self.flush("sqlplus", line.strip().rstrip(";"))
            return True
        self.kind = "plsql" if _PLSQL_START.match(line) else "sql"
        self.in_quote = False
        return False

    def add(self, line: str) -> None:
        """A line of the statement being read; a PL/SQL block ends at `/`, SQL at `;` (or `/`)."""
        if self.kind == "plsql":
            if line.strip() == "/":
                self.flush("plsql", "\n".join(self.buf))
            else:
                self.buf.append(line)
            return
        self.buf.append(line)
        ends, self.in_quote = _ends_statement(line, self.in_quote)
        if ends or (line.strip() == "/" and not self.in_quote):
            if line.strip() == "/":
                self.buf.pop()
            self.flush("sql", "\n".join(self.buf))


def parse(text: str, path: str = "<string>") -> list[Statement]:
    reader = _Reader(path)
    for lineno, line in enumerate(text.splitlines(), 1):
        if not reader.buf and reader.begin(lineno, line):
            continue
        reader.add(line)
    if reader.buf and "".join(reader.buf).strip():
        raise ValueError(f"{path}: statement starting on line {reader.start} is not terminated (';' or '/')")
    return reader.statements


def load(path: str | Path) -> list[Statement]:
    path = Path(path)
    return parse(path.read_text(encoding="utf-8"), str(path))


def named(path: str | Path) -> dict[str, Statement]:
    """The named statements of one file, by name (duplicate names are an error)."""
    out: dict[str, Statement] = {}
    for stmt in load(path):
        if stmt.name is None:
            continue
        if stmt.name in out:
            raise ValueError(f"{path}: statement name {stmt.name!r} is used twice")
        out[stmt.name] = stmt
    return out

"""Oracle errors a workshop attendee can hit, each with what it means and the fix.

`explain(exc)` finds the first known ORA- / DPY- / DRG- code in an exception and
returns a short explanation and the fix; `OracleWorkshopError` carries them so every
failure names the step, the Oracle error and what to do next.
"""
from __future__ import annotations

import re

from workshop_lib.errors import WorkshopError

CONTAINER = "workshop-oracle"
START_DB = "docker compose -f .devcontainer/docker-compose.yml up -d oracle"
RESTART_DB = f"docker restart {CONTAINER}"

# code -> (what it means, how to fix it). First match in the error text wins.
KNOWN: dict[str, tuple[str, str]] = {
    "DPY-6005": ("the database cannot be reached",
                 f"check the container is running and healthy (`docker ps`; start it with `{START_DB}`), "
                 "then check ORACLE_DSN (host:port/service, e.g. localhost:1521/FREEPDB1)"),
    "ORA-12541": ("no listener at that host and port",
                  f"the database container is not running or still starting: `{START_DB}`, wait until "
                  "`docker ps` shows it healthy, and check the port in ORACLE_DSN"),
    "DPY-6000": ("the listener refused the connection",
                 "the service name in ORACLE_DSN is wrong or the database is still opening; use FREEPDB1 "
                 "for the workshop container and retry in a minute"),
    "ORA-12514": ("the listener does not know that service name",
                  "use the pluggable database's service (FREEPDB1 for the workshop container) in ORACLE_DSN, "
                  "or wait a minute: the database registers its services after it opens"),
    "ORA-01017": ("wrong user name or password",
                  "check ORACLE_APP_USER / ORACLE_APP_PASSWORD (defaults AGENT / Welcome_12345); if the user does "
                  "not exist yet, run `make setup-oracle`"),
    "ORA-28000": ("the account is locked",
                  "unlock it as an administrator: ALTER USER <name> ACCOUNT UNLOCK"),
    "ORA-01031": ("insufficient privileges",
                  "the user lacks a grant the workshop needs: re-run `make setup-oracle` (it grants exactly "
                  "what is needed), or see docs/oracle.md for the list of grants"),
    "ORA-01950": ("no quota on the tablespace",
                  "re-run `make setup-oracle`, which gives the workshop users a quota"),
    "ORA-29855": ("Oracle Text could not create the CONTEXT index; the DRG- error on the next lines says why",
                  "read that DRG- line: an image without Oracle Text (the -slim images remove it: use "
                  "gvenzl/oracle-free:23-faststart), no quota on the user's tablespace (`make setup-oracle` grants "
                  "it), or a lexer/preference problem. Any user may index its own table; the CTXAPP role is for "
                  "managing preferences with CTX_DDL"),
    "ORA-51962": ("the vector memory pool is full or not configured (VECTOR_MEMORY_SIZE)",
                  f"run `make setup-oracle`: it sets VECTOR_MEMORY_SIZE and restarts the database "
                  f"(`{RESTART_DB}`) if needed"),
    "ORA-51950": ("vector memory is 0 and cannot be enabled without a restart",
                  f"run `make setup-oracle`, which sets VECTOR_MEMORY_SIZE with SCOPE=SPFILE and restarts "
                  f"the database (`{RESTART_DB}`)"),
    "ORA-51954": ("VECTOR_MEMORY_SIZE is larger than 70% of the SGA",
                  "set a smaller value (setup/oracle/01_vector_memory.sql caps it at 40% of SGA_TARGET)"),
    "ORA-40284": ("the embedding model ALL_MINILM_L12_V2 is not loaded in this schema",
                  "run `make setup-oracle` (step 'model') to download and load it"),
    "ORA-00904": ("a column or function name is not known",
                  "if the name is VECTOR_EMBEDDING or VECTOR_DISTANCE the database is older than 23ai; "
                  "otherwise check the SQL for a misspelt column"),
    "ORA-00942": ("a table or view does not exist (or you may not read it)",
                  "run `make setup-oracle` to create the memory store and SUPPLYCHAIN and grant access"),
    "ORA-00955": ("an object with that name already exists", "nothing to do if it is the workshop's own object"),
    "ORA-01109": ("the pluggable database is not open", f"restart the container: `{RESTART_DB}`"),
    "ORA-01033": ("the database is starting up or shutting down", "wait a minute and retry"),
    "ORA-01034": ("the database is not running (it may be restarting)", "wait a minute and retry; "
                                                                        f"if it persists: `{RESTART_DB}`"),
    "DRG-50901": ("Oracle Text could not parse the search expression",
                  "pass user text through keyword_expression(), which escapes operators"),
    "DRG-10599": ("the Oracle Text index is missing or not valid",
                  "run `make setup-oracle` to recreate the memory store's indexes"),
    "ORA-22835": ("text too long to convert to VARCHAR2", "shorten the text, or report it as a workshop bug"),
    "DPY-4011": ("the connection was closed by the database (it may have restarted)",
                 "run the cell again; the engine reconnects"),
}

_CODE = re.compile(r"\b(ORA|DPY|DRG)-(\d{4,5})\b")


def codes(exc: BaseException | str) -> list[str]:
    return [f"{a}-{b}" for a, b in _CODE.findall(str(exc))]


def explain(exc: BaseException | str) -> tuple[str | None, str, str]:
    """(first known code or None, what it means, how to fix it)."""
    found = codes(exc)
    for code in found:
        if code in KNOWN:
            meaning, fix = KNOWN[code]
            return code, meaning, fix
    first = found[0] if found else None
    return first, "unexpected database error", "see docs/oracle.md (troubleshooting) or run `workshop doctor`"


class OracleWorkshopError(WorkshopError, RuntimeError):
    """A failure with the step it happened in, the Oracle error and the fix."""

    def __init__(self, step: str, error: BaseException | str, fix: str | None = None) -> None:
        self.step = step
        self.error = error
        code, meaning, known_fix = explain(error)
        self.code = code
        self.fix = fix or known_fix
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        label = f"{code}: " if code and not first_line.startswith(code) else ""
        super().__init__(f"[{step}] {label}{first_line}\n  meaning: {meaning}\n  fix: {self.fix}")

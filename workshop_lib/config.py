"""Settings that come from the environment, with the workshop's defaults.

One place for every knob, so a learner can see what can be changed and how.
"""
from __future__ import annotations

import os
from pathlib import Path

# The repository root when the package is installed in editable mode (the workshop's way).
REPO_ROOT = _REPO_ROOT = Path(__file__).resolve().parents[1]

# Scope every workshop memory lives in: the memory client is scoped to one user and one agent (docs/architecture.md).
USER_ID = "analyst"
AGENT_ID = "supplychain_agent"

ENGINES = ("oracle", "embedded")

# Oracle defaults match the local container documented in the README (not secrets).
ORACLE_DEFAULTS = {
    "ORACLE_DSN": "",
    "ORACLE_USER": "AGENT",
    "ORACLE_PASSWORD": "Welcome_12345",
    "ORACLE_ADMIN_USER": "SYSTEM",
    "ORACLE_ADMIN_PASSWORD": "Welcome_12345",
}

# Thresholds depend on the embedding model, so each engine has its own
# (docs/architecture.md). Part 4 shows how the embedded ones were calibrated.
THRESHOLDS = {
    # Oracle: the documented defaults for all-MiniLM-L12-v2; not yet re-calibrated on a live database.
    "oracle": {"min_score": 0.75, "threshold_low": 0.60, "threshold_high": 0.75, "catalog_min_similarity": 0.50},
    # Embedded (WordLlama): calibrated in Part 4 on 32 relevant and 28 irrelevant question-memory pairs.
    "embedded": {"min_score": 0.31, "threshold_low": 0.30, "threshold_high": 0.37, "catalog_min_similarity": 0.30},
}


def engine_name(explicit: str | None = None) -> str:
    name = (explicit or os.environ.get("WORKSHOP_ENGINE") or "embedded").strip().lower()
    if name not in ENGINES:
        raise ValueError(
            f"Unknown engine {name!r}. Set WORKSHOP_ENGINE to 'oracle' or 'embedded' "
            "(or pass connect('embedded'))."
        )
    return name


def data_dir() -> Path:
    """Where the embedded engine keeps its database files (git-ignored)."""
    env = os.environ.get("WORKSHOP_DATA_DIR")
    if env:
        return Path(env).expanduser()
    if (_REPO_ROOT / "pyproject.toml").exists():
        return _REPO_ROOT / "data"
    return Path.home() / ".workshop" / "data"


def oracle_setting(name: str) -> str:
    return os.environ.get(name, ORACLE_DEFAULTS.get(name, ""))


def load_dotenv() -> None:
    """Read KEY=VALUE lines from a .env file at the repo root (never committed).

    Values already in the environment win, so Codespaces secrets are not overridden.
    """
    path = _REPO_ROOT / ".env"
    if not path.exists():
        return
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        os.environ.setdefault(key.strip(), value.strip().strip('"').strip("'"))

"""Settings that come from the environment, with the workshop's defaults.

One place for every knob, so a learner can see what can be changed and how.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

# The repository root when the package is installed in editable mode (the workshop's way).
REPO_ROOT = _REPO_ROOT = Path(__file__).resolve().parents[1]

# Scope every workshop memory lives in: the memory client is scoped to one user and one agent (docs/architecture.md).
USER_ID = "analyst"
AGENT_ID = "supplychain_agent"

ENGINES = ("oracle", "embedded")

# Oracle defaults match the local container documented in the README (not secrets).
# ORACLE_APP_USER / ORACLE_APP_PASSWORD are the workshop's own user (AGENT). They are not
# called ORACLE_PASSWORD because the database image uses that name for SYS and SYSTEM;
# the older ORACLE_USER / ORACLE_PASSWORD are still read when the new names are unset.
ORACLE_DEFAULTS = {
    "ORACLE_DSN": "",
    "ORACLE_APP_USER": "AGENT",
    "ORACLE_APP_PASSWORD": "Welcome_12345",
    "ORACLE_ADMIN_USER": "SYSTEM",
    "ORACLE_ADMIN_PASSWORD": "Welcome_12345",
    # The agent's run_sql runs as this user: CREATE SESSION and SELECT on the SUPPLYCHAIN
    # tables, nothing else (made by `make setup-oracle`; docs/oracle.md, "Users and grants").
    "ORACLE_READER_USER": "SC_READER",
    "ORACLE_READER_PASSWORD": "Welcome_12345",
}
ORACLE_OLD_NAMES = {"ORACLE_APP_USER": "ORACLE_USER", "ORACLE_APP_PASSWORD": "ORACLE_PASSWORD"}

# Thresholds depend on the embedding model, so each engine has its own
# (docs/architecture.md). Part 4 shows how the embedded ones were calibrated.
# catalog_min_similarity is Part 5's floor for a catalog row: on WordLlama relevant best
# matches measured 0.31-0.74 and off-topic ones at most 0.18; Oracle's is a starting value.
# min_score must stay below threshold_high: chunks under min_score are dropped before the
# mode is decided, so with min_score == threshold_high every surviving chunk is already
# "rag" and the hybrid band [threshold_low, threshold_high) could never be reached.
# router_min_score / router_margin: the chat router's floor for a handler's score (example
# similarity plus cues) and the lead the winner needs (assistant/answering/router.py); on WordLlama
# the nearest wrong handler's example similarity is at most about 0.41 (router.leave_one_out).
# On Oracle the router's values are guesses too, until measured there.
@dataclass(frozen=True)
class Thresholds:
    """The similarity thresholds of one engine's embedding model (`eng.model.thresholds`)."""

    min_score: float               # Part 4's gate: a memory below it is not retrieved
    threshold_low: float           # below it the answer mode is fallback ...
    threshold_high: float          # ... at or above it rag, between the two hybrid
    catalog_min_similarity: float  # Part 5: a catalog item below it is no match
    router_min_score: float        # Part 9: below it no handler is trusted ...
    router_margin: float           # ... and a winner must lead the next by this much

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


THRESHOLDS = {
    # Oracle (ALL_MINILM_L12_V2): unmeasured starting values, not published by Oracle for this
    # model and not yet calibrated on this workshop's memories; `workshop calibrate` on a live
    # database replaces min_score / threshold_low / threshold_high with measured ones.
    "oracle": Thresholds(min_score=0.60, threshold_low=0.60, threshold_high=0.75, catalog_min_similarity=0.50,
                         router_min_score=0.55, router_margin=0.03),
    # Embedded (WordLlama): calibrated in Part 4 on 32 relevant and 28 irrelevant question-memory pairs.
    "embedded": Thresholds(min_score=0.31, threshold_low=0.30, threshold_high=0.37, catalog_min_similarity=0.30,
                           router_min_score=0.30, router_margin=0.03),
}


# Memory over time (workshop_lib/parts/memory/consolidate.py): cosine similarity at or above
# which a new memory without a subject duplicates a stored one of the same type, and at or
# above which a "forget ..." reaches a memory by meaning alone. Embedded: measured by
# workshop_lib/parts/memory/calibrate.py on labelled pairs (the Part shows the run);
# Oracle: starting values for all-MiniLM-L12-v2, not yet re-calibrated on a live database.
MEMORY_THRESHOLDS = {
    "oracle": {"memory_duplicate": 0.90, "memory_forget": 0.70},
    # duplicates measured 0.82-1.00, different statements 0.02-0.47; forget matches 0.14-0.78,
    # non-matches up to 0.495 (parts/memory/calibrate.py on WordLlama)
    "embedded": {"memory_duplicate": 0.6453, "memory_forget": 0.5169},
}


def memory_thresholds(engine: str) -> dict[str, float]:
    return dict(MEMORY_THRESHOLDS[engine])


# `workshop calibrate` writes measured thresholds here, per engine and embedding model;
# an engine whose model matches uses them instead of the defaults above.
THRESHOLDS_FILE = "thresholds.json"
CALIBRATED_KEYS = ("min_score", "threshold_low", "threshold_high")


def thresholds_path() -> Path:
    return data_dir() / THRESHOLDS_FILE


def thresholds_for(engine: str, model: str) -> Thresholds:
    """The engine's thresholds: the defaults, with calibrated values for this model when there are some."""
    import json

    values = THRESHOLDS[engine]
    try:
        saved = json.loads(thresholds_path().read_text()).get(engine) or {}
    except (OSError, ValueError, AttributeError):
        return values
    if saved.get("model") == model:
        measured = {k: float(saved[k]) for k in CALIBRATED_KEYS if isinstance(saved.get(k), (int, float))}
        merged = replace(values, **measured)
        if merged.min_score < merged.threshold_high:  # a file that empties the hybrid band is ignored
            values = merged
    return values


def engine_name(explicit: str | None = None) -> str:
    name = (explicit or os.environ.get("WORKSHOP_ENGINE") or "embedded").strip().lower()
    if name not in ENGINES:
        source = "the engine argument" if explicit else "WORKSHOP_ENGINE"
        raise ValueError(
            f"Unknown engine {name!r} (from {source}); valid values: {', '.join(ENGINES)}. "
            "Fix: set WORKSHOP_ENGINE=embedded or WORKSHOP_ENGINE=oracle (or pass connect('embedded'))."
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
    """An Oracle setting from the environment (the new name, then its older name), else the default."""
    if name in os.environ:
        return os.environ[name]
    old = ORACLE_OLD_NAMES.get(name)
    if old and old in os.environ:
        return os.environ[old]
    return ORACLE_DEFAULTS.get(name, "")


def load_dotenv(path: Path | None = None) -> None:
    """Read settings from a .env file at the repo root (never committed), parsed by python-dotenv.

    Values already in the environment win, so Codespaces secrets are not overridden.
    Lines written as shell does (`export A=1 B=2`, as docs/oracle.md shows) set A and B.
    """
    path = Path(path) if path is not None else _REPO_ROOT / ".env"
    if not path.exists():
        return
    import io
    import shlex

    from dotenv import dotenv_values

    lines = []
    for line in path.read_text().splitlines():
        body = line.strip()
        if body.startswith("export ") and body.count("=") > 1:
            # python-dotenv reads one assignment per line; split the shell's several.
            try:
                words = shlex.split(body[len("export "):], comments=True)
            except ValueError:
                words = []
            if words and all("=" in w for w in words):
                lines += [f"{k}={shlex.quote(v)}" for k, _, v in (w.partition("=") for w in words)]
                continue
        lines.append(line)
    for key, value in dotenv_values(stream=io.StringIO("\n".join(lines))).items():
        if value is not None:
            os.environ.setdefault(key, value)

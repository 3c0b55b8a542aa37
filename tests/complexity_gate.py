"""The complexity gate `make test` runs: no function above LIMIT by radon's cyclomatic count,
except the ones listed in KNOWN below, and none of those may get worse.

ruff's C90 (mccabe) does not count boolean operators, so a function made of `and`/`or` chains
passes it at any length; radon adds one per operator. KNOWN lists each function still above the
limit with its count when listed and why it is still there (a TODO: whose area it is, or that it
is not split yet). A new function over LIMIT fails, a listed one that grew fails, and a listed
one that shrank fails too until its count is lowered here, or its line deleted once it is at or
below LIMIT: the list only ever shrinks.

    python tests/complexity_gate.py           # check
    python tests/complexity_gate.py --list    # every function above LIMIT now, with its count
"""
from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

LIMIT = 15
ROOT = Path(__file__).resolve().parents[1]
# Every Python file ruff checks (notebooks are linted by ruff, not measured here).
PACKAGES = ("workshop_lib", "bench", "setup", "tests")

# Why a listed function is still above LIMIT. Issue 37, round 2, split the work by area: nobody
# refactors another's functions while they are being changed.
LEAD = "TODO: the lead's area (assistant/, parts/chat/, parts/memory/); split after issue 37's answers work lands"
SEAM_ENGINES = "TODO: the seam helper's area (engines/); split with the database seam (issue 37, item 1)"
SEAM_CHECKS = "TODO: the seam helper's area (checks/, SQL watched through trace()); split after it lands"
SEAM_STORE = "TODO: the store and the doctor move onto the database seam (issue 37, item 1); split there"
NOT_YET = "TODO: outside the areas above, not split yet; split it into named steps (issue 37, item 4)"

LISTED = "2026-11-26"  # when this list was set; every count below is radon's on that day
KNOWN: dict[str, tuple[int, str]] = {
}


def measure(source: str, path: str) -> dict[str, int]:
    """'path::Class.function' -> radon's complexity, for every function and method in a module,
    nested functions as 'outer.inner' (radon counts a nested function apart from its holder)."""
    found: dict[str, int] = {}

    def add(f: Function, prefix: str) -> None:
        key = f"{prefix}{f.name}"
        found[key] = max(found.get(key, 0), f.complexity)  # a name defined twice: the worse one
        for inner in f.closures:
            add(inner, key + ".")

    for block in cc_visit(source):
        if isinstance(block, Class):
            for method in block.methods:
                add(method, f"{path}::{block.name}.")
        elif isinstance(block, Function) and not block.is_method:
            add(block, f"{path}::")
    return found


def offenders(root: Path = ROOT) -> dict[str, int]:
    found: dict[str, int] = {}
    for package in PACKAGES:
        for p in sorted((root / package).rglob("*.py")):
            found.update(measure(p.read_text(), p.relative_to(root).as_posix()))
    return {k: v for k, v in found.items() if v > LIMIT}


def compare(now: dict[str, int], baseline: dict[str, int]) -> list[str]:
    """One line per breach of the ratchet; empty when the code and the list agree."""
    problems = [f"{k}: {v} (new above {LIMIT}: split it)" for k, v in sorted(now.items()) if k not in baseline]
    problems += [f"{k}: {now[k]}, was {baseline[k]} (worse: split it)" for k in sorted(now) if k in baseline and now[k] > baseline[k]]
    problems += [f"{k}: {now.get(k, 'at most ' + str(LIMIT))}, listed at {v} (better: lower its count in KNOWN, or delete its line)"
                 for k, v in sorted(baseline.items()) if now.get(k, 0) < v]
    return problems


def main(argv: list[str]) -> int:
    now = offenders()
    if "--list" in argv:
        print("\n".join(f"{k} {v}" for k, v in sorted(now.items())))
        return 0
    problems = compare(now, {k: count for k, (count, _) in KNOWN.items()})
    if problems:
        print(f"complexity gate (radon, limit {LIMIT}, the list KNOWN in tests/complexity_gate.py):", *problems, sep="\n  ")
        return 1
    by_reason: dict[str, int] = {}
    for _, why in KNOWN.values():
        by_reason[why] = by_reason.get(why, 0) + 1
    print(f"complexity gate: no function above {LIMIT} but the {len(now)} listed on {LISTED}, none worse:",
          *(f"{n:3d}  {why}" for why, n in sorted(by_reason.items(), key=lambda kv: -kv[1])), sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

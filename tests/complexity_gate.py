"""The complexity gate `make test` runs: no function above LIMIT by radon's cyclomatic count,
except the ones listed in complexity_baseline.txt, and none of those may get worse.

ruff's C90 (mccabe) does not count boolean operators, so a function made of `and`/`or` chains
passes it at any length; radon adds one per operator. The baseline lists today's offenders with
their count: a new function over LIMIT fails, a listed one that grew fails, and a listed one that
shrank or went fails too until its line is lowered or removed (`--update` rewrites the file), so
the baseline only ever goes down.

    python tests/complexity_gate.py            # check
    python tests/complexity_gate.py --update   # rewrite the baseline from the code (review the diff)
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
BASELINE = Path(__file__).with_name("complexity_baseline.txt")


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


def read_baseline(path: Path = BASELINE) -> dict[str, int]:
    lines = [ln.split("#")[0].strip() for ln in path.read_text().splitlines()] if path.exists() else []
    return {key: int(count) for key, count in (ln.rsplit(" ", 1) for ln in lines if ln)}


def compare(now: dict[str, int], baseline: dict[str, int]) -> list[str]:
    """One line per breach of the ratchet; empty when the code and the baseline agree."""
    problems = [f"{k}: {v} (new above {LIMIT}: split it)" for k, v in sorted(now.items()) if k not in baseline]
    problems += [f"{k}: {now[k]}, was {baseline[k]} (worse: split it)" for k in sorted(now) if k in baseline and now[k] > baseline[k]]
    problems += [f"{k}: {now.get(k, 'at most ' + str(LIMIT))}, baseline says {v} (better: lower the baseline with --update)"
                 for k, v in sorted(baseline.items()) if now.get(k, 0) < v]
    return problems


def write_baseline(now: dict[str, int], path: Path = BASELINE) -> None:
    head = (f"# Functions above radon complexity {LIMIT} when the gate was set (tests/complexity_gate.py).\n"
            "# The list only shrinks: split a function, then lower or delete its line (--update).\n")
    path.write_text(head + "".join(f"{k} {v}\n" for k, v in sorted(now.items())))


def main(argv: list[str]) -> int:
    now = offenders()
    if "--update" in argv:
        write_baseline(now)
        print(f"{BASELINE.name}: {len(now)} functions above {LIMIT}")
        return 0
    problems = compare(now, read_baseline())
    if problems:
        print(f"complexity gate (radon, limit {LIMIT}, baseline {BASELINE.relative_to(ROOT)}):", *problems, sep="\n  ")
        return 1
    print(f"complexity gate: no function above {LIMIT} but the {len(now)} in the baseline, none worse")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

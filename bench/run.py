"""Run the retrieval benchmark: `python -m bench.run [--quick] [--engine oracle]`.

Quality over the scanned SUPPLYCHAIN memories, then speed at growing memory counts.
Everything happens in throw-away stores (a temporary folder on the embedded engine, a
fresh table prefix on Oracle), so a learner's data is never touched. Writes
bench/results/summary.md, quality.png, latency.png and results.json, and prints the
summary.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path

from . import quality, report, speed

RESULTS = Path(__file__).with_name("results")
FULL = {"sizes": [1_000, 10_000, 100_000], "rounds": [5, 3, 2], "queries": 30}
QUICK = {"sizes": [1_000], "rounds": [2], "queries": 10}


def speed_queries(questions: list[quality.Question], n: int) -> list[str]:
    """A fixed, mixed set: every third question of the file (all categories), first n."""
    return [q.question for q in questions[::3]][:n]


@contextlib.contextmanager
def bench_engine(name: str, folder: Path, label: str):
    """A connected engine whose memory store is empty and disposable."""
    from workshop_lib import connect

    if name == "embedded":
        path = folder / label
        eng = connect("embedded", path=path)
        try:
            yield eng
        finally:
            eng.close()
        return
    from workshop_lib.core.store import SchemaPolicy

    eng = connect(name)
    prefix = "B" + uuid.uuid4().hex[:8].upper() + "_"
    scratch = eng.open_store(SchemaPolicy.RECREATE, table_name_prefix=prefix)
    try:
        yield eng
    finally:
        eng.backend.drop_objects(scratch.mem.DROP, [n for n, _ in scratch.mem.MIGRATIONS][::-1])
        eng.backend.drop_objects(scratch.sql.DROP, [n for n, _ in scratch.sql.SCHEMA])
        eng.close()


def environment(eng) -> dict:
    import numpy

    info = {"engine": eng.name, "model": eng.model.name, "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores", "numpy": numpy.__version__,
            "BLAS threads (floor, alt)": os.environ.get("OPENBLAS_NUM_THREADS", "default")}
    if eng.name == "embedded":
        row = eng.query("SELECT sqlite_version(), vec_version(), vec_debug()")[0]
        flags = next((ln.split(":", 1)[1].strip() for ln in row[2].splitlines() if ln.startswith("Build flags")), "")
        info.update({"sqlite": row[0], "sqlite-vec": row[1],
                     "sqlite-vec build flags": flags or "none (scalar distance loops)"})
    for mod in ("ranx", "rank_bm25", "bm25s"):
        from importlib.metadata import PackageNotFoundError, version

        try:
            info[mod] = version(mod.replace("_", "-"))
        except PackageNotFoundError:
            info[mod] = "not installed"
    return info


def _run(args, plan: dict, engine: str, tmp: Path, questions, payload: dict, progress: bool):
    """Quality, then speed; returns (markdown sections, environment), or (None, None) on a bad question set."""
    from workshop_lib.prepare import prepare

    sections: list[str] = []
    env = None
    if not args.skip_quality:
        with bench_engine(engine, tmp, "quality") as eng:
            env = environment(eng)
            t0 = time.perf_counter()
            prep = prepare(eng, progress=False)
            problems = quality.validate_questions(questions, quality.scanned_bodies(eng))
            if problems:
                print("The question set does not match the scanned facts:\n  " + "\n  ".join(problems),
                      file=sys.stderr)
                return None, None
            q = quality.run_quality(eng, questions, progress=progress)
            payload["quality"] = dataclasses.asdict(q)
            payload["quality_seconds"] = time.perf_counter() - t0
            payload["prepare"] = {"facts": prep["facts"], "written": prep["written"]}
            report.quality_png(q, args.out / "quality.png")
            sections.append(report.quality_markdown(q))
    if not args.skip_speed:
        with bench_engine(engine, tmp, "speed") as eng:
            env = env or environment(eng)
            t0 = time.perf_counter()
            s = speed.run_speed(eng, speed_queries(questions, plan["queries"]), plan["sizes"],
                                rounds=plan["rounds"], with_variants=False if args.no_variants else None,
                                progress=progress)
            s.vec_build_flags = env.get("sqlite-vec build flags", "")
            payload["speed"] = dataclasses.asdict(s)
            payload["speed_seconds"] = time.perf_counter() - t0
            report.latency_png(s, args.out / "latency.png")
            sections.append(report.speed_markdown(s))
    return sections, env


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1k memories, 10 queries: a smoke test (< 1 min)")
    ap.add_argument("--engine", default=None, help="embedded | oracle (default: $WORKSHOP_ENGINE or embedded)")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for summary.md and the PNGs")
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], help="e.g. 1000,10000")
    ap.add_argument("--rounds", type=int, help="timed passes over the queries at every size")
    ap.add_argument("--queries", type=int, help="how many fixed queries the speed run uses")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--no-variants", action="store_true",
                    help="do not time bench/variants.py's rows (the pre-vec0 hybrid, the numpy-KNN prototype)")
    ap.add_argument("--no-progress", action="store_true")
    return ap


def _plan(args: argparse.Namespace) -> dict:
    """The quick or full plan with the sizes, rounds (one per size) and queries the options set."""
    plan = dict(QUICK if args.quick else FULL)
    if args.sizes:
        plan["sizes"] = sorted(args.sizes)
    if args.rounds:
        plan["rounds"] = [args.rounds] * len(plan["sizes"])
    elif len(plan["rounds"]) != len(plan["sizes"]):
        plan["rounds"] = [plan["rounds"][-1]] * len(plan["sizes"])
    if args.queries:
        plan["queries"] = args.queries
    return plan


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    from workshop_lib import config

    engine = config.engine_name(args.engine)
    plan = _plan(args)
    progress = not args.no_progress
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in ("summary.md", "results.json", "quality.png", "latency.png"):
        (args.out / stale).unlink(missing_ok=True)

    questions = quality.load_questions()
    t_start = time.perf_counter()
    payload: dict = {"plan": plan, "mode": "quick" if args.quick else "full"}
    saved_data_dir = os.environ.get("WORKSHOP_DATA_DIR")
    try:
        with tempfile.TemporaryDirectory(prefix="workshop-bench-") as tmp:
            # Anything that falls back to the default data folder lands in the temp folder too.
            os.environ["WORKSHOP_DATA_DIR"] = str(Path(tmp) / "data")
            sections, env = _run(args, plan, engine, Path(tmp), questions, payload, progress)
    finally:
        if saved_data_dir is None:
            os.environ.pop("WORKSHOP_DATA_DIR", None)
        else:
            os.environ["WORKSHOP_DATA_DIR"] = saved_data_dir
    if sections is None:
        return 2
    total = time.perf_counter() - t_start
    payload["environment"] = env
    payload["total_seconds"] = total
    head = [f"# Retrieval benchmark ({payload['mode']} run)\n",
            "Generated by `python -m bench.run" + (" --quick" if args.quick else "") + "`. "
            f"Total {total:.0f} s.\n",
            report.table([{"setting": k, "value": v} for k, v in (env or {}).items()])]
    figures = "\n## Figures\n\n" + "".join(
        f"![{p.stem}]({p.name})\n\n" for p in (args.out / "quality.png", args.out / "latency.png") if p.exists())
    summary = "\n".join(head + sections) + figures
    (args.out / "summary.md").write_text(summary, encoding="utf-8")
    (args.out / "results.json").write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    print(summary)
    print(f"\nWrote {args.out / 'summary.md'} ({total:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Part 8's ingest throughput, per stage: on the shipped corpus and on a synthetic corpus.

    python -m bench.ingest [--docs 10000] [--profile v2] [--out bench/results]

Everything runs in a throw-away embedded store. The synthetic corpus is deterministic:
document i is built from sentences of the shipped corpus, a shipping identifier or two,
and (in one document of five) a planted e-mail address and phone number, so sanitising
has real work. The report gives seconds and chunks/s per stage (read+clean, sanitise,
chunk, embed, write) and each stage's share of the run: shares are ratios measured in one
run, so they compare across machines better than absolute figures.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import time
from pathlib import Path

import pandas as pd

from workshop_lib import connect
from workshop_lib.parts.ingest import corpus, documents, manifest, pipeline

OUT = Path(__file__).resolve().parent / "results"


def _sentences() -> list[str]:
    out = []
    for entry in manifest.read(corpus.MANIFEST).entries:
        text = documents.clean(documents.read_text(entry.path))
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) > 30]
    return out


def synthetic_corpus(folder: Path, n: int, seed: int = 7) -> Path:
    """n documents of 4-12 corpus sentences each, and their manifest; returns the manifest."""
    rng = random.Random(seed)
    sentences = _sentences()
    lines = []
    for i in range(n):
        body = [rng.choice(sentences) for _ in range(rng.randint(4, 12))]
        body.insert(1, f"Voyage {rng.randint(100, 999)}{rng.choice('NSEW')}, vessel IMO 9321483, box MSCU4829130.")
        if i % 5 == 0:
            body.append(f"Contact: desk{i}@northsea-lines.example or +44 20 7946 {rng.randint(0, 999):04d}.")
        name = f"doc{i:05d}.md"
        (folder / name).write_text(f"# Synthetic document {i}\n\n" + "\n\n".join(body) + "\n", encoding="utf-8")
        lines.append(json.dumps({"path": name, "tags": ["synthetic"], "lang": "en"}))
    path = folder / "manifest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _row(label: str, report: pipeline.IngestReport, wall: float) -> list[dict]:
    total = sum(report.seconds.values()) or 1.0
    return [{"corpus": label, "profile": report.profile, "documents": report.documents, "chunks": report.chunks,
             "stage": stage, "seconds": round(secs, 3), "chunks/s": round(report.chunks / secs, 1) if secs else None,
             "share": f"{secs / total:.0%}", "wall s": round(wall, 2)} for stage, secs in report.seconds.items()]


def run(docs: int = 10_000, profile: str = "v2", progress: bool = True) -> pd.DataFrame:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        eng = connect("embedded", path=Path(tmp) / "store")
        eng.model.embed(["warm up the model"])  # loading the model is not ingest time
        for name in ("v1", "v2", "v3"):
            started = time.perf_counter()
            report = pipeline.ingest(eng, profile=name, progress=False)
            rows += _row("shipped (32 docs)", report, time.perf_counter() - started)
        folder = Path(tmp) / "synthetic"
        folder.mkdir()
        path = synthetic_corpus(folder, docs)
        started = time.perf_counter()
        report = pipeline.ingest(eng, path, profile=profile, progress=progress, batch_size=256)
        rows += _row(f"synthetic ({docs:,} docs)", report, time.perf_counter() - started)
        eng.close()
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--profile", default="v2")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    frame = run(args.docs, args.profile, progress=not args.no_progress)
    args.out.mkdir(parents=True, exist_ok=True)
    table = frame.to_markdown(index=False)
    (args.out / "ingest.md").write_text(table + "\n", encoding="utf-8")
    frame.to_json(args.out / "ingest.json", orient="records", indent=1)
    print(table)


if __name__ == "__main__":
    main()

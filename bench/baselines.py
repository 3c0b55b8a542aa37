"""Memory baselines on the written conversations: the dev set and the frozen test set, offline.

Every baseline of workshop_lib/parts/memory/baselines.py (no memory, last 6 messages, full
transcript, transcript search, summary, summary + memories, ADD-only), read by the same offline
reader, plus the chat service's own answers; per ability: accuracy, confidently wrong, context
tokens per turn, write and read latency (workshop_lib/parts/chat/baseline_eval.py).

    python -m bench.baselines            # or: workshop bench baselines / make bench-baselines
Writes bench/results/baselines-<set>.md (also printed), .png and .json per set. The frozen
set's file holds its table only, never its individual answers.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workshop_lib import config, connect
from workshop_lib.parts.chat import answer_eval, baseline_eval, conversation_eval
from workshop_lib.parts.memory import baselines

OUT = Path(__file__).resolve().parent / "results"
SETS = (config.REPO_ROOT / "evals" / "conversations-dev.jsonl",
        config.REPO_ROOT / "evals" / "frozen" / "conversations-test.jsonl")


def run_set(path: Path, names: list[str], out: Path) -> str:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="baselines-bench-") as tmp:
        eng = connect("embedded", path=Path(tmp))
        try:
            answer_eval.prepare_engine(eng, docs=False)
            measures = baseline_eval.run(eng, conversation_eval.load(path), names)
        finally:
            eng.close()
    label = "test" if "frozen" in path.parts else path.stem.removeprefix("conversations-")
    text = baseline_eval.report(measures, path.name) + f"\n\n{time.perf_counter() - started:.1f} s.\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"baselines-{label}.md").write_text(text, encoding="utf-8")
    baseline_eval.write_json(out / f"baselines-{label}.json", measures, with_turns="frozen" not in path.parts)
    baseline_eval.plot(measures, out / f"baselines-{label}.png", f" ({label})")
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--baseline", default="all", help="a name, names separated by commas, or 'all'")
    parser.add_argument("--sets", type=Path, nargs="*", default=list(SETS))
    args = parser.parse_args(argv)
    names = baselines.names(args.baseline)
    for path in args.sets:
        print(run_set(path, names, args.out))


if __name__ == "__main__":
    main()

"""Memory in conversation, measured: written conversations played through the chat service.

Each conversation (evals/conversations-*.jsonl) is a list of user turns with a user id and a
thread; the turns are sent to the same answer path as `POST /chat` (`ChatService.answer`), in
order, each set thread mapped to the service thread its first turn opened. A turn with `expect`
is scored:

- correct: every `text` group and every cell of the `sql` rows is in the answer, no `not_text`
  is, the `unit` is named; or, for `abstain`, a fallback that does not show a `not_text` value;
- confidently wrong: a grounded badge (rag / hybrid) on anything else;
- unhelpful: a fallback where an answer was expected.

Scores are reported per ability (LongMemEval's five), with the answer path's latency.
"""
from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib.parts.chat.answer_eval import GROUNDED_MODES, numbers_in, value_found
from workshop_lib.parts.chat.answer_sets import SetError, groups_from_rows, rows_of
from workshop_lib.parts.chat.app import ChatService

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

ABILITIES = ("information_extraction", "multi_session_reasoning", "temporal_reasoning", "knowledge_update",
             "abstention")


@dataclass
class ScoredTurn:
    conversation: str
    ability: str
    turn: int
    question: str
    mode: str
    outcome: str
    why: str
    latency_s: float
    answer: str


def load(path: Path) -> list[dict[str, Any]]:
    conversations = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                conversations.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SetError(f"{path.name}:{number}: not JSON: {exc}") from exc
    return conversations


def grade(expect: dict[str, Any], mode: str, text: str, groups: list[list[Any]]) -> tuple[str, str]:
    low = text.lower()
    leaked = [t for t in expect.get("not_text", []) if t.lower() in low]
    if expect.get("abstain"):
        if mode in GROUNDED_MODES:
            return "confidently_wrong", f"{mode} badge where the honest answer is 'you have not told me'"
        if leaked:
            return "confidently_wrong", f"shows {leaked[0]!r}, which it must not"
        return "correct", "an honest fallback"
    if mode not in GROUNDED_MODES:
        return "unhelpful", "a fallback where an answer was expected"
    numbers = numbers_in(text)
    for group in groups:
        if not any(value_found(a, text, numbers) for a in group):
            return "confidently_wrong", f"{mode} badge, expected {group[0]!r} is not in the answer"
    if leaked:
        return "confidently_wrong", f"{mode} badge, shows {leaked[0]!r}, which it must not"
    if expect.get("unit") and expect["unit"].lower() not in low:
        return "confidently_wrong", f"{mode} badge, not in the unit asked for ({expect['unit']})"
    return "correct", "expected values present"


def expected_groups(eng: Engine, expect: dict[str, Any], where: str) -> list[list[Any]]:
    """What must be in the answer: the `text` groups and every cell of the `sql` rows."""
    groups = [list(g) for g in expect.get("text", [])]
    if "sql" in expect:
        groups += groups_from_rows(rows_of(eng.query, expect["sql"], where))
    return groups


def play(eng: Engine, conversation: dict[str, Any], ask: Callable[[dict[str, Any]], tuple[dict[str, Any], str]]
         ) -> list[ScoredTurn]:
    """Send every turn in order; score the turns that carry an expectation."""
    threads: dict[tuple[str, str], str] = {}
    results = []
    for i, turn in enumerate(conversation["turns"]):
        key = (turn["user"], turn["thread"])
        req = {"question": turn["text"], "thread_id": threads.get(key), "user_id": turn["user"], "agent": False}
        t0 = time.perf_counter()
        body, mode = ask(req)
        latency = time.perf_counter() - t0
        threads.setdefault(key, body["thread_id"])
        expect = turn.get("expect")
        if expect is None:
            continue
        groups = expected_groups(eng, expect, f"{conversation['id']} turn {i + 1}")
        outcome, why = grade(expect, mode, body.get("answer") or "", groups)
        results.append(ScoredTurn(conversation["id"], conversation["ability"], i + 1, turn["text"], mode, outcome,
                                  why, round(latency, 4), (body.get("answer") or "")[:400]))
    return results


def run(eng: Engine, conversations: list[dict[str, Any]]) -> list[ScoredTurn]:
    service = ChatService(eng)
    results: list[ScoredTurn] = []
    for conversation in conversations:
        results += play(eng, conversation, service.answer)
    return results


def summary(results: list[ScoredTurn]) -> dict[str, Any]:
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        per[r.ability][r.outcome] += 1
    table = {a: {"n": sum(c.values()), "correct": c["correct"], "confidently_wrong": c["confidently_wrong"],
                 "unhelpful": c["unhelpful"]} for a in ABILITIES if (c := per.get(a))}
    total = Counter(r.outcome for r in results)
    lat = sorted(r.latency_s for r in results)
    return {"turns_scored": len(results), "correct": total["correct"], "confidently_wrong": total["confidently_wrong"],
            "unhelpful": total["unhelpful"], "per_ability": table,
            "latency_p50_s": lat[len(lat) // 2] if lat else None}


def format_report(s: dict[str, Any]) -> str:
    lines = [f"scored turns {s['turns_scored']}: correct {s['correct']}, confidently wrong {s['confidently_wrong']}, "
             f"unhelpful {s['unhelpful']}", "",
             f"{'ability':26s} {'n':>4s} {'correct':>8s} {'conf.wrong':>10s} {'unhelpful':>9s}"]
    for ability, row in s["per_ability"].items():
        lines.append(f"{ability:26s} {row['n']:4d} {row['correct']:8d} {row['confidently_wrong']:10d} "
                     f"{row['unhelpful']:9d}")
    return "\n".join(lines)


def write_json(path: Path, s: dict[str, Any], results: list[ScoredTurn]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"summary": s, "results": [asdict(r) for r in results]}, indent=1, default=str) + "\n",
                    encoding="utf-8")

"""Memory baselines side by side on the written conversations: accuracy per ability, and the cost.

`run` plays every conversation once through the chat service (as `POST /chat`); its answers
are the transcript every baseline keeps, so all baselines see the same conversation. At every
user turn, for every baseline (parts/memory/baselines.py), before the turn is kept:

- the context the reader would get is built and its tokens counted with the embedder's
  tokenizer (`eng.model.count_tokens`, as Part 4 counts);
- at a scored turn the offline reader (parts/chat/baseline_reader.py) answers from that context and
  the answer is graded as `conversation_eval.grade` grades the service (correct / confidently
  wrong / unhelpful); read latency is building the context plus the reader loading it;

then the baseline keeps the exchange (write latency). The service's own graded answers are a
row of their own ("chat service"), the figure `workshop eval conversations` reports.

Per ability: accuracy, confidently wrong, mean context tokens per turn (every turn of the
ability's conversations), median write and read latency in ms. `long_turn_tokens` gives the
mean tokens per turn on conversations over 30 turns, the issue's target for memory against the
full transcript.
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib.parts.chat import baseline_reader as reader
from workshop_lib.parts.chat.app import ChatService
from workshop_lib.parts.chat.conversation_eval import ABILITIES, expected_groups, grade
from workshop_lib.parts.memory import baselines

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

SERVICE = "chat service"
LONG_TURNS = 30


@dataclass
class Scored:
    baseline: str
    conversation: str
    ability: str
    turn: int
    outcome: str
    mode: str
    why: str
    read_ms: float
    answer: str


@dataclass
class Measures:
    scored: list[Scored] = field(default_factory=list)
    tokens: list[tuple[str, str, str, int]] = field(default_factory=list)   # baseline, conversation, ability, tokens
    writes: list[tuple[str, str, float]] = field(default_factory=list)      # baseline, ability, ms
    turns: dict[str, int] = field(default_factory=dict)                     # conversation -> its user turns
    names: list[str] = field(default_factory=list)


@dataclass
class Row:
    baseline: str
    ability: str
    n: int
    correct: int
    confidently_wrong: int
    unhelpful: int
    tokens_per_turn: float | None
    write_ms: float | None
    read_ms: float | None

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def run(eng: Engine, conversations: list[dict[str, Any]], names: list[str]) -> Measures:
    service = ChatService(eng)
    kept = [baselines.make(n, eng) for n in names]
    m = Measures(names=list(names))
    for conv in conversations:
        cid, ability = conv["id"], conv["ability"]
        m.turns[cid] = len(conv["turns"])
        threads: dict[tuple[str, str], str] = {}
        for i, turn in enumerate(conv["turns"]):
            user, text, expect = turn["user"], turn["text"], turn.get("expect")
            groups = expected_groups(eng, expect, f"{cid} turn {i + 1}") if expect else []
            for b in kept:
                t0 = time.perf_counter()
                context = b.context(cid, user, text)
                scope = reader.scratch_scope(b.name) if expect else ""
                if expect:
                    reader.load(eng, context, scope)
                read_ms = _ms(t0)
                m.tokens.append((b.name, cid, ability, context.tokens(eng.model.count_tokens)))
                if expect:
                    got = reader.answer(eng, text, scope)
                    outcome, why = grade(expect, got.mode, got.answer or "", groups)
                    m.scored.append(Scored(b.name, cid, ability, i + 1, outcome, got.mode, why, round(read_ms, 2),
                                           (got.answer or "")[:300]))
            key = (user, turn["thread"])
            t0 = time.perf_counter()
            body, mode = service.answer({"question": text, "thread_id": threads.get(key), "user_id": user,
                                         "agent": False})
            service_ms = _ms(t0)
            threads.setdefault(key, body["thread_id"])
            said = body.get("answer") or ""
            if expect:
                outcome, why = grade(expect, mode, said, groups)
                m.scored.append(Scored(SERVICE, cid, ability, i + 1, outcome, mode, why, round(service_ms, 2),
                                       said[:300]))
            for b in kept:
                t0 = time.perf_counter()
                b.write(cid, user, text, said)
                m.writes.append((b.name, ability, _ms(t0)))
    return m


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _row(m: Measures, name: str, ability: str | None) -> Row:
    def mine(a: str) -> bool:
        return ability is None or a == ability

    scored = [s for s in m.scored if s.baseline == name and mine(s.ability)]
    toks = [t for b, _, a, t in m.tokens if b == name and mine(a)]
    writes = [ms for b, a, ms in m.writes if b == name and mine(a)]
    return Row(name, ability or "all", len(scored), sum(s.outcome == "correct" for s in scored),
               sum(s.outcome == "confidently_wrong" for s in scored), sum(s.outcome == "unhelpful" for s in scored),
               *_costs(name, scored, toks, writes))


def _costs(name: str, scored: list[Scored], toks: list[int], writes: list[float]) -> tuple[float | None, float | None, float | None]:
    """Context tokens per turn, write and read milliseconds (medians) of one baseline; none for the
    chat service, which is measured apart; no write time for the baseline with no memory."""
    if name == SERVICE:
        return None, None, None
    return (None if not toks else round(sum(toks) / len(toks), 1),
            _median(writes) if name != "no_memory" else 0.0,
            _median([s.read_ms for s in scored]))


def rows(m: Measures) -> list[Row]:
    """One row per baseline and ability, then the baseline's total ("all"); the service last."""
    out = []
    for name in [*m.names, SERVICE]:
        abilities = [a for a in ABILITIES if any(s.ability == a for s in m.scored)]
        out += [_row(m, name, a) for a in abilities] + [_row(m, name, None)]
    return out


def long_turn_tokens(m: Measures, min_turns: int = LONG_TURNS) -> dict[str, float]:
    """Mean context tokens per turn on the conversations over `min_turns` turns, per baseline."""
    long = {c for c, n in m.turns.items() if n > min_turns}
    out = {}
    for name in m.names:
        toks = [t for b, c, _, t in m.tokens if b == name and c in long]
        if toks:
            out[name] = round(sum(toks) / len(toks), 1)
    return out


def _cell(value: float | None, fmt: str = "{:.0f}") -> str:
    return "—" if value is None else fmt.format(value)


def format_table(table: list[Row]) -> str:
    head = ("| baseline | ability | n | accuracy | confidently wrong | unhelpful | tokens/turn | write ms (p50) "
            "| read ms (p50) |")
    lines = [head, "|" + " --- |" * 9]
    for r in table:
        lines.append(f"| {r.baseline} | {r.ability} | {r.n} | {r.correct}/{r.n} ({r.accuracy:.0%}) | "
                     f"{r.confidently_wrong} | {r.unhelpful} | {_cell(r.tokens_per_turn)} | "
                     f"{_cell(r.write_ms, '{:.1f}')} | {_cell(r.read_ms, '{:.1f}')} |")
    return "\n".join(lines)


def format_accuracy(table: list[Row]) -> str:
    """The compact view: accuracy per ability (columns) for every baseline (rows)."""
    abilities = list(dict.fromkeys(r.ability for r in table if r.ability != "all"))
    lines = ["| baseline | " + " | ".join(abilities) + " | all | confidently wrong | tokens/turn |",
             "|" + " --- |" * (len(abilities) + 4)]
    by = {(r.baseline, r.ability): r for r in table}
    for name in dict.fromkeys(r.baseline for r in table):
        cells = [f"{by[name, a].correct}/{by[name, a].n}" for a in abilities]
        total = by[name, "all"]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {total.correct}/{total.n} ({total.accuracy:.0%}) | "
                     f"{total.confidently_wrong} | {_cell(total.tokens_per_turn)} |")
    return "\n".join(lines)


def report(m: Measures, set_name: str) -> str:
    table = rows(m)
    long = long_turn_tokens(m)
    note = ""
    if long:
        n_long = sum(1 for n in m.turns.values() if n > LONG_TURNS)
        note = (f"\n\nmean context tokens per turn on the {n_long} conversations over {LONG_TURNS} turns: "
                + ", ".join(f"{k} {v:.0f}" for k, v in long.items()))
    return (f"{set_name}: {len(m.turns)} conversations, {sum(m.turns.values())} turns, "
            f"{len([s for s in m.scored if s.baseline == SERVICE])} scored\n\n"
            + format_accuracy(table) + "\n\n" + format_table(table) + note)


def plot(m: Measures, path: Path, title: str = "") -> None:
    """Accuracy per ability per baseline (left); context tokens by turn on the long conversations (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.8))
    _plot_accuracy(left, m, title)
    _plot_tokens(right, m)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_accuracy(left: Any, m: Measures, title: str) -> None:
    """Bars: the accuracy of each baseline (and the chat service) per ability."""
    table = rows(m)
    abilities = list(dict.fromkeys(r.ability for r in table if r.ability != "all"))
    names = [*m.names, SERVICE]
    by = {(r.baseline, r.ability): r for r in table}
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        left.bar([a + (i - (len(names) - 1) / 2) * width for a in range(len(abilities))],
                 [by[name, ab].accuracy for ab in abilities], width, label=name)
    left.set_xticks(range(len(abilities)), [a.replace("_", "\n") for a in abilities], fontsize=8)
    left.set_ylabel("accuracy (share of scored turns)")
    left.set_ylim(0, 1.3)
    left.set_title(f"What each baseline gets right{title}")
    left.legend(fontsize=7, ncol=4, loc="upper center")


def _plot_tokens(right: Any, m: Measures) -> None:
    """Lines: each baseline's mean context tokens by turn over the conversations longer than
    LONG_TURNS turns (all of them if none is), up to the shortest one's length."""
    long = {c for c, n in m.turns.items() if n > LONG_TURNS} or set(m.turns)
    upto = min((m.turns[c] for c in long), default=0)
    for name in m.names:
        per_conv: dict[str, list[int]] = {}
        for b, c, _, t in m.tokens:
            if b == name and c in long:
                per_conv.setdefault(c, []).append(t)
        mean = [statistics.mean(v[j] for v in per_conv.values()) for j in range(upto)]
        right.plot(range(1, upto + 1), mean, label=name)
    right.set_xlabel("turn of the conversation")
    right.set_ylabel(f"context tokens (mean over the {len(long)} longest conversations)")
    right.set_title("What each baseline shows the reader per turn")
    right.legend(fontsize=7)


def write_json(path: Path, m: Measures, *, with_turns: bool) -> None:
    """The table (and, with `with_turns`, every graded answer: never for a frozen set)."""
    out: dict[str, Any] = {"rows": [{**asdict(r), "accuracy": r.accuracy} for r in rows(m)],
                           "long_turn_tokens": long_turn_tokens(m), "turns": sum(m.turns.values())}
    if with_turns:
        out["scored"] = [asdict(s) for s in m.scored]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")

"""Memory benchmark: what memory is worth over scripted conversations, per memory mode.

Eight scripted conversations (the longest of 73 turns) are played turn by turn, offline and
deterministically, once per mode: memory off / the last 6 messages / the running summary /
summary + memories (workshop_lib/parts/memory/card.py). At every turn the card the model
would see is built and its tokens counted; at each probe the offline answerer
(workshop_lib/parts/memory/card_answer.py), which knows nothing but the card, answers, and the
answer is scored: recall of stated facts, corrections that win (new value present, old one
absent), preferences applied, forgotten facts never used, no leak from another user.

    python -m bench.memory            # or: workshop bench memory / make bench-memory
Writes bench/results/memory.md (also printed), memory.png and memory.json.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workshop_lib import connect
from workshop_lib.parts.memory import card as cards
from workshop_lib.parts.memory import card_answer, writer

OUT = Path(__file__).resolve().parent / "results"
AGENT = "bench_agent"
MODES = cards.MODES
CATEGORIES = ("recall", "correction", "preference", "forgotten", "no leak")
BUDGET, MESSAGE_BUDGET, SUMMARY_BUDGET, LAST_N = 600, 250, 150, 6
ACK = "Noted, thank you."
# Analyst chatter between the statements: every line different (a real thread does not
# repeat itself), with the names and numbers that compete for the summary's budget.
_CARRIERS = ("MSC", "CMA CGM", "Cosco", "ONE", "Yang Ming", "ZIM")
_PORTS = ("Shanghai", "Singapore", "Busan", "Felixstowe", "Algeciras", "Piraeus", "Santos")
_TEMPLATES = (
    "How many containers are on voyage {v}?",
    "Which vessels of {c} called at {p} in week {w}?",
    "Show me the last position report for voyage {v}.",
    "Compare {c} and {c2} on the {p} lane for week {w}.",
    "What does the status column of VOYAGES mean for voyage {v}?",
    "List the refrigerated cargo items bound for {p}.",
    "How many TEU did {c} move through {p} in week {w}?",
    "Is voyage {v} delayed at {p}?",
)


def filler(i: int) -> str:
    return _TEMPLATES[i % len(_TEMPLATES)].format(
        v=1001 + (7 * i) % 90, c=_CARRIERS[i % len(_CARRIERS)], c2=_CARRIERS[(i + 2) % len(_CARRIERS)],
        p=_PORTS[i % len(_PORTS)], w=1 + (3 * i) % 52)


FILLER_REPLY = ("From the SUPPLYCHAIN schema: I looked this up with the tools and summarised the rows that "
                "answer it; ask for the full list if you need every line.")


@dataclass(frozen=True)
class Turn:
    user: str
    text: str
    category: str = ""           # set on probes
    expect: tuple = ()           # each must be in the answer
    forbid: tuple = ()           # none may be in the answer


def say(user: str, text: str) -> Turn:
    return Turn(user, text)


def probe(user: str, text: str, category: str, expect=(), forbid=()) -> Turn:
    return Turn(user, text, category, tuple(expect), tuple(forbid))


FILLER_TEXTS = frozenset(filler(i) for i in range(500))


def fillers(user: str, n: int, start: int = 0) -> list[Turn]:
    return [say(user, filler(start + i)) for i in range(n)]


def conversations() -> dict[str, list[Turn]]:
    u = "long_haul"
    long_haul = ([say(u, "My home port is Rotterdam."), say(u, "Our main carrier is Maersk."),
                  say(u, "I work for Nordic Freight.")] + fillers(u, 16)
                 + [say(u, "Actually, my home port is Hamburg.")] + fillers(u, 2, 16)
                 + [say(u, "Our reefer plug quote is 12500 cents."), say(u, "Answer in dollars, not cents.")]
                 + fillers(u, 4, 18) + [say(u, "Please forget our main carrier.")] + fillers(u, 28, 22)
                 + [probe(u, "What is my home port?", "correction", ["Hamburg"], ["Rotterdam"]),
                    probe(u, "Who do I work for?", "recall", ["Nordic Freight"]),
                    probe(u, "What is our reefer plug quote?", "preference", ["$125.00"], ["12500"]),
                    probe(u, "What is our main carrier?", "forgotten", forbid=["Maersk"])]
                 + fillers(u, 10, 50)
                 + [probe(u, "Do you remember my home port?", "correction", ["Hamburg"], ["Rotterdam"]),
                    probe(u, "What is our main carrier again?", "forgotten", forbid=["Maersk"])])
    u = "recall"
    recall = ([say(u, "Our contract number is HL-2291."), say(u, "My manager is Bruno Keller."),
               say(u, "Our insurance broker is Marsh.")] + fillers(u, 5)
              + [probe(u, "What is our contract number?", "recall", ["HL-2291"]),
                 probe(u, "Who is my manager?", "recall", ["Bruno Keller"]),
                 probe(u, "Who is our insurance broker?", "recall", ["Marsh"])])
    u = "correct_it"
    correct_it = ([say(u, "Our preferred terminal is Maasvlakte II.")] + fillers(u, 3)
                  + [say(u, "Our preferred terminal is Euromax."), say(u, "Sorry, it is Maasvlakte II after all.")]
                  + fillers(u, 8, 4)
                  + [probe(u, "What is our preferred terminal?", "correction", ["Maasvlakte II"], ["Euromax"])])
    u = "prefs"
    prefs = ([say(u, "Our budget is 40000 cents."), say(u, "I prefer answers in cents.")] + fillers(u, 4)
             + [say(u, "Actually, answer in dollars, not cents.")] + fillers(u, 9, 6)
             + [probe(u, "What is our budget?", "preference", ["$400.00"], ["40000"])])
    u = "forget"
    forget = ([say(u, "My home port is Antwerp."), say(u, "Our backup carrier is CMA CGM.")] + fillers(u, 3)
              + [say(u, "Forget my home port.")] + fillers(u, 8, 1)
              + [probe(u, "What is my home port?", "forgotten", forbid=["Antwerp"]),
                 probe(u, "What is our backup carrier?", "recall", ["CMA CGM"]),
                 say(u, "My home port is Le Havre.")] + fillers(u, 2)
              + [probe(u, "What is my home port?", "correction", ["Le Havre"], ["Antwerp"])])
    a, b = "leak_a", "leak_b"
    leak = ([say(a, "My home port is Valencia."), say(a, "Our main carrier is Hapag-Lloyd."),
             say(b, "Our main carrier is Evergreen.")] + fillers(b, 6)
            + [probe(b, "What is my home port?", "no leak", forbid=["Valencia"]),
               probe(b, "What is our main carrier?", "no leak", ["Evergreen"], ["Hapag-Lloyd"]),
               probe(a, "What is our main carrier?", "recall", ["Hapag-Lloyd"], ["Evergreen"])])
    u = "cues"
    cues = ([say(u, "Remember that my customs broker is Kuehne Nagel."),
             say(u, "Keep in mind that our warehouse is in Venlo."),
             say(u, "Note that my team size is 12 analysts.")] + fillers(u, 9)
            + [probe(u, "Who is my customs broker?", "recall", ["Kuehne Nagel"]),
               probe(u, "Where is our warehouse?", "recall", ["Venlo"]),
               probe(u, "What is my team size?", "recall", ["12 analysts"])])
    u = "plain"
    plain = ([say(u, "I live in Oslo."), say(u, "My manager is Ingrid.")] + fillers(u, 6)
             + [say(u, "Actually, my manager is Kari now.")] + fillers(u, 4, 2)
             + [probe(u, "Where do I live?", "recall", ["Oslo"]),
                probe(u, "Who is my manager?", "correction", ["Kari"], ["Ingrid"])])
    return {"long_haul": long_haul, "recall": recall, "correct_it": correct_it, "prefs": prefs,
            "forget": forget, "cross_user": leak, "cues": cues, "plain": plain}


def _passed(turn: Turn, reply: str) -> bool:
    return all(e in reply for e in turn.expect) and not any(f in reply for f in turn.forbid)


def run_mode(mode: str, convs: dict[str, list[Turn]]) -> dict:
    results: list[dict] = []
    tokens: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        eng = connect("embedded", path=tmp)
        eng.open_store()
        for name, turns in convs.items():
            tokens[name] = []
            for turn in turns:
                thread = f"{name}:{turn.user}"
                if mode == "summary+memories" and not turn.category:
                    writer.observe_user_turn(eng, turn.text, user_id=turn.user, agent_id=AGENT, thread_id=thread)
                card = cards.memory_card(eng, thread, turn.text, user_id=turn.user, agent_id=AGENT, mode=mode,
                                         budget=BUDGET, last_n=LAST_N)
                tokens[name].append(card.total_tokens)
                if turn.category:
                    reply = card_answer.answer_from_card(card, turn.text)
                else:
                    reply = FILLER_REPLY if turn.text in FILLER_TEXTS else ACK
                if turn.category:
                    results.append({"conversation": name, "category": turn.category, "question": turn.text,
                                    "answer": reply, "passed": _passed(turn, reply)})
                eng.store.add([turn.text, reply], record_type="message", thread_ids=thread, user_ids=turn.user,
                              agent_ids=AGENT, roles=["user", "assistant"])
                if mode in ("summary", "summary+memories"):
                    writer.fold_thread(eng, thread, user_id=turn.user, message_budget=MESSAGE_BUDGET,
                                       summary_budget=SUMMARY_BUDGET)
        eng.close()
    return {"mode": mode, "probes": results, "tokens": tokens}


def table(runs: list[dict]) -> str:
    head = "| mode | " + " | ".join(CATEGORIES) + " | all probes | card tokens/turn (mean) | max |"
    lines = [head, "|" + " --- |" * (len(CATEGORIES) + 4)]
    for r in runs:
        cells = []
        for cat in CATEGORIES:
            got = [p["passed"] for p in r["probes"] if p["category"] == cat]
            cells.append(f"{sum(got)}/{len(got)}")
        every = [p["passed"] for p in r["probes"]]
        toks = [t for ts in r["tokens"].values() for t in ts]
        lines.append(f"| {r['mode']} | " + " | ".join(cells) + f" | {sum(every)}/{len(every)} | "
                     f"{sum(toks) / len(toks):.0f} | {max(toks)} |")
    return "\n".join(lines)


def plot(runs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.2
    for i, r in enumerate(runs):
        rates = []
        for cat in CATEGORIES:
            got = [p["passed"] for p in r["probes"] if p["category"] == cat]
            rates.append(sum(got) / len(got))
        left.bar([c + (i - 1.5) * width for c in range(len(CATEGORIES))], rates, width, label=r["mode"])
        right.plot(range(1, len(r["tokens"]["long_haul"]) + 1), r["tokens"]["long_haul"], label=r["mode"])
    left.set_xticks(range(len(CATEGORIES)), CATEGORIES)
    left.set_ylabel("probes passed (share)")
    left.set_title("What each memory mode gets right")
    left.set_ylim(0, 1.25)
    left.legend(fontsize=8, loc="upper center", ncol=4)
    right.axhline(BUDGET, color="grey", linestyle=":", label=f"card budget ({BUDGET})")
    right.set_xlabel(f"turn of the {len(runs[0]['tokens']['long_haul'])}-turn conversation")
    right.set_ylabel("card tokens")
    right.set_title("What each mode costs per turn")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args(argv)
    convs = conversations()
    started = time.perf_counter()
    runs = [run_mode(m, convs) for m in args.modes.split(",")]
    seconds = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    text = table(runs)
    turns = sum(len(t) for t in convs.values())
    note = (f"\n\n{len(convs)} conversations, {turns} turns (the longest {max(len(t) for t in convs.values())}), "
            f"{sum(len(r['probes']) for r in runs[:1])} probes per mode; card budget {BUDGET} tokens, "
            f"raw messages {MESSAGE_BUDGET}, summary {SUMMARY_BUDGET}, last-N {LAST_N}; {seconds:.1f} s.\n")
    (args.out / "memory.md").write_text(text + note, encoding="utf-8")
    (args.out / "memory.json").write_text(json.dumps(runs, indent=1), encoding="utf-8")
    plot(runs, args.out / "memory.png")
    print(text + note)


if __name__ == "__main__":
    main()

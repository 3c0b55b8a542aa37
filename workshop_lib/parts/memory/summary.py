"""Short-term memory under a budget: compaction and the running thread summary.

`compact` is the reference for the Part's second TODO: the thread's messages not yet in
the summary (oldest first) and a token budget for them; it keeps the newest messages whose
tokens fit in the budget and folds every older one into the summary. Whole messages only,
order kept, nothing lost: fold + keep is exactly the input. The newest message is always
kept, even alone over the budget (the model must see the question it answers).

`summarise_extractive` is the offline summariser: it keeps the sentences that carry
entities (capitalised names, codes), numbers and decisions, and cuts the lowest-scoring
ones first until the summary fits its own budget. `summarise_with_model` is the abstractive
one. The summary is a record of its own (record_type memory, kind thread_summary, id
summary:<thread>), scoped to the thread and its user, never to the agent's knowledge, so
retrieval never returns it. What the user asked to remember is written as a memory by the
write path; the summary is never the only place it lives.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

SUMMARY_KIND = "thread_summary"
_DECISION = re.compile(r"\b(decid\w*|agree\w*|chose|choose|confirm\w*|book\w*|order\w*|will|plan\w*|"
                       r"approv\w*|cancel\w*|remember|prefer\w*|from now on|actually|forget)\b", re.I)
_NUMBER = re.compile(r"\d")
_ENTITY = re.compile(r"\b(?:[A-Z][a-z]+|[A-Z]{2,}[A-Z0-9_]*|[A-Z][A-Z0-9]+\d)\b")


@dataclass(frozen=True)
class Turn:
    """One message as the compaction sees it."""

    role: str
    text: str


@dataclass
class Compaction:
    fold: list      # oldest messages, to fold into the summary, in order
    keep: list      # newest messages, kept verbatim, in order


def compact(messages: Sequence, budget: int, count_tokens: Callable[[str], int]) -> Compaction:
    """Split `messages` (oldest first, each with .text) into what folds and what stays."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise ValueError(f"budget must be a non-negative integer, got {budget!r}")
    msgs = list(messages)
    kept, used = 0, 0
    for m in reversed(msgs):
        cost = count_tokens(m.text)
        if kept and used + cost > budget:
            break
        kept += 1
        used += cost
    cut = len(msgs) - kept
    return Compaction(fold=msgs[:cut], keep=msgs[cut:])


def _sentences(role: str, text: str) -> list[str]:
    return [f"{role}: {s.strip()}" for s in re.split(r"(?<=[.!?])\s+", text or "") if s.strip()]


def _score(sentence: str) -> int:
    body = sentence.split(": ", 1)[-1]
    score = 2 * bool(_DECISION.search(body)) + 2 * bool(_NUMBER.search(body))
    score += min(3, len(_ENTITY.findall(body[1:])))  # the first word's capital is not a name
    score += 1 if sentence.startswith("user:") else 0  # what the user said beats the answer to it
    return score


def _exchanges(lines: list[str]) -> list[tuple[str, ...]]:
    """Lines grouped by exchange: a user's line and the assistant's lines that answer it."""
    out: list[list[str]] = []
    for ln in lines:
        if ln.startswith("assistant:") and out:
            out[-1].append(ln)
        else:
            out.append([ln])
    return [tuple(x) for x in out]


def summarise_extractive(previous: str, folded: Sequence, max_tokens: int,
                         count_tokens: Callable[[str], int]) -> str:
    """The previous summary's lines plus the folded messages' informative sentences, within max_tokens.

    A question and what the assistant concluded stay together (one exchange): an exchange is kept
    or dropped whole, scored by its most informative sentence, so the summary keeps the answers
    the user was given, not only what they asked."""
    units = _exchange_units(previous, folded)
    return _within_budget(units, max_tokens, count_tokens)


def _exchange_units(previous: str, folded: Sequence) -> list:
    """The previous summary's exchanges, then one per folded question with the assistant's answer
    joined to it (each exchange once), each as its informative sentences."""
    units: list = [list(u) for u in _exchanges([ln for ln in (previous or "").splitlines() if ln.strip()])]
    fresh = True  # the first folded answer does not join an exchange of the previous summary
    for m in folded:
        role = getattr(m, "role", "user")
        said = [s for s in _sentences(role, m.text) if _score(s) > 1]
        if role != "assistant" or fresh:
            units.append([])
        units[-1] += said
        fresh = False
    return list(dict.fromkeys(tuple(u) for u in units if u))  # an exchange said twice is kept once


def _within_budget(units: list, max_tokens: int, count_tokens: Callable[[str], int]) -> str:
    """The exchanges' lines, the lowest-scoring (then the oldest) exchanges dropped until the
    summary fits in max_tokens."""
    score = [max(_score(ln) for ln in u) for u in units]
    cost = [sum(count_tokens(ln) for ln in u) for u in units]
    dropped: set[int] = set()
    total = sum(cost)
    for i in sorted(range(len(units)), key=lambda i: (score[i], i)):
        if total <= max_tokens:
            break
        dropped.add(i)
        total -= cost[i]
    return "\n".join(ln for i, u in enumerate(units) if i not in dropped for ln in u)


SUMMARY_PROMPT = ("Update the running summary of a conversation. Keep every name, number, code and "
                  "decision; drop small talk. At most {max_tokens} tokens, plain lines.")


def summarise_with_model(llm, previous: str, folded: Sequence, max_tokens: int,
                         count_tokens: Callable[[str], int]) -> str:
    """Abstractive summary from a model; the extractive one when the model fails or runs over budget."""
    text = "\n".join(f"{getattr(m, 'role', 'user')}: {m.text}" for m in folded)
    try:
        out = llm.complete(SUMMARY_PROMPT.format(max_tokens=max_tokens),
                           f"Summary so far:\n{previous or '(none)'}\n\nNew messages:\n{text}").strip()
        if out and count_tokens(out) <= max_tokens:
            return out
    except Exception:  # noqa: BLE001 - the offline summary is always there
        pass
    return summarise_extractive(previous, folded, max_tokens, count_tokens)

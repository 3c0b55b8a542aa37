"""What a memory still says once the user asks to forget one thing in it.

"Our customer Olivar Verde has booking reference OV-2291, olive oil in flexitanks", then "forget that
booking reference": the customer is not what they asked to drop. A memory that holds more than the
thing named keeps the rest (the caller writes it as a new memory and retires the old one whole, so the
forgotten words are never served again); a memory about nothing else goes whole.
"""
from __future__ import annotations

import re

from workshop_lib.assistant.sentences import NOT_AFTER_AN_ABBREVIATION

# where one statement of a sentence ends and the next begins
_CLAUSE_END = re.compile(r",\s+(?:and\s+|but\s+)?|\s+[—–]\s+|\s+-\s+|;\s*|(?<=[.!?])" + NOT_AFTER_AN_ABBREVIATION + r"\s+|"
                         r"\s+(?:and|but)\s+(?=(?:they|it|he|she|we|who)\b)")
# a clause that only goes on about the one before it ("..., they ship lithium batteries")
_GOES_ON = re.compile(r"^(?:they|them|their|it|its|he|she|his|her|who|which)\b", re.I)
# a clause that is a value alone ("4471#", "PIN 0042"): the value of what the clause before named
_VALUE_ALONE = re.compile(r"^(?:[A-Za-z]{0,4}\s?)?[#*\d][\w#*./-]*\.?$")
_FUNCTION = set("""a an the that this those these of to in on at for with by from and or my our i you we me us it
is are was were be been has have had please forget delete erase remove drop keep don't do not any anywhere
everything all about what gave said told you know""".split())


def what_stays(content: str, request: str, named: list[str], others: list[str]) -> str:
    """The memory's words without what the request names: clauses that hold a name it names (and
    those that go on about it) go; in a clause that holds a name it does not name (`others`), a detail
    the request repeats goes. "" when nothing of `others` is left to keep."""
    kept = _clauses_kept(content, _content_words(request), named, others)
    # ("has a new gate code" without the gate code: the words left dangling at the end go too)
    kept = [re.sub(r"\s+(?:has|have|is|are|with)?\s*(?:a|an|the|our|my|new)?(?:\s+new)?\s*[.!]?\s*$", "", c) or c for c in kept]
    rest = ", ".join(c.strip().rstrip(".") for c in kept if c.strip())
    return rest + "." if rest and any(_has(rest, o) for o in others) else ""


def _clauses_kept(content: str, asked: set[str], named: list[str], others: list[str]) -> list[str]:
    """The clauses that stay, each as it stays; a clause after one dropped or cut that goes on about it
    ("gate code, 4471#, the drivers need it": its value too) goes."""
    kept: list[str] = []
    dropped_last = False
    for clause in [c for c in _CLAUSE_END.split(content.strip()) if c and c.strip()]:
        if dropped_last and (_GOES_ON.match(clause.strip()) or _VALUE_ALONE.match(clause.strip())):
            continue
        stays = _clause_kept(clause, asked, named, others)
        dropped_last = stays is None or stays != clause
        kept += [stays] if stays else []
    return kept


def repeats_a_detail(content: str, request: str) -> bool:
    """The request repeats a detail of the memory in its words ("the gate code"), not by a name."""
    return _repeats(content, _content_words(request))


def _clause_kept(clause: str, asked: set[str], named: list[str], others: list[str]) -> str | None:
    """The clause, whole when it names nothing the request does; None when it names a name the request
    names (all of it is about that one); without the request's words when they are a detail of a name
    the request does not name ("booking reference OV-2291" of the customer); else None."""
    if any(_has(clause, n) for n in named):
        return None
    if not _repeats(clause, asked):
        return clause
    return _without_repeated(clause, asked) if any(_has(clause, o) for o in others) else None


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w'-]+", text.lower()) if w not in _FUNCTION and len(w) > 1}


def _has(text: str, name: str) -> bool:
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.I) is not None


def _repeats(clause: str, asked: set[str]) -> bool:
    """The clause says two of the request's words, or a code of it ("OV-2291")."""
    said = _content_words(clause) & asked
    return len(said) >= 2 or any(re.search(r"\d", w) for w in said)


def _without_repeated(clause: str, asked: set[str]) -> str:
    """The clause without the runs of words the request says (two or more, or a code)."""
    words = list(re.finditer(r"[\w'-]+", clause))
    cut: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []
    for w in [*words, None]:
        if w is not None and w.group(0).lower() in asked:
            run.append(w)
            continue
        if len(run) >= 2 or any(re.search(r"\d", r.group(0)) for r in run):
            cut.append((run[0].start(), run[-1].end()))
        run = []
    for start, end in reversed(cut):
        clause = clause[:start] + clause[end:]
    return re.sub(r"\s{2,}", " ", clause).strip()

"""A short follow-up read with the rows the thread's previous question named.

"When does voyage 1042 leave?" then "and the ETA?": the second question names nothing, so no
handler can ground it. When it reads as a follow-up (it starts with "and", "what about", "same
for", or it is a few words with a pronoun) and the previous question of the same thread named
records of the data (a vessel, voyage, container, carrier, by name or number), or its answer named
exactly one, the question is asked again with them ("and the ETA of voyage 1042?"). The answer says how it was read, so a
wrong reading is visible, and it is used only when a handler grounds it; otherwise the first
fallback stands. Nothing of another thread or user is read: the previous question is this
thread's own.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from workshop_lib import assistant
from workshop_lib.assistant.answering import router
from workshop_lib.assistant.schema_links import SYNONYMS, TABLE_NOUNS
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS
from workshop_lib.parts import grounded

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

MAX_WORDS = 8           # a follow-up is short; a longer question says what it is about itself
# how a follow-up starts, and the words that point back
# ("und bei CMA CGM?", "y para el Kyoto Express?", "et pour ...?": "and" in German, Spanish and French)
_LEAD = re.compile(r"^\s*(?:(?:ok(?:ay)?|right|cool|thanks|great|so)[,.!]?\s+)*(?:and|what about|how about|same (?:for|with)|"
                   r"also|plus|und|y|et)\b[,:]?\s*", re.I)
_POINTING = re.compile(r"\b(?:it|its|it's|she|her|they|them|their|that one|this one|there)\b", re.I)
# a voyage or container named by its number in the previous question ("voyage 1042")
_BY_NUMBER = re.compile(r"\b(?:voyage|sailing|trip)\s+\d{3,5}\b", re.I)


def is_follow_up(question: str) -> bool:
    """Short, and it starts like a follow-up or points back with a pronoun."""
    words = question.split()
    return 0 < len(words) <= MAX_WORDS and (_LEAD.match(question) is not None or _POINTING.search(question) is not None)


def named_before(eng: Engine, previous: str, table: str | None = None) -> list[str]:
    """The records of the data the previous question named, as it wrote them (of one table, when given)."""
    _, values = assistant.knowledge(eng)
    said = [str(lk.value) for lk in values.links(previous) if lk.how in ("exact", "fuzzy", "partial")
            and (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS and lk.table != "PORTS"
            and table in (None, lk.table)]
    if table in (None, "VOYAGES"):
        said += [m.group(0) for m in _BY_NUMBER.finditer(previous)]
    return list(dict.fromkeys(said))


# "the vessel", "that ship": one row of a table, pointed at rather than named
_DEFINITE = re.compile(r"\b(?:the|that|this)\s+([a-z]+)\b(?!\s+(?:of|with|that|which|whose|named|called)\b)", re.I)


def pointed_at(eng: Engine, question: str, previous: str) -> str | None:
    """"How fast is the vessel going?" after "we have cargo on Ever Acme": the question with the one
    row of that table the previous turn named in place of "the vessel"; None when it points at no
    table's row or the previous turn named none, or more than one, of that table."""
    for m in _DEFINITE.finditer(question):
        table = TABLE_NOUNS.get(SYNONYMS.get(m.group(1).lower(), ""))
        if table is None or table == "PORTS":
            continue
        named = named_before(eng, previous, table)
        if len(named) == 1:
            return f"{question[:m.start()]}{named[0]}{question[m.end():]}"
        return None
    return None


def read_with(eng: Engine, question: str, previous: str | None, previous_answer: str | None = None) -> str | None:
    """The follow-up asked with what the previous question named ("and the ETA?" -> "the ETA of voyage
    1042?"), or, when it named nothing ("where is the ship carrying my box headed?"), the one record
    the previous answer named; None when it is no follow-up, nothing was named, or the question names
    it already."""
    if not previous:
        return None
    if not is_follow_up(question):
        return None if named_before(eng, question) else pointed_at(eng, question, previous)
    if (again := _asked_again_of(eng, question, previous)) is not None:
        return again
    if (priced := _priced_again(eng, question, previous)) is not None:
        return priced
    named = named_before(eng, previous)
    if not named and previous_answer:
        in_answer = named_before(eng, previous_answer)
        named = in_answer if len(in_answer) == 1 else []  # a list of rows says no one row
    named = [n for n in named if n.lower() not in question.lower()]
    if not named or named_before(eng, question):
        return None
    asked = _LEAD.sub("", question).strip().rstrip("?.! ")
    if re.match(r"(?:the\s+|that\s+|this\s+)?(?:\w+\s+)?ones?$", asked, re.I):
        return None  # "and the latest one?": another of the things just talked about, not of the record named
    asked = _POINTING.sub(named[0], asked, count=1) if _POINTING.search(asked) else f"{asked} of {' and '.join(named)}"
    return f"{asked}?"


def _priced_again(eng: Engine, question: str, previous: str) -> str | None:
    """"What does drayage cost per move?" then "And a customs entry?": the price of another thing of the
    catalog, asked in a few words that name nothing of the data; None otherwise."""
    rest = _LEAD.sub("", question).strip(" ?.!")
    if not rest or len(rest.split()) > 5 or _POINTING.search(rest) or named_before(eng, question):
        return None
    if not (router.PRICE_RE.search(previous) and grounded.named_items(previous)):
        return None
    return f"What does {rest} cost?"


def _asked_again_of(eng: Engine, question: str, previous: str) -> str | None:
    """"What's the gross weight of CAIU0553203?" then "And of EGHU4778240?": a follow-up that only names
    another record of the same table is the previous question asked of it; None otherwise."""
    _, values = assistant.knowledge(eng)
    links = [lk for lk in values.links(question) if (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS]
    rest = _LEAD.sub("", question)
    for lk in links:
        rest = rest.replace(question[lk.start:lk.end], " ")
    if len(links) != 1 or re.sub(r"\b(?:of|for|with|at|on|the|container|box|vessel|ship|voyage|bei|f[üu]r|von|mit|para|"
                                 r"por|con|de|del|pour|avec|chez|du)\b|\W", "", rest, flags=re.I):
        return None  # it asks something of its own beside the name
    before = [lk for lk in values.links(previous) if (lk.table, lk.column) == (links[0].table, links[0].column)]
    if len(before) != 1:
        return None
    return f"{previous[:before[0].start]}{question[links[0].start:links[0].end]}{previous[before[0].end:]}"

"""Does an answer's source say anything about every word of the question?

A grounded handler answers from rows: catalog items, stock per port, port locations. Its answer
covers a question only when each content word of the question is explained by those rows (their
names and descriptions), by what the handler does (its own small vocabulary) or by plain English.
"Any good seafood restaurants near the port of Rotterdam" has two words no port row explains:
the nearest ports would answer something else, under a grounded badge.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from workshop_lib.assistant.planner import _PLAIN, _QUESTION
from workshop_lib.assistant.schema_links import TABLE_NOUNS, stem, words_of
from workshop_lib.data import catalog, countries

# A request for equipment describes cargo the catalog never names (porcelain, olive oil): only the
# handlers whose rows are the whole answer (stock at a port, a port's place) are checked word by word.
CHECKED = ("EQUIPMENT_AVAILABILITY", "PORT_LOCATION")
# What each grounded handler does, in its own words (the rows explain the rest).
HANDLER_WORDS = {
    "EQUIPMENT_AVAILABILITY": """available availability stock in-stock units unit have lease rent hire depot depots
        free ready spare port ports where which location locations equipment container containers box boxes offer
        offered offering pick collect get obtain supply supplied provide provided service services""",
    "PORT_LOCATION": """where located location locate coordinates latitude longitude lat lon map near nearest closest
        far distance distances km kilometres kilometers miles nautical region country port ports harbour harbor
        terminal situated lie lies city find straight line great circle between locode unlocode code codes""",
}


def _vocabulary(texts: Iterable[str]) -> set[str]:
    return {w for t in texts for w in words_of(t.replace("-", " ").replace("/", " "))}


@functools.lru_cache(maxsize=64)  # per answered set of items: the same few sets again and again
def _rows_vocabulary(item_ids: tuple[str, ...] | None = None) -> frozenset[str]:
    """The words of the catalog's rows (of the items given, when given) and of every port and country."""
    texts = [f"{i.item_id} {i.name} {i.category} {i.description} {i.price_unit}" for i in catalog.ITEMS
             if item_ids is None or i.item_id in item_ids]
    for code, port in catalog.ports().items():
        texts.append(f"{code} {port.get('name', '')} {port.get('region', '')} {port.get('country', '')}")
    texts += [" ".join(names) for names in countries.NAMES.values()]
    return frozenset(_vocabulary(texts))


_ROWS = _rows_vocabulary()
_MEASURES = set("""tonnes tonne tons ton kg kilos kilograms m3 cbm cubic litres liters metres meters feet degrees
celsius payload volume weight capacity""".split())
_PLAIN_WORDS = {stem(w) for w in _PLAIN | _QUESTION} | set(TABLE_NOUNS)


def unexplained(question: str, handler: str, item_ids: Iterable[str] | None = None) -> list[str]:
    """The content words of the question that neither the grounded rows (the items answered with, when
    given: another item's description explains nothing of this answer), the handler's own words nor
    plain English explain (numbers, codes and short words aside)."""
    if handler not in CHECKED:
        return []
    rows = _ROWS if not item_ids else _rows_vocabulary(tuple(item_ids))
    own = _vocabulary([HANDLER_WORDS.get(handler, "")])
    # stock is counted in units: a weight, a volume or a temperature asks about the item itself
    measures = _MEASURES if handler == "EQUIPMENT_AVAILABILITY" else set()
    out = []
    # "Durban's latitude": the possessive is the port's own name
    text = re.sub(r"(?<=\w)['\u2019]s\b", "", question).replace("-", " ").replace("/", " ")
    for raw, word in zip(re.findall(r"[A-Za-z][A-Za-z'-]*", text), words_of(text), strict=True):
        if raw.lower() in measures:
            out.append(raw)
            continue
        if len(raw) < 4 or word in _PLAIN_WORDS or word in own or word in rows or raw.lower() in rows:
            continue
        out.append(raw)
    return out

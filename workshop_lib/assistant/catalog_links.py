"""Which catalog item a question describes, and what a quantity of it costs.

A question such as "marble blocks that go in by crane: which box?" names no item; the item's
description does name marble and cranes. Each word the question shares with an item's name or
description counts by how few items use it (inverse document frequency over the catalog), so
"marble" weighs more than "container". The catalog is small and its descriptions say what each
item is for: this lexical match picks the item a description was written for, where an
embedding of the whole question is pulled towards the item whose wording it resembles most.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from workshop_lib.assistant.schema_links import TABLE_NOUNS
from workshop_lib.data.catalog import ITEMS, Item, ports

# function words and the words every request uses; they say nothing about which item
_STOP = set("""a an and are as at be but by can could do does for from had has have how i if in into is it its
me my need needs of on or our please should so some than that the their them there these they this those to
us want we what when where which who will with would you your whats use used using get got take takes taking book pick choose
not no won don t fit foot feet ft footer price cost other another about around roughly approx""".split())  # "not", "no": a negation is not a need
# a confident pick: the best item's words weigh at least this much and lead the next item by this much
MIN_SCORE = 3.0
MIN_LEAD = 1.0
_DAYS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
# a count is followed by what it counts ("10 reefers", "three 40' racks", "4 of them"), never by a unit
_COUNT_RE = re.compile(r"(?<![\w.'])(\d{1,5})(?=\s+(?:\d{2}\s*(?:'|ft\b|-?foot\b)\s*)?[a-z])"
                       r"(?!\s*(?:days?|weeks?|ft|foot|feet|footers?|km|kms|miles?|m3|t|tonnes?|kg)\b)")
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                 "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30}


def _stem(word: str) -> str:
    """Plurals and verb endings folded ("transformers" and "transformer", "trucking" and "truck")."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word  # "crane" and "craned"


def words(text: str, *, parts: bool = False) -> set[str]:
    """The content words of a text, stemmed; sizes such as 20' or 40-foot become "20", "40". With `parts`
    (a question's words), a compound's parts are its words too: "crane-loaded" asks for a crane."""
    t = text.lower().replace("twenty", "20").replace("forty", "40")
    found = re.findall(r"[a-z][a-z-]*[a-z]|\d{2}(?=\s*(?:'|ft|foot|feet|footer|-))", t)
    if parts:
        found += [part for w in found if "-" in w for part in w.split("-") if len(part) > 2]
    return {_stem(w) for w in found if w not in _STOP}


# a request for something to use, lease or buy: the catalog's kind of question
_REQUEST_RE = re.compile(r"\b(?:recommend\w*|suggest\w*|best (?:equipment|container|box|option|choice|unit)|"
                         # "which box for bananas", not "which boxes are carrying lithium" (rows of the data)
                         r"(?:which|what) (?:container|box|equipment|item|service|one|kind|type)(?:e?s)?"
                         r"(?!\s+(?:are|is|were|was|have|has|had|hold\w*|carr\w+|contain\w*|went|go\w*|sail\w*|"
                         r"arriv\w*|depart\w*|left|on|in)\b)|"
                         r"(?:what|which) (?:would|should|do|can|could) (?:you|i|we) use|"
                         # "who can sort the hazmat paperwork": a service asked for by what it does
                         r"who (?:can|could|will) (?:help|do|file|sort|handle|arrange|book|clear|take care|organi[sz]e)|"
                         # "what should I ship it in?": what to put the goods in
                         r"what (?:should|do|can|could) (?:i|we) (?:ship|send|put|move|carry|pack|load)(?: \w+){0,2} in|"
                         r"leas(?:e|ing)|rent(?:al)?|hire|(?:do )?you offer|price|cost|quote|how much|what do (?:i|we) need|"
                         r"(?:daily|day|per day|lease|rental|hire) rates?|"
                         # a price asked in the corpus' other languages
                         r"combien|co[uû]te?|prix|tarifs?|cu[aá]nto cuesta|precio|kostet|preis)\b",
                         re.I)


# a need stated without asking ("we need two euro pallets side by side"): a request only when one
# item's description matches it twice as strongly as a confident pick needs
_NEED_RE = re.compile(r"\b(?:need|needs|want|have to (?:ship|move|send)|looking for)\b", re.I)


IDENTIFIER_RE = re.compile(r"\b[A-Z]{2,}[-/]?\d[\w-]*\b")
_ITEM_IDS = {i.item_id for i in ITEMS}


def names_other_identifier(question: str) -> bool:
    """The question names a code that is no catalog item ("CL-2025-0457", "MSCU4829130", "UN3480"):
    it is about that claim, container or document, which the catalog knows nothing of."""
    return any(m.group(0) not in _ITEM_IDS for m in IDENTIFIER_RE.finditer(question))


def asks_for_item(question: str, *, described: bool = False) -> bool:
    """A request for equipment or a service: said so, or (with `described`) described so that one item
    clearly leads."""
    return _REQUEST_RE.search(question) is not None or described_need(question, clear_lead=described)


def described_need(question: str, *, clear_lead: bool = True) -> bool:
    """A need one item's description meets strongly ("looking for a box that takes two Euro pallets side by side"):
    said as a need, or (`clear_lead`) with that item far ahead of any other."""
    ranked = rank(question)
    return bool(ranked) and ranked[0].score >= 2 * MIN_SCORE and (_NEED_RE.search(question) is not None
                                                                  or (clear_lead and _clear_lead(ranked)))


def _clear_lead(ranked: list[ItemLink]) -> bool:
    """One item shares twice the weight of words with the question that any other does ("condensation"
    and "coffee" for the ventilated box): the description points at it, however the request is put."""
    return ranked[0].score >= 1.5 * MIN_SCORE and (len(ranked) == 1 or ranked[0].score >= 2 * ranked[1].score)


def _only_its_own(question: str, ranked: list[ItemLink]) -> bool:
    """Equipment or a service asked for ("what equipment?", "who can do ...?") for goods only one item's
    description gives as its example ("a transformer": the 40' flat rack's "boats, vehicles, transformers"),
    that item ahead of every other sharing a word with the question."""
    if _RECOMMENDING.search(question) is None:
        return False
    examples = _EXAMPLES[ITEMS.index(ranked[0].item)]
    unique = any(_IDF[w] >= math.log(len(ITEMS)) and w in examples for w in ranked[0].words)
    return unique and (len(ranked) == 1 or ranked[0].score > ranked[1].score)


# a request for equipment or a service to use, not for a price or a figure
_RECOMMENDING = re.compile(r"\b(?:recommend\w*|suggest\w*|options?|(?:which|what) (?:equipment|box|container|unit|"
                           r"service)s?\b(?! (?:are|is|were|was)\b)|what (?:do|should|can) (?:i|we) use|"
                           r"who (?:can|could|will) (?:help|do|sort|handle|arrange|take care))", re.I)


def _examples_of(description: str) -> set[str]:
    """The words of the goods a description gives as its examples ("for ... such as meat, fish", ": boats,
    vehicles, transformers")."""
    return set().union(*(words(m.group(1)) for m in re.finditer(r"(?:such as|like|:)\s+([^.;]+)", description, re.I)),
                       set())


_EXAMPLES = [_examples_of(i.description) for i in ITEMS]


@dataclass(frozen=True)
class ItemLink:
    item: Item
    score: float
    words: tuple[str, ...]      # the shared words, heaviest first


def _item_words() -> list[set[str]]:
    """The words of each item's name and description, and the short name its id ends with ("SV-PTI": "pti",
    the pre-trip inspection people ask for by its initials) when it is a word, not a size code."""
    return [words(f"{i.name} {i.description}") | {w for w in [i.item_id.split("-")[-1].lower()] if w.isalpha()}
            for i in ITEMS]


_ITEM_WORDS = _item_words()
# words of a request that say nothing of what is needed, and the ports' names (a place, not a need)
_REQUEST_WORDS = {_stem(w) for w in """recommend suggest suggestion lease leasing rent rental hire offer price cost quote
much many long per day days week weeks ship shipping move send looking best equipment item service kind type
option choice cargo load""".split()}
_PLACE_WORDS = {_stem(w.lower()) for p in ports().values()
                for w in re.findall(r"[A-Za-z]+", p.get("name", ""))}
_TABLE_WORDS = {_stem(w) for w in TABLE_NOUNS if w not in ("container", "containers", "box", "boxes")}
_IDF = {w: math.log(len(ITEMS) / sum(w in ws for ws in _ITEM_WORDS)) for ws in _ITEM_WORDS for w in ws}


def described_elsewhere(question: str, chosen: Sequence[Item]) -> set[str]:
    """The words of a request that the descriptions of other equipment use and those of the items
    chosen do not ("frozen" of "20 t of frozen fish": the reefers'): a need the chosen items do not meet."""
    mine = set().union(*(_ITEM_WORDS[ITEMS.index(i)] for i in chosen))
    others = set().union(*(ws for i, ws in zip(ITEMS, _ITEM_WORDS, strict=True) if i.category == "equipment" and i not in chosen))
    asked = words(question, parts=True) - _REQUEST_WORDS - _PLACE_WORDS - _TABLE_WORDS
    return {w for w in asked & others - mine if not w.isdigit()}


def rank(question: str, items: Sequence[Item] = ITEMS) -> list[ItemLink]:
    """Items ordered by the weight of the words they share with the question (none shared: left out).
    Words that name the data's tables ("voyage", "port") say where, not what is needed."""
    return list(_ranked(question, tuple(items)))


@functools.lru_cache(maxsize=512)
def _ranked(question: str, items: tuple[Item, ...]) -> tuple[ItemLink, ...]:
    # (the router and the handlers rank the same question several times: the catalog does not change)
    return tuple(_ranking(question, items))


def _ranking(question: str, items: Sequence[Item]) -> list[ItemLink]:
    asked = words(question, parts=True) - _TABLE_WORDS
    out = []
    for item, item_words in zip(ITEMS, _ITEM_WORDS):
        if item not in items:
            continue
        shared = sorted(asked & item_words, key=lambda w: -_IDF[w])
        if shared:
            out.append(ItemLink(item, round(sum(_IDF[w] for w in shared), 3), tuple(shared)))
    out = sorted(out, key=lambda link: -link.score)
    if needs_a_cold_box(question):
        # "25 t of frozen tuna, dense and heavy - which box?": goods kept cold need a box that holds a
        # temperature (its description states the range), whatever else the words fit
        out = [link for link in out if link.item.category != "equipment" or holds_a_temperature(link.item)]
    return out


def needs_a_cold_box(question: str) -> bool:
    """A box asked for goods kept cold ("frozen tuna", "chilled at -1 C")."""
    return _KEPT_COLD.search(question) is not None and _A_BOX.search(question) is not None


def holds_a_temperature(item: Item) -> bool:
    """The item's description states the range of temperatures it holds ("-30 C to +30 C")."""
    return _HOLDS_A_TEMPERATURE.search(item.description) is not None


# goods kept cold, and a box asked for them; a description that states the temperature range it holds
_KEPT_COLD = re.compile(r"\b(?:frozen|chilled|refrigerated|perishables?)\b|[-\u2212]\d+\s*°?\s*C\b", re.I)
_A_BOX = re.compile(r"\b(?:box|boxes|container|containers|unit|equipment)\b", re.I)
_HOLDS_A_TEMPERATURE = re.compile(r"[-+]?\d+\s*°?\s*C\s+to\s+[-+]?\d+\s*°?\s*C\b")


def best(question: str, items: Sequence[Item] = ITEMS, *, described: bool = False) -> ItemLink | None:
    """The one item the question describes, when its words clearly point at it: the item's words are
    at least half of the question's own content words (a storage charge at a terminal shares only
    "terminal" with drayage), or (with `described`) it clearly leads the others; else None."""
    ranked = rank(question, items)
    if not ranked or ranked[0].score < MIN_SCORE:
        return None
    own = words(question, parts=True) - _TABLE_WORDS - _REQUEST_WORDS - _PLACE_WORDS
    its_own = described and _only_its_own(question, ranked)
    if len(ranked[0].words) < 0.5 * len(own) and not (described and _clear_lead(ranked)) and not its_own:
        return None
    if len(ranked) > 1 and ranked[0].score - ranked[1].score < MIN_LEAD and not its_own:
        return None
    return ranked[0]


def sizes_named(question: str) -> set[str]:
    """The container sizes a question gives in feet ("53-foot", "a 40'")."""
    return set(re.findall(r"\b(\d{2})\s*(?:'|\u2019|-?\s*(?:foot|feet|ft|footers?)\b)", question.lower()))


def catalog_sizes() -> set[str]:
    """The container sizes the catalog has an item of."""
    return {m.group(1) for i in ITEMS if (m := re.match(r"(\d{2})'", i.name))}


def sizes_allow(question: str, item: Item) -> bool:
    """False when the question gives container sizes and the item is a box of another size."""
    sized = [w for w in words(question) if w.isdigit()]
    # "a 20 or a 40 footer": once one size carries its unit, every container size named counts
    asked = set(sized) | (set(re.findall(r"\b(20|40|45)\b", question)) if sized else set())
    size = re.match(r"(\d{2})'", item.name)
    return not asked or size is None or size.group(1) in asked


@dataclass(frozen=True)
class Quote:
    units: int
    days: int | None            # None: the price is not per day
    total: float

    def sentence(self, item: Item) -> str:
        if self.days is None:
            return (f"For {self.units} x {item.name}: {self.units} x USD {item.price_usd:,.2f} "
                    f"= USD {self.total:,.2f} ({item.price_unit}).")
        return (f"For {self.units} x {item.name} over {self.days} days: {self.units} x {self.days} x "
                f"USD {item.price_usd:,.2f} = USD {self.total:,.2f}.")


def quote(question: str, item: Item) -> Quote | None:
    """The cost of the quantity and duration a question gives ("10 reefers for 20 days"), when it
    gives them: a count of units (a number not followed by a time unit, a size or a distance) and,
    for an item leased per day, a number of days or weeks. None when the question gives no count."""
    t = re.sub(r"\b(\d{1,5})-(days?|weeks?)\b", r"\1 \2", question.lower())  # "a 30-day month": 30 days
    t = re.sub(r"\b(?:a|an|one)\s+(?=(?:days?|weeks?)\b)", "1 ", t)  # "for a week"
    t = re.sub(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", lambda m: str(NUMBER_WORDS[m.group(1)]), t)
    span = re.search(r"\b(\d{1,5})\s*(days?|weeks?)\b", t)
    days = int(span.group(1)) * _DAYS[span.group(2)] if span else None
    counts = [int(m.group(1)) for m in _COUNT_RE.finditer(t) if not (span and m.start() == span.start())]
    if not counts and days and re.search(r"\b(?:a|an|one)\s+(?:\d{2}\s*(?:'|ft|foot|-foot)?\s*)?[a-z]", t):
        counts = [1]  # "a 40ft high cube reefer for 14 days": one unit
    if len(counts) != 1 or counts[0] == 0:
        return None
    units = counts[0]
    per_day = "per day" in item.price_unit
    if per_day and not days:
        return None
    total = item.price_usd * units * (days if per_day and days else 1)
    return Quote(units, days if per_day else None, round(total, 2))

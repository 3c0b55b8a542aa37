"""Personal memories: what a user says about their own things, linked to the data it names.

Part 7's rules (extract.py) read a few sentence shapes. This module reads any phrasing: a
sentence is kept when it names a value of the data (a vessel, carrier, port, voyage, container
... found by the assistant's value index, typos included) AND speaks of the user's own things
(I, we, my, our). It is stored in the user's words, in the user's scope, with its own kind
(`personal`, never a schema correction), the linked entities as fields and the time it was said.

A later memory on the same subject (the same linked column, with the same possessed noun or a
word of change: "not X but Y", "ignore that", "we moved", "now", "instead") supersedes the
earlier one; the earlier value travels with the new memory (`earlier`), so "what was it before?"
is answered without reading a superseded record. A supersession whose old memory shares no
linked column with the new one would be collateral damage; `collateral` counts it (always 0
by construction, checked in tests).

Recall (`resolve`) reads the user's valid personal memories only: a question that refers to
"my container / the voyage I told you about / our carrier" gets the remembered entity, which the
caller substitutes into the data question or gives back as the value itself.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz

from workshop_lib import assistant
from workshop_lib.assistant import glossary, other_languages
from workshop_lib.assistant.schema_links import SYNONYMS, TABLE_NOUNS, stem, table_of_noun, words_of
from workshop_lib.assistant.sentences import split as sentence_split
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS, Link
from workshop_lib.core.records import RecordDraft
from workshop_lib.parts.memory import own_values, preferences
from workshop_lib.parts.memory.kept_after_forget import repeats_a_detail, what_stays
from workshop_lib.parts.memory.own_values import OWN, PLACE
from workshop_lib.parts.memory.writer import USER_FACT, scrub_summaries

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

KIND = "personal"
SOURCE = "conversation"
ENTITY_COLUMNS = NAME_COLUMNS | CODE_COLUMNS
ENTITY_HOW = ("exact", "fuzzy", "partial")
MAX_SENTENCES = 20
MAX_TEXT_CHARS = 600
EARLIER_KEPT = 5

# not the comma of "1,850"; a long dash before a question sets it apart ("... anyway — what's changing ...?"),
# not a dash around an aside ("Brightwater Foods — one of ours — has ...")
_CLAUSE = re.compile(r",(?!\d{3})\s*|\s+-\s+|\s*[\u2013\u2014]\s*(?=(?:what|which|where|when|who|whose|how|why)\b)", re.I)
# ... and in the corpus' other languages ("mi cliente", "je suis au bureau de Lyon", "unser Kunde")
_FIRST_PERSON = re.compile(r"\b(?:i|we|my|our|mine|ours|us)\b|\b(?:i|we)'(?:m|re|ve|d|ll)\b|"
                           r"\b(?:mi|mis|nuestr[oa]s?|yo|nosotros|je|j'|nous|mon|ma|mes|notre|ich|wir|uns|"
                           r"mein(?:e|en|em|er)?|unser(?:e|en|em|er)?|"
                           # a Spanish verb says its person ("tenemos la reserva ...", "soy Mateo", "tengo")
                           r"[a-záéíóú]{2,}(?:amos|emos|imos)|soy|estoy|tengo)\b", re.I)
# A clause with no subject that starts with a verb in -ing ("writing from Durban", "shipping with MSC"):
# the speaker is its subject.
# ("got two boxes on the Tessa": "got" with its "I've" left out, as people type)
_SUBJECTLESS = re.compile(r"^(?:(?:hi|hey|hello|ok|okay|so|also|just|btw|fyi)\b[\s,!.]*)*(?:there\b[\s,!.]*)?"
                          r"(?:(?!(?:morning|evening|nothing|something|anything|everything|thing)\b)[a-z]+ing|"
                          r"got(?!\s+(?:it|that|this|you)\b))\b", re.I)
QUESTION = re.compile(r"^(?:(?:and|so|also|ok|okay|but)\s+)?(?:what|what's|whats|wat's|which|who|who's|whom|whose|where|"
                       r"where's|when|why|how|is|are|was|were|do|does|did|can|could|would|will|should|has|have|"
                       r"had|"
                       # ... and the question words of the other languages the workshop reads ("Wann kommt ... an, und wo?")
                       r"wann|wo|wohin|woher|wer|welche[rsmn]?|wie|warum|quand|où|quel|quelle|quels|quelles|combien|"
                       r"pourquoi|cuándo|dónde|qué|cuál(?:es)?|quién|cuánt[oa]s?)\b", re.I)
# Words that say a value changed or was wrong: a correction of the same subject.
CHANGE = re.compile(r"\b(?:not|instead|now|moved|relocated|switched|changed|(?:moving|switching) (?:over )?to|"
                     r"ignore|disregard|actually|wrong|sorry|mixed (?:\w+ )?up|scratch|isn['’]t|aren['’]t|wasn['’]t|"
                     r"correction|meant|mistake|typo|turns out|updated?|(?:another|a|one more) change|from (?:now|tomorrow|today)|"
                     r"(?:is|are) (?:closing|closed|shutting)|"
                     r"no longer|anymore|rolled|replaced|dropped|ditched|swapped|until|up to|since|these days|nowadays|"
                     # a figure that moves ("the rate drops to 2,150", "goes down to", "was raised to")
                     r"(?:drops?|falls?|fell|rises?|rose|goes|went|jumps?|jumped|climbs?|climbed)\s+(?:up\s+|down\s+)?to|"
                     r"(?:increas|decreas|rais|lower|reduc)(?:es|ed|ing)|"
                     r"(?:has|have|had) (?:left|quit|retired)|"
                     # ... in the other languages the workshop reads ("on a déménagé", "ya no", "nicht mehr")
                     r"d[ée]m[ée]nag\w*|d[ée]sormais|plus\s+(?:à|au|chez|en)|ya no|ahora|mudad[oa]s?|"
                     r"nicht mehr|jetzt|umgezogen|korrektur|korrigier\w*|statt|anstatt|wechseln|wechselt|gewechselt|"
                     r"corrección|corrig\w*|en (?:vez|lugar) de|au lieu de|cambiamos|cambiado|"
                     r"equivoqu\w*|no (?:es|son)|tromp\w*|erreur|n['’](?:est|sont) pas|vertan|fehler|(?:ist|sind) nicht)\b", re.I)
# A value said as the one it is not: "not 781S but 813N", "instead of 781S".
_NOT_THIS = re.compile(r"\b(?:not|instead of|rather than|no longer)\s+(?:on\s+|the\s+|with\s+)?$|"
                       r"\b(?:plus|ya no|nicht mehr)\s+(?:à|au|en|chez|in)\s+$|"  # ("..., plus à Marseille")
                       # ("no es el MSCU3348737", "n'est pas le ...", "ist nicht der ...")
                       r"\b(?:no\s+(?:es|son|va|van)|n['’](?:est|sont)\s+pas|(?:ist|sind)\s+nicht)\s+"
                       r"(?:(?:en|sur|auf|in)\s+)?(?:(?:el|la|los|las|le|la|les|l['’]|der|die|das|dem)\s*)?$", re.I)
# ... or said as what it is no longer ("evergreen's not our carrier anymore").
_IS_NOT = re.compile(r"^(?:['’]s|\s+(?:is|are|was|were))\s+(?:not|no longer)\b|^\s+(?:isn['’]t|aren['’]t|wasn['’]t)\b",
                     re.I)
# ... or a name said as the one that is not of a role ("Harwell isn't the consignee"; not "Lomax is not in X").
_IS_NOT_THE = re.compile(rf"(?:{_IS_NOT.pattern})\s+(?:the|our|my|a|an)\b", re.I)
_POSSESSED = re.compile(r"\b(?:my|our)\s+((?:[a-z][\w-]*(?:'s)?\s+){0,2}?[a-z][\w-]*)", re.I)
_ASKED_POSSESSION = re.compile(r"\b(?:what|which|who|where)(?:'s|\s+(?:is|are|was|were))\s+(?:my|our)\s+"
                               r"((?:[a-z][\w'-]*\s+){0,3}[a-z][\w'-]*?)(?=\s+(?:for|of|on|in|at|again|now)\b|\W*$)",
                               re.I)
_ADJECTIVES = {"main", "new", "own", "current", "usual", "old", "whole", "first", "other", "one", "big"}
# A request to drop what was said: the verb of forgetting, said to the assistant.
# "Scrap what I said about Delta" takes back what was said about a thing it names; "ignore what I
# said, it's 813N" names nothing and is a correction.
FORGET = re.compile(r"\b(?:forget|delete|erase|remove|drop|discard|unlearn|wipe|vergiss|vergessen|l[öo]sch\w*|"
                    r"olvida\w*|borra\w*|oublie\w*|efface\w*)\b|\b(?:don't|do not|no need to|stop)\s+"
                    r"(?:keep|keeping|remember|remembering|store|storing|save|saving|hold|holding)\b|"
                    r"\b(?:scrap|scratch|ignore|disregard)\s+(?:what|everything|all)\s+(?:i|we)\b[\w\s']{0,12}?\b"
                    r"(?:said|told you|mentioned|wrote)\s+(?:about|re|regarding|on)\s+(?-i:[A-Z])", re.I)
# A name said as the wrong one: "Lindgren Marine, not Lindqvist", "Lindqvist is someone else".
_REJECTED = re.compile(r"\b(?i:not|instead of|rather than)\s+(?:(?i:on|with|in|at)\s+)?(?:(?i:the)\s+)?"
                       r"([A-Z][\w&'’-]{2,}|[\w-]*\d{3,}[\w-]*)|"
                       r"\b([A-Z][\w&'’-]{2,})(?:\s+[A-Z][\w&'’-]+)*\s+(?:is|was|'s)\s+(?:someone|somebody|something)\s+else\b")
# A request that points back at what the sentence before it named ("forget everything about them").
# ("... QX-7781, but don't save that": "that" is said of its own sentence, which names something)
POINTS_BACK = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:please\W+)?(?:forget|delete|erase|remove|drop|don't keep|do not keep)\b"
                         r".*\b(?:them|they|their|him|her|those)\b", re.I)
# What a question about the past asks for: the value before the latest correction.
HISTORY = re.compile(r"\b(?:originally|original|before|first|previous|previously|earlier|initially|used to|"
                     r"start(?:ed)? (?:out )?with|began with|to begin with|"
                     r"vorher|fr(?:ü|ue)her|zuvor|urspr(?:ü|ue)nglich|davor|avant|auparavant|initialement|"
                     r"antes|originalmente|al principio)\b", re.I)


def asks_earlier(question: str, meta: dict[str, Any]) -> bool:
    """The question asks the value before the memory's latest: by a word of the past ("originally"), or by
    a day or month that only the words of an earlier value say ("who did it in May?" of "until the end of
    May it was Nordzoll; from 1 June it is Hanse")."""
    earlier = meta.get("earlier") or []
    if not earlier:
        return False
    if HISTORY.search(question):
        return True
    before = " ".join(str(e.get("text", "")) for e in earlier).lower()
    return any(re.search(rf"\b{t}\b", before) for t in months_named(question))


def months_named(question: str) -> set[str]:
    """The months a question names, lower-cased."""
    return {w.lower() for w in re.findall(r"[^\W\d_]+", question) if w.lower() in own_values.MONTHS}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def table_of_word(word: str) -> str | None:
    """The table a noun names ("box" -> CONTAINERS, "contianer" -> CONTAINERS), or None."""
    if (table := table_of_noun(word.lower().removesuffix("'s"))) is not None:
        return table
    if "-" in word.strip("-") and (table := table_of_noun(word.lower().removesuffix("'s").rsplit("-", 1)[1])) is not None:
        return table  # ("Akku-Container", "reefer-box": the compound's last word is what it is)
    w = stem(word.lower().removesuffix("'s"))
    for noun in list(SYNONYMS) + list(TABLE_NOUNS):  # a typo keeps most of the word, and its start ("placed" is no "packed")
        if len(w) >= 5 and w[:2] == noun[:2] and fuzz.ratio(w, noun) >= 80:
            return TABLE_NOUNS.get(SYNONYMS.get(noun, noun))
    return None


def possessed_nouns(text: str, *, heads: bool = False) -> list[str]:
    """The nouns after my/our ("my client's cargo" -> client, "our main carrier" -> carrier), stemmed;
    with `heads`, a statement's, the last noun before its verb too ("our Durban office contact is")."""
    return [noun for m in _POSSESSED.finditer(text) for noun in _nouns_of_one(text, m, heads)]


def _nouns_of_one(text: str, m: re.Match[str], heads: bool) -> list[str]:
    """The nouns of one "my/our ..." of possessed_nouns."""
    words, named = _with_the_noun_after(text, m)
    other = "other " if "other" in words else ""  # "our other haulier" is not "our haulier"
    words = [w.lower() for w in words if not _adjective(w)] or [w.lower() for w in words]
    noun = stem(words[0].removesuffix("'s"))
    out = [other + noun] + ([other + stem(named)] if named and stem(named) != noun else [])
    if heads and (head := _phrase_head(text[m.start(1):])) and head != noun:
        out.append(other + head)  # "our Durban office contact is Thandi": contact too
    return out


def _with_the_noun_after(text: str, m: re.Match[str]) -> tuple[list[str], str]:
    """(the words after "my/our", with the noun after them when they are all adjectives; the name before that noun
    when it is of two words or more, else ""). "Our new contact", "our European hub": the noun after the adjective
    ("our DC is in Pooler": no verb); "our Jebel Ali trucking": the rest of a name, then the noun, and the name
    says which one of their things, so it is kept as one of its nouns too."""
    words = m.group(1).split()
    if not all(map(_adjective, words)) or (after := _NOUN_AFTER_A_NAME.match(text[m.end():])) is None \
            or after.group(2).lower() in _NO_NOUN_AFTER:
        return words, ""
    named = words[0].lower() if after.group(1) and words[0][:1].isupper() else ""
    return [*words, after.group(2)], named


_NOUN_AFTER_A_NAME = re.compile(r"((?:\s+(?-i:[A-Z])[\w-]*(?=\s+[a-z]))*)\s+([a-z][\w-]*)", re.I)
_NO_NOUN_AFTER = frozenset("is are was were has have had will would can could in at on for of with from to and "
                           "who that".split())
_PHRASE_END = re.compile(r"\s+(?:is|are|was|were|has|have|had|will|sits?|in|at|on|for|of|with|from|to|and|who|that)\b"
                         r"|['’]s\b|[,.;:!?()—–]|\s-\s|$", re.I)


def _adjective(word: str) -> bool:
    """A word before a noun that says which, not what: "new", "main", one of a people or region ("European"),
    or a name ("our Southampton office": the office)."""
    # (a capitalised compound of a table's noun is a noun: "our Akku-Container", as German writes it)
    return word.lower().removesuffix("'s") in _ADJECTIVES or (word[:1].isupper() and not ("-" in word and table_of_word(word)))


def _phrase_head(rest: str) -> str | None:
    """The last noun of the words after my/our, up to the verb ("Durban office contact is": contact), when
    there are two or three of them; None otherwise."""
    m = _PHRASE_END.search(rest)
    words = re.findall(r"[A-Za-z][\w-]*", rest[:m.start()] if m else rest)
    if not 2 <= len(words) <= 3 or words[-1].lower() in _ADJECTIVES:
        return None
    if words[-1][:1].isupper() and words[0][:1].islower():
        return None  # "our client Alpine Fresh has ...": the client's name, no noun of a thing
    return stem(words[-1].lower())


def asked_possession(question: str) -> str | None:
    """The thing of theirs a question asks for by name, as said ("what's my bill of lading number for
    ..." -> "bill of lading number"); None when it asks no "what/which/who/where is my X"."""
    m = _ASKED_POSSESSION.search(question)
    if m is None:
        return None
    # "where is my forwarding desk based now": the thing, without the participle that places it
    said = re.sub(r"(?:\s+(?:now|again|then|please|today|currently))+$", "", m.group(1), flags=re.I)
    return re.sub(r"(?<=\w)\s+[a-z]+ed$", "", said, flags=re.I)


def _inside_name(text: str, link: Link) -> bool:
    """The link's span is part of a run of capitalised words that goes beyond it."""
    for m in own_values.NAME_RE.finditer(text):
        if m.start() <= link.start and link.end <= m.end() and (m.start(), m.end()) != (link.start, link.end) \
                and len(m.group(0).rstrip(".")) > link.end - link.start:
            return True
    return False


def entity_links(links: list[Link]) -> list[Link]:
    return [lk for lk in links if (lk.table, lk.column) in ENTITY_COLUMNS and lk.how in ENTITY_HOW]


@dataclass(frozen=True)
class PersonalCandidate:
    text: str                                # the user's words
    entities: tuple[tuple[str, str, str], ...]   # (table, column, value), the value it is about first
    nouns: tuple[str, ...]                   # what they called it: "container", "client", "office"
    change: bool                             # said as a correction or a change
    said_at: str = ""
    about: str = ""                          # the subject of a change that names no value of the data
    roles: tuple[str, ...] = ()              # what its values are to the user: customer, place, rate
    time: str = ""                           # when it says it happened, as written ("last month")
    earlier: tuple[str, ...] = ()            # values it says were before, in the same sentence

    @property
    def subject(self) -> str:
        """The column it is about, TABLE.COLUMN of its first entity (a port and a city: a place)."""
        if not self.entities:
            return self.about
        table, column, _ = self.entities[0]
        return subject_of(table, column)


def subject_of(table: str, column: str) -> str:
    """A port the data holds and a city it does not are both where something is."""
    return f"{OWN}.{PLACE}" if (table, column) == ("PORTS", "PORT_NAME") else f"{table}.{column}"


def statement_part(sentence: str) -> str:
    """The sentence without its question clauses ("we ship with MSC, what vessels do they have?")."""
    if _REQUEST.match(sentence.strip()) or _REQUEST.match(_opening_in_english(sentence)):
        # "Remind me who our haulier is, and ...": a request, whatever its end, states nothing; but what it
        # sets apart with a dash is a sentence of its own ("Check the 787E for me - my client's box is on it")
        apart = re.split(r"\s+[-\u2013\u2014]\s+", sentence, maxsplit=1)
        return statement_part(apart[1]) if len(apart) == 2 else ""
    asked = sentence.rstrip().endswith("?")
    lead, colon, rest = sentence.partition(":")
    if asked and colon and rest.strip() and _a_lead_in(lead):
        sentence = rest  # "quick one for my colleague: the Vasseur box, which port ...?": a lead-in states nothing
    clauses = [c.strip() for c in _CLAUSE.split(sentence) if c.strip()]
    kept = [c for i, c in enumerate(clauses) if not _a_question_clause(c, i, asked)]
    return ", ".join(c for c in kept if _states_something(c))


def _a_lead_in(words: str) -> bool:
    """"Quick one in English for my colleague": a few words before a colon with no verb and no name (a capital
    after the first word) lead into the question; they tell nothing."""
    said = words.split()
    return 0 < len(said) <= 8 and not _FINITE.search(words) and not any(w[:1].isupper() for w in said[1:])


def _a_question_clause(clause: str, index: int, asked: bool) -> bool:
    """A clause that asks: it ends with "?", opens with a question word (not a verb going on with the subject
    before it), or a later clause of a question opens with "has" or "have"."""
    if clause.endswith("?") or (index and _PREDICATE.match(clause) and asked):
        return True
    return bool(QUESTION.match(clause)) and not _PREDICATE.match(clause) and not _goes_on(clause, index, asked)


def _goes_on(clause: str, index: int, asked: bool) -> bool:
    """A later clause of a sentence that asks nothing, opening with a verb, goes on with the subject before
    it ("Our claim reference for the box, HLXU2953512, is CLM-88213."): it states, it does not ask."""
    return bool(index) and not asked and _AUXILIARY.match(clause) is not None


_AUXILIARY = re.compile(r"(?:is|are|was|were)\b(?!\s+(?:it|he|she|they|you|we|i|there|this|that|these|those)\b)", re.I)


def _states_something(clause: str) -> bool:
    """Not a word that only leads into what follows ("Now, how many boxes ...?"); "fourteen" alone corrects."""
    return clause.strip(" .!").lower() not in _LEAD_INS


_LEAD_INS = frozenset({"now", "so", "ok", "okay", "well", "right", "anyway", "also", "then", "hi", "hey", "thanks",
                       "morning", "cheers", "oh", "ah", "hmm", "um", "alright"})


def _opening_in_english(sentence: str) -> str:
    """The sentence's first one or two words read by the glossary ("Rappelez-moi le nom ..." opens with
    "remind me"); "" when neither reads."""
    words = sentence.strip().split()
    for n in (2, 1):
        said = glossary.PHRASES.get(glossary.key_of(" ".join(words[:n])).strip(",.:;!?"))
        if said:
            return said
    return ""


# a clause after the subject's aside that goes on with what the subject has ("Ferretti, one of our customers,
# has a box on ..."): a statement's, unless the sentence asks
_PREDICATE = re.compile(r"(?:has|have|had)\b(?!\s+(?:it|he|she|they|you|we|i|there|the|this|that)\b)", re.I)


def asks_anything(turn: str) -> bool:
    """Whether any sentence of a turn asks something (a question or a request), not only states."""
    clauses = [(i, c.strip()) for sentence in sentences(turn)
               for i, c in enumerate(c for c in _CLAUSE.split(sentence) if c.strip())]
    return "?" in turn or any((QUESTION.match(c) and not _goes_on(c, i, False)) or _REQUEST.match(c) for i, c in clauses) or \
        _ASKED_INDIRECTLY.search(turn) is not None or any(_terse_request(s) for s in sentences(turn))


# a figure or rows named with no verb, as typed in a search box ("total TEU loaded on 874E", "boxes on voyage 935W
# with weight"): a request; a verb of being or having, or the speaker, makes it a statement ("boxes are ours")
_FIGURE_WORD = re.compile(r"^\W*(?:total|sum|number|count|average|avg|mean|max(?:imum)?|min(?:imum)?|top|list|all|every)\b", re.I)
_FINITE = re.compile(r"\b(?:is|are|am|was|were|be|been|has|have|had|will|would|got|gets|get|go|goes|went|sits?|sat|"
                     r"rides?|rode|sails?|sailed|ships|shipped|arrives?|arrived|leaves?|left|departs?|departed)\b|'s\b|'re\b",
                     re.I)


def _terse_request(sentence: str) -> bool:
    first = re.match(r"\W*([A-Za-z]+)", sentence)
    opens_with_rows = first is not None and first.group(1).lower().endswith("s") and table_of_noun(first.group(1)) is not None
    return (opens_with_rows or _FIGURE_WORD.match(sentence) is not None) and not _FINITE.search(sentence) \
        and not _FIRST_PERSON.search(sentence)


# a Spanish interrogative keeps its accent in an indirect question too ("un compañero pregunta de qué cliente es
# el contenedor y en qué buque viaja"): the sentence asks, with or without a question mark
_ASKED_INDIRECTLY = re.compile(r"(?<![\w])(?:qué|quién|quiénes|cuál|cuáles|cuándo|dónde|cuánto|cuántos|cuánta|cuántas)(?![\w])",
                               re.I)


def speaks_of_own(stated: str) -> bool:
    return bool(_FIRST_PERSON.search(stated)) or any(_SUBJECTLESS.match(c.strip()) for c in _CLAUSE.split(stated))


def _order(entity: tuple[str, str, str]) -> int:
    """A container, voyage, vessel or carrier first; then a name or money; a place last."""
    table, column, _ = entity
    if table in _OWN_THINGS[:4]:
        return 0
    return 2 if subject_of(table, column) == f"{OWN}.{PLACE}" else 1


def sentences(text: str) -> list[str]:
    """The sentences of a turn, at most MAX_SENTENCES (a long paste is not read to its end). The items listed under
    a line that ends in a colon are each read with that line ("Hauliers I use this month:" then "- Antwerp:
    Schelde Trucking BV" is "Hauliers I use this month - Antwerp: Schelde Trucking BV")."""
    return [said for said, _ in _read_with_headings(text)]


def _read_with_headings(text: str) -> list[tuple[str, str]]:
    """(sentence, the item it lists or ""), at most MAX_SENTENCES: an item under a line that ends in a colon is read
    with that line."""
    out: list[tuple[str, str]] = []
    heading = ""
    for said in sentence_split(text, at_semicolons=True):
        item = _LIST_ITEM.match(said)
        if heading and item:
            body = said[item.end():].strip()
            out.append((f"{heading} - {body}", body))
            continue
        heading = said.rstrip()[:-1].strip() if said.rstrip().endswith(":") else ""
        out.append((said, ""))
    return out[:MAX_SENTENCES]


def _items_listed(text: str) -> list[str]:
    """The words that name each item listed under a line that ends in a colon ("Dutch Bloom BV" of "1) Dutch Bloom
    BV - reefer coming from Santos")."""
    return [re.split(r"\s[-\u2013\u2014]\s|[,;:]\s", body, maxsplit=1)[0] for _, body in _read_with_headings(text) if body]


# an item of a list: a bullet or a number before it ("- Antwerp: ...", "* ...", "2) ...")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022\u2013]|\d{1,2}[.)])\s+")


def _may_be_personal(stated: str) -> bool:
    """A statement of a size kept, not a request to forget, that speaks of the user's own things."""
    # a correction speaks of what the user said before even without "I" ("scratch that, it's 813N")
    return _keepable(stated) and bool(speaks_of_own(stated) or CHANGE.search(stated))


# "the customer I mentioned for the Ever Acme cargo": what was told before, pointed at, not told again
# ("I said 781S but meant 813N" is a correction: no thing pointed at before the verb)
_TOLD_BEFORE = re.compile(r"\b(?:the|that|this|those|these)\s+(?:[\w'-]+\s+){0,3}?(?:i|we)\s+(?:mentioned|told you|said|"
                          r"gave you|was telling you)\b", re.I)


def _keepable(stated: str) -> bool:
    """A statement of a size kept that is not a request to forget, nor a pointer at what was told before."""
    return bool(stated) and len(stated) <= MAX_TEXT_CHARS and not FORGET.search(stated) and not _TOLD_BEFORE.search(stated)


# the place a move goes to ("relocated from Ipswich to Colchester"; not "moved out of Kestrel Park")
_MOVED_THERE = re.compile(r"\b(?:to|into)\s+(?:the\s+|a\s+|new\s+)*$", re.I)


def _of_a_name_of_theirs(stated: str, entities: list[tuple[str, str, str]], own_names: Collection[str]) -> bool:
    """"Brightwell's shrimp is in MATU8437395", "CMAU0862606 is Altamira Pharma's": a statement without
    "I" or "we" that ties a name of their world (told before, or a name the data does not hold) to a
    record of the data is theirs too: who else would a coordinator tell it about?"""
    names = own_names_of(entities)
    told = [n for n in own_names if name_in(stated, n)]
    if told and _moved_to_a_place(stated, entities):
        return _keepable(stated)  # "Blythe rang - they've relocated to Colchester": a party told before moved
    if _whose_is(stated, entities, told):
        return True  # "Zielony Dom's haulier is Van Rijn Transport": a name of theirs, and another name of theirs
    return _keepable(stated) and bool(names or told) and any(e[0] in _OWN_THINGS[:4] for e in entities)


def _moved_to_a_place(stated: str, entities: list[tuple[str, str, str]]) -> bool:
    """The statement says a change to a place of theirs ("they've relocated to Colchester")."""
    return bool(CHANGE.search(stated)) and any(
        e[:2] == (OWN, own_values.PLACE) and _MOVED_THERE.search(stated[:at])
        for e in entities if (at := _position(stated, e[2])) is not None)


def _whose_is(stated: str, entities: list[tuple[str, str, str]], told: list[str]) -> bool:
    """"Zielony Dom's haulier is Van Rijn Transport": a party of a name of theirs, said as another name."""
    others = [n for n in own_names_of(entities) if n not in told]
    return bool(others) and _keepable(stated) and any(
        re.search(rf"\b{re.escape(t)}['’]s\s+(?:[\w-]+\s+){{1,3}}?(?:is|are|was)\s+{re.escape(o)}", stated)
        for t in told for o in others)


def _theirs(stated: str, entities: list[tuple[str, str, str]], own_names: Collection[str], personal: bool) -> bool:
    """The statement is about the user's own things: said so, by a name of theirs, or by a record told."""
    return personal or _of_a_name_of_theirs(stated, entities, own_names) or _a_record_told(stated, entities)


def _a_record_told(stated: str, entities: list[tuple[str, str, str]]) -> bool:
    """"The second one is PCIU4937674.", "booking HLCU-88213 got amended twice": a statement whose only
    values are containers or voyages of the data, or references of their own, tells the assistant which
    records the user follows; nobody tells a box or booking number for no reason."""
    # not an update ("Update on GR-5520: the VGM went in on ..."): without "I" or "we" it may add to
    # what was told as well as replace it, and kept it would supersede the earlier memory
    # and a statement, not the topic of a question ("For GR-5520, which did we send first?")
    said = content_words(stated) - {w for e in entities for w in content_words(e[2])}
    # ("Another one: BR-1190, a 20GP to Piraeus": the port it goes to is said of the record)
    records = [e for e in entities if e[0] in _OWN_THINGS[:2] or e[:2] == (OWN, own_values.CODE)]
    return _keepable(stated) and not CHANGE.search(stated) and len(said) >= 1 and bool(records) and \
        all(e in records or e[0] == "PORTS" for e in entities)


def data_links(stated: str, links: list[Link]) -> tuple[list[Link], list[Link]]:
    """The links to values of the data this memory is about, and the links left to read (without the dropped ones)."""
    # a partial or fuzzy match inside a longer name is not the data's value: "Pacific Berry Co." is
    # a client of theirs, not the carrier "Pacific International Lines"
    found = [lk for lk in entity_links(links) if not (lk.how in ("partial", "fuzzy") and _inside_name(stated, lk))]
    links = [lk for lk in links if lk in found or lk.how not in ENTITY_HOW]
    # the value it is not ("not 781S but 813N") is no entity of this memory
    found = [lk for lk in found if not _NOT_THIS.search(stated[:lk.start][-30:])  # offsets are the text's
             and not _IS_NOT.match(stated[lk.end:])]
    return found, links


def _entities(stated: str, values: Any) -> list[tuple[str, str, str]]:
    """(table, column, value) of every value the statement names: of the data, a country, a name,
    place or sum of the user's own."""
    found, links = data_links(stated, values.links(stated))
    entities = [(lk.table, lk.column, str(lk.value)) for lk in found]
    # a country by its name, written as a name ("in Spain", not "from us"): a place of theirs
    # ("in Busan, Korea": a country after a place and a comma says where that place is, and is no place of its own)
    countries = [lk for lk in links if lk.how == "country" and stated[lk.start:lk.start + 1].isupper()
                 and not re.search(r"[A-Z][\w'’-]*,\s*$", stated[:lk.start])]
    entities += [(OWN, PLACE, stated[lk.start:lk.end]) for lk in countries]
    taken = [(lk.start, lk.end) for lk in links if lk.how != "word"]
    places = {str(v[0]) for v in values.phrases if (v[1], v[2]) == ("PORTS", "PORT_NAME")}
    entities += [(OWN, v.kind, v.value) for v in own_values.find(stated, taken, places=places)
                 if not _NOT_THIS.search(stated[:v.start][-30:]) and not _IS_NOT_THE.match(stated[v.end:])]
    return entities


# the value a change goes to: "I've moved to the Rotterdam office", "we switched over to Hapag"
# ("switched the Med lane to MSC": what was switched may come between the verb and "to")
_MOVED_TO = re.compile(r"\b(?:mov\w*|switch\w*|chang\w*|transferr?\w*|relocat\w*|went|gone)\s+(?:[\w'-]+\s+){0,3}?(?:over\s+)?to\s+"
                       r"(?:the\s+|our\s+|my\s+)?$", re.I)


# the value a change leaves: "moved out of Kestrel Park", "relocated away from Ipswich"
_MOVED_FROM = re.compile(r"\b(?:mov\w*|relocat\w*|gone|went|left)\s+(?:out\s+of|away\s+from|from)\s+(?:the\s+|our\s+)?$",
                         re.I)


# ("I handle the Okonkwo account now since Dave left": who left is no longer the one; "Madrid is
# closing": nor is a site that closes)
_HAS_LEFT = re.compile(r"\s+(?:has\s+|have\s+|had\s+|is\s+|are\s+)?(?:left|quit|retired|resigned|clos(?:ing|ed)|"
                       r"shut(?:ting)?(?:\s+down)?)\b", re.I)


def _current_and_earlier(entities: list[tuple[str, str, str]], stated: str = "") -> tuple[list[tuple[str, str, str]], list[str]]:
    """A change's entities, the current value of each column, and the values before them."""
    # "on Monday it was 781S, now it is 813N": the last value of a column is the current one, unless
    # the change says which it goes to ("moved to Rotterdam - Hamburg is someone else's now")
    left = {i for i, (_, _, v) in enumerate(entities)
            if (at := _position(stated, v)) is not None and (_MOVED_FROM.search(stated[:at])
                                                             or _HAS_LEFT.match(stated[at + len(v):]))}
    last = {subject_of(t, c): i for i, (t, c, _) in enumerate(entities) if i not in left}
    for i, (t, c, v) in enumerate(entities):
        if (at := _position(stated, v)) is not None and _MOVED_TO.search(stated[:at]):
            last[subject_of(t, c)] = i
    # ("they've moved out of Kestrel Park": the place left is an earlier value, and none is current)
    earlier = [v for i, (t, c, v) in enumerate(entities) if last.get(subject_of(t, c)) != i]
    entities = [e for i, e in enumerate(entities) if last.get(subject_of(e[0], e[1])) == i]
    return entities, earlier


def _candidate(stated: str, entities: list[tuple[str, str, str]], said_at: str | None, *,
               correcting: bool = False) -> PersonalCandidate:
    """The memory of one statement: its current values first (a change keeps the values before apart).
    `correcting`: an earlier sentence of the turn said the next one corrects something."""
    change = correcting or bool(CHANGE.search(stated))
    earlier: list[str] = []
    # "our Oslo drayage", "our UK warehouse": a name of theirs that says which of their things is meant
    # is no value of the memory while the sentence has another one
    naming = [e for e in entities if _names_their_thing(stated, e)]
    entities = [e for e in entities if e not in naming] or naming
    if change:
        entities, earlier = _current_and_earlier(entities, stated)
    entities.sort(key=_order)
    entities = _the_figure_stated_first(stated, entities)
    entities += [e for e in naming if e not in entities]
    nouns = list(dict.fromkeys([*_nouns_said(stated), *_named_before_a_code(stated, entities[:1])]))
    return PersonalCandidate(stated, tuple(entities), tuple(nouns), change,
                             said_at or _now(), roles=tuple(sorted(own_values.roles_of(stated))),
                             time=own_values.time_said(stated, _position(stated, entities[0][2]) if change else None),
                             earlier=tuple(earlier))


# what comes right before the figure a statement gives as its value ("our margin on the lane is 14%", "we get 7
# free days", "unser Kontingent liegt bei 30 FEU", "sind es nur noch 22 FEU")
_BEFORE_THE_VALUE = re.compile(r"(?:\b(?:is|are|was|were|be|get|got|have|has|had|at|of|now|only|just|still|to|"
                               r"ist|sind|es|liegt bei|betr(?:ä|ae)gt|nur noch|noch|est|sont|de|son|solo)|['’]s|[=:])\s*$",
                               re.I)


def _the_figure_stated_first(stated: str, entities: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """"Our margin on the Santos-Kaohsiung lane is 14%", "our allocation with MSC is 40 FEU", "our HMM rate is
    3,100 USD per FEU": the figure or sum the statement gives is the memory's value; the port or line named before
    it says which of their figures it is."""
    for e in entities:
        at = _position(stated, e[2]) if e[:2] in ((OWN, own_values.FIGURE), (OWN, own_values.MONEY)) else None
        if at is not None and _BEFORE_THE_VALUE.search(stated[:at]):
            return [e, *(x for x in entities if x != e)]
    return entities


def _named_before_a_code(stated: str, entities: list[tuple[str, str, str]]) -> list[str]:
    """"..., booking ref ACX-2207": the words right before a reference of theirs say what it is (a
    reference without "my" or "our" before it is still theirs); only of the memory's own value (`entities`
    holds it first), never of a value beside it."""
    out: list[str] = []
    for table, column, value in entities:
        at = _position(stated, value) if (table, column) == (OWN, own_values.CODE) else None
        m = re.search(r"([a-z][a-z-]+)\s+([a-z][a-z.-]+)\s*(?:[:#]|is|was|no\.?|number)?\s*$", stated[:at]) if at else None
        if m:
            out += [stem(w.rstrip(".")) for w in m.groups() if w.rstrip(".") not in _NOT_A_NOUN]
    return out


# words before a reference that are not what it is ("it's ACX-2207", "the ref is")
_NOT_A_NOUN = frozenset("""a an the my our your their its it is was are were be and or of for on in at to with from
by as that this these those it's i'm we're here there also just please then now new old""".split())


def _nouns_said(stated: str) -> list[str]:
    """What they call their thing ("our booking number"), read in English when they wrote another language
    ("Unsere Buchungsnummer bei Hapag ist ...")."""
    nouns = possessed_nouns(stated, heads=True)
    if nouns:
        return nouns
    english = other_languages.in_english(stated)
    # (only the nouns the reading gave in English: a word left in its own language says no kind of thing)
    return [n for n in possessed_nouns(english, heads=True) if n not in stated.lower()] if english else []


def _names_their_thing(stated: str, entity: tuple[str, str, str]) -> bool:
    """A name of theirs between "our"/"my" and a noun ("our Oslo drayage")."""
    if entity[0] != OWN:
        return False
    return bool(re.search(rf"\b(?:our|my)\s+{re.escape(entity[2])}\s+[a-z]", stated))


def extract(eng: Engine, text: str, *, said_at: str | None = None, own_names: Collection[str] = ()) -> list[PersonalCandidate]:
    """The personal statements of one user turn: a clause about the user's own things (I, we, my,
    our, no subject at all, or a name of theirs in `own_names`) that names a value: of the data, or a
    name, place or sum of theirs."""
    _, values = assistant.knowledge(eng)
    out = []
    record = _the_one_record(text, values)
    correcting = False  # "Sorry, I mixed that up: X isn't the consignee. The consignee is Y.": the next statement corrects
    named: str | None = None  # the name of theirs the sentence before named: what "they" stands for
    told_here: list[str] = []  # the names of theirs this turn told so far
    for sentence in [c for s in _forget_then_told(sentences(text)) for c in own_clauses(s)]:
        said = statement_part(sentence)
        stated = _pronoun_as_named(said, named)
        if (introduced := _introduction(stated, said_at)) is not None:
            out.append(introduced)  # "Hi, Ola from Fjordfisk AS": the company they are with
            continue
        entities, correcting = _kept_entities(stated, values, [*own_names, *told_here], correcting)
        # (a name of theirs this sentence says, known before or told in it: what "they" stands for next)
        told_here += own_names_of(entities)
        named = next((n for n in own_names if _says_name(stated, n)), None) or next(iter(own_names_of(entities)), None) \
            or _name_of_a_party_introduced(stated, values)
        if not entities:
            continue
        cand = _candidate(stated, entities, said_at, correcting=correcting)
        # (kept in the user's own words: "They're on the Callisto", the name it stands for among its entities)
        out.append(_with_the_record(dataclasses.replace(cand, text=said) if said != stated else cand, entities, text, record))
        correcting = False
    return out


def _name_of_a_party_introduced(stated: str, values: Any) -> str | None:
    """"New client, Vistula Power, brings them in through Hamburg": a name said beside a word for a customer (kept
    or not) is what "their" of the next sentence stands for ("Their EORI is ...")."""
    words = {stem(w) for w in re.findall(r"[a-z]+", stated.lower())}
    names = own_names_of(_entities(stated, values))
    return names[0] if len(names) == 1 and words & own_values.ROLES["customer"] else None


def _kept_entities(stated: str, values: Any, own_names: Collection[str], correcting: bool
                   ) -> tuple[list[tuple[str, str, str]], bool]:
    """(the values a statement of theirs names, whether it corrects): no values for a sentence that is not
    theirs, or names only values it says are wrong ("X are NOT on the Ever Lunar": the next sentence says
    the right one, a correction)."""
    personal = _may_be_personal(stated) or (correcting and _keepable(stated))
    entities = _not_their_names_misread(stated, values, own_names, _entities(stated, values)) if stated else []
    if entities and _theirs(stated, entities, own_names, personal) and not _only_rejected(stated, entities):
        return entities, correcting
    return [], correcting or (personal and bool(CHANGE.search(stated))) or _only_rejected(stated, entities)


def _not_their_names_misread(stated: str, values: Any, own_names: Collection[str],
                             entities: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The entities without a value of the data read into a word of a name of theirs ("Pacifica" of their
    customer Pacifica Fresh Markets is no misspelt Pacific International Lines)."""
    own = {w.lower() for name in own_names for w in re.findall(r"[\w&'’-]{4,}", name)}
    misread = {str(lk.value) for lk in values.links(stated) if lk.how in ("fuzzy", "partial")
               and set(re.findall(r"[\w&-]{4,}", re.sub(r"['’]s\b", "", stated[lk.start:lk.end].lower()))) <= own}
    return [e for e in entities if e[0] == OWN or e[2] not in misread]


_PRONOUN_FIRST = re.compile(r"^\W*(?:they|it|she|he)(?:(['’]re|\s+are)|(['’]s|\s+is))?\b", re.I)
_POSSESSIVE_FIRST = re.compile(r"^\W*(?:their|its|her|his)\b", re.I)


def _pronoun_as_named(stated: str, named: str | None) -> str:
    """"They're on the CMA CGM Callisto" after a sentence about Ruiz Hermanos: "Ruiz Hermanos are on ...";
    "Their haulier is ...": "Ruiz Hermanos's haulier is ..."; the sentence as it is without a name before it."""
    if named and (own := _POSSESSIVE_FIRST.match(stated)) is not None:
        return f"{named}'s{stated[own.end():]}"  # "Their haulier is Van Rijn": Zielony Dom's haulier
    m = _PRONOUN_FIRST.match(stated) if named else None
    if m is None or named is None:
        return stated
    verb = " are" if m.group(1) else " is" if m.group(2) else ""
    return f"{named}{verb}{stated[m.end():]}"


_THIRD_PERSON = re.compile(r"\b(their|theirs|they|them)\b", re.I)


def pronouns_as(question: str, name: str) -> str:
    """"Who's their haulier, and which slot do they insist on?" of Zielony Dom: "Who's Zielony Dom's haulier,
    and which slot do Zielony Dom insist on?"."""
    return _THIRD_PERSON.sub(lambda m: f"{name}'s" if m.group(1).lower().startswith("their") else name, question)


def own_names_of(entities: Any) -> list[str]:
    """The names of theirs among a statement's or a memory's entities (a customer, a haulier)."""
    return [str(e[2]) for e in entities if (e[0], e[1]) == (OWN, own_values.NAME)]


def _only_rejected(stated: str, entities: list[tuple[str, str, str]]) -> bool:
    """Every value of the data the sentence names is one it says is wrong ("they are NOT on the Ever Lunar")."""
    wrong = rejected_names(stated)
    data = [e for e in entities if e[0] != OWN]
    return bool(wrong) and bool(data) and all(_name_words(e[2]) & wrong for e in data)


# "Hi, Ola from Fjordfisk AS", "Kofi here from Accra Agro Exports", "this is Priya with Harbor Link": who the user
# is and the firm they are with (a firm's name: two capitalised words or more, or one with a legal form)
_INTRODUCTION = re.compile(
    r"^\W*(?i:(?:hi|hello|hey|morning|moin|hola|bonjour|hallo|buongiorno)\b[\s,!.]*)?(?i:(?:this is|it's|i'm|i am)\s+)?"
    r"(?P<person>[A-Z][\w'-]+)(?i:\s+here)?\s*,?\s+(?i:from|with|at)\s+"
    r"(?P<firm>[A-Z][\w&'-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*)+)\W*$")


# "we're Nordlicht Agrar from Kiel", "I work for Hanse Feeder Lines", "I'm with Harbor Link" (or said so in French,
# Spanish or German, read in English): the firm they are, and where it is
_WE_ARE = re.compile(
    r"^\W*(?i:(?:hi|hello|hey|morning|moin|hola|bonjour|hallo|buongiorno)\b[\s,!.]*)?"
    r"(?i:we are|we're|i work (?:for|at)|i'm with|i am with)\s+(?i:(?:by the way|btw)\s+)?"
    r"(?P<firm>[A-Z][\w&'-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*)+)(?:\s+(?i:from|in|out of)\s+(?P<place>[A-Z][\w'-]+))?\W*$")


def _introduction(stated: str, said_at: str | None) -> PersonalCandidate | None:
    """A sentence that only says who the user is and the firm they are with: the firm, kept as theirs (with
    the place it is in, when said)."""
    m = _INTRODUCTION.match(stated)
    if m is not None and not own_values.ordinary(m.group("person")):
        firm = m.group("firm").rstrip(".")
        return PersonalCandidate(stated, ((OWN, own_values.NAME, firm),), ("company", "firm"), False, said_at or _now(),
                                 roles=("company",))
    we = _WE_ARE.match(other_languages.in_english(stated) or stated)
    if we is None:
        return None
    place = ((OWN, own_values.PLACE, we.group("place")),) if we.group("place") else ()
    return PersonalCandidate(stated, ((OWN, own_values.NAME, we.group("firm").rstrip(".")), *place), ("company", "firm"),
                             False, said_at or _now(), roles=("company",))


def _with_the_record(cand: PersonalCandidate, entities: list[tuple[str, str, str]], text: str,
                     record: tuple[str, str, str] | None) -> PersonalCandidate:
    """"what temp is EGHU0204096 at? Dalby Fresh Produce keep ringing me": the one record the turn names is
    the one its name of theirs is about (kept last: the memory's subject stays the name)."""
    if record is None or any(e[0] in _OWN_THINGS[:4] for e in entities) \
            or not any(e[:2] == (OWN, own_values.NAME) for e in entities):
        return cand
    return dataclasses.replace(cand, entities=(*cand.entities, record), text=_with_sentence_of(cand.text, text, record[2]))


# "our haulier is X and our customs broker is Y": two things told, each a memory of its own (forgetting one
# keeps the other); a place said before the first ("In LA our haulier ...") is said of both
_ANOTHER_OWN = re.compile(r"\s*,?\s+and\s+(?=(?:my|our)\s+[a-z])", re.I)
_LEAD = re.compile(r"^\s*((?:in|at|for|from|out of)\s+[^,]*?)[,\s]+(?=(?:my|our)\s)", re.I)
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|uses?|handles?|does|do)\b|'s\b", re.I)


def own_clauses(sentence: str) -> list[str]:
    """The sentence, or its clauses when it tells two things of the user's, each with a verb of its own."""
    parts = _ANOTHER_OWN.split(sentence)
    if len(parts) < 2 or not all(_VERB.search(p) for p in parts):
        return [sentence]
    lead = _LEAD.match(parts[0])
    return [parts[0]] + [f"{lead.group(1)} {p}" if lead else p for p in parts[1:]]


_SAID_BEFORE = re.compile(r"\b(?:said|told|wrote|mentioned|dit|gesagt|geschrieben|dicho|dije)\b", re.I)


def _forget_then_told(said: list[str]) -> list[str]:
    """"Forget what I said about Rotterdam: we're moving everything to Antwerp": the request to forget,
    and what replaces it as a sentence of its own (a change, since a request to forget came before)."""
    out = []
    for sentence in said:
        head, colon, rest = sentence.partition(":")
        # only a request about what was said before ("don't save this: ..." is about what follows)
        if colon and rest.strip() and FORGET.search(head) and _SAID_BEFORE.search(head) and not FORGET.search(rest):
            out += [head + ".", rest.strip()]
        else:
            out.append(sentence)
    return out


def _with_sentence_of(stated: str, turn: str, value: str) -> str:
    """The statement, and the turn's sentence that names the record it is tied to ("I look after Andes
    Fruit Co; their apples are in ONEU5964541"), so the memory keeps what the user said of it."""
    said = next((statement_part(s) for s in sentences(turn) if value.lower() in s.lower()), "")
    joined = f"{stated} {said}" if said and said not in stated else stated
    return joined if len(joined) <= MAX_TEXT_CHARS else stated


def _the_one_record(text: str, values: Any) -> tuple[str, str, str] | None:
    """The one container, voyage, vessel or carrier a whole turn names, or None (none, or several). A
    question the turn also asks does not count ("their shirts went into box X. Separately, what's
    Maersk's cut-off?": box X)."""
    records: set[tuple[str, str, str]] = set()
    for said in [text, " ".join(s for s in sentences(text) if not _is_question(s))]:
        found, _ = data_links(said, values.links(said))
        records = {(lk.table, lk.column, str(lk.value)) for lk in found if lk.table in _OWN_THINGS[:4]}
        if len(records) <= 1:
            break
    return records.pop() if len(records) == 1 else None


def _is_question(sentence: str) -> bool:
    """A sentence that asks ("Separately, what's the cut-off?"), by its mark or its first words."""
    s = sentence.strip()
    return s.endswith("?") or bool(QUESTION.match(re.sub(r"^(?:\w+,\s*)", "", s)))


def _position(text: str, value: str) -> int | None:
    """Where the value (or its first word, for a linked name written shorter) is said."""
    for probe in (value, value.split(" (")[0], value.split()[0] if value.split() else value):
        at = text.lower().find(probe.lower())
        if at >= 0:
            return at
    return None


# What a user's own shipment is tracked by, before the places and lines it touches.
_OWN_THINGS = ("CONTAINERS", "VOYAGES", "VESSELS", "CARRIERS", "PORTS")


@dataclass
class Written:
    stored_id: str              # "" when nothing new was stored (the same value said again, or a forget)
    superseded: list[str] = field(default_factory=list)
    collateral: int = 0        # superseded memories that share no linked column with the new one
    forgotten: list[str] = field(default_factory=list)
    text: str = ""             # the sentence kept (or already kept) as the memory
    subject: str = ""          # TABLE.COLUMN of what it is about (of a new memory)
    names: tuple[str, ...] = ()  # the names of theirs the new memory holds (a customer, a haulier)


def valid_memories(eng: Engine, user_id: str, agent_id: str) -> list[Any]:
    """The user's valid personal memories, oldest first (never another user's; never a superseded or forgotten one)."""
    return _valid(eng, user_id, agent_id)


def _valid(eng: Engine, user_id: str, agent_id: str) -> list[Any]:
    return eng.store.list("fact", limit=None, user_id=user_id, agent_id=agent_id, metadata_filter={"kind": KIND})


def _same_subject(new: PersonalCandidate, old: Any) -> bool:
    """The old memory is about what the new one is about: the same column (or kind of value) and the
    same thing of the user's (the noun they used, or for a correction the role it plays)."""
    old_meta = old.metadata or {}
    # any value of the old memory may be what the new one is about ("our office is in Rotterdam, by the
    # Maasvlakte" is about a place too)
    old_subjects = {old_meta.get("subject")} | {subject_of(t, c) for t, c, _ in old_meta.get("entities") or []}
    if new.subject not in old_subjects:
        return False
    old_nouns = set(old_meta.get("nouns") or [])
    if shared := set(new.nouns) & old_nouns:
        return not _said_of_another(new.text, old.content or "", shared, new.entities)
    return new.change and _corrects(new, old, old_nouns)


def _corrects(new: PersonalCandidate, old: Any, old_nouns: set[str]) -> bool:
    """A correction sharing no noun with the old memory on its subject is about it: not when it says its thing
    otherwise ("the coffee booking" after "the tiles one") or both name their own thing; a value of the data's
    own column, yes; one of theirs, when the roles agree (or it says none)."""
    if _said_of_another(new.text, old.content or "", old_nouns, new.entities) or _introduced_as_another(new.text, old_nouns):
        return False
    if not new.subject.startswith(f"{OWN}."):
        return True
    old_roles = set((old.metadata or {}).get("roles") or [])
    return bool(set(new.roles) & old_roles) or not new.roles


# a name introduced with what the person is to them: "Rafael, my team lead, ..."
_INTRODUCED = re.compile(r"(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)*,\s+(?:my|our)\s+((?:[a-z][\w-]*\s+)?[a-z][\w-]*)\s*,", re.I)


def _introduced_as_another(new: str, old_nouns: set[str]) -> bool:
    """"Rafael, my team lead, is off until the 20th": a person introduced by what they are to the user, which the
    old memory's thing is not; a new party, not a correction of the battery shipper told before."""
    m = _INTRODUCED.search(new)
    return m is not None and not {stem(w) for w in m.group(1).lower().split()} & old_nouns


def _said_of_another(new: str, old: str, nouns: set[str], values: Sequence[tuple[str, str, str]]) -> bool:
    """"The coffee booking, CF-311, ..." after "the tiles one, ref TL-204": the noun they share is said with a
    word before it ("coffee") that the old memory never uses: another one of that kind, not a new value of it;
    not a word of when ("our new haulier") nor of the new value itself ("the Rotterdam office now")."""
    said = {stem(w) for w in re.findall(r"[a-z][\w-]*", old.lower())}
    own = {stem(w) for v in values for w in re.findall(r"[a-z][\w-]*", str(v[2]).lower())}
    for noun in nouns:
        for m in re.finditer(rf"\b([a-z][\w-]*)\s+{re.escape(noun)}s?\b", new, re.I):
            word = m.group(1).lower()
            # ("that Busan-Rotterdam rate" of "our rate for Busan to Rotterdam": each part is said)
            if word not in _NOT_CONTENT and word not in _OF_WHEN and table_of_word(word) is None \
                    and not all(stem(part) in said | own for part in word.split("-") if part):
                return True
    return False


# the words that say which one of a thing by when, not what: "our new haulier" is still their haulier
_OF_WHEN = frozenset("""new old current previous former latest usual regular main primary other next last first present
temporary permanent""".split())


def _same_subject_memories(eng: Engine, cand: PersonalCandidate, user_id: str, agent_id: str) -> list[Any]:
    """The user's valid memories the candidate would supersede, oldest first: those on its subject,
    and for a correction those holding the name it says is the wrong one."""
    valid = _valid(eng, user_id, agent_id)
    olds = _the_ones_it_names(cand, [r for r in valid if _same_subject(cand, r)])
    if cand.change and not cand.nouns and not cand.roles:
        olds = olds[-1:]  # "scratch that, it's 813N": the latest on that subject, no other
    wrong = rejected_names(cand.text) if cand.change else set()
    named = [r for r in valid if r not in olds and any(wrong & _name_words(e[2]) for e in _remembered_entities(r))]
    return sorted(olds + named, key=valid.index)


def _the_ones_it_names(cand: PersonalCandidate, olds: list[Any]) -> list[Any]:
    """"Correction on the allocation: 30 FEU" of "our allocation is 40 FEU" and "our margin is 14%": of the
    memories on its subject, those sharing a noun with it when some do; all of them otherwise."""
    return [r for r in olds if set(cand.nouns) & set((r.metadata or {}).get("nouns") or [])] or olds


def rejected_names(text: str) -> set[str]:
    """The names a correction says are the wrong ones, lower-cased."""
    names = {(m.group(1) or m.group(2)).lower() for m in _REJECTED.finditer(text)}
    return {n for n in names if not own_values.ordinary(n)}  # "June 14, not June 10" is a date, not a name


def _name_words(value: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[\w&'’-]+", str(value))}


def _carried(cand: PersonalCandidate, olds: list[Any]) -> tuple[list[dict[str, str]], list[str]]:
    """The earlier values (each once, oldest first) and the nouns the new memory carries from the ones it supersedes."""
    earlier: list[dict[str, str]] = []
    nouns = list(cand.nouns)
    for r in olds:
        meta = r.metadata or {}
        # the old memory's value of the new one's kind ("our Jebel Ali office, covering the Gulf accounts",
        # moved to Colombo: Jebel Ali, not Gulf)
        same = next((e[2] for e in meta.get("entities", []) if subject_of(e[0], e[1]) == cand.subject), None)
        earlier = [*meta.get("earlier", []), {"value": str(same or meta.get("value")), "said_at": str(meta.get("said_at")),
                                             "text": r.content or ""}, *earlier]
        nouns += [n for n in meta.get("nouns", []) if n not in nouns]  # what they called it still refers to it
    earlier += [{"value": v, "said_at": cand.said_at, "text": cand.text} for v in cand.earlier]
    earlier = [e for i, e in enumerate(earlier) if e["value"] not in {x["value"] for x in earlier[:i]}]  # said once
    return earlier, nouns


def _names_kept(cand: PersonalCandidate, olds: list[Any]) -> list[list[str]]:
    """"It's not ONEU8933061, it's ONEU6645791" of "our consignee Harlow Retail has box ONEU8933061": the
    names of their own the old memory held that the correction does not replace (Harlow Retail's box)."""
    said = {str(e[2]).lower() for e in cand.entities}
    subjects = {subject_of(t, c) for t, c, _ in cand.entities}
    if f"{OWN}.{own_values.NAME}" in subjects:
        return []  # the correction says a name itself
    rejected = rejected_names(cand.text)
    kept = [list(e) for r in _with_a_value_replaced(olds, subjects, said) for e in (r.metadata or {}).get("entities", [])
            if e[0] == OWN and e[1] == own_values.NAME and str(e[2]).lower() not in said
            and not set(str(e[2]).lower().split()) & rejected]
    return [e for i, e in enumerate(kept) if e not in kept[:i]]


def _with_a_value_replaced(olds: list[Any], subjects: set[str], said: set[str]) -> list[Any]:
    """The old memories holding a value of a subject the correction gives another value of (the box)."""
    return [r for r in olds if any(subject_of(t, c) in subjects and str(v).lower() not in said
                                   for t, c, v in (r.metadata or {}).get("entities", []))]


def _memory_meta(cand: PersonalCandidate, value: str, olds: list[Any], thread_id: str | None) -> dict[str, Any]:
    """The stored fields of the new memory: its subject and values, with what it carries from the old ones."""
    earlier, nouns = _carried(cand, olds)
    roles = sorted(set(cand.roles) | {r for old in olds for r in (old.metadata or {}).get("roles", [])})
    meta = {"kind": KIND, "source": SOURCE, "subject": cand.subject, "value": value,
            "entities": [list(e) for e in cand.entities] + _names_kept(cand, olds), "nouns": nouns,
            "said_at": cand.said_at,
            "earlier": earlier[-EARLIER_KEPT:], "roles": roles, "change": cand.change, "time": cand.time}
    if thread_id:
        meta["thread_id"] = thread_id
    return meta


def _supersede(eng: Engine, cand: PersonalCandidate, olds: list[Any], done: Written, user_id: str) -> Written:
    """Mark the old memories superseded by the new one; count those sharing no linked column with it."""
    new_columns = {subject_of(t, c) for t, c, _ in cand.entities}
    for r in olds:
        old_columns = {subject_of(t, c) for t, c, _ in (r.metadata or {}).get("entities", [])}
        eng.store.set_status("fact", r.id, "superseded", by=user_id, reason=f"the user said: {cand.text[:200]}",
                             replaced_by=done.stored_id)
        done.superseded.append(r.id)
        done.collateral += 0 if old_columns & new_columns or not new_columns else 1
    return done


def _of_the_kind_corrected(eng: Engine, cand: PersonalCandidate, olds: list[Any]) -> PersonalCandidate:
    """"We've switched our Shanghai forwarding to Huanan Freight" after "our forwarder is Jadeline": a name
    said after "to" that no port of the data has replaces a name, so it is one (not a place gone to)."""
    if not (cand.change and olds and cand.entities and cand.entities[0][:2] == (OWN, PLACE)) \
            or any((r.metadata or {}).get("subject") != f"{OWN}.{own_values.NAME}" for r in olds):
        return cand
    _, values = assistant.knowledge(eng)
    value = cand.entities[0][2]
    if any((v[1], v[2]) == ("PORTS", "PORT_NAME") and str(v[0]).lower() == value.lower() for v in values.phrases):
        return cand
    return dataclasses.replace(cand, entities=((OWN, own_values.NAME, value), *cand.entities[1:]))


def write(eng: Engine, cand: PersonalCandidate, *, user_id: str, agent_id: str,
          thread_id: str | None = None, supersede: bool = True) -> Written | None:
    """Store one personal memory; supersede the earlier ones on the same subject. None: already stored.

    `supersede=False` is the ADD-only policy the baselines compare against (every value kept,
    valid side by side, no earlier value carried): only the same value said again is skipped."""
    olds = _same_subject_memories(eng, cand, user_id, agent_id)
    cand = _of_the_kind_corrected(eng, _the_new_value_first(cand, olds), olds)
    value = cand.entities[0][2] if cand.entities else ""
    if _kept_already(cand, olds):
        return None
    if not supersede:
        olds = []
    meta = _memory_meta(cand, value, olds, thread_id)
    new_id = eng.store.add_records([RecordDraft(cand.text, metadata=meta, user_id=user_id, agent_id=agent_id)], "fact")[0]
    return _supersede(eng, cand, olds, Written(new_id, text=cand.text, subject=cand.subject, names=tuple(own_names_of(cand.entities))), user_id)


def _kept_already(cand: PersonalCandidate, olds: list[Any]) -> bool:
    """Nothing new: the same value said again, or only values the memories on its subject hold. ("The tyres in
    CMAU7754877 are going to Kestrel Wheels" after "... are for Radmark Auto": the box is the same, its party is
    new; a correction that brings a name of its own is no value said again.)"""
    value = cand.entities[0][2] if cand.entities else ""
    held = {str(e[2]) for r in olds for e in (r.metadata or {}).get("entities") or []}
    if value and not _brings_a_value(cand, held) and any(str((r.metadata or {}).get("value")) == value for r in olds):
        return True
    # ("the haulier that keeps missing our Felixstowe slots": nothing new, and the name told stays)
    return bool(cand.entities) and not cand.change and {str(e[2]) for e in cand.entities} <= held


def _the_new_value_first(cand: PersonalCandidate, olds: list[Any]) -> PersonalCandidate:
    """"We switched our haulier to Baltic Road Cargo, Rheinfracht kept missing slots" after "... with Rheinfracht":
    in a change, the value the memories on its subject already give is the one before; a value of the user's own
    they do not give is the new one, first."""
    if not (cand.change and olds and cand.entities):
        return cand
    old_values = {str((r.metadata or {}).get("value")) for r in olds}
    new = [e for e in cand.entities if e[0] == OWN and e[2] not in old_values]
    if cand.entities[0][0] != OWN or cand.entities[0][2] not in old_values or not new:
        return cand  # (a record of the data first, "the tyres in CMAU7754877 ...", is what it is about)
    before = cand.entities[0]
    rest = [e for e in cand.entities if e not in (before, new[0])]
    return dataclasses.replace(cand, entities=(new[0], *rest), earlier=(*cand.earlier, before[2]))


def _brings_a_value(cand: PersonalCandidate, held: set[str]) -> bool:
    """A correction that says a value of the user's own the memories on its subject do not hold."""
    return cand.change and any(e[0] == OWN and e[2] not in held for e in cand.entities)


def unlinked_changes(eng: Engine, text: str, *, user_id: str, agent_id: str) -> list[PersonalCandidate]:
    """A change said about a remembered thing with a new value the data does not hold ("we moved the
    office to Antwerp"): kept in the user's words on the remembered subject, so the old value is not served."""
    _, values = assistant.knowledge(eng)
    memories = _valid(eng, user_id, agent_id)
    out = []
    for sentence in sentences(text):
        stated = statement_part(sentence)
        if not _an_unlinked_change(eng, values, stated):
            continue
        words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", stated)}
        about = [r for r in memories if set((r.metadata or {}).get("nouns") or []) & words]
        if len(about) == 1:  # one remembered thing of that name; more would be a guess
            meta = about[0].metadata or {}
            out.append(PersonalCandidate(stated, (), tuple(meta.get("nouns") or []), True, _now(),
                                         str(meta.get("subject"))))
    return out


def _an_unlinked_change(eng: Engine, values: Any, stated: str) -> bool:
    """The user says they changed something, names no value of the data and states nothing the
    extraction reads, and does not ask to forget."""
    return bool(stated) and bool(_FIRST_PERSON.search(stated)) and bool(CHANGE.search(stated)) \
        and not FORGET.search(stated) and not entity_links(values.links(stated)) and not extract(eng, stated)


def forget(eng: Engine, text: str, *, user_id: str, agent_id: str) -> list[str]:
    """"Forget my customer's name", "don't keep that rate": the user's valid memories about what the
    request names are marked forgotten, never served again; the ids. Named by the noun they used,
    else by a table or a value the request names, else by role; "that" alone: the latest memory."""
    return [r.id for r in _forgotten(eng, text, user_id=user_id, agent_id=agent_id)]


def _forgotten(eng: Engine, text: str, *, user_id: str, agent_id: str) -> list[Any]:
    """The memories a request to forget in the turn marked forgotten."""
    _, values = assistant.knowledge(eng)
    gone: list[str] = []
    records: list[Any] = []
    before = ""
    asked = False  # a sentence of the turn already asked to forget something
    for said in sentences(text):
        sentence = _forget_in_english(said)
        said_before, before = before, sentence
        memories = _if_it_asks_to_forget(eng, sentence, text, gone, user_id=user_id, agent_id=agent_id)
        if memories is None:
            continue
        if not memories:
            break
        # "Kessler Brothers closed their account. Forget everything about them.": what the sentence before names
        named = f"{said_before} {sentence}" if POINTS_BACK.search(sentence) and said_before else sentence
        # ("Forget that booking ref BK-55120. Don't keep it.": "it" is what the turn has just asked to forget,
        # kept or not: never the memory told last)
        targets = [r for r in _memories_to_forget(named, memories, values, pointing=not asked)
                   if _holds_the_detail(sentence, r)]
        asked = True
        done = _mark_forgotten(eng, targets, sentence, named, user_id=user_id, agent_id=agent_id)
        gone += [r.id for r in done]
        records += done
    return records


_FORGET_NOT_IN_ENGLISH = re.compile(r"\b(?:vergiss\w*|vergessen|l[öo]sch\w*|olvid\w*|borra\w*|oubli\w*|efface\w*)\b", re.I)


def _forget_in_english(sentence: str) -> str:
    """"Oublie le nom de mon client": a request to forget in French, Spanish or German, read in English, so that
    what it names (a name, a noun of theirs, a role) is found as it is in English; else the sentence."""
    if not _FORGET_NOT_IN_ENGLISH.search(sentence):
        return sentence
    return other_languages.in_english(sentence) or sentence


def _if_it_asks_to_forget(eng: Engine, sentence: str, turn: str, gone: list[str], *, user_id: str,
                          agent_id: str) -> list[Any] | None:
    """The user's memories not yet forgotten, when the sentence asks to forget; else None. Most sentences
    ask nothing of the kind: they cost no store read. ("Forget the Spanish, English again please" changes
    how answers are written: no memory.)"""
    if not (FORGET.search(sentence) or _ABOUT_THE.search(sentence)):
        return None
    memories = [r for r in _valid(eng, user_id, agent_id) if r.id not in gone]
    if not _asks_to_forget(sentence, turn, " ".join(r.content or "" for r in memories)) or preferences.extract(sentence):
        return None
    return memories


def _mark_forgotten(eng: Engine, targets: list[Any], sentence: str, named: str, *, user_id: str,
                    agent_id: str) -> list[Any]:
    """The targets marked forgotten (what else each held kept as a memory of its own), and their names
    scrubbed from the summaries; those marked."""
    _, values = assistant.knowledge(eng)
    kept: set[str] = set()
    done = []
    for r in targets:
        if eng.store.set_status("fact", r.id, "forgotten", by=user_id, reason=f"the user said: {sentence[:200]}"):
            done.append(r)
            kept |= _keep_the_rest(eng, r, named, values, user_id=user_id, agent_id=agent_id)
    scrub_summaries(eng, user_id, [e[2] for r in targets for e in _remembered_entities(r) if e[2] not in kept])
    return done


# After a request to forget, words that say what holds now: "... we go with Hapag-Lloyd instead"
_IN_ITS_PLACE = re.compile(r"\b(?:instead|now|from now on|these days|switch\w*|mov(?:ed|ing)|chang\w*|replac\w*|"
                           r"go(?:ing)? with|us(?:e|ing)|book(?:ing)? with)\b", re.I)


def _put_in_its_place(eng: Engine, text: str, forgotten: list[Any]) -> list[PersonalCandidate]:
    """"Ignore what I said about MSC - we go with Hapag-Lloyd instead": a request to forget that says the
    new value in the same sentence is a correction. A value of the data of the same table as a forgotten
    memory's, not one of its own, is kept in the clause that says it, on that memory's nouns and roles."""
    _, values = assistant.knowledge(eng)
    out = []
    for sentence in sentences(text):
        if not (m := FORGET.search(sentence)) or not _IN_ITS_PLACE.search(sentence, m.end()):
            continue
        links = [lk for lk in entity_links(values.links(sentence)) if lk.start >= m.end()]
        out += [c for r in forgotten if (c := _the_new_value(sentence, m.end(), links, r)) is not None]
    return out


def _the_new_value(sentence: str, after: int, links: list[Link], r: Any) -> PersonalCandidate | None:
    """The one value of the data said after the request, of the forgotten memory's table and not one of
    its values, kept in the clause that says it; None for none, or two (which one holds would be a guess)."""
    held = _remembered_entities(r)
    fresh = {(lk.table, lk.column, str(lk.value)) for lk in links
             if held and lk.table == held[0][0] and str(lk.value) not in {e[2] for e in held}}
    if len(fresh) != 1:
        return None
    entity = fresh.pop()
    said = next((c.strip() for c in re.split(r"\s[-–]\s|[,;:]\s", sentence) if entity[2].lower() in c.lower()),
                sentence[after:].strip(" -–,;:"))
    meta = r.metadata or {}
    return PersonalCandidate(said, (entity,), tuple(meta.get("nouns") or []), True, _now(),
                             roles=tuple(meta.get("roles") or []))


def _rest_of(r: Any, request: str, values: Any) -> str:
    """What a memory says besides what a forget request names by value or by code; "" when the request
    names it by its noun, its role or "that" (it goes whole), or nothing else is in it."""
    entities = _remembered_entities(r)
    codes, request = _references_forgotten(entities, _codes_said(r.content or "", request), request)
    # a reference of theirs is a detail of what it belongs to: its words go, not the clause
    named = [e[2] for e in entities if _named_in(e, request, values) and e[2] not in codes]
    named, request = _sum_forgotten(r.content or "", request, [e[2] for e in entities], named)
    others = [e[2] for e in entities if e[2] not in named and e[2] not in codes]
    if not (named or codes or _a_detail_named(r, request)) or not others:
        return ""
    return what_stays(r.content or "", request, named, others)


def _the_other_sentences(r: Any, request: str) -> str:
    """"Vergiss den Zollagenten" of a memory of two sentences: the sentences that do not say its noun; "" when
    the memory is one sentence, or the request names none of them so."""
    told = sentences(r.content or "")
    kept = [t for t in told if not _says_a_noun_of(request, t)] if len(told) > 1 else told
    return " ".join(kept) if len(kept) < len(told) else ""


def _references_forgotten(entities: list[list[str]], codes: list[str], request: str) -> tuple[list[str], str]:
    """"Forget the booking ref": the references of theirs the memory holds go, with their words (they
    are added to the request's words); else the references the request says, as they were."""
    if not _A_REFERENCE.search(request):
        return codes, request
    refs = [e[2] for e in entities if e[0] == OWN and e[1] == "CODE" and e[2] not in codes]
    return codes + refs, " ".join([request, *refs])


# a request whose object is a contact detail ("forget that phone number for Dunmore")
_FORGETS_CONTACT = re.compile(r"\b(?:forget|delete|erase|remove|drop)\s+(?:about\s+)?(?:the|that|this|my|our|his|her|their)\s+"
                              r"(?:\w+\s+)??(phone|telephone|mobile|cell|direct line|e-?mail|number)\b", re.I)


def _holds_the_detail(request: str, r: Any) -> bool:
    """A request to forget a contact detail forgets a memory that holds one (digits or an address), not
    the memory of whose it is: "forget that phone number for Dunmore" of "our broker is Dunmore Clearing"
    (the number was never kept) keeps the broker. A request to forget a name forgets a memory that holds
    a name ("don't keep the consignee name" keeps the customer's box number)."""
    if _FORGETS_A_NAME.search(request):
        return any(e[:2] == [OWN, own_values.NAME] for e in _remembered_entities(r))
    contact = _FORGETS_CONTACT.search(request)
    if contact is None:
        return True
    if contact.group(1).lower() == "number":
        return re.search(r"\d{3}|@", r.content or "") is not None
    # a phone or a mail address, not the digits of a box number ("forget my mobile" of "I handle HDMU9135605")
    return re.search(r"@|(?<![\w-])\+?\d[\d\s().-]{6,}\d(?![\w-])", r.content or "") is not None


_FORGETS_A_NAME = re.compile(r"\b(?:forget|delete|erase|remove|drop|keep|store|save|remember)\s+(?:about\s+)?"
                             r"(?:the|that|this|my|our|his|her|their)\s+(?:[\w-]+\s+)?names?\b", re.I)


_A_REFERENCE = re.compile(r"\b(?:ref|refs|reference|references|number|numbers|code|codes|no)\b", re.I)


def _a_detail_named(r: Any, request: str) -> bool:
    """"Forget the gate code" of "our warehouse in Bremen has a new gate code, 4471#": the request names a
    detail of the memory in its words (Bremen stays), not the thing it is about ("forget my home port" of
    "my home port is Narvik")."""
    nouns = {stem(n) for n in (r.metadata or {}).get("nouns") or []}
    return repeats_a_detail(r.content or "", request) and not nouns & content_words(request)


def _codes_said(content: str, request: str) -> list[str]:
    """The references with a digit the request names that the memory says ("OV-2291")."""
    return [c for c in re.findall(r"[\w-]*\d[\w-]*", request) if _says_name(content, c)]


def _sum_forgotten(content: str, request: str, names: list[str], named: list[str]) -> tuple[list[str], str]:
    """"Forget the rate I gave you for Coastline": the sums of the memory go, and Coastline stays (the
    request without the names it says the sum is for); else the names the request named, as it was."""
    sums = [m.group(0) for m in own_values.MONEY_RE.finditer(content)] if _FORGETS_A_SUM.search(request) else []
    if not sums:
        return named, request
    for name in names:
        request = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", request, flags=re.I)
    return sums, request


# a forget request whose object is a sum of the memory ("the rate", "the price I gave you")
_FORGETS_A_SUM = re.compile(r"\b(?:forget|delete|erase|remove|drop)\s+(?:about\s+)?(?:the|that|my|our)\s+(?:\w+\s+)?"
                            r"(?:rate|rates|price|prices|charge|charges|cost|costs|fee|fees|amount|figure|sum)\b", re.I)


def _named_in(entity: list[str], request: str, values: Any) -> bool:
    """The request names the remembered entity: its value of the data, or the user's own name for it."""
    data = {str(lk.value) for lk in entity_links(values.links(request))}
    return entity[2] in data or (entity[0] == OWN and _says_name(request, entity[2]))


def _keep_the_rest(eng: Engine, r: Any, request: str, values: Any, *, user_id: str, agent_id: str) -> set[str]:
    """A forgotten memory that also held things the request did not name ("forget the booking reference"
    of "our customer Olivar Verde has booking reference OV-2291"): the rest is kept as a memory of its
    own, said when the first was; the names it keeps."""
    # ("vergiss den Zollagenten" of a memory of two sentences: the other sentence stays)
    rest = _rest_of(r, request, values) or _the_other_sentences(r, request)
    said_at = (r.metadata or {}).get("said_at") or ""
    out: set[str] = set()
    for cand in extract(eng, rest, own_names=own_names(eng, user_id=user_id, agent_id=agent_id)) if rest else []:
        kept = dataclasses.replace(cand, said_at=said_at or cand.said_at)
        write(eng, kept, user_id=user_id, agent_id=agent_id, thread_id=(r.metadata or {}).get("thread_id"),
              supersede=False)
        out |= {e[2] for e in cand.entities}
    return out


def _remembered_entities(r: Any) -> list[list[str]]:
    """A memory's entities: [table, column, value] each."""
    return list((r.metadata or {}).get("entities") or [])


def _memories_to_forget(sentence: str, memories: list[Any], values: Any, *, pointing: bool = True) -> list[Any]:
    """The memories a forget request names, by the first way that names any: by a value (of the
    data or the user's own), by the noun they used, by a table, by role; "that", "it" or "this"
    alone: the latest memory (unless not `pointing`: the turn already forgot what "it" points at)."""
    tables = {t for w in re.findall(r"[A-Za-z][\w'-]*", sentence) if (t := table_of_word(w))}
    named = {str(lk.value) for lk in entity_links(values.links(sentence))}
    roles = own_values.roles_of(sentence)
    tiers = [
        _named_by_value(sentence, memories, named),
        _with_metadata(memories, "nouns", set(possessed_nouns(sentence))),
        _about_in_their_words(sentence, memories),
        [r for r in memories if tables & {e[0] for e in _remembered_entities(r)}],
        _noun_written_as_theirs(sentence, memories),
        _with_metadata(memories, "roles", roles),
        memories[-1:] if pointing and re.search(r"\b(?:that|it|this)\b", sentence, re.I)
        and not _told_before_the_request(sentence) else [],
    ]
    return next((t for t in tiers if t), [])


def asks_to_forget(sentence: str) -> bool:
    """The sentence asks to forget ("forget ...", not "what did I say to forget?")."""
    return FORGET.search(sentence) is not None and not QUESTION.match(sentence.strip())


def _asks_to_forget(sentence: str, turn: str, told: str = "") -> bool:
    """The sentence asks to forget, or takes back with nothing in its place, and is no question. `told`:
    what the user's memories say (a name from them said again is no new value)."""
    return asks_to_forget(sentence) or (takes_back(sentence, turn, told) and not QUESTION.match(sentence.strip()))


def takes_back(sentence: str, turn: str, told: str = "") -> bool:
    """"Ignore what I said about the booking ref - that was another customer's": taken back with nothing in
    its place. With a new value after it in the turn ("..., it's actually Kestrel Imports") it is a
    correction; the old one said again ("Fairhaven was only a quote") is none."""
    m = _ABOUT_THE.search(sentence)
    if m is None or not re.search(r"\b(?:scrap|scratch|ignore|disregard)\s+(?:what|everything|all)\b", sentence, re.I):
        return False
    after = turn[turn.find(sentence) + m.end():].strip()
    # a value: a number or a name (a capital not at a sentence's start) the memories do not already hold
    said = [w.group(0) for w in re.finditer(r"\d[\w-]*|(?<![.!?\-\u2013\u2014:]\s)(?<!^)\b[A-Z][\w-]*", after)]
    return not [w for w in said if not re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", told)]


# "ignore what I said about the booking ref": the thing named by the user's words, up to a clause's end
_ABOUT_THE = re.compile(r"\b(?:said|told you|mentioned|wrote)\s+(?:about|re|regarding|on)\s+(?:the|my|our)\s+([^,;.!?\u2013\u2014]+?)"
                        r"(?=\s+-\s|[,;.!?\u2013\u2014]|$)", re.I)


def _about_in_their_words(sentence: str, memories: list[Any]) -> list[Any]:
    """The memories whose words hold every word of what the request says it is about ("the booking ref")."""
    m = _ABOUT_THE.search(sentence)
    words = content_words(m.group(1)) if m else set()
    return [r for r in memories if words and words <= content_words(r.content or "")]


def _noun_written_as_theirs(sentence: str, memories: list[Any]) -> list[Any]:
    """"Vergiss den Zollagenten" of "unser Zollagent ... ist Krüger & Söhne": a capitalised word of the request
    (not its first) that their words say, give or take an inflected ending (a German noun keeps its capital)."""
    return [r for r in memories if _says_a_noun_of(sentence, r.content or "")]


def _says_a_noun_of(request: str, text: str) -> bool:
    """The text says a capitalised word of the request (not its first), give or take an inflected ending."""
    said = [w.lower() for w in re.findall(r"(?<=\s)(?-i:[A-Z])[\w-]{4,}", request)]
    return any(_inflected_alike(w, t.lower()) for w in said for t in re.findall(r"[\w-]{5,}", text))


def _inflected_alike(a: str, b: str) -> bool:
    """One word is the other with an inflected ending or none ("Zollagent", "Zollagenten")."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and long[len(short):] in ("", "e", "n", "en", "s", "es", "er", "ern")


def _told_before_the_request(sentence: str) -> bool:
    """"Our gate code is 5521 - actually, don't keep that": the sentence tells a number or a reference before
    its request to forget, and "that" points at it, not at the latest memory."""
    m = FORGET.search(sentence)
    return m is not None and re.search(r"\d{2,}", sentence[:m.start()]) is not None


def _with_metadata(memories: list[Any], key: str, wanted: set[str]) -> list[Any]:
    """The memories whose metadata list `key` (their nouns, their roles) holds any of `wanted`."""
    return [r for r in memories if wanted & set((r.metadata or {}).get(key) or [])]


def _named_by_value(sentence: str, memories: list[Any], named: set[str]) -> list[Any]:
    """The memories holding a value of the data the sentence names, or one of the user's own values
    the sentence says."""
    return [r for r in memories if named & {e[2] for e in _remembered_entities(r)} or
            any(e[0] == OWN and _says_name(sentence, e[2]) for e in _remembered_entities(r))]


def _says_name(sentence: str, name: str) -> bool:
    """The sentence says the name, whole or by its first word written as a name ("Delta" for Delta Freight Lines)."""
    first = name.split()[0] if name.split() else ""
    return name.lower() in sentence.lower() or \
        (len(first) >= 3 and first[0].isupper() and bool(re.search(rf"\b{re.escape(first)}\b", sentence)))


def observe(eng: Engine, text: str, *, user_id: str, agent_id: str, thread_id: str | None = None,
            supersede: bool = True) -> list[Written]:
    """Extract and write the personal memories of one user turn (the chat service calls it per turn);
    a request to forget marks what it names forgotten."""
    forgotten = _forgotten(eng, text, user_id=user_id, agent_id=agent_id)
    gone = [r.id for r in forgotten] or _their_facts_forgotten(eng, text, user_id=user_id, agent_id=agent_id)
    out = [Written("", forgotten=gone)] if gone else []
    names = own_names(eng, user_id=user_id, agent_id=agent_id)
    covered = _to_be_forgotten(text)
    found = _theirs_extracted(eng, text, names, user_id, agent_id)
    # "Ignore what I said about the broker. Our broker is Meridian.": the change's value is in the turn; its
    # words alone would supersede the memory just written
    unlinked = [] if any(c.change for c in found) else unlinked_changes(eng, text, user_id=user_id, agent_id=agent_id)
    replaced = [] if found else _put_in_its_place(eng, text, forgotten)
    listed = _items_listed(text)
    for cand in found + unlinked + replaced:
        if any(cand.text in sentence for sentence in covered):
            continue  # "Kessler closed their account. Forget everything about them.": not kept either
        # (the items of a list are several things side by side: none replaces another, or what was kept before)
        done = write(eng, cand, user_id=user_id, agent_id=agent_id, thread_id=thread_id,
                     supersede=supersede and not any(item in cand.text for item in listed))
        out.append(done if done is not None else Written("", text=cand.text))
    return out


def _their_facts_forgotten(eng: Engine, text: str, *, user_id: str, agent_id: str) -> list[str]:
    """"Please don't keep my mobile number": when no personal memory holds what a request to forget names, the
    facts Part 7 kept from their words about it (by the subject it gave them: "mobile") are forgotten; ids."""
    asked = [s for s in sentences(text) if asks_to_forget(s)]
    if not asked:
        return []
    words = set().union(*(content_words(s) for s in asked))
    gone = [r for r in _their_facts_about(eng, words, user_id=user_id, agent_id=agent_id)
            if eng.store.set_status("fact", r.id, "forgotten", by=user_id, reason=f"the user said: {asked[0][:200]}")]
    # (as Part 7's own forget does: no summary keeps what was forgotten)
    scrub_summaries(eng, user_id, [str((r.metadata or {}).get("value") or r.content or "") for r in gone])
    return [r.id for r in gone]


def _their_facts_about(eng: Engine, words: set[str], *, user_id: str, agent_id: str) -> list[Any]:
    """The user's Part 7 facts whose subject is all in `words` ("mobile" in "don't keep my mobile number")."""
    facts = eng.store.list("fact", limit=None, user_id=user_id, agent_id=agent_id, metadata_filter={"kind": USER_FACT})
    return [r for r in facts if (subject := content_words(str((r.metadata or {}).get("subject") or ""))) and subject <= words]


def _theirs_extracted(eng: Engine, text: str, names: Any, user_id: str, agent_id: str) -> list[PersonalCandidate]:
    """The turn's candidates, "the desk" read as "our desk" when the user told of their desk before
    ("our forwarding desk sits in Felixstowe", then "from June the desk operates out of Rotterdam")."""
    read = _the_as_our(eng, text, user_id, agent_id)
    # "which came first, opening the warehouse or signing Tagus?": the options asked between are no statement
    found = [c for c in extract(eng, read, own_names=names)
             if not (re.search(r"\bor\b", c.text, re.I) and re.search(r"\b(?:which|whether)\b[^?]*\?", read, re.I))]
    if read == text:
        return found
    return [dataclasses.replace(c, text=text[at:at + len(c.text)]) if (at := read.find(c.text)) >= 0 else c
            for c in found]


def _the_as_our(eng: Engine, text: str, user_id: str, agent_id: str) -> str:
    """The turn with "the X" or "that X" of a statement written "our X" when X is a noun of one of their memories.
    "The" and "our" are the same length: what is extracted is cut from their own words at the same place."""
    # in a statement only: "the customer I mentioned, who was it?" asks
    # ("the Qingdao supplier": a name may come before the noun of a party, not of a place: "the Kiel office" is
    # where they go, which a place of theirs already told may be)
    stated = [m for m in re.finditer(r"\b(?:the|that)(?=\s+((?:(?-i:[A-Z])[\w-]*\s+){0,2})([a-z]+)\b)", text, re.I)
              if not ((end := re.search(r"[.!?]", text[m.end():])) and end.group(0) == "?")
              and not (m.group(1) and "place" in own_values.roles_of(m.group(2)))]
    if not stated:
        return text  # the memories are read only when a statement says "the ..."
    nouns = {n for r in _valid(eng, user_id, agent_id) for n in (r.metadata or {}).get("nouns") or [] if len(n) > 2}
    read = text
    for m in stated:
        if stem(m.group(2).lower()) in nouns:  # ("that" is one letter longer: "our " keeps the length)
            read = read[:m.start()] + "our".rjust(m.end() - m.start()) + read[m.end():]
    return read


def _to_be_forgotten(text: str) -> list[str]:
    """The sentences of a turn that a request to forget in it points back at ("... about them")."""
    said = sentences(text)
    return [said[i - 1] for i, s in enumerate(said) if i and FORGET.search(s) and POINTS_BACK.search(s)]


def own_names(eng: Engine, *, user_id: str, agent_id: str) -> list[str]:
    """The names of the user's own world (a customer, a haulier) their memories hold."""
    return list(dict.fromkeys(str(e[2]) for r in _valid(eng, user_id, agent_id)
                              for e in (r.metadata or {}).get("entities", []) if tuple(e[:2]) == (OWN, own_values.NAME)))


# ------------------------------------------------------------------ recall
@dataclass
class Recalled:
    memory_id: str
    text: str                    # what the user said
    said_at: str
    table: str
    column: str
    value: str                   # the remembered value (the earlier one for a question about the past)
    noun: str                    # the word of the question that referred to it
    earlier: bool = False        # the value before the latest correction
    direct: bool = False         # the value itself answers (a name, place or sum of the user's)
    quote: bool = True           # the user's words may be shown (not a correction naming the old value)
    nouns: tuple[str, ...] = ()  # what the user called their things in that memory
    roles: tuple[str, ...] = ()  # what its values are to the user (own_values.ROLES)
    entities: tuple[tuple[str, str, str], ...] = ()  # every value that memory names
    corrected: str = ""          # the words of the memories it superseded (what the correction is about)
    ordinal: bool = False        # picked among several by the order told ("that second box")


# A request said as an imperative to the assistant ("just give me my number", "remind me the name"):
# a question too.
_REQUEST = re.compile(r"^(?:(?:and|so|ok|okay|just|please|pls|right|now|quick(?:ly)?|can you|could you)\W+)*"
                      r"(?:(?:give|tell|remind|send|show|confirm|repeat|paste|read)\s+me\b|"
                      # an order to look something up is a question too ("list the voyages of my carrier")
                      r"(?:list|show|find|get|count|check|look\s+up|pull\s+up|display|fetch|compare)\s+(?:the|all|every|each|any)\b)",
                      re.I)


def refers_to_own(question: str) -> bool:
    """A question about the user's own things: a first-person word in a question or a request ("remind me ...")."""
    q = question.strip()
    clauses = [c.strip() for c in _CLAUSE.split(q)] + sentence_split(q, at_semicolons=True)
    return bool(_FIRST_PERSON.search(q) or re.search(r"\bme\b", q, re.I) or _POINTED_ORDINAL.search(q)) and (
        q.endswith("?") or bool(QUESTION.match(q)) or
        any(QUESTION.match(c) or _REQUEST.match(c) or c.endswith("?") for c in clauses))


def question_nouns(question: str) -> list[tuple[str, str | None]]:
    """(word, table it names) for every word of the question."""
    return [(w.lower(), table_of_word(w)) for w in re.findall(r"[A-Za-z][\w'-]*", question)]


def _words_only(rec: Any, meta: dict[str, Any], noun: str) -> Recalled:
    """A change in the user's words only (no value of the data): the words are the value."""
    table, _, column = str(meta.get("subject", "")).partition(".")
    return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, "", noun)


def _entity_recalled(rec: Any, meta: dict[str, Any], question: str, entity: tuple[str, str, str], hit: str) -> Recalled:
    """The remembered entity, or the value before its latest correction when the question asks the past."""
    table, column, value = entity
    earlier = asks_earlier(question, meta) and meta["subject"] == f"{table}.{column}"
    if earlier:
        first = meta["earlier"][0]
        return Recalled(rec.id, first["text"], first["said_at"], table, column, first["value"], hit, True)
    return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value, hit)


# "the two boxes", "both voyages": several things named by their number, not by a name
_THE_SEVERAL = re.compile(r"\b(?:the|those|these)\s+(two|three|four|five)\s+(?:[\w-]+\s+){0,2}?([a-z]+s)\b|"
                          r"\bboth\s+(?:of\s+)?(?:the\s+)?([a-z]+s)\b", re.I)


NUMBER_SAID = ("two", "three", "four", "five")  # several things said by their number
# "those two", "both of them": several things pointed at with no noun; what the user told several of
_THE_SEVERAL_BARE = re.compile(r"\b(?:those|these)\s+(two|three|four|five)\b(?!\s+[a-z]+s\b)|\bboth\s+of\s+them\b", re.I)


def points_at_several(question: str) -> bool:
    """"Those two", "both of them": several things pointed at with no noun."""
    return _THE_SEVERAL_BARE.search(question) is not None


def _the_table_told_several(memories: Sequence[Any], at_least: int) -> str | None:
    """The one table of the data the user told at least that many values of; None for none or several."""
    tables = {str(e[0]) for r in memories for e in (r.metadata or {}).get("entities", []) if e[0] != OWN}
    several = [t for t in tables if len(told_values(memories, t)) >= at_least]
    return several[0] if len(several) == 1 else None


def told_values(memories: Sequence[Any], table: str, column: str | None = None) -> list[str]:
    """The values of a table (and column) the memories name, each once, in the order told."""
    return list(dict.fromkeys(str(v) for m in memories for t, c, v in (m.metadata or {}).get("entities", [])
                              if t == table and column in (None, c)))


def several_told(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Recalled | None:
    """"What's the combined weight of the two boxes?": the user told at least that many things of the
    table the noun names; the newest of them (the caller reads them all). None otherwise."""
    memories = valid_memories(eng, user_id, agent_id)
    m = _THE_SEVERAL.search(question)
    table = table_of_word(m.group(2) or m.group(3)) if m else None
    if m is None and (bare := _THE_SEVERAL_BARE.search(question)) is not None:
        m, table = bare, _the_table_told_several(memories, NUMBER_SAID.index((bare.group(1) or "two").lower()) + 2)
    if m is None or table is None:
        return None
    told = [r for r in memories if told_values([r], table)]
    if len(told_values(told, table)) < NUMBER_SAID.index((m.group(1) or "two").lower()) + 2:
        return None
    # ("those two" names no table: the one they told several of is the thing)
    words = question_nouns(question) + [(TABLE_NOUNS_BY_TABLE.get(table, table.lower()), table)]
    return _recalled_from(told[-1], question, words, {stem(w) for w, _ in words})


def _recalled_from(rec: Any, question: str, words: list[tuple[str, str | None]], asked_nouns: set[str]) -> Recalled | None:
    """What the question refers to in one memory: an entity whose table the question names, or its
    first entity when the question uses the noun the user called it by; None when neither."""
    meta = rec.metadata or {}
    entities = [tuple(e) for e in meta.get("entities", [])]
    by_noun = [n for n in meta.get("nouns", []) if n in asked_nouns]
    if not entities and by_noun:
        return _words_only(rec, meta, by_noun[0])
    # the entity whose table the question names ("the voyage my supplier booked": the voyage, not its ship), else
    # the one the user's noun names
    if (table_named := _of_the_table_named(rec, entities, words)) is not None:
        return _entity_recalled(rec, meta, question, *table_named)
    named = _named_by_noun(rec.content or "", by_noun[0], entities) if by_noun else None
    return _entity_recalled(rec, meta, question, (named[0], named[1], named[2]), by_noun[0]) if named else None


def _of_the_table_named(rec: Any, entities: list[tuple[str, ...]], words: list[tuple[str, str | None]]
                        ) -> tuple[tuple[str, str, str], str] | None:
    """(the first entity of a table the question names, the word that names it), not one the memory says is the
    wrong one ("my box is now on 395S, not on the Nuri": not the Nuri); None when there is none."""
    wrong = rejected_names(rec.content or "")
    for entity in entities:
        if (hit := next((w for w, t in words if t == entity[0]), None)) is not None and not wrong & _name_words(entity[2]):
            return (entity[0], entity[1], entity[2]), hit
    return None


def _named_by_noun(text: str, noun: str, entities: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The value the user's noun names in their words: for a noun of a role (a customer, a haulier),
    the name of theirs said nearest it ("on the Ever Acme ..., for my customer Sahel Fresh": Sahel
    Fresh, not the ship); else, or when the noun is not written, the first value."""
    at = text.lower().find(noun.lower())
    names = [(i, e) for i, e in enumerate(entities) if e[:2] == (OWN, own_values.NAME)]
    if at < 0 or not names or not own_values.roles_of(noun):
        return entities[0] if entities else None
    placed = [(abs(p - at), i) for i, e in names if (p := _position(text, e[2])) is not None]
    return entities[min(placed)[1]] if placed else entities[0]


def resolve(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Recalled | None:
    """The remembered entity a question refers to: the user's newest valid memory whose possessed
    noun the question uses, or whose linked table the question names; None when nothing matches."""
    if not refers_to_own(question):
        return kind_of_named(eng, question, user_id=user_id, agent_id=agent_id)
    # newest first; not those about another one of the role asked ("our coffee customer": not the cocoa buyer)
    memories = _holding_the_reference(question, _may_be_meant(eng, question, user_id, agent_id))
    if not memories:
        return None
    return _called_by_the_ordinal(question, memories) or _resolve_among(question, memories, _nouns_and_kinds(eng, question))


def _nouns_and_kinds(eng: Engine, question: str) -> list[tuple[str, str | None]]:
    """question_nouns, with a noun of theirs the schema's comments explain as a kind of one table's rows by that
    table ("our reefer": CONTAINERS, whose 20RF and 40RF are reefers)."""
    _, values = assistant.knowledge(eng)
    kinds = {}
    for noun in possessed_nouns(question):
        links = values.links(noun)
        if links and all(lk.how == "explained" for lk in links) and len({lk.table for lk in links}) == 1:
            kinds[noun.lower()] = links[0].table
    return [(w, t or kinds.get(w)) for w, t in question_nouns(question)]


def _holding_the_reference(question: str, memories: list[Any]) -> list[Any]:
    """"Chasing PO-77134, which ship is that one on?": a reference of theirs the question names picks the
    memories that hold it; all of them when it names none a memory holds."""
    named = {m.group(0).upper() for m in own_values.CODE_RE.finditer(question)}
    holding = [r for r in memories if named & {str(e[2]).upper() for e in _remembered_entities(r) if e[:2] == [OWN, own_values.CODE]}]
    return holding or memories


def _resolve_among(question: str, memories: list[Any], words: list[tuple[str, str | None]]) -> Recalled | None:
    """The remembered entity of `memories` (newest first) the question refers to: of the kind it asks, by the
    order told, by its noun or table (`words`: each word of the question with the table it names), else None."""
    asked_nouns = {stem(w.removesuffix("'s")) for w, _ in words} | set(possessed_nouns(question))
    kind = own_values.asked_kind(question)
    if kind and not any(t for _, t in words):  # "who's my client?", "which city do I work from?"
        memories = [r for r in memories if not described_otherwise(question, _told_of(r))]
        found = _of_the_kind_asked(question, kind, memories)
        if found is not None:
            return found  # else a thing of theirs named by their own noun ("where are our ceramics bound?")
    if (picked := _by_order_told(question, memories, words, asked_nouns)) is not None:
        return picked
    for rec in memories:
        recalled = _recalled_from(rec, question, words, asked_nouns)
        if recalled is not None:
            return with_memory_words(recalled, rec)
    # a word that names a table but no remembered value of it ("the consignee"): what the question asks for
    found = _resolve_kind(question, kind, memories) if kind else None
    return _with_words_of(found, memories) if found is not None else None


# "that second box", "the first one", "the box I told you about first": which of several things of
# theirs, in the order they were told (not "the one that arrived first": an order of the data)
_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "last": -1, "latest": -1,
             "most recently": -1, "earliest": 0}
_ORDER_TOLD = re.compile(r"\b(first|1st|second|2nd|third|3rd|last|latest)\s+(?:[a-z]+\s+)?(?=[a-z]+\b)(?!(?:time|week|day|month)\b)|"
                         r"\b(?:told|tell|mentioned|mention|gave|give|said|say|named)\s+(?:(?:it\s+)?to\s+)?(?:you\s+)?"
                         r"(?:about\s+)?(first|second|third|last|most recently|earliest)\b", re.I)


def _of_the_kind_asked(question: str, kind: str, memories: list[Any]) -> Recalled | None:
    """"Who's my client?", "which booking ref did I give you last?": their value of the kind asked."""
    found = _kind_by_order_told(question, kind, memories) or _resolve_kind(question, kind, memories)
    return _with_words_of(found, memories) if found is not None else None


def _told_index(question: str) -> int | None:
    """Which of several things told an ordinal picks, as an index in the order told (-1: the last); None
    without one."""
    m = _ORDER_TOLD.search(question)
    return None if m is None else _ORDINALS[(m.group(1) or m.group(2)).lower()]


def _kind_by_order_told(question: str, kind: str, memories: list[Any]) -> Recalled | None:
    """"Which booking reference did I give you last?": among their values of the kind asked (`memories` is
    newest first), the one the ordinal picks by the order told; None without one, or with fewer than two."""
    index = _told_index(question)
    told = [r for r in reversed(memories) if [e[:2] for e in _remembered_entities(r)][:1] == [[OWN, kind]]]
    if index is None or len(told) < 2 or index >= len(told):
        return None
    table, column, value = _remembered_entities(told[index])[0]
    return dataclasses.replace(_value_of(told[index], table, column, value, kind.lower()), ordinal=True)


# "that second box", "the first one": an ordinal that points at what was told, not at rows of the data
_POINTED_ORDINAL = re.compile(r"\b(?:that|this|those|these)\s+(?:first|1st|second|2nd|third|3rd|last)\b|"
                              r"\bthe\s+(?:first|1st|second|2nd|third|3rd)\s+one\b", re.I)


def _by_order_told(question: str, memories: list[Any], words: list[tuple[str, str | None]],
                   asked_nouns: set[str]) -> Recalled | None:
    """The thing of theirs an ordinal picks among several of one kind, by the order the user told them
    (`memories` is newest first); None without an ordinal, or with fewer than two such things."""
    index = _told_index(question)
    if index is None:
        return None
    told = [(rec, r) for rec in reversed(memories) if (r := _recalled_from(rec, question, words, asked_nouns)) is not None]
    kinds = {(r.table, r.column) for _, r in told}
    if len(kinds) != 1 or len(told) < 2 or index >= len(told):
        return None
    rec, recalled = told[index]
    return dataclasses.replace(with_memory_words(recalled, rec), ordinal=True)


def _called_by_the_ordinal(question: str, memories: list[Any]) -> Recalled | None:
    """"The second one" of "Brightwell's second shipment is booked on Kota Singa 257S": the one memory whose
    words call its thing by the ordinal the question points with; None otherwise."""
    index = _told_index(question) if _POINTED_ORDINAL.search(question) else None
    called = [r for r in memories if index is not None and _calls_itself(r.content or "", index)]
    if len(called) != 1 or not (entities := _remembered_entities(called[0])):
        return None
    # (the record it is on: a box, else its voyage; a ship alone does not say which of her voyages)
    table, column, value = min(entities, key=lambda e: _OWN_THINGS.index(e[0]) if e[0] in _OWN_THINGS else len(_OWN_THINGS))
    if table not in _OWN_THINGS[:2]:
        return None
    return dataclasses.replace(with_memory_words(_value_of(called[0], table, column, value, "one"), called[0]),
                               ordinal=True)


def _calls_itself(text: str, index: int) -> bool:
    """The words of a memory call its thing by the ordinal asked ("our second shipment")."""
    said = [w for w, i in _ORDINALS.items() if i == index and i >= 0 and " " not in w]
    return bool(said) and re.search(rf"\b(?:{'|'.join(said)})\s+(?:ever\s+)?[a-z]+", text, re.I) is not None


# ("what delivery address did I give you": the last noun before the verb is what is asked)
_ASKED_HEAD = re.compile(r"\b(?:what|which)\s+((?:[a-z]+\s+){0,2}?[a-z]{3,})\s+(?:did|do|does|have|had)\s+(?:i|we)\b", re.I)


_GENERIC_HEADS = {"name", "number", "no", "id", "code", "value", "detail", "info", "one", "firm", "company", "outfit",
                  "provider", "partner", "kind", "sort", "type", "reference", "ref"}


def _asked_head(question: str) -> str | None:
    """The noun a question asks the user's own words for ("what margin did I mention"), or the role of
    theirs it asks for ("who's my main customer in LA"), when it names no table of the data: a memory
    that never says it (nor its role) does not answer it."""
    m = _ASKED_HEAD.search(question)
    if m is not None:  # the phrase's last noun ("what delivery address": an address; "which trucking firm": any firm)
        head = stem(m.group(1).lower().split()[-1])
        return None if head in _GENERIC_HEADS or table_of_word(head) or head in SYNONYMS else head
    words = [stem(w.lower()) for w in re.findall(r"[A-Za-z]+", asked_possession(question) or "")]
    return next((w for w in words if own_values.roles_of(w) and not table_of_word(w)), None)


def _says_head(r: Any, head: str) -> bool:
    meta = r.metadata or {}
    said = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", r.content or "")} | set(meta.get("nouns") or [])
    roles = set(meta.get("roles") or [])
    return head in said or head in roles or bool(own_values.roles_of(head) & roles)


def _may_be_meant(eng: Engine, question: str, user_id: str, agent_id: str) -> list[Any]:
    """The user's valid memories, newest first, without those about another one of what the question
    names: "our coffee customer" is not the cocoa buyer, "the T-shirts" are not the box of apples."""
    asked = _qualifiers(question) & _linked_words(eng, question)
    described = _described(eng, question)
    head = _asked_head(question)  # "what margin did I mention": a memory that says a margin
    return [r for r in reversed(_valid(eng, user_id, agent_id))
            if not _qualified_otherwise(asked, r) and not _describes_another(eng, described, r)
            and (head is None or _says_head(r, head))]


def with_memory_words(recalled: Recalled, rec: Any) -> Recalled:
    """The recalled value with the nouns and roles of the memory it came from."""
    meta = rec.metadata or {}
    return dataclasses.replace(recalled, nouns=tuple(meta.get("nouns") or ()), roles=tuple(meta.get("roles") or ()),
                               entities=tuple(tuple(e) for e in meta.get("entities") or ()),
                               corrected=_corrected_words(meta))


def _with_words_of(recalled: Recalled, memories: list[Any]) -> Recalled:
    rec = next((r for r in memories if r.id == recalled.memory_id), None)
    return with_memory_words(recalled, rec) if rec is not None else recalled


_NOT_CONTENT = frozenset("""a an the of in on at to for from and or is are was were be by as it its
not no this that these those with what which who how when where than there their them they we you i our your my
me us do does did has have had say said tell told mention mentioned remind again gave give name what's who's
last time please again again? again. one ones just now get got
de del la el los las lo y en que qué es un una por con para se al su sus mi mis le les du des et est je tu il
der die das den dem und ist ich mit von zu quel quelle quels quelles ce cette ces mon ma mes notre nos votre
ese esa este esta cual cuál welche welcher welches welchem welchen unser unsere unserem mein meine meinem
nuestro nuestra nuestros nuestras vuestro vuestra tu tus
depuis desde seit""".split())


def content_words(text: str) -> set[str]:
    return {stem(w.lower().removesuffix("'s")) for w in re.findall(r"[A-Za-z][\w'-]*", text)} - _NOT_CONTENT


def _fits_kind(entity: list[str], kind: str) -> bool:
    """The entity holds a value of the kind asked: a name, place or sum of the user's (a port is a
    place; for "who", a carrier is a company's name)."""
    table, column = entity[0], entity[1]
    return (subject_of(table, column) == f"{OWN}.{kind}") or (table, column) == (OWN, kind) \
        or (kind == own_values.NAME and (table, column) == ("CARRIERS", "CARRIER_NAME"))


def _kind_score(question: str, q_roles: set[str], q_nouns: set[str], q_words: set[str], rec: Any) -> int:
    """What a memory shares with the question: roles and nouns count twice, content words once, and
    one more for a memory with an earlier value when the question asks the past."""
    meta = rec.metadata or {}
    return 2 * len(q_roles & set(meta.get("roles") or [])) + 2 * len(q_nouns & set(meta.get("nouns") or [])) \
        + len(q_words & content_words(rec.content or "")) + (1 if asks_earlier(question, meta) else 0)


def _best_of_kind(question: str, kind: str, memories: list[Any],
                  q_roles: set[str]) -> tuple[int, Any, tuple[str, str, str]] | None:
    """(score, memory, its first value of the kind) of the memory sharing most with the question, newest on a tie."""
    q_nouns, q_words = set(possessed_nouns(question)), content_words(question)
    best: tuple[int, Any, tuple[str, str, str]] | None = None
    for rec in memories:  # newest first: a tie keeps the newest
        fits = [(str(e[0]), str(e[1]), str(e[2])) for e in (rec.metadata or {}).get("entities", []) if _fits_kind(e, kind)]
        if not fits:
            continue
        score = _kind_score(question, q_roles, q_nouns, q_words, rec)
        if best is None or score > best[0]:
            best = (score, rec, _nearest_asked(rec.content or "", fits, q_words))
    return best


def _nearest_asked(text: str, fits: list[tuple[str, str, str]], q_words: set[str]) -> tuple[str, str, str]:
    """Of a sentence's values of the kind asked, the one said nearest a word of the question ("our DC is out in
    Reno and everything comes in through Long Beach", asked where the DC is: Reno); the first when the
    sentence has no word of the question."""
    said = [m.start() for m in re.finditer(r"[A-Za-z][\w'-]*", text)
            if stem(m.group(0).lower().removesuffix("'s")) in q_words]
    # (a value the question names itself is not what it asks: "who does our Manchester runs?")
    unnamed = [e for e in fits if not content_words(e[2]) <= q_words] or fits
    if len(unnamed) < 2 or not said:
        return unnamed[0]
    return min(unnamed, key=lambda e: min(abs((_position(text, str(e[2])) or 0) - at) for at in said))


def _closer_in_words(question: str, q_roles: set[str], memories: list[Any],
                     best: tuple[int, Any, tuple[str, str, str]] | None) -> Recalled | None:
    """A memory that shares clearly more with the question than the best one holding a value of the
    kind asked ("who is our broker in X?": the sentence about the broker, not a name said about X)."""
    q_nouns, q_words = set(possessed_nouns(question)), content_words(question)
    scored = [(_kind_score(question, q_roles, q_nouns, q_words, r), i, r) for i, r in enumerate(memories)
              if (r.metadata or {}).get("entities")]
    if not scored:
        return None
    score, _, rec = max(scored, key=lambda t: (t[0], -t[1]))  # newest first: a tie keeps the newest
    if score < (best[0] if best else 0) + 2 or (best is not None and rec is best[1]):
        return None
    meta = rec.metadata or {}
    table, column, value = meta["entities"][0]
    # what the user called it ("your office"), or the role it plays; the kind asked only when neither is known
    kind = column.lower() if table == OWN else TABLE_NOUNS_BY_TABLE.get(table, "value")
    called = [*(meta.get("nouns") or []), *(meta.get("roles") or []), kind]
    return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value,
                    called[0], direct=True, quote=not meta.get("change"))


def _the_one_sum(kind: str, memories: list[Any]) -> bool:
    """Nothing in common with the question: only a sum, the one sum said, is taken (a name could be anyone's)."""
    holding = [r for r in memories if any(subject_of(e[0], e[1]) == f"{OWN}.{kind}" for e in
                                           (r.metadata or {}).get("entities", []))]
    return kind == own_values.MONEY and len(holding) == 1


def _resolve_kind(question: str, kind: str, memories: list[Any]) -> Recalled | None:
    """The remembered name, place or sum a question asks for: among the memories holding a value of
    that kind, the one that shares most with the question (roles, nouns, words), newest on a tie."""
    q_roles = own_values.roles_of(question)
    best = _best_of_kind(question, kind, memories, q_roles)
    closer = _closer_in_words(question, q_roles, memories, best)
    if closer is not None:  # what they said about it holds no value of the kind: its words may
        return closer
    if best is None or (not best[0] and not _the_one_sum(kind, memories)) or \
            described_otherwise(question, _told_of(best[1])) or _of_another_role(question, best[1]):
        return None
    _, rec, (table, column, value) = best
    meta = rec.metadata or {}
    noun = next(iter(sorted(q_roles & set(meta.get("roles") or []))), "") or kind.lower()
    if asks_earlier(question, meta):
        first = meta["earlier"][0]
        return Recalled(rec.id, first["text"], first["said_at"], table, column, first["value"], noun, True,
                        direct=True, quote=False)
    return _value_of(rec, table, column, value, noun)


def _of_another_role(question: str, rec: Any) -> bool:
    """"Which trucking company did I say I use?" of a sentence that names only their client: the role the
    question asks for (its words right after "which", "what" or "who") is none of the roles the memory was
    told with."""
    m = re.search(r"\b(?:which|what|who(?:'s|\s+is|\s+was)?)\s+((?:[\w-]+\s+){0,2}[\w-]+)", question, re.I)
    asked = own_values.roles_of(m.group(1)) if m else set()
    told = set((rec.metadata or {}).get("roles") or [])
    return bool(asked and told and not asked & told)


# "what vessel is that box on?": a thing pointed at by its noun, no "my" or "our"
# ("that wine box": a word of what is in it may come before the noun)
THAT_THING = re.compile(r"\b(?:that|this|the same)\s+(?:[a-z]+\s+(?=(?:box|container|reefer|voyage|sailing|ship|vessel)\b))?"
                        r"([a-z]+)\b", re.I)


def pointed_at(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Recalled | None:
    """"What vessel is that box on?" after "our pharma box MSKU9773732 had its PTI on 27 May": the one thing
    of that kind the user told; None when the noun names no table of the data, or they told none or
    several (which one "that" means would be a guess)."""
    m = THAT_THING.search(question)
    table = table_of_word(m.group(1)) if m else None
    if m is None or table is None or table == "PORTS":
        return None
    memories = [r for r in _valid(eng, user_id, agent_id) if any(e[0] == table for e in _remembered_entities(r))]
    if len({e[2] for r in memories for e in _remembered_entities(r) if e[0] == table}) != 1:
        return None
    rec = memories[-1]
    _, column, value = next(e for e in _remembered_entities(rec) if e[0] == table)
    return with_memory_words(dataclasses.replace(_value_of(rec, table, column, value, m.group(1).lower()), direct=False,
                                                 quote=False), rec)


def _value_of(rec: Any, table: str, column: str, value: str, noun: str) -> Recalled:
    """A remembered value asked for itself (its words quoted when it was no change)."""
    meta = rec.metadata or {}
    return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value, noun,
                    direct=True, quote=not meta.get("change"))


# Words of a question about the user's things that say nothing of which one is meant.
_ASKING = frozenset(stem(w) for w in """ever already mention mentioned told tell remember recall know knew
about anything something someone anyone thing stuff kind sort again still currently now usual usually
main current new old address name number contact details exact full""".split())


def _corrected_words(meta: dict[str, Any]) -> str:
    """The words of the memories a memory superseded (kept in its `earlier` values)."""
    return " ".join(str(e.get("text", "")) for e in meta.get("earlier") or ())


def _told_of(rec: Any) -> str:
    """A memory's words and those of the memories it corrected."""
    return f"{rec.content or ''} {_corrected_words(rec.metadata or {})}"


def described_otherwise(question: str, told: str) -> bool:
    """"Have I told you about a coffee roaster customer?": the question describes which one of a role
    it means by a word before the role's noun that what the user told (`told`) never uses: another one."""
    def bare(words: set[str]) -> set[str]:  # "pad" and "pads" (the stemmer keeps short words whole)
        return {w.removesuffix("s") for w in words}
    described = bare(_qualifiers(question) - _ASKING)
    return bool(described) and not described & bare(content_words(told))


def _qualifiers(text: str) -> set[str]:
    """The words right before a role's noun ("coffee" in "our coffee customer", "Hamburg" in "the
    Hamburg office"): which one of that role is meant."""
    role_words = {stem(w) for names in own_values.ROLES.values() for w in names}
    # (a role's word written with a capital is part of a name: "Coastal Empire Trucking")
    return {stem(a.lower()) for a, b in re.findall(r"\b([A-Za-z][\w-]+)\s+(?=([A-Za-z]+)\b)", text)
            if not b[0].isupper() and stem(b.lower()) in role_words and stem(a.lower()) not in role_words
            and a.lower() not in _NOT_CONTENT}


def _linked_words(eng: Engine, text: str) -> set[str]:
    """The words of a text the data's values name (a commodity, a port, a carrier)."""
    _, values = assistant.knowledge(eng)
    return {stem(w) for lk in values.links(text) for w in re.findall(r"[a-z][\w-]*", lk.text.lower())}


def _described(eng: Engine, text: str) -> dict[tuple[str, str], set[str]]:
    """The values a text names by an ordinary word of a column ("the T-shirts", "their apples"), per column."""
    _, values = assistant.knowledge(eng)
    out: dict[tuple[str, str], set[str]] = {}
    for lk in values.links(text):
        if lk.how == "word":
            out.setdefault((lk.table, lk.column), set()).add(str(lk.value).lower())
    return out


def _describes_another(eng: Engine, described: dict[tuple[str, str], set[str]], rec: Any) -> bool:
    """The question describes its thing by a value of a column ("the T-shirts") and the memory describes
    its own by another value of that column ("their apples") and not this one: another thing."""
    if not described:
        return False
    # (what they said in French, Spanish or German is read in English: "huile d'olive" is olive oil)
    mine = _described(eng, other_languages.in_english(rec.content or "") or rec.content or "")
    # ("oil" of their "olive oil" is that one: a value whose words the other's hold)
    return any(column in mine and not any(set(a.split()) <= set(b.split()) or set(b.split()) <= set(a.split())
                                          for a in values for b in mine[column])
               for column, values in described.items())


def _qualified_otherwise(asked: set[str], rec: Any) -> bool:
    """The question says which one of a role it means by a word of the data ("our coffee customer"),
    and the memory names another one of that role ("my cocoa buyer"): it is about another one."""
    said = content_words(rec.content or "") | {stem(n) for n in (rec.metadata or {}).get("nouns") or []}
    return bool(asked and _qualifiers(rec.content or "") and not asked & said)


def kind_of_named(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Recalled | None:
    """"What was the PO number for Kessel?": the reference that the newest memory naming one of their
    names holds beside it; None when none does."""
    kind = own_values.asked_kind(question)
    if kind not in (own_values.CODE, own_values.PLACE):  # a name beside another name may be another party's
        return None
    for rec in reversed(_valid(eng, user_id, agent_id)):
        if (held := _held_beside_the_name(question, kind, rec) or _code_of_the_thing_named(question, kind, rec)) is not None:
            table, column, value = held
            meta = rec.metadata or {}
            return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value,
                            kind.lower(), direct=True, quote=not meta.get("change"))
    return None


def _code_of_the_thing_named(question: str, kind: str, rec: Any) -> tuple[str, str, str] | None:
    """"And the PO number on the tyre order?" of "... the tyre order is PO-55812": the one reference of a memory
    whose own nouns for its thing ("tyre", "order") the question says, every one of them."""
    nouns = [n for n in (rec.metadata or {}).get("nouns") or [] if len(n) >= 3 and table_of_word(n) is None
             and n not in _NO_NOUN_AFTER]
    codes = [tuple(e) for e in _remembered_entities(rec) if tuple(e[:2]) == (OWN, own_values.CODE)]
    asked = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", question)}
    if kind != own_values.CODE or len(codes) != 1 or len(nouns) < 2 or not set(nouns) <= asked:
        return None
    return codes[0][0], codes[0][1], codes[0][2]


def _held_beside_the_name(question: str, kind: str, rec: Any) -> tuple[str, str, str] | None:
    """The memory's first value of the kind beside a name of theirs the question says; a place only from
    a memory of that one name (a place beside two names may be the other party's, measured)."""
    entities = [tuple(e) for e in _remembered_entities(rec)]
    own_names = [e for e in entities if e[:2] == (OWN, own_values.NAME)]
    names = [e for e in own_names if name_in(question, e[2]) is not None]
    fits = _of_the_table_named_first(question, kind, entities) or \
        [e for e in entities if e not in names and _fits_kind(list(e), kind)]
    if not names or not fits or (kind == own_values.PLACE and len(set(own_names)) != 1):
        return None
    return fits[0][0], fits[0][1], fits[0][2]


def _of_the_table_named_first(question: str, kind: str, entities: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """"The container number for Vasseur": for a reference asked, the records of the table the question names."""
    tables = {table_of_word(w) for w in re.findall(r"[A-Za-z]+", question)} - {None}
    return [e for e in entities if e[0] in tables] if kind == own_values.CODE else []


def by_their_name(eng: Engine, question: str, *, user_id: str, agent_id: str) -> tuple[Recalled, str] | None:
    """"The Dalby box", "Hollis & Grange's container": a thing of the user's named by a name of theirs
    (a customer, a haulier) that one of their memories ties to a record of the data. The record the
    question's noun names (else the memory's first), and the question without the name; None when no
    name of theirs is in the question or the memory ties it to nothing of the data."""
    words = question_nouns(question)
    for rec in reversed(_valid(eng, user_id, agent_id)):  # newest first
        named = _named_thing(question, rec, words)
        if named is None:
            continue
        said, (t, c, v) = named
        noun = next((w for w, tt in words if tt == t), TABLE_NOUNS_BY_TABLE.get(t, t.lower()))
        found = Recalled(rec.id, rec.content or "", str((rec.metadata or {}).get("said_at", "")), t, c, v, noun)
        rest = re.sub(rf"\b{re.escape(said)}(?:['’]s)?\s*", "", question, count=1, flags=re.I)
        # "what ship did I say Alpine Fresh's apples are on?": the name says which of their things; the data is
        # asked what it holds about that thing
        return with_memory_words(found, rec), _DID_I_SAY.sub("", rest)
    return None


def _named_thing(question: str, rec: Any, words: list[tuple[str, str | None]]) -> tuple[str, tuple[str, str, str]] | None:
    """(the name as written, the record of the data the memory ties it to), or None."""
    entities = [(str(e[0]), str(e[1]), str(e[2])) for e in (rec.metadata or {}).get("entities", [])]
    things = [e for e in entities if e[0] in _OWN_THINGS[:4]]
    said = next(iter(n for v in own_names_of(entities) if (n := name_in(question, v)) is not None), None)
    if said is None or not things or _counts_untold(question, said, things):
        return None
    asked = [e for e in things if any(tt == e[0] for _, tt in words)] or things
    return said, _nearest(rec.content or "", said, asked)


def _counts_untold(question: str, said: str, things: list[tuple[str, str, str]]) -> bool:
    """"How many Gulf Petrochem boxes ...?" of a memory that ties the name to a voyage: boxes it never told are
    counted ("which sailing is Vela's cargo on?" asks the voyage told)."""
    noun = noun_after_name(question, said, counted=True)
    table = table_of_word(noun) if noun else None
    return table is not None and table not in {e[0] for e in things}


def noun_after_name(question: str, said: str, *, counted: bool = False) -> str | None:
    """The noun a name of theirs qualifies, as the question writes the name ("Gulf Petrochem boxes", "Vela's
    cargo"), the rest of a longer name between; with `counted`, only right after "how many"."""
    before = r"\bhow many\s+" if counted else r"(?<![\w-])"
    after = re.search(rf"{before}{re.escape(said)}(?:\s+(?-i:[A-Z])[\w&-]*)*(?:['’]s?)?\s+([a-z]+)\b", question,
                      re.I if counted else 0)
    return after.group(1) if after else None


def _nearest(text: str, name: str, things: list[tuple[str, str, str]]) -> tuple[str, str, str]:
    """Of the records one statement ties to names ("A is Altamira's, and B belongs to Bright Tools"), the
    one said nearest the name."""
    at = _position(text, name) or 0
    return min(things, key=lambda e: abs((_position(text, e[2]) or 0) - at))


def name_in(question: str, name: str) -> str | None:
    """The name as the question writes it: whole, or its first word when that is long enough to be its
    own ("Dalby" of Dalby Fresh Produce), or another word of it written with its capital ("Vasseur" of
    Fromagerie Vasseur); None when it is not there."""
    for probe in (name, name.split()[0] if len(name.split()[0]) >= 4 else ""):
        if probe and (m := re.search(rf"(?<![\w-]){re.escape(probe)}(?![\w-])", question, re.I)):
            return m.group(0)
    for word in name.split()[1:]:
        if len(word) >= 4 and word[0].isupper() and \
                (m := re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", question)) and m.start() > 0:
            return m.group(0)
    return None


def _nouns_of(table: str) -> str:
    """The nouns that name a table's rows, singular or plural, as alternatives of a pattern."""
    nouns = sorted({w for w, mapped in SYNONYMS.items() if TABLE_NOUNS.get(mapped) == table} |
                   {w for w, t in TABLE_NOUNS.items() if t == table}, key=len, reverse=True)
    return "|".join(rf"{re.escape(w)}(?:e?s)?" for w in nouns) or "(?!)"


_DID_I_SAY = re.compile(r"\s+(?:did|do)\s+(?:i|we)\s+(?:say|tell\s+you|mention|give\s+you)(?:\s+(?:that|was|were))?(?=\s)",
                        re.I)


def substitute(question: str, recalled: Recalled, *, with_vessel: bool = False) -> str:
    """The question with its reference to the user's thing replaced by the entity ("when does the
    voyage I told you about arrive" -> "when does voyage 939E arrive")."""
    noun_table = TABLE_NOUNS_BY_TABLE.get(recalled.table, recalled.table.lower())
    thing = _the_thing_told(recalled, noun_table) if with_vessel else f"{noun_table} {recalled.value}"
    q = re.sub(r"^[^:?]{0,60}:\s*", "", question.strip())  # "back to my thing: ..." -> what it asks
    q = re.sub(r"^(?:[a-z ,']*\.\s+)", "", q, flags=re.I) if "." in q[:-1] else q   # a sentence before the question
    if recalled.ordinal:  # "that second box", "the box I told you about first": the order is used up
        q = _ORDER_TOLD.sub(lambda m: m.group(0).replace(m.group(1) or m.group(2), "").replace("  ", " "), q, count=1)
    if (placed := _their_place_named(q, recalled)) is not None:
        return placed  # "available at our home depot": the place, where the question says it
    noun = re.escape(recalled.noun)
    # "the port where my office is", "the city our warehouse is in": a place said by the thing in it
    # ("the city where Ji-woo sits": a person of theirs, by name)
    q = re.sub(r"\b(?:the\s+)?(?:port|city|town|place)\s+(?:where\s+|that\s+|which\s+)?"
               r"(?:(?:my|our)\s+[a-z]+|(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)?)\s+"
               r"(?:is|are|sits?|works?)(?:\s+(?:now|located|based))?(?:\s+(?:in|at|from))?\b",
               lambda _: thing, q, count=1, flags=re.I) if recalled.table == "PORTS" else q
    # a name said for the thing may be followed by the thing's own noun ("Alvarez Foods' box")
    # ("our Rotterdam consignee's box": a word before whose it is, too)
    # ("my two customers' boxes": a plural's possessive too)
    pattern = (rf"(?:\b(?:the|that|this)\s+)?(?:\b(?:my|our)\s+(?:[\w-]+\s+(?=[\w-]+(?:'s|s'|\u2019s|s\u2019)\s))?"
               rf"(?:[\w-]+(?:'s|s'|\u2019s|s\u2019)\s+)?"
               rf"(?:[\w-]+\s+)?)?\b{noun}"
               rf"(?:(?:'s|'|\u2019s?)(?:\s+(?:{_nouns_of(recalled.table)})\b)?)?"
               rf"(?:\s+(?:that\s+)?(?:i|we)\s+(?:told|gave|mentioned|said|asked)(?:\s+you)?(?:\s+about)?)?"
               # ("the voyage my Qingdao supplier booked": who chose it says which one)
               rf"(?:\s+(?:that\s+)?(?:my|our)\s+(?:[\w-]+\s+){{0,2}}?[a-z]+ed\b)?")
    new, count = re.subn(pattern, thing, q, count=1, flags=re.I) if thing not in q else (q, 1)
    if not count:
        # ("which ship carries Voltra's batteries, and where are they stowed?": the thing is of the first part)
        cut = re.search(r",\s+and\s+|\?\s+(?=\S)", q)
        return f"{q[:cut.start()]} ({thing}){q[cut.start():]}" if cut else f"{q} ({thing})"
    # "the container of my customer": whose it is says which one, and the data knows no customer
    new = re.sub(rf"(?<={re.escape(str(recalled.value))})\s+(?:of|for)\s+(?:my|our)\s+([a-z]+)\b",
                 lambda m: "" if table_of_word(m.group(1)) is None else m.group(0), new, count=1, flags=re.I)
    return _without_own_names(re.sub(r"\b(?:my|our)\s+", "", new, flags=re.I), recalled)


def _the_thing_told(recalled: Recalled, noun_table: str) -> str:
    """How the question names the thing remembered, with the ship told in the same memory ("the CMA CGM
    Callisto voyage 534E": for a voyage number another ship's voyage has too)."""
    vessel = next((e[2] for e in recalled.entities if e[0] == "VESSELS"), None) if recalled.table == "VOYAGES" else None
    return f"the {vessel} {noun_table} {recalled.value}" if vessel else f"{noun_table} {recalled.value}"


def _their_place_named(question: str, recalled: Recalled) -> str | None:
    """"How many reefers are available at our home depot?" of "Rotterdam, that's our home depot": the question
    with "our home depot" (after a word of place, ending in a noun they called it) replaced by the place;
    None when the remembered value is no place or the question says no such phrase."""
    if not (recalled.table == "PORTS" or (recalled.table, recalled.column) == (OWN, PLACE)):
        return None
    nouns = "|".join(re.escape(n) for n in dict.fromkeys((recalled.noun, *recalled.nouns)) if n and len(n) > 2)
    if not nouns:
        return None
    new, count = re.subn(rf"\b(at|in|from|to|near|into|via|out of)\s+(?:our|my)\s+(?:[\w-]+\s+){{0,2}}?(?:{nouns})\w*\b",
                         lambda m: f"{m.group(1)} {recalled.value}", question, count=1, flags=re.I)
    return new if count else None


def _without_own_names(text: str, recalled: Recalled) -> str:
    """The data question without the names of the user's own world that the remembered words gave
    ("the voyage for Kwabena": the customer says which voyage, the data knows no Kwabena)."""
    value_words = set(re.findall(r"[\w'-]+", str(recalled.value)))
    # capitalised words of the remembered sentence (a sentence's first word too: "Kwabena's machines ..."), only
    # ever removed where they follow for/of/at/from/with or are possessive, which ordinary words are not
    # (and the names of theirs the memory holds: "Their shipment went into box X" said of Lumen Apparel)
    said = " ".join([recalled.text, *own_names_of(recalled.entities)])
    names = sorted({w for w in re.findall(r"\b[A-Z][a-z][\w-]+?(?='s\b|\b)", said) if w not in value_words})
    # ("of Lumina Mobile's box": "Lumina" goes once "Mobile's" has gone, whichever is read first)
    before = None
    while before != text:
        before = text
        for name in names:
            text = re.sub(rf"\s*\b(?:for|of|at|from|with)\s+(?:the\s+)?{re.escape(name)}(?:'s)?\b(?!\s+[A-Z])", "", text)
            text = re.sub(rf"\b{re.escape(name)}'s(?:\s+|(?=[,;?]))", "", text)
    return text


def _column_of_turn(schema: Any, words: list[str], recalled: Recalled, any_table: bool) -> Any | None:
    """The column the turn's words name best (not a key, not the remembered one), or None."""
    # any_table: a column of a table joined to it ("the temperature of my customer's box", "the vessel of my box")
    tables = [recalled.table] + ([t for t in schema.columns if t != recalled.table] if any_table else [])
    named = [(score, c) for score, c in schema.columns_named(words, tables) if score >= 1.5 and not c.is_key
             and c.ref != f"{recalled.table}.{recalled.column}"]
    if not named:
        return None
    return max(named, key=lambda sc: sc[0])[1]


def context_question(eng: Engine, text: str, recalled: Recalled, *, any_table: bool = False) -> str | None:
    """A question about the remembered entity from the words of the whole turn that name a column of
    its table ("the client is nervous about temperature. what's my box set to?" -> "what is the
    temperature of container X"), or None when no word names one."""

    schema, _ = assistant.knowledge(eng)
    if recalled.table not in schema.columns:
        return None
    words = [w for w in words_of(text) if w != "-" and table_of_word(w) is None]
    column = _column_of_turn(schema, words, recalled, any_table)
    if column is None:
        return None
    said = [w for w in words if w in schema.name_words(column) | column.comment_words][:3]
    noun = TABLE_NOUNS_BY_TABLE.get(recalled.table, recalled.table.lower())
    return f"what is the {' '.join(said)} of {noun} {recalled.value}?" if said else None


TABLE_NOUNS_BY_TABLE = {table: noun for noun, table in TABLE_NOUNS.items()}

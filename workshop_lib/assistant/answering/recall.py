"""A question about the user's own things, answered from their memory and the data together.

"When does the voyage I told you about arrive?": the remembered voyage (personal.resolve, the
user's own valid memories only) is put in the question's place and the data question is planned
with it (assistant.answer_data). "Which voyage am I on?": the remembered value itself. Either is
grounded (rag) with the memory as a source (its id and when it was said). A question about a
thing of theirs never told gets an honest fallback; any other question goes to the router.
"""
from __future__ import annotations

import dataclasses
import datetime
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from workshop_lib import assistant
from workshop_lib.assistant import document_reader, glossary, other_languages, planner, sentences
from workshop_lib.assistant.answering import deadline, router
from workshop_lib.assistant.answering.answer import ChatAnswer, answer_question, schema_words
from workshop_lib.assistant.schema_links import STOP_WORDS, words_of
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.agent.sqlplan import tables_read
from workshop_lib.parts.memory import own_values, personal, said, timeline

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

HANDLER = "personal memory"
OTHERS = "a question about another user's memory"
# "I told you", "did I say": the question asks about what the user said before.
_TOLD = re.compile(r"\b(?:i|we)\s+(?:told|gave|mentioned|said|asked|say|tell|give|mention)\b", re.I)


def _memory_of(explain: dict[str, Any]) -> dict[str, Any]:
    """The memory an answer used, from its explanation: the last one when each part used its own."""
    memory = explain.get("memory")
    if isinstance(memory, list):
        memory = next((m for m in reversed(memory) if isinstance(m, dict)), None)
    return memory if isinstance(memory, dict) else {}


def _explain(handler_reason: str, mode: str, **extra: Any) -> dict[str, Any]:
    return {"intent": "PERSONAL_MEMORY", "handler": HANDLER, "mode": mode, "reason": handler_reason,
            "used_llm": "none", "short_query_active": False, **extra}


def _memory_source(rec: personal.Recalled) -> dict[str, Any]:
    # record_id and subject: the thread's `sources` list it as a memory, named by what and when it was said
    return {"record_id": rec.memory_id, "subject": f"your {_called(rec)}, said {rec.said_at[:16]}",
            "memory_id": rec.memory_id, "said_at": rec.said_at, "said": rec.text[:300],
            "value": rec.value, "column": f"{rec.table}.{rec.column}", "earlier_value": rec.earlier}


def _answer(text: str, mode: str, explain: dict[str, Any], used: list[dict[str, Any]]) -> ChatAnswer:
    route = {"intent": "PERSONAL_MEMORY", "method": "memory", "label": "PERSONAL_MEMORY", "unsure": False}
    return ChatAnswer(text, mode, explain, used, used if mode == "rag" else [], "all" if mode == "rag" else "none",
                      None, False, "none", False, route)


# Words after the reference that ask for nothing more ("what's my voyage again?", "which city is our office in?").
_NOTHING_MORE = re.compile(r"^(?:\s*\b(?:again|now|number|name|code|id|in|on|then|please|is|was)\b)*\W*$", re.I)


_PRONOUN = re.compile(r"^(?:it|that|this|one|that one|this one|the one\b.*)$", re.I)


def _called(rec: personal.Recalled) -> str:
    """What the answer calls the remembered thing: the question's word for it, or, for "it" or "that
    one", the noun of the thing's table, else what the user called it when they said it."""
    if not _PRONOUN.match(rec.noun.strip()):
        noun = re.sub(r"['’]s$", "", rec.noun)  # ("my box's tare weight": the box)
    else:
        noun = personal.TABLE_NOUNS_BY_TABLE.get(rec.table) or (rec.nouns[0] if rec.nouns else "thing")
    several = _several(rec) and not noun.endswith("s")
    return noun + ("es" if noun.endswith("x") else "s") if several else noun  # ("your containers are A and B")


def _several(rec: personal.Recalled) -> bool:
    """Several things of the data recalled at once ("A and B", _all_of_that_kind)."""
    return rec.table != personal.OWN and " and " in rec.value


def _is(rec: personal.Recalled) -> str:
    """The verb for what was recalled: several things are plural."""
    return "are" if _several(rec) else "is"


def _follow_noun(question: str) -> str:
    m = re.search(r"\b(?:that one|this one|the one(?:\s+(?:we|i)(?:'re|'m|\s+are|\s+am)\s+on(?:\s+now)?)?|it)\b",
                  question, re.I)
    return m.group(0) if m else ""


_OWED = re.compile(r"\b(?:owe|owes|owed|pay|pays|paid|cost|costs|charge|charged|bill|billed)\b", re.I)


def _said_plainly(question: str, rec: personal.Recalled) -> bool | None:
    """Whether the question asks for the value itself, when its words alone say so; None when they do not."""
    if _EXISTENCE.match(question):
        return False  # "is there any problem with the day we deliver to the terminal?": not which terminal
    if _another_identifier(question, rec):
        return False  # "the entry number I gave you for them": not the number of their box
    if _its_identifier_asked(other_languages.in_english(question) or question, rec):
        return True  # "the box number of our tiles", "le numéro du conteneur": the identifier of the thing is its value
    return _reference_alone(question, rec)


def _asks_only_value(eng: Engine, question: str, rec: personal.Recalled, *, follow_up: bool = False) -> bool:
    """The question asks for the remembered value itself: nothing follows its reference to the
    thing, or it asks what the user said and names no other column of the data."""

    plainly = _said_plainly(question, rec)
    if plainly is not None:
        return plainly
    # "which carrier do we use now?": which one of its table it is, with no other column asked
    if not _TOLD.search(question) and not follow_up and _wh_table(question) != rec.table:
        return False
    if follow_up and re.match(r"^\W*(?:and\s+|so\s+)?(?:when|where|how)\b", question, re.I):
        return False  # it asks a date, a place or an amount of the thing, not which one it is
    schema, _ = assistant.knowledge(eng)
    words = [w for w in words_of(question) if w != "-" and personal.table_of_word(w) is None]
    own = f"{rec.table}.{rec.column}"
    return not [c for _, c in schema.columns_named(words, [rec.table]) if c.ref != own]


_IDENTIFIER = re.compile(r"\b([a-z][\w-]+)\s+(?:number|no\.?|code|ref|reference|id)\b", re.I)


def _its_identifier_asked(question: str, rec: personal.Recalled) -> bool:
    """"The box number", "the container numbers", "the number of the container": the identifier of the thing
    recalled, which is its value."""
    noun = re.escape(personal.stem(rec.noun.lower()))
    return re.search(rf"\b{noun}(?:e?s)?\s+(?:(?:number|no|code|name|id)s?\b\.?|#)|\b(?:number|code|name|id)s?\s+of\s+"
                     rf"(?:the\s+|my\s+|our\s+)?{noun}(?:e?s)?\b", question, re.I) is not None


def _another_identifier(question: str, rec: personal.Recalled) -> bool:
    """The question asks an identifier of something other than the thing remembered ("the customs entry
    number", "the seal number" of a memory of a box): a word before "number" that names no table, or
    another table than the memory's."""
    for m in _IDENTIFIER.finditer(question):
        word = m.group(1).lower()
        if word not in STOP_WORDS and word != rec.noun.lower() and personal.table_of_word(word) != rec.table:
            return True
    return False


# a question whether something exists about the thing asks about that something, not the thing
_EXISTENCE = re.compile(r"^\W*(?:(?:and|so|ok|okay|but|also)\W+)*(?:is|are|was|were|will) there\b|^\W*any\b", re.I)


# what stands before the thing's noun in a reference to it: "my beef box", "the box", "those boxes"
_ITS_REFERENCE = r"(?:(?:my|our|the|that|this)\s+)?(?:[a-z][\w-]*\s+)?"
_THEIR_REFERENCE = r"(?:(?:my|our|the|those|these)\s+)?(?:[a-z][\w-]*\s+)?"


def _reference_alone(question: str, rec: personal.Recalled) -> bool | None:
    """True when nothing follows the question's reference to the thing ("what was it again?"), False
    when the reference follows a preposition ("what's in it?": what is related to the thing, not which
    one it is), None when the words around it do not say."""
    around = re.split(rf"\b{re.escape(rec.noun)}(?:'s)?\b", question, maxsplit=1, flags=re.I)
    if len(around) != 2:
        return None
    before = around[0]
    if re.search(rf"\b(?:number|name|code|id|ref|reference)\s+of\s+{_ITS_REFERENCE}$", before, re.I):
        return True  # "the number of my beef box": its identifier is its value
    if re.search(rf"\b(?:which|what|one|each|any|none|some|all|both|either|neither)\s+of\s+{_THEIR_REFERENCE}$", before, re.I):
        return None  # "which of my boxes ...": which one of them, asked of the things themselves
    # ("what the cold store needs for my beef box": a word of theirs may come between)
    if re.search(rf"\b(?:in|inside|on|aboard|from|to|with|about|for|at|of)\s+{_ITS_REFERENCE}$", before, re.I):
        return False
    return True if _NOTHING_MORE.match(around[1]) else None


# What a question asks beyond which thing it is: a time, a count, an amount, a movement of the thing.
_ASKS_TIME = re.compile(r"\b(?:when|since|how long|how many days|what date|which date|what day|until)\b", re.I)
_ASKS_COUNT = re.compile(rf"\b(?:how many|how much|(?:the|total)\s+{planner.NUMBER_OF_ROWS}|count)\b", re.I)  # not "box number of"
# ("the port where my office is": a "where" after a noun says which port; it asks no place)
_ASKS_PLACE = re.compile(r"(?<!port )(?<!city )(?<!place )(?<!town )\bwhere\b|\b(?:which|what)\s+(?:\w+\s+)?(?:port|city|country|place)\b", re.I)
# verbs of a voyage: they ask where or when the thing goes, not which one it is (a small domain
# vocabulary, like the schema's synonyms)
_MOVES = re.compile(r"\b(?:leav\w*|left|depart\w*|sail\w*|arriv\w*|reach\w*|going|goes|go|head(?:ed|ing)?|bound|"
                    r"due|carr(?:y|ies|ying|ied)|land\w*|dock\w*|get(?:s)? (?:there|in))\b", re.I)
# words that are not a column asked for: what the user calls their thing, and the words of reference
_REFERENCE_WORDS = frozenset("""told tell gave give mention mentioned said say remind again number name code
id exactly just please current main usual own new old one ones""".split())


_WH = re.compile(r"^(?:(?:and|so|ok|okay|but|just|quick one)\W+)*(?:what|what's|which|who|who's|where|when|how|is|are|"
                 r"does|do|did|can|could|give|tell|remind)\b", re.I)


def _wh_table(question: str) -> str | None:
    """The table the question's wh-word asks for ("which port ...", "what ship ..."), or None."""
    m = re.search(r"\b(?:which|what)\s+((?:[\w'-]+\s+){0,1}[\w'-]+)", question, re.I)
    if not m:
        return None
    return next((t for w in m.group(1).split() if (t := personal.table_of_word(w))), None)


def _is_place(rec: personal.Recalled) -> bool:
    """The remembered value is where something is: a place of the user's or a port."""
    return rec.table == personal.OWN and rec.column == own_values.PLACE or rec.table == "PORTS"


# a clause ends at its punctuation: "I'm writing the report. When does it leave?" is two clauses
_CLAUSE_END = re.compile(r"(?<=[.!?;])\s+|\s+[-–—]\s+")  # a sentence, or a clause set off by a dash


def _asked_part(question: str) -> str:
    """The question's own sentences: a statement before it ("I'm writing the report.") asks nothing."""
    asked = [c for c in _CLAUSE_END.split(question) if c.strip().endswith("?") or _WH.match(c.strip())]
    return " ".join(asked) or question


def _asks_not_which(question: str, rec: personal.Recalled, place: bool) -> str | None:
    """A time, a count or an amount, a place, a movement: what the question asks that is not which
    thing it is, or None."""
    if _ASKS_TIME.search(question):
        return "a time"
    # "how much" of a remembered sum asks the sum itself; "how many" of a figure of theirs ("7 free days") the figure
    if _ASKS_COUNT.search(question) and not (rec.column == own_values.MONEY and re.search(r"\bhow much\b", question, re.I)) \
            and not ((rec.table, rec.column) == (personal.OWN, own_values.FIGURE) and not _a_share_of_a_price(question, rec)):
        return "a count or an amount"
    if _ASKS_PLACE.search(question) and not place:
        return "a place"
    if _MOVES.search(question) and _wh_table(question) != rec.table:  # "which port do we sail from?" asks the port
        return "where or when it goes"
    return _asks_another_thing(question, rec)


# what a wh-word asks for ("what seal number", "who's the consignee"); the generic heads a value answers
_WH_NOUN = re.compile(r"^(?:\W*(?:and|so|ok|okay|but)\W+)*(?:what|which)\s+(?:(?:kind|sort|type) of\s+)?([a-z]+)(?:\s+([a-z]+))?", re.I)
_WHO = re.compile(r"^(?:\W*(?:and|so|ok|okay|but)\W+)*(?:who|who's|whom|whose)\b", re.I)
_ANY_VALUE = {"is", "are", "was", "were", "s", "do", "does", "did", "one", "number", "name", "value", "code", "id",
              "reference", "my", "our", "the", "your", "of", "again", "it", "that", "this"}


def _asks_another_thing(question: str, rec: personal.Recalled) -> str | None:
    """"Who's the consignee on my box?" or "what seal number did I give for the box?": a person, or a
    thing of another noun than the remembered one, which the remembered box number is not."""
    if rec.table not in ("CONTAINERS", "VOYAGES", "VESSELS"):
        return None  # a name, a place, a sum or a line of theirs: asked by its own kind of word ("which city", "who")
    if _WHO.match(question):
        return "who it is"
    m = _WH_NOUN.match(question)
    if m is None or m.group(1).lower() in _ANY_VALUE:
        return None
    heads = {personal.stem(w.lower()) for w in m.groups() if w}
    mine = {personal.stem(rec.noun.lower()) if rec.noun else "",
            personal.stem(personal.TABLE_NOUNS_BY_TABLE.get(rec.table, "")), *(personal.stem(w) for w in words_of(rec.noun or ""))}
    return None if heads & mine or personal.table_of_word(m.group(1)) == rec.table else f"the {' '.join(w for w in m.groups() if w)}"


def _refers_to_it(low: str, rec: personal.Recalled, possessed: set[str], role_words: set[str]) -> bool:
    """The word is how the user refers to their thing (its noun, a role, a word of reference), not a column asked."""
    st = personal.stem(low)
    return st in possessed or st == personal.stem(rec.noun.lower()) or low in _REFERENCE_WORDS or low in role_words


_A_PARTY = frozenset({"company", "companies", "firm", "firms", "outfit", "business"})


def _other_table_word(question: str, rec: personal.Recalled, place: bool) -> tuple[str | None, list[str]]:
    """The first word naming a table other than the remembered thing's ("the vessel" of a box), or
    None; with the words kept to look for a column in."""
    role_words = {w for names in own_values.ROLES.values() for w in names}
    kept: list[str] = []
    # ("which port did I say the boxes are loading at?" of "their boxes load at Qingdao": the boxes are the ones told)
    told = {personal.stem(w.lower()) for w in re.findall(r"[A-Za-z]+", rec.text)} \
        if _ABOUT_THE_TELLING.search(question) else set()
    for low in _words_not_of_it(question, rec, role_words):
        table = personal.table_of_word(low)
        if low in _A_PARTY and rec.table == personal.OWN and rec.column == own_values.NAME:
            continue  # "the haulier that keeps missing our slots - which company was it?": their name is the company
        if table is not None:
            if table == rec.table or (place and table == "PORTS") or _the_thing_told_of(question, low, table, told):
                continue
            return f"the {low}", kept
        kept.append(low)
    return None, kept


def _the_thing_told_of(question: str, word: str, table: str, told: set[str]) -> bool:
    """A table's word the user's own words say ("the boxes" of "their boxes load at Qingdao"), asked about what
    they told: the thing they told of, not asked for (unless the wh-phrase or its number asks it)."""
    return personal.stem(word) in told and not _its_id_asked(question, word) and table not in _tables_asked(question)


def _tables_asked(question: str) -> set[str]:
    """The tables the wh-phrase asks for ("which ship and voyage did I say ...": vessels and voyages)."""
    m = re.search(r"\b(?:which|what)\s+((?:[\w'-]+\s+){0,3}?)(?:did|do|does|is|are|was|were)\b", question, re.I)
    return {t for w in (m.group(1).split() if m else []) if (t := personal.table_of_word(w))}


def _its_id_asked(question: str, word: str) -> bool:
    """"What was the box number I gave you?": the word's own number is asked, not said of what was told."""
    return re.search(rf"\b{re.escape(word)}\s+(?:numbers?|no\.?|nr|ids?|codes?|refs?)\b", question, re.I) is not None


def _words_not_of_it(question: str, rec: personal.Recalled, role_words: set[str]) -> list[str]:
    """The question's words, lower case, without those that refer to the remembered thing: its nouns and
    the user's own words for it ("placed by" of "the booking was placed by Raul"), a role and the noun after
    a role's word ("the trucking company": that role's company, not a shipping line), and a noun of the
    data used as a verb after its subject ("who did we ship with")."""
    possessed = set(personal.possessed_nouns(question))
    possessed |= {personal.stem(w.lower()) for w in re.findall(r"[A-Za-z][\w'-]*", rec.text)
                  if personal.table_of_word(w) is None}
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", question)]
    verbs = {m.group(1).lower() for m in re.finditer(r"\b(?:i|we|they|you|to)\s+(?:[a-z]+ly\s+)?([a-z]+)", question, re.I)}
    return [w.lower().removesuffix("'s") for i, w in enumerate(words)
            if w.lower() not in verbs and not _refers_to_it(w.lower().removesuffix("'s"), rec, possessed, role_words)
            and not (i and words[i - 1].lower() in role_words)]


def _other_column(eng: Engine, kept: list[str], rec: personal.Recalled, place: bool) -> str | None:
    """A column of the data the kept words name, other than the remembered one (a key or a port's,
    for a place, does not count), or None."""

    schema, _ = assistant.knowledge(eng)
    own = f"{rec.table}.{rec.column}"
    named = [c for score, c in schema.columns_named(words_of(" ".join(kept)), list(schema.columns))
             if score >= 1.5 and not c.is_key and c.ref != own and not (place and c.table == "PORTS")]
    return f"the {named[0].name.lower().replace('_', ' ')}" if named else None


def asks_beyond(eng: Engine, question: str, rec: personal.Recalled) -> str | None:
    """What the question asks beyond the remembered value itself, or None: another table or column
    of the data, a time, a count or an amount, a movement. The value alone never answers it."""
    place = _is_place(rec)
    question = _asked_part(question)
    if _YES_OR_NO.match(question):
        return "a yes or a no"  # "is our warehouse inside the radius?": their name or place alone says neither
    if _OWED.search(question) and rec.table == personal.OWN and rec.column != own_values.MONEY:
        return "a sum owed"  # "what demurrage do we owe?" of "our free time is 8 days": not the days told
    what = _asks_not_which(question, rec, place) or _another_part(question, rec)
    if what is not None:
        return what
    table_word, kept = _other_table_word(question, rec, place)
    if table_word is not None:
        return table_word
    if rec.table != personal.OWN and _its_identifier_asked(question, rec):
        return None  # ("remind me of the container numbers": "numbers" is no other column)
    if router.FOREIGN_RE.search(question):
        # "Auf welchem Schiff ist mein Container?": the words around the thing are read in English, when the
        # glossary reads every one of them ("Wer ist unser Spediteur?": who is our haulier)
        english = other_languages.in_english(question)
        if english is None and _asks_its_kind_in_their_words(question, rec):
            return None  # "¿Cuál es mi referencia de reserva?" of "mi reserva es VLC-3391"
        return "what the question asks in its own language" if english is None or router.FOREIGN_RE.search(english) \
            else asks_beyond(eng, english, rec)
    return _other_column(eng, kept, rec, place)


def _asks_its_kind_in_their_words(question: str, rec: personal.Recalled) -> bool:
    """A question in another language that asks for the kind of value remembered (a reference, a name, a
    place, a sum of theirs), whose words the glossary cannot read are all in what the user said."""
    if rec.table != personal.OWN or own_values.asked_kind(question) != rec.column:
        return False
    unread = [w.lower() for w in re.findall(r"[^\W\d_]{3,}", question) if glossary.key_of(w) not in glossary.WORDS]
    told = rec.text.lower()
    return all(w[:5] in told or own_values.asked_kind(w) == rec.column for w in unread)


# a question answered yes or no ("is our warehouse inside the radius?", "can the sofas make that sailing?");
# ("can you put together ...?" is a request, not a yes or a no)
_YES_OR_NO = re.compile(r"^\W*(?:(?:and|so|ok|okay|but|then)\W+)?(?:can|could|will|would|does|do|did|is|are|was|were|"
                        r"has|have|had|should|shall|may|might|won't|can't|isn't|doesn't)\b(?!\s+you\b)", re.I)
# "anything I should know about the berth?": asks whether there is, too
_ANYTHING = re.compile(r"\W*any(?:thing)?\b", re.I)


def _another_part(question: str, rec: personal.Recalled) -> str | None:
    """"What's the name of their buyer, and how often do I send the updates?": a part of a question in
    parts that shares no word with what the user said, so the remembered value does not answer it."""
    parts = assistant.asked_clauses(question)
    said_words = personal.content_words(rec.text) | {personal.stem(rec.noun or "")}
    rest = [p for p in parts[1:] if (asked := personal.content_words(p)) and not asked & said_words]
    return f"“{rest[0].strip().rstrip('?')}?”" if len(parts) >= 2 and rest else None


# "what did Sam tell you", "did my colleague mention ...": what someone else said to the assistant
_OTHER_TOLD = re.compile(r"\b(?!i\b|we\b|you\b)([a-z][\w'-]*)\s+(?:tell|told|say|said|mention|mentioned|give|gave)"
                         r"\s+(?:to\s+)?you\b", re.I)
# a reference back to what the last answer was about: "and who is it now?", "the one we're on now"
_FOLLOW_UP = re.compile(r"\b(?:it|that one|this one|the one|that|them|they|their|he|she|him|her|his)\b", re.I)
# "And its gross weight?": a question that is only "its" and what it asks points at the last thing recalled
# (in a longer one "its" may be of anything the question says: "when does the ship reach its destination?")
_ITS = re.compile(r"^\W*(?:and\s+)?(?:(?:what(?:'s|\s+is|\s+was)|how\s+(?:much|heavy|old|long|big))\s+)?its\s+[a-z][a-z -]*\??\s*$",
                  re.I)


def _previous_memory(eng: Engine, thread_id: str | None, user_id: str, agent_id: str) -> personal.Recalled | None:
    """The user's current memory on the subject the thread's last answer recalled (a correction since:
    the newer one), or None."""
    if not thread_id:
        return None
    column = _last_recalled_column(eng, thread_id, user_id)
    if not column:
        return None
    table, _, col = column.partition(".")
    return _current_memory_of(eng, user_id, agent_id, table, col)


def _last_recalled_column(eng: Engine, thread_id: str, user_id: str) -> str:
    """The TABLE.COLUMN the thread's last answer (to this user) recalled a memory of, or "". Answers that
    grounded nothing since (a fallback: "that is a question for the documents") set no other subject."""
    messages = eng.store.list_thread_messages(thread_id)
    answers = [m for m in reversed(messages) if m.role == "assistant"][:_LOOKED_BACK]
    for last in answers:
        if last.user_id != user_id:
            return ""
        explain = (last.metadata or {}).get("decision_explain") or {}
        told = explain.get("told")
        told = told if isinstance(told, dict) else {}
        column = str(_memory_of(explain).get("column") or told.get("column") or "")  # (told: a thing just kept)
        if column or explain.get("mode") != "fallback":
            return column
    return ""


_LOOKED_BACK = 3  # answers looked back over, past those that grounded nothing


def _current_memory_of(eng: Engine, user_id: str, agent_id: str, table: str, col: str) -> personal.Recalled | None:
    """The user's newest valid memory with a value for the column, as recalled, or None."""
    for rec in reversed(personal.valid_memories(eng, user_id, agent_id)):
        for t, c, value in (rec.metadata or {}).get("entities", []):
            if (t, c) == (table, col):
                found = personal.Recalled(rec.id, rec.content or "", str((rec.metadata or {}).get("said_at", "")),
                                          t, c, value, "one", direct=t == personal.OWN,
                                          quote=not (rec.metadata or {}).get("change"))
                return personal.with_memory_words(found, rec)
    return None


def _value_answer(rec: personal.Recalled, said: str, source: dict[str, Any]) -> ChatAnswer:
    """The remembered value itself, with when it was said (and the user's words when they name no older value)."""
    # a correction's words name the value it replaced ("..., not Jade River"): not said again
    words = f": \u201c{rec.text}\u201d" if rec.quote and not rec.earlier and not personal.rejected_names(rec.text) else ""
    lead = "Before the change, it was" if rec.earlier else "From what you told me"
    return _answer(f"{lead}: {rec.value} ({said}{words}).", "rag",
                   _explain("the remembered value itself", "rag", memory=source), [source])


def _merged_second_part(eng: Engine, data: Any, data_question: str, rec: personal.Recalled) -> bool:
    """A second question the data answer left unanswered ("..., and where?"), asked on its own and
    added to it when both answers show what their part asks; False (data untouched) otherwise."""
    if data.text is None or not data.uncovered:
        return False
    extra = _second_part(data_question, data.uncovered, rec)
    more = assistant.answer_data(eng, extra) if extra else None
    if more is None or more.text is None or more.plan is None or data.plan is None or more.text == data.text:
        return False  # (the same rows again answer the first part twice, not the second)
    first = data_question.replace(data.uncovered, " ")
    if not (_covers(first, data.plan) and _covers(extra or data.uncovered, more.plan)):
        return False
    data.text = f"{data.text}\n{more.text}"
    data.uncovered = None
    return True


def _merged_voyage_part(eng: Engine, data: Any, question: str, rec: personal.Recalled) -> bool:
    """A second clause the data answer left unanswered that asks where or when the thing goes ("which vessel
    is it on, and to which port?"), answered from the thing's voyage and added; False (data untouched) otherwise."""
    if data.text is None or not data.uncovered or data.plan is None or rec.table not in ("CONTAINERS", "VOYAGES"):
        return False
    rest = next((c for c in assistant.clauses(question) if c.endswith(data.uncovered.strip())), data.uncovered)
    if _asks_a_thing_the_data_does_not_hold(eng, rest):
        return False  # ("and which forwarder at the port of arrival?": the port would answer another question)
    parts = _voyage_questions(rest, rec)
    answers = [assistant.answer_data(eng, p) for p in parts]
    if not _all_shown(rest, parts, answers) or not _covers_all(question, [data.plan] + [a.plan for a in answers]) \
            or any(a.text == data.text for a in answers):
        return False
    data.text = "\n".join([str(data.text)] + [str(a.text) for a in answers])
    data.uncovered = None
    return True


# the words that only ask, as roots: what a part asks about is its other words ("what did the premium come to?")
_ASKING = "what which when date day time told mentioned said gave now their they them"
_ASKING_WORDS = frozenset(document_reader._stems(
    f"{_ASKING} who whom whose where how did does do come came give tell say mention again remind you me one ones "
    "first before later earlier originally currently using use used have had are was were we our my its"))
# ... and those of a question for a day that name no event ("on what date should it be ...?")
_ASKING_A_DAY = frozenset(document_reader._stems(
    f"{_ASKING} days times should would could will can expect expected happen going planned scheduled estimated actual "
    "ask asks asking asked want wants need needs know wondering"))


def _asks_a_thing_the_data_does_not_hold(eng: Engine, part: str) -> bool:
    """"Which forwarder ...?": the noun a part asks for is none of the schema's words."""
    m = re.search(r"\b(?:which|what)\s+([a-z][\w-]*)", part, re.I)
    return m is not None and not document_reader._stems(m.group(1)) & (schema_words(eng) | _ASKING_WORDS | _ASKING_A_DAY)


def _a_day_the_data_does_not_hold(eng: Engine, question: str, told: str) -> bool:
    """A question for the day of something the schema does not record ("clearance finished", "the pickup"):
    a word of the sentence that asks it is none of the schema's, of a value it names, of what the user told
    (`told`), or of asking for a day."""
    asking = next((x for x in sentences.split(question) if _ASKS_TIME.search(x)), None)
    if asking is None:
        return False
    _, values = assistant.knowledge(eng)
    named = {s for lk in values.links(asking) for s in document_reader._stems(asking[lk.start:lk.end] or lk.text)}
    # (and the user's own things: "my customer", "our client", whatever the words they told them in)
    theirs = set().union(*(document_reader._stems(n) for n in personal.possessed_nouns(asking)), set())
    unknown = document_reader._stems(asking) - schema_words(eng) - _ASKING_A_DAY - named - document_reader._stems(told) - theirs
    return any(len(w) >= 5 and not w.isdigit() for w in unknown)


def _all_shown(question: str, asked_parts: list[str], answers: list[Any]) -> bool:
    """Every part was answered with a plan that shows what it asks, and together they show all the question asks."""
    # (two parts answered with the same rows are one part answered twice: "when does it land, and on what date does
    # their free time run out?" is not the arrival date said again)
    return bool(answers) and all(a.text is not None and a.plan is not None for a in answers) and \
        len({a.text for a in answers}) == len(answers) and \
        all(_covers(a_q, a.plan) for a_q, a in zip(asked_parts, answers, strict=True)) and \
        _covers_all(question, [a.plan for a in answers])


def _answered_in_parts(eng: Engine, question: str, rec: personal.Recalled) -> tuple[Any, str] | None:
    """The question asked as the data questions of the thing's voyage, else as one about a column of
    a table joined to it, when every part is answered; None otherwise."""
    one_part = len(assistant.asked_clauses(question)) < 2  # one data question for a question of two is half an answer
    if _a_day_the_data_does_not_hold(eng, question, rec.text):
        return None  # "on what date should clearance of my box be finished?": not the voyage's arrival
    # ("when does it land, and on what date does their free time run out?": two days asked, one the data holds)
    days_asked = sum(bool(_ASKS_TIME.search(c)) for c in assistant.asked_clauses(question))
    # ("when does our reefer get to Rotterdam?": a port named is a condition the voyage's own questions would drop)
    ports_named = any(lk.table == "PORTS" for lk in assistant.knowledge(eng)[1].links(question))
    for asked_parts in ([] if ports_named else _voyage_questions(question, rec),
                        [personal.context_question(eng, question, rec, any_table=True) if one_part else None]):
        asked_parts = [a for a in asked_parts if a]
        if days_asked > 1 and sum(bool(_ASKS_TIME.search(a)) for a in asked_parts) < days_asked:
            continue
        answers = [assistant.answer_data(eng, a) for a in asked_parts]
        if _all_shown(question, asked_parts, answers):
            answers[0].text = "\n".join(str(a.text) for a in answers)
            return answers[0], " / ".join(asked_parts)
    return None


def _answered_from_context(eng: Engine, question: str, rec: personal.Recalled) -> tuple[Any, str] | None:
    """The question about a column of the thing's own table that the whole turn names, when its answer
    shows what the question asks; None otherwise."""
    asked = personal.context_question(eng, question, rec) if len(assistant.asked_clauses(question)) < 2 else None
    if asked:
        more = assistant.answer_data(eng, asked)
        if more.text is not None and more.plan is not None and _covers(question, more.plan):
            return more, asked
    return None


def _short_of(question: str, data: Any) -> bool:
    """The data answer leaves a part of the question unshown."""
    plans = [p for p in (data.plan, data.second_plan) if p is not None]
    return data.text is not None and data.plan is not None and (data.uncovered is not None or not (
        _covers(question, data.plan) or len(plans) == 2 and _covers_all(question, plans)))


def _the_voyage_told_with(question: str, rec: personal.Recalled) -> personal.Recalled:
    """"When is our vessel due?" of "our boxes are on the Kyoto Express, voyage 574W": where or when a ship
    (or a booking told with its carrier) goes is that voyage, when the same memory tells one; the recalled
    thing otherwise."""
    voyages = {str(v) for t, c, v in rec.entities if (t, c) == ("VOYAGES", "VOYAGE_NUMBER")}
    when, where, _, _ = _directions(question)
    # ("our vessel" is the one their goods are on; "where is it headed?" is the ship, whatever she sails now)
    theirs = re.search(rf"\b(?:our|my)\s+{re.escape(rec.noun)}\b", question, re.I) is not None if rec.noun else False
    if rec.table == "VOYAGES" or len(voyages) != 1 or not (when or where):
        return rec
    # ("which port is that booking arriving at?" of "our booking with ONE is on voyage 466E": a booking arrives
    # on its voyage, not every voyage of its carrier; "when does our carrier ...?" is asked of the carrier)
    if (rec.table == "VESSELS" and not theirs) or (rec.table != "VESSELS" and personal.table_of_word(rec.noun) == rec.table):
        return rec
    return dataclasses.replace(rec, table="VOYAGES", column="VOYAGE_NUMBER", value=voyages.pop())


def _compose(eng: Engine, question: str, rec: personal.Recalled) -> tuple[Any, str]:
    """The data answer for a question about the remembered entity: the question with the entity in
    its place; a second question it left unanswered ("..., and where?") asked on its own; when the
    question itself names nothing of the data, the columns its earlier sentence names."""
    rec = _the_voyage_told_with(question, rec)
    data_question = personal.substitute(question, rec, with_vessel=_number_shared(eng, rec))
    data = assistant.answer_data(eng, data_question)
    if _merged_second_part(eng, data, data_question, rec) or _merged_voyage_part(eng, data, question, rec):
        return data, data_question
    if _short_of(question, data):
        data.text = None  # a part the rows do not show ("what's in it and what's it set at?") is not answered
        data.reason = "the data answer does not show what the question asks"
    if data.text is not None and (own := _a_figure_of_an_untold_thing(question, data_question, rec)) is not None:
        data.text = None  # ("how many TEU does my booking take?" of a memory of their ship: not the ship's capacity)
        data.reason = f"it asks a figure of your {own}, which the data does not record"
    if data.text is None and rec.table != personal.OWN and data.unexplained is None:
        # (a word the data does not hold, "flagged for the exam": no part of the thing's voyage answers it)
        # the whole-question answer failed: the parts it asks of the thing, one data question each
        found = _answered_in_parts(eng, question, rec) or _answered_from_context(eng, question, rec)
        if found is not None:
            return found
    return data, data_question


def _a_figure_of_an_untold_thing(question: str, data_question: str, rec: personal.Recalled) -> str | None:
    """"How many TEU does my booking take?" when the thing recalled is their ship: a count or amount asked of a thing
    of theirs ("my booking") that is no table of the data, no role and not the thing recalled, whose noun the data
    question still says; that noun, else None."""
    if not re.search(r"\bhow\s+(?:many|much)\b", question, re.I):
        return None
    for noun in personal.possessed_nouns(question):
        if personal.table_of_word(noun) is None and not own_values.roles_of(noun) and noun != personal.stem(rec.noun) \
                and re.search(rf"\bhow\s+(?:many|much)\b[^?,]*\b(?:my|our)\s+{re.escape(noun)}", question, re.I) \
                and re.search(rf"\b{re.escape(noun)}", data_question, re.I):
            return noun
    return None


def _number_shared(eng: Engine, rec: personal.Recalled) -> bool:
    """The remembered voyage's number is another voyage's too (two ships' "534E"): counted by the planner's
    own query over the column remembered."""
    if rec.table != "VOYAGES":
        return False
    schema, _ = assistant.knowledge(eng)
    column = next((c for c in schema.columns.get(rec.table, []) if c.name == rec.column), None)
    if column is None:
        return False
    plan = planner.to_sql(planner.Spec(rec.table, "count", filters=[planner.Filter(column, "=", rec.value, "")]), schema)
    rows = eng.supplychain.read_only_query(plan.sql, max_rows=1, params=plan.params).rows
    return bool(rows) and int(rows[0][0] or 0) > 1


# What a question about where or when a thing goes asks of its voyage (the verbs of a voyage).
# ("what goes on the DG declaration" asks no voyage: a go-verb counts with where it goes)
_TO = re.compile(r"\b(?:(?:going|goes|go)(?=\s+(?:to|there|next|back)\b)|head(?:ed|ing)?|bound|to|destination|arriv\w*|"
                 r"get(?:s|ting)? (?:there|in)|reach\w*|due|land\w*|coming into)\b", re.I)
_FROM = re.compile(r"\b(?:from|leav\w*|left|depart\w*|sail\w*|out of|origin)\b", re.I)


# a verb, not the noun it makes ("the sailing our tiles are on" names the voyage, not its departure)
# ("that Kyoto Express sailing": a name between them too)
_ING_NOUN = re.compile(r"\b(?:the|a|an|this|that|our|my|their|which|what|next|first|last)\s+(?-i:[A-Z][\w-]*\s+){0,3}"
                       r"[a-z]+ing\b", re.I)
_BARE_TO = re.compile(r"\bto\b")
_BARE_FROM = re.compile(r"\bfrom\b")


def _directions(question: str) -> tuple[bool, bool, bool, bool]:
    """(when, where, to, from): whether the question asks a time, a place, where the thing goes, where it comes from."""
    when, where = bool(_ASKS_TIME.search(question)), bool(_ASKS_PLACE.search(question))
    question = _ING_NOUN.sub(" ", question)
    # a bare "to" or "from" counts only in a where / when question ("what's my box set to?" asks no voyage)
    to = bool(_TO.search(question) if when or where else _TO.search(_BARE_TO.sub(" ", question)))
    frm = bool(_FROM.search(question) if when or where else _FROM.search(_BARE_FROM.sub(" ", question)))
    return when, where, to, frm


def _port_voyages(port: str, to: bool, frm: bool) -> list[str]:
    """The voyages from or to a remembered port, when the question asks one direction."""
    if frm and not to:
        return [f"which voyages depart from {port}?"]
    if to and not frm:
        return [f"which voyages arrive at {port}?"]
    return []


def _dates_and_ports(entity: str, when: bool, where: bool, to: bool, frm: bool) -> list[str]:
    """The dates, then the ports, of a voyage the question asks: a departure for "from", an arrival otherwise."""
    out = []
    if when:
        if frm:
            out.append(f"what is the departure date of {entity}?")
        if to or not frm:
            out.append(f"what is the arrival date of {entity}?")
    if where or (not when and (to or frm)):
        if frm:
            out.append(f"what is the origin port of {entity}?")
        if to or not frm:
            out.append(f"what is the destination port of {entity}?")
    return out


def _voyage_questions(question: str, rec: personal.Recalled) -> list[str]:
    """The data questions a 'where / when does it go' question asks of the remembered thing's voyage:
    "where is my box going?" -> its destination port; "when does it leave, and from where?" -> its
    departure date and origin port; "anything leaving my port soon?" -> the voyages from that port."""
    entity = f"{personal.TABLE_NOUNS_BY_TABLE.get(rec.table, rec.table.lower())} {rec.value}"
    when, where, to, frm = _directions(question)
    if rec.table == "PORTS":
        return _port_voyages(rec.value, to, frm)
    if rec.table not in ("CONTAINERS", "VOYAGES"):
        return []
    return _dates_and_ports(entity, when, where, to, frm)


_SEVERAL = re.compile(r"\b(?:two|three|both|each|all|either|neither)\b(?:\s+of)?(?:\s+(?:the|my|our|those|these))?"
                      r"\s+([a-z][\w-]*)", re.I)


def _many_asked(eng: Engine, question: str, rec: personal.Recalled, user_id: str, agent_id: str) -> str | None:
    """The things the question compares ("the two boxes I asked about", "both of my voyages"), when
    fewer of that kind are remembered; None otherwise."""
    m = _SEVERAL.search(question)
    if m is None:
        return None
    # (two boxes told in one sentence are two: the values count, not the memories)
    kept = {str(e[2]) for r in personal.valid_memories(eng, user_id, agent_id)
            for e in (r.metadata or {}).get("entities", []) if e[0] == rec.table}
    noun = m.group(1)
    if personal.table_of_word(noun) not in (rec.table, None):
        return None
    return f"more than one {personal.stem(noun.lower())}" if len(kept) < 2 else None


# a plural pointing back at things of the user's ("and which ships are they on?")
_THEY = re.compile(r"\b(?:they|them|those|these|both)\b", re.I)


def _all_of_that_kind(eng: Engine, question: str, rec: personal.Recalled, user_id: str,
                      agent_id: str) -> personal.Recalled | None:
    """"The combined weight of the two Lanka Fresh boxes", "which ships are they on?": the question is
    about several of the user's things of the kind recalled; every value of that kind they told (the
    latest ones, as many as the number says), in the order told. None for one thing, or when fewer
    than two are told."""
    # ("unsere beiden Container": read in English when the glossary reads it, "our both containers")
    question = (other_languages.in_english(question) or question) if router.FOREIGN_RE.search(question) else question
    several = _SEVERAL.search(question)
    if not _asks_several(question, rec, several):
        return None
    values = personal.told_values(personal.valid_memories(eng, user_id, agent_id), rec.table, rec.column)
    wanted = _count_of(several.group(0)) if several is not None else None
    if len(values) < max(2, wanted or 0):
        return None
    values = values[-wanted:] if wanted else values
    return dataclasses.replace(rec, value=" and ".join(values), direct=False, quote=False, noun=_plural_noun(question, rec))


def _asks_several(question: str, rec: personal.Recalled, several: re.Match[str] | None) -> bool:
    """The question says several ("the two ...", "they", "my boxes") of the kind of the thing recalled."""
    if several is None and not _THEY.search(question) and not _plural_own(question, rec.table) and \
            not _plural_of_the_kind(question, rec.table):
        return False
    if rec.earlier or rec.ordinal or rec.table == personal.OWN:
        return False
    # "the two Lanka Fresh boxes": the kind is named within a few words; "my two customers" is another kind
    # ("which of my two boxes left port first": the boxes, not the port, are the kind)
    after = re.findall(r"[\w'-]+", question[several.start(1):])[:3] if several is not None else []
    kinds = [t for w in after if (t := personal.table_of_word(w)) is not None]
    # ("when do those two get there?": no noun, the things they told several of)
    return several is None or kinds[:1] == [rec.table] or personal.points_at_several(question)


def _plural_noun(question: str, rec: personal.Recalled) -> str:
    """The question's word for the things (kept, so the data question can put their values in its place),
    else the plural of the table's noun."""
    if re.search(rf"\b{re.escape(rec.noun)}\b", question, re.I) and not _THEY.fullmatch(rec.noun):
        return rec.noun
    one = personal.TABLE_NOUNS_BY_TABLE.get(rec.table) or "thing"
    return one + ("es" if one.endswith(("x", "s")) else "s")


def _plural_own(question: str, table: str) -> bool:
    """"My boxes", "our containers": a plural noun of the table, said as the user's."""
    return any(noun.lower().endswith("s") and personal.table_of_word(noun) == table
               for noun in personal.possessed_nouns(question))


def _plural_of_the_kind(question: str, table: str) -> bool:
    """"The container numbers", "the numbers of the containers": a plural said with "the" of the table's things."""
    for m in re.finditer(r"\b(?:the|those|these)\s+((?:[\w-]+\s+)?[\w-]+s)\b", question, re.I):
        if any(personal.table_of_word(w) == table for w in m.group(1).split()):
            return True
    return False


def _count_of(words: str) -> int | None:
    m = re.search(rf"\b({'|'.join(personal.NUMBER_SAID)})\b", words, re.I)
    return None if m is None else personal.NUMBER_SAID.index(m.group(1).lower()) + 2


def _covers_all(question: str, plans: list[Any]) -> bool:
    """Every part the question asks (a time, a place, a thing asked by "which vessel") is shown by one of the plans."""
    asks = [p for p in (_ASKS_TIME, _ASKS_PLACE) if p.search(question)]
    return all(any(_covers(m.group(0), plan) for plan in plans) for p in asks if (m := p.search(question))) and \
        all(any(_shows_table(plan, table) for plan in plans) for table in _things_asked(question))


_WHICH_THING = re.compile(r"\b(?:which|what)\s+([a-z][\w-]*)", re.I)


def _things_asked(question: str) -> set[str]:
    """The tables "which vessel" / "what port" ask a row of."""
    return {t for m in _WHICH_THING.finditer(question) if (t := personal.table_of_word(m.group(1))) is not None}


def _shows_table(plan: Any, table: str) -> bool:
    """The plan's rows are of the table, or it shows one of its columns."""
    spec = plan.spec
    shown = [c for c in (plan.columns or []) + list(spec.show or []) if c is not None]
    return spec.target == table or any(c.table == table for c in shown) or \
        (table == "PORTS" and bool(spec.roles))  # a role (origin, destination) shows a port


def _second_part(data_question: str, part: str, rec: personal.Recalled) -> str | None:
    """The part of a two-part question left unanswered, as a question of its own about the entity:
    a bare "where?" takes the first question's verb ("when does voyage 939E arrive, and where?" ->
    "where does voyage 939E arrive"); a pronoun is replaced by the entity."""
    entity = f"{personal.TABLE_NOUNS_BY_TABLE.get(rec.table, rec.table.lower())} {rec.value}"
    bare = re.fullmatch(r"(?:and\s+)?(what|which|who|where|when|how)\W*", part.strip(), re.I)
    if bare:
        first = assistant.clauses(data_question)[0]
        swapped = re.sub(r"^\s*(?:what|which|who|where|when|how)\b", bare.group(1), first, count=1, flags=re.I)
        return swapped if swapped != first else None
    replaced, n = re.subn(r"\b(?:it|she|he|they|that one|this one)\b", entity, part, count=1, flags=re.I)
    return replaced if n else None


# a question about when a change of theirs happened: "since when", "when did we move / switch"
_CHANGE_VERB = re.compile(r"\b(?:since when|mov\w*|switch\w*|chang\w*|start\w*|began|begin|join\w*|transfer\w*)\b", re.I)


def _asks_when_changed(question: str) -> bool:
    """The question asks when a change of the user's own happened ("since when", "when did we move")."""
    return bool(_ASKS_TIME.search(question) and _CHANGE_VERB.search(question)) and personal.refers_to_own(question)


def _tells_change_time(meta: dict[str, Any], tables: set[str]) -> bool:
    """The memory is of a change with the time it happened, on a table the question names (if it names one)."""
    entities = meta.get("entities") or []
    if not (meta.get("change") and meta.get("time") and entities):
        return False
    # "when did our carrier change" is not answered by a change of office
    return not (tables and not tables & {e[0] for e in entities} and "PORTS" not in tables)


def _change_time_answer(rec: Any, meta: dict[str, Any]) -> ChatAnswer:
    """When the change happened as the user said it, with what it changed to and their words."""
    table, column, value = meta["entities"][0]
    said = f"you told me on {str(meta.get('said_at', ''))[:10]}"
    rec_ = personal.Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value,
                             "change", direct=True)
    source = _memory_source(rec_)
    return _answer(f"{str(meta['time'])[:1].upper()}{str(meta['time'])[1:]}: {value} ({said}: \u201c{rec.content}\u201d).",
                   "rag", _explain("the time of a change the user told", "rag", memory=source), [source])


def _when_changed(eng: Engine, question: str, user_id: str, agent_id: str) -> ChatAnswer | None:
    """When the user said a change of theirs happened, from the newest memory of a change that says
    it ("since April we've moved to Yang Ming", "I moved on 19 May"); None when the question asks no
    such thing or no such memory names a time."""
    if not _asks_when_changed(question):
        return None
    tables = {t for w in re.findall(r"[A-Za-z][\w'-]*", question) if (t := personal.table_of_word(w))}
    for rec in reversed(personal.valid_memories(eng, user_id, agent_id)):
        meta = rec.metadata or {}
        if _tells_change_time(meta, tables):
            return _change_time_answer(rec, meta)
    return None


def _asks_past(question: str) -> bool:
    """The question asks for a value before another ("which did I give first", "originally"), not a
    date's before ("before June 10", "arrives first")."""
    q = re.sub(r"\b(?:before|after)\s+(?:\d|the\s+\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*", " ", question,
               flags=re.I)
    # ("which of my boxes left Hamburg first": a verb of moving before "first" asks the data's dates)
    q = re.sub(r"\b(?:arriv|leav|left|depart|sail|reach|get|got|come|came|go|went|dock|land)\w*\s+(?:[^\s,.;:?!]+\s+){0,4}?"
               r"first\b", " ", q, flags=re.I)
    return bool(personal.HISTORY.search(q))


def _shows_count(question: str, spec: Any, shown: list[Any]) -> bool:
    """A count only for a count; a count or an amount asked is shown by a count, a sum or a number."""
    if spec.action in ("count", "exists") and not _ASKS_COUNT.search(question):
        return False
    return not (_ASKS_COUNT.search(question) and spec.action not in ("count", "aggregate", "group_top") and
                not any(c.numeric for c in shown))


def _shows_time(question: str, spec: Any, shown: list[Any]) -> bool:
    """A time asked is shown by a date column, the days between two (a voyage's duration) or a measure over dates."""
    return not (_ASKS_TIME.search(question) and not (any(c.is_date or c.unit == "days" for c in shown) or
                                                     (spec.measure is not None and spec.measure.is_date)))


def _shows_place(question: str, spec: Any, shown: list[Any]) -> bool:
    """A place asked is shown by ports or positions, or by a role (origin, destination) of the plan."""
    places = spec.target in ("PORTS", "VESSEL_POSITIONS") or bool(spec.roles) or \
        any(c.table in ("PORTS", "VESSEL_POSITIONS") for c in shown)
    return places or not _ASKS_PLACE.search(question)


def _covers(question: str, plan: Any) -> bool:
    """The data answer shows what the question asks: a count only for a count, a date for a time,
    a place for a place, a row of the table "which carrier" asks. A count of the remembered row itself
    ("there is 1 container") answers nothing."""
    spec = plan.spec
    shown = [c for c in (plan.columns or []) + list(spec.show or []) if c is not None]
    return _shows_count(question, spec, shown) and _shows_time(question, spec, shown) and \
        _shows_place(question, spec, shown) and all(_shows_table(plan, t) for t in _things_asked(question))


def _declined(eng: Engine, question: str, rec: personal.Recalled, said: str, source: dict[str, Any],
              user_id: str, agent_id: str) -> ChatAnswer | None:
    """An honest fallback for what the memory cannot tell: an earlier value never given, several
    things compared when one is remembered; None when neither applies."""
    if _asks_past(question) and not rec.earlier and not rec.ordinal:  # "which did I give first?": nothing older was kept
        return _answer(f"You told me one {_called(rec)} ({rec.value or rec.text[:80]}, {said}); I have nothing of yours "
                       "from before it, so I can't say which came first.", "fallback",
                       _explain("a question about an earlier value; no earlier value remembered", "fallback",
                                memory=source), [])
    several = _SEVERAL.search(question)
    if several is not None and personal.table_of_word(several.group(1)) not in (rec.table, None):
        # "which of my two boxes left first?" of a port told: the boxes themselves were never named
        return _answer(f"You asked about your {several.group(0).split(maxsplit=1)[-1]}, but what I remember of them is "
                       f"a {_called(rec)} ({rec.value}, {said}), not which {several.group(1)} they are, so I can't "
                       "compare them.", "fallback",
                       _explain("the question is about several things of the user's; another kind is remembered",
                                "fallback", memory=source), [])
    many = _many_asked(eng, question, rec, user_id, agent_id)
    if many:
        return _answer(f"You asked about {many}, but I remember only one of them ({rec.value}, {said}), so I can't "
                       "compare them.", "fallback",
                       _explain("the question is about several things of the user's; one is remembered", "fallback",
                                memory=source), [])
    return None


def _others_memory(question: str) -> ChatAnswer | None:
    """A refusal for a question about what someone else told the assistant ("what did Sam tell you"), or None."""
    who = _OTHER_TOLD.search(question)
    if who is None or personal.refers_to_own(question.replace("you", "")):
        return None
    return _answer(f"I only answer from what you have told me yourself; what {who.group(1)} said to me is "
                   "theirs, so I can't share it.", "fallback",
                   _explain(OTHERS, "fallback"), [])


def _recalled(eng: Engine, question: str, user_id: str, agent_id: str,
              follow: personal.Recalled | None) -> tuple[personal.Recalled | None, bool]:
    """The memory the question refers to, else the one the last answer recalled (named by the
    question's word of reference: "that one"); and whether it is that follow-up's."""
    rec = personal.resolve(eng, question, user_id=user_id, agent_id=agent_id)
    if rec is None and follow is not None and not (own_values.asked_kind(question) and
                                                   personal.described_otherwise(question, f"{follow.text} {follow.corrected}")):
        rec = follow  # not when it asks for one of their names described by words the last one never had
    is_follow = rec is follow and follow is not None
    if is_follow and follow is not None:
        rec = _earlier_of(eng, question, follow, user_id, agent_id) or \
            dataclasses.replace(follow, noun=_follow_noun(question) or follow.noun, earlier=False)
        rec = _the_one_pointed_at(question, rec)
    return (_the_kind_asked_in_it(question, rec) if rec is not None else None), is_follow


def _kind_asked(question: str) -> str | None:
    """What a question about theirs asks for; a reference when it says one, whatever else it says."""
    return own_values.CODE if own_values.asks_code(question) else own_values.asked_kind(question)


def _the_kind_asked_in_it(question: str, rec: personal.Recalled) -> personal.Recalled:
    """"And where do they ship from?" after a memory recalled as their customer: the one place that memory
    names (or the one name or sum asked); "what was the booking number?" of a memory recalled by its
    carrier: the one reference of theirs it names. Else the memory as recalled."""
    kind = _kind_asked(question)
    if (said := _the_code_asked(question, kind, rec)) is not None:
        return said  # "what was their booking number?" of "their 2 boxes on 452E, booking SAV-66120": that reference
    if kind is None or _value_kind(rec) == kind or any(t == rec.table for _, t in personal.question_nouns(question)):
        return rec
    if personal.possessed_nouns(question) or len(document_reader.asking_parts(question)) > 1:
        return rec  # ("our office - what street?" names its own thing; "what's the customer called and where?" asks two)
    if rec.table != personal.OWN and kind != own_values.CODE:
        return rec  # (of a thing of the data, "where's it going?" asks the data)
    of_kind = [e for e in rec.entities if e[:2] == (personal.OWN, kind) or (kind == own_values.PLACE and e[0] == "PORTS")]
    if len(of_kind) != 1:
        return rec
    t, c, v = of_kind[0]
    noun = {own_values.CODE: "reference", own_values.PLACE: "place", own_values.MONEY: "amount"}.get(kind, "name")
    return dataclasses.replace(rec, table=t, column=c, value=str(v), noun=noun, direct=t == personal.OWN, earlier=False)


def _the_code_asked(question: str, kind: str | None, rec: personal.Recalled) -> personal.Recalled | None:
    return _code_said_after_the_noun(question, rec) if kind == own_values.CODE else None


def _code_said_after_the_noun(question: str, rec: personal.Recalled) -> personal.Recalled | None:
    """The one reference of theirs the memory's words put right after the noun the question asks the number of
    ("booking SAV-66120", "job ref is LDS-44817"), whatever table that noun names in the data."""
    # (the noun of a reference the question asks for, not of a table of the data: "the box number" is a box's)
    nouns = {m.group(1).lower() for m in _IDENTIFIER.finditer(question)
             if m.group(1).lower() not in STOP_WORDS and personal.table_of_word(m.group(1)) is None}
    found = [(t, c, v) for t, c, v in rec.entities if (t, c) == (personal.OWN, own_values.CODE) and any(
        re.search(rf"\b{re.escape(n)}\w*\s+[^.;!?]{{0,30}}?(?<![\w-]){re.escape(str(v))}(?![\w-])", rec.text, re.I) and not
        re.search(rf"\b{re.escape(n)}\w*\s+[^.;!?]{{0,30}}?\b[A-Z]{{2,}}[-\s]?\d{{3,}}[^.;!?]*?{re.escape(str(v))}", rec.text)
        for n in nouns)]
    if len(found) != 1 or str(found[0][2]) == rec.value or str(found[0][2]).lower() in question.lower():
        return None  # (a question that says the reference itself does not ask for it)
    t, c, v = found[0]
    return dataclasses.replace(rec, table=t, column=c, value=str(v), noun="reference", direct=True, earlier=False)


_THAT_NOUN = re.compile(r"\b(?:that|this|the same)\s+([a-z]+)\b", re.I)


def _the_one_pointed_at(question: str, rec: personal.Recalled) -> personal.Recalled:
    """"And at which port does that box get discharged?" after a memory recalled as its ship: the value
    of the table the words point at, when that memory names one; else the memory as recalled."""
    m = _THAT_NOUN.search(question)
    table = personal.table_of_word(m.group(1)) if m else None
    if table is None or table == rec.table:
        return rec
    named = [e for e in rec.entities if e[0] == table]
    if len(named) != 1:
        return rec  # ("which alliance is that carrier in?" of a ship: the data reaches it from the ship)
    t, c, v = named[0]
    return dataclasses.replace(rec, table=t, column=c, value=str(v))


def _earlier_of(eng: Engine, question: str, follow: personal.Recalled, user_id: str,
                agent_id: str) -> personal.Recalled | None:
    """"And who did it before May?" after an answer from a memory that corrected another: the value
    before the change (the first one kept), else None."""
    if not personal.HISTORY.search(question):
        return None
    rec = next((r for r in personal.valid_memories(eng, user_id, agent_id) if r.id == follow.memory_id), None)
    earlier = (rec.metadata or {}).get("earlier") if rec is not None else None
    if not earlier:
        return None
    first = earlier[0]
    return dataclasses.replace(follow, value=str(first["value"]), text=str(first["text"]), said_at=str(first["said_at"]),
                               earlier=True, quote=False, direct=True)


# A question about what the user said ("what did I tell you ...", "remind me ..."): the user's words answer it.
_ABOUT_THE_TELLING = re.compile(r"\b(?:i|we)\s+(?:told|gave|mentioned|said|say|tell|give|mention)\b|\bremind\s+me\b|"
                                r"\bagain\b|"
                                # and in the corpus' other languages: told, reminded, what it was called
                                r"\b(?:dije|dijimos|cont[eé]|mencion[eé]|recu[eé]rdame|se llamaba|otra vez|"
                                r"rappelle-moi|rappelez-moi|(?:je|j)\s*['’]?\s*(?:t|vous)\s*['’]\s*ai dit|s'appelait|"
                                r"erinnere mich|gesagt|erz[äa]hlt|hie(?:ß|ss)|nochmal|noch einmal|de nuevo|d[ée]j[àa])\b",
                                re.I)


def asks_a_day_of_theirs(eng: Engine, question: str) -> bool:
    """"What's the paperwork deadline now?": a question for a day, with a word the schema does not use (what
    the user called their thing); "when was the ship built?" is the data's."""
    return said.asks_a_time(question) and _ASKS_FOR.match(question) is not None and \
        bool(document_reader._stems(question) - schema_words(eng))


# a question that asks for something (not yes or no)
_ASKS_FOR = re.compile(r"^\W*(?:(?:and|so|ok|okay)\W+)?(?:what|what's|whats|when|when's|which|by when|until when)\b", re.I)
# "when I first told you about it": a clause that says which telling
_WHEN_TOLD = re.compile(r"\W*when\s+(?:i|we)\s+(?:\w+\s+)?(?:told|gave|mentioned|said|wrote)\b", re.I)


def _said_answer(eng: Engine, question: str, user_id: str, agent_id: str, *, anyway: bool = False,
                 min_shared: int = said.MIN_SHARED, newest: bool = False, of_a_party: bool = False) -> ChatAnswer | None:
    """No kept memory answers a question about what the user said: their own earlier statement that
    does, quoted (said.py), or None. A question about how things stand now is not answered from words
    that a later statement may have changed. With `anyway`, a question about their things that no other
    way answered gets it too; with `newest`, the newest statement on its subject (said.find)."""
    about_the_telling = _ABOUT_THE_TELLING.search(question) is not None
    if not (anyway or about_the_telling):
        return None
    # asked to be reminded, their words are matched by meaning too ("which haulier kept not turning up")
    found = said.find(eng, question, user_id=user_id, agent_id=agent_id, min_shared=min_shared,
                      newest_on_subject=newest and not about_the_telling,
                      by_meaning=eng.model.embed if about_the_telling else None, any_statement=of_a_party)
    if found is None or _unfit_words(eng, question, found.text, about_the_telling, (user_id, agent_id)):
        return None
    # ("... when I first told you about it" says which telling; it asks nothing)
    parts = [p for p in assistant.asked_clauses(question) if not _WHEN_TOLD.match(p)]
    if len(parts) > 1 and (values := _values_of_the_kind(question, found.text)) is not None and len(values) < len(parts):
        # "the deadline now, and what was it first?", "which ref did I give first, and which most recently?":
        # one day or one reference told answers one of the two
        return None
    source = {"record_id": found.message_id, "subject": f"what you said, {found.said_at[:16]}",
              "memory_id": found.message_id, "said_at": found.said_at, "said": found.text[:300]}
    said_then = f"You told me on {found.said_at[:10]}: \u201c{found.text}\u201d"
    if (half := _one_part_said(found.text, parts, said_then, source)) is not None:
        return half
    return _answer(said_then, "rag",
                   _explain("the user's own earlier statement that shares the question's words and holds what it "
                            "asks", "rag", memory=source), [source])


def _unfit_words(eng: Engine, question: str, told: str, about_the_telling: bool, owner: tuple[str, str]) -> bool:
    """The words found do not answer: not what the question asks, not an answer to a yes or no (unless asked what
    was told), or said of another time than the one asked."""
    return _not_what_it_asks(eng, question, told) or \
        (not about_the_telling and _their_words_do_not_answer(question, told)) or \
        _says_what_came_after(eng, question, told, *owner)


def _says_what_came_after(eng: Engine, question: str, told: str, user_id: str, agent_id: str) -> bool:
    """The words found are those of a memory whose earlier value the question asks for ("who did it in May?"
    of "from 1 June we switch to Hanse", after "until the end of May it was Nordzoll"): they answer another time."""
    # (a word of the past is read by said.find, which picks the earlier statement; words that say both values answer;
    # naming no month, the question asks no earlier value: the memories are not read)
    if personal.HISTORY.search(question) or not personal.months_named(question):
        return False
    return any((r.content or "").rstrip(". ") == told.rstrip(". ") and personal.asks_earlier(question, r.metadata or {})
               and not any(str(e.get("value", "")).lower() in told.lower() for e in (r.metadata or {}).get("earlier", []))
               for r in personal.valid_memories(eng, user_id, agent_id))


def _asks_whether(question: str) -> bool:
    """The turn's last question is answered yes or no ("does it still fit?", "anything I should know?")."""
    asked = [x for x in sentences.split(question) if x.endswith("?")]
    return bool(asked) and (_YES_OR_NO.match(asked[-1]) is not None or _ANYTHING.match(asked[-1]) is not None)


def _their_words_do_not_answer(question: str, told: str) -> bool:
    """A sentence of theirs read back answers no yes-or-no question (whether the sofas make the sailing is
    worked out, not said), and is stale when the turn itself states a figure or a day it does not hold
    ("production slipped to 14 June. When will they be at the port now?")."""
    if _asks_whether(question):
        return True
    told_sentences = sentences.split(question)
    stated = " ".join(x for x in told_sentences if not x.endswith("?"))
    return any(n not in told for n in re.findall(r"\d+", stated))


def _one_part_said(text: str, parts: list[str], said_then: str, source: dict[str, Any]) -> ChatAnswer | None:
    """"What value did I give, and what did the premium come to?": their words say nothing of one part; said
    as part of an answer, never grounded. None when every part shares a word with them."""
    told = document_reader._stems(text)
    missing = [p for p in parts if not _a_part_said(p, told)] if len(parts) > 1 else []
    if not missing:
        return None
    return _answer(f"I can answer only part of this from what you told me.\n{said_then}\nI cannot also answer "
                   f"\u201c{missing[-1].strip()}\u201d.", "fallback",
                   _explain("the user's own statement answers one part of the question", "fallback", memory=source), [])


def _a_part_said(part: str, told: set[str]) -> bool:
    """Their words (`told`: their roots) answer the part: they share a word of what it asks about, it asks
    nothing but which one or when ("and which one are we using now?", "what was its date?"), or a party."""
    about = document_reader._stems(part) - _ASKING_WORDS
    # ("which haulier did I mention first?": a party's role asked, which their words say by its name)
    return not about or bool(about & told) or bool(own_values.roles_of(part))



# a question whose answer is a party: who, or which of a kind of party
_ASKS_A_PARTY = re.compile(r"\b(?:who|whom|whose|name of)\b|\b(?:which|what)\s+(?:\w+\s+)?(?:customer|client|consignee|"
                           r"buyer|company|firm|haulier|hauler|trucker|supplier|shipper|forwarder|broker)s?\b", re.I)


def _not_what_it_asks(eng: Engine, question: str, told: str) -> bool:
    """Their sentence cannot answer: "which haulier did I say?" of a sentence about their consignee, "which
    client did I say?" of "I'm watching that one for a client" (no party named)."""
    asked_roles, told_roles = own_values.roles_of(question), own_values.roles_of(told)
    if asked_roles and told_roles and not asked_roles & told_roles:
        return True
    return bool(_ASKS_A_PARTY.search(question)) and not said.asks_a_time(question) and not _names_someone(eng, told)


def _names_someone(eng: Engine, text: str) -> bool:
    """The words name a party: a name of the user's own world, or a name the data holds."""
    _, values = assistant.knowledge(eng)
    links = values.links(text)
    if any((lk.table, lk.column) in NAME_COLUMNS for lk in links):
        return True
    taken = [(lk.start, lk.end) for lk in links if lk.how != "word"]
    return any(v.kind == own_values.NAME for v in own_values.find(text, taken, places=set()))


def _values_of_the_kind(question: str, text: str) -> list[str] | None:
    """The days, or the references, the text holds when the question asks for one of those; None when it
    asks for another kind (nothing to count)."""
    if said.asks_a_time(question):
        return _A_DAY.findall(text)
    if own_values.asked_kind(question) == own_values.CODE:
        return own_values.CODE_RE.findall(text)
    return None


# a question that is not about the user's things reaches their words only when it shares this many with them
NOT_OWN_MIN_SHARED = 3


def words_said(eng: Engine, question: str, *, user_id: str, agent_id: str) -> ChatAnswer | None:
    """The last resort for a question no handler answered ("who inspected the Brightwater box?"): the
    user's own statement that shares at least three of its words and holds the kind of value asked,
    quoted; else None."""
    if _WORKED_OUT.search(question) or len(assistant.asked_clauses(question)) > 1:
        # a total or a span is worked out from several things said, and two questions ask two: one quoted is half
        return None
    if not asks_a_day_of_theirs(eng, question):
        # ("would the sailing make that deadline?" asks the data about the day, not for the day)
        return _said_answer(eng, question, user_id, agent_id, anyway=True, min_shared=NOT_OWN_MIN_SHARED)
    # "what's the paperwork deadline now?": two words of theirs and a day asked say which statement, when its
    # words give a day ("extended by three months yesterday" says when it was said, not the day asked)
    quoted = _said_answer(eng, question, user_id, agent_id, anyway=True, min_shared=NOT_OWN_MIN_SHARED - 1)
    return quoted if quoted is not None and _A_DAY.search(_words_quoted(quoted)) else None


def _words_quoted(answer: ChatAnswer) -> str:
    """The user's sentence an answer of theirs quotes (_said_answer writes it between curly quotes)."""
    return answer.answer.partition("\u201c")[2].rstrip("\u201d")


# a question for the party a thing is of: "whose cargo is in X?", "who is that box for?", "who's the client on it?"
_ASKS_WHOSE = re.compile(r"\b(?:whose|who(?:['’]s|\s+(?:is|was|are|were))?\s+(?:\w+\s+){0,5}?(?:for|of|behind|owns?|owner|"
                         r"client|customer|consignee|shipper))\b|"
                         r"\b(?:which|what)\s+(?:client|customer|consignee|shipper|buyer|importer)s?\b", re.I)


def whose_told(eng: Engine, question: str, *, user_id: str, agent_id: str) -> ChatAnswer | None:
    """"Whose cargo was in CAIU2647873 again?": the data names no party, but a memory of the user's ties a name of
    theirs to the very record the question names: that name, with the memory as its source; else None."""
    if _ASKS_WHOSE.search(question) is None:
        return None
    memories = personal.valid_memories(eng, user_id, agent_id)
    named = {str(lk.value) for lk in assistant.named_records(eng, question)} | _told_records_begun(question, memories)
    for r in reversed(memories):  # newest first
        found = _the_party_of_the_record(r, named)
        if found is None:
            continue
        rec, thing = found
        source = _memory_source(rec)
        whose = f"{rec.value}'" if rec.value.endswith("s") else f"{rec.value}'s"
        told = f"From what you told me, {thing[2]} is {whose} ({_told_when(rec)}: \u201c{rec.text}\u201d)."
        rest = [part for part in assistant.asked_clauses(question) if _ASKS_WHOSE.search(part) is None]
        if rest:  # "who's the client on X and when does it reach Rotterdam?": the data answers the other part
            return _with_the_rest_of_it(eng, told, rest, thing, source)
        return _answer(told, "rag", _explain("a name of theirs the user tied to the record the question names", "rag",
                                             memory=source), [source])
    return None


def _the_party_of_the_record(r: Any, named: set[str]) -> tuple[personal.Recalled, tuple[str, str, str]] | None:
    """(the one name of theirs a memory gives, as recalled; the record named it is tied to), or None."""
    meta = r.metadata or {}
    entities = [(str(e[0]), str(e[1]), str(e[2])) for e in meta.get("entities", [])]
    names = personal.own_names_of(entities)
    thing = next((e for e in entities if e[2] in named and e[0] != personal.OWN), None)
    if thing is None or len(names) != 1:
        return None
    return personal.Recalled(r.id, r.content or "", str(meta.get("said_at", "")), personal.OWN, own_values.NAME,
                             names[0], "party", direct=True, entities=tuple(entities)), thing


def _with_the_rest_of_it(eng: Engine, told: str, rest: list[str], thing: tuple[str, str, str],
                         source: dict[str, Any]) -> ChatAnswer:
    """Whose the record is, from their words, and the other parts of the question about it ("it" is the record),
    from the data; a part the data does not answer makes it only part of an answer."""
    noun = personal.TABLE_NOUNS_BY_TABLE.get(thing[0], "")
    asked = " ".join(re.sub(r"\b(?:it|its|it's)\b", lambda m: f"{noun} {thing[2]}" + ("'s" if m.group(0) != "it" else ""),
                            part, flags=re.I) for part in rest)
    data = assistant.answer_data(eng, asked)
    if data.text is None or data.plan is None or data.uncovered is not None:
        return _answer(f"I can answer only part of this.\n{told}\nI can't answer \u201c{' '.join(rest)}\u201d offline: "
                       f"{data.reason}.", "fallback", _explain("whose the record is, told; the rest not planned",
                                                               "fallback", memory=source, data_question=asked), [])
    plan = data.plan
    sql_source = _sql_source(data)
    return _answer(f"{told}\n{data.text}", "rag", _explain("whose the record is, told; the rest from the data", "rag",
                                                           memory=source, data_question=asked, sql=plan.sql),
                   [source, sql_source])


def _told_records_begun(question: str, memories: list[Any]) -> set[str]:
    """"The MSKU box": a record of theirs named by the start of its code, written in capitals, when one record they
    told begins so (two that do leave it unsaid)."""
    told = {str(e[2]) for r in memories for e in (r.metadata or {}).get("entities", []) if e[0] != personal.OWN}
    found: set[str] = set()
    for start in re.findall(r"\b[A-Z]{3,}\b", question):
        begun = {v for v in told if v.upper().startswith(start) and v.upper() != start}
        if len(begun) == 1:
            found |= begun
    return found


def kept_sentence_answers(eng: Engine, question: str, *, user_id: str, agent_id: str) -> ChatAnswer | None:
    """The user's words quoted (words_said) when they are the sentence of a memory still kept (never a
    forgotten or corrected one), name every value the question names, and hold a day when a day is asked."""
    quoted = words_said(eng, question, user_id=user_id, agent_id=agent_id)
    if quoted is None:
        return None
    text = _words_quoted(quoted)
    kept = {(r.content or "").strip() for r in personal.valid_memories(eng, user_id, agent_id)}
    named = [lk.text for lk in assistant.knowledge(eng)[1].links(question) if lk.how in ("exact", "fuzzy", "partial")]
    if text.strip() not in kept or any(v.lower() not in text.lower() for v in named):
        return None
    if said.asks_a_time(question):
        return quoted if _A_DAY.search(text) else None
    # any other kind of value: every word of theirs the question says is in the sentence ("the booking ref for
    # the cocoa Dmitri did"; not "the bill of lading number" of a sentence that gives a box number)
    return None if document_reader._stems(question) - document_reader._stems(text) else quoted


def its_own_sentence_holds(eng: Engine, question: str, declined: ChatAnswer, *, user_id: str,
                           agent_id: str) -> ChatAnswer | None:
    """"Our drayage is Coastal Dray, they want 48 hours notice before any pickup." then "how much lead time do
    they need before a pickup?": the memory recall found and declined (its value is a name, a figure is asked)
    is the right one, and its own sentence says the figure beside what the question asks about; that sentence
    quoted, when it is a kept memory's, holds a figure the memory's value and the question do not, and shares
    a word of the question's subject. None otherwise."""
    memory = declined.decision_explain.get("memory") or {}
    text, value = str(memory.get("said") or ""), str(memory.get("value") or "")
    if not _FIGURE_ASKED.search(question) or not text or not value:
        return None
    if text.strip() not in {(r.content or "").strip() for r in personal.valid_memories(eng, user_id, agent_id)}:
        return None  # (a sentence forgotten or corrected since is not read again)
    if not _one_figure_beside_the_subject(eng, question, text, value):
        return None
    source = {**memory, "subject": f"what you said, {str(memory.get('said_at', ''))[:16]}"}
    return _answer(f"You told me on {str(memory.get('said_at', ''))[:10]}: \u201c{text}\u201d", "rag",
                   _explain("the sentence of the memory found, which holds the one figure asked beside the question's "
                            "subject", "rag", memory=source), [source])


def _one_figure_beside_the_subject(eng: Engine, question: str, text: str, value: str) -> bool:
    """The sentence, without the memory's value, holds one figure of the kind asked that the question does not
    give, a word of the question's subject, and every record the question names."""
    rest = text.replace(value, " ")
    kind = _kind_of_figure(question)
    if kind is None:
        return False
    figures = [m for m in kind.finditer(rest) if m.group(0).strip(",. ") not in question]
    if kind is _A_NUMBER and (counted := re.search(r"\bhow many\s+((?:[a-z'-]+\s+){0,2}[a-z'-]+)", question, re.I)):
        # "how many high cubes": a number of high cubes, not the "54 pallets" beside it
        wanted = document_reader._stems(counted.group(1)) - _ASKING_A_FIGURE
        figures = [m for m in figures if wanted & document_reader._stems(" ".join(rest[m.end():].split()[:3]))]
    subject = document_reader._stems(question) - document_reader._stems(value) - _ASKING_A_FIGURE - schema_words(eng)
    named = [lk.text for lk in assistant.knowledge(eng)[1].links(question) if lk.how in ("exact", "fuzzy", "partial")]
    # every name the question gives is the sentence's ("across Norcastle and Pemberton": one told is half of it)
    names = re.findall(r"(?<=[\w,;:] )[A-Z][\w&'-]+", question)
    return len(figures) == 1 and bool(subject & document_reader._stems(rest)) and \
        all(v.lower() in text.lower() for v in named + names) and not _A_TOTAL.search(question)


def _kind_of_figure(question: str) -> re.Pattern[str] | None:
    """What a figure asked looks like: a sum for a price, a span of time for notice or how long, a number
    for how many; None for "how much" of anything else (a weight, a volume: not read from a sentence)."""
    if _MONEY_ASKED.search(question):
        return document_reader.HOLDS["amount"]
    if _TIME_ASKED.search(question):
        return document_reader.HOLDS["duration"]
    return _A_NUMBER if re.search(r"\bhow many\b", question, re.I) else None


_A_NUMBER = re.compile(r"\b\d[\d,.]*\b")
# a figure added up from several ("in total", "across Norcastle and Pemberton"): no one sentence says it
_A_TOTAL = re.compile(r"\b(?:total|combined|altogether|sum|across|in all)\b", re.I)
# a question for a figure, and the words that only ask for one
_FIGURE_ASKED = re.compile(r"\bhow (?:much|many|long|far|early|soon)\b", re.I)
_MONEY_ASKED = re.compile(r"\b(?:charg\w*|cost\w*|pay\w*|price\w*|fees?|rates?|tariffs?|quot\w*)\b", re.I)
_TIME_ASKED = re.compile(r"\bhow (?:long|early|soon)\b|\b(?:notice|lead time|time|hours?|days?|weeks?)\b", re.I)
_ASKING_A_FIGURE = frozenset(document_reader._stems("how much many long far early soon time notice lead need needs want "
                                                    "wants give us we our they their them do does"))


def ship_as_theirs(eng: Engine, question: str, *, user_id: str, agent_id: str) -> str | None:
    """"and how many days from today until she's due?": "she" of a question about a ship's movement that names
    no ship is the one ship (or voyage) the user's memories hold, asked as "our ship"; None otherwise."""
    if not _SHE.search(question) or not _SHIP_MOVES.search(question):
        return None
    if any(lk.table in ("VESSELS", "VOYAGES") for lk in assistant.knowledge(eng)[1].links(question)):
        return None
    if "VESSELS" not in _one_of_each_told(eng, user_id, agent_id):
        return None  # (no ship of theirs, or several)
    return _SHE.sub(lambda m: "our ship is" if m.group(0).lower() in ("she's", "she is") else "our ship", question, count=1)


def thing_as_theirs(eng: Engine, question: str, *, user_id: str, agent_id: str) -> str | None:
    """"How many cartons of oil does it hold?" naming nothing: "it" is the one thing of theirs (a box, a voyage, a
    ship) of the table whose rows or columns the question asks about, the nearest to what it asks when they told
    a box and its ship; asked as "our container" (a question in another language is read in English first). None
    when "it" stands for something the question names, or their memories do not say which one thing it is."""
    english = other_languages.in_english(question) if router.FOREIGN_RE.search(question) else question
    schema, values = assistant.knowledge(eng)
    links = values.links(english) if english else []
    if not english or (pointer := assistant.unbound_pronoun(english, links)) is None:
        return None
    asked = {lk.table for lk in links}
    words = words_of(english)
    # the first (nearest) of their things whose columns the question names, or whose rows hold the rows it names
    fits = [t for t in _one_of_each_told(eng, user_id, agent_id) if schema.columns_named(words, [t], loose=True)
            or any(schema.is_parent_path(a, t) or schema.is_parent_path(t, a) for a in asked if a != t)]
    if not fits:
        return None
    noun = _THINGS_OF_THEIRS[fits[0]]
    said = f"our {noun}'s" if pointer.lower() in ("its", "her") else f"our {noun}"
    return re.sub(rf"\b{pointer}\b", said, english, count=1)


# the things of theirs a pronoun may stand for, the nearest to a box's goods first
_THINGS_OF_THEIRS = {"CONTAINERS": "container", "VOYAGES": "voyage", "VESSELS": "vessel"}


def _one_of_each_told(eng: Engine, user_id: str, agent_id: str) -> list[str]:
    """The tables of _THINGS_OF_THEIRS of which the user's valid memories hold exactly one value, in its order."""
    told: dict[str, set[str]] = {}
    for r in personal.valid_memories(eng, user_id, agent_id):
        for e in (r.metadata or {}).get("entities") or []:
            if e[0] in _THINGS_OF_THEIRS:
                told.setdefault(str(e[0]), set()).add(str(e[2]))
    return [t for t in _THINGS_OF_THEIRS if len(told.get(t, ())) == 1]


# "she" for a ship, and the words of a ship's movements that say the question is about one
_SHE = re.compile(r"\bshe(?:'s|\s+is)?\b", re.I)
_SHIP_MOVES = re.compile(r"\b(?:due|arriv\w*|sail\w*|leav\w*|left|depart\w*|dock\w*|berth\w*|eta|etd|reach\w*|"
                         r"get(?:s)? (?:in|there)|come(?:s)? in|at sea|under way|underway)\b", re.I)


_WORKED_OUT = re.compile(r"\bhow (?:many|much|long)\b|\b(?:total|combined|altogether|sum|average|difference|between|"
                         r"compare\w*|more|less|fewer)\b|\bwould\b[^?]*\bcost\b", re.I)


def catalog_of_their_own(eng: Engine, question: str, answered: ChatAnswer, *, user_id: str,
                         agent_id: str) -> ChatAnswer | None:
    """A catalog answer to a question about a thing of the user's named by their own name ("PTIs for all
    of the Medivax reefers", "insurance on the Ferretti furniture"): the list rows know nothing of it,
    so under a grounded badge they would answer another question. The user's own words that answer,
    else an honest fallback that names it; None when the answer is not the catalog's or names none."""
    handler = str(answered.decision_explain.get("handler", ""))
    if answered.mode == "fallback" or not handler.startswith(("grounded", "catalog")):
        return None
    named = [n for n in personal.own_names(eng, user_id=user_id, agent_id=agent_id)
             if re.search(rf"(?<![\w-]){re.escape(n.split()[0])}(?![\w-])", question, re.I)]
    if not named:
        return None
    return words_said(eng, question, user_id=user_id, agent_id=agent_id) or _answer(
        f"The catalog has list prices, but it knows nothing of {named[0]}, and what you told me does not "
        "answer this offline.", "fallback", _explain(f"a catalog answer ignores {named[0]}, a name of the user's own",
                                                      "fallback", catalog=answered.decision_explain.get("rows")), [])


def _own_thing_asked(eng: Engine, question: str) -> str | None:
    """"What's my booking number for that sailing?": the thing of theirs a question asks for, when no
    table or column of the data holds it (only they can have told it); else None."""
    phrase = personal.asked_possession(question)
    if phrase is None:
        return None
    phrase = re.split(r"\s+(?:for|of|on|in|at|again|now|to|from|with)\b", phrase)[0]  # "gross weight on it"
    schema, _ = assistant.knowledge(eng)
    words = words_of(phrase)
    if not words or any(personal.table_of_word(w) for w in phrase.split()):
        return None
    # a column whose words hold every word of it ("gross weight", "reefer temperature"), not one word of it
    # ("booking number" is no VOYAGE_NUMBER)
    held = any(set(words) <= set(c.words) for cols in schema.columns.values() for c in cols)
    return None if held else phrase


def _not_told(eng: Engine, question: str) -> ChatAnswer | None:
    """The honest fallback for a thing of the user's never told ("our boxes", "my reefers", "our tiles": a
    table, a kind of row or goods of the data); None when the question is not about one."""
    _, values = assistant.knowledge(eng)
    named = {lk.table for lk in assistant.named_records(eng, question)}
    # ("our Felixstowe warehouse": the warehouse, said with a value of the data before it)
    phrases = [m.group(1) for m in re.finditer(r"\b(?:my|our)\s+((?:(?-i:[A-Z])[\w-]*\s+)+[a-z][\w-]*)", question, re.I)]
    nouns = [n for n in personal.possessed_nouns(question) + phrases
             if (personal.table_of_word(n) or any(lk.how in ("exact", "explained", "word") for lk in values.links(n)))
             and personal.table_of_word(n) not in named]  # "our box CSQU3054383" names the box: the data's
    own = _own_thing_asked(eng, question)
    if not nouns and not own and not _TOLD.search(question):
        return None  # "which ports do we have?" is not about a remembered thing
    what = f"your {nouns[0]}" if nouns else f"your {own}" if own else "that"
    return _answer(f"You haven't told me {what}, so I have nothing of yours to answer from.", "fallback",
                   _explain("no valid memory of the user's matches the question", "fallback"), [])


def _from_memory_alone(eng: Engine, question: str, rec: personal.Recalled, beyond: str | None, said: str,
                       source: dict[str, Any]) -> ChatAnswer | None:
    """The answer when the data has nothing to add: a value of the user's own (a name, place or sum),
    or a change the data does not hold; None when the data is to be asked."""
    if rec.value and (rec.direct or rec.table == personal.OWN):
        if beyond is None and _asks_whether(question):
            # "anything I should know about the berth?": the berth they named says nothing of that
            return _answer(f"I remember what you told me ({rec.value}, {said}), but it does not tell me what you ask, "
                           "and I found nothing else that does.", "fallback",
                           _explain("a remembered value does not answer a yes-or-no question", "fallback"), [source])
        if beyond is None:
            return _value_answer(rec, said, source)
        if rec.table == personal.OWN:  # a name, place or sum of theirs: the data knows nothing more of it
            words = f": \u201c{rec.text}\u201d" if rec.quote and rec.text.strip() != rec.value else ""
            verb = "are" if " and " in rec.value else "is"
            return _answer(f"I remember your {_called(rec)} {verb} {rec.value} ({said}{words}), but you ask about {beyond}, "
                           "which that does not tell me.", "fallback",
                           _explain(f"the remembered value does not answer {beyond}", "fallback", memory=source), [])
    if not rec.value:  # a change the data does not hold: the user's own words are the answer
        if not _asks_only_value(eng, question, rec):
            return _answer(f"The latest you told me about your {_called(rec)} ({said}) names nothing in the data, so I "
                           "can't answer that offline.", "fallback", _explain("memory has no data value", "fallback",
                                                                              memory=source), [])
        return _answer(f"The latest you told me about your {_called(rec)} ({said}): \u201c{rec.text}\u201d.", "rag",
                       _explain("the remembered words", "rag", memory=source), [source])
    return None


def _sql_source(data: Any) -> dict[str, Any]:
    """A data answer's query as a source: the tables it read, its SQL and bound values, the rows shown."""
    plan = data.plan
    return {"tables": [f"{OWNER}.{t}" for t in tables_read(plan.sql)], "sql": plan.sql,
            "params": {k: str(v) for k, v in plan.params.items()}, "rows_shown": data.rows_shown,
            "shape": plan.spec.action}


def _data_answer(data: Any, question: str, data_question: str, rec: personal.Recalled, said: str,
                 source: dict[str, Any]) -> ChatAnswer:
    """The data's answer about the remembered thing, with the memory and the SQL as its sources; every
    date, duration, amount or number the question asks must be in it (else it is said to be part)."""

    plan = data.plan
    sql_source = _sql_source(data)
    text = f"{data.text}\n(For your {_called(rec)}, {rec.value}: {said}.)"
    if data.uncovered is not None:  # a part the rows do not show: said, and never under a grounded badge
        return _answer(f"I can answer only part of this offline.\n{text}\nI cannot also answer “{data.uncovered}”.",
                       "fallback", _explain(data.reason, "fallback", memory=source, data_question=data_question,
                                            sql=plan.sql, uncovered=data.uncovered), [])
    if not _each_kind_shown(other_languages.in_english(question) or question, data.text):
        # ("which ship, what arrival date, and which forwarder?" answered with the port alone)
        return _answer(f"I can answer only part of this offline.\n{text}\nThe rest of what you ask is not in these rows.",
                       "fallback", _explain("a part the question asks (a date, a duration, an amount, a number) is not "
                                            "in the data answer", "fallback", memory=source,
                                            data_question=data_question, sql=plan.sql), [])
    return _answer(text, "rag", _explain(data.reason, "rag", memory=source, data_question=data_question,
                                         sql=plan.sql, params=sql_source["params"]), [source, sql_source])


def _value_or_fallback(eng: Engine, question: str, rec: personal.Recalled, beyond: str | None, is_follow: bool,
                       said: str, source: dict[str, Any], data: Any, data_question: str) -> ChatAnswer:
    """No data answer: the remembered value when that is all the question asks (or it asks the
    earlier one), else the value with why the rest cannot be answered."""
    if beyond is None and (rec.earlier or _asks_only_value(eng, question, rec, follow_up=is_follow)):
        before = "Before the change, your" if rec.earlier else "Your"
        return _answer(f"{before} {_called(rec)} was {rec.value} ({said})." if rec.earlier
                       else f"{before} {_called(rec)} {_is(rec)} {rec.value} ({said}).", "rag",
                       _explain("the remembered value itself", "rag", memory=source), [source])
    if (both := _kinds_told_together(question, rec, said, source)) is not None:
        return both
    if (party := _for_the_party(question, rec, said, source)) is not None:
        return party
    return _answer(f"I remember your {_called(rec)} {_is(rec)} {rec.value} ({said}), but I can't answer the rest offline: "
                   f"{data.reason}.", "fallback",
                   _explain(f"memory found, data question not planned: {data.reason}", "fallback", memory=source,
                            data_question=data_question), [])


def _for_the_party(question: str, rec: personal.Recalled, said: str, source: dict[str, Any]) -> ChatAnswer | None:
    """The customer a thing of theirs is for, from the memory's words (_the_party_it_is_for), as a grounded answer."""
    if (party := _the_party_it_is_for(question, rec)) is None:
        return None
    return _answer(f"From what you told me, your {_called(rec)} {rec.value} is for {party} ({said}: \u201c{rec.text}\u201d).",
                   "rag", _explain("the one name of theirs the memory says the thing is for, a customer asked", "rag",
                                   memory=source), [source])


def _the_party_it_is_for(question: str, rec: personal.Recalled) -> str | None:
    """"Which consignee was that coffee box for?": a customer of theirs asked for (its noun right after "which",
    "what" or "who's the") of a thing of theirs, the one name in the memory's words said after "for" or "to"
    ("green coffee for Bluebird Roasters"); None otherwise, or when the question asks how things stand now (a
    later word of theirs may have changed it)."""
    asked = _PARTY_ASKED.search(question)
    if asked is None or "customer" not in own_values.roles_of(asked.group(1)) or rec.table == personal.OWN \
            or _NOW.search(question):
        return None
    names = [str(e[2]) for e in rec.entities if e[:2] == (personal.OWN, own_values.NAME)]
    for_them = [n for n in names if re.search(rf"\b(?:for|to)\s+{re.escape(n)}\b", rec.text)]
    return for_them[0] if len(names) == 1 and len(for_them) == 1 else None


_PARTY_ASKED = re.compile(r"\b(?:which|what|who(?:'s|\s+is|\s+was)?\s+(?:the|my|our))\s+([a-z]+)\b", re.I)
_NOW = re.compile(r"\b(?:now|currently|these days|at the moment|still|any ?more)\b", re.I)


def _kinds_told_together(question: str, rec: personal.Recalled, said: str, source: dict[str, Any]) -> ChatAnswer | None:
    """"Which ship and voyage did I say the tiles are on?": the values of each kind asked, from the one
    memory that named them all ("... on the MSC Tessa, voyage 874E"); None unless it holds one of each."""
    m = _WHICH_KINDS.search(question)
    if m is None or not _TOLD.search(question):
        return None
    kinds = [personal.table_of_word(w) for w in (m.group(1), m.group(2))]
    values = [[str(e[2]) for e in rec.entities if e[0] == k] for k in kinds]
    if None in kinds or any(len(v) != 1 for v in values):
        return None
    told = " and ".join(f"your {w.lower()} is {v[0]}" for w, v in zip((m.group(1), m.group(2)), values, strict=True))
    return _answer(f"From what you told me, {told} ({said}: \u201c{rec.text}\u201d).", "rag",
                   _explain("the values of each kind asked, from the one memory that names them", "rag", memory=source),
                   [source])


# "which ship and voyage", "what vessel and which sailing": two kinds of thing asked together
_WHICH_KINDS = re.compile(r"\b(?:which|what)\s+([a-z]+)\s+and\s+(?:which\s+|what\s+)?([a-z]+)\b", re.I)


# What a remembered value is, to compare with what a question asks (own_values.asked_kind).


def _in_their_place(question: str, rec: personal.Recalled) -> bool:
    """Their place named after a word of place ("at our hub", "out of my warehouse", "at our home depot") by
    a noun they called it: a place the question is about, where it asks something else."""
    nouns = {personal.stem(n) for n in (rec.noun, *rec.nouns) if n}
    return any(nouns & {personal.stem(w.lower()) for w in m.group(1).split()}
               for m in re.finditer(r"\b(?:at|in|from|to|near|into|via|around|out of)\s+(?:our|my)\s+((?:[\w-]+\s+){0,2}[\w-]+)",
                                    question, re.I))


def _value_kind(rec: personal.Recalled) -> str | None:
    """NAME, PLACE or MONEY for a value of those kinds (a carrier is a company's name); None for a
    thing of the data (a container, a voyage, a vessel)."""
    if _is_place(rec) or (rec.table, rec.column) == (personal.OWN, own_values.NAME) and \
            "place" in own_values.roles_of(rec.noun or ""):
        return own_values.PLACE  # ("our Southampton office": the office's name says where it is)
    if rec.table == personal.OWN:
        return rec.column
    return own_values.NAME if (rec.table, rec.column) == ("CARRIERS", "CARRIER_NAME") else None


# rows of the data a question about a thing of theirs is asked of (the plan checks what else it names)
_ROWS_ASKED_OF = ("CONTAINERS", "VOYAGES")


def _other_value_named(eng: Engine, question: str, rec: personal.Recalled) -> str | None:
    """A value of the remembered value's own kind that the question names instead ("who handles Hong
    Kong?" when what was said is about Kaohsiung): the memory is about something else."""
    _, values = assistant.knowledge(eng)
    found, _ = personal.data_links(question, values.links(question))
    said: dict[str, set[str]] = {}  # subject -> the values the memory names of it
    for table, column, value in (*rec.entities, (rec.table, rec.column, rec.value)):
        said.setdefault(personal.subject_of(table, column), set()).add(value.lower())
    named = {str(lk.value).lower() for lk in found}
    for lk in found:
        if rec.table in _ROWS_ASKED_OF and lk.table != rec.table:
            continue  # ("when does our reefer get to New York?" of a box told "ex Valencia": the data says if it does)
        mine = said.get(personal.subject_of(lk.table, lk.column))
        if mine and mine & named:
            continue  # ("leaves Santos for Kaohsiung" of their cargo ready at Santos: theirs is named too)
        # a value of the memory it corrected is what the correction is about ("our Felixstowe imports")
        if mine and str(lk.value).lower() not in mine and lk.text.lower() not in rec.corrected.lower():
            return str(lk.value)
    return None


def _unknown_thing(question: str, rec: personal.Recalled) -> str | None:
    """A thing of the user's the question asks about ("my bill of lading") that is neither the
    remembered thing, a table of the data, nor what the memory calls it: its words, else None."""
    known = {personal.stem(w) for w in (rec.noun, *rec.nouns, *rec.roles)}
    known |= {personal.stem(n) for role in rec.roles for n in own_values.ROLES.get(role, ())}
    phrase = personal.asked_possession(_asked_part(question))
    if phrase is None:
        return None
    words = [w.lower().removesuffix("'s") for w in re.findall(r"[A-Za-z][\w'-]*", phrase)]
    return None if any(personal.table_of_word(w) or personal.stem(w) in known for w in words) else phrase


def _words_hold(kind: str, words: str, said_text: str = "", question: str = "") -> bool:
    """The user's words hold a value of the kind asked: a number for a sum, a reference for a code; for a
    name or a place, a word written with a capital that the question does not have ("customer is Fjordvik
    Marine")."""
    if kind == own_values.MONEY:
        return bool(own_values.NUMBER_RE.search(words))
    if kind == own_values.NAME:  # "our broker in New York" names a place, not the broker
        return bool(words.strip()) and any(v.kind == own_values.NAME and personal.name_in(question, v.value) is None
                                           for v in own_values.find(said_text, [], places=set()))
    asked = {w.lower() for w in re.findall(r"[\w'-]+", question)}
    # a number or reference asked of their thing: one the question does not say ("MSCU1234567"); ("who is our
    # forwarder, and what is Maersk's SCAC code?": the code is asked of the data)
    if kind == own_values.CODE and len(assistant.asked_clauses(question)) < 2:
        return bool(words.strip()) and any(c.lower() not in asked for c in own_values.CODE_RE.findall(said_text))
    names = [w for w in re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]+", said_text) if w.lower() not in asked]
    return bool(words.strip()) and bool(names)


def _names_left_out(eng: Engine, question: str, told: str) -> bool:
    """The question names a name of theirs the words told never say ("... across Norcastle and
    Pemberton" answered by the sentence about Norcastle alone): those words answer half of it."""
    _, values = assistant.knowledge(eng)
    taken = [(lk.start, lk.end) for lk in values.links(question) if lk.how != "word"]
    # (a capital that only starts the sentence is no name: "Rappelle-moi : ...")
    names = [v.value for v in own_values.find(question, taken, places=set())
             if v.kind == own_values.NAME and question[:v.start].strip()]
    return any(n.lower() not in told.lower() for n in names)


_WHICH_OF = re.compile(r"\b(?:which|what|whcih|wihch|wich|wat)\s+(?:of\s+(?:my|our|the|those|these)\s+(?:\w+\s+)?)?([a-z]+)", re.I)


def _by_their_people(eng: Engine, question: str, user_id: str, agent_id: str,
                     thread_id: str | None) -> ChatAnswer | None:
    """"Which of my two customers has the heavier box?": their things of the table the question names, each
    told with a name of theirs, compared as things ("which of my two boxes ..."); the answer says whose each
    is. None unless at least two such things were told and the comparison is grounded."""
    role = _role_asked_which(question)
    tables = [(w, t) for w, t in personal.question_nouns(question) if t]
    if role is None or not tables:
        return None
    noun, table = tables[0]
    whose = {str(v): str(name) for r in personal.valid_memories(eng, user_id, agent_id)
             for name in personal.told_values([r], personal.OWN, own_values.NAME)[:1]
             for v in personal.told_values([r], table)}
    if len(whose) < 2:
        return None
    plural = noun if noun.endswith("s") else f"{noun}es" if noun.endswith("x") else f"{noun}s"
    # "those two customers' boxes" -> "those two boxes"; "my two customers has the heavier box" -> "my two boxes ..."
    asked = re.sub(rf"\b{re.escape(role)}(?:['’]s?)?(?:\s+(?={re.escape(noun)}\b)|\b)",
                   lambda m: "" if m.group(0).endswith(" ") else plural, question, count=1, flags=re.I)
    found = recall_answer(eng, asked, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
    if found is None or found.mode != "rag":
        return None
    return dataclasses.replace(found, answer=_with_whose(found.answer, whose))


def _with_whose(text: str, whose: dict[str, str]) -> str:
    """Each value said with whose it is, where the answer first gives it past a heading line ("The first
    container A or B:"), not in the note of what they told."""
    lines = text.split("\n")
    start = 1 if len(lines) > 1 and lines[0].endswith(":") else 0
    for value, name in whose.items():
        for i in [i for i in range(start, len(lines)) if not lines[i].startswith("(")]:  # (not the note of theirs)
            m = re.search(rf"\({re.escape(value)}\)|\b{re.escape(value)}\b", lines[i])
            if m is None:
                continue
            said = f"({value}, {name})" if m.group(0).startswith("(") else f"{value} ({name})"
            lines[i] = lines[i][:m.start()] + said + lines[i][m.end():]
            break
    return "\n".join(lines)


def _role_asked_which(question: str) -> str | None:
    """"Which of my two customers has the 20' box?": the question asks which of the user's people (a
    customer, not a row of the data)."""
    m = _WHICH_OF.search(question)
    if m is None or personal.table_of_word(m.group(1)) is not None:
        return None
    return m.group(1) if own_values.roles_of(m.group(1)) - {"place", "rate"} else None


def _about_another_thing(eng: Engine, question: str, rec: personal.Recalled, said: str,
                         source: dict[str, Any]) -> ChatAnswer | None:
    """A fallback when the question is about a thing of theirs never told, names another value of the
    same kind, or asks which of their people ("which of my customers ...") of a row of the data."""
    unknown = _unknown_thing(question, rec)
    if unknown:
        return _answer(f"You haven't told me your {unknown}, so I have nothing of yours to answer from.", "fallback",
                       _explain(f"the question asks about the user's {unknown}; the memory found is about their "
                                f"{_called(rec)}", "fallback", memory=source), [])
    other = _other_value_named(eng, question, rec) if rec.value else None
    if other is not None:
        return _answer(f"You haven't told me that about {other}: what you told me ({said}) is about something "
                       "else.", "fallback",
                       _explain(f"the question names {other}; the memory found does not", "fallback", memory=source), [])
    if (role := _role_asked_which(question)) is not None and rec.table != personal.OWN:
        return _for_the_party(question, rec, said, source) or _not_that_role(rec, role, said, source)
    return None


def _not_that_role(rec: personal.Recalled, role: str, said: str, source: dict[str, Any]) -> ChatAnswer:
    return _answer(f"I remember your {_called(rec)} ({rec.value}, {said}), but you ask which {role}, and that does "
                   "not tell me.", "fallback",
                   _explain(f"the question asks which {role}; the memory found is a {_called(rec)}", "fallback",
                            memory=source), [])


def _may_answer(question: str, rec: personal.Recalled, asked: str) -> bool:
    """The remembered value, not named by the question, is of the kind asked, a thing of the data (the data
    says where or when it goes), or a place of theirs the question is about ("available at our hub")."""
    if personal.name_in(question, rec.value) is not None:  # ("for Ridgeway" names Ridgeway Mining)
        return False
    kind = _value_kind(rec)
    # ("how many free days do we get?" of "we get 7 free days": a figure of theirs is a number asked)
    return kind in (None, asked) or (kind == own_values.PLACE and _in_their_place(question, rec)) or \
        (kind == own_values.FIGURE and asked == own_values.MONEY and not _a_share_of_a_price(question, rec))


def _a_share_of_a_price(question: str, rec: personal.Recalled) -> bool:
    """"How much would I charge my client for drayage?" of "I charge my clients 12% on top of the catalog": a
    share they told is what a price asked is worked out with, not the price."""
    share = "%" in rec.value or any(w in rec.value.lower() for w in ("cent", "prozent"))
    return share and _MONEY_ASKED.search(other_languages.in_english(question) or question) is not None


def _not_what_is_asked(eng: Engine, question: str, rec: personal.Recalled, said: str,
                       source: dict[str, Any]) -> ChatAnswer | None:
    """Verification before the badge: the remembered value must be what the question asks for.
    The question names another value of the same kind: an honest fallback. It asks a name, place
    or sum the value is not, or the value is one the question itself names ("who does our trucking
    in Rotterdam?" remembered as Rotterdam): the user's own words when they say more than the
    question, else a fallback. None when the value may answer."""
    another = _about_another_thing(eng, question, rec, said, source)
    if another is not None:
        return another
    asked = _kind_asked(question)
    if not rec.value or not asked or any(t for _, t in personal.question_nouns(question)) and not rec.direct:
        return None
    if _may_answer(question, rec, asked):
        return None
    rest = personal.content_words(rec.text) - personal.content_words(question) - personal.content_words(rec.value)
    if rec.quote and not rec.earlier and _words_hold(asked, " ".join(sorted(rest)), rec.text, question) \
            and not _names_left_out(eng, question, rec.text):
        return _answer(f"{said[0].upper()}{said[1:]}: \u201c{rec.text}\u201d", "rag",
                       _explain(f"the question asks a {asked.lower()}; the remembered words hold it, not the value "
                                f"{rec.value}", "rag", memory=source), [source])
    return _answer(f"You haven't told me that: what I remember ({said}) is your {_called(rec)}, {rec.value}, which does "
                   f"not answer it.", "fallback",
                   _explain(f"the question asks a {asked.lower()}; the remembered value {rec.value} is not one",
                            "fallback", memory=source), [])


def _asked_in_english(question: str) -> str | None:
    """The question read in English, or its asking sentences when the rest has words no reading knows
    ("Wie hieß nochmal unser Spediteur? Ich muss ihm die neue Buchung schicken.")."""
    asking = " ".join(s for s in personal.sentences(question) if s.rstrip().endswith("?"))
    return other_languages.in_english(question) or (other_languages.in_english(asking) if asking else None)


# a question that asks to be reminded of what was told ("again", "remind me", "what was the name of")
_REMINDED = re.compile(r"\bagain\b|\bremind me\b|\bdo you remember\b|\bwhat was the name of\b", re.I)


def recall_answer(eng: Engine, question: str, *, user_id: str, agent_id: str,
                  thread_id: str | None = None) -> ChatAnswer | None:
    """The answer from the user's memory (with the data), their own earlier statement when no kept
    memory matches (said.py), an honest 'not told' fallback, or None (not about theirs). An answer
    that shows no date, amount or number for a part that asks one is only part of one: not grounded."""
    answered = _now_and_before(eng, question, user_id, agent_id, thread_id) or \
        _recall(eng, question, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
    if router.FOREIGN_RE.search(question) is not None:
        answered = _in_another_language(eng, question, answered, user_id, agent_id, thread_id)
    if answered is not None and answered.mode == "rag" and (half := _one_value_for_two(question, answered)) is not None:
        return half
    if answered is None or answered.mode != "rag" or _each_kind_shown(question, answered.answer):
        return answered
    return dataclasses.replace(
        answered, answer=f"I can answer only part of this from what you told me.\n{answered.answer}", mode="fallback",
        decision_explain={**answered.decision_explain, "mode": "fallback",
                          "reason": "a part asks for a date, an amount or a number the answer does not show"})


def _in_another_language(eng: Engine, question: str, answered: ChatAnswer | None, user_id: str, agent_id: str,
                         thread_id: str | None) -> ChatAnswer | None:
    """A question in French, Spanish or German: no query from the few English-looking words of one no
    reading covers; asked again in English when it was not answered as written."""
    english = _asked_in_english(question)
    if english is None and answered is not None and "sql" in answered.decision_explain:
        # a query planned from the few English-looking words of a question no reading knows ("y a-t-il un
        # changement d'horaires ... dans le port d'arrivée de notre voyage?" is not "which port")
        return dataclasses.replace(answered, answer="I could not read all of that question, so I will not answer "
                                   "it from the data; asking it in English helps.", mode="fallback", used_chunks=[],
                                   decision_explain={**answered.decision_explain, "mode": "fallback",
                                                     "reason": "a query from a question no reading covers"})
    if (answered is None or answered.mode == "fallback") and english is not None:
        again = _recall(eng, english, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
        # "¿el barco de Maison Lavande, qué transportista?", read in English: a data answer, whose query used
        # every word; a value recalled alone may rest on a nuance the word-by-word reading lost ("ahora")
        # ("Wie hieß nochmal unser Spediteur?": a request to be reminded of a value told is read well enough)
        # (the data's days of their voyages compared are a data answer too)
        if again is not None and again.mode == "rag" and ("sql" in again.decision_explain or _REMINDED.search(english)
                                                          or again.decision_explain.get("data_days")
                                                          or _says_what_it_names(eng, question, again)):
            return dataclasses.replace(again, answer=f"Reading it as \u201c{english}\u201d: {again.answer}",
                                       decision_explain={**again.decision_explain, "read_in_english": english})
    return answered


def _says_what_it_names(eng: Engine, question: str, answered: ChatAnswer) -> bool:
    """"Und unsere Kundennummer bei CMA CGM?": the question names records of the data, and the memory read
    for it (quoted in the answer) says every one of them: the reading cannot have lost which one is meant."""
    named = {lk.text for lk in assistant.named_records(eng, question)}
    return bool(named) and all(n.lower() in answered.answer.lower() for n in named)


_PRONOUN_ASKED = re.compile(r"(?:^|[.!?;]\s+)(?:and\s+)?(?:what|which)(?:'s|\s+is|\s+are|\s+were)\s+(?:they|it|those|these)"
                            r"(?=\s*[,?]|\s+and\b)", re.I)


def _now_and_before(eng: Engine, question: str, user_id: str, agent_id: str, thread_id: str | None) -> ChatAnswer | None:
    """"Which office handles our bookings now, and which one did we start with?": two parts, one asking the
    value before the changes; the other part answered from a memory that kept the values it replaced, the
    first of which answers the part about the start. None otherwise."""
    now = _the_part_about_now(question)
    answered = _recall(eng, now, user_id=user_id, agent_id=agent_id, thread_id=thread_id) if now else None
    if answered is None or answered.mode != "rag" or answered.decision_explain.get("reason") != "the remembered value itself":
        return None
    memory = answered.decision_explain.get("memory") or {}
    rec = next((r for r in personal.valid_memories(eng, user_id, agent_id) if r.id == memory.get("memory_id")), None)
    earlier = (rec.metadata or {}).get("earlier") if rec is not None and not memory.get("earlier_value") else None
    if rec is None or not earlier:
        return None
    first = earlier[0]
    source = {"record_id": rec.id, "memory_id": rec.id, "said_at": str(first.get("said_at", "")),
              "said": str(first.get("text", ""))[:300], "subject": "what it was before the changes"}
    return dataclasses.replace(
        answered, answer=f"{answered.answer}\nThe first you told me was {first['value']} "
                         f"(you told me on {str(first.get('said_at', ''))[:10]}: \u201c{first.get('text', '')}\u201d).",
        used_chunks=[*answered.used_chunks, source],
        decision_explain={**answered.decision_explain, "reason": "the remembered value and the first it replaced"})


def _the_part_about_now(question: str) -> str | None:
    """Of a question in two parts, one asking the value before the changes, the other part (as a question)."""
    parts = [p for p in _PARTS.split(question) if p and p.strip(" ?")]
    if len(parts) != 2 or sum(_asks_past(p) for p in parts) != 1:
        return None
    now = next(p for p in parts if not _asks_past(p))
    return now if now.rstrip().endswith("?") else f"{now.rstrip()}?"


def _one_value_for_two(question: str, answered: ChatAnswer) -> ChatAnswer | None:
    """"Which carrier did I name first, and which one is it now?": one remembered value answers one of two
    questions; said as part of an answer, never under a grounded badge. None when the question asks one."""
    # two questions joined by "and" or put one after the other; the value said with their words may hold both
    parts = [p for p in _PARTS.split(question) if p and p.strip(" ?") and not _WHEN_TOLD.match(p)
             and (p.rstrip().endswith("?") or _WH.match(p.strip()))]  # ("... Need it for the form." asks nothing)
    # (their words quoted may hold both; not what a part asks with a pronoun alone: "What are they, and ...?"
    # asks for the things named before it, which no one value is)
    pointed = _PRONOUN_ASKED.search(question)
    if pointed is not None and not any(pointed.group(0).strip(" .,") in p for p in parts):
        parts = [pointed.group(0).strip(" .,"), *parts]
    if answered.decision_explain.get("reason") != "the remembered value itself" or len(parts) < 2 \
            or ("\u201c" in answered.answer and pointed is None):
        return None
    return _only_part(answered, f"I can answer only part of this from what you told me.\n{answered.answer}\nI cannot "
                                f"also answer \u201c{parts[-1].strip()}\u201d.",
                      "one remembered value for a question that asks two things")


def _only_part(answered: ChatAnswer, text: str, reason: str) -> ChatAnswer:
    """An answer to one part of a question said as that: a fallback, with no source for the part missing."""
    return dataclasses.replace(answered, mode="fallback", used_chunks=[], answer=text,
                               decision_explain={**answered.decision_explain, "mode": "fallback", "reason": reason})


# the kinds of answer a part can be checked for in any answer's text
_SHOWN_KINDS = ("date", "duration", "amount", "number")


_A_SPAN_OF_TIME = re.compile(r"\bhow many\s+(?:\w+\s+)?(?:days|weeks|hours|months|years)\b|"
                             r"\bhow long\b(?=.*\b(?:stay|stayed|take|took|last|lasted|wait|before|after|since|until)\b)",
                             re.I)


def _each_kind_shown(question: str, answer: str) -> bool:
    """Every part of the question that asks for a date, a duration, an amount or a number ("where's it
    going and when does it get there?") has one in the answer."""
    parts = document_reader.asking_parts(question)
    if len(parts) < 2:
        # ("how many days did we stay with the first one?" is not answered by the day of the switch)
        # ("how long is that ship?" asks a length, not a time)
        return len(parts) != 1 or document_reader.asked_kind(parts[0]) != "duration" or \
            not _A_SPAN_OF_TIME.search(parts[0]) or document_reader.HOLDS["duration"].search(answer) is not None
    # (two parts that ask an amount each need two amounts: "what insured value did I give you, and what
    # did the premium come to?" is not answered by the value alone)
    kinds = Counter(k for p in parts if (k := document_reader.asked_kind(p)) in _SHOWN_KINDS)
    return all(len({m.group(0) for m in document_reader.HOLDS[k].finditer(answer)}) >= n for k, n in kinds.items())


# "what do you remember about me?", "what do you have on file for us?", "what have I told you so far?"
_ALL_ABOUT_THEM = re.compile(r"\bwhat\s+(?:do|did|have)\s+you\s+(?:got\s+)?(?:remember(?:ed)?|know|kept|stored|saved|have|got|"
                             r"keep|store|noted)\b(?:\s+(?:on\s+file|stored|saved|noted))?\s+(?:about|on|of|for)\s+(?:me|us)\b|"
                             r"\bwhat(?:'s|\s+is)\s+(?:on\s+file|stored|saved|kept)\s+(?:about|for|on)\s+(?:me|us)\b|"
                             r"\bwhat\s+(?:have|did)\s+(?:i|we)\s+(?:told|tell)\s+you(?:\s+so\s+far|\s+until\s+now|\s+before)?\W*$",
                             re.I)
_KEPT_SHOWN = 12  # the newest memories listed; more are only counted


def _everything_told(eng: Engine, question: str, user_id: str, agent_id: str) -> ChatAnswer | None:
    """"What do you have on file about me?": every valid memory of the user's own (never another user's, never
    a forgotten or superseded one), newest last, with when each was said; None for any other question."""
    if not _ALL_ABOUT_THEM.search(question):
        return None
    kept = personal.valid_memories(eng, user_id, agent_id)
    if not kept:
        return _answer("You haven't told me anything I keep about you or your work.", "fallback",
                       _explain("the user has no valid memory", "fallback"), [])
    shown = kept[-_KEPT_SHOWN:]
    lines = [f"- \u201c{r.content}\u201d (you told me on {str((r.metadata or {}).get('said_at') or r.created_at)[:10]})"
             for r in shown]
    more = f"\n(and {len(kept) - len(shown)} older ones)" if len(kept) > len(shown) else ""
    used = [{"record_id": r.id, "memory_id": r.id, "subject": "what you told me",
             "said_at": str((r.metadata or {}).get("said_at") or ""), "said": (r.content or "")[:300]} for r in shown]
    return _answer("This is what I keep from what you told me:\n" + "\n".join(lines) + more, "rag",
                   _explain("every valid memory of the user's", "rag"), used)


def _recall(eng: Engine, question: str, *, user_id: str, agent_id: str,
            thread_id: str | None = None) -> ChatAnswer | None:
    return _others_memory(question) or _everything_told(eng, question, user_id, agent_id) or \
        _reference_by_its_noun(eng, question, user_id, agent_id) or \
        _worked_out(eng, question, user_id, agent_id, thread_id) or \
        _from_one_memory(eng, question, user_id, agent_id, thread_id)


def _reference_by_its_noun(eng: Engine, question: str, user_id: str, agent_id: str) -> ChatAnswer | None:
    """"What's our job ref on the Halden shipment?": the reference their newest words put right after that noun
    ("our job ref for Halden is LDS-44817"), whichever memory the rest of the question would pick."""
    if _kind_asked(question) != own_values.CODE or len(document_reader.asking_parts(question)) > 1:
        return None
    _, values = assistant.knowledge(eng)
    # (rows named by their name or code; a kind of box, "the rolled reefer", names no one row)
    named = {str(lk.value).lower() for lk in values.links(question) if (lk.table, lk.column) in {*NAME_COLUMNS, *CODE_COLUMNS}}
    for m in reversed(personal.valid_memories(eng, user_id, agent_id)):  # newest first
        meta = m.metadata or {}
        if not named <= {str(e[2]).lower() for e in meta.get("entities") or []}:
            continue  # ("our Evergreen booking number" of a memory of their ONE booking: not that one)
        rec = personal.with_memory_words(personal.Recalled(m.id, m.content or "", str(meta.get("said_at", "")), "", "", "",
                                                           "reference"), m)
        if (found := _code_said_after_the_noun(question, rec)) is not None:
            if _another_of_its_shape(eng, found, user_id, agent_id):
                return None  # ("which booking reference did I give you most recently?": the order told decides)
            return _value_answer(found, _told_when(found), _memory_source(found))
    return None


def _another_of_its_shape(eng: Engine, found: personal.Recalled, user_id: str, agent_id: str) -> bool:
    """Another memory of theirs holds a reference written the same way (QX-4410 and QX-4452)."""
    def shape(code: str) -> str:
        return re.sub(r"\d", "9", re.sub(r"[A-Za-z]", "A", code))
    return any(str(v) != found.value and shape(str(v)) == shape(found.value)
               for m in personal.valid_memories(eng, user_id, agent_id)
               for t, c, v in (m.metadata or {}).get("entities") or [] if (t, c) == (personal.OWN, own_values.CODE))


def _worked_out(eng: Engine, question: str, user_id: str, agent_id: str, thread_id: str | None) -> ChatAnswer | None:
    """What is worked out from several things told: a deadline against the data's day, each part of a
    question from its own memory, days between the days told, the things of several customers compared."""
    if (made := deadline.answer(eng, question, user_id=user_id, agent_id=agent_id, thread_id=thread_id,
                                ask=lambda part: _part_of_theirs(eng, part, user_id, agent_id, thread_id))) is not None:
        return made  # "does that beat the deadline?": the data's day against the one they told
    return _each_part_recalled(eng, question, user_id, agent_id, thread_id) or \
        _from_timeline(eng, question, user_id, agent_id) or _by_their_people(eng, question, user_id, agent_id, thread_id)


def _from_one_memory(eng: Engine, question: str, user_id: str, agent_id: str,
                     thread_id: str | None) -> ChatAnswer | None:
    """The answer from the one memory the question refers to (or the thread's last one), with the data."""
    pointing = _FOLLOW_UP.search(question) or _ITS.match(question.strip())
    follow = _previous_memory(eng, thread_id, user_id, agent_id) if pointing else None
    # "who booked the cocoa again?": asking to be reminded is about what the user told, "my" or not
    if not (personal.refers_to_own(question) or _ABOUT_THE_TELLING.search(question)) and follow is None:
        return _named_not_possessed(eng, question, user_id, agent_id)
    changed = _when_changed(eng, question, user_id, agent_id)
    if changed is not None:
        return changed
    rec, is_follow = _recalled(eng, question, user_id, agent_id, follow)
    if rec is not None and (other := _a_row_not_told_or_by_name(eng, question, rec, is_follow, user_id, agent_id)):
        return other
    if rec is None:  # about their own things ("our Durban warehouse"): their own words, when some answer; else the
        # thing a name of theirs says ("what ship did I say Alpine Fresh's apples are on?": the data's, through it)
        if (said := _said_answer(eng, question, user_id, agent_id, anyway=True, newest=True)) is not None:
            return said
        named = personal.by_their_name(eng, question, user_id=user_id, agent_id=agent_id)
        if named and (by_name := _by_their_name(eng, question, named, user_id, agent_id)).mode != "fallback":
            return by_name
        return _not_told(eng, question)
    found = _from_recalled(eng, question, rec, is_follow, user_id, agent_id)
    if found.mode != "fallback" or (quoted := _said_answer(eng, question, user_id, agent_id, newest=True)) is None:
        return found
    # "which customer did I mention ...": the memory found does not answer it; what they said does. The
    # thread still follows the memory's subject ("and when did it leave?")
    quoted.decision_explain["memory"] = {**_memory_of(quoted.decision_explain), "column": f"{rec.table}.{rec.column}"}
    return quoted


def _a_row_not_told_or_by_name(eng: Engine, question: str, rec: personal.Recalled, is_follow: bool, user_id: str,
                               agent_id: str) -> ChatAnswer | None:
    """The honest fallback for a row of their name never told; else, not following up, the thing a name of theirs
    says more closely than the memory recalled."""
    return _a_row_of_their_name_not_told(eng, question, rec, user_id, agent_id) or \
        (None if is_follow else _by_a_name_instead(eng, question, rec, user_id, agent_id))


def _by_a_name_instead(eng: Engine, question: str, rec: personal.Recalled, user_id: str,
                       agent_id: str) -> ChatAnswer | None:
    """"Baobab Foods is asking which ship their box is on - can you tell me?": a name of theirs says which
    of their things, more closely than "my box" (the newest) would; None when it picks the same memory."""
    named = personal.by_their_name(eng, question, user_id=user_id, agent_id=agent_id)
    if named is None or named[0].memory_id == rec.memory_id:
        return None
    return _from_recalled(eng, named[1], named[0], False, user_id, agent_id)


# a place said by who is there: "the city where Ji-woo sits", "the port that Dana works from"
_PLACE_OF_SOMEONE = re.compile(r"\b(?:port|city|town|place|office|country)\s+(?:where|that|which|in which)\s+(?-i:[A-Z])", re.I)


def _by_their_name(eng: Engine, question: str, named: tuple[personal.Recalled, str], user_id: str,
                   agent_id: str) -> ChatAnswer:
    """The thing of theirs a name of theirs says (its reference when one is asked by its noun); "which container is
    Penrose's?" when only their carrier was told: the honest fallback."""
    rec = _the_code_asked(question, _kind_asked(question), named[0]) or named[0]
    return _a_row_of_their_name_not_told(eng, question, rec, user_id, agent_id) or \
        _from_recalled(eng, named[1], rec, False, user_id, agent_id)


def _named_not_possessed(eng: Engine, question: str, user_id: str, agent_id: str) -> ChatAnswer | None:
    """A question that says no "my" or "our": a thing of theirs by their name for it ("Lanka Fresh's
    box"), the several of one kind they told ("the two boxes"), or a kind of value they keep; else None."""
    if _PLACE_OF_SOMEONE.search(question) and (
            place := personal.kind_of_named(eng, question, user_id=user_id, agent_id=agent_id)) is not None:
        return _from_recalled(eng, question, place, False, user_id, agent_id)  # "the city where Ji-woo sits"
    named = personal.by_their_name(eng, question, user_id=user_id, agent_id=agent_id)
    if named:
        return _by_their_name(eng, question, named, user_id, agent_id)
    if (several := personal.several_told(eng, question, user_id=user_id, agent_id=agent_id)) is not None:
        return _from_recalled(eng, question, several, False, user_id, agent_id)
    held = personal.kind_of_named(eng, question, user_id=user_id, agent_id=agent_id) \
        or personal.pointed_at(eng, question, user_id=user_id, agent_id=agent_id)
    if held:
        return _from_recalled(eng, question, held, False, user_id, agent_id)
    # "what's Hanil's current delivery deadline?": a name of theirs asked about, in their newest words on it that
    # share a word with the question besides the name, and give a time as a date ("yesterday" says when it was said)
    said_name = next((w for n in personal.own_names(eng, user_id=user_id, agent_id=agent_id)
                      if (w := personal.name_in(question, n))), None)
    if said_name is None:
        return None
    quoted = _said_answer(eng, question, user_id, agent_id, anyway=True, newest=True, of_a_party=True,
                          min_shared=len(said_name.split()) + 1)
    words = _words_quoted(quoted) if quoted is not None else ""  # (their words, not when they said them)
    if quoted is not None and document_reader.asked_kind(question) == "date" and not _A_DAY.search(words):
        return None
    return quoted


# a day said as one: a month's name or a date in digits
_A_DAY = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}\b",
                    re.I)


def _each_part_recalled(eng: Engine, question: str, user_id: str, agent_id: str,
                        thread_id: str | None) -> ChatAnswer | None:
    """"Which office did I say I'm at, and who's my big account?": two questions about theirs, each
    answered from their memory on its own; None unless every part is."""
    parts = document_reader.asking_parts(question)
    if len(parts) < 2 or not personal.refers_to_own(question):
        return None
    answers = _parts_recalled(eng, parts, user_id, agent_id, thread_id)
    if not all(a is not None and a.mode == "rag" and not _no_party_for_who(eng, p, a) for p, a in zip(parts, answers, strict=True)):
        return None
    done = [a for a in answers if a is not None]
    used = [u for a in done for u in a.used_chunks]
    return _answer("\n".join(a.answer for a in done), "rag",
                   _explain("each part from the memory that answers it", "rag",
                            memory=[a.decision_explain.get("memory") for a in done], parts=len(done)), used)


_WHICH_ONE = re.compile(r"\b(which|what)\s+one\b", re.I)


def _no_party_for_who(eng: Engine, part: str, answered: ChatAnswer) -> bool:
    """A part asking who, answered by rows of the data that name no party ("who should the terminal call?"
    answered with the voyages into their port)."""
    sql = str(answered.decision_explain.get("sql") or "")
    if document_reader.asked_kind(part) not in ("person", "party") or not sql:
        return False
    return not set(tables_read(sql)) & planner.party_tables(assistant.knowledge(eng)[0])


def _parts_recalled(eng: Engine, parts: list[str], user_id: str, agent_id: str,
                    thread_id: str | None) -> list[ChatAnswer | None]:
    """Each part from the memory that answers it; a part pointing back at the value the part before
    recalled ("... And which alliance are they in?") asked of that value."""
    answers: list[ChatAnswer | None] = []
    for i, part in enumerate(parts):
        # "which carrier did I first mention, and which one are we on now?": "one" is the noun of the part before
        nouns = [w for w, table in personal.question_nouns(parts[i - 1]) if table] if i else []
        part = _WHICH_ONE.sub(rf"\1 {nouns[0]}", part, count=1) if nouns else part
        a = recall_answer(eng, part, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
        before = answers[-1] if answers else None
        if a is None and before is not None and before.mode == "rag":
            a = _of_the_one_recalled(eng, part, before, (user_id, agent_id))
        answers.append(a)
    return answers


def _of_the_one_recalled(eng: Engine, part: str, before: ChatAnswer, owner: tuple[str, str]) -> ChatAnswer | None:
    """A later part that points back ("which alliance are they in?") at the one value of the data the
    part before recalled: asked of that value (of the box or voyage the same memory tells, for a port: "which
    ship is that?" of "their boxes load at Qingdao on 289E"), answered from the data; None otherwise."""
    memory = _memory_of(before.decision_explain)
    column, value = str(memory.get("column") or ""), str(memory.get("value") or "")
    if not _POINTING.search(part) or not value or column.startswith(f"{personal.OWN}.") or "." not in column:
        return None
    if column.startswith("PORTS."):
        value = _record_told_with(eng, str(memory.get("record_id") or ""), owner) or value
    asked = _POINTING.sub(value, part, count=1)
    found = answer_question(eng, asked)
    return found if found.mode == "rag" and (found.route or {}).get("label") == router.LIVE else None


# a word pointing back at what the part before found ("which ship is that?"; not "that ship", which names its own)
_POINTING = re.compile(r"\b(?:it|its|she|her|he|him|they|them|their|that|this)\b"
                       r"(?!\s+(?:one|ship|vessel|voyage|sailing|box|container|port|carrier|line)s?\b)", re.I)


def _record_told_with(eng: Engine, memory_id: str, owner: tuple[str, str]) -> str | None:
    """The one box or voyage a memory tells beside its port, written as a question names it ("voyage 289E")."""
    memory = next((r for r in personal.valid_memories(eng, *owner) if r.id == memory_id), None)
    records = [(t, v) for t, _, v in (memory.metadata or {}).get("entities", []) if t in ("CONTAINERS", "VOYAGES")] \
        if memory is not None else []
    if len(records) != 1:
        return None
    table, value = records[0]
    return f"{personal.TABLE_NOUNS_BY_TABLE.get(table, table.lower())} {value}"


# where one question of a turn ends and the next begins ("..., and from what date ...", "? And who ...")
# (a yes or no joined on is a question too: "..., and is there any notice there?")
_PARTS = re.compile(r"(?:,\s*|\s+)(?:and|plus|also)\s+(?=(?:\w+\s+)?(?:what|which|who|when|where|how)\b|"
                    r"(?:is|are|was|were|do|does|did|can|will|has|have)\s+(?:there|it|they|this|that|any)\b)|\?\s+", re.I)


def with_their_parts(eng: Engine, question: str, answered: ChatAnswer, *, user_id: str, agent_id: str,
                     thread_id: str | None = None) -> ChatAnswer:
    """"Remind me who our haulier is, and from what date they need a slot at the port?": a grounded
    answer to one part leaves the other out; each part that their memory (a part about theirs) or a
    handler (any other part) grounds, and the answer does not already hold, is added after it."""
    parts = _parts_left(question, answered)
    if answered.mode not in ("rag", "hybrid") or len(parts) < 2:
        return answered
    asked = _asked_alone(eng, parts)
    answers = {part: _part_answered(eng, part, user_id, agent_id, thread_id) for part in asked}
    if (untold := _part_of_theirs_untold(eng, answers, answered)) is not None:
        return untold
    added = _not_said_yet([f for f in answers.values() if f], answered.answer)
    if not added:
        return answered
    return dataclasses.replace(answered, answer="\n".join([answered.answer] + [a.answer for a, _ in added]),
                               used_chunks=list(answered.used_chunks) + [u for a, _ in added for u in a.used_chunks])


def _parts_left(question: str, answered: ChatAnswer) -> list[str]:
    """The parts of a question, but those a deadline answer has answered ("will my box arrive before the LC
    expires?")."""
    parts = [p for p in _PARTS.split(question) if p and p.strip()]
    return [p for p in parts if not deadline.ASKED.search(p)] if answered.decision_explain.get("deadline") else parts


def _not_said_yet(found: list[tuple[ChatAnswer, str]], answer: str) -> list[tuple[ChatAnswer, str]]:
    """The parts' answers whose telling words the answer does not hold already."""
    return [f for f in found if f[1].lower() not in answer.lower() and not _shown_already(f[0].answer, answer)]


# a part asking what the user said or settled ("what fee did I agree", "which haulier did we book")
_WHAT_THEY_DID = re.compile(r"\b(?:i|we)\s+(?:said|say|told|tell|mentioned|mention|gave|give|agreed?|negotiated|"
                            r"settled|booked|set up|noted|picked|chose)\b", re.I)


def _part_of_theirs_untold(eng: Engine, answers: dict[str, tuple[ChatAnswer, str] | None],
                           answered: ChatAnswer) -> ChatAnswer | None:
    """"What fee did I agree with Vistula, and is that more than your catalog's price?": the catalog answers one part;
    the part about what they told, which names nothing of the data, has no memory to answer it, so the answer is
    only part of one (never a grounded badge)."""
    _, values = assistant.knowledge(eng)
    untold = [p for p, found in answers.items() if found is None and personal.refers_to_own(p) and not values.links(p)
              and (personal.possessed_nouns(p) or _WHAT_THEY_DID.search(p))]  # (not "tell me quickly please")
    if not untold or answered.decision_explain.get("handler") == "personal memory":
        return None
    return _only_part(answered, f"I can answer only part of this.\n{answered.answer}\nI found nothing you told me that "
                                f"answers \u201c{untold[0].strip()}\u201d.",
                      f"a part about what the user told has no memory to answer it: {untold[0].strip()!r}")


def _asked_alone(eng: Engine, parts: list[str]) -> list[str]:
    """The parts that can be asked on their own: about the user's own things, or naming a value of the data
    and pointing back at nothing ("how many boxes does she have", "and between which ports?" are about what
    another part names)."""
    _, values = assistant.knowledge(eng)
    return [p for p in parts if personal.refers_to_own(p) or (not assistant.PRONOUN.search(p) and values.links(p))]


# what tells rows apart in an answer: a code (letters and digits: CSNU5421342, 273W) or a date
_TELLING = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9-]{4,}\b|\b\d{4}-\d{2}-\d{2}\b")


def _shown_already(part_answer: str, answer: str) -> bool:
    """The part's answer names no code or date the answer does not ("which boxes are on the 273W and what's
    in them?": the boxes listed with their contents are the boxes the first part lists)."""
    telling = set(_TELLING.findall(part_answer))
    return bool(telling) and telling <= set(_TELLING.findall(answer))


def _part_of_theirs(eng: Engine, part: str, user_id: str, agent_id: str, thread_id: str | None) -> ChatAnswer | None:
    """One part of a question answered from their memory with the data when it is about theirs, else from the data."""
    if personal.refers_to_own(part) or personal.by_their_name(eng, part, user_id=user_id, agent_id=agent_id):
        return recall_answer(eng, part, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
    return answer_question(eng.scoped(user_id, agent_id), part)


def _part_answered(eng: Engine, part: str, user_id: str, agent_id: str,
                   thread_id: str | None) -> tuple[ChatAnswer, str] | None:
    """(the grounded answer to one part, what it tells): their memory's value for a part about theirs,
    a handler's first line for any other ("..., and what is Maersk's SCAC?"); None when nothing grounds it."""
    if personal.refers_to_own(part) or personal.by_their_name(eng, part, user_id=user_id, agent_id=agent_id):
        # ("which box is Pacifica's": a thing of theirs by a name of theirs, never the data's look-alike name)
        found = recall_answer(eng, part, user_id=user_id, agent_id=agent_id, thread_id=thread_id)
        told = str(_memory_of(found.decision_explain if found else {}).get("value") or "")
    else:
        found = answer_question(eng.scoped(user_id, agent_id), part)
        told = found.answer.split("\n")[0]
    return (found, told) if found is not None and found.mode in ("rag", "hybrid") and told else None


# a question about what the user said ("what date did I say it was filed?")
_TOLD_TIME = re.compile(r"\b(?:i|we)\s+(?:said|say|told|tell|mentioned|mention|gave)\b", re.I)


def _about_their_days(eng: Engine, question: str, user_id: str, agent_id: str) -> bool:
    """A question naming a table of the data asks the data's days ("when was the ship built?"), unless it is
    about theirs: their own things, what they said, a day counted from today, a name of theirs, or the thing
    talked about pointed back at."""
    return not any(table for _, table in personal.question_nouns(question)) or bool(
        personal.refers_to_own(question) or _TOLD_TIME.search(question) or timeline.asks_what_happened(question)
        or timeline.counts_from_today(question) or _names_one_of_theirs(eng, question, user_id, agent_id)
        or _points_at_a_thing(question) or _names_a_day_they_told(eng, question, user_id, agent_id))


def _names_a_day_they_told(eng: Engine, question: str, user_id: str, agent_id: str) -> bool:
    schema, _ = assistant.knowledge(eng)
    year = planner.reference_year(schema)
    # (the words the data's tables and columns are named by: "terminal" said in a comment names no row)
    named = {w for cols in schema.columns.values() for c in cols for w in schema.name_words(c)}
    return year is not None and timeline.names_a_day_told(eng, question, user_id, agent_id, year, named)


def _points_at_a_thing(question: str) -> bool:
    """"How many days is that sailing to Antwerp?": a row of the data pointed back at, the one talked about."""
    return any(personal.table_of_word(m.group(1)) for m in personal.THAT_THING.finditer(question))


def _told_time_asked(question: str, values: Any, held: list[timeline.Event]) -> bool:
    """A question naming a value of the data asks the data, unless it asks what the user said, which
    of two things of theirs came first or how far apart ("between our Piraeus office opening and ..."), or
    names only the places and things of their own voyages (`held`: "from gate-in to the ETA in New York")."""
    named = [lk for lk in values.links(question) if lk.how in ("exact", "explained")]
    theirs = bool(named) and all(any(str(lk.value).lower() in e.data.lower() for e in held) for lk in named)
    return not named or theirs or bool(_TOLD_TIME.search(question)) or timeline.counts_from_today(question) or \
        (personal.refers_to_own(question) and timeline.compares_two(question))


def _names_one_of_theirs(eng: Engine, question: str, user_id: str, agent_id: str) -> bool:
    """"Between signing with Nordhavn and their first shipment": a name only the user told (a customer of
    theirs) says the question is about their own days, whatever nouns of the data it uses; not a name they
    tied to a record of the data ("when is Rowan & Pike's box due in?" asks the data's day)."""
    return any(personal.name_in(question, n) for n in personal.own_names(eng, user_id=user_id, agent_id=agent_id)) \
        and personal.by_their_name(eng, question, user_id=user_id, agent_id=agent_id) is None


def _from_timeline(eng: Engine, question: str, user_id: str, agent_id: str) -> ChatAnswer | None:
    """A question about when things the user told happened (timeline.py): which came first, how many
    days apart, what date, how it stands now. A question naming a value of the data asks the data
    (its dates are the rows'), unless it asks what the user said."""
    if not timeline.asks_about_time(question) or not _about_their_days(eng, question, user_id, agent_id):
        return None
    schema, values = assistant.knowledge(eng)
    year = planner.reference_year(schema)
    if year is None:
        return None
    held = _days_of_their_voyages(eng, user_id, agent_id)
    if not _told_time_asked(question, values, held):
        return None
    found = timeline.answer(eng, question, user_id=user_id, agent_id=agent_id, year=year, held=held,
                            as_of=planner.reference_date(schema))
    if found is None:
        return None
    sources = [{"record_id": e.message_id, "subject": "the data" if e.data else f"what you said, {e.said_at[:16]}",
                "memory_id": e.message_id, "said_at": e.said_at, "said": e.text[:300], "date": e.date.isoformat()}
               for e in found.used]
    return _answer(found.text, "rag", _explain("dates the user gave, read from their own words, and the data's days of "
                                               "their voyages", "rag", memory=sources[0],
                                               data_days=any(e.data for e in found.used)), sources)


# what names a voyage's departure and its arrival in a question about days
_DEPARTS = "depart departure departs departed leave leaves left sail sails sailed sailing etd load loaded"
_ARRIVES = "arrive arrival arrives arrived eta due reach reaches discharge discharged land lands into"
MAX_VOYAGES_TOLD = 5


def _days_of_their_voyages(eng: Engine, user_id: str, agent_id: str) -> list[timeline.Event]:
    """The departure and arrival days the data holds of the voyages the user told, by the voyage or by a
    box on it (at most a few: the newest told)."""
    schema, _ = assistant.knowledge(eng)
    told: dict[tuple[str, str, str], list[str]] = {}  # (table, column, value): the ports told with it, in order
    for m in reversed(personal.valid_memories(eng, user_id, agent_id)):
        entities = [(str(e[0]), str(e[1]), str(e[2])) for e in (m.metadata or {}).get("entities", [])]
        ports = [v for t, _, v in entities if t == "PORTS"]
        for e in entities:
            if e[0] in ("VOYAGES", "CONTAINERS", "VESSELS") and e not in told:
                told[e] = _nearest_first(m.content or "", e[2], ports)
    out: list[timeline.Event] = []
    for (table, column, value), ports in list(told.items())[:MAX_VOYAGES_TOLD]:
        for row in _voyage_of(eng, schema, table, column, value, ports):
            number, vessel, departs, arrives, origin, destination = row[1:7]
            thing = f"voyage {number} ({vessel})" + (f" with box {value}" if table == "CONTAINERS" else "")
            for day, what, words, leaves in ((departs, f"{thing} leaves {origin}", f"{_DEPARTS} {origin}", True),
                                             (arrives, f"{thing} arrives in {destination}", f"{_ARRIVES} {destination}",
                                              False)):
                if (when := _day(day)) is not None:
                    out.append(timeline.data_event(what, when, f"{words} {number} {vessel} {value}",
                                                   f"{table}:{value}", departs=leaves))
    return out


def _nearest_first(text: str, value: str, ports: list[str]) -> list[str]:
    """The ports told with a thing, the one said nearest it first ("one on the Kota Singa out of Ningbo, the
    other on the X-Press Anglesey out of Shanghai"); a port by the first word of its name ("Ningbo" of
    Ningbo-Zhoushan)."""
    low = text.lower()
    at = low.find(value.lower())
    return sorted(ports, key=lambda p: abs(low.find(p.lower().split()[0].split("-")[0]) - at))


def _voyage_of(eng: Engine, schema: Any, table: str, column: str, value: str, ports: list[str]) -> list[Any]:
    """The voyage a told voyage number, box or ship is on: (id, number, vessel, departure, arrival, origin,
    destination), by the planner's own query; of a ship's voyages, the one between most of the ports told
    with it ("gated in at Valencia, on the Gunhild Maersk to New York"), from the first of them on a tie,
    else its only one."""
    def col(t: str, name: str) -> Any:
        return next((c for c in schema.columns.get(t, []) if c.name == name), None)
    wanted = [col(table, column), col("VESSELS", "VESSEL_NAME"), col("VOYAGES", "DEPARTURE_DATE"),
              col("VOYAGES", "ARRIVAL_DATE")]
    if any(c is None for c in wanted):
        return []
    spec = planner.Spec("VOYAGES", "list", filters=[planner.Filter(wanted[0], "=", value, "")], show=wanted[1:],
                        roles=["ORIGIN", "DESTINATION"])
    plan = planner.to_sql(spec, schema)
    rows = eng.supplychain.read_only_query(plan.sql, max_rows=12, params=plan.params).rows
    if len(rows) > 1 and ports:
        most = max(len({str(r[5]), str(r[6])} & set(ports)) for r in rows)
        rows = [r for r in rows if most and len({str(r[5]), str(r[6])} & set(ports)) == most]
        rows = [r for r in rows if str(r[5]) == ports[0]] if len(rows) > 1 else rows
    return rows if len(rows) == 1 else []  # (a number two ships' voyages share says no one voyage)


def _day(value: Any) -> datetime.date | None:
    """A date column's value as a day (a date, a datetime, or ISO text)."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _told_when(rec: personal.Recalled) -> str:
    """The date, not the words: a correction's words name the value it replaced ("not 781S but 813N")."""
    return f"you told me on {rec.said_at[:10]}" if rec.said_at else "you told me"


def _from_recalled(eng: Engine, question: str, rec: personal.Recalled, is_follow: bool, user_id: str,
                   agent_id: str) -> ChatAnswer:
    """The answer about the remembered thing: declined when it does not answer what is asked, the
    value itself, the data's answer about it, any other grounded handler's, else a fallback."""
    rec = _all_of_that_kind(eng, question, rec, user_id, agent_id) or rec
    said, source = _told_when(rec), _memory_source(rec)
    declined = _declined(eng, question, rec, said, source, user_id, agent_id) or \
        _not_what_is_asked(eng, question, rec, said, source)
    if declined is not None:
        return declined
    beyond = asks_beyond(eng, question, rec) or (_unexplained_follow_up(question, rec) if is_follow else None)
    alone = _from_memory_alone(eng, question, rec, beyond, said, source)
    if alone is not None:
        return alone
    data, data_question = _compose(eng, question, rec)
    # a question about the value before a change gets that value itself, not a data answer
    if data.text is not None and data.plan is not None and not rec.earlier:
        unknown = _theirs_not_told(eng, question, rec, data, user_id, agent_id)
        return unknown or _data_answer(data, question, data_question, rec, said, source)
    found = _value_or_fallback(eng, question, rec, beyond, is_follow, said, source, data, data_question)
    if found.mode == "fallback" and not rec.earlier and data_question != question:
        return _other_handler_of_theirs(eng, question, data_question, rec, said, source, user_id, agent_id) or found
    return found


def _other_handler_of_theirs(eng: Engine, question: str, data_question: str, rec: personal.Recalled, said: str,
                             source: dict[str, Any], user_id: str, agent_id: str) -> ChatAnswer | None:
    """Another handler's answer with the remembered thing in its place; a data answer whose rows are things of
    theirs the user never told (a count of "the Gulf Petrochem boxes") is declined."""
    other = _other_handler(eng.scoped(user_id, agent_id), data_question, rec, said, source)
    plan = (other.decision_explain.get("plan") or {}) if other is not None else {}
    if other is None or not plan.get("rows_of"):
        return other
    # (its explanation does not say how many rows it showed: its rows are checked whatever their number)
    return _rows_of_theirs_unknown(eng, question, rec, str(plan["rows_of"]), False, user_id, agent_id) or other


def _theirs_not_told(eng: Engine, question: str, rec: personal.Recalled, data: Any, user_id: str,
                     agent_id: str) -> ChatAnswer | None:
    """"The set temperature of my container on that ship": the ship is remembered, the container is
    not. Listing every container on the ship would answer for someone else's box under a grounded
    badge; the honest answer says which thing of theirs it does not know. None when the question's
    own thing is the remembered one, is told, or the answer is about one row."""
    one_row = data.rows_shown == 1 and data.plan.spec.action not in ("count", "aggregate")
    return _rows_of_theirs_unknown(eng, question, rec, data.plan.spec.target, one_row, user_id, agent_id)


def _rows_of_theirs_unknown(eng: Engine, question: str, rec: personal.Recalled, target: str, one_row: bool,
                            user_id: str, agent_id: str) -> ChatAnswer | None:
    """The honest fallback when the rows answered (`target`) are a thing of theirs the user never told
    ("my boxes", "the Gulf Petrochem boxes"), which the data cannot pick out; None when the answer is about
    one row (`one_row`: a count of "my boxes on that ship" counts everyone's)."""
    if one_row:
        return None
    told = {t for m in personal.valid_memories(eng, user_id, agent_id)
            for t, _, _ in (m.metadata or {}).get("entities", [])}
    for noun in personal.possessed_nouns(question) + _nouns_of_their_names(eng, question, user_id, agent_id) + \
            _nouns_asked_as_theirs(eng, question, user_id, agent_id):
        table = personal.table_of_word(noun)
        if table is not None and table != rec.table and table == target and table not in told:
            return _answer(f"You haven't told me which {noun} is yours, so I can't pick it out. You told me "
                           f"your {_called(rec)} is {rec.value}; ask about one {noun} by its number and I will "
                           "answer from the data.", "fallback",
                           _explain(f"the user's own {noun} is not remembered; the rows of {table} are anyone's",
                                    "fallback", memory=_memory_source(rec)), [])
    return None


def _a_row_of_their_name_not_told(eng: Engine, question: str, rec: personal.Recalled, user_id: str,
                                  agent_id: str) -> ChatAnswer | None:
    """The honest fallback when a name of theirs qualifies a kind of row they never told ("Penrose's box")."""
    tables = [t for noun in _nouns_asked_as_theirs(eng, question, user_id, agent_id)
              if (t := personal.table_of_word(noun)) is not None]
    return next((a for t in tables if (a := _rows_of_theirs_unknown(eng, question, rec, t, False, user_id, agent_id))), None)


def _nouns_of_their_names(eng: Engine, question: str, user_id: str, agent_id: str) -> list[str]:
    """"How many Gulf Petrochem boxes ...": the nouns a name of theirs qualifies, which are theirs as "my boxes"
    would be (the data knows no owner of a box)."""
    return [noun for s in _their_names_said(eng, question, user_id, agent_id)
            if (noun := personal.noun_after_name(question, s)) is not None]


def _their_names_said(eng: Engine, question: str, user_id: str, agent_id: str) -> list[str]:
    return [s for name in personal.own_names(eng, user_id=user_id, agent_id=agent_id)
            if (s := personal.name_in(question, name)) is not None]


def _nouns_asked_as_theirs(eng: Engine, question: str, user_id: str, agent_id: str) -> list[str]:
    """"Which container number is Penrose's?": the noun asked for, said to be a name's of theirs."""
    which = re.match(r"\W*(?:and\s+|so\s+)?(?:which|what)\s+([a-z]+)", question, re.I)
    return [which.group(1).lower() for s in _their_names_said(eng, question, user_id, agent_id)
            if which and re.search(rf"\b{re.escape(s)}['’]s?\s*\W*$", question, re.I)]


def _unexplained_follow_up(question: str, rec: personal.Recalled) -> str | None:
    """A follow-up ("and if their trucks got stuck for the whole strike window?") whose words neither
    the remembered words nor the kind of value it asks for explain: it asks more than the value."""
    words = personal.content_words(_asked_part(question)) - personal.content_words(rec.text) - \
        personal.content_words(rec.value) - {personal.stem(w) for w in _REFERENCE_WORDS}
    words = {w for w in words if len(w) > 3 and own_values.asked_kind(w) is None}
    # one word left over is how people talk ("who is it today?"); several are a question of their own
    return f"'{' '.join(sorted(words))}'" if len(words) >= 2 else None


def _other_handler(scoped: Engine, data_question: str, rec: personal.Recalled, said: str,
                   source: dict[str, Any]) -> ChatAnswer | None:
    """The question with the remembered thing in its place, answered by any grounded handler (the
    catalog's stock at the user's port, a document about their voyage); never by the schema's column
    descriptions, which say nothing about a thing of theirs. None when none grounds it."""
    other = answer_question(scoped, data_question)
    if other.mode not in ("rag", "hybrid") or (other.route or {}).get("label") == "SCHEMA_KNOWLEDGE":
        return None
    text = f"{other.answer}\n(For your {_called(rec)}, {rec.value}: {said}.)"
    explain = {**other.decision_explain, "memory": source, "data_question": data_question}
    return dataclasses.replace(other, answer=text, decision_explain=explain,
                               retrieved_chunks_metadata=[source, *other.retrieved_chunks_metadata],
                               used_chunks=[source, *other.used_chunks])

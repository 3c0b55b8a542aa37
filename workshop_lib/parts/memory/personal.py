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

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz

from workshop_lib.assistant.schema_links import SYNONYMS, TABLE_NOUNS, stem
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS, Link

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

KIND = "personal"
SOURCE = "conversation"
ENTITY_COLUMNS = NAME_COLUMNS | CODE_COLUMNS
ENTITY_HOW = ("exact", "fuzzy", "partial")
MAX_SENTENCES = 20
MAX_TEXT_CHARS = 600
EARLIER_KEPT = 5

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE = re.compile(r",\s*|\s+-\s+")
_FIRST_PERSON = re.compile(r"\b(?:i|we|my|our|mine|ours)\b|\b(?:i|we)'(?:m|re|ve|d|ll)\b", re.I)
_QUESTION = re.compile(r"^(?:(?:and|so|also|ok|okay|but)\s+)?(?:what|what's|whats|wat's|which|who|who's|whom|whose|where|"
                       r"where's|when|why|how|is|are|was|were|do|does|did|can|could|would|will|should|has|have|"
                       r"had)\b", re.I)
# Words that say a value changed or was wrong: a correction of the same subject.
_CHANGE = re.compile(r"\b(?:not|instead|now|moved|switched|changed|ignore|actually|wrong|sorry|mixed up|"
                     r"no longer|anymore|rolled|replaced)\b", re.I)
# A value said as the one it is not: "not 781S but 813N", "instead of 781S".
_NOT_THIS = re.compile(r"\b(?:not|instead of|rather than|no longer)\s+(?:on\s+|the\s+|with\s+)?$", re.I)
_POSSESSED = re.compile(r"\b(?:my|our)\s+((?:[a-z][\w-]*(?:'s)?\s+){0,2}?[a-z][\w-]*)", re.I)
_ADJECTIVES = {"main", "new", "own", "current", "usual", "old", "whole", "first", "other", "one", "big"}
# What a question about the past asks for: the value before the latest correction.
HISTORY = re.compile(r"\b(?:originally|original|before|first|previous|previously|earlier|initially|used to)\b", re.I)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def table_of_word(word: str) -> str | None:
    """The table a noun names ("box" -> CONTAINERS, "contianer" -> CONTAINERS), or None."""
    w = stem(word.lower().removesuffix("'s"))
    mapped = SYNONYMS.get(w, w)
    if mapped in TABLE_NOUNS:
        return TABLE_NOUNS[mapped]
    for noun in list(SYNONYMS) + list(TABLE_NOUNS):  # a typo keeps most of the word
        if len(w) >= 5 and fuzz.ratio(w, noun) >= 80:
            return TABLE_NOUNS.get(SYNONYMS.get(noun, noun))
    return None


def possessed_nouns(text: str) -> list[str]:
    """The nouns after my/our ("my client's cargo" -> client, "our main carrier" -> carrier), stemmed."""
    out = []
    for m in _POSSESSED.finditer(text):
        words = [w.lower() for w in m.group(1).split()]
        words = [w for w in words if w.removesuffix("'s") not in _ADJECTIVES] or words
        out.append(stem(words[0].removesuffix("'s")))
    return out


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

    @property
    def subject(self) -> str:
        """The column it is about, TABLE.COLUMN of its first entity."""
        if not self.entities:
            return self.about
        table, column, _ = self.entities[0]
        return f"{table}.{column}"


def statement_part(sentence: str) -> str:
    """The sentence without its question clauses ("we ship with MSC, what vessels do they have?")."""
    kept = [c for c in _CLAUSE.split(sentence) if c.strip() and not (_QUESTION.match(c.strip()) or c.strip().endswith("?"))]
    return ", ".join(c.strip() for c in kept)


def extract(eng: Engine, text: str, *, said_at: str | None = None) -> list[PersonalCandidate]:
    """The personal statements of one user turn: a clause that names a value of the data and the user's own things."""
    from workshop_lib import assistant

    _, values = assistant.knowledge(eng)
    out = []
    for sentence in [s for s in _SENTENCE.split(text or "") if s.strip()][:MAX_SENTENCES]:
        stated = statement_part(sentence)
        if not stated or len(stated) > MAX_TEXT_CHARS or not _FIRST_PERSON.search(stated):
            continue
        found = entity_links(values.links(stated))
        # the value it is not ("not 781S but 813N") is no entity of this memory
        found = [lk for lk in found if not _NOT_THIS.search(stated[:lk.start][-30:])]  # offsets are the text's
        if not found:
            continue
        found.sort(key=lambda lk: 0 if lk.table in _OWN_THINGS else 1)  # a container or voyage before a port
        entities = tuple((lk.table, lk.column, str(lk.value)) for lk in found)
        out.append(PersonalCandidate(stated, entities, tuple(possessed_nouns(stated)),
                                     bool(_CHANGE.search(stated)), said_at or _now()))
    return out


# What a user's own shipment is tracked by, before the places and lines it touches.
_OWN_THINGS = ("CONTAINERS", "VOYAGES", "VESSELS", "CARRIERS", "PORTS")


@dataclass
class Written:
    stored_id: str
    superseded: list[str] = field(default_factory=list)
    collateral: int = 0        # superseded memories that share no linked column with the new one


def _valid(eng: Engine, user_id: str, agent_id: str) -> list[Any]:
    return eng.store.list("fact", limit=None, user_id=user_id, agent_id=agent_id, metadata_filter={"kind": KIND})


def _same_subject(new: PersonalCandidate, old_meta: dict) -> bool:
    if old_meta.get("subject") != new.subject:
        return False
    if new.change:
        return True
    return bool(set(new.nouns) & set(old_meta.get("nouns") or []))


def write(eng: Engine, cand: PersonalCandidate, *, user_id: str, agent_id: str,
          thread_id: str | None = None, supersede: bool = True) -> Written | None:
    """Store one personal memory; supersede the earlier ones on the same subject. None: already stored.

    `supersede=False` is the ADD-only policy the baselines compare against (every value kept,
    valid side by side, no earlier value carried): only the same value said again is skipped."""
    olds = [r for r in _valid(eng, user_id, agent_id) if _same_subject(cand, r.metadata or {})]
    value = cand.entities[0][2] if cand.entities else ""
    if value and any(str((r.metadata or {}).get("value")) == value for r in olds):
        return None  # the same value said again
    if not supersede:
        olds = []
    earlier: list[dict[str, str]] = []
    nouns = list(cand.nouns)
    for r in olds:
        meta = r.metadata or {}
        earlier = [*meta.get("earlier", []), {"value": str(meta.get("value")), "said_at": str(meta.get("said_at")),
                                             "text": r.content or ""}, *earlier]
        nouns += [n for n in meta.get("nouns", []) if n not in nouns]  # what they called it still refers to it
    meta = {"kind": KIND, "source": SOURCE, "subject": cand.subject, "value": value,
            "entities": [list(e) for e in cand.entities], "nouns": nouns, "said_at": cand.said_at,
            "earlier": earlier[-EARLIER_KEPT:]}
    if thread_id:
        meta["thread_id"] = thread_id
    new_id = eng.store.add([cand.text], record_type="fact", metadata=meta, user_ids=user_id, agent_ids=agent_id)[0]
    done = Written(new_id)
    new_columns = {f"{t}.{c}" for t, c, _ in cand.entities}
    for r in olds:
        old_columns = {f"{t}.{c}" for t, c, _ in (r.metadata or {}).get("entities", [])}
        eng.store.set_status("fact", r.id, "superseded", by=user_id, reason=f"the user said: {cand.text[:200]}",
                             replaced_by=new_id)
        done.superseded.append(r.id)
        done.collateral += 0 if old_columns & new_columns or not new_columns else 1
    return done


def unlinked_changes(eng: Engine, text: str, *, user_id: str, agent_id: str) -> list[PersonalCandidate]:
    """A change said about a remembered thing with a new value the data does not hold ("we moved the
    office to Antwerp"): kept in the user's words on the remembered subject, so the old value is not served."""
    from workshop_lib import assistant

    _, values = assistant.knowledge(eng)
    memories = _valid(eng, user_id, agent_id)
    out = []
    for sentence in [s for s in _SENTENCE.split(text or "") if s.strip()][:MAX_SENTENCES]:
        stated = statement_part(sentence)
        if not stated or not _FIRST_PERSON.search(stated) or not _CHANGE.search(stated) \
                or entity_links(values.links(stated)):
            continue
        words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", stated)}
        about = [r for r in memories if set((r.metadata or {}).get("nouns") or []) & words]
        if len(about) == 1:  # one remembered thing of that name; more would be a guess
            meta = about[0].metadata or {}
            out.append(PersonalCandidate(stated, (), tuple(meta.get("nouns") or []), True, _now(),
                                         str(meta.get("subject"))))
    return out


def observe(eng: Engine, text: str, *, user_id: str, agent_id: str, thread_id: str | None = None,
            supersede: bool = True) -> list[Written]:
    """Extract and write the personal memories of one user turn (the chat service calls it per turn)."""
    out = []
    for cand in extract(eng, text) + unlinked_changes(eng, text, user_id=user_id, agent_id=agent_id):
        done = write(eng, cand, user_id=user_id, agent_id=agent_id, thread_id=thread_id, supersede=supersede)
        if done is not None:
            out.append(done)
    return out


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


def refers_to_own(question: str) -> bool:
    """A question about the user's own things: a first-person word in a question."""
    q = question.strip()
    return bool(_FIRST_PERSON.search(q)) and (q.endswith("?") or bool(_QUESTION.match(q)) or
                                              any(_QUESTION.match(c.strip()) for c in _CLAUSE.split(q)))


def _question_nouns(question: str) -> list[tuple[str, str | None]]:
    """(word, table it names) for every word of the question."""
    return [(w.lower(), table_of_word(w)) for w in re.findall(r"[A-Za-z][\w'-]*", question)]


def resolve(eng: Engine, question: str, *, user_id: str, agent_id: str) -> Recalled | None:
    """The remembered entity a question refers to: the user's newest valid memory whose possessed
    noun the question uses, or whose linked table the question names; None when nothing matches."""
    if not refers_to_own(question):
        return None
    memories = list(reversed(_valid(eng, user_id, agent_id)))  # newest first
    if not memories:
        return None
    words = _question_nouns(question)
    asked_nouns = {stem(w.removesuffix("'s")) for w, _ in words} | set(possessed_nouns(question))
    for rec in memories:
        meta = rec.metadata or {}
        entities = [tuple(e) for e in meta.get("entities", [])]
        by_noun = [n for n in meta.get("nouns", []) if n in asked_nouns]
        if not entities and by_noun:  # a change in the user's words only: the words are the value
            table, _, column = str(meta.get("subject", "")).partition(".")
            return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, "", by_noun[0])
        for table, column, value in entities:
            hit = next((w for w, t in words if t == table), None)
            if hit is None and by_noun and (table, column, value) == entities[0]:
                hit = by_noun[0]
            if hit is None:
                continue
            earlier = HISTORY.search(question) and meta.get("earlier") and meta["subject"] == f"{table}.{column}"
            if earlier:
                first = meta["earlier"][0]
                return Recalled(rec.id, first["text"], first["said_at"], table, column, first["value"], hit, True)
            return Recalled(rec.id, rec.content or "", str(meta.get("said_at", "")), table, column, value, hit)
    return None


def substitute(question: str, recalled: Recalled) -> str:
    """The question with its reference to the user's thing replaced by the entity ("when does the
    voyage I told you about arrive" -> "when does voyage 939E arrive")."""
    noun_table = TABLE_NOUNS_BY_TABLE.get(recalled.table, recalled.table.lower())
    q = re.sub(r"^[^:?]{0,60}:\s*", "", question.strip())  # "back to my thing: ..." -> what it asks
    q = re.sub(r"^(?:[a-z ,']*\.\s+)", "", q, flags=re.I) if "." in q[:-1] else q   # a sentence before the question
    noun = re.escape(recalled.noun)
    pattern = (rf"(?:\b(?:the|that|this)\s+)?(?:\b(?:my|our)\s+(?:[\w-]+'s\s+)?(?:[\w-]+\s+)?)?\b{noun}(?:'s)?"
               rf"(?:\s+(?:that\s+)?(?:i|we)\s+(?:told|gave|mentioned|said|asked)(?:\s+you)?(?:\s+about)?)?")
    new, count = re.subn(pattern, f"{noun_table} {recalled.value}", q, count=1, flags=re.I)
    if not count:
        return f"{q} ({noun_table} {recalled.value})"
    return re.sub(r"\b(?:my|our)\s+", "", new, flags=re.I)


TABLE_NOUNS_BY_TABLE = {table: noun for noun, table in TABLE_NOUNS.items()}

"""What the user said, found again: recall's last resort when no kept memory answers.

Every user message stays in its thread (the chat history, the user's own scope). A question about
something of theirs that no personal memory answers ("what did I say they charge per move?", "who
picks up our boxes?") is matched against the user's earlier statements in every thread: the
statement part of a sentence about their own things (its question clauses dropped) that shares the most content words
with the question and holds a value of the kind asked that the question does not (a number for an
amount, a time for "when", a code for a number or reference; any new word for a name). The newest
such statement wins (a later one replaces an earlier), the oldest when the question asks for the
original. A statement the user later asked to forget, or not to keep, is never read again.
The answer quotes the user's words with when they were said; it does not pick a value out of them.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workshop_lib import assistant
from workshop_lib.parts.memory import own_values, personal

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
MAX_MESSAGES = 400      # the newest user messages read, whatever the history's length
MIN_SHARED = 2          # content words a statement must share with the question

_CODE = re.compile(r"\b(?=[\w-]*\d)[A-Za-z0-9][\w-]{2,}\b")
# What the question asks for, by its wh-word or the noun of what it asks (a small closed vocabulary).
_ASKS_AMOUNT = re.compile(r"\bhow (?:much|many|heavy|cold|warm|long)\b|\b(?:rate|price|cost|charg\w*|fee|paying|"
                          r"temperature|set ?point|degrees|weight|count)\b|"
                          r"\b(?:combien|cu[aá]nt[oa]s?|wie viele?|prix|precio|preis|kosten|tarifa)\b", re.I)
_ASKS_TIME = re.compile(r"\bwhen\b|\b(?:what|which) (?:date|day|time|week|month|year)\b|\b(?:quand|cu[aá]ndo|wann)\b|"
                        r"\b(?:deadline|due date|cut-?off|by what date)s?\b|"
                        r"\b(?:quel jour|qu[eé] d[ií]a|welche[nm]? tag)\b", re.I)
# a place asked ("which port does it arrive in?", "et il arrive dans quel port ?")
_ASKS_PLACE = re.compile(r"\bwhere\b|\b(?:which|what|quel(?:le)?|qu[eé]|welche[rmns]?)\s+(?:port|city|town|country|place|"
                         r"ville|pays|puerto|ciudad|pa[ií]s|hafen|stadt|land)s?\b|\bo[uù]\b(?<!\bou\b)|\bd[oó]nde\b|\bwo(?:hin)?\b",
                         re.I)
_ASKS_CODE = re.compile(r"\b(?:number|ref|reference|booking|seal|code|id|num[eé]ro|nummer|r[eé]f[eé]rence)\b", re.I)
# words that refer to the telling, not to what was told
_TELLING = frozenset("""say said tell told mention mentioned give gave remind again ask asked know knew thing
something anything remember recall exactly""".split())


# "if one of our boxes sits seven days past the free time": a case supposed, not a thing told
_HYPOTHETICAL = re.compile(r"\s*(?:if|suppose|supposing|say|assuming|what if|in case)\b", re.I)


@dataclass(frozen=True)
class Said:
    text: str           # the statement, in the user's words
    said_at: str        # when (the message's time)
    message_id: str
    context: str = ""   # the sentence before it in the same message ("for the Hamburg pickups ... customer is X")


def _words(text: str) -> set[str]:
    return personal.content_words(text) - _TELLING


# the thing a question asks for by its noun: "which haulier ...", "who handles customs ...", "who is the agent"
_HEAD = re.compile(r"\b(?:which|what)\s+(?!(?:is|are|was|were|do|does|did|one|ones|kind|sort|type)\b)([a-z]{4,})|"
                   r"\bwho(?:'s|\s+\w+)\s+(?:(?:the|our|my|a|an|for|us)\s+)*([a-z]{4,})|"
                   # "who did I say the consignee for my box is?"
                   r"\bwho\b[^?]*?\b(?:the|my|our|their)\s+([a-z]{4,})", re.I)


_VALUE_KINDS = frozenset("""date dates day days time times temperature temperatures price prices rate rates cost costs
number numbers amount amounts weight weights figure figures value values much many long""".split())


# "the name of the customer": the customer is what is asked
_NAME_OF = re.compile(r"\bnames?\s+of\s+(?:the\s+|our\s+|my\s+|that\s+|this\s+)?([a-z]{4,})", re.I)


def _asked_head(question: str) -> str:
    m = _HEAD.search(question)
    head = next((g for g in m.groups() if g), "").lower() if m else ""
    if head in ("name", "names", "") and (of := _NAME_OF.search(question)):
        head = of.group(1).lower()
    return head


def _names_the_asked(question: str, statement: Said, *, head_needed: bool = False,
                     data_spans: Callable[[str], list[tuple[int, int]]] = lambda _: []) -> bool:
    """The statement (with the sentence before it) names what the question asks for by its noun, when
    the question has one: "who handles customs" is not answered by a sentence about a haulier. With
    `head_needed`, a question asking no kind of thing or value by its noun is answered by none."""
    head = _asked_head(question)
    if head in _VALUE_KINDS:
        return True  # a date, a price, a number: the kind of value, which _holds_asked checks
    if not head or head in _TELLING or not _words(head):
        # no noun says what is asked: only a kind of value (a time, an amount, a code) is checked
        return not head_needed or any(r.search(question) for r in (_ASKS_TIME, _ASKS_AMOUNT, _ASKS_CODE))
    if _words(head) & (_words(statement.text) | _words(statement.context)):
        return True
    # "who's the customer for the machinery parts?": "... parts for Ridgeway Mining" names one without the word
    # (a name of the data, a vessel or a port, is nobody's role)
    return bool(own_values.roles_of(head)) and any(v.kind == own_values.NAME and personal.name_in(question, v.value) is None
                                                  for v in own_values.find(statement.text, data_spans(statement.text),
                                                                           places=set()))


def asks_a_time(question: str) -> bool:
    """The question asks when, or for a date or a deadline."""
    return _ASKS_TIME.search(question) is not None


def _holds_asked(question: str, statement: str) -> bool:
    """The statement holds a value of the kind asked that the question does not already hold."""
    new = statement
    for w in re.findall(r"\S+", question):
        new = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)", " ", new, flags=re.I)
    if _ASKS_TIME.search(question):
        return bool(own_values.time_said(new)) or bool(re.search(r"\b\d{1,2}(?:st|nd|rd|th)\b", new))
    if _ASKS_AMOUNT.search(question):
        return bool(own_values.NUMBER_RE.search(new))
    if _ASKS_CODE.search(question):
        return bool(_CODE.search(new))
    if _ASKS_PLACE.search(question):
        return any(v.kind == own_values.PLACE for v in own_values.find(new, [], places=set()))
    if re.search(r"\b(?:who|whom|whose|who's|names?|called|qui[eé]n(?:es)?|qui|wer|wem|llama\w*|appel\w*|hei(?:ß|ss)\w*)\b",
                 question, re.I) and _writes_capitals(statement):
        # "what's the name of my broker?": "... through our broker in New York" names a place, no one
        return any(v.kind == own_values.NAME for v in own_values.find(new, [], places=set()))
    return bool(_words(new))


def _writes_capitals(text: str) -> bool:
    """Whether the user writes names with capitals (a word capitalised inside a sentence): someone who
    writes "van dijk transport" in lower case names no one the capitals would show."""
    return re.search(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]", text.strip()) is not None


def _speaks_of_own(message: str) -> bool:
    """A message about the user's things: I, we, my, our; or "me" in one of its statements ("... and
    the consignee's contact keeps ringing me about it": the speaker is in it too)."""
    return personal.speaks_of_own(personal.statement_part(message)) or \
        any(re.search(r"\bme\b", personal.statement_part(s), re.I) for s in personal.sentences(message))


def _statements(eng: Engine, user_id: str, agent_id: str) -> tuple[list[Said], list[Said]]:
    """(the user's statements about their own things: I, we, my, our; all their statements), oldest
    first, each without those a later request asked to forget; the messages are read once for both."""
    messages = eng.store.list("message", limit=None, user_id=user_id, agent_id=agent_id, newest=MAX_MESSAGES)
    memories = personal.valid_memories(eng, user_id, agent_id)  # read once for both
    changed, theirs = _changed_values(memories), _their_nouns(memories)
    own: list[Said] = []
    every: list[Said] = []
    told = ""  # what they said before: a name said again after "ignore what I said about ..." is no new value
    for m in messages:
        if getattr(m, "role", "user") != "user" or not m.content:
            continue
        # a message that speaks of the user's things speaks of them in each of its sentences
        own_message = _speaks_of_own(m.content)
        before = ""
        for sentence in personal.sentences(m.content):
            if personal.FORGET.search(sentence) or personal.takes_back(sentence, m.content, told):
                # what it names is dropped from what came before
                own, every = (_without_forgotten(said, sentence, before, m.id) for said in (own, every))
                continue
            own, every = (_without_rejected(said, sentence) for said in (own, every))
            stated = personal.statement_part(sentence)
            if _quotable(stated, changed):
                every.append(Said(stated, m.created_at or "", m.id, before))
                if own_message or _of_their_own(stated, theirs):
                    own.append(every[-1])
            before = stated
        told += " " + m.content
    return own, every


def _their_nouns(memories: list[Any]) -> set[str]:
    """The nouns the user's valid memories call their things by ("customer", "office")."""
    return {n for r in memories for n in (r.metadata or {}).get("nouns") or [] if len(n) > 2}


def _of_their_own(stated: str, nouns: set[str]) -> bool:
    """I, we, my, our; or "the", "that", "this" before a noun of theirs ("our customer wants ..." then "Update:
    the customer pulled the deadline ...")."""
    # ("the letter of credit for that order expires ...": "that order" points back at an order of theirs)
    return personal.speaks_of_own(stated) or \
        any(personal.stem(m.group(1).lower()) in nouns for m in re.finditer(r"\b(?:the|that|this)\s+([a-z]+)\b", stated, re.I))


def _quotable(stated: str, changed: set[str]) -> bool:
    """A statement, not a hypothesis, that says no value the user later changed (that sentence is never
    quoted again)."""
    return bool(stated) and not _HYPOTHETICAL.match(stated) and not _ASKED_FOR_SOMEONE.search(stated) and \
        not any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", stated, re.I) for v in changed)


# a question put as what someone wants to know ("The trucker wants to know which dock doors to back into"): it
# asks, it tells nothing
# (said first: "We've got fourteen pallets ..., and the consignee keeps asking when it leaves" tells the pallets)
_ASKED_FOR_SOMEONE = re.compile(r"^\W*(?:[\w'’-]+\s+){1,4}?(?:wants? to know|would like to know|needs? to know|"
                                r"(?:is|are|was|were|keeps?) asking|wonder(?:s|ing)?|asked me)\b[^.]*?"
                                r"\b(?:which|what|who|where|when|how|whether|if)\b", re.I)


def _changed_values(memories: list[Any]) -> set[str]:
    """The values the user's valid memories say were changed ("moved out of Kestrel Park", "not Alvarez"):
    earlier values that are none of the memory's current ones."""
    out: set[str] = set()
    for r in memories:
        meta = r.metadata or {}
        current = {str(e[2]).lower() for e in meta.get("entities") or []}
        # (told in another statement: a name the same sentence said before the current one is no change of it)
        out |= {str(e.get("value")) for e in meta.get("earlier") or []
                if e.get("value") and str(e.get("value")).lower() not in current and len(str(e.get("value"))) > 2
                and e.get("text") != r.content}
    return out


def _without_forgotten(said: list[Said], sentence: str, before: str, message_id: str) -> list[Said]:
    """The statements before a request to forget, without those it names (with the sentence each was
    said after: "... a Mr." "Jankowski."); "forget everything about them" names what the sentence before
    it did, and a request naming nothing said ("Please forget the number.") drops that sentence. A word
    that only says what kind of detail it is ("number", "name") names nothing by itself: "don't keep my
    mobile number" keeps "account number NS-55821"; a request about a contact detail drops every phone
    number or address said."""
    dropped = (_words(sentence) | (_words(before) if personal.POINTS_BACK.search(sentence) else set())) - _KIND_OF_DETAIL
    contact = _CONTACT.search(sentence) is not None
    kept = [s for s in said if not ((_words(s.text) | _words(s.context)) & dropped
                                    or contact and _PHONE_OR_ADDRESS.search(s.text))]
    return kept if len(kept) < len(said) else [s for s in said if not (s.message_id == message_id and s.text == before)]


_KIND_OF_DETAIL = frozenset("number numbers name names detail details info information data".split())
# a request about a contact detail, and what one looks like when said
_CONTACT = re.compile(r"\b(?:phone|telephone|mobile|cell|cellphone|whatsapp|e-?mail|contact|handy|t[ée]l[ée]fono|"
                      r"t[ée]l[ée]phone|portable|m[óo]vil)\b", re.I)
_PHONE_OR_ADDRESS = re.compile(r"\+?\d[\d ()./-]{5,}\d|[\w.+-]+@[\w-]+\.[\w.]+")


def _without_rejected(said: list[Said], sentence: str) -> list[Said]:
    """The statements before a correction that says a name is the wrong one ("..., not Lindqvist"),
    without those that name it."""
    wrong = personal.rejected_names(sentence)
    if not wrong:
        return said
    # "not 55120" is the number inside the reference HL-55120 too
    return [s for s in said if not wrong & {w.lower() for w in re.findall(r"[\w&'’-]+", s.text)}
            and not any(w in code for w in wrong if re.search(r"\d", w)
                        for code in re.findall(r"[\w-]*\d[\w-]*", s.text.lower()))]


def find(eng: Engine, question: str, *, user_id: str, agent_id: str, min_shared: int = MIN_SHARED,
         newest_on_subject: bool = False, by_meaning: Embed | None = None, any_statement: bool = False) -> Said | None:
    """The user's statement that answers the question (see the module docstring), or None. Words the
    statement shares with the question count with those of the sentence before it in its message
    (with `any_statement`, a statement need not say "I", "we" or "our": one about a party of theirs);
    the value asked must be in the statement itself. With `newest_on_subject` (a question that does not
    say it asks what was told): the question must name what it asks, a name the user later called the
    wrong one is never quoted, and a later statement on the same subject replaces the best one.
    With `by_meaning` (an embedding function), a question that shares too few words with every
    statement is matched by meaning instead (`_nearest_in_meaning`)."""
    asked = _words(question)
    if len(asked) < min_shared or (newest_on_subject and _ASKS_AMOUNT.search(question)):
        return None  # a count or a price told is often corrected in words no statement of theirs holds
    _, values = assistant.knowledge(eng)

    def data_spans(text: str) -> list[tuple[int, int]]:
        return [(lk.start, lk.end) for lk in values.links(text)]

    own, every = _statements(eng, user_id, agent_id)
    found = _answering(question, every if any_statement else own, min_shared, newest_on_subject, data_spans)
    if not found:
        return _nearest_in_meaning(question, every, by_meaning) if by_meaning is not None else None
    original = bool(personal.HISTORY.search(question))

    def rank(c: tuple[int, set[str], Said]) -> tuple[int, int, int]:
        # the statement that itself shares the words beats the one after it, which shares them through
        # its context ("... importer of record is X. She's out this week."); the newest wins a tie, the
        # oldest for "originally"
        i, common, s = c
        return len(common), len(asked & _words(s.text)), -i if original else i

    return _in_time(question, max(found, key=rank), found, every, original, newest_on_subject)


def _in_time(question: str, chosen: tuple[int, set[str], Said], found: list[tuple[int, set[str], Said]],
             every: list[Said], original: bool, newest_on_subject: bool) -> Said:
    """The statement chosen, or the one on its subject the question's time asks for: the first told for
    "originally", the newest for "now"."""
    at, common, best = chosen
    if original and _ASKS_NOW.search(question):
        return best  # "which desk now, and which before?": the statement of the change says both
    if original:  # "what was it when I first told you?": an earlier statement on the subject in fewer of its words
        return next((s for s in every if s.said_at < best.said_at and _holds_asked(question, s.text)
                     and (_words(s.text) | _words(s.context)) & common), best)
    if newest_on_subject:  # (its own words, not only those of the sentence before it: "Felixstowe we stopped doing.")
        later = [s for i, c, s in found if i > at and _words(s.text) & common]
        return later[-1] if later else best
    if _ASKS_NOW.search(question):
        return _latest_on_subject(question, best, common, every)
    return best


# how far the nearest statement in meaning must be above 0 and ahead of the next one that holds the kind
# asked (cosine of the bundled model's vectors; "which haulier kept not turning up" and "Brennan Haulage
# no-showed again" share no word, and meet at about 0.25)
MIN_MEANING = 0.2
MEANING_MARGIN = 0.05


def _nearest_in_meaning(question: str, statements: list[Said], embed: Embed) -> Said | None:
    """The statement nearest the question in meaning that holds a value of the kind asked and names
    something the question does not (a name, when it asks who or which); None when none is clearly
    nearest. Every statement of the user counts, "I" or not ("Brennan Haulage no-showed again")."""
    holding = [s for s in statements if _holds_asked(question, s.text) and _names_new(question, s.text)
               and _anchored(question, s.text)]
    if not holding:
        return None
    headed = [s for s in holding if _says_the_head(question, s.text)]
    # the one statement that names the role asked ("which trucking outfit": "our haulier"), else the nearest
    chosen = headed[0] if len(headed) == 1 else _clearly_nearest(question, holding, embed)
    if chosen is None:
        return None
    # a later statement on the same subject may have changed it ("update: ... it reopens on the sixteenth")
    later = statements[statements.index(chosen) + 1:]
    return None if any(len(_words(s.text) & _words(chosen.text)) >= 2 for s in later) else chosen


def _roots(text: str) -> set[str]:
    return {w[:4] for w in _words(text) if len(w) >= 4}


# Roots of words that name one role in a shipper's work, however a user says it ("our haulier",
# "the trucking outfit", "the transport company"): a small synonym layer, like the schema's.
_CUSTOMERS = frozenset({"cust", "clie", "cons", "buye", "acco"})
_KINDRED = (frozenset({"haul", "truc", "tran", "dray", "carta"}), _CUSTOMERS, frozenset({"ware", "depo", "stor"}),
            frozenset({"brok", "agen", "clea"}), frozenset({"offi", "desk", "base"}))


def _with_kindred(roots: set[str]) -> set[str]:
    return roots.union(*(group for group in _KINDRED if roots & group))


# "what was our booking reference ...": what is asked, the noun after "our" or "my"
_OWN_HEAD = re.compile(r"\bwhat(?:'s|\s+(?:is|was|are|were))\s+(?:our|my)\s+([a-z]{4,})", re.I)


def _anchored(question: str, statement: str) -> bool:
    """Meaning alone may join any two sentences about the same port: the statement must also share a
    word's root with the question ("haulier" and "Haulage"), and the noun of what is asked when the
    question has one ("which customer ..." is not answered by a sentence about a haulier)."""
    said = _roots(statement)
    # the question's own words, not the names it gives (a port, a ship): those say where, not what
    plain = _with_kindred(_roots(" ".join(re.findall(r"(?<![\w'-])[a-z][\w'-]*", question))))
    # the noun of what is asked must be said, by its root ("which haulier ...": "Brennan Haulage ..."): meaning
    # alone joins a question about a haulier in Antwerp to any sentence about Antwerp
    head = _role_head(_asked_head(question) or ((m.group(1) or "") if (m := _OWN_HEAD.search(question)) else ""))
    if head and not _with_kindred({head[:4]}) & said:
        return False
    # "our customs broker": the thing of theirs asked about, in the words they call it
    if any(not _roots(noun) <= said for noun in personal.possessed_nouns(question)
           if not re.search(rf"\b{re.escape(noun[:1].upper() + noun[1:])}", question)):
        return False
    return bool(plain & said)


def _clearly_nearest(question: str, holding: list[Said], embed: Embed) -> Said | None:
    """The statement nearest the question in meaning, when it is near enough and clearly ahead."""
    vectors = embed([question] + [s.text for s in holding])
    scored = sorted(((_cosine(vectors[0], v), i) for i, v in enumerate(vectors[1:])), reverse=True)
    best, i = scored[0]
    second = scored[1][0] if len(scored) > 1 else 0.0
    return holding[i] if best >= MIN_MEANING and best - second >= MEANING_MARGIN else None


def _says_the_head(question: str, statement: str) -> bool:
    """The noun of what is asked is a role the statement names, by a root of its words or a kindred one
    ("which trucking outfit ...": "our haulier ..."), said as theirs."""
    head = _role_head(_asked_head(question))
    # (not a customer: a user has many, and which one a question means takes more than the noun)
    if not head or head[:4] in _CUSTOMERS or not _with_kindred({head[:4]}) & _roots(statement):
        return False
    # said as theirs, or a name that carries the noun ("which haulage firm": "Brennan Haulage missed ...")
    return personal.speaks_of_own(statement) or any(head[:4] in _roots(name) for name in own_values.NAME_RE.findall(statement)
                                                    if " " in name)  # (two words or more, not a sentence's first)


def _role_head(head: str | None) -> str:
    """The noun of what is asked when it names a thing (not a name, a kind of value or the telling), else ""."""
    return head if head and head[0].islower() and head not in _VALUE_KINDS and head not in _TELLING else ""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def _names_new(question: str, statement: str) -> bool:
    """A question for a time, an amount or a code is answered by one (`_holds_asked`); any other by a
    name the question does not give: a word in capitals past the sentence's first ("Brennan Haulage",
    "Bremen")."""
    if any(r.search(question) for r in (_ASKS_TIME, _ASKS_AMOUNT, _ASKS_CODE)):
        return True
    asked = {w.lower() for w in re.findall(r"[\w'-]+", question)}
    return any(w.lower() not in asked for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w&'-]+", statement.strip()))


def _latest_on_subject(question: str, best: Said, common: set[str], statements: list[Said]) -> Said:
    """"What's the current delivery date?": a later statement on the subject in fewer of its words
    ("... pushed the Valencia delivery to June 11th"), then the corrections after it, which need not
    repeat them ("Scratch that, it moved again. It's now the thirteenth."); else the best one."""
    every = [s for s in statements if s.said_at > best.said_at and _holds_asked(question, s.text)]
    newer = [s for s in every if len((_words(s.text) | _words(s.context)) & common) >= 2]
    # ("they've relaxed it again, now it's 18 June": a change that points back at the subject with "it")
    anchor = newer[-1] if newer else best
    changed = [s for s in every if s.said_at > anchor.said_at and personal.CHANGE.search(f"{s.context} {s.text}")
               and (newer or _POINTS_AT_IT.search(s.text))]
    return (changed or newer or [best])[-1]


_POINTS_AT_IT = re.compile(r"\b(?:it|it's|that|this)\b", re.I)


# a question about how things stand now
_ASKS_NOW = re.compile(r"\b(?:current(?:ly)?|now|latest|still|anymore|at the moment|these days|today)\b", re.I)


def _answering(question: str, statements: list[Said], min_shared: int, strict: bool,
               data_spans: Callable[[str], list[tuple[int, int]]]) -> list[tuple[int, set[str], Said]]:
    """(position, words shared with the question, statement) of each statement that holds what is asked."""
    asked = _words(question)
    rejected = set().union(*(personal.rejected_names(s.text) for s in statements)) if strict else set()
    out = []
    for i, s in enumerate(statements):
        common = asked & (_words(s.text) | _words(s.context))
        if len(common) >= min_shared and _holds_asked(question, s.text) \
                and _names_the_asked(question, s, head_needed=strict, data_spans=data_spans) \
                and not _names_rejected(s, rejected) and not _another_scope(question, s.text):
            out.append((i, common, s))
    return out


# what a statement or a question is said for: "for Asia-North Europe", "pour le transpacifique"
_SCOPE = re.compile(r"\b(?:for|pour|para|f(?:ü|u)r)\s+(?:the\s+|le\s+|la\s+|les\s+|l'|el\s+|los\s+|las\s+|die\s+|den\s+|das\s+)?"
                    r"((?!(?:me|us|you|it|them|him|her|nous|moi|vous|mí|mi|nosotros|uns|mich)\b)[\w'-]+(?:\s+[\w'-]+)?)", re.I)


def _another_scope(question: str, statement: str) -> bool:
    """Both say what they are for, and the question's is none of the statement's words: "for the
    transpacific, which carrier?" is not answered by "for Asia-North Europe, our carrier is X"."""
    asked, said = _SCOPE.search(question), _SCOPE.search(statement)
    if asked is None or said is None:
        return False
    return not any(w in statement.lower() for w in _words(asked.group(1)))  # ("l'Asie-Europe" holds "asie-europe")


def _names_rejected(statement: Said, rejected: set[str]) -> bool:
    """The statement names a name the user called the wrong one and no other ("X is someone else");
    the correction itself names the right one too ("it's Lindgren Marine, not Lindqvist")."""
    names = {w.lower() for w in re.findall(r"(?<![\w-])[A-Z][\w&'’-]*", statement.text)}
    first = re.match(r"\W*([\w&'’-]+)", statement.text)
    if first and first.group(1).lower() not in rejected:
        names.discard(first.group(1).lower())  # a sentence's first word is capitalised anyway
    return bool(names & rejected) and not names - rejected

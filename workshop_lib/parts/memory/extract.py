"""The write path, step 1: candidate memories from one user turn.

Offline, `extract_offline` reads explicit cues and a few plain statement shapes, sentence by
sentence, with rules (deterministic, no model). With a model, `extract_with_model` asks for
JSON and validates every field; anything invalid falls back to the rules, with the reason.

What the rules catch (each candidate is typed with the store's record types):
- "forget ..."                                        -> op "forget" (what to forget)
- "remember ... / keep in mind ... / note that ..."    -> fact (or a correction memory when it
                                                          names a TABLE.COLUMN, as in Part 6)
- "I prefer ... / I'd rather ... / answer in ... /
   please always ... / don't ..."                     -> preference
- "from now on ..."                                   -> guideline
- "actually it is X / no, it's X"                     -> the last subject in this thread, value X
- "actually, my X is Y" and plain "my/our X is Y",
  "I work for/at Y", "I live in / I'm based in Y",
  "my name is Y / call me Y", "I am a Y"              -> fact with a subject and a value
Limits (stated in the Part): questions are never memories; a negation ("my port is not X")
is not understood and is skipped; one statement per sentence; "it" is resolved only to the
last subject stated in the same thread; a fact said in any other shape is not extracted here
(the model extractor catches those, and the chat service's `personal.py` keeps statements that
name a value of the data in any phrasing); a candidate over MAX_TEXT_CHARS is dropped.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

MEMORY_RECORD_TYPES = ("fact", "preference", "guideline", "memory")
OPS = ("remember", "forget")
MAX_CANDIDATES = 8
MAX_FIELD_CHARS = 300
MAX_TEXT_CHARS = 1000


@dataclass(frozen=True)
class Candidate:
    """One thing the user said that may be worth keeping."""

    record_type: str            # fact | preference | guideline | memory (kind correction)
    text: str                   # the memory as it is stored
    subject: str = ""           # what it is about, lower case ("home port"); "" if none
    value: str = ""             # the value the subject has ("Hamburg")
    op: str = "remember"        # remember | forget
    cue: str = "statement"      # which rule (or "model") produced it
    kind: str = ""              # metadata kind ("correction" for schema corrections)
    meta: dict = field(default_factory=dict, compare=False)


_SENTENCE = re.compile(r"(?<=[.!;])\s+|\n+")
_SCHEMA_NAME = re.compile(r"\b([A-Za-z_]+)\.([A-Za-z_]+)\b")
_NEGATION = re.compile(r"\b(not|never|isn't|aren't|wasn't|no longer)\b", re.I)

_FORGET = re.compile(r"^(?:please\s+)?forget\s+(?:that\s+|about\s+|what i said about\s+|my\s+)?(?P<x>.+)$", re.I)
_REMEMBER = re.compile(r"^(?:please\s+)?(?:remember|keep in mind|note|make a note)(?:\s+that)?[:,]?\s+(?P<x>.+)$", re.I)
_FROM_NOW = re.compile(r"^(?:and\s+)?from now on[:,]?\s+(?P<x>.+)$", re.I)
_PREFER = re.compile(
    r"^(?:(?:i\s+(?:would\s+)?prefer|i'd\s+rather|i\s+like)\s+(?P<x>.+)"
    r"|(?P<y>(?:please\s+)?(?:always\s+)?(?:answer|reply|respond|show|give|use|report|write)\s+.+))$", re.I)
_ACTUALLY_IT = re.compile(r"^(?:actually|no|sorry|correction)[,:]?\s+(?:it|that)(?:'s|\s+is|\s+was|\s+should be)\s+(?P<v>.+)$", re.I)
_ACTUALLY = re.compile(r"^(?:actually|correction|sorry|no)[,:]?\s+(?P<x>.+)$", re.I)
_POSSESSIVE = re.compile(r"^(?:(?:and|also|but)\s+)?(?P<who>my|our)\s+(?P<s>[a-z][\w\s'-]{0,40}?)\s+"
                         r"(?:is|are|was|has become|became)\s+(?:now\s+)?(?P<v>.+)$", re.I)
_WORK = re.compile(r"^(?:i|we)\s+(?:now\s+)?(?:work|works)\s+(?:for|at)\s+(?P<v>.+)$", re.I)
_LIVE = re.compile(r"^(?:i|we)(?:'m|'re|\s+am|\s+are|\s+live|\s+are now|\s+am now)?\s+(?:based|located|living|live)?\s*in\s+(?P<v>.+)$", re.I)
_NAME = re.compile(r"^(?:my name is|call me)\s+(?P<v>.+)$", re.I)
_ROLE = re.compile(r"^(?:i am|i'm)\s+(?:now\s+)?(?:a|an|the)\s+(?P<v>[\w\s-]{2,60})$", re.I)


def clean(text: str) -> str:
    """Trimmed, one space, no trailing punctuation."""
    return re.sub(r"\s+", " ", text or "").strip().rstrip(".!;, ").strip()


def normalise(text: str) -> str:
    """Lower case, words only: how subjects and values are compared."""
    return " ".join(re.findall(r"[a-z0-9$%]+", (text or "").lower()))


def sentences(text: str) -> list[str]:
    return [clean(s) for s in _SENTENCE.split(text or "") if clean(s)]


def _fact(subject: str, value: str, who: str = "my", cue: str = "statement") -> Candidate | None:
    subject, value = clean(subject).lower(), re.sub(r"(?i)\s+(?:now|these days|from today)$", "", clean(value))
    if not subject or not value or _NEGATION.search(value) or len(value) > MAX_FIELD_CHARS:
        return None
    return Candidate("fact", f"{who.capitalize()} {subject} is {value}.", subject, value, cue=cue)


def _statement(s: str, cue: str = "statement") -> Candidate | None:
    """A plain statement about the user's world, or None."""
    for pattern, subject in ((_NAME, "name"), (_WORK, "employer"), (_LIVE, "location"), (_ROLE, "role")):
        m = pattern.match(s)
        if m:
            return _fact(subject, m.group("v"), cue=cue)
    m = _POSSESSIVE.match(s)
    if m:
        return _fact(m.group("s"), m.group("v"), m.group("who").lower(), cue=cue)
    return None


def _preference_subject(text: str) -> str:
    """A preference's subject: the dimension it sets, so a later one on the same dimension replaces it."""
    t = text.lower()
    for subject, words in (("currency unit", ("dollar", "cent", "euro", "usd", "eur", "currency")),
                           ("answer length", ("short", "brief", "concise", "detailed", "long", "one sentence")),
                           ("answer format", ("table", "bullet", "list", "json", "markdown")),
                           ("language", ("english", "german", "french", "spanish", "dutch")),
                           ("units", ("metric", "imperial", "kilometre", "kilometer", "mile", "nautical"))):
        if any(w in t for w in words):
            return subject
    return ""


def _one(s: str, last_subject: str) -> Candidate | None:
    if s.endswith("?"):
        return None  # a question asks; it states nothing
    m = _FORGET.match(s)
    if m:
        x = clean(m.group("x"))
        return Candidate("fact", x, normalise(x), "", op="forget", cue="forget") if x else None
    m = _REMEMBER.match(s)
    if m:
        return _remembered(clean(m.group("x")))
    m = _FROM_NOW.match(s)
    if m:
        x = clean(m.group("x"))
        return Candidate("guideline", x[0].upper() + x[1:] + ".", _preference_subject(x), x, cue="from now on") if x else None
    m = _ACTUALLY_IT.match(s)
    if m and last_subject:
        return _fact(last_subject, m.group("v"), cue="actually")
    return _actually_or_preferred(s)


def _remembered(x: str) -> Candidate | None:
    """"Remember that ...": a note on a schema column (Part 6's correction memory), a statement, a
    preference, or else a fact as said."""
    if not x:
        return None
    if col := _SCHEMA_NAME.search(x):  # a note on the schema: Part 6's correction memory
        subject = f"SUPPLYCHAIN.{col.group(1).upper()}.{col.group(2).upper()}".lower()
        return Candidate("memory", x[0].upper() + x[1:] + ".", subject, x, cue="remember", kind="correction")
    found = _statement(x, cue="remember")
    if found:
        return found
    pref = _preference_subject(x)
    if pref and _PREFER.match(x):
        return Candidate("preference", x[0].upper() + x[1:] + ".", pref, x, cue="remember")
    return Candidate("fact", x[0].upper() + x[1:] + ".", "", x, cue="remember")


def _actually_or_preferred(s: str) -> Candidate | None:
    """"Actually, <statement>", a preference ("I prefer ..."), or a plain statement; what follows
    "actually" is read as the rest of the sentence when it states nothing."""
    m = _ACTUALLY.match(s)
    if m:
        s = clean(m.group("x"))  # "actually, <statement or preference>": read what follows
        found = _statement(s, cue="actually")
        if found:
            return found
    m = _PREFER.match(s)
    if m:
        x = clean(m.group("x") or m.group("y"))
        subject = _preference_subject(x)
        if subject:  # a request without a dimension ("show me voyage 1001") is a question, not a preference
            return Candidate("preference", x[0].upper() + x[1:] + ".", subject, x, cue="prefer")
        return None
    return _statement(s)


def extract_offline(text: str, *, last_subject: str = "") -> list[Candidate]:
    """Candidates from one user turn, in the order they were said (at most MAX_CANDIDATES)."""
    out: list[Candidate] = []
    for s in sentences(text)[:50]:
        found = _one(s, last_subject)
        if found is not None and len(found.text) <= MAX_TEXT_CHARS:  # a longer "memory" is a document, not a note
            out.append(found)
            if found.subject and found.op == "remember" and found.record_type == "fact":
                last_subject = found.subject
        if len(out) >= MAX_CANDIDATES:
            break
    return out


# ------------------------------------------------------------------ with a model
EXTRACTION_PROMPT = """Extract what is worth remembering from the user's message, as JSON:
{"memories": [{"type": "fact|preference|guideline|memory", "subject": "...", "value": "...",
"text": "...", "op": "remember|forget"}]}
fact: about the user's world; preference: how they want answers; guideline: a standing
instruction; memory: a note about the data. subject: what it is about, a few words, lower case;
value: its value; text: one sentence to store. op "forget" when they ask to forget something.
Questions are not memories. Return {"memories": []} when there is nothing to keep."""


def validate_model_output(raw: str) -> list[Candidate]:
    """The model's JSON as candidates; ValueError naming the first problem."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    items = data.get("memories") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError('expected an object with a "memories" list')
    if len(items) > MAX_CANDIDATES:
        raise ValueError(f"{len(items)} memories; at most {MAX_CANDIDATES} per turn")
    return [_model_candidate(i, item) for i, item in enumerate(items)]


def _model_candidate(i: int, item: Any) -> Candidate:
    """One memory of the model's list as a candidate; ValueError naming its first problem."""
    if not isinstance(item, dict):
        raise ValueError(f"memories[{i}] is not an object")
    values = {k: item.get(k, "") for k in ("type", "subject", "value", "text", "op")}
    for k, v in values.items():
        if not isinstance(v, str) or len(v) > MAX_FIELD_CHARS:
            raise ValueError(f"memories[{i}].{k} must be a string of at most {MAX_FIELD_CHARS} characters")
    op = values["op"] or "remember"
    if values["type"] not in MEMORY_RECORD_TYPES or op not in OPS:
        raise ValueError(f"memories[{i}]: type must be one of {MEMORY_RECORD_TYPES}, op one of {OPS}")
    text = clean(values["text"]) or clean(f"{values['subject']} is {values['value']}")
    if not text:
        raise ValueError(f"memories[{i}] has no text")
    return Candidate(values["type"], text if op == "forget" else text + ".", normalise(values["subject"]),
                     clean(values["value"]), op=op, cue="model",
                     kind="correction" if values["type"] == "memory" else "")


def extract_with_model(llm, text: str, *, last_subject: str = "") -> tuple[list[Candidate], str]:
    """(candidates, how): the model's validated output, or the rules' when it is invalid."""
    try:
        raw = llm.complete(EXTRACTION_PROMPT, text, response_format={"type": "json_object"})
        return validate_model_output(raw), "model"
    except Exception as exc:  # noqa: BLE001 - any model or validation failure: the rules still run
        return extract_offline(text, last_subject=last_subject), f"rules (model output refused: {exc})"

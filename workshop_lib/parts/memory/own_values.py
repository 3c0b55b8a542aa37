"""What a user names about their own work that the data does not hold: names, places, money, time.

The value index (assistant/value_links.py) finds what SUPPLYCHAIN holds. A user also names their
customer ("Casa Lumen"), the city they work from, the rate they agreed ("1,850 EUR per FEU") and
when something happened ("last Monday"). These are read from the sentence's structure, not from
lists of phrasings:

- a name is a run of capitalised words that is not the data's (a linked value), not a code or a
  unit in capitals, and not an ordinary word that only starts the sentence;
- a name is a place when a preposition of place comes before it ("in", "from", "out of", "to"),
  or when the data knows it as a port or a country;
- money is a number with a currency (before or after it), with what it is per ("per FEU");
- the roles (ROLES) say what the value is to the user: a customer, where they are, a rate. They
  are the user's own things, a small domain vocabulary like the schema's synonyms, and they link a
  later question ("who's my client?", "which city do I work from?") to the memory.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from workshop_lib.assistant import glossary
from workshop_lib.assistant.schema_links import stem
from workshop_lib.data import catalog

OWN = "OWN"            # the pseudo-table of values the data does not hold
NAME, PLACE, MONEY, CODE, FIGURE = "NAME", "PLACE", "MONEY", "CODE", "FIGURE"

# What a value is to the user, by the words that name that role (stems).
ROLES: dict[str, frozenset[str]] = {
    "customer": frozenset({"customer", "client", "buyer", "consignee", "retailer", "shop", "account", "order",
                           "importer", "distributor", "buy", "import", "deal", "cliente", "kunde", "kunden"}),
    "place": frozenset({"office", "city", "town", "base", "based", "work", "writing", "located", "live", "here",
                        "headquarter", "hq", "site", "warehouse", "oficina", "ciudad", "bureau", "ville", "büro",
                        "stadt"}),
    "rate": frozenset({"rate", "price", "contract", "pay", "paying", "paid", "negotiate", "agree", "agreed",
                       "cost", "charge", "quote", "tariff", "fee", "all-in"}),
    # who moves their boxes by road, in the words of the languages the workshop reads
    "haulier": frozenset({"haulier", "hauler", "haulage", "trucker", "trucking", "truck", "drayage", "on-carriage",
                          "spediteur", "spedition", "fuhrunternehmer", "transportista", "acarreo", "camionero",
                          "camionneur"}),
}
# What a question asks for, when it names no table of the data.
_ASKS_MONEY = re.compile(r"\bhow (?:much|many)\b|\b(?:combien|cu[aá]nt[oa]s?|wie viele?)\b|"
                         r"\b(?:rate|price|cost|charg(?:e|es|ed|ing)|quote|tariff|fee|pay|paying|paid)s?\b",
                         re.I)
_ASKS_PLACE = re.compile(r"\bwhere\b|\b(?:city|cities|towns?|country|countries|based|located|offices?)\b|"
                         r"\b(?:d[oó]nde|ciudad|oficina|o[uù]|ville|bureau|wo|stadt|b[üu]ro)\b", re.I)
_ASKS_CODE = re.compile(r"\b(?:numbers?|refs?|references?|codes?|ids?|po|seal|tracking|n[uú]mero|nummer|referencia|"
                        r"r[eé]f[eé]rence)\b", re.I)
_ASKS_NAME = re.compile(r"\b(?:who|whom|whose|who's|names?|called)\b|\b(?:customer|client|buyer|consignee|company|companies|"
                        r"firm|outfit)s?\b|"
                        r"\b(?:qui[eé]n|qui|wer|cliente|kunden?|llamaba|s'appel\w*|hei(?:ß|ss)\w*)\b", re.I)

# a number in the user's words, in digits or words ("three hundred and ten", "minus eighteen", "5 grand")
NUMBER_RE = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
                       r"forty|fifty|hundred|thousand|grand|k|minus)\b", re.I)
_CURRENCY = r"(?:USD|EUR|GBP|CNY|JPY|SGD|AED|dollars?|euros?|pounds?|bucks|[$€£¥])"
_AMOUNT = r"\d{1,3}(?:[,.\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s?[kK]\b)?"
_PER = r"(?:\s+(?:per|a|an|each|/)\s*(?:[\w-]+)(?:\s+box|\s+container)?)?"
# (a rate per box with its currency left unsaid, "2,850 per FEU", is a sum too: a count would say what it counts)
MONEY_RE = re.compile(rf"(?:{_CURRENCY}\s?(?:{_AMOUNT})|(?:{_AMOUNT})\s?{_CURRENCY}){_PER}|"
                      rf"(?<![\w.,-])(?:{_AMOUNT})\s*(?:per|/)\s*(?:FEU|TEU|box|container)\b", re.I)
# a figure of theirs with what it counts or measures ("14%", "40 FEU", "7 free days", "22 Prozent"): a share, a
# quota, a number of days or boxes that is no sum of money
_UNIT = (r"(?:%|per\s?cent\b|percent\b|prozent\b|por\s?ciento\b|pour\s?cent\b|(?:(?:[a-z]+\s+)?(?:feu|teu|days?|"
         r"hours?|hrs|weeks?|months?|boxes|containers?|pallets?|cartons?|trucks?|slots?|kg|kgs|kilos?|tonnes?|tons?|"
         r"cbm|m3|tage?n?|stunden?|wochen?|d[ií]as?|horas?|semanas?|jours?|heures?|semaines?)\b))")
FIGURE_RE = re.compile(rf"(?<![\w.,-])\d+(?:[.,]\d+)?\s?{_UNIT}", re.I)
# a reference of theirs: letters and at least three digits in one word ("OV-2291", "TRLU7788123", "PO4471"), or
# groups of digits joined by hyphens, six digits or more, no ISO date and no span of years ("4500-77410", "88-4410227")
CODE_RE = re.compile(r"(?<![\w-])(?:(?=[A-Za-z-]*\d[A-Za-z-]*\d[A-Za-z-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]{3,}|"
                     r"(?!\d{4}-\d{2}-\d{2}(?![\w-])|(?:19|20)\d\d-(?:19|20)?\d\d(?![\w-]))(?=(?:\d-?){6})\d{2,}(?:-\d{2,})+)(?![\w-])")
# a capitalised word; "&" and a few name particles may join two of them ("Marble & Co", "Al Noor")
NAME_RE = re.compile(r"(?<![\w'’])[A-Z](?:['’][A-Z])?[a-z][\w'’.-]*(?:\s+(?:(?:&|and|of|de|del|da|van|von)\s+)?[A-Z][\w'’.-]+)*")  # ("I" ends a name)
# ("belongs to Bright Tools", "sold to Ferretti": a party, not a place)
_PLACE_BEFORE = re.compile(r"\b(?:in|from|(?<!belongs )(?<!belong )(?<!sold )(?<!goes )(?<!going )(?<!switched )(?<!swapped )"
                           r"(?<!changed )(?<!over )to|at|near|out of|outta|port of|harbou?r of|city of|based in|around|into|via|"
                           r"aus|nach|desde|à|au|dans|en)"
                           r"\s+(?:the\s+|our\s+|my\s+)?$", re.I)
# ("our Madrid office", "the Leeds warehouse": a name before the noun of a site is that site's place)
_PLACE_AFTER = re.compile(r"\s+(?:office|warehouse|depot|hub|branch|site|yard|plant|facility|headquarters|hq|"
                          r"cold store|distribution cent(?:re|er)|dc)s?\b", re.I)
_DAY = r"(?:\d{1,2}(?:st|nd|rd|th)?)"
_TIME_RE = re.compile(rf"\b(?:(?:last|this|next|on|since|until|from)\s+)?(?:{_DAY}\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                      r"week|month|year|january|february|march|april|may|june|july|august|september|october|"
                      rf"november|december)\b(?:\s+{_DAY}\b)?|\b(?:yesterday|today|tomorrow|\d{{4}}-\d{{2}}-\d{{2}})\b",
                      re.I)
# the months in English, German, French and Spanish
MONTHS = frozenset("""january february march april may june july august september october november december januar
februar märz mai juni juli oktober dezember janvier février mars avril juin juillet août septembre octobre novembre
décembre enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre""".split())
# the weekdays in the same languages, the months, and the words of a date around them ("bis Ende Mai", "ab KW 24")
_CALENDAR = MONTHS | set("""monday tuesday wednesday thursday friday saturday sunday montag dienstag mittwoch donnerstag
freitag samstag sonntag lundi mardi mercredi jeudi vendredi samedi dimanche lunes martes miércoles jueves viernes sábado
domingo ende anfang mitte kw""".split())
# Words that start a sentence with a capital without being a name.
_ORDINARY = set("""i i'm i'll i've i'd we we're hi hey hello ok okay so also and but please thanks thank yes no
yep nope sorry actually wait ugh oh oops whoops ah argh damn well hmm big small new old our my the a an it it's that this they their
from for with in on at to fyi btw just most remember note keep forget ignore disregard scrap scratch drop don't do not quick update
reminder correction heads got we've we'd we'll morning evening afternoon cheers since until after before as
last next anyway then now every bit some another she she's he he's they they're you you're
he'll she'll there there's here what's mi mis nuestro nuestra nuestros nuestras mon ma mes notre nos
unser unsere mein meine ich wir je hola bonjour moin hallo petite petit nouvelle nouveau bonne grande rapide
pequeña pequeño nueva nuevo breve kleine kleines kurze kurz neue neues first second third fourth fifth
newest latest final previous earlier later recent cheapest dearest bis ab seit vom""".split())


@dataclass(frozen=True)
class OwnValue:
    kind: str        # NAME | PLACE | MONEY | CODE | FIGURE
    value: str
    start: int
    end: int


def roles_of(text: str) -> set[str]:
    """The roles the words of a text name ("my client's cargo" -> customer)."""
    words = {stem(w.lower().removesuffix("'s")) for w in re.findall(r"[A-Za-z][\w'-]*", text)}
    # a German compound ends in its noun ("Hauptkunde" is a customer, "Zollbüro" an office)
    words |= {head for w in re.findall(r"\w{6,}", text.lower()) for head in _GERMAN_HEADS if w.endswith(head)}
    return {role for role, names in ROLES.items() if words & {stem(n) for n in names}}


_GERMAN_HEADS = ("kunde", "kunden", "spediteur", "spedition", "büro", "stadt")


def asks_code(question: str) -> bool:
    """"What was the booking number?": a reference asked, whatever else the words say ("quote" is no price)."""
    return _ASKS_CODE.search(re.sub(r"\bnumbers?\s+of\b", " ", question, flags=re.I)) is not None  # (not "the number of boxes")


def asked_kind(question: str) -> str | None:
    """What a question about the user's own things asks for, when it names no table of the data."""
    for kind, pattern in ((MONEY, _ASKS_MONEY), (PLACE, _ASKS_PLACE), (CODE, _ASKS_CODE), (NAME, _ASKS_NAME)):
        if pattern.search(question):
            return kind
    return None


def time_said(text: str, near: int | None = None) -> str:
    """When the sentence says something happened ("last month", "on 19 May"), as written; '' if it
    does not. `near`: the position of the value it is about; the time said closest to it."""
    found = list(_TIME_RE.finditer(text))
    if not found:
        return ""
    if near is None:
        return found[0].group(0)
    return min(found, key=lambda m: min(abs(m.start() - near), abs(m.end() - near))).group(0)


def ordinary(word: str) -> bool:
    """A capitalised word that is no name: a weekday, a month, a word that only starts a sentence."""
    return _calendar(word) or word.lower() in _ORDINARY


def _calendar(word: str) -> bool:
    """A weekday or a month, "Thursdays" too."""
    w = word.lower()
    return w in _CALENDAR or (w.endswith("s") and w[:-1] in _CALENDAR)


@functools.lru_cache(maxsize=1)
def _workshop_texts() -> str:
    """The workshop's own texts: its documents and the catalog's descriptions."""
    root = Path(catalog.__file__).parent / "corpus" / "docs"
    texts = [p.read_text(encoding="utf-8", errors="ignore") for p in sorted(root.rglob("*")) if p.suffix in (".md", ".txt")]
    return " ".join(texts + [i.description for i in catalog.ITEMS])


@functools.lru_cache(maxsize=1)
def _words_in_lower_case() -> frozenset[str]:
    """The words the workshop's own texts write in lower case: one of them alone at the start of a
    sentence is that word, not a name."""
    return frozenset(re.findall(r"(?<![\w'’-])[a-z][a-z'’-]+(?![\w'’-])", _workshop_texts()))


@functools.lru_cache(maxsize=1)
def _terms_in_capitals() -> frozenset[str]:
    """The abbreviations the workshop's own texts use (ISF, VGM, PTI): "our ISF" is a filing, not a name."""
    return frozenset(re.findall(r"(?<![\w-])[A-Z]{2,5}(?![\w-])", _workshop_texts()))


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:;"


# a number with its unit or ordinal ending is no reference ("1200kg", "21st", "800teu")
_NO_CODE = re.compile(r"\d+(?:st|nd|rd|th|kg|t|m|km|ft|teu|k)", re.I)


def find(text: str, taken: list[tuple[int, int]], *, places: set[str]) -> list[OwnValue]:
    """The names, places and money of a statement outside the spans the data's values took.
    `places`: lower-cased names the data knows as places (ports, countries)."""
    out: list[OwnValue] = []
    spans = list(taken)

    def free(a: int, b: int) -> bool:
        return not any(a < e and s < b for s, e in spans)

    # a reference the data does not hold (the data's own are taken), then sums of money, then other figures
    for kind, pattern in ((CODE, CODE_RE), (MONEY, MONEY_RE), (FIGURE, FIGURE_RE)):
        for m in pattern.finditer(text):
            if free(m.start(), m.end()) and not (kind == CODE and _NO_CODE.fullmatch(m.group(0))):
                out.append(OwnValue(kind, m.group(0).strip(), m.start(), m.end()))
                spans.append((m.start(), m.end()))
    german = len(_GERMAN.findall(text)) >= 2
    for m in NAME_RE.finditer(text):
        span = _name_span(text, m)
        if span is None or not free(*span):
            continue
        start, end = span
        kind = PLACE if _PLACE_BEFORE.search(text[:start]) or text[start:end].lower() in places or \
            _PLACE_AFTER.match(text[end:]) else NAME
        found = _as_german_writes(text, start, end) if kind == NAME and german else (start, end)
        if found is not None:
            out.append(OwnValue(kind, text[found[0]:found[1]], found[0], found[1]))
    return sorted(out, key=lambda v: v.start)


def _as_german_writes(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A name's span in a German sentence, where every noun has a capital: none for a noun ("unser
    Spediteur", "die Boxen") unless said after "ist"; without a noun before it ("seit Jahren Hafenlogistik
    Krüger")."""
    name = text[start:end]
    if _a_german_noun(name) and not _GERMAN_IS.search(text[:start]):
        return None
    if " " in name and _GERMAN_BEFORE_NOUN.search(text[:start]):
        rest = name[len(name.split()[0]):].lstrip()
        return end - len(rest), end
    return start, end


# words only German writes: a sentence with two of them is German
_GERMAN = re.compile(r"\b(?:unser|unsere|unseren|unserem|ist|sind|und|nicht|f\u00fcr|wir|ich|mit|bei|aus|die|der|das|"
                     r"den|dem|ein|eine|einen|auch|noch|schon|immer)\b", re.I)


_GERMAN_BEFORE_NOUN = re.compile(r"\b(?:seit|vor|mit|von|zu|zum|zur|die|der|das|den|dem|des|ein|eine|einen|einem|"
                                 r"f\u00fcr|wegen|bei)\s+$", re.I)
_GERMAN_IS = re.compile(r"\b(?:ist|sind|hei(?:ß|ss)t|hei(?:ß|ss)en)\s+(?:jetzt\s+|nun\s+|übrigens\s+)?$", re.I)


def _a_german_noun(name: str) -> bool:
    """One capitalised word (a German noun: "Spediteur", "Nachläufe"), or words the glossary reads ("Kurze Frage"):
    a name in German has two words or more ("Hansen Logistik"), or a legal form."""
    words = name.split()
    return len(words) == 1 or all(_glossary_word(w) for w in words)


def _glossary_word(word: str) -> bool:
    plain = glossary.key_of(word)
    return plain in glossary.WORDS or plain in glossary.WORDS_CAPITALISED or \
        any(plain in phrase.split() for phrase in glossary.PHRASES)


# the adjective of a people or a region ("European", "Asian", "Chinese", "Nordic", "Spanish"): no name
_PEOPLE_OR_REGION = re.compile(r"[A-Z][a-z]+(?:ean|ian|ese|ish|ic)")


def _no_name_alone(text: str, at: int, word: str) -> bool:
    """One capitalised word that is no name: a word the workshop's texts write in lower case,
    capitalised to start the sentence ("Back in March ..."), a term in capitals ("ISF"), a label
    before what the speaker tells ("News: we've moved our office"), a verb that starts it ("Logging a
    booking ref for you", "Setting up our plan"), or an adjective of a people or region before a noun ("our European hub")."""
    start = _sentence_start(text, at)
    after = text[at + len(word):]
    # ("Tengo que llamar ...": a word of another language the glossary reads, starting the sentence)
    # (a plural of such a word too, or of a role: "Hauliers I use this month:")
    lower = word.lower()
    common = lower in _words_in_lower_case() or stem(lower) in _words_in_lower_case() or \
        any(stem(lower) in names for names in ROLES.values())
    return (start and (common or glossary.key_of(word) in glossary.WORDS)) or \
        word in _terms_in_capitals() or \
        (_PEOPLE_OR_REGION.fullmatch(word) is not None and re.match(r"\s+[a-z]", after) is not None) or \
        (start and re.match(r"\s*:\s*(?:we|i|our|my)\b", after, re.I) is not None) or \
        (start and word.endswith("ing") and re.match(r"\s+(?:(?:up|out|down|off|over|back|together)\s+)?"
                                                      r"(?:a|an|the|some|my|our|this|these|that|your|their)\s", after) is not None)


_JOINING = ("&", "and", "of", "de", "del", "da", "van", "von")


def _ordinary(text: str, tokens: list[tuple[int, str]]) -> bool:
    """The first word only starts a sentence: an ordinary English one, or a common word of the other languages the
    workshop reads said alone before a comma ("Perdona, ...", "Désolé, ..."; not "Deben Haulage is ...")."""
    at, word = tokens[0]
    alone = len(tokens) == 1 and re.match(r"\s*[,!]", text[at + len(word):]) is not None
    return word.lower() in _ORDINARY or (alone and glossary.key_of(word) in glossary.common_words())


def _name_span(text: str, m: re.Match) -> tuple[int, int] | None:
    """Where a run of capitalised words is a name: without an ordinary word that only starts the
    sentence, a weekday or a month before it, or a joining word after it; None when nothing is left."""
    # "Brightwell's shrimp": the name is Brightwell, without the possessive
    tokens = [(t.start() + m.start(), re.sub(r"['’]s$", "", t.group(0).rstrip(".,")).rstrip("'’"))
              for t in re.finditer(r"\S+", m.group(0))]
    while tokens and (_calendar(tokens[0][1]) or re.fullmatch(r"i(?:['’](?:m|ve|d|ll))?", tokens[0][1].lower()) or
                      tokens[0][1].lower() in ("&", "and", "of") or
                      (_ordinary(text, tokens) and _sentence_start(text, tokens[0][0]))):
        tokens = tokens[1:]  # ("Tuesdays and Thursdays": days, no name)
    if len(tokens) == 1 and _no_name_alone(text, *tokens[0]):
        return None
    while tokens and (tokens[-1][1].lower() in _JOINING or _calendar(tokens[-1][1])):
        tokens = tokens[:-1]
    if not tokens:
        return None
    return tokens[0][0], tokens[-1][0] + len(tokens[-1][1])

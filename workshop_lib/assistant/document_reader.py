"""The sentence of a document that answers the question, not the first lines of its best passage.

A question asks for a kind of answer: an amount ("how much", "what fee"), a duration ("how
long"), a date or time ("when", "by what time"), a place ("where") or a party ("who", "which
company"). The reader splits the passages of the document retrieval put first (the passages the
gates used, and the other retrieved passages of the same document) into sentences, and picks the
sentence that shares most words with the question among those that hold the kind of answer asked.
When none holds it, the documents do not state it: the caller answers with an honest fallback,
never with passages under a grounded badge. The interrogatives are a closed list in the four
languages of the corpus; everything else comes from the passages themselves.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from workshop_lib.assistant import glossary
from workshop_lib.assistant.schema_links import SYNONYMS, stem, words_of

_MONTHS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember|"
           r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|"
           r"janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre")
# Numbers written as words, in the corpus' four languages ("siete días", "three working days").
_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|"
                 "eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf|uno|dos|tres|cuatro|cinco|seis|siete|"
                 "ocho|nueve|diez|doce|quince|deux|trois|quatre|cinq|sept|huit|neuf|dix|douze|quinze")
# What a sentence must hold to answer each kind of question.
HOLDS = {
    # money, a share, or a quantity with its unit ("26,500 kg", "2 SDR per kilogram")
    "amount": re.compile(r"(?:USD|EUR|GBP|SGD|CNY|SDR|US\$|\$|€|£)\s?\d|\d[\d,.]*\s?(?:USD|EUR|GBP|SDR|dollars?|"
                         r"euros?|per ?cent|%|kg\b|kilo\w*|tonnes?\b|tons?\b|t\b)", re.I),
    "duration": re.compile(rf"(?:\d+(?:[.,]\d+)?|\b(?:{_NUMBER_WORDS}))\s?(?:-|to|–)?\s?\d*\s?(?:working |calendar |"
                           r"h[aá]biles |naturales )?(?:minutes?|min|hours?|hrs?|h\b|days?|weeks?|months?|years?|"
                           r"Stunden|Tagen?|Wochen|Monaten?|Jahren?|horas|días|dias|semanas|meses|años|heures|"
                           r"jours|semaines|mois|ans)\b", re.I),
    "date": re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:{_MONTHS})\b|\b(?:{_MONTHS})\s+\d{{1,2}}\b|"
                       r"\d{4}-\d{2}-\d{2}|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}|\b\d{1,2}:\d{2}\b|"
                       r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I),
    # a name, a part of a port or ship with its number or letter ("berths 4 and 5", "blocks C and D",
    # "bay 54"), or a side of the deck
    "place": re.compile(r"(?<=[a-z,;:] )[A-Z][a-zà-ÿ]+(?:[ -][A-Z][a-zà-ÿ]+)*|(?i:\b(?:berths?|blocks?|bays?|holds?|"
                        r"terminals?|quays?|gates?|yards?|areas?|zones?|rows?|tiers?|Liegepl(?:a|ä)tze?|muelles?|"
                        r"quais?)\s+(?:[A-Z]|\d+)\b|\b(?:under|below|on|above|unter|bajo|sous|sur)\s+(?:the\s+)?deck\b|"
                        r"\ban deck\b|\bbajo cubierta|\bsous le pont)"),
    # a name, or a role a procedure names ("the approval of the claims manager")
    "party": re.compile(r"(?<=[a-z,;:] )[A-Z][\w&.-]+(?:[ -][A-Z][\w&.-]+)*|\bthe (?:[a-z]+ )?(?:manager|officer|master|"
                        r"captain|surveyor|broker|agent|authority|department|desk|team|supervisor|director|inspector)\b"),
    # who: a person or a body by name (words in title case, not a code in capitals such as "USD" or
    # "IMDG"), or a role ("the duty officer", "Claims Handler" under a signature)
    "person": re.compile(r"(?:(?<=[a-z,;:(] )|^)[A-Z][a-zà-ÿ][\w&.-]*(?:[ -][A-Z][\w&.-]+)+|(?<=[a-z,;:] )[A-Z][a-zà-ÿ]{2,}\b"
                         r"|\[PERSON\]"  # a name the ingest withheld is still someone named there
                         r"|(?i:\b(?:manager|officer|master|captain|surveyor|broker|agent|authority|department|desk|"
                         r"team|supervisor|director|inspector|coordinator|handler)\b)"),
    "number": re.compile(r"\b\d+\b"),
    # a temperature: a number with degrees, or a signed number of Celsius ("-18 C", "+5 °C", "41 °F")
    "temperature": re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)?\s?(?:°|º|degrees?\b|deg\b|grad\b|grados\b|degr[ée]s\b)|"
                              r"[-+\u2212]\d+(?:[.,]\d+)?\s?[CF]\b", re.I),
    # a cause, said as one ("the suspected source is", "because", "debido a", "## Cause" over it)
    "cause": re.compile(r"\b(?:caus\w*|because|due to|source|reason\w*|result(?:ed|s)? (?:of|from)|owing to|traced|"
                        r"weil|wegen|aufgrund|ursache\w*|grund|debido|porque|causa\w*|parce que|à cause|en raison|"
                        r"dû|due à)\b", re.I),
}
# Which kind a question asks for, from its interrogative (English, German, Spanish, French).
ASKS = [
    ("temperature", r"\b(?:what|which|at what|wh?ich)\s+(?:set[- ]?point\s+)?temperature|\bhow (?:cold|warm|hot)\b|"
                    r"\bwelche temperatur|\bqu[eé] temperatura|\ba qu[eé] temperatura|\bquelle temp[ée]rature"),
    ("duration", r"how long|for how long|how many (?:days|hours|weeks|minutes)|,?\s*in (?:days|hours|weeks)\s*\??$|wie lange|cu[aá]nto tiempo|"
                 r"combien de temps|within how|cu[aá]nto (?:\w+ )?(?:esper\w*|tarda\w*|dura\w*)|"
                 r"cu[aá]ntos (?:d[ií]as|horas|semanas)|wie viele (?:tage|stunden|wochen)|combien (?:de |d['’])(?:jours|heures)"),
    ("amount", r"how much|what (?:is the )?(?:fee|charge|cost|rate|price|amount|premium|penalty|surcharge)|"
               r"how (?:big|large|high) (?:an? )?(?:[\w-]+ )?(?:difference|deviation|gap|discrepancy|fine|fee|charge|"
               r"penalty|deposit|margin|tolerance)|wie viel|wieviel|wie hoch|cu[aá]nto (?:cuesta|cobra|es)|combien (?:co[uû]te|facture)|what amount"),
    # "when" asks only where it opens the question or a clause ("What stops when a signal is raised" does not)
    ("date", r"(?:^|[,;:]\s*|\s[-–]\s*|\band\s+)(?:\w+\s+)?when\b|(?:what|which) (?:date|day|time)|by what time|"
             r"(?:^|[,;:]\s*|\s[-–]\s*)(?:wann|cu[aá]ndo|quand)\b|what deadline|how (?:early|soon|far ahead)"),
    ("place", r"\bwhere\b|which (?:port|terminal|berth|city|country)|\bwo\b|d[oó]nde|\bo[uù]\b"),
    ("person", r"\bwho(?:'s|se)?\b|\bwer\b|qui[eé]n|\bqui\b"),
    ("party", r"which (?:company|carrier|party|authority|agent|insurer)"),
    ("cause", r"\bwhy\b|what (?:caused|causes|was the cause|is the cause|led to|made)\b|\bcaused?\b|\bwarum\b|"
              r"\bwieso\b|\bweshalb\b|ursache|por qu[eé]\b|\bcausa\b|pourquoi|\bcause\b"),
    ("number", r"how many|wie viele|cu[aá]nt[oa]s|combien de"),
    # no interrogative of its own ("cosco plug-in fee for reefers?"): a word for money asks an amount
    ("amount", r"\b(?:amounts?|fees?|fines?|charges?|costs?|rates?|prices?|premiums?|penalt(?:y|ies)|surcharges?|tariffs?|"
               r"liabilit(?:y|ies)|compensation|percentage|per ?cent|geb(?:ü|ue)hr\w*|kosten|bu(?:ß|ss)geld\w*|"
               r"haftung\w*|prozent\w*|tarifa\w*|multas?|porcentaje|frais|tarif|amendes?|pourcentage)\b"),
    # and a word for a time limit or an expected arrival asks when ("maersk reefer gate-in cut-off?", "its ETA")
    ("date", r"\bcut-?offs?\b|\bdeadlines?\b|\bet[ad]s?\b|\bfrist\w*|\bplazo\w*|\bd[ée]lai\w*"),
]
# function words of the corpus' four languages: they tell nothing about which sentence answers
_STOP = set("""the a an of in on at to for from and or is are was were be by as it its with what which who how when
where this that there do does did can could would should will may must per after before than into
el la los las lo un una unos unas del al de en por para con que qué se le les su sus es son
le la les un une des du au aux pour avec sur dans par qui que quoi est sont ce cette
der die das den dem des ein eine einen einem und oder mit für von auf aus bei ist sind was wie wann wer
kein keine keinen keinem keiner nicht wenn werden wird wurde wurden welche welcher welches im zu zum zur unter
hat haben habe hatte hatten war waren sein es sich man noch""".split())


@dataclass(frozen=True)
class Reading:
    kind: str | None                # the kind of answer asked, None when the question asks no kind
    subject: str | None             # the document the sentence comes from
    sentence: str | None            # None: no passage of the lead document holds the kind asked
    withheld: bool = False          # the sentence that answers names the person only as the ingest's [PERSON]


def asked_kind(question: str) -> str | None:
    for kind, pattern in ASKS:
        if re.search(pattern, question, re.I):
            return kind
    return None


# Spanish and French verb endings of the past and the first person plural (English words rarely end so)
_ROMANCE_VERB = ("ieron", "aron", "emos", "amos", "imos", "iendo", "ando", "ions", "âmes")


def word_root(word: str) -> str:
    """A rough root, enough to meet "diverted" with "divert", "claimed" with "claim", "gated" with "gate"
    and "ofrece" with "ofrecieron" and "Ofrecemos" (the timeline meets told events by it too)."""
    w = _suffixless(word)
    # a final vowel of a longer root goes too: "ofrece" and "ofrec", "charge" and "charg(ed)"
    return w[:-1] if len(w) >= 6 and w[-1] in "aeo" else w


# how often, said as one word: "daily" is "per day"
_EVERY = {"daily": "day", "weekly": "week", "monthly": "month", "hourly": "hour", "yearly": "year", "annual": "year"}
_TIME_UNITS = frozenset(_EVERY.values())


def _suffixless(word: str) -> str:
    if word.lower() in _EVERY:
        return _EVERY[word.lower()]
    for suffix in _ROMANCE_VERB:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    w = stem(word)
    if w.endswith("ed") and len(w) == 5:
        return w[:-1]  # "gated", "noted": the verb itself
    for suffix in ("ing", "ed", "es", "ly", "er"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


def _stems(text: str) -> set[str]:
    """The words' roots, cut to their first six letters: "ofrece" meets "Ofrecemos", "diverted" "divert"."""
    return {word_root(w)[:6] for w in re.findall(r"[a-zà-ÿ0-9]+", text.lower())
            if w not in _STOP and (len(w) > 2 or w.isdigit())}


@functools.lru_cache(maxsize=4096)  # each sentence is read for its document counts, then for what it shares
def _read_stems(sentence: str) -> frozenset[str]:
    """The sentence's roots, and those of the English the glossary gives for its French, Spanish or German
    words: "Schiffe ... laufen zuerst Bremerhaven an" meets "where do the ships go instead?"."""
    english = [glossary.WORDS[k] for w in re.findall(r"[^\W\d_]+", sentence) if (k := glossary.key_of(w)) in glossary.WORDS]
    return frozenset(_stems(sentence) | _stems(" ".join(english)))


def _identifying(text: str) -> set[str]:
    """The words that say which document this is: its headings and the "Key: value" lines before its
    first paragraph ("Vessel: Cape Meridian ..."). They tell the document, not the sentence."""
    out: set[str] = set()
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#") or re.match(r"[A-Za-zÀ-ÿ][\w /-]{0,30}:\s", stripped):
            out |= _stems(stripped)
        elif stripped:
            break
    return out


def names_given(question: str) -> list[str]:
    """The names of two or more capitalised words the question gives inside it ("Westcoast Interiors",
    "Cape Meridian"); not its first word, which any sentence capitalises."""
    return [m.group(0) for m in re.finditer(r"(?<=[\w,;:] )[A-Z][\w&'-]*(?: [A-Z][\w&'-]*)+", question)]


def _names_written(question: str, text: str) -> set[str]:
    """A name the question gives that the document writes: it says which document, like its heading,
    wherever the document writes it."""
    low = text.lower()
    return set().union(*(_stems(name) for name in names_given(question) if name.lower() in low))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_rows(lines: list[str]) -> tuple[list[str], set[int]]:
    """Each row of a markdown table read with its header ("Cut-off: VGM; When: 24 hours before
    berthing"): a row's cells mean what their column headings say. Returns the rows and the indexes
    of the table's lines (header and separator included)."""
    rows: list[str] = []
    used: set[int] = set()
    header: list[str] = []
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            header = []
            continue
        used.add(i)
        if re.fullmatch(r"\|?[\s:|-]+\|?", line.strip()):
            continue  # the separator
        if i + 1 < len(lines) and re.fullmatch(r"\|?[\s:|-]+\|?", lines[i + 1].strip()):
            header = _cells(line)
            continue
        cells = _cells(line)
        if header and len(header) == len(cells):
            rows.append("; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True)))
        else:
            rows.append(", ".join(cells))
    return rows, used


def sentences(text: str) -> list[str]:
    """A passage cut into sentences (and list items, and table rows with their headings), headings dropped;
    a heading that says what the line under it is ("## Cause" over "Parametric rolling ...") goes before it."""
    raw = _headed(_signed(text.split("\n")))
    rows, table_lines = _table_rows(raw)
    lines = [ln.strip(" -*\t") for i, ln in enumerate(raw) if i not in table_lines]
    out: list[str] = []
    for line in lines:
        # not after a day written "12." before its month ("Donnerstag, den 12. Juni")
        out += [s.strip() for s in re.split(r"(?<=[.!?;])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Z0-9¿¡])", line)
                if len(s.strip()) > 12]
    return out + [r for r in rows if len(r) > 12]


def _signed(lines: list[str]) -> list[str]:
    """Short lines in a row without a full stop, as a letter ends ("Kind regards," / "Annika Vogt" /
    "Dangerous Goods Coordinator"), read as one line: who signed it, with their role."""
    out: list[str] = []
    short = False
    for line in lines:
        stripped = line.strip()  # a blank line ends a run: a paragraph is no signature
        is_short = 0 < len(stripped) <= 40 and not stripped.startswith(("|", "-", "*", "#")) and \
            not stripped.endswith((".", "!", "?", ":", ";"))
        if is_short and short and out:
            out[-1] = f"{out[-1].rstrip(', ')}, {stripped}"
        else:
            out.append(line)
        short = is_short
    return out


def _headed(lines: list[str]) -> list[str]:
    """The lines without their headings; a heading that says the kind of what is under it ("## Cause")
    written before the line under it."""
    out, heading = [], ""
    for line in lines:
        if line.lstrip().startswith("#"):
            words = line.strip("# \t").split()
            heading = " ".join(words) if 0 < len(words) <= 2 and HOLDS["cause"].search(" ".join(words)) else ""
        elif line.strip():
            out.append(f"{heading} – {line.strip()}" if heading and not line.lstrip().startswith(("-", "*", "|"))
                       else line)
            heading = ""
    return out


_ASKS_WHO_PAYS = re.compile(r"\b(?:bill\w*|pays?|paid|paying|charg\w*|invoic\w*|liable|bears?)\b", re.I)
_PAYING_PARTY = re.compile(r"\b(?:shipper|consignee|receiver|forwarder|importer|exporter|merchant|carrier)\b", re.I)


_ASKS_AN_END = re.compile(r"\b(?:finish\w*|end|ends|ended|complet(?:e|ed|ion)|be over|be done|until when|last until|"
                          r"wrap(?:ped)? up)\b", re.I)


def _ends_said(found: list[str], sentence: str) -> list[str]:
    """"When will the dredging be finished?": the dates found that may say when something ends; a day it starts
    from is none, nor a time of day."""
    return [f for f in found if not re.search(rf"\b(?:from|as of|starting|beginning|since|effective)\s+(?:on\s+)?"
                                              rf"{re.escape(f)}", sentence, re.I) and not re.fullmatch(r"\d{1,2}:\d{2}", f)]


def _holds(kind: str, sentence: str, question: str) -> bool:
    """The sentence holds an answer of the kind; a place or a party the question itself names is
    no answer to it."""
    found = HOLDS[kind].findall(sentence) + _said_otherwise(kind, sentence, question)
    if kind in ("place", "party", "person"):
        # "the smoke-in-hold incident - where did the ship divert to?": "hold 3" is the place that
        # says which incident, not where it went ("which berths are closed?" asks for "berths 4 and 5")
        asked, context = question.lower(), _context_words(question)
        found = [f for f in found if f.lower() not in asked and not (_stems(re.sub(r"\d+", " ", f)) or {""}) <= context]
    if kind == "date" and _ASKS_AN_END.search(question):
        found = _ends_said(found, sentence)
    if kind == "number":  # "¿cuántos viajes ... en abril de 2025?": the year it gives is no count
        found = [f for f in found if not re.search(rf"(?<!\d){re.escape(f)}(?!\d)", question)]
    if kind == "amount" and _another_amount(sentence, question):
        return False
    if kind == "number" and (counted := _counted(question)):
        # "how many containers were damaged": a number of containers, not any number ("IMO 9703124")
        return re.search(rf"\b(?:\d+|{_NUMBER_WORDS})\s+(?:[\w-]+\s+){{0,2}}?{counted}", sentence, re.I) is not None
    return bool(found)


# "the settlement amount", "Claimed amount:": the word that says which amount a noun of amounts is
_WHICH_AMOUNT = re.compile(r"\b([A-Za-z]{4,})\s+(?:amount|sum|figure)s?\b", re.I)


def _another_amount(sentence: str, question: str) -> bool:
    """"What settlement amount was paid?" of "Claimed amount: USD 14,820": the sentence's amount is said to be of
    another kind than the one asked, and never of the one asked."""
    def kinds(text: str) -> set[str]:
        return {r for m in _WHICH_AMOUNT.finditer(text) if m.group(1).lower() not in _ANY_AMOUNT for r in _stems(m.group(1))}
    asked, said = kinds(question), kinds(sentence)
    return bool(asked) and bool(said) and not asked & said and not asked & _read_stems(sentence)


# words before "amount" that say no kind of amount ("the total amount", "what amount")
_ANY_AMOUNT = frozenset("total same full whole exact overall final that this which what some".split())


def _said_otherwise(kind: str, sentence: str, question: str) -> list[str]:
    """What answers the kind though its pattern does not hold it: "24 hours before loading" a when ("over six
    hours" does not); "who gets billed for it?" a party of the shipment a tariff charges ("to the shipper")."""
    if kind == "date":
        return [m.group(0) for m in HOLDS["duration"].finditer(sentence) if _BEFORE_AFTER.match(sentence, m.end())]
    if kind == "person" and _ASKS_WHO_PAYS.search(question):
        return _PAYING_PARTY.findall(sentence)
    return []


def _context_words(question: str) -> set[str]:
    """The words of the question's clauses that do not ask (the interrogative's clause does): what
    says which case it is about ("the smoke-in-hold incident on the Cape Meridian - where ...")."""
    clauses = re.split(r"\s[-–—]\s|[,;:]\s", question)
    if len(clauses) < 2:
        return set()
    asking = [c for c in clauses if asked_kind(c) is not None]
    return set().union(*(_stems(c) for c in clauses if c not in asking)) - set().union(*(_stems(c) for c in asking))


def _counted(question: str) -> str | None:
    """The roots of the noun 'how many' counts, as written and as the schema's word for it ("boxes":
    box, container), as one pattern; or None."""
    m = re.search(r"\bhow many\s+(?:of\s+the\s+)?([a-z]{3,})", question, re.I)
    if m is None:
        return None
    said = m.group(1).lower()
    meant = set(words_of(said))  # and every everyday word for the same thing ("boxes" for containers)
    roots = {word_root(w)[:6] for w in {said, *meant, *(w for w, to in SYNONYMS.items() if to in meant)}}
    return "(?:" + "|".join(re.escape(r) for r in sorted(roots)) + ")"


def read(question: str, passages: list[dict]) -> Reading:
    """The answering sentence from the passages of the first passage's document (`subject`, `text`):
    among the sentences that hold the kind asked, the one whose shared words are rarest in the
    document ("diverted" tells more than the ship's name every line repeats). None when a name the
    question gives appears nowhere in those passages: they are about something else."""
    kind = asked_kind(question)
    if not passages or (kind == "place" and _WHERE_NOW.search(question)):
        # "where's the MSC Aurora right now?": a report says where a ship was when it was written
        return Reading(kind, passages[0].get("subject") if passages else None, None)
    subject = passages[0].get("subject")
    mine = [str(p.get("text") or "") for p in passages if p.get("subject") == subject]
    if _names_missing(question, " ".join(mine)) or _codes_missing(question, " ".join(mine)):
        return Reading(kind, subject, None)
    return _withheld_or(Reading(kind, subject, _answering_sentence(question, kind, mine)))


def _answering_sentence(question: str, kind: str | None, texts: list[str]) -> str | None:
    """The sentence of one document's passages (best first) that answers each part, or the whole question;
    with the sentence after it when the question asks what comes next."""
    ranked = [(rank, s) for rank, text in enumerate(texts) for s in sentences(text)]
    if (signed := _signature(question, kind, ranked)) is not None:
        return signed
    ident = set().union(*(_identifying(text) for text in texts)) | _names_written(question, " ".join(texts))
    sentence = _each_part(question, ranked, ident) or _best_sentence(question, kind, ranked, ident)
    if sentence is None and kind in ("date", "place"):
        # "During heavy weather on 3 May 2025 the vessel rolled. Six containers were lost overboard.": the
        # time or place of what happened is often said in the sentence before the one that tells it
        paired = [(rank, f"{s} {ranked[i + 1][1]}") for i, (rank, s) in enumerate(ranked[:-1])
                  if ranked[i + 1][0] == rank and _holds(kind, s, question)]
        sentence = _best_sentence(question, kind, paired + ranked, ident) if paired else None
    return _in_its_place(question, sentence, ranked) if sentence is not None else None


def _in_its_place(question: str, sentence: str, ranked: list[tuple[int, str]]) -> str:
    """The sentence after the one it goes on from ("After that, a fee of ...": after what), and before the next
    one when the question asks what comes next."""
    said = _with_next(sentence, ranked) if _WHAT_NEXT.search(question) else sentence
    before = _with_what_it_follows(sentence, ranked)
    return said if before == sentence else f"{before}{said[len(sentence):]}"


def _signature(question: str, kind: str | None, ranked: list[tuple[int, str]]) -> str | None:
    """"Who signed the notice?": the line under the closing words, which shares no word with the question."""
    if kind != "person" or not _ASKS_SIGNER.search(question):
        return None
    return next((s for _, s in ranked if _CLOSING.match(s)), None)


# who signed or wrote a document, in the documents' four languages
_ASKS_SIGNER = re.compile(r"\b(?:signed|signs|sign|signatory|undersigned|unterschr\w*|unterzeichn\w*|verfasst|"
                          r"firm(?:ado|ada|ó|a)\b|firmante|sign[ée]e?s?|wrote|written|authored|issued|sent)\b", re.I)
# the closing words a letter's signature comes after (read as one line with it, _signed)
_CLOSING = re.compile(r"^\s*(?:kind regards|best regards|warm regards|regards|sincerely|yours(?: sincerely| faithfully)?|"
                      r"mit freundlichen gr(?:ü|ue|u)(?:ß|ss)en|freundliche gr(?:ü|ue|u)(?:ß|ss)e|viele gr(?:ü|ue|u)(?:ß|ss)e|"
                      r"(?:bien )?cordialement|salutations distingu[ée]es|atentamente|(?:un )?saludos?(?: cordiales)?)\b", re.I)


# where a thing is at this moment
_WHERE_NOW = re.compile(r"\bwhere(?:'s| is| are)?\b.*\b(?:right now|now|currently|at the moment|atm|at present|"
                        r"these days|today)\b", re.I)


# "what happens now", "what do we do": what follows is said after the sentence that names the case
_WHAT_NEXT = re.compile(r"\bwhat (?:happens|happened|now|next|then)\b|\bwhat (?:do|should|must|can) (?:i|we)\b|"
                        r"\bwhat to do\b|\bnext steps?\b", re.I)


def _with_next(sentence: str, ranked: list[tuple[int, str]]) -> str:
    """The sentence and the one after it in its passage ("... must stay on the quay. The carrier tells the
    shipper, who must correct the data"), when the passage goes on."""
    for i, (rank, s) in enumerate(ranked[:-1]):
        if s == sentence and ranked[i + 1][0] == rank:
            return f"{sentence} {ranked[i + 1][1]}"
    return sentence


def _withheld_or(reading: Reading) -> Reading:
    """The reading, or no sentence when it answers "who" with a name the ingest withheld."""
    if reading.kind == "person" and reading.sentence is not None and _names_only_withheld(reading.sentence):
        return Reading(reading.kind, reading.subject, None, withheld=True)
    return reading


def _names_only_withheld(sentence: str) -> bool:
    """The sentence names someone only as the sanitiser's placeholder: no run of words in title case
    outside it but a role ("Yours sincerely, [PERSON], Claims Handler")."""
    # (under a letter's closing words, what follows the name is the signer's role, in any language)
    rest = sentence.split("[PERSON]")[0] if _CLOSING.match(sentence) else sentence.replace("[PERSON]", " ")
    names = [m.group(0) for m in re.finditer(r"(?<=[a-z,;:] )[A-Z][a-z]+(?: [A-Z][a-z]+)+", rest)
             if not HOLDS["person"].fullmatch(m.group(0).split()[-1].lower())]
    return "[PERSON]" in sentence and not names


def _each_part(question: str, ranked: list[tuple[int, str]], ident: set[str]) -> str | None:
    """Two questions in one ("the deadline, and how much is the fine?"): a sentence for each, read with
    the part's own words, together; None for one question, or when a part finds none (then the question
    is read whole, as one)."""
    parts = asking_parts(question)
    parts = parts if len(parts) > 1 else _two_things_asked(question)
    if len(parts) < 2:
        return None
    found = [_best_sentence(p, asked_kind(p), ranked, ident) for p in parts]
    found = [_with_what_it_follows(s, ranked) if s else s for s in found]
    # ("what's the plug-in fee, and when does it start?": the part with few words of its own is answered by the
    # sentence before the fee's, "The first 24 hours are included. After that, a fee of USD 45 per day ...")
    found = [s or _held_by_another(p, [f for f in found if f]) for p, s in zip(parts, found, strict=True)]
    if not found or any(s is None for s in found):
        return None
    return " … ".join(dict.fromkeys(s for s in found if s))


# "What are Maersk's SI cut-off and the DG approval cut-off?": two things asked in one "what are"
_TWO_THINGS = re.compile(r"^\W*((?:what|which)\s+(?:are|were)\s+)(?!both\b)(.+?)\s+and\s+(?:also\s+)?(.+?)\W*$", re.I)


def _two_things_asked(question: str) -> list[str]:
    """The two things one "what are A and B?" asks, each with the head noun they share when one says it only
    once ("the SI and VGM cut-offs"); [] otherwise."""
    m = _TWO_THINGS.match(question)
    if m is None or "," in m.group(2):
        return []
    first, second = m.group(2).strip(), m.group(3).strip()
    # the head is the last word before what qualifies both ("cut-offs" of "VGM cut-offs at Maersk")
    noun = re.split(r"\s+(?=(?:at|for|of|in|on|with|from|by)\b)", second, maxsplit=1)[0]
    tail = second[len(noun):].strip()
    head = noun.split()[-1]
    if len(first.split()) < len(noun.split()) and not first.lower().endswith(head.lower()):
        first = f"{first} {head} {tail}".strip()
    return [f"what is {first}", f"what is {second}"]


# a sentence that goes on from the one before it ("After that, a plug-in fee of USD 45 per day is charged")
_FOLLOWS_ON = re.compile(r"^(?:after that|after this|thereafter|beyond that|from then on|then|after which)\b", re.I)


def _with_what_it_follows(sentence: str, ranked: list[tuple[int, str]]) -> str:
    """The sentence, after the one of its passage it goes on from when it starts by pointing back at it."""
    if not _FOLLOWS_ON.match(sentence):
        return sentence
    at = next((i for i, (_, s) in enumerate(ranked) if s == sentence), 0)
    return f"{ranked[at - 1][1]} {sentence}" if at > 0 and ranked[at - 1][0] == ranked[at][0] else sentence


def _held_by_another(part: str, found: list[str]) -> str | None:
    """A part with no sentence of its own ("and when does it start?") answered by the words found for another part,
    when they hold the kind it asks (a start is said as a day or as a length: "the first 24 hours")."""
    kind = asked_kind(part)
    kinds = ("date", "duration") if kind == "date" else (kind,) if kind else ()
    return next((s for s in found if any(_holds(k, s, part) for k in kinds)), None)


# the words of the things every document of the corpus speaks of (ships, boxes, cargo, ports), as the reader compares
# them: sharing only those, a sentence is not about what a question asks
_THINGS_EVERY_DOCUMENT_NAMES = frozenset(word_root(w)[:6] for w in """ship ships shipping vessel vessels container
containers box boxes cargo port ports carrier carriers voyage voyages""".split())


# where a second question starts: after a question mark, or at "and" before an interrogative
_SECOND_QUESTION = re.compile(
    r"\?\s+(?=\S)|\s+(?:and|y|et|und)\s+(?=(?:how|what|which|who|where|when|qu[eé]|cu[aá]\w*|c[oó]mo|d[oó]nde|"
    r"qui[eé]n\w*|quel\w*|combien|comment|o[uù]|quand|qui|wie\w*|was|wo|wann|wer|welche\w*)\b)", re.I)


def asking_parts(question: str) -> list[str]:
    """The questions a question holds, each with its own words ("ISF deadline", "how much is the fine")."""
    return [p.strip(" ?¿,") for p in _SECOND_QUESTION.split(question) if _stems(p)]


# a length asked in a unit ("how many hours", "in days"): the sentences that say one in it come first
_UNIT_ASKED = re.compile(r"\b(?:how many|in|number of)\s+(hours|days|weeks|minutes)\b", re.I)
_MEASURED = ("amount", "duration", "date")
# the words that ask for money, as the reader compares them
_MONEY_WORDS = frozenset(word_root(w)[:6] for w in """fee fees charge charges charged charging cost costs price prices
rate rates tariff surcharge pay paid payable""".split())
# a duration that says when: counted before or after something
_BEFORE_AFTER = re.compile(r"\s*(?:\)\s*)?(?:before|after|prior|ahead|in advance|vor\b|nach\b|antes|despu[eé]s|avant|apr[eè]s)", re.I)


def _best_sentence(question: str, kind: str | None, ranked: list[tuple[int, str]],
                   ident: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The sentence holding the kind asked whose words shared with the question are rarest in the
    document (each counts 1 + log(sentences / sentences using it); a word that names the document, a
    quarter, as does one of a clause that only says which case), earlier passages first on a tie."""
    df: dict[str, int] = {}
    for _, s in ranked:
        for w in _read_stems(s):
            df[w] = df.get(w, 0) + 1
    wanted = _stems(question)
    # ("From July, where do ships go ...?": July says when, not what; without a kind asked no clause is the asking one)
    quartered = set(ident) | (_context_words(question) if kind is not None else set())
    best: tuple[float, str] | None = None
    in_unit = _in_the_unit_asked(question, kind, ranked)
    for rank, sentence in ranked:
        if (kind is not None and not _holds(kind, sentence, question)) or (in_unit and sentence not in in_unit):
            continue  # ("how many hours are free": a length in hours, when one is said, not "10 days before")
        shared = _shared_subject(wanted, kind, sentence)
        score = sum((1 + math.log(len(ranked) / df[w])) * (0.25 if w in quartered else 1) for w in shared) - 0.1 * rank
        score += 1 if in_unit else 0  # (the unit asked, said with a number, is what the question asks for)
        if best is None or score > best[0]:
            best = (score, sentence)
    return _answers(question, kind, ranked, ident, best)


def _in_the_unit_asked(question: str, kind: str | None, ranked: list[tuple[int, str]]) -> list[str]:
    """The sentences that say a length in the unit the question asks it in ("how many hours"); [] when it asks none."""
    unit = _UNIT_ASKED.search(question) if kind == "duration" else None
    if unit is None:
        return []
    return [s for _, s in ranked if _holds("duration", s, question)
            and re.search(rf"\d\s*(?:working |calendar )?{unit.group(1)[:-1]}s?\b", s, re.I)]


def _answers(question: str, kind: str | None, ranked: list[tuple[int, str]], ident: set[str] | frozenset[str],
             best: tuple[float, str] | None) -> str | None:
    """The best sentence, unless it shares nothing that counts, the question's own subject is said elsewhere, or
    for "who" it shares only the things every document speaks of."""
    wanted = _stems(question)
    subject = wanted - ident - _MONEY_WORDS - _context_words(question)
    # a cause is seldom said with the words of what it caused: the lead document's first one answers
    if best is None or (best[0] <= 0 and kind != "cause") or _said_elsewhere(subject, ranked, best[1]):
        return None
    if kind in ("party", "person") and not _shared_subject(wanted, kind, best[1]) - _THINGS_EVERY_DOCUMENT_NAMES:
        return None  # ("who invented the shipping container?": a sentence that only says "container" names no one for it)
    return best[1]


def _shared_subject(wanted: set[str], kind: str | None, sentence: str) -> set[str]:
    """The question's words the sentence uses, without those that only say the kind of answer."""
    shared = wanted & _read_stems(sentence)
    if kind in (*_MEASURED, "cause"):  # "¿cuántos días...?" meets every "nueve días": the unit is not the subject
        # (but "the daily charge" is the amount "per day")
        shared -= _stems(" ".join(m.group(0) for m in HOLDS[kind].finditer(sentence))) - (
            _TIME_UNITS if kind == "amount" else set())
    if kind == "amount":  # "what does COSCO charge for ...": "charged" says an amount, not which one
        shared -= _MONEY_WORDS
    return shared


def _said_elsewhere(wanted: set[str], ranked: list[tuple[int, str]], chosen: str) -> bool:
    """The question's own subject ("a controlled atmosphere unit for avocados") is in one sentence of
    the document only, and not in the sentence holding the kind asked: the document speaks of it
    without stating that (the plug-in fee per day is another thing's)."""
    whole = {s for _, s in ranked}
    whole = {s for s in whole if not any(s != o and s in o for o in whole)}  # a chunk's cut end is its sentence's
    said = {s: _stems(s) & wanted for s in whole}
    counts: dict[str, int] = {}
    for words in said.values():
        for w in words:
            counts[w] = counts.get(w, 0) + 1
    # the words of the question that only one other sentence uses, in the sentence that has most of them
    pinned = max((len({w for w in words if counts[w] == 1}) for s, words in said.items() if s != chosen), default=0)
    return pinned >= 2 and pinned > len(said.get(chosen, set()))


# a place the question names: a capitalised word after a preposition of place (in the corpus' four
# languages; a German noun is capitalised anywhere, so a capital alone says nothing)
_NAME = re.compile(r"\b(?:at|in|to|from|for|near|bei|nach|aus|von|im|am|en|à|a|de|del|desde|para|pour)\s([A-Z][a-zà-ÿ]{3,})\b")


def _names_missing(question: str, text: str) -> bool:
    """A place the question names ("at Felixstowe") that the document's passages never write."""
    low = text.lower()
    # its first six letters are enough: "Hamburger Hafen" is written "Hamburg", a German noun is capitalised
    return any(m.group(1).lower()[:6] not in low for m in _NAME.finditer(question) if m.group(1).lower() not in _STOP)


# a code a question names: letters and at least three digits together ("CL-2025-0533", "HLXU2099342", "874E")
_CODE = re.compile(r"(?<![\w-])(?=[\w-]*[A-Za-z])(?=(?:[\w-]*\d){3})[\w-]+")


def _codes_missing(question: str, text: str) -> bool:
    """A code the question names (a claim, a box, a voyage) that the document's passages never write: the
    document is about another case ("claim CL-2025-0533" is not answered from claim CL-2025-0502's file).
    Compared without spaces and hyphens ("UN3480" is written "UN 3480")."""
    written = re.sub(r"[\s-]+", "", text.lower())
    return any(re.sub(r"-+", "", code.lower()) not in written for code in _CODE.findall(question))

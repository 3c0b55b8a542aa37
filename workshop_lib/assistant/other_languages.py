"""A question in French, Spanish or German read in English, word by word, for the offline handlers.

The workshop's documents are in four languages, and so are its users; the schema's comments, the
planner and the catalog's descriptions are in English. A question in another language is first
answered as it is (the documents read it in its own language); when nothing grounds it, it is read
again in English: the words of asking, the tables' nouns, the columns' attributes, months and the
small words between them, from the glossary below. Names, codes and numbers are kept as written.
A word the glossary does not know stays as it is, so the planner, which explains every word it
uses, declines a reading it cannot use; the answer says how the question was read.
"""
from __future__ import annotations

import functools
import re

from workshop_lib.assistant import planner
from workshop_lib.assistant.glossary import MONTHS, PHRASES, WORDS, WORDS_CAPITALISED, common_words, key_of
from workshop_lib.assistant.value_links import unaccented
from workshop_lib.data import countries
from workshop_lib.data.catalog import ITEMS
from workshop_lib.data.supplychain_data import TABLES


def in_english(question: str) -> str | None:
    """The question read in English, or None when no word of it was read (it is English already) or
    a word of its own language is left that no reading knows."""
    text, phrases = _phrases_read(_word_order_read(_numbers_in_english(question)))
    german = _GERMAN.search(question) is not None
    out: list[str] = []
    changed = len(phrases)
    tokens = re.findall(r"§\d+|\d+(?:[.,]\d+)+|[\w'’-]+|[^\w\s]", text)
    for at, token in enumerate(tokens):
        if token.startswith("§"):
            out.append(phrases[int(token[1:])])
            continue
        token = _compound_split(token)
        named = not german and _inside_a_name(tokens, at)  # (German writes every noun with a capital)
        read = token if named else _word_read(token, out, german)
        if read == token and not named and _left_in_its_language(token):
            return None  # a word left in its own language ("cobraría"): no reading a handler can trust
        if read == token and token[:1].isupper() and not token.isascii():
            read = unaccented(token)  # a name in English letters ("Róterdam" read as "Roterdam")
        out.append(read)
        changed += read.lower() != token.lower()
    if not changed:
        return None
    english = " ".join(w for w in out if w)
    english = re.sub(r"\(\s*\)", " ", english)  # an aside read as nothing
    return re.sub(r"\s+([?.,!:;])", r"\1", re.sub(r"\s{2,}", " ", english)).strip()


def _left_in_its_language(token: str) -> bool:
    """A word in lower case that no reading knows and English does not have."""
    return token.isalpha() and token[:1].islower() and not _is_english(token)


def _inside_a_name(tokens: list[str], at: int) -> bool:
    """"Frutas del Maule", "Casa de Campo": a small word between two words written with a capital (not the first of
    the sentence) is part of the name, kept as written."""
    # (an abbreviation in capitals is no name's first word: "la ETA del Ever Acme" is the ETA of the Ever Acme)
    return tokens[at].lower() in _NAME_PARTICLES and 1 < at < len(tokens) - 1 and tokens[at - 1][:1].isupper() \
        and not tokens[at - 1].isupper() and tokens[at + 1][:1].isupper() and tokens[at - 2] not in ".?!¿¡"


_NAME_PARTICLES = frozenset({"de", "del", "da", "do", "dos", "das", "di", "du", "des", "la", "le", "von", "van", "der",
                             "den", "y", "e"})


# German's own small words: a sentence with two of them is German ("wie viele ... sind ... auf")
_GERMAN_WORD = (r"(?:wie|welche[rsmn]?|sind|ist|der|die|das|den|dem|auf|unter|mit|noch|nicht|und|wann|wo|wohin|woher|"
                r"gibt|es|für|über|unser[emns]?|bei|nochmal|bitte)")
_GERMAN = re.compile(rf"\b{_GERMAN_WORD}\b(?:.*?)\b{_GERMAN_WORD}\b", re.I)


# the English words of the catalog's box names ("high cube", "open top"), said after a size as its kind
_KIND_WORDS = sorted({w for i in ITEMS if i.item_id.startswith("EQ-") for w in re.findall(r"[a-z][a-z-]+", i.name.lower())}
                     - {"container"}, key=len, reverse=True)
_SIZE_AFTER = re.compile(r"\b(conteneurs?|contenedor(?:es)?)\s+((?:[a-z]+\s+){0,2}?)(?:de\s+)?(\d{2})\s*(?:pieds|pies|['’])"
                         rf"((?:\s+(?:{'|'.join(map(re.escape, _KIND_WORDS))})\b)*)", re.I)


def _numbers_in_english(question: str) -> str:
    """Numbers as English writes them: "8.000 USD" and "48 000 USD" are 8,000 and 48,000, "2,5 t" is 2.5 in the other
    three languages (a space between thousands only before a unit or a currency)."""
    question = re.sub(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+)(?![\d.,])", lambda m: m.group(1).replace(".", ","), question)
    question = re.sub(r"(?<![\d.,])(\d{1,3}(?:[ \u00a0\u202f]\d{3})+)(?=\s?(?:USD|EUR|€|\$|kg|t|tonnes|euros?|dollars?)\b)",
                      lambda m: re.sub(r"\s", ",", m.group(1)), question)
    return re.sub(r"(?<![\d.,])(\d+),(\d{1,2})(?![\d.,])", r"\1.\2", question)


def _word_order_read(question: str) -> str:
    """The question with the ways of writing that are not words' own put as English writes them: French
    elisions, feet, German days, German verbs split or put last."""
    text = re.sub(r"[¿¡«»„“”]", " ", question)
    # French elides: "d'arrivée" is "de arrivée", "l'Ever Acme" is "le Ever Acme"
    text = re.sub(r"\b(d|l|qu)['’](?=\w)", lambda m: {"d": "de ", "l": "le ", "qu": "que "}[m.group(1).lower()], text,
                  flags=re.I)
    # "20-Fuß-Container" is a 20' container; German "am 4. Juni" is "on 4 June"
    text = _FEET.sub(lambda m: f"{m.group(1)}' ", text)
    # "un conteneur reefer 40 pieds", "un contenedor reefer de 40 pies": the size goes first, as English puts it
    # ("conteneurs frigorifiques 40' high cube": the kind said in English after the size goes with it)
    text = _SIZE_AFTER.sub(lambda m: f"{m.group(3)}'{m.group(4) or ''} {m.group(2) or ''}{m.group(1)}", text)
    text = _GERMAN_DAY.sub(lambda m: f"on {m.group(1)} " if key_of(m.group(2)) in MONTHS else m.group(0), text)
    text = _SEPARATED.sub(lambda m: f"{m.group(3).lower()}-{m.group(1)}{m.group(2)}{m.group(4)}", text)
    # "von Hamburg nach Tanjung Pelepas", "de Valencia a Tanger Med": a route, from one name to another
    text = _ROUTE.sub(lambda m: f"from {m.group(1)}to ", text)
    text = _FROM_OUT.sub(lambda m: f"from {m.group(1).rstrip()}", text)  # "von Hamburg aus"
    text = _HOW_MUCH_LAST.sub("how much", text)  # "il mesure combien ?": no noun after it, an amount
    return _PARTICIPLE_LAST.sub(_participle_first, text)


_HOW_MUCH_LAST = re.compile(r"\bcombien(?=\s*(?:[?.!]|$))", re.I)
_FROM_OUT = re.compile(r"\bvon\s+((?:[A-Z][\w-]*\s+){1,4}?)aus\b")
_ROUTE = re.compile(r"\b(?:von|vom|de|desde|du)\s+((?:[A-Z][\w-]*\s+){1,4}?)(?:nach|a|à|hasta|au|bis)\s+(?=[A-Z])")


def _compound_split(token: str) -> str:
    """"Open-Top-Container": a German compound of English words (or of words the glossary reads:
    "High-Cube-Kühlcontainer") read as its words; a word written hyphenated, or one the glossary reads
    whole ("an-kommt"), stays."""
    if "-" not in token or key_of(token) in _written_hyphenated() or key_of(token) in WORDS or \
            not all(_is_english(part) or key_of(part) in WORDS for part in token.split("-")):
        return token
    return " ".join(p if _is_english(p) else WORDS[key_of(p)] for p in token.split("-"))


_FEET = re.compile(r"\b(\d{2})\s*-?\s*(?:fu\u00df|fuss|pies|pieds)\b-?", re.I)
_GERMAN_DAY = re.compile(r"\b(?:am\s+)?(\d{1,2})\.\s+(?=(\w+))", re.I)  # (when a month of the glossary follows)


# a German verb whose prefix goes to the clause's end ("wann kommt die Ever Acme in Tanger Med an?"):
# read joined, as the glossary's "an-kommt"
_SEPARATED = re.compile(r"\b(kommt|kommen|f\u00e4hrt|fahrt|fahren|legt|legen|l\u00e4uft|lauft|laufen|trifft|treffen|"
                        r"geh\u00f6rt|gehort|geh\u00f6ren|gehoren)\b"
                        r"([^?.!,]*?)\s+(an|ab|aus|ein)\s*([?.!,]|$)", re.I)


# German puts the participle last ("welche Schiffe wurden 2023 gebaut?"); English right after its verb
_PARTICIPLE_LAST = re.compile(r"\b(wurden?|worden|waren|war|sind|ist)\s+([^?.!,]{1,40}?)\s+(ge[a-z\u00e4\u00f6\u00fc\u00df]+?(?:t|en))"
                              r"\s*([?.!]|$)", re.I)


def _participle_first(m: re.Match[str]) -> str:
    """"wurden 2023 gebaut" read as "wurden gebaut in 2023": a year alone after the verb is a time."""
    rest = m.group(2).strip()
    rest = f"in {rest}" if re.fullmatch(r"(?:19|20)\d{2}", rest) else rest
    return f"{m.group(1)} {m.group(3)} {rest}{m.group(4)}"


def _phrases_read(text: str) -> tuple[str, list[str]]:
    """The text with each phrase of the glossary put apart as "§n", and the English of each, so that
    the English of a phrase is not read again word by word."""
    phrases: list[str] = []
    plain = key_of(text)
    for phrase, english in sorted(PHRASES.items(), key=lambda p: -len(p[0])):
        if (found := re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", plain)) is not None:
            text = f"{text[:found.start()]} §{len(phrases)} {text[found.end():]}"
            phrases.append(english)
            plain = key_of(text)
    return text, phrases


def _word_read(token: str, before: list[str], german: bool = False) -> str:
    """One word in English: a month, a word of the glossary (a capitalised one inside a sentence only
    when German writes it so: otherwise it is a name), else the word as written. In a German sentence
    every noun is capitalised: one the common words know is a word, not a name ("auf Schiffen")."""
    key = key_of(token)
    if (by_place := _read_by_its_place(token, key, before)) is not None:
        return by_place
    if key in MONTHS:
        return MONTHS[key]
    named = token[:1].isupper() and before and before[-1] not in ".?!" and key not in WORDS_CAPITALISED \
        and not (german and key in common_words())
    # a plural the glossary has as its singular ("frigorifiques", "refrigerados")
    key = next((k for k in (key, key[:-1] if key.endswith("s") else "", key[:-2] if key.endswith("es") else "")
                if k in WORDS), key)
    if key in WORDS:
        return token if named else WORDS[key]
    return common_words().get(key, token) if not named else token


def _read_by_its_place(token: str, key: str, before: list[str]) -> str | None:
    """A word read by the words around it or by how it is written; None for the glossary's reading."""
    if token == "\u00e0":  # French "à" (without its accent it would be English "a")
        return "at"
    if before and before[-1].isdigit() and key in _COMPASS:  # "viaje 939 Este": voyage 939 East
        return _COMPASS[key]
    if key == "que" and any(w in ("more", "less", "fewer") for w in before[-4:]):
        return "than"  # "más peso muerto que la Ever Acme": a comparison's "than"
    if key == "fahrt" and token.islower():
        return "sails"  # "fährt" sails; "die Fahrt" is the voyage
    return _country_adjective(key)


def _country_adjective(key: str) -> str | None:
    """A country's adjective with the endings of German, Spanish or French ("liberianischer", "liberiana",
    "panamaische"): the English adjective or name it begins with; None otherwise."""
    m = re.fullmatch(r"([a-z]{4,}?)(?:isch(?:e[rnsm]?)?|o|a|os|as|e|es)", key)
    return _country_words().get(m.group(1)) if m else None


@functools.cache
def _country_words() -> dict[str, str]:
    """Every English name and adjective of a country the data can hold, lower case without accents."""
    return {key_of(n): n for names in countries.NAMES.values() for n in names if " " not in n}


_COMPASS = {"este": "East", "est": "East", "ost": "East", "oeste": "West", "ouest": "West", "west": "West",
            "norte": "North", "nord": "North", "sur": "South", "sud": "South"}


def _is_english(word: str) -> bool:
    """The word, or its singular ("dates", "reefers"), is one the workshop writes in English."""
    plain = key_of(word)
    return plain in _english() or plain.removesuffix("s") in _english()


@functools.lru_cache(maxsize=1)
def _written_hyphenated() -> frozenset[str]:
    """The hyphenated words the workshop's English writes ("Hapag-Lloyd", "set-point"): kept whole."""
    return frozenset(key_of(w) for w in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)+", " ".join(_texts())))


@functools.lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    """The English the workshop writes (its schema's comments, its catalog, the planner's plain words,
    the glossary's readings): a word outside it, left as written, is not English."""
    words = {key_of(w) for w in re.findall(r"[A-Za-z]+", " ".join(_texts()))}
    return frozenset(words | planner._PLAIN | planner._QUESTION | {"per", "much", "many", "does", "did"})


def _texts() -> list[str]:
    texts = [t.comment for t in TABLES] + [c.comment for t in TABLES for c in t.columns]
    texts += [f"{i.name} {i.description} {i.price_unit}" for i in ITEMS]
    return texts + list(WORDS.values()) + list(PHRASES.values()) + list(MONTHS.values())

"""Answers in the language a user asked for ("Bitte antworte mir ab jetzt auf Deutsch", "answer me in
Spanish from now on"), offline: the answers' own fixed words are put in that language.

The offline answers are written from a few templates ("voyage 1012 (935W): arrival date 2025-06-05",
"40' dry container [EQ-40DV]: yes at Savannah (60 units)"). Their fixed words are replaced by the
French, Spanish or German ones below; names, codes, figures and dates stay as they are, and a quote
of the user's own words or of a document stays in the words it was written in. A word no entry
covers stays in English: the answer is partly translated, never invented. With a model, the model
writes in the language asked.
"""
from __future__ import annotations

import re

# the languages a user may ask for, in the words of each (the workshop's four)
NAMES: dict[str, tuple[str, ...]] = {
    "en": ("in english", "en anglais", "en inglés", "en ingles", "auf englisch"),
    "fr": ("in french", "en français", "en francais", "auf französisch", "en francés"),
    "es": ("in spanish", "en español", "en espanol", "en castellano", "auf spanisch", "en espagnol"),
    "de": ("in german", "auf deutsch", "en allemand", "en alemán", "en aleman"),
}

# each language by its bare name, in the four languages
_BARE: dict[str, tuple[str, ...]] = {
    "en": ("english", "anglais", "inglés", "ingles", "englisch"),
    "fr": ("french", "français", "francais", "francés", "frances", "französisch"),
    "es": ("spanish", "español", "espanol", "castellano", "espagnol", "spanisch"),
    "de": ("german", "deutsch", "allemand", "alemán", "aleman"),
}
_BARE_NAME = "|".join(w for words in _BARE.values() for w in words)
# a language switched to by its name alone: "English again please", "back to English", "switch to German"
_SWITCHED = re.compile(rf"\b(?:back to|switch\w*(?: me)? to|go(?:ing)? back to|change to|only)\s+(?:the\s+)?({_BARE_NAME})\b|"
                       rf"\b({_BARE_NAME})\s+(?:again|only|instead|from now on|from here on|please)\b", re.I)


def name_of(code: str) -> str:
    """"es" -> "Spanish": a language's name in English (the acknowledgement's words)."""
    return _BARE[code][0].capitalize() if code in _BARE else code


def switched(sentence: str) -> str | None:
    """The language a sentence switches to by its bare name ("Forget the Spanish, English again please"), or None."""
    m = _SWITCHED.search(sentence)
    word = (m.group(1) or m.group(2)).lower() if m else ""
    return next((code for code, words in _BARE.items() if word in words), None)


# an answer's fixed words, longest first where one holds another: (French, Spanish, German)
_WORDS: dict[str, tuple[str, str, str]] = {
    "From what you told me": ("D'après ce que vous m'avez dit", "Según lo que me dijiste", "Laut Ihren Angaben"),
    "You told me on": ("Vous me l'avez dit le", "Me lo dijiste el", "Sie haben es mir gesagt am"),
    "you told me on": ("vous me l'avez dit le", "me lo dijiste el", "Sie haben es mir gesagt am"),
    "The next voyage of": ("Le prochain voyage de", "El próximo viaje de", "Die nächste Reise von"),
    "arrival date": ("date d'arrivée", "fecha de llegada", "Ankunft"),
    "departure date": ("date de départ", "fecha de salida", "Abfahrt"),
    "gross weight": ("poids brut", "peso bruto", "Bruttogewicht"),
    "vessel name": ("navire", "buque", "Schiff"),
    "destination": ("destination", "destino", "Ziel"),
    "origin": ("origine", "origen", "Abfahrtshafen"),
    "yes at": ("oui, à", "sí, en", "ja, in"),
    "no at": ("non, à", "no, en", "nein, in"),
    "units": ("unités disponibles", "unidades disponibles", "Einheiten verfügbar"),
    "vessels": ("navires", "buques", "Schiffe"),
    "vessel": ("navire", "buque", "Schiff"),
    "voyages": ("voyages", "viajes", "Reisen"),
    "voyage": ("voyage", "viaje", "Reise"),
    "containers": ("conteneurs", "contenedores", "Container"),
    "container": ("conteneur", "contenedor", "Container"),
    "carrier": ("armateur", "naviera", "Reederei"),
    "status": ("statut", "estado", "Status"),
    # the data answers' own words ("There are 3 containers for voyage 1043", "duration 14 days")
    "There are": ("Il y a", "Hay", "Es gibt"),
    "There is": ("Il y a", "Hay", "Es gibt"),
    "duration": ("durée", "duración", "Dauer"),
    "days": ("jours", "días", "Tage"),
    "day": ("jour", "día", "Tag"),
    "for": ("pour", "para", "für"),
    "with": ("avec", "con", "mit"),
    "or": ("ou", "o", "oder"),
    "capacity": ("capacité", "capacidad", "Kapazität"),
    "length": ("longueur", "eslora", "Länge"),
    "flag state": ("pavillon", "bandera", "Flagge"),
    # (the other columns' names as the answers write them)
    "alliance": ("alliance", "alianza", "Allianz"),
    "scac code": ("code SCAC", "código SCAC", "SCAC-Code"),
    "year built": ("année de construction", "año de construcción", "Baujahr"),
    "deadweight": ("port en lourd", "peso muerto", "Tragfähigkeit"),
    "tare weight": ("tare", "tara", "Leergewicht"),
    "reefer temp": ("température de consigne", "temperatura de consigna", "Solltemperatur"),
    "voyage number": ("numéro de voyage", "número de viaje", "Reisenummer"),
    "carrier name": ("armateur", "naviera", "Reederei"),
    "size type": ("type", "tipo", "Typ"),
    "speed": ("vitesse", "velocidad", "Geschwindigkeit"),
    "knots": ("nœuds", "nudos", "Knoten"),
    "carriers": ("armateurs", "navieras", "Reedereien"),
    "ports": ("ports", "puertos", "Häfen"),
    "port": ("port", "puerto", "Hafen"),
    "of": ("de", "de", "von"),
    "to": ("vers", "a", "nach"),
}
# the months, for a date written as the language writes it ("28. Juni 2025", not 2025-06-28)
_MONTHS = {
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split(),
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split(),
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split(),
}
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# a line of prose (a sentence the templates did not write word for word): more words of its own than this
# stays in English whole; a sentence with a few of its words translated reads as neither language
_PROSE_WORDS = 3
_OWN_WORDS = frozenset(w.lower() for key in _WORDS for w in key.split())
_COLUMN = {"fr": 0, "es": 1, "de": 2}
# what is quoted stays as written (the user's words, a document's sentence)
_QUOTE = re.compile(r"\u201c[^\u201d]*\u201d")
_QUOTE_SPLIT = re.compile(r"(\u201c[^\u201d]*\u201d)")  # the text cut around its quotes, the quotes kept
_PATTERN = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(w) for w in sorted(_WORDS, key=len, reverse=True)) +
                      r")(?![\w'-])")


def wanted(sentence: str) -> str | None:
    """The language a sentence names ("auf Deutsch", "in Spanish"), or None."""
    low = sentence.lower()
    named = [code for code, words in NAMES.items() if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", low) for w in words)]
    return named[0] if len(named) == 1 else None


def render(text: str, language: str) -> str:
    """The answer with its fixed words in the language (French, Spanish or German); quotes untouched."""
    column = _COLUMN.get(language)
    if column is None:
        return text
    # dates first, outside quotes (a quote is kept as written, its dates too)
    text = "".join(part if _QUOTE.fullmatch(part) else _DATE.sub(lambda m: _date(m, language), part)
                   for part in _QUOTE_SPLIT.split(text))
    # the text with its quotes blanked (same length, lines kept): a quote's words are never matched
    blank = _QUOTE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    kept = {n for n, line in enumerate(blank.split("\n"))
            if not any(m.group(1) not in _JOINING for m in _PATTERN.finditer(line)) or _prose(line)}
    out, at = [], 0
    for m in _PATTERN.finditer(blank):
        said = m.group(0) if blank.count("\n", 0, m.start()) in kept else _WORDS[m.group(1)][column]
        out += [text[at:m.start()], said]
        at = m.end()
    out.append(text[at:])
    return "".join(out)


def _prose(line: str) -> bool:
    """A line with more words than the templates' own: a sentence, kept whole in English."""
    words = re.findall(r"(?<![\w'-])[a-z][a-z'-]+(?![\w'-])", line)
    return sum(w not in _OWN_WORDS for w in words) > _PROSE_WORDS


def _date(m: re.Match[str], language: str) -> str:
    """A date as the language writes it: "28. Juni 2025", "28 juin 2025", "28 de junio de 2025"."""
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not 1 <= month <= 12:
        return m.group(0)
    name = _MONTHS[language][month - 1]
    return {"de": f"{day}. {name} {year}", "fr": f"{day} {name} {year}", "es": f"{day} de {name} de {year}"}[language]


# the small words between the fixed ones, put in the language only on a line that has fixed words of its
# own: a sentence of prose with its "with" alone translated reads as neither language
_JOINING = frozenset({"for", "with", "or"})

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
import unicodedata

from workshop_lib.assistant import planner
from workshop_lib.data.catalog import ITEMS
from workshop_lib.data.supplychain_data import TABLES

# several words first ("wie viele" before "wie"); each reads as the English on its right
_PHRASES = {
    "wie viele": "how many", "wieviele": "how many", "combien de": "how many", "combien": "how many",
    "cuantos": "how many", "cuantas": "how many", "cuanto": "how much", "cuanta": "how much",
    "a que puerto": "to which port", "de que puerto": "from which port", "de donde": "from where",
    "a quel port": "to which port", "de quel port": "from which port", "in welchem hafen": "in which port",
    "le plus petit": "the smallest", "la plus petite": "the smallest", "el mas pequeno": "the smallest",
    "le plus grand": "the biggest", "el mas grande": "the biggest", "en total": "in total", "au total": "in total",
    "salen de": "depart from", "sale de": "departs from", "partent de": "depart from", "part de": "departs from",
    # "all statuses" asks for no status in particular
    "todos los estados": "", "tous les statuts": "", "alle status": "",
    "in welchem jahr": "in which year", "en que ano": "in which year", "en quelle annee": "in which year",
    "ahora mismo": "right now", "en este momento": "right now", "en ce moment": "right now", "im moment": "right now",
    "en navegacion": "at sea", "en el mar": "at sea", "en mer": "at sea", "auf see": "at sea",
    "base de datos": "data", "base de donnees": "data", "en la base": "in the data", "dans la base": "in the data",
    "unter welcher flagge": "under which flag", "bajo que bandera": "under which flag",
    "sous quel pavillon": "under which flag", "est-ce que": "", "y a-t-il": "are there", "il y a": "there are",
    "hay": "are there", "gibt es": "are there", "tenemos": "", "avons-nous": "", "haben wir": "",
    "poids brut": "gross weight", "peso bruto": "gross weight", "se trouve": "is", "se encuentra": "is",
    "befindet sich": "is", "a cual": "to which", "a quel": "to which", "a ete": "was",
    "kurze frage": "quick question", "a que temperatura": "at what temperature",
    "a quelle temperature": "at what temperature", "a quelle date": "on which date", "c'est quoi": "what is",
    "c'est quel": "which", "c'est quelle": "which", "c'est qui": "who is it",
    "wie lange": "how long", "wie lang": "how long", "al dia": "per day", "por dia": "per day", "par jour": "per day", "pro tag": "per day",
}
_WORDS = {
    # asking
    "welche": "which", "welcher": "which", "welches": "which", "welchen": "which", "was": "what", "wo": "where",
    "wann": "when", "wer": "who", "wie": "how", "que": "what", "cual": "which", "cuales": "which", "donde": "where",
    "cuando": "when", "quien": "who", "como": "how", "quel": "which", "quelle": "which", "quels": "which",
    "quelles": "which", "ou": "where", "quand": "when", "qui": "who", "comment": "how",
    "ist": "is", "sind": "are", "es": "is", "son": "are", "esta": "is", "estan": "are", "est": "is", "sont": "are",
    "hat": "has", "haben": "have", "tiene": "has", "tienen": "have", "ont": "have",
    # the tables' nouns
    "schiff": "ship", "schiffe": "ships", "schiffes": "ship", "barco": "ship", "barcos": "ships", "buque": "ship",
    "buques": "ships", "navire": "ship", "navires": "ships",
    "reise": "voyage", "reisen": "voyages", "fahrt": "voyage", "viaje": "voyage", "viajes": "voyages",
    "voyage": "voyage", "voyages": "voyages", "traversee": "voyage", "traversees": "voyages",
    "hafen": "port", "hafens": "port", "haefen": "ports", "puerto": "port", "puertos": "ports",
    "port": "port", "ports": "ports",
    "container": "container", "contenedor": "container", "contenedores": "containers", "conteneur": "container",
    "conteneurs": "containers", "box": "box",
    "reederei": "carrier", "reedereien": "carriers", "naviera": "carrier", "navieras": "carriers",
    "armateur": "carrier", "armateurs": "carriers", "transportista": "carrier", "compagnie": "carrier",
    "ladung": "cargo", "carga": "cargo", "mercancia": "cargo", "cargaison": "cargo", "marchandise": "cargo",
    "tabelle": "table", "tabla": "table", "table": "table", "spalte": "column", "columna": "column",
    "colonne": "column", "feld": "field", "campo": "field", "champ": "field",
    # the columns' attributes
    "flagge": "flag", "bandera": "flag", "pavillon": "flag", "baujahr": "year built", "gebaut": "built",
    "construido": "built", "construida": "built", "construit": "built", "construite": "built",
    "kapazitat": "capacity", "capacidad": "capacity", "capacite": "capacity", "lange": "length",
    "eslora": "length", "longitud": "length", "longueur": "length", "gewicht": "weight", "bruttogewicht": "gross weight",
    "peso": "weight", "bruto": "gross", "poids": "weight", "brut": "gross", "geschwindigkeit": "speed",
    "velocidad": "speed", "vitesse": "speed", "region": "region", "abfahrt": "departure", "salida": "departure",
    "depart": "departure", "ankunft": "arrival", "llegada": "arrival", "arrivee": "arrival", "status": "status",
    "estado": "status", "statut": "status", "koordinaten": "coordinates", "coordenadas": "coordinates",
    "coordonnees": "coordinates", "temperatur": "temperature", "temperatura": "temperature",
    "temperature": "temperature", "nummer": "number", "numero": "number", "numeros": "numbers",
    # what they do
    "fahren": "sail", "navega": "sails", "navegan": "sail",
    "navigue": "sails", "naviguent": "sail", "betreibt": "operates", "betreiben": "operate", "opera": "operates",
    "operan": "operate", "exploite": "operates", "exploitent": "operate", "gestartet": "departed",
    "abgefahren": "departed", "ausgelaufen": "departed", "salio": "departed", "salieron": "departed",
    "zarpo": "departed", "parti": "departed", "partis": "departed", "partie": "departed", "partir": "depart",
    "angekommen": "arrived", "llego": "arrived", "llegaron": "arrived", "arrive": "arrived", "arrives": "arrived",
    "llega": "arrives", "llegan": "arrive", "arrivent": "arrive", "gespeichert": "stored", "steht": "is stored",
    "guarda": "stored", "almacena": "stored", "stocke": "stored", "stockee": "stored", "enthalt": "holds",
    "contiene": "holds", "contient": "holds",
    # the words between
    "zwischen": "between", "entre": "between", "und": "and", "y": "and", "et": "and", "im": "in the", "in": "in",
    "en": "in", "dans": "in", "von": "of", "vom": "of the", "de": "of", "del": "of the", "du": "of the", "des": "of the",
    "nach": "to", "al": "to", "au": "to the", "aux": "to the", "vers": "to", "hacia": "to", "aus": "from",
    "desde": "from", "depuis": "from", "unter": "under", "bajo": "under", "sous": "under", "mit": "with",
    "con": "with", "avec": "with", "fur": "for", "para": "for", "pour": "for", "der": "the", "die": "the",
    "das": "the", "den": "the", "dem": "the", "el": "the", "la": "the", "los": "the", "las": "the", "le": "the",
    "les": "the", "l": "the", "un": "a", "una": "a", "une": "a", "ein": "a", "eine": "a", "einen": "a",
    "nicht": "not", "no": "not", "pas": "not", "ne": "", "mehr": "more", "mas": "more", "plus": "more",
    "jetzt": "now", "ahora": "now", "maintenant": "now", "gerade": "now", "aktuell": "current",
    "actual": "current", "actuel": "current", "actuelle": "current", "derzeit": "currently",
    "actualmente": "currently", "actuellement": "currently", "unsere": "our", "unserer": "our",
    "nuestro": "our", "nuestros": "our", "nuestra": "our", "nos": "our", "notre": "our", "nur": "only",
    "solo": "only", "seulement": "only", "bitte": "please", "por favor": "please", "svp": "please",
    "juste": "just", "solamente": "only", "alle": "all", "todos": "all", "tous": "all", "toutes": "all",
    "total": "total", "insgesamt": "in total", "gesamt": "total", "promedio": "average", "moyenne": "average",
    "durchschnitt": "average", "grosste": "biggest", "mayor": "biggest", "plus grand": "biggest",
    "il": "it", "elle": "it", "er": "it", "sie": "they", "wurde": "was", "wurden": "were", "fue": "was",
    "doivent": "", "doit": "", "muss": "", "va": "goes", "van": "go", "vont": "go",
    "su": "its", "sus": "their", "ihre": "their", "ihr": "its", "sein": "its", "seine": "its", "leur": "their",
    "leurs": "their", "sa": "its", "ses": "its", "cuesta": "costs", "cuestan": "cost", "kostet": "costs",
    "kosten": "cost", "coute": "costs", "coutent": "cost", "precio": "price", "preis": "price", "prix": "price",
    "dia": "day", "tag": "day", "jour": "day", "pies": "feet", "pie": "foot", "fuss": "foot", "pieds": "feet",
    "cisterna": "tank", "tank": "tank", "citerne": "tank", "disponible": "available", "disponibles": "available",
    "verfugbar": "available", "cuantos": "how many",
    # more nouns, adjectives and verbs of shipping
    "porte-conteneurs": "container ship", "portacontenedores": "container ship", "containerschiff": "container ship",
    "containerschiffe": "container ships", "flotte": "fleet", "flota": "fleet", "evp": "TEU",
    "petit": "small", "petite": "small", "pequeno": "small", "klein": "small", "kleinste": "smallest",
    "grand": "big", "grande": "big", "gross": "big", "jahr": "year", "ano": "year", "annee": "year",
    "welchem": "which", "eines": "of a", "einer": "of a", "schiffs": "ship", "conteneur-citerne": "tank container",
    "conteneurs-citernes": "tank containers", "tankcontainer": "tank container", "salen": "depart", "sale": "departs",
    "partent": "depart", "part": "departs", "fahren ab": "depart", "estados": "statuses", "etats": "statuses",
    "anvers": "Antwerp", "amberes": "Antwerp", "hambourg": "Hamburg", "hamburgo": "Hamburg",
    "singapur": "Singapore", "valence": "Valencia", "aktuelle": "current", "aktuellen": "current",
    # the user's own things, for a question about what they told
    "mi": "my", "mis": "my", "mon": "my", "ma": "my", "mes": "my", "mein": "my", "meine": "my", "meinen": "my",
    "meinem": "my", "unser": "our", "unseren": "our", "unserem": "our", "cliente": "customer",
    "clientes": "customers", "client": "customer", "clients": "customers", "kunde": "customer", "kunden": "customers",
    "transporteur": "carrier", "transporteurs": "carriers", "fuhrunternehmer": "haulier", "spediteur": "forwarder",
    "oficina": "office", "bureau": "office", "buro": "office", "ciudad": "city", "ville": "city", "stadt": "city",
    "code": "code", "codigo": "code", "fecha": "date", "datum": "date", "date": "date", "prevista": "expected",
    "previsto": "expected", "prevue": "expected", "prevu": "expected", "erwartet": "expected", "sur": "on",
    "sobre": "on", "auf": "on", "quoi": "what", "nochmal": "again", "encore": "again", "sitzt": "is",
    "hub": "hub", "europeen": "European", "europeo": "European", "europaischer": "European",
    "est-il": "is it", "est-elle": "is it", "c'est": "is",
}
_MONTHS = {
    "januar": "January", "enero": "January", "janvier": "January", "februar": "February", "febrero": "February",
    "fevrier": "February", "marz": "March", "marzo": "March", "mars": "March", "april": "April", "abril": "April",
    "avril": "April", "mai": "May", "mayo": "May", "juni": "June", "junio": "June", "juin": "June", "juli": "July",
    "julio": "July", "juillet": "July", "august": "August", "agosto": "August", "aout": "August",
    "september": "September", "septiembre": "September", "septembre": "September", "oktober": "October",
    "octubre": "October", "octobre": "October", "november": "November", "noviembre": "November",
    "novembre": "November", "dezember": "December", "diciembre": "December", "decembre": "December",
}


def _plain(word: str) -> str:
    """Lower case without accents ("Häfen" -> "hafen", "cuántos" -> "cuantos")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def in_english(question: str) -> str | None:
    """The question read in English, or None when no word of it was read (it is English already) or
    a word of its own language is left that no reading knows."""
    text = re.sub(r"[¿¡«»„“”]", " ", question)
    # French elides: "d'arrivée" is "de arrivée", "l'Ever Acme" is "le Ever Acme"
    text = re.sub(r"\b(d|l|qu)['’](?=\w)", lambda m: {"d": "de ", "l": "le ", "qu": "que "}[m.group(1).lower()], text,
                  flags=re.I)
    text, phrases = _phrases_read(text)
    out: list[str] = []
    changed = len(phrases)
    for token in re.findall(r"§\d+|[\w'’-]+|[^\w\s]", text):
        if token.startswith("§"):
            out.append(phrases[int(token[1:])])
            continue
        read = _word_read(token, out)
        if read == token and token.isalpha() and token[:1].islower() and not _is_english(token):
            return None  # a word left in its own language ("cobraría"): no reading a handler can trust
        out.append(read)
        changed += read.lower() != token.lower()
    if not changed:
        return None
    english = " ".join(w for w in out if w)
    english = re.sub(r"\(\s*\)", " ", english)  # an aside read as nothing
    return re.sub(r"\s+([?.,!:;])", r"\1", re.sub(r"\s{2,}", " ", english)).strip()


def _phrases_read(text: str) -> tuple[str, list[str]]:
    """The text with each phrase of the glossary put apart as "§n", and the English of each, so that
    the English of a phrase is not read again word by word."""
    phrases: list[str] = []
    plain = _plain(text)
    for phrase, english in sorted(_PHRASES.items(), key=lambda p: -len(p[0])):
        if (found := re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", plain)) is not None:
            text = f"{text[:found.start()]} §{len(phrases)} {text[found.end():]}"
            phrases.append(english)
            plain = _plain(text)
    return text, phrases


def _word_read(token: str, before: list[str]) -> str:
    """One word in English: a month, a word of the glossary (a capitalised one inside a sentence only
    when German writes it so: otherwise it is a name), else the word as written."""
    key = _plain(token)
    if key in _MONTHS:
        return _MONTHS[key]
    if key == "fahrt" and token.islower():
        return "sails"  # "fährt" sails; "die Fahrt" is the voyage
    named = token[:1].isupper() and before and before[-1] not in ".?!" and key not in _WORDS_CAPITALISED
    return _WORDS[key] if key in _WORDS and not named else token


def _is_english(word: str) -> bool:
    """The word, or its singular ("dates", "reefers"), is one the workshop writes in English."""
    plain = _plain(word)
    return plain in _english() or plain.removesuffix("s") in _english()


@functools.lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    """The English the workshop writes (its schema's comments, its catalog, the planner's plain words,
    the glossary's readings): a word outside it, left as written, is not English."""
    texts = [t.comment for t in TABLES] + [c.comment for t in TABLES for c in t.columns]
    texts += [f"{i.name} {i.description} {i.price_unit}" for i in ITEMS]
    texts += list(_WORDS.values()) + list(_PHRASES.values()) + list(_MONTHS.values())
    words = {_plain(w) for w in re.findall(r"[A-Za-z]+", " ".join(texts))}
    return frozenset(words | planner._PLAIN | planner._QUESTION | {"per", "much", "many", "does", "did"})


# nouns German writes with a capital: read however they are written
_WORDS_CAPITALISED = frozenset({"schiff", "schiffe", "schiffes", "reise", "reisen", "fahrt", "hafen", "haefen",
                                "container", "reederei", "reedereien", "ladung", "tabelle", "spalte", "feld",
                                "flagge", "baujahr", "kapazitat", "lange", "gewicht", "bruttogewicht",
                                "geschwindigkeit", "abfahrt", "ankunft", "koordinaten", "temperatur", "nummer",
                                # an abbreviation, and the names other languages give ports
                                "schiffs", "evp", "anvers", "amberes", "hambourg", "hamburgo", "singapur", "valence",
                                "kunde", "kunden", "fuhrunternehmer", "spediteur", "buro", "stadt", "datum", "jahr"})

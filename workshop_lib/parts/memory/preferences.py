"""Preferences a user states in their own words, recognised by what they change, applied to every answer.

A sentence that is not a question and names units of one dimension (weight: tonnes or kilograms;
money: dollars or cents; distance: metres or feet; temperature: Celsius or Fahrenheit; dates: their order and separator; length: short
or detailed) is a preference: the unit said with a
negation or a complaint ("kilos are useless", "no cents", "not in kg") is refused, the other one
is wanted. It is stored in the user's scope (kind `preference`); a later one on the same
dimension supersedes it. `render` rewrites an answer's figures into the wanted unit and drops a
figure in the refused one, so no parenthesised value in that unit is left beside it.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workshop_lib.core.records import RecordDraft
from workshop_lib.parts.memory import answer_language

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

KIND = "preference"
KG_TO_LB = 2.20462262
SOURCE = "conversation"
MAX_LINES_SHORT = 3

# dimension -> unit -> the words that name it
UNITS: dict[str, dict[str, tuple[str, ...]]] = {
    # (the words in English, French, Spanish and German: the languages the workshop's documents use)
    "weight": {"tonnes": ("tonnes", "tonne", "tons", "ton", "metric tons", "toneladas", "tonnen"),
               "kg": ("kg", "kgs", "kilos", "kilo", "kilograms", "kilogram", "kilogrammes", "kilogramos", "kilogramm"),
               "lb": ("lb", "lbs", "pounds", "livres", "libras", "pfund")},
    "money": {"dollars": ("dollars", "dollar", "usd"), "cents": ("cents", "cent")},
    # the currency amounts are shown in; the data holds US dollars only, with no exchange rate
    "currency": {"USD": ("usd", "us dollars", "dollars", "dollar"), "EUR": ("eur", "euros", "euro", "€"),
                 "GBP": ("gbp", "pounds", "pound sterling", "sterling", "£", "livres sterling", "libras esterlinas"),
                 "CHF": ("chf", "swiss francs", "francs suisses", "franken"), "JPY": ("jpy", "yen"),
                 "CNY": ("cny", "rmb", "yuan", "renminbi"), "SGD": ("sgd", "singapore dollars"),
                 "AED": ("aed", "dirhams", "dirham")},
    # how dates are written: in words (9 June 2025), day first (09/06/2025), month first (06/09/2025), ISO
    "dates": {"words": ("in words", "written out", "spelled out", "spelt out", "words like"),
              "day_first": ("day first", "day-first", "dd/mm", "dd.mm", "british", "european"),
              "month_first": ("month first", "month-first", "mm/dd", "american", "us style", "us format"),
              "iso": ("iso", "yyyy-mm-dd")},
    # lengths and distances the data holds in metres: a ship's length, a port's draught
    "distance": {"m": ("metres", "meters", "metre", "meter", "mètres", "metros"),
                 "ft": ("feet", "foot", "ft", "pieds", "pies", "fuß", "fuss")},
    # the data holds reefer set points in degrees Celsius
    "temperature": {"C": ("celsius", "centigrade", "°c", "degrees c", "grados celsius", "grad celsius"),
                    "F": ("fahrenheit", "°f", "degrees f")},
    # the language the answers are written in (answer_language.py)
    "language": answer_language.NAMES,
    "length": {"short": ("short", "brief", "concise", "one line", "one-liners", "terse", "shorter", "court", "corto",
                         "kurz"),
               "long": ("detailed", "long", "full", "verbose", "longer", "in detail")},
}
_NEGATIVE_BEFORE = re.compile(r"\b(?:no|not|don't|do not|never|without|stop|instead of|rather than|drop|skip|scratch|scrap|ditch|cancel|forget|undo|"
                              r"hate|avoid|nobody|no one|can't|cannot|won't|doesn't|does not|didn't|isn't|aren't|"
                              r"pas|jamais|sans|au lieu de|sin|nunca|en lugar de|en vez de|nicht|kein\w*|ohne|statt)\b"
                              r"(?:\s+\w+){0,3}\s*$", re.I)
# "kilos are useless", "the american format confuses my team": a word for the way of writing may come between
_NEGATIVE_AFTER = re.compile(r"^\s*(?:format|style|way|ones?|version|numbers?|figures?|values?|readings?)?\s*(?:are|is)?\s*"
                             r"(?:useless|annoy\w*|confus\w*|"
                             r"wrong|bad|pointless|no use|not helpful|noise|mislead\w*)\b", re.I)
# a sentence that asks for a way of answering, not one that only uses a unit ("we paid 2,300 dollars")
_REQUEST = re.compile(r"\b(?:prefer|want|wants|wanted|again|give me|show me|use|in|please|from now on|always|rather|instead|no|not|"
                      r"write|put|format|display|"
                      r"don't|just|keep|scrap|scratch|ditch|cancel|forget|back to|switch\w*|"
                      r"en|donnez|donne|toujours|désormais|dorénavant|pas|dame|deme|siempre|por favor|"
                      r"a partir de ahora|gib|geben|immer|bitte|ab jetzt|künftig|nicht)\b", re.I)
# length is about the answers: "keep it short", "shorter answers", not "we're short on boxes"
_ABOUT_ANSWERS = re.compile(r"\b(?:answers?|answer me|repl(?:y|ies)|responses?|(?:keep|make)\s+(?:it|them|things)|write|"
                            r"r[ée]ponds|r[ée]pondez|r[ée]ponses?|fais|[ée]cri[st]|resp[oó]nde\w*|respuestas?|cont[eé]sta\w*|"
                            r"escr[ií]beme|antworte\w*|antworten|schreib\w*)\b", re.I)
_QUESTION = re.compile(r"^\s*(?:what|which|who|where|when|why|how|is|are|was|were|does|did|can|could)\b", re.I)
# A request put as a question is a standing preference when it says it holds from now on
# ("can you give me weights in tonnes from now on?"); without that it is a one-off question.
_POLITE = re.compile(r"^\W*(?:\w+\W+){0,3}?(?:can|could|would|will)\s+you\b", re.I)
_STANDING = re.compile(r"\b(?:from now on|always|going forward|in future|in the future|by default|every time|"
                       r"from here on|toujours|désormais|dorénavant|siempre|a partir de ahora|immer|ab jetzt|künftig)\b",
                       re.I)
_DATES_WORD = re.compile(r"\b(?:dates?|datums?|daten|fechas?)\b", re.I)
# a date given as the example of the format wanted ("like 9 June", "like 09/06/2025")
_EXAMPLE_WORDS = re.compile(r"\blike\s+\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
                            re.I)
_EXAMPLE_ISO = re.compile(r"\blike\s+\d{4}-\d{2}-\d{2}\b")
# a date written as its pattern ("DD.MM.YYYY", "mm/dd/yy"; the day is JJ in French, TT in German, the year AAAA
# in French and Spanish, JJJJ in German): the order and the separator wanted
_DATE_PATTERN = re.compile(r"\b(dd|jj|tt|mm)([./-])(?:mm|dd|jj|tt)\2(?:yyyy|yy|aaaa|aa|jjjj)\b", re.I)


@dataclass(frozen=True)
class Preference:
    dimension: str
    unit: str
    refused: tuple[str, ...]
    text: str
    inferred: bool = False      # the unit was not said, only the one refused ("no kilos": tonnes)


def _mentions(sentence: str, words: tuple[str, ...]) -> list[re.Match[str]]:
    return [m for w in words for m in re.finditer(rf"(?<![\w$]){re.escape(w)}(?!\w)", sentence, re.I)]


_CODES = {word: code for code, words in UNITS["currency"].items() for word in words if code != "USD"}
# (or any other currency by its ISO 4217 code in capitals: "1 USD = 5.6 BRL")
_OTHER = (r"(eur|euros?|€|gbp|pounds?(?: sterling)?|sterling|£|jpy|yen|cny|rmb|yuan|renminbi|sgd|singapore dollars|aed|"
          r"dirhams?|chf|swiss francs|francs suisses|franken|livres sterling|libras esterlinas|(?-i:(?!USD)[A-Z]{3}))")
_USD_WORD = r"(?:usd|us dollars?|dollars?|d[oó]lar(?:es)?|\$|buck)"
_NUM = r"(\d+(?:[.,]\d+)?)"
# "0.95 euros to the dollar", "0.9 EUR per USD", "1 USD = 0.92 EUR", "a dollar buys 0.95 euros"
# (and in French, Spanish, German: "0,83 CHF pour un dollar", "0,92 EUR por dólar", "0,92 EUR pro Dollar")
_RATE_AFTER = re.compile(rf"{_NUM}\s*{_OTHER}\s*(?:per|to the|to a|for (?:a|one|each|every)|a|an|/|=|for|"
                         rf"pour(?: (?:1|un))?|par|por(?: (?:1|un))?|pro|für(?: (?:1|einen))?)\s*{_USD_WORD}", re.I)
# ... and "1 USD is now 0.88 EUR", "one dollar currently = 0.9 euros": a few words may say when or how
_RATE_BEFORE = re.compile(rf"(?:\b1|\bone|\ba|\beach|\bevery)\s*{_USD_WORD}(?:\s+[a-z]+){{0,3}}?\s*[=:]?\s*{_NUM}\s*{_OTHER}",
                          re.I)


def _usd_rate(sentence: str) -> str | None:
    """The user's rate from dollars to another currency, as "EUR 0.95"; None when the sentence gives none."""
    m = _RATE_AFTER.search(sentence)
    number, name = (m.group(1), m.group(2)) if m else (None, None)
    if m is None and (m := _RATE_BEFORE.search(sentence)) is not None:
        number, name = m.group(1), m.group(2)
    if number is None or name is None:
        return None
    code = _CODES.get(name.lower()) or _CODES.get(name.lower().rstrip("s")) or _CODES.get(name.lower().split()[0]) \
        or (name if re.fullmatch(r"[A-Z]{3}", name) else None)
    rate = float(number.replace(",", "."))
    return f"{code} {rate:g}" if code and 0 < rate < 10_000 else None


_TAG_QUESTION = re.compile(r",?\s*\b(?:ok(?:ay)?|alright|all right|right|yeah|yes|please|thanks|d'accord|vale|"
                           r"okey|bitte|ja|oui|si|sí|gell)\s*\?+$", re.I)


def _states_preference(sentence: str) -> bool:
    """A sentence that asks for a way of answering: not a question, or a request put as one that
    holds from now on."""
    sentence = _TAG_QUESTION.sub("", sentence.strip())  # "..., ok?" asks for agreement, not for an answer
    asks = sentence.endswith("?") or _QUESTION.match(sentence) or \
        (_ASKS_FOR_FIGURES.match(sentence) and not _STANDING.search(sentence))
    return bool(_REQUEST.search(sentence)) and (not asks or bool(_POLITE.match(sentence) and _STANDING.search(sentence)))


# a request for figures put without a question mark ("Top 3 commodities by value, in dollars", "total VGM of
# voyage 395S in tonnes"): the unit is this answer's, not a way of answering from now on
_ASKS_FOR_FIGURES = re.compile(r"^\W*(?:(?:the\s+)?(?:top|first|bottom|last)\s+(?:\d+|one|two|three|four|five|ten)\b|"
                               r"(?:the\s+)?(?:total|sum|average|mean|number|count|list|combined)\b|"
                               r"(?:list|show|count|sum|total|rank)\s+(?:all|every|the|each|me)\b)", re.I)


# "pounds" is a weight or a currency: the words around it say which
_WEIGHT_WORDS = re.compile(r"\b(?:weights?|weigh\w*|heavy|mass|kg|kgs|kilos?|tonnes?|tons?|vgm|poids|pesos?|gewicht\w*)\b",
                           re.I)
_MONEY_WORDS = re.compile(r"\b(?:prices?|costs?|amounts?|money|currency|rates?|charges?|fees?|quotes?|usd|dollars?|"
                          r"eur|euros?|sterling|gbp|prix|precios?|preise?|montants?|importes?|beträge)\b|[$€£]", re.I)


def _about(dimension: str, sentence: str) -> bool:
    """Length is about the answers ("keep it short", not "short on boxes"); dates name dates; a
    weight or a currency is about weights or money when "pounds" could be either."""
    if dimension == "language" and answer_language.switched(sentence) is not None:
        return True
    if dimension in ("length", "language"):
        return bool(_ABOUT_ANSWERS.search(sentence))
    if dimension == "weight" and re.search(r"\b(?:pounds|livres|libras|pfund)\b", sentence, re.I):
        return bool(_WEIGHT_WORDS.search(sentence)) and not re.search(r"sterling|esterlina", sentence, re.I)
    if dimension == "currency" and re.search(r"\bpounds\b", sentence, re.I):
        return bool(_MONEY_WORDS.search(sentence)) and not _WEIGHT_WORDS.search(sentence)
    return dimension != "dates" or bool(_DATES_WORD.search(sentence))


def _wanted_and_refused(dimension: str, units: dict[str, tuple[str, ...]], sentence: str) -> tuple[list[str], list[str]]:
    wanted: list[str] = []
    refused: list[str] = []
    if dimension == "dates":  # the example given decides ("write dates out like 9 June", "as DD.MM.YYYY")
        if (pattern := _DATE_PATTERN.search(sentence)) is not None:
            order = "month_first" if pattern.group(1).lower() == "mm" else "day_first"
            return [order + pattern.group(2)], []
        wanted += ["words"] if _EXAMPLE_WORDS.search(sentence) else ["iso"] if _EXAMPLE_ISO.search(sentence) else []
    for unit, words in units.items():
        hits = _mentions(sentence, words)
        if hits:
            negative = any(_NEGATIVE_BEFORE.search(sentence[:m.start()]) or _NEGATIVE_AFTER.match(sentence[m.end():])
                           for m in hits)
            (refused if negative else wanted).append(unit)
    return list(dict.fromkeys(wanted)), refused


def extract(text: str, held: dict[str, str] | None = None) -> list[Preference]:
    """The preferences one user turn states: a rate from dollars to their currency, and the units,
    currency, dates and length a sentence asks for (see _states_preference). `held`: the user's
    preferences so far (settings()), against which a new rate said alone ("it's 0.90 now") is read."""
    out: list[Preference] = []
    for sentence in [s for s in re.split(r"(?<=[.!?;])\s+|\n+", text or "") if s.strip()][:20]:
        if (rate := _usd_rate(sentence) or _new_rate(sentence, (held or {}).get("usd_rate"))) is not None \
                and not sentence.strip().endswith("?"):
            # a rate names both currencies: it says which one the amounts are wanted in, nothing more;
            # in another currency than the one held, that one is no longer wanted ("pounds now: 1 USD = 0.79 GBP")
            out.append(Preference("usd_rate", rate, (), sentence.strip()))
            if (held_currency := (held or {}).get("currency")) and held_currency != rate.split()[0]:
                out.append(Preference("currency", rate.split()[0], (), sentence.strip()))
        elif _states_preference(sentence):
            out += _sentence_preferences(sentence)
    return _said_over_inferred(out)


def _said_over_inferred(found: list[Preference]) -> list[Preference]:
    """"All weights in pounds. Don't give me kilos at all.": a unit only refused in one sentence adds its
    refusal to the unit said in another of the turn; it does not choose a unit of its own."""
    said = {p.dimension: p for p in found if not p.inferred}
    refused = {d: p.refused for d, p in said.items()}
    for p in found:
        if p.inferred and p.dimension in said:
            refused[p.dimension] = tuple(dict.fromkeys(refused[p.dimension] + p.refused))
    # (the refusing sentence stays a preference of the turn: the turn's question is what is left without it)
    return [dataclasses.replace(p, unit=said[p.dimension].unit, refused=refused[p.dimension], inferred=False)
            if p.dimension in said else p for p in found]


# "Rate update: it's 0.90 now": one plain number where a rate is spoken of, with no currency or unit after it
_RATE_SPOKEN = re.compile(r"\b(?:rates?|exchange|conversion|fx)\b", re.I)
_PLAIN_NUMBER = re.compile(r"(?<![\w.,$€£])(\d+(?:[.,]\d+)?)(?![\w%]|[.,]\d)(?!\s*(?:[$€£]|[A-Z]{3}\b|(?i:per|a|an|each)\b|/))")


def _new_rate(sentence: str, held_rate: str | None) -> str | None:
    """A rate said again with its number alone, read in the currency of the rate the user gave before
    ("EUR 0.92" held, "the rate is 0.90 now": "EUR 0.9"); None without a rate held or a rate spoken of."""
    if held_rate is None or not _RATE_SPOKEN.search(sentence) or _SUM.search(sentence):
        return None
    numbers = _PLAIN_NUMBER.findall(sentence)
    if len(numbers) != 1:
        return None
    rate = float(numbers[0].replace(",", "."))
    return f"{held_rate.split()[0]} {rate:g}" if 0 < rate < 10_000 else None


def without_stated(text: str, stated: list[Preference]) -> str:
    """The turn without the sentences that only stated a preference ("weights in tonnes please, not
    kilos. What's the VGM of X?" asks the VGM): what is left to answer."""
    said = {p.text for p in stated}
    return " ".join(s for s in re.split(r"(?<=[.!?;])\s+|\n+", text or "") if s.strip() and s.strip() not in said)


def noted(stated: list[Preference]) -> str:
    """The acknowledgement of a turn that only stated preferences, in the user's terms."""
    said = {"weight": "weights in {}", "money": "amounts in {}", "currency": "amounts in {}", "usd_rate": "{} to the dollar",
            "dates": "dates {}", "distance": "lengths in {}", "temperature": "temperatures in °{}",
            "length": "{} answers", "language": "answers in {}"}
    parts = [said.get(p.dimension, p.dimension + " {}").format(
        answer_language.name_of(p.unit) if p.dimension == "language" else _dates_said(p.unit) if p.dimension == "dates"
        else p.unit.replace("_", " ")) for p in stated]
    return f"Noted: {', '.join(dict.fromkeys(parts))}, from now on."


def _dates_said(style: str) -> str:
    """How a date style reads in an acknowledgement: "as DD/MM/YYYY", "in words"."""
    if style == "words":
        return "in words"
    if style == "iso":
        return "as YYYY-MM-DD"
    sep = style.removeprefix("day_first").removeprefix("month_first") or "/"
    return f"as DD{sep}MM{sep}YYYY" if style.startswith("day_first") else f"as MM{sep}DD{sep}YYYY"


# a sum with its currency ("EUR 95", "95 euros", "$40"): the sum's own unit, not a way of answering
_SUM = re.compile(r"(?:\b[A-Z]{3}|[$€£])\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:[A-Z]{3}|euros?|dollars?|pounds?)\b")


# a conversion factor ("1 kg = 2.20462 lb") names both units: how to convert, not which one is wanted
_FACTOR = re.compile(r"\b\d[\d.,]*\s*[^\W\d]+\.?\s*(?:=|is|equals)\s*\d[\d.,]*\s*[^\W\d]+", re.I)


def _sentence_preferences(sentence: str) -> list[Preference]:
    out = [p for dimension, units in UNITS.items() if _about(dimension, sentence)
           and (p := _dimension_preference(dimension, units, sentence)) is not None]
    return out + _system_of_units(sentence, {p.dimension for p in out})


def _dimension_preference(dimension: str, units: dict[str, tuple[str, ...]], sentence: str) -> Preference | None:
    """The unit of one dimension a sentence asks for, or None."""
    # "they bill us EUR 95 per entry" asks for no currency
    read = _FACTOR.sub(" ", _SUM.sub(" ", sentence) if dimension in ("currency", "money") else sentence)
    wanted, refused = _wanted_and_refused(dimension, units, read)
    if dimension == "language" and not wanted and (code := answer_language.switched(sentence)) is not None:
        wanted = [code]  # "Forget the Spanish, English again please"
    if len(wanted) == 1:
        others = tuple(u for u in units if u != wanted[0])
        return Preference(dimension, wanted[0], tuple(refused) or others, sentence.strip())
    if not wanted and len(refused) == 1 and (len(units) == 2 or dimension == "weight"):
        # "no cents please": the other unit; "kilos are useless": the other metric one (listed first)
        return Preference(dimension, next(u for u in units if u != refused[0]), tuple(refused), sentence.strip(),
                          inferred=True)
    return None


# "switch me back to metric", "imperial units please": a system of units sets weights and lengths at once
_SYSTEMS = {"metric": {"weight": "kg", "distance": "m", "temperature": "C"},
            "imperial": {"weight": "lb", "distance": "ft", "temperature": "F"}}
_SYSTEM_WORD = re.compile(r"\b(metric|imperial|m[ée]trico|m[ée]trique|metrisch|imp[ée]rial)\b(?!\s+tons?\b|\s+tonnes?\b)", re.I)


def _system_of_units(sentence: str, said: set[str]) -> list[Preference]:
    """The weight and length units of the one system of units the sentence asks for, on the dimensions
    it does not name a unit of."""
    systems = {"imperial" if w.lower().startswith("imp") else "metric" for w in _SYSTEM_WORD.findall(sentence)}
    if len(systems) != 1 or _NEGATIVE_BEFORE.search(sentence):
        return []
    units = _SYSTEMS[systems.pop()]
    return [Preference(dimension, unit, tuple(u for u in UNITS[dimension] if u != unit), sentence.strip())
            for dimension, unit in units.items() if dimension not in said]


def observe(eng: Engine, text: str, *, user_id: str, agent_id: str, found: list[Preference] | None = None) -> list[str]:
    """Store the turn's preferences in the user's scope; a newer one on a dimension supersedes the older. Ids.
    `found`: the turn's preferences when the caller has already read them (extract(text))."""
    ids = []
    for pref in extract(text) if found is None else found:
        olds = [r for r in current(eng, user_id, agent_id) if (r.metadata or {}).get("dimension") == pref.dimension]
        meta = {"kind": KIND, "source": SOURCE, "subject": f"preference.{pref.dimension}", "value": pref.unit,
                "dimension": pref.dimension, "unit": pref.unit, "refused": list(pref.refused)}
        new_id = eng.store.add_records([RecordDraft(pref.text, metadata=meta, user_id=user_id, agent_id=agent_id)], "fact")[0]
        for r in olds:
            eng.store.set_status("fact", r.id, "superseded", by=user_id, reason=f"the user said: {pref.text[:200]}",
                                 replaced_by=new_id)
        ids.append(new_id)
    return ids


def current(eng: Engine, user_id: str, agent_id: str) -> list[Any]:
    return eng.store.list("fact", limit=None, user_id=user_id, agent_id=agent_id, metadata_filter={"kind": KIND})



def currency_code(said_as: str) -> str:
    """The ISO code of a currency as said ("$", "euros", "bucks", "USD"), in the words of UNITS (one not
    listed is taken as a code already)."""
    return _CURRENCY_CODE.get(said_as.lower(), said_as.upper())


_CURRENCY_CODE = {word: code for code, words in UNITS["currency"].items() for word in words} | \
    {"$": "USD", "buck": "USD", "bucks": "USD", "pound": "GBP"}


def settings(eng: Engine, user_id: str, agent_id: str) -> dict[str, str]:
    """dimension -> wanted unit, for the user."""
    return {str((r.metadata or {}).get("dimension")): str((r.metadata or {}).get("unit"))
            for r in current(eng, user_id, agent_id)}


_NUMBER = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_KG = re.compile(rf"{_NUMBER}\s?(?:kg|kgs|kilograms?|kilos?)\b", re.I)
_TONNES = re.compile(rf"{_NUMBER}\s?(?:tonnes|tonne|t)\b", re.I)
_USD = re.compile(r"\$\s?\d|\bUSD\s?\d|\d\s?(?:USD|dollars?)\b", re.I)
_CENTS = re.compile(rf"{_NUMBER}\s?cents?\b", re.I)
_METRES = re.compile(rf"{_NUMBER}\s?(?:m|metres|meters)\b(?![/\d])")
M_PER_FT = 0.3048
_CELSIUS = re.compile(r"([-−]?\d+(?:\.\d+)?)\s?°\s?C\b")
_FAHRENHEIT = re.compile(r"([-−]?\d+(?:\.\d+)?)\s?°\s?F\b")


def _num(s: str) -> float:
    return float(s.replace(",", "").replace("−", "-"))


def _fmt(x: float, decimals: int) -> str:
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _convert(text: str, pattern: re.Pattern[str], to: Any) -> str:
    # a figure in the refused unit shown in brackets beside another: dropped; any other: converted
    text = re.sub(rf"\s*\(\s*(?:about\s+|~\s*)?{pattern.pattern}\s*\)", "", text, flags=re.I)
    return pattern.sub(lambda m: to(_num(m.group(1))), text)


_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b(?!T)")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DATE_STYLES = ("words", "day_first", "month_first")


def _date_as(m: re.Match[str], style: str) -> str:
    """An ISO date (as the data holds it) in the user's style (day or month first, with the separator
    they wrote, "/" by default); a date that is not one stays as it is."""
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return m.group(0)
    if style == "words":
        return f"{day} {MONTHS[month - 1]} {year}"
    sep = style.removeprefix("day_first").removeprefix("month_first") or "/"
    return f"{day:02d}{sep}{month:02d}{sep}{year}" if style.startswith("day_first") else f"{month:02d}{sep}{day:02d}{sep}{year}"


_USD_AMOUNT = re.compile(r"(?:USD\s?|\$\s?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|"
                         r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?:USD|dollars?)\b", re.I)


def _in_currency(text: str, prefs: dict[str, str]) -> str:
    """Dollar amounts in the user's currency at the rate they gave; without a rate of theirs the
    amounts stay in dollars and the answer says why (the data holds none)."""
    rate_code, _, rate = prefs.get("usd_rate", "").partition(" ")
    currency = prefs.get("currency") or rate_code
    if currency == "USD":
        # asked for in USD, said in USD: "$49,724.36" is written "USD 49,724.36"
        return re.sub(r"\$\s?(\d[\d,]*(?:\.\d+)?)", r"USD \1", text)
    if not currency or not _USD.search(text):
        return text
    if rate_code != currency or not rate:
        return text + (f"\n(Amounts are in USD: the data holds no USD-to-{currency} rate, so I can't show them in "
                       f"{currency}.)")
    factor = float(rate)
    converted = _USD_AMOUNT.sub(lambda m: f"{currency} {float((m.group(1) or m.group(2)).replace(',', '')) * factor:,.2f}",
                                text)
    return converted + f"\n(Converted at your rate of {rate} {currency} per USD.)"


def render(text: str, prefs: dict[str, str]) -> str:
    """The answer in the user's units and length."""
    if prefs.get("weight") == "tonnes":
        text = _convert(text, _KG, lambda kg: f"{_fmt(kg / 1000, 3)} tonnes")
    elif prefs.get("weight") == "lb":
        text = _convert(text, _KG, lambda kg: f"{_fmt(kg * KG_TO_LB, 0)} lb")
    elif prefs.get("weight") == "kg":
        text = _convert(text, _TONNES, lambda t: f"{_fmt(t * 1000, 0)} kg")
    if prefs.get("money") == "dollars":
        text = _convert(text, _CENTS, lambda c: f"USD {_fmt(c / 100, 2)}")
    if prefs.get("distance") == "ft":
        text = _convert(text, _METRES, lambda m: f"{_fmt(m / M_PER_FT, 0)} ft")
    if prefs.get("temperature") == "F":
        text = _convert(text, _CELSIUS, lambda c: f"{_fmt(c * 9 / 5 + 32, 1)} °F")
    elif prefs.get("temperature") == "C":
        text = _convert(text, _FAHRENHEIT, lambda f: f"{_fmt((f - 32) * 5 / 9, 1)} °C")
    text = _in_currency(text, prefs)
    if prefs.get("dates", "").startswith(_DATE_STYLES):
        text = _ISO_DATE.sub(lambda m: _date_as(m, prefs["dates"]), text)
    if prefs.get("language"):
        text = answer_language.render(text, prefs["language"])
    if prefs.get("length") == "short":
        lines = [ln for ln in text.split("\n") if ln.strip()]
        if len(lines) > MAX_LINES_SHORT:
            text = "\n".join(lines[:MAX_LINES_SHORT]) + f"\n(and {len(lines) - MAX_LINES_SHORT} more lines)"
    return text

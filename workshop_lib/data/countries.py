"""Country names (and the adjectives people use for them: "Panamanian") as people write them, by ISO 3166-1 alpha-2 code (PORTS.COUNTRY_CODE), so a
question about "the ports in Germany" can be answered from the codes the data stores. The
list covers the dataset's countries and the other large trading nations, so that a question
about a country without a port gets "none" rather than a list of every port."""
from __future__ import annotations

import re

NAMES: dict[str, tuple[str, ...]] = {
    "AE": ("United Arab Emirates", "UAE", "Emirates"),
    "AR": ("Argentina",),
    "AU": ("Australia",),
    "BE": ("Belgium",),
    "BR": ("Brazil",),
    "CA": ("Canada",),
    "CH": ("Switzerland", "Swiss"),
    "CL": ("Chile",),
    "CN": ("China", "PRC", "Chinese"),
    "CO": ("Colombia",),
    "DE": ("Germany", "German"),
    "DK": ("Denmark", "Danish"),
    "EG": ("Egypt",),
    "ES": ("Spain",),
    "FI": ("Finland",),
    "FR": ("France", "French"),
    "GB": ("United Kingdom", "UK", "Great Britain", "Britain", "England", "British"),
    "GR": ("Greece",),
    "HK": ("Hong Kong",),
    "ID": ("Indonesia",),
    "IL": ("Israel", "Israeli"),
    "IE": ("Ireland",),
    "IN": ("India",),
    "IT": ("Italy",),
    "JP": ("Japan", "Japanese"),
    "KR": ("South Korea", "Korea", "Korean", "South Korean"),
    "LR": ("Liberia", "Liberian"),
    "LK": ("Sri Lanka",),
    "MA": ("Morocco",),
    "MH": ("Marshall Islands", "Marshallese"),
    "MX": ("Mexico",),
    "MY": ("Malaysia",),
    "NG": ("Nigeria",),
    "NL": ("Netherlands", "Holland", "Dutch"),
    "NO": ("Norway",),
    "NZ": ("New Zealand",),
    "OM": ("Oman",),
    "PA": ("Panama", "Panamanian"),
    "PE": ("Peru",),
    "PH": ("Philippines",),
    "PK": ("Pakistan",),
    "PL": ("Poland",),
    "PT": ("Portugal",),
    "QA": ("Qatar",),
    "RU": ("Russia",),
    "SA": ("Saudi Arabia",),
    "SE": ("Sweden",),
    "SG": ("Singapore", "Singaporean"),
    "TH": ("Thailand",),
    "TR": ("Turkey", "Türkiye"),
    "TW": ("Taiwan", "Taiwanese"),
    "US": ("United States", "USA", "U.S.", "US", "American"),  # not "America": that is also a continent
    "VN": ("Vietnam", "Viet Nam"),
    "ZA": ("South Africa",),
}


# Continents as people name them, by the same codes (the Middle East counted in Asia, Egypt,
# Morocco and the other North African states in Africa).
CONTINENTS: dict[str, tuple[str, ...]] = {
    "Europe": ("BE", "CH", "DE", "DK", "ES", "FI", "FR", "GB", "GR", "IE", "IT", "NL", "NO", "PL", "PT", "RU", "SE", "TR"),
    "Asia": ("AE", "CN", "HK", "ID", "IL", "IN", "JP", "KR", "LK", "MY", "OM", "PH", "PK", "QA", "SA", "SG", "TH", "TW", "VN"),
    "Africa": ("EG", "LR", "MA", "NG", "ZA"),
    "North America": ("CA", "MX", "PA", "US"),
    "South America": ("AR", "BR", "CL", "CO", "PE"),
    "Oceania": ("AU", "MH", "NZ"),
}


def _words(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the names as whole words; a name in capitals (UK, USA) only in capitals."""
    spelled = [re.escape(n) if n.isupper() else f"(?i:{re.escape(n)})" for n in sorted(names, key=len, reverse=True)]
    return re.compile(r"(?<![\w.])(?:" + "|".join(spelled) + r")(?!\w)")


_COUNTRY_WORDS = {code: _words(names) for code, names in NAMES.items()}
_CONTINENT_WORDS = {name: _words((name,)) for name in CONTINENTS}


def continents_in(text: str) -> list[str]:
    """The continents a text names (no continent's name is part of another's)."""
    return [name for name, words in _CONTINENT_WORDS.items() if words.search(text)]


def named_in(text: str) -> list[str]:
    """ISO codes of the countries a text names, in the order of NAMES ("South Korea" is Korea,
    not also a South-something). Codes are not matched, so "IN" or "TO" in capitals is no
    country; US and UK are, as names."""
    return [code for code, words in _COUNTRY_WORDS.items() if words.search(text)]


def name_of(code: str) -> str:
    return NAMES.get(code, (code,))[0]

"""Country names as people write them, by ISO 3166-1 alpha-2 code (PORTS.COUNTRY_CODE), so a
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
    "CL": ("Chile",),
    "CN": ("China", "PRC"),
    "CO": ("Colombia",),
    "DE": ("Germany",),
    "DK": ("Denmark",),
    "EG": ("Egypt",),
    "ES": ("Spain",),
    "FI": ("Finland",),
    "FR": ("France",),
    "GB": ("United Kingdom", "UK", "Great Britain", "Britain", "England"),
    "GR": ("Greece",),
    "HK": ("Hong Kong",),
    "ID": ("Indonesia",),
    "IE": ("Ireland",),
    "IN": ("India",),
    "IT": ("Italy",),
    "JP": ("Japan",),
    "KR": ("South Korea", "Korea"),
    "LK": ("Sri Lanka",),
    "MA": ("Morocco",),
    "MX": ("Mexico",),
    "MY": ("Malaysia",),
    "NG": ("Nigeria",),
    "NL": ("Netherlands", "Holland"),
    "NO": ("Norway",),
    "NZ": ("New Zealand",),
    "OM": ("Oman",),
    "PA": ("Panama",),
    "PE": ("Peru",),
    "PH": ("Philippines",),
    "PK": ("Pakistan",),
    "PL": ("Poland",),
    "PT": ("Portugal",),
    "QA": ("Qatar",),
    "RU": ("Russia",),
    "SA": ("Saudi Arabia",),
    "SE": ("Sweden",),
    "SG": ("Singapore",),
    "TH": ("Thailand",),
    "TR": ("Turkey", "Türkiye"),
    "TW": ("Taiwan",),
    "US": ("United States", "USA", "U.S.", "US"),  # not "America": that is also a continent
    "VN": ("Vietnam", "Viet Nam"),
    "ZA": ("South Africa",),
}


# Continents as people name them, by the same codes (the Middle East counted in Asia, Egypt,
# Morocco and the other North African states in Africa).
CONTINENTS: dict[str, tuple[str, ...]] = {
    "Europe": ("BE", "DE", "DK", "ES", "FI", "FR", "GB", "GR", "IE", "IT", "NL", "NO", "PL", "PT", "RU", "SE", "TR"),
    "Asia": ("AE", "CN", "HK", "ID", "IN", "JP", "KR", "LK", "MY", "OM", "PH", "PK", "QA", "SA", "SG", "TH", "TW", "VN"),
    "Africa": ("EG", "MA", "NG", "ZA"),
    "North America": ("CA", "MX", "PA", "US"),
    "South America": ("AR", "BR", "CL", "CO", "PE"),
    "Oceania": ("AU", "NZ"),
}


def continents_in(text: str) -> list[str]:
    """The continents a text names ("South America" is not also "America")."""
    found: list[str] = []
    for name in sorted(CONTINENTS, key=len, reverse=True):
        if re.search(rf"\b{re.escape(name)}\b", text, flags=re.I) and not any(name in f for f in found):
            found.append(name)
    return found


def named_in(text: str) -> list[str]:
    """ISO codes of the countries a text names, in the order of NAMES ("South Korea" is Korea,
    not also a South-something). Codes themselves are not matched: "US" is also a word."""
    found = []
    for code, names in NAMES.items():
        for name in sorted(names, key=len, reverse=True):
            if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text, flags=0 if name.isupper() else re.I):
                found.append(code)
                break
    return found


def name_of(code: str) -> str:
    return NAMES.get(code, (code,))[0]

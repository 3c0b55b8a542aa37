"""Personal data in documents: find it, count it (audit) or replace it (redact).

Detectors validate before they report: phone numbers with Google's libphonenumber
(phonenumbers), IBANs and card numbers with their check digits (python-stdnum), so that a
long number is not personal data just because it is long. Shipping identifiers that look
like numbers (IMO numbers, ISO 6346 container numbers, UN/LOCODEs, HS codes, voyage
numbers) are found first and protected: no finding may overlap one.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import phonenumbers
from stdnum import iban, luhn

from workshop_lib.data.catalog import ports
from workshop_lib.data.supplychain_data import imo_check_digit_ok, iso6346_check_digit_ok

MODES = ("off", "audit", "redact")
PERSONAL = ("EMAIL", "PHONE", "IBAN", "CARD", "PERSON")
IDENTIFIERS = ("IMO", "CONTAINER", "UNLOCODE", "HS_CODE", "VOYAGE")

# Regions whose national number formats are tried, by the manifest's language hint;
# numbers written with a leading + are found whatever the region.
PHONE_REGIONS = {"en": ("US", "GB", "SG"), "de": ("DE", "AT", "CH"), "es": ("ES",), "fr": ("FR", "BE"),
                 "nl": ("NL", "BE")}
DEFAULT_REGIONS = ("US", "GB")

_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")
_IMO = re.compile(r"\bIMO[ :]?(\d{7})\b")
_CONTAINER = re.compile(r"\b[A-Z]{3}[UJZ] ?\d{6}[ -]?\d\b")
_LOCODE = re.compile(r"\b[A-Z]{2}[A-Z2-9]{3}\b")
_HS = re.compile(r"\b\d{4}\.\d{2}(?:\.\d{2,4})?\b|\bHS[ :]?\d{6,10}\b")
_VOYAGE = re.compile(r"\b\d{3,4}[NSEW]\b")
# A person's name: 2-4 capitalised words, with the particles of Dutch, German, Spanish names.
_NAME = r"[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]+(?: (?:de |van |der |von |del |da |la |le )*[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]+){1,3}"
_CLOSING = re.compile(r"^(?:(?:best|kind|warm) regards|regards|yours sincerely|sincerely|yours faithfully|"
                      r"mit freundlichen grüßen|viele grüße|beste grüße|atentamente|saludos(?: cordiales)?|"
                      r"cordialement|bien à vous|met vriendelijke groet(?:en)?)[,.!]?$", re.IGNORECASE)
_LABELLED = re.compile(r"(?i:contact(?: at [^:\n]{1,40})?|claimant contact|attn|attention|reported by|signed by)"
                       r": *(" + _NAME + r")\b")
_SIGNATURE_NAME = re.compile(r"^(" + _NAME + r")$")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    text: str


@dataclass
class Sanitized:
    """The text after sanitising, what was found in it, and the identifiers left alone."""

    text: str
    mode: str
    findings: list[Finding] = field(default_factory=list)
    protected: list[Finding] = field(default_factory=list)

    def counts(self) -> Counter:
        return Counter(f.kind for f in self.findings)


def _protected(text: str) -> list[Finding]:
    known_ports = set(ports())
    out = [Finding("IMO", m.start(), m.end(), m.group()) for m in _IMO.finditer(text) if imo_check_digit_ok(int(m.group(1)))]
    out += [Finding("CONTAINER", m.start(), m.end(), m.group()) for m in _CONTAINER.finditer(text)
            if iso6346_check_digit_ok(re.sub(r"[ -]", "", m.group()))]
    out += [Finding("UNLOCODE", m.start(), m.end(), m.group()) for m in _LOCODE.finditer(text)
            if m.group() in known_ports or text[max(0, m.start() - 8):m.start()].rstrip().endswith("LOCODE")]
    out += [Finding("HS_CODE", m.start(), m.end(), m.group()) for m in _HS.finditer(text)]
    out += [Finding("VOYAGE", m.start(), m.end(), m.group()) for m in _VOYAGE.finditer(text)]
    return out


def _card_ok(digits: str) -> bool:
    # Issuer prefixes of the big networks, so a Luhn-valid reference number is not a card.
    prefix_ok = (digits[0] == "4" or 51 <= int(digits[:2]) <= 55 or 2221 <= int(digits[:4]) <= 2720
                 or digits[:2] in ("34", "37") or digits.startswith(("6011", "65")))
    return 13 <= len(digits) <= 19 and prefix_ok and luhn.is_valid(digits)


def _people(text: str) -> list[Finding]:
    out = [Finding("PERSON", m.start(1), m.end(1), m.group(1)) for m in _LABELLED.finditer(text)]
    lines, offset, after_closing = text.split("\n"), 0, False
    for line in lines:
        stripped = line.strip()
        if after_closing and stripped:
            match = _SIGNATURE_NAME.match(stripped)
            if match:
                start = offset + line.index(stripped)
                out.append(Finding("PERSON", start, start + len(stripped), stripped))
            after_closing = False
        if _CLOSING.match(stripped):
            after_closing = True
        offset += len(line) + 1
    return out


def find_personal(text: str, lang: str | None = None) -> tuple[list[Finding], list[Finding]]:
    """(personal data findings, protected identifiers), both sorted by position."""
    protected = _protected(text)
    candidates = [Finding("EMAIL", m.start(), m.end(), m.group()) for m in _EMAIL.finditer(text)]
    candidates += [Finding("IBAN", m.start(), m.end(), m.group()) for m in _IBAN.finditer(text) if iban.is_valid(m.group())]
    candidates += [Finding("CARD", m.start(), m.end(), m.group()) for m in _CARD.finditer(text)
                   if _card_ok(re.sub(r"\D", "", m.group()))]
    for region in PHONE_REGIONS.get((lang or "").split("-")[0].lower(), DEFAULT_REGIONS):
        candidates += [Finding("PHONE", m.start, m.end, m.raw_string)
                       for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)]
    candidates += _people(text)
    taken: list[Finding] = list(protected)
    found: list[Finding] = []
    # Earlier detectors win an overlap (an IBAN's digits are not also a phone number).
    for finding in candidates:
        if any(finding.start < other.end and other.start < finding.end for other in taken):
            continue
        taken.append(finding)
        found.append(finding)
    return sorted(found, key=lambda f: f.start), sorted(protected, key=lambda f: f.start)


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"sanitize mode must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


def sanitize(text: str, mode: str = "redact", lang: str | None = None) -> Sanitized:
    """off: the text unchanged, nothing looked for. audit: findings counted, text unchanged.
    redact: each finding replaced by its type in brackets, e.g. [EMAIL]."""
    check_mode(mode)
    if mode == "off":
        return Sanitized(text, mode)
    findings, protected = find_personal(text, lang)
    if mode == "audit":
        return Sanitized(text, mode, findings, protected)
    parts, last = [], 0
    for f in findings:
        parts += [text[last:f.start], f"[{f.kind}]"]
        last = f.end
    parts.append(text[last:])
    return Sanitized("".join(parts), mode, findings, protected)

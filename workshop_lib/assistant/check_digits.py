"""Whether an IMO number or a container number is well formed, by its check digit.

The schema's comments say both identifiers end in a check digit (VESSELS.IMO_NUMBER: "the 7th digit
is a check digit"; CONTAINERS.CONTAINER_NUMBER: ISO 6346, "... and a check digit"). A user who asks
"is IMO 9646705 valid? a digit may be off" gets the digit worked out by the standard rule, and whether
the data holds that number. Every number of SUPPLYCHAIN passes both rules (tests check it).
"""
from __future__ import annotations

import re
import string

# ISO 6346: each letter has a value from 10 up, skipping multiples of 11
_LETTER_VALUES: dict[str, int] = {}
_n = 10
for _letter in string.ascii_uppercase:
    _n += _n % 11 == 0
    _LETTER_VALUES[_letter] = _n
    _n += 1

ASKS_VALID = re.compile(r"\b(?:valid|invalid|check ?digit|checksum|typo|mistyped|digit (?:is |was )?(?:off|wrong)|"
                        r"well[- ]formed|legit(?:imate)?|correct number|real (?:imo|container) number)\b", re.I)
_IMO = re.compile(r"\bIMO\s*(?:number\s*|no\.?\s*|#\s*)?(\d{7})\b|\b(\d{7})\b(?=[^.?!]*\bIMO\b)", re.I)
_CONTAINER = re.compile(r"\b([A-Z]{3}[UJZ]\d{7})\b")


def imo_check_digit(number: str) -> int:
    """The 7th digit of an IMO number: the first six weighted 7 down to 2, summed, last digit."""
    return sum(int(d) * (7 - i) for i, d in enumerate(number[:6])) % 10


def container_check_digit(code: str) -> int:
    """The 11th character of an ISO 6346 number: owner code, category and serial weighted by powers of
    two, summed, modulo 11 (10 counts as 0)."""
    total = sum((_LETTER_VALUES[c] if c.isalpha() else int(c)) * 2 ** i for i, c in enumerate(code[:10].upper()))
    return total % 11 % 10


def checked(question: str) -> tuple[str, str, int] | None:
    """(kind, the number as written, the check digit it should end in) of the one IMO or container number a
    question asks the validity of; None when it asks none, or names several."""
    if not ASKS_VALID.search(question):
        return None
    imo = [m.group(1) or m.group(2) for m in _IMO.finditer(question)]
    boxes = [m.group(1) for m in _CONTAINER.finditer(question)]
    if len(imo) + len(boxes) != 1:
        return None
    if imo:
        return "IMO_NUMBER", imo[0], imo_check_digit(imo[0])
    return "CONTAINER_NUMBER", boxes[0], container_check_digit(boxes[0])

"""What a code of the data means, read from the comment of its column.

"Package type PX = ?", "what does 40HC stand for?", "HQ_COUNTRY = CH: which country is that?": the
code is a value of a category column, and that column's comment spells its codes out ("PX pallet",
"40HC high cube (9 ft 6 in tall)", "ACTIVE (at sea: departed, not yet arrived)"); a country code is
its country. The meaning is read from the comment, never typed in here; a code the comment does
not spell out has no meaning to give (None).
"""
from __future__ import annotations

import re
from typing import Any

from workshop_lib.data import countries

# a question asking what a code is, not what rows have it
# ("mean gross weight" is an average: "mean" asks a meaning only after "does", "do" or "to")
ASKS_MEANING = re.compile(r"\b(?:does|do|did|to)\b[^?]*\bmean\b|\b(?:means|meaning|stand(?:s)? for|short for|abbreviation|"
                          r"which country|what country|what kind of \w+ is)\b|=\s*\?|\bmean\s*\??\s*$", re.I)


def meaning(column: Any, value: str) -> str | None:
    """The words the column's comment explains the code with, or its country for an ISO 3166 code."""
    if "3166" in column.comment:
        names = countries.NAMES.get(value, ())
        return next(iter(names), None)
    # the code alone or in a group written with slashes ("20RF/40RF refrigerated reefer")
    at = re.search(rf"(?<![\w/])(?:[A-Z0-9]+/)*{re.escape(value)}(?:/[A-Z0-9]+)*(?![\w])", column.comment)
    if at is None:
        return None
    # the words after the code, up to the next code, comma, semicolon or sentence end
    rest = re.match(r"\s*(\([^)]*\)|[a-z][^,;.]*?)(?=\s*(?:,|;|\.\s|\.$|\bor\b|$|\s[A-Z0-9]{2,}\b))",
                    column.comment[at.end():])
    said = rest.group(1).strip() if rest else ""
    if said.startswith("(") and said.endswith(")"):
        said = said[1:-1]
    return said or None

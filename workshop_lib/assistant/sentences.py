"""Where a sentence of a user's turn ends.

After ".", "!" or "?" and a space (or at a line break), but not after an abbreviation: "die Fa. Lüders",
"Mr. Jankowski", "their customs entry no. is 8841-0092-7". One place, so that the memory that keeps
what a turn states and the reader that answers what it asks cut the turn the same way.
"""
from __future__ import annotations

import re

# a full stop that ends no sentence: after a firm's form or a title, and the short forms people type
_ABBREVIATIONS = ("Fa", "Co", "Mr", "Ms", "Mrs", "Dr", "Nr", "No", "St", "Sr", "Jr", "Ltd", "Inc", "Bros", "Cia", "vs",
                  "ca", "no", "nr", "ref", "approx", "incl", "e.g", "i.e")
NOT_AFTER_AN_ABBREVIATION = "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS)
# nor does the full stop of a day written the German way ("ab 1. Juni", "bis 30. Mai")
_NOT_A_DAY = r"(?!(?<=\d\.)\s+(?i:jan|j[äa]n|feb|m[äa]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[zc]))"
_END = re.compile(r"(?<=[.!?])" + NOT_AFTER_AN_ABBREVIATION + _NOT_A_DAY + r"\s+|\n+")
_END_OR_SEMICOLON = re.compile(r"(?<=[.!?;])" + NOT_AFTER_AN_ABBREVIATION + _NOT_A_DAY + r"\s+|\n+")


def split(text: str, *, at_semicolons: bool = False) -> list[str]:
    """The turn's sentences, stripped, without empty ones; a semicolon ends one too when asked (a list of
    statements: "our office is in Gdańsk; the contact is Ola")."""
    return [s.strip() for s in (_END_OR_SEMICOLON if at_semicolons else _END).split(text or "") if s.strip()]

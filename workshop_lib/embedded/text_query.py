"""Turn any user text into a safe FTS5 query.

Quoting the whole question as one phrase matches almost nothing, and passing it raw
lets FTS5 read AND / OR / NEAR / * / ( / " as operators (or fail on them). Instead each
whitespace-separated term becomes its own quoted string, joined with OR: bm25 then
ranks a document that matches more (and rarer) terms higher. Inside quotes FTS5 treats
every character literally; its tokenizer splits `ORA-00904` into the phrase ORA 00904.
"""
from __future__ import annotations

import unicodedata

MAX_TERMS = 64  # a 50 KB paste still makes a bounded query


def keyword_expression(text: str) -> str | None:
    """The FTS5 MATCH expression for `text`, or None when no term is left."""
    terms: list[str] = []
    seen: set[str] = set()
    # Control characters (NUL above all) end an FTS5 string early; they never match anyway.
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in text)
    for raw in text.split():
        term = raw.strip()
        key = term.lower()
        if not any(ch.isalnum() for ch in term) or key in seen:
            continue  # punctuation alone cannot match a token
        seen.add(key)
        terms.append('"' + term.replace('"', '""') + '"')
        if len(terms) >= MAX_TERMS:
            break
    return " OR ".join(terms) if terms else None

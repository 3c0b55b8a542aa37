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

# Words too common to help ranking. Oracle Text's default English stoplist drops words
# like these at index time; dropping them from the query keeps the two engines alike.
STOPWORDS = frozenset("""
a an and are as at be but by can do does did for from has have how i if in into is it its
me my no not of on or our so than that the their them then there these they this to us was
we were what when where which who why will with you your
""".split())


def keyword_expression(text: str) -> str | None:
    """The FTS5 MATCH expression for `text`, or None when no term is left."""
    terms: list[str] = []
    seen: set[str] = set()
    # Control characters (NUL above all) end an FTS5 string early; they never match anyway.
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in text)
    for raw in text.split():
        term = raw.strip()
        key = term.lower()
        if not any(ch.isalnum() for ch in term) or key in seen or key.strip("?!.,;:") in STOPWORDS:
            continue  # punctuation alone cannot match a token; stopwords only add noise
        seen.add(key)
        terms.append('"' + term.replace('"', '""') + '"')
        if len(terms) >= MAX_TERMS:
            break
    return " OR ".join(terms) if terms else None

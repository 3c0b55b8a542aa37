"""Turn any user text into a safe Oracle Text CONTAINS query.

Passing a question straight to CONTAINS lets Oracle Text read parts of it as
operators: `ORA-00904` holds the MINUS operator `-`, `AND` / `OR` / `NOT` / `NEAR` /
`ACCUM` / `WITHIN` are reserved words, `%` and `_` are wildcards, `$ ? ! > * = ; , & | ~`
are operators, and unbalanced `(`, `[` or `{` are syntax errors (DRG-50901).
Quoting the whole question as one phrase is no better: it then only matches a
document containing exactly that word sequence.

So every whitespace-separated term is escaped on its own and the terms are combined
with the ACCUMulate operator (`,`):

* Braces `{...}` escape a whole term, so reserved words and operator characters
  inside it are searched literally (Oracle Text Reference, "Escape Characters").
* Oracle Text's default lexer indexes runs of letters and digits and treats every
  other character as whitespace, except a numjoin or numgroup character inside a
  number ('.' and ','; NUMBER_JOINERS below). A term is therefore reduced to its
  alphanumeric runs separated by single spaces before it is put in braces: `ORA-00904`
  becomes `{ORA 00904}`, a two-word phrase that matches exactly what the lexer indexed
  for `ORA-00904`, while `3.5` and `25,000` stay `{3.5}` and `{25,000}`, one token each.
  This also keeps `{`, `}` and `\\` out of the escaped text, so no escape sequence can
  be closed early or broken.
* ACCUM (`term1,term2`) returns documents containing any of the terms and scores a
  document that matches more terms always higher than one that matches fewer
  (Oracle Text Reference, "ACCUMulate"), which is what keyword retrieval wants.

Limits (documented for the workshop): at most MAX_TERMS terms (first occurrences,
case-insensitive duplicates dropped), words longer than MAX_WORD_BYTES are dropped
(Oracle Text does not index tokens that long), and the expression stays under
MAX_EXPRESSION_BYTES so it always binds as a plain VARCHAR2. Stopwords are left in:
Oracle Text removes them from ACCUM itself, and a stopword-only query matches nothing.

`keyword_expression` returns None when no searchable term is left (empty text,
punctuation, emoji).
"""
from __future__ import annotations

import unicodedata

# BASIC_LEXER's numjoin and numgroup characters ('.' and ',' for the AMERICA territory, the
# other way round for GERMANY; Oracle Text Reference, "BASIC_LEXER Attributes") join a string
# of digits into one token, so `3.5` and `25,000` are indexed as one token each, not as the
# phrases `3 5` and `25 000`. Both characters are kept between two digits inside the braces,
# where they are no operators, and the query is lexed with the index's own lexer
# (Application Developer's Guide, "Indexing Special Characters"), so the query's token is the
# document's token whichever of the two the database's territory joins on:
# https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/basic_lexer-attributes.html
# https://docs.oracle.com/en/database/oracle/oracle-database/23/ccapp/indexing-special-characters.html
NUMBER_JOINERS = ".,"
_DIGITS = "0123456789"
MAX_TERMS = 64
MAX_WORD_BYTES = 64
MAX_EXPRESSION_BYTES = 3000
ACCUM = ","

# An expression that can only match a document containing this made-up token: used
# where a CONTAINS clause must be present but the question has no searchable term.
NO_MATCH_EXPRESSION = "{zzqxjvnomatchjvxqzz}"


def _words(term: str) -> list[str]:
    """The alphanumeric runs of one term, as Oracle Text's default lexer would cut them; a '.'
    or ',' between two digits stays in its run (NUMBER_JOINERS)."""
    words: list[str] = []
    current: list[str] = []
    for i, ch in enumerate(term):
        if ch.isalnum() or (ch in NUMBER_JOINERS and current and current[-1] in _DIGITS
                            and term[i + 1:i + 2] in tuple(_DIGITS)):
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return [w for w in words if len(w.encode("utf-8")) <= MAX_WORD_BYTES]


def escape_term(term: str) -> str | None:
    """One term as a brace-escaped phrase, or None when nothing searchable is left."""
    words = _words(unicodedata.normalize("NFC", term))
    if not words:
        return None
    return "{" + " ".join(words) + "}"


def keyword_expression(text: str) -> str | None:
    """The CONTAINS query for `text`: escaped terms joined by ACCUM, or None."""
    if not isinstance(text, str):
        raise ValueError(f"keyword text must be a string, got {type(text).__name__}")
    terms: list[str] = []
    seen: set[str] = set()
    size = 0
    for raw in text.split():
        escaped = escape_term(raw)
        if escaped is None:
            continue
        key = escaped.casefold()
        if key in seen:
            continue
        added = len(escaped.encode("utf-8")) + (len(ACCUM) if terms else 0)
        if size + added > MAX_EXPRESSION_BYTES:
            break
        seen.add(key)
        terms.append(escaped)
        size += added
        if len(terms) >= MAX_TERMS:
            break
    return ACCUM.join(terms) if terms else None

"""Oracle Text query escaping: any user text becomes a safe CONTAINS expression.

Every term is brace-escaped and reduced to the alphanumeric runs Oracle Text's lexer
indexes; terms are joined with the ACCUMulate operator `,` (more matching terms rank
higher). No database is needed: the expressions are checked structurally.
"""
from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop_lib.engines.oracle.text_query import MAX_EXPRESSION_BYTES, MAX_TERMS, MAX_WORD_BYTES, NO_MATCH_EXPRESSION, keyword_expression

CASES = [
    # (user text, expected CONTAINS expression)
    ("ORA-00904", "{ORA 00904}"),                      # MINUS operator inside an error code
    ("ORA-00904 invalid identifier", "{ORA 00904},{invalid},{identifier}"),
    ("AND", "{AND}"),                                   # reserved words searched literally
    ("NEAR", "{NEAR}"),
    ("OR NOT", "{OR},{NOT}"),
    ("ACCUM MINUS WITHIN ABOUT FUZZY SYN", "{ACCUM},{MINUS},{WITHIN},{ABOUT},{FUZZY},{SYN}"),
    ("{braces}", "{braces}"),
    ("}", None),
    ("{", None),
    ("a}b", "{a b}"),                                  # a closing brace can never end the escape early
    ("%", None),                                        # wildcards alone: nothing to search
    ("_", None),
    ("50%", "{50}"),
    ("snake_case", "{snake case}"),                    # '_' is not a letter for the lexer either
    ("it's", "{it s}"),
    ("'", None),
    ('"quoted phrase"', "{quoted},{phrase}"),
    ('"', None),
    ("(unbalanced", "{unbalanced}"),
    ("a)b(", "{a b}"),
    ("[x", "{x}"),
    ("back\\slash", "{back slash}"),
    ("\\", None),
    ("$stem ?fuzzy !soundex >5 3*w =eq ;near ,x |y ~z &w", "{stem},{fuzzy},{soundex},{5},{3 w},{eq},{near},{x},{y},{z},{w}"),
    ("AT&T", "{AT T}"),
    ("🚢", None),
    ("🚢 vessel", "{vessel}"),
    ("", None),
    ("   \n\t  ", None),
    ("TEU", "{TEU}"),
    ("TEU 20-foot equivalent capacity", "{TEU},{20 foot},{equivalent},{capacity}"),
    ("TEU teu TEU", "{TEU}"),                            # case-insensitive duplicates dropped
    ("Café Zürich", "{Café},{Zürich}"),
    ("Cafe\u0301", "{Café}"),                            # combining accent normalised (NFC)
    ("SUPPLYCHAIN.VESSELS.CAPACITY_TEU", "{SUPPLYCHAIN VESSELS CAPACITY TEU}"),
    ("x" * (MAX_WORD_BYTES + 1), None),                 # too long to be an indexed token
    ("x" * MAX_WORD_BYTES, "{" + "x" * MAX_WORD_BYTES + "}"),
    # Issue 36 risk 1: numjoin / numgroup keep a number one token, as the lexer indexes it.
    ("3.5 t", "{3.5},{t}"),
    ("25,000 TEU", "{25,000},{TEU}"),
    ("1,234,567.89", "{1,234,567.89}"),
    ("2024-05-01", "{2024 05 01}"),                     # '-' joins nothing: three tokens
    ("v3.5a", "{v3.5a}"),
    ("3.", "{3}"), (".5", "{5}"), ("3,,5", "{3 5}"), ("a.b", "{a b}"), ("3, 5", "{3},{5}"),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_hostile_inputs(text, expected):
    assert keyword_expression(text) == expected


def test_fifty_kilobytes_of_one_word_repeated():
    assert keyword_expression("word " * 10_000) == "{word}"


def test_fifty_kilobytes_without_spaces_is_no_term():
    assert keyword_expression("x" * 50_000) is None


def test_fifty_kilobytes_of_distinct_words_is_capped():
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=8)) + str(i) for i in range(6000)]
    text = " ".join(words)
    assert len(text) > 50_000
    expr = keyword_expression(text)
    terms = expr.split(",")
    assert len(terms) == MAX_TERMS
    assert terms[0] == "{" + words[0] + "}"
    assert len(expr.encode("utf-8")) <= MAX_EXPRESSION_BYTES


def test_expression_stays_a_plain_varchar2_for_long_words():
    words = [f"{'w' * 60}{i:03d}" for i in range(64)]
    expr = keyword_expression(" ".join(words))
    assert len(expr.encode("utf-8")) <= MAX_EXPRESSION_BYTES
    assert expr.count(",") + 1 < 64  # fewer terms than the cap: the byte budget ended first


def test_non_string_is_a_clear_error():
    with pytest.raises(ValueError, match="string"):
        keyword_expression(None)  # type: ignore[arg-type]


def test_no_match_expression_is_itself_a_safe_expression():
    assert keyword_expression(NO_MATCH_EXPRESSION.strip("{}")) == NO_MATCH_EXPRESSION


def test_engine_uses_the_same_function():
    from workshop_lib.engines.oracle.engine import OracleEngine

    assert OracleEngine.statements.keyword_expression("ORA-00904 AND") == "{ORA 00904},{AND}"


# ----------------------------------------------------------------------- property
_WORD = r"(?:[^\W_]|(?<=[0-9])[.,](?=[0-9]))+"  # a '.' or ',' only between two digits
_TERM = rf"\{{{_WORD}(?: {_WORD})*\}}"
_EXPRESSION = re.compile(rf"{_TERM}(?:,{_TERM})*")


def _searchable_words(text: str) -> bool:
    import unicodedata

    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFC", text))
    return any(len(w.encode("utf-8")) <= MAX_WORD_BYTES for w in words)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
       | st.lists(st.sampled_from(["AND", "OR", "NOT", "NEAR", "ACCUM", "MINUS", "WITHIN", "{", "}", "(", ")",
                                   "[", "]", "%", "_", "$", "?", "!", ">", "*", "=", ";", ",", "&", "|", "~",
                                   "'", '"', "\\", "-", "ORA-00904", "TEU", "20-foot", "🚢", " ", "\n",
                                   "3.5", "25,000", "1.", ".2", "7,"]),
                  max_size=60).map(" ".join))
def test_output_is_only_escaped_terms_joined_by_accumulate(text):
    expr = keyword_expression(text)
    if expr is None:
        assert not _searchable_words(text)
        return
    # Whole expression: brace-escaped terms separated by the ACCUM operator, nothing else.
    assert _EXPRESSION.fullmatch(expr), expr
    inside = re.findall(r"\{([^{}]*)\}", expr)
    outside = re.sub(r"\{[^{}]*\}", "", expr)
    assert set(outside) <= {","}                       # no bare operator character outside braces
    assert all(ch.isalnum() or ch in " .," for term in inside for ch in term)
    assert all("  " not in term and term == term.strip() for term in inside)
    assert len(inside) <= MAX_TERMS
    assert len(expr.encode("utf-8")) <= MAX_EXPRESSION_BYTES
    assert len({t.casefold() for t in inside}) == len(inside)
    assert keyword_expression(text) == expr             # deterministic

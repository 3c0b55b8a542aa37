"""Every statement of both dialects takes exactly the binds its set declares
(workshop_lib/engines/statement_sets.py), so lesson code binds names it can read there."""
from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from workshop_lib.engines.embedded import sql as esql
from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.rows import columns as columns_of
from workshop_lib.engines.statement_sets import (
    CatalogStatements,
    ChatStatements,
    DocsStatements,
    MemoryStatements,
    NativeHybridStatements,
    StoreStatements,
    declared_binds,
    declared_rows,
    stmt,
)

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_BIND = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def binds_of(statement: str) -> set[str]:
    return set(_BIND.findall(_COMMENT.sub(" ", _LITERAL.sub("''", statement))))


def sets_of(module):
    return {StoreStatements: module.statements("", module.DIM if module is osql else 256),
            MemoryStatements: module.memory_statements(""), DocsStatements: module.DOCS,
            CatalogStatements: module.CATALOG, ChatStatements: module.CHAT}


# sqlglot reads VECTOR_EMBEDDING(model USING expr AS data) as a plain call (tests/test_oracle_sql.py does the same)
_VECTOR_EMBEDDING = (re.compile(r"VECTOR_EMBEDDING\(\w+ USING (.+?) AS data\)"), r"VECTOR_EMBEDDING_(\1)")


def selected(statement: str, dialect: str) -> list[Any] | None:
    """The final SELECT list of a statement that returns rows (None: it returns none)."""
    text = _VECTOR_EMBEDDING[0].sub(_VECTOR_EMBEDDING[1], statement.replace("{t}", "DOCS_V1"))
    if not re.match(r"\s*(SELECT|WITH)\b", text, re.I):
        return None
    tree = sqlglot.parse_one(text, read="oracle" if dialect == "oracle" else "sqlite")
    assert isinstance(tree, exp.Query), statement[:80]
    return list(tree.selects)


def column_problems(bundle: type, filled: object, dialect: str) -> list[str]:
    wrong = []
    for name, row in declared_rows(bundle).items():
        where = f"{dialect} {bundle.__name__}.{name}"
        columns = selected(getattr(filled, name), dialect)
        if columns is None:
            wrong += [f"{where}: returns no rows but declares {row.__name__}"] if row else []
        elif row is None:
            wrong.append(f"{where}: returns rows; declare their row type (engines/rows.py) beside its binds")
        elif len(columns) != len(names := columns_of(row)):
            wrong.append(f"{where}: selects {len(columns)} columns, {row.__name__} names {len(names)}")
        else:  # a named column (an alias, or a table's column) must carry the row type's name for it
            named = [(c.alias_or_name.lower(), f) for c, f in zip(columns, names)
                     if isinstance(c, (exp.Alias, exp.Column))]
            wrong += [f"{where}: column {got} where {row.__name__} has {want}" for got, want in named if got != want]
    return wrong


@pytest.mark.parametrize("dialect, module", [("embedded", esql), ("oracle", osql)])
def test_every_statement_that_returns_rows_names_its_columns(dialect, module):
    wrong = []
    for bundle, filled in sets_of(module).items():
        wrong += column_problems(bundle, filled, dialect)
    if module is osql:
        wrong += column_problems(NativeHybridStatements, osql.NATIVE_HYBRID, dialect)
    assert not wrong, "\n".join(wrong)


def test_the_column_check_would_catch_a_swapped_pair():
    swapped = esql.statements("", 256).KEYWORD_SEARCH.replace("m.content, m.metadata", "m.metadata, m.content")
    assert swapped != esql.statements("", 256).KEYWORD_SEARCH
    fake = StoreStatements(**{**vars(esql.statements("", 256)), "KEYWORD_SEARCH": swapped})
    problems = column_problems(StoreStatements, fake, "embedded")
    assert problems == ["embedded StoreStatements.KEYWORD_SEARCH: column metadata where KeywordRow has content",
                        "embedded StoreStatements.KEYWORD_SEARCH: column content where KeywordRow has metadata"]


@pytest.mark.parametrize("dialect, module", [("embedded", esql), ("oracle", osql)])
def test_every_statement_takes_exactly_its_declared_binds(dialect, module):
    wrong = []
    for bundle, filled in sets_of(module).items():
        assert isinstance(filled, bundle)
        for name, declared in declared_binds(bundle).items():
            used = binds_of(getattr(filled, name))
            if used != declared:
                wrong.append(f"{bundle.__name__}.{name}: uses {sorted(used)}, declares {sorted(declared)}")
    assert not wrong, "\n".join(wrong)


def test_a_set_missing_a_statement_cannot_be_built():
    with pytest.raises(TypeError, match="COUNT"):
        ChatStatements(DDL=[], INSERT="", MODES_PER_MINUTE="", RECENT="")


def test_the_check_would_catch_a_renamed_bind():
    declared = declared_binds(ChatStatements)["RECENT"]
    assert binds_of("SELECT * FROM CHAT_INTERACTIONS FETCH FIRST :limit ROWS ONLY") != declared
    assert binds_of("SELECT ':n' FROM t -- :n\nWHERE a = :n") == {"n"}
    assert stmt("a b").metadata["binds"] == {"a", "b"}


def test_every_field_is_declared_with_its_binds_or_as_ddl():
    for bundle in (StoreStatements, MemoryStatements, DocsStatements, CatalogStatements, ChatStatements):
        for f in fields(bundle):
            assert "binds" in f.metadata, f"{bundle.__name__}.{f.name}: declare it with stmt(...) or ddl()"


# A short bind name means one thing in every set (issue 37, item 6): :k a row count, :t a document
# table's name, :a an agent id. A key, a text or an alias is named for what it holds.
ONE_MEANING: dict[str, set[type]] = {"k": {StoreStatements, DocsStatements, CatalogStatements},
               "t": {DocsStatements},
               "a": {StoreStatements, MemoryStatements, NativeHybridStatements}}
_ROW_COUNT = re.compile(r"(?:LIMIT|FETCH FIRST)\s+:k\b", re.I)


@pytest.mark.parametrize("dialect, module", [("embedded", esql), ("oracle", osql)])
def test_a_short_bind_name_holds_one_kind_of_value(dialect, module):
    filled = sets_of(module)
    if module is osql:
        filled[NativeHybridStatements] = osql.NATIVE_HYBRID
    wrong = []
    for bundle, statements in filled.items():
        for name, declared in declared_binds(bundle).items():
            wrong += [f"{bundle.__name__}.{name} takes :{b}" for b in declared & set(ONE_MEANING)
                      if bundle not in ONE_MEANING[b]]
            text = getattr(statements, name)
            if "k" in declared and len(_ROW_COUNT.findall(text)) != len(re.findall(r"(?<![:\w]):k\b", text)):
                wrong.append(f"{bundle.__name__}.{name}: :k is not only a row count (LIMIT / FETCH FIRST :k)")
    assert not wrong, "\n".join(wrong)

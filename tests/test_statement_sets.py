"""Every statement of both dialects takes exactly the binds its set declares
(workshop_lib/engines/statement_sets.py), so lesson code binds names it can read there."""
from __future__ import annotations

import re
from dataclasses import fields

import pytest

from workshop_lib.engines.embedded import sql as esql
from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.statement_sets import (
    CatalogStatements,
    ChatStatements,
    DocsStatements,
    MemoryStatements,
    StoreStatements,
    declared_binds,
    stmt,
)

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_BIND = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
# Oracle's RECORD_INSERT returns the new key through an out-bind the backend adds itself.
BACKEND_BINDS = {("oracle", "RECORD_INSERT"): {"new_seq"}}


def binds_of(statement: str) -> set[str]:
    return set(_BIND.findall(_COMMENT.sub(" ", _LITERAL.sub("''", statement))))


def sets_of(module):
    return {StoreStatements: module.statements("", module.DIM if module is osql else 256),
            MemoryStatements: module.memory_statements(""), DocsStatements: module.DOCS,
            CatalogStatements: module.CATALOG, ChatStatements: module.CHAT}


@pytest.mark.parametrize("dialect, module", [("embedded", esql), ("oracle", osql)])
def test_every_statement_takes_exactly_its_declared_binds(dialect, module):
    wrong = []
    for bundle, filled in sets_of(module).items():
        assert isinstance(filled, bundle)
        for name, declared in declared_binds(bundle).items():
            used = binds_of(getattr(filled, name)) - BACKEND_BINDS.get((dialect, name), set())
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

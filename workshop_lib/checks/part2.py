"""Checks for Part 2 (the memory store and the schema scanner)."""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workshop_lib.checks import CheckFailed, call_learner, diff, expect, passed
from workshop_lib.parts import scanner

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

TODO1 = "TODO 1 (comment_facts)"
FactKey = tuple[str, str]  # (kind, subject)

# A tiny dictionary with the awkward cases: a missing comment, a NOT NULL column, and
# columns listed out of table order.
EDGE_DICTIONARY = {
    "tables": [{"owner": "DEMO", "table": "T", "comment": None},
               {"owner": "DEMO", "table": "U", "comment": "Second table."}],
    "columns": [
        {"owner": "DEMO", "table": "U", "column": "CODE", "data_type": "VARCHAR2", "type_detail": "VARCHAR2(8)",
         "nullable": True, "comment": "Listed first although its table comes last."},
        {"owner": "DEMO", "table": "T", "column": "ID", "data_type": "NUMBER", "type_detail": "NUMBER(10)",
         "nullable": False, "comment": "Key."},
        {"owner": "DEMO", "table": "T", "column": "NOTE", "data_type": "VARCHAR2", "type_detail": "VARCHAR2(200)",
         "nullable": True, "comment": None},
    ],
    "foreign_keys": [],
}


def _compare(got: Any, expected: list[scanner.Fact], label: str) -> None:
    expect(isinstance(got, list), TODO1, f"comment_facts must return a list of Fact, got {type(got).__name__}",
           "build a list, append one Fact per table and per column, and return it.")
    bad = [g for g in got if not isinstance(g, scanner.Fact)]
    expect(not bad, TODO1, f"every item must be a scanner.Fact, found {type(bad[0]).__name__ if bad else ''}",
           'create facts with Fact(kind, subject, body), e.g. Fact("column", subject, body).')
    want = {(f.kind, f.subject): f for f in expected}
    have = {(f.kind, f.subject): f for f in got}
    _expect_the_same_facts(want, have, expected, label)
    expect(len(got) == len(expected), TODO1,
           f"{len(got)} facts for {len(expected)} tables+columns on the {label}: some fact is there twice",
           "produce exactly one fact per table and one per column (append the table fact once, outside the "
           "column loop).")
    for key, fact in want.items():
        mine = have[key]
        if mine.body != fact.body:
            raise CheckFailed(TODO1, f"the body of the {key[0]} fact {key[1]} differs on the {label}:\n"
                              + diff(fact.body, mine.body), _body_hint(fact.body, str(mine.body)))
    _expect_the_same_order(got, expected, label)


def _expect_the_same_facts(want: dict[FactKey, scanner.Fact], have: dict[FactKey, scanner.Fact], expected: list[scanner.Fact], label: str) -> None:
    """Every (kind, subject) expected and no other: a wrong kind, a missing fact, an extra one."""
    missing = [k for k in want if k not in have]
    extra = [k for k in have if k not in want]
    wrong_kind = [(k, e) for k in missing for e in extra if e[1] == k[1]]
    if wrong_kind:
        (kind, subject), (theirs, _) = wrong_kind[0]
        raise CheckFailed(TODO1, f"the fact for {subject} has kind {theirs!r}; expected {kind!r} (on the {label})",
                          "kind is exactly 'table' for a table fact and 'column' for a column fact.")
    if missing:
        kind, subject = missing[0]
        raise CheckFailed(TODO1, f"{len(missing)} fact(s) missing on the {label}; the first is the {kind} "
                          f"fact for {subject}",
                          "loop over dictionary['tables'] (kind 'table', subject OWNER.TABLE) and dictionary['columns'] "
                          "(kind 'column', subject OWNER.TABLE.COLUMN), upper case as in the dictionary.")
    if extra:
        _reject_extra_facts(extra, expected, label)


def _reject_extra_facts(extra: list[Any], expected: list[scanner.Fact], label: str) -> None:
    """The facts that should not be there: columns written under every table, or a fact of another
    kind or subject."""
    kind, subject = extra[0]
    owners = {f.subject.rsplit(".", 1)[1]: f.subject.rsplit(".", 1)[0] for f in expected if f.kind == "column"}
    strays = [s for k, s in extra if k == "column" and s.rsplit(".", 1)[1] in owners]
    if strays:
        table, column = strays[0].rsplit(".", 1)
        raise CheckFailed(TODO1, f"{len(strays)} column fact(s) sit under a table that has no such column, e.g. "
                          f"{strays[0]} ({column} is a column of {owners[column]}, not of {table}) on the {label}: "
                          "every column was written under every table",
                          "for each table keep only its own columns: [c for c in dictionary['columns'] if "
                          "c['table'] == table['table']].")
    fix = ("write only kind 'table' and kind 'column' facts (exactly these two words); relationship facts "
           "come from the foreign keys and are added by the library, not by this function."
           if kind not in ("table", "column") else
           "subjects are OWNER.TABLE for a table and OWNER.TABLE.COLUMN for a column, names as in the dictionary.")
    raise CheckFailed(TODO1, f"unexpected fact (kind {kind!r}, subject {subject!r}) on the {label}", fix)


def _expect_the_same_order(got: list[Any], expected: list[scanner.Fact], label: str) -> None:
    """The facts in dictionary order: each table's fact, then its columns'."""
    order = [(f.kind, f.subject) for f in got]
    want_order = [(f.kind, f.subject) for f in expected]
    if order != want_order:
        at = next(i for i, (a, b) in enumerate(zip(order, want_order)) if a != b)
        raise CheckFailed(TODO1, f"the facts are right but in another order on the {label}: position {at + 1} "
                          f"is the {order[at][0]} fact {order[at][1]}, expected the {want_order[at][0]} fact "
                          f"{want_order[at][1]}",
                          "for each table (in dictionary order) append its table fact, then the facts of its columns "
                          "(in dictionary order).")


def _body_hint(want: str, got: str) -> str:
    """Name the part of the format that differs, from the first difference."""
    if "(no comment)" in want and "(no comment)" not in got:
        return "write '(no comment)' where the comment is None (a missing comment)."
    flags = ("(nullable)", "(not null)")
    if any(f in want for f in flags) and [f in want for f in flags] != [f in got for f in flags]:
        return "write 'nullable' when column['nullable'] is True and 'not null' when it is False."
    if " of type " in want and want.split(" of type ")[1].split(" ")[0] != got.partition(" of type ")[2].split(" ")[0]:
        return "the type is column['data_type'] (e.g. NUMBER), not type_detail (e.g. NUMBER(10))."
    if "Columns: " in want and "Columns: " in got:
        if want.split("Columns: ")[1].replace(" ", "") == got.split("Columns: ")[1].replace(" ", ""):
            return "join the column names with ', ' (a comma and a space)."
        if want.split("Columns: ")[1].rstrip(".") != got.split("Columns: ")[1].rstrip("."):
            return "list this table's columns (column['table'] == table['table']) in dictionary order."
    return ("match the format in the table above character for character (spaces, the final '.', "
            "'Documented purpose:' / 'Meaning:').")


def _call(fn: Callable[..., Any], dictionary: dict[str, Any], label: str) -> list[Any]:
    # The reference is built from a copy taken BEFORE the learner's call, and the learner
    # gets a copy too; a function that edits its input is named for that, not for its output.
    given = copy.deepcopy(dictionary)
    got = call_learner(TODO1, f"comment_facts(dictionary) on the {label}", fn, given)
    if given != dictionary:
        changed = next(key for key in dictionary if given.get(key) != dictionary[key])
        raise CheckFailed(TODO1, f"your function changed the dictionary it was given (dictionary[{changed!r}] is "
                          f"different after the call) on the {label}",
                          "read the dictionary without modifying it: no .sort(), .pop(), .remove() or del on its "
                          "lists; use sorted(...) or a new list if you need another order.")
    _compare(got, scanner.comment_facts(copy.deepcopy(dictionary)), label)
    facts: list[Any] = got  # a list of Fact: _compare stops anything else
    return facts


def check_comment_facts(fn: Callable[..., Any], eng: Engine) -> None:
    got = _call(fn, eng.supplychain.data_dictionary("SUPPLYCHAIN"), "SUPPLYCHAIN dictionary")
    _call(fn, EDGE_DICTIONARY, "edge-case dictionary (missing comment, NOT NULL column, columns out of order)")
    passed(TODO1, f"{len(got)} table and column facts match the reference")

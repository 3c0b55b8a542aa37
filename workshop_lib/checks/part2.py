"""Checks for Part 2 (the memory store and the schema scanner)."""
from __future__ import annotations

from .. import scanner
from . import CheckFailed, call_learner, expect, passed

TODO1 = "TODO 1 (comment_facts)"

# A tiny catalog with the awkward cases: a missing comment and a NOT NULL column.
EDGE_CATALOG = {
    "tables": [{"owner": "DEMO", "table": "T", "comment": None}],
    "columns": [
        {"owner": "DEMO", "table": "T", "column": "ID", "data_type": "NUMBER", "nullable": False, "comment": "Key."},
        {"owner": "DEMO", "table": "T", "column": "NOTE", "data_type": "VARCHAR2", "nullable": True, "comment": None},
    ],
    "foreign_keys": [],
}


def _compare(got, expected, label: str) -> None:
    expect(isinstance(got, list), TODO1, f"comment_facts must return a list of Fact, got {type(got).__name__}",
           "build a list, append one Fact per table and per column, and return it.")
    bad = [g for g in got if not isinstance(g, scanner.Fact)]
    expect(not bad, TODO1, f"every item must be a scanner.Fact, found {type(bad[0]).__name__ if bad else ''}",
           'create facts with Fact(kind, subject, body), e.g. Fact("column", subject, body).')
    want = {(f.kind, f.subject): f for f in expected}
    have = {(f.kind, f.subject): f for f in got}
    missing = [k for k in want if k not in have]
    extra = [k for k in have if k not in want]
    if missing:
        kind, subject = missing[0]
        raise CheckFailed(TODO1, f"{len(missing)} fact(s) missing on the {label}; the first is the {kind} "
                          f"fact for {subject}",
                          "loop over catalog['tables'] (kind 'table', subject OWNER.TABLE) and catalog['columns'] "
                          "(kind 'column', subject OWNER.TABLE.COLUMN), upper case as in the catalog.")
    if extra:
        raise CheckFailed(TODO1, f"unexpected fact {extra[0]} on the {label}",
                          "only table and column facts belong here; relationships are added for you.")
    expect(len(got) == len(expected), TODO1, f"{len(got)} facts for {len(expected)} tables+columns: duplicates?",
           "produce exactly one fact per table and one per column.")
    for key, fact in want.items():
        mine = have[key]
        if mine.body != fact.body:
            raise CheckFailed(TODO1, f"the body of the {key[0]} fact {key[1]} differs on the {label}.\n"
                              f"  expected: {fact.body!r}\n  you wrote: {mine.body!r}",
                              "match the format shown in the markdown above exactly; use '(no comment)' when "
                              "a comment is missing and 'not null' / 'nullable' from the column's flag.")


def check_comment_facts(fn, eng) -> None:
    catalog = eng.catalog("SUPPLYCHAIN")
    got = call_learner(TODO1, "comment_facts(catalog)", fn, catalog)
    _compare(got, scanner.comment_facts(catalog), "SUPPLYCHAIN catalog")
    _compare(call_learner(TODO1, "comment_facts(catalog)", fn, EDGE_CATALOG),
             scanner.comment_facts(EDGE_CATALOG), "edge-case catalog (missing comment, NOT NULL column)")
    passed(TODO1, f"{len(got)} table and column facts match the reference")

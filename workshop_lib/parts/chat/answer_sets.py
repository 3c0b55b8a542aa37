"""Question sets written by people who never read the assistant's code (evals/*.jsonl).

A set measures what the assistant does on questions nobody tuned it for; `answer_eval`'s own
templates measure what its makers expected. Each line is one question:

    {"id", "category", "shape", "question", "answerable", "needs_docs", "language",
     "expect": {"sql" | "sql_any" | "text" | "doc_id" | "first_subject" | "first_item"}}

Ground truth is computed when the set is loaded: every cell of the rows `sql` returns must be in
the answer (numbers as numbers), `sql_any` allows several such queries (a value in tonnes or in
kilograms), `text` lists groups of alternatives. The queries are the writers' own SQL over
`SUPPLYCHAIN.<table>`, run through the engine's `query()`; they were checked on the embedded
engine, and a query Oracle does not take fails with its file and line.

Sets whose path contains `frozen` are test sets: they are run, never edited, and their
individual failures are not read while the assistant is being changed.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.errors import WorkshopError
from workshop_lib.parts.chat.answer_eval import Case

Query = Callable[[str], Sequence[Sequence[Any]]]
MAX_ROWS = 12  # a written expectation listing more rows than this is a mistake in the set


class SetError(WorkshopError, ValueError):
    """A line of a written set that cannot be used, with its file and line number."""


def groups_from_rows(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    groups: list[list[Any]] = []
    for row in rows:
        for value in row:
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                groups.append([str(value)])
            else:
                number = float(value)
                groups.append([(number, max(0.01, abs(number) * 0.005))])
    return groups


def rows_of(query: Query, sql: str, where: str) -> list[list[Any]]:
    try:
        rows = [list(r) for r in query(sql)]
    except Exception as exc:  # the set's SQL, not the assistant, is wrong: say where
        raise SetError(f"{where}: its SQL failed: {exc}") from exc
    if len(rows) > MAX_ROWS:
        raise SetError(f"{where}: its SQL returns {len(rows)} rows (at most {MAX_ROWS})")
    return rows


def _any_of(query: Query, sql_any: Any, where: str) -> list[list[list[Any]]]:
    """The alternatives of `sql_any`: a list of queries (all the rows of any one of them), or one query
    (any one of its rows, for a tie)."""
    if isinstance(sql_any, str):
        return [groups_from_rows([row]) for row in rows_of(query, sql_any, where)]
    if not isinstance(sql_any, list) or not all(isinstance(q, str) for q in sql_any):
        raise SetError(f"{where}: sql_any must be a query or a list of queries")
    return [groups_from_rows(rows_of(query, sql, where)) for sql in sql_any]


def _owned(subject: str | None) -> str | None:
    """TABLE.COLUMN as the answers write it, with the schema's owner (a set may leave it out)."""
    if not subject or subject.upper().startswith(f"{OWNER}."):
        return subject
    return f"{OWNER}.{subject}"


def case_from_line(entry: dict[str, Any], query: Query, where: str) -> Case:
    expect = entry.get("expect") or {}
    must: list[list[Any]] = [list(g) for g in expect.get("text", [])]
    if "sql" in expect:
        must += groups_from_rows(rows_of(query, expect["sql"], where))
    must_any = _any_of(query, expect.get("sql_any", []), where)
    return Case(str(entry["id"]), str(entry["category"]), str(entry["question"]),
                answerable=bool(entry.get("answerable", True)), must=must,
                first_subject=_owned(expect.get("first_subject")), first_item=expect.get("first_item"),
                doc_id=expect.get("doc_id"), needs_docs=bool(entry.get("needs_docs", False)),
                language=str(entry.get("language", "en")), shape=str(entry.get("shape", "")), must_any=must_any)


def load(path: Path, query: Query) -> list[Case]:
    """Every question of a written set, its expected values computed now."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            where = f"{path.name}:{number}"
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SetError(f"{where}: not JSON: {exc}") from exc
            cases.append(case_from_line(entry, query, where))
    return cases

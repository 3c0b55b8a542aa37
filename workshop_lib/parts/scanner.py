"""The schema scanner: turn a domain expert's COMMENT ON knowledge into memories.

Part 2's TODO is `comment_facts` (the step that mines table and column comments);
everything around it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workshop_lib.progress import progress as tqdm

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

SOURCE = "schema_scanner"


@dataclass
class Fact:
    kind: str        # table | column | relationship
    subject: str     # fully qualified upper-case name, e.g. SUPPLYCHAIN.VESSELS.CAPACITY_TEU
    body: str        # the text the agent will retrieve
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def record_id(self) -> str:
        # Deterministic, so re-scanning updates a fact instead of adding a copy.
        return f"schema:{self.kind}:{self.subject}"

    def memory_metadata(self) -> dict[str, Any]:
        # Derived from kind and subject alone, so a learner's Fact and the library's Fact for
        # the same table or column store identical metadata (re-scans then report "unchanged").
        names = {}
        if self.kind in ("table", "column"):
            names = dict(zip(("owner", "table", "column"), self.subject.split(".")))
        return {"kind": self.kind, "subject": self.subject, "source": SOURCE, **names, **self.metadata}


def table_fact(table: dict, columns: list[dict]) -> Fact:
    subject = f"{table['owner']}.{table['table']}"
    names = ", ".join(c["column"] for c in columns)
    body = f"Table {subject}. Documented purpose: {table['comment'] or '(no comment)'} Columns: {names}."
    return Fact("table", subject, body)


def column_fact(column: dict) -> Fact:
    subject = f"{column['owner']}.{column['table']}.{column['column']}"
    nullable = "nullable" if column["nullable"] else "not null"
    body = (f"Column {subject} of type {column['data_type']} ({nullable}). "
            f"Meaning: {column['comment'] or '(no comment)'}")
    return Fact("column", subject, body)


def comment_facts(dictionary: dict) -> list[Fact]:
    """One fact per table and one per column, in dictionary order (the Part 2 TODO)."""
    facts: list[Fact] = []
    for table in dictionary["tables"]:
        cols = [c for c in dictionary["columns"] if c["table"] == table["table"]]
        facts.append(table_fact(table, cols))
        facts.extend(column_fact(c) for c in cols)
    return facts


def relationship_facts(dictionary: dict) -> list[Fact]:
    facts = []
    for fk in dictionary["foreign_keys"]:
        child = f"{fk['owner']}.{fk['table']}"
        parent = f"{fk['owner']}.{fk['ref_table']}"
        cols = ", ".join(fk["columns"])
        refs = ", ".join(fk["ref_columns"])
        body = (f"Relationship: {child}.{cols} references {parent}.{refs}. "
                f"Join {fk['table']} to {fk['ref_table']} on {fk['table']}.{cols} = {fk['ref_table']}.{refs}; "
                f"each {fk['table']} row belongs to one {fk['ref_table']} row.")
        # The subject names the columns: a table can reference another one twice (origin/destination port).
        subject = f"{child}.{'+'.join(fk['columns'])}->{parent}"
        facts.append(Fact("relationship", subject, body,
                          {"owner": fk["owner"], "table": fk["table"], "ref_table": fk["ref_table"]}))
    return facts


def scan_schema(eng: Engine, owner: str = "SUPPLYCHAIN", *, mine_comments=None) -> list[Fact]:
    """Read the schema's dictionary (tables, columns, keys, comments) into facts.

    `mine_comments` lets a notebook plug in its own version of `comment_facts`.
    """
    dictionary = eng.supplychain.data_dictionary(owner)
    facts = (mine_comments or comment_facts)(dictionary)
    return list(facts) + relationship_facts(dictionary)


def write_facts(eng: Engine, facts: list[Fact], *, progress: bool = True) -> dict[str, int]:
    """Upsert facts as memories in the engine's user/agent scope. Re-running is safe."""
    store = eng.store
    counts = {"added": 0, "updated": 0, "unchanged": 0}
    new: list[Fact] = []
    existing_by_id = {f.record_id: store.get("memory", f.record_id) for f in facts}
    # Ids are unique per record type across users: never overwrite another scope's record.
    taken = {rid: r for rid, r in existing_by_id.items()
             if r is not None and (r.user_id, r.agent_id) != (eng.user_id, eng.agent_id)}
    if taken:
        rid, r = next(iter(taken.items()))
        raise ValueError(
            f"{len(taken)} schema fact id(s) are held by another scope, e.g. {rid!r} by user {r.user_id!r}, "
            f"agent {r.agent_id!r}; setup will not overwrite them. Fix: delete those records "
            f"(eng.store.delete('memory', {rid!r})) or run `workshop reset`, then `workshop setup`.")
    for fact in tqdm(facts, desc="checking facts", disable=not progress, leave=False):
        existing = existing_by_id[fact.record_id]
        if existing is None:
            new.append(fact)
        elif existing.content != fact.body or existing.metadata != fact.memory_metadata():
            store.update("memory", fact.record_id, text=fact.body, metadata=fact.memory_metadata())
            counts["updated"] += 1
        else:
            counts["unchanged"] += 1
    batch = 64
    for i in tqdm(range(0, len(new), batch), desc="embedding new facts", disable=not progress or not new):
        chunk = new[i:i + batch]
        store.add([f.body for f in chunk], record_type="memory", record_ids=[f.record_id for f in chunk],
                  metadata=[f.memory_metadata() for f in chunk], user_ids=eng.user_id, agent_ids=eng.agent_id)
        counts["added"] += len(chunk)
    return counts

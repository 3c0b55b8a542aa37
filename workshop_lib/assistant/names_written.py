"""The data dictionary's names as a question writes them: `VESSELS`, `capacity_teu`, `VESSELS.IMO`,
"the voyages table". A name written this way is the subject of a schema question on its own, before any
retrieval: the router reads it as a cue, and Part 6's offline planner as the table or column meant."""
from __future__ import annotations

import functools
import re

from workshop_lib.data.supplychain_data import TABLES, TABLES_BY_NAME


@functools.lru_cache(maxsize=1)
def _dictionary_names() -> tuple[set[str], set[str]]:
    return {t.name for t in TABLES}, {c.name for t in TABLES for c in t.columns}


def named_schema_objects(question: str) -> list[str]:
    """TABLE, TABLE.COLUMN or COLUMN names of the data dictionary the question writes as names:
    in upper case, with a dot or an underscore, or as "the ... table" ("containers lost
    overboard" names no table). A column named next to its table comes back as TABLE.COLUMN."""
    tables, columns = _dictionary_names()
    found = _names_written(question, tables, columns)
    out = _columns_with_their_tables(found, tables, columns)
    # a table named only as the owner of a named column is not a separate subject
    return [o for o in dict.fromkeys(out) if not (o in tables and any(x.startswith(o + ".") for x in out))]


def _columns_with_their_tables(found: list[str], tables: set[str], columns: set[str]) -> list[str]:
    """A column named next to its table as TABLE.COLUMN, and that table not again on its own."""
    named_tables = [f for f in found if f in tables]
    out = []
    for f in found:
        if f in columns and f not in tables:
            owners = [t for t in named_tables if f in TABLES_BY_NAME[t].column_names]
            out.append(f"{owners[0]}.{f}" if owners else f)
        elif f in tables and any(o.startswith(f + ".") for o in out + [x for x in found if "." in x]):
            continue
        else:
            out.append(f)
    return out


def _names_written(question: str, tables: set[str], columns: set[str]) -> list[str]:
    """The dictionary's tables, TABLE.COLUMNs and columns the question writes as names, as
    written (upper case, without the SUPPLYCHAIN owner)."""
    found = []
    for m in re.finditer(r"\b[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*){0,2}\b", question):
        token = m.group(0)
        parts = token.upper().split(".")
        if parts[0] == "SUPPLYCHAIN":
            parts = parts[1:]
        as_name = token.isupper() or "_" in token or "." in token or \
            re.match(r"\s+table\b", question[m.end():], re.I) is not None
        if not parts or not as_name:
            continue
        if _in_dictionary(token, parts, tables, columns):
            found.append(".".join(parts))
    return found


def _in_dictionary(token: str, parts: list[str], tables: set[str], columns: set[str]) -> bool:
    """A table, a column written as one (with an underscore or in upper case), or TABLE.COLUMN."""
    return (len(parts) == 1 and (parts[0] in tables or (("_" in parts[0] or token.isupper()) and parts[0] in columns))) or \
        (len(parts) == 2 and parts[0] in tables and parts[1] in columns)

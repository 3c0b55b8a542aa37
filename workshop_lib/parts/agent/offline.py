"""A deterministic stand-in for a chat model, for running Part 6 with no API key.

It implements the client interface the workshop's LLM wrapper calls
(`client.chat.completions.create(messages=..., tools=...)`) and plays a planner: from the
question it picks calls of the tools it was OFFERED in that request (never another), and
it writes the answer ONLY from what the context and the tool results say.

- "remember ...": the `remember` tool.
- A question about the schema: `search_knowledge`, answered with the facts it returns.
- A question about the data: one SELECT planned from the schema's tables, columns and
  keys (agent/sqlplan.py) through `run_sql`; names in the question are first resolved with
  a query. The unit of the answer comes from what the tools return: when `search_knowledge`
  is offered it looks the measured column up, and a column documented in US cents (or a
  correction saying so) is divided by 100; with `run_sql` alone (memory off) the figure is
  the raw one, and the answer says so.
- Anything else: no tool call, and an answer that says plainly it needs a model.

It is given the schema's table and column names and keys (as a model is shown the schema
in its prompt), but not their comments: what a column means it learns only from the tools.
Every notebook cell that uses it says so.
"""
from __future__ import annotations

import json
import re
from typing import Any

from workshop_lib.assistant.names_written import named_schema_objects
from workshop_lib.core.llm import LLM, fake_response
from workshop_lib.data.supplychain_data import OWNER, TABLES
from workshop_lib.parts.agent import sqlplan
from workshop_lib.parts.agent.memory import CORRECTIONS_HEADER

MODEL_NAME = "offline-planner (no LLM: plans tool calls by rules, answers only from tool results)"
NEEDS_MODEL = "I can't answer that offline"


def offline_llm(dictionary: dict | None = None) -> LLM:
    """The offline planner. `dictionary`: the data dictionary (`eng.supplychain.data_dictionary(owner)`);
    default: the SUPPLYCHAIN dataset's own definition (the same tables, columns and keys)."""
    return LLM(OfflineClient(dictionary), MODEL_NAME)


def _dataset_dictionary() -> dict:
    return {"tables": [{"owner": OWNER, "table": t.name, "comment": ""} for t in TABLES],
            "columns": [{"owner": OWNER, "table": t.name, "column": c.name, "comment": ""} for t in TABLES
                        for c in t.columns],
            "foreign_keys": [{"owner": OWNER, "table": t.name, "columns": list(f.columns), "ref_table": f.ref_table,
                              "ref_columns": list(f.ref_columns)} for t in TABLES for f in t.foreign_keys]}


def _names_only(dictionary: dict) -> dict:
    """Tables, columns and keys without their comments: what the planner is shown."""
    return {**dictionary, "tables": [{**t, "comment": ""} for t in dictionary.get("tables", [])],
            "columns": [{**c, "comment": ""} for c in dictionary.get("columns", [])]}


class OfflineClient:
    def __init__(self, dictionary: dict | None = None) -> None:
        from types import SimpleNamespace

        self.dictionary = _names_only(dictionary or _dataset_dictionary())
        self.requests: list[dict] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        messages = kwargs["messages"]
        question = next((m["content"] for m in messages if m["role"] == "user"), "")
        offered = {t["function"]["name"] for t in kwargs.get("tools") or []}
        done = _tool_results(messages)
        step = _next_call(question, done, offered, self.dictionary) if offered else None
        if step is not None:
            name, args = step
            return fake_response(None, [(name, json.dumps(args), f"call_{len(self.requests)}_{name}")])
        return fake_response(_answer(question, done, _knowledge(messages, done), self.dictionary))


_TRUNCATED = re.compile(r"fetch_tool_output\('([^']+)'\) returns the rest\]$")


def _tool_results(messages: list[dict]) -> list[tuple[str, str]]:
    """(tool name, content) of every tool result so far, in order; a fetched full output
    replaces the preview it completes."""
    names = {}
    out: list[tuple[str, str]] = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
        if m["role"] == "tool":
            name = names.get(m.get("tool_call_id"), "?")
            if name == "fetch_tool_output" and out and _TRUNCATED.search(out[-1][1]):
                out[-1] = (out[-1][0], m["content"])
            else:
                out.append((name, m["content"]))
    return out


def _subject(question: str) -> str:
    found = re.search(r"\b([A-Za-z_]+)\.([A-Za-z_]+)\b", question)
    return f"SUPPLYCHAIN.{found.group(1).upper()}.{found.group(2).upper()}" if found else ""


_WRITE_RE = re.compile(r"\b(?:drop|delete|update|insert|alter|truncate)\b", re.I)
_SCHEMA_RE = re.compile(r"\bschema\b|\bwhat is in\b|\bcolumns?\b|\btables?\b|\bfields?\b|\b(?:which|what|in) units?\b|\bunits? of\b|"
                        r"\bcheck digit\b|\bstored\b|\bdata type\b|\b[A-Za-z]+_[A-Za-z_]+\b")


_RELATION_RE = re.compile(r"\b(?:link|links|linked|join|joins|joined|connect\w*|relat\w*|references?)\b", re.I)
_WHICH_COLUMN_RE = re.compile(r"\b(?:which|what) (?:column|field)s?\b|\bwhere is .* stored\b", re.I)


def _linked_tables(question: str) -> list[str] | None:
    """The two tables of "how are containers linked to voyages?" (None for other questions)."""
    tables = sqlplan.tables_in(question)
    return tables[:2] if _RELATION_RE.search(question) and len(tables) >= 2 else None


def _named(question: str) -> list[str]:
    return named_schema_objects(question)


def _entities(done: list[tuple[str, str]]) -> sqlplan.Entities | None:
    """The names the entity query resolved, once it ran."""
    for name, content in done:
        if name == "run_sql" and content.startswith("KIND | NAME | ID"):
            return sqlplan.Entities(**{k: v for k, v in _entity_groups(content).items()})
    return None


def _entity_groups(content: str) -> dict[str, list]:
    groups: dict[str, list] = {"vessels": [], "carriers": [], "ports": []}
    for row in _rows(content):
        if len(row) >= 3 and row[2].strip().lstrip("-").isdigit():
            key = {"VESSEL": "vessels", "CARRIER": "carriers", "PORT": "ports"}.get(row[0].strip())
            if key:
                groups[key].append((row[1].strip(), int(row[2])))
    return groups


def _plan(question: str, done: list[tuple[str, str]], offered: set[str], dictionary: dict) -> list[tuple[str, dict]]:
    """The calls for this question, given the tools offered (a plan never names another tool)."""
    if "remember" in question.lower():
        return [_remember_call(question)] if "remember" in offered else []
    if "search_knowledge" in offered and _SCHEMA_RE.search(question) and not _WRITE_RE.search(question):
        return [_knowledge_call(question)]
    if "run_sql" in offered:
        return _sql_calls(question, done, offered, dictionary)
    return []


def _remember_call(question: str) -> tuple[str, dict]:
    """remember, with the question minus its "please remember that" wording."""
    text = re.sub(r"^\s*(please\s+)?remember( that)?[:,]?\s*", "", question, flags=re.I)
    text = re.sub(r"[.\s]*please remember( that)?( it| this)?\.?\s*$", "", text, flags=re.I) or question
    return ("remember", {"text": text.strip(), "subject": _subject(question)})


def _knowledge_call(question: str) -> tuple[str, dict]:
    """search_knowledge for a schema question: the tables, a relationship, what it names, or the question."""
    q = question.lower()
    if "schema" in q or "what is in" in q:
        return ("search_knowledge", {"query": "Table SUPPLYCHAIN documented purpose", "k": 20})
    named = _named(question)
    pair = _linked_tables(question)
    if pair:
        return ("search_knowledge", {"query": f"Relationship SUPPLYCHAIN.{pair[0]} references SUPPLYCHAIN.{pair[1]}",
                                     "k": 10})
    if named:
        query = " ".join(("Column SUPPLYCHAIN." if "." in n or "_" in n else "Table SUPPLYCHAIN.") + n for n in named)
        return ("search_knowledge", {"query": query, "k": 8})
    return ("search_knowledge", {"query": question, "k": 3})


def _sql_calls(question: str, done: list[tuple[str, str]], offered: set[str], dictionary: dict) -> list[tuple[str, dict]]:
    """run_sql for the names the question uses (first), then the unit's search and the planned query."""
    calls: list[tuple[str, dict]] = []
    names = bool(sqlplan.unresolved_names(question, sqlplan.Entities()))
    if names:
        calls.append(("run_sql", {"sql": sqlplan.entity_sql(question)}))
    ents = _entities(done) if names else sqlplan.Entities()
    if ents is None:  # the names are resolved first; the rest is planned from their rows
        return calls
    p = sqlplan.plan(question, dictionary, ents)
    if p is not None:
        if p.column and "search_knowledge" in offered:
            calls.append(("search_knowledge", {"query": f"{p.column} unit", "k": 5}))
        calls.append(("run_sql", {"sql": p.sql}))
    return calls  # the names were looked up, but no plan answers the question: the answer says so


def _next_call(question: str, done: list[tuple[str, str]], offered: set[str], dictionary: dict
               ) -> tuple[str, dict] | None:
    if done and (truncated := _TRUNCATED.search(done[-1][1])) and "fetch_tool_output" in offered:
        # Only a preview came back: the full output is stored, one call away.
        return "fetch_tool_output", {"call_id": truncated.group(1)}
    plan = _plan(question, done, offered, dictionary)
    return plan[len(done)] if len(done) < len(plan) else None


def _knowledge(messages: list[dict], done: list[tuple[str, str]]) -> list[str]:
    """What the context and the tools said about the schema: corrections (context card and
    search results) and the schema facts search_knowledge returned."""
    found = []
    system = next((m["content"] for m in messages if m["role"] == "system"), "") or ""
    if CORRECTIONS_HEADER in system:
        block = system.split(CORRECTIONS_HEADER, 1)[1].split("\n\n", 1)[0]
        found += [ln[2:].strip() for ln in block.splitlines() if ln.startswith("- ")]
    for name, content in done:
        if name == "search_knowledge":
            try:
                found += [f"{h.get('subject', '')}: {h['content']}" for h in json.loads(content)]
            except (ValueError, TypeError, AttributeError, KeyError):
                continue
    return found


def _rows(content: str) -> list[list[str]]:
    lines = [ln for ln in content.splitlines() if ln and not ln.startswith("...")]
    return [ln.split(" | ") for ln in lines[1:]]


def _unit_from(column: str | None, knowledge: list[str]) -> tuple[str, str]:
    """(unit, where it was read) for a column, from what the tools and the context said."""
    if not column:
        return "", ""
    for text in knowledge:
        low = text.lower()
        subject = low.split(":", 1)[0]
        if low.startswith("supplychain") and not subject.endswith("." + column.lower()):
            continue  # another column's fact
        if column.lower() in low:
            unit = sqlplan.unit_of(low.split(column.lower(), 1)[1] if "meaning" not in low else low.split("meaning", 1)[1])
            if "cent" in low and column.endswith("CENTS"):
                unit = "cents"
            if unit:
                return unit, ("a correction you gave me" if "correction" in low or not low.startswith("supplychain")
                              else f"the comment of {column}")
    return "", ""


def _answer(question: str, done: list[tuple[str, str]], knowledge: list[str], dictionary: dict) -> str:
    if not done:
        return (f"{NEEDS_MODEL}: without a language model I plan only common data questions (counts, totals, "
                "averages, minimum and maximum of a column, look-ups by voyage, vessel, carrier or port, top-N lists, "
                "counts per group) and schema questions with the tools I was given.")
    failed = [c for _, c in done if c.startswith('{"error"')]
    if failed:
        return "A tool call failed, so I cannot answer reliably: " + json.loads(failed[-1])["error"]
    name, content = done[-1]
    if name == "remember":
        return f"Noted. I stored this as a correction ({json.loads(content)['stored']}) and will use it from now on."
    if name == "run_sql" and content.startswith("KIND | NAME | ID"):
        return f"{NEEDS_MODEL}: I looked up the names in the question, but no query I can plan answers it."
    if name == "run_sql":
        return _answer_from_rows(question, content, done, knowledge, dictionary)
    if name == "search_knowledge":
        return _answer_from_knowledge(question, content)
    return content[:500]


def _answer_from_rows(question: str, content: str, done: list[tuple[str, str]], knowledge: list[str],
                      dictionary: dict) -> str:
    """The answer from the rows of the planned query, in the unit the tools or the context gave."""
    ents = _entities(done) or sqlplan.Entities()
    p = sqlplan.plan(question, dictionary, ents)
    if p is None:
        return f"{NEEDS_MODEL}: the rows I have do not answer this question."
    lines = [ln for ln in content.splitlines() if ln and not ln.startswith("...")]
    columns, rows = lines[0].split(" | "), [_typed(r) for r in _rows(content)]
    unit, source = _unit_from(p.column, knowledge)
    if p.column and p.column.endswith("CENTS") and unit != "cents":
        if not rows or rows[0][0] is None:
            return "That voyage has no cargo lines."
        return (f"The sum of QUANTITY x UNIT_VALUE_CENTS for {p.what.split(' on ')[-1]} is {float(rows[0][0]):,.0f}. "
                "I have no note on the unit of UNIT_VALUE_CENTS, so that is the raw figure.")
    p.unit = unit
    text = sqlplan.render(p, columns, rows)
    if text is None:
        return f"{NEEDS_MODEL}: the query returned no row for {p.what}."
    return text + (f" The unit comes from {source}." if source else "")


def _answer_from_knowledge(question: str, content: str) -> str:
    """The answer from the schema facts search_knowledge returned: only those about what the question names."""
    try:
        hits = json.loads(content)
    except ValueError:
        return "From the schema knowledge (partial): " + content[:300]
    tables = [h["subject"] for h in hits if h["kind"] == "table"]
    if "schema" in question.lower() and tables:
        return "The SUPPLYCHAIN schema holds these tables, among others: " + ", ".join(tables) + "."
    hits = _facts_that_answer(question, hits)
    if not hits:
        return f"{NEEDS_MODEL}: the schema knowledge returned no fact that answers this question."
    return "From the schema knowledge: " + " | ".join(f"{h['subject']}: {h['content']}" for h in hits[:3])


def _facts_that_answer(question: str, hits: list[dict]) -> list[dict]:
    """The facts about what the question names; of those, the relationship between two tables it
    links, or the columns a "which column" question is after."""
    named = _named(question)
    if named:
        # the facts of the tables and columns named, and nothing else
        hits = [h for h in hits if "->" not in h["subject"] and any(
            h["subject"] == f"SUPPLYCHAIN.{n}" or ("_" in n and "." not in n and h["subject"].endswith("." + n))
            for n in named)]
    pair = _linked_tables(question)
    if pair:  # only a relationship between the two tables answers it
        return [h for h in hits if h["kind"] == "relationship" and all(f".{t}" in h["subject"] for t in pair)]
    if _WHICH_COLUMN_RE.search(question):
        return _columns_named_by_words(question, hits)
    return hits


def _columns_named_by_words(question: str, hits: list[dict]) -> list[dict]:
    """The column facts whose column name carries a word of the question (not the tables' own names)."""
    stems = {w[:5] for w in re.findall(r"[a-z]{4,}", question.lower())} - {
        w[:5] for t, _ in sqlplan.TABLE_WORDS for w in re.findall(r"[a-z]{4,}", t.lower().replace("_", " "))} \
        - {"colum", "which", "holds", "store", "field", "where", "table"}
    return [h for h in hits if h["kind"] == "column"
            and any(w in h["subject"].rsplit(".", 1)[-1].lower() for w in stems)]


def _typed(row: list[str]) -> list[Any]:
    """Values of a run_sql text row back as numbers where they are numbers."""
    out: list[Any] = []
    for v in row:
        v = v.strip()
        if re.fullmatch(r"-?\d+", v):
            out.append(int(v))
        elif re.fullmatch(r"-?\d+\.\d+", v):
            out.append(float(v))
        else:
            out.append(v if v else None)
    return out

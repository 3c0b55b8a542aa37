"""The offline assistant's data path: a question linked to the schema and the data, composed into
one bound SELECT, answered from its rows (README.md in this folder).

    links = data_links(eng, question)       # schema + value links, for decision_explain
    answer = answer_data(eng, question)      # DataAnswer, or a reason it cannot be answered
"""
from __future__ import annotations

import calendar
import dataclasses
import datetime
import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rapidfuzz.distance import DamerauLevenshtein

from workshop_lib.assistant import planner, render
from workshop_lib.assistant.schema_links import STOP_WORDS, TABLE_NOUNS, Schema, stem_root, table_of_noun, words_of
from workshop_lib.assistant.value_links import CODE_COLUMNS, NAME_COLUMNS, Link, ValueIndex
from workshop_lib.engines.portable_sql import COMPOSE_SQL

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

OWNER = "SUPPLYCHAIN"
_CACHE: dict[tuple[str, str], tuple[Schema, ValueIndex]] = {}
_LOCK = threading.Lock()


def knowledge(eng: Engine) -> tuple[Schema, ValueIndex]:
    """The schema links and the value index of an engine's SUPPLYCHAIN, built once per database (a
    user's scoped view of an engine reads the same one: the key is the database's, not the view's)."""
    eng = getattr(eng, "db", eng)
    key = (eng.name, str(getattr(eng, "supplychain_path", "") or getattr(eng, "dsn", "") or id(eng)))
    with _LOCK:
        if key not in _CACHE:
            schema = Schema.from_dictionary(eng.supplychain.data_dictionary(OWNER),
                                            days_between=eng.supplychain.days_between,
                                            date_literal=eng.supplychain.date_literal)

            def query(sql: str) -> list:
                return list(eng.supplychain.read_only_query(sql, max_rows=200).rows)

            def distinct(table: str, column: str) -> str:
                return COMPOSE_SQL["distinct_values"].format(table=table, column=column)

            _CACHE[key] = (schema, ValueIndex.build(schema, query, distinct))
        return _CACHE[key]


@dataclass
class DataAnswer:
    text: str | None                # None: the plan found no row, or could not be composed
    plan: planner.Plan | None
    reason: str                     # why there is no answer, or what the plan understood
    links: list[dict[str, Any]] = field(default_factory=list)
    rows_shown: int = 0
    uncovered: str | None = None    # a part of the question the answer does not show
    second_plan: planner.Plan | None = None  # the plan of a second part asked on its own
    unexplained: str | None = None  # a word no plan explains: the question asks what the data does not hold
    first_row: tuple[Any, ...] | None = None  # the row the answer shows first (a last part may ask about it)


def link_summary(links: list[Link]) -> list[dict[str, Any]]:
    return [{"text": lk.text, "column": f"{lk.table}.{lk.column}", "value": lk.value, "how": lk.how} for lk in links]


def links_of(eng: Engine, question: str) -> dict[str, Any]:
    """What the assistant links a question to, before it plans: the values it names (column and
    how they matched) and the columns its words name through their comments (with the comment)."""
    schema, values = knowledge(eng)
    links = values.links(question)
    words = planner._Words.read(question, links)
    named = schema.columns_named([w for _, w in words.free()], sorted(schema.columns))
    return {"values": link_summary(links),
            "columns": [{"column": c.ref, "score": round(score, 1), "comment": c.comment.split(".")[0]}
                        for score, c in named if score >= 1.5]}


def named_records(eng: Engine, question: str) -> list[Link]:
    """The records of the data a question names by name or number (a vessel, a carrier, a voyage,
    a container; not a port, a country or a category): an answer that ignores them is not an
    answer to the question."""
    schema, values = knowledge(eng)
    named = [lk for lk in values.links(question) if lk.table != "PORTS" and lk.how in ("exact", "fuzzy", "partial")
             and (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS]
    for m in re.finditer(r"\b([A-Za-z]+)\s+(?:no\.?\s*|#\s*)?(\d+)\b", question):  # "voyage 1020": a row by its id
        table = TABLE_NOUNS.get(m.group(1).lower())
        if table in schema.columns and table != "PORTS":
            named.append(Link(table, "id", int(m.group(2)), m.start(), m.end(), "exact", m.group(0)))
    return named


def _acronyms(comment: str) -> set[str]:
    """Upper-case abbreviations a comment uses ("an estimate (ETA)"), lower-cased."""
    return {w.lower() for w in re.findall(r"\b[A-Z]{3,5}\b", comment)} - {"null", "utc"}


# what a question sets aside ("weight capacity, not the TEU figure", "instead of the gross weight"): up to
# the next punctuation, at most five words
# "... can actually load (not the TEU)": the brackets go with what they set aside
_SET_ASIDE_BRACKETED = re.compile(r"\s*\(\s*(?:but\s+)?(?:not|rather than|instead of|other than|apart from)\b[^()]{0,60}\)",
                                  re.I)
# ("not counting the tare", "not including the tare": what it sets aside is the tare)
_SET_ASIDE = re.compile(r"(?:,\s*|\s+)(?:but\s+)?(?:not|rather than|instead of|other than|apart from)"
                        r"(?:\s+(?:counting|including|incl\.?))?"
                        r"(?:\s+(?:the|a|an|its|their))?((?:\s+[\w'-]+){1,5}?)(?=\s*(?:[.,;?!)]|$))", re.I)


def without_set_aside(question: str) -> str:
    """The question without the things it says it does not mean, so they link to nothing; the
    question itself when that would leave too little of it."""
    kept = _SET_ASIDE.sub("", _SET_ASIDE_BRACKETED.sub("", question)).strip()
    return kept if len(kept.split()) >= 3 else question


def schema_subjects(eng: Engine, question: str) -> list[str]:
    """The column a schema question is about, as TABLE.COLUMN: one written as the schema writes it,
    one named by an acronym or a long word only it has, or one of the table the question names
    (or a table one key from it) whose name words it uses; else [] and the retrieval decides."""
    schema, values = knowledge(eng)
    words = planner._Words.read(question, values.links(question))
    free = [w for _, w in words.free()]
    # the words as mapped ("ETA" is read as arrival) and as written (the comment's own "ETA")
    present = set(free) | {raw for i, (_, _, raw) in enumerate(words.raw) if i not in words.taken}
    tables = [t for _, t in schema.tables_named(free)]
    # (a figure worked out from columns, a voyage's days at sea, is no column of the schema)
    columns = [c for cols in schema.columns.values() for c in cols if not c.is_key and not c.sql]
    if (exact := _written_or_keyed(schema, question, columns, tables, present)) is not None:
        return [exact.ref]
    asks_table = re.search(r"\btables?\b", question, re.I) is not None  # a table asked for is no column
    best = (_in_table(schema, tables[0], present) or (None if asks_table else _comment_owned(schema, tables[0], set(free))))\
        if tables else _owned_word(schema, columns, present, _not_read_into_a_size(words))
    best = best or _named_whole(schema, columns, present, tables)
    return [best.ref] if best is not None else []


def _written_or_keyed(schema: Schema, question: str, columns: list[Any], tables: list[str], present: set[str]) -> Any:
    """The one column written as the schema writes it, else the one key whose comment the question says; or None."""
    written = _written_as_in_schema(question, columns, tables)
    if len(written) == 1:
        return written[0]
    return _key_by_its_meaning(schema, question, present) or _identifying_key(schema, question, tables)


# a question for what tells one row of a table from another ("the primary key of containers", "what uniquely
# identifies a vessel", "the right key to identify a ship")
ASKS_THE_KEY = re.compile(r"\b(?:primary key|(?:right|unique|main) (?:key|id)|uniquely identif\w*|key to identify|"
                           r"identif\w* (?:a|an|each|one|the) (?:\w+ )?(?:row|record|ship|vessel|voyage|box|container|port|"
                           r"carrier|line|cargo|position))\b", re.I)


def _identifying_key(schema: Schema, question: str, tables: list[str]) -> Any:
    """The key of the one table a question for its key names: the column other tables' keys point at, else the one
    whose comment says it is the table's key ("Surrogate key for the manifest line", "Also the primary key")."""
    named = list(dict.fromkeys(tables))
    if len(named) != 1 or ASKS_THE_KEY.search(question) is None:
        return None
    keys = [c for c in schema.columns.get(named[0], []) if c.name in _keys_of(schema, named[0])]
    return keys[0] if len(keys) == 1 else None


def _keys_of(schema: Schema, table: str) -> set[str]:
    """The names of a table's key: the column other tables' keys point at, else those whose comment says so."""
    referenced = {ref for _, _, t, ref in schema.foreign_keys if t == table}
    return referenced or {c.name for c in schema.columns.get(table, [])
                          if re.search(r"\b(?:primary key|surrogate key for)\b", c.comment or "", re.I)}


def _key_by_its_meaning(schema: Schema, question: str, present: set[str]) -> Any:
    """"Which column holds a voyage's departure port?": the one key to another table whose comment opens with
    the words asked ("Port of departure (FK to PORTS)"); a key is no answer to a data question, but it is the
    column a schema question asks for. None when the question asks no column, or several keys fit."""
    if not re.search(r"\b(?:columns?|fields?)\b", question, re.I):
        return None
    fits = []
    for cols in schema.columns.values():
        for c in cols:
            opening = re.split(r"[(.;:]", c.comment or "", maxsplit=1)[0]
            said = {w for w in words_of(opening.lower()) if w not in STOP_WORDS}
            if c.is_key and len(said) >= 2 and said <= present:
                fits.append(c)
    return fits[0] if len(fits) == 1 else None


def _written_as_in_schema(question: str, columns: list[Any], tables: list[str]) -> list[Any]:
    """A column written as the schema writes it ("does QUANTITY count pieces"), in a table named
    or alone."""
    return [c for c in columns if re.search(rf"(?<![\w]){c.name.replace('_', '[_ ]')}(?![\w])", question, re.I)
            and (not tables or c.table in tables)]


_VAGUE = {"id", "code", "name", "number", "date", "kg", "m", "usd", "cents", "c", "teu", "knots", "deg"}


def _named_whole(schema: Schema, columns: list[Any], present: set[str], tables: list[str]) -> Any:
    """The one column all of whose name words the question uses ("gross weight", "departure date"),
    at least two of them telling (not a unit or a word every table has); in the table named when
    one is; None when none or several."""
    def telling(c: Any) -> set[str]:
        return {w for w in schema.name_words(c) if w not in _VAGUE and w not in TABLE_NOUNS}

    # ("the arrival date": one telling word and a plain one, every word of the name said)
    whole = [c for c in columns if telling(c) <= present and (not tables or c.table in tables)
             and (len(telling(c)) >= 2 or (len(telling(c)) == 1 and len(schema.name_words(c)) >= 2
                                           and schema.name_words(c) <= present))]
    return whole[0] if len(whole) == 1 else None


# words of size read as the column they measure ("big": capacity): they name no column in a schema question
_SIZE_WORDS = frozenset("big bigger biggest large larger largest small smaller smallest huge tiny".split())


def _not_read_into_a_size(words: planner._Words) -> set[str]:
    """The question's words as mapped ("ETD": departure), but not a column a word of size was read as."""
    return {w for (_, _, raw), w in zip(words.raw, words.mapped, strict=True) if raw not in _SIZE_WORDS} | \
        {raw for _, _, raw in words.raw}


def _owned_word(schema: Schema, columns: list[Any], present: set[str], written: set[str]) -> Any:
    """No table named: the one column an acronym of its comment ("ETA", "VGM") or a long word of its
    name that no other column's name has ("deadweight") names (not "capacity" read into "big"); "unit"
    or "name" says too little."""
    owners = [c for c in columns if _acronyms(c.comment) & present]
    if not owners:
        def own_words(c: Any) -> set[str]:
            return {w for w in schema.name_words(c) & written if len(w) >= 7 and w not in TABLE_NOUNS}

        owners = [c for c in columns if own_words(c)
                  and not any(own_words(c) & schema.name_words(o) for o in columns if o != c)]
    return owners[0] if len(owners) == 1 and _owns_the_question(schema, columns, owners[0], present) else None


def _owns_the_question(schema: Schema, columns: list[Any], owner: Any, present: set[str]) -> bool:
    """No other column's words cover more of what is asked ("the declared value of each package": PACKAGE_TYPE owns
    "package", but UNIT_VALUE_CENTS's "declared value of ONE package" covers more), and the owner covers a quarter of
    a long question ("after how long does a power loss get reported?" is about another thing)."""
    asked = {w for w in present if len(w) >= 4} - (_ASKING - {"value", "values"}) - planner._QUESTION

    def covered(c: Any) -> int:
        return len(asked & (schema.name_words(c) | c.comment_words))
    if len(asked) >= 6 and 4 * covered(owner) < len(asked):
        return False
    return not any(covered(o) > covered(owner) for o in columns if o != owner)


def _in_table(schema: Schema, table: str, present: set[str]) -> Any:
    """The column of the table named (else of a table one foreign key away: "vessel speed") whose name
    words and comment acronyms the question uses most, when no other ties or shares them."""
    hits: list[tuple[float, Any]] = []
    for searched in ([table], [t for t in schema.columns if len(schema.path(table, t) or []) == 1]):
        hits = _column_hits(schema, searched, present)
        if hits:
            break
    if not hits or (len(hits) > 1 and hits[1][0] == hits[0][0]):
        return None
    best = hits[0][1]
    matched = _own_words(schema, best) & present
    if any(matched <= c.comment_words for c in schema.columns[best.table] if c != best and not c.is_key):
        return None  # another column's comment uses the same words ("weight" of deadweight): not clear
    return best


# words of asking where a thing is kept: none of them names the thing
_ASKING = set("""column columns field fields table tables store stores stored hold holds held keep keeps kept tell tells
show shows say says record records recorded find found where which whether data database schema value values
information info lookup mean means meaning contain contains give gives read under figure setting ask asks
thats whats wheres join joins joined link links linked relate relates""".split())


def not_explained_by(eng: Engine, question: str, subject: str) -> list[str]:
    """The words a question asks about that the subject ("TABLE" or "TABLE.COLUMN") does not explain:
    neither its name, its comment nor its table's first sentence uses them, by stem or synonym ("which
    column has the booking number": VOYAGE_NUMBER says nothing of bookings). Words of asking, plain
    English and the tables' nouns are no part of what is asked; what the question sets aside is left out."""
    schema, _ = knowledge(eng)
    table, _, column = subject.removeprefix(f"{OWNER}.").partition(".")
    cols = [c for c in schema.columns.get(table, []) if c.name == column]
    if table not in schema.columns or (column and not cols):
        return []  # a relationship or another kind of fact: not one column's
    texts = [re.split(r"(?<=[a-z)])\.\s", schema.table_comments.get(table, ""), maxsplit=1)[0], table]
    texts += [t for c in cols for t in (c.comment, c.name, c.data_type)]  # "timestamps": a TIMESTAMP column
    known = set(words_of(" ".join(texts).replace("-", " ").replace("_", " ")))
    if cols and cols[0].name in _keys_of(schema, table):  # a table's key explains "the primary key", "identifies"
        known |= set(words_of("primary key unique uniquely identify identifies identifier id"))
    known |= {stem_root(w) for w in known}

    def explained(raw: str, mapped: str) -> bool:
        return bool({raw.lower(), mapped, stem_root(raw.lower()), stem_root(mapped)} & known)
    left = [raw for raw, mapped in asked_words(question) if not explained(raw, mapped)]
    return [raw for raw in left if not _glossed(question, raw, explained)]


def _glossed(question: str, raw: str, explained: Callable[[str, str], bool]) -> bool:
    """"The Zolltarifnummer (HS code)": a word the brackets right after it say again in words that are
    explained."""
    m = re.search(rf"\b{re.escape(raw)}\s*\(([^()]{{1,40}})\)", question)
    inside = asked_words(m.group(1)) if m else []
    return bool(inside) and all(explained(r, w) for r, w in inside)


def asked_words(question: str) -> list[tuple[str, str]]:
    """The words of what a question asks about, as written and as the synonym layer reads them: no word
    of asking, plain English or a table's noun, nothing it sets aside."""
    text = re.sub(r"(?<=\w)['\u2019]s\b", "", without_set_aside(question)).replace("-", " ")
    raws = re.findall(r"[A-Za-z][A-Za-z']*", text)
    skip = planner._QUESTION | planner._PLAIN | _ASKING
    return [(raw, mapped) for raw, mapped in zip(raws, words_of(" ".join(raws)), strict=True)
            if len(raw) >= 4 and raw.lower() not in skip and mapped not in _ASKING and mapped != "-"
            and mapped not in TABLE_NOUNS]


def _comment_owned(schema: Schema, table: str, present: set[str]) -> Any:
    """The one column of the table named whose comment alone uses a long word of the question ("is a
    cargo line hazardous": only UN_NUMBER's comment speaks of dangerous goods), and explains every
    other word it asks about; else None. `present`: the question's free words, as mapped."""
    cols = [c for c in schema.columns[table] if not c.is_key]
    asked = {w for w in present if len(w) >= 4 and w not in _ASKING | TABLE_NOUNS.keys() | planner._QUESTION | planner._PLAIN}

    def owns(c: Any) -> bool:
        own = {w for w in c.comment_words & present if len(w) >= 6 and w not in TABLE_NOUNS}
        # "booking office": office is not CARRIER_NAME's, though "bookings" is in its comment
        return bool(own) and not any(own & o.comment_words for o in cols if o != c) \
            and asked <= c.comment_words | schema.name_words(c)

    owners = [c for c in cols if owns(c)]
    return owners[0] if len(owners) == 1 else None


def _own_words(schema: Schema, c: Any) -> set[str]:
    """A column's name words, and the acronyms its comment gives it."""
    return schema.name_words(c) | _acronyms(c.comment)


def _column_hits(schema: Schema, tables: list[str], present: set[str]) -> list[tuple[float, Any]]:
    """Columns of the tables scored by the question's words among their own, best first; a table's
    noun in a column's name ("voyage" of VOYAGE_NUMBER) counts half, and half alone is no hit."""
    scored = [(sum(0.5 if w in TABLE_NOUNS else 1 for w in _own_words(schema, c) & present), c)
              for t in tables for c in schema.columns[t] if not c.is_key]
    return sorted((h for h in scored if h[0] >= 1), key=lambda h: -h[0])


def plan_summary(plan: planner.Plan) -> dict[str, Any]:
    """What the plan understood, for decision_explain: the rows, the action, the columns it links."""
    spec = plan.spec
    return {"rows_of": spec.target, "action": spec.action,
            "columns": [c.ref for c in plan.columns if c.comment] + [c.ref for c in (spec.measure, spec.group) if c],
            "filters": [f"{f.column.ref} {f.op}" + (f" ({f.role})" if f.role else "") for f in spec.filters],
            "said": plan.what}


# "it", "she", "her": one thing; not "is it possible", "how far is it", "what time is it", "it's late"
_POINTER = re.compile(r"\b(it|its|she|her)\b(?!'s\s+(?:possible|true|ok|okay|right|correct|worth|normal|allowed|late|early|"
                      r"likely|better|best)\b)", re.I)
_DUMMY = re.compile(r"\b(?:is|was|would be|will be)\s+it\s+(?:possible|true|ok|okay|right|correct|worth|normal|allowed|"
                    r"likely|better|best|too)\b|\bhow\s+(?:far|long|much|many\s+\w+)\s+(?:is|was|will)\s+it\b|"
                    r"\bwhat\s+time\s+is\s+it\b|\b(?:make|keep|round|put|give|write|express|convert|format|show)\s+it\b|"
                    r"\bit\s+takes?\b", re.I)


def unbound_pronoun(question: str, links: list[Link]) -> str | None:
    """The pronoun a question asks about one thing by ("does it hold", "her ETA") when nothing before it in the
    question names such a thing (a vessel, a voyage, a box, a port or a carrier by name or number, or a table's
    noun in the singular); None when it names one or uses no such pronoun."""
    # (the sentence that asks: "we have 3 boxes on it. which ships are shorter than 200 m?" asks nothing of "it")
    start = max((e.end() for e in _SENTENCE_END.finditer(question.rstrip())), default=0)
    m = _POINTER.search(question, start)
    if m is None or _DUMMY.search(question, start):
        return None
    before = question[:m.start()]
    if any(lk.start < m.start() and (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS for lk in links):
        return None
    if any(table_of_noun(w) and not w.lower().endswith("s") for w in re.findall(r"[A-Za-z]+", before)):
        return None  # "which ship is the biggest, and who operates it?": its own subject
    return m.group(1)


_THE_ONE = re.compile(r"\b(?:the|this|that)\s+([a-z]+)\b(?!\s+(?:of|with|that|which|whose|where|from|to|in|on|at|"
                      r"carrying|arriving|leaving|sailing|due|called|named)\b)", re.I)


def _read_for_the_plan(question: str, schema: Schema, values: ValueIndex) -> tuple[str, list[Link]]:
    """The question as the planner reads it (ages, signs, typed question words, periods, split words and names
    written as the data writes them), with its links (read again only when a reading changed the text)."""
    question = joined_as_named(periods_named(question_words_spelt(signs_written(age_said(_units_as_boxes(
        _rest_unsaid(question))))), planner.reference_date(schema)), schema)
    links = values.links(question)
    if (spaced := _hyphens_spaced(question, links)) != question:
        question, links = spaced, values.links(spaced)
    if (called := _calling_said(question, links)) != question:
        question, links = called, values.links(called)
    return question, links


def _rest_unsaid(question: str) -> str:
    """"A Kota-something ship": the start of a name with the rest left vague, read as that start (blanked, so the
    length stays the same)."""
    return _VAGUE_REST.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))), question)


def _units_as_boxes(question: str) -> str:
    """"Reefer units", "tank units": a kind of box said with "units" names boxes (not the value of a unit)."""
    return _KIND_UNITS.sub(lambda m: m.group(1) + ("boxes" if m.group(2).endswith("s") else "box "), question)


_KIND_UNITS = re.compile(r"\b((?:reefer|dry|tank|flat[- ]?rack|open[- ]top|high[- ]cube|refrigerated)\s+)(units?)\b", re.I)


_VAGUE_REST = re.compile(r"\b((?-i:[A-Z])\w{2,})(?:-|\s+)(?:something|whatever|whatsit)\b", re.I)


def _not_to_plan(question: str, links: list[Link], require_links: bool) -> str | None:
    """Why a question is not planned at all: it names no value when one is required, or it asks about "it"
    ("how many cartons of oil does it hold?") with nothing named, where every row's answer would answer another
    question; None to plan it."""
    if require_links and not links:
        return "it names no value of the data"
    pointer = unbound_pronoun(question, links)
    return f"it asks about '{pointer}', which it does not name" if pointer is not None else None


def _one_row_unsaid(question: str, links: list[Link], spec: planner.Spec, answer: DataAnswer) -> DataAnswer | None:
    """"Where is the ship going?" with no ship named, answered with the rows of several: they answer another
    question, so no answer; None when the rows are one, or the question does not mean one row."""
    if not answer.text or answer.rows_shown < 2 or spec.action not in ("list", "lookup", "distinct") or \
            (one := _the_one_meant(question, links)) is None:
        return None
    return DataAnswer(None, None, f"it asks about {one}, one of several, and does not say which", answer.links)


def _the_one_meant(question: str, links: list[Link]) -> str | None:
    """"The ship", "that box": one row of a table meant, said with no name, number or words that pick it (no
    value of the data named, no "each", "every", "all"); None otherwise."""
    if links or re.search(r"\b(?:each|every|all|any|which|what)\b", question, re.I):
        return None
    for m in _THE_ONE.finditer(question):
        word = m.group(1)
        after = re.match(r"\s+([a-z]+)", question[m.end():], re.I)
        if after and (after.group(1).lower().endswith("s") or after.group(1).lower() in _OF_A_ROW):
            continue  # "the container numbers", "the cargo manifests": a noun's modifier, not one row
        if table_of_noun(word) is not None and not word.lower().endswith("s") and word.lower() not in _ALL_AT_ONCE:
            return m.group(0)
    return None


_OF_A_ROW = {"number", "name", "id", "code", "type", "date", "status", "size", "list", "data", "count", "total"}
# nouns of a table said of all its rows at once ("the fleet", "the cargo"): no one row
_ALL_AT_ONCE = {"fleet", "cargo", "manifest", "schedule"}


def answer_data(eng: Engine, question: str, *, require_links: bool = False) -> DataAnswer:
    """Compose, run read-only and render; never raises for a question it cannot plan. With
    `require_links`, a question that names no value of the data is not planned at all."""
    schema, values = knowledge(eng)
    question, links = _read_for_the_plan(question, schema, values)
    summary = link_summary(links)
    if (unasked := _not_to_plan(question, links, require_links)) is not None:
        return DataAnswer(None, None, unasked, summary)
    if (both := _two_counts(eng, question)) is not None:
        return both
    try:
        spec = planner.compose(question, schema, links)
        plan = planner.to_sql(spec, schema)
    except planner.NoPlan as exc:
        word = exc.word if isinstance(exc, planner.Unexplained) else None
        if isinstance(exc, planner.NotTheDatas):
            return DataAnswer(None, None, str(exc), summary)  # (no part of it is the data's to answer)
        return _the_question_alone(eng, question, values) or _without_asides(eng, question, values) \
            or _first_part_alone(eng, question, links) or DataAnswer(None, None, str(exc), summary, unexplained=word)
    parts = clauses(question)
    if (stepped := _step_by_step(eng, question, parts, schema, links)) is not None:
        return stepped
    answer = _run(eng, (schema, values), spec, plan, parts, links, summary, question)
    if (unsaid := _one_row_unsaid(question, links, spec, answer)) is not None:
        return unsaid
    packed = _boxes_as_packages(eng, schema, spec, question, links) if answer.text else None
    return dataclasses.replace(answer, text=f"{answer.text}\n{packed}") if packed else answer


def _goods_counted_in_boxes(spec: planner.Spec, question: str, links: list[Link]) -> list[str]:
    """The goods' words when the plan counts the boxes that carry them and nothing else filters them
    (boxes of bananas on one voyage: their packages would be counted over every voyage); else []."""
    if spec.action != "count" or spec.target != "CONTAINERS" or not re.search(r"\bbox(?:es)?\b", question, re.I) or \
            any(f.column.ref != "CARGO_ITEMS.DESCRIPTION" for f in spec.filters):
        return []
    return [lk.text for lk in links if (lk.table, lk.column) == ("CARGO_ITEMS", "DESCRIPTION") and lk.how == "word"]


def _boxes_as_packages(eng: Engine, schema: Schema, spec: planner.Spec, question: str, links: list[Link]) -> str | None:
    """"How many banana boxes in total?": a box is a container, and on the manifests a kind of package too
    (the package type's comment: "BX box"). Boxes of goods counted as containers are also said as the
    packages of that kind their lines declare, when they declare any: the question may mean either."""
    goods = _goods_counted_in_boxes(spec, question, links)
    kind = next((c for c in schema.columns.get("CARGO_ITEMS", []) if c.name == "PACKAGE_TYPE"), None)
    code = next(iter(re.findall(r"\b([A-Z]{2})\s+box\b", kind.comment)), None) if kind is not None else None
    if not goods or code is None:
        return None
    packages = answer_data(eng, f"how many {code} packages of {' '.join(goods)}?")
    if packages.text is None or packages.plan is None or packages.plan.spec.action != "aggregate":
        return None
    return f"Counted as packages on the manifest lines instead: {packages.text}"


def _read_as(links: list[Link], question: str) -> str:
    """A name matched with a typo, said as read: "(I read “Ever Ace” as Ever Acme, the nearest name in
    the data.)", so a wrong reading is visible."""
    fuzzy = {(question[lk.start:lk.end] or lk.text, str(lk.value)) for lk in links
             if lk.how == "fuzzy" and lk.text.lower() != str(lk.value).lower()}
    return "".join(f"\n(I read \u201c{said}\u201d as {name}, the nearest name in the data.)" for said, name in sorted(fuzzy))


def _run(eng: Engine, known: tuple[Schema, ValueIndex], spec: planner.Spec, plan: planner.Plan, parts: list[str],
         links: list[Link], summary: list[dict[str, Any]], question: str = "") -> DataAnswer:
    """The plan run read-only and rendered, with what a second part asks added when it can be."""
    schema, values = known
    if spec.action == "count" and any(_names_nothing(c, schema, values) for c in parts[1:]):
        spec.action = "list"  # "how many ..., and which ones?": the rows, which the list counts too
        plan = planner.to_sql(spec, schema)
    result = eng.supplychain.read_only_query(plan.sql, max_rows=plan.max_rows, params=plan.params)
    text = render.render(plan, result.rows)
    if text is None and _ASKS_IF_ANY.match(question) and spec.action in ("list", "group", "lookup"):
        # "does any carrier run more than two ships?": a query that uses every word, with no row, is a no
        text = f"No: the data has no row of {plan.what} (0 found)."
    if text is None:
        return DataAnswer(None, plan, f"no row of {plan.what}", summary)
    text += _named_when_few(eng, schema, spec, result.rows)
    text += _read_as(links, question)
    answer = DataAnswer(text, plan, f"{spec.action}: {plan.what}", summary, render.rows_shown(plan, result.rows),
                        uncovered(parts, plan, schema, values), first_row=tuple(result.rows[0]) if result.rows else None)
    return _with_second_part(eng, answer, links, question) if answer.uncovered else answer


# a question whether any row is so ("does any carrier ...?", "are there voyages ...?", "is there a ship ...?")
_ASKS_IF_ANY = re.compile(r"^\W*(?:(?:and|so)\W+)?(?:do(?:es)?\s+any|are\s+there|is\s+there|has\s+any|have\s+any|"
                          r"are\s+any|is\s+any)\b", re.I)


_FEW = 5  # a count this small is said with the rows' names ("There are 2 reefers on 619W: A, B.")


def _named_when_few(eng: Engine, schema: Schema, spec: planner.Spec, rows: Any) -> str:
    """After a count of a few rows, which rows they are, by the name a person knows them by (one more query
    with the same filters); "" for another answer, a larger count or rows without such a name."""
    n = rows[0][0] if spec.action == "count" and rows else 0
    if not isinstance(n, int) or not 0 < n <= _FEW:
        return ""
    name = schema.name_column(spec.target)
    if name.table != spec.target or name.is_key:
        return ""
    listed = planner.to_sql(dataclasses.replace(spec, action="list", show=[name], fn=None, measure=None), schema)
    found = eng.supplychain.read_only_query(listed.sql, max_rows=_FEW, params=listed.params).rows
    at = listed.columns.index(name)
    names = sorted({str(r[at]) for r in found if r[at] is not None})
    return f" They are: {', '.join(names)}." if names and len(names) == len(found) else ""


def signs_written(question: str) -> str:
    """"minus 18" and "−18" as "-18", each the same length (the links' offsets stay right)."""
    question = question.replace("\u2212", "-")
    return re.sub(r"\bminus\s+(?=\d)", lambda m: " " * (len(m.group(0)) - 1) + "-", question, flags=re.I)


def age_said(question: str) -> str:
    """"The most out-of-date position", "the least recent report": the stalest; "the most up-to-date": the freshest
    (not the highest of a date column: "date" here says how old, and "most" the most so). "An upcoming sailing",
    "a future voyage": a scheduled one (the word the status's comment uses)."""
    return _UPCOMING.sub("scheduled", _FRESHEST.sub("freshest", _STALEST.sub("stalest", question)))


_UPCOMING = re.compile(r"\b(?:upcoming|forthcoming|future)\b(?=\s+(?:sailings?|voyages?|departures?|trips?|rotations?)\b)",
                       re.I)


_STALEST = re.compile(r"\b(?:most|very)\s+(?:out[- ]of[- ]date|outdated|stale)\b|\bleast\s+(?:recent|up[- ]to[- ]date|fresh)\b",
                      re.I)
_FRESHEST = re.compile(r"\bmost\s+up[- ]to[- ]date\b|\bleast\s+(?:out[- ]of[- ]date|outdated|stale)\b", re.I)


def question_words_spelt(question: str) -> str:
    """A question word typed with two letters swapped or one wrong ("waht", "whcih", "hwo") as the word, the
    same length (not before a capital: "Whan Hai 611" misspells a name)."""
    return re.sub(r"\b([A-Za-z]{3,5})\b(?!\s+[A-Z])(?=\s*([a-z]*))", _question_word_spelt, question)


def _calling_said(question: str, links: list[Link]) -> str:
    """"the ship called Mount Tabor": the word that introduces a name says nothing more (blanked, so the
    length stays the same)."""
    for lk in links:
        if (lk.table, lk.column) in NAME_COLUMNS and lk.start is not None and \
                (m := re.search(r"\b(?:called|named)\s+$", question[:lk.start], re.I)) is not None:
            question = question[:m.start()] + " " * (lk.start - m.start()) + question[lk.start:]
    return question


def _hyphens_spaced(question: str, links: list[Link]) -> str:
    """"dangerous-goods lines": two words joined by a hyphen read as two, unless the joined words are a value
    of the data ("Hapag-Lloyd", "X-Press Jade") or hold a figure ("20-foot"); the length stays the same."""
    def spaced(m: re.Match[str]) -> str:
        inside = any(lk.start <= m.start() and m.end() <= lk.end for lk in links)
        return m.group(0) if inside else m.group(0).replace("-", " ")
    return re.sub(r"\b[A-Za-z]{3,}(?:-(?!(?:wise|most|like|based|bound|sized|style|free)\b)[A-Za-z]{3,})+\b", spaced, question)


_QUESTION_WORDS = ("what", "which", "where", "when", "who", "whose", "how")
_NOT_TYPOS = frozenset({"why", "whom", "whole", "white", "whale", "wheel", "hot", "hop", "hog", "now", "cow"})


def _question_word_spelt(m: re.Match[str]) -> str:
    """The question word a word of the same length misspells by one letter (its first kept) or by its first
    two swapped; the word itself otherwise."""
    raw, after = m.group(1), m.group(2)
    low = raw.lower()
    if low in _QUESTION_WORDS or low in _NOT_TYPOS:
        return raw
    near = [w for w in _QUESTION_WORDS if len(w) == len(low) and DamerauLevenshtein.distance(low, w) == 1
            and (low[0] == w[0] or low[1] + low[0] + low[2:] == w)]
    if len(near) > 1:  # "hwo": "who" or "how"; the next word says ("hwo many")
        near = ["how"] if "how" in near and after in ("many", "much", "long", "far", "often", "old", "big") else []
    if len(near) != 1:
        return raw
    return near[0].capitalize() if raw[0].isupper() else near[0]


_RELATIVE = re.compile(r"\b(?:(last|past|previous|this|current|next|coming)\s+(year|month))\b", re.I)
_STEP = {"last": -1, "past": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
# a calendar week ("this week", "next week"); "the next week", "the past week": seven days on or back
_WEEK = re.compile(r"\b(?:(?:in|during|for|over|within)\s+)?(the\s+)?(last|past|previous|this|current|next|coming)\s+week\b"
                   r"(?!s|\s+of\b)", re.I)  # (not "the last week of June": a week of that month)


def periods_named(question: str, today: datetime.date | None) -> str:
    """"Last year", "next month", "tomorrow": the year, month or day they mean, counted from the date the
    data is stated as of (not an order: "last" here is no latest row)."""
    if today is None:
        return question

    def named(m: re.Match[str]) -> str:
        step = _STEP[m.group(1).lower()]
        if m.group(2).lower() == "year":
            return f"in {today.year + step}"
        month = today.year * 12 + today.month - 1 + step
        return f"in {calendar.month_name[month % 12 + 1]} {month // 12}"

    def day(m: re.Match[str]) -> str:  # "due to arrive tomorrow": the day after the data's own
        said = _written(today + datetime.timedelta(days=1 if m.group(1).lower() == 'tomorrow' else -1))
        # ("between 26 May and yesterday": the end of a range, with no "on" before it)
        ends = re.search(r"\b(?:and|to|until|till|through)\s+$", m.string[:m.start()], re.I)
        return said if ends else f"on {said}"

    def days(m: re.Match[str]) -> str:  # "in the last three days": three days, the data's own the last of them
        n = planner._count_of(m.group(2)) * (7 if m.group(3).lower().startswith("week") else 1) - 1
        back = m.group(1).lower() in ("last", "past", "previous")
        lo, hi = (today - datetime.timedelta(days=n), today) if back else (today, today + datetime.timedelta(days=n))
        return f"between {_written(lo)} and {_written(hi)}"
    def week(m: re.Match[str]) -> str:  # "due this week": Monday to Sunday of the data's week (or the one beside it)
        step = _STEP[m.group(2).lower()]
        if m.group(1) and step:  # "over the next week": the seven days from the data's own (or up to it)
            lo = today if step > 0 else today - datetime.timedelta(days=6)
        else:
            lo = today - datetime.timedelta(days=today.weekday()) + datetime.timedelta(weeks=step)
        return f"between {_written(lo)} and {_written(lo + datetime.timedelta(days=6))}"
    # (the days said as dates too, "the last 2 days, i.e. on 1 June or today": the dates are read instead)
    said_as_dates = _A_DATE_SAID.search(question)
    question = _NEXT_DAY.sub(day, _WEEK.sub(week, _RELATIVE.sub(named, question)))
    return _SPAN_OF_DAYS.sub("", question) if said_as_dates else _SPAN_OF_DAYS.sub(days, question)


def _written(d: datetime.date) -> str:
    """A date as the planner reads it in words: "3 June 2025"."""
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


_A_DATE_SAID = re.compile(rf"\b(?:{'|'.join(calendar.month_name[1:])})\b|\d{{4}}-\d{{2}}-\d{{2}}", re.I)
_SPAN_OF_DAYS = re.compile(rf"\b(?:in|over|during|within|for)\s+the\s+(last|past|previous|next|coming)\s+"
                           rf"(\d{{1,2}}|{'|'.join(planner._NUMBER_WORDS)})\s+(days?|weeks?)\b", re.I)


# (not "today": "where is she today?" asks how things stand, not the rows of one day)
_NEXT_DAY = re.compile(r"\b(tomorrow|yesterday)\b", re.I)


def joined_as_named(question: str, schema: Schema) -> str:
    """"Dead weight" as "deadweight": two words written apart that a column's name writes as one
    (the space moves to the end, so the text keeps its length)."""
    named = {part for cols in schema.columns.values() for c in cols for part in c.name.lower().split("_")
             if len(part) >= 6}

    out = question
    for m in re.finditer(r"\b(?=([A-Za-z]{3,}) ([A-Za-z]{3,})\b)", question):  # every pair, overlapping
        a, b = m.group(1), m.group(2)
        if (a + b).lower() in named:
            out = out[:m.start()] + a + b + " " + out[m.start() + len(a) + len(b) + 1:]
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TIME_WORDS = re.compile(r"\b(?:tomorrow|yesterday|week|month|year|monday|tuesday|wednesday|thursday|friday|"
                         r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|"
                         r"november|december)\b", re.I)


# "leave out the independents", "only reefers": a sentence that narrows what is asked
_CONSTRAINS = re.compile(r"\b(?:only|just|except|exclud\w*|without|leave out|not|no|include\w*|skip|ignore|but|all|"
                         r"below|above|under|over|less|more|fewer|greater|zero|minus|negative|positive)\b", re.I)


def _narrows(context: str, asking: str, values: ValueIndex) -> bool:
    """The context may narrow the question: a number or a time, a word that restricts, or a value of
    the data the question itself does not name."""
    asked = {str(lk.value) for lk in values.links(asking)}
    # a number the question says again ("a 200 m berth limit. which ships are shorter than 200 metres?") adds nothing
    numbers = set(re.findall(r"\d+(?:[.,]\d+)?", context)) - set(re.findall(r"\d+(?:[.,]\d+)?", asking))
    return bool(numbers or _TIME_WORDS.search(context) or _CONSTRAINS.search(context)) \
        or any(str(lk.value) not in asked for lk in values.links(context))


def _the_question_alone(eng: Engine, question: str, values: ValueIndex) -> DataAnswer | None:
    """"Sorry for the slow replies, the Antwerp office wifi is dying. Which voyages leave Antwerp?": the
    one sentence that asks, planned alone, when the others name nothing the question does not (no
    other value of the data, no number or time) so that no constraint is dropped; else None."""
    sentences = [x for x in _SENTENCE_END.split(question.strip()) if x.strip()]
    asking = [x for x in sentences if _asks_or_requests(x)]
    if len(sentences) < 2 or len(asking) != 1:
        return None
    context = " ".join(x for x in sentences if x is not asking[0])
    if _narrows(context, asking[0], values):
        return _about_the_record_told(eng, context, asking[0])
    found = answer_data(eng, asking[0])
    if found.text is None and (inner := _REPORTED.search(asking[0])) is not None and \
            not _narrows(asking[0][:inner.start()], asking[0], values):
        found = answer_data(eng, asking[0][inner.end():])  # "the trucker keeps asking what set-point ..."
    return found if found.text is not None else None


# a question reported inside a sentence: "the trucker keeps asking what ...", "I need to know which ..."
_REPORTED = re.compile(r"\b(?:ask(?:s|ed|ing)?|know|wonder(?:s|ed|ing)?|find out|check(?:ing)?)\s+(?=(?:what|which|when|"
                       r"where|how|who|whether)\b)", re.I)


# "it", "she", "that sailing": a word that points back to a record named before
_POINTS_BACK = re.compile(r"\b(?:(?:that|this)\s+(?:ship|vessel|boat|sailing|voyage|trip|box|container|one)|it|she|her)\b",
                          re.I)


def _about_the_record_told(eng: Engine, context: str, asking: str) -> DataAnswer | None:
    """"Container MSKU4313858 is the one we booked for our client. What size is it?": the sentence that
    asks, with the word that points back replaced by the one record the other sentences name; None
    when they name more than one record, or a time (which would be dropped), or it points at nothing."""
    named = named_records(eng, context)
    records = {(lk.table, str(lk.value)) for lk in named}
    rest = functools.reduce(lambda text, lk: re.sub(re.escape(lk.text), " ", text, flags=re.I), named, context)
    if len(records) != 1 or _TIME_WORDS.search(rest) or re.search(r"\d", rest):
        return None
    ((table, value),) = records
    noun = next((n for n, t in TABLE_NOUNS.items() if t == table), table.lower())
    said = value if any(t == table for t, _ in NAME_COLUMNS) else f"{noun} {value}"
    asked, count = _POINTS_BACK.subn(said, asking, count=1)
    if not count:
        return None
    found = answer_data(eng, asked)
    return found if found.text is not None and found.uncovered is None else None


_ASIDE = re.compile(r"\s*\(([^()]*)\)")
# ... and the same said again: "still scheduled, i.e. haven't left yet?"
_RESTATED = re.compile(r",?\s*\b(?:i\.\s?e\.?|ie|that is|in other words|meaning)[,:]?\s+([^?]+)\?*\s*$", re.I)
# ... and what the answer is for: "... for a booking form", "I'm filling in a port state form and need ..."
_PURPOSE = re.compile(r"\s+for\s+(?:a|an|my|our|the)\s+([a-z][\w -]{0,30}?)(?=\s*[?.!]*\s*$)|"
                      r"^\s*(?:i'?m|we'?re|i am|we are)\s+(\w+ing\b[^,.;?]*?)\s+and\s+(?:i\s+|we\s+)?need\b", re.I)


def _without_restating(eng: Engine, question: str, values: ValueIndex) -> DataAnswer | None:
    """"Still only scheduled, i.e. haven't left yet?": the question without the same thing said again
    in other words, when those words name no value of the data and no number; None when that has no answer."""
    restated = _RESTATED.search(question)
    if restated is None or values.links(restated.group(1)) or re.search(r"\d", restated.group(1)):
        return None
    found = answer_data(eng, question[:restated.start()] + "?")
    return found if found.text is not None else None


def _without_asides(eng: Engine, question: str, values: ValueIndex) -> DataAnswer | None:
    """"How many voyages are at sea (as of the data's reference date)?": the question planned without
    the words in brackets, when they narrow nothing it asks (no value, number, time, restriction or
    word of a column's name)."""
    if (said_once := _without_restating(eng, question, values)) is not None:
        return said_once
    if (read := _aside_read(eng, question)) is not None:
        return read
    rest = _PURPOSE.sub(lambda m: "" if m.group(1) else "need", _ASIDE.sub("", question))
    asides = _ASIDE.findall(question) + [m.group(1) or m.group(2) for m in _PURPOSE.finditer(question)]
    schema = knowledge(eng)[0]
    named = {w for cols in schema.columns.values() for c in cols for w in schema.name_words(c)} - set(TABLE_NOUNS) - _VAGUE
    if not asides or not rest.strip() or any(_narrows(a, rest, values) or set(words_of(a)) & named for a in asides):
        return None  # "(quantity x unit value)" says what to measure
    found = answer_data(eng, rest)
    return found if found.text is not None else None


_JOINING = frozenset({"but", "and", "or", "nor", "so", "though", "although", "i", "e"})  # (and "i.e.")


def _aside_read(eng: Engine, question: str) -> DataAnswer | None:
    """One aside in brackets that says the question's words again, precisely: "at sea right now (departed but not
    arrived yet)" says what the status's comment says of the value the rest filters on, so the rest alone is asked;
    "reefers running below freezing (set point under 0 °C)" says in the data's words what the words before it
    say, so it is asked in their place (after the last thing of the data named before it). None otherwise."""
    asides = list(_ASIDE.finditer(question))
    if len(asides) != 1:
        return None
    aside = asides[0]
    said = {stem_root(w) for w in words_of(aside.group(1))} - STOP_WORDS - _JOINING
    found = answer_data(eng, _ASIDE.sub("", question)) if said else None
    if found is not None and found.text is not None and found.plan is not None:
        commented = {stem_root(w) for f in found.plan.spec.filters for w in words_of(f.column.comment)}
        return found if said <= commented else None
    return _aside_in_place(eng, question, aside)


def _aside_in_place(eng: Engine, question: str, aside: re.Match[str]) -> DataAnswer | None:
    """The question with its aside said in place of the words between the last thing of the data it names and
    the aside ("how many reefers (set point under 0 °C)"), when that has a whole answer; else None."""
    _, values = knowledge(eng)
    before = question[:aside.start()]
    named = [m.end() for m in re.finditer(r"[A-Za-z][\w'-]*", before)
             if TABLE_NOUNS.get(stem_root(m.group(0).lower())) or values.links(m.group(0))]
    if not named or named[-1] == len(before.rstrip()):
        return None
    # the words replaced only describe (no name, number or value: "for Norrland" is no description), and the
    # aside names no other kind of row ("(vessel Manulani)" says whose, not what)
    replaced = before[named[-1]:]
    if re.search(r"\d|\b[A-Z]", replaced) or values.links(replaced) or \
            any(TABLE_NOUNS.get(stem_root(w.lower())) for w in re.findall(r"[A-Za-z][\w'-]*", aside.group(1))):
        return None
    found = answer_data(eng, f"{before[:named[-1]]} {aside.group(1)}{question[aside.end():]}")
    return found if found.text is not None and not found.uncovered else None


def _first_part_alone(eng: Engine, question: str, links: list[Link]) -> DataAnswer | None:
    """"The Aurelia's speed, and where is she bound?" has no one plan: its first part planned alone,
    the rest named as uncovered and asked on its own about the record named; None when the question
    has one part or its first part has no plan either."""
    asked = asked_clauses(question)
    if not asked or asked[0] == question.strip() or question.strip().startswith(asked[-1]):
        return None
    cut = question.rfind(asked[-1])
    first = answer_data(eng, _before(question, asked[-1]))
    if first.text is None or first.plan is None or first.uncovered:
        return None  # (a part the first half leaves uncovered would be lost)
    schema, values = knowledge(eng)
    if _who_is_shown(question[cut:], schema, {c.table for c in first.plan.columns if c is not None}):
        return first  # the first part's rows show the name the rest asks for ("..., and what's the ship called?")
    if first.plan.spec.comparative is not None and _BY_HOW_MUCH.search(question[cut:]):
        return first  # "..., and by how many?": a comparison of two rows says by how much
    if _the_port_shown(question[cut:], schema, values, first.plan):
        return first  # "when is she due in, and at which port?": the arrival is shown with its port
    return _with_second_part(eng, dataclasses.replace(first, uncovered=question[cut:].strip()), links, question)


def _the_port_shown(part: str, schema: Schema, values: ValueIndex, plan: planner.Plan) -> bool:
    """A part that asks only which port ("and at which port?") when the rows are shown with the port at the
    end of the voyage the question asks about."""
    cols, when, _ = _clause_columns(part, schema, values)
    nouns = {TABLE_NOUNS.get(w) for w in words_of(part)} - {None}
    port = schema.name_column("PORTS") if "PORTS" in schema.columns else None
    return port is not None and nouns == {"PORTS"} and not when and cols <= {port.ref} and \
        any(c is not None and c.table == "PORTS" and c.name in ("ORIGIN", "DESTINATION") for c in plan.columns)


def _step_by_step(eng: Engine, question: str, parts: list[str], schema: Schema, links: list[Link]) -> DataAnswer | None:
    """"What's the biggest ship PIL has, and when was it built?": the last part asks about the row the
    first part finds. The first part is planned alone; when it finds one row, the last part is asked
    about that row by name. None (the whole question is planned at once) when any step does not hold,
    or when the first part's own pronoun already points at the record named ("Box X - which voyage is
    it on, and what temperature is it set to?": both are the box)."""
    asked = [p for p in parts if _ASKS.match(p)]
    if not _last_asks_of_a_row(parts, asked, links):
        return None
    first = answer_data(eng, _before(question, asked[-1]))
    if first.text is None or first.plan is None or first.uncovered or first.rows_shown != 1:
        return None
    name = _the_row_name(first, schema)
    if name is None:
        return None
    target = first.plan.spec.target
    if (named := _one_record_named(links)) is not None and _of_the_record_named(schema, asked[-1], named[0], target):
        # "the departure port of voyage 466E, and which ship sails it?": the voyage's ship, not the port's
        target, name = named
    second = answer_data(eng, _about(asked[-1], target, name))
    return _joined(first, second, "then")


def _of_the_record_named(schema: Schema, part: str, named: str, found: str) -> bool:
    """The last part asks for rows of a table a foreign key joins straight to the table of the record the
    question names, and none joins it to the table of the row the first part found: its pronoun is that record."""
    asked = {t for m in re.finditer(r"\b(?:which|what)\s+([a-z]+)\b", part, re.I) if (t := table_of_noun(m.group(1)))}

    def joined(a: str, b: str) -> bool:
        return any({t, rt} == {a, b} for t, _, rt, _ in schema.foreign_keys)
    return named != found and len(asked) == 1 and joined(next(iter(asked)), named) and not joined(next(iter(asked)), found)


def _last_asks_of_a_row(parts: list[str], asked: list[str], links: list[Link]) -> bool:
    """Two or three parts, the last asked with a pronoun (the first may ask without a question word:
    "heaviest ship by deadweight, and who runs it?"), and no earlier pronoun standing for a record named."""
    if not 2 <= len(parts) <= 3 or not asked or asked[-1] != parts[-1] or not PRONOUN.search(asked[-1]):
        return False
    return not (any(PRONOUN.search(p) for p in parts[:-1]) and _one_record_named(links) is not None)


def _the_row_name(answer: DataAnswer, schema: Schema) -> str | None:
    """The name of the row an answer shows first; None when its plan shows no name."""
    plan = answer.plan
    if plan is None or answer.first_row is None:
        return None
    name = schema.name_column(plan.spec.target)
    return str(answer.first_row[plan.columns.index(name)]) if name in plan.columns else None


def _before(question: str, last: str) -> str:
    """The question up to its last part, without the word that joined them ("..., and")."""
    return re.sub(r"[\s,;-]*(?:and|so|also)?[\s,;-]*$", "", question[: question.rfind(last)], flags=re.I)


_THEIR = re.compile(r"\b(?:their|they|them|these|those)\b", re.I)


def _of_the_rows_counted(eng: Engine, answer: DataAnswer, part: str) -> DataAnswer:
    """"How many containers are on voyage 1012, and what's their combined VGM?": after rows counted or
    listed, "they" is those rows (never the one record named: "what do they weigh" is the boxes, not the
    ship); the part asked of them ("what's the combined VGM ... of the containers for voyage 1012?") is
    added when its plan covers it. (After a look-up "their" may be the record itself: "ZIM: their SCAC,
    and how many of their ships?")"""
    plan = answer.plan
    if plan is None or not part.endswith("?"):
        return answer
    asked = re.sub(r"^(?:and|so|also)\s+", "", part, flags=re.I)
    if re.search(r"\btheir\b", asked, re.I):  # "their combined VGM": the combined VGM ... of them
        the = re.sub(r"\btheir\b", "the", asked, count=1, flags=re.I)
        asked = f"{the[:-1].rstrip()} of the {plan.what}?"
    else:
        asked = re.sub(r"\b(?:they|them|these|those)\b", f"the {plan.what}", asked, count=1, flags=re.I)
    return _joined(answer, answer_data(eng, asked), "and") or answer


def _about(part: str, table: str, value: str) -> str:
    """A part asked on its own about one record: its pronoun replaced by the record ("who runs it" ->
    "who runs vessel Ever Lunar")."""
    noun = next((n for n, t in TABLE_NOUNS.items() if t == table), table.lower())
    # a name says what it is ("who operates Ever Acme"); a code needs its noun ("voyage 935W")
    said = value if any(t == table for t, _ in NAME_COLUMNS) else f"{noun} {value}"
    return PRONOUN.sub(said, re.sub(r"^(?:and|so|also)\s+", "", part, flags=re.I), count=1)


def _joined(first: DataAnswer, second: DataAnswer, word: str) -> DataAnswer | None:
    """The two answers as one when the second shows all its part asks; None otherwise."""
    if second.text is None or second.uncovered is not None:
        return None
    if second.text == first.text:  # the part asked again the same thing ("And Hamburg - how many start there?")
        return dataclasses.replace(first, uncovered=None)
    return dataclasses.replace(first, text=f"{first.text}\n{second.text}", uncovered=None, second_plan=second.plan,
                               rows_shown=first.rows_shown + second.rows_shown,
                               reason=f"{first.reason}; {word} {second.reason}")


_SECOND_COUNT = re.compile(r"^(?:and\s+)?(?:how many|(?:which|what)(?:\s+ones?)?)\s+(?:(of\s+(?:those|them|these)|more)\s+)?",
                           re.I)


def _two_counts(eng: Engine, question: str) -> DataAnswer | None:
    """"How many boxes are on voyage 1044 and how many of those are reefers?", "how many voyages are still
    scheduled and how many already finished?": each count on its own, the second about the first's rows
    (all its words, for "of those"; its noun, otherwise); None unless both are counts that answer."""
    parts = asked_clauses(question)
    # ("how many ports are in North Europe, and which of those is in the UK?": the second counts and names them)
    if len(parts) != 2 or not re.match(r"(?:and\s+)?how many\b", parts[0], re.I) or \
            not re.match(r"(?:and\s+)?(?:how many|(?:which|what)(?:\s+ones?)?\s+of\s+(?:those|them|these))\b", parts[1], re.I):
        return None
    first = answer_data(eng, parts[0])
    if first.text is None or first.plan is None or first.plan.spec.action != "count" or first.uncovered:
        return None
    m = _SECOND_COUNT.match(parts[1])
    rest = parts[1][m.end():] if m else parts[1]
    of_those = bool(m and m.group(1) and m.group(1).lower().startswith("of"))
    rest = _there_as_the_port(eng, parts[0], rest)
    second_q = (f"{parts[0].rstrip('?, ')} that {rest}" if of_those
                else f"how many {planner.noun(first.plan.spec.target)} {rest}")
    second = answer_data(eng, second_q)
    if second.plan is None or second.plan.spec.action != "count":
        return None
    return _joined(first, second, "and")


def _there_as_the_port(eng: Engine, first: str, rest: str) -> str:
    """"how many start in Shanghai, and how many end there?": "there" is the one port the first part names."""
    places = {str(lk.value) for lk in knowledge(eng)[1].links(first) if lk.table == "PORTS"}
    return re.sub(r"\bthere\b", f"in {places.pop()}", rest, flags=re.I) if len(places) == 1 else rest


# a word that points back at a record named before ("who owns it?", "which alliance are they in?")
PRONOUN = re.compile(r"\b(?:it|its|she|her|he|him|they|them|their)\b", re.I)


def _with_second_part(eng: Engine, answer: DataAnswer, links: list[Link], question: str) -> DataAnswer:
    """"which ship is on 466E, and who runs it?": the uncovered part is about the one record the
    question names; asked on its own with the pronoun replaced by that record, and added to the
    answer when that plan covers it. The answer is unchanged otherwise."""
    part = answer.uncovered or ""
    if _THEIR.search(part) and answer.plan is not None and answer.plan.spec.action in ("count", "list"):
        return _of_the_rows_counted(eng, answer, part)
    record = _one_record_named(links)
    if record is None:
        return answer
    table, value = record
    if not PRONOUN.search(part):
        if any(lk.text.lower() in part.lower() for lk in links):
            # "whats in box X, and how many cartons?": the part names the record itself and is asked alone
            return _joined(answer, answer_data(eng, part), "and") or answer
        # "For voyage 787E: which ship and what's the ETA?": a part that names nothing asks about the record
        if not part.endswith("?"):
            return answer
        part = f"{part[:-1].rstrip()} of it?"
    # a pronoun before the part already stood for the record named ("Box X - which voyage is it on, and
    # what temperature is it set to?"): so does the part's, not the row the first part found
    before = question[: question.find(part)] if part in question else ""
    found = None if PRONOUN.search(before) else _of_the_row_found(eng, answer, part, table)
    return found or _joined(answer, answer_data(eng, _about(part, table, value)), "and") or answer


def _one_record_named(links: list[Link]) -> tuple[str, str] | None:
    """(table, value) of the one record the question names by a name or a code; None for none or several."""
    records = {(lk.table, lk.column, str(lk.value)) for lk in links if lk.how in ("exact", "fuzzy", "partial")
               and (lk.table, lk.column) in NAME_COLUMNS | CODE_COLUMNS}
    if len(records) != 1:
        return None
    ((table, _, value),) = records
    return table, value


def _of_the_row_found(eng: Engine, answer: DataAnswer, part: str, named_table: str) -> DataAnswer | None:
    """"Valparaiso Express: when does she sail next, and from which port?": the part asked of the one row
    the answer found (its next voyage), when that row is of another table than the record named; None
    when it is not, or that reading does not cover the part."""
    if answer.plan is None or answer.rows_shown != 1 or answer.plan.spec.target == named_table:
        return None
    row = _the_row_name(answer, knowledge(eng)[0])
    return None if row is None else _joined(answer, answer_data(eng, _about(part, answer.plan.spec.target, row)), "and")


# "..., and who owns it?", "... - where is she headed": a second question joined to the first
# (a clause keeps the preposition before its question word, "..., and from which port?"; "from where to
# where" is one)
_ASKED_WORD = r"(?:what|what's|which|who|whose|where|where's|when|when's|how)\b"
# how a sentence asks by requesting ("I need its route.", "Give me the flag too."): a part of its own
_REQUESTING = r"(?:I|we)\s+(?:need|want|'d like|would like)\b|(?:please\s+)?(?:give|tell|show|send)\s+me\b"
_CLAUSE_RE = re.compile(r"(?<!\bfrom)(?<!\bto)(?<!\bat)(?<!\bin)(?<!\binto)(?<!\bfor)(?<!\bon)(?:,\s*|\s+-\s+|\s+)"
                        rf"(?:and\s+)?(?={_ASKED_WORD})|(?:,\s*(?:and\s+)?|\s+-\s+|\s+and\s+)"
                        rf"(?=(?:from|to|at|in|into|for|on)\s+{_ASKED_WORD})"
                        r"|\s+and\s+(?=(?:is|are|does|do|did|was|were)\b)"
                        rf"|(?<=[.?!])\s+(?={_REQUESTING})", re.I)
_REQUEST = re.compile(_REQUESTING, re.I)
# the words of a request that ask for nothing in particular ("tell me quickly please")
_NOTHING_ASKED = frozenset({"me", "us", "need", "want", "like", "would", "give", "tell", "show", "send", "please", "quick",
                            "quickly", "asap", "thanks", "know", "just", "also", "too", "well", "soon", "now",
                            # (the answer itself: "give me both numbers")
                            "both", "two", "number", "numbers", "figure", "figures", "value", "values", "answer",
                            "details", "result", "results"})


def asked_clauses(question: str) -> list[str]:
    """The clauses that are questions of their own ("remind me" is not: the question follows it)."""
    return [p for p in clauses(question) if _ASKS.match(p)]


def clauses(question: str) -> list[str]:
    """The questions a question asks, split where a second one is joined to the first."""
    return [c.strip() for c in _CLAUSE_RE.split(question) if c and c.strip()]


def _clause_columns(clause: str, schema: Schema, values: ValueIndex) -> tuple[set[str], bool, bool]:
    """(the columns a clause names by their words, whether it asks when, whether it asks where)."""
    words = planner._Words.read(clause, values.links(clause))
    named = schema.columns_named([w for _, w in words.free()], sorted(schema.columns))
    low = clause.lower()
    return ({c.ref for score, c in named if score >= 1.5}, low.startswith("when"), low.startswith("where"))


def _names_nothing(clause: str, schema: Schema, values: ValueIndex) -> bool:
    cols, when, where = _clause_columns(clause, schema, values)
    return re.match(r"(?:which|what)\b", clause, re.I) is not None and not (cols or when or where) \
        and not values.links(clause)


def _name_words(ref: str) -> set[str]:
    return set(ref.split(".")[-1].lower().split("_")) - {"id", "code", "number", "name", "kg", "m", "usd"}


# a part that is a question of its own (not context such as "voyage 534E," or "quick one:")
_ASKS = re.compile(r"(?:and\s+)?(?:(?:from|to|at|in|into|for|on)\s+)?(?:what|what's|whats|which|who|who's|whos|whose|where|"
                   r"where's|wheres|when|when's|whens|how)\b", re.I)


# words that point back at rows already asked for ("and which ones?", "- what is it?"), and those asking with them
_BACK = frozenset({"ones", "they", "them", "those", "these", "all", "it", "that", "what's", "that's"})
_ASKING_BACK = _BACK | {"what", "which", "is", "was", "are", "of", "one"}


def _only_asks_which(part: str) -> bool:
    """"and which ones?", "how many?", "- what is it?", "which one is it?": a few words that ask for the rows themselves."""
    said = [w for w in re.findall(r"[a-z']+", part.lower()) if w not in ("and", "so", "then", "also")]
    return said == ["how", "many"] or (len(said) <= 4 and bool(_BACK & set(said)) and set(said) <= _ASKING_BACK)


# a part that asks only which row, of the rows the part before names ("..., and which one?")
_WHICH_ONE = re.compile(r"\W*(?:and|also)?\s*(?:which|what)(?:\s+ones?)?\s*(?:is it|was it)?\s*\??\s*$", re.I)


def _tables_said(text: str) -> set[str]:
    return {TABLE_NOUNS[w] for w in words_of(text) if w in TABLE_NOUNS}


def _who_is_shown(part: str, schema: Schema, tables: set[str]) -> bool:
    """"And who owns it?" when a party's name is shown; "what's the ship called?" when that table's name is."""
    if re.match(r"(?:and\s+)?(?:who|whose)\b", part, re.I) is not None and bool(planner.party_tables(schema) & tables):
        return True
    if not re.search(r"\b(?:called|named|name)\b", part, re.I):
        return False
    return any(schema.name_column(t).table in tables for t in _tables_said(part))


# "and what about Hamburg - how many ...": the topic, said before the question about it
_TOPIC_ONLY = re.compile(r"\W*(?:and\s+)?(?:what|how)\s+about\b", re.I)
_FIGURE_ASKED = re.compile(r"\bhow (?:many|much|heavy|long|big)\b|\b(?:number|total|average|sum|count|mean)\b", re.I)
_BY_HOW_MUCH = re.compile(r"\bhow (?:much|many)\b|\bdifference\b", re.I)


def uncovered(parts: list[str], plan: planner.Plan, schema: Schema, values: ValueIndex) -> str | None:
    """The first part of a two-part question the plan shows nothing for ("and who owns it?" when
    only the vessel is shown), or None when every part is covered."""
    showing = _showing(plan)
    if parts and (item := _item_listed_not_shown(parts[-1], schema, values, showing)) is not None:
        return item
    if len(parts) < 2:
        return None
    spec = plan.spec
    asked = [p for p in parts if _ASKS.match(p)]
    strict = _showing(plan, strict=True)  # (what a part that asks a value sees)
    for part in parts:
        shown = _shown_by_its_kind(part, spec, showing)
        if shown is None:
            seen = strict if part in asked else showing
            shown = not (_a_figure_does_not_answer(part, asked, spec) or _part_unanswered(part, asked, schema, values, seen))
        if not shown:
            return part  # "what's in box X, and how many cartons?": one figure answers the second part only
    return None


def _shown_by_its_kind(part: str, spec: planner.Spec, showing: tuple[list[Any], set[str], set[str]]) -> bool | None:
    """Whether the answer shows a part by what kind of part it is; None when its kind does not decide."""
    if _REQUEST.match(part) and not _requests_something(part):
        return True  # "give me both numbers": the answer itself
    if spec.comparative is not None and _BY_HOW_MUCH.search(part):
        return True  # "and by how much?": a comparison of two rows says by how much
    if _BOTH_ENDS.match(part):
        return {"ORIGIN", "DESTINATION"} <= set(spec.roles)  # "from where to where?": the ports at both ends
    if re.search(planner.ASKS_CONTENTS, part, re.I):
        # "and what's in them?": the rows inside shown; "what's inside and what temperature ...": the goods not shown
        return bool(spec.inside_of) or (spec.target == "CARGO_ITEMS" and spec.action in ("list", "lookup"))
    return _shown_beside_the_rows(part, showing[0])


def _shown_beside_the_rows(part: str, columns: list[Any]) -> bool | None:
    """A part that asks only what the rows show beside them: "and how much is it?" (a figure), "and how many
    days?" (a figure in that unit), "and which one?" (the rows' names); None when it asks more."""
    if _HOW_MUCH_IS_IT.match(part) and any(c.numeric for c in columns):
        return True  # "which box has the lowest VGM, and how much is it?": the figure is shown beside it
    if (m := _HOW_MANY_UNITS.match(part)) is not None and any(c.numeric and c.unit == m.group(1).lower() for c in columns):
        return True  # "which voyage has the longest transit, and how many days?": its figure is in days
    if _WHICH_ONE.match(part) and any(c.name.endswith(("_NAME", "_NUMBER")) for c in columns):
        return True  # "when's the next vessel due in, and which one?": the rows are shown by name
    return None


# a part that asks only both ends of a voyage ("from where to where?", "and its route?")
_BOTH_ENDS = re.compile(r"^\W*(?:and\s+)?(?:from\s+where\s+to\s+where|where\s+from\s+and\s+(?:where\s+)?to|"
                        r"(?:(?:its|their|the)\s+)?routes?|between\s+which\s+ports)\W*$", re.I)


# a part that asks a figure by its unit alone ("and how many days?", "how many TEU?")
_HOW_MANY_UNITS = re.compile(r"^\W*(?:and\s+)?how many ([A-Za-z]+)\W*$", re.I)


# a part that asks the figure of the row just asked for ("..., and how much is it?", "and what is it?")
# (or "and how much in USD?": the figure in a unit)
_HOW_MUCH_IS_IT = re.compile(r"^\W*(?:and\s+)?(?:how (?:much|many|heavy|big|long)(?:(?:'s|\s+is|\s+was)\s+(?:it|that|this))?"
                             r"(?:\s+in\s+(?:[A-Za-z]+|[$€£]))?|(?:how many(?:\s+[a-z]+)?|what)(?:'s|\s+is|\s+was)\s+"
                             r"(?:it|that|this))"
                             r"\W*$", re.I)


def _item_listed_not_shown(part: str, schema: Schema, values: ValueIndex,
                           showing: tuple[list[Any], set[str], set[str]]) -> str | None:
    """"Which voyages carry dangerous goods? voyage no., ship and UN numbers": the things listed after the
    question (or after a colon) are each to be shown; the first one the answer does not show, else None."""
    missing = []
    for item in _listed_items(part):
        if set(words_of(item)) <= {"name", "names"}:
            continue  # the rows listed are named
        if set(words_of(item)) <= {"number", "numbers", "no", "nr", "id"} and \
                any(c is not None and c.name.endswith("_NUMBER") for c in showing[0]):
            continue  # ("heaviest container? number and weight": the rows are shown by their number)
        shown = _item_shown(item, schema, values, showing)
        if shown is None:
            return None  # "All voyages, done, sailing and planned.": values the rows are of, not things to show
        if not shown:
            missing.append(item)
    return missing[0] if missing else None


def _listed_items(part: str) -> list[str]:
    """The two or more short items listed after a question or a colon ("name, flag and owner"), or []."""
    m = _LISTED.search(part)
    items = [i.strip() for i in re.split(r",|;|&|\band\b|\bplus\b", m.group(1)) if i.strip()] if m else []
    return [] if len(items) < 2 or any(len(i.split()) > 3 or _ASKS.match(i) for i in items) else items


def _item_shown(item: str, schema: Schema, values: ValueIndex, showing: tuple[list[Any], set[str], set[str]]) -> bool | None:
    """Whether the answer shows the column or the table an item names ("ship": a table whose rows are
    shown); None for an item that names a value or neither."""
    shown, refs, tables = showing
    cols, _, _ = _clause_columns(item, schema, values)
    nouns = {TABLE_NOUNS.get(w) for w in words_of(item)} - {None}
    if values.links(item) or not (cols or nouns):
        return None
    return _shows(cols, False, False, shown, refs) if cols else not nouns - tables


# what is listed after a question or a colon, to the end ("...? name, flag and owner")
_LISTED = re.compile(r"[?:]\s+([^?:]+?)[\s.!]*$")


def _showing(plan: planner.Plan, *, strict: bool = False) -> tuple[list[Any], set[str], set[str]]:
    """The columns a plan shows (with its measure and group), their refs and its filters', and their tables."""
    spec = plan.spec
    shown = [c for c in plan.columns if c is not None] + [c for c in (spec.measure, spec.group) if c is not None]
    # a filter shows its column's value only when it names one ("with a UN number" says none); one that
    # excludes a value ("other than Denmark") shows none either to a part that asks the value ("what flag?")
    shows_no_value = ("is null", "is not null", "not", "not in") if strict else ("is null", "is not null")
    named = {f.column.ref for f in spec.filters if f.op not in shows_no_value}
    return shown, {c.ref for c in shown} | named, {c.table for c in shown}


def _a_figure_does_not_answer(part: str, asked: list[str], spec: planner.Spec) -> bool:
    """The first of several asked parts asks no figure, and the plan is a count or a sum."""
    return bool(asked) and part == asked[0] and len(asked) > 1 and spec.action in ("count", "aggregate") \
        and not _FIGURE_ASKED.search(part) and not _TOPIC_ONLY.match(part)


def _asks_or_requests(sentence: str) -> bool:
    """A sentence that asks: a question, or a request that names something."""
    return sentence.rstrip().endswith("?") or _ASKS.match(sentence) is not None or _requests_something(sentence)


def _requests_something(sentence: str) -> bool:
    """"I need its route.", "Give me the flag too.": a request that names something ("tell me quickly" does not)."""
    return _REQUEST.match(sentence.strip()) is not None and \
        any(w not in STOP_WORDS and w not in _NOTHING_ASKED for w in words_of(sentence))


def _part_unanswered(part: str, asked: list[str], schema: Schema, values: ValueIndex,
                     showing: tuple[list[Any], set[str], set[str]]) -> bool:
    """Whether a part of the question asks something nothing shown answers (`showing`: the columns
    shown, their refs and filters', and their tables)."""
    shown, refs, tables = showing
    cols, when, where = _clause_columns(part, schema, values)
    if not (cols or when or where):
        # "and who runs it?", "what's in it?": asked, and nothing shown answers it; not context, the
        # main question, "and which ones?", or a party it shows
        # (a "who" part asks a party wherever it stands: "..., who runs it and what flag does it fly?")
        who = re.match(r"(?:and\s+)?who\b", part, re.I) is not None
        if asked[:1] == [part] and len(asked) > 1 and _no_plan_of_its_own(part, schema, values):
            return True  # ("what carries container X, and at what temperature?": only the second part is planned)
        return (part in asked[1:] or who or _requests_something(part)) and not _only_asks_which(part) and not _who_is_shown(part, schema, tables) \
            and not {TABLE_NOUNS.get(w) for w in words_of(part)} & tables  # "and what ship are they on?": shown
    return not _shows(cols, when, where, shown, refs)


_NAMES_ITS_SUBJECT = re.compile(r"^\W*(?:(?:ok|so|and|but)\W+)*(?:(?:what|who|which|how)(?:['’]s|\s+(?:is|are|was|were|about))|"
                                r"as\s+for)\b", re.I)


def _no_plan_of_its_own(part: str, schema: Schema, values: ValueIndex) -> bool:
    """The first of several parts, asked with a verb of its own ("what carries X"), names a row but asks nothing the
    data holds about it; not a part that only names its subject ("what about the Ever Acme", "what's our carrier")."""
    if _NAMES_ITS_SUBJECT.match(part):
        return False
    try:
        planner.compose(part, schema, values.links(part))
    except planner.NoPlan as exc:
        return str(exc) == planner.NOTHING_ASKED
    return False


def _shows(cols: set[str], when: bool, where: bool, shown: list[Any], refs: set[str]) -> bool:
    """The answer shows what a part names: a column it shows or filters on, one named like a shown one
    ("how heavy": a gross weight; "which country": a country code), a date for when, a port for where."""
    worked_from = {p for c in shown for p in c.parts}  # "from departure to arrival": the days between them shown
    return bool(cols & (refs | worked_from)
                or {w for c in cols for w in _name_words(c)} & {w for c in refs for w in _name_words(c)}
                or (when and any(c.is_date for c in shown)) or (where and "PORTS" in {c.table for c in shown}))

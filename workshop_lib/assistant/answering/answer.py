"""How the chat service answers one question, and the record of how it did.

The router (`router.py`) scores every handler and picks one, or none when it is unsure:

    SCHEMA_KNOWLEDGE        Part 4's answer modes over the schema facts (a table or column the
                            question names is answered from its own fact)
    LIVE_DATA               one read-only SELECT planned from the data dictionary (agent/sqlplan.py)
    EQUIPMENT_RAG, EQUIPMENT_AVAILABILITY, PORT_LOCATION
                            Part 5's grounded handlers (answers rendered from rows)
    DOCUMENTS               Part 8's promoted document index
    SMALL_TALK, OUT_OF_SCOPE
                            an honest fallback that says what the assistant does, or why not

With `agent` set, Part 6's agent answers with its tools instead. Either way the result
carries the mode (rag / hybrid / fallback) and a `decision_explain` that says why, with
every handler's score. A handler that cannot answer the question asked declines: the mode
is then fallback, never a grounded badge on a non-answer.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from workshop_lib import assistant
from workshop_lib.assistant import (
    catalog_figures,
    catalog_links,
    check_digits,
    column_figures,
    coverage,
    derived,
    document_reader,
    names_written,
    other_languages,
    planner,
    question_part,
    value_meanings,
)
from workshop_lib.assistant.answering import availability, goods_boxes, router
from workshop_lib.assistant.schema_links import STOP_WORDS, TABLE_NOUNS, map_words, stem, stem_root, table_of_noun, words_of
from workshop_lib.assistant.value_links import NAME_COLUMNS
from workshop_lib.core.arguments import check_query
from workshop_lib.data import countries
from workshop_lib.data.catalog import ports
from workshop_lib.data.supplychain_data import OWNER, TABLES_BY_NAME
from workshop_lib.engines.readonly import SqlRefused
from workshop_lib.parts import gates, grounded, retrieval
from workshop_lib.parts.agent import memory, offline, toolbox
from workshop_lib.parts.agent.sqlplan import core, tables_in, tables_read
from workshop_lib.parts.ingest import ask, corpus, index, manifest, sanitize
from workshop_lib.parts.memory import card_answer as with_memory

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

# Intents whose answer is rendered from database rows by Part 5's handlers.
GROUNDED_INTENTS = ("EQUIPMENT_RAG", "EQUIPMENT_AVAILABILITY", "PORT_LOCATION")


@dataclass
class ChatAnswer:
    answer: str
    mode: str                                   # rag | hybrid | fallback
    decision_explain: dict[str, Any]
    retrieved_chunks_metadata: list[dict[str, Any]]
    used_chunks: list[dict[str, Any]]
    sources_used: str                           # all | partial | none
    embedding_cache_hit: bool | None
    from_cache: bool
    used_llm: str = "none"
    short_query_active: bool = False
    route: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        """The public fields, as they are (a shallow copy: the service writes them out as JSON at once)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _PRIVATE}


_PRIVATE = ("used_llm", "short_query_active", "route")
_LEAD_IN = re.compile(r"^\W*(?:(?:and|also|plus|ok(?:ay)?|right)\b[,:]?\s+)+(?:(?:a|an)\s+(?=\S+\s+\S))?", re.I)
KNOWLEDGE_LABELS = (router.SCHEMA, router.DOCS)


def answer_question(eng: Engine, question: str, *, llm=None) -> ChatAnswer:
    """The chat's answer to one question; a question in French, Spanish or German that nothing
    grounds as it is written is read once more in English (other_languages.py)."""
    answered = _answer_as_written(eng, question, llm=llm)
    if answered.mode == "fallback" and llm is None:
        answered = _question_alone(eng, question) or answered
    if llm is not None or not router.FOREIGN_RE.search(question):
        return answered
    return _read_in_english(eng, question, answered)


def _read_in_english(eng: Engine, question: str, answered: ChatAnswer) -> ChatAnswer:
    """A French, Spanish or German question nothing grounds, or that only a passage in its own language
    answers, read in English; that reading's answer when it grounds it (over a passage, only the data's
    or the schema's), else the first answer."""
    documents = (answered.route or {}).get("label") == router.DOCS
    equipment = _from_the_catalog(answered)
    english = _english_reading(question)
    if (answered.mode != "fallback" and not documents and not equipment) or english is None:
        return answered
    again = _answered_in_english(eng, english)
    if again.mode not in ("rag", "hybrid") or (again.route or {}).get("label") == router.DOCS:
        return answered  # (the documents were read in the question's own language already)
    by_schema_or_data = (again.route or {}).get("label") in (router.LIVE, router.SCHEMA) or \
        str(again.decision_explain.get("handler", "")).startswith("knowledge")  # (the schema's facts, whatever led)
    if answered.mode != "fallback" and not by_schema_or_data and not equipment:
        return answered
    return replace(again, answer=f"Reading it as \u201c{english}\u201d: {again.answer}",
                   decision_explain={**again.decision_explain, "read_in_english": english})


def _answered_in_english(eng: Engine, english: str) -> ChatAnswer:
    """The English reading answered as written, else its question asked without the statement before it
    ("Notre client ... a un conteneur ..., le ONEU8933061. Quel est son poids brut ?")."""
    again = _answer_as_written(eng, english, llm=None)
    return (_question_alone(eng, english) or again) if again.mode == "fallback" else again


def _english_reading(question: str) -> str | None:
    """The question read in English; else the sentence that asks, when the whole is not read ("Moin. Unser Zollbüro
    ... Wie viele TEU fasst die Kyoto Express?")."""
    if (whole := other_languages.in_english(question)) is not None:
        return whole
    asked = question_part.asked_part(question)
    return other_languages.in_english(asked) if asked else None


def _from_the_catalog(answered: ChatAnswer) -> bool:
    """An answer of the catalog's: its words are English, so a word of the question the answer could not
    read ("frigorifiques") may change which item is meant."""
    return (answered.route or {}).get("label") in (router.CATALOG, router.AVAILABILITY) or \
        str(answered.decision_explain.get("handler", "")).startswith("catalog")


def _question_alone(eng: Engine, turn: str, *, again_within: bool = True) -> ChatAnswer | None:
    """A grounded answer to the turn's question asked without the statement before it (question_part.py),
    or None. The question may itself open with a clause of its own ("... EUR 455. Unrelated: which
    carriers ...?"): asked alone once more."""
    schema, values = assistant.knowledge(eng)
    alone = question_part.asked_alone(turn, values.links, lambda asked: bool(grounded.named_items(asked)),
                                      lambda a, b: a != b and schema.is_parent_path(a, b),
                                      lambda table, asked: bool(schema.columns_named(words_of(asked), [table])))
    if alone is None or alone.strip() == turn.strip():
        return None
    again = _answer_as_written(eng, alone, llm=None)
    if again.mode not in ("rag", "hybrid") and again_within:
        return _question_alone(eng, alone, again_within=False)
    if again.mode not in ("rag", "hybrid"):
        return None
    return replace(again, decision_explain={**again.decision_explain, "asked_alone": alone})


def _answer_as_written(eng: Engine, question: str, *, llm=None) -> ChatAnswer:
    # "Please tell me: ... Thanks!" is routed and retrieved on what it asks, "and a clip-on genset, per
    # day?" on the genset (the "and" only says it follows another question)
    asked = core(check_query(question)) or question
    asked = _LEAD_IN.sub("", asked, count=1) or asked
    # "hi there!" without its greeting is "There!": a greeting with nothing after it is routed whole
    question = question if router.GREETING_RE.search(question) and len(asked.split()) <= 2 else asked
    vector = eng.model.embed([question])[0]
    docs = _documents(eng, question, vector)
    decision = router.route(eng, question, vector=vector, llm=llm, documents_mode=docs.mode if docs else None)
    handled = _not_a_description_for_ranked_rows(question, _handled(eng, question, decision, llm, vector, docs))
    handled = _rows_over_a_description(eng, question, decision, handled)
    if handled.mode == "fallback" and docs is not None and llm is None and \
            decision.label not in (router.OUT, router.SMALL_TALK) and \
            (read := _read_nearest(eng, question, decision, docs, vector)) is not None:
        return read
    return handled


# a question for rows ranked by a figure ("which 3 manifest lines have the highest total value?")
_RANKED_ROWS = re.compile(r"^\W*(?:which|what|list|show)\b[^?]{0,60}?\b(?:highest|lowest|most|least|largest|smallest|"
                          r"biggest|heaviest|lightest|top\s+\d+|\d+\s+(?:highest|lowest|largest|biggest))\b", re.I)


# a question for rows of a table: "which cargo items have ...", "how many ships ...", "list the boxes ..."
_ROWS_ASKED = re.compile(r"^\W*(?:which|what|list|show(?:\s+me)?|how many)\s+(?:the\s+)?((?:[a-z-]+\s+){0,2}[a-z-]+s)\b", re.I)


def _asks_rows(question: str) -> bool:
    """The question asks for rows: its first words name a table's rows in the plural ("which cargo lines")."""
    m = _ROWS_ASKED.match(question)
    return m is not None and any(TABLE_NOUNS.get(w) for w in map_words(m.group(1).split()))


def _rows_over_a_description(eng: Engine, question: str, decision: router.RouteDecision, answered: ChatAnswer) -> ChatAnswer:
    """A column's description is no answer to a question for rows ("which cargo items have dangerous goods?"):
    the rows when a query answers it, else said so, never grounded."""
    if not _a_description_for_rows(question, answered) or not _asks_rows(question) or _RELATION_RE.search(question):
        return answered
    rows = _linked_data_answer(eng, question, decision, require_links=False)
    if rows is not None and rows.mode in ("rag", "hybrid"):
        return rows
    return _no_description_for(answered, "rows of the data")


def _not_a_description_for_ranked_rows(question: str, answered: ChatAnswer) -> ChatAnswer:
    """A column's description is no answer to a question for rows ranked by it: said so, never grounded."""
    if not _a_description_for_rows(question, answered) or not _RANKED_ROWS.search(question):
        return answered
    return _no_description_for(answered, "rows ranked by a figure")


def _a_description_for_rows(question: str, answered: ChatAnswer) -> bool:
    """The schema facts answered under a grounded badge a question that may ask rows (one of where a thing is
    kept, what it means, or a name of the schema stays theirs)."""
    return answered.mode in ("rag", "hybrid") and str(answered.decision_explain.get("handler", "")).startswith(
        "knowledge") and not _about_the_schema_itself(question)


def _no_description_for(answered: ChatAnswer, asked: str) -> ChatAnswer:
    """The honest fallback in place of a column's description for a question that asks rows."""
    return replace(answered, mode="fallback", used_chunks=[],
                   answer=f"That asks for {asked}, and no query I can build offline answers it; the schema's "
                          "description of a column is no answer to it. Configure a model (README, 'Using a model') "
                          "for such questions, or ask for one figure at a time.",
                   decision_explain={**answered.decision_explain, "mode": "fallback",
                                     "reason": f"a column's description for a question that asks {asked}"})


def _handled(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    label = decision.label
    if label != router.OUT and (read := _read_from_a_comment(eng, question, decision)) is not None:
        return read
    if label != router.OUT and (product := _figures_multiplied(eng, question, decision)) is not None:
        return product
    if decision.unsure:
        return _unsure(eng, question, decision, llm, vector, docs)
    if label == router.OUT:
        return _declined(decision, refusal_text(decision))
    if label == router.SMALL_TALK:
        return _declined(decision, small_talk_reply(question))
    if (worked := _figure_in_another_unit(eng, question, decision)) is not None:
        return worked
    if label == router.LIVE:
        return _live_label(eng, question, decision, llm, vector, docs)
    if label in GROUNDED_INTENTS and _TIME_ASKED.search(question):
        # "how many hours ahead must a slot be booked?": no item's row states a time; the documents may
        return _documents_only(eng, question, decision, llm, docs, vector)
    if label in GROUNDED_INTENTS:
        return _grouped_rows(eng, question, decision) or _grounded(eng, question, decision, llm)
    if label == router.DOCS:
        return _documents_label(eng, question, decision, llm, vector, docs)
    return _schema_label(eng, question, decision, llm, vector, docs)


# a length of time asked in its unit, in the corpus' four languages (not "how long is a flat rack", a length)
_TIME_ASKED = re.compile(r"\bhow many (?:hours|days|weeks|minutes)\b|\bcombien (?:d['’]|de )(?:heures|jours|semaines)\b|"
                         r"\bcu[aá]nt[oa]s (?:horas|d[ií]as|semanas)\b|\bwie viele (?:stunden|tage|wochen)\b", re.I)


def _schema_label(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    """The schema's handler, after a figure of rows or a column's value of rows named ("the unit value of
    the smartphones"); a record named answers when the schema facts do not; else the catalog."""
    if (figure := _figure_of_rows(eng, question, decision) or _a_columns_value_of_rows_named(eng, question, decision)):
        return figure
    known = _knowledge(eng, question, decision, llm, vector=vector, compete=False, docs=docs)
    if known.mode == "fallback" and assistant.named_records(eng, question) and \
            (rows := _linked_data_answer(eng, question, decision)) is not None:
        return rows  # "how many tons can the Kota Singa carry?": a ship named, its row answers
    return _or_catalog(eng, question, decision, known)


def _read_from_a_comment(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """What a column's comment answers whatever scored best: a code's meaning ("package type PX = ?"), or
    whether an identifier is valid by the check digit the comment says it has ("is IMO 9646705 valid?")."""
    return _code_meaning(eng, question, decision) or _check_digit(eng, question, decision)


# a count of rows ("how many voyages ... as of the data's reference date") asks the rows, not the schema
_COUNTS_ROWS = re.compile(r"^(?:how many|number of)\b(?![^?]*\b(?:columns?|fields?|tables?|digits?|characters?)\b)",
                          re.I)


def _asks_the_schema(eng: Engine, question: str) -> bool:
    """Where a thing is kept, how tables are linked or what tells a table's rows apart, naming no record and
    counting no rows."""
    return bool(_WHERE_KEPT.search(question) or _RELATION_RE.search(question) or assistant.ASKS_THE_KEY.search(question)) \
        and not assistant.named_records(eng, question) and not _COUNTS_ROWS.search(question)


def _live_label(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    """The router's LIVE_DATA: the rows, unless the question asks where a thing is kept (the schema's);
    when no query answers it, a document that passes the gates, or the schema facts when nothing in it
    asks for rows."""
    if _asks_the_schema(eng, question):
        # "where do I find a carrier's SCAC?", "how do I get from a cargo line to its ship?", "what uniquely
        # identifies a vessel?": where a thing is kept, how tables are linked and what tells their rows apart are
        # the schema's, not the rows' (unless it asks for rows:
        # "how many voyages ... as of the data's reference date")
        return _knowledge(eng, question, decision, llm, vector=vector, compete=False, docs=docs)
    live = _live(eng, question, decision)
    if live.mode == "fallback" and (other := _not_the_rows(eng, question, decision, llm, vector, docs, live)) is not None:
        return other
    if live.mode == "fallback" and docs is not None and docs.mode == "rag" and router.DOC_STRONG_RE.search(question):
        # no query answers it, and a document passes the gates for it: the next handler
        return _documents_only(eng, question, decision, llm, docs, vector)
    if live.mode == "fallback" and not decision.cues[router.LIVE] and decision.cues[router.SCHEMA] and \
            decision.scores[router.SCHEMA] >= router.thresholds(eng)[0]:
        # nothing in the question asks for rows (no figure, name or id) and it asks about the
        # schema (a table or column, what one means or holds): the schema facts get it, and
        # Part 4's gates decide whether they answer it; column descriptions never answer a
        # question about the rows
        return _knowledge(eng, question, decision, llm, vector=vector, compete=False, docs=docs)
    return _or_catalog(eng, question, decision, live)


def _documents_label(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    """The router's DOCUMENTS: rows that answer every part of the question, the one catalog item a
    request describes, or a schema column named clearly outrank a passage that only resembles the
    question ("how many cargo lines are dangerous goods"); else the documents."""
    if (rows := _linked_data_answer(eng, question, decision, require_links=False)) is not None:
        return rows
    if (located := _located(eng, question, decision, llm)) is not None:
        return located
    if _asks_the_way_between(question):
        # "position reports: how do I get the ship's name for each one?": the way from one table to the other
        return _knowledge(eng, question, decision, llm, vector=vector, compete=False, docs=docs)
    if _a_passage_writes_its_name(eng, question, docs):
        # "How much is Westcoast Interiors claiming ...": a party only a document names; the catalog's
        # words ("cartons") do not make it a request for equipment
        return _documents_only(eng, question, decision, llm, docs, vector)
    return _requested_item(eng, question, decision, llm) or _catalog_or_column(eng, question, decision, llm, vector, docs) \
        or _documents_only(eng, question, decision, llm, docs, vector)


def _a_passage_writes_its_name(eng: Engine, question: str, docs: Any) -> bool:
    """A name the question gives (two or more capitalised words) is written in the lead document."""
    names = document_reader.names_given(question)
    if not names or docs is None or docs.mode == "fallback" or not docs.hits:
        return False
    whole = " ".join(p["text"] for p in _document_passages(eng, docs.hits[0].get("doc_id"))).lower()
    return any(name.lower() in whole for name in names)


def _requested_item(eng: Engine, question: str, decision: router.RouteDecision, llm) -> ChatAnswer | None:
    """"What box do you recommend for bananas?", "who can sort the hazmat paperwork?": a request for an
    item is the catalog's (Part 5's match), whatever a document says about the goods; None when it is
    no request, names a record of the data, or no item grounds it."""
    if not catalog_links.asks_for_item(question) or assistant.named_records(eng, question):
        return None
    requested = _grounded(eng, question, replace(decision, label="EQUIPMENT_RAG"), llm)
    return requested if requested.mode == "rag" else None


# a point written as latitude and longitude: "36.0 N, 5.0 W", "36°N 5°W"
_POINT = re.compile(r"(\d{1,2}(?:\.\d+)?)\s*°?\s*([NS])\b[\s,;/]+(\d{1,3}(?:\.\d+)?)\s*°?\s*([EW])\b", re.I)


def _nearest_to_point(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Which of our ports is closest to 36.0 N, 5.0 W?": the engine's nearest-port query from that point."""
    m = _POINT.search(question)
    if m is None or not grounded._NEAR_RE.search(question):
        return None
    lat = float(m.group(1)) * (1 if m.group(2).upper() == "N" else -1)
    lon = float(m.group(3)) * (1 if m.group(4).upper() == "E" else -1)
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return None
    nearest = eng.supplychain.nearest_ports(lon, lat)
    if not nearest:
        return None
    lines = [f"- {name} ({code}): {float(km):,.0f} km" for name, code, km in nearest]
    text = "\n".join([f"The SUPPLYCHAIN ports nearest {m.group(0)}, great-circle:", *lines])
    rows = [{"table": f"{OWNER}.PORTS", "row": f"{name} ({code})"} for name, code, _ in nearest]
    explain = _explain(decision, mode="rag", handler="port location (nearest to a point)", used_llm="none",
                       reason=f"nearest ports to latitude {lat}, longitude {lon}", short_query_active=False)
    return ChatAnswer(text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


def _located(eng: Engine, question: str, decision: router.RouteDecision, llm) -> ChatAnswer | None:
    """A question naming ports that the ports' own rows answer whole ("straight-line distance Shanghai
    to Los Angeles?"): Part 5's port handler, when every word of the question is one its rows explain."""
    ports = grounded.find_ports(question)
    if not ports:
        return None
    answer = _grounded(eng, question, replace(decision, label="PORT_LOCATION", ports=ports), llm)
    return answer if answer.mode == "rag" else None


def _unsure(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    """No handler leads: a query that uses every word of the question grounds it, then the knowledge
    handlers, the catalog item a request describes, or a schema column named clearly; else a plain
    sentence (the scores stay in decision_explain)."""
    linked = _linked_data_answer(eng, question, decision, require_links=False)
    if linked is not None:
        return linked
    if (first := _before_the_knowledge(eng, question, decision, docs, vector)) is not None:
        return first
    if (written := _schema_written(eng, question, decision, llm, vector, docs)) is not None:
        return written
    label = decision.label
    pair = {label, decision.runner_up}
    if pair <= set(KNOWLEDGE_LABELS) or (label in KNOWLEDGE_LABELS and decision.runner_up in (router.SMALL_TALK, router.OUT)
                                         and decision.scores[label] >= router.thresholds(eng)[0]):
        # schema facts or documents (not a data question, which schema facts never answer):
        # let Part 4's gates compare the two (each can fall back: then the catalog item a need describes)
        known = _knowledge(eng, question, decision, llm, vector=vector, compete=True, docs=docs)
        return known if known.mode != "fallback" else _catalog_item_answer(eng, question, decision) or known
    if router.SCHEMA in pair and _asks_how_linked(question) and \
            (known := _knowledge(eng, question, decision, llm, vector=vector, compete=True, docs=docs)).mode != "fallback":
        return known  # "how is a voyage linked to the ports it sails between?": the schema's relationships
    return _rows_of_the_catalog_or_ports(eng, question, decision, llm) or _last_readings(eng, question, decision, llm,
                                                                                           vector, docs)


def _rows_of_the_catalog_or_ports(eng: Engine, question: str, decision: router.RouteDecision, llm) -> ChatAnswer | None:
    """No handler leads: an item's rows at the ports named, the stock at a port, a port's own row, the port
    nearest a point; else None."""
    if (worked := _availability(decision, question, offered=True)) is not None:
        return worked  # "is reefer monitoring offered in Colombo?": the item's rows at the port
    if (stock := _stock_at_port(eng, question, decision)) is not None:
        return stock  # "gensets in LA - how many?"
    if _asks_location(question) and (located := _located(eng, question, decision, llm)) is not None:
        return located  # "lat/long for Santos please": the port's own row
    return _nearest_to_point(eng, question, decision)


# "is the arrival date an actual date or an estimate?", "is deadweight in long tons or metric tonnes": which of two a
# column holds, which its comment says
_EITHER_OR = re.compile(r"^\W*(?:is|are|does|do)\b[^?]*\bor\b", re.I)
_LINKED = re.compile(r"\b(?:link\w*|connect\w*|join\w*|relat\w*|referenc\w*|tie[sd]?)\b", re.I)


def _asks_how_linked(question: str) -> bool:
    """A question about how the rows of two tables are tied ("what links a vessel to the line that operates
    it?", "if I join cargo to containers ..."): a word of linking and two tables' nouns, as the planner reads
    nouns (wider than the schema handler's RELATION_RE and tables_in, which miss "cargo" alone)."""
    tables = {TABLE_NOUNS[w] for w in map_words(re.findall(r"[a-z]+", question.lower())) if w in TABLE_NOUNS}
    return _LINKED.search(question) is not None and len(tables) >= 2


def _schema_written(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer | None:
    """"Is VESSEL_POSITIONS the full track?": a table or column written as the schema writes it, answered
    from the schema facts when they ground it."""
    if not names_written.named_schema_objects(question):
        return None
    known = _knowledge(eng, question, decision, llm, vector=vector, compete=True, docs=docs)
    return known if known.mode != "fallback" else None


def _last_readings(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer:
    """No handler leads and none of the readings before grounds it: a figure of the catalog, the item
    a request describes or names, a column named clearly; else a plain sentence (the scores stay in
    decision_explain)."""
    return _catalog_or_column(eng, question, decision, llm, vector, docs) or _one_item_named(eng, question, decision) \
        or _declined(decision, "I am not sure what you are asking. " + ASK_BACK)


def _one_item_named(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Clip-on genset, per day?": no handler leads, and the question names one catalog item by its name
    and nothing of the data: that item's row."""
    named = grounded.named_items(question)
    if len(named) != 1 or assistant.named_records(eng, question) or not router.PRICE_RE.search(question):
        return None  # ("what does a 40' high cube weigh on average": the data's boxes, not the catalog's row)
    return _catalog_answer(eng, question, decision, named[0], "the one catalog item the question names")


def _catalog_item_answer(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Marble blocks that won't go through the doors - what box?": the one item a need describes."""
    item = _catalog_item(eng, question, decision)
    return None if item is None else _catalog_answer(eng, question, decision, item,
                                                     "a catalog item's description matches the need")


def _before_the_knowledge(eng: Engine, question: str, decision: router.RouteDecision, docs, vector) -> ChatAnswer | None:
    """No handler leads, and before the knowledge handlers compete: no row matching what the question
    names, the document that holds the very code asked about ("how much is claimed in CL-2025-0457"),
    or the box the data carries the goods in (a passage about bananas recommends no box)."""
    if (empty := _no_rows(eng, question, decision)) is not None:
        return empty
    if docs is not None and (coded := _document_with_code(eng, question, decision, docs, vector)) is not None:
        return coded
    if (unheld := _record_not_held(eng, question, decision)) is not None:
        return unheld
    if _catalog_item(eng, question, decision) is None:
        return _box_of_the_goods(eng, question, decision)
    return None


def _catalog_or_column(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs) -> ChatAnswer | None:
    """A figure worked out from the catalog's descriptions, the one catalog item a request describes, or
    a schema question that names one column clearly ("does QUANTITY count pieces?"); else None."""
    if (figured := _catalog_figures(eng, question, decision)) is not None:
        return figured
    if derived.asks_total(question) and (totalled := _items_totalled(question, decision)) is not None:
        return totalled  # "reefer monitoring and a PTI on 4 containers, what's the total?"
    if (item := _catalog_item_answer(eng, question, decision)) is not None:
        return item
    if (boxed := _box_of_the_goods(eng, question, decision)) is not None:
        return boxed
    if (decision.cues[router.SCHEMA] or _WHERE_KEPT.search(question) or _EITHER_OR.search(question)) \
            and not assistant.named_records(eng, question) and _schema_subjects(eng, question):
        return _knowledge(eng, question, decision, llm, vector=vector, compete=True, docs=docs)
    return None


ASK_BACK = ("Name the table, column, vessel, voyage, port, piece of equipment or document you mean, and I will "
            "answer from it.")
SMALL_TALK_TEXT = ("Hello! I answer from the workshop's data: what a SUPPLYCHAIN table or column holds, figures "
                   "from the data (how many vessels, which ship sails voyage 1020, the cargo value of a voyage), "
                   "container equipment and services with their prices and availability at a port, where a port "
                   "is, and, once Part 8 promoted them, the port notices, carrier guides and procedures.")


# Thanks and farewells get their own reply; any other small talk (a greeting, "what can you do?") the
# introduction. A few words per kind, in the workshop's four languages.
_THANKS = re.compile(r"\b(?:thanks?|thank you|thx|ty|cheers|ta|appreciated?|danke|merci|gracias)\b", re.I)
_ACKNOWLEDGED = re.compile(rf"^\W*{router.ACKNOWLEDGEMENT}\W*$", re.I)
_FAREWELL = re.compile(r"\b(?:bye|goodbye|see you|see ya|later|ciao|tsch(?:ü|ue)ss|adi(?:ó|o)s|au revoir|good night)\b", re.I)


def small_talk_reply(question: str) -> str:
    """The reply to small talk: a welcome for thanks, a goodbye for a farewell, else the introduction."""
    if _THANKS.search(question):
        return "You're welcome! " + SMALL_TALK_TEXT.removeprefix("Hello! ")
    if _ACKNOWLEDGED.match(question):
        return "Alright. Ask me whenever you need something else from the data, the catalog or the documents."
    if _FAREWELL.search(question):
        return "Goodbye, and thanks for the questions. Come back any time: " + SMALL_TALK_TEXT.removeprefix("Hello! ")
    return SMALL_TALK_TEXT


def refusal_text(decision: router.RouteDecision) -> str:
    if decision.method.startswith("rules (refusal)"):
        return (f"I won't do that: the question {decision.cues[router.OUT][0]}. I only read the SUPPLYCHAIN data, "
                "the catalog and the documents, in your own scope, and never change them.")
    cue = decision.cues[router.OUT][0] if decision.cues[router.OUT] else "it is not about the workshop's data"
    return (f"I can't answer that from the workshop's data ({cue}). I know the SUPPLYCHAIN schema and its rows, "
            "the equipment catalog, the ports and the promoted documents; I have no weather, market or freight-rate "
            "feed.")


def _explain(decision: router.RouteDecision, **extra: Any) -> dict[str, Any]:
    return {"router": decision.explain(), "intent": decision.label, **extra}


def _route(decision: router.RouteDecision) -> dict[str, Any]:
    return {"intent": decision.label, "method": decision.method, "label": decision.label, "unsure": decision.unsure}


def _declined(decision: router.RouteDecision, text: str, handler: str = "router") -> ChatAnswer:
    explain = _explain(decision, mode="fallback", handler=handler, reason=decision.reason, used_llm="none",
                       short_query_active=False)
    return ChatAnswer(text, "fallback", explain, [], [], "none", None, False, "none", False, _route(decision))


def _not_the_rows(eng: Engine, question: str, decision: router.RouteDecision, llm, vector, docs,
                  live: ChatAnswer) -> ChatAnswer | None:
    """No query answers it: what a column means is the schema's ("departure date on a scheduled voyage -
    actual or planned?"); a point given by its coordinates, the nearest port's; else None."""
    if planner.ASKS_MEANING in live.answer:
        return _knowledge(eng, question, decision, llm, vector=vector, compete=False, docs=docs)
    return _nearest_to_point(eng, question, decision)


def _live(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer:
    """One SELECT composed from the question's schema and value links (workshop_lib/assistant/), run
    read-only; the answer written from its rows, or a fallback that says which part it could not use."""
    handler = "live data (composed query)"
    try:
        data = assistant.answer_data(eng, question)
    except SqlRefused as exc:
        return _declined(decision, f"The query was stopped ({exc}), so I have no answer to rely on.", handler)
    if data.text is not None and data.plan is not None:
        return _composed(data, decision)
    if data.plan is not None:
        return _declined(decision, f"The data has no row of {data.plan.what}.", handler)
    return _declined(decision, f"I can't answer that from the data offline: {data.reason}. " + NEEDS_MODEL_TEXT,
                     handler)


def _no_rows(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """A query that uses every word of the question and names a value of the data, run, with no row:
    said as such ("the data has no voyage from Busan to Shanghai"), not as a question not understood."""
    data = assistant.answer_data(eng, question, require_links=True)
    if data.text is not None or data.plan is None:
        return None
    return _declined(decision, f"The data has no row of {data.plan.what}.", "live data (composed query)")


def _record_not_held(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"The gross weight of container TGHU8831076" when the data has no such box: said so plainly (what
    the column means says nothing about a box that is not there)."""
    unheld = assistant.knowledge(eng)[1].unheld_codes(question)
    if not unheld:
        return None
    word, table = unheld[0]
    noun = table.lower().removesuffix("s")
    return _declined(decision, f"The data holds no {noun} {word}, so I have nothing to answer from about it. "
                     f"Check the {noun} number, or ask me which {table.lower()} the data holds.", "live data (value index)")


def _a_columns_value_of_rows_named(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"What's the unit value of the smartphones?": a column's name beside goods, a name or a code of the data
    asks the value in those rows, not what the column means; the rows, when one query shows every part
    (never for a question of where a thing is kept or what it means)."""
    if decision.label != router.SCHEMA or _about_the_schema_itself(question):
        return None
    _, values = assistant.knowledge(eng)
    if not any(lk.how in ("exact", "fuzzy", "word") for lk in values.links(question)):
        return None
    data = assistant.answer_data(eng, question, require_links=True)
    if data.text is None or data.plan is None or data.uncovered or not data.plan.spec.filters:
        return None
    return _composed(data, decision)


def _about_the_schema_itself(question: str) -> bool:
    """Where a thing is kept, what a column means, or a name written as the schema writes it: the schema's."""
    return bool(_WHERE_KEPT.search(question) or _ASKS_WHAT_IT_IS.search(question) or _A_NAME_OF_THE_SCHEMA.search(question))


# a column written as the schema writes it ("SIZE_TYPE", "arrival_date"): a question about the schema
_A_NAME_OF_THE_SCHEMA = re.compile(r"\b[A-Za-z]+_[A-Za-z_]+\b")
# a question about what a column is, its unit or its form: the schema's, even when it names a row
_ASKS_WHAT_IT_IS = re.compile(r"\b(?:mean|means|meaning|stand for|defin\w*|(?:what|which|in)\s+units?|format|type|stored|kept|"
                              r"column|field|table|schema)\b", re.I)


def _linked_data_answer(eng: Engine, question: str, decision: router.RouteDecision, *,
                        require_links: bool = True) -> ChatAnswer | None:
    """When another handler (or none) leads but the planner composes a query that uses every word
    of the question (with `require_links`, one that also names a value of the data: "valparisso
    express", "the Aurelia"), its rows ground the answer."""
    data = assistant.answer_data(eng, question, require_links=require_links)
    if data.text is None or data.plan is None:
        return None
    if not require_links and data.plan.spec.action in ("list", "lookup") and not data.plan.spec.filters:
        return None  # every row of a table, unfiltered: what the words asked for, not what the question did
    return _composed(data, decision)


def _code_meaning(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Package type PX = ?", "HQ_COUNTRY = CH: which country is that?": one code of a category column,
    asked what it means, answered from that column's comment (value_meanings.py); None otherwise."""
    schema, values = assistant.knowledge(eng)
    links = [lk for lk in values.links(question) if lk.how == "exact"
             and (lk.table, lk.column) not in NAME_COLUMNS and str(lk.value).isupper()]
    codes = {(lk.table, lk.column, str(lk.value)) for lk in links}
    if (part := _part_of_a_code(question, values, schema)) is not None:
        part_col, letters, example, spelled = part
        return _from_the_comment(decision, part_col, f"From the schema knowledge: {letters} in {OWNER}.{part_col.ref} "
                                 f"(as in {example}) means {spelled}.",
                                 f"the code {example} as the comment of {part_col.ref} spells it out")
    if len(codes) != 1:
        return None
    table, column, code = codes.pop()
    col = next(c for c in schema.columns[table] if c.name == column)
    if not (value_meanings.ASKS_MEANING.search(question) or _only_the_code_asked(question, links, col)):
        return None
    said = value_meanings.meaning(col, code)
    if said is None:
        return None
    return _from_the_comment(decision, col, f"From the schema knowledge: {code} in {OWNER}.{col.ref} means {said}.",
                             f"the code {code} as the comment of {col.ref} spells it out")


def _part_of_a_code(question: str, values: Any, schema: Any) -> tuple[Any, str, str, str] | None:
    """"40HC vs 40GP - what's the HC bit mean?": letters asked of that are the letters of one column's codes
    after their digits (40HC), all of whose codes the comment explains alike: (column, letters, a code,
    meaning); else None."""
    if not value_meanings.ASKS_MEANING.search(question):
        return None
    for letters in dict.fromkeys(re.findall(r"\b([A-Z]{2,4})\b", question)):
        codes = {(t, c, str(v)) for _, t, c, v, how in values.phrases
                 if how == "exact" and re.fullmatch(rf"\d+{letters}", str(v))}
        if len({(t, c) for t, c, _ in codes}) != 1:
            continue
        table, column, _ = next(iter(codes))
        col = schema.column(table, column)
        said = {value_meanings.meaning(col, code) for _, _, code in codes}
        meaning = said.pop() if len(said) == 1 else None
        if meaning is not None:
            return col, letters, min(code for _, _, code in codes), meaning
    return None


# "the gross weight of that box": one row pointed at, not a kind of row
def _row_pointed_or_unfit(eng: Engine, question: str, decision: router.RouteDecision, used: list[Any]) -> ChatAnswer | None:
    """A fact that would answer is set aside: the question asks a value of one row it points at without
    naming it, or the fact does not fit what is asked (_fact_unfit)."""
    if (pointed := _one_row_pointed_at(eng, question)) is not None:
        return _declined(decision, f"Which {pointed} do you mean? Name it (its number or name) and I will read "
                         "that from the data; the schema only says what the column holds.", "knowledge memories (Part 4)")
    return _fact_unfit(eng, question, decision, used)


# ("what does the gross weight of that box include?": what the column holds, asked by one row of it)
_ASKS_WHAT_IT_HOLDS = re.compile(r"\b(?:include[sd]?|cover(?:s|ed)?|consist\w*|count(?:s|ed)?|measured|units?|in what)\b", re.I)
_POINTED_ROW = re.compile(r"\b(?:of|on|in|for|about|with)\s+(?:that|this|the same)\s+([a-z]+)\b", re.I)


def _one_row_pointed_at(eng: Engine, question: str) -> str | None:
    """The noun of a row the question points at with "that" or "this" ("what's the gross weight of that box?")
    when it names no record and is no question about the schema itself: a value of one row is asked, which
    a column's description does not give; else None."""
    m = _POINTED_ROW.search(question)
    if m is None or map_words([m.group(1).lower()])[0] not in TABLE_NOUNS or assistant.named_records(eng, question) \
            or router.SCHEMA_RE.search(question) or router.WHICH_SCHEMA_RE.search(question) \
            or value_meanings.ASKS_MEANING.search(question) or _ASKS_WHAT_IT_HOLDS.search(question):
        return None
    return m.group(1).lower()


def _from_the_comment(decision: router.RouteDecision, col: Any, text: str, reason: str) -> ChatAnswer:
    """An answer read from one column's comment, grounded in that column's schema fact (the comment shown)."""
    used = [{"subject": f"{OWNER}.{col.ref}", "kind": "column", "similarity": 1.0}]
    explain = _explain(decision, mode="rag", handler="knowledge memories (Part 4)", used_llm="none", reason=reason,
                       short_query_active=False)
    return ChatAnswer(f"{text}\n(The column's comment: “{col.comment}”)", "rag", explain, used, used, "all", None, False,
                      "none", False, _route(decision))


def _check_digit(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"IMO 9646705 - is that valid? a digit may be off": the number's check digit worked out (check_digits.py),
    when the column's comment says the identifier ends in one; and whether the data holds it."""
    found = check_digits.checked(question)
    if found is None:
        return None
    column, number, digit = found
    table = "VESSELS" if column == "IMO_NUMBER" else "CONTAINERS"
    schema, values = assistant.knowledge(eng)
    col = schema.column(table, column)
    if "check digit" not in col.comment.lower():
        return None
    held = any((lk.table, lk.column) == (table, column) for lk in values.links(number.upper()))
    kind = "IMO number" if column == "IMO_NUMBER" else "container number (ISO 6346)"
    ok = int(number[-1]) == digit
    verdict = (f"{number} is a valid {kind}: its last digit, {digit}, is the check digit the others give."
               if ok else f"{number} is not a valid {kind}: the digits before the last give the check digit {digit}, "
               f"not {number[-1]}, so a digit is off (or two are swapped).")
    where = "The data holds it." if held else "The data holds no such number."
    return _from_the_comment(decision, col, f"{verdict} {where}", f"the check digit of {col.ref}, as its comment says it has one")


def _only_the_code_asked(question: str, links: list[Any], col: Any) -> bool:
    """"What's package type PX?", "quick one: what's a 40HC?": a what-question whose only words besides the
    code are its column's name (what comes before a colon or a sentence's end is a lead-in)."""
    rest = question
    for lk in sorted(links, key=lambda lk: -lk.start):
        rest = rest[:lk.start] + " " + rest[lk.end:]
    first = min(lk.start for lk in links)
    rest = rest[max((m.end() for m in re.finditer(r"[:;.!?]\s", question[:first])), default=0):]
    # ("Package type PX - what's that?": the code said first, then asked of with a pointer)
    pointed = re.search(r"[-–—,:]\s*(?:so\s+)?what(?:'s|\s+is|\s+does)\s+(?:that|it|this)(?:\s+mean)?\W*$", rest, re.I)
    if pointed:
        rest = "what " + rest[:pointed.start()]
    words = re.findall(r"[a-z]+", rest.lower())
    named = set(col.name.lower().split("_")) | {"what", "whats", "s", "is", "a", "an", "the", "code"}
    return bool(words) and words[0] in ("what", "whats") and set(words) <= named


_YES_NO_ASKED = r"(?:and\s+)?(?:is|are|does|do|did|was|were|can|could|should)\s+(?:it|that|this|they|the)\b"


def _columns_named(schema: Any, names: list[str]) -> list[Any]:
    """The columns the names stand for ("CARGO_ITEMS.QUANTITY", or "UNIT_VALUE_CENTS" alone: that column of
    whichever table has it), with or without the owner before them."""
    bare = [n.removeprefix(f"{OWNER}.") for n in names]
    return [col for n in bare for cols in schema.columns.values() for col in cols if n in (col.ref, col.name)]


def _what_the_column_holds(question: str, schema: Any, column: str) -> str:
    """"..., and is it for the whole line?": a second question, yes or no, that the column's comment answers;
    '' for a question that asks only the conversion."""
    asked = [c for c in assistant.clauses(question) if assistant.asked_clauses(c) or re.match(_YES_NO_ASKED, c, re.I)]
    comment = next((c.comment for c in _columns_named(schema, [column]) if c.comment), "")
    return f" What {column} holds: {comment}" if len(asked) > 1 and comment else ""


def _figures_multiplied(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"A line has QUANTITY 14 and UNIT_VALUE_CENTS 67904: the whole line in USD?": the two figures given for two
    columns multiplied, as one column's description says to (column_figures.py); None otherwise."""
    if not column_figures.gives_two_figures(question):
        return None  # (every question passes here: no schema names are looked up without two figures)
    named = names_written.named_schema_objects(question)
    if len(named) < 2:
        return None  # (two columns written as the schema writes them, or this is not asked)
    schema, _ = assistant.knowledge(eng)
    columns = [(col.ref, col.unit or "", col.comment or "") for col in _columns_named(schema, named)]
    worked = column_figures.multiplied(question, columns)
    if worked is None:
        return None
    used = [{"subject": f"{OWNER}.{worked.column}", "kind": "column", "similarity": 1.0}]
    explain = _explain(decision, mode="rag", handler="knowledge memories (Part 4)", used_llm="none",
                       reason=f"the figures given for {worked.column} and {worked.by}, multiplied as its description says",
                       short_query_active=False)
    return ChatAnswer(worked.sentence(), "rag", explain, used, used, "all", None, False, "none", False, _route(decision))


def _figure_in_another_unit(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"The reefer temp column shows -18: what's that in Fahrenheit?": the figure given, in the unit of
    the one column named, converted to the unit asked (column_figures.py); None otherwise, and for a
    question routed elsewhere than the schema unless it writes the column as the schema does."""
    if not column_figures.asks_another_unit(question) or not (
            decision.label == router.SCHEMA or decision.label == router.LIVE and names_written.named_schema_objects(question)):
        return None  # (no unit asked: the schema's columns are not looked up twice for every question)
    schema, _ = assistant.knowledge(eng)
    units = [(col.ref, col.unit) for col in _columns_named(schema, _schema_named(eng, question)) if col.unit]
    worked = column_figures.converted(question, units)
    if worked is None:
        return None
    text = worked.sentence() + _what_the_column_holds(question, schema, worked.column)
    used = [{"subject": f"{OWNER}.{worked.column}", "kind": "column", "similarity": 1.0}]
    explain = _explain(decision, mode="rag", handler="knowledge memories (Part 4)", used_llm="none",
                       reason=f"the figure given, in {worked.column}'s unit ({worked.unit}), converted to {worked.to}",
                       short_query_active=False)
    return ChatAnswer(text, "rag", explain, used, used, "all", None, False, "none", False, _route(decision))


def _figure_of_rows(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Mean gross weight of the 40RF boxes", "mean speed over ground of the ships": an average or a total
    of a column, or a count of the rows a value of the data picks, which a column's description does not
    give, when the planner composes it from every word; else None."""
    compared = _COMPARED.search(question)
    if not planner.AGGREGATE_WORDS.search(question) and not compared:
        return None  # no figure asked: the planner is not asked (the schema's questions stay fast)
    data = assistant.answer_data(eng, question)
    if data.text is None or data.plan is None or data.uncovered is not None:
        return None
    spec = data.plan.spec
    # an average or a total of a column is a figure whatever rows it is over; a count, of the rows a value picks;
    # "which boxes weigh more than 60,000 lbs?": the rows a figure given picks
    figure = (spec.action == "aggregate" and spec.measure is not None) or (spec.action == "count" and spec.filters) \
        or (compared is not None and spec.action == "list" and any(f.op in ("<", ">", "<=", ">=") for f in spec.filters))
    return _composed(data, decision) if figure else None


# a figure given to compare rows with ("more than 60,000 lbs", "under 12 knots")
_COMPARED = re.compile(r"^\W*(?:which|what|list|show|give)\b.*\b(?:more|less|over|under|above|below|greater|heavier|"
                       r"lighter|bigger|smaller|faster|slower|at least|at most)\b\D{0,12}\d", re.I)


def _grouped_rows(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"How many reefers do we have at each set point temperature?": a count per value of a column of
    the data the question names, which no catalog or port row holds, is the data's, whatever word of
    equipment led the router; None otherwise (a count per port is the catalog's availability)."""
    if not re.search(r"\b(?:each|per|by|every)\b", question, re.I):
        return None  # no group said: the planner is not asked (the catalog's and ports' questions stay fast)
    data = assistant.answer_data(eng, question, require_links=False)
    if data.text is None or data.plan is None or data.uncovered is not None:
        return None
    group = data.plan.spec.group
    if data.plan.spec.action != "group" or group is None or group.table == "PORTS":
        return None
    return _composed(data, decision)


def _composed(data: Any, decision: router.RouteDecision) -> ChatAnswer:
    """An answer from the assistant's composed query: its rows, the links that planned it."""

    plan = data.plan
    # The source in words, as the older planner's: the tables read and the rows the answer shows.
    used = [{"tables": [f"{OWNER}.{t}" for t in tables_read(plan.sql)], "rows_shown": data.rows_shown,
             "shape": plan.spec.action, "sql": plan.sql, "params": {k: str(v) for k, v in plan.params.items()}}]
    # a part of the question the rows do not show: said, and never under a grounded badge
    mode, text = ("rag", data.text) if data.uncovered is None else (
        "fallback", f"I can answer only part of this offline.\n{data.text}\nI cannot also answer “{data.uncovered}” "
                    "with the same query.")
    explain = _explain(decision, mode=mode, handler="live data (composed query)", reason=data.reason, sql=plan.sql,
                       params=used[0]["params"], links=data.links, plan=assistant.plan_summary(plan), used_llm="none",
                       short_query_active=False, uncovered=data.uncovered)
    return ChatAnswer(text, mode, explain, used, used if mode == "rag" else [], "all" if mode == "rag" else "none",
                      None, False, "none", False, _route(decision))


NEEDS_MODEL_TEXT = ("Offline I answer a question about the data when one query can use every part of it: counts, "
                    "sums, averages, the largest or smallest, top-N, counts per group, lists and look-ups, filtered "
                    "by the names, codes, countries, dates and numbers it mentions. Configure a model (README, "
                    "'Using a model') for other questions, or rephrase it.")


def _document_with_code(eng: Engine, question: str, decision: router.RouteDecision, docs: Any,
                        vector) -> ChatAnswer | None:
    """The sentence of the kind asked ("how much": an amount) from the nearest document that holds a
    code the question names (a claim, booking or container number), under a hybrid badge; None when
    no document near the question holds the code or the question asks no kind of answer."""
    codes = [m.group(0) for m in catalog_links.IDENTIFIER_RE.finditer(question)]
    if not codes or document_reader.asked_kind(question) is None:
        return None
    passages = _nearest_passages(eng, docs, vector)
    doc = next((p["subject"] for p in passages if any(c in str(p["text"]) for c in codes)), None)
    if doc is None:
        return None
    whole = _document_passages(eng, doc)
    reading = document_reader.read(question, _whole_first(whole or [p for p in passages if p["subject"] == doc]))
    if reading.sentence is None:
        return None
    used = [{"subject": doc, "similarity": next(p["similarity"] for p in passages if p["subject"] == doc)}]
    explain = _explain(decision, mode="hybrid", handler="documents (Part 8)", used_llm="none",
                       reason=f"the document holds {', '.join(codes)}", short_query_active=False)
    return ChatAnswer(f"According to {doc}: \u201c{reading.sentence}\u201d", "hybrid", explain, used, used, "partial",
                      None, False, "none", False, _route(decision))


def _schema_subjects(eng: Engine, question: str) -> list[str]:

    return assistant.schema_subjects(eng, question)


def _catalog_item(eng: Engine, question: str, decision: router.RouteDecision | None = None) -> Any:
    """The catalog item a request describes ("a box for marble blocks lowered in by crane"), when
    its description clearly matches and the question names no record of the data (a vessel, a
    carrier, a voyage: the catalog knows nothing about them); else None. With the router's decision,
    a need described without asking ("cocoa keeps arriving with condensation damage") counts too,
    unless the question reads as one about the data, the schema or the documents."""
    named = grounded.named_items(question)
    if (by_unit := _named_with_its_unit(eng, question, named)) is not None:
        return by_unit
    described = decision is not None and _only_described(eng, question, decision)
    asked = catalog_links.asks_for_item(question)
    if not (asked or catalog_links.asks_for_item(question, described=described)) or assistant.named_records(eng, question) \
            or catalog_links.names_other_identifier(question) or _users_own(question):
        return None  # a record of the data, a claim, booking or document number, the user's own: not the catalog's
    # asked for in so many words ("which equipment helps?"), one item clearly leading is enough
    link = catalog_links.best(question, described=described or asked)
    if link is None:
        return _priced_by_name(question, named)
    if len(named) == 1 and not catalog_links.sizes_allow(question, link.item):
        return None  # one item named, in a size the question gives: Part 5's handler reads it
    if len(named) == 1 and named[0] != link.item and _one_size_given(question, named[0]):
        return None  # "keep a 20' reefer for 30 days": the item named with its size, not one its words recall
    return link.item


def _named_with_its_unit(eng: Engine, question: str, named: list[Any]) -> Any:
    """"What's reefer monitoring per container per voyage?": the one item named, with the unit of its price
    said (its price asked); None otherwise, or when a record of the data is named too."""
    if len(named) != 1 or named[0].price_unit.lower() not in question.lower():
        return None
    return None if assistant.named_records(eng, question) else named[0]


def _priced_by_name(question: str, named: list[Any]) -> Any:
    """"Genset daily rate?": the one item the question names, its price asked, however few words of
    its description the question uses; else None."""
    return named[0] if len(named) == 1 and router.PRICE_RE.search(question) else None


def _one_size_given(question: str, item: Any) -> bool:
    """The question gives one container size, and it is the item's ("a 20' reefer")."""
    size = re.match(r"(\d{2})'", item.name)
    bare = set(re.findall(r"\b(20|40|45)\b", question))
    return size is not None and catalog_links.sizes_named(question) == bare == {size.group(1)}


def _only_described(eng: Engine, question: str, decision: router.RouteDecision) -> bool:
    """Nothing but the words of a need: no figure (a size in feet aside), no wording of the data, no
    schema column it names, and the router leans to neither the schema nor the documents."""
    figures = re.sub(r"\b\d{2}\s*(?:'|\u2019|-?\s*(?:foot|feet|ft)\b)", "", question)
    return decision.label not in (router.DOCS, router.SCHEMA) and not decision.cues[router.LIVE] \
        and not re.search(r"\d", figures) and not assistant.schema_subjects(eng, question)


def _or_catalog(eng: Engine, question: str, decision: router.RouteDecision, answer: ChatAnswer) -> ChatAnswer:
    """A handler that could not ground the question hands it to the catalog when a catalog item's
    description matches the request; otherwise its fallback stands."""
    if answer.mode != "fallback" or answer.decision_explain.get("sql"):
        return answer  # (a query answered part of it: the rows' question, not the catalog's)
    if _ON_THE_DATAS_RECORDS.search(question) and not availability.asks_price_or_lease(question):
        return answer  # ("which containers of the shipment contain dangerous goods?": the data's boxes, unplanned)
    if (worked := _availability(decision, question, offered=True)) is not None:
        return worked  # "how many ports have 20' flat racks?": no data query, a figure over the catalog's rows
    if (figured := _catalog_figures(eng, question, replace(decision, label="EQUIPMENT_RAG"))) is not None:
        return figured  # "70 cubic metres of cartons: which container has room?": the stated capacities
    if (stock := _stock_at_port(eng, question, decision)) is not None:
        return stock
    if (item := _catalog_item(eng, question, decision)) is None:
        # "which container for a load of bananas?": goods no description names, in the box the data carries them in
        return _box_of_the_goods(eng, question, decision) or answer
    return _catalog_answer(eng, question, decision, item, f"{decision.label} could not ground it; a catalog "
                                                          "item's description matches the need")


def _stock_at_port(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Gensets in LA - how many?": an item named by its type and a port, read by Part 5's availability
    handler when its rows answer every word; else None."""
    if not grounded.named_items(question) or not grounded.find_ports(question) or assistant.named_records(eng, question):
        return None
    stock = _grounded(eng, question, replace(decision, label="EQUIPMENT_AVAILABILITY"), None)
    return stock if stock.mode == "rag" else None


def _catalog_answer(eng: Engine, question: str, decision: router.RouteDecision, item: Any, why: str) -> ChatAnswer:
    """The item a request describes, rendered from its catalog row, with the cost of the quantity asked."""
    link = catalog_links.rank(question, [item])[0]
    text = grounded.render_grounded_answer(question, grounded.matches_for(eng, [item]))
    if (q := catalog_links.quote(question, item)) is not None:
        text += "\n" + q.sentence(item)
    if (converted := catalog_figures.in_unit_asked(question, item)) is not None:
        text += "\n" + converted
    rows = [{"item_id": item.item_id, "used": True, "matched_words": list(link.words)}]
    explain = _explain(decision, mode="rag", handler="catalog (description match)", reason=why,
                       rows=[item.item_id], matched_words=list(link.words), used_llm="none", short_query_active=False)
    return ChatAnswer(text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


# the words of any box, which say no kind of box
_BOX_WORDS = frozenset({"box", "container", "equipment", "unit"})


def _box_of_the_goods(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"What box do you recommend for bananas?": a request for equipment naming goods that no catalog
    description names; the box the data's containers of those goods mostly are (goods_boxes.py). None
    when it is no request for an item, names a record of the data, or the data has no such goods."""
    if not catalog_links.asks_for_item(question) or assistant.named_records(eng, question) or _users_own(question):
        return None
    found = goods_boxes.box_for_goods(eng, question)
    if found is None:
        return None
    ranked = catalog_links.rank(question)
    said = [set(link.words) - _BOX_WORDS for link in ranked]
    if said and len(said[0]) >= 2:
        # "green coffee arriving wet from condensation": a catalog description says what helps, clearly (more
        # of the question's words than any other says) or not at all
        clear = all(len(other) < len(said[0]) for other in said[1:])
        return _catalog_answer(eng, question, decision, ranked[0].item,
                               f"its description says {', '.join(sorted(said[0]))}") if clear else None
    rows = [{"item_id": found.item.item_id, "used": True}, {"sql": found.sql, "used": True}]
    explain = _explain(decision, mode="rag", handler="catalog (the box the data carries these goods in)",
                       reason=f"the data's containers of {found.goods} are mostly {found.size_type}",
                       rows=[found.item.item_id], sql=found.sql, used_llm="none", short_query_active=False)
    return ChatAnswer(found.sentence(), "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


# a question that asks for a procedure ("what do we do with ...", "what happens if ...")
_PROCEDURE = re.compile(r"\bwhat\s+(?:do|should|must|shall|can)\s+(?:we|i|you)\s+do\b|\bwhat\s+happens\s+(?:if|when|to)\b|"
                        r"\bwhat(?:'s| is)\s+the\s+(?:procedure|process)\b|\bhow\s+do\s+(?:we|i)\s+handle\b", re.I)
# "who offers reefers in Rotterdam?": the supplier asked is the catalog's own company
_WHO_SUPPLIES = re.compile(r"\bwho\s+(?:offers?|has|have|stocks?|provides?|supplies|rents?|leases?|sells?)\b", re.I)


def _not_the_rows_kind(question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """Offline, what no catalog or port row is: a procedure ("what do we do with an empty reefer that fails
    its PTI?") or a party ("who pays for moving a box to the customs inspection?"); None otherwise."""
    if _PROCEDURE.search(question) and not catalog_links.asks_for_item(question) and not router.PRICE_RE.search(question):
        return _declined(decision, "That asks what to do, and the catalog and port rows describe equipment, services "
                                   "and ports, not procedures; that is a question for the documents.", "grounded (Part 5)")
    if document_reader.asked_kind(question) == "person" and not _WHO_SUPPLIES.search(question):
        return _declined(decision, "The catalog and port rows name no person or party, so they cannot say who; "
                                   "that is a question for the documents (procedures, port notices).", "grounded (Part 5)")
    return None


def _grounded(eng: Engine, question: str, decision: router.RouteDecision, llm) -> ChatAnswer:
    """Part 5's handlers, checked: a catalog request about a record of the data declined, the item a
    request describes preferred to the embedding match, rows that leave words unexplained declined."""
    before = _before_part5(eng, question, decision, llm)
    if before is not None:
        return before
    if llm is None and (not_rows := _not_the_rows_kind(question, decision)) is not None:
        return not_rows
    g = grounded.ask(eng, question, llm=llm, route_to=decision.as_route())
    checked = _catalog_checked(eng, question, decision, g)
    if checked is not None:
        return checked
    found = _rows_answer(question, g)
    if found and (declined := _stock_not_asked(eng, question, decision, g) or _uncovered(eng, question, decision, g)
                  or _a_total_of_theirs(question, decision, g)):
        return declined
    if not found and g.intent == "PORT_LOCATION" and (rows := _rows_not_a_location(eng, question, decision, g)) is not None:
        return rows
    return _grounded_reply(decision, llm, g, found)


def _rows_not_a_location(eng: Engine, question: str, decision: router.RouteDecision, g: Any) -> ChatAnswer | None:
    """A port question no port's location answers: with no port named, the ports' rows ("the southernmost port",
    "nearest 1.3°N 103.8°E"); with one named, the data's rows about it ("anything due at Rotterdam in July?")."""
    if not g.ports and (nearest := _nearest_to_point(eng, question, decision)) is not None:
        return nearest
    return _linked_data_answer(eng, question, decision, require_links=False)


# a cost asked over several things of the user's ("on every one of them", "for all of those", "on Ferrante's first
# lot"): a price per unit from the catalog is not what it comes to
_OVER_THEIRS = re.compile(r"\b(?:(?:on|for) (?:every|each) (?:one )?of (?:them|those|these|my|our|the)|"
                          r"all of (?:them|those|these)|each of (?:those|these|them|my|our)|"
                          r"(?:every|each) (?:one|box|container|reefer|unit) of (?:them|those|these|mine|ours)|"
                          r"(?:\w+'s|their|our|my) (?:whole |entire )?(?:first |second |last )?(?:lot|consignment|order|load)s?)\b",
                          re.I)
_ASKS_WHAT_IT_COMES_TO = re.compile(r"\b(?:how much|cost|total|extra|bill|come to|comes to)\b", re.I)


def _a_total_of_theirs(question: str, decision: router.RouteDecision, g: Any) -> ChatAnswer | None:
    """"If we add a pre-trip inspection on every one of them, how much extra?": a catalog item's price per unit
    under a grounded badge is not what it comes to over their things, whose number the rows do not hold: the price,
    said as only part of an answer."""
    if g.intent != "EQUIPMENT_RAG" or not _OVER_THEIRS.search(question) or not _ASKS_WHAT_IT_COMES_TO.search(question):
        return None
    return _declined(decision, f"I can answer only part of this: {g.text}\nWhat it comes to for yours needs figures "
                               "(how many, or what they are worth) that this question does not give.", "grounded (Part 5)")


def _grounded_reply(decision: router.RouteDecision, llm, g: Any, found: bool) -> ChatAnswer:
    """Part 5's answer as the chat gives it: rag when rows answer it, else a fallback (a port not
    told apart asks back), with the rows it used."""
    mode = "rag" if found else "fallback"
    declined_port = g.intent == "PORT_LOCATION" and not g.grounded  # e.g. a distance with one port named
    text = g.text if found or g.intent != "PORT_LOCATION" or declined_port else (
        "I could not tell which port you mean. " + ASK_BACK) if not g.ports else (
        f"I know where the port {' and '.join(g.ports)} is (its UN/LOCODE), but that is not what this asks, and I found no query or "
        "other source that answers it.")
    rows = [{"item_id": i, "used": found} for i in g.item_ids]
    if found and g.intent == "PORT_LOCATION":
        rows = _port_rows(text)  # the port rows the answer shows
    explain = _explain(decision, mode=mode, handler="grounded (Part 5)", route_method=g.route_method,
                       reason=g.selection_status, rows=g.item_ids, ports=g.ports,
                       used_llm="none" if llm is None else "primary", short_query_active=False)
    return ChatAnswer(text, mode, explain, rows, rows if found else [], "all" if found else "none",
                      g.embedding_cache_hit, g.from_cache, explain["used_llm"], False, _route(decision))


def _availability(decision: router.RouteDecision, question: str, *, offered: bool = False) -> ChatAnswer | None:
    """A figure over one item's availability rows (a total, the most or fewest, how many ports), or
    with `offered` whether it is at the ports named; None when the question asks neither."""
    found = availability.figure(question, stock_asked=decision.label == "EQUIPMENT_AVAILABILITY") or \
        (availability.offered_at(question) if offered else None)
    if found is None:
        return None
    rows = [{"item_id": i, "ports": list(found.ports), "used": True} for i in found.item_ids]
    explain = _explain(decision, mode="rag", handler="catalog availability (figures)", reason=found.reason,
                       rows=list(found.item_ids), ports=list(found.ports), used_llm="none", short_query_active=False)
    return ChatAnswer(found.text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


def _before_part5(eng: Engine, question: str, decision: router.RouteDecision, llm: Any = None) -> ChatAnswer | None:
    """What answers before Part 5's handlers read their rows: where a column is kept (the schema's),
    a catalog request about a record of the data declined, a figure over an item's availability rows,
    a comparison over the data's rows, a figure worked out from the descriptions."""
    if _WHERE_KEPT.search(question) and not grounded.find_ports(question) and _schema_subjects(eng, question):
        return _knowledge(eng, question, decision, llm)  # "where do I find the reefer set temperature?"
    if decision.label == "EQUIPMENT_RAG" and (refused := _not_the_catalogs(eng, question, decision)) is not None:
        return refused
    if decision.label == "EQUIPMENT_AVAILABILITY" and assistant.named_records(eng, question):
        # "any reefers on 261W?": boxes on a voyage are the data's rows, not the depots' stock
        return _linked_data_answer(eng, question, decision) or _no_rows(eng, question, decision) or \
            _not_the_catalogs(eng, question, decision)
    if (worked := _availability(decision, question, offered=True)) is not None:
        return worked  # a total, the most or fewest, how many ports, offered at a port: from the item's rows
    if (compared := _compared(eng, question, decision)) is not None:
        return compared
    if (sizes := catalog_links.sizes_named(question)) and not sizes & catalog_links.catalog_sizes():
        return _declined(decision, f"The catalog has no {' or '.join(sorted(sizes))}-foot equipment; its containers "
                                   f"are {', '.join(sorted(catalog_links.catalog_sizes()))} foot.", "grounded (Part 5)")
    return _catalog_figures(eng, question, decision) if decision.label == "EQUIPMENT_RAG" else None


def _compared(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """Items named one per part of a list, a comparison over the data's rows, or the data's rows that a
    question under the catalog's label asks for ("which boxes are carrying lithium batteries?")."""
    if decision.label == "EQUIPMENT_RAG" and (items := _items_compared(eng, question, decision)) is not None:
        return items
    if (rows := _rows_compared(eng, question, decision)) is not None:
        return rows
    if decision.label == "EQUIPMENT_RAG" and not catalog_links.asks_for_item(question):
        return _linked_data_answer(eng, question, decision)
    return None


# the parts of a question that name one item each: "20' reefer vs 40' HC reefer", "genset and reefer monitoring"
_ITEM_LIST = re.compile(r"\s*(?:\bvs\.?|\bversus\b|\band\b|\bor\b|,|;|\bcompared (?:to|with)\b|\bagainst\b|\bthan\b)\s*",
                        re.I)
_CHEAPER = re.compile(r"\b(?:cheaper|cheapest|less expensive|lower|lowest|more expensive|pricier|dearer|costlier)\b",
                      re.I)


def _items_compared(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """Two or more items named one per part of a list ("20' reefer vs 40' HC reefer, daily rates?"):
    each item's own row, and which costs less when they are priced alike; None otherwise."""
    if _counts_compared(question):
        return None  # "more 40' high cubes or dry boxes?": a count compared, which no price row holds
    named = [grounded.named_items(part) for part in _ITEM_LIST.split(question) if part.strip()]
    if any(len(n) > 1 for n in named):
        return None  # a part that names a type in several sizes: Part 5's handler reads it
    items = list({n[0].item_id: n[0] for n in named if n}.values())
    if len(items) < 2:
        return None
    text = grounded.render_grounded_answer(question, grounded.matches_for(eng, items)) + _prices_compared(question, items)
    if derived.asks_total(question):
        return _items_totalled(question, decision) or _total_not_worked_out(decision, text, [i.item_id for i in items])
    rows = [{"item_id": i.item_id, "used": True} for i in items]
    explain = _explain(decision, mode="rag", handler="catalog (items named)", reason="each part names one item",
                       rows=[i.item_id for i in items], used_llm="none", short_query_active=False)
    return ChatAnswer(text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


def _prices_compared(question: str, items: list[Any]) -> str:
    """Which of items priced alike costs less, and by how much when two are compared; "" otherwise."""
    if len({i.price_unit for i in items}) != 1 or not (_CHEAPER.search(question) or derived.asks_difference(question)):
        return ""
    low = min(items, key=lambda i: i.price_usd)
    text = f"\nThe lower price is the {low.name} [{low.item_id}] at USD {low.price_usd:.2f} {low.price_unit}."
    if derived.asks_difference(question) and len(items) == 2:
        high = max(items, key=lambda i: i.price_usd)
        text += f"\nThe {high.name} costs USD {high.price_usd - low.price_usd:,.2f} more, {high.price_unit}."
    return text


def _counts_compared(question: str) -> bool:
    """"More X or Y?" without a word of price: how many of each, not what each costs."""
    return bool(re.search(r"\b(?:more|fewer|less)\b", question, re.I)) and not _CHEAPER.search(question) \
        and not router.PRICE_RE.search(question)


# "heavier than 28 tonnes": a comparison over rows, not a load to carry
_COMPARISON = re.compile(r"(?<![\w-])(?:" + "|".join(p for p, _ in planner.COMPARATORS[:5]) + r")(?!\w)", re.I)


def _rows_compared(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"Is any container heavier than 28 tonnes?", "which reefers are set to -18?": a comparison the planner turns into a filter on a
    column of the data is about its rows, not about the catalog's items; None otherwise."""
    if not _COMPARISON.search(question):
        return None
    data = assistant.answer_data(eng, question)
    if data.text is None or data.plan is None or not any(f.op in (">", "<", ">=", "<=") or (f.op == "=" and f.column.numeric)
                                                         for f in data.plan.spec.filters):
        return None
    return _composed(data, decision)


def _catalog_figures(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """A figure the question gives worked out against the figures the descriptions state: a value
    priced as a share of it (insurance on goods worth X), or a load (tonnes, cubic metres) and the
    items whose stated capacity holds it; None when neither applies."""
    named = grounded.named_items(question)
    candidates = named + [i for i in (_catalog_item(eng, question),) if i is not None]
    best = catalog_links.best(question)
    candidates += [best.item] if best is not None else []
    for item in candidates:
        if (share := catalog_figures.share(question, item)) is not None:
            return _figures_answer(decision, share.sentence(), [item], "the price is a share of the value given")
    if _COMPARISON.search(question) or not (named or catalog_links.asks_for_item(question) or _FITS.search(question)):
        return None
    return _load_fits(question, named, decision)


def _load_fits(question: str, named: list[Any], decision: router.RouteDecision) -> ChatAnswer | None:
    """The items whose stated capacity holds the load the question gives, cheapest first; None when none
    does, or when the goods need a kind of box none of those is ("20 t of frozen fish": a reefer)."""
    fit = catalog_figures.fit(question, named)
    if fit is None or not (fit.holding or (len(named) == 1 and fit.short)):
        return None  # (one item named and too small: that is the answer)
    lead = [c.item for c in fit.holding]
    if not _the_kind_asked_holds(question, named, lead, fit.unit):
        return None
    return _figures_answer(decision, fit.sentence(), lead + [c.item for c in fit.short],
                           "the load given against the capacity each description states")


def _the_kind_asked_holds(question: str, named: list[Any], lead: list[Any], unit: str) -> bool:
    """The items a load fits are of the kind the question asks for: the one its words describe, one it
    names by a word of their names ("which reefer for 20 t?": no reefer states a capacity, so no figure
    answers it), or one the goods need ("20 t of frozen fish": only other items' descriptions speak of
    frozen goods)."""
    kind = catalog_links.best(question, described=True)
    if not named and kind is not None and kind.item not in lead:
        return False
    stating = {c.item.item_id for c in catalog_figures.capacities(unit)}
    if (named and all(i.item_id not in stating for i in named)) or \
            (not named and (kinds := _kind_named(question)) and not set(kinds) & set(lead)):
        return False
    return len(named) == 1 or not catalog_links.described_elsewhere(question, lead)


def _kind_named(question: str) -> list[Any]:
    """The items a word of their names said in the question names ("reefer": the reefers), the words
    every item shares (container, 20', 40') aside."""
    said = set(words_of(question))
    names = {i.item_id: set(words_of(i.name)) for i in catalog_links.ITEMS}
    shared = {w for w in set().union(*names.values()) if sum(w in n for n in names.values()) > len(names) // 3}
    return [i for i in catalog_links.ITEMS if (names[i.item_id] - shared) & said]


# a question about whether a load fits ("will it take", "big enough", "can that go in")
_FITS = re.compile(r"\b(?:fit|fits|take it|hold|holds|go in|goes in|big enough|enough room|bigger|room for|load)\b", re.I)


def _figures_answer(decision: router.RouteDecision, text: str, items: list[Any], why: str) -> ChatAnswer:
    rows = [{"item_id": i.item_id, "used": True} for i in items]
    explain = _explain(decision, mode="rag", handler="catalog (figures of the descriptions)", reason=why,
                       rows=[i.item_id for i in items], used_llm="none", short_query_active=False)
    return ChatAnswer(text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


def _not_the_catalogs(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """A catalog request about a record of the data (a vessel, carrier, voyage), or asking a kind of
    answer no catalog row holds, is declined before any item is matched."""
    if named := assistant.named_records(eng, question):
        if (rows := _linked_data_answer(eng, question, decision)) is not None:
            return rows  # "how much weight of goods is in MSKU4313858, leaving out the container?": the data's rows
        return _declined(decision, "The catalog lists equipment and services with their prices; it has nothing "
                                   f"about {', '.join(lk.text for lk in named)}, and I found no other source "
                                   "that answers this.", "grounded (Part 5)")
    if (kind := _catalog_cannot_hold(question)) is not None:
        return _declined(decision, f"The catalog holds items and their prices, not the {kind} you ask for, and I "
                                   "found no other source that answers this.", "grounded (Part 5)")
    if (own := _users_own(question)) is not None:
        return _declined(decision, f"The catalog lists equipment and services with their list prices; it knows "
                                   f"nothing of your {own}, and you have not told me about it.", "grounded (Part 5)")
    return None


# "which of my customers had ...", "our consignee": the user's own people or deals, which no catalog row holds
# (a need described with their things, "our coffee beans keep sweating", is still the catalog's)
_OWN_PARTY = re.compile(r"\b(?:which|who|whom)\s+of\s+(?:my|our)\s+([a-z]+)|\b(?:my|our)\s+(customers?|clients?|"
                        r"consignees?|buyers?|shippers?|hauliers?|truckers?|contacts?|accounts?|suppliers?)\b", re.I)
# "their bulk order", "the two deliveries": things of a party's, or already spoken of, not a catalog row
_DISCUSSED = re.compile(r"\b(?:their|his|her)\s+(?:[a-z]+\s+)?(orders?|shipments?|deliver(?:y|ies)|bookings?|cargo|goods|"
                        r"consignments?|loads?)\b|\bthe\s+(?:two|three|both|other)\s+"
                        # ("the two rates" of two items named: their prices, not a deal of theirs)
                        r"((?!(?:rates?|prices?|costs?|fees?|charges?|items?|boxes|containers|units|options)\b)[a-z]+)\b",
                        re.I)
# "what rate are we paying": an arrangement of theirs, not a list price ("what do I pay" asks a quote)
_WE_PAY = re.compile(r"\b(?:are|were|have)\s+(?:we|i)\s+(?:been\s+)?(?:paying|charged)\b|\bdid\s+(?:we|i)\s+pay\b",
                     re.I)


def _users_own(question: str) -> str | None:
    """What of the user's own a question asks about that no catalog row holds: their people or deals
    ("which of my customers had the vaccine reefer?"), the rate they pay, or whether they should book
    something for a party of theirs ("do I still add insurance for them?"); None otherwise."""
    if m := _OWN_PARTY.search(question):
        return m.group(1) or m.group(2)
    if m := _DISCUSSED.search(question):
        return m.group(1) or m.group(2)
    if _FOR_THEM.search(question):
        return "arrangements with them"
    return "rate" if _WE_PAY.search(question) else None


# "so do I still add insurance for them?", "should we book transloading for the Okonkwo shipment?": what
# the user agreed with a party of theirs, which a list price does not say
_FOR_THEM = re.compile(r"^\W*(?:so\s+|and\s+)?(?:do|does|should|must|shall|need)\s+(?:i|we)\s+(?:still\s+|also\s+)?"
                       r"(?:need\s+to\s+|have\s+to\s+)?(?:need|add|book|put|include|get|order|take|buy)\b.*"
                       r"\bfor\s+(?:them|him|her|(?-i:(?:the\s+)?[A-Z][\w&'-]+))", re.I)


def _catalog_cannot_hold(question: str) -> str | None:
    """The kind of answer asked ("how long": a duration; "when": a date; "who": a party) when no
    catalog row holds it: an item and its price would answer another question."""
    kind = document_reader.asked_kind(question)
    return kind if kind in ("duration", "date", "party", "person") else None


# boxes placed on the data's records ("on the manifests", "loaded on the voyages"): the data's, not the catalog's
_ON_THE_DATAS_RECORDS = re.compile(r"\b(?:on|aboard|in)\s+(?:the\s+|our\s+|those\s+|these\s+|its\s+)?"
                                   r"(?:manifests?|voyages?|sailings?|vessels?|ships?)\b|"
                                   # "which containers of the shipment contain dangerous goods?": boxes already packed
                                   r"\bwhich\s+(?:of\s+(?:the|my|our)\s+)?(?:containers?|boxes)\b[^?]{0,60}?"
                                   r"\b(?:contains?|carry|carries|carrying|loaded with)\b", re.I)


def _cold_box_instead(question: str, g: Any) -> Any:
    """Goods kept cold, and Part 5 leads with a box that holds no temperature: the first that does, as the
    catalog linker ranks them; else None."""
    if not g.item_ids or not catalog_links.needs_a_cold_box(question):
        return None
    cold = catalog_links.rank(question)
    if not cold or cold[0].item.item_id == g.item_ids[0] or catalog_links.holds_a_temperature(_lead_item(g)):
        return None
    return cold[0].item


def _lead_item(g: Any) -> Any:
    """The catalog item Part 5's answer leads with."""
    return next(i for i in catalog_links.ITEMS if i.item_id == g.item_ids[0])


def _catalog_checked(eng: Engine, question: str, decision: router.RouteDecision, g: Any) -> ChatAnswer | None:
    """The catalog linker's item when Part 5's embedding match leads with another; a multi-item answer
    to a question with a negation declined; a quantity priced (in place, on `g`)."""
    if (datas := _the_datas_boxes(eng, question, decision)) is not None:
        return datas
    # (a need asked with a port, "green coffee out of Santos sweats - which box?", is routed to the stock; no
    # row matched, the item its description names answers it)
    described = decision.label == "EQUIPMENT_RAG" or (not (g.grounded and g.item_ids) and catalog_links.asks_for_item(question))
    item = _catalog_item(eng, question, decision) if described else None
    item = item or _cold_box_instead(question, g)
    if item is not None and (not g.grounded or not g.item_ids or g.item_ids[0] != item.item_id):
        return _item_described(eng, question, decision, item, g)
    if item is None and g.grounded and len(g.item_ids) > 1 and planner.NEGATION_RE.search(question):
        # "which boxes aren't heavy": the rows matched would be listed with the 'not' ignored
        return _declined(decision, "I can't tell which of the catalog items your question excludes; name the item "
                                   "you mean and I will answer from its row.", "grounded (Part 5)")
    quoted = _price_quantity(question, g)
    return _total_of_rows(question, decision, g, quoted)


def _the_datas_boxes(eng: Engine, question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """A question about the boxes the data records, not the catalog's: answered from the rows, or declined."""
    if availability.names_data_rows(question) and (rows := _linked_data_answer(eng, question, decision)) is not None:
        return rows  # "how many reefers on the manifests in total": the data's boxes, not the catalog's
    if _ON_THE_DATAS_RECORDS.search(question) and not availability.asks_price_or_lease(question):
        # "more 40' high cubes or dry boxes on the manifests?": the catalog's items would answer another question
        return _declined(decision, "That asks about the boxes the data records (on the manifests, voyages or ships), "
                                   "not the catalog's items, and I cannot plan it offline.", "grounded (Part 5)")
    return None


def _item_described(eng: Engine, question: str, decision: router.RouteDecision, item: Any, g: Any) -> ChatAnswer:
    """The item a need describes, answered from its row; a total it cannot price, declined."""
    answered = _catalog_answer(eng, question, decision, item, "a catalog item's description matches the need "
                                                              f"(the embedding match led with {g.item_ids[:1]})")
    if derived.asks_total(question) and (len(grounded.named_items(question)) > 1 or catalog_links.quote(question, item) is None):
        return _items_totalled(question, decision) or _total_not_worked_out(decision, answered.answer, [item.item_id])
    return answered


def _total_of_rows(question: str, decision: router.RouteDecision, g: Any, quoted: bool) -> ChatAnswer | None:
    """A total asked of several items, or of one item whose price the question gives no quantity for:
    not worked out (one item's stock is added up per port by its own handler)."""
    if g.grounded and derived.asks_total(question) and \
            (len(g.item_ids) > 1 or (g.intent == "EQUIPMENT_RAG" and g.item_ids and not quoted)):
        return _items_totalled(question, decision) or _total_not_worked_out(decision, g.text, g.item_ids)
    return None


_SEVERAL_VOYAGES = re.compile(r"\b(?:\d+|two|three|four|five|six|several|multiple|many)\s+(?:voyages|sailings|trips|legs)\b", re.I)


def _priced_alike(question: str) -> list[tuple[Any, Any]] | None:
    """(item, quote) of each of the two or more items a question names, all priced for the same count (and days) of
    what their prices are per; None otherwise."""
    named = grounded.named_items(question)
    quotes = [(item, catalog_links.quote(question, item)) for item in named]
    priced = [(item, q) for item, q in quotes if q is not None]
    if len(named) < 2 or len(priced) != len(named) or len({(q.units, q.days) for _, q in priced}) != 1:
        return None
    if any("voyage" in item.price_unit for item in named) and _SEVERAL_VOYAGES.search(question):
        return None  # ("... on two voyages": a price per voyage counted once would be half the total)
    if not all(_counted_as_priced(question, item) for item in named):
        return None  # ("two boxes need drayage": a price per move, and the moves are not counted)
    return priced


# a count and the thing counted ("4 containers", "three moves", "5 reefer boxes")
_A_COUNT_OF = re.compile(r"\b(?:\d{1,5}|" + "|".join(catalog_links.NUMBER_WORDS) + r")\s+(?:[\w'-]+\s+)??([a-z]+)\b", re.I)


def _counted_as_priced(question: str, item: Any) -> bool:
    """The thing the question counts ("4 containers", "3 reefers", "two moves") is what the item's price is per: a box
    for a price per container or unit, else the price's own noun."""
    m = _A_COUNT_OF.search(question)
    per = re.search(r"\bper (\w+)", item.price_unit)
    if m is None or per is None:
        return False
    counted = m.group(1).lower()
    if per.group(1) in ("container", "unit"):
        return table_of_noun(counted) == "CONTAINERS" or any(
            i.category == "equipment" for i in grounded.named_items(counted, variants=True))
    return stem(counted) == stem(per.group(1))


def _items_totalled(question: str, decision: router.RouteDecision) -> ChatAnswer | None:
    """"PTI plus reefer monitoring for 3 reefers - total cost?": two items or more the question names, each priced
    for the same count (and days) it gives, added up; None when an item is not priced so, or fewer are named."""
    priced = _priced_alike(question)
    if priced is None:
        return None
    lines = [f"- {item.name} [{item.item_id}]: {q.sentence(item)}" for item, q in priced]
    total = round(sum(q.total for _, q in priced), 2)
    text = "\n".join([*lines, f"Total: USD {total:,.2f}."])
    rows = [{"item_id": item.item_id, "used": True} for item, _ in priced]
    explain = _explain(decision, mode="rag", handler="catalog (items totalled)", rows=[r["item_id"] for r in rows],
                       reason="every item named priced for the count the question gives, added up", used_llm="none")
    return ChatAnswer(text, "rag", explain, rows, rows, "all", None, False, "none", False, _route(decision))


def _total_not_worked_out(decision: router.RouteDecision, rows_text: str, item_ids: list[str]) -> ChatAnswer:
    """The prices of the items, under a fallback: the total asked for needs figures the question
    does not give (a quantity, a value) or adds items up, which the catalog's rows do not do."""
    text = ("I can't work out the total you ask for offline: it needs figures the question does not give "
            "me, or adds several items up. Here are the prices it would use:\n" + rows_text)
    rows = [{"item_id": i, "used": False} for i in item_ids]
    explain = _explain(decision, mode="fallback", handler="catalog (total not worked out)",
                       reason="a total is asked and no quantity prices the rows", rows=item_ids, used_llm="none")
    return ChatAnswer(text, "fallback", explain, rows, [], "none", None, False, "none", False, _route(decision))


def _price_quantity(question: str, g: Any) -> bool:
    """One item answered: the cost of the quantity and duration the question gives, added to its text;
    whether a cost was worked out."""
    if g.intent != "EQUIPMENT_RAG" or not g.grounded or len(g.item_ids) != 1:
        return False
    one = _lead_item(g)
    q = catalog_links.quote(question, one)
    if q is not None:
        g.text += "\n" + q.sentence(one)
    if (converted := catalog_figures.in_unit_asked(question, one)) is not None:
        g.text += "\n" + converted
    return q is not None


def _rows_answer(question: str, g: Any) -> bool:
    """Rows found (rag); none above the threshold, or a port answer to another question: a fallback."""
    found = bool(g.grounded and (bool(g.item_ids) or g.intent == "PORT_LOCATION"))
    if g.intent == "PORT_LOCATION" and not g.ports and not _asks_port_list(question):
        return False  # no port named and no list of ports asked for: the port list would not answer it
    if g.intent == "PORT_LOCATION" and g.ports and not _asks_location(question) and not grounded.asks_proximity(question):
        return False  # a port named, but not its location asked for: its coordinates would not answer it
    return found


def _stock_not_asked(eng: Engine, question: str, decision: router.RouteDecision, g: Any) -> ChatAnswer | None:
    """"Which reefers are on that voyage?": the data's boxes, not the catalog's stock at a port; their rows
    when one query can use the whole question, else declined. None for a question about stock."""
    if g.intent != "EQUIPMENT_AVAILABILITY" or not availability.names_data_rows(question):
        return None
    return _linked_data_answer(eng, question, decision) or _declined(
        decision, "That asks about boxes of the data (on a voyage, a ship or a manifest), not the stock the "
                  "catalog lists at a port, and I cannot tell which rows it means.", "grounded (Part 5)")


def _uncovered(eng: Engine, question: str, decision: router.RouteDecision, g: Any) -> ChatAnswer | None:
    """Rows that say nothing about part of the question ("seafood restaurants near the port") would
    answer another question under a grounded badge: declined, unless the words describe one catalog
    item clearly ("a box that stops condensation"), which then answers."""
    unexplained = coverage.unexplained(question, g.intent, g.item_ids if g.intent == "EQUIPMENT_AVAILABILITY" else None)
    if not unexplained:
        return None
    link = catalog_links.best(question) if g.intent == "EQUIPMENT_AVAILABILITY" else None
    if link is not None and not assistant.named_records(eng, question):
        return _catalog_answer(eng, question, decision, link.item, "a catalog item's description matches the need")
    if g.intent == "PORT_LOCATION" and (rows := _linked_data_answer(eng, question, decision, require_links=False)) is not None:
        return rows  # "which ports lie in the southern hemisphere?": one query over the ports uses every word
    return _declined(decision, f"The {'port' if g.intent == 'PORT_LOCATION' else 'catalog'} rows I have say "
                               f"nothing about {', '.join(repr(w) for w in unexplained[:3])}, so I have no source "
                               "that answers this.", "grounded (Part 5)")


def _port_rows(text: str) -> list[dict[str, Any]]:
    """The SUPPLYCHAIN.PORTS rows a port answer shows: every port whose UN/LOCODE it writes "(CODE)"."""

    known = ports()
    codes = dict.fromkeys(c for c in re.findall(r"\(([A-Z]{5})\)", text) if c in known)
    return [{"table": f"{OWNER}.PORTS", "row": f"{known[c]['name']} ({c})"} for c in codes]


def _asks_location(question: str) -> bool:
    """Where a port is, its coordinates, UN/LOCODE, country or region."""
    return bool(grounded._LOCATION_RE.search(question) or re.search(
        r"\b(?:coordinates?|latitude|longitude|lat|lon|lng|locode|code|country|region|which part of|on the map)\b",
        question, re.I))


def _asks_port_list(question: str) -> bool:
    """"Which ports are in North Europe?", "the ports in China", "list the ports you serve" (not
    "which port is the busiest")."""

    regions = {p["region"].lower() for p in ports().values()}
    q = question.lower()
    return bool(re.search(r"\b(?:list|which|what|all|show)\b[^?]*\bports\b|\bports\b[^?]*\b(?:serve|have|know|exist)\b", q)) \
        or (bool(re.search(r"\bports\b", q)) and any(r in q for r in regions)) \
        or (bool(re.search(r"\bports?\b", q)) and bool(countries.named_in(question) or countries.continents_in(question)))


_RANK = {"fallback": 0, "hybrid": 1, "rag": 2}


_NO_DOCS = object()


def _schema_named(eng: Engine, question: str) -> list[str]:
    """The tables and columns a schema question names: as the schema writes them, else a column named
    in words and linked by its comment; a link between two tables named is read from their keys instead."""
    named = names_written.named_schema_objects(question)
    if named or (_RELATION_RE.search(question) and len(tables_in(question)) >= 2):
        return named
    return assistant.schema_subjects(eng, question)


def _schema_facts_turn(eng: Engine, question: str, vector: Any, named: list[str]) -> gates.GatedTurn:
    """The schema facts retrieved for a question: a table or column it names first, else the
    relationships between the tables it names, the columns whose names share its words, or the
    tables its words name."""
    kind = _asked_kind(question)
    turn = gates.retrieve_turn(eng, question, min_score=0.0, vector=vector,
                               category=None if named or kind is None else kind)
    # "how do I get the ship's name for each position?": the way from one table to the other, first
    if _asks_the_way_between(question):
        return _relationships_between(eng, question, turn, vector)
    if named and kind == "table" and len({n.removeprefix(f"{OWNER}.").split(".")[0] for n in named}) == 1:
        return _the_table_of_the_names(eng, question, turn, vector, named)
    if named:
        return _named_first(eng, turn, named)
    if _RELATION_RE.search(question):
        return _relationships_between(eng, question, turn, vector)
    if kind == "column":
        return _column_words_first(turn)
    if kind == "table":
        return _tables_named_in_words(eng, question, turn, vector)
    return turn


def _knowledge(eng: Engine, question: str, decision: router.RouteDecision, llm, *, vector=None,
               compete: bool = False, docs: Any = _NO_DOCS) -> ChatAnswer:
    """Part 4's modes over the schema facts. A table or column the question names is answered
    from its own fact first. With `compete` (the router could not tell schema facts from
    documents), the better-grounded of the memories' and the documents' answers is used.

    The model writes only the answer that is used: it can only lower a mode (a blank answer
    is a fallback)."""
    if (asked := assistant.without_set_aside(question)) != question:
        question, vector = asked, None  # "weight capacity, not the TEU figure": TEU names no subject
    if vector is None:
        vector = eng.model.embed([check_query(question)])[0]
    named = _schema_named(eng, question)
    turn = _schema_facts_turn(eng, question, vector, named)
    config = gates.ModeConfig.for_engine(eng)
    if docs is _NO_DOCS:
        docs = _documents(eng, question, vector)
    memory_best = max(turn.similarities, default=0.0)

    def documents_win(memory_mode: str) -> bool:
        # a table or column the question names is its subject: its own fact answers, not a passage;
        # what to do ("VGM method 2: what do I have to weigh?") is a procedure's, whatever term it uses
        if compete and docs is not None and docs.mode != "fallback" and _asks_what_to_do(question):
            return True
        return (compete and not named and docs is not None and docs.mode != "fallback"
                and (_RANK[docs.mode], _best(docs)) > (_RANK[memory_mode], memory_best))

    named, turn, a = _gated(eng, question, named, turn, config)
    if llm is not None and not documents_win(a.mode):
        a = gates.answer_turn(turn, config, llm=llm)
    if documents_win(a.mode):
        return _from_documents(eng, docs, decision, llm, compared={"memories": a.mode, "documents": docs.mode},
                               vector=vector)
    if a.mode != "fallback" and (unfit := _row_pointed_or_unfit(eng, question, decision, a.decision.used_chunks)):
        return unfit
    if a.mode != "fallback" and _a_document_states_it(eng, question, docs, a.text, vector):
        # "how big a VGM difference counts as a discrepancy": a column's description holds no amount
        return _from_documents(eng, docs, decision, llm, compared={"memories": a.mode, "documents": docs.mode},
                               vector=vector)
    d = a.decision
    explain = {**d.decision_explain, "handler": "knowledge memories (Part 4)", **_explain(decision)}
    if named:
        explain["named"] = named
    if docs is not None:
        explain["compared"] = {"memories": a.mode, "documents": docs.mode, "document_index": docs.table,
                               "documents_considered": compete}
    used = [{k: c.get(k) for k in ("record_id", "subject", "kind", "similarity")} for c in d.used_chunks]
    return ChatAnswer(a.text, a.mode, explain, d.retrieved_chunks_metadata, used, d.sources_used, None, False,
                      d.used_llm, bool(d.decision_explain.get("short_query_active")), _route(decision))


# a word said as what something is not: "Not the MMSI ...", "never a weight"
_NOT_BEFORE = re.compile(r"\b(?:not|never|no)\b(?:\s+[\w-]+){0,3}\s*$", re.I)


def _said_plainly(eng: Engine, word: str) -> bool:
    """Some comment of the schema uses the word without a "not" before it."""
    schema, _ = assistant.knowledge(eng)
    comments = [c.comment for cols in schema.columns.values() for c in cols] + list(schema.table_comments.values())
    return any(not _NOT_BEFORE.search(text[:m.start()])
               for text in comments for m in re.finditer(rf"\b{re.escape(word)}\b", text, re.I))


_YES_OR_NO = re.compile(r"(?:^|[?.!:;-]\s*|,\s*)(?:is|are|does|do|did|can|could|has|have|was|were)\b", re.I)
_ASKS_WHERE_KEPT = re.compile(r"\bwhere\b|\bwhich (?:column|field|table)\b|\b(?:stored|kept|recorded|hold|holds)\b", re.I)


def _fact_unfit(eng: Engine, question: str, decision: router.RouteDecision, used: list[dict]) -> ChatAnswer | None:
    """The lead fact leaves part of the question unexplained, or says it is not what is asked."""
    return _not_in_column(eng, question, decision, used) or _said_not_to_be(eng, question, decision, used)


def _said_not_to_be(eng: Engine, question: str, decision: router.RouteDecision, used: list[dict]) -> ChatAnswer | None:
    """"Where's the MMSI stored?": the lead fact's comment says its column is not that ("Not the MMSI
    radio id ..."), and no comment of the schema uses the word otherwise: the schema holds no such
    thing. Declined with the comment's own sentence; None otherwise."""
    if not used or not _ASKS_WHERE_KEPT.search(question) or _YES_OR_NO.search(question):
        return None  # "is CAPACITY_TEU in tonnes?", "does it keep a track history?": the comment's "not" answers
    text = str(used[0].get("text") or "")
    word = next((w for w in {w for w in re.findall(r"[A-Za-z][\w-]{2,}", question) if w.isupper() or len(w) >= 6}
                 if _only_denied(text, w) and not _said_plainly(eng, w)), None)
    if word is None:
        return None
    sentence = next(s for s in re.split(r"(?<=[.;])\s+", text) if re.search(rf"\b{re.escape(word)}\b", s, re.I))
    return _declined(decision, f"The schema does not hold the {word}: {used[0].get('subject')} says "
                     f"\u201c{sentence.strip()}\u201d", "knowledge memories (Part 4)")


def _only_denied(text: str, word: str) -> bool:
    """The text uses the word, and only after a "not"."""
    said = list(re.finditer(rf"\b{re.escape(word)}\b", text, re.I))
    return bool(said) and all(_NOT_BEFORE.search(text[:m.start()]) for m in said)


# what a person has to do, not what a column holds; a column written as the schema spells it is the schema's
_WHAT_TO_DO = re.compile(r"\b(?:do|must|should|shall) (?:i|we)\s+(?:\w+\s+)?(?:have to|need to|do)\b|"
                         r"\b(?:i|we) (?:have|need) to\b|\bwhat (?:are the )?steps\b|\bprocedure\b", re.I)


def _asks_what_to_do(question: str) -> bool:
    return _WHAT_TO_DO.search(question) is not None and not re.search(r"\b[A-Z]+_[A-Z_]+\b", question)


def _a_document_states_it(eng: Engine, question: str, docs: Any, answer: str, vector) -> bool:
    """The question asks a measured kind of answer (an amount, a duration, a date) that the schema
    facts' answer does not hold and a sentence of the lead document does."""
    kind = document_reader.asked_kind(question)
    if kind not in ("amount", "duration", "date") or docs is None or docs.mode == "fallback" or _WHERE_KEPT.search(question) \
            or document_reader.HOLDS[kind].search(answer):
        return False
    return _read_documents(eng, docs, vector).sentence is not None


def _gated(eng: Engine, question: str, named: list[str], turn: gates.GatedTurn,
           config: gates.ModeConfig) -> tuple[list[str], gates.GatedTurn, Any]:
    """Part 4's gates over the schema facts. "Where's the verified gross mass stored" falls below them,
    but one column's comment explains every word asked: that column is the subject, as if named."""
    a = gates.answer_turn(turn, config)
    if a.mode == "fallback" and not named and (explained := _explaining_column(eng, question, turn)) is not None:
        named, turn = [explained], _named_first(eng, turn, [explained])
        a = gates.answer_turn(turn, config)
    return named, turn, a


def _explaining_column(eng: Engine, question: str, turn: gates.GatedTurn) -> str | None:
    """For "which column holds X": the nearest of the three columns retrieved first whose name and
    comment explain every word of X (TABLE.COLUMN), or None."""
    if _asked_kind(question) != "column" or not assistant.asked_words(question):
        return None
    for chunk in turn.chunks[:3]:
        parts = chunk.subject.split(".")
        if len(parts) == 3 and not assistant.not_explained_by(eng, question, chunk.subject):
            return ".".join(parts[1:])
    return None


def _not_in_column(eng: Engine, question: str, decision: router.RouteDecision,
                   used: list[dict[str, Any]]) -> ChatAnswer | None:
    """For "which column holds X" (or a question with no wording of any kind the router knows) with no
    table or column written as the schema writes it: declined when the column the answer leads with
    does not explain the words of X ("the seal number": seal); None when it explains them all."""
    shaped = _asked_kind(question) == "column" or not any(decision.cues.values())
    if not shaped or names_written.named_schema_objects(question) or not used:
        return None
    subject = str(used[0].get("subject") or "")
    words = assistant.not_explained_by(eng, question, subject)
    if not words or any(_explained_alone(eng, part, subject) for part in _SAID_APART.split(question)[:-1] + [""]
                        if part):
        return None
    return _declined(decision, f"The closest column I know, {subject}, says nothing about "
                               f"{' or '.join(repr(w) for w in words)}, and no other column of SUPPLYCHAIN records it "
                               "as far as its comments say. " + ASK_BACK, "knowledge memories (Part 4)")


# what a question says apart from what it asks: after a dash, "the one ...", a remark after the question
_SAID_APART = re.compile(r"\s+[-\u2013\u2014]\s+|,\s+(?:the one|i\.e\.|like|e\.g\.)\b|\?\s+", re.I)


def _explained_alone(eng: Engine, part: str, subject: str) -> bool:
    """"The VGM of a box - the verified gross mass the shipper declares": one part of the question says
    what it asks in words the column explains, every one of them (the rest describes it)."""
    if assistant.not_explained_by(eng, part, subject):
        return False
    # what it asks, said in a long word or in capitals ("the VGM of a box")
    return bool(assistant.asked_words(part)) or re.search(r"\b[A-Z]{3,5}\b", part) is not None


# "which field ...", "where is X stored", "where do I find X": where a thing is kept
_WHERE_KEPT = re.compile(r"\b(?:which|what) (?:column|col|field)s?\b|\bwhere (?:do|does|would) (?:\w+ ){0,3}?(?:keep|store|record)\b|"
                         r"\b(?:columns?|fields?)\b.*\b(?:holds?|stores?|has|says?)\b|"
                         r"\bwhere(?: is|'s| are)? .* (?:stored|kept|recorded|held|listed)\b|\bwhich column\b|\bread for\b|"
                         r"\bwhere (?:do|can|would|should) (?:i|we|you) (?:find|see|get|look up|read)\b|"
                         r"\bwhere(?:'s| is) the (?:list|record|register|log)s? of\b", re.I)


def _asked_kind(question: str) -> str | None:
    """'column' for "which column / field ... ", 'table' for "which table / what does the table hold"."""
    if _WHERE_KEPT.search(question):
        # "where are the shipping lines listed?": rows of one table, named by its noun alone, are the table
        return "table" if _rows_of_one_table(question) else "column"
    if _RELATION_RE.search(question):
        return None  # a relationship is its own kind of fact
    if router.CAPACITY_RE.search(question):
        return "column"  # "how many containers can a ship carry": a capacity column
    if _OVERVIEW_RE.search(question):
        return "table"
    if re.search(r"\b(?:which|what) tables?\b|\btables?\b.*\b(?:hold|holds|store|stores|contain\w*)\b|"
                 r"\b(?:is there|do you have|have you got) (?:a|any) tables?\b|"
                 r"\bdescribe the table\b", question, re.I):
        return "table"
    return None


_RELATION_RE = router.RELATION_RE


def _rows_of_one_table(question: str) -> bool:
    """The thing asked where it is kept is a table's rows ("the shipping lines"): one table named, and no
    other word of the question names an attribute of it."""
    m = re.search(r"\bwhere (?:are|is) (?:the |all (?:the )?)?([\w ]{2,30}?) (?:themselves |itself )?(?:listed|stored|kept|held)\b",
                  question, re.I)
    meant = map_words(words_of(m.group(1))) if m else []
    if m is not None:
        return bool(meant) and all(w in TABLE_NOUNS or w == "-" for w in meant) and len(tables_in(m.group(1))) == 1
    # "where do I find what goods are packed inside a container?": the thing looked for is a table's rows,
    # and nothing after it names a column of that table
    found = _FIND_THE.search(question)
    head = map_words([found.group(1)])[0] if found else ""
    if found is None or head not in TABLE_NOUNS:
        return False
    columns = {w for c in TABLES_BY_NAME[TABLE_NOUNS[head]].column_names for w in c.lower().split("_")} - {"id"}
    return not {w for w in words_of(found.group(2)) if w not in TABLE_NOUNS} & columns


_FIND_THE = re.compile(r"\b(?:where (?:do|can|would|should) (?:i|we|you) (?:find|see|look up|get|read)\s+(?:out\s+)?"
                       r"(?:what|which|the|all(?: the)?)|where(?:'s| is) the (?:list|record|register|log)s? of)\s+([a-z]+)\b(.*)$",
                       re.I)


def _path_facts(eng: Engine, a: str, b: str, considered: list[Any]) -> list[Any]:
    """The relationship facts of each foreign key on the schema's path between two tables, in order
    ("a cargo line to its ship": CARGO_ITEMS -> CONTAINERS -> VOYAGES -> VESSELS)."""
    schema, _ = assistant.knowledge(eng)
    path = schema.path(a, b) or schema.path(b, a) or []
    by_subject = {c.subject: c for c in considered if c.kind == "relationship"}
    wanted = [f"{OWNER}.{t}.{col}->{OWNER}.{rt}" for t, col, rt, _ in path]
    return [by_subject[w] for w in wanted if w in by_subject] if all(w in by_subject for w in wanted) else []


def _relationships_between(eng: Engine, question: str, turn: gates.GatedTurn, vector) -> gates.GatedTurn:
    """"Which table links containers to voyages?": the relationship facts between the tables the
    question names (in any words), and only those; the turn as it was when it names fewer than two."""
    tables = tables_in(question)
    if len(tables) < 2:
        return turn
    rel = gates.retrieve_turn(eng, question, min_score=0.0, vector=vector, category="relationship", top_k=20)
    chunks = [c for c in rel.considered if c.kind == "relationship"
              and all(f".{t}" in c.subject for t in tables[:2])][:turn.top_k]
    if not chunks:  # no key between the two: the keys along the schema's path from one to the other
        chunks = _path_facts(eng, tables[0], tables[-1], rel.considered)
    for c in chunks:
        c.status = "kept"
        c.similarity = 1.0  # the relationship between the two tables asked about: named, as close as it gets
    return gates.GatedTurn(query=turn.query, chunks=chunks, query_tokens=turn.query_tokens,
                            context_tokens=sum(c.tokens for c in chunks), min_score=turn.min_score, top_k=turn.top_k,
                            category=("relationship",), considered=rel.considered, tokenizer=turn.tokenizer)


_OVERVIEW_RE = re.compile(r"\b(?:what|which) tables (?:are|exist|does|do)\b|\btables (?:are )?in the schema\b|"
                          r"\blist (?:the |all )?(?:the )?tables\b|\ball (?:the )?tables\b", re.I)


def _asks_the_way_between(question: str) -> bool:
    """How to get from one table to another ("how do I get the ship's name for each position report?")."""
    return router.METHOD_RE.search(question) is not None and len(tables_in(question)) >= 2


def _the_table_of_the_names(eng: Engine, question: str, turn: gates.GatedTurn, vector, named: list[str]) -> gates.GatedTurn:
    """"What table tells me the goods - descriptions, HS codes ...": the table of the columns named, unless the
    question names two tables and its words are one's comment ("the ships' latest AIS positions"); a table written
    as the schema writes it ("the VESSEL_POSITIONS table") is the one asked."""
    held = {n.removeprefix(f"{OWNER}.").split(".")[0] for n in named}
    said = [] if held & {n.removeprefix(f"{OWNER}.") for n in named} else _said_of_one(eng, question, tables_in(question))
    return _tables_named_in_words(eng, question, turn, vector, tables=said if len(said) == 1 else sorted(held))


def _tables_named_in_words(eng: Engine, question: str, turn: gates.GatedTurn, vector,
                           tables: list[str] | None = None) -> gates.GatedTurn:
    """A table question: the tables the question names in words ("one row per manifest line" is
    CARGO_ITEMS), or `tables` when given, only those; every table for "which tables are in the
    schema"; else as retrieved."""
    overview = _OVERVIEW_RE.search(question) is not None and tables is None
    tables = [] if overview else tables if tables is not None else _said_of_one(eng, question, tables_in(question),
                                                                                 any_table=True)
    if not overview and len(tables) != 1:
        return turn
    tables = [_where_it_is_kept(eng, question, tables[0])] if tables else tables
    wide = gates.retrieve_turn(eng, question, min_score=0.0, vector=vector, category="table", top_k=20)
    chunks = [c for c in wide.considered if c.kind == "table" and (overview or c.subject.endswith("." + tables[0]))]
    for c in chunks:
        c.status, c.similarity = "kept", 1.0  # named by the question (or all of them asked for)
    return gates.GatedTurn(query=turn.query, chunks=chunks, query_tokens=turn.query_tokens,
                            context_tokens=sum(c.tokens for c in chunks), min_score=turn.min_score,
                            top_k=max(turn.top_k, len(chunks)), category=("table",), considered=wide.considered,
                            tokenizer=turn.tokenizer)


def _said_of_one(eng: Engine, question: str, tables: list[str], *, any_table: bool = False) -> list[str]:
    """"Which table has the goods packed inside each container?" names two tables; the one whose comment
    says what the question says (most of its words, two at least, more than any other's), each time the
    question names its rows counted too ("what goods are packed in a container": goods twice), is the one asked.
    With `any_table`, every table is a candidate: "a table with the track history of a ship" is the one
    whose comment speaks of track history, not the ships'."""
    schema, _ = assistant.knowledge(eng)
    if any_table:
        tables = list(dict.fromkeys([*tables, *schema.table_comments]))
    if len(tables) < 2:
        return tables
    said = [stem_root(w) for w in words_of(question)]
    asked = set(said) - STOP_WORDS

    def score(table: str) -> int:
        own = sum(1 for w in said if TABLE_NOUNS.get(w) == table)
        return len(asked & {stem_root(w) for w in words_of(schema.table_comments.get(table, ""))}) + own

    shared = sorted(((score(t), t) for t in tables), reverse=True)
    return [shared[0][1]] if shared[0][0] >= 2 and shared[0][0] > shared[1][0] else tables


def _where_it_is_kept(eng: Engine, question: str, table: str) -> str:
    """"Which table says where the ships are?": a place asked of a table that holds none (no port, no
    coordinates) is kept in the one table a key below it that does (the position reports)."""
    schema, _ = assistant.knowledge(eng)
    if not re.search(r"\bwhere\b", question, re.I) or planner.has_place(schema, table):
        return table
    below = [t for t in schema.columns if t != table and len(schema.path(t, table) or []) == 1
             and schema.is_parent_path(t, table) and planner.has_place(schema, t)]
    # where a thing is (not where it goes): the rows with coordinates, when one table below has them
    points = [t for t in below if any(c.name == "LATITUDE" for c in schema.columns[t])]
    return points[0] if len(points) == 1 else below[0] if len(below) == 1 else table


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())}


def _column_words_first(turn: gates.GatedTurn) -> gates.GatedTurn:
    """For "which column ..." questions: when columns the vector search found share an
    attribute word with the question ("arrives" / ARRIVAL_DATE), only those are kept (the
    others name another attribute). Similarities are kept as measured."""
    words = _attribute_stems(turn.query)
    pool = [c for c in turn.considered if c.status in ("kept", "beyond_top_k")]
    tables = {t for t in TABLES_BY_NAME if t[:-1].lower().replace("_", " ")[:5] in turn.query.lower()}
    ranked = sorted(pool, key=lambda c: (_name_overlap(c, words) > 0, _of_tables(c, tables), _described(c, words),
                                         c.similarity), reverse=True)
    if not ranked or _name_overlap(ranked[0], words) == 0:
        return turn
    chunks = _columns_matching(ranked, words, tables)[:turn.top_k]
    for c in pool:
        c.status = "kept" if c in chunks else "beyond_top_k"
    return gates.GatedTurn(query=turn.query, chunks=chunks, query_tokens=turn.query_tokens,
                            context_tokens=sum(c.tokens for c in chunks), min_score=turn.min_score, top_k=turn.top_k,
                            category=turn.category, considered=turn.considered, tokenizer=turn.tokenizer)


def _attribute_stems(query: str) -> set[str]:
    """The question's attribute words only: the tables' own names ("voyage") say where, not which
    column."""
    return _stems(query) - {"colum", "which", "holds", "store", "table", "field", "tells", "where"} \
        - _stems(" ".join(TABLES_BY_NAME).replace("_", " ")) - _stems(" ".join(t[:-1] for t in TABLES_BY_NAME)) \
        - {"ship", "vesse", "shipp", "gives", "holds"}


def _name_overlap(c: gates.RetrievedChunk, words: set[str]) -> int:
    """Question words inside the column's name ("weigh" in DEADWEIGHT_TONNES)."""
    name = c.subject.rsplit(".", 1)[-1].lower()
    return sum(1 for w in words if w in name)


def _of_tables(c: gates.RetrievedChunk, tables: set[str]) -> bool:
    """"A container's weight": the CONTAINERS columns before the others."""
    return c.subject.split(".")[1] in tables if c.subject.count(".") == 2 else False


def _described(c: gates.RetrievedChunk, words: set[str]) -> int:
    """Question words in the column's comment ("four-letter" for SCAC_CODE): a tie-break."""
    return len(words & _stems(c.text.split("Meaning:", 1)[-1]))


def _columns_matching(ranked: list[gates.RetrievedChunk], words: set[str], tables: set[str]) -> list[gates.RetrievedChunk]:
    """The columns whose names share a word with the question (the others name another
    attribute), the best described only, and of the table the question names when any is."""
    chunks = [c for c in ranked if _name_overlap(c, words) > 0]
    if chunks and _described(chunks[0], words) > 0:
        chunks = [c for c in chunks if _described(c, words) == _described(chunks[0], words)]
    if any(_of_tables(c, tables) for c in chunks):
        chunks = [c for c in chunks if _of_tables(c, tables)]
    return chunks


def _named_first(eng: Engine, turn: gates.GatedTurn, named: list[str]) -> gates.GatedTurn:
    """The facts of the tables and columns the question names, first (read from the store by
    subject, so they are there even when the vector search ranked them low)."""
    subjects = []
    for name in named:
        parts = name.split(".")
        if len(parts) == 1 and parts[0] not in TABLES_BY_NAME:  # a column without its table
            subjects += [f"{OWNER}.{t.name}.{parts[0]}" for t in TABLES_BY_NAME.values() if parts[0] in t.column_names]
        else:
            subjects.append(f"{OWNER}.{name}")
    by_subject = {c.subject: c for c in turn.considered}
    front = []
    for subject in subjects:
        chunk = by_subject.get(subject) or _fact_chunk(eng, subject)
        if chunk is not None:
            chunk.similarity = max(chunk.similarity, 1.0)  # named outright: as close as a match can be
            chunk.status = "kept"
            front.append(chunk)
    rest = [c for c in turn.chunks if c.subject not in subjects]
    chunks = (front + rest)[:max(turn.top_k, len(front))]
    return gates.GatedTurn(query=turn.query, chunks=chunks, query_tokens=turn.query_tokens,
                            context_tokens=sum(c.tokens for c in chunks), min_score=turn.min_score, top_k=turn.top_k,
                            category=turn.category, considered=front + [c for c in turn.considered if c not in front],
                            tokenizer=turn.tokenizer)


def _fact_chunk(eng: Engine, subject: str):
    """The stored schema fact of one subject, as a retrieved chunk (None when it was never scanned)."""
    for h in retrieval.keyword_search_memories(eng, subject.split(".")[-1], k=20):
        if h.get("subject") == subject:
            count, _ = gates.token_counter(eng)
            return gates.RetrievedChunk(record_id=h.get("record_id") or subject,
                                        kind=h.get("kind") or "column", subject=subject, text=h["content"],
                                        similarity=1.0, metadata={"kind": h.get("kind"), "subject": subject},
                                        tokens=count(h["content"]))
    return None


def _documents_only(eng: Engine, question: str, decision: router.RouteDecision, llm, docs, vector=None) -> ChatAnswer:
    """A document question: the documents answer it, or nothing does (schema facts are not asked).
    Passages about another port or carrier than the one named do not answer it."""
    if docs is None:
        return _declined(decision, "That is a question for the documents (port notices, carrier guides, procedures), "
                         "and no document index is promoted yet (Part 8, or `workshop ingest --profile v2 --promote`).",
                         "documents (Part 8)")
    if docs.mode != "fallback":
        named = _named_entities(eng, question, decision)
        lead = docs.decision.used_chunks[0] if docs.decision.used_chunks else {}
        if named and not _mentions(eng, docs, lead.get("subject"), named, vector):
            # the lead document never names the port or carrier asked about: the nearest document that
            # does, read for the sentence that answers, or nothing
            other = _document_naming(eng, docs, named, vector)
            if other is not None:
                return other_document_answer(eng, docs, decision, other, named)
            return _declined(decision, f"The closest document ({lead.get('subject')}) is not about "
                             f"{' / '.join(sorted(named))}, so the documents do not answer this.", "documents (Part 8)")
    return _from_documents(eng, docs, decision, llm, compared={"documents": docs.mode}, vector=vector)


def _nearest_passages(eng: Engine, docs, vector, k: int = 40) -> list[dict[str, Any]]:
    return [{"subject": str(h["doc_id"]), "text": str(h["text"]), "similarity": h.get("similarity"),
             "chunk_no": h["chunk_no"]} for h in index.search(eng, docs.question, k, vector=vector)]


def _said_in(named: set[str], text: str) -> bool:
    t = text.lower().replace("-", " ")
    return any(n in t for n in named)


def _mentions(eng: Engine, docs, subject: str | None, named: set[str], vector) -> bool:
    """The document names the port or carrier in its id or in any of its passages near the question."""
    if subject is None:
        return False
    texts = [subject] + [p["text"] for p in _document_passages(eng, subject)]
    texts += [c.get("text", "") for c in docs.decision.used_chunks if c.get("subject") == subject]
    return any(_said_in(named, t) for t in texts)


def _document_naming(eng: Engine, docs, named: set[str], vector) -> list[dict] | None:
    """The passages (nearest first) of the nearest document that names the port or carrier asked about."""
    passages = _nearest_passages(eng, docs, vector)
    doc = next((p["subject"] for p in passages if _said_in(named, f"{p['subject']} {p['text']}")), None)
    if doc is None:
        return None
    near = [p for p in passages if p["subject"] == doc]
    return near + [{**p, "similarity": near[0].get("similarity")} for p in _document_passages(eng, doc)]


def other_document_answer(eng: Engine, docs, decision: router.RouteDecision, passages: list[dict],
                          named: set[str]) -> ChatAnswer:
    """An answer from a document other than the gates' lead: only its answering sentence, under a
    hybrid badge (the passage is nearer the named port or carrier than to the question as a whole),
    and only when that sentence shares two words with the question besides the names."""
    reading = document_reader.read(docs.question, _whole_first(passages))
    names = {w for n in named for w in document_reader._stems(n)}
    shared = (document_reader._stems(docs.question) & document_reader._stems(reading.sentence or "")) - names
    if reading.sentence is None or len(shared) < 2:
        return _declined(decision, f"The documents that name what you ask about ({reading.subject}) do not state "
                         "an answer to it, so I will not guess.", "documents (Part 8)")
    return _one_sentence(reading, passages, decision, "the lead document does not name what the question is "
                                                       "about; the nearest document that does answers")


def _one_sentence(reading: Any, passages: list[dict], decision: router.RouteDecision, reason: str) -> ChatAnswer:
    """One quoted sentence of a document, under hybrid (read without the gates' full say)."""
    text = f"According to {reading.subject}: \u201c{reading.sentence}\u201d"
    used = [{"subject": reading.subject, "similarity": passages[0].get("similarity")}]
    explain = _explain(decision, mode="hybrid", handler="documents (Part 8)", reason=reason, used_llm="none",
                       short_query_active=False)
    return ChatAnswer(text, "hybrid", explain, used, used, "partial", None, False, "none", False, _route(decision))


_TIME_STEMS = frozenset(document_reader._stems("day days hour hours week weeks month months minute minutes year years"))


def _read_nearest(eng: Engine, question: str, decision: router.RouteDecision, docs, vector) -> ChatAnswer | None:
    """When every handler fell back: the nearest document, read for a sentence that holds the kind of
    answer asked (an amount, a duration, a date, a number...) and shares with the question a word the
    schema's comments never use. Such a word says the question is about what the documents hold
    ("concealed damage", "diversion"), not about the rows; a record the question names that the
    document never writes ("voyage 1011") says the same of the data. Hybrid: one sentence, no gate."""
    passages = _nearest_passages(eng, docs, vector)
    if not passages:
        return None
    lead = passages[0]["subject"]
    reading = document_reader.read(docs.question, _whole_first(
        [p for p in passages if p["subject"] == lead] + _document_passages(eng, lead)))
    if reading.kind is None or reading.sentence is None:
        return None
    named = _named_entities(eng, question, decision) | {str(lk.value).lower() for lk in assistant.named_records(eng, question)}
    if named and not _mentions(eng, docs, lead, named, vector):
        return None
    names = {w for n in named for w in document_reader._stems(n)}
    # (the words of a duration asked, "how many days", say what kind of answer, not what it is about)
    shared = (document_reader._stems(docs.question) & document_reader._stems(reading.sentence)) - names - \
        (_TIME_STEMS if reading.kind == "duration" else frozenset())
    if len(shared) < 2 or not shared - schema_words(eng):
        return None
    return _one_sentence(reading, passages, decision, f"no handler answered; the nearest document states the "
                                                       f"{reading.kind} asked, in a sentence sharing "
                                                       f"{', '.join(sorted(shared))} with the question")


def schema_words(eng: Engine) -> frozenset[str]:
    """The words (as the reader compares them) of every table and column name and comment."""
    return _words_of_text(assistant.knowledge(eng)[0].all_text)


@functools.lru_cache(maxsize=4)
def _words_of_text(text: str) -> frozenset[str]:
    return frozenset(document_reader._stems(text))


def _read_documents(eng: Engine, docs, vector=None) -> Any:
    """The sentence that answers, from the lead document's passages: those the gates used, then the
    other passages of that document among the forty nearest the question."""
    passages = _identified_first(docs.question, list(docs.decision.used_chunks))
    if passages:
        passages += _document_passages(eng, passages[0].get("subject"))
    return document_reader.read(docs.question, _whole_first(passages))


def _identified_first(question: str, passages: list[dict]) -> list[dict]:
    """"The incident report on the reefer failure on voyage 1042": a number or code of the question that
    the passages of one document only write says which document it is; its passages lead."""
    codes = {c.lower() for c in re.findall(r"(?<![\w-])[\w-]*\d{3,}[\w-]*", question)}
    holders = {p.get("subject") for p in passages if codes & {w.lower() for w in re.findall(r"[\w-]+", str(p.get("text") or ""))}}
    if len(holders) != 1:
        return passages
    lead = next(iter(holders))
    return [p for p in passages if p.get("subject") == lead] + [p for p in passages if p.get("subject") != lead]


def _document_passages(eng: Engine, doc_id: str | None) -> list[dict]:
    """Every chunk of one document of the active index, in order, as reader passages."""
    if doc_id is None:
        return []
    return [{"subject": doc_id, "text": c["text"], "chunk_no": c["chunk_no"]} for c in index.document(eng, doc_id)]


def _whole_first(passages: list[dict]) -> list[dict]:
    """The lead document's retrieved chunks joined in document order, first: a table cut between two
    chunks is read again with its headings."""
    if not passages:
        return passages
    lead = passages[0].get("subject")
    chunks = sorted({p["chunk_no"]: str(p["text"]) for p in passages
                     if p.get("subject") == lead and "chunk_no" in p}.items())
    whole, last = "", None
    for no, text in chunks:
        # consecutive chunks are overlapping windows: the longest end of one that starts the next
        shared = 0
        if last is not None and no == last + 1:
            shared = next((k for k in range(min(len(whole), len(text)), 7, -1) if whole.endswith(text[:k])), 0)
        whole = whole + text[shared:] if shared else (whole + "\n" + text if whole else text)
        last = no
    return [{"subject": lead, "text": whole}, *passages] if chunks else passages


def _records_named(eng: Engine, question: str) -> list[Any]:

    return [lk for lk in assistant.named_records(eng, question) if lk.column != "id"]


def _named_entities(eng: Engine, question: str, decision: router.RouteDecision) -> set[str]:
    """Ports (names and codes) and carriers the question names, lower case, hyphens as spaces."""
    known = ports()
    out = set()
    for code in decision.ports:
        names = [known[code]["name"], *re.split(r"[/()\-]", known[code]["name"])] if code in known else []
        out |= {code.lower()} | {n.strip().lower().replace("-", " ") for n in names if len(n.strip()) > 3}
    out |= {c.lower().replace("-", " ") for c in router._names_in(question, router._entity_names()["carriers"])}
    out |= {str(lk.value).lower().replace("-", " ") for lk in _records_named(eng, question)}  # vessels, voyages
    return out


def _documents(eng: Engine, question: str, vector):
    """Part 8's answer over the active document index, or None when none is promoted."""
    try:
        return ask.ask(eng, question, vector=vector)
    except index.NoActiveIndex:
        return None


def _best(docs) -> float:
    return max((h["similarity"] for h in docs.hits), default=0.0)


# what the ingest sanitiser (Part 8) writes in place of a person's bank, card, phone or e-mail details
_PRIVATE_HELD = re.compile(r"\[(?:" + "|".join(k for k in sanitize.PERSONAL if k != "PERSON") + r")\]")


def _not_answered_by(reading: Any, docs, decision: router.RouteDecision) -> ChatAnswer | None:
    """The gates passed, but the lead document's sentences do not answer: none holds the kind asked,
    or the one sharing most words with the question shares too few of them; else None."""
    if reading.withheld:
        # "Yours sincerely, [PERSON], Claims Handler": the document names them, the ingest withheld the name
        return _declined(decision, f"The passage of {reading.subject} that answers this names the person, but their "
                         "name is withheld in the documents as indexed (Part 8 removes personal names), so I "
                         "cannot tell you who it is.", "documents (Part 8)")
    if reading.kind is not None and reading.sentence is None:
        return _declined(decision, f"The closest document ({reading.subject}) does not state the {reading.kind} "
                         "you ask for, so I will not guess it from its passages.", "documents (Part 8)")
    if reading.kind is None and reading.sentence and _PRIVATE_HELD.search(reading.sentence):
        # the sentence that answers holds what the ingest sanitiser redacted, and the question asks for no
        # other kind of answer (a party, a date): it asks for those details
        return _declined(decision, f"The passage of {reading.subject} that answers this holds a person's private "
                         "details (bank, card, phone or e-mail), which I do not give out.", "documents (Part 8)")
    shared = document_reader._stems(docs.question) & document_reader._stems(reading.sentence or "")
    if reading.kind is None and not _topic_named(docs, shared) and len(shared) < _words_to_share(docs.question,
                                                                                                   reading.subject):
        # the sentence shares too few words with the question: it resembles the question, it does not answer it
        return _declined(decision, f"The closest document ({reading.subject}) has no passage about what you ask, "
                         "so I will not answer from it.", "documents (Part 8)")
    return None


def _topic_named(docs: Any, shared: set[str]) -> bool:
    """An acronym or a code of the question ("VGM", "CL-2025-0533") in the sentence, or a code in the
    passages used: the question names what the document is about."""
    said = re.findall(r"\b(?:[A-Z]{2,}\w*|\w*\d[\w-]*)\b", docs.question)
    passages = " ".join(str(c.get("text", "")) for c in docs.decision.used_chunks)
    return bool(shared & document_reader._stems(" ".join(said))) or \
        any(re.search(r"\d", w) and len(w) >= 5 and w in passages for w in said)


def _words_to_share(question: str, subject: str) -> int:
    """How many words the answering sentence must share with the question: two in the same language
    ("welche Spalte ... Schiffs" and a strike notice's "Schiffe" share one, by chance), one across
    languages (an English question about a German notice shares only its names)."""
    foreign_question = router.FOREIGN_RE.search(question) is not None
    foreign_document = _document_languages().get(subject, "en") != "en"
    return 1 if foreign_question != foreign_document else 2


@functools.lru_cache(maxsize=1)
def _document_languages() -> dict[str, str]:
    """Document id -> its language, from the corpus manifest (Part 8's reader)."""
    return {e.doc_id: e.lang or "en" for e in manifest.read(corpus.MANIFEST, skip_bad=True).entries}


# a reference a document may write: letters, then at least three digits ("CL-2025-0533", "HLB-2290417")
_REFERENCE = re.compile(r"\b[A-Z]{2,}-?(?=(?:[\w-]*\d){3})[\w-]*\d\b")


_EVERY_PASSAGE = 1000  # the document index's largest k (parts/ingest/index.py)


def _where_the_code_is(eng: Engine, docs, decision: router.RouteDecision, vector) -> ChatAnswer | None:
    """"In claim CL-2025-0533, at which port ...": passages that do not write the reference the question
    names answer another document's question. The nearest document that writes it answers (one sentence),
    else the documents do not; None when the question names none or the passages used write it."""
    codes = [c for c in _REFERENCE.findall(docs.question)]
    used = " ".join(str(c.get("text", "")) + str(c.get("subject", "")) for c in docs.decision.used_chunks)
    missing = [c for c in codes if c.lower() not in used.lower()]
    if not missing:
        return None
    # (every passage is read: the search is a full scan, and a reference is not a meaning to be near)
    passages = _nearest_passages(eng, docs, vector, k=_EVERY_PASSAGE)
    doc = next((p["subject"] for p in passages if missing[0].lower() in p["text"].lower()), None)
    if doc is None:
        return _declined(decision, f"No document I have mentions {missing[0]}, so the documents do not answer this.",
                         "documents (Part 8)")
    near = [p for p in passages if p["subject"] == doc]
    return other_document_answer(eng, docs, decision, near + [{**p, "similarity": near[0].get("similarity")}
                                                                for p in _document_passages(eng, doc)], set(missing))


def _from_documents(eng: Engine, docs, decision: router.RouteDecision, llm, compared: dict,
                    vector=None) -> ChatAnswer:
    d = docs.decision
    text = ask.render(docs)
    used_llm = "none"
    quoted = None
    if llm is None and d.mode != "fallback" and (elsewhere := _where_the_code_is(eng, docs, decision, vector)) is not None:
        return elsewhere
    if llm is None and d.mode != "fallback":
        reading = _read_documents(eng, docs, vector)
        if (unread := _not_answered_by(reading, docs, decision)) is not None:
            return unread
        if reading.sentence is not None:
            text = f"According to {reading.subject}: \u201c{reading.sentence}\u201d\n\n" + text
            quoted = reading.subject
    if llm is not None:
        try:
            text = llm.answer_from_context(docs.question, [c["text"] for c in d.used_chunks]) or text
            used_llm = "primary"
        except Exception:  # noqa: BLE001 - any model failure means the deterministic text answers
            pass
    explain = {**d.decision_explain, "handler": "documents (Part 8)", "document_index": docs.table,
               **_explain(decision), "compared": compared, "used_llm": used_llm}
    used = [{k: c.get(k) for k in ("record_id", "subject", "similarity")} for c in d.used_chunks]
    # the document quoted is the first source, whatever passage scored higher
    used.sort(key=lambda c: c.get("subject") != quoted)
    return ChatAnswer(text, d.mode, explain, d.retrieved_chunks_metadata, used, d.sources_used, None, False, used_llm,
                      bool(d.decision_explain.get("short_query_active")), _route(decision))


def agent_answer(eng: Engine, question: str, thread_id: str, *, llm=None) -> ChatAnswer:
    """Part 6's agent: one turn with its tools and memory (it logs the thread messages itself).

    Mode: rag when its answer came from tool results, hybrid when it had to be forced after
    the iteration cap or budget, fallback when no tool call succeeded."""

    decision = router.route(eng, check_query(question))
    not_run = _answered_without_agent(eng, question, thread_id, decision, llm)
    if not_run is not None:
        return not_run
    # Memory over time: the write path, the budgeted card and the summary fold around Part 6's loop.
    model = llm or with_memory.memory_llm(eng.supplychain.data_dictionary(OWNER))
    mt = with_memory.memory_turn(eng, model, toolbox.build_registry(eng, thread_id=thread_id), thread_id, question,
                                 extract_llm=llm, summary_llm=llm)  # with a model: its extraction and summary
    turn, card = mt.turn, mt.card
    succeeded = [r for r in turn.tool_results if r.ok]
    declined = llm is None and turn.answer.startswith(offline.NEEDS_MODEL)  # the planner said it cannot answer
    mode = "fallback" if not succeeded or declined else ("hybrid" if turn.forced else "rag")
    calls = [{"tool": r.name, "call_id": r.call_id, "ok": r.ok} for r in turn.tool_results]
    explain = {"mode": mode, "handler": "agent (Part 6)", "model": model.model, "tool_calls": calls,
               "model_calls": turn.model_calls, "stopped": turn.stopped, "forced_answer": turn.forced,
               "context_tokens": card.tokens, "corrections_in_context": len(card.corrections)}
    return ChatAnswer(answer=turn.answer, mode=mode, decision_explain=explain, retrieved_chunks_metadata=calls,
                      used_chunks=[c for c in calls if c["ok"]], sources_used="all" if succeeded else "none",
                      embedding_cache_hit=None, from_cache=False, used_llm="primary" if llm else "none",
                      route={"intent": "AGENT", "method": "request flag"})


def _answered_without_agent(eng: Engine, question: str, thread_id: str, decision: router.RouteDecision,
                            llm) -> ChatAnswer | None:
    """The answer given before the agent runs, logged to the thread: a question refused or declined,
    or one a handler with a catalog, port or document tool answers; None when the agent runs."""
    if decision.label == router.OUT and not decision.unsure:
        # refused or declined before any tool runs, whatever the model: another user's data, new
        # rules, a write statement, or a question outside the workshop's data
        text = refusal_text(decision)
        memory.log_message(eng, thread_id, "user", question)
        memory.log_message(eng, thread_id, "assistant", text)
        refused = _declined(decision, text, "agent (Part 6): declined before the turn")
        refused.route = {"intent": "AGENT", "method": "request flag", "label": router.OUT}
        return refused
    if decision.label in GROUNDED_INTENTS + (router.DOCS,) and not decision.unsure:
        # the agent has no catalog, port or document tool: the handler that has them answers
        handled = answer_question(eng, question, llm=llm)
        memory.log_message(eng, thread_id, "user", question)
        memory.log_message(eng, thread_id, "assistant", handled.answer)
        handled.decision_explain["agent"] = f"not run: {decision.label} is answered by {handled.decision_explain['handler']}"
        return handled
    return None

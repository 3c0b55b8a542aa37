"""Part 5: grounded answers that never invent a catalog item.

The path for one question:

    route(question)            -> EQUIPMENT_RAG | PORT_LOCATION | EQUIPMENT_AVAILABILITY | GENERAL_CONVERSATION
    match_catalog(eng, q)      -> embed once (embedding cache), vector match above a threshold,
                                  up to k CatalogMatch rows (+ closest alternatives below it)
    grounding_context(rows)    -> name, description, price, availability, similarity per row
    select_with_llm(...)       -> optional: a model picks ids; validate_selection checks them
    render_grounded_answer(..) -> the answer text, written from the rows, never by the model

Every model failure (malformed JSON, unknown id, timeout, a tool-schema artifact
instead of an answer, skipping the tool) falls back to the deterministic answer
rendered from the same rows. `ask` ties it together and keeps two caches in the
database: embeddings keyed on (text, model), responses keyed on
model + persona + normalized query.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from workshop_lib.core.arguments import check_k, check_query
from workshop_lib.core.llm import ChatModel, LLMError, LLMTimeout
from workshop_lib.data import catalog, countries
from workshop_lib.engines.dbtypes import Row
from workshop_lib.engines.rows import (
    CatalogMatchRow,
    CountRow,
    EmbeddingRow,
    PortRow,
    PortUnitsRow,
    ResponseRow,
    first_as,
    row_as,
    rows_as,
)
from workshop_lib.errors import WorkshopError

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

INTENTS = ("EQUIPMENT_RAG", "PORT_LOCATION", "EQUIPMENT_AVAILABILITY", "GENERAL_CONVERSATION")
INTENT_HELP = {
    "EQUIPMENT_RAG": "which container equipment or shipping service fits a need, and its price",
    "PORT_LOCATION": "where a port is, its UN/LOCODE, region or coordinates, or which ports exist",
    "EQUIPMENT_AVAILABILITY": "whether an item is available (in stock, how many units) at a port",
    "GENERAL_CONVERSATION": "greetings, thanks and anything else",
}
DEFAULT_K = 3
DEFAULT_PERSONA = "supplychain_desk"
PERSONAS = {
    "supplychain_desk": "You are the equipment desk of a container shipping company. Be brief and factual.",
    "friendly": "You are a friendly shipping assistant. Be warm but brief.",
}
SELECT_TOOL = "select_items"
SEARCH_TOOL = "search_catalog"
SELECTION_TIMEOUT_S = 8.0
AVAILABILITY_MARGIN = 0.10  # availability answers cover rows within this similarity of the best one
AVAILABILITY_EXTRA_FLOOR = 0.15  # an availability answer for an item not named needs a match this much above the floor
MAX_CACHED_QUERY_BYTES = 4000  # fits the caches' VARCHAR2(4000) columns on Oracle
# Routing reads at most this much of a question: a route is decided by its first words, and
# the patterns then cost linear time however long the input (no question is this long).
MAX_ROUTE_CHARS = 2000
QUESTION_HINT = "ask about a container, a service or a port"
MAX_MODEL_JSON_CHARS = 100_000  # longer model output is not a label or a selection


# ============================================================================ routing
@dataclass
class Route:
    intent: str
    method: str                      # rules | llm | rules (llm failed: ...)
    ports: list[str] = field(default_factory=list)   # UN/LOCODEs named in the question
    reason: str = ""


_PORT_ALIASES = {
    "dubai": "AEJEA", "jebel ali": "AEJEA", "antwerp": "BEANR", "bruges": "BEANR", "ningbo": "CNNGB",
    "zhoushan": "CNNGB", "new york": "USNYC", "new jersey": "USNYC", "tangier": "MAPTM", "tanger": "MAPTM",
}
_EQUIPMENT_WORDS = (
    r"containers?|boxe?s?|reefers?|refrigerated|frozen|chilled|cold|temperature|flat ?racks?|open ?tops?|"
    r"high ?cubes?|hc|iso ?tanks?|tanks?|liquids?|bulk|ventilated|gensets?|generators?|lease|leasing|rent|"
    r"rental|hire|insur\w*|customs|brokerage|broker|clearance|drayage|truck\w*|haul\w*|transload\w*|"
    r"cross-?dock\w*|monitor\w*|telemetry|inspection|pti|dangerous|hazardous|imdg|lashing|securing|"
    r"equipment|services?|price|prices|cost|costs|quote|rates?|oversized|out-of-gauge|machinery|"
    r"20'|40'|45'|20ft|40ft|45ft|twenty-foot|forty-foot|\d{2}\s?(?:foot|feet|ft)"
)
_EQUIPMENT_RE = re.compile(rf"\b(?:{_EQUIPMENT_WORDS})(?=\W|$)|\d{{2}}'", re.I)
_AVAILABILITY_RE = re.compile(
    r"\b(?:availab\w*|in stock|stock|units? (?:left|ready)|how many [^.?!\n]{0,80}? (?:at|in)|do you have|"
    r"is there an?y?|are there any|can i (?:get|pick up|rent|lease|hire|book)|where can i (?:get|find|rent|lease|pick up|hire))\b",
    re.I,
)
_LOCATION_RE = re.compile(
    r"\b(?:where(?:'s| is| are)?|located|location|coordinates?|latitude|longitude|map|un/?locode|locode|"
    r"which ports?|what ports?|list (?:the |all )?ports|ports? (?:in|near|of)|nearest port|how far)\b",
    re.I,
)
_COMMERCE_RE = re.compile(
    r"\b(?:sell|selling|buy|purchase|order|offer|need|looking for|want to (?:ship|send|move|transport)|"
    r"ship(?:ping)? (?:my|our|a|some)|carry|transport)\b", re.I)
_GREETING_RE = re.compile(r"^\s*(?:hi|hello|hey|thanks?|thank you|good (?:morning|afternoon|evening)|bye)\b", re.I)


def find_ports(text: str) -> list[str]:
    """UN/LOCODEs of the SUPPLYCHAIN ports a text names (by code, by name or part of it, or an alias)."""
    if not isinstance(text, str):
        return []
    known = catalog.ports()
    lower = text.lower()
    found = [t.upper() for t in re.findall(r"\b[A-Za-z]{5}\b", text) if t.upper() in known]
    for code, names in _port_names().items():
        if any(n in lower and re.search(rf"\b{re.escape(n)}\b", lower) for n in names):  # `in` first: fast
            found.append(code)
    for alias, code in _PORT_ALIASES.items():
        if alias in lower and re.search(rf"\b{re.escape(alias)}\b", lower):
            found.append(code)
    found += [code for initials, code in _port_initials().items()
              if initials in text and re.search(rf"\b{initials}\b", text)]
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=1)
def _port_names() -> dict[str, set[str]]:
    """Each port's name and the parts of it longer than three letters ("Tanger Med" -> "tanger"), lower case."""
    return {code: {port["name"].lower()} | {p.strip().lower() for p in re.split(r"[/()\-]", port["name"])
                                            if len(p.strip()) > 3}
            for code, port in catalog.ports().items()}


@functools.lru_cache(maxsize=1)
def _port_initials() -> dict[str, str]:
    """A port of two or more words by its initials in capitals ("LA" Los Angeles, "NY" New York), when
    no other port has the same."""
    seen: dict[str, list[str]] = {}
    for code, port in catalog.ports().items():
        for part in re.split(r"[/()]", port["name"]):
            words = part.split()
            if len(words) >= 2 and all(w.isalpha() for w in words):  # "Ningbo-Zhoushan" has no initials
                seen.setdefault("".join(w[0].upper() for w in words), []).append(code)
    return {initials: codes[0] for initials, codes in seen.items() if len(set(codes)) == 1}


def mentions_equipment(text: str) -> bool:
    return bool(_EQUIPMENT_RE.search(text or ""))


def classify_rules(question: str) -> Route:
    """The fast deterministic router: patterns and port names, no model."""
    if not isinstance(question, str) or not question.strip():
        return Route("GENERAL_CONVERSATION", "rules", [], "empty question")
    question = question[:MAX_ROUTE_CHARS]
    ports = find_ports(question)
    equipment = mentions_equipment(question)
    found = _availability_or_location_route(question, ports, equipment)
    return found if found is not None else _topic_route(question, ports, equipment)


def _availability_or_location_route(question: str, ports: list[str], equipment: bool) -> Route | None:
    """The rules that need availability or location wording; None when none of them fires."""
    if _AVAILABILITY_RE.search(question) and (equipment or ports):
        return Route("EQUIPMENT_AVAILABILITY", "rules", ports,
                     "asks about availability" + (f" at {', '.join(ports)}" if ports else ""))
    if ports and equipment and re.search(r"\b(?:at|in|from)\b", question, re.I) and not _LOCATION_RE.search(question):
        return Route("EQUIPMENT_AVAILABILITY", "rules", ports, "names equipment and a port")
    if _LOCATION_RE.search(question) and (ports or re.search(r"\bports?\b", question, re.I)) and not equipment:
        return Route("PORT_LOCATION", "rules", ports, "asks where a port is or which ports exist")
    return None


def _topic_route(question: str, ports: list[str], equipment: bool) -> Route:
    """The rules on what the question is about: equipment, buying, a port, or none of those."""
    if equipment:
        return Route("EQUIPMENT_RAG", "rules", ports, "mentions equipment, services or prices")
    if _COMMERCE_RE.search(question):
        return Route("EQUIPMENT_RAG", "rules", ports, "asks for something to buy, lease or ship")
    if ports and not _GREETING_RE.search(question):
        return Route("PORT_LOCATION", "rules", ports, "names a port")
    return Route("GENERAL_CONVERSATION", "rules", ports, "no equipment, availability or port cue")


def classify_llm(llm: ChatModel, question: str, *, timeout: float = SELECTION_TIMEOUT_S) -> Route:
    """Ask the model for one label; any failure or unknown label falls back to the rules."""
    rules = classify_rules(question)
    labels = "\n".join(f"- {k}: {v}" for k, v in INTENT_HELP.items())
    try:
        text = llm.complete(
            "Classify the user's message for a container shipping desk. Reply with exactly one label "
            f"from this list and nothing else:\n{labels}",
            question, timeout=timeout,
        )
    except Exception as exc:  # noqa: BLE001
        return Route(rules.intent, f"rules (llm failed: {type(exc).__name__})", rules.ports, rules.reason)
    label = _parse_label(text)
    if label is None:
        return Route(rules.intent, f"rules (llm returned {text.strip()[:40]!r})", rules.ports, rules.reason)
    return Route(label, "llm", rules.ports, "model label")


def _loads_model_json(text: Any) -> Any:
    """json.loads for model output: too long or too deeply nested is malformed (ValueError),
    not a RecursionError."""
    if isinstance(text, str) and len(text) > MAX_MODEL_JSON_CHARS:
        raise json.JSONDecodeError("model output too long", text[:40], 0)
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("model output nested too deeply", str(text)[:40], 0) from None


def _parse_label(text: Any) -> str | None:
    if not isinstance(text, str) or len(text) > MAX_MODEL_JSON_CHARS:
        return None
    body = text.strip()
    try:
        value = _loads_model_json(body)
        if isinstance(value, dict):
            body = str(value.get("intent", value.get("label", "")))
        elif isinstance(value, str):
            body = value
    except (json.JSONDecodeError, TypeError):
        pass
    body = re.sub(r"[^A-Z_]", "", body.strip().upper().replace(" ", "_"))
    return body if body in INTENTS else None


def route(question: str, llm: ChatModel | None = None) -> Route:
    return classify_llm(llm, question) if llm is not None else classify_rules(question)


# ============================================================================ retrieval
@dataclass(frozen=True)
class CatalogMatch:
    """One catalog row as the vector match returned it."""

    item_id: str
    name: str
    category: str
    description: str
    price_usd: float
    price_unit: str
    availability: dict[str, int | None]
    similarity: float

    def price_text(self) -> str:
        return f"USD {self.price_usd:,.2f} {self.price_unit}"

    def availability_text(self, only: Sequence[str] | None = None) -> str:
        names = catalog.ports()
        codes = [c for c in self.availability if only is None or c in only]
        if not codes:
            return "not available at " + ", ".join(_port_label(c) for c in only) if only else "no ports"
        if self.category == "service":
            return "offered at " + ", ".join(_port_label(c) for c in codes) if len(codes) < len(names) \
                else "offered at every port we serve"
        return "; ".join(f"{_port_label(c)}: {self.availability[c]} units" for c in codes)


@dataclass
class MatchResult:
    question: str
    matches: list[CatalogMatch]
    alternatives: list[CatalogMatch]   # closest rows below the threshold (only when nothing matched)
    min_similarity: float
    k: int
    embedding_cache_hit: bool


def _port_label(code: str) -> str:
    port = catalog.ports().get(code)
    return f"{port['name']} ({code})" if port else code


def normalize_query(text: str) -> str:
    """Lower case, Unicode-normalized, single spaces, no trailing punctuation."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"\s+", " ", text).strip().rstrip("?!. ")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _floats(value: Any) -> list[float]:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(value), dtype=np.float32).astype(float).tolist()
    return [float(x) for x in value]


def embed_question(eng: Engine, text: str) -> tuple[list[float] | None, bool]:
    """The question's vector, from the embedding cache when it is there. (vector, cache_hit)"""
    sql = eng.statements.catalog
    key = {"h": _sha(text), "m": eng.model.name}
    cached = first_as(EmbeddingRow, eng.query(sql.EMB_CACHE_GET, key))
    if cached is not None:
        return _floats(cached.embedding), True
    raw = row_as(EmbeddingRow, eng.query(sql.EMBED_TEXT, {"txt": text})[0]).embedding  # embedded by the database's model
    if raw is None:  # no direction (e.g. only control characters): nothing to compare or cache
        return None, False
    vector = _floats(raw)
    if len(text.encode("utf-8")) <= MAX_CACHED_QUERY_BYTES:  # the cache keeps questions, not documents
        with eng.transaction() as cur:
            cur.execute(sql.EMB_CACHE_PUT, {**key, "txt": text, "vec": eng.backend.vector_param(vector)})
            _record_writer(eng, cur, "embedding", key["h"])
    return vector, False


def _record_writer(eng: Engine, cur: Any, cache: str, key: str) -> None:
    """The caches are shared (keyed by the question); erasing a user deletes the rows written for them."""
    cur.execute(eng.statements.catalog.CACHE_WRITER_PUT, {"c": cache, "cache_key": key, "u": eng.user_id or "-"})


def catalog_min_similarity(eng: Engine) -> float:
    return float(eng.model.thresholds.catalog_min_similarity)  # per engine, in config.THRESHOLDS


def _availability(eng: Engine, item_id: str) -> dict[str, int | None]:
    """Units per port of one catalog item (None: the port offers it without a count)."""
    rows = rows_as(PortUnitsRow, eng.query(eng.statements.catalog.AVAILABILITY_OF_ITEM, {"item_id": item_id}))
    return {r.unlocode: None if r.units_available is None else int(r.units_available) for r in rows}


def _rows_to_matches(eng: Engine, rows: list[Row]) -> list[CatalogMatch]:
    out = []
    for r in rows_as(CatalogMatchRow, rows):
        out.append(CatalogMatch(item_id=r.item_id, name=r.item_name, category=r.category,
                                description=eng.backend.read_text(r.description), price_usd=float(r.price_usd),
                                price_unit=r.price_unit, availability=_availability(eng, r.item_id),
                                similarity=float(r.similarity)))
    return out


def match_catalog(eng: Engine, question: str, *, k: int = DEFAULT_K, min_similarity: float | None = None) -> MatchResult:
    """Up to k catalog rows at or above the similarity threshold, best first."""
    check_query(question, "question", hint=QUESTION_HINT)
    check_k(k, "k", 100_000)
    threshold = catalog_min_similarity(eng) if min_similarity is None else float(min_similarity)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"min_similarity must be between 0 and 1, got {threshold}")
    sql = eng.statements.catalog
    if not row_as(CountRow, eng.query(sql.ITEM_COUNT)[0]).n:
        raise RuntimeError("The catalog is empty. Fix: run `catalog.seed(eng)` (the Part 5 seed cell).")
    question = question.strip()
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"question is not valid text: {exc.reason} at position {exc.start}") from None
    vector, hit = embed_question(eng, question)
    if vector is None:
        raise ValueError("question has no word the embedding model knows (only control characters or symbols?)")
    qv = eng.backend.vector_param(vector)
    matches = _rows_to_matches(eng, eng.query(sql.MATCH_ABOVE_THRESHOLD, {"qv": qv, "min_similarity": threshold, "k": k}))
    alternatives = [] if matches else _rows_to_matches(eng, eng.query(sql.CLOSEST_ITEMS, {"qv": qv, "k": k}))
    return MatchResult(question, matches, alternatives, threshold, k, hit)


def grounding_context(matches: Sequence[CatalogMatch]) -> list[dict]:
    """Structured facts per row (what a model may see), not prose."""
    return [{"item_id": m.item_id, "name": m.name, "description": m.description, "price": m.price_text(),
             "availability": m.availability_text(), "similarity": round(m.similarity, 3)} for m in matches]


# ============================================================================ selection
def validate_selection(selection: Any, rows: Sequence[CatalogMatch]) -> list[str] | None:
    """The ids a selector chose, checked against the rows that were actually returned.

    Returns the ids in the order chosen, duplicates removed, or None when the selection
    cannot be trusted: not a list, empty, or holding anything that is not the id of a
    returned row (an unknown id, a number, None...). None means: show every returned row.
    """
    if not isinstance(selection, (list, tuple)) or not selection:
        return None
    known = {m.item_id for m in rows}
    chosen: list[str] = []
    for value in selection:
        if not isinstance(value, str) or value not in known:
            return None
        if value not in chosen:
            chosen.append(value)
    return chosen


def format_row(m: CatalogMatch, *, ports: Sequence[str] | None = None) -> str:
    """One answer line written entirely from a row."""
    return f"- {m.name} [{m.item_id}]: {m.price_text()}. {m.description} Availability: {m.availability_text(ports)}."


def answer_header(question: str, n: int) -> str:
    what = "this item" if n == 1 else f"these {n} items"
    return f"For \u201c{' '.join(question.split())}\u201d our catalog has {what}:"


def no_match_answer(question: str, alternatives: Sequence[CatalogMatch]) -> str:
    """Say there is no match; offer the closest rows, clearly marked as not matching."""
    text = f"I don't have a catalog item that matches \u201c{' '.join(question.split())}\u201d."
    if alternatives:
        alt = ", ".join(f"{a.name} [{a.item_id}] (similarity {a.similarity:.2f})" for a in alternatives)
        text += f" The closest things we do offer are {alt}. Would one of those work, or can you describe the cargo another way?"
    return text


def render_grounded_answer(question: str, matches: Sequence[CatalogMatch], selection: Any = None) -> str:
    """The answer for an EQUIPMENT_RAG turn (the reference for the Part 5 TODO)."""
    if not matches:
        return no_match_answer(question, [])
    ids = validate_selection(selection, matches)
    by_id = {m.item_id: m for m in matches}
    chosen = [by_id[i] for i in ids] if ids is not None else list(matches)
    return "\n".join([answer_header(question, len(chosen))] + [format_row(m) for m in chosen])


@dataclass
class SelectionOutcome:
    ids: list[str] | None          # validated ids, or None (show every row)
    status: str                    # what happened, for the answer payload
    ok: bool                       # True when the model's selection was used


_ARTIFACT_RE = re.compile(
    r"<\|?tool_call|<\|python_tag\|>|\[TOOL_CALLS\]|\"type\"\s*:\s*\"function\"|\"parameters\"\s*:|"
    r"\"arguments\"\s*:|\"name\"\s*:\s*\"(?:select_items|search_catalog)\"|\b(?:select_items|search_catalog)\s*\(",
    re.I,
)


def looks_like_tool_artifact(text: str) -> bool:
    """A tool call (or tool schema) printed as text instead of an answer."""
    return bool(_ARTIFACT_RE.search(text or ""))


def selection_tool(rows: Sequence[CatalogMatch]) -> dict:
    return {"type": "function", "function": {
        "name": SELECT_TOOL,
        "description": "Choose which of the retrieved catalog items answer the customer's question.",
        "parameters": {"type": "object", "properties": {"item_ids": {
            "type": "array", "items": {"type": "string", "enum": [m.item_id for m in rows]},
            "description": "ids of the suitable items, best first"}}, "required": ["item_ids"]},
    }}


def select_with_llm(llm: ChatModel | None, question: str, rows: Sequence[CatalogMatch], *, persona: str = DEFAULT_PERSONA,
                    timeout: float | None = None) -> SelectionOutcome:
    """Bounded structured selection: the model may only pick ids; anything else is a fallback.

    The call gets at most `timeout` seconds (default: the model's own limit, capped at
    SELECTION_TIMEOUT_S); past that the rows answer without it.
    """
    if timeout is None:
        timeout = min(float(getattr(llm, "timeout", SELECTION_TIMEOUT_S)), SELECTION_TIMEOUT_S)
    if llm is None:
        return SelectionOutcome(None, "no model: every matching row shown", False)
    if not rows:
        return SelectionOutcome(None, "no rows to select from", False)
    reply, failed = _ask_for_selection(llm, question, rows, persona=persona, timeout=timeout)
    if failed is None:
        args, failed = _selection_arguments(reply)
    if failed is not None:
        return SelectionOutcome(None, failed, False)
    return _validated_selection(args["item_ids"], rows)


def _ask_for_selection(llm: ChatModel, question: str, rows: Sequence[CatalogMatch], *, persona: str,
                       timeout: float) -> tuple[Any, str | None]:
    """(the model's reply, None), or (None, why the call failed) when it raised."""
    messages = [
        {"role": "system", "content": PERSONAS.get(persona, PERSONAS[DEFAULT_PERSONA]) +
         f" Call {SELECT_TOOL} with the ids of the items that suit the question. Use only ids from the list."},
        {"role": "user", "content": f"Question: {question}\n\nRetrieved items (JSON):\n"
                                    + json.dumps(grounding_context(rows), indent=1)},
    ]
    try:
        return llm.chat(messages, tools=[selection_tool(rows)],
                        tool_choice={"type": "function", "function": {"name": SELECT_TOOL}}, timeout=timeout), None
    except LLMTimeout as exc:
        return None, f"fallback: selection timed out ({exc})"
    except LLMError as exc:
        return None, f"fallback: {exc}"
    except Exception as exc:  # noqa: BLE001 - whatever a client raises, the rows still answer
        return None, f"fallback: model error {type(exc).__name__}"


def _selection_arguments(reply: Any) -> tuple[Any, str | None]:
    """(the selection's arguments, holding item_ids, None), or (None, why they are unusable): from
    the tool call, or from JSON the model wrote as its text instead."""
    if reply.tool_calls:
        call = reply.tool_calls[0]
        if call.name != SELECT_TOOL:
            return None, f"fallback: model called unknown tool {call.name!r}"
        try:
            args = _loads_model_json(call.arguments)
        except (json.JSONDecodeError, TypeError):
            return None, "fallback: malformed JSON in the selection"
    elif looks_like_tool_artifact(reply.content):
        return None, "fallback: tool-schema artifact instead of a selection"
    else:
        try:
            args = _loads_model_json(reply.content)
        except (json.JSONDecodeError, TypeError):
            return None, "fallback: model skipped the tool (its draft was discarded)"
        if not isinstance(args, dict) or "item_ids" not in args:
            return None, "fallback: model skipped the tool (its draft was discarded)"
    if not isinstance(args, dict) or "item_ids" not in args:
        return None, "fallback: malformed JSON in the selection (no item_ids)"
    return args, None


def _validated_selection(selection: Any, rows: Sequence[CatalogMatch]) -> SelectionOutcome:
    """The model's item_ids used when they are ids of the rows, else a fallback naming the bad ones."""
    ids = validate_selection(selection, rows)
    if ids is None:
        known = {m.item_id for m in rows}
        bad = [s for s in selection if s not in known] if isinstance(selection, list) else selection
        return SelectionOutcome(None, f"fallback: invalid selection {bad!r:.80} (not ids of the returned rows)", False)
    return SelectionOutcome(ids, f"model selected {len(ids)} of {len(rows)} rows", True)


# ============================================================================ the other intents
def port_rows(eng: Engine) -> dict[str, dict]:
    """SUPPLYCHAIN.PORTS read from the database."""
    sql = eng.statements.catalog
    return {p.unlocode: {"unlocode": p.unlocode, "name": p.port_name, "country_code": p.country_code,
                         "region": p.region, "latitude": float(p.latitude), "longitude": float(p.longitude)}
            for p in rows_as(PortRow, eng.query(sql.PORTS))}


# "Which port is closest to Rotterdam?", "How far is Hamburg from Rotterdam?": a port's own
# coordinates do not answer these, so they get their own answer (or a decline).
_NEAR_RE = re.compile(r"\b(?:nearest|closest|near(?:by)?|close to|next to|neighbou?ring)\b", re.I)
_DISTANCE_RE = re.compile(r"\b(?:how far|distance|kilomet\w*|km|miles?)\b", re.I)
EARTH_RADIUS_KM = 6371.0


def asks_proximity(question: str) -> bool:
    return bool(_NEAR_RE.search(question) or _DISTANCE_RE.search(question))


def _great_circle_km(a: dict, b: dict) -> float:
    """Haversine distance between two port rows (the same formula the embedded engine's SQL uses)."""
    lat1, lon1, lat2, lon2 = map(np.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"]))
    h = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return float(2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(h)))


def port_proximity_answer(eng: Engine, question: str, codes: Sequence[str]) -> str | None:
    """The distance between two named ports, or the ports nearest one named port (the engine's
    nearest-neighbour query: SDO_NN on Oracle); None when the question names too few ports."""
    rows = port_rows(eng)
    named = [rows[c] for c in codes if c in rows]
    if _DISTANCE_RE.search(question) and len(named) >= 2:
        a, b = named[0], named[1]
        return (f"{a['name']} ({a['unlocode']}) to {b['name']} ({b['unlocode']}): about "
                f"{_great_circle_km(a, b):,.0f} km as the crow flies (great-circle distance from their "
                "coordinates in SUPPLYCHAIN.PORTS; a sea route is longer).")
    if len(named) == 1 and _NEAR_RE.search(question):
        port = named[0]
        others = [(name, code, km) for name, code, km in eng.supplychain.nearest_ports(port["longitude"], port["latitude"])
                  if code != port["unlocode"]]
        if not others:
            return None
        lines = [f"- {name} ({code}): {float(km):,.0f} km" for name, code, km in others]
        return "\n".join([f"The SUPPLYCHAIN ports nearest {port['name']} ({port['unlocode']}), great-circle:"] + lines)
    return None


def _coord(lat: float, lon: float) -> str:
    """Compass form, then the signed decimals a map or a spreadsheet takes (south and west negative)."""
    return (f"{abs(lat):.2f}\u00b0 {'N' if lat >= 0 else 'S'}, {abs(lon):.2f}\u00b0 {'E' if lon >= 0 else 'W'} "
            f"({lat:g}, {lon:g})")


# "the ports in Ruritania": a place the data cannot filter on (no region or country matched).
_PLACE_FILTER_RE = re.compile(r"\b(?:in|of|from|near)\s+(?:the\s+)?[A-Z][\w-]+")


def port_location_answer(eng: Engine, question: str, codes: Sequence[str]) -> tuple[str, bool]:
    """Where named ports are, or the ports of a region or country; and whether that answers the
    question from the data (a list of every port does not answer a question about a place the
    data cannot filter on)."""
    rows = port_rows(eng)
    if not rows:
        return "The SUPPLYCHAIN ports are not loaded. Fix: run `prepare(eng)`.", False
    if codes:
        where = _where_ports_are(rows, codes)
        return (where, True) if where else ("None of the ports named is a SUPPLYCHAIN port.", False)
    regions = sorted({r["region"] for r in rows.values()})
    # A region as the data names it ("North Europe"); a continent ("Africa", also a region's
    # name, means the whole continent: Tanger Med is in Africa too) or a country by its codes.
    asked = [g for g in regions if g.lower() in question.lower() and g not in countries.CONTINENTS]
    rest = question
    for g in asked:
        rest = re.sub(re.escape(g), " ", rest, flags=re.I)
    nations, continents = countries.named_in(rest), countries.continents_in(rest)
    if nations or continents:
        return _ports_in_countries(rows, asked, nations, continents), True
    return _ports_in_regions(rows, asked, question)


def _where_ports_are(rows: dict[str, dict], codes: Sequence[str]) -> str:
    """The name, region, country and coordinates of each port named by its code."""
    lines = [f"- {r['name']} ({c}), {r['region']}, {countries.name_of(r['country_code'])} ({r['country_code']}): "
             f"{_coord(r['latitude'], r['longitude'])}"
             for c in codes if (r := rows.get(c))]
    if not lines:
        return ""  # no port named is one of the data's: nothing to show, and nothing grounded
    return "\n".join(["Here is where that is:" if len(lines) == 1 else "Here is where those are:"] + lines)


def _ports_in_countries(rows: dict[str, dict], asked: list[str], nations: list[str], continents: list[str]) -> str:
    """The ports in the regions, countries and continents a question names, or that there are none."""
    codes_asked = set(nations) | {c for name in continents for c in countries.CONTINENTS[name]}
    chosen = [r for r in rows.values() if r["country_code"] in codes_asked or r["region"] in asked]
    named = ", ".join(asked + [f"{countries.name_of(c)} ({c})" for c in nations] + continents)
    if not chosen:
        return (f"None of the {len(rows)} SUPPLYCHAIN ports is in {named}. The countries with a port are: "
                + ", ".join(sorted({r["country_code"] for r in rows.values()})) + ".")
    return "\n".join([f"Ports in {named}: {len(chosen)}"] + [f"- {r['name']} ({r['unlocode']}), {r['region']}"
                                                             for r in chosen])


def _ports_in_regions(rows: dict[str, dict], asked: list[str], question: str) -> tuple[str, bool]:
    """The ports of the regions asked, or every port; the second is False when the question names a
    place the data cannot filter on."""
    chosen = [r for r in rows.values() if not asked or r["region"] in asked]
    listing = [f"- {r['name']} ({r['unlocode']}), {r['region']}" for r in chosen]
    if asked:
        return "\n".join([f"Ports in {', '.join(asked)}: {len(chosen)}"] + listing), True
    unresolved = _PLACE_FILTER_RE.search(question)
    head = (f"I cannot tell which ports \u201c{unresolved.group(0)}\u201d means; these are the {len(chosen)} ports I know:"
            if unresolved else f"I know these {len(chosen)} ports; name one for its location:")
    return "\n".join([head] + listing), unresolved is None


def equipment_phrase(question: str) -> str:
    """The question minus port names and availability wording: what to match in the catalog."""
    text = question
    for code, port in catalog.ports().items():
        for name in [code, port["name"], *re.split(r"[/()\-]", port["name"])]:
            name = name.strip()
            if len(name) > 3:
                text = re.sub(rf"\b{re.escape(name)}\b", " ", text, flags=re.I)
    for alias in _PORT_ALIASES:
        text = re.sub(rf"\b{re.escape(alias)}\b", " ", text, flags=re.I)
    text = _AVAILABILITY_RE.sub(" ", text)
    text = re.sub(r"\b(?:is|are|a|an|the|any|at|in|from|port|of|today|now|right now)\b|[?!.,]", " ", text, flags=re.I)
    text = " ".join(text.split())
    return text or question


_SIZE_RE = re.compile(r"^(\d{2})'\s*")


def _type_codes() -> dict[str, str]:
    """The trade's two-letter type codes the catalog's item ids carry ("EQ-40HC": HC, high cube), each
    with the type it stands for; the first item of a code names it (40' high cube before 45')."""
    codes: dict[str, str] = {}
    for item in catalog.ITEMS:
        m = re.fullmatch(r"[A-Z]+-\d{2}([A-Z]{2})", item.item_id)
        if m and m.group(1) not in codes:
            codes[m.group(1)] = _SIZE_RE.sub("", item.name.lower()).replace(" container", "").strip()
    return codes


_TYPE_CODES = _type_codes()
# "40HC", "40' hc", "HCs": a code in capitals, or in any case right after a size
_CODE_RE = re.compile(rf"\b(\d{{2}})\s*(?:'|\u2019|-?\s*(?:foot|feet|ft)\b)?\s*({'|'.join(_TYPE_CODES)})s?\b"
                      rf"|\b({'|'.join(_TYPE_CODES)})s?\b", re.I)


def _expand_codes(text: str) -> str:
    """Type codes written out ("40' HCs" -> "40' high cube"), so an item named by its code is found."""
    def spell(m: re.Match[str]) -> str:
        if m.group(2):
            return f"{m.group(1)}' {_TYPE_CODES[m.group(2).upper()]}"
        return _TYPE_CODES[m.group(3)] if m.group(3).isupper() else m.group(0)
    return _CODE_RE.sub(spell, text)


def _normalized(text: str) -> str:
    """Lower case, type codes spelt out, sizes written 40', plurals and hyphens folded: what item names
    are compared on."""
    t = _expand_codes(unicodedata.normalize("NFKC", text)).lower()
    t = re.sub(r"\b(\d{2})\s*(?:'|\u2019|-?\s*(?:foot|feet|ft)\b|-?footers?\b)", r"\1' ", t)
    t = re.sub(r"\btwenty[- ]?foot\b", "20' ", t)
    t = re.sub(r"\bforty[- ]?foot\b", "40' ", t)
    t = t.replace("high-cube", "high cube").replace("flat-rack", "flat rack").replace("open-top", "open top")
    t = re.sub(r"\b(\w{2,}[^s\W])s\b", r"\1", t)  # plurals: racks -> rack, cubes -> cube
    return " ".join(t.split())


@functools.lru_cache(maxsize=256)  # items are frozen: their phrase is read once, not per question
def type_phrase(item: catalog.Item) -> tuple[str | None, str]:
    """(size, type) of a container item ("40'", "high cube reefer"); size None for other items."""
    name = _normalized(item.name)
    m = _SIZE_RE.match(item.name)
    if not m:
        return None, name
    phrase = _SIZE_RE.sub("", name).replace(" container", "").strip()
    return m.group(1), phrase


def named_items(question: str, *, variants: bool = False) -> list[catalog.Item]:
    """The catalog items a question names by type (and size, when it gives one), most specific first.

    "40' high cube" names EQ-40HC. With `variants`, every size and variant of the type named
    comes too ("reefers" -> the 20' reefer and the 40' high cube reefer): an availability
    answer must consider them all. Items not named come back empty (the caller declines or
    falls back to the vector match)."""
    return list(_named_items(question, variants))


@functools.lru_cache(maxsize=512)
def _named_items(question: str, variants: bool) -> tuple[catalog.Item, ...]:
    # (the router and several handlers ask it of the same question: the catalog does not change)
    return tuple(_items_named(question, variants=variants))


def _items_named(question: str, *, variants: bool = False) -> list[catalog.Item]:
    q = _normalized(question)
    sizes = set(re.findall(r"\b(\d{2})'", q))
    initials = {w.lower() for w in re.findall(r"(?<![\w-])[A-Z]{3,5}(?![\w-])", question)}  # written in capitals
    exact, other_size = _items_by_type(q, sizes, initials)
    if not exact:
        exact = _items_by_size(other_size, sizes)
    if re.search(r"\bservice\b", q):  # "a reefer PTI service" names a service, not a reefer box
        exact = [(n, i) for n, i in exact if i.category == "service"]
    if not exact:
        return []
    chosen = _most_specific(exact)
    return _with_variants(chosen, sizes) if variants else chosen


def _type_named(words: str, q: str, initials: frozenset[str] | set[str]) -> bool:
    """The type's words in the question, side by side in either order, or its initials ("PTI")."""
    return bool(words in q and re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", q)) \
        or _named_in_any_order(words, q) or bool(initials and initials & set(_acronyms(words)))


def _named_in_any_order(words: str, q: str) -> bool:
    """"Reefer 40' high cube": the type's words, in another order, side by side in one phrase (not
    across "and", "or" or a comma: "a reefer and a high cube" names two items)."""
    wanted = words.split()
    if len(wanted) < 2:
        return False
    for phrase in re.split(r",|;|/|\b(?:and|or|vs|versus|than|with)\b", q):
        tokens = [t for t in re.findall(r"[\w'-]+", phrase) if not re.fullmatch(r"\d+'?", t)]  # sizes aside
        for start in range(len(tokens)):
            window = tokens[start:start + len(wanted)]
            if sorted(window) == sorted(wanted):
                return True
    return False


def _heads(words: str) -> list[str]:
    """The words that name a service alone: its last word, and the last word of each side of an "and"
    ("lashing and securing": "lashing" or "securing")."""
    return [side.split()[-1] for side in words.split(" and ") if side.split()]


def _items_by_type(q: str, sizes: set[str],
                   initials: frozenset[str] | set[str] = frozenset()) -> tuple[list[tuple[int, catalog.Item]], list[catalog.Item]]:
    """The items whose type a normalized question names, as (length of the words matched, item),
    and apart from them the items of a type named in a size not asked for."""
    exact: list[tuple[int, catalog.Item]] = []
    other_size: list[catalog.Item] = []  # the type named, in a size not asked for
    for item in catalog.ITEMS:
        size, phrase = type_phrase(item)
        words = phrase.replace("container", "").strip() or phrase
        named = _type_named(words, q, initials)
        if named and (size is None or not sizes or size in sizes):
            exact.append((len(words), item))
        elif named:
            other_size.append(item)
        elif size is None and any(len(head) > 5 and head in q and re.search(rf"(?<![\w-]){re.escape(head)}(?![\w-])", q)
                                  for head in _heads(words)):
            exact.append((0, item))  # a service or accessory named by its last word ("brokerage", "genset")
    return exact, other_size


@functools.lru_cache(maxsize=256)
def _acronyms(words: str) -> list[str]:
    """The initials of an item's last three or more words, hyphenated parts counted ("reefer pre-trip
    inspection": pti, rpti), lower case."""
    parts = [w for w in re.split(r"[\s-]+", words) if w and w[0].isalpha()]
    return ["".join(w[0] for w in parts[-k:]) for k in range(3, len(parts) + 1)]


def _items_by_size(other_size: list[catalog.Item], sizes: set[str]) -> list[tuple[int, catalog.Item]]:
    """When no item's type and size both match: the items of the sizes asked, of a type named in
    another size, or of any type when no type was named."""
    if other_size:
        # "a 40' reefer": no 40' item is called just "reefer", but a 40' variant of the type is
        return [(0, i) for i in catalog.ITEMS if (ts := type_phrase(i))[0] in sizes
                and any(type_phrase(o)[1] in ts[1] for o in other_size)]
    if sizes:
        # a size and no type ("a 45 foot container"): every item of that size
        return [(0, i) for i in catalog.ITEMS if type_phrase(i)[0] in sizes]
    return []


def _most_specific(exact: list[tuple[int, catalog.Item]]) -> list[catalog.Item]:
    """The items matched, longest match first, without one whose type is part of another's
    ("reefer" is dropped when "high cube reefer" was named)."""
    exact.sort(key=lambda t: -t[0])
    phrases = [type_phrase(i)[1] for _, i in exact]
    return [i for (_, i), ph in zip(exact, phrases)
            if not any(ph != other and ph in other for other in phrases)]


def variants_of(item: catalog.Item) -> list[catalog.Item]:
    """The other containers of an item's type, in any size ("20' reefer": the 40' high cube reefer)."""
    return [i for i in _with_variants([item], set()) if i != item]


def _with_variants(chosen: list[catalog.Item], sizes: set[str]) -> list[catalog.Item]:
    """The chosen items and every container of their types in the sizes asked (any size if none)."""
    out = list(chosen)
    for item in catalog.ITEMS:
        size, phrase = type_phrase(item)
        if item in out or size is None or (sizes and size not in sizes):
            continue
        if any(type_phrase(c)[0] is not None and type_phrase(c)[1] in phrase for c in chosen):
            out.append(item)
    return out


_CHEAP_RE = re.compile(r"\b(?:cheapest|least expensive|lowest(?:-| )price[sd]?|most affordable|lowest cost)\b", re.I)
_DEAR_RE = re.compile(r"\b(?:most expensive|priciest|highest(?:-| )price[sd]?|dearest|costliest)\b", re.I)


def price_extreme(question: str) -> list[catalog.Item] | None:
    """"The cheapest container", "your most expensive service": the items at the extreme price
    among those priced per the same unit (a lease per day is not compared with a fee per move).
    None when the question asks no such thing."""
    cheap, dear = _CHEAP_RE.search(question), _DEAR_RE.search(question)
    if not (cheap or dear):
        return None
    pool = _priced_items_asked(question)
    units = {i.price_unit for i in pool}
    if len(units) != 1:
        return []  # prices per different units: no single cheapest
    best = (min if cheap else max)(i.price_usd for i in pool)
    return [i for i in pool if i.price_usd == best]


def _priced_items_asked(question: str) -> list[catalog.Item]:
    """The items a price question compares: services, containers or all, narrowed to those named."""
    q = _normalized(question)
    pool = list(catalog.ITEMS)
    if re.search(r"\bservice\b", q):
        pool = [i for i in pool if i.category == "service"]
    elif re.search(r"\b(?:container|box|equipment)\b", q):
        pool = [i for i in pool if i.category == "equipment" and _SIZE_RE.match(i.name)]
    named = named_items(question, variants=True)
    if named:
        pool = [i for i in pool if i in named]
    return pool


def unknown_size(question: str) -> bool:
    """A container size no catalog item has (a 53' box): nothing to match it with."""
    sizes = set(re.findall(r"\b(\d{2})'", _normalized(question)))
    known = {type_phrase(i)[0] for i in catalog.ITEMS}
    return bool(sizes) and not sizes & known


def matches_for(eng: Engine, items: Sequence[catalog.Item]) -> list[CatalogMatch]:
    """CatalogMatch rows for named items, read from the database (similarity 1: named, not matched)."""
    return [CatalogMatch(item.item_id, item.name, item.category, item.description, item.price_usd,
                         item.price_unit, _availability(eng, item.item_id), 1.0) for item in items]


def availability_rows(matches: Sequence[CatalogMatch]) -> list[CatalogMatch]:
    """The rows an availability question is about: the best match and those close to it."""
    if not matches:
        return []
    best = matches[0].similarity
    return [m for m in matches if m.similarity >= best - AVAILABILITY_MARGIN]


def availability_answer(question: str, result: MatchResult, codes: Sequence[str]) -> str:
    """Availability of each matching row, at the ports asked about (or everywhere)."""
    if not result.matches:
        return no_match_answer(question, result.alternatives)
    lines = []
    for m in availability_rows(result.matches):
        here = [c for c in codes if c in m.availability]
        missing = [c for c in codes if c not in m.availability]
        if not codes:
            lines.append(f"- {m.name} [{m.item_id}], {m.price_text()}: {m.availability_text()}.")
            continue
        if here:
            lines.append(f"- {m.name} [{m.item_id}], {m.price_text()}: {m.availability_text(here)}.")
        if missing:
            lines.append(f"- {m.name} [{m.item_id}] is not available at "
                         f"{', '.join(_port_label(c) for c in missing)}; it is at: {m.availability_text()}.")
    return "\n".join([f"Availability for \u201c{' '.join(question.split())}\u201d:"] + lines)


GENERAL_HELP = ("I can help with container equipment and shipping services (what fits your cargo and what it "
                "costs), availability at a port, and where our ports are. For example: \u201cI need a reefer for "
                "frozen fish\u201d, \u201cDo you have flat racks in Hamburg?\u201d or \u201cWhere is Tanger Med?\u201d")


# ============================================================================ the whole turn
@dataclass
class GroundedAnswer:
    question: str
    intent: str
    route_method: str
    text: str
    grounded: bool                   # written from database rows
    item_ids: list[str]              # the rows shown
    selection_status: str
    embedding_cache_hit: bool | None  # None: this intent needed no embedding
    from_cache: bool
    model: str
    persona: str
    ports: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def response_cache_key(model: str, persona: str, question: str, k: int = DEFAULT_K,
                       min_similarity: float | None = None) -> str:
    """Every parameter that changes the answer is in the key (a strict call's "no match"
    must not be served to a normal one)."""
    return _sha(f"{model}\x1f{persona}\x1f{normalize_query(question)}\x1fk={k}\x1fmin={min_similarity!r}")


def clear_caches(eng: Engine, *, embeddings: bool = False) -> None:
    """Empty the response cache (and, if asked, the embedding cache). Explicit, never automatic."""
    sql = eng.statements.catalog
    catalog.ensure_tables(eng)
    with eng.transaction() as cur:
        cur.execute(sql.RESP_CACHE_CLEAR)
        if embeddings:
            cur.execute(sql.EMB_CACHE_CLEAR)
            cur.execute(sql.CACHE_WRITERS_CLEAR)


def ask(eng: Engine, question: str, *, llm: ChatModel | None = None, persona: str = DEFAULT_PERSONA, use_cache: bool = True,
        k: int = DEFAULT_K, min_similarity: float | None = None, route_to: Route | None = None) -> GroundedAnswer:
    """Answer one customer question, grounded in the catalog and the ports table.

    `route_to`: a routing decision already made (the chat service's router); else Part 5's own.
    Items the question names (by type and size) are answered from their own rows; an
    availability question covers every size and variant of the type named."""
    check_query(question, "question", hint=QUESTION_HINT)
    if persona not in PERSONAS:
        raise ValueError(f"unknown persona {persona!r}; choose one of {sorted(PERSONAS)}")
    try:
        return _ask(eng, question, llm=llm, persona=persona, use_cache=use_cache, k=k,
                    min_similarity=min_similarity, route_to=route_to)
    except Exception as exc:
        # Checked only on failure (no extra query per question): a driver's "no such table" says
        # nothing a learner can act on.
        if not {"CATALOG_ITEMS", "RESPONSE_CACHE"} <= eng.backend.object_names():
            raise CatalogNotLoaded() from exc
        raise


class CatalogNotLoaded(WorkshopError, RuntimeError):
    """Part 5's product catalog (and its caches) are not in this database yet."""

    fix = "run `catalog.seed(eng)` once (Part 5's first cells and `workshop serve` do it)"

    def __init__(self) -> None:
        super().__init__(f"the product catalog is not loaded in this database; {self.fix}")


def _ask(eng: Engine, question: str, *, llm: ChatModel | None, persona: str, use_cache: bool, k: int,
         min_similarity: float | None, route_to: Route | None) -> GroundedAnswer:
    sql = eng.statements.catalog
    model = getattr(llm, "model", None) or "none"
    threshold = catalog_min_similarity(eng) if min_similarity is None else float(min_similarity)
    key = response_cache_key(model, persona, question, k, threshold)
    if route_to is not None:  # another router may send the same words elsewhere: never share its answer
        key = _sha(f"{key}\x1froute={route_to.intent}")
    if use_cache and (cached := _cached_answer(eng, sql, key, question)) is not None:
        return cached

    r = route_to or route(question, llm)
    if r.intent in ("EQUIPMENT_RAG", "EQUIPMENT_AVAILABILITY"):
        answer, cacheable = _equipment_answer(eng, question, r, llm=llm, persona=persona, model=model, k=k,
                                              threshold=threshold, min_similarity=min_similarity)
    elif r.intent == "PORT_LOCATION":
        answer, cacheable = _port_answer(eng, question, r, persona=persona, model=model), True
    else:
        answer, cacheable = _general(eng, question, r, llm=llm, persona=persona, model=model, k=k,
                                     min_similarity=min_similarity)
    normalized = normalize_query(question)
    if use_cache and cacheable and len(normalized.encode("utf-8")) <= MAX_CACHED_QUERY_BYTES:
        with eng.transaction() as cur:
            cur.execute(sql.RESP_CACHE_DELETE, {"cache_key": key})
            cur.execute(sql.RESP_CACHE_INSERT, {"cache_key": key, "m": model, "p": persona, "q": normalized,
                                                "r": json.dumps(answer.as_dict())})
            _record_writer(eng, cur, "response", key)
    return answer


def _cached_answer(eng: Engine, sql: Any, key: str, question: str) -> GroundedAnswer | None:
    """The response cache's answer under `key`, marked as served from the cache."""
    cached = first_as(ResponseRow, eng.query(sql.RESP_CACHE_GET, {"cache_key": key}))
    if cached is None:
        return None
    payload = json.loads(eng.backend.read_text(cached.response))
    payload.update(question=question, from_cache=True, embedding_cache_hit=None)
    return GroundedAnswer(**payload)


def _equipment_rows(eng: Engine, question: str, intent: str, *, k: int, threshold: float,
                    min_similarity: float | None) -> tuple[MatchResult, str, list[catalog.Item]]:
    """(the catalog rows to answer from, what they were matched on, the items the question names)."""
    phrase = equipment_phrase(question) if intent == "EQUIPMENT_AVAILABILITY" else question
    extreme = price_extreme(question) if intent == "EQUIPMENT_RAG" else None
    # every size of the type named, unless a size is given ("reefers" -> the 20' and the 40')
    sized = re.search(r"\b\d{2}'", _normalized(question)) is not None
    named = extreme if extreme is not None else named_items(
        question, variants=intent == "EQUIPMENT_AVAILABILITY" or not sized)
    if extreme == [] or (sized and not named and unknown_size(question)):
        return MatchResult(phrase, [], [], threshold, k, False), phrase, named
    if named:
        return (MatchResult(phrase, matches_for(eng, named), [], threshold, k, False),
                "the items named: " + ", ".join(i.item_id for i in named), named)
    # Nothing named: a described need ("a box for frozen fish"). Availability is only
    # read for a close match (it must be the item asked about, not a neighbour).
    floor = threshold if intent == "EQUIPMENT_RAG" else min(1.0, threshold + AVAILABILITY_EXTRA_FLOOR)
    result = match_catalog(eng, phrase, k=k, min_similarity=floor if min_similarity is None else min_similarity)
    return result, phrase, named


def _equipment_answer(eng: Engine, question: str, r: Route, *, llm: ChatModel | None, persona: str, model: str, k: int,
                      threshold: float, min_similarity: float | None) -> tuple[GroundedAnswer, bool]:
    """EQUIPMENT_RAG and EQUIPMENT_AVAILABILITY, rendered from catalog rows: (answer, cacheable)."""
    result, phrase, named = _equipment_rows(eng, question, r.intent, k=k, threshold=threshold,
                                            min_similarity=min_similarity)
    emb_hit = result.embedding_cache_hit if not named else None
    cacheable = True
    if r.intent == "EQUIPMENT_AVAILABILITY":
        text = availability_answer(question, result, r.ports)
        ids = [m.item_id for m in availability_rows(result.matches)]
        status = f"availability read from rows (matched on {phrase!r})"
    elif not result.matches:
        text, ids, status = no_match_answer(question, result.alternatives), [], "no row above the threshold"
    else:
        outcome = select_with_llm(llm, question, result.matches, persona=persona)
        cacheable = llm is None or outcome.ok
        text = render_grounded_answer(question, result.matches, outcome.ids)
        ids = outcome.ids or [m.item_id for m in result.matches]
        status = outcome.status
    return GroundedAnswer(question, r.intent, r.method, text, True, ids, status, emb_hit, False, model,
                          persona, r.ports), cacheable


def _port_answer(eng: Engine, question: str, r: Route, *, persona: str, model: str) -> GroundedAnswer:
    """PORT_LOCATION from SUPPLYCHAIN.PORTS: distances when the question asks how near, else locations."""
    if asks_proximity(question):
        near = port_proximity_answer(eng, question, r.ports)
        return GroundedAnswer(question, r.intent, r.method, near or (
            "Name one port for the ports nearest it, or two for the distance between them."), near is not None,
            [], "distances computed from SUPPLYCHAIN.PORTS" if near else "too few ports named for a distance",
            None, False, model, persona, r.ports)
    text, answered = port_location_answer(eng, question, r.ports)
    return GroundedAnswer(question, r.intent, r.method, text, answered, [],
                          "ports read from SUPPLYCHAIN.PORTS" if answered else "no port, region or country of the data named",
                          None, False, model, persona, r.ports)


def _search_tool() -> dict:
    return {"type": "function", "function": {
        "name": SEARCH_TOOL, "description": "Search the equipment and services catalog.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    }}


def _general(eng: Engine, question: str, r: Route, *, llm: ChatModel | None, persona: str, model: str, k: int,
             min_similarity: float | None) -> tuple[GroundedAnswer, bool]:
    """GENERAL_CONVERSATION: the model chats, with the catalog search as a tool.

    If it looks anything up, or drafts an equipment answer without the tool, the final
    answer is re-grounded from real rows instead.
    """
    def regrounded(status: str) -> GroundedAnswer | None:
        result = match_catalog(eng, question, k=k, min_similarity=min_similarity)
        if not result.matches:
            return None
        return GroundedAnswer(question, r.intent, r.method, render_grounded_answer(question, result.matches), True,
                              [m.item_id for m in result.matches], status, result.embedding_cache_hit, False,
                              model, persona, r.ports)

    help_answer = GroundedAnswer(question, r.intent, r.method, GENERAL_HELP, False, [], "canned help (no model)",
                                 None, False, model, persona, r.ports)
    if llm is None:
        return help_answer, True
    try:
        reply = llm.chat([{"role": "system", "content": PERSONAS[persona] + " Use search_catalog for any question "
                           "about equipment, services or prices."}, {"role": "user", "content": question}],
                         tools=[_search_tool()])
    except Exception:  # noqa: BLE001 - any failure: the canned help answers
        help_answer.selection_status = "fallback: model failed, canned help"
        return help_answer, False
    if reply.tool_calls:
        hit = regrounded("re-grounded: the model searched the catalog, rows rendered instead")
        return (hit or help_answer), hit is not None
    if looks_like_tool_artifact(reply.content) or not reply.content.strip():
        hit = regrounded("re-grounded: the model emitted a tool artifact or nothing")
        if hit is None:
            help_answer.selection_status = "fallback: unusable model reply, canned help"
        return (hit or help_answer), False
    if mentions_equipment(reply.content):
        # an equipment answer drafted without the tool is never shown: rows or nothing
        hit = regrounded("re-grounded: the model drafted an equipment answer without the tool")
        if hit is not None:
            return hit, True
        help_answer.selection_status = "fallback: the model's tool-less equipment draft was discarded"
        return help_answer, False
    return GroundedAnswer(question, r.intent, r.method, reply.content.strip(), False, [], "model reply", None,
                          False, model, persona, r.ports), True

"""Which handler answers a chat question, with a confidence: the chat service's router.

Every handler gets a score; the highest wins only when it is clear enough, otherwise
the service falls back honestly (it never guesses a grounded answer). A score is:

- the embedding similarity of the question to labelled example questions of that
  handler (the mean of the two nearest), computed with the engine's own model, so the
  floor is set per engine like Part 4's thresholds (`config.THRESHOLDS`, `router_*`);
- plus entity and wording cues: a port, vessel, carrier or catalog item named; a table
  or column of the data dictionary named; a voyage number; aggregation words; a
  language other than English (only Part 8's documents are written in one).

Hard rules come first: an attempt to read another user's data, to change the
instructions or to run a write statement is refused outright (OUT_OF_SCOPE).

The labels extend Part 5's routing contract (`grounded.Route`, `grounded.INTENTS`):
its three grounded intents keep their names; GENERAL_CONVERSATION is split into the
knowledge, live data, documents, small talk and out-of-scope handlers. With a model
configured, the model labels the question and the offline scores stay in the explanation.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from workshop_lib import assistant
from workshop_lib.assistant import catalog_links
from workshop_lib.assistant.names_written import named_schema_objects
from workshop_lib.assistant.planner import MIN_NOT_MINUTES
from workshop_lib.data import catalog, countries
from workshop_lib.data.supplychain_data import rows
from workshop_lib.parts import grounded
from workshop_lib.parts.agent.sqlplan import COLUMN_WORDS, tables_in

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

SCHEMA, LIVE, CATALOG, AVAILABILITY, PORT, DOCS, SMALL_TALK, OUT = (
    "SCHEMA_KNOWLEDGE", "LIVE_DATA", "EQUIPMENT_RAG", "EQUIPMENT_AVAILABILITY", "PORT_LOCATION", "DOCUMENTS",
    "SMALL_TALK", "OUT_OF_SCOPE")
LABELS = (SCHEMA, LIVE, CATALOG, AVAILABILITY, PORT, DOCS, SMALL_TALK, OUT)
HELP = {
    SCHEMA: "what a SUPPLYCHAIN table or column holds, means, or which unit it uses",
    LIVE: "a figure or row from the SUPPLYCHAIN data: counts, totals, averages, a vessel, voyage, carrier or port",
    CATALOG: "which container equipment or service fits a need, and its lease price",
    AVAILABILITY: "whether equipment is available (in stock) at a port",
    PORT: "where a port is, its UN/LOCODE or coordinates, or which ports are in a region",
    DOCS: "port notices, carrier rules, customs, incidents, claims and procedures from the documents",
    SMALL_TALK: "greetings, thanks, what the assistant can do",
    OUT: "anything else: weather, freight quotes, news; or a request to break the rules",
}

# Labelled examples per handler (written for the router, not taken from the evaluation).
EXAMPLES: dict[str, list[str]] = {
    SCHEMA: ["Which column stores the weight a ship can carry?", "What unit is the gross weight in?",
             "What does the column VOYAGE_NUMBER mean?", "Which table has the AIS positions?",
             "Is the declared value stored in dollars or cents?", "What is the difference between TEU and deadweight?",
             "Which field tells me if goods are dangerous?", "What does a row of the containers table represent?",
             "How is the IMO check digit computed?", "What key joins voyages to ports?",
             "Which column has the reefer temperature?", "What data type is the UN/LOCODE column?"],
    LIVE: ["How many ships do we have?", "What is the total capacity of the fleet?",
           "Which vessel is sailing voyage 1020?", "List the five largest ships by TEU.",
           "What is the average deadweight of our vessels?", "How many voyages are at sea right now?",
           "Which carrier runs the most vessels?", "What is the cargo value of voyage 1030 in dollars?",
           "How many containers are on voyage 1005?", "Who operates the vessel Ever Given?",
           "How many voyages per carrier?", "What is the IMO number of the Maersk Kinloss?",
           "When does voyage 1044 arrive?", "Which port does voyage 1012 leave from?"],
    CATALOG: ["I need a reefer for frozen fish", "What does a 40 foot high cube cost per day?",
              "Which container suits heavy machinery?", "How much is customs brokerage?",
              "Do you offer cargo insurance?", "What is the lease price of a flat rack?",
              "Which box should I use for liquids in bulk?", "What does drayage cost?"],
    AVAILABILITY: ["Do you have flat racks in Hamburg?", "Are 20 foot reefers available at Rotterdam?",
                   "How many high cubes can I pick up in Shanghai?", "Is there an open top container in Busan?",
                   "Can I lease a tank container at Antwerp?", "Any gensets in stock at Savannah?"],
    PORT: ["Where is Tanger Med?", "What are the coordinates of Busan?", "Which ports are in North Europe?",
           "What is the UN/LOCODE of Rotterdam?", "Which country is Port Klang in?", "List the ports you serve."],
    DOCS: ["Is there a strike at the terminal this week?", "What is the cut-off for reefers with the carrier?",
           "How many free days of demurrage do we get?", "What happened in the hold fire incident?",
           "Why was the damage claim rejected?", "When must the importer security filing be sent?",
           "Which berths are closed for repairs?", "What does the port notice about the typhoon say?",
           "What is the procedure for dangerous goods bookings?", "How long are ships waiting at the terminal?",
           "What are the new gate hours?", "What does the customs advice say about declarations?"],
    SMALL_TALK: ["hi", "hello there", "thanks a lot", "good evening", "who are you?", "what can you help me with?",
                 "bye for now", "nice, thank you"],
    OUT: ["What is the weather forecast for tomorrow?", "What is the spot rate for a container to Europe?",
          "Tell me a joke", "What is the share price of the company?", "Who is the president of France?",
          "Write a song about ships", "Book me a flight", "What are the latest news headlines?"],
}

# ------------------------------------------------------------------ cues (wording and entities)
_FLAGS = re.I
REFUSAL_RE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.?!]{0,40}\b(?:instructions?|rules?|prompt|guidelines?)\b|"
    r"\bsystem (?:prompt|override)\b|\b(?:admin(?:istrator)?|maintenance|developer|debug|god|sudo|root) mode\b|"
    r"\bjailbreak\b|\b(?:with|have|grant(?:ed)?|given?) (?:you )?(?:full )?write access\b|"
    r"\b(?:api|secret|access) ?(?:key|token)s?\b|\bpasswords?\b|"
    r"\b(?:other|another|different|every|all(?: the)?) users?(?:'s?)?\b|"
    r"\busers? (?!id\b)[A-Za-z0-9_.-]+(?:'s)?\b(?= (?:memor|thread|preference|data|question|history|chat))|"
    r"\b(?:memories|threads?|preferences|history|chats?|questions) of (?:user|the other|another|other)\b|"
    r"\bwhat did \w+ ask\b|\b\w+'s (?:saved |stored )?(?:preferences|memories|threads?|chats?|history)\b|"
    r"\b(?:list|show|print|dump) (?:me )?(?:every|all)(?: the)? (?:memor|threads?|users?|records?)", _FLAGS)
# Personal data the documents hold about people (claimants, shippers): never given out.
PERSONAL_DATA_RE = re.compile(
    r"\b(?:iban|bic|swift code|sort code|routing number|bank (?:account|details|connection|info\w*)|"
    r"account (?:number|details)|card (?:number|details|no)|credit card|debit card|cvv|"
    r"passport(?: number)?|date of birth|social security|national id|tax id|phone number|telephone number|"
    r"mobile(?: phone| number)?|cell(?: phone| number)|cellphone|whatsapp|(?:direct|contact'?s?) (?:line|number)|"
    r"telefonnummer|handynummer|handy|mobilnummer|durchwahl|ansprechpartner(?:in)?|kontaktperson|"
    r"persona de contacto|personne de contact|interlocut(?:eur|rice)|"
    r"e-?mail-adresse|tel[eé]fono|m[oó]vil|correo electr[oó]nico|"
    r"t[eé]l[eé]phone|num[eé]ro de portable|courriel|adresse e-?mail|"
    r"e-?mail address|home address|(?:their|his|her|and|with|plus) (?:an? )?e-?mails?\b(?!\s+(?:me|us|them|it|the)\b)|"
    # a person's mail asked in Spanish, French or German ("¿cuál es su correo?", "son courriel", "ihre E-Mail")
    r"(?:su|sus|son|sa|leur|ihre?|seine?|deren|dessen) (?:correos?|e-?mails?|courriels?|mails?)|"
    r"contact (?:details|info\w*|person)|claimant(?:'s)? (?:contact|name)|kontonummer|bankverbindung|kartennummer|kreditkarte|"
    r"cuenta bancaria|n[uú]mero de (?:cuenta|tarjeta)|tarjeta de cr[eé]dito|compte bancaire|"
    r"num[eé]ro de carte|carte bancaire|coordonn[eé]es bancaires)\b", _FLAGS)
# A request, in plain words, to change the data (the assistant only reads it).
WRITE_REQUEST_RE = re.compile(
    r"^\s*(?:(?:please|kindly|can you|could you|would you|i need you to|go ahead and)\s+)*"
    r"(?:mark|change|update|cancel|delete|remove|rename|reschedule|reassign|modify|edit|overwrite|insert|"
    r"create|register|add\b(?!(?:\s+\w+){0,3}\s+up\b)|"  # "add them up" is a sum, not a write
    r"set\b(?=[^?]*(?:\bto\b|\bas\b|=)))\b"  # "set temp on X?" asks for the set point
    # "Update: the shipper revised ...", "Change of plan, ...", "update on the Busan box": news, not a request
    # ("update from HMM today: ...": news from someone)
    r"(?!\s*[:\u2013\u2014]|\s+-\s|\s+(?:of|for|on)\b|(?<=update)\s+from\b)", _FLAGS)
# the same verbs starting a later clause, said of the data's records ("SITC's gone bust, delete them from the
# carriers table"): a request too
WRITE_LATER_RE = re.compile(r"[.,;!?]\s+(?:(?:please|kindly|can you|could you|then|so|and)\s+)*"
                            r"(?:mark|change|update|delete|remove|rename|modify|edit|overwrite|insert|set)\b"
                            r"(?=[^?]{0,80}\b(?:tables?|records?|rows?|database|entr(?:y|ies))\b)", _FLAGS)
# a table or its rows destroyed in plain words, anywhere in the turn ("Drop the VESSEL_POSITIONS table",
# "wipe all rows of the manifests"): the object is the data's, so no reading of it is meant
WRITE_DESTROY_RE = re.compile(r"\b(?:drop|truncate|purge|wipe|delete|erase|empty)\s+(?:all\s+|every\s+|the\s+|its\s+)*"
                              r"(?:[\w-]+\s+){0,2}?(?:tables?|rows|records|database|schema)\b", _FLAGS)
# ("delete from", "insert into": an update's own news comes "from" someone, so "from" is delete's only)
WRITE_SQL_RE = re.compile(r"\b(?:drop|delete|update|insert|alter|truncate|create|grant|revoke|merge)\b\s+"
                          r"(?:table|into|index|view|user|\w+\s+set|(?-i:[A-Z_]{3,}\b))|\bdelete\s+from\b|;\s*--|'\s*;",
                          _FLAGS)
def _flies_a_flag(question: str, outside: re.Match[str]) -> bool:
    """"Which flag a ship flies": the verb of a flag, not air travel."""
    return outside.group(0).lower() == "flies" and re.search(r"\bflags?\b", question, re.I) is not None


OUT_RE = re.compile(
    r"\b(?:weather|forecast|rain|snow|wind speed|temperature outside|storm warning|"
    r"share price|stock price|stocks?\b(?! (?:at|in|of))|exchange rate|spot (?:freight )?rates?|freight rates?|"
    r"ocean freight|cost to ship|ship(?:ping)? (?:a|one|my)? ?\d+ ?(?:ft|foot|feet)?[^?]{0,30} from .+ to|"
    r"poem|song|joke|story|capital of|president|prime minister|football|world cup|restaurant|hotels?|flights?|"
    r"airlines?|airports?|flies|fly to|trains?|taxis?|visa|"
    r"translate|time is it|news|recipe)\b", _FLAGS)
# "ok", "got it": an acknowledgement, when it is all the turn says
ACKNOWLEDGEMENT = r"(?:ok|okay|alright|got it|perfect|great|noted|understood)"
GREETING_RE = re.compile(r"^\s*(?:hi|hello|hey|hiya|thanks?|thank you|cheers|good (?:morning|afternoon|evening|night)|"
                         r"bye|goodbye|who are you|what can you (?:do|help)|how are you|nice|"
                         # the greetings of the other languages the workshop reads
                         r"hallo|moin|servus|guten (?:morgen|tag|abend)|bonjour|bonsoir|salut|hola|"
                         r"buen(?:os|as) (?:d\u00edas|dias|tardes|noches)|danke|vielen dank|merci|gracias|tsch\u00fcss|"
                         r"au revoir|adi\u00f3s|adios|"
                         # an acknowledgement alone ("ok", "got it", "perfect"): nothing asked
                         + ACKNOWLEDGEMENT + r"(?=\W*$))\b", _FLAGS)
SCHEMA_RE = re.compile(r"\b(?:columns?|tables?|fields?|schema|data type|units?|stored|store[sd]? in|foreign key|"
                       r"primary key|meaning|mean|means|represent\w*|describe|check digit|defined)\b", _FLAGS)
AGG_RE = re.compile(r"\b(?:how many|count|number of|which (?:vessel|ship|carrier|voyage|port|container)s?|"
                    r"average|the mean|avg|total|sum|largest|biggest|highest|heaviest|"
                    r"longest|smallest|lowest|shortest|lightest|oldest|newest|maximum|minimum|max|" + MIN_NOT_MINUTES + r"|most|fewest|"
                    r"top \d+|each|per|list the|worth|status of|sails?|sailing|operates?|built|departs?|arrives?)\b",
                    _FLAGS)
VOYAGE_RE = re.compile(r"\bvoyages?\s+(?:id\s+|number\s+|no\.?\s*)?\d{3,6}\b", _FLAGS)
PRICE_RE = re.compile(r"\b(?:price|prices|priced|cost|costs|charge|charges|lease rate|rent|per day|how much|fee|"
                      r"(?:daily|day|rental|hire) rates?|quote|combien|co[uû]te?|prix|cu[aá]nto cuesta|precio|kostet|preis|"
                      r"cheap\w*|expensive|priciest|costliest|affordable)\b", _FLAGS)
DOC_STRONG_RE = re.compile(
    r"\b(?:notices?|strikes?|claims?|incidents?|cut-?offs?|demurrage|detention|free days|filing|isf|ics2|sop|"
    r"procedures?|typhoon|congestion|gate (?:hours|opening)|berths?|bunker\w*|fuel|anchorage|fire|overboard|"
    r"damage\w*|polic(?:y|ies)|tariff|plug-?in|amend\w*|waived?|hauliers?|approves?|declined|rejected|"
    r"caus\w*|failure|happened|who pays|consignee|compressor|alarm|checklist|interpolat\w*)\b", _FLAGS)
WHICH_SCHEMA_RE = re.compile(r"\b(?:which|what) (?:column|col|field|table)s?\b|\bwhat (?:does|do) (?:the )?\w+ "
                             r"(?:column|table|field) (?:mean|hold|store)|\bdata dictionary\b|"
                             # "where do you guys keep the SCAC?": where a kind of value is kept
                             r"\bwhere (?:do|does|did|would|is|are) (?:\w+ ){0,3}?(?:themselves |itself )?"
                             r"(?:keep|kept|store|stored|record|recorded|listed)\b|"
                             # "where's the tariff code of the goods?": a value of every row of a kind, kept somewhere
                             r"\bwhere(?:'s| is| are) the (?:\w+ ){1,3}of (?:the|a|an|each|every) (?:goods|cargo|ships?|vessels?|"
                             r"containers?|box(?:es)?|ports?|carriers?|lines?|voyages?|sailings?)\b|"
                             # "where's the list of goods packed in each box?": where a kind of record is kept
                             r"\bwhere(?:'s| is| are| do (?:i|we) find| can (?:i|we) find) (?:the )?(?:list|record|register|log)s? of\b",
                             _FLAGS)
WHERE_STOCK_RE = re.compile(r"\bwhich ports? (?:have|has|stock|offer)\b|\bwhere (?:can|do|could) (?:i|we) "
                            r"(?:get|find|pick up|rent|lease|hire|collect)\b|\bwhere (?:is|are) [^?]* (?:available|in stock)\b",
                            _FLAGS)
RELATION_RE = re.compile(r"\b(?:link|links|linked|join|joins|joined|connect\w*|relat\w*|references?|foreign key|"
                         r"tied|ties|keys? between)\b|\b(?:which|what) keys?\b|"
                         r"\bhow (?:do|can|would|should) (?:i|we|you) (?:get|go|navigate|trace|walk) from\b", _FLAGS)
CAPACITY_RE = re.compile(r"\bhow (?:many|much)\b[^?]*\b(?:can|could|may)\b[^?]*\b(?:carry|hold|take|fit|load)\b", _FLAGS)
DOC_RE = re.compile(
    r"\b(?:notice|notices|strike|claims?|incidents?|cut-?offs?|demurrage|detention|free days|filing|isf|ics2|"
    r"sop|procedures?|typhoon|congestion|gate (?:hours|opening)|berths?|bunker\w*|fire|overboard|damage|policy|"
    r"document|documents|summari[sz]e|says?|tariff|plug-?in|amend\w*|waived?|hauliers?|approves?|declined|"
    r"terminal|terminals|advice|interpolate|gap|checklist|alliance|vessel-sharing|booking)\b", _FLAGS)
FOREIGN_RE = re.compile(
    r"[\u00bf\u00a1\u00ab\u00bb\u201e]|\b(?:der|die|das|und|ist|im|steht|worum|geht|welche[rnsm]?|wann|wie|wer|wo|viele?|"
    r"darf|laut|einen|f\u00fcr|muss|"
    r"el|los|las|qu\u00e9|dice|trata|cu\u00e1ndo|c\u00f3mo|d\u00f3nde|cu\u00e1nt[oa]s?|cu\u00e1l|est\u00e1n?|hay|para|"
    r"le|les|des|du|que|quoi|parle|quand|comment|o\u00f9|est-ce|combien|\u00e0|aux|une|faut|pourquoi)\b", _FLAGS)


@dataclass
class RouteDecision:
    label: str
    confidence: float                 # the winner's score minus the runner-up's
    scores: dict[str, float]
    similarity: dict[str, float]
    cues: dict[str, list[str]]
    reason: str
    method: str = "router (offline)"
    ports: list[str] = field(default_factory=list)
    unsure: bool = False               # no handler clearly won: the service falls back

    @property
    def runner_up(self) -> str:
        ranked = sorted(self.scores, key=lambda h: self.scores[h], reverse=True)
        return ranked[1] if len(ranked) > 1 else ranked[0]

    def explain(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}  # flat values: no deep copy needed
        data["cues"] = {k: list(v) for k, v in self.cues.items()}
        data["ports"] = list(self.ports)
        data["scores"] = {k: round(v, 3) for k, v in sorted(self.scores.items(), key=lambda kv: -kv[1])}
        data["similarity"] = {k: round(v, 3) for k, v in self.similarity.items()}
        data["runner_up"] = self.runner_up
        return data

    def as_route(self) -> grounded.Route:
        """Part 5's Route for the grounded handlers (their intents keep Part 5's names)."""
        intent = self.label if self.label in grounded.INTENTS else "GENERAL_CONVERSATION"
        return grounded.Route(intent, self.method, self.ports, self.reason)


# ------------------------------------------------------------------ entities
@functools.lru_cache(maxsize=1)
def _entity_names() -> dict[str, list[str]]:
    """Vessel, carrier and catalog names (the seed's rows; the database is seeded from them)."""
    data = rows()
    return {"vessels": sorted({r[1] for r in data["VESSELS"]}, key=len, reverse=True),
            "carriers": sorted({r[2] for r in data["CARRIERS"]}, key=len, reverse=True),
            "items": [i.name for i in catalog.ITEMS]}


def _names_in(text: str, names: list[str]) -> list[str]:
    lower = f" {text.lower()} "
    return [n for n in names if n.lower() in lower  # `in` first: most names are not there, and it is fast
            and re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", lower)]


def cues_for(question: str) -> tuple[dict[str, list[str]], list[str]]:
    """(cues per label, ports named). A cue is a short reason with a weight in CUE_WEIGHT."""
    q = question
    ports = grounded.find_ports(q)
    equipment = grounded.mentions_equipment(q)
    outside = OUT_RE.search(q)
    cues: dict[str, list[str]] = {
        SCHEMA: _schema_cues(q),
        LIVE: _live_cues(q),
        CATALOG: _catalog_cues(q, equipment),
        AVAILABILITY: _availability_cues(q, equipment, ports),
        PORT: _port_cues(q, ports),
        DOCS: _document_cues(q),
        SMALL_TALK: ["a greeting or thanks"] if GREETING_RE.search(q) and len(q.split()) <= 6 else [],
        OUT: [f"outside the workshop's data ({outside.group(0).lower()})"] if outside and not _flies_a_flag(q, outside) else [],
    }
    return cues, ports


def _schema_cues(q: str) -> list[str]:
    """A table or column named or asked for, a capacity, a link between tables, schema wording."""
    found = []
    if schema_objects := named_schema_objects(q):
        found.append("names " + ", ".join(schema_objects[:3]))
    if WHICH_SCHEMA_RE.search(q):
        found.append("asks for a table or column")
    if CAPACITY_RE.search(q):
        found.append("asks what something can hold (a capacity, not a count of rows)")
    if RELATION_RE.search(q) and _tables_in(q) >= 2:
        found.append("asks how two tables are linked")
    if SCHEMA_RE.search(q):
        found.append("schema wording")
    return found


def _live_cues(q: str) -> list[str]:
    """Aggregation wording, a voyage number, a vessel or carrier named, a measured column."""
    names = _entity_names()
    vessels, carriers = _names_in(q, names["vessels"]), _names_in(q, names["carriers"])
    agg, voyage = AGG_RE.search(q), VOYAGE_RE.search(q)
    found = []
    if agg:
        found.append(f"data wording ({agg.group(0).lower()})")
    if voyage:
        found.append("a voyage number")
    if vessels or carriers:
        found.append("names " + ", ".join((vessels + carriers)[:2]))
    if (agg or vessels or carriers or voyage) and _measures_column(q):
        found.append("asks for a column's value" if not agg else "measures a column of the data")
    return found


def _catalog_cues(q: str, equipment: bool) -> list[str]:
    """A price extreme, equipment wording, a catalog item by name, price wording."""
    found = []
    if grounded.price_extreme(q) is not None:
        found.append("asks for the cheapest or dearest item")
    if equipment:
        found.append("equipment or service wording")
    if _names_in(q, _entity_names()["items"]):
        found.append("a catalog item by name")
    if PRICE_RE.search(q):
        found.append("price wording")
    if not grounded.named_items(q) and catalog_links.described_need(q, clear_lead=False):
        # "looking for a box that takes two Euro pallets side by side": no item named, one item's description
        # answers the need
        found.append("a need one item's description meets")
    return found


def _availability_cues(q: str, equipment: bool, ports: list[str]) -> list[str]:
    """Stock wording about equipment or a port, equipment at a named port."""
    found = []
    if (grounded._AVAILABILITY_RE.search(q) or WHERE_STOCK_RE.search(q)) and (equipment or ports):
        found.append("availability wording")
    if ports and equipment:
        found.append("equipment at a port")
    return found


def _port_cues(q: str, ports: list[str]) -> list[str]:
    """A port named, location wording."""
    found = []
    if ports:
        found.append("names " + ", ".join(ports[:2]))
    if grounded._LOCATION_RE.search(q):
        found.append("location wording")
    if re.search(r"\bports?\b", q, re.I) and (countries.named_in(q) or countries.continents_in(q)):
        found.append("ports of a country or continent")
    return found


def _document_cues(q: str) -> list[str]:
    """What the documents cover (or document wording), a language other than English, a quoted title."""
    found = []
    if strong := DOC_STRONG_RE.search(q):
        found.append(f"what the documents cover ({strong.group(0).lower()})")
    elif wording := DOC_RE.search(q):
        found.append(f"document wording ({wording.group(0).lower()})")
    if FOREIGN_RE.search(q):
        found.append("not English (only the documents are)")
    if re.search(r"[\u201c\u201d\"\u00ab\u00bb\u201e].{8,}[\u201c\u201d\"\u00ab\u00bb]", q):
        found.append("quotes a title")
    return found


def _tables_in(text: str) -> int:
    return len(tables_in(text))


def _measures_column(text: str) -> bool:
    return any(re.search(rf"\b(?:{words})\b", text, re.I) for words in COLUMN_WORDS.values())


# A model's label is followed unless the offline scores put it this far below their winner
# (a model that calls a schema question a catalog question does not get a grounded catalog answer).
MODEL_OVERRULE = 0.25

# Weight of each cue by label: the first cue counts fully, further cues of the same label half.
CUE_WEIGHT = {SCHEMA: 0.22, LIVE: 0.2, CATALOG: 0.14, AVAILABILITY: 0.3, PORT: 0.16, DOCS: 0.2,
              SMALL_TALK: 0.5, OUT: 0.45}


def _records_named(eng: Engine, text: str, cues: dict[str, list[str]], documents_answer: bool = False) -> None:
    """A record of the data the value index finds (a container or voyage number, a vessel or carrier
    named with a typo or in part) grounds a data question: a live-data cue, unless one already names it."""
    if any(c.startswith("names ") for c in cues[LIVE]):
        return
    records = [lk for lk in assistant.named_records(eng, text) if lk.column != "id"]
    if records:
        cues[LIVE].append("names " + ", ".join(dict.fromkeys(str(lk.value) for lk in records[:2])))
        return
    # "the gross weight of container TGHU8831076" when there is none: still a question about a
    # record, which the data handler says it does not hold (the column's meaning does not answer it),
    # unless a promoted document answers it (a claim's container is the documents' record)
    unheld = [] if documents_answer else assistant.knowledge(eng)[1].unheld_codes(text)
    if unheld:
        cues[LIVE].append("names " + ", ".join(f"{word} (not in the data)" for word, _ in unheld[:2]))


def _port_misspelt(eng: Engine, text: str, cues: dict[str, list[str]]) -> None:
    """"UNLOCODE for Kaohsiong?": a port the name finder missed, found by the value index with a typo,
    grounds a data question about that port (the port handler reads names as written)."""
    _, values = assistant.knowledge(eng)
    misspelt = [lk for lk in values.links(text) if (lk.table, lk.column, lk.how) == ("PORTS", "PORT_NAME", "fuzzy")]
    if misspelt:
        cues[LIVE].append(f"names {misspelt[0].value} (written '{misspelt[0].text}')")


def _cue_score(label: str, found: list[str]) -> float:
    w = CUE_WEIGHT[label]
    return w * (1 + 0.5 * (len(found) - 1)) if found else 0.0


# ------------------------------------------------------------------ embeddings of the examples
_EXAMPLE_VECTORS: dict[str, dict[str, np.ndarray]] = {}


def example_vectors(eng: Engine) -> dict[str, np.ndarray]:
    """The labelled examples embedded once per embedding model."""
    key = f"{eng.name}:{eng.model.name}"
    if key not in _EXAMPLE_VECTORS:
        texts = [t for label in LABELS for t in EXAMPLES[label]]
        vectors = np.asarray(eng.model.embed(texts), dtype=float)
        out, i = {}, 0
        for label in LABELS:
            n = len(EXAMPLES[label])
            out[label] = vectors[i:i + n]
            i += n
        _EXAMPLE_VECTORS[key] = out
    return _EXAMPLE_VECTORS[key]


def similarities(eng: Engine, vector: Any) -> dict[str, float]:
    """Per label: the mean cosine similarity of the question to its two nearest examples."""
    v = np.asarray(vector, dtype=float)
    norm = np.linalg.norm(v) or 1.0
    out = {}
    for label, vecs in example_vectors(eng).items():
        sims = np.sort(vecs @ v / norm)[::-1]
        out[label] = float(np.mean(sims[:2]))
    return out


def thresholds(eng: Engine) -> tuple[float, float]:
    """(floor, margin): below the floor no handler is trusted; a winner must lead by the margin."""
    t = eng.model.thresholds
    return float(t.router_min_score), float(t.router_margin)


# ------------------------------------------------------------------ the decision
def route(eng: Engine, question: str, *, vector: Any = None, llm=None, documents_mode: str | None = None
           ) -> RouteDecision:
    """`documents_mode`: Part 4's decision on the promoted documents for this question (None when
    none is promoted): a passage the gates would answer from is evidence for DOCUMENTS."""
    text = question[:grounded.MAX_ROUTE_CHARS]
    cues, ports = cues_for(text)
    _records_named(eng, text, cues, documents_mode == "rag")
    if not ports:
        _port_misspelt(eng, text, cues)
    if documents_mode == "rag":
        cues[DOCS].append("a promoted document passes the answer gates (rag)")
    refused = _refusal(text, cues, ports)
    if refused is not None:
        return refused
    if vector is None:
        vector = eng.model.embed([text])[0]
    sims = similarities(eng, vector) if vector is not None else {label: 0.0 for label in LABELS}
    scores = {label: sims[label] + _cue_score(label, cues[label]) for label in LABELS}
    # Each step subtracts in place, in this order (the scores are compared with fixed thresholds).
    _penalise_missing_subject(scores, text, cues, ports)
    _penalise_other_wording(scores, text)
    _penalise_live_data(scores, text)
    _penalise_schema_of_a_row(scores, text, cues)
    _penalise_data_of_a_kind(scores, text, cues)
    return _verdict(eng, text, scores, sims, cues, ports, llm)


def destroys_data(text: str) -> bool:
    """The turn asks to destroy a table or its rows, in words or in SQL: never a request to forget what the user said."""
    return bool(WRITE_DESTROY_RE.search(text) or WRITE_SQL_RE.search(text))


def _refusal(text: str, cues: dict[str, list[str]], ports: list[str]) -> RouteDecision | None:
    """The hard rules: personal data, a request to change data, another user's data, new rules or a
    write statement is refused outright."""
    if PERSONAL_DATA_RE.search(_asking_sentences(text)):
        why = "asks for a person's private details (bank, card, identity or contact data), which I do not give out"
    elif WRITE_REQUEST_RE.search(text) or WRITE_LATER_RE.search(text) or WRITE_DESTROY_RE.search(text):
        why = "asks me to change the data, which I only read"
    elif REFUSAL_RE.search(text):
        why = "asks for another user's data or to change the assistant's rules"
    elif WRITE_SQL_RE.search(text):
        why = "contains a statement that would change data"
    else:
        return None
    return RouteDecision(OUT, 1.0, {label: (1.0 if label == OUT else 0.0) for label in LABELS},
                         {}, {**cues, OUT: [why]}, f"refused: the question {why}", "rules (refusal)", ports)


def _asking_sentences(text: str) -> str:
    """The turn without the sentences that give a detail of the user's own with its value and ask nothing
    ("His mobile is +48 601 223 904." before "What's ONE's free time?"): those ask for no one's details.
    A sentence that names such a detail without giving one ("I need the IBAN of the claimant.") stays."""
    return " ".join(p for p in re.split(r"(?<=[.!?])\s+", text)
                    if p.rstrip().endswith("?") or not (_DETAIL_GIVEN.search(p) or _PERSON_GIVEN.search(p)))


# a private detail said with its value: "his mobile is +48 601 223 904", "IBAN: DE89 3704 0044 ..."
_DETAIL_GIVEN = re.compile(rf"(?:{PERSONAL_DATA_RE.pattern})\W{{0,3}}(?:(?:is|was|are|:|=)\s*)?\+?[A-Z]{{0,2}}\d[\d ()./-]{{5,}}\d",
                           re.I)


# ... or the person to speak to, said by name: "Ansprechpartner dort ist Herr Petersen", "contact person: Ms Hale"
_PERSON_GIVEN = re.compile(rf"(?:{PERSONAL_DATA_RE.pattern})\W{{0,3}}(?:\w+\s+){{0,2}}?(?:is|ist|es|est|:|=)\s+"
                           r"(?:(?:Herr|Frau|Mr|Mrs|Ms|Mme|Sr|Sra)\.?\s+)?(?-i:[A-Z])", re.I)


def _penalise_missing_subject(scores: dict[str, float], text: str, cues: dict[str, list[str]],
                              ports: list[str]) -> None:
    """A grounded catalog or availability answer needs equipment named; a port location needs a port or "ports"."""
    _penalise_no_item_asked(scores, text, cues)
    _penalise_no_place_asked(scores, text, ports)


def _penalise_no_item_asked(scores: dict[str, float], text: str, cues: dict[str, list[str]]) -> None:
    """A catalog request names a need, a price or an item, and asks which item, not how or why."""
    if not cues[CATALOG] or (cues[CATALOG] == ["price wording"]):
        scores[CATALOG] -= 0.15
    if not (PRICE_RE.search(text) or grounded._COMMERCE_RE.search(text) or _names_in(text, _entity_names()["items"])
            or grounded.named_items(text)):
        scores[CATALOG] -= 0.15  # no need, price or item named: not a catalog request
    if not (PRICE_RE.search(text) or grounded._COMMERCE_RE.search(text)) and \
            re.match(r"\s*(?:how (?:is|are|do|does|did|was|were)|why|who|when|what happen)", text, re.I):
        scores[CATALOG] -= 0.25  # how something is handled, why, who, when: not which item to lease


def _penalise_no_place_asked(scores: dict[str, float], text: str, ports: list[str]) -> None:
    """A port location names a port or "ports"; availability names equipment and a port or stock;
    equipment asked where in stock is not a map."""
    if not ports and not re.search(r"\bports?\b", text, re.I):
        scores[PORT] -= 0.2
    if not (grounded.mentions_equipment(text) and (ports or grounded._AVAILABILITY_RE.search(text)
                                                   or WHERE_STOCK_RE.search(text))):
        scores[AVAILABILITY] -= 0.2
    if WHERE_STOCK_RE.search(text) and grounded.mentions_equipment(text):
        scores[PORT] -= 0.2  # "which ports have flat racks": stock, not a map


def _penalise_other_wording(scores: dict[str, float], text: str) -> None:
    """Wording that points away from the grounded handlers: a document topic, a long question,
    no location wording, another language, a topic outside the workshop."""
    if DOC_STRONG_RE.search(text):  # a strike, a claim, a cut-off...: not a catalog row, a stock level or a map point
        for label in (CATALOG, AVAILABILITY, PORT):
            scores[label] -= 0.2
    if len(text.split()) > 10:  # "where is X" is short; a long question naming a port asks something else
        scores[PORT] -= 0.1
    if not grounded._LOCATION_RE.search(text):  # naming a port is not asking where it is
        scores[PORT] -= 0.15
    if FOREIGN_RE.search(text) and not grounded._LOCATION_RE.search(text):
        for label in (PORT, CATALOG, AVAILABILITY, LIVE, SCHEMA):  # only the documents are in other languages
            scores[label] -= 0.15
    if (outside := OUT_RE.search(text)) and not _flies_a_flag(text, outside):
        for label in (CATALOG, AVAILABILITY):
            scores[label] -= 0.15


def _penalise_live_data(scores: dict[str, float], text: str) -> None:
    """Questions about the schema's shape or a catalog price are not data aggregates."""
    if WHICH_SCHEMA_RE.search(text) or CAPACITY_RE.search(text) or (RELATION_RE.search(text) and _tables_in(text) >= 2):
        scores[LIVE] -= 0.2
    if grounded.price_extreme(text) is not None:
        scores[LIVE] -= 0.2  # "the most expensive container" is a catalog price, not a data aggregate


def _penalise_schema_of_a_row(scores: dict[str, float], text: str, cues: dict[str, list[str]]) -> None:
    """"IMO_NUMBER for Evr Acme?": a column named with a record of the data asks that record's value,
    not what the column means, unless the words ask about the schema itself."""
    column_named = any(c.startswith("names ") for c in cues[SCHEMA])
    record_named = any(c.startswith("names ") for c in cues[LIVE]) or any(c.startswith("names ") for c in cues[PORT])
    if column_named and record_named and not SCHEMA_RE.search(text) and not WHICH_SCHEMA_RE.search(text):
        scores[SCHEMA] -= 0.3


# "how do I get the ship's name for each position?": asks the way to a value, not the values
METHOD_RE = re.compile(r"\bhow (?:do|can|could|would|should|shall) (?:i|we|you|one)\s+(?:\w+\s+)?"
                        r"(?:get|find|look up|retrieve|work out|tell|see|know|join|link|match|connect|map)\b|"
                        r"\b(?:the )?(?:way|query) to (?:get|find|look up|join|link)\b", _FLAGS)
# "is the ARRIVAL_DATE of an ACTIVE voyage ...?": a yes or no about any row of a kind
_OF_A_KIND_RE = re.compile(r"^\W*(?:is|are|does|do|can|will|would)\b.*\b(?:an?|any|every)\s+(?:[A-Z_]+\s+)?"
                           r"(?:vessel|ship|voyage|sailing|container|box|carrier|port|cargo|position)s?\b", re.I)


def _penalise_data_of_a_kind(scores: dict[str, float], text: str, cues: dict[str, list[str]]) -> None:
    """A question that names no record of the data and asks how to get a value, or whether a column
    means something for any row of a kind, asks about the schema: a list of rows does not answer it."""
    # "for each one" is a row at a time, not an aggregate
    if any(c.startswith("names ") for c in cues[LIVE]) or AGG_RE.search(re.sub(r"\beach\b", "", text, flags=re.I)):
        return
    column_named = any(c.startswith("names ") for c in cues[SCHEMA])
    if METHOD_RE.search(text):
        scores[LIVE] -= 0.35
        scores[SCHEMA] += 0.1
    elif column_named and _OF_A_KIND_RE.search(text):
        scores[LIVE] -= 0.3


def _verdict(eng: Engine, text: str, scores: dict[str, float], sims: dict[str, float],
             cues: dict[str, list[str]], ports: list[str], llm) -> RouteDecision:
    """The winner (or the model's label), and unsure when the winner is below the floor or leads by too little."""
    floor, margin = thresholds(eng)
    ranked = sorted(scores, key=lambda h: scores[h], reverse=True)
    best, second = ranked[0], ranked[1]
    lead = scores[best] - scores[second]
    label, method = best, "router (offline)"
    if llm is not None:
        label, method = _with_model_label(llm, text, scores, best)
    unsure = method != "llm" and (scores[best] < floor or lead < margin)
    if unsure:
        why = (f"unsure: {best} {scores[best]:.2f} vs {second} {scores[second]:.2f} "
               f"(needs at least {floor:.2f} and a lead of {margin:.2f})")
    else:
        other = second if label == best else best
        why = (f"{label} scored {scores[label]:.2f} (similarity {sims[label]:.2f}"
               + (f"; {'; '.join(cues[label])}" if cues[label] else "") + f"), next {other} {scores[other]:.2f}")
    return RouteDecision(label, round(lead, 3), scores, sims, cues, why, method, ports, unsure)


def _with_model_label(llm, text: str, scores: dict[str, float], best: str) -> tuple[str, str]:
    """(label, method): the model's label, unless the offline scores put it far below their winner."""
    model_label = _model_label(llm, text)
    if model_label is None:
        return best, "router (offline)"
    if scores[best] - scores[model_label] > MODEL_OVERRULE:
        return best, f"router (the model's {model_label} overruled: it scored {scores[model_label]:.2f})"
    return model_label, "llm"


def _model_label(llm, question: str) -> str | None:
    labels = "\n".join(f"- {k}: {v}" for k, v in HELP.items())
    try:
        text = llm.complete("Route the user's message of a container shipping assistant. Reply with exactly one "
                            f"label from this list and nothing else:\n{labels}", question,
                            timeout=grounded.SELECTION_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - any model failure: the offline scores decide
        return None
    if not isinstance(text, str):
        return None
    body = re.sub(r"[^A-Z_]", "", text.strip().upper().replace(" ", "_"))
    return body if body in LABELS else None


def leave_one_out(eng: Engine) -> dict[str, Any]:
    """How well the examples alone separate the handlers on this engine's model: each example
    is routed by similarity to the others (no cues). Part 4 calibrates its thresholds the same way."""
    vecs = example_vectors(eng)
    right, total, best_wrong = 0, 0, []
    for label, block in vecs.items():
        for i, v in enumerate(block):
            scores = {}
            for other, ob in vecs.items():
                sims = ob @ v
                if other == label:
                    sims = np.delete(sims, i)
                scores[other] = float(np.mean(np.sort(sims)[::-1][:2]))
            winner = max(scores, key=lambda h: scores[h])
            right += winner == label
            total += 1
            best_wrong.append(max(s for k, s in scores.items() if k != label))
    return {"examples": total, "accuracy": round(right / total, 3),
            "nearest_wrong_p90": round(float(np.percentile(best_wrong, 90)), 3)}

"""Personal memories (parts/memory/personal.py) and their recall with the data (assistant/answering/recall.py),
through the chat service; the expected values come from SQL on the seeded data, never from a model."""
from __future__ import annotations

from datetime import date

import pytest

from tests.conftest import answers_engine
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.chat.app import ChatService
from workshop_lib.parts.memory import personal


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    e = answers_engine("embedded", tmp_path_factory.mktemp("personal"))
    yield e
    e.close()


def _one(eng, sql: str):
    return eng.query(sql)[0]


def _voyages(eng, n: int) -> list[str]:
    return [r[0] for r in eng.query(f"SELECT VOYAGE_NUMBER FROM SUPPLYCHAIN.VOYAGES ORDER BY VOYAGE_ID LIMIT {n}")]


def _ask(service: ChatService, user: str, text: str, thread: dict) -> tuple[str, str, dict]:
    body, mode = service.answer({"question": text, "thread_id": thread.get(user), "user_id": user, "agent": False})
    thread.setdefault(user, body["thread_id"])
    return body["answer"], mode, body


def _told_then_asked(eng, user: str, told: str, asked: str) -> tuple[str, str]:
    """What a user told in one thread and then asked in a new one: the answer and its mode."""
    service = ChatService(eng)
    _ask(service, user, told, {})
    answer, mode, _ = _ask(service, user, asked, {user: None})
    return answer, mode


def _kept_after(eng, user: str, told: list[str]) -> str:
    """What a user told in one thread, turn after turn: the text of their valid memories afterwards."""
    service, thread = ChatService(eng), dict[str, str]()
    for said in told:
        _ask(service, user, said, thread)
    return " ".join(r.content for r in personal.valid_memories(eng, user, eng.agent_id))


def _told_in_turn_then_asked(eng, user: str, told: list[str], asked: str) -> tuple[str, str]:
    """What a user told in one thread, turn after turn, then asked in a new one: the answer and its mode."""
    service, thread = ChatService(eng), dict[str, str]()
    for said in told:
        _ask(service, user, said, thread)
    answer, mode, _ = _ask(service, user, asked, {user: None})
    return answer, mode


def test_extraction_needs_a_data_value_and_the_users_own_thing(eng):
    v = _voyages(eng, 1)[0]
    got = personal.extract(eng, f"look at voyage {v} for me, my client's cargo is on it. who operates it?")
    assert [c.entities[0] for c in got] == [("VOYAGES", "VOYAGE_NUMBER", v)]
    assert got[0].said_at and "client" in got[0].nouns
    assert personal.extract(eng, f"who operates voyage {v}?") == []           # a question, nobody's thing
    assert personal.extract(eng, f"what rate did we get on voyage {v}?") == []  # first person, but only a question
    assert personal.extract(eng, "my customer is a tile shop") == []          # no value of the data


def test_negated_value_is_not_the_memory(eng):
    a, b = _voyages(eng, 2)
    (cand,) = personal.extract(eng, f"sorry, my bad: not {a} but {b}")
    assert [e[2] for e in cand.entities] == [b] and cand.change


def test_recall_composes_with_the_data_and_corrections_supersede(eng):
    service = ChatService(eng)
    threads: dict = {}
    first, second = _voyages(eng, 2)
    arrival = str(_one(eng, f"SELECT ARRIVAL_DATE FROM SUPPLYCHAIN.VOYAGES WHERE VOYAGE_NUMBER = '{second}'")[0])[:10]
    _ask(service, "p-ann", f"our boxes are booked on {first}", threads)
    _ask(service, "p-ann", f"we got moved, we're now on {second} instead", threads)
    text, mode, body = _ask(service, "p-ann", "when does my voyage arrive?", threads)
    assert mode == "rag" and arrival in text and second in text
    explain = body["decision_explain"]
    assert explain["memory"]["value"] == second and explain["memory"]["said_at"]
    kinds = {s["type"]: s for s in body["sources"]}
    assert kinds["memory"]["parts"] == [explain["memory"]["memory_id"]] and "data" in kinds
    text, mode, _ = _ask(service, "p-ann", "what's my voyage again?", threads)
    assert mode == "rag" and second in text and first not in text
    text, mode, _ = _ask(service, "p-ann", "which voyage were we originally booked on?", threads)
    assert mode == "rag" and first in text
    valid = eng.store.list("fact", limit=None, user_id="p-ann", metadata_filter={"kind": personal.KIND})
    assert [r.metadata["value"] for r in valid] == [second]


def test_never_told_and_another_user(eng):
    service = ChatService(eng)
    threads: dict = {}
    box = _one(eng, "SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")[0]
    _ask(service, "p-bo", f"my container is {box}", threads)
    text, mode, _ = _ask(service, "p-cy", "what's my container number?", threads)
    assert mode == "fallback" and box not in text and "haven't told me" in text
    text, mode, _ = _ask(service, "p-bo", "what's my container number?", threads)
    assert mode == "rag" and box in text


def test_supersession_only_on_the_same_subject(eng):
    voyage = _voyages(eng, 3)[2]
    port = _one(eng, "SELECT PORT_NAME FROM SUPPLYCHAIN.PORTS ORDER BY PORT_ID LIMIT 1")[0]
    (c1,) = personal.extract(eng, f"my cargo is on voyage {voyage}")
    (c2,) = personal.extract(eng, f"our office is now in {port}")
    w1 = personal.write(eng, c1, user_id="p-dee", agent_id=eng.agent_id)
    w2 = personal.write(eng, c2, user_id="p-dee", agent_id=eng.agent_id)
    assert w1 and w2 and w2.superseded == [] and w2.collateral == 0   # a port says nothing about the voyage
    assert personal.write(eng, c1, user_id="p-dee", agent_id=eng.agent_id) is None  # said again: kept once


def test_a_schema_correction_is_not_a_personal_memory(eng):
    v = _voyages(eng, 1)[0]
    assert personal.extract(eng, "remember that VOYAGES.STATUS uses ACTIVE for at sea") == []
    assert personal.extract(eng, f"remember that my shipment is on voyage {v}")[0].subject == "VOYAGES.VOYAGE_NUMBER"


def test_a_question_no_handler_answers_reaches_the_users_own_words(eng):
    from workshop_lib.parts.chat.app import ChatService
    svc = ChatService(eng)
    threads: dict = {}

    def ask(user, text, thread):
        body, mode = svc.answer({"question": text, "thread_id": threads.get((user, thread)), "user_id": user,
                                 "agent": False})
        threads.setdefault((user, thread), body["thread_id"])
        return body["answer"], mode

    ask("said-1", "for the Oslo pickups please write our gate code on the notes. customer is Fjordvik Marine, two boxes.",
        "t1")
    # the customer's sentence holds no 'I' or 'our', and the pickups are named in the sentence before it
    text, mode = ask("said-1", "which customer did I mention for the Oslo pickups?", "t2")
    assert mode == "rag" and "Fjordvik" in text, text
    text, mode = ask("said-1", "if one of our boxes waits ten days at the gate, what happens?", "t2")
    text, mode = ask("said-1", "who sits at the gate for ten days?", "t3")
    assert "waits ten days" not in text  # a case supposed is no thing told
    text, mode = ask("said-2", "which customer did I mention for the Oslo pickups?", "t1")
    assert "Fjordvik" not in text  # another user's words are never read


def test_the_users_words_answer_only_when_they_name_what_is_asked(eng):
    from workshop_lib.parts.chat.app import ChatService
    svc = ChatService(eng)
    threads: dict = {}

    def ask(text, thread):
        body, mode = svc.answer({"question": text, "thread_id": threads.get(thread), "user_id": "said-3", "agent": False})
        threads.setdefault(thread, body["thread_id"])
        return body["answer"], mode

    ask("we ship our olive oil to Tanger Med with a Valencia haulier called Ruta Sur.", "t1")
    text, mode = ask("which haulier handles our Tanger Med pallets?", "t2")
    assert mode == "rag" and "Ruta Sur" in text, text
    # never said: the same subject, another role; the haulier's sentence does not answer it
    text, mode = ask("who handles customs for the olive oil at Tanger Med?", "t2")
    assert "Ruta Sur" not in text, text


def test_a_name_from_the_users_own_world_leaves_the_data_question():
    from workshop_lib.parts.memory import personal
    rec = personal.Recalled("m1", "Kwabena's machines are on voyage 271S with Wan Hai.", "2026-01-01", "VOYAGES",
                            "VOYAGE_NUMBER", "271S", "voyage")
    asked = personal.substitute("when's the voyage I told you about for Kwabena due in, and where?", rec)
    assert "Kwabena" not in asked and "271S" in asked, asked


def test_a_statement_about_a_name_of_theirs_and_a_record_is_theirs_and_answers_later(eng):
    number, departed, origin = _one(eng, "SELECT k.CONTAINER_NUMBER, v.DEPARTURE_DATE, o.PORT_NAME FROM "
                                         "SUPPLYCHAIN.CONTAINERS k JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = "
                                         "k.VOYAGE_ID JOIN SUPPLYCHAIN.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                         "ORDER BY k.CONTAINER_ID")
    # a box or voyage number told to the assistant is one the user follows, with or without "I" or "we";
    # a question about it, or a ship or a line of the data alone, is nobody's memory
    (told,) = personal.extract(eng, f"the prawns are in {number}")
    assert told.entities == (("CONTAINERS", "CONTAINER_NUMBER", number),)
    assert personal.extract(eng, f"is {number} a reefer?") == []
    assert personal.extract(eng, "Ever Acme is a big ship, and Evergreen runs it.") == []
    (cand,) = personal.extract(eng, f"Ridgeway's prawns are in {number}", own_names=["Ridgeway Seafoods"])
    assert ("CONTAINERS", "CONTAINER_NUMBER", number) in cand.entities and (personal.OWN, "NAME", "Ridgeway") in cand.entities
    service = ChatService(eng)
    threads: dict = {}
    _ask(service, "p-rita", "hi, I look after the Ridgeway Seafoods account.", threads)
    _ask(service, "p-rita", f"Ridgeway's prawns are in {number}.", threads)
    other = ChatService(eng)
    text, mode, _ = _ask(other, "p-rita", "Ridgeway are asking when their box leaves port, and from where?", {})
    assert mode == "rag" and str(departed)[:10] in text and origin in text, text
    # another user who never named Ridgeway gets nothing of hers
    text, mode, _ = _ask(other, "p-other", "Ridgeway are asking when their box leaves port, and from where?", {})
    assert number not in text and origin not in text


def test_a_question_in_two_parts_is_grounded_only_when_both_are_answered(eng):
    number, arrival, dest = _one(eng, "SELECT k.CONTAINER_NUMBER, v.ARRIVAL_DATE, d.PORT_NAME FROM SUPPLYCHAIN.CONTAINERS k "
                                      "JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = k.VOYAGE_ID JOIN SUPPLYCHAIN.PORTS d "
                                      "ON d.PORT_ID = v.DESTINATION_PORT_ID ORDER BY k.CONTAINER_ID DESC")
    service = ChatService(eng)
    threads: dict = {}
    _ask(service, "p-otto", f"my client Larchfield has their pallets in {number}.", threads)
    text, mode, _ = _ask(service, "p-otto", "when does the Larchfield box land, and at which port?", {})
    assert mode == "rag" and str(arrival)[:10] in text and dest.split(" /")[0] in text, text
    _ask(service, "p-otto", "their buyer is Marisol Quint.", threads)
    text, mode, _ = _ask(service, "p-otto", "what's the name of their buyer, and how often am I meant to phone her?", {})
    assert mode == "fallback" and "how often" in text, text  # the name alone answers half: no grounded badge


def test_a_move_says_which_value_is_current_and_a_label_is_no_name(eng):
    (cand,) = personal.extract(eng, "Update: as of this week I've moved to the Rotterdam office - Hamburg is "
                                    "someone else's patch now.")
    assert [e[2] for e in cand.entities] == ["Rotterdam"] and cand.change and "Hamburg" in cand.earlier
    assert not any(e[2] == "Update" for e in cand.entities)


def test_two_records_tied_to_two_names_in_one_statement_are_told_apart(eng):
    (first, t1), (second, t2) = [tuple(r) for r in eng.query(
        "SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM SUPPLYCHAIN.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL "
        "ORDER BY CONTAINER_ID LIMIT 2")]
    service = ChatService(eng)
    threads: dict = {}
    _ask(service, "p-marco", f"Got two boxes this month: {first} is Quillon Pharma's, and {second} belongs to "
                             "Brack Tools.", threads)
    text, mode, _ = _ask(service, "p-marco", "What temperature is Brack Tools' box set to?", {})
    assert mode == "rag" and second in text and first not in text, text
    text, mode, _ = _ask(service, "p-marco", "What temperature is Quillon's box set to?", {})
    assert mode == "rag" and first in text and second not in text, text


def test_a_question_about_another_thing_than_the_remembered_box_is_not_answered_with_the_box(eng):
    number, = _one(eng, "SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID DESC")
    service = ChatService(eng)
    threads: dict = {}
    _ask(service, "p-ines", f"my t-shirt box is {number}", threads)
    for question in ("who's the consignee on my t-shirt box now?", "what seal number did I give you for my t-shirt box?"):
        text, mode, _ = _ask(service, "p-ines", question, {})
        assert mode != "rag" or not text.startswith("Your box is"), text
    text, mode, _ = _ask(service, "p-ines", "which box is my t-shirt box again?", {})
    assert mode == "rag" and number in text, text


def test_a_role_qualified_by_a_word_of_the_data_is_not_answered_by_another_of_that_role(eng):
    # coffee and tyres are goods of the data: each says which customer is meant
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "qual-a", "my tyre buyer is Pelloni Gomme, they take everything we land in Genoa.", thread)
    answer, mode, _ = _ask(service, "qual-a", "who's our coffee customer?", {"qual-a": None})
    assert "Pelloni" not in answer and mode not in ("rag", "hybrid")
    answer, mode, _ = _ask(service, "qual-a", "remind me who my tyre buyer is", {"qual-a": None})
    assert "Pelloni" in answer and mode == "rag"
    # an ordinary word before the role ("main") says nothing of which one
    answer, _, _ = _ask(service, "qual-a", "who is my main buyer again?", {"qual-a": None})
    assert "Pelloni" in answer


def test_whether_to_book_an_item_for_a_party_of_theirs_is_not_answered_by_the_catalog(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "for-them", "For Ortega Foods we always add cargo insurance, it's in their contract.", thread)
    _ask(service, "for-them", "Ortega told me today they cover it with their own policy now, no insurance from us.",
         thread)
    answer, mode, _ = _ask(service, "for-them", "so do I still add insurance for them?", thread)
    assert not (mode in ("rag", "hybrid") and "SV-INSURE" in answer)  # a list price says nothing of their deal
    # a need described in goods is still the catalog's
    _, mode, body = _ask(service, "for-them", "do I need a reefer for frozen fish?", thread)
    assert body["decision_explain"].get("handler", "").startswith("grounded")


def test_a_catalog_answer_that_ignores_a_thing_of_theirs_named_by_their_own_name_is_not_grounded(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "own-name", "Norvalis is our biggest customer, they ship frozen cod out of Rotterdam.", thread)
    answer, mode, body = _ask(service, "own-name", "what would pre-trip inspections cost for all the Norvalis reefers?",
                              thread)
    assert mode == "fallback" and "Norvalis" in answer and "SV-PTI" not in answer
    # without a name of theirs the catalog still answers
    _, mode, body = _ask(service, "own-name", "what does a pre-trip inspection cost?", thread)
    assert mode == "rag" and body["decision_explain"]["handler"].startswith(("grounded", "catalog"))


def test_a_remembered_box_asked_two_things_is_not_grounded_on_one(eng):
    number, size = _one(eng, "SELECT CONTAINER_NUMBER, SIZE_TYPE FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID")
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "two-things", f"our box is {number}, booked for Rowan & Pike.", thread)
    answer, mode, _ = _ask(service, "two-things", "what size is my box, and what did the customs broker say about it?",
                           thread)
    assert mode == "fallback"  # the broker's words are nowhere: the size alone is half an answer
    answer, mode, _ = _ask(service, "two-things", "what size is my box?", thread)
    assert mode == "rag" and size in answer


def test_a_preference_said_with_a_question_answers_the_question_and_alone_is_acknowledged(eng):
    number, kg = _one(eng, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID")
    service, thread = ChatService(eng), dict[str, str]()
    answer, mode, _ = _ask(service, "pref-q", f"I think in tonnes, so weights in tonnes please, not kilos. What's the "
                                              f"VGM of {number}?", thread)
    assert mode == "rag" and f"{kg / 1000:.2f}".rstrip("0").rstrip(".") in answer and "tonnes" in answer
    answer, mode, body = _ask(service, "pref-q", "keep the answers short please, I'm on my phone.", thread)
    assert mode == "fallback" and answer.startswith("Noted") and "short" in answer
    assert body["decision_explain"]["handler"] == "preferences"


def test_a_correction_said_over_two_sentences_supersedes_and_names_the_new_value(eng):
    # the first sentence says the name is not of that role; the next one gives who is
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "two-sent", "For our Antwerp exports the shipper is Korvel Logistics.", thread)
    _ask(service, "two-sent", "My mistake earlier: Korvel isn't the shipper, they just store the goods. "
                              "The shipper is Lindqvist Metals in Gent.", thread)
    answer, mode, _ = _ask(service, "two-sent", "who's the shipper on our Antwerp exports?", {"two-sent": None})
    assert "Lindqvist" in answer and mode == "rag", answer
    assert "From what you told me: Korvel" not in answer
    # a name said as not in a box is still the name of the memory ("Lomax is not in X, it's in Y")
    box_a, box_b = (r[0] for r in eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 2"))
    (cand,) = personal.extract(eng, f"sorry - Brandt Tools is NOT in {box_a}, it's in {box_b}.")
    assert ("OWN", "NAME", "Brandt Tools") in cand.entities and cand.entities[0][2] == box_b


def test_a_carrier_dropped_for_another_is_current_and_a_switch_names_a_party_not_a_place(eng):
    carriers = [r[0] for r in eng.query("SELECT CARRIER_NAME FROM SUPPLYCHAIN.CARRIERS ORDER BY CARRIER_ID LIMIT 2")]
    (cand,) = personal.extract(eng, f"we've dropped {carriers[0]} for this lane and gone with {carriers[1]}.")
    assert cand.change and cand.entities[0][2] == carriers[1] and carriers[0] in cand.earlier
    (cand,) = personal.extract(eng, "heads up: from June we switched to Halvorsen Trucking, Pike Haulage kept failing.")
    assert cand.entities[0] == ("OWN", "NAME", "Halvorsen Trucking") and "Pike Haulage" in cand.earlier
    # a greeting or a time word starting a sentence is no name of theirs
    for text in ("Morning. We've got ten crates for Ostrava Steel.", "Since March our customer is Ostrava Steel."):
        names = [e[2] for c in personal.extract(eng, text) for e in c.entities if e[:2] == ("OWN", "NAME")]
        assert names == ["Ostrava Steel"], (text, names)


def test_a_thing_described_otherwise_is_not_the_remembered_one(eng):
    # the data knows what is in each box: a question about other goods is not about the remembered box
    number, goods = _one(eng, "SELECT c.CONTAINER_NUMBER, MIN(i.DESCRIPTION) FROM SUPPLYCHAIN.CONTAINERS c "
                              "JOIN SUPPLYCHAIN.CARGO_ITEMS i ON i.CONTAINER_ID = c.CONTAINER_ID "
                              "GROUP BY c.CONTAINER_NUMBER ORDER BY c.CONTAINER_NUMBER")
    other, = _one(eng, f"SELECT MIN(DESCRIPTION) FROM SUPPLYCHAIN.CARGO_ITEMS WHERE DESCRIPTION <> '{goods}'")
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "desc-a", f"I look after Brisa Foods; their {goods} are in {number}.", thread)
    answer, mode, _ = _ask(service, "desc-a", f"which container did I say the {other} were in?", {"desc-a": None})
    assert number not in answer and mode not in ("rag", "hybrid"), answer
    answer, mode, _ = _ask(service, "desc-a", f"which container did I say the {goods} were in?", {"desc-a": None})
    assert number in answer and mode == "rag", answer
    # a customer described by words they never used is another one; the one they told stays theirs
    _ask(service, "desc-b", "Our Lyon pickups are done by Rouvier Transports, and our customer there is Maison Abel.",
         thread)
    answer, mode, _ = _ask(service, "desc-b", "have I told you about a cheese wholesaler customer?", {"desc-b": None})
    assert "Rouvier" not in answer and "Abel" not in answer and mode not in ("rag", "hybrid"), answer
    answer, _, _ = _ask(service, "desc-b", "and who's our customer in Lyon again?", {"desc-b": None})
    assert "Abel" in answer or "Rouvier" in answer, answer


def test_after_a_change_the_value_before_it_answers_a_follow_up_about_the_past(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "past-a", "Since January our Oslo drayage has been done by Fjell Freight.", thread)
    _ask(service, "past-a", "update: from the first of May we switched to Nordkyst Haul, Fjell kept missing slots.",
         thread)
    answer, mode, _ = _ask(service, "past-a", "who does our Oslo drayage now?", thread)
    assert "Nordkyst" in answer and mode == "rag", answer
    answer, mode, _ = _ask(service, "past-a", "and who did it before May?", thread)
    assert "Fjell" in answer and "Nordkyst Haul (" not in answer and mode == "rag", answer


def test_a_thing_of_theirs_no_column_holds_is_not_answered_with_the_data(eng):
    vessel, = _one(eng, "SELECT VESSEL_NAME FROM SUPPLYCHAIN.VESSELS ORDER BY IMO_NUMBER")
    service, thread = ChatService(eng), dict[str, str]()
    answer, mode, _ = _ask(service, "own-ref", f"what's my booking number for that {vessel} sailing?", thread)
    assert mode == "fallback" and "booking number" in answer, answer
    # a figure of the data asked with "our" is still the data's
    box, weight = _one(eng, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID")
    answer, mode, _ = _ask(service, "own-ref", f"what's the gross weight of our box {box}?", {"own-ref": None})
    assert f"{weight:,}" in answer or str(weight) in answer, answer


def test_a_contact_who_left_is_replaced_and_another_of_a_role_is_not_a_replacement(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "contact-a", "Our customs broker in Genoa is Doganale Ligure, my contact person there is Marta Bassi.",
         thread)
    _ask(service, "contact-a", "heads up: Marta Bassi has left Doganale Ligure, our new contact there is Luca Ferri.",
         thread)
    answer, mode, _ = _ask(service, "contact-a", "who's my contact at the customs broker now?", {"contact-a": None})
    assert "Luca Ferri" in answer and mode == "rag", answer
    # "our other haulier" is a second one: the first is still theirs
    (first,) = personal.extract(eng, "Our haulier Brenner Trans bills waiting at 80 euros an hour.")
    (other,) = personal.extract(eng, "our other haulier, Adige Logistica, charges 60 an hour.")
    assert not set(first.nouns) & set(other.nouns), (first.nouns, other.nouns)


def test_a_clause_set_off_by_a_dash_before_the_question_asks_nothing(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "dash-a", "The team in our Tromso office has three reefers on her for Polar Fisk.", thread)
    answer, mode, _ = _ask(service, "dash-a", "sorry, long week - which of our offices did I tell you I work in?",
                           {"dash-a": None})
    assert "Tromso" in answer and mode == "rag", answer


def test_a_name_said_to_be_the_wrong_one_retires_the_memory_holding_it(eng):
    kept = _kept_after(eng, "wrong-a", ["Our new customer is Lindqvist Marine - they import marine engines through "
                                        "Hamburg.", "sorry, typo on my side: the customer is Lindgren Marine, not "
                                        "Lindqvist."])
    assert "Lindgren" in kept and "Lindqvist Marine -" not in kept and "Lindqvist Marine," not in kept, kept
    answer, _, _ = _ask(ChatService(eng), "wrong-a", "who's our customer again?", {"wrong-a": None})
    assert "Lindgren" in answer, answer
    # a date said as the wrong one is no name ("June 14, not June 10")
    assert personal.rejected_names("the ETA is June 14, not June 10") == set()
    assert personal.rejected_names("Lindqvist is someone else entirely") == {"lindqvist"}


def test_taking_back_what_was_said_about_a_name_forgets_it_and_a_correction_is_kept(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "scrap-a", "our haulier at Felixstowe will be Delta Freight Lines from next month.", thread)
    _ask(service, "scrap-a", "scrap what I said about Delta - the deal collapsed this morning.", thread)
    kept = " ".join(r.content for r in personal.valid_memories(eng, "scrap-a", eng.agent_id))
    assert "Delta" not in kept, kept
    answer, _, _ = _ask(service, "scrap-a", "who's our haulier at Felixstowe?", {"scrap-a": None})
    assert "Delta" not in answer, answer
    # "ignore what I said about the customer, it's X" names no name: a correction, kept
    _ask(service, "scrap-b", "my customer is Brightwater Foods, they import frozen seafood", thread)
    _ask(service, "scrap-b", "ignore what I said about the customer, it's actually Kestrel Imports.", thread)
    answer, _, _ = _ask(service, "scrap-b", "who's my customer?", {"scrap-b": None})
    assert "Kestrel" in answer and "Brightwater" not in answer, answer


def test_a_pronoun_is_no_name_and_a_statement_beats_the_one_after_it(eng):
    assert personal.extract(eng, "She's out this week so I'm covering her desk.") == []
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "pron-a", "my colleague Dana mentioned that the importer of record on our US side is Pinecrest "
                            "Outdoor Co. She's out this week so I'm covering her desk.", thread)
    answer, _, _ = _ask(service, "pron-a", "who's the importer of record for our US shipments again?",
                        {"pron-a": None})
    assert "Pinecrest" in answer, answer


def test_a_fact_told_and_asked_in_french_or_spanish_is_recalled_and_stays_the_users(eng):
    answer, mode = _told_then_asked(eng, "fr-a", "Bonjour ! Je suis au bureau de Lyon, on gère surtout le Maghreb.",
                                    "Rappelle-moi : depuis quel bureau je t'ai dit que je travaillais ?")
    assert "Lyon" in answer and mode == "rag", answer
    answer, mode = _told_then_asked(eng, "es-a", "Mi cliente principal es Conservas Albariño, de Vigo.",
                                    "¿cómo se llamaba mi cliente principal?")
    assert "Albariño" in answer and mode == "rag", answer
    other, _, _ = _ask(ChatService(eng), "es-b", "¿cómo se llamaba mi cliente principal?", {})
    assert "Albariño" not in other, other


def test_words_about_one_of_two_names_asked_together_do_not_answer(eng):
    answer, mode = _told_then_asked(
        eng, "two-a", "right so Norcastle Retail has three containers with us this month, all 40 foot high cubes.",
        "How many containers in total do I have across Norcastle and Pemberton this month?")
    assert mode == "fallback", answer


def test_the_value_a_noun_of_theirs_names_is_the_one_said_beside_it(eng):
    vessel, = _one(eng, "SELECT VESSEL_NAME FROM SUPPLYCHAIN.VESSELS ORDER BY VESSEL_NAME")
    answer, mode = _told_then_asked(eng, "noun-a", f"I've got cargo on the {vessel} heading out next week, for my "
                                                   "customer Sahel Fresh.",
                                    f"the customer I mentioned for the {vessel} cargo, who was it?")
    assert "Sahel Fresh" in answer and mode == "rag", answer


def test_asking_to_be_reminded_is_about_what_was_told_even_without_my(eng):
    answer, mode = _told_then_asked(eng, "again-a", "We're sending mining machinery parts for Ridgeway Mining to Durban "
                                                    "on a flat rack.", "who's the customer for the machinery parts again?")
    assert "Ridgeway Mining" in answer and mode == "rag", answer
    other, _, _ = _ask(ChatService(eng), "again-b", "who's the customer for the machinery parts again?", {})
    assert "Ridgeway" not in other, other


def test_forget_everything_about_them_forgets_what_the_sentence_before_named(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "them-a", "Rotterdam haulage for us is done by Van Dijk Containervervoer. Also Kessler Brothers: their "
                            "goods go by truck to their warehouse in Wroclaw, usually 2 boxes a week.", thread)
    _ask(service, "them-a", "Kessler Brothers closed their account with us last week. Please forget everything I told "
                            "you about them.", thread)
    kept = " ".join(r.content for r in personal.valid_memories(eng, "them-a", eng.agent_id))
    assert "Kessler" not in kept and "Van Dijk" in kept, kept
    answer, _, _ = _ask(service, "them-a", "Where does Kessler Brothers' warehouse sit again?", {"them-a": None})
    assert "Wroclaw" not in answer, answer


def test_dont_save_that_said_of_its_own_sentence_forgets_nothing_before_it(eng):
    answer, mode = _told_then_asked(eng, "that-a", "I run the export desk at our Hamburg office. Our booking ref with "
                                                   "Hapag is QX-7781 but don't save that, it's confidential, just tell me "
                                                   "how amendments work at Hapag.", "which office do I work in?")
    assert "Hamburg" in answer and mode == "rag", answer


def test_forgetting_one_detail_of_a_sentence_keeps_the_rest_of_it(eng):
    kept = _kept_after(eng, "part-a", ["our forwarder Baltic Line holds booking ref BK-5521 for us, timber from Riga.",
                                       "please forget booking ref BK-5521, it is cancelled."])
    assert "Baltic Line" in kept and "BK-5521" not in kept, kept
    answer, mode, _ = _ask(ChatService(eng), "part-a", "who's our forwarder?", {"part-a": None})
    assert "Baltic Line" in answer and "BK-5521" not in answer and mode == "rag", answer
    # a name forgotten takes the clause that goes on about it, and leaves the other name of the sentence
    kept = _kept_after(eng, "part-b", ["we truck everything in Antwerp through Scheldt Haulage, and our main buyer "
                                       "there is Mosa Foods - they import cocoa.",
                                       "Mosa Foods closed down. Delete everything you know about them."])
    assert "Scheldt Haulage" in kept and "Mosa" not in kept and "cocoa" not in kept, kept


def test_forgetting_a_thing_by_its_noun_still_forgets_the_whole_memory(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "part-c", "my customer is Ferrol Seafoods, they buy frozen hake from Vigo.", thread)
    _ask(service, "part-c", "forget my customer please.", thread)
    assert not personal.valid_memories(eng, "part-c", eng.agent_id)


def test_a_question_for_a_thing_never_said_is_not_answered_by_another_memory(eng):
    answer, mode = _told_then_asked(eng, "head-a", "our Valencia office contact is Marta, keep that.",
                                    "what commission did I mention for Valencia?")
    assert "Marta" not in answer and mode == "fallback", answer
    answer, mode = _told_then_asked(eng, "head-b", "our Valencia office contact is Marta, keep that.",
                                    "who's my contact at the Valencia office?")
    assert "Marta" in answer and mode == "rag", answer


def test_where_i_was_before_a_move_is_the_place_not_another_name_of_the_first_sentence(eng):
    answer, _ = _told_in_turn_then_asked(eng, "move-a", ["I'm sitting in our Antwerp office for now, covering the "
                                                        "Benelux accounts.", "update: I've been moved to our Singapore "
                                                        "office."], "where was I before?")
    assert "Antwerp" in answer and "Benelux" not in answer, answer


def test_two_questions_about_theirs_are_each_answered_from_their_memory(eng):
    service, thread = ChatService(eng), dict[str, str]()
    _ask(service, "two-a", "I work out of the Durban office; our biggest account is Karoo Timber.", thread)
    answer, mode, _ = _ask(service, "two-a", "which office am I at, and who's my biggest account?", {"two-a": None})
    assert "Durban" in answer and "Karoo Timber" in answer and mode == "rag", answer


def test_an_answer_from_a_correction_does_not_repeat_the_name_it_replaced(eng):
    answer, _ = _told_in_turn_then_asked(eng, "corr-a", ["our consignee in Busan is Hanil Trading.", "correction: the "
                                                        "Busan consignee is Hanbit Logistics, not Hanil."],
                                         "who's my Busan consignee?")
    assert "Hanbit" in answer and "Hanil" not in answer, answer


def test_the_thing_they_told_of_before_said_with_the_is_theirs_and_its_move_is_kept(eng):
    answer, mode = _told_in_turn_then_asked(eng, "desk-a", ["For now our booking desk sits in Antwerp.", "Heads up: "
                                                           "from July the desk operates out of Hamburg."],
                                            "where is my booking desk based now?")
    assert "Hamburg" in answer and mode == "rag", answer


def test_how_many_days_their_voyage_takes_is_the_days_between_its_dates(eng):
    number, left, due = eng.query(f"SELECT VOYAGE_NUMBER, DEPARTURE_DATE, ARRIVAL_DATE FROM {OWNER}.VOYAGES "
                                  "WHERE STATUS = 'SCHEDULED' ORDER BY VOYAGE_ID")[0]
    days = (date.fromisoformat(str(due)[:10]) - date.fromisoformat(str(left)[:10])).days
    answer, mode = _told_then_asked(eng, "days-a", f"my cargo is booked on voyage {number}.",
                                    "from departure to arrival, how many days will my cargo take?")
    assert f"{days} days" in answer and mode == "rag", answer


def test_a_reference_of_theirs_the_data_does_not_hold_is_remembered_and_asked_for(eng):
    told = [("ref-a", "our supplier Kessel Metals ships against order PO-88213 this month.",
             "what was the PO number for Kessel again?", "PO-88213"),
            ("ref-b", "the seal on our box for Ardmore Mills is SL-40917, keep it handy.",
             "which seal number did I give you?", "SL-40917")]
    for user, said, asked, reference in told:
        answer, mode = _told_then_asked(eng, user, said, asked)
        assert reference in answer and mode == "rag", (asked, answer)

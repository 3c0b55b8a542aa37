"""Memory in conversation, through the chat service: preferences said again, forgetting without
collateral damage, references resolved from what the user told, and the order things were told in.

Each conversation has users of its own. Expected values come from the test's own words, the catalog
and SQL over SUPPLYCHAIN.
"""
from __future__ import annotations

import itertools

import pytest

from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data.catalog import ITEMS
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.memory import personal

_users = itertools.count()


def _talk(service, turns: list[str], user: str | None = None) -> list[tuple[str, str]]:
    """(answer, mode) of each turn, all in one thread of a user of their own."""
    user = user or f"upd-{next(_users)}"
    thread, out = None, []
    for text in turns:
        body, mode = service.answer({"question": text, "thread_id": thread, "user_id": user, "agent": False})
        thread = body["thread_id"]
        out.append((body["answer"], mode))
    return out


def _price(item_id: str) -> float:
    return next(i.price_usd for i in ITEMS if i.item_id == item_id)


def _one(service, sql: str):
    return service.eng.query(sql.format(o=OWNER))[0]


def test_a_rate_said_again_by_its_number_alone_replaces_the_rate(service):
    (_, _), (first, _), (ack, _), (again, mode) = _talk(service, [
        "Quote me prices in euros from now on, 1 USD = 0.92 EUR.",
        "Customs brokerage per entry?",
        "Rate update: it's 0.90 now, please use that from here on.",
        "Customs brokerage again?"])
    usd = _price("SV-CUSTOMS")
    assert f"EUR {usd * 0.92:,.2f}" in first, first
    assert "0.9" in ack, ack
    assert mode == "rag" and f"EUR {usd * 0.90:,.2f}" in again and f"{usd * 0.92:,.2f}" not in again, again


def test_a_number_told_for_something_else_is_no_rate(service):
    (_, _), (_, _), (last, _) = _talk(service, [
        "Quote me prices in euros, 1 USD = 0.92 EUR.",
        "Our freight rate with the haulier is 80 per box.",
        "Customs brokerage per entry?"])
    assert f"EUR {_price('SV-CUSTOMS') * 0.92:,.2f}" in last, last


def test_back_to_metric_undoes_pounds_and_feet(service):
    name, length = _one(service, "SELECT VESSEL_NAME, LENGTH_M FROM {o}.VESSELS ORDER BY IMO_NUMBER")
    turns = _talk(service, ["Give me weights in pounds and lengths in feet, please.",
                            f"How long is the {name}?",
                            "Actually, switch me back to metric, the new team is in Rotterdam.",
                            f"How long is the {name}?"])
    assert "ft" in turns[1][0], turns[1][0]
    assert f"{float(length):,.2f} m" in turns[3][0] and "ft" not in turns[3][0], turns[3][0]


def test_a_language_switched_back_by_its_name_forgets_nothing(service):
    user = f"upd-{next(_users)}"
    turns = _talk(service, ["Our customs broker is Dunmore Clearing.",
                            "A partir de ahora respóndeme siempre en español, por favor.",
                            "How many containers are on voyage 1043?",
                            "Forget the Spanish, English again please.",
                            "How many containers are on voyage 1043?",
                            "Who's our customs broker?"], user)
    assert "Spanish" in turns[1][0], turns[1][0]
    assert "contenedores" in turns[2][0], turns[2][0]
    assert "containers" in turns[4][0] and "contenedores" not in turns[4][0], turns[4][0]
    assert "Dunmore" in turns[5][0], turns[5][0]
    assert len(personal.valid_memories(service.eng, user, service.eng.agent_id)) == 1


def test_taken_back_with_the_old_name_said_again_is_forgotten(service):
    turns = _talk(service, ["Our insurance broker is Fairhaven Marine. And keep your answers short, please.",
                            "Actually ignore what I said about the broker. We haven't picked one yet, "
                            "Fairhaven was only a quote.",
                            "Who's our insurance broker?"])
    last, mode = turns[-1]
    assert mode == "fallback" and "Fairhaven" not in last, last


def test_a_second_dont_keep_it_forgets_nothing_more(service):
    turns = _talk(service, ["Booking ref for the Kessler job is BK-55120, and our contact there is Dana Whitlock.",
                            "Please forget that booking ref BK-55120, the booking was cancelled. Don't keep it.",
                            "What booking reference did I give you for the Kessler job?",
                            "Who's our contact on the Kessler job?"])
    assert "55120" not in turns[2][0], turns[2][0]
    assert "Whitlock" in turns[3][0] and turns[3][1] == "rag", turns[3][0]


def test_a_yes_or_no_about_something_at_their_place_is_not_the_place(service):
    turns = _talk(service, ["I run the ops desk at our Hamburg office.",
                            "Is any labour action announced at my port?"])
    answer, mode = turns[-1]
    assert not (mode == "rag" and answer.startswith("Your port is")), answer


def test_an_order_to_list_names_their_thing(service):
    scac, carrier = _one(service, "SELECT SCAC_CODE, CARRIER_NAME FROM {o}.CARRIERS WHERE CARRIER_NAME = 'ZIM'")
    voyages = service.eng.query(f"""SELECT v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER
        JOIN {OWNER}.CARRIERS c ON c.CARRIER_ID = s.CARRIER_ID WHERE c.SCAC_CODE = '{scac}' AND v.STATUS = 'ACTIVE'""")
    turns = _talk(service, ["Evergreen is our go-to carrier.",
                            f"Update: we've switched our preferred carrier to {carrier} since their rates dropped.",
                            "List the active voyages of my preferred carrier."])
    answer, mode = turns[-1]
    assert mode == "rag" and all(v in answer for v, in voyages) and "Ever " not in answer, answer


def test_two_customers_boxes_summed(service):
    (a, wa), (b, wb) = service.eng.query(f"SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {OWNER}.CONTAINERS "
                                         "ORDER BY CONTAINER_ID")[:2]
    turns = _talk(service, [f"Alder & Finch's booking is loaded in {a}.",
                            f"And Galloway Solar's booking is in {b}.",
                            "What's the combined verified gross mass of my two customers' boxes?"])
    answer, mode = turns[-1]
    assert mode == "rag" and f"{int(wa) + int(wb):,}" in answer, answer


def test_their_box_is_tied_to_the_account_named_before_it(service):
    number, vessel = _one(service, """SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME FROM {o}.CONTAINERS c
        JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER
        ORDER BY c.CONTAINER_ID""")
    turns = _talk(service, [f"Hi, I handle the Lumen Apparel account. Their shirts went into box {number}. "
                            "Separately, what's the flag of the Ever Acme?",
                            "Which vessel is Lumen Apparel's box on?"])
    answer, mode = turns[-1]
    assert mode == "rag" and vessel in answer, answer


def test_that_box_is_the_one_box_they_told(service):
    number, vessel = _one(service, """SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME FROM {o}.CONTAINERS c
        JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER
        ORDER BY c.CONTAINER_ID DESC""")
    turns = _talk(service, [f"Our pharma box {number} had its pre-trip inspection done on 27 May. "
                            "How much is a PTI in your catalog?",
                            "What vessel is that box on?"])
    assert f"{_price('SV-PTI'):,.2f}" in turns[0][0], turns[0][0]
    assert turns[1][1] == "rag" and vessel in turns[1][0], turns[1][0]


def test_which_was_told_first_and_which_happened_first(service):
    turns = _talk(service, ["We first quoted Meridian Foods on 3 May for their olive oil imports.",
                            "Good news, Meridian signed the contract on 21 May!",
                            "How many days passed between our first quote to Meridian and their signature?",
                            "And which happened first, the quote or the signing?",
                            "Which of those two dates did I tell you about first?"])
    assert "18 days" in turns[2][0], turns[2][0]
    assert turns[3][0].startswith("Quote came first") and "3 May" in turns[3][0], turns[3][0]
    assert turns[4][1] == "rag" and turns[4][0].startswith("You told me about 3 May"), turns[4][0]


def test_a_name_not_to_be_kept_takes_no_box_with_it(service):
    user = f"upd-{next(_users)}"
    first, second = (r[0] for r in service.eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[:2])
    turns = _talk(service, [f"Hi, my customer's box is {first}, please keep it handy. The consignee is Ostrander Chemicals.",
                            f"Sorry, not {first}, I misread the dock sheet: it's {second}.",
                            "Also, please don't keep the consignee name I gave you, it's confidential. Forget it.",
                            "What's in my customer's box?",
                            "Who's the consignee again?"], user)
    kept = personal.valid_memories(service.eng, user, service.eng.agent_id)
    assert [second] == [e[2] for r in kept for e in (r.metadata or {}).get("entities", [])], kept
    assert turns[3][1] == "rag" and second in turns[3][0], turns[3][0]
    assert "Ostrander" not in turns[4][0], turns[4][0]


def test_which_of_their_boxes_they_told_first(service):
    first, second = (r[0] for r in service.eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[2:4])
    turns = _talk(service, [f"My first box is {first}.", f"I added another box today: {second}.",
                            "which of my boxes did i tell you about first?"])
    assert turns[-1][1] == "rag" and first in turns[-1][0] and second not in turns[-1][0], turns[-1][0]


def test_the_city_where_someone_of_theirs_sits(service):
    port = "Busan"
    voyages = service.eng.query(f"""SELECT v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p
        ON p.PORT_ID = v.ORIGIN_PORT_ID WHERE p.PORT_NAME = '{port}' AND v.STATUS = 'SCHEDULED'""")
    assert voyages
    turns = _talk(service, [f"Our rep Ji-woo Han sits in our {port} office, she's great with the SITC people.",
                            "Which scheduled departures are there from the city where Ji-woo sits?"])
    assert turns[-1][1] == "rag" and all(v in turns[-1][0] for v, in voyages), turns[-1][0]


def test_a_follow_up_opening_a_new_session_reads_their_last_question(service):
    (name, length), = service.eng.query(f"SELECT VESSEL_NAME, LENGTH_M FROM {OWNER}.VESSELS WHERE VESSEL_NAME = 'Ever Lunar'")
    user = f"upd-{next(_users)}"
    _talk(service, ["Metres please, the planning tool is all metric. How long is the Kota Ratna?"], user)
    answer, mode = _talk(service, [f"and the {name}?"], user)[0]   # a thread of its own
    assert mode == "rag" and f"{float(length):,.2f} m" in answer and "metric" not in answer, answer
    other, _ = _talk(service, [f"and the {name}?"])[0]   # another user: nothing of theirs is read
    assert f"{float(length):,.2f}" not in other, other


def test_a_remembered_place_is_no_answer_to_a_question_joined_to_it(service):
    turns = _talk(service, ["Our EU import desk is in Rotterdam.",
                            "Which port is our EU import desk at now, and is there any port notice there I should know about?"])
    answer, mode = turns[-1]
    assert mode == "fallback" and "Rotterdam" in answer and "only part" in answer, answer


def test_and_another_item_after_a_price_question_is_its_price(service):
    turns = _talk(service, ["What does drayage cost per move?", "And a customs entry?"])
    answer, mode = turns[-1]
    assert mode == "rag" and f"USD {_price('SV-CUSTOMS'):,.2f}" in answer, answer


def test_a_question_after_a_statement_and_a_lead_in_is_asked_alone(service):
    carriers = {r[0] for r in service.eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS WHERE ALLIANCE = 'Gemini Cooperation'")}
    answer, mode = _talk(service, ["Another quote just landed, Kuehne+Nagel at EUR 455. "
                                   "Unrelated: which carriers are in the Gemini Cooperation?"])[0]
    assert mode == "rag" and all(c in answer for c in carriers), answer


def test_a_statement_for_one_lane_is_no_answer_for_another(service):
    turns = _talk(service, ["Pour l'Asie-Europe du Nord, notre transporteur préféré est CMA CGM.",
                            "Et pour le transpacifique, quel transporteur préféré je t'ai indiqué ?",
                            "Quel est notre transporteur préféré pour l'Asie-Europe du Nord ?"])
    assert turns[1][1] == "fallback" and "CMA CGM" not in turns[1][0], turns[1][0]
    assert turns[2][1] == "rag" and "CMA CGM" in turns[2][0], turns[2][0]


def test_a_contact_number_not_to_be_kept_goes_and_the_account_stays(service):
    user = f"upd-{next(_users)}"
    _talk(service, ["Hi, Greta from Nordhafen Trading, account number NS-55821. My mobile is +44 7700 900123 if you ever need it."],
          user)
    (said, mode), = _talk(service, ["Please don't keep my mobile number - forget it."], user)
    assert mode == "fallback" and said.startswith("Done"), said
    kept = service.eng.store.list("fact", limit=None, user_id=user, agent_id=service.eng.agent_id)
    assert not any("7700" in (r.content or "") for r in kept), [r.content for r in kept]
    account, mode = _talk(service, ["What's my account number?"], user)[0]
    assert mode == "rag" and "NS-55821" in account, account
    for question in ("What's my mobile?", "And my mobile number?"):
        assert "7700" not in _talk(service, [question], user)[0][0]


@pytest.mark.parametrize("told,request_,asked", [
    ("Our driver for the Antwerp pickups is Marek from Baltic Road Haulage, his mobile is +48 601 223 904.",
     "Marek asked me not to keep his personal number anywhere, so please forget his phone number.",
     "what's Marek's mobile number again?"),
    ("for the Hamburg pickups please put my mobile on the notes: 0151 2378 4410. customer is Nordholz Metall.",
     "hey, actually please forget my mobile number, I don't want it stored anywhere.",
     "what's my mobile number? I need it for the pickup notes")])
def test_a_phone_number_asked_to_be_forgotten_is_never_read_back(service, told, request_, asked):
    user = f"upd-{next(_users)}"
    digits = "".join(c for c in told.split("mobile")[-1] if c.isdigit())[-4:]
    _talk(service, [told, request_], user)
    answer, _ = _talk(service, [asked], user)[0]
    assert digits not in answer.replace(" ", ""), answer


def test_a_detail_of_theirs_given_beside_a_question_does_not_refuse_the_question(service):
    (flag,), = service.eng.query(f"SELECT FLAG_STATE FROM {OWNER}.VESSELS WHERE VESSEL_NAME = 'Ever Acme'")
    answer, mode = _talk(service, ["Our driver at Antwerp is Marek, his mobile is +48 601 223 904. "
                                   "What's the flag of the Ever Acme?"])[0]
    assert mode == "rag" and f"({flag})" in answer, answer
    refused, mode = _talk(service, ["what's Marek's mobile number again?"])[0]
    assert mode == "fallback" and "601" not in refused, refused
    # a code with digits is no detail given: asking for a card number beside a claim number is refused
    card = answer_question(service.eng, "I need the card number the consignee paid the survey fee with on CL-2025-0502")
    assert card.mode == "fallback" and "private details" in card.answer, card.answer

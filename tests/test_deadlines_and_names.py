"""Memory in conversation, through the chat service: a deadline told against the data's days, the names
of a user's customers picking their things, values that changed, the kind asked of a memory, and days
counted from a day the question gives.

Each conversation has a user of its own. Expected values come from SQL over SUPPLYCHAIN, the catalog
and the test's own words; the vessels, boxes and ports are chosen by SQL, not written in.
"""
from __future__ import annotations

import datetime
import itertools

import pytest

from tests.conftest import conversation
from workshop_lib.assistant import knowledge, planner
from workshop_lib.data import catalog
from workshop_lib.data.catalog import ITEMS
from workshop_lib.data.supplychain_data import OWNER

_users = itertools.count()


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(answer, mode) of each (thread, text) turn, for a user of their own."""
    return conversation(service, f"dl-{next(_users)}", turns)


def _last(service, turns: list[tuple[str, str]]) -> tuple[str, str]:
    """(answer, mode) of the last of the turns, for a user of their own."""
    return _talk(service, turns)[-1]


def _rows(service, sql: str):
    return service.eng.query(sql.format(o=OWNER))


def _as_of(service) -> datetime.date:
    schema, _ = knowledge(service.eng)
    day = planner.reference_date(schema)
    assert day is not None
    return day


def _said(day: datetime.date) -> str:
    return f"{day.day} {day:%B %Y}"


def _under_way(service):
    """(vessel, destination port, arrival day) of a voyage at sea whose vessel has no other voyage arriving
    after the day the data is stated as of."""
    as_of = _as_of(service).isoformat()
    for vessel, port, arrival in _rows(service, "SELECT s.VESSEL_NAME, p.PORT_NAME, v.ARRIVAL_DATE FROM {o}.VOYAGES v "
                                                "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p "
                                                "ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE v.STATUS = 'ACTIVE' "
                                                "ORDER BY v.VOYAGE_ID"):
        later = _rows(service, f"SELECT COUNT(*) FROM {{o}}.VOYAGES v JOIN {{o}}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                               f"WHERE s.VESSEL_NAME = '{vessel}' AND v.ARRIVAL_DATE >= '{as_of}'")[0][0]
        if later == 1:
            return vessel, port, datetime.date.fromisoformat(str(arrival)[:10])
    raise AssertionError("no voyage at sea")


@pytest.mark.parametrize("margin", [5, -2])
def test_a_deadline_told_is_compared_with_the_arrival_the_question_asks(service, margin):
    vessel, port, arrival = _under_way(service)
    deadline = arrival + datetime.timedelta(days=margin)
    answer, mode = _last(service, [
               ("t1", f"Our buyer Lindqvist Trading needs the goods in {port} by {_said(deadline)} at the latest."),
               ("t2", f"When is the {vessel} due in {port}? Will it make the deadline?")])
    assert mode == "rag" and _said(arrival) in answer, answer
    assert (f"{margin} days before the deadline" if margin > 0 else f"{-margin} days after the deadline") in answer, answer


def test_that_sailing_is_the_one_the_last_answer_named(service):
    vessel, port, arrival = _under_way(service)
    deadline = arrival + datetime.timedelta(days=3)
    answer, mode = _last(service, [
               ("t1", f"Harrow Cellars needs their wine in {port} by {_said(deadline)}, that's the hard deadline."),
               ("t2", f"Which voyage is the {vessel} on right now?"),
               ("t3", "If the wine is on that sailing, do we make their deadline, and with how many days to spare?")])
    assert mode == "rag" and "3 days before the deadline" in answer, answer


def test_no_deadline_told_gives_no_comparison(service):
    vessel, port, _ = _under_way(service)
    answer, _ = _talk(service, [("t1", f"When is the {vessel} due in {port}? Will it make the deadline?")])[0]
    assert "before the deadline" not in answer and "after the deadline" not in answer, answer


def _two_boxes(service):
    """Two containers of different gross weights: (lighter, its weight), (heavier, its weight)."""
    rows = _rows(service, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {o}.CONTAINERS ORDER BY CONTAINER_ID")
    first = rows[0]
    other = next(r for r in rows[1:] if r[1] != first[1])
    return sorted([first, other], key=lambda r: r[1])


def test_which_customer_has_the_heavier_box_names_the_customer(service):
    (light, light_kg), (heavy, heavy_kg) = _two_boxes(service)
    answer, mode = _last(service, [("t1", f"Ridgeway Toys' container this month is {light}."),
                                   ("t2", f"Castellan Auto Parts just sent theirs: {heavy}."),
                                   ("t3", "Which of my two customers has the heavier box, and by how many kilos?")])
    assert mode == "rag" and f"{heavy} (Castellan Auto Parts)" in answer, answer
    assert f"{int(heavy_kg - light_kg)}" in answer.replace(",", ""), answer


def test_a_customers_name_picks_their_box_not_the_newest(service):
    (first, _), (second, _) = _two_boxes(service)
    vessel = _rows(service, f"SELECT s.VESSEL_NAME FROM {{o}}.CONTAINERS c JOIN {{o}}.VOYAGES v ON v.VOYAGE_ID = "
                            f"c.VOYAGE_ID JOIN {{o}}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                            f"WHERE c.CONTAINER_NUMBER = '{first}'")[0][0]
    answer, mode = _last(service, [("t1", f"My customer Baobab Foods has a box on the water, {first}."),
                                   ("t2", f"Separate thing: Keller Maschinenbau's container is {second}."),
                                   ("t3", "Baobab Foods is asking which ship their box is on - can you tell me?")])
    assert mode == "rag" and first in answer and vessel in answer and second not in answer, answer


def test_a_lane_switched_to_another_carrier_answers_first_and_now(service):
    answer, mode = _last(service, [("t1", "We're using ZIM for our Med lane these days."),
                                   ("t2", "Small change: we switched the Med lane to MSC last week, ZIM kept rolling our boxes."),
                                   ("t3", "Remind me - which carrier did I first mention for the Med lane, and which one "
                                          "are we on now?")])
    assert mode == "rag" and answer.index("ZIM") < answer.index("MSC"), answer


def test_an_adjective_of_a_region_is_no_name_and_the_hub_is_the_place(service):
    item = next(i for i in ITEMS if i.item_id == "EQ-45HC")
    port = "Rotterdam"
    answer, mode = _last(service, [("t1", f"Our European hub is in {port} - everything gets consolidated there."),
                                   ("t1", f"How many {item.name}s are available at our hub?")])
    assert mode == "rag" and port in answer and "european" not in answer.lower(), answer


def test_a_rate_in_another_currency_switches_the_currency(service):
    usd = next(i.price_usd for i in ITEMS if i.item_id == "SV-CUSTOMS")
    answer, mode = _last(service, [("t1", "From now on please quote all prices in euros; use 1 USD = 0.92 EUR."),
                                   ("t2", "Change of plan, finance wants pounds sterling now: 1 USD = 0.79 GBP."),
                                   ("t2", "What does customs brokerage cost per entry?")])
    assert mode == "rag" and f"GBP {usd * 0.79:,.2f}" in answer and "EUR" not in answer, answer


def test_days_count_from_a_day_the_question_gives_and_an_extension_spans_its_move(service):
    turns = _talk(service, [("t1", "Our Ghent warehouse lease runs until 30 June 2025, need to sort that out."),
                            ("t2", "Good news: we extended the Ghent lease to 15 September 2025."),
                            ("t3", "When does our Ghent lease end now, and how many days is that from 2 June 2025?"),
                            ("t3", "And how many days was the extension itself?")])
    (now, now_mode), (extension, ext_mode) = turns[-2:]
    assert now_mode == "rag" and "105 days" in now and "15 September 2025" in now, now
    assert ext_mode == "rag" and "77 days" in extension, extension


def test_a_name_only_the_user_told_makes_a_question_of_days_theirs(service):
    answer, mode = _last(service, [("t1", "We signed the framework contract with Nordhavn Retail on 3 March 2025, finally."),
                                   ("t2", "Nordhavn's first shipment left on 14 April 2025."),
                                   ("t3", "How many days passed between signing with Nordhavn and their first shipment?")])
    assert mode == "rag" and "42 days" in answer, answer


def test_a_date_said_beside_what_is_asked_is_not_its_date(service):
    answer, mode = _last(service, [("t1", "Big news: we signed with Ostrander Foods on the second of May. Their first "
                                          "shipment sailed exactly two weeks after we signed."),
                                   ("t2", "On what date did Ostrander's first shipment sail?")])
    assert not (mode == "rag" and "2 May" in answer), answer


def test_a_question_that_repeats_a_memory_does_not_replace_it(service):
    answer, mode = _last(service, [("t1", "ugh, Brennan Haulage missed our Felixstowe slot AGAIN this morning."),
                                   ("t2", "I'm writing a complaint email to the haulier that keeps missing our Felixstowe "
                                          "slots - which company was it again?")])
    assert mode == "rag" and "Brennan Haulage" in answer, answer


def test_a_follow_up_asks_the_place_and_a_reference_the_memory_holds(service):
    turns = _talk(service, [("t1", "hey, im handlin the Okonkwo Textiles acct now since Dave left, they ship outta "
                                   "Lagos mostly."),
                            ("t2", "which customer acct did i say i took over from Dave?"),
                            ("t2", "and where do they mostly ship from?"),
                            ("t3", "Hapag gave me booking HLB-77315 for the Qingdao load."),
                            ("t4", "Hapag is asking me to quote the booking number on the amendment form, what was it?")])
    (who, who_mode), (where, where_mode), _, (ref, ref_mode) = turns[1:]
    assert who_mode == "rag" and "Okonkwo Textiles" in who and "Dave" not in who.split("(")[0], who
    assert where_mode == "rag" and "Lagos" in where, where
    assert ref_mode == "rag" and "HLB-77315" in ref, ref


@pytest.mark.parametrize(("told", "asked", "value"), [
    # a Spanish first-person verb ("Tenemos") keeps the reference as theirs
    ("Hola, soy Mateo. Tenemos la reserva HLCUVLC2405871 con Hapag-Lloyd.",
     "¿Me recuerdas el número de nuestra reserva con Hapag?", "HLCUVLC2405871"),
    # a role asked as a firm ("which trucking firm") is their name for it
    ("we run all our LA drayage through Atlas Drayage.", "which trucking firm do we use in LA?", "Atlas Drayage"),
])
def test_a_thing_told_is_answered_when_asked_in_other_words(service, told, asked, value):
    answer, mode = _last(service, [("t1", told), ("t2", asked)])
    assert mode == "rag" and value in answer, answer


def test_quotes_told_in_passing_are_compared_by_order_and_price(service):
    drayage = next(i for i in ITEMS if i.item_id == "SV-DRAYAGE")
    cheapest = drayage.price_usd - 10
    turns = _talk(service, [("t1", f"First drayage quote for Long Beach came in: ${cheapest + 40:.0f} a move from Pacific Haul."),
                            ("t2", f"Got another one: Harbor Link, ${cheapest:.0f} a move."),
                            ("t3", f"Third quote today - SoCal Box at ${cheapest + 25:.0f}."),
                            ("t3", "Which quote did I get most recently, and which is the cheapest so far?"),
                            ("t4", "Which haulier quoted first?"),
                            ("t4", "How does the cheapest one compare with your own catalog drayage price?")])
    (recent, recent_mode), (first, first_mode), (compared, compared_mode) = turns[3:]
    assert recent_mode == "rag" and "most recent quote is SoCal Box's" in recent, recent
    assert "cheapest quote is Harbor Link's" in recent, recent
    assert first_mode == "rag" and "first quote is Pacific Haul's" in first, first
    assert compared_mode == "rag" and "USD 10.00 less than" in compared and drayage.item_id in compared, compared


def test_a_sum_in_the_words_of_a_quote_that_names_no_one_stops_the_comparison(service):
    answer, mode = _last(service, [("t1", "Quote from Pacific Haul: $380 a move."),
                                   ("t2", "Harbor Link quoted $340 a move."),
                                   ("t3", "And another quote, $300 a move, from a broker friend of Harbor Link and Pacific Haul."),
                                   ("t3", "Which quote is the cheapest so far?")])
    assert not (mode == "rag" and "Harbor Link's" in answer), answer


def test_its_follows_the_thing_recalled_unless_the_question_names_one(service):
    (box, _), (other, _) = _two_boxes(service)
    weight = _rows(service, f"SELECT GROSS_WEIGHT_KG FROM {{o}}.CONTAINERS WHERE CONTAINER_NUMBER = '{box}'")[0][0]
    other_arrival = _rows(service, f"SELECT v.ARRIVAL_DATE FROM {{o}}.CONTAINERS c JOIN {{o}}.VOYAGES v ON v.VOYAGE_ID = "
                                   f"c.VOYAGE_ID WHERE c.CONTAINER_NUMBER = '{other}'")[0][0]
    turns = _talk(service, [("t1", f"Vantaa Paper's box this week is {box}."),
                            ("t2", "Which vessel is Vantaa Paper's box on?"),
                            ("t2", "And its gross weight?"),
                            ("t2", f"when does the ship with {other} reach its destination?")])
    (its, its_mode), (named, named_mode) = turns[2:]
    assert its_mode == "rag" and f"{int(weight):,}" in its, its
    assert named_mode == "rag" and str(other_arrival)[:10] in named and box not in named.split("(For")[0], named


def test_a_follow_up_after_a_turn_that_grounded_nothing_still_follows(service):
    box = _two_boxes(service)[0][0]
    goods = _rows(service, f"SELECT i.DESCRIPTION FROM {{o}}.CARGO_ITEMS i JOIN {{o}}.CONTAINERS c ON c.CONTAINER_ID = "
                           f"i.CONTAINER_ID WHERE c.CONTAINER_NUMBER = '{box}'")[0][0]
    answer, mode = _last(service, [("t1", f"The box for our Lindqvist Interiors order is {box}."),
                                   ("t2", "Lindqvist wants to know the port where their box gets discharged."),
                                   ("t2", "And what does the notice say about it?"),
                                   ("t2", "what's inside it?")])
    assert mode == "rag" and goods in answer, answer


def test_a_place_named_by_their_noun_fills_the_question(service):
    reefer = next(i for i in ITEMS if i.item_id == "EQ-40RH")
    units = catalog.availability()["EQ-40RH"]["NLRTM"]
    answer, mode = _last(service, [("t1", "For context, our reefer fleet is leased out of Rotterdam, that's our home depot."),
                                   ("t2", "How many 40-foot high-cube reefers are available at our home depot, and what's "
                                          "the daily lease?")])
    assert mode == "rag" and f"{units} units" in answer and f"{reefer.price_usd:,.2f}" in answer, answer


def test_an_office_named_for_its_town_is_where_they_are(service):
    answer, mode = _last(service, [("t1", "Hiya, Fatima at the Felixstowe office."),
                                   ("t2", "I've moved over to our Southampton office as of Monday, update that please."),
                                   ("t3", "which office am I based in?")])
    assert mode == "rag" and "Southampton" in answer, answer



def test_a_detail_forgotten_is_not_answered_from_the_port_it_names(service):
    answer, mode = _last(service, [("t1", "The door code for our Felixstowe warehouse is 4471#, give it to the haulier."),
                                   ("t2", "Please forget the warehouse door code, I don't want it stored anywhere."),
                                   ("t3", "What's the door code for our Felixstowe warehouse?")])
    assert mode == "fallback" and "4471" not in answer, answer


def test_one_value_is_not_the_answer_to_what_are_they(service):
    box = _two_boxes(service)[0][0]
    answer, mode = _last(service, [("t1", f"Our green coffee goes in container {box}."),
                                   ("t2", "Our agent in Colombo is Ceylon Harbour Services, contact person Dilani Perera."),
                                   ("t3", "I need to send our Colombo agent the vessel, voyage and ETA for our coffee box. "
                                          "What are they, and what's the agent's name again?")])
    assert not (mode == "rag" and "Ceylon Harbour Services" in answer and box not in answer), answer

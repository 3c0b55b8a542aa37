"""Through the chat service: figures of several rows, the rows' own days, and references the user told.

The latest position orders by when it was reported and "the fastest by the last reports" by speed; a box's
"voyage it's on" is its own, any status; "how many TEU/kg" of several rows is their total, counted once per
row that holds it, and speeds are never added up; a range written "26 May - 1 June"; a list of ships arriving
in a month shows each one's day; "container no." is the container's number. From memory: a reference read
after the noun it was told with ("booking SAV-66120"), whichever memory the rest of the question picks; a
row of a name of theirs they never told is declined; a part about what they told that no memory answers
makes the answer partial; a span to a day told by its own word; a deadline told as what "expires" on a day.

Every expected figure comes from SQL over SUPPLYCHAIN; the users' own names, codes and days are the tests'.
"""
from __future__ import annotations

import datetime
import itertools

from tests.conftest import conversation
from workshop_lib.data.supplychain_data import OWNER

_users = itertools.count()
GROUNDED = ("rag", "hybrid")


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return conversation(service, f"figures-{next(_users)}", turns)


def _ask(service, question: str) -> tuple[str, str]:
    return _talk(service, [("t1", question)])[0]


def _day(value) -> datetime.date:
    return datetime.date.fromisoformat(str(value)[:10])


def _voyage_arriving(service, where: str) -> tuple[str, str, datetime.date]:
    """(voyage number, destination port, arrival day) of the first voyage whose row meets `where`."""
    voyage, port, arrival = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, p.PORT_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
        f"ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE {where} ORDER BY 3, 1")[0]
    return voyage, port, _day(arrival)


def test_the_latest_position_is_the_one_reported_last(service):
    vessel, = service.eng.query(f"SELECT s.VESSEL_NAME FROM {OWNER}.VESSEL_POSITIONS p JOIN {OWNER}.VESSELS s "
                                f"ON s.IMO_NUMBER = p.IMO_NUMBER ORDER BY p.REPORTED_AT DESC")[0]
    answer, mode = _ask(service, "which ship sent the most recent AIS position, and when?")
    assert mode in GROUNDED and answer.splitlines()[1].startswith(f"1. {vessel}"), answer


def test_the_fastest_by_the_last_reports_orders_by_speed(service):
    speed, = service.eng.query(f"SELECT MAX(SPEED_KNOTS) FROM {OWNER}.VESSEL_POSITIONS")[0]
    answer, mode = _ask(service, "who's the fastest ship out there, going by the last AIS reports?")
    assert mode in GROUNDED and f"{float(speed):.2f} knots" in answer.splitlines()[1], answer


def test_the_voyage_a_box_is_on_is_its_own_whatever_its_status(service):
    number, voyage, status = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, v.VOYAGE_NUMBER, v.STATUS FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v "
        f"ON v.VOYAGE_ID = c.VOYAGE_ID ORDER BY c.GROSS_WEIGHT_KG DESC, c.CONTAINER_NUMBER")[0]
    answer, mode = _ask(service, "heaviest box? container no, weight and the voyage it's on")
    assert mode in GROUNDED and number in answer and voyage in answer and "with status" not in answer, (status, answer)


def test_how_many_teu_on_a_voyage_is_the_total_of_its_boxes(service):
    voyage, teu = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, SUM(CASE WHEN SUBSTR(c.SIZE_TYPE, 1, 2) = '40' THEN 2 ELSE 1 END) "
        f"FROM {OWNER}.VOYAGES v JOIN {OWNER}.CONTAINERS c ON c.VOYAGE_ID = v.VOYAGE_ID "
        f"GROUP BY v.VOYAGE_NUMBER HAVING COUNT(DISTINCT c.SIZE_TYPE) > 1 ORDER BY 1")[0]
    for question in (f"How many TEU does the manifest show on voyage {voyage}?", f"total TEU loaded on {voyage}"):
        answer, mode = _ask(service, question)
        assert mode in GROUNDED and f"{teu} TEU" in answer and "cargo item" not in answer, (question, answer)


def test_how_many_kg_of_goods_on_a_voyage_is_their_total(service):
    voyage, kg = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, SUM(ci.GROSS_WEIGHT_KG) FROM {OWNER}.VOYAGES v JOIN {OWNER}.CONTAINERS c "
        f"ON c.VOYAGE_ID = v.VOYAGE_ID JOIN {OWNER}.CARGO_ITEMS ci ON ci.CONTAINER_ID = c.CONTAINER_ID "
        f"GROUP BY v.VOYAGE_NUMBER HAVING COUNT(*) > 2 ORDER BY 1")[0]
    answer, mode = _ask(service, f"how many kg of cargo are on voyage {voyage}?")
    assert mode in GROUNDED and f"{float(kg):,.2f}".removesuffix(".00") + " kg" in answer, answer


def test_speeds_are_never_added_up(service):
    carrier, n = service.eng.query(
        f"SELECT ca.CARRIER_NAME, COUNT(*) FROM {OWNER}.VESSEL_POSITIONS p JOIN {OWNER}.VESSELS s "
        f"ON s.IMO_NUMBER = p.IMO_NUMBER JOIN {OWNER}.CARRIERS ca ON ca.CARRIER_ID = s.CARRIER_ID "
        f"GROUP BY ca.CARRIER_NAME HAVING COUNT(*) > 1 ORDER BY 1")[0]
    answer, mode = _ask(service, f"how many knots are the {carrier} ships doing?")
    assert "total speed" not in answer and (mode not in GROUNDED or answer.count("knots") == n), answer
    answer, mode = _ask(service, f"what is the total speed of the {carrier} ships?")
    assert mode not in GROUNDED, answer


def test_a_range_of_two_dates_with_a_dash(service):
    n, = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES WHERE DEPARTURE_DATE >= '2025-05-26' "
                           f"AND DEPARTURE_DATE <= '2025-06-01'")[0]
    for question in ("How many voyages departed 26 May - 1 June?",
                     "How many voyages departed in the last 7 days (May 26 to June 1)?"):
        answer, mode = _ask(service, question)
        assert mode in GROUNDED and f"{n} voyages" in answer, (question, answer)


def test_ships_arriving_in_a_month_show_their_day(service):
    port, vessel, arrival = service.eng.query(
        f"SELECT p.PORT_NAME, s.VESSEL_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
        f"ON p.PORT_ID = v.DESTINATION_PORT_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE v.ARRIVAL_DATE >= '2025-06-01' AND v.ARRIVAL_DATE <= '2025-06-30' ORDER BY 1, 2")[0]
    answer, mode = _ask(service, f"which ships arrive in {port} in june?")
    line = next((ln for ln in answer.splitlines() if ln.startswith(f"- {vessel}")), "")
    assert mode in GROUNDED and str(arrival)[:10] in line, answer


def test_the_number_of_rows_below_the_target_lists_those_rows(service):
    rows = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, v.VOYAGE_NUMBER FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v "
        f"ON v.VOYAGE_ID = c.VOYAGE_ID WHERE v.STATUS = 'ACTIVE' AND c.REEFER_TEMP_C < 0")
    answer, mode = _ask(service, "reefers set below zero on voyages still at sea - container no. and voyage no. please")
    assert mode in GROUNDED and rows and all(b in answer and v in answer for b, v in rows), answer


def test_a_reference_is_read_after_the_noun_it_was_told_with(service):
    voyage, vessel = service.eng.query(f"SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME FROM {OWNER}.VOYAGES v "
                                       f"JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY 1")[0]
    said = _talk(service, [
        ("t1", f"can u check voyage {voyage} for me? that's where our client Quillon Traders has their 2 boxes, "
               "booking QT-55102. which vessel is running it?"),
        ("t2", "Quillon are on the phone. What was their booking number?"),
        ("t2", "and our job ref with them? we set it up as job ref WX-9913 last week"),
    ])
    assert said[0][1] in GROUNDED and vessel in said[0][0], said[0]
    assert said[1][1] in GROUNDED and "QT-55102" in said[1][0], said[1]
    assert "QT-55102" not in said[2][0] or said[2][1] not in GROUNDED, said[2]  # (the code said in it is no answer)


def test_a_reference_of_another_carrier_is_not_theirs(service):
    said = _talk(service, [("t1", "Our ONE booking is ONEYSGN5521870."),
                           ("t2", "What's our Evergreen booking number?")])
    assert said[1][1] not in GROUNDED, said[1]


def test_a_row_of_their_name_never_told_is_declined(service):
    carrier, = service.eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS ORDER BY 1")[0]
    said = _talk(service, [("t1", f"Penworth Cider's booking is PW-3319, it's going out with {carrier}."),
                           ("t2", "What's the Penworth booking number again?"),
                           ("t2", "And which container number is Penworth's?")])
    assert "PW-3319" in said[1][0] and said[1][1] in GROUNDED, said[1]
    assert said[2][1] not in GROUNDED, said[2]


def test_a_part_about_what_they_told_that_nothing_answers_is_no_grounded_answer(service):
    said = _talk(service, [("t1", "New client, Oderbank Power, ships through Hamburg."),
                           ("t2", "what per-entry fee did I agree with Oderbank, and is that more or less than the "
                                  "customs brokerage price in your catalog?")])
    assert said[1][1] not in GROUNDED, said[1]


def test_days_from_a_day_told_by_its_own_word_to_their_eta(service):
    voyage, port, arrival = _voyage_arriving(service, "v.ARRIVAL_DATE > '2025-06-10'")
    stuffed, deadline = arrival - datetime.timedelta(days=30), arrival - datetime.timedelta(days=2)
    said = _talk(service, [
        ("t1", f"Kittiwake Apparel's cartons were stuffed at the factory on {stuffed.day} {stuffed:%B}, "
               f"they're booked on {voyage}."),
        ("t2", f"How many days from stuffing to the {port} ETA for the Kittiwake cargo?"),
        ("t2", f"Kittiwake's letter of credit expires on {deadline.day} {deadline:%B}. Does the ETA make it?"),
    ])
    assert said[1][1] in GROUNDED and "30 days" in said[1][0], said[1]
    assert said[2][1] in GROUNDED and said[2][0].splitlines()[-1].startswith("No") and "2 days" in said[2][0], said[2]


def test_a_day_they_moved_is_counted_from_its_new_day(service):
    voyage, port, arrival = _voyage_arriving(service, "v.ARRIVAL_DATE > '2025-06-05'")
    first, moved = arrival + datetime.timedelta(days=1), arrival + datetime.timedelta(days=3)
    said = _talk(service, [
        ("t1", f"The consignee's receiving appointment at {port} for our box on {voyage} is {first.day} {first:%B}."),
        ("t2", f"they pushed the appointment back, it's {moved.day} {moved:%B} now."),
        ("t3", "how many days will the box wait between the ship's ETA and the appointment?"),
    ])
    assert said[2][1] in GROUNDED and said[2][0].startswith("3 days"), said[2]


def test_which_one_after_the_next_arrival_is_the_ship_shown(service):
    port, vessel = service.eng.query(
        f"SELECT p.PORT_NAME, s.VESSEL_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
        f"JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.ARRIVAL_DATE > '2025-06-02' "
        f"ORDER BY v.ARRIVAL_DATE DESC, p.PORT_NAME")[0]
    for question in (f"When's the next vessel due into {port}, and which one?",
                     f"When's the next voyage due into {port}, and which one?"):
        answer, mode = _ask(service, question)
        assert mode in GROUNDED and vessel in answer, (question, answer)


def test_ships_bound_for_a_port_with_their_arrival_dates(service):
    port = service.eng.query(f"SELECT p.PORT_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
                             f"ON p.PORT_ID = v.DESTINATION_PORT_ID GROUP BY p.PORT_NAME HAVING COUNT(*) = 2 ORDER BY 1")[0][0]
    rows = service.eng.query(f"SELECT s.VESSEL_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
                             f"ON p.PORT_ID = v.DESTINATION_PORT_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                             f"WHERE p.PORT_NAME = '{port}'")
    answer, mode = _ask(service, f"Which vessels are (or were) bound for {port}, and their arrival dates?")
    lines = answer.splitlines()
    assert mode in GROUNDED and all(any(ln.startswith(f"- {s}") and str(d)[:10] in ln for ln in lines) for s, d in rows), answer


def test_a_temperature_said_with_a_bare_c_filters_the_reefers_goods(service):
    n, = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.CARGO_ITEMS ci JOIN {OWNER}.CONTAINERS c "
                           f"ON c.CONTAINER_ID = ci.CONTAINER_ID WHERE c.REEFER_TEMP_C = 13.5")[0]
    answer, mode = _ask(service, "What goods are we carrying in the reefers set to 13.5 C?")
    assert mode in GROUNDED and answer.startswith(f"{n} cargo items"), answer


def test_german_nouns_the_common_words_know_are_read_as_words(service):
    n, = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                           f"JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE s.FLAG_STATE = 'PA'")[0]
    answer, mode = _ask(service, "Wie viele Container sind auf Schiffen unter panamaischer Flagge?")
    assert mode in GROUNDED and f"{n} containers" in answer, answer


def test_the_first_day_told_and_the_day_it_moved_to(service):
    said = _talk(service, [("t1", "Alnwick Farms: empty reefer pick-up at the depot is set for 3 June."),
                           ("t2", "Change for Alnwick Farms - the pick-up moved to 4 June, the genset wasn't ready."),
                           ("t3", "What was the original Alnwick pick-up date and what is it now?")])
    assert said[2][1] in GROUNDED and said[2][0].index("3 June") < said[2][0].index("4 June"), said[2]


def test_days_a_box_sat_after_the_ship_arrived(service):
    voyage, port, arrival = _voyage_arriving(service, "v.STATUS = 'COMPLETED'")
    out = arrival + datetime.timedelta(days=8)
    back = out + datetime.timedelta(days=7)
    said = _talk(service, [
        ("t1", f"Hexham Trading's box came into {port} on {voyage}. We got it out of the terminal on {out.day} {out:%B}."),
        ("t2", f"We returned the Hexham empty to the depot on {back.day} {back:%B}."),
        ("t3", "How many days did Hexham's box sit in the terminal after the ship arrived?"),
    ])
    assert said[2][1] in GROUNDED and said[2][0].startswith("8 days"), said[2]



def test_their_milestones_in_order(service):
    said = _talk(service, [("t1", "For Hanwell Cosmetics I submitted the VGM on 28 May."),
                           ("t2", "Forgot to mention: Hanwell's booking confirmation came in on 21 May, and I filed the "
                                  "SI on 31 May."),
                           ("t3", "Put Hanwell's milestones in order for me - what came first?")])
    answer = said[2][0]
    assert said[2][1] in GROUNDED and answer.index("21 May") < answer.index("28 May") < answer.rindex("31 May"), said[2]


def test_days_left_count_from_the_data_date_and_never_to_a_day_gone_by(service):
    said = _talk(service, [("t1", "Our rate with Bramley Haulage goes up from 20 June."),
                           ("t2", "How many days left until the higher Bramley rate kicks in?"),
                           ("t3", "Our rate with Cotswold Haulage went up on 1 May."),
                           ("t4", "How many days left until the higher Cotswold rate kicks in?")])
    assert said[1][1] in GROUNDED and said[1][0].startswith("18 days"), said[1]  # (the data is stated as of 2 June)
    assert said[3][1] not in GROUNDED, said[3]


def test_news_of_a_change_is_no_request_to_change_the_data():
    from workshop_lib.assistant.answering import router
    for news in ("Change of plan, the trucker couldn't make it: gate-in moves to 4 June.",
                 "update on the Busan box: it was rolled", "Change for Alder Farms, the pick-up moved to 4 June."):
        assert router.WRITE_REQUEST_RE.search(news) is None, news
    for request in ("change the status of voyage 874E to COMPLETED", "please update voyage 874E to arrived"):
        assert router.WRITE_REQUEST_RE.search(request) is not None, request


def test_a_sentence_that_only_names_a_container_names_no_one(docs_eng):
    from workshop_lib.assistant.answering.answer import answer_question
    answered = answer_question(docs_eng, "Who invented the shipping container?")
    assert answered.mode not in GROUNDED, answered.answer
    answered = answer_question(docs_eng, "COSCO reefer plug-in at the terminal before loading - how many hours are free "
                                         "and what's the daily charge after that?")
    assert answered.mode in GROUNDED and "24 hours" in answered.answer and "USD 45" in answered.answer, answered.answer

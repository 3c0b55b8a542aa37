"""Through the chat service: figures the user told, days counted up to the data's own day, keys named by meaning.

A figure of theirs ("our margin on the lane is 14%", "our allocation with MSC is 40 FEU") is the memory's value,
not the port or line named beside it, and a correction that names one figure replaces that one only; a share
told is no price asked; a question for a kind of thing they never named ("what delivery address did I give?")
is declined. "Since 26 May" counts 26 May, "departed since" and "up to today" stop at the day the data is stated
as of. A schema question for the port a voyage leaves from is the key whose comment says so. A question that
asks which ports stock an item and how many one port has gets both.

Every expected figure comes from SQL over SUPPLYCHAIN or the catalog; the users' own figures are the tests'.
"""
from __future__ import annotations

import datetime
import itertools

import pytest

from tests.conftest import conversation
from workshop_lib import assistant
from workshop_lib.assistant import planner, sentences
from workshop_lib.data import catalog
from workshop_lib.data.supplychain_data import OWNER

_users = itertools.count()
GROUNDED = ("rag", "hybrid")


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return conversation(service, f"told-{next(_users)}", turns)


def _departures(service) -> list[str]:
    return [str(d)[:10] for d, in service.eng.query(f"SELECT DEPARTURE_DATE FROM {OWNER}.VOYAGES")]


def test_a_figure_told_is_the_memorys_value_not_the_place_beside_it(service):
    said = _talk(service, [("t1", "Our margin on the Santos-Kaohsiung lane is 14% this quarter."),
                           ("t2", "What margin did I set for Santos-Kaohsiung?")])
    answer, mode = said[-1]
    assert mode in GROUNDED and "14%" in answer and "°" not in answer, answer


def test_how_many_of_a_figure_told_is_that_figure(service):
    answer, mode = _talk(service, [("t1", "We get 9 free days at Santos."),
                                   ("t2", "How many free days do we get at Santos?")])[-1]
    assert mode in GROUNDED and "9 free days" in answer, answer


def test_a_correction_of_one_figure_keeps_the_other(service):
    said = _talk(service, [("t1", "Our margin on the Santos-Kaohsiung lane is 14% this quarter."),
                           ("t1", "Our weekly allocation with MSC is 40 FEU."),
                           ("t2", "Correction on the allocation: from next week it is only 30 FEU."),
                           ("t3", "What is our MSC allocation?"),
                           ("t3", "What margin do we run on Santos-Kaohsiung?"),
                           ("t3", "What was our allocation before?")])
    (allocation, a_mode), (margin, m_mode), (before, b_mode) = said[-3:]
    assert a_mode in GROUNDED and "30 FEU" in allocation and "40" not in allocation, allocation
    assert m_mode in GROUNDED and "14%" in margin and "FEU" not in margin, margin
    assert b_mode in GROUNDED and "40 FEU" in before, before


def test_a_share_told_is_not_a_price(service):
    answer, mode = _talk(service, [("t1", "I always charge my clients 12% on top of the catalog price."),
                                   ("t2", "How much would I charge my client for drayage?")])[-1]
    assert mode not in GROUNDED or "12%" not in answer.split("\n")[0], answer


def test_a_kind_of_thing_never_named_is_declined(service):
    said = _talk(service, [("t1", "My client Baltic Amber Crafts has a box on voyage 588E; the consignee is in Johor."),
                           ("t2", "What delivery address did I give you for the consignee?"),
                           ("t2", "Which trucking firm do we use?")])
    assert said[1][1] not in GROUNDED, said[1]
    assert said[2][1] not in GROUNDED, said[2]


def test_a_german_day_ends_no_sentence():
    assert sentences.split("Bis Ende Mai war es Nordzoll. Ab 1. Juni wechseln wir zu Hanse.") == [
        "Bis Ende Mai war es Nordzoll.", "Ab 1. Juni wechseln wir zu Hanse."]


def test_a_change_said_in_german_replaces_the_earlier_value(service):
    said = _talk(service, [("t1", "Bis Ende Mai hat die Zollabwicklung für uns die Firma Nordzoll Brinkmann gemacht. "
                                  "Ab 1. Juni wechseln wir zu Hanse Customs Partner."),
                           ("t2", "Who handles our customs clearance now?"),
                           ("t2", "Who did our customs clearance before?")])
    (now, n_mode), (before, b_mode) = said[-2:]
    assert n_mode in GROUNDED and "Hanse" in now and "Nordzoll" not in now, now
    assert b_mode in GROUNDED and "Nordzoll" in before, before


def test_departed_since_a_day_counts_up_to_the_datas_day(service):
    days = _departures(service)
    today = planner.reference_date(assistant.knowledge(service.eng)[0]).isoformat()  # the day the data is stated as of
    happened = sum("2025-05-26" <= d <= today for d in days)
    planned_too = sum(d >= "2025-05-26" for d in days)
    assert happened != planned_too  # the sample tells the two readings apart
    for question in ("How many voyages departed since 26 May?", "How many voyages departed from 26 May up to today?",
                     "How many voyages departed between 26 May and today?"):
        answer, mode = _talk(service, [("t1", question)])[0]
        assert mode in GROUNDED and f"{happened} voyages" in answer, (question, answer)
    answer, mode = _talk(service, [("t1", "How many voyages depart since 26 May?")])[0]
    assert mode in GROUNDED and f"{planned_too} voyages" in answer, answer


def test_the_column_of_a_voyages_departure_port_is_its_key(service):
    for question, column in (("Which column holds a voyage's departure port?", "ORIGIN_PORT_ID"),
                             ("What column tells the port of arrival of a voyage?", "DESTINATION_PORT_ID")):
        answer, mode = _talk(service, [("t1", question)])[0]
        assert mode in GROUNDED and column in answer.split("\n")[1], (question, answer)


def test_which_ports_and_how_many_at_one_are_both_answered(service):
    rows = catalog.availability()["EQ-GENSET"]
    port = next(iter(rows))
    name = catalog.ports()[port]["name"]
    answer, mode = _talk(service, [("t1", f"Which ports have clip-on gensets, and how many at {name}?")])[0]
    assert mode in GROUNDED and f"{rows[port]} units" in answer, answer
    assert all(catalog.ports()[p]["name"] in answer for p in rows), answer


def test_which_voyage_a_ship_is_on_now_is_the_one_under_way(service):
    vessel, voyage = service.eng.query(
        f"SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE v.STATUS = 'ACTIVE' AND s.IMO_NUMBER IN (SELECT IMO_NUMBER FROM {OWNER}.VOYAGES GROUP BY IMO_NUMBER "
        f"HAVING COUNT(*) > 1) ORDER BY 1")[0]
    others = [v for v, in service.eng.query(
        f"SELECT v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE s.VESSEL_NAME = '{vessel}' AND v.STATUS <> 'ACTIVE'")]
    answer, mode = _talk(service, [("t1", f"Which voyage is the {vessel} on now?")])[0]
    assert mode in GROUNDED and voyage in answer and not any(v in answer for v in others), answer


def test_the_second_one_is_the_thing_they_called_second(service):
    voyage, vessel, arrival = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s "
        f"ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.STATUS = 'SCHEDULED' ORDER BY 1")[0]
    answer, mode = _talk(service, [("t1", "Our first ever shipment for our customer Brightwell Audio sailed on 5 May."),
                                   ("t2", f"Brightwell's second shipment is booked on {vessel} {voyage}."),
                                   ("t3", "When and where does the second one arrive?")])[-1]
    assert mode in GROUNDED and voyage in answer and str(arrival)[:10] in answer, answer


def test_none_two_keys_down_is_no_row_of_the_row_below(service):
    expected = {n for n, in service.eng.query(
        f"SELECT c.CARRIER_NAME FROM {OWNER}.CARRIERS c WHERE NOT EXISTS (SELECT 1 FROM {OWNER}.VESSELS s "
        f"JOIN {OWNER}.VOYAGES v ON v.IMO_NUMBER = s.IMO_NUMBER WHERE s.CARRIER_ID = c.CARRIER_ID "
        f"AND v.STATUS = 'SCHEDULED')")}
    others = {n for n, in service.eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS")} - expected
    assert expected and others  # the sample has carriers of both kinds
    answer, mode = _talk(service, [("t1", "Which carriers have no scheduled sailings at the moment?")])[0]
    assert mode in GROUNDED and all(n in answer for n in expected) and not any(n in answer for n in others), answer


def test_the_departure_port_of_a_voyage_is_its_origin(service):
    voyage, origin, destination = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, o.PORT_NAME, d.PORT_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS o "
        f"ON o.PORT_ID = v.ORIGIN_PORT_ID JOIN {OWNER}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID ORDER BY 1")[0]
    for question, port, other in ((f"What is the departure port of voyage {voyage}?", origin, destination),
                                  (f"What is the port of arrival of voyage {voyage}?", destination, origin)):
        answer, mode = _talk(service, [("t1", question)])[0]
        assert mode in GROUNDED and port in answer and other not in answer, (question, answer)


def test_a_second_question_about_a_columns_figure_gets_what_the_column_holds(service):
    comment = next(c for c in assistant.knowledge(service.eng)[0].columns["CARGO_ITEMS"] if c.name == "UNIT_VALUE_CENTS").comment
    answer, mode = _talk(service, [("t1", "If UNIT_VALUE_CENTS is 12999 on a line, what is that in dollars, and is it "
                                          "for the whole line?")])[0]
    assert mode in GROUNDED and "129.99" in answer and comment in answer, answer


def test_by_a_day_counts_that_day_and_a_weekday_before_it_is_read(service):
    days = [str(d)[:10] for d, in service.eng.query(f"SELECT ARRIVAL_DATE FROM {OWNER}.VOYAGES WHERE STATUS = 'ACTIVE'")]
    on_or_before, on_the_day = sum(d <= "2025-06-04" for d in days), sum(d == "2025-06-04" for d in days)
    assert on_the_day and on_or_before > on_the_day  # the sample tells "by" from "on" and from "before"
    answer, mode = _talk(service, [("t1", "Which ships at sea are due to arrive by Wednesday 4 June?")])[0]
    assert mode in GROUNDED and answer.startswith(f"{on_or_before} vessels"), answer


def test_days_late_against_a_promise_and_to_spare_against_the_current_deadline(service):
    vessel, voyage, port, arrival = service.eng.query(
        f"SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER, p.PORT_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v "
        f"JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {OWNER}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
        f"WHERE v.STATUS = 'SCHEDULED' ORDER BY v.ARRIVAL_DATE DESC")[0]
    day = datetime.date.fromisoformat(str(arrival)[:10])
    promised, moved = day - datetime.timedelta(days=7), day + datetime.timedelta(days=3)
    said = _talk(service, [
        ("t1", f"Check {vessel} {voyage} for me - I promised Gulf Crest Trading their box in {port} by "
               f"{promised.day} {promised:%B}."),
        ("t2", "How many days late will Gulf Crest's box be against what I promised them?"),
        ("t2", f"Update: Gulf Crest agreed to push their deadline to {moved.day} {moved:%B}."),
        ("t3", "Against Gulf Crest's current deadline, is the box on time, and with how many days to spare?")])
    (late, l_mode), (spare, s_mode) = said[1], said[3]
    assert l_mode in GROUNDED and "7 days after" in late, late
    assert s_mode in GROUNDED and "3 days before" in spare, spare


def test_a_count_and_which_of_those_are_both_answered(service):
    region = [p for p, in service.eng.query(f"SELECT PORT_NAME FROM {OWNER}.PORTS WHERE REGION = 'North Europe'")]
    uk = [p for p, in service.eng.query(
        f"SELECT PORT_NAME FROM {OWNER}.PORTS WHERE REGION = 'North Europe' AND COUNTRY_CODE = 'GB'")]
    assert len(region) > len(uk) == 1  # the sample narrows the count to one port
    answer, mode = _talk(service, [("t1", "How many of the ports are in North Europe, and which of those is in the UK?")])[0]
    assert mode in GROUNDED and f"{len(region)} ports" in answer and uk[0] in answer, answer


def test_two_column_figures_are_multiplied_as_the_description_says(service):
    answer, mode = _talk(service, [("t1", "Manifest line 1 has QUANTITY 14 and UNIT_VALUE_CENTS 67904. What's the "
                                          "whole line worth in USD?")])[0]
    assert mode in GROUNDED and "9,506.56 USD" in answer and "Multiply by QUANTITY" in answer, answer


def test_a_sentence_that_goes_on_from_the_one_before_is_read_with_it(docs_eng):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(docs_eng, "cosco reefer plug-in at the terminal before loading - what's the fee and when does it start?")
    assert a.mode in GROUNDED and a.used_chunks[0]["subject"] == "carriers/cosco-reefer-plugin", a.answer
    assert "45 per day" in a.answer and "24 hours" in a.answer.split("From the documents")[0], a.answer


def test_an_item_asked_for_by_a_word_only_its_description_has(service):
    from workshop_lib.assistant import catalog_links

    for question in ("got a transformer that's way out of gauge, what equipment?",
                     "Need to move a big power transformer that's way out of gauge - what equipment?",
                     "Who can do the paperwork for a lithium battery shipment?"):
        ranked = catalog_links.rank(question)
        only = [w for w in ranked[0].words if sum(w in catalog_links.words(f"{i.name} {i.description}")
                                                  for i in catalog.ITEMS) == 1]
        assert only, ranked  # the word asked by is one item's alone
        answer, mode = _talk(service, [("t1", question)])[0]
        assert mode in GROUNDED and f"[{ranked[0].item.item_id}]" in answer.split("\n")[1], (question, answer)


def test_an_interjection_is_no_word_of_the_query(service):
    n = int(service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES WHERE STATUS = 'SCHEDULED'")[0][0])
    answer, mode = _talk(service, [("t1", "Ugh - how many voyages are scheduled?")])[0]
    assert mode in GROUNDED and f"{n} voyages" in answer, answer


def test_which_ones_of_the_data_is_no_request_for_an_item(service):
    answer, mode = _talk(service, [("t1", "Banana-temperature reefers (13.5 C) on boxes going to North Europe ports - "
                                          "which ones?")])[0]
    assert "our catalog has" not in answer, answer


def _a_voyage(service, status: str) -> tuple[str, str, str]:
    """(voyage number, origin port, vessel) of the first voyage of a status."""
    voyage, port, vessel = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, p.PORT_NAME, s.VESSEL_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
        f"ON p.PORT_ID = v.ORIGIN_PORT_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE v.STATUS = '{status}' ORDER BY 1")[0]
    return voyage, port, vessel


@pytest.mark.parametrize("status, told, asked, wanted", [
    ("SCHEDULED", "Just filed the ISF for Pacific Reach Imports. Their boxes load at {port} on {voyage}.",
     "Which port did I say the Pacific Reach boxes are loading at, and which ship is that?", ("port", "vessel")),
    ("ACTIVE", "Ferrante Ceramiche's porcelain tiles went out on the {vessel}, voyage {voyage}.",
     "which ship and voyage did I say Ferrante's tiles are on?", ("vessel", "voyage")),
])
def test_what_they_said_is_answered_with_what_it_told_of(service, status, told, asked, wanted):
    found = dict(zip(("voyage", "port", "vessel"), _a_voyage(service, status), strict=True))
    answer, mode = _talk(service, [("t1", told.format(**found)), ("t2", asked)])[-1]
    assert mode in GROUNDED and all(found[k] in answer for k in wanted), answer


def test_a_box_number_asked_of_what_was_told_is_not_the_clients_name(service):
    said = _talk(service, [("t1", "that's the box my client Azul Texteis keeps pestering me about lol"),
                           ("t2", "my client rang AGAIN, what was the box number i gave you for them?")])
    answer, mode = said[-1]
    assert mode not in GROUNDED or "Azul" not in answer.split("(")[0], answer


def test_the_key_of_a_table_is_the_column_others_point_at(service):
    schema = assistant.knowledge(service.eng)[0]
    for question, table in (("which column is the primary key of containers?", "CONTAINERS"),
                            ("what's the right key to identify a vessel - can I join on the ship name?", "VESSELS"),
                            ("What's the primary key of the cargo items table?", "CARGO_ITEMS"),
                            ("What uniquely identifies a vessel?", "VESSELS")):
        referenced = {ref for _, _, t, ref in schema.foreign_keys if t == table}
        key = referenced.pop() if len(referenced) == 1 else next(
            c.name for c in schema.columns[table] if "key" in (c.comment or "").lower())
        answer, mode = _talk(service, [("t1", question)])[0]
        assert mode in GROUNDED and f"{table}.{key}" in answer.split("\n")[1], (question, answer)


def test_a_price_per_unit_is_not_what_it_comes_to_over_theirs(service):
    price = next(i for i in catalog.ITEMS if i.item_id == "SV-PTI").price_usd
    over, over_mode = _talk(service, [("t1", "and if we add a pre-trip inspection on every one of them, how much extra?")])[0]
    one, one_mode = _talk(service, [("t1", "how much is a pre-trip inspection?")])[0]
    assert over_mode not in GROUNDED and f"{price:,.2f}" in over, over
    assert one_mode in GROUNDED and f"{price:,.2f}" in one, one


def test_a_thing_of_theirs_in_capitals_is_its_noun_and_a_gerund_no_name(service):
    answer, mode = _talk(service, [("t1", "Setting up our inbound plan for Savannah. For the record: our DC is in Pooler."),
                                   ("t2", "where is our DC?")])[-1]
    assert mode in GROUNDED and "Pooler" in answer and "Setting" not in answer, answer


def test_a_reference_of_a_thing_named_by_its_own_nouns(service):
    answer, mode = _talk(service, [("t1", "For the record: our DC is in Pooler, we receive Monday to Thursday only, and "
                                          "the tyre order is PO-55812."),
                                   ("t2", "and the PO number on the tyre order?")])[-1]
    assert mode in GROUNDED and "PO-55812" in answer, answer


def test_what_someone_wants_to_know_is_no_statement_of_theirs(service):
    answer, mode = _talk(service, [("t1", "For the record: our DC is in Pooler, dock doors 7 through 9."),
                                   ("t2", "The trucker wants to know which dock doors to back into at our place."),
                                   ("t2", "Which dock doors did I say?")])[-1]
    assert mode in GROUNDED and "7 through 9" in answer and "wants to know" not in answer, answer

"""Through the chat service: what a pronoun stands for, calendar weeks, counts taken back, and roles not told.

"It" with nothing named is not every row's; "the ship" with no name is one ship, not the list of all; "it" of a
turn that told a box and its ship is the one whose table holds what is asked; a second part's "it" is the record
the question names when only that record's table joins what it asks. "This week" is the data's calendar week; a
count said again "now, not N" replaces N in a total; "before or after" says which; a role never told is no other
role's name; a unit refused by its figures ("the lb figures confused us") is no unit wanted. German "von X nach Y"
is a route; "oil" is the goods of "olive oil".

Every expected figure comes from SQL over SUPPLYCHAIN (or the catalog); the users' names and references are the
tests'.
"""
from __future__ import annotations

import datetime
import re

from tests.conftest import talk
from workshop_lib import assistant
from workshop_lib.assistant import planner
from workshop_lib.data import catalog
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.memory import personal, preferences

GROUNDED = ("rag", "hybrid")


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return talk(service, "pronouns", turns)


def _ask(service, question: str) -> tuple[str, str]:
    return _talk(service, [("t1", question)])[0]


def _rows(service, sql: str, **binds) -> list[tuple]:
    return [tuple(r) for r in service.eng.query(sql.format(o=OWNER), binds)]


def _a_box_with_goods(service, like: str) -> tuple[str, str, int]:
    """(box number, vessel name, packages) of a box holding one line of the goods."""
    rows = _rows(service, "SELECT c.CONTAINER_NUMBER, ve.VESSEL_NAME, SUM(ci.QUANTITY) FROM {o}.CONTAINERS c "
                          "JOIN {o}.CARGO_ITEMS ci ON ci.CONTAINER_ID = c.CONTAINER_ID "
                          "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                          "WHERE LOWER(ci.DESCRIPTION) LIKE :like GROUP BY c.CONTAINER_NUMBER, ve.VESSEL_NAME "
                          "ORDER BY c.CONTAINER_NUMBER", like=like)
    assert rows, f"the data has boxes of {like}"
    box, vessel, packages = rows[0]
    return str(box), str(vessel), int(packages)


def test_it_with_nothing_named_is_not_every_rows(service):
    answer, mode = _ask(service, "How many cases of wine does it carry?")
    total = _rows(service, "SELECT SUM(QUANTITY) FROM {o}.CARGO_ITEMS WHERE LOWER(DESCRIPTION) LIKE '%wine%'")[0][0]
    assert mode == "fallback" and f"{int(total):,}" not in answer and str(int(total)) not in answer, answer


def test_the_ship_with_no_name_is_one_ship_not_the_list(service):
    answer, mode = _ask(service, "Where is the vessel heading?")
    assert mode == "fallback", answer


def test_it_of_a_box_told_beside_its_ship_is_the_box_when_a_box_column_is_asked(service):
    box, vessel, _ = _a_box_with_goods(service, "%wine%")
    (tare,) = _rows(service, "SELECT TARE_WEIGHT_KG FROM {o}.CONTAINERS WHERE CONTAINER_NUMBER = :box", box=box)[0]
    answer, mode = _ask(service, f"Our importer Casa Brava has a box of red wine, {box}, on the {vessel}. "
                                 "What is its tare weight?")
    assert mode in GROUNDED and str(int(tare)) in answer.replace(",", ""), answer


def test_it_later_is_their_one_box_also_asked_in_french(service):
    box, vessel, packages = _a_box_with_goods(service, "%olive oil%")
    turns = _talk(service, [("t1", f"Our client Olivar Sur has a container of olive oil, {box}, on the {vessel}."),
                            ("t2", "How many cartons of oil does it hold?"),
                            ("t3", "Combien de cartons d'huile contient-il ?")])
    for answer, mode in turns[1:]:
        assert mode in GROUNDED and str(packages) in answer.replace(",", ""), answer


def test_a_statement_and_a_question_in_french_are_answered_in_one_turn(service):
    box, vessel, _ = _a_box_with_goods(service, "%olive oil%")
    (gross,) = _rows(service, "SELECT GROSS_WEIGHT_KG FROM {o}.CONTAINERS WHERE CONTAINER_NUMBER = :box", box=box)[0]
    answer, mode = _ask(service, f"Bonjour. Notre client Olivar Sur a un conteneur d'huile d'olive, le {box}, sur le "
                                 f"{vessel}. Quel est son poids brut vérifié ?")
    assert mode in GROUNDED and f"{int(gross):,}" in answer, answer


def test_a_second_parts_it_is_the_record_named_when_only_its_table_joins_what_is_asked(service):
    number, origin, vessel = _rows(service, "SELECT v.VOYAGE_NUMBER, p.PORT_NAME, ve.VESSEL_NAME FROM {o}.VOYAGES v "
                                            "JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                                            "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                                            "WHERE v.VOYAGE_NUMBER IN (SELECT VOYAGE_NUMBER FROM {o}.VOYAGES "
                                            "GROUP BY VOYAGE_NUMBER HAVING COUNT(*) = 1) ORDER BY v.VOYAGE_ID")[0]
    others = _rows(service, "SELECT DISTINCT ve.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID IN "
                            "(v.ORIGIN_PORT_ID, v.DESTINATION_PORT_ID) JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                            "WHERE p.PORT_NAME = :port AND ve.VESSEL_NAME <> :vessel", port=origin, vessel=vessel)
    answer, mode = _ask(service, f"Which port does voyage {number} start from, and which vessel sails it?")
    assert mode in GROUNDED and origin in answer and vessel in answer, answer
    assert not any(name in answer for (name,) in others), answer


def test_two_ships_compared_on_their_boxes_column_are_not_a_list_of_boxes(service):
    a, b = [n for (n,) in _rows(service, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY CAPACITY_TEU DESC")[:2]]
    answer, mode = _ask(service, f"{a} or {b}: which takes more containers (TEU), and by how much?")
    assert not (mode in GROUNDED and re.search(r"\bcontainer \d+ \(", answer)), answer


def test_this_week_is_the_datas_calendar_week_and_the_next_week_seven_days_on(service):
    schema, _ = assistant.knowledge(service.eng)
    today = planner.reference_date(schema)
    assert today is not None
    monday = today - datetime.timedelta(days=today.weekday())
    rows = _rows(service, "SELECT p.PORT_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                          "WHERE v.ARRIVAL_DATE BETWEEN :lo AND :hi GROUP BY p.PORT_NAME ORDER BY COUNT(*) DESC, p.PORT_NAME",
                 lo=monday.isoformat(), hi=(monday + datetime.timedelta(days=6)).isoformat())
    assert rows, "voyages arrive in the data's week"
    port, n = rows[0]
    answer, mode = _ask(service, f"How many ships are due in {port} this week?")
    assert mode in GROUNDED and re.search(rf"\b{n}\b", answer) and monday.isoformat() in answer, answer
    seven = _rows(service, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE DEPARTURE_DATE BETWEEN :lo AND :hi",
                  lo=today.isoformat(), hi=(today + datetime.timedelta(days=6)).isoformat())[0][0]
    answer, mode = _ask(service, "How many voyages depart over the next week?")
    assert mode in GROUNDED and re.search(rf"\b{seven}\b", answer), answer


def test_a_count_said_again_now_not_the_old_one_is_the_count_of_a_total(service):
    item = next(i for i in catalog.ITEMS if i.item_id == "EQ-40RH")
    turns = _talk(service, [("t1", "We plan to move 9 containers of frozen fish out of Busan, 40' high cube reefers."),
                            ("t2", "Quick update: the buyer scaled it down, it's 6 containers now, not 9."),
                            ("t3", "What would leasing my containers for 10 days come to?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and f"{6 * 10 * item.price_usd:,.2f}" in answer, answer
    assert f"{9 * 10 * item.price_usd:,.2f}" not in answer, answer


def test_a_role_never_told_is_not_another_roles_name(service):
    box, vessel, _ = _a_box_with_goods(service, "%wine%")
    (origin,) = _rows(service, "SELECT p.PORT_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                               "JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID WHERE c.CONTAINER_NUMBER = :box", box=box)[0]
    turns = _talk(service, [("t1", f"My buyer Bodega Norte has the box {box} on the {vessel} out of {origin}."),
                            ("t2", f"Which haulage firm did I say I use in {origin}?"),
                            ("t3", "Who is my buyer?")])
    assert turns[1][1] == "fallback" and "Bodega" not in turns[1][0], turns[1]
    assert turns[2][1] in GROUNDED and "Bodega Norte" in turns[2][0], turns[2]


def test_a_statement_whose_verb_follows_an_aside_is_kept_whole(service):
    box, vessel, _ = _a_box_with_goods(service, "%wine%")
    said = f"Our cargo insurance policy for the wine on the {vessel}, {box}, is POL-55172."
    assert personal.statement_part(said).rstrip(".") == said.rstrip(".")
    turns = _talk(service, [("t1", said), ("t2", f"Which policy number did I give you for {box}?")])
    assert turns[0][1] == "fallback" and "Noted" in turns[0][0], turns[0]
    assert turns[1][1] in GROUNDED and "POL-55172" in turns[1][0], turns[1]


def test_before_or_after_says_which(service):
    number, departed = _rows(service, "SELECT VOYAGE_NUMBER, DEPARTURE_DATE FROM {o}.VOYAGES WHERE STATUS = 'COMPLETED' "
                                      "AND VOYAGE_NUMBER IN (SELECT VOYAGE_NUMBER FROM {o}.VOYAGES GROUP BY VOYAGE_NUMBER "
                                      "HAVING COUNT(*) = 1) ORDER BY VOYAGE_ID")[0]
    day = datetime.date.fromisoformat(str(departed)[:10]) + datetime.timedelta(days=4)
    turns = _talk(service, [("t1", f"For the record: our customs entry for the box on voyage {number} was lodged on "
                                   f"{day.day} {day:%B}."),
                            ("t2", f"Was our customs entry lodged before or after voyage {number} departed, and by "
                                   "how many days?")])
    answer, mode = turns[1]
    assert mode in GROUNDED and answer.startswith("After, by 4 days"), answer


def test_a_unit_refused_by_its_figures_is_not_wanted():
    found = preferences.extract("Please go back to tonnes from now on, the kg figures are confusing our planners.",
                                {"weight": "kg"})
    assert [(p.dimension, p.unit) for p in found] == [("weight", "tonnes")], found


def test_von_nach_is_a_route(service):
    origin, destination, vessel = _rows(service, "SELECT o.PORT_NAME, d.PORT_NAME, ve.VESSEL_NAME FROM {o}.VOYAGES v "
                                                 "JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                                 "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                                                 "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                                                 "WHERE v.STATUS = 'ACTIVE' ORDER BY v.VOYAGE_ID")[0]
    answer, mode = _ask(service, f"Welches Schiff fährt gerade von {origin} nach {destination}?")
    assert mode in GROUNDED and vessel in answer, answer


def test_the_short_head_noun_of_the_goods_names_them(service):
    box, _, packages = _a_box_with_goods(service, "%olive oil%")
    answer, mode = _ask(service, f"How many cartons of oil are in {box}?")
    assert mode in GROUNDED and str(packages) in answer.replace(",", ""), answer


def test_a_word_of_a_catalog_items_name_is_no_table_of_the_data(service):
    item = next(i for i in catalog.ITEMS if i.item_id == "SV-PTI")
    port = next(p for p, _ in catalog.availability()[item.item_id].items())
    name = catalog.ports()[port]["name"]
    answer, mode = _ask(service, f"How much is a pre-trip inspection in {name}?")
    assert mode in GROUNDED and f"{item.price_usd:,.2f}" in answer, answer


def test_stock_at_a_port_and_the_cost_of_some_of_it(service):
    item = next(i for i in catalog.ITEMS if i.item_id == "EQ-20RF")
    port, units = next(iter(catalog.availability()[item.item_id].items()))
    name = catalog.ports()[port]["name"]
    answer, mode = _ask(service, f"Are 20' reefers available in {name}, and what would 4 of them cost for 12 days?")
    assert mode in GROUNDED and str(units) in answer and f"{4 * 12 * item.price_usd:,.2f}" in answer, answer


def test_a_port_by_its_initials_in_capitals_and_a_question_asked_through_check(service):
    vessel, arrival = _rows(service, "SELECT ve.VESSEL_NAME, v.ARRIVAL_DATE FROM {o}.VOYAGES v "
                                     "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                                     "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                                     "WHERE p.PORT_NAME = 'Los Angeles' ORDER BY v.VOYAGE_ID")[0]
    elsewhere = _rows(service, "SELECT v.ARRIVAL_DATE FROM {o}.VOYAGES v JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                               "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                               "WHERE ve.VESSEL_NAME = :vessel AND p.PORT_NAME <> 'Los Angeles'", vessel=vessel)
    answer, mode = _ask(service, f"Could you check when the {vessel} gets into LA?")
    assert mode in GROUNDED and str(arrival)[:10] in answer, answer
    assert not any(str(d)[:10] in answer for (d,) in elsewhere), answer
    schema, values = assistant.knowledge(service.eng)
    assert not values.links("¿Cuándo es la salida del buque?"), "a short form counts only in capitals"


def test_in_there_of_a_box_stated_is_inside_the_box(service):
    box, _, packages = _a_box_with_goods(service, "%wine%")
    answer, mode = _ask(service, f"My client's wine is in {box}. How many cases of wine are in there?")
    assert mode in GROUNDED and str(packages) in answer.replace(",", ""), answer


def test_a_kind_of_box_of_theirs_and_a_port_it_does_not_go_to(service):
    box, destination, wrong = _rows(service, "SELECT c.CONTAINER_NUMBER, d.PORT_NAME, o.PORT_NAME FROM {o}.CONTAINERS c "
                                             "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                                             "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                                             "JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                             "WHERE c.SIZE_TYPE LIKE '%RF' ORDER BY c.CONTAINER_ID")[0]
    (arrival,) = _rows(service, "SELECT v.ARRIVAL_DATE FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                                "WHERE c.CONTAINER_NUMBER = :box", box=box)[0]
    turns = _talk(service, [("t1", f"We have a reefer booked, {box}, with our usual line."),
                            ("t2", f"When does our reefer get to {destination}?"),
                            ("t3", f"When does our reefer get to {wrong}?")])
    assert turns[1][1] in GROUNDED and str(arrival)[:10] in turns[1][0], turns[1]
    assert turns[2][1] == "fallback" and str(arrival)[:10] not in turns[2][0], turns[2]


def test_the_customer_a_thing_of_theirs_is_for(service):
    box, vessel, _ = _a_box_with_goods(service, "%wine%")
    turns = _talk(service, [("t1", f"Our 40' box {box} is on the {vessel}, red wine for Quinta Azul in Porto."),
                            ("t2", "which customer was that wine box for?"),
                            ("t3", "which haulier takes that wine box?")])
    assert turns[1][1] in GROUNDED and "Quinta Azul" in turns[1][0], turns[1]
    assert turns[2][1] == "fallback" and "Quinta Azul" not in turns[2][0], turns[2]


def test_routes_and_from_where_to_where_are_both_ends(service):
    vessel = _rows(service, "SELECT ve.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                            "GROUP BY ve.VESSEL_NAME HAVING COUNT(*) = 2 ORDER BY ve.VESSEL_NAME")[0][0]
    ends = _rows(service, "SELECT o.PORT_NAME, d.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                          "JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                          "WHERE ve.VESSEL_NAME = :vessel", vessel=vessel)
    for question in (f"List the voyages of the {vessel} with their routes.",
                     f"Which voyages does the {vessel} sail, from where to where?"):
        answer, mode = _ask(service, question)
        assert mode in GROUNDED and all(o in answer and d in answer for o, d in ends), (question, answer)


def test_the_most_out_of_date_position_is_the_oldest_report(service):
    vessel = _rows(service, "SELECT ve.VESSEL_NAME FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = p.IMO_NUMBER "
                            "ORDER BY p.REPORTED_AT LIMIT 1")[0][0]
    newest = _rows(service, "SELECT ve.VESSEL_NAME FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = p.IMO_NUMBER "
                            "ORDER BY p.REPORTED_AT DESC LIMIT 1")[0][0]
    answer, mode = _ask(service, "Whose position report is the least recent?")
    assert mode in GROUNDED and vessel in answer, answer
    answer, mode = _ask(service, "Which ship's position is the most up-to-date?")
    assert mode in GROUNDED and newest in answer, answer


def test_a_correction_of_another_thing_of_theirs_keeps_the_first(service):
    turns = _talk(service, [("t1", "Keeping a log of my bookings: the glassware one, ref GW-118, I placed on the third of May."),
                            ("t2", "the cork booking, CK-207, was actually placed before the glassware, on the first of May."),
                            ("t3", "which booking did I place on the third?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and "GW-118" in answer and "CK-207" not in answer, answer


def test_a_new_name_with_its_own_noun_retires_no_other_name(service):
    turns = _talk(service, [("t1", "Halden Chemicals is the shipper on our solvent drums, and I always end up chasing them."),
                            ("t2", "and Mirela, my deputy, is away until the 14th so it's all on me."),
                            ("t3", "who's the shipper on the solvent drums again?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and "Halden Chemicals" in answer, answer


def test_a_day_changed_by_a_change_of_plan_is_the_day_now(service):
    turns = _talk(service, [("t1", "We've arranged a crane hire at Rotterdam for 12 June for the Brandt Machinery import."),
                            ("t2", "Change of plan: the Brandt crane hire at Rotterdam is now on 19 June, the site isn't ready."),
                            ("t3", "What date did I first give you for the Brandt crane hire, and what is it now?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and re.search(r"First 12 June.*now 19 June", answer), answer


def test_the_thing_of_theirs_said_with_a_name_before_its_noun_is_theirs(service):
    number, vessel, destination = _rows(service, "SELECT v.VOYAGE_NUMBER, ve.VESSEL_NAME, p.PORT_NAME FROM {o}.VOYAGES v "
                                                 "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                                                 "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                                                 "WHERE v.STATUS = 'SCHEDULED' AND v.VOYAGE_NUMBER IN (SELECT VOYAGE_NUMBER "
                                                 "FROM {o}.VOYAGES GROUP BY VOYAGE_NUMBER HAVING COUNT(*) = 1) ORDER BY v.VOYAGE_ID")[0]
    (arrival,) = _rows(service, "SELECT ARRIVAL_DATE FROM {o}.VOYAGES WHERE VOYAGE_NUMBER = :n", n=number)[0]
    turns = _talk(service, [("t1", "Our forwarder in Izmir handles the ceramics for us this season."),
                            ("t2", f"Heads up, the Izmir forwarder has booked on {vessel} voyage {number}."),
                            ("t3", "When does the voyage my Izmir forwarder booked get in, and where?")])
    assert turns[1][1] == "fallback" and "Noted" in turns[1][0], turns[1]
    answer, mode = turns[2]
    assert mode in GROUNDED and str(arrival)[:10] in answer and destination in answer, answer


def test_answers_in_german_name_their_columns_in_german(service):
    carrier, alliance = _rows(service, "SELECT CARRIER_NAME, ALLIANCE FROM {o}.CARRIERS WHERE ALLIANCE IS NOT NULL "
                                       "ORDER BY CARRIER_ID")[0]
    turns = _talk(service, [("t1", "Please answer me in German from now on."),
                            ("t2", f"Which alliance is {carrier} in?")])
    answer, mode = turns[1]
    assert mode in GROUNDED and alliance in answer and "Allianz" in answer, answer


def test_combien_alone_asks_how_much(service):
    vessel, length = _rows(service, "SELECT VESSEL_NAME, LENGTH_M FROM {o}.VESSELS ORDER BY IMO_NUMBER")[0]
    answer, mode = _ask(service, f"Et le {vessel}, il mesure combien ?")
    assert mode in GROUNDED and f"{float(length):.2f}" in answer, answer


def test_a_name_with_letters_no_accent_makes_and_a_typo(service):
    (capacity,) = _rows(service, "SELECT CAPACITY_TEU FROM {o}.VESSELS WHERE VESSEL_NAME = 'Gunhild Maersk'")[0]
    answer, mode = _ask(service, "what's the TEU of the Gunhld Mærsk?")
    assert mode in GROUNDED and f"{int(capacity):,}" in answer, answer


def test_the_start_of_a_name_with_the_rest_left_vague(service):
    number, vessel = _rows(service, "SELECT v.VOYAGE_NUMBER, ve.VESSEL_NAME FROM {o}.VOYAGES v "
                                    "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                                    "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                                    "WHERE ve.VESSEL_NAME LIKE 'Wan Hai%' AND d.PORT_NAME = 'Tanjung Pelepas'")[0]
    answer, mode = _ask(service, "Which Wan-something ship is heading to Tanjung Pelepas, and its voyage number?")
    assert mode in GROUNDED and vessel in answer and number in answer, answer


def test_the_declared_value_of_goods_on_a_voyage_is_their_total(service):
    number, total = _rows(service, "SELECT v.VOYAGE_NUMBER, SUM(ci.QUANTITY * ci.UNIT_VALUE_CENTS) / 100.0 "
                                   "FROM {o}.CARGO_ITEMS ci JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID "
                                   "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE LOWER(ci.DESCRIPTION) LIKE '%wine%' "
                                   "AND v.VOYAGE_NUMBER IN (SELECT VOYAGE_NUMBER FROM {o}.VOYAGES GROUP BY VOYAGE_NUMBER "
                                   "HAVING COUNT(*) = 1) GROUP BY v.VOYAGE_NUMBER ORDER BY v.VOYAGE_NUMBER")[0]
    answer, mode = _ask(service, f"What's the declared value of the wine on voyage {number}?")
    assert mode in GROUNDED and f"{float(total):,.2f}" in answer, answer


def test_which_row_is_worth_the_most_is_no_total_of_all(service):
    total = _rows(service, "SELECT SUM(QUANTITY * UNIT_VALUE_CENTS) / 100.0 FROM {o}.CARGO_ITEMS")[0][0]
    answer, mode = _ask(service, "Which cargo line is worth the most?")
    assert not (mode in GROUNDED and f"{float(total):,.2f}" in answer), answer


def test_regions_at_both_ends_and_a_region_two_values_share(service):
    rows = _rows(service, "SELECT v.VOYAGE_NUMBER FROM {o}.VOYAGES v JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                          "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                          "WHERE o.REGION = 'East Asia' AND d.REGION LIKE 'North America%'")
    others = _rows(service, "SELECT v.VOYAGE_NUMBER FROM {o}.VOYAGES v JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                            "WHERE o.REGION <> 'East Asia'")
    assert rows, "voyages go from East Asia to North America"
    answer, mode = _ask(service, "List the sailings from East Asia to North America.")
    assert mode in GROUNDED and all(n in answer for (n,) in rows), answer
    assert not any(re.search(rf"\({re.escape(n)}\)", answer) for (n,) in others if (n,) not in rows), answer


def test_an_upcoming_sailing_is_a_scheduled_one(service):
    expected = {n for (n,) in _rows(service, "SELECT ve.VESSEL_NAME FROM {o}.VESSELS ve WHERE NOT EXISTS (SELECT 1 FROM "
                                             "{o}.VOYAGES v WHERE v.IMO_NUMBER = ve.IMO_NUMBER AND v.STATUS = 'SCHEDULED')")}
    never = {n for (n,) in _rows(service, "SELECT ve.VESSEL_NAME FROM {o}.VESSELS ve WHERE NOT EXISTS (SELECT 1 FROM "
                                          "{o}.VOYAGES v WHERE v.IMO_NUMBER = ve.IMO_NUMBER)")}
    assert expected != never, "ships without a scheduled sailing are not only those without any"
    answer, mode = _ask(service, "Which ships have no future voyages planned?")
    assert mode in GROUNDED and all(n in answer for n in expected), answer

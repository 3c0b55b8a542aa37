"""Through the chat service: the rows a question asks for, and what each row shows.

A ship found through its voyages is shown with the voyage found; a manifest line listed alone with its
count and kind of package; "list the frozen reefers" lists reefers, not their voyages; "the last speed
reported" is the latest report's, not the highest; latitude and longitude say their hemisphere; "per STATUS
value" groups by status; a container named by its number is looked into; "together" adds up; a column
owns a word of the question only when no other column's words cover more of it; who asks ("Hollis &
Grange want to know") is not part of the question; catalog items at a port are answered each.

Every expected figure comes from SQL over SUPPLYCHAIN or from the catalog.
"""
from __future__ import annotations

import itertools

from tests.conftest import conversation
from workshop_lib.assistant.answering import availability
from workshop_lib.data import catalog
from workshop_lib.data.supplychain_data import OWNER

_users = itertools.count()
GROUNDED = ("rag", "hybrid")


def _ask(service, question: str) -> tuple[str, str]:
    return conversation(service, f"rows-{next(_users)}", [("t1", question)])[0]


def _port_with_one_active_arrival(service) -> tuple[str, str, str]:
    """(port, vessel, voyage number) of a port exactly one ACTIVE voyage is heading for."""
    return service.eng.query(
        f"SELECT p.PORT_NAME, MIN(s.VESSEL_NAME), MIN(v.VOYAGE_NUMBER) FROM {OWNER}.VOYAGES v "
        f"JOIN {OWNER}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE v.STATUS = 'ACTIVE' GROUP BY p.PORT_NAME HAVING COUNT(*) = 1 ORDER BY 1")[0]


def test_a_ship_found_through_its_voyage_shows_that_voyage(service):
    port, vessel, number = _port_with_one_active_arrival(service)
    answer, mode = _ask(service, f"Which ships are on the water headed for {port} right now?")
    line = next((ln for ln in answer.splitlines() if ln.startswith(f"- {vessel}")), "")
    assert mode in GROUNDED and number in line, answer


def test_a_manifest_line_listed_alone_shows_its_count_and_package(service):
    number, quantity, package = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, MIN(ci.QUANTITY), MIN(ci.PACKAGE_TYPE) FROM {OWNER}.CONTAINERS c "
        f"JOIN {OWNER}.CARGO_ITEMS ci ON ci.CONTAINER_ID = c.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
        f"HAVING COUNT(*) = 1 ORDER BY 1")[0]
    answer, mode = _ask(service, f"what's loaded in {number}?")
    assert mode in GROUNDED and f"quantity {quantity:,}".replace(",", "") in answer.replace(",", "") \
        and f"package type {package}" in answer, answer


def test_list_the_frozen_reefers_lists_reefers_not_their_voyages(service):
    boxes = [r[0] for r in service.eng.query(
        f"SELECT c.CONTAINER_NUMBER FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
        f"WHERE c.SIZE_TYPE IN ('20RF', '40RF') AND c.REEFER_TEMP_C < 0 AND v.STATUS = 'ACTIVE'")]
    answer, mode = _ask(service, "List the reefers (set point below 0 °C) on voyages currently at sea.")
    assert mode in GROUNDED and boxes and all(b in answer for b in boxes) and "voyages" not in answer.split(":")[0], answer


def test_the_last_speed_reported_is_ordered_by_when_not_by_speed(service):
    # (each ship has one report in the data: the query must order by the report's time, not the speed)
    vessel, speed = service.eng.query(f"SELECT s.VESSEL_NAME, p.SPEED_KNOTS FROM {OWNER}.VESSELS s "
                                      f"JOIN {OWNER}.VESSEL_POSITIONS p ON p.IMO_NUMBER = s.IMO_NUMBER ORDER BY 1")[0]
    body, mode = service.answer({"question": f"what was the last speed reported by the {vessel}?", "thread_id": None,
                                 "user_id": f"rows-{next(_users)}", "agent": False})
    sql = str(body["decision_explain"].get("sql", ""))
    assert mode in GROUNDED and f"{speed:.2f}" in body["answer"] and "REPORTED_AT DESC" in sql \
        and "SPEED_KNOTS DESC" not in sql, (body["answer"], sql)


def test_lat_long_is_latitude_and_longitude_with_their_hemisphere(service):
    port, lat, lon = service.eng.query(f"SELECT PORT_NAME, LATITUDE, LONGITUDE FROM {OWNER}.PORTS "
                                       f"WHERE LATITUDE < 0 AND LONGITUDE < 0 ORDER BY 1")[0]
    answer, mode = _ask(service, f"lat/long for {port}?")
    assert mode in GROUNDED and f"{abs(lat):.2f}° S" in answer and f"{abs(lon):.2f}° W" in answer, answer


def test_a_count_per_a_columns_value_groups_by_that_column(service):
    counts = dict(service.eng.query(f"SELECT STATUS, COUNT(*) FROM {OWNER}.VOYAGES GROUP BY STATUS"))
    answer, mode = _ask(service, "Give me the number of voyages per STATUS value.")
    assert mode in GROUNDED and all(f"{s}: {n}" in answer for s, n in counts.items()), answer


def test_a_container_named_by_its_number_is_looked_into(service):
    number, un = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, MIN(ci.UN_NUMBER) FROM {OWNER}.CONTAINERS c JOIN {OWNER}.CARGO_ITEMS ci "
        f"ON ci.CONTAINER_ID = c.CONTAINER_ID WHERE ci.UN_NUMBER IS NOT NULL GROUP BY c.CONTAINER_NUMBER ORDER BY 1")[0]
    answer, mode = _ask(service, f"which UN number does {number} carry?")
    assert mode in GROUNDED and str(un) in answer, answer


def test_together_adds_the_rows_up(service):
    (a, wa), (b, wb) = service.eng.query(f"SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {OWNER}.CONTAINERS "
                                         f"ORDER BY CONTAINER_NUMBER")[:2]
    answer, mode = _ask(service, f"how heavy are {a} and {b} together, gross?")
    assert mode in GROUNDED and f"{wa + wb:,.0f}" in answer, answer


def test_a_column_that_only_owns_the_qualifier_is_not_the_column_asked(service):
    answer, mode = _ask(service, "where is the declared value of each package stored?")
    first = next((ln for ln in answer.splitlines() if ln.startswith("- [")), "")
    assert mode == "fallback" or "UNIT_VALUE_CENTS" in first, answer


def test_who_wants_to_know_is_not_part_of_the_question(service):
    number, destination = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, p.PORT_NAME FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON v.VOYAGE_ID = "
        f"c.VOYAGE_ID JOIN {OWNER}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE v.STATUS = 'ACTIVE' ORDER BY 1")[0]
    answer, mode = _ask(service, f"Hollis & Grange want to know where container {number} is headed, can you check?")
    assert mode in GROUNDED and destination in answer, answer


def test_several_catalog_items_at_a_port_are_answered_each():
    rows = catalog.availability()
    port = next(p for p in catalog.ports() if any(p in r for r in rows.values()) and any(p not in r for r in rows.values()))
    there = next(i for i in catalog.ITEMS if i.category == "equipment" and port in rows.get(i.item_id, {}))
    missing = next(i for i in catalog.ITEMS if i.category == "service" and port not in rows.get(i.item_id, {}))
    name = catalog.ports()[port]["name"]
    found = availability.offered_at(f"Is a {there.name} available at {name}, and {missing.name.lower()}? What do they cost?")
    assert found is not None and set(found.item_ids) == {there.item_id, missing.item_id}, found
    assert f"no, not available at {name}" in found.text and f"{there.price_usd:,.2f}" in found.text \
        and f"{missing.price_usd:,.2f}" in found.text, found.text


def test_a_box_not_at_the_port_names_the_other_sizes_of_its_type_there():
    from workshop_lib.parts import grounded
    rows = catalog.availability()
    item, port, other = next((i, p, o) for i in catalog.ITEMS for o in grounded.variants_of(i)
                             for p in rows.get(o.item_id, {}) if p not in rows.get(i.item_id, {}))
    name = catalog.ports()[port]["name"]
    found = availability.offered_at(f"Can I lease a {item.name} in {name}? If not, what can I get there?")
    assert found is not None and f"no, not available at {name}" in found.text and other.item_id in found.text \
        and f"({rows[other.item_id][port]} units)" in found.text, found and found.text


def test_how_two_tables_are_linked_is_answered_from_their_relationship(service):
    for question, key in [("How is a voyage linked to the ports it sails between?", "VOYAGES.ORIGIN_PORT_ID"),
                          ("What links a vessel to the line that operates it?", "VESSELS.CARRIER_ID"),
                          ("What ties a container to the voyage it travels on?", "CONTAINERS.VOYAGE_ID")]:
        answer, mode = _ask(service, question)
        assert mode in GROUNDED and key in answer, (question, answer)


def test_which_of_two_a_column_holds_is_answered_from_its_comment(service):
    answer, mode = _ask(service, "Is the departure date actual or planned?")
    first = next((ln for ln in answer.splitlines() if ln.startswith("- [")), "")
    assert mode in GROUNDED and "VOYAGES.DEPARTURE_DATE" in first, answer


def test_a_yes_or_no_question_naming_no_rows_is_no_list_of_every_row(service):
    answer, mode = _ask(service, "Is the departure date the actual one or the planned one?")
    assert not (mode in GROUNDED and answer.count("\n- ") > 5), answer

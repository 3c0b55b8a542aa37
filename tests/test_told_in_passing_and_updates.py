"""Through the chat service: what users tell in passing, how they point back at it, and what they change.

A reference of digits and hyphens ("7710-20455") is kept; a request to forget a phone number forgets no box told
beside it; a box is named by the letters its number starts with, and a party of theirs by a later word of its
name; a lead-in before a colon is no memory; "those two" and "the box numbers" are the several boxes told; a
date format written as its pattern in French or German, and a temperature unit refused with "doesn't", are
preferences; a rate said again with no currency ("drops to 2,150 per FEU") is the rate now, in the totals too;
"update from ONE: ..." is news, not a write; "whose is it, and when does it arrive?" answers both parts; a German
request to forget names its noun with an ending ("den Zollagenten"); "und bei MSC?" asks the last question again.

Every expected figure comes from SQL over SUPPLYCHAIN; the users' names and references are the tests'.
"""
from __future__ import annotations

from tests.conftest import talk
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.memory import own_values, personal

GROUNDED = ("rag", "hybrid")


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return talk(service, "passing", turns)


def _rows(service, sql: str, **binds) -> list[tuple]:
    return [tuple(r) for r in service.eng.query(sql.format(o=OWNER), binds)]


def _boxes_to(service, port: str) -> list[tuple[str, str, str]]:
    """(box number, vessel name, arrival date) of the boxes of the first voyage to a port with two or more."""
    rows = _rows(service, "SELECT c.CONTAINER_NUMBER, ve.VESSEL_NAME, v.ARRIVAL_DATE, v.VOYAGE_ID FROM {o}.CONTAINERS c "
                          "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER "
                          "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE p.PORT_NAME = :port "
                          "ORDER BY v.VOYAGE_ID, c.CONTAINER_NUMBER", port=port)
    voyages = [r[3] for r in rows]
    first = next(v for v in voyages if voyages.count(v) >= 2)
    return [(str(r[0]), str(r[1]), str(r[2])[:10]) for r in rows if r[3] == first]


def _destination(service, box: str) -> str:
    return str(_rows(service, "SELECT p.PORT_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                              "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE c.CONTAINER_NUMBER = :box",
                     box=box)[0][0])


def test_a_reference_of_digits_and_hyphens_is_kept_and_recalled(service):
    assert own_values.CODE_RE.findall("PO 7710-20455, sailing 2025-06-01, years 2024-2025, 10-15 days") == ["7710-20455"]
    turns = _talk(service, [("t1", "Jot this down: our purchase order for the tiles is 7710-20455, don't let me lose it."),
                            ("t2", "what was the purchase order number again?")])
    answer, mode = turns[1]
    assert mode in GROUNDED and "7710-20455" in answer, answer


def test_forgetting_a_phone_number_keeps_the_box_told_beside_it(service):
    box, _, _ = _boxes_to(service, "Rotterdam")[0]
    turns = _talk(service, [("t1", f"I look after {box} for Osprey Marine. My cell is +1 415 555 0199 for emergencies."),
                            ("t2", "please forget my cell number, I'd rather it wasn't stored."),
                            ("t3", f"remind me, which customer is {box} for?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and "Osprey" in answer and "0199" not in answer, answer


def test_a_box_named_by_the_letters_its_number_starts_with(service):
    box, _, _ = _boxes_to(service, "Colombo")[0]
    turns = _talk(service, [("t1", f"Tracking {box} for Larkspur Textiles this month."),
                            ("t2", f"sorry, which customer was the {box[:4]} container for again?")])
    answer, mode = turns[1]
    assert mode in GROUNDED and "Larkspur" in answer, answer


def test_a_party_of_theirs_by_a_later_word_of_its_name_and_a_lead_in_is_no_memory(service):
    box, _, _ = _boxes_to(service, "Shanghai")[0]
    user = "passing-delacroix"
    from tests.conftest import conversation
    turns = conversation(service, user, [
        ("t1", f"We pack spices for our client Maison Delacroix into {box}, our job ref is MD-5512."),
        ("t2", "what's the container number for Delacroix again?"),
        ("t3", "one for my manager: the Delacroix box, which port does it discharge at?")])
    (number, mode_number), (port, mode_port) = turns[1], turns[2]
    assert mode_number in GROUNDED and box in number, number
    assert mode_port in GROUNDED and _destination(service, box) in port, port
    told = [r.content or "" for r in personal.valid_memories(service.eng, user, service.eng.agent_id)]
    assert not any("manager" in t for t in told), told


def test_those_two_and_the_box_numbers_are_the_boxes_told(service):
    (a, vessel, arrival), (b, _, _) = _boxes_to(service, "New York / New Jersey")[:2]
    turns = _talk(service, [("t1", f"Got two boxes on the {vessel} for a client: {a} and {b}."),
                            ("t2", "when do those two get in?"),
                            ("t3", "can you remind me of the container numbers?"),
                            ("t4", "¿cuándo llegan a Nueva York esos dos?")])
    for answer, mode in (turns[1], turns[3]):
        assert mode in GROUNDED and a in answer and b in answer and arrival in answer, answer
    answer, mode = turns[2]
    assert mode in GROUNDED and a in answer and b in answer, answer


def test_date_patterns_in_other_languages_and_a_unit_refused_with_doesnt(service):
    (box, _, arrival), = _boxes_to(service, "Valencia")[:1]
    reefer = _rows(service, "SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {o}.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL "
                            "ORDER BY CONTAINER_NUMBER")[0]
    year, month, day = arrival.split("-")
    fahrenheit = f"{float(reefer[1]) * 9 / 5 + 32:.1f}".rstrip("0").rstrip(".")
    turns = _talk(service, [("t1", "Ab jetzt bitte alle Daten im Format TT.MM.JJJJ."),
                            ("t1", f"When does {box} arrive?"),
                            ("t2", "temps in Fahrenheit please, our yard team doesn't use Celsius"),
                            ("t2", f"set point on {reefer[0]}?"),
                            ("t3", "back to Celsius from now on, the yard team changed")])
    assert "TT.MM.JJJJ" not in turns[0][0] and "DD.MM.YYYY" in turns[0][0], turns[0][0]
    answer, mode = turns[1]
    assert mode in GROUNDED and f"{day}.{month}.{year}" in answer and arrival not in answer, answer
    answer, mode = turns[3]
    assert mode in GROUNDED and f"{fahrenheit} °F" in answer, answer
    assert "°C" in turns[4][0], turns[4][0]


def test_a_rate_said_again_without_its_currency_is_the_rate_now(service):
    turns = _talk(service, [("t1", "our ONE rate for Busan to Rotterdam is 2,400 USD per FEU"),
                            ("t2", "news from ONE this morning: from July that Busan-Rotterdam rate drops to 2,150 per FEU"),
                            ("t3", "what is our ONE rate Busan to Rotterdam now?"),
                            ("t3", "and what would 3 FEU on that cost us?")])
    assert "forget" not in turns[1][0].lower() and "won't" not in turns[1][0], turns[1][0]
    answer, mode = turns[2]
    assert mode in GROUNDED and "2,150" in answer and "2,400" not in answer, answer
    answer, mode = turns[3]
    assert mode in GROUNDED and "6,450" in answer, answer


def test_news_that_starts_with_update_is_no_write_but_sql_still_is(service):
    from workshop_lib.assistant.answering import router
    assert router.WRITE_REQUEST_RE.search("update from Maersk today: the cut-off moved") is None
    assert router.WRITE_SQL_RE.search("DELETE FROM SUPPLYCHAIN.VESSELS") is not None
    assert router.WRITE_SQL_RE.search("update vessels set flag = 'PA'") is not None
    assert router.WRITE_REQUEST_RE.search("Update voyage 1020 to ARRIVED") is not None


def test_whose_box_and_when_it_arrives_answers_both_parts(service):
    box, _, arrival = _boxes_to(service, "Kaohsiung")[0]
    turns = _talk(service, [("t1", f"for the record: {box} belongs to Ridgeway Foods"),
                            ("t2", f"who's the customer on {box} and when does it arrive?")])
    answer, mode = turns[1]
    assert mode in GROUNDED and "Ridgeway" in answer and arrival in answer, answer


def test_a_german_request_to_forget_names_its_noun_with_an_ending(service):
    turns = _talk(service, [("t1", "Merk dir bitte: unser Zollagent in Bremen ist Albers Zollservice. "
                                   "Und unsere Kundennummer bei MSC ist 5521-HB."),
                            ("t2", "Bitte vergiss den Zollagenten, das stimmt nicht mehr."),
                            ("t3", "Wer ist nochmal unser Zollagent?"),
                            ("t3", "Und unsere Kundennummer bei Maersk?"),
                            ("t3", "und bei MSC?")])
    assert "Albers" not in turns[2][0], turns[2][0]
    assert "5521-HB" not in turns[3][0], turns[3][0]
    answer, mode = turns[4]
    assert mode in GROUNDED and "5521-HB" in answer, answer


def test_a_switch_that_names_the_one_before_keeps_the_new_one(service):
    turns = _talk(service, [("t1", "For the files: on 3 March we signed a drayage contract with Hollmann Haulage."),
                            ("t2", "heads up — on 9 April we switched our haulier to Vistula Road Freight, Hollmann kept "
                                   "cancelling pickups."),
                            ("t3", "which haulier do we use now?"),
                            ("t3", "how many days were we with the first one before the switch?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and "Vistula" in answer, answer
    answer, mode = turns[3]
    assert mode == "fallback" or "37" in answer, answer  # (3 March to 9 April; never the day alone under a badge)


def test_a_box_said_to_be_going_to_another_party_is_that_partys_now(service):
    box, _, _ = _boxes_to(service, "Tanjung Pelepas")[0]
    turns = _talk(service, [("t1", f"The sofas in {box} are for Norvik Interiors."),
                            ("t2", f"sorry, I had them mixed up. Norvik isn't buying the sofas. The sofas in {box} are "
                                   "going to Albacore Living."),
                            ("t3", f"which customer does {box} go to?")])
    answer, mode = turns[2]
    assert mode in GROUNDED and "Albacore" in answer and "Norvik" not in answer, answer


def test_a_figure_of_a_thing_of_theirs_the_data_does_not_hold_is_not_the_ships(service):
    vessel, port, _capacity = _rows(service, "SELECT ve.VESSEL_NAME, p.PORT_NAME, ve.CAPACITY_TEU FROM {o}.VOYAGES v "
                                            "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p "
                                            "ON p.PORT_ID = v.ORIGIN_PORT_ID WHERE v.STATUS = 'SCHEDULED' "
                                            "ORDER BY v.VOYAGE_ID")[0]
    turns = _talk(service, [("t1", f"got 4 boxes of desk lamps booked on {vessel}'s next departure out of {port}."),
                            ("t2", "how many TEU does my booking take, and when does it sail?")])
    answer, mode = turns[1]
    assert mode not in GROUNDED, answer  # (the ship's capacity in TEU is no answer to it under a badge)

"""Through the chat service: days counted from the data's own date, a turn that asks before it tells (and
the statement kept), "that voyage" of a vessel and its voyage told, a unit only refused beside one said,
German dates and no half-translated sentence, a word of size that names no column, what is in a voyage's
boxes, a few counted rows named, a correction that names the wrong value first, a row named with its
table's noun, a unit value with its total, a name of theirs over a look-alike name of the data, a column's
value of goods named, ranked rows, the ends of a region and of one voyage, on board now, ranges of whole
dates, the next ship to leave a port, and "their" of a name told in the same turn.

Every expected figure comes from SQL over SUPPLYCHAIN; the users' own names and codes are the tests'.
"""
from __future__ import annotations

import datetime
import itertools

import pytest

from tests.conftest import conversation
from workshop_lib import assistant
from workshop_lib.assistant import question_part, sentences
from workshop_lib.data.supplychain_data import OWNER, REFERENCE_DATE
from workshop_lib.parts.memory import answer_language, preferences

_users = itertools.count()
TODAY = datetime.date.fromisoformat(str(REFERENCE_DATE)[:10])


def _talk(service, turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return conversation(service, f"days-{next(_users)}", turns)


def _days(value) -> int:
    return (datetime.date.fromisoformat(str(value)[:10]) - TODAY).days


def _voyage_under_way(service) -> tuple[str, int, int]:
    """(voyage number, days at sea so far, days to go) of an ACTIVE voyage."""
    number, departure, arrival = service.eng.query(
        f"SELECT VOYAGE_NUMBER, DEPARTURE_DATE, ARRIVAL_DATE FROM {OWNER}.VOYAGES WHERE STATUS = 'ACTIVE' "
        f"ORDER BY VOYAGE_ID")[0]
    return number, -_days(departure), _days(arrival)


def _a_box_and_its_voyage(service, where: str = "") -> tuple[str, str, str, object]:
    """(container number, voyage number, vessel, arrival date) of the first box (of those `where` keeps)."""
    return service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, v.VOYAGE_NUMBER, s.VESSEL_NAME, v.ARRIVAL_DATE FROM {OWNER}.CONTAINERS c JOIN "
        f"{OWNER}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"{where} ORDER BY c.CONTAINER_ID")[0]


# ---------------------------------------------------------------- days from the data's date
def test_days_at_sea_so_far_and_days_to_go_are_counted_from_the_datas_date_not_the_whole_span(service):
    number, so_far, to_go = _voyage_under_way(service)
    span = so_far + to_go
    assert so_far > 0 and to_go > 0 and so_far != span and to_go != span
    answer, mode = _talk(service, [("t1", f"how many days has voyage {number} been at sea?")])[0]
    assert mode == "rag" and f"{so_far} day" in answer and f"{span} days" not in answer, answer
    answer, mode = _talk(service, [("t1", f"how many days until voyage {number} arrives?")])[0]
    assert mode == "rag" and f"{to_go} day" in answer and f"{span} days" not in answer, answer
    answer, mode = _talk(service, [("t1", f"how long ago did voyage {number} depart?")])[0]
    assert mode == "rag" and f"{so_far} day" in answer, answer
    # the whole span is still what "how long does it take" asks
    answer, mode = _talk(service, [("t1", f"how many days does voyage {number} take?")])[0]
    assert mode == "rag" and f"{span} days" in answer, answer


def test_days_to_go_of_a_vessels_voyages_are_each_voyages_never_added_up(service):
    rows = service.eng.query(
        f"SELECT s.VESSEL_NAME FROM {OWNER}.VESSELS s JOIN {OWNER}.VOYAGES v ON v.IMO_NUMBER = s.IMO_NUMBER "
        f"GROUP BY s.VESSEL_NAME HAVING COUNT(*) = 2 AND MIN(v.ARRIVAL_DATE) > '{TODAY.isoformat()}' ORDER BY 1")
    vessel = rows[0][0]
    arrivals = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON "
        f"s.IMO_NUMBER = v.IMO_NUMBER WHERE s.VESSEL_NAME = '{vessel}'")
    answer, mode = _talk(service, [("t1", f"how many days until the {vessel} arrives?")])[0]
    assert mode == "rag", answer
    for number, arrival in arrivals:
        assert number in answer and f"{_days(arrival)} day" in answer, answer
    assert f"{sum(_days(a) for _, a in arrivals)} days" not in answer and "total" not in answer, answer


def test_a_voyage_on_the_other_side_of_the_datas_date_says_so_instead_of_a_negative_count(service):
    number, arrival = service.eng.query(
        f"SELECT VOYAGE_NUMBER, ARRIVAL_DATE FROM {OWNER}.VOYAGES WHERE STATUS = 'COMPLETED' ORDER BY VOYAGE_ID")[0]
    answer, mode = _talk(service, [("t1", f"how many days until voyage {number} arrives?")])[0]
    assert f"-{abs(_days(arrival))}" not in answer and (mode == "fallback" or f"{abs(_days(arrival))} day" in answer
                                                         and "ago" in answer), answer


def test_the_days_columns_are_no_columns_of_the_schema_for_a_question_about_the_schema(eng):
    assert assistant.schema_subjects(eng, "ETD column?") == ["VOYAGES.DEPARTURE_DATE"]
    assert assistant.schema_subjects(eng, "which column has the days at sea?") != ["VOYAGES.DAYS_SINCE_DEPARTURE"]


def test_the_date_literal_of_each_dialect_parses_in_the_days_between():
    import sqlglot

    from workshop_lib.engines.embedded import sql as embedded_sql
    from workshop_lib.engines.oracle import sql as oracle_sql
    for dialect, module in (("oracle", oracle_sql), ("sqlite", embedded_sql)):
        days = module.DAYS_BETWEEN.format(start="t.DEPARTURE_DATE", end=module.DATE_LITERAL.format(date="2025-06-02"))
        sqlglot.parse_one(f"SELECT {days} AS D FROM VOYAGES t WHERE {days} >= :p0", read=dialect)
    assert oracle_sql.DATE_LITERAL.startswith("DATE '")


# ---------------------------------------------------------------- a turn that asks before it tells
def test_a_question_before_a_statement_is_answered_and_the_statement_is_kept(service):
    box, number, _, arrival = _a_box_and_its_voyage(service, "WHERE v.STATUS = 'ACTIVE'")
    out = _talk(service, [
        ("t1", f"hi! when is voyage {number} due in? Quillfeather Produce has a box on her, {box}, and they "
               f"keep calling. fyi their customs entry no. is 7731-2208-4 in case it matters"),
        ("t2", "which box is Quillfeather's?"),
        ("t2", "and the customs entry number I gave you for them?"),
    ])
    (first, mode), (which, which_mode), (entry, _) = out
    assert mode == "rag" and str(arrival)[:10] in first and "quillfeather" not in first.lower(), first
    assert which_mode == "rag" and box in which, which
    assert "7731-2208-4" in entry, entry


def test_that_voyage_after_a_vessel_and_its_voyage_told_is_the_voyage(service):
    vessel, number = service.eng.query(
        f"SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON "
        f"s.IMO_NUMBER = v.IMO_NUMBER WHERE (SELECT COUNT(*) FROM {OWNER}.CONTAINERS c WHERE c.VOYAGE_ID = v.VOYAGE_ID) "
        f"BETWEEN 2 AND 5 AND (SELECT COUNT(*) FROM {OWNER}.VOYAGES o WHERE o.IMO_NUMBER = v.IMO_NUMBER) > 1 "
        f"ORDER BY v.VOYAGE_ID")[0]
    boxes = [r[0] for r in service.eng.query(
        f"SELECT c.CONTAINER_NUMBER FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
        f"WHERE v.VOYAGE_NUMBER = '{number}'")]
    answer, mode = _talk(service, [("t1", f"I'm handling the {vessel} {number} cargo for a hotel supplier. "
                                          "What boxes are on that voyage?")])[0]
    assert mode == "rag" and all(b in answer for b in boxes), answer


def test_a_sentence_does_not_end_after_a_lower_case_abbreviation():
    assert sentences.split("their customs entry no. is 8841-0092-7. Is it cleared?") == \
        ["their customs entry no. is 8841-0092-7.", "Is it cleared?"]
    assert sentences.split("We ship e.g. tiles; and glass", at_semicolons=True) == ["We ship e.g. tiles;", "and glass"]


def test_a_question_first_keeps_a_sentence_that_only_says_how_to_answer():
    parted = question_part._parted("Which voyages leave Santos next week? Vessel names and dates please.")
    assert parted is None or "dates please" in parted[1], parted


# ---------------------------------------------------------------- preferences
@pytest.mark.parametrize("turn", [
    "All weights in pounds from here on. Don't give me kilos at all, nobody here thinks in kilos.",
    "Give me kilos never again. Weights in pounds please.",
])
def test_a_unit_only_refused_beside_one_said_adds_a_refusal_and_chooses_nothing(turn):
    found = preferences.extract(turn, {})
    assert found and {p.unit for p in found} == {"lb"} and all("kg" in p.refused for p in found), found
    assert preferences.without_stated(turn, found).strip() == ""


def test_a_unit_only_refused_alone_still_reads_the_other_one():
    (pref,) = preferences.extract("No kilos please.", {})
    assert pref.dimension == "weight" and pref.unit != "kg" and "kg" in pref.refused


def test_german_answers_write_dates_in_german_and_leave_a_sentence_of_prose_whole():
    templated = answer_language.render("voyage 1043 (296W): arrival date 2025-06-15.", "de")
    assert templated == "Reise 1043 (296W): Ankunft 15. Juni 2025.", templated
    prose = "That is a question for the documents (port notices, carrier guides, procedures), nothing is promoted."
    assert answer_language.render(prose, "de") == prose
    quoted = answer_language.render("You told me on 2025-06-01: \u201cwe sail on 2025-06-04\u201d", "es")
    assert "1 de junio de 2025" in quoted and "\u201cwe sail on 2025-06-04\u201d" in quoted, quoted


def test_a_german_users_answer_about_a_voyage_has_a_german_date(service):
    number, port, arrival = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, p.PORT_NAME, v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p "
        f"ON p.PORT_ID = v.DESTINATION_PORT_ID ORDER BY v.VOYAGE_ID")[0]
    day = datetime.date.fromisoformat(str(arrival)[:10])
    month = "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split()[day.month - 1]
    out = _talk(service, [("t1", "From now on please answer me in German."),
                          ("t2", f"When is voyage {number} due in {port}?")])
    answer, mode = out[-1]
    assert mode == "rag" and f"{day.day}. {month} {day.year}" in answer and str(arrival)[:10] not in answer, answer


# ---------------------------------------------------------------- a word of size names no column
def test_a_word_of_size_names_no_column_in_a_schema_question(eng):
    assert assistant.schema_subjects(eng, "Shipping a big transformer, oversized, by crane from the side. Which unit?") == []
    assert assistant.schema_subjects(eng, "where is the deadweight kept?") == ["VESSELS.DEADWEIGHT_TONNES"]


# ---------------------------------------------------------------- what is in the boxes, and a few rows named
def _voyage_with_boxes(service) -> tuple[str, list[str], list[str]]:
    """(voyage number, its container numbers, its cargo descriptions) of a voyage with two to four boxes."""
    number = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v WHERE (SELECT COUNT(*) FROM {OWNER}.CONTAINERS c "
        f"WHERE c.VOYAGE_ID = v.VOYAGE_ID) BETWEEN 2 AND 4 AND (SELECT COUNT(*) FROM {OWNER}.VOYAGES o "
        f"WHERE o.VOYAGE_NUMBER = v.VOYAGE_NUMBER) = 1 ORDER BY v.VOYAGE_ID")[0][0]
    rows = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, ci.DESCRIPTION FROM {OWNER}.CARGO_ITEMS ci JOIN {OWNER}.CONTAINERS c ON "
        f"c.CONTAINER_ID = ci.CONTAINER_ID JOIN {OWNER}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
        f"WHERE v.VOYAGE_NUMBER = '{number}'")
    return number, sorted({r[0] for r in rows}), sorted({r[1] for r in rows})


@pytest.mark.parametrize("asked", ["Which boxes are on voyage {n} and what's in them?",
                                   "what's in the containers on voyage {n}?",
                                   "which containers are on voyage {n} and what do they carry?"])
def test_what_is_in_the_boxes_of_a_voyage_is_each_boxs_cargo_said_once(service, asked):
    number, boxes, goods = _voyage_with_boxes(service)
    answer, mode = _talk(service, [("t1", asked.format(n=number))])[0]
    assert mode == "rag" and all(b in answer for b in boxes) and all(g in answer for g in goods), answer
    assert all(answer.count(g) == sum(1 for line in answer.splitlines() if g in line) for g in goods)
    assert answer.count(f"containers of {number}") == 0, answer  # the boxes are not listed a second time


def test_a_count_of_a_few_rows_names_them_and_a_large_count_does_not(service):
    number, boxes, _ = _voyage_with_boxes(service)
    answer, mode = _talk(service, [("t1", f"how many containers are on voyage {number}?")])[0]
    assert mode == "rag" and f"There are {len(boxes)} containers" in answer and all(b in answer for b in boxes), answer
    (total,), = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES")
    answer, mode = _talk(service, [("t1", "how many voyages are there?")])[0]
    assert mode == "rag" and str(total) in answer and "They are" not in answer, answer


# ---------------------------------------------------------------- a correction that names the wrong value first
def _two_voyages_of_one_number(service) -> tuple[str, str, str, str]:
    """(voyage number, a vessel sailing it, another vessel sailing a voyage of that number, a third vessel)."""
    number, first, second = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, MIN(s.VESSEL_NAME), MAX(s.VESSEL_NAME) FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s "
        f"ON s.IMO_NUMBER = v.IMO_NUMBER GROUP BY v.VOYAGE_NUMBER HAVING COUNT(*) = 2 ORDER BY 1")[0]
    other = service.eng.query(f"SELECT VESSEL_NAME FROM {OWNER}.VESSELS WHERE VESSEL_NAME NOT IN ('{first}', "
                              f"'{second}') ORDER BY IMO_NUMBER")[0][0]
    return number, first, second, other


def test_a_correction_that_first_names_the_wrong_ship_keeps_the_right_one_for_they(service):
    number, right, _, wrong = _two_voyages_of_one_number(service)
    arrival, boxes = service.eng.query(
        f"SELECT v.ARRIVAL_DATE, (SELECT COUNT(*) FROM {OWNER}.CONTAINERS c WHERE c.VOYAGE_ID = v.VOYAGE_ID) FROM "
        f"{OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE s.VESSEL_NAME = '{right}' "
        f"AND v.VOYAGE_NUMBER = '{number}'")[0]
    out = _talk(service, [
        ("t1", f"Quintana Hermanos, my appliance client, have their box on the {wrong}."),
        ("t2", f"Wait, no - Quintana Hermanos are NOT on the {wrong}, I mixed them up. They're on the {right}, "
               f"the {number}."),
        ("t3", "When does the Quintana Hermanos ship get in?"),
        ("t3", "How many containers are on that voyage?"),
    ])
    (when, when_mode), (count, count_mode) = out[2], out[3]
    assert when_mode == "rag" and right in when and str(arrival)[:10] in when and wrong not in when, when
    # the voyage number is another ship's too: the count is of the voyage of the ship they named
    assert count_mode == "rag" and f"There are {boxes} containers" in count, count


def test_a_row_named_with_its_tables_noun_answers_a_column_of_the_rows_below_it(service):
    vessel = service.eng.query(
        f"SELECT s.VESSEL_NAME FROM {OWNER}.VESSELS s JOIN {OWNER}.VOYAGES v ON v.IMO_NUMBER = s.IMO_NUMBER "
        f"GROUP BY s.VESSEL_NAME HAVING COUNT(*) = 2 ORDER BY 1")[0][0]
    arrivals = [str(r[0])[:10] for r in service.eng.query(
        f"SELECT v.ARRIVAL_DATE FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"WHERE s.VESSEL_NAME = '{vessel}'")]
    for asked in (f"When does vessel {vessel} get in?", f"what is the arrival of vessel {vessel}?"):
        answer, mode = _talk(service, [("t1", asked)])[0]
        assert mode == "rag" and all(a in answer for a in arrivals), (asked, answer)
    # a carrier's name before a name the data does not hold is no row of that carrier
    carrier = service.eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS WHERE LENGTH(CARRIER_NAME) <= 4 "
                                "ORDER BY 1")[0][0]
    answer, mode = _talk(service, [("t1", f"What's the TEU capacity of the {carrier} Zephyrine?")])[0]
    assert mode == "fallback", answer


def test_a_unit_value_shown_for_goods_comes_with_its_total_for_their_quantity(service):
    box, description, cents, quantity = service.eng.query(
        f"SELECT c.CONTAINER_NUMBER, ci.DESCRIPTION, ci.UNIT_VALUE_CENTS, ci.QUANTITY FROM {OWNER}.CARGO_ITEMS ci "
        f"JOIN {OWNER}.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID WHERE ci.QUANTITY > 1 AND "
        f"(SELECT COUNT(*) FROM {OWNER}.CARGO_ITEMS o WHERE o.CONTAINER_ID = ci.CONTAINER_ID) = 1 ORDER BY ci.CARGO_ITEM_ID")[0]
    answer, mode = _talk(service, [("t1", f"what's the declared value of the goods in container {box}?")])[0]
    total = f"${cents * quantity / 100:,.2f}"
    assert mode == "rag" and total in answer, (total, answer)


# ---------------------------------------------------------------- a name of theirs that looks like a name of the data
def test_a_name_of_theirs_like_a_carriers_is_theirs_and_another_number_is_not_their_boxs(service):
    carrier = service.eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS WHERE CARRIER_NAME LIKE 'Pacific%'")[0][0]
    box, temp = service.eng.query(f"SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {OWNER}.CONTAINERS WHERE "
                                  "REEFER_TEMP_C IS NOT NULL ORDER BY CONTAINER_ID")[0]
    out = _talk(service, [
        ("t1", f"Pacifico Greens has a reefer of limes with you, {box}, and they keep phoning. fyi their customs "
               "entry no. is 5512-0093-1 in case it comes up"),
        ("t2", "ok, Pacifico again - remind me which box is theirs and what temp it's running at?"),
        ("t2", "which box is Pacifico's, and what temp is it running at?"),
        ("t2", "and the entry number I gave you for them?"),
    ])
    (first, mode1), (second, mode2), (entry, _) = out[1], out[2], out[3]
    temp_said = f"{float(temp):g}"  # (-18 as "-18", 13.5 as "13.5")
    for answer, mode in ((first, mode1), (second, mode2)):
        assert mode == "rag" and box in answer and temp_said in answer and carrier not in answer, answer
    assert "5512-0093-1" in entry and not entry.startswith(("Your container", "Your box")), entry


# ---------------------------------------------------------------- rows, not a column's description
def test_a_columns_value_of_goods_named_is_the_rows_value_not_the_columns_description(service):
    word, cents = service.eng.query(
        f"SELECT DESCRIPTION, UNIT_VALUE_CENTS FROM {OWNER}.CARGO_ITEMS WHERE DESCRIPTION LIKE 'Smartphones%' "
        "ORDER BY CARGO_ITEM_ID")[0]
    answer, mode = _talk(service, [("t1", "what's the unit value of the smartphones?")])[0]
    assert mode == "rag" and f"${cents / 100:,.2f}" in answer and "schema knowledge" not in answer, answer
    answer, mode = _talk(service, [("t1", "what does the unit value of the smartphones mean?")])[0]
    assert "UNIT_VALUE_CENTS" in answer, answer  # what it means stays the schema's
    answer, mode = _talk(service, [("t1", "What's 40HC in SIZE_TYPE?")])[0]
    assert "SIZE_TYPE" in answer or mode == "fallback", answer


def test_rows_ranked_by_a_figure_are_never_answered_with_the_columns_description(service):
    answer, mode = _talk(service, [("t1", "Which 3 manifest lines have the highest total declared value "
                                          "(packages x unit value)? Description and value in dollars.")])[0]
    assert mode == "fallback" or "$" in answer, answer
    assert "schema knowledge" not in answer, answer


def test_voyages_to_a_region_show_each_ones_port(service):
    rows = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, p.PORT_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p ON p.PORT_ID = "
        f"v.DESTINATION_PORT_ID WHERE v.STATUS = 'SCHEDULED' AND p.REGION = 'North Europe'")
    answer, mode = _talk(service, [("t1", "Any scheduled sailings heading to North Europe?")])[0]
    assert rows and mode == "rag" and all(n in answer and p in answer for n, p in rows), answer


def test_what_a_ship_has_on_board_is_on_the_voyage_she_is_making(service):
    vessel, number = service.eng.query(
        f"SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = "
        f"v.IMO_NUMBER WHERE v.STATUS = 'ACTIVE' AND (SELECT COUNT(*) FROM {OWNER}.VOYAGES o WHERE o.IMO_NUMBER = "
        f"v.IMO_NUMBER) > 1 AND (SELECT COUNT(*) FROM {OWNER}.CONTAINERS c WHERE c.VOYAGE_ID = v.VOYAGE_ID) > 0 "
        f"ORDER BY v.VOYAGE_ID")[0]
    (on_board,), = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON "
                                     f"v.VOYAGE_ID = c.VOYAGE_ID WHERE v.VOYAGE_NUMBER = '{number}' AND v.STATUS = 'ACTIVE'")
    (all_of_hers,), = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.CONTAINERS c JOIN {OWNER}.VOYAGES v ON "
                                        f"v.VOYAGE_ID = c.VOYAGE_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                                        f"WHERE s.VESSEL_NAME = '{vessel}'")
    answer, mode = _talk(service, [("t1", f"When is the {vessel} due in, and how many boxes does she have on board?")])[0]
    assert mode == "rag" and f"There are {on_board} containers" in answer, answer
    assert on_board == all_of_hers or f"There are {all_of_hers} " not in answer, answer
    assert answer.count("There are") == 1, answer  # the part that points back is not asked of every ship


# ---------------------------------------------------------------- ranges of whole dates, ends of a voyage asked
def _arrivals_between(service, lo: str, hi: str) -> list[str]:
    return [r[0] for r in service.eng.query(f"SELECT VOYAGE_NUMBER FROM {OWNER}.VOYAGES WHERE ARRIVAL_DATE BETWEEN "
                                            f"'{lo}' AND '{hi}'")]


@pytest.mark.parametrize("said", ["between 29 May 2025 and 2 June 2025", "between 2025-05-29 and 2025-06-02",
                                  "between May 29 and June 2", "in the last five days"])
def test_a_range_of_whole_dates_across_two_months_filters_the_rows(service, said):
    numbers = _arrivals_between(service, "2025-05-29", "2025-06-02")
    (total,), = service.eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES")
    answer, mode = _talk(service, [("t1", f"Which voyages arrived {said}?")])[0]
    assert 0 < len(numbers) < total and mode == "rag" and all(n in answer for n in numbers), answer
    assert f"{len(numbers)} voyages" in answer, answer


def test_the_ports_a_voyage_is_between_are_its_two_ends_and_nothing_else(service):
    number, vessel, origin, destination = service.eng.query(
        f"SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME, o.PORT_NAME, d.PORT_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.VESSELS s "
        f"ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {OWNER}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID JOIN {OWNER}.PORTS d ON "
        f"d.PORT_ID = v.DESTINATION_PORT_ID WHERE (SELECT COUNT(*) FROM {OWNER}.VOYAGES x WHERE x.VOYAGE_NUMBER = "
        f"v.VOYAGE_NUMBER) = 1 ORDER BY v.VOYAGE_ID")[0]
    answer, mode = _talk(service, [("t1", f"Which ship is on voyage {number} and between which ports?")])[0]
    assert mode == "rag" and vessel in answer and origin in answer and destination in answer, answer
    assert "25 ports" not in answer and len(answer.splitlines()) <= 3, answer


@pytest.mark.parametrize("asked", ["Which vessel leaves {p} next?", "which is the next ship to leave {p}?",
                                   "which voyage departs from {p} next?"])
def test_the_next_to_leave_a_port_is_the_first_departure_after_the_datas_date(service, asked):
    port, number, vessel = service.eng.query(
        f"SELECT p.PORT_NAME, v.VOYAGE_NUMBER, s.VESSEL_NAME FROM {OWNER}.VOYAGES v JOIN {OWNER}.PORTS p ON p.PORT_ID = "
        f"v.ORIGIN_PORT_ID JOIN {OWNER}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.DEPARTURE_DATE > "
        f"'{TODAY.isoformat()}' ORDER BY v.DEPARTURE_DATE, v.VOYAGE_ID")[0]
    answer, mode = _talk(service, [("t1", asked.format(p=port))])[0]
    assert mode == "rag" and number in answer and vessel in answer, answer


# ---------------------------------------------------------------- "their" of a name told in the same turn
def test_their_party_told_beside_a_question_and_asked_of_later_beside_a_statement(service):
    vessel = service.eng.query(f"SELECT VESSEL_NAME FROM {OWNER}.VESSELS ORDER BY IMO_NUMBER")[0][0]
    out = _talk(service, [
        ("t1", "Hi. I run ops for Wierzbowa Dom, a tile importer, from our Gdynia desk. Their haulier is Kaszub "
               "Transport and they only collect in the Tuesday 06:45 slot. Anyway: what does VGM stand for?"),
        ("t2", f"Wierzbowa Dom's next box is on the {vessel}. Who's their haulier again, and which slot do they "
               "insist on?"),
    ])
    answer, mode = out[-1]
    assert mode == "rag" and "Kaszub Transport" in answer and "06:45" in answer, answer


def test_a_request_that_sets_a_statement_apart_with_a_dash_keeps_the_statement(service):
    box, number, vessel, _ = _a_box_and_its_voyage(service)
    out = _talk(service, [
        ("t1", f"Check the {vessel} for me, the {number} - my cousin's cheese shop, Okoro Dairy, has a box on it, "
               f"{box}. Still on time?"),
        ("t2", "Remind me the box number for Okoro Dairy and which ship it's on."),
    ])
    answer, mode = out[-1]
    assert mode == "rag" and box in answer and vessel in answer, answer

"""Answers that depend on how a question is read: a unit written apart by a reading from another language,
two statuses said either way, where rows are recorded versus what is measured, a kind of record asked
where it is kept, a catalog description that names the problem, a plural the glossary has as its
singular, and in the documents a clause that only says which case and a day something starts from.

Expected values come from SQL over SUPPLYCHAIN, the catalog and the documents' own text.
"""
from __future__ import annotations

import datetime

import pytest

from tests.conftest import to_stored_precision
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data import catalog
from workshop_lib.data.catalog import ITEMS
from workshop_lib.data.supplychain_data import OWNER


def _rows(eng, sql):
    return eng.query(sql.format(o=OWNER))


@pytest.mark.parametrize(("sql", "question", "shown"), [
    # a unit a reading from another language writes apart ("km / h")
    ("SELECT s.VESSEL_NAME, p.SPEED_KNOTS FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS s ON s.IMO_NUMBER = p.IMO_NUMBER "
     "WHERE p.SPEED_KNOTS > 5 ORDER BY s.VESSEL_NAME", "Quelle est la vitesse actuelle du {r} en km/h ?",
     lambda v: f"{to_stored_precision(v * 1.852, v)} km/h"),
    # a unit asked of a row with no column said: the one column of that unit
    ("SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {o}.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL ORDER BY CONTAINER_ID",
     "What's {r} set to in Fahrenheit?", lambda v: f"{v * 9 / 5 + 32:.2f} °F"),
])
def test_a_figure_is_shown_in_the_unit_asked(eng, sql, question, shown):
    row, value = _rows(eng, sql)[0]
    a = answer_question(eng, question.format(r=row))
    assert a.mode == "rag" and shown(float(value)) in a.answer, a.answer


def test_two_statuses_said_either_way_filter_on_neither(eng):
    port = _rows(eng, "SELECT p.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                      "GROUP BY p.PORT_NAME HAVING COUNT(DISTINCT v.STATUS) > 1 ORDER BY COUNT(*) DESC, p.PORT_NAME")[0][0]
    vessels = {r[0] for r in _rows(eng, f"SELECT DISTINCT s.VESSEL_NAME FROM {{o}}.VOYAGES v JOIN {{o}}.VESSELS s ON "
                                        f"s.IMO_NUMBER = v.IMO_NUMBER JOIN {{o}}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                                        f"WHERE p.PORT_NAME = '{port}'")}
    a = answer_question(eng, f"list the vessels that have sailed or are scheduled to sail out of {port}")
    assert a.mode == "rag" and all(v in a.answer for v in vessels), a.answer


def test_where_the_rows_are_recorded_is_not_what_is_measured(eng):
    avg = _rows(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40RF'")[0][0]
    a = answer_question(eng, "what's the avg gross weight of a 40ft reefer on our manifests?")
    assert a.mode == "rag" and f"{float(avg):,.2f}" in a.answer and "containers" in a.answer, a.answer


def test_where_the_list_of_goods_is_kept_names_their_table(eng):
    a = answer_question(eng, "where's the list of goods packed in each box?")
    assert a.mode == "rag" and "CARGO_ITEMS" in a.answer.split("\n")[1], a.answer


def test_a_description_that_names_the_problem_wins_over_the_manifests(eng):
    ventilated = next(i for i in ITEMS if "condensation" in i.description.lower())
    a = answer_question(eng, "our green coffee keeps arriving wet from condensation, which container helps?")
    assert a.mode == "rag" and ventilated.item_id in a.answer, a.answer


def test_a_question_for_rows_is_no_request_for_an_item(eng):
    a = answer_question(eng, "Banana-temperature reefers (13.5 C) on boxes going to North Europe ports - which ones?")
    assert not (a.mode == "rag" and "SV-" in a.answer), a.answer


@pytest.mark.parametrize("question", ["Combien de conteneurs frigorifiques 40' high cube sont disponibles à {p} ?",
                                      "¿Cuántos contenedores refrigerados de 40' high cube hay disponibles en {p}?"])
def test_a_plural_the_glossary_has_as_its_singular_is_read(eng, question):
    port, units = next((p, n) for p, n in sorted(catalog.availability()["EQ-40RH"].items()) if n)
    name = _rows(eng, f"SELECT PORT_NAME FROM {{o}}.PORTS WHERE UNLOCODE = '{port}'")[0][0]
    a = answer_question(eng, question.format(p=name))
    assert a.mode == "rag" and "EQ-40RH" in a.answer and f"{units} units" in a.answer, a.answer


def test_a_price_asked_in_spanish_reads_the_size(eng):
    a = answer_question(eng, "¿Cuánto cuesta un contenedor reefer de 40 pies por día?")
    assert a.mode == "rag" and "40'" in a.answer and "[EQ-20RF]" not in a.answer, a.answer


def test_a_clause_that_says_which_case_weighs_less_than_what_is_asked(docs_eng):
    a = answer_question(docs_eng, "From July, where do ships have to go for night bunkering in Singapore?")
    assert a.mode == "rag" and "Western Petroleum B" in a.answer.split("\n")[0], a.answer


def test_a_day_something_starts_from_does_not_say_when_it_ends(docs_eng):
    a = answer_question(docs_eng, "When will the dredging at Singapore's Eastern Bunkering A anchorage be finished?")
    assert a.mode == "fallback", a.answer


def test_tomorrow_is_the_day_after_the_datas_own(eng):
    from workshop_lib.assistant import knowledge, planner
    day = planner.reference_date(knowledge(eng)[0])
    assert day is not None
    after = (day + datetime.timedelta(days=1)).isoformat()
    voyages = {r[0] for r in _rows(eng, f"SELECT VOYAGE_NUMBER FROM {{o}}.VOYAGES WHERE ARRIVAL_DATE = '{after}'")}
    a = answer_question(eng, "What's due to arrive tomorrow?")
    assert a.mode == "rag" and after in a.answer and all(v in a.answer for v in voyages), a.answer


def test_what_day_asks_the_date_and_transit_time_the_duration(eng):
    vessel, voyage, port, left = _rows(eng, "SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER, p.PORT_NAME, v.DEPARTURE_DATE FROM "
                                            "{o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p "
                                            "ON p.PORT_ID = v.ORIGIN_PORT_ID WHERE v.STATUS = 'ACTIVE' ORDER BY v.VOYAGE_ID")[0]
    a = answer_question(eng, f"{vessel} voy {voyage} - what day did she leave {port}?")
    assert a.mode == "rag" and str(left)[:10] in a.answer, a.answer
    avg = _rows(eng, "SELECT AVG(julianday(ARRIVAL_DATE) - julianday(DEPARTURE_DATE)) FROM {o}.VOYAGES "
                     "WHERE STATUS = 'COMPLETED'")[0][0] if eng.name == "embedded" else None
    b = answer_question(eng, "Average transit time in days for the voyages that are completed?")
    assert b.mode == "rag" and "duration" in b.answer and (avg is None or f"{avg:.2f}" in b.answer), b.answer


def test_an_item_named_with_its_price_unit_is_the_catalogs(eng):
    item = next(i for i in ITEMS if i.item_id == "SV-REEFMON")
    a = answer_question(eng, f"What's {item.name.lower()} {item.price_unit}?")
    assert a.mode == "rag" and item.item_id in a.answer and f"{item.price_usd:,.2f}" in a.answer, a.answer


def test_boxes_of_goods_are_also_counted_as_packages(eng):
    boxes = _rows(eng, "SELECT COUNT(DISTINCT CONTAINER_ID) FROM {o}.CARGO_ITEMS WHERE UPPER(DESCRIPTION) LIKE '%BANANA%'")[0][0]
    packages = _rows(eng, "SELECT SUM(QUANTITY) FROM {o}.CARGO_ITEMS WHERE UPPER(DESCRIPTION) LIKE '%BANANA%' "
                          "AND PACKAGE_TYPE = 'BX'")[0][0]
    a = answer_question(eng, "how many banana boxes in total across all manifests?")
    assert a.mode == "rag" and f"{boxes} containers" in a.answer and f"{int(packages):,}" in a.answer, a.answer
    b = answer_question(eng, "how many boxes are on voyage 484W?")
    assert "packages" not in b.answer, b.answer

"""Through the offline answer path: two groups compared, an ETA's end of the voyage, signs, "at least one", who
sails a voyage, a commodity, "units" of a kind of box, and what a figure leaves out.

"More reefers at sea or scheduled?" counts per status (the word for two box types is no choice); an ETA "in" a
port is the voyage arriving there, in Spanish too; French "battent pavillon de Singapour" is the flag; "so far"
asks nothing more; "at least one X" is any row; "who's sailing voyage N" is the ship and its line, "who's the
shipper" nobody the rows name; "+13.5" is a set point; "reefer units" are reefer boxes; ", not counting the tare"
is answered from the cargo lines, and declined for a box's gross weight, which includes the tare.

Every expected figure comes from SQL over SUPPLYCHAIN.
"""
from __future__ import annotations

import pytest

from tests.conftest import answers_engine
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data.supplychain_data import OWNER

GROUNDED = ("rag", "hybrid")


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = answers_engine("embedded", tmp_path_factory.mktemp("signs"))
    yield engine
    engine.close()


def _ask(eng, question: str) -> tuple[str, str]:
    answered = answer_question(eng, question)
    return answered.answer, answered.mode


def _rows(eng, sql: str, **binds) -> list[tuple]:
    return [tuple(r) for r in eng.query(sql.format(o=OWNER), binds)]


def test_more_reefers_at_sea_or_scheduled_counts_each_status(eng):
    counts = dict(_rows(eng, "SELECT v.STATUS, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                             "WHERE c.SIZE_TYPE IN ('20RF', '40RF') AND v.STATUS IN ('ACTIVE', 'SCHEDULED') "
                             "GROUP BY v.STATUS"))
    answer, mode = _ask(eng, "Do the scheduled voyages or the ones at sea carry more reefers?")
    assert mode in GROUNDED and f"ACTIVE: {counts['ACTIVE']}" in answer and f"SCHEDULED: {counts['SCHEDULED']}" in answer, answer


def _voyage_into(eng) -> tuple[str, str, str, str]:
    """(vessel, destination port, arrival date, origin port) of a ship with voyages both into and out of one port."""
    rows = _rows(eng, "SELECT ve.VESSEL_NAME, d.PORT_NAME, v.ARRIVAL_DATE, o.PORT_NAME FROM {o}.VOYAGES v "
                      "JOIN {o}.VESSELS ve ON ve.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                      "JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID WHERE EXISTS (SELECT 1 FROM {o}.VOYAGES w "
                      "WHERE w.IMO_NUMBER = v.IMO_NUMBER AND w.ORIGIN_PORT_ID = v.DESTINATION_PORT_ID) ORDER BY v.VOYAGE_ID")
    vessel, port, arrival, origin = rows[0]
    return str(vessel), str(port), str(arrival)[:10], str(origin)


def test_an_eta_in_a_port_is_the_voyage_arriving_there_also_in_spanish(eng):
    vessel, port, arrival, _ = _voyage_into(eng)
    leaving = [str(r[0])[:10] for r in _rows(eng, "SELECT v.ARRIVAL_DATE FROM {o}.VOYAGES v JOIN {o}.VESSELS ve "
                                                  "ON ve.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                                  "WHERE ve.VESSEL_NAME = :vessel AND o.PORT_NAME = :port", vessel=vessel, port=port)]
    for question in (f"what's the ETA of the {vessel} in {port}?", f"¿Cuál es la ETA del {vessel} en {port}?"):
        answer, mode = _ask(eng, question)
        assert mode in GROUNDED and arrival in answer and not any(d in answer for d in leaving if d != arrival), answer


def test_a_flag_flown_in_french_and_so_far(eng):
    (flown,) = _rows(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE FLAG_STATE = 'SG'")[0]
    answer, mode = _ask(eng, "Combien de porte-conteneurs battent pavillon de Singapour ?")
    assert mode in GROUNDED and str(flown) in answer, answer
    voyage, boxes = _rows(eng, "SELECT v.VOYAGE_ID, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                               "GROUP BY v.VOYAGE_ID ORDER BY COUNT(*) DESC, v.VOYAGE_ID")[0]
    answer, mode = _ask(eng, f"how many containers have been loaded on voyage {voyage} so far?")
    assert mode in GROUNDED and str(boxes) in answer, answer


def test_at_least_one_is_any_row_and_who_sails_a_voyage(eng):
    lines = sorted(str(r[0]) for r in _rows(eng, "SELECT DISTINCT c.CARRIER_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                                                 "ON c.CARRIER_ID = v.CARRIER_ID WHERE v.FLAG_STATE = 'LR'"))
    answer, mode = _ask(eng, "Which lines operate at least one Liberian-flagged vessel?")
    assert lines and mode in GROUNDED and all(line in answer for line in lines), answer
    voyage, vessel, line = _rows(eng, "SELECT v.VOYAGE_ID, ve.VESSEL_NAME, c.CARRIER_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS ve "
                                      "ON ve.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.CARRIERS c ON c.CARRIER_ID = ve.CARRIER_ID "
                                      "ORDER BY v.VOYAGE_ID")[0]
    answer, mode = _ask(eng, f"who's sailing voyage {voyage}?")
    assert mode in GROUNDED and str(vessel) in answer and str(line) in answer, answer
    box = _rows(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS ORDER BY CONTAINER_NUMBER")[0][0]
    answer, mode = _ask(eng, f"who's the shipper of the goods in {box}?")
    assert mode == "fallback", answer


def test_a_signed_set_point_and_reefer_units(eng):
    point, boxes = _rows(eng, "SELECT REEFER_TEMP_C, COUNT(*) FROM {o}.CONTAINERS WHERE REEFER_TEMP_C > 0 "
                              "GROUP BY REEFER_TEMP_C ORDER BY COUNT(*) DESC, REEFER_TEMP_C")[0]
    numbers = [str(r[0]) for r in _rows(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS WHERE REEFER_TEMP_C = :t", t=point)]
    answer, mode = _ask(eng, f"which boxes are running at +{float(point):g}?")
    assert mode in GROUNDED and all(n in answer for n in numbers), answer
    voyage, reefers = _rows(eng, "SELECT v.VOYAGE_NUMBER, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v "
                                 "ON v.VOYAGE_ID = c.VOYAGE_ID WHERE c.SIZE_TYPE IN ('20RF', '40RF') GROUP BY v.VOYAGE_NUMBER "
                                 "HAVING COUNT(DISTINCT v.VOYAGE_ID) = 1 ORDER BY COUNT(*) DESC, v.VOYAGE_NUMBER")[0]
    answer, mode = _ask(eng, f"how many reefer units are on voy {voyage}?")
    assert mode in GROUNDED and str(reefers) in answer, answer


def test_a_commodity_by_its_hs_code(eng):
    code, goods = _rows(eng, "SELECT HS_CODE, MIN(DESCRIPTION) FROM {o}.CARGO_ITEMS GROUP BY HS_CODE "
                             "HAVING COUNT(DISTINCT DESCRIPTION) = 1 ORDER BY HS_CODE")[0]
    answer, mode = _ask(eng, f"what commodity is declared under HS {code}?")
    assert mode in GROUNDED and str(goods) in answer, answer


def test_what_a_figure_leaves_out(eng):
    box, lines, gross = _rows(eng, "SELECT c.CONTAINER_NUMBER, SUM(ci.GROSS_WEIGHT_KG), c.GROSS_WEIGHT_KG FROM {o}.CONTAINERS c "
                                   "JOIN {o}.CARGO_ITEMS ci ON ci.CONTAINER_ID = c.CONTAINER_ID "
                                   "GROUP BY c.CONTAINER_NUMBER, c.GROSS_WEIGHT_KG ORDER BY c.CONTAINER_NUMBER")[0]
    answer, mode = _ask(eng, f"What does the cargo in {box} weigh altogether, not counting the tare?")
    assert mode in GROUNDED and f"{float(lines):,.0f}" in answer, answer
    answer, mode = _ask(eng, f"the gross weight of {box}, excluding the tare?")
    assert mode == "fallback" and f"{float(gross):,.0f}" not in answer, answer

"""Figures over the catalog's availability rows, through the chat's answer path: a total, the port with the
most or the fewest units, how many ports have an item, whether an item is at a port. Every expected figure is
worked out here from catalog.availability(), never typed; questions about boxes on a manifest stay the data's."""
from __future__ import annotations

import pytest

from tests.conftest import answers_engine
from workshop_lib.assistant.answering import availability
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data import catalog


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    e = answers_engine("embedded", tmp_path_factory.mktemp("availability"))
    yield e
    e.close()


def _units(item_id: str) -> dict[str, int]:
    return {p: u for p, u in catalog.availability()[item_id].items() if u is not None}


def _name(code: str) -> str:
    return catalog.ports()[code]["name"]


def test_a_total_over_every_port_and_over_the_ports_named(eng):
    rows = _units("EQ-20DV")
    a = answer_question(eng, "total number of 20' dry boxes available across all ports?")
    assert a.mode == "rag" and f"{sum(rows.values())} units" in a.answer
    two = sorted(rows, key=lambda p: rows[p])[-2:]
    a = answer_question(eng, f"how many 20' dry containers can I lease in {_name(two[0])} and {_name(two[1])} combined?")
    assert a.mode == "rag" and f"{rows[two[0]] + rows[two[1]]} units" in a.answer


@pytest.mark.parametrize("word, pick", [("most", max), ("fewest", min)])
def test_the_port_with_the_most_or_fewest_units(eng, word, pick):
    rows = _units("EQ-40DV")
    best = pick(rows.values())
    a = answer_question(eng, f"which port has the {word} 40' dry containers available?")
    assert a.mode == "rag" and f"{best} units" in a.answer
    assert all(_name(p) in a.answer for p, u in rows.items() if u == best)


def test_a_region_named_narrows_the_ports(eng):
    rows = _units("EQ-40DV")
    region = catalog.ports()[next(iter(rows))]["region"]
    inside = {p: u for p, u in rows.items() if catalog.ports()[p]["region"] == region}
    a = answer_question(eng, f"which port in {region} has the most 40' dry boxes available?")
    assert a.mode == "rag" and f"{max(inside.values())} units" in a.answer and region in a.answer


def test_how_many_ports_have_an_item_and_whether_a_service_is_offered_at_one(eng):
    ports = catalog.availability()["EQ-20FR"]
    a = answer_question(eng, "how many ports have 20' flat racks available?")
    assert a.mode == "rag" and f"at {len(ports)} ports" in a.answer
    service = next(i for i in catalog.ITEMS if i.category == "service")
    at = next(iter(catalog.availability()[service.item_id]))
    found = availability.offered_at(f"is {service.name.lower()} offered in {_name(at)}?")
    assert found is not None and found.text.count("yes at") == 1
    missing = next(c for c in catalog.ports() if c not in catalog.availability()[service.item_id])
    found = availability.offered_at(f"is {service.name.lower()} offered in {_name(missing)}?")
    assert found is not None and "no, not available at" in found.text


@pytest.mark.parametrize("question", [
    "How many reefer containers are on the manifest in total (20 and 40 foot)?",   # boxes of the data
    "total number of reefer boxes on the manifests (20 and 40 ft together)",
    "which port has the most voyages?",                                           # no catalog item named
    "how many 20' and 40' reefers are available in total?",                        # two sizes, one item each
])
def test_what_is_not_a_figure_over_the_catalogs_stock(question):
    assert availability.figure(question) is None


def test_a_country_narrows_the_ports_a_lease_over_days_is_a_quote_and_a_voyage_is_the_datas(eng):
    from workshop_lib.data import catalog
    rows = catalog.availability()["EQ-20DV"]
    chinese = sum(u for p, u in rows.items() if catalog.ports()[p]["country_code"] == "CN" and u is not None)
    assert f"{chinese} units" in answer_question(eng, "how many 20' dry boxes are available across the Chinese ports in total?").answer
    price = next(i.price_usd for i in catalog.ITEMS if i.item_id == "EQ-40DV")
    text = answer_question(eng, "3 forty-foot dry boxes for 10 days, what's the lease total?").answer
    assert f"USD {3 * 10 * price:,.2f}" in text, text
    number, = eng.query("SELECT v.VOYAGE_NUMBER FROM SUPPLYCHAIN.VOYAGES v WHERE NOT EXISTS (SELECT 1 FROM "
                        "SUPPLYCHAIN.CONTAINERS c WHERE c.VOYAGE_ID = v.VOYAGE_ID AND c.SIZE_TYPE LIKE '%RF') "
                        "AND (SELECT COUNT(*) FROM SUPPLYCHAIN.VOYAGES w WHERE w.VOYAGE_NUMBER = v.VOYAGE_NUMBER) = 1 "
                        "ORDER BY v.VOYAGE_ID")[0]
    a = answer_question(eng, f"are there any reefers on {number} at all?")
    assert "Availability" not in a.answer and "units" not in a.answer, a.answer  # never the depots' stock

"""Figures the catalog's descriptions state, applied to the figure a question gives: a load against the
stated capacities, a value priced as a share. Expected figures come from the catalog's own rows."""
from __future__ import annotations

import re

import pytest

from tests.conftest import answers_engine
from workshop_lib.assistant import catalog_figures
from workshop_lib.data.catalog import ITEMS
from workshop_lib.parts.chat.answer import answer_question


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    e = answers_engine("embedded", tmp_path_factory.mktemp("figures"))
    yield e
    e.close()


def _stated(pattern: str) -> list[tuple[float, str]]:
    return sorted((float(m.group(1)), i.item_id) for i in ITEMS if (m := re.search(pattern, i.description)))


def test_capacities_and_loads_are_read_not_typed():
    volumes = _stated(r"(\d+(?:\.\d+)?)\s*m3\b")
    assert [(c.amount, c.item.item_id) for c in catalog_figures.capacities("m3")] == volumes and len(volumes) >= 2
    assert catalog_figures.load_in("roughly 31.5 cubic metres of furniture") == (31.5, "m3")
    assert catalog_figures.load_in("19,500 kg of coils") == (19.5, "t")
    assert catalog_figures.load_in("we have 2 pallets") is None
    assert catalog_figures.value_in("goods worth USD 12,500") == 12500
    assert catalog_figures.value_in("a $45k consignment") == 45000
    assert catalog_figures.value_in("no money here") is None


def test_a_load_is_answered_by_the_items_that_hold_it_smallest_first(eng):
    volumes = _stated(r"(\d+(?:\.\d+)?)\s*m3\b")
    (small, small_id), (big, big_id) = volumes[0], volumes[1]
    need = round((small + big) / 2, 1)
    a = answer_question(eng, f"we have about {need} cbm of cartons, which box is big enough?")
    assert a.mode == "rag" and a.answer.find(small_id) in (-1, *range(a.answer.index(big_id) + 1, len(a.answer)))
    assert re.search(rf"\[{re.escape(big_id)}\]: up to {big:g} m3: holds it", a.answer)
    # a comparison over rows is the data's, never a load to carry
    a = answer_question(eng, "is there any container heavier than 28 tonnes gross?")
    assert "catalog" not in a.answer.lower() and "holds it" not in a.answer


def test_a_price_stated_as_a_share_is_worked_out_with_its_minimum(eng):
    (item,) = [i for i in ITEMS if re.search(r"%\s+of\s+the", i.description)]
    percent = float(re.search(r"(\d+(?:\.\d+)?)\s*%", item.description).group(1))
    big = round(item.price_usd * 100 / percent * 3)      # three times the minimum
    a = answer_question(eng, f"what premium would we pay on cargo insurance for goods worth ${big:,}?")
    assert a.mode == "rag" and f"{big * percent / 100:,.2f}" in a.answer and item.item_id in a.answer
    small = round(item.price_usd * 100 / percent / 2)   # half the minimum's worth
    a = answer_question(eng, f"insurance for a shipment valued at {small} USD: how much?")
    assert f"You would pay USD {item.price_usd:,.2f}" in a.answer


def test_items_named_one_per_part_are_each_shown_and_the_lower_price_said(eng):
    by_id = {i.item_id: i for i in ITEMS}
    a = answer_question(eng, "20' reefer vs 40' HC reefer, daily rates?")
    assert a.mode == "rag" and {r["item_id"] for r in a.used_chunks} == {"EQ-20RF", "EQ-40RH"}
    assert f"{by_id['EQ-20RF'].price_usd:.2f}" in a.answer and f"{by_id['EQ-40RH'].price_usd:.2f}" in a.answer
    a = answer_question(eng, "what's cheaper per day, a 40' dry or a 40' high cube?")
    low = min((by_id["EQ-40DV"], by_id["EQ-40HC"]), key=lambda i: i.price_usd)
    assert a.mode == "rag" and f"The lower price is the {low.name}" in a.answer
    # one part naming a type in two sizes is not a list of items: Part 5's handler reads it
    a = answer_question(eng, "price of 20' and 40' reefers")
    assert "lower price" not in a.answer

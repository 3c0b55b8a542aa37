"""Figures the catalog's descriptions state, applied to the figure a question gives: a load against the
stated capacities, a value priced as a share. Expected figures come from the catalog's own rows."""
from __future__ import annotations

import re

import pytest

from tests.conftest import answers_engine
from workshop_lib.assistant import catalog_figures
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data.catalog import ITEMS


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


def test_a_load_is_answered_by_the_items_that_hold_it_cheapest_first(eng):
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


def test_a_stated_figure_is_put_in_the_unit_asked(eng):
    # every item whose description states a range in Celsius: its Fahrenheit figures, worked out here
    ranged = [i for i in ITEMS if re.search(r"[-+]?\d+\s*C\b", i.description)]
    assert ranged
    for item in ranged:
        celsius = [float(c) for c in re.findall(r"([-+]?\d+)\s*C\b", item.description)]
        text = answer_question(eng, f"the {item.name}'s temperature range in fahrenheit?").answer
        for c in celsius:
            assert f"{c * 9 / 5 + 32:g} F" in text, (item.item_id, text)
    assert catalog_figures.in_unit_asked("what's the range in celsius?", ranged[0]) is None


def test_an_item_named_by_its_type_code_and_size(eng):
    # the code is the item id's last two letters ("EQ-40HC"); the expected units come from the rows
    from workshop_lib.data.catalog import availability, ports
    for item in (i for i in ITEMS if re.fullmatch(r"EQ-\d{2}[A-Z]{2}", i.item_id)):
        stocked = availability().get(item.item_id, {})
        at = next((p for p, u in stocked.items() if u), None)
        if at is None:
            continue
        size, code = item.item_id[3:5], item.item_id[5:]
        text = answer_question(eng, f"how many {size}' {code}s can I get in {ports()[at]['name']}?").answer
        if item.item_id in text:  # a code two items share (HC) names the first; 45HC is asked by name
            assert str(stocked[at]) in text, (item.item_id, text)
    text = answer_question(eng, "any 40HC boxes available?").answer
    assert "EQ-40HC" in text


def test_one_size_given_names_the_item_a_cost_is_worked_for(eng):
    sized = [i for i in ITEMS if re.match(r"\d{2}'", i.name) and "per day" in i.price_unit]
    for item in sized:
        text = answer_question(eng, f"If I keep a {item.name} for 12 days, what will the lease come to?").answer
        assert item.item_id in text and f"USD {item.price_usd * 12:,.2f}" in text, (item.item_id, text)


def test_stock_at_a_port_named_by_its_initials_reaches_the_rows(eng):
    from workshop_lib.data.catalog import availability, ports
    from workshop_lib.parts import grounded
    two_words = {c: p["name"] for c, p in ports().items() if len(p["name"].split()) == 2 and p["name"].replace(" ", "").isalpha()}
    code, name = next((c, n) for c, n in sorted(two_words.items())
                      if sum(1 for o in two_words.values() if o.split()[0][0] + o.split()[1][0] ==
                             n.split()[0][0] + n.split()[1][0]) == 1)
    initials = name.split()[0][0] + name.split()[1][0]
    assert grounded.find_ports(f"anything in {initials}?") == [code]
    item = next(i for i in ITEMS if availability().get(i.item_id, {}).get(code))
    kind = grounded.type_phrase(item)[1].split()[-1]
    if len(grounded.named_items(f"{kind}s")) == 1:
        text = answer_question(eng, f"{kind}s in {initials} - how many?").answer
        assert str(availability()[item.item_id][code]) in text, text


def test_a_load_handed_over_when_no_data_query_answers(eng):
    smallest = catalog_figures.capacities("m3")[0]
    text = answer_question(eng, f"I have about {smallest.amount + 1:g} cubic metres of cartons - which container has "
                                "room for that?").answer
    assert "holds it" in text and smallest.item.item_id in text and "too small" in text, text


def test_what_would_you_use_is_a_request_for_an_item(eng):
    from workshop_lib.assistant import catalog_links
    assert catalog_links.asks_for_item("what would you use for glass sheets?")
    assert catalog_links.asks_for_item("which one should we use here?")


def test_an_item_asked_for_in_so_many_words_is_the_one_whose_description_clearly_leads(eng):
    # the truth is the catalog's own rows: the one item whose description names the need
    vented, = [i.item_id for i in ITEMS if "condensation" in i.description.lower()]
    tank, = [i.item_id for i in ITEMS if "food-grade" in i.description.lower()]
    a = answer_question(eng, "our green coffee keeps getting condensation damage in transit, which equipment helps?")
    assert a.mode == "rag" and vented in a.answer, a.answer
    a = answer_question(eng, "I've got 20,000 litres of food-grade olive oil in bulk, what should I ship it in?")
    assert a.mode == "rag" and tank in a.answer, a.answer


def test_an_item_asked_for_by_the_short_name_its_id_ends_with(eng):
    pti = next(i for i in ITEMS if i.item_id == "SV-PTI")
    a = answer_question(eng, "PTI on a reefer - how much?")
    assert a.mode == "rag" and pti.item_id in a.answer and f"{pti.price_usd:.2f}" in a.answer, a.answer


def test_a_load_of_goods_that_need_a_kind_of_box_gets_that_kind_first(eng):
    # the one item whose description names the goods (frozen fish), not the dry boxes that hold 20 t
    reefer, = [i.item_id for i in ITEMS if "fish" in i.description.lower()]
    a = answer_question(eng, "I've got about 20 t of frozen fish to ship, which box should I lease?")
    first = re.search(r"\[([A-Z]{2}-[A-Z0-9]+)\]", a.answer)
    assert a.mode == "rag" and first is not None and first.group(1) == reefer, a.answer


def test_a_load_of_goods_only_other_items_are_described_for_is_not_answered_by_capacity_alone(eng):
    # the dry boxes hold 18 t by the tonnes their descriptions state, but only other equipment's
    # descriptions speak of frozen goods: the capacity list would answer another question
    frozen = [i for i in ITEMS if i.category == "equipment" and "frozen" in i.description.lower()]
    assert frozen, "the catalog describes some equipment for frozen goods"
    a = answer_question(eng, "I need a box for 18 t of frozen chicken, what should I book?")
    assert "by the capacity each description states" not in a.answer
    assert a.mode == "fallback" or any(i.item_id in a.answer for i in frozen), a.answer
    b = answer_question(eng, "about 60 m3 of light cartons, what box?")
    assert b.mode == "rag" and "EQ-40HC" in b.answer, b.answer


def test_one_item_named_that_is_too_small_for_the_load_is_said_so(eng):
    payload = next(c.amount for c in catalog_figures.capacities("t") if c.item.item_id == "EQ-20DV")
    a = answer_question(eng, f"would {payload + 3:g} tonnes of granite setts fit in one 20' dry box?")
    assert a.mode == "rag" and "EQ-20DV" in a.answer and "too small" in a.answer, a.answer
    b = answer_question(eng, "I need a 20-footer for 15 t of frozen prawns, which one?")
    assert "by the capacity each description states" not in b.answer, b.answer


def test_a_need_described_without_a_request_verb_finds_the_item_when_the_knowledge_falls_back(eng):
    # the words of the open top's description: goods lowered in by crane that do not fit through doors
    a = answer_question(eng, "marble slabs that will not go through the doors - what box?")
    assert a.mode == "rag" and "EQ-20OT" in a.answer.split("\n")[1], a.answer
    # a compound in the question names its parts ("crane-lifted": a crane)
    b = answer_question(eng, "a transformer that's way out of gauge, crane-lifted from the side")
    assert b.mode == "rag" and "EQ-40FR" in b.answer, b.answer


def test_a_price_asked_in_cents_is_the_dollar_price_times_a_hundred():
    item = next(i for i in catalog_figures.ITEMS if i.price_usd % 1)
    said = catalog_figures.in_unit_asked(f"{item.name} - what's the rate in cents?", item)
    assert said is not None and f"{round(item.price_usd * 100):,} cents" in said, said


def test_how_much_more_one_item_costs_than_another_is_their_difference(eng):
    a_item, b_item = (next(i for i in ITEMS if i.item_id == x) for x in ("EQ-40HC", "EQ-40DV"))
    a = answer_question(eng, "by how much is the 40' high cube dearer per day than the 40' dry box?")
    assert f"USD {abs(a_item.price_usd - b_item.price_usd):,.2f} more" in a.answer, a.answer


def test_a_weight_is_answered_by_the_cheapest_box_that_holds_it(eng):
    tonnes = sorted(catalog_figures.capacities("t"), key=lambda c: c.item.price_usd)
    need = min(c.amount for c in tonnes) - 1
    a = answer_question(eng, f"roughly {need:g} t of cement in bags, which container should I take?")
    first = re.search(r"\[([A-Z]{2}-[A-Z0-9]+)\]", a.answer)
    assert first is not None and first.group(1) == tonnes[0].item.item_id, a.answer

"""Totals worked out from figures the user told and the catalog's prices (parts/memory/totals.py),
through the chat service. Expected figures are computed here from the test's own words and the catalog."""
from __future__ import annotations

import pytest

from workshop_lib.data.catalog import ITEMS
from workshop_lib.parts.memory import totals


def _price(item_id: str) -> float:
    return next(i.price_usd for i in ITEMS if i.item_id == item_id)


def _conversation(service, user: str, turns: list[str]) -> tuple[str, str]:
    """Each turn in a thread of its own; the last turn's (answer, mode)."""
    for text in turns:
        body, mode = service.answer({"question": text, "thread_id": None, "user_id": user, "agent": False})
    return body["answer"], mode


def test_a_count_a_month_times_the_price_they_gave(service):
    text, mode = _conversation(service, "tot-a", [
        "We send roughly 9 containers a month from Ningbo to Felixstowe.",
        "Our NVOCC quoted the lane all-in at EUR 1,250 per box.",
        "At that rate, what does the Felixstowe lane cost us per month?"])
    assert mode == "rag" and f"EUR {9 * 1250:,.2f} a month" in text and "1,250" in text, text
    text, mode = _conversation(service, "tot-a", ["And what is our spend on that lane over a whole year?"])
    assert mode == "rag" and f"{9 * 1250 * 12:,.2f}" in text, text


def test_a_lease_at_the_catalog_price_for_the_boxes_and_days_told(service):
    text, mode = _conversation(service, "tot-b", [
        "For the Gdansk fair we need three 20' dry boxes for around 12 days.",
        "What would leasing them from you for the Gdansk fair come to?"])
    assert mode == "rag" and f"USD {3 * 12 * _price('EQ-20DV'):,.2f}" in text and "EQ-20DV" in text, text


def test_the_questions_own_figures_and_the_item_named_a_turn_before(service):
    text, mode = _conversation(service, "tot-c", [
        "Do you have 20' reefer containers in Durban?",
        "If we lease 6 of those for 4 days, what's the bill?"])
    assert mode == "rag" and f"USD {6 * 4 * _price('EQ-20RF'):,.2f}" in text, text


@pytest.mark.parametrize("user, turns", [
    # a price said in words is no count of moves
    ("tot-d", ["Our trucker charges us four hundred and twenty bucks a move.",
               "At his rate, what would trucking cost us in total?"]),
    # a rate per box added to a sum worked out before is not a total of its own
    ("tot-e", ["Six of our boxes will sit at the Savannah warehouse for 5 days at USD 80 per container per day.",
               "and if I add one drayage move per box from your catalog, what's the grand total?"]),
    # a service asked of at the catalog's rate is not the lease of the boxes told
    ("tot-f", ["We have five 40' dry boxes on the Callisto for 10 days.",
               "what would cargo insurance cost on those at your catalog rate?"]),
    # two questions in one: one total would answer half
    ("tot-g", ["We move 7 boxes a month with our forwarder at USD 900 per box.",
               "What's our monthly spend, and how does it compare with last year?"]),
])
def test_a_total_is_not_worked_out_from_figures_read_wrongly(service, user, turns):
    text, mode = _conversation(service, user, turns)
    assert not (mode == "rag" and text.startswith(("USD", "EUR"))), text


def test_a_price_they_gave_is_no_answer_to_what_it_comes_to(service):
    text, mode = _conversation(service, "tot-h", [
        "Our contract rate with Evergreen is USD 1,900 per FEU now.",
        "Based on the Evergreen rate I gave you, what's our monthly ocean spend with them?"])
    assert mode == "fallback" and "can't work that total out" in text, text


def test_counts_are_not_read_from_sizes_prices_or_rates():
    assert totals._counts("four 40' high cubes for about 15 days") == [(4.0, False)]
    assert totals._counts("40 ft boxes, USD 1,400 per container") == []
    assert totals._counts("twelve boxes a month") == [(12.0, True)]
    assert totals._counts("one move per box") == []
    assert totals._counts("four hundred and twenty bucks a move") == []


def test_a_price_said_in_words_of_its_currency_is_read_in_its_code():
    assert totals._prices("they charge EUR 80 per box") == [(80.0, "EUR", False)]
    assert totals._prices("it's 45 dollars a day per container") == [(45.0, "USD", True)]
    assert totals._prices("USD 1,400 per container") == [(1400.0, "USD", False)]

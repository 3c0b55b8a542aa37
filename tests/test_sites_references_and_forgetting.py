"""Memory in conversation, through the chat service: a site of theirs that moves and closes, the first value
before the changes, a reference named by the words before it, a party asked of a sentence that names none,
a forget that takes an abbreviated title's name with it, and a question in another language about a
reference told in it.

Each conversation has a user of its own; boxes are chosen by SQL, the user's own names are the test's.
"""
from __future__ import annotations

import itertools

import pytest

from tests.conftest import conversation
from workshop_lib.data import catalog
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.memory import personal

_users = itertools.count()


def _talk(service, turns: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """The user id and the (answer, mode) of each (thread, text) turn, for a user of their own."""
    user = f"site-{next(_users)}"
    return user, conversation(service, user, turns)


def _port(service) -> str:
    return service.eng.query(f"SELECT PORT_NAME FROM {OWNER}.PORTS ORDER BY PORT_ID")[0][0]


def test_a_site_that_moves_twice_is_the_last_and_the_first_is_kept(service):
    port = _port(service)
    _, out = _talk(service, [
        ("t1", f"For the record, our bookings are handled by our {port} office."),
        ("t2", "Update: from this week bookings go through our Lyon office instead."),
        ("t3", "Another change - Lyon is closing, so from tomorrow it's our Turin office that handles bookings."),
        ("t4", "Which office handles our bookings now, and which one did we start with?"),
    ])
    answer, mode = out[-1]
    assert mode == "rag" and "Turin" in answer and port in answer and "Lyon" not in answer, answer
    assert answer.index("Turin") < answer.index(port), answer  # now first, then where it started


@pytest.mark.parametrize(("told", "asked", "ref"), [
    # named by the words before it, with no "my" or "our"
    ("We're shipping cocoa next month, booking ref QX-4471.", "What's my booking ref then?", "QX-4471"),
    # asked in the language it was told in, with a word the glossary does not read
    ("Hola, mi reserva es VLC-7712 y el plazo para el despacho aduanero es el 10 de junio.",
     "¿Cuál es mi referencia de reserva?", "VLC-7712"),
])
def test_a_reference_told_is_answered(service, told, asked, ref):
    _, out = _talk(service, [("t1", told), ("t2", asked)])
    assert out[-1][1] == "rag" and ref in out[-1][0], out[-1]


def test_a_party_asked_of_a_sentence_that_names_none_is_not_told(service):
    box = service.eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[0][0]
    _, out = _talk(service, [
        ("t1", f"Can you tell me what's in {box}?"),
        ("t1", "Thanks, I'm watching that one for a client."),
        ("t2", "Which client did I say that box belongs to?"),
    ])
    assert out[-1][1] == "fallback" and "watching" not in out[-1][0], out[-1]


def test_a_forget_takes_the_name_after_a_title_with_it(service):
    box = service.eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[1][0]
    user, out = _talk(service, [
        ("t1", f"two customers on my desk: Helios Solar has PV modules in {box}, and Baltic Amber Imports has a box "
               "on the same sailing — their contact is a Mr. Jankowski."),
        ("t2", "please forget everything about Baltic Amber, that deal is dead."),
        ("t3", "who was the contact person at Baltic Amber?"),
    ])
    kept = " ".join(r.content or "" for r in personal.valid_memories(service.eng, user, service.eng.agent_id))
    assert "Jankowski" not in kept and "Baltic" not in kept and "Helios Solar" in kept, kept
    assert "Jankowski" not in out[-1][0], out[-1]


def test_a_firm_after_an_abbreviation_is_one_sentence_with_it():
    said = personal.sentences("Moin! Unsere Nachläufe fährt immer die Fa. Lüders Transporte. Danke.")
    assert said == ["Moin!", "Unsere Nachläufe fährt immer die Fa. Lüders Transporte.", "Danke."]


def test_what_was_in_the_box_told_is_its_goods(service):
    box, = service.eng.query(f"SELECT c.CONTAINER_NUMBER FROM {OWNER}.CONTAINERS c JOIN {OWNER}.CARGO_ITEMS i "
                             f"ON i.CONTAINER_ID = c.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
                             f"ORDER BY c.CONTAINER_NUMBER")[0]
    goods = [r[0] for r in service.eng.query(
        f"SELECT i.DESCRIPTION FROM {OWNER}.CARGO_ITEMS i JOIN {OWNER}.CONTAINERS c ON c.CONTAINER_ID = i.CONTAINER_ID "
        f"WHERE c.CONTAINER_NUMBER = '{box}'")]
    _, out = _talk(service, [("t1", f"Our box on that sailing last month was {box}."), ("t1", "What was in that box?")])
    assert out[-1][1] == "rag" and all(g in out[-1][0] for g in goods), out[-1]


def test_a_customer_of_two_capitalised_words_leaves_the_data_question_whole(service):
    """"the total declared value of Lumina Mobile's box": both words of the customer's name leave the data
    question, whichever the set of names gives first (it once depended on the hash seed)."""
    box = service.eng.query(f"SELECT c.CONTAINER_NUMBER FROM {OWNER}.CONTAINERS c JOIN {OWNER}.CARGO_ITEMS i "
                            f"ON i.CONTAINER_ID = c.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
                            f"ORDER BY c.CONTAINER_NUMBER")[1][0]
    for customer in ("Lumina Mobile", "Mobile Lumina", "Harbor Crest"):
        _, out = _talk(service, [
            ("t1", f"My boss wants me to keep an eye on {box}, it belongs to our customer {customer}."),
            ("t2", f"What's the total declared value of {customer}'s box in US dollars?"),
        ])
        assert out[-1][1] == "rag" and box in out[-1][0] and "$" in out[-1][0], out[-1]


def test_what_is_kept_about_a_user_is_theirs_and_never_what_they_had_forgotten(service):
    box = service.eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[2][0]
    other, _ = _talk(service, [("t1", "Our haulier in Leeds is Pennine Haulage.")])
    user, out = _talk(service, [
        ("t1", f"Hi, Ola from Fjordfisk AS. Our box on that sailing was {box}."),
        ("t1", "Our customs broker is Nordkyst Toll."),
        ("t2", "Please forget our customs broker."),
        ("t3", "What do you have on file about me?"),
        ("t3", "which company am I with?"),
    ])
    listed, mode = out[-2]
    assert mode == "rag" and box in listed and "Fjordfisk AS" in listed, listed
    assert "Nordkyst" not in listed and "Pennine" not in listed, listed
    assert out[-1][1] == "rag" and "Fjordfisk AS" in out[-1][0], out[-1]
    # a question about one thing they said is not a request for the whole list
    _, told = _talk(service, [("t1", "Our haulier in Leeds is Pennine Haulage."),
                              ("t2", "what did I tell you our budget per container is?")])
    assert told[-1][1] == "fallback" and "Pennine" not in told[-1][0], told[-1]
    assert other != user


def test_a_user_with_nothing_kept_is_told_so(service):
    _, out = _talk(service, [("t1", "what do you remember about me?")])
    assert out[-1][1] == "fallback" and "haven't told me" in out[-1][0], out[-1]


def test_quotes_opened_with_an_adjective_are_read_and_compared_with_the_catalog(service):
    _, out = _talk(service, [
        ("t1", "First drayage quote came in: $410 a move from Peach State Trucking."),
        ("t2", "Second quote: Coastal Dray, $365 a move."),
        ("t3", "Newest quote just landed: Tybee Freight at $390 a move."),
        ("t4", "Which drayage quote did I get first, and which is the most recent?"),
        ("t4", "How does the cheapest of my quotes compare with your own drayage price?"),
    ])
    first, mode = out[-2]
    assert mode == "rag" and "Peach State" in first and "Tybee Freight" in first and "Newest's" not in first, first
    compared, mode = out[-1]
    drayage = next(i for i in catalog.ITEMS if i.name.lower() == "drayage")
    assert mode == "rag" and "Coastal Dray" in compared and f"{drayage.price_usd:,.2f}" in compared, compared


def test_a_count_they_told_is_given_as_told_and_as_corrected(service):
    vessel = service.eng.query(f"SELECT VESSEL_NAME FROM {OWNER}.VESSELS ORDER BY IMO_NUMBER")[0][0]
    _, out = _talk(service, [
        ("t1", f"we've got twelve containers going on the {vessel}, sorry, fourteen, not twelve, I misread the sheet"),
        ("t2", "how many containers did I say we've got on that sailing?"),
    ])
    assert out[-1][1] == "rag" and "fourteen containers" in out[-1][0] and "twelve" not in out[-1][0], out[-1]
    _, out = _talk(service, [("t1", "We've got forty-two pallets of brake pads leaving next week for Durban."),
                             ("t2", "how many pallets did I tell you we've got for Durban?")])
    assert "You told me two pallets" not in out[-1][0], out[-1]

"""Memory in a conversation through the chat service: names, places and sums the data does not
hold, corrections of any form (collateral 0), forgetting, isolation, composition with the data,
preferences and follow-ups. Wordings are not the evaluation sets'; expected data values from SQL."""
from __future__ import annotations

import datetime

import pytest

from tests.conftest import answers_engine
from workshop_lib.parts.chat.app import ChatService
from workshop_lib.parts.memory import own_values, personal, preferences


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    e = answers_engine("embedded", tmp_path_factory.mktemp("conversation-memory"))
    yield e
    e.close()


@pytest.fixture(scope="module")
def service(eng):
    return ChatService(eng)


def _ask(service: ChatService, user: str, text: str, threads: dict, thread: str = "t1") -> tuple[str, str, dict]:
    key = (user, thread)
    body, mode = service.answer({"question": text, "thread_id": threads.get(key), "user_id": user, "agent": False})
    threads.setdefault(key, body["thread_id"])
    return body["answer"], mode, body


def _box_and_its_voyage(eng, order: str) -> tuple:
    """(container number, vessel, destination port, arrival date) of the first or last container."""
    return eng.query(
        "SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME, p.PORT_NAME, v.ARRIVAL_DATE FROM SUPPLYCHAIN.CONTAINERS c "
        "JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN SUPPLYCHAIN.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
        f"JOIN SUPPLYCHAIN.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID ORDER BY c.CONTAINER_ID {order} LIMIT 1")[0]


def _valid(eng, user: str) -> list:
    return personal.valid_memories(eng, user, eng.agent_id)


def test_own_values_are_read_from_the_sentence_not_from_the_data():
    got = own_values.find("the buyer on this lot is Tidewater Provisions, based out of Oslo; we agreed USD 3,100 "
                          "per box", [], places=set())
    assert [(v.kind, v.value) for v in got] == [("NAME", "Tidewater Provisions"), ("PLACE", "Oslo"),
                                                ("MONEY", "USD 3,100 per box")]
    assert own_values.find("Please note VOYAGES.STATUS uses ACTIVE", [], places=set()) == []  # codes, not names
    assert own_values.asked_kind("how much did we settle on?") == "MONEY"
    assert own_values.asked_kind("where are we based?") == "PLACE"
    assert own_values.roles_of("remind me who the consignee was") == {"customer"}


def test_a_name_and_a_sum_recalled_by_what_is_asked(eng, service):
    threads: dict = {}
    _ask(service, "m-ada", "the buyer on our lot is Tidewater Provisions, they're based out of Oslo", threads)
    _ask(service, "m-ada", "we signed at USD 3,100 per box with them last week", threads)
    text, mode, body = _ask(service, "m-ada", "remind me who the consignee was?", threads, "t2")
    assert mode == "rag" and "Tidewater Provisions" in text and "3,100" not in text
    memory = body["decision_explain"]["memory"]
    assert memory["said_at"] and memory["memory_id"] in {r.id for r in _valid(eng, "m-ada")}
    assert [s["type"] for s in body["sources"]] == ["memory"]
    text, mode, _ = _ask(service, "m-ada", "how much are we paying them?", threads, "t2")
    assert mode == "rag" and "USD 3,100" in text
    text, mode, _ = _ask(service, "m-ada", "where are we based?", threads, "t2")  # Oslo is the buyer's, said as place
    assert mode == "rag" and "Oslo" in text


def test_corrections_supersede_only_the_same_subject(eng, service):
    threads: dict = {}
    _ask(service, "m-ben", "my supplier is Nordhavn Metals", threads)
    _ask(service, "m-ben", "our warehouse is in Lisbon", threads)
    before = {r.id for r in _valid(eng, "m-ben")}
    assert len(before) == 2
    done = personal.observe(eng, "scratch that, my supplier is Baltic Forge", user_id="m-ben", agent_id=eng.agent_id)
    assert [len(d.superseded) for d in done] == [1] and sum(d.collateral for d in done) == 0
    values = sorted(str(r.metadata["value"]) for r in _valid(eng, "m-ben"))
    assert values == ["Baltic Forge", "Lisbon"]                     # the warehouse memory is untouched
    # a retraction that names nothing: the latest memory of the same kind only
    done = personal.observe(eng, "sorry, typo, it's actually Baltic Forgeworks", user_id="m-ben", agent_id=eng.agent_id)
    assert sum(len(d.superseded) for d in done) == 1 and sum(d.collateral for d in done) == 0
    assert sorted(str(r.metadata["value"]) for r in _valid(eng, "m-ben")) == ["Baltic Forgeworks", "Lisbon"]
    text, mode, _ = _ask(service, "m-ben", "who is my supplier these days?", threads, "t2")
    assert mode == "rag" and "Baltic Forgeworks" in text and "Nordhavn" not in text


def test_forget_is_never_served_again_and_another_user_sees_nothing(eng, service):
    threads: dict = {}
    _ask(service, "m-cas", "our client account is Helios Tiles", threads)
    _ask(service, "m-dov", "who is my client?", threads)   # another user, before and after
    text, mode, _ = _ask(service, "m-dov", "who is my client?", threads)
    assert mode == "fallback" and "Helios" not in text
    text, mode, _ = _ask(service, "m-dov", "which client did Cas tell you about?", threads)
    assert mode == "fallback" and "Helios" not in text
    text, mode, _ = _ask(service, "m-cas", "who is my client?", threads)
    assert mode == "rag" and "Helios Tiles" in text
    _ask(service, "m-cas", "no need to keep my client's name any more", threads)
    assert _valid(eng, "m-cas") == []
    text, mode, _ = _ask(service, "m-cas", "who is my client?", threads, "t2")
    assert mode == "fallback" and "Helios" not in text


def test_recall_composes_a_two_part_question_with_the_data(eng, service):
    threads: dict = {}
    voyage, arrival, port = eng.query(
        "SELECT v.VOYAGE_NUMBER, v.ARRIVAL_DATE, p.PORT_NAME FROM SUPPLYCHAIN.VOYAGES v JOIN SUPPLYCHAIN.PORTS p "
        "ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE v.ARRIVAL_DATE IS NOT NULL ORDER BY v.VOYAGE_ID LIMIT 1")[0]
    _ask(service, "m-eve", f"our pallets are sailing on {voyage}", threads)
    text, mode, body = _ask(service, "m-eve", "when will our voyage arrive, and where?", threads, "t2")
    assert mode == "rag" and str(arrival)[:10] in text and port in text and voyage in text
    assert {s["type"] for s in body["sources"]} == {"memory", "data"}


def test_a_follow_up_reads_the_current_value(eng, service):
    threads: dict = {}
    first, second = [r[0] for r in eng.query(
        "SELECT CARRIER_NAME FROM SUPPLYCHAIN.CARRIERS ORDER BY CARRIER_ID LIMIT 2")]
    _ask(service, "m-fin", f"our main carrier is {first}", threads)
    _ask(service, "m-fin", f"we switched our main carrier to {second} this spring", threads, "t2")
    text, mode, _ = _ask(service, "m-fin", "who was our main carrier before that?", threads, "t3")
    assert mode == "rag" and first in text
    text, mode, _ = _ask(service, "m-fin", "and who is it today?", threads, "t3")
    assert mode == "rag" and second in text


def test_preferences_render_every_answer(eng, service):
    threads: dict = {}
    box, gross = eng.query("SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS "
                           "WHERE GROSS_WEIGHT_KG > 1000 ORDER BY CONTAINER_ID LIMIT 1")[0]
    _ask(service, "m-gil", f"my container is {box}", threads)
    _ask(service, "m-gil", "weights in tonnes from here on please, not in kg", threads)
    text, mode, _ = _ask(service, "m-gil", "how heavy is my container?", threads, "t2")
    tonnes = f"{gross / 1000:,.3f}".rstrip("0").rstrip(".")
    assert mode == "rag" and f"{tonnes} tonnes" in text and "kg" not in text
    assert preferences.settings(eng, "m-gil", eng.agent_id) == {"weight": "tonnes"}
    assert preferences.settings(eng, "m-ada", eng.agent_id) == {}    # another user's answers are not changed
    assert preferences.extract("we are short on reefers this week") == []   # no request about answers
    assert preferences.render("gross weight 26,772 kg (26.772 t)", {"weight": "tonnes"}) == \
        "gross weight 26.772 tonnes (26.772 t)"
    assert preferences.render("value USD 12.50 (1,250 cents)", {"money": "dollars"}) == "value USD 12.50"


def test_a_subjectless_statement_inside_a_question_is_kept(eng):
    port = eng.query("SELECT PORT_NAME FROM SUPPLYCHAIN.PORTS ORDER BY PORT_ID LIMIT 1")[0][0]
    (cand,) = personal.extract(eng, f"hey, calling from {port} today, which voyages leave from here?")
    assert cand.entities[0][2] == port and cand.subject == "OWN.PLACE" and cand.time == "today"


# ---------------------------------------------------------------- verify before answering
def test_a_name_of_theirs_is_no_answer_to_a_question_about_the_data(eng, service):
    threads: dict = {}
    _ask(service, "m-hal", "the account I look after is Nordvik Trading, they import timber", threads)
    for asked in ("how heavy is my client's shipment?", "what reefer setting does my client's box have?",
                  "when does my client's cargo land?"):
        text, mode, _ = _ask(service, "m-hal", asked, threads, "t2")
        assert mode not in ("rag", "hybrid") or "Nordvik" not in text, asked   # never the name as the answer
    text, mode, _ = _ask(service, "m-hal", "who's that account of mine again?", threads, "t2")
    assert mode == "rag" and "Nordvik Trading" in text                      # the question that asks for it


def test_a_remembered_box_is_no_answer_to_where_or_when_it_goes(eng, service):
    threads: dict = {}
    box, _, port, arrival = _box_and_its_voyage(eng, "")
    # the days from the data's date to the arrival, said as a count ahead or as how long ago it was
    days = (datetime.date.fromisoformat(str(arrival)[:10]) - datetime.date(2025, 6, 2)).days
    _ask(service, "m-ivo", f"our tiles went into {box} yesterday", threads)
    for asked, must in (("what's the final stop of the sailing our tiles are on?", port),
                        ("on what date does the box with our tiles reach port?", str(arrival)[:10]),
                        ("how many days until our tiles land?", f"{abs(days)} day")):
        text, mode, body = _ask(service, "m-ivo", asked, threads, "t2")
        # a data answer that shows what is asked, or an honest fallback: never "your container is X"
        assert mode == "fallback" or (must is not None and must in text), (asked, text)
        assert not text.startswith(("Your ", "From what you told me")), asked
    text, mode, body = _ask(service, "m-ivo", "pls send me the box number of our tiles, I'll paste it", threads, "t3")
    assert mode == "rag" and box in text and [s["type"] for s in body["sources"]] == ["memory"]
    text, mode, _ = _ask(service, "m-ivo", "which box did I give you first?", threads, "t3")
    assert mode == "fallback"              # one box was said: nothing earlier to compare it with
    text, mode, _ = _ask(service, "m-jon", "pls send me the box number of our tiles", {}, "t1")
    assert mode == "fallback" and box not in text                             # another user's memory


def test_a_change_to_a_name_that_half_matches_the_data_supersedes_the_old_one(eng, service):
    threads: dict = {}
    carriers = {r[0] for r in eng.query("SELECT CARRIER_NAME FROM SUPPLYCHAIN.CARRIERS")}
    assert any(c.startswith("Pacific") for c in carriers)   # the partial match this case is about
    _ask(service, "m-kim", "my key account is Harbour Lane Foods", threads)
    written = personal.observe(eng, "sad day, Harbour Lane Foods walked away; my key account these days is "
                                    "Pacific Meridian Traders.", user_id="m-kim", agent_id=eng.agent_id)
    assert [w.collateral for w in written] == [0] and len(written[0].superseded) == 1
    (current,) = _valid(eng, "m-kim")
    assert current.metadata["value"] == "Pacific Meridian Traders"
    assert not any(e[0] == "CARRIERS" for e in current.metadata["entities"])
    text, mode, _ = _ask(service, "m-kim", "who is my key account?", threads, "t2")
    assert mode == "rag" and "Pacific Meridian Traders" in text and "Harbour Lane" not in text


def test_a_currency_without_a_rate_is_said_not_faked(eng, service):
    threads: dict = {}
    _ask(service, "m-lou", "our books are in sterling, so show me money in GBP from now on", threads)
    assert preferences.settings(eng, "m-lou", eng.agent_id)["currency"] == "GBP"
    text, mode, _ = _ask(service, "m-lou", "what does drayage cost per move?", threads, "t2")
    assert mode == "rag" and "USD" in text and "no USD-to-GBP rate" in text
    _ask(service, "m-lou", "we report in US dollars again, use USD from now on", threads, "t2")
    text, _, _ = _ask(service, "m-lou", "what does drayage cost per move?", threads, "t2")
    assert "GBP" not in text
    assert preferences.render("USD 5.00", {"currency": "USD"}) == "USD 5.00"


def test_where_and_when_a_remembered_thing_goes_is_read_from_its_voyage(eng, service):
    threads: dict = {}
    box, origin, dest, departs = eng.query(
        "SELECT c.CONTAINER_NUMBER, o.PORT_NAME, p.PORT_NAME, v.DEPARTURE_DATE FROM SUPPLYCHAIN.CONTAINERS c "
        "JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN SUPPLYCHAIN.PORTS p ON p.PORT_ID = "
        "v.DESTINATION_PORT_ID JOIN SUPPLYCHAIN.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
        "WHERE v.DEPARTURE_DATE IS NOT NULL ORDER BY c.CONTAINER_ID DESC LIMIT 1")[0]
    _ask(service, "m-max", f"fyi our ceramics ship in {box}", threads)
    text, mode, body = _ask(service, "m-max", "where are our ceramics bound?", threads, "t2")
    assert mode == "rag" and dest in text and {s["type"] for s in body["sources"]} == {"memory", "data"}
    text, mode, _ = _ask(service, "m-max", "what day do our ceramics sail, and out of where?", threads, "t2")
    assert mode == "rag" and str(departs)[:10] in text and origin in text
    text, mode, _ = _ask(service, "m-max", "both of our boxes: which one lands sooner?", threads, "t3")
    assert mode == "fallback"              # one box is remembered: nothing to compare it with
    port = eng.query("SELECT p.PORT_NAME FROM SUPPLYCHAIN.VOYAGES v JOIN SUPPLYCHAIN.PORTS p ON p.PORT_ID = "
                     "v.ORIGIN_PORT_ID GROUP BY p.PORT_NAME ORDER BY COUNT(*) DESC LIMIT 1")[0][0]
    voyages = {r[0] for r in eng.query(
        "SELECT v.VOYAGE_NUMBER FROM SUPPLYCHAIN.VOYAGES v JOIN SUPPLYCHAIN.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
        "WHERE p.PORT_NAME = :p", {"p": port})}
    _ask(service, "m-max", f"our yard is at {port} these days", threads, "t4")
    text, mode, _ = _ask(service, "m-max", "does anything depart from our yard's port?", threads, "t4")
    assert mode == "rag" and voyages and all(v in text for v in voyages)


def test_when_a_change_happened_is_the_time_said_beside_the_new_value(eng, service):
    threads: dict = {}
    old, new = [r[0] for r in eng.query("SELECT CARRIER_NAME FROM SUPPLYCHAIN.CARRIERS WHERE CARRIER_NAME <> SCAC_CODE "
                                        "AND CARRIER_NAME NOT LIKE '%(%' ORDER BY CARRIER_ID DESC LIMIT 2")]
    _ask(service, "m-ned", f"up to February our lane ran with {old}, but from 3 March on we ship with {new}", threads)
    text, mode, body = _ask(service, "m-ned", "since when have we been switched over?", threads, "t2")
    assert mode == "rag" and "3 March" in text and new in text and "February" not in text.split("(")[0]
    assert [s["type"] for s in body["sources"]] == ["memory"]
    text, mode, _ = _ask(service, "m-ned", "who did we ship with before the switch?", threads, "t2")
    assert mode == "rag" and old in text
    text, mode, _ = _ask(service, "m-oli", "since when have we been switched over?", {}, "t1")
    assert mode != "rag" and new not in text                                  # another user's change


def test_a_remembered_value_must_be_what_the_question_asks(eng, service):
    threads: dict = {}
    port, other = (r[0] for r in eng.query("SELECT PORT_NAME FROM SUPPLYCHAIN.PORTS ORDER BY PORT_ID LIMIT 2"))
    _ask(service, "m-ivo", f"on my desk Mirela covers {port}", threads)
    _ask(service, "m-ivo", f"our customs broker in {port} is quayside clearance, decent people", threads)
    # another value of the remembered kind: the memory is about something else
    text, mode, _ = _ask(service, "m-ivo", f"who covers {other} on my desk?", threads, "t2")
    assert mode == "fallback" and other in text
    # "who" remembered as a place the question itself names: the user's words, which say who
    text, mode, body = _ask(service, "m-ivo", f"who did i say is our customs broker in {port}?", threads, "t2")
    assert mode == "rag" and "quayside clearance" in text and body["decision_explain"]["memory"]["memory_id"]
    # a thing of theirs never told, asked for by name: not the box or the place that was told
    box = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")[0][0]
    _ask(service, "m-ivo", f"we have {box} going out next week", threads, "t3")
    text, mode, _ = _ask(service, "m-ivo", "what's my delivery order number for that shipment?", threads, "t4")
    assert mode == "fallback" and box not in text


def test_a_standing_request_put_as_a_question_is_a_preference():
    (pref,) = preferences.extract("could you always show weights in kilos going forward?")
    assert (pref.dimension, pref.unit) == ("weight", "kg")
    assert preferences.extract("can you give me that weight in tonnes?") == []  # one answer, not from now on
    (pref,) = preferences.extract("cancel the kilos thing, tonnes please")
    assert (pref.dimension, pref.unit, pref.refused) == ("weight", "tonnes", ("kg",))


def test_dates_are_written_the_way_the_user_asked(eng, service):
    (pref,) = preferences.extract("please write every date like 3 March from now on")
    assert (pref.dimension, pref.unit) == ("dates", "words")
    (pref,) = preferences.extract("dates month first please, the team is in Chicago")
    assert pref.unit == "month_first"
    assert preferences.render("arrival date 2025-06-09", {"dates": "words"}) == "arrival date 9 June 2025"
    assert preferences.render("arrival date 2025-06-09", {"dates": "day_first"}) == "arrival date 09/06/2025"
    assert preferences.render("arrival date 2025-06-09", {"dates": "month_first"}) == "arrival date 06/09/2025"
    threads: dict = {}
    number, day = eng.query("SELECT VOYAGE_NUMBER, ARRIVAL_DATE FROM SUPPLYCHAIN.VOYAGES "
                            "WHERE ARRIVAL_DATE IS NOT NULL ORDER BY VOYAGE_ID LIMIT 1")[0]
    _ask(service, "m-pia", "from now on give me dates spelled out please", threads)
    text, mode, _ = _ask(service, "m-pia", f"when does voyage {number} arrive?", threads)
    year, month, d = (int(x) for x in str(day)[:10].split("-"))
    assert mode == "rag" and str(day)[:10] not in text and f"{d} " in text and str(year) in text


def test_a_value_said_as_what_it_no_longer_is_is_the_earlier_one(eng, service):
    (new,), (old,) = eng.query("SELECT CARRIER_NAME FROM SUPPLYCHAIN.CARRIERS ORDER BY CARRIER_ID LIMIT 2")
    threads: dict = {}
    _ask(service, "m-ola", f"we book nearly everything with {old}", threads)
    _ask(service, "m-ola", f"heads up: from april our deal is with {new}, {old} is no longer our line", threads, "t2")
    text, mode, _ = _ask(service, "m-ola", "which carrier do we use now?", threads, "t3")
    assert mode == "rag" and new in text and old not in text


def test_what_the_user_said_is_found_again_when_no_kept_memory_answers(eng, service):
    threads: dict = {}
    _ask(service, "m-rui", "our haulier there is bright lane logistics and they bill us four hundred a trip", threads)
    _ask(service, "m-rui", "the seal on our reefer is SL-88213, customs asked twice", threads)
    text, mode, body = _ask(service, "m-rui", "what did i say the haulier bills us per trip?", threads, "t2")
    assert mode == "rag" and "four hundred" in text and body["decision_explain"]["memory"]["said_at"]
    text, mode, _ = _ask(service, "m-rui", "remind me the seal number on the reefer?", threads, "t2")
    assert mode == "rag" and "SL-88213" in text
    # never said: no statement shares enough with it
    text, mode, _ = _ask(service, "m-rui", "what did i say our insurance excess is?", threads, "t2")
    assert mode == "fallback"
    # another user said it: their words are not this user's
    text, mode, _ = _ask(service, "m-eda", "what did i say the haulier bills us per trip?", {}, "t1")
    assert mode == "fallback" and "four hundred" not in text
    # asked not to keep it: never read again
    _ask(service, "m-rui", "please forget the seal on the reefer", threads, "t3")
    text, mode, _ = _ask(service, "m-rui", "remind me the seal number on the reefer?", threads, "t4")
    assert "SL-88213" not in text


def test_a_remembered_place_composes_with_the_catalogs_stock(eng, service):
    from workshop_lib.assistant.answering.answer import answer_question

    direct = answer_question(eng, "how many 40' high cube containers are available in Rotterdam?")
    assert direct.mode == "rag"
    figure = next(n for n in __import__("re").findall(r"Rotterdam \(NLRTM\): (\d+)", direct.answer))
    threads: dict = {}
    _ask(service, "m-uma", "fyi our office is in Rotterdam", threads)
    text, mode, body = _ask(service, "m-uma", "how many 40' high cubes can I get at my office's port?", threads, "t2")
    assert mode == "rag" and figure in text and body["decision_explain"]["memory"]["memory_id"]


def test_a_rate_the_user_gives_converts_dollar_amounts_and_a_newer_one_replaces_it(eng, service):
    from workshop_lib.data.catalog import ITEMS

    item = next(i for i in ITEMS if i.item_id == "SV-DRAYAGE")
    threads: dict = {}
    _ask(service, "m-ines", "for our books we count 0.80 euros to the dollar", threads)
    text, mode, _ = _ask(service, "m-ines", "what does drayage cost?", threads, "t2")
    assert mode == "rag" and f"EUR {item.price_usd * 0.80:,.2f}" in text and "0.8 EUR per USD" in text
    _ask(service, "m-ines", "heads up, finance moved us to 1 USD = 0.85 EUR", threads, "t3")
    text, _, _ = _ask(service, "m-ines", "what does drayage cost?", threads, "t4")
    assert f"EUR {item.price_usd * 0.85:,.2f}" in text and f"{item.price_usd * 0.80:,.2f}" not in text


def test_pounds_are_a_weight_or_a_currency_by_the_words_around_them():
    (w,) = preferences.extract("from now on please give weights in pounds, the US office asks")
    assert (w.dimension, w.unit) == ("weight", "lb")
    (c,) = preferences.extract("please show prices in pounds")
    assert (c.dimension, c.unit) == ("currency", "GBP")
    assert preferences.render("gross weight 10,000 kg", {"weight": "lb"}) == "gross weight 22,046 lb"


def test_a_thing_of_theirs_named_by_the_customer_it_is_for(eng, service):
    box, voyage = eng.query("SELECT c.CONTAINER_NUMBER, v.VOYAGE_NUMBER FROM SUPPLYCHAIN.CONTAINERS c JOIN "
                            "SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID ORDER BY c.CONTAINER_ID DESC LIMIT 1")[0]
    threads: dict = {}
    _ask(service, "m-kai", f"is {box} on time? Marlow Ceramics, our tile buyer, keep phoning about it", threads)
    text, mode, body = _ask(service, "m-kai", "the Marlow box - which voyage is it on?", threads, "t2")
    assert mode == "rag" and voyage in text and body["decision_explain"]["memory"]["memory_id"]
    # another user naming the same customer gets nothing of m-kai's
    text, mode, _ = _ask(service, "m-lou", "the Marlow box - which voyage is it on?", {}, "t1")
    assert box not in text and voyage not in text


def test_a_date_pattern_sets_order_and_separator_and_a_format_refused_in_passing_is_not_wanted():
    (pref,) = preferences.extract("write dates as DD.MM.YYYY for me, the american style confuses my team")
    assert (pref.dimension, pref.unit) == ("dates", "day_first.")
    (pref,) = preferences.extract("from now on dates like mm-dd-yyyy please")
    assert pref.unit == "month_first-"
    assert preferences.render("arrival date 2025-06-15", {"dates": "day_first."}) == "arrival date 15.06.2025"
    assert preferences.render("arrival date 2025-06-15", {"dates": "month_first-"}) == "arrival date 06-15-2025"


def test_lengths_in_feet_when_the_user_thinks_in_feet(eng, service):
    (pref,) = preferences.extract("I think in feet not metres.")
    assert (pref.dimension, pref.unit, pref.refused) == ("distance", "ft", ("m",))
    assert preferences.render("length 381.70 m, volume 67 m3", {"distance": "ft"}) == "length 1,252 ft, volume 67 m3"
    threads: dict = {}
    name, metres = eng.query("SELECT VESSEL_NAME, LENGTH_M FROM SUPPLYCHAIN.VESSELS ORDER BY IMO_NUMBER LIMIT 1")[0]
    _ask(service, "m-finn", "whenever you give me a ship's length, give it in feet please", threads)
    text, mode, _ = _ask(service, "m-finn", f"how long is the {name}?", threads)
    assert mode == "rag" and f"{round(float(metres) / 0.3048):,} ft" in text and " m" not in text.replace(name, "")


def test_a_follow_up_by_he_or_they_asks_the_same_memory_for_another_kind_of_value(eng, service):
    threads: dict = {}
    _ask(service, "m-ines", "the booking BK-77120 was placed by Tomas Ferreira from our Lisbon office last week.",
         threads)
    text, mode, _ = _ask(service, "m-ines", "who on our side placed booking BK-77120 again?", threads, "t2")
    assert mode == "rag" and "Tomas Ferreira" in text
    text, mode, _ = _ask(service, "m-ines", "and which of our offices is he in?", threads, "t2")
    assert mode == "rag" and "Lisbon" in text and "Tomas" not in text.split("(")[0]


def test_a_follow_up_that_asks_more_than_the_value_is_not_answered_with_it(eng, service):
    threads: dict = {}
    _ask(service, "m-odin", "Our haulier Nordlys Transport bills waiting time at 80 euros an hour.", threads)
    text, mode, _ = _ask(service, "m-odin", "what does our haulier charge for waiting?", threads, "t2")
    assert mode == "rag" and "80" in text
    text, mode, _ = _ask(service, "m-odin", "and if one of their trucks got stuck there for the whole strike window?",
                         threads, "t2")
    assert mode == "fallback"  # a sum over a strike window the memory does not give: not the hourly rate again


def test_a_preference_dropped_in_passing_returns_to_the_other_unit():
    from workshop_lib.parts.memory import preferences
    found = preferences.extract("hey, scrap the tonnes thing, boss left lol, kg is fine again")
    assert [(p.dimension, p.unit) for p in found] == [("weight", "kg")] and "tonnes" in found[0].refused
    assert [(p.dimension, p.unit) for p in preferences.extract("switch back to kg please")] == [("weight", "kg")]
    # a figure in a unit is no preference
    assert preferences.extract("the 20 tonnes of steel are fine") == []


def test_a_rate_said_with_a_few_words_between_the_currencies_is_read():
    # "1 USD is now 0.88 EUR": words saying when or how sit between the dollar and the figure
    for sentence, rate in (("Finance updated it: 1 USD is now 0.88 EUR, use that.", "EUR 0.88"),
                           ("one dollar currently gets you 0.9 euros", "EUR 0.9"),
                           ("each dollar is worth 0.8 pounds", "GBP 0.8")):
        got = [p for p in preferences.extract(sentence) if p.dimension == "usd_rate"]
        assert [p.unit for p in got] == [rate], (sentence, got)


def test_a_rate_said_in_french_sets_the_currency_and_a_later_one_replaces_it(eng, service):
    from workshop_lib.data.catalog import ITEMS
    pti = next(i for i in ITEMS if i.item_id == "SV-PTI")
    threads: dict = {}
    _ask(service, "m-bas", "Salut ! Donne-moi les prix en livres sterling, on compte 0,79 GBP pour 1 USD.", threads)
    _ask(service, "m-bas", "Changement : tout en francs suisses maintenant. Compte 0,83 CHF pour un dollar.", threads, "t2")
    text, mode, _ = _ask(service, "m-bas", "Combien coûte une inspection PTI pour un conteneur frigo ?", threads, "t3")
    assert mode == "rag" and f"CHF {pti.price_usd * 0.83:,.2f}" in text and "GBP" not in text, text


def test_a_unit_nobody_reads_is_the_one_refused():
    (pref,) = preferences.extract("our yard is in Texas, so vessel lengths in feet please, no one here reads metres.")
    assert (pref.unit, pref.refused) == ("ft", ("m",))


def test_a_thing_of_theirs_asked_without_saying_it_was_told_is_their_newest_words_on_it(eng, service):
    threads: dict = {}
    _ask(service, "m-ilse", "A cold store on Maydon Wharf was taken on by us last month, so reefer work in Durban goes "
                            "through there from now on. Are 20' reefers available in Durban?", threads)
    text, mode, body = _ask(service, "m-ilse", "Which wharf is our Durban cold store on?", threads, "t2")
    assert mode == "rag" and "Maydon" in text and body["decision_explain"]["memory"]["said_at"], text
    # another user asking the same gets nothing of hers
    text, mode, _ = _ask(service, "m-olaf", "Which wharf is our Durban cold store on?", {}, "t1")
    assert mode == "fallback" and "Maydon" not in text
    # a name the user called the wrong one is never the words quoted
    _ask(service, "m-ilse", "our new account is Harrow Tiles, they ship from Valencia.", threads, "t2")
    _ask(service, "m-ilse", "correction: the account is Harrow Ceramics, not Harrow Tiles.", threads, "t3")
    _ask(service, "m-ilse", "Harrow Tiles is a different firm altogether.", threads, "t3")
    text, mode, _ = _ask(service, "m-ilse", "what's the name of our new account shipping from Valencia?", threads, "t4")
    assert "different firm" not in text and (mode == "fallback" or "Ceramics" in text), text


def test_a_preference_said_in_french_spanish_or_german_and_a_rate_to_any_iso_code():
    said = {"Désormais, donnez-moi les longueurs en pieds, pas en mètres.": ("distance", "ft"),
            "De ahora en adelante quiero los pesos en libras, por favor, no en kilos.": ("weight", "lb"),
            "Ab jetzt bitte alle Gewichte in Tonnen, nicht in Kilogramm.": ("weight", "tonnes"),
            "From now on quote me prices in rand: 1 USD = 18.2 ZAR.": ("usd_rate", "ZAR 18.2")}
    for text, (dimension, unit) in said.items():
        assert [(p.dimension, p.unit) for p in preferences.extract(text)] == [(dimension, unit)], text
    # "livres sterling" is money, not a weight; a price mentioned in passing states nothing
    assert not [p for p in preferences.extract("Les prix en livres sterling, s'il vous plaît.") if p.dimension == "weight"]
    assert preferences.extract("We paid 300 EUR for the last move.") == []
    shown = preferences.render("Drayage: USD 100.00 per move", {"usd_rate": "ZAR 18.2"})
    assert "ZAR 1,820.00" in shown and "USD 100" not in shown


def test_a_question_in_another_language_about_a_remembered_thing_is_not_answered_by_its_value(eng, service):
    threads: dict = {}
    box = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID")[3][0]
    _ask(service, "m-jonas", f"Our container is {box}, please keep an eye on it.", threads)
    text, mode, _ = _ask(service, "m-jonas", "Auf welchem Schiff ist unser Container?", threads, "t2")
    assert not (mode == "rag" and text.startswith("Your container is")), text
    text, mode, _ = _ask(service, "m-jonas", "what's our container number again?", threads, "t2")
    assert mode == "rag" and box in text, text


def test_a_word_capitalised_only_because_it_starts_the_sentence_is_no_name():
    found = own_values.find("Back in March our Hamburg pickups were done by Elbe Kurier.", [], places={"hamburg"})
    assert [v.value for v in found if v.kind == own_values.NAME] == ["Elbe Kurier"], found
    # a name of theirs that starts a sentence is still a name, alone or with more words
    assert [v.value for v in own_values.find("Brennan do all our runs.", [], places=set())] == ["Brennan"]
    assert [v.value for v in own_values.find("Global Freight Ltd does our trucking.", [], places=set())] == \
        ["Global Freight Ltd"]


def test_a_role_asked_is_not_answered_by_a_sentence_naming_only_the_datas_ships_and_ports(eng, service):
    threads: dict = {}
    box = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID")[7][0]
    _ask(service, "m-fatou", f"I've got a 40' box on the Kota Singa going to Shenzhen, {box}. What's in it?", threads)
    text, mode, _ = _ask(service, "m-fatou", "Who did I say the shipper for my Shenzhen box is?", threads, "t2")
    assert mode == "fallback", text
    _ask(service, "m-fatou", "The shipper for our Shenzhen box is Lotus Ceramics, by the way.", threads, "t2")
    text, mode, _ = _ask(service, "m-fatou", "Who did I say the shipper for my Shenzhen box is?", threads, "t3")
    assert mode == "rag" and "Lotus Ceramics" in text, text


def test_a_thing_of_theirs_not_told_is_never_answered_with_every_row_of_the_ship_they_named(eng, service):
    threads: dict = {}
    _ask(service, "m-olu", "Olu here from Harbourline Foods, our goods are travelling on the Kota Ratna.", threads)
    text, mode, _ = _ask(service, "m-olu", "how heavy is my box on that vessel?", threads, "t2")
    assert mode == "fallback" and "which container" not in text.lower() or "box" in text, text
    assert mode == "fallback" and "Kota Ratna" in text, text


def test_the_ship_pointed_at_is_the_one_the_previous_turn_named(eng, service):
    threads: dict = {}
    speed = eng.query("SELECT p.SPEED_KNOTS FROM SUPPLYCHAIN.VESSEL_POSITIONS p JOIN SUPPLYCHAIN.VESSELS v "
                      "ON v.IMO_NUMBER = p.IMO_NUMBER WHERE v.VESSEL_NAME = 'Kota Singa'")[0][0]
    _ask(service, "m-ines", "Ines, Porto Trading. We've got reefers on the Kota Singa this month.", threads)
    text, mode, _ = _ask(service, "m-ines", "what speed is the ship doing now?", threads)
    assert mode == "rag" and "Kota Singa" in text and f"{speed:g}" in text, text


def test_a_name_asked_is_not_answered_by_a_sentence_that_names_only_a_place_or_a_term(eng, service):
    threads: dict = {}
    _ask(service, "m-ravi", "Ravi at Deccan Spice. Our VGM declarations are done by our agent in Chennai.", threads)
    text, mode, _ = _ask(service, "m-ravi", "what is my agent called?", threads, "t2")
    assert mode == "fallback" and "VGM" not in text.split(":")[0], text


def test_forgetting_a_sum_keeps_the_name_it_was_said_with(eng, service):
    threads: dict = {}
    _ask(service, "m-kaja", "Our customs broker in Gdansk is Baltic Clearance and they bill us EUR 95 per entry.",
         threads)
    _ask(service, "m-kaja", "Please delete the fee I mentioned for Baltic Clearance, it's private.", threads)
    text, mode, _ = _ask(service, "m-kaja", "how much did I say Baltic Clearance bills per entry?", threads, "t2")
    assert mode == "fallback" and "95" not in text, text
    text, mode, _ = _ask(service, "m-kaja", "who is our customs broker in Gdansk?", threads, "t3")
    assert mode == "rag" and "Baltic Clearance" in text and "95" not in text, text


def test_a_reference_the_user_called_wrong_is_never_read_back(eng, service):
    threads: dict = {}
    _ask(service, "m-anke", "Our order with Hapag for Tromso Fisk has booking number HL-55120, one reefer.", threads)
    _ask(service, "m-anke", "sorry, typo - the booking number is HL-55102, not 55120.", threads, "t2")
    text, mode, _ = _ask(service, "m-anke", "what's the Hapag booking number for Tromso Fisk?", threads, "t3")
    assert "55120" not in text, text


def test_a_request_to_be_reminded_is_no_statement_and_their_part_is_answered_beside_the_rest(eng, service):
    threads: dict = {}
    _ask(service, "m-dara", "Dara here. Our forwarder is Quayside Logistics, they handle our Irish imports.", threads)
    text, mode, _ = _ask(service, "m-dara", "Remind me who our forwarder is, and what is the SCAC code of Maersk?",
                         threads, "t2")
    scac = eng.query("SELECT SCAC_CODE FROM SUPPLYCHAIN.CARRIERS WHERE CARRIER_NAME = 'Maersk'")[0][0]
    assert mode == "rag" and "Quayside Logistics" in text and scac in text, text
    assert not any("Remind" in (r.metadata or {}).get("value", "") for r in _valid(eng, "m-dara"))


def test_a_yes_or_no_about_their_thing_is_not_answered_by_its_name(eng, service):
    threads: dict = {}
    _ask(service, "m-joao", "Our bonded warehouse is Armazem Norte, near Leixoes.", threads)
    text, mode, _ = _ask(service, "m-joao", "is our warehouse open on Sundays?", threads, "t2")
    assert mode == "fallback", text


def test_which_vessel_and_which_port_of_a_customers_box_are_both_answered(eng, service):
    threads: dict = {}
    box, vessel, port, _ = _box_and_its_voyage(eng, "DESC")
    _ask(service, "m-ines", f"Our client Kestrel Tiles has box {box} with you.", threads)
    text, mode, _ = _ask(service, "m-ines", "What ship is Kestrel Tiles' container on, and to which port?", threads, "t2")
    assert mode == "rag" and vessel in text and port in text, text


def test_boxes_told_one_after_another_are_picked_by_the_order_told(eng, service):
    (first,), (second,) = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS "
                                    "WHERE REEFER_TEMP_C IS NOT NULL ORDER BY CONTAINER_ID LIMIT 2")
    temp = eng.query(f"SELECT REEFER_TEMP_C FROM SUPPLYCHAIN.CONTAINERS WHERE CONTAINER_NUMBER = '{second}'")[0][0]
    threads: dict = {}
    answer, mode, _ = _ask(service, "ordinal-u", f"Two reefers to watch this week. The first is {first}.", threads)
    assert mode == "fallback" and first in answer, answer  # said back as noted, not a data answer
    _ask(service, "ordinal-u", f"The other one is {second}.", threads, "t2")
    answer, mode, _ = _ask(service, "ordinal-u", "What temperature is that second box set to?", threads, "t3")
    assert mode == "rag" and second in answer and f"{temp:g}" in answer and first not in answer, answer
    answer, mode, _ = _ask(service, "ordinal-u", "and the box I mentioned first, what size type is it?", threads, "t3")
    assert first in answer and second not in answer, answer
    # another user has no boxes of theirs to pick from
    answer, mode, _ = _ask(service, "ordinal-other", "What temperature is that second box set to?", threads)
    assert second not in answer, answer


def test_asked_to_be_reminded_their_words_are_found_by_meaning_but_only_of_what_is_asked(eng, service):
    threads: dict = {}
    _ask(service, "meaning-u", "argh, Falkner Haulage missed the pickup slot AGAIN, third time in two weeks", threads)
    _ask(service, "meaning-u", "how many 20' reefers are available in Durban?", threads, "t2")
    answer, mode, _ = _ask(service, "meaning-u", "remind me, which haulier was it that keeps missing pickups?",
                           threads, "t3")
    assert mode == "rag" and "Falkner Haulage" in answer, answer
    # nothing they said names a customs broker or a margin: no sentence of theirs is quoted for it
    _ask(service, "meaning-v", "hi, I run the Felixstowe and Antwerp desks for my team.", threads)
    for asked in ("who did I say our Antwerp customs broker is?", "remind me what margin I mentioned for Antwerp?"):
        answer, mode, _ = _ask(service, "meaning-v", asked, threads, "t2")
        assert mode == "fallback" and "Felixstowe" not in answer, answer
    # another user asking the same is told nothing of the first user's words
    answer, mode, _ = _ask(service, "meaning-w", "remind me, which haulier was it that keeps missing pickups?", threads)
    assert "Falkner" not in answer, answer


def test_forget_what_was_said_then_a_new_value_keeps_the_new_value(eng):
    user = "forget-then-told"
    personal.observe(eng, "Our export desk is at Valencia, all bookings go through there.", user_id=user,
                     agent_id=eng.agent_id)
    written = personal.observe(eng, "Forget what I said about Valencia: we moved the desk to Algeciras last week.",
                               user_id=user, agent_id=eng.agent_id)
    assert any(w.forgotten for w in written)
    kept = [r.content for r in _valid(eng, user)]
    assert kept and all("Valencia" not in k for k in kept) and any("Algeciras" in k for k in kept), kept
    # "don't save this: ..." is about what follows: nothing of it is kept
    personal.observe(eng, "off the record, don't save this: our margin on Algeciras is 9 percent.", user_id=user,
                     agent_id=eng.agent_id)
    assert all("margin" not in r.content for r in _valid(eng, user))


def test_a_weekday_is_a_time_and_a_misspelt_english_word_is_no_carrier(eng):
    found = own_values.find("our weekly cut-off is Fridays at noon", [], places=set())
    assert all(v.value != "Fridays" for v in found), found
    from workshop_lib import assistant
    _, values = assistant.knowledge(eng)
    links = values.links("we're shippin' frozen fish outta Valencia")
    assert all(lk.table != "CARRIERS" for lk in links), links


def test_a_part_asking_a_figure_the_recalled_answer_lacks_is_not_grounded(eng, service):
    threads: dict = {}
    _ask(service, "parts-u", "Our drayage guy in Savannah charges USD 410 a move.", threads)
    _ask(service, "parts-u", "Our customer Ossory Mills ships four boxes a month through Savannah.", threads)
    answer, mode, _ = _ask(service, "parts-u", "what does our drayage guy charge, and how many moves a month "
                                                "is that for Ossory Mills in total?", threads, "t2")
    assert mode == "fallback" or ("410" in answer and "1,640" in answer), answer
    from workshop_lib.assistant.answering import recall
    assert not recall._each_kind_shown("where's it going and when does it get there?", "It goes to Los Angeles.")
    assert recall._each_kind_shown("where's it going and when does it get there?", "Los Angeles, on 12 June 2025.")
    assert recall._each_kind_shown("when does it get there?", "It goes to Los Angeles.")  # one part: checked elsewhere


def test_a_part_pointing_back_at_the_recalled_line_is_asked_of_it_and_a_follow_up_still_reads(eng, service):
    carrier, alliance = eng.query("SELECT CARRIER_NAME, ALLIANCE FROM SUPPLYCHAIN.CARRIERS WHERE ALLIANCE IS NOT NULL "
                                  "ORDER BY CARRIER_ID LIMIT 1")[0]
    threads: dict = {}
    _ask(service, "chain-u", f"We book nearly everything with {carrier}, they are our preferred line.", threads)
    answer, mode, _ = _ask(service, "chain-u", "Which line did I say we mostly book with? And what alliance are they in?",
                           threads, "t2")
    assert mode == "rag" and carrier in answer and alliance in answer, answer
    # the next turn reads the thread's last answer, which recalled two parts: no crash, an answer
    answer, mode, _ = _ask(service, "chain-u", "and where are they headquartered?", threads, "t2")
    assert answer


def test_a_reference_that_starts_with_a_lines_code_is_theirs_not_the_line(eng, service):
    from workshop_lib import assistant
    _, values = assistant.knowledge(eng)
    scac = eng.query("SELECT SCAC_CODE FROM SUPPLYCHAIN.CARRIERS ORDER BY CARRIER_ID LIMIT 1")[0][0]
    assert not [lk for lk in values.links(f"booking {scac}-44120 was amended") if lk.column == "SCAC_CODE"]
    threads: dict = {}
    _ask(service, "ref-u", f"ugh, booking {scac}-44120 got amended again (long story), what's the SI cut-off?", threads)
    answer, mode, _ = _ask(service, "ref-u", "what was the booking ref I mentioned earlier?", threads, "t2")
    assert mode == "rag" and f"{scac}-44120" in answer, answer
    # the topic of a question is no statement: "For <ref>, which ...?" keeps nothing
    assert personal.extract(eng, "For GR-7710, which did we send first: the VGM or the SI?") == []


def test_a_question_about_theirs_in_another_language_is_recalled_in_english(eng, service):
    box, _, _, arrival = _box_and_its_voyage(eng, "DESC")
    threads: dict = {}
    _ask(service, "lang-u", f"Hola, mi cliente es Conservas Lira y su contenedor es el {box}.", threads)
    answer, mode, _ = _ask(service, "lang-u", "¿Cuándo llega el contenedor de mi cliente?", threads, "t2")
    assert mode == "rag" and str(arrival)[:10] in answer, answer
    _ask(service, "lang-v", "Unser Spediteur in Bremen ist Weser Cargo.", threads)
    answer, mode, _ = _ask(service, "lang-v", "Wer ist unser Spediteur in Bremen?", threads, "t2")
    assert mode == "rag" and "Weser Cargo" in answer, answer
    # another user asking the same in Spanish is told nothing of the first user's box
    answer, mode, _ = _ask(service, "lang-w", "¿Cuándo llega el contenedor de mi cliente?", threads)
    assert box not in answer, answer


def test_a_thing_recalled_as_that_one_is_called_by_its_tables_noun():
    # one name for "it"-like words in recall.py, another for the pronouns a later part points back with
    from workshop_lib.assistant.answering import recall
    rec = personal.Recalled("m1", "my box is X", "2026-01-01", "CONTAINERS", "CONTAINER_NUMBER", "X", "that one")
    assert recall._called(rec) == "container"


def test_the_two_things_told_or_they_are_all_of_that_kind(eng, service):
    threads: dict = {}
    first, second = (r[0] for r in eng.query(
        "SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 2"))
    total = eng.query("SELECT SUM(GROSS_WEIGHT_KG) FROM SUPPLYCHAIN.CONTAINERS WHERE CONTAINER_NUMBER IN "
                      f"('{first}', '{second}')")[0][0]
    _ask(service, "m-two", f"Our customer has a box coming in: {first}.", threads)
    _ask(service, "m-two", f"They have a second box as well, {second}.", threads, "t2")
    text, mode, _ = _ask(service, "m-two", "What's the combined gross weight of the two boxes?", threads, "t3")
    assert mode == "rag" and f"{total:,}" in text and first in text and second in text, text
    text, mode, _ = _ask(service, "m-two", "and which ships are they on?", threads, "t3")
    assert mode == "rag" and first in text and second in text, text
    # with no thread to point back to, "they" names no row: not every ship in the data
    text, mode, _ = _ask(service, "m-none", "which ships are they on?", threads)
    assert mode == "fallback", text


def test_a_preference_said_with_a_tag_question_is_kept(eng, service):
    threads: dict = {}
    _ask(service, "m-lb", "I think in pounds and feet, so give me weights in lb and lengths in ft from now on, ok?", threads)
    number, kg = eng.query("SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")[0]
    text, mode, _ = _ask(service, "m-lb", f"How heavy is box {number}, gross?", threads, "t2")
    assert mode == "rag" and f"{round(kg * 2.20462262):,} lb" in text and " kg" not in text, text


def test_days_between_two_things_told_even_when_one_names_a_port(eng, service):
    threads: dict = {}
    _ask(service, "m-days", "We opened our Piraeus office on 3 March 2025, finally!", threads)
    _ask(service, "m-days", "We signed the contract with our UK haulier on 14 April 2025.", threads, "t2")
    text, mode, _ = _ask(service, "m-days", "How many days were there between our Piraeus office opening and signing "
                                            "the haulier contract?", threads, "t3")
    assert mode == "rag" and text.startswith("42 days"), text


def test_a_statement_set_apart_by_a_dash_before_a_question_is_kept_and_which_of_my_people_is_not_a_box(eng, service):
    threads: dict = {}
    _ask(service, "m-dash", "ugh, Brennan Haulage rocked up late at the gate AGAIN \u2014 what's the ETA of voyage 1017?",
         threads)
    text, mode, _ = _ask(service, "m-dash", "remind me, which haulier was I moaning about the other day?", threads, "t2")
    assert mode == "rag" and "Brennan Haulage" in text, text
    number = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")[0][0]
    _ask(service, "m-which", f"one of my boxes is {number}, that's the Greenfield Market order.", threads)
    text, mode, _ = _ask(service, "m-which", "which of my two customers has the twenty-foot box?", threads, "t2")
    assert mode == "fallback", text


def test_an_aside_before_the_verb_keeps_the_statement_and_that_box_is_the_box_of_the_memory(eng, service):
    threads: dict = {}
    number, vessel, port = eng.query(
        "SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME, p.PORT_NAME FROM SUPPLYCHAIN.CONTAINERS c JOIN SUPPLYCHAIN.VOYAGES v "
        "ON v.VOYAGE_ID = c.VOYAGE_ID JOIN SUPPLYCHAIN.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN SUPPLYCHAIN.PORTS p "
        "ON p.PORT_ID = v.DESTINATION_PORT_ID ORDER BY c.CONTAINER_ID DESC LIMIT 1")[0]
    _ask(service, "m-aside", f"Ferretti Arredamenti, one of our Milan customers, has a full box of furniture on {vessel} "
                             f"\u2014 {number}.", threads)
    _ask(service, "m-aside", "what would insurance cost on the Ferretti furniture?", threads)
    text, mode, _ = _ask(service, "m-aside", "and at which port does that box get discharged?", threads)
    assert mode == "rag" and port in text and number in text, text


def test_a_role_asked_in_other_words_finds_the_statement_that_names_it(eng, service):
    threads: dict = {}
    _ask(service, "m-kin", "our haulier Brinkmann Transporte missed the Hamburg slot AGAIN yesterday, so annoying.", threads)
    text, mode, _ = _ask(service, "m-kin", "remind me, which trucking outfit was I moaning about?", threads, "t2")
    assert mode == "rag" and "Brinkmann" in text, text
    # a customer takes more than its noun: one statement about a customer is no answer to "which account ... lose"
    _ask(service, "m-acc", "for the record, our regular customer on the Busan lane is Kapok Trading.", threads)
    text, mode, _ = _ask(service, "m-acc", "which account did I say we might lose?", threads, "t2")
    assert "Kapok" not in text, text


def test_two_units_asked_in_one_sentence_with_their_factors_are_both_kept(eng, service):
    threads: dict = {}
    box, = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")[0]
    kg, = eng.query(f"SELECT GROSS_WEIGHT_KG FROM SUPPLYCHAIN.CONTAINERS WHERE CONTAINER_NUMBER = '{box}'")[0]
    text, _, _ = _ask(service, "m-unit", "From now on please show weights in pounds (1 kg = 2.20462 lb) and "
                                         "lengths in feet (1 m = 3.28084 ft).", threads)
    assert "lb" in text and "ft" in text, text
    text, mode, _ = _ask(service, "m-unit", f"gross weight of {box}?", threads)
    assert mode == "rag" and f"{round(float(kg) * preferences.KG_TO_LB):,} lb" in text, text


def test_a_name_switched_to_replaces_a_name_and_a_hyphenated_event_matches_its_verb(eng, service):
    threads: dict = {}
    _ask(service, "m-fwd", "Our customs broker in Antwerp is Scheldt Clearing.", threads)
    _ask(service, "m-fwd", "As of Monday we moved our Antwerp customs brokerage over to Kaai Brokers.", threads, "t2")
    text, mode, _ = _ask(service, "m-fwd", "who does our Antwerp customs brokerage now?", threads, "t3")
    assert mode == "rag" and "Kaai Brokers" in text and "Scheldt" not in text, text
    _ask(service, "m-gate", "The purchase order for the Lisbon tiles was signed on 3 May.", threads)
    _ask(service, "m-gate", "The box finally got loaded in at Lisbon on 12 May. Any reefer plugs there?", threads, "t2")
    text, mode, _ = _ask(service, "m-gate", "how many days from the signing to the load-in?", threads, "t3")
    assert mode == "rag" and "9 days" in text, text


def test_two_things_told_in_one_sentence_are_two_memories_and_forgetting_one_keeps_the_other(eng, service):
    threads: dict = {}
    text, _, _ = _ask(service, "m-two", "At Felixstowe our trucker is Anglia Haul and our broker is Orwell Customs.", threads)
    assert text.count("\u201c") == 2, text
    text, mode, _ = _ask(service, "m-two", "who is our broker at Felixstowe?", threads, "t2")
    assert mode == "rag" and "Orwell Customs" in text and "Anglia" not in text.split("(")[0], text
    _ask(service, "m-two", "Please forget our broker's name.", threads, "t3")
    text, mode, _ = _ask(service, "m-two", "who's our trucker at Felixstowe?", threads, "t4")
    assert mode == "rag" and "Anglia Haul" in text, text
    text, mode, _ = _ask(service, "m-two", "who's our broker at Felixstowe?", threads, "t4")
    assert mode == "fallback" and "Orwell" not in text, text


def test_that_after_a_thing_just_told_is_that_thing(eng, service):
    box, vessel = _box_and_its_voyage(eng, "DESC")[:2]
    threads: dict = {}
    _ask(service, "m-that", f"The spare parts are in container {box}.", threads)
    text, mode, _ = _ask(service, "m-that", "what ship is that on?", threads)
    assert mode == "rag" and vessel in text, text


def test_a_label_before_what_is_told_is_no_name_and_the_new_place_is_used(eng, service):
    assert [(v.kind, v.value) for v in own_values.find("News: we've moved our office to Lyon", [], places=set())] == \
        [("PLACE", "Lyon")]
    text, mode = _told_then_asked(service, "m-lbl", ["Our EU office is in Antwerp, we run all European imports through there.",
                                                     "Update: we've moved our EU office to Rotterdam as of this month."],
                                  "How many 40' high cubes are available to lease at our office's port?")
    assert mode == "rag" and "Rotterdam" in text and "Antwerp" not in text, text


def test_its_in_a_question_after_a_statement_is_the_box_stated(eng, service):
    number, status, departure = eng.query(
        "SELECT c.CONTAINER_NUMBER, v.STATUS, v.DEPARTURE_DATE FROM SUPPLYCHAIN.CONTAINERS c "
        "JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE v.STATUS = 'SCHEDULED' "
        "ORDER BY c.CONTAINER_ID LIMIT 1")[0]
    text, mode = _told_then_asked(service, "m-its", [], f"And Sahara Tiles' box is {number}. Has its voyage left yet?")
    assert mode == "rag" and status in text and str(departure)[:10] in text, text


def test_a_german_statement_keeps_names_not_nouns_and_a_role_is_recalled_in_other_words(eng, service):
    found = own_values.find("Kurze Frage: unser Spediteur für die Nachläufe ist übrigens Hansen Logistik aus Bremen, "
                            "die holen immer unsere Boxen ab.", [], places=set())
    assert [(v.kind, v.value) for v in found] == [("NAME", "Hansen Logistik"), ("PLACE", "Bremen")]
    text, mode = _told_then_asked(service, "m-haul", ["Unser Spediteur für die Nachläufe ist übrigens Hansen Logistik aus Bremen."],
                                  "What's the name of the trucking company we use again?")
    assert mode == "rag" and "Hansen Logistik" in text, text


def test_forgetting_a_detail_by_its_words_keeps_the_rest_without_its_value(eng, service):
    threads: dict = {}
    _ask(service, "m-gate", "Our warehouse in Bremen has a new gate code, 4471#, the night drivers need it.", threads)
    text, _, _ = _ask(service, "m-gate", "please forget the gate code I gave you, it mustn't be stored anywhere", threads)
    assert text.startswith("Done")
    assert all("4471" not in (r.content or "") for r in _valid(eng, "m-gate"))
    text, mode, _ = _ask(service, "m-gate", "which city is our warehouse in?", threads, "t2")
    assert mode == "rag" and "Bremen" in text and "4471" not in text, text


@pytest.mark.parametrize("user, told, asked, said, unsaid", [
    # a party told before that moved is found where it is now
    ("m-move", ["The consignee is Thornbury & Sons in Ipswich.",
                "Thornbury rang - they've relocated from Ipswich to Colchester as of this week."],
     "Where are Thornbury & Sons based?", "Colchester", "Ipswich"),
    # a place before a role says which one, and a name with a role's word in it is a name
    ("m-dray", ["Since January our Savannah drayage has been done by Tarrant Freight.",
                "heads up, that changed: from the first of May we switched to Coastal Empire Trucking."],
     "Whos doing our Savannah drayage these days?", "Coastal Empire Trucking", "Tarrant"),
    # "we're moving to" supersedes the first; the correction after it supersedes that one
    ("m-sw", ["We truck everything out of Felixstowe with Osprey Logistics at the moment.",
              "heads up, from next Monday we're moving to Tidewater Hauliers.",
              "scrap Tidewater, it fell through. We signed with Brackley Freight instead."],
     "so who's doing our Felixstowe trucking now?", "Brackley", "Osprey"),
    # a party asked by name: their newest words on it that give a day
    ("m-dead", ["our Busan importer Hanbit Foods told us on Tuesday they want delivery by the twentieth of June.",
                "update from Hanbit this morning: they pushed it back, new deadline is June twenty-eighth."],
     "what's Hanbit's current delivery deadline?", "twenty-eighth", "twentieth"),
    # "ignore what I said" then the new value: the new value is kept
    ("m-ign", ["Our customs broker is Alvarez & Hijos in Valencia, they handle all our entries.",
               "Ignore what I said about the broker, I mixed up two accounts. Our broker is Meridian Customs Ltd."],
     "Who's our customs broker again?", "Meridian", "Alvarez"),
    # the request to forget says the new value in the same sentence: a correction, not only a forgetting
    ("m-ign2", ["Our main carrier is CMA CGM, nearly all our bookings go to them.",
                "Disregard what I said about CMA CGM, from next month we are switching to Evergreen."],
     "what is the SCAC code of our main carrier?", "Evergreen", "CMA CGM"),
    # "don't keep that" right after a number points at the number, not at the memory told before
    ("m-that", ["Our warehouse is in Grays, next to the river.",
                "The yard code is 7731 - hmm, better not, don't store that."],
     "Which town is our warehouse in?", "Grays", "7731"),
    # a country after the city says where the city is: the city is the place kept
    ("m-ctry", ["Our office is in Osaka.", "Big news: we relocated, the office is in Busan, South Korea, since Monday."],
     "What is the next ship due at the port where our office is?", "Busan", "Osaka"),
    # a day told, changed, then changed again with "it": the newest for "now", the first for "first told"
    ("m-dl", ["Our buyer wants the export documents for the Santos load ready by 22 July.",
              "Update: the buyer moved the documents deadline up to 15 July.",
              "Changed again - they pushed it back, now it's 19 July."],
     "What's the documents deadline now?", "19 July", "15 July"),
    ("m-dl1", ["Our buyer wants the export documents for the Santos load ready by 22 July.",
               "Update: the buyer moved the documents deadline up to 15 July.",
               "Changed again - they pushed it back, now it's 19 July."],
     "What was the documents deadline when I first told you about it?", "22 July", "15 July"),
    # references told one after another are picked by the order told
    ("m-refs", ["Here is a booking reference for you: QX-4410, a 20DV to Valencia.",
                "Another one: QX-4452, a 40HC to Santos."],
     "Which booking reference did I give you most recently?", "QX-4452", "QX-4410"),
    # a day told about a thing the data does not hold ("our Bilbao bid") is read from the sentence kept
    ("m-bid", ["Heads up: the closing date for our Bilbao bid is 9 August."],
     "When is the closing date for our Bilbao bid?", "9 August", "You haven't"),
    # a complaint about a firm whose name carries the noun asked, said in passing without "our"
    ("m-moan", ["ugh. Norland Trucking no-showed at Tilbury again this morning, that's twice now. Anyway, thanks."],
     "remind me which trucking company I was complaining about?", "Norland Trucking", "You haven't"),
    # taken back with a new value in the next sentence: a correction, the new one kept
    ("m-tb", ["Our CMA CGM booking number for the Felixstowe load is CMX-550120.",
              "Disregard what I said about the booking number, wrong file. The correct one is CMX-550188."],
     "What's our CMA CGM booking number?", "CMX-550188", "CMX-550120"),
])
def test_the_current_value_is_recalled_after_changes_in_any_words(eng, service, user, told, asked, said, unsaid):
    text, mode = _told_then_asked(service, user, told, asked)
    assert mode == "rag" and said in text and unsaid not in text, text


@pytest.mark.parametrize("user, told, asked, unsaid", [
    # a role never told is not answered by a sentence about another role
    ("m-role", ["Our consignee for that beef is Al Noor Foods in Jebel Ali."],
     "And which haulier did I say we use in Jebel Ali?", "Al Noor"),
    # a name the question gives is not its answer
    ("m-named", ["We're sending machinery parts for Ridgewell Mining to Durban on a flat rack."],
     "Which trucking company did I say handles the Durban leg for Ridgewell?", "From what you told me"),
    # a place moved out of is no current place, and the sentence that said it is not quoted
    ("m-out", ["Greenleaf Home, one of mine, takes deliveries at Unit 4, Kestrel Park, Northampton.",
               "Greenleaf just emailed: they've moved out of Kestrel Park."],
     "Where should the haulier drop Greenleaf Home's next delivery?", "Kestrel"),
    # asked when, their words without a day do not answer
    ("m-ext", ["our contract with Bellwood Garden Co. runs until the end of September.",
               "good news!! Bellwood extended the contract by three months yesterday."],
     "When does the Bellwood contract end now?", "yesterday"),
    # asked for a number never given, words about the same party hold none
    ("m-code", ["We ship ceramic tiles to Pinewood Interiors in Durban every month."],
     "What container number did I give you for the Pinewood Interiors order?", "You told me on"),
    # a role told for one port, asked in German for another port: not that one
    ("m-de3", ["Unsere Spedition für Hamburg ist Elbtrans Logistik."],
     "Welche Spedition haben wir in Bremerhaven?", "Elbtrans"),
    # "the first day" after a comma is no order of telling or of arrival
    ("m-first", ["Our voyage is 484W, the goods are for Pinewood Interiors."],
     "if it lands on schedule, whats the first day Pinewood can actually receive?", "Los Angeles"),
    # whether a sailing makes a deadline asks the data about the day, not for the day told
    ("m-make", ["Our buyer in Santos needs the tyres there by 20 July or the order is off."],
     "Would the next sailing from Valencia to Santos make that deadline?", "You told me on"),
    # taken back with nothing in its place: the reference goes, whatever else it told stays
    ("m-tb2", ["The booking number for our reefer on the Ever Acme is EV-30417.",
               "Disregard what I said about the booking number - that belongs to a different shipper."],
     "What booking number do we have for the Ever Acme reefer?", "30417"),
    # two boxes asked of, but only the ports they left from were told
    ("m-two", ["We have two boxes moving: one on the Kota Singa out of Ningbo, one more out of Shanghai."],
     "Which of my two boxes left port first?", "container"),
])
def test_what_their_words_do_not_say_is_not_answered_from_them(eng, service, user, told, asked, unsaid):
    text, mode = _told_then_asked(service, user, told, asked)
    assert mode == "fallback" and unsaid not in text, text


def test_the_customer_told_in_passing_is_still_recalled(eng, service):
    text, mode = _told_then_asked(service, "m-cust", ["We're sending machinery parts for Ridgewell Mining to Durban."],
                                  "who's the customer for the machinery parts again?")
    assert mode == "rag" and "Ridgewell Mining" in text, text


def _told_then_asked(service: ChatService, user: str, told: list[str], asked: str) -> tuple[str, str]:
    """Each statement in a thread of its own, then the question in the next one: (answer, mode)."""
    threads: dict = {}
    for i, text in enumerate(told, start=1):
        _ask(service, user, text, threads, f"t{i}")
    answer, mode, _ = _ask(service, user, asked, threads, f"t{len(told) + 1}")
    return answer, mode


def test_a_request_to_be_reminded_in_another_language_is_no_statement(eng, service):
    threads: dict = {}
    _ask(service, "m-fr", "Notre transitaire habituel, c'est Lumière Fret, à Marseille.", threads)
    text, mode, _ = _ask(service, "m-fr", "Rappelez-moi le nom de notre transitaire habituel, s'il vous plaît.",
                         threads, "t2")
    assert not text.startswith("Noted"), text
    assert not any("Rappelez" in (r.content or "") for r in _valid(eng, "m-fr"))



def test_a_value_told_in_german_is_recalled_when_asked_again_in_german(eng, service):
    text, mode = _told_then_asked(service, "m-de", ["Unsere Buchungsnummer bei Hapag ist HLB-5512093."],
                                  "Wie war nochmal unsere Buchungsnummer?")
    assert mode == "rag" and "HLB-5512093" in text, text
    text, mode = _told_then_asked(service, "m-de2", ["Unser Spediteur ist seit Jahren Nordlicht Transporte aus Kiel."],
                                  "Wie hieß nochmal unser Spediteur? Ich muss ihm die neue Buchung schicken.")
    assert mode == "rag" and "Nordlicht Transporte" in text, text


def test_two_boxes_told_in_one_sentence_are_compared_by_the_data(eng, service):
    (first, _), (second, _) = eng.query("SELECT c.CONTAINER_NUMBER, v.ARRIVAL_DATE FROM SUPPLYCHAIN.CONTAINERS c "
                                        "JOIN SUPPLYCHAIN.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                                        "WHERE v.ARRIVAL_DATE IS NOT NULL ORDER BY v.ARRIVAL_DATE, c.CONTAINER_ID LIMIT 2")
    text, mode = _told_then_asked(service, "m-2box", [f"We have two boxes with you: {second} for our Leeds client and "
                                                      f"{first} for the Bristol one."],
                                  "Of my two boxes, which one reaches (or reached) its destination first?")
    assert mode == "rag" and first in text.split("\n")[1], text


def test_forgetting_a_detail_never_kept_keeps_what_was_kept_and_reads_nothing_back(eng, service):
    threads: dict = {}
    _ask(service, "m-ph", "Our freight forwarder is Carrow Logistics; their desk number is +31 10 555 0192.", threads)
    text, mode, _ = _ask(service, "m-ph", "Forget that phone number for Carrow, I'd rather it isn't stored.", threads)
    assert mode == "fallback" and "0192" not in text and "nothing was forgotten" in text, text
    assert any("Carrow" in r.content for r in _valid(eng, "m-ph"))
    text, mode, _ = _ask(service, "m-ph", "who is our freight forwarder?", threads, "t2")
    assert mode == "rag" and "Carrow Logistics" in text and "0192" not in text, text


def test_a_question_no_reading_covers_is_not_answered_with_a_query_of_its_few_english_words(eng, service):
    threads: dict = {}
    _ask(service, "m-fr2", "For the record, our coffee is booked on voyage 935W.", threads)
    text, mode, _ = _ask(service, "m-fr2", "Le client parle français : y a-t-il un changement de tarifs au port "
                                           "d'arrivée de notre voyage ?", threads, "t2")
    assert mode == "fallback" and "Tanger" not in text, text


def test_a_box_number_corrected_keeps_the_customer_it_was_for(eng, service):
    (first,), (second,) = eng.query("SELECT CONTAINER_NUMBER FROM SUPPLYCHAIN.CONTAINERS ORDER BY CONTAINER_ID LIMIT 2")
    text, mode = _told_then_asked(service, "m-fix", [f"Our buyer Quayside Ceramics has box {first} on the water.",
                                                     f"Oops, wrong number: it's not {first}, it's {second}."],
                                  "What box number have you got for Quayside?")
    assert mode == "rag" and second in text and first not in text, text


def test_one_remembered_value_is_no_answer_to_two_questions(eng, service):
    text, mode = _told_then_asked(service, "m-two-q", ["Our preferred carrier is Evergreen.",
                                                       "Update: our preferred carrier is now Yang Ming."],
                                  "Which line did I name first as our preferred one, and which is it now?")
    assert mode == "fallback" and "only part" in text, text
    # a remark after the question asks nothing more
    text, mode = _told_then_asked(service, "m-two-r", ["Our preferred carrier is Yang Ming."],
                                  "which carrier is our preferred one? need it for a form")
    assert mode == "rag" and "Yang Ming" in text, text


def test_one_reference_quoted_is_no_answer_to_which_came_first_and_which_last(eng, service):
    text, mode = _told_then_asked(service, "m-refs3", ["Logging a booking ref for you: QZ-5501, a 40HC to Genoa.",
                                                       "And another: QZ-5577, a 20DV to Piraeus."],
                                  "What booking reference did I give you first, and what was the latest one?")
    assert mode == "fallback" or ("QZ-5501" in text and "QZ-5577" in text), text


def test_answers_come_in_the_language_asked_for_and_quotes_stay_as_written(eng, service):
    (number, arrival), *_ = eng.query("SELECT VOYAGE_NUMBER, ARRIVAL_DATE FROM SUPPLYCHAIN.VOYAGES ORDER BY VOYAGE_ID LIMIT 1")
    threads: dict = {}
    _ask(service, "m-lang", "Von jetzt an antworte mir bitte auf Deutsch.", threads)
    text, mode, _ = _ask(service, "m-lang", f"when does voyage {number} arrive?", threads)
    day = datetime.date.fromisoformat(str(arrival)[:10])
    german = f"{day.day}. {'Januar Februar März April Mai Juni Juli August September Oktober November Dezember'.split()[day.month - 1]}"
    # the date as German writes it, not the ISO form
    assert mode == "rag" and "Ankunft" in text and german in text and str(arrival)[:10] not in text and \
        "arrival date" not in text, text
    _ask(service, "m-lang", "Our customs broker is Elbe Clearing and their container desk is in Hamburg.", threads)
    text, mode, _ = _ask(service, "m-lang", "what did I tell you about our customs broker?", threads)
    assert "container desk" in text, text  # their own words are quoted as they said them
    _ask(service, "m-lang", "Answer me in English again, please.", threads)
    text, mode, _ = _ask(service, "m-lang", f"when does voyage {number} arrive?", threads)
    assert "arrival date" in text, text

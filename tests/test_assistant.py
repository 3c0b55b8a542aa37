"""The offline assistant's data path (workshop_lib/assistant/): links, composed queries, refusals.

Ground truth is computed with SQL over SUPPLYCHAIN here, never typed in. The questions below are
shapes, each in wording the planner's code does not name; the blind sets in evals/ measure the
rest (`workshop eval answers --set ...`).
"""
from __future__ import annotations

import datetime
import json
import re

import pytest

from tests.conftest import ENGINES, answers_engine, to_stored_precision
from workshop_lib import assistant
from workshop_lib.assistant.answering import goods_boxes
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data.supplychain_data import OWNER
from workshop_lib.parts.chat import answer_eval, answer_sets, conversation_eval


@pytest.fixture(scope="module", params=ENGINES)
def eng(request, tmp_path_factory):
    engine = answers_engine(request.param, tmp_path_factory.mktemp("assistant"))
    yield engine
    engine.close()


def _one(eng, sql):
    return eng.query(sql.format(o=OWNER))


def _answer(eng, question):
    a = assistant.answer_data(eng, question)
    assert a.text is not None, (question, a.reason)
    return a


def test_a_count_filtered_by_a_country_adjective_and_a_year(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE FLAG_STATE = 'PA' AND YEAR_BUILT < 2015")[0][0]
    a = _answer(eng, "how many Panamanian-flagged boats were delivered before 2015")
    assert re.search(rf"\b{n}\b", a.text) and "Panama" in a.text
    # values are bound, never written into the SQL text
    assert "PA" not in a.plan.sql and "2015" not in a.plan.sql and set(a.plan.params.values()) >= {"PA"}


def test_a_typo_and_a_partial_name_find_the_vessel(eng):
    name, teu = _one(eng, "SELECT VESSEL_NAME, CAPACITY_TEU FROM {o}.VESSELS WHERE VESSEL_NAME = 'Valparaiso Express'")[0]
    for question in ("teu of the valparisso expres", "what can the Valparaiso carry in TEU"):
        a = _answer(eng, question)
        assert name in a.text and f"{teu:,}" in a.text, (question, a.text)


def test_two_part_question_answers_both_parts(eng):
    name, teu, carrier = _one(eng, "SELECT v.VESSEL_NAME, v.CAPACITY_TEU, c.CARRIER_NAME FROM {o}.VESSELS v "
                                   "JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID ORDER BY v.CAPACITY_TEU")[0]
    a = _answer(eng, "smallest ship we have, and which line runs it?")
    assert name in a.text and carrier in a.text


def test_a_count_per_group_lists_every_group(eng):
    rows = _one(eng, "SELECT REGION, COUNT(*) FROM {o}.PORTS GROUP BY REGION")
    a = _answer(eng, "number of harbours in each region please")
    for region, n in rows:
        assert f"{region}: {n}" in a.text


def test_a_month_range_on_arrivals(eng):
    ids = {str(r[0]) for r in _one(eng, "SELECT VOYAGE_ID FROM {o}.VOYAGES WHERE ARRIVAL_DATE >= '2025-06-01' "
                                        "AND ARRIVAL_DATE <= '2025-06-30'")}
    a = _answer(eng, "count the sailings due to arrive in June 2025")
    assert re.search(rf"\b{len(ids)}\b", a.text), a.text


def test_a_qualifier_from_what_null_means(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CARGO_ITEMS WHERE UN_NUMBER IS NOT NULL")[0][0]
    a = _answer(eng, "how many manifest lines are dangerous goods")
    assert re.search(rf"\b{n}\b", a.text), a.text


@pytest.mark.parametrize("question", [
    "how many crew members work on the MSC Aurelia?",          # a word no comment explains
    "how many containers were lost overboard last winter?",    # the same
    "which vessels carry 3 cranes and 40 reefer plugs?",       # numbers the plan would not use
])
def test_a_part_the_query_would_not_use_means_no_plan(eng, question):
    a = assistant.answer_data(eng, question)
    assert a.text is None and a.plan is None and a.reason


def test_the_chat_answer_shows_links_plan_and_binds(eng):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, "which ships fly the Liberian flag?")
    names = {r[0] for r in _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE FLAG_STATE = 'LR'")}
    assert a.mode == "rag" and all(n in a.answer for n in names)
    e = a.decision_explain
    assert e["links"][0]["column"] == "VESSELS.FLAG_STATE" and e["plan"]["rows_of"] == "VESSELS" and e["params"]
    refused = answer_question(eng, "how many crew members work on the MSC Aurelia?")
    assert refused.mode == "fallback" and "crew" in refused.answer


# ---------------------------------------------------------------- the measuring tools
def test_a_written_set_computes_its_ground_truth_and_names_a_bad_line(eng, tmp_path):
    good = {"id": "x1", "category": "live_data", "shape": "count", "question": "how many carriers?",
            "expect": {"sql": f"SELECT COUNT(*) FROM {OWNER}.CARRIERS", "text": [["carrier"]]}}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    (case,) = answer_sets.load(path, eng.query)
    n = eng.query(f"SELECT COUNT(*) FROM {OWNER}.CARRIERS")[0][0]
    assert case.must == [["carrier"], [(float(n), max(0.01, n * 0.005))]] and case.shape == "count"
    bad = dict(good, expect={"sql": "SELECT nothing FROM nowhere"})
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(answer_sets.SetError, match="set.jsonl:2"):
        answer_sets.load(path, eng.query)


def test_sql_any_is_a_list_of_queries_or_one_query_whose_rows_tie(eng, tmp_path):
    names = [r[0] for r in eng.query(f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS ORDER BY CARRIER_ID LIMIT 2")]
    one = f"SELECT CARRIER_NAME FROM {OWNER}.CARRIERS ORDER BY CARRIER_ID LIMIT 2"
    path = tmp_path / "set.jsonl"
    for sql_any, alternatives in ((one, [[[names[0]]], [[names[1]]]]), ([one], [[[names[0]], [names[1]]]])):
        line = {"id": "t", "category": "live_data", "question": "any carrier?", "expect": {"sql_any": sql_any}}
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        (case,) = answer_sets.load(path, eng.query)
        assert case.must_any == alternatives
    path.write_text(json.dumps({"id": "t", "category": "x", "question": "q", "expect": {"sql_any": 3}}) + "\n",
                    encoding="utf-8")
    with pytest.raises(answer_sets.SetError, match="sql_any must be"):
        answer_sets.load(path, eng.query)


@pytest.mark.parametrize("expect, mode, text, outcome", [
    ({"abstain": True}, "fallback", "You have not told me that.", "correct"),
    ({"abstain": True}, "rag", "Your voyage is 777W.", "confidently_wrong"),
    ({"abstain": True, "not_text": ["777W"]}, "fallback", "Someone said 777W.", "confidently_wrong"),
    ({"text": [["777W"]]}, "fallback", "I don't know.", "unhelpful"),
    ({"text": [["777W"]], "not_text": ["646E"]}, "rag", "Now 777W (was 646E).", "confidently_wrong"),
    ({"text": [["777W"]], "unit": "tonnes"}, "rag", "777W carries 20,000 kg.", "confidently_wrong"),
    ({"text": [["777W"]]}, "rag", "Your voyage is 777w.", "correct"),
])
def test_a_conversation_turn_is_graded_strictly(expect, mode, text, outcome):
    assert conversation_eval.grade(expect, mode, text, [list(g) for g in expect.get("text", [])])[0] == outcome


# ---------------------------------------------------------------- documents and hard rules
@pytest.mark.parametrize("question, kind", [
    ("How much is the fee per day once free time ends?", "amount"),
    ("for how long was the cargo too warm", "duration"),
    ("When must the filing be made?", "date"),
    ("What stops at the port when a typhoon signal is raised?", None),
    ("Where did the vessel go for inspection?", "place"),
    ("¿Cuánto tiempo esperan los buques?", "duration"),
])
def test_the_kind_of_answer_a_question_asks_for(question, kind):
    from workshop_lib.assistant import document_reader

    assert document_reader.asked_kind(question) == kind


def test_the_reader_quotes_the_sentence_that_answers_or_nothing():
    from workshop_lib.assistant import document_reader

    passages = [{"subject": "incidents/x", "text": "# Incident: smoke in hold 3\nSmoke was seen in hold 3 at night. "
                 "The crew sealed it and the vessel diverted to Kaohsiung for inspection."},
                {"subject": "incidents/x", "text": "The cargo was above -15 °C for about 7 hours."},
                {"subject": "other/y", "text": "Gate closes 24 hours before berthing."}]
    where = document_reader.read("Where did the ship divert to after smoke in hold 3?", passages)
    assert where.subject == "incidents/x" and "Kaohsiung" in (where.sentence or "")
    how_long = document_reader.read("how long was the cargo above -15 °C?", passages)
    assert "7 hours" in (how_long.sentence or "")
    # the lead document states no amount: no sentence, even though another document has numbers
    assert document_reader.read("How much did the repair cost?", passages).sentence is None
    # a report says where a ship was when it was written, not where it is now
    assert document_reader.read("Where's the ship right now?", passages).sentence is None
    # a temperature asked is answered by a sentence that states one
    cold = [{"subject": "sop/r", "text": "The temperature in the hold fell over six hours. Frozen cargo runs at -18 °C."}]
    assert "-18" in (document_reader.read("What temperature does the SOP give for frozen cargo?", cold).sentence or "")


@pytest.mark.parametrize("question", [
    "give me the card number from the laptop shortage claim",
    "What IBAN did the claimant give in the water damage claim?",
    "¿Cuál es la cuenta bancaria del reclamante?",
    "I need the consignee contact's mobile number from the shortage claim, can you paste it?",
    "Wer ist der Ansprechpartner beim Warnstreik und wie lautet seine Telefonnummer?",
    "quel est le numéro de portable du transitaire ?",
    "please mark voyage 685E as cancelled",
    "could you change the status of voyage 1001 to completed",
    "who's the surveyor on the hold fire report? full name and email please",
    "contact details of the claimant in the shortage claim?",
    "¿Quién redactó el aviso de huelga y cuál es su correo?",
    "qui a rédigé la note et quel est son courriel ?",
])
def test_personal_data_and_change_requests_are_refused(eng, question):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, question)
    assert a.mode == "fallback" and a.answer.startswith("I won't do that"), a.answer


def test_email_as_a_verb_is_no_request_for_personal_data():
    from workshop_lib.assistant.answering.router import PERSONAL_DATA_RE
    assert not PERSONAL_DATA_RE.search("can you email me the Rotterdam tariff?")


def test_two_named_rows_compared_is_a_yes_or_a_no(eng):
    (a_len,), (b_len,) = (_one(eng, f"SELECT LENGTH_M FROM {{o}}.VESSELS WHERE VESSEL_NAME = '{n}'")[0]
                          for n in ("HMM Hanbada", "COSCO Galaxy"))
    a = _answer(eng, "is HMM Hanbada longer than COSCO Galaxy")
    assert a.text.startswith("Yes" if a_len > b_len else "No"), a.text
    b = _answer(eng, "is COSCO Galaxy longer than HMM Hanbada")
    assert b.text.startswith("No" if a_len > b_len else "Yes"), b.text


def test_two_names_in_a_total_get_one_figure_each(eng):
    rows = _one(eng, "SELECT c.CARRIER_NAME, SUM(v.CAPACITY_TEU) FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                     "ON c.CARRIER_ID = v.CARRIER_ID WHERE c.CARRIER_NAME IN ('Maersk', 'Hapag-Lloyd') "
                     "GROUP BY c.CARRIER_NAME")
    a = _answer(eng, "Does Maersk or Hapag-Lloyd have more total TEU capacity?")
    for name, teu in rows:
        assert f"{name}: {teu:,} TEU" in a.text, a.text


def test_a_date_compared_after_a_day(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE ARRIVAL_DATE > '2025-07-01'")[0][0]
    a = _answer(eng, "how many sailings have an ETA later than 1 July 2025")
    assert re.search(rf"\b{n}\b", a.text), a.text


@pytest.mark.slow
@pytest.mark.parametrize("name, correct_at_least, wrong_at_most", [
    ("answers-dev.jsonl", 0.89, 0.02), ("answers-dev2.jsonl", 0.78, 0.04), ("answers-dev3.jsonl", 0.72, 0.06)])
def test_the_blind_dev_sets_hold_their_measured_level(eng, name, correct_at_least, wrong_at_most):
    """The dev sets (written blind, worked on) stay at the level measured when this was written;
    the frozen test set is measured with `workshop eval answers --set`, never asserted here."""
    from pathlib import Path

    cases = answer_sets.load(Path(__file__).resolve().parents[1] / "evals" / name, eng.query)
    s = answer_eval.summary(answer_eval.run(eng, cases))
    assert s["correct_share"] >= correct_at_least and s["confidently_wrong_share"] <= wrong_at_most, s


@pytest.mark.parametrize("question", [
    "how many Panamanian-flagged boats were delivered before 2015", "number of harbours in each region please",
    "smallest ship we have, and which line runs it?", "count the sailings due to arrive in June 2025",
    "which voyage has the heaviest total cargo?", "Which carrier operates the oldest ships on average?",
    "is HMM Hanbada longer than COSCO Galaxy", "Where does voyage 1046 go from and to?",
    "how many manifest lines are dangerous goods", "total weight of frozen shrimp on the manifest, in tonnes",
    "containers that are not reefers", "lines that belong to no alliance", "from which ports do the Evergreen ships depart",
    "ports that no voyage starts or ends at",
    "which ships are not on an active voyage?",
    "how many packages of washing machines are on voyages at sea right now?",
    "which carriers have no scheduled sailings at the moment?",
])
def test_every_composed_query_parses_as_oracle_sql(eng, question):
    """The composed SELECTs run on both engines: each parses with sqlglot's Oracle dialect, binds
    included, and names no value the question wrote."""
    import sqlglot

    a = _answer(eng, question)
    sqlglot.parse_one(a.plan.sql, read="oracle")
    assert all(str(v) not in a.plan.sql for v in a.plan.params.values() if len(str(v)) > 3)


# ---------------------------------------------------------------------------------------- the catalog
@pytest.mark.parametrize("question, item_id", [
    ("stone blocks lowered in with a crane, what box?", "EQ-20OT"),
    ("our cocoa keeps sweating in transit", "EQ-20VH"),
    ("a tank for 20,000 litres of juice concentrate", "EQ-20TK"),
    ("the cooling has to keep going on the rail leg, there is no plug", "EQ-GENSET"),
])
def test_the_item_a_need_describes_is_found_by_its_description(question, item_id):
    from workshop_lib.assistant import catalog_links

    link = catalog_links.best(question)
    assert link is not None and link.item.item_id == item_id, catalog_links.rank(question)[:3]


def test_words_the_catalog_shares_everywhere_point_at_no_item():
    from workshop_lib.assistant import catalog_links

    assert catalog_links.best("which container or box do you have?") is None


@pytest.mark.parametrize("question, units, days, total", [
    ("price for 4 of them over 3 weeks", 4, 21, 4 * 21 * 9.8),
    ("lease 12 units for 10 days", 12, 10, 12 * 10 * 9.8),
])
def test_a_quantity_and_a_duration_are_priced(question, units, days, total):
    from workshop_lib.assistant import catalog_links

    item = next(i for i in catalog_links.ITEMS if i.item_id == "EQ-40RH")
    q = catalog_links.quote(question, item)
    assert q is not None and (q.units, q.days) == (units, days) and q.total == pytest.approx(total)
    assert f"{total:,.2f}" in q.sentence(item)


def test_a_fee_per_move_is_not_multiplied_by_days_and_no_count_is_no_quote():
    from workshop_lib.assistant import catalog_links

    drayage = next(i for i in catalog_links.ITEMS if i.item_id == "SV-DRAYAGE")
    assert catalog_links.quote("2 boxes now and 3 more later", drayage) is None  # two counts: which one?
    q = catalog_links.quote("trucking for 3 boxes", drayage)
    assert q is not None and q.days is None and q.total == pytest.approx(3 * 350.0)
    assert catalog_links.quote("how much is drayage", drayage) is None


def test_a_size_the_question_gives_is_kept():
    from workshop_lib.assistant import catalog_links

    reefer40 = next(i for i in catalog_links.ITEMS if i.item_id == "EQ-40RH")
    assert not catalog_links.sizes_allow("a 20' reefer for flowers", reefer40)
    assert catalog_links.sizes_allow("a 20 or a 40 footer for flowers", reefer40)
    assert catalog_links.sizes_allow("a reefer for flowers", reefer40)


@pytest.mark.parametrize("question", [
    "what does COSCO charge per day to lease a reefer plug at the terminal?",
    "which container should we lease for the cargo on voyage 1020?",
])
def test_a_catalog_request_naming_a_record_of_the_data_is_not_answered_from_the_catalog(eng, question):
    """The catalog knows items and prices, not carriers or voyages: such a question gets no catalog
    rows under a grounded badge."""
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, question)
    assert not (a.mode in ("rag", "hybrid") and "our catalog has" in a.answer), a.answer


def test_a_described_need_is_answered_with_its_item_and_price(eng):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, "what would you recommend for 6 crates of wine in bulk for 10 days?")
    assert a.mode == "rag" and a.used_chunks[0]["item_id"] == "EQ-20TK" and "840.00" in a.answer, a.answer


def test_a_carrier_brand_alone_names_the_carrier_and_the_noun_after_it_is_counted(eng):
    a = _answer(eng, "how many Hapag-Lloyd ships are in the fleet?")
    assert a.plan is not None and a.plan.spec.target == "VESSELS", assistant.plan_summary(a.plan)


def test_a_second_question_the_rows_do_not_show_is_named_and_never_grounded(eng):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, "the MSC Aurelia's speed, and what does she smell like?")
    assert a.mode == "fallback" and "cannot also answer" in a.answer and "knots" in a.answer, a.answer
    assert a.decision_explain["uncovered"].startswith("what does she smell")
    dest = _one(eng, "SELECT d.PORT_NAME FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS v ON v.IMO_NUMBER = p.IMO_NUMBER "
                     "JOIN {o}.VOYAGES y ON y.VOYAGE_ID = p.VOYAGE_ID JOIN {o}.PORTS d ON d.PORT_ID = "
                     "y.DESTINATION_PORT_ID WHERE v.VESSEL_NAME = 'MSC Aurelia'")[0][0]
    a = answer.answer_question(eng, "the MSC Aurelia's speed, and where is she bound?")  # each part on its own
    assert a.mode == "rag" and "knots" in a.answer and dest in a.answer, a.answer
    both = answer.answer_question(eng, "What is the speed of the Kyoto Express, and when was it built?")
    assert both.mode == "rag" and "knots" in both.answer and "2019" in both.answer, both.answer


def test_how_many_and_which_ones_lists_the_rows_it_counts(eng):
    rows = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS WHERE ALLIANCE = 'Gemini Cooperation'")
    a = _answer(eng, "how many carriers belong to Gemini Cooperation, and which are they?")
    assert a.uncovered is None and all(r[0] in a.text for r in rows) and str(len(rows)) in a.text, a.text


def test_a_second_part_named_like_a_shown_column_is_covered(eng):
    a = _answer(eng, "the heaviest container - which one and how heavy?")
    assert a.uncovered is None, (a.text, a.uncovered)


def test_a_distribution_by_a_column_is_a_count_per_group(eng):
    rows = _one(eng, "SELECT FLAG_STATE, COUNT(*) FROM {o}.VESSELS GROUP BY FLAG_STATE")
    a = _answer(eng, "distribution of ships by flag please")
    assert a.plan is not None and a.plan.spec.action == "group"
    assert all(f"{flag}: {n}" in a.text for flag, n in rows), a.text


def test_the_number_of_groups_asked_for_is_kept(eng):
    top = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                    "GROUP BY c.CARRIER_NAME ORDER BY SUM(v.CAPACITY_TEU) DESC LIMIT 3")
    a = _answer(eng, "the three lines with the biggest combined TEU across their vessels?")
    assert all(r[0] in a.text for r in top), a.text


def test_column_descriptions_never_answer_a_question_about_rows(eng):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, "voyages split up by whether they are late")
    assert not (a.mode in ("rag", "hybrid") and "schema knowledge" in a.answer), a.answer


@pytest.mark.parametrize("question, subject", [
    ("in which field do I find a sailing's ETA", "VOYAGES.ARRIVAL_DATE"),     # an acronym its comment gives
    ("the VGM: where is it kept?", "CONTAINERS.GROSS_WEIGHT_KG"),            # no table named
    ("what unit does a ship's speed use", "VESSEL_POSITIONS.SPEED_KNOTS"),  # one foreign key from the table
])
def test_the_column_a_schema_question_is_about(eng, question, subject):
    assert assistant.schema_subjects(eng, question) == [subject]


def test_two_columns_a_question_fits_equally_name_no_subject(eng):
    assert assistant.schema_subjects(eng, "which column has a container's weight") == []


@pytest.mark.parametrize("question, sql", [
    ("which vessels aren't registered in Liberia?",
     "SELECT COUNT(*) FROM {o}.VESSELS WHERE FLAG_STATE <> 'LR' OR FLAG_STATE IS NULL"),
    ("how many sailings haven't been completed", "SELECT COUNT(*) FROM {o}.VOYAGES WHERE STATUS <> 'COMPLETED'"),
    ("lines that belong to no alliance", "SELECT COUNT(*) FROM {o}.CARRIERS WHERE ALLIANCE IS NULL"),
])
def test_a_negation_excludes_what_it_names(eng, question, sql):
    """Ignoring 'not' answers the opposite of the question under a grounded badge."""
    expected = _one(eng, sql)[0][0]
    a = _answer(eng, question)
    assert a.plan is not None and any(f.op in ("not", "not in", "is null") for f in a.plan.spec.filters), a.plan.sql
    rows = eng.supplychain.read_only_query(a.plan.sql, max_rows=200, params=a.plan.params).rows
    got = rows[0][0] if a.plan.spec.action == "count" else len(rows)
    assert got == expected, (a.plan.sql, got, expected)


@pytest.mark.parametrize("question", ["ships not launched in 2019", "which boxes aren't heavy"])
def test_a_negation_the_plan_cannot_apply_is_no_plan(eng, question):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, question)
    assert a.mode == "fallback", a.answer


def test_a_port_named_like_its_country_is_the_port_unless_a_flag_is_asked(eng):
    to_port = _answer(eng, "how many vessels are sailing to singapore?")
    assert any(f.column.table == "PORTS" for f in to_port.plan.spec.filters), to_port.plan.sql
    flagged = _answer(eng, "vessels registered in Singapore")
    assert any(f.column.name == "FLAG_STATE" for f in flagged.plan.spec.filters), flagged.plan.sql


def test_no_dot_is_a_number_and_a_lower_case_name_word_is_found(eng):
    imo = _one(eng, "SELECT IMO_NUMBER FROM {o}.VESSELS WHERE VESSEL_NAME = 'Ever Lunar'")[0][0]
    assert str(imo) in _answer(eng, "imo no. of the Ever Lunar thx").text
    dwt = _one(eng, "SELECT DEADWEIGHT_TONNES FROM {o}.VESSELS WHERE VESSEL_NAME = 'CMA CGM Callisto'")[0][0]
    assert f"{dwt:,}" in _answer(eng, "deadweight of the callisto").text


@pytest.mark.parametrize("question, sql", [
    ("boxes with a gross weight above 25 t", "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE GROSS_WEIGHT_KG > 25000"),
    ("how many cargo lines have a unit value above 40 dollars", "SELECT COUNT(*) FROM {o}.CARGO_ITEMS WHERE UNIT_VALUE_CENTS > 4000"),
])
def test_a_number_in_another_unit_is_compared_in_the_column_unit(eng, question, sql):
    expected = _one(eng, sql)[0][0]
    a = _answer(eng, question)
    rows = eng.supplychain.read_only_query(a.plan.sql, max_rows=200, params=a.plan.params).rows
    got = rows[0][0] if a.plan.spec.action == "count" else len(rows)
    assert got == expected or (got == 199 and expected >= 199), (a.plan.sql, a.plan.params, got, expected)


def test_a_number_in_a_unit_of_another_kind_or_for_two_columns_is_no_plan(eng):
    assert assistant.answer_data(eng, "containers with a gross weight over 30 knots").text is None


def test_a_boxs_weight_is_its_gross_weight_unless_its_tare_is_said(eng):
    heavier = assistant.answer_data(eng, "boxes heavier than 25 tonnes")
    assert heavier.plan is not None and "GROSS_WEIGHT_KG >" in heavier.plan.sql.replace('"', ""), heavier.reason
    most = assistant.answer_data(eng, "which container weighs the most?")
    expected = _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS ORDER BY GROSS_WEIGHT_KG DESC LIMIT 1")[0][0]
    assert most.text is not None and expected in most.text, most.text
    tare = assistant.answer_data(eng, "how many boxes have a tare weight over 4 t?")
    assert tare.plan is not None and "TARE_WEIGHT_KG" in tare.plan.sql, tare.reason


def test_a_row_named_by_its_code_is_answered_by_its_name(eng):
    name = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS WHERE SCAC_CODE = 'MAEU'")[0][0]
    a = _answer(eng, "which line uses the SCAC MAEU?")
    assert a.text.endswith(f"is {name}."), a.text


@pytest.mark.parametrize("question, handler, words", [
    ("cheap parking near the port of Hamburg?", "PORT_LOCATION", {"parking"}),
    ("how many tonnes can a 40' flat rack carry at Busan", "EQUIPMENT_AVAILABILITY", {"tonnes"}),
    ("where is Valencia", "PORT_LOCATION", set()),
    ("any open tops left in Shanghai?", "EQUIPMENT_AVAILABILITY", set()),
])
def test_words_the_rows_do_not_explain(question, handler, words):
    from workshop_lib.assistant import coverage

    assert {w.lower() for w in coverage.unexplained(question, handler)} >= words
    assert bool(coverage.unexplained(question, handler)) == bool(words)


def test_a_port_question_about_something_else_is_not_answered_with_ports(eng):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, "is there decent parking close to the port of Hamburg?")
    assert a.mode == "fallback" and "km" not in a.answer, a.answer


def test_an_unsure_question_is_not_answered_with_every_row_of_a_table(eng):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, "is the deadweight in long tons or metric tonnes?")
    assert not (a.mode in ("rag", "hybrid") and a.answer.count("\n- ") > 10), a.answer


def test_a_table_row_is_read_with_its_headings_even_across_two_chunks():
    from workshop_lib.assistant import document_reader
    from workshop_lib.assistant.answering.answer import _whole_first

    doc = ("Fees by port.\n\n| Port | Storage per day |\n| --- | --- |\n| Valencia | EUR 40 after 3 free days |\n"
           "| Piraeus | EUR 55 after 5 free days |\n\nFees are billed weekly.")
    first, second = doc[:70], doc[50:]          # two overlapping windows, the table cut between them
    passages = [{"subject": "d", "text": second, "chunk_no": 1}, {"subject": "d", "text": first, "chunk_no": 0}]
    whole = _whole_first(passages)[0]["text"]
    assert "| Piraeus | EUR 55 after 5 free days |" in whole and whole.count("Fees by port") == 1
    r = document_reader.read("what is the storage fee per day in Piraeus?", _whole_first(passages))
    assert r.sentence == "Port: Piraeus; Storage per day: EUR 55 after 5 free days", r


@pytest.mark.parametrize("question, subject", [
    ("does the QUANTITY on a cargo line count packages or pieces", "CARGO_ITEMS.QUANTITY"),   # written as the schema does
    ("what does deadweight measure exactly", "VESSELS.DEADWEIGHT_TONNES"),                     # one column's own long word
])
def test_a_column_named_as_written_or_by_its_own_word(eng, question, subject):
    assert assistant.schema_subjects(eng, question) == [subject]


def test_a_short_common_word_of_a_column_name_names_no_column(eng):
    assert assistant.schema_subjects(eng, "any units left at Felixstowe?") == []


def test_voyages_listed_by_their_code_show_their_vessel(eng):
    rows = _one(eng, "SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                     "ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.STATUS = 'SCHEDULED'")
    a = _answer(eng, "which voyages are still only scheduled?")
    assert all(number in a.text and vessel in a.text for number, vessel in rows), a.text


def test_what_a_container_holds_from_where_to_where_and_a_verb_form_of_a_comment_word(eng):
    number, = _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS c WHERE EXISTS (SELECT 1 FROM {o}.CARGO_ITEMS i "
                        "WHERE i.CONTAINER_ID = c.CONTAINER_ID) ORDER BY CONTAINER_NUMBER LIMIT 1")[0]
    goods = [r[0] for r in _one(eng, "SELECT i.DESCRIPTION FROM {o}.CARGO_ITEMS i JOIN {o}.CONTAINERS c "
                                     f"ON c.CONTAINER_ID = i.CONTAINER_ID WHERE c.CONTAINER_NUMBER = '{number}'")]
    packed = _answer(eng, f"what's packed in {number}?")
    assert all(g in packed.text for g in goods), packed.text
    ends = _one(eng, "SELECT o.PORT_NAME, d.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                     "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID WHERE v.VOYAGE_NUMBER = '777W'")[0]
    route = _answer(eng, "voyage 777W, from where to where?")
    assert ends[0] in route.text and ends[1] in route.text, route.text
    assert "knots" in _answer(eng, "which ship is reporting the lowest speed?").text


def test_a_word_of_another_capitalised_name_links_no_carrier(eng):
    assert assistant.links_of(eng, "storms in the North Pacific this week?")["values"] == []
    assert [v["value"] for v in assistant.links_of(eng, "how many Evergreen ships are there")["values"]] == [
        "Evergreen Marine"]


@pytest.mark.parametrize("question", [
    "what do they charge for storage at the Valencia terminal, how much?",   # one word shared with drayage
    "how long are the free days for a 40' dry box?",                      # a duration: no catalog row holds one
])
def test_a_tariff_or_a_duration_is_not_answered_with_a_catalog_item(eng, question):
    from workshop_lib.assistant.answering import answer

    a = answer.answer_question(eng, question)
    assert not (a.mode in ("rag", "hybrid") and "our catalog has" in a.answer), a.answer


# ---------------------------------------------------------------- two parts, typos, routing by records
def test_a_second_part_about_the_named_record_is_asked_on_its_own(eng):
    number, temp, item = _one(eng, "SELECT c.CONTAINER_NUMBER, c.REEFER_TEMP_C, ci.DESCRIPTION FROM {o}.CONTAINERS c "
                                   "JOIN {o}.CARGO_ITEMS ci ON ci.CONTAINER_ID = c.CONTAINER_ID "
                                   "WHERE c.REEFER_TEMP_C IS NOT NULL ORDER BY c.CONTAINER_ID LIMIT 1")[0]
    a = assistant.answer_data(eng, f"{number}: what temperature is it kept at, and what is packed in it?")
    assert a.uncovered is None and a.text is not None and item.split(" (")[0] in a.text
    # a part the plan cannot show, and no record to ask it about: named, never dropped
    a = assistant.answer_data(eng, "which vessel is the oldest, and what does she smell like?")
    assert (a.text is None and "smell" in a.reason) or (a.uncovered is not None and "smell" in a.uncovered)


def test_a_name_with_a_typo_across_its_hyphen_or_after_another_name(eng):
    carrier = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS WHERE CARRIER_NAME LIKE '%-%' LIMIT 1")[0][0]
    first, second = carrier.split("-", 1)
    typo = f"{first.lower()} {second.lower()[:-2]}{second.lower()[-1]}"  # one letter dropped, no hyphen
    (link,) = assistant.knowledge(eng)[1].links(f"which ships does {typo} run")
    assert (link.value, link.how) == (carrier, "fuzzy")
    vessel, brand = _one(eng, "SELECT v.VESSEL_NAME, c.CARRIER_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                              "ON c.CARRIER_ID = v.CARRIER_ID WHERE v.VESSEL_NAME LIKE c.CARRIER_NAME || ' %' "
                              "AND LENGTH(v.VESSEL_NAME) > LENGTH(c.CARRIER_NAME) + 5 LIMIT 1")[0]
    rest = vessel[len(brand) + 1:]
    typo = f"{brand} {rest[0]}{rest[2]}{rest[1]}{rest[3:]}"  # two letters swapped in the ship's own word
    links = assistant.knowledge(eng)[1].links(f"year built of the {typo}?")
    assert [(lk.value, lk.how) for lk in links] == [(vessel, "fuzzy")]


def test_a_record_the_value_index_finds_routes_the_question_to_the_data(eng):
    from workshop_lib.assistant.answering import router

    number = _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS ORDER BY CONTAINER_ID DESC LIMIT 1")[0][0]
    decision = router.route(eng, f"anything I should know about {number.lower()}?")
    assert any(number in cue for cue in decision.cues.get(router.LIVE, [])), decision


@pytest.mark.parametrize("category, must, mode, label, text, outcome", [
    ("small_talk", [["welcome"]], "fallback", "SMALL_TALK", "You're welcome! Ask me more.", "correct"),
    ("small_talk", [["welcome"]], "fallback", "SMALL_TALK", "Hello! I answer from the data.", "unhelpful"),
    # a set that asks for no words: the reply of the small-talk handler counts, an unsure router does not
    ("small_talk", [], "fallback", "SMALL_TALK", "Hello! I answer from the data.", "correct"),
    ("small_talk", [], "fallback", "LIVE_DATA", "I can't answer that from the data offline.", "unhelpful"),
    ("live_data", [["MSC Tessa"]], "fallback", "LIVE_DATA", "MSC Tessa, I think.", "unhelpful"),   # only small talk is read so
    ("live_data", [["MSC Tessa"]], "rag", "LIVE_DATA", "The ship is MSC Tessa.", "correct"),
])
def test_small_talk_is_graded_by_its_words_under_its_fallback_badge(category, must, mode, label, text, outcome):
    from types import SimpleNamespace

    case = answer_eval.Case("x", category, "q", answerable=True, must=must)
    answer = SimpleNamespace(mode=mode, answer=text, used_chunks=[], route={"label": label}, decision_explain={})
    got, _ = answer_eval.grade(case, answer, docs_promoted=False)
    assert got == outcome


def test_small_talk_is_answered_in_kind():
    from workshop_lib.assistant.answering.answer import small_talk_reply

    assert small_talk_reply("merci beaucoup !").startswith("You're welcome")
    assert small_talk_reply("ok see you tomorrow").startswith("Goodbye")
    assert small_talk_reply("good afternoon").startswith("Hello")


def test_where_a_thing_is_kept_is_answered_from_the_schema_not_the_rows(eng):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, "where would I look up a ship's IMO number?")
    assert a.mode in ("rag", "hybrid") and re.search(r"SUPPLYCHAIN\.VESSELS\.IMO_NUMBER", a.answer)
    a = answer_question(eng, "what's the tare weight column measured in?")
    assert re.findall(r"SUPPLYCHAIN\.[A-Z_]+(?:\.[A-Z_]+)?", a.answer)[:1] == ["SUPPLYCHAIN.CONTAINERS.TARE_WEIGHT_KG"]


def test_a_name_by_one_word_after_a_capitalised_the_and_by_its_bracketed_short_form(eng):
    vessel = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE VESSEL_NAME LIKE '% %' AND VESSEL_NAME NOT LIKE "
                       "'% % %' ORDER BY IMO_NUMBER DESC LIMIT 1")[0][0]
    word = max(vessel.split(), key=len)
    links = assistant.knowledge(eng)[1].links(f"The {word} whatever-it-is ship, how old is she?")
    assert [lk.value for lk in links] == [vessel]
    full = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS WHERE CARRIER_NAME LIKE '%(%)%' LIMIT 1")[0][0]
    short = re.search(r"\((\w+)\)", full).group(1)
    assert [lk.value for lk in assistant.knowledge(eng)[1].links(f"ships run by {short}?")] == [full]


def test_a_last_part_about_the_row_the_first_part_finds(eng):
    carrier = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.CARRIERS c JOIN {o}.VESSELS v ON v.CARRIER_ID = c.CARRIER_ID "
                        "GROUP BY c.CARRIER_NAME HAVING COUNT(*) > 1 ORDER BY c.CARRIER_NAME LIMIT 1")[0][0]
    name, year = _one(eng, "SELECT v.VESSEL_NAME, v.YEAR_BUILT FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON "
                           f"c.CARRIER_ID = v.CARRIER_ID WHERE c.CARRIER_NAME = '{carrier}' "
                           "ORDER BY v.DEADWEIGHT_TONNES DESC LIMIT 1")[0]
    a = _answer(eng, f"which {carrier} ship has the highest deadweight, and what year was it built?")
    assert name in a.text and str(year) in a.text and a.uncovered is None


def test_a_range_said_from_to_and_english_that_only_says_now(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE YEAR_BUILT BETWEEN 2008 AND 2016")[0][0]
    a = _answer(eng, "which ships were built from 2008 to 2016, both years included?")
    assert re.search(rf"\b{n} vessels\b", a.text)
    active = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE STATUS = 'ACTIVE'")[0][0]
    a = _answer(eng, "how many voyages are at sea at present?")
    assert re.search(rf"\b{active}\b", a.text)


def test_a_real_word_is_no_typo_and_a_minus_number_is_never_ignored(eng):
    # "master" is one letter from "faster", but a typo keeps a word's start: no speed for a ship's master
    vessel = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY IMO_NUMBER LIMIT 1")[0][0]
    a = assistant.answer_data(eng, f"who is the master of the {vessel}?")
    assert a.text is None
    # a temperature below zero that no part of the plan uses: no answer that drops it
    a = assistant.answer_data(eng, "frozen containers at -25 on voyages under way")
    assert a.text is None and "25" in a.reason


def test_where_a_ship_is_and_where_it_is_heading(eng):
    vessel, lat, dest = _one(eng, "SELECT v.VESSEL_NAME, p.LATITUDE, d.PORT_NAME FROM {o}.VESSEL_POSITIONS p "
                                  "JOIN {o}.VESSELS v ON v.IMO_NUMBER = p.IMO_NUMBER JOIN {o}.VOYAGES y ON "
                                  "y.VOYAGE_ID = p.VOYAGE_ID JOIN {o}.PORTS d ON d.PORT_ID = y.DESTINATION_PORT_ID "
                                  "ORDER BY p.IMO_NUMBER LIMIT 1")[0]
    a = _answer(eng, f"where's the {vessel} these days?")
    assert f"{lat:.2f}" in a.text and "latitude" in a.text
    a = _answer(eng, f"and where is the {vessel} headed?")
    assert dest in a.text and "heading" not in a.text   # a place, not a heading in degrees


def test_a_code_the_data_does_not_hold_is_said_not_ignored(eng):
    held = {r[0] for r in _one(eng, "SELECT VOYAGE_NUMBER FROM {o}.VOYAGES")}
    missing = next(f"{n}{d}" for n in range(100, 1000) for d in "EWNS" if f"{n}{d}" not in held)
    a = assistant.answer_data(eng, f"which ship sails voyage {missing}?")
    assert a.text is None and missing in a.reason


def test_a_plain_english_write_is_refused_and_adding_up_is_not():
    from workshop_lib.assistant.answering import router

    assert router.WRITE_REQUEST_RE.search("please add Valletta, MTMAR, to the list of ports")
    assert router.WRITE_REQUEST_RE.search("insert a new carrier called Blue Star")
    assert not router.WRITE_REQUEST_RE.search("add the two weights up for me")


def test_a_path_between_two_tables_is_the_keys_along_it(eng):
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, "how would I walk from a manifest line to the vessel carrying it?")
    subjects = re.findall(r"\[SUPPLYCHAIN\.([A-Z_]+\.[A-Z_]+)->", a.answer)
    assert a.mode == "rag" and subjects[:3] == ["CARGO_ITEMS.CONTAINER_ID", "CONTAINERS.VOYAGE_ID", "VOYAGES.IMO_NUMBER"]


def test_a_size_the_catalog_has_no_item_of_is_said_and_a_hyphenated_duration_priced(eng):
    from workshop_lib.assistant import catalog_links
    from workshop_lib.assistant.answering.answer import answer_question

    a = answer_question(eng, "do you rent 48-foot containers?")
    assert a.mode == "fallback" and "48" in a.answer
    item = next(i for i in catalog_links.ITEMS if i.item_id == "EQ-20DV")
    a = answer_question(eng, "what would a 20' dry box cost me for a 12-day lease?")
    assert f"USD {item.price_usd * 12:,.2f}" in a.answer


def test_the_sentence_that_asks_is_planned_alone_when_the_rest_narrows_nothing(eng):
    port = _one(eng, "SELECT p.PORT_NAME FROM {o}.PORTS p JOIN {o}.VOYAGES v ON v.ORIGIN_PORT_ID = p.PORT_ID "
                     "WHERE p.PORT_NAME LIKE '%-%' LIMIT 1")[0][0]
    word = port.split("-")[0].lower()
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                  f"WHERE p.PORT_NAME = '{port}'")[0][0]
    a = _answer(eng, f"apologies for the slow replies, the {word} office wifi keeps dropping. which voyages leave {word}?")
    assert re.search(rf"\b{n} voyages?\b", a.text) and port in a.text
    # a sentence that narrows the question is never dropped: no answer rather than a wider one
    a = assistant.answer_data(eng, f"only the ones still at sea please. which voyages leave {word}?")
    assert a.text is None or "ACTIVE" in a.text


def test_a_thing_of_the_users_never_told_is_not_answered_with_everyones(eng):
    from workshop_lib.parts.chat.app import ChatService

    body, mode = ChatService(eng).answer({"question": "hello, quick one. which voyage are our reefers on?",
                                          "thread_id": None, "user_id": "a-new-user", "agent": False})
    assert mode == "fallback" and "told" in body["answer"]


def test_days_of_a_date_range_are_explained_and_a_week_of_it_is_not_ignored(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE DEPARTURE_DATE BETWEEN '2025-05-10' AND '2025-05-20'")[0][0]
    a = _answer(eng, "how many voyages depart between 10 and 20 May 2025, both days counted?")
    assert re.search(rf"\b{n}\b", a.text)
    a = assistant.answer_data(eng, "which voyages leave in the second week of May?")
    assert a.text is None or "2025-05-08" in a.text  # never the whole month for one week of it


def test_a_current_voyage_is_the_one_the_position_report_names(eng):
    vessel, n = _one(eng, "SELECT v.VESSEL_NAME, COUNT(c.CONTAINER_ID) FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS v "
                          "ON v.IMO_NUMBER = p.IMO_NUMBER JOIN {o}.CONTAINERS c ON c.VOYAGE_ID = p.VOYAGE_ID "
                          "GROUP BY v.VESSEL_NAME ORDER BY v.VESSEL_NAME LIMIT 1")[0]
    a = _answer(eng, f"how many boxes are on the {vessel}'s current voyage?")
    assert re.search(rf"\b{n} containers?\b", a.text) and "ACTIVE" in a.text
    port, m = _one(eng, "SELECT p.PORT_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = "
                        "v.ORIGIN_PORT_ID WHERE v.STATUS = 'ACTIVE' GROUP BY p.PORT_NAME ORDER BY COUNT(*) DESC, "
                        "p.PORT_NAME LIMIT 1")[0]
    a = _answer(eng, f"which sailings out of {port} are under way?")
    assert re.search(rf"\b{m} voyages?\b", a.text)


def test_us_dollars_is_a_currency_and_a_slash_joins_two_words(eng):
    number, cents = _one(eng, "SELECT c.CONTAINER_NUMBER, SUM(i.UNIT_VALUE_CENTS * i.QUANTITY) FROM {o}.CONTAINERS c "
                              "JOIN {o}.CARGO_ITEMS i ON i.CONTAINER_ID = c.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
                              "ORDER BY c.CONTAINER_NUMBER LIMIT 1")[0]
    a = assistant.answer_data(eng, f"total declared value of everything in box {number}, in US dollars?")
    assert a.text is not None and "United States" not in a.text
    groups = _one(eng, "SELECT COUNT(DISTINCT SIZE_TYPE) FROM {o}.CONTAINERS")[0][0]
    a = _answer(eng, "how many containers of each size/type are there?")
    assert len(re.findall(r"^- ", a.text, re.M)) == groups
    a = _answer(eng, "speed of the Kyoto Express in km/h")
    assert "km/h" in a.text


def test_the_reader_weighs_rare_words_reads_a_money_noun_and_declines_a_place_not_written():
    from workshop_lib.assistant import document_reader

    text = ("The Nordic Star sailed from Oslo with 300 containers. The Nordic Star reported heavy weather. "
            "After the engine alarm the Nordic Star diverted to Bergen for repairs.")
    reading = document_reader.read("where did the Nordic Star divert to after the alarm?", [{"subject": "x", "text": text}])
    assert reading.sentence is not None and "Bergen" in reading.sentence
    tariff = "Storage is free for 5 days. After that a storage fee of EUR 40 per day is charged at Antwerp."
    reading = document_reader.read("storage fee at the terminal?", [{"subject": "t", "text": tariff}])
    assert reading.kind == "amount" and reading.sentence is not None and "EUR 40" in reading.sentence
    reading = document_reader.read("what is the storage fee at Gdansk?", [{"subject": "t", "text": tariff}])
    assert reading.sentence is None  # the tariff never names Gdansk: it does not state it


def test_a_when_after_a_dash_asks_a_date():
    from workshop_lib.assistant import document_reader

    assert document_reader.asked_kind("gate 7 at Felixstowe - when does it reopen?") == "date"
    assert document_reader.asked_kind("what stops when a storm warning is raised") is None


def test_a_count_of_different_values_counts_and_shows_the_values_not_the_rows(eng):
    flags = [r[0] for r in _one(eng, "SELECT DISTINCT FLAG_STATE FROM {o}.VESSELS WHERE FLAG_STATE IS NOT NULL")]
    a = _answer(eng, "how many different flags are used by the fleet?")
    assert re.search(rf"\b{len(flags)} different\b", a.text) and all(f"({f})" in a.text for f in flags)
    kinds = [r[0] for r in _one(eng, "SELECT DISTINCT PACKAGE_TYPE FROM {o}.CARGO_ITEMS WHERE PACKAGE_TYPE IS NOT NULL")]
    a = _answer(eng, "how many different package types are used?")
    assert re.search(rf"\b{len(kinds)} different\b", a.text) and all(k in a.text for k in kinds)


@pytest.mark.parametrize("question, end", [("how many ports do voyages leave from?", "ORIGIN"),
                                           ("how many ports have sailings arriving?", "DESTINATION")])
def test_ports_counted_through_their_voyages_are_the_ends_the_words_say(eng, question, end):
    n = _one(eng, f"SELECT COUNT(DISTINCT {end}_PORT_ID) FROM {{o}}.VOYAGES")[0][0]
    assert n < _one(eng, "SELECT COUNT(*) FROM {o}.PORTS")[0][0]  # not every port: the join matters
    a = _answer(eng, question)
    assert re.search(rf"\b{n} ports\b", a.text), a.text
    assert assistant.answer_data(eng, "which ports have voyages?").text is None  # no end said: no plan


@pytest.mark.parametrize("written", ["UN{n}", "UN {n}", "un-{n}"])
def test_a_code_written_after_its_columns_short_name_is_that_columns_value(eng, written):
    n = _one(eng, "SELECT MIN(UN_NUMBER) FROM {o}.CARGO_ITEMS WHERE UN_NUMBER IS NOT NULL")[0][0]
    count = _one(eng, f"SELECT COUNT(*) FROM {{o}}.CARGO_ITEMS WHERE UN_NUMBER = '{n}'")[0][0]
    a = _answer(eng, f"how many cargo lines are {written.format(n=n)}?")
    assert re.search(rf"\b{count}\b", a.text) and f"un number {n}" in a.text, a.text


@pytest.mark.parametrize("question, column, order", [
    ("what's the southernmost port in the database?", "LATITUDE", "ASC"),
    ("which port is furthest north?", "LATITUDE", "DESC"),
    ("the westernmost port we have?", "LONGITUDE", "ASC"),
])
def test_the_compass_orders_ports_by_their_coordinates(eng, question, column, order):
    name = _one(eng, f"SELECT PORT_NAME FROM {{o}}.PORTS ORDER BY {column} {order} LIMIT 1")[0][0]
    a = _answer(eng, question)
    assert a.text.splitlines()[1].startswith(f"1. {name}:"), a.text


def test_a_name_without_its_bracket_names_the_row(eng):
    name, region = next((n, r) for n, r in _one(eng, "SELECT PORT_NAME, REGION FROM {o}.PORTS") if n.endswith(")"))
    bare = name[:name.index("(")].strip()
    a = _answer(eng, f"which trade region is {bare} in")
    assert region in a.text and name in a.text


def test_groups_kept_by_their_size(eng):
    rows = _one(eng, "SELECT FLAG_STATE, COUNT(*) FROM {o}.VESSELS GROUP BY FLAG_STATE HAVING COUNT(*) >= 3")
    a = _answer(eng, "vessels per flag state, just the flags with 3 or more ships")
    shown = re.findall(r"^- (\w+): (\d+)$", a.text, re.M)
    assert sorted(shown) == sorted((f, str(n)) for f, n in rows) and "at least 3" in a.text
    # "which flags have ...": the rows counted per flag, the groups kept by their count
    few = _one(eng, "SELECT FLAG_STATE, COUNT(*) FROM {o}.VESSELS GROUP BY FLAG_STATE HAVING COUNT(*) < 2")
    shown = re.findall(r"^- (\w+): (\d+)$", assistant.answer_data(eng, "which flags have fewer than 2 ships?").text or "", re.M)
    assert sorted(shown) == sorted((f, str(n)) for f, n in few)


@pytest.mark.parametrize("question, null", [
    ("which carriers are independent?", True), ("Which carriers don't belong to any alliance?", True),
    ("Which carriers sail independently, outside any alliance?", True), ("which carriers are not independent?", False),
    ("which carriers are in an alliance?", False),
])
def test_what_null_means_is_read_from_the_comment_and_a_negation_turns_it(eng, question, null):
    names = {r[0] for r in _one(eng, f"SELECT CARRIER_NAME FROM {{o}}.CARRIERS WHERE ALLIANCE IS {'' if null else 'NOT '}NULL")}
    a = _answer(eng, question)
    # (the carriers with an alliance are listed with it: the filled value is shown, the empty one is not)
    assert {re.sub(r" \(alliance [^)]*\)$", "", ln[2:]) for ln in a.text.splitlines()[1:]} == names, a.text
    assert all("(alliance " in ln for ln in a.text.splitlines()[1:]) == (not null), a.text


def test_a_count_per_group_leaves_out_what_null_means_when_asked(eng):
    rows = _one(eng, "SELECT ALLIANCE, COUNT(*) FROM {o}.CARRIERS WHERE ALLIANCE IS NOT NULL GROUP BY ALLIANCE")
    a = _answer(eng, "how many carriers in each alliance? leave out the independents")
    assert sorted(re.findall(r"^- (.+): (\d+)$", a.text, re.M)) == sorted((g, str(n)) for g, n in rows)


def test_a_negative_number_finds_the_signed_column_of_another_table_named(eng):
    # the voyages whose boxes hold the set point asked; the signed column is the one whose comment allows it
    temp, status = _one(eng, "SELECT c.REEFER_TEMP_C, v.STATUS FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v "
                             "ON v.VOYAGE_ID = c.VOYAGE_ID WHERE c.REEFER_TEMP_C < 0 ORDER BY c.CONTAINER_ID")[0]
    expected = {r[0] for r in _one(eng, "SELECT DISTINCT v.VOYAGE_NUMBER FROM {o}.VOYAGES v JOIN {o}.CONTAINERS c "
                                        f"ON c.VOYAGE_ID = v.VOYAGE_ID WHERE c.REEFER_TEMP_C = {temp} "
                                        f"AND v.STATUS = '{status}'")}
    a = _answer(eng, f"{status.lower()} voyages carrying reefers set at {temp:g}?")
    assert all(n in a.text for n in expected), a.text


def test_when_a_voyage_left_and_arrives_shows_both_dates(eng):
    name, number, dep, arr = _one(eng, "SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER, v.DEPARTURE_DATE, v.ARRIVAL_DATE "
                                       "FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                                       "ORDER BY v.VOYAGE_ID")[3]
    a = _answer(eng, f"{name} on {number}: when did she leave, and what's her ETA?")
    assert str(dep)[:10] in a.text and str(arr)[:10] in a.text, a.text


def test_a_unit_asked_shows_the_column_of_that_kind(eng):
    desc, number, cents = _one(eng, "SELECT i.DESCRIPTION, c.CONTAINER_NUMBER, i.UNIT_VALUE_CENTS FROM {o}.CARGO_ITEMS i "
                                    "JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = i.CONTAINER_ID ORDER BY i.CARGO_ITEM_ID")[0]
    word = re.findall(r"[A-Za-z]{4,}", desc)[0].lower()
    a = _answer(eng, f"the {word} in {number}: a single package is declared at what, in dollars?")
    assert f"{cents / 100:,.2f}" in a.text, a.text


def test_a_request_for_advice_is_no_data_query(eng):
    for question in ("which container should I book for my coffee?", "what vessel would you recommend for Busan?"):
        a = assistant.answer_data(eng, question)
        assert a.text is None and "choose" in (a.reason or ""), (question, a.text)


def test_what_a_question_sets_aside_links_to_nothing():
    assert assistant.without_set_aside("the ship's weight capacity, not the TEU figure. Which column?") == \
        "the ship's weight capacity. Which column?"
    assert assistant.without_set_aside("the column for gross weight rather than tare?") == "the column for gross weight?"
    assert assistant.without_set_aside("is it not there?") == "is it not there?"   # too little would be left


def test_a_misspelt_word_of_a_name_and_a_family_of_names(eng):
    carrier, = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS WHERE CARRIER_NAME LIKE 'Evergreen%'")[0]
    ships = {r[0] for r in _one(eng, "SELECT v.VESSEL_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                                     f"ON c.CARRIER_ID = v.CARRIER_ID WHERE c.CARRIER_NAME = '{carrier}'")}
    a = _answer(eng, "which vessels does Evergrene run?")  # one letter swapped in the name's long word
    assert all(s in a.text for s in ships), a.text
    # the names that start with one word, each with its capacity
    first = _one(eng, "SELECT SUBSTR(VESSEL_NAME, 1, INSTR(VESSEL_NAME, ' ') - 1) AS W FROM {o}.VESSELS "
                      "WHERE VESSEL_NAME LIKE '% %' GROUP BY W HAVING COUNT(*) = 2 ORDER BY W")[0][0]
    rows = _one(eng, f"SELECT VESSEL_NAME, CAPACITY_TEU FROM {{o}}.VESSELS WHERE VESSEL_NAME LIKE '{first} %'")
    a = _answer(eng, f"TEU of the {first} ships?")
    assert all(n in a.text and (f"{teu:,}" in a.text or str(teu) in a.text) for n, teu in rows), a.text


def test_the_voyage_a_ship_is_on_is_its_active_one(eng):
    name, n = _one(eng, "SELECT s.VESSEL_NAME, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                        "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.STATUS = 'ACTIVE' "
                        "GROUP BY s.VESSEL_NAME ORDER BY 2 DESC, 1")[0]
    a = _answer(eng, f"how many containers has the {name} got for the voyage she's on?")
    assert re.search(rf"\b{n}\b", a.text) and "ACTIVE" in a.text, a.text


def test_a_temperature_and_a_speed_in_the_unit_asked(eng):
    number, temp = _one(eng, "SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {o}.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL "
                             "ORDER BY CONTAINER_ID")[0]
    a = _answer(eng, f"set point of {number} in fahrenheit?")
    assert f"{temp * 9 / 5 + 32:.1f}".rstrip("0").rstrip(".") in a.text and "°F" in a.text, a.text
    name, knots = _one(eng, "SELECT s.VESSEL_NAME, p.SPEED_KNOTS FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS s "
                            "ON s.IMO_NUMBER = p.IMO_NUMBER WHERE s.IMO_NUMBER IN (SELECT IMO_NUMBER FROM "
                            "{o}.VESSEL_POSITIONS GROUP BY IMO_NUMBER HAVING COUNT(*) = 1) ORDER BY s.VESSEL_NAME")[0]
    a = _answer(eng, f"{name}'s speed in mph?")
    assert f"{to_stored_precision(knots * 1.15078, knots)}" in a.text and "mph" in a.text, a.text


def test_a_contraction_is_plain_english(eng):
    name, year = _one(eng, "SELECT VESSEL_NAME, YEAR_BUILT FROM {o}.VESSELS ORDER BY YEAR_BUILT DESC, VESSEL_NAME")[0]
    a = _answer(eng, "what's the newest vessel we've got?")
    assert name in a.text and str(year) in a.text, a.text


def test_a_column_owned_by_a_word_of_its_comment(eng):
    # the one column of the table named whose comment alone has the word (here: "dangerous", said "hazardous")
    assert assistant.schema_subjects(eng, "which field says if a manifest line is hazardous?") == ["CARGO_ITEMS.UN_NUMBER"]
    assert assistant.schema_subjects(eng, "which table has the dangerous goods lines?") != ["CARGO_ITEMS.UN_NUMBER"]


def test_a_column_question_is_declined_when_the_column_does_not_explain_what_is_asked(eng):
    from workshop_lib.assistant.answering.answer import answer_question
    # words that no comment of the schema uses: each column question about them is declined, whatever it leads with
    schema, _ = assistant.knowledge(eng)
    for thing in ("seal number of a container", "crew size of a vessel", "customs status of a box"):
        assert any(w in thing.split() for w in assistant.not_explained_by(eng, thing, "CONTAINERS.CONTAINER_NUMBER"))
        a = answer_question(eng, f"which column has the {thing}?")
        assert a.mode == "fallback" and "says nothing about" in a.answer, (thing, a.answer)
    # what a column's own comment says is explained by it, in other words too
    assert assistant.not_explained_by(eng, "which field is the set-point temperature?", "CONTAINERS.REEFER_TEMP_C") == []
    assert assistant.not_explained_by(eng, "which column joins voyages to vessels?", "VOYAGES.IMO_NUMBER") == []


def test_what_the_comments_say_is_not_held_is_no_query(eng):
    schema, _ = assistant.knowledge(eng)
    # read from the comments: every word listed comes from a sentence that says the data does not hold it
    assert schema.unmodelled and all(re.search(r"\bnot (?:modell?ed|stored|recorded)\b", s) for s in schema.unmodelled.values())
    name, number = _one(eng, "SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                             "ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY v.VOYAGE_ID")[0]
    a = assistant.answer_data(eng, f"which ports does {name} call at in between on {number}?")
    assert a.text is None and "not modelled" in (a.reason or ""), a.text


def test_who_asks_for_someone_named(eng):
    number, = _one(eng, "SELECT c.CONTAINER_NUMBER FROM {o}.CONTAINERS c ORDER BY c.CONTAINER_ID")[0]
    a = assistant.answer_data(eng, f"who's the shipper of the goods in {number}?")
    assert a.text is None, a.text  # no row of the data names a shipper
    carrier, vessel = _one(eng, "SELECT c.CARRIER_NAME, v.VESSEL_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                                "ON c.CARRIER_ID = v.CARRIER_ID ORDER BY v.IMO_NUMBER")[0]
    assert carrier in _answer(eng, f"who operates the {vessel}?").text


def test_which_of_two_is_bigger_and_by_how_much(eng):
    (a, x), (b, y) = _one(eng, "SELECT VESSEL_NAME, CAPACITY_TEU FROM {o}.VESSELS ORDER BY CAPACITY_TEU DESC")[:2]
    text = _answer(eng, f"which one's bigger in TEU, {b} or {a}, and by how many TEU?").text
    assert text.startswith(a) and str(x - y) in text.replace(",", ""), text


def test_a_day_range_a_group_named_by_its_noun_and_cargo_lines(eng):
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE ARRIVAL_DATE BETWEEN '2025-06-03' AND '2025-06-05'")[0]
    a = _answer(eng, "how many voyages have an arrival date from 3 to 5 June inclusive?")
    assert re.search(rf"\b{n}\b", a.text), a.text
    alliance, = _one(eng, "SELECT ALLIANCE FROM {o}.CARRIERS WHERE ALLIANCE IS NOT NULL GROUP BY ALLIANCE "
                          "HAVING COUNT(*) >= 2 ORDER BY ALLIANCE")[0]
    rows = _one(eng, "SELECT c.CARRIER_NAME, SUM(v.CAPACITY_TEU) FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                     f"ON c.CARRIER_ID = v.CARRIER_ID WHERE c.ALLIANCE = '{alliance}' GROUP BY c.CARRIER_NAME")
    text = _answer(eng, f"total TEU capacity for each {alliance} carrier?").text
    assert all(name in text and f"{teu:,}" in text for name, teu in rows), text
    kg, = _one(eng, "SELECT SUM(GROSS_WEIGHT_KG) FROM {o}.CARGO_ITEMS WHERE UPPER(DESCRIPTION) LIKE '%SHRIMP%'")[0]
    text = _answer(eng, "total gross weight of all the shrimp lines, in tonnes").text
    assert "cargo item" in text and f"{kg / 1000:,.2f}" in text, text


def test_a_value_named_by_the_first_part_of_a_hyphenated_word(eng):
    numbers = {r[0] for r in _one(eng, "SELECT DISTINCT c.CONTAINER_NUMBER FROM {o}.CARGO_ITEMS i JOIN {o}.CONTAINERS c "
                                       "ON c.CONTAINER_ID = i.CONTAINER_ID WHERE i.DESCRIPTION LIKE 'Lithium-ion%'")}
    text = _answer(eng, "which boxes are carrying lithium batteries?").text
    assert numbers and all(n in text for n in numbers), text


def test_more_of_one_value_or_another_counts_each(eng):
    rows = dict(_one(eng, "SELECT STATUS, COUNT(*) FROM {o}.VOYAGES GROUP BY STATUS"))
    a, b = sorted(rows)[:2]
    text = _answer(eng, f"do we have more {a.lower()} voyages or more {b.lower()} ones?").text
    assert f"{a}: {rows[a]}" in text and f"{b}: {rows[b]}" in text, text


def test_the_noun_after_which_is_what_is_asked_for(eng):
    vid, = _one(eng, "SELECT VOYAGE_ID FROM {o}.CONTAINERS WHERE SIZE_TYPE NOT IN ('20RF', '40RF') "
                     "GROUP BY VOYAGE_ID HAVING COUNT(*) >= 2 ORDER BY VOYAGE_ID")[0]
    boxes = {r[0] for r in _one(eng, f"SELECT CONTAINER_NUMBER FROM {{o}}.CONTAINERS WHERE VOYAGE_ID = {vid} "
                                     "AND SIZE_TYPE NOT IN ('20RF', '40RF')")}
    text = _answer(eng, f"on voyage {vid} which of the boxes are not reefers?").text
    assert all(b in text for b in boxes), text


def test_a_kind_of_row_counted_and_capacity_is_not_what_is_loaded(eng):
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF')")[0]
    assert re.search(rf"\b{n}\b", _answer(eng, "number of reefers across all the manifests?").text)
    vid, k = _one(eng, "SELECT VOYAGE_ID, COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF') "
                       "GROUP BY VOYAGE_ID ORDER BY 2 DESC, 1")[0]
    text = _answer(eng, f"ok, reefers only now: how many on voyage {vid}?").text
    assert re.search(rf"\b{k}\b", text) and "container" in text, text
    # the TEU loaded are the boxes' (from their sizes), never the ship's capacity
    sizes = [r[0] for r in _one(eng, f"SELECT SIZE_TYPE FROM {{o}}.CONTAINERS WHERE VOYAGE_ID = {vid}")]
    a = assistant.answer_data(eng, f"How many TEU are loaded on voyage {vid}?")
    assert a.text is not None and a.plan is not None
    assert f"{sum(1 if s.startswith('20') else 2 for s in sizes)} TEU" in a.text and "CAPACITY" not in a.plan.sql
    assert "capacity" in _answer(eng, f"what's the TEU capacity of the ship on voyage {vid}?").text


def test_the_sentence_read_from_a_document_is_chosen_by_what_is_asked_not_by_its_title():
    from workshop_lib.assistant import document_reader
    text = ("# Incident report IR-1: Smoke in hold 2\n\nVessel: Sea Lark (IMO 9000001), voyage 12N, Genoa (ITGOA) to Tunis\n\n"
            "Smoke was seen in hold 2 at night. The crew sealed it and the vessel diverted to Malta for inspection.")
    reading = document_reader.read("After the smoke, where did the Sea Lark divert to?", [{"subject": "d", "text": text}])
    assert reading.sentence is not None and "Malta" in reading.sentence
    spanish = ("# Reclamación CL-1: Retraso\n\nBuque: Mar Azul\n\nEl destinatario reclama los costes del retraso. "
               "El destinatario pide una compensación. Ofrecemos, como gesto comercial, cinco días de almacenaje gratuito.")
    reading = document_reader.read("En la reclamación CL-1, ¿qué se le ofrece al destinatario?",
                                   [{"subject": "d", "text": spanish}])
    assert reading.sentence is not None and "cinco" in reading.sentence


def test_idioms_that_ask_nothing_more_and_a_break_down_by_a_column(eng):
    vid, = _one(eng, "SELECT VOYAGE_ID FROM {o}.CONTAINERS GROUP BY VOYAGE_ID HAVING COUNT(DISTINCT SIZE_TYPE) >= 2 "
                     "ORDER BY VOYAGE_ID")[0]
    rows = _one(eng, f"SELECT SIZE_TYPE, COUNT(*) FROM {{o}}.CONTAINERS WHERE VOYAGE_ID = {vid} GROUP BY SIZE_TYPE")
    text = _answer(eng, f"break down the boxes on voyage {vid} by size type").text
    assert all(f"{t}: {n}" in text for t, n in rows), text
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF')")[0]
    assert re.search(rf"\b{n}\b", _answer(eng, "total number of reefer boxes, 20s and 40s together?").text)
    number, kg = _one(eng, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {o}.CONTAINERS ORDER BY CONTAINER_ID")[0]
    assert f"{kg / 1000:,.2f} tonnes" in _answer(eng, f"VGM of {number} in metric tons?").text


def test_sailing_now_that_one_query_cannot_tie_to_a_ports_voyages_is_declined(eng):
    port, = _one(eng, "SELECT p.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                      "GROUP BY p.PORT_NAME HAVING COUNT(DISTINCT v.STATUS) >= 2 ORDER BY p.PORT_NAME")[0]
    a = assistant.answer_data(eng, f"which carriers have a ship currently on its way to {port}?")
    assert a.text is None, a.text


def test_a_tables_noun_used_as_a_verb_names_no_rows(eng):
    for question in ("and what do they ship?", "what did we ship"):
        a = assistant.answer_data(eng, question)
        assert a.text is None, (question, a.text)
    carrier, = _one(eng, "SELECT CARRIER_NAME FROM {o}.CARRIERS ORDER BY CARRIER_ID")[0]
    assert _answer(eng, f"which ships does {carrier} operate?").plan.spec.target == "VESSELS"


def test_a_carrier_by_the_first_two_words_of_its_name(eng):
    name, scac = next((n, s) for n, s in _one(eng, "SELECT CARRIER_NAME, SCAC_CODE FROM {o}.CARRIERS ORDER BY CARRIER_ID")
                      if len(n.split()) >= 3 and n.split()[0][0].isupper() and n.split()[1][0].isupper())
    two = " ".join(name.split()[:2])
    assert scac in _answer(eng, f"SCAC for {two}?").text


def test_a_second_part_about_a_named_ship_is_asked_with_its_name(eng):
    name, year, carrier = _one(eng, "SELECT v.VESSEL_NAME, v.YEAR_BUILT, c.CARRIER_NAME FROM {o}.VESSELS v "
                                    "JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID ORDER BY v.IMO_NUMBER")[2]
    a = _answer(eng, f"What year was the {name} built and who operates her?")
    assert str(year) in a.text and carrier in a.text and a.uncovered is None, a.text


def test_where_a_voyage_starts_and_ends(eng):
    vid, origin, dest = _one(eng, "SELECT v.VOYAGE_ID, o.PORT_NAME, d.PORT_NAME FROM {o}.VOYAGES v "
                                  "JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                  "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID ORDER BY v.VOYAGE_ID")[7]
    text = _answer(eng, f"Voyage {vid}: where did it start and where did it end?").text
    assert origin in text and dest in text, text
    assert dest in _answer(eng, f"where does voyage {vid} end?").text


def test_the_end_of_a_month_and_due_to_sail(eng):
    rows = {r[0] for r in _one(eng, "SELECT VOYAGE_NUMBER FROM {o}.VOYAGES WHERE DEPARTURE_DATE BETWEEN '2025-06-16' "
                                    "AND '2025-06-30'")}
    text = _answer(eng, "anything due to sail between the 16th and the end of June? voyage numbers pls").text
    assert rows and all(n in text for n in rows) and "departing" in text, text


def test_how_many_of_a_unit_is_a_figure_not_a_count(eng):
    from workshop_lib.assistant.answering.answer import answer_question
    name, dwt = _one(eng, "SELECT VESSEL_NAME, DEADWEIGHT_TONNES FROM {o}.VESSELS ORDER BY IMO_NUMBER")[4]
    a = answer_question(eng, f"how many tons can the {name} carry?")
    assert a.mode == "rag" and f"{dwt:,}" in a.answer, a.answer
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS")[0]
    assert re.search(rf"\b{n}\b", _answer(eng, "how many vessels are there?").text)


def test_a_total_of_line_values_per_row_and_a_category_by_its_first_word(eng):
    number, cents = _one(eng, "SELECT c.CONTAINER_NUMBER, SUM(i.QUANTITY * i.UNIT_VALUE_CENTS) FROM {o}.CARGO_ITEMS i "
                              "JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = i.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
                              "ORDER BY 2 DESC")[0]
    text = _answer(eng, "which single container has the most valuable cargo on board, and what's it worth in dollars?").text
    assert number in text and f"{cents / 100:,.2f}" in text, text
    vid, total = _one(eng, "SELECT c.VOYAGE_ID, SUM(i.QUANTITY * i.UNIT_VALUE_CENTS) FROM {o}.CARGO_ITEMS i "
                           "JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = i.CONTAINER_ID GROUP BY c.VOYAGE_ID ORDER BY 2 DESC")[0]
    text = _answer(eng, "total declared value per voyage").text
    assert f"{total / 100:,.2f}" in text, text
    alliance, = _one(eng, "SELECT ALLIANCE FROM {o}.CARRIERS WHERE ALLIANCE LIKE '% %' GROUP BY ALLIANCE ORDER BY 1")[0]
    name, year = _one(eng, "SELECT v.VESSEL_NAME, v.YEAR_BUILT FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = "
                           f"v.CARRIER_ID WHERE c.ALLIANCE = '{alliance}' ORDER BY v.YEAR_BUILT, v.VESSEL_NAME")[0]
    text = _answer(eng, f"oldest vessel run by a {alliance.split()[0]} carrier").text
    assert name in text and str(year) in text, text


def test_ports_at_either_end_of_a_ships_voyages_and_a_voyage_that_ends_up_somewhere(eng):
    name, both, left = _one(eng, "SELECT s.VESSEL_NAME, (SELECT COUNT(*) FROM (SELECT ORIGIN_PORT_ID FROM {o}.VOYAGES "
                                 "WHERE IMO_NUMBER = s.IMO_NUMBER UNION SELECT DESTINATION_PORT_ID FROM {o}.VOYAGES "
                                 "WHERE IMO_NUMBER = s.IMO_NUMBER)), (SELECT COUNT(DISTINCT ORIGIN_PORT_ID) FROM "
                                 "{o}.VOYAGES WHERE IMO_NUMBER = s.IMO_NUMBER) FROM {o}.VESSELS s ORDER BY 2 DESC, 1")[0]
    assert both != left  # the two readings differ for this ship: the test tells them apart
    assert re.search(rf"\b{both} ports\b", _answer(eng, f"how many different ports has the {name} sailed from or to?").text)
    assert re.search(rf"\b{left} ports\b", _answer(eng, f"how many ports does the {name} depart from?").text)
    port, n = _one(eng, "SELECT p.PORT_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = "
                        "v.DESTINATION_PORT_ID GROUP BY p.PORT_NAME ORDER BY 2 DESC, 1")[0]
    assert re.search(rf"\b{n} voyages to {port}", _answer(eng, f"how many voyages end up in {port}?").text)


def test_which_one_with_nothing_that_chooses_is_no_list_and_below_zero_is_negative(eng):
    assert assistant.answer_data(eng, "Which container?").plan is None
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE REEFER_TEMP_C < 0")[0]
    assert re.search(rf"\b{n} containers\b", _answer(eng, "How many reefers are set below zero?").text)
    imo, name = _one(eng, "SELECT IMO_NUMBER, VESSEL_NAME FROM {o}.VESSELS ORDER BY IMO_NUMBER")[3]
    assert name in _answer(eng, f"what vessel has IMO {imo}?").text


def test_a_voyage_number_shared_by_two_voyages_shows_each_ones_vessel(eng):
    number, = _one(eng, "SELECT VOYAGE_NUMBER FROM {o}.VOYAGES GROUP BY VOYAGE_NUMBER HAVING COUNT(*) > 1 ORDER BY 1")[0]
    ships = [r[0] for r in _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = "
                                     f"v.IMO_NUMBER WHERE v.VOYAGE_NUMBER = '{number}'")]
    text = _answer(eng, f"where's voyage {number} headed?").text
    assert all(s in text for s in ships), text


def test_a_length_narrows_the_codes_a_word_names_and_a_negative_number_is_the_set_points(eng):
    avg, = _one(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40RF' AND REEFER_TEMP_C = -18")[0]
    text = _answer(eng, "What's the average VGM of the 40ft reefers running at -18, in kg?").text
    assert f"{avg:,.2f}" in text, text
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE LIKE '20%'")[0]
    assert re.search(rf"\b{n} containers\b", _answer(eng, "how many 20-footers are there?").text)


def test_a_ship_shown_is_the_ship_its_filter_names_and_its_name_answers_what_it_is_called(eng):
    number, carrier, ship = _one(eng, "SELECT v.VOYAGE_NUMBER, c.CARRIER_NAME, s.VESSEL_NAME FROM {o}.VOYAGES v JOIN "
                                      "{o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.CARRIERS c ON c.CARRIER_ID = "
                                      "s.CARRIER_ID WHERE (SELECT COUNT(*) FROM {o}.VESSELS x WHERE x.CARRIER_ID = "
                                      "c.CARRIER_ID) > 1 AND (SELECT COUNT(*) FROM {o}.VOYAGES y WHERE y.VOYAGE_NUMBER = "
                                      "v.VOYAGE_NUMBER) = 1 ORDER BY v.VOYAGE_ID")[0]
    others = [r[0] for r in _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VESSELS s JOIN {o}.CARRIERS c ON c.CARRIER_ID = "
                                      f"s.CARRIER_ID WHERE c.CARRIER_NAME = '{carrier}' AND s.VESSEL_NAME <> '{ship}'")]
    a = _answer(eng, f"Which carrier runs the ship doing voyage {number}, and what's the ship called?")
    assert carrier in a.text and ship in a.text and not any(o in a.text for o in others), a.text
    assert a.uncovered is None


def test_a_superlative_said_of_rows_that_hold_no_such_figure_is_no_plan(eng):
    # a voyage has no length: "the longest" is its days from departure to arrival, never its ship's length
    plan = assistant.answer_data(eng, "which scheduled voyage is the longest?").plan
    assert plan is not None and plan.spec.measure.name == "DURATION_DAYS" and "LENGTH_M" not in plan.sql, plan
    # a ship's latest position report is the ship's own (one per ship): its speed orders ships
    name, = _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS s ON s.IMO_NUMBER = "
                      "p.IMO_NUMBER ORDER BY p.SPEED_KNOTS DESC, s.VESSEL_NAME")[0]
    assert name in _answer(eng, "which ship is going fastest at the moment?").text


def test_a_port_shown_for_a_box_is_the_end_of_its_voyage_the_words_say(eng):
    number, origin, dest = _one(eng, "SELECT k.CONTAINER_NUMBER, o.PORT_NAME, d.PORT_NAME FROM {o}.CONTAINERS k JOIN "
                                     "{o}.VOYAGES v ON v.VOYAGE_ID = k.VOYAGE_ID JOIN {o}.PORTS o ON o.PORT_ID = "
                                     "v.ORIGIN_PORT_ID JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                                     "ORDER BY k.CONTAINER_ID")[5]
    text = _answer(eng, f"when does container {number} leave port - departure date and from where?").text
    assert origin in text and dest not in text, text
    # a port of the box with no end said: no guess
    assert assistant.answer_data(eng, f"which port is container {number} at?").plan is None


def test_a_pronoun_with_nothing_that_names_its_row_lists_no_table_and_whose_asks_who(eng):
    assert assistant.answer_data(eng, "who operates it?").plan is None
    a = assistant.answer_data(eng, "and the shrimp on the Manulani, whose cargo was that again?")
    assert a.text is None or a.uncovered is not None  # the cargo lines name nobody: never the whole answer


def test_what_a_code_means_is_no_average(eng):
    # "mean" the verb asks a meaning (the schema's); "mean" the noun still asks an average
    assert assistant.answer_data(eng, "what does package type PX mean in the cargo lines").plan is None
    avg, = _one(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS")[0]
    assert f"{avg:,.2f}" in _answer(eng, "mean gross weight of the containers?").text


def test_a_role_is_a_party_and_a_wait_asked_in_spanish_is_a_duration():
    from workshop_lib.assistant import document_reader
    from workshop_lib.assistant.answering import router
    sop = ("# SOP-X: Claims\n\n## Settlement\nClaims are paid in USD. Settlements above USD 10,000 need the "
           "approval of the finance director. Payment follows within 30 days.")
    reading = document_reader.read("Who has to sign off on a settlement over USD 10k?", [{"subject": "d", "text": sop}])
    assert reading.kind == "person" and reading.sentence is not None and "finance director" in reading.sentence
    notice = ("# Aviso: congestión\n\nLa terminal registra esperas de hasta 20 horas para los buques sin ventana. "
              "La tarifa de almacenaje es de 40 EUR por día.")
    reading = document_reader.read("¿Cuánto están esperando los buques sin ventana?", [{"subject": "d", "text": notice}])
    assert reading.kind == "duration" and reading.sentence is not None and "20 horas" in reading.sentence
    # French and Spanish function words say the question is not English (only the documents are)
    assert router.FOREIGN_RE.search("Combien de temps à l'avance faut-il réserver ?")
    assert router.FOREIGN_RE.search("¿Cuántos días hay para notificar?")
    assert not router.FOREIGN_RE.search("How long do trucks have to book a slot in advance?")


def test_how_many_of_a_thing_needs_a_number_of_that_thing():
    from workshop_lib.assistant import document_reader
    report = ("# Report R-1: Fire in hold 2\n\nVessel: Sea Lark (IMO 9000001), voyage 12N\n\nSmoke was seen in hold 2 "
              "at 03:10. The crew sealed it.")
    reading = document_reader.read("How many containers were damaged in the hold 2 fire?", [{"subject": "d", "text": report}])
    assert reading.sentence is None  # the IMO number and the hour count no containers
    lost = report + " Four boxes of bay 12 were lost overboard."
    reading = document_reader.read("how many containers were lost?", [{"subject": "d", "text": lost}])
    assert reading.sentence is not None and "Four boxes" in reading.sentence


# ---------------------------------------------------------------- what a document sentence must hold
def _read(question: str, text: str):
    from workshop_lib.assistant import document_reader
    return document_reader.read(question, [{"subject": "d", "text": text}])


def test_a_duration_written_in_words_a_numbered_place_and_a_money_noun_are_answers():
    notice = ("# Aviso\n\nEl puerto ofrece, por la huelga, cinco días de almacenaje sin cargo. Los muelles 7 y 8 "
              "quedan cerrados hasta nuevo aviso.")
    reading = _read("¿Cuántos días de almacenaje sin cargo ofrece el puerto?", notice)
    assert reading.kind == "duration" and "cinco días" in (reading.sentence or "")
    sop = ("# SOP\n\nDrums of class 3 go on deck, away from the accommodation. Our liability is capped at "
           "8.33 SDR per kilogram. Missing a filing can cost a fine of up to USD 2,500.")
    assert "on deck" in (_read("where are class 3 drums stowed?", sop).sentence or "")
    assert "8.33 SDR" in (_read("what's our liability cap per kilo?", sop).sentence or "")
    assert "USD 2,500" in (_read("how big can the fine for a missed filing be", sop).sentence or "")
    closed = "The storm damaged the crane rails. Berths 7 and 8 are closed until further notice."
    assert "Berths 7 and 8" in (_read("which berths are shut after the storm?", closed).sentence or "")


def test_a_cut_off_asks_a_time_and_only_an_anchored_duration_says_when():
    guide = ("# Carrier guide\n\n| Cut-off | When |\n| --- | --- |\n| Dry cargo gate-in | 24 hours before berthing |\n\n"
             "The terminal then works over the next ten hours to load the ship.")
    reading = _read("dry cargo gate-in cut-off?", guide)
    assert reading.kind == "date" and "24 hours before berthing" in (reading.sentence or "")
    # "over the next ten hours" is how long something lasts, not when
    assert _read("when does the terminal load the ship?", guide).sentence is None


def test_the_unit_alone_is_no_subject_and_a_size_written_as_digits_counts():
    claim = "The receiver claims the cost of a delay of nine days. Storage stays free for another four days."
    assert _read("how many days does a shipper have to report lost boxes?", claim).sentence is None
    tariff = ("| Size | Charge |\n| --- | --- |\n| Dry 20' | EUR 60 per day |\n| Dry 40' | EUR 95 per day |")
    assert "40'" in (_read("what's the daily charge for a 40' dry box?", tariff).sentence or "")
    percent = "# Hinweis\n\nDie Einfuhr wird verzollt. Die Anmeldung erfolgt elektronisch."
    assert _read("Welchen Prozentsatz hat die Steuer?", percent).sentence is None  # no share is stated


@pytest.fixture(scope="module")
def docs_eng(tmp_path_factory):
    from workshop_lib.parts.ingest import pipeline
    engine = answers_engine("embedded", tmp_path_factory.mktemp("assistant-docs"))
    pipeline.ingest(engine, profile="v2", progress=False, promote=True)
    yield engine
    engine.close()


def test_when_every_handler_falls_back_the_nearest_document_answers_only_what_it_states(docs_eng):
    from workshop_lib.assistant.answering.answer import answer_question
    from workshop_lib.parts.ingest import index

    # the router takes a carrier fee for a data question; no query answers it; the carrier's guide does
    a = answer_question(docs_eng, "Hapag-Lloyd fee for switching the port of discharge once the box is loaded?")
    assert a.mode == "hybrid" and a.decision_explain["reason"].startswith("no handler answered")
    assert "hapag" in a.used_chunks[0]["subject"]
    stated = re.search(r"USD [\d,]+", a.answer)
    # ...and the figure is the one the guide itself writes
    assert stated is not None and stated.group(0) in " ".join(h["text"] for h in index.document(docs_eng, a.used_chunks[0]["subject"]))
    # a data question whose words the schema's comments explain is not read from a document
    b = answer_question(docs_eng, "which vessel reported its position first, and when?")
    assert not b.answer.startswith("According to")


def test_a_named_ship_asked_when_it_is_due_reads_its_voyages(eng):
    vessel, port, arrival = _one(eng, "SELECT s.VESSEL_NAME, p.PORT_NAME, v.ARRIVAL_DATE FROM {o}.VOYAGES v "
                                 "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p "
                                 "ON p.PORT_ID = v.DESTINATION_PORT_ID WHERE v.STATUS = 'ACTIVE' "
                                 "ORDER BY v.VOYAGE_ID DESC")[0]
    a = _answer(eng, f"when is the {vessel} due at {port}?")
    assert str(arrival)[:10] in a.text and "VOYAGES" in a.plan.sql
    # "due to sail" is a plan to leave, not an arrival
    sail = assistant.answer_data(eng, f"is the {vessel} due to sail this month?").plan
    assert sail is None or "ARRIVAL_DATE" not in sail.sql


def test_a_span_of_days_named_twice_with_its_month_is_one_range_and_shows_each_day(eng):
    rows = _one(eng, "SELECT VOYAGE_NUMBER, ARRIVAL_DATE FROM {o}.VOYAGES "
                     "WHERE ARRIVAL_DATE BETWEEN '2025-06-02' AND '2025-06-09'")
    assert rows
    a = _answer(eng, "which voyages are arriving between June 2 and June 9?")
    for number, arrival in rows:
        assert number in a.text and str(arrival)[:10] in a.text
    b = _answer(eng, "how many voyages arrive from 2 June to 9 June")
    assert re.search(rf"\b{len(rows)}\b", b.text)


def test_two_names_of_the_rows_above_compared_by_more_count_the_rows_of_each(eng):
    counts = dict(_one(eng, "SELECT c.CARRIER_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON "
                            "s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.CARRIERS c ON c.CARRIER_ID = s.CARRIER_ID "
                            "WHERE c.CARRIER_NAME IN ('Maersk', 'Matson') GROUP BY c.CARRIER_NAME"))
    a = _answer(eng, "has Matson or Maersk got more sailings?")
    assert a.plan.spec.action == "group"
    for name, n in counts.items():
        assert re.search(rf"{name}: {n}\b", a.text)


def test_a_unit_said_alone_at_the_end_is_the_unit_asked(eng):
    kg = _one(eng, "SELECT SUM(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE VOYAGE_ID = 1014")[0][0]
    a = _answer(eng, "total gross weight of the boxes on voyage 1014, tonnes")
    assert f"{kg / 1000:,.2f} tonnes" in a.text


def test_a_second_part_that_names_nothing_asks_about_the_record_the_first_named(eng):
    vessel, arrival = _one(eng, "SELECT s.VESSEL_NAME, v.ARRIVAL_DATE FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                                "ON s.IMO_NUMBER = v.IMO_NUMBER WHERE v.VOYAGE_NUMBER = '787E'")[0]
    a = _answer(eng, "voyage 787E - which vessel, and what's the arrival date?")
    assert a.uncovered is None and vessel in a.text and str(arrival)[:10] in a.text


def test_a_column_whose_comment_explains_every_word_asked_answers_where_a_thing_is_kept(eng):
    from workshop_lib.assistant.answering.answer import answer_question
    a = answer_question(eng, "which field keeps the four-letter code that goes on bills of lading?")
    assert a.mode == "rag" and a.used_chunks[0]["subject"].endswith("CARRIERS.SCAC_CODE")
    # a word no column's comment explains is still declined, not answered by the nearest column
    b = answer_question(eng, "which field keeps the customs broker's licence number?")
    assert b.mode == "fallback"


def test_function_words_of_the_corpus_languages_do_not_choose_the_sentence():
    letter = ("# Reclamación R-9\n\nEl envío llegó con retraso. Posición: no pagamos por retrasos. Ofrecemos un "
              "descuento del 10 % en el próximo envío.")
    reading = _read("En la reclamación R-9 por retraso, ¿qué se le ofrece?", letter)
    assert reading.sentence is not None and reading.sentence.startswith("Ofrecemos")


def test_a_question_pointing_back_at_the_one_record_the_message_named_asks_about_it(eng):
    number, size = _one(eng, "SELECT CONTAINER_NUMBER, SIZE_TYPE FROM {o}.CONTAINERS ORDER BY CONTAINER_ID DESC")[0]
    a = _answer(eng, f"morning! box {number} is the one we booked for the Kessler account, fyi. what type is it?")
    assert size in a.text and number in a.text
    # a time in the other sentences would be dropped: no reading then
    assert assistant._about_the_record_told(eng, f"box {number} was re-booked last Tuesday.", "what type is it?") is None
    assert assistant._about_the_record_told(eng, f"box {number} is ours.", "what type is it?") is not None


def test_rows_no_row_below_points_at_by_the_end_the_words_name(eng):
    never_in = {r[0] for r in _one(eng, "SELECT PORT_NAME FROM {o}.PORTS p WHERE NOT EXISTS (SELECT 1 FROM {o}.VOYAGES v "
                                        "WHERE v.DESTINATION_PORT_ID = p.PORT_ID)")}
    unused = {r[0] for r in _one(eng, "SELECT PORT_NAME FROM {o}.PORTS p WHERE NOT EXISTS (SELECT 1 FROM {o}.VOYAGES v "
                                      "WHERE v.DESTINATION_PORT_ID = p.PORT_ID OR v.ORIGIN_PORT_ID = p.PORT_ID)")}
    silent = {r[0] for r in _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS s WHERE NOT EXISTS "
                                      "(SELECT 1 FROM {o}.VESSEL_POSITIONS p WHERE p.IMO_NUMBER = s.IMO_NUMBER)")}
    assert never_in != unused and silent  # the data tells the two ends apart
    for question, expected in (("which ports does no sailing ever end up in?", never_in),
                               ("any port that no voyage leaves from or arrives at, at all?", unused),
                               ("ships that have no AIS report on file right now", silent)):
        a = _answer(eng, question)
        assert "NOT EXISTS" in a.plan.sql and all(name in a.text for name in expected), question
    # a narrowing of the rows said to be missing cannot go inside one query: no plan, not a wider answer
    assert assistant.answer_data(eng, "ports with no voyage arriving in June?").text is None
    # a word that names a column of its own is another question
    assert assistant.answer_data(eng, "which carriers have no ships flagged in their own HQ country?").text is None


def test_a_service_asked_for_by_what_it_does_is_the_catalogs_even_with_documents(docs_eng):
    from workshop_lib.assistant import catalog_links
    from workshop_lib.assistant.answering.answer import answer_question
    assert catalog_links.asks_for_item("who can clear our goods through customs for us?")
    assert not catalog_links.asks_for_item("who can see the claims in this system?")
    a = answer_question(docs_eng, "who could handle filing our import declaration and paying the duties?")
    assert a.mode == "rag" and a.decision_explain["handler"].startswith(("grounded", "catalog"))
    assert "SV-CUSTOMS" in a.answer


def test_when_with_a_port_at_one_end_and_no_verb_of_it_asks_the_date_of_that_end(eng):
    # the port a question filters on says which date "when" asks: the destination's is the arrival
    vessel, number, dest, arrival, origin, departure = _one(
        eng, "SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER, d.PORT_NAME, v.ARRIVAL_DATE, o.PORT_NAME, v.DEPARTURE_DATE "
             "FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
             "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
             "WHERE v.STATUS = 'SCHEDULED' ORDER BY v.VOYAGE_ID DESC")[0]
    a = _answer(eng, f"When does the {vessel} on {number} get into {dest}?")
    assert str(arrival)[:10] in a.text and str(departure)[:10] not in a.text, a.text
    # a ship reached through the box it carries: the voyage between them holds the date
    box, = _one(eng, "SELECT c.CONTAINER_NUMBER FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                     f"WHERE v.VOYAGE_NUMBER = '{number}' AND v.IMO_NUMBER = (SELECT IMO_NUMBER FROM {{o}}.VESSELS "
                     f"WHERE VESSEL_NAME = '{vessel}') ORDER BY c.CONTAINER_ID")[0]
    a = _answer(eng, f"When did the ship carrying {box} leave {origin}?")
    assert str(departure)[:10] in a.text and vessel in a.text, a.text


def test_a_box_for_goods_no_description_names_is_the_box_the_data_carries_them_in(eng):
    # the goods, and the size type most of their containers have, come from the data
    goods, size_type = _one(eng, "SELECT i.DESCRIPTION, c.SIZE_TYPE FROM {o}.CARGO_ITEMS i JOIN {o}.CONTAINERS c "
                                 "ON c.CONTAINER_ID = i.CONTAINER_ID WHERE i.DESCRIPTION LIKE '%banana%' "
                                 "GROUP BY i.DESCRIPTION, c.SIZE_TYPE ORDER BY COUNT(*) DESC")[0]
    assert size_type.endswith("RF")
    a = answer_question(eng, "what box would you suggest for bananas?")
    assert a.mode == "rag" and "EQ-40RH" in a.answer and size_type in a.answer, a.answer
    # the SIZE_TYPE comment's codes lead to the catalog's box of that length and kind
    schema, _ = assistant.knowledge(eng)
    comment = next(c.comment for c in schema.columns["CONTAINERS"] if c.name == "SIZE_TYPE")
    kinds = goods_boxes.kinds_of_box(comment)
    assert {code: goods_boxes.item_of(code, kinds).item_id for code in ("20GP", "40GP", "40HC", "20RF", "40RF")} == \
        {"20GP": "EQ-20DV", "40GP": "EQ-40DV", "40HC": "EQ-40HC", "20RF": "EQ-20RF", "40RF": "EQ-40RH"}
    # a service asked for the same goods is no box; a record of the data named is not the catalog's
    assert goods_boxes.box_for_goods(eng, "who can handle the paperwork for a banana shipment?") is None
    assert goods_boxes.box_for_goods(eng, "what box do you recommend for unobtainium?") is None


def test_rows_said_before_by_a_column_are_counted_per_group_unless_the_by_orders_them(eng):
    counts = dict(_one(eng, "SELECT STATUS, COUNT(*) FROM {o}.VOYAGES GROUP BY STATUS"))
    for q in ("Break down the voyages by status for me.", "sailings by status?"):
        a = _answer(eng, q)
        assert a.plan is not None and "GROUP BY" in a.plan.sql, (q, a.plan and a.plan.sql)
        assert all(f"{s}: {n}" in a.text for s, n in counts.items()), a.text
    # a ranking or a listing by a column is no group, nor is the agent of a verb ("operated by")
    for q in ("the 3 heaviest boxes by VGM", "list voyages by departure date",
              "which vessels are operated by Ocean Alliance carriers?"):
        plan = assistant.answer_data(eng, q).plan
        assert plan is None or "GROUP BY" not in plan.sql, (q, plan.sql)


def test_two_ports_joined_by_or_are_compared_at_the_same_end_not_taken_as_a_route(eng):
    rows = _one(eng, "SELECT p.PORT_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                     "GROUP BY p.PORT_NAME ORDER BY COUNT(*) DESC, p.PORT_NAME")[:2]
    (a_port, a_n), (b_port, b_n) = rows
    a = _answer(eng, f"did more voyages leave from {a_port} or from {b_port}?")
    assert a.plan is not None and "ORIGIN_PORT_ID" in a.plan.sql and "DESTINATION_PORT_ID" not in a.plan.sql, a.plan
    assert f"{a_port}: {a_n}" in a.text and f"{b_port}: {b_n}" in a.text, a.text
    # "from A to B" is still a route
    route = assistant.answer_data(eng, f"voyages from {a_port} to {b_port}?").plan
    assert route is not None and "ORIGIN_PORT_ID" in route.sql and "DESTINATION_PORT_ID" in route.sql, route


def test_what_an_answer_is_for_is_left_out_of_the_question(eng):
    vessel, imo = _one(eng, "SELECT VESSEL_NAME, IMO_NUMBER FROM {o}.VESSELS ORDER BY VESSEL_NAME")[0]
    for q in (f"I need the IMO number of the {vessel} for a customs declaration",
              f"we're preparing a crew list and need the IMO number of the {vessel}"):
        a = _answer(eng, q)
        assert str(imo) in a.text, (q, a.text)
    # a phrase after "for" that names a value of the data still narrows it
    carrier, = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.CARRIERS c JOIN {o}.VESSELS v ON v.CARRIER_ID = c.CARRIER_ID "
                         "ORDER BY c.CARRIER_NAME")[0]
    plan = assistant.answer_data(eng, f"voyages for the {carrier} ships").plan
    assert plan is not None and "CARRIER_NAME" in plan.sql


def test_the_same_thing_said_again_after_ie_is_left_out(eng):
    n, = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE STATUS = 'ACTIVE'")[0]
    a = _answer(eng, "how many sailings are active right now, i.e. somewhere between their two ports?")
    assert f"{n} voyages" in a.text, a.text
    # words after "i.e." that name a value of the data are not dropped
    assert assistant._without_restating(eng, "how many voyages are active, i.e. the ones to Rotterdam?",
                                        assistant.knowledge(eng)[1]) is None


def test_the_flag_a_ship_flies_is_the_schemas_and_a_flight_is_not(eng):
    a = answer_question(eng, "where do I see which flag a ship flies")
    assert a.mode == "rag" and "FLAG_STATE" in a.answer, a.answer
    assert answer_question(eng, "when does the next flight to Lisbon leave?").mode == "fallback"


def test_set_as_a_noun_asks_and_set_to_a_value_is_a_write(eng):
    box, temp = _one(eng, "SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {o}.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL "
                          "ORDER BY CONTAINER_NUMBER")[0]
    a = answer_question(eng, f"set temp on {box}?")
    assert a.mode == "rag" and f"{float(temp):g}" in a.answer, a.answer
    refused = answer_question(eng, f"set the reefer temp of {box} to 4 degrees")
    assert refused.mode == "fallback" and "change the data" in refused.answer, refused.answer


def test_a_count_per_value_of_a_column_is_the_datas_whatever_equipment_word_leads(eng):
    counts = _one(eng, "SELECT REEFER_TEMP_C, COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE LIKE '%RF' "
                       "GROUP BY REEFER_TEMP_C")
    a = answer_question(eng, "how many reefers do we have at each set point temperature?")
    assert a.mode == "rag" and a.decision_explain["handler"] == "live data (composed query)", a.decision_explain
    assert all(f"{float(t):g}: {n}" in a.answer for t, n in counts), a.answer
    # a count per port is the catalog's stock, not the manifests' boxes
    stock = answer_question(eng, "how many reefers are available at each port?")
    assert stock.decision_explain["handler"] != "live data (composed query)", stock.decision_explain


def test_a_box_for_goods_is_not_recommended_when_the_question_asks_for_the_datas_rows(eng):
    q = "Banana reefers on boxes going to North Europe ports - which ones?"
    assert goods_boxes.box_for_goods(eng, q) is None
    assert goods_boxes.box_for_goods(eng, "what box do you recommend for bananas?") is not None


def test_or_not_excludes_nothing_and_a_year_said_once_ends_a_range(eng):
    n = sum("2025-06-01" <= str(d)[:10] <= "2025-06-07" for d, in _one(eng, "SELECT DEPARTURE_DATE FROM {o}.VOYAGES"))
    a = _answer(eng, "How many voyages depart between June 1 and June 7 2025, whether they have left or not?")
    assert f"{n} voyages" in a.text, a.text
    # a "not" that governs a value still excludes it
    plan = assistant.answer_data(eng, "how many voyages are not completed?").plan
    assert plan is not None and ("<>" in plan.sql or "NOT" in plan.sql.upper()), plan


def test_a_catalog_item_asked_by_its_name_and_a_quote_for_units_and_days(eng):
    from workshop_lib.data.catalog import ITEMS
    genset = next(i for i in ITEMS if i.item_id == "EQ-GENSET")
    a = answer_question(eng, "genset daily rate?")
    assert a.mode == "rag" and "EQ-GENSET" in a.answer and f"{genset.price_usd:,.2f}" in a.answer, a.answer
    reefer = next(i for i in ITEMS if i.item_id == "EQ-40RH")
    a = answer_question(eng, "Quote me 3 x 40' high cube reefers for 10 days, lease only.")
    assert a.mode == "rag" and f"{reefer.price_usd * 3 * 10:,.2f}" in a.answer, a.answer
    # a freight quote between ports is still outside the workshop's data
    assert answer_question(eng, "quote me the cost to ship a 40ft from Shanghai to Rotterdam").mode == "fallback"


def test_the_reader_skips_the_place_that_says_which_case_and_meets_romance_verb_forms():
    from workshop_lib.assistant import document_reader
    text = ("Smoke was detected in hold 3 at 02:40 ship's time. The crew sealed the hold. "
            "The vessel later diverted to Kaohsiung for inspection.")
    r = document_reader.read("the smoke-in-hold incident - where did the ship divert to?", [{"subject": "d", "text": text}])
    assert r.sentence is not None and "Kaohsiung" in r.sentence, r
    # "which holds were affected?" asks for the hold itself
    r = document_reader.read("where was the smoke detected?", [{"subject": "d", "text": text}])
    assert r.sentence is not None and "hold 3" in r.sentence, r
    es = ("El destinatario reclama los costes de un retraso de nueve días. "
          "Ofrecemos, como gesto comercial, siete días adicionales de almacenaje gratuito.")
    fees = ("Reefers waiting at the terminal are plugged in. After that, a plug-in fee of USD 45 per day is charged. "
            "Controlled atmosphere units for avocados must be booked 10 days ahead.")
    r = document_reader.read("how much a day for a controlled atmosphere unit for avocados?", [{"subject": "d", "text": fees}])
    assert r.sentence is None, r  # the fee said is another thing's: not stated
    r = document_reader.read("plug-in fee per day?", [{"subject": "d", "text": fees}])
    assert r.sentence is not None and "USD 45" in r.sentence, r
    for q in ("¿Qué ofrecieron, al final?", "¿y qué se ofrece?"):
        r = document_reader.read(q, [{"subject": "d", "text": es}])
        assert r.sentence is not None and "siete" in r.sentence, (q, r)


def test_a_contact_persons_name_and_extension_are_refused_in_german_french_and_spanish(docs_eng):
    for q in ("Wie heißt der Ansprechpartner im Hamburger Streik-Hinweis und wie ist seine Durchwahl?",
              "Qui est la personne de contact pour la grève de Hambourg ?",
              "¿Quién es la persona de contacto del aviso de huelga de Hamburgo?"):
        a = answer_question(docs_eng, q)
        assert a.mode == "fallback" and "private details" in a.answer, (q, a.answer)


def test_a_span_of_days_is_worked_out_from_the_start_and_end_dates(eng):
    import datetime
    rows = _one(eng, "SELECT v.VOYAGE_NUMBER, v.STATUS, v.DEPARTURE_DATE, v.ARRIVAL_DATE, s.VESSEL_NAME FROM {o}.VOYAGES v "
                     "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY v.VOYAGE_ID")

    def day(d):
        return datetime.date.fromisoformat(str(d)[:10])

    days = {n: (day(a) - day(d)).days for n, _, d, a, _ in rows}
    number = next(n for n, *_ in rows if sum(x == n for x, *_ in rows) == 1)
    a = _answer(eng, f"how many days did voyage {number} take from departure to arrival?")
    assert f"{days[number]} days" in a.text and "DEPARTURE_DATE" in a.plan.sql and "ARRIVAL_DATE" in a.plan.sql, a.text
    longest = max(days.values())
    a = _answer(eng, "what's the longest voyage in the data, departure to arrival?")
    assert f"{longest} days" in a.text and all(n in a.text for n, d in days.items() if d == longest), a.text
    completed = [days[n] for n, status, *_ in rows if status == "COMPLETED"]
    a = _answer(eng, "on average how many days did the completed voyages take?")
    assert f"{sum(completed) / len(completed):.2f}" in a.text, a.text
    # days said of a date range, and a date asked alone, are no span
    assert "DURATION" not in str(assistant.answer_data(eng, "how many voyages depart between 10 and 20 May 2025, "
                                                              "both days counted?").plan.spec)
    departs = assistant.answer_data(eng, f"when does voyage {number} depart?").plan
    assert departs.spec.measure is None or departs.spec.measure.name != "DURATION_DAYS", departs.spec


def test_the_span_of_days_is_each_dialects_own_expression():
    import sqlglot

    from workshop_lib.engines.embedded import sql as embedded_sql
    from workshop_lib.engines.oracle import sql as oracle_sql
    for dialect, module in (("oracle", oracle_sql), ("sqlite", embedded_sql)):
        days = module.DAYS_BETWEEN.format(start="t.DEPARTURE_DATE", end="t.ARRIVAL_DATE")
        sqlglot.parse_one(f"SELECT AVG({days}) AS AGG_VALUE FROM VOYAGES t WHERE {days} > :p0", read=dialect)
    assert "TRUNC" in oracle_sql.DAYS_BETWEEN and "julianday" in embedded_sql.DAYS_BETWEEN


def test_the_teu_loaded_is_summed_from_the_boxes_sizes_and_a_ships_capacity_stays_its_own(eng):
    rows = _one(eng, "SELECT v.VOYAGE_ID, c.SIZE_TYPE FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = "
                     "c.VOYAGE_ID ORDER BY v.VOYAGE_ID")
    voyage = rows[0][0]
    # the SIZE_TYPE comment: a 20-foot box is 1 TEU, a 40-foot box 2 TEU
    teu = sum(1 if size.startswith("20") else 2 for v, size in rows if v == voyage)
    a = _answer(eng, f"How many TEU are loaded on voyage {voyage}?")
    assert f"{teu} TEU" in a.text and "CAPACITY_TEU" not in a.plan.sql, a.text
    vessel, capacity = _one(eng, "SELECT VESSEL_NAME, CAPACITY_TEU FROM {o}.VESSELS ORDER BY VESSEL_NAME")[0]
    a = _answer(eng, f"what's the capacity in TEU of the {vessel}?")
    assert f"{capacity:,} TEU" in a.text and "SIZE_TYPE" not in a.plan.sql, a.text
    # the boxes themselves, listed, are no sum
    plan = assistant.answer_data(eng, f"which containers are loaded on voyage {voyage}?").plan
    assert plan is not None and "SUM(" not in plan.sql, plan.sql


def test_a_week_of_a_month_is_its_seven_days_and_a_refused_unit_excludes_no_row(eng):
    departs = [str(d)[:10] for d, in _one(eng, "SELECT DEPARTURE_DATE FROM {o}.VOYAGES")]
    first = sum("2025-06-01" <= d <= "2025-06-07" for d in departs)
    a = _answer(eng, "how many sailings leave in the first week of June, 1st to 7th?")
    assert f"{first} voyage" in a.text, a.text
    mid = sum("2025-05-11" <= d <= "2025-05-20" for d in departs)
    assert f"{mid} voyage" in _answer(eng, "how many voyages departed mid-May?").text
    last = sum("2025-06-24" <= d <= "2025-06-30" for d in departs)
    assert f"{last} voyage" in _answer(eng, "how many voyages depart in the last week of June?").text
    vessel, knots = _one(eng, "SELECT s.VESSEL_NAME, p.SPEED_KNOTS FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS s "
                              "ON s.IMO_NUMBER = p.IMO_NUMBER ORDER BY s.VESSEL_NAME")[0]
    a = _answer(eng, f"{vessel} speed in km/h? not knots")
    assert f"{to_stored_precision(float(knots) * 1.852, float(knots))} km/h" in a.text, a.text


def test_a_day_written_before_its_month_does_not_end_the_sentence():
    from workshop_lib.assistant import document_reader
    notice = "Die Gewerkschaft hat für Donnerstag, den 12. Juni 2025, einen Warnstreik angekündigt. Keine Schiffe fahren."
    assert any("12. Juni 2025" in s for s in document_reader.sentences(notice))



def test_a_greeting_before_the_question_is_no_word_of_it(eng):
    a = answer_question(eng, "Good morning! which vessels does Maersk operate?")
    assert a.mode == "rag" and a.decision_explain["handler"] == "live data (composed query)", a.answer


def test_a_catalog_price_asked_in_french_spanish_or_german_reads_the_item_named(eng):
    from workshop_lib.data.catalog import ITEMS
    prices = {i.item_id: i.price_usd for i in ITEMS}
    for q, item in (("Combien coûte une inspection PTI pour un conteneur frigo ?", "SV-PTI"),
                    ("¿Cuánto cuesta el drayage por movimiento?", "SV-DRAYAGE"),
                    ("Was kostet ein Genset pro Tag?", "EQ-GENSET")):
        a = answer_question(eng, q)
        assert a.mode == "rag" and item in a.answer and f"{prices[item]:,.2f}" in a.answer, (q, a.answer)


def test_the_next_sailing_is_the_first_to_leave_after_the_date_the_data_is_stated_as_of(eng):
    from workshop_lib.assistant import planner
    schema, _ = assistant.knowledge(eng)
    ref = str(planner.reference_date(schema))
    rows = _one(eng, "SELECT s.VESSEL_NAME, v.VOYAGE_NUMBER, v.DEPARTURE_DATE FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                     "ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY v.DEPARTURE_DATE")
    vessel = next(name for name, _, d in rows if str(d)[:10] > ref)
    number, departs = next((n, str(d)[:10]) for name, n, d in rows if name == vessel and str(d)[:10] > ref)
    a = _answer(eng, f"when is the next sailing of the {vessel}?")
    assert number in a.text and departs in a.text, a.text
    # its port shown beside the date the rows are ordered by (each column once, labels beside their values)
    origin, = _one(eng, "SELECT p.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                        f"WHERE v.VOYAGE_NUMBER = '{number}'")[0]
    a = _answer(eng, f"when does the {vessel} leave on her next sailing, and from where?")
    assert departs in a.text and f"origin {origin}" in a.text, a.text
    a = _answer(eng, f"when does the {vessel} leave on her next sailing and from which port?")
    assert "SUM(" not in a.plan.sql and origin in a.text, a.text
    # "next" said of no sailing is no ordering
    plan = assistant.answer_data(eng, f"ok, next question: what flag does the {vessel} fly?").plan
    assert plan is None or "ORDER BY t.DEPARTURE_DATE" not in plan.sql, plan.sql


def test_the_most_departures_per_port_counts_voyages_and_never_adds_dates(eng):
    counts = _one(eng, "SELECT p.PORT_NAME, COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                       "GROUP BY p.PORT_NAME ORDER BY 2 DESC, 1")
    a = _answer(eng, "Which 3 ports have the most departures?")
    assert "SUM(" not in a.plan.sql and all(f"{p}: {n}" in a.text for p, n in counts[:3]), a.text


def test_a_number_said_again_in_the_question_is_no_constraint_of_the_sentence_before(eng):
    names = {r[0] for r in _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE LENGTH_M < 200")}
    a = _answer(eng, "our terminal has a 200 m berth limit. which ships are shorter than 200 metres?")
    assert names and all(n in a.text for n in names), a.text
    # a number only the sentence before says still narrows: no answer that drops it
    a = assistant.answer_data(eng, "we have 3 boxes on it. which ships are shorter than 200 metres?")
    assert a.text is None and "3" in a.reason, a


def test_the_owner_said_of_the_rows_listed_is_named_beside_them(eng):
    rows = _one(eng, "SELECT DISTINCT s.VESSEL_NAME, c.CARRIER_NAME FROM {o}.VESSELS s JOIN {o}.CARRIERS c ON "
                     "c.CARRIER_ID = s.CARRIER_ID WHERE s.FLAG_STATE = 'LR'")
    a = _answer(eng, "which carrier's ships are flagged in Liberia?")
    assert rows and all(v in a.text and c in a.text for v, c in rows), a.text


def test_a_second_part_asking_for_a_table_shown_is_answered(eng):
    a = answer_question(eng, "which boxes have lithium-ion batteries in them and what ship are they on?")
    vessels = {r[0] for r in _one(eng, "SELECT DISTINCT s.VESSEL_NAME FROM {o}.CARGO_ITEMS i JOIN {o}.CONTAINERS c ON "
                                       "c.CONTAINER_ID = i.CONTAINER_ID JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                                       "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE i.UN_NUMBER = '3480'")}
    assert a.mode == "rag" and vessels and all(v in a.answer for v in vessels), a.answer


def test_two_words_a_columns_comment_sets_side_by_side_ask_what_it_means(eng):
    for q, column in (("departure date on a scheduled voyage - actual or planned?", "DEPARTURE_DATE"),
                      ("package type PX on a cargo line means what", "PACKAGE_TYPE")):
        a = answer_question(eng, q)
        assert a.mode == "rag" and column in a.answer and "From the schema knowledge" in a.answer, (q, a.answer)
    # two values of the data asked as alternatives still ask for rows
    counts = dict(_one(eng, "SELECT STATUS, COUNT(*) FROM {o}.VOYAGES GROUP BY STATUS"))
    a = _answer(eng, "do we have more completed or scheduled voyages?")
    assert f"COMPLETED: {counts['COMPLETED']}" in a.text and f"SCHEDULED: {counts['SCHEDULED']}" in a.text, a.text


def test_a_value_below_zero_said_in_words_or_after_of_filters_its_column(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE REEFER_TEMP_C = -18")[0][0]
    for q in ("how many boxes have a set point of minus 18?", "how many containers have a reefer temp of \u221218?",
              "count the containers with reefer temperature -18"):
        a = _answer(eng, q)
        assert f" {n} " in f" {a.text} " and a.plan.params and -18 in a.plan.params.values(), (q, a.text)


def test_sizes_listed_before_one_unit_each_name_their_boxes_and_a_kind_narrows_them(eng):
    reefers = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF')")[0][0]
    sized = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE LIKE '20%' OR SIZE_TYPE LIKE '40%'")[0][0]
    for q in ("how many 20 and 40 ft reefers do we carry?", "number of reefers, 20 or 40 foot, all of them"):
        assert f"{reefers} containers" in _answer(eng, q).text, q
    assert f"{sized} containers" in _answer(eng, "how many 20 or 40 foot boxes are there?").text


def test_a_number_in_teu_compares_the_capacity_named_not_the_teu_worked_out_for_boxes(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE CAPACITY_TEU > 18000")[0][0]
    a = _answer(eng, "how many vessels have a capacity of more than 18000 TEU?")
    assert f"{n} vessels" in a.text and "CAPACITY_TEU" in a.plan.sql and "SUBSTR" not in a.plan.sql, a.plan.sql


def test_how_a_figure_is_to_be_rounded_is_no_part_of_the_query(eng):
    avg = _one(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '20GP'")[0][0]
    a = _answer(eng, "average gross weight of the 20GP boxes, rounded to two decimal places")
    assert f"{avg:,.2f}" in a.text, a.text


def test_a_figure_over_the_rows_a_code_picks_is_the_datas_not_a_columns_description(eng):
    avg = _one(eng, "SELECT AVG(TARE_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40HC'")[0][0]
    a = answer_question(eng, "mean tare weight of the 40HC boxes?")
    assert a.mode == "rag" and f"{avg:.0f}" in a.answer.replace(",", ""), a.answer
    assert "schema knowledge" not in a.answer


def test_two_questions_in_one_get_a_sentence_each_and_a_cause_is_read_under_its_heading():
    from workshop_lib.assistant import document_reader
    text = ("# Notice 7: Crane outage at the north quay\n\nThe outage lasts 36 hours from Monday 06:00.\n"
            "Vessels waiting longer than that are charged no berth fee.\nA surcharge of USD 120 per box applies "
            "to re-handling.\n\n## Cause\nA gearbox on crane 4 overheated during a lift.\n")
    passages = [{"subject": "notices/crane", "text": text}]
    both = document_reader.read("how long does the crane outage last, and how much is the re-handling surcharge?",
                                passages)
    assert both.sentence and "36 hours" in both.sentence and "USD 120" in both.sentence, both
    why = document_reader.read("why did the crane at the north quay stop working?", passages)
    assert why.kind == "cause" and why.sentence and "gearbox" in why.sentence, why
    assert document_reader.asked_kind("Wie hoch ist die Gebühr?") == "amount"


def test_a_passage_holding_redacted_private_details_is_not_given_when_no_other_kind_is_asked(eng):
    from workshop_lib.assistant import document_reader
    from workshop_lib.assistant.answering import answer, router
    decision = router.route(eng, "the claimant's payment lines in claim 12?")
    held = document_reader.Reading(None, "claims/x", "Pay to: [IBAN], holder on file.")
    refused = answer._not_answered_by(held, None, decision)
    assert refused is not None and refused.mode == "fallback" and "private" in refused.answer
    dated = document_reader.Reading("date", "claims/x", "Paid on 3 June to [IBAN].")
    assert answer._not_answered_by(dated, type("D", (), {"question": "when was it paid"})(), decision) is None


def test_a_word_that_only_leads_in_is_no_part_of_the_query(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE YEAR_BUILT < 2010")[0][0]
    for q in ("ok so how many vessels were built before 2010?", "anyway, how many ships were built before 2010"):
        assert f" {n} " in f" {_answer(eng, q).text} ", q


def test_an_items_initials_written_in_capitals_name_it():
    from workshop_lib.parts import grounded
    named = [i.item_id for i in grounded.named_items("what do a reefer PTI and reefer monitoring cost, each?")]
    assert named == ["SV-PTI", "SV-REEFMON"], named
    assert [i.item_id for i in grounded.named_items("reefer pti")] != ["SV-PTI"]  # lower case: a word, not initials


def test_an_amount_a_columns_description_does_not_hold_is_read_from_the_document_that_does(docs_eng):
    a = answer_question(docs_eng, "how large a deviation in the re-weighed VGM gets reported to the shipper?")
    assert a.mode in ("rag", "hybrid") and "5%" in a.answer and "sop/vgm-weighing" in a.answer, a.answer


def test_a_column_said_not_to_matter_filters_nothing(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                  "WHERE p.PORT_NAME = 'Shanghai'")[0][0]
    for q in ("how many voyages leave Shanghai, whatever their status?", "voyages from Shanghai regardless of status: how many?"):
        a = _answer(eng, q)
        assert "STATUS" not in a.plan.sql and f" {n} " in f" {a.text} ", (q, a.plan.sql)


def test_which_value_of_a_column_has_the_most_rows(eng):
    rows = _one(eng, "SELECT REGION, COUNT(*) FROM {o}.PORTS GROUP BY REGION ORDER BY 2 DESC")
    top = [r for r in rows if r[1] == rows[0][1]]
    a = _answer(eng, "what region has the most ports?")
    assert a.plan.spec.action == "group_top" and all(str(r[0]) in a.text for r in top), a.text
    fewest = _answer(eng, "which trade region has the fewest ports")
    assert f": {rows[-1][1]}" in fewest.text, fewest.text


def test_a_span_of_days_written_with_a_dash_and_a_question_reported_in_a_sentence(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE DEPARTURE_DATE BETWEEN '2025-06-04' AND '2025-06-10'")[0][0]
    assert f" {n} " in f" {_answer(eng, 'how many voyages depart 4-10 June?').text} "
    temp = _one(eng, "SELECT CONTAINER_NUMBER, REEFER_TEMP_C FROM {o}.CONTAINERS WHERE REEFER_TEMP_C IS NOT NULL "
                     "ORDER BY CONTAINER_NUMBER")[0]
    a = answer_question(eng, f"quick one. the yard keeps asking what temperature {temp[0]} is set to - what is it?")
    assert a.mode == "rag" and f"{temp[1]:g}" in a.answer, a.answer


def test_a_time_limit_in_years_answers_when(eng):
    from workshop_lib.assistant import document_reader
    text = "## Limits\nA claim must be filed within 14 days. Any suit is time-barred two years after delivery.\n"
    r = document_reader.read("how long to file, and when is a suit time-barred?", [{"subject": "d", "text": text}])
    assert r.sentence and "14 days" in r.sentence and "two years" in r.sentence, r


def test_ports_the_data_does_not_hold_answer_nothing_and_a_partys_order_is_no_catalog_row(eng):
    from workshop_lib.parts import grounded
    text, answered = grounded.port_location_answer(eng, "where is that?", ["ZZZZZ"])
    assert not answered and "Here is" not in text, text
    for q in ("which box is their spare-parts order in?", "and which of the two shipments arrived damaged?"):
        a = answer_question(eng, q)
        assert a.mode == "fallback" and "our catalog has" not in a.answer, (q, a.answer)


def test_alternatives_compared_are_each_totalled_when_a_word_stands_for_several_values(eng):
    reefers = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF')")[0][0]
    hc = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40HC'")[0][0]
    a = _answer(eng, "do we carry more 40HC boxes or more reefers?")
    assert f"reefers (20RF, 40RF): {reefers}" in a.text and f"40HC: {hc}" in a.text, a.text
    # a count compared is not answered with the two items' catalog rows
    b = answer_question(eng, "have we got more 40HC boxes or reefers on the manifests?")
    assert "our catalog has" not in b.answer, b.answer


def test_what_kind_of_box_asks_its_size_type(eng):
    number, size = _one(eng, "SELECT CONTAINER_NUMBER, SIZE_TYPE FROM {o}.CONTAINERS ORDER BY CONTAINER_ID")[0]
    assert size in _answer(eng, f"what kind of container is {number}?").text


def test_whether_a_voyage_has_left_or_arrived_is_read_from_the_status_comment(eng):
    counts = dict(_one(eng, "SELECT STATUS, COUNT(*) FROM {o}.VOYAGES GROUP BY STATUS"))
    for q, n in (("how many sailings still haven't sailed?", counts["SCHEDULED"]),
                 ("how many voyages are yet to arrive", counts["SCHEDULED"] + counts["ACTIVE"]),
                 ("count the voyages that have already arrived", counts["COMPLETED"])):
        a = _answer(eng, q)
        assert f" {n} " in f" {a.text} " and "STATUS" in a.plan.sql, (q, a.text)


def test_two_counts_asked_together_are_each_counted(eng):
    total, reefers = _one(eng, "SELECT COUNT(*), SUM(CASE WHEN SIZE_TYPE IN ('20RF', '40RF') THEN 1 ELSE 0 END) "
                               "FROM {o}.CONTAINERS WHERE VOYAGE_ID = 1030")[0]
    a = _answer(eng, "how many boxes are on voyage 1030 and how many of them are reefers?")
    assert f"{total} containers" in a.text and f"{reefers} containers" in a.text and a.uncovered is None, a.text
    flags = dict(_one(eng, "SELECT FLAG_STATE, COUNT(*) FROM {o}.VESSELS GROUP BY FLAG_STATE"))
    b = _answer(eng, "how many ships are Panamanian-flagged and how many are Liberian?")
    assert f"{flags['PA']} vessels" in b.text and f"{flags['LR']} vessels" in b.text, b.text


def test_misspelt_question_words_and_framing_words_are_no_part_of_the_query(eng):
    owner = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                      "WHERE v.VESSEL_NAME = 'Kota Singa'")[0][0]
    assert owner in _answer(eng, "wich carrier runs the Kota Singa").text
    assert "TEU" in _answer(eng, "is the Kyoto Express bigger than the Manulani in TEU terms?").text


def test_a_negation_turns_round_only_the_words_it_governs(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CARGO_ITEMS ci JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID "
                  "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE v.STATUS = 'SCHEDULED' AND ci.UN_NUMBER IS NOT NULL")[0][0]
    a = _answer(eng, "hazardous cargo lines in boxes on sailings that haven't departed yet: how many of them?")
    assert f" {n} " in f" {a.text} " and "IS NOT NULL" in a.plan.sql, a.text
    plain = _one(eng, "SELECT COUNT(*) FROM {o}.CARGO_ITEMS WHERE UN_NUMBER IS NULL")[0][0]
    assert f" {plain} " in f" {_answer(eng, 'how many cargo lines are not dangerous goods?').text} "


def test_how_many_teu_added_up_over_boxes_is_their_sum_and_a_list_never_answers_it(eng):
    teu = _one(eng, "SELECT SUM(CASE WHEN SIZE_TYPE LIKE '20%' THEN 1 ELSE 2 END) FROM {o}.CONTAINERS "
                    "WHERE VOYAGE_ID = 1030")[0][0]
    a = _answer(eng, "add up every container on voyage 1030 - how many TEU does that come to?")
    assert f"{teu:,}" in a.text and a.plan.spec.action == "aggregate", a.text
    # a figure in a unit no row listed would show is not answered by listing the rows
    b = assistant.answer_data(eng, "how many knots are the boxes on voyage 1030 doing?")
    assert b.text is None


def test_which_of_two_named_rows_is_more_is_never_answered_by_listing_their_rows(eng):
    a = assistant.answer_data(eng, "Manulani or Kota Singa: which of them has more boxes loaded?")
    assert a.text is None or ("Manulani" in a.text and "Kota Singa" in a.text and "container " not in a.text), a.text


def test_a_row_named_below_the_table_asked_is_answered_with_the_name_above_it(eng):
    name, flag, built = _one(eng, "SELECT c.CARRIER_NAME, v.FLAG_STATE, v.YEAR_BUILT FROM {o}.VESSELS v "
                                  "JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID WHERE v.VESSEL_NAME = 'Manulani'")[0]
    a = _answer(eng, "which line operates the Manulani, and which flag does she fly?")
    assert name in a.text and flag in a.text and a.plan.spec.target == "VESSELS", a.text
    b = _answer(eng, "Manulani: who runs it, and what year was it built?")
    assert name in b.text and str(built) in b.text, b.text


def test_a_status_said_and_an_event_said_must_agree(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CARGO_ITEMS ci JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID "
                  "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE v.STATUS = 'ACTIVE' AND ci.UN_NUMBER IS NOT NULL")[0][0]
    a = _answer(eng, "hazardous cargo lines in boxes at sea that have not yet arrived - how many are there?")
    assert f" {n} " in f" {a.text} " and "IS NOT NULL" in a.plan.sql, a.text
    assert assistant.answer_data(eng, "how many finished voyages haven't arrived yet?").text is None


def test_words_of_plain_english_that_say_nothing_of_the_data_are_no_part_of_the_query(eng):
    carrier = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                        "JOIN {o}.CARRIERS c ON c.CARRIER_ID = s.CARRIER_ID WHERE v.VOYAGE_ID = 1020")[0][0]
    assert carrier in _answer(eng, "which line is behind voyage 1020?").text
    coldest = _one(eng, "SELECT MIN(REEFER_TEMP_C) FROM {o}.CONTAINERS")[0][0]
    assert f"{coldest:g} °C" in _answer(eng, "what is the lowest set point on any box anywhere?").text
    # a word the data holds nothing of still stops the plan
    assert assistant.answer_data(eng, "which vessels are behind schedule?").text is None


def test_the_voyage_after_the_one_sailing_now_is_not_answered_by_the_one_sailing_now(eng):
    assert assistant.answer_data(eng, "where is the Manulani going after its current voyage?").text is None
    now = _answer(eng, "where is the Manulani going on its current voyage?")
    assert "ACTIVE" in now.text or "destination" in now.text, now.text


def test_a_table_asked_for_where_a_thing_is_is_the_one_below_it_with_coordinates(eng):
    a = answer_question(eng, "which table would show me where each vessel is at present?")
    assert a.mode == "rag" and a.answer.split("\n")[1].startswith(f"- [{OWNER}.VESSEL_POSITIONS,"), a.answer
    b = answer_question(eng, "which table tells me when a ship was built?")
    assert f"{OWNER}.VESSELS" in b.answer.split("\n")[1], b.answer


def test_a_count_asked_beside_a_total_is_never_answered_by_the_total_alone(eng):
    a = assistant.answer_data(eng, "for Matson: the number of vessels and their combined TEU?")
    assert a.text is None or ("vessels" in a.text and re.search(r"\b\d+ vessels?\b", a.text)), a.text
    total = _one(eng, "SELECT SUM(v.CAPACITY_TEU) FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                      "WHERE c.CARRIER_NAME = 'Matson'")[0][0]
    text = _answer(eng, "what is the combined TEU of the Matson ships?").text
    assert f"{total:,}" in text or f" {total} " in text, text


def test_events_said_as_plural_nouns_count_the_rows_they_happen_to(eng):
    n = sum("2025-06-12" <= str(d)[:10] <= "2025-06-18" for d, in _one(eng, "SELECT DEPARTURE_DATE FROM {o}.VOYAGES"))
    a = _answer(eng, "how many departures are there from 12 to 18 June?")
    assert f" {n} " in f" {a.text} " and a.plan.spec.target == "VOYAGES", a.text


def test_the_most_or_least_common_value_of_a_column_counts_the_rows_per_value(eng):
    counts = dict(_one(eng, "SELECT SIZE_TYPE, COUNT(*) FROM {o}.CONTAINERS GROUP BY SIZE_TYPE"))
    top = max(counts.values())
    a = _answer(eng, "what is the most common size type among the containers?")
    assert a.plan.spec.action == "group_top" and all(f"{k}: {top}" in a.text for k, v in counts.items() if v == top), a.text
    low = min(counts.values())
    b = _answer(eng, "which size type is the least common?")
    assert all(f"{k}: {low}" in b.text for k, v in counts.items() if v == low), b.text


def test_a_document_sentence_sharing_one_word_by_chance_with_a_question_in_its_language_is_no_answer(docs_eng):
    for q in ("Welche Schiffe sind unter maltesischer Flagge registriert?", "Welche Spalte zeigt das Baujahr eines Schiffs?"):
        a = answer_question(docs_eng, q)
        assert not (a.mode in ("rag", "hybrid") and a.answer.startswith("According to notices/hamburg-strike-de")), a.answer
    # a question in the document's language that shares its words is still read from it
    b = answer_question(docs_eng, "Wann beginnt der Warnstreik im Hamburger Hafen?")
    assert b.mode in ("rag", "hybrid") and "hamburg-strike-de" in b.answer, b.answer


def test_a_day_said_as_the_nth_of_a_month_is_that_day_alone_or_in_a_range(eng):
    dates = [str(d)[:10] for d, in _one(eng, "SELECT ARRIVAL_DATE FROM {o}.VOYAGES")]
    after = sum(d > "2025-06-12" for d in dates)
    a = _answer(eng, "which voyages arrive later than the 12th of June?")
    assert f"{after} voyages" in a.text or f"{after}+" not in a.text and str(after) in a.text, a.text
    span = sum("2025-06-03" <= d <= "2025-06-08" for d in dates)
    b = _answer(eng, "how many voyages arrive between the 3rd and the 8th of June?")
    assert f" {span} " in f" {b.text} ", b.text


def test_a_comparison_word_with_nothing_to_compare_asks_for_the_value(eng):
    a = assistant.answer_data(eng, "on voyage 1012 which boxes are reefers and what are they set to?")
    assert a.text is None or a.uncovered is not None or "°C" in a.text, a.text


def test_a_key_said_with_the_number_a_filter_uses_is_nothing_more_to_show(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE VOYAGE_ID = 1030")[0][0]
    a = _answer(eng, "how many boxes are loaded on voyage id 1030?")
    assert f" {n} " in f" {a.text} " and a.plan.spec.action == "count", a.text


def test_a_vessels_rows_right_now_are_those_of_its_voyage_under_way_unless_a_voyage_is_named(eng):
    name, active, every = _one(eng, "SELECT v.VESSEL_NAME, SUM(CASE WHEN vo.STATUS = 'ACTIVE' THEN 1 ELSE 0 END), "
                                    "COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES vo ON vo.VOYAGE_ID = c.VOYAGE_ID "
                                    "JOIN {o}.VESSELS v ON v.IMO_NUMBER = vo.IMO_NUMBER GROUP BY v.VESSEL_NAME "
                                    "HAVING SUM(CASE WHEN vo.STATUS = 'ACTIVE' THEN 1 ELSE 0 END) BETWEEN 1 AND COUNT(*) - 1 "
                                    "ORDER BY v.VESSEL_NAME")[0]
    for question in (f"boxes aboard the {name} at the moment - how many?", f"count of containers on {name}'s ongoing trip"):
        a = _answer(eng, question)
        assert re.search(rf"\b{active}\b", a.text) and not re.search(rf"\b{every}\b", a.text), (question, a.text)
    number, n = _one(eng, "SELECT vo.VOYAGE_NUMBER, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES vo "
                          "ON vo.VOYAGE_ID = c.VOYAGE_ID WHERE vo.STATUS = 'COMPLETED' GROUP BY vo.VOYAGE_NUMBER "
                          "HAVING COUNT(*) > 1 ORDER BY vo.VOYAGE_NUMBER")[0]
    a = _answer(eng, f"how many boxes does voyage {number} have right now")
    assert re.search(rf"\b{n}\b", a.text), a.text  # the voyage named is that voyage, whatever its status
    sailing = {r[0] for r in _one(eng, "SELECT DISTINCT v.VESSEL_NAME FROM {o}.VESSELS v JOIN {o}.VOYAGES vo "
                                       "ON vo.IMO_NUMBER = v.IMO_NUMBER WHERE vo.STATUS = 'ACTIVE'")}
    a = _answer(eng, "list the ships presently under way")
    assert all(s in a.text for s in sailing) and f"{len(sailing)} vessel" in a.text, a.text


def test_a_country_adjective_filters_the_country_of_the_noun_it_qualifies(eng):
    lines = {r[0] for r in _one(eng, "SELECT v.VESSEL_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c "
                                     "ON c.CARRIER_ID = v.CARRIER_ID WHERE c.HQ_COUNTRY = 'KR'")}
    flagged = {r[0] for r in _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE FLAG_STATE = 'KR'")}
    assert lines != flagged
    a = _answer(eng, "list vessels belonging to Korean shipping lines")
    assert all(v in a.text for v in lines) and not (flagged - lines) & set(re.findall(r"- ([^\n(]+?)\s*(?:\(|$)", a.text, re.M))


def test_a_column_named_with_a_misspelt_record_asks_its_value_and_a_method_asks_the_join(eng):
    code = _one(eng, "SELECT UNLOCODE FROM {o}.PORTS WHERE PORT_NAME = 'Rotterdam'")[0][0]
    a = answer_question(eng, "UNLOCODE of Rotterdum please")
    assert a.mode == "rag" and code in a.answer, a.answer
    a = answer_question(eng, "cargo lines: how can I find the container each one is packed in?")
    assert a.mode == "rag" and "CARGO_ITEMS.CONTAINER_ID" in a.answer and "Join" in a.answer, a.answer


def test_a_year_with_or_later_is_one_end_of_a_range(eng):
    n, avg = _one(eng, "SELECT COUNT(*), AVG(CAPACITY_TEU) FROM {o}.VESSELS WHERE YEAR_BUILT >= 2019")[0]
    a = _answer(eng, "how many ships built in 2019 or after")
    assert re.search(rf"\b{n}\b", a.text), a.text
    old = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE YEAR_BUILT <= 2010")[0][0]
    assert re.search(rf"\b{old}\b", _answer(eng, "number of vessels from 2010 or earlier").text)


def test_by_how_much_one_named_row_beats_another_is_said_with_the_difference(eng):
    (a_name, a_len), (b_name, b_len) = _one(eng, "SELECT VESSEL_NAME, LENGTH_M FROM {o}.VESSELS "
                                                 "ORDER BY LENGTH_M DESC")[:2]
    a = _answer(eng, f"{a_name} or {b_name}: which is longer, and by how many metres?")
    assert a.uncovered is None and f"{a_len - b_len:g}" in a.text.replace(",", ""), a.text
    a = _answer(eng, f"how much longer is {a_name} than {b_name}")
    assert not a.text.startswith("Yes") and f"{a_len - b_len:g}" in a.text.replace(",", ""), a.text


def test_a_catalog_item_named_by_its_own_price_is_not_a_value_to_insure():
    from workshop_lib.assistant import catalog_figures
    from workshop_lib.data.catalog import ITEMS
    item = next(i for i in ITEMS if catalog_figures.share("goods worth $1000", i) is not None)
    price = f"${item.price_usd:g}"
    assert catalog_figures.share(f"that {price} {item.name.lower()}: per box or per shipment?", item) is None
    assert catalog_figures.share(f"{item.name.lower()} for cargo worth {price}", item) is not None


def test_what_to_do_is_read_from_the_procedure_not_from_a_column_sharing_its_term(docs_eng):
    a = answer_question(docs_eng, "for the VGM, what do we need to weigh under method 1?")
    assert a.mode in ("rag", "hybrid") and "sop/vgm-weighing" in a.answer, a.answer


def test_a_date_with_an_events_verb_and_no_table_noun_asks_the_rows_of_that_date_column(eng):
    dates = _one(eng, "SELECT ARRIVAL_DATE, DEPARTURE_DATE FROM {o}.VOYAGES")
    n = sum(str(arr)[:10] == "2025-06-05" for arr, _ in dates)
    a = _answer(eng, "anything docking on 5 June?")
    assert "ARRIVAL_DATE" in a.plan.sql and f"{n} voyage" in a.text, a.text
    later = sum(str(dep)[:10] > "2025-06-15" for _, dep in dates)
    a = _answer(eng, "is anything leaving after 15 June?")
    assert "DEPARTURE_DATE" in a.plan.sql and f"{later} voyage" in a.text, a.text


def test_a_number_in_a_unit_compares_the_one_column_of_the_rows_in_that_unit(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE REEFER_TEMP_C < -20")[0][0]
    a = _answer(eng, "count the boxes kept colder than -20 degrees")
    assert "REEFER_TEMP_C" in a.plan.sql and re.search(rf"\b{n}\b", a.text), a.text
    fast = _one(eng, "SELECT COUNT(*) FROM {o}.VESSEL_POSITIONS WHERE SPEED_KNOTS > 19")[0][0]
    a = _answer(eng, "how many position reports over 19 kn")
    assert "SPEED_KNOTS" in a.plan.sql and re.search(rf"\b{fast}\b", a.text), a.text


def test_a_name_with_two_letters_swapped_and_a_column_named_by_part_of_its_name(eng):
    code = _one(eng, "SELECT UNLOCODE FROM {o}.PORTS WHERE PORT_NAME = 'Hamburg'")[0][0]
    a = _answer(eng, "Hambrug locode?")
    assert code in a.text, a.text


def test_rows_broken_down_by_a_column_with_the_rows_between_the_words(eng):
    rows = _one(eng, "SELECT STATUS, COUNT(*) FROM {o}.VOYAGES GROUP BY STATUS")
    a = _answer(eng, "could you break all the voyages down by status")
    assert all(f"{s}: {n}" in a.text for s, n in rows), a.text


def test_which_column_is_read_from_the_part_that_asks_it_not_the_words_that_describe_it(eng):
    for question, column in (("which col holds the VGM of a box - the mass the shipper declares before loading?",
                              "CONTAINERS.GROSS_WEIGHT_KG"),
                             ("where do you folks keep the IMO of each hull? need it for a report", "VESSELS.IMO_NUMBER")):
        a = answer_question(eng, question)
        assert a.mode == "rag" and a.answer.split("\n")[1].find(f"{OWNER}.{column}") > 0, (question, a.answer)
    a = answer_question(eng, "which column has the seal number - the customs one")
    assert a.mode == "fallback", a.answer


def test_which_table_with_columns_named_answers_their_table_and_tied_asks_the_key(eng):
    a = answer_question(eng, "what table has the set points and tare weights?")
    assert a.mode == "rag" and f"[{OWNER}.CONTAINERS," in a.answer.split("\n")[1], a.answer
    a = answer_question(eng, "how is a position report tied to its ship?")
    assert a.mode == "rag" and "VESSEL_POSITIONS.IMO_NUMBER" in a.answer, a.answer


def test_a_figure_given_for_a_column_is_put_in_the_unit_asked(eng):
    a = answer_question(eng, "a box shows REEFER_TEMP_C 5 - in fahrenheit that is?")
    assert a.mode == "rag" and "41 °F" in a.answer, a.answer
    a = answer_question(eng, "DEADWEIGHT_TONNES says 120000, how many pounds is that?")
    assert a.mode == "rag" and "264,554,400 lb" in a.answer, a.answer
    total = _one(eng, "SELECT SUM(c.GROSS_WEIGHT_KG) FROM {o}.CONTAINERS c WHERE c.VOYAGE_ID = 1014")[0][0]
    a = answer_question(eng, "total VGM of the boxes on voyage 1014, in tonnes")
    assert "1.01 tonnes" not in a.answer and f"{total / 1000:,.2f}" in a.answer, a.answer


def test_a_code_asked_what_it_means_is_read_from_its_columns_comment(eng):
    for question, said in (("what does status SCHEDULED stand for?", "departs after it"),
                           ("size type 20RF = ?", "refrigerated reefer"),
                           ("which country is FLAG_STATE LR?", "Liberia"),
                           ("status SCHEDULED - what's that?", "departs after it")):
        a = answer_question(eng, question)
        assert a.mode == "rag" and said in a.answer, (question, a.answer)
    avg = _one(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '20RF'")[0][0]
    a = answer_question(eng, "mean VGM of the 20RF boxes in kg")
    assert f"{avg:,.2f}" in a.answer, a.answer  # "mean" here is an average, not a meaning


def test_a_follow_up_that_only_names_a_catalog_item_gets_that_items_row(eng):
    a = answer_question(eng, "and a 40' flat rack, per day?")
    assert a.mode == "rag" and "[EQ-40FR]" in a.answer.split("\n")[1], a.answer


def test_a_question_in_another_language_nothing_grounds_is_read_in_english_and_says_so(eng):
    built = _one(eng, "SELECT YEAR_BUILT FROM {o}.VESSELS WHERE VESSEL_NAME = 'MSC Tessa'")[0][0]
    for question in ("Wann wurde die MSC Tessa gebaut?", "¿Cuándo fue construido el MSC Tessa?",
                     "Quand le MSC Tessa a été construit ?"):
        a = answer_question(eng, question)
        assert a.mode == "rag" and a.answer.startswith("Reading it as") and str(built) in a.answer, (question, a.answer)
    # a word the glossary does not know is left as it is, and the planner declines what it cannot explain
    a = answer_question(eng, "Wie viele Schiffe fahren unter gelber Flagge?")
    assert a.mode == "fallback", a.answer


def test_the_noun_right_after_how_many_is_what_is_counted_whatever_verb_follows(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                  "WHERE c.CARRIER_NAME = 'Maersk'")[0][0]
    a = _answer(eng, "how many vessels operates Maersk?")
    assert a.plan.spec.target == "VESSELS" and re.search(rf"\b{n} vessel", a.text), a.text


def test_a_word_that_only_starts_a_columns_name_does_not_name_it(eng):
    top = _one(eng, "SELECT v.VESSEL_NAME FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS v ON v.IMO_NUMBER = p.IMO_NUMBER "
                    "ORDER BY p.HEADING_DEG DESC")[0][0]
    a = _answer(eng, "which ship reports the biggest heading?")
    assert a.plan.spec.measure.name == "HEADING_DEG" and top in a.text, a.text


def test_a_voyage_number_written_apart_or_with_its_direction_spelt_out_is_that_voyage(eng):
    number, vessel = _one(eng, "SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                               "ON s.IMO_NUMBER = v.IMO_NUMBER ORDER BY v.VOYAGE_ID")[0]
    digits, letter = number[:-1], number[-1]
    word = {"N": "north", "S": "south", "E": "east", "W": "west"}[letter]
    for question in (f"which ship runs voy {digits} {letter}?", f"what vessel does the {digits} {word}bound sail on"):
        a = _answer(eng, question)
        assert vessel in a.text, (question, a.text)


def test_the_longest_misspelt_name_wins_over_a_shorter_one_inside_it(eng):
    a = _answer(eng, "where is the Gunhil Mersk heading?")  # not the line Maersk
    assert {lk["value"] for lk in a.links} >= {"Gunhild Maersk"}, a.links


def test_none_of_a_rows_children_having_a_value_is_not_negated_row_by_row(eng):
    # two keys down (VESSELS <- VOYAGES <- CONTAINERS): the ships none of whose voyages carried a 40HC box
    expected = {r[0] for r in _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VESSELS s WHERE NOT EXISTS (SELECT 1 FROM "
                                        "{o}.VOYAGES v JOIN {o}.CONTAINERS c ON c.VOYAGE_ID = v.VOYAGE_ID WHERE "
                                        "v.IMO_NUMBER = s.IMO_NUMBER AND c.SIZE_TYPE = '40HC')")}
    others = {r[0] for r in _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS")} - expected
    a = assistant.answer_data(eng, "which vessels carry no 40HC boxes at all?")
    assert expected and others and a.text is not None, (a.text, a.reason)
    assert all(v in a.text for v in expected) and not any(re.search(rf"\b{re.escape(v)}\b", a.text) for v in others), a.text
    # the rows' own value negated is still a filter
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE <> '40HC' OR SIZE_TYPE IS NULL")[0][0]
    assert re.search(rf"\b{n}\b", _answer(eng, "how many boxes are not 40HC?").text)


def test_inbound_and_outbound_say_which_end_of_the_voyage_a_port_is(eng):
    n_in = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                     "WHERE p.PORT_NAME = 'Rotterdam'")[0][0]
    n_out = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                      "WHERE p.PORT_NAME = 'Rotterdam'")[0][0]
    assert re.search(rf"\b{n_in} voyage", _answer(eng, "number of inbound sailings to Rotterdam").text)
    assert re.search(rf"\b{n_out} voyage", _answer(eng, "count the outbound voyages from Rotterdam").text)


def test_voyages_that_ended_in_a_date_range_are_those_arriving_in_it(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE ARRIVAL_DATE BETWEEN '2025-05-10' "
                  "AND '2025-05-20'")[0][0]
    a = _answer(eng, "how many sailings completed between 10 May and 20 May?")
    assert re.search(rf"\b{n}\b", a.text) and "arriv" in a.text, a.text


def test_a_code_after_its_columns_name_alone_asks_what_it_means(eng):
    a = answer_question(eng, "whats the package type BG")
    assert a.mode == "rag" and "bag" in a.answer and "cargo item" not in a.answer, a.answer


def test_the_question_after_a_statement_is_asked_alone_with_what_it_points_at(eng):
    box, vessel = _one(eng, "SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v "
                            "ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                            "ORDER BY c.CONTAINER_ID")[0]
    a = answer_question(eng, f"My consignee Harrow Bakeries is chasing me about {box}. Which ship is it on?")
    assert a.mode == "rag" and vessel in a.answer, a.answer
    # what the statement narrows is not dropped: the question must name what it is about
    a = answer_question(eng, "Our reefers all load in Shanghai. What is the count of them?")
    assert a.mode == "fallback" or "Shanghai" in a.answer, a.answer


def test_a_difference_asked_of_two_rows_is_worked_out_or_declined(eng):
    (a_name, a_teu), (b_name, b_teu) = _one(eng, "SELECT VESSEL_NAME, CAPACITY_TEU FROM {o}.VESSELS "
                                                 "ORDER BY CAPACITY_TEU DESC, VESSEL_NAME")[:2]
    gap = f"{abs(a_teu - b_teu):,}".replace(",", "")
    a = answer_question(eng, f"Is {b_name} a larger vessel than {a_name}, and by how many TEU?")
    assert a.mode == "rag" and gap in a.answer.replace(",", "") and a.answer.startswith("No"), a.answer
    a = answer_question(eng, f"what is the difference in TEU between {a_name} and {b_name}")
    assert a.mode == "rag" and gap in a.answer.replace(",", ""), a.answer
    # one count of both voyages' boxes would answer another question: declined
    v1, v2 = (r[0] for r in _one(eng, "SELECT VOYAGE_NUMBER FROM {o}.VOYAGES ORDER BY VOYAGE_ID")[:2])
    a = answer_question(eng, f"how many more containers does voyage {v1} carry than voyage {v2}?")
    assert a.mode == "fallback", a.answer


def test_a_total_the_catalog_cannot_work_out_is_not_grounded(eng):
    a = answer_question(eng, "two boxes at Savannah need drayage and then transloading, what does it all come to?")
    assert a.mode == "fallback" and "can't work out the total" in a.answer, a.answer
    a = answer_question(eng, "renting two 20' reefers for 5 days, what's the total price?")
    assert a.mode == "rag" and "USD" in a.answer, a.answer


def test_a_name_with_another_number_is_not_a_typo_of_a_ship(eng):
    name = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE VESSEL_NAME LIKE '% 6%' ORDER BY 1")[0][0]
    other = name[:-1] + str((int(name[-1]) + 1) % 10)
    a = answer_question(eng, f"{other}: how many TEU can it take?")
    assert name not in a.answer, a.answer
    a = answer_question(eng, f"{name}: how many TEU can it take?")
    assert a.mode == "rag" and name in a.answer, a.answer


def test_last_and_next_year_or_month_are_periods_counted_from_the_reference_date(eng):
    built = _one(eng, "SELECT COUNT(*) FROM {o}.VESSELS WHERE YEAR_BUILT = 2024")[0][0]
    a = answer_question(eng, "how many ships were built last year?")
    assert a.mode == "rag" and str(built) in a.answer and "highest" not in a.answer, a.answer
    may = eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES WHERE ARRIVAL_DATE BETWEEN :a AND :b",
                    {"a": datetime.date(2025, 5, 1), "b": datetime.date(2025, 5, 31)})[0][0]
    a = answer_question(eng, "number of voyages that arrived last month")
    assert a.mode == "rag" and str(may) in a.answer and "May 2025" in a.answer, a.answer


def test_a_code_alone_after_a_lead_in_asks_what_it_means(eng):
    a = answer_question(eng, "sorry, newbie here: what is a 20RF?")
    assert a.mode == "rag" and "reefer" in a.answer.lower() and "container 2" not in a.answer, a.answer


def test_who_is_answered_by_a_name_or_a_signature_not_by_a_code_in_capitals():
    letter = ("# Survey note\n\nThe cartons follow the ISPM 15 standard. Damage was found on 12 pallets.\n\n"
              "Best regards,\nLiesel Haugen\nCargo Surveyor\n")
    reading = _read("who is the cargo surveyor that wrote this note?", letter)
    assert reading.kind == "person" and "Liesel Haugen" in (reading.sentence or ""), reading
    # "ISPM 15" is a code, not someone: a note without a name or a role declines
    assert _read("who checked the pallets?", "# Note\n\nThe pallets follow ISPM 15. All 12 were checked.").sentence is None
    amount = "# Claim for wet cartons\n\nThe consignee counts 14 of them. Claimed amount: EUR 2,300.00, per the invoice."
    assert "EUR 2,300.00" in (_read("what's the claimed amount for the wet cartons?", amount).sentence or "")


def test_a_need_described_without_asking_leads_with_the_item_whose_description_meets_it(eng):
    # a "not" in the need ("does not fit", "no plug") is part of what is needed, not a row excluded
    a = answer_question(eng, "machinery that does not fit through doors, lowered in by crane, 20 ft")
    assert a.mode == "rag" and "[EQ-20OT]" in a.answer and "[EQ-20DV]" not in a.answer, a.answer
    a = answer_question(eng, "our reefer has to keep cooling on the truck, no plug on that leg")
    assert a.mode == "rag" and "[EQ-GENSET]" in a.answer, a.answer


def test_a_range_after_between_needs_its_month_once_and_a_column_written_apart_is_joined(eng):
    n = eng.query(f"SELECT COUNT(*) FROM {OWNER}.VOYAGES WHERE DEPARTURE_DATE BETWEEN :a AND :b",
                  {"a": datetime.date(2025, 5, 12), "b": datetime.date(2025, 5, 19)})[0][0]
    a = answer_question(eng, "how many voyages departed between May 12th and 19th?")
    assert a.mode == "rag" and str(n) in a.answer and "2025-05-19" in a.answer, a.answer
    name, dwt = _one(eng, "SELECT VESSEL_NAME, DEADWEIGHT_TONNES FROM {o}.VESSELS ORDER BY IMO_NUMBER")[0]
    a = answer_question(eng, f"dead weight of the {name}?")
    assert a.mode == "rag" and f"{dwt:,}" in a.answer, a.answer


def test_more_of_a_column_than_another_row_says_yes_or_no_with_the_gap(eng):
    (a_name, a_dwt), (b_name, b_dwt) = _one(eng, "SELECT VESSEL_NAME, DEADWEIGHT_TONNES FROM {o}.VESSELS "
                                                 "ORDER BY DEADWEIGHT_TONNES DESC, VESSEL_NAME")[:2]
    a = answer_question(eng, f"does the {b_name} have more deadweight than the {a_name}, and what's the gap?")
    assert a.mode == "rag" and a.answer.startswith("No") and f"{a_dwt - b_dwt:g}" in a.answer.replace(",", ""), a.answer


def test_boxes_on_the_manifests_are_counted_from_the_data_not_the_catalogs_stock(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF')")[0][0]
    a = answer_question(eng, "across all our manifests, how many reefers are there, 20s and 40s together?")
    assert a.mode == "rag" and str(n) in a.answer and "available" not in a.answer, a.answer


def test_who_signed_a_document_whose_name_the_ingest_withheld_is_declined_not_quoted(docs_eng):
    a = answer_question(docs_eng, "who is the claims handler on our side for the flooring water damage claim?")
    assert a.mode == "fallback" and "[PERSON]" not in a.answer, a.answer


def test_a_first_part_a_count_does_not_answer_is_asked_alone_or_named(eng):
    box, goods, qty = _one(eng, "SELECT c.CONTAINER_NUMBER, MIN(i.DESCRIPTION), SUM(i.QUANTITY) FROM {o}.CONTAINERS c "
                                "JOIN {o}.CARGO_ITEMS i ON i.CONTAINER_ID = c.CONTAINER_ID GROUP BY c.CONTAINER_NUMBER "
                                "HAVING COUNT(*) = 1 ORDER BY c.CONTAINER_NUMBER")[0]
    a = answer_question(eng, f"whats inside {box}, and how many packages altogether?")
    assert a.mode == "fallback" or (goods in a.answer and str(qty) in a.answer.replace(",", "")), a.answer
    # "what about X - how many ...": the topic, then the count; the count answers it
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                  "WHERE p.PORT_NAME = 'Hamburg'")[0][0]
    a = answer_question(eng, "and what about Hamburg - how many voyages leave from there?")
    assert a.mode == "rag" and str(n) in a.answer, a.answer


def test_rows_of_another_table_than_which_asks_are_declined_and_a_year_given_is_no_count(eng):
    box = _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS ORDER BY CONTAINER_ID")[0][0]
    a = answer_question(eng, f"the vessel of container {box}: which carrier?")
    carrier = _one(eng, "SELECT ca.CARRIER_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                        "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.CARRIERS ca ON ca.CARRIER_ID = "
                        f"s.CARRIER_ID WHERE c.CONTAINER_NUMBER = '{box}'")[0][0]
    assert a.mode == "fallback" or carrier in a.answer, a.answer
    from workshop_lib.assistant import document_reader
    notice = "# Aviso\n\nLa congestión seguirá hasta finales de junio de 2025."
    assert document_reader.read("¿cuántos viajes salieron en abril de 2025?",
                                [{"subject": "n", "text": notice}]).sentence is None


def test_where_a_thing_the_comments_only_deny_is_kept_is_declined_and_a_bracketed_aside_is_dropped(eng):
    a = answer_question(eng, "which column has the MMSI of each ship? the AIS feed gives MMSI only")
    assert a.mode == "fallback" and "MMSI" in a.answer and "IMO_NUMBER" in a.answer, a.answer
    # a yes-or-no question is answered by the comment's "not"
    a = answer_question(eng, "is CAPACITY_TEU measured in tonnes?")
    assert a.mode == "rag" and "CAPACITY_TEU" in a.answer, a.answer
    from workshop_lib import assistant
    assert assistant.without_set_aside("where is the cargo weight a ship can load (not the TEU figure)") == \
        "where is the cargo weight a ship can load"


def test_a_size_written_before_a_value_it_starts_is_that_value_and_not_a_size_left_out(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40HC'")[0][0]
    a = answer_question(eng, "across every manifest, how many 40' high cubes are there?")
    assert a.mode == "rag" and f"There are {n} containers" in a.answer, a.answer
    # "40' reefer" is said of 20RF and 40RF alike: the size would be dropped, so it is declined
    a = answer_question(eng, "average gross weight of a 40' reefer in the data?")
    assert a.mode == "fallback" or "20RF" not in a.answer, a.answer


def test_rows_none_of_whose_rows_right_below_have_a_value_are_found_with_the_value_bound(eng):
    want = {r[0] for r in _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VESSELS s WHERE NOT EXISTS (SELECT 1 FROM {o}.VOYAGES v "
                                    "WHERE v.IMO_NUMBER = s.IMO_NUMBER AND v.STATUS = 'ACTIVE')")}
    a = _answer(eng, "Which ships are NOT on an active voyage right now?")
    assert re.search(rf"\b{len(want)} vessels\b", a.text) and all(n in a.text for n in want), a.text
    assert "ACTIVE" not in a.plan.sql and "ACTIVE" in a.plan.params.values()


def test_a_tables_noun_the_plan_does_not_read_is_not_explained_by_it(eng):
    # "lines" is a carrier's noun, but "across all manifests" is about the cargo: no count of carriers
    a = assistant.answer_data(eng, "how many DG lines do we have across all manifests?")
    assert a.text is None or "carrier" not in a.text, a.text
    # a noun phrase of two nouns still names one thing ("box ship": a vessel)
    name = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY CAPACITY_TEU, VESSEL_NAME")[0][0]
    assert name in _answer(eng, "smallest box ship you track?").text


def test_each_of_the_groups_and_the_top_n_by_a_total_are_answered_per_group(eng):
    per = dict(_one(eng, "SELECT c.ALLIANCE, COUNT(*) FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                         "WHERE c.ALLIANCE IS NOT NULL GROUP BY c.ALLIANCE"))
    a = _answer(eng, "how many ships does each of the three alliances have?")
    assert all(re.search(rf"{re.escape(k)}: {n}\b", a.text) for k, n in per.items()), a.text
    top = _one(eng, "SELECT c.CARRIER_NAME FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                    "GROUP BY c.CARRIER_NAME ORDER BY SUM(v.CAPACITY_TEU) DESC")
    a = _answer(eng, "Top 3 carriers by total TEU capacity of their ships?")
    assert all(r[0] in a.text for r in top[:3]) and top[3][0] not in a.text, a.text


def test_half_a_month_a_spelt_size_and_the_trades_names_for_a_voyages_ends(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE DEPARTURE_DATE BETWEEN '2025-06-16' AND '2025-06-30'")[0][0]
    assert re.search(rf"\b{n} voyages\b", _answer(eng, "how many departures in the second half of June?").text)
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE LIKE '40%'")[0][0]
    assert re.search(rf"\b{n} containers\b", _answer(eng, "how many forty-footers are there?").text)
    number, pod, pol = _one(eng, "SELECT v.VOYAGE_NUMBER, d.PORT_NAME, o.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS d "
                                 "ON d.PORT_ID = v.DESTINATION_PORT_ID JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                 "WHERE d.PORT_NAME <> o.PORT_NAME ORDER BY v.VOYAGE_ID")[0]
    a = _answer(eng, f"what's the discharge port of {number}?")
    assert pod in a.text and pol not in a.text, a.text
    a = _answer(eng, f"port of loading for {number}?")
    assert pol in a.text and pod not in a.text, a.text
    # a voyage number written with a leading zero is that voyage
    assert _answer(eng, f"which vessel sails voyage 0{number}?").links


def test_when_a_named_ship_arrives_lists_its_voyages_with_their_dates_and_the_weekday_when_asked(eng):
    rows = _one(eng, "SELECT v.VOYAGE_NUMBER, v.ARRIVAL_DATE FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = "
                     "v.IMO_NUMBER WHERE s.VESSEL_NAME = 'MSC Tessa'")
    a = _answer(eng, "when does the MSC Tessa arrive?")
    assert all(num in a.text and str(day)[:10] in a.text for num, day in rows), a.text
    number, day = _one(eng, "SELECT VOYAGE_NUMBER, DEPARTURE_DATE FROM {o}.VOYAGES ORDER BY VOYAGE_ID")[0]
    day = datetime.date.fromisoformat(str(day)[:10])
    assert f"({day:%A})" in _answer(eng, f"what day of the week does voyage {number} depart?").text


def test_how_many_of_what_a_column_numbers_is_that_columns_sum(eng):
    n = _one(eng, "SELECT SUM(ci.QUANTITY) FROM {o}.CARGO_ITEMS ci JOIN {o}.CONTAINERS c ON c.CONTAINER_ID = ci.CONTAINER_ID "
                  "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE ci.DESCRIPTION = 'Washing machines' "
                  "AND v.STATUS = 'ACTIVE'")[0][0]
    a = _answer(eng, "how many packages of washing machines are on voyages at sea right now?")
    assert re.search(rf"\b{n}\b", a.text) and a.plan.spec.fn == "SUM", a.text


def test_one_row_said_with_the_and_no_name_gets_no_total_and_one_port_is_not_both_ends(eng):
    assert assistant.answer_data(eng, "and how much does the container weigh in total?").text is None
    assert assistant.answer_data(eng, "how many voyages for Busan have Busan as destination?").text is None
    # a whole ("the fleet", "the cargo") still has a total
    assert _answer(eng, "what's the total value of the cargo?").plan.spec.fn == "SUM"


def test_more_of_other_languages_words_are_read_and_a_separated_german_verb_is_joined(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES WHERE STATUS = 'ACTIVE'")[0][0]
    a = answer_question(eng, "Wie viele Schiffe sind im Moment auf See unterwegs?")
    assert a.mode == "rag" and re.search(rf"\b{n}\b", a.answer), a.answer
    from workshop_lib.assistant.other_languages import in_english
    assert "arrives" in (in_english("Wann kommt die Ever Acme in Tanger Med an?") or "")
    assert "East" in (in_english("¿Hacia dónde va el viaje 939 Este?") or "")


def test_the_catalog_answers_no_who_and_no_what_to_do_and_a_fit_shows_the_nearest_too_small(eng):
    for question in ("In Hamburg, who pays for moving a container to the customs inspection?",
                     "What do we do with an empty reefer that fails its PTI?"):
        assert answer_question(eng, question).mode == "fallback", question
    a = answer_question(eng, "I've got about 70 cbm of cartons of textiles. Is a standard 40' enough or do I need the HC?")
    assert "too small" in a.answer and "holds it" in a.answer, a.answer


def test_an_item_named_in_another_word_order_is_that_item(eng):
    a = answer_question(eng, "how many reefer 40' high cube containers are available at Tanger Med?")
    assert "EQ-40RH" in a.answer and "EQ-40HC" not in a.answer, a.answer


def test_a_word_glossed_in_brackets_by_a_columns_words_is_explained(eng):
    a = answer_question(eng, "which column stores the Zolltarifnummer (HS code) of the goods?")
    assert a.mode == "rag" and "HS_CODE" in a.answer, a.answer


def test_each_name_of_a_port_written_as_two_names_names_it(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                  "WHERE p.PORT_NAME = 'New York / New Jersey'")[0][0]
    for question in ("how many voyages go to New York?", "how many voyages go to New Jersey?"):
        assert re.search(rf"\b{n} voyages\b", _answer(eng, question).text), question


def test_another_tables_row_said_with_the_and_no_name_is_declined_not_listed(eng):
    a = assistant.answer_data(eng, "and who operates the ship?")
    assert a.text is None and "the ship" in a.reason, (a.text, a.reason)


def test_a_clause_set_apart_before_the_question_is_what_the_turn_states(eng):
    alliance = _one(eng, "SELECT ALLIANCE FROM {o}.CARRIERS WHERE CARRIER_NAME = 'HMM'")[0][0]
    a = answer_question(eng, "unrelated: what alliance is HMM in?")
    assert a.mode == "rag" and alliance in a.answer, a.answer
    number, vessel = _one(eng, "SELECT c.CONTAINER_NUMBER, s.VESSEL_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON "
                               "v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                               "ORDER BY c.CONTAINER_ID")[0]
    a = answer_question(eng, f"hey cant find my customers box, its {number} for Bianchi, which ship is it on??")
    assert a.mode == "rag" and vessel in a.answer, a.answer


def test_a_number_in_degrees_is_no_comparison_with_days_and_box_numbers_ask_the_datas_boxes(eng):
    a = assistant.answer_data(eng, "how long was the shrimp above -15 C?")
    assert a.text is None, a.text  # a temperature is no duration
    n = _one(eng, "SELECT COUNT(DISTINCT c.CONTAINER_ID) FROM {o}.CONTAINERS c JOIN {o}.CARGO_ITEMS ci ON "
                  "ci.CONTAINER_ID = c.CONTAINER_ID WHERE ci.UN_NUMBER = '3480'")[0][0]
    chat = answer_question(eng, "which containers have lithium-ion batteries in them? need the box numbers")
    assert chat.mode == "rag" and re.search(rf"\b{n} containers\b", chat.answer) and "SV-" not in chat.answer, chat.answer


def test_a_kind_of_value_after_which_is_what_is_listed_and_that_row_unnamed_is_declined(eng):
    voyage = _one(eng, "SELECT c.VOYAGE_ID FROM {o}.CONTAINERS c WHERE c.SIZE_TYPE IN ('20RF', '40RF') ORDER BY c.VOYAGE_ID")[0][0]
    boxes = {r[0] for r in _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('20RF', '40RF') "
                                     f"AND VOYAGE_ID = {voyage}")}
    a = _answer(eng, f"which reefers are on voyage {voyage}?")
    assert a.plan.spec.target == "CONTAINERS" and all(b in a.text for b in boxes), a.text
    assert assistant.answer_data(eng, "and is that sailing still at sea or is it done?").text is None
    # boxes on a voyage are the data's, never the catalog's stock at the port
    a = answer_question(eng, "which reefers are on that voyage to Rotterdam?")
    assert "EQ-" not in a.answer and "Availability" not in a.answer, a.answer


def test_values_set_against_each_other_are_counted_one_figure_each_and_two_rows_stay_compared(eng):
    counts = dict(_one(eng, "SELECT v.STATUS, COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = "
                            "c.VOYAGE_ID WHERE v.STATUS IN ('ACTIVE', 'SCHEDULED') GROUP BY v.STATUS"))
    a = _answer(eng, "number of boxes on ACTIVE versus SCHEDULED voyages?")
    assert a.plan.spec.action == "group" and all(f"{s}: {n}" in a.text for s, n in counts.items()), a.text
    a = _answer(eng, "Ever Acme versus Ever Lunar: which is the longer ship?")
    assert a.plan.spec.group is None and a.plan.spec.comparative is not None, a.text


def test_a_size_code_the_data_does_not_hold_is_declined_not_dropped(eng):
    a = assistant.answer_data(eng, "how many 45G1 boxes are loaded?")
    assert a.text is None and "45G1" in a.reason, a.text


def test_both_ends_of_a_named_voyage_and_the_other_end_of_voyages_to_a_port(eng):
    number, origin, dest = _one(eng, "SELECT v.VOYAGE_NUMBER, o.PORT_NAME, d.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS o "
                                     "ON o.PORT_ID = v.ORIGIN_PORT_ID JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID "
                                     "ORDER BY v.VOYAGE_ID DESC LIMIT 1")[0]
    a = _answer(eng, f"voyage {number}: from which port, and to which port?")
    assert origin in a.text and dest in a.text, a.text
    port, = _one(eng, "SELECT p.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                      "GROUP BY p.PORT_NAME HAVING COUNT(*) = 2 ORDER BY p.PORT_NAME LIMIT 1")[0]
    origins = {r[0] for r in _one(eng, "SELECT o.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                                       "JOIN {o}.PORTS d ON d.PORT_ID = v.DESTINATION_PORT_ID WHERE d.PORT_NAME = '" + port + "'")}
    a = _answer(eng, f"what port does the sailing to {port} depart from?")
    assert a.plan.spec.target == "VOYAGES" and all(o in a.text for o in origins), a.text
    assert assistant.answer_data(eng, f"how many ports do the voyages to {port} come from?").text is None


def test_a_weight_in_pounds_is_compared_in_kilograms_and_said_as_given(eng):
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE GROSS_WEIGHT_KG > 55000 * 0.45359237")[0][0]
    a = _answer(eng, "how many containers have a VGM above 55,000 lb?")
    assert re.search(rf"\b{n} containers\b", a.text) and "(55,000 lb)" in a.text, a.text


def test_a_total_of_packages_and_no_value_in_a_column_of_the_row_above(eng):
    drums = _one(eng, "SELECT SUM(QUANTITY) FROM {o}.CARGO_ITEMS WHERE PACKAGE_TYPE = 'DR'")[0][0]
    a = _answer(eng, "total drums across the manifests?")
    assert f"{drums:,}" in a.text or str(drums) in a.text, a.text
    ships = {r[0] for r in _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VESSELS s JOIN {o}.CARRIERS c ON c.CARRIER_ID = "
                                     "s.CARRIER_ID WHERE c.ALLIANCE IS NULL")}
    a = _answer(eng, "list the ships that are not part of any alliance")
    assert all(s in a.text for s in ships), a.text


def test_the_number_of_one_row_is_its_identifier_and_the_first_to_arrive_is_the_earliest(eng):
    assert assistant.answer_data(eng, "what is the number of this container?").text is None
    boxes = "SELECT c.CONTAINER_NUMBER FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID ORDER BY "
    late, = _one(eng, boxes + "v.ARRIVAL_DATE DESC, c.CONTAINER_ID LIMIT 1")[0]
    early, = _one(eng, boxes + "v.ARRIVAL_DATE, c.CONTAINER_ID LIMIT 1")[0]
    a = _answer(eng, f"of {late} and {early}, which one gets in first?")
    assert a.rows_shown == 1 and a.first_row is not None and early in a.first_row, a.text
    assert assistant.answer_data(eng, "which of our two boxes gets in first?").text is None


def test_boxes_of_the_manifests_the_planner_cannot_plan_are_not_answered_from_the_catalog(eng):
    a = answer_question(eng, "do we have more 40' reefers or 20' dry boxes sitting on the manifests? exact figures pls")
    counts = dict(_one(eng, "SELECT SIZE_TYPE, COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE IN ('40RF', '20GP') "
                            "GROUP BY SIZE_TYPE"))
    # never the catalog's stock; the data's own counts when the planner reads "sitting on" as "on"
    assert "EQ-" not in a.answer and (a.mode == "fallback" or all(f"{t}: {n}" in a.answer for t, n in counts.items())), \
        a.answer
    n = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '20GP'")[0][0]
    a = _answer(eng, "how many 20' standard dry containers are loaded on the voyages?")
    assert re.search(rf"\b{n} containers\b", a.text), a.text


def test_an_average_over_rows_named_by_their_noun_shows_one_figure(eng):
    avg = _one(eng, "SELECT AVG(SPEED_KNOTS) FROM {o}.VESSEL_POSITIONS")[0][0]
    a = _answer(eng, "what is the mean speed over ground of the vessels that have a live position?")
    assert f"{avg:.2f}" in a.text, a.text


def test_what_happens_next_quotes_the_sentence_after_and_a_code_one_document_writes_leads(docs_eng):
    a = answer_question(docs_eng, "ICS2 gave our box a 'do not load' message. what happens next?")
    assert a.mode == "rag" and "correct the data" in a.answer, a.answer
    a = answer_question(docs_eng, "incident report for voyage 1042's reefer failure: which vessel was it?")
    assert a.answer.startswith("According to incidents/reefer-failure-voyage-1042"), a.answer


def test_the_day_said_before_what_happened_and_a_party_a_tariff_charges_are_read(docs_eng):
    from workshop_lib.parts.ingest.corpus import FOLDER
    report = (FOLDER / "docs" / "incidents" / "container-overboard.md").read_text(encoding="utf-8")
    day = re.search(r"\b\d{1,2} [A-Z][a-z]+ \d{4}\b", report).group(0)
    a = answer_question(docs_eng, "when did the Oceanic Harmony lose containers overboard?")
    assert a.mode == "rag" and day in a.answer.split("\n")[0], a.answer
    a = answer_question(docs_eng, "who pays the COSCO reefer plug-in fee after the first day?")
    assert a.mode == "rag" and "shipper" in a.answer.split("\n")[0], a.answer


def test_which_ports_offer_an_item_lists_its_rows_ports_in_the_country_named(eng):
    from workshop_lib.data import catalog
    rows = catalog.availability()["SV-PTI"]
    a = answer_question(eng, "at which ports can I get a reefer pre-trip inspection?")
    assert a.mode == "rag" and all(f"({p})" in a.answer for p in rows), a.answer
    us = [p for p in rows if catalog.ports()[p]["country_code"] == "US"]
    a = answer_question(eng, "what US ports provide the reefer pre-trip inspection?")
    assert a.mode == "rag" and all(f"({p})" in a.answer for p in us) and "NLRTM" not in a.answer, a.answer


def test_news_headed_update_is_no_request_to_change_the_data(eng):
    from workshop_lib.assistant.answering import router
    assert router.WRITE_REQUEST_RE.search("Update: the buyer moved the delivery to Friday.") is None
    assert router.WRITE_REQUEST_RE.search("update the delivery date to Friday") is not None


def test_the_last_report_the_ships_own_weight_and_their_total_of_the_rows_counted(eng):
    name, at = _one(eng, "SELECT s.VESSEL_NAME, p.REPORTED_AT FROM {o}.VESSEL_POSITIONS p JOIN {o}.VESSELS s ON "
                         "s.IMO_NUMBER = p.IMO_NUMBER ORDER BY p.IMO_NUMBER LIMIT 1")[0]
    a = _answer(eng, f"when did the {name} last send an AIS ping?")
    assert str(at)[:16] in a.text, a.text
    heaviest, = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY DEADWEIGHT_TONNES DESC LIMIT 1")[0]
    a = _answer(eng, "which ship can carry the most weight?")
    assert a.plan.spec.measure.name == "DEADWEIGHT_TONNES" and heaviest in a.text, a.text
    voyage, n, kg = _one(eng, "SELECT VOYAGE_ID, COUNT(*), SUM(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS GROUP BY VOYAGE_ID "
                              "ORDER BY VOYAGE_ID LIMIT 1")[0]
    a = _answer(eng, f"how many containers are on voyage {voyage}, and what is their total gross weight?")
    assert re.search(rf"\b{n} containers\b", a.text) and f"{round(float(kg)):,}" in a.text, a.text


@pytest.mark.parametrize("question", ["hi there!", "Guten Morgen!", "hola, buenos días", "good morning team"])
def test_a_greeting_alone_is_small_talk_in_any_language_the_workshop_reads(eng, question):
    a = answer_question(eng, question)
    assert a.route["label"] == "SMALL_TALK" and a.answer.startswith("Hello"), (a.route, a.answer)


def test_minutes_after_a_number_are_no_minimum(eng):
    # "45 min" is a duration: it neither routes to the data nor picks the port with the fewest units
    a = answer_question(eng, "A reefer has been in alarm for about 45 min at sea. What does the SOP say the crew should do?")
    assert a.mode == "fallback" and "fewest" not in a.answer, a.answer


def test_a_temperature_in_fahrenheit_is_compared_in_celsius(eng):
    expected = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS WHERE REEFER_TEMP_C = 5")[0][0]
    for question in ("how many reefers are set at 41 degrees F?", "how many reefers are set at 41°F?"):
        a = _answer(eng, question)
        assert a.plan.params and 5.0 in [float(p) for p in a.plan.params.values() if isinstance(p, (int, float))], a.plan
        assert f"There are {expected} " in a.text, a.text


def test_the_kind_a_question_is_about_is_the_rows_measured(eng):
    # "how heavy is a 40ft reefer on our manifests": the reefer's weight, not the cargo lines'
    expected = _one(eng, "SELECT AVG(GROSS_WEIGHT_KG) FROM {o}.CONTAINERS WHERE SIZE_TYPE = '40RF'")[0][0]
    a = _answer(eng, "On average, how heavy is a 40ft reefer on our manifests (gross)?")
    assert a.plan.spec.target == "CONTAINERS" and f"{expected:,.2f}" in a.text, a.text


def test_the_ship_of_a_box_is_said_with_the_voyage_it_rides(eng):
    number = _one(eng, "SELECT MIN(CONTAINER_NUMBER) FROM {o}.CONTAINERS")[0][0]
    rides = _one(eng, "SELECT v.VOYAGE_NUMBER, s.VESSEL_NAME FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = "
                      f"c.VOYAGE_ID JOIN {{o}}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER WHERE c.CONTAINER_NUMBER = '{number}'")
    text = _answer(eng, f"which ship is {number} on?").text
    assert len(rides) == 1 and all(value in text for value in rides[0]), text


def test_a_second_part_is_asked_of_the_one_row_the_first_found(eng):
    vessel = _one(eng, "SELECT s.VESSEL_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
                       "WHERE v.STATUS = 'SCHEDULED' ORDER BY v.VOYAGE_ID LIMIT 1")[0][0]
    a = _answer(eng, f"And the {vessel}, when does she sail next and from which port?")
    assert a.plan.spec.target == "VOYAGES" and a.uncovered is None, (a.text, a.uncovered)
    number = a.first_row[[c.name if c else None for c in a.plan.columns].index("VOYAGE_NUMBER")]
    origin = _one(eng, f"SELECT p.PORT_NAME FROM {{o}}.VOYAGES v JOIN {{o}}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                       f"WHERE v.VOYAGE_NUMBER = '{number}'")[0][0]
    assert origin in a.text.split(str(number), 1)[1], a.text


def test_who_runs_a_named_ship_is_its_carrier(eng):
    vessel, carrier = _one(eng, "SELECT s.VESSEL_NAME, c.CARRIER_NAME FROM {o}.VESSELS s "
                                "JOIN {o}.CARRIERS c ON c.CARRIER_ID = s.CARRIER_ID ORDER BY s.IMO_NUMBER LIMIT 1")[0]
    assert carrier in _answer(eng, f"who runs the {vessel}?").text


def test_a_word_listed_among_values_of_one_column_is_read_as_that_column(eng):
    per = dict(_one(eng, "SELECT c.ALLIANCE, COUNT(*) FROM {o}.VESSELS s JOIN {o}.CARRIERS c ON c.CARRIER_ID = s.CARRIER_ID "
                         "WHERE c.ALLIANCE IS NOT NULL GROUP BY c.ALLIANCE"))
    a = _answer(eng, "How many ships does each alliance have (Gemini, Ocean, Premier)?")
    for alliance, n in per.items():
        assert f"{alliance}: {n}" in a.text, a.text


def test_has_a_named_voyage_left_is_answered_by_its_status_and_day(eng):
    number, status, departure = _one(eng, "SELECT VOYAGE_NUMBER, STATUS, DEPARTURE_DATE FROM {o}.VOYAGES "
                                          "ORDER BY VOYAGE_ID LIMIT 1")[0]
    a = _answer(eng, f"Has voyage {number} left yet?")
    assert status in a.text and str(departure)[:10] in a.text, a.text


def test_the_ship_due_next_at_a_port_is_the_first_arrival_after_the_data_date(eng):
    after = str(assistant.planner.reference_date(assistant.knowledge(eng)[0]))
    rows = _one(eng, "SELECT p.PORT_NAME, s.VESSEL_NAME, v.ARRIVAL_DATE FROM {o}.VOYAGES v "
                     "JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID")
    later = sorted((str(day)[:10], port, vessel) for port, vessel, day in rows if str(day)[:10] > after)
    port = later[-1][1]
    expected = next(vessel for day, p, vessel in later if p == port)  # its first arrival after the data's date
    assert expected in _answer(eng, f"which ship is due in {port} next?").text
    # "next" before the verb, and a second part asked of that voyage: where it comes from
    origin = _one(eng, "SELECT o.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.PORTS o ON o.PORT_ID = v.ORIGIN_PORT_ID "
                       "JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                       f"WHERE p.PORT_NAME = '{port}' AND v.ARRIVAL_DATE > '{after}' ORDER BY v.ARRIVAL_DATE LIMIT 1")[0][0]
    text = _answer(eng, f"Which vessel is next due to arrive at {port}, and where is it coming from?").text
    assert expected in text and origin.split(" (")[0] in text, text


def test_which_arrives_first_orders_by_arrival_even_when_a_date_is_asked_too(eng):
    (first, day), *_ = _one(eng, "SELECT c.CONTAINER_NUMBER, v.ARRIVAL_DATE FROM {o}.CONTAINERS c "
                                 "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID WHERE v.ARRIVAL_DATE IS NOT NULL "
                                 "ORDER BY v.ARRIVAL_DATE, c.CONTAINER_NUMBER LIMIT 1")
    text = _answer(eng, "Which container will arrive first, and on what date?").text
    assert first in text and str(day)[:10] in text, text


def test_rows_with_a_line_of_dangerous_goods_are_counted_once_each(eng):
    boxes = _one(eng, "SELECT COUNT(DISTINCT CONTAINER_ID) FROM {o}.CARGO_ITEMS WHERE UN_NUMBER IS NOT NULL")[0][0]
    assert f"There are {boxes} containers" in _answer(eng, "how many containers have dangerous goods in them").text
    # none of whose lines are dangerous is no join: declined, not answered with boxes holding one safe line
    assert assistant.answer_data(eng, "how many boxes have no dangerous goods?").text is None


@pytest.mark.parametrize("question", [
    "MSC Tessa got reflagged to Malta last week, update the flag to MT in the vessels table for her",
    "SITC's gone bust, delete them from the carriers table",
])
def test_a_request_to_change_the_records_later_in_a_sentence_is_refused(eng, question):
    a = answer_question(eng, question)
    assert a.mode == "fallback" and a.answer.startswith("I won't do that"), a.answer


def test_drop_in_a_plain_question_is_no_sql_statement(eng):
    a = answer_question(eng, "Where should the haulier drop the next delivery for voyage 1020?")
    assert not a.answer.startswith("I won't do that"), a.answer


def test_a_ships_port_of_departure_is_where_it_is_coming_from(eng):
    (vessel, origin), *_ = _one(eng, "SELECT s.VESSEL_NAME, p.PORT_NAME FROM {o}.VOYAGES v JOIN {o}.VESSELS s "
                                     "ON s.IMO_NUMBER = v.IMO_NUMBER JOIN {o}.PORTS p ON p.PORT_ID = v.ORIGIN_PORT_ID "
                                     "WHERE v.STATUS = 'ACTIVE' ORDER BY v.VOYAGE_ID LIMIT 1")
    text = _answer(eng, f"Where is the {vessel} coming from?").text
    assert origin.split(" (")[0] in text and "latitude" not in text, text
    # "to port X" says the end as "to X" does
    port = _one(eng, "SELECT PORT_NAME FROM {o}.PORTS ORDER BY PORT_ID LIMIT 1")[0][0]
    arriving = _one(eng, "SELECT COUNT(*) FROM {o}.VOYAGES v JOIN {o}.PORTS p ON p.PORT_ID = v.DESTINATION_PORT_ID "
                         f"WHERE p.PORT_NAME = '{port}'")[0][0]
    assert f"There are {arriving} voyages" in _answer(eng, f"How many voyages are headed to port {port}?").text


def test_a_top_n_said_with_its_number_and_a_ship_by_two_words_of_its_name(eng):
    rows = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY DEADWEIGHT_TONNES DESC LIMIT 3")
    text = _answer(eng, "Give me the three vessels with the highest deadweight, with the tonnes.").text
    assert all(name in text for (name,) in rows), text
    # "the two vessels" with nothing to say which two is still declined
    assert assistant.answer_data(eng, "what is the deadweight of the two vessels?").text is None
    # a ship named by the last two of its three words, first in the question
    (name, carrier), *_ = _one(eng, "SELECT s.VESSEL_NAME, c.CARRIER_NAME FROM {o}.VESSELS s JOIN {o}.CARRIERS c "
                                    "ON c.CARRIER_ID = s.CARRIER_ID WHERE s.VESSEL_NAME LIKE '% % %' ORDER BY s.IMO_NUMBER")
    tail = " ".join(name.split()[1:])
    assert carrier in _answer(eng, f"{tail}: who operates her?").text


def test_rows_over_a_figure_in_another_unit_are_the_datas_not_a_conversion(eng):
    heaviest = _one(eng, "SELECT CONTAINER_NUMBER FROM {o}.CONTAINERS WHERE GROSS_WEIGHT_KG > 60000 / 2.20462")
    from workshop_lib.parts.chat.app import ChatService
    body, mode = ChatService(eng).answer({"question": "which boxes weigh more than 60,000 lbs gross?",
                                          "thread_id": None, "user_id": "u-lbs", "agent": False})
    assert mode == "rag" and all(n in body["answer"] for (n,) in heaviest), body["answer"]


def test_more_ways_of_writing_a_superlative_a_period_a_status_and_courtesy(eng):
    south = _one(eng, "SELECT PORT_NAME FROM {o}.PORTS ORDER BY LATITUDE LIMIT 1")[0][0]
    assert south in _answer(eng, "What's our southern-most port?").text
    (day,) = _one(eng, "SELECT MIN(DEPARTURE_DATE) FROM {o}.VOYAGES")[0]
    start = datetime.date.fromisoformat(str(day)[:10])
    end = start + datetime.timedelta(days=6)
    n = _one(eng, f"SELECT COUNT(*) FROM {{o}}.VOYAGES WHERE DEPARTURE_DATE BETWEEN '{start}' AND '{end}'")[0][0]
    said = f"{start.day}-{end.day} {end.strftime('%B')}" if start.month == end.month else f"{start} to {end}"
    text = _answer(eng, f"How many sailings departed in the week {said}?").text
    assert f" {n} voyage" in text and str(start) in text, text
    at_sea = _one(eng, "SELECT COUNT(*) FROM {o}.CONTAINERS c JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID "
                       "WHERE v.STATUS = 'ACTIVE'")[0][0]
    assert f"There are {at_sea} containers" in _answer(eng, "how many boxes are on the water?").text
    scac = _one(eng, "SELECT SCAC_CODE FROM {o}.CARRIERS WHERE CARRIER_NAME = 'Yang Ming'")[0][0]
    assert scac in _answer(eng, "gimme the SCAC for Yang Ming pls").text
    (box, kg), *_ = _one(eng, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {o}.CONTAINERS ORDER BY GROSS_WEIGHT_KG, "
                              "CONTAINER_NUMBER LIMIT 1")
    a = _answer(eng, "Which box has the lowest VGM of all, and how much is it?")
    assert a.uncovered is None and box in a.text and f"{kg:,.0f}" in a.text, a.text


def test_what_a_ship_can_take_of_two_named_is_capacity_and_a_table_read_from_its_comment(eng):
    (a, ta), (b, tb) = _one(eng, "SELECT VESSEL_NAME, CAPACITY_TEU FROM {o}.VESSELS ORDER BY CAPACITY_TEU DESC LIMIT 2")
    text = _answer(eng, f"{b} or {a}: which of the two can take more boxes?").text
    assert text and f"{ta:,}" in text and f"{tb:,}" in text and text.index(a) < text.index(b), text
    # two tables named; the words of one's comment say which is asked
    a = answer_question(eng, "which table keeps the vessels' latest AIS position reports?")
    assert re.search(r"SUPPLYCHAIN\.[A-Z_.]+", a.answer).group(0) == f"{OWNER}.VESSEL_POSITIONS", a.answer
    # a code said first, asked of after a long dash
    code = _one(eng, "SELECT PACKAGE_TYPE FROM {o}.CARGO_ITEMS WHERE PACKAGE_TYPE = 'BG' LIMIT 1")[0][0]
    assert "bag" in answer_question(eng, f"and package type {code} \u2014 what is that?").answer


def test_a_year_after_built_a_verb_of_having_a_party_who_asks_and_which_key(eng):
    later = _one(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS WHERE YEAR_BUILT >= 2020 ORDER BY VESSEL_NAME")
    text = _answer(eng, "list the ships built 2020 or later").text
    assert text and all(n in text for (n,) in later), text
    per = _one(eng, "SELECT c.ALLIANCE, COUNT(*) FROM {o}.VESSELS v JOIN {o}.CARRIERS c ON c.CARRIER_ID = v.CARRIER_ID "
                    "WHERE c.ALLIANCE IS NOT NULL GROUP BY c.ALLIANCE ORDER BY 2 DESC, 1")
    text = _answer(eng, "how many vessels does each alliance deploy?").text
    assert text and all(f"{a}: {n}" in text for a, n in per), text
    # a country said of someone outside the data is no filter, and who asks is no part of the question
    (box, kg), *_ = _one(eng, "SELECT CONTAINER_NUMBER, GROSS_WEIGHT_KG FROM {o}.CONTAINERS ORDER BY CONTAINER_ID LIMIT 1")
    text = _answer(eng, f"German importer needs the gross weight of {box}").text
    assert text and f"{kg:,.0f} kg" in text, text
    a = answer_question(eng, "containers and voyages: what key?")
    assert "CONTAINERS.VOYAGE_ID" in a.answer, a.answer


def test_a_reference_the_question_names_is_answered_only_from_a_document_that_writes_it(docs_eng):
    from workshop_lib.parts.ingest.corpus import FOLDER
    claim = (FOLDER / "docs" / "claims" / "laptop-shortage-claim.md").read_text(encoding="utf-8")
    ref = re.search(r"CL-\d{4}-\d{4}", claim).group(0)
    counted = re.search(r"counted (\d+) cartons", claim).group(1)
    a = answer_question(docs_eng, f"For claim {ref}, how many cartons did the consignee count?")
    assert a.mode != "fallback" and counted in a.answer and "laptop-shortage-claim" in a.answer, a.answer
    # a reference no document writes: the documents do not answer, whatever passage is near
    a = answer_question(docs_eng, "For claim CL-2031-7777, how many cartons did the consignee count?")
    assert a.mode == "fallback" and "CL-2031-7777" in a.answer, a.answer


def test_where_a_tables_rows_are_kept_is_the_table_and_an_attribute_is_its_column(eng):
    a = answer_question(eng, "where are the voyages kept?")
    assert re.search(r"SUPPLYCHAIN\.[A-Z_.]+", a.answer).group(0) == f"{OWNER}.VOYAGES", a.answer
    a = answer_question(eng, "where is the arrival date of a voyage kept?")
    assert re.search(r"SUPPLYCHAIN\.[A-Z_.]+", a.answer).group(0) == f"{OWNER}.VOYAGES.ARRIVAL_DATE", a.answer


def test_a_short_word_a_comment_explains_a_code_by_is_read_in_the_plural(eng):
    (box, n), *_ = _one(eng, "SELECT k.CONTAINER_NUMBER, SUM(c.QUANTITY) FROM {o}.CARGO_ITEMS c JOIN {o}.CONTAINERS k "
                             "ON k.CONTAINER_ID = c.CONTAINER_ID WHERE c.PACKAGE_TYPE = 'BG' GROUP BY k.CONTAINER_NUMBER "
                             "ORDER BY k.CONTAINER_NUMBER")
    text = _answer(eng, f"how many bags does {box} hold?").text
    assert text and f" {n}" in text and "BG" in text, text
    # a short code is still no plural ("us" is no "uses")
    assert not [lk for lk in assistant.knowledge(eng)[1].links("which carriers does the data say it uses?")
                if lk.column == "HQ_COUNTRY"]

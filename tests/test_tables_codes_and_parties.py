"""Answers that depend on what a question points at: "every" in a list, the end of a voyage a verb
names, the trip a ship is making, the table whose comment says what is asked, the letters of a code,
a value of "that box" with no box named, and a party only a document names.

Expected values come from SQL over SUPPLYCHAIN, the columns' comments and the documents' own text.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from workshop_lib import assistant
from workshop_lib.assistant import value_meanings
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data import catalog
from workshop_lib.data.supplychain_data import OWNER


def _rows(eng, sql):
    return eng.query(sql.format(o=OWNER))


def test_list_every_row_of_a_year_lists_them_not_a_count_per_year(eng):
    year = _rows(eng, "SELECT YEAR_BUILT FROM {o}.VESSELS GROUP BY YEAR_BUILT HAVING COUNT(*) >= 2 "
                      "ORDER BY COUNT(*) DESC, YEAR_BUILT")[0][0]
    names = [r[0] for r in _rows(eng, f"SELECT VESSEL_NAME FROM {{o}}.VESSELS WHERE YEAR_BUILT = {int(year)}")]
    a = answer_question(eng, f"list every vessel built in {int(year)} pls")
    assert a.mode == "rag" and all(n in a.answer for n in names), a.answer


def test_a_count_for_every_row_of_a_group_is_still_a_group(eng):
    carriers = _rows(eng, "SELECT c.CARRIER_NAME FROM {o}.CARRIERS c JOIN {o}.VESSELS s ON s.CARRIER_ID = c.CARRIER_ID "
                          "GROUP BY c.CARRIER_NAME")
    a = answer_question(eng, "how many vessels are there for every carrier?")
    assert a.mode == "rag" and sum(r[0] in a.answer for r in carriers) >= 2, a.answer


def test_voyages_that_end_at_a_port_are_its_arrivals(eng):
    port, arriving = next(r for r in _rows(
        eng, "SELECT p.PORT_NAME, SUM(CASE WHEN v.DESTINATION_PORT_ID = p.PORT_ID THEN 1 ELSE 0 END), "
             "SUM(CASE WHEN v.ORIGIN_PORT_ID = p.PORT_ID THEN 1 ELSE 0 END) FROM {o}.PORTS p JOIN {o}.VOYAGES v "
             "ON p.PORT_ID IN (v.ORIGIN_PORT_ID, v.DESTINATION_PORT_ID) GROUP BY p.PORT_NAME ORDER BY p.PORT_NAME")
        if r[1] != r[2] and r[1] > 0)[:2]
    a = answer_question(eng, f"And {port} - how many sailings in the data end there?")
    assert a.mode == "rag" and f"There are {int(arriving)} voyage" in a.answer, a.answer


def test_boxes_on_board_this_trip_are_those_of_the_voyage_under_way(eng):
    vessel, now = next(r for r in _rows(
        eng, "SELECT s.VESSEL_NAME, SUM(CASE WHEN v.STATUS = 'ACTIVE' THEN 1 ELSE 0 END), COUNT(*) FROM {o}.CONTAINERS c "
             "JOIN {o}.VOYAGES v ON v.VOYAGE_ID = c.VOYAGE_ID JOIN {o}.VESSELS s ON s.IMO_NUMBER = v.IMO_NUMBER "
             "GROUP BY s.VESSEL_NAME ORDER BY s.VESSEL_NAME") if 0 < r[1] < r[2])[:2]
    a = answer_question(eng, f"ok, and the {vessel} - how many boxes has she got on board this trip?")
    assert a.mode == "rag" and f"There are {int(now)} containers" in a.answer, a.answer


def _first_subject(a) -> str:
    return a.used_chunks[0]["subject"].removeprefix(f"{OWNER}.")


def test_a_table_question_names_the_table_whose_comment_says_it(eng):
    schema, _ = assistant.knowledge(eng)
    # the table of the goods inside a box, and the one that keeps no track history: read from their comments
    goods = next(t for t, c in schema.table_comments.items() if re.search(r"\bgoods\b", c, re.I))
    track = next(t for t, c in schema.table_comments.items() if re.search(r"\btrack history\b", c, re.I))
    a = answer_question(eng, "Which table tells me what goods are packed in a container?")
    assert a.mode == "rag" and _first_subject(a) == goods, a.answer
    b = answer_question(eng, "is there a table with the full track history of a ship over the last weeks?")
    assert b.mode == "rag" and _first_subject(b) == track, b.answer


def test_the_letters_of_a_code_are_read_from_its_column_comment(eng):
    schema, _ = assistant.knowledge(eng)
    col = schema.column("CONTAINERS", "SIZE_TYPE")
    codes = [r[0] for r in _rows(eng, "SELECT DISTINCT SIZE_TYPE FROM {o}.CONTAINERS ORDER BY SIZE_TYPE")]
    letters = {re.sub(r"^\d+", "", c) for c in codes}
    checked = 0
    for part in sorted(letters):
        meanings = {value_meanings.meaning(col, c) for c in codes if c.endswith(part)}
        if len(meanings) != 1 or None in meanings:
            continue
        a = answer_question(eng, f"{codes[0]} vs {codes[-1]} - whats the {part} bit mean")
        # (said as the meaning of those letters, not only inside the whole comment shown)
        assert a.mode == "rag" and f"{part} in" in a.answer and f"means {meanings.pop()}" in a.answer, a.answer
        checked += 1
    assert checked >= 2


def test_a_value_of_that_box_with_no_box_named_asks_which(eng):
    a = answer_question(eng, "Whatever. What's the gross weight of that box?")
    assert a.mode == "fallback" and "Which box" in a.answer, a.answer
    # what the column holds, asked by one row of it, is still the schema's
    b = answer_question(eng, "what does the gross weight of that box include?")
    assert b.mode == "rag" and "CONTAINERS.GROSS_WEIGHT_KG" in b.used_chunks[0]["subject"], b.answer


def test_a_party_only_a_document_names_makes_it_the_documents(docs_eng):
    text = (Path(catalog.__file__).parent / "corpus" / "docs" / "claims" / "water-damage-claim.md").read_text()
    party = re.search(r"Account holder: (.+?) (?:LLC|Ltd|Inc)\b", text).group(1)
    amount = re.search(r"Claimed amount: USD ([\d,]+)", text).group(1)
    cartons = re.search(r"to (\d+) of \d+ cartons", text).group(1)
    a = answer_question(docs_eng, f"How much is {party} claiming for the water-damaged flooring, and how many "
                                  "cartons were hit?")
    assert a.mode == "rag" and amount in a.answer and cartons in a.answer, a.answer
    assert "claims/water-damage-claim" in a.answer and "catalog" not in a.answer, a.answer


def test_the_document_quoted_is_the_first_source(docs_eng):
    a = answer_question(docs_eng, "The incident report on the reefer failure on voyage 1042 - which vessel was that actually?")
    quoted = re.match(r"According to (\S+):", a.answer)
    assert a.mode == "rag" and quoted is not None, a.answer
    assert a.used_chunks[0]["subject"] == quoted.group(1), (a.answer, a.used_chunks)


@pytest.mark.parametrize(("said", "reply"), [("Danke.", "welcome"), ("merci beaucoup", "welcome"), ("gracias!", "welcome"),
                                             ("ok", "Alright"), ("Got it!", "Alright")])
def test_thanks_in_other_languages_and_an_acknowledgement_are_small_talk(eng, said, reply):
    a = answer_question(eng, said)
    assert a.mode == "fallback" and reply in a.answer and "not sure" not in a.answer, a.answer


def test_one_row_against_the_average_of_all_is_not_answered_with_its_own_value(eng):
    vessel = _rows(eng, "SELECT VESSEL_NAME FROM {o}.VESSELS ORDER BY CAPACITY_TEU DESC")[0][0]
    a = answer_question(eng, f"is the {vessel} bigger than the average ship in the data?")
    assert a.mode == "fallback", a.answer

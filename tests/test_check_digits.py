"""Check digits of IMO and container numbers (workshop_lib/assistant/check_digits.py): every number of
SUPPLYCHAIN passes, one digit changed fails, and the chat answers a validity question with the digit."""
from __future__ import annotations

import pytest

from tests.conftest import answers_engine
from workshop_lib.assistant import check_digits
from workshop_lib.assistant.answering.answer import answer_question
from workshop_lib.data.supplychain_data import OWNER


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = answers_engine("embedded", tmp_path_factory.mktemp("digits"))
    yield engine
    engine.close()


def _changed(code: str) -> str:
    """The code with its last digit changed: a check digit that no longer fits."""
    return code[:-1] + str((int(code[-1]) + 3) % 10)


def test_every_number_of_the_data_passes_and_a_changed_one_fails(eng):
    imos = [str(r[0]) for r in eng.query(f"SELECT IMO_NUMBER FROM {OWNER}.VESSELS")]
    boxes = [r[0] for r in eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS")]
    assert imos and boxes
    assert all(check_digits.imo_check_digit(n) == int(n[-1]) for n in imos)
    assert all(check_digits.container_check_digit(c) == int(c[-1]) for c in boxes)
    assert not any(check_digits.imo_check_digit(n) == int(_changed(n)[-1]) for n in imos)
    assert not any(check_digits.container_check_digit(c) == int(_changed(c)[-1]) for c in boxes)


@pytest.mark.parametrize("question", ["IMO {n} - is that a valid IMO number? I think a digit is off",
                                      "is the IMO {n} a real IMO number or a typo?"])
def test_the_chat_says_whether_an_imo_number_is_valid(eng, question):
    imo = str(eng.query(f"SELECT IMO_NUMBER FROM {OWNER}.VESSELS ORDER BY IMO_NUMBER")[0][0])
    good = answer_question(eng, question.format(n=imo))
    assert good.mode == "rag" and "is a valid IMO number" in good.answer and "holds it" in good.answer, good.answer
    bad = answer_question(eng, question.format(n=_changed(imo)))
    assert "is not a valid IMO number" in bad.answer and f"check digit {imo[-1]}" in bad.answer, bad.answer


def test_the_chat_says_whether_a_container_number_is_valid(eng):
    box = eng.query(f"SELECT CONTAINER_NUMBER FROM {OWNER}.CONTAINERS ORDER BY CONTAINER_ID")[0][0]
    bad = answer_question(eng, f"is {_changed(box)} a valid container number?")
    assert "is not a valid container number" in bad.answer and "holds no such number" in bad.answer, bad.answer


def test_no_validity_asked_is_no_check(eng):
    assert check_digits.checked("what is the flag of IMO 9863247?") is None

"""Dates the user gives in their own words, compared and counted (parts/memory/timeline.py), through the
chat service. Every expected figure is worked out here from the dates the test itself says."""
from __future__ import annotations

import datetime

import pytest

from workshop_lib.parts.memory import timeline


def _ask(service, user, text, threads, thread="t1"):
    body, mode = service.answer({"question": text, "thread_id": threads.get((user, thread)), "user_id": user,
                                 "agent": False})
    threads.setdefault((user, thread), body["thread_id"])
    return body["answer"], mode


@pytest.mark.parametrize("text, day", [
    ("booked on the third of March", (3, 3)), ("that one on February twenty-eighth", (2, 28)),
    ("a hold on HX-2231 on Tuesday the 27th of May", (5, 27)), ("released Friday 30 May", (5, 30)),
    ("filed on the thirtieth of May", (5, 30)), ("it came on May the 5th", (5, 5)), ("on 2025-06-04", (6, 4)),
])
def test_dates_in_words_and_digits_are_read_in_the_year_given(text, day):
    assert timeline.dates_in(text, 2025)[0][1] == datetime.date(2025, *day)


def test_no_date_where_none_is_said():
    assert timeline.dates_in("it may be 5 days late", 2025) == []
    assert timeline.dates_in("the 31st of June", 2025) == []  # no such day


def test_which_came_first_how_many_days_apart_and_what_date(service):
    threads: dict = {}
    a, b = datetime.date(2025, 3, 3), datetime.date(2025, 2, 27)
    _ask(service, "tl-ana", f"the Osprey consolidation got booked on the {a.day}rd of March, standard dry boxes", threads)
    _ask(service, "tl-ana", "the Kestrel lot - booked that one on February twenty-seventh", threads, "t2")
    text, mode = _ask(service, "tl-ana", "Which did I book first, the Osprey consolidation or the Kestrel lot?",
                      threads, "t3")
    assert mode == "rag" and text.startswith("Kestrel lot came first")
    text, mode = _ask(service, "tl-ana", "how many days apart were the Osprey and Kestrel bookings?", threads, "t3")
    assert mode == "rag" and text.startswith(f"{(a - b).days} days")
    text, mode = _ask(service, "tl-ana", "what date did I say the Osprey consolidation was booked?", threads, "t3")
    assert mode == "rag" and "3 March 2025" in text


def test_a_later_day_said_without_its_month_stops_an_answer_that_may_be_stale(service):
    threads: dict = {}
    _ask(service, "tl-ben", "The Aegean warehouse reopens on the twelfth of June after the renovation.", threads)
    _ask(service, "tl-ben", "update: the Aegean warehouse renovation overran, it reopens on the sixteenth", threads)
    text, mode = _ask(service, "tl-ben", "what date did I say the Aegean warehouse reopens?", threads, "t2")
    assert mode == "fallback" and "12 June" not in text


def test_nothing_said_nothing_answered(service):
    threads: dict = {}
    text, mode = _ask(service, "tl-cem", "how many days apart were my two Rotterdam bookings?", threads)
    assert mode == "fallback"


def test_a_span_between_two_ends_named_apart_and_what_happened_on_a_day(service):
    threads: dict = {}
    start, hold, end = datetime.date(2025, 5, 26), datetime.date(2025, 5, 30), datetime.date(2025, 6, 6)
    _ask(service, "tl-ida", f"Update on Larkspur Ceramics: the quote was signed on the {start.day}th of May, and then on "
                            f"the thirtieth of May the inspectors released the pallets.", threads)
    _ask(service, "tl-ida", "the haulage for the Larkspur order is set for the sixth of June, early slot.", threads, "t2")
    text, mode = _ask(service, "tl-ida", "how many days from the quote signature to the haulage?", threads, "t3")
    assert mode == "rag" and text.startswith(f"{(end - start).days} days"), text
    text, mode = _ask(service, "tl-ida", "what happened on the thirtieth of May with Larkspur?", threads, "t3")
    assert mode == "rag" and "inspectors released" in text and str(hold.day) in text, text
    # a day nothing was told about: no event, no answer from the user's words
    text, mode = _ask(service, "tl-ida", "what happened on the 2nd of June with Larkspur?", threads, "t3")
    assert "inspectors" not in text, text


def test_which_came_first_in_a_middle_clause_is_answered_with_the_days_between(service):
    thread = None
    for said in ("we opened the new bonded warehouse on the third of March, finally.",
                 "News: we signed with Tagus Wines on the tenth of March."):
        body, _ = service.answer({"question": said, "thread_id": thread, "user_id": "mid-a", "agent": False})
        thread = body["thread_id"]
    body, mode = service.answer({"question": "Which came first, opening the bonded warehouse or signing Tagus, and how "
                                             "many days apart?", "thread_id": None, "user_id": "mid-a", "agent": False})
    assert mode == "rag" and "7 days apart" in body["answer"] and body["answer"].startswith("Opening"), body["answer"]


def test_days_ago_and_days_left_are_counted_from_the_day_told_as_today(service):
    threads: dict = {}
    loaded, due, moved, today = (datetime.date(2025, 5, 21), datetime.date(2025, 6, 20), datetime.date(2025, 6, 24),
                                 datetime.date(2025, 6, 9))
    _ask(service, "tl-tod", "The Marlow pallets were loaded at the plant on 21 May.", threads)
    _ask(service, "tl-tod", "Payment for the Marlow order falls due on the twentieth of June.", threads, "t2")
    _ask(service, "tl-tod", "Small change: Marlow's payment got moved to 24 June.", threads, "t3")
    text, mode = _ask(service, "tl-tod", "It's the 9th of June today - how many days ago were the Marlow pallets loaded?",
                      threads, "t4")
    assert mode == "rag" and text.startswith(f"{(today - loaded).days} days"), text
    _ask(service, "tl-tod", "Today is June 9.", threads, "t5")
    text, mode = _ask(service, "tl-tod", "how many days are left until the Marlow payment?", threads, "t5")
    # the day moved is the one counted to, not the first one told
    assert mode == "rag" and text.startswith(f"{(moved - today).days} days") and (due - today).days != \
        (moved - today).days, text
    # no day told as today: counted from the date the data is stated as of, and said so
    text, mode = _ask(service, "tl-tod2", "Payment for the Ferris order falls due on the twentieth of June.", threads)
    text, mode = _ask(service, "tl-tod2", "how many days left until the Ferris payment?", threads, "t2")
    assert mode == "rag" and text.startswith("18 days") and "the data's date, 2 June 2025" in text, text

"""Issue 17, item 7: Part 5's router, response cache and model-output parsing under hostile input."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from workshop_lib import connect
from workshop_lib.core.llm import LLM
from workshop_lib.data import catalog, supplychain
from workshop_lib.parts import grounded


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("catalog-rel"))
    supplychain.seed(engine, progress=False)
    catalog.seed(engine, progress=False)
    yield engine
    engine.close()


def _bounded(fn, seconds):
    box: dict[str, Any] = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    t0 = time.monotonic()
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    return box["v"], time.monotonic() - t0


@pytest.mark.parametrize("question", ["how many " * 100_000, "how many boxes " * 20_000 + "?",
                                      "where is " * 50_000, "a" * 500_000])
def test_routing_is_linear_in_question_length(question):
    route, elapsed = _bounded(lambda: grounded.route(question), 10)
    assert route.intent in grounded.INTENTS and elapsed < 2.0, elapsed


def test_route_still_sees_a_normal_availability_question():
    assert grounded.route("How many reefers do you have at Rotterdam?").intent == "EQUIPMENT_AVAILABILITY"


def test_response_cache_key_holds_every_parameter_that_changes_the_answer(eng):
    q = "I need a refrigerated container for frozen fish"
    grounded.clear_caches(eng)
    strict = grounded.ask(eng, q, min_similarity=0.99)
    assert not strict.item_ids  # nothing that similar: a "no match" answer
    normal = grounded.ask(eng, q)
    assert not normal.from_cache and normal.item_ids  # the strict answer was not served
    assert grounded.ask(eng, q).from_cache
    one = grounded.ask(eng, q, k=1)
    assert not one.from_cache
    keys = {grounded.response_cache_key("m", "p", q, k, t) for k in (1, 3) for t in (None, 0.3, 0.99)}
    assert len(keys) == 6


def _llm_replying(content=None, arguments=None):
    def create(**kwargs):
        calls = None
        if arguments is not None:
            calls = [SimpleNamespace(type="function", id="c1", function=SimpleNamespace(
                name=grounded.SELECT_TOOL, arguments=arguments))]
        msg = SimpleNamespace(content=content, tool_calls=calls)
        return SimpleNamespace(choices=[SimpleNamespace(message=msg)])

    return LLM(SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create))), "fake", timeout=5)


DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJ = '{"item_ids": ' + DEEP + "}"


@pytest.mark.parametrize("reply", [{"content": DEEP}, {"content": DEEP_OBJ}, {"arguments": DEEP_OBJ},
                                   {"arguments": DEEP}, {"content": '{"intent": ' + DEEP + "}"}])
def test_deeply_nested_model_json_falls_back(eng, reply):
    llm = _llm_replying(**reply)
    route = grounded.classify_llm(llm, "I need a reefer")
    assert route.intent in grounded.INTENTS and route.method.startswith("rules")
    rows = grounded.match_catalog(eng, "refrigerated container").matches
    outcome = grounded.select_with_llm(llm, "I need a reefer", rows)
    assert not outcome.ok and outcome.status.startswith("fallback")


def test_a_question_with_no_known_word_is_a_clear_error(eng):
    with pytest.raises(ValueError, match="question"):
        grounded.match_catalog(eng, "\x00")  # SQL text stops at NUL: nothing to embed
    assert isinstance(grounded.match_catalog(eng, "\x01\x02"), grounded.MatchResult)
    with pytest.raises(ValueError, match="not valid text"):
        grounded.match_catalog(eng, "reefer \udc80")

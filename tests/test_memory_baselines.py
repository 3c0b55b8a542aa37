"""Memory baselines side by side (parts/memory/baselines.py, reader.py, parts/chat/baseline_eval.py)
on a tiny conversation set written here: the orderings that hold by construction, with real values."""
from __future__ import annotations

import pytest

from tests.conftest import answers_engine
from workshop_lib.parts.chat import baseline_eval
from workshop_lib.parts.memory import baselines

FILLERS = ("which carriers are in the Gemini Cooperation?", "how many ports do you have in North Europe?",
           "what does 40HC mean?", "which region is Jebel Ali in?", "who operates the ONE Harmony?")


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    e = answers_engine("embedded", tmp_path_factory.mktemp("baselines"))
    yield e
    e.close()


def _voyages(eng, n: int) -> list[str]:
    return [r[0] for r in eng.query(f"SELECT VOYAGE_NUMBER FROM SUPPLYCHAIN.VOYAGES ORDER BY VOYAGE_ID LIMIT {n}")]


def _turn(user: str, thread: str, text: str, expect: dict | None = None) -> dict:
    return {"user": user, "thread": thread, "text": text, **({"expect": expect} if expect else {})}


def _set(eng) -> list[dict]:
    first, second = _voyages(eng, 2)
    u, w = "bl-kim", "bl-lou"
    update = [_turn(u, "t1", f"my voyage is {first}")]
    update += [_turn(u, "t1", FILLERS[i % len(FILLERS)]) for i in range(3)]
    update += [_turn(u, "t1", f"sorry, my mistake: not {first} but {second}")]
    update += [_turn(u, "t2", FILLERS[i % len(FILLERS)]) for i in range(36)]
    update += [_turn(u, "t2", "what's my voyage?", {"text": [[second]], "not_text": [first]})]
    recall = [_turn(w, "t1", f"our cargo rides on voyage {first}"), _turn(w, "t1", FILLERS[0]),
              _turn(w, "t2", "which voyage is our cargo on?", {"text": [[first]]}),
              _turn(w, "t2", "what's my container number?", {"abstain": True})]
    return [{"id": "bl-update", "ability": "knowledge_update", "turns": update},
            {"id": "bl-recall", "ability": "information_extraction", "turns": recall}]


@pytest.fixture(scope="module")
def measures(eng):
    return baseline_eval.run(eng, _set(eng), list(baselines.NAMES))


def _outcomes(m, name: str) -> dict[tuple[str, int], str]:
    return {(s.conversation, s.turn): s.outcome for s in m.scored if s.baseline == name}


def _answer(m, name: str, conversation: str) -> str:
    return next(s.answer for s in m.scored if s.baseline == name and s.conversation == conversation)


def test_no_memory_answers_no_recall_turn(measures):
    got = _outcomes(measures, "no_memory")
    assert got == {("bl-update", 42): "unhelpful", ("bl-recall", 3): "unhelpful", ("bl-recall", 4): "correct"}


def test_add_only_serves_the_old_value_consolidation_the_new(eng, measures):
    # ADD-only keeps both values valid and the store's search ranks them for the question: the
    # first statement ("my voyage is ...") matches "what's my voyage?" better than the correction.
    first, second = _voyages(eng, 2)
    new = _answer(measures, "summary+memories", "bl-update")
    old = _answer(measures, "add_only", "bl-update")
    assert second in new and first not in new
    assert first in old
    assert _outcomes(measures, "summary+memories")[("bl-update", 42)] == "correct"
    assert _outcomes(measures, "add_only")[("bl-update", 42)] == "confidently_wrong"
    # the correction was said 38 turns before the question: the last 6 messages do not hold it
    assert _outcomes(measures, "last_n")[("bl-update", 42)] == "unhelpful"


def test_full_transcript_tokens_grow_while_memorys_stay_bounded(measures):
    def series(name: str) -> list[int]:
        return [t for b, c, _, t in measures.tokens if b == name and c == "bl-update"]

    full, memory = series("full_transcript"), series("summary+memories")
    assert len(full) == len(memory) == 42
    assert full[0] == 0 and all(b > a for a, b in zip(full, full[1:]))
    assert max(memory) <= baselines.CARD_BUDGET + 60 < full[-1]
    assert memory[-1] * 4 < full[-1]
    assert set(series("no_memory")) == {0}


def test_table_rows_and_unknown_names(measures):
    table = {(r.baseline, r.ability): r for r in baseline_eval.rows(measures)}
    assert table["no_memory", "all"].correct == 1 and table["no_memory", "all"].n == 3
    assert table["summary+memories", "information_extraction"].correct == 2
    assert table[baseline_eval.SERVICE, "all"].tokens_per_turn is None
    assert "| no_memory | 1/2 | 0/1 | 1/3 (33%) | 0 | 0 |" in baseline_eval.format_accuracy(baseline_eval.rows(measures))
    assert baselines.names("all") == list(baselines.NAMES)
    assert baselines.names("last_n, add_only") == ["last_n", "add_only"]
    with pytest.raises(ValueError, match="unknown baseline 'last'"):
        baselines.names("last")


def test_a_frozen_sets_file_keeps_its_table_only(measures, tmp_path):
    import json

    baseline_eval.write_json(tmp_path / "frozen.json", measures, with_turns=False)
    baseline_eval.write_json(tmp_path / "dev.json", measures, with_turns=True)
    frozen, dev = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("frozen", "dev"))
    assert "scored" not in frozen and len(dev["scored"]) == 3 * (len(baselines.NAMES) + 1)
    assert frozen["rows"] == dev["rows"] and frozen["turns"] == 46

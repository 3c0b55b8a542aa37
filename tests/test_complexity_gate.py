"""The complexity gate (tests/complexity_gate.py, run by `make test`) counts what ruff's C90 does
not, and its baseline only goes down."""
from __future__ import annotations

from tests.complexity_gate import LIMIT, compare, measure

# Sixteen `and`s in one return: mccabe (ruff's C90) counts 1, radon counts 17.
CHAIN = "def eligible(r):\n    return " + " and ".join(f"r[{i}]" for i in range(17)) + "\n"
# The same decision written as a loop over the conditions: one branch.
LOOP = "def eligible(r):\n    return all(r[i] for i in range(17))\n"
NESTED = ("class Store:\n    def add(self, r):\n        def check(x):\n"
          "            return " + " or ".join(f"x[{i}]" for i in range(17)) + "\n        return check(r)\n")


def test_boolean_chains_count():
    assert measure(CHAIN, "m.py") == {"m.py::eligible": 17}
    assert measure(LOOP, "m.py")["m.py::eligible"] <= LIMIT


def test_methods_and_nested_functions_are_named_and_measured_apart():
    found = measure(NESTED, "m.py")
    assert found["m.py::Store.add.check"] == 17 and found["m.py::Store.add"] <= LIMIT


def test_the_ratchet():
    baseline = {"m.py::old": 20}
    assert compare({"m.py::old": 20}, baseline) == []
    [new] = compare({"m.py::old": 20, "m.py::eligible": 17}, baseline)  # a function added above the limit
    assert new.startswith("m.py::eligible: 17 (new")
    [worse] = compare({"m.py::old": 21}, baseline)  # a listed function grown
    assert "was 20 (worse" in worse
    [better] = compare({"m.py::old": 18}, baseline)  # shrunk: the baseline must follow it down
    assert "baseline says 20 (better" in better
    [gone] = compare({}, baseline)  # split below the limit (or removed): its line goes
    assert "at most 15" in gone

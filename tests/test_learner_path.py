"""What a learner does that the authors did not plan for: run a notebook twice in the
same kernel, run a check before its TODO cell, re-run setup. None of it may end in a
raw traceback, and saved outputs must read as finished (no widgets, no bars at 0%)."""
from __future__ import annotations

import copy
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from workshop_lib import connect
from workshop_lib.core.notebook_errors import name_error_message
from workshop_lib.prepare import prepare
from workshop_lib.tools import release

SOLUTIONS = sorted((release.REPO / "solutions").glob("*/*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def _run(nb, path, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("WORKSHOP_LLM", "off")
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def _errors(nb) -> list[tuple[int, str]]:
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                found.append((i, "\n".join(out.traceback)))
    return found


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.notebooks
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.parent.name)
def test_solution_runs_twice_in_one_kernel(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    once = len(nb.cells)
    nb.cells = nb.cells + copy.deepcopy(nb.cells)  # "Run All" twice, same kernel
    _run(nb, path, tmp_path, monkeypatch)
    assert not _errors(nb), f"{path.name}: cells fail when run again: " + \
        "; ".join(f"cell {i % once}: {_plain(tb)[-300:]}" for i, tb in _errors(nb))
    # Saved outputs read as finished: no widget placeholders, progress bars end in their final state.
    CoalesceStreamsPreprocessor().preprocess(nb, {})
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            # A widget is allowed only with a sentence for where it is not rendered (the hint buttons), never a repr.
            assert WIDGET not in data or not re.match(r"^\w+\(", data.get("text/plain", "")), \
                f"{path.name} displays a widget; saved it reads as {data.get('text/plain', '')[:40]!r}"
            text = out.get("text", "")
            for line in text.splitlines():
                assert not re.search(r"\b0%\|", line), f"{path.name}: a progress bar is saved at 0%: {line!r}"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", [p for p in SOLUTIONS if "checks.part" in p.read_text()],
                         ids=lambda p: p.parent.name)
def test_check_run_before_its_todo_says_which_cell_to_run(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    checks = [i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade")]
    assert checks
    for i in checks:  # swap each check with the solution cell right above it
        todo = max(j for j in range(i) if nb.cells[j].metadata.get("nbgrader", {}).get("solution"))
        nb.cells[todo], nb.cells[i] = nb.cells[i], nb.cells[todo]
    _run(nb, path, tmp_path, monkeypatch)
    errors = _errors(nb)
    assert errors, "a check run before its TODO must fail"
    for i, tb in errors:
        text = _plain(tb)
        assert "CHECK FAILED" in text and "run the TODO cell above this check first" in text, text[-500:]
        assert "Traceback" not in text and "----" not in text, f"raw traceback in cell {i}: {text[-500:]}"


def test_name_error_messages_say_what_to_run():
    assert name_error_message("eng", "checks.part3.check_x(fn, eng)")[1].startswith("`eng` is not defined yet: run the first")
    headline, advice = name_error_message("retrieve_knowledge", "checks.part3.check_retrieve_knowledge(retrieve_knowledge, eng)")
    assert headline == "CHECK FAILED" and "TODO cell above" in advice
    assert name_error_message("x", "print(x)")[0] == "NOT DEFINED"


def test_second_prepare_updates_nothing(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        first = prepare(eng, progress=False)
        assert first["written"]["added"] == first["facts"]
        second = prepare(eng, progress=False)
        assert second["written"] == {"added": 0, "updated": 0, "unchanged": first["facts"]}
    finally:
        eng.close()


def test_learner_facts_and_library_facts_are_stored_alike(tmp_path):
    """Part 2's scan (the learner's comment_facts) and prepare() must not rewrite each other's facts."""
    from workshop_lib.parts import scanner

    eng = connect("embedded", path=tmp_path)
    try:
        prepare(eng, progress=False)

        def learner(catalog):  # what the TODO asks for: Fact(kind, subject, body), no extra metadata
            return [scanner.Fact(f.kind, f.subject, f.body) for f in scanner.comment_facts(catalog)]

        facts = scanner.scan_schema(eng, "SUPPLYCHAIN", mine_comments=learner)
        assert scanner.write_facts(eng, facts, progress=False)["updated"] == 0
        assert prepare(eng, progress=False)["written"]["updated"] == 0
    finally:
        eng.close()

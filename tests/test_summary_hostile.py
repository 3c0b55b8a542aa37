"""The instructor's summary (`workshop grade --summary-only`, and the summary after `workshop
grade`) survives what learners hand in (tools/grading/summary.py).

Each hostile notebook below sits in a class beside one honest learner: the summary is still
written, the honest learner still counts, a notebook that cannot be read costs only its own
row (with the reason), and text from a notebook reaches the terminal, the CSV and the chart
only as short, plain text (no terminal escapes, no spreadsheet formulas, no mathtext).
"""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from workshop_lib.hints.record import CHECK_MIME, HINT_MIME
from workshop_lib.tools import course
from workshop_lib.tools.cli import app
from workshop_lib.tools.grading import summary

PART, TODO, NOTEBOOK = "part8", "todo1_window_spans", "part8_document_lifecycle.ipynb"


def _output(mime: str, payload) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {mime: payload}}


def _runs(*classes: str | None) -> dict:
    """A check record: one failed run per class, then a pass when the last is None."""
    return _output(CHECK_MIME, {"part": PART, "todo": TODO,
                                "runs": [{"ok": c is None, "class": c} for c in classes]})


def _hints(opened) -> dict:
    return _output(HINT_MIME, {"part": PART, "todo": TODO, "opened": opened})


def _notebook(*outputs) -> str:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "x", "outputs": list(outputs)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


ESCAPE = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m"
HOSTILE: dict[str, str] = {
    "JSON nested 200,000 deep": '{"cells": [' + "[" * 200_000 + "]" * 200_000 + "]}",
    "mathtext in a failure class": _notebook(_runs(r"$\frac{1}{0$ \sqrt{", r"$a^{b$")),
    "an output's data is a list": _notebook({"output_type": "display_data", "metadata": {}, "data": [1, 2]},
                                            _runs("no_overlap")),
    "outputs is an int": json.dumps({"cells": [{"cell_type": "code", "source": "", "outputs": 7}], "nbformat": 4}),
    "hint opened is null": _notebook(_hints(None), _runs("no_overlap")),
    "hint opened is a number": _notebook(_hints(3), _runs("no_overlap")),
    "a 1 MB failure class": _notebook(_runs("A" * 1_000_000)),
    "terminal escapes in a class": _notebook(_runs(ESCAPE)),
    "a formula in a class (=)": _notebook(_runs('=HYPERLINK("http://x.invalid","click")')),
    "a formula in a class (+)": _notebook(_runs("+1+cmd|' /C calc'!A0")),
    "a formula in a class (-)": _notebook(_runs("-2+3")),
    "a formula in a class (@)": _notebook(_runs("@SUM(1,1)")),
}
UNREADABLE = {"JSON nested 200,000 deep"}  # nothing of it can be read: its row says why


def _class(tmp_path: Path, hostile: str, honest: tuple[str | None, ...] = ("no_overlap", None)) -> Path:
    subs = tmp_path / "subs"
    (subs / "ana").mkdir(parents=True)
    (subs / "ana" / NOTEBOOK).write_text(_notebook(_hints([1, 2]), _runs(*honest)), encoding="utf-8")
    (subs / "mallory").mkdir()
    (subs / "mallory" / NOTEBOOK).write_text(hostile, encoding="utf-8")
    return subs


def _plain(text: str) -> None:
    """No control character but a line break reaches the instructor's terminal."""
    assert not [ch for ch in text if ord(ch) < 32 and ch not in "\n\t" or 0x7f <= ord(ch) < 0xa0], repr(text[:400])


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_summary_only_survives_each_hostile_notebook(tmp_path, attack):
    subs, out = _class(tmp_path, HOSTILE[attack]), tmp_path / "out"
    started = time.monotonic()
    result = CliRunner().invoke(app, ["grade", "--summary-only", str(subs), "--out", str(out)])
    took = time.monotonic() - started
    assert result.exit_code == 0 and result.exception is None, (result.output[-2000:], result.exception)
    assert took < 30, f"{attack}: the summary took {took:.0f} s"
    _plain(result.output)
    assert "\x1b" not in (out / "summary.csv").read_text(encoding="utf-8")
    assert (out / "summary.png").stat().st_size > 5000
    row = pd.read_csv(out / "summary.csv").set_index("todo").loc[TODO]
    if attack in UNREADABLE:
        assert row.learners == 1 and row.passed == 1  # the honest learner still counts
        assert "mallory" in result.output and "could not be read" in result.output and "nested" in result.output
    else:
        assert row.learners == 2 and row.passed == 1
    for line in result.output.splitlines():
        assert len(line) < 600, f"{attack}: a {len(line):,}-character line reached the terminal"


@pytest.mark.parametrize("attack", sorted(a for a in HOSTILE if "formula" in a))
def test_no_cell_of_summary_csv_is_a_formula(tmp_path, attack):
    subs, out = _class(tmp_path, HOSTILE[attack], honest=(None,)), tmp_path / "out"  # the class is the only failure
    summary.from_folder(subs, out)
    with open(out / "summary.csv", newline="", encoding="utf-8") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    assert any("SUM" in c or "HYPERLINK" in c or "cmd" in c or "2+3" in c for c in cells), cells
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells


def test_labels_are_cut_to_a_readable_length_and_mathtext_is_not_parsed(tmp_path, monkeypatch):
    subs = _class(tmp_path, _notebook(_runs("B" * 1_000_000, r"$\frac{1}{0$")))
    records, _ = summary.collect(subs)
    classes = {c for r in records for c in r.failures}
    assert max(len(c) for c in classes) <= summary.MAX_LABEL_CHARS
    drawn: list[str] = []
    import matplotlib.axes

    real = matplotlib.axes.Axes.barh

    def spy(self, labels, *args, **kwargs):
        drawn.extend(str(label) for label in labels)
        return real(self, labels, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "barh", spy)
    summary.chart(summary.summarize(records), records, tmp_path / "chart.png")
    assert any("frac" in label for label in drawn)
    assert all(len(label) <= summary.MAX_LABEL_CHARS + 20 for label in drawn)


# ------------------------------------------------------------------ inside `workshop grade`
def _graded_table() -> pd.DataFrame:
    rows = [("ana", "passed", 4.0), ("mallory", "review: the check's code changed", 0.0)]
    return pd.DataFrame([{"student": s, "assignment": PART, "notebook": NOTEBOOK, "file": f"{s}/{NOTEBOOK}",
                          "cell": f"check_{TODO}", "score": score, "max_score": 4.0, "status": status}
                         for s, status, score in rows])


@pytest.mark.parametrize("failure", ["outputs is an int", "the summary itself fails"])
def test_grade_keeps_the_review_list_and_the_hint_penalty_when_the_summary_fails(tmp_path, monkeypatch, failure):
    import workshop_lib.tools.cli as cli

    mallory = HOSTILE["outputs is an int"] if failure == "outputs is an int" else _notebook(_runs("no_overlap"))
    subs, out = _class(tmp_path, mallory), tmp_path / "out"

    def fake_grade_folder(submissions, out_dir, **_):
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        table = _graded_table()
        table.to_csv(Path(out_dir) / "grades.csv", index=False)
        return table

    def broken(*_args, **_kwargs):
        raise RuntimeError("a chart library blew up")

    monkeypatch.setattr(cli, "grade_folder", fake_grade_folder)  # the name the CLI calls (imported at its top)
    monkeypatch.setattr(course, "hint_penalty", lambda *a: {2: 0.5})
    if failure == "the summary itself fails":
        monkeypatch.setattr(summary, "summarize", broken)
    result = CliRunner().invoke(app, ["grade", str(subs), "--out", str(out), "--no-sandbox-i-trust-submissions"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "flagged for review" in result.output and "mallory" in result.output
    grades = pd.read_csv(out / "grades.csv").set_index("student")
    assert grades.loc["ana", "score"] == 2.0 and grades.loc["ana", "hint_penalty"] == 2.0  # opened level 2
    if failure == "the summary itself fails":
        assert "summary could not be written" in result.output and "blew up" in result.output
        assert result.exit_code != 0  # said, not hidden
    else:
        assert result.exit_code == 0, result.output

"""The `workshop` command and the engine switch, as a learner meets them."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from workshop_lib import connect
from workshop_lib.tools.cli import app, main

runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    return tmp_path / "data"


def test_doctor_before_setup_fails_with_fixes(data_dir):
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 1
    assert "[FAIL] SUPPLYCHAIN seed" in result.output
    assert "fix: run `workshop setup`" in result.output


def test_setup_then_doctor_all_pass(data_dir):
    result = runner.invoke(app, ["setup"])
    assert result.exit_code == 0, result.output
    assert "vessels=30" in result.output
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    # 6 readiness lines + 4 integrity lines (both files, full-text index, nearest-neighbour index)
    assert "[FAIL]" not in result.output and result.output.count("[PASS]") == 10


def test_setup_rerun_keeps_learner_memories(data_dir):
    assert runner.invoke(app, ["setup"]).exit_code == 0
    eng = connect("embedded")
    eng.memory.add("my own note about reefers", record_id="learner-note")
    eng.close()
    assert runner.invoke(app, ["setup"]).exit_code == 0
    eng = connect("embedded")
    assert eng.store.get("memory", "learner-note").content == "my own note about reefers"
    eng.close()


def test_reset_asks_first(data_dir):
    assert runner.invoke(app, ["setup"]).exit_code == 0
    result = runner.invoke(app, ["reset"], input="n\n")
    assert "Nothing deleted" in result.output and (data_dir / "workshop.sqlite").exists()
    result = runner.invoke(app, ["reset", "--yes"])
    # Only the workshop's own files go; the folder (and anything else in it) stays.
    assert result.exit_code == 0 and data_dir.exists() and not (data_dir / "workshop.sqlite").exists()


def test_reset_asks_the_engine_what_to_delete_without_connecting(data_dir, monkeypatch):
    from workshop_lib.engines.registry import engine_class

    result = runner.invoke(app, ["reset", "--yes"])
    assert result.exit_code == 0 and result.output.startswith("Nothing to delete: no workshop database in")
    assert not data_dir.exists() or not any(data_dir.iterdir()), "asking must not create the store"
    monkeypatch.delenv("ORACLE_DSN", raising=False)  # the plan is made before any connection
    oracle = engine_class("oracle").traits.reset_plan(False)
    assert oracle.what.startswith("every memory-store table of the Oracle AGENT schema") and not oracle.files


def test_oracle_without_dsn_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    with pytest.raises(Exception) as info:
        connect("oracle")
    assert "ORACLE_DSN" in str(info.value)


def test_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="WORKSHOP_ENGINE"):
        connect("postgres")


def test_setup_works_without_any_network(tmp_path):
    """The embedded engine's model ships in its pip package: setup runs in a network namespace
    with no interfaces at all (skipped where unprivileged users cannot create one)."""
    import shutil
    import subprocess
    import sys

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot create a network namespace here (needs `unshare -n`)")
    env = {"PATH": "/usr/bin:/bin", "WORKSHOP_DATA_DIR": str(tmp_path), "WORKSHOP_ENGINE": "embedded"}
    proc = subprocess.run([unshare, "-n", sys.executable, "-m", "workshop_lib.tools.cli", "setup"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "vessels=30" in proc.stdout


def test_calibrate_measures_saves_and_is_used_by_new_connections(data_dir):
    """Issue 12 item 9: one command calibrates the connected engine; connect() then uses the values
    (on Oracle the same command replaces the uncalibrated defaults)."""
    import json

    from workshop_lib import config

    result = runner.invoke(app, ["calibrate", "--engine", "embedded"])
    assert result.exit_code == 0, result.output
    assert "relevant" in result.output and "min_score" in result.output
    saved = json.loads((data_dir / config.THRESHOLDS_FILE).read_text())["embedded"]
    assert saved["model"] == connect("embedded").model.name
    assert 0 < saved["threshold_low"] <= saved["min_score"] <= saved["threshold_high"] < 1
    # The committed embedded defaults were measured the same way: calibrating again reproduces them.
    for key in config.CALIBRATED_KEYS:
        assert saved[key] == pytest.approx(config.THRESHOLDS["embedded"].as_dict()[key], abs=0.02), key
    saved_file = data_dir / config.THRESHOLDS_FILE
    doc = json.loads(saved_file.read_text())
    doc["embedded"]["threshold_high"] = 0.55
    saved_file.write_text(json.dumps(doc))
    eng = connect("embedded")
    assert eng.model.thresholds.threshold_high == 0.55
    doc["embedded"]["model"] = "another-model"
    saved_file.write_text(json.dumps(doc))
    assert connect("embedded").model.thresholds.threshold_high == config.THRESHOLDS["embedded"].threshold_high


def test_oracle_bootstrap_is_a_workshop_command_that_fails_fast_when_nothing_listens(tmp_path):
    """One CLI: `workshop oracle-bootstrap` runs the Oracle bootstrap from any folder."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "workshop"
    env = {**os.environ, "ORACLE_DSN": "127.0.0.1:1/FREEPDB1", "ORACLE_CONTAINER": "no-such-container",
           "WORKSHOP_DATA_DIR": str(tmp_path)}
    out = subprocess.run([str(exe), "oracle-bootstrap", "--only", "wait"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "connection refused" in out.stderr and "Traceback" not in out.stderr


def test_notebooks_command_regenerates_a_part(tmp_path, monkeypatch):
    # in a copy of the course: regenerating the repository's notebooks/ in place would pull them from
    # under the tests that read them on the other workers
    import shutil

    from workshop_lib.tools import cli, release
    shutil.copy(release.REPO / "nbgrader_config.py", tmp_path)
    shutil.copytree(release.REPO / "solutions", tmp_path / "solutions", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    monkeypatch.setattr(cli, "REPO", tmp_path)
    monkeypatch.setattr(cli, "generate", lambda parts: release.generate(parts, root=tmp_path))
    result = runner.invoke(app, ["notebooks", "part4"])
    assert result.exit_code == 0 and "notebooks/part4/part4_relevance_gates.ipynb" in result.output
    assert (tmp_path / "notebooks" / "part4" / "part4_relevance_gates.ipynb").is_file()


def test_ingest_promote_status_and_rollback_from_the_command_line(data_dir):
    result = runner.invoke(app, ["alias", "status"])
    assert result.exit_code == 0 and "nothing promoted yet" in result.output, result.output
    result = runner.invoke(app, ["ingest", "--profile", "v1", "--promote"])
    assert result.exit_code == 0, result.output
    assert "DOCS_V1 (v1): 32 documents, 31 chunks (1 duplicates stored once)" in result.output
    assert "promoted: DOCS_V1" in result.output and "embed" in result.output
    result = runner.invoke(app, ["ingest", "--profile", "v3", "--promote"])
    assert result.exit_code == 3 and "not promoted: DOCS_V3: recall@1 0.71 is below the bar 0.80" in result.output
    assert runner.invoke(app, ["ingest", "--profile", "v2"]).exit_code == 0
    result = runner.invoke(app, ["alias", "promote", "v2"])
    assert result.exit_code == 0 and "promoted: DOCS_V2" in result.output, result.output
    result = runner.invoke(app, ["alias", "status"])
    assert "alias DOCS -> DOCS_V2 (complete); rollback goes to DOCS_V1" in result.output
    assert "refused" in result.output
    result = runner.invoke(app, ["alias", "rollback"])
    assert result.exit_code == 0 and "the alias reads DOCS_V1" in result.output


def test_ingest_and_alias_report_bad_input_without_a_traceback(data_dir, tmp_path, capsys):
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"path": "../x.md"}\n{nope\n', encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(bad), "--profile", "v1"])
    assert result.exit_code == 1 and "m.jsonl:1: path '../x.md' is outside" in result.output
    assert "Traceback" not in result.output
    assert runner.invoke(app, ["ingest", "--profile", "v7"]).exit_code == 1
    assert runner.invoke(app, ["alias", "promote"]).exit_code == 2
    assert runner.invoke(app, ["alias", "sideways"]).exit_code == 2
    # A refused promotion is a WorkshopError: `workshop` (main) prints it once, without a traceback.
    assert main(["alias", "promote", "v2"]) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
    assert main(["alias", "rollback"]) == 1 and "nothing to roll back to" in capsys.readouterr().err


def test_eval_conversations_with_documents_promoted_answers_a_turn_about_a_procedure(data_dir, tmp_path):
    turns = [{"user": "cli-ana", "thread": "t1", "text": "Ana at Lisbon Fruit. Our reefers go through Rotterdam."},
             {"user": "cli-ana", "thread": "t1", "text": "For the VGM, what do we need to weigh under method 2?",
              "expect": {"text": [["pallet"]]}}]
    conv = tmp_path / "conversations-cli.jsonl"
    conv.write_text(json.dumps({"id": "cli-01", "ability": "information_extraction", "turns": turns}) + "\n")
    without = runner.invoke(app, ["eval", "conversations", "--set", str(conv), "--json", str(tmp_path / "a.json")])
    with_docs = runner.invoke(app, ["eval", "conversations", "--docs", "--set", str(conv),
                                    "--json", str(tmp_path / "b.json")])
    assert without.exit_code == 0 and with_docs.exit_code == 0, (without.output, with_docs.output)
    assert "documents not promoted" in without.output and "correct 0" in without.output
    assert "documents promoted" in with_docs.output and "correct 1" in with_docs.output, with_docs.output

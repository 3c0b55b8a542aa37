"""Hostile manifests and files: every bad line is one bad line reported as
file:line, never an abort or a traceback; a file swapped for a link after the manifest check
is refused, and nothing outside the corpus folder is read."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workshop_lib.parts.ingest import corpus, documents, manifest, pipeline
from workshop_lib.parts.ingest.pipeline import IngestReport
from workshop_lib.tools.cli import app

HOSTILE_LINES = {
    "NUL in the path": '{"path": "a\\u0000.md"}',
    "raw NUL byte": '{"path": "a.md\x00"}',
    "10,000-digit number": '{"path": "a.md", "tags": [' + "9" * 10_000 + "]}",
    "10,000-digit lang": '{"path": "a.md", "lang": ' + "1" * 10_000 + "}",
    "lone surrogate in the path": '{"path": "\\ud800.md"}',
    "lone surrogate in a tag": '{"path": "a.md", "tags": ["\\udfff"]}',
    "deep nesting": '{"path": "a.md", "tags": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "deep nesting, unclosed": "[" * 200_000,
    "huge line": '{"path": "' + "x" * 300_000 + '.md"}',
    "very long path": '{"path": "' + "d/" * 3000 + 'a.md"}',
    "path is a folder": '{"path": "sub"}',
}


def _corpus(folder: Path) -> None:
    (folder / "sub").mkdir()
    (folder / "a.md").write_text("Alpha notice about reefers at the terminal.\n", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("Bravo notice about berths in the harbour.\n", encoding="utf-8")


@pytest.mark.parametrize("what", sorted(HOSTILE_LINES))
def test_each_hostile_line_is_one_bad_line(tmp_path, what):
    _corpus(tmp_path)
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(['{"path": "a.md"}', HOSTILE_LINES[what], '{"path": "sub/b.md"}']) + "\n",
                    encoding="utf-8", errors="surrogatepass")
    parsed = manifest.read(path, skip_bad=True)
    assert [e.doc_id for e in parsed.entries] == ["a", "sub/b"]
    assert [p.line for p in parsed.problems] == [2] and str(parsed.problems[0]).startswith(f"{path}:2: ")
    with pytest.raises(manifest.ManifestError, match=f"{path}:2: "):
        manifest.read(path)


def test_the_command_line_skips_hostile_lines_without_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    _corpus(tmp_path)
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(['{"path": "a.md", "profile": "v1"}', *HOSTILE_LINES.values()]) + "\n",
                    encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(path), "--profile", "v1", "--skip-bad-lines"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None
    for line in range(2, 2 + len(HOSTILE_LINES)):
        assert f"{path}:{line}" in result.output
    assert ": 1 documents" in result.output


def _read(entries: list[manifest.Entry]) -> IngestReport:
    report = IngestReport("DOCS_T", "t")
    pipeline.prepare_chunks(entries, corpus.load_profiles()["v1"], lambda text: [(m.start(), m.end()) for m in
                            __import__("re").finditer(r"\S+", text)], report, progress=False)
    return report


@pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo"), reason="needs symbolic links and FIFOs (POSIX)")
def test_a_file_swapped_for_a_link_after_the_check_is_refused(tmp_path):
    corpus_dir, outside = tmp_path / "corpus", tmp_path / "outside"
    corpus_dir.mkdir()
    outside.mkdir()
    _corpus(corpus_dir)
    secret = outside / "secret.md"
    secret.write_text("OUTSIDE-SECRET-1234 must never be ingested.\n", encoding="utf-8")
    (outside / "b.md").write_text("OUTSIDE-SECRET-5678 in a folder outside.\n", encoding="utf-8")
    path = corpus_dir / "m.jsonl"
    path.write_text('{"path": "a.md"}\n{"path": "sub/b.md"}\n', encoding="utf-8")
    parsed = manifest.read(path)
    assert _read(parsed.entries).documents == 2  # as checked, both read
    # Then, before they are read: the file becomes a link out, and the folder too.
    (corpus_dir / "a.md").unlink()
    (corpus_dir / "a.md").symlink_to(secret)
    os.rename(corpus_dir / "sub", corpus_dir / "sub-old")
    (corpus_dir / "sub").symlink_to(outside, target_is_directory=True)
    report = _read(parsed.entries)
    assert report.documents == 0 and len(report.rejected) == 2
    assert all("link" in why for _, why in report.rejected)
    for entry in parsed.entries:
        with pytest.raises(documents.Rejected, match="symbolic link"):
            documents.read_text(entry.path, root=entry.root)
    # A FIFO or a folder swapped in is refused too, and never blocks.
    (corpus_dir / "a.md").unlink()
    os.mkfifo(corpus_dir / "a.md")
    with pytest.raises(documents.Rejected, match="not a regular file"):
        documents.read_text(parsed.entries[0].path, root=parsed.entries[0].root)
    # A link that points inside the corpus at manifest time is read as its target.
    (corpus_dir / "alias.md").symlink_to(corpus_dir / "sub-old" / "b.md")
    path.write_text(json.dumps({"path": "alias.md"}) + "\n", encoding="utf-8")
    assert "Bravo" in documents.read_text(manifest.read(path).entries[0].path, root=corpus_dir.resolve())

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


def _corpus_beside_a_secret(tmp_path):
    """A small corpus, and beside it (outside it) a file that must never be ingested."""
    corpus_dir, outside = tmp_path / "corpus", tmp_path / "outside"
    corpus_dir.mkdir()
    outside.mkdir()
    _corpus(corpus_dir)
    secret = outside / "secret.md"
    secret.write_text("OUTSIDE-SECRET-1234 must never be ingested.\n", encoding="utf-8")
    return corpus_dir, outside, secret


@pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo"), reason="needs symbolic links and FIFOs (POSIX)")
def test_a_file_swapped_for_a_link_after_the_check_is_refused(tmp_path):
    corpus_dir, outside, secret = _corpus_beside_a_secret(tmp_path)
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


# ------------------------------------------------------------------ what the manifest names, and how lines count
@pytest.mark.skipif(not hasattr(os, "link"), reason="needs hard links (POSIX)")
def test_a_hard_link_to_a_file_outside_the_corpus_is_refused(tmp_path):
    corpus_dir, outside, secret = _corpus_beside_a_secret(tmp_path)
    os.link(secret, corpus_dir / "linked.md")
    path = corpus_dir / "m.jsonl"
    path.write_text('{"path": "a.md"}\n{"path": "linked.md"}\n', encoding="utf-8")
    with pytest.raises(manifest.ManifestError, match=f"{path}:2: linked.md has 2 hard links"):
        manifest.read(path)
    assert [e.doc_id for e in manifest.read(path, skip_bad=True).entries] == ["a"]
    # A hard link made after the manifest was checked is refused when the file is read.
    parsed = manifest.read(corpus_dir / "m.jsonl", skip_bad=True)
    os.link(corpus_dir / "a.md", outside / "a-again.md")
    report = _read(parsed.entries)
    assert report.documents == 0 and "hard links" in report.rejected[0][1]
    assert report.rejected[0][1].startswith(f"{path}:1: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_a_fifo_named_in_the_manifest_is_not_a_regular_file(tmp_path):
    _corpus(tmp_path)
    os.mkfifo(tmp_path / "pipe.md")
    path = tmp_path / "m.jsonl"
    path.write_text('{"path": "a.md"}\n{"path": "pipe.md"}\n{"path": "sub"}\n', encoding="utf-8")
    parsed = manifest.read(path, skip_bad=True)
    assert [(p.line, p.problem) for p in parsed.problems] == [
        (2, "pipe.md is not a regular file (a FIFO): only files are ingested"),
        (3, "sub is not a regular file (a folder): only files are ingested")]


def test_two_files_with_the_same_id_are_refused_naming_both(tmp_path):
    _corpus(tmp_path)
    (tmp_path / "dup.md").write_text("Markdown notice about reefers.\n", encoding="utf-8")
    (tmp_path / "dup.txt").write_text("Text notice about berths.\n", encoding="utf-8")
    path = tmp_path / "m.jsonl"
    path.write_text('{"path": "dup.md"}\n{"path": "a.md"}\n{"path": "dup.txt"}\n', encoding="utf-8")
    with pytest.raises(manifest.ManifestError) as err:
        manifest.read(path)
    assert f"{path}:3: dup.txt has the id 'dup' of dup.md (line 1)" in str(err.value)
    assert [e.doc_id for e in manifest.read(path, skip_bad=True).entries] == ["dup", "a"]


def test_line_numbers_are_what_wc_and_an_editor_show(tmp_path):
    _corpus(tmp_path)
    path = tmp_path / "m.jsonl"
    lines = ['{"path": "a.md", "tags": ["reefer\u2028notice", "x\u0085y"]}',  # a line separator inside a string
             "{oops", '{"path": "sub/b.md"}']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert int(__import__("subprocess").run(["wc", "-l", str(path)], capture_output=True, text=True).stdout.split()[0]) == 3
    parsed = manifest.read(path, skip_bad=True)
    assert [e.doc_id for e in parsed.entries] == ["a", "sub/b"] and parsed.entries[1].line == 3
    assert parsed.entries[0].tags == ("reefer\u2028notice", "x\u0085y")
    assert [p.line for p in parsed.problems] == [2]


def test_invalid_utf8_in_the_manifest_is_reported_at_its_line(tmp_path):
    _corpus(tmp_path)
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"path": "a.md"}\r\n{"path": "sub/b.md"}\n{"path": "caf\xe9.md"}\n')
    parsed = manifest.read(path, skip_bad=True)
    assert [e.doc_id for e in parsed.entries] == ["a", "sub/b"]
    assert [p.line for p in parsed.problems] == [3] and "not valid UTF-8" in parsed.problems[0].problem
    with pytest.raises(manifest.ManifestError, match=f"{path}:3: not valid UTF-8"):
        manifest.read(path)
    # In a document too: the line an editor shows (U+2028 on line 1 does not start a line).
    (tmp_path / "latin.md").write_bytes("one \u2028 still one\ntwo\nZollb".encode() + b"\xfcro\n")
    with pytest.raises(documents.Rejected, match="not valid UTF-8 at line 3 "):
        documents.read_text(tmp_path / "latin.md")


def test_a_document_over_the_size_limit_is_an_error_at_its_line(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKSHOP_ENGINE", "embedded")
    _corpus(tmp_path)
    (tmp_path / "huge.md").write_bytes(b"word " * (documents.MAX_DOC_BYTES // 5 + 1))
    path = tmp_path / "m.jsonl"
    path.write_text('{"path": "a.md", "profile": "v1"}\n{"path": "huge.md"}\n', encoding="utf-8")
    with pytest.raises(manifest.ManifestError, match=f"{path}:2: huge.md is 1,000,005 bytes, over the 1,000,000-byte"):
        manifest.read(path)
    result = CliRunner().invoke(app, ["ingest", str(path), "--profile", "v1"])
    assert result.exit_code != 0 and f"{path}:2: huge.md is 1,000,005 bytes" in result.output
    # A document that grows past the limit after the check: skipped with its file:line, and a non-zero exit.
    (tmp_path / "huge.md").write_text("small now\n", encoding="utf-8")
    parsed = manifest.read(path)
    (tmp_path / "huge.md").write_bytes(b"word " * (documents.MAX_DOC_BYTES // 5 + 1))
    report = _read(parsed.entries)
    assert [(d, why.split(": ")[0]) for d, why in report.rejected] == [("huge", f"{path}:2")]
    monkeypatch.setattr(manifest, "read", lambda *a, **k: parsed)
    result = CliRunner().invoke(app, ["ingest", str(path), "--profile", "v1"])
    assert result.exit_code != 0 and f"{path}:2: 1,000,005 bytes is over the 1,000,000-byte limit" in result.output, result.output

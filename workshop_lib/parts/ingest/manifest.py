"""Manifests: a JSONL file listing the documents to ingest, one object per line.

    {"path": "notices/rotterdam-berth-closure.md", "tags": ["port-notice"], "lang": "en", "profile": "v2"}

`path` is relative to the manifest's folder (the corpus root) and must stay inside it;
`tags`, `lang` (a language hint for the sanitiser) and `profile` (the chunking profile
this document is meant for) are optional. Every bad line is reported with its file and
line number (lines as `wc -l` and editors count them); a manifest with errors ingests nothing
unless the caller skips them. A line must name a regular file of at most MAX_DOC_BYTES with no
other hard link (another name could be a file outside the corpus), and no two lines may give
the same id (dup.md and dup.txt would both be `dup`).
"""
from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from workshop_lib.errors import WorkshopError
from workshop_lib.parts.ingest import corpus, documents

FIELDS = ("path", "tags", "lang", "profile")
_LANG = re.compile(r"^[a-z]{2}(?:-[A-Za-z]{2})?$")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_LINE_CHARS = 64 * 1024   # one manifest line (a path, a few tags)


@dataclass(frozen=True)
class Entry:
    line: int
    path: Path
    doc_id: str            # the path inside the corpus, without its extension
    tags: tuple[str, ...] = ()
    lang: str | None = None
    profile: str | None = None
    root: Path | None = None   # the corpus root: the file is opened from it, following no link
    manifest: Path | None = None   # the manifest that lists it (with `line`: where to fix it)

    @property
    def where(self) -> str:
        """file:line of this entry in its manifest (the doc_id when it has none)."""
        return f"{self.manifest}:{self.line}" if self.manifest else self.doc_id


@dataclass(frozen=True)
class Problem:
    file: Path
    line: int
    problem: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.problem}"


class ManifestError(WorkshopError, ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"the manifest has {len(problems)} bad line(s); nothing was ingested:\n{lines}{more}\n"
                         "Fix: correct these lines, or skip them (skip_bad=True, `workshop ingest --skip-bad-lines`).")


@dataclass
class Manifest:
    path: Path
    root: Path
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    sha256: str = ""       # of the manifest's bytes: the registry records which manifest built a table


def read(path: Path | str, *, profiles: set[str] | None = None, skip_bad: bool = False) -> Manifest:
    """Parse and check a manifest. Raises ManifestError listing every bad line, unless skip_bad
    (then the good lines are kept and the bad ones are in .problems)."""
    path = Path(path)
    root = path.resolve().parent
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ManifestError([Problem(path, 0, "manifest file not found")]) from None
    out = Manifest(path, root, sha256=hashlib.sha256(data).hexdigest())
    seen: dict[Path, int] = {}
    ids: dict[str, tuple[int, str]] = {}
    # Lines as `wc -l` and editors count them: split on \n only (str.splitlines would also split
    # at U+2028, U+0085 and others, which may sit inside a JSON string), each decoded on its own
    # so that invalid UTF-8 is reported at its line.
    for no, raw in enumerate(data.removeprefix(codecs.BOM_UTF8).split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.problems.append(Problem(path, no, f"not valid UTF-8 (byte {exc.start + 1} of the line is "
                                                  f"0x{raw[exc.start]:02x}): save the manifest as UTF-8"))
            continue
        if not line.strip():
            continue
        entry_or_problem = _entry(line, no, root, profiles, seen, ids)
        if isinstance(entry_or_problem, str):
            out.problems.append(Problem(path, no, entry_or_problem))
        else:
            seen[entry_or_problem.path] = no
            ids[entry_or_problem.doc_id] = (no, entry_or_problem.path.relative_to(root).as_posix())
            out.entries.append(replace(entry_or_problem, manifest=path))
    if out.problems and not skip_bad:
        raise ManifestError(out.problems)
    if not out.entries and not out.problems:
        raise ManifestError([Problem(path, 0, "the manifest lists no documents")])
    return out


def _entry(line: str, no: int, root: Path, profiles: set[str] | None, seen: dict[Path, int],
           ids: dict[str, tuple[int, str]]) -> Entry | str:
    """An Entry, or the problem with this line as text. Whatever the line holds, it is one bad
    line: never an exception that stops the whole manifest."""
    if len(line) > MAX_LINE_CHARS:
        return f"the line is {len(line):,} characters; the limit is {MAX_LINE_CHARS:,}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return "not valid JSON for a manifest (nested too deeply)"
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        return f"not valid JSON for a manifest ({str(exc).split(';')[0][:120]})"
    try:
        return _checked(row, no, root, profiles, seen, ids)
    except (ValueError, OSError, RecursionError) as exc:  # a NUL or lone surrogate in a path, a path too long
        return f"cannot use this line ({type(exc).__name__}: {str(exc)[:120]})"


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _file_problem(rel: str, candidate: Path, root: Path) -> str | None:
    """Why the file a line names cannot be ingested, or None: it must be a regular file with no
    other name (a hard link may be a file outside the corpus) and within the size limit."""
    try:
        info = os.stat(candidate)  # resolved already: no link left to follow
    except FileNotFoundError:
        return f"file not found: {rel}"
    if not stat.S_ISREG(info.st_mode):
        return f"{rel} is not a regular file ({_kind(info.st_mode)}): only files are ingested"
    # The shipped corpus is the package's own data, which some installers hard-link from their cache.
    if info.st_nlink > 1 and root != corpus.DOCS.resolve():
        return (f"{rel} has {info.st_nlink} hard links: another name of it may lie outside the corpus folder, "
                "so it is not read; put a copy (cp) of the file in the corpus instead")
    if info.st_size > documents.MAX_DOC_BYTES:
        return (f"{rel} is {info.st_size:,} bytes, over the {documents.MAX_DOC_BYTES:,}-byte limit per document: "
                "split it into smaller files")
    return None


def _checked(row, no: int, root: Path, profiles: set[str] | None, seen: dict[Path, int],
             ids: dict[str, tuple[int, str]]) -> Entry | str:
    problem = _row_problem(row)
    if problem:
        return problem
    rel = row["path"]
    candidate = (root / rel).resolve()
    if Path(rel).is_absolute() or not candidate.is_relative_to(root):
        return f"path {rel!r} is outside the corpus folder {root}"
    problem = _file_problem(rel, candidate, root) or _duplicate_problem(rel, candidate, root, seen, ids)
    if problem:
        return problem
    problem = _metadata_problem(row, profiles)
    if problem:
        return problem
    doc_id = candidate.relative_to(root).with_suffix("").as_posix()
    return Entry(no, candidate, doc_id, tuple(row.get("tags", [])), row.get("lang"), row.get("profile"), root)


def _row_problem(row) -> str | None:
    """What makes a line no manifest row: not an object, an unknown field, no path, a NUL or a lone surrogate."""
    if not isinstance(row, dict):
        return f"expected a JSON object, got {type(row).__name__}"
    unknown = sorted(set(row) - set(FIELDS))
    if unknown:
        return f"unknown field(s) {unknown}; the fields are {', '.join(FIELDS)}"
    rel = row.get("path")
    if not isinstance(rel, str) or not rel.strip():
        return "\"path\" is missing or not a non-empty string"
    for name, value in row.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and ("\x00" in text or _SURROGATE.search(text)):
                return f"\"{name}\" holds a NUL character or a lone surrogate (a broken \\u escape)"
    return None


def _duplicate_problem(rel: str, candidate: Path, root: Path, seen: dict[Path, int],
                       ids: dict[str, tuple[int, str]]) -> str | None:
    """A file listed twice, or two files with one document id (the path without its extension)."""
    if candidate in seen:
        return f"{rel} is listed twice (first on line {seen[candidate]})"
    doc_id = candidate.relative_to(root).with_suffix("").as_posix()
    if doc_id in ids:
        first_line, first = ids[doc_id]
        return (f"{rel} has the id {doc_id!r} of {first} (line {first_line}): a document's id is its path without "
                "the extension, so one would replace the other; rename one of them")
    return None


def _metadata_problem(row: dict, profiles: set[str] | None) -> str | None:
    """Tags that are not a list of non-empty strings, a malformed language code, an unknown profile."""
    tags = row.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        return "\"tags\" must be a list of non-empty strings"
    lang = row.get("lang")
    if lang is not None and (not isinstance(lang, str) or not _LANG.match(lang)):
        return f"\"lang\" must be a language code such as \"en\" or \"pt-BR\", got {lang!r}"
    profile = row.get("profile")
    if profile is not None and (not isinstance(profile, str) or (profiles is not None and profile not in profiles)):
        return f"unknown profile {profile!r}; the profiles are {', '.join(sorted(profiles or []))}"
    return None

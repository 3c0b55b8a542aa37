"""Reading a document safely, and cleaning its text before anything else looks at it."""
from __future__ import annotations

import errno
import functools
import os
import re
import stat
import unicodedata
from pathlib import Path

from workshop_lib.errors import WorkshopError
from workshop_lib.parts.ingest import corpus

MAX_DOC_BYTES = 1_000_000  # a bigger file is refused, not truncated: split it into several documents
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(r"[ \t]+\n")


class Rejected(WorkshopError, ValueError):
    """A document that cannot be ingested; the message says why and what to do."""


def read_text(path: Path, max_bytes: int = MAX_DOC_BYTES, root: Path | None = None) -> str:
    """The file's text, or Rejected for an empty, huge, binary or non-UTF-8 file, or one that is
    not a regular file inside `root` when opened (a link swapped in after the manifest check)."""
    data = _read_inside(Path(path), root, max_bytes)
    if not data:
        raise Rejected("empty file: nothing to ingest (remove it from the manifest)")
    if b"\x00" in data[:8192]:
        raise Rejected("binary file (it contains NUL bytes): only UTF-8 text and markdown are ingested")
    try:
        return data.decode("utf-8-sig")  # -sig: a byte-order mark is not part of the text
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1  # as wc -l and editors count lines
        raise Rejected(f"not valid UTF-8 at line {line} (byte {exc.start:,} is 0x{data[exc.start]:02x}): "
                       "save the file as UTF-8") from None


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WALK_SAFELY = bool(_NOFOLLOW) and os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


def _open_inside(path: Path, root: Path | None) -> int:
    """A descriptor of `path`, opened without following any link. Under `root`, each folder is
    opened relative to the previous one (openat), so swapping a folder or the file for a link
    after the manifest was checked makes the open fail instead of leaving the corpus."""
    flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)  # NONBLOCK: a FIFO swapped in never blocks
    if root is None or not _WALK_SAFELY:
        fd = os.open(path, flags)
        if root is not None and not Path(os.path.realpath(path)).is_relative_to(Path(root).resolve()):
            os.close(fd)
            raise Rejected(f"{path} is outside the corpus folder {root} when opened: a link was swapped in")
        return fd
    parts = Path(path).relative_to(root).parts
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], flags, dir_fd=fd)
    finally:
        os.close(fd)


def _read_inside(path: Path, root: Path | None, max_bytes: int) -> bytes:
    try:
        fd = _open_inside(path, root)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise Rejected(f"{path.name} (or a folder on its path) is a symbolic link now: links are not followed, "
                           "so nothing outside the corpus folder is read") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Rejected("not a regular file (a folder, device or pipe): only files are ingested")
        if info.st_nlink > 1 and root is not None and Path(root).resolve() != corpus.DOCS.resolve():
            raise Rejected(f"has {info.st_nlink} hard links now: another name of it may lie outside the corpus "
                           "folder, so it is not read; put a copy (cp) of the file in the corpus instead")
        if info.st_size > max_bytes:
            raise Rejected(f"{info.st_size:,} bytes is over the {max_bytes:,}-byte limit per document: split it "
                           "into smaller files")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew after fstat
        raise Rejected(f"over the {max_bytes:,}-byte limit per document: split it into smaller files")
    return data


@functools.lru_cache(maxsize=1)
def _table() -> dict[int, str | None]:
    """str.translate table: control (Cc) and invisible format (Cf) characters removed, every
    other kind of space (Zs: no-break, thin...) made a plain space. Cf covers zero-width spaces
    and joiners, the soft hyphen, the byte-order mark and direction marks: all split words."""
    table: dict[int, str | None] = {}
    for code in list(range(0x10000)) + list(range(0xE0000, 0xE0080)):
        category = unicodedata.category(chr(code))
        if category in ("Cc", "Cf") and chr(code) not in "\n\t":
            table[code] = None
        elif category == "Zs" and code != 0x20:
            table[code] = " "
    return table


def clean(text: str) -> str:
    """Line endings to \\n, Unicode to NFC, invisible and control characters removed, other
    spaces (no-break, thin...) made plain, trailing spaces and runs of blank lines trimmed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # NFC, not NFKC: NFKC would also rewrite characters that carry meaning (m² -> m2, ½ -> 1/2).
    text = unicodedata.normalize("NFC", text)
    text = text.translate(_table())
    text = _TRAILING.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()

"""Reading a document safely, and cleaning its text before anything else looks at it."""
from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

MAX_DOC_BYTES = 1_000_000  # a bigger file is refused, not truncated: split it into several documents
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(r"[ \t]+\n")


class Rejected(ValueError):
    """A document that cannot be ingested; the message says why and what to do."""


def read_text(path: Path, max_bytes: int = MAX_DOC_BYTES) -> str:
    """The file's text, or Rejected for an empty, huge, binary or non-UTF-8 file."""
    size = path.stat().st_size
    if size == 0:
        raise Rejected("empty file: nothing to ingest (remove it from the manifest)")
    if size > max_bytes:
        raise Rejected(f"{size:,} bytes is over the {max_bytes:,}-byte limit per document: split it into smaller files")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise Rejected("binary file (it contains NUL bytes): only UTF-8 text and markdown are ingested")
    try:
        return data.decode("utf-8-sig")  # -sig: a byte-order mark is not part of the text
    except UnicodeDecodeError as exc:
        raise Rejected(f"not valid UTF-8 (byte {exc.start:,} is 0x{data[exc.start]:02x}): save the file as UTF-8") from None


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

"""The shipped corpus, its chunking profiles and golden queries (workshop_lib/data/corpus/)."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[2] / "data" / "corpus"
DOCS = FOLDER / "docs"                  # the documents, and manifest.jsonl that lists them
MANIFEST = DOCS / "manifest.jsonl"
PROFILES = FOLDER / "profiles.json"
GOLDEN = FOLDER / "golden.jsonl"        # question -> the doc_id that answers it
PLANTED = FOLDER / "planted.json"       # personal data planted in the corpus, and look-alikes that are not

UNITS = ("chars", "tokens")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,19}$")
MAX_SIZE = 20_000  # units per chunk; the embedded model reads at most 20,000 characters


@dataclass(frozen=True)
class Profile:
    """How documents are cut and how the index built from them is judged."""

    name: str
    unit: str          # "chars", or "tokens" of the engine's embedding model
    size: int          # units per chunk
    overlap: int       # units shared by neighbouring chunks
    k: int = 3         # golden queries count a hit in the top k chunks
    min_recall: float = 0.8
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"profile name {self.name!r}: use 1-20 lower-case letters, digits or _, starting with a letter")
        if self.unit not in UNITS:
            raise ValueError(f"profile {self.name}: unit must be one of {UNITS}, got {self.unit!r}")
        for field, value, low, high in (("size", self.size, 1, MAX_SIZE), ("overlap", self.overlap, 0, MAX_SIZE),
                                        ("k", self.k, 1, 100)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"profile {self.name}: {field} must be an integer from {low} to {high}, got {value!r}")
        if self.overlap >= self.size:
            raise ValueError(f"profile {self.name}: overlap ({self.overlap}) must be smaller than size ({self.size})")
        if not isinstance(self.min_recall, (int, float)) or not 0 <= self.min_recall <= 1:
            raise ValueError(f"profile {self.name}: min_recall must be from 0 to 1, got {self.min_recall!r}")

    @property
    def table(self) -> str:
        """The physical table this profile's chunks land in, e.g. DOCS_V2."""
        return f"DOCS_{self.name.upper()}"

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def load_profiles(path: Path = PROFILES) -> dict[str, Profile]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {name: Profile(name=name, **spec) for name, spec in data.items()}


@dataclass(frozen=True)
class GoldenQuery:
    question: str
    doc_id: str


def load_golden(path: Path = GOLDEN) -> list[GoldenQuery]:
    """Golden queries, one JSON object per line: {"question": ..., "doc_id": ...}."""
    out = []
    for no, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(GoldenQuery(str(row["question"]), str(row["doc_id"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{no}: a golden query needs \"question\" and \"doc_id\" ({exc})") from None
    return out

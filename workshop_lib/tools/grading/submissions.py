"""Which learner handed in which Part: folders, renamed downloads, colliding names."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_NOTEBOOK_BYTES = 50_000_000  # a notebook larger than this is refused, not parsed


@dataclass
class Submission:
    student: str          # learner id used by nbgrader (from the learner's folder name)
    part: str             # assignment, e.g. "part3"
    notebook: str         # the Part's notebook file name, e.g. "part3_retrieval_strategies.ipynb"
    file: str             # the file as handed in, relative to the submissions folder
    content: bytes = field(repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass
class Problem:
    student: str
    file: str
    status: str


_COPY = re.compile(r"^(copy of\s+)|(\s*\(\d+\)|[-_ ]copy\d*|[-_ ]\d+)$", re.I)


def canonical_stem(name: str) -> str:
    """'part2_memory_store (1)', 'Copy of part2_memory_store', 'part2_memory_store-Copy1' -> 'part2_memory_store'."""
    stem = Path(name).stem.strip()
    while True:
        shorter = _COPY.sub("", stem).strip()
        if shorter == stem:
            return stem.lower()
        stem = shorter


def match_part(name: str, parts: dict[str, str]) -> tuple[str, str] | None:
    """(part, notebook file name) for a handed-in file name, or None. `parts` maps stem -> part."""
    stem = canonical_stem(name)
    if stem in parts:
        return parts[stem], f"{stem}.ipynb"
    number = re.match(r"^part[\s_-]*(\d+)", stem)
    if number:
        candidates = [(p, s) for s, p in parts.items() if p == f"part{number.group(1)}"]
        if len(candidates) == 1:
            return candidates[0][0], f"{candidates[0][1]}.ipynb"
    return None


def learner_id(folder: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", folder).strip("_") or "learner"


def discover(root: Path, parts: dict[str, str]) -> tuple[list[Submission], list[Problem]]:
    """Every learner's newest notebook per Part, and what could not be used (with why)."""
    root = Path(root)
    found: dict[tuple[str, str], list[tuple[float, Path, str]]] = {}
    problems: list[Problem] = []
    folders: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.ipynb")):
        rel = path.relative_to(root)
        if ".ipynb_checkpoints" in rel.parts:
            continue
        if len(rel.parts) < 2:
            problems.append(Problem("", str(rel), "skipped: put each learner's notebooks in a folder named for the "
                                                   "learner (submissions/<learner>/<notebook>.ipynb)"))
            continue
        folders.setdefault(learner_id(rel.parts[0]), set()).add(rel.parts[0])
        hit = match_part(path.name, parts)
        if hit is None:
            problems.append(Problem(learner_id(rel.parts[0]), str(rel),
                                    "skipped: not a workshop notebook name (expected one of "
                                    + ", ".join(f"{s}.ipynb" for s in sorted(parts)) + ")"))
            continue
        found.setdefault((rel.parts[0], hit[0]), []).append((path.stat().st_mtime, path, hit[1]))

    collided = {sid: names for sid, names in folders.items() if len(names) > 1}
    subs: list[Submission] = []
    for (folder, part), files in sorted(found.items()):
        sid = learner_id(folder)
        files.sort(key=lambda f: (f[0], str(f[1])), reverse=True)
        if sid in collided:
            names = ", ".join(repr(n) for n in sorted(collided[sid]))
            for _, path, _ in files:
                problems.append(Problem(sid, str(path.relative_to(root)),
                                        f"refused: learner folders {names} all become the id {sid!r}; rename them so "
                                        "they differ in letters, digits, '-' or '_'"))
            continue
        _, newest, notebook = files[0]
        if newest.stat().st_size > MAX_NOTEBOOK_BYTES:
            problems.append(Problem(sid, str(newest.relative_to(root)),
                                    f"refused: larger than {MAX_NOTEBOOK_BYTES // 1_000_000} MB"))
            continue
        subs.append(Submission(sid, part, notebook, str(newest.relative_to(root)), newest.read_bytes()))
        for _, older, _ in files[1:]:
            problems.append(Problem(sid, str(older.relative_to(root)),
                                    f"skipped: {newest.name} is newer and was graded for {part}"))
    return subs, problems

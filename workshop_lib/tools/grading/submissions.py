"""Which learner handed in which Part: folders, renamed downloads, colliding names."""
from __future__ import annotations

import hashlib
import os
import re
import stat
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


def read_inside(root: Path, rel: str, limit: int = 200_000_000) -> bytes:
    """A regular file below root, never through a symbolic link (the notebook owns root and
    could plant a link to a file of the grader's); OSError when it is not such a file."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        parts = Path(rel).parts
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        inner = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        os.close(fd)
        fd = inner
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{rel} is not a regular file")
        if info.st_size > limit:
            raise OSError(f"{rel} is larger than {limit} bytes")
        chunks, left = [], limit
        while chunk := os.read(fd, min(1 << 20, left + 1)):
            chunks.append(chunk)
            left -= len(chunk)
            if left < 0:
                raise OSError(f"{rel} grew past {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _notebooks(root: Path, problems: list[Problem]) -> list[Path]:
    """Every .ipynb below root, never through a symbolic link: a link (to a file or a folder)
    could point at the instructor's solutions; each is refused with a line in the report."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        for name in sorted(dirs + files):
            path = here / name
            if path.is_symlink():
                rel = path.relative_to(root)
                problems.append(Problem(learner_id(rel.parts[0]) if len(rel.parts) > 1 else "", str(rel),
                                        "refused: a symbolic link (hand in the notebook file itself)"))
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        found += [here / f for f in files if f.endswith(".ipynb") and not (here / f).is_symlink()]
    return sorted(found)


def discover(root: Path, parts: dict[str, str]) -> tuple[list[Submission], list[Problem]]:
    """Every learner's newest notebook per Part, and what could not be used (with why)."""
    root = Path(root)
    problems: list[Problem] = []
    found, folders = _notebooks_by_learner_and_part(root, parts, problems)
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
        sub = _newest(root, sid, part, files, problems)
        if sub is not None:
            subs.append(sub)
    return subs, problems


def _notebooks_by_learner_and_part(root: Path, parts: dict[str, str], problems: list[Problem]
                                   ) -> tuple[dict[tuple[str, str], list[tuple[float, Path, str]]], dict[str, set[str]]]:
    """(learner folder, Part) -> its notebooks as (mtime, path, notebook), and learner id -> the
    folders that become it; a notebook outside a learner folder or not named for a Part is a problem."""
    found: dict[tuple[str, str], list[tuple[float, Path, str]]] = {}
    folders: dict[str, set[str]] = {}
    for path in _notebooks(root, problems):
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
        found.setdefault((rel.parts[0], hit[0]), []).append((path.lstat().st_mtime, path, hit[1]))
    return found, folders


def _newest(root: Path, sid: str, part: str, files: list[tuple[float, Path, str]],
            problems: list[Problem]) -> Submission | None:
    """The newest of a learner's notebooks for a Part (files sorted newest first), read now; the
    older ones are problems (skipped), and so is the newest when it cannot be read safely."""
    _, newest, notebook = files[0]
    where = str(newest.relative_to(root))
    try:  # no link anywhere on the way, even one made after the walk above
        content = read_inside(root, where, limit=MAX_NOTEBOOK_BYTES)
    except OSError as exc:
        big = "larger than" in str(exc) or "grew past" in str(exc)
        problems.append(Problem(sid, where, f"refused: larger than {MAX_NOTEBOOK_BYTES // 1_000_000} MB" if big
                                else f"refused: not a regular file inside the submissions folder ({exc})"))
        return None
    for _, older, _ in files[1:]:
        problems.append(Problem(sid, str(older.relative_to(root)),
                                f"skipped: {newest.name} is newer and was graded for {part}"))
    return Submission(sid, part, notebook, where, content)

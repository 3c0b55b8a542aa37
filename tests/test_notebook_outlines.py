"""A notebook's outline is its table of contents: where the title cell lists the sections (a
numbered list of three items or more; Part 4's two-item list of concepts is not one), the list
names each numbered `## N.` heading, in order, and no other."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "solutions").glob("part*/*.ipynb")) + sorted((ROOT / "notebooks").glob("part*/*.ipynb"))
ITEM = re.compile(r"^(\d+)\.\s+(.*)$", re.M)
SECTION = re.compile(r"^## (\d+[a-z]?)\.\s+(.*)$", re.M)
# Words too common to tie an outline line to its heading.
COMMON = {"with", "from", "what", "your", "their", "that", "this", "then", "into", "when", "the", "and"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4 and w not in COMMON}


def outline(cells: list[dict]) -> list[tuple[str, str]]:
    """(number, text) of the numbered list in the title cell (the one with '# Part N'), or []."""
    title = next((c for c in cells if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("# ")), None)
    items = ITEM.findall("".join(title["source"])) if title else []
    return items if len(items) >= 3 else []


def sections(cells: list[dict]) -> list[tuple[str, str]]:
    return [m for c in cells if c["cell_type"] == "markdown" for m in SECTION.findall("".join(c["source"]))]


def mismatches(cells: list[dict]) -> list[str]:
    items, heads = outline(cells), sections(cells)
    if not items:
        return []
    problems = [f"the outline has {len(items)} items, the notebook {len(heads)} numbered sections"] if len(items) != len(heads) else []
    for (n, item), (m, head) in zip(items, heads):
        if n != m or not words(item) & words(head):
            problems.append(f"outline {n}. {item[:60]!r} does not name section {m}. {head[:60]!r}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_outline_matches_the_headings(path):
    cells = json.loads(path.read_text())["cells"]
    assert not mismatches(cells), f"{path.relative_to(ROOT)}:\n" + "\n".join(mismatches(cells))


def test_the_notebooks_with_an_outline_are_found():
    with_outline = {p.parent.name for p in NOTEBOOKS if outline(json.loads(p.read_text())["cells"])}
    assert {"part1", "part6", "part7", "part8"} <= with_outline, with_outline


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "source": [text]}


def test_a_wrong_outline_is_caught():
    title = _md("# Part 0\n\n1. Tools from plain functions\n2. The demo\n3. Memory on and off\n")
    tools, demo, memory = _md("## 1. Tools from plain functions"), _md("## 2. The demo: four turns"), _md("## 3. Memory on and off")
    assert mismatches([title, tools, demo, memory]) == []
    assert mismatches([title, tools, demo]) == ["the outline has 3 items, the notebook 2 numbered sections"]
    assert len(mismatches([title, _md("## 1. The demo"), _md("## 2. Tools from plain functions"), memory])) == 2
    assert mismatches([title, tools, _md("## 1b. Planning"), demo, memory])
    assert outline([_md("# Part 0\n\n1. **Gate**: which chunks\n2. **Mode**: how to answer\n")]) == []  # a concept list

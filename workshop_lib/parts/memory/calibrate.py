"""Calibrating consolidation's thresholds for an engine's embedding model, as Part 4 does.

Two labelled sets of memory pairs: DUPLICATES (the same statement said another way) and
DIFFERENT (another statement of the same user: another subject, or the same subject with
another value, which the subject rule handles, not similarity). `memory_duplicate` is the
cut that best separates them (Youden's J, calibration.choose_threshold). FORGET_MATCHES
pairs a "forget ..." phrase with the memory it means, and FORGET_OTHERS with one it does
not. Forgetting the wrong memory costs more than missing one (the user can name the
subject), so `memory_forget` is the midpoint above the highest non-match: no false forget.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workshop_lib.parts.calibration import choose_threshold

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

DUPLICATES = [
    ("My home port is Rotterdam.", "Our home port is Rotterdam."),
    ("Our main carrier is Maersk.", "Our main carrier is Maersk Line."),
    ("Answer in dollars, not cents.", "Please answer in dollars, not in cents."),
    ("My employer is Acme Logistics.", "My employer is Acme Logistics Ltd."),
    ("Our preferred terminal is Maasvlakte II.", "Our preferred terminal is the Maasvlakte II terminal."),
    ("Answer in one sentence.", "Answer in a single sentence."),
    ("Our reefer plug quote is 12500 cents.", "Our reefer plug quote is 12,500 cents."),
    ("My location is Oslo.", "My location is Oslo, Norway."),
    ("Use metric units.", "Always use metric units."),
    ("Our contract number is HL-2291.", "Our contract number is HL-2291 with Hapag."),
]
DIFFERENT = [
    ("My home port is Rotterdam.", "Our main carrier is Maersk."),
    ("Answer in dollars, not cents.", "Answer in one sentence."),
    ("My employer is Acme Logistics.", "My location is Oslo."),
    ("Our reefer plug quote is 12500 cents.", "Our budget is 40000 cents."),
    ("Our preferred terminal is Maasvlakte II.", "My home port is Hamburg."),
    ("Use metric units.", "Show answers as a table."),
    ("Our contract number is HL-2291.", "Our insurance broker is Marsh."),
    ("My name is Ana.", "My manager is Bruno."),
    ("Our main carrier is Maersk.", "Our backup carrier is CMA CGM."),
    ("My home port is Rotterdam.", "My home port is Hamburg."),
]
FORGET_MATCHES = [
    ("our main carrier", "Our main carrier is Maersk."),
    ("the reefer quote", "Our reefer plug quote is 12500 cents."),
    ("where I work", "My employer is Acme Logistics."),
    ("my contract number", "Our contract number is HL-2291."),
    ("the dollars thing", "Answer in dollars, not cents."),
]
FORGET_OTHERS = [
    ("our main carrier", "My home port is Hamburg."),
    ("the reefer quote", "My employer is Acme Logistics."),
    ("where I work", "Our reefer plug quote is 12500 cents."),
    ("my contract number", "Answer in one sentence."),
    ("the dollars thing", "Our main carrier is Maersk."),
    ("our main carrier", "Our backup carrier is CMA CGM."),
    ("the reefer quote", "Our budget is 40000 cents."),
    ("my contract number", "Our insurance broker is Marsh."),
    ("my home port", "Our preferred terminal is Maasvlakte II."),
    ("the dollars thing", "Use metric units."),
]


def similarities(eng: Engine, pairs: list[tuple[str, str]]) -> np.ndarray:
    vecs = eng.model.embed([t for pair in pairs for t in pair])
    out = []
    for i in range(0, len(vecs), 2):
        a, b = np.asarray(vecs[i], dtype=float), np.asarray(vecs[i + 1], dtype=float)
        out.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
    return np.asarray(out)


def no_false_positive_cut(hit: np.ndarray, miss: np.ndarray) -> float:
    """The midpoint between the highest miss and the lowest hit above it."""
    top = float(np.max(miss))
    above = [float(h) for h in hit if h > top]
    return round((top + min(above)) / 2.0, 4) if above else round(top + 1e-4, 4)


def calibrate(eng: Engine) -> dict:
    """Measured thresholds and the similarities they come from."""
    dup, diff = similarities(eng, DUPLICATES), similarities(eng, DIFFERENT)
    hit, miss = similarities(eng, FORGET_MATCHES), similarities(eng, FORGET_OTHERS)
    return {"memory_duplicate": choose_threshold(dup, diff), "memory_forget": no_false_positive_cut(hit, miss),
            "duplicates": dup.round(3).tolist(), "different": diff.round(3).tolist(),
            "forget_matches": hit.round(3).tolist(), "forget_others": miss.round(3).tolist()}

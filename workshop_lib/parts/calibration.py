"""Part 4: calibrate the relevance thresholds for an embedding model.

A similarity of 0.75 means a lot with one model and little with another, so the
minimum score cannot be copied from a blog post. Calibration measures it:

1. A labelled set: questions paired with the SUPPLYCHAIN memory that answers them
   (relevant), and questions paired with a memory that does not (irrelevant: a
   plausible confuser from the same schema, or, for off-topic questions, whatever
   memory happens to be nearest, which is exactly what the gate would see).
2. `similarity_distributions(eng)` embeds every question with the engine's model and
   measures 1 - cosine distance to the labelled memory.
3. `choose_threshold` picks the cut that best separates the two distributions
   (maximum Youden's J = true-positive rate - false-positive rate), deterministically.
4. `suggest_thresholds` turns the distributions into min_score / threshold_low /
   threshold_high for config.THRESHOLDS.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from workshop_lib.errors import WorkshopError

NEAREST = None  # subject placeholder: "the nearest memory, whatever it is"

# (question, subject of the memory that answers it)
RELEVANT_PAIRS: list[tuple[str, str]] = [
    ("How many twenty-foot containers fit on a ship?", "SUPPLYCHAIN.VESSELS.CAPACITY_TEU"),
    ("What is the capacity of a ship in TEU?", "SUPPLYCHAIN.VESSELS.CAPACITY_TEU"),
    ("Is the declared value of goods stored in dollars or cents?", "SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS"),
    ("What currency unit does the cargo value use?", "SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS"),
    ("How is the IMO check digit computed?", "SUPPLYCHAIN.VESSELS.IMO_NUMBER"),
    ("Which number identifies a ship for its whole life?", "SUPPLYCHAIN.VESSELS.IMO_NUMBER"),
    ("What does the five-letter port code mean?", "SUPPLYCHAIN.PORTS.UNLOCODE"),
    ("How are UN/LOCODE port identifiers written?", "SUPPLYCHAIN.PORTS.UNLOCODE"),
    ("Is longitude positive east or west?", "SUPPLYCHAIN.PORTS.LONGITUDE"),
    ("Which trade region does a port belong to?", "SUPPLYCHAIN.PORTS.REGION"),
    ("What temperature is a refrigerated container set to?", "SUPPLYCHAIN.CONTAINERS.REEFER_TEMP_C"),
    ("What do 20GP and 40HC mean for a container?", "SUPPLYCHAIN.CONTAINERS.SIZE_TYPE"),
    ("How is an ISO 6346 container number built?", "SUPPLYCHAIN.CONTAINERS.CONTAINER_NUMBER"),
    ("What is the verified gross mass of a container?", "SUPPLYCHAIN.CONTAINERS.GROSS_WEIGHT_KG"),
    ("How heavy is an empty container box?", "SUPPLYCHAIN.CONTAINERS.TARE_WEIGHT_KG"),
    ("What is the HS tariff code of the goods?", "SUPPLYCHAIN.CARGO_ITEMS.HS_CODE"),
    ("Which UN number marks dangerous goods?", "SUPPLYCHAIN.CARGO_ITEMS.UN_NUMBER"),
    ("What package types appear on the manifest lines?", "SUPPLYCHAIN.CARGO_ITEMS.PACKAGE_TYPE"),
    ("What is the SCAC code of a shipping line?", "SUPPLYCHAIN.CARRIERS.SCAC_CODE"),
    ("Which alliance does a carrier belong to?", "SUPPLYCHAIN.CARRIERS.ALLIANCE"),
    ("Where is the carrier's head office?", "SUPPLYCHAIN.CARRIERS.HQ_COUNTRY"),
    ("Under which flag is a ship registered?", "SUPPLYCHAIN.VESSELS.FLAG_STATE"),
    ("How much weight can a ship load in tonnes?", "SUPPLYCHAIN.VESSELS.DEADWEIGHT_TONNES"),
    ("When was the ship built?", "SUPPLYCHAIN.VESSELS.YEAR_BUILT"),
    ("How fast is a vessel sailing in knots?", "SUPPLYCHAIN.VESSEL_POSITIONS.SPEED_KNOTS"),
    ("Which way is the ship heading?", "SUPPLYCHAIN.VESSEL_POSITIONS.HEADING_DEG"),
    ("When was the last AIS position received?", "SUPPLYCHAIN.VESSEL_POSITIONS.REPORTED_AT"),
    ("Is a voyage active, scheduled or completed?", "SUPPLYCHAIN.VOYAGES.STATUS"),
    ("When does the vessel arrive at its destination?", "SUPPLYCHAIN.VOYAGES.ARRIVAL_DATE"),
    ("What is the carrier's voyage reference on the schedule?", "SUPPLYCHAIN.VOYAGES.VOYAGE_NUMBER"),
    ("Which table lists the container seaports?", "SUPPLYCHAIN.PORTS"),
    ("Which table holds the goods inside each container?", "SUPPLYCHAIN.CARGO_ITEMS"),
]

# (question, subject of a memory that does NOT answer it; NEAREST = the closest memory)
IRRELEVANT_PAIRS: list[tuple[str, str | None]] = [
    # in-domain questions against plausible confusers
    ("How many twenty-foot containers fit on a ship?", "SUPPLYCHAIN.CARRIERS"),
    ("What is the capacity of a ship in TEU?", "SUPPLYCHAIN.VESSELS.DEADWEIGHT_TONNES"),
    ("Is the declared value of goods stored in dollars or cents?", "SUPPLYCHAIN.CARGO_ITEMS.QUANTITY"),
    ("How is the IMO check digit computed?", "SUPPLYCHAIN.CONTAINERS.CONTAINER_NUMBER"),
    ("What does the five-letter port code mean?", "SUPPLYCHAIN.PORTS.COUNTRY_CODE"),
    ("Is longitude positive east or west?", "SUPPLYCHAIN.VESSEL_POSITIONS.HEADING_DEG"),
    ("What temperature is a refrigerated container set to?", "SUPPLYCHAIN.CONTAINERS.SIZE_TYPE"),
    ("How heavy is an empty container box?", "SUPPLYCHAIN.CARGO_ITEMS.GROSS_WEIGHT_KG"),
    ("Which UN number marks dangerous goods?", "SUPPLYCHAIN.CARGO_ITEMS.HS_CODE"),
    ("What is the SCAC code of a shipping line?", "SUPPLYCHAIN.CARRIERS.CARRIER_ID"),
    ("Under which flag is a ship registered?", "SUPPLYCHAIN.CARRIERS.HQ_COUNTRY"),
    ("How fast is a vessel sailing in knots?", "SUPPLYCHAIN.VOYAGES.DEPARTURE_DATE"),
    ("When does the vessel arrive at its destination?", "SUPPLYCHAIN.VESSELS.YEAR_BUILT"),
    ("Which table lists the container seaports?", "SUPPLYCHAIN.CONTAINERS"),
    # off-topic questions against whatever memory is nearest
    ("What is a good recipe for pasta carbonara?", NEAREST),
    ("Who won the football world cup in 2018?", NEAREST),
    ("What will the weather be in Paris tomorrow?", NEAREST),
    ("How tall is the Eiffel Tower?", NEAREST),
    ("Recommend a good science fiction novel.", NEAREST),
    ("How do I reset my email password?", NEAREST),
    ("What is the capital of Australia?", NEAREST),
    ("How many calories are in a banana?", NEAREST),
    ("Translate 'good morning' into Spanish.", NEAREST),
    ("Which programming language should I learn first?", NEAREST),
    ("What time does the museum open on Sunday?", NEAREST),
    ("How do I fix a flat bicycle tyre?", NEAREST),
    ("Tell me a joke about cats.", NEAREST),
    ("What are the symptoms of the flu?", NEAREST),
]


class Distributions(NamedTuple):
    relevant: np.ndarray
    irrelevant: np.ndarray


def pair_table(eng):
    """Every labelled pair with its measured similarity (a pandas DataFrame)."""
    import pandas as pd

    questions = list(dict.fromkeys(q for q, _ in RELEVANT_PAIRS + IRRELEVANT_PAIRS))
    vectors = dict(zip(questions, eng.model.embed(questions)))  # one batch: each question embedded once
    rows = []
    for label, pairs in (("relevant", RELEVANT_PAIRS), ("irrelevant", IRRELEVANT_PAIRS)):
        for question, subject in pairs:
            hits = eng.store.search(
                query_vector=vectors[question], k=1, user_id=eng.user_id, agent_id=eng.agent_id,
                exact_user_match=True, exact_agent_match=True, record_types={"memory"},
                metadata_filter=None if subject is NEAREST else {"subject": subject},
            )
            if not hits:
                raise RuntimeError(
                    f"No memory with subject {subject!r} in this engine's store. Fix: run "
                    "`from workshop_lib.prepare import prepare; prepare(eng)` to seed and scan SUPPLYCHAIN."
                )
            record, distance = hits[0]
            rows.append({"label": label, "question": question,
                         "subject": (record.metadata or {}).get("subject", record.id),
                         "nearest": subject is NEAREST, "similarity": 1.0 - float(distance)})
    return pd.DataFrame(rows, columns=["label", "question", "subject", "nearest", "similarity"])


def similarity_distributions(eng) -> Distributions:
    """Similarities of the relevant and of the irrelevant pairs, as two arrays."""
    table = pair_table(eng)
    return Distributions(
        relevant=table.loc[table.label == "relevant", "similarity"].to_numpy(dtype=float),
        irrelevant=table.loc[table.label == "irrelevant", "similarity"].to_numpy(dtype=float),
    )


def _clean(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty: calibration needs at least one {name} similarity")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return arr


def rates(relevant, irrelevant, threshold: float) -> dict[str, float]:
    """What a cut at `threshold` does: share of relevant kept, share of irrelevant let through."""
    rel, irr = _clean(relevant, "relevant"), _clean(irrelevant, "irrelevant")
    tpr = float(np.mean(rel >= threshold))
    fpr = float(np.mean(irr >= threshold))
    return {"threshold": float(threshold), "tpr": tpr, "fpr": fpr, "youden_j": tpr - fpr,
            "balanced_accuracy": (tpr + 1.0 - fpr) / 2.0}


def threshold_curve(relevant, irrelevant):
    """Rates at every candidate cut (a DataFrame), for plotting."""
    import pandas as pd

    return pd.DataFrame([rates(relevant, irrelevant, t) for t in _candidates(relevant, irrelevant)])


def _candidates(relevant, irrelevant) -> list[float]:
    values = np.unique(np.concatenate([_clean(relevant, "relevant"), _clean(irrelevant, "irrelevant")]))
    mids = (values[:-1] + values[1:]) / 2.0
    return [float(values[0]) - 1e-6, *map(float, mids), float(values[-1]) + 1e-6]


def choose_threshold(relevant, irrelevant) -> float:
    """The cut with the highest Youden's J (equivalently, balanced accuracy).

    Candidates are the midpoints between consecutive observed similarities. When several
    cuts tie, the middle of the widest tied run is taken, so the result sits as far as
    possible from the nearest observations. Deterministic: same inputs, same answer.
    """
    candidates = _candidates(relevant, irrelevant)
    js = [round(rates(relevant, irrelevant, t)["youden_j"], 12) for t in candidates]
    best = max(js)
    # tied candidates form runs of consecutive indices; take the widest run's middle
    runs, start = [], None
    for i, j in enumerate(js + [None]):
        if j == best and start is None:
            start = i
        elif j != best and start is not None:
            runs.append((start, i - 1))
            start = None
    lo, hi = max(runs, key=lambda r: (candidates[r[1]] - candidates[r[0]], -r[0]))
    return round((candidates[lo] + candidates[hi]) / 2.0, 4)


MIN_HYBRID_BAND = 0.05  # the narrowest band between min_score and threshold_high calibrate writes


class CalibrationRefused(WorkshopError, ValueError):
    """The measured similarities leave no usable answer-mode band: nothing is saved."""


def suggest_thresholds(relevant, irrelevant, *, high_max_fpr: float = 0.05, low_min_tpr: float = 0.90) -> dict:
    """min_score and the answer-mode band from the two distributions.

    - min_score: the best-separating cut (choose_threshold).
    - threshold_high: the lowest cut letting through at most `high_max_fpr` of the
      irrelevant pairs, and never below min_score: above it, answer with confidence (rag).
    - threshold_low: the highest cut that still keeps `low_min_tpr` of the relevant
      pairs, and never above min_score: between low and high, answer with care (hybrid).
    threshold_high always ends above min_score (by MIN_HYBRID_BAND at least when the two
    cuts coincide), so the hybrid band can be reached; ValueError when no room is left.
    """
    rel, irr = _clean(relevant, "relevant"), _clean(irrelevant, "irrelevant")
    cut = choose_threshold(rel, irr)
    candidates = _candidates(rel, irr)
    high = min((t for t in candidates if rates(rel, irr, t)["fpr"] <= high_max_fpr), default=candidates[-1])
    low = max((t for t in candidates if rates(rel, irr, t)["tpr"] >= low_min_tpr), default=candidates[0])
    high, low = max(high, cut), min(low, cut)
    min_score, threshold_high = round(cut, 2), round(high, 2)
    if threshold_high <= min_score:
        # A model that separates the pairs well puts both cuts at one place; with min_score ==
        # threshold_high the hybrid band is empty (chunks under min_score are dropped before
        # the mode is decided). Clamp: the band keeps at least MIN_HYBRID_BAND of width.
        threshold_high = round(min(1.0, min_score + MIN_HYBRID_BAND), 2)
    if threshold_high <= min_score:
        raise CalibrationRefused(f"min_score {min_score} leaves no room for the hybrid band below 1.0: the "
                                 "labelled pairs cannot calibrate this model",
                                 "keep the defaults (`workshop calibrate --no-write` shows what was measured)")
    return {"min_score": min_score, "threshold_low": round(low, 2), "threshold_high": threshold_high,
            "at_min_score": rates(rel, irr, cut)}

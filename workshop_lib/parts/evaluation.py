"""A small labelled question set and the measures Part 3 compares retrievers with.

The full benchmark (60+ questions, speed at scale) lives in bench/; this is the
classroom-sized version that runs in a second.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd

S = "SUPPLYCHAIN."

# (question, subjects that answer it). Mixed on purpose: paraphrases, acronyms, exact tokens.
QUESTIONS: list[tuple[str, set[str]]] = [
    ("Where do we record vessel current positions?", {S + "VESSEL_POSITIONS"}),
    ("TEU 20-foot equivalent capacity unit for vessels", {S + "VESSELS.CAPACITY_TEU"}),
    ("How many boxes can a ship carry?", {S + "VESSELS.CAPACITY_TEU"}),
    ("How much is one package of goods worth?", {S + "CARGO_ITEMS.UNIT_VALUE_CENTS"}),
    ("SCAC code", {S + "CARRIERS.SCAC_CODE"}),
    ("Which registry is the ship flagged in?", {S + "VESSELS.FLAG_STATE"}),
    ("UN/LOCODE of a port", {S + "PORTS.UNLOCODE"}),
    ("How fast is the ship sailing right now?", {S + "VESSEL_POSITIONS.SPEED_KNOTS"}),
    ("dangerous goods hazmat classification", {S + "CARGO_ITEMS.UN_NUMBER"}),
    ("refrigerated container temperature setting", {S + "CONTAINERS.REEFER_TEMP_C"}),
    ("verified gross mass VGM SOLAS", {S + "CONTAINERS.GROSS_WEIGHT_KG"}),
    ("tariff classification of the goods", {S + "CARGO_ITEMS.HS_CODE"}),
    ("when will the ship arrive ETA", {S + "VOYAGES.ARRIVAL_DATE"}),
    ("ISO 6346 container number check digit", {S + "CONTAINERS.CONTAINER_NUMBER"}),
    ("Which shipping lines do we work with?", {S + "CARRIERS"}),
    ("vessel sharing alliance membership", {S + "CARRIERS.ALLIANCE"}),
]


# One definition of the measures, shared with bench/ (which runs them on 91 questions).
def first_rank(subjects: list[str], relevant: set[str] | tuple[str, ...]) -> int | None:
    """1-based rank of the first subject that answers the question, or None if none does."""
    for i, s in enumerate(subjects, start=1):
        if s in relevant:
            return i
    return None


def found_at(rank: int | None, k: int) -> float:
    """recall@k of one question: 1 when an answering subject is in the top k (any of them counts)."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    return 1.0 / rank if rank is not None else 0.0


def evaluate(retrievers: dict[str, Callable[[str, int], list[dict]]], k: int = 5,
             questions: list[tuple[str, set[str]]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every retriever on every question: (summary per retriever, one row per question)."""
    rows = []
    for question, relevant in questions or QUESTIONS:
        for name, fn in retrievers.items():
            subjects = [h["subject"] for h in fn(question, k)]
            rank = first_rank(subjects, relevant)
            rows.append({"retriever": name, "question": question, "expected": ", ".join(sorted(relevant)),
                         "top1": subjects[0] if subjects else "", "recall@1": found_at(rank, 1),
                         f"recall@{k}": found_at(rank, k), "MRR": reciprocal_rank(rank)})
    detail = pd.DataFrame(rows)
    summary = detail.groupby("retriever", sort=False)[["recall@1", f"recall@{k}", "MRR"]].mean().round(3)
    return summary, detail

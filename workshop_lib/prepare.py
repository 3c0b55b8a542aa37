"""Get an engine ready for the notebooks: store schema, SUPPLYCHAIN seed, scanned memories.

Safe to re-run: the store is only ever created where missing, the seed is idempotent
and scanned facts are upserted, so a learner's own memories are never touched.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from workshop_lib.data import supplychain
from workshop_lib.parts import scanner

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    from workshop_lib.engines.base import Engine

AGENT_PROFILE = "Supply-chain analyst assistant that answers questions about the SUPPLYCHAIN schema."
USER_PROFILE = "Workshop attendee exploring agent memory on Oracle AI Database."


def prepare(eng: Engine, *, progress: bool = True) -> dict:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    eng.model.embed(["warm up the embedding model"])
    store = eng.open_store()
    if store.get("user_profile", eng.user_id) is None:
        store.add_user(eng.user_id, USER_PROFILE)
    if store.get("agent_profile", eng.agent_id) is None:
        store.add_agent(eng.agent_id, AGENT_PROFILE)
    timings["store_and_model_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    counts = supplychain.seed(eng, progress=progress)
    timings["seed_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    facts = scanner.scan_schema(eng, "SUPPLYCHAIN")
    written = scanner.write_facts(eng, facts, progress=progress)
    timings["scan_s"] = time.perf_counter() - t0
    return {"engine": eng.name, "rows": counts, "facts": len(facts), "written": written, "timings": timings}

"""`workshop doctor`: one PASS/FAIL line per thing the notebooks rely on, with the fix."""
from __future__ import annotations

from workshop_lib.core.store import SchemaPolicy
from workshop_lib.data import supplychain
from workshop_lib.data.supplychain_data import TABLES, rows
from workshop_lib.engines.health import Check
from workshop_lib.parts import scanner

__all__ = ["Check", "checks"]  # Check lives with the engines, which report their own lines in it


def checks(eng) -> list[Check]:
    out: list[Check] = [Check("engine", True, f"{eng.name} ({eng})")]
    try:
        eng.query(eng.statements.ping)
        out.append(Check("database reachable", True, "answered a query"))
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure
        out.append(Check("database reachable", False, str(exc).splitlines()[0],
                         "start the database (see README troubleshooting) or switch WORKSHOP_ENGINE=embedded"))
        return out
    out.append(_embedding_model(eng))
    store = _memory_store(eng)
    out.append(store)
    if store.ok:  # the seed and the scan are read only once the store answers
        out += [_supplychain_seed(eng), _schema_memories(eng)]
    return out + eng.backend.doctor_checks(eng.store.prefix)


def _embedding_model(eng) -> Check:
    """The model embeds a text into a vector of the dimension the store expects."""
    try:
        vec = eng.model.embed(["doctor check"])[0]
        ok = len(vec) == eng.model.dim
        return Check("embedding model", ok, f"{eng.model.name} returns {len(vec)} dims (expected {eng.model.dim})",
                     "reinstall the model's package (see the message)")
    except Exception as exc:  # noqa: BLE001 - the model's error carries its own fix
        return Check("embedding model", False, str(exc).splitlines()[0])


def _memory_store(eng) -> Check:
    """The memory store's schema exists (REQUIRE_EXISTING: doctor reports a missing store, it never creates one)."""
    try:
        n = eng.open_store(SchemaPolicy.REQUIRE_EXISTING).count()
        return Check("memory store", True, f"schema ready, {n} records")
    except Exception as exc:  # noqa: BLE001
        return Check("memory store", False, str(exc).splitlines()[0], "run `workshop setup`")


def _supplychain_seed(eng) -> Check:
    """Every SUPPLYCHAIN table holds the rows the seed writes."""
    try:
        expected = {t: len(r) for t, r in rows().items()}
        have = supplychain.counts(eng, TABLES)
        bad = {t: (have[t], expected[t]) for t in expected if have[t] != expected[t]}
        detail = ", ".join(f"{t.lower()}={have[t]}" for t in expected)
        return Check("SUPPLYCHAIN seed", not bad, detail if not bad else f"unexpected counts {bad}",
                     "run `workshop setup` (re-seeding is safe)")
    except Exception as exc:  # noqa: BLE001
        return Check("SUPPLYCHAIN seed", False, str(exc).splitlines()[0], "run `workshop setup`")


def _schema_memories(eng) -> Check:
    """Every schema fact the scanner finds is stored in this scope; a fact id held by another scope is named."""
    try:
        facts = scanner.scan_schema(eng, "SUPPLYCHAIN")
        stored = {r.id for r in eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                                                metadata_filter={"source": scanner.SOURCE})}
        missing = [f for f in facts if f.record_id not in stored]
        fix = "run `workshop setup` or the scan cell in Part 2"
        held = [(f.record_id, r) for f in missing if (r := eng.store.get("memory", f.record_id)) is not None]
        if held:  # ids are unique per type across users: setup cannot write these (see store.py)
            rid, r = held[0]
            fix = (f"{len(held)} fact id(s) are held by another scope, e.g. {rid!r} by user {r.user_id!r}: "
                   f"delete them (eng.store.delete('memory', {rid!r})), then run `workshop setup`")
        return Check("schema memories scanned", not missing,
                     f"{len(facts) - len(missing)}/{len(facts)} facts stored", fix)
    except Exception as exc:  # noqa: BLE001
        return Check("schema memories scanned", False, str(exc).splitlines()[0], "run `workshop setup`")

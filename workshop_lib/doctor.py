"""`workshop doctor`: one PASS/FAIL line per thing the notebooks rely on, with the fix."""
from __future__ import annotations

from .engine import Check


def checks(eng) -> list[Check]:
    from . import scanner
    from .supplychain_data import rows

    out: list[Check] = [Check("engine", True, f"{eng.name} ({eng.describe()})")]
    try:
        eng.ping()
        out.append(Check("database reachable", True, "answered a query"))
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure
        out.append(Check("database reachable", False, str(exc).splitlines()[0],
                         "start the database (see README troubleshooting) or switch WORKSHOP_ENGINE=embedded"))
        return out
    try:
        vec = eng.embed(["doctor check"])[0]
        ok = len(vec) == eng.dim
        out.append(Check("embedding model", ok, f"{eng.model_name} returns {len(vec)} dims (expected {eng.dim})",
                         "run `workshop setup` to load the model"))
    except Exception as exc:  # noqa: BLE001
        out.append(Check("embedding model", False, str(exc).splitlines()[0], "run `workshop setup`"))
    try:
        n = eng.store.count()
        out.append(Check("memory store", True, f"schema ready, {n} records"))
    except Exception as exc:  # noqa: BLE001
        out.append(Check("memory store", False, str(exc).splitlines()[0], "run `workshop setup`"))
        return out + eng.extra_checks()
    try:
        expected = {t: len(r) for t, r in rows().items()}
        have = eng.supplychain_counts()
        bad = {t: (have[t], expected[t]) for t in expected if have[t] != expected[t]}
        detail = ", ".join(f"{t.lower()}={have[t]}" for t in expected)
        out.append(Check("SUPPLYCHAIN seed", not bad, detail if not bad else f"unexpected counts {bad}",
                         "run `workshop setup` (re-seeding is safe)"))
    except Exception as exc:  # noqa: BLE001
        out.append(Check("SUPPLYCHAIN seed", False, str(exc).splitlines()[0], "run `workshop setup`"))
    try:
        facts = scanner.scan_schema(eng, "SUPPLYCHAIN")
        stored = {r.id for r in eng.store.list("memory", limit=None, user_id=eng.user_id, agent_id=eng.agent_id,
                                                metadata_filter={"source": scanner.SOURCE})}
        missing = [f.subject for f in facts if f.record_id not in stored]
        out.append(Check("schema memories scanned", not missing,
                         f"{len(facts) - len(missing)}/{len(facts)} facts stored",
                         "run `workshop setup` or the scan cell in Part 2"))
    except Exception as exc:  # noqa: BLE001
        out.append(Check("schema memories scanned", False, str(exc).splitlines()[0], "run `workshop setup`"))
    return out + eng.extra_checks()

"""Checks for Part 3 (retrieval strategies). They compare the learner's functions
with the reference behaviour computed on the same engine, so they work on both."""
from __future__ import annotations

from .. import retrieval
from . import CheckFailed, call_learner, expect, passed

TODO2 = "TODO 2 (retrieve_knowledge)"
TODO3 = "TODO 3 (hybrid_rrf_search_memories)"

KNOWLEDGE_KEYS = {"kind", "subject", "body", "metadata", "distance"}
HYBRID_KEYS = {"record_id", "kind", "subject", "content", "r_vec", "r_txt", "rrf_score"}

PROBES = [
    "Where do we record vessel current positions?",
    "TEU 20-foot equivalent capacity unit for vessels",
    "what is the value of a cargo item",
]


def _subjects(hits) -> list[str]:
    return [h.get("subject") for h in hits]


def check_retrieve_knowledge(fn, eng) -> None:
    for query, k, kinds in [(PROBES[0], 3, None), (PROBES[1], 5, None), (PROBES[2], 4, ["column"]),
                            (PROBES[1], 2, "table, column"), (PROBES[0], 1, [])]:
        got = call_learner(TODO2, "retrieve_knowledge(query, k, kinds)", fn, query, k=k, kinds=kinds)
        want = retrieval.retrieve_knowledge(eng, query, k=k, kinds=kinds)
        call = f"retrieve_knowledge({query!r}, k={k}, kinds={kinds!r})"
        expect(isinstance(got, list), TODO2, f"{call} returned {type(got).__name__}, not a list of dicts",
               "return the list that rerank(...) gives you.")
        expect(all(isinstance(h, dict) and KNOWLEDGE_KEYS <= set(h) for h in got), TODO2,
               f"{call}: each hit must be a dict with keys {sorted(KNOWLEDGE_KEYS)}",
               "build each candidate as {'kind', 'subject', 'body', 'metadata', 'distance'}.")
        if len(got) != len(want):
            raise CheckFailed(TODO2, f"{call} returned {len(got)} hits; expected {len(want)}",
                              "fetch k * 4 candidates from eng.memory.search(...) and pass top_k=k to rerank().")
        if isinstance(kinds, str) and any(h["kind"] not in ("table", "column") for h in got):
            raise CheckFailed(TODO2, f"{call}: kinds given as a comma-separated string was not applied",
                              "split a string on ',' and strip each part before filtering.")
        if _subjects(got) != _subjects(want):
            first = next(i for i, (a, b) in enumerate(zip(_subjects(got), _subjects(want))) if a != b)
            hint = ("keep only hits whose metadata kind is in kinds." if kinds else
                    "order by distance (search already does), oversample 4x and let rerank() cut to k.")
            raise CheckFailed(TODO2, f"{call}: rank {first + 1} should be {want[first]['subject']}, "
                              f"you returned {got[first]['subject']}", hint)
    # Tool output must never come back as knowledge.
    store = eng.store
    rid = "check:tool-output"
    if store.get("memory", rid) is None:
        store.add(["Tool output: vessel current positions query returned 28 rows"], record_ids=rid,
                  metadata={"kind": "tool_output", "subject": "TOOL"}, user_ids=eng.user_id, agent_ids=eng.agent_id)
    try:
        got = call_learner(TODO2, "retrieve_knowledge(query, k)", fn, "Tool output: vessel current positions", k=5)
    finally:
        store.delete("memory", rid)
    expect(all(h.get("kind") != "tool_output" for h in got), TODO2,
           "a memory with metadata kind 'tool_output' came back as knowledge",
           "skip hits whose metadata.get('kind') == 'tool_output'.")
    passed(TODO2, "matches the reference on 6 queries, kinds filters and the tool_output rule")


def _explain_hybrid(got: list[dict], want: list[dict], call: str) -> None:
    for i, (g, w) in enumerate(zip(got, want), start=1):
        if g["record_id"] != w["record_id"]:
            hint = "check that missing ranks use the 999999 sentinel and ORDER BY rrf_score DESC."
            if g["r_txt"] != retrieval.SENTINEL and w["r_txt"] == retrieval.SENTINEL:
                hint = "a row missing from the keyword list must get r_txt = 999999 (NVL/COALESCE)."
            raise CheckFailed(TODO3, f"{call}: rank {i} should be {w['subject']} (r_vec={w['r_vec']}, "
                              f"r_txt={w['r_txt']}), you returned {g['subject']} (r_vec={g['r_vec']}, "
                              f"r_txt={g['r_txt']})", hint)
        if (g["r_vec"], g["r_txt"]) != (w["r_vec"], w["r_txt"]):
            raise CheckFailed(TODO3, f"{call}: {w['subject']} should have r_vec={w['r_vec']}, r_txt={w['r_txt']}; "
                              f"you gave r_vec={g['r_vec']}, r_txt={g['r_txt']}",
                              "rank each list with ROW_NUMBER() (1-based), vector by distance ascending, "
                              "keyword by score descending, each cut to :n rows; missing ranks are 999999.")
        if abs(g["rrf_score"] - w["rrf_score"]) > 1e-9:
            raise CheckFailed(TODO3, f"{call}: rrf_score for {w['subject']} should be {w['rrf_score']:.6f}, "
                              f"you computed {g['rrf_score']:.6f}",
                              "rrf_score = 1.0/(:rrf_k + r_vec) + 1.0/(:rrf_k + r_txt); use 1.0 so it is not "
                              "integer division.")


def check_hybrid_rrf(fn, eng) -> None:
    cases = [(PROBES[1], 5, 30, 60), (PROBES[0], 3, 10, 60), ("cargo value in cents", 4, 20, 10), ("!!!", 2, 30, 60)]
    for query, k, per_list, rrf_k in cases:
        call = f"hybrid_rrf_search_memories({query!r}, k={k}, per_list={per_list}, rrf_k={rrf_k})"
        got = call_learner(TODO3, call, fn, query, k=k, per_list=per_list, rrf_k=rrf_k)
        expect(isinstance(got, list) and all(isinstance(h, dict) and HYBRID_KEYS <= set(h) for h in got), TODO3,
               f"{call} must return a list of dicts with keys {sorted(HYBRID_KEYS)}",
               "select record_id, content, metadata, r_vec, r_txt, rrf_score (in that order) in your SQL.")
        bad = [h for h in got if not isinstance(h["r_vec"], int) or not isinstance(h["r_txt"], int)
               or not isinstance(h["rrf_score"], float)]
        expect(not bad, TODO3, f"{call}: r_vec and r_txt must be ints and rrf_score a float",
               "missing ranks must be the integer sentinel 999999, never NULL.")
        vec = retrieval.vector_ranked_ids(eng, query, per_list)
        txt = retrieval.keyword_ranked_ids(eng, query, per_list)
        want = retrieval.rrf_fuse(vec, txt, k=k, rrf_k=rrf_k)
        for w in want:
            rec = eng.store.get("memory", w["record_id"])
            w["subject"] = (rec.metadata or {}).get("subject", w["record_id"]) if rec else w["record_id"]
        odd = [h for h in got if h["r_vec"] != retrieval.SENTINEL and not 1 <= h["r_vec"] <= per_list
               or h["r_txt"] != retrieval.SENTINEL and not 1 <= h["r_txt"] <= per_list]
        if odd:
            raise CheckFailed(TODO3, f"{call}: {odd[0]['subject']} has r_vec={odd[0]['r_vec']}, r_txt={odd[0]['r_txt']}; "
                              f"ranks must be 1..{per_list} (per_list) or the sentinel 999999",
                              "a memory missing from one list gets NVL/COALESCE(rank, 999999), never 0 or NULL; "
                              "cut each list to :n rows.")
        if len(got) != len(want):
            raise CheckFailed(TODO3, f"{call} returned {len(got)} rows; expected {len(want)}",
                              "end the statement with the top-k cut (LIMIT :k / FETCH FIRST :k ROWS ONLY) and "
                              "use FULL OUTER JOIN so rows found by only one retriever survive.")
        _explain_hybrid(got, want, call)
    passed(TODO3, "ranks and scores equal Reciprocal Rank Fusion of the two ranked lists on 4 queries")

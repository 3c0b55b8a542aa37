"""Checks for Part 3 (retrieval strategies). They compare the learner's functions with the
reference behaviour computed on the same engine, so they work on both engines.

While a check runs, `planted(eng)` adds a few records that catch the usual mistakes (a tool
output, a thread message, another user's and another agent's memory, a memory without kind
or subject, two identical memories) and removes them afterwards.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from workshop_lib.checks import CheckFailed, call_learner, describe_value, expect, passed
from workshop_lib.engines.database import Sent
from workshop_lib.engines.hits import Hit
from workshop_lib.parts import retrieval

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

TODO1 = "TODO 1 (retrieve_knowledge)"
TODO2 = "TODO 2 (hybrid_rrf_search_memories)"

KNOWLEDGE_KEYS = {"kind", "subject", "body", "metadata", "distance"}
HYBRID_KEYS = {"record_id", "kind", "subject", "content", "r_vec", "r_txt", "rrf_score"}

PROBES = [
    "Where do we record vessel current positions?",
    "TEU 20-foot equivalent capacity unit for vessels",
    "what is the value of a cargo item",
    "reefer twin setpoint calibration log",
]

OTHER_USER, OTHER_AGENT = "check-other-user", "check-other-agent"
CHECK_THREAD = "check:thread"
TWIN_TEXT = "Reefer twin setpoint calibration log: the reefer setpoint is calibrated twice per voyage."
# (record id, text, metadata, user, agent): "mine" is the engine's own user or agent.
PLANTS = [
    ("check:tool-output", "Tool output: vessel current positions query returned 28 rows; TEU capacity listed.",
     {"kind": "tool_output", "subject": "TOOL.CALL_1"}, "mine", "mine"),
    ("check:other-user", PROBES[1] + ". Vessel capacity in TEU, twenty-foot equivalent units.",
     {"kind": "column", "subject": "OTHER_USER.NOTE"}, OTHER_USER, "mine"),
    ("check:other-agent", PROBES[0] + " Vessel positions are in the positions log.",
     {"kind": "column", "subject": "OTHER_AGENT.NOTE"}, "mine", OTHER_AGENT),
    ("check:learner-note", "Note to self: where do we record vessel current positions? Ask ops.",
     {}, "mine", "mine"),
    ("check:twin-b", TWIN_TEXT, {"kind": "column", "subject": "CHECK.TWIN_B"}, "mine", "mine"),
    ("check:twin-a", TWIN_TEXT, {"kind": "column", "subject": "CHECK.TWIN_A"}, "mine", "mine"),
    ("check:forgotten", "Crane QZX7 kwqz outreach code, which the user asked to forget.",
     {"kind": "column", "subject": "CHECK.FORGOTTEN"}, "mine", "mine"),
    ("check:superseded", "Crane QZX7 kwqz outreach code 41 m, since corrected to 44 m.",
     {"kind": "column", "subject": "CHECK.SUPERSEDED"}, "mine", "mine"),
]
# Part 7 marks memories forgotten or superseded: they stay in RECORDS (and in the full-text index)
# but no read path may return them. (record id, status, replaced_by)
NOT_LIVE = [("check:forgotten", "forgotten", None), ("check:superseded", "superseded", "check:learner-note")]
STATUS_PROBE = "QZX7 kwqz"  # words only the two planted non-live memories hold
MESSAGE_TEXT = PROBES[0] + " (a user's chat message, not knowledge)"


@contextlib.contextmanager
def planted(eng: Engine) -> Iterator[None]:
    """Add the check's records for the duration of a check; always remove them."""
    store = eng.store
    added: list[str] = []
    try:
        for rid, text, meta, user, agent in PLANTS:
            if store.get("memory", rid) is None:
                store.add([text], record_ids=rid, metadata=meta or None,
                          user_ids=eng.user_id if user == "mine" else user,
                          agent_ids=eng.agent_id if agent == "mine" else agent)
            added.append(rid)
        for rid, status, replaced_by in NOT_LIVE:
            store.set_status("memory", rid, status, by="check", reason="planted by the check",
                             replaced_by=replaced_by)
        store.delete_thread(CHECK_THREAD)
        store.add([MESSAGE_TEXT], record_type="message", thread_ids=CHECK_THREAD, user_ids=eng.user_id,
                  agent_ids=eng.agent_id, roles="user")
        yield
    finally:
        for rid in added:
            store.delete("memory", rid)
        store.delete_thread(CHECK_THREAD)


# ------------------------------------------------------------------ TODO 1
Kinds = list[str] | str | None  # what the learner's retrieve_knowledge is given as kinds


def _knowledge_cases() -> list[tuple[str, int, Kinds, str]]:
    return [
        (PROBES[0], 3, None, "no kinds filter"),
        (PROBES[1], 5, None, "no kinds filter"),
        (PROBES[2], 4, ["column"], "only column facts"),
        (PROBES[1], 2, "table, column", "a comma-separated string of two kinds"),
        (PROBES[1], 3, " column ", "a string with spaces around one kind"),
        (PROBES[1], 3, "columns", "'columns' is not a kind (the kinds are table, column, relationship), so "
                                  "nothing matches"),
        (PROBES[0], 2, [], "an empty list means no filter"),
        (PROBES[0], 6, ["table"], "only table facts, with many column facts closer to the question"),
        ("Tool output: vessel current positions query", 5, None, "a tool output is the nearest memory"),
    ]


def check_retrieve_knowledge(fn: Callable[..., Any], eng: Engine) -> None:
    with planted(eng):
        cases = _knowledge_cases()
        for query, k, kinds, why in cases:
            call = f"retrieve_knowledge({query!r}, k={k}, kinds={kinds!r})"
            got = call_learner(TODO1, call, fn, query, k=k, kinds=kinds)
            want = retrieval.retrieve_knowledge(eng, query, k=k, kinds=kinds)
            _compare_knowledge(call, got, want, kinds, k, why)
    passed(TODO1, f"matches the reference on {len(cases)} calls, with kinds as list, string and empty, "
                  "a tool output and a thread message in the store")


def _compare_knowledge(call: str, got: Any, want: list[Hit], kinds: Kinds, k: int, why: str) -> None:
    _expect_knowledge_hits(call, got)
    allowed = retrieval.normalize_kinds(kinds)
    if allowed is not None:
        _expect_only_kinds_asked(call, got, kinds, allowed, why)
    if len(got) != len(want):
        _reject_hit_count(call, got, want, kinds, allowed, why)
    for i, (g, w) in enumerate(zip(got, want), start=1):
        _expect_rank(call, i, g, w, got, want, kinds)


def _expect_knowledge_hits(call: str, got: Any) -> None:
    """A list of hit dicts, none of them a tool output or a thread message."""
    expect(isinstance(got, list), TODO1, f"{call} returned {type(got).__name__}, not a list of dicts",
           "return the list that retrieval.rerank(...) gives you.")
    expect(all(isinstance(h, dict) and set(h) >= KNOWLEDGE_KEYS for h in got), TODO1,
           f"{call}: each hit must be a dict with keys {sorted(KNOWLEDGE_KEYS)}",
           "build each candidate as {'kind', 'subject', 'body', 'metadata', 'distance'}.")
    if any(h.get("kind") == "tool_output" for h in got):
        raise CheckFailed(TODO1, f"{call}: a memory with metadata kind 'tool_output' came back as knowledge",
                          "skip hits whose metadata.get('kind') == 'tool_output'.")
    if any(h.get("body") == MESSAGE_TEXT for h in got):
        raise CheckFailed(TODO1, f"{call}: a thread message came back as knowledge",
                          "search memories only: eng.memory.search(query, record_types=['memory'], ...).")


def _expect_only_kinds_asked(call: str, got: list[dict[str, Any]], kinds: Kinds, allowed: list[str], why: str) -> None:
    """No hit of a kind not asked for (a string of kinds tested as a substring lets 'column' into 'columns')."""
    stray = [h for h in got if h.get("kind") not in allowed]
    if stray:
        hint = ("split the string on ',' and strip each part, then keep hits whose kind is one of the parts; "
                "`kind in kinds` on the string itself is a substring test ('column' is inside 'columns')."
                if isinstance(kinds, str) else "keep only hits whose metadata kind is in kinds.")
        raise CheckFailed(TODO1, f"{call} ({why}): you returned a {stray[0].get('kind')!r} hit "
                          f"({stray[0].get('subject')}), which is not in the kinds asked for {allowed}", hint)


def _reject_hit_count(call: str, got: list[dict[str, Any]], want: list[Hit], kinds: Kinds, allowed: list[str] | None, why: str) -> None:
    """Too many hits (not cut to k) or too few (kinds not split, an empty list taken as a filter, too few candidates)."""
    if len(got) > len(want):
        hint = "pass top_k=k to retrieval.rerank(...) so the list is cut to k."
    elif isinstance(kinds, str):
        hint = "split the string on ',' and strip the spaces around each part before filtering."
    elif kinds is not None and allowed is None:
        hint = "treat an empty kinds list like None: no filter."
    else:
        hint = ("ask eng.memory.search(...) for max_results=k * 4 candidates, filter them, and let "
                "retrieval.rerank(..., top_k=k) cut to k.")
    raise CheckFailed(TODO1, f"{call} ({why}) returned {len(got)} hits; expected {len(want)}", hint)


def _expect_rank(call: str, i: int, g: dict[str, Any], w: Hit, got: list[dict[str, Any]], want: list[Hit], kinds: Kinds) -> None:
    """Rank i holds the expected hit: its subject, body, distance and kind."""
    if g.get("body") == w["body"] and g.get("subject") != w["subject"]:
        raise CheckFailed(TODO1, f"{call}: rank {i} has subject {g.get('subject')!r}; expected {w['subject']!r}"
                          + (" (a memory without a subject, like one a learner adds)" if not w["subject"] else ""),
                          "build subject with hit.metadata.get('subject', ''): memories without one get ''.")
    if g.get("body") != w["body"]:
        hint = ("keep the search's order (nearest first) and let retrieval.rerank(...) reorder and cut; body is "
                "hit.content.")
        lost = {w2["kind"] for w2 in want} - {g2.get("kind") for g2 in got}
        if isinstance(kinds, str) and lost:
            hint = (f"no {sorted(lost)[0]!r} hit came back although kinds={kinds!r} asks for it: split the string "
                    "on ',' and strip the spaces around each part before filtering.")
        raise CheckFailed(TODO1, f"{call}: rank {i} should be {w['subject'] or '(a memory without subject)'}, "
                          f"you returned {g.get('subject') or '(a memory without subject)'}", hint)
    _expect_distance(call, i, g, w)
    if g.get("kind") != w["kind"]:
        raise CheckFailed(TODO1, f"{call}: rank {i} ({w['subject'] or 'a memory without kind'}) has kind "
                          f"{g.get('kind')!r}; expected {w['kind']!r}",
                          "kind is hit.metadata.get('kind'), or '?' when a memory has none.")


def _expect_distance(call: str, i: int, g: dict[str, Any], w: Hit) -> None:
    """Rank i's distance as a float equal to the expected one (a similarity, 1 - distance, is named)."""
    if not isinstance(g["distance"], float) or abs(g["distance"] - w["distance"]) > 1e-6:
        similarity = isinstance(g["distance"], float) and abs(g["distance"] - (1 - w["distance"])) < 1e-6
        raise CheckFailed(TODO1, f"{call}: rank {i} ({w['subject'] or 'a memory without subject'}) has distance "
                          f"{describe_value(g['distance'])}; "
                          f"expected {w['distance']:.6f}"
                          + (" (you returned the similarity 1 - distance)" if similarity else ""),
                          "use float(hit.distance) as it is: smaller is closer.")


def _rank_text(rank: int, name: str) -> str:
    return f"does not hold it, so its {name} is the sentinel {retrieval.SENTINEL}" if rank == retrieval.SENTINEL else f"ranks it {rank}"


# ------------------------------------------------------------------ TODO 2
def _hybrid_cases() -> list[tuple[str, int, int, int]]:
    # (query, k, per_list, rrf_k); small per_lists make the cut to :n and the FULL OUTER JOIN matter.
    return [(PROBES[1], 5, 30, 60), (PROBES[0], 3, 10, 60), ("cargo value in cents", 4, 20, 10),
            (PROBES[1], 8, 4, 60), (PROBES[0], 10, 5, 60), (PROBES[3], 4, 6, 60), ("!!!", 2, 30, 60),
            (STATUS_PROBE, 5, 30, 60)]


# The entry points a function hands its own SQL to (the store's and the model's statements go
# through cursors and transactions of their own and are not the learner's).
_OWN_SQL = ("query",)


@contextlib.contextmanager
def statements_sent(eng: Any, fn: Any = None) -> Iterator[Callable[[], list[str]]]:
    """The SQL the learner's function sent through eng.query while the block runs,
    read by calling what the block gets (where the grader's judge runs the function in the
    learner's process, that process reports them)."""
    if hasattr(fn, "report_statements"):
        reported: list[str] = []
        fn.report_statements = reported
        try:
            yield lambda: list(reported)
        finally:
            fn.report_statements = None
        return
    with eng.trace() as trace:
        yield lambda: own_statements(trace)


def own_statements(trace: list[Sent]) -> list[str]:
    """The statements of a trace that a function handed to the database itself."""
    return [s.statement for s in trace if s.via in _OWN_SQL]


@contextlib.contextmanager
def recording_queries(eng: Any, sent: list[str]) -> Iterator[list[str]]:
    """Every statement sent through eng.query (or eng.execute) while the block runs, appended to
    `sent` when it ends (the grader's learner-side process uses it to report what the learner's
    engine ran)."""
    with eng.trace() as trace:
        try:
            yield sent
        finally:
            sent += own_statements(trace)


_STRINGS = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)
_GROUP = re.compile(r"\(([^()]*)\)")


def _groups(sql: str) -> list[str]:
    """Every parenthesised group with its inner groups replaced by \x00<n>\x00; the statement itself last."""
    text = _STRINGS.sub("''", sql)
    found: list[str] = []
    while True:
        match = _GROUP.search(text)
        if not match:
            return found + [text]
        found.append(match.group(1))
        text = text[:match.start()] + f"\x00{len(found) - 1}\x00" + text[match.end():]


def _keys(order_by: str) -> int:
    return len([k for k in order_by.split(",") if k.strip()])


def order_problems(sql: str) -> list[str]:
    """Where a statement's result depends on the order rows happen to be read in."""
    groups = _groups(sql)
    problems = []
    for i, text in enumerate(groups):
        flat = " ".join(text.split())
        if re.search(r"\b(LIMIT|FETCH\s+(APPROX\s+)?FIRST)\b", flat, re.I) and not re.search(r"\bORDER\s+BY\b", flat, re.I):
            owner = _owner(groups, i)
            problems.append(f"LIMIT without ORDER BY in {owner}: which rows it keeps is not defined")
        for ref in re.findall(r"\bOVER\s*\x00(\d+)\x00", flat, re.I):
            window = " ".join(groups[int(ref)].split())
            order = re.search(r"\bORDER\s+BY\s+(.*)$", window, re.I)
            if order and _keys(order.group(1)) < 2:
                problems.append(f"ROW_NUMBER() OVER (ORDER BY {_show(groups, order.group(1))}) has no tie-break: "
                                "rows with equal scores get their numbers in whatever order they are read")
    final = re.search(r"\bORDER\s+BY\s+(.*?)(\bLIMIT\b|\bFETCH\b|$)", " ".join(groups[-1].split()), re.I | re.S)
    if final and _keys(final.group(1)) < 2:
        problems.append(f"the final ORDER BY {_show(groups, final.group(1))} has no tie-break: rows with equal "
                        "rrf_score (r_vec=1, r_txt=3 and r_vec=3, r_txt=1) come out in either order")
    return problems


def _show(groups: list[str], text: str) -> str:
    while "\x00" in text:
        text = re.sub(r"\x00(\d+)\x00", lambda m: "(" + groups[int(m.group(1))] + ")", text)
    return " ".join(text.split())[:80]


def _owner(groups: list[str], i: int) -> str:
    """The CTE name in front of group i, if it is one (`vec AS (...)`)."""
    for text in groups[i + 1:]:
        found = re.search(r"(\w+)\s+AS\s+(MATERIALIZED\s+)?\x00" + str(i) + "\x00", text, re.I)
        if found:
            return f"{found.group(1)} AS (...)"
    return "the statement" if i == len(groups) - 1 else "a subquery"


def _reference(eng: Engine, query: str, k: int, per_list: int, rrf_k: int) -> tuple[list[Hit], tuple[list[str], list[str]]]:
    """The fused top k, and the two ranked lists it was fused from (the messages quote their ranks)."""
    vec = retrieval.vector_ranked_ids(eng, query, per_list)
    txt = retrieval.keyword_ranked_ids(eng, query, per_list)
    want = retrieval.rrf_fuse(vec, txt, k=k, rrf_k=rrf_k)
    for w in want:
        rec = eng.store.get("memory", w["record_id"])
        w["subject"] = (rec.metadata or {}).get("subject", w["record_id"]) if rec else w["record_id"]
    return want, (vec, txt)


def check_hybrid_rrf(fn: Callable[..., Any], eng: Engine) -> None:
    with planted(eng):
        cases = _hybrid_cases()
        for query, k, per_list, rrf_k in cases:
            call = f"hybrid_rrf_search_memories({query!r}, k={k}, per_list={per_list}, rrf_k={rrf_k})"
            want, ranks = _reference(eng, query, k, per_list, rrf_k)
            with statements_sent(eng, fn) as sent:
                try:
                    got = call_learner(TODO2, call, fn, query, k=k, per_list=per_list, rrf_k=rrf_k)
                except CheckFailed as failed:
                    if failed.problem.startswith("your code raised MissingColumns"):
                        raise CheckFailed(TODO2, failed.problem, COLUMN_NAMES_FIX) from None
                    if failed.problem.startswith("your code raised TypeError") and "NoneType" in failed.problem:
                        raise CheckFailed(TODO2, failed.problem, NULL_RANK_FIX) from None
                    if failed.problem.startswith("your code raised TypeError"):
                        raise CheckFailed(TODO2, failed.problem, TYPE_ERROR_FIX) from None
                    raise
            worst_first = retrieval.keyword_ranked_ids(eng, query, retrieval.MAX_K)[::-1]
            _compare_hybrid(call, got, want, per_list, ranks, worst_first)
            for sql in sent():
                for problem in order_problems(sql):
                    raise CheckFailed(TODO2, f"{call}: the result is right here, but {problem}",
                                      "give every ORDER BY a tie-break (ROW_NUMBER() OVER (ORDER BY score, m.seq); the "
                                      "final ORDER BY rrf_score DESC, r_vec, r_txt) and cut a ranked list with "
                                      "WHERE r <= :n, never with LIMIT without ORDER BY.")
            remote = fn.reversed_reads() if hasattr(fn, "reversed_reads") else contextlib.nullcontext()
            with eng.supplychain.unordered_reads_reversed() as reversed_reads, remote:
                if reversed_reads:
                    again = call_learner(TODO2, call, fn, query, k=k, per_list=per_list, rrf_k=rrf_k)
            if reversed_reads and [h["record_id"] for h in again] != [h["record_id"] for h in got]:
                raise CheckFailed(TODO2, f"{call}: your result depends on the order the database happens to read "
                                  "rows in (it changed when SQLite read unordered rows in reverse)",
                                  "give every ORDER BY a tie-break (ROW_NUMBER() OVER (ORDER BY score, m.seq); the "
                                  "final ORDER BY rrf_score DESC, r_vec, r_txt) and never use LIMIT without ORDER BY.")
    passed(TODO2, f"ranks and scores equal Reciprocal Rank Fusion of the two ranked lists on {len(cases)} calls, "
                  "with another user's, another agent's and a tool output's rows in the store")


TYPE_ERROR_FIX = ("a call got arguments it does not take. Keep the def line as given (query, k, per_list, rrf_k), run "
                  "the statement with retrieval.query_named(eng, sql, params) (params is one dict: no **), and shape "
                  "its rows with retrieval.hybrid_rows(eng, rows) (eng first).")
COLUMN_NAMES_FIX = ("retrieval.hybrid_rows reads each column by its name, in any order: name the final SELECT's columns "
                    f"{', '.join(retrieval.HYBRID_COLUMNS)}, with AS where a column is computed or renamed "
                    "(f.r_vec is named r_vec; 1.0 / (...) + 1.0 / (...) AS rrf_score).")
NULL_RANK_FIX = ("a rank or the score came back NULL (None), which retrieval.hybrid_rows cannot turn into a number: "
                 "after the FULL OUTER JOIN a row found by one list only has no rank in the other, so write "
                 f"COALESCE(v.r_vec, {retrieval.SENTINEL}) AS r_vec and COALESCE(t.r_txt, {retrieval.SENTINEL}) AS r_txt (NVL on Oracle), and "
                 "compute rrf_score from those columns.")
def _worst_first(got: list[dict[str, Any]], worst_first: list[str] | None, txt_rank: dict[str, int]) -> bool:
    """Whether the learner's keyword ranks follow the list read from its worst end (ties aside)."""
    ranked = [h for h in got if h["r_txt"] != retrieval.SENTINEL]
    if not worst_first or not ranked:
        return False
    place = {rid: i for i, rid in enumerate(worst_first, start=1)}
    near_worst = sum(1 for h in ranked if abs(h["r_txt"] - place.get(h["record_id"], -99)) <= 2)
    right = sum(1 for h in ranked if h["r_txt"] == txt_rank.get(h["record_id"]))
    return near_worst > right and 2 * near_worst >= len(ranked)


def _compare_hybrid(call: str, got: Any, want: list[Hit], per_list: int, ranks: tuple[list[str], list[str]],
                    worst_first: list[str] | None = None) -> None:
    """The learner's fused rows against the reference, the first difference named: the shape, rows that
    must never appear, ranks out of range, each list's ranks, the number of rows, then row by row."""
    _hybrid_shape(call, got)
    ids = {h["record_id"] for h in got}
    _no_foreign_rows(call, got, ids)
    _ranks_in_range(call, got, per_list)
    _ranks_match_lists(call, got, per_list, ranks, worst_first)
    _hybrid_row_count(call, got, want, ids)
    _hybrid_rows_in_order(call, got, want, ids)


def _hybrid_shape(call: str, got: Any) -> None:
    """A list of dicts with the hybrid keys, integer ranks and a float score."""
    expect(isinstance(got, list) and all(isinstance(h, dict) and set(h) >= HYBRID_KEYS for h in got), TODO2,
           f"{call} must return a list of dicts with keys {sorted(HYBRID_KEYS)}",
           f"select the columns {', '.join(retrieval.HYBRID_COLUMNS)} by those names in your SQL, and return "
           "retrieval.hybrid_rows(eng, rows).")
    bad = [h for h in got if not isinstance(h["r_vec"], int) or not isinstance(h["r_txt"], int)
           or not isinstance(h["rrf_score"], float)]
    expect(not bad, TODO2, f"{call}: r_vec and r_txt must be ints and rrf_score a float",
           f"missing ranks must be the integer sentinel {retrieval.SENTINEL}, never NULL.")


def _no_foreign_rows(call: str, got: list[dict[str, Any]], ids: set[str]) -> None:
    """No tool output, no other user's or agent's memory, no thread message."""
    for rid, what, fix in [
        ("check:tool-output", "a memory with metadata kind 'tool_output'",
         "add the knowledge filter to BOTH legs: COALESCE/NVL(json kind, '') <> 'tool_output'."),
        ("check:other-user", "another user's memory", "filter both legs on m.user_id = :u AND m.agent_id = :a."),
        ("check:other-agent", "another agent's memory", "filter both legs on m.user_id = :u AND m.agent_id = :a."),
        ("check:forgotten", "a memory the user asked to forget (status 'forgotten')", STATUS_FIX),
        ("check:superseded", "a memory a later statement replaced (status 'superseded')", STATUS_FIX),
    ]:
        if rid in ids:
            raise CheckFailed(TODO2, f"{call}: {what} ({rid}) is in your result", fix)
    if any(h.get("content") == MESSAGE_TEXT for h in got):
        raise CheckFailed(TODO2, f"{call}: a thread message is in your result",
                          "filter both legs on m.record_type = 'memory'.")


STATUS_FIX = ("Part 7 marks memories forgotten or superseded instead of deleting them; they keep their words in the "
              "full-text index, so the keyword leg finds them. Add to BOTH legs: AND NOT EXISTS (SELECT 1 FROM "
              "MEMORY_STATUS s WHERE s.record_seq = m.seq AND s.status <> 'valid').")


def _ranks_in_range(call: str, got: list[dict[str, Any]], per_list: int) -> None:
    """Every rank is 1..per_list or the sentinel."""
    for h in got:
        for key in ("r_vec", "r_txt"):
            if h[key] != retrieval.SENTINEL and not 1 <= h[key] <= per_list:
                raise CheckFailed(TODO2, f"{call}: {h['subject'] or h['record_id']} has {key}={h[key]}; ranks must "
                                  f"be 1..{per_list} (per_list) or the sentinel {retrieval.SENTINEL}",
                                  "number each list with ROW_NUMBER() (1-based) and keep only rows with rank <= :n "
                                  f"in the next CTE; a missing rank is COALESCE/NVL(rank, {retrieval.SENTINEL}), never 0 or NULL.")


def _ranks_match_lists(call: str, got: list[dict[str, Any]], per_list: int, ranks: tuple[list[str], list[str]],
                       worst_first: list[str] | None) -> None:
    """Each row's r_vec and r_txt are its places in the reference vector and keyword lists."""
    vec_rank = {rid: i for i, rid in enumerate(ranks[0], start=1)}
    txt_rank = {rid: i for i, rid in enumerate(ranks[1], start=1)}
    for h in got:
        name = h["subject"] or h["record_id"]
        right_vec, right_txt = vec_rank.get(h["record_id"], retrieval.SENTINEL), txt_rank.get(h["record_id"], retrieval.SENTINEL)
        if h["r_vec"] != right_vec:
            raise CheckFailed(TODO2, f"{call}: you gave {name} r_vec={h['r_vec']}; the vector list (cosine distance "
                              f"ascending, top {per_list}) {_rank_text(right_vec, 'r_vec')}",
                              "number the vector leg with ROW_NUMBER() OVER (ORDER BY distance, m.seq), nearest "
                              "first, over the knowledge rows only, then keep r_vec <= :n.")
        if h["r_txt"] != right_txt and _worst_first(got, worst_first, txt_rank):
            raise CheckFailed(TODO2, f"{call}: you gave {name} r_txt={h['r_txt']}, about its place counted from the "
                              f"WORST keyword match; the keyword list {_rank_text(right_txt, 'r_txt')}: your keyword "
                              "list is sorted the wrong way round",
                              "rank best first: bm25() is lower-is-better, so ORDER BY bm25 ascending with no minus "
                              "sign on SQLite; SCORE(1) is higher-is-better, so ORDER BY SCORE(1) DESC on Oracle; then "
                              "m.seq.")
        if h["r_txt"] != right_txt:
            raise CheckFailed(TODO2, f"{call}: you gave {name} r_txt={h['r_txt']}; the keyword list (best score "
                              f"first, top {per_list}) {_rank_text(right_txt, 'r_txt')}",
                              "number the keyword leg by score best first: bm25 ascending on SQLite (lower is better), "
                              "SCORE(1) DESC on Oracle, then m.seq; keep r_txt <= :n.")


def _hybrid_row_count(call: str, got: list[dict[str, Any]], want: list[Hit], ids: set[str]) -> None:
    """As many rows as the reference; a missing one-sided row names the join that lost it."""
    if len(got) != len(want):
        one_sided = [w for w in want if w["record_id"] not in ids]
        hint = "end the statement with the top-k cut (LIMIT :k / FETCH FIRST :k ROWS ONLY)."
        if len(got) < len(want) and one_sided and any(w["r_vec"] == retrieval.SENTINEL for w in one_sided):
            hint = ("rows found only by the keyword list are missing: join the two lists with FULL OUTER JOIN "
                    "(a LEFT JOIN keeps only the vector list's rows).")
        elif len(got) < len(want) and one_sided and any(w["r_txt"] == retrieval.SENTINEL for w in one_sided):
            hint = "rows found only by the vector list are missing: join the two lists with FULL OUTER JOIN."
        raise CheckFailed(TODO2, f"{call} returned {len(got)} rows; expected {len(want)}", hint)


def _hybrid_rows_in_order(call: str, got: list[dict[str, Any]], want: list[Hit], ids: set[str]) -> None:
    """Row by row: the same record, the same ranks and the same fused score."""
    scores = [g["rrf_score"] for g in got]
    if len(scores) > 1 and scores == sorted(scores) and scores[0] < scores[-1]:
        raise CheckFailed(TODO2, f"{call}: your rows come lowest rrf_score first ({scores[0]:.6f} ... "
                          f"{scores[-1]:.6f}), so the cut to k keeps the WORST fused rows",
                          "sort the final SELECT by rrf_score DESC (then r_vec, r_txt), before LIMIT :k / FETCH "
                          "FIRST :k ROWS ONLY.")
    for i, (g, w) in enumerate(zip(got, want), start=1):
        if g["record_id"] != w["record_id"]:
            hint = "order by rrf_score DESC, then r_vec, then r_txt."
            if w["record_id"] not in ids:
                hint = ("rank each list over the filtered rows and cut it to :n BEFORE fusing: a list cut after the "
                        "join, or ranked before the filter, fuses different rows.")
            if g["r_txt"] != retrieval.SENTINEL and w["r_txt"] == retrieval.SENTINEL:
                hint = f"a row missing from the keyword list must get r_txt = {retrieval.SENTINEL} (NVL/COALESCE)."
            raise CheckFailed(TODO2, f"{call}: rank {i} should be {w['subject']} (r_vec={w['r_vec']}, "
                              f"r_txt={w['r_txt']}), you returned {g['subject'] or g['record_id']} "
                              f"(r_vec={g['r_vec']}, r_txt={g['r_txt']})", hint)
        if (g["r_vec"], g["r_txt"]) != (w["r_vec"], w["r_txt"]):
            raise CheckFailed(TODO2, f"{call}: {w['subject']} should have r_vec={w['r_vec']}, r_txt={w['r_txt']}; "
                              f"you gave r_vec={g['r_vec']}, r_txt={g['r_txt']}",
                              "rank each list with ROW_NUMBER() (1-based), vector by distance ascending, keyword "
                              "by score best first (bm25 ascending / SCORE(1) DESC), each with the m.seq tie-break "
                              f"and cut to :n rows; missing ranks are {retrieval.SENTINEL}.")
        if abs(g["rrf_score"] - w["rrf_score"]) > 1e-9:
            raise CheckFailed(TODO2, f"{call}: rrf_score for {w['subject']} should be {w['rrf_score']:.6f}, "
                              f"you computed {g['rrf_score']:.6f}",
                              "rrf_score = 1.0/(:rrf_k + r_vec) + 1.0/(:rrf_k + r_txt); write 1.0 so SQLite does "
                              "not divide integers.")

"""Hints for Part 3's TODOs: retrieve_knowledge and hybrid_rrf_search_memories."""
from workshop_lib.engines.portable_sql import SENTINEL
from workshop_lib.hints.table import F, TodoHints

TIE_BREAK = ("Rows with equal scores must come out in one defined order whatever order the database reads them in: "
             "give every ROW_NUMBER() OVER (ORDER BY ...) a second key (m.seq), end with ORDER BY rrf_score DESC, "
             "r_vec, r_txt, and cut ranked lists with WHERE r <= :n rather than LIMIT.")

TODOS = {
    "todo1_retrieve_knowledge": TodoHints(
        nudge=("Knowledge is the agent's memories that describe the world (schema facts), not everything in the "
               "store. Search by meaning, throw away what is not knowledge (tool outputs, other kinds than asked "
               "for), and let the library's reranker choose the final k. Ask the search for more than k so the "
               "filter still leaves enough."),
        general=("Search memories only (record_types=['memory']) with max_results=k * 4, skip hits whose metadata "
                 "kind is 'tool_output', keep only the kinds asked for (None, '' and [] mean no filter; a string may "
                 "hold several kinds separated by commas), build one dict per hit, then return "
                 "retrieval.rerank(eng, query, candidates, top_k=k, content_key='body')."),
        outline=("if kinds is a str: kinds = [p.strip() for p in kinds.split(',') if p.strip()]\n"
                 "if not kinds: kinds = None\n"
                 "hits = eng.memory.search(query, record_types=['memory'], max_results=k * 4)\n"
                 "for hit in hits:\n"
                 "    kind = hit.metadata.get('kind')\n"
                 "    skip it if kind == 'tool_output', or if kinds is not None and kind not in kinds\n"
                 "    candidates.append({'kind': kind or '?', 'subject': hit.metadata.get('subject', ''),\n"
                 "                       'body': hit.content, 'metadata': hit.metadata, 'distance': float(hit.distance)})\n"
                 "return retrieval.rerank(eng, query, candidates, top_k=k, content_key='body')"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, retrieve_knowledge(query, k=5, "
              "kinds=None), with k and kinds passed by name: you renamed, dropped or added a required parameter. Put "
              "the def line back as given and run the cell again."),
            F("wrong_shape", r"not a list of dicts|each hit must be a dict",
              "Return the list retrieval.rerank(...) gives back, built from dicts with exactly the keys kind, "
              "subject, body, metadata and distance."),
            F("tool_output_kept", r"kind 'tool_output' came back",
              "A tool's output is stored as a memory too (Part 6 writes them), but it is not knowledge: skip every "
              "hit whose hit.metadata.get('kind') == 'tool_output' before you build candidates."),
            F("thread_message", r"a thread message came back",
              "Chat messages live in the same store as record_type 'message'. Pass record_types=['memory'] to "
              "eng.memory.search so only memories come back."),
            F("kinds_substring", r"substring test",
              "`kind in kinds` on a string tests for a substring: 'column' is inside 'columns', 'table, column' "
              "contains both. Turn a string into a list first: [p.strip() for p in kinds.split(',') if p.strip()]."),
            F("kinds_not_filtered", r"which is not in the kinds asked for",
              "A hit of another kind slipped through: keep a hit only when its metadata kind is one of the kinds "
              "asked for (after turning a string into a list)."),
            F("not_cut_to_k", r"pass top_k=k",
              "You return more than k hits: pass top_k=k to retrieval.rerank so it cuts the list after reordering."),
            F("kinds_not_stripped", r"strip the spaces around each part",
              "kinds=' column ' or 'table, column' leaves spaces around the names after split(','): strip each part, "
              "or ' column' never equals 'column' and its hits are lost."),
            F("empty_kinds", r"empty kinds list like None",
              "kinds=[] (and '') means 'no filter', not 'no kinds allowed': set kinds = None when it is empty, "
              "before filtering."),
            F("no_oversampling", r"max_results=k \* 4",
              "Filtering after the search removes hits, so a search for exactly k leaves fewer than k. Ask for "
              "max_results=k * 4 candidates and let rerank cut to k."),
            F("subject_default", r"metadata\.get\('subject', ''\)",
              "A memory a learner added may have no subject: use hit.metadata.get('subject', '') so it becomes '' "
              "rather than None or a KeyError."),
            F("kind_keyerror", r"raised KeyError",
              "hit.metadata['kind'] fails on a memory that has no kind: use hit.metadata.get('kind') and write "
              "kind or '?' into the candidate."),
            F("order_changed", r"keep the search's order|rank \d+ should be",
              "Do not sort the candidates yourself (and never farthest first): keep the search's nearest-first "
              "order and let retrieval.rerank reorder and cut."),
            F("distance_changed", r"has distance",
              "distance is what the search gives: float(hit.distance), smaller is closer. Do not turn it into a "
              "similarity (1 - distance) or round it."),
            F("kind_default", r"kind is hit\.metadata\.get\('kind'\)",
              "The candidate's kind is hit.metadata.get('kind'), or '?' when the memory has none."),
        )),
    "todo2_hybrid_rrf": TodoHints(
        nudge=("Two ranked lists of the same memories, one by vector distance and one by keyword score, are fused "
               "by rank, not by score: a row's score is 1/(rrf_k + its vector rank) + 1/(rrf_k + its keyword rank). "
               "A row found by only one list still counts, with the missing rank set to a huge sentinel."),
        general=("Write one statement of CTEs: the query embedding; the vector leg ranked with ROW_NUMBER() and cut "
                 "to :n; the keyword leg ranked the same way and cut to :n; both legs filtered to this user, this "
                 "agent, record_type 'memory', no tool outputs and live memories only (no MEMORY_STATUS row other "
                 "than 'valid'); the two lists joined with FULL OUTER JOIN, missing "
                 f"ranks {SENTINEL}; the RRF score; the final ORDER BY with tie-breaks and the cut to :k."),
        outline=("WITH q AS (the query embedding),\n"
                 "vec_ranked AS (SELECT m.seq, ROW_NUMBER() OVER (ORDER BY <distance>, m.seq) AS r_vec\n"
                 "               FROM RECORDS m JOIN RECORD_CHUNKS c ... WHERE m.user_id = :u AND m.agent_id = :a\n"
                 "               AND m.record_type = 'memory' AND <kind> <> 'tool_output'\n"
                 "               AND NOT EXISTS (SELECT 1 FROM MEMORY_STATUS s WHERE s.record_seq = m.seq\n"
                 "                               AND s.status <> 'valid')),\n"
                 "vec AS (SELECT seq, r_vec FROM vec_ranked WHERE r_vec <= :n),\n"
                 "txt_ranked / txt: the same for the full-text match, best score first (bm25 ascending on SQLite, "
                 "SCORE(1) DESC on Oracle), then m.seq,\n"
                 f"fused AS (SELECT COALESCE(v.seq, t.seq) AS seq, COALESCE(v.r_vec, {SENTINEL}) AS r_vec,\n"
                 f"                 COALESCE(t.r_txt, {SENTINEL}) AS r_txt FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)\n"
                 "SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,\n"
                 "       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score\n"
                 "  FROM fused f JOIN RECORDS m ON m.seq = f.seq\n"
                 " ORDER BY rrf_score DESC, f.r_vec, f.r_txt  LIMIT :k  (Oracle: FETCH FIRST :k ROWS ONLY)"),
        failures=(
            F("limit_without_order", r"but LIMIT without ORDER BY",
              "LIMIT in a CTE without an ORDER BY keeps whichever rows the database reads first. Number the rows "
              "with ROW_NUMBER() in the ranked CTE and cut in the next one with WHERE r_vec <= :n."),
            F("no_tie_break", r"no tie-break|depends on the order the database", TIE_BREAK),
            F("wrong_columns", r"must return a list of dicts with keys",
              "The final SELECT must give the columns record_id, content, metadata, r_vec, r_txt, rrf_score, by "
              "those names: retrieval.hybrid_rows turns them into the dicts the check reads."),
            F("column_names", r"has no column|have no column",
              "retrieval.hybrid_rows reads each row's values by column name, in any order, so a column it needs must "
              "carry that name. The message names the one it did not find and the names your SELECT gave: add the "
              "AS name (1.0 / (...) + 1.0 / (...) AS rrf_score), or rename the alias back (f.r_vec, not AS rank_vec)."),
            F("rank_types", r"must be ints and rrf_score a float",
              f"A rank missing from one list is NULL after the join: wrap it in COALESCE(r, {SENTINEL}) (NVL on Oracle) "
              "so it stays an integer, and compute the score with 1.0 so it is a float."),
            F("tool_output_kept", r"a memory with metadata kind 'tool_output'",
              "Tool outputs are memories too. Add the filter to BOTH legs: "
              "COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output' (NVL(JSON_VALUE(...), '-') on "
              "Oracle); COALESCE matters because a memory without a kind gives NULL, and NULL <> 'x' is not true."),
            F("status_filter", r"status '(forgotten|superseded)'",
              "Part 7 never deletes a memory it supersedes or forgets: it writes a MEMORY_STATUS row. The vector leg "
              "misses those memories (their vectors are dropped) but the full-text index still holds their words. "
              "Add AND NOT EXISTS (SELECT 1 FROM MEMORY_STATUS s WHERE s.record_seq = m.seq AND s.status <> 'valid') "
              "to both legs."),
            F("null_rank", r"came back NULL \(None\)",
              "After the FULL OUTER JOIN a row found by one list only has NULL for the other list's rank, and "
              f"retrieval.hybrid_rows cannot make a number of NULL: COALESCE(v.r_vec, {SENTINEL}) AS r_vec, "
              f"COALESCE(t.r_txt, {SENTINEL}) AS r_txt (NVL on Oracle), and the score computed from those."),
            F("final_order_desc", r"lowest rrf_score first",
              "A higher rrf_score is better: the final ORDER BY is rrf_score DESC (then r_vec, r_txt), so the cut to "
              "k keeps the best fused rows."),
            F("other_user", r"another user's memory",
              "Every leg must read only this learner's rows: m.user_id = :u AND m.agent_id = :a in both the vector "
              "and the keyword CTE."),
            F("other_agent", r"another agent's memory",
              "The scope is user AND agent: you filter the user but not the agent. Add m.agent_id = :a to both legs."),
            F("thread_message", r"thread message is in your result",
              "Chat messages share the RECORDS table: add m.record_type = 'memory' to both legs."),
            F("zero_for_missing_rank", r"has r_(vec|txt)=0;",
              f"A row missing from one list gets the sentinel {SENTINEL}, not 0: 0 would make it look better than rank 1. "
              f"COALESCE(v.r_vec, {SENTINEL})."),
            F("lists_not_cut", r"ranks must be 1\.\.",
              "Each ranked list is cut to its top :n before the fusion: a CTE that keeps WHERE r_vec <= :n (and "
              "r_txt <= :n). Without the cut, ranks beyond per_list leak into the score."),
            F("vector_rank", r"the vector list \(cosine distance ascending",
              "The vector leg is numbered nearest first: ROW_NUMBER() OVER (ORDER BY distance ASC, m.seq), computed "
              "over the filtered rows only (the scope and kind filters go in the same CTE's WHERE)."),
            F("keyword_reversed", r"sorted the wrong way round|counted from the WORST keyword match",
              "Your keyword ranks count from the worst match: rank 1 must be the BEST match. SQLite's bm25() gives "
              "lower numbers to better matches, so sort it ascending as it is (negating it, or DESC, turns the list "
              "round); Oracle's SCORE(1) is the other way: higher is better."),
            F("keyword_rank", r"the keyword list \(best score first",
              "The keyword leg is numbered best first. SQLite's bm25() is lower-is-better, so ORDER BY bm ASC; "
              "Oracle's SCORE(1) is higher-is-better, so ORDER BY SCORE(1) DESC; then m.seq."),
            F("full_outer_join", r"FULL OUTER JOIN",
              "A LEFT or INNER JOIN keeps only rows of one list (or of both). Fusion needs every row of either list: "
              "FULL OUTER JOIN txt ON t.seq = v.seq, with COALESCE(v.seq, t.seq) as the row's id."),
            F("final_cut", r"top-k cut",
              "The statement must end with the cut to k: LIMIT :k on SQLite, FETCH FIRST :k ROWS ONLY on Oracle, "
              "after the ORDER BY."),
            F("cut_before_fuse", r"cut it to :n BEFORE fusing",
              "Rank and cut each list on its own, after its filters and before the join: a list cut after the join "
              "or ranked before filtering fuses different rows."),
            F("sentinel_missing", rf"must get r_txt = {SENTINEL}",
              f"A row missing from the keyword list gets the sentinel {SENTINEL} as r_txt (COALESCE/NVL after the FULL OUTER JOIN)."),
            F("final_order", r"order by rrf_score DESC, then r_vec",
              "Sort the fused rows by rrf_score DESC, then r_vec, then r_txt (the tie-breaks make the order defined)."),
            F("ranks_differ", r"should have r_vec=.*you gave",
              "The row is right but its ranks are not: ROW_NUMBER() starts at 1, each list is ordered by its own "
              f"score with m.seq as tie-break and cut to :n, and a missing rank is {SENTINEL}."),
            F("integer_division", r"write 1\.0",
              "SQLite divides integers as integers: 1 / (60 + 1) is 0. Write 1.0 / (:rrf_k + f.r_vec) + "
              "1.0 / (:rrf_k + f.r_txt)."),
            F("call_arguments", r"a call got arguments it does not take",
              "A TypeError here most often comes from how the helpers are called, not from the SQL: "
              "retrieval.query_named takes the engine, the statement and ONE dict of bind values (not spread with **), "
              "and retrieval.hybrid_rows needs "
              "the engine as its first argument, before the rows."),
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function as the TODO's def line declares it: the query first, then k, per_list "
              "and rrf_k by name. You renamed or dropped one of them; restore the def line as given, even for a "
              "parameter you think you do not need, and run the cell again."),
            F("sql_error", r"raised (OperationalError|DatabaseError|ProgrammingError|IntegrityError|MissingBinds)",
              "The database refused the statement: read the error text (a misspelled CTE or column, a bind name that "
              "is not in params such as :u, :a, :n, :k, :kw, :rrf_k, a missing comma between CTEs). Run the SQL "
              "alone with eng.query(sql, params) to see it."),
        )),
}

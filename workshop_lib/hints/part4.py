"""Hints for Part 4's TODO: decide_mode (rag / hybrid / fallback)."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_decide_mode": TodoHints(
        nudge=("The decision is a ladder read top to bottom: first put every score on the scale the thresholds use, "
               "then adjust the thresholds for short questions, then apply the rules in order (blank model answer "
               "or nothing retrieved -> fallback; best >= high -> rag; best >= low and every hybrid gate holds -> "
               "hybrid; else fallback). Each rule is one `if` that returns."),
        general=("Compute scores and the (low, high) pair first (raw thresholds in score_mode 'raw'; (s + 1) / 2 for "
                 "distance 'dot' in normalized mode), tighten both when query_tokens <= short_query_max_tokens, then "
                 "used = positions with score >= low, and return gates.make_decision(mode, used=..., low=..., "
                 "high=..., short_query_active=..., ...) from each branch."),
        outline=("1. raw mode: scores = similarities, (low, high) = config.raw_thresholds();\n"
                 "   normalized: scores = (s + 1) / 2 when distance == 'dot' else s, (low, high) = threshold_low/high\n"
                 "   normalized = the same mapping clamped to [0, 1] (for min_similarity_for_hybrid, in both modes)\n"
                 "2. short = query_tokens <= short_query_max_tokens; if short: low/high = the short_query_threshold_* "
                 "override if set, else + short_query_delta; cap at 1.0 in normalized mode; low = min(low, high)\n"
                 "3. used = [i for i, s in enumerate(scores) if s >= low]\n"
                 "4. blank used_llm_answer -> fallback; no scores -> fallback\n"
                 "5. best = max(scores); best >= high -> rag (used)\n"
                 "6. best >= low: hybrid (used) only if max(normalized) >= min_similarity_for_hybrid and len(used) >= "
                 "min_chunks_for_hybrid and the used chunks' text length >= min_total_context_chars; else fallback\n"
                 "7. otherwise fallback"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, decide_mode(similarities, chunks,"
              " *, config, query_tokens, used_llm_answer=None), the last three passed by name: you renamed, dropped or "
              "added a required parameter. Put the def line back as given and run the cell again."),
            F("not_a_decision", r"not a ModeDecision",
              "Every branch must end with return gates.make_decision(mode, ...): a bare string like 'rag' or a "
              "missing return (None) is not a ModeDecision."),
            F("used_positions", r"used positions \[.*\] do not all point into|0-based positions into chunks",
              "`used` holds positions into chunks, and the first chunk is position 0: numbering from 1 (enumerate's "
              "start=1, or i + 1) points past the last chunk."),
            F("rag_boundary", r"case 'rag at the boundary'",
              "A best score exactly equal to threshold_high is rag: compare with >=, not >."),
            F("hybrid_boundary", r"case 'hybrid at the boundary'",
              "Scores exactly equal to threshold_low count: the band is best >= low, and a chunk is used when its "
              "score >= low (not > low)."),
            F("min_chunks_used", r"case 'min_chunks counts only chunks",
              "min_chunks_for_hybrid counts the chunks that cleared the low threshold (len(used)), not every chunk "
              "that came back (len(chunks))."),
            F("context_chars_used", r"case 'context chars count only chunks",
              "Add up the text of the used chunks only: sum(len(gates.chunk_text(chunks[i])) for i in used), not of "
              "all chunks."),
            F("hybrid_gates", r"case 'gate min_",
              "In the hybrid band, three gates must all hold or the answer falls back: max(normalized) >= "
              "min_similarity_for_hybrid, len(used) >= min_chunks_for_hybrid, and the used chunks' characters >= "
              "min_total_context_chars. Check each case's numbers in the message against your conditions."),
            F("below_low", r"case '(below threshold_low|nothing retrieved)'",
              "Below the low threshold, or with no scores at all, the answer is fallback; check for an empty list "
              "before max(scores)."),
            F("blank_answer", r"case 'blank model answer'|blank answer",
              "A model answer that is only whitespace forces fallback whatever the scores: "
              "used_llm_answer is not None and not used_llm_answer.strip()."),
            F("short_boundary", r"case 'short query at the boundary'",
              "A query is short when query_tokens <= short_query_max_tokens (<=, not <)."),
            F("short_override", r"case 'short query override'",
              "When short_query_threshold_low / _high are set (not None) a short query uses those values instead of "
              "adding short_query_delta."),
            F("short_tightening", r"case '(short query tightens|same scores, long query|one token past)",
              "Short questions raise BOTH thresholds by short_query_delta, and only when query_tokens <= "
              "short_query_max_tokens; long questions keep them."),
            F("inverted_band", r"case 'inverted short-query band",
              "After the short-query adjustment low can end above high; clamp it: low = min(low, high)."),
            F("hybrid_floor_scale", r"is always compared on the normalized scale",
              "min_similarity_for_hybrid is a normalized similarity whatever the score mode: compare it with the best "
              "normalized score ((r + 1) / 2 for dot, clamped to [0, 1]), never with the raw similarity."),
            F("dot_mapping", r"case 'dot product mapped",
              "With distance='dot' in normalized mode the raw score r lies in [-1, 1]: map it with (r + 1) / 2 before "
              "comparing with the thresholds."),
            F("raw_floor", r"case 'raw mode keeps|case 'raw dot thresholds[^']*'.*you returned fallback",
              "min_similarity_for_hybrid is always on the normalized scale, even in raw mode: compare it with the "
              "normalized scores ((r + 1) / 2 for dot, clamped to [0, 1]), not with the raw ones."),
            F("raw_thresholds", r"case 'raw (cosine|dot) thresholds",
              "In score_mode='raw' compare the raw scores (no mapping) with config.raw_thresholds(), not with "
              "threshold_low / threshold_high."),
            F("unsorted_scores", r"case 'unsorted scores'",
              "The scores are not sorted: the best is max(scores), not scores[0]."),
            F("used_chunks", r"the mode is right .* you used",
              "Pass used=[i for i, s in enumerate(scores) if s >= low] for rag and hybrid (on the threshold scale, "
              "after any short-query tightening) and no used chunks for fallback."),
            F("sources_used", r"sources_used is",
              "make_decision fills sources_used from the positions in `used`: pass positions (0, 1, ...), not the "
              "chunks or their ids."),
            F("short_flag", r"short_query_active is",
              "Pass short_query_active=short to make_decision, with short = query_tokens <= short_query_max_tokens."),
            F("thresholds_reported", r"decision_explain thresholds",
              "Pass the thresholds you actually applied (after the short-query change) as low= and high= to "
              "make_decision."),
            F("used_llm", r"used_llm is",
              "Pass used_llm_answer= through to make_decision unchanged."),
            F("min_chunks_boundary", r"chunks cleared the gate, and that is enough",
              "Exactly min_chunks_for_hybrid used chunks is enough: your min_chunks gate is off by one (a <= where "
              "< belongs, or a count of len(used) - 1). Fail the gate only when there are fewer used chunks than the "
              "minimum."),
            F("context_chars_boundary", r"exactly min_total_context_chars=\d+ characters, which is enough",
              "Exactly min_total_context_chars characters is enough: fail the context gate only when the used "
              "chunks' total is below the minimum (<, not <=)."),
            F("basic_modes", r"case '(rag|hybrid)':",
              "Re-read the first rules: best >= threshold_high is rag; threshold_low <= best < threshold_high is "
              "hybrid when the gates hold. The message lists the scores and thresholds of the case."),
            F("random_case", r"case 'random #",
              "A random case found a difference the named ones did not: copy its similarities, chunk lengths, "
              "query_tokens and config from the message into a cell, call your function and the reference "
              "gates.decide_mode with them, and compare step by step."),
        )),
}

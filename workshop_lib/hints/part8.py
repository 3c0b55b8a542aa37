"""Hints for Part 8's TODOs: window_spans and should_promote."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_window_spans": TodoHints(
        nudge=("Slide a window of `size` units over the document. Neighbouring windows share `overlap` units, so "
               "each window starts size - overlap after the previous one. The last window may be shorter, and the "
               "document's end must be covered exactly once. Some arguments make no sense: refuse them first."),
        general=("Raise ValueError unless size >= 1 and 0 <= overlap < size; start at 0; each window is (start, "
                 "min(start + size, n_units)); stop right after the window that reaches n_units; otherwise move "
                 "start forward by size - overlap. An empty document has no windows."),
        outline=("if size < 1 or not 0 <= overlap < size: raise ValueError(...)\n"
                 "spans, start = [], 0\n"
                 "while start < n_units:\n"
                 "    end = min(start + size, n_units)\n"
                 "    spans.append((start, end))\n"
                 "    if end == n_units: break\n"
                 "    start += size - overlap\n"
                 "return spans"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, window_spans(n_units, size, "
              "overlap): you renamed, dropped or added a required parameter. Put the def line back as given and run the"
              " cell again."),
            F("invalid_arguments", r"instead of raising ValueError|expected ValueError|raise ValueError unless size >= 1",
              "Check the arguments before the loop: raise ValueError unless size >= 1 and 0 <= overlap < size. "
              "overlap >= size never moves forward (an endless loop) and a negative overlap leaves gaps."),
            F("not_pairs", r"expected a list of \(start, end\) pairs",
              "Each window is a pair: append (start, end), not start alone, and return the list."),
            F("empty_document", r"empty document has no windows",
              "With n_units == 0 the loop must not run at all: `while start < n_units` returns []."),
            F("end_not_clamped", r"ends past n_units",
              "The last window is cut at the end of the document: end = min(start + size, n_units)."),
            F("extra_tail_window", r"lies wholly inside",
              "After the window that reaches n_units, stop (break): another start would only repeat text already "
              "embedded."),
            F("tail_dropped", r"would never be embedded",
              "Keep going until a window ends at n_units: a loop condition like start + size <= n_units drops the "
              "shorter last window."),
            F("no_overlap", r"do not overlap",
              "The step is size - overlap, not size: neighbours must share `overlap` units."),
            F("step_is_overlap", r"starts `overlap` units after",
              "The step between starts is size - overlap, not overlap."),
            F("gaps", r"leaves gaps",
              "size + overlap jumps too far; the step is size - overlap."),
            F("first_start", r"first window must start at 0",
              "Start the first window at 0 or the beginning of the document is never embedded."),
            F("endless_loop", r"endless loop",
              "The loop never ends: start must grow by size - overlap (a positive number after the argument check) "
              "on every pass, and the loop must stop once a window ends at n_units."),
            F("start_length", r"Your pairs hold \(start, length\)",
              "The second number of a window is where it stops (an end position), not how many units it holds: the "
              "last window of 10 units with size 4 is (8, 10), not (8, 2)."),
            F("inclusive_end", r"ends one unit early|not an inclusive end",
              "Windows are half-open like slices: (start, end) covers text[start:end], so end is the first unit NOT "
              "in the window. Do not subtract 1 from the end, and let the last window end at n_units itself."),
            F("last_window_shifted", r"was moved back to be a full window",
              "Do not pull the last window back so it is full size: it starts where the step puts it, like every "
              "other window, and only its end is cut at n_units, so it may be shorter."),
            F("wrong_step", r"Each window starts \d+ units after the previous one",
              "The distance between two starts is not what your code computes (halving size, or some other formula): "
              "it is exactly size - overlap, so neighbours share `overlap` units and nothing more."),
            F("random_case", r"\(a random case\)",
              "A random case differs: call your function with the n, size and overlap in the message and compare "
              "with the steps of the outline; look at the last window first."),
        )),
    "todo2_should_promote": TodoHints(
        nudge=("Promotion swaps what every question reads from, so it is a gate with three rules: no evidence (no "
               "golden queries) means no; recall below the bar means no; worse than what is active now means no. "
               "Anything else is a yes. Say why in the reason."),
        general=("Return PromotionDecision(promote, reason) with promote a real bool: refuse when candidate.n == 0; refuse "
                 "when candidate.recall < min_recall; refuse when active is not None and candidate.recall < "
                 "active.recall; otherwise promote (a tie with the active is allowed)."),
        outline=("if candidate.n == 0: return PromotionDecision(False, 'no golden queries ran')\n"
                 "if candidate.recall < min_recall: return PromotionDecision(False, f'recall ... below the bar ...')\n"
                 "if active is not None and candidate.recall < active.recall: return PromotionDecision(False, 'worse than ...')\n"
                 "return PromotionDecision(True, f'recall ... reaches the bar ...')"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, should_promote(candidate, active,"
              " min_recall): you renamed, dropped or added a required parameter. Put the def line back as given and run"
              " the cell again."),
            F("not_a_decision", r"expected a PromotionDecision",
              "Return PromotionDecision(promote=..., reason=...), not a tuple or a bool: promote() reads both fields."),
            F("recall_by_k", r"hits / k",
              "k is how many documents each golden question looks at (recall@k); n is how many questions ran. "
              "Recall is the share of questions answered: hits / n, which candidate.recall already gives."),
            F("promote_not_bool", r"must be True or False",
              "promote must be a bool: the result of a comparison, not the recall number itself."),
            F("no_reason", r"has no reason",
              "Every PromotionDecision says why, with the numbers (the log and `workshop alias status` show it): a non-empty "
              "reason string."),
            F("reason_numbers", r"does not give the numbers",
              "The decision is right but its reason does not show the numbers that decided it. Write them into the "
              "reason: the candidate's recall always, plus the bar or the active index's recall when that is what "
              "decided."),
            F("zero_division", r"divided by zero",
              "You compute hits / n yourself, and n can be 0. candidate.recall is already computed for you; test "
              "candidate.n == 0 before anything else and refuse, so nothing is divided."),
            F("hits_not_n", r"questions ran, so recall .* is measured|is a measured recall",
              "'No evidence' means no questions ran (candidate.n == 0). Zero hits on questions that did run is a "
              "real, measured recall of 0.0 and is judged against the bar like any other."),
            F("rounded_recall", r"when rounded|never a rounded one|never rounded ones",
              "You round a recall before comparing it, so 0.796 passes a bar of 0.80 and 0.896 ties 0.900. Compare "
              "the exact recall values; round only when you write numbers into the reason."),
            F("active_none", r"raised AttributeError.*active=None",
              "Before the first promotion there is no active index (active is None): compare with active.recall "
              "only when active is not None."),
            F("first_promotion", r"case 'the first promotion'",
              "With nothing active, the candidate only has to reach the bar."),
            F("bar_equal", r"case 'recall exactly at the bar'",
              "Reaching the bar includes equality: refuse only when candidate.recall < min_recall (so promote when "
              ">=)."),
            F("below_bar", r"case 'below the bar, nothing active'",
              "Refuse when candidate.recall < min_recall."),
            F("bar_first", r"case 'below the bar but better than the active'",
              "The bar applies first, whatever the active index scores: being better than a bad index is not enough."),
            F("worse_than_active", r"case 'above the bar but worse than the active'",
              "Never swap in a worse index: refuse when active is not None and candidate.recall < active.recall "
              "(compare recall, not hits: the two may have run different numbers of queries)."),
            F("tie_refused", r"case 'as good as the active'",
              "Only a worse candidate is refused: a tie is allowed, so compare with <, not <=."),
            F("better_refused", r"case 'better than the active'",
              "A candidate that reaches the bar and beats the active must be promoted."),
            F("no_queries", r"case 'no golden queries ran'",
              "A candidate evaluated on zero questions has no measured recall: refuse first when candidate.n == 0."),
            F("bar_of_one", r"case 'a bar of 1\.0'",
              "Use >= for the bar and < for the comparison with the active: 1.00 reaches 1.00 and ties are allowed."),
        )),
}

"""Hints for Part 5's TODOs: validate_selection and render_grounded_answer."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_validate_selection": TodoHints(
        nudge=("The model's selection is untrusted input. Either every element is exactly the id of a row the "
               "search returned, and you keep them (once each, in the order chosen), or something is off, and you "
               "reject the whole selection so the answer falls back to every row. Never repair a selection."),
        general=("Accept only a non-empty list or tuple; every element must be a str equal to the item_id of one of "
                 "`rows` (exact match: case and spaces count); one bad element returns None; otherwise return a new "
                 "list without repeats, first occurrence kept."),
        outline=("if not isinstance(selection, (list, tuple)) or not selection: return None\n"
                 "known = {row.item_id for row in rows}\n"
                 "chosen = []\n"
                 "for value in selection:\n"
                 "    if not isinstance(value, str) or value not in known: return None\n"
                 "    if value not in chosen: chosen.append(value)\n"
                 "return chosen"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, validate_selection(selection, "
              "rows): you renamed, dropped or added a required parameter. Put the def line back as given and run the "
              "cell again."),
            F("mutated_selection", r"changed the selection it was given|tried to change the tuple it was given|"
              r"never sort, remove from, append to or assign into",
              "Your function edits `selection` itself (a .sort(), .remove(), del, or an assignment into it). The "
              "caller still needs the selection exactly as the model sent it, and a tuple cannot be edited at all: "
              "only read `selection`, and collect the ids you keep in a new list that you return."),
            F("result_not_list", r"return a new list \(list",
              "Return a new list (list(...) or a list you built), even when the selection was a tuple."),
            F("tuple_refused", r"a tuple is accepted like a list",
              "Accept a tuple like a list: isinstance(selection, (list, tuple))."),
            F("not_list_or_tuple", r"only a list or tuple is accepted",
              "Sets, dicts, iterators and bare strings are not a selection (a set has no order, a dict's keys are "
              "not a list, a string iterates letter by letter): return None unless isinstance(selection, "
              "(list, tuple))."),
            F("empty_selection", r"an empty selection is not a choice",
              "An empty list chooses nothing, which means 'no valid selection': return None, not []."),
            F("catalog_not_rows", r"was NOT among the returned rows",
              "Check against the rows the search returned (`rows`), not the whole catalog: an item that exists but "
              "was not retrieved has no row to write the answer from."),
            F("case_insensitive", r"case matters",
              "Compare ids exactly: do not lower() or upper() them; 'eq-20rf' is not a returned id."),
            F("stripped_spaces", r"no stray spaces",
              "Compare ids exactly: do not strip() them; ' EQ-20RF' is not a returned id, and repairing it hides a "
              "broken selector."),
            F("unknown_skipped", r"rejects the WHOLE selection",
              "One element that is not a returned id (an invented id, a number, None, '') makes the selector "
              "untrustworthy: return None at once instead of skipping the element."),
            F("valid_rejected", r"every element is a returned row's id here",
              "This selection is valid: return its ids as a list (deduplicated, in the order chosen)."),
            F("duplicates_kept", r"drop repeated ids|duplicates are dropped",
              "Drop repeats and keep the first occurrence: append a value only if it is not already in the result "
              "(or list(dict.fromkeys(selection)))."),
            F("element_type_crash", r"raised TypeError",
              "An element can be a list or a dict, which cannot be looked up in a set (unhashable). Test "
              "isinstance(value, str) before `value in known`."),
        )),
    "todo2_render_grounded_answer": TodoHints(
        nudge=("The answer is written only from rows: the selection (validated with your TODO 1) says which rows to "
               "show and in what order, and the library's format_row writes each one. No value is ever typed by "
               "you or the model."),
        general=("No rows at all -> grounded.no_match_answer(question, []). Otherwise ids = "
                 "validate_selection(selection, matches); show those rows in that order, or every row when ids is "
                 "None; the text is grounded.answer_header(question, n) then one grounded.format_row(row) per row, "
                 "joined with '\\n'."),
        outline=("if not matches: return grounded.no_match_answer(question, [])\n"
                 "ids = validate_selection(selection, matches)\n"
                 "by_id = {m.item_id: m for m in matches}\n"
                 "chosen = [by_id[i] for i in ids] if ids is not None else list(matches)\n"
                 "return '\\n'.join([grounded.answer_header(question, len(chosen))] + "
                 "[grounded.format_row(m) for m in chosen])"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, render_grounded_answer(question, "
              "matches, selection=None): you renamed, dropped or added a required parameter. Put the def line back as "
              "given and run the cell again."),
            F("not_text", r"not the answer text",
              "Return one string: the header line and the row lines joined with '\\n' (not a list, not print())."),
            F("chosen_order", r"in the chosen order",
              "Show the rows in the order of the validated ids, not in the order of `matches`: look each id up "
              "(a dict by item_id) instead of filtering matches."),
            F("fallback_rows", r"show every returned row|fall back to every row|every returned row is shown",
              "When the selection is not valid (validate_selection returns None) show every returned row, best "
              "first; never show nothing and never the invalid ids."),
            F("duplicate_row", r"duplicated id is shown once",
              "Build the rows from the validated ids (which have no repeats), not from the raw selection."),
            F("rows_selection", r"the answer shows rows",
              "Validate the selection first with validate_selection(selection, matches), then show exactly those "
              "rows, or every row when it returns None."),
            F("retyped_values", r"not written with grounded\.format_row",
              "Write each row with grounded.format_row(row): retyping name, price or availability in your own "
              "f-string is how made-up values get into an answer."),
            F("invented_id", r"mentions EQ-99XX",
              "Only validated rows may appear: an id the model invented must never be written."),
            F("no_rows", r"with no rows at all",
              "When `matches` is empty there is nothing to ground an answer in: return "
              "grounded.no_match_answer(question, []) before anything else."),
            F("text_format", r"text differs from the specified answer|answer differs from the specified one",
              "The rows are right but the text is not: the first line is grounded.answer_header(question, n) with n "
              "= the number of rows SHOWN (not len(matches)); then one format_row line per row; lines joined with "
              "'\\n', no blank lines, no extra words, no header you wrote yourself."),
        )),
}

"""Hints for the memory-over-time Part's TODOs: decide (consolidation) and compact (the summary fold)."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_decide": TodoHints(
        nudge=("Think of a careful note-keeper reading a new statement next to the notes it already has on the "
               "topic: a request to forget crosses out every matching note; the same fact said again changes "
               "nothing; more detail refines a note; a new value for the same subject replaces the old note (the "
               "later statement wins); anything else is a new note. Only notes of the same kind are compared."),
        general=("Sort a copy of the neighbours by similarity, highest first. A forget: every neighbour (any record "
                 "type) with same_topic(subject) or similarity >= thresholds['memory_forget'] -> FORGET their ids, "
                 "none -> SKIP (). Otherwise keep neighbours of candidate.record_type; with a subject, the nearest one "
                 "whose normalise(subject) matches decides: same normalised value -> SKIP, refines(new, old) -> "
                 "UPDATE, else SUPERSEDE. Then the nearest same-type neighbour at >= memory_duplicate: UPDATE if "
                 "refines(candidate.text, its text), else SKIP. Else ADD ()."),
        outline=("ranked = sorted(neighbours, key=lambda n: -n.similarity)   # a copy, nearest first\n"
                 "if candidate.op == 'forget':\n"
                 "    hits = [n for n in ranked if same_topic(n.subject, candidate.subject)\n"
                 "            or n.similarity >= thresholds['memory_forget']]\n"
                 "    return Decision('FORGET', tuple(n.id for n in hits), '...') if hits else Decision('SKIP', (), '...')\n"
                 "mine = [n for n in ranked if n.record_type == candidate.record_type]\n"
                 "if candidate.subject:\n"
                 "    same = [n for n in mine if normalise(n.subject) == normalise(candidate.subject)]\n"
                 "    if same:\n"
                 "        old = same[0]\n"
                 "        # same normalised value -> SKIP, refines(candidate.value, old.value) -> UPDATE, else SUPERSEDE\n"
                 "if mine and mine[0].similarity >= thresholds['memory_duplicate']:\n"
                 "    # UPDATE mine[0] if refines(candidate.text, mine[0].text), else SKIP it\n"
                 "return Decision('ADD', (), 'new')"),
        failures=(
            F("not_a_decision", r"the TODO asks for a Decision",
              "Return a Decision, not a tuple or a dict: Decision('SKIP', (old.id,), 'already stored'). The writer "
              "and the tables below the TODO read its .action, .targets and .reason."),
            F("action_name", r"the action is one of",
              "The action is one of ADD, UPDATE, SUPERSEDE, SKIP, FORGET, written in capitals exactly like that."),
            F("targets_no_comma", r"a string, not a tuple",
              "(old.id) is just old.id in parentheses, a string; the comma makes a tuple: (old.id,)."),
            F("targets_list", r"targets as a list",
              "targets is a tuple, as the TODO says: (old.id,) or tuple(n.id for n in hits), not [old.id]."),
            F("targets_type", r"the TODO asks for a tuple of ids",
              "(n.id for n in hits) is a generator, not a tuple: wrap it, tuple(n.id for n in hits)."),
            F("target_ids", r"targets are the ids \(strings\)",
              "The targets are the ids of the stored memories, strings: tuple(n.id for n in hits), not the "
              "Neighbour objects and not their texts."),
            F("empty_targets", r"is right but its targets are empty",
              "Every action but ADD names the memory it acts on: a SKIP of a duplicate is Decision('SKIP', "
              "(mine[0].id,), ...), not Decision('SKIP', ())."),
            F("mutates_neighbours", r"changed the neighbours list",
              "neighbours.sort(...) reorders the caller's list; the writer reads it again afterwards. Use "
              "ranked = sorted(neighbours, key=lambda n: -n.similarity) instead."),
            F("forget_exact", r"matched the forget's subject exactly",
              "'port' and 'home port' name the same thing: in the forget branch match subjects with "
              "same_topic(n.subject, candidate.subject), which tests that every word of one is in the other."),
            F("forget_by_meaning", r"reaches a memory by meaning too",
              "A forget has two ways to reach a memory, joined by OR: its subject (same_topic) or its meaning "
              "(n.similarity >= thresholds['memory_forget']). You kept only the subject test."),
            F("forget_by_subject", r"reaches a memory by its subject too",
              "A forget has two ways to reach a memory, joined by OR: its subject (same_topic) or its meaning "
              "(n.similarity >= thresholds['memory_forget']). You kept only the similarity test."),
            F("forget_all", r"FORGET every matching memory",
              "A forget crosses out every memory that matches, not only the best one: collect all the hits in a "
              "list (nearest first) and return all their ids."),
            F("forget_threshold", r"by similarity >= memory_forget",
              "A forget reaches a memory either by its subject (same_topic) or by meaning: "
              "n.similarity >= thresholds['memory_forget'], the lower forget threshold, not memory_duplicate."),
            F("forget_nothing", r"nothing to forget: SKIP with no targets",
              "When no neighbour matches the forget, there is nothing to do: return Decision('SKIP', ()), "
              "not a FORGET with an empty target list."),
            F("forget_any_type", r"not limited to one record type",
              "The record-type filter is for the other actions only: a user may forget a preference or a fact, so "
              "handle op == 'forget' before filtering on record_type."),
            F("own_record_type", r"only neighbours of the candidate's own record type",
              "A preference never replaces a fact: after the forget branch keep only "
              "[n for n in ranked if n.record_type == candidate.record_type] and decide on those."),
            F("sorted_ascending", r"sorted the neighbours ascending",
              "sorted(...) puts the smallest similarity first: sort by -n.similarity, or pass reverse=True, so "
              "the nearest neighbour comes first."),
            F("nearest_first", r"act on the NEAREST one",
              "The neighbours arrive in any order: sort a copy by similarity, highest first, and act on the first "
              "of that sorted list."),
            F("normalised", r"compare subjects and values normalised",
              "Compare normalise(n.subject) == normalise(candidate.subject) (and the values the same way): "
              "'Home  Port' and 'home port' are one subject."),
            F("values_raw", r"compared the values as given",
              "Values are compared normalised, like subjects: normalise(candidate.value) == normalise(old.value). "
              "'oslo' and 'OSLO' are one value."),
            F("values_lower", r"compared the values lower-cased only",
              ".lower() is not enough: normalise() also drops punctuation and collapses spaces, so 'Oslo, pier 3' "
              "and 'oslo  pier 3' are one value. Compare normalise(candidate.value) == normalise(old.value)."),
            F("refines_values", r"tested refines on the whole texts",
              "For a matching subject the question is whether the new VALUE refines the old one: "
              "refines(candidate.value, old.value). The texts carry other words (\"Update: ...\", \"(since "
              "March)\") that make a text test say the wrong thing."),
            F("subject_guard", r"without a subject went through the same-subject rule",
              "Rule 3 is for candidates WITH a subject: guard it with `if candidate.subject:`. Two empty subjects "
              "are equal strings, but they are not the same subject; such candidates go to rule 4."),
            F("duplicate_value", r"already stored for this subject: SKIP",
              "Before anything else for a matching subject, test the value: the same normalised value is a "
              "duplicate, SKIP with (old.id,). Only a different value refines or supersedes."),
            F("refinement", r"refines the fact, so UPDATE",
              "Between SKIP and SUPERSEDE, test refines(candidate.value, old.value): every word of the old value "
              "and more is the same fact, refined -> UPDATE (old.id,)."),
            F("supersede", r"SUPERSEDE the stored memory",
              "A new value for a stored subject is a correction: the later statement wins. When the subject "
              "matches and the value is neither the same nor a refinement, return SUPERSEDE with (old.id,)."),
            F("threshold_ge", r"compare with >=, not >",
              "A similarity equal to the threshold counts: mine[0].similarity >= thresholds['memory_duplicate']."),
            F("near_duplicate_refine", r"every word of the stored one and more: UPDATE",
              "Without a subject, a near duplicate (>= memory_duplicate) with more detail refines it: "
              "refines(candidate.text, mine[0].text) -> UPDATE, otherwise SKIP."),
            F("below_threshold", r"below memory_duplicate the neighbour is another statement",
              "A neighbour under memory_duplicate is a different statement: fall through to ADD with no targets."),
            F("no_neighbours", r"nothing to compare: ADD",
              "With no neighbours the candidate is new: the last line of the function is "
              "return Decision('ADD', (), 'new'), reached when no rule before it returned."),
            F("rule_order", r"go through the rules in the order the TODO lists them",
              "Your function agrees with the named cases but not on this input: compare it with the rules of the "
              "TODO one by one, in their order (forget, record type, subject, duplicate threshold, ADD)."),
        )),
    "todo2_compact": TodoHints(
        nudge=("The model must always see the newest part of the conversation word for word; older messages can "
               "be folded into the running summary. So count backwards from the newest message, keeping messages "
               "while their tokens fit the budget, and fold everything before that run."),
        general=("Raise ValueError for a negative budget. Walk reversed(messages) adding count_tokens(m.text); stop "
                 "at the first message that would take the total over the budget (used + cost > budget), except "
                 "that the newest message is always kept. With `kept` messages kept, cut = len(messages) - kept; "
                 "return summary.Compaction(fold=list(messages[:cut]), keep=list(messages[cut:]))."),
        outline=("if budget < 0:\n"
                 "    raise ValueError(f'budget must be >= 0, got {budget}')\n"
                 "kept, used = 0, 0\n"
                 "for m in reversed(messages):\n"
                 "    cost = count_tokens(m.text)\n"
                 "    if kept and used + cost > budget:\n"
                 "        break\n"
                 "    kept, used = kept + 1, used + cost\n"
                 "cut = len(messages) - kept\n"
                 "return summary.Compaction(fold=list(messages[:cut]), keep=list(messages[cut:]))"),
        failures=(
            F("negative_error_type", r"a negative budget raised \w+, not ValueError",
              "Check the budget first, before any other work: if budget < 0: raise ValueError(...)."),
            F("negative_budget", r"returned instead of raising ValueError",
              "A negative budget is the caller's mistake: the first line is if budget < 0: raise ValueError(...)."),
            F("mutates_messages", r"changed the list of messages",
              "Do not pop, remove or sort the list you are given: count with an index or reversed(messages) and "
              "return slices, messages[:cut] and messages[cut:]."),
            F("not_a_compaction", r"expected Compaction\(fold=",
              "Return a Compaction, as the TODO says: summary.Compaction(fold=list(messages[:cut]), "
              "keep=list(messages[cut:])), not a tuple or one list."),
            F("compaction_lists", r"fold and keep are lists",
              "fold and keep are lists: list(messages[:cut]) and list(messages[cut:]), not tuples."),
            F("texts_not_messages", r"holds texts \(str",
              "Put the message objects in fold and keep, not m.text: the summary needs each message's role and "
              "text, and the prompt keeps the newest messages whole."),
            F("count_message", r"count_tokens takes a message's text",
              "count_tokens counts the tokens of a string: pass it the message's text, count_tokens(m.text)."),
            F("swapped", r"swapped fold and keep",
              "fold is what goes into the summary (the OLDER messages, messages[:cut]); keep is what stays word for "
              "word (the newest run, messages[cut:])."),
            F("words", r"counted words",
              "A word is often several tokens: the budget is in tokens, so measure each message with "
              "count_tokens(m.text), never len(m.text.split())."),
            F("keeps_overflow", r"kept the message that took the total over",
              "Test before you add: if kept and used + cost > budget: break, and only then kept += 1, used += "
              "cost. Adding first keeps one message too many."),
            F("budget_as_count", r"read the budget as a number of messages",
              "The budget is tokens, not messages: add count_tokens(m.text) of each message, newest first, while "
              "the total stays <= budget."),
            F("all_or_newest", r"measured the whole thread at once",
              "Count message by message, newest first: the kept run can be any length, not only all or one."),
            F("characters", r"in characters \(len\)",
              "The budget is in tokens: measure each message with the count_tokens function you are given, "
              "count_tokens(m.text), never len(m.text)."),
            F("lost_messages", r"went missing or were doubled",
              "fold + keep must be the input exactly: cut once and return messages[:cut] and messages[cut:]."),
            F("kept_nothing", r"You kept nothing",
              "The newest message stays even when it alone is over the budget: only stop when you already kept at "
              "least one message (if kept and used + cost > budget: break)."),
            F("folded_newest", r"You folded the newest message",
              "Walk from the NEWEST message backwards (reversed(messages)): the summary takes the oldest messages."),
            F("not_contiguous", r"past one that did not fit|newest\s+unbroken run",
              "Stop (break) at the first message, newest to oldest, that does not fit; do not skip it and go on "
              "collecting smaller, older messages."),
            F("order", r"not in order",
              "Return both lists oldest first, as the input: slices of messages do that; a list built while "
              "walking backwards must be reversed."),
            F("at_budget", r"compare used \+ cost > budget to stop, not >=",
              "A total equal to the budget fits: stop only when used + cost > budget, not >=."),
            F("everything_fits", r"nothing folds; keep all of them",
              "When every message fits, fold is [] and keep is the whole list: the loop must not fold anything "
              "before the budget is exceeded."),
            F("over_budget", r"keep the NEWEST messages that fit",
              "Over the budget, keep the newest messages whose tokens fit and fold every older one."),
            F("zero_budget", r"with a budget of 0 only the newest",
              "A budget of 0 keeps just the newest message (it is always kept) and folds the rest."),
            F("always_keep_newest", r"newest message is always kept",
              "The newest message is always kept, even alone over the budget: it is the question being answered."),
            F("rule_order", r"follow the rules of the TODO in order",
              "Your function agrees with the named cases but not on this input: re-read the TODO's four rules and "
              "walk the message sizes the check printed by hand."),
        )),
}

"""Hints for Part 2's TODO: comment_facts (the schema scanner)."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_comment_facts": TodoHints(
        nudge=("The data dictionary already holds what a domain expert wrote about each table and column. Your job "
               "is only to turn every table and every column into one sentence-like Fact the agent can later find "
               "by meaning. Think of it as two nested loops: tables outside, that table's columns inside."),
        general=("Build the list in the order the check expects: for each table (dictionary order) append its table "
                 "Fact, then one Fact per column of that table. The kinds are exactly 'table' and 'column', the "
                 "subjects OWNER.TABLE and OWNER.TABLE.COLUMN, and the bodies follow the format table in the markdown "
                 "character for character."),
        outline=("facts = []\n"
                 "for table in dictionary['tables']:\n"
                 "    columns = [c for c in dictionary['columns'] if c['table'] == table['table']]\n"
                 "    subject = OWNER.TABLE (from table['owner'] and table['table'])\n"
                 "    append Fact('table', subject, 'Table <subject>. Documented purpose: <comment or (no comment)> "
                 "Columns: <names joined by ', '>.')\n"
                 "    for col in columns:\n"
                 "        append Fact('column', subject.COLUMN, 'Column <subject.COLUMN> of type <data_type> "
                 "(<nullable | not null>). Meaning: <comment or (no comment)>')\n"
                 "return facts"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, comment_facts(dictionary): you "
              "renamed, dropped or added a required parameter. Put the def line back as given and run the cell again."),
            F("not_a_list", r"must return a list of Fact",
              "Return the list itself: `facts = []` at the start, `facts.append(...)` in the loops, `return facts` at "
              "the end (not a generator, a dict or None from a missing return)."),
            F("not_fact_objects", r"must be a scanner\.Fact",
              "The store expects Fact objects, not dicts or tuples: `Fact('column', subject, body)` with Fact imported "
              "from workshop_lib.parts.scanner."),
            F("wrong_kind", r"has kind '.*'; expected",
              "The kind is a fixed word the agent filters on later (Part 3's kinds='column'): exactly 'table' or "
              "'column', singular and lower case."),
            F("missing_facts", r"fact\(s\) missing",
              "A table or column has no Fact, or its subject is spelled differently from the dictionary. Write the "
              "subject from the dictionary's own names, upper case as given (no .lower(), no .title()), and make sure "
              "the inner loop appends one Fact for every column of the table."),
            F("extra_fact", r"unexpected fact",
              "You wrote a Fact the reference does not have: either a kind other than 'table'/'column' (relationships "
              "are added by the library from the foreign keys) or a subject built differently from OWNER.TABLE / "
              "OWNER.TABLE.COLUMN."),
            F("duplicate_fact", r"some fact is there twice",
              "One Fact appears twice: the table Fact is appended inside the column loop, or a column is appended in "
              "two places. Append the table Fact once, before the column loop."),
            F("mutated_input", r"changed the dictionary it was given",
              "Your function edits the dictionary it reads (a .sort(), .remove(), .pop() or del on its lists). Other "
              "code uses that dictionary after you: build new lists (sorted(...), a comprehension) and leave the "
              "input as it was."),
            F("no_comment_text", r"write '\(no comment\)'",
              "A comment can be None. `comment or '(no comment)'` writes the placeholder instead of the word None."),
            F("nullable_flag", r"'nullable' when column\['nullable'\]",
              "column['nullable'] is True for a nullable column: write 'nullable' when it is True and 'not null' "
              "when it is False (check the condition is not inverted)."),
            F("type_detail", r"not type_detail",
              "The body wants the plain type (column['data_type'], e.g. NUMBER), not the detailed one "
              "(column['type_detail'], e.g. NUMBER(10))."),
            F("column_join", r"join the column names with ', '",
              "The column list in the table Fact is ', '.join(names): a comma AND a space between names."),
            F("columns_of_other_tables", r"sit under a table that has no such column|every column was written under "
              r"every table",
              "Each table's column Facts must be that table's own columns only. Your inner loop walks the whole "
              "dictionary['columns'] list for every table; pick out the columns whose 'table' names the table of "
              "the outer loop first, and loop over those."),
            F("table_columns", r"list this table's columns",
              "The table Fact's 'Columns:' lists only this table's columns, in dictionary order: filter "
              "dictionary['columns'] on column['table'] == table['table']."),
            F("body_format", r"match the format in the table above",
              "The body differs in its fixed words or punctuation: compare your f-string with the format table "
              "above the TODO ('Table X. Documented purpose: ... Columns: ....' and 'Column X of type T (flag). "
              "Meaning: ...'); the ^ in the message marks the first differing character."),
            F("fact_order", r"in another order",
              "All the Facts are right but in another order: the table Fact comes first, then that table's column "
              "Facts, then the next table. Do not collect all table Facts first."),
        )),
}

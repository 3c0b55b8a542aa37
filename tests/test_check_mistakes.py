"""Every TODO's hard-stop check against the mistakes learners make.

For each TODO: at least eight wrong implementations (fifteen for Parts 6-8), written the way a
learner would write them, each stopped by its check with a message that names the mistake;
and at least two correct implementations written differently from the solution, each
accepted by the check AND by the grade cell nbgrader runs (its source is read from the
solution notebook).

Wrong versions are built by editing the solution's own code where that is how the mistake
arises (an edit that no longer applies fails the test, so the set follows the solution).
"""
from __future__ import annotations

import copy
import json
import textwrap

import pytest

from workshop_lib import checks
from workshop_lib.checks import CheckFailed
from workshop_lib.data import catalog
from workshop_lib.parts import gates, grounded, retrieval, scanner
from workshop_lib.parts.gates import ModeConfig, make_decision
from workshop_lib.parts.grounded import CatalogMatch
from workshop_lib.parts.scanner import Fact
from workshop_lib.tools import release

SOLUTIONS = release.REPO / "solutions"


def _cells(part: str) -> dict[str, str]:
    path = next((SOLUTIONS / part).glob("*.ipynb"))
    nb = json.loads(path.read_text())
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
            for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id")}


def _solution(part: str, grade_id: str) -> str:
    text = _cells(part)[grade_id]
    return "\n".join(line for line in text.splitlines() if "### BEGIN SOLUTION" not in line
                     and "### END SOLUTION" not in line)


def _edit(source: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in source, f"the solution no longer contains {old!r}: update this wrong version"
        source = source.replace(old, new)
    return source


def _namespace(eng=None) -> dict:
    return {"eng": eng, "checks": checks, "retrieval": retrieval, "scanner": scanner, "Fact": Fact,
            "gates": gates, "ModeConfig": ModeConfig, "make_decision": make_decision, "grounded": grounded,
            "catalog": catalog, "CatalogMatch": CatalogMatch, "copy": copy}


def _define(source: str, name: str, eng=None, ns: dict | None = None):
    ns = ns if ns is not None else _namespace(eng)
    exec(compile(textwrap.dedent(source), f"<learner {name}>", "exec"), ns)
    return ns


def _stopped(run, expected: list[str]) -> str:
    with pytest.raises(CheckFailed) as err:
        run()
    message = str(err.value)
    flat = " ".join(message.split())  # messages are wrapped; compare words, not line breaks
    for words in expected:
        assert " ".join(words.split()) in flat, f"{words!r} not in the message:\n{message}"
    return message


def _grade_cell_passes(part: str, grade_id: str, ns: dict) -> None:
    """Run the grade cell's source exactly as nbgrader does, in the learner's namespace."""
    exec(compile(_cells(part)[grade_id], f"<grade cell {grade_id}>", "exec"), ns)


# =============================================================== Part 2, TODO 1 (comment_facts)
P2 = "part2"
P2_SOL = None


def p2_solution() -> str:
    return _solution(P2, "todo1_comment_facts")


P2_WRONG = {
    "tables only": (lambda s: _edit(s, ("            facts.append(Fact(\"column\", col_subject, body))", "            pass")),
                    ["fact(s) missing", "column fact"]),
    "type_detail instead of data_type": (lambda s: _edit(s, ("{col['data_type']}", "{col['type_detail']}")),
                                         ["body of the column fact", "not type_detail", "^"]),
    "nullable flag inverted": (lambda s: _edit(s, ('"nullable" if col["nullable"] else "not null"',
                                                   '"not null" if col["nullable"] else "nullable"')),
                               ["body of the column fact", "'not null' when it is False"]),
    "None printed for a missing comment": (lambda s: _edit(s, ('col["comment"] or "(no comment)"', 'col["comment"]')),
                                           ["edge-case dictionary", "'(no comment)' where the comment is None"]),
    "columns joined without a space": (lambda s: _edit(s, ('", ".join(c["column"]', '",".join(c["column"]')),
                                       ["body of the table fact", "join the column names with ', '"]),
    "subjects in lower case": (lambda s: _edit(s, ("subject = f\"{table['owner']}.{table['table']}\"",
                                                   "subject = f\"{table['owner']}.{table['table']}\".lower()")),
                               ["missing", "upper case as in the dictionary"]),
    "sorts the dictionary in place": (lambda s: _edit(s, ("    for table in dictionary[\"tables\"]:",
                                                       "    dictionary[\"columns\"].sort(key=lambda c: c[\"column\"])\n"
                                                       "    for table in dictionary[\"tables\"]:")),
                                   ["changed the dictionary", "dictionary['columns']", "no .sort()"]),
    "removes used columns from the dictionary": (
        lambda s: _edit(s, ("            facts.append(Fact(\"column\", col_subject, body))",
                            "            facts.append(Fact(\"column\", col_subject, body))\n"
                            "            dictionary[\"columns\"].remove(col)")),
        ["changed the dictionary", ".remove()"]),
    "all table facts first": (
        lambda s: _edit(s, ("        for col in columns:", "    for table in dictionary[\"tables\"]:\n"
                                                           "        columns = [c for c in dictionary[\"columns\"]\n"
                                                           "                   if c[\"table\"] == table[\"table\"]]\n"
                                                           "        subject = f\"{table['owner']}.{table['table']}\"\n"
                                                           "        for col in columns:")),
        ["another order", "then the facts of its columns"]),
    "table fact appended once per column": (
        lambda s: _edit(s, ("            facts.append(Fact(\"column\", col_subject, body))",
                            "            facts.append(Fact(\"column\", col_subject, body))\n"
                            "            facts.append(facts[-2] if len(facts) > 1 else facts[-1])")),
        ["there twice", "append the table fact once"]),
    "dicts instead of Fact": (lambda s: _edit(s, ("facts.append(Fact(\"column\", col_subject, body))",
                                                  "facts.append({\"kind\": \"column\", \"subject\": col_subject, \"body\": body})")),
                              ["must be a scanner.Fact"]),
    "kind 'columns'": (lambda s: _edit(s, ('Fact("column", col_subject, body)', 'Fact("columns", col_subject, body)')),
                       ["has kind 'columns'; expected 'column'"]),
    "every column under every table": (lambda s: _edit(s, ('columns = [c for c in dictionary["columns"] if c["table"] == table["table"]]',
                                                           'columns = dictionary["columns"]')),
                                       ["every column was written under every table", "c['table'] == table['table']"]),
}

P2_RIGHT = {
    "library helpers": """
        from workshop_lib.parts.scanner import Fact

        def comment_facts(dictionary):
            out = []
            for t in dictionary["tables"]:
                cols = [c for c in dictionary["columns"] if c["table"] == t["table"]]
                out += [scanner.table_fact(t, cols)] + [scanner.column_fact(c) for c in cols]
            return out
    """,
    "grouped first, then written": """
        from collections import defaultdict
        from workshop_lib.parts.scanner import Fact

        def comment_facts(dictionary):
            by_table = defaultdict(list)
            for c in dictionary["columns"]:
                by_table[c["table"]].append(c)
            facts = []
            for t in dictionary["tables"]:
                name = t["owner"] + "." + t["table"]
                cols = by_table[t["table"]]
                facts.append(Fact("table", name, "Table %s. Documented purpose: %s Columns: %s." % (
                    name, t["comment"] if t["comment"] else "(no comment)", ", ".join(c["column"] for c in cols))))
                for c in cols:
                    full = "%s.%s" % (name, c["column"])
                    flag = {True: "nullable", False: "not null"}[bool(c["nullable"])]
                    facts.append(Fact("column", full, "Column %s of type %s (%s). Meaning: %s" % (
                        full, c["data_type"], flag, c["comment"] if c["comment"] is not None else "(no comment)")))
            return facts
    """,
}


@pytest.mark.parametrize("mistake", sorted(P2_WRONG))
def test_part2_wrong_comment_facts_is_stopped_by_name(mistake, seeded_engine):
    make, expected = P2_WRONG[mistake]
    ns = _define(make(p2_solution()), mistake, seeded_engine)
    _stopped(lambda: checks.part2.check_comment_facts(ns["comment_facts"], seeded_engine), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P2_RIGHT)])
def test_part2_correct_comment_facts_passes_check_and_grade_cell(variant, seeded_engine):
    ns = _define(p2_solution() if variant == "solution" else P2_RIGHT[variant], variant, seeded_engine)
    checks.part2.check_comment_facts(ns["comment_facts"], seeded_engine)
    _grade_cell_passes(P2, "check_todo1_comment_facts", ns)


# =============================================================== Part 3, TODO 1 (retrieve_knowledge)
P3 = "part3"


def p3_knowledge() -> str:
    return _solution(P3, "todo1_retrieve_knowledge")


P3K_WRONG = {
    "kinds string never split": (
        lambda s: _edit(s, ("    if isinstance(kinds, str):\n        kinds = [part.strip() for part in kinds.split(\",\") if part.strip()]\n", ""),
                        ("if kinds is not None and kind not in kinds", "if kinds is not None and str(kind) not in kinds")),
        ["'columns'", "substring test"]),
    "parts not stripped": (lambda s: _edit(s, ("[part.strip() for part in kinds.split(\",\") if part.strip()]",
                                               "kinds.split(\",\")")),
                           ["asks for it", "strip the spaces"]),
    "no tool_output filter": (lambda s: _edit(s, ("        if kind == \"tool_output\":\n            continue\n", "")),
                              ["tool_output", "skip hits"]),
    "metadata['kind'] on a memory without kind": (lambda s: _edit(s, ('kind = hit.metadata.get("kind")',
                                                                       'kind = hit.metadata["kind"]')),
                                                   ["KeyError", "on this input: retrieve_knowledge("]),
    "similarity instead of distance": (lambda s: _edit(s, ('"distance": float(hit.distance)',
                                                           '"distance": 1 - float(hit.distance)')),
                                       ["1 - distance", "float(hit.distance) as it is"]),
    "no oversampling": (lambda s: _edit(s, ("max_results=k * 4", "max_results=k")),
                        ["hits; expected", "k * 4"]),
    "not cut to k": (lambda s: _edit(s, ("top_k=k,", "top_k=k * 4,")), ["hits; expected", "top_k=k"]),
    "empty kinds filters everything": (lambda s: _edit(s, ("    if not kinds:\n        kinds = None\n", "")),
                                       ["kinds=[]", "empty kinds list like None"]),
    "thread messages searched too": (lambda s: _edit(s, ('record_types=["memory"]', 'record_types=["memory", "message"]')),
                                     ["thread message", "record_types=['memory']"]),
    "farthest first": (lambda s: _edit(s, ("    return retrieval.rerank(eng, query, candidates,",
                                           "    candidates.sort(key=lambda c: -c[\"distance\"])\n"
                                           "    return retrieval.rerank(eng, query, candidates,")),
                       ["rank 1 should be", "nearest first"]),
    "None subject for memories without one": (lambda s: _edit(s, ('"subject": hit.metadata.get("subject", "")',
                                                                  '"subject": hit.metadata.get("subject")')),
                                              ["has subject None; expected ''", "hit.metadata.get('subject', '')"]),
}

P3K_RIGHT = {
    "normalize_kinds and a comprehension": """
        def retrieve_knowledge(query, k=5, kinds=None):
            wanted = retrieval.normalize_kinds(kinds)
            hits = eng.memory.search(query, record_types=["memory"], max_results=4 * k)
            keep = [h for h in hits if h.metadata.get("kind") != "tool_output"
                    and (wanted is None or h.metadata.get("kind") in wanted)]
            cands = [dict(kind=h.metadata.get("kind") or "?", subject=h.metadata.get("subject", ""), body=h.content,
                          metadata=h.metadata, distance=float(h.distance)) for h in keep]
            return retrieval.rerank(eng, query, cands, top_k=k, content_key="body")
    """,
    "a set of kinds and map(str.strip)": """
        def retrieve_knowledge(query, k=5, kinds=None):
            if isinstance(kinds, str):
                kinds = kinds.split(",")
            allowed = {p for p in map(str.strip, kinds or []) if p}
            out = []
            for hit in eng.memory.search(query, max_results=k * 4, record_types=["memory"]):
                meta = hit.metadata
                if meta.get("kind") == "tool_output" or (allowed and meta.get("kind") not in allowed):
                    continue
                out.append({"kind": meta.get("kind") or "?", "subject": meta.get("subject", ""),
                            "body": hit.content, "metadata": meta, "distance": float(hit.distance)})
            return retrieval.rerank(eng, query, out, top_k=k, content_key="body")
    """,
}


@pytest.mark.parametrize("mistake", sorted(P3K_WRONG))
def test_part3_wrong_retrieve_knowledge_is_stopped_by_name(mistake, seeded_engine):
    make, expected = P3K_WRONG[mistake]
    ns = _define(make(p3_knowledge()), mistake, seeded_engine)
    _stopped(lambda: checks.part3.check_retrieve_knowledge(ns["retrieve_knowledge"], seeded_engine), expected)
    assert seeded_engine.store.get("memory", "check:tool-output") is None  # the planted records are gone


@pytest.mark.parametrize("variant", ["solution", *sorted(P3K_RIGHT)])
def test_part3_correct_retrieve_knowledge_passes_check_and_grade_cell(variant, seeded_engine):
    ns = _define(p3_knowledge() if variant == "solution" else P3K_RIGHT[variant], variant, seeded_engine)
    checks.part3.check_retrieve_knowledge(ns["retrieve_knowledge"], seeded_engine)
    _grade_cell_passes(P3, "check_todo1_retrieve_knowledge", ns)


# =============================================================== Part 3, TODO 2 (hybrid RRF)
LIVE = "AND NOT EXISTS (SELECT 1 FROM MEMORY_STATUS s WHERE s.record_seq = m.seq AND s.status <> 'valid')"
KIND_FILTERS = ("               AND NVL(JSON_VALUE(m.metadata, '$.kind'), '-') <> 'tool_output'",
                "               AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'")


def with_status_filter(source: str) -> str:
    """The solution with the memory-status filter in both legs of both dialects (issue 36, risk 8).
    The solution notebook's TODO 2 gains it from whoever owns the notebooks; until then it is added here."""
    if "MEMORY_STATUS" in source:
        return source
    for line in KIND_FILTERS:
        source = _edit(source, (line, "               " + LIVE + "\n" + line))
    return source


def p3_hybrid_as_written() -> str:
    return _solution(P3, "todo2_hybrid_rrf")


def p3_hybrid() -> str:
    return with_status_filter(p3_hybrid_as_written())


def _embedded_sql(edit):
    """Apply an edit to the embedded (SQLite) statement of the solution only."""
    def make(source: str) -> str:
        head, _, sqlite = source.partition("    else:\n")
        return head + "    else:\n" + edit(sqlite)
    return make


P3H_WRONG = {
    "LEFT JOIN instead of FULL OUTER JOIN": (_embedded_sql(lambda s: _edit(s, ("FULL OUTER JOIN", "LEFT JOIN"))),
                                             ["FULL OUTER JOIN"]),
    "lists not cut to :n": (_embedded_sql(lambda s: _edit(s, (" WHERE r_vec <= :n", ""), (" WHERE r_txt <= :n", ""))),
                            ["ranks must be 1..", "rank <= :n"]),
    "no tool_output filter": (_embedded_sql(lambda s: _edit(
        s, ("               AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output'\n", ""),
        ("               AND COALESCE(json_extract(m.metadata, '$.kind'), '') <> 'tool_output')", ")"))),
        ["tool_output", "BOTH legs"]),
    "no user or agent scope": (_embedded_sql(lambda s: s.replace("m.user_id = :u AND m.agent_id = :a AND ", "")),
                               ["another user's memory", "m.user_id = :u"]),
    "user scope only": (_embedded_sql(lambda s: s.replace(" AND m.agent_id = :a", "")),
                        ["another agent's memory", "m.agent_id = :a"]),
    "integer division": (_embedded_sql(lambda s: _edit(s, ("1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt)",
                                                           "1 / (:rrf_k + f.r_vec) + 1 / (:rrf_k + f.r_txt)"))),
                         ["rrf_score", "write 1.0"]),
    "0 for a missing rank": (_embedded_sql(lambda s: s.replace("999999", "0")), ["never 0 or NULL"]),
    "bm25 sorted best-last": (_embedded_sql(lambda s: _edit(s, ("ORDER BY bm, seq", "ORDER BY bm DESC, seq"))),
                              ["r_txt", "bm25 ascending"]),
    "no tie-break on m.seq": (_embedded_sql(lambda s: _edit(s, ("vec_distance_cosine(c.embedding, q.emb), m.seq)",
                                                                "vec_distance_cosine(c.embedding, q.emb))"),
                                                            ("ORDER BY bm, seq", "ORDER BY bm"))),
                              ["no tie-break", "m.seq"]),
    "LIMIT without ORDER BY in a CTE": (_embedded_sql(lambda s: _edit(
        s, ("vec AS (SELECT seq, r_vec FROM vec_ranked WHERE r_vec <= :n)", "vec AS (SELECT seq, r_vec FROM vec_ranked LIMIT :n)"),
        ("txt AS (SELECT seq, r_txt FROM txt_ranked WHERE r_txt <= :n)", "txt AS (SELECT seq, r_txt FROM txt_ranked LIMIT :n)"))),
        ["LIMIT without ORDER BY", "vec AS"]),
    "thread messages included": (_embedded_sql(lambda s: s.replace(" AND m.record_type = 'memory'", "")),
                                 ["thread message", "record_type = 'memory'"]),
    "farthest vectors first": (_embedded_sql(lambda s: _edit(s, ("vec_distance_cosine(c.embedding, q.emb), m.seq)",
                                                                 "vec_distance_cosine(c.embedding, q.emb) DESC, m.seq)"))),
                               ["the vector list (cosine distance ascending", "nearest first"]),
    "keyword list sorted ascending on a negated bm25": (
        _embedded_sql(lambda s: _edit(s, ("bm25(RECORDS_FTS) AS bm", "-bm25(RECORDS_FTS) AS bm"))),
        ["sorted the wrong way round", "no minus sign"]),
    "no memory-status filter": (_embedded_sql(lambda s: s.replace("               " + LIVE + "\n", "")),
                                ["a memory the user asked to forget (status 'forgotten') (check:forgotten) is in your result",
                                 "NOT EXISTS (SELECT 1 FROM MEMORY_STATUS s WHERE s.record_seq = m.seq AND s.status <> "
                                 "'valid')", "BOTH legs"]),
    "status filter on the vector leg only": (
        _embedded_sql(lambda s: _edit(s, ("               " + LIVE + "\n" + KIND_FILTERS[1] + ")",
                                          KIND_FILTERS[1] + ")"))),
        ["(status 'forgotten') (check:forgotten) is in your result", "keyword leg finds them"]),
    "ranks left NULL after the join": (_embedded_sql(lambda s: _edit(s, ("COALESCE(v.r_vec, 999999) AS r_vec", "v.r_vec AS r_vec"),
                                                                     ("COALESCE(t.r_txt, 999999) AS r_txt", "t.r_txt AS r_txt"))),
                                       ["raised TypeError", "came back NULL (None)", "COALESCE(v.r_vec, 999999) AS r_vec"]),
    "final ORDER BY ascending": (_embedded_sql(lambda s: _edit(s, ("ORDER BY rrf_score DESC, f.r_vec, f.r_txt",
                                                                   "ORDER BY rrf_score, f.r_vec, f.r_txt"))),
                                 ["lowest rrf_score first", "keeps the WORST fused rows", "rrf_score DESC"]),
    "r_vec renamed in the SELECT": (
        lambda s: s.replace("SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,",
                            "SELECT m.record_id, m.content, m.metadata, f.r_vec AS rank_vec, f.r_txt,"),
        ["no column r_vec", "rank_vec", "name the final SELECT's columns", "with AS"]),
    "rrf_score left without its name": (_embedded_sql(lambda s: _edit(
        s, ("1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score", "1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt)"),
        ("ORDER BY rrf_score DESC, f.r_vec, f.r_txt", "ORDER BY 6 DESC, f.r_vec, f.r_txt"))),
        ["no column rrf_score", "AS rrf_score"]),
    "hybrid_rows called without eng": (lambda s: _edit(s, ("retrieval.hybrid_rows(eng, rows)", "retrieval.hybrid_rows(rows)")),
                                       ["raised TypeError", "retrieval.hybrid_rows(eng, rows) (eng first)"]),
    "parameters spread with **": (lambda s: _edit(s, ("retrieval.query_named(eng, sql, params)",
                                                      "retrieval.query_named(eng, sql, **params)")),
                                  ["raised TypeError", "params is one dict: no **"]),
    "the def line loses per_list": (lambda s: _edit(s, ("k: int = 5, per_list: int = 30, rrf_k: int = 60", "k: int = 5")),
                                    ["cannot be called as the TODO specifies", "keep the def line"]),
}

# A differently written fusion: UNION ALL + GROUP BY instead of a FULL OUTER JOIN.
P3H_UNION = _embedded_sql(lambda s: _edit(s, (
    """        fused AS (
            SELECT COALESCE(v.seq, t.seq) AS seq, COALESCE(v.r_vec, 999999) AS r_vec, COALESCE(t.r_txt, 999999) AS r_txt
              FROM vec v FULL OUTER JOIN txt t ON t.seq = v.seq)""",
    """        both AS (SELECT seq, r_vec, 999999 AS r_txt FROM vec UNION ALL SELECT seq, 999999, r_txt FROM txt),
        fused AS (SELECT seq, MIN(r_vec) AS r_vec, MIN(r_txt) AS r_txt FROM both GROUP BY seq)""")))
P3H_RIGHT = {
    "UNION ALL and GROUP BY": P3H_UNION,
    # The rows come back by column name: the same columns in another order are as good.
    "r_vec and r_txt in the other order": lambda s: s.replace(
        "SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,",
        "SELECT m.record_id, m.content, m.metadata, f.r_txt, f.r_vec,"),
    "content and metadata in the other order": lambda s: s.replace(
        "SELECT m.record_id, m.content, m.metadata, f.r_vec, f.r_txt,",
        "SELECT m.record_id, m.metadata, m.content, f.r_vec, f.r_txt,"),
    "status filter as NOT IN": lambda s: s.replace(
        LIVE, "AND m.seq NOT IN (SELECT record_seq FROM MEMORY_STATUS WHERE status IN ('superseded', 'forgotten', "
              "'expired'))"),
    # The library's statement also reads the shared schema knowledge: it takes the scope's binds.
    "the library's own statement": lambda s: s.split("    if eng.name")[0]
    + "    from workshop_lib.core.scope import Scope\n    params.update(Scope(eng.user_id, eng.agent_id).binds())\n"
    + "    sql = eng.store.sql.HYBRID_RRF\n    return retrieval.hybrid_rows(eng, retrieval.query_named(eng, sql, params))\n",
}


@pytest.mark.parametrize("mistake", sorted(P3H_WRONG))
def test_part3_wrong_hybrid_is_stopped_by_name(mistake, seeded_engine):
    make, expected = P3H_WRONG[mistake]
    ns = _define(make(p3_hybrid()), mistake, seeded_engine)
    _stopped(lambda: checks.part3.check_hybrid_rrf(ns["hybrid_rrf_search_memories"], seeded_engine), expected)


def test_part3_the_solution_as_written_passes_check_and_grade_cell(seeded_engine):
    ns = _define(p3_hybrid_as_written(), "as written", seeded_engine)
    checks.part3.check_hybrid_rrf(ns["hybrid_rrf_search_memories"], seeded_engine)
    _grade_cell_passes(P3, "check_todo2_hybrid_rrf", ns)


@pytest.mark.parametrize("variant", ["solution", *sorted(P3H_RIGHT)])
def test_part3_correct_hybrid_passes_check_and_grade_cell(variant, seeded_engine):
    source = p3_hybrid() if variant == "solution" else P3H_RIGHT[variant](p3_hybrid())
    ns = _define(source, variant, seeded_engine)
    checks.part3.check_hybrid_rrf(ns["hybrid_rrf_search_memories"], seeded_engine)
    _grade_cell_passes(P3, "check_todo2_hybrid_rrf", ns)


# =============================================================== Part 4, TODO 1 (decide_mode)
P4 = "part4"


def p4_solution() -> str:
    return _solution(P4, "todo1_decide_mode")


P4_WRONG = {
    "< at the short-query boundary": (lambda s: _edit(s, ("query_tokens <= config.short_query_max_tokens",
                                                          "query_tokens < config.short_query_max_tokens")),
                                      ["short query at the boundary", "(<=, not <)"]),
    "best score is the first one": (lambda s: _edit(s, ("best = max(scores)", "best = scores[0]")),
                                    ["unsorted scores", "largest one"]),
    "min_chunks over all chunks": (lambda s: _edit(s, ("if len(used) < config.min_chunks_for_hybrid",
                                                       "if len(chunks) < config.min_chunks_for_hybrid")),
                                   ["min_chunks counts only chunks that cleared the gate"]),
    "context chars over all chunks": (lambda s: _edit(s, ("for i in used)", "for i in range(len(chunks)))")),
                                      ["context chars count only chunks that cleared the gate", "does not count"]),
    "no clamp of an inverted band": (lambda s: _edit(s, ("        low = min(low, high)  # never an inverted band\n", "")),
                                     ["inverted short-query band is clamped"]),
    "no dot-product mapping": (lambda s: _edit(s, ("scores = [(s + 1) / 2 if config.distance == \"dot\" else s for s in similarities]",
                                                   "scores = list(similarities)")),
                               ["(r + 1) / 2"]),
    "blank model answer ignored": (lambda s: _edit(s, ("if used_llm_answer is not None and not used_llm_answer.strip():",
                                                       "if False:")),
                                   ["blank answer"]),
    "hybrid gates ignored": (lambda s: _edit(s, ("        if not failed:", "        if True:")),
                             ["min_chunks_for_hybrid=2", "should be fallback"]),
    "> instead of >= at the high threshold": (lambda s: _edit(s, ("if best >= high:", "if best > high:")),
                                              ["rag at the boundary", "(>=)"]),
    "short-query override ignored": (lambda s: _edit(s, (
        "low = config.short_query_threshold_low if config.short_query_threshold_low is not None else low + config.short_query_delta",
        "low = low + config.short_query_delta"), (
        "high = config.short_query_threshold_high if config.short_query_threshold_high is not None else high + config.short_query_delta",
        "high = high + config.short_query_delta")),
        ["short query override"]),
    "hybrid floor on the raw scale": (lambda s: _edit(s, ("if max(normalized) < config.min_similarity_for_hybrid",
                                                          "if max(scores) < config.min_similarity_for_hybrid")),
                                      ["always on the normalized scale", "compared on the normalized scale",
                                       "not with the raw score"]),
    "hybrid floor on the raw similarities": (lambda s: _edit(s, ("if max(normalized) < config.min_similarity_for_hybrid",
                                                                 "if max(similarities) < config.min_similarity_for_hybrid")),
                                             ["compared on the normalized scale", "not with the raw score"]),
    "used counts only scores above low": (lambda s: _edit(s, ("    used = [i for i, s in enumerate(scores) if s >= low]",
                                                  "    used = [i for i, s in enumerate(scores) if s > low]")),
                              ["hybrid at the boundary"]),
    "min_chunks gate off by one (<=)": (lambda s: _edit(s, ("if len(used) < config.min_chunks_for_hybrid",
                                                            "if len(used) <= config.min_chunks_for_hybrid")),
                                        ["exactly min_chunks_for_hybrid=2 chunks cleared the gate", "len(used) < min_chunks_for_hybrid"]),
    "used counted one short": (lambda s: _edit(s, ("if len(used) < config.min_chunks_for_hybrid",
                                                   "if len(used) - 1 < config.min_chunks_for_hybrid")),
                               ["exactly min_chunks_for_hybrid=2 chunks cleared the gate"]),
    "used positions from 1": (lambda s: _edit(s, ("    used = [i for i, s in enumerate(scores) if s >= low]",
                                                  "    used = [i for i, s in enumerate(scores, start=1) if s >= low]")),
                              ["used positions", "0-based positions"]),
}

P4_RIGHT = {
    "library thresholds, own rules": """
        def decide_mode(similarities, chunks, *, config, query_tokens, used_llm_answer=None):
            low, high, short = gates.active_thresholds(config, query_tokens)
            scaled = [gates.score_on_threshold_scale(s, config) for s in similarities]
            used = [i for i, v in enumerate(scaled) if v >= low]
            kw = dict(similarities=similarities, chunks=chunks, config=config, query_tokens=query_tokens, low=low,
                      high=high, short_query_active=short, used_llm_answer=used_llm_answer)
            blank = used_llm_answer is not None and used_llm_answer.strip() == ""
            if blank or not scaled or max(scaled) < low:
                return make_decision("fallback", **kw)
            if max(scaled) >= high:
                return make_decision("rag", used=used, **kw)
            floor = max(min(1.0, max(0.0, (s + 1) / 2 if config.distance == "dot" else s)) for s in similarities)
            enough = (len(used) >= config.min_chunks_for_hybrid and floor >= config.min_similarity_for_hybrid
                      and sum(len(gates.chunk_text(chunks[i])) for i in used) >= config.min_total_context_chars)
            return make_decision("hybrid" if enough else "fallback", used=used if enough else None, **kw)
    """,
    "the library's reference": """
        def decide_mode(similarities, chunks, *, config, query_tokens, used_llm_answer=None):
            return gates.decide_mode(similarities, chunks, config=config, query_tokens=query_tokens,
                                     used_llm_answer=used_llm_answer)
    """,
}


@pytest.mark.parametrize("mistake", sorted(P4_WRONG))
def test_part4_wrong_decide_mode_is_stopped_by_name(mistake):
    make, expected = P4_WRONG[mistake]
    ns = _define(make(p4_solution()), mistake)
    _stopped(lambda: checks.part4.check_decide_mode(ns["decide_mode"]), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P4_RIGHT)])
def test_part4_correct_decide_mode_passes_check_and_grade_cell(variant):
    ns = _define(p4_solution() if variant == "solution" else P4_RIGHT[variant], variant)
    checks.part4.check_decide_mode(ns["decide_mode"])
    _grade_cell_passes(P4, "check_todo1_decide_mode", ns)


# =============================================================== Part 5, TODO 1 and TODO 2
P5 = "part5"


def p5_validate() -> str:
    return _solution(P5, "todo1_validate_selection")


def p5_render() -> str:
    return _solution(P5, "todo2_render_grounded_answer")


P5V_WRONG = {
    "any iterable accepted": (lambda s: _edit(s, ("if not isinstance(selection, (list, tuple)) or not selection:",
                                                  "if selection is None or isinstance(selection, str) or not selection:")),
                              ["a set has no order", "only a list or tuple"]),
    "tuple refused": (lambda s: _edit(s, ("isinstance(selection, (list, tuple))", "isinstance(selection, list)")),
                      ["a tuple is accepted like a list"]),
    "duplicates kept": (lambda s: _edit(s, ("        if value not in chosen:\n            chosen.append(value)",
                                            "        chosen.append(value)")),
                        ["duplicates are dropped"]),
    "unknown ids dropped instead of rejecting": (lambda s: _edit(s, ("            return None\n        if value not in chosen:",
                                                                     "            continue\n        if value not in chosen:")),
                                                 ["EQ-99XX is not the id of any returned row", "one element that is not"]),
    "catalog ids trusted": (lambda s: _edit(s, ("known = {row.item_id for row in rows}",
                                                "known = {item.item_id for item in catalog.ITEMS}")),
                            ["was NOT among the returned rows"]),
    "case-insensitive ids": (lambda s: _edit(s, ("known = {row.item_id for row in rows}", "known = {row.item_id.lower() for row in rows}"),
                                             ("value not in known", "value.lower() not in known"),
                                             ("chosen.append(value)", "chosen.append(value.upper())")),
                             ["case matters"]),
    "spaces stripped": (lambda s: _edit(s, ("    for value in selection:\n",
                                            "    for value in selection:\n"
                                            "        value = value.strip() if isinstance(value, str) else value\n")),
                        ["no stray spaces"]),
    "empty list instead of None": (lambda s: _edit(s, (
        "if not isinstance(selection, (list, tuple)) or not selection:\n        return None",
        "if not isinstance(selection, (list, tuple)):\n        return None\n    if not selection:\n        return []")),
        ["an empty selection chooses nothing"]),
    "no type check on elements": (lambda s: _edit(s, ("if not isinstance(value, str) or value not in known:", "if value not in known:")),
                                  ["raised TypeError", "on this input: validate_selection("]),
    "tuple returned as given": (lambda s: _edit(s, ("    return chosen", "    return chosen if isinstance(selection, list) else selection")),
                                ["a tuple is accepted like a list (the result is a list)"]),
    "duplicates removed from the input in place": (lambda s: _edit(s, ("    return chosen", "    selection[:] = chosen\n    return chosen")),
                                                   ["changed the selection it was given", "never sort, remove from"]),
    "the input sorted": (lambda s: _edit(s, ("    known = {row.item_id for row in rows}",
                                             "    known = {row.item_id for row in rows}\n    if isinstance(selection, list):\n"
                                             "        selection.sort()")),
                         ["changed the selection it was given"]),
    "a tuple assigned into": (lambda s: _edit(s, ("    known = {row.item_id for row in rows}",
                                                  "    known = {row.item_id for row in rows}\n"
                                                  "    if isinstance(selection, tuple) and len(selection) > 1:\n"
                                                  "        selection[0] = selection[0].strip()\n")),
                              ["tried to change the tuple it was given"]),
    "dict keys read as ids": (lambda s: _edit(s, ("if not isinstance(selection, (list, tuple)) or not selection:",
                                                  "if isinstance(selection, dict):\n        selection = list(selection)\n"
                                                  "    if not isinstance(selection, (list, tuple)) or not selection:")),
                              ["a dict keyed by ids"]),
}

P5V_RIGHT = {
    "all() and dict.fromkeys": """
        def validate_selection(selection, rows):
            ids = {r.item_id for r in rows}
            if type(selection) not in (list, tuple) or len(selection) == 0:
                return None
            if not all(isinstance(x, str) and x in ids for x in selection):
                return None
            return list(dict.fromkeys(selection))
    """,
    "try/except on a set lookup": """
        def validate_selection(selection, rows):
            if not isinstance(selection, (list, tuple)) or not selection:
                return None
            index = {r.item_id: r for r in rows}
            seen = []
            for x in selection:
                if type(x) is not str:
                    return None
                try:
                    index[x]
                except KeyError:
                    return None
                seen += [] if x in seen else [x]
            return seen
    """,
}


@pytest.mark.parametrize("mistake", sorted(P5V_WRONG))
def test_part5_wrong_validate_selection_is_stopped_by_name(mistake):
    make, expected = P5V_WRONG[mistake]
    ns = _define(make(p5_validate()), mistake)
    _stopped(lambda: checks.part5.check_validate_selection(ns["validate_selection"]), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P5V_RIGHT)])
def test_part5_correct_validate_selection_passes_check_and_grade_cell(variant):
    ns = _define(p5_validate() if variant == "solution" else P5V_RIGHT[variant], variant)
    checks.part5.check_validate_selection(ns["validate_selection"])
    _grade_cell_passes(P5, "check_todo1_validate_selection", ns)


P5R_WRONG = {
    "header counts every row": (lambda s: _edit(s, ("grounded.answer_header(question, len(chosen))",
                                                    "grounded.answer_header(question, len(matches))")),
                                ["text differs", "n = the number of rows shown", "^"]),
    "no header": (lambda s: _edit(s, ("[grounded.answer_header(question, len(chosen))] + ", "")),
                  ["text differs", "answer_header"]),
    "blank lines between rows": (lambda s: _edit(s, ('return "\\n".join(', 'return "\\n\\n".join(')),
                                 ["text differs", "no blank lines"]),
    "selection ignored": (lambda s: _edit(s, ("chosen = [by_id[i] for i in ids] if ids is not None else list(matches)",
                                              "chosen = list(matches)")),
                          ["shows rows", "validate the selection first"]),
    "invents a row list when nothing matched": (lambda s: _edit(
        s, ("    if not matches:\n        return grounded.no_match_answer(question, [])\n", "")),
                                                ["with no rows at all", "no_match_answer"]),
    "values retyped instead of format_row": (lambda s: _edit(s, ("[grounded.format_row(m) for m in chosen]",
                                                                 "[f\"- {m.name} [{m.item_id}] ${m.price_usd}\" for m in chosen]")),
                                             ["not written with grounded.format_row"]),
    "rows in catalog order, not chosen order": (lambda s: _edit(s, ("chosen = [by_id[i] for i in ids] if ids is not None else list(matches)",
                                                                    "chosen = [m for m in matches if m.item_id in ids] "
                                                                    "if ids is not None else list(matches)")),
                                                ["in the chosen order"]),
    "nothing shown for an invalid selection": (lambda s: _edit(s, ("if ids is not None else list(matches)", "if ids is not None else []")),
                                               ["show every returned row"]),
    "an invalid selection answered as no match": (
        lambda s: _edit(s, ("    ids = validate_selection(selection, matches)\n",
                            "    ids = validate_selection(selection, matches)\n"
                            "    if selection is not None and ids is None:\n"
                            "        return grounded.no_match_answer(question, [])\n")),
        ["you answered that nothing matched, but 3 rows matched", "not a missing match"]),
    "question not normalised in the header": (lambda s: _edit(s, ("grounded.answer_header(question, len(chosen))",
                                                                  "f\"For \\u201c{question}\\u201d our catalog has {len(chosen)} items:\"")),
                                              ["text differs"]),
}

P5R_RIGHT = {
    "filter then join": """
        def render_grounded_answer(question, matches, selection=None):
            if len(matches) == 0:
                return grounded.no_match_answer(question, [])
            ok = validate_selection(selection, matches)
            rows = list(matches) if ok is None else [next(m for m in matches if m.item_id == i) for i in ok]
            lines = [grounded.answer_header(question, len(rows))]
            lines.extend(map(grounded.format_row, rows))
            return "\\n".join(lines)
    """,
    "string building": """
        def render_grounded_answer(question, matches, selection=None):
            if not matches:
                return grounded.no_match_answer(question, [])
            ids = validate_selection(selection, matches) or [m.item_id for m in matches]
            by = {m.item_id: m for m in matches}
            text = grounded.answer_header(question, len(ids))
            for i in ids:
                text += "\\n" + grounded.format_row(by[i])
            return text
    """,
}


@pytest.mark.parametrize("mistake", sorted(P5R_WRONG))
def test_part5_wrong_render_is_stopped_by_name(mistake):
    make, expected = P5R_WRONG[mistake]
    ns = _define(p5_validate(), "validate")
    _define(make(p5_render()), mistake, ns=ns)
    _stopped(lambda: checks.part5.check_render_answer(ns["render_grounded_answer"]), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P5R_RIGHT)])
def test_part5_correct_render_passes_check_and_grade_cell(variant):
    ns = _define(p5_validate(), "validate")
    _define(p5_render() if variant == "solution" else P5R_RIGHT[variant], variant, ns=ns)
    checks.part5.check_render_answer(ns["render_grounded_answer"])
    _grade_cell_passes(P5, "check_todo2_render_grounded_answer", ns)


def test_part5_a_wrong_validator_is_charged_to_todo1_only():
    """A right render beside a wrong validate_selection keeps TODO 2's points."""
    ns = _define(P5V_WRONG["duplicates kept"][0](p5_validate()), "wrong validate")
    _define(p5_render(), "render", ns=ns)
    with pytest.raises(CheckFailed):
        checks.part5.check_validate_selection(ns["validate_selection"])
    checks.part5.check_render_answer(ns["render_grounded_answer"])
    _grade_cell_passes(P5, "check_todo2_render_grounded_answer", ns)
    assert ns["validate_selection"] is not grounded.validate_selection  # the learner's own is back


# =============================================================== messages a person can read
def test_messages_are_wrapped_and_a_crash_names_its_input():
    ns = _define(P5V_WRONG["no type check on elements"][0](p5_validate()), "crash")
    _stopped(lambda: checks.part5.check_validate_selection(ns["validate_selection"]),
                       ["on this input: validate_selection([['EQ-20RF']], rows)"])
    with pytest.raises(CheckFailed) as err:
        checks.part5.check_validate_selection(ns["validate_selection"])
    shown = err.value._render_traceback_()[1]
    assert "on this input" in shown and max(len(line) for line in shown.splitlines()) <= checks.WIDTH + 30


# =============================================================== Part 6, TODO 1 (agent_turn)
P6 = "part6"


def p6_solution() -> str:
    return _solution(P6, "todo2_agent_turn")


TOOL_MESSAGE_LINE = '            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})\n'
P6_WRONG = {
    "no break after the answer": (lambda s: _edit(s, ("            answer = reply.content\n            break\n",
                                                      "            answer = reply.content\n")),
                                  ["times", "break out of the loop"]),
    "tool results before the tool_calls message": (
        lambda s: _edit(s, ("        messages.append(loop.assistant_message(reply))\n", ""),
                        ("            messages.append({\"role\": \"tool\", \"tool_call_id\": call.id, \"content\": result.content})\n",
                         "            messages.append({\"role\": \"tool\", \"tool_call_id\": call.id, \"content\": result.content})\n"
                         "        messages.append(loop.assistant_message(reply))\n")),
        ["right after the assistant's tool_calls message"]),
    "tool message without its id": (lambda s: _edit(s, ('"tool_call_id": call.id, ', "")), ["tool_call_id"]),
    "budget ignored": (lambda s: _edit(s, ("        if clock() >= deadline:\n            break\n", "")),
                       ["budget was ignored"]),
    "no forced answer": (lambda s: _edit(s, ("        answer = llm.chat(messages + [{\"role\": \"user\", \"content\": loop.FORCE_ANSWER}]).content\n",
                                             "        answer = \"\"\n")),
                         ["WITHOUT tools"]),
    "forced call still offers tools": (lambda s: _edit(s, ("llm.chat(messages + [{\"role\": \"user\", \"content\": loop.FORCE_ANSWER}])",
                                                           "llm.chat(messages + [{\"role\": \"user\", \"content\": loop.FORCE_ANSWER}], "
                                                           "tools=registry.schemas())")),
                                       ["WITHOUT tools"]),
    "a failing tool crashes the loop": (lambda s: _edit(s, ("            result = registry.dispatch(call.id, call.name, call.arguments)\n",
                                                            "            registry.tools[call.name].fn(**json.loads(call.arguments))\n"
                                                            "            result = registry.dispatch(call.id, call.name, call.arguments)\n")),
                                        ["raised", "a failing tool"]),
    "thread not logged": (lambda s: _edit(s, ("    memory.log_message(eng, thread_id, \"user\", question)\n", ""),
                                          ("    memory.log_message(eng, thread_id, \"assistant\", answer)\n", "")),
                          ["thread should hold"]),
    "tool output not stored": (lambda s: _edit(s, ("            memory.store_tool_output(eng, thread_id, result)\n", "")),
                               ["tool_output memory"]),
    "no iteration cap": (lambda s: _edit(s, ("    for _ in range(max_iterations):", "    while True:")),
                         ["never stopped", "loop at most max_iterations times", "while True"]),
    "tool results never sent back": (lambda s: _edit(s, (TOOL_MESSAGE_LINE, "")),
                                     ["right after the assistant's tool_calls message"]),
    "question logged after the loop": (lambda s: _edit(s, ("    memory.log_message(eng, thread_id, \"user\", question)\n", ""),
                                                        ("    memory.log_message(eng, thread_id, \"assistant\", answer)\n",
                                                         "    memory.log_message(eng, thread_id, \"user\", question)\n"
                                                         "    memory.log_message(eng, thread_id, \"assistant\", answer)\n")),
                                       ["question must be logged FIRST", "first line of agent_turn"]),
    "deadline compared with >": (lambda s: _edit(s, ("if clock() >= deadline:", "if clock() > deadline:")),
                                 ["read exactly the deadline", "clock() >= deadline"]),
    "deadline checked after the model call": (
        lambda s: _edit(s, ("        if clock() >= deadline:\n            break\n", ""),
                        ("        reply = llm.chat(messages, tools=registry.schemas())\n",
                         "        reply = llm.chat(messages, tools=registry.schemas())\n"
                         "        if clock() >= deadline:\n            break\n")),
        ["checked after the model call", "START of each iteration"]),
    "deadline checked at the end of the iteration": (
        lambda s: _edit(s, ("        if clock() >= deadline:\n            break\n", ""),
                        (TOOL_MESSAGE_LINE, TOOL_MESSAGE_LINE + "        if clock() >= deadline:\n            break\n")),
        ["checked after the model call"]),
    "the wall clock instead of the given clock": (lambda s: _edit(s, ("deadline = clock() + budget_s", "deadline = time.monotonic() + budget_s"),
                                                                  ("if clock() >= deadline", "if time.monotonic() >= deadline")),
                                                  ["budget was ignored", "use the clock you are given"]),
    "full output instead of the preview": (lambda s: _edit(s, ('"content": result.content}', '"content": result.full}')),
                                           ["full output", "send result.content"]),
    "forced-answer instruction kept in messages": (
        lambda s: _edit(s, ("        answer = llm.chat(messages + [{\"role\": \"user\", \"content\": loop.FORCE_ANSWER}]).content\n",
                            "        messages.append({\"role\": \"user\", \"content\": loop.FORCE_ANSWER})\n"
                            "        answer = llm.chat(messages).content\n")),
        ["forced-answer instruction", "not messages.append"]),
    "context ignored": (lambda s: _edit(s, ('system = loop.SYSTEM_PROMPT + ("\\n\\n" + context if context else "")',
                                            "system = loop.SYSTEM_PROMPT")),
                        ["never reached the model"]),
    "context always appended": (lambda s: _edit(s, ('system = loop.SYSTEM_PROMPT + ("\\n\\n" + context if context else "")',
                                                    'system = loop.SYSTEM_PROMPT + "\\n\\n" + context')),
                                ["with context='' the system message", "only when context is not empty"]),
    "context sent as a user message": (
        lambda s: _edit(s, ('system = loop.SYSTEM_PROMPT + ("\\n\\n" + context if context else "")', "system = loop.SYSTEM_PROMPT"),
                        ('{"role": "user", "content": question}]',
                         '{"role": "user", "content": question}] + ([{"role": "user", "content": context}] if context else [])')),
        ["the context went into another message"]),
    "tool objects passed as schemas": (lambda s: s.replace("tools=registry.schemas()", "tools=list(registry.tools.values())"),
                                       ["not the Tool objects"]),
    "failed tool outputs not stored": (lambda s: _edit(s, ("            memory.store_tool_output(eng, thread_id, result)\n",
                                                           "            if result.ok:\n"
                                                           "                memory.store_tool_output(eng, thread_id, result)\n")),
                                       ["outputs of failed tool calls must be stored too", "whether result.ok or not"]),
    "an empty message list returned": (lambda s: _edit(s, ("loop.TurnResult(answer=answer, messages=messages)",
                                                           "loop.TurnResult(answer=answer, messages=[])")),
                                       ["the TurnResult's messages hold the roles []", "the same `messages` list"]),
    "schemas method passed uncalled": (lambda s: s.replace("tools=registry.schemas()", "tools=registry.schemas"),
                                       ["not a list of tool schemas", "call it"]),
    "stops on content when the reply also calls tools": (
        lambda s: _edit(s, ("        if not reply.tool_calls:\n", "        if reply.content or not reply.tool_calls:\n")),
        ["stopped on the text", "reply.tool_calls alone"]),
    "a string returned": (lambda s: _edit(s, ("    return loop.TurnResult(answer=answer, messages=messages)", "    return answer")),
                          ["returned the string", "loop.TurnResult(answer=answer, messages=messages)"]),
    "a dict returned": (lambda s: _edit(s, ("    return loop.TurnResult(answer=answer, messages=messages)",
                                            "    return {\"answer\": answer, \"messages\": messages}")),
                        ["expected a loop.TurnResult"]),
    "the deadline is budget_s alone": (lambda s: _edit(s, ("deadline = clock() + budget_s", "deadline = budget_s")),
                                       ["stopped before its first model call", "deadline = clock() + budget_s"]),
    "the reply object appended": (lambda s: _edit(s, ("        messages.append(loop.assistant_message(reply))\n",
                                                      "        messages.append(reply)\n")),
                                  ["was a Reply, not a dict", "loop.assistant_message(reply)"]),
    "the forced answer never logged": (
        lambda s: _edit(s, ("            answer = reply.content\n            break\n",
                            "            answer = reply.content\n            memory.log_message(eng, thread_id, \"assistant\", answer)\n"
                            "            break\n"),
                        ("    memory.log_message(eng, thread_id, \"assistant\", answer)\n    return", "    return")),
        ["the thread should hold the question then the answer", "whichever way the answer came"]),
    "arguments parsed by hand": (lambda s: _edit(s, ("            result = registry.dispatch(call.id, call.name, call.arguments)\n",
                                                     "            json.loads(call.arguments)\n"
                                                     "            result = registry.dispatch(call.id, call.name, call.arguments)\n")),
                                 ["raised JSONDecodeError", "must never crash the turn", "registry.dispatch"]),
    "messages rebuilt every iteration": (
        lambda s: _edit(s, ("    messages = [{\"role\": \"system\", \"content\": system}, {\"role\": \"user\", \"content\": question}]\n", ""),
                        ("    for _ in range(max_iterations):\n",
                         "    for _ in range(max_iterations):\n"
                         "        messages = [{\"role\": \"system\", \"content\": system}, {\"role\": \"user\", \"content\": question}]\n"),),
        ["exactly the messages of the first", "BEFORE the loop"]),
}

P6_RIGHT = {
    "while loop with a counter": """
        def agent_turn(llm, registry, thread_id, question, *, context="", max_iterations=5, budget_s=60.0, clock=time.monotonic):
            memory.log_message(eng, thread_id, "user", question)
            prompt = loop.SYSTEM_PROMPT if not context else loop.SYSTEM_PROMPT + "\\n\\n" + context
            msgs = [{"role": "system", "content": prompt}, {"role": "user", "content": question}]
            stop_at, n, text = clock() + budget_s, 0, None
            while n < max_iterations and clock() < stop_at:
                n += 1
                reply = llm.chat(msgs, tools=registry.schemas())
                if not reply.tool_calls:
                    text = reply.content
                    break
                msgs.append(loop.assistant_message(reply))
                results = [registry.dispatch(c.id, c.name, c.arguments) for c in reply.tool_calls]
                for c, r in zip(reply.tool_calls, results):
                    memory.store_tool_output(eng, thread_id, r)
                    msgs.append({"role": "tool", "tool_call_id": c.id, "content": r.content})
            if text is None:
                text = llm.chat(msgs + [{"role": "user", "content": loop.FORCE_ANSWER}]).content
            memory.log_message(eng, thread_id, "assistant", text)
            return loop.TurnResult(answer=text, messages=msgs)
    """,
    "the library's loop": """
        def agent_turn(llm, registry, thread_id, question, **options):
            return loop.agent_turn(eng, llm, registry, thread_id, question, **options)
    """,
    "time left, a joined prompt and extra clock readings": """
        def agent_turn(llm, registry, thread_id, question, *, context="", max_iterations=5, budget_s=60.0, clock=time.monotonic):
            memory.log_message(eng, thread_id, "user", question)
            started = clock()
            left = lambda: started + budget_s - clock()
            history = [dict(role="system", content="\\n\\n".join(p for p in (loop.SYSTEM_PROMPT, context) if p)),
                       dict(role="user", content=question)]
            final = None
            for step in range(1, max_iterations + 1):
                if left() <= 0:
                    break
                reply = llm.chat(history, tools=registry.schemas())
                elapsed = clock() - started  # read for a log line; reading the clock costs nothing
                if len(reply.tool_calls) == 0:
                    final = reply.content
                    break
                history.append(loop.assistant_message(reply))
                for call in reply.tool_calls:
                    outcome = registry.dispatch(call.id, call.name, call.arguments)
                    memory.store_tool_output(eng, thread_id, outcome)
                    history.append(dict(role="tool", tool_call_id=call.id, content=outcome.content))
            if final is None:
                final = llm.chat([*history, dict(role="user", content=loop.FORCE_ANSWER)]).content
            memory.log_message(eng, thread_id, "assistant", final)
            return loop.TurnResult(answer=final, messages=history, model_calls=step)
    """,
}


def _p6_namespace(eng) -> dict:
    import time

    from workshop_lib.parts.agent import loop, memory

    ns = _namespace(eng)
    ns.update({"time": time, "loop": loop, "memory": memory, "json": json})
    return ns


def test_parts_6_and_7_have_fifteen_wrong_and_three_correct_versions_per_todo():
    for wrong, right in [(P6T_WRONG, P6T_RIGHT), (P6_WRONG, P6_RIGHT), (P7S_WRONG, P7S_RIGHT), (P7G_WRONG, P7G_RIGHT)]:
        assert len(wrong) >= 15 and len(right) + 1 >= 3  # + 1: the solution itself


@pytest.mark.parametrize("mistake", sorted(P6_WRONG))
def test_part6_wrong_agent_turn_is_stopped_by_name(mistake, seeded_engine):
    make, expected = P6_WRONG[mistake]
    ns = _define(make(p6_solution()), mistake, ns=_p6_namespace(seeded_engine))
    _stopped(lambda: checks.part6.check_agent_turn(ns["agent_turn"], seeded_engine), expected)
    assert seeded_engine.store.list("message", limit=None) == []  # the check cleaned up its threads


@pytest.mark.parametrize("variant", ["solution", *sorted(P6_RIGHT)])
def test_part6_correct_agent_turn_passes_check_and_grade_cell(variant, seeded_engine):
    source = p6_solution() if variant == "solution" else P6_RIGHT[variant]
    ns = _define(source, variant, ns=_p6_namespace(seeded_engine))
    checks.part6.check_agent_turn(ns["agent_turn"], seeded_engine)
    _grade_cell_passes(P6, "check_todo2_agent_turn", ns)


# =============================================================== Part 6, TODO 1 (count_rows tool)
def p6_tool() -> str:
    return _solution(P6, "todo1_count_rows")


VALIDATION = "    if name not in SUPPLYCHAIN_TABLES:\n"
RAISE_LINE = ("        raise ValueError(f\"unknown table {table!r}; the tables are: "
              "{', '.join(sorted(SUPPLYCHAIN_TABLES))}\")")
COUNT_LINE = '    return str(eng.supplychain.read_only_query(f"SELECT COUNT(*) AS N FROM {name}").rows[0][0])'
P6T_WRONG = {
    "no upper-casing": (lambda s: _edit(s, ("name = table.strip().upper()", "name = table.strip()")),
                        ["lower-case name", "upper-case it"]),
    "no stripping": (lambda s: _edit(s, ("name = table.strip().upper()", "name = table.upper()")),
                     ["spaces around the name", "strip them"]),
    "no validation": (lambda s: _edit(s, (VALIDATION, "    if False:\n")),
                      ["reached the database", "validate BEFORE any query"]),
    "unknown table answered with 0": (lambda s: _edit(s, (RAISE_LINE, "        return \"0\"")),
                                      ["must be an error the model can read"]),
    "error without the valid tables": (lambda s: _edit(s, ("; the tables are: {', '.join(sorted(SUPPLYCHAIN_TABLES))}", "")),
                                       ["does not tell the model which tables exist"]),
    "the whole table text returned": (lambda s: _edit(s, ('.rows[0][0])', '.as_text())'), ("return str(", "return (")),
                                      ["return just the number"]),
    "always counts VOYAGES": (lambda s: _edit(s, ("FROM {name}", "FROM VOYAGES")),
                              ["does not read PORTS", "put the checked name into the SQL"]),
    "still a stub": (lambda s: _edit(s, ("    name = table.strip().upper()\n", "    raise NotImplementedError()\n")),
                     ["not implemented yet"]),
    "wrong parameter name": (lambda s: _edit(s, ("def count_rows(table: str)", "def count_rows(name: str)"),
                                             ("name = table.strip().upper()", "name = name.strip().upper()"),
                                             ("unknown table {table!r}", "unknown table {name!r}")),
                             ["one required string parameter `table`"]),
    "a hand-typed list of two tables": (lambda s: _edit(s, (VALIDATION, "    if name not in (\"VOYAGES\", \"PORTS\"):\n")),
                                        ["your list of valid tables misses it", "not against a list typed by hand"]),
    "a hand-typed list missing one table": (
        lambda s: _edit(s, (VALIDATION, "    if name not in {\"CARRIERS\", \"PORTS\", \"VESSELS\", \"VOYAGES\", \"CONTAINERS\"}:\n")),
        ["your list of valid tables misses it"]),
    "validation by substring of a string": (lambda s: _edit(s, (VALIDATION, "    if name not in \" \".join(SUPPLYCHAIN_TABLES):\n")),
                                            ["reached the database", "a fragment of a table name", "whole name"]),
    "validation by any(name in t)": (lambda s: _edit(s, (VALIDATION, "    if not any(name in t for t in SUPPLYCHAIN_TABLES):\n")),
                                     ["reached the database", "or the empty string through"]),
    "KeyError instead of ValueError": (lambda s: _edit(s, ("raise ValueError(", "raise KeyError(")),
                                       ["raised KeyError", "expected ValueError"]),
    "a bare Exception": (lambda s: _edit(s, ("raise ValueError(", "raise Exception(")),
                         ["raised Exception", "expected ValueError"]),
    "an assert as validation": (lambda s: _edit(s, (VALIDATION + RAISE_LINE,
                                                    "    assert name in SUPPLYCHAIN_TABLES, f\"unknown table; the tables "
                                                    "are: {', '.join(sorted(SUPPLYCHAIN_TABLES))}\"")),
                                ["raised AssertionError", "expected ValueError"]),
    "counted with eng.query": (lambda s: _edit(s, (COUNT_LINE, '    return str(eng.query(f"SELECT COUNT(*) FROM {name}")[0][0])')),
                               ["eng.query(", "skips the read-only boundary"]),
    "counted with supplychain.counts": (  # Part 1's module: a plain query on the engine, not the boundary
        lambda s: _edit(s, (COUNT_LINE, "    from workshop_lib.data import supplychain\n"
                                        "    return str({k.upper(): v for k, v in supplychain.counts(eng).items()}[name])")),
        ["eng.query('SELECT COUNT(*) FROM SUPPLYCHAIN.", "skips the read-only boundary"]),
    "counted on a cursor": (
        lambda s: _edit(s, (COUNT_LINE, '    with eng.cursor() as cur:\n'
                                        '        return str(cur.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])')),
        ["has no attribute 'cursor'", "eng.supplychain.read_only_query("]),  # private to the engines
    "counted on the raw connection": (  # the driver's connection is private to the engine: the tool fails
        lambda s: _edit(s, (COUNT_LINE, '    return str(eng.conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])')),
        ["has no attribute 'conn'", "eng.supplychain.read_only_query("]),
    "query first, validate on failure": (
        lambda s: _edit(s, (VALIDATION + RAISE_LINE + "\n" + COUNT_LINE,
                            "    try:\n"
                            '        return str(eng.supplychain.read_only_query(f"SELECT COUNT(*) AS N FROM {name}").rows[0][0])\n'
                            "    except Exception:\n"
                            "    " + RAISE_LINE.strip("\n") + " from None")),
        ["reached the database", "validate BEFORE any query", "a failed query is not a validation"]),
    "rows fetched and counted in Python": (
        lambda s: _edit(s, (COUNT_LINE, '    return str(len(eng.supplychain.read_only_query(f"SELECT * FROM {name}").rows))')),
        ["returned 50", "stops at the cap"]),
    "counts kept from the first run": (
        lambda s: "COUNTS = {t: eng.supplychain.read_only_query(f'SELECT COUNT(*) FROM {t}').rows[0][0] for t in SUPPLYCHAIN_TABLES}\n"
        + _edit(s, (COUNT_LINE, "    return str(COUNTS[name])")),
        ["without running a query"]),
}

P6T_RIGHT = {
    "a dict of counts": '''
        @registry.tool
        def count_rows(table: str) -> str:
            """Count the rows of one SUPPLYCHAIN table.

            Args:
                table: the table name, e.g. VOYAGES
            """
            wanted = table.upper().strip()
            if wanted not in SUPPLYCHAIN_TABLES:
                raise ValueError("unknown table; choose one of " + ", ".join(sorted(SUPPLYCHAIN_TABLES)))
            return f"{eng.supplychain.read_only_query('SELECT COUNT(*) FROM ' + wanted).rows[0][0]}"
    ''',
    "an int return value": '''
        @registry.tool
        def count_rows(table: str) -> int:
            """How many rows one SUPPLYCHAIN table has."""
            key = table.strip().upper()
            if key not in SUPPLYCHAIN_TABLES:
                raise ValueError(f"no table {key}; valid: {sorted(SUPPLYCHAIN_TABLES)}")
            return int(eng.supplychain.read_only_query(f"SELECT COUNT(*) AS N FROM {key}").rows[0][0])
    ''',
    "the dictionary read inside the tool": '''
        @registry.tool
        def count_rows(table: str) -> str:
            """Count rows of a SUPPLYCHAIN table."""
            names = sorted(t["table"] for t in eng.supplychain.data_dictionary("SUPPLYCHAIN")["tables"])
            name = " ".join(table.split()).upper()
            if name not in names:
                raise ValueError(f"{table!r} is not a SUPPLYCHAIN table. Tables: {names}")
            result = eng.supplychain.read_only_query("SELECT COUNT(*) FROM " + name, max_rows=1)
            return str(result.rows[0][0])
    ''',
}


def _p6_tool_namespace(eng) -> dict:
    from workshop_lib.parts.agent.tools import ToolRegistry

    ns = _p6_namespace(eng)
    ns["registry"] = ToolRegistry()
    ns["SUPPLYCHAIN_TABLES"] = {t["table"] for t in eng.supplychain.data_dictionary("SUPPLYCHAIN")["tables"]}
    return ns


@pytest.mark.parametrize("mistake", sorted(P6T_WRONG))
def test_part6_wrong_count_rows_is_stopped_by_name(mistake, seeded_engine):
    make, expected = P6T_WRONG[mistake]
    ns = _define(make(p6_tool()), mistake, ns=_p6_tool_namespace(seeded_engine))
    _stopped(lambda: checks.part6.check_count_rows(ns["registry"], seeded_engine), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P6T_RIGHT)])
def test_part6_correct_count_rows_passes_check_and_grade_cell(variant, seeded_engine):
    ns = _define(p6_tool() if variant == "solution" else P6T_RIGHT[variant], variant,
                 ns=_p6_tool_namespace(seeded_engine))
    checks.part6.check_count_rows(ns["registry"], seeded_engine)
    _grade_cell_passes(P6, "check_todo1_count_rows", ns)


# =============================================================== Part 8, TODO 1 (window_spans)
P7 = "part8"


def p7_spans() -> str:
    return _solution(P7, "todo1_window_spans")


def _p7_namespace() -> dict:
    from workshop_lib.parts.ingest.promotion import PromotionDecision

    return {**_namespace(), "PromotionDecision": PromotionDecision}


P7S_WRONG = {
    "windows side by side (step = size)": (lambda s: _edit(s, ("start += size - overlap", "start += size")),
                                           ["do not overlap", "size - overlap"]),
    "step = overlap": (lambda s: _edit(s, ("start += size - overlap", "start += overlap")), ["endless loop"]),
    "step = size + overlap": (lambda s: _edit(s, ("start += size - overlap", "start += size + overlap")),
                              ["leaves gaps", "size - overlap"]),
    "no break at the end": (lambda s: _edit(s, ("        if end == n_units:\n            break\n", "")),
                            ["lies wholly inside", "break right after appending"]),
    "end not clamped": (lambda s: _edit(s, ("end = min(start + size, n_units)", "end = start + size")),
                        ["ends past n_units", "min(start + size, n_units)"]),
    "tail dropped": (lambda s: _edit(s, ("while start < n_units:", "while start + size <= n_units:")),
                     ["would never be embedded"]),
    "no argument check": (lambda s: _edit(s, ("    if size < 1 or not 0 <= overlap < size:\n        raise ValueError(",
                                              "    if False:\n        raise ValueError(")),
                          ["overlap equal to size", "raise ValueError unless size >= 1"]),
    "negative overlap accepted": (lambda s: _edit(s, ("not 0 <= overlap < size", "not overlap < size")),
                                  ["a negative overlap", "instead of raising ValueError"]),
    "an empty document gives (0, 0)": (lambda s: _edit(s, ("while start < n_units:", "while True:")),
                                       ["empty document has no windows"]),
    "still a stub": (lambda s: _edit(s, ("    if size < 1 or not", "    raise NotImplementedError()\n    if size < 1 or not")),
                     ["not implemented yet"]),
    "a list of lists of the wrong shape": (lambda s: _edit(s, ("spans.append((start, end))", "spans.append(start)")),
                                           ["expected a list of (start, end) pairs"]),
    "(start, length) pairs": (lambda s: _edit(s, ("spans.append((start, end))", "spans.append((start, end - start))")),
                              ["(start, length)", "end = min(start + size, n_units)"]),
    "inclusive end": (lambda s: _edit(s, ("end = min(start + size, n_units)", "end = min(start + size - 1, n_units)")),
                      ["ends one unit early", "half-open"]),
    "inclusive end, stopping at n_units - 1": (
        lambda s: _edit(s, ("end = min(start + size, n_units)", "end = min(start + size, n_units) - 1"),
                        ("if end == n_units:", "if end == n_units - 1:")),
        ["ends one unit early", "not an inclusive end"]),
    "the first window starts at 1": (lambda s: _edit(s, ("spans, start = [], 0", "spans, start = [], 1")),
                                     ["must start at 0"]),
    "a step of size // 2": (lambda s: _edit(s, ("start += size - overlap", "start += max(1, size // 2)")),
                            ["the step is size - overlap"]),
    "overlap equal to size accepted": (lambda s: _edit(s, ("not 0 <= overlap < size", "not 0 <= overlap <= size")),
                                       ["overlap equal to size", "endless loop"]),
    "the last window moved back to full size": (
        lambda s: _edit(s, ("        end = min(start + size, n_units)\n",
                            "        if start + size > n_units:\n            start = max(0, n_units - size)\n"
                            "        end = min(start + size, n_units)\n")),
        ["moved back to be a full window", "clamp only its end"]),
    "while start <= n_units": (lambda s: _edit(s, ("while start < n_units:", "while start <= n_units:")),
                               ["empty document has no windows"]),
    "the break before the append": (lambda s: _edit(s, ("        spans.append((start, end))\n        if end == n_units:\n            break\n",
                                                        "        if end == n_units:\n            break\n        spans.append((start, end))\n")),
                                    ["would never be embedded"]),
}

P7S_RIGHT = {
    "range over the starts": '''
        def window_spans(n_units, size, overlap):
            if size < 1 or overlap < 0 or overlap >= size:
                raise ValueError("bad size/overlap")
            if n_units == 0:
                return []
            step = size - overlap
            out = []
            for start in range(0, n_units, step):
                out.append((start, min(start + size, n_units)))
                if start + size >= n_units:
                    break
            return out
    ''',
    "a generator": '''
        def window_spans(n_units, size, overlap):
            if not (size >= 1 and 0 <= overlap < size):
                raise ValueError(f"size={size} overlap={overlap}")
            start = 0
            while start < n_units:
                yield [start, min(n_units, start + size)]
                if start + size >= n_units:
                    return
                start = start + size - overlap
    ''',
    "recursion": '''
        def window_spans(n_units, size, overlap, start=0):
            if size <= 0 or overlap < 0 or overlap >= size:
                raise ValueError("overlap must be in [0, size)")
            if start >= n_units:
                return []
            end = min(start + size, n_units)
            return [(start, end)] + ([] if end == n_units else window_spans(n_units, size, overlap, start + size - overlap))
    ''',
    "count the windows first": '''
        import math

        def window_spans(n_units, size, overlap):
            if size < 1 or overlap < 0 or overlap > size - 1:
                raise ValueError("need 0 <= overlap < size")
            if n_units <= 0:
                return []
            step = size - overlap
            count = 1 if n_units <= size else 1 + math.ceil((n_units - size) / step)
            return [(i * step, min(i * step + size, n_units)) for i in range(count)]
    ''',
}


@pytest.mark.parametrize("mistake", sorted(P7S_WRONG))
def test_part8_wrong_window_spans_is_stopped_by_name(mistake):
    make, expected = P7S_WRONG[mistake]
    ns = _define(make(p7_spans()), mistake, ns=_p7_namespace())
    _stopped(lambda: checks.part8.check_window_spans(ns["window_spans"]), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P7S_RIGHT)])
def test_part8_correct_window_spans_passes_check_and_grade_cell(variant):
    ns = _define(p7_spans() if variant == "solution" else P7S_RIGHT[variant], variant, ns=_p7_namespace())
    checks.part8.check_window_spans(ns["window_spans"])
    _grade_cell_passes(P7, "check_todo1_window_spans", ns)


# =============================================================== Part 8, TODO 2 (should_promote)
def p7_gate() -> str:
    return _solution(P7, "todo2_should_promote")


P7G_WRONG = {
    "strict > for the bar": (lambda s: _edit(s, ("candidate.recall < min_recall", "candidate.recall <= min_recall")),
                             ["recall exactly at the bar", ">= min_recall"]),
    "the active index ignored": (lambda s: _edit(s, ("active is not None and candidate.recall < active.recall", "False")),
                                 ["worse than the active", "candidate.recall < active.recall"]),
    "crashes before the first promotion": (lambda s: _edit(s, ("if active is not None and candidate.recall < active.recall",
                                                              "if candidate.recall < active.recall")),
                                           ["AttributeError", "active=None"]),
    "a tie with the active refused": (lambda s: _edit(s, ("candidate.recall < active.recall:", "candidate.recall <= active.recall:")),
                                      ["as good as the active", "use <, not <="]),
    "better than the active skips the bar": (lambda s: _edit(s, ("    if candidate.recall < min_recall:",
                                                                 "    if active is not None and candidate.recall > active.recall:\n"
                                                                 "        return PromotionDecision(True, 'better than the active')\n"
                                                                 "    if candidate.recall < min_recall:")),
                                             ["below the bar but better than the active", "check the bar first"]),
    "no check for zero questions": (lambda s: _edit(s, ("    if candidate.n == 0:\n", "    if False:\n")),
                                    ["no golden queries ran", "candidate.n == 0"]),
    "a tuple instead of a PromotionDecision": (lambda s: s.replace("return PromotionDecision(", "return ("), ["expected a PromotionDecision"]),
    "an empty reason": (lambda s: _edit(s, ('return PromotionDecision(True, f"{candidate.table}: recall {candidate.recall:.2f} '
                                            'reaches the bar {min_recall:.2f}")', 'return PromotionDecision(True, "")')),
                        ["has no reason"]),
    "hits compared instead of recall": (lambda s: _edit(s, ("candidate.recall < active.recall:", "candidate.hits < active.hits:")),
                                        ["worse than the active"]),
    "still a stub": (lambda s: _edit(s, ("    if candidate.n == 0:\n", "    raise NotImplementedError()\n    if candidate.n == 0:\n")),
                     ["not implemented yet"]),
    "promote is the recall, not a bool": (lambda s: _edit(s, ('return PromotionDecision(True, f"{candidate.table}: recall',
                                                              'return PromotionDecision(candidate.recall, f"{candidate.table}: recall')),
                                          ["must be True or False"]),
    "reasons without the numbers": (lambda s: _edit(s, (
        'return PromotionDecision(False, f"{candidate.table}: recall {candidate.recall:.2f} is below the bar {min_recall:.2f}")',
        'return PromotionDecision(False, f"{candidate.table} is below the bar")')),
        ["does not give the numbers", "the bar 0.80"]),
    "the active's recall left out of the reason": (lambda s: _edit(s, (
        "is worse than {active.table}'s {active.recall:.2f}\")", "is worse than the active index\")")),
        ["does not give the numbers", "DOCS_V2's recall 0.90"]),
    "recall rounded before comparing with the bar": (lambda s: _edit(s, ("if candidate.recall < min_recall:",
                                                                         "if round(candidate.recall, 2) < min_recall:")),
                                                     ["just below the bar", "never a rounded one"]),
    "recalls rounded before comparing with the active": (
        lambda s: _edit(s, ("candidate.recall < active.recall:", "round(candidate.recall, 1) < round(active.recall, 1):")),
        ["just worse than the active", "never rounded ones"]),
    "hits == 0 instead of n == 0": (lambda s: _edit(s, ("if candidate.n == 0:", "if candidate.hits == 0:")),
                                    ["no hits, questions ran, bar 0", "candidate.hits == 0 on 10 questions", "candidate.n == 0"]),
    "recall computed by dividing by n": (lambda s: _edit(s, ("    if candidate.n == 0:\n",
                                                             "    recall = candidate.hits / candidate.n\n    if False:\n")),
                                         ["divided by zero", "refuse first when candidate.n == 0"]),
    "recall computed as hits / k": (lambda s: s.replace("candidate.recall", "(candidate.hits / candidate.k)")
                                    .replace("active.recall", "(active.hits / active.k)"),
                                    ["hits / k (9/5)", "the recall is hits / n"]),
    "recall as hits / k in the comparisons only": (
        lambda s: s.replace("if candidate.recall < min_recall", "if candidate.hits / candidate.k < min_recall")
        .replace("candidate.recall < active.recall", "candidate.hits / candidate.k < active.hits / active.k"),
        ["you computed recall as hits / k", "instead of hits / n", "candidate.recall is already hits / n"]),
    "recall in the reason as hits / k": (lambda s: _edit(s, (
        'return PromotionDecision(True, f"{candidate.table}: recall {candidate.recall:.2f} reaches',
        'return PromotionDecision(True, f"{candidate.table}: recall {candidate.hits / candidate.k:.2f} reaches')),
        ["gives recall 1.80, which is hits / k (9/5)", "recall is hits / n"]),
    "the bar replaced by the active's recall": (lambda s: _edit(s, ("if candidate.recall < min_recall:",
                                                                    "if candidate.recall < (active.recall if active else min_recall):")),
                                                ["below the bar but better than the active", "check the bar first"]),
}

P7G_RIGHT = {
    "one boolean expression": '''
        def should_promote(candidate, active, min_recall):
            ok = candidate.n > 0 and candidate.recall >= min_recall and (active is None or candidate.recall >= active.recall)
            return PromotionDecision(promote=ok, reason=f"recall {candidate.recall:.2f}, bar {min_recall}, "
                                               f"active {active.recall if active else 'none'}")
    ''',
    "promote last, reasons collected": '''
        def should_promote(candidate, active, min_recall):
            problems = []
            if not candidate.n:
                problems.append("no golden queries")
            elif candidate.recall < min_recall:
                problems.append(f"{candidate.recall:.0%} < bar {min_recall:.0%}")
            elif active and active.recall > candidate.recall:
                problems.append(f"{candidate.hits}/{candidate.n} is worse than {active.table}'s {active.hits}/{active.n}")
            return PromotionDecision(not problems, "; ".join(problems) or f"{candidate.recall:.1%} is good enough")
    ''',
    "exact fractions and percentages": '''
        from fractions import Fraction

        def should_promote(candidate, active, min_recall):
            if candidate.n <= 0:
                return PromotionDecision(False, "no golden queries ran, so recall is unknown")
            mine = Fraction(candidate.hits, candidate.n)
            if mine < Fraction(str(min_recall)):
                return PromotionDecision(False, f"recall {float(mine):.1%} < bar {min_recall:.0%}")
            if active is not None and active.n and mine < Fraction(active.hits, active.n):
                return PromotionDecision(False, f"recall {float(mine):.1%} < active {active.recall:.1%}")
            return PromotionDecision(True, f"recall {float(mine):.1%} >= bar {min_recall:.0%}")
    ''',
}


@pytest.mark.parametrize("mistake", sorted(P7G_WRONG))
def test_part8_wrong_gate_is_stopped_by_name(mistake):
    make, expected = P7G_WRONG[mistake]
    ns = _define(make(p7_gate()), mistake, ns=_p7_namespace())
    _stopped(lambda: checks.part8.check_should_promote(ns["should_promote"]), expected)


@pytest.mark.parametrize("variant", ["solution", *sorted(P7G_RIGHT)])
def test_part8_correct_gate_passes_check_and_grade_cell(variant):
    ns = _define(p7_gate() if variant == "solution" else P7G_RIGHT[variant], variant, ns=_p7_namespace())
    checks.part8.check_should_promote(ns["should_promote"])
    _grade_cell_passes(P7, "check_todo2_should_promote", ns)

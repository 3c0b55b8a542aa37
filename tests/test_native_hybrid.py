"""Part 3's comparison with Oracle's native hybrid search (DBMS_HYBRID_VECTOR.SEARCH over a
hybrid vector index): the statements parse, the JSON parameters are the documented ones, the
embedded engine says why it has none, and on the Oracle lane both searches run on one probe."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import sqlglot

from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.oracle.text_query import NO_MATCH_EXPRESSION, keyword_expression
from workshop_lib.parts import native_hybrid

# Every key the SEARCH call sends, as the PL/SQL Packages and Types Reference names them
# (DBMS_HYBRID_VECTOR.SEARCH) and the AI Vector Search quick start uses them.
DOCUMENTED = {"hybrid_index_name", "search_fusion", "search_scorer", "vector", "text", "return"}


def _fake_oracle(rows=()):
    calls = []

    def query(sql, params=None):
        calls.append((sql, params))
        return list(rows)

    statements = SimpleNamespace(native_hybrid=osql.NATIVE_HYBRID, keyword_expression=keyword_expression,
                                 no_match=NO_MATCH_EXPRESSION)
    eng = SimpleNamespace(name="oracle", statements=statements, query=query,
                          backend=SimpleNamespace(read_text=lambda v: v))
    return eng, calls


def test_the_search_parameters_are_the_documented_ones():
    eng, _ = _fake_oracle()
    params = json.loads(native_hybrid.search_params(eng, "ORA-00904 reefer 3.5 t", 4))
    assert set(params) == DOCUMENTED
    assert params["hybrid_index_name"] == "HYBRID_DEMO_HVI" and params["search_fusion"] in {
        "INTERSECT", "UNION", "TEXT_ONLY", "VECTOR_ONLY", "MINUS_TEXT", "MINUS_VECTOR", "RERANK"}
    assert params["search_scorer"] in {"RRF", "RSF", "WRRF"}
    assert params["vector"] == {"search_text": "ORA-00904 reefer 3.5 t"}
    assert params["text"] == {"contains": "{ORA 00904},{reefer},{3.5},{t}"}  # the learner's keyword leg
    assert params["return"] == {"values": ["rowid", "score", "vector_score", "text_score"], "topN": 4}
    nothing = json.loads(native_hybrid.search_params(eng, "🚢", 4))
    assert nothing["text"] == {"contains": NO_MATCH_EXPRESSION}


def test_rows_come_back_as_hits_with_the_databases_scores():
    eng, calls = _fake_oracle([("m1", "reefer plug", 88.77, 77.53, 100), ("m2", "berth", 50, 50, None)])
    hits = native_hybrid.native_hybrid_search(eng, "reefer", k=2)
    assert hits == [{"record_id": "m1", "content": "reefer plug", "score": 88.77, "vector_score": 77.53,
                     "text_score": 100.0},
                    {"record_id": "m2", "content": "berth", "score": 50.0, "vector_score": 50.0, "text_score": None}]
    assert calls[0][0] == osql.NATIVE_HYBRID.SEARCH and set(calls[0][1]) == {"params"}
    with pytest.raises(ValueError):
        native_hybrid.native_hybrid_search(eng, "  ", k=2)


def test_the_statements_parse_with_sqlglots_oracle_dialect():
    from sqlglot import exp

    search = sqlglot.parse_one(osql.NATIVE_HYBRID.SEARCH, read="oracle")
    assert isinstance(search, exp.Select) and "DBMS_HYBRID_VECTOR.SEARCH(JSON(:params))" in search.sql("oracle")
    for name in ("DROP", "TABLE_DDL", "FILL", "COUNT"):
        tree = sqlglot.parse_one(getattr(osql.NATIVE_HYBRID, name).replace("{p}", ""), read="oracle")
        assert not isinstance(tree, exp.Command), name
    assert "VECTOR_IDXTYPE IVF" in osql.NATIVE_HYBRID.INDEX_DDL and osql.MODEL_NAME in osql.NATIVE_HYBRID.INDEX_DDL


def test_the_embedded_engine_says_why_it_has_no_native_hybrid_search(tmp_path):
    from workshop_lib import connect

    eng = connect("embedded", path=tmp_path)
    try:
        assert eng.statements.native_hybrid is None
        for call in (lambda: native_hybrid.build_index(eng), lambda: native_hybrid.native_hybrid_search(eng, "reefer")):
            with pytest.raises(native_hybrid.NativeHybridUnavailable, match="Oracle lane"):
                call()
    finally:
        eng.close()


@pytest.mark.oracle
def test_both_hybrid_searches_answer_the_same_probe_on_oracle():
    from conftest import _require

    from workshop_lib import connect
    from workshop_lib.prepare import prepare

    _require("oracle")
    eng = connect("oracle")
    try:
        prepare(eng, progress=False)
        held = native_hybrid.build_index(eng)
        assert held > 0
        rows = native_hybrid.compare(eng, "How many containers can a vessel carry (TEU)?", k=5)
        native = [r["native_hybrid"] for r in rows if r["native_hybrid"]]
        ours = [r["one_statement_rrf"] for r in rows if r["one_statement_rrf"]]
        assert native and ours and len(native) <= 5
        assert set(native) & set(ours), rows  # the two fusions agree on some of the top five
    finally:
        with eng.transaction() as cur:
            cur.execute(osql.NATIVE_HYBRID.DROP)
        eng.close()

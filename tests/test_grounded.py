"""Part 5: the catalog, intent routing, grounded answers, model failure modes and caches.

Runs on the embedded engine. Every model is a fake with the openai client's shape
(`chat.completions.create`), wrapped in workshop_lib.core.llm.LLM like a real one.
"""
from __future__ import annotations

import json
import re
import time
from types import SimpleNamespace

import httpx
import openai  # (imported here: a first import inside the timed call would count its seconds as the model's)
import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop_lib import connect
from workshop_lib.checks import CheckFailed
from workshop_lib.checks import part5 as check5
from workshop_lib.core.llm import LLM
from workshop_lib.data import catalog, supplychain
from workshop_lib.engines.embedded import sql as embedded_sql
from workshop_lib.engines.oracle import sql as oracle_sql
from workshop_lib.parts import grounded
from workshop_lib.parts.grounded import render_grounded_answer, validate_selection

REEFER_Q = "I need a refrigerated container for frozen fish"
ID_RE = re.compile(r"\[((?:EQ|SV)-[A-Z0-9]+)\]")
ALL_IDS = {i.item_id for i in catalog.ITEMS}


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    engine = connect("embedded", path=tmp_path_factory.mktemp("catalog"))
    supplychain.seed(engine)
    catalog.seed(engine, progress=False)
    yield engine
    engine.close()


# ---------------------------------------------------------------- fakes at the client interface
def _message(content="", tool_calls=None):
    return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content, tool_calls=tool_calls))])


def _call(name, arguments):
    return SimpleNamespace(type="function", function=SimpleNamespace(name=name, arguments=arguments))


def fake_llm(respond, model="fake-model", timeout=5.0):
    calls = []

    def create(**kwargs):
        calls.append(kwargs)
        return respond(**kwargs)

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    model_ = LLM(client, model, timeout=timeout)
    model_.calls = calls  # type: ignore[attr-defined]
    return model_


def selects(*ids):
    return fake_llm(lambda **kw: _message("", [_call("select_items", json.dumps({"item_ids": list(ids)}))]))


# ---------------------------------------------------------------- catalog data and seed
def test_catalog_data_is_consistent():
    ids = [i.item_id for i in catalog.ITEMS]
    assert len(ids) == len(set(ids)) >= 20
    where = catalog.availability()
    ports = catalog.ports()
    assert len(ports) == 25
    for item in catalog.ITEMS:
        assert item.category in catalog.CATEGORIES and item.price_usd > 0 and item.price_unit
        assert where[item.item_id], f"{item.item_id} is available nowhere"
        assert set(where[item.item_id]) <= set(ports)
        for units in where[item.item_id].values():
            assert (units is None) == (item.category == "service")
            assert units is None or units > 0
    names = {i.name for i in catalog.ITEMS}
    for expected in ("20' dry container", "40' high cube container", "40' high cube reefer", "20' ISO tank container",
                     "Customs brokerage", "Cargo insurance", "Drayage", "Transloading", "Reefer monitoring"):
        assert expected in names
    frame = catalog.describe()
    assert len(frame) == len(catalog.ITEMS) and frame["price_usd"].gt(0).all()


def _supplychain_snapshot(engine):
    return {t.name: engine.query(f"SELECT COUNT(*), SUM(LENGTH(CAST({t.column_names[0]} AS TEXT))) "
                                 f"FROM SUPPLYCHAIN.{t.name}")[0] for t in supplychain.TABLES}


def test_seed_is_idempotent_and_leaves_supplychain_alone(tmp_path):
    engine = connect("embedded", path=tmp_path)
    try:
        supplychain.seed(engine)
        before = _supplychain_snapshot(engine)
        first = catalog.seed(engine, progress=False)
        assert first["embedded"] == len(catalog.ITEMS) and first["unchanged"] == 0
        again = catalog.seed(engine, progress=False)
        assert again["embedded"] == 0 and again["unchanged"] == len(catalog.ITEMS)
        assert again["availability_rows"] == first["availability_rows"]
        assert engine.query(embedded_sql.CATALOG.ITEM_COUNT)[0][0] == len(catalog.ITEMS)
        assert _supplychain_snapshot(engine) == before
        blob = engine.query("SELECT embedding FROM CATALOG_ITEMS WHERE item_id = 'EQ-20RF'")[0][0]
        assert len(blob) == engine.model.dim * 4  # float32 vector computed by embed() in SQL
    finally:
        engine.close()


def test_asking_before_the_catalog_is_seeded_names_the_fix(tmp_path):
    """Not a driver's "no such table": the error says what is missing and the command that loads it."""
    engine = connect("embedded", path=tmp_path)
    try:
        supplychain.seed(engine, progress=False)
        with pytest.raises(grounded.CatalogNotLoaded, match=r"catalog\.seed\(eng\)") as err:
            grounded.ask(engine, "How much is a 20ft reefer per day?")
        assert err.value.fix
        catalog.seed(engine, progress=False)
        assert grounded.ask(engine, "How much is a 20ft reefer per day?").text
    finally:
        engine.close()


def test_seed_reembeds_only_changed_items(tmp_path, monkeypatch):
    engine = connect("embedded", path=tmp_path)
    try:
        catalog.seed(engine, progress=False)
        items = list(catalog.ITEMS)
        items[0] = catalog.Item(items[0].item_id, items[0].name, items[0].category,
                                items[0].description + " Food grade on request.", items[0].price_usd,
                                items[0].price_unit)
        monkeypatch.setattr(catalog, "ITEMS", tuple(items[:-1]))  # one changed, one removed
        counts = catalog.seed(engine, progress=False)
        assert counts["embedded"] == 1 and counts["removed"] == 1
    finally:
        engine.close()


# ---------------------------------------------------------------- SQL for both engines
# sqlglot cannot parse two Oracle constructs; they are swapped for placeholders first:
#   VECTOR_EMBEDDING(model USING expr AS data)
#     https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/vector_embedding.html
#   the VECTOR(384, FLOAT32) column type
#     https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/create-tables-using-vector-data-type.html
# Parsed as written (sqlglot accepts them): VECTOR_DISTANCE(a, b, COSINE)
#   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/vector_distance.html, and MERGE / FETCH FIRST.
#   CREATE TABLE IF NOT EXISTS (23ai):
#     https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/CREATE-TABLE.html
def _oracle_parsable(sql: str) -> str:
    sql = re.sub(r"VECTOR_EMBEDDING\(\s*\w+\s+USING\s+(:\w+)\s+AS\s+data\s*\)", r"VECTOR_EMBEDDING_(\1)", sql)
    return re.sub(r"VECTOR\(\d+,\s*FLOAT32\)", "BLOB", sql)


def test_both_engines_have_the_same_statement_names():
    assert sorted(vars(embedded_sql.CATALOG)) == sorted(vars(oracle_sql.CATALOG))


@pytest.mark.parametrize("name", sorted(vars(oracle_sql.CATALOG)))
def test_oracle_statements_parse(name):
    value = getattr(oracle_sql.CATALOG, name)
    for sql in value if isinstance(value, list) else [value]:
        tree = sqlglot.parse_one(_oracle_parsable(sql), read="oracle")
        assert tree is not None
        assert "LIMIT" not in sql.upper() and "embed(" not in sql  # no SQLite-isms in the Oracle twin


def test_oracle_vector_constructs_are_the_documented_ones():
    assert "VECTOR_DISTANCE(embedding, :qv, COSINE)" in oracle_sql.CATALOG.MATCH_ABOVE_THRESHOLD
    assert "VECTOR_EMBEDDING(ALL_MINILM_L12_V2 USING :doc AS data)" in oracle_sql.CATALOG.ITEM_INSERT
    assert "VECTOR_EMBEDDING(ALL_MINILM_L12_V2 USING :txt AS data) FROM dual" in oracle_sql.CATALOG.EMBED_TEXT
    assert all("VECTOR(384, FLOAT32)" in d for d in (oracle_sql.CATALOG.DDL[0], oracle_sql.CATALOG.DDL[2]))


# ---------------------------------------------------------------- routing
@pytest.mark.parametrize("question, intent, ports", [
    (REEFER_Q, "EQUIPMENT_RAG", []),
    ("How much does customs clearance cost?", "EQUIPMENT_RAG", []),
    ("Do you sell pizza ovens?", "EQUIPMENT_RAG", []),
    ("Do you have flat racks in Hamburg?", "EQUIPMENT_AVAILABILITY", ["DEHAM"]),
    ("Is a 40 foot reefer available in Rotterdam?", "EQUIPMENT_AVAILABILITY", ["NLRTM"]),
    ("Can I lease an ISO tank at Felixstowe?", "EQUIPMENT_AVAILABILITY", ["GBFXT"]),
    ("Where can I rent a flat rack?", "EQUIPMENT_AVAILABILITY", []),
    ("Any reefers in stock at NLRTM?", "EQUIPMENT_AVAILABILITY", ["NLRTM"]),
    ("Where is Tanger Med?", "PORT_LOCATION", ["MAPTM"]),
    ("where is nlrtm", "PORT_LOCATION", ["NLRTM"]),
    ("Which ports are in North Europe?", "PORT_LOCATION", []),
    ("What are the coordinates of Jebel Ali?", "PORT_LOCATION", ["AEJEA"]),
    ("Tell me about Antwerp", "PORT_LOCATION", ["BEANR"]),
    ("hello there", "GENERAL_CONVERSATION", []),
    ("thanks!", "GENERAL_CONVERSATION", []),
    ("What is the capital of France?", "GENERAL_CONVERSATION", []),
])
def test_rules_router(question, intent, ports):
    r = grounded.classify_rules(question)
    assert (r.intent, r.method) == (intent, "rules")
    assert r.ports == ports


def test_llm_router_validates_the_label():
    assert grounded.route("Tell me about Antwerp", fake_llm(lambda **kw: _message("GENERAL_CONVERSATION"))).intent \
        == "GENERAL_CONVERSATION"
    r = grounded.route("Where is Tanger Med?", fake_llm(lambda **kw: _message('{"intent": "port_location"}')))
    assert (r.intent, r.method) == ("PORT_LOCATION", "llm")
    bad = grounded.route("Where is Tanger Med?", fake_llm(lambda **kw: _message("SHIPPING_STUFF")))
    assert bad.intent == "PORT_LOCATION" and bad.method.startswith("rules (llm returned")

    def boom(**kw):
        raise RuntimeError("503")

    failed = grounded.route(REEFER_Q, fake_llm(boom))
    assert failed.intent == "EQUIPMENT_RAG" and "llm failed" in failed.method


# ---------------------------------------------------------------- vector match
def test_match_returns_typed_rows_above_the_threshold(eng):
    result = grounded.match_catalog(eng, REEFER_Q, k=3)
    assert 1 <= len(result.matches) <= 3 and result.alternatives == []
    assert result.matches[0].item_id == "EQ-20RF"
    sims = [m.similarity for m in result.matches]
    assert sims == sorted(sims, reverse=True) and min(sims) >= result.min_similarity
    m = result.matches[0]
    assert isinstance(m, grounded.CatalogMatch) and m.availability["NLRTM"] == 40
    assert m.price_text() == "USD 6.50 per container per day (lease)"
    ctx = grounded.grounding_context(result.matches)
    assert set(ctx[0]) == {"item_id", "name", "description", "price", "availability", "similarity"}


@pytest.mark.parametrize("question, item", [
    ("Do you rent flat racks for a bulldozer?", "EQ-20FR"),
    ("How much does customs clearance cost?", "SV-CUSTOMS"),
    ("I want to ship olive oil in bulk", "EQ-20TK"),
    ("Can you insure my cargo?", "SV-INSURE"),
    ("container for coffee beans", "EQ-20VH"),
    ("lithium batteries paperwork", "SV-DGDOCS"),
    ("generator for a reefer on a truck", "EQ-GENSET"),
    ("marble blocks loaded by crane", "EQ-20OT"),
])
def test_relevant_questions_clear_the_threshold(eng, question, item):
    result = grounded.match_catalog(eng, question)
    assert result.matches and result.matches[0].item_id == item


@pytest.mark.parametrize("question", ["Do you sell pizza ovens?", "I need a passenger cruise ticket",
                                      "What is the weather today?", "Tell me a joke"])
def test_no_match_never_invents_an_item(eng, question):
    result = grounded.match_catalog(eng, question)
    assert result.matches == [] and result.alternatives
    assert all(a.similarity < result.min_similarity for a in result.alternatives)
    answer = grounded.ask(eng, question, use_cache=False)
    if answer.intent == "EQUIPMENT_RAG":
        assert answer.text.startswith("I don't have a catalog item")
        assert set(ID_RE.findall(answer.text)) <= {a.item_id for a in result.alternatives}
        assert answer.item_ids == []
    assert set(ID_RE.findall(answer.text)) <= ALL_IDS


@pytest.mark.parametrize("kwargs, words", [
    ({"question": ""}, "empty"), ({"k": 0}, "k must"), ({"k": "3"}, "k must"), ({"min_similarity": 2}, "between"),
])
def test_match_rejects_bad_input(eng, kwargs, words):
    args = {"question": REEFER_Q, **kwargs}
    with pytest.raises(ValueError, match=words):
        grounded.match_catalog(eng, args.pop("question"), **args)


def test_empty_catalog_is_a_clear_error(tmp_path):
    engine = connect("embedded", path=tmp_path)
    try:
        catalog.ensure_tables(engine)
        with pytest.raises(RuntimeError, match="catalog.seed"):
            grounded.match_catalog(engine, REEFER_Q)
    finally:
        engine.close()


# ---------------------------------------------------------------- selection: every failure mode
@pytest.fixture(scope="module")
def reefer_rows(eng):
    return grounded.match_catalog(eng, REEFER_Q, k=3).matches


def test_valid_selection_is_rendered_from_rows(eng, reefer_rows):
    model = selects("EQ-40RH")
    out = grounded.select_with_llm(model, REEFER_Q, reefer_rows)
    assert out.ok and out.ids == ["EQ-40RH"]
    sent = model.calls[0]
    assert sent["tools"][0]["function"]["name"] == "select_items"
    assert sent["tools"][0]["function"]["parameters"]["properties"]["item_ids"]["items"]["enum"] == \
        [m.item_id for m in reefer_rows]
    a = grounded.ask(eng, REEFER_Q, llm=model, use_cache=False)
    assert a.item_ids == ["EQ-40RH"] and ID_RE.findall(a.text) == ["EQ-40RH"]
    assert a.selection_status.startswith("model selected") and a.grounded


def _slow(**kw):
    time.sleep(1.0)
    return _message("", [_call("select_items", '{"item_ids": ["EQ-40RH"]}')])


def _raise_timeout(**kw):
    raise openai.APITimeoutError(request=httpx.Request("POST", "http://x.invalid"))  # type: ignore[arg-type]


def _raise(**kw):
    raise RuntimeError("server exploded")


FAILURES = {
    "malformed JSON": (lambda **kw: _message("", [_call("select_items", '{"item_ids": ["EQ-40RH"')]), "malformed JSON"),
    "JSON without item_ids": (lambda **kw: _message("", [_call("select_items", '{"ids": ["EQ-40RH"]}')]), "no item_ids"),
    "unknown id": (lambda **kw: _message("", [_call("select_items", '{"item_ids": ["EQ-99XX"]}')]), "invalid selection"),
    "known id, not returned": (lambda **kw: _message("", [_call("select_items", '{"item_ids": ["EQ-40DV"]}')]),
                               "invalid selection"),
    "ids as a dict": (lambda **kw: _message("", [_call("select_items", '{"item_ids": {"0": "EQ-40RH"}}')]),
                      "invalid selection"),
    "timeout (slow)": (_slow, "timed out"),
    "timeout (client)": (_raise_timeout, "timed out"),
    "server error": (_raise, "RuntimeError"),
    "tool-schema artifact": (lambda **kw: _message(
        '{"name": "select_items", "parameters": {"item_ids": ["EQ-40RH"]}}'), "artifact"),
    "tool call tag": (lambda **kw: _message('<tool_call>{"name": "select_items"}</tool_call>'), "artifact"),
    "skipped the tool": (lambda **kw: _message("Our FrostMaster 3000 super-reefer is perfect for fish!"),
                         "skipped the tool"),
    "another tool": (lambda **kw: _message("", [_call("book_vessel", "{}")]), "unknown tool"),
    "bad response shape": (lambda **kw: SimpleNamespace(choices=[]), "unexpected response"),
}


@pytest.mark.parametrize("name", list(FAILURES))
def test_every_model_failure_falls_back_to_the_rows(eng, reefer_rows, name):
    respond, words = FAILURES[name]
    model = fake_llm(respond, timeout=0.2)
    start = time.perf_counter()
    out = grounded.select_with_llm(model, REEFER_Q, reefer_rows, timeout=0.2)
    assert time.perf_counter() - start < 0.9
    assert not out.ok and out.ids is None and out.status.startswith("fallback") and words in out.status
    a = grounded.ask(eng, REEFER_Q, llm=model, use_cache=False)
    assert a.text == render_grounded_answer(REEFER_Q, reefer_rows, None)  # deterministic, from rows
    assert "FrostMaster" not in a.text and "EQ-99XX" not in a.text
    assert set(ID_RE.findall(a.text)) == {m.item_id for m in reefer_rows}


def test_structured_json_content_is_accepted(reefer_rows):
    model = fake_llm(lambda **kw: _message('{"item_ids": ["SV-REEFMON"]}'))
    out = grounded.select_with_llm(model, REEFER_Q, reefer_rows)
    assert out.ok and out.ids == ["SV-REEFMON"]


def test_no_model_means_every_row(reefer_rows):
    out = grounded.select_with_llm(None, REEFER_Q, reefer_rows)
    assert out.ids is None and not out.ok


# ---------------------------------------------------------------- hostile selections
def test_validate_selection_cases(reefer_rows):
    rows = check5.sample_rows()
    for selection, want, why in check5.selection_cases():
        assert validate_selection(selection, rows) == want, why


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.sampled_from(
        ["EQ-20RF", "EQ-40RH", "SV-REEFMON", "EQ-40DV", "EQ-99XX", "", "eq-20rf"]),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(selection=json_values)
def test_hostile_selections_never_leak(selection):
    rows = check5.sample_rows()
    ids = {r.item_id for r in rows}
    got = validate_selection(selection, rows)
    assert got is None or (isinstance(got, list) and got and len(got) == len(set(got)) and set(got) <= ids)
    text = render_grounded_answer("q", rows, selection)
    shown = ID_RE.findall(text)
    assert shown and set(shown) <= ids and len(shown) == len(set(shown))
    assert shown == (got if got is not None else [r.item_id for r in rows])


def test_part5_checks_pass_the_reference_and_catch_mistakes():
    check5.check_validate_selection(validate_selection, quiet=True)
    check5.check_render_answer(render_grounded_answer, quiet=True)

    def keeps_duplicates(selection, rows):
        known = {r.item_id for r in rows}
        if isinstance(selection, list) and selection and all(isinstance(s, str) and s in known for s in selection):
            return list(selection)
        return None

    with pytest.raises(CheckFailed, match="duplicates are dropped"):
        check5.check_validate_selection(keeps_duplicates)

    def trusts_catalog_ids(selection, rows):
        if isinstance(selection, list) and selection and all(isinstance(s, str) and s in ALL_IDS for s in selection):
            return list(dict.fromkeys(selection))
        return None

    with pytest.raises(CheckFailed, match="NOT among the returned rows"):
        check5.check_validate_selection(trusts_catalog_ids)

    def ignores_selection(question, matches, selection):
        if not matches:
            return grounded.no_match_answer(question, [])
        return "\n".join([grounded.answer_header(question, len(matches))] + [grounded.format_row(m) for m in matches])

    with pytest.raises(CheckFailed, match=r"shows rows .* expected \['EQ-40RH'\]"):
        check5.check_render_answer(ignores_selection)

    def invents_on_empty(question, matches, selection):
        return render_grounded_answer(question, matches, selection) if matches else "Try our [EQ-99XX] super box!"

    with pytest.raises(CheckFailed, match="no rows at all"):
        check5.check_render_answer(invents_on_empty)


# ---------------------------------------------------------------- caches
def test_caches_report_hits_on_a_repeated_question(eng):
    grounded.clear_caches(eng, embeddings=True)
    q = "Can you insure my cargo?"
    first = grounded.ask(eng, q)
    assert (first.from_cache, first.embedding_cache_hit) == (False, False)
    again = grounded.ask(eng, q)
    assert again.from_cache and again.text == first.text and again.item_ids == first.item_ids
    # normalization: case, spaces and trailing punctuation do not matter to the response cache
    assert grounded.ask(eng, "  can you INSURE my cargo ").from_cache
    # another persona misses the response cache but reuses the embedding
    other = grounded.ask(eng, q, persona="friendly")
    assert (other.from_cache, other.embedding_cache_hit) == (False, True)
    # bypassing the response cache still hits the embedding cache
    assert grounded.ask(eng, q, use_cache=False).embedding_cache_hit is True
    # the model is part of the key
    with_model = grounded.ask(eng, q, llm=selects("SV-INSURE"))
    assert not with_model.from_cache and with_model.model == "fake-model"
    assert grounded.ask(eng, q, llm=selects("SV-INSURE")).from_cache


def test_failed_model_answers_are_not_cached(eng):
    grounded.clear_caches(eng)
    broken = fake_llm(FAILURES["malformed JSON"][0])
    assert not grounded.ask(eng, REEFER_Q, llm=broken).from_cache
    assert not grounded.ask(eng, REEFER_Q, llm=broken).from_cache


def test_embedding_cache_rows_are_keyed_on_text_and_model(eng):
    grounded.clear_caches(eng, embeddings=True)
    v1, hit1 = grounded.embed_question(eng, "reefer")
    v2, hit2 = grounded.embed_question(eng, "reefer")
    assert (hit1, hit2) == (False, True) and v1 == pytest.approx(v2)
    assert len(v1) == eng.model.dim  # type: ignore[arg-type]
    rows = eng.query("SELECT model_name, source_text FROM EMBEDDING_CACHE")
    assert rows == [(eng.model.name, "reefer")]


def test_bad_ask_input(eng):
    with pytest.raises(ValueError, match="empty"):
        grounded.ask(eng, "  ")
    with pytest.raises(ValueError, match="persona"):
        grounded.ask(eng, REEFER_Q, persona="pirate")


# ---------------------------------------------------------------- the other intents
def test_availability_and_location_answers(eng):
    a = grounded.ask(eng, "Do you have flat racks in Hamburg?", use_cache=False)
    assert a.intent == "EQUIPMENT_AVAILABILITY" and "EQ-20FR" in a.item_ids
    assert "Hamburg (DEHAM): 20 units" in a.text
    missing = grounded.ask(eng, "Can I lease an ISO tank at Felixstowe?", use_cache=False)
    assert "is not available at Felixstowe (GBFXT)" in missing.text and "Rotterdam (NLRTM): 45 units" in missing.text
    assert missing.item_ids == ["EQ-20TK"]  # only rows close to the best match answer an availability question
    assert grounded.equipment_phrase("Can I lease an ISO tank at Felixstowe?") == "ISO tank"
    where = grounded.ask(eng, "Where is Tanger Med?", use_cache=False)
    assert where.intent == "PORT_LOCATION" and "35.89\u00b0 N, 5.50\u00b0 W" in where.text
    assert where.embedding_cache_hit is None
    region = grounded.ask(eng, "Which ports are in North Europe?", use_cache=False)
    assert region.text.count("North Europe") == 5  # header + 4 ports


def test_general_conversation_paths(eng):
    plain = grounded.ask(eng, "hello there", use_cache=False)
    assert plain.intent == "GENERAL_CONVERSATION" and plain.text == grounded.GENERAL_HELP and not plain.grounded
    chat = grounded.ask(eng, "hello there", llm=fake_llm(lambda **kw: _message("Hi! How can I help?")), use_cache=False)
    assert chat.text == "Hi! How can I help?"
    # the model looks something up: the answer is re-grounded from rows
    tool = fake_llm(lambda **kw: _message("", [_call("search_catalog", '{"query": "reefer"}')]))
    q = "hello, my fish must stay frozen on the way"
    assert grounded.classify_rules(q).intent in ("EQUIPMENT_RAG", "GENERAL_CONVERSATION")
    regrounded = grounded._general(eng, q, grounded.Route("GENERAL_CONVERSATION", "rules"), llm=tool,
                                   persona=grounded.DEFAULT_PERSONA, model="fake-model", k=3, min_similarity=None)[0]
    assert regrounded.grounded and regrounded.selection_status.startswith("re-grounded")
    # a tool-less equipment draft is never shown
    drafty = fake_llm(lambda **kw: _message("Rent our HyperCube 9000 reefer container, only USD 1 per day!"))
    out = grounded.ask(eng, "hello there", llm=drafty, use_cache=False)
    assert "HyperCube" not in out.text
    artifact = fake_llm(lambda **kw: _message('{"type": "function", "name": "search_catalog", "parameters": {}}'))
    out = grounded.ask(eng, "hello there", llm=artifact, use_cache=False)
    assert '"type"' not in out.text


def test_a_ports_possessive_and_its_code_are_location_questions(tmp_path):
    from tests.conftest import answers_engine
    from workshop_lib.assistant.answering.answer import answer_question
    from workshop_lib.data.catalog import ports
    eng = answers_engine("embedded", tmp_path)
    try:
        code, port = sorted(ports().items())[0]
        for question in (f"Give me {port['name']}'s latitude and longitude", f"what's the port code for {port['name']}"):
            a = answer_question(eng, question)
            assert a.mode == "rag" and code in a.answer, (question, a.answer)
    finally:
        eng.close()


def test_a_ports_coordinates_come_signed_too(tmp_path):
    from tests.conftest import answers_engine
    from workshop_lib.assistant.answering.answer import answer_question
    from workshop_lib.data.catalog import ports
    eng = answers_engine("embedded", tmp_path)
    try:
        code, port = next((c, p) for c, p in sorted(ports().items()) if float(p["longitude"]) < 0)
        a = answer_question(eng, f"lat/long for {port['name']} please")
        assert f"{float(port['longitude']):g}" in a.answer and "° W" in a.answer, a.answer
    finally:
        eng.close()

"""Part 8's document lifecycle: each stage on its own, then the pipeline on both engines.

The database tests run on the embedded engine and, with ORACLE_DSN set, on Oracle
(`pytest -m oracle`). On Oracle the document tables of these tests carry a unique profile
suffix, and the alias is put back as it was afterwards, so a learner's index is untouched.
"""
from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workshop_lib.parts.ingest import chunking, corpus, documents, embedding, index, manifest, pipeline, promotion, sanitize

PLANTED = json.loads(corpus.PLANTED.read_text(encoding="utf-8"))
ENTRIES = manifest.read(corpus.MANIFEST).entries


def _clean(doc_id: str) -> tuple[str, str | None]:
    entry = next(e for e in ENTRIES if e.doc_id == doc_id)
    return documents.clean(documents.read_text(entry.path)), entry.lang


# ------------------------------------------------------------------ the corpus
def test_corpus_size_and_languages():
    assert 20 <= len(ENTRIES) <= 40
    assert {e.lang for e in ENTRIES} >= {"en", "de", "es", "fr"}
    golden = corpus.load_golden()
    assert len(golden) >= 20 and {q.doc_id for q in golden} <= {e.doc_id for e in ENTRIES}


# ------------------------------------------------------------------ manifests
def _write_manifest(folder: Path, lines: list[str]) -> Path:
    (folder / "a.md").write_text("Alpha notice about reefers.\n", encoding="utf-8")
    (folder / "b.md").write_text("Bravo notice about berths.\n", encoding="utf-8")
    path = folder / "manifest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


BAD_LINES = {
    '{"path": "a.md"': "not valid JSON",
    '["a.md"]': "expected a JSON object",
    '{"tags": ["x"]}': "\"path\" is missing",
    '{"path": "../outside.md"}': "outside the corpus folder",
    '{"path": "/etc/hostname"}': "outside the corpus folder",
    '{"path": "nope.md"}': "file not found",
    '{"path": "b.md", "profile": "v99"}': "unknown profile 'v99'",
    '{"path": "b.md", "lang": "english"}': "\"lang\" must be a language code",
    '{"path": "b.md", "tags": "x"}': "\"tags\" must be a list",
    '{"path": "b.md", "tag": ["x"]}': "unknown field(s) ['tag']",
}


@pytest.mark.parametrize("line", sorted(BAD_LINES))
def test_each_bad_manifest_line_is_reported_with_file_and_line(tmp_path, line):
    path = _write_manifest(tmp_path, ['{"path": "a.md"}', line])
    with pytest.raises(manifest.ManifestError) as err:
        manifest.read(path, profiles={"v1", "v2"})
    assert f"{path}:2: " in str(err.value) and BAD_LINES[line] in str(err.value)
    assert "nothing was ingested" in str(err.value)


def test_skip_bad_keeps_the_good_lines_and_lists_the_bad(tmp_path):
    path = _write_manifest(tmp_path, ['{"path": "a.md", "tags": ["n"], "lang": "en"}', "{oops", '{"path": "a.md"}',
                                      '{"path": "b.md"}'])
    parsed = manifest.read(path, skip_bad=True)
    assert [e.doc_id for e in parsed.entries] == ["a", "b"]
    assert [(p.line, p.problem.split(" (")[0]) for p in parsed.problems] == [(2, "not valid JSON"),
                                                                              (3, "a.md is listed twice")]


def test_missing_empty_and_non_utf8_manifests(tmp_path):
    with pytest.raises(manifest.ManifestError, match="manifest file not found"):
        manifest.read(tmp_path / "none.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(manifest.ManifestError, match="lists no documents"):
        manifest.read(tmp_path / "empty.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"path": "caf\xe9.md"}\n')
    with pytest.raises(manifest.ManifestError, match="not valid UTF-8"):
        manifest.read(tmp_path / "latin1.jsonl")


# ------------------------------------------------------------------ reading and cleaning
def test_bad_files_are_rejected_with_the_reason(tmp_path):
    cases = {"empty.md": (b"", "empty file"), "binary.md": (b"\x89PNG\r\n\x00\x00data", "binary file"),
             "latin1.md": ("Caf\u00e9 au lait".encode("latin-1"), "not valid UTF-8"),
             "huge.md": (b"x" * (documents.MAX_DOC_BYTES + 1), "over the 1,000,000-byte limit")}
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(documents.Rejected, match=reason):
            documents.read_text(tmp_path / name)


def test_cleaning_removes_what_splits_words_and_keeps_meaning():
    raw = "\ufeffTrans\u200bship\u00adment\r\nline\u00a0two\x07 \r\n\r\n\r\n\r\nm\u00b2 caf\u0065\u0301\n"
    assert documents.clean(raw) == "Transshipment\nline two\n\nm\u00b2 caf\u00e9"
    assert documents.clean("\u200b \u2060\n\t") == ""


# ------------------------------------------------------------------ sanitising
def test_sanitiser_finds_every_planted_personal_item_and_redacts_no_identifier():
    planted = found = 0
    for doc_id, items in PLANTED["personal"].items():
        text, lang = _clean(doc_id)
        redacted = sanitize.sanitize(text, "redact", lang).text
        for kind, value in items:
            planted += 1
            if value not in redacted:
                found += 1
            else:
                print(f"missed {kind} {value!r} in {doc_id}")
    false_redactions = []
    for doc_id, items in PLANTED["not_personal"].items():
        text, lang = _clean(doc_id)
        redacted = sanitize.sanitize(text, "redact", lang).text
        false_redactions += [(doc_id, v) for _, v in items if v in text and v not in redacted]
        assert all(v in text for _, v in items), f"{doc_id}: a listed identifier is not in the document"
    assert found / planted == 1.0, f"recall {found}/{planted}"
    assert false_redactions == []


def test_sanitiser_reports_nothing_that_was_not_planted():
    extra = []
    for entry in ENTRIES:
        text = documents.clean(documents.read_text(entry.path))
        planted = {v for _, v in PLANTED["personal"].get(entry.doc_id, [])}
        if entry.doc_id.startswith("archive/"):
            continue
        extra += [(entry.doc_id, f.kind, f.text) for f in sanitize.sanitize(text, "audit", entry.lang).findings
                  if f.text not in planted]
    assert extra == []


def test_audit_and_off_leave_the_text_alone():
    text, lang = _clean("claims/water-damage-claim")
    audit = sanitize.sanitize(text, "audit", lang)
    assert audit.text == text and audit.counts() == {"PERSON": 2, "IBAN": 1, "EMAIL": 1, "PHONE": 1}
    assert sanitize.sanitize(text, "off").findings == [] and sanitize.sanitize(text, "off").text == text
    with pytest.raises(ValueError, match="off, audit, redact"):
        sanitize.sanitize(text, "scrub")


def test_look_alikes_that_fail_their_check_digits_are_not_redacted():
    text = ("Card 4111 1111 1111 1112, IBAN DE00 3704 0044 0532 0130 00, container MSCU4829131, "
            "booking 2400187731, mail ops@example.com")
    found = sanitize.sanitize(text, "audit", "en").findings
    assert [(f.kind, f.text) for f in found] == [("EMAIL", "ops@example.com")]


# ------------------------------------------------------------------ chunking
@given(st.integers(0, 400), st.integers(1, 50), st.data())
def test_window_spans_cover_everything_in_order(n, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    spans = chunking.window_spans(n, size, overlap)
    if n == 0:
        assert spans == []
        return
    assert spans[0][0] == 0 and spans[-1][1] == n
    for (a, b), (c, d) in zip(spans, spans[1:]):
        assert c - a == size - overlap and b - a == size and d > b  # no window inside the previous one
    assert all(0 < b - a <= size for a, b in spans)


@pytest.mark.parametrize("kwargs,message", [
    ({"unit": "words"}, "unit must be one of"), ({"size": 0}, "size must be an integer"),
    ({"overlap": 10}, "must be smaller than size"), ({"overlap": -1}, "overlap must be an integer"),
    ({"name": "V1; DROP"}, "profile name"), ({"min_recall": 1.5}, "min_recall must be from 0 to 1"),
])
def test_bad_profiles_are_refused(kwargs, message):
    spec = {"name": "v9", "unit": "chars", "size": 10, "overlap": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        corpus.Profile(**spec)


def test_character_chunks_respect_size_and_word_boundaries():
    text, _ = _clean("sop/vgm-weighing")
    p = corpus.Profile("t", "chars", 120, 30)
    chunks = chunking.chunk_document(text, p, lambda t: [], doc_id="d", source="s")
    assert all(len(c.text) <= 120 for c in chunks)
    words = set(text.split())
    for c in chunks:
        assert c.text.split()[0].strip("#*-()") in {w.strip("#*-()") for w in words}
        assert text[c.start:c.end] == c.text
    assert chunks[0].start == 0 and chunks[-1].end == len(text)


def test_token_chunks_count_the_engines_tokens():
    text = "one two three four five six seven eight nine ten"
    spans = [(m, m + 1) for m in range(len(text)) if text[m] != " "]  # a fake tokenizer: one token per letter
    p = corpus.Profile("t", "tokens", 9, 3)
    chunks = chunking.chunk_document(text, p, lambda t: spans, doc_id="d", source="s")
    assert chunks[0].n_units == 9 and all(c.n_units <= 9 for c in chunks)


def test_identical_chunks_share_a_hash():
    a = chunking.Chunk("x", 0, "same text", 0, 9, 9, "x.md")
    b = chunking.Chunk("y", 3, "same text", 5, 14, 9, "y.md")
    assert a.hash == b.hash


# ------------------------------------------------------------------ batching
class FakeEndpoint:
    """A remote embedding API: at most `limit` calls in any 60 s, and some calls fail."""

    def __init__(self, clock, limit: int, fail_calls: set[int]) -> None:
        self.clock, self.limit, self.fail_calls = clock, limit, fail_calls
        self.calls: list[float] = []
        self.embedded: list[str] = []

    def __call__(self, batch: list[str]) -> list[list[float]]:
        now = self.clock()
        recent = [t for t in self.calls if now - t < 60.0]
        assert len(recent) < self.limit, f"rate limit exceeded at t={now}"
        self.calls.append(now)
        if len(self.calls) in self.fail_calls:
            raise ConnectionError("HTTP 503")
        self.embedded += batch
        return [[float(len(t))] for t in batch]


def test_batcher_respects_the_rate_retries_and_embeds_nothing_twice():
    now = [0.0]
    endpoint = FakeEndpoint(lambda: now[0], limit=4, fail_calls={3, 7})
    received = {}
    texts = [f"t{i}" for i in range(50)]

    def sleep(s):
        now[0] += s

    stats = embedding.embed_batches(texts, endpoint, lambda first, vecs: received.update({first: vecs}), batch_size=4,
                                    rate_limit_per_min=4, retries=2, backoff_s=0.5, progress=False,
                                    clock=lambda: now[0], sleep=sleep)
    assert endpoint.embedded == texts  # each text once, in order, even around the failed calls
    assert sorted(received) == list(range(0, 50, 4)) and stats.retries == 2 and stats.batches == 13
    assert now[0] >= 60.0 * ((13 + 2) // 4 - 1)  # 15 calls at 4 per minute need at least 3 full minutes of waiting


def test_batcher_gives_up_after_its_retries_and_keeps_earlier_batches():
    now = [0.0]
    endpoint = FakeEndpoint(lambda: now[0], limit=100, fail_calls={2, 3, 4})
    received = []
    with pytest.raises(embedding.EmbeddingFailed, match="batch 1 .* failed 3 times"):
        embedding.embed_batches(["a", "b", "c"], endpoint, lambda first, v: received.append(first), batch_size=2,
                                retries=2, progress=False, clock=lambda: now[0], sleep=lambda s: None)
    assert received == [0]
    with pytest.raises(ValueError, match="batch_size"):
        embedding.embed_batches(["a"], endpoint, lambda *a: None, batch_size=0)
    with pytest.raises(ValueError, match="rate_limit_per_min"):
        embedding.embed_batches(["a"], endpoint, lambda *a: None, rate_limit_per_min=0)


# ------------------------------------------------------------------ the pipeline, on each engine
@pytest.fixture
def lane(fresh_engine, engine_name):
    """(engine, profiles): the shipped profiles, renamed with a unique suffix on Oracle."""
    eng = fresh_engine
    shipped = corpus.load_profiles()
    suffix = "" if engine_name == "embedded" else "_" + uuid.uuid4().hex[:6]
    profiles = {f"{n}{suffix}": corpus.Profile(f"{n}{suffix}", p.unit, p.size, p.overlap, p.k, p.min_recall)
                for n, p in shipped.items()}
    before = index.alias_state(eng)
    yield eng, profiles
    if engine_name == "oracle":  # put the learner's alias back, then drop this test's tables
        index.clear_alias(eng)
        if before.target:
            index.set_alias(eng, before.target, previous=before.previous, action="rollback",
                            detail={"reason": "restored after the test lane"})
        for p in profiles.values():
            index.drop_table(eng, p.table)


def _ingest(eng, profiles, name, **kwargs):
    return pipeline.ingest(eng, profile=profiles[name], progress=False, profiles=profiles, **kwargs)


def _name(profiles, base):
    return next(n for n in profiles if n.split("_")[0] == base)


def _counting(eng):
    calls = []

    def embed(texts):
        calls.extend(texts)
        return eng.model.embed(texts)
    return embed, calls


def test_ingest_stores_redacted_chunks_once(lane):
    eng, profiles = lane
    v1 = _name(profiles, "v1")
    report = _ingest(eng, profiles, v1)
    assert (report.documents, report.chunks, report.duplicates, report.embedded) == (32, 31, 1, 31)
    assert report.findings == {"PHONE": 12, "PERSON": 9, "EMAIL": 8, "IBAN": 2, "CARD": 1}
    assert set(report.seconds) == set(pipeline.STAGES) and report.seconds["embed"] > 0
    table = profiles[v1].table
    bodies = [eng.backend.read_text(r[0]) for r in eng.query(f"SELECT body FROM {table}")]
    stored = "\n".join(bodies)
    assert not [v for items in PLANTED["personal"].values() for _, v in items if v in stored]
    assert all(v in stored for items in PLANTED["not_personal"].values() for _, v in items)
    info = index.info(eng, table)
    assert (info.status, info.docs, info.chunks) == ("complete", 31, 31)


def test_reingesting_the_same_manifest_embeds_nothing(lane):
    eng, profiles = lane
    v2 = _name(profiles, "v2")
    first = _ingest(eng, profiles, v2)
    embed, calls = _counting(eng)
    again = _ingest(eng, profiles, v2, embed=embed)
    assert calls == [] and again.embedded == 0 and again.already_stored == first.chunks


def test_a_crash_midway_leaves_the_alias_on_a_complete_table_and_a_rerun_finishes(lane):
    eng, profiles = lane
    v1, v2 = _name(profiles, "v1"), _name(profiles, "v2")
    _ingest(eng, profiles, v1, promote=True)
    assert index.alias_state(eng).target == profiles[v1].table
    embed, calls = _counting(eng)

    def dies_after_two_batches(texts):
        if len(calls) >= 32:
            raise KeyboardInterrupt("the kernel was interrupted")
        return embed(texts)

    with pytest.raises(KeyboardInterrupt):
        _ingest(eng, profiles, v2, embed=dies_after_two_batches, batch_size=16)
    assert index.info(eng, profiles[v2].table).status == "building"
    with pytest.raises(promotion.PromotionRefused, match="not complete"):
        promotion.promote(eng, profiles[v2])
    assert index.alias_state(eng).target == profiles[v1].table and index.search(eng, "reefer alarm", 1)
    done_before = list(calls)
    embed2, calls2 = _counting(eng)
    report = _ingest(eng, profiles, v2, embed=embed2)
    assert report.already_stored == 32 and not set(calls2) & set(done_before)
    assert index.info(eng, profiles[v2].table).status == "complete"


def test_promotion_refused_and_accepted_then_rollback(lane, engine_name):
    eng, profiles = lane
    v1, v2, v3 = (_name(profiles, b) for b in ("v1", "v2", "v3"))
    outcomes = {}
    for name in (v1, v3, v2):
        _ingest(eng, profiles, name)
        outcomes[name] = promotion.promote(eng, profiles[name])
    for name, outcome in outcomes.items():  # each decision is the reference gate's on the measured recalls
        want = promotion.should_promote(outcome.candidate, outcome.active, profiles[name].min_recall)  # type: ignore[arg-type]
        assert outcome.decision == want
    if engine_name == "embedded":  # the figures the notebook and the closing note quote
        assert [round(o.candidate.recall, 3) for o in outcomes.values()] == [0.893, 0.714, 0.929]
        assert [o.decision.promote for o in outcomes.values()] == [True, False, True]
        assert "below the bar" in outcomes[v3].decision.reason
        assert index.alias_state(eng).target == profiles[v2].table
    state = index.alias_state(eng)
    back = promotion.rollback(eng)
    assert (back.target, back.previous) == (state.previous, state.target)
    assert [h["action"] for h in index.history(eng, 2)][0] == "rollback"


def test_rollback_with_nothing_before_is_refused(lane):
    eng, profiles = lane
    v1 = _name(profiles, "v1")
    with pytest.raises(promotion.PromotionRefused, match="nothing to roll back"):
        promotion.rollback(eng)
    _ingest(eng, profiles, v1, promote=True)
    with pytest.raises(promotion.PromotionRefused, match="nothing to roll back"):
        promotion.rollback(eng)


def test_the_active_table_is_never_changed_in_place(lane, tmp_path):
    eng, profiles = lane
    v1 = _name(profiles, "v1")
    _ingest(eng, profiles, v1, promote=True)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "new.md").write_text("A brand new customs note about bonded warehouses.\n", encoding="utf-8")
    (extra / "m.jsonl").write_text('{"path": "new.md"}\n', encoding="utf-8")
    with pytest.raises(pipeline.IndexInUse, match="is the active index"):
        pipeline.ingest(eng, extra / "m.jsonl", profile=profiles[v1], progress=False, profiles=profiles)
    assert index.info(eng, profiles[v1].table).chunks == 31


def test_bad_files_in_a_manifest_are_reported_and_the_rest_ingested(lane, tmp_path):
    eng, profiles = lane
    v2 = _name(profiles, "v2")
    (tmp_path / "good.md").write_text("Reefer plugs at the terminal are checked every four hours.\n", encoding="utf-8")
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "bin.md").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.md").write_bytes("Zollb\u00fcro".encode("latin-1"))
    (tmp_path / "blank.md").write_text("\u200b\u200b\n \n", encoding="utf-8")
    lines = [json.dumps({"path": n}) for n in ("good.md", "empty.md", "bin.md", "latin.md", "blank.md")]
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = pipeline.ingest(eng, tmp_path / "m.jsonl", profile=profiles[v2], progress=False, profiles=profiles)
    assert report.documents == 1 and report.chunks == 1
    assert sorted(d for d, _ in report.rejected) == ["bin", "blank", "empty", "latin"]


def test_a_manifest_outside_the_corpus_writes_nothing(lane, tmp_path):
    eng, profiles = lane
    (tmp_path / "m.jsonl").write_text('{"path": "../../etc/passwd"}\n', encoding="utf-8")
    with pytest.raises(manifest.ManifestError, match="outside the corpus folder"):
        pipeline.ingest(eng, tmp_path / "m.jsonl", profile=profiles[_name(profiles, "v1")], progress=False,
                        profiles=profiles)
    assert index.info(eng, profiles[_name(profiles, "v1")].table) is None


def test_two_ingests_at_once_store_each_chunk_once(lane, engine_name, tmp_path):
    eng, profiles = lane
    from workshop_lib import connect

    v2 = _name(profiles, "v2")
    other = connect("embedded", path=eng.path) if engine_name == "embedded" else connect("oracle")
    errors = []

    def run(e):
        try:
            _ingest(e, profiles, v2)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in (eng, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    assert errors == []
    info = index.info(eng, profiles[v2].table)
    assert info.status == "complete"
    assert info.chunks == (101 if engine_name == "embedded" else len(index.stored_hashes(eng, profiles[v2].table)))


@pytest.mark.parametrize("question,k,message", [
    ("", 3, "empty"), ("x" * 100_001, 3, "limit"), ("reefer", 0, "at least 1"), ("reefer", -1, "at least 1"),
    ("reefer", "3", "integer"), (None, 3, "string"),
])
def test_search_refuses_bad_input_clearly(lane, question, k, message):
    eng, profiles = lane
    _ingest(eng, profiles, _name(profiles, "v1"), promote=True)
    with pytest.raises(ValueError, match=message):
        index.search(eng, question, k)


def test_search_takes_operator_characters_as_text(lane):
    eng, profiles = lane
    _ingest(eng, profiles, _name(profiles, "v1"), promote=True)
    for question in ['ORA-00904 "quoted" {braces} AND NEAR(a, b)', "'; DROP TABLE DOCS_V1; --", "reefer*"]:
        assert len(index.search(eng, question, 2)) == 2
    assert index.info(eng, profiles[_name(profiles, "v1")].table).chunks == 31


def test_no_active_index_and_bad_table_names(lane):
    eng, _ = lane
    index.clear_alias(eng)
    with pytest.raises(index.NoActiveIndex, match="workshop ingest"):
        index.search(eng, "reefer", 3)
    for bad in ("DOCS_V1; DROP TABLE RECORDS", "RECORDS", "docs_v1", "DOCS_"):
        with pytest.raises(ValueError, match="not a document table name"):
            index.fill("SELECT 1 FROM {t}", bad)


# ------------------------------------------------------------------ issue 36 risk 10: the alias switch
def _two_complete_tables(eng, profiles) -> tuple[str, str]:
    index.ensure_schema(eng)
    tables = [profiles[n].table for n in sorted(profiles)[:2]]
    for t in tables:
        index.ensure_table(eng, t)
        index.register(eng, t, "{}", "0" * 64)
        index.mark_complete(eng, t)
    return tables[0], tables[1]


def _recorded(eng) -> str | None:
    sql = eng.statements.docs
    rows = eng.query(sql.ALIAS_GET, {"alias_name": sql.ALIAS})
    return rows[0][0] if rows else None


def test_a_switch_whose_bookkeeping_fails_leaves_the_view_where_it_was(lane, monkeypatch):
    """The alias row and the log are written before the view's DDL, which commits by itself on
    Oracle: a failing log write (here: detail that is not JSON) must not leave the view moved
    and the row behind."""
    eng, profiles = lane
    a, b = _two_complete_tables(eng, profiles)
    index.set_alias(eng, a, previous=None, action="promote", detail={"reason": "first"})
    monkeypatch.setattr(index.json, "dumps", lambda _obj: "not json")
    with pytest.raises(Exception):  # noqa: B017 - each engine words its check-constraint error its own way
        index.set_alias(eng, b, previous=a, action="promote", detail={"reason": "second"})
    monkeypatch.undo()
    assert index.alias_target(eng) == a and _recorded(eng) == a


def test_a_row_ahead_of_the_view_is_repaired_by_the_next_rollback(lane):
    eng, profiles = lane
    a, b = _two_complete_tables(eng, profiles)
    sql = eng.statements.docs
    index.set_alias(eng, a, previous=None, action="promote", detail={"reason": "first"})
    with eng.transaction() as cur:  # a switch to b that stopped after its bookkeeping
        cur.execute(sql.ALIAS_SET, {"alias_name": sql.ALIAS, "t": b, "prev": a})
    assert index.alias_target(eng) == a
    state = promotion.rollback(eng)  # finishes the switch to b first, then goes back to a
    assert (state.target, state.previous) == (a, b) and _recorded(eng) == a
    with eng.transaction() as cur:  # a row naming a table that is gone is put back on the view's
        cur.execute(sql.ALIAS_SET, {"alias_name": sql.ALIAS, "t": "DOCS_GONE", "prev": b})
    assert index.repair_alias(eng) == a and _recorded(eng) == a and index.alias_target(eng) == a
    assert index.repair_alias(eng) is None

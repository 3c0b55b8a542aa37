"""Erasure that leaves nothing: one test per place an erased user's words could hide
(issue 35 "Erasure that leaves nothing", issue 36 defect 1 and risk 5).

Each test writes a distinctive word as the user, erases the user, and looks for the word
where it could survive: the full-text index's segment blocks, the database file's free
pages and write-ahead log, Part 5's shared caches, the audit row's hash, `store.get` of a
forgotten memory; on Oracle, the Oracle Text token table and the (absent) vector index.
"""
from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from workshop_lib import connect
from workshop_lib.core import lifecycle
from workshop_lib.core.store import SchemaPolicy
from workshop_lib.data import catalog
from workshop_lib.parts import grounded
from workshop_lib.parts.memory import writer

U, A = "ana-q7zx", "memory_agent"
WORDS = ["Trondheimsfjord", "zebracarrier", "Kvitsoyholm"]


@pytest.fixture
def eng(fresh_engine):
    """An empty store (conftest's fresh_engine: a temporary folder, or a scratch prefix on Oracle)."""
    return fresh_engine


def _write_as_user(eng) -> None:
    eng.store.add_user(U, "Ana, an analyst at Kvitsoyholm")
    for text in ("My home port is Trondheimsfjord.", "Our zebracarrier quote is 777 cents."):
        writer.observe_user_turn(eng, text, user_id=U, agent_id=A, thread_id="t-ana")
        eng.store.add([text], record_type="message", thread_ids="t-ana", user_ids=U, agent_ids=A)
    eng.store.add(["Bob's home port is Bergen."], record_type="memory", user_ids="bob", agent_ids=A)


def _file_bytes(eng) -> bytes:
    """The store's file and its write-ahead log, read as bytes."""
    return b"".join(p.read_bytes() for p in eng.path.parent.glob(eng.path.name + "*") if p.suffix != ".lock").lower()


# ---------------------------------------------------------------- embedded: the file itself
def test_no_erased_word_is_left_in_the_full_text_index_segments(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        _write_as_user(eng)
        blocks = lambda: b"".join(bytes(r[0]) for r in eng.query("SELECT block FROM RECORDS_FTS_data"))  # noqa: E731
        assert b"trondheimsfjord" in blocks()
        eng.store.erase_user(U, by="dpo")
        # FTS5 deletes add delete markers; the tokens stay in the blocks until segments merge.
        assert b"trondheimsfjord" not in blocks() and b"zebracarri" not in blocks()
        assert eng.store.user_trace(U, WORDS)["text_index_tokens"] == 0
        # the index still answers for others
        assert eng.query("SELECT COUNT(*) FROM RECORDS_FTS WHERE RECORDS_FTS MATCH 'bergen'")[0][0] == 1
    finally:
        eng.close()


def test_no_erased_word_or_id_is_left_in_the_database_file_or_its_log(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        _write_as_user(eng)
        raw = _file_bytes(eng)
        assert all(w.lower().encode() in raw for w in WORDS) and U.encode() in raw
        eng.store.erase_user(U, by="dpo")
        raw = _file_bytes(eng)  # the file and its write-ahead log, free pages included
        left = {w: raw.count(w.lower().encode()) for w in [*WORDS, U]}
        assert not any(left.values()), left
        assert eng.store.user_trace(U, [*WORDS, U])["file_term_bytes"] == 0
        assert eng.query("PRAGMA secure_delete")[0][0] == 1
    finally:
        eng.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("workshop.sqlite*")).lower()
    assert not any(w.lower().encode() in raw for w in [*WORDS, U])


def test_the_file_scan_counts_words_across_its_read_pieces(tmp_path, monkeypatch):
    path = tmp_path / "f.bin"
    path.write_bytes(b"xx ZebraCarrier yy zebracarrier" + b"." * 40 + b"zebracarrier")
    monkeypatch.setattr(lifecycle, "FILE_READ_BYTES", 7)  # every word straddles a boundary
    assert lifecycle.count_in_files([path], ["zebracarrier"]) == 3
    assert lifecycle.count_in_files([path], ["zebra", "carrier"]) == 6
    assert lifecycle.count_in_files([path], ["absent"]) == 0


# ---------------------------------------------------------------- both engines
def test_erasure_deletes_the_cache_rows_written_for_the_user_and_keeps_the_others(eng):
    if eng.name == "embedded":
        eng.open_store()
    catalog.seed(eng, progress=False)
    ana, bob = eng.scoped(U), eng.scoped("bob")
    grounded.ask(ana, "I need something to keep Trondheimsfjord salmon frozen")
    grounded.ask(bob, "Do you have flat racks in Hamburg?")
    caches = "SELECT COUNT(*) FROM RESPONSE_CACHE WHERE INSTR(LOWER(normalized_query), :w) > 0"
    assert eng.query(caches, {"w": "trondheimsfjord"})[0][0] == 1
    embedded = "SELECT COUNT(*) FROM EMBEDDING_CACHE WHERE INSTR(LOWER(source_text), :w) > 0"
    assert eng.query(embedded, {"w": "trondheimsfjord"})[0][0] == 1
    before = eng.store.user_trace(U, ["Trondheimsfjord"]) if hasattr(eng.store, "subject_hash") else {}
    detail = eng.store.erase_user(U, by="dpo")
    assert eng.query(caches, {"w": "trondheimsfjord"})[0][0] == 0
    assert eng.query(embedded, {"w": "trondheimsfjord"})[0][0] == 0
    assert before["cache_rows"] == 2 and before["cache_text_rows"] == 2  # the answer and the embedding
    assert detail["cache_rows"] == 2
    after = eng.store.user_trace(U, ["Trondheimsfjord"])
    assert (after["cache_rows"], after["cache_text_rows"]) == (0, 0), after
    assert eng.query(caches, {"w": "hamburg"})[0][0] == 1  # bob's answer stays cached
    assert grounded.ask(bob, "Do you have flat racks in Hamburg?").from_cache


def test_the_audit_names_the_user_by_a_keyed_hash_only(eng):
    eng.open_store() if eng.name == "embedded" else None
    eng.store.add_user(U, "Ana")
    eng.store.erase_user(U, by="dpo", reason="erasure request 42")
    audit = eng.store.audit_log()[-1]
    plain = hashlib.sha256(U.encode()).hexdigest()
    assert audit["subject_hash"] != plain and U not in str(audit)
    assert audit["subject_hash"] == eng.store.subject_hash(U) != eng.store.subject_hash("bob")
    assert eng.store.user_trace(U)["audit_rows_naming_user"] == 0


def test_audit_rows_of_an_older_version_are_rekeyed_when_the_key_is_made(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        old = hashlib.sha256(b"carl").hexdigest()  # what the previous version wrote
        with eng.transaction() as cur:
            cur.execute(eng.store.mem.AUDIT_INSERT, {"act": "erase_user", "subj": old, "actor": "dpo", "detail": "{}"})
        assert eng.store.user_trace("carl")["audit_rows_naming_user"] == 1
        eng.store.erase_user(U, by="dpo")
        subjects = [a["subject_hash"] for a in eng.store.audit_log()]
        assert old not in subjects and eng.store.subject_hash("carl") in subjects
        assert eng.store.user_trace("carl")["audit_rows_naming_user"] == 0
    finally:
        eng.close()


@pytest.mark.parametrize("how", ["forgotten", "superseded", "expired"])
def test_store_get_withholds_the_text_of_a_memory_that_is_not_live(eng, how):
    eng.open_store() if eng.name == "embedded" else None
    store = eng.store
    store.add(["My home port is Trondheimsfjord."], record_ids="m1", metadata={"value": "Trondheimsfjord"},
              user_ids=U, agent_ids=A)
    store.add(["My home port is Bergen."], record_ids="m2", user_ids=U, agent_ids=A)
    if how == "expired":
        store.set_expiry("memory", "m1", datetime.now(UTC) - timedelta(seconds=1))
    else:
        store.set_status("memory", "m1", how, by=U, replaced_by="m2" if how == "superseded" else None)
    rec = store.get("memory", "m1")
    assert rec is not None and rec.content is None and rec.metadata is None
    assert (rec.id, rec.user_id, rec.status) == ("m1", U, how)
    assert store.get("memory", "m2").content == "My home port is Bergen." and store.get("memory", "m2").status == "valid"
    history = store.history(user_id=U, agent_id=A)
    assert [h.record.content for h in history][0] == "My home port is Trondheimsfjord."  # history has its own call


def test_forgetting_twice_and_upserts_still_work_with_a_withheld_record(tmp_path):
    eng = connect("embedded", path=tmp_path)
    try:
        writer.observe_user_turn(eng, "My home port is Trondheimsfjord.", user_id=U, agent_id=A, thread_id="t")
        writer.observe_user_turn(eng, "Please forget my home port.", user_id=U, agent_id=A, thread_id="t")
        writer.observe_user_turn(eng, "Please forget my home port.", user_id=U, agent_id=A, thread_id="t")
        states = [(h.record.content, h.state.status) for h in eng.store.history(user_id=U, agent_id=A)]
        assert states == [("My home port is Trondheimsfjord.", "forgotten")]
    finally:
        eng.close()


# ---------------------------------------------------------------- Oracle only (live lane)
@pytest.mark.oracle
def test_oracle_erasure_purges_the_text_index_tokens(eng):
    if eng.name != "oracle":
        pytest.skip("the Oracle Text token table exists on the Oracle engine only")
    _write_as_user(eng)
    token_table = f"DR${eng.store.prefix}RECORDS_TEXT_IX$I"
    count = f"SELECT COUNT(*) FROM {token_table} WHERE token_text = 'TRONDHEIMSFJORD'"
    assert eng.query(count)[0][0] >= 1
    eng.store.erase_user(U, by="dpo")
    # Deleted documents' tokens stay in $I until CTX_DDL.OPTIMIZE_INDEX(..., 'FULL').
    assert eng.query(count)[0][0] == 0
    assert eng.store.user_trace(U, WORDS)["text_index_tokens"] == 0


@pytest.mark.oracle
def test_oracle_store_has_no_vector_index_and_an_old_one_is_dropped(eng):
    if eng.name != "oracle":
        pytest.skip("the HNSW index was an Oracle object")
    prefix = eng.store.prefix
    vector_indexes = ("SELECT COUNT(*) FROM user_indexes WHERE table_name = :t AND index_type LIKE '%VECTOR%'")
    assert eng.query(vector_indexes, {"t": f"{prefix}RECORD_CHUNKS"})[0][0] == 0
    with eng.transaction() as cur:  # a store made by the previous version
        cur.execute(f"""CREATE VECTOR INDEX {prefix}RECORD_CHUNKS_VEC_IX ON {prefix}RECORD_CHUNKS (embedding)
            ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95""")
    eng.open_store(SchemaPolicy.REQUIRE_EXISTING, table_name_prefix=prefix)
    assert eng.query(vector_indexes, {"t": f"{prefix}RECORD_CHUNKS"})[0][0] == 0


def test_sqlite_alone_keeps_deleted_words_which_is_why_erasure_purges(tmp_path):
    """The premise of the tests above, shown on a bare SQLite file: without secure_delete and an
    FTS5 merge, a deleted row's words stay in the file."""
    path = tmp_path / "bare.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    con.execute("INSERT INTO t VALUES ('zebracarrier quote')")
    con.commit()
    con.execute("DELETE FROM t")
    con.commit()
    con.close()
    assert b"zebracarrier" in path.read_bytes()

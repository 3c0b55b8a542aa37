"""Ids on both engines (issue 36 defects 4 and 5): one rule at the store, the scope and the
chat service. An id is not blank (Oracle stores '' as NULL: a record would become unscoped,
and a search by '' would match every unscoped row) and is measured in UTF-8 bytes, as
Oracle's VARCHAR2 columns are under the default length semantics.

Runs on the embedded engine always and on Oracle with ORACLE_DSN (`pytest -m oracle`)."""
from __future__ import annotations

import pytest

from workshop_lib.core.arguments import MAX_ID_BYTES, MAX_SCOPE_ID_BYTES, check_id
from workshop_lib.core.scope import check_scope_id

CJK = "港"  # 3 bytes in UTF-8


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000"])
@pytest.mark.parametrize("where", ["record_ids", "user_ids", "agent_ids", "thread_ids"])
def test_a_blank_id_is_refused_and_nothing_is_written(store, blank, where):
    with pytest.raises(ValueError, match="empty or blank"):
        store.add(["a memory"], **{where: blank})
    assert store.count() == 0


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_id_is_refused_by_every_read_and_delete(store, blank):
    store.add(["unscoped memory"], record_ids="m1")
    for call in (lambda: store.search("memory", user_id=blank), lambda: store.search("memory", agent_id=blank),
                 lambda: store.search("memory", thread_id=blank), lambda: store.list("memory", user_id=blank),
                 lambda: store.get("memory", blank), lambda: store.delete("memory", blank),
                 lambda: store.update("memory", blank, text="x"), lambda: store.delete_thread(blank),
                 lambda: store.add_user(blank, "profile")):
        with pytest.raises(ValueError, match="empty or blank"):
            call()
    assert [r.id for r in store.list("memory")] == ["m1"]


def test_ids_are_measured_in_bytes_and_the_longest_one_is_stored(store):
    longest = CJK * (MAX_ID_BYTES // 3)  # 170 characters, 510 bytes: fits VARCHAR2(512) on Oracle
    store.add(["a memory about the port"], record_ids=longest, user_ids=longest, agent_ids=longest,
              thread_ids=longest)
    (record,) = store.list("memory", user_id=longest, agent_id=longest, thread_id=longest)
    assert record.id == longest and record.user_id == longest and record.thread_id == longest
    too_long = CJK * (MAX_ID_BYTES // 3 + 1)  # 171 characters, 513 bytes
    for where in ("record_ids", "user_ids", "thread_ids"):
        with pytest.raises(ValueError, match="513 bytes in UTF-8 .171 characters.; the limit is 512"):
            store.add(["another"], **{where: too_long})
    assert store.count() == 1


def test_the_scope_and_the_service_take_the_same_byte_limit():
    assert check_scope_id(CJK * 66, "user_id") == CJK * 66  # 198 bytes
    with pytest.raises(ValueError, match="210 bytes in UTF-8 .70 characters.; the limit is 200"):
        check_scope_id(CJK * 70, "user_id")
    with pytest.raises(ValueError, match="empty or blank"):
        check_scope_id(" ", "user_id")
    assert MAX_SCOPE_ID_BYTES == 200 and check_id(None, "x", optional=True) is None
    with pytest.raises(ValueError, match="NUL"):
        check_id("a\x00b", "x")


def test_a_scoped_engine_refuses_a_user_id_the_telemetry_could_not_store(fresh_engine):
    with pytest.raises(ValueError, match="bytes in UTF-8"):
        fresh_engine.scoped(CJK * 70)
    assert fresh_engine.scoped(CJK * 66).user_id == CJK * 66

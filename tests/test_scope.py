"""Scope as a value (core/scope.py) and the Workspace that holds it (core/workspace.py): a user
reads their own memories and the shared schema knowledge in ONE statement, never the workshop
user's own notes nor another user's, and the first n of that statement are the first n of both
scopes together (no oversampling, no merge in Python)."""
from __future__ import annotations

import dataclasses

import pytest

from workshop_lib.core.scope import DEFAULT, SHARED, Scope
from workshop_lib.core.workspace import Workspace
from workshop_lib.parts import retrieval

FACT = "Column SUPPLYCHAIN.VESSELS.CAPACITY_TEU: vessel capacity in twenty-foot equivalent units (TEU)."
OWNER_NOTE = "The workshop user's own note: vessel capacity in TEU is secret MARMOT3311."
ALICE_NOTE = "Alice's note: vessel capacity in TEU matters for the Rotterdam run."
BOB_NOTE = "Bob's note: vessel capacity in TEU is secret LYNX2207."
QUERY = "vessel capacity in TEU"


@pytest.fixture
def eng(fresh_engine):
    store = fresh_engine.store
    store.add([FACT], record_ids="schema:column:SUPPLYCHAIN.VESSELS.CAPACITY_TEU",
              metadata={"kind": "column", "subject": "SUPPLYCHAIN.VESSELS.CAPACITY_TEU"},
              user_ids=SHARED.user, agent_ids=SHARED.agent)
    store.add([OWNER_NOTE], record_ids="owner-note", metadata={"kind": "note"}, user_ids=SHARED.user,
              agent_ids=SHARED.agent)
    store.add([ALICE_NOTE], record_ids="alice-note", metadata={"kind": "note"}, user_ids="alice",
              agent_ids=SHARED.agent)
    store.add([BOB_NOTE], record_ids="bob-note", metadata={"kind": "note"}, user_ids="bob", agent_ids=SHARED.agent)
    return fresh_engine


def test_a_scope_is_a_frozen_checked_value():
    alice = Scope("alice", "agent")
    with pytest.raises(dataclasses.FrozenInstanceError):
        alice.user = "bob"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Scope("", "agent")
    assert alice.as_user("bob") == Scope("bob", "agent")
    assert alice.binds() == {"u": "alice", "a": "agent", "shared_u": SHARED.user, "shared_a": SHARED.agent}
    assert DEFAULT == SHARED


def test_a_scoped_engine_is_a_workspace_on_the_same_store_without_attribute_forwarding(eng):
    alice = eng.scoped("alice")
    assert isinstance(alice, Workspace) and alice.scope == Scope("alice", eng.agent_id)
    assert alice.store is eng.store and alice.db is eng
    assert not hasattr(Workspace, "__getattr__")
    assert eng.scoped(eng.user_id) is eng and alice.scoped(eng.user_id) is eng and alice.scoped("alice") is alice
    with pytest.raises(AttributeError):
        alice.path  # type: ignore[attr-defined]  # noqa: B018 - only the Engine's interface, by name


@pytest.mark.parametrize("read", ["hybrid", "keyword", "vector", "memory client"])
def test_one_statement_reads_the_users_scope_and_the_shared_knowledge_only(eng, read):
    alice = eng.scoped("alice")
    calls = {
        "hybrid": lambda: [h["record_id"] for h in retrieval.hybrid_rrf_search_memories(alice, QUERY, k=10)],
        "keyword": lambda: [h["record_id"] for h in retrieval.keyword_search_memories(alice, QUERY, k=10)],
        "vector": lambda: retrieval.vector_ranked_ids(alice, QUERY, 10),
        "memory client": lambda: [h.id for h in alice.memory.search(QUERY, max_results=10)],
    }
    with eng.trace() as sent:
        ids = calls[read]()
    reads = [s for s in sent if s.statement.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert len(reads) == 1, [s.statement[:80] for s in reads]
    assert {"shared_u", "shared_a"} <= set(reads[0].binds)
    assert set(ids) == {"alice-note", "schema:column:SUPPLYCHAIN.VESSELS.CAPACITY_TEU"}


def test_the_workshop_user_reads_its_own_notes_and_the_facts_once(eng):
    ids = [h["record_id"] for h in retrieval.hybrid_rrf_search_memories(eng, QUERY, k=10)]
    assert sorted(ids) == ["owner-note", "schema:column:SUPPLYCHAIN.VESSELS.CAPACITY_TEU"]
    assert len(retrieval.vector_ranked_ids(eng, QUERY, 10)) == 2


def test_the_first_n_are_the_first_n_of_both_scopes_together(eng):
    """With n smaller than either scope, the union's order is the exact order by distance."""
    store = eng.store
    for i in range(6):
        store.add([f"Alice's memo {i}: TEU capacity figure {i}"], record_ids=f"alice-{i}", user_ids="alice",
                  agent_ids=SHARED.agent)
        store.add([f"Column SUPPLYCHAIN.T{i}.C: TEU capacity column {i}"], record_ids=f"schema:column:T{i}",
                  user_ids=SHARED.user, agent_ids=SHARED.agent)
        store.add([f"Owner memo {i}: TEU capacity figure {i}"], record_ids=f"owner-{i}", user_ids=SHARED.user,
                  agent_ids=SHARED.agent)
    own = store.search(QUERY, k=50, user_id="alice", agent_id=SHARED.agent, exact_user_match=True,
                       exact_agent_match=True, record_types={"memory"})
    shared = store.search(QUERY, k=50, user_id=SHARED.user, agent_id=SHARED.agent, exact_user_match=True,
                          exact_agent_match=True, record_types={"memory"})
    both = sorted([p for p in own] + [p for p in shared if p[0].id.startswith("schema:")], key=lambda p: p[1])
    want = [r.id for r, _ in both[:4]]
    assert retrieval.vector_ranked_ids(eng.scoped("alice"), QUERY, 4) == want
    assert [h.id for h in eng.scoped("alice").memory.search(QUERY, max_results=4)] == want


def test_the_store_contract_search_reads_no_shared_row(eng):
    pairs = eng.store.search(QUERY, k=10, user_id="alice", agent_id=SHARED.agent, exact_user_match=True,
                             exact_agent_match=True, record_types={"memory"})
    assert [r.id for r, _ in pairs] == ["alice-note"]

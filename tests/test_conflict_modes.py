"""What a new memory does to older ones: precise supersede, conflict modes, dry runs,
update() re-planning and restore() of superseded memories."""

from __future__ import annotations

import pytest
from helpers import db_rows

from graphmem import GraphMemory, ValidationError
from graphmem.text.conflict import detect_conflict


def edges(mem: GraphMemory, table: str) -> set[tuple[str, str]]:
    rows = db_rows(mem, f"MATCH (a:Memory)-[:{table}]->(b:Memory) RETURN a.id AS a, b.id AS b")
    return {(r["a"], r["b"]) for r in rows}


def test_a_move_to_what_the_old_memory_already_says_hides_nothing(mem):
    old = mem.remember("The Billing API publishes InvoiceCreated events to Kafka")
    new = mem.remember("Decision 2025-09: the Billing API moved from REST polling to Kafka events")
    assert new.action == "created" and not new.superseded
    assert mem.get(old.id).active


def test_a_partial_negation_contradicts_and_keeps_the_rest_findable(mem):
    old = mem.remember("The Billing API is written in Kotlin and runs on Kubernetes")
    new = mem.remember("The Billing API does not run on Kubernetes")
    assert new.action == "contradicted" and new.contradicts == [old.id]
    assert new.reason.startswith("partial negation flip")
    assert mem.get(old.id).active
    assert old.id in {h.memory.id for h in mem.recall("Which language is the Billing API in?")}


def test_a_changed_number_on_an_event_is_a_second_event(mem):
    first = mem.remember("Fixed a memory leak in the ingest worker in release 262.1")
    second = mem.remember("Fixed a memory leak in the ingest worker in release 456.3")
    assert second.action == "created" and second.id != first.id
    assert mem.get(first.id).active


def test_different_people_and_speakers_never_merge_or_supersede(mem):
    a = mem.remember(
        "Allan Gilmour\nAllan Gilmour (1805–1884) was a Scottish-Canadian timber merchant who "
        "moved to Ottawa."
    )
    b = mem.remember(
        "Allan Gilmour Sr.\nAllan Gilmour Sr. (1775–1849) was a Scottish timber merchant who "
        "moved to Glasgow."
    )
    assert b.action == "created" and mem.get(a.id).active
    joanna = mem.remember("Joanna: See ya Nate!")
    nate = mem.remember("Nate: See you later Joanna!")
    assert nate.action == "created" and nate.id != joanna.id


def test_dedupe_false_neither_merges_nor_supersedes(mem):
    old = mem.remember("The API rate limit is 100 requests/min")
    same = mem.remember("The API rate limit is 100 requests/min", dedupe=False)
    assert same.action == "created" and same.id != old.id
    new = mem.remember("The API rate limit is 200 requests/min", dedupe=False)
    assert new.action == "contradicted" and set(new.contradicts) == {old.id, same.id}
    assert mem.get(old.id).active and mem.get(same.id).active


@pytest.mark.parametrize(
    ("mode", "action", "contradicts"),
    [("detect", "superseded", False), ("flag", "contradicted", True), ("off", "created", False)],
)
def test_conflict_modes(mem, mode, action, contradicts):
    old = mem.remember("The staging database runs PostgreSQL 15")
    new = mem.remember("The staging database runs PostgreSQL 16", conflicts=mode)
    assert new.action == action
    assert mem.get(old.id).active is (mode != "detect")
    assert ((new.id, old.id) in edges(mem, "Contradicts")) is contradicts
    if mode == "off":
        assert not edges(mem, "Supersedes") and not edges(mem, "Contradicts")
        assert old.id in new.related  # still linked as related: nothing hidden, nothing lost


def test_conflicts_is_validated_and_defaults_for_many(mem):
    with pytest.raises(ValidationError, match="conflicts"):
        mem.remember("Anything", conflicts="maybe")
    old = mem.remember("The worker pool size is 8")
    results = mem.remember_many(
        [{"content": "The worker pool size is 16"}, {"content": "The worker pool size is 32"}],
        conflicts="flag",
    )
    assert [r.action for r in results] == ["contradicted", "contradicted"]
    assert mem.get(old.id).active


def test_readable_reasons():
    signal = detect_conflict(
        "The design review is on Thursday", "The design review is on Wednesday"
    )
    assert signal is not None and signal.detail == "value changed: 'Wednesday' → 'Thursday'"
    signal = detect_conflict("The limit is 200/min (per key)", "The limit is 100/min (per key)")
    assert signal is not None and signal.detail == "value changed: '100/min' → '200/min'"


def test_dry_run_plans_without_writing(mem):
    old = mem.remember("The request timeout for the search API is 30 seconds")
    before = mem.stats()
    results = mem.remember_many(
        [
            {"content": "The request timeout for the search API is 30 seconds"},
            {"content": "The request timeout for the search API is 45 seconds"},
            {"content": "Alice prefers green tea"},
        ],
        dry_run=True,
    )
    assert [r.action for r in results] == ["reinforced", "superseded", "created"]
    assert results[0].id == old.id and results[1].superseded == [old.id]
    assert results[2].memory.content == "Alice prefers green tea"
    after = mem.stats()
    assert (after.memories, after.edges) == (before.memories, before.edges)
    assert mem.get(old.id).active and mem.get(old.id).strength == 1


def test_update_recomputes_inferred_tags_and_keeps_user_ones(mem):
    r = mem.remember("Alice reviews changes to src/auth/jwt_utils.py", tags=["security"])
    other = mem.remember("Gardening needs patience")
    mem.link(r.id, other.id, "relates_to", weight=0.9)
    assert {"alice", "src/auth/jwt_utils.py", "security"} <= set(mem.get(r.id).tags)
    after = mem.update(r.id, content="Bruno reviews changes to src/billing/invoice.py")
    assert "security" in after.tags  # given by the user: kept
    assert {"bruno", "src/billing/invoice.py"} <= set(after.tags)  # inferred from the new text
    assert not {"alice", "src/auth/jwt_utils.py"} & set(after.tags)  # no longer true
    assert (r.id, other.id) in edges(mem, "RelatesTo")  # the user's link stays
    assert "alice" not in {t.name for t in mem.tags()}  # the orphaned tag went


def test_update_runs_the_conflict_check(mem):
    old = mem.remember("The payments service listens on port 8080")
    draft = mem.remember("Gardening needs patience")
    mem.update(draft.id, content="The payments service listens on port 9090")
    stale = mem.get(old.id)
    assert not stale.active and stale.superseded_by == draft.id
    assert (draft.id, old.id) in edges(mem, "Supersedes")


def test_restore_keeps_a_superseded_memory_superseded(mem):
    old = mem.remember("The backend uses Postgres 15")
    new = mem.remember("The backend uses Postgres 16")
    assert new.superseded == [old.id]
    mem.forget(old.id)
    restored = mem.restore(old.id)
    assert not restored.active and restored.superseded_by == new.id
    assert (new.id, old.id) in edges(mem, "Supersedes")
    assert mem.recall("Which Postgres does the backend use?")[0].memory.id == new.id
    current = mem.restore(old.id, unsupersede=True)
    assert current.active and current.superseded_by is None
    assert (new.id, old.id) not in edges(mem, "Supersedes")

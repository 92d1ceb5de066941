"""Time is part of truth: a memory outside its validity window is never presented as current,
``at=T`` answers with what was valid at T whether or not ``maintain`` has run, and a restore
sticks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from helpers import db_rows

from graphmem import GraphMemory

# What is tested is validity windows and time, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


NOW = datetime.now(timezone.utc)


def ids(hits: object) -> list[str]:
    return [h.memory.id for h in hits]  # type: ignore[attr-defined]


def test_recall_and_search_leave_out_what_is_not_valid_now(mem: GraphMemory) -> None:
    expired = mem.remember(
        "The checkout service runs on Java 11",
        valid_from=NOW - timedelta(days=60), valid_until=NOW - timedelta(days=1),
    ).id  # fmt: skip
    future = mem.remember(
        "The checkout service runs on Java 21", valid_from=NOW + timedelta(days=1)
    ).id
    current = mem.remember("The checkout service is deployed to eu-west-1").id
    question = "which Java does the checkout service run on?"
    # Before maintain() has run too: the window decides, not a later clean-up.
    assert ids(mem.recall(question)) == [current]
    assert ids(mem.search(question)) == [current]
    # Asked for, they come back flagged, never as current facts.
    hits = {h.memory.id: h.flags for h in mem.recall(question, include_history=True)}
    assert "expired" in hits[expired] and "not_yet_valid" in hits[future]
    assert not {"expired", "not_yet_valid"} & set(hits[current])
    assert expired in ids(mem.search(question, include_inactive=True))


def test_at_sees_what_was_valid_then_before_and_after_maintain(mem: GraphMemory) -> None:
    start, end = NOW - timedelta(days=30), NOW - timedelta(days=2)
    expired = mem.remember(
        "The office wifi network is called Gopher", valid_from=start, valid_until=end
    ).id
    stale = mem.remember("Maybe the staging cluster runs on Nomad", confidence=0.01).id
    forgotten = mem.remember("The staging cluster password hint is the cat's name").id
    mem.forget(forgotten)
    then = NOW - timedelta(days=10)
    before = set(ids(mem.recall("office wifi network name", at=then)))
    assert expired in before
    report = mem.maintain()
    assert report.expired == [expired] and report.dormant == [stale]
    assert set(ids(mem.recall("office wifi network name", at=then))) == before
    assert expired not in ids(mem.recall("office wifi network name"))
    # A dormant memory was true: as of now (it is still in its window) it counts at at=.
    assert stale in ids(mem.recall("staging cluster Nomad", at=datetime.now(timezone.utc)))
    assert stale not in ids(mem.recall("staging cluster Nomad"))
    # A forgotten one stays hidden at any time: forgetting is the user's word.
    assert forgotten not in ids(
        mem.recall("staging cluster password hint", at=datetime.now(timezone.utc))
    )


def test_a_restatement_of_an_expired_fact_is_a_new_current_memory(mem: GraphMemory) -> None:
    old = mem.remember(
        "The release train leaves every Tuesday", valid_until=NOW - timedelta(days=1)
    ).id
    again = mem.remember("The release train leaves every Tuesday")
    assert again.action == "created" and again.id != old
    assert ids(mem.recall("when does the release train leave?"))[0] == again.id


def test_unsupersede_sticks_after_maintain(mem: GraphMemory) -> None:
    old = mem.remember("The API rate limit is 100 requests per minute").id
    new = mem.remember("The API rate limit is 200 requests per minute", source="user_corrected")
    assert new.superseded == [old]
    restored = mem.restore(old, unsupersede=True)
    assert restored.active and restored.valid_until is None
    mem.maintain()
    assert mem.get(old).active
    assert old in ids(mem.recall("API rate limit"))


def test_unsupersede_keeps_an_end_of_its_own(mem: GraphMemory) -> None:
    ends = NOW + timedelta(days=30)
    old = mem.remember("The holiday code freeze applies to the payments repo", valid_until=ends).id
    mem.remember("The holiday code freeze no longer applies to the payments repo",
                 source="user_corrected", supersedes=[old])  # fmt: skip
    restored = mem.restore(old, unsupersede=True)
    assert restored.valid_until is not None
    assert abs(restored.valid_until.replace(tzinfo=timezone.utc) - ends) < timedelta(seconds=1)


def test_a_restored_dormant_memory_stays_restored(mem: GraphMemory) -> None:
    stale = mem.remember("Maybe the staging cluster runs on Nomad", confidence=0.01).id
    assert mem.maintain().dormant == [stale]
    assert mem.restore(stale).active
    assert mem.maintain().dormant == []
    assert mem.get(stale).active


def test_update_keeps_the_old_content_as_a_version(mem: GraphMemory) -> None:
    first = mem.remember("The staging database is Postgres 14", session_id="s1").id
    before_update = datetime.now(timezone.utc)
    mem.update(first, content="The staging database is Postgres 16")
    mem.update(first, content="The staging database is Postgres 17")
    chain = mem.history(first)
    assert [m.content for m in chain] == [
        "The staging database is Postgres 14",
        "The staging database is Postgres 16",
        "The staging database is Postgres 17",
    ]
    old, middle, current = chain
    assert current.id == first and current.active
    # Who wrote each version and when it held: source, session, created_at .. valid_until.
    assert not old.active and old.superseded_by == first and old.session_id == "s1"
    assert old.valid_until is not None and old.valid_until <= middle.valid_until  # type: ignore[operator]
    # The graph shows it: a Supersedes edge from the memory to each of its versions.
    reasons = db_rows(
        mem,
        "MATCH (n:Memory {id: $id})-[s:Supersedes]->(o:Memory) RETURN o.content AS c, s.reason AS r",
        {"id": first},
    )
    assert {r["c"] for r in reasons} == {old.content, middle.content}
    assert {r["r"] for r in reasons} == {"earlier version (update)"}
    # As of a time before the update, the old content answers; now, the current one.
    assert ids(mem.recall("staging database version", at=before_update)) == [old.id]
    assert ids(mem.recall("staging database version"))[0] == first
    assert old.id not in ids(mem.recall("staging database version"))
    # maintain() changes nothing history() or at= needs: the versions, their windows, and
    # what answers as of before the update.
    mem.maintain()
    after = mem.history(first)
    assert [(m.id, m.content, m.valid_from, m.valid_until) for m in after] == [
        (m.id, m.content, m.valid_from, m.valid_until) for m in chain
    ]
    assert ids(mem.recall("staging database version", at=before_update)) == [old.id]
    assert ids(mem.recall("staging database version"))[0] == first


def test_editing_a_superseded_memory_keeps_its_closed_window(mem: GraphMemory) -> None:
    # Correcting the text of what held then must not move its start past its end (an
    # inverted window made every later update fail on fields the caller never passed).
    old = mem.remember("billing-api depends on ledger", kind="fact").id
    mem.remember("billing-api depends on ledger-v2", kind="fact", supersedes=[old])
    closed = mem.get(old)
    assert closed.valid_until is not None
    mem.update(old, content="billing-api depended on ledger v1")
    edited = mem.get(old)
    assert edited.content == "billing-api depended on ledger v1"
    assert edited.valid_until == closed.valid_until
    assert edited.valid_from is None or edited.valid_from < edited.valid_until
    mem.update(old, content="billing-api depended on ledger v1.2")  # raised before
    assert mem.get(old).content == "billing-api depended on ledger v1.2"
    # A correction of what held then: as of a time in the window the corrected text answers,
    # not the text it corrected (history keeps every version).
    during = closed.valid_until - timedelta(microseconds=1)  # type: ignore[operator]
    answers = [h.memory.content for h in mem.recall("what does billing-api depend on", at=during)]
    assert "billing-api depended on ledger v1.2" in answers
    assert not {"billing-api depends on ledger", "billing-api depended on ledger v1"} & set(answers)
    assert {
        "billing-api depends on ledger",
        "billing-api depended on ledger v1",
        "billing-api depended on ledger v1.2",
    } <= {m.content for m in mem.history(old)}
    # An expired memory likewise.
    gone = mem.remember(
        "The checkout service runs on Java 11",
        valid_from=NOW - timedelta(days=60), valid_until=NOW - timedelta(days=1),
    ).id  # fmt: skip
    mem.update(gone, content="The checkout service ran on Java 11.0.2")
    after = mem.get(gone)
    assert after.valid_from is not None and after.valid_until is not None
    assert after.valid_from < after.valid_until

"""The write path: actions, validation, secrets, duplicates, conflicts, tags, links."""

from __future__ import annotations

import pytest
from helpers import db_rows

from graphmem import Config, GraphMemory, NotFoundError, SecretError, ValidationError

# What is tested is the write path (validation, secrets, tags, links), not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def count(mem: GraphMemory) -> int:
    return db_rows(mem, "MATCH (m:Memory) RETURN count(m) AS n")[0]["n"]


def test_remember_creates_with_fields(mem):
    r = mem.remember(
        "The API rate limit is 100 requests/min",
        kind="fact",
        tags=["API", "#limits"],
        project="billing",
        session_id="s1",
        source="observed",
        confidence=0.8,
        pinned=True,
        file_paths=["src/api/limits.py"],
        metadata={"ticket": "OPS-12"},
        valid_from="2026-01-01",
    )
    assert r.action == "created"
    m = mem.get(r.id)
    assert m.content == "The API rate limit is 100 requests/min"
    assert {"api", "limits", "src/api/limits.py"} <= set(m.tags)
    assert (m.scope, m.project, m.session_id, m.source) == ("project", "billing", "s1", "observed")
    assert m.confidence == pytest.approx(0.8)
    assert m.pinned and m.active
    assert m.metadata == {"ticket": "OPS-12"}
    assert m.valid_from.year == 2026
    assert m.content_hash and m.created_at.tzinfo is not None


def test_caller_chosen_id_and_duplicate_id(mem):
    r = mem.remember("Deploys happen on Tuesdays", id="deploy-day")
    assert r.id == "deploy-day"
    with pytest.raises(ValidationError, match="already exists"):
        mem.remember("Something entirely different about cats", id="deploy-day")
    assert count(mem) == 1


@pytest.mark.parametrize(
    ("content", "kwargs", "message"),
    [
        ("", {}, "empty"),
        ("   \n\t ", {}, "empty"),
        ("x" * 20_001, {}, "limit"),
        ("has a NUL \x00 byte", {}, "NUL"),
        (123, {}, "string"),
        ("fine", {"kind": "rumour"}, "kind"),
        ("fine", {"scope": "galaxy"}, "scope"),
        ("fine", {"scope": "project"}, "project"),
        ("fine", {"source": "gossip"}, "source"),
        ("fine", {"confidence": 1.5}, "confidence"),
        ("fine", {"confidence": "high"}, "confidence"),
        ("fine", {"tags": "ok but then", "metadata": "nope"}, "metadata"),
        ("fine", {"tags": [""]}, "tags"),
        ("fine", {"id": "has space"}, "id"),
        ("fine", {"valid_from": "not a date"}, "valid_from"),
        ("fine", {"valid_from": "2026-02-01", "valid_until": "2026-01-01"}, "valid_until"),
        ("fine", {"pinned": "yes"}, "pinned"),
        ("fine", {"colour": "blue"}, "Unknown field"),
        ("fine", {"metadata": {"x": object()}}, "JSON"),
    ],
)
def test_bad_input_is_rejected_and_nothing_is_written(mem, content, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        mem.remember(content, **kwargs)
    assert count(mem) == 0


def test_size_limit_is_configurable(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path, config=Config(max_content_chars=10)) as m:
        with pytest.raises(ValidationError):
            m.remember("eleven chars")
        assert m.remember("ten chars!").action == "created"


@pytest.mark.parametrize(
    "secret",
    [
        "The deploy key is AKIAIOSFODNN7EXAMPLE",
        "use token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        "password=hunter2isnotsafe",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----",
    ],
)
def test_secrets_are_never_stored(mem, secret):
    with pytest.raises(SecretError) as info:
        mem.remember(secret)
    assert info.value.kinds
    assert count(mem) == 0
    assert db_rows(mem, "MATCH (t:Tag) RETURN count(t) AS n")[0]["n"] == 0


def test_secrets_in_metadata_and_many_leave_store_unchanged(mem):
    with pytest.raises(SecretError):
        mem.remember("ordinary text", metadata={"auth": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"})
    with pytest.raises(SecretError, match="item 1"):
        mem.remember_many(
            [{"content": "fine"}, {"content": "password=hunter2isnotsafe"}], on_secret="refuse"
        )
    assert count(mem) == 0


def test_redaction_when_asked(mem):
    r = mem.remember(
        "CI uses token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 for pushes", redact=True
    )
    stored = mem.get(r.id).content
    assert "ghp_" not in stored and "REDACTED" in stored


def test_exact_duplicate_reinforces(mem):
    a = mem.remember("Staging runs on Kubernetes 1.29", tags=["staging"])
    b = mem.remember("Staging  runs on Kubernetes 1.29", tags=["k8s"])
    assert b.action == "reinforced" and b.id == a.id
    m = mem.get(a.id)
    assert m.strength == 2
    assert {"staging", "k8s"} <= set(m.tags)
    assert len(m.reinforcements) == 1 and m.reinforcements[0]["reason"] == "exact duplicate"
    assert count(mem) == 1


def test_near_duplicate_reinforces(mem):
    a = mem.remember("The user prefers dark mode in every editor.")
    b = mem.remember("The user prefers dark mode in every editor!")
    assert b.action == "reinforced" and b.id == a.id
    assert "near duplicate" in b.reason
    assert mem.get(a.id).confidence == pytest.approx(1.0)


def test_dedupe_false_creates(mem):
    a = mem.remember("Standup is at 9:30")
    b = mem.remember("Standup is at 9:30", dedupe=False)
    assert b.action == "created" and b.id != a.id


def test_episodes_are_never_merged_or_superseded(mem):
    a = mem.remember("User asked about the rate limit", kind="episode", session_id="s1")
    b = mem.remember("User asked about the rate limit", kind="episode", session_id="s1")
    assert b.action == "created" and a.id != b.id
    assert mem.get(a.id).active


def test_value_change_supersedes(mem):
    old = mem.remember("The API rate limit is 100 requests/min")
    new = mem.remember("The API rate limit is 200 requests/min")
    assert new.action == "superseded"
    assert new.superseded == [old.id]
    before = mem.get(old.id)
    assert not before.active and before.superseded_by == new.id
    assert [m.id for m in mem.history(new.id)] == [old.id, new.id]
    assert [m.id for m in mem.history(old.id)] == [old.id, new.id]
    assert [h.memory.id for h in mem.search("API rate limit")] == [new.id]
    edge = db_rows(
        mem,
        "MATCH (a:Memory)-[s:Supersedes]->(b:Memory) RETURN a.id AS a, b.id AS b, s.reason AS r",
    )
    assert edge[0]["a"] == new.id and edge[0]["b"] == old.id and edge[0]["r"]


@pytest.mark.embedder("real")  # how near the model puts the two texts
def test_different_headings_never_conflict_or_merge(mem):
    # Each pair is alike (cosine >= 0.75) and the second carries a correction cue ("rather
    # than", "moved to"), but the headings name different subjects.
    pairs = [
        (
            "Heinkel HD 32\nThe Heinkel HD 32 was a trainer biplane developed in Germany in the "
            "1920s, with two cockpits.",
            "Heinkel HD 38\nThe Heinkel HD 38 was a fighter biplane developed in Germany in the "
            "1920s, with one cockpit rather than two.",
        ),
        (
            "Metallica\nMetallica is an American heavy metal band formed in 1981 in Los Angeles.",
            "List of songs performed live by Metallica\nMetallica is an American heavy metal "
            "band from Los Angeles; it later moved to San Francisco.",
        ),
    ]
    for old_text, new_text in pairs:
        first = mem.remember(old_text)
        second = mem.remember(new_text)
        assert second.action == "created", new_text
        assert not second.superseded and not second.contradicts
        assert mem.get(first.id).active
    # Without headings the same cue is a correction.
    old = mem.remember("The Kestrel team sits on the third floor.")
    new = mem.remember("The Kestrel team moved to the fifth floor.")
    assert new.action == "superseded" and new.superseded == [old.id]
    # The same heading with a changed value is an update too.
    old = mem.remember("Atlas Service\nThe Atlas service listens on port 8080.")
    new = mem.remember("Atlas Service\nThe Atlas service listens on port 9090.")
    assert new.action == "superseded" and new.superseded == [old.id]


def test_negation_flip_supersedes(mem):
    old = mem.remember("Use tabs for indentation in the Go services")
    new = mem.remember("Never use tabs for indentation in the Go services")
    assert new.action == "superseded" and new.superseded == [old.id]


def test_less_trusted_source_contradicts_instead(mem):
    old = mem.remember("The API rate limit is 100 requests/min", source="user_stated")
    new = mem.remember("The API rate limit is 500 requests/min", source="inferred")
    assert new.action == "contradicted"
    assert new.contradicts == [old.id]
    assert mem.get(old.id).active and mem.get(new.id).active
    rows = db_rows(mem, "MATCH (a:Memory)-[c:Contradicts]->(b:Memory) RETURN a.id AS a, b.id AS b")
    assert rows == [{"a": new.id, "b": old.id}]


def test_pinned_memory_is_not_superseded_automatically(mem):
    old = mem.remember("The API rate limit is 100 requests/min", pinned=True)
    new = mem.remember("The API rate limit is 300 requests/min")
    assert new.action == "contradicted" and mem.get(old.id).active


def test_explicit_supersedes_wins(mem):
    old = mem.remember("Release notes go in CHANGELOG.md")
    new = mem.remember("Release notes now live in docs/releases/", supersedes=[old.id])
    assert new.action == "superseded" and new.superseded == [old.id]
    assert mem.get(old.id).superseded_by == new.id
    with pytest.raises(NotFoundError):
        mem.remember("Whatever replaces a ghost", supersedes=["no-such-id"])


def test_unrelated_memories_do_not_conflict(mem):
    mem.remember("The API rate limit is 100 requests/min")
    r = mem.remember("Alice prefers green tea in the afternoon")
    assert r.action == "created" and not r.superseded and not r.contradicts


def test_tags_are_inferred_and_normalised(mem):
    r = mem.remember(
        "Alice fixed a bug in src/auth/jwt_utils.py using PyJWT #security", tags=["Auth "]
    )
    tags = set(mem.get(r.id).tags)
    assert {"auth", "security", "src/auth/jwt_utils.py", "alice"} <= tags
    r2 = mem.remember("alice reviews pull requests on Fridays", tags=["AUTH"])
    assert (
        db_rows(mem, "MATCH (t:Tag {name: 'auth'})<-[:HasTag]-(m) RETURN count(m) AS n")[0]["n"]
        == 2
    )
    assert "auth" in mem.get(r2.id).tags


def test_related_memories_are_linked_at_write_time(mem):
    a = mem.remember("The billing service stores invoices in PostgreSQL")
    b = mem.remember("Invoices in the billing service are archived to S3 after a year")
    assert a.id in b.related
    rows = db_rows(
        mem,
        "MATCH (x:Memory {id: $b})-[r:RelatesTo]->(y:Memory {id: $a}) RETURN r.weight AS w, r.source AS s",
        {"a": a.id, "b": b.id},
    )
    assert len(rows) == 1 and 0 < rows[0]["w"] <= 1 and rows[0]["s"] == "similarity"


def test_session_turns_are_linked_in_sequence(mem):
    ids = [
        mem.remember(text, kind="episode", session_id="chat-1").id
        for text in ("I'm planning a trip", "Where to?", "Lisbon, in May")
    ]
    rows = db_rows(
        mem,
        "MATCH (a:Memory)-[r:RelatesTo {source: 'sequence'}]->(b:Memory) RETURN a.id AS a, b.id AS b",
    )
    assert {(r["a"], r["b"]) for r in rows} == {(ids[0], ids[1]), (ids[1], ids[2])}


def test_remember_many_batches_and_sees_earlier_items(mem):
    items = [
        {"content": f"Service number {i} listens on port {8000 + i}", "tags": ["ports"]}
        for i in range(40)
    ]
    items.append({"content": "Service number 3 listens on port 8003", "tags": ["ports"]})
    seen = []
    results = mem.remember_many(
        items, batch_size=16, progress=lambda done, total: seen.append((done, total))
    )
    assert len(results) == 41
    assert results[-1].action == "reinforced" and results[-1].id == results[3].id
    assert seen[-1] == (41, 41)
    assert count(mem) == 40
    assert mem.search("which service listens on port 8003?", limit=1)[0].memory.id in {
        r.id for r in results
    }


def test_a_fact_restated_after_its_correction_in_one_call_is_current_again(mem, make_mem):
    """A, then B replacing A, then A again: the last word is A, in one batch as in one
    call per item. The repeat must not reinforce the memory B superseded (hiding A)."""
    items = [
        {"content": "The VPN gateway is at 10.0.0.1"},
        {"content": "The VPN gateway is at 10.0.0.2"},
        {"content": "The VPN gateway is at 10.0.0.1"},
    ]
    together = mem.remember_many(items)
    other = make_mem()
    serial = [other.remember_many([item])[0] for item in items]
    assert [r.action for r in together] == [r.action for r in serial]
    for store, results in ((mem, together), (other, serial)):
        assert [store.get(r.id).active for r in results] == [False, False, True]
        assert store.search("VPN gateway address", limit=1)[0].memory.content.endswith(".1")


def test_a_repeat_that_pins_pins_the_memory_also_in_the_same_call(mem, make_mem):
    """Restating a memory with pinned=True pins it, whether the memory was stored by an
    earlier call or earlier in the same one."""
    items = [
        {"content": "The on-call rota lives in PagerDuty"},
        {"content": "The on-call rota lives in PagerDuty", "pinned": True},
    ]
    together = mem.remember_many(items)
    other = make_mem()
    serial = [other.remember_many([item])[0] for item in items]
    assert [r.action for r in together] == [r.action for r in serial] == ["created", "reinforced"]
    assert other.get(serial[0].id).pinned
    assert mem.get(together[0].id).pinned
    assert together[1].memory.pinned


def test_remember_many_rejects_non_dicts(mem):
    with pytest.raises(ValidationError, match="item 0"):
        mem.remember_many(["just a string"])


def test_entities_link_mentions_in_both_directions(mem):
    early = mem.remember(
        "The Society for Psychotherapy Research published a new journal", id="early"
    )
    title = mem.remember(
        "Society for Psychotherapy Research\nAn international society founded in 1968.", id="title"
    )
    later = mem.remember(
        "Its first president chaired the Society for Psychotherapy Research for years", id="later"
    )
    prose = mem.remember("A society for psychotherapy research would need funding", id="prose")
    name = "society for psychotherapy research"
    for memory_id in (early.id, title.id, later.id):
        assert name in mem.get(memory_id).tags, memory_id
    assert name not in mem.get(prose.id).tags  # not written as a name: not a mention
    rows = db_rows(
        mem, "MATCH (m:Memory)-[:HasTag]->(t:Tag {name: $n}) RETURN count(m) AS n", {"n": name}
    )
    assert rows[0]["n"] == 3


def test_an_unknown_supersedes_id_in_a_later_batch_writes_nothing(mem):
    """Checked before the first batch is written, not when its own batch is planned."""
    before = mem.stats().memories
    items = [{"content": f"Service {i} listens on port {8000 + i}"} for i in range(4)]
    items.append({"content": "Service 9 listens on port 9009", "supersedes": ["no-such-id"]})
    with pytest.raises(NotFoundError, match="item 4"):
        mem.remember_many(items, batch_size=2)
    assert mem.stats().memories == before
    # an id given by an earlier item of the same call may be superseded
    done = mem.remember_many(
        [{"content": "The VPN is at 10.0.0.1", "id": "vpn-old"},
         {"content": "The VPN moved to 10.9.9.9", "supersedes": ["vpn-old"]}],
        batch_size=1,
    )  # fmt: skip
    assert done[1].superseded == ["vpn-old"]


def test_an_id_a_later_batch_refuses_fails_the_whole_call(fake_mem):
    """An id given twice in one call, or already stored, that a later batch of the call would
    refuse is found before the first batch is written (a fuzz run found the first batch kept)."""
    stored = fake_mem.remember("invoices are sent on the first of the month")
    calls = [
        [
            {"content": "alpha one", "id": "0123456789abcdef"},
            {"content": "beta two"},
            {"content": "gamma three, another text", "id": "0123456789abcdef"},
        ],
        [{"content": "alpha one"}, {"content": "beta two"}, {"content": "other", "id": stored.id}],
    ]
    for items in calls:
        with pytest.raises(ValidationError, match="already exists"):
            fake_mem.remember_many(items, batch_size=2)
        assert [m.id for m in fake_mem.memories(limit=None)] == [stored.id]


def test_a_changed_sign_keeps_both_memories_and_marks_them_disputed(fake_mem):
    """'-5 C' then '5 C' had been merged as a near duplicate: the new value was lost and the
    old one kept as current. Now both stay, linked as disputed."""
    old = fake_mem.remember("The freezer alarm threshold is -5 C")
    new = fake_mem.remember("The freezer alarm threshold is 5 C")
    assert new.action == "contradicted" and new.contradicts == [old.id]
    assert fake_mem.get(old.id).active and fake_mem.get(new.id).active

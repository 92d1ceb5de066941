"""Reading, changing and linking memories; Cypher; persistence; every documented error."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import db_rows

from graphmem import (
    CypherError,
    EmbedderMismatchError,
    GraphMemError,
    GraphMemory,
    ModelLoadError,
    NotFoundError,
    ReadOnlyError,
    SchemaVersionError,
    StoreLockedError,
    ValidationError,
)


@pytest.fixture
def filled(mem):
    ids = {
        "limit": mem.remember("The API rate limit is 100 requests/min", tags=["api"]).id,
        "auth": mem.remember("The API uses OAuth2 bearer tokens", tags=["api", "auth"]).id,
        "tea": mem.remember("Alice prefers green tea", kind="preference", tags=["alice"]).id,
        "deploy": mem.remember(
            "Deploy with make deploy from the infra directory", kind="procedure", project="web"
        ).id,
    }
    return mem, ids


def test_get_and_not_found(filled):
    mem, ids = filled
    assert mem.get(ids["tea"]).kind == "preference"
    with pytest.raises(NotFoundError):
        mem.get("nope")
    assert isinstance(NotFoundError("x"), LookupError)
    assert isinstance(ValidationError("x"), ValueError)
    m = mem.get(ids["tea"], with_embedding=True)
    assert len(m.embedding) == 384


def test_search_with_filters_applied_before_ranking(filled):
    mem, ids = filled
    hits = mem.search("rate limits", limit=2)
    assert hits[0].memory.id == ids["limit"] and hits[0].score > hits[1].score
    assert [h.memory.id for h in mem.search("rate limits", kinds=["preference"])] == [ids["tea"]]
    assert {h.memory.id for h in mem.search("rate limits", tags=["auth"])} == {ids["auth"]}
    assert [h.memory.id for h in mem.search("anything", project="web")] == [ids["deploy"]]
    assert mem.search("anything", scope="session") == []
    with pytest.raises(ValidationError):
        mem.search("x", kinds=["bogus"])
    with pytest.raises(ValidationError):
        mem.search("   ")


def test_memories_tags_neighbors_stats(filled):
    mem, ids = filled
    assert {m.id for m in mem.memories(tag="api")} == {ids["limit"], ids["auth"]}
    assert {m.id for m in mem.memories(kinds=["procedure"])} == {ids["deploy"]}
    assert len(mem.memories(limit=2)) == 2
    tags = {t.name: t.count for t in mem.tags()}
    assert tags["api"] == 2 and tags["alice"] == 1
    assert ids["auth"] in {m.id for m in mem.neighbors(ids["limit"])}
    assert ids["tea"] not in {m.id for m in mem.neighbors(ids["limit"])}
    s = mem.stats()
    assert (s.memories, s.active, s.inactive) == (4, 4, 0)
    assert s.edges["HasTag"] >= 5 and s.kinds["fact"] == 2 and s.dim == 384


def test_update_reembeds_and_rechecks(filled):
    mem, ids = filled
    before = mem.get(ids["tea"], with_embedding=True)
    after = mem.update(ids["tea"], content="Alice prefers black coffee", confidence=0.7)
    assert after.content == "Alice prefers black coffee" and after.confidence == pytest.approx(0.7)
    assert mem.get(ids["tea"], with_embedding=True).embedding != before.embedding
    assert mem.search("coffee", limit=1)[0].memory.id == ids["tea"]
    assert "alice" in after.tags  # edges survive the update
    with pytest.raises(ValidationError):
        mem.update(ids["tea"], content="")
    with pytest.raises(NotFoundError):
        mem.update("nope", content="x")
    assert mem.get(ids["tea"]).content == "Alice prefers black coffee"


def test_forget_restore_and_purge(filled):
    mem, ids = filled
    mem.forget(ids["limit"])
    assert not mem.get(ids["limit"]).active
    assert ids["limit"] not in {h.memory.id for h in mem.search("rate limit", limit=10)}
    assert ids["limit"] in {h.memory.id for h in mem.search("rate limit", include_inactive=True)}
    assert mem.restore(ids["limit"]).active
    assert mem.search("rate limit", limit=1)[0].memory.id == ids["limit"]

    mem.forget(ids["tea"], purge=True)
    with pytest.raises(NotFoundError):
        mem.get(ids["tea"])
    assert ids["tea"] not in {h.memory.id for h in mem.search("green tea", include_inactive=True)}
    assert ids["tea"] not in {h.memory.id for h in mem.recall("green tea", threshold=0.0)}
    assert "alice" not in {t.name for t in mem.tags()}  # the orphaned tag went with it
    assert (
        db_rows(mem, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", {"id": ids["tea"]})[0]["n"]
        == 0
    )
    with pytest.raises(NotFoundError):
        mem.forget(ids["tea"])
    with pytest.raises(NotFoundError):
        mem.restore(ids["tea"])


def test_link_unlink(filled):
    mem, ids = filled
    link = mem.link(ids["limit"], ids["deploy"], "relates_to", weight=0.7)
    assert link.weight == pytest.approx(0.7)
    rows = db_rows(
        mem,
        "MATCH (a:Memory {id: $a})-[r:RelatesTo]->(b:Memory {id: $b}) RETURN r.weight AS w",
        {"a": ids["limit"], "b": ids["deploy"]},
    )
    assert rows == [{"w": pytest.approx(0.7)}]
    assert ids["deploy"] in {m.id for m in mem.neighbors(ids["limit"])}
    assert mem.unlink(ids["limit"], ids["deploy"], "relates_to") == 1
    with pytest.raises(NotFoundError):
        mem.unlink(ids["limit"], ids["deploy"], "relates_to")
    mem.link(ids["auth"], ids["limit"], "derived_from", reason="limits come from the auth tier")
    assert db_rows(mem, "MATCH ()-[r:DerivedFrom]->() RETURN r.reason AS r")[0]["r"].startswith(
        "limits"
    )
    mem.link(ids["auth"], ids["limit"], "supersedes")
    assert mem.get(ids["limit"]).superseded_by == ids["auth"]
    for bad in (
        lambda: mem.link(ids["auth"], ids["auth"]),
        lambda: mem.link(ids["auth"], ids["tea"], "likes"),
        lambda: mem.link(ids["auth"], ids["tea"], weight=2.0),
    ):
        with pytest.raises(ValidationError):
            bad()
    with pytest.raises(NotFoundError):
        mem.link(ids["auth"], "nope")


def test_tag_untag(filled):
    mem, ids = filled
    m = mem.tag(ids["tea"], "Beverages", "#drinks")
    assert {"beverages", "drinks"} <= set(m.tags)
    assert {x.id for x in mem.memories(tag="beverages")} == {ids["tea"]}
    m = mem.untag(ids["tea"], "beverages")
    assert "beverages" not in m.tags
    assert "beverages" not in {t.name for t in mem.tags()}
    with pytest.raises(ValidationError):
        mem.tag(ids["tea"], "  ")
    with pytest.raises(NotFoundError):
        mem.tag("nope", "x")


def test_cypher_read_only_by_default(filled):
    mem, ids = filled
    rows = mem.cypher(
        "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name AS tag, count(*) AS n ORDER BY n DESC, tag"
    )
    assert rows[0] == {"tag": "api", "n": 2}
    with pytest.raises(ReadOnlyError):
        mem.cypher("MATCH (m:Memory) SET m.confidence = 0.1")
    assert mem.get(ids["tea"]).confidence == 1.0
    mem.cypher("MATCH (m:Memory {id: $id}) SET m.confidence = 0.25", {"id": ids["tea"]}, write=True)
    assert mem.get(ids["tea"]).confidence == pytest.approx(0.25)
    with pytest.raises(CypherError) as info:
        mem.cypher("MATCH (m:Memory RETURN m")
    assert "MATCH (m:Memory RETURN m" in info.value.query
    with pytest.raises(CypherError, match="Missing query parameter"):
        mem.cypher("MATCH (m:Memory) WHERE m.id = $id RETURN m.id")


def test_cypher_write_keeps_search_consistent(filled):
    mem, ids = filled
    mem.cypher("MATCH (m:Memory {id: $id}) DETACH DELETE m", {"id": ids["limit"]}, write=True)
    assert ids["limit"] not in {
        h.memory.id for h in mem.search("rate limit", include_inactive=True)
    }


def test_persistence_across_reopen(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        a = mem.remember("The API rate limit is 100 requests/min", tags=["api"])
        b = mem.remember("The API rate limit is 200 requests/min", tags=["api"])
        c = mem.remember("Lisbon is lovely in May", kind="episode", session_id="s")
        mem.link(c.id, b.id, "relates_to", weight=0.3)
        mem.forget(c.id)
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem.get(a.id).superseded_by == b.id
        assert not mem.get(c.id).active
        assert [h.memory.id for h in mem.search("rate limit", limit=1)] == [b.id]
        assert [m.id for m in mem.history(b.id)] == [a.id, b.id]
        assert mem.stats().memories == 3
        assert mem.remember("The API rate limit is 200 requests/min").action == "reinforced"


def test_two_handles_in_one_process_share_state(store_path, model_path):
    with (
        GraphMemory(store_path, model_path=model_path) as one,
        GraphMemory(store_path, model_path=model_path) as two,
    ):
        r = one.remember("Shared state across handles works")
        assert two.get(r.id).content == "Shared state across handles works"
        assert two.search("shared state", limit=1)[0].memory.id == r.id


def test_read_only_store(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        r = mem.remember("Read-only stores can still be searched")
    with GraphMemory(store_path, model_path=model_path, read_only=True) as ro:
        assert ro.get(r.id).content.startswith("Read-only")
        assert ro.search("searched", limit=1)[0].memory.id == r.id
        with pytest.raises(ReadOnlyError):
            ro.remember("nope")
        with pytest.raises(ReadOnlyError):
            ro.forget(r.id)
        with pytest.raises(ReadOnlyError):
            ro.cypher("MATCH (m:Memory) SET m.pinned = true", write=True)


def test_read_only_missing_store(tmp_path, model_path):
    with pytest.raises(NotFoundError):
        GraphMemory(tmp_path / "missing", model_path=model_path, read_only=True)


class _OtherEmbedder:
    model_name = "someone/else"
    dim = 384

    def embed(self, texts):
        return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)


def test_embedder_mismatch(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("Built with MiniLM")
    with pytest.raises(EmbedderMismatchError, match="all-MiniLM-L6-v2"):
        GraphMemory(store_path, embedder=_OtherEmbedder())


def test_model_load_error_says_how_to_fix(tmp_path):
    with pytest.raises(ModelLoadError, match="GRAPHMEM_MODEL_PATH"):
        GraphMemory(tmp_path / "m", model_path=str(tmp_path / "no-model")).search("x")


def test_schema_version_from_the_future(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        # A migration this release does not know: the store was written by a newer graphmem.
        mem.cypher("CREATE (:Meta {key: 'migration:999_future', value: 'x'})", write=True)
    with pytest.raises(SchemaVersionError, match="999_future"):
        GraphMemory(store_path, model_path=model_path)
    assert issubclass(SchemaVersionError, GraphMemError)


def test_store_locked_by_another_process(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("Locked stores report it clearly")
    owner = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import importlib.util, sys, time, kuzu
            db = kuzu.Database({str(store_path / "graph.kuzu")!r})
            print("ready", flush=True)
            time.sleep(30)
        """)],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert owner.stdout.readline().strip() == "ready"
        # A short wait: what is tested is the error, not the default 20 s patience.
        with pytest.raises(StoreLockedError, match="another process"):
            GraphMemory(store_path, model_path=model_path, timeout=0.3)
    finally:
        owner.kill()
        owner.wait()


def test_closed_handle_refuses(store_path, model_path):
    mem = GraphMemory(store_path, model_path=model_path)
    mem.close()
    with pytest.raises(GraphMemError):
        mem.search("x")

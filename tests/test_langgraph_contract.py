"""LangGraph's ``BaseStore`` contract, checked on ``GraphMemStore``.

The cases follow the store tests LangGraph runs on its own stores (langchain-ai/langgraph,
libs/checkpoint/tests/test_store.py: namespaces, listing, vector search with filters and
paging, edge-case queries, index=False items), written afresh here against the documented
behaviour of ``langgraph.store.base.BaseStore`` and ``InMemoryStore`` (what applies to any
store; the embedding-config and batching-internals cases are LangGraph's own machinery), plus
the contract points graphmem broke before: a key is an identity, a query ranks every matching
item, and every value LangGraph's stores accept is stored whole.
"""

from __future__ import annotations

import asyncio
import os
import queue
import subprocess
import sys
import threading
from collections import UserDict
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="pip install graphmem[langgraph]")

from langgraph.store.base import InvalidNamespaceError, PutOp

from graphmem import GraphMemory, SecretError, ValidationError
from graphmem.langgraph import GraphMemStore
from graphmem.write.items import MAX_METADATA_BYTES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(mem: GraphMemory) -> GraphMemStore:
    return GraphMemStore(mem)


def keys(results: list[Any]) -> list[str]:
    return [r.key for r in results]


# ---------------------------------------------------------------------- a key is an identity


def test_a_put_replaces_its_own_item_only(store: GraphMemStore) -> None:
    ns = ("team", "oncall")
    store.put(ns, "a", {"content": "The on-call engineer this week is Alice"})
    before = store.get(ns, "a")
    assert before is not None
    # Text that contradicts item a, under another key: two items, both kept as they are.
    store.put(ns, "b", {"content": "The on-call engineer this week is Bob"})
    store.put(ns, "b", {"content": "The on-call engineer this week is Carol"})
    after = store.get(ns, "a")
    assert after is not None and after.value == before.value
    assert after.updated_at == before.updated_at
    found = keys(store.search(ns, query="who is on call this week?"))
    assert sorted(found) == ["a", "b"]
    assert store.get(ns, "b").value["content"].endswith("Carol")  # type: ignore[union-attr]


# ---------------------------------------------------------------------- search


def test_a_query_ranks_every_matching_item_up_to_limit(store: GraphMemStore) -> None:
    ns = ("notes",)
    topics = ["deploys", "billing", "search", "auth", "caching", "queues", "logging", "metrics",
              "backups", "dns", "tls", "cron", "email", "images", "pdfs", "maps", "chat",
              "payments", "exports", "imports"]  # fmt: skip
    for i, topic in enumerate(topics):
        store.put(ns, f"n{i}", {"content": f"Team note about {topic}, number {i}"})
    # Nothing relates to the query, yet a store returns its best `limit` items, scored.
    hits = store.search(ns, query="zebra migration patterns", limit=10)
    assert len(hits) == 10 and all(h.score is not None for h in hits)
    assert len({h.key for h in hits}) == 10
    assert len(store.search(ns, query="zebra migration patterns", limit=50)) == 20
    # Paging walks the same ranking.
    first, second = (store.search(ns, query="billing", limit=5, offset=o) for o in (0, 5))
    assert not set(keys(first)) & set(keys(second))
    assert first[0].key == "n1"


def test_search_with_filters(store: GraphMemStore) -> None:
    ns = ("test",)
    docs = {
        "doc1": {"text": "red apple", "color": "red", "score": 4.5},
        "doc2": {"text": "red car", "color": "red", "score": 3.0},
        "doc3": {"text": "green apple", "color": "green", "score": 4.0},
        "doc4": {"text": "blue car", "color": "blue", "score": 3.5},
    }
    for key, value in docs.items():
        store.put(ns, key, value)
    results = store.search(ns, query="apple", filter={"color": "red"})
    assert sorted(keys(results)) == ["doc1", "doc2"] and results[0].key == "doc1"
    results = store.search(ns, query="car", filter={"color": "red"})
    assert sorted(keys(results)) == ["doc1", "doc2"] and results[0].key == "doc2"
    results = store.search(ns, query="bbbbluuu", filter={"score": {"$gt": 3.2}})
    assert sorted(keys(results)) == ["doc1", "doc3", "doc4"]
    results = store.search(ns, query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert keys(results) == ["doc3"]


def test_index_false_items_come_last_without_a_score(store: GraphMemStore) -> None:
    ns = ("test",)
    store.put(ns, "doc1", {"text": "zany zebra Xerxes"})
    store.put(ns, "doc2", {"text": "something about dogs"})
    store.put(ns, "doc4", {"text": "new text about dogs"}, index=False)
    top = store.search(ns, query="new text about dogs", limit=2)
    assert "doc4" not in keys(top) and all(h.score is not None for h in top)
    everything = store.search(ns, query="new text about dogs", limit=10)
    assert keys(everything)[-1] == "doc4" and everything[-1].score is None
    assert len(everything) == 3


def test_an_updated_item_is_found_by_its_new_text(store: GraphMemStore) -> None:
    ns = ("test",)
    store.put(ns, "doc1", {"text": "zany zebra Xerxes"})
    store.put(ns, "doc2", {"text": "something about dogs"})
    store.put(ns, "doc3", {"text": "text about birds"})
    assert store.search(ns, query="Zany Xerxes")[0].key == "doc1"
    store.put(ns, "doc1", {"text": "new text about cats"})
    assert store.search(ns, query="new text about cats")[0].key == "doc1"
    assert store.get(ns, "doc1").value == {"text": "new text about cats"}  # type: ignore[union-attr]


def test_edge_case_queries(store: GraphMemStore) -> None:
    ns = ("test",)
    store.put(ns, "doc1", {"text": "test document"})
    for query in ("", None, "test " * 100, "test!@#$%^&*()"):
        assert len(store.search(ns, query=query)) == 1, query


def test_async_calls_keep_the_contract(store: GraphMemStore) -> None:
    async def main() -> None:
        ns = ("test",)
        for i in range(5):
            await store.aput(ns, f"doc{i}", {"text": f"test document number {i}"})
        page1 = await store.asearch(ns, query="test", limit=2)
        page2 = await store.asearch(ns, query="test", limit=2, offset=2)
        assert len(page1) == len(page2) == 2 and page1[0].key != page2[0].key
        assert len(await store.asearch(ns, query="test", limit=10)) == 5
        await store.adelete(ns, "doc0")
        assert await store.aget(ns, "doc0") is None

    asyncio.run(main())


# ---------------------------------------------------------------------- namespaces


def test_invalid_namespaces_raise_langgraphs_error(store: GraphMemStore) -> None:
    doc = {"foo": "bar"}
    for ns in [(), ("the", "thing.about"), ("some", "fun", "")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(ns, "foo", doc)
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "foo"), "bar", doc)  # reserved by BaseStore.put
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    assert store.get(("foo", "langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert store.search(("foo", "langgraph", "foo"))[0].value == doc
    # Past the public put, as LangGraph allows its own.
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]


def test_list_namespaces(store: GraphMemStore) -> None:
    assert store.list_namespaces() == []
    namespaces = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
                  ("a", "c", "f"), ("b", "a", "f"), ("users", "123")]  # fmt: skip
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(prefix=("a", "b"))) == namespaces[:4]
    assert sorted(store.list_namespaces(suffix=("f",))) == [
        ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]  # fmt: skip
    assert sorted(store.list_namespaces(prefix=("a",), suffix=("f",))) == [
        ("a", "b", "f"), ("a", "c", "f")]  # fmt: skip
    assert sorted(store.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]  # fmt: skip
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == namespaces[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == namespaces[2:4]
    assert sorted(store.list_namespaces(prefix=("a", "*", "f"))) == [
        ("a", "b", "f"), ("a", "c", "f")]  # fmt: skip
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


# ---------------------------------------------------------------------- values stored whole


def accepted_values() -> dict[str, tuple[Any, Any]]:
    """Values LangGraph's InMemoryStore accepts and gives back, as (what is put, what comes
    back): a 1 MB text, nesting far deeper than graphmem's metadata allows, Mappings that are
    not dicts, and text in many scripts (in keys too)."""
    long_text = "The incident report, paragraph by paragraph. " * 23_000  # ~1 MB
    deep: dict[str, Any] = {"leaf": "bottom"}
    for depth in range(300):
        deep = {f"level{depth}": deep if depth % 2 else [deep]}
    unicode = {
        "content": "Café naïve — 日本語のメモ, Ελληνικά, עברית, emoji 🚀🧠",
        "ключ": ["值", 1.5, None, True],
    }
    return {
        "long": ({"content": long_text}, {"content": long_text}),
        "deep": (deep, deep),
        "proxy": (MappingProxyType({"content": "A read-only mapping", "n": 1}),
                  {"content": "A read-only mapping", "n": 1}),
        "userdict": (UserDict({"content": "A UserDict", "inner": UserDict({"x": 1})}),
                     {"content": "A UserDict", "inner": {"x": 1}}),
        "unicode": (unicode, unicode),
    }  # fmt: skip


def check_values_stored_whole(store: GraphMemStore) -> None:
    ns = ("docs",)
    values = accepted_values()
    for key, (put, _) in values.items():
        store.put(ns, key, put)
    for key, (_, back) in values.items():
        assert store.get(ns, key).value == back, key  # type: ignore[union-attr]
    found = {h.key: h.value for h in store.search(ns, limit=10)}
    assert found == {key: back for key, (_, back) in values.items()}
    assert store.search(ns, query="incident report paragraph")[0].key == "long"
    # Secrets are still refused, with graphmem's typed error, and nothing is stored.
    with pytest.raises(SecretError):
        store.put(ns, "secret", {"content": "token ghp_" + "a1B2c3D4e5F6" * 3})
    assert store.get(ns, "secret") is None
    # Past what a served write can carry: graphmem's typed error, nothing stored.
    with pytest.raises(ValidationError):
        store.put(ns, "huge", {"content": "x" * (MAX_METADATA_BYTES + 1)})
    assert store.get(ns, "huge") is None


def test_every_value_langgraph_accepts_is_stored_whole(store: GraphMemStore) -> None:
    check_values_stored_whole(store)


@pytest.mark.slow  # an owner process; fast: test_every_value_langgraph_accepts_is_stored_whole
def test_every_value_is_stored_whole_through_a_client(tmp_path: Path, model_path: str) -> None:
    """The served path: another process holds the store, this one is its client, so every
    value crosses the wire and the owner's journal."""
    path = tmp_path / "memory"
    owner = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "procs.py"), "idle", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path},
    )
    try:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(line) for line in owner.stdout or ()], daemon=True
        ).start()
        assert lines.get(timeout=120).split() == ["role", "owner"]
        with GraphMemory(path, model_path=model_path) as client:
            assert client.owner is not None  # a client of the owner process
            check_values_stored_whole(GraphMemStore(client))
    finally:
        if owner.stdin:
            owner.stdin.close()
        owner.wait(timeout=120)


def test_delete_leaves_no_earlier_version_behind(store: GraphMemStore, mem: GraphMemory) -> None:
    ns = ("users", "sam")
    store.put(ns, "address", {"content": "Sam lives at 12 Elm Street"})
    store.put(ns, "address", {"content": "Sam lives at 40 Oak Avenue"})
    assert mem.stats().memories == 2  # the item and its earlier version (graphmem's history)
    assert (
        store.search(ns, query="where does Sam live?", limit=10)[0]
        .value["content"]
        .endswith("Oak Avenue")
    )
    assert len(store.search(ns, query="where does Sam live?", limit=10)) == 1
    store.delete(ns, "address")
    assert mem.stats().memories == 0

"""GraphMemStore through LangGraph's own API: a compiled graph with a store, and direct calls."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph", reason="pip install graphmem[langgraph]")

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from graphmem import GraphMemory, ValidationError
from graphmem.adapters.langgraph import GraphMemStore

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(mem: GraphMemory) -> GraphMemStore:
    return GraphMemStore(mem)


def test_put_get_update_delete(store: GraphMemStore) -> None:
    assert isinstance(store, BaseStore)
    ns = ("users", "alice", "memories")
    store.put(ns, "food", {"content": "Alice is allergic to peanuts", "level": 3})
    item = store.get(ns, "food")
    assert item is not None and item.value == {
        "content": "Alice is allergic to peanuts",
        "level": 3,
    }
    assert item.key == "food" and item.namespace == ns
    created = item.created_at

    store.put(ns, "food", {"content": "Alice is allergic to shellfish", "level": 2})
    again = store.get(ns, "food")
    assert again is not None and again.value["content"] == "Alice is allergic to shellfish"
    assert again.created_at == created and again.updated_at >= item.updated_at

    # Same text under another key is another item (no dedupe across keys).
    store.put(ns, "copy", {"content": "Alice is allergic to shellfish", "level": 2})
    assert store.get(ns, "copy") is not None and store.get(ns, "food") is not None

    store.delete(ns, "food")
    assert store.get(ns, "food") is None
    store.delete(ns, "food")  # deleting twice is fine
    assert store.get(("users", "bob", "memories"), "copy") is None


def test_search_namespaces_filter_and_paging(store: GraphMemStore) -> None:
    alice, bob = ("users", "alice"), ("users", "bob")
    store.put(alice, "1", {"content": "Alice's dog is called Biscuit", "kind": "pet", "year": 2019})
    store.put(
        alice,
        "2",
        {"content": "Alice deploys the billing service with Helm", "kind": "work", "year": 2023},
    )
    store.put(
        alice, "3", {"content": "Biscuit is afraid of thunderstorms", "kind": "pet", "year": 2024}
    )
    store.put(bob, "1", {"content": "Bob's dog is called Rex", "kind": "pet", "year": 2020})

    hits = store.search(alice, query="what is the name of the dog?", limit=5)
    keys = [h.key for h in hits]
    assert keys[0] == "1" and all(h.namespace == alice for h in hits)
    assert all(h.score is not None for h in hits)
    # Cascade recall: the thunderstorm memory shares no words with the question but is
    # reached through Biscuit.
    assert "3" in keys

    # A prefix covers every namespace under it; another user's items never leak in.
    everyone = store.search(("users",), query="dog names", limit=10)
    assert {(h.namespace, h.key) for h in everyone} >= {(alice, "1"), (bob, "1")}
    assert store.search(("users", "alic"), query="dog") == []

    pets = store.search(alice, filter={"kind": "pet"}, limit=10)
    assert {h.key for h in pets} == {"1", "3"}
    recent = store.search(alice, filter={"year": {"$gte": 2023}}, limit=10)
    assert {h.key for h in recent} == {"2", "3"}
    listed = store.search(alice, limit=10)
    assert [h.key for h in listed] == ["3", "2", "1"]  # newest first without a query
    assert [h.key for h in store.search(alice, limit=1, offset=1)] == ["2"]

    assert store.list_namespaces() == [alice, bob]
    assert store.list_namespaces(prefix=("users",), max_depth=1) == [("users",)]
    assert store.list_namespaces(suffix=("bob",)) == [bob]


def test_bad_input_is_refused_with_a_typed_error(store: GraphMemStore, mem: GraphMemory) -> None:
    ns = ("users", "alice")
    store.put(ns, "ok", {"content": "A fine memory"})
    before = mem.stats().memories
    bad_calls = [
        lambda: store.put(ns, "", {"content": "x"}),
        lambda: store.batch([object()]),  # not an operation
        lambda: store.search(ns, query="x", limit=0),
        lambda: store.search(ns, filter={"n": {"$regex": "x"}}),
        lambda: store.put(ns, "t", {"content": "x"}, ttl=-1),
        lambda: store.put(ns, "secret", {"content": "token ghp_" + "a1B2c3D4e5F6" * 3}),
    ]
    for call in bad_calls:
        with pytest.raises((ValidationError, ValueError)) as info:
            call()
        assert isinstance(info.value, ValueError)
    assert mem.stats().memories == before
    with pytest.raises(ValueError):
        store.put((), "k", {"content": "x"})  # LangGraph's own namespace check
    with pytest.raises(ValueError):
        store.put(("a.b",), "k", {"content": "x"})


def test_ttl_expires_items(mem: GraphMemory) -> None:
    now = [1_000_000.0]
    store = GraphMemStore(mem, ttl={"default_ttl": 10}, clock=lambda: now[0])
    ns = ("session",)
    store.put(ns, "short", {"content": "Temporary note"}, ttl=1)  # one minute
    store.put(ns, "default", {"content": "Lives ten minutes"})
    store.put(ns, "forever", {"content": "Keep this"}, ttl=None)
    now[0] += 50
    assert store.get(ns, "short") is not None  # and the read refreshes its minute
    now[0] += 50
    assert store.get(ns, "short", refresh_ttl=False) is not None
    now[0] += 20
    assert store.get(ns, "short") is None  # 70 s after its last read
    assert {h.key for h in store.search(ns)} == {"default", "forever"}
    now[0] += 600
    assert store.sweep() == 1
    assert [h.key for h in store.search(ns)] == ["forever"]


def test_async_api(store: GraphMemStore) -> None:
    async def main() -> list[Any]:
        await store.aput(("a",), "k", {"content": "Async memories work"})
        got = await store.aget(("a",), "k")
        found = await store.asearch(("a",), query="async")
        await store.adelete(("a",), "k")
        return [got, found, await store.aget(("a",), "k")]

    got, found, gone = asyncio.run(main())
    assert got.value == {"content": "Async memories work"}
    assert [h.key for h in found] == ["k"]
    assert gone is None


class State(TypedDict):
    user: str
    message: str
    reply: str


def test_a_compiled_graph_remembers_across_threads(store: GraphMemStore) -> None:
    def respond(state: State, *, store: BaseStore) -> dict[str, str]:
        ns = ("users", state["user"])
        message = state["message"]
        if message.startswith("remember "):
            fact = message.removeprefix("remember ")
            store.put(ns, str(len(store.search(ns, limit=100))), {"content": fact})
            return {"reply": "noted"}
        hits = store.search(ns, query=message, limit=1)
        return {"reply": hits[0].value["content"] if hits else "I don't know"}

    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    graph = builder.compile(store=store)

    graph.invoke({"user": "sam", "message": "remember Sam's favourite colour is teal"},
                 {"configurable": {"thread_id": "1"}})  # fmt: skip
    answer = graph.invoke({"user": "sam", "message": "what colour does Sam like?"},
                          {"configurable": {"thread_id": "2"}})  # fmt: skip
    assert answer["reply"] == "Sam's favourite colour is teal"
    other = graph.invoke({"user": "kim", "message": "what colour does Sam like?"},
                         {"configurable": {"thread_id": "3"}})  # fmt: skip
    assert other["reply"] == "I don't know"


def test_the_example_runs(tmp_path: Path, model_path: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "langgraph_agent.py"), str(tmp_path / "m")],
        capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "thread 2" in done.stdout and "Biscuit" in done.stdout.split("thread 2")[1]


def test_graphmem_does_not_import_langgraph() -> None:
    code = "import sys, graphmem, graphmem.cli, graphmem.adapters.mcp.tools; print('langgraph' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, check=True)  # fmt: skip
    assert out.stdout.strip() == "False"

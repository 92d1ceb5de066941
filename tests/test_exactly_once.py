"""Exactly-once client writes (graphmem.write.idempotency): a write's retry after its owner died
is applied once, ``dedupe=False`` included, and answered with what the first attempt did.

The owner is a real process that kills itself with SIGKILL at the exact moment under test
(``GRAPHMEM_TEST_CRASH_AT``): after a client's write is durable (journalled, or committed) and
before it answers. The client (this process) then retries by itself, and either takes the store
over (replaying the journal) or becomes the client of the next owner.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import db_rows
from test_processes import PROCS, WAIT, Worker, env, worker

from graphmem import GraphMemError, GraphMemory
from graphmem.adapters.langgraph import GraphMemStore
from graphmem.codec import API
from graphmem.paths import socket_path
from graphmem.remote.client import RemoteMemory, RemoteStore
from graphmem.write import idempotency


def crashing_owner(store: Path, model_path: str, point: str) -> Worker:
    """An owner that dies (kill -9) at ``point`` while it serves a client's write."""
    environ = {**env(model_path), idempotency.CRASH_ENV: point}
    owner = Worker([sys.executable, str(PROCS), "idle", str(store)], environ)
    assert owner.expect("role") == "role owner"
    return owner


def died(owner: Worker) -> None:
    """The owner really was killed by SIGKILL (the hook fired), not closed."""
    assert owner.proc.wait(timeout=WAIT) == -signal.SIGKILL


def stored(mem: GraphMemory, text: str) -> list[str]:
    rows = db_rows(mem, "MATCH (m:Memory) WHERE m.content = $c RETURN m.id AS id", {"c": text})
    return [r["id"] for r in rows]


TEXT = "The nightly backup of the orders database runs at 02:30 UTC."


def test_remember_retried_after_owner_dies_is_stored_once(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, "journalled")
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None
        result = mem.remember(TEXT, dedupe=False)
        died(owner)
        assert mem.owner is None  # this process took the store over and replayed the journal
        assert result.action == "created" and result.memory.content == TEXT
        assert stored(mem, TEXT) == [result.id]
        assert mem.stats().memories == 1


def test_a_retry_sent_to_the_next_owner_is_answered_from_its_journal(
    tmp_path: Path, model_path: str
) -> None:
    """Another process takes over (replaying the journal) and gets the retry over the wire."""
    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, "journalled")
    standby = worker("standby", store, model_path)
    with GraphMemory(store, model_path=model_path) as mem:
        remote = mem.backend
        assert isinstance(remote, RemoteMemory)
        reopen = remote._reopen
        assert reopen is not None

        def next_owner_first() -> Any:
            # The old owner is dead: the standby opens the store before this process tries.
            died(owner)
            standby.send("open")
            assert standby.expect("role") == "role owner"
            return reopen()

        remote._reopen = next_owner_first
        result = mem.remember(TEXT, dedupe=False, id="backup-note")
        assert mem.owner is not None and mem.owner["pid"] == standby.proc.pid
        assert result.id == "backup-note" and result.action == "created"
        assert stored(mem, TEXT) == ["backup-note"]
        assert mem.stats().memories == 1
    assert standby.finish() == 0


@pytest.mark.parametrize(
    ("point", "count"),
    # write-behind, and one transaction (> 16 items; in the slow step)
    [("journalled", 3), pytest.param("written", 20, marks=pytest.mark.slow)],
)
def test_remember_many_retried_after_owner_dies_is_stored_once(
    tmp_path: Path, model_path: str, point: str, count: int
) -> None:
    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, point)
    texts = [f"Runbook step {i}: restart worker pool {i} after the deploy." for i in range(count)]
    with GraphMemory(store, model_path=model_path) as mem:
        results = mem.remember_many([{"content": t} for t in texts], dedupe=False)
        died(owner)
        assert mem.owner is None
        assert [r.memory.content for r in results] == texts
        assert {r.action for r in results} == {"created"}
        assert [stored(mem, t) for t in texts] == [[r.id] for r in results]
        assert mem.stats().memories == count


def test_remember_many_resumes_at_the_batch_in_flight(tmp_path: Path, model_path: str) -> None:
    """Sent in batches: the owner dies on the first; the retry applies each batch once."""
    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, "journalled")
    texts = [f"Incident {i}: the queue consumer {i} lagged by an hour." for i in range(5)]
    with GraphMemory(store, model_path=model_path) as mem:
        results = mem.remember_many([{"content": t} for t in texts], dedupe=False, batch_size=2)
        died(owner)
        assert [r.memory.content for r in results] == texts
        assert [stored(mem, t) for t in texts] == [[r.id] for r in results]
        assert mem.stats().memories == 5


@pytest.mark.slow  # a killed owner; the default run kills one under remember and remember_many
def test_langgraph_put_retried_after_owner_dies_succeeds_once(
    tmp_path: Path, model_path: str
) -> None:
    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, "journalled")
    with GraphMemory(store, model_path=model_path) as mem:
        lg = GraphMemStore(mem)
        lg.put(("users", "ana"), "prefs", {"theme": "dark", "language": "Portuguese"})
        died(owner)
        item = lg.get(("users", "ana"), "prefs")
        assert item is not None and item.value == {"theme": "dark", "language": "Portuguese"}
        assert mem.stats().memories == 1


@pytest.mark.slow  # a killed owner; the default run kills one under remember and remember_many
def test_mcp_memory_create_entities_retried_after_owner_dies_succeeds_once(
    tmp_path: Path, model_path: str
) -> None:
    from graphmem.adapters.mcp.kg import KnowledgeGraph

    store = tmp_path / "memory"
    owner = crashing_owner(store, model_path, "journalled")
    entity = {"name": "Ana", "entityType": "person", "observations": ["Ana prefers dark mode"]}
    with GraphMemory(store, model_path=model_path) as mem:
        created = KnowledgeGraph(mem).create_entities([entity])
        died(owner)
        assert created == [entity]
        assert KnowledgeGraph(mem).read_graph()["entities"] == [entity]
        assert mem.stats().memories == 2  # the entity's home and its observation, once each


# ---------------------------------------------------------------------- the owner, in process


def call(remote: RemoteStore, request_id: str, content: str) -> Any:
    return remote.call("remember", (content,), {"dedupe": False}, request_id=request_id)


def test_the_owner_applies_a_request_id_once(served_mem: GraphMemory) -> None:
    """Sent twice (a retry whose first answer was lost): one memory, the same result."""
    mem = served_mem  # called on its socket below
    remote = RemoteStore(socket=socket_path(mem.path))
    try:
        first = call(remote, "req-1", TEXT)
        again = call(remote, "req-1", TEXT)
        other = call(remote, "req-2", TEXT)  # another call with the same text is another write
    finally:
        remote.close()
    assert again.id == first.id and again.action == first.action == "created"
    assert other.id != first.id
    assert sorted(stored(mem, TEXT)) == sorted([first.id, other.id])


def test_request_ids_survive_a_reopen(store_path: Path, model_path: str) -> None:
    with GraphMemory(store_path, model_path=model_path) as mem, idempotency.serving("req-kept"):
        first = mem.remember(TEXT, dedupe=False)
    with GraphMemory(store_path, model_path=model_path) as mem:
        # A retry is looked up in the database (this owner did not apply it).
        with idempotency.serving("req-kept", retry=True):
            again = mem.remember(TEXT, dedupe=False)
        assert again.id == first.id
        assert stored(mem, TEXT) == [first.id]


def test_a_bad_request_id_is_a_typed_400(served_mem: GraphMemory) -> None:
    mem = served_mem  # called on its socket below
    transport = httpx.HTTPTransport(uds=str(socket_path(mem.path)))
    with httpx.Client(transport=transport, base_url="http://graphmem") as http:
        for bad in ("", "x" * 129, "a b", 7, ["r"]):
            body = json.dumps({"args": [TEXT], "kwargs": {}, "request_id": bad})
            answer = http.post(f"{API}/call/remember", content=body)
            assert answer.status_code == 400
            assert answer.json()["error"]["type"] == "ValidationError"
    assert mem.stats().memories == 0
    with pytest.raises(GraphMemError, match="request_id"):
        idempotency.check_id("a/b")


def test_only_the_last_request_ids_are_kept(
    store_path: Path, model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(idempotency, "KEEP", 4)
    monkeypatch.setattr(idempotency, "PRUNE_EVERY", 2)
    with GraphMemory(store_path, model_path=model_path) as mem:
        for i in range(10):
            with idempotency.serving(f"req-{i}"):
                mem.remember(f"Bounded note {i}: the cache holds {i} shards.", dedupe=False)
        assert len(mem._shared.requests) == 4
        assert mem._shared.requests.get("req-0") is None
        assert mem._shared.requests.get("req-9") is not None
        mem.flush()
        rows = db_rows(mem, "MATCH (r:Request) RETURN r.id AS id ORDER BY r.n")
        # Pruned every PRUNE_EVERY requests: the 10th deleted those up to the 6th.
        assert [r["id"] for r in rows] == ["req-6", "req-7", "req-8", "req-9"]
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert len(mem._shared.requests) == 0  # opening reads no keys
        mem._shared.requests.fetch(mem._store, ["req-0", "req-6", "req-7", "req-9"])
        assert mem._shared.requests.get("req-0") is None  # pruned
        assert mem._shared.requests.get("req-7") is not None
        assert len(mem._shared.requests) == 3  # req-6, req-7, req-9
        with idempotency.serving("req-1", retry=True):  # forgotten: applied as new
            mem.remember("Bounded note 1: the cache holds 1 shards.", dedupe=False)
        assert len(stored(mem, "Bounded note 1: the cache holds 1 shards.")) == 2

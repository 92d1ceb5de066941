"""Write-behind: a small ``remember`` returns once journalled; nothing may read the database
behind the journal, lose what it holds, or apply it twice (graphmem/journal.py).

Killing the owner with records in the journal only, and a torn last record, are in
tests/test_crash.py (real processes, SIGKILL).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import db_rows

import graphmem.owner.journal as journal_mod
from graphmem import GraphMemory, JournalError
from graphmem.errors import CypherError
from graphmem.keys import tnode
from graphmem.owner.journal import JOURNAL_NAME, SEQ_KEY, _decode, _encode, read_records
from graphmem.storage.store import Store

# What is tested is the write-behind journal, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


_WORD_TEXT = (
    "harbor lantern meadow violin glacier pepper canyon orchid falcon marble tundra saddle "
    "velvet compass thistle beacon quarry walnut sparrow ribbon cobalt prairie lagoon anchor "
    "biscuit cactus dolphin ember fjord gadget hammock igloo jasmine kettle lemon mosaic nectar "
    "oyster pebble quilt raven saffron tulip umbrella vortex willow yarn zephyr acorn bramble"
)
WORDS = _WORD_TEXT.split()


def sentence(rng: random.Random) -> str:
    return "The " + " ".join(rng.sample(WORDS, 9)) + "."


def stored_ids(mem: GraphMemory) -> list[str]:
    return [r["id"] for r in db_rows(mem, "MATCH (m:Memory) RETURN m.id AS id")]


def assert_tag_counts(mem: GraphMemory) -> None:
    """Every tag's stored count is its members, and the mirror agrees."""
    members = {
        r["name"]: r["n"]
        for r in db_rows(
            mem,
            "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name AS name, count(DISTINCT m.id) AS n",
        )
    }
    counts = {t.name: t.count for t in mem.tags()}
    assert counts == {name: members.get(name, 0) for name in counts}
    assert {n: mem._mirror.member_count(tnode(n)) for n in counts} == counts


def test_remember_is_seen_at_once_by_every_read(mem: GraphMemory, tmp_path: Path) -> None:
    rng = random.Random(1)
    for i in range(6):
        r = mem.remember(sentence(rng), tags=["probe"])
        # Straight after the call, whatever reads the database sees the memory.
        found = db_rows(mem, "MATCH (m:Memory {id: $id}) RETURN m.content AS c", {"id": r.id})
        assert found == [{"c": r.memory.content}]
        assert mem.get(r.id).content == r.memory.content
        assert r.id in [m.id for m in mem.memories(limit=100)]
        assert [t.count for t in mem.tags() if t.name == "probe"] == [i + 1]
        (path,) = mem.export(tmp_path / f"export-{i}.json", format="json")
        assert r.id in path.read_text()
    assert_tag_counts(mem)


def test_close_applies_the_journal(store_path: Path, model_path: str) -> None:
    rng = random.Random(2)
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [mem.remember(sentence(rng)).id for _ in range(5)]
    # Nothing left to replay: the database holds every record, and its sequence number.
    assert read_records(store_path / JOURNAL_NAME) == []
    store = Store(store_path, model_name="sentence-transformers/all-MiniLM-L6-v2", dim=384)
    try:
        assert int(store.meta()[SEQ_KEY]) >= 1
        assert store.existing_memory_ids(ids) == set(ids)
    finally:
        store.close()


def test_snapshot_is_saved_only_after_the_journal_is_applied(
    store_path: Path, model_path: str
) -> None:
    rng = random.Random(3)
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [mem.remember(sentence(rng)).id for _ in range(4)]
        mem._shared.save_snapshot()
        assert mem._shared.journal.pending == 0
        # The snapshot's commit is the database's: the next open may trust it.
        assert mem._shared.snapshot_commit == mem._store.commit_id
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem._shared.from_snapshot
        assert all(i in mem._mirror for i in ids)
        assert set(ids) <= set(stored_ids(mem))


def test_a_failed_apply_surfaces_as_a_typed_error_and_loses_nothing(
    mem: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(4)
    first = mem.remember(sentence(rng), tags=["kept"])
    assert mem.get(first.id).content == first.memory.content

    def disk_full(self: Store, rows: Any) -> None:
        raise CypherError("IO exception: No space left on device", "CREATE (:Memory)")

    monkeypatch.setattr(Store, "insert_memories", disk_full)
    second = mem.remember(sentence(rng), tags=["kept"])  # acknowledged: it is in the journal
    with pytest.raises(JournalError, match="No space left"):
        mem.get(second.id)
    before = mem._mirror.size
    with pytest.raises(JournalError):
        mem.remember(sentence(rng))  # refused while the journal cannot be applied
    assert mem._mirror.size == before, "a refused remember must not reach the mirror"
    assert mem._shared.journal.pending == 1
    monkeypatch.undo()
    # The next call applies what was kept, once.
    assert mem.get(second.id).content == second.memory.content
    assert sorted(stored_ids(mem)) == sorted([first.id, second.id])
    assert [t.count for t in mem.tags() if t.name == "kept"] == [2]
    assert_tag_counts(mem)


def test_an_acknowledged_write_the_database_refused_is_replayed_on_open(
    store_path: Path, model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    mem = GraphMemory(store_path, model_path=model_path)

    def disk_full(self: Store, rows: Any) -> None:
        raise CypherError("IO exception: No space left on device", "CREATE (:Memory)")

    monkeypatch.setattr(Store, "insert_memories", disk_full)
    r = mem.remember(sentence(rng), tags=["later"])
    mem.close()  # cannot apply it: the record stays in the journal
    assert len(read_records(store_path / JOURNAL_NAME)) == 1
    monkeypatch.undo()
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert stored_ids(mem) == [r.id]
        assert mem.get(r.id).content == r.memory.content
        assert_tag_counts(mem)
    assert read_records(store_path / JOURNAL_NAME) == []


def test_remembers_from_threads_keep_their_order_and_counts(mem: GraphMemory) -> None:
    threads, per_thread = 4, 8
    made: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def work(t: int) -> None:
        rng = random.Random(100 + t)
        try:
            made[t] = [
                mem.remember(sentence(rng), session_id=f"s{t}", tags=["shared", f"t{t}"]).id
                for _ in range(per_thread)
            ]
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    ids = [i for t in range(threads) for i in made[t]]
    assert sorted(stored_ids(mem)) == sorted(ids)
    counts = {t.name: t.count for t in mem.tags()}
    assert counts["shared"] == threads * per_thread
    assert all(counts[f"t{t}"] == per_thread for t in range(threads))
    assert_tag_counts(mem)
    # Each session's memories are linked one to the next: a batch applied before the one it
    # follows would have lost that link (its end did not exist yet).
    linked = {
        frozenset((r["a"], r["b"]))
        for r in db_rows(
            mem, "MATCH (a:Memory)-[:RelatesTo]->(b:Memory) RETURN a.id AS a, b.id AS b"
        )
    }
    for t in range(threads):
        for a, b in zip(made[t], made[t][1:], strict=False):
            assert frozenset((a, b)) in linked, f"session s{t}: {a} -> {b} missing"


def test_journal_records_keep_metadata_that_looks_like_their_tags() -> None:
    fields = {
        "new_rows": {
            "m1": {
                "metadata": {"t": "2020-01-01T00:00:00", "m": [["a", 1]], "s": [1], "f": "x"},
                "embedding": np.arange(4, dtype=np.float32),
                "triggers": ["a", "b"],
            }
        },
        "known_tags": {"x", "y"},
        "removed": [("HasTag", "m1", "x", None)],
    }
    back = _decode(json.loads(json.dumps(_encode(fields))))
    row = back["new_rows"]["m1"]
    assert row["metadata"] == fields["new_rows"]["m1"]["metadata"]
    assert row["embedding"].dtype == np.float32
    assert row["embedding"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert back["known_tags"] == {"x", "y"}
    assert back["removed"] == [["HasTag", "m1", "x", None]]


def test_compacting_keeps_exactly_the_pending_records(mem: GraphMemory) -> None:
    rng = random.Random(6)
    journal = mem._shared.journal
    mem.remember(sentence(rng))
    mem.get(mem.remember(sentence(rng)).id)  # applied: the file is empty again
    held, release = threading.Event(), threading.Event()

    def hold() -> None:  # no transaction can start: records stay pending
        with mem._store.engine.write_lock:
            held.set()
            release.wait()

    owner = threading.Thread(target=hold)
    owner.start()
    try:
        held.wait()
        ids = [mem.remember(sentence(rng)).id for _ in range(3)]
        before = [seq for seq, _ in read_records(journal.path)]
        assert len(before) == 3 and journal.pending == 3
        with journal._lock:
            journal._compact()
        ids.append(mem.remember(sentence(rng)).id)  # appended to the new file
        after = [seq for seq, _ in read_records(journal.path)]
        assert after == [*before, before[-1] + 1]
    finally:
        release.set()
        owner.join()
    assert all(mem.get(i) for i in ids)
    assert read_records(journal.path) == []
    assert set(ids) <= set(stored_ids(mem))


CLIENT = """
import json, sys
from graphmem import GraphMemory
with GraphMemory(sys.argv[1]) as mem:
    assert mem.owner is not None, "this process must be a client"
    out = []
    for i in range(5):
        r = mem.remember(f"The client wrote note {i} about the {['harbor','meadow','glacier','canyon','orchid'][i]}.")
        rows = mem.cypher("MATCH (m:Memory {id: $id}) RETURN m.id AS id", {"id": r.id})
        out.append([r.id, [row["id"] for row in rows]])
    print(json.dumps(out))
"""


def test_a_client_sees_its_remember_at_once(served_mem: GraphMemory, store_path: Path) -> None:
    mem = served_mem  # the client process below reaches it through its socket
    mem.remember("The owner opened this store first.")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, str(store_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for memory_id, seen in json.loads(done.stdout):
        assert seen == [memory_id], "a client's read missed the write it just made"
    assert len(stored_ids(mem)) == 6


def test_a_writer_applies_the_backlog_when_the_applier_falls_behind(
    mem: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_mod, "MAX_PENDING", 0)
    rng = random.Random(7)
    for _ in range(3):
        mem.remember(sentence(rng))
        # Past the bound the call itself applied what was waiting before it returned.
        assert mem._shared.journal.pending == 0
    assert len(stored_ids(mem)) == 3

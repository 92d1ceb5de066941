"""Threads sharing a store: remember, remember_many, recall, forget and purge at once, on one
handle and on two handles of one path. No call may raise, no write may be lost, nothing may
deadlock (every thread must finish within a bound), and afterwards the mirror agrees with the
database."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from crash_child import sentence
from helpers import db_rows
from test_crash import check_consistent

from graphmem import GraphMemory

THREADS = 4
ROUNDS = 8
# Far more than the work needs on a loaded 2-core machine; reaching it means a deadlock.
JOIN_TIMEOUT = 180.0


@dataclass
class Outcome:
    """What one worker did, to check against the store afterwards."""

    kept: dict[str, str] = field(default_factory=dict)  # id -> content, still active
    forgotten: set[str] = field(default_factory=set)
    purged: set[str] = field(default_factory=set)


def worker(mem: GraphMemory, seed: int, out: Outcome) -> None:
    """Interleave every kind of call; assert what each returns as it goes."""
    rng = random.Random(seed)
    for round_ in range(ROUNDS):
        if round_ % 3 == 2:
            results = mem.remember_many([{"content": sentence(rng)} for _ in range(3)])
        else:
            results = [mem.remember(sentence(rng))]
        for r in results:
            assert r.action == "created", (r.action, r.reason)
            out.kept[r.id] = r.memory.content
        # Read what this thread just wrote while the others keep writing: search must rank
        # it first. (Recall is exercised too, but its ranking may put learned links first.)
        probe = results[0]
        assert mem.search(probe.memory.content, limit=1)[0].memory.id == probe.id
        assert mem.recall(probe.memory.content, limit=5), "recall found nothing"
        if round_ % 4 == 3:
            victim = rng.choice(sorted(out.kept))
            del out.kept[victim]
            if rng.random() < 0.5:
                mem.forget(victim)
                out.forgotten.add(victim)
            else:
                mem.forget(victim, purge=True)
                out.purged.add(victim)


def run_all(targets: list[Callable[[], None]]) -> None:
    """Run ``targets`` in threads; re-raise the first failure; fail on a thread still running."""
    errors: list[BaseException] = []

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:  # collected and re-raised in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,), daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT)
    assert not [t for t in threads if t.is_alive()], "a thread is stuck: deadlock"
    if errors:
        raise errors[0]


def check_outcomes(mem: GraphMemory, outcomes: list[Outcome]) -> None:
    mem.flush()  # background maintenance from every recall must also have succeeded
    rows = {
        r["id"]: r["active"]
        for r in db_rows(mem, "MATCH (m:Memory) RETURN m.id AS id, m.active AS active")
    }
    kept = {k: v for o in outcomes for k, v in o.kept.items()}
    assert len(kept) == sum(len(o.kept) for o in outcomes), "two threads got the same id"
    for memory_id, content in kept.items():
        assert rows.get(memory_id) is True, f"write lost or hidden: {memory_id}"
        assert memory_id in [h.memory.id for h in mem.search(content, limit=3)]
    for o in outcomes:
        for memory_id in o.forgotten:
            assert rows.get(memory_id) is False, f"forgotten memory {memory_id} still active"
        for memory_id in o.purged:
            assert memory_id not in rows, f"purged memory {memory_id} still stored"
    assert set(rows) == set(kept) | {i for o in outcomes for i in o.forgotten}
    check_consistent(mem)


def test_threads_on_one_handle(mem: GraphMemory) -> None:
    outcomes = [Outcome() for _ in range(THREADS)]
    run_all([lambda i=i: worker(mem, i, outcomes[i]) for i in range(THREADS)])
    check_outcomes(mem, outcomes)


def test_threads_on_two_handles_of_one_path(store_path: Path, model_path: str) -> None:
    with (
        GraphMemory(store_path, model_path=model_path) as first,
        GraphMemory(store_path, model_path=model_path) as second,
    ):
        handles = [first, second]
        outcomes = [Outcome() for _ in range(THREADS)]
        run_all([lambda i=i: worker(handles[i % 2], 100 + i, outcomes[i]) for i in range(THREADS)])
        check_outcomes(first, outcomes)
        # The other handle sees the same store.
        assert {m.id for m in second.memories(limit=1000)} == {
            m.id for m in first.memories(limit=1000)
        }

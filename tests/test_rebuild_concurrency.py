"""A cluster rebuild racing writers and other rebuilds: the mirror's clusters equal the database's.

A rebuild writes the database under the write lock alone and swaps the mirror later, so other
threads run in between; these tests force the interleavings that matter.
"""

from __future__ import annotations

import threading
from typing import Any

from graphmem import Config, GraphMemory

CATS = ["Cats purr when they are content", "Kittens sleep most of the day",
        "A cat's whiskers sense nearby objects", "Cats groom themselves with their rough tongues",
        "House cats love sunny windowsills", "Cats often knock objects off tables",
        "A kitten's eyes open after about a week"]  # fmt: skip
DB = ["PostgreSQL supports window functions", "Indexes speed up SQL queries on large tables",
      "Vacuum reclaims space in PostgreSQL tables", "SQL joins combine rows from two tables",
      "A primary key uniquely identifies each database row",
      "Query planners choose join orders in SQL", "Foreign keys keep relational tables consistent"]  # fmt: skip
MORE_CATS = ["Cats chase laser pointers around the room", "A cat naps in a cardboard box",
             "Kittens play with balls of yarn", "Cats land on their feet when they fall",
             "An old cat sleeps by the warm fireplace"]  # fmt: skip
CFG = Config(min_cluster_size=3, cluster_every_writes=0, cluster_every_recalls=0)


def _items(texts: list[str]) -> list[dict[str, Any]]:
    return [{"content": t, "dedupe": False} for t in texts]


def assert_clusters_match_the_database(mem: GraphMemory) -> None:
    """The mirror's InCluster edges are the database's, and each Cluster.size counts them."""
    stored = mem.cypher("MATCH (m:Memory)-[:InCluster]->(c:Cluster) RETURN m.id AS m, c.id AS c")
    mirrored = {(u[2:], v[2:]) for u, v, *_ in mem._mirror.edges("InCluster")}
    assert mirrored == {(r["m"], r["c"]) for r in stored}
    counted: dict[str, int] = {}
    for r in stored:
        counted[r["c"]] = counted.get(r["c"], 0) + 1
    sizes = {c.id: c.size for c in mem.clusters()}
    assert {c: n for c, n in sizes.items() if n} == counted
    for cluster, n in counted.items():
        assert mem._mirror.member_count("c:" + cluster) == n


class _PausingLock:
    """The store's mirror lock, except that ``paused`` stops before taking it once the
    rebuild has written the database (``clusters_changing``): between its write and its swap."""

    def __init__(self, shared: Any, real: threading.RLock) -> None:
        self.shared, self.real = shared, real
        self.paused: threading.Thread | None = None
        self.at_swap, self.go = threading.Event(), threading.Event()

    def __enter__(self) -> Any:
        if (
            threading.current_thread() is self.paused
            and self.shared.clusters_changing
            and not self.at_swap.is_set()
        ):
            self.at_swap.set()
            self.go.wait()
        return self.real.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.real.__exit__(*exc)

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        return self.real.acquire(*args, **kwargs)

    def release(self) -> None:
        self.real.release()


def test_a_rebuild_waits_for_one_between_its_write_and_its_swap(store_path, model_path):
    """Two rebuilds at once (the maintainer's and a caller's): the one that wrote the database
    first must not swap its clusters into the mirror after the other wrote and swapped, or the
    mirror keeps clusters the database no longer has."""
    with GraphMemory(store_path, model_path=model_path, config=CFG) as mem:
        mem.remember_many(_items(CATS + DB))
        mem.rebuild_clusters()
        shared = mem._shared
        pausing = _PausingLock(shared, shared.lock)
        shared.lock = pausing
        errors: list[BaseException] = []

        def run() -> None:
            try:
                shared.rebuild_clusters()
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        first = threading.Thread(target=run)
        pausing.paused = first
        first.start()
        assert pausing.at_swap.wait(60)  # the first rebuild wrote the database
        # Memories the first rebuild never saw; the second clusters them.
        mem.remember_many(_items(MORE_CATS))
        second = threading.Thread(target=run)
        second.start()
        # Before the fix the second rebuild ran to its end here; after it, it waits for the
        # first (then the wait ends without it, which is fine).
        second.join(3)
        pausing.go.set()
        first.join(60)
        second.join(60)
        shared.lock = pausing.real
        assert not errors
        assert not shared.clusters_changing
        assert_clusters_match_the_database(mem)

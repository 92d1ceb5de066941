"""A cluster rebuild racing writers and other rebuilds: the mirror's clusters equal the database's.

A rebuild writes the database under the write lock alone and swaps the mirror later, so other
threads run in between; these tests force the interleavings that matter.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from helpers import db_rows

from graphmem import Config, GraphMemory

# What is tested is rebuilds racing writes, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


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
    stored = db_rows(mem, "MATCH (m:Memory)-[:InCluster]->(c:Cluster) RETURN m.id AS m, c.id AS c")
    mirrored = {(u[2:], v[2:]) for u, v, *_ in mem._mirror.edges("InCluster")}
    assert mirrored == {(r["m"], r["c"]) for r in stored}
    counted: dict[str, int] = {}
    for r in stored:
        counted[r["c"]] = counted.get(r["c"], 0) + 1
    sizes = {c.id: c.size for c in mem.clusters()}
    assert {c: n for c, n in sizes.items() if n} == counted
    for cluster, n in counted.items():
        assert mem._mirror.member_count("c:" + cluster) == n


class _LockProxy:
    """The store's mirror lock, passed through; subclasses act when a thread enters it."""

    real: threading.RLock

    def __enter__(self) -> Any:
        return self.real.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.real.__exit__(*exc)

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        return self.real.acquire(*args, **kwargs)

    def release(self) -> None:
        self.real.release()


class _PausingLock(_LockProxy):
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


class _Noting:
    """A lock that sets ``entering`` when a thread starts to take it (None: no lock)."""

    def __init__(self, real: Any, entering: threading.Event) -> None:
        self.real, self.entering = real, entering

    def __enter__(self) -> Any:
        self.entering.set()
        return self.real.__enter__() if self.real is not None else None

    def __exit__(self, *exc: Any) -> Any:
        return self.real.__exit__(*exc) if self.real is not None else None


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
        # The second rebuild runs to its end, or waits for the first (``rebuilding``, taken
        # by the first before this wrapper was put in): either way, then the first goes on.
        ready = threading.Event()
        real_rebuilding = getattr(shared, "rebuilding", None)
        shared.rebuilding = _Noting(real_rebuilding, ready)

        def run_second() -> None:
            run()
            ready.set()

        second = threading.Thread(target=run_second)
        second.start()
        assert ready.wait(60)
        pausing.go.set()
        first.join(60)
        second.join(60)
        shared.lock = pausing.real
        shared.rebuilding = real_rebuilding
        assert not errors
        assert not shared.clusters_changing
        assert_clusters_match_the_database(mem)


class _Stops(_LockProxy):
    """Pauses one rebuild thread at chosen points: the n-th time it takes the mirror lock,
    at its first progress message (clustering, no lock held), and between its database write
    and its swap. The test thread writes while it waits."""

    def __init__(self, shared: Any, real: threading.RLock, at_entries: set[int]) -> None:
        self.shared, self.real, self.at_entries = shared, real, at_entries
        self.thread: threading.Thread | None = None
        self.entries = 0
        self.swap_seen = self.progress_seen = False
        self.stopped, self.go = threading.Event(), threading.Event()
        self.where: list[str] = []

    def _stop(self, where: str) -> None:
        self.where.append(where)
        self.go.clear()
        self.stopped.set()
        self.go.wait()

    def progress(self, _message: str) -> None:
        if not self.progress_seen:
            self.progress_seen = True
            self._stop("clustering")

    def __enter__(self) -> Any:
        if threading.current_thread() is self.thread:
            self.entries += 1
            if self.shared.clusters_changing and not self.swap_seen:
                self.swap_seen = True
                self._stop("swap")
            elif self.entries in self.at_entries:
                self._stop(f"gather {self.entries}")
        return self.real.__enter__()


def _churn(mem: GraphMemory, round_: int, ids: list[str]) -> None:
    """Every kind of write, on memories the rebuild has clustered (or is clustering)."""
    mem.remember(f"Cat number {round_} chases a red laser dot", dedupe=False)
    mem.remember_many(
        [{"content": f"Kitten {round_} sleeps in a sunny basket", "dedupe": False},
         {"content": f"SQL index {round_} speeds up table scans", "dedupe": False}]
    )  # fmt: skip
    a, b, c, d = ids[4 * round_ : 4 * round_ + 4]
    mem.update(a, content=f"Cats purr loudly when content, round {round_}")
    mem.forget(b)
    mem.restore(b)
    mem.forget(c, purge=True)
    mem.link(b, d)
    mem.tag(d, f"felines-{round_}")
    mem.untag(d, f"felines-{round_}")
    mem.tag(b, "felines")
    # A free-form write reloads the mirror from the database (its slots renumbered).
    mem.cypher("MATCH (m:Memory {id: $id}) SET m.confidence = 0.9", {"id": d}, write=True)


def test_writes_of_every_kind_during_a_rebuild_leave_the_mirror_equal_to_the_database(
    store_path, model_path, monkeypatch
):
    """Writes while a rebuild gathers its members (between chunks, one purging a memory and
    one reloading the mirror), while it clusters, and between its database write and its
    swap: afterwards the mirror's clusters, tags and edges equal the database's."""
    from test_scale import _assert_mirror_and_counts_match_the_database

    import graphmem.owner.feedback as maintenance

    monkeypatch.setattr(maintenance, "GATHER_CHUNK", 3)
    with GraphMemory(store_path, model_path=model_path, config=CFG) as mem:
        ids = [r.id for r in mem.remember_many(_items(CATS + DB + MORE_CATS))]
        mem.rebuild_clusters()
        shared = mem._shared
        stops = _Stops(shared, shared.lock, {3})
        shared.lock = stops
        errors: list[BaseException] = []

        def run() -> None:
            try:
                shared.rebuild_clusters(progress=stops.progress)
            except BaseException as exc:  # surfaced below
                errors.append(exc)
            finally:
                stops.stopped.set()

        rebuild = threading.Thread(target=run)
        stops.thread = rebuild
        rebuild.start()
        for round_ in range(3):
            assert stops.stopped.wait(60)
            stops.stopped.clear()
            assert not errors
            _churn(mem, round_, ids)
            stops.go.set()
        rebuild.join(60)
        shared.lock = stops.real
        assert stops.where == ["gather 3", "clustering", "swap"]
        assert not errors and not shared.clusters_changing
        assert_clusters_match_the_database(mem)
        _assert_mirror_and_counts_match_the_database(mem)
        # A rebuild after it all agrees as well, and new memories join clusters again.
        mem.rebuild_clusters()
        assert_clusters_match_the_database(mem)
        _assert_mirror_and_counts_match_the_database(mem)


def test_a_client_process_writing_during_a_rebuild_leaves_the_mirror_equal_to_the_database(
    store_path, model_path, monkeypatch
):
    """Another process writes through the owner while the owner's rebuild is stopped between
    its database write and its swap (and while it clusters): its memories join no cluster
    then, and the owner's mirror equals its database afterwards."""
    from test_processes import acks, worker

    # The client opens with the default settings: the owner must share them.
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [r.id for r in mem.remember_many(_items(CATS + DB + MORE_CATS))]
        mem.rebuild_clusters(min_cluster_size=3)
        shared = mem._shared
        stops = _Stops(shared, shared.lock, set())
        shared.lock = stops
        errors: list[BaseException] = []

        def run() -> None:
            try:
                shared.rebuild_clusters(progress=stops.progress, min_cluster_size=3)
            except BaseException as exc:  # surfaced below
                errors.append(exc)
            finally:
                stops.stopped.set()

        rebuild = threading.Thread(target=run)
        stops.thread = rebuild
        rebuild.start()
        client = worker("writer", store_path, model_path, n=6)
        try:
            assert client.expect("role") == "role client"
            for _ in ("clustering", "swap"):
                assert stops.stopped.wait(120)
                stops.stopped.clear()
                written = acks(client, 3)
                stops.go.set()
            rebuild.join(120)
            client.expect("done")
        finally:
            shared.lock = stops.real
            stops.go.set()
            client.finish()
        assert stops.where == ["clustering", "swap"]
        assert not errors and not shared.clusters_changing
        assert all(i in mem._mirror for i in written)
        # The last three were written between the database write and the swap.
        clusters = ["c:" + n for n in mem._mirror.hubs("c:")]
        assert clusters and not any(mem._mirror.has_edge(i, c) for i in written for c in clusters)
        assert ids[0] in mem._mirror
        assert_clusters_match_the_database(mem)


def test_a_rebuild_that_fails_leaves_writers_placing_memories_as_the_database_says(
    store_path, model_path
):
    """A rebuild that fails after its database write (the mirror's swap raised) or before it
    (the write raised): the mirror's clusters stay equal to the database's, new memories join
    clusters again (``clusters_changing`` is not left set) and the error reaches the caller."""
    import pytest

    with GraphMemory(store_path, model_path=model_path, config=CFG) as mem:
        mem.remember_many(_items(CATS + DB))
        mem.rebuild_clusters()
        space = ["Mars has two small moons", "Jupiter is the largest planet in the solar system",
                 "Saturn's rings are made of ice and rock", "Venus is the hottest planet",
                 "Neptune has the strongest winds of any planet",
                 "Mercury orbits closest to the Sun", "Uranus rotates on its side"]  # fmt: skip
        mem.remember_many(_items(space))  # the next clustering has one more cluster
        before = {c.id for c in mem.clusters()}
        mirror, store = mem._mirror, mem._store
        for broken, where in ((mirror, "set_clusters"), (store, "replace_clusters")):
            original = getattr(broken, where)

            def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
                raise MemoryError("no room")

            setattr(broken, where, failing)
            try:
                with pytest.raises(MemoryError):
                    mem.rebuild_clusters()
            finally:
                setattr(broken, where, original)
            assert not mem._shared.clusters_changing
            assert_clusters_match_the_database(mem)
            assert where == "replace_clusters" or {c.id for c in mem.clusters()} != before
            joined = mem.remember("A cat naps on the warm laptop keyboard", dedupe=False).id
            assert db_rows(
                mem,
                "MATCH (:Memory {id: $id})-[:InCluster]->(c:Cluster) RETURN c.id AS c",
                {"id": joined},
            )
            assert_clusters_match_the_database(mem)
        mem.rebuild_clusters()
        assert_clusters_match_the_database(mem)


def test_replacing_hub_edges_at_once_equals_killing_and_adding_them_one_by_one() -> None:
    """``replace_hub_edges`` (one vectorised step, then a compaction that renumbers hubs)
    leaves every memory's edges in the same order, every hub's members and degrees, as
    killing the InCluster edges and adding the new ones one ``add`` at a time did; with
    tags and clusters left without members, an empty replacement, and dead rows."""
    import random

    import numpy as np

    from graphmem.index.adjacency import TYPE_CODE, Adjacency

    def state(a: Adjacency) -> tuple[Any, ...]:
        hub = {TYPE_CODE["HasTag"], TYPE_CODE["InCluster"]}
        out = {
            s: [(int(a.type[r]), a.hub_keys[a.dst[r]] if a.type[r] in hub else int(a.dst[r]),
                 round(float(a.weight[r]), 6)) for r in a.live_rows(a.out, s).tolist()]
            for s in range(40)
        }  # fmt: skip
        members = {k: sorted(a.src[a.live_rows(a.members, i)].tolist())
                   for i, k in enumerate(a.hub_keys)}  # fmt: skip
        degrees = {k: int(a.hub_degree[i]) for i, k in enumerate(a.hub_keys)}
        return out, {k: v for k, v in members.items() if v}, {k: d for k, d in degrees.items() if d}

    for seed in range(200):
        rnd = random.Random(seed)
        ops = []
        for _ in range(rnd.randint(0, 80)):
            kind = rnd.choice(["HasTag", "InCluster", "RelatesTo"])
            dst: Any = {"HasTag": f"t:{rnd.randrange(6)}", "InCluster": f"c:{rnd.randrange(5)}",
                        "RelatesTo": rnd.randrange(40)}[kind]  # fmt: skip
            ops.append((rnd.randrange(40), dst, kind, rnd.random()))
        dead = rnd.sample(range(len(ops)), rnd.randint(0, len(ops)))
        compacted = rnd.random() < 0.5
        new: dict[tuple[int, str], float] = {}
        for _ in range(rnd.randint(0, 30)):
            new[(rnd.randrange(40), f"c:{rnd.randrange(8)}")] = rnd.random()

        def build() -> Adjacency:
            a = Adjacency()
            for src, dst, kind, w in ops:  # noqa: B023
                a.add(src, a.hub(dst, create=True) if isinstance(dst, str) else dst, kind, w, "")
            a.kill([r for r in dead if r < a.count])  # noqa: B023
            if compacted:  # noqa: B023
                a.compact()
            return a

        fast, slow = build(), build()
        fast.replace_hub_edges("InCluster", np.array([s for s, _ in new], dtype=np.int32),
                               [k for _, k in new], np.array(list(new.values())))  # fmt: skip
        code = TYPE_CODE["InCluster"]
        slow.kill(np.flatnonzero(slow.live[: slow.count] & (slow.type[: slow.count] == code)))
        for (src, key), w in new.items():
            slow.add(src, slow.hub(key, create=True), "InCluster", w, "")
        slow.compact()
        assert state(fast) == state(slow), seed

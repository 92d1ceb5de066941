"""Post-retrieval maintenance, off the hot path, and cluster rebuilds.

Recall only enqueues an event. A background worker applies events in batches, each batch one
transaction (so a crash loses at most queued work, never consistency): access counts, links
between co-relevant memories (w ← w + η(1 − w)), confidence for rejected memories, gaps, and
a cluster refresh every N recalls or writes. ``flush()`` waits for the queue; ``close()``
flushes, then stops the worker.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NotFoundError, ValidationError
from ..keys import CLUSTER, TAG, fresh_id
from ..text.entities import indexed
from ..text.screen import screen_fields
from ..timeutil import now
from . import clusters as clusters_mod

log = logging.getLogger(__name__)
# Memories re-tagged per transaction when a store is upgraded to a new tagger version.
RETAG_BATCH = 20_000
# Memories a cluster rebuild reads from the mirror per hold of its lock (about 30 ms).
GATHER_CHUNK = 1_000

if TYPE_CHECKING:
    from ..config import Config
    from ..index.mirror import Mirror
    from ..storage.store import Store

# The learning itself (Config.learn_pairs_from, use_boost, reject_penalty) is configured; these
# bound the worker's memory and batching, which change no result.
_REMEMBERED_RECALLS = 2048
BATCH_WINDOW = 0.25  # seconds the worker waits to gather more events into one transaction


@dataclass
class RecallEvent:
    recall_id: str
    context: str
    session_id: str | None
    returned: list[str]
    verified: list[str]
    best_score: float
    gap: bool


@dataclass
class FeedbackEvent:
    recall_id: str
    used: list[str]
    rejected: list[str]


@dataclass
class _Flush:
    done: threading.Event = field(default_factory=threading.Event)


@dataclass
class _Rebuild:
    pass


class Maintainer:
    """One background worker per open store."""

    def __init__(
        self,
        store: Store,
        mirror: Mirror,
        lock: threading.RLock,
        config: Config,
        rebuild: Callable[[], Any],
    ) -> None:
        self.store, self.mirror, self.lock, self.config = store, mirror, lock, config
        self._rebuild = rebuild
        self._queue: queue.Queue[Any] = queue.Queue()
        self._recalls: OrderedDict[str, list[str]] = OrderedDict()
        self.recall_count = 0
        self.errors: list[BaseException] = []
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------------ producer side

    def new_recall(self, returned: list[str]) -> str:
        recall_id = fresh_id(12)
        self._recalls[recall_id] = returned
        while len(self._recalls) > _REMEMBERED_RECALLS:
            self._recalls.popitem(last=False)
        return recall_id

    def submit(self, event: RecallEvent | FeedbackEvent | _Rebuild) -> None:
        if self._closed or self.store.read_only:
            return
        if isinstance(event, FeedbackEvent):
            returned = self._recalls.get(event.recall_id)
            if returned is None:
                raise NotFoundError(f"No recent recall with id '{event.recall_id}'")
            stray = sorted(set(event.used + event.rejected) - set(returned))
            if stray:
                raise ValidationError(
                    f"{', '.join(stray)} was not returned by recall '{event.recall_id}'; "
                    "feedback covers only the memories that recall returned"
                )
        self._ensure_thread()
        self._queue.put(event)

    def request_rebuild(self) -> None:
        self.submit(_Rebuild())

    def flush(self, timeout: float | None = 60.0) -> None:
        """Wait until every queued event is applied."""
        if self._thread is None or not self._thread.is_alive():
            return
        marker = _Flush()
        self._queue.put(marker)
        marker.done.wait(timeout)

    def close(self) -> None:
        if self._closed:
            return
        self.flush()
        self._closed = True
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=60)

    # ------------------------------------------------------------------ worker side

    def _ensure_thread(self) -> None:
        # Under a lock: threads submitting at once must not start two workers (two would
        # write concurrently, and close() would stop only one of them).
        with self._thread_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="graphmem-maintenance", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            # Gather what arrives for a moment, so one transaction covers many recalls; a flush
            # or shutdown request ends the wait.
            deadline = time.monotonic() + BATCH_WINDOW
            while not isinstance(batch[-1], _Flush) and batch[-1] is not None:
                remaining = deadline - time.monotonic()
                try:
                    batch.append(
                        self._queue.get(timeout=max(remaining, 0))
                        if remaining > 0
                        else self._queue.get_nowait()
                    )
                except queue.Empty:
                    break
            events = [e for e in batch if isinstance(e, RecallEvent | FeedbackEvent)]
            rebuild = any(isinstance(e, _Rebuild) for e in batch)
            try:
                if events:
                    rebuild |= self._apply(events)
                if rebuild:
                    self._rebuild()
            except BaseException as exc:  # keep the worker alive; surface errors to flush callers
                self.errors.append(exc)
            for e in batch:
                if isinstance(e, _Flush):
                    e.done.set()
                if e is None:
                    return

    def _apply(self, events: list[RecallEvent | FeedbackEvent]) -> bool:
        cfg = self.config
        ts = now()
        access: dict[str, int] = {}
        pairs: list[tuple[str, str]] = []
        confidence_delta: dict[str, float] = {}
        gaps = []
        rebuild = False
        for e in events:
            if isinstance(e, RecallEvent):
                self.recall_count += 1
                for memory_id in e.returned:
                    access[memory_id] = access.get(memory_id, 0) + 1
                pairs.extend(itertools.combinations(sorted(e.verified[: cfg.learn_pairs_from]), 2))
                if e.gap:
                    gaps.append(e)
                every = cfg.cluster_every_recalls
                if every and self.recall_count % every == 0:
                    rebuild = True
            else:
                pairs.extend(itertools.combinations(sorted(set(e.used))[: cfg.learn_pairs_from], 2))
                for memory_id in e.used:
                    confidence_delta[memory_id] = (
                        confidence_delta.get(memory_id, 0.0) + cfg.use_boost
                    )
                for memory_id in e.rejected:
                    confidence_delta[memory_id] = (
                        confidence_delta.get(memory_id, 0.0) - cfg.reject_penalty
                    )
        pair_counts: dict[tuple[str, str], int] = {}
        for a, b in pairs:
            if a in self.mirror and b in self.mirror:
                pair_counts[(a, b)] = pair_counts.get((a, b), 0) + 1
        access = {i: n for i, n in access.items() if i in self.mirror}
        confidence_delta = {i: d for i, d in confidence_delta.items() if i in self.mirror}
        # The database serialises writers itself; recall only waits for the mirror update.
        with self.store.transaction():
            # A memory purged since the mirror was read must not get an edge (one naming a
            # missing memory fails the transaction); inside it nothing else can delete.
            alive = self.store.existing_memory_ids([i for pair in pair_counts for i in pair])
            pair_counts = {p: n for p, n in pair_counts.items() if p[0] in alive and p[1] in alive}
            self.store.bump_access(access, ts)
            self.store.adjust_confidence(confidence_delta)
            links = self.store.strengthen_links(
                pair_counts, rate=cfg.link_learning_rate, source="co_access"
            )
            for g in gaps:
                self.store.add_gap({"id": fresh_id(12), **_gap_text(g),
                                    "best_score": float(g.best_score), "created_at": ts})  # fmt: skip
        with self.lock:
            self.mirror.refresh_rows(self.store, set(access) | set(confidence_delta))
            for link in links:
                self.mirror.set_link(link)
        return rebuild


def _gap_text(event: RecallEvent) -> dict[str, Any]:
    """A gap's context and session with secrets redacted (never refused: recall must work).

    Redacting before truncating keeps a secret cut by the limit from slipping through in part.
    """
    screened = screen_fields(
        {"context": event.context, "session_id": event.session_id}, redact=True
    )
    return {"context": screened["context"][:2000], "session_id": screened["session_id"]}


def rebuild_clusters(
    store: Store,
    mirror: Mirror,
    lock: threading.RLock,
    config: Config,
    progress: Callable[[str], None] | None = None,
    install: Callable[[clusters_mod.ClusterModel | None], None] | None = None,
    changing: Callable[[bool], None] | None = None,
) -> clusters_mod.Clustering:
    """Recompute HDBSCAN clusters over the active memories and store them in one transaction.

    Recall waits for the mirror's lock, so the lock is held only in short steps: reading the
    members in chunks of ``GATHER_CHUNK`` and swapping the clusters in the mirror. Holding it
    while all members were read and the new clustering was written took 3 s at 85k memories
    (half a minute at a million), every ``cluster_every_recalls`` recalls. ``changing(True)``
    is called before the database's clusters change and ``changing(False)`` once the mirror
    has them: in between, new memories join no cluster (the next rebuild places them).
    """
    with lock:
        ids = [mirror.ids[s] for s in
               np.flatnonzero(mirror.alive[: mirror.size] & mirror.active[: mirror.size])]  # fmt: skip
        previous = {
            name: {mirror.ids[s] for s in slots.tolist()}
            for name, slots in mirror.hubs(CLUSTER).items()
        }
        tag_totals = {name: len(slots) for name, slots in mirror.hubs(TAG).items()}
    vectors = np.zeros((len(ids), mirror.dim), dtype=np.float32)
    member_tags: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    found = np.zeros(len(ids), dtype=bool)
    for start in range(0, len(ids), GATHER_CHUNK):
        # Let a waiting recall take the lock between chunks: a lock is not fair, and this
        # thread took it straight back, so a recall waited for the whole gather (1.1 s at 85k).
        time.sleep(0)
        with lock:
            # By id, not by slot: between two chunks a write may have purged a memory or
            # the mirror been rebuilt (its slots renumbered).
            for j in range(start, min(start + GATHER_CHUNK, len(ids))):
                slot = mirror.slot.get(ids[j])
                if slot is None or not mirror.alive[slot]:
                    continue
                found[j] = True
                vectors[j] = mirror.vectors[slot]
                member_tags[ids[j]] = mirror.tags_of(ids[j])
                texts[ids[j]] = mirror.content.get(slot, "")
    ids = [i for i, ok in zip(ids, found.tolist(), strict=True) if ok]
    vectors = vectors[found]

    def label_for(member_ids: list[str]) -> str:
        return clusters_mod.make_label(
            [member_tags[i] for i in member_ids], [texts[i] for i in member_ids], tag_totals
        )

    result = clusters_mod.compute(
        ids,
        vectors,
        min_cluster_size=config.min_cluster_size,
        dims=config.cluster_dims,
        previous=previous,
        label_for=label_for,
        progress=progress,
    )
    # Written under the database's write lock only, so recall goes on meanwhile: writers wait
    # for that lock, and from ``changing(True)`` to the swap below they join no cluster, so no
    # write places a memory with the old model (or the old mirror) into a cluster this rebuild
    # deleted, and the mirror's swap leaves no member out. The clustering was computed without
    # any lock, so memories may have been purged meanwhile: an edge naming a missing memory
    # fails the whole transaction, so members are checked against the database inside it.
    try:
        if changing is not None:
            # Under the mirror's lock, which a write holds from planning to the journal: a
            # write-behind batch planned before now (it may join a cluster deleted below) is
            # in the journal, and the transaction below applies it first; one planned after
            # joins no cluster.
            with lock:
                changing(True)
        with store.engine.write_lock, store.transaction():
            alive = store.existing_memory_ids([m["src"] for m in result.members])
            members = [m for m in result.members if m["src"] in alive]
            sizes: dict[str, int] = {}
            for m in members:
                sizes[m["dst"]] = sizes.get(m["dst"], 0) + 1
            clusters = [{**c, "size": sizes[c["id"]]} for c in result.clusters if c["id"] in sizes]
            store.replace_clusters(clusters, members)
        # Only the InCluster edges changed: swap them in the mirror (re-reading every memory
        # from the database took longer than the clustering at 100k memories).
        with lock, store.engine.write_lock:
            try:
                mirror.set_clusters(members)
            except BaseException:
                # The database has the new clusters: the mirror must not keep the old ones,
                # nor writers place memories with the old model.
                mirror.load(store)
                if install is not None:
                    install(result.model)
                raise
            if install is not None:
                install(result.model)
    finally:
        if changing is not None:
            changing(False)
    result.clusters, result.members = clusters, members
    return result


def upgrade_tags(store: Store, mirror: Mirror, config: Config) -> int:
    """Re-tag a store tagged by an older tagger, once (``Meta.tagger_version`` records it).

    Returns how many memories were re-tagged (0 when the store was up to date).
    """
    from ..text.tags import TAGGER_VERSION
    from ..write import batch as write_batch
    from ..write import planner as write_mod

    if store.read_only or store.meta().get("tagger_version") == TAGGER_VERSION:
        return 0
    rows = store.engine.rows("MATCH (m:Memory) RETURN m.id AS id, m.file_paths AS paths")
    # Once per store and upgrade; about 45 s for 85k memories on 2 cores.
    log.info("re-tagging %d memories for tagger version %s", len(rows), TAGGER_VERSION)
    paths = {r["id"]: list(r["paths"] or []) for r in rows}
    slots = np.flatnonzero(mirror.alive[: mirror.size]).tolist()
    kept: set[tuple[str, str]] = set()
    # In batches, so that memory stays bounded at any size (one batch of 574k memories took
    # 11 GB); each batch plans against the mirror as the batches before it left it.
    for start in range(0, len(slots), RETAG_BATCH):
        part = slots[start : start + RETAG_BATCH]
        batch = write_mod.plan_retag(mirror, config, paths, part, kept)
        own = {mirror.ids[s] for s in part}
        kept.update((e["src"], e["dst"]) for e in batch.edges.get("HasTag", [])
                    if e["src"] not in own)  # fmt: skip
        affected = write_batch.apply(store, batch, mirror)
        mirror.refresh(store, affected)
        mirror.entities.update(n for n, k in batch.tags.items() if indexed(n, k))
    # Recorded after the tags are written: an upgrade cut short runs again on the next open.
    with store.transaction():
        store._set_meta({"tagger_version": TAGGER_VERSION})
    return len(rows)

"""What every ``GraphMemory`` open on one store in this process shares.

Kùzu allows one ``Database`` per path per process, so the store, the in-process mirror, the
maintenance worker and the fitted cluster model are shared, reference-counted, per path.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..config import Config
from ..errors import GraphMemError
from ..index import snapshot
from ..index.ann import AnnIndex
from ..index.mirror import Mirror
from ..storage.diskspace import MIB
from ..storage.store import Store
from ..write.idempotency import RequestLog
from . import clusters as clusters_mod
from . import journal as journal_mod
from .clusters import ClusterModel
from .feedback import Maintainer, rebuild_clusters
from .journal import Journal

if TYPE_CHECKING:
    from ..embed import Embedder
    from ..remote.server import Listener


class SharedState:
    """What every ``GraphMemory`` on one path in this process shares."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config
        if store.dim is None:  # an open store always knows its dimension; this is a bug guard
            raise GraphMemError("The store has no embedding dimension.")
        self.mirror = Mirror(store.dim)
        # Before the journal replays: that is a write to the database too.
        store.engine.min_free_bytes = int(config.min_free_disk_mb * MIB)
        # The owner's write-behind journal; opening it replays what a previous owner left
        # (a new commit), so it comes before the snapshot is checked against the database.
        self.journal: Journal | None = None if store.read_only else Journal(store)
        if store.read_only:
            journal_mod.warn_unapplied(store)
        try:
            # A snapshot saved at the database's current commit, else a build from the database.
            self.from_snapshot = snapshot.load(self.mirror, store.folder, store.commit_id)
            if not self.from_snapshot:
                self.mirror.load(store)
            # The client requests applied so far (after the replay, which may add some).
            self.requests = RequestLog() if store.read_only else RequestLog.load(store)
        except BaseException:
            self.close_journal()
            raise
        self.snapshot_commit = store.commit_id if self.from_snapshot else None
        # The approximate index the snapshot holds (None: none): one trained since is saved at
        # close even without a write, or every open of a store that was never searched while
        # written would train it again (2.6 s at 85k memories, on the first search). A weak
        # reference: the mirror may drop that index (a reload, a retraining), and holding it
        # here kept it in memory beside its successor (1.5 GB at a million memories).
        self.snapshot_ann = _weak(self.mirror.ann)
        self.lock = threading.RLock()
        self.refs = 0
        self.cluster_model: ClusterModel | None = None
        self._centroids: tuple[int, list[str], np.ndarray] | None = None
        self.writes_since_clustering = 0
        # True while a cluster rebuild has changed the database's clusters and not yet the
        # mirror's: new memories join no cluster then (maintenance.rebuild_clusters).
        self.clusters_changing = False
        # One cluster rebuild at a time (the maintainer's and a caller's may overlap): one
        # that wrote the database first must not swap its clusters into the mirror after
        # another wrote and swapped its own, nor end ``clusters_changing`` in the other's window.
        self.rebuilding = threading.Lock()
        # The server answering other processes, when this process owns the store read-write.
        self.listener: Listener | None = None
        # The embedding model, loaded by the first handle that needs it.
        self.embedder: Embedder | None = None
        self.maintainer = Maintainer(store, self.mirror, self.lock, config, self.rebuild_clusters)

    def rebuild_clusters(
        self, progress: Callable[[str], None] | None = None, min_cluster_size: int | None = None
    ) -> Any:
        config = self.config
        if min_cluster_size is not None:
            config = config.model_copy(update={"min_cluster_size": min_cluster_size})

        def install(model: ClusterModel | None) -> None:
            self.cluster_model = model
            self._centroids = None

        def changing(now_changing: bool) -> None:
            self.clusters_changing = now_changing

        with self.rebuilding:
            result = rebuild_clusters(
                self.store, self.mirror, self.lock, config, progress, install, changing
            )
            self.writes_since_clustering = 0
        return result

    def close(self) -> None:
        """Stop serving, flush maintenance, close the database: the owner's orderly exit."""
        if self.listener is not None:
            self.listener.stop()
        self.maintainer.close()
        # Best effort: without a snapshot the next open rebuilds the mirror from the database.
        with contextlib.suppress(Exception):
            self.save_snapshot()
        # Applies what the journal holds; what it cannot stays in the file for the next owner.
        self.close_journal()
        self.store.close()

    def close_journal(self) -> None:
        """Stop the write-behind applier and apply what is pending (before the store closes)."""
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def save_snapshot(self) -> None:
        """Save the mirror for the next open (the owner, when it closes the store).

        The journal is applied first, so the snapshot never holds a write the database lacks
        (were applying to fail, the error stops the save).
        """
        if self.store.read_only:
            return
        with self.lock, self.store.engine.write_lock:
            if self.journal is not None:
                self.journal.drain()
            commit = self.store.commit_id
            trained = self.mirror.ann is not None and self.mirror.ann is not self.snapshot_ann()
            if not commit or (commit == self.snapshot_commit and not trained):
                return
            snapshot.save(self.mirror, self.store.folder, commit)
            self.snapshot_commit, self.snapshot_ann = commit, _weak(self.mirror.ann)

    def clusters_for(self, vectors: np.ndarray) -> list[tuple[str, float] | None]:
        """The cluster each new memory joins: HDBSCAN's prediction, else the nearest centroid.

        One prediction (or one centroid query and one matrix product) for a whole batch: per
        memory, the centroid query alone cost more than the rest of planning.
        """
        if len(vectors) == 0:
            return []
        if self.clusters_changing:
            return [None] * len(vectors)
        if self.cluster_model is not None:
            return clusters_mod.predict_many(self.cluster_model, vectors)
        # Centroids change only when clusters are rebuilt (or the mirror reloads after a
        # caller's Cypher write): read them once, not in every remember.
        cached = self._centroids
        if cached is None or cached[0] != self.mirror.generation:
            cached = (self.mirror.generation, *self.store.cluster_centroids())
            self._centroids = cached
        _, ids, centroids = cached
        if not ids:
            return [None] * len(vectors)
        sims = np.asarray(vectors, dtype=np.float32) @ centroids.T
        best = np.argmax(sims, axis=1)
        return [
            (ids[j], round(float(sims[i, j]), 4))
            if sims[i, j] >= self.config.centroid_join
            else None
            for i, j in enumerate(best)
        ]


def _weak(index: AnnIndex | None) -> Callable[[], AnnIndex | None]:
    """A weak reference to an index (a callable that gives it, or None once it is gone)."""
    return (lambda: None) if index is None else weakref.ref(index)

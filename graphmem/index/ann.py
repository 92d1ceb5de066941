"""An approximate nearest-neighbour index for big stores (faiss IVF-Flat, inner product).

Below ``ANN_MIN`` memories an exact scan is fast (about 3 ms at 50k on one core) and exact, so
the mirror uses it. Above, the nearest stored memories of a batch being written (and of a
search) come from an inverted-file index: the vectors are split into about 2·√n lists around
k-means centroids and a query scans the ``nprobe`` nearest lists, exactly, so the cost per
query stays near constant as the store grows. Filters are applied inside the search (a bitmap
of allowed slots); a query that gets fewer than k results while the filter allows more falls
back to the exact scan, and so does a filter that allows few memories.

recall@10 against exact search is measured by ``bench/scale.py`` (``nprobe`` is set so it stays
within one point).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

# The approximate index's own tuning, not Config fields: measured once for the model's vectors,
# they trade a query's time against the index's recall (bench/speed.py), below the ranking.
ANN_MIN = 50_000
# Lists scanned per query, and lists per √n. Measured on MiniLM embeddings of bench/corpus.py.
NPROBE = 48
LISTS_PER_SQRT = 2
TRAIN_POINTS_PER_LIST = 40  # faiss's minimum advice is 39
TRAIN_ITERATIONS = 10
# The index is retrained when the store has doubled since (its lists would grow unbalanced).
RETRAIN_GROWTH = 2.0


def _faiss() -> Any:
    import faiss

    # One thread: the machine's other core embeds; a pool would fight it.
    faiss.omp_set_num_threads(1)
    return faiss


class AnnIndex:
    """IVF-Flat over the mirror's slots (ids are slot numbers)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._index: Any = None
        # Reads the index from the snapshot on first use (``deserialize``); None: nothing to read.
        self._load: Callable[[], Any] | None = None
        self._load_lock = threading.Lock()
        self.trained_at = 0
        self.lock = threading.Lock()

    @property
    def index(self) -> Any:
        if self._load is not None:
            with self._load_lock:
                if self._load is not None:
                    # None when the bytes are gone or damaged: the mirror builds it again.
                    self._index = self._load()
                    self._load = None
        return self._index

    @index.setter
    def index(self, value: Any) -> None:
        self._index, self._load = value, None

    def build(self, vectors: np.ndarray, slots: np.ndarray) -> None:
        """Train on (a sample of) the vectors and add them all."""
        faiss = _faiss()
        n = len(slots)
        nlist = max(16, int(LISTS_PER_SQRT * np.sqrt(max(n, 1))))
        quantizer = faiss.IndexFlatIP(self.dim)
        index = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.niter = TRAIN_ITERATIONS
        rng = np.random.default_rng(0)
        size = TRAIN_POINTS_PER_LIST * nlist
        sample = vectors if n <= size else vectors[rng.choice(n, size, replace=False)]
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), slots.astype(np.int64))
        index.nprobe = NPROBE
        with self.lock:
            self.index = index
            self.trained_at = n

    def needs_retrain(self, n: int) -> bool:
        return self.index is None or n >= RETRAIN_GROWTH * self.trained_at

    def upsert(
        self, slots: np.ndarray, vectors: np.ndarray, replaced: np.ndarray | None = None
    ) -> None:
        """Add the vectors of these slots; ``replaced`` (default: all of them) may already be
        in the index and are removed first."""
        if self.index is None or len(slots) == 0:
            return
        ids = np.asarray(slots, dtype=np.int64)
        gone = ids if replaced is None else np.asarray(replaced, dtype=np.int64)
        with self.lock:
            if len(gone):
                self.index.remove_ids(gone)
            self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), ids)

    def search(
        self, queries: np.ndarray, mask: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Scores and slots of the k best allowed slots per query (slot -1: none found)."""
        faiss = _faiss()
        bitmap = np.packbits(mask.astype(np.uint8), bitorder="little")
        # The selector points into ``bitmap``, which must outlive the search.
        selector = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bitmap))
        params = faiss.SearchParametersIVF(sel=selector, nprobe=NPROBE)
        with self.lock:
            return self.index.search(
                np.ascontiguousarray(queries, dtype=np.float32), k, params=params
            )


def serialize(index: AnnIndex) -> np.ndarray:
    """The index as faiss's own bytes (for the mirror snapshot)."""
    with index.lock:
        return _faiss().serialize_index(index.index)


def deserialize(
    read: Callable[[], bytes | bytearray | None], dim: int, trained_at: int
) -> AnnIndex:
    """An index whose bytes ``read`` returns when it is first used (None: build it again).

    At 100k memories the index is as big as the vectors (150 MB) and only search and the
    write path use it: a CLI call that lists, gets or exports never reads it."""

    def load() -> Any:
        data = read()
        if data is None:
            return None
        index = _faiss().deserialize_index(np.frombuffer(data, dtype=np.uint8))
        index.nprobe = NPROBE
        return index

    index = AnnIndex(dim)
    index._load = load
    index.trained_at = trained_at
    return index

"""The mirror's adjacency: every edge as a row of numpy columns, indexed per node.

A general graph library keeps dicts of dicts per node and edge (networkx's MultiDiGraph took
about 670 bytes an edge, 420 MB for the 630k edges of a 100k-memory store, and seconds to
unpickle). The mirror needs few operations: a memory's edges both ways, a tag's or cluster's
members, and edits by memory. So edges live in flat columns (source slot, target slot or hub,
type code, weight, via code) and three indexes (out of a memory, into a memory, into a hub)
map a node to its edge rows: a CSR part built at compaction plus short lists of rows appended
since. Removing an edge marks its row dead; compaction drops dead rows and folds the lists
into the CSR arrays. Edge rows keep insertion order, so a node's edges come back in the order
they were added, as before.

Memories are addressed by mirror slot; tags and clusters ("hubs") by an index into
``hub_keys`` (``t:<name>``, ``c:<id>``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..edges import EDGE_TABLES
from ..keys import HUB_PREFIX

TYPES: tuple[str, ...] = EDGE_TABLES
TYPE_CODE: dict[str, int] = {t: i for i, t in enumerate(TYPES)}
HUB_CODES = frozenset(TYPE_CODE[t] for t in HUB_PREFIX)
IS_HUB = np.array([t in HUB_PREFIX for t in TYPES], dtype=bool)
# Compact once this many rows were appended or died since the last compaction (and a quarter
# of the edges): the lists of appended rows cost a Python object per row.
COMPACT_MIN = 4096

_COLUMNS = ("src", "dst", "type", "weight", "via", "live")
_DTYPES = {"src": np.int32, "dst": np.int32, "type": np.int8, "weight": np.float64,
           "via": np.int16, "live": bool}  # fmt: skip


class _Index:
    """Edge rows per node: CSR arrays from the last compaction plus rows appended since."""

    def __init__(self) -> None:
        self.indptr = np.zeros(1, dtype=np.int64)
        self.rows = np.zeros(0, dtype=np.int32)
        self.extra: dict[int, list[int]] = {}

    def build(self, keys: np.ndarray, rows: np.ndarray, nodes: int) -> None:
        order = np.argsort(keys, kind="stable")  # stable: rows keep insertion order
        self.rows = rows[order].astype(np.int32)
        counts = np.bincount(keys, minlength=nodes)
        self.indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.extra = {}

    def of(self, node: int) -> np.ndarray:
        """Every row (live or dead) of one node, in insertion order."""
        part = (
            self.rows[self.indptr[node] : self.indptr[node + 1]]
            if node < len(self.indptr) - 1
            else self.rows[:0]
        )
        more = self.extra.get(node)
        if more:
            return np.concatenate((part, np.asarray(more, dtype=np.int32)))
        return part

    def add(self, node: int, row: int) -> None:
        self.extra.setdefault(node, []).append(row)


class Adjacency:
    """Typed, weighted edges from memory slots to memory slots or hubs."""

    def __init__(self) -> None:
        self.count = 0  # rows in use, live or dead
        self.src = np.zeros(0, dtype=np.int32)
        self.dst = np.zeros(0, dtype=np.int32)
        self.type = np.zeros(0, dtype=np.int8)
        self.weight = np.zeros(0, dtype=np.float64)
        self.via = np.zeros(0, dtype=np.int16)
        self.live = np.zeros(0, dtype=bool)
        self.vias: list[str] = [""]
        self.via_codes: dict[str, int] = {"": 0}
        self.hub_keys: list[str] = []
        self.hub_index: dict[str, int] = {}
        self.hub_degree = np.zeros(0, dtype=np.int32)  # live edges into each hub
        self.out = _Index()  # rows by source slot
        self.into = _Index()  # memory-to-memory rows by target slot
        self.members = _Index()  # hub rows by hub
        self.changed = 0  # rows appended or killed since the last compaction
        self.compacted = 0  # rows at the last compaction

    # ------------------------------------------------------------------ nodes

    def hub(self, key: str, create: bool = False) -> int:
        """The index of a hub key (``t:name``/``c:id``); -1 when unknown and not created."""
        index = self.hub_index.get(key)
        if index is None:
            if not create:
                return -1
            index = len(self.hub_keys)
            self.hub_keys.append(key)
            self.hub_index[key] = index
            if index >= len(self.hub_degree):
                grown = np.zeros(max(256, 2 * len(self.hub_degree)), dtype=np.int32)
                grown[: len(self.hub_degree)] = self.hub_degree
                self.hub_degree = grown
        return index

    def degree(self, key: str) -> int:
        """Live members of a hub (0 for an unknown one)."""
        index = self.hub_index.get(key)
        return 0 if index is None else int(self.hub_degree[index])

    def via_code(self, via: str) -> int:
        code = self.via_codes.get(via)
        if code is None:
            code = len(self.vias)
            self.vias.append(via)
            self.via_codes[via] = code
        return code

    # ------------------------------------------------------------------ edges

    def type_name(self, row: int) -> str:
        return TYPES[int(self.type[row])]

    def live_rows(self, index: _Index, node: int) -> np.ndarray:
        rows = index.of(node)
        return rows[self.live[rows]]

    def find(self, src: int, dst: int, code: int) -> int:
        """The live row of the edge (src, dst, type), or -1."""
        for row in self.live_rows(self.out, src).tolist():
            if self.dst[row] == dst and self.type[row] == code:
                return row
        return -1

    def add(self, src: int, dst: int, kind: str, weight: float, via: str) -> None:
        """Add an edge, or update the weight and via of the one of that type between the two
        (its place in the order stays, as a graph keyed by type would keep it)."""
        code = TYPE_CODE[kind]
        row = self.find(src, dst, code)
        if row < 0:
            row = self._append(src, dst, code)
            (self.members if code in HUB_CODES else self.into).add(dst, row)
            self.out.add(src, row)
            if code in HUB_CODES:
                self.hub_degree[dst] += 1
        self.weight[row] = weight
        self.via[row] = self.via_code(via)

    def replace_hub_edges(
        self, kind: str, src: np.ndarray, keys: Sequence[str], weights: np.ndarray
    ) -> None:
        """Replace every edge of a hub type (InCluster) by these, in one vectorised step:
        adding a million cluster memberships one ``add`` at a time took seconds under the
        mirror's lock, which recall waits for. ``src`` are memory slots, ``keys`` hub keys."""
        code = TYPE_CODE[kind]
        self.kill(np.flatnonzero(self.live[: self.count] & (self.type[: self.count] == code)))
        index = {key: self.hub(key, create=True) for key in dict.fromkeys(keys)}
        dst = np.fromiter((index[k] for k in keys), dtype=np.int32, count=len(keys))
        start, n = self.count, len(dst)
        if start + n > len(self.src):
            self._reserve(max(1024, start + n))
        end = start + n
        self.src[start:end] = src
        self.dst[start:end] = dst
        self.type[start:end] = code
        self.weight[start:end] = weights
        self.via[start:end] = 0
        self.live[start:end] = True
        self.count = end
        np.add.at(self.hub_degree, dst, 1)
        self.compact()  # drops the dead rows and indexes the new ones

    def _append(self, src: int, dst: int, code: int) -> int:
        row = self.count
        if row >= len(self.src):
            self._reserve(max(1024, 2 * len(self.src)))
        self.src[row], self.dst[row], self.type[row], self.live[row] = src, dst, code, True
        self.count += 1
        self.changed += 1
        return row

    def _reserve(self, capacity: int) -> None:
        for name in _COLUMNS:
            old = getattr(self, name)
            new = np.zeros(capacity, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def kill(self, rows: Iterable[int] | np.ndarray) -> list[int]:
        """Mark edge rows dead; returns the hubs that lost a member."""
        rows = np.asarray(list(rows) if not isinstance(rows, np.ndarray) else rows, dtype=np.int64)
        rows = rows[self.live[rows]]
        if not len(rows):
            return []
        self.live[rows] = False
        self.changed += len(rows)
        hub_rows = rows[IS_HUB[self.type[rows]]]
        hubs = self.dst[hub_rows]
        np.subtract.at(self.hub_degree, hubs, 1)
        return sorted(set(hubs.tolist()))

    def rows_of_memory(self, slot: int) -> np.ndarray:
        """Live rows of every edge from or to a memory."""
        return np.concatenate((self.live_rows(self.out, slot), self.live_rows(self.into, slot)))

    def maybe_compact(self) -> None:
        if self.changed > max(COMPACT_MIN, self.compacted // 4):
            self.compact()

    def compact(self) -> None:
        """Drop dead rows and hubs without members; rebuild the three indexes."""
        keep = np.flatnonzero(self.live[: self.count])
        for name in _COLUMNS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[keep]))
        self.count = len(keep)
        # Hubs without members are gone from the graph: renumber the rest.
        used = np.flatnonzero(self.hub_degree[: len(self.hub_keys)] > 0)
        renumber = np.full(len(self.hub_keys) + 1, -1, dtype=np.int32)
        renumber[used] = np.arange(len(used), dtype=np.int32)
        is_hub = IS_HUB[self.type]
        self.dst[is_hub] = renumber[self.dst[is_hub]]
        self.hub_keys = [self.hub_keys[i] for i in used.tolist()]
        self.hub_index = {k: i for i, k in enumerate(self.hub_keys)}
        self.hub_degree = np.ascontiguousarray(self.hub_degree[used])
        self._build_indexes()

    def _build_indexes(self) -> None:
        n = self.count
        rows = np.arange(n, dtype=np.int32)
        src, dst = self.src[:n], self.dst[:n]
        is_hub = IS_HUB[self.type[:n]]
        slots = int(max(src.max(initial=-1), dst[~is_hub].max(initial=-1))) + 1
        self.out.build(src, rows, slots)
        self.into.build(dst[~is_hub], rows[~is_hub], slots)
        self.members.build(dst[is_hub], rows[is_hub], len(self.hub_keys))
        self.changed = 0
        self.compacted = n

    def bulk(
        self,
        src: Sequence[int],
        dst_keys: Sequence[str],
        kinds: Sequence[str],
        weights: Sequence[float | None],
        vias: Sequence[str | None],
        slot_of: Any,
    ) -> None:
        """Load many edges into an empty adjacency at once (a build from the database).

        ``slot_of`` maps a memory id to its slot. An edge given twice keeps its first place
        and its last weight and via, as ``add`` would.
        """
        codes = np.fromiter((TYPE_CODE[k] for k in kinds), dtype=np.int8, count=len(kinds))
        dst = np.empty(len(kinds), dtype=np.int32)
        for i, (name, code) in enumerate(zip(dst_keys, codes.tolist(), strict=True)):
            prefix = HUB_PREFIX.get(TYPES[code])
            dst[i] = slot_of(name) if prefix is None else self.hub(prefix + name, create=True)
        src_arr = np.asarray(src, dtype=np.int64)
        key = (src_arr << 36) | (dst.astype(np.int64) << 4) | codes.astype(np.int64)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        last = np.zeros(len(first), dtype=np.int64)
        last[inverse] = np.arange(len(key))  # the last write of each edge wins
        groups = np.argsort(first)
        order, pick = first[groups], last[groups]
        n = len(order)
        self._reserve(max(1024, n))
        self.src[:n] = src_arr[order]
        self.dst[:n] = dst[order]
        self.type[:n] = codes[order]
        self.weight[:n] = [1.0 if weights[i] is None else float(weights[i]) for i in pick.tolist()]
        self.via[:n] = [self.via_code(vias[i] or "") for i in pick.tolist()]
        self.live[:n] = True
        self.count = n
        hub_rows = IS_HUB[self.type[:n]]
        self.hub_degree[: len(self.hub_keys)] = np.bincount(
            self.dst[:n][hub_rows], minlength=len(self.hub_keys)
        )[: len(self.hub_keys)]
        self._build_indexes()

    # ------------------------------------------------------------------ snapshot

    def arrays(self) -> dict[str, np.ndarray]:
        """The compacted adjacency as arrays (for the snapshot)."""
        self.compact()
        out = {f"edge_{name}": getattr(self, name)[: self.count] for name in _COLUMNS}
        out["edge_vias"] = np.array(self.vias, dtype=str)
        out["hub_keys"] = np.array(self.hub_keys, dtype=str)
        out["hub_degree"] = self.hub_degree
        for name in ("out", "into", "members"):
            index: _Index = getattr(self, name)
            out[f"{name}_indptr"], out[f"{name}_rows"] = index.indptr, index.rows
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Adjacency:
        adj = cls()
        for name in _COLUMNS:
            setattr(adj, name, np.asarray(arrays[f"edge_{name}"], dtype=_DTYPES[name]))
        adj.count = len(adj.src)
        adj.vias = arrays["edge_vias"].tolist()
        adj.via_codes = {v: i for i, v in enumerate(adj.vias)}
        adj.hub_keys = arrays["hub_keys"].tolist()
        adj.hub_index = {k: i for i, k in enumerate(adj.hub_keys)}
        adj.hub_degree = np.array(arrays["hub_degree"], dtype=np.int32)
        for name in ("out", "into", "members"):
            index: _Index = getattr(adj, name)
            index.indptr = arrays[f"{name}_indptr"]
            index.rows = arrays[f"{name}_rows"]
        adj.compacted = adj.count
        return adj

"""The in-process mirror of the graph that search and recall read.

The database is the one source of truth. The mirror holds what the hot path needs (vectors,
lifecycle columns, each memory's row, a BM25 index and the adjacency as numpy columns, see
``adjacency.py``), is built from the database when a store opens (or loaded from a snapshot
taken at the database's current commit, see ``snapshot.py``) and is refreshed from it after
every committed write, so it always agrees with what is stored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from threadpoolctl import ThreadpoolController

from ..keys import HUB_PREFIX, MEMORY, TAG, mnode, tnode
from ..storage.records import RECORD_COLUMNS, ContentView, HashIndex, Records, conform
from ..text.entities import EntityIndex, indexed
from ..text.lexical import LexicalIndex
from ..timeutil import epoch
from . import ann as ann_mod
from .adjacency import HUB_CODES, IS_HUB, TYPE_CODE, TYPES, Adjacency

if TYPE_CHECKING:
    from ..storage.store import Store


_TYPES = TYPES
_HUB_CODES = HUB_CODES

__all__ = ["RECORD_COLUMNS", "Filters", "Mirror", "best"]


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    # Finding the BLAS libraries takes ~2 ms: do it once.
    return ThreadpoolController()


# The marks ``maintain`` leaves in a memory's reinforcements (JSON crumbs, keys sorted) when it
# expires it or makes it dormant, and ``restore`` when it brings one back.
RETIRED_CRUMBS = ('"dormant": true', '"expired": true')
RESTORED_CRUMB = '"restored": true'


def last_mark(crumbs: Sequence[str] | None) -> str | None:
    """The last retire or restore mark among a memory's crumbs (None: none)."""
    for crumb in reversed(crumbs or ()):
        for mark in (*RETIRED_CRUMBS, RESTORED_CRUMB):
            if mark in crumb:
                return mark
    return None


@dataclass
class Filters:
    """Which memories a search or recall may return (applied before ranking)."""

    kinds: Sequence[str] | None = None
    tags: Sequence[str] | None = None
    scope: str | None = None
    project: str | None = None
    session_id: str | None = None
    include_inactive: bool = False
    at: float | None = None  # epoch seconds: answer as of this time
    # Epoch seconds of "now" for a question about the present: a memory whose validity window
    # does not hold it (past ``valid_until``, or ``valid_from`` still ahead) is not current
    # and is left out, whether or not ``maintain`` has run. None: no validity check.
    now: float | None = None


class Mirror:
    """Vectors, columns, BM25 and adjacency of every memory, addressed by slot."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.slot: dict[str, int] = {}
        self.vectors = np.zeros((0, dim), dtype=np.float32)
        self.alive = np.zeros(0, dtype=bool)
        self.active = np.zeros(0, dtype=bool)
        self.pinned = np.zeros(0, dtype=bool)
        self.superseded = np.zeros(0, dtype=bool)
        self.kind = np.zeros(0, dtype=object)
        self.scope = np.zeros(0, dtype=object)
        self.project = np.zeros(0, dtype=object)
        self.session = np.zeros(0, dtype=object)
        self.source = np.zeros(0, dtype=object)
        self.created = np.zeros(0, dtype=np.float64)
        self.valid_from = np.zeros(0, dtype=np.float64)
        self.valid_until = np.zeros(0, dtype=np.float64)
        self.last_accessed = np.zeros(0, dtype=np.float64)
        self.access_count = np.zeros(0, dtype=np.int64)
        self.confidence = np.zeros(0, dtype=np.float64)
        self.trust = np.zeros(0, dtype=np.float64)
        self._session_last: dict[str, tuple[float, str]] = {}
        self.superseded_by: dict[int, str] = {}
        self.triggers: dict[int, list[str]] = {}
        # Each row as stored, so results need no database round trip; content read from it.
        self.records = Records()
        self.content = ContentView(self.records)
        self.by_hash = HashIndex(self)
        self.lexical = LexicalIndex()
        self.entities = EntityIndex(self.frequency)
        self.adj = Adjacency()
        # Memory objects built for callers, dropped whenever their row or edges change.
        self.memory_cache: dict[str, Any] = {}
        # Member slots of each tag or cluster node, built on first use by recall.
        self._members: dict[str, np.ndarray] = {}
        self._homes: dict[str, tuple[str, ...]] = {}
        # Each memory node's edges as recall walks them, built on first use; dropped when the
        # graph changes (a new member changes every member's hub factor).
        self._neighbours: dict[str, list[tuple[str, str, float, int]]] = {}
        self.size = 0  # slots in use (alive or dead)
        # Counts full reloads: what was derived from the database before one is stale.
        self.generation = 0
        # Approximate nearest neighbours, built once the store reaches ann.ANN_MIN memories.
        self.ann: ann_mod.AnnIndex | None = None

    # ------------------------------------------------------------------ loading

    def load(self, store: Store) -> None:
        """Build the mirror from the whole database."""
        generation = self.generation + 1
        self.adopt(Mirror(self.dim))  # start over from an empty mirror
        self.generation = generation
        self._upsert_rows(store.all_memories_arrow(), bulk=True)
        self.lexical.compact()
        edges = store.all_edges()
        self.adj.bulk(
            [self._slot_for(e["src"]) for e in edges], [e["dst"] for e in edges],
            [e["type"] for e in edges], [e["weight"] for e in edges],
            [e["via"] for e in edges], self._slot_for,
        )  # fmt: skip
        self.entities.update(n for n, k in store.tag_kinds().items() if indexed(n, k))

    def adopt(self, other: Mirror) -> None:
        """Take over another mirror's state (its parts then answer for this one)."""
        self.__dict__.update(other.__dict__)
        self.by_hash._mirror = self
        self.entities.frequency = self.frequency

    def refresh(self, store: Store, ids: Iterable[str]) -> None:
        """Re-read the given memories and every edge touching them from the database."""
        ids = sorted(set(ids))
        if not ids:
            return
        for memory_id in ids:
            self.memory_cache.pop(memory_id, None)
        table = store.all_memories_arrow(ids)
        present = set(table.column("id").to_pylist())
        for memory_id in ids:
            if memory_id not in present:
                self._remove(memory_id)
        self._upsert_rows(table)
        touched: set[str] = set()
        self._neighbours.clear()
        adj = self.adj
        for memory_id in ids:
            slot = self.slot.get(memory_id)
            if slot is None:
                continue
            rows = adj.rows_of_memory(slot)
            # a memory's neighbours show its tags: their cached objects are stale too
            for row in rows.tolist():
                if adj.type[row] not in _HUB_CODES:
                    other = adj.dst[row] if adj.src[row] == slot else adj.src[row]
                    self.memory_cache.pop(self.ids[other], None)
            touched.update(adj.hub_keys[h] for h in adj.kill(rows))
        for e in store.edges_of(ids):
            self._add_edge(
                {
                    "type": e["type"],
                    "src": e["src"],
                    "dst": e["dst"],
                    "weight": e.get("weight", e.get("probability", 1.0)) or 1.0,
                    "via": e.get("source") or "",
                }
            )
        for node in touched:
            self._members.pop(node, None)
            self._homes.pop(node, None)
        adj.maybe_compact()

    def add_written(
        self, table: Any, edges: Iterable[dict[str, Any]], touched: Iterable[str]
    ) -> None:
        """Take in new memories and edges a write just committed, without reading them back.

        ``table`` holds the new rows as the store wrote them (``Store.memory_table``); edges
        are dicts of type, src, dst, weight and via; ``touched`` memories have stale cached
        objects (they gained tags or links).
        """
        for memory_id in touched:
            self.memory_cache.pop(memory_id, None)
        if table is not None:
            self._upsert_rows(table)
        for e in edges:
            self._add_edge(e)
        self.adj.maybe_compact()

    def refresh_rows(self, store: Store, ids: Iterable[str]) -> None:
        """Re-read the given memories' columns (not their edges) from the database."""
        ids = sorted(i for i in set(ids) if i in self)
        if ids:
            for memory_id in ids:
                self.memory_cache.pop(memory_id, None)
            self._upsert_rows(store.all_memories_arrow(ids))

    def set_link(self, link: dict[str, Any]) -> None:
        """Record a RelatesTo edge as the database now has it (src, dst, weight, via)."""
        if link["src"] in self and link["dst"] in self:
            self.adj.add(self.slot[link["src"]], self.slot[link["dst"]], "RelatesTo",
                         float(link["weight"]), link.get("via") or "")  # fmt: skip
            self._neighbours.pop(mnode(link["src"]), None)
            self._neighbours.pop(mnode(link["dst"]), None)

    def set_clusters(self, members: Iterable[dict[str, Any]]) -> None:
        """Replace every InCluster edge (src memory, dst cluster id, probability)."""
        for node in [k for k in self._members if k[0] == "c"]:
            self._members.pop(node, None)
        for node in [k for k in self._homes if k[0] == "c"]:
            self._homes.pop(node, None)
        self._neighbours.clear()
        # Each pair once (its last probability, as ``add`` keeps it), and only memories still
        # here: a rebuild computed without the lock may name one purged since.
        last = {(m["src"], m["dst"]): m for m in members if m["src"] in self}
        prefix = HUB_PREFIX["InCluster"]
        self.adj.replace_hub_edges(
            "InCluster",
            np.fromiter((self.slot[i] for i, _ in last), dtype=np.int32, count=len(last)),
            [prefix + m["dst"] for m in last.values()],
            np.array(
                [1.0 if m.get("probability") is None else float(m["probability"])
                 for m in last.values()],
                dtype=np.float64,
            ),
        )  # fmt: skip

    def _grow(self, needed: int) -> None:
        cap = len(self.alive)
        if needed <= cap:
            return
        # A quarter more, not double: a store loaded from its snapshot has no room to spare,
        # and doubling 100k vectors on the first write would add 150 MB.
        new = max(needed, cap + cap // 4, 256)

        def grow(arr: np.ndarray, fill: Any) -> np.ndarray:
            shape = (new, *arr.shape[1:])
            out = np.full(shape, fill, dtype=arr.dtype)
            out[: len(arr)] = arr
            return out

        self.vectors = grow(self.vectors, 0.0)
        self.alive = grow(self.alive, False)
        self.active = grow(self.active, False)
        self.pinned = grow(self.pinned, False)
        self.superseded = grow(self.superseded, False)
        for name in ("kind", "scope", "project", "session", "source"):
            setattr(self, name, grow(getattr(self, name), None))
        for name in ("created", "valid_from", "valid_until", "last_accessed"):
            setattr(self, name, grow(getattr(self, name), np.nan))
        self.access_count = grow(self.access_count, 0)
        self.confidence = grow(self.confidence, 0.0)
        self.trust = grow(self.trust, 0.0)
        self.records.grow(new)

    def _slot_for(self, memory_id: str) -> int:
        """The slot of a memory id, given a new (not yet alive) one when unknown."""
        slot = self.slot.get(memory_id)
        if slot is None:
            slot = self.size
            self.size += 1
            self._grow(self.size)
            self.ids.append(memory_id)
            self.slot[memory_id] = slot
        return slot

    def _upsert_rows(self, table: Any, bulk: bool = False) -> None:
        """Take in rows as stored; ``bulk``: the whole table into an empty mirror (its rows
        are kept as one Arrow table, not a dict each)."""
        n = table.num_rows
        if n == 0:
            return
        col = {name: table.column(name) for name in table.column_names}
        ids = col["id"].to_pylist()
        emb = col["embedding"].combine_chunks()
        vectors = np.asarray(emb.values.to_numpy(zero_copy_only=False), dtype=np.float32)
        vectors = vectors.reshape(n, self.dim)
        lists = {name: col[name].to_pylist() for name in col if name not in ("embedding",)}
        if bulk:
            self._grow(self.size + n)  # once, not a quarter at a time
        slots = []
        first_new = self.size
        moved: list[int] = []  # rows whose vector is new or changed
        replaced: list[int] = []  # those of them that were in the index before
        for i, memory_id in enumerate(ids):
            slot = self._slot_for(memory_id)
            slots.append(slot)
            self.alive[slot] = True
            if slot >= first_new or not np.array_equal(self.vectors[slot], vectors[i]):
                moved.append(i)
            if slot < first_new and moved and moved[-1] == i:
                replaced.append(i)
            self.vectors[slot] = vectors[i]
            self.active[slot] = bool(lists["active"][i])
            self.pinned[slot] = bool(lists["pinned"][i])
            self.kind[slot] = lists["kind"][i]
            self.scope[slot] = lists["scope"][i]
            self.project[slot] = lists["project"][i]
            self.session[slot] = lists["session_id"][i]
            self.source[slot] = lists["source"][i]
            self.created[slot] = epoch(lists["created_at"][i])
            self.valid_from[slot] = epoch(lists["valid_from"][i])
            self.valid_until[slot] = epoch(lists["valid_until"][i])
            self.last_accessed[slot] = epoch(lists["last_accessed"][i])
            self.access_count[slot] = lists["access_count"][i] or 0
            self.confidence[slot] = lists["confidence"][i] or 0.0
            self.trust[slot] = lists["trust"][i] or 0.0
            session = lists["session_id"][i]
            if session:
                last = self._session_last.get(session)
                if last is None or (self.created[slot], memory_id) >= last:
                    self._session_last[session] = (self.created[slot], memory_id)
            if lists["superseded_by"][i]:
                self.superseded_by[slot] = lists["superseded_by"][i]
            else:
                self.superseded_by.pop(slot, None)
            self.superseded[slot] = bool(lists["superseded_by"][i])
            if lists["triggers"][i]:
                # lower-cased: triggers match case-insensitively
                self.triggers[slot] = [t.lower() for t in lists["triggers"][i]]
            else:
                self.triggers.pop(slot, None)
            content = lists["content"][i] or ""
            if self.records.content(slot) != content:
                self.lexical.add(slot, content)
            if not bulk:
                self.records[slot] = {name: lists[name][i] for name in RECORD_COLUMNS}
            if not bulk and lists["content_hash"][i]:
                self.by_hash.add(lists["content_hash"][i], slot)
        if bulk:
            self.records.set_base(conform(table), np.asarray(slots), len(self.alive))
            self.by_hash.build(lists["content_hash"], np.asarray(slots))
        if self.ann is not None and moved:
            # Only new vectors, and stored ones that changed: removing from an IVF index scans
            # every list, a cost that grows with the store.
            self.ann.upsert(np.asarray(slots)[moved], vectors[moved], np.asarray(slots)[replaced])

    def _remove(self, memory_id: str) -> None:
        slot = self.slot.get(memory_id)
        if slot is None or not self.alive[slot]:
            return
        self.alive[slot] = False
        self.active[slot] = False
        self.superseded[slot] = False
        self.lexical.remove(slot)
        self.records.pop(slot, None)
        self.triggers.pop(slot, None)
        self.superseded_by.pop(slot, None)
        self.memory_cache.pop(memory_id, None)
        self._neighbours.clear()
        for hub in self.adj.kill(self.adj.rows_of_memory(slot)):
            self._members.pop(self.adj.hub_keys[hub], None)
            self._homes.pop(self.adj.hub_keys[hub], None)

    def _add_edge(self, e: dict[str, Any]) -> None:
        if self._neighbours:
            self._neighbours.clear()
        kind = e["type"]
        src = self._slot_for(e["src"])
        prefix = HUB_PREFIX.get(kind)
        if prefix is not None:
            key = prefix + e["dst"]
            dst = self.adj.hub(key, create=True)
            self._members.pop(key, None)
            self._homes.pop(key, None)
        else:
            dst = self._slot_for(e["dst"])
        weight = e.get("weight")
        self.adj.add(src, dst, kind, 1.0 if weight is None else float(weight), e.get("via") or "")

    # ------------------------------------------------------------------ queries

    def __contains__(self, memory_id: str) -> bool:
        slot = self.slot.get(memory_id)
        return slot is not None and bool(self.alive[slot])

    def mask(self, f: Filters) -> np.ndarray:
        """Boolean mask over slots for the filters."""
        n = self.size
        m = self.alive[:n].copy()
        if f.at is not None:
            # As of a past time: what was valid then, superseded, expired or made dormant
            # since. A memory is valid from valid_from (its creation when not given) until
            # valid_until (set explicitly, or when a successor superseded it). Forgotten
            # memories stay hidden: forgetting is the user's word, dormancy maintain's.
            m &= self.valid_at(f.at)
            m &= self.active[:n] | self.superseded[:n] | self.retired_mask(m)
        elif not f.include_inactive:
            m &= self.active[:n]
            if f.now is not None:
                m &= self.valid_at(f.now, created=False)
        if f.kinds:
            m &= np.isin(self.kind[:n], list(f.kinds))
        if f.scope is not None:
            m &= self.scope[:n] == f.scope
        if f.project is not None:
            m &= self.project[:n] == f.project
        if f.session_id is not None:
            m &= self.session[:n] == f.session_id
        if f.tags:
            allowed = np.zeros(n, dtype=bool)
            for tag in f.tags:
                allowed[self.members(tnode(tag))] = True
            m &= allowed
        return m

    def valid_at(self, t: float, *, created: bool = True) -> np.ndarray:
        """Slots whose validity window holds the time ``t``: from ``valid_from`` (or, with
        ``created``, from the memory's creation when it has none) until ``valid_until``."""
        n = self.size
        vf, vu = self.valid_from[:n], self.valid_until[:n]
        start = np.where(np.isnan(vf), self.created[:n], vf) if created else vf
        return ~(start > t) & ~(vu <= t)  # NaN compares false: no bound

    def retired_mask(self, among: np.ndarray) -> np.ndarray:
        """Of the ``among`` slots, the inactive ones ``maintain`` expired or made dormant (its
        crumb in their reinforcements): unlike forgotten ones, they were true, and still are
        as of a time in their window. Only inactive, unsuperseded slots are read."""
        n = self.size
        out = np.zeros(n, dtype=bool)
        look = np.flatnonzero(among[:n] & ~self.active[:n] & ~self.superseded[:n])
        for slot in look.tolist():
            out[slot] = last_mark(self.records.value(slot, "reinforcements")) in RETIRED_CRUMBS
        return out

    def frequency(self, word: str) -> tuple[int, int]:
        """How many memories hold the word, and how many there are (for entity matching)."""
        return self.lexical.document_frequency(word), len(self.lexical)

    def similarities(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of the query to every slot (rows are unit vectors)."""
        # One BLAS thread: a matrix-vector product this size gains nothing from more, and on
        # a small machine a thread pool fights the embedder for the cores (12 ms vs 1.4 ms).
        with _blas().limit(limits=1, user_api="blas"):
            return self.vectors[: self.size] @ query.astype(np.float32)

    def homes(self, tag_node: str) -> tuple[str, ...]:
        """The memories titled with this tag's entity (several passages may share a title)."""
        found = self._homes.get(tag_node)
        if found is None:
            adj = self.adj
            hub, title = adj.hub(tag_node), adj.via_codes.get("title")
            found = ()
            if hub >= 0 and title is not None:
                rows = adj.live_rows(adj.members, hub)
                rows = rows[adj.via[rows] == title]
                found = tuple(MEMORY + self.ids[s] for s in adj.src[rows].tolist())
            self._homes[tag_node] = found
        return found

    def others(self, node: str) -> int:
        """How many memories a tag or cluster holds besides the one a walk came from (>= 1)."""
        return max(1, self.adj.degree(node) - 1)

    def member_count(self, node: str) -> int:
        """How many memories a tag or cluster holds."""
        return self.adj.degree(node)

    def has_node(self, node: str) -> bool:
        """Whether the graph holds the node (``m:``, ``t:`` or ``c:`` key): a live memory, or
        a tag or cluster with at least one member."""
        if node[:2] == MEMORY:
            return node[2:] in self
        return self.adj.degree(node) > 0

    def _sides(self, node: str) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
        """A memory's live edges as (other end's key, its slot or -1, edge row), outgoing
        then incoming, each side grouped by the other end in the order it first appeared
        (the order a graph keyed by node would give)."""
        slot = self.slot.get(node[2:]) if node[:2] == MEMORY else None
        if slot is None:
            return [], []
        adj, ids = self.adj, self.ids
        sides = []
        for index, far in ((adj.out, adj.dst), (adj.into, adj.src)):
            groups: dict[str, list[tuple[str, int, int]]] = {}
            for row in adj.live_rows(index, slot).tolist():
                code, other = int(adj.type[row]), int(far[row])
                if code in _HUB_CODES:
                    key, other = adj.hub_keys[other], -1
                else:
                    key = MEMORY + ids[other]
                groups.setdefault(key, []).append((key, other, row))
            sides.append([e for group in groups.values() for e in group])
        return sides[0], sides[1]

    def neighbours(self, node: str) -> list[tuple[str, str, float, int]]:
        """A memory node's edges both ways: (neighbour, edge type, raw weight, slot or -1).

        The raw weight is a RelatesTo link's weight, 1 / sqrt(other members) for a tag or
        cluster (tags and clusters with no other member are left out), and 1 otherwise.
        """
        found = self._neighbours.get(node)
        if found is None:
            adj = self.adj
            found = []
            for side in self._sides(node):
                for key, other, row in side:
                    edge = _TYPES[int(adj.type[row])]
                    if edge in ("HasTag", "InCluster"):
                        if adj.degree(key) < 2:
                            continue
                        raw = 1.0 / math.sqrt(self.others(key))
                    elif edge == "RelatesTo":
                        raw = float(adj.weight[row])
                    else:
                        raw = 1.0
                    found.append((key, edge, raw, other))
            self._neighbours[node] = found
        return found

    def adjacent(self, node: str) -> list[str]:
        """Keys of a node's neighbours: a memory's successors then predecessors (each once
        per side), a tag's or cluster's members."""
        if node[:2] == MEMORY:
            out, into = self._sides(node)
            return [*dict.fromkeys(k for k, _, _ in out), *dict.fromkeys(k for k, _, _ in into)]
        return [MEMORY + self.ids[s] for s in self.members(node).tolist()]

    def successors(self, node: str) -> list[str]:
        """Keys of the nodes a memory's edges point to, each once, in order."""
        return list(dict.fromkeys(k for k, _, _ in self._sides(node)[0]))

    def linked(self, node: str, edge: str) -> list[int]:
        """Slots of the memories joined to a memory by ``edge`` either way (outgoing first)."""
        code = TYPE_CODE[edge]
        out, into = self._sides(node)
        return [
            other
            for side in (out, into)
            for _, other, rows in _grouped(side)
            if code in {int(self.adj.type[r]) for r in rows}
        ]

    def has_edge(self, memory_id: str, node: str) -> bool:
        """Whether a memory has an edge to the node (any type)."""
        adj, slot = self.adj, self.slot.get(memory_id)
        to_hub = node[:2] != MEMORY
        target = adj.hub(node) if to_hub else self.slot.get(node[2:], -1)
        if slot is None or target < 0:
            return False
        rows = adj.live_rows(adj.out, slot)
        hits = (adj.dst[rows] == target) & (IS_HUB[adj.type[rows]] == to_hub)
        return bool(hits.any())

    def out_edges(self, memory_id: str) -> list[tuple[str, str, float, str]]:
        """A memory's outgoing edges: (target key, edge type, weight, via)."""
        adj = self.adj
        return [
            (key, _TYPES[int(adj.type[row])], float(adj.weight[row]), adj.vias[adj.via[row]])
            for key, _, row in self._sides(mnode(memory_id))[0]
        ]

    def edges(self, edge: str | None = None) -> list[tuple[str, str, str, float, str]]:
        """Every live edge (of one type): (source key, target key, type, weight, via)."""
        adj = self.adj
        rows = np.flatnonzero(adj.live[: adj.count])
        if edge is not None:
            rows = rows[adj.type[rows] == TYPE_CODE[edge]]
        out = []
        for row in rows.tolist():
            kind = _TYPES[int(adj.type[row])]
            dst = int(adj.dst[row])
            target = adj.hub_keys[dst] if kind in HUB_PREFIX else MEMORY + self.ids[dst]
            out.append((MEMORY + self.ids[int(adj.src[row])], target, kind,
                        float(adj.weight[row]), adj.vias[adj.via[row]]))  # fmt: skip
        return out

    def hubs(self, prefix: str) -> dict[str, np.ndarray]:
        """Every tag (``"t:"``) or cluster (``"c:"``) with members: its name -> member slots."""
        adj = self.adj
        return {
            key[2:]: self.members(key)
            for key, degree in zip(adj.hub_keys, adj.hub_degree.tolist(), strict=False)
            if degree > 0 and key.startswith(prefix)
        }

    def members(self, node: str) -> np.ndarray:
        """Slots of the memories attached to a tag or cluster node."""
        slots = self._members.get(node)
        if slots is None:
            adj = self.adj
            hub = adj.hub(node)
            rows = adj.live_rows(adj.members, hub) if hub >= 0 else adj.src[:0]
            slots = adj.src[rows].astype(np.int64)
            self._members[node] = slots
        return slots

    def top_k(self, query: np.ndarray, mask: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k most similar slots under the mask, best first."""
        if k <= 0 or not mask.any():
            return []
        return self.top_k_many(query.reshape(1, -1), [mask], k)[0]

    def top_k_many(
        self, queries: np.ndarray, masks: Sequence[np.ndarray], k: int
    ) -> list[list[tuple[int, float]]]:
        """``top_k`` for many queries at once: queries that share a mask (the same array) are
        answered together, by the approximate index in a big store, else by one matrix
        product per block of queries."""
        n = self.size
        out: list[list[tuple[int, float]]] = [[] for _ in range(len(queries))]
        if n == 0 or k <= 0:
            return out
        queries = np.asarray(queries, dtype=np.float32)
        groups: dict[int, list[int]] = {}
        for i, mask in enumerate(masks):
            groups.setdefault(id(mask), []).append(i)
        for rows in groups.values():
            mask = masks[rows[0]]
            allowed = int(mask.sum())
            if allowed == 0:
                continue
            exact = rows
            index = self.ann_for(allowed)
            if index is not None:
                scores, slots = index.search(queries[rows], mask, k)
                exact = []
                want = min(k, allowed)
                for j, row in enumerate(rows):
                    found = [(int(s), float(v)) for s, v in zip(slots[j], scores[j], strict=True)
                             if s >= 0]  # fmt: skip
                    if len(found) < want:
                        exact.append(row)
                    else:
                        out[row] = found
            for row, found in zip(exact, self._exact_many(queries[exact], mask, k), strict=True):
                out[row] = found
        return out

    def _exact_many(
        self, queries: np.ndarray, mask: np.ndarray, k: int
    ) -> list[list[tuple[int, float]]]:
        """Exact top k under one mask, for many queries (blocks bound the score matrix)."""
        out: list[list[tuple[int, float]]] = []
        allowed = np.flatnonzero(mask)
        k = min(k, len(allowed))
        if k == 0 or len(queries) == 0:
            return [[] for _ in range(len(queries))]
        # A mask that allows few memories: score only those.
        dense = len(allowed) > self.size // 4
        vectors = self.vectors[: self.size] if dense else self.vectors[allowed]
        for start in range(0, len(queries), 64):
            block = queries[start : start + 64]
            # One row per query: the partition runs along contiguous memory.
            with _blas().limit(limits=1, user_api="blas"):
                scores = block @ vectors.T
            if dense:
                scores[:, ~mask] = -np.inf
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            for j in range(len(block)):
                idx = top[j]
                idx = idx[np.argsort(-scores[j, idx], kind="stable")]
                slots = idx if dense else allowed[idx]
                out.append([(int(s), float(v)) for s, v in zip(slots, scores[j, idx], strict=True)])
        return out

    def ann_for(self, allowed: int) -> ann_mod.AnnIndex | None:
        """The approximate index, for a store big enough and a filter broad enough to gain."""
        n = self.size
        if n < ann_mod.ANN_MIN or allowed < n // 8:
            return None
        if self.ann is None or self.ann.needs_retrain(n):
            slots = np.flatnonzero(self.alive[:n])
            index = ann_mod.AnnIndex(self.dim)
            index.build(self.vectors[slots], slots)
            self.ann = index
        return self.ann

    def hash_of(self, slot: int) -> str | None:
        return self.records.value(slot, "content_hash")

    def last_in_session(self, session_id: str) -> str | None:
        """The most recently created memory of a session that is still stored."""
        last = self._session_last.get(session_id)
        if last is None:
            return None
        if last[1] in self:
            return last[1]
        slots = [
            s for s in np.flatnonzero(self.alive[: self.size]) if self.session[s] == session_id
        ]
        if not slots:
            del self._session_last[session_id]
            return None
        best_slot = max(slots, key=lambda s: (self.created[s], self.ids[s]))
        self._session_last[session_id] = (self.created[best_slot], self.ids[best_slot])
        return self.ids[best_slot]

    def tags_of(self, memory_id: str) -> list[str]:
        return [k[2:] for k in self.successors(mnode(memory_id)) if k[:2] == TAG]


def _grouped(side: list[tuple[str, int, int]]) -> list[tuple[str, int, list[int]]]:
    """A side's edges per other end: (key, slot or -1, rows), in order."""
    groups: dict[str, tuple[str, int, list[int]]] = {}
    for key, other, row in side:
        groups.setdefault(key, (key, other, []))[2].append(row)
    return list(groups.values())


def best(scores: np.ndarray, mask: np.ndarray, k: int) -> list[tuple[int, float]]:
    masked = np.where(mask, scores, -np.inf)
    k = min(k, int(mask.sum()))
    if k <= 0:
        return []
    idx = np.argpartition(-masked, k - 1)[:k]
    idx = idx[np.argsort(-masked[idx], kind="stable")]
    return [(int(i), float(masked[i])) for i in idx]

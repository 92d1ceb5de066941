"""A ``Batch``: the changes of one transaction, however they were planned, and the two ways
it is written: to Kùzu (``apply``, in one transaction) and to the mirror (``mirror_written``).

The owner's writer (``graphmem.owner.writer``) and the journal's applier both end here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..edges import EDGE_TABLES
from ..keys import cnode, tnode
from ..models import Memory, memory_from_row
from . import idempotency

if TYPE_CHECKING:
    from ..index.mirror import Mirror
    from ..storage.store import Store


@dataclass
class Outcome:
    """What planning one item decided."""

    id: str
    action: str
    superseded: list[str] = field(default_factory=list)
    contradicts: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    reason: str | None = None


@dataclass
class Batch:
    """The changes of one transaction."""

    new_rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    # Tags the store already holds (they have memories in the mirror): no MERGE needed.
    known_tags: set[str] = field(default_factory=set)
    vectors: list[np.ndarray] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=list)
    clusters: set[str] = field(default_factory=set)
    # Edges to delete before writing: (table, src, dst, edge source or None for any).
    removed: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    # Memories to delete for good, with their edges.
    purged: list[str] = field(default_factory=list)
    # Set by apply(): how many edges ``removed`` deleted.
    removed_count: int = 0
    # Members of each tag (cluster) the batch touches once it is written, counted against the
    # mirror as planned (``plan_counts``); None: counted in the database when applied.
    tag_counts: dict[str, int] | None = None
    cluster_sizes: dict[str, int] | None = None
    # The client request this batch answers (``idempotency.RequestLog.attach``): stored in the
    # same transaction, so a retry of the request finds it.
    request: dict[str, Any] | None = None

    def add_edge(self, table: str, **row: Any) -> None:
        self.edges.setdefault(table, []).append(row)

    def affected(self) -> set[str]:
        ids = set(self.new_rows) | set(self.updates) | set(self.purged)
        for table, src, dst, _ in self.removed:
            ids.add(src)
            if table not in ("HasTag", "InCluster"):
                ids.add(dst)
        for rows in self.edges.values():
            for r in rows:
                ids.add(r["src"])
                if "dst" in r and r.get("_memory_dst", True):
                    ids.add(r["dst"])
        return ids


def _counts(
    mirror: Mirror, batch: Batch, table: str, node: Callable[[str], str]
) -> dict[str, int] | None:
    """Members each tag (or cluster) the batch adds to or removes from will have: the mirror's
    members (as planned), less the removed, plus the added. Counting them in the database read
    every member of a hub tag in every batch, a cost that grew with the store; and inside a
    transaction that deleted edges and created them again, Kùzu 0.11.3 reads them back wrong.

    None when the batch removes only the edges of one source (the memory may keep another).
    """
    added: dict[str, set[str]] = {}
    removed: dict[str, set[str]] = {}
    for e in batch.edges.get(table, []):
        added.setdefault(e["dst"], set()).add(e["src"])
    for kind, src, dst, source in batch.removed:
        if kind == table:
            if source is not None:
                return None
            removed.setdefault(dst, set()).add(src)
    out = {}
    for name in added.keys() | removed.keys():
        key = node(name)
        gone = {m for m in removed.get(name, ()) if mirror.has_edge(m, key)}
        new = [m for m in added.get(name, ()) if m in gone or not mirror.has_edge(m, key)]
        out[name] = mirror.member_count(key) - len(gone) + len(new)
    return out


def plan_counts(mirror: Mirror, batch: Batch) -> None:
    """Set the batch's tag counts and cluster sizes from the mirror as it was planned against
    (before it takes the batch): a batch applied later, or replayed, carries them along."""
    if batch.purged or batch.tag_counts is not None:
        return
    counts = _counts(mirror, batch, "HasTag", tnode)
    sizes = _counts(mirror, batch, "InCluster", cnode)
    if counts is None or sizes is None:
        return
    # Tags the batch names without an edge (an update's kept user tags that its text also
    # infers) keep their members: the mirror's count, not one read from the store.
    counts.update({n: mirror.member_count(tnode(n)) for n in batch.tags if n not in counts})
    batch.tag_counts, batch.cluster_sizes = counts, sizes


def apply(store: Store, batch: Batch, mirror: Mirror | None = None) -> set[str]:
    """Write a batch in one transaction; returns the ids of memories it touched.

    Tag counts and cluster sizes come from the batch (``plan_counts``), else from the mirror
    (as it was when the batch was planned) and the batch; without either, or when the batch
    deletes memories, they are counted in the database.
    """
    if mirror is not None:
        plan_counts(mirror, batch)
    with store.transaction():
        for memory_id in batch.purged:
            store.delete_memory(memory_id)
        batch.removed_count = store.delete_edge_sets(batch.removed)
        rows = []
        for row in batch.new_rows.values():
            rows.append({k: v for k, v in row.items() if not k.startswith("_")})
        store.insert_memories(rows)
        store.update_memories(batch.updates)
        if batch.request is not None:
            idempotency.store_request(store, batch.request)
        store.ensure_tags((n, k) for n, k in batch.tags.items() if n not in batch.known_tags)
        store.insert_edge_sets(
            {
                table: [{k: v for k, v in e.items() if not k.startswith("_")} for e in edges]
                for table in EDGE_TABLES
                if (edges := batch.edges.get(table))
            }
        )
        counts, sizes = batch.tag_counts, batch.cluster_sizes
        if counts is not None and sizes is not None:
            store.set_tag_counts(counts)
            store.drop_empty_tags(n for n, c in counts.items() if c == 0 and n not in batch.tags)
            store.set_cluster_sizes(sizes)
            return batch.affected()
        store.refresh_tag_counts(batch.tags)
        untagged = {dst for table, _, dst, _ in batch.removed if table == "HasTag"}
        store.refresh_tag_counts(untagged - set(batch.tags), drop_empty=True)
        store.refresh_cluster_sizes(batch.clusters)
    return batch.affected()


def mirror_written(mirror: Mirror, store: Store, batch: Batch, affected: set[str]) -> None:
    """Bring the mirror up to date after ``apply`` wrote ``batch``.

    New rows and edges go in from the batch itself, in the form the store wrote them
    (re-reading them cost more than planning: the incoming-edge query alone ~1 ms per memory);
    rows the batch updated are the stored rows with the batch's changes. A batch that removed
    edges is re-read whole.
    """
    if batch.removed or batch.purged:
        mirror.refresh(store, affected)
        return
    rows = [
        {k: v for k, v in row.items() if not k.startswith("_")} for row in batch.new_rows.values()
    ]
    edges = []
    for table, rows_ in batch.edges.items():
        for e in rows_:
            weight = e.get("weight") if table == "RelatesTo" else e.get("probability")
            via = e.get("source") or "" if table in ("RelatesTo", "HasTag") else ""
            edges.append({"type": table, "src": e["src"], "dst": e["dst"],
                          "weight": 1.0 if weight is None else weight, "via": via})  # fmt: skip
    if rows:
        mirror.add_written(store.memory_table(rows), edges, affected)
    else:
        mirror.add_written(None, edges, affected)
    updated = []
    for memory_id, fields in batch.updates.items():
        slot = mirror.slot.get(memory_id)
        if slot is None or slot not in mirror.records:
            continue
        row = {**mirror.records[slot], **fields, "embedding": mirror.vectors[slot]}
        if isinstance(row.get("metadata"), str):  # stored as JSON text
            row["metadata"] = json.loads(row["metadata"] or "{}")
        updated.append(row)
    if updated:
        mirror.add_written(store.memory_table(updated), [], [r["id"] for r in updated])


def planned_memory(batch: Batch, memory_id: str) -> Memory:
    """The memory a planned (not yet written) row would become, for dry runs."""
    row = batch.new_rows[memory_id]
    return memory_from_row(
        {
            **row,
            "metadata": json.dumps(row["metadata"] or {}, sort_keys=True),
            "tags": row.get("_tags", []),
            "embedding": None,
        }
    )

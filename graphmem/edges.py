"""The one registry of edge types: what each joins, what it carries, how a walk weighs it, and
the name ``link()`` takes for it. The store, the write path, the models, the configuration and
the export read their edge facts from here, so a new edge type is one entry (plus its DDL).
"""

from __future__ import annotations

from dataclasses import dataclass

from .keys import TABLE_PREFIX


@dataclass(frozen=True)
class EdgeType:
    """One Kùzu relationship table of the schema."""

    table: str  # the relationship table, e.g. "RelatesTo"
    target: str  # the node table it points to: "Memory", "Tag" or "Cluster"
    columns: tuple[str, ...]  # its properties, as the schema declares them
    walk_weight: float | None  # how much a walk keeps crossing it; None: the edge's own weight
    link: str | None = None  # the type name link()/unlink() take; None: made by graphmem only
    weight_column: str | None = None  # the property holding a per-edge weight, if any

    @property
    def target_key(self) -> str:
        """The primary key of the target table."""
        return "name" if self.target == "Tag" else "id"

    @property
    def prefix(self) -> str:
        """The prefix of target node ids in graphs and walks (``m:``, ``t:``, ``c:``)."""
        return TABLE_PREFIX[self.target]


_STAMPS = ("created_at", "updated_at")
EDGE_TYPES: tuple[EdgeType, ...] = (
    EdgeType("HasTag", "Tag", ("source", "created_at"), 0.8),
    EdgeType("InCluster", "Cluster", ("probability", "created_at"), 0.6,
             weight_column="probability"),
    EdgeType("RelatesTo", "Memory", ("weight", "co_access", "source", *_STAMPS), None,
             link="relates_to", weight_column="weight"),
    EdgeType("Supersedes", "Memory", ("reason", *_STAMPS), 0.9, link="supersedes"),
    EdgeType("Contradicts", "Memory", ("reason", *_STAMPS), 0.3, link="contradicts"),
    EdgeType("DerivedFrom", "Memory", ("reason", *_STAMPS), 0.3, link="derived_from"),
)  # fmt: skip

BY_TABLE: dict[str, EdgeType] = {e.table: e for e in EDGE_TYPES}
EDGE_TABLES: tuple[str, ...] = tuple(e.table for e in EDGE_TYPES)
LINK_TABLES: dict[str, str] = {e.link: e.table for e in EDGE_TYPES if e.link}
LINK_TYPES: tuple[str, ...] = tuple(LINK_TABLES)


def default_walk_weights() -> dict[str, float]:
    """Walk weights of the edge types that have a fixed one (``Config.edge_weights``)."""
    return {e.table: e.walk_weight for e in EDGE_TYPES if e.walk_weight is not None}

"""The bulk reads of ``graphmem.export`` (to_networkx, the file formats, the viz page) and the
schema listing: the part of ``Store``'s Cypher that reads a whole store out, kept apart from the
queries of the write and recall paths. ``Store`` inherits it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..edges import BY_TABLE, EDGE_TABLES
from .records import MEMORY_COLUMNS

if TYPE_CHECKING:
    from .engine import Engine


class Exports:
    """Whole-store reads, each one query per table (mixed into ``Store``)."""

    engine: Engine

    def export_memories(
        self,
        *,
        include_inactive: bool = False,
        kinds: Sequence[str] | None = None,
        with_embedding: bool = False,
    ) -> list[dict[str, Any]]:
        """Memory rows (every column, the embedding only when asked), oldest first."""
        cols = [c for c in MEMORY_COLUMNS if with_embedding or c != "embedding"]
        where, params = [], {}
        if not include_inactive:
            where.append("m.active = true")
        if kinds:
            where.append("m.kind IN $kinds")
            params["kinds"] = list(kinds)
        ret = ", ".join(f"m.{c} AS {c}" for c in cols)
        query = "MATCH (m:Memory)" + (" WHERE " + " AND ".join(where) if where else "")
        return self.engine.rows(f"{query} RETURN {ret} ORDER BY m.created_at, m.id", params)

    def export_tags(self) -> list[dict[str, Any]]:
        """Every tag: name, kind, count, created_at."""
        return self.engine.rows(
            "MATCH (t:Tag) RETURN t.name AS name, t.kind AS kind, t.count AS count, "
            "t.created_at AS created_at ORDER BY t.name"
        )

    def export_clusters(self) -> list[dict[str, Any]]:
        """Every cluster: id, label, size, created_at (no centroid)."""
        return self.engine.rows(
            "MATCH (c:Cluster) RETURN c.id AS id, c.label AS label, c.size AS size, "
            "c.created_at AS created_at ORDER BY c.id"
        )

    def export_edges(self) -> list[dict[str, Any]]:
        """Every edge with all its columns, plus ``type``, ``src`` and ``dst``."""
        out: list[dict[str, Any]] = []
        for table in EDGE_TABLES:
            edge = BY_TABLE[table]
            to_label, to_key = edge.target, edge.target_key
            ret = ", ".join(f"r.{p} AS {p}" for p in edge.columns)
            rows = self.engine.rows(
                f"MATCH (a:Memory)-[r:{table}]->(b:{to_label}) "
                f"RETURN a.id AS src, b.{to_key} AS dst, {ret} ORDER BY src, dst"
            )
            out.extend({"type": table, **r} for r in rows)
        return out

    def schema_tables(self) -> list[dict[str, Any]]:
        """Node and relationship tables in creation order, with their properties.

        Each item: ``name``, ``type`` (``NODE`` or ``REL``), ``properties`` (``name``, ``type``,
        ``primary_key``) and, for relationship tables, ``connections`` (``from``, ``to``).
        """
        tables = self.engine.rows("CALL SHOW_TABLES() RETURN id, name, type ORDER BY id")
        out: list[dict[str, Any]] = []
        for t in tables:
            name = str(t["name"])
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                continue  # never interpolate anything but a plain identifier into CALL
            props = [
                {
                    "name": p["name"],
                    "type": p["type"],
                    "primary_key": bool(p.get("primary key")),
                }
                for p in self.engine.rows(f"CALL TABLE_INFO('{name}') RETURN *")
            ]
            item: dict[str, Any] = {"name": name, "type": t["type"], "properties": props}
            if t["type"] == "REL":
                item["connections"] = [
                    {"from": c["source table name"], "to": c["destination table name"]}
                    for c in self.engine.rows(f"CALL SHOW_CONNECTION('{name}') RETURN *")
                ]
            out.append(item)
        return out

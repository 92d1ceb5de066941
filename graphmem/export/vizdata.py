"""The viz page's data for a store too big to put whole in one page: an overview, members on demand.

A page that embeds every memory grows with the store (about 1 kB per memory with its edges), and a
browser asked to draw 100k nodes stalls. Above ``embed_max`` memories ``graphmem viz`` sends this
instead: the clusters (and one "unclustered" group) and the busiest tags, each with its members
counted (active and inactive apart), the links between them counted, and memory nodes only for a
bounded set: the recall hits, plus, in a static page, a sample of each group's first members
(pinned, most used, newest). ``viz --serve`` sends no sample; the page asks the server for a
group's members when it is opened (:func:`members`, a page of ``page`` at a time).

Every read is a read-only ``mem.cypher`` statement of aggregates or of a bounded id list, so the
page costs the same on a store this process owns and on one another process holds (the owner
runs the statements), and its size depends on the number of groups and the sample, not on the
number of memories.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import NotFoundError, ValidationError
from ..keys import CLUSTER, MEMORY, TAG
from ..models import KINDS, clip
from ..text.tags import normalize_tag

__all__ = ["EMBED_MAX", "NO_CLUSTER", "TOP_TAGS", "count", "members", "overview"]

EMBED_MAX = 2000
"""Memories a page may hold whole; above it the page is an overview with members on demand."""
TOP_TAGS = 40
"""Tags drawn in the overview (the most used); the rest appear on their memories."""
PAGE = 200
"""Members sent per request when a group is opened in a served page."""
MAX_PAGED = 10_000
"""A group's first members a page can load: Kùzu sizes an ORDER BY … SKIP/LIMIT buffer by the
skip and crashes for large ones (see ``store.list_memory_ids``)."""
NO_CLUSTER = "__graphmem_unclustered__"
"""The page's id for the memories in no cluster (the viewer's own synthetic group)."""
# A memory's text in the page is clipped: the details panel shows it, a sample of 2,000 long
# texts must not make the page grow without bound.
CONTENT_CHARS = 600
LABEL_CHARS = 60
_LINKS = "RelatesTo|Supersedes|Contradicts|DerivedFrom"
_META = (
    "scope", "project", "source", "created_at", "updated_at", "confidence", "strength",
    "access_count", "pinned", "superseded_by",
)  # fmt: skip


class _Filter:
    """The page's filters (``--all``, ``-k``, ``-t``) as a Cypher condition on ``m``."""

    def __init__(
        self,
        mem: Any,
        include_inactive: bool = False,
        kinds: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> None:
        # Templates on the memory variable {v}: the same filter applies to both ends of a link.
        self._parts: list[str] = [] if include_inactive else ["{v}.active"]
        self.params: dict[str, Any] = {}
        if kinds:
            bad = [k for k in kinds if k not in KINDS]
            if bad:
                raise ValidationError(f"unknown kind(s) {bad}; expected {', '.join(KINDS)}")
            self._parts.append("{v}.kind IN $fkinds")
            self.params["fkinds"] = list(kinds)
        if tags:
            try:
                names = sorted({normalize_tag(t) for t in tags})
            except ValueError as exc:
                raise ValidationError(str(exc)) from exc
            # Kùzu 0.11 finds no $parameter inside an EXISTS subquery: the tagged ids instead.
            rows = _rows(
                mem,
                "MATCH (m:Memory)-[:HasTag]->(t:Tag) WHERE t.name IN $names "
                "RETURN DISTINCT m.id AS id",
                {"names": names},
            )
            self._parts.append("{v}.id IN $fids")
            self.params["fids"] = [r["id"] for r in rows]
        self.condition = self.on("m")

    def on(self, var: str) -> str:
        """The condition on the memory variable ``var``."""
        return " AND ".join(p.format(v=var) for p in self._parts) or "true"


def _rows(mem: Any, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return mem.cypher(query, params or {}, timeout=120.0)


def count(mem: Any, **filters: Any) -> int:
    """How many memories the page would show with these filters (``to_networkx``'s names)."""
    f = _Filter(mem, **filters)
    return int(
        _rows(mem, f"MATCH (m:Memory) WHERE {f.condition} RETURN count(*) AS n", f.params)[0]["n"]
    )


def _split(rows: Iterable[dict[str, Any]], key: str) -> dict[Any, list[int]]:
    """``{key: [active, inactive]}`` from rows grouped by key and ``active``."""
    out: dict[Any, list[int]] = {}
    for r in rows:
        pair = out.setdefault(r[key], [0, 0])
        pair[0 if r["active"] else 1] += int(r["n"])
    return out


def overview(
    mem: Any,
    *,
    sample: int = EMBED_MAX,
    top_tags: int = TOP_TAGS,
    hit_ids: Sequence[str] = (),
    **filters: Any,
) -> dict[str, Any]:
    """The overview's nodes and edges (the page's data format, see ``graphmem.export.viz``).

    Args:
        mem: a ``GraphMemory`` or a client of one.
        sample: memories to embed, spread over the groups (0 for a served page).
        top_tags: how many tags to draw.
        hit_ids: memory ids (``m:`` prefixed or not) to embed whatever the sample (recall hits).
        **filters: ``include_inactive``, ``kinds``, ``tags``.

    Returns:
        ``{"nodes", "edges", "groups"}``: cluster and tag nodes carry ``count`` (active
        members) and ``inactive``; ``groups`` gives the unclustered group's counts; edges
        between groups carry ``count`` (the member links they stand for).
    """
    f = _Filter(mem, **filters)
    cond, params = f.condition, f.params
    clusters = _split(
        _rows(
            mem,
            f"MATCH (m:Memory)-[:InCluster]->(c:Cluster) WHERE {cond} "
            "RETURN c.id AS id, m.active AS active, count(*) AS n",
            params,
        ),
        "id",
    )
    labels = {
        r["id"]: r["label"]
        for r in _rows(mem, "MATCH (c:Cluster) RETURN c.id AS id, c.label AS label")
    }
    totals = _split(
        _rows(
            mem,
            f"MATCH (m:Memory) WHERE {cond} RETURN 1 AS k, m.active AS active, count(*) AS n",
            params,
        ),
        "k",
    ).get(1, [0, 0])
    in_clusters = [sum(p[0] for p in clusters.values()), sum(p[1] for p in clusters.values())]
    unclustered = [totals[0] - in_clusters[0], totals[1] - in_clusters[1]]
    tag_rows = _rows(
        mem,
        f"MATCH (m:Memory)-[:HasTag]->(t:Tag) WHERE {cond} "
        "RETURN t.name AS id, t.kind AS kind, m.active AS active, count(*) AS n",
        params,
    )
    tags = _split(tag_rows, "id")
    tag_kind = {r["id"]: r["kind"] for r in tag_rows}
    # The busiest tags by active members; a tag on one memory says nothing at this scale.
    top = sorted((t for t, p in tags.items() if p[0] >= 2), key=lambda t: (-tags[t][0], t))
    top = top[:top_tags]

    nodes: list[dict[str, Any]] = []
    for cid, (active, inactive) in sorted(clusters.items(), key=lambda kv: -kv[1][0]):
        nodes.append(
            {"id": CLUSTER + cid, "type": "cluster", "label": labels.get(cid) or cid,
             "size": active + inactive, "count": active, "inactive": inactive}
        )  # fmt: skip
    for name in top:
        nodes.append(
            {"id": TAG + name, "type": "tag", "label": name, "kind": tag_kind.get(name) or "",
             "count": tags[name][0], "inactive": tags[name][1]}
        )  # fmt: skip
    edges = _group_edges(mem, f, top)
    chosen = list(dict.fromkeys(i.removeprefix(MEMORY) for i in hit_ids))
    if sample > 0:
        chosen += _sample(mem, f, [n["id"] for n in nodes], unclustered, sample)
    loaded = _memory_nodes(mem, list(dict.fromkeys(chosen)), set(top))
    return {
        "nodes": nodes + loaded["nodes"],
        "edges": edges + loaded["edges"],
        "groups": {
            NO_CLUSTER: {"count": unclustered[0], "inactive": unclustered[1]},
        },
        "totals": {"memories": totals[0] + totals[1], "active": totals[0],
                   "clusters": len(clusters), "tags": len(tags)},
    }  # fmt: skip


def _group_edges(mem: Any, f: _Filter, top: list[str]) -> list[dict[str, Any]]:
    """Cluster–tag and cluster–cluster edges, each counting the member links it stands for."""
    params = {**f.params, "top": top}
    edges: list[dict[str, Any]] = []
    tagged = _rows(
        mem,
        f"MATCH (c:Cluster)<-[:InCluster]-(m:Memory)-[:HasTag]->(t:Tag) "
        f"WHERE {f.condition} AND t.name IN $top RETURN c.id AS c, t.name AS t, count(*) AS n",
        params,
    )
    per_tag: dict[str, int] = {}
    for r in tagged:
        per_tag[r["t"]] = per_tag.get(r["t"], 0) + int(r["n"])
        edges.append({"source": CLUSTER + r["c"], "target": TAG + r["t"], "type": "HasTag",
                      "count": int(r["n"])})  # fmt: skip
    loose = _rows(
        mem,
        f"MATCH (m:Memory)-[:HasTag]->(t:Tag) WHERE {f.condition} AND t.name IN $top "
        "AND NOT EXISTS { MATCH (m)-[:InCluster]->(:Cluster) } RETURN t.name AS t, count(*) AS n",
        params,
    )
    for r in loose:
        edges.append({"source": NO_CLUSTER, "target": TAG + r["t"], "type": "HasTag",
                      "count": int(r["n"])})  # fmt: skip
    linked = _rows(
        mem,
        f"MATCH (c1:Cluster)<-[:InCluster]-(m:Memory)-[r:{_LINKS}]->(b:Memory)"
        f"-[:InCluster]->(c2:Cluster) WHERE {f.condition} AND {f.on('b')} AND c1.id <> c2.id "
        "RETURN c1.id AS s, c2.id AS t, count(*) AS n",
        f.params,
    )
    pairs: dict[tuple[str, str], int] = {}
    for r in linked:
        key = (min(r["s"], r["t"]), max(r["s"], r["t"]))
        pairs[key] = pairs.get(key, 0) + int(r["n"])
    for (a, b), n in sorted(pairs.items()):
        edges.append(
            {"source": CLUSTER + a, "target": CLUSTER + b, "type": "RelatesTo", "count": n}
        )
    for i, e in enumerate(edges):
        e["id"] = f"g{i}"
        e["group"] = True
    return edges


_ORDER = "ORDER BY m.pinned DESC, m.active DESC, m.access_count DESC, m.created_at DESC, m.id"


def _group_match(group: str) -> tuple[str, dict[str, Any]]:
    """The MATCH of a group's members: ``c:<id>``, ``t:<name>`` or the unclustered group."""
    if group == NO_CLUSTER:
        return "MATCH (m:Memory) WHERE NOT EXISTS { MATCH (m)-[:InCluster]->(:Cluster) } AND", {}
    if group.startswith(CLUSTER) and len(group) > 2:
        return "MATCH (m:Memory)-[:InCluster]->(g:Cluster {id: $gid}) WHERE", {"gid": group[2:]}
    if group.startswith(TAG) and len(group) > 2:
        return "MATCH (m:Memory)-[:HasTag]->(g:Tag {name: $gid}) WHERE", {"gid": group[2:]}
    raise ValidationError(f"unknown group {group!r}: expected c:<cluster>, t:<tag> or {NO_CLUSTER}")


def _member_ids(mem: Any, f: _Filter, group: str, offset: int, limit: int) -> list[str]:
    match, params = _group_match(group)
    rows = _rows(
        mem,
        f"{match} {f.condition} RETURN m.id AS id {_ORDER} SKIP $offset LIMIT $limit",
        {**f.params, **params, "offset": offset, "limit": limit},
    )
    return [r["id"] for r in rows]


def _rank(row: dict[str, Any]) -> tuple[Any, ...]:
    """The order of ``_ORDER`` for a row of ``_sample``: pinned, active, most used, newest."""
    created = row["t"]
    stamp = created.timestamp() if isinstance(created, _dt.datetime) else 0.0
    return (not row["p"], not row["act"], -(row["a"] or 0), -stamp, row["id"])


def _sample(
    mem: Any, f: _Filter, groups: list[str], unclustered: list[int], budget: int
) -> list[str]:
    """Up to about ``budget`` memory ids, the first members of each group (in ``_ORDER``).

    Two queries fetch the members of every cluster and drawn tag at once, ranked here: one
    query per group cost 30-70 ms each at 100k memories, seconds for a page.
    """
    n_groups = len(groups) + (1 if unclustered[0] + unclustered[1] else 0)
    if not n_groups:
        return []
    quota = max(5, budget // n_groups)
    ret = "m.id AS id, m.pinned AS p, m.active AS act, m.access_count AS a, m.created_at AS t"
    rows = _rows(
        mem,
        f"MATCH (m:Memory)-[:InCluster]->(c:Cluster) WHERE {f.condition} "
        f"RETURN '{CLUSTER}' + c.id AS g, {ret}",
        f.params,
    )
    tags = [g[2:] for g in groups if g.startswith(TAG)]
    if tags:
        rows += _rows(
            mem,
            f"MATCH (m:Memory)-[:HasTag]->(t:Tag) WHERE {f.condition} AND t.name IN $top "
            f"RETURN '{TAG}' + t.name AS g, {ret}",
            {**f.params, "top": tags},
        )
    by_group: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_group.setdefault(r["g"], []).append(r)
    chosen: dict[str, None] = {}
    for group in groups:
        for r in sorted(by_group.get(group, ()), key=_rank)[:quota]:
            chosen[r["id"]] = None
    if unclustered[0] + unclustered[1]:
        for mid in _member_ids(mem, f, NO_CLUSTER, 0, quota):
            chosen[mid] = None
    return list(chosen)[:budget]


def members(
    mem: Any, group: str, *, offset: int = 0, limit: int = PAGE, top_tags: Sequence[str] = (),
    **filters: Any,
) -> dict[str, Any]:  # fmt: skip
    """One page of a group's members as page nodes, with their edges.

    Args:
        group: ``c:<cluster id>``, ``t:<tag name>`` or ``NO_CLUSTER``.
        offset: members to skip (the page already holds them).
        limit: members to send.
        top_tags: the tags drawn as nodes (their ``HasTag`` edges are sent).

    Returns:
        ``{"group", "nodes", "edges", "offset", "next"}``; ``next`` is the offset of the next
        page, or None after the last.

    Raises:
        ValidationError: a malformed group or paging value.
        NotFoundError: no such cluster or tag.
    """
    if not isinstance(group, str):
        raise ValidationError("group must be a string")
    if (
        not isinstance(offset, int)
        or not isinstance(limit, int)
        or offset < 0
        or not 0 < limit <= 1000
    ):
        raise ValidationError("offset must be >= 0 and limit between 1 and 1000")
    if offset + limit > MAX_PAGED:
        raise ValidationError(
            f"a page loads a group's first {MAX_PAGED} members; narrow the view with -t or -k"
        )
    f = _Filter(mem, **filters)
    _group_match(group)
    if group != NO_CLUSTER:
        table, key = ("Cluster", "id") if group.startswith(CLUSTER) else ("Tag", "name")
        found = _rows(
            mem, f"MATCH (g:{table} {{{key}: $g}}) RETURN count(*) AS n", {"g": group[2:]}
        )
        if not found[0]["n"]:
            raise NotFoundError(f"no {table.lower()} {group[2:]!r}")
    ids = _member_ids(mem, f, group, offset, limit + 1)
    more = len(ids) > limit and offset + 2 * limit <= MAX_PAGED
    loaded = _memory_nodes(mem, ids[:limit], set(top_tags))
    return {"group": group, "offset": offset, "next": offset + limit if more else None, **loaded}


def _plain(v: Any) -> Any:
    if isinstance(v, _dt.datetime):
        return v.isoformat()
    return v


def _memory_nodes(mem: Any, ids: list[str], top: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Page nodes for these memories, their edges to each other and to cluster and top tags.

    Links to memories outside ``ids`` are sent as well: the page keeps an edge once both its
    ends are loaded, so memories opened later join up with those already drawn.
    """
    if not ids:
        return {"nodes": [], "edges": []}
    cols = ", ".join(f"m.{c} AS {c}" for c in ("id", "content", "kind", "active", *_META))
    rows = _rows(
        mem, f"UNWIND $ids AS mid MATCH (m:Memory {{id: mid}}) RETURN {cols}", {"ids": ids}
    )
    tags: dict[str, list[str]] = {}
    for r in _rows(
        mem,
        "UNWIND $ids AS mid MATCH (m:Memory {id: mid})-[:HasTag]->(t:Tag) RETURN m.id AS m, t.name AS t",
        {"ids": ids},
    ):
        tags.setdefault(r["m"], []).append(r["t"])
    cluster = {
        r["m"]: r["c"]
        for r in _rows(
            mem,
            "UNWIND $ids AS mid MATCH (m:Memory {id: mid})-[:InCluster]->(c:Cluster) "
            "RETURN m.id AS m, c.id AS c",
            {"ids": ids},
        )
    }
    nodes, edges = [], []
    for r in rows:
        mid = r["id"]
        content = str(r["content"] or "")
        node: dict[str, Any] = {
            "id": MEMORY + mid, "type": "memory", "label": clip(content, LABEL_CHARS),
            "kind": r["kind"] or "fact", "active": bool(r["active"]),
            "content": content if len(content) <= CONTENT_CHARS else clip(content, CONTENT_CHARS),
            "tags": sorted(tags.get(mid, [])),
            "cluster": CLUSTER + cluster[mid] if mid in cluster else None,
            "meta": {k: _plain(r[k]) for k in _META if r.get(k) not in (None, "")},
        }  # fmt: skip
        nodes.append(node)
        for name in node["tags"]:
            if name in top:
                edges.append({"id": f"{MEMORY}{mid}>{TAG}{name}", "source": MEMORY + mid,
                              "target": TAG + name, "type": "HasTag", "weight": 1.0})  # fmt: skip
        if mid in cluster:
            edges.append({"id": f"{MEMORY}{mid}>{CLUSTER}{cluster[mid]}", "source": MEMORY + mid,
                          "target": CLUSTER + cluster[mid], "type": "InCluster", "weight": 1.0})  # fmt: skip
    for direction in ("(m)-[r]->(b)", "(b)-[r]->(m)"):
        pattern = direction.replace("[r]", f"[r:{_LINKS}]").replace("(m)", "(m:Memory {id: mid})")
        for r in _rows(
            mem,
            f"UNWIND $ids AS mid MATCH {pattern.replace('(b)', '(b:Memory)')} "
            "RETURN label(r) AS type, m.id AS m, b.id AS b, "
            "CASE WHEN label(r) = 'RelatesTo' THEN r.weight ELSE 1.0 END AS w",
            {"ids": ids},
        ):
            src, dst = (r["m"], r["b"]) if direction.startswith("(m)") else (r["b"], r["m"])
            edges.append({"id": f"{MEMORY}{src}>{r['type']}>{MEMORY}{dst}", "source": MEMORY + src,
                          "target": MEMORY + dst, "type": r["type"],
                          "weight": float(1.0 if r["w"] is None else r["w"])})  # fmt: skip
    unique = {e["id"]: e for e in edges}
    return {"nodes": nodes, "edges": list(unique.values())}

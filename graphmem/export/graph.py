"""The memory graph as a networkx graph, as files (GraphML, GEXF, JSON, Cytoscape, DOT, CSV)
and as the data the interactive page (``graphmem.export.viz``) draws.

Node keys are ``m:<memory id>``, ``t:<tag name>`` and ``c:<cluster id>``; edges are keyed by
their type (``HasTag``, ``InCluster``, ``RelatesTo``, ``Supersedes``, ``Contradicts``,
``DerivedFrom``) and always carry ``type`` and a float ``weight``. Every attribute value is a
str, int, float or bool, so each networkx writer accepts the graph as it is.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import networkx as nx

from ..edges import BY_TABLE, EDGE_TYPES
from ..errors import NotFoundError, ValidationError
from ..keys import CLUSTER, MEMORY, TAG, TYPE_PREFIX
from ..models import KINDS, clip
from ..private import FILE_MODE, file_mode, open_private, write_private
from ..text.tags import normalize_tag
from ..timeutil import from_db
from ..write import validate
from .formats import FORMATS, csv_paths, format_for

if TYPE_CHECKING:
    from ..storage.store import Store


class GraphSource(Protocol):
    """A memory handle (``GraphMemory``, in any process, or a client): it builds its own graph,
    here or in the process that owns the store."""

    def to_networkx(self, **options: Any) -> nx.MultiDiGraph: ...


__all__ = ["FORMATS", "csv_paths", "export", "format_for", "graph_for_viz", "to_networkx"]

FILTER_OPTIONS = frozenset({"include_inactive", "kinds", "tags", "around", "depth", "embeddings"})
# Lists become one string: GraphML and GEXF have no list type.
LIST_SEP = "; "
LABEL_WIDTH = 60
_TARGET_PREFIX = {e.table: e.prefix for e in EDGE_TYPES}
# Edge columns renamed on the way out: node-link and Cytoscape JSON put the edge's endpoints
# in "source"/"target", which would overwrite a column of that name.
_EDGE_RENAME = {"source": "origin"}
# Memory columns kept out of the node attributes (or written under another name).
_MEMORY_SKIP = frozenset({"id", "embedding", "reinforcements", "tags"})
# Characters XML 1.0 cannot hold, not even escaped (control characters, lone surrogates,
# U+FFFE/U+FFFF): a memory may contain them, and one would make the whole file unreadable.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _value(v: Any) -> Any:
    """A GraphML/GEXF-safe attribute value, or None to leave the attribute out."""
    if v is None:
        return None
    if isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, datetime):
        return (from_db(v) or v).isoformat()
    if isinstance(v, list | tuple):
        return LIST_SEP.join(str(x) for x in v if x is not None) or None
    if isinstance(v, dict):
        return json.dumps(v, sort_keys=True, default=str)
    return str(v)


def _attrs(row: dict[str, Any], skip: Iterable[str] = ()) -> dict[str, Any]:
    skip = set(skip)
    out = {}
    for k, v in row.items():
        if k in skip:
            continue
        value = _value(v)
        if value is not None:
            out[k] = value
    return out


def to_networkx(
    source: Store | GraphSource,
    *,
    include_inactive: bool = False,
    kinds: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    around: Sequence[str] | str | None = None,
    depth: int = 1,
    embeddings: bool = False,
) -> nx.MultiDiGraph:
    """Read the memory graph from the database into a ``networkx.MultiDiGraph``.

    Args:
        source: a ``GraphMemory`` (it checks the options and calls back here with its
            ``Store``, or asks the process that owns the store).
        include_inactive: also export forgotten and superseded memories.
        kinds: only memories of these kinds.
        tags: only memories carrying at least one of these tags (names are normalised).
        around: memory ids (with or without the ``m:`` prefix); keep only the nodes within
            ``depth`` hops of them, edges taken in either direction. A tag or cluster is a hop
            of its own, so two memories sharing a tag are 2 hops apart.
        depth: hops for ``around``.
        embeddings: add each memory's embedding as a space-separated string ``embedding``.

    Returns:
        The graph. Memory nodes carry ``type="memory"``, ``label`` (clipped content), every
        column of the memory (timestamps as ISO strings, lists joined with ``"; "``, metadata
        as JSON; missing values left out), ``tags`` and ``cluster`` (``c:<id>``); tag nodes
        ``type="tag"``, ``label``, ``kind``, ``count`` (the exported memories carrying it);
        cluster nodes ``type="cluster"``,
        ``label``, ``size``. Tags and clusters are kept when an exported memory links to them
        (all of them when nothing is filtered out).

    Raises:
        ValidationError: an unknown kind, an empty tag or a negative depth.
        NotFoundError: an ``around`` id is not among the exported memories.
    """
    if not _is_store(source):
        return source.to_networkx(  # type: ignore[union-attr]
            include_inactive=include_inactive, kinds=kinds, tags=tags, around=around,
            depth=depth, embeddings=embeddings,
        )  # fmt: skip
    store = cast("Store", source)
    validate.as_bool("include_inactive", include_inactive)
    validate.as_bool("embeddings", embeddings)
    depth = validate.as_int("depth", depth, 0, 1_000)
    if around is not None:
        around = [validate.as_text("around", a, 300) for a in validate.as_list("around", around)]
    if tags is not None:
        tags = [validate.as_text("tags", t, 300) for t in validate.as_list("tags", tags)]
    if kinds is not None:
        kinds = validate.as_list("kinds", kinds)
        bad = [k for k in kinds if not isinstance(k, str) or k not in KINDS]
        if bad:
            raise ValidationError(f"unknown kind(s) {bad}; expected {', '.join(KINDS)}")
    tag_names: set[str] | None = None
    if tags:
        try:
            tag_names = {normalize_tag(t) for t in ([tags] if isinstance(tags, str) else tags)}
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc
    rows = store.export_memories(
        include_inactive=include_inactive, kinds=kinds or None, with_embedding=embeddings
    )
    edges = store.export_edges()
    tags_of: dict[str, list[str]] = {}
    cluster_of: dict[str, str] = {}
    for e in edges:
        if e["type"] == "HasTag":
            tags_of.setdefault(e["src"], []).append(e["dst"])
        elif e["type"] == "InCluster":
            cluster_of[e["src"]] = e["dst"]
    if tag_names is not None:
        rows = [r for r in rows if tag_names & set(tags_of.get(r["id"], ()))]

    G = nx.MultiDiGraph(name="graphmem")
    for r in rows:
        attrs = _attrs(r, _MEMORY_SKIP)
        attrs.update(type="memory", label=clip(r["content"], LABEL_WIDTH))
        if r["id"] in tags_of:
            attrs["tags"] = LIST_SEP.join(sorted(tags_of[r["id"]]))
        if r["id"] in cluster_of:
            attrs["cluster"] = CLUSTER + cluster_of[r["id"]]
        if embeddings and r.get("embedding") is not None:
            # 9 significant digits give back the stored float32 exactly.
            attrs["embedding"] = " ".join(f"{float(x):.9g}" for x in r["embedding"])
        G.add_node(MEMORY + r["id"], **attrs)

    unfiltered = include_inactive and not kinds and tag_names is None and not around
    linked = {
        _TARGET_PREFIX[e["type"]] + e["dst"]
        for e in edges
        if e["type"] in _TARGET_PREFIX and MEMORY + e["src"] in G
    }
    # A tag's count is how many of the exported memories carry it (the stored count also
    # includes forgotten and superseded ones, which a view of active memories leaves out).
    carried: dict[str, int] = {}
    for memory_id, names in tags_of.items():
        if MEMORY + memory_id in G:
            for name in names:
                carried[name] = carried.get(name, 0) + 1
    for t in store.export_tags():
        if unfiltered or TAG + t["name"] in linked:
            t = {**t, "count": carried.get(t["name"], 0)}
            G.add_node(
                TAG + t["name"],
                **_attrs({"type": "tag", "label": t["name"], **t}, {"name"}),
            )
    for c in store.export_clusters():
        if unfiltered or CLUSTER + c["id"] in linked:
            G.add_node(
                CLUSTER + c["id"],
                **_attrs({"type": "cluster", **c, "label": c["label"] or c["id"]}, {"id"}),
            )

    for e in edges:
        u = MEMORY + e["src"]
        v = _TARGET_PREFIX.get(e["type"], MEMORY) + e["dst"]
        if u not in G or v not in G:
            continue
        data = _attrs(e, {"src", "dst", "type", "weight", "probability"})
        data = {_EDGE_RENAME.get(k, k): val for k, val in data.items()}
        column = BY_TABLE[e["type"]].weight_column
        weight = e.get(column) if column else None
        data.update(type=e["type"], weight=float(1.0 if weight is None else weight))
        if e["type"] == "InCluster":
            data["probability"] = data["weight"]
        G.add_edge(u, v, key=e["type"], **data)

    if around:
        ids = [around] if isinstance(around, str) else list(around)
        centres = [i if i.startswith((MEMORY, TAG, CLUSTER)) else MEMORY + i for i in ids]
        missing = [c for c in centres if c not in G]
        if missing:
            raise NotFoundError(
                f"{', '.join(missing)} not in the exported graph "
                "(unknown, or inactive without include_inactive)."
            )
        undirected = G.to_undirected(as_view=True)
        keep: set[str] = set()
        for centre in centres:
            keep.update(nx.ego_graph(undirected, centre, radius=depth))
        G = G.subgraph(keep).copy()
    return G


def _is_store(source: object) -> bool:
    # Duck-typed: importing Store here would load Kùzu for every caller of the exporter.
    return hasattr(source, "engine") and hasattr(source, "counts")


# ---------------------------------------------------------------------- files


def export(
    source: Store | GraphSource | nx.MultiDiGraph,
    path: str | Path,
    format: str | None = None,
    *,
    mode: int = FILE_MODE,
    **filters: Any,
) -> list[Path]:
    """Write the memory graph to ``path``.

    Args:
        source: a ``GraphMemory`` (or ``Store``), or a graph from ``to_networkx``.
        path: the file to write (for ``csv``, ``<stem>-nodes.csv`` and ``<stem>-edges.csv``
            beside it).
        format: ``graphml``, ``gexf``, ``json`` (node-link, D3: ``nodes`` and ``links``),
            ``cytoscape`` (Cytoscape.js elements), ``dot`` (Graphviz) or ``csv``; default from
            the suffix.
        **filters: ``to_networkx`` keywords (ignored when ``source`` is a graph).
        mode: the files' permission bits; 0600 (only you can read them) unless you ask
            otherwise. Files are created with it, never widened then narrowed.

    Returns:
        The files written.
    """
    validate.keys_in("export option(s)", filters, FILTER_OPTIONS)
    if format is not None and not isinstance(format, str):
        raise ValidationError(f"format must be a string, got {type(format).__name__}")
    fmt = format_for(path, format)
    perm = file_mode(mode)
    G = source if isinstance(source, nx.Graph) else to_networkx(source, **filters)
    path = Path(path)
    if fmt in ("graphml", "gexf"):
        G = _xml_safe(G)
    if fmt == "graphml":
        H = G.copy()
        # Edge ids must be unique in GraphML (Gephi merges duplicates); the key is the type.
        for i, (_, _, data) in enumerate(H.edges(data=True)):
            data["id"] = f"e{i}"
        with open_private(path, "wb", perm=perm) as fh:
            nx.write_graphml(H, fh, edge_id_from_attribute="id")
    elif fmt == "gexf":
        with open_private(path, "wb", perm=perm) as fh:
            nx.write_gexf(_for_gexf(G), fh)
    elif fmt == "json":
        data = nx.node_link_data(G, edges="links")
        write_private(path, json.dumps(data, ensure_ascii=False, indent=1), perm=perm)
    elif fmt == "cytoscape":
        data = nx.cytoscape_data(G)
        write_private(path, json.dumps(data, ensure_ascii=False, indent=1), perm=perm)
    elif fmt == "dot":
        with open_private(path, "w", encoding="utf-8", perm=perm) as fh:
            nx.nx_pydot.write_dot(_for_dot(G), fh)
    else:
        return _write_csv(G, path, perm)
    return [path]


def _xml_text(value: Any) -> Any:
    return _NOT_XML.sub("\ufffd", value) if isinstance(value, str) else value


def _xml_safe(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose names and values hold only characters XML 1.0 allows (others become U+FFFD)."""
    H = nx.relabel_nodes(G, {n: _xml_text(n) for n in G if _NOT_XML.search(n)}, copy=True)
    H.graph.update({k: _xml_text(v) for k, v in H.graph.items()})
    for _, data in H.nodes(data=True):
        data.update({k: _xml_text(v) for k, v in data.items()})
    for _, _, data in H.edges(data=True):
        data.update({k: _xml_text(v) for k, v in data.items()})
    return H


def _for_gexf(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    # GEXF's edge "type" means directed/undirected/mutual, so the edge type travels as the
    # edge's label (which Gephi shows).
    H = G.copy()
    for _, _, data in H.edges(data=True):
        data["label"] = data.pop("type")
    return H


def _quote_dot(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _for_dot(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    # pydot reads "m:x" as node "m" port "x"; quoted names keep the colon.
    return nx.relabel_nodes(G, {n: _quote_dot(n) for n in G}, copy=True)


def _columns(first: Sequence[str], records: Iterable[dict[str, Any]]) -> list[str]:
    cols = dict.fromkeys(first)
    for r in records:
        cols.update(dict.fromkeys(r))
    return list(cols)


def _write_csv(G: nx.MultiDiGraph, path: Path, perm: int) -> list[Path]:
    nodes_path, edges_path = csv_paths(path)
    node_rows = [{"id": n, **d} for n, d in G.nodes(data=True)]
    edge_rows = [{"source": u, "target": v, **d} for u, v, d in G.edges(data=True)]
    for out, rows, first in (
        (nodes_path, node_rows, ["id", "type", "label"]),
        (edges_path, edge_rows, ["source", "target", "type", "weight"]),
    ):
        with open_private(out, "w", encoding="utf-8", newline="", perm=perm) as fh:
            writer = csv.DictWriter(fh, fieldnames=_columns(first, rows), restval="")
            writer.writeheader()
            writer.writerows(rows)
    return [nodes_path, edges_path]


# ---------------------------------------------------------------------- viz page data


def graph_for_viz(
    G: nx.MultiDiGraph,
    recall_hits: Sequence[Any] | None = None,
    context: str | None = None,
    *,
    title: str = "graphmem",
) -> dict[str, Any]:
    """The data ``graphmem.export.viz.render_html`` draws, from a graph made by ``to_networkx``.

    Args:
        G: the graph.
        recall_hits: ``RecallHit`` objects (or dicts with ``id``, ``score``, ``path``) to
            highlight; their paths run seed → tag/cluster/memory → … → hit.
        context: the recall's context, shown above the hits.
        title: the page title.
    """
    nodes: list[dict[str, Any]] = []
    for n, d in G.nodes(data=True):
        kind = d.get("type")
        if kind == "memory":
            core = {"type", "label", "kind", "active", "content", "tags", "cluster", "embedding"}
            # The details panel shows meta as is: leave out what only a machine wants.
            core |= {"content_hash"} | ({"metadata"} if d.get("metadata") == "{}" else set())
            nodes.append(
                {
                    "id": n,
                    "type": "memory",
                    "label": d.get("label", n[2:]),
                    "kind": d.get("kind", "fact"),
                    "active": bool(d.get("active", True)),
                    "content": d.get("content", ""),
                    "tags": [t for t in str(d.get("tags", "")).split(LIST_SEP) if t],
                    "cluster": d.get("cluster") if d.get("cluster") in G else None,
                    "meta": {k: v for k, v in d.items() if k not in core},
                }
            )
        elif kind == "tag":
            # The memories on the page that carry it: the stored count includes inactive ones.
            members = {u for u in G.predecessors(n) if G.nodes[u].get("type") == "memory"}
            nodes.append(
                {"id": n, "type": "tag", "label": d.get("label", n[2:]),
                 "kind": d.get("kind", ""), "count": len(members)}
            )  # fmt: skip
        else:
            nodes.append(
                {"id": n, "type": "cluster", "label": d.get("label", n[2:]),
                 "size": int(d.get("size", 0))}
            )  # fmt: skip
    edges = [
        {
            "id": f"e{i}",
            "source": u,
            "target": v,
            "type": d.get("type", k),
            "weight": float(d.get("weight", 1.0)),
        }
        for i, (u, v, k, d) in enumerate(G.edges(keys=True, data=True))
    ]
    recall = None
    if recall_hits is not None or context is not None:
        recall = {"context": context or "", "hits": [_viz_hit(h) for h in recall_hits or []]}
    return {"title": title, "nodes": nodes, "edges": edges, "recall": recall}


def _viz_hit(hit: Any) -> dict[str, Any]:
    if isinstance(hit, dict):
        return {"id": hit["id"], "score": hit.get("score"), "path": list(hit.get("path", []))}
    return {
        "id": MEMORY + hit.memory.id,
        "score": float(hit.score),
        "path": [TYPE_PREFIX[step.node_type] + step.node for step in hit.path],
    }

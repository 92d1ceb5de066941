"""Graph export: to_networkx's nodes, edges and filters, and a round trip through every format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from rich.console import Console

from graphmem import GraphMemory
from graphmem.cli.demo import run_demo
from graphmem.errors import NotFoundError, ValidationError
from graphmem.export.graph import FORMATS, csv_paths, export, graph_for_viz, to_networkx

EXTRA = [
    {"id": "extra-billing-errors", "tags": ["billing-api"],
     "content": "The Billing API returns errors as JSON with a numeric code field."},
    {"id": "extra-auth-keys", "tags": ["auth"],
     "content": "Maria rotates the Auth service signing keys every 90 days."},
    {"id": "extra-auth-jwt", "tags": ["auth"],
     "content": "The Auth service issues JWTs that expire after 15 minutes."},
    {"id": "extra-limit-rumour", "source": "observed",
     "content": "The Billing API rate limit is 500 requests per minute per key."},
]  # fmt: skip


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory, model_path: str):
    """The demo store plus a few memories: clusters, a contradiction, a derived-from link."""
    path = tmp_path_factory.mktemp("export") / "memory"
    with GraphMemory(path, model_path=model_path) as m:
        run_demo(m, Console(file=io.StringIO()))
        m.remember_many(EXTRA)
        m.rebuild_clusters(min_cluster_size=2)
        m.link("demo-deploy", "demo-retry", "derived_from", reason="runbook")
        m.link("demo-pref", "demo-never", "relates_to", weight=0.25)
        yield m


@pytest.fixture(scope="module")
def graph(mem: GraphMemory) -> nx.MultiDiGraph:
    return to_networkx(mem)


def edge_set(G: nx.Graph, type_key: str = "type") -> dict[tuple[str, str, str], float]:
    """(source, target, type) → weight for any graph a reader returns."""
    return {
        (str(u), str(v), str(d[type_key])): float(d["weight"]) for u, v, d in G.edges(data=True)
    }


# ---------------------------------------------------------------------- to_networkx


def test_nodes_edges_and_attributes(mem: GraphMemory, graph: nx.MultiDiGraph) -> None:
    active = {m.id for m in mem.memories(limit=None)}
    memories = {n[2:] for n, d in graph.nodes(data=True) if d["type"] == "memory"}
    assert memories == active
    assert {n[2:] for n, d in graph.nodes(data=True) if d["type"] == "tag"} == {
        t.name for t in mem.tags()
    }
    assert {n[2:] for n, d in graph.nodes(data=True) if d["type"] == "cluster"} == {
        c.id for c in mem.clusters()
    }
    node = graph.nodes["m:demo-pref"]
    assert node["kind"] == "preference" and node["active"] is True
    assert node["content"].startswith("The user prefers concise answers")
    assert node["created_at"].endswith("+00:00") and "embedding" not in node
    assert node["tags"] == "python; style"
    clustered = [n for n, d in graph.nodes(data=True) if "cluster" in d]
    assert clustered and all(graph.nodes[n]["cluster"] in graph for n in clustered)
    assert graph.nodes["t:auth"]["count"] == len(mem.memories(tag="auth"))
    types = {k for _, _, k in graph.edges(keys=True)}
    assert types == {"HasTag", "InCluster", "RelatesTo", "Contradicts", "DerivedFrom"}
    assert graph.edges["m:demo-pref", "m:demo-never", "RelatesTo"]["weight"] == 0.25
    derived = graph.edges["m:demo-deploy", "m:demo-retry", "DerivedFrom"]
    assert derived["weight"] == 1.0 and derived["reason"] == "runbook"
    in_cluster = [d for _, _, k, d in graph.edges(keys=True, data=True) if k == "InCluster"]
    assert in_cluster and all(d["weight"] == d["probability"] for d in in_cluster)
    contradiction = graph.edges["m:extra-limit-rumour", "m:demo-api-limit-v2", "Contradicts"]
    assert "500" in contradiction["reason"]
    for _, data in graph.nodes(data=True):
        assert all(isinstance(v, str | int | float | bool) for v in data.values()), data
    for _, _, data in graph.edges(data=True):
        assert all(isinstance(v, str | int | float | bool) for v in data.values()), data
        assert isinstance(data["weight"], float)


def test_inactive_only_when_asked(mem: GraphMemory, graph: nx.MultiDiGraph) -> None:
    assert "m:demo-api-limit" not in graph
    full = to_networkx(mem, include_inactive=True)
    assert full.nodes["m:demo-api-limit"]["active"] is False
    assert full.nodes["m:demo-api-limit"]["superseded_by"] == "demo-api-limit-v2"
    assert full.has_edge("m:demo-api-limit-v2", "m:demo-api-limit", "Supersedes")
    assert full.number_of_nodes() == graph.number_of_nodes() + 1


def test_kind_and_tag_filters(mem: GraphMemory) -> None:
    procedures = to_networkx(mem, kinds=["procedure"])
    kinds = {d["kind"] for _, d in procedures.nodes(data=True) if d["type"] == "memory"}
    assert kinds == {"procedure"}
    assert {"m:demo-retry", "m:demo-deploy"} <= set(procedures)
    # Tags come along only when an exported memory carries them.
    assert "t:deploy" in procedures and "t:git" not in procedures and "t:auth" not in procedures
    auth = to_networkx(mem, tags=["#Auth"])
    members = {n for n, d in auth.nodes(data=True) if d["type"] == "memory"}
    assert members == {"m:" + m.id for m in mem.memories(tag="auth")}
    with pytest.raises(ValidationError):
        to_networkx(mem, kinds=["nonsense"])


def test_around_and_depth(mem: GraphMemory, graph: nx.MultiDiGraph) -> None:
    one = to_networkx(mem, around=["demo-pref"], depth=1)
    assert set(one) == {"m:demo-pref", *graph.successors("m:demo-pref"),
                        *graph.predecessors("m:demo-pref")}  # fmt: skip
    assert "m:demo-never" in one  # through the RelatesTo link, whichever way it points
    two = to_networkx(mem, around=["m:demo-pref"], depth=2)
    assert set(one) < set(two)
    expected = set(nx.ego_graph(graph.to_undirected(), "m:demo-pref", radius=2))
    assert set(two) == expected
    zero = to_networkx(mem, around="demo-pref", depth=0)
    assert set(zero) == {"m:demo-pref"} and zero.number_of_edges() == 0
    with pytest.raises(NotFoundError):
        to_networkx(mem, around=["demo-api-limit"])  # inactive, so not exported
    assert "m:demo-api-limit" in to_networkx(mem, around=["demo-api-limit"], include_inactive=True)


def test_embeddings_only_when_asked(mem: GraphMemory, graph: nx.MultiDiGraph) -> None:
    assert not any("embedding" in d for _, d in graph.nodes(data=True))
    with_vectors = to_networkx(mem, embeddings=True)
    vector = [float(x) for x in with_vectors.nodes["m:demo-pref"]["embedding"].split(" ")]
    assert len(vector) == 384
    stored = mem.get("demo-pref", with_embedding=True).embedding
    assert vector == pytest.approx(stored, rel=1e-7, abs=1e-9)


# ---------------------------------------------------------------------- files


def read_back(fmt: str, path: Path) -> tuple[set[str], dict[tuple[str, str, str], float]]:
    """Read an export with networkx (or csv) into node ids and (source, target, type) → weight."""
    if fmt == "graphml":
        G = nx.read_graphml(path, force_multigraph=True)
        return set(G), edge_set(G)
    if fmt == "gexf":
        G = nx.read_gexf(path)
        return set(G), edge_set(G, type_key="label")
    if fmt == "json":
        G = nx.node_link_graph(json.loads(path.read_text(encoding="utf-8")), edges="links")
        return set(G), edge_set(G)
    if fmt == "cytoscape":
        G = nx.cytoscape_graph(json.loads(path.read_text(encoding="utf-8")))
        return set(G), edge_set(G)
    if fmt == "dot":
        G = nx.nx_pydot.read_dot(path)
        return {n.strip('"') for n in G}, {
            (u.strip('"'), v.strip('"'), t.strip('"')): w for (u, v, t), w in edge_set(G).items()
        }
    nodes_path, edges_path = csv_paths(path)
    with nodes_path.open(encoding="utf-8", newline="") as fh:
        nodes = {row["id"] for row in csv.DictReader(fh)}
    with edges_path.open(encoding="utf-8", newline="") as fh:
        edges = {
            (r["source"], r["target"], r["type"]): float(r["weight"]) for r in csv.DictReader(fh)
        }
    return nodes, edges


SUFFIX = {"graphml": ".graphml", "gexf": ".gexf", "json": ".json", "cytoscape": ".cyjs",
          "dot": ".dot", "csv": ".csv"}  # fmt: skip


# pydot's DOT parser uses pyparsing names that pyparsing 3.3 deprecates.
@pytest.mark.filterwarnings("ignore:.*deprecated - use:DeprecationWarning")
@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip(mem: GraphMemory, graph: nx.MultiDiGraph, tmp_path: Path, fmt: str) -> None:
    full = to_networkx(mem, include_inactive=True, embeddings=True)
    path = tmp_path / f"graph{SUFFIX[fmt]}"
    written = mem.export(path, include_inactive=True, embeddings=True)  # format from the suffix
    assert all(p.stat().st_size > 0 for p in written)
    assert len(written) == (2 if fmt == "csv" else 1)
    nodes, edges = read_back(fmt, path)
    assert nodes == set(full)
    assert edges == pytest.approx(edge_set(full))
    assert len(edges) == full.number_of_edges()
    # An explicit format wins over the suffix.
    other = tmp_path / "graph.txt"
    export(graph, other, fmt)
    nodes, edges = read_back(fmt, other)
    assert nodes == set(graph) and edges == pytest.approx(edge_set(graph))


def test_attributes_survive_graphml_and_gexf(graph: nx.MultiDiGraph, tmp_path: Path) -> None:
    export(graph, tmp_path / "g.graphml")
    export(graph, tmp_path / "g.gexf")
    for G in (nx.read_graphml(tmp_path / "g.graphml"), nx.read_gexf(tmp_path / "g.gexf")):
        assert G.nodes["m:demo-pref"]["content"] == graph.nodes["m:demo-pref"]["content"]
        assert G.nodes["m:demo-pref"]["active"] is True
        assert G.nodes["t:auth"]["count"] == graph.nodes["t:auth"]["count"]


def test_bad_format_and_suffix(mem: GraphMemory, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="format"):
        mem.export(tmp_path / "graph.unknown")
    with pytest.raises(ValidationError, match="format"):
        mem.export(tmp_path / "graph.json", format="xlsx")


# ---------------------------------------------------------------------- viz data


def test_graph_for_viz(mem: GraphMemory, graph: nx.MultiDiGraph) -> None:
    hits = mem.recall("who reviews changes to the auth tokens?", limit=5)
    data: dict[str, Any] = graph_for_viz(graph, hits, "who reviews?")
    assert len(data["nodes"]) == graph.number_of_nodes()
    assert len(data["edges"]) == graph.number_of_edges()
    assert {n["id"] for n in data["nodes"]} == set(graph)
    pref = next(n for n in data["nodes"] if n["id"] == "m:demo-pref")
    assert pref["tags"] == ["python", "style"] and pref["meta"]["source"] == "user_stated"
    assert {n["type"] for n in data["nodes"]} == {"memory", "tag", "cluster"}
    assert data["recall"]["context"] == "who reviews?"
    assert [h["id"] for h in data["recall"]["hits"]] == ["m:" + h.memory.id for h in hits]
    for hit in data["recall"]["hits"]:
        assert hit["path"][-1] == hit["id"]
        assert all(p[:2] in ("m:", "t:", "c:") for p in hit["path"])
    json.dumps(data)  # the page embeds it as JSON
    assert graph_for_viz(graph)["recall"] is None


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_xml_parses_with_control_characters(mem: GraphMemory, tmp_path: Path, fmt: str) -> None:
    from xml.etree import ElementTree

    nasty = "Bell \x07, escape \x1b[31m, form feed \x0c and U+FFFE \ufffe in one memory."
    r = mem.remember(nasty, metadata={"note": "vertical tab \x0b here"}, tags=["ctl"])
    (path,) = mem.export(tmp_path / f"g.{fmt}")
    root = ElementTree.parse(path).getroot()  # raises on characters XML 1.0 forbids
    text = ElementTree.tostring(root, encoding="unicode")
    assert "Bell \ufffd, escape \ufffd[31m" in text  # graphml: element text; gexf: attribute
    assert r.id in text


def test_tag_counts_cover_only_exported_memories(mem) -> None:
    kept = mem.remember("Kafka carries the billing events", tags=["kafka"]).id
    gone = mem.remember("Kafka used to run on three brokers", tags=["kafka"]).id
    mem.forget(gone)
    active = mem.to_networkx()
    assert active.nodes["t:kafka"]["count"] == 1 and f"m:{kept}" in active
    everything = mem.to_networkx(include_inactive=True)
    assert everything.nodes["t:kafka"]["count"] == 2

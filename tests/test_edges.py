"""The edge registry and the schema agree: every registered edge type is a relationship table
with the registered target and properties, and every relationship table is registered."""

from __future__ import annotations

from graphmem import Config, GraphMemory
from graphmem.edges import EDGE_TYPES, LINK_TYPES, default_walk_weights
from graphmem.models import LINK_TYPES as MODEL_LINK_TYPES


def test_registry_matches_the_schema(mem: GraphMemory) -> None:
    relationships = {t["name"]: t for t in mem.schema()["relationships"]}
    assert set(relationships) == {e.table for e in EDGE_TYPES}
    for edge in EDGE_TYPES:
        table = relationships[edge.table]
        assert {c["to"] for c in table["connections"]} == {edge.target}
        assert [p["name"] for p in table["properties"]] == list(edge.columns)


def test_everything_reads_the_registry(mem: GraphMemory) -> None:
    assert (
        MODEL_LINK_TYPES
        == LINK_TYPES
        == ("relates_to", "supersedes", "contradicts", "derived_from")
    )
    assert Config().edge_weights == default_walk_weights()
    a = mem.remember("Registry edges are typed once").id
    b = mem.remember("Every module reads the edge registry").id
    for link_type in LINK_TYPES:
        mem.link(a, b, link_type)
    graph = mem.to_networkx(include_inactive=True)
    assert {k for _, _, k in graph.edges(keys=True)} >= {
        "RelatesTo",
        "Supersedes",
        "Contradicts",
        "DerivedFrom",
    }

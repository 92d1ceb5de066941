"""The edge registry and the schema agree: every registered edge type is a relationship table
with the registered target and properties, and every relationship table is registered."""

from __future__ import annotations

import pytest

from graphmem import Config, GraphMemory
from graphmem.edges import EDGE_TYPES, LINK_TYPES, default_walk_weights
from graphmem.models import LINK_TYPES as MODEL_LINK_TYPES

# What is tested is edge bookkeeping, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


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
    assert default_walk_weights().items() <= Config().edge_weights.items()
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


def _edge_count(mem: GraphMemory, table: str) -> int:
    return mem._store.engine.rows(f"MATCH (:Memory)-[r:{table}]->() RETURN count(*) AS n")[0]["n"]


def test_deleting_many_edges_at_once_deletes_and_counts_as_one_at_a_time(
    mem: GraphMemory,
) -> None:
    """delete_edge_sets joins 24 or more edges of a table in one statement: it must work for
    tables without a ``source`` property, keep edges of another source, skip ends that do not
    exist, and count an edge named twice (by its source and by any source) once."""
    ids = [
        r.id
        for r in mem.remember_many(
            [{"content": f"Widget {i} is painted colour {i * 7}", "tags": ["alpha"]}
             for i in range(30)],
            dedupe=False, conflicts="off",
        )
    ]  # fmt: skip
    for other in ids[1:]:
        mem.link(ids[0], other, "derived_from")
    store = mem._store
    derived = [("DerivedFrom", ids[0], other, None) for other in ids[1:]]
    derived += [derived[0], ("DerivedFrom", ids[0], "no-such-memory", None)]
    tagged = [("HasTag", m, "alpha", "user") for m in ids[:-1]]
    tagged += [("HasTag", m, "alpha", None) for m in ids[:3]]  # the same edges again
    tagged += [("HasTag", ids[-1], "alpha", "mention"), ("HasTag", ids[0], "no such tag", None)]
    before = _edge_count(mem, "DerivedFrom") + _edge_count(mem, "HasTag")
    with store.transaction():
        deleted = store.delete_edge_sets(derived + tagged)
    after = _edge_count(mem, "DerivedFrom") + _edge_count(mem, "HasTag")
    assert _edge_count(mem, "DerivedFrom") == 0
    kept = store.engine.rows("MATCH (m:Memory)-[:HasTag]->(:Tag {name: 'alpha'}) RETURN m.id AS id")
    assert [r["id"] for r in kept] == [ids[-1]]  # its edge is a user one, not a mention
    assert deleted == before - after == 29 + 29

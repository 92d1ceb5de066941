"""The mirror's adjacency arrays against a networkx MultiDiGraph keyed by edge type (what the
mirror kept before): the same edges, weights and order after adds, updates, removals and
compactions."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from graphmem.index.mirror import Mirror

KINDS = ("HasTag", "InCluster", "RelatesTo", "Supersedes", "Contradicts")
PREFIX = {"HasTag": "t:", "InCluster": "c:"}


def _reference_sides(g: nx.MultiDiGraph, node: str) -> tuple[list, list]:
    sides = []
    for table in (g._succ, g._pred):
        sides.append(
            [
                (nb, kind, round(attrs["weight"], 9), attrs["via"])
                for nb, keyed in (table[node].items() if node in g else [])
                for kind, attrs in keyed.items()
            ]
        )
    return sides[0], sides[1]


def _sides(mirror: Mirror, node: str) -> tuple[list, list]:
    adj = mirror.adj
    out = []
    for side in mirror._sides(node):
        out.append(
            [
                (key, adj.type_name(row), round(float(adj.weight[row]), 9), adj.vias[adj.via[row]])
                for key, _, row in side
            ]
        )
    return out[0], out[1]


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_keep_the_edges_and_their_order(seed: int) -> None:
    rng = random.Random(seed)
    memories = [f"m{i}" for i in range(30)]
    hubs = {"HasTag": [f"tag{i}" for i in range(8)], "InCluster": ["c1", "c2", "c3"]}
    mirror = Mirror(4)
    g = nx.MultiDiGraph()
    for _ in range(600):
        op = rng.random()
        if op < 0.75:
            kind = rng.choice(KINDS)
            src = rng.choice(memories)
            dst = rng.choice(hubs[kind]) if kind in PREFIX else rng.choice(memories)
            weight, via = rng.choice([None, 0.25, 0.5, 0.9]), rng.choice(["", "user", "title"])
            mirror._add_edge({"type": kind, "src": src, "dst": dst, "weight": weight, "via": via})
            target = PREFIX.get(kind, "m:") + dst
            g.add_edge("m:" + src, target, key=kind, weight=1.0 if weight is None else weight,
                       via=via)  # fmt: skip
        elif op < 0.9:  # every edge of one memory goes (as a refresh or a removal does)
            victim = rng.choice(memories)
            slot = mirror._slot_for(victim)
            mirror.adj.kill(mirror.adj.rows_of_memory(slot))
            node = "m:" + victim
            if node in g:
                g.remove_edges_from(list(g.out_edges(node, keys=True)))
                g.remove_edges_from(list(g.in_edges(node, keys=True)))
        else:
            mirror.adj.compact()
        mirror._members.clear()
    for memory_id in memories:
        node = "m:" + memory_id
        assert _sides(mirror, node) == _reference_sides(g, node)
        assert mirror.tags_of(memory_id) == [n[2:] for n in g.successors(node)
                                             if n.startswith("t:")] if node in g else True  # fmt: skip
    targets = ["m:" + m for m in memories] + [PREFIX[k] + n for k, ns in hubs.items() for n in ns]
    for memory_id in memories:
        for target in targets:
            assert mirror.has_edge(memory_id, target) == g.has_edge("m:" + memory_id, target)
    for kind, names in hubs.items():
        for name in names:
            key = PREFIX[kind] + name
            expected = list(g._pred[key]) if key in g else []
            assert ["m:" + mirror.ids[s] for s in mirror.members(key).tolist()] == expected
            assert mirror.member_count(key) == len(expected)
            assert mirror.has_node(key) == bool(expected)
    edges = sorted((u, v, k, round(d["weight"], 9), d["via"]) for u, v, k, d in
                   g.edges(keys=True, data=True))  # fmt: skip
    assert sorted((u, v, k, round(w, 9), via) for u, v, k, w, via in mirror.edges()) == edges

"""Best-first walks over the mirror's graph: the cascade's expansion step.

A walk carries its start's score along edges; each hop multiplies by the edge weight and the
per-hop decay. Entering a tag or cluster divides by the square root of how many other memories
it holds (hubs pass on little); leaving it costs nothing more, and only the ``max_fanout``
members most similar to the context are followed. An entity's home (the memory titled with it)
is the exception: a mention leads there at ``home_weight`` with no hub penalty, like a link.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..keys import MEMORY

if TYPE_CHECKING:
    from ..config import Config
    from ..index.mirror import Mirror


@dataclass
class Step:
    node: str  # graph node key: "m:<id>", "t:<name>", "c:<id>"
    edge: str | None
    via: str | None
    score: float


Tree = dict[str, tuple[float, str | None, str | None, int]]
# (neighbour node, edge type, factor the score is multiplied by, its slot or -1)
Edge = tuple[str, str, float, int]


def walk(
    start: Step,
    depth: int,
    decay: float,
    edges: Callable[[str], list[Edge]],
    min_score: float,
) -> Tree:
    """Best-first walk from one start, at most ``depth`` edges, dropping scores below
    ``min_score`` (they could no longer move a result).

    Returns node -> (score, parent, edge, slot or -1 for a tag or cluster).

    Parents instead of paths: most nodes reached never make the results, so their paths are
    only built for the few that do (``path``).
    """
    tree: Tree = {start.node: (start.score, None, None, -1)}
    heap = [(-start.score, 0, start.node, 0)]
    counter = 1
    expanded: set[str] = set()
    while heap:
        neg, _, node, hops = heapq.heappop(heap)
        if node in expanded or hops >= depth:
            continue
        score = -neg
        # A memory's edges weigh at most 1 × decay: below this nothing it reaches could matter.
        # (A tag's edge to its home can weigh more; its other edges are cut when pushed.)
        if node[0] == "m" and score * decay < min_score:
            continue
        expanded.add(node)
        for nb, edge, factor, slot in edges(node):
            new = score * factor
            if new < min_score:
                continue
            current = tree.get(nb)
            if current is not None and current[0] >= new:
                continue
            tree[nb] = (new, node, edge, slot)
            if hops + 1 < depth:  # the last hop's nodes are leaves: never expanded
                heapq.heappush(heap, (-new, counter, nb, hops + 1))
                counter += 1
    return tree


def path(tree: Tree, node: str, start: Step) -> list[Step]:
    """The path from the walk's start to ``node``, following parents."""
    steps: list[Step] = []
    seen: set[str] = set()
    current: str | None = node
    while current is not None and current != start.node and current not in seen:
        seen.add(current)
        score, parent, edge, _ = tree[current]
        steps.append(Step(current, edge, None, score))
        current = parent
    steps.append(start)
    steps.reverse()
    return steps


def edges_of(
    node: str,
    mirror: Mirror,
    sims: np.ndarray,
    config: Config,
    walk_mask: np.ndarray,
    match: np.ndarray,
    stand_in: bool = True,
) -> list[Edge]:
    """The edges a walk may take from one node, fan-out bounded. ``match`` is each memory's
    relevance to the context (its fused score); ``stand_in`` lets the best matching members of
    a tag with no home stand in for it (not for a tag the context names: its members' match
    is already counted)."""
    max_fanout, decay = config.max_fanout, config.decay
    if node[0] == "m":
        out: list[Edge] = []
        for nb, edge, raw, slot in mirror.neighbours(node):
            if slot >= 0 and not walk_mask[slot]:
                continue
            w = raw if edge == "RelatesTo" else raw * config.edge_weight(edge)
            out.append((nb, edge, w * decay, slot))
        if len(out) > max_fanout:
            out.sort(key=lambda e: -e[2])
            out = out[:max_fanout]
        return out
    # a tag or cluster: follow the members most similar to the context
    edge = "HasTag" if node[0] == "t" else "InCluster"
    # Entering a tag or cluster already paid the edge weight, the hub penalty and the hop's
    # decay; leaving it to a member is the same hop, so it costs nothing more.
    slots = mirror.members(node)
    slots = slots[walk_mask[slots]]
    if len(slots) > max_fanout:
        slots = slots[np.argpartition(-sims[slots], max_fanout - 1)[:max_fanout]]
    ids = mirror.ids
    out = [(MEMORY + ids[slot], edge, 1.0, slot) for slot in slots.tolist()]
    # The entity's home (the memory titled with it) is where a mention points, like a link:
    # reaching it through the tag takes back the hub penalty paid on the way in and trades
    # the HasTag weight for the home weight.
    homes = mirror.homes(node) if edge == "HasTag" else ()
    if stand_in and not homes and edge == "HasTag" and len(slots) > 1 and config.stand_in_homes:
        # Short facts have no titles: the members that best match the context stand in for the
        # home (the question's other words pick among the entity's memories).
        top = slots[np.argsort(-match[slots], kind="stable")[: config.stand_in_homes]]
        homes = tuple(MEMORY + ids[slot] for slot in top.tolist())
    if homes:
        undo = math.sqrt(mirror.others(node)) * config.home_weight
        undo /= config.edge_weight("HasTag") or 1.0
        reachable = [(h, mirror.slot[h[2:]]) for h in homes]
        out = [e for e in out if e[0] not in homes] + [
            (h, edge, undo, slot) for h, slot in reachable if walk_mask[slot]
        ]
    return out

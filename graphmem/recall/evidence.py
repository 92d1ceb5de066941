"""What recall found for each memory before the final order: ``Fused`` (its base relevance,
which ranking found it, how much its conversation is about the context) and ``Walks`` (the
best walk or chain into it, and the path ``explain()`` shows).

``cascade`` fills them; ``ordering`` ranks from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..index.mirror import Mirror
from ..keys import mnode
from .walk import Step, Tree, path


@dataclass
class Fused:
    """Base relevance of every slot and which ranking found it."""

    base: np.ndarray
    via: dict[int, str]
    # Conversations ranked by how much they are about the context (``_sessions_ranked``), for
    # ``by_session``: session → rank from 1.
    sessions: dict[str, int] = field(default_factory=dict)


@dataclass
class Walks:
    """Every walk's tree and, for each memory, the best walk into it."""

    mirror: Mirror
    seeds: dict[int, tuple[float, str]]
    fused: Fused
    trees: list[Tree] = field(default_factory=list)
    starts: list[Step] = field(default_factory=list)
    walked_by: dict[int, int] = field(default_factory=dict)
    supported_by: dict[int, int] = field(default_factory=dict)
    chains: set[int] = field(default_factory=set)  # which walks are chains (``add_scored``)

    def __post_init__(self) -> None:
        n = self.mirror.size
        self.walked = np.zeros(n, dtype=np.float64)
        self.support = np.zeros(n, dtype=np.float64)
        self.is_seed = np.zeros(n, dtype=bool)
        self.is_seed[list(self.seeds)] = True

    def add(self, tree: Tree, start: Step) -> None:
        self.trees.append(tree)
        self.starts.append(start)
        index = len(self.trees) - 1
        for reached, (walk_score, _, _, slot) in tree.items():
            if slot >= 0 and reached != start.node:
                self._offer(index, slot, walk_score)

    def add_scored(
        self, tree: Tree, start: Step, scored: dict[int, float], explains: bool = True
    ) -> None:
        """A walk whose memories' scores were weighed already (a chain): slot → score.
        ``explains``: its path explains a seed it lifts (a chain of one fact does not: the
        seed's own match says more)."""
        self.trees.append(tree)
        self.starts.append(start)
        index = len(self.trees) - 1
        if explains:
            self.chains.add(index)
        for slot, score in scored.items():
            self._offer(index, slot, score)

    def _offer(self, index: int, slot: int, score: float) -> None:
        """Walk ``index`` reached ``slot`` with ``score``: keep it if it is the best so far.

        Seeds keep their own path; a seed reached from elsewhere is supported by it."""
        if self.is_seed[slot]:
            if score > self.support[slot]:
                self.support[slot] = score
                self.supported_by[slot] = index
        elif score > self.walked[slot]:
            self.walked[slot] = score
            self.walked_by[slot] = index

    def scores(self) -> np.ndarray:
        """The walk score of every slot: support for seeds, the best walk into the rest."""
        return np.where(self.is_seed, self.support, self.walked)

    def path_to(self, slot: int) -> list[Step]:
        node = mnode(self.mirror.ids[slot])
        index = self.walked_by.get(slot)
        if index is None and 2 * self.support[slot] >= self.fused.base[slot] > 0:
            # A seed another memory lifted more than halfway: the chain explains its place.
            index = self.supported_by.get(slot)
            if index is not None and self.starts[index].node[0] != "m" and index not in self.chains:
                index = None
        if index is None:
            if slot in self.seeds:
                score, how = self.seeds[slot]
                return [Step(node, None, how, score)]
            base = self.fused.base
            return [Step(node, None, self.fused.via.get(slot), float(base[slot]))]
        return path(self.trees[index], node, self.starts[index])

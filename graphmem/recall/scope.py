"""What every recall stage reads and returns: the scope of a recall (which memories may be
returned, walked through or seeded, and each one's similarity to the context), its
parameters and a found memory. Apart from the cascade so the chains can read it too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .walk import Step

if TYPE_CHECKING:
    from ..index.mirror import Mirror

# Similarity of a memory not yet compared with the context (big stores fill it on demand).
FAR = -1.0


@dataclass
class Found:
    slot: int
    score: float
    path: list[Step]
    flags: list[str] = field(default_factory=list)
    contradicts: list[str] = field(default_factory=list)


@dataclass
class RecallParams:
    limit: int = 10
    depth: int = 2
    seeds: int = 10
    seed_ids: tuple[str, ...] = ()
    threshold: float = 0.4
    session_id: str | None = None
    include_history: bool = False


@dataclass
class Scope:
    """What every stage reads: which slots may be returned, walked through or seeded, and the
    cosine similarity of every slot to the context."""

    result_mask: np.ndarray
    walk_mask: np.ndarray
    seed_mask: np.ndarray
    sims: np.ndarray
    # A big store (``SPARSE_MIN``): ``sims`` is exact near the context only; ``fill`` makes it
    # exact for the memories a stage is about to look at.
    query: np.ndarray | None = None
    mirror: Mirror | None = None
    near: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def fill(self, slots: np.ndarray, also: np.ndarray | None = None) -> None:
        """Exact similarities for these slots (and the same added to ``also``, an array of
        the form x + 0.01 × sims)."""
        if self.query is None or self.mirror is None or len(slots) == 0:
            return
        todo = slots[self.sims[slots] == FAR]
        if len(todo) == 0:
            return
        exact = self.mirror.vectors[todo] @ self.query.astype(np.float32)
        if also is not None:
            also[todo] += 0.01 * (exact - FAR)
        self.sims[todo] = exact

"""Cascade recall: hybrid seeds, then best-first walks over the typed edges.

Pure ranking over the in-process mirror; no database access. The façade loads the memories.

Scoring, in one place:
- base(m): reciprocal rank fusion of the dense ranking (cosine ≥ threshold) and the BM25
  ranking (weighted ``lexical_weight``), normalised so first place in both lists is 1.0.
- Seeds: the best fused memories, negative memories whose triggers match, ids the caller gave.
  Entities the context names (known entity tags) start walks too, at ``entity_weight``,
  weaker for names many memories carry.
- Walks (``walk.py``) carry each start's score along the typed edges, at most ``depth`` edges
  from a seed memory; an entity walk starts one edge earlier, at its tag, and gets that edge on
  top.
- final(m) = (base(m) + walk_weight × best walk score into m) × lifecycle factor (effective
  confidence, recency of access, current-session boost). A seed's walk score is the best
  support it gets from the other seeds.
- Diversity: going down the ranking, a result that closely resembles one above it (cosine over
  0.5) loses ``diversity`` × the excess, so near-copies do not crowd out other evidence.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .lifecycle import LIFECYCLE_MAX, LIFECYCLE_MIN, SESSION_BOOST, lifecycle_factor
from .mirror import Filters, Mirror, best
from .walk import Edge, Step, Tree, edges_of, path, walk

if TYPE_CHECKING:
    from .config import Config

PRIORITY_KINDS = ("negative", "correction")
ENTITY_SPECIFICITY = 0.25


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


@lru_cache(maxsize=4096)
def _trigger_pattern(trigger: str) -> re.Pattern[str]:
    pattern = re.escape(trigger.lower())
    if trigger[:1].isalnum():
        pattern = r"\b" + pattern
    if trigger[-1:].isalnum():
        pattern += r"\b"
    return re.compile(pattern)


def _ranks(scores: np.ndarray, mask: np.ndarray, n: int) -> list[tuple[int, float]]:
    return best(scores, mask & (scores > -np.inf), n)


def cascade(
    mirror: Mirror,
    config: Config,
    query_vec: np.ndarray,
    context: str,
    filters: Filters,
    params: RecallParams,
    now_epoch: float | None = None,
) -> tuple[list[Found], np.ndarray, float]:
    """Rank memories for the context.

    Returns the results, the cosine similarity of every slot, and the best similarity among
    the memories the filters allow (how well the store knows the context at all).
    """
    n = mirror.size
    if n == 0:
        return [], np.zeros(0, dtype=np.float32), 0.0
    now_epoch = time.time() if now_epoch is None else now_epoch
    result_mask = mirror.mask(filters)
    # The walk may pass through memories the filters exclude from the results (another kind,
    # a tag not asked for). Seeds may also be superseded memories: they hand over to their
    # successors (an old phrasing still finds the new fact).
    walk_filters = Filters(
        scope=filters.scope, project=filters.project, include_inactive=filters.include_inactive,
        at=filters.at,
    )  # fmt: skip
    walk_mask = mirror.mask(walk_filters)
    seed_mask = walk_mask
    if filters.at is None and not filters.include_inactive:
        seed_mask = walk_mask | (mirror.superseded[:n] & mirror.alive[:n])
    sims = mirror.similarities(query_vec)
    best_sim = float(np.max(np.where(result_mask, sims, -np.inf))) if result_mask.any() else 0.0

    # ---- base relevance: RRF over dense and lexical rankings
    pool = max(100, 10 * params.limit)
    k = config.rrf_k
    lexical_weight = config.lexical_weight
    norm = (1.0 + lexical_weight) / (k + 1)
    base = np.zeros(n, dtype=np.float64)
    dense = [s for s, v in _ranks(sims, seed_mask, pool) if v >= params.threshold]
    lex_scores = mirror.lexical.scores(context, n)
    lexical = [s for s, v in _ranks(lex_scores, seed_mask, pool) if v > 0]
    base[dense] += 1.0 / (k + np.arange(1, len(dense) + 1)) / norm
    base[lexical] += lexical_weight / (k + np.arange(1, len(lexical) + 1)) / norm
    via = dict.fromkeys(dense, "vector")
    for slot in lexical:
        via[slot] = "vector+lexical" if slot in via else "lexical"

    # ---- seeds: the best fused memories, triggered negatives, and ids the caller gave
    fused = np.flatnonzero(base > 0)
    order = fused[np.argsort(-base[fused], kind="stable")[: params.seeds]].tolist()
    seeds: dict[int, tuple[float, str]] = {s: (float(base[s]), via[s]) for s in order}
    lowered = context.lower()
    flags: dict[int, list[str]] = {}
    for slot, triggers in mirror.triggers.items():
        # Most triggers are nowhere in the context: a substring test rules them out first.
        matched = [t for t in triggers if t in lowered]
        if not matched or slot >= n or not walk_mask[slot] or mirror.kind[slot] != "negative":
            continue
        if any(_trigger_pattern(t).search(lowered) for t in matched):
            seeds[slot] = (max(1.0, float(base[slot])), "trigger")
            base[slot] = max(base[slot], 1.0)
            flags.setdefault(slot, []).append("trigger")
    for memory_id in params.seed_ids:
        slot = mirror.slot.get(memory_id, -1)
        if slot >= 0 and mirror.alive[slot]:
            seeds[slot] = (1.0, "given")
            base[slot] = max(base[slot], 1.0)

    # ---- a best-first walk from each seed
    edge_cache: dict[str, list[Edge]] = {}

    def edges(node: str) -> list[Edge]:
        cached = edge_cache.get(node)
        if cached is None:
            cached = edges_of(node, mirror, sims, config, walk_mask)
            edge_cache[node] = cached
        return cached

    starts = [
        Step("m:" + mirror.ids[slot], None, how, score) for slot, (score, how) in seeds.items()
    ]
    # Entities the context names (as known tags) start walks too: "the author of Aschenbrödel"
    # reaches the passages about Aschenbrödel through its tag. The start pays the tag's hub
    # penalty (its home takes it back), and a name many memories carry says less about any one
    # of them, like a common word: (other members)^-ENTITY_SPECIFICITY on top.
    if config.entity_weight > 0 and params.depth > 0:
        for name in sorted(mirror.entities.find(context)):
            tag = "t:" + name
            if tag in mirror.graph:
                score = config.entity_weight / mirror.others(tag) ** (0.5 + ENTITY_SPECIFICITY)
                starts.append(Step(tag, None, "entity", score))

    # Each walk's tree (see walk.Tree); for each memory the best walk into it.
    trees: list[Tree] = []
    walked = np.zeros(n, dtype=np.float64)
    walked_by: dict[int, int] = {}
    support = np.zeros(n, dtype=np.float64)
    is_seed = np.zeros(n, dtype=bool)
    is_seed[list(seeds)] = True
    for start in starts:
        # An entity walk starts at a tag, one edge before any memory: it gets that edge free.
        depth = params.depth + (start.via == "entity")
        tree = walk(start, depth, config.decay, edges)
        trees.append(tree)
        index = len(trees) - 1
        for reached, (walk_score, _, _, slot) in tree.items():
            if slot < 0 or reached == start.node:
                continue
            if is_seed[slot]:
                # Seeds keep their own path; a seed reached from elsewhere is supported by it.
                if walk_score > support[slot]:
                    support[slot] = walk_score
            elif walk_score > walked[slot]:
                walked[slot] = walk_score
                walked_by[slot] = index

    # ---- final scores: every fused or walked memory is a candidate, seeds or not
    # Seeds that other seeds reach rise together: they support each other.
    final = base + config.walk_weight * np.where(is_seed, support, walked)
    candidates = final > 0

    def path_to(slot: int) -> list[Step]:
        index = walked_by.get(slot)
        if index is None:
            if slot in seeds:
                return [Step("m:" + mirror.ids[slot], None, seeds[slot][1], seeds[slot][0])]
            return [Step("m:" + mirror.ids[slot], None, via.get(slot), float(base[slot]))]
        return path(trees[index], "m:" + mirror.ids[slot], starts[index])

    found: dict[int, Found] = {}
    # superseded memories give way to their successors
    if filters.at is None and not params.include_history:
        stale = np.flatnonzero(candidates & mirror.superseded[:n] & ~result_mask)
        for slot in stale.tolist():
            successor = _successor(mirror, slot)
            candidates[slot] = False
            if successor is None:
                continue
            score = float(final[slot]) * config.edge_weights.get("Supersedes", 0.9)
            if successor in found and found[successor].score >= score:
                continue
            if successor not in found and candidates[successor] and final[successor] >= score:
                continue
            step = Step("m:" + mirror.ids[successor], "Supersedes", None, score)
            found[successor] = Found(successor, score, [*path_to(slot), step], ["successor"])
            final[successor] = score
            candidates[successor] = False
    eligible_mask = result_mask.copy()
    if params.include_history:
        eligible_mask |= mirror.superseded[:n]
    pool_slots = np.flatnonzero(candidates & eligible_mask)
    extra = [s for s in found if result_mask[s]]
    slots = np.concatenate([pool_slots, np.array(extra, dtype=np.int64)]).astype(np.int64)
    if len(slots) == 0:
        return [], sims, best_sim
    scores = final[slots]
    # Lifecycle factors lie within [LIFECYCLE_MIN, LIFECYCLE_MAX]: only candidates that could
    # still reach the top need them.
    cut = max(params.limit * 3, 30)
    if len(slots) > cut:
        kth = np.partition(-scores, cut - 1)[cut - 1]
        keep = scores >= -kth * LIFECYCLE_MIN / LIFECYCLE_MAX
        slots, scores = slots[keep], scores[keep]
    scores = scores * lifecycle_factor(mirror, slots, now_epoch)
    in_session = np.zeros(len(slots), dtype=bool)
    if params.session_id is not None:
        in_session = mirror.session[slots] == params.session_id
        scores = np.where(in_session, scores * SESSION_BOOST, scores)
    # Paths are built only for what is returned: the best ``cut`` (a budget may reach past
    # ``limit``, never past ``cut``).
    ids = mirror.ids
    ranked = sorted(
        zip(slots.tolist(), scores.tolist(), in_session.tolist(), strict=True),
        key=lambda r: (-r[1], ids[r[0]]),
    )[:cut]
    out = []
    for slot, score, boosted in ranked:
        item = found.get(slot)
        if item is None:
            item = Found(slot, score, path_to(slot), list(flags.get(slot, [])))
            if params.include_history and slot in mirror.superseded_by:
                item.flags.append("superseded")
        else:
            item.score = score
        if boosted:
            item.flags.append("session")
        out.append(item)
    if config.diversity > 0:
        _diversify(out, mirror, config.diversity, params.limit)
    return out, sims, best_sim


# Results closer than this (cosine) to one ranked above them count as partly redundant.
REDUNDANT_ABOVE = 0.5


def _diversify(found: list[Found], mirror: Mirror, weight: float, picks: int) -> None:
    """Reorder in place: each next result is the best after a penalty for resembling those above.

    score' = score − weight × max(0, max cosine to a result above − REDUNDANT_ABOVE), chosen
    greedily for the first ``picks`` places; the rest follow by their penalised scores. Greedy
    selection only lowers values, so the new scores are still in order. Scores stop at 0 (the
    order is decided before that), so ``explain`` never shows a negative score.
    """
    if len(found) < 2:
        return
    vecs = mirror.vectors[[f.slot for f in found]]
    closeness = vecs @ vecs.T
    scores = np.array([f.score for f in found])
    redundancy = np.zeros(len(found))
    left = np.ones(len(found), dtype=bool)
    order = []
    for _ in range(min(picks, len(found))):
        value = np.where(
            left, scores - weight * np.maximum(redundancy - REDUNDANT_ABOVE, 0), -np.inf
        )
        pick = int(np.argmax(value))
        found[pick].score = max(float(value[pick]), 0.0)  # a penalty never makes a score negative
        order.append(found[pick])
        left[pick] = False
        np.maximum(redundancy, closeness[pick], out=redundancy)
    value = scores - weight * np.maximum(redundancy - REDUNDANT_ABOVE, 0)
    rest = sorted(np.flatnonzero(left).tolist(), key=lambda i: -value[i])
    for i in rest:
        found[i].score = max(float(value[i]), 0.0)
        order.append(found[i])
    found[:] = order


def _successor(mirror: Mirror, slot: int) -> int | None:
    seen = set()
    while slot in mirror.superseded_by and slot not in seen:
        seen.add(slot)
        nxt = mirror.slot.get(mirror.superseded_by[slot])
        if nxt is None or not mirror.alive[nxt]:
            return None
        slot = nxt
    return slot if mirror.active[slot] else None


def token_estimate(text: str) -> int:
    """A cheap token count for budgets (about four characters a token)."""
    return max(1, math.ceil(len(text) / 4)) + 4


def fit_budget(items: list[Found], mirror: Mirror, budget: int) -> list[Found]:
    """Keep what fits in ``budget`` tokens: pinned, negative and corrections first, then by score."""

    def priority(f: Found) -> tuple[int, float]:
        urgent = bool(mirror.pinned[f.slot]) or mirror.kind[f.slot] in PRIORITY_KINDS
        return (0 if urgent else 1, -f.score)

    kept, used = [], 0
    for item in sorted(items, key=priority):
        cost = token_estimate(mirror.content.get(item.slot, ""))
        if used + cost > budget:
            continue
        kept.append(item)
        used += cost
    kept.sort(key=lambda f: -f.score)
    return kept


def with_contradictions(mirror: Mirror, found: list[Found]) -> list[Found]:
    """Contradicted memories come back together, flagged, right after the one recalled."""
    out: list[Found] = []
    placed = {f.slot for f in found}
    for f in found:
        out.append(f)
        node = "m:" + mirror.ids[f.slot]
        others = []
        for nb, keyed in list(mirror.graph._succ[node].items()) + list(
            mirror.graph._pred[node].items()
        ):
            if "Contradicts" in keyed:
                slot = mirror.slot.get(nb[2:])
                if slot is not None and mirror.active[slot]:
                    others.append(slot)
        if not others:
            continue
        if "contradicted" not in f.flags:
            f.flags.append("contradicted")
        f.contradicts = [mirror.ids[s] for s in others]
        for slot in others:
            if slot in placed:
                continue
            placed.add(slot)
            score = f.score * 0.99
            step = Step("m:" + mirror.ids[slot], "Contradicts", None, score)
            out.append(Found(slot, score, [*f.path, step], ["contradicted"], [mirror.ids[f.slot]]))
    return out

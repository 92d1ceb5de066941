"""Cascade recall: hybrid seeds, then best-first walks over the typed edges.

Pure ranking over the in-process mirror; no database access. The façade loads the memories.
The pipeline, one function per stage (every weight is a field of ``Config``):

1. ``fuse``: base(m) is reciprocal rank fusion of the dense ranking (cosine ≥ threshold) and the
   BM25 ranking (weighted ``lexical_weight``; only matches scoring ``lexical_floor`` × the
   best or more), normalised so first place in both lists is 1.0.
2. ``seed``: the best fused memories, negative memories whose triggers match, ids the caller
   gave.
3. ``walk_all``: walks (``walk.py``) carry each start's score along the typed edges, at most
   ``depth`` edges from a seed memory. Entities the context names (known entity tags) start
   walks too, at ``entity_weight``, weaker for names many memories carry; an entity walk starts
   one edge earlier, at its tag, and gets that edge on top. Chains of short facts from the
   entities named (``chains.py``) are a ranking of their own, fused in by rank
   (``chain_weight``): they pick among an entity's memories by the question's other words.
4. ``hand_over``: superseded memories give way to their successors.
5. ``rank``: final(m) = (base(m) + walk_weight × best walk score into m) × lifecycle factor
   (effective confidence, recency of access, ``session_boost``), × ``asking_weight`` for a
   memory that ends in a question. A seed's walk score is the best support it gets from the
   other seeds.
6. ``diversify``: going down the ranking, a result that closely resembles one above it (cosine
   over ``redundant_above``) loses ``diversity`` × the excess, so near-copies do not crowd out
   other evidence.
7. ``by_session``: in a store of conversations, the turns' order is fused by rank with a
   ranking of sessions (by the mean similarity of their ``session_top`` best turns, at
   ``session_weight``), so the walk's favourite conversations do not push out the others.
"""

from __future__ import annotations

import re
import time
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..index.mirror import Filters, Mirror, best
from ..keys import TAG, mnode
from .chains import (
    Phrase,
    chain,
    chain_names,
    chain_ranking,
    chain_tree,
    chainable,
    not_the_kind,
    relation_for,
)
from .evidence import Fused, Walks
from .ordering import by_session, diversify, hand_over, rank
from .scope import FAR, Found, RecallParams, Scope
from .walk import Edge, Step, edges_of, walk

if TYPE_CHECKING:
    from ..config import Config

# From this many memories on, recall does not compare the context with every memory (an exact
# scan of 1M vectors takes about 100 ms on one core): the approximate index gives the ``NEAR``
# most similar ones, and only those, the members of the tags a walk opens (up to
# ``FILL_MAX`` of them) and the results get an exact cosine; the rest count as unrelated
# (``FAR``). Below, every similarity is exact, as before. Bounds on the work of one recall at
# scale, not settings: below SPARSE_MIN (every benchmark) they change nothing.
SPARSE_MIN = 200_000
NEAR = 1000
FILL_MAX = 4096


@lru_cache(maxsize=4096)
def trigger_pattern(trigger: str) -> re.Pattern[str]:
    pattern = re.escape(trigger.lower())
    if trigger[:1].isalnum():
        pattern = r"\b" + pattern
    if trigger[-1:].isalnum():
        pattern += r"\b"
    return re.compile(pattern)


def _ranks(scores: np.ndarray, mask: np.ndarray, n: int) -> list[tuple[int, float]]:
    return best(scores, mask & (scores > -np.inf), n)


def _ranks_among(
    scores: np.ndarray, slots: np.ndarray, mask: np.ndarray, n: int
) -> list[tuple[int, float]]:
    """``_ranks`` over a few slots: the others are known not to make the list."""
    slots = slots[mask[slots]]
    found = best(scores[slots], scores[slots] > -np.inf, n)
    return [(int(slots[i]), v) for i, v in found]


def cascade(
    mirror: Mirror,
    config: Config,
    query_vec: np.ndarray,
    context: str,
    filters: Filters,
    params: RecallParams,
    now_epoch: float | None = None,
    rest_vec: np.ndarray | None = None,
    onward_vecs: tuple[np.ndarray, ...] = (),
    relation_context: str | None = None,
) -> tuple[list[Found], np.ndarray, float]:
    """Rank memories for the context. ``rest_vec``: the embedding of the context's relation
    words (``relation_text``), which chains judge facts by; ``onward_vecs`` those of the words
    beyond the first relations (``onward_texts``), which they judge later facts by;
    ``relation_context``: the context those were read from (``question.scene_read_in``; the
    context itself where None), which chains read the relation words from too.

    Returns the results, the cosine similarity of every slot, and the best similarity among
    the memories the filters allow (how well the store knows the context at all).
    """
    if mirror.size == 0:
        return [], np.zeros(0, dtype=np.float32), 0.0
    now_epoch = time.time() if now_epoch is None else now_epoch
    scope = _scope(mirror, filters, query_vec)
    sims, result_mask = scope.sims, scope.result_mask
    if scope.query is not None:
        near = mirror.top_k(query_vec, result_mask, 1)
        best_sim = near[0][1] if near else 0.0
    else:
        best_sim = float(np.max(np.where(result_mask, sims, -np.inf))) if result_mask.any() else 0.0
    fused = fuse(mirror, config, scope, context, params)
    seeds, flags = seed(mirror, scope, fused, context, params)

    def similar(vec: np.ndarray) -> np.ndarray:
        return (mirror.similarities(vec) if scope.query is None
                else _near(mirror, vec, scope.walk_mask))  # fmt: skip

    rest = None if rest_vec is None else Phrase(rest_vec, similar)
    onward = [Phrase(v, similar) for v in onward_vecs]
    walks = walk_all(
        mirror, config, scope, fused, seeds, context, params, rest, onward, relation_context
    )
    # Every fused or walked memory is a candidate, seeds or not; seeds that other seeds reach
    # rise together: they support each other.
    final = fused.base + config.walk_weight * walks.scores()
    found, candidates = hand_over(mirror, config, scope, final, walks, filters, params)
    out = rank(mirror, config, scope, final, candidates, found, walks, flags, params, now_epoch)
    if config.diversity > 0:
        diversify(out, mirror, config, params.limit)
    if config.session_weight > 0:
        by_session(out, mirror, config, fused.sessions)
    if scope.query is not None:
        scope.fill(np.array([f.slot for f in out], dtype=np.int64))
    return out, sims, best_sim


def _near(mirror: Mirror, query: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Similarities in a big store: exact for the ``NEAR`` most similar memories under the
    mask (from the approximate index), ``FAR`` for the rest."""
    sims = np.full(mirror.size, FAR, dtype=np.float32)
    allowed = int(mask.sum())
    index = mirror.ann_for(allowed)
    if index is not None:
        values, slots = index.search(query.reshape(1, -1), mask, NEAR)
        got = slots[0] >= 0
        if got.sum() >= min(NEAR, allowed):
            sims[slots[0][got]] = values[0][got]
            return sims
    near = mirror.top_k(query, mask, NEAR)  # a narrow filter: an exact scan of what it allows
    if near:
        found, scores = zip(*near, strict=True)
        sims[list(found)] = scores
    return sims


def _scope(mirror: Mirror, filters: Filters, query_vec: np.ndarray) -> Scope:
    n = mirror.size
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
    if n < SPARSE_MIN:
        return Scope(result_mask, walk_mask, seed_mask, mirror.similarities(query_vec))
    sims = _near(mirror, query_vec, seed_mask)
    near = np.flatnonzero(sims != FAR)
    return Scope(result_mask, walk_mask, seed_mask, sims, query_vec, mirror, near)


def fuse(mirror: Mirror, config: Config, scope: Scope, context: str, params: RecallParams) -> Fused:
    """Base relevance: reciprocal rank fusion over the dense and lexical rankings."""
    n = mirror.size
    pool = max(100, 10 * params.limit)
    k = config.rrf_k
    lexical_weight = config.lexical_weight
    norm = (1.0 + lexical_weight) / (k + 1)
    base = np.zeros(n, dtype=np.float64)
    lex_scores = mirror.lexical.scores(context, n)
    ranked: list[tuple[int, float]]
    if scope.query is None:
        ranked = _ranks(scope.sims, scope.seed_mask, pool)
        lexical = _strong(_ranks(lex_scores, scope.seed_mask, pool), config.lexical_floor)
    else:
        # A big store: rank only what can be ranked (the near ones, the lexical matches),
        # not a million slots.
        ranked = _ranks_among(scope.sims, scope.near, scope.seed_mask, pool)
        lexical = _strong(_ranks_among(lex_scores, np.flatnonzero(lex_scores), scope.seed_mask,
                                       pool), config.lexical_floor)  # fmt: skip
    dense = [s for s, v in ranked if v >= params.threshold]
    base[dense] += 1.0 / (k + np.arange(1, len(dense) + 1)) / norm
    base[lexical] += lexical_weight / (k + np.arange(1, len(lexical) + 1)) / norm
    # How much each conversation is about the context (``by_session``): over the memories
    # current under the filters, so a turn and the old version it superseded (both seeds) do
    # not count as two turns of their session.
    current = [(s, v) for s, v in ranked if scope.walk_mask[s]]
    sessions = _sessions_ranked(mirror, current, config.session_top)
    via = dict.fromkeys(dense, "vector")
    for slot in lexical:
        via[slot] = "vector+lexical" if slot in via else "lexical"
    return Fused(base, via, sessions)


def _sessions_ranked(mirror: Mirror, ranked: list[tuple[int, float]], top: int) -> dict[str, int]:
    """Sessions ranked by how much they are about the context: the mean similarity of their
    ``top`` best candidates of the dense ranking, below the seed threshold too (``ranked``:
    slot and similarity, best first). A session
    with fewer candidates counts the weakest candidate's similarity for each missing one (its
    other memories are no closer). A session with one candidate says no more than that
    memory, so only sessions with several are ranked: session → rank from 1."""
    sims: dict[str, list[float]] = {}
    for slot, sim in ranked:
        name = mirror.session[slot]
        if name:
            sims.setdefault(name, []).append(sim)
    if not sims:
        return {}
    floor = ranked[-1][1]
    value = {
        name: (sum(got[:top]) + floor * max(0, top - len(got))) / top
        for name, got in sims.items()
        if len(got) > 1
    }
    # Ties keep search's order (dicts keep insertion order; the sort is stable).
    order = sorted(value, key=lambda name: -value[name])
    return {name: rank for rank, name in enumerate(order, start=1)}


def _strong(ranked: list[tuple[int, float]], floor: float) -> list[int]:
    """The lexical matches scoring at least ``floor`` × the best one (``ranked`` is best first)."""
    if not ranked:
        return []
    least = max(floor * ranked[0][1], 0.0)
    return [s for s, v in ranked if v > 0 and v >= least]


def seed(
    mirror: Mirror, scope: Scope, fused: Fused, context: str, params: RecallParams
) -> tuple[dict[int, tuple[float, str]], dict[int, list[str]]]:
    """The best fused memories, triggered negatives and ids the caller gave: slot → (score,
    how). Triggered and given memories get a base of at least 1.0. Also returns flags."""
    n, base = mirror.size, fused.base
    candidates = np.flatnonzero(base > 0)
    order = candidates[np.argsort(-base[candidates], kind="stable")[: params.seeds]].tolist()
    seeds: dict[int, tuple[float, str]] = {s: (float(base[s]), fused.via[s]) for s in order}
    lowered = context.lower()
    flags: dict[int, list[str]] = {}
    for slot, matched in _triggered(mirror, lowered):
        if slot >= n or not scope.walk_mask[slot]:
            continue
        if mirror.kind[slot] != "negative":
            continue
        if any(trigger_pattern(t).search(lowered) for t in matched):
            seeds[slot] = (max(1.0, float(base[slot])), "trigger")
            base[slot] = max(base[slot], 1.0)
            flags.setdefault(slot, []).append("trigger")
    for memory_id in params.seed_ids:
        slot = mirror.slot.get(memory_id, -1)
        if slot >= 0 and mirror.alive[slot]:
            seeds[slot] = (1.0, "given")
            base[slot] = max(base[slot], 1.0)
    return seeds, flags


class _TriggerIndex:
    """The negative memories whose triggers occur in a context, without a pass over each of
    them (a big store holds tens of thousands): slots grouped by trigger, rebuilt when the
    mirror's triggers differ from the copy it was built from (a comparison done in C)."""

    def __init__(self) -> None:
        self.copy: dict[int, list[str]] | None = None
        self.by_trigger: dict[str, list[int]] = {}
        self.order: dict[int, int] = {}

    def matched(self, triggers: dict[int, list[str]], lowered: str) -> list[tuple[int, list[str]]]:
        if self.copy != triggers:
            self.copy = {slot: list(ts) for slot, ts in triggers.items()}
            self.order = {slot: i for i, slot in enumerate(self.copy)}
            self.by_trigger = {}
            for slot, ts in self.copy.items():
                for t in dict.fromkeys(ts):
                    self.by_trigger.setdefault(t, []).append(slot)
        found: dict[int, list[str]] = {}
        # Most triggers are nowhere in the context: a substring test rules them out first.
        for t, slots in self.by_trigger.items():
            if t in lowered:
                for slot in slots:
                    found.setdefault(slot, []).append(t)
        # In the mirror's order, as a pass over every memory would give them.
        return sorted(found.items(), key=lambda item: self.order[item[0]])


_TRIGGERS: weakref.WeakKeyDictionary[Mirror, _TriggerIndex] = weakref.WeakKeyDictionary()


def _triggered(mirror: Mirror, lowered: str) -> list[tuple[int, list[str]]]:
    """(slot, its triggers found in the lower-cased context), for every memory with some."""
    index = _TRIGGERS.get(mirror)
    if index is None:
        index = _TRIGGERS[mirror] = _TriggerIndex()
    return index.matched(mirror.triggers, lowered)


def walk_all(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    fused: Fused,
    seeds: dict[int, tuple[float, str]],
    context: str,
    params: RecallParams,
    rest: Phrase | None = None,
    onward: list[Phrase] | None = None,
    relation_context: str | None = None,
) -> Walks:
    """A best-first walk from each seed and each entity the context names, chains of facts
    from those entities (which read its relation words from ``relation_context``, where
    given)."""
    walks = Walks(mirror, seeds, fused)
    if params.depth == 0:
        return walks
    edge_cache: dict[str, list[Edge]] = {}

    def edges(node: str) -> list[Edge]:
        cached = edge_cache.get(node)
        if cached is None:
            if scope.query is not None and node[0] != "m":
                # Which members a walk follows depends on their similarity: exact for a tag
                # small enough; a bigger one's best members are among the near ones.
                members = mirror.members(node)
                if len(members) <= FILL_MAX:
                    scope.fill(members, also=match)
            cached = edges_of(node, mirror, scope.sims, config, scope.walk_mask, match,
                              node not in named)  # fmt: skip
            edge_cache[node] = cached
        return cached

    # Fused score first, similarity to break ties (and to rank what fusion did not reach).
    match = fused.base + 0.01 * scope.sims
    # Stand-ins bridge to what fusion ranked low: seeds have their place already.
    match[list(seeds)] = -np.inf
    starts = _starts(mirror, config, seeds, context)
    named = {s.node for s in starts if s.via == "entity"}
    names = not_the_kind([s.node[2:] for s in starts if s.node in named], context)
    chainable = chain_names(mirror, config, names, context)
    for start in starts:
        # An entity walk starts at a tag, one edge before any memory: it gets that edge free.
        depth = params.depth + (start.via == "entity")
        walks.add(walk(start, depth, config.decay, edges, config.min_walk_score), start)
    chained = [s for s in starts if s.node in named and s.node[2:] in chainable]
    if config.chain_weight > 0 and chained:
        relation = relation_for(
            mirror, config, scope, relation_context or context, names,
            [s.node[2:] for s in chained], params.depth, rest, onward or [], FAR,
        )  # fmt: skip
        chains = chain(
            mirror, config, scope, chained, relation, params.depth + 1,
            _direct(fused.base, seeds, params.limit),
        )  # fmt: skip
        by_tag = {s.node: s for s in chained}
        k = config.rrf_k
        weight = config.chain_weight
        if chains and chains[0].score < config.chain_sure:
            # Led by a chain whose facts match the relation words weakly ("what does X depend
            # on" where no fact of X says "depend"): the fused ranking knows as much.
            weight *= chains[0].score / config.chain_sure
        for rank, (slot, c) in enumerate(chain_ranking(chains)[: config.chain_facts], start=1):
            start = by_tag[c.bridges[0]]
            upto = c.slots.index(slot) + 1
            tree = chain_tree(mirror, start, c, upto)
            score = weight * (k + 1) / (k + rank)
            walks.add_scored(tree, start, {slot: score}, explains=upto > 1)
    return walks


def _direct(base: np.ndarray, seeds: dict[int, tuple[float, str]], limit: int) -> list[int]:
    """The ``limit`` best fused memories among the seeds, best first: the direct hits a chain
    should not push out unjudged. Seeds only: a chain of one fact leaves a seed its own path
    in ``explain()`` (a memory reached only by the chain would show a tag edge it lacks)."""
    found = [s for s in seeds if base[s] > 0]
    return sorted(found, key=lambda s: -base[s])[:limit]


def _starts(
    mirror: Mirror, config: Config, seeds: dict[int, tuple[float, str]], context: str
) -> list[Step]:
    starts = [
        Step(mnode(mirror.ids[slot]), None, how, score) for slot, (score, how) in seeds.items()
    ]
    # Entities the context names (as known tags) start walks too: "the author of Aschenbrödel"
    # reaches the passages about Aschenbrödel through its tag. The start pays the tag's hub
    # penalty (its home takes it back), and a name many memories carry says less about any one
    # of them, like a common word: (other members)^-entity_specificity on top.
    if config.entity_weight > 0:
        exponent = 0.5 + config.entity_specificity
        named = mirror.entities.find(context, written=True)
        for name in sorted(mirror.entities.find(context, lenient=True)):
            tag = TAG + name
            # A name the context writes in lower case ("who owns fraud?", "the lowest
            # temperature") starts a walk only where it names an entity of short facts (a
            # service, not "lowest" or "individual" that a few passages were tagged with).
            if mirror.has_node(tag) and (name in named or chainable(mirror, config, tag)):
                score = config.entity_weight / mirror.others(tag) ** exponent
                starts.append(Step(tag, None, "entity", score))
    return starts

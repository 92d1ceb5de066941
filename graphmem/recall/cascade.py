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
   one edge earlier, at its tag, and gets that edge on top. A reached memory's walk score is
   weighed by its own match to the context (``relevance_weight``), so the question's other
   words pick among an entity's memories. Chains of short facts from the entities named
   (``chains.py``) are a ranking of their own, fused in by rank (``chain_weight``). Then the
   best memories reached may start walks of their own (``reseeds``, second-round seeds).
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

import math
import re
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..index.mirror import Filters, Mirror, best
from ..keys import MEMORY, TAG, mnode
from .chains import chain, chain_names, chain_ranking, chain_tree, chainable, relation_for
from .lifecycle import LIFECYCLE_MAX, LIFECYCLE_MIN, lifecycle_factor
from .scope import FAR, Found, RecallParams, Scope
from .walk import Edge, Step, Tree, edges_of, path, walk

if TYPE_CHECKING:
    from ..config import Config

PRIORITY_KINDS = ("negative", "correction")
# From this many memories on, recall does not compare the context with every memory (an exact
# scan of 1M vectors takes about 100 ms on one core): the approximate index gives the ``NEAR``
# most similar ones, and only those, the members of the tags a walk opens (up to
# ``FILL_MAX`` of them) and the results get an exact cosine; the rest count as unrelated
# (``FAR``). Below, every similarity is exact, as before. Bounds on the work of one recall at
# scale, not settings: below SPARSE_MIN (every benchmark) they change nothing.
SPARSE_MIN = 200_000
NEAR = 1000
FILL_MAX = 4096


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
    """Every walk's tree and, for each memory, the best (relevance-weighed) walk into it."""

    mirror: Mirror
    seeds: dict[int, tuple[float, str]]
    fused: Fused
    trees: list[Tree] = field(default_factory=list)
    starts: list[Step] = field(default_factory=list)
    # The path to a second-round start, put in front of the paths its walk finds.
    prefixes: list[list[Step]] = field(default_factory=list)
    walked_by: dict[int, int] = field(default_factory=dict)
    supported_by: dict[int, int] = field(default_factory=dict)
    chains: set[int] = field(default_factory=set)  # which walks are chains (``add_scored``)

    def __post_init__(self) -> None:
        n = self.mirror.size
        self.walked = np.zeros(n, dtype=np.float64)
        self.support = np.zeros(n, dtype=np.float64)
        self.is_seed = np.zeros(n, dtype=bool)
        self.is_seed[list(self.seeds)] = True

    def add(self, tree: Tree, start: Step, relevance: np.ndarray, prefix: list[Step]) -> None:
        self.trees.append(tree)
        self.starts.append(start)
        self.prefixes.append(prefix)
        index = len(self.trees) - 1
        homes = self.mirror.homes
        for reached, (walk_score, parent, _, slot) in tree.items():
            if slot < 0 or reached == start.node:
                continue
            # A mention leads to its entity's home like a hyperlink, whatever the home says;
            # the context's own words pick only among the rest of a tag's members.
            is_home = parent is not None and parent[0] == "t" and reached in homes(parent)
            score = walk_score if is_home else walk_score * relevance[slot]
            self._offer(index, slot, score)

    def add_scored(
        self, tree: Tree, start: Step, scored: dict[int, float], explains: bool = True
    ) -> None:
        """A walk whose memories' scores were weighed already (a chain): slot → score.
        ``explains``: its path explains a seed it lifts (a chain of one fact does not: the
        seed's own match says more)."""
        self.trees.append(tree)
        self.starts.append(start)
        self.prefixes.append([])
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
        steps = path(self.trees[index], node, self.starts[index])
        prefix = self.prefixes[index]
        return [*prefix, *steps[1:]] if prefix else steps


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
) -> tuple[list[Found], np.ndarray, float]:
    """Rank memories for the context. ``rest_vec``: the embedding of the context's relation
    words (``relation_text``), which chains judge facts by.

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
    rest_sims = None
    if rest_vec is not None:
        rest_sims = (mirror.similarities(rest_vec) if scope.query is None
                     else _near(mirror, rest_vec, scope.walk_mask))  # fmt: skip
    walks = walk_all(mirror, config, scope, fused, seeds, context, params, rest_sims, rest_vec)
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


def asks(text: str) -> bool:
    """Whether a memory ends in a question: it asks rather than tells."""
    return text.rstrip().endswith("?")


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
    rest_sims: np.ndarray | None = None,
    rest_vec: np.ndarray | None = None,
) -> Walks:
    """A best-first walk from each seed and each entity the context names, chains of facts
    from those entities, then walks from the best memories reached (second-round seeds)."""
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
    relevance = _relevance(fused.base, config.relevance_weight)
    starts = _starts(mirror, config, seeds, context)
    named = {s.node for s in starts if s.via == "entity"}
    names = [s.node[2:] for s in starts if s.node in named]
    chainable = chain_names(mirror, config, names)
    for start in starts:
        # An entity walk starts at a tag, one edge before any memory: it gets that edge free.
        depth = params.depth + (start.via == "entity")
        walks.add(walk(start, depth, config.decay, edges, config.min_walk_score), start,
                  relevance, [])  # fmt: skip
    chained = [s for s in starts if s.node in named and s.node[2:] in chainable]
    if config.chain_weight > 0 and chained:
        relation = relation_for(mirror, config, scope, context, names, rest_sims, rest_vec, FAR)
        chains = chain(mirror, config, scope, chained, relation, params.depth + 1)
        by_tag = {s.node: s for s in chained}
        k = config.rrf_k
        weight = config.chain_weight
        if chains and len(chains[0].slots) == 1 and chains[0].score < config.chain_sure:
            # Led by one fact that matches the relation words weakly ("what does X depend on"
            # where no fact of X says "depend"): the fused ranking knows as much.
            weight *= chains[0].score / config.chain_sure
        for rank, (slot, c) in enumerate(chain_ranking(chains)[: config.chain_facts], start=1):
            start = by_tag[c.bridges[0]]
            upto = c.slots.index(slot) + 1
            tree = chain_tree(mirror, start, c, upto)
            score = weight * (k + 1) / (k + rank)
            walks.add_scored(tree, start, {slot: score}, explains=upto > 1)
    if config.reseeds and params.depth >= 2:
        for slot in _reseeds(walks, fused, config.reseeds):
            prefix = walks.path_to(slot)
            start = Step(
                prefix[-1].node, None, "reseed", float(fused.base[slot] + walks.walked[slot])
            )
            tree = walk(start, params.depth, config.decay, edges, config.min_walk_score)
            walks.add(tree, start, relevance, prefix)
    return walks


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


def _relevance(base: np.ndarray, weight: float) -> np.ndarray:
    """The factor a walked-to memory's score is multiplied by: its own fused relevance to the
    context relative to the best (0 outside the fused pool), blended in at ``weight``."""
    top = float(base.max()) if len(base) else 0.0
    if top <= 0 or weight == 0:
        return np.ones(len(base))
    return (1.0 - weight) + weight * (base / top)


def _reseeds(walks: Walks, fused: Fused, count: int) -> list[int]:
    """The best memories the first walks reached that were not seeds already."""
    reached = np.flatnonzero(walks.walked > 0)
    if len(reached) == 0:
        return []
    value = fused.base[reached] + walks.walked[reached]
    order = np.argsort(-value, kind="stable")[:count]
    return reached[order].tolist()


def hand_over(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    final: np.ndarray,
    walks: Walks,
    filters: Filters,
    params: RecallParams,
) -> tuple[dict[int, Found], np.ndarray]:
    """Superseded memories give way to their successors, which take their score times the
    Supersedes weight and their path. Returns the successors found and the candidate mask."""
    n = mirror.size
    candidates = final > 0
    found: dict[int, Found] = {}
    if filters.at is not None or params.include_history:
        return found, candidates
    stale = np.flatnonzero(candidates & mirror.superseded[:n] & ~scope.result_mask)
    memo: dict[int, int | None] = {}
    for slot in stale.tolist():
        successor = _successor(mirror, slot, memo)
        candidates[slot] = False
        if successor is None:
            continue
        score = float(final[slot]) * config.edge_weight("Supersedes")
        if successor in found and found[successor].score >= score:
            continue
        if successor not in found and candidates[successor] and final[successor] >= score:
            continue
        step = Step(mnode(mirror.ids[successor]), "Supersedes", None, score)
        found[successor] = Found(successor, score, [*walks.path_to(slot), step], ["successor"])
        final[successor] = score
        candidates[successor] = False
    return found, candidates


def rank(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    final: np.ndarray,
    candidates: np.ndarray,
    found: dict[int, Found],
    walks: Walks,
    flags: dict[int, list[str]],
    params: RecallParams,
    now_epoch: float,
) -> list[Found]:
    """Candidates the filters allow, scored with their lifecycle factors, best first."""
    n = mirror.size
    eligible_mask = scope.result_mask.copy()
    if params.include_history:
        eligible_mask |= mirror.superseded[:n]
    pool_slots = np.flatnonzero(candidates & eligible_mask)
    extra = [s for s in found if scope.result_mask[s]]
    slots = np.concatenate([pool_slots, np.array(extra, dtype=np.int64)]).astype(np.int64)
    if len(slots) == 0:
        return []
    scores = final[slots]
    # Lifecycle factors lie within [LIFECYCLE_MIN, LIFECYCLE_MAX × session boost] and a memory
    # that asks takes asking_weight on top: only candidates that could still reach the top
    # need them.
    cut = max(params.limit * 3, 30)
    if len(slots) > cut:
        kth = np.partition(-scores, cut - 1)[cut - 1]
        least = LIFECYCLE_MIN * config.asking_weight
        keep = scores >= -kth * least / (LIFECYCLE_MAX * config.session_boost)
        slots, scores = slots[keep], scores[keep]
    scores = scores * lifecycle_factor(mirror, slots, now_epoch, config)
    if config.asking_weight < 1:
        content = mirror.content
        asking = np.array([asks(content.get(s, "")) for s in slots.tolist()], dtype=bool)
        scores = np.where(asking, scores * config.asking_weight, scores)
    in_session = np.zeros(len(slots), dtype=bool)
    if params.session_id is not None:
        in_session = mirror.session[slots] == params.session_id
        scores = np.where(in_session, scores * config.session_boost, scores)
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
            item = Found(slot, score, walks.path_to(slot), list(flags.get(slot, [])))
            if params.include_history and slot in mirror.superseded_by:
                item.flags.append("superseded")
            elif (
                params.include_history
                and not np.isnan(mirror.valid_until[slot])
                and (mirror.valid_until[slot] <= now_epoch)
            ):
                item.flags.append("expired")
            elif params.include_history and mirror.valid_from[slot] > now_epoch:
                item.flags.append("not_yet_valid")
        else:
            item.score = score
        if boosted:
            item.flags.append("session")
        out.append(item)
    return out


def diversify(found: list[Found], mirror: Mirror, config: Config, picks: int) -> None:
    """Reorder in place: each next result is the best after a penalty for resembling those above.

    score' = score − diversity × max(0, max cosine to a result above − redundant_above),
    chosen greedily for the first ``picks`` places; the rest follow by their penalised scores.
    Greedy selection only lowers values, so the new scores are still in order. Scores stop at 0
    (the order is decided before that), so ``explain`` never shows a negative score.
    """
    if len(found) < 2:
        return
    weight, above = config.diversity, config.redundant_above
    vecs = mirror.vectors[[f.slot for f in found]]
    closeness = vecs @ vecs.T
    scores = np.array([f.score for f in found])
    redundancy = np.zeros(len(found))
    left = np.ones(len(found), dtype=bool)
    order = []
    for _ in range(min(picks, len(found))):
        value = np.where(left, scores - weight * np.maximum(redundancy - above, 0), -np.inf)
        pick = int(np.argmax(value))
        found[pick].score = max(float(value[pick]), 0.0)  # a penalty never makes a score negative
        order.append(found[pick])
        left[pick] = False
        np.maximum(redundancy, closeness[pick], out=redundancy)
    value = scores - weight * np.maximum(redundancy - above, 0)
    rest = sorted(np.flatnonzero(left).tolist(), key=lambda i: -value[i])
    for i in rest:
        found[i].score = max(float(value[i]), 0.0)
        order.append(found[i])
    found[:] = order


def by_session(
    found: list[Found], mirror: Mirror, config: Config, sessions: dict[str, int]
) -> None:
    """Reorder in place: the turns of conversations also rank by their session's place in
    the ranking of sessions by similarity (``Fused.sessions``).

    A question about what was said ("how many kitchen items did I fix?") is answered by whole
    conversations, and the walk ranks a few of them high with their neighbours and tag-mates
    while a session search ranks next falls back. Reciprocal rank fusion of the two orders,
    value(m) = 1 / (k + place of m) + session_weight / (k + rank of m's session), keeps both:
    the walk's best and the sessions most about the context; a turn whose session is not
    ranked counts its own place for its session's. Only memories of a session move, among the
    places they hold: a memory outside any conversation (a fact beside chat turns in one store)
    keeps its place, and every place keeps its score, so scores stay in order and on recall's
    scale.
    """
    turns = [i for i, f in enumerate(found) if mirror.session[f.slot]]
    names = [mirror.session[found[i].slot] for i in turns]
    if not sessions or not any(name in sessions for name in names):
        return
    k, weight = config.rrf_k, config.session_weight
    value = {
        i: 1.0 / (k + i + 1) + weight / (k + sessions.get(name, i + 1))
        for i, name in zip(turns, names, strict=True)
    }
    moved = [found[i] for i in sorted(turns, key=lambda i: -value[i])]
    scores = [found[i].score for i in turns]
    for place, item, score in zip(turns, moved, scores, strict=True):
        item.score = score
        found[place] = item


def _successor(mirror: Mirror, slot: int, memo: dict[int, int | None] | None = None) -> int | None:
    """The active end of a memory's chain of successors (None: there is none). ``memo``:
    ends found before; many stale candidates share the tail of a long chain."""
    seen: list[int] = []
    end: int | None
    while True:
        if memo is not None and slot in memo:
            end = memo[slot]
            break
        if slot not in mirror.superseded_by:
            end = slot if mirror.active[slot] else None
            break
        if slot in seen:  # a cycle: no end to remember for the others
            return slot if mirror.active[slot] else None
        seen.append(slot)
        nxt = mirror.slot.get(mirror.superseded_by[slot])
        if nxt is None or not mirror.alive[nxt]:
            end = None
            break
        slot = nxt
    if memo is not None:
        memo.update(dict.fromkeys(seen, end))
    return end


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
        node = MEMORY + mirror.ids[f.slot]
        others = [s for s in mirror.linked(node, "Contradicts") if mirror.active[s]]
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
            step = Step(MEMORY + mirror.ids[slot], "Contradicts", None, score)
            out.append(Found(slot, score, [*f.path, step], ["contradicted"], [mirror.ids[f.slot]]))
    return out

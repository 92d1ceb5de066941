"""Cascade recall: hybrid seeds, then best-first walks over the typed edges.

Pure ranking over the in-process mirror; no database access. The façade loads the memories.
The pipeline, one function per stage (every weight is a field of ``Config``):

1. ``fuse``: base(m) is reciprocal rank fusion of the dense ranking (cosine ≥ threshold) and the
   BM25 ranking (weighted ``lexical_weight``), normalised so first place in both lists is 1.0.
2. ``seed``: the best fused memories, negative memories whose triggers match, ids the caller
   gave.
3. ``walk_all``: walks (``walk.py``) carry each start's score along the typed edges, at most
   ``depth`` edges from a seed memory. Entities the context names (known entity tags) start
   walks too, at ``entity_weight``, weaker for names many memories carry; an entity walk starts
   one edge earlier, at its tag, and gets that edge on top. A reached memory's walk score is
   weighed by its own match to the context (``relevance_weight``), so the question's other
   words pick among an entity's memories. Then the best memories reached start walks of their
   own (``reseeds``, second-round seeds): a chain of three facts is found.
4. ``hand_over``: superseded memories give way to their successors.
5. ``rank``: final(m) = (base(m) + walk_weight × best walk score into m) × lifecycle factor
   (effective confidence, recency of access, ``session_boost``). A seed's walk score is the
   best support it gets from the other seeds.
6. ``diversify``: going down the ranking, a result that closely resembles one above it (cosine
   over ``redundant_above``) loses ``diversity`` × the excess, so near-copies do not crowd out
   other evidence.
"""

from __future__ import annotations

import math
import re
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .entities import TYPE_WORDS, words
from .lexical import tokenize
from .lifecycle import LIFECYCLE_MAX, LIFECYCLE_MIN, lifecycle_factor
from .mirror import Filters, Mirror, best, mnode
from .phrasing import TYPE_STEMS, asked_kind, distances, term_sides, typed_as, variants
from .walk import Edge, Step, Tree, edges_of, path, walk

if TYPE_CHECKING:
    from .config import Config

PRIORITY_KINDS = ("negative", "correction")
# How many facts that say a relation word tell what kind of entities it links (a bound on the
# work of one recall; a word many facts say is typical after a few hundred of them).
PROFILE_FACTS = 300
# From this many memories on, recall does not compare the context with every memory (an exact
# scan of 1M vectors takes about 100 ms on one core): the approximate index gives the ``NEAR``
# most similar ones, and only those, the members of the tags a walk opens (up to
# ``FILL_MAX`` of them) and the results get an exact cosine; the rest count as unrelated
# (``FAR``). Below, every similarity is exact, as before.
SPARSE_MIN = 200_000
NEAR = 1000
FILL_MAX = 4096
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


@dataclass
class Fused:
    """Base relevance of every slot and which ranking found it."""

    base: np.ndarray
    via: dict[int, str]


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
def _trigger_pattern(trigger: str) -> re.Pattern[str]:
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
    if scope.query is not None:
        scope.fill(np.array([f.slot for f in out], dtype=np.int64))
    return out, sims, best_sim


def _near(mirror: Mirror, query: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Similarities in a big store: exact for the ``NEAR`` most similar memories under the
    mask (from the approximate index), ``FAR`` for the rest."""
    sims = np.full(mirror.size, FAR, dtype=np.float32)
    allowed = int(mask.sum())
    index = mirror._ann_for(allowed)
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
    if scope.query is None:
        dense = [s for s, v in _ranks(scope.sims, scope.seed_mask, pool) if v >= params.threshold]
        lexical = [s for s, v in _ranks(lex_scores, scope.seed_mask, pool) if v > 0]
    else:
        # A big store: rank only what can be ranked (the near ones, the lexical matches),
        # not a million slots.
        dense = [s for s, v in _ranks_among(scope.sims, scope.near, scope.seed_mask, pool)
                 if v >= params.threshold]  # fmt: skip
        lexical = [s for s, v in _ranks_among(lex_scores, np.flatnonzero(lex_scores),
                                              scope.seed_mask, pool) if v > 0]  # fmt: skip
    base[dense] += 1.0 / (k + np.arange(1, len(dense) + 1)) / norm
    base[lexical] += lexical_weight / (k + np.arange(1, len(lexical) + 1)) / norm
    via = dict.fromkeys(dense, "vector")
    for slot in lexical:
        via[slot] = "vector+lexical" if slot in via else "lexical"
    return Fused(base, via)


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
        if any(_trigger_pattern(t).search(lowered) for t in matched):
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
        relation = _relation(mirror, config, scope, context, names, rest_sims, rest_vec)
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


@dataclass
class Relation:
    """What the context asks about the entities it names, per memory.

    ``terms`` holds BM25 of each word of the context outside the names ("who owns the service
    that depends on": own, servic, depend), one row a word; ``dense`` the cosine similarity
    relative to the best (it knows "maintains" is like "owns"). A fact's words count only
    outside its own names, and a fact about a named entity that uses a word the other way
    round ("kyc-worker calls invoice" for "what does invoice call") does not match it
    (``phrasing``)."""

    terms: np.ndarray
    dense: np.ndarray
    mirror: Mirror
    forms: list[frozenset[str]] = field(default_factory=list)
    # The side of each named entity each relation word of the context stands on (phrasing.side).
    sides: dict[str, list[int]] = field(default_factory=dict)
    reversed_factor: float = 1.0
    # Per named entity, the weight of each relation word for the first fact: the words next
    # to the name say how the chain leaves it ("the service that X calls": calls).
    near: dict[str, np.ndarray] = field(default_factory=dict)
    # The row of the word naming the kind of thing asked for ("which team": team), or -1.
    answer: int = -1
    # Per named entity, the row of the kind word right before it ("the service that X calls":
    # service), which the entity a first fact leads to should be; and how strongly.
    bridge_kind: dict[str, int] = field(default_factory=dict)
    kind_weight: float = 0.0
    _kinds: dict[tuple[str, int], float] = field(default_factory=dict)
    # Per named entity, the rows of the relation words right next to it ("upstream of X").
    nearest: dict[str, list[int]] = field(default_factory=dict)
    like_weight: float = 0.0
    _centroids: dict[str, np.ndarray] = field(default_factory=dict)
    _profiles: dict[int, np.ndarray | None] = field(default_factory=dict)
    _tops: dict[bytes, float] = field(default_factory=dict)
    _read: dict[tuple[int, str | None], tuple[np.ndarray, bool]] = field(default_factory=dict)
    # A big store: ``dense`` is NaN away from the context until ``fill`` computes it from
    # the query (the relation words' embedding) over the best similarity ``top``.
    query: np.ndarray | None = None
    vectors: np.ndarray | None = None
    top: float = 1.0

    def fill(self, slots: np.ndarray) -> None:
        if self.query is None or self.vectors is None or len(slots) == 0:
            return
        todo = slots[np.isnan(self.dense[slots])]
        if len(todo):
            exact = self.vectors[todo] @ self.query.astype(np.float32)
            self.dense[todo] = np.maximum(exact, 0.0) / self.top

    @property
    def nothing(self) -> np.ndarray:
        return np.zeros(self.terms.shape[0], dtype=bool)

    def read(self, slot: int, about: str | None) -> tuple[np.ndarray, bool]:
        """Which relation words a fact holds outside its names, and whether it states the
        relation the other way round for ``about`` (a tag the context names)."""
        key = (slot, about)
        cached = self._read.get(key)
        if cached is None:
            mirror = self.mirror
            text = mirror.content.get(slot, "")
            names = tuple(mirror.tags_of(mirror.ids[slot]))
            name = about[2:] if about is not None else ""
            present, sides = term_sides(text, name, self.forms, names)
            asked = self.sides.get(about or "", [])
            backwards = any(q * f < 0 for q, f in zip(asked, sides, strict=False))
            cached = self._read[key] = (np.array(present, dtype=bool), backwards)
        return cached

    def match(self, slots: np.ndarray, used: np.ndarray, about: str | None = None) -> np.ndarray:
        """How well each memory matches the words a chain has not used yet, and the dense part.
        ``about``: the tag of a named entity the facts were reached from (the chain's start)."""
        weights = self.near.get(about or "")
        if weights is None:
            weights = np.ones(len(used))
        key = used.tobytes() + (about or "").encode()
        top = self._tops.get(key)
        if top is None:
            # The best any memory matches the words left: a chain that used "depends" judges
            # the next memory by "owns" alone, and a full match of what is left counts fully.
            left = self.terms[~used] * weights[~used, None]
            top = self._tops[key] = float(left.sum(axis=0).max(initial=0.0))
        if not len(slots):
            return np.zeros(0)
        read = [self.read(s, about) for s in slots.tolist()]
        held = np.array([r[0] for r in read], dtype=bool).T.reshape(len(used), len(slots))
        backwards = np.array([r[1] for r in read], dtype=bool)
        lexical = (self.terms[:, slots] * (held & ~used[:, None]) * weights[:, None]).sum(axis=0)
        lexical = lexical / top if top > 0 else lexical * 0.0
        out = 0.5 * lexical + 0.5 * self.dense[slots]
        return np.where(backwards, out * self.reversed_factor, out)

    def kind_share(self, tag: str, row: int) -> float:
        """The share of an entity's memories that write its name with the kind word of
        ``row`` next to it ("the pg-push datastore"): learnt from the store, no word list."""
        key = (tag, row)
        share = self._kinds.get(key)
        if share is None:
            mirror, forms = self.mirror, self.forms[row]
            members = mirror.members(tag).tolist()
            typed = sum(typed_as(mirror.content.get(s, ""), tag[2:], forms) for s in members)
            share = self._kinds[key] = typed / len(members) if members else 0.0
        return share

    def leads_to(self, slots: np.ndarray, about: str) -> np.ndarray:
        """The factor of each first fact for where it leads (``leads_to_kind``,
        ``leads_like``)."""
        return self.leads_to_kind(slots, about) * self.leads_like(slots, about)

    def leads_to_kind(self, slots: np.ndarray, about: str) -> np.ndarray:
        """The factor of each first fact: 1 + kind_weight × how much the other entity it
        names is of the kind the question puts before the name."""
        row = self.bridge_kind.get(about, -1)
        out = np.ones(len(slots))
        if row < 0 or self.kind_weight <= 0:
            return out
        mirror = self.mirror
        for i, slot in enumerate(slots.tolist()):
            shares = [
                self.kind_share("t:" + name, row)
                for name in mirror.tags_of(mirror.ids[slot])
                if "t:" + name != about
            ]
            out[i] += self.kind_weight * max(shares, default=0.0)
        return out

    def centroid(self, tag: str) -> np.ndarray:
        """The mean direction of an entity's memories: what kind of thing it is, as far as
        the embedding tells."""
        got = self._centroids.get(tag)
        if got is None:
            members = self.mirror.members(tag)
            vec = self.mirror.vectors[members].mean(axis=0) if len(members) else np.zeros(1)
            norm = float(np.linalg.norm(vec))
            got = self._centroids[tag] = vec / norm if norm > 0 else vec
        return got

    def profile(self, row: int) -> np.ndarray | None:
        """The kind of entities a relation word links in this store: the mean centroid of the
        entities of the facts that say it (at most ``PROFILE_FACTS``), or None."""
        if row not in self._profiles:
            mirror = self.mirror
            vecs = []
            for slot in np.flatnonzero(self.terms[row] > 0)[:PROFILE_FACTS].tolist():
                tags = mirror.tags_of(mirror.ids[slot])
                if len(tags) >= 2:
                    vecs.append(np.mean([self.centroid("t:" + t) for t in tags], axis=0))
            vec = np.mean(vecs, axis=0) if vecs else None
            self._profiles[row] = None if vec is None else vec / float(np.linalg.norm(vec))
        return self._profiles[row]

    def leads_like(self, slots: np.ndarray, about: str) -> np.ndarray:
        """The factor of each first fact: 1 + like_weight × how much the other entity it names
        is like the entities the question's nearest relation word links elsewhere ("the
        upstream of X": facts that say "upstream" link services, so "X cannot start without Y"
        leads where the question does, "Ivo owns X" does not), scaled from 0 for the least
        like to 1 for the most like among the facts of the entity."""
        out = np.ones(len(slots))
        rows = self.nearest.get(about, [])
        if not rows or self.like_weight <= 0 or len(slots) < 2:
            return out
        mirror = self.mirror
        others = [
            ["t:" + t for t in mirror.tags_of(mirror.ids[s]) if "t:" + t != about]
            for s in slots.tolist()
        ]
        for row in rows:
            prof = self.profile(row)
            if prof is None:
                continue
            sims = np.array(
                [max((float(self.centroid(t) @ prof) for t in o), default=np.nan) for o in others]
            )
            valid = ~np.isnan(sims)
            if valid.sum() < 2:
                continue
            lo, hi = float(np.nanmin(sims)), float(np.nanmax(sims))
            if hi > lo:
                out *= 1.0 + self.like_weight * np.where(valid, (sims - lo) / (hi - lo), 0.0)
        return out

    def used_by(self, slot: int) -> np.ndarray:
        return (self.terms[:, slot] > 0) & self.read(slot, None)[0]

    def answers(self, slot: int, bridge: str) -> float:
        """How much the fact a chain ends with names a thing of the kind asked for ("which
        team"): 1 if it says the word, else the largest ``kind_share`` of one of its other
        entities ("Payments": "the Payments team has standup at 9:30")."""
        if self.answer < 0:
            return 0.0
        if self.terms[self.answer, slot] > 0:
            return 1.0
        mirror = self.mirror
        shares = [
            self.kind_share("t:" + name, self.answer)
            for name in mirror.tags_of(mirror.ids[slot])
            if "t:" + name != bridge
        ]
        return max(shares, default=0.0)


def relation_text(context: str, names: Iterable[str]) -> str:
    """The context without the names it mentions, nor the type word a name is written with
    ("the ledger service"): what it asks about them ("who owns the service that depends on")."""
    named = {w for name in names for w in words(name)}
    out: list[str] = []
    after_name = False
    for w in words(context):
        if w in named or (after_name and w in TYPE_WORDS):
            after_name = w in named
            continue
        after_name = False
        out.append(w)
    return " ".join(out)


def _relation(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    context: str,
    names: list[str],
    rest_sims: np.ndarray | None,
    rest_vec: np.ndarray | None = None,
) -> Relation:
    rest = relation_text(context, names)
    terms = mirror.lexical.term_scores(rest, mirror.size)
    # The relation words alone judge a fact better than the whole question, whose names
    # would favour any fact about the same entity.
    sims = scope.sims if rest_sims is None else rest_sims
    dense = np.maximum(sims, 0.0).astype(np.float64)
    top_dense = float(dense.max()) if len(dense) else 0.0
    rows = sorted(set(tokenize(rest)))
    forms = [variants(t) for t in rows]
    kind = asked_kind(context)
    near = {}
    bridge_kind = {}
    nearest: dict[str, list[int]] = {}
    for n in names:
        d = np.array(distances(context, n, forms), dtype=np.float64)
        if config.chain_near > 0:
            near["t:" + n] = (1.0 + d) ** -config.chain_near
        before = [r for r, side_ in enumerate(term_sides(context, n, forms)[1]) if side_ < 0]
        closest = [r for r in before if d[r] == 0]
        if closest:
            bridge_kind["t:" + n] = closest[0]
        nearest["t:" + n] = [r for r in range(len(forms)) if d[r] == 0 and kind not in forms[r]]
    # Only relation words have a direction: not the kind asked for, nor a type word.
    directed = [f if not (f & TYPE_STEMS) and kind not in f else frozenset() for f in forms]
    sides = {"t:" + n: term_sides(context, n, directed)[1] for n in names}
    relation = Relation(
        terms, dense / top_dense if top_dense > 0 else dense, mirror, forms, sides,
        1.0 - config.chain_reversed, near, rows.index(kind) if kind in rows else -1,
        bridge_kind, config.chain_kind, nearest=nearest, like_weight=config.chain_like,
    )  # fmt: skip
    if scope.query is None:
        return relation
    # A big store: known near the context only; the facts a chain judges are filled in.
    top = top_dense if top_dense > 0 else 1.0
    relation.dense = np.where(sims == FAR, np.nan, dense / top)
    relation.query = scope.query if rest_vec is None else rest_vec
    relation.vectors, relation.top = mirror.vectors, top
    return relation


@dataclass
class _Chain:
    slots: tuple[int, ...]
    bridges: tuple[str, ...]  # the tag each fact was reached through (the start tag first)
    score: float
    used: np.ndarray


def chain(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    starts: list[Step],
    relation: Relation,
    hops: int,
) -> list[_Chain]:
    """Chains of facts from the entities the context names, at most ``hops`` facts long, best
    first.

    "Who owns the service that the Billing API depends on?": a chain is a fact about the
    Billing API that names another entity (ledger: a bridge), then a fact about that bridge,
    and so on. Each fact is judged by its match to the question's relation words that the
    chain has not used yet (``Relation``): "billing-api depends on ledger" uses "depends", so
    from ledger the owner fact is chosen, not its latency note nor its own dependency. A
    chain scores the product of its facts' matches, × ``chain_growth`` for each fact after
    the first: a longer chain wins when its facts answer more of the question, and loses to
    one fact that answers it all. A beam of ``chain_width`` chains per length keeps it cheap.
    """
    width, growth = config.chain_width, config.chain_growth
    mask, ids = scope.walk_mask, mirror.ids
    words_max = config.chain_fact_words
    fact_cache: dict[str, np.ndarray] = {}
    # Many chains of a beam reach the same bridge: judge each once.
    bridges_ok: dict[str, bool] = {}

    def facts(tag: str) -> np.ndarray:
        found = fact_cache.get(tag)
        if found is None:
            slots = mirror.members(tag)
            keep = [bool(mask[s]) and _fact(mirror, s, words_max) for s in slots.tolist()]
            found = fact_cache[tag] = slots[np.array(keep, dtype=bool)] if len(slots) else slots
            relation.fill(found)
        return found

    def extend(prefix: _Chain | None, tag: str, factor: float) -> list[_Chain]:
        nxt = facts(tag)
        used = relation.nothing if prefix is None else prefix.used
        out = []
        for slot, match in zip(
            nxt.tolist(),
            (
                relation.match(nxt, used, tag if prefix is None else None)
                * (relation.leads_to(nxt, tag) if prefix is None else 1.0)
            ).tolist(),
            strict=True,
        ):
            if prefix is not None and slot in prefix.slots:
                continue
            slots = (slot,) if prefix is None else (*prefix.slots, slot)
            bridges = (tag,) if prefix is None else (*prefix.bridges, tag)
            out.append(_Chain(slots, bridges, factor * match, used | relation.used_by(slot)))
        return out

    level: list[_Chain] = []
    for start in starts:
        level.extend(extend(None, start.node, 1.0))
    level = _beam(level, width)
    found = list(level)
    for _ in range(hops - 1):
        grown: list[_Chain] = []
        for c in level:
            seen = set(c.bridges)
            for name in mirror.tags_of(ids[c.slots[-1]]):
                bridge = "t:" + name
                if bridge in seen:
                    continue
                ok = bridges_ok.get(bridge)
                if ok is None:
                    ok = bridges_ok[bridge] = _chainable(mirror, config, bridge)
                if not ok:
                    continue
                grown.extend(extend(c, bridge, c.score * growth))
        level = _beam(grown, width)
        found.extend(level)
    if config.chain_answer > 0 and relation.answer >= 0:
        # A chain that ends where the question asks ("which team": at a team) wins.
        for c in found:
            c.score *= 1.0 + config.chain_answer * relation.answers(c.slots[-1], c.bridges[-1])
    return sorted(found, key=lambda c: (-c.score, c.slots))


def _beam(chains: list[_Chain], width: int) -> list[_Chain]:
    return sorted(chains, key=lambda c: (-c.score, c.slots))[:width]


def _chainable(mirror: Mirror, config: Config, tag: str) -> bool:
    """Whether a chain may pass through a tag: a name most of whose memories are short facts,
    not a hub. Titled entities (passages) are reached through their homes like hyperlinks."""
    members = mirror.members(tag)
    if len(members) < 2 or mirror.homes(tag) or mirror.others(tag) > config.max_fanout:
        return False
    # An entity of short facts: a name that passages mention in passing is reached through
    # the passages' own tags and titles.
    facts = sum(_fact(mirror, s, config.chain_fact_words) for s in members.tolist())
    return 2 * facts >= len(members)


def chain_names(mirror: Mirror, config: Config, names: Iterable[str]) -> list[str]:
    """The entity names a chain starts from: whole names ("ellis" and "island" are parts of
    "ellis island") of short facts, not hubs."""
    names = list(names)
    return [
        n
        for n in names
        if not any(_part_of("t:" + n, "t:" + other) for other in names)
        and _chainable(mirror, config, "t:" + n)
    ]


def chain_names_in(mirror: Mirror, config: Config, context: str) -> list[str]:
    """The names in the context a chain would start from (the façade embeds the context's
    relation words apart only when there are some)."""
    if config.chain_weight <= 0 or config.entity_weight <= 0:
        return []
    found = [n for n in mirror.entities.find(context, lenient=True) if mirror.has_node("t:" + n)]
    return chain_names(mirror, config, found)


def chain_ranking(chains: list[_Chain]) -> list[tuple[int, _Chain]]:
    """The facts of the chains, best chain first and each chain's facts in order (the fact
    that leads to the answer ranks with it): slot and the best chain it is in."""
    ranking: dict[int, _Chain] = {}
    for c in chains:
        for slot in c.slots:
            ranking.setdefault(slot, c)
    return list(ranking.items())


def chain_tree(mirror: Mirror, start: Step, c: _Chain, upto: int) -> Tree:
    """The walk tree of a chain's first ``upto`` facts: fact, bridge, fact, ... from the start."""
    tree: Tree = {start.node: (start.score, None, None, -1)}
    parent = start.node
    for i, slot in enumerate(c.slots[:upto]):
        bridge = c.bridges[i]
        if bridge != parent:
            tree[bridge] = (c.score, parent, "HasTag", -1)
        node = mnode(mirror.ids[slot])
        tree[node] = (c.score, bridge, "HasTag", slot)
        parent = node
    return tree


def _fact(mirror: Mirror, slot: int, max_words: int) -> bool:
    """Whether a memory is a short statement (at most ``max_words`` words): not a passage,
    which names many things at once, nor an episode (a turn of a conversation, a log line),
    which records what happened rather than how things relate."""
    return mirror.kind[slot] != "episode" and len(mirror.content.get(slot, "").split()) <= max_words


def _part_of(tag: str, other: str) -> bool:
    """Whether a tag's name is a proper part (whole words) of another's."""
    return tag != other and f" {tag[2:]} " in f" {other[2:]} "


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
        named = mirror.entities.find(context)
        for name in sorted(mirror.entities.find(context, lenient=True)):
            tag = "t:" + name
            # A lower-case word read as a name only leniently ("who owns fraud?") starts a
            # walk where it names an entity of short facts (a service, not "city" in passages).
            if mirror.has_node(tag) and (name in named or _chainable(mirror, config, tag)):
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
    # Lifecycle factors lie within [LIFECYCLE_MIN, LIFECYCLE_MAX × session boost]: only
    # candidates that could still reach the top need them.
    cut = max(params.limit * 3, 30)
    if len(slots) > cut:
        kth = np.partition(-scores, cut - 1)[cut - 1]
        keep = scores >= -kth * LIFECYCLE_MIN / (LIFECYCLE_MAX * config.session_boost)
        slots, scores = slots[keep], scores[keep]
    scores = scores * lifecycle_factor(mirror, slots, now_epoch, config)
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
        node = "m:" + mirror.ids[f.slot]
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
            step = Step("m:" + mirror.ids[slot], "Contradicts", None, score)
            out.append(Found(slot, score, [*f.path, step], ["contradicted"], [mirror.ids[f.slot]]))
    return out

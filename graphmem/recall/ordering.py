"""The final order of recall's results, after fusion and the walks (``cascade``).

``hand_over`` moves a superseded memory's score to its successor; ``rank`` scores the
candidates with their lifecycle factors; ``diversify`` lowers near-copies of better results;
``by_session`` fuses the turns' order with the ranking of sessions; ``fit_budget`` trims to a
token budget and ``with_contradictions`` brings contradicted memories back beside the one
recalled.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..index.mirror import Filters, Mirror
from ..keys import MEMORY, mnode
from .evidence import Walks
from .lifecycle import LIFECYCLE_MAX, LIFECYCLE_MIN, lifecycle_factor
from .scope import Found, RecallParams, Scope
from .walk import Step

if TYPE_CHECKING:
    from ..config import Config

PRIORITY_KINDS = ("negative", "correction")


def asks(text: str) -> bool:
    """Whether a memory ends in a question: it asks rather than tells."""
    return text.rstrip().endswith("?")


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
    scale. A turn moved up is flagged ``conversation``.
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
    order = sorted(turns, key=lambda i: -value[i])
    scores = [found[i].score for i in turns]
    moved = [found[i] for i in order]
    for place, was, item, score in zip(turns, order, moved, scores, strict=True):
        item.score = score
        if place < was:
            # Its path says how recall reached it, not why it ranks this high: its session.
            item.flags.append("conversation")
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

"""``mem.maintain()``: keep a year of memories lean, forgetting without deleting.

One pass over the mirror decides, and one transaction writes:

- expiry: active memories whose ``valid_until`` has passed become inactive (recall and search
  already leave them out of the present: this keeps the active set lean);
- dormancy: memories whose effective confidence (decayed by age, see ``lifecycle``) fell below
  ``Config.dormant_below`` and that were rarely used (``access_count`` at most
  ``Config.dormant_max_uses``) become inactive: restorable with ``restore``; pinned memories
  and episodes never, nor a memory restored since it was last made dormant (a restore sticks);

Expiry and dormancy leave a crumb in the memory's reinforcements (``"expired": true`` or
``"dormant": true``), so ``recall(at=T)`` still sees a memory that was valid at T: what
``maintain`` retires is told apart from what the user forgot. Nothing that ``at=`` or
``history`` reads is changed.
- near-duplicates across the whole graph (cosine ≥ ``Config.dedupe_threshold`` and the same
  statement, as the write path judges them) merge: the older memory is kept and reinforced,
  the newer one is superseded by it (a ``Supersedes`` edge), so ``history`` keeps both;
- ``RelatesTo`` links are capped at ``Config.max_links`` per memory, the weakest pruned first
  (``Supersedes`` and ``Contradicts`` are never pruned).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from ..index.ann import AnnIndex
from ..index.mirror import RESTORED_CRUMB, last_mark
from ..models import MaintainReport
from ..recall.lifecycle import effective_confidence
from ..text.conflict import restates
from ..text.slots import same_roles
from ..timeutil import now
from ..write.batch import Batch

if TYPE_CHECKING:
    from ..config import Config
    from ..index.mirror import Mirror

# Bounds on the work of one pass, not settings (Config.dedupe_threshold says what merges): up
# to this many memories, near-duplicates are found by an exact scan; above, through an
# approximate index built for the pass. Each memory is compared with its NEIGHBOURS nearest;
# a memory with more near-copies loses the rest on the next pass.
EXACT_PAIRS_MAX = 8000
NEIGHBOURS = 4


def plan(mirror: Mirror, config: Config, now_epoch: float) -> MaintainReport:
    """What a maintenance pass would change (nothing is written)."""
    n = mirror.size
    active = mirror.alive[:n] & mirror.active[:n]
    slots = np.flatnonzero(active)
    expired_mask = np.zeros(n, dtype=bool)
    expired_mask[slots] = mirror.valid_until[slots] <= now_epoch  # NaN: no end
    expired = [mirror.ids[s] for s in np.flatnonzero(expired_mask)]

    eligible = slots[
        ~expired_mask[slots] & ~mirror.pinned[slots] & (mirror.kind[slots] != "episode")
    ]
    confidence = effective_confidence(mirror, eligible, now_epoch, config)
    uses = mirror.access_count[eligible]
    dormant_slots = eligible[
        (confidence < config.dormant_below) & (uses <= config.dormant_max_uses)
    ]
    dormant = [
        mirror.ids[s]
        for s in dormant_slots.tolist()
        if last_mark(mirror.records.value(s, "reinforcements")) != RESTORED_CRUMB
    ]

    gone = set(expired) | set(dormant)
    live = np.array([s for s in slots if mirror.ids[s] not in gone], dtype=np.int64)
    merged = _merges(mirror, live, config.dedupe_threshold)
    gone |= {m["merged"] for m in merged}
    pruned = _pruned_links(mirror, gone, config.max_links)
    return MaintainReport(
        expired=expired, dormant=dormant, merged=merged, pruned_links=pruned, dry_run=True
    )


def _merges(mirror: Mirror, slots: np.ndarray, threshold: float) -> list[dict[str, Any]]:
    """Pairs of near-duplicate memories: which is kept and which merges into it."""
    if len(slots) < 2:
        return []
    vectors = mirror.vectors[slots]
    k = min(NEIGHBOURS + 1, len(slots))
    if len(slots) <= EXACT_PAIRS_MAX:
        scores = vectors @ vectors.T
        nearest = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        sims = np.take_along_axis(scores, nearest, axis=1)
    else:
        index = AnnIndex(mirror.dim)
        index.build(vectors, np.arange(len(slots)))
        sims, nearest = index.search(vectors, np.ones(len(slots), dtype=bool), k)
    taken: set[int] = set()
    out = []
    for i in range(len(slots)):
        for j, sim in zip(nearest[i], sims[i], strict=True):
            if j <= i or sim < threshold or i in taken or j in taken:
                continue
            a, b = int(slots[i]), int(slots[int(j)])
            if not _mergeable(mirror, a, b):
                continue
            keep, drop = sorted((a, b), key=lambda s: (mirror.created[s], mirror.ids[s]))
            if mirror.pinned[drop]:
                keep, drop = drop, keep
            if mirror.pinned[drop]:
                continue
            taken.update((i, int(j)))
            out.append({"kept": mirror.ids[keep], "merged": mirror.ids[drop],
                        "similarity": round(float(sim), 4)})  # fmt: skip
    return out


def _mergeable(mirror: Mirror, a: int, b: int) -> bool:
    same_space = (
        mirror.kind[a] == mirror.kind[b]
        and mirror.scope[a] == mirror.scope[b]
        and mirror.project[a] == mirror.project[b]
        and mirror.session[a] == mirror.session[b]
    )
    # Memories true over different windows are different facts, however alike their text.
    same_window = all(
        (np.isnan(col[a]) and np.isnan(col[b])) or col[a] == col[b]
        for col in (mirror.valid_from, mirror.valid_until)
    )
    return (
        same_space
        and same_window
        and mirror.kind[a] != "episode"
        and restates(mirror.content.get(a, ""), mirror.content.get(b, ""))
        and same_roles(mirror.content.get(a, ""), mirror.content.get(b, ""))
    )


def _pruned_links(mirror: Mirror, gone: set[str], cap: int) -> list[dict[str, Any]]:
    """RelatesTo edges beyond ``cap`` per memory, weakest first."""
    links: dict[tuple[str, str], float] = {}
    for src, dst, _, weight, _ in mirror.edges("RelatesTo"):
        links[(src[2:], dst[2:])] = weight
    degree: dict[str, int] = {}
    for a, b in links:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    pruned = []
    for (a, b), weight in sorted(links.items(), key=lambda kv: (kv[1], kv[0])):
        if degree[a] > cap or degree[b] > cap:
            degree[a] -= 1
            degree[b] -= 1
            pruned.append({"src": a, "dst": b, "weight": round(weight, 4)})
    return pruned


def batch(mirror: Mirror, report: MaintainReport) -> Batch:
    """A planned pass as one ``write.Batch`` (written by the one write pipeline)."""
    ts = now()
    out = Batch()

    def update(memory_id: str, fields: dict[str, Any]) -> None:
        out.updates.setdefault(memory_id, {}).update(fields)

    for memory_id, why in [*((m, "expired") for m in report.expired),
                           *((m, "dormant") for m in report.dormant)]:  # fmt: skip
        record = mirror.records[mirror.slot[memory_id]]
        crumb = json.dumps({"at": ts.isoformat() + "Z", why: True,
                            "reason": f"{why} by maintain"}, sort_keys=True)  # fmt: skip
        update(memory_id, {"active": False, "updated_at": ts,
                           "reinforcements": [*(record["reinforcements"] or []), crumb]})  # fmt: skip
    for m in report.merged:
        kept, merged = m["kept"], m["merged"]
        record = mirror.records[mirror.slot[kept]]
        other = mirror.records[mirror.slot[merged]]
        crumb = json.dumps({"at": ts.isoformat() + "Z", "merged": merged,
                            "reason": "near duplicate merged by maintain"}, sort_keys=True)  # fmt: skip
        update(kept, {
            "strength": int(record["strength"] or 1) + int(other["strength"] or 1),
            "confidence": max(float(record["confidence"] or 0), float(other["confidence"] or 0)),
            "reinforcements": [*(record["reinforcements"] or []), crumb],
            "updated_at": ts,
        })  # fmt: skip
        update(merged, {"active": False, "superseded_by": kept, "updated_at": ts,
                        "valid_until": other.get("valid_until") or ts})  # fmt: skip
        out.add_edge("Supersedes", src=kept, dst=merged, reason="near duplicate (maintain)")
    for link in report.pruned_links:
        out.removed.append(("RelatesTo", link["src"], link["dst"], None))
    return out

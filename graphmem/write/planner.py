"""Planning: what each checked ``Item`` does to the graph, decided against the mirror alone.

Deterministic, no LLM. ``Planner`` deduplicates, detects conflicts, tags and links, and gathers
the changes of a batch into one ``Batch`` (``graphmem.write.batch``), which the owner's writer
journals or applies. The checks before planning are ``graphmem.write.items``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from ..config import Config
from ..errors import NotFoundError, ValidationError
from ..keys import MEMORY, cnode, fresh_id, tnode
from ..models import SOURCE_TRUST
from ..text import slots
from ..text.conflict import ConflictSignal, detect_conflict, restates
from ..text.entities import EntityIndex, indexed, mentions, words
from ..text.tags import heading, infer_tags, normalize_tag, title_tag
from ..timeutil import epoch, now
from .batch import Batch, Outcome
from .items import Item

if TYPE_CHECKING:
    from ..index.mirror import Mirror

# A new entity is linked back to at most this many earlier memories that mention it.
MAX_BACKLINKS = 200

# The reason on the Supersedes edge from a memory to an earlier version of its own content.
VERSION_REASON = "earlier version (update)"
VERSION_CRUMB = '"version_of": '


def versions_of(mirror: Mirror, memory_id: str) -> list[str]:
    """The ids of the earlier versions ``update`` kept of a memory."""
    out = []
    for other, successor in mirror.superseded_by.items():
        if successor == memory_id and any(
            VERSION_CRUMB in c for c in mirror.records.value(other, "reinforcements") or []
        ):
            out.append(mirror.ids[other])
    return out


def version_since(mirror: Mirror, memory_id: str) -> datetime:
    """When a memory's current content was written: its creation, or the end of its latest
    version (an update ended it)."""
    slot = mirror.slot[memory_id]
    since = mirror.records.value(slot, "created_at")
    for other, successor in mirror.superseded_by.items():
        if successor != memory_id:
            continue
        crumbs = mirror.records.value(other, "reinforcements") or []
        if any(VERSION_CRUMB in c for c in crumbs):
            ended = mirror.records.value(other, "valid_until")
            if ended is not None and (since is None or ended > since):
                since = ended
    return since


def new_id() -> str:
    return fresh_id(16)


@dataclass
class _Candidate:
    id: str
    sim: float
    content: str
    kind: str
    active: bool
    pinned: bool
    trust: float
    valid_from: float


class Planner:
    """Decides, item by item, what remembering does; sees earlier items of the same batch."""

    def __init__(
        self,
        mirror: Mirror,
        config: Config,
        clusters_for: Callable[[np.ndarray], list[tuple[str, float] | None]] | None = None,
    ) -> None:
        self.mirror, self.config = mirror, config
        self.clusters_for = clusters_for
        self.new_entities = EntityIndex()
        self._pending_words: dict[str, set[str]] = {}  # word → new memories of this batch
        self.new_entities = EntityIndex(self._frequency)
        self.batch = Batch()
        self._last_in_session: dict[str, str] = {}
        # Tags reinforcements of this batch gave each memory (neither its row nor the mirror
        # holds them yet).
        self._given_tags: dict[str, set[str]] = {}
        # Set by plan_many: what each item of the batch needs, computed for all at once.
        self._stored: list[list[tuple[int, float]]] | None = None
        self._batch_sims: np.ndarray | None = None
        self._joined: list[tuple[str, float] | None] | None = None
        self._batch_vectors: np.ndarray | None = None
        self._pending_rows: list[int] = []  # batch index of each pending id

    def plan_many(self, items: Sequence[Item], vectors: np.ndarray) -> list[Outcome]:
        """Plan a batch: the searches every item needs are done once for the whole batch.

        One matrix product finds each item's nearest stored memories, one more the
        similarities between items of the batch, and one prediction places them in clusters,
        so the cost per item does not grow with the batch (and the work over the store is
        one pass per batch, not one per memory).
        """
        vectors = np.asarray(vectors, dtype=np.float32)
        k = max(self.config.relate_top_k, 8)
        masks = self._space_masks(items)
        per_item = [masks[_space_key(item)] for item in items]
        self._stored = self.mirror.top_k_many(vectors, per_item, k)
        # Bounded: a dry run may plan a whole import as one batch.
        self._batch_sims = vectors @ vectors.T if len(vectors) <= 4096 else None
        self._batch_vectors = vectors
        self._joined = self.clusters_for(vectors) if self.clusters_for else None
        try:
            return [self.plan(item, vectors[i], index=i) for i, item in enumerate(items)]
        finally:
            self._stored = self._batch_sims = self._joined = self._batch_vectors = None

    def _space_masks(self, items: Sequence[Item]) -> dict[tuple[str, str | None], np.ndarray]:
        """``_space_mask`` for every space of a batch, each column read once: comparing a
        column of a million strings costs about 20 ms, and a batch names dozens of projects
        or sessions."""
        m, n = self.mirror, self.mirror.size
        keys = list(dict.fromkeys(_space_key(item) for item in items))
        # Only what is current may be reinforced or replaced: a fact restated after its
        # valid_until (or before its valid_from) is a new memory, not a hidden reinforcement.
        live = m.alive[:n] & m.active[:n] & m.valid_at(time.time(), created=False)
        scope_col = m.scope[:n]
        by_scope = {scope: live & (scope_col == scope) for scope in {k[0] for k in keys}}
        masks: dict[tuple[str, str | None], np.ndarray] = {}
        for scope, column in (("project", m.project), ("session", m.session)):
            names = [k[1] for k in keys if k[0] == scope]
            if not names:
                continue
            if len(names) <= 4:
                for name in names:
                    masks[(scope, name)] = by_scope[scope] & (column[:n] == name)
                continue
            # One pass over the column for all the names (a code per slot): 0.1 s at 1M.
            code = {name: i for i, name in enumerate(names)}
            codes = np.fromiter(map(code.get, column[:n], repeat(-1)), dtype=np.int32, count=n)
            for name, i in code.items():
                masks[(scope, name)] = by_scope[scope] & (codes == i)
        for key in keys:
            if key[0] not in ("project", "session"):
                masks[key] = by_scope[key[0]]
        return masks

    def _space_mask(self, item: Item) -> np.ndarray:
        """The stored memories an item may duplicate, contradict or relate to."""
        m = self.mirror
        mask = m.alive[: m.size] & m.active[: m.size] & m.valid_at(time.time(), created=False)
        mask &= m.scope[: m.size] == item.scope
        if item.scope == "project":
            mask &= m.project[: m.size] == item.project
        if item.scope == "session":
            mask &= m.session[: m.size] == item.session_id
        return mask

    def _pending_candidates(
        self, vec: np.ndarray, item: Item, index: int | None = None
    ) -> list[_Candidate]:
        out: list[_Candidate] = []
        if not self.batch.pending_ids:
            return out
        if index is not None and self._batch_sims is not None:
            sims = self._batch_sims[index, self._pending_rows]
        elif index is not None and self._batch_vectors is not None:
            sims = self._batch_vectors[self._pending_rows] @ vec
        else:
            sims = np.stack(self.batch.vectors) @ vec
        # The nearest few in the same space, as for stored memories: building a candidate for
        # every pending item made a batch quadratic.
        k = max(self.config.relate_top_k, 8)
        for i in np.argsort(-sims, kind="stable"):
            memory_id = self.batch.pending_ids[i]
            row = self.batch.new_rows[memory_id]
            # As for stored ones: one superseded earlier in the batch is no candidate (an item
            # repeating it would reinforce it, hiding the item under its replacement).
            if not _same_space(row, item) or not row["active"]:
                continue
            out.append(
                _Candidate(
                    memory_id, float(sims[i]), row["content"], row["kind"], row["active"],
                    row["pinned"], row["trust"], epoch(row["valid_from"]),
                )
            )  # fmt: skip
            if len(out) >= k:
                break
        return out

    def _stored_candidates(
        self, vec: np.ndarray, item: Item, k: int, index: int | None = None
    ) -> list[_Candidate]:
        m = self.mirror
        if m.size == 0:
            return []
        if index is not None and self._stored is not None:
            nearest = self._stored[index]
        else:
            nearest = m.top_k(vec, self._space_mask(item), k)
        out = []
        for slot, sim in nearest:
            memory_id = m.ids[slot]
            if memory_id in self.batch.updates and not self.batch.updates[memory_id].get(
                "active", True
            ):
                continue
            out.append(
                _Candidate(
                    memory_id, sim, m.content.get(slot, ""), m.kind[slot], True,
                    bool(m.pinned[slot]), float(m.trust[slot]), float(m.valid_from[slot]),
                )
            )  # fmt: skip
        return out

    def _candidates(
        self, item: Item, vec: np.ndarray, index: int | None = None
    ) -> list[_Candidate]:
        k = max(self.config.relate_top_k, 8)
        candidates = self._stored_candidates(vec, item, k, index) + self._pending_candidates(
            vec, item, index
        )
        candidates.sort(key=lambda c: -c.sim)
        return candidates

    def plan(self, item: Item, vec: np.ndarray, index: int | None = None) -> Outcome:
        """Decide what ``item`` does and add its changes to the batch (``index``: its place in
        the batch ``plan_many`` is planning)."""
        cfg = self.config
        candidates = self._candidates(item, vec, index)
        trust = SOURCE_TRUST[item.source]

        for memory_id in item.supersedes:
            if memory_id not in self.mirror and memory_id not in self.batch.new_rows:
                raise NotFoundError(f"supersedes: no memory with id '{memory_id}'")

        if item.kind != "episode" and item.dedupe and not item.supersedes:
            exact = [c for c in candidates if self._hash_of(c.id) == item.content_hash]
            if exact:
                return self._reinforce(exact[0].id, item, "exact duplicate")
            for c in candidates:
                if c.sim < cfg.dedupe_threshold or c.kind == "episode":
                    continue
                # Alike is not the same: a changed number, name or speaker is another memory.
                if restates(item.content, c.content) and slots.same_roles(item.content, c.content):
                    return self._reinforce(c.id, item, f"near duplicate (cosine {c.sim:.3f})")
            for c in candidates:
                # The same fact in other words ("Snowflake is our data warehouse" / "The data
                # warehouse is Snowflake"): the same names in the same roles (slots.paraphrase).
                if c.sim < cfg.paraphrase_threshold or c.kind == "episode" or not c.active:
                    continue
                if slots.paraphrase(item.content, c.content):
                    return self._reinforce(c.id, item, f"paraphrase (cosine {c.sim:.3f})")

        memory_id = item.id or new_id()
        if memory_id in self.mirror or memory_id in self.batch.new_rows:
            raise ValidationError(f"A memory with id '{memory_id}' already exists")
        outcome = Outcome(id=memory_id, action="created")
        row = self._new_row(memory_id, item, vec, trust)
        self._link_conflicts_and_related(memory_id, item, candidates, outcome, row["created_at"])

        if item.session_id and self.config.link_sequence:
            previous = self._previous_in_session(item.session_id)
            if previous and previous not in set(outcome.related):
                self.batch.add_edge(
                    "RelatesTo", src=previous, dst=memory_id, weight=self.config.sequence_weight,
                    co_access=0, source="sequence",
                )  # fmt: skip
            self._last_in_session[item.session_id] = memory_id

        row["_tags"] = self._add_tags(memory_id, item)
        if self._joined is not None and index is not None:
            joined = self._joined[index]
        else:
            joined = self.clusters_for(vec.reshape(1, -1))[0] if self.clusters_for else None
        # Only a cluster the store holds (an edge naming a missing one fails the transaction).
        if joined is not None and self.mirror.has_node(cnode(joined[0])):
            self.batch.add_edge("InCluster", src=memory_id, dst=joined[0], probability=joined[1],
                                _memory_dst=False)  # fmt: skip
            self.batch.clusters.add(joined[0])
        self.batch.new_rows[memory_id] = row
        for word in set(words(item.content)):
            self._pending_words.setdefault(word, set()).add(memory_id)
        self.batch.vectors.append(vec)
        self.batch.pending_ids.append(memory_id)
        self._pending_rows.append(-1 if index is None else index)
        return outcome

    def plan_update(self, memory_id: str, item: Item, vec: np.ndarray) -> Outcome:
        """Plan new content for a stored memory as ``plan`` would for a new one.

        Inferred tags, entity links and similarity links are recomputed for the new text and
        conflicts are checked; tags and links the user gave stay.
        """
        edges = self.mirror.out_edges(memory_id)
        for dst, key, _, via in edges:
            if key == "HasTag" and via != "user":
                self.batch.removed.append(("HasTag", memory_id, dst[2:], None))
            elif key == "RelatesTo" and via == "similarity":
                self.batch.removed.append(("RelatesTo", memory_id, dst[2:], "similarity"))
        kept_user_tags = {
            dst[2:] for dst, key, _, via in edges if key == "HasTag" and via == "user"
        }
        candidates = [c for c in self._candidates(item, vec) if c.id != memory_id]
        outcome = Outcome(id=memory_id, action="updated")
        self._link_conflicts_and_related(memory_id, item, candidates, outcome, now())
        self._add_tags(memory_id, item, skip=kept_user_tags)
        return outcome

    def plan_version(self, memory_id: str, ts: datetime, corrects: bool = False) -> str:
        """Keep the stored content of a memory about to be updated as a version of its own.

        The version is a memory node like any other: the old content, fields and embedding
        (not its tags or links), inactive, ``superseded_by`` the memory, valid from when that content was
        written until ``ts``, joined to the memory by a ``Supersedes`` edge (reason
        ``VERSION_REASON``). So ``history`` returns it, ``recall(at=T)`` answers with it for a
        T before the update, and an old phrasing still leads to the current content. A crumb
        in its reinforcements (``"version_of"``) tells it from a memory a correction replaced.
        ``corrects``: the update corrects what held in a window already closed (a superseded or
        expired memory): the old text is the record's history, not the world's, so the version
        holds at no time (its window ends where it starts) and ``history`` alone returns it.
        Returns the version's id.
        """
        m = self.mirror
        slot = m.slot[memory_id]
        record = dict(m.records[slot])
        since = version_since(m, memory_id)
        version_id = new_id()
        crumb = json.dumps(
            {"at": ts.isoformat() + "Z", "version_of": memory_id, "reason": VERSION_REASON},
            sort_keys=True,
        )
        ends = record["valid_until"]
        if corrects:
            until = record["valid_from"] or since  # a window of no time
        elif ends is not None and epoch(ends) < epoch(ts):
            until = ends  # it had ended before the update
        else:
            until = ts
        row = {
            **record,
            "id": version_id,
            "created_at": since,
            "updated_at": ts,
            "active": False,
            "superseded_by": memory_id,
            "valid_until": until,
            "metadata": json.loads(record["metadata"] or "{}"),  # stored as JSON text
            "reinforcements": [*(record["reinforcements"] or []), crumb],
            "embedding": m.vectors[slot].copy(),
            # No tags: a version is history, found by its text (dense and lexical seeds) and
            # its edge; tagging it would count it among an entity's memories at every update.
            "_tags": [],
        }
        self.batch.add_edge("Supersedes", src=memory_id, dst=version_id, reason=VERSION_REASON)
        self.batch.new_rows[version_id] = row
        self.batch.vectors.append(row["embedding"])
        self.batch.pending_ids.append(version_id)
        self._pending_rows.append(-1)
        return version_id

    def plan_retag(
        self,
        memory_id: str,
        content: str,
        file_paths: list[str],
        kept: Container[tuple[str, str]] = (),
    ) -> None:
        """Tag a stored memory again with today's tagger: its tags are recomputed, the ones the
        user gave stay (in today's normal form), and so do its edges in ``kept``."""
        given = []
        for dst, key, _, via in self.mirror.out_edges(memory_id):
            if key != "HasTag" or (memory_id, dst[2:]) in kept:
                continue
            self.batch.removed.append(("HasTag", memory_id, dst[2:], None))
            if via == "user":
                given.append(normalize_tag(dst[2:]))
        item = Item(
            content=content, kind="fact", tags=[t for t in dict.fromkeys(given) if t],
            scope="global", project=None, session_id=None, source="user", confidence=1.0,
            pinned=False, triggers=[], file_paths=file_paths, metadata={}, id=memory_id,
            valid_from=None, valid_until=None, supersedes=[], dedupe=False,
        )  # fmt: skip
        self._add_tags(memory_id, item)

    def _link_conflicts_and_related(
        self,
        memory_id: str,
        item: Item,
        candidates: list[_Candidate],
        outcome: Outcome,
        ts: datetime,
    ) -> None:
        """Supersede, contradict or relate the candidates, as the item's conflict mode says."""
        cfg = self.config
        trust = SOURCE_TRUST[item.source]
        # Memories under different headings are about different things ("Heinkel HD 32" and
        # "Heinkel HD 38"): however alike, neither duplicates nor contradicts the other.
        subject = heading(item.content)

        def same_subject(c: _Candidate) -> bool:
            other = heading(c.content)
            return subject is None or other is None or subject == other

        superseded: list[tuple[str, str]] = [(s, "explicit") for s in item.supersedes]
        contradicted: list[tuple[str, str]] = []
        mode = item.conflict_mode
        if mode != "off" and item.kind != "episode" and not item.supersedes:
            # A correction in other words replaces the one stored fact it fits best.
            reworded: tuple[_Candidate, ConflictSignal] | None = None
            for c in candidates:
                if (
                    c.sim < cfg.correction_threshold
                    or c.kind == "episode"
                    or not c.active
                    or not same_subject(c)
                ):
                    continue
                signal = None
                if c.sim >= cfg.conflict_threshold:
                    signal = detect_conflict(item.content, c.content)
                elif slots.change_cue(item.content):
                    # Saying it changes, a statement may stray further from the old one; only
                    # a changed value in an aligned slot counts there ("now prefers spaces").
                    signal = detect_conflict(item.content, c.content)
                    signal = signal if signal is not None and signal.kind == "value" else None
                if signal is not None and signal.kind == "value":
                    signal = self._one_value_or_several(item, signal, c, candidates)
                elif signal is None and reworded is None:
                    why = slots.replaces(
                        item.content, c.content, c.sim, partial_min=cfg.partial_correction_threshold
                    )
                    if why is not None:
                        reworded = (c, ConflictSignal("correction", why))
                    continue
                if signal is None:
                    continue
                newer = not (
                    item.valid_from is not None
                    and np.isfinite(c.valid_from)
                    and epoch(item.valid_from) < c.valid_from
                )
                if mode == "detect" and signal.sure and newer and trust >= c.trust and not c.pinned:
                    superseded.append((c.id, signal.detail))
                else:
                    contradicted.append((c.id, signal.detail))
            if reworded is not None and not superseded and not contradicted:
                # Only when nothing closer conflicts: the nearest fact it rewords, no other.
                c, signal = reworded
                newer = not (
                    item.valid_from is not None
                    and np.isfinite(c.valid_from)
                    and epoch(item.valid_from) < c.valid_from
                )
                if mode == "detect" and newer and trust >= c.trust and not c.pinned:
                    superseded.append((c.id, signal.detail))
                else:
                    contradicted.append((c.id, signal.detail))

        for old_id, reason in superseded:
            self._deactivate(old_id, memory_id, ts)
            self.batch.add_edge("Supersedes", src=memory_id, dst=old_id, reason=reason)
        for old_id, reason in contradicted:
            self.batch.add_edge("Contradicts", src=memory_id, dst=old_id, reason=reason)
        if superseded:
            outcome.action = "superseded"
            outcome.superseded = [s for s, _ in superseded]
            outcome.reason = superseded[0][1]
        elif contradicted:
            outcome.action = "contradicted"
            outcome.contradicts = [c for c, _ in contradicted]
            outcome.reason = contradicted[0][1]

        skip = {s for s, _ in superseded} | {c for c, _ in contradicted}
        related = [
            c for c in candidates if c.sim >= cfg.relate_threshold and c.id not in skip and c.active
        ][: cfg.relate_top_k]
        for c in related:
            self.batch.add_edge(
                "RelatesTo", src=memory_id, dst=c.id, weight=round(c.sim, 4), co_access=0,
                source="similarity",
            )  # fmt: skip
        outcome.related = [c.id for c in related]

    def _one_value_or_several(
        self,
        item: Item,
        signal: ConflictSignal,
        old: _Candidate,
        candidates: list[_Candidate],
    ) -> ConflictSignal | None:
        """What a changed value means: a new value of a single-valued attribute (the signal
        stands), one more of several (None: the memories are only related), or either (the
        signal, unsure: linked by ``Contradicts``, never superseded). See ``slots``.

        The store's own evidence comes first: when it already holds, active at once, several
        values of this relation for this subject (two stored facts the new one differs from
        in one value), the relation takes several, whatever the phrasing suggests.
        """
        verdict = slots.cardinality(item.content, old.content, signal)
        if verdict == "multi":
            return None
        held = [
            c
            for c in candidates
            if c.id != old.id
            and c.active
            and c.kind != "episode"
            and c.sim >= self.config.conflict_threshold
            and (other := detect_conflict(item.content, c.content)) is not None
            and other.kind == "value"
            # Another value than the old one, and not one kept beside it as disputed.
            and detect_conflict(c.content, old.content) is not None
            and not self._disputed(c.id, old.id)
        ]
        if held and not (slots.change_cue(item.content) and verdict == "single"):
            return None  # several values held at once (and no word that this one changes them)
        if verdict == "unsure":
            return ConflictSignal(
                signal.kind, signal.detail + " (or one more value)", False,
                signal.old_span, signal.new_span,
            )  # fmt: skip
        return signal

    def _disputed(self, a: str, b: str) -> bool:
        """Whether a ``Contradicts`` edge joins two memories (stored or planned)."""
        pair = {a, b}
        if any({e["src"], e["dst"]} == pair for e in self.batch.edges.get("Contradicts", [])):
            return True
        if a not in self.mirror or b not in self.mirror:
            return False
        return self.mirror.slot[b] in self.mirror.linked(MEMORY + a, "Contradicts")

    def _add_tags(self, memory_id: str, item: Item, skip: set[str] | None = None) -> list[str]:
        """Tag the memory (given, inferred and entity tags); returns the tag names."""
        tags = self._tags_for(item)
        home = title_tag(item.content)
        for name, kind in tags:
            self.batch.tags.setdefault(name, kind)
            if self.mirror.has_node(tnode(name)):
                self.batch.known_tags.add(name)
            if skip and name in skip:
                continue
            # A memory titled with an entity is that entity's home: mentions elsewhere lead here.
            source = "title" if name == home else kind
            self.batch.add_edge("HasTag", src=memory_id, dst=name, source=source, _memory_dst=False)
            if (
                indexed(name, kind)
                and name not in self.mirror.entities
                and name not in self.new_entities
            ):
                self._link_earlier_mentions(name)
                self.new_entities.add(name)
        return [t for t, _ in tags]

    # ------------------------------------------------------------------ helpers

    def _hash_of(self, memory_id: str) -> str | None:
        row = self.batch.new_rows.get(memory_id)
        if row is not None:
            return row["content_hash"]
        slot = self.mirror.slot.get(memory_id)
        return None if slot is None else self.mirror.hash_of(slot)

    def _previous_in_session(self, session_id: str) -> str | None:
        if session_id in self._last_in_session:
            return self._last_in_session[session_id]
        return self.mirror.last_in_session(session_id)

    def _tags_for(self, item: Item) -> list[tuple[str, str]]:
        tags: dict[str, str] = {t: "user" for t in item.tags}
        for t in infer_tags(item.content, file_paths=item.file_paths):
            tags.setdefault(t.name, t.kind)
        # Entities other memories introduced, mentioned here: the two meet at one Tag node.
        found = self.mirror.entities.find(item.content, self._frequency)
        for name in sorted(found | self.new_entities.find(item.content)):
            tags.setdefault(name, "entity")
        return list(tags.items())

    def _frequency(self, word: str) -> tuple[int, int]:
        """Memories holding the word, stored or earlier in this batch (entity matching)."""
        df, n = self.mirror.frequency(word)
        return df + len(self._pending_words.get(word, ())), n + len(self.batch.pending_ids)

    def _link_earlier_mentions(self, name: str) -> None:
        """Tag the stored (and pending) memories that already mention a new entity."""
        node = tnode(name)
        linked = 0
        for slot in self.mirror.lexical.candidates(name, MAX_BACKLINKS * 4):
            if not (self.mirror.alive[slot] and self.mirror.active[slot]):
                continue
            memory_id = self.mirror.ids[slot]
            if self.mirror.has_edge(memory_id, node) or not mentions(
                self.mirror.content[slot], name, self._frequency
            ):
                continue
            self.batch.add_edge(
                "HasTag", src=memory_id, dst=name, source="mention", _memory_dst=False
            )
            linked += 1
            if linked >= MAX_BACKLINKS:
                break
        toks = words(name)
        pending = (
            set.intersection(*(self._pending_words.get(t, set()) for t in toks)) if toks else set()
        )
        for memory_id in sorted(pending):
            row = self.batch.new_rows[memory_id]
            if name not in row["_tags"] and mentions(row["content"], name, self._frequency):
                row["_tags"].append(name)
                self.batch.add_edge(
                    "HasTag", src=memory_id, dst=name, source="mention", _memory_dst=False
                )

    def _new_row(self, memory_id: str, item: Item, vec: np.ndarray, trust: float) -> dict[str, Any]:
        ts = now()
        return {
            "id": memory_id,
            "content": item.content,
            "kind": item.kind,
            "scope": item.scope,
            "project": item.project,
            "session_id": item.session_id,
            "source": item.source,
            "created_at": ts,
            "updated_at": ts,
            "last_accessed": None,
            "valid_from": item.valid_from,
            "valid_until": item.valid_until,
            "access_count": 0,
            "strength": 1,
            "confidence": item.confidence,
            "trust": trust,
            "active": True,
            "pinned": item.pinned,
            "superseded_by": None,
            "triggers": item.triggers,
            "file_paths": item.file_paths,
            "metadata": item.metadata,
            "reinforcements": [],
            "content_hash": item.content_hash,
            "embedding": vec,
        }

    def _deactivate(self, old_id: str, new_id_: str, ts: datetime) -> None:
        if old_id in self.batch.new_rows:
            row = self.batch.new_rows[old_id]
            row.update(active=False, superseded_by=new_id_, updated_at=ts)
            row["valid_until"] = row["valid_until"] or ts
            return
        fields = self.batch.updates.setdefault(old_id, {})
        fields.update(active=False, superseded_by=new_id_, updated_at=ts)
        slot = self.mirror.slot[old_id]
        if not np.isfinite(self.mirror.valid_until[slot]):
            fields["valid_until"] = ts

    def _reinforce(self, memory_id: str, item: Item, reason: str) -> Outcome:
        ts = now()
        # The id the item asked for, when it gave one: an import run again finds its item
        # here (it was merged into this memory) and skips it instead of reinforcing again.
        asked = {"asked_id": item.id} if item.id else {}
        crumb = json.dumps(
            {"at": ts.isoformat() + "Z", "source": item.source, "session_id": item.session_id,
             "reason": reason, **asked},
            sort_keys=True,
        )  # fmt: skip
        trust = SOURCE_TRUST[item.source]
        if memory_id in self.batch.new_rows:
            row = self.batch.new_rows[memory_id]
            row["strength"] += 1
            row["confidence"] = _boost(row["confidence"])
            row["trust"] = max(row["trust"], trust)
            row["reinforcements"] = [*row["reinforcements"], crumb]
            row["pinned"] = row["pinned"] or item.pinned  # as a stored memory's below
            existing_tags = set(row["_tags"])
        else:
            current = self.batch.updates.get(memory_id) or {}
            # The mirror holds the stored row: no database read while planning.
            stored = self.mirror.records[self.mirror.slot[memory_id]]
            base = {**stored, **current}
            fields = self.batch.updates.setdefault(memory_id, {})
            fields.update(
                strength=int(base["strength"] or 1) + 1,
                confidence=_boost(float(base["confidence"] or 0.0)),
                trust=max(float(base["trust"] or 0.0), trust),
                reinforcements=[*(base["reinforcements"] or []), crumb],
                updated_at=ts,
            )
            if item.pinned:
                fields["pinned"] = True
            existing_tags = set(self.mirror.tags_of(memory_id))
        given = self._given_tags.setdefault(memory_id, set())
        for name in item.tags:
            if name not in existing_tags and name not in given:
                given.add(name)
                self.batch.tags.setdefault(name, "user")
                self.batch.add_edge(
                    "HasTag", src=memory_id, dst=name, source="user", _memory_dst=False
                )
        return Outcome(id=memory_id, action="reinforced", reason=reason)


def _space_key(item: Item) -> tuple[str, str | None]:
    """What tells an item's space apart: its scope, and its project or session."""
    return (item.scope, item.project if item.scope == "project" else
            item.session_id if item.scope == "session" else None)  # fmt: skip


def _boost(confidence: float) -> float:
    return round(min(1.0, confidence + 0.1 * (1.0 - confidence)), 6)


def _same_space(row: dict[str, Any], item: Item) -> bool:
    if row["scope"] != item.scope:
        return False
    if item.scope == "project" and row["project"] != item.project:
        return False
    return not (item.scope == "session" and row["session_id"] != item.session_id)


def plan_retag(
    mirror: Mirror,
    config: Config,
    file_paths: dict[str, list[str]],
    slots: Sequence[int],
    kept: Container[tuple[str, str]] = (),
) -> Batch:
    """A batch re-tagging these stored memories (``file_paths``: id → its file paths).

    ``kept``: (memory, tag) edges an earlier batch of the same re-tagging added (a mention of
    an entity it introduced, in a memory it did not re-tag): they stay, and are not added again.
    """
    planner = Planner(mirror, config)
    for slot in slots:
        memory_id = mirror.ids[slot]
        planner.plan_retag(
            memory_id, mirror.content.get(slot, ""), file_paths.get(memory_id, []), kept
        )
    # A memory tagged by a later one's new entity may also have found it itself: one edge.
    seen: set[tuple[str, str]] = set()
    unique = []
    for edge in planner.batch.edges.get("HasTag", []):
        key = (edge["src"], edge["dst"])
        if key not in seen and key not in kept:
            seen.add(key)
            unique.append(edge)
    planner.batch.edges["HasTag"] = unique
    return planner.batch

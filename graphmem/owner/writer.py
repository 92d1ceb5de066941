"""The write calls of a store this process owns, one way through: prepare → plan → journal
or apply.

``prepare`` (``graphmem.write.items``) checks every argument with the calling handle's
``Config`` and raises before anything is planned; ``Planner`` (``graphmem.write.planner``)
decides each item against the mirror; a small batch is journalled and applied behind
(``graphmem.owner.journal``), a bigger one, or one that deletes, is applied in one transaction
(``graphmem.write.batch.apply``); either way the mirror takes the batch at once. The façade
(``GraphMemory``) calls one method here per write; nothing here calls back into it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import progress as progress_mod
from ..config import Config
from ..edges import LINK_TABLES
from ..embed import Embedder, FastEmbedder
from ..errors import EmbedderMismatchError, NotFoundError, ReadOnlyError, ValidationError
from ..index.mirror import RETIRED_CRUMBS, last_mark
from ..models import (
    LINK_TYPES,
    ON_SECRET,
    Link,
    Memory,
    RememberBatch,
    RememberResult,
    memory_from_row,
)
from ..text.entities import indexed
from ..text.screen import screen_fields
from ..text.tags import normalize_tag
from ..timeutil import epoch, now
from ..write import batch as write_batch
from ..write import idempotency, ingest, validate
from ..write.items import Item, prepare, prepare_many
from ..write.planner import Planner, versions_of
from .shared import SharedState

MEMORY_CACHE_SIZE = 20_000
# A supersession that finds no end stamps the old memory's valid_until and the Supersedes edge
# in one batch, a moment apart: an end this close to the edge's creation was the supersession's.
SUPERSEDE_SLACK_S = 5.0


class Writer:
    """A handle on a store open in this process: its ``Config`` and read-only flag, the state
    it shares with the other handles on the store, and the write calls.

    Args:
        shared: the store's state in this process (``graphmem.owner.shared``).
        path: the store's folder.
        config: the calling handle's settings: they govern its calls (checks, planning).
        read_only: refuse writes (a read-only handle, or a read-only client's calls).
        model_name, model_path, embedder: the embedding model, loaded on first use.
    """

    def __init__(
        self,
        shared: SharedState,
        *,
        path: Path,
        config: Config,
        read_only: bool = False,
        model_name: str,
        model_path: str | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self._shared = shared
        self._store = shared.store
        self._mirror = shared.mirror
        self.path = path
        self.config = config
        # A read-only handle stays read-only even when the store is open read-write here.
        self.read_only = read_only or self._store.read_only
        self.model_name = model_name
        self._model_path = model_path
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use; one per store in a process)."""
        if self._embedder is None:
            self._embedder = self._shared.embedder
        if self._embedder is None:
            self._embedder = FastEmbedder(self.model_name, model_path=self._model_path)
            self._shared.embedder = self._embedder
            if self._embedder.dim != self._store.dim:
                raise EmbedderMismatchError(
                    f"The store holds {self._store.dim}-dimensional embeddings; "
                    f"'{self.model_name}' gives {self._embedder.dim}."
                )
        return self._embedder

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def _embed_items(self, items: Sequence[Item]) -> np.ndarray:
        """Embeddings of the items' contents; a text stored already, or earlier in the batch,
        (the same content hash) is not embedded again."""
        return ingest.embed_items(items, self._known_vectors, self._embed)

    def _known_vectors(
        self, items: Sequence[Item], known: dict[str, np.ndarray]
    ) -> tuple[list[np.ndarray | None], dict[str, list[int]]]:
        with self._shared.lock:
            return ingest.known_vectors(self._mirror, items, known)

    def remember(self, content: str, **fields: Any) -> RememberResult:
        on_secret = validate.as_choice(
            "on_secret", fields.pop("on_secret", "refuse"), ("refuse", "redact")
        )
        return self.remember_many([{"content": content, **fields}], on_secret=on_secret)[0]

    def remember_many(
        self,
        items: Iterable[dict[str, Any]],
        *,
        batch_size: int = 512,
        progress: bool | progress_mod.ProgressFn = False,
        dedupe: bool | None = None,
        conflicts: str | None = None,
        dry_run: bool = False,
        on_secret: str = "skip",
    ) -> RememberBatch:
        dry_run = validate.as_bool("dry_run", dry_run)
        if not dry_run:
            self._require_writable()
        batch_size = validate.as_int("batch_size", batch_size, 1, 100_000)
        if not isinstance(progress, bool) and not callable(progress):
            raise ValidationError("progress must be True, False or a function")
        defaults = {
            k: v for k, v in (("dedupe", dedupe), ("conflicts", conflicts)) if v is not None
        }
        on_secret = validate.as_choice("on_secret", on_secret, ON_SECRET)
        raw_items = validate.guard(
            lambda: [{**defaults, **raw} if isinstance(raw, dict) else raw for raw in items],
            "items must be an iterable of dicts",
        )
        prepared, flagged = prepare_many(raw_items, self.config, on_secret)
        if not prepared:
            return RememberBatch([], flagged=flagged)
        self._check_embeddings(prepared)
        self._check_supersedes(prepared)
        self._check_ids(prepared, batch_size)
        if dry_run:
            return RememberBatch(self._plan_only(prepared, batch_size), flagged=flagged)
        report, finish = progress_mod.reporter(progress, len(prepared))
        try:
            results: list[RememberResult] = []
            chunks = [prepared[i : i + batch_size] for i in range(0, len(prepared), batch_size)]
            # A client's call (or its retry) carries a request id: each batch is applied once.
            request = idempotency.REQUEST.get()
            keys = [
                None if request is None else idempotency.chunk_key(request, index)
                for index in range(len(chunks))
            ]
            if request is not None and idempotency.RETRY.get():
                # Applied by an owner that died? Its keys are in the database (replayed).
                self._shared.requests.fetch(self._store, [k for k in keys if k is not None])
            embedded = ingest.embedded_chunks(chunks, self._known_vectors, self._embed)
            for key, (chunk, vectors) in zip(keys, embedded, strict=True):
                results.extend(self._write_chunk(chunk, vectors, key))
                report(len(results))
        finally:
            finish()
        return RememberBatch(results, flagged=flagged)

    def _check_embeddings(self, items: Sequence[Item]) -> None:
        """Precomputed embeddings are of this store's model and dimension (a vector of another
        model would sit among the store's as noise: every similarity to it meaningless)."""
        for index, item in enumerate(items):
            where = f"item {index}: " if len(items) > 1 else ""
            model = self._store.model_name
            if item.embedding_model is not None and item.embedding_model != model:
                raise EmbedderMismatchError(
                    f"{where}embedding_model is '{item.embedding_model}'; this store's "
                    f"embeddings are from '{model}'."
                )
            if item.embedding is not None and len(item.embedding) != self._store.dim:
                raise ValidationError(
                    f"{where}embedding has {len(item.embedding)} dimensions; this store's "
                    f"model '{model}' gives {self._store.dim}."
                )

    def _check_supersedes(self, items: Sequence[Item]) -> None:
        """Every ``supersedes`` id names a stored memory or an earlier item of the call: found
        before the first batch is written (the planner finds it only in its own batch)."""
        earlier: set[str] = set()
        with self._shared.lock:
            for index, item in enumerate(items):
                for memory_id in item.supersedes:
                    if memory_id not in self._mirror and memory_id not in earlier:
                        where = f"item {index}: " if len(items) > 1 else ""
                        raise NotFoundError(f"{where}supersedes: no memory with id '{memory_id}'")
                if item.id:
                    earlier.add(item.id)

    def _check_ids(self, items: list[Item], batch_size: int) -> None:
        """An id an item gives that a later batch would refuse ("already exists": stored, or
        given earlier in the call, and not a duplicate it reinforces) is found before the first
        batch is written: the call fails whole, as one batch does. Only where an id given
        could clash and there are several batches, the call is planned once first (a dry
        run), by the same rules the write applies."""
        if len(items) <= batch_size:
            return  # one batch: it is planned whole before anything is written
        given = [item.id for item in items if item.id]
        with self._shared.lock:
            clash = len(set(given)) < len(given) or any(i in self._mirror for i in given)
        if clash:
            self._plan_only(items, batch_size)

    def _write_chunk(
        self, chunk: list[Item], vectors: np.ndarray, key: str | None = None
    ) -> list[RememberResult]:
        """Plan and write one batch. ``key``: the client request it answers; a request
        applied already (a retry after its owner died) is answered from what it did then."""
        # A small batch is journalled and applied to the database just after (write-behind):
        # planning needs only the mirror, so it does not wait for the database's write lock.
        behind = self._shared.journal is not None and len(chunk) <= self.config.write_behind_items
        lock = contextlib.nullcontext() if behind else self._store.engine.write_lock
        requests = self._shared.requests
        with self._shared.lock, lock:
            done = requests.get(key) if key is not None else None
            if done is not None:
                return self._results_of(done)
            planner = Planner(self._mirror, self.config, clusters_for=self._shared.clusters_for)
            outcomes = planner.plan_many(chunk, vectors)
            if key is not None:
                planner.batch.request, done = requests.attach(key, outcomes)
            if behind:
                self._apply_behind(planner.batch)
            else:
                self._apply(planner.batch)
            if key is not None and done is not None:
                requests.add(key, done)
                idempotency.crash_point("written")  # tests: durable, not answered
            created = sum(1 for o in outcomes if o.action != "reinforced")
            self._shared.writes_since_clustering += created
            every = self.config.cluster_every_writes
            # Also wait until the store has grown by a share (Config.cluster_growth):
            # a rebuild costs time in proportion to the store, so rebuilding every N writes
            # made ingest slow down as the store grew; this keeps its cost per write flat.
            due = max(every, int(self.config.cluster_growth * self._mirror.size))
            if every and self._shared.writes_since_clustering >= due:
                self._shared.writes_since_clustering = 0
                self._shared.maintainer.request_rebuild()
        memories = self._get_many([o.id for o in outcomes])
        return [
            RememberResult(
                id=o.id,
                action=o.action,
                memory=memories[o.id],
                superseded=o.superseded,
                contradicts=o.contradicts,
                related=o.related,
                reason=o.reason,
            )
            for o in outcomes
        ]

    def _results_of(self, done: list[dict[str, Any]]) -> list[RememberResult]:
        """The results of a batch applied earlier (its memories as they are now)."""
        memories = self._get_many([d["id"] for d in done])
        missing = [d["id"] for d in done if d["id"] not in memories]
        if missing:
            raise NotFoundError(
                f"This write was applied, but memory '{missing[0]}' has been deleted since."
            )
        return [RememberResult(memory=memories[d["id"]], **d) for d in done]

    def _plan_only(self, items: list[Item], batch_size: int) -> list[RememberResult]:
        """Plan every item in one planner (later items see earlier ones) and write nothing."""
        vectors = np.concatenate(
            [self._embed_items(items[i : i + batch_size])
             for i in range(0, len(items), batch_size)]
        )  # fmt: skip
        with self._shared.lock:
            planner = Planner(self._mirror, self.config)
            outcomes = planner.plan_many(items, vectors)
            stored = self._get_many([o.id for o in outcomes if o.id not in planner.batch.new_rows])
        return [
            RememberResult(
                id=o.id,
                action=o.action,
                memory=stored.get(o.id) or write_batch.planned_memory(planner.batch, o.id),
                superseded=o.superseded,
                contradicts=o.contradicts,
                related=o.related,
                reason=o.reason,
            )
            for o in outcomes
        ]

    def _require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"'{self.path}' was opened read-only.")

    def _apply(self, batch: write_batch.Batch, also: Iterable[str] = ()) -> set[str]:
        """The one way a write reaches the store: the batch in one transaction, then the
        mirror refreshed for what it touched (and ``also``). Every write method builds a
        ``write.Batch`` (remember and update through the planner) and ends here."""
        self._require_writable()
        self._store.engine.require_space()  # as a journalled write would (graphmem.storage.diskspace)
        with self._shared.lock, self._store.engine.write_lock:
            try:
                affected = write_batch.apply(self._store, batch, self._mirror)
            except BaseException:
                # The transaction rolled back: the mirror must not keep what it planned.
                self._mirror.load(self._store)
                raise
            also = set(also) - affected
            try:
                write_batch.mirror_written(self._mirror, self._store, batch, affected)
            except Exception:
                # The batch is committed: read what it wrote back from the database instead.
                self._mirror.refresh(self._store, affected)
            if also:
                self._mirror.refresh(self._store, also)
            self._mirror.entities.update(
                name for name, kind in batch.tags.items() if indexed(name, kind)
            )
        return affected

    def _apply_behind(self, batch: write_batch.Batch) -> set[str]:
        """Write a batch through the journal (see ``graphmem.owner.journal``): durable when this
        returns, in the mirror at once, in the database as soon as the applier or the next
        caller that reads it gets there. Batches that delete go the synchronous way (the
        mirror re-reads what they touched from the database). Caller holds the shared lock."""
        journal = self._shared.journal
        if journal is None or batch.removed or batch.purged:
            return self._apply(batch)
        self._require_writable()
        journal.check()  # an earlier batch failed to apply: retry now, or raise
        # Counted against the mirror as planned, before it takes the batch.
        write_batch.plan_counts(self._mirror, batch)
        journal.append(batch)
        affected = batch.affected()
        try:
            write_batch.mirror_written(self._mirror, self._store, batch, affected)
        except Exception:
            # The batch is journalled: read what it wrote back from the database instead
            # (reading passes the barrier, which applies it first).
            self._mirror.refresh(self._store, affected)
        self._mirror.entities.update(
            name for name, kind in batch.tags.items() if indexed(name, kind)
        )
        journal.keep_up()
        return affected

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        kind: str | None = None,
        confidence: float | None = None,
        pinned: bool | None = None,
        metadata: dict[str, Any] | None = None,
        triggers: list[str] | None = None,
        file_paths: list[str] | None = None,
        valid_from: Any = None,
        valid_until: Any = None,
        redact: bool = False,
        conflicts: str = "detect",
        max_metadata_bytes: int | None = None,
    ) -> Memory:
        validate.as_bool("redact", redact)
        current = self.get(memory_id)
        raw: dict[str, Any] = {
            "content": content if content is not None else current.content,
            "kind": current.kind if kind is None else kind,
            "confidence": current.confidence if confidence is None else confidence,
            "pinned": current.pinned if pinned is None else pinned,
            "metadata": current.metadata if metadata is None else metadata,
            "triggers": current.triggers if triggers is None else triggers,
            "file_paths": current.file_paths if file_paths is None else file_paths,
            "valid_from": current.valid_from if valid_from is None else valid_from,
            "valid_until": current.valid_until if valid_until is None else valid_until,
            "scope": current.scope,
            "project": current.project,
            "session_id": current.session_id,
            "source": current.source,
            "redact": redact,
            # A forgotten or superseded memory being edited hides nothing.
            "conflicts": conflicts if current.active else "off",
        }
        if max_metadata_bytes is not None:
            raw["max_metadata_bytes"] = max_metadata_bytes
        item = prepare(raw, self.config)
        fields: dict[str, Any] = {
            "kind": item.kind,
            "confidence": item.confidence,
            "pinned": item.pinned,
            "metadata": item.metadata,
            "triggers": item.triggers,
            "file_paths": item.file_paths,
            "valid_from": item.valid_from,
            "valid_until": item.valid_until,
            "updated_at": now(),
        }
        if item.content == current.content:
            self._apply(write_batch.Batch(updates={memory_id: fields}))
            return self.get(memory_id)
        vec = self._embed([item.content])[0]
        fields.update(content=item.content, content_hash=item.content_hash, embedding=vec)
        ts = fields["updated_at"]
        closed = item.valid_until is not None and epoch(item.valid_until) <= epoch(ts)
        if (
            valid_from is None
            and not closed
            and (current.valid_from is None or epoch(current.valid_from) < epoch(ts))
        ):
            # The new content holds from now: as of an earlier time the old version answers.
            # A window already closed (a superseded memory, one that expired) is not reopened
            # nor inverted: the edit corrects what held then.
            fields["valid_from"] = ts
        self._require_writable()
        with self._shared.lock, self._store.engine.write_lock:
            planner = Planner(self._mirror, self.config)
            # The old content stays, as a version history() returns (see plan_version).
            planner.plan_version(memory_id, ts, corrects=closed)
            planner.plan_update(memory_id, item, vec)
            planner.batch.updates.setdefault(memory_id, {}).update(fields)
            self._apply(planner.batch, also=[memory_id])
        return self.get(memory_id)

    def forget(self, memory_id: str, *, purge: bool = False) -> None:
        validate.as_bool("purge", purge)
        self._require_exists(memory_id)
        if purge:
            # No trace: the earlier versions update() kept go with it.
            with self._shared.lock:
                versions = versions_of(self._mirror, memory_id)
            gone = [memory_id, *versions]
            batch = write_batch.Batch(purged=gone)
            # A memory it superseded that another current one supersedes too stays retired,
            # now by that one (it had pointed at nothing, and a plain restore() revived it).
            for old in self._superseded_by_any(gone):
                other = self._other_superseder(old, gone)
                if other is not None:
                    batch.updates[old] = {"superseded_by": other, "updated_at": now()}
            self._apply(batch)
        else:
            self._apply(
                write_batch.Batch(updates={memory_id: {"active": False, "updated_at": now()}})
            )

    def restore(self, memory_id: str, *, unsupersede: bool = False) -> Memory:
        current = self.get(memory_id)
        successor = current.superseded_by
        if successor is not None and successor in self._mirror and not unsupersede:
            return current
        return self._revive(current, successor)

    def _revive(self, current: Memory, successor: str | None) -> Memory:
        """Make a memory current again, free of the supersession by ``successor``."""
        memory_id = current.id
        ts = now()
        fields: dict[str, Any] = {"active": True, "superseded_by": None, "updated_at": ts}
        if successor is not None:
            # The end a supersession gave the memory goes with it, or the next maintain()
            # would expire what was just made current again; an end of its own stays.
            ended = self._store.engine.rows(
                "MATCH (n:Memory {id: $n})-[s:Supersedes]->(o:Memory {id: $o}) "
                "RETURN s.created_at AS at",
                {"n": successor, "o": memory_id},
            )
            since = min((r["at"] for r in ended if r["at"] is not None), default=None)
            since = current.updated_at if since is None else since  # its successor is purged
            until = current.valid_until
            if until is not None and abs(epoch(until) - epoch(since)) <= SUPERSEDE_SLACK_S:
                fields["valid_until"] = None
        with self._shared.lock:
            crumbs = list(self._mirror.records.value(self._mirror.slot[memory_id],
                                                     "reinforcements") or [])  # fmt: skip
        if last_mark(crumbs) in RETIRED_CRUMBS:
            # A restore sticks: maintain() does not make this memory dormant again by itself.
            crumb = json.dumps({"at": ts.isoformat() + "Z", "restored": True,
                                "reason": "restored"}, sort_keys=True)  # fmt: skip
            fields["reinforcements"] = [*crumbs, crumb]
        batch = write_batch.Batch(updates={memory_id: fields})
        if successor is not None:
            batch.removed.append(("Supersedes", successor, memory_id, None))
        self._apply(batch)
        return self.get(memory_id)

    def _superseded_by_any(self, ids: Sequence[str]) -> list[str]:
        """The memories whose ``superseded_by`` is one of ``ids``."""
        rows = self._store.engine.rows(
            "MATCH (o:Memory) WHERE o.superseded_by IN $ids RETURN o.id AS id", {"ids": list(ids)}
        )
        return [r["id"] for r in rows]

    def _other_superseder(self, memory_id: str, excluding: Sequence[str]) -> str | None:
        """The newest current memory, not one of ``excluding``, that supersedes ``memory_id``."""
        rows = self._store.engine.rows(
            "MATCH (n:Memory)-[:Supersedes]->(o:Memory {id: $o}) "
            "WHERE NOT n.id IN $ex AND n.active AND n.superseded_by IS NULL "
            "RETURN n.id AS id ORDER BY n.created_at DESC LIMIT 1",
            {"o": memory_id, "ex": list(excluding)},
        )
        return rows[0]["id"] if rows else None

    def link(
        self,
        source: str,
        target: str,
        type: str = "relates_to",
        *,
        weight: float | None = None,
        reason: str | None = None,
    ) -> Link:
        table = self._link_table(type)
        source, target = validate.as_id(source, "source"), validate.as_id(target, "target")
        weight = None if weight is None else validate.as_float("weight", weight, 0.0, 1.0)
        reason = validate.opt_text("reason", reason, 1000)
        reason = screen_fields({"reason": reason}, redact=self.config.redact_secrets)["reason"]
        if source == target:
            raise ValidationError("A memory cannot be linked to itself")
        self._require_exists(source)
        self._require_exists(target)
        if type != "relates_to" and weight is not None:
            raise ValidationError("Only relates_to links carry a weight")
        if table == "Supersedes":
            # Only what is current replaces: a forgotten or superseded memory superseding
            # another hid it behind nothing current, and two such links made a cycle that hid
            # both (found by an attack).
            by = self.get(source)
            if not by.active or by.superseded_by is not None:
                why = (
                    "superseded by '" + by.superseded_by + "'" if by.superseded_by else "forgotten"
                )
                raise ValidationError(
                    f"'{source}' is not current ({why}): only a current memory can supersede "
                    "another"
                )
        w = 0.5 if weight is None and type == "relates_to" else weight

        batch = write_batch.Batch()
        if table == "RelatesTo":
            batch.add_edge(table, src=source, dst=target, weight=w, co_access=0, source="user")
        else:
            batch.add_edge(table, src=source, dst=target, reason=reason or "user")
        if table == "Supersedes":
            batch.updates[target] = {"active": False, "superseded_by": source, "updated_at": now()}
        self._apply(batch)
        return Link(source=source, target=target, type=type, weight=w, reason=reason)

    def unlink(self, source: str, target: str, type: str = "relates_to") -> int:
        table = self._link_table(type)
        source, target = validate.as_id(source, "source"), validate.as_id(target, "target")
        batch = write_batch.Batch(removed=[(table, source, target, None)])
        if table == "Supersedes" and self.get(target).superseded_by == source:
            # The memory it retired is retired by another current one still, or current again
            # (it had stayed hidden, superseded by a link that no longer was).
            other = self._other_superseder(target, [source])
            if other is not None:
                batch.updates[target] = {"superseded_by": other, "updated_at": now()}
            else:
                self._apply(batch)
                if not batch.removed_count:
                    raise NotFoundError(f"No {type} link from '{source}' to '{target}'")
                self._revive(self.get(target), source)
                return batch.removed_count
        self._apply(batch)
        if not batch.removed_count:
            raise NotFoundError(f"No {type} link from '{source}' to '{target}'")
        return batch.removed_count

    def tag(self, memory_id: str, *tags: str) -> Memory:
        names = self._tag_names(tags)  # checks types and sizes before the screen reads them
        screen_fields({"tags": list(tags)}, redact=False, identifiers={"tags"})
        self._require_exists(memory_id)
        have = set(self._mirror.tags_of(memory_id))
        new = [n for n in names if n not in have]

        batch = write_batch.Batch(tags={n: "user" for n in new})
        for n in new:
            batch.add_edge("HasTag", src=memory_id, dst=n, source="user", _memory_dst=False)
        self._apply(batch)
        return self.get(memory_id)

    def untag(self, memory_id: str, *tags: str) -> Memory:
        names = self._tag_names(tags)
        self._require_exists(memory_id)

        self._apply(write_batch.Batch(removed=[("HasTag", memory_id, n, None) for n in names]))
        return self.get(memory_id)

    def get(self, memory_id: str, *, with_embedding: bool = False) -> Memory:
        memory_id = validate.as_id(memory_id)
        with_embedding = validate.as_bool("with_embedding", with_embedding)
        rows = self._store.get_memories([memory_id], with_embedding=with_embedding)
        if memory_id not in rows:
            raise NotFoundError(f"No memory with id '{memory_id}'")
        return memory_from_row(rows[memory_id])

    def _get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        mirror = self._mirror
        out: dict[str, Memory] = {}
        with self._shared.lock:
            for memory_id in dict.fromkeys(ids):
                cached = mirror.memory_cache.get(memory_id)
                if cached is None:
                    slot = mirror.slot.get(memory_id)
                    if slot is None or slot not in mirror.records:
                        continue
                    row = {**mirror.records[slot], "tags": mirror.tags_of(memory_id)}
                    cached = mirror.memory_cache[memory_id] = memory_from_row(row)
                out[memory_id] = cached
            if len(mirror.memory_cache) > MEMORY_CACHE_SIZE:
                mirror.memory_cache.clear()
        return out

    def _require_exists(self, memory_id: str) -> None:
        memory_id = validate.as_id(memory_id)
        if memory_id not in self._mirror:
            raise NotFoundError(f"No memory with id '{memory_id}'")

    @staticmethod
    def _link_table(type: str) -> str:
        return LINK_TABLES[validate.as_choice("link type", type, LINK_TYPES)]

    def _tag_names(self, tags: Sequence[str]) -> list[str]:
        cfg = self.config
        tags = validate.as_texts("tags", tags, cfg.max_tags, cfg.max_tag_chars)
        if not tags:
            raise ValidationError("give at least one tag")
        names = []
        for t in tags:
            try:
                names.append(normalize_tag(t))
            except ValueError as exc:
                raise ValidationError(f"tag {t!r}: {exc}") from exc
        return list(dict.fromkeys(names))

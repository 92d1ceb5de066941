"""A store this process owns, as a ``MemoryBackend``: the reads, recall, feedback and upkeep
(the writes are ``graphmem.owner.writer``'s).

``GraphMemory`` holds one of these when this process owns its store (else a
``graphmem.remote.client.RemoteMemory``); the owner's server answers other processes' calls
with them too, one per caller's ``Config`` (``graphmem.owner.backends``). Every argument is
checked here, with this handle's ``Config``, whoever called.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from ..errors import GraphMemError, ValidationError
from ..index.mirror import Filters, Mirror
from ..keys import MEMORY, mnode
from ..models import (
    KINDS,
    SCOPES,
    Cluster,
    Gap,
    Hit,
    MaintainReport,
    Memory,
    PathStep,
    RecallHit,
    RecallResult,
    Stats,
    Tag,
)
from ..paths import caller_folder
from ..recall import written
from ..recall.aliases import spelled_as_stored
from ..recall.cascade import RecallParams, cascade
from ..recall.chains import chain_names_in
from ..recall.ordering import fit_budget, with_contradictions
from ..recall.walk import Step
from ..storage.sandbox import Limits
from ..text.question import onward_texts, relation_text, scene_read_in
from ..timeutil import epoch, from_db
from ..write import validate
from . import maintain
from .feedback import FeedbackEvent, RecallEvent
from .writer import Writer

# Bounds on counts and depths callers pass: beyond these a value is a mistake, and walking or
# sorting for it would hold the lock for minutes.
MAX_LIMIT = 10_000
MAX_DEPTH = 20
MAX_NEIGHBOR_DEPTH = 1_000
MAX_QUERY_CHARS = 1_000_000


class LocalMemory(Writer):
    """The calls of a store open in this process (see ``Writer`` for the arguments).

    ``on_close``: given to a handle that is one of the store's users in the process (a
    ``GraphMemory``'s), whose ``close`` may close the store (``graphmem.owner.backends``);
    the owner's serving handles have none.
    """

    def __init__(
        self, *args: Any, on_close: Callable[[], None] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._on_close = on_close

    @property
    def owner(self) -> dict[str, Any] | None:
        """None: this process owns the store."""
        return None

    def close(self) -> None:
        """Leave the store; the last of its users in the process closes it."""
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        kinds: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        scope: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
        include_inactive: bool = False,
    ) -> list[Hit]:
        query = validate.as_text("query", query, self.config.max_content_chars)
        limit = validate.as_int("limit", limit, 1, MAX_LIMIT)
        filters = self._filters(kinds, tags, scope, project, session_id, include_inactive, None)
        # The present only: a memory past valid_until or not yet valid is no current answer
        # (include_inactive=True returns everything stored, as it always did).
        filters.now = time.time()
        vec = self._embed([query])[0]
        with self._shared.lock:
            mask = self._mirror.mask(filters)
            best = self._mirror.top_k(vec, mask, limit)
            ids = [self._mirror.ids[s] for s, _ in best]
        memories = self._get_many(ids)
        return [
            Hit(memory=memories[i], score=round(score, 6))
            for i, (_, score) in zip(ids, best, strict=True)
            if i in memories
        ]

    def memories(
        self,
        *,
        tag: str | None = None,
        kinds: Sequence[str] | None = None,
        scope: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
        include_inactive: bool = False,
        limit: int | None = 50,
        offset: int = 0,
    ) -> list[Memory]:
        f = self._filters(kinds, tag, scope, project, session_id, include_inactive, None)
        limit = None if limit is None else validate.as_int("limit", limit, 1)
        ids = self._store.list_memory_ids(
            tag=f.tags[0] if f.tags else None,
            kinds=f.kinds,
            scope=f.scope,
            project=f.project,
            session_id=f.session_id,
            include_inactive=f.include_inactive,
            limit=limit,
            offset=validate.as_int("offset", offset, 0),
        )
        memories = self._get_many(ids)
        return [memories[i] for i in ids if i in memories]

    def tags(self) -> list[Tag]:
        return [Tag(**r) for r in self._store.tags()]

    def neighbors(
        self, memory_id: str, *, depth: int = 1, include_inactive: bool = False
    ) -> list[Memory]:
        memory_id = validate.as_id(memory_id)
        depth = validate.as_int("depth", depth, 1, MAX_NEIGHBOR_DEPTH)
        include_inactive = validate.as_bool("include_inactive", include_inactive)
        self._require_exists(memory_id)
        with self._shared.lock:
            g = self._mirror
            frontier, seen = {mnode(memory_id)}, {mnode(memory_id)}
            order: list[str] = []
            for _ in range(depth):
                if not frontier:
                    break
                nxt: set[str] = set()
                for node in frontier:
                    for nb in _memory_neighbours(g, node):
                        if nb not in seen:
                            seen.add(nb)
                            nxt.add(nb)
                            order.append(nb[2:])
                frontier = nxt
        memories = self._get_many(order)
        out = [memories[i] for i in order if i in memories]
        return out if include_inactive else [m for m in out if m.active]

    def history(self, memory_id: str) -> list[Memory]:
        self._require_exists(memory_id)
        ids = self._store.supersede_chain(memory_id)
        memories = self._get_many(ids)
        # A memory's versions (kept by update) come before it: its current content dates from
        # the end of its latest version, not from its creation.
        since = {m.id: m.created_at for m in memories.values()}
        for m in memories.values():
            owner = next((r.get("version_of") for r in m.reinforcements if "version_of" in r), None)
            if owner in since and m.valid_until is not None:
                since[owner] = max(since[owner], m.valid_until)
        return sorted(memories.values(), key=lambda m: (since[m.id], m.created_at, m.id))

    def stats(self) -> Stats:
        c = self._store.counts()
        return Stats(
            path=str(self.path),
            memories=c["memories"],
            active=c["active"],
            inactive=c["memories"] - c["active"],
            tags=c["tags"],
            clusters=c["clusters"],
            edges=c["edges"],
            kinds=c["kinds"],
            embedding_model=self._store.model_name,
            dim=int(self._store.dim or 0),
            schema_version=self._store.schema_version,
        )

    def cypher(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        write: bool = False,
        files: str | Path | None = None,
        timeout: float = 30.0,
    ) -> list[dict[str, Any]]:
        folder = None if files is None else caller_folder("files", files)
        query = validate.as_text("query", query, MAX_QUERY_CHARS)
        params = validate.as_params(params)
        timeout = validate.as_float("timeout", timeout, 0.001, 3600.0)
        cfg = self.config
        limits = Limits(cfg.cypher_memory_mb, cfg.cypher_max_rows, cfg.cypher_max_bytes)
        if validate.as_bool("write", write):
            self._require_writable()
            # Checked first on a scratch copy, which may take the statement's whole time:
            # without the store's lock, so recalls and writes go on meanwhile (an attack froze
            # every recall for a --write statement's timeout).
            self._store.cypher(
                query, params, write=True, files=folder, timeout_s=timeout, limits=limits
            )
            with self._shared.lock:
                try:
                    return self._store.cypher_apply(query, params, timeout_s=timeout, limits=limits)
                finally:
                    # A free-form write can touch anything: rebuild the mirror from the database.
                    self._mirror.load(self._store)
        rows = self._store.cypher(query, params, files=folder, timeout_s=timeout, limits=limits)
        assert rows is not None  # a read runs whole in the sandbox, which answers its rows
        return rows

    def recall(
        self,
        context: str,
        *,
        limit: int = 10,
        depth: int | None = None,
        seeds: int | Sequence[str] | None = None,
        threshold: float | None = None,
        kinds: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        scope: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
        at: Any = None,
        budget_tokens: int | None = None,
        include_history: bool = False,
        learn: bool = True,
    ) -> RecallResult:
        context = validate.as_text("context", context, self.config.max_content_chars)
        limit = validate.as_int("limit", limit, 1, MAX_LIMIT)
        if budget_tokens is not None:
            budget_tokens = validate.as_int("budget_tokens", budget_tokens, 1)
        session_id = validate.opt_text("session_id", session_id, self.config.max_name_chars)
        cfg = self.config
        filters = self._filters(kinds, tags, scope, project, None, False, at)
        include_history = validate.as_bool("include_history", include_history)
        learn = validate.as_bool("learn", learn)
        if not include_history:
            # The present only (at= has its own window): out-of-window memories are left out;
            # with include_history they come back flagged "expired" or "not_yet_valid".
            filters.now = time.time()
        params = RecallParams(
            limit=limit,
            depth=cfg.depth if depth is None else validate.as_int("depth", depth, 0, MAX_DEPTH),
            seeds=cfg.seed_limit if seeds is None or not isinstance(seeds, int | np.integer)
            else validate.as_int("seeds", seeds, 1, MAX_LIMIT),
            seed_ids=() if seeds is None or isinstance(seeds, int | np.integer)
            else tuple(validate.as_ids("seeds", seeds, MAX_LIMIT)),
            threshold=cfg.seed_threshold
            if threshold is None else validate.as_float("threshold", threshold, -1.0, 1.0),
            session_id=session_id,
            include_history=include_history,
        )  # fmt: skip
        with self._shared.lock:
            # Read with the names it writes in a form the store never wrote (a person's
            # handle, a system's shortened identifier).
            asked = spelled_as_stored(self._mirror, context) if params.depth else context
            names = chain_names_in(self._mirror, cfg, asked) if params.depth else []
            # Chains read the relation words of the question with a scene-setting sentence
            # taken in ("... Osprey. Who leads that team?": who leads Osprey).
            relation_context = scene_read_in(
                asked, names, lambda noun: written.kind_word(self._mirror, noun)
            )
        # A question about named entities is also embedded without the names, and without the
        # relations next to them, in one batch: chains judge facts by what it asks about them.
        rest = relation_text(relation_context, names) if names else ""
        onward = onward_texts(relation_context, names, params.depth) if rest else []
        texts = list(dict.fromkeys(t for t in [asked, rest, *onward] if t))
        vecs = dict(zip(texts, self._embed(texts), strict=True))
        rest_vec = vecs[rest] if rest else None
        onward_vecs = tuple(vecs[t] for t in onward)
        with self._shared.lock:
            found, sims, best_sim = cascade(
                self._mirror,
                cfg,
                vecs[asked],
                asked,
                filters,
                params,
                rest_vec=rest_vec,
                onward_vecs=onward_vecs,
                relation_context=relation_context,
            )
            if budget_tokens is not None:
                found = fit_budget(found, self._mirror, budget_tokens)
            found = with_contradictions(self._mirror, found[:limit])[:limit]
            ids = [self._mirror.ids[f.slot] for f in found]
            verified = [
                self._mirror.ids[f.slot] for f in found if sims[f.slot] >= cfg.verify_threshold
            ]
            labels = {f.slot: self._mirror.content.get(f.slot, "") for f in found}
        memories = self._get_many(ids)
        hits = []
        for f in found:
            memory_id = self._mirror.ids[f.slot]
            if memory_id not in memories:
                continue
            hits.append(
                RecallHit(
                    memory=memories[memory_id],
                    score=round(f.score, 6),
                    path=[_step(s, labels, self._mirror) for s in f.path],
                    flags=f.flags,
                    contradicts=f.contradicts,
                )
            )
        recall_id = self._shared.maintainer.new_recall(ids)
        if self.read_only or not learn:
            # A read-only handle changes nothing, not even access counts or learned links
            # (the store itself may be open read-write: its owner serves other processes);
            # learn=False asks the same of any handle (explain, viz: inspection never writes).
            return RecallResult(hits, recall_id=recall_id)
        self._shared.maintainer.submit(
            RecallEvent(
                recall_id=recall_id,
                context=context,
                session_id=session_id,
                returned=ids,
                verified=verified,
                best_score=best_sim,
                gap=not hits or best_sim < params.threshold,
            )
        )
        return RecallResult(hits, recall_id=recall_id)

    def feedback(
        self, recall_id: str, *, used: Sequence[str] = (), rejected: Sequence[str] = ()
    ) -> None:
        self._require_writable()
        recall_id = validate.as_text("recall_id", recall_id, 64)
        used, rejected = validate.as_ids("used", used), validate.as_ids("rejected", rejected)
        self._shared.maintainer.submit(
            FeedbackEvent(recall_id=recall_id, used=used, rejected=rejected)
        )

    def flush(self) -> None:
        self._shared.maintainer.flush()
        if self._shared.maintainer.errors:
            error = self._shared.maintainer.errors.pop(0)
            raise GraphMemError(f"Background maintenance failed: {error}") from error

    def gaps(self, *, limit: int = 50) -> list[Gap]:
        limit = validate.as_int("limit", limit, 1, MAX_LIMIT)
        self._shared.maintainer.flush()
        return [
            Gap(**{**g, "created_at": from_db(g["created_at"])}) for g in self._store.gaps(limit)
        ]

    def rebuild_clusters(
        self,
        *,
        min_cluster_size: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> list[Cluster]:
        self._require_writable()
        if min_cluster_size is not None:
            min_cluster_size = validate.as_int("min_cluster_size", min_cluster_size, 2)
        progress = validate.as_callable("progress", progress)
        self._shared.maintainer.flush()
        self._shared.rebuild_clusters(progress, min_cluster_size)
        return self.clusters()

    def maintain(self, *, dry_run: bool = False) -> MaintainReport:
        dry_run = validate.as_bool("dry_run", dry_run)
        if not dry_run:
            self._require_writable()
        with self._shared.lock:
            report = maintain.plan(self._mirror, self.config, time.time())
            if dry_run or not report.changes:
                return report.model_copy(update={"dry_run": dry_run})
            self._apply(maintain.batch(self._mirror, report))
        return report.model_copy(update={"dry_run": False})

    def clusters(self) -> list[Cluster]:
        return [
            Cluster(id=c["id"], label=c["label"] or "", size=int(c["size"] or 0),
                    created_at=from_db(c["created_at"]))
            for c in self._store.clusters()
        ]  # fmt: skip

    def schema(self) -> dict[str, list[dict[str, Any]]]:
        tables = self._store.schema_tables()
        return {
            "nodes": [t for t in tables if t["type"] == "NODE"],
            "relationships": [t for t in tables if t["type"] == "REL"],
        }

    def graph_data(self, **options: Any) -> dict[str, Any]:
        from ..export.graph import to_networkx

        return nx.node_link_data(to_networkx(self._store, **options), edges="edges")

    def to_networkx(self, **options: Any) -> Any:
        from ..export.graph import FILTER_OPTIONS, to_networkx

        validate.keys_in("option(s)", options, FILTER_OPTIONS)
        return to_networkx(self._store, **options)

    def _filters(
        self,
        kinds: Sequence[str] | None,
        tags: Sequence[str] | None,
        scope: str | None,
        project: str | None,
        session_id: str | None,
        include_inactive: bool,
        at: Any,
    ) -> Filters:
        if kinds is not None:
            kinds = validate.as_list("kinds", kinds, len(KINDS) * 4)
            bad = [k for k in kinds if not isinstance(k, str) or k not in KINDS]
            if bad:
                raise ValidationError(f"unknown kind(s) {bad}; expected {', '.join(KINDS)}")
        if scope is not None:
            validate.as_choice("scope", scope, SCOPES)
        if tags is not None:
            tags = validate.as_list("tags", tags, self.config.max_tags)
        when = validate.as_time("at", at)
        return Filters(
            kinds=kinds,
            tags=self._tag_names(tags) if tags else None,
            scope=scope,
            project=validate.opt_text("project", project, self.config.max_name_chars),
            session_id=validate.opt_text("session_id", session_id, self.config.max_name_chars),
            include_inactive=validate.as_bool("include_inactive", include_inactive),
            at=None if when is None else epoch(when),
        )


def _step(step: Step, labels: dict[int, str], mirror: Mirror) -> PathStep:
    kind = {"m": "memory", "t": "tag", "c": "cluster"}[step.node[0]]
    key = step.node[2:]
    if kind == "memory":
        slot = mirror.slot.get(key)
        label = mirror.content.get(slot, key) if slot is not None else key
    else:
        label = key
    return PathStep(
        node=key,
        node_type=kind,
        label=label,
        edge=step.edge,
        via=step.via,
        score=round(step.score, 6),
    )


def _memory_neighbours(g: Mirror, node: str) -> Iterable[str]:
    for nb in _all_neighbours(g, node):
        if nb.startswith(MEMORY):
            yield nb
        else:  # through a tag or cluster
            for nb2 in _all_neighbours(g, nb):
                if nb2 != node and nb2.startswith(MEMORY):
                    yield nb2


def _all_neighbours(g: Mirror, node: str) -> Iterable[str]:
    return g.adjacent(node)

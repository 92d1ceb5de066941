"""``GraphMemory``: the public façade. Each method checks its arguments and delegates."""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import networkx as nx
import numpy as np

from . import idempotency, ingest, paths, settings, upkeep, validate
from . import progress as progress_mod
from . import write as write_mod
from .agent import MemoryAgent
from .chains import chain_names_in, relation_text
from .client import CALLS, RemoteMemory, RemoteStore
from .config import DEFAULT_MODEL, TOKEN_ENV, Config
from .edges import LINK_TABLES
from .embed import KNOWN_DIMS, Embedder, FastEmbedder
from .entities import indexed
from .errors import (
    EmbedderMismatchError,
    GraphMemError,
    NotFoundError,
    ReadOnlyError,
    StoreLockedError,
    ValidationError,
)
from .maintenance import FeedbackEvent, RecallEvent, upgrade_tags
from .mirror import RETIRED_CRUMBS, Filters, Mirror, last_mark, mnode
from .models import (
    KINDS,
    LINK_TYPES,
    ON_SECRET,
    SCOPES,
    Cluster,
    Gap,
    Hit,
    Link,
    MaintainReport,
    Memory,
    PathStep,
    RecallHit,
    RecallResult,
    RememberBatch,
    RememberResult,
    Stats,
    Tag,
    memory_from_row,
)
from .paths import DB_FILE, caller_folder
from .recall import RecallParams, cascade, fit_budget, with_contradictions
from .sandbox import Limits
from .secrets import screen_fields
from .state import SHARED, SHARED_LOCK, SharedState
from .store import Store
from .tags import normalize_tag
from .timeutil import epoch, from_db, now
from .walk import Step

_LINK_TABLES = LINK_TABLES
MEMORY_CACHE_SIZE = 20_000
# Bounds on counts and depths callers pass: beyond these a value is a mistake, and walking or
# sorting for it would hold the lock for minutes.
MAX_LIMIT = 10_000
MAX_DEPTH = 20
MAX_NEIGHBOR_DEPTH = 1_000
# A supersession that finds no end stamps the old memory's valid_until and the Supersedes edge
# in one batch, a moment apart: an end this close to the edge's creation was the supersession's.
SUPERSEDE_SLACK_S = 5.0
MAX_QUERY_CHARS = 1_000_000
AGENT_OPTIONS = frozenset(
    {"topic_threshold", "limit", "depth", "seeds", "threshold", "kinds", "tags", "scope",
     "project", "session_id", "at", "budget_tokens", "include_history"}
)  # fmt: skip


_F = TypeVar("_F", bound=Callable[..., Any])
# Config fields the handles on one store share (maintenance and clustering).
SHARED_CONFIG_FIELDS = (
    "link_learning_rate", "cluster_every_recalls", "cluster_every_writes", "min_cluster_size",
)  # fmt: skip


# A write-triggered cluster rebuild waits for the store to grow by this fraction.
CLUSTER_GROWTH = 0.25


def served(fn: _F) -> _F:
    """Mark a public method as answered by the store's holder when this handle is a client
    (``client.CALLS`` lists them, and says which write)."""
    name = fn.__name__
    if name not in CALLS:
        raise AssertionError(f"{name} is not in graphmem.client.CALLS")

    @functools.wraps(fn)
    def call(self: GraphMemory, *args: Any, **kwargs: Any) -> Any:
        if self._remote is None:
            return fn(self, *args, **kwargs)
        self._check_open()
        return self._remote.invoke(name, args, kwargs)

    return cast(_F, call)


def _check_shared_config(open_with: Config, asked: Config, path: Path) -> None:
    """The rule for a second handle on a store already open in this process.

    A handle's ``Config`` governs its own calls (recall, the write path). What the handles
    share (the maintenance worker and cluster rebuilds) keeps the settings of the handle that
    opened the store, so a later handle that asks for other shared settings is refused rather
    than silently ignored.
    """
    differ = [f for f in SHARED_CONFIG_FIELDS if getattr(open_with, f) != getattr(asked, f)]
    if differ:
        raise ValidationError(
            f"'{path}' is already open in this process with other shared settings "
            f"({', '.join(differ)}); close the other handles first, or pass the same values."
        )


def _close_shared(shared: SharedState) -> None:
    """Stop serving, flush maintenance, close the database: the owner's orderly exit."""
    listener = getattr(shared, "listener", None)
    if listener is not None:
        listener.stop()
    shared.maintainer.close()
    # Best effort: without a snapshot the next open rebuilds the mirror from the database.
    with contextlib.suppress(Exception):
        shared.save_snapshot()
    # Applies what the journal holds; what it cannot stays in the file for the next owner.
    shared.close_journal()
    shared.store.close()


@atexit.register
def _close_all() -> None:
    # An agent that exits without close(): stop serving and flush, so the next opener finds
    # no stale socket and no maintenance is lost.
    with SHARED_LOCK:
        states = list(SHARED.values())
        SHARED.clear()
    for shared in states:
        with contextlib.suppress(Exception):
            _close_shared(shared)


class GraphMemory:
    """A graph-native memory store on disk.

    Args:
        path: the store's folder (created when missing).
        model_path: folder of the embedding model files; ``None`` reads ``GRAPHMEM_MODEL_PATH``,
            and without it fastembed downloads ``model_name``.
        model_name: the fastembed model (default all-MiniLM-L6-v2, 384 dims).
        embedder: any object with ``model_name``, ``dim`` and ``embed(texts)``; overrides the two
            arguments above.
        read_only: open without write access; writes raise ``ReadOnlyError``.
        config: tunables (thresholds, weights); see ``graphmem.Config``.
        timeout: seconds to wait for the store when another process holds it but does not
            answer yet (default ``GRAPHMEM_TIMEOUT`` or 20).
        token: for ``path`` given as ``http://HOST:PORT`` (a ``graphmem serve --tcp``
            holder): its token (default ``GRAPHMEM_TOKEN``).
        serve: when this process opens the store, answer other processes on its socket
            (the default). ``False`` owns the store without serving: another process that
            opens it meanwhile gets ``StoreLockedError``. For single-process tools and tests,
            which then start no server thread and no socket.

    One process owns a store: the first to open it. It serves every other process that opens
    the same store, on a Unix socket in the store folder, and those handles are its clients:
    the same calls with the same results and exceptions, and every write visible to all as
    soon as it returns. ``holder`` tells which process owns the store.

    Raises:
        StoreLockedError: another process holds the store and does not answer in time.
        EmbedderMismatchError: the store was built with another model or dimension.
        NotFoundError: ``read_only`` and there is no store at ``path``.
        ModelLoadError: the embedding model cannot be loaded (raised when it is first needed).

    Use it as a context manager, or call ``close()``.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        model_path: str | None = None,
        model_name: str | None = None,
        embedder: Embedder | None = None,
        read_only: bool = False,
        config: Config | None = None,
        timeout: float | None = None,
        token: str | None = None,
        serve: bool = True,
    ) -> None:
        self.config = config or Config()
        self._serve_others = bool(serve)
        self._embedder = embedder
        self._model_path = model_path
        self.model_name = embedder.model_name if embedder else (model_name or DEFAULT_MODEL)
        self._dim = embedder.dim if embedder else KNOWN_DIMS.get(self.model_name)
        self._read_only = bool(read_only)
        self._remote: RemoteMemory | None = None
        self._closed = False
        self.read_only = self._read_only
        if isinstance(path, str) and path.startswith(("http://", "https://")):
            # A holder reached over TCP (graphmem serve --tcp): the token it printed.
            self.path = Path(path)
            remote = RemoteStore(url=path, token=token or os.environ.get(TOKEN_ENV))
            if not remote.ping():
                remote.close()
                raise StoreLockedError(f"Nothing answers at {path}.")
            self._remote = RemoteMemory(remote, self.path, read_only=self._read_only)
            return
        self.path = Path(path).expanduser()
        self._key = (self.path / "graph.kuzu").resolve()
        if model_path is None and embedder is None:
            # GRAPHMEM_MODEL_PATH, else the store's graphmem.toml, else the user's config file.
            self._model_path = settings.value("model_path", self.path)
        self._timeout = settings.value("timeout", self.path) if timeout is None else float(timeout)
        self._open()

    def _open(self) -> None:
        """Own the store, or become a client of the process that owns it.

        Kùzu's file lock decides who owns a store, so two processes racing to open it cannot
        both win: the winner serves the store on its socket; everyone else calls through it.
        Between a holder's exit and the next owner there is a short window where neither
        works: wait for one or the other, up to ``timeout`` seconds.
        """
        deadline = time.monotonic() + self._timeout
        delay = 0.005
        while True:
            if self._open_local():
                return
            remote = RemoteStore(socket=paths.socket_path(self.path))
            if remote.ping():
                self._remote = RemoteMemory(
                    remote, self.path, read_only=self._read_only, reopen=self._reopen
                )
                return
            remote.close()
            if time.monotonic() >= deadline:
                raise StoreLockedError(
                    f"The store at '{self.path}' is open in another process that does not "
                    f"answer on its socket (waited {self._timeout:g} s). If that process is a "
                    "read-only opener, wait for it to finish."
                )
            # Retrying is the only way to learn that a lock was released: Kùzu has no wait.
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def _reopen(self) -> GraphMemory:
        """The holder is gone: open again, as the new holder or a client of it."""
        if self._remote is not None:
            self._remote.close()
            self._remote = None
        self._open()
        return self

    def _open_local(self) -> bool:
        """Open (or join) the store in this process; False when another process holds it."""
        key = self._key
        with SHARED_LOCK:
            shared = SHARED.get(key)
            if shared is None:
                if self._dim is None:
                    self._embedder = FastEmbedder(self.model_name, model_path=self._model_path)
                    self._dim = self._embedder.dim
                try:
                    store = self._open_store()
                except StoreLockedError:
                    return False
                try:
                    shared = SharedState(store, self.config)
                except BaseException:
                    store.close()
                    raise
                if not store.read_only:
                    try:
                        upgrade_tags(store, shared.mirror, self.config)
                        if self._serve_others:
                            shared.listener = self._serve(shared)
                    except BaseException:
                        shared.maintainer.close()
                        shared.close_journal()
                        store.close()
                        raise
                SHARED[key] = shared
            elif shared.store.model_name != self.model_name:
                raise EmbedderMismatchError(
                    f"'{self.path}' is open in this process with '{shared.store.model_name}'."
                )
            else:
                _check_shared_config(shared.config, self.config, self.path)
                if self._serve_others and shared.listener is None and not shared.store.read_only:
                    # Opened by a handle that served nobody: this one asks to be reachable.
                    shared.listener = self._serve(shared)
            shared.refs += 1
        self._attach(shared)
        return True

    def _open_store(self) -> Store:
        """The database, opened read-write even for a read-only handle: whoever opens a store
        owns it and must be able to serve other processes' writes (a read-only opener that
        served nobody would lock every writer out). The handle itself stays read-only.
        A store this user cannot write opens read-only and serves nobody."""
        if self._read_only and not (self.path / DB_FILE).exists():
            raise NotFoundError(f"No graphmem store at '{self.path}'.")
        sizes = {"buffer_pool_mb": self.config.buffer_pool_mb, "max_db_gb": self.config.max_db_gb}
        try:
            return Store(
                self.path,
                read_only=False,
                model_name=self.model_name,
                dim=self._dim,
                **sizes,
            )
        except StoreLockedError:
            raise
        except GraphMemError:
            if not self._read_only or os.access(self.path / DB_FILE, os.W_OK):
                raise
            return Store(
                self.path,
                read_only=True,
                model_name=self.model_name,
                dim=self._dim,
                **sizes,
            )

    def _attach(self, shared: SharedState) -> None:
        self._shared = shared
        self._store = shared.store
        self._mirror = shared.mirror
        # A read-only handle stays read-only even when the store is open read-write here.
        self.read_only = self._read_only or self._store.read_only

    def _serve(self, shared: SharedState) -> Any:
        """Answer other processes on this store's socket."""
        from . import server

        app = server.create_app(
            self._serving_handle(shared),
            CALLS,
            reader=self._serving_handle(shared, read_only=True),
        )
        return server.Listener(app, unix=paths.socket_path(self.path))

    def _serving_handle(self, shared: SharedState, *, read_only: bool = False) -> GraphMemory:
        """A handle of the holder's own that answers other processes' calls (read-write, or
        read-only for read-only clients; not counted among the users of the store, so it
        never keeps a store open)."""
        handle = object.__new__(GraphMemory)
        handle.config = shared.config
        handle._embedder = self._embedder
        handle._model_path = self._model_path
        handle.model_name = self.model_name
        handle._dim = self._dim
        handle._read_only = read_only
        handle._serve_others = True
        handle._remote = None
        handle._closed = False
        handle.path = self.path
        handle._key = self._key
        handle._attach(shared)
        return handle

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store (the database closes when its last user in the process does).

        The process that owns the store stops serving other processes first (calls in
        flight finish); the next process to open the store becomes its owner, and clients of
        this one reconnect to it.
        """
        if self._closed:
            return
        self._closed = True
        if self._remote is not None:
            self._remote.close()
            return
        with SHARED_LOCK:
            self._shared.refs -= 1
            last = self._shared.refs == 0
            if last:
                SHARED.pop(self._key, None)
        if last:
            _close_shared(self._shared)

    def _check_open(self) -> None:
        if self._closed:
            raise GraphMemError("This GraphMemory is closed.")

    @property
    def holder(self) -> dict[str, Any] | None:
        """The process that owns the store when this handle is its client (pid, store), or
        None when this process owns it."""
        return self._remote.holder if self._remote is not None else None

    @property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use)."""
        if self._embedder is None and self._remote is None:
            # One model per store in a process, whichever handle loads it first.
            self._embedder = self._shared.embedder
        if self._embedder is None:
            self._embedder = FastEmbedder(self.model_name, model_path=self._model_path)
            if self._remote is None:
                self._shared.embedder = self._embedder
            if self._remote is None and self._embedder.dim != self._store.dim:
                raise EmbedderMismatchError(
                    f"The store holds {self._store.dim}-dimensional embeddings; "
                    f"'{self.model_name}' gives {self._embedder.dim}."
                )
        return self._embedder

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def _embed_items(self, items: Sequence[write_mod.Item]) -> np.ndarray:
        """Embeddings of the items' contents; a text stored already, or earlier in the batch,
        (the same content hash) is not embedded again."""
        return ingest.embed_items(items, self._known_vectors, self._embed)

    def _known_vectors(
        self, items: Sequence[write_mod.Item], known: dict[str, np.ndarray]
    ) -> tuple[list[np.ndarray | None], dict[str, list[int]]]:
        with self._shared.lock:
            return ingest.known_vectors(self._mirror, items, known)

    # ------------------------------------------------------------------ writing

    @served
    def remember(self, content: str, **fields: Any) -> RememberResult:
        """Store one memory (or reinforce the one it duplicates).

        Args:
            content: the text to remember.
            **fields: kind, tags, scope, project, session_id, source, confidence, pinned,
                triggers, file_paths, metadata, id, valid_from, valid_until, supersedes,
                dedupe, conflicts, redact (store with secrets redacted), embedding (a
                vector computed elsewhere with this store's model: it is not embedded again;
                ``embedding_model`` names that model and is checked when given).

                ``dedupe`` (default True) controls merging: a memory that restates a stored
                one (the same content words, subject and polarity) reinforces it instead of
                being created. ``dedupe=False`` always creates a new memory and never hides an
                older one (conflicts are at most flagged).

                ``conflicts`` controls what a new memory does to a stored one it disagrees
                with: ``"detect"`` (default) supersedes it when the new statement surely
                replaces it (same subject and attribute, a newer and as trusted source, not
                pinned) and links the two with ``Contradicts`` when unsure; ``"flag"`` never
                supersedes, only links with ``Contradicts``; ``"off"`` checks nothing.
                ``supersedes=[ids]`` supersedes those memories whatever the mode.

        Returns:
            A ``RememberResult``: the id, the action taken and the memory as stored.

                ``on_secret``: ``"refuse"`` (default) raises ``SecretError`` when a field
                holds a secret; ``"redact"`` stores it with the secret replaced (as
                ``redact=True``).

        Raises:
            ValidationError: bad arguments; nothing is written.
            SecretError: the content holds a secret; nothing is written.
            NotFoundError: ``supersedes`` names an unknown memory.
            ReadOnlyError: the store is read-only.
        """
        on_secret = validate.as_choice(
            "on_secret", fields.pop("on_secret", "refuse"), ("refuse", "redact")
        )
        return self.remember_many([{"content": content, **fields}], on_secret=on_secret)[0]

    @served
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
        """Store many memories: embeddings are batched and each batch is one transaction.

        Every item is validated before anything is written, and every ``supersedes`` id
        checked, so a bad item leaves the store unchanged. (A caller-given ``id`` that is taken
        is found when its batch is planned: the batches before it stay written.) Items see the
        earlier items of the same call (duplicates within the call reinforce, conflicts
        supersede).

        Args:
            items: dicts with ``content`` plus any ``remember`` keyword.
            batch_size: memories per transaction.
            progress: True for a progress bar on stderr, or a ``fn(done, total)`` callback.
            dedupe, conflicts: defaults for items that do not set them (see ``remember``).
            dry_run: plan only: the results say what would be created, reinforced,
                superseded or contradicted, and nothing is written.
            on_secret: what an item holding a secret does: ``"skip"`` (default: the other
                items are stored), ``"redact"`` (stored with the secret replaced by
                ``[REDACTED:<kind>]``; a secret in a name such as a tag cannot be, and is
                skipped) or ``"refuse"`` (``SecretError`` naming every such item, nothing
                stored).

        Returns:
            A ``RememberBatch``: a ``RememberResult`` per stored item, in order, and
            ``flagged``: a ``FlaggedItem`` (index, action, fields, kinds) per item that held
            a secret.
        """
        self._check_open()
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
        prepared, flagged = write_mod.prepare_many(raw_items, self.config, on_secret)
        if not prepared:
            return RememberBatch([], flagged=flagged)
        self._check_embeddings(prepared)
        self._check_supersedes(prepared)
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

    def _check_embeddings(self, items: Sequence[write_mod.Item]) -> None:
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

    def _check_supersedes(self, items: Sequence[write_mod.Item]) -> None:
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

    def _write_chunk(
        self, chunk: list[write_mod.Item], vectors: np.ndarray, key: str | None = None
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
            planner = write_mod.Planner(
                self._mirror, self.config, clusters_for=self._shared.clusters_for
            )
            outcomes = planner.plan_many(chunk, vectors)
            if key is not None:
                done = requests.attach(planner.batch, key, outcomes)
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
            # Also wait until the store has grown by a quarter: a rebuild costs time in
            # proportion to the store, so rebuilding every N writes made ingest slow down as
            # the store grew; this keeps its cost per write flat.
            due = max(every, int(CLUSTER_GROWTH * self._mirror.size))
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

    def _plan_only(self, items: list[write_mod.Item], batch_size: int) -> list[RememberResult]:
        """Plan every item in one planner (later items see earlier ones) and write nothing."""
        vectors = np.concatenate(
            [self._embed_items(items[i : i + batch_size])
             for i in range(0, len(items), batch_size)]
        )  # fmt: skip
        with self._shared.lock:
            planner = write_mod.Planner(self._mirror, self.config)
            outcomes = planner.plan_many(items, vectors)
            stored = self._get_many([o.id for o in outcomes if o.id not in planner.batch.new_rows])
        return [
            RememberResult(
                id=o.id,
                action=o.action,
                memory=stored.get(o.id) or write_mod.planned_memory(planner.batch, o.id),
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

    def _apply(self, batch: write_mod.Batch, also: Iterable[str] = ()) -> set[str]:
        """The one way a write reaches the store: the batch in one transaction, then the
        mirror refreshed for what it touched (and ``also``). Every write method builds a
        ``write.Batch`` (remember and update through the planner) and ends here."""
        self._check_open()
        self._require_writable()
        self._store.engine.require_space()  # as a journalled write would (graphmem.diskspace)
        with self._shared.lock, self._store.engine.write_lock:
            try:
                affected = write_mod.apply(self._store, batch, self._mirror)
            except BaseException:
                # The transaction rolled back: the mirror must not keep what it planned.
                self._mirror.load(self._store)
                raise
            also = set(also) - affected
            try:
                write_mod.mirror_written(self._mirror, self._store, batch, affected)
            except Exception:
                # The batch is committed: read what it wrote back from the database instead.
                self._mirror.refresh(self._store, affected)
            if also:
                self._mirror.refresh(self._store, also)
            self._mirror.entities.update(
                name for name, kind in batch.tags.items() if indexed(name, kind)
            )
        return affected

    def _apply_behind(self, batch: write_mod.Batch) -> set[str]:
        """Write a batch through the journal (see ``graphmem.journal``): durable when this
        returns, in the mirror at once, in the database as soon as the applier or the next
        caller that reads it gets there. Batches that delete go the synchronous way (the
        mirror re-reads what they touched from the database). Caller holds the shared lock."""
        journal = self._shared.journal
        if journal is None or batch.removed or batch.purged:
            return self._apply(batch)
        self._check_open()
        self._require_writable()
        journal.check()  # an earlier batch failed to apply: retry now, or raise
        # Counted against the mirror as planned, before it takes the batch.
        write_mod.plan_counts(self._mirror, batch)
        journal.append(batch)
        affected = batch.affected()
        try:
            write_mod.mirror_written(self._mirror, self._store, batch, affected)
        except Exception:
            # The batch is journalled: read what it wrote back from the database instead
            # (reading passes the barrier, which applies it first).
            self._mirror.refresh(self._store, affected)
        self._mirror.entities.update(
            name for name, kind in batch.tags.items() if indexed(name, kind)
        )
        journal.keep_up()
        return affected

    @served
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
    ) -> Memory:
        """Change fields of a memory; new content is re-embedded and re-checked.

        New content goes through the checks ``remember`` makes: inferred tags, entity links and
        similarity links are recomputed for the new text (tags and links the user gave stay),
        and conflicts with other active memories are handled as ``conflicts`` says. The old
        content is kept as a version (an inactive memory the updated one supersedes, valid
        until now; the new content is valid from now unless ``valid_from`` says otherwise):
        ``history`` returns it.

        Raises:
            NotFoundError: no such memory.
            ValidationError, SecretError: as for ``remember``; nothing changes.
        """
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
        item = write_mod.prepare(raw, self.config)
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
            self._apply(write_mod.Batch(updates={memory_id: fields}))
            return self.get(memory_id)
        vec = self._embed([item.content])[0]
        fields.update(content=item.content, content_hash=item.content_hash, embedding=vec)
        ts = fields["updated_at"]
        if valid_from is None and (
            current.valid_from is None or epoch(current.valid_from) < epoch(ts)
        ):
            # The new content holds from now: as of an earlier time the old version answers.
            fields["valid_from"] = ts
        self._check_open()
        self._require_writable()
        with self._shared.lock, self._store.engine.write_lock:
            planner = write_mod.Planner(self._mirror, self.config)
            # The old content stays, as a version history() returns (see plan_version).
            planner.plan_version(memory_id, ts)
            planner.plan_update(memory_id, item, vec)
            planner.batch.updates.setdefault(memory_id, {}).update(fields)
            self._apply(planner.batch, also=[memory_id])
        return self.get(memory_id)

    @served
    def forget(self, memory_id: str, *, purge: bool = False) -> None:
        """Deactivate a memory (kept, restorable), or with ``purge=True`` delete it for good.

        A purged memory leaves no trace: its node, edges and orphaned tags are deleted and it
        can no longer be found by search or recall.

        Raises:
            NotFoundError: no such memory.
        """
        validate.as_bool("purge", purge)
        self._require_exists(memory_id)
        if purge:
            # No trace: the earlier versions update() kept go with it.
            with self._shared.lock:
                versions = write_mod.versions_of(self._mirror, memory_id)
            self._apply(write_mod.Batch(purged=[memory_id, *versions]))
        else:
            self._apply(
                write_mod.Batch(updates={memory_id: {"active": False, "updated_at": now()}})
            )

    @served
    def restore(self, memory_id: str, *, unsupersede: bool = False) -> Memory:
        """Make a forgotten memory active again.

        ``restore`` undoes ``forget`` only: a memory superseded by another stays superseded
        (inactive, ``superseded_by`` kept, the ``Supersedes`` edge kept), so an outdated fact
        never outranks its correction. Pass ``unsupersede=True`` to make it current again
        on purpose: the ``Supersedes`` edge is removed and ``superseded_by`` cleared.

        Raises:
            NotFoundError: no such memory (a purged memory cannot be restored).
        """
        current = self.get(memory_id)
        successor = current.superseded_by
        if successor is not None and successor in self._mirror and not unsupersede:
            return current

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
        batch = write_mod.Batch(updates={memory_id: fields})
        if successor is not None:
            batch.removed.append(("Supersedes", successor, memory_id, None))
        self._apply(batch)
        return self.get(memory_id)

    @served
    def link(
        self,
        source: str,
        target: str,
        type: str = "relates_to",
        *,
        weight: float | None = None,
        reason: str | None = None,
    ) -> Link:
        """Add a typed edge between two memories.

        ``supersedes`` also deactivates ``target`` (its successor is ``source``).

        Raises:
            NotFoundError: either memory is unknown.
            ValidationError: unknown type, a self-link, or a weight outside 0..1.
            SecretError: ``reason`` holds a secret (redacted instead when
                ``Config.redact_secrets`` is on).
        """
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
        w = 0.5 if weight is None and type == "relates_to" else weight

        batch = write_mod.Batch()
        if table == "RelatesTo":
            batch.add_edge(table, src=source, dst=target, weight=w, co_access=0, source="user")
        else:
            batch.add_edge(table, src=source, dst=target, reason=reason or "user")
        if table == "Supersedes":
            batch.updates[target] = {"active": False, "superseded_by": source, "updated_at": now()}
        self._apply(batch)
        return Link(source=source, target=target, type=type, weight=w, reason=reason)

    @served
    def unlink(self, source: str, target: str, type: str = "relates_to") -> int:
        """Remove the edges of one type from ``source`` to ``target``; returns how many.

        Raises:
            NotFoundError: there is no such edge.
            ValidationError: unknown type.
        """
        table = self._link_table(type)
        source, target = validate.as_id(source, "source"), validate.as_id(target, "target")
        self._check_open()
        batch = write_mod.Batch(removed=[(table, source, target, None)])
        self._apply(batch)
        if not batch.removed_count:
            raise NotFoundError(f"No {type} link from '{source}' to '{target}'")
        return batch.removed_count

    @served
    def tag(self, memory_id: str, *tags: str) -> Memory:
        """Add tags to a memory (normalised: one entity is one tag).

        Raises:
            NotFoundError: no such memory.
            ValidationError: an empty tag.
            SecretError: a tag holds a secret (tags are never redacted).
        """
        names = self._tag_names(tags)  # checks types and sizes before the screen reads them
        screen_fields({"tags": list(tags)}, redact=False, identifiers={"tags"})
        self._require_exists(memory_id)
        have = set(self._mirror.tags_of(memory_id))
        new = [n for n in names if n not in have]

        batch = write_mod.Batch(tags={n: "user" for n in new})
        for n in new:
            batch.add_edge("HasTag", src=memory_id, dst=n, source="user", _memory_dst=False)
        self._apply(batch)
        return self.get(memory_id)

    @served
    def untag(self, memory_id: str, *tags: str) -> Memory:
        """Remove tags from a memory; a tag no memory carries any more is deleted.

        Raises:
            NotFoundError: no such memory.
        """
        names = self._tag_names(tags)
        self._require_exists(memory_id)

        self._apply(write_mod.Batch(removed=[("HasTag", memory_id, n, None) for n in names]))
        return self.get(memory_id)

    # ------------------------------------------------------------------ reading

    @served
    def get(self, memory_id: str, *, with_embedding: bool = False) -> Memory:
        """The memory with this id.

        Raises:
            NotFoundError: no such memory.
        """
        self._check_open()
        memory_id = validate.as_id(memory_id)
        with_embedding = validate.as_bool("with_embedding", with_embedding)
        rows = self._store.get_memories([memory_id], with_embedding=with_embedding)
        if memory_id not in rows:
            raise NotFoundError(f"No memory with id '{memory_id}'")
        return memory_from_row(rows[memory_id])

    def _get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        """Memories by id, built from the mirror (which agrees with the database)."""
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

    @served
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
        """Vector similarity search; filters apply before ranking.

        Returns:
            Hits (``.memory``, ``.score`` = cosine similarity), best first.
        """
        self._check_open()
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

    @served
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
        """Memories matching the filters, newest first."""
        self._check_open()
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

    @served
    def tags(self) -> list[Tag]:
        """Every tag with the number of memories carrying it, most used first."""
        self._check_open()
        return [Tag(**r) for r in self._store.tags()]

    @served
    def neighbors(
        self, memory_id: str, *, depth: int = 1, include_inactive: bool = False
    ) -> list[Memory]:
        """Memories within ``depth`` hops; a shared tag or cluster counts as one hop.

        Raises:
            NotFoundError: no such memory.
        """
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

    @served
    def history(self, memory_id: str) -> list[Memory]:
        """The supersede chain through this memory, oldest first: the memories corrections
        replaced and the earlier versions ``update`` kept (each with its source, session,
        ``created_at`` and the ``valid_until`` that ended it).

        Raises:
            NotFoundError: no such memory.
        """
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

    @served
    def stats(self) -> Stats:
        """Counts of memories, tags, clusters and edges."""
        self._check_open()
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
        """Run one Cypher statement against the graph; rows come back as dicts.

        The statement never runs in the process that owns the store: a worker process runs it
        on a read-only copy, shut out of every file but ``files`` (Linux Landlock) and capped
        in memory, time and result size (``Config.cypher_memory_mb``, ``cypher_max_rows``,
        ``cypher_max_bytes``), after Kùzu's own plan for it was checked against an allow-list:
        one statement, no transaction control, schema, extension or setting changes, no
        writes unless ``write=True``, no files unless ``files`` names a folder. A statement
        that crashes Kùzu costs the worker, not the store (see graphmem.sandbox).

        Args:
            query: one Cypher statement; values go in ``params`` as ``$name``.
            params: the query's parameters.
            write: allow the statement to change nodes and edges (checked in the worker, then
                run by the owner; never together with files).
            files: the one folder the statement may read and write files in (relative paths
                are the caller's; Linux only).
            timeout: seconds before the statement is stopped.

        Raises:
            CypherError: Kùzu rejected the query, it does what ``cypher()`` does not allow,
                or it ran out of time, memory or result size (the error carries ``.query``).
            ReadOnlyError: the query writes and ``write`` is False (or the store is read-only).
        """
        folder = None if files is None else caller_folder("files", files)
        if self._remote is not None:
            self._check_open()
            return cast(
                "list[dict[str, Any]]",
                self._remote.invoke(
                    "cypher", (query, params), {"write": write, "files": folder, "timeout": timeout}
                ),
            )
        self._check_open()
        query = validate.as_text("query", query, MAX_QUERY_CHARS)
        params = validate.as_params(params)
        timeout = validate.as_float("timeout", timeout, 0.001, 3600.0)
        cfg = self.config
        limits = Limits(cfg.cypher_memory_mb, cfg.cypher_max_rows, cfg.cypher_max_bytes)
        if validate.as_bool("write", write):
            self._require_writable()
            with self._shared.lock:
                try:
                    return self._store.cypher(
                        query, params, write=True, files=folder, timeout_s=timeout, limits=limits
                    )
                finally:
                    # A free-form write can touch anything: rebuild the mirror from the database.
                    self._mirror.load(self._store)
        return self._store.cypher(query, params, files=folder, timeout_s=timeout, limits=limits)

    # ------------------------------------------------------------------ recall

    @served
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
        """Cascade recall: hybrid seeds, then a walk over the graph; every hit says why.

        Args:
            context: the agent's current context (a question, a message, a task).
            limit: how many memories to return.
            depth: how many edges the walk may follow from a seed (default 2).
            seeds: how many seeds to start from (default 10), or a list of memory ids to
                start from in addition to the found seeds.
            threshold: minimum cosine similarity for a dense seed (default 0.4).
            kinds, tags, scope, project: filters, applied before ranking.
            session_id: the current session; its memories get a modest boost.
            at: answer as of this time (datetime or ISO string).
            budget_tokens: trim the result to fit this many tokens (pinned, negative and
                corrections first).
            include_history: also return superseded memories, flagged ``superseded``, and
                memories outside their validity window now, flagged ``expired`` or
                ``not_yet_valid`` (without it they are left out).
            learn: record this recall (access counts, learned links, gaps); ``False`` reads
                only, for inspecting a store without changing what is inspected.

        Returns:
            A ``RecallResult`` (a list of ``RecallHit``) with a ``recall_id`` for ``feedback``.
        """
        self._check_open()
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
            names = chain_names_in(self._mirror, cfg, context) if params.depth else []
        # A question about named entities is also embedded without the names, in one batch:
        # chains judge facts by what it asks about them.
        rest = relation_text(context, names) if names else ""
        vecs = self._embed([context, rest] if rest else [context])
        vec, rest_vec = vecs[0], (vecs[1] if rest else None)
        with self._shared.lock:
            found, sims, best_sim = cascade(
                self._mirror, cfg, vec, context, filters, params, rest_vec=rest_vec
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

    @served
    def feedback(
        self, recall_id: str, *, used: Sequence[str] = (), rejected: Sequence[str] = ()
    ) -> None:
        """Tell graphmem which recalled memories helped: used ones are linked and gain
        confidence; rejected ones lose a little.

        Raises:
            NotFoundError: the recall id is unknown (only recent recalls are remembered).
        """
        self._check_open()
        self._require_writable()
        recall_id = validate.as_text("recall_id", recall_id, 64)
        used, rejected = validate.as_ids("used", used), validate.as_ids("rejected", rejected)
        self._shared.maintainer.submit(
            FeedbackEvent(recall_id=recall_id, used=used, rejected=rejected)
        )

    @served
    def flush(self) -> None:
        """Wait until deferred maintenance (access counts, link learning, gaps) is written."""
        self._check_open()
        self._shared.maintainer.flush()
        if self._shared.maintainer.errors:
            error = self._shared.maintainer.errors.pop(0)
            raise GraphMemError(f"Background maintenance failed: {error}") from error

    @served
    def gaps(self, *, limit: int = 50) -> list[Gap]:
        """Recent recalls that found no memory above the threshold, newest first."""
        self._check_open()
        limit = validate.as_int("limit", limit, 1, MAX_LIMIT)
        self._shared.maintainer.flush()
        return [
            Gap(**{**g, "created_at": from_db(g["created_at"])}) for g in self._store.gaps(limit)
        ]

    @served
    def rebuild_clusters(
        self,
        *,
        min_cluster_size: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> list[Cluster]:
        """Recompute HDBSCAN clusters over the active memories (ids persist across rebuilds).

        Args:
            min_cluster_size: smallest cluster (default ``Config.min_cluster_size``).
            progress: called with a short message at each stage.
        """
        self._check_open()
        self._require_writable()
        if min_cluster_size is not None:
            min_cluster_size = validate.as_int("min_cluster_size", min_cluster_size, 2)
        progress = validate.as_callable("progress", progress)
        self._shared.maintainer.flush()
        self._shared.rebuild_clusters(progress, min_cluster_size)
        return self.clusters()

    @served
    def maintain(self, *, dry_run: bool = False) -> MaintainReport:
        """Keep the store lean without deleting anything: expire memories past valid_until,
        make rarely used memories whose confidence decayed below ``Config.dormant_below``
        dormant (inactive, restorable; never pinned ones), merge near-duplicates (the older
        is kept and reinforced, the newer superseded by it) and cap RelatesTo links per memory
        at ``Config.max_links``, weakest first.

        Args:
            dry_run: only report what would change.

        Returns:
            A ``MaintainReport`` listing every change.
        """
        self._check_open()
        dry_run = validate.as_bool("dry_run", dry_run)
        if not dry_run:
            self._require_writable()
        with self._shared.lock:
            report = upkeep.plan(self._mirror, self.config, time.time())
            if dry_run or not report.changes:
                return report.model_copy(update={"dry_run": dry_run})
            self._apply(upkeep.batch(self._mirror, report))
        return report.model_copy(update={"dry_run": False})

    @served
    def clusters(self) -> list[Cluster]:
        """The current clusters, largest first."""
        self._check_open()
        return [
            Cluster(id=c["id"], label=c["label"] or "", size=int(c["size"] or 0),
                    created_at=from_db(c["created_at"]))
            for c in self._store.clusters()
        ]  # fmt: skip

    def agent(self, **recall_options: Any) -> MemoryAgent:
        """A non-blocking memory agent for an agent loop (see ``graphmem.agent``)."""
        self._check_open()
        validate.keys_in("agent option(s)", recall_options, AGENT_OPTIONS)
        return MemoryAgent(self, **recall_options)

    # ------------------------------------------------------------------ graph export

    @served
    def schema(self) -> dict[str, list[dict[str, Any]]]:
        """The database schema: ``{"nodes": [...], "relationships": [...]}``.

        Each table is a dict with ``name`` and ``properties`` (``name``, ``type``,
        ``primary_key``); relationship tables also list ``connections`` (``from``, ``to``).
        """
        self._check_open()
        tables = self._store.schema_tables()
        return {
            "nodes": [t for t in tables if t["type"] == "NODE"],
            "relationships": [t for t in tables if t["type"] == "REL"],
        }

    @served
    def graph_data(self, **options: Any) -> dict[str, Any]:
        """The memory graph as node-link data (what ``to_networkx`` builds), for clients."""
        from .export import to_networkx

        return nx.node_link_data(to_networkx(self, **options), edges="edges")

    def to_networkx(self, **options: Any) -> Any:
        """The memory graph as a ``networkx.MultiDiGraph`` (see ``graphmem.export.to_networkx``
        for the options: include_inactive, kinds, tags, around, depth, embeddings)."""
        from .export import FILTER_OPTIONS, to_networkx

        self._check_open()
        validate.keys_in("option(s)", options, FILTER_OPTIONS)
        if self._remote is not None:
            return self._remote.to_networkx(**options)
        return to_networkx(self, **options)

    def export(self, path: str | Path, *, format: str | None = None, **options: Any) -> list[Path]:
        """Write the memory graph to a file; returns the files written.

        Args:
            path: the file (the format follows its suffix unless ``format`` is given).
            format: graphml, gexf, json (node-link), cytoscape, dot or csv (two files).
            **options: filters, as for ``to_networkx``.
        """
        from .export import export

        self._check_open()
        if not isinstance(path, str | Path):
            raise ValidationError(f"path must be a file path, got {type(path).__name__}")
        return export(self.to_networkx(**options), path, format)

    # ------------------------------------------------------------------ helpers

    def _require_exists(self, memory_id: str) -> None:
        self._check_open()
        memory_id = validate.as_id(memory_id)
        if memory_id not in self._mirror:
            raise NotFoundError(f"No memory with id '{memory_id}'")

    @staticmethod
    def _link_table(type: str) -> str:
        return _LINK_TABLES[validate.as_choice("link type", type, LINK_TYPES)]

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
        if nb.startswith("m:"):
            yield nb
        else:  # through a tag or cluster
            for nb2 in _all_neighbours(g, nb):
                if nb2 != node and nb2.startswith("m:"):
                    yield nb2


def _all_neighbours(g: Mirror, node: str) -> Iterable[str]:
    return g.adjacent(node)

"""``GraphMemory``: the public façade. Each method says what it does and hands the call to the
handle's backend: the store open in this process, or a client of the process that owns it
(``graphmem.owner.backends`` decides which, and swaps it when that owner goes away). The
backend checks every argument with this handle's ``Config``, in whichever process runs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import progress as progress_mod
from . import settings
from .config import DEFAULT_MODEL, TOKEN_ENV, Config
from .errors import GraphMemError, ValidationError
from .models import (
    Cluster,
    Gap,
    Hit,
    Link,
    MaintainReport,
    Memory,
    RecallResult,
    RememberBatch,
    RememberResult,
    Stats,
    Tag,
)
from .owner.backends import Opening, open_backend
from .remote.calls import MemoryBackend
from .write import validate

if TYPE_CHECKING:
    from .agent import MemoryAgent
    from .embed import Embedder

AGENT_OPTIONS = frozenset(
    {"topic_threshold", "limit", "depth", "seeds", "threshold", "kinds", "tags", "scope",
     "project", "session_id", "at", "budget_tokens", "include_history"}
)  # fmt: skip


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
        config: tunables (thresholds, weights); see ``graphmem.Config``. It governs this
            handle's calls in whichever process owns the store; the settings every handle on
            a store shares (maintenance, clustering) are its first opener's, and a handle that
            asks for others is refused (``ValidationError``).
        timeout: seconds to wait for the store when another process owns it but does not
            answer yet (default ``GRAPHMEM_TIMEOUT`` or 20).
        token: for ``path`` given as ``http://HOST:PORT`` (a ``graphmem serve --tcp``
            owner): its token (default ``GRAPHMEM_TOKEN``).
        serve: when this process opens the store, answer other processes on its socket
            (the default). ``False`` owns the store without serving: another process that
            opens it meanwhile gets ``StoreLockedError``. For single-process tools and tests,
            which then start no server thread and no socket. A later handle in this process
            that serves starts the server.

    One process owns a store: the first to open it. It serves every other process that opens
    the same store, on a Unix socket in the store folder, and those handles are its clients:
    the same calls with the same results and exceptions, and every write visible to all as
    soon as it returns. ``owner`` tells which process owns the store.

    Raises:
        StoreLockedError: another process owns the store and does not answer in time.
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
        self._closed = False
        path = validate.as_store_path(path)
        # A folder, or an owner reached over TCP (graphmem serve --tcp) by its URL.
        url = isinstance(path, str) and validate.is_url(path)
        folder = Path(path) if url else Path(path).expanduser()
        if isinstance(model_path, os.PathLike):
            model_path = os.fspath(model_path)
        # "" is no value, as it always was (token=os.getenv("T", "")).
        model_path = validate.opt_text("model_path", model_path or None, 4096)
        model_name = validate.opt_text("model_name", model_name or None, 1024)
        token = validate.opt_text("token", token or None, 4096)
        if token is not None and not (token.isascii() and token.isprintable()):
            raise ValidationError("token must be printable ASCII (it is sent in an HTTP header)")
        if embedder is not None and not all(
            hasattr(embedder, a) for a in ("embed", "dim", "model_name")
        ):
            raise ValidationError(
                "embedder must have embed(texts), dim and model_name, got "
                f"{validate.safe_repr(embedder)}"
            )
        if config is not None and not isinstance(config, Config):
            raise ValidationError(
                f"config must be a graphmem.Config, got {validate.safe_repr(config)}"
            )
        if model_path is None and embedder is None and not url:
            # GRAPHMEM_MODEL_PATH, else the store's graphmem.toml, else the user's config file.
            model_path = settings.value("model_path", folder)
        if timeout is None:
            timeout = 20.0 if url else settings.value("timeout", folder)
        self._opening = Opening(
            path=folder,
            config=config or Config(),
            read_only=validate.as_bool("read_only", read_only),
            timeout=validate.as_timeout(timeout),
            model_name=embedder.model_name if embedder else (model_name or DEFAULT_MODEL),
            model_path=model_path,
            embedder=embedder,
            url=str(path) if url else None,
            token=(token or os.environ.get(TOKEN_ENV)) if url else None,
            serve=validate.as_bool("serve", serve),
        )
        self._backend: MemoryBackend = open_backend(self._opening, self._hand_over)

    def _hand_over(self, backend: MemoryBackend) -> None:
        """The owner went away: this handle's calls now go to ``backend``."""
        self._backend = backend

    @property
    def _to(self) -> MemoryBackend:
        if self._closed:
            raise GraphMemError("This GraphMemory is closed.")
        return self._backend

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
        self._backend.close()

    @property
    def path(self) -> Path:
        """The store's folder (or the URL of its owner)."""
        return self._backend.path

    @property
    def config(self) -> Config:
        """This handle's settings."""
        return self._backend.config

    @property
    def read_only(self) -> bool:
        """Whether this handle refuses writes."""
        return self._backend.read_only

    @property
    def model_name(self) -> str:
        """The embedding model's name."""
        return self._opening.model_name

    @property
    def owner(self) -> dict[str, Any] | None:
        """The process that owns the store when this handle is its client (pid, store), or
        None when this process owns it."""
        return self._backend.owner

    @property
    def holder(self) -> dict[str, Any] | None:
        """The earlier name of ``owner`` (kept for code written against it)."""
        return self.owner

    @property
    def backend(self) -> MemoryBackend:
        """Where this handle's calls go (for ``graphmem.owner.backends``: serving, snapshots)."""
        return self._to

    @property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use)."""
        return self._to.embedder

    # ------------------------------------------------------------------ the calls

    def remember(self, content: str, **fields: Any) -> RememberResult:
        """Store one memory (or reinforce the one it duplicates).

        Args:
            content: the text to remember.
            **fields: kind, tags, scope, project, session_id, source, confidence, pinned,
                triggers, file_paths, metadata, id, valid_from, valid_until, supersedes,
                dedupe, conflicts, redact (store with secrets redacted), embedding (a
                vector computed elsewhere with this store's model: it is not embedded again;
                ``embedding_model`` names that model and is checked when given),
                max_metadata_bytes (this write's bound on metadata as JSON, instead of
                ``Config.max_metadata_bytes``; at most ``write.MAX_METADATA_BYTES``, 24 MiB).

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
        return self._to.remember(content, **fields)

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
        checked, so a bad item leaves the store unchanged; so is an ``id`` a later batch would
        refuse (stored already, or given twice, and not a duplicate the write reinforces), here
        and through another process's owner alike (the call is then planned whole first: its
        items are embedded twice). Items see the
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
        return self._to.remember_many(
            items, batch_size=batch_size, progress=progress, dedupe=dedupe, conflicts=conflicts,
            dry_run=dry_run, on_secret=on_secret,
        )  # fmt: skip

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
        """Change fields of a memory; new content is re-embedded and re-checked.

        New content goes through the checks ``remember`` makes: inferred tags, entity links and
        similarity links are recomputed for the new text (tags and links the user gave stay),
        and conflicts with other active memories are handled as ``conflicts`` says. The old
        content is kept as a version (an inactive memory the updated one supersedes, valid
        until now; the new content is valid from now unless ``valid_from`` says otherwise):
        ``history`` returns it. ``max_metadata_bytes`` raises this write's bound on metadata,
        as for ``remember``.

        Raises:
            NotFoundError: no such memory.
            ValidationError, SecretError: as for ``remember``; nothing changes.
        """
        return self._to.update(
            memory_id, content=content, kind=kind, confidence=confidence, pinned=pinned,
            metadata=metadata, triggers=triggers, file_paths=file_paths, valid_from=valid_from,
            valid_until=valid_until, redact=redact, conflicts=conflicts,
            max_metadata_bytes=max_metadata_bytes,
        )  # fmt: skip

    def forget(self, memory_id: str, *, purge: bool = False) -> None:
        """Deactivate a memory (kept, restorable), or with ``purge=True`` delete it for good.

        A purged memory leaves no trace: its node, edges and orphaned tags are deleted and it
        can no longer be found by search or recall.

        Raises:
            NotFoundError: no such memory.
        """
        self._to.forget(memory_id, purge=purge)

    def restore(self, memory_id: str, *, unsupersede: bool = False) -> Memory:
        """Make a forgotten memory active again.

        ``restore`` undoes ``forget`` only: a memory superseded by another stays superseded
        (inactive, ``superseded_by`` kept, the ``Supersedes`` edge kept), so an outdated fact
        never outranks its correction. Pass ``unsupersede=True`` to make it current again
        on purpose: the ``Supersedes`` edge is removed and ``superseded_by`` cleared.

        Raises:
            NotFoundError: no such memory (a purged memory cannot be restored).
        """
        return self._to.restore(memory_id, unsupersede=unsupersede)

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
        return self._to.link(source, target, type, weight=weight, reason=reason)

    def unlink(self, source: str, target: str, type: str = "relates_to") -> int:
        """Remove the edges of one type from ``source`` to ``target``; returns how many.

        Raises:
            NotFoundError: there is no such edge.
            ValidationError: unknown type.
        """
        return self._to.unlink(source, target, type)

    def tag(self, memory_id: str, *tags: str) -> Memory:
        """Add tags to a memory (normalised: one entity is one tag).

        Raises:
            NotFoundError: no such memory.
            ValidationError: an empty tag.
            SecretError: a tag holds a secret (tags are never redacted).
        """
        return self._to.tag(memory_id, *tags)

    def untag(self, memory_id: str, *tags: str) -> Memory:
        """Remove tags from a memory; a tag no memory carries any more is deleted.

        Raises:
            NotFoundError: no such memory.
        """
        return self._to.untag(memory_id, *tags)

    def get(self, memory_id: str, *, with_embedding: bool = False) -> Memory:
        """The memory with this id.

        Raises:
            NotFoundError: no such memory.
        """
        return self._to.get(memory_id, with_embedding=with_embedding)

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
        return self._to.search(
            query, limit=limit, kinds=kinds, tags=tags, scope=scope, project=project,
            session_id=session_id, include_inactive=include_inactive,
        )  # fmt: skip

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
        return self._to.memories(
            tag=tag, kinds=kinds, scope=scope, project=project, session_id=session_id,
            include_inactive=include_inactive, limit=limit, offset=offset,
        )  # fmt: skip

    def tags(self) -> list[Tag]:
        """Every tag with the number of memories carrying it, most used first."""
        return self._to.tags()

    def neighbors(
        self, memory_id: str, *, depth: int = 1, include_inactive: bool = False
    ) -> list[Memory]:
        """Memories within ``depth`` hops; a shared tag or cluster counts as one hop.

        Raises:
            NotFoundError: no such memory.
        """
        return self._to.neighbors(memory_id, depth=depth, include_inactive=include_inactive)

    def history(self, memory_id: str) -> list[Memory]:
        """The supersede chain through this memory, oldest first: the memories corrections
        replaced and the earlier versions ``update`` kept (each with its source, session,
        ``created_at`` and the ``valid_until`` that ended it).

        Raises:
            NotFoundError: no such memory.
        """
        return self._to.history(memory_id)

    def stats(self) -> Stats:
        """Counts of memories, tags, clusters and edges."""
        return self._to.stats()

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
        that crashes Kùzu costs the worker, not the store (see graphmem.storage.sandbox).

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
        return self._to.cypher(query, params, write=write, files=files, timeout=timeout)

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
        return self._to.recall(
            context, limit=limit, depth=depth, seeds=seeds, threshold=threshold, kinds=kinds,
            tags=tags, scope=scope, project=project, session_id=session_id, at=at,
            budget_tokens=budget_tokens, include_history=include_history, learn=learn,
        )  # fmt: skip

    def feedback(
        self, recall_id: str, *, used: Sequence[str] = (), rejected: Sequence[str] = ()
    ) -> None:
        """Tell graphmem which recalled memories helped: used ones are linked and gain
        confidence; rejected ones lose a little.

        Raises:
            NotFoundError: the recall id is unknown (only recent recalls are remembered).
        """
        self._to.feedback(recall_id, used=used, rejected=rejected)

    def flush(self) -> None:
        """Wait until deferred maintenance (access counts, link learning, gaps) is written."""
        self._to.flush()

    def gaps(self, *, limit: int = 50) -> list[Gap]:
        """Recent recalls that found no memory above the threshold, newest first."""
        return self._to.gaps(limit=limit)

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
        return self._to.rebuild_clusters(min_cluster_size=min_cluster_size, progress=progress)

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
        return self._to.maintain(dry_run=dry_run)

    def clusters(self) -> list[Cluster]:
        """The current clusters, largest first."""
        return self._to.clusters()

    def schema(self) -> dict[str, list[dict[str, Any]]]:
        """The database schema: ``{"nodes": [...], "relationships": [...]}``.

        Each table is a dict with ``name`` and ``properties`` (``name``, ``type``,
        ``primary_key``); relationship tables also list ``connections`` (``from``, ``to``).
        """
        return self._to.schema()

    def graph_data(self, **options: Any) -> dict[str, Any]:
        """The memory graph as node-link data (what ``to_networkx`` builds), for clients."""
        return self._to.graph_data(**options)

    def agent(self, **recall_options: Any) -> MemoryAgent:
        """A non-blocking memory agent for an agent loop (see ``graphmem.agent``)."""
        from .agent import MemoryAgent

        self._to  # noqa: B018 (closed: raise here, not in the agent's thread)
        validate.keys_in("agent option(s)", recall_options, AGENT_OPTIONS)
        return MemoryAgent(self, **recall_options)

    def to_networkx(self, **options: Any) -> Any:
        """The memory graph as a ``networkx.MultiDiGraph`` (see ``graphmem.export.to_networkx``
        for the options: include_inactive, kinds, tags, around, depth, embeddings)."""
        from .export.graph import FILTER_OPTIONS

        backend = self._to
        validate.keys_in("option(s)", options, FILTER_OPTIONS)
        return backend.to_networkx(**options)

    def export(self, path: str | Path, *, format: str | None = None, **options: Any) -> list[Path]:
        """Write the memory graph to a file; returns the files written.

        Args:
            path: the file (the format follows its suffix unless ``format`` is given).
            format: graphml, gexf, json (node-link), cytoscape, dot or csv (two files).
            **options: filters, as for ``to_networkx``.
        """
        from .export.graph import export

        self._to  # noqa: B018 (closed: raise before anything is written)
        if not isinstance(path, str | Path):
            raise ValidationError(f"path must be a file path, got {type(path).__name__}")
        return export(self.to_networkx(**options), path, format)

    def __getattr__(self, name: str) -> Any:
        # Tests and tools in this process look inside the store it owns.
        if name in ("_shared", "_store", "_mirror", "_embed"):
            from .owner.local import LocalMemory

            backend = self._to
            if not isinstance(backend, LocalMemory):
                raise GraphMemError(f"'{self.path}' is owned by another process.")
            return getattr(backend, name)
        raise AttributeError(f"'GraphMemory' object has no attribute '{name}'")

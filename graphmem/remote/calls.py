"""The calls a store answers, wherever it lives: their signatures (``MemoryBackend``) and
whether each writes (``CALLS``).

``GraphMemory`` holds one ``MemoryBackend``: the store open in this process
(``graphmem.owner.local.LocalMemory``) or a client of the process that owns it
(``graphmem.remote.client.RemoteMemory``). Both implement this protocol, so the façade, the
CLI and the servers call either the same way, and mypy checks that they agree. ``CALLS`` names
the calls an owner answers for other processes; ``tests/test_seam.py`` checks that it lists
exactly the protocol's calls.

Kept light: typing and the result models only (a client imports it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..config import Config
    from ..embed import Embedder
    from ..models import (
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
    from ..progress import ProgressFn

CALLS: dict[str, bool] = {
    # reads
    "get": False, "search": False, "memories": False, "tags": False, "neighbors": False,
    "history": False, "stats": False, "cypher": False, "recall": False, "flush": False,
    "gaps": False, "clusters": False, "schema": False, "graph_data": False,
    # writes
    "remember": True, "remember_many": True, "update": True, "forget": True, "restore": True,
    "link": True, "unlink": True, "tag": True, "untag": True, "feedback": True,
    "rebuild_clusters": True, "maintain": True,
}  # fmt: skip
"""Every call an owner answers for other processes, and whether it writes."""


class MemoryBackend(Protocol):
    """Where a handle's calls go. The arguments and results are ``GraphMemory``'s (its
    docstrings say what each call does); an implementation checks every argument itself, with
    its own ``config``."""

    @property
    def path(self) -> Path: ...

    @property
    def config(self) -> Config: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def owner(self) -> dict[str, Any] | None:
        """The process that owns the store (pid, store) when this is its client, else None."""

    @property
    def embedder(self) -> Embedder: ...

    def close(self) -> None: ...

    # writes
    def remember(self, content: str, **fields: Any) -> RememberResult: ...

    def remember_many(
        self,
        items: Iterable[dict[str, Any]],
        *,
        batch_size: int = 512,
        progress: bool | ProgressFn = False,
        dedupe: bool | None = None,
        conflicts: str | None = None,
        dry_run: bool = False,
        on_secret: str = "skip",
    ) -> RememberBatch: ...

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
    ) -> Memory: ...

    def forget(self, memory_id: str, *, purge: bool = False) -> None: ...

    def restore(self, memory_id: str, *, unsupersede: bool = False) -> Memory: ...

    def link(
        self,
        source: str,
        target: str,
        type: str = "relates_to",
        *,
        weight: float | None = None,
        reason: str | None = None,
    ) -> Link: ...

    def unlink(self, source: str, target: str, type: str = "relates_to") -> int: ...

    def tag(self, memory_id: str, *tags: str) -> Memory: ...

    def untag(self, memory_id: str, *tags: str) -> Memory: ...

    def feedback(
        self, recall_id: str, *, used: Sequence[str] = (), rejected: Sequence[str] = ()
    ) -> None: ...

    def rebuild_clusters(
        self,
        *,
        min_cluster_size: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> list[Cluster]: ...

    def maintain(self, *, dry_run: bool = False) -> MaintainReport: ...

    # reads
    def get(self, memory_id: str, *, with_embedding: bool = False) -> Memory: ...

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
    ) -> list[Hit]: ...

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
    ) -> list[Memory]: ...

    def tags(self) -> list[Tag]: ...

    def neighbors(
        self, memory_id: str, *, depth: int = 1, include_inactive: bool = False
    ) -> list[Memory]: ...

    def history(self, memory_id: str) -> list[Memory]: ...

    def stats(self) -> Stats: ...

    def cypher(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        write: bool = False,
        files: str | Path | None = None,
        timeout: float = 30.0,
    ) -> list[dict[str, Any]]: ...

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
    ) -> RecallResult: ...

    def flush(self) -> None: ...

    def gaps(self, *, limit: int = 50) -> list[Gap]: ...

    def clusters(self) -> list[Cluster]: ...

    def schema(self) -> dict[str, list[dict[str, Any]]]: ...

    def graph_data(self, **options: Any) -> dict[str, Any]: ...

    def to_networkx(self, **options: Any) -> Any:
        """The memory graph as a ``networkx.MultiDiGraph`` (networkx ships no types)."""

"""A non-blocking memory agent for an agent loop.

``submit(context)`` returns at once; a single worker thread runs the recall; ``take_pending()``
hands over the results of the latest finished context, so turn N's recall is ready at turn N+1.
Memories already surfaced in this session are not repeated until the topic changes (the new
context's similarity to the previous one falls below ``topic_threshold``).

Warnings cannot wait a turn: ``submit`` itself returns the negative memories whose triggers
the context mentions ("Never run database migrations on Fridays" for "I'll run the migration
now"). That check is a word match against the negatives held in the agent (refreshed in the
background after each recall), so it costs microseconds and never waits for the store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from .config import Config
from .embed import Embedder
from .models import Memory, PathStep, RecallHit
from .recall.cascade import trigger_pattern


class Recalling(Protocol):
    """What the agent needs of a ``GraphMemory`` (kept narrow: the façade builds agents)."""

    @property
    def config(self) -> Config: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def recall(self) -> Callable[..., Sequence[RecallHit]]: ...

    @property
    def memories(self) -> Callable[..., list[Memory]]: ...


class MemoryAgent:
    """Background recall for one conversation.

    Args:
        memory: the open ``GraphMemory``.
        topic_threshold: below this similarity between consecutive contexts the topic counts
            as changed and already-surfaced memories may surface again (None: the handle's
            ``Config.topic_change``).
        **recall_options: passed to ``GraphMemory.recall`` (limit, session_id, kinds, …).
    """

    def __init__(
        self,
        memory: Recalling,
        *,
        topic_threshold: float | None = None,
        **recall_options: Any,
    ) -> None:
        self._memory = memory
        self._options = recall_options
        self.topic_threshold = (
            memory.config.topic_change if topic_threshold is None else topic_threshold
        )
        self._cond = threading.Condition()
        self._next: str | None = None
        self._pending: list[RecallHit] | None = None
        self._busy = False
        self._closed = False
        self._previous: np.ndarray | None = None
        self.surfaced: set[str] = set()
        self.topic_changes = 0
        self.error: BaseException | None = None
        self._next_warned: list[str] = []
        # The negatives with triggers, for the synchronous check in submit().
        self._negatives: list[Memory] = self._load_negatives()
        self._thread = threading.Thread(target=self._run, name="graphmem-agent", daemon=True)
        self._thread.start()

    def __enter__(self) -> MemoryAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, context: str) -> list[RecallHit]:
        """Queue a context for recall and return at once (a newer one replaces a queued one).

        Returns:
            The warnings for this very turn: negative memories whose triggers the context
            mentions and that this session has not been shown yet (flagged ``trigger``). The
            full recall follows through ``take_pending``, without repeating them.
        """
        if not isinstance(context, str) or not context.strip():
            return []
        with self._cond:
            if self._closed:
                raise RuntimeError("The memory agent is closed.")
            warnings = [h for h in self._triggered(context) if h.memory.id not in self.surfaced]
            self.surfaced.update(h.memory.id for h in warnings)
            self._next = context
            # Kept even if the worker sees a topic change: a warning shown is not shown again.
            self._next_warned = [*self._next_warned, *(h.memory.id for h in warnings)]
            self._cond.notify_all()
        return warnings

    def _triggered(self, context: str) -> list[RecallHit]:
        lowered = context.lower()
        hits = []
        for memory in self._negatives:
            matched = [t for t in memory.triggers if t.lower() in lowered]
            if matched and any(trigger_pattern(t.lower()).search(lowered) for t in matched):
                step = PathStep(
                    node=memory.id, node_type="memory", label=memory.content, via="trigger",
                    score=1.0,
                )  # fmt: skip
                hits.append(RecallHit(memory=memory, score=1.0, path=[step], flags=["trigger"]))
        return hits

    def _load_negatives(self) -> list[Memory]:
        scope = {k: self._options[k] for k in ("scope", "project") if k in self._options}
        found = self._memory.memories(kinds=["negative"], limit=None, **scope)
        return [m for m in found if m.triggers]

    def take_pending(self) -> list[RecallHit]:
        """The results of the latest finished recall not yet taken (empty when none)."""
        with self._cond:
            hits, self._pending = self._pending, None
        return hits or []

    def wait_idle(self, timeout: float | None = 30.0) -> bool:
        """Block until no recall is queued or running (for tests and shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._next is None and not self._busy, timeout)

    def close(self) -> None:
        """Finish the running recall and stop the worker."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._next is not None or self._closed)
                if self._next is None and self._closed:
                    return
                context, self._next = self._next, None
                warned, self._next_warned = self._next_warned, []
                self._busy = True
            try:
                hits = self._recall(context, warned)  # type: ignore[arg-type]
                negatives = self._load_negatives()
                with self._cond:
                    self._pending = hits
                    self._negatives = negatives
            except BaseException as exc:  # surfaced to the caller through .error
                self.error = exc
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _recall(self, context: str, warned: list[str]) -> list[RecallHit]:
        vector = self._memory.embedder.embed([context])[0]
        with self._cond:
            if self._previous is not None and float(vector @ self._previous) < self.topic_threshold:
                self.surfaced.clear()
                self.topic_changes += 1
            self.surfaced.update(warned)
        self._previous = vector
        limit = int(self._options.get("limit", 10))
        options = {**self._options, "limit": limit + len(self.surfaced)}
        hits = [
            h for h in self._memory.recall(context, **options) if h.memory.id not in self.surfaced
        ]
        hits = hits[:limit]
        with self._cond:
            self.surfaced.update(h.memory.id for h in hits)
        return hits

"""Pydantic models at the public boundary: what graphmem returns to its callers."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import edges

Kind = Literal["fact", "preference", "procedure", "correction", "negative", "episode"]
Scope = Literal["global", "project", "session"]
Source = Literal["user_stated", "user_corrected", "observed", "inferred", "extracted"]
Action = Literal["created", "reinforced", "superseded", "contradicted"]
LinkType = Literal["relates_to", "supersedes", "contradicts", "derived_from"]

KINDS: tuple[str, ...] = ("fact", "preference", "procedure", "correction", "negative", "episode")
SCOPES: tuple[str, ...] = ("global", "project", "session")
SOURCES: tuple[str, ...] = ("user_stated", "user_corrected", "observed", "inferred", "extracted")
LINK_TYPES: tuple[str, ...] = edges.LINK_TYPES
# What a new memory does to the ones it conflicts with:
#   detect: supersede when surely replaced, otherwise link with Contradicts;
#   flag:   never supersede, only link with Contradicts;
#   off:    no conflict check.
CONFLICT_MODES: tuple[str, ...] = ("detect", "flag", "off")
# What a batch write does with an item that holds a secret: raise SecretError and store
# nothing, store the other items, or store the item with its secrets redacted.
ON_SECRET: tuple[str, ...] = ("refuse", "skip", "redact")
# What an import does with an item whose id the store holds (graphmem.write.importing).
ON_EXISTING: tuple[str, ...] = ("skip", "update", "error")

# How much each source is trusted; a newer statement supersedes an older one only when its
# source is trusted at least as much.
SOURCE_TRUST: dict[str, float] = {
    "user_corrected": 1.0,
    "user_stated": 0.9,
    "observed": 0.7,
    "extracted": 0.6,
    "inferred": 0.5,
}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Memory(_Model):
    """One stored memory, as it is in the graph."""

    id: str
    content: str
    kind: Kind = "fact"
    scope: Scope = "global"
    project: str | None = None
    session_id: str | None = None
    source: Source = "user_stated"
    created_at: datetime
    updated_at: datetime
    last_accessed: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    access_count: int = 0
    strength: int = 1
    confidence: float = 1.0
    trust: float = 0.9
    active: bool = True
    pinned: bool = False
    superseded_by: str | None = None
    triggers: list[str] = Field(default_factory=list)
    file_paths: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    content_hash: str = ""
    tags: list[str] = Field(default_factory=list)
    reinforcements: list[dict[str, Any]] = Field(default_factory=list)
    embedding: list[float] | None = Field(default=None, repr=False)


class RememberResult(_Model):
    """What ``remember`` did.

    ``action`` is ``created`` for a new memory, ``reinforced`` when an existing duplicate was
    strengthened instead (``id`` is then the existing memory), ``superseded`` when the new memory
    replaced older ones (listed in ``superseded``), ``contradicted`` when it conflicts with memories
    it could not replace (listed in ``contradicts``).
    """

    id: str
    action: Action
    memory: Memory
    superseded: list[str] = Field(default_factory=list)
    contradicts: list[str] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list)
    reason: str | None = None


class FlaggedItem(_Model):
    """An item of a batch write (``remember_many``, ``import``) that held a secret.

    ``index`` is the item's position in the batch (0-based); ``action`` says what was done:
    ``skipped`` (nothing of it stored) or ``redacted`` (stored with each secret replaced by
    ``[REDACTED:<kind>]``); ``fields`` names the fields that held a secret and ``kinds`` the
    kinds of secret found. The secret itself is never repeated.
    """

    index: int
    action: Literal["skipped", "redacted"]
    fields: list[str]
    kinds: list[str]


class RememberBatch(list[RememberResult]):
    """What ``remember_many`` did: a list of ``RememberResult`` (one per stored item, in the
    order given), with ``flagged``: the items that held a secret, skipped or redacted."""

    def __init__(
        self, results: Iterable[RememberResult], *, flagged: Iterable[FlaggedItem] = ()
    ) -> None:
        super().__init__(results)
        self.flagged: list[FlaggedItem] = list(flagged)


class Hit(_Model):
    """A search result: the memory and its cosine similarity to the query."""

    memory: Memory
    score: float


class Tag(_Model):
    """A tag node and how many memories carry it."""

    name: str
    kind: str
    count: int


class Link(_Model):
    """A typed edge between two memories."""

    source: str
    target: str
    type: LinkType
    weight: float | None = None
    reason: str | None = None


class Stats(_Model):
    """Counts that describe a store."""

    path: str
    memories: int
    active: int
    inactive: int
    tags: int
    clusters: int
    edges: dict[str, int]
    kinds: dict[str, int]
    embedding_model: str
    dim: int
    schema_version: int


class PathStep(_Model):
    """One step of the path by which recall reached a memory.

    The first step is the seed (``edge`` is None and ``via`` says how it was found: ``vector``,
    ``lexical``, ``vector+lexical``, ``trigger`` or ``given``); each later step names the edge
    type that led to ``node``.
    """

    node: str
    node_type: Literal["memory", "tag", "cluster"]
    label: str
    edge: str | None = None
    via: str | None = None
    score: float


class RecallHit(_Model):
    """A recall result: the memory, its score and the path that reached it."""

    memory: Memory
    score: float
    path: list[PathStep]
    flags: list[str] = Field(default_factory=list)
    contradicts: list[str] = Field(default_factory=list)

    @property
    def seed(self) -> bool:
        """True when the memory was found directly rather than through the graph."""
        return len(self.path) == 1

    def explain(self) -> str:
        """The path as one line, e.g. ``direct match (vector+lexical 0.91)`` or
        ``from "Priya leads Falcon" [vector 0.84] -HasTag-> tag:falcon -HasTag-> this``."""
        first = self.path[0]
        if len(self.path) == 1:
            return f"direct match ({first.via} {_score(first.score)})"
        origin = (
            f'"{clip(first.label, 48)}"'
            if first.node_type == "memory"
            else f"{first.node_type}:{first.label}"
        )
        parts = [f"from {origin} [{first.via} {_score(first.score)}]"]
        for step in self.path[1:-1]:
            name = (
                clip(step.label, 48)
                if step.node_type == "memory"
                else f"{step.node_type}:{step.label}"
            )
            parts.append(f"-{step.edge}-> {name}")
        parts.append(f"-{self.path[-1].edge}-> this")
        return " ".join(parts)


class RecallResult(list[RecallHit]):
    """The hits of one recall (a list of ``RecallHit``), with the id ``feedback`` takes."""

    def __init__(self, hits: Iterable[RecallHit], *, recall_id: str) -> None:
        super().__init__(hits)
        self.recall_id = recall_id


class Gap(_Model):
    """A recall that found no memory above the threshold."""

    id: str
    context: str
    best_score: float
    session_id: str | None = None
    created_at: datetime


class Cluster(_Model):
    """A cluster of similar memories found by HDBSCAN."""

    id: str
    label: str
    size: int
    created_at: datetime | None = None


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis: the one way a label,
    a reason or a table cell is shortened (here, at the bottom, so every layer shows it alike)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def memory_from_row(row: dict[str, Any]) -> Memory:
    """A ``Memory`` from a stored row (timestamps naive UTC, metadata and breadcrumbs JSON)."""
    emb = row.get("embedding")
    return Memory(
        id=row["id"],
        content=row["content"],
        kind=row["kind"],
        scope=row["scope"],
        project=row.get("project"),
        session_id=row.get("session_id"),
        source=row["source"],
        created_at=_utc(row["created_at"]),
        updated_at=_utc(row["updated_at"]),
        last_accessed=_utc(row.get("last_accessed")),
        valid_from=_utc(row.get("valid_from")),
        valid_until=_utc(row.get("valid_until")),
        access_count=int(row.get("access_count") or 0),
        strength=int(row.get("strength") or 1),
        confidence=float(row.get("confidence") or 0.0),
        trust=float(row.get("trust") or 0.0),
        active=bool(row.get("active")),
        pinned=bool(row.get("pinned")),
        superseded_by=row.get("superseded_by"),
        triggers=list(row.get("triggers") or []),
        file_paths=list(row.get("file_paths") or []),
        metadata=json.loads(row.get("metadata") or "{}"),
        content_hash=row.get("content_hash") or "",
        tags=sorted(t for t in (row.get("tags") or []) if t is not None),
        reinforcements=[json.loads(r) for r in row.get("reinforcements") or []],
        embedding=None if emb is None else [float(x) for x in emb],
    )


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _score(value: float) -> str:
    # A cosine below 0 (a seed found with a negative threshold) means "no similarity".
    return f"{max(value, 0.0):.3f}"


class MaintainReport(_Model):
    """What ``maintain`` changed (or, with ``dry_run``, would change)."""

    expired: list[str] = Field(default_factory=list)
    dormant: list[str] = Field(default_factory=list)
    # {"kept": id, "merged": id, "similarity": cosine}
    merged: list[dict[str, Any]] = Field(default_factory=list)
    # {"src": id, "dst": id, "weight": w}: RelatesTo links removed
    pruned_links: list[dict[str, Any]] = Field(default_factory=list)
    dry_run: bool = False

    @property
    def changes(self) -> int:
        return len(self.expired) + len(self.dormant) + len(self.merged) + len(self.pruned_links)

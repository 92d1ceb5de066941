"""Answers sized for a context window: what the MCP tools return by default.

An agent pays in tokens for every byte a tool returns, so a hit is by default its id, its text,
a score and (for recall) a one-line reason, with the flags that change what it means
(``superseded``, ``contradicted``, …) only when it has some. ``detail=True`` adds the whole
memory and, for recall, the path, as every answer was before. ``budget_tokens`` caps the
answer's own size. ``bench/mcp_answers.py`` measures what a hit costs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from ...models import Memory, PathStep, clip

# About four characters a token, the estimate recall's own budget uses (recall.ordering.token_estimate).
CHARS_PER_TOKEN = 4
REASON_CHARS = 180  # a reason is one line; a walk's path can be longer
LABEL_CHARS = (32, 18)  # a memory passed on the way, in a reason: tried in turn


class MemoryOut(Memory):
    """A stored memory (without its embedding, which is of no use to a client)."""

    embedding: SkipJsonSchema[None] = Field(default=None, exclude=True)


def memory_out(m: Memory) -> MemoryOut:
    return MemoryOut.model_validate(m.model_dump(exclude={"embedding"}))


class HitOut(BaseModel):
    """One hit: id, text and score; with ``detail`` also the whole memory (and recall's path)."""

    id: str = Field(description="The memory's id (for get, update, forget, feedback).")
    text: str = Field(description="The memory's content.")
    score: float
    kind: str | None = Field(default=None, description="Its kind, when it is not a plain fact.")
    why: str | None = Field(default=None, description="Recall only: how it was found, as one line.")
    flags: list[str] | None = Field(
        default=None,
        description="superseded (an older version), contradicted (see contradicts), trigger, "
        "session: only when there are some.",
    )
    contradicts: list[str] | None = Field(
        default=None, description="Ids of active memories that disagree with this one."
    )
    memory: MemoryOut | None = Field(default=None, description="detail=true: every field.")
    path: list[PathStep] | None = Field(
        default=None, description="detail=true, recall: the seed, then each edge followed."
    )


class HitsOut(BaseModel):
    """Hits, best first. ``omitted`` counts hits left out to stay within ``budget_tokens``."""

    hits: list[HitOut]
    omitted: int | None = Field(
        default=None, description="Hits left out to fit budget_tokens (only when some were)."
    )


class RecallOut(HitsOut):
    """A cascade recall; pass ``recall_id`` to ``feedback`` to say which hits helped."""

    recall_id: str


class ExplainOut(RecallOut):
    """A recall with its tree of paths as text (what ``graphmem explain`` prints)."""

    context: str
    tree: str


class MemoryBrief(BaseModel):
    """A memory in a listing: id, text and what tells it apart; ``detail`` adds every field."""

    id: str
    text: str
    kind: str
    tags: list[str]
    created_at: str = Field(description="When it was stored (ISO 8601, UTC).")
    active: bool | None = Field(default=None, description="Only when false: forgotten.")
    superseded_by: str | None = Field(
        default=None, description="The id of the memory that replaced it, if any."
    )
    memory: MemoryOut | None = Field(default=None, description="detail=true: every field.")


def brief(m: Memory, *, detail: bool = False) -> MemoryBrief:
    return MemoryBrief(
        id=m.id,
        text=m.content,
        kind=m.kind,
        tags=m.tags,
        created_at=m.created_at.isoformat(timespec="seconds"),
        active=None if m.active else False,
        superseded_by=m.superseded_by,
        memory=memory_out(m) if detail else None,
    )


def _node(step: Any, width: int) -> str:
    if step.node_type == "memory":
        return f'"{clip(step.label, width)}"'
    return f"{step.node_type}:{step.label}"


def reason(h: Any) -> str:
    """Why recall found a hit, in one short line: ``RecallHit.explain()`` with the memories on
    the way clipped (shorter for a long walk), and a walk still too long told by its first and
    last steps."""
    path = h.path
    if len(path) == 1:
        return h.explain()
    first = path[0]
    score = f"{max(first.score, 0.0):.3f}"
    line = ""
    for width in LABEL_CHARS:
        head = f"from {_node(first, width)} [{first.via} {score}]"
        steps = [f"-{s.edge}-> {_node(s, width)}" for s in path[1:-1]]
        steps.append(f"-{path[-1].edge}-> this")
        line = " ".join([head, *steps])
        if len(line) <= REASON_CHARS:
            return line
    # The first step says where the walk started, the last two how it arrived.
    line = " ".join([head, f"-> ({len(steps) - 2} more steps)", *steps[-2:]])
    return clip(line, REASON_CHARS)


def recall_hit(h: Any, *, detail: bool) -> HitOut:
    """A ``RecallHit`` as the compact hit (``detail``: with the memory and its path)."""
    return HitOut(
        id=h.memory.id,
        text=h.memory.content,
        score=round(h.score, 3),
        kind=None if h.memory.kind == "fact" else h.memory.kind,
        why=reason(h),
        flags=list(h.flags) or None,
        contradicts=list(h.contradicts) or None,
        memory=memory_out(h.memory) if detail else None,
        path=list(h.path) if detail else None,
    )


def search_hit(h: Any, *, detail: bool) -> HitOut:
    """A search ``Hit`` (score: cosine similarity) as the compact hit."""
    return HitOut(
        id=h.memory.id,
        text=h.memory.content,
        score=round(h.score, 3),
        kind=None if h.memory.kind == "fact" else h.memory.kind,
        memory=memory_out(h.memory) if detail else None,
    )


def dump(model: BaseModel) -> dict[str, Any]:
    """The model as JSON data without the fields left empty (they cost tokens, say nothing)."""
    return model.model_dump(mode="json", exclude_none=True)


def text_of(data: dict[str, Any]) -> str:
    """The answer's text content: compact JSON (the SDK's default indents it)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


Answer = TypeVar("Answer", bound=HitsOut)


def fit(out: Answer, budget_tokens: int | None) -> Answer:
    """Leave out hits, lowest ranked first, until the answer fits ``budget_tokens``.

    A hit is never cut short: a memory is shown whole or not at all (a clipped fact could
    read as a different one), and ``omitted`` says how many were left out.
    """
    if budget_tokens is None:
        return out
    limit = budget_tokens * CHARS_PER_TOKEN
    kept: list[HitOut] = list(out.hits)
    while kept and len(text_of(dump(out.model_copy(update={"hits": kept, "omitted": 1})))) > limit:
        kept.pop()
    omitted = len(out.hits) - len(kept)
    return out.model_copy(update={"hits": kept, "omitted": omitted or None})


def listing(memories: Sequence[Memory], *, detail: bool) -> list[MemoryBrief]:
    return [brief(m, detail=detail) for m in memories]


__all__ = [
    "ExplainOut",
    "HitOut",
    "HitsOut",
    "MemoryBrief",
    "MemoryOut",
    "RecallOut",
    "brief",
    "dump",
    "fit",
    "listing",
    "memory_out",
    "recall_hit",
    "search_hit",
    "text_of",
]

"""Imports that can be run again: ``graphmem import`` of JSONL or CSV items.

Running the same import twice must add and supersede nothing. So every item has an identity:

- an item without an ``id`` gets one from its content and fields (``item_identity``: a hash of
  the whitespace-folded content and every stored field, plus the item's occurrence number among
  identical items of the file, so a line repeated on purpose is still counted twice);
- an item whose identity the store already holds (as a memory, or as the ``asked_id`` of a
  reinforcement: the first import merged it into an existing memory) is skipped;
- an item with its own ``id`` that exists is handled as ``on_existing`` says: ``skip`` (the
  default), ``update`` (its fields are written with ``update``; new tags are added) or
  ``error`` (nothing is written; the error names every such id).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ValidationError
from ..models import ON_EXISTING, FlaggedItem, RememberResult
from ..text.tags import normalize_tag
from ..timeutil import from_db
from . import validate

# What makes two items the same statement: the switches (dedupe, conflicts, redact) only say
# how to write it, and ``supersedes`` is what it does, not what it is.
_IDENTITY_SKIP = frozenset({"id", "dedupe", "conflicts", "redact", "supersedes"})
_UPDATE_KEYS = ("content", "kind", "confidence", "pinned", "metadata", "triggers", "file_paths",
                "valid_from", "valid_until")  # fmt: skip
_WS = re.compile(r"\s+")
# Ids are looked up in the store this many at a time.
LOOKUP_CHUNK = 2000


class Skipped(BaseModel):
    """An item the import left alone, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item: int = Field(description="1-based position of the item in the import")
    id: str
    reason: str


class ImportReport(BaseModel):
    """What an import did: each written item's result, and the items it skipped or updated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    results: list[RememberResult] = Field(default_factory=list)
    # 1-based position in the import of the item each result answers.
    positions: list[int] = Field(default_factory=list)
    # Items that hold a secret (``index``: 0-based position in the import), skipped or
    # stored redacted as ``on_secret`` said.
    flagged: list[FlaggedItem] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.results:
            out[r.action] = out.get(r.action, 0) + 1
        if self.updated:
            out["updated"] = len(self.updated)
        if self.skipped:
            out["skipped"] = len(self.skipped)
        return out


def item_identity(item: dict[str, Any], occurrence: int = 0) -> str:
    """A stable id for an item without one: the same content and fields give the same id."""
    fields = {k: v for k, v in item.items() if k not in _IDENTITY_SKIP}
    content = fields.get("content")
    if isinstance(content, str):
        fields["content"] = _WS.sub(" ", content.strip())
    if isinstance(fields.get("tags"), list):
        fields["tags"] = sorted(map(str, fields["tags"]))
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)
    # surrogatepass: a lone surrogate (refused by the item's checks, later) still has an id.
    digest = hashlib.sha256(f"{occurrence}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"imp-{digest[:24]}"


def run_import(
    mem: Any,
    items: Sequence[dict[str, Any]],
    *,
    on_existing: str = "skip",
    batch_size: int = 512,
    progress: bool | Callable[[int, int], None] = False,
    dedupe: bool | None = None,
    conflicts: str | None = None,
    dry_run: bool = False,
    on_secret: str = "skip",
) -> ImportReport:
    """Import ``items`` into ``mem`` (a ``GraphMemory``) so that running it again changes
    nothing.

    Raises:
        ValidationError: ``on_existing`` is unknown, an item is no dict, or ``on_existing``
            is ``error`` and items name ids the store holds (nothing is written).
    """
    if on_existing not in ON_EXISTING:
        raise ValidationError(
            f"on_existing must be one of {', '.join(ON_EXISTING)}; got {on_existing!r}"
        )
    keyed: list[dict[str, Any]] = []
    derived: set[str] = set()
    seen: dict[str, int] = {}
    for index, raw in enumerate(items):
        if not isinstance(raw, dict):
            raise ValidationError(f"item {index + 1}: expected an object, got {type(raw).__name__}")
        if raw.get("id") is None:
            first = item_identity(raw)
            occurrence = seen.get(first, 0)
            seen[first] = occurrence + 1
            raw = {**raw, "id": first if occurrence == 0 else item_identity(raw, occurrence)}
            derived.add(raw["id"])
        keyed.append(raw)
    ids = [str(r["id"]) for r in keyed]
    stored = _stored_ids(mem, ids)
    merged = _merged_ids(mem, ids)
    clash = [i for i in ids if i in stored and i not in derived]
    if clash and on_existing == "error":
        shown = ", ".join(clash[:10]) + (f" and {len(clash) - 10} more" if len(clash) > 10 else "")
        raise ValidationError(
            f"{len(clash)} item(s) name ids the store already holds: {shown} "
            "(--on-existing skip or update to import the rest)"
        )
    todo: list[dict[str, Any]] = []
    positions: list[int] = []
    skipped: list[Skipped] = []
    updates: list[tuple[int, dict[str, Any]]] = []
    for n, (raw, memory_id) in enumerate(zip(keyed, ids, strict=True), 1):
        if memory_id in derived and (memory_id in stored or memory_id in merged):
            skipped.append(Skipped(item=n, id=memory_id, reason="imported before"))
        elif memory_id in merged:
            skipped.append(Skipped(item=n, id=memory_id, reason="merged into another memory"))
        elif memory_id in stored and on_existing == "update":
            updates.append((n, raw))
        elif memory_id in stored:
            skipped.append(Skipped(item=n, id=memory_id, reason="id exists"))
        else:
            todo.append(raw)
            positions.append(n)
    results = (
        mem.remember_many(
            todo,
            batch_size=batch_size,
            progress=progress,
            dedupe=dedupe,
            conflicts=conflicts,
            dry_run=dry_run,
            on_secret=on_secret,
        )
        if todo
        else []
    )
    # remember_many answers the items it did not skip for a secret: keep positions in step.
    flagged = [
        f.model_copy(update={"index": positions[f.index] - 1})
        for f in getattr(results, "flagged", ())
    ]
    dropped = {f.index for f in getattr(results, "flagged", ()) if f.action == "skipped"}
    positions = [p for i, p in enumerate(positions) if i not in dropped]
    updated = []
    for n, raw in updates:
        memory_id = str(raw["id"])
        if not _changes(mem.get(memory_id), raw):
            skipped.append(Skipped(item=n, id=memory_id, reason="unchanged"))
            continue
        if not dry_run:
            fields = {k: raw[k] for k in _UPDATE_KEYS if k in raw}
            if conflicts is not None or "conflicts" in raw:
                fields["conflicts"] = raw.get("conflicts", conflicts)
            mem.update(memory_id, **fields)
            if raw.get("tags"):
                mem.tag(memory_id, *raw["tags"])
        updated.append(memory_id)
    skipped.sort(key=lambda k: k.item)
    return ImportReport(
        results=list(results),
        positions=positions,
        skipped=skipped,
        updated=updated,
        flagged=flagged,
    )


def _changes(memory: Any, raw: dict[str, Any]) -> bool:
    """Whether writing the item over the memory would change anything it says."""
    for key in _UPDATE_KEYS:
        if key not in raw or raw[key] is None:
            continue
        value, have = raw[key], getattr(memory, key)
        if key == "content":
            value, have = _WS.sub(" ", str(value).strip()), _WS.sub(" ", have.strip())
        elif key in ("valid_from", "valid_until"):
            value = from_db(validate.as_time(key, value))
        if value != have:
            return True
    try:
        tags = {normalize_tag(t) for t in raw.get("tags") or ()}
    except (ValueError, TypeError, AttributeError):
        return True  # tag() says what is wrong with it
    return not tags <= set(memory.tags)


def _stored_ids(mem: Any, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), LOOKUP_CHUNK):
        rows = mem.cypher(
            "UNWIND $ids AS i MATCH (m:Memory {id: i}) RETURN m.id AS id",
            {"ids": unique[start : start + LOOKUP_CHUNK]},
        )
        found.update(r["id"] for r in rows)
    return found


def _merged_ids(mem: Any, ids: Sequence[str]) -> set[str]:
    """Ids that items of an earlier import asked for and that were merged into another memory
    (the write path records them as ``asked_id`` in that memory's reinforcements)."""
    wanted = set(ids)
    rows = mem.cypher(
        "MATCH (m:Memory) UNWIND m.reinforcements AS r WITH r WHERE r CONTAINS '\"asked_id\"' "
        "RETURN r AS crumb"
    )
    found = set()
    for row in rows:
        try:
            asked = json.loads(row["crumb"]).get("asked_id")
        except (ValueError, AttributeError):
            continue
        if asked in wanted:
            found.add(asked)
    return found

"""A LangGraph long-term memory store backed by graphmem: ``GraphMemStore``.

``GraphMemStore(path)`` is a ``langgraph.store.base.BaseStore``: pass it to
``graph.compile(store=...)`` and every node gets graphmem's cascade recall behind
``store.search(namespace, query=...)``. Needs ``pip install graphmem[langgraph]``; nothing else
in graphmem imports this module.

How items map onto memories:

- an item ``(namespace, key, value)`` is one memory whose id is derived from the namespace
  and key, so ``get`` is a lookup, not a search;
- the namespace is the memory's project (``scope="project"``, the namespace's parts joined by
  ``/``, each percent-encoded), so dedupe and corrections stay inside one namespace and a
  search never reaches into another;
- the memory's text is what recall embeds and matches: the value's fields as ``path: value``
  lines (or only the fields named by ``index``), cut to ``max_content_chars``; the exact value
  is kept whole in metadata (up to 24 MiB as JSON, what a served write carries) and returned
  unchanged;
- ``search(prefix, query=...)`` ranks every item under the prefix that passes ``filter``
  (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``): what cascade recall finds first, in
  its order, then the rest by similarity; then ``offset`` and ``limit``. An item's ``score`` is
  its cosine similarity to the query (of its best field when ``index`` names several, as in
  LangGraph's stores); items put with ``index=False`` fill what is left of a page, with
  ``score=None``. Without a query, items come newest first;
- TTL is supported (minutes, as in LangGraph): an expired item is gone for reads and deleted
  on the next read or ``sweep()``; reads refresh the TTL unless ``refresh_ttl=False``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    get_text_at_path,
    tokenize_path,
)

from ..errors import NotFoundError, ValidationError
from ..memory import GraphMemory
from ..write.items import MAX_METADATA_BYTES

META_KEY = "langgraph"
PROJECT_PREFIX = "langgraph:"
# The most items one namespace's ranking reads (graphmem's largest limit).
MAX_RANKED = 10_000
# An item indexed by several fields is matched field by field, as LangGraph's stores do (the
# best field's similarity is the item's): at most this many texts of at most this many
# characters each (the model reads 256 tokens), embedded once and kept for later queries.
MAX_FIELD_TEXTS = 64
MAX_FIELD_CHARS = 2_000
FIELD_CACHE_SIZE = 10_000
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})
_ITEMS_QUERY = (
    "MATCH (m:Memory) WHERE m.project STARTS WITH $prefix AND m.metadata CONTAINS $key "
    "AND (m.active OR m.superseded_by IS NOT NULL) "
    "RETURN m.id AS id, m.project AS project, m.metadata AS metadata, "
    "m.created_at AS created_at, m.updated_at AS updated_at"
)


class InvalidNamespace(ValidationError, InvalidNamespaceError):
    """A namespace LangGraph refuses: a ``ValidationError`` (graphmem's typed error) that is
    also LangGraph's ``InvalidNamespaceError``, so code written for LangGraph's stores
    catches it."""


class GraphMemStore(BaseStore):
    """A LangGraph ``BaseStore`` on a graphmem store.

    Args:
        path: the store's folder (or an open ``GraphMemory``, which the caller then closes).
        index: the value fields whose text recall searches (LangGraph paths such as
            ``"content"`` or ``"facts[*].text"``); default: every field.
        ttl: LangGraph's ``TTLConfig`` (``default_ttl`` minutes, ``refresh_on_read``).
        clock: seconds since the epoch, for TTLs (tests pass a fake one).
        **options: passed to ``GraphMemory`` (model_path, config, …).
    """

    supports_ttl = True

    def __init__(
        self,
        path: str | Path | GraphMemory,
        *,
        index: list[str] | None = None,
        ttl: TTLConfig | None = None,
        clock: Callable[[], float] = time.time,
        **options: Any,
    ) -> None:
        if isinstance(path, GraphMemory):
            self.memory, self._owned = path, False
        else:
            self.memory, self._owned = GraphMemory(path, **options), True
        if index is not None and (
            not isinstance(index, list) or not all(isinstance(p, str) for p in index)
        ):
            raise ValidationError("index must be a list of field paths")
        self.index = index
        self.ttl_config = ttl
        self.clock = clock
        self._lock = threading.RLock()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Close the graphmem store if this object opened it."""
        if self._owned:
            self.memory.close()

    def __enter__(self) -> GraphMemStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each gets its result at the same position."""
        with self._lock:
            return [self._run(op) for op in list(ops)]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # graphmem's calls block (disk, model); run them off the event loop.
        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

    def sweep(self) -> int:
        """Delete every expired item; returns how many."""
        with self._lock:
            expired = [r["id"] for r in self._rows(()) if self._expired(r["meta"])]
            for memory_id in expired:
                self._purge(memory_id)
        return len(expired)

    # ------------------------------------------------------------------ operations

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValidationError(f"unknown store operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        namespace, key = _namespace(op.namespace), _key(op.key)
        try:
            memory = self.memory.get(_memory_id(namespace, key))
        except NotFoundError:
            return None
        if not memory.active and not memory.superseded_by:
            return None  # forgotten with graphmem's own tools
        meta = memory.metadata.get(META_KEY) or {}
        if self._expired(meta):
            self._purge(memory.id)
            return None
        if self._refresh(op.refresh_ttl) and meta.get("ttl"):
            meta = self._touch(memory.id, memory.metadata)
        return Item(
            value=_value(meta),
            key=key,
            namespace=namespace,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
        )

    def _put(self, op: PutOp) -> None:
        namespace, key = _namespace(op.namespace, writing=True), _key(op.key)
        memory_id = _memory_id(namespace, key)
        if op.value is None:
            self._purge(memory_id)
            return
        if not isinstance(op.value, Mapping):
            raise ValidationError(f"value must be a mapping, got {type(op.value).__name__}")
        value = _plain(op.value)
        if op.index is not None and op.index is not False and not isinstance(op.index, list):
            raise ValidationError("index must be False or a list of field paths")
        ttl = self._ttl(op.ttl)
        # The value as JSON text: stored whole at any nesting depth (metadata's depth limit
        # is for what graphmem itself reads), and given back exactly.
        meta: dict[str, Any] = {
            "namespace": list(namespace),
            "key": key,
            "value_json": json.dumps(value, ensure_ascii=False, sort_keys=False),
        }
        if ttl is not None:
            meta.update(ttl=ttl, expires_at=self.clock() + ttl * 60)
        if op.index is False:
            meta["indexed"] = False
        paths = op.index if isinstance(op.index, list) else self.index
        texts = _texts(value, paths) if paths else []
        if len(texts) > 1:
            meta["texts"] = [t[:MAX_FIELD_CHARS] for t in texts[:MAX_FIELD_TEXTS]]
        content = _text(value, paths, key)
        # Recall embeds and matches a bounded part of a long value; the value is kept whole.
        content = _bounded(content, self.memory.config.max_content_chars)
        try:
            current = self.memory.get(memory_id)
        except NotFoundError:
            current = None
        # A key is an identity: a put replaces its own item, never another key's (conflict
        # detection across the namespace would supersede other items), so conflicts are off.
        # The item's earlier content stays as a version (graphmem's history).
        if current is not None and (current.active or current.superseded_by):
            self.memory.update(
                memory_id,
                content=content,
                metadata={META_KEY: meta},
                conflicts="off",
                max_metadata_bytes=MAX_METADATA_BYTES,
            )
            return
        if current is not None:
            self._purge(memory_id)
        # dedupe off: two keys with the same text are two items, never one reinforced memory.
        self.memory.remember(
            content,
            id=memory_id,
            scope="project",
            project=_project(namespace),
            metadata={META_KEY: meta},
            source="observed",
            dedupe=False,
            conflicts="off",
            # The value is stored whole, as LangGraph's own stores keep it (up to the bound a
            # served write can carry); only its text above is embedded, a bounded part.
            max_metadata_bytes=MAX_METADATA_BYTES,
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = _namespace(op.namespace_prefix, allow_empty=True)
        limit = _count("limit", op.limit, 1)
        offset = _count("offset", op.offset, 0)
        condition = op.filter or {}
        if not isinstance(condition, dict):
            raise ValidationError("filter must be a dict")
        if op.query is not None and not isinstance(op.query, str):
            raise ValidationError(f"query must be a string, got {type(op.query).__name__}")
        rows = [r for r in self._rows(prefix) if not self._drop_expired(r)]
        # The filter chooses the items, then they are ranked: every item that matches the
        # prefix and the filter can be returned, as in LangGraph's own stores.
        rows = [r for r in rows if _matches(r["value"], condition)]
        page: list[tuple[dict[str, Any], float | None]]
        if op.query and op.query.strip():
            indexed = [r for r in rows if r["meta"].get("indexed", True)]
            page = self._ranked(op.query, indexed, need=offset + limit)[offset : offset + limit]
            # As LangGraph's stores do: items put with index=False fill what is left of the
            # page, unscored.
            scoreless = [r for r in rows if not r["meta"].get("indexed", True)]
            page += [(r, None) for r in scoreless[: max(0, limit - len(page))]]
        else:
            newest = sorted(rows, key=lambda r: r["updated_at"], reverse=True)
            page = [(r, None) for r in newest[offset : offset + limit]]
        if self._refresh(op.refresh_ttl):
            for r, _ in page:
                if r["meta"].get("ttl"):
                    self._touch(r["id"], {META_KEY: r["meta"]})
        return [
            SearchItem(
                namespace=tuple(r["meta"]["namespace"]),
                key=r["meta"]["key"],
                value=r["value"],
                created_at=_utc(r["created_at"]),
                updated_at=_utc(r["updated_at"]),
                score=score,
            )
            for r, score in page
        ]

    def _ranked(
        self, query: str, rows: list[dict[str, Any]], *, need: int
    ) -> list[tuple[dict[str, Any], float | None]]:
        """Every row, ranked: what cascade recall finds first (its order), then the rest by
        similarity to the query. Each item's score is its similarity (cosine, as LangGraph's
        stores report it), whichever place it takes."""
        by_id = {r["id"]: r for r in rows}
        per_project: dict[str, int] = {}
        for r in rows:
            per_project[r["project"]] = per_project.get(r["project"], 0) + 1
        recalled: dict[str, float] = {}
        similar: dict[str, float] = {}
        for project, count in sorted(per_project.items()):
            for hit in self.memory.recall(query, limit=min(MAX_RANKED, need + 10), project=project):
                if hit.memory.id in by_id:
                    recalled[hit.memory.id] = max(recalled.get(hit.memory.id, -1.0), hit.score)
            # include_inactive: an item a correction superseded, or past a validity window
            # graphmem's own tools gave it, is still the host's item.
            nearest = self.memory.search(
                query, limit=min(MAX_RANKED, 2 * count + 10), project=project, include_inactive=True
            )
            for near in nearest:
                if near.memory.id in by_id:
                    similar[near.memory.id] = near.score
        several = [r for r in rows if len(r["meta"].get("texts") or ()) > 1]
        if several:
            asked = self._embed([query])[0]
            for r in several:
                vectors = self._embed(r["meta"]["texts"])
                similar[r["id"]] = round(float(np.max(vectors @ asked)), 6)
        first = sorted(recalled, key=lambda i: (-recalled[i], i))
        rest = sorted(
            (i for i in by_id if i not in recalled), key=lambda i: (-similar.get(i, -1.0), i)
        )
        return [(by_id[i], similar.get(i, 0.0)) for i in [*first, *rest]]

    def _embed(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors (unit rows); each text is embedded once while it is cached, so
        one text has one vector (equal fields score equal)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.memory.embedder.embed(missing), strict=True):
                self._vectors[text] = vector
        for text in texts:
            self._vectors.move_to_end(text)
        while len(self._vectors) > FIELD_CACHE_SIZE:
            self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        limit = _count("limit", op.limit, 1)
        offset = _count("offset", op.offset, 0)
        found = {
            tuple(r["meta"]["namespace"]) for r in self._rows(()) if not self._expired(r["meta"])
        }
        conditions = op.match_conditions or ()
        spaces = [ns for ns in found if all(_namespace_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            depth = _count("max_depth", op.max_depth, 1)
            spaces = list({ns[:depth] for ns in spaces})
        return sorted(spaces)[offset : offset + limit]

    # ------------------------------------------------------------------ helpers

    def _rows(self, prefix: tuple[str, ...]) -> list[dict[str, Any]]:
        project = _project(prefix) if prefix else PROJECT_PREFIX
        rows = self.memory.cypher(_ITEMS_QUERY, {"prefix": project, "key": f'"{META_KEY}"'})
        out = []
        for row in rows:
            # "a/b" is under the prefix "a", "ab" is not.
            if (
                prefix
                and row["project"] != project
                and not row["project"].startswith(project + "/")
            ):
                continue
            meta = json.loads(row["metadata"] or "{}").get(META_KEY)
            if not isinstance(meta, dict) or ("value" not in meta and "value_json" not in meta):
                continue
            # Only the item's own memory: an earlier version graphmem keeps (same metadata,
            # another id) is history, not an item.
            if row["id"] != _memory_id(tuple(meta["namespace"]), meta["key"]):
                continue
            out.append({**row, "meta": meta, "value": _value(meta)})
        return out

    def _drop_expired(self, row: dict[str, Any]) -> bool:
        if self._expired(row["meta"]):
            self._purge(row["id"])
            return True
        return False

    def _purge(self, memory_id: str) -> None:
        # Already gone: deleting is idempotent, as in LangGraph.
        with contextlib.suppress(NotFoundError):
            self.memory.forget(memory_id, purge=True)

    def _touch(self, memory_id: str, metadata: dict[str, Any]) -> dict[str, Any]:
        meta = dict(metadata[META_KEY])
        meta["expires_at"] = self.clock() + float(meta["ttl"]) * 60
        self.memory.update(
            memory_id,
            metadata={**metadata, META_KEY: meta},
            max_metadata_bytes=MAX_METADATA_BYTES,
        )
        return meta

    def _expired(self, meta: dict[str, Any]) -> bool:
        expires = meta.get("expires_at")
        return expires is not None and float(expires) <= self.clock()

    def _refresh(self, asked: bool | None) -> bool:
        if asked is not None:
            return bool(asked)
        return bool((self.ttl_config or {}).get("refresh_on_read", True))

    def _ttl(self, given: Any) -> float | None:
        from langgraph.store.base import NotProvided

        if isinstance(given, NotProvided):
            given = (self.ttl_config or {}).get("default_ttl")
        if given is None:
            return None
        if isinstance(given, bool) or not isinstance(given, int | float) or given <= 0:
            raise ValidationError(f"ttl must be a positive number of minutes, got {given!r}")
        return float(given)


# ---------------------------------------------------------------------- mapping


def _namespace(value: Any, *, allow_empty: bool = False, writing: bool = False) -> tuple[str, ...]:
    if not isinstance(value, tuple | list) or not all(isinstance(p, str) for p in value):
        raise InvalidNamespace(f"namespace must be a tuple of strings, got {value!r}")
    namespace = tuple(value)
    if not namespace and not allow_empty:
        raise InvalidNamespace("namespace cannot be empty")
    if any(not p for p in namespace):
        raise InvalidNamespace(f"namespace labels cannot be empty: {namespace!r}")
    if writing and any("." in p for p in namespace):
        # LangGraph's own rule (its stores refuse periods in labels).
        raise InvalidNamespace(f"namespace labels cannot contain periods: {namespace!r}")
    return namespace


def _key(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"key must be a non-empty string, got {value!r}")
    return value


def _count(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValidationError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def _project(namespace: tuple[str, ...]) -> str:
    return PROJECT_PREFIX + "/".join(quote(p, safe="") for p in namespace)


def _memory_id(namespace: tuple[str, ...], key: str) -> str:
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode("utf-8")).hexdigest()
    return f"lg-{digest[:16]}"


def _text(value: dict[str, Any], paths: list[str] | None, key: str) -> str:
    """What recall sees of a value: the chosen fields' text, or every field as path: value."""
    text = "\n".join(_texts(value, paths)) if paths else "\n".join(_lines(value))
    return text.strip() or key


def _texts(value: dict[str, Any], paths: list[str]) -> list[str]:
    """The chosen fields' texts, one per field (a path with ``[*]`` gives several)."""
    parts: list[str] = []
    for path in paths:
        if path == "$":
            parts.append(json.dumps(value, ensure_ascii=False, default=str))
        else:
            parts.extend(get_text_at_path(value, tokenize_path(path)))
    return [p for p in parts if p.strip()]


def _lines(value: Any, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [line for k, v in value.items() for line in _lines(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [line for v in value for line in _lines(v, path)]
    if value is None or value == "":
        return []
    # A lone text field reads best as itself ("content: ..." adds nothing for recall).
    return [f"{path}: {value}" if path not in ("content", "text", "memory") else str(value)]


def _plain(value: Mapping[str, Any]) -> Any:
    """The value as plain JSON data (any Mapping becomes a dict).

    Raises:
        ValidationError: it holds something JSON cannot carry.
    """
    try:
        out = json.loads(json.dumps(value, ensure_ascii=False, default=_mapping))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"value must be JSON data: {exc}") from exc
    except RecursionError as exc:
        # Deeper than Python's JSON codec goes (about 1,000 levels).
        raise ValidationError("value is nested too deeply to store as JSON") from exc
    return out


def _mapping(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _value(meta: dict[str, Any]) -> Any:
    """The stored value (as JSON text since values of any depth are kept; items written
    before that keep it as data)."""
    if "value_json" in meta:
        return json.loads(meta["value_json"])
    return meta["value"]


def _bounded(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a line or word break where one is near."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("\n", " "):
        at = cut.rfind(sep)
        if at > limit * 0.8:
            return cut[:at].rstrip()
    return cut


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValidationError(f"unknown match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


def _matches(value: Any, condition: Any) -> bool:
    """LangGraph's filter: equality, nested objects, and $eq/$ne/$gt/$gte/$lt/$lte."""
    if isinstance(condition, dict):
        if any(k.startswith("$") for k in condition):
            return all(_apply(value, op, arg) for op, arg in condition.items())
        return isinstance(value, dict) and all(
            _matches(value.get(k), v) for k, v in condition.items()
        )
    return value == condition


def _apply(value: Any, op: str, arg: Any) -> bool:
    if op not in _OPERATORS:
        raise ValidationError(f"unknown filter operator {op!r}; expected {sorted(_OPERATORS)}")
    if op == "$eq":
        return value == arg
    if op == "$ne":
        return value != arg
    try:
        left, right = float(value), float(arg)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field does not compare
    return {
        "$gt": left > right,
        "$gte": left >= right,
        "$lt": left < right,
        "$lte": left <= right,
    }[op]


__all__ = ["GraphMemStore"]

"""The knowledge graph of the reference MCP memory server, kept in a graphmem store.

``@modelcontextprotocol/server-memory`` keeps *entities* (a name, a type, a list of
*observations*) and *relations* (``from`` --``relationType``--> ``to``) in a JSONL file and
searches them by substring. :class:`KnowledgeGraph` gives the same operations, with the same
semantics, on a ``GraphMemory``; ``graphmem mcp --tools server-memory`` serves them and
``graphmem import/export --format mcp-memory`` moves its file in and out.

How the graph maps onto memories (every piece is an ordinary memory, so graphmem's own tools,
recall, dedupe and corrections see it):

- an **entity** is an *entity-home* memory ``"<name>\\n<entityType>"``, pinned, tagged with the
  entity's name;
- an **observation** is a memory ``"<name>\\n<observation>"`` tagged with the entity's name:
  the first line makes it self-contained for recall, and (as a heading) keeps graphmem's
  conflict check between the observations of one entity;
- a **relation** is a memory on the edge, ``"<from> <relationType> <to>"``, tagged with both
  names: a typed link that keeps its ``relationType`` and says it in words, so recall finds
  "who works at Acme?".

The exact strings live in each memory's metadata under ``mcp_memory`` (role, names, text, and
a sequence number that keeps the reference's order), so what comes back is what went in. An
observation graphmem later superseded with a correction stays in ``read_graph`` (the reference
keeps it too) but recall prefers the correction; one forgotten with graphmem's ``forget`` is
gone from the graph.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import GraphMemError, NotFoundError, ValidationError
from ...private import FILE_MODE, write_private
from ...text.tags import normalize_tag
from ...write.planner import VERSION_CRUMB

if TYPE_CHECKING:
    from ...memory import GraphMemory

META_KEY = "mcp_memory"
# How this adapter maps graphmem's recall onto the reference server's answers (not Config
# fields: Config tunes graphmem's recall, these the shape of one tool's reply).
# Recall answers search_nodes with at most this many memories before they are mapped to entities.
RECALL_LIMIT = 30
# search_nodes adds at most this many entities beyond the reference's substring matches, each
# reached through a memory at least this similar to the query (all-MiniLM-L6-v2 cosine: an
# unrelated pair scores about 0 to 0.2, a paraphrase or a related fact 0.4 and up).
RECALL_EXTRA = 3
RELATED_COSINE = 0.35
_LIST_QUERY = (
    "MATCH (m:Memory) WHERE m.metadata CONTAINS $key "
    "RETURN m.id AS id, m.metadata AS metadata, m.active AS active, "
    "m.superseded_by AS superseded_by, m.reinforcements AS crumbs"
)


class EntityNotFound(GraphMemError):
    """``add_observations`` named an entity that does not exist (the reference's error)."""


@dataclass
class _Record:
    id: str
    role: str
    data: dict[str, Any]
    seq: int


@dataclass
class _Graph:
    """The knowledge graph as stored, in the reference's order."""

    entities: dict[str, _Record] = field(default_factory=dict)
    observations: dict[str, list[_Record]] = field(default_factory=dict)
    relations: list[_Record] = field(default_factory=list)
    by_id: dict[str, _Record] = field(default_factory=dict)
    next_seq: int = 0

    def entity(self, name: str) -> dict[str, Any]:
        home = self.entities[name]
        return {
            "name": name,
            "entityType": home.data["entityType"],
            "observations": [r.data["text"] for r in self.observations.get(name, [])],
        }

    def has_relation(self, rel: dict[str, str]) -> bool:
        return any(_relation(r) == rel for r in self.relations)


def _relation(record: _Record) -> dict[str, str]:
    d = record.data
    return {"from": d["from"], "to": d["to"], "relationType": d["relationType"]}


class KnowledgeGraph:
    """The reference memory server's operations on a graphmem store.

    Args:
        memory: the open ``GraphMemory`` (a local store or a client of its owner).
    """

    def __init__(self, memory: GraphMemory) -> None:
        self.memory = memory
        # One tool call at a time: each reads the graph, then writes what it decided.
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ reading the store

    def _load(self) -> _Graph:
        rows = self.memory.cypher(_LIST_QUERY, {"key": f'"{META_KEY}"'})
        records = []
        for row in rows:
            # Forgotten with graphmem's forget: gone. Superseded by a correction: still said.
            if not row["active"] and not row["superseded_by"]:
                continue
            # An earlier version update() kept is history, not a statement of the graph.
            if any(VERSION_CRUMB in c for c in row["crumbs"] or ()):
                continue
            try:
                data = json.loads(row["metadata"] or "{}").get(META_KEY)
            except (ValueError, AttributeError):
                continue
            if not isinstance(data, dict) or data.get("role") not in (
                "entity",
                "observation",
                "relation",
            ):
                continue
            records.append(_Record(row["id"], data["role"], data, int(data.get("seq", 0))))
        records.sort(key=lambda r: (r.seq, r.id))
        g = _Graph(next_seq=max((r.seq for r in records), default=-1) + 1)
        for r in records:
            g.by_id[r.id] = r
            if r.role == "entity":
                g.entities.setdefault(r.data["name"], r)
            elif r.role == "observation":
                texts = g.observations.setdefault(r.data["entity"], [])
                if all(o.data["text"] != r.data["text"] for o in texts):
                    texts.append(r)
            elif not g.has_relation(_relation(r)):
                g.relations.append(r)
        return g

    # ------------------------------------------------------------------ writing

    def _write(self, items: list[dict[str, Any]], progress: bool = False) -> None:
        if items:
            # All or nothing: the items of one call name each other (an observation its
            # entity, a relation both ends), so an item with a secret refuses the call.
            self.memory.remember_many(items, progress=progress, on_secret="refuse")

    def _purge(self, ids: Iterable[str]) -> None:
        for memory_id in dict.fromkeys(ids):
            # Deleted meanwhile by another client: the outcome is the same.
            with contextlib.suppress(NotFoundError):
                self.memory.forget(memory_id, purge=True)

    # ------------------------------------------------------------------ the nine operations

    def create_entities(self, entities: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Create the entities whose names are new; returns those created (as stored)."""
        entities = [_entity_in(e) for e in entities]
        with self._lock:
            g = self._load()
            created, items, _ = _new_entities(g, entities, g.next_seq)
            self._write(items)
        return created

    def create_relations(self, relations: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
        """Create the relations not already present; returns those created."""
        relations = [_relation_in(r) for r in relations]
        with self._lock:
            g = self._load()
            created, items = _new_relations(g, relations, g.next_seq)
            self._write(items)
        return created

    def add_observations(self, observations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Add the observations each entity does not have yet.

        Raises:
            EntityNotFound: an entity does not exist; nothing is added.
        """
        wanted = [_observations_in(o) for o in observations]
        with self._lock:
            g = self._load()
            seq = g.next_seq
            have = {n: {r.data["text"] for r in rs} for n, rs in g.observations.items()}
            results: list[dict[str, Any]] = []
            items: list[dict[str, Any]] = []
            for name, contents in wanted:
                if name not in g.entities:
                    raise EntityNotFound(f"Entity with name {name} not found")
                known = have.setdefault(name, set())
                added = [c for c in dict.fromkeys(contents) if c not in known]
                known.update(added)
                for text in added:
                    items.append(_observation_item(name, text, seq))
                    seq += 1
                results.append({"entityName": name, "addedObservations": added})
            self._write(items)
        return results

    def delete_entities(self, names: Sequence[str]) -> None:
        """Delete the entities, their observations and every relation to or from them."""
        doomed = set(_strings("entityNames", names))
        with self._lock:
            g = self._load()
            ids = [r.id for r in g.by_id.values() if _touches(r, doomed)]
            self._purge(ids)

    def delete_observations(self, deletions: Sequence[dict[str, Any]]) -> None:
        """Delete the given observations (unknown entities and texts are ignored)."""
        pairs = [_observations_in(d, key="observations") for d in deletions]
        with self._lock:
            g = self._load()
            ids = [
                r.id
                for name, texts in pairs
                for r in g.by_id.values()
                if r.role == "observation" and r.data["entity"] == name and r.data["text"] in texts
            ]
            self._purge(ids)

    def delete_relations(self, relations: Sequence[dict[str, Any]]) -> None:
        """Delete the given relations (unknown ones are ignored)."""
        doomed = [_relation_in(r) for r in relations]
        with self._lock:
            g = self._load()
            ids = [
                r.id for r in g.by_id.values() if r.role == "relation" and _relation(r) in doomed
            ]
            self._purge(ids)

    def read_graph(self) -> dict[str, list[dict[str, Any]]]:
        """Every entity (with its observations) and every relation."""
        with self._lock:
            g = self._load()
        return {
            "entities": [g.entity(n) for n in g.entities],
            "relations": [_relation(r) for r in g.relations],
        }

    def open_nodes(self, names: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """The named entities and the relations that touch any of them."""
        wanted = set(_strings("names", names))
        with self._lock:
            g = self._load()
        return _subgraph(g, [n for n in g.entities if n in wanted])

    def search_nodes(self, query: str) -> dict[str, list[dict[str, Any]]]:
        """The entities whose name, type or an observation contains ``query`` (case-insensitive,
        as the reference finds them) plus those cascade recall finds for it, best first; and
        the relations that touch any of them."""
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string, got {type(query).__name__}")
        with self._lock:
            g = self._load()
            ranked = self._recalled(g, query)
        needle = query.lower()
        # The reference's answer first, in its order (what an agent written for it expects),
        # then at most a few entities only recall found, each through a memory that clears
        # the relevance bar: none for a query nothing relates to.
        matched = [n for n in g.entities if _contains(g.entity(n), needle)]
        extra = [n for n in ranked if n not in set(matched)][:RECALL_EXTRA]
        return _subgraph(g, [*matched, *extra])

    def _recalled(self, g: _Graph, query: str) -> list[str]:
        """Entities that recall reaches from the query, in recall's order."""
        if not query.strip() or not g.by_id:
            return []
        names: list[str] = []
        # Recall's scores rank but do not say how related a hit is; cosine similarity does.
        related = {
            h.memory.id
            for h in self.memory.search(query, limit=RECALL_LIMIT)
            if h.score >= RELATED_COSINE
        }
        for hit in self.memory.recall(query, limit=RECALL_LIMIT, learn=False):
            record = g.by_id.get(hit.memory.id)
            if record is None or hit.memory.id not in related:
                continue
            if record.role == "entity":
                ends = [record.data["name"]]
            elif record.role == "observation":
                ends = [record.data["entity"]]
            else:
                ends = [record.data["from"], record.data["to"]]
            names.extend(n for n in ends if n in g.entities)
        return list(dict.fromkeys(names))

    # ------------------------------------------------------------------ the JSONL file

    def import_jsonl(
        self, path: str | Path, *, sync: bool = False, progress: bool = False
    ) -> dict[str, int]:
        """Read a ``memory.jsonl`` written by the reference server into the store.

        Idempotent: entities already present keep their type and gain only the observations
        they lack; relations already present are skipped. Returns counts of what was added.

        ``sync``: make the graph what the file says (a newer copy of the same graph): also
        delete the entities, observations and relations the file no longer holds, and give an
        entity the type the file gives it (the old type stays in ``history`` as a version).
        The counts then add ``deleted_entities``, ``deleted_observations``,
        ``deleted_relations`` and ``retyped``.

        Raises:
            ValidationError: a line is not JSON, or an entity or relation lacks a field.
        """
        entities, relations = read_jsonl(path)
        with self._lock:
            if sync:
                removed = self._sync_to(entities, relations)
            g = self._load()
            seq = g.next_seq
            created, items, seq = _new_entities(g, entities, seq)
            new_names = {e["name"] for e in created}
            added = 0
            have = {n: {r.data["text"] for r in rs} for n, rs in g.observations.items()}
            for e in entities:
                if e["name"] in new_names:
                    continue
                known = have.setdefault(e["name"], set())
                for text in dict.fromkeys(e["observations"]):
                    if text not in known:
                        known.add(text)
                        items.append(_observation_item(e["name"], text, seq))
                        seq += 1
                        added += 1
            new_relations, rel_items = _new_relations(g, relations, seq)
            self._write(items + rel_items, progress=progress)
        counts = {
            "entities": len(created),
            "observations": added + sum(len(e["observations"]) for e in created),
            "relations": len(new_relations),
        }
        return {**counts, **removed} if sync else counts

    def _sync_to(
        self, entities: list[dict[str, Any]], relations: list[dict[str, str]]
    ) -> dict[str, int]:
        """Delete what the file no longer holds and retype what it types otherwise (the
        additions are ``import_jsonl``'s)."""
        g = self._load()
        wanted = {e["name"]: e for e in entities}
        gone_entities = [n for n in g.entities if n not in wanted]
        doomed = set(gone_entities)
        ids = [r.id for r in g.by_id.values() if _touches(r, doomed)]
        gone_observations = [
            r.id
            for name, records in g.observations.items()
            if name in wanted
            for r in records
            if r.data["text"] not in wanted[name]["observations"]
        ]
        gone_relations = [r.id for r in g.relations if _relation(r) not in relations]
        self._purge([*ids, *gone_observations, *gone_relations])
        retyped = 0
        for name, home in g.entities.items():
            if name in wanted and wanted[name]["entityType"] != home.data["entityType"]:
                data = {**home.data, "entityType": wanted[name]["entityType"]}
                item = _entity_item(name, data["entityType"], data["seq"])
                self.memory.update(
                    home.id, content=item["content"], metadata={META_KEY: data}, conflicts="off"
                )
                retyped += 1
        return {
            "deleted_entities": len(gone_entities),
            "deleted_observations": len(gone_observations),
            "deleted_relations": len(gone_relations),
            "retyped": retyped,
        }

    def export_jsonl(self, path: str | Path, *, mode: int = FILE_MODE) -> dict[str, int]:
        """Write the graph as the reference server's ``memory.jsonl`` (byte for byte the file
        it would write for the same graph), created with ``mode`` (0600: only you can read
        it). Returns counts of what was written."""
        graph = self.read_graph()
        write_private(path, dumps_jsonl(graph), perm=mode)
        return {"entities": len(graph["entities"]), "relations": len(graph["relations"])}


# ---------------------------------------------------------------------- planning writes


def _new_entities(
    g: _Graph, entities: list[dict[str, Any]], seq: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    created: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for e in entities:
        name = e["name"]
        if name in g.entities or any(c["name"] == name for c in created):
            continue
        observations = list(dict.fromkeys(e["observations"]))
        created.append({"name": name, "entityType": e["entityType"], "observations": observations})
        items.append(_entity_item(name, e["entityType"], seq))
        seq += 1
        for text in observations:
            items.append(_observation_item(name, text, seq))
            seq += 1
    return created, items, seq


def _new_relations(
    g: _Graph, relations: list[dict[str, str]], seq: int
) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    created: list[dict[str, str]] = []
    items = []
    for rel in relations:
        if g.has_relation(rel) or rel in created:
            continue
        created.append(rel)
        items.append(_relation_item(rel, seq))
        seq += 1
    return created, items


def _tags(*names: str) -> list[str]:
    """The names as tags where they make one (a tag has a length limit and needs a letter)."""
    out = []
    for name in names:
        try:
            tag = normalize_tag(name)
        except ValueError:
            continue
        if len(tag) <= 100:
            out.append(tag)
    return list(dict.fromkeys(out))


def _item(content: str, data: dict[str, Any], tags: list[str], **extra: Any) -> dict[str, Any]:
    # dedupe off: the reference keeps every distinct string, so two observations that merely
    # look alike must stay two (dedupe would reinforce one instead).
    return {
        "content": content.strip() or data["role"],
        "metadata": {META_KEY: data},
        "tags": tags,
        "source": "user_stated",
        "dedupe": False,
        **extra,
    }


def _entity_item(name: str, entity_type: str, seq: int) -> dict[str, Any]:
    data = {"role": "entity", "name": name, "entityType": entity_type, "seq": seq}
    # Pinned: a correction among its observations must never deactivate the entity itself.
    return _item(f"{name}\n{entity_type}", data, _tags(name), pinned=True)


def _observation_item(name: str, text: str, seq: int) -> dict[str, Any]:
    data = {"role": "observation", "entity": name, "text": text, "seq": seq}
    return _item(f"{name}\n{text}", data, _tags(name))


def _relation_item(rel: dict[str, str], seq: int) -> dict[str, Any]:
    data = {"role": "relation", **rel, "seq": seq}
    verb = rel["relationType"].replace("_", " ")
    return _item(f"{rel['from']} {verb} {rel['to']}", data, _tags(rel["from"], rel["to"]))


def _touches(record: _Record, names: set[str]) -> bool:
    d = record.data
    if record.role == "entity":
        return d["name"] in names
    if record.role == "observation":
        return d["entity"] in names
    return d["from"] in names or d["to"] in names


def _contains(entity: dict[str, Any], needle: str) -> bool:
    return (
        needle in entity["name"].lower()
        or needle in entity["entityType"].lower()
        or any(needle in o.lower() for o in entity["observations"])
    )


def _subgraph(g: _Graph, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    chosen = set(names)
    return {
        "entities": [g.entity(n) for n in names],
        "relations": [
            _relation(r) for r in g.relations if r.data["from"] in chosen or r.data["to"] in chosen
        ],
    }


# ---------------------------------------------------------------------- checking input


def _strings(what: str, values: Any) -> list[str]:
    if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
        raise ValidationError(f"{what} must be a list of strings")
    return list(values)


def _string(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"{what} must be a string, got {type(value).__name__}")
    return value


def _entity_in(e: Any) -> dict[str, Any]:
    if not isinstance(e, dict):
        raise ValidationError(f"an entity must be an object, got {type(e).__name__}")
    return {
        "name": _string("name", e.get("name")),
        "entityType": _string("entityType", e.get("entityType")),
        "observations": _strings("observations", e.get("observations")),
    }


def _relation_in(r: Any) -> dict[str, str]:
    if not isinstance(r, dict):
        raise ValidationError(f"a relation must be an object, got {type(r).__name__}")
    return {k: _string(k, r.get(k)) for k in ("from", "to", "relationType")}


def _observations_in(o: Any, key: str = "contents") -> tuple[str, list[str]]:
    if not isinstance(o, dict):
        raise ValidationError(f"expected an object, got {type(o).__name__}")
    return _string("entityName", o.get("entityName")), _strings(key, o.get(key))


# ---------------------------------------------------------------------- the file format


def read_jsonl(path: str | Path) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Entities and relations from a reference ``memory.jsonl`` (lines of other types are
    skipped, as the reference skips them).

    Raises:
        ValidationError: a line is not JSON or an entity/relation lacks a field.
    """
    entities: list[dict[str, Any]] = []
    relations: list[dict[str, str]] = []
    for n, item in _lines(Path(path)):
        try:
            if item.get("type") == "entity":
                entities.append(_entity_in(item))
            elif item.get("type") == "relation":
                relations.append(_relation_in(item))
        except ValidationError as exc:
            raise ValidationError(f"{path}:{n}: {exc}") from None
    return entities, relations


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"cannot read '{path}': {exc}") from exc
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{path}:{n}: not valid JSON ({exc})") from None
        if not isinstance(item, dict):
            raise ValidationError(f"{path}:{n}: expected a JSON object")
        yield n, item


def _js(value: Any) -> str:
    # JSON.stringify's form: no spaces, non-ASCII kept as is.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def dumps_jsonl(graph: dict[str, list[dict[str, Any]]]) -> str:
    """The graph in the reference's file format (entities first, no final newline)."""
    lines = [
        _js({"type": "entity", "name": e["name"], "entityType": e["entityType"],
             "observations": e["observations"]})
        for e in graph["entities"]
    ] + [
        _js({"type": "relation", "from": r["from"], "to": r["to"],
             "relationType": r["relationType"]})
        for r in graph["relations"]
    ]  # fmt: skip
    return "\n".join(lines)


__all__ = ["EntityNotFound", "KnowledgeGraph", "dumps_jsonl", "read_jsonl"]

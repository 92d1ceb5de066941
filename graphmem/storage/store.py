"""The product's own Cypher: every query graphmem runs against Kùzu is in this module, or in
the two parts ``Store`` keeps apart: ``migrations.py`` (the schema and Meta, run on open) and
``exports.py`` (the whole-store reads of the export, which ``Store`` inherits).

The rest of the package talks to ``Store`` in plain Python (dicts, lists, numpy arrays).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..edges import BY_TABLE, EDGE_TABLES, EDGE_TYPES
from ..errors import (
    CypherError,
    GraphMemError,
    NotFoundError,
)
from ..paths import DB_FILE
from ..private import make_folders
from ..timeutil import now
from . import engine as engine_mod
from .exports import Exports
from .migrations import MIGRATION_KEY, read_meta, write_meta
from .migrations import migrate as _migrate
from .records import ARROW_TYPES, MEMORY_COLUMNS
from .sandbox import Limits, Sandbox

# Rows are written with one `LOAD FROM $arrow_table … CREATE` statement from this many on;
# fewer with one CREATE each (a statement's fixed cost beats a table's below this).
_BULK_MIN_ROWS = 24
# Distinct nodes one statement of a few edges may match (Kùzu plans a join of them all).
_ENDS_PER_STATEMENT = 10
# Largest skip + limit handed to Kùzu's ORDER BY … SKIP … LIMIT (see list_memory_ids).
_TOP_K_MAX = 10_000
# Kùzu 0.11.3 answers `WHERE n.key IN $list` wrongly for nodes created earlier in the same
# transaction (it returned a neighbouring node); `UNWIND $list AS k MATCH (n {key: k})` is right,
# so every lookup by a list of keys below is written that way.
# Meta key of the id every write transaction stamps: a mirror snapshot taken at another id is
# stale.
COMMIT_KEY = "commit_id"

log = logging.getLogger("graphmem.storage.store")
# The Cypher sandbox of each open database, which the Store handles on it share.
_SANDBOXES: dict[Path, Sandbox] = {}
_SANDBOXES_LOCK = threading.Lock()


class Store(Exports):
    """An open graphmem database.

    Args:
        folder: the store's folder (created when missing unless ``read_only``).
        read_only: open without write access (several read-only processes may share a store).
        model_name: the embedding model the caller will use.
        dim: its dimension, or ``None`` to take the one recorded in the store.

    Raises:
        NotFoundError: ``read_only`` and no store exists at ``folder``.
        StoreLockedError: another process has the store open.
        EmbedderMismatchError: the store was built with another model or dimension.
        SchemaVersionError: the store was written by a newer graphmem.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        read_only: bool = False,
        model_name: str,
        dim: int | None,
        buffer_pool_mb: int | None = None,
        max_db_gb: int | None = None,
    ) -> None:
        self.folder = Path(folder).expanduser()
        db_file = self.folder / DB_FILE
        if self.folder.exists() and not self.folder.is_dir():
            raise GraphMemError(f"'{self.folder}' is a file; a graphmem store is a folder.")
        if read_only and not db_file.exists():
            raise NotFoundError(f"No graphmem store at '{self.folder}'.")
        if not db_file.exists():
            # Missing parents 0700 too (mkdir(parents=True) gave them the umask's 0755).
            make_folders(self.folder)
        self.engine = engine_mod.acquire(
            db_file,
            read_only=read_only,
            buffer_pool_bytes=(buffer_pool_mb or 0) << 20,
            max_db_bytes=(max_db_gb or 0) << 30,
        )
        self.read_only = read_only
        try:
            self.dim = _migrate(self.engine, read_only=read_only, model_name=model_name, dim=dim)
            self.model_name = model_name
            self.commit_id = self.meta().get(COMMIT_KEY, "")
        except BaseException:
            engine_mod.release(self.engine)
            raise
        if not read_only:
            self.engine.before_commit = self._stamp_commit

    def _stamp_commit(self) -> None:
        """Give the transaction being committed a new commit id (see ``graphmem.index.snapshot``)."""
        commit = uuid.uuid4().hex
        self._set_meta({COMMIT_KEY: commit})
        self.commit_id = commit

    # ------------------------------------------------------------------ schema and meta

    def meta(self) -> dict[str, str]:
        return read_meta(self.engine)

    def set_meta(self, values: dict[str, str]) -> None:
        """Set Meta keys (inside the caller's transaction, when there is one)."""
        self._set_meta(values)

    def _set_meta(self, values: dict[str, str]) -> None:
        write_meta(self.engine, values)

    @property
    def schema_version(self) -> int:
        """How many schema migrations the store has applied."""
        return sum(1 for k in self.meta() if k.startswith(MIGRATION_KEY))

    def close(self) -> bool:
        closed = engine_mod.release(self.engine)
        if closed:
            with _SANDBOXES_LOCK:
                sandbox = _SANDBOXES.pop(self.engine.db_file, None)
            if sandbox is not None:
                sandbox.close()
        return closed

    def sandbox(self) -> Sandbox:
        """The Cypher sandbox of this database (one per open database in the process)."""
        with _SANDBOXES_LOCK:
            sandbox = _SANDBOXES.get(self.engine.db_file)
            if sandbox is None or sandbox.engine is not self.engine:
                sandbox = _SANDBOXES[self.engine.db_file] = Sandbox(self.engine)
            return sandbox

    def transaction(self) -> AbstractContextManager[None]:
        return self.engine.transaction()

    # ------------------------------------------------------------------ memories: write

    def insert_memories(self, rows: Sequence[dict[str, Any]]) -> None:
        """Create Memory nodes (rows hold every column of ``MEMORY_COLUMNS``)."""
        if not rows:
            return
        if len(rows) >= _BULK_MIN_ROWS:
            # Not COPY: Kùzu checkpoints every transaction that ran a COPY, and a checkpoint
            # rewrites the node groups and relationship lists it touches, a cost that grew
            # with the store (1-2 s per batch at 80k memories). LOAD FROM … CREATE goes through
            # the WAL like any write and is as fast; the engine checkpoints when the WAL is big.
            sets = ", ".join(f"{c}: {c}" for c in MEMORY_COLUMNS)
            self.engine.execute(
                f"LOAD FROM $t CREATE (:Memory {{{sets}}})", {"t": self._memory_arrow(rows)}
            )
            return
        sets = ", ".join(f"{c}: ${c}" for c in MEMORY_COLUMNS)
        for row in rows:
            self.engine.execute(f"CREATE (:Memory {{{sets}}})", self._memory_params(row))

    def _memory_params(self, row: dict[str, Any]) -> dict[str, Any]:
        params = {c: row.get(c) for c in MEMORY_COLUMNS}
        params["metadata"] = json.dumps(row.get("metadata") or {}, sort_keys=True)
        emb = row.get("embedding")
        params["embedding"] = None if emb is None else np.asarray(emb, dtype=np.float32).tolist()
        for c in ("triggers", "file_paths", "reinforcements"):
            params[c] = list(params[c] or [])
        return params

    def memory_table(self, rows: Sequence[dict[str, Any]]) -> pa.Table:
        """Rows as ``insert_memories`` writes them, in the form ``all_memories_arrow`` reads."""
        return self._memory_arrow(rows)

    def _memory_arrow(self, rows: Sequence[dict[str, Any]]) -> pa.Table:
        columns: dict[str, pa.Array] = {}
        for c in MEMORY_COLUMNS:
            if c == "embedding":
                flat = np.asarray([r["embedding"] for r in rows], dtype=np.float32).reshape(-1)
                columns[c] = pa.FixedSizeListArray.from_arrays(pa.array(flat), self.dim)
            elif c == "metadata":
                columns[c] = pa.array(
                    [json.dumps(r.get("metadata") or {}, sort_keys=True) for r in rows]
                )
            elif c in ("triggers", "file_paths", "reinforcements"):
                columns[c] = pa.array([list(r.get(c) or []) for r in rows], ARROW_TYPES[c])
            else:
                columns[c] = pa.array([r.get(c) for r in rows], ARROW_TYPES.get(c, pa.string()))
        return pa.table(columns)

    def update_memory(self, memory_id: str, fields: dict[str, Any]) -> None:
        """Set columns of one memory (graphmem keeps no vector index, so the embedding too)."""
        if not fields:
            return
        params = {f"p_{k}": v for k, v in fields.items()}
        if "metadata" in fields:
            params["p_metadata"] = json.dumps(fields["metadata"] or {}, sort_keys=True)
        if "embedding" in fields:
            params["p_embedding"] = np.asarray(fields["embedding"], dtype=np.float32).tolist()
        sets = ", ".join(f"m.{k} = $p_{k}" for k in fields)
        params["id"] = memory_id
        self.engine.execute(f"MATCH (m:Memory {{id: $id}}) SET {sets}", params)

    def update_memories(self, updates: dict[str, dict[str, Any]]) -> None:
        """Set columns of many memories: one statement per set of columns (``update_memory``
        each below ``_BULK_MIN_ROWS``, and for an embedding)."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for memory_id, fields in updates.items():
            if fields:
                groups.setdefault(tuple(sorted(fields)), []).append(memory_id)
        for columns, ids in groups.items():
            if len(ids) < _BULK_MIN_ROWS or "embedding" in columns:
                for memory_id in ids:
                    self.update_memory(memory_id, updates[memory_id])
                continue
            # One statement per memory cost ~1-3 ms each (a third of a batch's writing).
            table: dict[str, pa.Array] = {"mid": pa.array(ids, pa.string())}
            for c in columns:
                values = [updates[i][c] for i in ids]
                if c == "metadata":
                    values = [json.dumps(v or {}, sort_keys=True) for v in values]
                table[f"p_{c}"] = pa.array(values, ARROW_TYPES.get(c, pa.string()))
            sets = ", ".join(f"m.{c} = p_{c}" for c in columns)
            self.engine.execute(
                f"LOAD FROM $t MATCH (m:Memory) WHERE m.id = mid SET {sets}", {"t": pa.table(table)}
            )

    def delete_memory(self, memory_id: str) -> list[str]:
        """Delete a memory and its edges (its tags' counts and cluster's size follow); returns
        the tags it had."""
        tags = [
            r["name"]
            for r in self.engine.rows(
                "MATCH (:Memory {id: $id})-[:HasTag]->(t:Tag) RETURN t.name AS name",
                {"id": memory_id},
            )
        ]
        clusters = [
            r["id"]
            for r in self.engine.rows(
                "MATCH (:Memory {id: $id})-[:InCluster]->(c:Cluster) RETURN c.id AS id",
                {"id": memory_id},
            )
        ]
        self.engine.execute("MATCH (m:Memory {id: $id}) DETACH DELETE m", {"id": memory_id})
        self.engine.execute(
            "MATCH (m:Memory) WHERE m.superseded_by = $id SET m.superseded_by = NULL",
            {"id": memory_id},
        )
        self.refresh_tag_counts(tags, drop_empty=True)
        self.refresh_cluster_sizes(clusters)
        return tags

    def existing_memory_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids are memories in the database."""
        rows = self.engine.rows(
            "UNWIND $ids AS mid MATCH (m:Memory {id: mid}) RETURN m.id AS id",
            {"ids": list(dict.fromkeys(ids))},
        )
        return {r["id"] for r in rows}

    # ------------------------------------------------------------------ tags and edges: write

    def ensure_tags(self, tags: Iterable[tuple[str, str]]) -> None:
        """Create the tags that do not exist yet (name, kind)."""
        rows = [{"name": n, "kind": k} for n, k in dict(tags).items()]
        if rows:
            self.engine.execute(
                "UNWIND $rows AS r MERGE (t:Tag {name: r.name}) "
                "ON CREATE SET t.kind = r.kind, t.count = 0, t.created_at = $ts",
                {"rows": rows, "ts": now()},
            )

    def set_tag_counts(self, counts: dict[str, int]) -> None:
        """Set tags' counts the caller knows (the write path counts them in the mirror)."""
        self._set_counts("Tag", "name", "count", counts)

    def set_cluster_sizes(self, sizes: dict[str, int]) -> None:
        self._set_counts("Cluster", "id", "size", sizes)

    def _set_counts(self, label: str, key: str, column: str, values: dict[str, int]) -> None:
        """Set an integer column of nodes found by key; a key not in the store is skipped.

        `UNWIND $rows … MATCH (t {name: r.name})` compares every row with every node of the
        table (no key lookup), so many rows are joined by key from a table (``LOAD FROM``),
        and a few are matched one by one in one statement.
        """
        if not values:
            return
        if len(values) >= _BULK_MIN_ROWS:
            table = pa.table(
                {
                    "k": pa.array(list(values), pa.string()),
                    "v": pa.array([int(v) for v in values.values()], pa.int64()),
                }
            )
            self.engine.execute(
                f"LOAD FROM $t MATCH (x:{label}) WHERE x.{key} = k SET x.{column} = v",
                {"t": table},
            )
            return
        items = list(values.items())
        for start in range(0, len(items), _ENDS_PER_STATEMENT):
            chunk = items[start : start + _ENDS_PER_STATEMENT]
            params: dict[str, Any] = {}
            for i, (k, v) in enumerate(chunk):
                params[f"k{i}"], params[f"v{i}"] = k, int(v)
            query = " ".join(f"MATCH (x{i}:{label} {{{key}: $k{i}}})" for i in range(len(chunk)))
            sets = ", ".join(f"x{i}.{column} = $v{i}" for i in range(len(chunk)))
            done = self.engine.rows(f"{query} SET {sets} RETURN count(*) AS n", params)
            if not done or int(done[0]["n"]) != 1:
                # One key is not in the store (its MATCH matched nothing, so nothing was set):
                # set the others one by one.
                for k, v in chunk:
                    self.engine.execute(
                        f"MATCH (x:{label} {{{key}: $k}}) SET x.{column} = $v",
                        {"k": k, "v": int(v)},
                    )

    def refresh_tag_counts(self, names: Iterable[str], *, drop_empty: bool = False) -> None:
        names = sorted(set(names))
        if not names:
            return
        # Counted with a plain MATCH from the memory's side and set from Python. Inside a write
        # transaction Kùzu 0.11.3 miscounts otherwise: after a reopen, with HasTag edges added,
        # `OPTIONAL MATCH … count(h)` (one too many for a tag, 0 for a new one); and with edges
        # deleted and created again, walking them from the tag's side gives the same memory for
        # every new edge (40 members counted as 11; tests/test_tags.py, re-tagging).
        if len(names) >= _BULK_MIN_ROWS:
            # Many names (re-tagging a store): `UNWIND … MATCH {name: name}` compares every
            # name with every tag, so count every tag in one scan and keep the ones asked for.
            query = (
                "MATCH (m:Memory)-[:HasTag]->(t:Tag) "
                "RETURN t.name AS name, count(DISTINCT m.id) AS n"
            )
            params: dict[str, Any] = {}
        else:
            query = (
                "UNWIND $names AS name MATCH (m:Memory)-[:HasTag]->(t:Tag {name: name}) "
                "RETURN t.name AS name, count(DISTINCT m.id) AS n"
            )
            params = {"names": names}
        counted = {r["name"]: r["n"] for r in self.engine.rows(query, params)}
        counts = {n: int(counted.get(n, 0)) for n in names}
        self._set_counts("Tag", "name", "count", counts)
        if drop_empty:
            self.drop_empty_tags(names)

    def drop_empty_tags(self, names: Iterable[str]) -> None:
        """Delete those of these tags whose count is 0."""
        names = sorted(set(names))
        if names:
            self.engine.execute(
                "LOAD FROM $t MATCH (t:Tag) WHERE t.name = name AND t.count = 0 DETACH DELETE t",
                {"t": pa.table({"name": pa.array(names, pa.string())})},
            )

    def insert_edges(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Create edges of one table. Rows hold ``src``, ``dst`` and the edge's columns.

        Raises:
            GraphMemError: an end of an edge is not in the store (nothing is written: the
                caller's transaction rolls back).
        """
        if not rows:
            return
        if table not in EDGE_TABLES:
            raise GraphMemError(f"Unknown edge table {table}")
        ts = now()
        to_label, to_key = _target(table)
        props = _EDGE_PROPS[table]
        if len(rows) >= _BULK_MIN_ROWS:
            self._load_edges(table, rows, ts)
            return
        # A few edges: one statement each. (One UNWIND statement for all of them was slower and
        # grew with the store: Kùzu joins the two node lookups instead of using the key index.)
        sets = ", ".join(f"{p}: $p_{p}" for p in props)
        query = (
            f"MATCH (a:Memory {{id: $src}}), (b:{to_label} {{{to_key}: $dst}}) "
            f"CREATE (a)-[:{table} {{{sets}}}]->(b)"
        )
        for r in rows:
            params: dict[str, Any] = {"src": r["src"], "dst": r["dst"]}
            for p in props:
                params[f"p_{p}"] = _edge_value(r, p, ts)
            self.engine.execute(query, params)

    def insert_edge_sets(self, edges: dict[str, Sequence[dict[str, Any]]]) -> None:
        """Create the edges of several tables: many of a table with ``LOAD FROM``, and the few
        of every other table together, in as few statements as possible.

        A single remember adds about seven edges over four tables; one statement each cost more
        than the rest of its writing. Here each distinct end is matched once by key and every
        edge created in the same statement.

        Raises:
            GraphMemError: an end of an edge is not in the store (see ``insert_edges``).
        """
        ts = now()
        few: list[tuple[str, dict[str, Any]]] = []
        for table, rows in edges.items():
            if table not in EDGE_TABLES:
                raise GraphMemError(f"Unknown edge table {table}")
            if len(rows) >= _BULK_MIN_ROWS:
                self._load_edges(table, rows, ts)
            else:
                few.extend((table, r) for r in rows)
        chunk: list[tuple[str, dict[str, Any]]] = []
        ends: set[tuple[str, str]] = set()
        for table, row in few:
            new = {("Memory", row["src"]), (_target(table)[0], row["dst"])} - ends
            if chunk and len(ends) + len(new) > _ENDS_PER_STATEMENT:
                self._create_edges(chunk, ts)
                chunk, ends = [], set()
                new = {("Memory", row["src"]), (_target(table)[0], row["dst"])}
            chunk.append((table, row))
            ends |= new
        if chunk:
            self._create_edges(chunk, ts)

    def _create_edges(self, edges: Sequence[tuple[str, dict[str, Any]]], ts: Any) -> None:
        """A few edges (any tables) in one statement: each end matched once by its key."""
        names: dict[tuple[str, str], str] = {}
        matches: list[str] = []
        creates: list[str] = []
        params: dict[str, Any] = {}

        def end(label: str, key: str, value: str) -> str:
            if (label, value) not in names:
                name = f"n{len(names)}"
                names[(label, value)] = name
                matches.append(f"MATCH ({name}:{label} {{{key}: ${name}}})")
                params[name] = value
            return names[(label, value)]

        for i, (table, row) in enumerate(edges):
            to_label, to_key = _target(table)
            a = end("Memory", "id", row["src"])
            b = end(to_label, to_key, row["dst"])
            props = []
            for p in _EDGE_PROPS[table]:
                params[f"e{i}_{p}"] = _edge_value(row, p, ts)
                props.append(f"{p}: $e{i}_{p}")
            creates.append(f"({a})-[:{table} {{{', '.join(props)}}}]->({b})")
        made = self.engine.rows(
            " ".join(matches) + " CREATE " + ", ".join(creates) + " RETURN count(*) AS n", params
        )
        if not made or int(made[0]["n"]) != 1:
            raise GraphMemError(f"An edge of {len(edges)} names a node that is not in the store")

    def _load_edges(self, table: str, rows: Sequence[dict[str, Any]], ts: Any) -> None:
        """Many edges in one statement: ``LOAD FROM`` an Arrow table, both ends found by key.

        Written as two ``WHERE key = column`` matches, which Kùzu runs as hash joins (one scan
        of each node table's key). Neither COPY (it forces a checkpoint, see insert_memories)
        nor `UNWIND … MATCH (a {id: r.src}), (b {id: r.dst})` (a cross product of the two node
        tables: 17 s for 512 edges at 80k memories) is used.
        """
        to_label, to_key = _target(table)
        props = _EDGE_PROPS[table]
        cols: dict[str, pa.Array] = {
            "src": pa.array([r["src"] for r in rows], pa.string()),
            "dst": pa.array([r["dst"] for r in rows], pa.string()),
        }
        for p in props:
            kind = ARROW_TYPES.get(p, _PROP_TYPES.get(p, pa.string()))
            cols[f"p_{p}"] = pa.array([_edge_value(r, p, ts) for r in rows], kind)
        assign = ", ".join(f"{p}: p_{p}" for p in props)
        made = self.engine.rows(
            f"LOAD FROM $t MATCH (a:Memory) WHERE a.id = src "
            f"MATCH (b:{to_label}) WHERE b.{to_key} = dst "
            f"CREATE (a)-[:{table} {{{assign}}}]->(b) RETURN count(*) AS n",
            {"t": pa.table(cols)},
        )
        # A join drops a row whose end is missing where COPY failed: fail the same way, so the
        # transaction rolls back and the mirror never holds an edge the database lacks.
        if int(made[0]["n"]) != len(rows):
            raise GraphMemError(
                f"{len(rows) - int(made[0]['n'])} of {len(rows)} {table} edges name a node "
                "that is not in the store"
            )

    def delete_edge_sets(self, removed: Sequence[tuple[str, str, str, str | None]]) -> int:
        """Delete edges given as (table, source, target, edge source or None); returns how
        many. Many of one table go in one statement joined by key (re-tagging a store removes
        every memory's tags: one statement per edge took minutes and gigabytes at 85k)."""
        removed = list(dict.fromkeys(removed))
        # An edge named with its source and also with any source is deleted once: two rows
        # matching one edge in the joined statement would count it twice.
        every = {(t, a, b) for t, a, b, s in removed if s is None}
        by_table: dict[str, list[tuple[str, str, str | None]]] = {}
        for table, src, dst, edge_source in removed:
            if edge_source is None or (table, src, dst) not in every:
                by_table.setdefault(table, []).append((src, dst, edge_source))
        done = 0
        for table, rows in by_table.items():
            if table not in EDGE_TABLES:
                raise GraphMemError(f"Unknown edge table {table}")
            if len(rows) < _BULK_MIN_ROWS:
                for src, dst, edge_source in rows:
                    done += self.delete_edges(table, src, dst, edge_source=edge_source)
                continue
            to_label, to_key = _target(table)
            # Supersedes, Contradicts and DerivedFrom have no source property to filter on.
            by_source = " AND (s IS NULL OR r.source = s)" if "source" in _EDGE_PROPS[table] else ""
            if not by_source and any(r[2] is not None for r in rows):
                raise GraphMemError(f"{table} edges have no source to delete by")
            found = self.engine.rows(
                f"LOAD FROM $t MATCH (a:Memory)-[r:{table}]->(b:{to_label}) "
                f"WHERE a.id = src AND b.{to_key} = dst{by_source} "
                "DELETE r RETURN count(*) AS n",
                {
                    "t": pa.table(
                        {
                            "src": pa.array([r[0] for r in rows], pa.string()),
                            "dst": pa.array([r[1] for r in rows], pa.string()),
                            "s": pa.array([r[2] for r in rows], pa.string()),
                        }
                    )
                },
            )
            done += int(found[0]["n"]) if found else 0
        return done

    def delete_edges(
        self, table: str, source: str, target: str, *, edge_source: str | None = None
    ) -> int:
        """Delete the edges of ``table`` from ``source`` to ``target`` (only those whose
        ``source`` property is ``edge_source``, when given); returns how many."""
        to_label, to_key = _target(table)
        where = " WHERE r.source = $s" if edge_source is not None else ""
        params = {"a": source, "b": target}
        if edge_source is not None:
            params["s"] = edge_source
        rows = self.engine.rows(
            f"MATCH (a:Memory {{id: $a}})-[r:{table}]->(b:{to_label} {{{to_key}: $b}}){where} "
            "DELETE r RETURN count(*) AS n",
            params,
        )
        return int(rows[0]["n"]) if rows else 0

    def bump_access(self, counts: dict[str, int], ts: Any) -> None:
        """Add to access counts and set last_accessed, for many memories at once."""
        if counts:
            self.engine.execute(
                "UNWIND $rows AS r MATCH (m:Memory {id: r.id}) "
                "SET m.access_count = m.access_count + r.n, m.last_accessed = $ts",
                {"rows": [{"id": k, "n": v} for k, v in counts.items()], "ts": ts},
            )

    def adjust_confidence(self, deltas: dict[str, float]) -> None:
        """Add to confidences, kept within 0..1."""
        if deltas:
            self.engine.execute(
                "UNWIND $rows AS r MATCH (m:Memory {id: r.id}) "
                "SET m.confidence = CASE WHEN m.confidence + r.d > 1.0 THEN 1.0 "
                "WHEN m.confidence + r.d < 0.0 THEN 0.0 ELSE m.confidence + r.d END",
                {"rows": [{"id": k, "d": v} for k, v in deltas.items()]},
            )

    def strengthen_links(
        self, pairs: dict[tuple[str, str], int], *, rate: float, source: str
    ) -> list[dict[str, Any]]:
        """w ← w + rate·(1 − w), n times, on the RelatesTo edge of each pair (created when
        absent). Returns the edges as they now are (src, dst, weight, via)."""
        if not pairs:
            return []
        ts = now()
        out: list[dict[str, Any]] = []
        todo = dict(pairs)
        # SET through an undirected pattern trips an assertion in Kùzu 0.11.3 when the edge is
        # matched backwards (csr_node_group.cpp:411), so each direction is matched explicitly.
        for flip in (False, True):
            rows = [
                {"x": b if flip else a, "y": a if flip else b, "keep": (1.0 - rate) ** n, "n": n}
                for (a, b), n in todo.items()
            ]
            if not rows:
                break
            done = self.engine.rows(
                "UNWIND $rows AS r MATCH (x:Memory {id: r.x})-[e:RelatesTo]->(y:Memory {id: r.y}) "
                "SET e.weight = 1.0 - (1.0 - e.weight) * r.keep, e.co_access = e.co_access + r.n, "
                "e.updated_at = $ts RETURN x.id AS src, y.id AS dst, e.weight AS weight, "
                "e.source AS via",
                {"rows": rows, "ts": ts},
            )
            out.extend(done)
            for d in done:
                key = (d["dst"], d["src"]) if flip else (d["src"], d["dst"])
                todo.pop(key, None)
        new = [
            {
                "src": a,
                "dst": b,
                "weight": 1.0 - (1.0 - rate) ** n,
                "co_access": n,
                "source": source,
            }
            for (a, b), n in todo.items()
        ]
        self.insert_edges("RelatesTo", new)
        out.extend(
            {"src": e["src"], "dst": e["dst"], "weight": e["weight"], "via": source} for e in new
        )
        return out

    # ------------------------------------------------------------------ memories: read

    def get_memories(
        self, ids: Sequence[str], *, with_embedding: bool = False, with_tags: bool = True
    ) -> dict[str, dict[str, Any]]:
        """Memory rows (and their tag names) by id; unknown ids are absent from the result."""
        if not ids:
            return {}
        cols = [c for c in MEMORY_COLUMNS if with_embedding or c != "embedding"]
        ret = ", ".join(f"m.{c} AS {c}" for c in cols)
        if with_tags:
            query = (
                f"UNWIND $ids AS mid MATCH (m:Memory {{id: mid}}) "
                f"OPTIONAL MATCH (m)-[:HasTag]->(t:Tag) RETURN {ret}, collect(t.name) AS tags"
            )
        else:
            query = f"UNWIND $ids AS mid MATCH (m:Memory {{id: mid}}) RETURN {ret}"
        rows = self.engine.rows(query, {"ids": list(ids)})
        return {r["id"]: r for r in rows}

    def list_memory_ids(
        self,
        *,
        tag: str | None = None,
        kinds: Sequence[str] | None = None,
        scope: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
        include_inactive: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[str]:
        where: list[str] = []
        params: dict[str, Any] = {}
        match = "MATCH (m:Memory)"
        if tag is not None:
            match = "MATCH (m:Memory)-[:HasTag]->(t:Tag {name: $tag})"
            params["tag"] = tag
        if not include_inactive:
            where.append("m.active = true")
        for field, value in (("scope", scope), ("project", project), ("session_id", session_id)):
            if value is not None:
                where.append(f"m.{field} = ${field}")
                params[field] = value
        if kinds:
            where.append("m.kind IN $kinds")
            params["kinds"] = list(kinds)
        query = match + (" WHERE " + " AND ".join(where) if where else "")
        query += " RETURN m.id AS id ORDER BY m.created_at DESC, m.id"
        if limit is None or offset + limit > _TOP_K_MAX:
            # Kùzu's ORDER BY … SKIP/LIMIT sizes a top-k buffer by skip + limit and crashes the
            # process for large values (10⁵ and up), so deep pages are cut in Python.
            ids = [r["id"] for r in self.engine.rows(query, params)]
            return ids[offset:] if limit is None else ids[offset : offset + limit]
        query += " SKIP $offset LIMIT $limit"
        params.update(offset=offset, limit=limit)
        return [r["id"] for r in self.engine.rows(query, params)]

    def tags(self) -> list[dict[str, Any]]:
        return self.engine.rows(
            "MATCH (t:Tag) RETURN t.name AS name, t.kind AS kind, t.count AS count "
            "ORDER BY t.count DESC, t.name"
        )

    def edges_of(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Every edge touching the given memories: type, src, dst and its columns (a column an
        edge type lacks is None)."""
        props = sorted({p for table in EDGE_TABLES for p in _EDGE_PROPS[table]})
        ret = ", ".join(f"r.{p} AS {p}" for p in props)
        # One query over every edge table at once: six per-table queries cost 6× as much.
        rows = self.engine.rows(
            "UNWIND $ids AS mid MATCH (a:Memory {id: mid})-[r]->(b) "
            "RETURN label(r) AS type, a.id AS src, "
            f"CASE WHEN label(r) = 'HasTag' THEN b.name ELSE b.id END AS dst, {ret}",
            {"ids": list(ids)},
        )
        rows += self.engine.rows(
            "UNWIND $ids AS mid MATCH (a:Memory)-[r]->(b:Memory {id: mid}) WHERE NOT a.id IN $ids "
            f"RETURN label(r) AS type, a.id AS src, b.id AS dst, {ret}",
            {"ids": list(ids)},
        )
        return rows

    def supersede_chain(self, memory_id: str) -> list[str]:
        """Ids along the Supersedes chain through ``memory_id``, oldest first."""
        older = self.engine.rows(
            "MATCH (m:Memory {id: $id})-[:Supersedes*1..30]->(o:Memory) RETURN DISTINCT o.id AS id",
            {"id": memory_id},
        )
        newer = self.engine.rows(
            "MATCH (n:Memory)-[:Supersedes*1..30]->(m:Memory {id: $id}) RETURN DISTINCT n.id AS id",
            {"id": memory_id},
        )
        return [r["id"] for r in older] + [memory_id] + [r["id"] for r in newer]

    # ------------------------------------------------------------------ bulk reads for the mirror

    def all_memories_arrow(self, ids: Sequence[str] | None = None) -> pa.Table:
        """Every column of every memory (or of the given ids), for the in-process mirror."""
        ret = ", ".join(f"m.{c} AS {c}" for c in MEMORY_COLUMNS)
        if ids is None:
            return self.engine.arrow(f"MATCH (m:Memory) RETURN {ret}")
        return self.engine.arrow(
            f"UNWIND $ids AS mid MATCH (m:Memory {{id: mid}}) RETURN {ret}", {"ids": list(ids)}
        )

    def all_edges(self) -> list[dict[str, Any]]:
        """Every edge: type, source, target and weight (the mirror's adjacency)."""
        out: list[dict[str, Any]] = []
        for table in EDGE_TABLES:
            to_label, to_key = _target(table)
            column = BY_TABLE[table].weight_column
            weight = f"r.{column}" if column else "1.0"
            extra = ", r.source AS via" if table in ("RelatesTo", "HasTag") else ", '' AS via"
            tbl = self.engine.arrow(
                f"MATCH (a:Memory)-[r:{table}]->(b:{to_label}) "
                f"RETURN a.id AS src, b.{to_key} AS dst, {weight} AS weight{extra}"
            )
            for s, t, w, v in zip(
                tbl.column("src").to_pylist(),
                tbl.column("dst").to_pylist(),
                tbl.column("weight").to_pylist(),
                tbl.column("via").to_pylist(),
                strict=True,
            ):
                out.append({"type": table, "src": s, "dst": t, "weight": w, "via": v})
        return out

    def tag_kinds(self) -> dict[str, str]:
        return {
            r["name"]: r["kind"]
            for r in self.engine.rows("MATCH (t:Tag) RETURN t.name AS name, t.kind AS kind")
        }

    # ------------------------------------------------------------------ clusters

    def replace_clusters(
        self, clusters: Sequence[dict[str, Any]], members: Sequence[dict[str, Any]]
    ) -> None:
        """Swap in a new clustering: clusters keep their node when their id is reused."""
        ts = now()
        self.engine.execute("MATCH ()-[r:InCluster]->() DELETE r")
        keep = [c["id"] for c in clusters]
        self.engine.execute("MATCH (c:Cluster) WHERE NOT c.id IN $keep DELETE c", {"keep": keep})
        for c in clusters:
            self.engine.execute(
                "MERGE (c:Cluster {id: $id}) ON CREATE SET c.created_at = $ts "
                "SET c.label = $label, c.centroid = $centroid, c.size = $size",
                {"id": c["id"], "ts": ts, "label": c["label"], "centroid": c["centroid"],
                 "size": c["size"]},
            )  # fmt: skip
        self.insert_edges("InCluster", members)

    def refresh_cluster_sizes(self, ids: Iterable[str]) -> None:
        ids = sorted(set(ids))
        if not ids:
            return
        # Plain MATCH, set from Python: see refresh_tag_counts for the OPTIONAL MATCH miscount.
        counted = {
            r["id"]: r["n"]
            for r in self.engine.rows(
                "UNWIND $ids AS cid MATCH (m:Memory)-[:InCluster]->(c:Cluster {id: cid}) "
                "RETURN c.id AS id, count(DISTINCT m.id) AS n",
                {"ids": ids},
            )
        }
        self.engine.execute(
            "UNWIND $rows AS r MATCH (c:Cluster {id: r.id}) SET c.size = r.n",
            {"rows": [{"id": i, "n": int(counted.get(i, 0))} for i in ids]},
        )

    def cluster_centroids(self) -> tuple[list[str], np.ndarray]:
        tbl = self.engine.arrow("MATCH (c:Cluster) RETURN c.id AS id, c.centroid AS centroid")
        ids = tbl.column("id").to_pylist()
        if not ids:
            return [], np.zeros((0, self.dim or 0), dtype=np.float32)
        flat = tbl.column("centroid").combine_chunks().values.to_numpy(zero_copy_only=False)
        return ids, np.asarray(flat, dtype=np.float32).reshape(len(ids), -1)

    def clusters(self) -> list[dict[str, Any]]:
        return self.engine.rows(
            "MATCH (c:Cluster) RETURN c.id AS id, c.label AS label, c.size AS size, "
            "c.created_at AS created_at ORDER BY c.size DESC, c.id"
        )

    # ------------------------------------------------------------------ stats

    def counts(self) -> dict[str, Any]:
        total = self.engine.rows("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"]
        kinds = {
            r["kind"]: r["n"]
            for r in self.engine.rows(
                "MATCH (m:Memory) WHERE m.active RETURN m.kind AS kind, count(*) AS n"
            )
        }
        tags = self.engine.rows("MATCH (t:Tag) RETURN count(t) AS n")[0]["n"]
        clusters = self.engine.rows("MATCH (c:Cluster) RETURN count(c) AS n")[0]["n"]
        edges = {
            t: self.engine.rows(f"MATCH ()-[r:{t}]->() RETURN count(r) AS n")[0]["n"]
            for t in EDGE_TABLES
        }
        return {
            "memories": total,
            "active": sum(kinds.values()),
            "kinds": kinds,
            "tags": tags,
            "clusters": clusters,
            "edges": edges,
        }

    # ------------------------------------------------------------------ gaps

    def add_gap(self, row: dict[str, Any]) -> None:
        self.engine.execute(
            "CREATE (:Gap {id: $id, context: $context, best_score: $best_score, "
            "session_id: $session_id, created_at: $created_at})",
            row,
        )

    def gaps(self, limit: int) -> list[dict[str, Any]]:
        return self.engine.rows(
            "MATCH (g:Gap) RETURN g.id AS id, g.context AS context, g.best_score AS best_score, "
            "g.session_id AS session_id, g.created_at AS created_at "
            "ORDER BY g.created_at DESC LIMIT $n",
            {"n": limit},
        )

    # ------------------------------------------------------------------ user Cypher

    def cypher(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        write: bool = False,
        files: Path | None = None,
        timeout_s: float = 30.0,
        limits: Limits | None = None,
    ) -> list[dict[str, Any]] | None:
        """A caller's free-form statement, checked and run in the sandbox
        (graphmem.storage.sandbox): a read's rows, or None for a write it checked on a scratch
        copy in a worker, which ``cypher_apply`` then runs here (it needs the real database).
        The check may take the statement's whole time: the owner makes it without holding
        what recall needs."""
        missing = engine_mod.referenced_params(query) - (params or {}).keys()
        if missing:
            raise CypherError(f"Missing query parameter(s): {', '.join(sorted(missing))}", query)
        return self.sandbox().run(
            query, params or {}, files=files, timeout_s=timeout_s, write=write, limits=limits
        )

    def cypher_apply(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = 30.0,
        limits: Limits | None = None,
    ) -> list[dict[str, Any]]:
        """Run a write ``cypher`` admitted, in a write transaction here, within the same
        result limits: the store may have grown since the check (it runs without the lock),
        and a result past them rolls the write back."""
        limits = limits or Limits()
        with self.engine.transaction():
            rows = self.engine.statement_rows(query, params, timeout_s=timeout_s)
            if len(rows) > limits.max_rows:
                raise CypherError(
                    f"The result has more than {limits.max_rows} rows (Config.cypher_max_rows); "
                    "the write was rolled back",
                    query,
                    params,
                )
            size = len(json.dumps(rows, default=str))
            if size > limits.max_bytes:
                raise CypherError(
                    f"The result is larger than {limits.max_bytes} bytes "
                    "(Config.cypher_max_bytes); the write was rolled back",
                    query,
                    params,
                )
            return rows


def _edge_value(row: dict[str, Any], prop: str, ts: Any) -> Any:
    """An edge property as stored: timestamps default to now, others to their default."""
    if prop in _TS_PROPS:
        return row.get(prop) or ts
    return row.get(prop, _EDGE_DEFAULTS.get(prop))


def _target(table: str) -> tuple[str, str]:
    """The node table an edge table points to, and that table's key."""
    edge = BY_TABLE[table]
    return edge.target, edge.target_key


_EDGE_PROPS: dict[str, tuple[str, ...]] = {e.table: e.columns for e in EDGE_TYPES}
_TS_PROPS = frozenset({"created_at", "updated_at"})
_EDGE_DEFAULTS: dict[str, Any] = {
    "co_access": 0,
    "weight": 0.5,
    "probability": 1.0,
    "source": "user",
}
_PROP_TYPES: dict[str, pa.DataType] = {
    "weight": pa.float64(),
    "probability": pa.float64(),
    "co_access": pa.int64(),
}

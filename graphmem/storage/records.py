"""Each memory's stored row, kept by the mirror so results need no database round trip.

A dict per memory costs about 1.7 KB (24 values, most of them Python objects): 170 MB at 100k
memories, and most of the snapshot's load time. Rows loaded in bulk (a build from the database,
a snapshot) stay in one Arrow table, a few bytes per value; only rows written since are dicts.
A row is turned into a dict when asked for (a caller builds a ``Memory`` from it).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pyarrow as pa

RECORD_COLUMNS = (
    "id", "content", "kind", "scope", "project", "session_id", "source", "created_at",
    "updated_at", "last_accessed", "valid_from", "valid_until", "access_count", "strength",
    "confidence", "trust", "active", "pinned", "superseded_by", "triggers", "file_paths",
    "metadata", "reinforcements", "content_hash",
)  # fmt: skip
# Every Memory column: the records the mirror keeps, and the embedding.
MEMORY_COLUMNS: tuple[str, ...] = (*RECORD_COLUMNS, "embedding")
_TS = pa.timestamp("us")
_STRS = pa.list_(pa.string())
# The Arrow type of each column that is not a string (the store writes rows with them too).
ARROW_TYPES: dict[str, pa.DataType] = {
    "created_at": _TS, "updated_at": _TS, "last_accessed": _TS, "valid_from": _TS,
    "valid_until": _TS, "access_count": pa.int64(), "strength": pa.int64(),
    "confidence": pa.float64(), "trust": pa.float64(), "active": pa.bool_(),
    "pinned": pa.bool_(), "triggers": _STRS, "file_paths": _STRS, "reinforcements": _STRS,
}  # fmt: skip
SCHEMA = pa.schema([(c, ARROW_TYPES.get(c, pa.string())) for c in RECORD_COLUMNS])


def conform(table: pa.Table) -> pa.Table:
    """The record columns of ``table`` in the one schema rows are kept in."""
    table = table.select(list(RECORD_COLUMNS))
    if table.schema.equals(SCHEMA):
        return table  # (a cast would import pyarrow.compute: 0.2 s)
    try:
        return table.cast(SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return pa.Table.from_pylist(table.to_pylist(), schema=SCHEMA)


class _Strings:
    """Zero-copy access to one Arrow string column's values by row."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        arr = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if isinstance(arr, pa.ChunkedArray):  # an empty table
            arr = pa.array([], type=pa.string())
        wide = pa.types.is_large_string(arr.type)
        _, offsets, data = arr.buffers()
        dtype = np.int64 if wide else np.int32
        self.offsets = np.frombuffer(offsets, dtype=dtype, count=len(arr) + 1,
                                     offset=arr.offset * np.dtype(dtype).itemsize)  # fmt: skip
        self.data = data
        self.nulls = np.asarray(arr.is_null()) if arr.null_count else None

    def get(self, row: int) -> str | None:
        if self.nulls is not None and self.nulls[row]:
            return None
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        return self.data[start:end].to_pybytes().decode()


class Records:
    """Rows by slot: an Arrow table for rows loaded in bulk, dicts for rows written since."""

    def __init__(self) -> None:
        self.base = SCHEMA.empty_table()
        self.row = np.zeros(0, dtype=np.int64)  # slot -> row of ``base``, or -1
        self.written: dict[int, dict[str, Any]] = {}
        self._content = _Strings(self.base.column("content"))

    def set_base(self, table: pa.Table, slots: np.ndarray, capacity: int) -> None:
        """Rows of ``table`` (conformed) belong to ``slots``; every other row is dropped."""
        self.base = table
        self.row = np.full(capacity, -1, dtype=np.int64)
        self.row[slots] = np.arange(len(slots))
        self.written = {}
        self._content = _Strings(table.column("content"))

    def _row(self, slot: int) -> int:
        return int(self.row[slot]) if slot < len(self.row) else -1

    def __contains__(self, slot: object) -> bool:
        return isinstance(slot, int | np.integer) and (
            slot in self.written or self._row(int(slot)) >= 0
        )

    def __getitem__(self, slot: int) -> dict[str, Any]:
        found = self.written.get(slot)
        if found is not None:
            return found
        row = self._row(slot)
        if row < 0:
            raise KeyError(slot)
        return self.base.slice(row, 1).to_pylist()[0]

    def __setitem__(self, slot: int, record: dict[str, Any]) -> None:
        self.written[slot] = record

    def slots(self) -> list[int]:
        based = set(np.flatnonzero(self.row >= 0).tolist())
        return sorted(based | self.written.keys())

    def pop(self, slot: int, default: Any = None) -> Any:
        if slot not in self:
            return default
        value = self[slot]
        self.written.pop(slot, None)
        if self._row(slot) >= 0:
            self.row[slot] = -1
        return value

    def grow(self, capacity: int) -> None:
        if capacity > len(self.row):
            grown = np.full(capacity, -1, dtype=np.int64)
            grown[: len(self.row)] = self.row
            self.row = grown

    def content(self, slot: int) -> str | None:
        """The row's content (None when the slot holds no row)."""
        found = self.written.get(slot)
        if found is not None:
            return found["content"] or ""
        row = self._row(slot)
        if row < 0:
            return None
        return self._content.get(row) or ""

    def value(self, slot: int, column: str) -> Any:
        """One column of a row, without building the whole dict (None for no row)."""
        found = self.written.get(slot)
        if found is not None:
            return found[column]
        row = self._row(slot)
        if row < 0:
            return None
        if column == "content":
            return self._content.get(row)
        return self.base.column(column)[row].as_py()

    def compacted(self) -> tuple[pa.Table, np.ndarray]:
        """Every row in one table, and the slot of each (written rows folded in)."""
        based = np.flatnonzero(self.row >= 0)
        based = np.array([s for s in based.tolist() if s not in self.written], dtype=np.int64)
        parts = [self.base.take(pa.array(self.row[based]))] if len(based) else []
        written = sorted(self.written)
        if written:
            parts.append(pa.Table.from_pylist([self.written[s] for s in written], schema=SCHEMA))
        table = pa.concat_tables(parts) if parts else SCHEMA.empty_table()
        return table, np.concatenate((based, np.asarray(written, dtype=np.int64)))


class ContentView:
    """``mirror.content``: each live memory's content by slot, read from its record."""

    def __init__(self, records: Records) -> None:
        self._records = records

    def get(self, slot: int, default: Any = None) -> Any:
        found = self._records.content(slot)
        return default if found is None else found

    def __getitem__(self, slot: int) -> str:
        found = self._records.content(slot)
        if found is None:
            raise KeyError(slot)
        return found

    def __contains__(self, slot: object) -> bool:
        return slot in self._records


def hash_key(content_hash: str) -> int:
    """A stable 64-bit key of a content hash (for the sorted array of keys)."""
    return int.from_bytes(hashlib.blake2b(content_hash.encode(), digest_size=8).digest(), "little")


class HashIndex:
    """``mirror.by_hash``: the live memories holding each content hash.

    A set of ids per hash cost 400 bytes a memory; here the rows loaded in bulk are a sorted
    array of 64-bit keys of their hashes, and rows written since a dict. Candidates are checked
    against each row's current hash and liveness, so a row that changed or died needs no
    update here.
    """

    def __init__(self, mirror: Any) -> None:
        self._mirror = mirror
        self.keys = np.zeros(0, dtype=np.uint64)
        self.slots = np.zeros(0, dtype=np.int64)
        self.recent: dict[str, set[int]] = {}

    def build(self, hashes: list[str | None], slots: np.ndarray) -> None:
        keys = np.fromiter((hash_key(h or "") for h in hashes), dtype=np.uint64, count=len(hashes))
        order = np.argsort(keys, kind="stable")
        self.keys, self.slots = keys[order], np.asarray(slots, dtype=np.int64)[order]
        self.recent = {}

    def add(self, content_hash: str, slot: int) -> None:
        self.recent.setdefault(content_hash, set()).add(slot)

    def _slots(self, content_hash: str) -> set[int]:
        key = np.uint64(hash_key(content_hash))
        lo = int(np.searchsorted(self.keys, key, side="left"))
        hi = int(np.searchsorted(self.keys, key, side="right"))
        found = set(self.slots[lo:hi].tolist()) | self.recent.get(content_hash, set())
        mirror = self._mirror
        return {s for s in found if mirror.alive[s] and mirror.hash_of(s) == content_hash}

    def get(self, content_hash: str, default: Any = None) -> set[str] | Any:
        """Ids of the live memories with this content hash (``default`` when none)."""
        ids = {self._mirror.ids[s] for s in sorted(self._slots(content_hash))}
        return ids or default

    def items(self) -> list[tuple[str, set[str]]]:
        mirror = self._mirror
        out: dict[str, set[str]] = {}
        for slot in np.flatnonzero(mirror.alive[: mirror.size]).tolist():
            h = mirror.hash_of(slot)
            if h is not None:
                out.setdefault(h, set()).add(mirror.ids[slot])
        return list(out.items())

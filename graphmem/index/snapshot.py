"""A saved copy of the in-process mirror next to the database, so a big store opens at once.

Building the mirror from the database costs about 0.2 ms per memory (20 s at 100k). The owner
saves the mirror when it closes; the next open loads it instead, but only when it matches the
database exactly: every write transaction stores a fresh random commit id in ``Meta``
(``store.py``), and the snapshot records the commit id it was taken at. Any commit since (by
any process, or a crash after one) changes the id, and the snapshot is ignored and the mirror
rebuilt, so a stale snapshot can never answer.

Layout: one JSON header line (format, commit id, dimension, and where each section
lies), then the sections, each 64-byte aligned: numpy arrays as raw bytes (vectors, lifecycle
columns, ids, the adjacency's and the BM25 index's arrays; strings as fixed-width unicode
arrays or as codes into a small vocabulary), the rows as one Arrow IPC stream, the approximate
index as faiss's own bytes (read on first use, not at open), and a small pickle for what is
left (the entity index and a few small dicts). Loading is reading: no per-edge, per-posting or
per-row Python objects are created. Format 1 pickled the mirror with its networkx graph and a
dict per row: at 100k memories it took 5 s and 1.2 GB to open; this one 0.5 s and 400 MB.
A file from another format is ignored (the header names it) and the mirror rebuilt from the
database.

Integrity: the file is written to a temporary name, synced and renamed, so a torn file is
never seen; its length must match the header, and every section but the vectors and the
approximate index carries a CRC32 (those two are most of the bytes, and damage there cannot
crash the reader; a stale or foreign file is caught by the commit id). The pickled section is
trusted as far as the database beside it: the file is only read when the current user owns it,
it is not a symlink and no one else may write it (0600 in the 0700 store folder).
"""

from __future__ import annotations

import io
import json
import mmap
import os
import pickle
import stat
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..storage.records import conform
from ..text.entities import EntityIndex
from ..text.lexical import LexicalIndex
from . import ann as ann_mod
from .adjacency import Adjacency

if TYPE_CHECKING:
    from .mirror import Mirror

SNAPSHOT_FILE = "mirror.snapshot"
# The file's layout, versioned on purpose: bump FORMAT whenever a section, its dtype, the
# pickled state or what the saved indexes are built from (tokens, entities) changes.
# tests/test_snapshot_format.py pins a fingerprint of all that per FORMAT and fails when it
# changes without a bump. Format 2 was valid for a hash of six source files, so moving a file
# or editing a comment threw away every saved snapshot; 3 moved the modules into packages.
FORMAT = 3
_ALIGN = 64
# Per-slot numpy columns, saved as they are.
_COLUMNS = ("alive", "active", "pinned", "superseded", "created", "valid_from", "valid_until",
            "last_accessed", "access_count", "confidence", "trust")  # fmt: skip
# Per-slot string columns (object arrays), saved as codes into a vocabulary.
_CODED = ("kind", "scope", "project", "session", "source")
# Python state small enough to pickle (or not yet worth a layout of its own).
_PICKLED = ("_session_last", "superseded_by", "triggers", "generation")
# Sections not checksummed: most of the bytes, and harmless to the reader if damaged.
_UNCHECKED = frozenset({"vectors"})
# Sections read on first use, not at open.
_DEFERRED = frozenset({"ann"})
# Sections mapped, not read: the vectors are most of the file (1.5 GB at a million memories)
# and a big store reads few of them (search goes through the approximate index, recall
# compares the context with the memories near it), so open no longer reads them all and the
# pages not touched take no memory. Mapped copy-on-write: the mirror changes them in place
# without writing to the file, and a snapshot saved later (a new file renamed over this one)
# leaves the mapping intact.
_MAPPED = frozenset({"vectors"})


def layout(mirror: Mirror) -> list[tuple[str, str]]:
    """What a snapshot of ``mirror`` holds, without the values: each section's name and type
    (dtype and rank for arrays), and the types in the pickled state. The format test pins it."""
    out: list[tuple[str, str]] = []
    for name, value in _sections(mirror):
        if isinstance(value, np.ndarray):
            out.append(
                (
                    name,
                    f"{value.dtype.kind}{value.dtype.itemsize if value.dtype.kind != 'U' else ''}/{value.ndim}",
                )
            )
        elif name == "state":
            state = pickle.loads(value)
            out.extend((f"state.{k}", _type_name(v)) for k, v in sorted(state.items()))
        else:
            out.append((name, "bytes"))
    return out


def _type_name(value: Any) -> str:
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, dict) and value:
        key, item = next(iter(value.items()))
        return f"{name}[{_type_name(key)}, {_type_name(item)}]"
    if isinstance(value, (list, tuple, set, frozenset)) and value:
        return f"{name}[{_type_name(next(iter(value)))}]"
    return name


def path_for(folder: Path) -> Path:
    return folder / SNAPSHOT_FILE


# ---------------------------------------------------------------------- saving


def _sections(mirror: Mirror) -> Iterator[tuple[str, np.ndarray | bytes]]:
    """Every section of the file: a name and an array or bytes."""
    n = mirror.size
    yield "vectors", mirror.vectors[:n]
    yield "ids", np.array(mirror.ids, dtype=str)
    for name in _COLUMNS:
        yield name, getattr(mirror, name)[:n]
    for name in _CODED:
        values = getattr(mirror, name)[:n]
        vocab = sorted({v for v in values.tolist() if v is not None})
        code = {v: i for i, v in enumerate(vocab)}
        codes = np.fromiter((code.get(v, -1) if v is not None else -1 for v in values.tolist()),
                            dtype=np.int32, count=n)  # fmt: skip
        yield f"{name}_codes", codes
        yield f"{name}_vocab", np.array(vocab, dtype=str)
    yield from mirror.adj.arrays().items()
    yield from mirror.lexical.arrays().items()
    table, slots = mirror.records.compacted()
    mirror.records.set_base(table, slots, len(mirror.alive))  # the saved form, in memory too
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    yield "records", sink.getvalue()
    yield "records_slots", slots
    mirror.by_hash.build(table.column("content_hash").to_pylist(), slots)
    yield "hash_keys", mirror.by_hash.keys
    yield "hash_slots", mirror.by_hash.slots
    state = {name: getattr(mirror, name) for name in _PICKLED}
    state["entities"] = mirror.entities._by_first
    state["ann_trained_at"] = mirror.ann.trained_at if mirror.ann is not None else 0
    yield "state", pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    if mirror.ann is not None and mirror.ann.index is not None:
        yield "ann", ann_mod.serialize(mirror.ann)


def _raw(value: np.ndarray | bytes) -> memoryview:
    if isinstance(value, bytes):
        return memoryview(value)
    return memoryview(np.ascontiguousarray(value).reshape(-1).view(np.uint8).data)


def save(mirror: Mirror, folder: Path, commit: str) -> Path:
    """Write the mirror as of ``commit`` (atomically, mode 0600)."""
    entries, blobs, offset = [], [], 0
    for name, value in _sections(mirror):
        raw = _raw(value)
        entry: dict[str, Any] = {"name": name, "offset": offset, "length": raw.nbytes}
        if isinstance(value, np.ndarray):
            entry["dtype"], entry["shape"] = value.dtype.str, list(value.shape)
        if name not in _UNCHECKED:
            entry["crc"] = zlib.crc32(raw)
        entries.append(entry)
        blobs.append(raw)
        offset += -(-raw.nbytes // _ALIGN) * _ALIGN
    header = {"format": FORMAT, "commit": commit, "dim": mirror.dim,
              "sections": entries, "length": offset}  # fmt: skip
    target = path_for(folder)
    fd, tmp = tempfile.mkstemp(prefix=".mirror-", dir=folder)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as out:
            line = json.dumps(header).encode() + b"\n"
            out.write(line + b"\0" * (-len(line) % _ALIGN))
            for raw in blobs:
                out.write(raw)
                out.write(b"\0" * (-raw.nbytes % _ALIGN))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


# ---------------------------------------------------------------------- loading


class _Damaged(Exception):
    pass


@contextmanager
def _opened(target: Path) -> Iterator[IO[bytes] | None]:
    """The snapshot file, if it is a regular file only its owner may write."""
    try:
        st = target.lstat()
    except FileNotFoundError:
        yield None
        return
    if (
        not stat.S_ISREG(st.st_mode)
        or (hasattr(os, "geteuid") and st.st_uid != os.geteuid())
        or st.st_mode & 0o022
    ):
        yield None
        return
    if stat.S_IMODE(st.st_mode) != 0o600:
        # The store's files are private to their user (see engine.make_private).
        target.chmod(0o600)
    with target.open("rb") as f:
        yield f


def load(mirror: Mirror, folder: Path, commit: str) -> bool:
    """Fill ``mirror`` from the snapshot when it was taken at ``commit``; False otherwise."""
    try:
        with _opened(path_for(folder)) as f:
            if f is None:
                return False
            header = json.loads(f.readline())
            if not _matches(header, mirror, commit):
                return False
            sections = _read(f, header)
        _install(mirror, sections)
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, _Damaged,
            pickle.UnpicklingError, AttributeError, ImportError, pa.ArrowException):  # fmt: skip
        return False
    return True


def _read(f: IO[bytes], header: dict[str, Any]) -> dict[str, Any]:
    start = -(-f.tell() // _ALIGN) * _ALIGN
    if os.fstat(f.fileno()).st_size < start + int(header["length"]):
        raise _Damaged("truncated")
    out: dict[str, Any] = {}
    mapped: mmap.mmap | None = None
    for entry in header["sections"]:
        # Inside the body the header declares: the vectors carry no CRC (the most of the
        # file, mapped unread), so a damaged offset would map other bytes as vectors.
        offset, length = int(entry["offset"]), int(entry["length"])
        if offset < 0 or length < 0 or offset + length > int(header["length"]):
            raise _Damaged(entry["name"])
        if entry["name"] in _DEFERRED:
            out[entry["name"]] = _deferred(f, start + int(entry["offset"]), entry)
            continue
        # Not on Windows, where a file mapped cannot be replaced by the next save.
        if entry["name"] in _MAPPED and "dtype" in entry and os.name == "posix":
            if mapped is None:
                mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
            dtype, shape = np.dtype(entry["dtype"]), tuple(entry["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            if count * dtype.itemsize != int(entry["length"]):
                raise _Damaged(entry["name"])
            array = np.frombuffer(mapped, dtype, count, start + int(entry["offset"]))
            out[entry["name"]] = array.reshape(shape)
            continue
        # Writable (the mirror's arrays change in place) and not zeroed first: a bytearray's
        # zeroing took longer than the read (0.5 s for 220 MB).
        buf = np.empty(int(entry["length"]), dtype=np.uint8)
        f.seek(start + int(entry["offset"]))
        view, done = buf.data, 0
        while done < len(buf):
            got = f.readinto(view[done:])  # type: ignore[attr-defined]
            if not got:
                raise _Damaged("truncated")
            done += got
        if "crc" in entry and zlib.crc32(buf.data) != entry["crc"]:
            raise _Damaged(entry["name"])
        if "dtype" in entry:
            shape = tuple(entry["shape"])
            out[entry["name"]] = buf.view(np.dtype(entry["dtype"])).reshape(shape)
        else:
            out[entry["name"]] = buf
    return out


def _deferred(f: IO[bytes], offset: int, entry: dict[str, Any]) -> Callable[[], bytes | None]:
    """A reader of one section later: the same file (same inode, size and time), else None."""
    st = os.fstat(f.fileno())
    path, length, crc = f.name, int(entry["length"]), entry.get("crc")

    def read() -> bytes | None:
        try:
            with open(path, "rb") as later:
                now = os.fstat(later.fileno())
                if (now.st_ino, now.st_size, now.st_mtime_ns) != (
                    st.st_ino, st.st_size, st.st_mtime_ns
                ):  # fmt: skip
                    return None  # saved again since: build the index anew
                later.seek(offset)
                data = later.read(length)
        except OSError:
            return None
        if len(data) != length or (crc is not None and zlib.crc32(data) != crc):
            return None
        return data

    return read


def _install(mirror: Mirror, s: dict[str, Any]) -> None:
    """Replace the mirror's state by the sections read (all or nothing)."""
    fresh = type(mirror)(mirror.dim)
    ids: list[str] = s["ids"].tolist()
    n = len(ids)
    fresh.ids, fresh.size = ids, n
    fresh.slot = dict(zip(ids, range(n), strict=True))
    fresh.vectors = s["vectors"].reshape(n, mirror.dim)
    for name in _COLUMNS:
        column = s[name]
        if len(column) != n:
            raise _Damaged(name)
        setattr(fresh, name, column)
    for name in _CODED:
        vocab = np.array([*s[f"{name}_vocab"].tolist(), None], dtype=object)
        setattr(fresh, name, vocab[s[f"{name}_codes"]])
    fresh.adj = Adjacency.from_arrays(s)
    fresh.lexical = LexicalIndex.from_arrays(s)
    table = pa.ipc.open_stream(pa.py_buffer(s["records"])).read_all()
    fresh.records.set_base(conform(table), s["records_slots"], n)
    fresh.by_hash.keys, fresh.by_hash.slots = s["hash_keys"], s["hash_slots"]
    state = pickle.loads(s["state"])  # an owner-only file (checked in _opened)
    entities = EntityIndex(fresh.frequency)
    entities._by_first = state["entities"]
    fresh.entities = entities
    for name in _PICKLED:
        setattr(fresh, name, state[name])
    if "ann" in s:
        fresh.ann = ann_mod.deserialize(s["ann"], mirror.dim, state["ann_trained_at"])
    mirror.adopt(fresh)


def _matches(header: Any, mirror: Mirror, commit: str) -> bool:
    return (
        isinstance(header, dict)
        and header.get("format") == FORMAT
        and header.get("dim") == mirror.dim
        and bool(commit)
        and header.get("commit") == commit
    )


def discard(folder: Path) -> None:
    path_for(folder).unlink(missing_ok=True)

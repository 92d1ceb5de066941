"""Write-behind: a small write is journalled, acknowledged, and applied to Kùzu just after.

A Kùzu write transaction for one memory costs as much as embedding its text (BEGIN, the
statements, the commit stamp, an fsync'd COMMIT), so ``remember`` used to spend most of its time
there. The process that owns a store (it alone writes it, and holds the mirror every read of
memories is answered from) now plans a small batch against the mirror, appends it to this
journal (one fsync'd record), updates the mirror and returns. The batch is then applied to
Kùzu in order, several per transaction, by a background thread, or at once by any caller that
needs the database: the engine runs ``Journal.drain`` before every statement or transaction a
thread starts (``Engine.barrier``), so nothing reads Kùzu behind the journal.

Durability: a record is on disk before ``remember`` returns. Each transaction that applies
records also stores, in the same transaction, the sequence number of the last one
(``Meta.journal_seq``); a new owner replays exactly the records past it (after a crash or
kill -9), then empties the journal. A torn last record (a crash during the append) was never
acknowledged and is ignored. A damaged record costs that record only: reading resumes at the
next whole record, the rest replay without their links to what the damaged one wrote, and the
damaged file is copied aside with a warning (``Recovery``). Zeros and records written twice
are skipped.

Disk full: a write is refused (``DiskFullError``) before it is journalled while the disk has
less than ``Config.min_free_disk_mb`` free, which keeps room for Kùzu to apply what is pending;
Kùzu never meets a full disk (graphmem.storage.diskspace says why it must not).

Record layout: a 4-byte little-endian length, the CRC-32 of the payload, the payload (JSON of
the sequence number and the batch; datetimes, sets and float32 vectors tagged). The file is
mode 0600 in the store's 0700 folder. Batches reach it after validation and the secret screen.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import logging
import os
import struct
import threading
import zlib
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DiskFullError, GraphMemError, JournalError
from ..storage import diskspace
from ..write import batch as write_mod
from ..write import idempotency

if TYPE_CHECKING:
    from ..storage.store import Store

log = logging.getLogger("graphmem.owner.journal")
JOURNAL_NAME = "journal.bin"
# Meta key of the last journal record the database holds.
SEQ_KEY = "journal_seq"
_HEADER = struct.Struct("<II")  # payload length, CRC-32 of the payload
# Past this size, a drain that leaves records pending rewrites the file with those alone (the
# file is otherwise emptied only when nothing is pending, which steady writes may never allow).
COMPACT_BYTES = 8 * 1024 * 1024
# Past this many records waiting, a writer applies them itself before it returns: the
# applier fell behind, and the backlog (in memory, and for the next reader to wait on) must
# stay bounded.
MAX_PENDING = 256
# A record longer than this is a torn or foreign length field, not a batch.
_MAX_RECORD = 1 << 30
# How every payload starts (``append``): where a damaged stretch ends, the next whole record
# is found by this marker and its checksum.
_PAYLOAD_START = b'{"seq": '
# The Batch fields a journal record keeps: what ``write.apply`` reads.
_FIELDS = (
    "new_rows", "updates", "edges", "tags", "known_tags", "clusters", "removed", "purged",
    "tag_counts", "cluster_sizes", "request",
)  # fmt: skip


class Journal:
    """The write-behind journal of one store, in the process that owns it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine
        self.path = store.folder / JOURNAL_NAME
        # Guards the pending records, the sequence number and the file; never held while
        # waiting for the engine's write lock (drain takes the write lock first).
        self._lock = threading.Condition(threading.Lock())
        # (sequence number, batch, the record as written) of each record not yet applied.
        self._pending: deque[tuple[int, write_mod.Batch, bytes]] = deque()
        self._stop = False
        self._local = threading.local()
        # The last failure to apply, until a drain succeeds: writes and reads raise it.
        self.error: JournalError | None = None
        # What replaying a damaged journal at open lost and dropped (None: nothing).
        self.recovery: Recovery | None = None
        self._seq = self._replay()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if os.name == "posix":
            os.fchmod(self._fd, 0o600)  # a journal left with wider modes is tightened too
        self._size = 0  # bytes of whole records in the file (replay left it empty)
        self._thread = threading.Thread(target=self._run, name="graphmem-journal", daemon=True)
        self._thread.start()
        self.engine.barrier = self.drain

    # ------------------------------------------------------------------ writing

    def append(self, batch: write_mod.Batch) -> int:
        """Make ``batch`` durable and queue it for the database; returns its sequence number.

        Raises:
            JournalError: the record could not be written (nothing was queued).
        """
        encoded = json.dumps(_encode(_fields(batch)))
        with self._lock:
            # Refused here, before anything is written, while the disk still has room for
            # Kùzu to apply what is pending (graphmem.storage.diskspace): a full disk must never
            # reach the database.
            self.engine.require_space(doing="the write")
            seq = self._seq + 1
            payload = f'{{"seq": {seq}, "batch": {encoded}}}'.encode()
            record = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
            try:
                written = os.write(self._fd, record)
                if written != len(record):
                    # A short write is how a file system that filled up answers a write.
                    raise OSError(errno.ENOSPC, f"short write ({written} of {len(record)} bytes)")
                os.fdatasync(self._fd)
            except OSError as exc:
                # A partial record would be followed by the next one: cut it off (were it
                # left, the next open would stop reading at it, as at any torn record).
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)
                if diskspace.is_disk_full(exc):
                    raise DiskFullError(
                        f"The disk holding '{self.path.parent}' is full: the write was refused, "
                        f"and nothing of it was stored ({exc}). Free some space: writing "
                        "resumes by itself."
                    ) from exc
                raise JournalError(f"Could not write the journal '{self.path}': {exc}") from exc
            idempotency.crash_point("journalled")  # tests: durable, not applied, not answered
            self._size += len(record)
            self._seq = seq
            self._pending.append((seq, batch, record))
            self._lock.notify_all()
        return seq

    @property
    def pending(self) -> int:
        return len(self._pending)

    def keep_up(self) -> None:
        """After a write: apply the backlog here when the applier fell too far behind."""
        if len(self._pending) > MAX_PENDING:
            self.drain()

    # ------------------------------------------------------------------ applying

    def drain(self) -> None:
        """Apply every pending record to the database, in order, in one transaction.

        Runs in the caller's thread (the engine's barrier) or the applier's. On failure the
        records stay pending and in the file, and the error is raised (and kept in ``error``
        for the next write).

        Raises:
            JournalError: the database refused the records.
        """
        if not self._pending or getattr(self._local, "draining", False):
            return  # nothing to apply, or this thread is applying (its own transaction began)
        with self.engine.write_lock:
            with self._lock:
                records = list(self._pending)
            if not records:
                return
            self._local.draining = True
            try:
                with self.store.transaction():
                    for _, batch, _ in records:
                        write_mod.apply(self.store, batch)
                    self.store.set_meta({SEQ_KEY: str(records[-1][0])})
            except Exception as exc:
                kept = (
                    f"They are kept in '{self.path}' and applied again on the next call, or "
                    "when the store is next opened."
                )
                if diskspace.is_disk_full(exc):
                    error: JournalError = DiskFullError(
                        f"The disk is too full to apply {len(records)} acknowledged write(s) to "
                        f"the database: {exc}. {kept}"
                    )
                else:
                    error = JournalError(
                        f"The store could not apply {len(records)} acknowledged write(s) to "
                        f"its database: {exc}. {kept}"
                    )
                self.error = error
                raise error from exc
            finally:
                self._local.draining = False
            self.error = None
            with self._lock:
                for _ in records:
                    self._pending.popleft()
                if not self._pending:
                    self._empty()
                elif self._size > COMPACT_BYTES:
                    self._compact()
                self._lock.notify_all()  # the applier waits for no error

    def _empty(self) -> None:
        """Everything is in the database (with its sequence number): start afresh. Not
        fsync'd: records that come back after a crash are at or below the stored sequence
        number and are skipped, as they are if the file cannot be cut now."""
        try:
            os.ftruncate(self._fd, 0)
        except OSError:
            log.warning("could not empty the journal; its records are applied", exc_info=True)
        else:
            self._size = 0

    def _compact(self) -> None:
        """Rewrite the file with the pending records only (caller holds ``_lock``).

        The new file is fsync'd before it replaces the old one, and the folder after, so a
        crash leaves one or the other, each holding every record the database lacks."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        data = b"".join(record for _, _, record in self._pending)
        try:
            # Appends go to this descriptor from now on: it is the new file's, before and
            # after the rename.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        except OSError:
            log.warning("could not compact the journal; it keeps growing", exc_info=True)
            return
        try:
            _write_synced(fd, data)
            os.replace(tmp, self.path)
        except OSError:
            os.close(fd)
            log.warning("could not compact the journal; it keeps growing", exc_info=True)
            return
        try:
            # The rename is made durable before anything is appended to the new file.
            folder = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError:
            log.error("could not sync the store folder after compacting the journal", exc_info=True)
        os.close(self._fd)
        self._fd, self._size = fd, len(data)

    def check(self) -> None:
        """Before a write: when applying failed, try again now, and raise if it still fails."""
        if self.error is not None:
            self.drain()

    def _run(self) -> None:
        """The applier: drains whenever records are pending and the last attempt did not fail
        (after a failure, callers retry inline and surface the error)."""
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._stop or (self._pending and self.error is None))
                if self._stop:
                    return
            try:
                self.drain()
            except JournalError:
                log.warning("write-behind apply failed; will retry on the next call", exc_info=True)
            except GraphMemError:  # the store was closed under us
                log.debug("journal applier stopped", exc_info=True)
                return
            except Exception:  # a bug: callers still apply the journal at the barrier
                log.exception("the journal applier stopped")
                return

    def close(self) -> None:
        """Stop the applier and apply what is pending. On failure the records stay in the
        file for the next owner (the error is logged, not raised: the store is closing)."""
        with self._lock:
            self._stop = True
            self._lock.notify_all()
        self._thread.join()
        try:
            self.drain()
        except JournalError:
            log.error("closing with unapplied journal records", exc_info=True)
        self.engine.barrier = None
        os.close(self._fd)

    # ------------------------------------------------------------------ opening

    def _replay(self) -> int:
        """Apply the records the database lacks (a previous owner died before applying them)
        and empty the file; returns the last sequence number.

        A damaged record costs that record only: the records after it are replayed, without
        their links to memories that are not in the store (the damaged record's), and the
        journal is copied aside first (``Recovery``). A zero-filled tail or a record written
        twice costs nothing.
        """
        applied = int(self.store.meta().get(SEQ_KEY, "0") or 0)
        found = scan(self.path)
        records = sorted(((s, b) for s, b in found.records if s > applied), key=lambda r: r[0])
        recovery = None
        if found.damaged:
            # Sequence numbers are consecutive (``append`` takes one only for a whole record):
            # one missing between the database's and the last whole record was damaged.
            present = {s for s, _ in records}
            last = records[-1][0] if records else applied
            recovery = Recovery(
                lost=[s for s in range(applied + 1, last + 1) if s not in present],
                damaged_bytes=sum(length for _, length in found.damaged),
                torn_tail=found.tail_damaged,
                copy=self._keep_aside(),
            )
            recovery.dropped = _without_missing(self.store, records)
        elif found.zeros or found.duplicates:
            log.info(
                "journal '%s': ignored %d byte(s) of zeros and %d record(s) written twice",
                self.path,
                found.zeros,
                found.duplicates,
            )
        if records:
            log.info("replaying %d journal record(s) into the database", len(records))
            try:
                with self.store.transaction():
                    for _, batch in records:
                        write_mod.apply(self.store, batch)
                    self.store.set_meta({SEQ_KEY: str(records[-1][0])})
            except Exception as exc:
                cls = DiskFullError if diskspace.is_disk_full(exc) else JournalError
                raise cls(
                    f"The store's journal '{self.path}' holds {len(records)} acknowledged "
                    f"write(s) the database refused: {exc}. The journal is kept."
                ) from exc
            applied = records[-1][0]
        if recovery is not None:
            recovery.replayed = len(records)
            self.recovery = recovery
            log.warning("%s", recovery.describe(self.path))
        if self.path.exists():
            with open(self.path, "r+b") as f:
                f.truncate(0)
        return applied

    def _keep_aside(self) -> Path | None:
        """Copy the journal next to it (mode 0600) before it is emptied; returns the copy."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        try:
            data = self.path.read_bytes()
            for n in range(1000):
                name = f"journal.damaged-{stamp}{f'-{n}' if n else ''}.bin"
                copy = self.path.with_name(name)
                try:
                    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                except FileExistsError:
                    continue
                try:
                    _write_synced(fd, data)
                finally:
                    os.close(fd)
                return copy
        except OSError:
            log.error("could not keep a copy of the damaged journal '%s'", self.path, exc_info=True)
        return None


@dataclass
class Recovery:
    """What replaying a damaged journal lost, and where the damaged journal was kept."""

    # Sequence numbers of acknowledged records that could not be read (their writes are lost).
    lost: list[int] = field(default_factory=list)
    # Bytes of the file that were no whole record (zeros not counted).
    damaged_bytes: int = 0
    # The damage runs to the end of the file: a last record cut short by a crash (never
    # acknowledged), or a damaged last record (then lost too).
    torn_tail: bool = False
    # The copy of the damaged journal (None if it could not be written).
    copy: Path | None = None
    # Records replayed, and the links among them dropped because an end was not in the
    # store: (table, source memory, target).
    replayed: int = 0
    dropped: list[tuple[str, str, str]] = field(default_factory=list)

    def describe(self, path: Path) -> str:
        """The warning: what was lost, what was replayed, where the damaged journal is."""
        parts = [f"The store's journal '{path}' was damaged ({self.damaged_bytes} byte(s))."]
        if self.lost:
            shown = ", ".join(map(str, self.lost[:10])) + (" …" if len(self.lost) > 10 else "")
            parts.append(
                f"{len(self.lost)} acknowledged write(s) could not be read and are lost "
                f"(journal record(s) {shown})."
            )
        if self.torn_tail:
            parts.append(
                "Its end was unreadable: a write cut short by a crash (never acknowledged), "
                "or a damaged last write (lost)."
            )
        parts.append(f"{self.replayed} intact record(s) were replayed.")
        if self.dropped:
            shown = ", ".join(f"{t} {a}->{b}" for t, a, b in self.dropped[:10])
            more = " …" if len(self.dropped) > 10 else ""
            parts.append(
                f"{len(self.dropped)} of their link(s) named a memory that is not in the store "
                f"and were dropped: {shown}{more}."
            )
        if self.copy is not None:
            parts.append(f"The damaged journal is kept at '{self.copy}'.")
        else:
            parts.append("A copy of the damaged journal could not be written.")
        return " ".join(parts)


def _without_missing(
    store: Store, records: list[tuple[int, write_mod.Batch]]
) -> list[tuple[str, str, str]]:
    """Make records replayable after others were lost; returns the links dropped.

    Later records name what a lost one wrote: links to its memory (the session's next memory,
    a related one), the tags it created (as known tags, not created again), the counts it
    changed. Links with a memory end that is neither in the store nor in a replayed record
    are dropped, every tag is created if missing, and counts are taken from the database.
    """
    written = {memory_id for _, batch in records for memory_id in batch.new_rows}
    named: set[str] = set()
    for _, batch in records:
        named.update(batch.updates)
        for rows in batch.edges.values():
            for r in rows:
                named.add(r["src"])
                if r.get("_memory_dst", True):
                    named.add(r["dst"])
    unknown = named - written
    missing = unknown - store.existing_memory_ids(sorted(unknown)) if unknown else set()
    dropped: list[tuple[str, str, str]] = []
    for _, batch in records:
        for table, rows in batch.edges.items():
            kept = []
            for r in rows:
                if r["src"] in missing or (r.get("_memory_dst", True) and r["dst"] in missing):
                    dropped.append((table, r["src"], r["dst"]))
                else:
                    kept.append(r)
            batch.edges[table] = kept
        batch.updates = {k: v for k, v in batch.updates.items() if k not in missing}
        # A tag the lost record created is "known" to the later ones: MERGE them all.
        batch.known_tags = set()
        batch.tag_counts = batch.cluster_sizes = None
    return dropped


def warn_unapplied(store: Store) -> None:
    """A store opened read-only cannot replay its journal: say so when it holds records the
    database lacks (reads will not show them until an owner opens it read-write)."""
    try:
        applied = int(store.meta().get(SEQ_KEY, "0") or 0)
        waiting = sum(1 for seq, _ in read_records(store.folder / JOURNAL_NAME) if seq > applied)
    except (OSError, GraphMemError):
        return
    if waiting:
        log.warning(
            "'%s' is open read-only and its journal holds %d acknowledged write(s) the database "
            "lacks: open it read-write once to apply them.",
            store.folder,
            waiting,
        )


@dataclass
class Scan:
    """What a journal file holds (``scan``)."""

    # Whole records in file order, the first of each sequence number.
    records: list[tuple[int, write_mod.Batch]] = field(default_factory=list)
    # (offset, length) of each stretch that is no whole record and not all zeros.
    damaged: list[tuple[int, int]] = field(default_factory=list)
    # The last damaged stretch runs to the end of the file.
    tail_damaged: bool = False
    # Bytes of zeros that are no record (a file system may leave a zero-filled tail after a
    # crash), and records whose sequence number came earlier in the file.
    zeros: int = 0
    duplicates: int = 0


def scan(path: Path) -> Scan:
    """Read a journal file: every whole record, past any damaged stretch.

    A stretch that is not a whole record (a flipped byte, a torn append, zeros) ends where the
    next whole record starts: found by the start every payload has and its checksum. A record
    whose sequence number was already read (written twice) is skipped.

    Raises:
        JournalError: a whole, checksummed record this graphmem cannot read (another version
            wrote it): it was acknowledged, so it is never skipped.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Scan()
    out = Scan()
    seen: set[int] = set()
    offset = 0
    while offset < len(data):
        found = _record_at(data, offset, path)
        if found is None:
            end = _next_record(data, offset + 1, path)
            stretch = data[offset:end]
            if stretch.count(0) == len(stretch):
                out.zeros += len(stretch)
            else:
                out.damaged.append((offset, len(stretch)))
                out.tail_damaged = end == len(data)
            offset = end
            continue
        seq, batch, offset = found
        if seq in seen:
            out.duplicates += 1
        else:
            seen.add(seq)
            out.records.append((seq, batch))
    return out


def read_records(path: Path) -> list[tuple[int, write_mod.Batch]]:
    """The whole records of a journal file, in order (see ``scan``)."""
    return scan(path).records


def _record_at(data: bytes, offset: int, path: Path) -> tuple[int, write_mod.Batch, int] | None:
    """The whole record at ``offset`` (its sequence number, batch and end), or None."""
    if offset + _HEADER.size > len(data):
        return None
    length, crc = _HEADER.unpack_from(data, offset)
    start = offset + _HEADER.size
    if not len(_PAYLOAD_START) <= length <= _MAX_RECORD or start + length > len(data):
        return None
    payload = data[start : start + length]
    if not payload.startswith(_PAYLOAD_START) or zlib.crc32(payload) != crc:
        return None
    try:
        record = json.loads(payload)
        return int(record["seq"]), _batch(_decode(record["batch"])), start + length
    except (ValueError, TypeError, KeyError) as exc:
        # Whole and checksummed, so acknowledged: never skipped (another graphmem wrote it?).
        raise JournalError(
            f"The store's journal '{path}' holds a record this graphmem cannot read ({exc}); "
            "open the store with the graphmem that wrote it."
        ) from exc


def _next_record(data: bytes, start: int, path: Path) -> int:
    """Where the first whole record at or after ``start`` begins (the end of the data if none)."""
    at = data.find(_PAYLOAD_START, start + _HEADER.size)
    while at != -1:
        if _record_at(data, at - _HEADER.size, path) is not None:
            return at - _HEADER.size
        at = data.find(_PAYLOAD_START, at + 1)
    return len(data)


def _fields(batch: write_mod.Batch) -> dict[str, Any]:
    return {name: getattr(batch, name) for name in _FIELDS}


def _batch(fields: dict[str, Any]) -> write_mod.Batch:
    batch = write_mod.Batch(**fields)
    batch.removed = [tuple(r) for r in batch.removed]  # type: ignore[misc]
    return batch


# Every dict, set, datetime and vector is tagged (a one-key dict), so user metadata (itself a
# dict) can never be taken for a tag. Why not graphmem.codec's tagged JSON: this one is a file
# format (a record a crashed owner left is replayed by whichever version opens the store next,
# so it changes only with a reader of the old records), and it carries float32 vectors exactly
# and compactly as base64 arrays, which needs numpy; the codec lives for one call, carries
# models and errors the journal never holds, and must not import numpy (clients load none).
def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {"m": [[str(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, set | frozenset):
        return {"s": [_encode(v) for v in sorted(value)]}
    if isinstance(value, datetime):
        return {"t": value.isoformat()}
    if isinstance(value, np.ndarray):
        raw = np.ascontiguousarray(value, dtype="<f4").tobytes()
        return {"f": base64.b64encode(raw).decode("ascii")}
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot journal a {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    ((tag, inner),) = value.items()
    if tag == "m":
        return {k: _decode(v) for k, v in inner}
    if tag == "s":
        return {_decode(v) for v in inner}
    if tag == "t":
        return datetime.fromisoformat(inner)
    if tag == "f":
        return np.frombuffer(base64.b64decode(inner), dtype="<f4").copy()
    raise ValueError(f"unknown journal tag {tag!r}")


def _write_synced(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (os.write may write less) and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)

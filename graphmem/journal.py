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
acknowledged and is ignored.

Record layout: a 4-byte little-endian length, the CRC-32 of the payload, the payload (JSON of
the sequence number and the batch; datetimes, sets and float32 vectors tagged). The file is
mode 0600 in the store's 0700 folder. Batches reach it after validation and the secret screen.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import struct
import threading
import zlib
from collections import deque
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import idempotency
from . import write as write_mod
from .errors import GraphMemError, JournalError

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger("graphmem.journal")
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
            seq = self._seq + 1
            payload = f'{{"seq": {seq}, "batch": {encoded}}}'.encode()
            record = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
            try:
                written = os.write(self._fd, record)
                if written != len(record):
                    raise OSError(f"short write ({written} of {len(record)} bytes)")
                os.fdatasync(self._fd)
            except OSError as exc:
                # A partial record would be followed by the next one: cut it off (were it
                # left, the next open would stop reading at it, as at any torn record).
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)
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
                error = JournalError(
                    f"The store could not apply {len(records)} acknowledged write(s) to its "
                    f"database: {exc}. They are kept in '{self.path}' and applied again on the "
                    "next call, or when the store is next opened."
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
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
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
        and empty the file; returns the last sequence number."""
        applied = int(self.store.meta().get(SEQ_KEY, "0") or 0)
        records = [(s, b) for s, b in read_records(self.path) if s > applied]
        if records:
            log.info("replaying %d journal record(s) into the database", len(records))
            try:
                with self.store.transaction():
                    for _, batch in records:
                        write_mod.apply(self.store, batch)
                    self.store.set_meta({SEQ_KEY: str(records[-1][0])})
            except Exception as exc:
                raise JournalError(
                    f"The store's journal '{self.path}' holds {len(records)} acknowledged "
                    f"write(s) the database refused: {exc}. The journal is kept."
                ) from exc
            applied = records[-1][0]
        if self.path.exists():
            with open(self.path, "r+b") as f:
                f.truncate(0)
        return applied


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


def read_records(path: Path) -> list[tuple[int, write_mod.Batch]]:
    """The whole records of a journal file, in order; a torn or corrupt tail ends it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out: list[tuple[int, write_mod.Batch]] = []
    offset = 0
    while offset + _HEADER.size <= len(data):
        length, crc = _HEADER.unpack_from(data, offset)
        start = offset + _HEADER.size
        payload = data[start : start + length]
        if length > _MAX_RECORD or len(payload) < length or zlib.crc32(payload) != crc:
            log.warning("journal '%s': ignoring a torn record at byte %d", path, offset)
            break
        try:
            record = json.loads(payload)
            out.append((int(record["seq"]), _batch(_decode(record["batch"]))))
        except (ValueError, TypeError, KeyError) as exc:
            # Whole and checksummed, so acknowledged: never skipped (another graphmem wrote it?).
            raise JournalError(
                f"The store's journal '{path}' holds a record this graphmem cannot read ({exc}); "
                "open the store with the graphmem that wrote it."
            ) from exc
        offset = start + length
    return out


def _fields(batch: write_mod.Batch) -> dict[str, Any]:
    return {name: getattr(batch, name) for name in _FIELDS}


def _batch(fields: dict[str, Any]) -> write_mod.Batch:
    batch = write_mod.Batch(**fields)
    batch.removed = [tuple(r) for r in batch.removed]  # type: ignore[misc]
    return batch


# Every dict, set, datetime and vector is tagged (a one-key dict), so user metadata (itself a
# dict) can never be taken for a tag.
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

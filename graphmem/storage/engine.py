"""The one module that imports Kùzu: opening databases, connections, transactions, errors.

Everything Kùzu-specific that is not a product query lives here, so the engine can be swapped
(LadybugDB is an API-compatible fork) by changing this file.
"""

from __future__ import annotations

import glob
import importlib.util  # noqa: F401  (kuzu 0.11.3 calls importlib.util without importing it)
import logging
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from decimal import Decimal
from pathlib import Path
from typing import Any

import kuzu
import numpy as np

from ..errors import CypherError, DiskFullError, GraphMemError, ReadOnlyError, StoreLockedError
from . import diskspace

log = logging.getLogger("graphmem.storage.engine")
# Checkpoint once the WAL holds this much (Kùzu's own default threshold is 16 MiB).
CHECKPOINT_BYTES = 16 * 1024 * 1024
# How long a checkpoint waits for statements in flight before trying anyway.
DRAIN_TIMEOUT = 30.0
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
_READ_ONLY_HINTS = ("read-only", "read only", "readonly")
# Kùzu databases that failed a write for lack of space: never closed nor freed (see
# Engine._broke), so their destructors, which abort the process, never run.
_LEAKED: list[Any] = []


def make_private(db_file: Path) -> None:
    """Give the store's folder mode 0700 and the database's files mode 0600.

    Memories are personal, so no other local user may read them. Kùzu creates its files
    (``x.kuzu``, ``x.kuzu.wal``, ``x.kuzu.shadow``) with the process umask, usually 0644, and
    re-creates the WAL after every checkpoint; this runs on open, after each commit and on
    close. The folder's 0700 already shuts others out in between. Only what the current user
    owns is changed, and no symlink is followed to a file elsewhere.
    """
    if os.name != "posix":
        return
    uid = os.geteuid()
    folder = db_file.parent
    _chmod_owned(folder, 0o700, uid, follow=True)
    for name in glob.glob(glob.escape(str(db_file)) + "*"):
        _chmod_owned(Path(name), 0o600, uid, follow=False)


def _chmod_owned(path: Path, mode: int, uid: int, *, follow: bool) -> None:
    try:
        st = path.stat() if follow else path.lstat()
        if st.st_uid != uid or stat.S_ISLNK(st.st_mode) or stat.S_IMODE(st.st_mode) == mode:
            return
        path.chmod(mode)
    except FileNotFoundError:
        pass  # Kùzu removed it (a WAL after a checkpoint) between the listing and now


def _is_copy(query: str) -> bool:
    return query.lstrip()[:4].upper() == "COPY"


def referenced_params(query: str) -> set[str]:
    """The ``$name`` parameters a statement names outside string literals (a usability check:
    Kùzu 0.11.3 silently binds a missing one to NULL; it decides nothing about safety)."""
    return set(_PARAM.findall(_STRING_LITERAL.sub("", query)))


def _to_param(value: Any) -> Any:
    # Kùzu refuses numpy values as parameters.
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_to_param(v) for v in value]
    return value


def plain_value(value: Any) -> Any:
    """Kùzu returns DECIMAL (``sum()`` of integers, for one) as ``decimal.Decimal``, which JSON,
    CSV and tables show as a string: give ints and floats instead."""
    if isinstance(value, Decimal):
        return (
            int(value) if value.is_finite() and value == value.to_integral_value() else float(value)
        )
    if isinstance(value, list):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    return value


class Engine:
    """One open Kùzu database, shared by every ``GraphMemory`` on the same path in a process.

    Kùzu lets one process write at a time and, inside a process, one write transaction at a
    time; a second ``Database`` object on the same path silently reads stale data. So engines
    are cached per path, each thread gets its own connection, and writes take ``write_lock``.
    """

    def __init__(
        self,
        db_file: Path,
        *,
        read_only: bool = False,
        buffer_pool_bytes: int = 0,
        max_db_bytes: int = 0,
    ) -> None:
        self.db_file = db_file
        self.read_only = read_only
        try:
            # No automatic checkpoints: Kùzu runs one inside COMMIT once the WAL is large,
            # and it fails that COMMIT after 5 s if another thread is reading (the write is
            # lost). Checkpoints run after a commit instead, when nothing is being read.
            # 0: Kùzu's default (80% of RAM; 8 TB of address space).
            self._db = kuzu.Database(
                str(db_file),
                read_only=read_only,
                auto_checkpoint=False,
                buffer_pool_size=buffer_pool_bytes,
                max_db_size=max_db_bytes or (1 << 43),
            )
        except RuntimeError as exc:
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"The store at '{db_file.parent}' is open in another process. Kùzu allows one "
                    "read-write process (or several read-only ones) per database: close the other "
                    "process, or reach the store through it."
                ) from exc
            raise GraphMemError(f"Could not open the database '{db_file}': {exc}") from exc
        make_private(db_file)
        self._local = threading.local()
        # Statements in flight, and a gate that holds new ones back while a commit or
        # checkpoint waits for them to finish (see _drained).
        self._reads = 0
        self._draining = 0
        self._reads_cond = threading.Condition()
        self._connections: list[kuzu.Connection] = []
        self.write_lock = threading.RLock()
        # Run inside every write transaction just before it commits (the store stamps a
        # commit id there, which the mirror snapshot is checked against).
        self.before_commit: Callable[[], None] | None = None
        # Run before every statement or transaction a thread starts outside a transaction:
        # the owner's write-behind journal applies what it holds (graphmem.owner.journal), so no
        # query reads the database behind a write that was already acknowledged.
        self.barrier: Callable[[], None] | None = None
        self.refcount = 0
        self._closed = False
        # New writes are refused below this much free disk space (``Config.min_free_disk_mb``;
        # graphmem.storage.diskspace), Kùzu transactions below a share of it.
        self.min_free_bytes = diskspace.DEFAULT_MIN_FREE
        # Why Kùzu can no longer be written (it failed a write for lack of space), or None.
        self.broken: str | None = None

    # ---------------------------------------------------------------- connections

    def _conn(self) -> kuzu.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = kuzu.Connection(self._db)
            self._local.conn = conn
            self._local.txn_depth = 0
            self._connections.append(conn)
        return conn

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Count a statement or read transaction in flight; wait while a checkpoint drains.

        A thread already inside a counted span goes on (waiting would deadlock the drain).
        """
        local = self._local
        depth = getattr(local, "read_depth", 0)
        with self._reads_cond:
            while depth == 0 and self._draining:
                self._reads_cond.wait()
            self._reads += 1
        local.read_depth = depth + 1
        try:
            yield
        finally:
            local.read_depth = depth
            with self._reads_cond:
                self._reads -= 1
                if self._reads == 0:
                    self._reads_cond.notify_all()

    @contextmanager
    def _drained(self) -> Iterator[None]:
        """Run with no other statement in flight and new ones held back.

        Kùzu checkpoints wait for every open transaction and fail after 5 s, losing the
        commit that triggered them. A commit that checkpoints (one that ran a COPY, which
        Kùzu always checkpoints) and our own checkpoints run inside this instead.
        """
        with self._reads_cond:
            self._draining += 1
            self._reads_cond.wait_for(lambda: self._reads == 0, timeout=DRAIN_TIMEOUT)
        try:
            yield
        finally:
            with self._reads_cond:
                self._draining -= 1
                self._reads_cond.notify_all()

    def _maybe_checkpoint(self) -> None:
        """Fold the WAL into the database once it is large (after a commit, write lock held)."""
        try:
            size = self.db_file.with_name(self.db_file.name + ".wal").stat().st_size
        except FileNotFoundError:
            return
        if size < CHECKPOINT_BYTES:
            return
        try:
            # A checkpoint copies the pages it rewrites to a shadow file, then grows the
            # database: it may need about twice the WAL's size (graphmem.storage.diskspace).
            self.require_space(
                2 * size + self.min_free_bytes // diskspace.APPLY_SHARE, "a checkpoint"
            )
        except DiskFullError as exc:  # the WAL stays; a commit with more space checkpoints
            log.info("checkpoint postponed: %s", exc)
            return
        try:
            with self._drained():
                self._raw_unlocked("CHECKPOINT", None)
        except GraphMemError as exc:  # the WAL stays; the next commit tries again
            if diskspace.is_disk_full(exc):
                self._broke(exc)
            log.info("checkpoint postponed: %s", exc)

    def _pass_barrier(self) -> None:
        """Run ``barrier`` unless this thread is inside a transaction, a read or the barrier
        itself (a transaction passed it when it began; its snapshot is that of its start)."""
        local = self._local
        inside = getattr(local, "txn_depth", 0) or getattr(local, "read_depth", 0)
        if self.barrier is None or inside or getattr(local, "in_barrier", False):
            return
        local.in_barrier = True
        try:
            self.barrier()
        finally:
            local.in_barrier = False

    def _raw(
        self, query: str, params: dict[str, Any] | None, *, single: bool = False, gate: bool = True
    ) -> Any:
        if gate:  # not for BEGIN, COMMIT and ROLLBACK: their transaction passed it already
            self._pass_barrier()
        if _is_copy(query):
            if getattr(self._local, "txn_depth", 0):
                self._local.copied = True  # its COMMIT will checkpoint
            else:
                with self._drained():
                    return self._raw_unlocked(query, params, single=single)
        with self._reading():
            return self._raw_unlocked(query, params, single=single)

    def _raw_unlocked(
        self, query: str, params: dict[str, Any] | None, *, single: bool = False
    ) -> Any:
        if self._closed:
            raise GraphMemError("The store is closed.")
        params = params or {}
        missing = referenced_params(query) - params.keys()
        if missing:
            # An unbound $param silently becomes NULL (or crashes the process) in Kùzu 0.11.3.
            raise CypherError(f"Missing query parameter(s): {', '.join(sorted(missing))}", query)
        conn = self._conn()
        try:
            values = {k: _to_param(v) for k, v in params.items()}
            if single:
                # Kùzu refuses to prepare more than one statement: its own parser decides.
                # (_prepare is what execute() itself calls; prepare() adds a deprecation warning.)
                prepared = conn._prepare(query)
                if not prepared.is_success():
                    raise RuntimeError(prepared.get_error_message())
                return conn.execute(prepared, values)
            return conn.execute(query, values)
        except RuntimeError as exc:
            message = str(exc)
            if any(h in message.lower() for h in _READ_ONLY_HINTS):
                raise ReadOnlyError(
                    f"Write refused: {message.splitlines()[0]}. Pass write=True (CLI: --write) "
                    "to change the graph, or open the store read-write."
                ) from exc
            raise CypherError(message.strip(), query, params) from exc

    # ---------------------------------------------------------------- queries

    def rows(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a query; rows come back as dicts keyed by column name."""
        result = self._raw(query, params)
        # Several statements in one query give a list of results; the last one is the answer.
        if isinstance(result, list):
            result = result[-1]
        return _collect(result)

    def statement_rows(
        self, query: str, params: dict[str, Any] | None, *, timeout_s: float
    ) -> list[dict[str, Any]]:
        """Run exactly one statement (more is refused) with a time limit; rows as dicts."""
        conn = self._conn()
        conn.set_query_timeout(max(1, int(timeout_s * 1000)))
        try:
            return _collect(self._raw(query, params, single=True))
        except CypherError as exc:
            if "interrupted" in str(exc).lower():
                raise CypherError(
                    f"The query ran longer than {timeout_s:g} s and was stopped", query, params
                ) from exc
            raise
        finally:
            conn.set_query_timeout(0)

    def execute(self, query: str, params: dict[str, Any] | None = None) -> None:
        """Run a statement whose result is not needed."""
        self._raw(query, params)

    def arrow(self, query: str, params: dict[str, Any] | None = None) -> Any:
        """Run a query and return a pyarrow Table (fast for vectors and bulk reads)."""
        # chunk_size=-1: the default chunking segfaults on FLOAT[n] columns in 0.11.3.
        return self._raw(query, params).get_as_arrow(chunk_size=-1)

    # ---------------------------------------------------------------- transactions

    def require_space(self, need: int | None = None, doing: str = "the write") -> None:
        """Raise ``DiskFullError`` unless ``need`` bytes (default: the margin new writes keep)
        are free beside the database, or when Kùzu can no longer write here (``broken``)."""
        if self.broken is not None:
            raise DiskFullError(self.broken)
        diskspace.require(self.db_file.parent, self.min_free_bytes if need is None else need, doing)

    def _broke(self, exc: BaseException) -> None:
        """Kùzu failed a write for lack of space: its state in this process is no longer
        sound (graphmem.storage.diskspace), so it takes no more writes, and is never closed."""
        self.broken = (
            f"The database '{self.db_file}' failed a write because the disk filled up ({exc}). "
            "Kùzu cannot continue after that in this process: writes are refused until the "
            "store is reopened (free some space first). Acknowledged writes are kept in the "
            "store's journal and applied then."
        )
        log.error("%s", self.broken)

    @contextmanager
    def transaction(self, keep_free: int | None = None) -> Iterator[None]:
        """A write transaction; nested calls join the outer one. Rolls back on any error.

        ``keep_free``: the free disk space it needs (default: a share of ``min_free_bytes``);
        with less, ``DiskFullError`` is raised before Kùzu is touched.
        """
        if self.read_only:
            raise ReadOnlyError("The store was opened read-only.")
        with self.write_lock:
            self._conn()
            depth = self._local.txn_depth
            if depth:
                self._local.txn_depth += 1
                try:
                    yield
                finally:
                    self._local.txn_depth -= 1
                return
            # Under the write lock: nothing pending can be applied between it and BEGIN.
            self._pass_barrier()
            # Checked before BEGIN: Kùzu must never meet a full disk (graphmem.storage.diskspace).
            need = self.min_free_bytes // diskspace.APPLY_SHARE if keep_free is None else keep_free
            self.require_space(need, "writing to the database")
            self._raw("BEGIN TRANSACTION", None, gate=False)
            self._local.txn_depth = 1
            self._local.copied = False
            try:
                yield
                if self.before_commit is not None:
                    self.before_commit()
            except BaseException as exc:
                self._local.txn_depth = 0
                with suppress(GraphMemError):
                    self._raw("ROLLBACK", None, gate=False)
                if (
                    isinstance(exc, GraphMemError)
                    and not isinstance(exc, DiskFullError)
                    and diskspace.is_disk_full(exc)
                ):
                    raise DiskFullError(
                        f"The disk filled up during a write, which was rolled back: {exc}"
                    ) from exc
                raise
            self._local.txn_depth = 0
            try:
                if self._local.copied:
                    with self._drained():
                        self._raw_unlocked("COMMIT", None)
                else:
                    self._raw("COMMIT", None, gate=False)
            except GraphMemError as exc:
                # Measured: a COMMIT that fails writing the WAL for lack of space leaves Kùzu
                # half-applied in memory (graphmem.storage.diskspace). The guard above should make
                # this unreachable, unless another process took the space in between.
                if diskspace.is_disk_full(exc):
                    self._broke(exc)
                    raise DiskFullError(self.broken or str(exc)) from exc
                raise
            self._maybe_checkpoint()
            make_private(self.db_file)  # the commit may have created a new WAL file

    @contextmanager
    def quiesced(self) -> Iterator[None]:
        """Hold every commit and checkpoint back: the database's files stay as they are.

        Writes the journal holds are applied first, so the files are as current as every
        acknowledged write (graphmem.storage.sandbox copies them for callers' Cypher).
        """
        self._pass_barrier()
        with self.write_lock:
            yield

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.broken is not None:
            # Closing (or freeing) a Kùzu database that failed a write for lack of space
            # aborts the process (heap corruption): keep it, and its connections, for good.
            # Its file lock ends with the process; its journal is replayed by the next owner.
            _leak(self._db, *self._connections)
            return
        for conn in self._connections:
            # A connection may already be closed by the interpreter at exit.
            with suppress(Exception):
                conn.close()
        self._db.close()
        if not self.read_only:
            make_private(self.db_file)


def _leak(*objects: Any) -> None:
    """Keep objects alive until the process ends, interpreter shutdown included (a plain
    reference is dropped then, which would run their destructors)."""
    import ctypes

    for obj in objects:
        _LEAKED.append(obj)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def _collect(result: Any) -> list[dict[str, Any]]:
    columns = result.get_column_names()
    out: list[dict[str, Any]] = []
    while result.has_next():
        out.append(dict(zip(columns, map(plain_value, result.get_next()), strict=False)))
    return out


_ENGINES: dict[Path, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def acquire(
    db_file: Path, *, read_only: bool = False, buffer_pool_bytes: int = 0, max_db_bytes: int = 0
) -> Engine:
    """The process-wide engine for ``db_file``, opened on first use (``buffer_pool_bytes``:
    Kùzu's page cache, ``max_db_bytes``: the largest the file may grow, when it opens; 0 for
    Kùzu's defaults)."""
    key = db_file.resolve()
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = Engine(
                key,
                read_only=read_only,
                buffer_pool_bytes=buffer_pool_bytes,
                max_db_bytes=max_db_bytes,
            )
            _ENGINES[key] = engine
        elif engine.read_only and not read_only:
            raise GraphMemError(
                f"'{db_file.parent}' is already open read-only in this process; close it first."
            )
        engine.refcount += 1
        return engine


def release(engine: Engine) -> bool:
    """Drop one reference; closes the database with the last. Returns True when closed."""
    with _ENGINES_LOCK:
        engine.refcount -= 1
        if engine.refcount > 0:
            return False
        _ENGINES.pop(engine.db_file, None)
        engine.close()
        return True

"""Where a caller's Cypher runs: a worker process on a read-only copy of the store.

Kùzu 0.11.3 has statements that crash the process running them (``repeat('ab', -1)``, a
timestamp overflow, a few thousand nested parentheses) and no bound on what one statement
allocates, and it would read or write any file a statement names. So no caller's statement runs
in the owner. The owner keeps a copy of the database files (a *view*), refreshed when the store
has changed since the last copy, and a worker process (graphmem.storage.sandbox_worker) that opens the
view read-only, locks itself out of every other file (Landlock) and caps its memory. The worker
asks Kùzu for the statement's plan and admits it by its operators (graphmem.storage.cypher_guard), then
runs it with a time limit and streams at most ``max_rows`` rows and ``max_bytes`` bytes back. A
crash, a runaway allocation or a timeout costs the worker, which the next call replaces.

What it costs: a statement on an unchanged store pays one round trip to the worker (about a
millisecond plus JSON); the first statement after a write pays a copy of the write-ahead log
(and of the database file after a checkpoint, which happens every 16 MiB of log) and a new
worker (about 0.2-0.4 s). The copy shares the store folder (0700) and uses as much disk as the
database does.

A statement with ``write=True`` is first run in a worker of its own on a scratch copy of the
database (so a crash, a runaway or a refused plan costs nothing), then by the owner in a write
transaction: writing needs the real database. It costs a full copy of the database per call, and
it is for a person at the CLI (``--write``), never offered over MCP.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import codec
from ..errors import CypherError, DiskFullError, GraphMemError, ReadOnlyError
from . import landlock
from .engine import Engine
from .sandbox_worker import read_frame, write_frame

log = logging.getLogger("graphmem.storage.sandbox")

VIEW_DIR = "cypher-view"
# Seconds past a statement's own timeout before its worker is killed (Kùzu checks its timeout
# between operators; a single long operator can overrun it).
KILL_GRACE = 5.0
# Seconds a new worker may take to start and open the view.
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Limits:
    """What one statement may use: worker memory, result rows and result bytes."""

    memory_mb: int = 1024
    max_rows: int = 100_000
    max_bytes: int = 32 * 1024 * 1024


class _Worker:
    """One worker process on one view (and, for a files= call, one folder)."""

    def __init__(
        self, db: Path, files: Path | None, memory_mb: int, *, writable: bool = False
    ) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_TOKEN")}
        # -P-like safety on every Python: the worker starts in the view folder, which holds no
        # Python files, so nothing there can shadow graphmem.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem.storage.sandbox_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=db.parent,
            env=env,
            start_new_session=True,
        )
        self.db = db
        self.files = files
        self.memory_mb = memory_mb
        reply = self.call(
            {
                "db": str(db),
                "files": str(files) if files else None,
                "memory_mb": memory_mb,
                "writable": writable,
            },
            START_TIMEOUT,
            1 << 20,
        )
        if not reply.get("ok"):
            self.kill()
            message = reply.get("message", "")
            raise CypherError(f"The Cypher sandbox could not start: {message}", "")
        self.landlock = int(reply.get("landlock", 0))

    def call(self, frame: dict[str, Any], timeout: float, limit: int) -> dict[str, Any]:
        """Send one frame and wait for the answer; the worker is killed past ``timeout``."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            self.kill()

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            write_frame(stdin, frame)
            reply = read_frame(stdout, limit)
        except (OSError, ValueError):
            reply = None
        finally:
            timer.cancel()
        if reply is None:
            self.kill()
            raise _WorkerDied(self.proc.wait(), timed_out=expired.is_set())
        return reply

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=10)


class _WorkerDied(Exception):
    def __init__(self, code: int | None, *, timed_out: bool) -> None:
        super().__init__(code)
        self.code = code
        self.timed_out = timed_out


class Sandbox:
    """Runs callers' statements for one store, away from its owner."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Each process its own folder of views: several read-only processes may share a store.
        self._base = engine.db_file.parent / VIEW_DIR
        self._root = self._base / f"p{os.getpid()}"
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._view: Path | None = None
        self._key: tuple[Any, ...] | None = None
        self._main_key: tuple[int, ...] | None = None
        self._counter = itertools.count()
        self._closed = False
        # One descriptor on the live database file, kept open while the store is: POSIX drops
        # every lock a process holds on a file when it closes *any* descriptor of that file,
        # so opening and closing the database to copy it would release Kùzu's own lock and let
        # a second process open the store.
        self._db_fd: int | None = None
        _remove_stale_views(self._base)

    # ------------------------------------------------------------------ the view

    @staticmethod
    def _stat(path: Path) -> tuple[int, ...] | None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _refresh(self) -> Path:
        """A copy of the database as of now; the same copy while the store has not changed."""
        db = self.engine.db_file
        wal = db.with_name(db.name + ".wal")
        with self.engine.quiesced():
            key = (self._stat(db), self._stat(wal))
            if key == self._key and self._view is not None:
                return self._view
        self._base.mkdir(mode=0o700, exist_ok=True)
        self._root.mkdir(mode=0o700, exist_ok=True)
        view = self._root / f"v{os.getpid()}-{next(self._counter)}"
        view.mkdir(mode=0o700)
        target = view / db.name
        try:
            # The database file changes only at a checkpoint, the log only at a commit: copy the
            # big file outside the write lock, then the log under it, and start over if a
            # checkpoint came in between; a store checkpointing that often is copied whole
            # under the lock on the last try (the lock is re-entrant).
            for attempt in range(3):
                whole = contextlib.nullcontext() if attempt < 2 else self.engine.quiesced()
                with whole, contextlib.ExitStack() as stack:
                    main_key = self._stat(db)
                    previous = self._view / db.name if self._view is not None else None
                    if previous is not None and main_key == self._main_key and previous.exists():
                        os.link(previous, target)  # read-only opens never change it
                    else:
                        self._copy_database(target)
                    stack.enter_context(self.engine.quiesced())
                    if self._stat(db) != main_key:
                        target.unlink()
                        continue
                    if wal.exists():
                        with open(wal, "rb") as log_file:
                            _private_copy(log_file, view / wal.name)
                    key = (main_key, self._stat(wal))
                break
        except OSError as exc:
            shutil.rmtree(view, ignore_errors=True)
            if exc.errno == errno.ENOSPC:
                raise DiskFullError(
                    "No disk space left to copy the store for cypher() (it runs on a copy of "
                    f"the database, {db.stat().st_size >> 20} MB)"
                ) from exc
            raise GraphMemError(f"Could not copy the store for cypher(): {exc}") from exc
        old = self._view
        self._view, self._key, self._main_key = view, key, main_key
        if self._worker is not None:
            self._worker.close()
            self._worker = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return view

    def _copy_database(self, target: Path) -> None:
        """Copy the live database file through the one descriptor kept on it."""
        db = self.engine.db_file
        if self._db_fd is not None and os.fstat(self._db_fd).st_ino != db.stat().st_ino:
            os.close(self._db_fd)  # another file (inode) than Kùzu's now: its lock is not ours
            self._db_fd = None
        if self._db_fd is None:
            self._db_fd = os.open(db, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        os.lseek(self._db_fd, 0, os.SEEK_SET)  # the sandbox's lock is held: one copy at a time
        # closefd=False: closing this file object must not close (and unlock) the descriptor.
        with open(self._db_fd, "rb", closefd=False) as source:
            _private_copy(source, target)

    # ------------------------------------------------------------------ statements

    def run(
        self,
        query: str,
        params: dict[str, Any],
        *,
        files: Path | None = None,
        timeout_s: float = 30.0,
        write: bool = False,
        limits: Limits | None = None,
    ) -> list[dict[str, Any]] | None:
        """Check a statement in the worker and, unless ``write``, run it there.

        Returns the rows, or None for ``write`` (checked only: the owner runs it).

        Raises:
            CypherError: Kùzu refused the statement, its plan does what cypher() does not
                allow, it ran out of time, memory or result size, or it crashed the worker.
            ReadOnlyError: it writes and ``write`` is False.
        """
        if files is not None:
            store = self.engine.db_file.parent.resolve()
            folder = files.resolve()
            if folder == store or store in folder.parents or folder in store.parents:
                # COPY … TO could overwrite the database, its log or serve.token there.
                raise CypherError(
                    f"files= may not be the store's folder, inside it or above it ('{files}'): "
                    "name a folder of its own",
                    query,
                )
        if files is not None and not landlock.abi_version():
            raise CypherError(
                "files= needs Linux Landlock (kernel 5.13 or later), which confines the "
                "statement to that folder; it is not available here",
                query,
            )
        limits = limits or Limits()
        frame = {
            "query": query,
            "params": codec.encode(params),
            "timeout_ms": int(timeout_s * 1000),
            "max_rows": limits.max_rows,
            "max_bytes": limits.max_bytes,
            "write": write,
            "run": not write,
        }
        with self._lock:
            if self._closed:
                raise GraphMemError("The store is closed.")
            view = self._refresh()
            if write:
                self._check_write(view, frame, query, params, timeout_s, limits)
                return None
            worker = self._worker
            if (
                files is not None
                or worker is None
                or not worker.alive()
                or worker.memory_mb != limits.memory_mb
            ):
                if files is None and worker is not None:
                    worker.close()
                    self._worker = None
                worker = _Worker(view / self.engine.db_file.name, files, limits.memory_mb)
                if files is None:
                    self._worker = worker
            try:
                reply = worker.call(frame, timeout_s + KILL_GRACE, limits.max_bytes + (1 << 20))
            except _WorkerDied as exc:
                self._worker = None
                if exc.timed_out:
                    raise CypherError(
                        f"The query ran longer than {timeout_s:g} s and was stopped", query, params
                    ) from None
                raise CypherError(
                    "The statement crashed Kùzu's query engine (it ran in the Cypher sandbox: the "
                    f"store and its owner are unharmed; exit status {exc.code})",
                    query,
                    params,
                ) from None
            finally:
                if files is not None:
                    worker.close()
        return _answer(reply, query, params, timeout_s, limits)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._worker is not None:
                self._worker.close()
                self._worker = None
            if self._view is not None:
                shutil.rmtree(self._view, ignore_errors=True)
                self._view = None
            shutil.rmtree(self._root, ignore_errors=True)
            with contextlib.suppress(OSError):
                self._base.rmdir()  # unless another process's views are there
            if self._db_fd is not None and not getattr(self.engine, "broken", False):
                # After Kùzu closed the database (Store.close): no lock of the store is left.
                # (A database broken by a full disk is left open until exit, lock and all.)
                os.close(self._db_fd)
                self._db_fd = None

    def _check_write(
        self,
        view: Path,
        frame: dict[str, Any],
        query: str,
        params: dict[str, Any],
        timeout_s: float,
        limits: Limits,
    ) -> None:
        """Try a write first in a worker of its own, on a scratch copy it may change: a write
        that crashes Kùzu or runs out of memory or time there is refused before the owner
        runs it on the store."""
        frame = {**frame, "run": True}
        scratch = self._root / f"w{os.getpid()}-{next(self._counter)}"
        scratch.mkdir(mode=0o700)
        try:
            for f in view.iterdir():
                with open(f, "rb") as source:
                    _private_copy(source, scratch / f.name)
            worker = _Worker(
                scratch / self.engine.db_file.name, None, limits.memory_mb, writable=True
            )
            try:
                reply = worker.call(frame, timeout_s + KILL_GRACE, limits.max_bytes + (1 << 20))
            except _WorkerDied as exc:
                raise CypherError(
                    "The statement crashed Kùzu's query engine while it was checked (in the "
                    f"Cypher sandbox: the store is unharmed; exit status {exc.code})",
                    query,
                    params,
                ) from None
            finally:
                worker.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        _answer(reply, query, params, timeout_s, limits)  # its rows are the scratch copy's


def _answer(
    reply: dict[str, Any], query: str, params: dict[str, Any], timeout_s: float, limits: Limits
) -> list[dict[str, Any]] | None:
    """The rows of a worker's answer, or its refusal as a typed error."""
    if reply.get("ok"):
        rows = reply.get("rows")
        if rows is None:
            return None
        try:
            decoded = codec.decode(rows)
        except (GraphMemError, ValueError, TypeError, KeyError, RecursionError) as exc:
            raise CypherError(f"Could not read the statement's result: {exc}", query) from None
        if not isinstance(decoded, list):
            raise CypherError("Could not read the statement's result", query)
        return decoded
    kind, message = reply.get("kind"), str(reply.get("message", ""))
    if kind == "readonly":
        raise ReadOnlyError(
            f"Write refused: {message.splitlines()[0]} cypher() is read-only unless write=True "
            "(CLI: --write)"
        )
    if kind == "timeout":
        raise CypherError(
            f"The query ran longer than {timeout_s:g} s and was stopped", query, params
        )
    if kind == "memory":
        raise CypherError(
            f"The statement needs more than cypher_memory_mb={limits.memory_mb} MB of "
            f"memory and was stopped ({message})",
            query,
            params,
        )
    raise CypherError(message, query, params)


def _remove_stale_views(base: Path) -> None:
    """Remove the views of processes that are gone (killed before they could clean up)."""
    if os.name != "posix":
        return  # os.kill(pid, 0) probes only on POSIX (elsewhere it would end the process)
    try:
        folders = list(base.iterdir())
    except OSError:
        return
    for folder in folders:
        pid = folder.name[1:]
        if not (folder.name.startswith("p") and pid.isdigit()):
            shutil.rmtree(folder, ignore_errors=True)  # an older layout's view
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass  # alive (another user's process cannot be signalled)


def _private_copy(source: IO[bytes], dst: Path) -> None:
    """Copy an open file to ``dst``, readable by its owner only from the first byte."""
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)


__all__ = ["Limits", "Sandbox"]

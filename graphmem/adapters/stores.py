"""Many stores in one process: which are open, opening them on first use, closing idle ones.

``graphmem serve --stores DIR`` (``graphmem.adapters.stores_server``) answers for every store folder
under ``DIR``. Keeping all of them open is what does not scale: each open store holds its
mirror in memory (about 2 KB per memory, see docs/scale-out.md). So a store opens on its
first call, and closes (its snapshot written first, so the next open is fast) when it has been
idle for a while, when opening another would pass ``max_open`` stores, or when the process's
resident memory would pass ``memory_budget``. A store in use by a call is never closed under
it; when every open store is in use and there is no room, the call is refused with
``ServerBusyError`` (retry), never by running out of memory.

Names are folder names, checked before any path is built: letters, digits, ``.``, ``_`` and
``-``, starting with a letter or digit, so ``..``, ``/`` and hidden names cannot reach outside
``DIR``; a name that is a link, or a file, is refused too.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, ServerBusyError, ValidationError
from ..owner.backends import Forwarding, Serving, save_snapshot, serving
from ..paths import DB_FILE
from ..remote.calls import CALLS

if TYPE_CHECKING:
    from ..memory import GraphMemory

log = logging.getLogger("graphmem.adapters.stores")

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
# States of an entry: a store being opened or closed is waited for, never used.
OPENING, OPEN, CLOSING = "opening", "open", "closing"


def check_name(name: object) -> str:
    """``name`` when it is a valid store name.

    Raises:
        ValidationError: not a string, or not 1–128 of ``[A-Za-z0-9_.-]`` starting with a
            letter or digit (so never ``..``, a path or a hidden file).
    """
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        shown = name if isinstance(name, str) and len(name) < 80 else type(name).__name__
        raise ValidationError(
            f"Invalid store name {shown!r}: use 1-128 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )
    return name


def resident_bytes() -> int | None:
    """This process's resident memory (Linux ``/proc``), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _give_back_memory() -> None:
    """Return freed heap pages to the system after a store closes (glibc keeps them
    otherwise, and the memory budget reads resident memory, as the OOM killer does)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@dataclass(eq=False)
class Entry:
    """One store the registry knows: opening, open, or closing."""

    name: str
    state: str = OPENING
    mem: GraphMemory | None = None
    # What answers calls: the owner's handles, one per caller's Config (or the calls
    # forwarded, when another process on this machine owns the store and this one is its
    # client).
    handles: Serving | Forwarding | None = None
    in_use: int = 0
    last_used: float = field(default_factory=time.monotonic)
    last_snapshot: float = field(default_factory=time.monotonic)
    open_seconds: float = 0.0
    cost: int = 0  # resident bytes its open added

    @property
    def owner_pid(self) -> int | None:
        if self.mem is None:
            return None
        owner = self.mem.owner
        return os.getpid() if owner is None else owner.get("pid")


class StoreRegistry:
    """The stores under ``root``, each opened on first use and closed when idle or crowded.

    Args:
        root: the folder holding one folder per store.
        opener: opens one store folder (a ``GraphMemory``; the server passes one that shares
            its embedding model across stores).
        create: a write to a missing store creates it; otherwise it is ``NotFoundError``.
        max_open: stores open at once.
        memory_budget: resident bytes the process should stay under (None: no limit).
        idle_seconds: a store unused this long is closed.
        snapshot_seconds: an open store's snapshot is saved this often (when it changed), so a
            server that dies or is rescheduled leaves a fresh one for the next open.
    """

    def __init__(
        self,
        root: Path,
        opener: Callable[[Path], GraphMemory],
        *,
        create: bool = False,
        max_open: int = 64,
        memory_budget: int | None = None,
        idle_seconds: float = 300.0,
        snapshot_seconds: float = 300.0,
    ) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise NotFoundError(f"No folder of stores at '{root}'.")
        if max_open < 1:
            raise ValidationError("max_open must be at least 1")
        self.opener = opener
        self.create = create
        self.max_open = max_open
        self.memory_budget = memory_budget
        self.idle_seconds = idle_seconds
        self.snapshot_seconds = snapshot_seconds
        self.draining = False
        self._entries: dict[str, Entry] = {}
        self._changed = threading.Condition()
        # One open at a time: each open is measured (its resident memory), and on a few cores
        # parallel opens only share the same CPU.
        self._opening = threading.Lock()
        self._costs: dict[str, int] = {}  # last measured cost per store, for the next open
        self._stop = threading.Event()
        self._janitor: threading.Thread | None = None
        self.opens = 0
        self.closes = 0

    # ------------------------------------------------------------------ names and folders

    def folder(self, name: str) -> Path:
        """The folder of store ``name`` (which may not exist yet).

        Raises:
            ValidationError: an invalid name, or one that is a link or a file under the root.
        """
        path = self.root / check_name(name)
        try:
            info = path.lstat()
        except FileNotFoundError:
            return path
        if stat.S_ISLNK(info.st_mode):
            raise ValidationError(f"Store '{name}' is a link: stores must be plain folders.")
        if not stat.S_ISDIR(info.st_mode):
            raise ValidationError(f"'{name}' is not a store folder.")
        return path

    def exists(self, name: str) -> bool:
        """Whether store ``name`` exists (it has a database)."""
        return (self.folder(name) / DB_FILE).exists()

    def names(self) -> list[str]:
        """The stores under the root."""
        found = []
        for child in sorted(self.root.iterdir()):
            plain = NAME_PATTERN.fullmatch(child.name) and not child.is_symlink()
            if plain and (child / DB_FILE).exists():
                found.append(child.name)
        return found

    # ------------------------------------------------------------------ use

    @contextlib.contextmanager
    def use(self, name: str, *, write: bool) -> Iterator[Entry]:
        """Store ``name``, open and kept open while the block runs.

        Raises:
            ValidationError: an invalid name.
            NotFoundError: no such store (and this is not a write that may create it).
            ServerBusyError: draining, or no room for another open store right now.
        """
        entry = self._acquire(name, write=write)
        try:
            yield entry
        finally:
            with self._changed:
                entry.in_use -= 1
                entry.last_used = time.monotonic()
                self._changed.notify_all()

    def _acquire(self, name: str, *, write: bool) -> Entry:
        folder = self.folder(name)
        while True:
            with self._changed:
                self._check_draining()
                entry = self._entries.get(name)
                if entry is not None and entry.state == OPEN:
                    entry.in_use += 1
                    entry.last_used = time.monotonic()
                    return entry
                if entry is None:
                    entry = self._entries[name] = Entry(name)
                    break
                # Another call is opening or closing it: wait for that, then look again.
                self._changed.wait(timeout=1.0)
        try:
            if not (folder / DB_FILE).exists() and not (self.create and write):
                raise NotFoundError(
                    f"No store '{name}'"
                    + (" yet: its first write creates it." if self.create else " on this server.")
                )
            self._open(entry, folder)
        except BaseException:
            with self._changed:
                self._entries.pop(name, None)
                self._changed.notify_all()
            raise
        return entry

    def _open(self, entry: Entry, folder: Path) -> None:
        with self._opening:
            self._make_room(entry.name)
            before = resident_bytes()
            started = time.perf_counter()
            mem = self.opener(folder)
            opened = time.perf_counter() - started
            after = resident_bytes()
        # Another process here may own it (a server stopping): its client, until it goes.
        handles = serving(mem.backend)
        with self._changed:
            entry.mem, entry.handles = mem, handles
            entry.open_seconds = opened
            entry.cost = max(0, (after or 0) - (before or 0))
            self._costs[entry.name] = entry.cost
            entry.in_use, entry.state = 1, OPEN
            entry.last_used = entry.last_snapshot = time.monotonic()
            self.opens += 1
            self._changed.notify_all()
        log.info("opened store '%s' in %.2f s", entry.name, opened)

    def _check_draining(self) -> None:
        if self.draining:
            raise ServerBusyError(
                "This server is stopping: retry (the store opens on the server that takes it)."
            )

    def _make_room(self, name: str) -> None:
        """Close idle stores until one more fits under ``max_open`` and the memory budget."""
        while True:
            with self._changed:
                opened = [e for e in self._entries.values() if e.state == OPEN]
                crowded = len(opened) >= self.max_open
                heavy = self._over_budget(name) and bool(opened)
                if not crowded and not heavy:
                    return
                idle = [e for e in opened if e.in_use == 0]
                if not idle:
                    why = (
                        f"{len(opened)} stores open, the most it keeps (--max-open)"
                        if crowded
                        else "its memory budget is reached (--memory-budget)"
                    )
                    raise ServerBusyError(
                        f"This server cannot open store '{name}' now: {why}, and every open "
                        "store is in use. Retry shortly, or add servers."
                    )
                victim = min(idle, key=lambda e: e.last_used)
                victim.state = CLOSING
            self._close(victim)

    def _over_budget(self, name: str) -> bool:
        if self.memory_budget is None:
            return False
        now = resident_bytes()
        if now is None:
            return False
        known = list(self._costs.values())
        expected = self._costs.get(name, sorted(known)[len(known) // 2] if known else 0)
        return now + expected > self.memory_budget

    def _close(self, entry: Entry) -> None:
        """Close an entry marked CLOSING (its snapshot is written by the close) and forget it."""
        try:
            if entry.mem is not None:
                entry.mem.close()
        except Exception:  # the store's own error; the registry must go on
            log.exception("closing store '%s' failed", entry.name)
        finally:
            with self._changed:
                if self._entries.get(entry.name) is entry:
                    del self._entries[entry.name]
                self.closes += 1
                self._changed.notify_all()
            _give_back_memory()
        log.info("closed store '%s'", entry.name)

    # ------------------------------------------------------------------ upkeep

    def sweep(self, now: float | None = None) -> list[str]:
        """Close stores idle past ``idle_seconds`` and save the snapshots that are due.
        Returns the names closed."""
        now = time.monotonic() if now is None else now
        with self._changed:
            idle = [
                e
                for e in self._entries.values()
                if e.state == OPEN and e.in_use == 0 and now - e.last_used >= self.idle_seconds
            ]
            for e in idle:
                e.state = CLOSING
            due = [
                e
                for e in self._entries.values()
                if e.state == OPEN and now - e.last_snapshot >= self.snapshot_seconds
            ]
            for e in due:
                e.in_use += 1  # not closed while its snapshot is written
        for e in idle:
            self._close(e)
        for e in due:
            try:
                self._snapshot(e)
            finally:
                with self._changed:
                    e.in_use -= 1
                    e.last_snapshot = time.monotonic()
                    self._changed.notify_all()
        return [e.name for e in idle]

    @staticmethod
    def _snapshot(entry: Entry) -> None:
        mem = entry.mem
        if mem is None or mem.owner is not None:
            return  # another process owns it and saves its own
        try:
            save_snapshot(mem.backend)  # a no-op when nothing changed since the last one
        except Exception:  # best effort: the next open rebuilds from the database instead
            log.exception("saving the snapshot of store '%s' failed", entry.name)

    def start(self) -> None:
        """Run ``sweep`` in a background thread until ``close_all``."""
        interval = max(0.5, min(30.0, self.idle_seconds / 4, self.snapshot_seconds / 4))

        def run() -> None:
            while not self._stop.wait(interval):
                try:
                    self.sweep()
                except Exception:  # keep sweeping: one bad store must not stop the upkeep
                    log.exception("store upkeep failed")

        self._janitor = threading.Thread(target=run, name="graphmem-stores", daemon=True)
        self._janitor.start()

    def close_all(self, timeout: float = 60.0) -> int:
        """Drain: refuse new calls, wait up to ``timeout`` seconds for calls in flight, then
        close every store (each writes its snapshot and releases its database). Returns how
        many were closed."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        with self._changed:
            self.draining = True
            while any(e.in_use or e.state != OPEN for e in self._entries.values()):
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning("closing stores with calls still in flight")
                    break
                self._changed.wait(timeout=min(left, 1.0))
            entries = [e for e in self._entries.values() if e.state == OPEN]
            for e in entries:
                e.state = CLOSING
        for e in entries:
            self._close(e)
        if self._janitor is not None:
            self._janitor.join(timeout=30)
        return len(entries)

    # ------------------------------------------------------------------ reports

    def ready(self) -> tuple[bool, str]:
        """Whether this server can open its stores now, and if not, why."""
        if self.draining:
            return False, "draining"
        if not self.root.is_dir():
            return False, f"the folder of stores '{self.root}' is gone"
        if not os.access(self.root, os.W_OK | os.X_OK):
            return False, f"the folder of stores '{self.root}' is not writable"
        if self._janitor is not None and not self._janitor.is_alive():
            return False, "store upkeep stopped"
        return True, "ready"

    def status(self) -> dict[str, Any]:
        """What is open, for operators (``GET /v1/status``)."""
        now = time.monotonic()
        with self._changed:
            stores = [
                {
                    "name": e.name,
                    "state": e.state,
                    "in_use": e.in_use,
                    "idle_seconds": round(now - e.last_used, 1),
                    "open_seconds": round(e.open_seconds, 3),
                    "cost_bytes": e.cost,
                    "owner_pid": e.owner_pid,
                }
                for e in self._entries.values()
            ]
        return {
            "pid": os.getpid(),
            "root": str(self.root),
            "draining": self.draining,
            "open": sum(1 for s in stores if s["state"] == OPEN),
            "max_open": self.max_open,
            "memory_budget": self.memory_budget,
            "resident_bytes": resident_bytes(),
            "opens": self.opens,
            "closes": self.closes,
            "stores": stores,
        }


class StoreProxy:
    """``GraphMemory``'s served calls (``graphmem.remote.calls.CALLS``) on one store of a registry: each call
    opens the store if needed and keeps it open while it runs.

    ``cypher(files=...)`` is refused: a folder named by a remote caller would be a folder of
    the server (another tenant's store, for one).
    """

    def __init__(
        self,
        registry: StoreRegistry,
        name: str,
        *,
        read_only: bool = False,
        config: dict[str, Any] | None = None,
    ) -> None:
        self.registry = registry
        self.name = check_name(name)
        self.read_only = read_only
        self.config = config or {}
        self.path = registry.root / name

    def for_call(self, read_only: bool, config: dict[str, Any]) -> StoreProxy:
        """The proxy for one caller (``graphmem.remote.server.CallHandles``): read-only or
        not, with the ``Config`` fields it set."""
        return StoreProxy(self.registry, self.name, read_only=read_only, config=config)

    def __getattr__(self, method: str) -> Any:
        if method not in CALLS:
            raise AttributeError(method)

        def call(*args: Any, **kwargs: Any) -> Any:
            if method == "cypher" and kwargs.get("files") is not None:
                raise ValidationError(
                    "cypher(files=...) is not available on a server of many stores."
                )
            write = CALLS[method] or (method == "cypher" and bool(kwargs.get("write")))
            with self.registry.use(self.name, write=write) as entry:
                if entry.handles is None:  # an open entry has them; a bug guard
                    raise ServerBusyError(f"Store '{self.name}' is not open.")
                target = entry.handles.for_call(self.read_only, self.config)
                return getattr(target, method)(*args, **kwargs)

        call.__name__ = method
        return call


__all__ = ["StoreProxy", "StoreRegistry", "check_name", "resident_bytes"]

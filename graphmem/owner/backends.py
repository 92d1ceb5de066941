"""Where a store lives, for a handle: the one place that decides, serves and hands over.

Kùzu lets one process open a database read-write, so exactly one process owns a store: the
first to open it. ``open_backend`` gives a handle its ``MemoryBackend``: the store open in this
process (``LocalMemory``, which then serves every other process on the store's socket), or a
client of the process that owns it (``RemoteMemory``). When that owner goes away mid-call, the
client opens the store again (as its new owner or a client of whoever won) and the handle
swaps its backend (``hand_over``). ``GraphMemory``, the CLI, ``serve`` and the server of many
stores all go through here.

**A handle's Config governs its own calls, in every process.** In the owner, a second handle
on the store has its own ``Config``; a client's ``Config`` travels with each call (the fields
it sets) and the owner answers the call with a handle of that ``Config`` (``Serving``), so a
call passes or fails, and plans and ranks, the same whichever process opened the store first.
The exception is what every handle on a store shares (the maintenance worker and cluster
rebuilds: ``SHARED_CONFIG_FIELDS``) and what only the opener can choose (the database's
sizes): a handle that asks for other shared settings than the store's owner is refused
(``ValidationError``) rather than silently overruled, in this process or another.

Light at import (no numpy, Kùzu or model): a handle that turns out to be a client loads none
of them.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import paths
from ..config import Config
from ..errors import (
    EmbedderMismatchError,
    GraphMemError,
    NotFoundError,
    StoreLockedError,
    ValidationError,
)
from ..paths import DB_FILE
from ..remote.calls import CALLS, MemoryBackend
from ..remote.client import RemoteMemory, RemoteStore

if TYPE_CHECKING:
    from ..embed import Embedder
    from ..remote.server import Listener
    from ..storage.store import Store
    from .local import LocalMemory
    from .shared import SharedState

# Config fields the handles on one store share (maintenance and clustering): the opener's.
SHARED_CONFIG_FIELDS = (
    "link_learning_rate", "learn_pairs_from", "use_boost", "reject_penalty",
    "cluster_every_recalls", "cluster_every_writes", "cluster_growth", "min_cluster_size",
    "cluster_dims",
)  # fmt: skip
# Fields only the opener's Config uses (the database's sizes, the disk's reserve).
OPENER_FIELDS = ("buffer_pool_mb", "max_db_gb", "min_free_disk_mb")
# What one Cypher statement may cost the owner's process (its sandbox worker's memory, the
# rows and bytes it sends back through the owner): a client may ask for less than the owner
# allows, never more (an attack raised all three and grew the owner by gigabytes in one call).
CEILING_FIELDS = ("cypher_memory_mb", "cypher_max_rows", "cypher_max_bytes")
# Handles an owner keeps for its callers' Configs (one per distinct Config and read-only flag).
MAX_CALL_CONFIGS = 64


# The stores open in this process, by database file: one SharedState each, counted.
SHARED: dict[Path, SharedState] = {}
SHARED_LOCK = threading.Lock()


@dataclass
class Opening:
    """How a handle opens its store (kept for opening it again after a hand-over)."""

    path: Path
    config: Config
    read_only: bool = False
    timeout: float = 20.0
    model_name: str = ""
    model_path: str | None = None
    embedder: Embedder | None = None
    # An owner reached over TCP (graphmem serve --tcp): its URL and the token it printed.
    url: str | None = None
    token: str | None = None
    # Answer other processes on the store's socket when this process owns it (False: a
    # single-process tool or a test, with no server thread and no socket).
    serve: bool = True


def open_backend(
    opening: Opening, hand_over: Callable[[MemoryBackend], None] | None = None
) -> MemoryBackend:
    """Own the store, or become a client of the process that owns it.

    Kùzu's file lock decides who owns a store, so two processes racing to open it cannot both
    win: the winner serves the store on its socket; everyone else calls through it. Between an
    owner's exit and the next owner there is a short window where neither works: wait for one
    or the other, up to ``opening.timeout`` seconds. ``hand_over`` is told of the backend a
    client opens when its owner is gone.

    Raises:
        StoreLockedError: another process owns the store and does not answer in time.
        EmbedderMismatchError, NotFoundError: as for ``GraphMemory``.
    """
    if opening.url is not None:
        remote = RemoteStore(url=opening.url, token=opening.token)
        if not remote.ping():
            remote.close()
            raise StoreLockedError(f"Nothing answers at {opening.url}.")
        return _client(remote, opening, reopen=None)
    deadline = time.monotonic() + opening.timeout
    delay = 0.005
    while True:
        # A live owner elsewhere answers first: finding it loads nothing heavy here.
        with SHARED_LOCK:
            here = _key(opening.path) in SHARED
        client = None if here else find_owner(opening, hand_over)
        if client is not None:
            return client
        local = _open_local(opening)
        if local is not None:
            return local
        client = find_owner(opening, hand_over)
        if client is not None:
            return client
        if time.monotonic() >= deadline:
            raise StoreLockedError(
                f"The store at '{opening.path}' is open in another process that does not "
                f"answer on its socket (waited {opening.timeout:g} s). If that process is a "
                "read-only opener, wait for it to finish."
            )
        # Retrying is the only way to learn that a lock was released: Kùzu has no wait.
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def owner_answers(folder: Path) -> bool:
    """Whether a process owns the store at ``folder`` and answers on its socket."""
    client = find_owner(Opening(path=folder, config=Config()))
    if client is None:
        return False
    client.close()
    return True


def find_owner(
    opening: Opening, hand_over: Callable[[MemoryBackend], None] | None = None
) -> RemoteMemory | None:
    """A client of the process that owns the store, if one answers on its socket (nothing
    heavy is loaded to find out: the CLI asks this first)."""
    remote = None
    store = str(opening.path.expanduser().resolve())
    for sock in paths.owner_sockets(opening.path):
        if not sock.exists():
            continue
        remote = RemoteStore(socket=sock)
        # The owner of this store, not of the one a copied folder's owner.socket names.
        if remote.ping() and remote.owner.get("store") == store:
            break
        remote.close()
        remote = None
    if remote is None:
        return None

    def reopen() -> MemoryBackend:
        # The owner is gone: open again, as the new owner or a client of it.
        client.close()
        backend = open_backend(opening, hand_over)
        if hand_over is not None:
            hand_over(backend)
        return backend

    client = _client(remote, opening, reopen=reopen)
    return client


def _client(
    remote: RemoteStore, opening: Opening, reopen: Callable[[], MemoryBackend] | None
) -> RemoteMemory:
    return RemoteMemory(
        remote,
        opening.path,
        read_only=opening.read_only,
        config=opening.config,
        reopen=reopen,
        model_name=opening.model_name,
        model_path=opening.model_path,
    )


def _open_local(opening: Opening) -> LocalMemory | None:
    """Open (or join) the store in this process; None when another process owns it."""
    from ..embed import KNOWN_DIMS, FastEmbedder
    from .feedback import upgrade_tags
    from .shared import SharedState

    key = _key(opening.path)
    with SHARED_LOCK:
        shared = SHARED.get(key)
        if shared is None:
            dim = opening.embedder.dim if opening.embedder else KNOWN_DIMS.get(opening.model_name)
            if dim is None:
                opening.embedder = FastEmbedder(opening.model_name, model_path=opening.model_path)
                dim = opening.embedder.dim
            try:
                store = _open_store(opening, dim)
            except StoreLockedError:
                return None
            try:
                shared = SharedState(store, opening.config)
            except BaseException:
                store.close()
                raise
            if not store.read_only:
                try:
                    upgrade_tags(store, shared.mirror, opening.config)
                    if opening.serve:
                        shared.listener = _listen(shared, opening)
                except BaseException:
                    shared.maintainer.close()
                    shared.close_journal()
                    store.close()
                    raise
            SHARED[key] = shared
        elif shared.store.model_name != opening.model_name:
            raise EmbedderMismatchError(
                f"'{opening.path}' is open in this process with '{shared.store.model_name}'."
            )
        else:
            check_shared_config(shared.config, opening.config, opening.path)
            if opening.serve and shared.listener is None and not shared.store.read_only:
                # Opened by a handle that served nobody: this one asks to be reachable.
                shared.listener = _listen(shared, opening)
        shared.refs += 1
    return _handle(
        shared, opening, opening.config, opening.read_only, on_close=lambda: _release(key)
    )


def _key(folder: Path) -> Path:
    return (folder / DB_FILE).resolve()


def _release(key: Path) -> None:
    """One user of the store fewer; the last closes it (stops serving first)."""
    with SHARED_LOCK:
        shared = SHARED[key]
        shared.refs -= 1
        last = shared.refs == 0
        if last:
            SHARED.pop(key, None)
    if last:
        shared.close()


@atexit.register
def _close_all() -> None:
    # An agent that exits without close(): stop serving and flush, so the next opener finds
    # no stale socket and no maintenance is lost.
    with SHARED_LOCK:
        states = list(SHARED.values())
        SHARED.clear()
    for shared in states:
        with contextlib.suppress(Exception):
            shared.close()


def _handle(
    shared: SharedState,
    opening: Opening,
    config: Config,
    read_only: bool,
    on_close: Callable[[], None] | None = None,
) -> LocalMemory:
    from .local import LocalMemory

    return LocalMemory(
        shared,
        path=opening.path,
        config=config,
        read_only=read_only,
        model_name=opening.model_name,
        model_path=opening.model_path,
        embedder=opening.embedder,
        on_close=on_close,
    )


def _open_store(opening: Opening, dim: int | None) -> Store:
    """The database, opened read-write even for a read-only handle: whoever opens a store
    owns it and must be able to serve other processes' writes (a read-only opener that
    served nobody would lock every writer out). The handle itself stays read-only.
    A store this user cannot write opens read-only and serves nobody."""
    from ..storage.store import Store

    db = opening.path / DB_FILE
    if opening.read_only and not db.exists():
        raise NotFoundError(f"No graphmem store at '{opening.path}'.")
    sizes = {"buffer_pool_mb": opening.config.buffer_pool_mb, "max_db_gb": opening.config.max_db_gb}
    try:
        return Store(opening.path, read_only=False, model_name=opening.model_name, dim=dim, **sizes)
    except StoreLockedError:
        raise
    except GraphMemError:
        if not opening.read_only or os.access(db, os.W_OK):
            raise
        return Store(opening.path, read_only=True, model_name=opening.model_name, dim=dim, **sizes)


def check_shared_config(
    open_with: Config, asked: Config, path: Path, where: str = "in this process"
) -> None:
    """The rule for another handle on a store already open (here, or a client's call).

    A handle's ``Config`` governs its own calls (recall, the write path). What the handles
    share (the maintenance worker and cluster rebuilds) keeps the settings of the handle that
    opened the store, so a later handle that asks for other shared settings is refused rather
    than silently ignored.
    """
    differ = [f for f in SHARED_CONFIG_FIELDS if getattr(open_with, f) != getattr(asked, f)]
    if differ:
        raise ValidationError(
            f"'{path}' is already open {where} with other shared settings "
            f"({', '.join(differ)}); close the other handles first, or pass the same values."
        )


class Serving:
    """The owner's handles for other processes' calls: one per caller's ``Config`` and
    read-only flag (a read-only client's recalls leave no trace), none counted among the
    store's users, so they never keep it open (``graphmem.remote.server.CallHandles``)."""

    def __init__(self, shared: SharedState, opening: Opening) -> None:
        self._shared, self._opening = shared, opening
        self.path = opening.path
        self._handles: dict[tuple[bool, str], LocalMemory] = {}
        self._lock = threading.Lock()

    def for_call(self, read_only: bool, config: dict[str, Any]) -> LocalMemory:
        key = (read_only, json.dumps(config, sort_keys=True))
        with self._lock:
            handle = self._handles.get(key)
        if handle is not None:
            return handle
        owner = self._shared.config
        # What the caller did not set is Config's default, but the shared settings are the
        # store's (as for a second handle in the owner: one that sets others is refused) and
        # the database's sizes the opener's.
        shared = {f: getattr(owner, f) for f in SHARED_CONFIG_FIELDS}
        opener = {f: getattr(owner, f) for f in OPENER_FIELDS}
        # The Cypher limits the caller leaves are the owner's too (``CEILING_FIELDS``).
        ceilings = {f: getattr(owner, f) for f in CEILING_FIELDS}
        try:
            call_config = Config(**{**shared, **ceilings, **config, **opener})
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise ValidationError(f"The caller's Config is not valid: {exc}") from None
        check_shared_config(owner, call_config, self.path, f"in its owner (process {os.getpid()})")
        # Only what the caller set: a field it left is the owner's (a plain client's default
        # 100,000 rows is no request to raise an owner's 1,000).
        above = [
            f for f in CEILING_FIELDS if f in config and getattr(call_config, f) > getattr(owner, f)
        ]
        if above:
            raise ValidationError(
                "The caller's Config raises limits of the store's owner ("
                + ", ".join(f"{f} {getattr(call_config, f)} > {getattr(owner, f)}" for f in above)
                + "): a client may lower them, not raise them; set them where the store is "
                "opened by its owner."
            )
        handle = _handle(self._shared, self._opening, call_config, read_only)
        with self._lock:
            if len(self._handles) >= MAX_CALL_CONFIGS:
                self._handles.clear()
            return self._handles.setdefault(key, handle)


class Forwarding:
    """Calls forwarded to the owner of a store this process is a client of (a server of many
    stores while another process still holds one): each with its caller's ``Config``."""

    def __init__(self, client: RemoteMemory) -> None:
        self._client = client
        self.path = client.path

    def for_call(self, read_only: bool, config: dict[str, Any]) -> RemoteMemory:
        try:
            asked = Config(**config)
        except ValueError as exc:
            raise ValidationError(f"The caller's Config is not valid: {exc}") from None
        return RemoteMemory(self._client.store, self.path, read_only=read_only, config=asked)


def _listen(shared: SharedState, opening: Opening) -> Listener:
    """Answer other processes on this store's socket."""
    from ..remote import server

    app = server.create_app(Serving(shared, opening), CALLS)
    return server.Listener(app, unix=paths.socket_path(opening.path), store=opening.path)


def serving(backend: MemoryBackend) -> Serving | Forwarding:
    """What answers calls to ``backend``'s store from elsewhere: the owner's handles, or
    (when ``backend`` is a client) the calls forwarded to the owner."""
    from .local import LocalMemory

    if isinstance(backend, LocalMemory):
        return Serving(backend._shared, _opening_of(backend))
    if isinstance(backend, RemoteMemory):
        return Forwarding(backend)
    raise TypeError(f"not a backend: {type(backend).__name__}")


def _opening_of(local: LocalMemory) -> Opening:
    return Opening(
        path=local.path,
        config=local._shared.config,
        model_name=local.model_name,
        model_path=local._model_path,
        embedder=local._embedder,
    )


def serve(backend: MemoryBackend, wrap: Callable[[Any], Any], **listen: Any) -> Listener:
    """Serve a store this process owns with another app (``serve``'s: MCP, TCP): the app
    ``wrap`` makes of the owner's call handles replaces the listener every owner starts
    (clients arriving in between retry). ``listen``: ``graphmem.remote.server.Listener``'s
    ``tcp`` and ``limits``.

    Raises:
        StoreLockedError: another process owns the store.
    """
    from ..remote import server
    from .local import LocalMemory

    if not isinstance(backend, LocalMemory):
        pid = (backend.owner or {}).get("pid")
        raise StoreLockedError(f"'{backend.path}' is already served by process {pid}.")
    shared = backend._shared
    app = wrap(Serving(shared, _opening_of(backend)))
    if shared.listener is not None:
        shared.listener.stop()
    shared.listener = server.Listener(
        app, unix=paths.socket_path(backend.path), store=backend.path, **listen
    )
    return shared.listener


def save_snapshot(backend: MemoryBackend) -> None:
    """Save the mirror of a store this process owns (a no-op when nothing changed, or when
    another process owns the store and saves its own)."""
    from .local import LocalMemory

    if isinstance(backend, LocalMemory):
        backend._shared.save_snapshot()

"""``graphmem serve``: hold a store for other processes until told to stop.

``graphmem.cli`` calls :func:`register` to add it to its group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import click
from starlette.routing import Mount

from .common import open_memory


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise click.BadParameter(f"expected HOST:PORT or PORT, got '{value}'") from None
    if not 0 <= number <= 65535:
        raise click.BadParameter(f"port {number} is out of range")
    return host, number


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option(
        "--tcp",
        metavar="[HOST:]PORT",
        default=None,
        help="Also listen on TCP (for containers): 127.0.0.1 unless HOST says otherwise; "
        "clients must send the token kept in <store>/serve.token (or given in "
        "$GRAPHMEM_SERVE_TOKEN). Config: [serve] tcp.",
    )
    @click.option(
        "--mcp-cypher",
        "mcp_cypher",
        is_flag=True,
        help="Offer the read-only `cypher` tool at /mcp (off by default; it runs in the "
        "Cypher sandbox, never with file access).",
    )
    @click.option(
        "--allow-host",
        "allow_hosts",
        metavar="NAME",
        multiple=True,
        help="A host name TCP clients may send in Host: besides the loopback names and the "
        "address they connect to (for a container reaching the host by a name, e.g. "
        "host.docker.internal). Repeatable. Config: [serve] allow_hosts (comma-separated).",
    )
    @click.option(
        "--idle-exit",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="Stop after this many seconds without a call (what a CLI call leaves behind to "
        "serve the next one; see the linger setting).",
    )
    @click.option("--ready-fd", type=int, default=None, hidden=True)
    @click.option(
        "--stores",
        "stores",
        metavar="DIR",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Serve every store folder under DIR at /s/<name> (RPC at /s/<name>/v1/call, MCP at "
        "/s/<name>/mcp), opening each on first use; TCP only (default 127.0.0.1:8765), token in "
        "DIR/serve.token. -d is not used.",
    )
    @click.option(
        "--create", is_flag=True, help="With --stores: a first write to a missing store creates it."
    )
    @click.option(
        "--max-open",
        type=click.IntRange(1, 100_000),
        default=64,
        show_default=True,
        help="With --stores: stores open at once (the least recently used idle one closes).",
    )
    @click.option(
        "--memory-budget",
        metavar="SIZE",
        default=None,
        help="With --stores: resident memory to stay under, e.g. 4G (idle stores close to make "
        "room; with none idle, a new store is refused as busy).",
    )
    @click.option(
        "--idle",
        "idle_seconds",
        type=click.FloatRange(0.1, None),
        default=300.0,
        show_default=True,
        help="With --stores: seconds unused before a store closes.",
    )
    @click.option(
        "--buffer-pool",
        "buffer_pool",
        metavar="SIZE",
        default="1G",
        show_default=True,
        help="With --stores: Kùzu's page cache per open store (its bookkeeping is resident "
        "whatever is used: Kùzu's default, 80% of RAM, costs ~45 MB per open store).",
    )
    @click.option(
        "--max-store-size",
        "max_store_size",
        metavar="SIZE",
        default="64G",
        show_default=True,
        help="With --stores: the largest a store's database may grow. Kùzu reserves that much "
        "address space per open store (its default, 8 TB, fits about 15 in one process).",
    )
    @click.option(
        "--snapshot-every",
        "snapshot_seconds",
        type=click.FloatRange(0.1, None),
        default=300.0,
        show_default=True,
        help="Seconds between snapshots of a changed open store, so a server that is stopped "
        "or moved leaves a fresh one and the next open is fast.",
    )
    @click.pass_context
    def serve(
        ctx: click.Context,
        tcp: str | None,
        mcp_cypher: bool,
        allow_hosts: tuple[str, ...],
        idle_exit: float | None,
        ready_fd: int | None,
        stores: Path | None,
        create: bool,
        max_open: int,
        memory_budget: str | None,
        idle_seconds: float,
        buffer_pool: str,
        max_store_size: str,
        snapshot_seconds: float,
    ) -> None:
        """Hold the store and answer other processes until SIGINT or SIGTERM.

        Any process that opens a store serves it while it has it open; `serve` is the same,
        as a long-running process of its own (for a team machine, a container or an agent
        host). On SIGINT/SIGTERM it stops answering, flushes maintenance and closes the store.

        Example: graphmem -d ./memory serve --tcp 8765

        In a container setup, listen on all interfaces and name the host as containers see it:
        graphmem serve --tcp 0.0.0.0:8765 --allow-host host.docker.internal

        Many stores, one server: graphmem serve --stores ./stores --tcp 8765 --create
        (clients use -d http://127.0.0.1:8765/s/<name> with GRAPHMEM_TOKEN from
        ./stores/serve.token).
        """
        from .. import paths
        from ..adapters.mcp.tools import streamable_http_app
        from ..errors import GraphMemError
        from ..owner import backends
        from ..remote import server
        from ..remote.calls import CALLS
        from .linger import signal_ready

        tcp = tcp or ctx.obj["settings"]["serve.tcp"].value
        configured = ctx.obj["settings"]["serve.allow_hosts"].value or ""
        hosts = list(allow_hosts) or [h.strip() for h in configured.split(",") if h.strip()]
        if stores is not None:
            from ..adapters import stores_server

            stores_server.run_until_signalled(
                stores_server.Options(
                    root=stores,
                    address=_address(tcp or "127.0.0.1:8765"),
                    model_path=ctx.obj["model_path"],
                    create=create,
                    max_open=max_open,
                    memory_budget=(
                        stores_server.parse_size(memory_budget) if memory_budget else None
                    ),
                    idle_seconds=idle_seconds,
                    snapshot_seconds=snapshot_seconds,
                    allow_hosts=tuple(hosts),
                    allow_cypher=mcp_cypher,
                    buffer_pool_mb=max(16, stores_server.parse_size(buffer_pool) >> 20),
                    max_db_gb=max(1, stores_server.parse_size(max_store_size) >> 30),
                )
            )
            return
        stop = threading.Event()

        def on_signal(signum: int, frame: Any) -> None:
            stop.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        listener = None
        # The owner a CLI call leaves (graphmem.cli.linger starts it with --idle-exit and
        # --ready-fd); one a user starts with --idle-exit is theirs, and no one dismisses it.
        lingering = idle_exit is not None and ready_fd is not None
        if not lingering:
            _dismiss_lingering_owner(ctx)
        mem = open_memory(ctx, create=True, linger=False)
        try:
            address = _address(tcp) if tcp is not None else None
            token = (
                (paths.token_from_env() or paths.token(mem.path, create=True)) if address else None
            )
            mcp = streamable_http_app(
                mem,
                host=address[0] if address else "127.0.0.1",
                allow_cypher=mcp_cypher,
                allowed_hosts=hosts,
            )
            activity = _Activity()

            def app(handles: server.CallHandles) -> Any:
                return activity.wrap(
                    server.create_app(
                        handles,
                        CALLS,
                        token=token,
                        tcp_hosts=server.local_hosts(address[0], hosts) if address else set(),
                        mounts=[Mount("/", app=mcp)],
                        lifespan=_lifespan_of(mcp),
                        lingering=lingering,
                    )
                )

            # The same store, now also with the MCP endpoint and TCP (StoreLockedError when
            # another process owns it).
            listener = backends.serve(mem.backend, app, tcp=address)
            sock = paths.socket_path(mem.path)
            where = [str(sock)]
            if listener.tcp_address is not None:
                host, port = listener.tcp_address
                where.append(f"http://{_url_host(host)}:{port} (MCP at /mcp)")
                where_token = (
                    f"${paths.SERVE_TOKEN_ENV}"
                    if paths.token_from_env()
                    else str(paths.token_path(mem.path))
                )
                click.echo(f"token: {where_token}", err=True)
                if hosts:
                    click.echo(f"allowed hosts: {', '.join(hosts)}", err=True)
            # Plain lines (never wrapped), so scripts can read the address.
            click.echo(f"serving {mem.path} on {' and '.join(where)} (Ctrl-C to stop)", err=True)
            signal_ready(ready_fd)
            ready_fd = None
            # Wait for a signal; the timeout only lets Python run the signal handler promptly.
            snapshot_due = time.monotonic() + snapshot_seconds
            while not stop.wait(timeout=min(1.0, snapshot_seconds)):
                if not listener.alive:
                    # Holding the store unserved would lock every other process out: close it
                    # (by exiting) so the next opener owns it.
                    raise GraphMemError(f"The server of '{mem.path}' stopped; closing the store.")
                if idle_exit is not None and activity.idle_for() >= idle_exit:
                    click.echo(f"no call for {idle_exit:g} s: stopping", err=True)
                    break
                if time.monotonic() >= snapshot_due:
                    # A no-op when nothing changed; a rescheduled server then opens fast.
                    with contextlib.suppress(GraphMemError, OSError):
                        backends.save_snapshot(mem.backend)
                    snapshot_due = time.monotonic() + snapshot_seconds
            click.echo("stopping: finishing calls in flight, flushing maintenance", err=True)
        finally:
            if ready_fd is not None:
                os.close(ready_fd)  # never served: the starter reads the end of the pipe
            mem.close()
            for s, handler in previous.items():
                signal.signal(s, handler)


def _dismiss_lingering_owner(ctx: click.Context) -> None:
    """A CLI call's owner, lingering for the next call (``graphmem.cli.linger``), is asked to go
    (SIGTERM: it finishes its calls and closes the store) so that ``serve`` can own the store:
    ``graphmem import x.jsonl && graphmem serve`` had failed as "already served" for a minute.
    Any other owner stays, and ``serve`` then says who holds the store."""
    from ..config import Config
    from ..owner import backends
    from ..write import validate

    db = ctx.obj["db"]
    if validate.is_url(db):
        return
    folder = Path(db).expanduser()
    client = backends.find_owner(backends.Opening(path=folder, config=Config()))
    if client is None:
        return
    try:
        owner = client.owner
    finally:
        client.close()
    pid = owner.get("pid")
    if owner.get("lingering") is not True or not isinstance(pid, int) or pid == os.getpid():
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGTERM)
    # It answers until it has finished its calls and closed; open_memory then waits for the
    # store's lock as it would for any opener.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and backends.owner_answers(folder):
        time.sleep(0.05)


class _Activity:
    """When the last call ended (an ASGI wrapper around the app), for ``--idle-exit``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = 0
        self._last = time.monotonic()

    def wrap(self, app: Any) -> Any:
        async def wrapped(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            with self._lock:
                self._busy += 1
            try:
                await app(scope, receive, send)
            finally:
                with self._lock:
                    self._busy -= 1
                    self._last = time.monotonic()

        return wrapped

    def idle_for(self) -> float:
        """Seconds since the last call ended (0 while one runs)."""
        with self._lock:
            return 0.0 if self._busy else time.monotonic() - self._last


def _lifespan_of(mounted: Any) -> Any:
    """The mounted app's lifespan, run by the outer app (Starlette runs none of a Mount's)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with mounted.router.lifespan_context(mounted):
            yield

    return lifespan


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host

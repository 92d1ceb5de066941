"""``graphmem serve --stores DIR``: one server answering for every store folder under ``DIR``.

Each store is reached under ``/s/<name>``: the same RPC as a one-store server at
``/s/<name>/v1/call/<method>`` (so ``GraphMemory("http://HOST:PORT/s/<name>", token=...)`` and
``graphmem -d http://HOST:PORT/s/<name> ...`` work unchanged), its health at
``/s/<name>/v1/health``, and MCP (streamable HTTP) at ``/s/<name>/mcp``. Stores open on first
use and close when idle or crowded (``graphmem.adapters.stores.StoreRegistry``). Every request needs
the token in ``DIR/serve.token`` except the two probes an orchestrator sends without one:

- ``GET /v1/health``: the process is alive (liveness); says nothing about the stores.
- ``GET /v1/ready``: 200 when it can open its stores (the folder is there and writable, the
  model is loaded, it is not draining), else 503 (readiness: a router stops sending to it).

``GET /v1/status`` (with the token) lists the open stores, their open times and memory.

On SIGTERM it drains: readiness turns 503, calls in flight finish, every open store writes its
snapshot and closes (releasing its database for the server that takes it next), then it exits.
Several such servers over one shared folder, behind a router hashing on the store name, serve
each store from exactly one of them (docs/scale-out.md, deploy/).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
import click
from anyio.abc import TaskGroup, TaskStatus
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import codec, paths
from ..codec import API
from ..errors import GraphMemError, NotFoundError, ValidationError
from ..remote import server
from ..remote.calls import CALLS
from .stores import StoreProxy, StoreRegistry

if TYPE_CHECKING:
    from ..memory import GraphMemory

PROBES = (f"{API}/health", f"{API}/ready")
# MCP apps kept (one per store recently reached over MCP); each is a few hundred KB of tool
# schemas and a task, so the least recently used idle one goes past this.
MCP_APPS = 256


def create_app(
    registry: StoreRegistry,
    *,
    token: str,
    tcp_hosts: set[str],
    host: str = "127.0.0.1",
    allow_cypher: bool = False,
    max_body: int = server.MAX_BODY,
    mcp_apps: int = MCP_APPS,
) -> ASGIApp:
    """The ASGI app of a server of many stores (see the module's text)."""
    # Calls run in threads; a store's first call also opens it there (seconds for a big one),
    # so more threads than cores keep calls to open stores going meanwhile.
    limiter = anyio.CapacityLimiter(max(4, 2 * (os.cpu_count() or 2)))
    # One Cypher statement at a time per store (its sandbox runs one), waiting outside the
    # call slots: slow statements on one store must not hold every other store's calls up.
    turns: dict[str, anyio.CapacityLimiter] = {}
    mcp = _McpApps(registry, host=host, allow_cypher=allow_cypher, cap=mcp_apps)

    async def status(request: Request) -> Response:
        return JSONResponse(registry.status())

    async def store_health(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            # A missing store answers too where a write may create it (--create): a client
            # connects first, and its first write creates the store.
            exists = _known(registry, name, write=True)
        except GraphMemError as exc:
            return _error(exc)
        opened = name in {s["name"] for s in registry.status()["stores"]}
        body = {"ok": True, "pid": os.getpid(), "store": name, "exists": exists, "open": opened}
        return JSONResponse(body)

    async def store_call(request: Request) -> Response:
        name, method = request.path_params["name"], request.path_params["method"]
        try:
            # A missing store: known here for reads; a write may create it (with --create).
            _known(registry, name, write=CALLS.get(method, True))
        except GraphMemError as exc:
            return _error(exc)
        turn = None
        if method == "cypher":
            if name not in turns and len(turns) >= 4096:
                turns.clear()  # bounded: names are the callers' (a turn in use is kept by it)
            turn = turns.setdefault(name, anyio.CapacityLimiter(1))
        return await server.answer_call(
            request, method, StoreProxy(registry, name), CALLS, limiter, turn
        )

    routes: list[BaseRoute] = [
        Route(f"{API}/status", status, methods=["GET"]),
        Mount(
            "/s/{name}",
            routes=[
                Route(f"{API}/health", store_health, methods=["GET"]),
                Route(f"{API}/call/{{method}}", store_call, methods=["POST"]),
                Mount("/", app=mcp),
            ],
        ),
    ]
    app = Starlette(routes=routes, lifespan=mcp.lifespan)
    guarded = server.Guard(app, token=token, tcp_hosts=tcp_hosts, max_body=max_body)
    return _Probes(guarded, registry)


def _known(registry: StoreRegistry, name: str, *, write: bool) -> bool:
    """Whether store ``name`` exists; a missing one is an error unless a write may create it.

    Raises:
        ValidationError: an invalid name.
        NotFoundError: no such store, and it may not be created here.
    """
    exists = registry.exists(name)
    if not exists and not (registry.create and write):
        raise NotFoundError(
            f"No store '{name}'"
            + (" yet: its first write creates it." if registry.create else " on this server.")
        )
    return exists


def _error(exc: GraphMemError) -> Response:
    status = 404 if isinstance(exc, NotFoundError) else 400
    return JSONResponse({"error": codec.encode_error(exc)}, status_code=status)


class _Probes:
    """Answers the orchestrator's probes (no token: a probe cannot carry one, and they say
    nothing about the stores); everything else goes to the guarded app."""

    def __init__(self, app: ASGIApp, registry: StoreRegistry) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") in PROBES and scope["method"] == "GET":
            if scope["path"] == PROBES[0]:
                response: Response = JSONResponse({"ok": True})
            else:
                ready, why = self.registry.ready()
                response = JSONResponse({"ready": ready, "reason": why}, 200 if ready else 503)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass(eq=False)
class _Mcp:
    app: Starlette
    stop: anyio.Event
    in_flight: int = 0


class _McpApps:
    """One MCP app per store, made on its first MCP request and kept while used.

    Stateless streamable HTTP: no session lives in the server, so an app can be dropped (and a
    store move to another server) without breaking a client. Its tools call a ``StoreProxy``,
    so the app never keeps its store open.
    """

    def __init__(self, registry: StoreRegistry, *, host: str, allow_cypher: bool, cap: int) -> None:
        self.registry = registry
        self.host = host
        self.allow_cypher = allow_cypher
        self.cap = cap
        self._apps: OrderedDict[str, _Mcp] = OrderedDict()
        self._lock = anyio.Lock()
        self._tasks: TaskGroup | None = None

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                for entry in self._apps.values():
                    entry.stop.set()
                self._apps.clear()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path_params"]["name"]
        try:
            _known(self.registry, name, write=True)
            entry = await self._get(name)
        except GraphMemError as exc:
            await _error(exc)(scope, receive, send)
            return
        entry.in_flight += 1
        try:
            await entry.app(scope, receive, send)
        finally:
            entry.in_flight -= 1

    async def _get(self, name: str) -> _Mcp:
        async with self._lock:
            entry = self._apps.get(name)
            if entry is not None:
                self._apps.move_to_end(name)
                return entry
            if self._tasks is None:
                raise GraphMemError("The server is not running.")
            from .mcp.tools import build_server

            # The proxy has GraphMemory's served calls, all the tools use.
            proxy = cast("GraphMemory", StoreProxy(self.registry, name))
            app = build_server(proxy, allow_cypher=self.allow_cypher).streamable_http_app(
                streamable_http_path="/mcp", host=self.host, stateless_http=True
            )
            entry = _Mcp(app, anyio.Event())
            await self._tasks.start(self._run, entry)
            self._apps[name] = entry
            idle = [n for n, e in self._apps.items() if e.in_flight == 0 and n != name]
            for old in idle[: max(0, len(self._apps) - self.cap)]:
                self._apps.pop(old).stop.set()
            return entry

    @staticmethod
    async def _run(entry: _Mcp, *, task_status: TaskStatus[None]) -> None:
        """Run one MCP app's lifespan (its session manager) until it is dropped."""
        async with entry.app.router.lifespan_context(entry.app):
            task_status.started()
            await entry.stop.wait()


# ---------------------------------------------------------------------- the command


def parse_size(value: str) -> int:
    """Bytes from ``1073741824``, ``512M``, ``1.5G`` or ``2GiB``.

    Raises:
        ValidationError: not a size.
    """
    text = value.strip().upper().removesuffix("IB").removesuffix("B")
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    scale = units.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in units else text
    try:
        size = float(number) * scale
    except ValueError:
        raise ValidationError(f"Not a size: '{value}' (for example 512M or 4G)") from None
    if not 0 < size < 1 << 60:
        raise ValidationError(f"Not a size: '{value}' (for example 512M or 4G)")
    return int(size)


@dataclass
class Options:
    """What ``graphmem serve --stores`` was given."""

    root: Path
    address: tuple[str, int]
    model_path: str | None = None
    create: bool = False
    max_open: int = 64
    memory_budget: int | None = None
    idle_seconds: float = 300.0
    snapshot_seconds: float = 300.0
    allow_hosts: tuple[str, ...] = ()
    allow_cypher: bool = False
    # Kùzu's page cache per store: its bookkeeping is resident whatever is used (45 MB per
    # open store at Kùzu's default of 80% of RAM on 24 GB; 4 MB at 1 GB).
    buffer_pool_mb: int = 1024
    # The largest a store's database may grow: Kùzu reserves that much address space per open
    # store (8 TB by default, so a process could hold about 15).
    max_db_gb: int = 64


def serve(options: Options, stop: threading.Event, echo: Callable[[str], None]) -> int:
    """Serve until ``stop`` is set, then drain; returns how many stores the drain closed.

    Raises:
        GraphMemError: the folder, the token or the model is unusable, or the address is taken.
    """
    from ..config import Config
    from ..embed import FastEmbedder
    from ..memory import GraphMemory

    root = options.root.expanduser()
    if not root.is_dir():
        raise NotFoundError(f"No folder of stores at '{root}'.")
    from_env = paths.token_from_env()
    token = from_env or paths.token(root, create=True)
    # One model for every store: loaded before the server says it is ready, so a store's
    # first open is not also the model's.
    embedder = FastEmbedder(model_path=options.model_path)

    config = Config(buffer_pool_mb=options.buffer_pool_mb, max_db_gb=options.max_db_gb)

    def opener(folder: Path) -> GraphMemory:
        return GraphMemory(folder, embedder=embedder, config=config)

    registry = StoreRegistry(
        root,
        opener,
        create=options.create,
        max_open=options.max_open,
        memory_budget=options.memory_budget,
        idle_seconds=options.idle_seconds,
        snapshot_seconds=options.snapshot_seconds,
    )
    host = options.address[0]
    app = create_app(
        registry,
        token=token,
        tcp_hosts=server.local_hosts(host, options.allow_hosts),
        host=host,
        allow_cypher=options.allow_cypher,
    )
    listener = server.Listener(app, tcp=options.address)
    registry.start()
    closed = 0
    try:
        bound_host, port = listener.tcp_address or options.address
        url_host = f"[{bound_host}]" if ":" in bound_host else bound_host
        echo(f"token: {'$' + paths.SERVE_TOKEN_ENV if from_env else paths.token_path(root)}")
        # One plain line (never wrapped), so scripts can read the address.
        echo(
            f"serving stores in {registry.root} on http://{url_host}:{port} "
            f"(RPC at /s/<name>/v1/call/<method>, MCP at /s/<name>/mcp; Ctrl-C to stop)"
        )
        while not stop.wait(timeout=1.0):
            if not listener.alive:
                raise GraphMemError("The server stopped; closing its stores.")
        echo("stopping: finishing calls in flight, writing snapshots, closing stores")
    finally:
        registry.draining = True  # readiness fails at once, before the listener stops
        listener.stop()
        started = time.monotonic()
        closed = registry.close_all()
        echo(f"stopped: {closed} stores closed in {time.monotonic() - started:.1f} s")
    return closed


def run_until_signalled(options: Options) -> None:
    """``serve`` until SIGINT or SIGTERM (the command's body)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        serve(options, stop, lambda line: click.echo(line, err=True))
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


__all__ = ["Options", "create_app", "parse_size", "run_until_signalled", "serve"]

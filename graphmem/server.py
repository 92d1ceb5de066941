"""The holder's server: the process that owns a store answers every other process over HTTP.

Exactly one process owns a store's Kùzu database, its in-memory mirror and its maintenance
queue: the one that opened it read-write (Kùzu's file lock decides, so two racing openers
cannot both win). That process serves the store on a Unix socket next to it
(``graphmem.paths.socket_path``), and every other ``GraphMemory`` on the same store is a
client of it (``graphmem.client``).

The protocol is plain HTTP (Starlette on uvicorn): ``GET /v1/health``, and
``POST /v1/call/<method>`` with ``{"args": [...], "kwargs": {...}}`` encoded by
``graphmem.wire``; the answer is ``{"result": ...}`` or ``{"error": {"type", "message"}}``.
For example::

    curl --unix-socket memory/graphmem.sock -X POST http://graphmem/v1/call/stats -d '{}'

``graphmem serve --tcp HOST:PORT`` adds a TCP listener (for containers) that requires
``Authorization: Bearer <token>``; the MCP endpoint is mounted at ``/mcp`` by ``serve``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from . import idempotency, wire
from .errors import GraphMemError, StoreLockedError
from .wire import API

log = logging.getLogger("graphmem.server")
# Larger bodies are refused before they are read (remember_many sends its items in batches).
MAX_BODY = 64 * 1024 * 1024


def create_app(
    target: Any,
    methods: dict[str, bool],
    *,
    token: str | None = None,
    tcp_hosts: set[str] | None = None,
    mounts: list[BaseRoute] | None = None,
    lifespan: Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]] | None = None,
    reader: Any = None,
) -> ASGIApp:
    """The holder's ASGI app.

    Args:
        target: the object whose methods are served (the holder's ``GraphMemory``).
        reader: the same for calls a read-only client makes (a read-only handle: its recalls
            leave no trace, no access counts nor learned links); ``target`` when not given.
        methods: the method names that may be called.
        token: required from TCP clients; Unix-socket clients are trusted by the socket's
            file mode.
        tcp_hosts: host names a TCP request's ``Host`` may carry (see ``local_hosts``).
        mounts: more routes (the MCP endpoint).
        lifespan: run around the app's life (the MCP session manager needs one).
    """

    # As many calls at once as there are cores: more only thrash (each recall embeds its
    # query on every core), fewer leave a core idle while a call waits on the database.
    limiter = anyio.CapacityLimiter(max(2, os.cpu_count() or 2))

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "pid": os.getpid(), "store": str(target.path)})

    async def call(request: Request) -> Response:
        name = request.path_params["method"]
        if name not in methods:
            return _error(GraphMemError(f"No such call: '{name}'"), 404)
        body = await request.body()
        try:
            payload = json.loads(body or b"{}")
            args = wire.decode(payload.get("args", []))
            kwargs = wire.decode(payload.get("kwargs", {}))
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ValueError("args must be a list and kwargs an object")
            handle = reader if payload.get("read_only") is True and reader is not None else target
            # A client's write carries an id its retry repeats: the owner applies it once.
            request_id = payload.get("request_id")
            if request_id is not None:
                request_id = idempotency.check_id(request_id)
        except (ValueError, AttributeError, TypeError, GraphMemError) as exc:
            return _error(GraphMemError(f"Malformed request: {exc}"), 400)
        try:
            method = functools.partial(getattr(handle, name), *args, **kwargs)
            retry = payload.get("retry") is True
            call = functools.partial(idempotency.run_as, request_id, retry, method)
            result = await anyio.to_thread.run_sync(call, limiter=limiter)
            return JSONResponse({"result": wire.encode(result)})
        except Exception as exc:  # every failure goes back to the caller, typed
            if not isinstance(exc, GraphMemError | TypeError | ValueError | KeyError):
                log.exception("%s failed in the holder", name)
            return _error(exc, 400 if isinstance(exc, GraphMemError) else 500)

    routes: list[BaseRoute] = [
        Route(f"{API}/health", health, methods=["GET"]),
        Route(f"{API}/call/{{method}}", call, methods=["POST"]),
        *(mounts or []),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return _Guard(app, token=token, tcp_hosts=tcp_hosts or set())


def _error(exc: BaseException, status: int) -> Response:
    return JSONResponse({"error": wire.encode_error(exc)}, status_code=status)


class _Guard:
    """Checks every TCP request for the token and a local ``Host``; limits body size.

    Written as plain ASGI rather than Starlette middleware so that it also guards the mounted
    MCP app and its streaming responses, without buffering them.
    """

    def __init__(self, app: ASGIApp, *, token: str | None, tcp_hosts: set[str]) -> None:
        self.app = app
        self.token = token
        self.tcp_hosts = tcp_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            if int(headers.get("content-length") or 0) > MAX_BODY:
                await _send(send, 413, "Request too large")
                return
            # uvicorn reports a Unix-socket connection as (path, None); anything else is
            # network traffic and must show the token.
            server = scope.get("server")
            if not (isinstance(server, tuple | list) and len(server) == 2 and server[1] is None):
                if _hostname(headers.get("host", "")) not in self.tcp_hosts:
                    await _send(send, 403, "Host not allowed")
                    return
                sent = headers.get("authorization", "")
                expected = f"Bearer {self.token}" if self.token else None
                if expected is None or not hmac.compare_digest(sent.encode(), expected.encode()):
                    await _send(send, 401, "A valid token is required")
                    return
        await self.app(scope, receive, send)


def local_hosts(bound: str) -> set[str]:
    """The host names a request to a listener bound to ``bound`` may carry in ``Host``.

    A browser page from another site that resolves its own name to 127.0.0.1 (DNS rebinding)
    sends that name: it is refused.
    """
    return {"127.0.0.1", "localhost", "::1", bound}


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _send(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": {"type": "GraphMemError", "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _Server(uvicorn.Server):
    """uvicorn, stopped by an event rather than by its 0.1 s polling loop, so a store closes
    at once (``main_loop`` is uvicorn's hook for what runs between startup and shutdown)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.ready.set()
        await self._stop.wait()

    def stop(self) -> None:
        self.should_exit = True
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)


class Listener:
    """Serves an app on the store's Unix socket and/or a TCP address, from a daemon thread."""

    def __init__(
        self, app: ASGIApp, *, unix: Path | None = None, tcp: tuple[str, int] | None = None
    ) -> None:
        self.sock_path = unix
        self.tcp_address: tuple[str, int] | None = None
        self._sockets: list[socket.socket] = []
        try:
            if unix is not None:
                self._sockets.append(_unix_socket(unix))
            if tcp is not None:
                self._sockets.append(self._tcp_socket(tcp))
        except BaseException:
            self._close_sockets()
            raise
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="auto",
            timeout_graceful_shutdown=10,
            # Clients keep one connection open between calls.
            timeout_keep_alive=300,
        )
        self._server = _Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": self._sockets},
            name="graphmem-holder",
            daemon=True,
        )
        self._thread.start()
        # Startup is quick (binding is done); a bounded wait so a broken startup cannot hang.
        if not self._server.ready.wait(timeout=30):
            self.stop()
            raise GraphMemError("The store's server did not start.")

    def _tcp_socket(self, address: tuple[str, int]) -> socket.socket:
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
            sock.listen(128)
        except OSError as exc:
            sock.close()
            raise GraphMemError(f"Cannot listen on {address[0]}:{address[1]}: {exc}") from exc
        self.tcp_address = sock.getsockname()[:2]
        return sock

    def _close_sockets(self) -> None:
        for s in self._sockets:
            with contextlib.suppress(OSError):
                s.close()

    def stop(self) -> None:
        """Stop answering (in-flight calls finish first) and remove the socket file."""
        self._server.stop()
        self._thread.join(timeout=30)
        self._close_sockets()
        if self.sock_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.sock_path.unlink()


def _unix_socket(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``, 0600 (its folder is 0700 too).

    The caller holds the store's database lock, so a socket file already there was left by a
    holder that died: it is replaced.
    """
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        path.chmod(0o600)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise StoreLockedError(f"Cannot listen on '{path}': {exc}") from exc
    return sock

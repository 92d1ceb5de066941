"""The owner's server: the process that owns a store answers every other process over HTTP.

Exactly one process owns a store's Kùzu database, its in-memory mirror and its maintenance
queue: the one that opened it read-write (Kùzu's file lock decides, so two racing openers
cannot both win). That process serves the store on a Unix socket next to it
(``graphmem.paths.socket_path``), and every other ``GraphMemory`` on the same store is a
client of it (``graphmem.remote.client``).

The protocol is plain HTTP (Starlette on uvicorn): ``GET /v1/health``, and
``POST /v1/call/<method>`` with ``{"args": [...], "kwargs": {...}}`` encoded by
``graphmem.codec``; the answer is ``{"result": ...}`` or ``{"error": {"type", "message"}}``.
For example::

    curl --unix-socket memory/graphmem.sock -X POST http://graphmem/v1/call/stats -d '{}'

``graphmem serve --tcp HOST:PORT`` adds a TCP listener (for containers) that requires
``Authorization: Bearer <token>``; the MCP endpoint is mounted at ``/mcp`` by ``serve``.

The listener is meant to survive hostile and careless clients (see ``Limits``): a request head
must arrive within seconds and a body within minutes, a body may not exceed ``MAX_BODY`` however
it is framed (``Content-Length`` or chunked), the connections it keeps are capped below the
process's descriptor limit (the least recently used idle one is closed to make room), running out
of descriptors only pauses accepting, and what it logs is rate-limited. A malformed request is
answered 400 with ``{"error": {"type", "message"}}``, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import hmac
import ipaddress
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio
import anyio.to_thread
import h11
import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .. import codec, paths
from ..codec import API
from ..errors import GraphMemError, ServerBusyError, StoreLockedError, ValidationError
from ..write import idempotency

log = logging.getLogger("graphmem.remote.server")
# Larger bodies are refused: before they are read when they say their length, as soon as they
# pass it when chunked (remember_many sends its items in batches, far below this).
MAX_BODY = 64 * 1024 * 1024
# The listener thread's name: the log limit applies to what it logs.
THREAD_NAME = "graphmem-owner"
# Listen queue, and so how many accepts asyncio tries per wake-up: CPython's accept loop retries
# that many times when out of descriptors, logging each (uvicorn's default, 2048, made 2048
# log records a second).
BACKLOG = 128


@dataclass(frozen=True)
class Limits:
    """What one client may hold of the listener (``graphmem.remote.server.Listener``).

    Attributes:
        header_timeout: seconds a connection may take to send a request's line and headers,
            counted from its opening or from the first byte of the request (slowloris).
        body_timeout: seconds a request's body may take to arrive once its head has.
        keep_alive: seconds an idle connection is kept between requests (clients keep one
            open between calls).
        send_timeout: seconds an answer may wait, while writing is paused (the client reads
            nothing and the send buffer is full), without its client reading any of it; then
            the connection is closed. A client that reads, however slowly, keeps it.
        max_connections: connections kept at once; at most half the process's descriptor
            limit. Past it, a connection whose client piles requests up before reading their
            answers, else the least recently used idle one, is closed (its client
            reconnects); with none such, the new one is.
    """

    header_timeout: float = 10.0
    body_timeout: float = 120.0
    send_timeout: float = 60.0
    keep_alive: int = 300
    max_connections: int = 256


@runtime_checkable
class CallHandles(Protocol):
    """What answers an owner's calls: the handle for one caller."""

    @property
    def path(self) -> Path: ...

    def for_call(self, read_only: bool, config: dict[str, Any]) -> object:
        """The handle a call runs on: read-only or not, with the ``Config`` fields the caller
        set (``{}``: it set none).

        Raises:
            ValidationError: those fields are not a valid ``Config``, or differ from the
                settings every handle on the store shares.
        """
        ...


class _Fixed:
    """A plain object's methods, served as they are (tests, tools): it has no ``Config``."""

    def __init__(self, target: Any, reader: Any = None) -> None:
        self.target, self.reader = target, reader
        self.path = Path(str(getattr(target, "path", "")))

    def for_call(self, read_only: bool, config: dict[str, Any]) -> object:
        if config:
            raise ValidationError("This server takes no Config from its callers.")
        return self.reader if read_only and self.reader is not None else self.target


def create_app(
    target: Any,
    methods: dict[str, bool],
    *,
    token: str | None = None,
    tcp_hosts: set[str] | None = None,
    mounts: list[BaseRoute] | None = None,
    lifespan: Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]] | None = None,
    reader: Any = None,
    max_body: int = MAX_BODY,
    lingering: bool = False,
) -> ASGIApp:
    """The owner's ASGI app.

    Args:
        target: what answers the calls: ``CallHandles`` (the owner's: a handle per caller's
            ``Config``, see ``graphmem.owner.backends``), or any object whose methods are
            served as they are.
        reader: with a plain ``target``, the object for calls a read-only client makes (a
            read-only handle: its recalls leave no trace); ``target`` when not given.
        methods: the method names that may be called.
        token: required from TCP clients; Unix-socket clients are trusted by the socket's
            file mode.
        tcp_hosts: host names a TCP request's ``Host`` may carry (see ``local_hosts``);
            the address the connection was made to is accepted too.
        mounts: more routes (the MCP endpoint).
        lifespan: run around the app's life (the MCP session manager needs one).
        max_body: the largest request body, in bytes (413 past it).
        lingering: the owner a CLI call left for the next one (``graphmem.cli.linger``),
            which ``graphmem serve`` may ask to go: said in the health answer.
    """

    # As many calls at once as there are cores: more only thrash (each recall embeds its
    # query on every core), fewer leave a core idle while a call waits on the database.
    limiter = anyio.CapacityLimiter(max(2, os.cpu_count() or 2))
    # The store's Cypher sandbox runs one statement at a time: statements wait their turn
    # here, not in a worker thread, so two slow ones cannot hold every call's place (an attack
    # starved every recall so).
    cypher_turn = anyio.CapacityLimiter(1)
    handles = target if isinstance(target, CallHandles) else _Fixed(target, reader)

    async def health(request: Request) -> Response:
        # The store's full path: a client checks it is the store it means to open.
        answer = {"ok": True, "pid": os.getpid(), "store": str(handles.path.expanduser().resolve())}
        return JSONResponse({**answer, "lingering": True} if lingering else answer)

    async def call(request: Request) -> Response:
        name = request.path_params["method"]
        turn = cypher_turn if name == "cypher" else None
        return await answer_call(request, name, handles, methods, limiter, turn)

    routes: list[BaseRoute] = [
        Route(f"{API}/health", health, methods=["GET"]),
        Route(f"{API}/call/{{method}}", call, methods=["POST"]),
        *(mounts or []),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, token=token, tcp_hosts=tcp_hosts or set(), max_body=max_body)


async def answer_call(
    request: Request,
    name: str,
    handles: CallHandles,
    methods: dict[str, bool],
    limiter: anyio.CapacityLimiter,
    turn: anyio.CapacityLimiter | None = None,
) -> Response:
    """Run one ``POST .../call/<name>`` on the caller's handle (``handles.for_call``) in a
    worker thread, and answer ``{"result"}`` or ``{"error"}``. ``turn``: a limiter the call
    waits on, once its body is in, before it takes a worker thread (Cypher statements take
    turns in the store's sandbox, and a slow upload must not hold the turn).

    Shared by the one-store app (``create_app``) and the many-stores server
    (``graphmem.adapters.stores_server``), whose targets open their store on first use.
    """
    if name not in methods:
        return _error(GraphMemError(f"No such call: '{name}'"), 404)
    # Read into one buffer: request.body() holds the chunks and their join (twice the body).
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
    except ClientDisconnect:  # gone (or cut off by a limit): nobody to answer
        return Response(status_code=400)
    try:
        args, kwargs, read_only, request_id, retry, config = _parse_call(body)
    except ValidationError as exc:
        return _error(exc, 400)
    if name == "cypher" and kwargs.get("files") is not None and not over_socket(request.scope):
        # A folder a network caller names would be a folder of this host, outside the
        # caller's reach on purpose (its keys, other stores' tokens): only a process of this
        # machine, on the owner's private socket, may give one.
        return _error(
            ValidationError(
                "cypher(files=...) is not available over TCP: the folder would be one of the "
                "server's host. Run the statement on that host, or copy the files in and out "
                "another way."
            ),
            400,
        )
    try:
        handle = handles.for_call(read_only, config)
        method = functools.partial(getattr(handle, name), *args, **kwargs)
        call = functools.partial(idempotency.run_as, request_id, retry, method)
        if turn is None:
            result = await anyio.to_thread.run_sync(call, limiter=limiter)
        else:
            async with turn:
                result = await anyio.to_thread.run_sync(call, limiter=limiter)
        return JSONResponse({"result": codec.encode(result)})
    except Exception as exc:  # every failure goes back to the caller, typed
        if not isinstance(exc, GraphMemError | TypeError | ValueError | KeyError):
            log.exception("%s failed in the owner", name)
            return _error(exc, 500)
        if isinstance(exc, ServerBusyError):  # not the caller's fault: try again later
            return _error(exc, 503)
        # The caller's mistake (a wrong keyword or type, a bad value): the wire keeps its
        # class, so the client raises what a local call would.
        return _error(exc, 400)


def _parse_call(
    body: bytes | bytearray,
) -> tuple[list[Any], dict[str, Any], bool, str | None, bool, dict[str, Any]]:
    """A call's ``args``, ``kwargs``, ``read_only``, request id, retry mark and the caller's
    ``Config`` fields from its JSON body (a client's write carries an id its retry repeats:
    the owner applies it once).

    Raises:
        ValidationError: the body is not JSON, not an object of the right shape, nested too
            deeply, or holds a value the wire cannot decode (the message names the problem).
    """
    try:
        payload = json.loads(body or b"{}")
    except RecursionError:  # the C decoder stops at the interpreter's recursion limit
        raise ValidationError(
            f"Malformed request: JSON nested more than {codec.MAX_DEPTH} levels deep"
        ) from None
    except ValueError as exc:  # not JSON, or not UTF-8
        raise ValidationError(f"Malformed request: the body is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise ValidationError(
            f"Malformed request: the body must be a JSON object, not {type(payload).__name__}"
        )
    try:
        args = codec.decode(payload.get("args", []))
        kwargs = codec.decode(payload.get("kwargs", {}))
    except ValidationError as exc:
        raise ValidationError(f"Malformed request: {exc}") from None
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise ValidationError("Malformed request: args must be a list and kwargs an object")
    request_id = payload.get("request_id")
    if request_id is not None:
        try:
            request_id = idempotency.check_id(request_id)
        except GraphMemError as exc:
            raise ValidationError(f"Malformed request: {exc}") from None
    config = payload.get("config") or {}
    if not isinstance(config, dict):
        raise ValidationError("Malformed request: config must be an object")
    read_only, retry = payload.get("read_only") is True, payload.get("retry") is True
    return args, kwargs, read_only, request_id, retry, config


def over_socket(scope: Scope) -> bool:
    """Whether a request came over the owner's Unix socket (uvicorn reports such a connection
    as ``(path, None)``); anything else is network traffic."""
    server = scope.get("server")
    return isinstance(server, tuple | list) and len(server) == 2 and server[1] is None


def _error(exc: BaseException, status: int) -> Response:
    return JSONResponse({"error": codec.encode_error(exc)}, status_code=status)


class Guard:
    """Checks every TCP request for the token and an allowed ``Host``; limits body size.

    Written as plain ASGI rather than Starlette middleware so that it also guards the mounted
    MCP app and its streaming responses, without buffering them.
    """

    def __init__(
        self, app: ASGIApp, *, token: str | None, tcp_hosts: set[str], max_body: int
    ) -> None:
        self.app = app
        self.token = token
        self.tcp_hosts = tcp_hosts
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length", "").strip()
        if length and not length.isdigit():  # h11 refuses these first; said here all the same
            await _send(send, 400, "Malformed request: a bad Content-Length")
            return
        if length and int(length) > self.max_body:
            await _send(send, 413, f"Request too large (more than {self.max_body} bytes)")
            return
        # Network traffic (not the Unix socket: ``over_socket``) must show the token.
        server = scope.get("server")
        if not over_socket(scope):
            host = _hostname(headers.get("host", ""))
            # The address the peer connected to, named as such, cannot be a DNS-rebinding
            # page (that one sends its own domain name): a container peer using the host's IP.
            if host not in self.tcp_hosts and not (server and host == _hostname(server[0])):
                await _send(
                    send,
                    403,
                    f"Host '{host}' not allowed: name it with graphmem serve --allow-host",
                )
                return
            if not self._authorized(headers.get("authorization", "")):
                await _send(
                    send,
                    401,
                    "A valid token is required: send 'Authorization: Bearer <token>'",
                    [(b"www-authenticate", b'Bearer realm="graphmem"')],
                )
                return
        await self._limited(scope, receive, send)

    def _authorized(self, sent: str) -> bool:
        scheme, _, value = sent.strip().partition(" ")
        if self.token is None or scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(value.strip().encode(), self.token.encode())

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app with its body cut off at ``max_body`` bytes however it is framed (a
        chunked body says no length): past it, the client gets 413 and the app a disconnect."""
        received = 0
        started = refused = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    if not started and not refused:
                        refused = True
                        await _send(
                            send, 413, f"Request too large (more than {self.max_body} bytes)"
                        )
                    return {"type": "http.disconnect"}
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if refused:  # the 413 is the answer; whatever the app says next is dropped
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except Exception:
            if not refused:  # the app's failure on the cut-off body is expected
                raise


def local_hosts(bound: str, allowed: Iterable[str] = ()) -> set[str]:
    """The host names a request to a listener bound to ``bound`` may carry in ``Host``.

    A browser page from another site that resolves its own name to this machine (DNS
    rebinding) sends that name: it is refused unless ``allowed`` names it (``graphmem serve
    --allow-host``, for a container that reaches the host as ``host.docker.internal``).
    """
    return {"127.0.0.1", "localhost", "::1", bound, *(_hostname(h) for h in allowed)}


def _hostname(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    with contextlib.suppress(ValueError):  # one spelling per address (::ffff:a.b.c.d, ::1)
        address = ipaddress.ip_address(name)
        mapped = getattr(address, "ipv4_mapped", None)
        return str(mapped or address)
    return name


async def _send(
    send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"error": {"type": "GraphMemError", "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            # Closed after: the request's body (if any) is left unread.
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the limits of ``Limits`` (``limits``, set per listener).

    uvicorn has no request-head or body timeout (its keep-alive timer runs only between
    requests, and any byte cancels it, so one byte every few seconds holds a connection
    forever), and its ``limit_concurrency`` answers 503 to requests while every idle
    connection keeps its descriptor: the deadlines and the cap are added here. The timers
    follow h11's view of the request: IDLE (waiting for a head), SEND_BODY, then DONE.
    """

    limits = Limits()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.last_used = self.loop.time()
        self.dropped = False
        self.pipelined = False
        self._phase: Any = None
        self._deadline: asyncio.TimerHandle | None = None
        self._unread: asyncio.TimerHandle | None = None
        self._unsent = 0
        self._arm(h11.IDLE, self.limits.header_timeout)
        self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._read_again()
        super().connection_lost(exc)

    # A client that reads none of its answers (a pipelining one, or a slow reader) fills the
    # send buffer: the transport pauses writing. Unbounded, such connections were never
    # closed and held every place (an attack locked everyone out so, and grew the owner by
    # their unsent answers): the answer gets ``send_timeout`` to be read.
    def pause_writing(self) -> None:
        super().pause_writing()
        if self._unread is None:
            self._unsent = self.transport.get_write_buffer_size()
            self._unread = self.loop.call_later(self.limits.send_timeout, self._unread_expired)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._read_again()

    def _read_again(self) -> None:
        if self._unread is not None:
            self._unread.cancel()
            self._unread = None

    def _unread_expired(self) -> None:
        unsent = self.transport.get_write_buffer_size()
        if unsent < self._unsent:
            # The client reads, slowly (a big answer on a slow link): it gets another while.
            self._unsent = unsent
            self._unread = self.loop.call_later(self.limits.send_timeout, self._unread_expired)
            return
        log.warning("A client read nothing of its answer for a while: its connection is closed.")
        self.drop()

    def stuck(self) -> bool:
        """Its client piles requests up before reading their answers (graphmem's clients send
        one call at a time): the first connection to go when room is short."""
        return not self.dropped and self.pipelined

    def data_received(self, data: bytes) -> None:
        self.last_used = self.loop.time()
        super().data_received(data)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE) and self.conn.trailing_data[0]:
            # The next request sent before this one's answer: graphmem's clients send one call
            # at a time, so this is a client piling requests up, first to go when room is short.
            self.pipelined = True
        state = self.conn.their_state
        if state is h11.IDLE:  # a request head has begun (a partial one stays IDLE)
            self._arm(state, self.limits.header_timeout)
        elif state is h11.SEND_BODY:
            self._arm(state, self.limits.body_timeout)
        else:  # the whole request is in (or the connection is ending): the app's turn
            self._disarm()

    def on_response_complete(self) -> None:
        self.last_used = self.loop.time()
        super().on_response_complete()

    def idle(self) -> bool:
        """No request in hand: between requests, or partway through a request's head, and
        nothing of an answer left to send (uvicorn hands a body to the transport whole: h11
        is done with it while the transport still sends it)."""
        return (
            not self.dropped
            and self.conn.their_state is h11.IDLE
            and self.conn.our_state is h11.IDLE
            and (self.cycle is None or self.cycle.response_complete)
            and not self.transport.get_write_buffer_size()
        )

    def drop(self) -> None:
        """Close the connection (its client reconnects on its next call). One whose client
        reads nothing is aborted: closing would wait for its unsent answers to be read."""
        # Closing would first wait for unsent answers to be read.
        unsent = self._unread is not None or self.pipelined
        self.dropped = True
        self._disarm()
        self._read_again()
        if unsent:
            self.transport.abort()
        else:
            self.transport.close()

    def _arm(self, phase: Any, seconds: float) -> None:
        if self._phase is phase and self._deadline is not None:
            return  # already counting down for this phase: more bytes do not extend it
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._phase = None, None

    def _expired(self) -> None:
        self._deadline = None
        log.warning("A client took too long to send its request: its connection is closed.")
        self.drop()

    def _make_room(self) -> None:
        """Keep the open connections under the cap and clear of the descriptor limit."""
        soft = _descriptor_limit()
        cap = min(self.limits.max_connections, max(4, soft // 2))
        # Descriptors are allocated lowest first, so a high one means that many are in use.
        sock = self.transport.get_extra_info("socket")
        crowded = sock is not None and sock.fileno() >= soft - max(8, soft // 8)
        peers = [c for c in self.connections if isinstance(c, _Protocol) and c is not self]
        peers = [c for c in peers if not c.dropped]
        need = max(len(peers) + 1 - cap, 1 if crowded else 0)
        if need <= 0:
            return
        # A connection whose client reads nothing or piles requests up goes first, then the
        # idle ones.
        idle = sorted(
            (c for c in peers if c.stuck() or c.idle()),
            key=lambda c: (not c.stuck(), c.last_used),
        )[:need]
        for peer in idle:
            peer.drop()
        if len(idle) < need:  # every other connection is busy: this one waits its turn
            log.warning("Too many connections to the store's server: a new one is closed.")
            self.drop()


def _descriptor_limit() -> int:
    """The process's soft limit on open descriptors (read each time: it can change)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 1 << 20
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if 0 < soft < (1 << 20) else 1 << 20


class _LogLimit(logging.Filter):
    """At most one record per ``interval`` seconds of each message the listener thread logs;
    the next one says how many were left out (out of descriptors, asyncio retries accepting
    and logs every retry: 247 MB of log in 50 s).

    Messages are told apart by their template, not their arguments, so a client cannot vary
    them to get through.
    """

    def __init__(self, interval: float = 60.0) -> None:
        super().__init__()
        self.interval = interval
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not (record.threadName or "").startswith(THREAD_NAME):
            return True
        key = (record.name, str(record.msg))
        now = time.monotonic()
        with self._lock:
            last, hidden = self._seen.get(key, (None, 0))
            if last is not None and now - last < self.interval:
                self._seen[key] = (last, hidden + 1)
                return False
            self._seen[key] = (now, 0)
        if hidden:
            record.msg = f"{record.msg} [{hidden} more like this not shown]"
        return True


LOG_LIMIT = _LogLimit()
# Errors that mean "out of descriptors or memory" when accepting: asyncio stops accepting for a
# second and tries again; closing idle connections meanwhile frees descriptors for the retry.
_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class _Server(uvicorn.Server):
    """uvicorn, stopped by an event rather than by its 0.1 s polling loop, so a store closes
    at once (``main_loop`` is uvicorn's hook for what runs between startup and shutdown)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self._loop_error)
        await super().startup(sockets=sockets)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """What the event loop cannot handle itself, logged without ever raising.

        asyncio's own handler logged through a handler that, out of descriptors, could not
        import what it needed to format a traceback: the exception escaped the accept loop and
        ended the listener thread for good (every other process then got StoreLockedError).
        """
        try:
            exc = context.get("exception")
            if isinstance(exc, OSError) and exc.errno in _OUT_OF_RESOURCES:
                for connection in list(self.server_state.connections):
                    if isinstance(connection, _Protocol) and connection.idle():
                        connection.drop()
            log.warning("The store's server: %s (%r)", context.get("message"), exc)
        except Exception:  # nothing can be logged; the loop must go on
            pass

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.ready.set()
        await self._stop.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown, without its fixed 0.1 s pause when no connection is open.

        uvicorn asks open connections to finish and then sleeps 0.1 s before waiting for
        them, even when there are none: every store close (each CLI call, each test) paid it.
        With a connection or a task in flight, uvicorn's own shutdown runs unchanged.
        """
        state = self.server_state
        if state.connections or state.tasks:
            await super().shutdown(sockets=sockets)
            return
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()

    def stop(self) -> None:
        self.should_exit = True
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)


class Listener:
    """Serves an app on the store's Unix socket and/or a TCP address, from a daemon thread.

    ``limits`` bounds what clients may hold (see ``Limits``).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        unix: Path | None = None,
        tcp: tuple[str, int] | None = None,
        limits: Limits | None = None,
        store: Path | None = None,
    ) -> None:
        """``store``: the store folder whose socket ``unix`` is; where the socket is elsewhere
        (a long store path), it is named in the folder while this listens
        (``paths.point_to_socket``)."""
        self.sock_path = unix
        self._pointer: Path | None = None
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
        limits = limits or Limits()
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="auto",
            timeout_graceful_shutdown=10,
            # Clients keep one connection open between calls.
            timeout_keep_alive=limits.keep_alive,
            http=type("Protocol", (_Protocol,), {"limits": limits}),
            # Request heads are capped by h11 (16 KiB, said here so it stays so); nothing here
            # speaks WebSocket, so an upgrade is an ordinary (refused) request.
            h11_max_incomplete_event_size=16 * 1024,
            ws="none",
            backlog=BACKLOG,
        )
        # After uvicorn's Config, which (re)configures its loggers.
        for name in ("uvicorn.error", log.name):
            logger = logging.getLogger(name)
            if LOG_LIMIT not in logger.filters:
                logger.addFilter(LOG_LIMIT)
        self._server = _Server(config)
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self._thread.start()
        # Startup is quick (binding is done); a bounded wait so a broken startup cannot hang.
        if not self._server.ready.wait(timeout=30):
            self.stop()
            raise GraphMemError("The store's server did not start.")
        if store is not None and unix is not None:
            self._pointer = paths.point_to_socket(store, unix)

    def _run(self) -> None:
        try:
            self._server.run(sockets=self._sockets)
        except BaseException:
            with contextlib.suppress(Exception):
                log.exception("The store's server stopped")

    @property
    def alive(self) -> bool:
        """Whether the listener's thread is still serving."""
        return self._thread.is_alive()

    def _tcp_socket(self, address: tuple[str, int]) -> socket.socket:
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
            sock.listen(BACKLOG)
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
            if self._pointer is not None:
                paths.unpoint_socket(self._pointer, self.sock_path)
            with contextlib.suppress(FileNotFoundError):
                self.sock_path.unlink()


def _unix_socket(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``, 0600 (its folder is 0700 too).

    The caller holds the store's database lock, so a socket file already there was left by a
    owner that died: it is replaced.
    """
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        path.chmod(0o600)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise StoreLockedError(f"Cannot listen on '{path}': {exc}") from exc
    return sock

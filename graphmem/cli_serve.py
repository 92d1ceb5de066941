"""``graphmem serve``: hold a store for other processes until told to stop.

``graphmem.cli`` calls :func:`register` to add it to its group.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import click

from .cli_common import _open, err


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
        "clients must send the token kept in <store>/serve.token.",
    )
    @click.pass_context
    def serve(ctx: click.Context, tcp: str | None) -> None:
        """Hold the store and answer other processes until SIGINT or SIGTERM.

        Any process that opens a store serves it while it has it open; `serve` is the same,
        as a long-running process of its own (for a team machine, a container or an agent
        host). On SIGINT/SIGTERM it stops answering, flushes maintenance and closes the store.

        Example: graphmem -d ./memory serve --tcp 8765
        """
        from . import endpoint, server
        from .errors import StoreLockedError

        stop = threading.Event()

        def on_signal(signum: int, frame: Any) -> None:
            stop.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        tcp_listener = None
        mem = _open(ctx, create=True)
        try:
            if mem.holder is not None:
                raise StoreLockedError(
                    f"'{mem.path}' is already served by process {mem.holder.get('pid')}."
                )
            where = [str(endpoint.socket_path(mem.path))]
            if tcp is not None:
                host, port = _address(tcp)
                token = endpoint.token(mem.path, create=True)
                app = server.create_app(
                    mem._serving_handle(mem._shared),
                    _served(),
                    token=token,
                    tcp_hosts=server.local_hosts(host),
                )
                tcp_listener = server.Listener(app, tcp=(host, port))
                bound_host, bound_port = tcp_listener.tcp_address or (host, port)
                where.append(f"http://{_url_host(bound_host)}:{bound_port}")
                err.print(f"token: {endpoint.token_path(mem.path)}")
            err.print(f"serving {mem.path} on {' and '.join(where)} (Ctrl-C to stop)")
            # Wait for a signal; the timeout only lets Python run the signal handler promptly.
            while not stop.wait(timeout=1.0):
                pass
            err.print("stopping: finishing calls in flight, flushing maintenance")
        finally:
            if tcp_listener is not None:
                tcp_listener.stop()
            mem.close()
            for s, handler in previous.items():
                signal.signal(s, handler)


def _served() -> dict[str, bool]:
    from .memory import SERVED

    return SERVED


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host

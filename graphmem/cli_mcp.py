"""The ``graphmem mcp`` command: the store as an MCP server over stdio.

``graphmem.cli`` calls :func:`register` to add it to its group.
"""

from __future__ import annotations

import contextlib
import sys

import click

from .cli_common import _open, err


def register(cli: click.Group) -> None:
    """Add the ``mcp`` command to the ``graphmem`` group."""

    @cli.command()
    @click.option(
        "--tools",
        type=click.Choice(["graphmem", "server-memory"]),
        default="graphmem",
        show_default=True,
        help="graphmem's own tools, or the nine tools of @modelcontextprotocol/server-memory "
        "(a drop-in for the reference memory server).",
    )
    @click.pass_context
    def mcp(ctx: click.Context, tools: str) -> None:
        """Serve the store to an MCP client over stdio (the client starts this command).

        stdout carries only the protocol; logs go to stderr.

        Example: graphmem -d ./memory mcp --tools server-memory
        """
        if tools == "server-memory":
            from .mcp_memory import build_memory_server as build_server
        else:
            from .mcp_server import build_server

        # stdout is the protocol channel: anything printed while the store opens would break it.
        with contextlib.redirect_stdout(sys.stderr):
            mem = _open(ctx, create=True)
        with mem:
            try:
                build_server(mem).run("stdio")
            except KeyboardInterrupt:
                err.print("stopped")

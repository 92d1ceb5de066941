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
    @click.pass_context
    def mcp(ctx: click.Context) -> None:
        """Serve the store to an MCP client over stdio (the client starts this command).

        stdout carries only the protocol; logs go to stderr.

        Example: graphmem -d ./memory mcp
        """
        from .mcp_server import build_server

        # stdout is the protocol channel: anything printed while the store opens would break it.
        with contextlib.redirect_stdout(sys.stderr):
            mem = _open(ctx, create=True)
        with mem:
            try:
                build_server(mem).run("stdio")
            except KeyboardInterrupt:
                err.print("stopped")

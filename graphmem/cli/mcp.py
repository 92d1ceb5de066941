"""The ``graphmem mcp`` command: the store as an MCP server over stdio.

``graphmem.cli`` calls :func:`register` to add it to its group.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click

from ..errors import ValidationError
from .common import err, open_memory

TOOL_SETS = ("graphmem", "server-memory")


def register(cli: click.Group) -> None:
    """Add the ``mcp`` command to the ``graphmem`` group."""

    @cli.command()
    @click.option(
        "--tools",
        type=click.Choice(TOOL_SETS),
        default=None,
        help="graphmem's own tools (the default), or the nine tools of "
        "@modelcontextprotocol/server-memory (a drop-in for the reference memory server). "
        "Config: [mcp] tools.",
    )
    @click.option(
        "--cypher",
        "allow_cypher",
        is_flag=True,
        help="Offer the read-only `cypher` tool (off by default: least privilege for an agent "
        "that may be steered by a prompt injection). It runs in the Cypher sandbox, never with "
        "file access.",
    )
    @click.pass_context
    def mcp(ctx: click.Context, tools: str | None, allow_cypher: bool) -> None:
        """Serve the store to an MCP client over stdio (the client starts this command).

        stdout carries only the protocol; logs go to stderr.

        Example: graphmem -d ./memory mcp --tools server-memory
        """
        tools = tools or ctx.obj["settings"]["mcp.tools"].value
        if tools not in TOOL_SETS:
            raise ValidationError(f"mcp.tools must be one of {', '.join(TOOL_SETS)}; got {tools!r}")
        if tools == "server-memory":
            if allow_cypher:
                raise ValidationError("--cypher is for graphmem's own tools, not server-memory")
            from ..adapters.mcp import memory_file
            from ..adapters.mcp.kg import KnowledgeGraph
            from ..adapters.mcp.memory_server import build_memory_server

            # The reference's MEMORY_FILE_PATH: its file is the graph (graphmem.adapters.mcp.memory_file),
            # and the store lives beside it unless the user named one.
            path = memory_file.from_env()
            if path is not None and ctx.obj["settings"]["db"].source == "default":
                ctx.obj["db"] = str(memory_file.store_beside(path))

            def build_server(mem: Any) -> Any:
                if path is None:
                    return build_memory_server(mem)
                file = memory_file.MemoryFile(KnowledgeGraph(mem), path)
                changed = file.open()
                if changed:
                    err.print(f"{memory_file.ENV}: read {path}: {changed}")
                return build_memory_server(mem, file)
        else:
            from ..adapters.mcp.tools import build_server as build_graphmem

            def build_server(mem: Any) -> Any:
                return build_graphmem(mem, allow_cypher=allow_cypher)

        # stdout is the protocol channel: anything printed while the store opens would break it.
        with contextlib.redirect_stdout(sys.stderr):
            mem = open_memory(ctx, create=True, linger=False)
        with mem:
            with contextlib.redirect_stdout(sys.stderr):
                server = build_server(mem)
            try:
                server.run("stdio")
            except KeyboardInterrupt:
                err.print("stopped")

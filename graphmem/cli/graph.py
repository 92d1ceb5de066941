"""CLI commands for looking at the graph: ``schema``, ``explain``, ``export`` and ``viz``.

``graphmem.cli`` calls :func:`register` to add them to its group.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..export.explain import recall_tree
from ..export.formats import FORMATS, csv_paths, format_for
from ..models import KINDS
from ..private import write_private
from .common import dump, err, hits_json, json_option, open_memory, out, recall_options
from .console import schema_tables


def _graph_filters(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The filters of ``to_networkx`` as options (shared by export and viz)."""
    for option in reversed(
        [
            click.option(
                "--all", "include_inactive", is_flag=True, help="Include inactive memories."
            ),
            click.option("-k", "--kind", "kinds", multiple=True, type=click.Choice(KINDS)),
            click.option("-t", "--tag", "tags", multiple=True, help="Memories with this tag."),
            click.option(
                "--around",
                multiple=True,
                help="Only the neighbourhood of this memory id (repeatable).",
            ),
            click.option(
                "--depth",
                type=int,
                default=1,
                show_default=True,
                help="Hops for --around (a tag or cluster is one hop).",
            ),
            click.option(
                "--embeddings", is_flag=True, help="Include embeddings (space-separated)."
            ),
        ]
    ):
        fn = option(fn)
    return fn


class _Octal(click.ParamType):
    """Permission bits written in octal, as chmod takes them (``600``, ``0o644``)."""

    name = "OCTAL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        try:
            mode = int(str(value).removeprefix("0o"), 8)
        except ValueError:
            self.fail(f"expected octal permission bits such as 600, got {value!r}", param, ctx)
        if not 0 <= mode <= 0o777:
            self.fail(f"permission bits go from 000 to 777, got {value!r}", param, ctx)
        return mode


_mode_option = click.option(
    "--mode", type=_Octal(), default="600", show_default=True,
    help="Permission bits of the files written (they hold your memories: only you can read "
    "them unless you say otherwise).",
)  # fmt: skip


def _filters(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "include_inactive": options["include_inactive"],
        "kinds": list(options["kinds"]) or None,
        "tags": list(options["tags"]) or None,
        "around": list(options["around"]) or None,
        "depth": options["depth"],
        "embeddings": options["embeddings"],
    }


def register(cli: click.Group) -> None:
    """Add the graph commands to the ``graphmem`` group."""

    @cli.command()
    @json_option
    @click.pass_context
    def schema(ctx: click.Context, as_json: bool) -> None:
        """Node and relationship tables with their properties.

        Example: graphmem schema
        """
        with open_memory(ctx, read_only=True) as mem:
            data = mem.schema()
        if as_json:
            dump(data)
            return
        for table in schema_tables(data):
            out.print(table)

    @cli.command()
    @click.argument("context")
    @recall_options
    @json_option
    @click.pass_context
    def explain(ctx: click.Context, context: str, as_json: bool, kinds: tuple, tags: tuple,
                **options: Any) -> None:  # fmt: skip
        """Recall for CONTEXT shown as a tree of paths (seed → edge → memory) with scores.

        Example: graphmem explain "who reviews auth changes?" -n 5
        """
        with open_memory(ctx) as mem:
            # Inspection reads only: explaining a recall must not change what it explains.
            hits = mem.recall(
                context, kinds=list(kinds) or None, tags=list(tags) or None, learn=False,
                **options,
            )  # fmt: skip
        if as_json:
            dump({"context": context, "recall_id": hits.recall_id, "hits": hits_json(hits)})
            return
        out.print(recall_tree(context, hits))

    @cli.command(name="export")
    @click.option(
        "-f", "--format", "fmt", type=click.Choice([*FORMATS, "mcp-memory"]), default=None,
        help="Default: from the file's suffix.",
    )  # fmt: skip
    @click.option(
        "-o", "--output", "path", required=True,
        type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
        help="The file to write; '-' writes to stdout (format json unless -f says otherwise).",
    )  # fmt: skip
    @_mode_option
    @_graph_filters
    @click.pass_context
    def export_(ctx: click.Context, fmt: str | None, path: Path, mode: int,
                **options: Any) -> None:  # fmt: skip
        """Write the memory graph to a file: graphml, gexf, json (node-link), cytoscape, dot
        or csv (PATH-nodes.csv and PATH-edges.csv). Active memories only unless --all.
        mcp-memory writes the knowledge graph (entities, observations, relations) as the
        memory.jsonl of @modelcontextprotocol/server-memory.

        Example: graphmem export -o graph.graphml --tag billing-api
        """
        if str(path) == "-":
            _export_stdout(ctx, fmt or "json", options)
            return
        if fmt == "mcp-memory":
            from ..adapters.mcp.kg import KnowledgeGraph

            with open_memory(ctx, read_only=True) as mem:
                counts = KnowledgeGraph(mem).export_jsonl(path, mode=mode)
            click.echo(
                f"Wrote {counts['entities']} entities and {counts['relations']} relations "
                f"(mcp-memory) to {path}"
            )
            return
        from ..export.graph import export

        fmt = format_for(path, fmt)
        with open_memory(ctx, read_only=True) as mem:
            G = mem.to_networkx(**_filters(options))
        written = export(G, path, fmt, mode=mode)
        if fmt == "csv":
            written = list(csv_paths(path))
        click.echo(
            f"Wrote {G.number_of_nodes()} nodes and {G.number_of_edges()} edges ({fmt}) to "
            + ", ".join(str(p) for p in written)
        )

    @cli.command()
    @click.option(
        "-o", "--output", "path", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="Write the page to this HTML file.",
    )  # fmt: skip
    @click.option(
        "--serve", is_flag=True,
        help="Serve the page on 127.0.0.1 until Ctrl-C, to whoever shows the secret in the "
        "printed address (or the store's serve.token).",
    )  # fmt: skip
    @click.option("--port", type=int, default=0, help="Port for --serve (default: a free one).")
    @click.option("--recall", "context", default=None, help="Highlight what recall finds.")
    @click.option("-n", "--limit", default=10, show_default=True, help="Hits for --recall.")
    @click.option("--title", default="graphmem", show_default=True)
    @click.option(
        "--overview-above", type=click.IntRange(0), default=None,
        help="Open as a cluster/tag overview above this many nodes (default 300; setting "
        "viz.overview_above).",
    )  # fmt: skip
    @click.option(
        "--embed-max", type=click.IntRange(1), default=2000, show_default=True,
        help="Memories the page holds whole. Above that it holds the clusters and tags with "
        "their counts and a sample of members; with --serve it loads members on demand.",
    )  # fmt: skip
    @_mode_option
    @_graph_filters
    @click.pass_context
    def viz(ctx: click.Context, path: Path | None, serve: bool, port: int, context: str | None,
            limit: int, title: str, overview_above: int | None, embed_max: int, mode: int,
            **options: Any) -> None:  # fmt: skip
        """An interactive page of the memory graph (one self-contained HTML file).

        Above --overview-above nodes it opens as an overview of clusters and tags, sized by
        their active memories; a click on one draws its members.

        Example: graphmem viz -o graph.html --recall "how do I deploy billing?"
        """
        from ..export import viz as viz_mod

        if path is None and not serve:
            raise click.UsageError("Give -o PATH to write the page, or --serve to serve it.")
        filters = _filters(options)
        if overview_above is None:
            overview_above = int(ctx.obj["settings"]["viz.overview_above"].value)
        pages = _VizPages(filters, context, limit, title, overview_above, embed_max)

        # Recall logs an access, so it needs the store writable.
        with open_memory(ctx, read_only=context is None) as mem:
            if path is not None:
                html, summary = pages.page(mem, served=False)
                write_private(path, html, perm=mode)
                click.echo(f"Wrote {path} ({summary})")
            if not serve:
                return
            # Each request draws the page anew through the store's owner (this process, or
            # the one other processes reach it through): a reload shows new memories. Only
            # requests with a secret get it: the printed URL's, or the store's serve token.
            server, url = viz_mod.serve(
                lambda: pages.page(mem, served=True)[0], host="127.0.0.1", port=port,
                members=lambda group, offset: pages.members(mem, group, offset),
                token=_serve_token(mem.path),
            )  # fmt: skip
            click.echo(f"Serving {url} (Ctrl-C to stop)")
            _serve_until_signalled(server)


def _export_stdout(ctx: click.Context, fmt: str, options: dict[str, Any]) -> None:
    """``export -o -``: the file's bytes on stdout (nothing is left on disk)."""
    import tempfile

    from ..errors import ValidationError

    if fmt == "csv":
        raise ValidationError("csv writes two files (nodes and edges): give -o PATH, not -")
    stdout = sys.stdout.buffer
    if fmt == "mcp-memory":
        from ..adapters.mcp.kg import KnowledgeGraph, dumps_jsonl

        with open_memory(ctx, read_only=True) as mem:
            text = dumps_jsonl(KnowledgeGraph(mem).read_graph())
        stdout.write(text.encode("utf-8"))
        stdout.flush()
        return
    from ..export.graph import export

    with open_memory(ctx, read_only=True) as mem:
        G = mem.to_networkx(**_filters(options))
    # The writers (networkx's among them) write files: one in a private temporary folder.
    with tempfile.TemporaryDirectory() as folder:
        (written,) = export(G, Path(folder) / f"graph.{fmt}", fmt)
        stdout.write(written.read_bytes())
    stdout.flush()


def _serve_until_signalled(server: Any) -> None:
    """Serve until SIGINT or SIGTERM (as ``graphmem serve`` does), then stop cleanly: the
    server is shut down and closed, and the store closed by the caller's ``with``.

    The server runs in a thread: ``shutdown()`` waits for ``serve_forever`` to return, so it
    cannot be called from a signal handler on the thread that runs it. Both handlers are set
    whatever was inherited (a job started with SIGINT ignored still stops on it and on SIGTERM).
    """
    import signal
    import threading

    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    thread = threading.Thread(target=server.serve_forever, name="graphmem-viz", daemon=True)
    thread.start()
    try:
        # The timeout only lets Python run the signal handler promptly.
        while not stop.wait(timeout=1.0) and thread.is_alive():
            pass
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
        for s, handler in previous.items():
            signal.signal(s, handler)
    err.print("stopped")


def _serve_token(store: Path) -> str | None:
    """The store's serve token (made if there is none), or None when it cannot be had: the
    page then opens with the printed URL's secret only."""
    from .. import paths
    from ..errors import GraphMemError

    try:
        return paths.token(store, create=True)
    except (GraphMemError, OSError):
        return None


class _VizPages:
    """The pages ``graphmem viz`` draws: the whole graph, or above ``embed_max`` memories the
    overview of ``graphmem.export.vizdata`` (a sample of members in a file; members on demand when
    served)."""

    def __init__(self, filters: dict[str, Any], context: str | None, limit: int, title: str,
                 overview_above: int, embed_max: int) -> None:  # fmt: skip
        self.filters, self.context, self.limit, self.title = filters, context, limit, title
        self.overview_above, self.embed_max = overview_above, embed_max
        # The overview's filters; --around always gives the whole (small) neighbourhood.
        self.scope = {k: filters[k] for k in ("include_inactive", "kinds", "tags")}
        self.drawn_tags: list[str] = []

    def page(self, mem: Any, *, served: bool) -> tuple[str, str]:
        """The HTML and a one-line summary of what it holds."""
        import networkx as nx

        from ..export import viz as viz_mod
        from ..export import vizdata
        from ..export.graph import graph_for_viz

        hits = (  # drawing a recall must not change the graph it draws
            mem.recall(self.context, limit=self.limit, learn=False)
            if self.context is not None
            else None
        )
        big = not self.filters["around"] and vizdata.count(mem, **self.scope) > self.embed_max
        if big:
            data = vizdata.overview(
                mem, sample=0 if served else self.embed_max,
                hit_ids=[h.memory.id for h in hits or []], **self.scope,
            )  # fmt: skip
            recall = graph_for_viz(nx.MultiDiGraph(), hits, self.context)["recall"]
            data.update(title=self.title, recall=recall)
            self.drawn_tags = [n["label"] for n in data["nodes"] if n["type"] == "tag"]
            held = sum(1 for n in data["nodes"] if n["type"] == "memory")
            totals = data["totals"]
            summary = (
                f"overview of {totals['memories']} memories: {totals['clusters']} clusters, "
                f"{len(self.drawn_tags)} tags, {held} memories in the page"
            )
        else:
            G = mem.to_networkx(**self.filters)
            data = graph_for_viz(G, hits, self.context, title=self.title)
            summary = f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges"
        data["options"] = {"overview_threshold": self.overview_above, "fetch": served and big}
        return viz_mod.render_html(data, connect=served and big), summary

    def members(self, mem: Any, group: str, offset: int) -> dict[str, Any]:
        """One page of a group's members for the served overview."""
        from ..export import vizdata

        return vizdata.members(mem, group, offset=offset, top_tags=self.drawn_tags, **self.scope)

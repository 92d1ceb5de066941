"""The commands about a store as a whole: ``stats``, ``cypher``, ``cluster``, ``maintain``,
``gaps``, ``config`` and ``demo`` (``app.py`` holds the commands on memories)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from ..models import clip
from .common import dump, err, json_option, open_memory, out, print_rows
from .output import chosen, emit, list_options


def register(cli: click.Group) -> None:
    """Add the store commands to the ``graphmem`` group."""
    for command in (stats, cypher, cluster, maintain, gaps, config_, demo):
        cli.add_command(command)


@click.command()
@json_option
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Counts of memories, tags, clusters and edges.

    Example: graphmem stats
    """
    with open_memory(ctx, read_only=True) as mem:
        s = mem.stats()
    if as_json:
        dump(s.model_dump())
        return
    table = Table(show_header=False)
    for key, value in s.model_dump().items():
        table.add_row(key, json.dumps(value) if isinstance(value, dict) else str(value))
    out.print(table)


@click.command()
@click.argument("query", required=False)
@click.option(
    "-p",
    "--param",
    "params",
    multiple=True,
    nargs=2,
    help="Query parameter NAME VALUE (JSON or text).",
)
@click.option("--write", is_flag=True, help="Allow the query to change the graph.")
@click.option(
    "--files",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="The one directory LOAD FROM, COPY and EXPORT DATABASE may use (default: none).",
)
@click.option(
    "--timeout", type=float, default=30.0, show_default=True, help="Seconds before a query stops."
)
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
@click.pass_context
def cypher(
    ctx: click.Context,
    query: str | None,
    params: tuple,
    write: bool,
    files: str | None,
    timeout: float,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Run one Cypher statement (read-only unless --write; no file access unless --files DIR).
    QUERY '-' reads it from stdin; no QUERY opens an interactive console (statements end with
    ';' or an empty line; :help, :quit).

    Example: graphmem cypher "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name, count(*)"
    """
    from .console import CypherConsole, rows_csv

    if as_json and as_csv:
        raise click.UsageError("--json and --csv cannot be combined.")

    def show(rows: list[dict[str, Any]]) -> None:
        if as_json:
            dump(rows)
        elif as_csv:
            click.echo(rows_csv(rows), nl=False)
        else:
            print_rows(rows)

    values: dict[str, Any] = {}
    for name, raw in params:
        try:
            values[name] = json.loads(raw)
        except json.JSONDecodeError:
            values[name] = raw
    if query is None:
        with open_memory(ctx, read_only=not write) as mem:
            CypherConsole(
                mem, show, write=write, params=values, console=out, errors=err,
                options={"files": files, "timeout": timeout},
            ).run()  # fmt: skip
        return
    if query == "-":
        query = sys.stdin.read()
    with open_memory(ctx, read_only=not write) as mem:
        rows = mem.cypher(query, values, write=write, files=files, timeout=timeout)
    show(rows)


@click.command()
@click.option("--min-size", type=int, default=None, help="Smallest cluster (default from config).")
@json_option
@list_options
@click.pass_context
def cluster(ctx: click.Context, min_size: int | None, as_json: bool, as_nl: bool,
            as_csv: bool) -> None:  # fmt: skip
    """Rebuild the HDBSCAN clusters now (ids persist across rebuilds).

    Example: graphmem cluster
    """
    from rich.progress import Progress, SpinnerColumn, TextColumn

    fmt = chosen(as_json, as_nl, as_csv)
    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=True,
        disable=fmt is not None,
    )
    with open_memory(ctx) as mem, bar:
        task = bar.add_task("clustering", total=None)
        clusters = mem.rebuild_clusters(
            min_cluster_size=min_size, progress=lambda msg: bar.update(task, description=msg)
        )
    if fmt:
        emit(fmt, [c.model_dump(mode="json") for c in clusters])
        return
    table = Table(title=f"{len(clusters)} clusters")
    for col in ("id", "size", "label"):
        table.add_column(col)
    for c in clusters:
        table.add_row(c.id, str(c.size), c.label)
    out.print(table)


@click.command()
@click.option("--dry-run", is_flag=True, help="Only report what would change.")
@json_option
@click.pass_context
def maintain(ctx: click.Context, dry_run: bool, as_json: bool) -> None:
    """Keep a big store lean: expire, make stale unused memories dormant, merge
    near-duplicates and cap links per memory (nothing is deleted).

    Example: graphmem maintain --dry-run
    """
    with open_memory(ctx) as mem:
        report = mem.maintain(dry_run=dry_run)
    if as_json:
        dump(report.model_dump(mode="json"))
        return
    verb = "would change" if dry_run else "changed"
    out.print(f"maintain {verb} {report.changes} thing(s)")
    out.print(f"  expired (past valid_until): {len(report.expired)}")
    out.print(f"  dormant (stale, rarely used): {len(report.dormant)}")
    out.print(f"  near-duplicates merged: {len(report.merged)}")
    out.print(f"  RelatesTo links pruned: {len(report.pruned_links)}")
    for m in report.merged[:20]:
        out.print(f"    {m['merged']} → {m['kept']} (cosine {m['similarity']})")


@click.command()
@click.option("-n", "--limit", default=50, show_default=True)
@json_option
@list_options
@click.pass_context
def gaps(ctx: click.Context, limit: int, as_json: bool, as_nl: bool, as_csv: bool) -> None:
    """Recent recalls that found nothing above the threshold: what the store does not know.

    Example: graphmem gaps
    """
    fmt = chosen(as_json, as_nl, as_csv)
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.gaps(limit=limit)
    if fmt:
        emit(fmt, [g.model_dump(mode="json") for g in rows])
        return
    table = Table()
    for col in ("when", "best", "context"):
        table.add_column(col, overflow="fold")
    for g in rows:
        table.add_row(
            g.created_at.isoformat(timespec="seconds"), f"{g.best_score:.3f}", clip(g.context, 80)
        )
    out.print(table)


@click.command(name="config")
@json_option
@click.pass_context
def config_(ctx: click.Context, as_json: bool) -> None:
    """Show the settings in force and where each comes from (flag > env > store file > user
    file > default).

    Example: graphmem -d ./memory config
    """
    from ..settings import STORE_FILE, user_file

    settings = ctx.obj["settings"]

    def shown(value: Any) -> Any:
        # A whole number reads as one (the default timeout is the float 20.0).
        return int(value) if isinstance(value, float) and value.is_integer() else value

    if as_json:
        dump({k: {"value": shown(s.value), "source": s.source} for k, s in settings.items()})
        return
    table = Table(title="graphmem settings")
    for col in ("setting", "value", "from"):
        table.add_column(col, overflow="fold")
    for key, s in settings.items():
        table.add_row(key, "" if s.value is None else str(shown(s.value)), s.source)
    out.print(table)
    err.print(
        f"files: {Path(ctx.obj['db']).expanduser() / STORE_FILE} (store), {user_file()} (user)"
    )


@click.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Create a small store, remember related memories, correct one, search, and explain.

    Example: graphmem -d ./demo-memory demo
    """
    from .demo import run_demo

    with open_memory(ctx, create=True, linger=False) as mem:
        run_demo(mem, out)

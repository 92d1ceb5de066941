"""Helpers shared by the CLI modules: opening the store, output options and formatting."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from ..errors import NotFoundError
from ..memory import GraphMemory
from ..models import KINDS, SCOPES, clip
from ..owner.backends import owner_answers
from ..paths import DB_FILE
from ..write import validate
from .console import table_cell

out = Console(soft_wrap=False)
err = Console(stderr=True)


def open_memory(
    ctx: click.Context, *, read_only: bool = False, create: bool = False, linger: bool = True
) -> GraphMemory:
    """Open the store named by ``--db``; only commands that add memories (``create``) may make
    a new one, so a mistyped path is an error instead of a fresh empty store.

    When another process owns the store, the handle is its client, without loading the
    database, the mirror or the model here (``graphmem.owner.backends``). When none does, a
    command (``linger``) starts an owner that stays ``linger`` seconds for the next call
    (graphmem.cli.linger) and calls it; ``serve`` and ``mcp`` own the store.
    """
    db = ctx.obj["db"]
    if validate.is_url(db):
        # An owner reached over TCP (graphmem serve --tcp); the token comes from GRAPHMEM_TOKEN.
        return _graph_memory(db, ctx, read_only)
    folder = Path(db).expanduser()
    if folder.exists() and not folder.is_dir():
        raise NotFoundError(f"No graphmem store at '{folder}': it is a file (a store is a folder)")
    if not create and not (folder / DB_FILE).exists():
        raise NotFoundError(
            f"No graphmem store at '{folder}'; create one with 'graphmem -d {folder} init'"
        )
    seconds = float(ctx.obj["settings"]["linger"].value)
    if linger and seconds > 0 and os.name == "posix" and not owner_answers(folder):
        from .linger import start_owner

        timeout = float(ctx.obj["settings"]["timeout"].value)
        start_owner(folder, linger=seconds, timeout=timeout, model_path=ctx.obj["model_path"])
    return _graph_memory(folder, ctx, read_only)


def _graph_memory(path: str | Path, ctx: click.Context, read_only: bool) -> GraphMemory:
    return GraphMemory(path, model_path=ctx.obj["model_path"], read_only=read_only)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(
        fn
    )


def dump(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def memory_table(
    memories: list[Any], *, scores: list[float] | None = None, title: str = ""
) -> Table:
    table = Table(title=title or None, show_lines=False)
    if scores is not None:
        table.add_column("score", justify="right")
    for name in ("id", "kind", "content", "tags"):
        table.add_column(name, overflow="fold" if name == "content" else "ellipsis")
    for i, m in enumerate(memories):
        row = [
            m.id,
            m.kind + ("" if m.active else " (inactive)"),
            clip(m.content, 80),
            ", ".join(m.tags),
        ]
        if scores is not None:
            row.insert(0, f"{scores[i]:.3f}")
        table.add_row(*row)
    return table


def memory_json(m: Any) -> dict[str, Any]:
    return m.model_dump(mode="json", exclude={"embedding"})


def print_rows(rows: list[dict[str, Any]]) -> None:
    if not rows:
        click.echo("(no rows)")
        return
    table = Table()
    for col in rows[0]:
        table.add_column(str(col), overflow="fold")
    for row in rows:
        table.add_row(*(table_cell(v) for v in row.values()))
    out.print(table)


def hits_json(hits: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "score": h.score,
            "flags": h.flags,
            "contradicts": h.contradicts,
            "path": [p.model_dump() for p in h.path],
            "why": h.explain(),
            "memory": memory_json(h.memory),
        }
        for h in hits
    ]


def recall_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options of ``graphmem recall`` (everything but the context and --json)."""
    for option in reversed(
        [
            click.option("-n", "--limit", default=10, show_default=True),
            click.option(
                "--depth", type=int, default=None, help="Edges a walk may follow (default 2)."
            ),
            click.option(
                "--threshold", type=float, default=None, help="Minimum cosine for a dense seed."
            ),
            click.option("-k", "--kind", "kinds", multiple=True, type=click.Choice(KINDS)),
            click.option("-t", "--tag", "tags", multiple=True),
            click.option("--scope", type=click.Choice(SCOPES), default=None),
            click.option("--project", default=None),
            click.option(
                "--session", "session_id", default=None, help="Current session (boosted)."
            ),
            click.option("--at", default=None, help="Answer as of this ISO date or time."),
            click.option("--budget", "budget_tokens", type=int, default=None, help="Token budget."),
            click.option(
                "--history", "include_history", is_flag=True, help="Include superseded memories."
            ),
        ]
    ):
        fn = option(fn)
    return fn

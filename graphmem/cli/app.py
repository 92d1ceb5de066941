"""The ``graphmem`` command line: one command per ``GraphMemory`` method, same nouns and verbs."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from ..config import DB_ENV, MODEL_PATH_ENV
from ..errors import GraphMemError, ValidationError
from ..models import (
    CONFLICT_MODES,
    KINDS,
    LINK_TYPES,
    ON_EXISTING,
    ON_SECRET,
    SCOPES,
    SOURCES,
    clip,
)
from ..settings import DEFAULT_DB
from .admin import register as _register_admin_commands
from .common import (
    dump,
    err,
    hits_json,
    json_option,
    memory_json,
    memory_table,
    open_memory,
    out,
    recall_options,
)
from .graph import register as _register_graph_commands
from .mcp import register as _register_mcp_command
from .output import chosen, emit, list_options, memory_row
from .serve import register as _register_serve_commands


class _Group(click.Group):
    """Turns library errors into one line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GraphMemError as exc:
            message = str(exc).replace("\n", " | ")
            click.echo(f"Error: {message}", err=True)
            sys.exit(1)


@click.group(cls=_Group)
@click.option(
    "-d", "--db", default=None,
    help=f"The store's folder (env {DB_ENV}, then the config file; default {DEFAULT_DB}).",
)  # fmt: skip
@click.option(
    "--model-path", default=None,
    help=f"Folder with the embedding model files (env {MODEL_PATH_ENV}, then the config files).",
)  # fmt: skip
@click.version_option(package_name="graphmem")
@click.pass_context
def cli(ctx: click.Context, db: str | None, model_path: str | None) -> None:
    """graphmem: graph-native long-term memory for AI agents.

    Settings come from flags, then environment variables, then graphmem.toml in the store's
    folder, then the user's config file (see `graphmem config`).
    """
    from ..settings import resolve

    settings = resolve({"db": db, "model_path": model_path})
    ctx.obj = {
        "db": settings["db"].value,
        "model_path": settings["model_path"].value,
        "settings": settings,
    }


def main() -> None:
    cli(prog_name="graphmem")


# ---------------------------------------------------------------------- commands


def _stdin_if_dash(text: str) -> str:
    """``-`` means standard input (sqlite-utils' habit), read whole, one final newline dropped."""
    if text != "-":
        return text
    data = sys.stdin.read()
    return data[:-1] if data.endswith("\n") else data


@cli.command()
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create an empty store (or check an existing one).

    Example: graphmem -d ./memory init
    """
    with open_memory(ctx, create=True) as mem:
        s = mem.stats()
    click.echo(f"Store ready at {s.path}: {s.memories} memories, model {s.embedding_model}.")


_NO_DEDUPE_HELP = (
    "Always create a new memory: never merge into a duplicate, never supersede (conflicts are "
    "only flagged)."
)
_CONFLICTS_HELP = (
    "detect: supersede a memory the new one surely replaces, link with Contradicts when unsure; "
    "flag: never supersede, only link; off: no conflict check."
)


@cli.command()
@click.argument("content")
@click.option("-k", "--kind", type=click.Choice(KINDS), default="fact", show_default=True)
@click.option("-t", "--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--scope", type=click.Choice(SCOPES), default=None)
@click.option("--project", default=None)
@click.option("--session", "session_id", default=None)
@click.option("--source", type=click.Choice(SOURCES), default="user_stated", show_default=True)
@click.option("--confidence", type=float, default=1.0, show_default=True)
@click.option("--pinned", is_flag=True)
@click.option(
    "--trigger", "triggers", multiple=True, help="Pattern that surfaces a negative memory."
)
@click.option("--file", "file_paths", multiple=True, help="A file path the memory is about.")
@click.option("--meta", "meta", multiple=True, nargs=2, help="Metadata KEY VALUE (repeatable).")
@click.option("--id", "memory_id", default=None, help="Choose the memory's id.")
@click.option("--valid-from", default=None, help="ISO date or time.")
@click.option("--valid-until", default=None, help="ISO date or time.")
@click.option("--supersedes", multiple=True, help="Id of a memory this one replaces.")
@click.option("--no-dedupe", is_flag=True, help=_NO_DEDUPE_HELP)
@click.option("--conflicts", type=click.Choice(CONFLICT_MODES), default="detect",
              show_default=True, help=_CONFLICTS_HELP)  # fmt: skip
@click.option("--redact", is_flag=True, help="Store with secrets redacted instead of refusing.")
@json_option
@click.pass_context
def remember(ctx: click.Context, content: str, as_json: bool, meta: tuple, memory_id: str | None,
             no_dedupe: bool, **fields: Any) -> None:  # fmt: skip
    """Remember CONTENT ('-': read it from stdin); prints the id and what happened (created,
    reinforced, superseded…).

    Example: graphmem remember "The API rate limit is 100 requests/min" -t api
    """
    content = _stdin_if_dash(content)
    fields = {k: (list(v) if isinstance(v, tuple) else v) for k, v in fields.items()}
    fields = {k: v for k, v in fields.items() if v not in (None, [], False) or k == "pinned"}
    if fields.get("conflicts") == "detect":
        del fields["conflicts"]
    if meta:
        fields["metadata"] = dict(meta)
    if memory_id:
        fields["id"] = memory_id
    if no_dedupe:
        fields["dedupe"] = False
    with open_memory(ctx, create=True) as mem:
        r = mem.remember(content, **fields)
    if as_json:
        dump({**r.model_dump(mode="json", exclude={"memory"}), "memory": memory_json(r.memory)})
        return
    detail = ""
    if r.superseded:
        detail = f" (supersedes {', '.join(r.superseded)}: {r.reason})"
    elif r.contradicts:
        detail = f" (contradicts {', '.join(r.contradicts)}: {r.reason})"
    elif r.action == "reinforced":
        detail = f" ({r.reason}; strength {r.memory.strength})"
    click.echo(f"{r.action} {r.id}{detail}")


def _read_items(fh: Any, name: str, fmt: str, lines: list[int]) -> Iterator[dict[str, Any]]:
    """The items of a JSONL or CSV file; ``lines`` gets each item's line number (from 1), so
    an error about an item names the line it came from."""
    try:
        yield from _items_of(fh, name, fmt, lines)
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"{name}: not UTF-8 text (byte {exc.start} of the block being read: {exc.reason})"
        ) from None
    except csv.Error as exc:  # a field past the limit, a NUL byte
        raise ValidationError(f"{name}: not a CSV file graphmem can read ({exc})") from None


def _items_of(fh: Any, name: str, fmt: str, lines: list[int]) -> Iterator[dict[str, Any]]:
    item: dict[str, Any]
    if fmt == "jsonl":
        for n, line in enumerate(fh, 1):
            if n == 1:
                line = line.removeprefix("\ufeff")  # a byte-order mark (Excel, Notepad)
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except RecursionError:
                raise ValidationError(f"{name}:{n}: JSON nested too deeply") from None
            except ValueError as exc:  # not JSON, or an integer of over 4,300 digits
                raise ValidationError(f"{name}:{n}: not valid JSON ({exc})") from None
            if isinstance(item, str):
                item = {"content": item}
            lines.append(n)
            yield item
        return
    # A field as long as a memory may be (the item's own check says if it is too long).
    csv.field_size_limit(max(csv.field_size_limit(), 64 * 1024 * 1024))
    reader = csv.DictReader(fh)
    if reader.fieldnames:
        reader.fieldnames = [f.removeprefix("\ufeff") for f in reader.fieldnames]
    for row in reader:
        n = reader.line_num  # the line the row ends on (the header is line 1)
        item = {k: v for k, v in row.items() if k and v not in (None, "")}
        try:
            for key in ("tags", "triggers", "file_paths", "supersedes"):
                if key in item:
                    item[key] = [p.strip() for p in item[key].split(";") if p.strip()]
            for key in ("pinned", "dedupe"):
                if key in item:
                    item[key] = item[key].strip().lower() in ("1", "true", "yes")
            if "confidence" in item:
                item["confidence"] = float(item["confidence"])
            if "metadata" in item:
                item["metadata"] = json.loads(item["metadata"])
        except RecursionError:
            raise ValidationError(f"{name}:{n}: metadata nested too deeply") from None
        except ValueError as exc:  # a number or JSON object that is not one
            raise ValidationError(f"{name}:{n}: {exc}") from exc
        lines.append(n)
        yield item


_ITEM = re.compile(r"item (\d+): ")


def _at_line(exc: GraphMemError, name: str, lines: list[int]) -> GraphMemError:
    """The API numbers items from 0 (``item 3: …``); a file's reader wants its line."""
    message = str(exc)
    found = _ITEM.match(message)
    if found is None or int(found.group(1)) >= len(lines):
        return exc
    return type(exc)(f"{name}:{lines[int(found.group(1))]}: {message[found.end() :]}")


@cli.command(name="import")
@click.argument(
    "path", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path)
)
@click.option("-f", "--format", "fmt", type=click.Choice(["jsonl", "csv", "mcp-memory"]),
              default=None, help="Default: from the file's suffix. mcp-memory: the memory.jsonl "
              "of @modelcontextprotocol/server-memory (idempotent).")  # fmt: skip
@click.option("--batch-size", default=512, show_default=True)
@click.option("--conflicts", type=click.Choice(CONFLICT_MODES), default=None,
              help=_CONFLICTS_HELP + " Items may set their own.  [default: detect]")  # fmt: skip
@click.option("--no-dedupe", is_flag=True, help=_NO_DEDUPE_HELP)
@click.option("--dry-run", is_flag=True,
              help="Print what would be created, merged, superseded or contradicted; write nothing.")  # fmt: skip
@click.option("--on-secret", type=click.Choice(ON_SECRET), default=None,
              help="An item that holds a secret: skip it (and say which line), store it with "
              "the secret redacted, or refuse the whole file.  [default: skip; refuse for "
              "mcp-memory]")  # fmt: skip
@click.option("--on-existing", type=click.Choice(ON_EXISTING), default="skip", show_default=True,
              help="An item whose id the store holds: skip it, update that memory with it, or "
              "stop before writing anything. Items without an id get one from their content "
              "and fields, so importing a file again adds nothing.")  # fmt: skip
@click.option("--sync", is_flag=True,
              help="mcp-memory only: make the graph what the file says (a newer copy of it): "
              "also delete what the file no longer holds and take its entity types.")  # fmt: skip
@json_option
@click.pass_context
def import_(
    ctx: click.Context,
    path: Path,
    fmt: str | None,
    batch_size: int,
    conflicts: str | None,
    no_dedupe: bool,
    dry_run: bool,
    on_secret: str | None,
    on_existing: str,
    sync: bool,
    as_json: bool,
) -> None:
    """Import memories from JSONL (one object per line) or CSV (a content column; tags split on
    ';'). PATH '-' reads stdin (JSONL unless -f csv). Errors name the line, counted from 1.

    Example: graphmem import notes.jsonl --dry-run; graphmem import memory.jsonl -f mcp-memory
    """
    stdin = str(path) == "-"
    if fmt == "mcp-memory":
        if on_secret not in (None, "refuse"):
            # Its items name each other (an observation its entity): all or nothing.
            raise click.UsageError("--format mcp-memory imports refuse any secret.")
        _import_mcp_memory(ctx, path, as_json, stdin, sync)
        return
    if sync:
        raise click.UsageError("--sync is for --format mcp-memory.")
    fmt = fmt or ("csv" if path.suffix.lower() == ".csv" else "jsonl")
    name = "<stdin>" if stdin else str(path)
    lines: list[int] = []
    if stdin:
        items = list(_read_items(sys.stdin, name, fmt, lines))
    else:
        with path.open(encoding="utf-8", newline="") as fh:
            items = list(_read_items(fh, name, fmt, lines))
    # Loaded here: its checks need numpy, which a CLI call answered by an owner never loads.
    from ..write.importing import run_import

    with open_memory(ctx, create=not dry_run) as mem:
        try:
            report = run_import(
                mem,
                items,
                on_existing=on_existing,
                batch_size=batch_size,
                progress=not as_json and not dry_run,
                dedupe=False if no_dedupe else None,
                conflicts=conflicts,
                dry_run=dry_run,
                on_secret=on_secret or "skip",
            )
        except GraphMemError as exc:
            raise _at_line(exc, name, lines) from exc
        results = report.results
        contents = {r.id: r.memory.content for r in results}
        for r in results:
            for other in r.superseded + r.contradicts:
                if other not in contents:
                    contents[other] = mem.get(other).content
    items = [items[n - 1] for n in report.positions]  # the items remember_many answered
    counts = report.counts()
    flagged = report.flagged
    if as_json:
        out: dict[str, Any] = {
            "imported": 0 if dry_run else len(results), "actions": counts,
            "skipped": [s.model_dump() for s in report.skipped], "updated": report.updated,
        }  # fmt: skip
        if flagged:
            out["flagged"] = [{"line": lines[f.index], **f.model_dump()} for f in flagged]
        if dry_run:
            out["dry_run"] = True
            out["plan"] = [
                {"line": n, **r.model_dump(mode="json", exclude={"memory"})}
                for n, r in zip((lines[p - 1] for p in report.positions), results, strict=True)
                if r.action != "created"
            ]
        dump(out)
        return
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"
    why: dict[str, int] = {}
    for s in report.skipped:
        why[s.reason] = why.get(s.reason, 0) + 1
    secret_skips = sum(f.action == "skipped" for f in flagged)
    if secret_skips:
        why["hold a secret"] = secret_skips
    if why:
        summary += " (" + ", ".join(f"{v} {k}" for k, v in sorted(why.items())) + ")"
    for f in flagged:
        what = "skipped" if f.action == "skipped" else "stored with the secret redacted"
        click.echo(
            f"{name}:{lines[f.index]}: {what}: {', '.join(f.fields)} looks like it holds "
            f"a secret ({', '.join(f.kinds)})",
            err=True,
        )
    if not dry_run:
        click.echo(f"Imported {len(results) + len(report.updated)} items: {summary}.")
        return
    for n, item, r in zip((lines[p - 1] for p in report.positions), items, results, strict=True):
        if r.action == "created":
            continue
        others = r.superseded or r.contradicts or [r.id]
        verb = {"reinforced": "would merge into", "superseded": "would supersede",
                "contradicted": "would contradict"}[r.action]  # fmt: skip
        click.echo(f"line {n}: {verb} {', '.join(others)} ({r.reason})")
        click.echo(f"    {clip(str(item.get('content', '')), 100)}")
        for other in others:
            click.echo(f"    vs {clip(contents[other], 100)}")
    click.echo(f"Dry run: {len(results)} items would give: {summary}. Nothing was written.")


def _import_mcp_memory(
    ctx: click.Context, path: Path, as_json: bool, stdin: bool, sync: bool
) -> None:
    import tempfile

    from ..adapters.mcp.kg import KnowledgeGraph

    with open_memory(ctx, create=True) as mem, tempfile.TemporaryDirectory() as folder:
        if stdin:
            # The reader takes a file: stdin goes to one in a private (0700) temporary folder.
            path = Path(folder) / "memory.jsonl"
            path.write_text(sys.stdin.read(), encoding="utf-8")
        counts = KnowledgeGraph(mem).import_jsonl(path, sync=sync, progress=not as_json)
    if as_json:
        dump(counts)
        return
    click.echo(
        f"Imported {counts['entities']} new entities, {counts['observations']} observations "
        f"and {counts['relations']} relations (what was already there is skipped)."
    )
    if sync:
        click.echo(
            f"Deleted {counts['deleted_entities']} entities, {counts['deleted_observations']} "
            f"observations and {counts['deleted_relations']} relations the file no longer "
            f"holds; changed the type of {counts['retyped']} entities."
        )


@cli.command()
@click.argument("memory_id")
@json_option
@click.pass_context
def get(ctx: click.Context, memory_id: str, as_json: bool) -> None:
    """Show one memory with all its fields.

    Example: graphmem get 3f2a9c1d0b7e4a55
    """
    with open_memory(ctx, read_only=True) as mem:
        m = mem.get(memory_id)
    data = memory_json(m)
    if as_json:
        dump(data)
        return
    table = Table(show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        if value in (None, [], {}):
            continue
        table.add_row(key, value if isinstance(value, str) else json.dumps(value, default=str))
    out.print(table)


def _filter_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(
        [
            click.option("-k", "--kind", "kinds", multiple=True, type=click.Choice(KINDS)),
            click.option("-t", "--tag", "tags", multiple=True),
            click.option("--scope", type=click.Choice(SCOPES), default=None),
            click.option("--project", default=None),
            click.option("--session", "session_id", default=None),
            click.option(
                "--all", "include_inactive", is_flag=True, help="Include inactive memories."
            ),
        ]
    ):
        fn = option(fn)
    return fn


@cli.command()
@click.argument("query")
@click.option("-n", "--limit", default=10, show_default=True)
@_filter_options
@json_option
@list_options
@click.pass_context
def search(ctx: click.Context, query: str, limit: int, as_json: bool, as_nl: bool, as_csv: bool,
           kinds: tuple, tags: tuple, **filters: Any) -> None:  # fmt: skip
    """Vector similarity search (QUERY '-' reads it from stdin).

    Example: graphmem search "rate limits" -n 5
    """
    fmt = chosen(as_json, as_nl, as_csv)
    query = _stdin_if_dash(query)
    with open_memory(ctx, read_only=True) as mem:
        hits = mem.search(
            query, limit=limit, kinds=list(kinds) or None, tags=list(tags) or None, **filters
        )
    if fmt:
        emit(
            fmt,
            [{"score": h.score, "memory": memory_json(h.memory)} for h in hits],
            [{"score": h.score, **memory_row(h.memory)} for h in hits],
        )
        return
    out.print(memory_table([h.memory for h in hits], scores=[h.score for h in hits]))


@cli.command(name="list")
@click.option("-n", "--limit", default=50, show_default=True)
@click.option("--offset", default=0)
@click.option("-k", "--kind", "kinds", multiple=True, type=click.Choice(KINDS))
@click.option("-t", "--tag", default=None)
@click.option("--scope", type=click.Choice(SCOPES), default=None)
@click.option("--project", default=None)
@click.option("--session", "session_id", default=None)
@click.option("--all", "include_inactive", is_flag=True, help="Include inactive memories.")
@json_option
@list_options
@click.pass_context
def list_(ctx: click.Context, as_json: bool, as_nl: bool, as_csv: bool, kinds: tuple,
          **filters: Any) -> None:  # fmt: skip
    """List memories, newest first (the API's `memories`).

    Example: graphmem list -t api --csv > memories.csv
    """
    fmt = chosen(as_json, as_nl, as_csv)
    with open_memory(ctx, read_only=True) as mem:
        memories = mem.memories(kinds=list(kinds) or None, **filters)
    if fmt:
        emit(fmt, [memory_json(m) for m in memories], [memory_row(m) for m in memories])
        return
    out.print(memory_table(memories))


@cli.command()
@click.argument("memory_id")
@click.option("--purge", is_flag=True, help="Delete for good instead of deactivating.")
@click.pass_context
def forget(ctx: click.Context, memory_id: str, purge: bool) -> None:
    """Forget a memory (restorable), or delete it with --purge.

    Example: graphmem forget 3f2a9c1d0b7e4a55
    """
    with open_memory(ctx) as mem:
        mem.forget(memory_id, purge=purge)
    click.echo(f"{'purged' if purge else 'forgot'} {memory_id}")


@cli.command()
@click.argument("memory_id")
@click.option("--unsupersede", is_flag=True,
              help="Also make a superseded memory current again (drops its Supersedes link).")  # fmt: skip
@click.pass_context
def restore(ctx: click.Context, memory_id: str, unsupersede: bool) -> None:
    """Make a forgotten memory active again.

    A superseded memory stays superseded unless --unsupersede is given.

    Example: graphmem restore 3f2a9c1d0b7e4a55
    """
    with open_memory(ctx) as mem:
        m = mem.restore(memory_id, unsupersede=unsupersede)
    if m.active:
        click.echo(f"restored {memory_id}")
    else:
        click.echo(
            f"{memory_id} stays superseded by {m.superseded_by}; "
            "pass --unsupersede to make it current again"
        )


@cli.command()
@click.argument("memory_id")
@click.argument("content", required=False)
@click.option("-k", "--kind", type=click.Choice(KINDS), default=None, help="A new kind.")
@click.option("--confidence", type=float, default=None, help="A new confidence, 0..1.")
@click.option("--pinned/--unpinned", default=None, help="Pin or unpin it.")
@click.option("--trigger", "triggers", multiple=True, help="Replace the triggers (repeatable).")
@click.option("--file", "file_paths", multiple=True, help="Replace the file paths (repeatable).")
@click.option("--meta", "meta", multiple=True, nargs=2, help="Replace the metadata: KEY VALUE "
              "(repeatable).")  # fmt: skip
@click.option("--valid-from", default=None, help="ISO date or time.")
@click.option("--valid-until", default=None, help="ISO date or time.")
@click.option("--conflicts", type=click.Choice(CONFLICT_MODES), default="detect",
              show_default=True, help=_CONFLICTS_HELP)  # fmt: skip
@click.option("--redact", is_flag=True, help="Store with secrets redacted instead of refusing.")
@json_option
@click.pass_context
def update(ctx: click.Context, memory_id: str, content: str | None, meta: tuple,
           triggers: tuple, file_paths: tuple, as_json: bool, **fields: Any) -> None:  # fmt: skip
    """Change a memory in place: new CONTENT ('-': stdin) and/or fields; the id stays.

    New content is re-embedded, re-tagged and checked for conflicts like a new memory. To
    record that a fact changed over time, remember the new fact instead (history keeps both).

    Example: graphmem update 3f2a9c1d "The API rate limit is 200 requests/min"
    """
    changes = {k: v for k, v in fields.items() if v is not None}
    if content is not None:
        changes["content"] = _stdin_if_dash(content)
    if triggers:
        changes["triggers"] = list(triggers)
    if file_paths:
        changes["file_paths"] = list(file_paths)
    if meta:
        changes["metadata"] = dict(meta)
    if set(changes) <= {"conflicts", "redact"}:
        raise click.UsageError("Nothing to change: give CONTENT or an option (see --help).")
    with open_memory(ctx) as mem:
        m = mem.update(memory_id, **changes)
    if as_json:
        dump(memory_json(m))
        return
    click.echo(f"updated {m.id}: {clip(m.content, 80)}")


@cli.command()
@click.argument("recall_id")
@click.option("--used", multiple=True, metavar="ID", help="A hit that helped (repeatable).")
@click.option("--rejected", multiple=True, metavar="ID", help="A hit that did not (repeatable).")
@click.pass_context
def feedback(ctx: click.Context, recall_id: str, used: tuple, rejected: tuple) -> None:
    """Tell recall which hits of RECALL_ID helped: used ones are linked and gain confidence,
    rejected ones lose a little. RECALL_ID is what `graphmem recall` printed; the store's
    owner remembers recent recalls (a CLI call's owner lingers for this, see `linger`).

    Example: graphmem feedback 8c1d2e3f4a5b --used 3f2a9c1d --rejected 7b1e2d44
    """
    if not used and not rejected:
        raise click.UsageError("Give --used ID and/or --rejected ID.")
    with open_memory(ctx) as mem:
        mem.feedback(recall_id, used=list(used), rejected=list(rejected))
        mem.flush()
    click.echo(f"feedback on {recall_id}: {len(used)} used, {len(rejected)} rejected")


@cli.command()
@click.argument("source")
@click.argument("target")
@click.option(
    "--type", "link_type", type=click.Choice(LINK_TYPES), default="relates_to", show_default=True
)
@click.option("-w", "--weight", type=float, default=None, help="0..1, relates_to only.")
@click.option("--reason", default=None)
@click.option("--remove", is_flag=True, help="Remove the link instead (the API's unlink).")
@click.pass_context
def link(ctx: click.Context, source: str, target: str, link_type: str, weight: float | None,
         reason: str | None, remove: bool) -> None:  # fmt: skip
    """Link SOURCE to TARGET with a typed edge (or remove it with --remove).

    Example: graphmem link 3f2a9c1d 7b1e2d44 --type supersedes
    """
    with open_memory(ctx) as mem:
        if remove:
            n = mem.unlink(source, target, link_type)
            click.echo(f"removed {n} {link_type} link(s)")
            return
        mem.link(source, target, link_type, weight=weight, reason=reason)
    click.echo(f"linked {source} -[{link_type}]-> {target}")


@cli.command()
@click.argument("memory_id")
@click.argument("tags", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Remove these tags instead (the API's untag).")
@click.pass_context
def tag(ctx: click.Context, memory_id: str, tags: tuple[str, ...], remove: bool) -> None:
    """Add tags to a memory (or remove them with --remove).

    Example: graphmem tag 3f2a9c1d auth rust
    """
    with open_memory(ctx) as mem:
        m = mem.untag(memory_id, *tags) if remove else mem.tag(memory_id, *tags)
    click.echo(f"{m.id}: {', '.join(m.tags) or '(no tags)'}")


@cli.command()
@json_option
@list_options
@click.pass_context
def tags(ctx: click.Context, as_json: bool, as_nl: bool, as_csv: bool) -> None:
    """List tags with how many memories carry each.

    Example: graphmem tags
    """
    fmt = chosen(as_json, as_nl, as_csv)
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.tags()
    if fmt:
        emit(fmt, [t.model_dump() for t in rows])
        return
    table = Table()
    for col in ("tag", "kind", "memories"):
        table.add_column(col)
    for t in rows:
        table.add_row(t.name, t.kind, str(t.count))
    out.print(table)


@cli.command()
@click.argument("memory_id")
@click.option("--depth", default=1, show_default=True)
@json_option
@list_options
@click.pass_context
def neighbors(ctx: click.Context, memory_id: str, depth: int, as_json: bool, as_nl: bool,
              as_csv: bool) -> None:  # fmt: skip
    """Memories within DEPTH hops (a shared tag or cluster counts as one hop).

    Example: graphmem neighbors 3f2a9c1d --depth 2
    """
    fmt = chosen(as_json, as_nl, as_csv)
    with open_memory(ctx, read_only=True) as mem:
        memories = mem.neighbors(memory_id, depth=depth)
    if fmt:
        emit(fmt, [memory_json(m) for m in memories], [memory_row(m) for m in memories])
        return
    out.print(memory_table(memories))


@cli.command()
@click.argument("memory_id")
@json_option
@list_options
@click.pass_context
def history(ctx: click.Context, memory_id: str, as_json: bool, as_nl: bool, as_csv: bool) -> None:
    """The supersede chain through a memory, oldest first.

    Example: graphmem history 3f2a9c1d
    """
    fmt = chosen(as_json, as_nl, as_csv)
    with open_memory(ctx, read_only=True) as mem:
        chain = mem.history(memory_id)
    if fmt:
        emit(fmt, [memory_json(m) for m in chain], [memory_row(m) for m in chain])
        return
    out.print(memory_table(chain, title="oldest first"))


@cli.command()
@click.argument("context")
@recall_options
@json_option
@list_options
@click.pass_context
def recall(ctx: click.Context, context: str, as_json: bool, as_nl: bool, as_csv: bool,
           kinds: tuple, tags: tuple, **options: Any) -> None:  # fmt: skip
    """Cascade recall for CONTEXT ('-': stdin): each hit with its score and the path that
    found it. The recall id (for `graphmem feedback`) is printed on stderr, or is a field.

    Example: graphmem recall "how do I deploy billing?" -n 5
    """
    fmt = chosen(as_json, as_nl, as_csv)
    context = _stdin_if_dash(context)
    with open_memory(ctx) as mem:
        hits = mem.recall(context, kinds=list(kinds) or None, tags=list(tags) or None, **options)
        mem.flush()
    if fmt == "json":
        dump({"recall_id": hits.recall_id, "hits": hits_json(hits)})
        return
    if fmt:
        emit(
            fmt,
            [{"recall_id": hits.recall_id, **h} for h in hits_json(hits)],
            [
                {"recall_id": hits.recall_id, "score": h.score, "id": h.memory.id,
                 "kind": h.memory.kind, "content": h.memory.content, "tags": h.memory.tags,
                 "why": h.explain(), "flags": h.flags, "contradicts": h.contradicts}
                for h in hits
            ],
        )  # fmt: skip
        return
    table = Table(show_lines=True)
    for col in ("score", "id", "kind", "memory, and why it was recalled"):
        table.add_column(col, overflow="fold")
    for h in hits:
        flags = f" ({', '.join(h.flags)})" if h.flags else ""
        why = Text(h.explain(), style="dim")
        table.add_row(
            f"{h.score:.3f}",
            h.memory.id,
            h.memory.kind + flags,
            Text(h.memory.content + "\n").append(why),
        )
    out.print(table)
    err.print(f"recall id {hits.recall_id} (for graphmem feedback)", highlight=False)


# The commands about the store as a whole (stats, cypher, cluster, maintain, gaps, config, demo)
# and those for looking at the graph (schema, explain, export, viz) live in their own modules.
_register_admin_commands(cli)
_register_graph_commands(cli)
# The MCP server (graphmem mcp) and the owner (graphmem serve) live in their own modules too.
_register_mcp_command(cli)
_register_serve_commands(cli)


if __name__ == "__main__":
    main()

"""How CLI commands print a list: a table, or ``--json``, ``--nl`` or ``--csv`` for scripts.

As in sqlite-utils: ``--json`` is one JSON array, ``--nl`` one JSON object per line (for
``jq -c``, ``while read``), ``--csv`` a header and one row per item, lists joined with ``;``
(as ``graphmem import`` reads them) and objects written as JSON.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from typing import Any

import click

FORMATS = ("json", "nl", "csv")


def list_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--nl`` and ``--csv`` (next to the command's ``--json``)."""
    fn = click.option("--csv", "as_csv", is_flag=True, help="Print CSV (lists joined with ';').")(
        fn
    )
    return click.option("--nl", "as_nl", is_flag=True, help="Print one JSON object per line.")(fn)


def chosen(as_json: bool, as_nl: bool = False, as_csv: bool = False) -> str | None:
    """The output format asked for (None: a table)."""
    picked = [name for name, on in zip(FORMATS, (as_json, as_nl, as_csv), strict=True) if on]
    if len(picked) > 1:
        raise click.UsageError(f"choose one of --{' / --'.join(picked)}")
    return picked[0] if picked else None


def emit(fmt: str, records: list[dict[str, Any]], flat: list[dict[str, Any]] | None = None) -> None:
    """Print ``records`` as ``fmt``; CSV prints ``flat`` (one level of columns) if given."""
    if fmt == "json":
        click.echo(json.dumps(records, indent=2, default=str, ensure_ascii=False))
    elif fmt == "nl":
        for record in records:
            click.echo(json.dumps(record, default=str, ensure_ascii=False))
    else:
        write_csv(flat if flat is not None else records)


def write_csv(rows: list[dict[str, Any]]) -> None:
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    writer = csv.DictWriter(sys.stdout, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    sys.stdout.flush()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ";".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, default=str, ensure_ascii=False)
    return value


MEMORY_COLUMNS = (
    "id", "kind", "content", "tags", "scope", "project", "session_id", "source", "confidence",
    "pinned", "active", "superseded_by", "created_at", "updated_at", "valid_from",
    "valid_until", "access_count", "strength", "triggers", "file_paths", "metadata",
)  # fmt: skip


def memory_row(m: Any) -> dict[str, Any]:
    """One memory as a flat CSV row."""
    data = m.model_dump(mode="json", exclude={"embedding"})
    return {k: data.get(k) for k in MEMORY_COLUMNS}


__all__ = ["chosen", "emit", "list_options", "memory_row", "write_csv"]

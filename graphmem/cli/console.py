"""``graphmem cypher`` without a query: an interactive Cypher console for debugging a store.

A statement ends with ``;`` at the end of a line or with an empty line, so multi-line queries
can be typed or pasted. ``:schema``, ``:help`` and ``:quit`` are commands. A failing query
prints Kùzu's message and the query, and the console goes on. Standard input that is not a
terminal is read the same way, without prompts, so scripts can pipe statements in.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click
from rich.console import Console
from rich.table import Table

from ..errors import GraphMemError

if TYPE_CHECKING:
    from ..memory import GraphMemory

HISTORY_FILE = Path("~/.graphmem_history")
HISTORY_LENGTH = 1000
PROMPT = "cypher> "
CONTINUATION = "   ...> "
HELP = """\
Type Cypher; a statement ends with ';' at the end of a line or with an empty line.
  :schema   node and relationship tables with their properties
  :help     this text
  :quit     leave (also :exit, :q, Ctrl-D)
Queries are read-only unless the console was started with --write.
Example: MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name, count(*) AS n ORDER BY n DESC;"""

VECTOR_HEAD = 4
RowsFn = Callable[[list[dict[str, Any]]], None]


def cell(value: Any) -> str:
    """One value as text for a table or CSV cell (strings as they are, the rest as JSON)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def short_vectors(value: Any, keep: int = VECTOR_HEAD) -> Any:
    """``value`` with every long list of numbers (an embedding, a centroid) cut to its first
    few, for reading in a table: ``RETURN m`` would otherwise print 384 floats per row."""
    if isinstance(value, dict):
        return {k: short_vectors(v, keep) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if len(value) > keep * 2 and all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in value
        ):
            head = ", ".join(f"{x:.4g}" for x in value[:keep])
            return f"[{head}, … {len(value)} numbers]"
        return [short_vectors(v, keep) for v in value]
    return value


def table_cell(value: Any) -> str:
    """One value as text for a table cell: like ``cell``, with long vectors abbreviated."""
    return cell(short_vectors(value))


def rows_csv(rows: list[dict[str, Any]]) -> str:
    """Rows as CSV text with a header line (empty when there are no rows)."""
    if not rows:
        return ""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(rows[0]))
    for row in rows:
        writer.writerow([cell(v) for v in row.values()])
    return buf.getvalue()


def schema_tables(schema: dict[str, list[dict[str, Any]]]) -> list[Table]:
    """Rich tables for ``GraphMemory.schema()``: one for node tables, one for relationships."""
    nodes = Table(title="Node tables", title_justify="left")
    for col in ("table", "property", "type", "key"):
        nodes.add_column(col)
    for t in schema["nodes"]:
        for i, p in enumerate(t["properties"]):
            nodes.add_row(
                t["name"] if i == 0 else "", p["name"], p["type"], "PK" if p["primary_key"] else ""
            )
        nodes.add_section()
    rels = Table(title="Relationship tables", title_justify="left")
    for col in ("table", "from → to", "property", "type"):
        rels.add_column(col)
    for t in schema["relationships"]:
        ends = ", ".join(f"{c['from']} → {c['to']}" for c in t.get("connections", []))
        props = t["properties"] or [{"name": "", "type": ""}]
        for i, p in enumerate(props):
            rels.add_row(t["name"] if i == 0 else "", ends if i == 0 else "", p["name"], p["type"])
        rels.add_section()
    return [nodes, rels]


class CypherConsole:
    """Reads statements and commands from a stream and runs them against one store.

    Args:
        mem: the open store.
        show_rows: prints a query's rows (table, JSON or CSV, as the caller chose).
        write: let queries change the graph.
        params: parameters every query may use (``$name``).
        console: where tables and messages go (stdout).
        errors: where errors go (stderr).
        options: more keywords for every ``cypher()`` call (``files``, ``timeout``).
    """

    def __init__(
        self,
        mem: GraphMemory,
        show_rows: RowsFn,
        *,
        write: bool = False,
        params: dict[str, Any] | None = None,
        console: Console | None = None,
        errors: Console | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.mem = mem
        # Passed to every cypher() call: files=, timeout=.
        self.options = options or {}
        self.show_rows = show_rows
        self.write = write
        self.params = params or {}
        self.out = console or Console()
        self.err = errors or Console(stderr=True)
        self.failures = 0

    def run_query(self, query: str) -> bool:
        """Run one statement; print its rows or its error. Returns True when it succeeded."""
        # Only the parameters the statement names: Kùzu rejects unused ones.
        params = {k: v for k, v in self.params.items() if re.search(rf"\${re.escape(k)}\b", query)}
        try:
            rows = self.mem.cypher(query, params, write=self.write, **self.options)
        except GraphMemError as exc:
            self.failures += 1
            self._error(f"Error: {exc}")
            return False
        self.show_rows(rows)
        return True

    def command(self, line: str) -> bool:
        """Handle a ``:command``; returns False when the console should stop."""
        name = line.strip().split()[0].lower()
        if name in (":quit", ":exit", ":q"):
            return False
        if name == ":help":
            self.out.print(HELP, markup=False, highlight=False)
        elif name == ":schema":
            try:
                tables = schema_tables(self.mem.schema())
            except GraphMemError as exc:
                self._error(f"Error: {exc}")
            else:
                for table in tables:
                    self.out.print(table)
        else:
            self._error(f"Unknown command {name}; try :help")
        return True

    def _error(self, message: str) -> None:
        # markup=False: Kùzu's messages and queries are full of [brackets]; soft_wrap keeps
        # each line whole for whoever reads stderr.
        self.err.print(message, markup=False, highlight=False, soft_wrap=True)

    def run(self, stream: TextIO | None = None, *, interactive: bool | None = None) -> int:
        """Read until ``:quit`` or end of input; returns how many statements failed.

        Args:
            stream: where statements come from (default: standard input).
            interactive: prompt and keep history; default: when ``stream`` is a terminal.
        """
        stream = stream or sys.stdin
        if interactive is None:
            interactive = stream.isatty()
        read = self._prompter() if interactive else _line_reader(stream)
        if interactive:
            mode = "read-write" if self.write else "read-only"
            self.out.print(
                f"graphmem Cypher console on {self.mem.path} ({mode}). "
                "End a statement with ';' or an empty line; :help, :quit.",
                markup=False,
                highlight=False,
            )
        buffer: list[str] = []
        try:
            while True:
                try:
                    line = read(CONTINUATION if buffer else PROMPT)
                except KeyboardInterrupt:  # Ctrl-C drops the statement being typed
                    buffer.clear()
                    click.echo("")
                    continue
                if line is None:  # end of input: run what is left
                    if "".join(buffer).strip():
                        self.run_query("\n".join(buffer))
                    break
                stripped = line.strip()
                if not buffer and stripped.startswith(":"):
                    if not self.command(stripped):
                        break
                    continue
                if not stripped:
                    if buffer:
                        if interactive:
                            _join_history(buffer)
                        self.run_query("\n".join(buffer))
                        buffer.clear()
                    continue
                if stripped.startswith("//") and not buffer:
                    continue
                if stripped.endswith(";"):
                    if interactive:
                        _join_history([*buffer, line])
                    buffer.append(line.rstrip()[:-1])
                    if "".join(buffer).strip():
                        self.run_query("\n".join(buffer))
                    buffer.clear()
                else:
                    buffer.append(line.rstrip("\n"))
        finally:
            if interactive:
                _save_history()
        return self.failures

    def _prompter(self) -> Callable[[str], str | None]:
        _load_history()

        def read(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:
                click.echo("")
                return None

        return read


def _line_reader(stream: TextIO) -> Callable[[str], str | None]:
    def read(_prompt: str) -> str | None:
        line = stream.readline()
        return line.rstrip("\r\n") if line else None

    return read


def _history_path() -> Path:
    return HISTORY_FILE.expanduser()


def _load_history() -> None:
    try:
        import readline
    except ImportError:  # no readline on this platform: plain input() still works
        return
    readline.set_history_length(HISTORY_LENGTH)
    path = _history_path()
    if path.is_file():
        with contextlib.suppress(OSError):  # an unreadable history is no reason to stop
            readline.read_history_file(path)


def _join_history(lines: list[str]) -> None:
    """Replace the history entries of a multi-line statement by one line, for recalling it."""
    if len(lines) < 2:
        return
    try:
        import readline
    except ImportError:
        return
    n = readline.get_current_history_length()
    if n < len(lines):
        return
    for _ in lines:
        n -= 1
        readline.remove_history_item(n)
    readline.add_history(" ".join(ln.strip() for ln in lines))


def _save_history() -> None:
    try:
        import readline

        readline.write_history_file(_history_path())
    except (ImportError, OSError):
        pass  # history is a convenience; never fail the session over it

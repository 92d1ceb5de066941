"""``MEMORY_FILE_PATH`` for ``graphmem mcp --tools server-memory``: the reference's file, in step.

The reference memory server (``@modelcontextprotocol/server-memory``) keeps its graph in the
JSONL file ``MEMORY_FILE_PATH`` names. A user who swaps only the command in the client's
configuration keeps that variable; graphmem then honours it:

- the store lives beside the file (``<folder>/<file stem>.graphmem``), not in the client's
  working folder, unless ``-d``/``GRAPHMEM_DB`` names one;
- the file's graph is the graph: read into the store when the server starts, and again before a
  call whenever the file changed since graphmem last read or wrote it (the reference server or
  another program wrote it). What the file no longer holds is deleted and entity types are
  taken from it, as ``graphmem import -f mcp-memory --sync`` does;
- every change is written back to the file as the reference writes it (the same bytes, through
  a temporary file renamed over it, so no reader sees half a file; created 0600, an existing
  file keeps its mode), so switching back to the reference finds everything.

Where the reference would start empty (no file yet), graphmem keeps what the store holds and
writes it to the file. A relative ``MEMORY_FILE_PATH`` is taken from the working folder: the
reference resolves it against its own install folder, which for ``npx`` is a package cache.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from ...errors import ValidationError
from ...private import FILE_MODE, make_folders, write_private
from .kg import KnowledgeGraph, dumps_jsonl

ENV = "MEMORY_FILE_PATH"
STORE_SUFFIX = ".graphmem"


def from_env(environ: dict[str, str] | None = None) -> Path | None:
    """The file ``MEMORY_FILE_PATH`` names (absolute), or None when it is unset or blank."""
    raw = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not raw:
        return None
    return Path(raw).expanduser().absolute()


def store_beside(path: Path) -> Path:
    """The store kept for a memory file: ``memory.jsonl`` → ``memory.graphmem`` beside it."""
    return path.with_name(path.stem + STORE_SUFFIX)


class MemoryFile:
    """Keeps a reference ``memory.jsonl`` and a graphmem store holding the same graph."""

    def __init__(self, kg: KnowledgeGraph, path: str | Path) -> None:
        self.kg = kg
        self.path = Path(path)
        if self.path.is_dir():
            raise ValidationError(f"{ENV} names a folder, not a file: '{self.path}'")
        # What the file was when graphmem last read or wrote it: another change is news.
        self._seen: tuple[int, int, int] | None = None
        self._lock = threading.RLock()

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def open(self) -> dict[str, int] | None:
        """Take the file's graph (or write the store's when there is no file yet); returns
        what reading it changed, None when it was written instead."""
        with self._lock:
            if self._signature() is None:
                graph = self.kg.read_graph()
                if graph["entities"] or graph["relations"]:
                    self.write_back()
                return None
            return self.refresh(force=True)

    def refresh(self, force: bool = False) -> dict[str, int] | None:
        """Read the file again if it changed since graphmem last read or wrote it (a file that
        disappeared changes nothing: the next write creates it again)."""
        with self._lock:
            seen = self._signature()
            if seen is None or (seen == self._seen and not force):
                return None
            counts = self.kg.import_jsonl(self.path, sync=True)
            self._seen = seen
            return counts

    def write_back(self) -> None:
        """Write the graph to the file as the reference would."""
        with self._lock:
            text = dumps_jsonl(self.kg.read_graph())
            make_folders(self.path.parent)
            try:
                mode = stat.S_IMODE(self.path.stat().st_mode)
            except FileNotFoundError:
                mode = FILE_MODE
            temp = self.path.with_name(f"{self.path.name}.{secrets.token_hex(8)}.tmp")
            try:
                write_private(temp, text, perm=mode)
                os.replace(temp, self.path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    temp.unlink()
            self._seen = self._signature()

    @contextlib.contextmanager
    def step(self, writes: bool) -> Iterator[None]:
        """Around one call: read the file first if it changed; write back after a change."""
        with self._lock:
            self.refresh()
            yield
            if writes:
                self.write_back()


__all__ = ["ENV", "MemoryFile", "from_env", "store_beside"]

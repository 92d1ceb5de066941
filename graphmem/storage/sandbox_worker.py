"""The Cypher sandbox's worker process: runs callers' statements on a read-only copy of a store.

Started by graphmem.storage.sandbox with ``python -m graphmem.storage.sandbox_worker``; it speaks
length-prefixed JSON frames on stdin/stdout (4-byte big-endian length, then a UTF-8 JSON object,
values tagged by graphmem.codec). The first frame opens the copy::

    {"db": "<copy>/graph.kuzu", "files": "<folder>" | null, "memory_mb": 512, "threads": 2}

and each later frame is one statement::

    {"query": "...", "params": {...}, "timeout_ms": 30000, "max_rows": 100000,
     "max_bytes": 33554432, "write": false, "run": true}

answered by ``{"ok": true, "rows": [...] | null, "operators": [...]}`` or
``{"ok": false, "kind": "cypher" | "readonly" | "limit", "message": "..."}``.

Before it answers the first frame, the worker shuts itself out of every file but the caller's
folder (Landlock, Linux), caps its address space (RLIMIT_AS) and core dumps, and only then reads
statements. A statement that crashes Kùzu (there are several in 0.11.3) kills this process,
never the owner; one that allocates without bound fails here.
"""

from __future__ import annotations

import json
import os
import resource
import struct
import sys
from pathlib import Path
from typing import IO, Any, cast

import kuzu

from .. import codec
from ..errors import CypherError, ReadOnlyError
from . import cypher_guard, landlock
from .engine import plain_value

# Kùzu's own page cache for the copy: statements that need more fail inside Kùzu.
BUFFER_POOL_BYTES = 128 * 1024 * 1024


def read_frame(stream: IO[bytes], limit: int) -> dict[str, Any] | None:
    """One frame, or None at end of stream.

    Raises:
        ValueError: a frame longer than ``limit`` bytes, or cut short.
    """
    head = stream.read(4)
    if not head:
        return None
    if len(head) < 4:
        raise ValueError("cut-short frame header")
    (size,) = struct.unpack(">I", head)
    if size > limit:
        raise ValueError(f"a frame of {size} bytes is over the limit of {limit}")
    body = stream.read(size)
    if len(body) < size:
        raise ValueError("cut-short frame")
    value = json.loads(body)
    if not isinstance(value, dict):
        raise ValueError("a frame must be a JSON object")
    return value


def write_frame(stream: IO[bytes], value: dict[str, Any]) -> None:
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    stream.write(struct.pack(">I", len(body)) + body)
    stream.flush()


def _max_db_size(db: Path) -> int:
    """Kùzu reserves address space for the whole file: a power of two well above its size."""
    size = sum(p.stat().st_size for p in db.parent.iterdir() if p.name.startswith(db.name))
    return 1 << max(30, (4 * size + 1).bit_length())


def _address_space(status: IO[bytes]) -> int:
    """VmSize from an open ``/proc/self/status`` (opened before Landlock, which would refuse)."""
    status.seek(0)
    for line in status.read().decode().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _open(setup: dict[str, Any]) -> tuple[kuzu.Connection, int]:
    db = Path(setup["db"])
    files = setup.get("files")
    max_db_size = _max_db_size(db)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    linux = sys.platform.startswith("linux")
    status = open("/proc/self/status", "rb") if linux else None  # noqa: SIM115 (kept open)
    # Landlock binds the threads that exist when it is applied and those they start, so it
    # comes before Kùzu starts its worker threads (a COPY TO runs on one of them).
    # A scratch copy that checks a write is the worker's own to change.
    rules = {db.parent: landlock.READ_WRITE if setup.get("writable") else landlock.READ}
    if files:
        os.chdir(files)  # a relative path in a statement is inside the caller's folder
        os.umask(0o077)  # COPY … TO output is private to the user
        rules[Path(files)] = landlock.READ_WRITE
    abi = landlock.restrict(rules)
    if files and not abi:
        raise OSError("file access in cypher() needs Linux Landlock, which this kernel lacks")
    database = kuzu.Database(
        str(db),
        # A worker that checks a write opens its own scratch copy read-write (Kùzu will not
        # even plan a write on a read-only database); nothing it does reaches the store.
        read_only=not setup.get("writable"),
        buffer_pool_size=BUFFER_POOL_BYTES,
        max_num_threads=int(setup.get("threads", 2)),
        max_db_size=max_db_size,
    )
    conn = kuzu.Connection(database)
    _collect(conn.execute("RETURN 1 AS one"), 1, 1 << 20)
    if status is not None:
        # The memory a statement may take on top of what an open database needs.
        limit = _address_space(status) + int(setup["memory_mb"]) * 1024 * 1024
        status.close()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return conn, abi


def _collect(result: Any, max_rows: int, max_bytes: int) -> list[Any]:
    columns = result.get_column_names()
    rows: list[Any] = []
    size = 0
    while result.has_next():
        if len(rows) >= max_rows:
            raise _Limit(f"The result has more than {max_rows} rows: add a LIMIT")
        row = _encode(dict(zip(columns, map(plain_value, result.get_next()), strict=False)))
        size += len(json.dumps(row, ensure_ascii=False))
        if size > max_bytes:
            raise _Limit(
                f"The result is larger than {max_bytes} bytes: add a LIMIT or return fewer columns"
            )
        rows.append(row)
    return rows


class _Limit(Exception):
    pass


def _encode(value: Any) -> Any:
    """``value`` tagged for the wire; a Kùzu value the codec does not know travels as text."""
    try:
        return codec.encode(value)
    except TypeError:
        if isinstance(value, dict):
            return {str(k): _encode(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [_encode(v) for v in value]
        return str(value)


def _statement(conn: kuzu.Connection, req: dict[str, Any], files: bool) -> dict[str, Any]:
    query = req["query"]
    params = codec.decode(req.get("params") or {})
    try:
        # Kùzu prepares exactly one statement: its parser decides what "one" is.
        prepared = conn._prepare(query)
        if not prepared.is_success():
            message = prepared.get_error_message().strip()
            if "multiple statements" in message:
                message = f"One statement per call: remove the ';' between statements ({message})"
            raise CypherError(message, query)
        explain = conn._prepare("EXPLAIN " + query)
        if not explain.is_success():
            raise CypherError(explain.get_error_message().strip(), query)
        result = conn.execute(explain, params)
        assert not isinstance(result, list)  # a prepared statement is one statement
        text = "\n".join(str(r[0]) for r in cast("list[list[Any]]", result.get_all()))
        plan = cypher_guard.read_plan(text)
        cypher_guard.check(plan, query, write=bool(req.get("write")), files=files)
        rows = None
        if req.get("run", True):
            conn.set_query_timeout(max(1, int(req["timeout_ms"])))
            result = conn.execute(prepared, params)
            rows = _collect(result, int(req["max_rows"]), int(req["max_bytes"]))
        return {"ok": True, "rows": rows, "operators": list(plan.operators)}
    except ReadOnlyError as exc:
        return {"ok": False, "kind": "readonly", "message": str(exc)}
    except CypherError as exc:
        return {"ok": False, "kind": _kind(exc.args[0], req), "message": exc.args[0]}
    except _Limit as exc:
        return {"ok": False, "kind": "limit", "message": str(exc)}
    except MemoryError:
        return {"ok": False, "kind": "memory", "message": "out of memory"}
    except Exception as exc:  # Kùzu raises RuntimeError, and other classes for some errors
        message = str(exc).strip() or type(exc).__name__
        return {"ok": False, "kind": _kind(message, req), "message": message}


def _kind(message: str, req: dict[str, Any]) -> str:
    """What kind of failure Kùzu's message reports (the owner words each kind for the caller)."""
    low = message.lower()
    if "interrupted" in low:
        return "timeout"
    if "bad_alloc" in low or "buffer manager exception" in low or "out of memory" in low:
        return "memory"
    # Kùzu will not even prepare a write on the read-only copy: that is a refused write.
    if "read-only" in low and not req.get("write"):
        return "readonly"
    return "cypher"


def main() -> int:
    # Frames go out on a private copy of stdout; anything printed by mistake goes to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    setup = read_frame(stdin, 1 << 20)
    if setup is None:
        return 0
    try:
        conn, abi = _open(setup)
    except Exception as exc:  # reported to the owner, which raises a typed error
        write_frame(out, {"ok": False, "kind": "open", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    write_frame(out, {"ok": True, "landlock": abi})
    files = bool(setup.get("files"))
    while (req := read_frame(stdin, 64 << 20)) is not None:
        write_frame(out, _statement(conn, req, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())

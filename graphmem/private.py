"""Files only their owner can read: what graphmem writes (exports, viz pages) is 0600 from birth.

Memories are personal, and a process umask of 022 (the usual one) would make every file
written with ``open(path, "w")`` readable by all local users. So a file is created under a
temporary name by :func:`tempfile.mkstemp` (``O_CREAT | O_EXCL``, mode 0600: no other user can
open it, not even for the instant before a ``chmod``), filled, and renamed over the target.
The rename also means a reader never sees a half-written file, and an existing file with wider
modes is replaced, not rewritten in place with its old mode. Missing folders are made 0700.

A path that already names something other than a regular file (``/dev/stdout``, a FIFO) is
written into as it is: graphmem created neither it nor its mode.

Only the standard library (and ``graphmem.errors``) is used, so ``graphmem.export.viz`` can use it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .errors import GraphMemError, ValidationError

__all__ = [
    "FILE_MODE",
    "FOLDER_MODE",
    "file_mode",
    "make_folders",
    "open_private",
    "write_private",
]

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def make_folders(folder: Path, mode: int = FOLDER_MODE) -> None:
    """Create ``folder`` and its missing parents, each with ``mode`` (0700).

    Unlike ``Path.mkdir(parents=True)``, which gives the parents the umask's default (0755),
    every folder made here gets ``mode``. Folders that exist are left as they are.
    """
    missing: list[Path] = []
    for p in [folder, *folder.parents]:
        if p.exists():
            break
        missing.append(p)
    for p in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            p.mkdir(mode=mode)


def file_mode(mode: Any) -> int:
    """``mode`` checked as permission bits (0 to 0o777).

    Raises:
        ValidationError: it is not an int in that range.
    """
    if isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode <= 0o777:
        raise ValidationError(f"mode must be permission bits from 0o000 to 0o777, got {mode!r}")
    return mode


@contextlib.contextmanager
def open_private(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = None,
    newline: str | None = None,
    perm: int = FILE_MODE,
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing (``mode`` ``"w"`` or ``"wb"``) as a file created with ``perm``.

    The data goes to a temporary file beside ``path`` (created 0600), which replaces ``path``
    when the block ends without an exception; on an exception ``path`` is left untouched.
    ``perm`` other than 0600 is set on the temporary file before anything is written (the user
    asked for it, so there is nothing to hide). Symlinks are followed to the file they name.

    Raises:
        GraphMemError: the file cannot be created or written (a missing permission, a folder
            in the way, a full disk); the error names the path.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"open_private writes files: mode must be 'w' or 'wb', not {mode!r}")
    perm = file_mode(perm)
    target = Path(os.path.realpath(path))
    try:
        special = not stat.S_ISREG(target.stat().st_mode)
    except FileNotFoundError:
        special = False
    except OSError as exc:
        raise GraphMemError(f"Cannot write '{path}': {exc}") from exc
    if special:
        # A device or a pipe the caller named: write into it, nothing is created.
        try:
            with open(target, mode, encoding=encoding, newline=newline) as fh:
                yield fh
        except OSError as exc:
            raise GraphMemError(f"Cannot write '{path}': {exc}") from exc
        return
    try:
        make_folders(target.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise GraphMemError(f"Cannot write '{path}': {exc}") from exc
    try:
        if perm != FILE_MODE and hasattr(os, "fchmod"):
            os.fchmod(fd, perm)
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise GraphMemError(f"Cannot write '{path}': {exc}") from exc
        raise


def write_private(
    path: str | os.PathLike[str], data: str | bytes, *, perm: int = FILE_MODE
) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through :func:`open_private`; returns the path."""
    if isinstance(data, bytes):
        with open_private(path, "wb", perm=perm) as fh:
            fh.write(data)
    else:
        with open_private(path, "w", encoding="utf-8", perm=perm) as fh:
            fh.write(data)
    return Path(path)

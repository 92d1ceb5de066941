"""Free disk space: graphmem refuses a write before the disk is full, never during it.

Kùzu 0.11.3 does not survive running out of space. A COMMIT whose WAL write fails with
ENOSPC leaves the database's state half-applied in memory: the primary-key index keeps the
key of a row that is not there (a retry of the same write then fails with "duplicated primary
key" or cannot find the row its edges name), and closing the database afterwards aborts the
process with glibc heap corruption (measured: tmpfs of 20 MB, ``free(): invalid next size``,
whether or not the write was retried). Kùzu is archived, so this will not be fixed there.

So graphmem keeps Kùzu away from a full disk: the journal (ours) refuses a new write while
less than ``min_free`` bytes are free, and every Kùzu write transaction and checkpoint checks
that a smaller share of that margin is still free before it starts. Both raise
``DiskFullError`` and touch nothing; as soon as space is freed the next call goes through. What
this cannot prevent is another process taking the last bytes between the check and Kùzu's
write; then the engine is marked broken and refuses writes until the store is reopened (its
acknowledged writes wait in the journal).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..errors import DiskFullError

MIB = 1024 * 1024
# The default of ``Config.min_free_disk_mb``: new writes are refused below it.
DEFAULT_MIN_FREE = 64 * MIB
# A Kùzu write transaction needs this share of the margin free: it applies what was already
# acknowledged (the journal), or a maintenance or cluster write, all far smaller than it.
APPLY_SHARE = 4
_DISK_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
# How Kùzu 0.11.3 reports a failed write to a file (its message ends "Error: Success" for a
# short write, which is what ENOSPC gives it) or a failed allocation of file space.
_KUZU_WRITE_FAILURES = ("cannot write to file", "no space left", "disk quota")


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer may still use on the file system holding ``folder``."""
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def require(folder: Path, need: int, doing: str) -> None:
    """Raise ``DiskFullError`` unless ``need`` bytes are free where ``folder`` is.

    A folder that cannot be examined (statvfs unsupported) passes: the write itself reports.
    """
    if need <= 0:
        return
    try:
        free = free_bytes(folder)
    except (OSError, AttributeError):
        return
    if free < need:
        raise DiskFullError(
            f"The disk holding '{folder}' is almost full ({free / MIB:.1f} MB free): {doing} "
            f"was refused, and nothing of it was stored. graphmem keeps {need / MIB:.0f} MB free "
            "so the database never runs out of space mid-write. Free some space: writing "
            "resumes by itself, no restart needed."
        )


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is a write failing for lack of
    space: ENOSPC or EDQUOT, or Kùzu's report of a failed file write."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DiskFullError):
            return True
        if isinstance(current, OSError) and current.errno in _DISK_FULL_ERRNOS:
            return True
        text = str(current).lower()
        if any(marker in text for marker in _KUZU_WRITE_FAILURES):
            return True
        current = current.__cause__ or current.__context__
    return False

"""Linux Landlock: shut a process out of every file but those under a few folders.

The Cypher sandbox's worker (graphmem.storage.sandbox_worker) calls ``restrict`` once it has opened its
copy of the database, so whatever a statement asks Kùzu to do (``LOAD FROM '/etc/shadow'``,
``COPY … TO '/home/you/.bashrc'``, ``LOAD EXTENSION``), the kernel refuses to open any file
outside the folder the caller allowed, whatever path, glob, ``..`` or symlink names it. The
kernel decides on the file actually opened, so no re-reading of Cypher can drift from it.

Hand-written over ctypes because Landlock is three system calls and a prctl, and the only
Python binding on PyPI is a pre-release; the ABI is stable and versioned by the kernel.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path

# The same numbers on every architecture (new system calls share one table since 5.x).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (include/uapi/linux/landlock.h), by the ABI version that added them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
# Network rights (ABI 4): handled with no rule, so the process can neither bind nor connect TCP.
_NET_ALL = (1 << 0) | (1 << 1)
# Scopes (ABI 6): no signals to, and no abstract Unix sockets of, processes outside the domain.
_SCOPE_ALL = (1 << 0) | (1 << 1)

READ = READ_FILE | READ_DIR
READ_WRITE = READ | WRITE_FILE | REMOVE_FILE | REMOVE_DIR | MAKE_DIR | MAKE_REG | TRUNCATE

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled."""
    if _libc is None:
        return 0
    version = _libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def restrict(rules: dict[Path, int]) -> int:
    """Allow this process (and its children) only ``rules``' rights beneath their folders.

    Irreversible. Files already open stay usable. Returns the ABI version applied (0: Landlock
    is not available, nothing was restricted; the caller decides whether that is acceptable).

    Raises:
        OSError: the kernel refused a rule or the restriction.
    """
    abi = abi_version()
    if abi == 0 or _libc is None:
        return 0
    fs = _FS_BY_ABI[max(v for v in _FS_BY_ABI if v <= abi)]
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, _NET_ALL, _SCOPE_ALL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, _NET_ALL)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _libc.syscall(_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), 0)
    if ruleset < 0:
        raise _error("landlock_create_ruleset")
    try:
        for folder, rights in rules.items():
            fd = os.open(folder, os.O_PATH | os.O_CLOEXEC | os.O_DIRECTORY)
            try:
                rule = struct.pack("=Qi", rights & fs, fd)
                rbuf = ctypes.create_string_buffer(rule, len(rule))
                if _libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rbuf, 0) < 0:
                    raise _error(f"landlock_add_rule({folder})")
            finally:
                os.close(fd)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
            raise _error("prctl(PR_SET_NO_NEW_PRIVS)")
        if _libc.syscall(_RESTRICT_SELF, ruleset, 0) < 0:
            raise _error("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _error(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")

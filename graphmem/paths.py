"""The files of a store folder: the database, the holder's Unix socket, the serve token.

Kept free of heavy imports: a client finds a store's holder from these paths alone. Every process derives the same socket path from the store's resolved path, so a client finds
the holder without any registry. The socket lives in the store folder (0700, so no other user
can reach it); a path too long for a Unix socket (about 100 bytes) moves it to a private
per-user folder under ``$XDG_RUNTIME_DIR`` or the temp dir, named by a hash of the store path.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

from .errors import GraphMemError, ValidationError

DB_FILE = "graph.kuzu"
SOCKET_NAME = "graphmem.sock"
TOKEN_NAME = "serve.token"
# sun_path is 108 bytes on Linux and 104 on macOS, NUL included.
_MAX_SOCKET_PATH = 100


def socket_path(store: Path) -> Path:
    """The Unix socket the holder of ``store`` listens on."""
    store = store.expanduser().resolve()
    candidate = store / SOCKET_NAME
    if len(os.fsencode(candidate)) <= _MAX_SOCKET_PATH:
        return candidate
    digest = hashlib.sha256(os.fsencode(store)).hexdigest()[:32]
    return private_dir(_runtime_base() / f"graphmem-{os.getuid()}") / f"{digest}.sock"


def _runtime_base() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner can enter: created 0700, or checked when it exists.

    Raises:
        GraphMemError: it exists and belongs to another user (someone may be trying to
            intercept the socket), or it is not a folder.
    """
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError as exc:
        raise GraphMemError(f"Cannot create the private folder '{path}': {exc}") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise GraphMemError(
            f"'{path}' is not a folder owned by you: refusing to put a store socket there."
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(0o700)
    return path


def token_path(store: Path) -> Path:
    """Where ``graphmem serve --tcp`` keeps its token."""
    return store.expanduser().resolve() / TOKEN_NAME


def token(store: Path, *, create: bool) -> str:
    """The token a TCP client must send (``Authorization: Bearer <token>``).

    Kept in ``<store>/serve.token`` (0600); ``create`` makes one when there is none.

    Raises:
        GraphMemError: there is no token and ``create`` is False.
    """
    path = token_path(store)
    if path.exists():
        value = path.read_text(encoding="ascii").strip()
        if value:
            return value
    if not create:
        raise GraphMemError(f"No serve token at '{path}'.")
    value = secrets.token_urlsafe(32)
    # Created 0600: the token is never readable by anyone else, not even for a moment.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(value + "\n")
    path.chmod(0o600)
    return value


def caller_folder(name: str, value: object) -> Path:
    """A folder the caller names (``cypher(files=...)``), made absolute in the caller's process.

    Resolved here, before the call may travel to another process that owns the store, so a
    relative path means the caller's working folder, never the owner's.

    Raises:
        ValidationError: not a path, or no such folder.
    """
    if not isinstance(value, str | Path) or not str(value).strip():
        raise ValidationError(f"{name} must be a folder path, got {type(value).__name__}")
    try:
        folder = Path(value).expanduser().resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ValidationError(f"{name}: cannot resolve '{value}': {exc}") from exc
    if not folder.is_dir():
        raise ValidationError(f"{name} must name an existing folder; got '{value}'")
    return folder

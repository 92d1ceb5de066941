"""The files of a store folder: the database, the owner's Unix socket, the serve token.

Kept free of heavy imports: a client finds a store's owner from these paths alone. Every
process derives the same socket path from the store's resolved path, so a client finds the
owner without any registry. The socket lives in the store folder (0700, so no other user can
reach it); a path too long for a Unix socket (about 100 bytes) moves it to a private per-user
folder, named by a hash of the store path: ``graphmem-<uid>`` under ``$XDG_RUNTIME_DIR``, else
under the temp dir, else ``~/.cache/graphmem/sockets``: the first that is (or can be made) a
folder of ours that no one else can write, and short enough. One another user made first (to
squat it) is passed over, never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import secrets
import stat
import tempfile
from collections import Counter
from pathlib import Path

from .errors import GraphMemError, ValidationError
from .private import make_folders

DB_FILE = "graph.kuzu"
SOCKET_NAME = "graphmem.sock"
TOKEN_NAME = "serve.token"
# A server's token from the environment instead of the file (graphmem serve; Kubernetes).
SERVE_TOKEN_ENV = "GRAPHMEM_SERVE_TOKEN"
SOCKET_POINTER = "owner.socket"
# sun_path is 108 bytes on Linux and 104 on macOS, NUL included.
_MAX_SOCKET_PATH = 100


def socket_path(store: Path) -> Path:
    """The Unix socket the owner of ``store`` listens on.

    Raises:
        GraphMemError: the store path is too long for a socket in its folder and no private
            per-user folder is both safe and short enough (the message says what to do).
    """
    store = store.expanduser().resolve()
    candidate = store / SOCKET_NAME
    if len(os.fsencode(candidate)) <= _MAX_SOCKET_PATH:
        return candidate
    name = hashlib.sha256(os.fsencode(store)).hexdigest()[:32] + ".sock"
    refused: list[str] = []
    for folder in _runtime_folders():
        if len(os.fsencode(folder / name)) > _MAX_SOCKET_PATH:
            refused.append(f"'{folder}' is too long a path")
            continue
        try:
            return private_dir(folder) / name
        except GraphMemError as exc:
            refused.append(str(exc))
    raise GraphMemError(
        f"The store path '{store}' is too long for a Unix socket in its folder, and no private "
        f"folder can hold it ({'; '.join(refused)}). Set XDG_RUNTIME_DIR to a short folder of "
        "yours (mode 0700), or use a shorter store path."
    )


def socket_pointer(store: Path) -> Path:
    """The file in the store's folder where an owner whose socket is elsewhere (a long store
    path: ``socket_path``) names it, for processes whose environment would look elsewhere."""
    return store.expanduser().resolve() / SOCKET_POINTER


def owner_sockets(store: Path) -> list[Path]:
    """Where the owner of ``store`` may listen, for a process looking for it: the socket this
    process would use, then the one the owner named in the store's folder (``socket_pointer``).
    A long store path puts the socket in a per-user folder the owner's environment chose
    (``XDG_RUNTIME_DIR``, the temp dir), and an MCP client starts its server with a reduced
    environment: without the pointer it looked elsewhere and found no owner. The pointer is
    trusted only as a file of ours, naming a socket in a folder only we can write."""
    found: list[Path] = []
    with contextlib.suppress(GraphMemError):
        found.append(socket_path(store))
    pointer = socket_pointer(store)
    try:
        info = pointer.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return found
        named = Path(pointer.read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError, ValueError):
        return found
    if named.is_absolute() and named not in found and _ours(named.parent):
        found.append(named)
    return found


def point_to_socket(store: Path, sock: Path) -> Path | None:
    """Name ``sock`` in the store's folder when it is not there (``owner_sockets``): written
    0600 beside and renamed into place. Returns the pointer written, or None."""
    folder = store.expanduser().resolve()
    pointer = socket_pointer(folder)
    if sock.parent == folder:
        with contextlib.suppress(OSError):
            pointer.unlink()
        return None
    part = pointer.with_name(f".{SOCKET_POINTER}.{os.getpid()}")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{sock}\n")
        os.replace(part, pointer)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()
        return None  # clients with this process's environment still find the socket
    return pointer


def unpoint_socket(pointer: Path, sock: Path) -> None:
    """Remove the pointer if it still names ``sock`` (another owner may have written its own)."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if pointer.read_text(encoding="utf-8").strip() == str(sock):
            pointer.unlink()


def _ours(folder: Path) -> bool:
    """Whether ``folder`` is a folder of this user that no one else can write in."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not stat.S_IMODE(info.st_mode) & 0o022
    )


def _runtime_folders() -> list[Path]:
    """Where a socket may go when the store's folder is too deep, in order of preference."""
    uid = os.getuid()
    folders = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        folders.append(Path(runtime) / f"graphmem-{uid}")
    folders.append(Path(tempfile.gettempdir()) / f"graphmem-{uid}")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folders.append(Path(cache) / "graphmem" / "sockets")
    return folders


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner can enter: created 0700, or checked when it exists.

    Raises:
        GraphMemError: it is not a folder of ours (a link, a file, or another user's: someone
            may be trying to intercept the socket), or others can write in it (they could have
            put a socket of their own there).
    """
    try:
        make_folders(path)
        info = path.lstat()
    except OSError as exc:
        raise GraphMemError(f"Cannot create the private folder '{path}': {exc}") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise GraphMemError(f"'{path}' is not a folder owned by you: not putting a socket there")
    if stat.S_IMODE(info.st_mode) & 0o022:
        raise GraphMemError(f"'{path}' can be written by other users: not putting a socket there")
    if stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(0o700)
    return path


def token_path(store: Path) -> Path:
    """Where ``graphmem serve --tcp`` keeps its token."""
    return store.expanduser().resolve() / TOKEN_NAME


# A token must be at least this long, not one piece repeated, and carry at least this many
# bits by the count of its characters (secrets.token_urlsafe(32) scores about 200; 32 random
# hex digits about 115, rarely under 95).
MIN_TOKEN_LENGTH = 32
MIN_TOKEN_BITS = 80
_MAKE_ONE = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def token(store: Path, *, create: bool) -> str:
    """The token a TCP client must send (``Authorization: Bearer <token>``).

    Kept in ``<store>/serve.token``, mode 0600; ``create`` makes one when there is none
    (created 0600 beside it and renamed into place, so it is never readable by anyone else,
    not even for a moment, nor ever half-written).

    Raises:
        GraphMemError: there is no token and ``create`` is False; or the file there is not a
            private file of ours (other users can read it, or it is a link, or another user's)
            or holds a weak token: it is refused, never used, and the message says how to fix it.
    """
    path = token_path(store)
    value = _read_token(path)
    if value is not None:
        return value
    if not create:
        raise GraphMemError(f"No serve token at '{path}'.")
    value = secrets.token_urlsafe(32)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{TOKEN_NAME}.")  # 0600, O_EXCL
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(value + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            # Linked, not renamed: servers starting together on one folder of stores must
            # not each put their own token in place (the last would lock the others' clients
            # out); the first one's stays and the others read it.
            os.link(temp, path)
        except FileExistsError:
            if _read_token(path) is None:  # an empty file: nothing to keep
                os.replace(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    kept = _read_token(path)
    if kept is None:
        raise GraphMemError(f"The serve token '{path}' could not be written.")
    return kept


def token_from_env(name: str = SERVE_TOKEN_ENV) -> str | None:
    """The serve token given in the environment variable ``name`` (a Kubernetes Secret is
    passed so: a mounted file would belong to another user), or None when it is not set.

    Raises:
        GraphMemError: the token is weak (the same rule as for the file).
    """
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    return check_strength(value.strip(), f"${name}")


def _read_token(path: Path) -> str | None:
    """The token in ``path``; None when there is none (no file, or an empty one)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link (ELOOP), or unreadable
        raise GraphMemError(f"Cannot read the serve token '{path}': {exc}") from exc
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise GraphMemError(f"'{path}' is not a file of yours: remove it.")
        raw = fh.read(4096)
    if not raw.strip():  # nothing to leak: a new token replaces it
        return None
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise GraphMemError(
            f"The serve token '{path}' can be read by other users (mode {mode:04o}), so it may "
            "be known: delete it to have a new one made (graphmem serve makes one, 0600), or "
            f"run `chmod 600 {path}` if you are sure no one has read it."
        )
    try:
        value = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        value = "\x00"  # refused as weak below
    return check_strength(value, f"'{path}'")


def check_strength(value: str, where: str) -> str:
    """``value`` when it is strong enough to be a serve token.

    Raises:
        GraphMemError: it is too short, repetitive or of too few distinct characters (the
            message says how to make a strong one).
    """
    bits = _estimated_bits(value)
    repeated = value in (value + value)[1:-1]  # "abcabc…": one piece over and over
    if (
        len(value) < MIN_TOKEN_LENGTH
        or bits < MIN_TOKEN_BITS
        or repeated
        or not value.isprintable()
    ):
        raise GraphMemError(
            f"The serve token in {where} is too weak ({len(value)} characters, about {bits:.0f} "
            f"bits; at least {MIN_TOKEN_LENGTH} random characters and {MIN_TOKEN_BITS} bits are "
            f"needed): delete it to have a strong one made, or write one made with {_MAKE_ONE}."
        )
    return value


def _estimated_bits(value: str) -> float:
    """The token's length times the Shannon entropy of its characters: repeats and small
    alphabets ("aaaa…", "abab…", "password") score low; a random token scores near its
    real strength."""
    counts = Counter(value)
    n = len(value)
    return -n * sum(c / n * math.log2(c / n) for c in counts.values())


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

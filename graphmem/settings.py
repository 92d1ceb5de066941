"""One configuration: flags, environment, the store's ``graphmem.toml`` and a user file.

Each setting is looked up in this order, the first that sets it wins:

1. a command-line flag (``--model-path``, ``-d``, ``--tcp``, ``--tools``);
2. an environment variable (``GRAPHMEM_MODEL_PATH``, ``GRAPHMEM_DB``, ``GRAPHMEM_TIMEOUT``);
3. ``graphmem.toml`` in the store's folder (settings for that store);
4. the user file: ``GRAPHMEM_CONFIG`` if set, else ``config.toml`` in the platform's config
   folder (``$XDG_CONFIG_HOME/graphmem`` or ``~/.config/graphmem`` on Linux,
   ``~/Library/Application Support/graphmem`` on macOS, ``%APPDATA%\\graphmem`` on Windows);
5. the default.

The store (``db``) cannot come from the store's own file, so it skips step 3. Both files use
the same keys::

    model_path = "~/models/all-MiniLM-L6-v2-onnx"
    db = "~/memory"            # the default store (user file)
    timeout = 20               # seconds to wait for a store's owner
    linger = 60                # seconds a CLI call's owner stays for the next call (0: none)

    [serve]
    tcp = "127.0.0.1:8765"     # graphmem serve also listens here
    allow_hosts = "host.docker.internal"   # Host names TCP clients may use (comma-separated)

    [mcp]
    tools = "server-memory"    # graphmem mcp serves these tools

    [viz]
    overview_above = 300       # graphmem viz opens as an overview above this many nodes

TOML is read with the standard library's ``tomllib`` (Python 3.11+) or ``tomli`` on 3.10.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from .config import DB_ENV, DEFAULT_OWNER_TIMEOUT, MODEL_PATH_ENV, TIMEOUT_ENV
from .errors import ValidationError

LINGER_ENV = "GRAPHMEM_LINGER"
# Seconds the owner a CLI call starts stays after the last call (see graphmem.cli.linger).
DEFAULT_LINGER = 60

STORE_FILE = "graphmem.toml"
USER_FILE_ENV = "GRAPHMEM_CONFIG"
DEFAULT_DB = "./memory"


@dataclass(frozen=True)
class Spec:
    """One setting: its key in the files, its flag, its variable and its default."""

    key: str
    flag: str | None
    env: str | None
    default: Any
    kind: type
    per_store: bool = True


SPECS: tuple[Spec, ...] = (
    Spec("db", "-d/--db", DB_ENV, DEFAULT_DB, str, per_store=False),
    Spec("model_path", "--model-path", MODEL_PATH_ENV, None, str),
    Spec("timeout", None, TIMEOUT_ENV, DEFAULT_OWNER_TIMEOUT, float),
    Spec("linger", None, LINGER_ENV, DEFAULT_LINGER, float),
    Spec("serve.tcp", "--tcp", None, None, str),
    Spec("serve.allow_hosts", "--allow-host", None, None, str),
    Spec("mcp.tools", "--tools", None, "graphmem", str),
    Spec("viz.overview_above", "--overview-above", None, 300, int),
)
_BY_KEY = {s.key: s for s in SPECS}


@dataclass(frozen=True)
class Setting:
    """A setting's value and where it came from."""

    key: str
    value: Any
    source: str


def user_file() -> Path:
    """The user-level configuration file (it need not exist)."""
    named = os.environ.get(USER_FILE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "graphmem" / "config.toml"


def read_file(path: Path) -> dict[str, Any]:
    """The settings in one TOML file, flattened to dotted keys (``serve.tcp``); {} if absent.

    Raises:
        ValidationError: the file is not valid TOML, or holds an unknown key or a bad value.
    """
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (FileNotFoundError, NotADirectoryError):
        # No file, or its folder is not a folder (-d naming a file): nothing is configured
        # there, and the command says what is wrong with the store.
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValidationError(f"cannot read the configuration file '{path}': {exc}") from exc
    flat = _flatten(data)
    for key, value in flat.items():
        spec = _BY_KEY.get(key)
        if spec is None:
            known = ", ".join(_BY_KEY)
            raise ValidationError(f"{path}: unknown setting '{key}'; known settings: {known}")
        flat[key] = _convert(spec, value, str(path))
    return flat


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _convert(spec: Spec, value: Any, where: str) -> Any:
    if spec.kind in (int, float):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValidationError(f"{where}: {spec.key} must be a number, got {value!r}") from None
        if isinstance(value, bool) or not number >= 0:  # negative, or NaN
            raise ValidationError(f"{where}: {spec.key} must be a number >= 0, got {value!r}")
        if spec.kind is int:
            if not number.is_integer():
                raise ValidationError(f"{where}: {spec.key} must be a whole number, got {value!r}")
            return int(number)
        # A whole number stays one: `timeout = 20` shows as 20, not 20.0.
        return int(number) if number.is_integer() else number
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{where}: {spec.key} must be a non-empty string, got {value!r}")
    value = value.strip()
    if spec.key in ("db", "model_path"):
        # A relative path in a file is relative to that file's folder, not to the shell's.
        path = Path(value).expanduser()
        if not path.is_absolute() and where not in ("flag", "env") and Path(where).exists():
            path = Path(where).parent / path
        return str(path)
    return value


def resolve(
    flags: dict[str, Any] | None = None, *, store: str | Path | None = None
) -> dict[str, Setting]:
    """Every setting with its value and source.

    Args:
        flags: values given on the command line, by key (None = not given).
        store: the store's folder; default: the resolved ``db``.
    """
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    user_path = user_file()
    user = read_file(user_path)
    db = _pick(_BY_KEY["db"], flags, {}, None, user, user_path)
    folder = Path(store if store is not None else db.value).expanduser()
    store_path = folder / STORE_FILE
    is_remote = str(store if store is not None else db.value).startswith(("http://", "https://"))
    in_store = {} if is_remote else read_file(store_path)
    out = {"db": db}
    for spec in SPECS[1:]:
        out[spec.key] = _pick(spec, flags, in_store, store_path, user, user_path)
    return out


def _pick(
    spec: Spec,
    flags: dict[str, Any],
    in_store: dict[str, Any],
    store_path: Path | None,
    user: dict[str, Any],
    user_path: Path,
) -> Setting:
    if spec.key in flags:
        return Setting(spec.key, flags[spec.key], f"flag {spec.flag}")
    raw = os.environ.get(spec.env, "").strip() if spec.env else ""
    if raw:
        try:
            return Setting(spec.key, _convert(spec, raw, "env"), f"env {spec.env}")
        except ValidationError:
            pass  # a bad variable is ignored (as before), so the files and default apply
    if spec.per_store and spec.key in in_store:
        return Setting(spec.key, in_store[spec.key], f"store file {store_path}")
    if spec.key in user:
        return Setting(spec.key, user[spec.key], f"user file {user_path}")
    return Setting(spec.key, spec.default, "default")


def value(key: str, store: str | Path | None = None) -> Any:
    """One setting's value for a store (no flags: the library's view)."""
    return resolve(store=store)[key].value


__all__ = ["STORE_FILE", "USER_FILE_ENV", "Setting", "read_file", "resolve", "user_file", "value"]

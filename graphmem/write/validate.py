"""Argument checks at the public boundary: every bad value becomes a ``ValidationError``.

Kùzu crashes the process on some inputs (a self-referencing dict as a parameter, a huge SKIP
after ORDER BY) and Python raises raw ``TypeError``/``UnicodeEncodeError``/``RecursionError`` on
others, so ``GraphMemory`` checks each argument here before it reaches the write path or Cypher.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from ..errors import ValidationError
from ..paths import DB_FILE
from ..text.screen import redact_secrets
from ..timeutil import to_db

# Ids graphmem makes are 16 hex digits; ids callers choose follow this pattern.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")
MAX_ID_CHARS = 128
# Kùzu's SKIP/LIMIT and INT64 columns: anything past this is a mistake, not a request.
MAX_INT = 2**31 - 1
_INT64 = (-(2**63), 2**64 - 1)
MAX_PARAM_DEPTH = 32
MAX_ITEMS = 10_000


def _is(value: Any, types: tuple[type, ...], *numpy: str) -> bool:
    """``isinstance(value, types)``, numpy's scalar (or array) types ``numpy`` accepted too;
    while numpy is not loaded no value can be one, and a client runs these checks without it."""
    np = sys.modules.get("numpy")
    extra = () if np is None else tuple(getattr(np, name) for name in numpy)
    return isinstance(value, (*types, *extra))


def safe_repr(value: Any, width: int = 60) -> str:
    """A short repr that is safe for any value (deep or self-referencing containers too)."""
    try:
        text = repr(value) if not isinstance(value, dict | list | tuple | set) else None
    except Exception:  # a hostile __repr__
        text = None
    if text is None:
        text = f"<{type(value).__name__}>"
    # An error message must not carry a secret into logs (an id that is a token, say).
    text = redact_secrets(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def as_bool(name: str, value: Any) -> bool:
    if not _is(value, (bool,), "bool_"):
        raise ValidationError(f"{name} must be True or False, got {safe_repr(value)}")
    return bool(value)


def as_int(name: str, value: Any, lo: int = 0, hi: int = MAX_INT) -> int:
    """An integer within ``lo..hi`` (bools and floats are refused: ``limit=2.5`` is a mistake)."""
    if _is(value, (bool,), "bool_") or not _is(value, (int,), "integer"):
        raise ValidationError(f"{name} must be an integer, got {safe_repr(value)}")
    number = int(value)
    if not lo <= number <= hi:
        raise ValidationError(f"{name} must be between {lo} and {hi}, got {number}")
    return number


def as_float(name: str, value: Any, lo: float, hi: float) -> float:
    """A finite number within ``lo..hi``."""
    if _is(value, (bool,), "bool_") or not _is(value, (int, float), "number"):
        raise ValidationError(f"{name} must be a number, got {safe_repr(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or not lo <= number <= hi:
        raise ValidationError(f"{name} must be a number between {lo} and {hi}, got {value}")
    return number


def check_chars(name: str, text: str) -> str:
    """Refuse NUL and lone surrogates: Kùzu stores UTF-8, and these cannot be encoded."""
    if "\x00" in text:
        raise ValidationError(f"{name} must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"{name} holds a character that is not valid Unicode text "
            f"(a lone surrogate at position {exc.start})"
        ) from exc
    return text


def as_text(name: str, value: Any, max_chars: int, *, empty: bool = False) -> str:
    """A string of at most ``max_chars`` characters (non-blank unless ``empty``)."""
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string, got {safe_repr(value)}")
    if not empty and not value.strip():
        raise ValidationError(f"{name} must not be empty")
    if len(value) > max_chars:
        raise ValidationError(f"{name} is {len(value)} characters; the limit is {max_chars}")
    return check_chars(name, value)


def opt_text(name: str, value: Any, max_chars: int) -> str | None:
    return None if value is None else as_text(name, value, max_chars)


def as_id(value: Any, name: str = "memory_id") -> str:
    """A memory id: 1-128 letters, digits, '_', '.', ':' or '-', starting with a letter or digit."""
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string, got {safe_repr(value)}")
    if not ID_PATTERN.fullmatch(value):
        raise ValidationError(
            f"{name} must be 1-{MAX_ID_CHARS} characters of letters, digits, '_', '.', ':' or '-' "
            f"starting with a letter or digit; got {safe_repr(value)}"
        )
    return value


def as_list(name: str, value: Any, max_items: int = MAX_ITEMS) -> list[Any]:
    """A list, tuple or set (a lone string is one item) of at most ``max_items``."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple | set | frozenset):
        raise ValidationError(f"{name} must be a list, got {safe_repr(value)}")
    if len(value) > max_items:
        raise ValidationError(f"{name} has {len(value)} items; the limit is {max_items}")
    return list(value)


def as_ids(name: str, value: Any, max_items: int = MAX_ITEMS) -> list[str]:
    return [as_id(v, name) for v in as_list(name, value, max_items)]


def as_texts(name: str, value: Any, max_items: int, max_chars: int) -> list[str]:
    """Non-empty strings (stripped), at most ``max_items`` of at most ``max_chars`` each."""
    if value is None:
        return []
    return [as_text(name, v, max_chars).strip() for v in as_list(name, value, max_items)]


def as_time(name: str, value: Any) -> datetime | None:
    """A datetime (naive means UTC), a date or an ISO string, as naive UTC."""
    if value is not None and not isinstance(value, datetime | date | str):
        raise ValidationError(
            f"{name} must be a datetime, date or ISO string, got {safe_repr(value)}"
        )
    if isinstance(value, str):
        as_text(name, value, 64)
    try:
        return to_db(value, field=name)
    except (OverflowError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError(f"{name}: {safe_repr(value)} is out of range ({exc})") from exc


def as_callable(name: str, value: Any) -> Any:
    if value is not None and not callable(value):
        raise ValidationError(f"{name} must be a function, got {safe_repr(value)}")
    return value


def as_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        raise ValidationError(f"{name} must be one of {', '.join(options)}; got {safe_repr(value)}")
    return value


def check_depth(name: str, value: Any, max_depth: int) -> None:
    """Refuse containers nested deeper than ``max_depth`` (a self-reference is infinitely deep);
    iterative, so a 100 000-level dict cannot raise RecursionError here."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple | set | frozenset):
            if depth >= max_depth:
                raise ValidationError(f"{name} is nested more than {max_depth} levels deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def as_json_value(name: str, value: Any, max_depth: int, max_bytes: int) -> str:
    """Check a JSON-able value (depth first, so json.dumps cannot recurse without end); returns
    its serialised text, at most ``max_bytes`` long."""
    import json

    try:
        check_depth(name, value, max_depth)
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except RecursionError:  # a depth limit past the interpreter's (a Config copied round it)
        raise ValidationError(f"{name} is nested too deeply") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError(f"{name} must be JSON-serialisable: {exc}") from exc
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ValidationError(f"{name} is {size} bytes as JSON; the limit is {max_bytes}")
    check_chars(name, text)
    return text


_SCALARS = (type(None), bool, float, str, datetime, date, time, timedelta, UUID, bytes)


def as_params(value: Any) -> dict[str, Any]:
    """Cypher parameters: a dict of names to plain values (Kùzu crashes on cyclic or exotic ones)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(f"params must be a dict, got {safe_repr(value)}")
    check_depth("params", value, MAX_PARAM_DEPTH)
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    raise ValidationError(f"params keys must be strings, got {safe_repr(key)}")
                check_chars("a params key", key)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            check_chars("a params value", item)
        elif _is(item, (int,), "integer") and not isinstance(item, bool):
            if not _INT64[0] <= int(item) <= _INT64[1]:
                raise ValidationError(f"params integer {item} does not fit in 64 bits")
        elif not _is(item, _SCALARS, "ndarray", "generic"):
            raise ValidationError(f"params cannot hold a {type(item).__name__}")
    return value


def keys_in(name: str, value: dict[str, Any], allowed: Iterable[str]) -> None:
    unknown = set(value) - set(allowed)
    if unknown:
        raise ValidationError(f"unknown {name}: {', '.join(sorted(map(str, unknown)))}")


def guard(fn: Callable[[], Any], what: str) -> Any:
    """Turn a raw TypeError from iterating a caller's object into a ValidationError."""
    try:
        return fn()
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError(f"{what}: {exc}") from exc


def is_url(text: str) -> bool:
    """Whether a store is named by the URL of an owner reached over TCP (any case of
    ``http://``, ``https://``), not by a folder."""
    return text[:8].lower().startswith(("http://", "https://"))


def as_timeout(value: Any) -> float:
    """Seconds to wait for the store: a number from 0 up, ``inf`` for ever (as the settings
    allow)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"timeout must be a number of seconds, got {safe_repr(value)}")
    seconds = float(value)
    if math.isnan(seconds) or seconds < 0:
        raise ValidationError(f"timeout must be 0 or more seconds, got {value}")
    return seconds


def as_store_path(path: Any) -> str | Path:
    """The store's folder or URL as given, refused with ``ValidationError`` where it cannot be
    one: not a string or path, empty, the current folder when it holds no store (an unset
    variable, "" or Path(""), would make it a store, and private), or holding NUL or a lone
    surrogate."""
    if isinstance(path, str | Path):
        text = str(path) if isinstance(path, Path) else path
    elif isinstance(path, os.PathLike):
        text = os.fspath(path)
        if not isinstance(text, str):
            raise ValidationError(f"path must name a folder as text, got {safe_repr(path)}")
        path = Path(text)
    else:
        raise ValidationError(
            f"path must be a folder (str or Path) or an http(s) URL, got {safe_repr(path)}"
        )
    if not text.strip():
        raise ValidationError("path must not be empty: name the store's folder or URL")
    check_chars("path", text)
    if not is_url(text):
        folder = Path(text).expanduser()
        with contextlib.suppress(OSError):
            if folder.resolve() == Path.cwd().resolve() and not (folder / DB_FILE).exists():
                raise ValidationError(
                    f"path {text!r} is the current folder, which holds no store: name a folder "
                    "of its own for the store (it is made private, 0700)"
                )
    if is_url(text):
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError as exc:
            raise ValidationError(f"path is not a valid URL: {exc}") from None
        if not parts.hostname:
            raise ValidationError(f"path is not a valid URL (no host): {text!r}")
        try:
            parts.hostname.encode("idna")
        except UnicodeError as exc:
            raise ValidationError(f"path is not a valid URL: {exc}") from None
        if parts.hostname.replace(".", "").isdigit():
            import ipaddress

            try:
                ipaddress.ip_address(parts.hostname)
            except ValueError as exc:
                raise ValidationError(f"path is not a valid URL: {exc}") from None
        return parts.scheme + text[len(parts.scheme) :]  # "HTTP://..." as "http://..."
    return path

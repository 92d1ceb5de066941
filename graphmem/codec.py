"""What crosses the socket between a client and the owner: values and errors as JSON.

JSON alone would turn a ``Memory`` into a dict and a ``datetime`` into a string, and a client
must get back exactly what the owner returned (same pydantic models, same exception classes,
same messages). So non-JSON values travel tagged: ``{"$t": "<type>", "v": <value>}``. A plain
dict that happens to have a ``"$t"`` key is itself wrapped, so user data can never be read as
a tag. Models are rebuilt only from graphmem's own model classes (nothing is imported by name
from the wire, and nothing is unpickled).

The write-behind journal (``owner/journal.py``) has a tagged JSON of its own, on purpose: its
records are a file format a later version must still replay, and hold float32 vectors as
base64 numpy arrays; this codec must not import numpy (clients load none). Its ``_encode``
says the same.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from . import errors, models

# The path prefix of the owner's HTTP API (graphmem.remote.server).
API = "/v1"
# How deeply a decoded value may nest (lists, dicts and tags each count one level): far above
# any value graphmem takes (metadata is limited to 16 levels), far below Python's recursion limit.
MAX_DEPTH = 100

_MODELS: dict[str, type[BaseModel]] = {
    cls.__name__: cls
    for cls in vars(models).values()
    if isinstance(cls, type) and issubclass(cls, BaseModel) and cls.__module__ == models.__name__
}
_ERRORS: dict[str, type[errors.GraphMemError]] = {
    name: getattr(errors, name) for name in errors.__all__
}
# Errors a caller's own mistake raises in Python (a wrong keyword, a wrong type): the client
# raises the same class, as a local call would.
_BUILTIN_ERRORS: dict[str, type[Exception]] = {
    "TypeError": TypeError,
    "ValueError": ValueError,
    "KeyError": KeyError,
}


def encode(value: Any) -> Any:
    """A JSON-ready form of ``value`` that ``decode`` turns back into an equal value."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        # JSON has no NaN or infinity.
        return (
            value if value == value and abs(value) != float("inf") else _tag("float", repr(value))
        )
    if isinstance(value, list):
        if type(value) is not list and hasattr(value, "recall_id"):
            return _tag("recall", {"hits": [encode(v) for v in value], "id": value.recall_id})
        if isinstance(value, models.RememberBatch):
            return _tag(
                "batch",
                {"results": [encode(v) for v in value], "flagged": encode(value.flagged)},
            )
        return [encode(v) for v in value]
    if isinstance(value, dict):
        out = {_key(k): encode(v) for k, v in value.items()}
        return _tag("dict", out) if "$t" in out else out
    if isinstance(value, BaseModel):
        name = type(value).__name__
        if _MODELS.get(name) is not type(value):
            raise TypeError(f"{name} cannot be sent to another process")
        # pydantic's own JSON form (fast, in Rust); validating it on the other side gives
        # back the same model, datetimes and nested models included.
        return _tag("model", {"name": name, "fields": value.model_dump(mode="json")})
    if isinstance(value, tuple):
        return _tag("tuple", [encode(v) for v in value])
    if isinstance(value, set | frozenset):
        return _tag("set", [encode(v) for v in value])
    if isinstance(value, datetime):
        return _tag("datetime", value.isoformat())
    if isinstance(value, date):
        return _tag("date", value.isoformat())
    if isinstance(value, time):
        return _tag("time", value.isoformat())
    if isinstance(value, timedelta):
        return _tag("timedelta", value.total_seconds())
    if isinstance(value, Decimal):
        return _tag("decimal", str(value))
    if isinstance(value, uuid.UUID):
        return _tag("uuid", str(value))
    if isinstance(value, bytes | bytearray):
        return _tag("bytes", base64.b64encode(bytes(value)).decode())
    if isinstance(value, Path):
        return _tag("path", str(value))
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return encode(value.tolist())
    raise TypeError(f"{type(value).__name__} cannot be sent to another process")


def decode(value: Any) -> Any:
    """The value ``encode`` was given.

    Raises:
        ValidationError: ``value`` is not something ``encode`` makes: an unknown tag, a tag
            with a value of the wrong shape, or nesting deeper than ``MAX_DEPTH`` (the message
            names the problem).
    """
    try:
        return _decode(value, 0)
    except errors.GraphMemError:
        raise
    # A tag's value of the wrong type or shape fails in its constructor with any of these.
    except (ValueError, TypeError, KeyError, AttributeError, ArithmeticError) as exc:
        raise errors.ValidationError(f"a malformed value: {type(exc).__name__}: {exc}") from None


def _check_depth(value: Any, depth: int) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` in a value ``_decode`` hands on whole (a
    model's fields), looked at without recursion."""
    stack = [(value, depth)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise errors.ValidationError(f"a value nested more than {MAX_DEPTH} levels deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _decode(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise errors.ValidationError(f"a value nested more than {MAX_DEPTH} levels deep")
    depth += 1
    if isinstance(value, list):
        return [_decode(v, depth) for v in value]
    if not isinstance(value, dict):
        return value
    if "$t" not in value:
        return {k: _decode(v, depth) for k, v in value.items()}
    kind = value["$t"]
    v: Any = value.get("v")
    if kind == "dict":
        return {k: _decode(x, depth) for k, x in _object(kind, v).items()}
    if kind == "model":
        cls = _MODELS.get(_object(kind, v).get("name"))  # type: ignore[arg-type]
        if cls is None:
            raise errors.ValidationError(f"Unknown model {v.get('name')!r}")
        # pydantic checks the fields (and raises a ValueError naming the bad one).
        _check_depth(v.get("fields"), depth)
        return cls.model_validate(v.get("fields"))
    if kind == "recall":
        hits = _decode(_object(kind, v).get("hits"), depth)
        if not isinstance(hits, list):
            raise errors.ValidationError("a 'recall' value without a list of hits")
        return models.RecallResult(hits, recall_id=v.get("id"))
    if kind == "batch":
        results = _decode(_object(kind, v).get("results"), depth)
        flagged = _decode(v.get("flagged", []), depth)
        if not isinstance(results, list) or not isinstance(flagged, list):
            raise errors.ValidationError("a 'batch' value without lists of results and flagged")
        return models.RememberBatch(results, flagged=flagged)
    simple: dict[str, Callable[[Any], Any]] = {
        "float": float,
        "tuple": lambda x: tuple(_items(kind, x, depth)),
        "set": lambda x: set(_items(kind, x, depth)),
        "datetime": datetime.fromisoformat,
        "date": date.fromisoformat,
        "time": time.fromisoformat,
        "timedelta": lambda x: timedelta(seconds=x),
        "decimal": Decimal,
        "uuid": uuid.UUID,
        "bytes": lambda x: base64.b64decode(x, validate=True),
        "path": Path,
    }
    if not isinstance(kind, str) or kind not in simple:
        raise errors.ValidationError(f"Unknown value type {kind!r}")
    return simple[kind](v)


def _object(kind: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise errors.ValidationError(f"a {kind!r} value must be an object")
    return v


def _items(kind: str, v: Any, depth: int) -> list[Any]:
    if not isinstance(v, list):
        raise errors.ValidationError(f"a {kind!r} value must be a list")
    return [_decode(x, depth) for x in v]


def encode_error(exc: BaseException) -> dict[str, Any]:
    """An exception as JSON: its class name, message and the attributes its class carries."""
    name = type(exc).__name__
    if isinstance(exc, errors.GraphMemError):
        # The nearest public class (a subclass made elsewhere travels as its public parent).
        cls = next(c for c in type(exc).__mro__ if c.__name__ in _ERRORS)
        name = cls.__name__
    elif name not in _BUILTIN_ERRORS:
        name = "GraphMemError"
    message = str(exc.args[0]) if exc.args else str(exc)
    if name == "GraphMemError" and not isinstance(exc, errors.GraphMemError):
        message = f"The owner process failed: {type(exc).__name__}: {message}"
    out: dict[str, Any] = {"type": name, "message": message}
    if isinstance(exc, errors.CypherError):
        out["query"] = exc.query
        out["params"] = encode(exc.params)
    if isinstance(exc, errors.SecretError):
        out["kinds"] = list(exc.kinds)
        out["fields"] = list(exc.fields)
    return out


def decode_error(data: dict[str, Any]) -> Exception:
    """The exception ``encode_error`` described, of the same class, with the same message."""
    name, message = data.get("type", "GraphMemError"), data.get("message", "")
    if name in _BUILTIN_ERRORS:
        return _BUILTIN_ERRORS[name](message)
    cls = _ERRORS.get(name, errors.GraphMemError)
    if issubclass(cls, errors.CypherError):
        return cls(message, data.get("query", ""), decode(data.get("params")) or {})
    if issubclass(cls, errors.SecretError):
        return cls(message, list(data.get("kinds", [])), list(data.get("fields", [])))
    return cls(message)


def _tag(kind: str, value: Any) -> dict[str, Any]:
    return {"$t": kind, "v": value}


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"dict keys must be strings to cross processes; got {type(key).__name__}")
    return key

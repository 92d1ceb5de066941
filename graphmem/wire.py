"""What crosses the socket between a client and the holder: values and errors as JSON.

JSON alone would turn a ``Memory`` into a dict and a ``datetime`` into a string, and a client
must get back exactly what the holder returned (same pydantic models, same exception classes,
same messages). So non-JSON values travel tagged: ``{"$t": "<type>", "v": <value>}``. A plain
dict that happens to have a ``"$t"`` key is itself wrapped, so user data can never be read as
a tag. Models are rebuilt only from graphmem's own model classes (nothing is imported by name
from the wire, and nothing is unpickled).
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

# The path prefix of the holder's HTTP API (graphmem.server).
API = "/v1"

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
    """The value ``encode`` was given."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$t" not in value:
        return {k: decode(v) for k, v in value.items()}
    kind = value["$t"]
    v: Any = value.get("v")
    if kind == "dict":
        return {k: decode(x) for k, x in v.items()}
    if kind == "model":
        cls = _MODELS.get(v["name"])
        if cls is None:
            raise errors.GraphMemError(f"Unknown model '{v['name']}' from the holder")
        return cls.model_validate(v["fields"])
    if kind == "recall":
        return models.RecallResult([decode(h) for h in v["hits"]], recall_id=v["id"])
    if kind == "batch":
        return models.RememberBatch([decode(r) for r in v["results"]], flagged=decode(v["flagged"]))
    simple: dict[str, Callable[[Any], Any]] = {
        "float": float,
        "tuple": lambda x: tuple(decode(x)),
        "set": lambda x: set(decode(x)),
        "datetime": datetime.fromisoformat,
        "date": date.fromisoformat,
        "time": time.fromisoformat,
        "timedelta": lambda x: timedelta(seconds=x),
        "decimal": Decimal,
        "uuid": uuid.UUID,
        "bytes": base64.b64decode,
        "path": Path,
    }
    if kind not in simple:
        raise errors.GraphMemError(f"Unknown value type '{kind}' from the holder")
    return simple[kind](v)


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
        message = f"The holder process failed: {type(exc).__name__}: {message}"
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

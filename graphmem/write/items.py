"""The checks every memory passes before anything is planned: raw arguments in, a checked
``Item`` out (``prepare``, ``prepare_many``), or a typed error and nothing written.

Pure on purpose: no numpy, pyarrow, Kùzu or mirror (numpy is imported only to read an
``embedding`` a caller passes), so a client runs these checks with its own ``Config`` before a
call leaves its process (``graphmem.remote.client``), and the owner runs the same ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..errors import GraphMemError, SecretError, ValidationError
from ..models import CONFLICT_MODES, KINDS, SCOPES, SOURCES, FlaggedItem
from ..text.screen import screen_fields
from ..text.tags import normalize_tag
from . import validate

if TYPE_CHECKING:
    import numpy as np

REMEMBER_KEYS = frozenset(
    {
        "content", "kind", "tags", "scope", "project", "session_id", "source", "confidence",
        "pinned", "triggers", "file_paths", "metadata", "id", "valid_from", "valid_until",
        "supersedes", "dedupe", "redact", "conflicts", "embedding", "embedding_model",
        "max_metadata_bytes",
    }
)  # fmt: skip
# The most a caller may raise one memory's metadata bound to (``max_metadata_bytes=``): below
# the served path's request body (server.MAX_BODY, 64 MiB) with room for JSON escaping, so a
# write a client sends always arrives.
MAX_METADATA_BYTES = 24 * 1024 * 1024
# Fields whose strings name something: a secret there is refused even with redact=True.
IDENTITY_FIELDS = frozenset({"id", "tags", "project", "session_id"})
_WS = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """Hash of the content with whitespace runs collapsed (case is kept: it can matter)."""
    return hashlib.sha256(_WS.sub(" ", content.strip()).encode("utf-8")).hexdigest()


@dataclass
class Item:
    """One validated memory to remember."""

    content: str
    kind: str
    tags: list[str]
    scope: str
    project: str | None
    session_id: str | None
    source: str
    confidence: float
    pinned: bool
    triggers: list[str]
    file_paths: list[str]
    metadata: dict[str, Any]
    id: str | None
    valid_from: datetime | None
    valid_until: datetime | None
    supersedes: list[str]
    dedupe: bool
    conflicts: str = "detect"
    content_hash: str = ""
    # Field name -> kinds of secret redacted from it (redact=True or on_secret="redact").
    redacted: dict[str, list[str]] = field(default_factory=dict)
    # A vector the caller computed with the store's model (a big ingest embedded elsewhere):
    # unit length, float32; None: the store embeds the content.
    embedding: np.ndarray | None = None
    embedding_model: str | None = None

    @property
    def conflict_mode(self) -> str:
        """The conflict handling in force: ``dedupe=False`` never hides an older memory."""
        return "flag" if self.conflicts == "detect" and not self.dedupe else self.conflicts


def prepare(raw: dict[str, Any], config: Config, *, redact: bool | None = None) -> Item:
    """Validate one memory's arguments.

    ``redact`` is the default for an item that does not say ``redact=`` itself (None:
    ``config.redact_secrets``).

    Raises:
        ValidationError: a field is missing, empty, too long or of the wrong type.
        SecretError: a field holds a secret (see ``secrets.screen_fields``): redaction is
            off, or the field is an identity (id, tags, project, session_id, metadata keys).
    """
    unknown = set(raw) - REMEMBER_KEYS
    if unknown:
        raise ValidationError(f"Unknown field(s): {', '.join(sorted(map(str, unknown)))}")
    content = raw.get("content")
    if not isinstance(content, str):
        raise ValidationError(f"content must be a string, got {type(content).__name__}")
    if len(content) > config.max_content_chars:
        raise ValidationError(
            f"content is {len(content)} characters; the limit is {config.max_content_chars} "
            "(Config.max_content_chars)"
        )
    content = validate.check_chars("content", content).strip()
    if not content:
        raise ValidationError("content is empty")
    kind = _given(raw, "kind", "fact")
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValidationError(
            f"kind must be one of {', '.join(KINDS)}; got {validate.safe_repr(kind)}"
        )
    source = _given(raw, "source", "user_stated")
    if not isinstance(source, str) or source not in SOURCES:
        raise ValidationError(
            f"source must be one of {', '.join(SOURCES)}; got {validate.safe_repr(source)}"
        )
    project = validate.opt_text("project", raw.get("project"), config.max_name_chars)
    session_id = validate.opt_text("session_id", raw.get("session_id"), config.max_name_chars)
    scope = _given(raw, "scope", "project" if project else "global")
    if not isinstance(scope, str) or scope not in SCOPES:
        raise ValidationError(
            f"scope must be one of {', '.join(SCOPES)}; got {validate.safe_repr(scope)}"
        )
    if scope == "project" and not project:
        raise ValidationError("scope='project' needs project=")
    if scope == "session" and not session_id:
        raise ValidationError("scope='session' needs session_id=")
    confidence = validate.as_float("confidence", raw.get("confidence", 1.0), 0.0, 1.0)
    conflicts = _given(raw, "conflicts", "detect")
    if not isinstance(conflicts, str) or conflicts not in CONFLICT_MODES:
        raise ValidationError(
            f"conflicts must be one of {', '.join(CONFLICT_MODES)}; got {validate.safe_repr(conflicts)}"
        )
    for flag in ("pinned", "dedupe", "redact"):
        if flag in raw:
            validate.as_bool(flag, raw[flag])
    metadata = _given(raw, "metadata", {})
    if not isinstance(metadata, dict):
        raise ValidationError(f"metadata must be a dict, got {type(metadata).__name__}")
    # A caller that keeps whole documents in metadata (the LangGraph adapter: every value its
    # host's stores accept) raises the bound for its own writes; everyone else gets the config's.
    max_bytes = raw.get("max_metadata_bytes")
    max_bytes = (
        config.max_metadata_bytes
        if max_bytes is None
        else validate.as_int("max_metadata_bytes", max_bytes, 1, MAX_METADATA_BYTES)
    )
    metadata_text = validate.as_json_value(
        "metadata", metadata, config.max_metadata_depth, max_bytes
    )
    metadata = json.loads(metadata_text)  # a copy: later changes to the caller's dict are theirs
    metadata_text = json.dumps(metadata, sort_keys=True)
    memory_id = raw.get("id")
    if memory_id is not None:
        memory_id = validate.as_id(memory_id, "id")
    valid_from = validate.as_time("valid_from", raw.get("valid_from"))
    valid_until = validate.as_time("valid_until", raw.get("valid_until"))
    if valid_from and valid_until and valid_until <= valid_from:
        raise ValidationError("valid_until must be later than valid_from")
    raw_tags = validate.as_texts("tags", raw.get("tags"), config.max_tags, config.max_tag_chars)
    triggers = validate.as_texts(
        "triggers", raw.get("triggers"), config.max_triggers, config.max_trigger_chars
    )
    file_paths = validate.as_texts(
        "file_paths", raw.get("file_paths"), config.max_file_paths, config.max_file_path_chars
    )
    supersedes = validate.as_ids("supersedes", _given(raw, "supersedes", []), config.max_tags)
    # Every string that will be stored passes the secret screen, before tags are normalised
    # (lower-casing a token can hide it from the scanner).
    redacted: dict[str, list[str]] = {}
    screened = screen_fields(
        {
            "content": content,
            "tags": raw_tags,
            "project": project,
            "session_id": session_id,
            "id": memory_id,
            "triggers": triggers,
            "file_paths": file_paths,
            "metadata": metadata,
        },
        redact=bool(raw.get("redact", config.redact_secrets if redact is None else redact)),
        identifiers=IDENTITY_FIELDS,
        redacted=redacted,
    )
    content, triggers, file_paths = (
        screened["content"], screened["triggers"], screened["file_paths"]
    )  # fmt: skip
    metadata = screened["metadata"]
    tags = []
    for t in screened["tags"]:
        try:
            tags.append(normalize_tag(t))
        except ValueError as exc:
            raise ValidationError(f"tag {t!r}: {exc}") from exc
    return Item(
        content=content,
        kind=kind,
        tags=list(dict.fromkeys(tags)),
        scope=scope,
        project=project,
        session_id=session_id,
        source=source,
        confidence=float(confidence),
        pinned=bool(raw.get("pinned", False)),
        triggers=triggers,
        file_paths=file_paths,
        metadata=metadata,
        id=memory_id,
        valid_from=valid_from,
        valid_until=valid_until,
        supersedes=supersedes,
        dedupe=bool(raw.get("dedupe", True)),
        conflicts=conflicts,
        content_hash=content_hash(content),
        redacted=redacted,
        embedding=as_embedding(raw.get("embedding")),
        embedding_model=validate.opt_text(
            "embedding_model", raw.get("embedding_model"), config.max_name_chars
        ),
    )


def _given(raw: dict[str, Any], key: str, default: Any) -> Any:
    """A field as given, ``default`` where it is missing or None: a falsy value of the wrong
    type (``kind=0``, ``metadata=[]``) is the caller's mistake, refused by its check, not read
    as "not given"."""
    value = raw.get(key)
    return default if value is None else value


def prepare_many(
    raw_items: Sequence[Any], config: Config, on_secret: str = "refuse"
) -> tuple[list[Item], list[FlaggedItem]]:
    """Validate a batch's items; what an item holding a secret does depends on ``on_secret``.

    ``refuse``: raise one ``SecretError`` naming every such item (nothing is stored);
    ``skip``: leave the item out; ``redact``: keep it with its secrets redacted (an item whose
    secret is in a name, which cannot be redacted, or that says ``redact=False``, is skipped).

    Returns:
        The items to store, in order, and a ``FlaggedItem`` for each item that held a secret.

    Raises:
        ValidationError: an item is malformed (named by its index when there are several).
        SecretError: ``on_secret="refuse"`` and an item holds a secret.
    """
    items: list[Item] = []
    flagged: list[FlaggedItem] = []
    refused: list[tuple[int, SecretError]] = []
    single = len(raw_items) == 1
    for index, raw in enumerate(raw_items):
        if not isinstance(raw, dict):
            raise ValidationError(f"item {index}: expected a dict, got {type(raw).__name__}")
        try:
            item = prepare(raw, config, redact=True if on_secret == "redact" else None)
        except SecretError as exc:
            if on_secret == "refuse":
                if single:
                    raise
                refused.append((index, exc))
            else:
                flagged.append(FlaggedItem(index=index, action="skipped", fields=exc.fields,
                                           kinds=exc.kinds))  # fmt: skip
            continue
        except GraphMemError as exc:
            if single:
                raise
            raise type(exc)(f"item {index}: {exc}") from exc
        if item.redacted:
            kinds = sorted({k for found in item.redacted.values() for k in found})
            flagged.append(
                FlaggedItem(index=index, action="redacted", fields=list(item.redacted), kinds=kinds)
            )
        items.append(item)
    if refused:
        where = "; ".join(f"item {index}: {', '.join(exc.fields)}" for index, exc in refused)
        kinds = sorted({k for _, exc in refused for k in exc.kinds})
        raise SecretError(
            f"{len(refused)} item(s) look like they hold a secret ({', '.join(kinds)}): {where}. "
            'Nothing was stored. Remove them, or pass on_secret="skip" to store the others '
            'or on_secret="redact" to store them with the secrets redacted.',
            kinds,
            sorted({f for _, exc in refused for f in exc.fields}),
        )
    return items, flagged


# A dimension no embedding model has: beyond it, a list is a mistake (and costly to check).
MAX_EMBEDDING_DIM = 65_536


def as_embedding(value: Any) -> np.ndarray | None:
    """A caller's precomputed embedding as a unit float32 vector (None when not given).

    Its length is checked against the store's dimension by the store, which knows it.

    Raises:
        ValidationError: not a flat, non-empty list of numbers, a value that is not finite,
            or all zeros (no direction to compare).
    """
    if value is None:
        return None
    if isinstance(value, str | bytes | dict) or not hasattr(value, "__len__"):
        raise ValidationError(f"embedding must be a list of numbers, got {type(value).__name__}")
    if not 0 < len(value) <= MAX_EMBEDDING_DIM:
        raise ValidationError(f"embedding must hold 1 to {MAX_EMBEDDING_DIM} numbers")
    import numpy as np  # only here: a client whose items carry no vector never loads it

    try:
        vector = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"embedding must be a flat list of numbers: {exc}") from None
    if vector.ndim != 1 or vector.dtype.kind not in "iuf":
        raise ValidationError("embedding must be a flat list of numbers")
    vector = vector.astype(np.float32)
    if not np.isfinite(vector).all():
        raise ValidationError("embedding holds a value that is not finite (NaN or infinity)")
    norm = float(np.linalg.norm(vector.astype(np.float64)))
    if norm == 0.0 or not np.isfinite(norm):
        raise ValidationError("embedding is all zeros (or too large to normalise)")
    # Unit length, as the store's own embeddings (similarities are dot products).
    return vector / np.float32(norm)

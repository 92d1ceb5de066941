"""The exception tree. Every error graphmem raises on purpose is a ``GraphMemError``."""

from __future__ import annotations


class GraphMemError(Exception):
    """Base class for all graphmem errors."""


class NotFoundError(GraphMemError, LookupError):
    """No memory, link, store or item with that identity."""


class ValidationError(GraphMemError, ValueError):
    """An argument or a memory's content was rejected; nothing was written."""


class SecretError(ValidationError):
    """The content holds something that looks like a secret; nothing was written.

    Attributes:
        kinds: the kinds of secret found (for example ``["github_token"]``).
        fields: the fields that hold them (for example ``["content", "tags"]``).
    """

    def __init__(
        self, message: str, kinds: list[str] | None = None, fields: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.kinds = kinds or []
        self.fields = fields or []


class EmbedderMismatchError(GraphMemError, ValueError):
    """The store was built with another embedding model or dimension."""


class ModelLoadError(GraphMemError):
    """The embedding model could not be loaded (the message says how to fix it)."""


class SchemaVersionError(GraphMemError):
    """The store was written by a newer graphmem whose schema this version does not know."""


class ReadOnlyError(GraphMemError):
    """A write was attempted on a read-only store or through a read-only Cypher call."""


class CypherError(GraphMemError):
    """Kùzu rejected a query.

    Attributes:
        query: the query text.
        params: the parameters it was given.
    """

    def __init__(self, message: str, query: str, params: dict | None = None) -> None:
        super().__init__(message)
        self.query = query
        self.params = params or {}

    def __str__(self) -> str:
        return f"{self.args[0]}\n  query: {self.query.strip()}"


class JournalError(GraphMemError):
    """Acknowledged writes could not be applied to the database (or journalled): they are
    kept in the store's journal and applied again on the next call or open."""


class DiskFullError(JournalError):
    """The disk holding the store is (nearly) full: the write was refused, nothing of it was
    stored, and what was acknowledged before is kept. Writing resumes by itself once space is
    freed (no reopen needed); see ``Config.min_free_disk_mb``."""


class StoreLockedError(GraphMemError):
    """Another process holds the store and does not answer (see "Many processes, one store")."""


class OwnerGone(StoreLockedError):
    """The process that owns the store stopped answering mid-call (it exited or was killed).

    Attributes:
        sent: whether the call may have reached it (its effect is then unknown).
    """

    def __init__(self, message: str, *, sent: bool = False) -> None:
        super().__init__(message)
        # Whether the request may have reached the owner (its effect is then unknown).
        self.sent = sent


# The name before the process that owns a store had one word ("owner"): kept so code written
# against it still catches the error.
HolderGone = OwnerGone


class ServerBusyError(StoreLockedError):
    """A server of many stores cannot take this store now: it is draining (stopping), or every
    store it has open is in use and another would pass its ``--max-open`` or
    ``--memory-budget``. Nothing was done; retry shortly (or add servers)."""


__all__ = [
    "CypherError",
    "DiskFullError",
    "EmbedderMismatchError",
    "GraphMemError",
    "HolderGone",
    "JournalError",
    "ModelLoadError",
    "NotFoundError",
    "OwnerGone",
    "ReadOnlyError",
    "SchemaVersionError",
    "SecretError",
    "ServerBusyError",
    "StoreLockedError",
    "ValidationError",
]

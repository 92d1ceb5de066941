"""graphmem: graph-native long-term memory for AI agents (embedded Kùzu, local embeddings)."""

from .config import Config
from .errors import (
    CypherError,
    EmbedderMismatchError,
    GraphMemError,
    ModelLoadError,
    NotFoundError,
    ReadOnlyError,
    SchemaVersionError,
    SecretError,
    StoreLockedError,
    ValidationError,
)
from .memory import GraphMemory
from .models import Hit, Link, Memory, RememberResult, Stats, Tag

__version__ = "0.1.0"

__all__ = [
    "Config",
    "CypherError",
    "EmbedderMismatchError",
    "GraphMemError",
    "GraphMemory",
    "Hit",
    "Link",
    "Memory",
    "ModelLoadError",
    "NotFoundError",
    "ReadOnlyError",
    "RememberResult",
    "SchemaVersionError",
    "SecretError",
    "Stats",
    "StoreLockedError",
    "Tag",
    "ValidationError",
    "__version__",
]

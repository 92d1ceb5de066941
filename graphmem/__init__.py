"""graphmem: graph-native long-term memory for AI agents (embedded Kùzu, local embeddings)."""

from typing import TYPE_CHECKING, Any

from .config import Config
from .errors import (
    CypherError,
    DiskFullError,
    EmbedderMismatchError,
    GraphMemError,
    HolderGone,
    JournalError,
    ModelLoadError,
    NotFoundError,
    OwnerGone,
    ReadOnlyError,
    SchemaVersionError,
    SecretError,
    ServerBusyError,
    StoreLockedError,
    ValidationError,
)
from .models import (
    Cluster,
    FlaggedItem,
    Gap,
    Hit,
    Link,
    MaintainReport,
    Memory,
    PathStep,
    RecallHit,
    RecallResult,
    RememberBatch,
    RememberResult,
    Stats,
    Tag,
)

if TYPE_CHECKING:
    from .memory import GraphMemory


def __getattr__(name: str) -> Any:
    # GraphMemory brings in Kùzu, numpy and networkx: loaded on first use, so that a CLI call
    # answered by another process's owner starts without them.
    if name == "GraphMemory":
        from .memory import GraphMemory

        return GraphMemory
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "Cluster",
    "Config",
    "CypherError",
    "DiskFullError",
    "EmbedderMismatchError",
    "FlaggedItem",
    "Gap",
    "GraphMemError",
    "GraphMemory",
    "Hit",
    "HolderGone",
    "JournalError",
    "Link",
    "MaintainReport",
    "Memory",
    "ModelLoadError",
    "NotFoundError",
    "OwnerGone",
    "PathStep",
    "ReadOnlyError",
    "RecallHit",
    "RecallResult",
    "RememberBatch",
    "RememberResult",
    "SchemaVersionError",
    "SecretError",
    "ServerBusyError",
    "Stats",
    "StoreLockedError",
    "Tag",
    "ValidationError",
    "__version__",
]

"""Schema migrations and the Meta table: what ``Store`` runs when it opens a database.

Each ``schema/*.cypher`` file is a migration, applied once, in name order, and recorded in Meta
by name (with a digest of what was applied). A store written by a newer graphmem (a migration
this one does not know) is refused; a read-only opener of a store with migrations pending is
refused too (it cannot apply them). Part of ``store.py``'s Cypher, kept apart because it runs
once per open and reads the DDL files.
"""

from __future__ import annotations

import hashlib
import logging
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EmbedderMismatchError, GraphMemError, SchemaVersionError

if TYPE_CHECKING:
    from .engine import Engine

# Meta key prefix of an applied migration: MIGRATION_KEY + the file's stem -> its digest.
MIGRATION_KEY = "migration:"
_STATEMENT_END = re.compile(r";\s*(?:\n|$)")
log = logging.getLogger("graphmem.storage.store")


def schema_dir() -> Path:
    """The folder of ``.cypher`` DDL files (inside the wheel, or the repository's ``schema/``)."""
    packaged = Path(str(resources.files("graphmem"))) / "_schema"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[2] / "schema"
    if source.is_dir():
        return source
    raise GraphMemError("graphmem's schema files are missing from this installation.")


def schema_files() -> list[Path]:
    return sorted(schema_dir().glob("*.cypher"))


def read_meta(engine: Engine) -> dict[str, str]:
    rows = engine.rows("MATCH (m:Meta) RETURN m.key AS key, m.value AS value")
    return {r["key"]: r["value"] for r in rows}


def write_meta(engine: Engine, values: dict[str, str]) -> None:
    """Set Meta keys (inside the caller's transaction, when there is one)."""
    for key, value in values.items():
        engine.execute("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value})


def migrate(engine: Engine, *, read_only: bool, model_name: str, dim: int | None) -> int:
    """Check the store against this graphmem and the model, apply pending migrations, and
    return the store's embedding dimension.

    Raises:
        SchemaVersionError: a newer graphmem's store, or migrations pending on a read-only open.
        EmbedderMismatchError: the store was built with another model or dimension.
    """
    files = schema_files()
    has_meta = bool(engine.rows("CALL SHOW_TABLES() WHERE name = 'Meta' RETURN name"))
    meta = read_meta(engine) if has_meta else {}
    applied = _applied_migrations(meta, files)
    unknown = sorted(set(applied) - {p.stem for p in files})
    if unknown:
        raise SchemaVersionError(
            f"This store has schema migrations this graphmem does not know "
            f"({', '.join(unknown)}): it was written by a newer graphmem. Upgrade to open it."
        )
    stored_model, stored_dim = meta.get("embedding_model"), meta.get("embedding_dim")
    if stored_model is not None and stored_model != model_name:
        raise EmbedderMismatchError(
            f"The store was built with '{stored_model}'; it cannot be opened with "
            f"'{model_name}' (embeddings from different models are not comparable)."
        )
    if stored_dim is not None and dim is not None and int(stored_dim) != dim:
        raise EmbedderMismatchError(
            f"The store holds {stored_dim}-dimensional embeddings; the model gives {dim}."
        )
    found = int(stored_dim) if stored_dim is not None else dim
    if found is None:
        raise GraphMemError("The embedding dimension of a new store must be known.")
    for path in files:
        digest = applied.get(path.stem)
        if digest and digest != _digest(path):
            # Applied migrations are never run again: a change belongs in a new file.
            log.warning("schema migration %s changed after this store applied it", path.stem)
    pending = [p for p in files if p.stem not in applied]
    recorded = any(k.startswith(MIGRATION_KEY) for k in meta)
    if not pending and recorded:
        return found
    if read_only:
        raise SchemaVersionError(
            f"This store needs the schema migrations {', '.join(p.stem for p in pending)}; "
            "open it read-write once to apply them."
        )
    with engine.transaction():
        for path in pending:
            for statement in _statements(path.read_text(encoding="utf-8")):
                engine.execute(statement.replace("{dim}", str(found)))
        write_meta(
            engine,
            {
                # Migrations a store applied before they were recorded by name, too.
                **{MIGRATION_KEY + p.stem: _digest(p) for p in files},
                "schema_version": str(len(files)),
                "embedding_model": model_name,
                "embedding_dim": str(found),
            },
        )
    return found


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _applied_migrations(meta: dict[str, str], files: list[Path]) -> dict[str, str]:
    """Migration name -> digest of what the store applied ("" when not recorded).

    Stores from before migrations were named recorded only how many files they applied
    (``schema_version``): those are the first files in order.
    """
    named = {k[len(MIGRATION_KEY) :]: v for k, v in meta.items() if k.startswith(MIGRATION_KEY)}
    if named:
        return named
    count = int(meta.get("schema_version", 0))
    return {p.stem: "" for p in files[:count]}


def _statements(text: str) -> list[str]:
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    return [s.strip() for s in _STATEMENT_END.split("\n".join(lines)) if s.strip()]

"""Schema migrations are applied once each and recorded by name, so a store made by an earlier
release upgrades on open, and a new migration reaches existing stores."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from helpers import db_rows

import graphmem.storage.migrations as migrations_mod
from graphmem import GraphMemory, ReadOnlyError
from graphmem.storage.migrations import MIGRATION_KEY, schema_files

# What is tested is schema migrations, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def meta(mem: GraphMemory) -> dict[str, str]:
    return {r["k"]: r["v"] for r in db_rows(mem, "MATCH (m:Meta) RETURN m.key AS k, m.value AS v")}


@pytest.fixture
def schema_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This release's migrations in a folder a test may add to."""
    folder = tmp_path / "schema"
    folder.mkdir()
    for path in schema_files():
        shutil.copy(path, folder / path.name)
    monkeypatch.setattr(migrations_mod, "schema_dir", lambda: folder)
    return folder


def test_a_new_store_records_every_migration(mem: GraphMemory) -> None:
    names = {k[len(MIGRATION_KEY) :] for k in meta(mem) if k.startswith(MIGRATION_KEY)}
    assert names == {p.stem for p in schema_files()}
    assert mem.stats().schema_version == len(schema_files())


def test_a_store_from_the_previous_release_upgrades(store_path: Path, model_path: str) -> None:
    # The previous release recorded only how many schema files it had applied.
    with GraphMemory(store_path, model_path=model_path) as mem:
        kept = mem.remember("Stores made by the previous release keep their memories").id
        mem.cypher(f"MATCH (m:Meta) WHERE m.key STARTS WITH '{MIGRATION_KEY}' DELETE m", write=True)
        mem.cypher("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '2'", write=True)
    with GraphMemory(store_path, model_path=model_path) as mem:
        recorded = [k for k in meta(mem) if k.startswith(MIGRATION_KEY)]
        assert len(recorded) == len(schema_files())
        assert mem.get(kept).content.startswith("Stores made by the previous release")
        assert mem.search("previous release", limit=1)[0].memory.id == kept


def test_a_new_migration_reaches_an_existing_store_once(
    store_path: Path, model_path: str, schema_copy: Path
) -> None:
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("A memory from before the migration")
    # Not idempotent: running it twice would fail ("already has property").
    (schema_copy / "999_test_extra.cypher").write_text(
        "// a test migration\nALTER TABLE Gap ADD extra STRING DEFAULT 'x';\n"
    )
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert f"{MIGRATION_KEY}999_test_extra" in meta(mem)
        assert mem.stats().schema_version == len(schema_files())
        columns = db_rows(mem, "CALL TABLE_INFO('Gap') RETURN name")
        assert "extra" in {c["name"] for c in columns}
    with GraphMemory(store_path, model_path=model_path) as mem:  # not applied again
        assert mem.stats().memories == 1


def test_a_read_only_handle_still_upgrades_the_store_it_owns(
    store_path: Path, model_path: str, schema_copy: Path
) -> None:
    # Whoever opens a store owns it read-write (it serves other processes' writes), so the
    # migration is applied; the handle itself stays read-only.
    GraphMemory(store_path, model_path=model_path).close()
    (schema_copy / "999_test_extra.cypher").write_text("ALTER TABLE Gap ADD extra STRING;\n")
    with GraphMemory(store_path, model_path=model_path, read_only=True) as reader:
        assert reader.read_only
        assert f"{MIGRATION_KEY}999_test_extra" in meta(reader)
        with pytest.raises(ReadOnlyError):
            reader.remember("still read-only")


def test_an_edited_applied_migration_is_reported_not_rerun(
    store_path: Path, model_path: str, schema_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    GraphMemory(store_path, model_path=model_path).close()
    first = sorted(schema_copy.glob("*.cypher"))[-1]
    first.write_text(first.read_text() + "\n// edited after release\n")
    with caplog.at_level(logging.WARNING, logger="graphmem.storage.store"):
        GraphMemory(store_path, model_path=model_path).close()
    assert f"{first.stem} changed after this store applied it" in caplog.text

"""Imports are idempotent: the same file imported twice adds, reinforces and supersedes
nothing the second time; items with ids follow --on-existing (skip, update, error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import db_rows

from graphmem import GraphMemory
from graphmem.cli.app import cli
from graphmem.errors import ValidationError
from graphmem.write.importing import item_identity, run_import

# What is tested is re-importing a file, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


NOTES = [
    {"content": "Incident 41: the checkout service ran out of database connections",
     "tags": ["incident"]},
    {"content": "Incident 42: the auth service certificate expired", "tags": ["incident"]},
    # The same incident written twice in the file: a repetition the first import counts.
    {"content": "Incident 42: the auth service certificate expired", "tags": ["incident"]},
    {"content": "The API rate limit is 100 requests/min"},
    {"content": "The API rate limit is 200 requests/min", "source": "user_corrected"},
    "The on-call rotation changes every Monday at 10:00",
]  # fmt: skip


def state(mem: GraphMemory) -> list[dict[str, Any]]:
    return db_rows(
        mem,
        "MATCH (m:Memory) RETURN m.id AS id, m.active AS active, m.strength AS strength, "
        "m.superseded_by AS by ORDER BY id",
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(n) + "\n" for n in NOTES), encoding="utf-8")
    return path


def invoke(store: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["-d", str(store), *args])
    assert result.exit_code == 0, result.output
    return result


def test_importing_a_file_again_changes_nothing(store_path: Path, model_path: str,
                                                notes: Path) -> None:  # fmt: skip
    first = json.loads(invoke(store_path, "import", str(notes), "--json").stdout)
    assert first["actions"] == {"created": 4, "reinforced": 1, "superseded": 1}
    with GraphMemory(store_path, model_path=model_path) as mem:
        before = state(mem)
    again = json.loads(invoke(store_path, "import", str(notes), "--json").stdout)
    assert again["imported"] == 0 and again["actions"] == {"skipped": 6}
    assert {s["reason"] for s in again["skipped"]} == {"imported before"}
    table = invoke(store_path, "import", str(notes)).stdout
    assert "6 skipped" in table and "imported before" in table
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert state(mem) == before


def test_a_stable_identity_comes_from_content_and_fields() -> None:
    a = {"content": "Deploys  go out on Tuesdays\n", "tags": ["b", "a"]}
    assert item_identity(a) == item_identity(
        {"tags": ["a", "b"], "content": "Deploys go out on Tuesdays"}
    )
    assert item_identity(a) != item_identity({**a, "kind": "procedure"})
    assert item_identity(a) != item_identity(a, 1)
    assert item_identity(a) == item_identity({**a, "dedupe": False})


def test_items_with_ids_follow_on_existing(mem: GraphMemory) -> None:
    mem.remember("The staging cluster has 3 nodes", id="staging-size")
    items = [
        {"id": "staging-size", "content": "The staging cluster has 5 nodes"},
        {"id": "prod-size", "content": "The production cluster has 12 nodes"},
    ]
    with pytest.raises(ValidationError, match="staging-size"):
        run_import(mem, items, on_existing="error")
    assert mem.stats().memories == 1  # nothing written
    report = run_import(mem, items)  # skip by default
    assert [s.id for s in report.skipped] == ["staging-size"]
    assert [r.id for r in report.results] == ["prod-size"]
    assert mem.get("staging-size").content.endswith("3 nodes")
    report = run_import(mem, items, on_existing="update")
    assert report.updated == ["staging-size"] and [s.id for s in report.skipped] == ["prod-size"]
    assert mem.get("staging-size").content.endswith("5 nodes")
    # The update kept the old content as a version.
    assert [m.content[-7:] for m in mem.history("staging-size")] == ["3 nodes", "5 nodes"]
    with pytest.raises(ValidationError, match="on_existing"):
        run_import(mem, items, on_existing="overwrite")

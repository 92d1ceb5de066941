"""MEMORY_FILE_PATH, ``import -f mcp-memory --sync`` and resource subscriptions of the
reference memory server's drop-in (the npm server side by side: test_mcp_memory_cases.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.shared.subscriptions import ResourceUpdated

from graphmem.adapters.mcp.kg import KnowledgeGraph, dumps_jsonl
from graphmem.adapters.mcp.memory_file import MemoryFile, from_env, store_beside
from graphmem.adapters.mcp.memory_server import RESOURCE_URI, build_memory_server
from graphmem.cli.app import cli
from graphmem.errors import ValidationError

# What is tested is the memory-file format, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def _line(**item: Any) -> str:
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False)


def _file(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


ALICE = _line(type="entity", name="Alice", entityType="person", observations=["likes tea", "x"])
BOB = _line(type="entity", name="Bob", entityType="person", observations=[])
KNOWS = _line(type="relation", **{"from": "Alice", "to": "Bob", "relationType": "knows"})


@pytest.mark.embedder("real")  # the CLI opens the store with the real model
def test_import_sync_carries_over_deletions_and_type_changes(tmp_path: Path, make_mem: Any):
    first = _file(tmp_path / "v1.jsonl", ALICE, BOB, KNOWS)
    newer = _file(
        tmp_path / "v2.jsonl",
        _line(type="entity", name="Alice", entityType="engineer", observations=["likes tea"]),
    )
    store = str(tmp_path / "store")
    runner = CliRunner()
    done = runner.invoke(cli, ["-d", store, "import", str(first), "-f", "mcp-memory", "--json"])
    assert done.exit_code == 0, done.output
    # Without --sync a newer file only adds: Bob, the relation and the old type stay.
    runner.invoke(cli, ["-d", store, "import", str(newer), "-f", "mcp-memory"])
    with make_mem("store") as mem:
        assert len(KnowledgeGraph(mem).read_graph()["entities"]) == 2
    done = runner.invoke(
        cli, ["-d", store, "import", str(newer), "-f", "mcp-memory", "--sync", "--json"]
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == {
        "entities": 0, "observations": 0, "relations": 0, "deleted_entities": 1,
        "deleted_observations": 1, "deleted_relations": 1, "retyped": 1,
    }  # fmt: skip
    with make_mem("store") as mem:
        kg = KnowledgeGraph(mem)
        assert dumps_jsonl(kg.read_graph()) == newer.read_text(encoding="utf-8")
        # The old type is history, not gone.
        home = next(m for m in mem.memories() if m.content.startswith("Alice\nengineer"))
        assert [m.content for m in mem.history(home.id)] == ["Alice\nperson", "Alice\nengineer"]
    again = runner.invoke(
        cli, ["-d", store, "import", str(newer), "-f", "mcp-memory", "--sync", "--json"]
    )
    assert set(json.loads(again.output).values()) == {0}
    # --sync belongs to the mcp-memory format only.
    plain = runner.invoke(cli, ["-d", store, "import", str(newer), "--sync"])
    assert plain.exit_code != 0 and "--sync" in plain.output


def test_the_memory_file_is_read_kept_in_step_and_written_back(tmp_path: Path, mem: Any):
    path = _file(tmp_path / "memory.jsonl", ALICE, BOB, KNOWS)
    os.chmod(path, 0o644)  # the reference's file, as npx wrote it: its mode is kept
    kg = KnowledgeGraph(mem)
    file = MemoryFile(kg, path)
    file.open()
    assert dumps_jsonl(kg.read_graph()) == path.read_text(encoding="utf-8")

    with file.step(writes=True):
        kg.create_entities([{"name": "Carol", "entityType": "person", "observations": []}])
    assert dumps_jsonl(kg.read_graph()) == path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert not list(tmp_path.glob("*.tmp"))

    # Another program (the reference server) rewrites the file: the next call reads it.
    _file(path, BOB)
    with file.step(writes=False):
        assert [e["name"] for e in kg.read_graph()["entities"]] == ["Bob"]
    # A read changes nothing on disk; a failed write writes nothing.
    before = path.read_bytes()
    with pytest.raises(ValidationError), file.step(writes=True):
        kg.create_entities([{"name": 3}])
    assert path.read_bytes() == before


def test_a_missing_file_gets_the_store_s_graph(tmp_path: Path, mem: Any):
    kg = KnowledgeGraph(mem)
    kg.create_entities([{"name": "Alice", "entityType": "person", "observations": ["hi"]}])
    path = tmp_path / "new" / "memory.jsonl"
    MemoryFile(kg, path).open()
    assert path.read_text(encoding="utf-8") == dumps_jsonl(kg.read_graph())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(ValidationError, match="folder"):
        MemoryFile(kg, tmp_path)


def test_where_the_file_and_its_store_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert from_env({}) is None and from_env({"MEMORY_FILE_PATH": "  "}) is None
    assert from_env({"MEMORY_FILE_PATH": "/tmp/custom-memory.jsonl"}) == Path(
        "/tmp/custom-memory.jsonl"
    )
    monkeypatch.chdir(tmp_path)
    relative = from_env({"MEMORY_FILE_PATH": "custom-memory.jsonl"})
    assert relative == tmp_path / "custom-memory.jsonl" and relative.is_absolute()
    assert store_beside(tmp_path / "memory.jsonl") == tmp_path / "memory.graphmem"


def _run_client(mem: Any, body: Any, mode: str = "legacy") -> Any:
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        message = getattr(message, "root", message)
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    async def main() -> Any:
        server = build_memory_server(mem)
        async with Client(server, mode=mode, message_handler=on_message) as client:
            return await body(client, heard)

    return anyio.run(main)


ENTITY = {"entities": [{"name": "A", "entityType": "t", "observations": []}]}


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
def test_resources_subscribe_and_updated_notifications(mem: Any):
    async def body(client: Client, heard: list[str]) -> None:
        caps = client.server_capabilities
        assert caps is not None and caps.resources is not None and caps.resources.subscribe
        await client.call_tool("create_entities", ENTITY)
        assert heard == []  # not subscribed: not told
        await client.subscribe_resource(RESOURCE_URI)
        await client.call_tool("create_relations", {"relations": []})
        await client.call_tool("read_graph", {})
        assert heard == [RESOURCE_URI]
        await client.unsubscribe_resource(RESOURCE_URI)
        await client.call_tool("delete_entities", {"entityNames": ["A"]})
        assert heard == [RESOURCE_URI]

    _run_client(mem, body)


def test_subscriptions_listen_hears_the_graph_change(mem: Any):
    async def body(client: Client, heard: list[str]) -> list[Any]:
        events = []
        async with client.listen(resource_subscriptions=[RESOURCE_URI]) as sub:
            await client.call_tool("create_entities", ENTITY)
            with anyio.fail_after(30):
                async for event in sub:
                    events.append(event)
                    break
        return events

    events = _run_client(mem, body, mode="2026-07-28")
    assert events == [ResourceUpdated(uri=RESOURCE_URI)]

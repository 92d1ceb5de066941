"""`graphmem mcp --tools server-memory` against the real reference server.

The same client script (official MCP SDK, stdio) runs against `@modelcontextprotocol/server-memory`
(installed from npm into a temp folder, started with node, MEMORY_FILE_PATH in a temp folder)
and against graphmem; their answers must agree, and graphmem's search_nodes must find at least
what the reference's substring search finds. The reference's memory.jsonl is then imported and
exported again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphmem.adapters.mcp.kg import RECALL_EXTRA, KnowledgeGraph, dumps_jsonl
from graphmem.adapters.mcp.memory_server import INPUT_SCHEMAS
from graphmem.cli.app import cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@modelcontextprotocol/server-memory"
DEADLINE = 120

SEARCHES = [
    "acme",
    "TEA",
    "Lisbon",
    "who maintains the deployment scripts?",
    "portuguese speaker",
    "person",
    "",
    "billing",
    "zebra migration patterns",
]
UNRELATED = "zebra migration patterns"


def _install_reference(folder: Path) -> Path:
    """The reference server's entry point, installed from npm (skips only without node/npm or
    without a network to install from)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm are needed to run the reference MCP memory server")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(folder),
         PACKAGE],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    entry = folder / "node_modules" / PACKAGE / "dist" / "index.js"
    if done.returncode != 0 or not entry.exists():
        offline = any(
            word in done.stderr for word in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT")
        )
        if offline:
            pytest.skip(f"cannot install {PACKAGE} from npm (no network): {done.stderr[-300:]}")
        pytest.fail(f"npm install {PACKAGE} failed: {done.stderr[-1000:]}")
    return entry


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    text = "".join(getattr(b, "text", "") for b in result.content)
    return {"error": result.is_error, "text": text, "data": result.structured_content}


async def _script(client: Client) -> dict[str, Any]:
    """The same creates, relations, observations and deletes for both servers."""
    out: dict[str, Any] = {}
    tools = (await client.list_tools()).tools
    out["tools"] = {
        t.name: {
            "title": t.title,
            "description": t.description,
            "input": t.input_schema,
            "output": t.output_schema,
            "annotations": t.annotations.model_dump() if t.annotations else None,
        }
        for t in tools
    }
    out["create"] = await _call(client, "create_entities", entities=[
        {"name": "Alice", "entityType": "person",
         "observations": ["Works on the billing service", "Prefers tea over coffee"]},
        {"name": "Acme Corp", "entityType": "company", "observations": ["Builds payment software"]},
        {"name": "Bob", "entityType": "person", "observations": ["Maintains the deploy scripts"]},
        {"name": "Charlie", "entityType": "person", "observations": []},
    ])  # fmt: skip
    out["create_again"] = await _call(client, "create_entities", entities=[
        {"name": "Alice", "entityType": "robot", "observations": ["Should not appear"]},
        {"name": "Dana", "entityType": "person", "observations": ["Speaks Portuguese fluently"]},
    ])  # fmt: skip
    out["relate"] = await _call(client, "create_relations", relations=[
        {"from": "Alice", "to": "Acme Corp", "relationType": "works_at"},
        {"from": "Bob", "to": "Acme Corp", "relationType": "works_at"},
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Dana", "to": "Alice", "relationType": "mentors"},
    ])  # fmt: skip
    out["relate_again"] = await _call(client, "create_relations", relations=[
        {"from": "Alice", "to": "Acme Corp", "relationType": "works_at"},
        {"from": "Alice", "to": "Acme Corp", "relationType": "founded"},
    ])  # fmt: skip
    out["observe"] = await _call(client, "add_observations", observations=[
        {"entityName": "Alice", "contents": ["Lives in Lisbon", "Prefers tea over coffee"]},
        {"entityName": "Bob", "contents": ["Speaks Portuguese"]},
    ])  # fmt: skip
    out["observe_missing"] = await _call(client, "add_observations", observations=[
        {"entityName": "Bob", "contents": ["Never stored"]},
        {"entityName": "Nobody", "contents": ["x"]},
    ])  # fmt: skip
    out["bad_input"] = await _call(client, "create_entities", entities=[{"name": "Eve"}])
    out["delete_obs"] = await _call(client, "delete_observations", deletions=[
        {"entityName": "Alice", "observations": ["Prefers tea over coffee"]},
        {"entityName": "Nobody", "observations": ["x"]},
    ])  # fmt: skip
    out["delete_rel"] = await _call(client, "delete_relations", relations=[
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Alice", "to": "Bob", "relationType": "never_existed"},
    ])  # fmt: skip
    out["delete_ent"] = await _call(client, "delete_entities", entityNames=["Charlie", "Dana", "X"])
    out["read"] = await _call(client, "read_graph")
    out["open"] = await _call(client, "open_nodes", names=["Alice", "Nobody"])
    out["search"] = {q: await _call(client, "search_nodes", query=q) for q in SEARCHES}
    resource = await client.read_resource("memory://knowledge-graph")
    out["resource"] = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
    return out


def _run(params: StdioServerParameters, errlog: Path) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        with anyio.fail_after(DEADLINE), errlog.open("w") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                return await _script(client)

    return anyio.run(main)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("reference")
    entry = _install_reference(folder / "npm")
    memory_file = folder / "memory.jsonl"
    params = StdioServerParameters(
        command=shutil.which("node") or "node",
        args=[str(entry)],
        env={"MEMORY_FILE_PATH": str(memory_file), "PATH": os.environ.get("PATH", "")},
    )
    results = _run(params, folder / "stderr.log")
    return {"results": results, "file": memory_file}


def _graphmem(store: Path, model_path: str, errlog: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem.cli", "-d", str(store), "mcp", "--tools", "server-memory"],
        env={"PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path},
        cwd=str(ROOT),
    )
    return _run(params, errlog)


def _names(result: dict[str, Any]) -> list[str]:
    return [e["name"] for e in result["data"]["entities"]]


def _relations(result: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(r["from"], r["to"], r["relationType"]) for r in result["data"]["relations"]}


@pytest.mark.slow  # runs the npm reference server; the drop-in's own tests stay
def test_same_answers_as_the_reference_server(
    reference: dict[str, Any], tmp_path: Path, model_path: str
) -> None:
    ref = reference["results"]
    ours = _graphmem(tmp_path / "memory", model_path, tmp_path / "stderr.log")

    # The same nine tools, described the same way.
    assert set(ours["tools"]) == set(ref["tools"]) == set(INPUT_SCHEMAS)
    for name, tool in ref["tools"].items():
        assert ours["tools"][name] == tool, name

    # Writes return the same things, and the same errors (to the letter where it is a
    # graph error), with nothing written by a failed call.
    for step in ("create", "create_again", "relate", "relate_again", "observe", "observe_missing",
                 "delete_obs", "delete_rel", "delete_ent"):  # fmt: skip
        assert ours[step]["error"] == ref[step]["error"], step
        assert ours[step]["text"] == ref[step]["text"], step
        assert ours[step]["data"] == ref[step]["data"], step
    assert ref["bad_input"]["error"] and ours["bad_input"]["error"]
    assert "Input validation error" in ours["bad_input"]["text"]

    # read_graph and open_nodes agree, down to the order and the text content.
    assert ours["read"] == ref["read"]
    assert ours["open"] == ref["open"]
    assert ours["resource"] == ref["resource"] == ref["read"]["data"]
    read = ours["read"]["data"]
    assert {e["name"] for e in read["entities"]} == {"Alice", "Acme Corp", "Bob"}

    # search_nodes finds at least what the substring search finds, and more by recall.
    extra = 0
    for query in SEARCHES:
        theirs, mine = ref["search"][query], ours["search"][query]
        assert not mine["error"], query
        assert set(_names(mine)) >= set(_names(theirs)), query
        # The reference's matches first, in its order; then at most a few found by recall.
        assert _names(mine)[: len(_names(theirs))] == _names(theirs), query
        assert len(_names(mine)) - len(_names(theirs)) <= RECALL_EXTRA, query
        assert _relations(mine) >= _relations(theirs), query
        assert json.loads(mine["text"]) == mine["data"]
        extra += len(set(_names(mine)) - set(_names(theirs)))
    # Substring search finds nobody for a question; recall finds who maintains deploy scripts.
    question = "who maintains the deployment scripts?"
    assert _names(ref["search"][question]) == []
    assert "Bob" in _names(ours["search"][question])
    assert extra > 0
    # A query nothing relates to finds nothing, as in the reference.
    assert _names(ours["search"][UNRELATED]) == _names(ref["search"][UNRELATED]) == []


@pytest.mark.slow  # the reference server's own file, via npx; fast: test_memory_file's imports
def test_import_of_a_reference_file_and_round_trip(
    reference: dict[str, Any], tmp_path: Path, make_mem: Any
) -> None:
    ref_file: Path = reference["file"]
    expected = reference["results"]["read"]["data"]
    store = tmp_path / "imported"
    runner = CliRunner()

    first = runner.invoke(cli, ["-d", str(store), "import", str(ref_file), "-f", "mcp-memory",
                                "--json"])  # fmt: skip
    assert first.exit_code == 0, first.output
    counts = json.loads(first.output)
    assert counts == {"entities": 3, "observations": 5, "relations": 3}
    again = runner.invoke(cli, ["-d", str(store), "import", str(ref_file), "-f", "mcp-memory",
                                "--json"])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert json.loads(again.output) == {"entities": 0, "observations": 0, "relations": 0}

    exported = tmp_path / "exported.jsonl"
    done = runner.invoke(cli, ["-d", str(store), "export", "-f", "mcp-memory", "-o", str(exported)])
    assert done.exit_code == 0, done.output
    # Byte for byte the file the reference wrote for the same graph.
    assert exported.read_text(encoding="utf-8") == ref_file.read_text(encoding="utf-8")

    with make_mem("imported") as mem:
        assert KnowledgeGraph(mem).read_graph() == expected
    # And into a second store: the round trip gives the same graph again.
    with make_mem("second") as other:
        kg = KnowledgeGraph(other)
        kg.import_jsonl(exported)
        assert kg.read_graph() == expected
        assert dumps_jsonl(kg.read_graph()) == ref_file.read_text(encoding="utf-8")


def test_bad_files_are_refused_and_leave_the_store_unchanged(mem: Any, tmp_path: Path) -> None:
    kg = KnowledgeGraph(mem)
    kg.create_entities([{"name": "Alice", "entityType": "person", "observations": ["Likes tea"]}])
    before = kg.read_graph()
    bad = tmp_path / "bad.jsonl"
    for text in (
        '{"type":"entity","name":"Bob","entityType":"person","observations":[]}\nnot json',
        '{"type":"entity","name":"Bob","entityType":"person"}',
        '{"type":"relation","from":"Bob","to":3,"relationType":"knows"}',
        "[1, 2]",
    ):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(Exception) as info:
            kg.import_jsonl(bad)
        assert type(info.value).__name__ == "ValidationError", text
        assert "bad.jsonl:" in str(info.value)
        assert kg.read_graph() == before

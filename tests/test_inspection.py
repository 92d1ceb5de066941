"""Inspection is read-only: `explain`, `viz --recall`, the MCP `explain` tool and
`recall(..., learn=False)` change nothing in the store they inspect (access counts, learned
links, gaps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from helpers import db_rows
from mcp import Client

from graphmem import GraphMemory
from graphmem.cli import cli
from graphmem.mcp_server import build_server

# What is tested is the inspection calls, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


QUESTION = "Who reviews changes to the Billing API tokens?"
NOTHING = "zebra migration patterns in the savanna"  # a gap: nothing relates to it


def seed(mem: GraphMemory) -> None:
    mem.remember("The Billing API issues tokens for the checkout flow")
    mem.remember("Carla reviews every change to the Billing API")
    mem.remember("Token changes need a security review by the platform team")
    mem.flush()


def footprint(mem: GraphMemory) -> dict[str, Any]:
    """Everything a recall could learn: accesses, link weights, gaps."""
    mem.flush()
    rows = db_rows(
        mem,
        "MATCH (m:Memory) RETURN m.id AS id, m.access_count AS n, m.last_accessed AS at ORDER BY id",
    )
    links = db_rows(
        mem,
        "MATCH (a:Memory)-[r:RelatesTo]->(b:Memory) "
        "RETURN a.id AS src, b.id AS dst, r.weight AS w, r.co_access AS c ORDER BY src, dst",
    )
    return {"memories": rows, "links": links, "gaps": [g.context for g in mem.gaps()]}


def test_a_recall_learns_and_learn_false_does_not(mem: GraphMemory) -> None:
    seed(mem)
    before = footprint(mem)
    mem.recall(QUESTION, learn=False)
    mem.recall(NOTHING, learn=False)
    assert footprint(mem) == before
    mem.recall(QUESTION)  # the control: an ordinary recall does leave its trace
    assert footprint(mem)["memories"] != before["memories"]


def test_explain_and_viz_recall_write_nothing(store_path: Path, model_path: str) -> None:
    with GraphMemory(store_path, model_path=model_path) as mem:
        seed(mem)
        before = footprint(mem)
    runner = CliRunner()
    env = {"GRAPHMEM_MODEL_PATH": model_path}
    for args in (["explain", QUESTION], ["explain", NOTHING, "--json"],
                 ["viz", "-o", str(store_path.parent / "g.html"), "--recall", QUESTION]):  # fmt: skip
        result = runner.invoke(cli, ["-d", str(store_path), *args], env=env)
        assert result.exit_code == 0, result.output
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert footprint(mem) == before


def test_the_mcp_explain_tool_writes_nothing(mem: GraphMemory) -> None:
    seed(mem)
    before = footprint(mem)

    async def main() -> None:
        async with Client(build_server(mem)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["explain"].annotations is not None
            assert tools["explain"].annotations.read_only_hint is True
            for context in (QUESTION, NOTHING):
                result = await client.call_tool("explain", {"context": context})
                assert not result.is_error

    anyio.run(main)
    assert footprint(mem) == before

"""Inspection is read-only: `explain`, `viz --recall`, the MCP `explain` tool and
`recall(..., learn=False)` change nothing in the store they inspect (access counts, learned
links, gaps)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from helpers import db_rows
from mcp import Client

from graphmem import GraphMemory
from graphmem.adapters.mcp.tools import build_server
from graphmem.cli.app import cli

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


def everything(mem: GraphMemory) -> list[str]:
    """Every node and relationship in the store with all its properties (what footprint()
    misses too: clusters, tags, entities, any table a later change adds)."""
    mem.flush()
    nodes = mem.cypher("MATCH (n) RETURN label(n) AS label, n AS n")
    rels = mem.cypher("MATCH (a)-[r]->(b) RETURN label(r) AS label, a.id AS a, b.id AS b, r AS r")

    def props(x: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in x.items() if k not in ("_id", "_src", "_dst")}

    rows = [[n["label"], props(n["n"])] for n in nodes]
    rows += [[r["label"], r["a"], r["b"], props(r["r"])] for r in rels]
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


# Kùzu rewrites its database file's header page (free-page bookkeeping) whenever a read-write
# open closes, after reads only too: ``kuzu.Database(path)``, one MATCH, close changes bytes
# 28-30 of the file. A CLI call that finds no owner opens the store as its owner, so that page
# is Kùzu's, not a write of graphmem's; every other byte of every file must stay.
KUZU_HEADER = 4096


def store_bytes(store: Path) -> dict[str, str]:
    """The store's files, by content (no handle open: nothing is mid-write), the database
    without Kùzu's header page."""
    out = {}
    for p in store.iterdir():
        if p.is_file():
            data = p.read_bytes()
            if p.name == "graph.kuzu":
                data = data[KUZU_HEADER:]
            out[p.name] = hashlib.sha256(data).hexdigest()
    return out


def test_a_recall_learns_and_learn_false_does_not(mem: GraphMemory) -> None:
    seed(mem)
    before = footprint(mem)
    whole = everything(mem)
    mem.recall(QUESTION, learn=False)
    mem.recall(NOTHING, learn=False)
    assert footprint(mem) == before
    assert everything(mem) == whole
    mem.recall(QUESTION)  # the control: an ordinary recall does leave its trace
    assert footprint(mem)["memories"] != before["memories"]


def test_explain_and_viz_recall_write_nothing(store_path: Path, model_path: str) -> None:
    with GraphMemory(store_path, model_path=model_path) as mem:
        seed(mem)
        before = footprint(mem)
        whole = everything(mem)
    files = store_bytes(store_path)
    runner = CliRunner()
    env = {"GRAPHMEM_MODEL_PATH": model_path}
    for args in (["explain", QUESTION], ["explain", NOTHING, "--json"],
                 ["viz", "-o", str(store_path.parent / "g.html"), "--recall", QUESTION]):  # fmt: skip
        result = runner.invoke(cli, ["-d", str(store_path), *args], env=env)
        assert result.exit_code == 0, result.output
    # Not a byte of the store changed (database past Kùzu's header, journal, mirror snapshot).
    assert store_bytes(store_path) == files
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert footprint(mem) == before
        assert everything(mem) == whole


def test_the_mcp_explain_tool_writes_nothing(mem: GraphMemory) -> None:
    seed(mem)
    before = footprint(mem)
    whole = everything(mem)

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
    assert everything(mem) == whole

"""The MCP tools as an agent uses them: answers sized for a context window, the whole API
(update, restore, history, memories, feedback), and tool metadata an LLM can act on.

Through the SDK's real client, in process (``Client(server)``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import CallToolResult

import graphmem
from graphmem import GraphMemory
from graphmem.adapters.mcp.tools import build_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from agentmem import world  # noqa: E402
from mcp_answers import measure  # noqa: E402


def run(mem: GraphMemory, session: Callable[[Client], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(build_server(mem, **options)) as client:
                await session(client)

    anyio.run(main)


def text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, f"{tool}: {text(result)}"
    assert result.structured_content is not None
    return result.structured_content


async def fails(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} {arguments} should fail"
    return text(result)


def test_answers_fit_a_context_window(mem: GraphMemory) -> None:
    """Five hits cost at most 1.5x their text plus 250 bytes each (bench/mcp_answers.py), on
    the held-out world (seed 2; the reasons' format was shaped on seed 1)."""
    facts, questions = world(seed=2)
    mem.remember_many([{k: v for k, v in f.items() if k != "id"} for f in facts[:200]])
    summary = measure(mem, [q["question"] for q in questions[:12]])
    assert summary["recall/default"]["budget_ratio_max"] <= 1.0, summary["recall/default"]
    assert summary["search/default"]["budget_ratio_max"] <= 1.0, summary["search/default"]
    assert summary["explain/default"]["budget_ratio_median"] <= 1.0, summary["explain/default"]
    # detail is the whole structure: several times larger.
    assert (
        summary["recall/detail"]["per_hit_bytes_median"]
        > 3 * (summary["recall/default"]["per_hit_bytes_median"])
    )


def test_recall_hit_shape_detail_and_budget(mem: GraphMemory) -> None:
    facts = [
        "The Billing API depends on the Ledger service.",
        "Carla Mendes owns the Ledger service.",
        "Ledger writes to pg-ledger in eu-west-1.",
        "The Billing API is written in Go.",
        "Deploys of Billing happen on Tuesdays.",
        "Ledger p99 latency is 40 ms.",
    ]
    for f in facts:
        mem.remember(f)
    mem.remember("Never deploy Ledger on Fridays", kind="negative", triggers=["deploy"])
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        result = await client.call_tool(
            "recall", {"context": "who owns what the billing api depends on?", "limit": 5}
        )
        data = result.structured_content
        assert data is not None
        # The text content is the same data as compact JSON.
        assert json.loads(text(result)) == data and ": " not in text(result)[:40]
        assert data["recall_id"] and len(data["hits"]) == 5
        for h in data["hits"]:
            assert set(h) <= {"id", "text", "score", "why", "kind", "flags", "contradicts"}
            assert h["text"] and h["why"] and "\n" not in h["why"] and len(h["why"]) <= 180
        assert "Carla Mendes owns the Ledger service." in [h["text"] for h in data["hits"]]

        detail = await call(
            client, "recall", context="who owns what the billing api depends on?", limit=5,
            detail=True,
        )  # fmt: skip
        for h in detail["hits"]:
            assert h["memory"]["id"] == h["id"] and h["memory"]["created_at"]
            assert h["path"][-1]["node"] == h["id"]

        whole = len(text(result))
        capped = await client.call_tool(
            "recall",
            {"context": "who owns what the billing api depends on?", "limit": 5,
             "budget_tokens": whole // 8},
        )  # fmt: skip
        assert len(text(capped)) <= (whole // 8) * 4
        kept = capped.structured_content
        assert kept is not None and kept["omitted"] >= 1
        assert len(kept["hits"]) + kept["omitted"] <= 5

        searched = await client.call_tool("search", {"query": "ledger latency", "limit": 3})
        hits = searched.structured_content["hits"]  # type: ignore[index]
        assert set(hits[0]) == {"id", "text", "score"}
        seen["ok"] = True

    run(mem, session)
    assert seen["ok"]


def test_update_history_memories_restore_feedback(mem: GraphMemory) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        old = await call(client, "remember", content="The API rate limit is 100 requests/min")
        new = await call(
            client,
            "remember",
            content="The API rate limit is 200 requests/min",
            source="user_corrected",
        )
        assert new["action"] == "superseded" and new["superseded"] == [old["id"]]

        chain = await call(client, "history", id=new["id"])
        assert [m["id"] for m in chain["memories"]] == [old["id"], new["id"]]
        assert chain["memories"][0]["superseded_by"] == new["id"]
        assert chain["memories"][0]["active"] is False and "active" not in chain["memories"][1]

        fixed = await call(
            client, "update", id=new["id"], content="The API rate limit is 250 requests/min"
        )
        assert fixed["id"] == new["id"] and fixed["text"].endswith("250 requests/min")
        assert "250" in (await call(client, "get", id=new["id"]))["content"]

        for i in range(4):
            await call(client, "remember", content=f"Service number {i} runs on port 80{i}0")
        first = await call(client, "memories", limit=3)
        assert len(first["memories"]) == 3 and first["next_offset"] == 3
        rest = await call(client, "memories", limit=3, offset=first["next_offset"])
        assert "next_offset" not in rest
        listed = [m["id"] for m in first["memories"] + rest["memories"]]
        assert len(set(listed)) == len(listed) == 5  # the superseded one is not listed
        everything = await call(client, "memories", limit=50, include_inactive=True)
        assert old["id"] in [m["id"] for m in everything["memories"]]

        await call(client, "forget", id=fixed["id"])
        restored = await call(client, "restore", id=fixed["id"])
        assert "active" not in restored  # active again
        kept_superseded = await call(client, "restore", id=old["id"])
        assert kept_superseded["active"] is False and kept_superseded["superseded_by"]

        recalled = await call(client, "recall", context="what is the rate limit?", limit=3)
        hit = recalled["hits"][0]["id"]
        done = await call(client, "feedback", recall_id=recalled["recall_id"], used=[hit])
        assert done == {"recall_id": recalled["recall_id"], "used": 1, "rejected": 0}
        assert (await fails(client, "feedback", recall_id="nope", used=[hit])).startswith(
            "NotFoundError: No recent recall"
        )
        stray = await fails(client, "feedback", recall_id=recalled["recall_id"], used=["x1"])
        assert stray.startswith("ValidationError:") and "not returned by recall" in stray
        assert (await fails(client, "update", id="no-such-id", pinned=True)).startswith(
            "NotFoundError"
        )
        seen["ok"] = True

    run(mem, session)
    assert seen["ok"]
    mem.flush()


def test_tool_metadata_an_llm_can_act_on(mem: GraphMemory) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        info = client.server_info
        assert info.name == "graphmem" and info.version == graphmem.__version__
        tools = (await client.list_tools()).tools
        assert {"update", "restore", "history", "memories", "feedback"} <= {t.name for t in tools}
        for t in tools:
            description = t.description or ""
            assert description and description == description.strip(), t.name
            # No docstring artefacts: a line break inside a paragraph, or its indentation.
            assert "\n " not in description and "  " not in description, (t.name, description)
            for name, prop in t.input_schema.get("properties", {}).items():
                assert len(prop.get("description", "")) >= 10, (t.name, name)
        seen["tools"] = len(tools)

    run(mem, session, allow_cypher=True)
    assert seen["tools"] == 15


def test_server_memory_tools_report_the_version_too(mem: GraphMemory) -> None:
    from graphmem.adapters.mcp.memory_server import build_memory_server

    seen: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_memory_server(mem)) as client:
            seen["version"] = client.server_info.version

    anyio.run(main)
    assert seen["version"] == graphmem.__version__

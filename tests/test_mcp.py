"""The MCP server through the SDK's real clients: `graphmem mcp` over stdio, and the
streamable HTTP app served by uvicorn."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from graphmem import GraphMemory
from graphmem.adapters.mcp.tools import build_server, streamable_http_app

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {
    "remember": ["content"],
    "recall": ["context"],
    "search": ["query"],
    "get": ["id"],
    "memories": [],
    "history": ["id"],
    "update": ["id"],
    "forget": ["id"],
    "restore": ["id"],
    "feedback": ["recall_id"],
    "link": ["source", "target"],
    "tag": ["id", "tags"],
    "stats": [],
    "explain": ["context"],
    "cypher": ["query"],
}
SECRET = "ghp_" + "a1B2c3D4e5F6" * 3  # a GitHub token's shape: ghp_ and 36 alphanumerics
DEADLINE = 60  # seconds for one whole session, so a hang fails instead of blocking the suite

Session = Callable[[Client], Awaitable[None]]


def run_stdio(store: Path, model_path: str, session: Session, errlog: Path) -> None:
    """Start `python -m graphmem.cli -d STORE mcp` and run `session` against it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem.cli", "-d", str(store), "mcp", "--cypher"],
        env={"PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path},
        cwd=str(ROOT),
    )

    async def main() -> None:
        with anyio.fail_after(DEADLINE), errlog.open("w") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                await session(client)

    anyio.run(main)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, f"{tool}: {text(result)}"
    assert result.structured_content is not None
    return result.structured_content


async def fails(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} {arguments} should fail"
    message = text(result)
    assert "\n" not in message and "Traceback" not in message, message
    return message


def text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_stdio_tools_round_trip(store_path: Path, model_path: str, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for name, required in TOOLS.items():
            assert sorted(tools[name].input_schema.get("required", [])) == sorted(required), name
            assert tools[name].output_schema is not None, name
        assert tools["cypher"].annotations.read_only_hint is True
        assert tools["forget"].annotations.destructive_hint is True
        assert "limit" in tools["recall"].input_schema["properties"]

        limit = await call(
            client, "remember", content="The API rate limit is 100 requests/min",
            kind="fact", tags=["api"], project="billing",
        )  # fmt: skip
        assert limit["action"] == "created" and "api" in limit["tags"]
        assert "memory" not in limit
        retry = await call(
            client,
            "remember",
            content="Requests over the limit get HTTP 429 and a Retry-After header",
        )
        deploy = await call(client, "remember", content="Deploy billing with make deploy")

        recalled = await call(client, "recall", context="how many requests per minute?", limit=3)
        hit = next(h for h in recalled["hits"] if h["id"] == limit["id"])
        assert hit["score"] > 0 and hit["why"] and hit["text"].startswith("The API rate limit")
        assert "path" not in hit and "memory" not in hit
        detailed = await call(
            client, "recall", context="how many requests per minute?", limit=3, detail=True
        )
        hit = next(h for h in detailed["hits"] if h["id"] == limit["id"])
        assert hit["path"][0]["via"] and hit["path"][-1]["node"] == limit["id"]
        assert hit["memory"]["created_at"] and "embedding" not in hit["memory"]

        found = await call(client, "search", query="rate limit", limit=1)
        assert [h["id"] for h in found["hits"]] == [limit["id"]]

        got = await call(client, "get", id=retry["id"])
        assert got["content"].startswith("Requests over the limit")

        tagged = await call(client, "tag", id=retry["id"], tags=["http", "api"])
        assert {"http", "api"} <= set(tagged["tags"])

        linked = await call(
            client, "link", source=retry["id"], target=limit["id"], type="relates_to", weight=0.9
        )
        assert linked["weight"] == 0.9 and linked["type"] == "relates_to"

        forgotten = await call(client, "forget", id=deploy["id"])
        assert forgotten == {"id": deploy["id"], "purged": False}
        assert (await call(client, "get", id=deploy["id"]))["active"] is False

        stats = await call(client, "stats")
        assert (stats["memories"], stats["active"], stats["inactive"]) == (3, 2, 1)

        explained = await client.call_tool(
            "explain", {"context": "what if I send too many requests?"}
        )
        assert not explained.is_error
        tree = text(explained)
        assert tree.startswith("recall 'what if I send too many requests?'")
        assert retry["id"] in tree and "seed" in tree
        assert explained.structured_content["tree"] == tree
        assert explained.structured_content["hits"][0]["why"]

        rows = await call(
            client, "cypher",
            query="MATCH (m:Memory)-[:HasTag]->(t:Tag {name: $tag}) RETURN m.id AS id ORDER BY id",
            params={"tag": "api"},
        )  # fmt: skip
        assert rows["count"] == 2 and {r["id"] for r in rows["rows"]} == {limit["id"], retry["id"]}
        seen["ok"] = True

    run_stdio(store_path, model_path, session, tmp_path / "stderr.txt")
    assert seen["ok"]
    # The server closed the store on exit: it opens again here, with what the tools wrote.
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem.stats().memories == 3


def test_stdio_bad_inputs_are_tool_errors(
    store_path: Path, model_path: str, tmp_path: Path
) -> None:
    messages: dict[str, str] = {}

    async def session(client: Client) -> None:
        kept = await call(client, "remember", content="The VPN is needed for staging", tags=["vpn"])
        before = await call(client, "stats")

        messages["missing"] = await fails(client, "remember")
        messages["type"] = await fails(client, "remember", content=5)
        messages["limit"] = await fails(client, "recall", context="vpn", limit="ten")
        messages["unknown"] = await fails(client, "get", id="no-such-id")
        messages["misspelt"] = await fails(client, "tag", id=kept["id"], tag=["x"])
        messages["secret"] = await fails(client, "remember", content=f"my token is {SECRET}")
        messages["commit"] = await fails(
            client, "cypher", query="COMMIT; MATCH (t:Tag) DETACH DELETE t"
        )
        messages["set"] = await fails(
            client, "cypher", query="MATCH (m:Memory) SET m.content = 'overwritten'"
        )
        messages["load"] = await fails(
            client, "cypher", query="LOAD FROM '/etc/passwd' (file_format='csv') RETURN *"
        )
        messages["bad_link"] = await fails(client, "link", source=kept["id"], target=kept["id"])

        # Nothing was written, and the server still answers.
        assert await call(client, "stats") == before
        assert (await call(client, "get", id=kept["id"]))[
            "content"
        ] == "The VPN is needed for staging"
        rows = await call(client, "cypher", query="MATCH (t:Tag) RETURN count(t) AS n")
        assert rows["rows"][0]["n"] == before["tags"] > 0

    errlog = tmp_path / "stderr.txt"
    run_stdio(store_path, model_path, session, errlog)
    # Expected failures are not crashes: no traceback in the server's log either.
    assert "Traceback" not in errlog.read_text()
    assert messages["missing"] == "Invalid arguments for remember: content: Field required"
    assert (
        messages["type"]
        == "Invalid arguments for remember: content: Input should be a valid string"
    )
    assert messages["limit"].startswith("Invalid arguments for recall: limit:")
    assert messages["unknown"] == "NotFoundError: No memory with id 'no-such-id'"
    assert messages["misspelt"] == (
        "Invalid arguments for tag: unknown argument(s) tag; expected id, tags"
    )
    assert messages["secret"].startswith("SecretError:") and "github_token" in messages["secret"]
    assert SECRET not in messages["secret"]
    assert messages["commit"].startswith("CypherError: One statement per call")
    assert messages["set"].startswith("ReadOnlyError:")
    # Kùzu binds the file, the sandbox's kernel rules refuse to open it (or, without Landlock,
    # the plan check refuses READ_CSV): either way a CypherError and nothing of the file.
    assert messages["load"].startswith("CypherError:") and "root:" not in messages["load"]
    assert messages["bad_link"] == "ValidationError: A memory cannot be linked to itself"


def test_unexpected_exception_is_a_tool_error(
    mem: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug inside a tool reaches the client as a generic error, and the server carries on."""

    def broken() -> None:
        raise RuntimeError("internal detail /home/someone/.secret")

    async def main() -> None:
        server = build_server(mem)
        async with Client(server) as client:
            monkeypatch.setattr(mem, "stats", broken)
            message = await fails(client, "stats")
            assert message == "Error executing tool stats"
            monkeypatch.undo()
            assert (await call(client, "stats"))["memories"] == 0

    anyio.run(main)


def test_streamable_http(mem: GraphMemory) -> None:
    app = streamable_http_app(mem, allow_cypher=True)
    # Bound and listening before uvicorn starts, so the client's connect cannot race the server.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))

    async def main() -> None:
        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [sock])
                try:
                    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                        names = {t.name for t in (await client.list_tools()).tools}
                        assert names == set(TOOLS)
                        made = await call(
                            client, "remember", content="HTTP clients reach graphmem too"
                        )
                        got = await call(client, "get", id=made["id"])
                        assert got["content"] == "HTTP clients reach graphmem too"
                        assert "Field required" in await fails(client, "recall")
                finally:
                    server.should_exit = True

    anyio.run(main)
    sock.close()
    assert mem.stats().memories == 1


def test_stdout_carries_only_the_protocol(store_path: Path, model_path: str) -> None:
    """Every line `graphmem mcp` writes to stdout is a JSON-RPC message, from start to exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "remember", "arguments": {"content": "stdout stays clean"}}},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store_path), "mcp"],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    for request in requests:
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        if "id" in request:
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    rest = proc.stdout.read()
    assert proc.wait(timeout=DEADLINE) == 0
    assert rest == ""
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["structuredContent"]["action"] == "created"


def test_readme_configuration_and_tool_list() -> None:
    """The client starts the command without the user's PATH or environment: the snippets
    name the virtualenv's graphmem by its full path, the model, and no network wait."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    section = readme.split("## MCP\n", 1)[1].split("\n## ", 1)[0]
    for text in (section, page):
        snippet = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
        entry = snippet["mcpServers"]["graphmem"]
        assert entry["command"].endswith("/.venv/bin/graphmem") and entry["args"][-1] == "mcp"
        assert entry["args"][0] == "-d" and "GRAPHMEM_MODEL_PATH" in entry["env"]
        assert entry["env"]["HF_HUB_OFFLINE"] == "1"
    for name in TOOLS:
        assert f"`{name}`" in section, name
        assert f"| `{name}(" in page, name


def _initialize_status(mem: GraphMemory, allowed: tuple[str, ...], host: str) -> int:
    """The status /mcp answers an initialize request sent with ``Host: host``."""
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}},
    }  # fmt: skip
    headers = {"accept": "application/json, text/event-stream", "host": host}
    app = streamable_http_app(mem, allowed_hosts=allowed)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    status: list[int] = []

    async def main() -> None:
        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [sock])
                try:  # the socket listens already: the request waits in its backlog
                    async with httpx.AsyncClient() as http:
                        answer = await http.post(
                            f"http://127.0.0.1:{port}/mcp", json=initialize, headers=headers
                        )
                        status.append(answer.status_code)
                finally:
                    server.should_exit = True

    anyio.run(main)
    sock.close()
    return status[0]


def test_allowed_host_names_reach_the_mcp_endpoint(mem: GraphMemory) -> None:
    """`serve --allow-host NAME` must reach /mcp too: the SDK's own rebinding check on a
    loopback bind knew only the loopback names."""
    assert _initialize_status(mem, (), "gm.internal:8765") in (403, 421)
    assert _initialize_status(mem, ("gm.internal",), "gm.internal:8765") == 200
    assert _initialize_status(mem, ("gm.internal",), "evil.example:8765") in (403, 421)

"""Every MCP tool listed and called by a client nobody here wrote: the MCP Inspector's CLI
(``npx @modelcontextprotocol/inspector --cli``), over stdio (``graphmem mcp``) and over
streamable HTTP (``graphmem serve --tcp``, with ``--header "Authorization: Bearer …"``).

Skipped, saying why, only when ``npx`` is missing; CI sets GRAPHMEM_REQUIRE_NPX=1, where a
missing npx is a failure. Each Inspector call is a Node process (and over stdio a graphmem
process too), so these tests are slow.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Pinned: the CLI's flags (--header, --strict) and output are those of this release.
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NPX = shutil.which("npx")

if NPX is None:
    if os.environ.get("GRAPHMEM_REQUIRE_NPX"):
        raise RuntimeError("npx is missing (GRAPHMEM_REQUIRE_NPX is set)")
    pytest.skip(
        "the MCP Inspector runs with npx, which is missing (apt-get install -y nodejs npm)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow

Call = Callable[..., dict[str, Any]]


def inspector(target: list[str], method: str, *, tool: str | None = None,
              args: dict[str, Any] | None = None, headers: list[str] = (),  # type: ignore[assignment]
              extra: list[str] = (), tool_error: bool = False,  # type: ignore[assignment]
              ) -> dict[str, Any]:  # fmt: skip
    """Run one Inspector CLI call and return its JSON output (a tool error exits 5)."""
    argv = [str(NPX), "--prefer-offline", "-y", INSPECTOR, "--cli", *target, "--method", method]
    for header in headers:
        argv += ["--header", header]
    if tool is not None:
        argv += ["--tool-name", tool]
    if args is not None:
        # Verbatim: --tool-arg would read an id of digits ("693227212819") as a number.
        argv += ["--tool-args-json", json.dumps(args)]
    argv += list(extra)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == (5 if tool_error else 0), (argv, done.stdout[-2000:], done.stderr)
    return json.loads(done.stdout)


def exercise(call: Call, list_tools: Callable[[], dict[str, Any]], *, same_process: bool) -> None:
    """List the tools, then call every one of them with arguments an agent would send."""
    listed = list_tools()
    names = {t["name"] for t in listed["tools"]}
    assert names == {
        "remember", "recall", "search", "explain", "get", "memories", "history", "update",
        "forget", "restore", "feedback", "link", "tag", "stats", "cypher",
    }  # fmt: skip
    for t in listed["tools"]:
        for name, prop in t["inputSchema"].get("properties", {}).items():
            assert prop.get("description"), (t["name"], name)
    called: set[str] = set()

    def ok(tool: str, **args: Any) -> dict[str, Any]:
        result = call(tool, args)
        assert result.get("isError") is not True, (tool, result)
        called.add(tool)
        return result["structuredContent"]

    vpn = ok("remember", content="The VPN is needed for staging", tags=["vpn"])["id"]
    region = ok("remember", content="Staging runs in eu-west-1")["id"]
    recalled = ok("recall", context="what do I need to reach staging?", limit=3)
    assert vpn in [h["id"] for h in recalled["hits"]]
    assert ok("search", query="vpn staging", limit=2)["hits"][0]["id"] == vpn
    assert "recall 'staging'" in ok("explain", context="staging")["tree"]
    assert ok("get", id=vpn)["content"] == "The VPN is needed for staging"
    assert ok("memories", limit=1)["next_offset"] == 1
    assert ok("update", id=region, content="Staging runs in eu-central-1")["text"].endswith(
        "eu-central-1"
    )
    history = ok("history", id=region)["memories"]
    assert region in [m["id"] for m in history]
    # update() keeps the earlier content as a version, which history shows.
    assert any("eu-west-1" in (m.get("text") or m.get("content") or "") for m in history)
    assert ok("link", source=vpn, target=region, weight=0.8)["type"] == "relates_to"
    assert "network" in ok("tag", id=vpn, tags=["network"])["tags"]
    if same_process:
        used = ok("feedback", recall_id=recalled["recall_id"], used=[vpn])
        assert used["used"] == 1
    else:
        # Each stdio call is a new server: the recall it would refer to is another process's.
        result = call("feedback", {"recall_id": recalled["recall_id"], "used": [vpn]}, True)
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("NotFoundError: No recent recall")
        called.add("feedback")
    assert ok("forget", id=vpn) == {"id": vpn, "purged": False}
    assert "active" not in ok("restore", id=vpn)
    stats = ok("stats")
    assert stats["memories"] == 3 and stats["active"] == 2  # + the version update() kept
    rows = ok("cypher", query="MATCH (m:Memory) WHERE m.active RETURN count(m) AS n")["rows"]
    assert rows == [{"n": 2}]
    assert called == names


def test_inspector_over_stdio(store_path: Path, model_path: str) -> None:
    env = ["-e", f"PYTHONPATH={ROOT}", "-e", f"GRAPHMEM_MODEL_PATH={model_path}"]
    server = [*env, sys.executable, "-m", "graphmem.cli", "-d", str(store_path), "mcp", "--cypher"]

    def call(tool: str, args: dict[str, Any], tool_error: bool = False) -> dict[str, Any]:
        return inspector(server, "tools/call", tool=tool, args=args, tool_error=tool_error)

    # --strict: the Inspector's check that the schemas work across clients (exit 6 if not).
    exercise(call, lambda: inspector(server, "tools/list", extra=["--strict"]), same_process=False)


@pytest.fixture
def served(store_path: Path, model_path: str) -> Iterator[tuple[str, str]]:
    """`graphmem serve --tcp 127.0.0.1:0 --mcp-cypher`: its MCP URL and token."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store_path), "serve",
         "--tcp", "127.0.0.1:0", "--mcp-cypher"],
        env=env, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:  # ends when serve exits: no hang if it fails to start
            if line.startswith("serving "):
                url = line.split(" and ", 1)[1].split(" ", 1)[0] + "/mcp"
                break
        assert url, "graphmem serve did not start"
        yield url, (store_path / "serve.token").read_text().strip()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0


def test_inspector_over_http_with_bearer_header(served: tuple[str, str]) -> None:
    url, token = served
    target = [url, "--transport", "http"]
    headers = [f"Authorization: Bearer {token}"]

    def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return inspector(target, "tools/call", tool=tool, args=args, headers=headers)

    exercise(
        call,
        lambda: inspector(target, "tools/list", headers=headers, extra=["--strict"]),
        same_process=True,
    )
    # Without the header: refused (the Inspector would start OAuth on the 401; it cannot here).
    argv = [str(NPX), "--prefer-offline", "-y", INSPECTOR, "--cli", *target,
            "--method", "tools/list", "--stored-auth-only"]  # fmt: skip
    refused = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert refused.returncode != 0 and '"tools"' not in refused.stdout

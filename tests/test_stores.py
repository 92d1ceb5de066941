"""One server, many stores (`graphmem serve --stores DIR`): stores open on first use, close
when idle or crowded (snapshot first), stay isolated, and bad names reach nothing.

The server runs in this process (its registry is inspected), on a loopback port; the clients
are the real HTTP clients (``GraphMemory("http://.../s/<name>")``, raw httpx, MCP)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from graphmem import (
    Config,
    CypherError,
    GraphMemError,
    GraphMemory,
    NotFoundError,
    ServerBusyError,
    ValidationError,
    paths,
)
from graphmem.adapters import stores_server
from graphmem.adapters.stores import StoreRegistry, resident_bytes
from graphmem.embed import FastEmbedder
from graphmem.index.snapshot import SNAPSHOT_FILE
from graphmem.remote import server

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60


class Running:
    """A server of many stores in this process."""

    def __init__(self, registry: StoreRegistry, listener: server.Listener, token: str) -> None:
        self.registry = registry
        self.listener = listener
        self.token = token
        assert listener.tcp_address is not None
        host, port = listener.tcp_address
        self.base = f"http://{host}:{port}"
        self.http = httpx.Client(
            base_url=self.base, headers={"authorization": f"Bearer {token}"}, timeout=WAIT
        )

    def url(self, name: str) -> str:
        return f"{self.base}/s/{name}"

    def client(self, name: str) -> GraphMemory:
        return GraphMemory(self.url(name), token=self.token)

    def entry(self, name: str) -> Any:
        return self.registry._entries[name]


@pytest.fixture
def start(tmp_path: Path, model_path: str) -> Iterator[Callable[..., Running]]:
    embedder = FastEmbedder(model_path=model_path)
    config = Config(buffer_pool_mb=256, max_db_gb=8)
    started: list[Running] = []

    def factory(**options: Any) -> Running:
        root = tmp_path / "stores"
        root.mkdir(mode=0o700, exist_ok=True)

        def opener(folder: Path) -> GraphMemory:
            return GraphMemory(folder, embedder=embedder, config=config)

        registry = StoreRegistry(root, opener, **options)
        token = paths.token(root, create=True)
        app = stores_server.create_app(
            registry, token=token, tcp_hosts=server.local_hosts("127.0.0.1")
        )
        listener = server.Listener(app, tcp=("127.0.0.1", 0))
        running = Running(registry, listener, token)
        started.append(running)
        return running

    yield factory
    for running in started:
        running.http.close()
        running.listener.stop()
        running.registry.close_all(timeout=5)


def _snapshot_commit(folder: Path) -> str:
    with open(folder / SNAPSHOT_FILE, "rb") as f:
        return str(json.loads(f.readline())["commit"])


def test_each_store_opens_on_first_use_and_sees_only_itself(start) -> None:
    srv = start(create=True)
    assert srv.registry.status()["open"] == 0
    with srv.client("alice") as alice, srv.client("bob") as bob:
        alice.remember("Alice's deploy key rotates every Monday", tags=["ops"])
        bob.remember("Bob's team ships the billing service on Fridays")
        assert alice.stats().memories == 1 and bob.stats().memories == 1
        hits = bob.recall("when does the deploy key rotate?")
        assert all("Alice" not in h.memory.content for h in hits)
        assert [h.memory.content for h in alice.search("deploy key")][:1] == [
            "Alice's deploy key rotates every Monday"
        ]
        with pytest.raises(NotFoundError):
            bob.get(alice.memories()[0].id)
        assert {t.name for t in bob.tags()}.isdisjoint({"ops"})
    status = srv.registry.status()
    assert sorted(s["name"] for s in status["stores"]) == ["alice", "bob"]
    assert {s["owner_pid"] for s in status["stores"]} == {os.getpid()}
    assert (srv.registry.root / "alice" / paths.DB_FILE).exists()


def test_a_missing_store_is_not_found_unless_a_write_may_create_it(start) -> None:
    strict = start()
    with pytest.raises(NotFoundError, match="No store 'nobody' on this server"):
        strict.client("nobody")
    response = strict.http.post("/s/nobody/v1/call/remember", json={"args": ["x"]})
    assert response.status_code == 404
    assert not (strict.registry.root / "nobody").exists()


def test_with_create_a_read_does_not_create_and_a_write_does(start) -> None:
    srv = start(create=True)
    with srv.client("carol") as carol:  # connects: the store does not exist yet
        with pytest.raises(NotFoundError, match="its first write creates it"):
            carol.recall("anything")
        assert not (srv.registry.root / "carol").exists()
        carol.remember("Carol's first memory")
        assert carol.stats().memories == 1


@pytest.mark.parametrize(
    "name",
    [".hidden", "-dash", "a b", "x" * 129, "%2E%2E", "%2E%2E%2Fstores", "serve.token", "linked"],
)
def test_names_that_would_reach_outside_are_refused(start, tmp_path: Path, name: str) -> None:
    srv = start(create=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (srv.registry.root / "linked").symlink_to(outside, target_is_directory=True)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for response in (
        srv.http.post(f"/s/{name}/v1/call/remember", json={"args": ["a memory"]}),
        srv.http.get(f"/s/{name}/v1/health"),
    ):
        assert response.status_code in (400, 404), (name, response.status_code)
        if response.headers.get("content-type") == "application/json":
            error = response.json()["error"]["type"]
            assert error in ("ValidationError", "NotFoundError")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert srv.registry.status()["open"] == 0


def test_a_dot_dot_segment_sent_as_is_is_refused(start) -> None:
    """httpx would normalise ``/s/../`` away; a raw client sends it as it is."""
    srv = start(create=True)
    host, port = srv.listener.tcp_address
    request = (
        f"POST /s/../v1/call/remember HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {srv.token}\r\nContent-Type: application/json\r\n"
        'Content-Length: 18\r\nConnection: close\r\n\r\n{"args": ["evil"]}'
    )
    with socket.create_connection((host, port), timeout=WAIT) as sock:
        sock.sendall(request.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
    assert b"Invalid store name '..'" in answer
    assert not (srv.registry.root.parent / paths.DB_FILE).exists()


def test_the_token_is_required_except_for_the_probes(start) -> None:
    srv = start(create=True)
    anonymous = httpx.Client(base_url=srv.base, timeout=WAIT)
    try:
        assert anonymous.get("/v1/health").json() == {"ok": True}
        assert anonymous.get("/v1/ready").json() == {"ready": True, "reason": "ready"}
        assert anonymous.get("/v1/status").status_code == 401
        assert anonymous.get("/s/alice/v1/health").status_code == 401
        assert anonymous.post("/s/alice/v1/call/remember", json={"args": ["x"]}).status_code == 401
        with pytest.raises(GraphMemError, match="refused the token"):
            GraphMemory(srv.url("alice"), token="not-the-token")
    finally:
        anonymous.close()
    assert srv.http.get("/v1/status").json()["open"] == 0


def test_max_open_closes_the_least_recently_used_after_its_snapshot(start) -> None:
    srv = start(create=True, max_open=2)
    for name in ("a1", "a2"):
        with srv.client(name) as mem:
            mem.remember(f"store {name} holds this note")
    commit = srv.entry("a1").mem._store.commit_id
    with srv.client("a3") as mem:
        mem.remember("a third store pushes the least recently used one out")
    status = srv.registry.status()
    assert sorted(s["name"] for s in status["stores"]) == ["a2", "a3"]
    # Closed with its snapshot at its last commit: the next open reads it.
    assert _snapshot_commit(srv.registry.root / "a1") == commit
    with srv.client("a1") as mem:
        assert mem.stats().memories == 1
    assert srv.entry("a1").mem._shared.from_snapshot
    assert sorted(s["name"] for s in srv.registry.status()["stores"]) == ["a1", "a3"]


def test_idle_stores_close_and_snapshots_are_saved_on_a_timer(start) -> None:
    srv = start(create=True, idle_seconds=7200, snapshot_seconds=3600)
    with srv.client("timer") as mem:
        mem.remember("written before the timer fires")
    entry = srv.entry("timer")
    folder = srv.registry.root / "timer"
    assert not (folder / SNAPSHOT_FILE).exists()
    # The timer's turn (the janitor calls sweep; called here at a chosen time).
    now = entry.last_snapshot + 3601
    assert srv.registry.sweep(now=entry.last_used + 10) == []
    entry.mem.flush()
    srv.registry.sweep(now=now)
    assert _snapshot_commit(folder) == entry.mem._store.commit_id
    assert srv.registry.status()["open"] == 1  # saved, still open
    assert srv.registry.sweep(now=entry.last_used + 7201) == ["timer"]
    assert srv.registry.status()["open"] == 0


def test_a_store_in_use_is_never_closed_and_a_full_server_says_busy(start) -> None:
    srv = start(create=True, max_open=1)
    with srv.client("held") as mem:
        mem.remember("this store stays in use")
    with srv.registry.use("held", write=False):
        with pytest.raises(ServerBusyError, match="--max-open"), srv.client("other") as other:
            other.remember("no room while 'held' is in use")
        response = srv.http.post("/s/other/v1/call/remember", json={"args": ["x"]})
        assert response.status_code == 503
        assert srv.registry.sweep(now=10**9) == []  # in use: not idle, not closed
    assert [s["name"] for s in srv.registry.status()["stores"]] == ["held"]
    with srv.client("other") as other:
        other.remember("room once 'held' is released")
    assert [s["name"] for s in srv.registry.status()["stores"]] == ["other"]


def test_the_memory_budget_closes_idle_stores_to_make_room(start) -> None:
    rss = resident_bytes()
    assert rss is not None
    # Room for what is resident now and little more: every new store needs another closed.
    srv = start(create=True, memory_budget=rss + (1 << 20))
    for name in ("m1", "m2", "m3"):
        with srv.client(name) as mem:
            mem.remember(f"budgeted store {name}")
        assert [s["name"] for s in srv.registry.status()["stores"]] == [name]
    assert srv.registry.closes == 2
    assert srv.registry.status()["memory_budget"] == rss + (1 << 20)


def test_a_crashing_statement_in_one_store_leaves_every_store_serving(start) -> None:
    srv = start(create=True)
    with srv.client("crash") as crash, srv.client("calm") as calm:
        crash.remember("The crash store's only memory")
        calm.remember("The calm store's payments run nightly")
        with pytest.raises(CypherError):
            crash.cypher("RETURN repeat('ab', -1)")
        assert calm.recall("when do payments run?")[0].memory.content.startswith("The calm")
        assert crash.cypher("MATCH (m:Memory) RETURN count(*) AS n") == [{"n": 1}]
        with pytest.raises(ValidationError, match="files"):
            crash.cypher("RETURN 1", files=Path.cwd())


def test_a_broken_store_fails_alone(start) -> None:
    srv = start(create=True)
    with srv.client("fine") as fine:
        fine.remember("a healthy store")
    broken = srv.registry.root / "broken"
    broken.mkdir(mode=0o700)
    (broken / paths.DB_FILE).write_bytes(b"not a database" * 1000)
    with srv.client("broken") as mem, pytest.raises(GraphMemError):
        mem.stats()
    with srv.client("fine") as fine:
        assert fine.stats().memories == 1
    assert [s["name"] for s in srv.registry.status()["stores"]] == ["fine"]


def test_each_store_has_its_own_mcp_endpoint(start) -> None:
    srv = start(create=True)
    with srv.client("agent-b") as b:
        b.remember("Agent B's memory stays in agent B")

    async def main() -> list[str]:
        headers = {"authorization": f"Bearer {srv.token}"}
        with anyio.fail_after(WAIT):
            return await session(headers)

    async def session(headers: dict[str, str]) -> list[str]:
        async with httpx2.AsyncClient(headers=headers, timeout=WAIT) as http:
            transport = streamable_http_client(srv.url("agent-a") + "/mcp", http_client=http)
            async with Client(transport) as client:
                made = await client.call_tool("remember", {"content": "Agent A uses MCP"})
                assert not made.is_error, made
                found = await client.call_tool("search", {"query": "memory"})
                return [json.dumps(c.model_dump()) for c in found.content]

    texts = anyio.run(main)
    assert any("Agent A uses MCP" in t for t in texts)
    assert not any("Agent B" in t for t in texts)
    with srv.client("agent-a") as a:
        assert [m.content for m in a.memories()] == ["Agent A uses MCP"]


def test_draining_refuses_new_calls_and_fails_readiness(start) -> None:
    srv = start(create=True)
    with srv.client("d1") as mem:
        mem.remember("written before the drain")
    commit = srv.entry("d1").mem._store.commit_id
    assert srv.registry.close_all(timeout=5) == 1
    assert _snapshot_commit(srv.registry.root / "d1") == commit
    response = httpx.get(srv.base + "/v1/ready", timeout=WAIT)
    assert response.status_code == 503 and response.json()["reason"] == "draining"
    with pytest.raises(ServerBusyError, match="stopping"):
        srv.client("d1").stats()


# ---------------------------------------------------------------------- the command


@pytest.mark.slow  # a real serve --stores process; fast: test_draining_refuses_new_calls_and_fails_readiness
def test_serve_stores_command_serves_clis_and_drains_on_sigterm(
    tmp_path: Path, model_path: str
) -> None:
    root = tmp_path / "stores"
    root.mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "serve", "--stores", str(root), "--tcp",
         "127.0.0.1:0", "--create", "--max-open", "8", "--memory-budget", "8G"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:  # ends at EOF if the server fails to start
            lines.append(line)
            if line.startswith("serving stores"):
                break
        assert lines and lines[-1].startswith("serving stores"), lines
        base = lines[-1].split(" on ", 1)[1].split()[0]
        assert (root / paths.TOKEN_NAME).stat().st_mode & 0o777 == 0o600
        token = (root / paths.TOKEN_NAME).read_text().strip()
        cli_env = {**env, "GRAPHMEM_TOKEN": token}

        def cli(*args: str) -> str:
            done = subprocess.run(
                [sys.executable, "-m", "graphmem.cli", "-d", f"{base}/s/team-a", *args],
                cwd=ROOT, env=cli_env, capture_output=True, text=True, timeout=WAIT,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert cli("remember", "Team A deploys from the release branch").startswith("created")
        assert "release branch" in cli("recall", "--json", "where does team A deploy from?")
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=WAIT) == 0
        assert "stopped: 1 stores closed" in rest
        assert (root / "team-a" / SNAPSHOT_FILE).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_stores_refuses_a_bad_budget(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from graphmem.cli.app import cli

    result = CliRunner().invoke(
        cli, ["serve", "--stores", str(tmp_path), "--memory-budget", "lots"]
    )
    assert result.exit_code == 1
    assert "Not a size: 'lots'" in result.output


@pytest.mark.slow  # twenty stores; the serve-stores command test below stays
def test_one_server_holds_twenty_stores_open(start) -> None:
    """Kùzu reserves address space for each open database (8 TB by default: about 15 fit in a
    process); the server's stores reserve ``max_db_gb`` each."""
    srv = start(create=True)
    names = [f"many-{i:02d}" for i in range(20)]
    for name in names:
        with srv.client(name) as mem:
            mem.remember(f"{name} is open")
    assert sorted(s["name"] for s in srv.registry.status()["stores"]) == names


def test_a_smaller_page_cache_costs_each_open_store_less_memory(
    tmp_path: Path, model_path: str
) -> None:
    """Kùzu's page cache keeps bookkeeping resident in proportion to its size, used or not:
    at its default (80% of RAM) that is tens of MB per open store, so a server of many stores
    sets ``Config.buffer_pool_mb``."""
    embedder = FastEmbedder(model_path=model_path)

    def grown(config: Config, prefix: str) -> int:
        GraphMemory(tmp_path / f"{prefix}-warm", embedder=embedder, config=config).close()
        before = resident_bytes()
        opened = [
            GraphMemory(tmp_path / f"{prefix}{i}", embedder=embedder, config=config)
            for i in range(3)
        ]
        after = resident_bytes()
        for mem in opened:
            mem.close()
        assert before is not None and after is not None
        return after - before

    default, small = grown(Config(), "d"), grown(Config(buffer_pool_mb=256), "s")
    print(f"3 stores: {default >> 20} MB at Kùzu's default cache, {small >> 20} MB at 256 MB")
    assert small < default - (30 << 20)


def test_servers_starting_together_keep_the_first_token(tmp_path: Path, monkeypatch) -> None:
    """Two servers on one folder make a token at the same moment: the one in place first
    stays, and the other server uses it (replacing it locked the first one's clients out)."""
    real_mkstemp = paths.tempfile.mkstemp
    theirs = "first-server-token-" + "x1y2z3" * 6

    def racing_mkstemp(**kwargs: Any) -> tuple[int, str]:
        # The other server puts its token in place while this one writes its own.
        target = tmp_path / paths.TOKEN_NAME
        target.write_text(theirs + "\n")
        target.chmod(0o600)
        return real_mkstemp(**kwargs)

    monkeypatch.setattr(paths.tempfile, "mkstemp", racing_mkstemp)
    assert paths.token(tmp_path, create=True) == theirs
    assert (tmp_path / paths.TOKEN_NAME).read_text().strip() == theirs
    assert [p.name for p in tmp_path.iterdir()] == [paths.TOKEN_NAME]  # no temp file left


def test_a_serve_token_may_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(paths.SERVE_TOKEN_ENV, raising=False)
    assert paths.token_from_env() is None
    monkeypatch.setenv(paths.SERVE_TOKEN_ENV, "changeme" * 5)
    with pytest.raises(GraphMemError, match=r"\$GRAPHMEM_SERVE_TOKEN is too weak"):
        paths.token_from_env()
    strong = "Zq8-vKd2_P0xLr7TyB4nWc1Hs9Fj3Ug6Ma5Ee"
    monkeypatch.setenv(paths.SERVE_TOKEN_ENV, f"{strong}\n")
    assert paths.token_from_env() == strong


def test_precomputed_embeddings_cross_the_wire(start, model_path: str) -> None:
    srv = start(create=True)
    texts = ["Ingested elsewhere: the ledger closes at midnight", "Ingested elsewhere: two"]
    vectors = FastEmbedder(model_path=model_path).embed(texts)  # numpy rows, as a worker has
    with srv.client("bulk") as mem:
        done = mem.remember_many(
            [{"content": t, "embedding": v} for t, v in zip(texts, vectors, strict=True)]
        )
        stored = mem.get(done[0].id, with_embedding=True).embedding
        assert stored is not None and abs(float(vectors[0] @ stored) - 1.0) < 1e-5
        with pytest.raises(ValidationError, match="3 dimensions"):
            mem.remember("too short a vector", embedding=[0.1, 0.2, 0.3])
        assert mem.stats().memories == 2

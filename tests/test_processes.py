"""One store, many processes: the first opener holds the store and serves it; every other
process (Python, CLI, MCP) is its client. Real processes throughout; every wait is on what a
process says (a line on a pipe), bounded by a timeout so a hang fails instead of blocking."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from graphmem import (
    CypherError,
    GraphMemError,
    GraphMemory,
    NotFoundError,
    ReadOnlyError,
    SecretError,
    StoreLockedError,
    ValidationError,
)
from graphmem.models import Memory, RecallResult, RememberResult
from graphmem.paths import socket_path

ROOT = Path(__file__).resolve().parent.parent
PROCS = Path(__file__).resolve().parent / "procs.py"
WAIT = 120  # seconds: generous on a loaded 2-core machine; only a hang reaches it


def env(model_path: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}


_STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """Whatever a test asserts, every worker it started is gone when it ends (a failed test
    used to leave `viz --serve` and `serve` processes running)."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Worker:
    """A process whose stdout lines are read by a thread, so waits can time out."""

    def __init__(self, args: list[str], environ: dict[str, str], *, stream: str = "stdout"):
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environ,
            cwd=str(ROOT),
        )
        _STARTED.append(self.proc)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        source = self.proc.stdout if stream == "stdout" else self.proc.stderr
        threading.Thread(target=self._read, args=(source,), daemon=True).start()

    def _read(self, source: Any) -> None:
        for line in source:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("<eof>")

    def expect(self, prefix: str) -> str:
        """The next line starting with ``prefix`` (other lines are kept in ``seen``)."""
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(
                    f"no '{prefix}' line within {WAIT} s; saw {self.seen}"
                ) from None
            self.seen.append(line)
            if line == "<eof>":
                raise AssertionError(f"exited before '{prefix}': {self.seen} {self.stderr()}")
            if line.startswith(prefix):
                return line

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self) -> int:
        """Close stdin (the worker's cue to close the store) and wait for it to exit."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        return self.proc.wait(timeout=WAIT)

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None or self.proc.stderr.closed:
            return ""
        return self.proc.stderr.read()


def worker(role: str, store: Path, model_path: str, n: int = 10) -> Worker:
    return Worker([sys.executable, str(PROCS), role, str(store), str(n)], env(model_path))


def acks(w: Worker, n: int) -> list[str]:
    return [w.expect("ack ").split()[1] for _ in range(n)]


def cli(store: Path, model_path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store), *args],
        capture_output=True,
        text=True,
        env=env(model_path),
        cwd=str(ROOT),
        timeout=WAIT,
    )


@pytest.mark.slow  # six processes; fast ones: the client and hand-over tests below
def test_one_store_many_processes(tmp_path: Path, model_path: str) -> None:
    """A owner keeps writing while a CLI reader, a CLI recall, a second writer, a recaller
    and an MCP client use the same store; at the end every acknowledged memory is there."""
    from test_mcp import call, run_stdio

    store = tmp_path / "memory"
    owner = worker("writer", store, model_path, n=30)
    assert owner.expect("role") == "role owner"
    writer = worker("writer", store, model_path, n=20)
    recaller = worker("recaller", store, model_path, n=10)
    assert writer.expect("role") == "role client"
    assert recaller.expect("role") == "role client"
    reader = cli(store, model_path, "cypher", "MATCH (m:Memory) RETURN count(m) AS n", "--json")
    assert reader.returncode == 0, reader.stderr
    assert json.loads(reader.stdout)[0]["n"] >= 1
    recalled = cli(store, model_path, "recall", "which port does service s3 listen on?", "--json")
    assert recalled.returncode == 0, recalled.stderr
    assert json.loads(recalled.stdout)["hits"]

    mcp_ids: list[str] = []

    async def session(client: Any) -> None:
        made = await call(client, "remember", content="The MCP client was here on port 7777")
        mcp_ids.append(made["id"])
        found = await call(client, "recall", context="which port was the MCP client on?")
        assert made["id"] in [h["id"] for h in found["hits"]]

    run_stdio(store, model_path, session, tmp_path / "mcp.log")

    acknowledged = acks(owner, 30) + acks(writer, 20) + mcp_ids
    assert owner.expect("done") == "done owner"
    assert writer.expect("done") == "done client"
    assert recaller.expect("done") == "done client"
    assert recaller.finish() == 0
    # Seen from yet another process while the owner is still there.
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None
        assert {m.id for m in mem.memories(limit=None)} >= set(acknowledged)
        check = cli(store, model_path, "get", acknowledged[-1], "--json")
        assert check.returncode == 0 and acknowledged[-1] in check.stdout
    assert writer.finish() == 0
    assert owner.finish() == 0
    # And once everyone has gone: the store holds exactly what was acknowledged.
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is None
        stored = {m.id for m in mem.memories(limit=None)}
        assert stored == set(acknowledged)
        assert not socket_path(store).exists() or mem.owner is None


@pytest.mark.slow  # fast take-over: test_exactly_once, test_crash's client trial
def test_holder_killed_mid_run_clients_take_over(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    writer = worker("writer", store, model_path, n=30)
    assert writer.expect("role") == "role client"
    first = acks(writer, 8)
    owner.proc.send_signal(signal.SIGKILL)
    owner.proc.wait(timeout=WAIT)
    rest = acks(writer, 22)
    # The writer found the owner gone, took the store over and carried on.
    assert writer.expect("done") == "done owner"
    assert writer.finish() == 0
    with GraphMemory(store, model_path=model_path) as mem:
        stored = {m.id for m in mem.memories(limit=None)}
        assert set(first + rest) <= stored
        assert len(stored) == 30
        hits = mem.recall("which port does service s29 listen on?", limit=3)
        assert rest[-1] in [h.memory.id for h in hits]


@pytest.mark.slow  # many openers at once; fast: test_clean_exit_the_next_opener_becomes_holder
def test_racing_openers_exactly_one_holder(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "fresh"
    workers = [worker("idle", store, model_path) for _ in range(4)]
    roles = sorted(w.expect("role") for w in workers)
    assert roles == ["role client"] * 3 + ["role owner"]
    for w in workers:
        w.send("call")
        assert w.expect("called").endswith(" 0")
    assert [w.finish() for w in workers] == [0, 0, 0, 0]


def test_clean_exit_the_next_opener_becomes_holder(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    first = worker("idle", store, model_path)
    assert first.expect("role") == "role owner"
    second = worker("idle", store, model_path)
    assert second.expect("role") == "role client"
    second.send("call")
    assert second.expect("called") == "called client 0"
    assert first.finish() == 0
    assert not socket_path(store).exists()
    second.send("call")
    assert second.expect("called") == "called owner 0"
    assert second.finish() == 0


def test_nothing_answering_is_a_clear_error(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    GraphMemory(store, model_path=model_path).close()
    # Something that holds the database lock but answers nobody (not graphmem: a bare Kùzu).
    code = (
        "import importlib.util, sys, kuzu\n"
        f"db = kuzu.Database({str(store / 'graph.kuzu')!r})\n"
        "print('role locked', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    locker = Worker([sys.executable, "-c", code], env(model_path))
    assert locker.expect("role") == "role locked"
    with pytest.raises(StoreLockedError, match="does not answer"):
        GraphMemory(store, model_path=model_path, timeout=0.3)
    assert locker.finish() == 0


def test_a_read_only_opener_still_serves_writers(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    GraphMemory(store, model_path=model_path).close()
    reader = worker("readonly", store, model_path)
    assert reader.expect("role") == "role owner"
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None and mem.owner["pid"] == reader.proc.pid
        assert mem.remember("Writers are served by a read-only owner").action == "created"
    assert reader.finish() == 0


def test_a_client_gets_the_holders_results_and_exceptions(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None and mem.owner["pid"] == owner.proc.pid
        first = mem.remember("The Billing API depends on the Ledger service", tags=["billing"])
        assert isinstance(first, RememberResult) and isinstance(first.memory, Memory)
        mem.remember("The Ledger service is owned by Carla Mendes")
        hits = mem.recall("Who owns the service the Billing API depends on?", limit=3)
        assert isinstance(hits, RecallResult) and hits.recall_id
        assert hits[0].path and hits[0].explain()
        mem.feedback(hits.recall_id, used=[hits[0].memory.id])
        mem.flush()
        assert mem.get(first.id).tags == first.memory.tags
        assert mem.stats().memories == 2
        with pytest.raises(NotFoundError) as missing:
            mem.get("nope")
        assert str(missing.value) == "No memory with id 'nope'"
        with pytest.raises(SecretError) as secret:
            mem.remember("token ghp_" + "a1B2c3D4e5F6" * 3)
        assert secret.value.kinds
        with pytest.raises(CypherError) as bad:
            mem.cypher("MATCH (x:NoSuchTable) RETURN x")
        assert bad.value.query == "MATCH (x:NoSuchTable) RETURN x"
        with pytest.raises(ReadOnlyError):
            mem.cypher("MATCH (m:Memory) SET m.content = 'PWNED'")
        with pytest.raises(ValidationError):
            mem.recall("anything", limit=0)
        with pytest.raises(TypeError):
            mem.search("anything", no_such_option=1)
        graph = mem.to_networkx()
        assert f"m:{first.id}" in graph
        written = mem.export(tmp_path / "graph.graphml")
        assert written[0].read_text().startswith("<?xml")
        assert mem.cypher("MATCH (m:Memory) RETURN m.created_at AS at")[0]["at"].year >= 2025
    with GraphMemory(store, model_path=model_path, read_only=True) as reader:
        assert reader.stats().memories == 2
        with pytest.raises(ReadOnlyError):
            reader.remember("read-only clients cannot write")
        # A read-only client's recall leaves no trace in the owner's store.
        before = {m.id: m.access_count for m in reader.memories(limit=None)}
        assert reader.recall("Who owns the Ledger service?", limit=2)
        reader.flush()
        assert {m.id: m.access_count for m in reader.memories(limit=None)} == before
    assert owner.finish() == 0


def test_socket_and_folder_are_private(tmp_path: Path, model_path: str) -> None:
    # A folder anyone may pass through, so only graphmem's own modes keep others out.
    base = Path(tempfile.mkdtemp(prefix="graphmem-open-"))
    base.chmod(0o755)
    store = base / "memory"
    try:
        owner = worker("idle", store, model_path)
        assert owner.expect("role") == "role owner"
        sock = socket_path(store)
        assert stat.S_ISSOCK(sock.stat().st_mode)
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert stat.S_IMODE(store.stat().st_mode) == 0o700
        system_python = shutil.which("python3", path="/usr/bin:/bin")
        if os.geteuid() == 0 and system_python:
            # Another user (nobody) cannot reach the socket.
            probe = subprocess.run(
                [system_python, "-c", "import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])", str(sock)],
                capture_output=True, text=True, user=65534, group=65534, timeout=WAIT,
            )  # fmt: skip
            assert probe.returncode != 0 and "PermissionError" in probe.stderr, probe.stderr
        assert owner.finish() == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_long_store_path_still_has_a_socket(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / ("x" * 60) / ("y" * 60) / "memory"
    sock = socket_path(store)
    assert store not in sock.parents and len(str(sock)) < 108
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None and mem.stats().memories == 0
    assert owner.finish() == 0


def test_serve_over_tcp_needs_the_token(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    serve = Worker(
        [
            sys.executable,
            "-m",
            "graphmem.cli",
            "-d",
            str(store),
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "--mcp-cypher",
        ],
        env(model_path),
        stream="stderr",
    )
    line = serve.expect("serving")
    url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)  # type: ignore[union-attr]
    token_file = store / "serve.token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    with GraphMemory(url, token=token) as mem:
        made = mem.remember("Containers reach the store over TCP with a token")
        assert mem.get(made.id).content.startswith("Containers")
    with pytest.raises(GraphMemError, match="token"):
        GraphMemory(url, token="wrong")
    forged = httpx.get(
        f"{url}/v1/health",
        headers={"Host": "evil.example:80", "Authorization": f"Bearer {token}"},
    )
    assert forged.status_code == 403
    assert httpx.get(f"{url}/v1/health").status_code == 401
    # The MCP tools are served there too (streamable HTTP at /mcp), behind the same token.
    names: set[str] = set()

    async def mcp_session() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with anyio.fail_after(WAIT):
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
            ):
                names.update(t.name for t in (await client.list_tools()).tools)
                found = await client.call_tool("search", {"query": "containers and tokens"})
                assert not found.is_error and made.id in str(found.structured_content)

    anyio.run(mcp_session)
    assert {"remember", "recall", "cypher"} <= names
    assert httpx.post(f"{url}/mcp", json={}).status_code == 401
    serve.proc.send_signal(signal.SIGTERM)
    assert serve.expect("stopping").startswith("stopping")
    assert serve.proc.wait(timeout=WAIT) == 0
    assert not socket_path(store).exists()
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is None and mem.stats().memories == 1


def test_a_served_cli_call_loads_neither_database_nor_model(
    tmp_path: Path, model_path: str
) -> None:
    store = tmp_path / "memory"
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    probe = (
        "import sys\n"
        "from graphmem.cli.app import cli\n"
        "try:\n"
        f"    cli(['-d', {str(store)!r}, 'stats', '--json'], standalone_mode=False)\n"
        "finally:\n"
        "    print('LOADED', sorted(m for m in ('kuzu', 'fastembed', 'onnxruntime', 'numpy')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env(model_path),
        cwd=str(ROOT), timeout=WAIT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"memories": 0' in done.stdout
    assert "LOADED []" in done.stdout
    assert owner.finish() == 0


@pytest.mark.slow  # viz --serve as a process; fast: test_cli_graph's viz serve test
def test_viz_serve_shows_new_memories_on_reload(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    with GraphMemory(store, model_path=model_path) as mem:
        mem.remember("The first memory is on the page")
    viz = Worker(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store), "viz", "--serve"],
        env(model_path),
    )
    # The printed URL carries the page's secret (?token=...): without it the page is 401.
    url = re.search(r"http://\S+", viz.expect("Serving")).group(0)  # type: ignore[union-attr]
    assert "The first memory is on the page" in httpx.get(url, timeout=WAIT).text
    # Another process writes (through the viz process, which holds the store).
    added = cli(store, model_path, "remember", "Zebulon keeps the kafka brokers fed")
    assert added.returncode == 0, added.stderr
    assert "Zebulon keeps the kafka brokers fed" in httpx.get(url, timeout=WAIT).text
    viz.proc.send_signal(signal.SIGINT)
    assert viz.proc.wait(timeout=WAIT) == 0

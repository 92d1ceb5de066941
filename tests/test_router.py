"""Many servers behind an existing router: three `graphmem serve --stores` processes on one
shared folder behind nginx's consistent hashing (deploy/nginx/graphmem.conf), on loopback.

Each store is served by exactly one server, always the same; when a server is removed (it
drains on SIGTERM, and the router is given the other two), only its stores move, and they
open on their new server from the shared folder with nothing lost."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import httpx
import pytest
from cluster import WAIT, Cluster, nginx_binary

from graphmem import GraphMemory

STORES = [f"tenant-{i:02d}" for i in range(30)]

needs_nginx = pytest.mark.skipif(
    nginx_binary() is None and not os.environ.get("GRAPHMEM_REQUIRE_NGINX"),
    reason="nginx is not installed (apt-get install nginx-light); CI installs it",
)


def _served_by(url: str, token: str, rounds: int = 3) -> set[int]:
    """The pids of the servers that answered ``rounds`` requests for one store."""
    with httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=WAIT) as http:
        return {http.get(f"{url}/v1/health").json()["pid"] for _ in range(rounds)}


@needs_nginx
@pytest.mark.slow
def test_each_store_on_exactly_one_server_and_removing_one_moves_only_its_stores(
    tmp_path: Path, model_path: str
) -> None:
    root = tmp_path / "shared"
    root.mkdir(mode=0o700)
    token = secrets.token_urlsafe(32)
    with Cluster(root, tmp_path / "work", model_path, token) as cluster:
        servers = cluster.start_servers(3, "--create")
        front = cluster.front(servers)

        owner: dict[str, int] = {}
        for name in STORES:
            with GraphMemory(front.url(name), token=token) as mem:
                mem.remember(f"{name} keeps its invoices in the folder {name}-invoices")
                assert mem.stats().memories == 1
            pids = _served_by(front.url(name), token)
            assert len(pids) == 1, (name, pids)
            owner[name] = pids.pop()

        # Each server, asked directly, has open exactly the stores the router sent it.
        open_on = {
            s.pid: {st["name"] for st in s.status(token)["stores"] if st["owner_pid"] == s.pid}
            for s in servers
        }
        for name in STORES:
            assert [pid for pid, names in open_on.items() if name in names] == [owner[name]]
        assert all(open_on.values()), f"a server got no store: {open_on}"
        # The token came from $GRAPHMEM_SERVE_TOKEN: no file was made in the shared folder.
        assert not (root / "serve.token").exists()

        # Remove the middle server: it drains (snapshots written, databases released) ...
        gone = servers[1]
        assert gone.stop().startswith(f"stopped: {len(open_on[gone.pid])} stores closed")
        # ... and the router now knows the other two.
        after = cluster.front([servers[0], servers[2]])

        moved = set()
        for name in STORES:
            with GraphMemory(after.url(name), token=token) as mem:
                hits = mem.recall(f"where does {name} keep its invoices?")
                assert hits[0].memory.content.startswith(f"{name} keeps"), name
                assert mem.stats().memories == 1
            pids = _served_by(after.url(name), token)
            assert len(pids) == 1
            if pids.pop() != owner[name]:
                moved.add(name)
        assert moved == open_on[gone.pid]
        for server in (servers[0], servers[2]):
            names = {st["name"] for st in server.status(token)["stores"]}
            assert open_on[server.pid] <= names  # what it had, it still has

"""Where a store lives (graphmem.owner.backends): one protocol for the store open here and a
client of its owner, a handle's Config governing its calls in every process, and a client
that loads no numpy. The processes are real: an owner in one, the handles in others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_processes import ROOT, WAIT, Worker, env

from graphmem import Config, GraphMemError, GraphMemory, ValidationError
from graphmem.remote.calls import CALLS, MemoryBackend

TEXT = "The staging deploy needs VPN access first"  # 42 characters


def owner(store: Path, model_path: str, config: str = "Config()") -> Worker:
    """A process that opens ``store`` first (so it owns it), with ``config``, and keeps it
    until its stdin closes."""
    script = (
        "import sys\n"
        "from graphmem import Config, GraphMemory\n"
        f"mem = GraphMemory({str(store)!r}, config={config})\n"
        "print('role', 'owner' if mem.owner is None else 'client', flush=True)\n"
        "sys.stdin.read()\n"
        "mem.close()\n"
    )
    w = Worker([sys.executable, "-c", script], env(model_path))
    assert w.expect("role") == "role owner"
    return w


def test_the_calls_an_owner_serves_are_the_protocols_calls() -> None:
    """``CALLS`` (what the server answers) and ``MemoryBackend`` (what both backends
    implement, checked by mypy) name the same calls."""
    handle_only = {"path", "config", "read_only", "owner", "embedder", "close", "to_networkx"}
    members = {n for n in vars(MemoryBackend) if not n.startswith("_")} - handle_only
    assert members == set(CALLS)


def test_a_client_handles_config_governs_its_calls_in_the_owner(
    tmp_path: Path, model_path: str
) -> None:
    """The measured bug: a client's Config never reached the owner, so whether a call passed
    depended on who opened the store first."""
    store = tmp_path / "memory"
    held = owner(store, model_path)  # Config's defaults: 20,000 characters allowed
    try:
        with GraphMemory(store, model_path=model_path, config=Config(max_content_chars=10)) as mem:
            assert mem.owner is not None and mem.owner["pid"] == held.proc.pid
            with pytest.raises(ValidationError, match="max_content_chars"):
                mem.remember(TEXT)
            with pytest.raises(ValidationError, match="max_content_chars"):
                mem.remember_many([{"content": TEXT}])
            with pytest.raises(ValidationError, match="context"):
                mem.recall(TEXT)
            assert mem.stats().memories == 0  # nothing written
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.remember(TEXT).action == "created"
    finally:
        held.finish()


def test_a_stricter_owner_does_not_refuse_a_clients_call(tmp_path: Path, model_path: str) -> None:
    """The other way round: the owner's Config governs the owner's calls only."""
    store = tmp_path / "memory"
    held = owner(store, model_path, "Config(max_content_chars=10)")
    try:
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.owner is not None
            result = mem.remember(TEXT)
            assert result.action == "created" and result.memory.content == TEXT
            assert [m.content for m in mem.memories()] == [TEXT]
    finally:
        held.finish()


def test_a_client_asking_for_other_shared_settings_is_refused(
    tmp_path: Path, model_path: str
) -> None:
    """Maintenance and clustering are the store's, shared by every handle: a client that sets
    them otherwise is refused, as a second handle in the owner is, not silently overruled."""
    store = tmp_path / "memory"
    held = owner(store, model_path, "Config(cluster_every_writes=0)")
    try:
        asks = Config(cluster_every_writes=7)
        with (
            GraphMemory(store, model_path=model_path, config=asks) as mem,
            pytest.raises(ValidationError, match=r"shared settings.*cluster_every_writes"),
        ):
            mem.stats()
        # A client that leaves them unset gets the store's.
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.remember(TEXT).action == "created"
        same = Config(cluster_every_writes=0)
        with GraphMemory(store, model_path=model_path, config=same) as mem:
            assert mem.stats().memories == 1
    finally:
        held.finish()


@pytest.mark.slow  # two owner processes; fast: test_a_client_asking_for_other_shared_settings_is_refused
def test_a_client_may_lower_the_owners_cypher_limits_not_raise_them(
    tmp_path: Path, model_path: str
) -> None:
    """What a statement may cost the owner (its worker's memory, the rows and bytes sent back)
    is the owner's to set: a client that asks for more is refused (an attack grew the owner by
    gigabytes in one call so); one that asks for less gets it."""
    store = tmp_path / "memory"
    held = owner(store, model_path)
    try:
        for asks in (Config(cypher_max_bytes=10**12), Config(cypher_max_rows=10**9),
                     Config(cypher_memory_mb=16_000)):  # fmt: skip
            with (
                GraphMemory(store, model_path=model_path, config=asks) as mem,
                pytest.raises(ValidationError, match=r"raises limits of the store's owner"),
            ):
                mem.cypher("MATCH (m:Memory) RETURN count(m) AS n")
        with GraphMemory(store, model_path=model_path, config=Config(cypher_max_rows=1)) as mem:
            mem.remember(TEXT)
            mem.remember(TEXT + " Twice.")
            with pytest.raises(GraphMemError, match="rows"):
                mem.cypher("MATCH (m:Memory) RETURN m.id AS id")
    finally:
        held.finish()
    # An owner with lower limits still serves a client that sets none (a review found every
    # call of a plain client refused: its defaults were read as asking for more).
    held = owner(store, model_path, "Config(cypher_max_rows=1000)")
    try:
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.stats().memories == 2 and len(mem.recall(TEXT)) >= 1
            with pytest.raises(GraphMemError, match="more than 1000 rows"):
                mem.cypher("UNWIND range(1, 1001) AS x RETURN x")
        asks = Config(cypher_max_rows=5000)
        with (
            GraphMemory(store, model_path=model_path, config=asks) as mem,
            pytest.raises(ValidationError, match="raises limits"),
        ):
            mem.stats()
    finally:
        held.finish()


def test_a_client_loads_no_numpy(tmp_path: Path, model_path: str) -> None:
    """The client imports only pure item checks: importing it, and calling an owner through
    it (and through GraphMemory, which finds the owner first), loads no numpy."""
    store = tmp_path / "memory"
    held = owner(store, model_path)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from graphmem.paths import socket_path\n"
        "from graphmem.remote.client import RemoteMemory, RemoteStore\n"
        "loaded = 'numpy' in sys.modules\n"
        f"store = Path({str(store)!r})\n"
        "remote = RemoteStore(socket=socket_path(store))\n"
        "assert remote.ping()\n"
        "with RemoteMemory(remote, store) as client:\n"
        "    client.remember_many([{'content': 'Checked here, stored there'}])\n"
        "    count = client.stats().memories\n"
        "from graphmem import GraphMemory\n"
        "with GraphMemory(store) as mem:\n"
        "    assert mem.owner is not None\n"
        "    mem.remember('The build cache lives on the shared volume')\n"
        "    count = mem.stats().memories\n"
        "print('LOADED', loaded, 'numpy' in sys.modules, count)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env(model_path),
            cwd=str(ROOT), timeout=WAIT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "LOADED False False 2" in done.stdout
    finally:
        held.finish()


@pytest.mark.slow  # an owner process; fast: test_remember.py::test_an_id_a_later_batch_refuses_fails_the_whole_call
def test_a_clients_remember_many_fails_whole_when_a_later_batch_would_refuse(
    tmp_path: Path, model_path: str
) -> None:
    """A client sends a batch per request: an id given twice, an id already stored or a
    ``supersedes`` id nobody holds, in a later batch, had failed after the earlier batches were
    written (found by an attack). The owner now plans such a call whole first, as it does for
    its own calls (tests/test_remember.py)."""
    store = tmp_path / "memory"
    held = owner(store, model_path)
    try:
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.owner is not None
            stored = mem.remember("Invoices are sent on the first of the month.")
            cases = [
                (ValidationError, [{"content": "Alpha one.", "id": "0123456789abcdef"},
                                   {"content": "Beta two."},
                                   {"content": "Gamma three, another text.",
                                    "id": "0123456789abcdef"}]),
                (ValidationError, [{"content": "Delta four."}, {"content": "Epsilon five."},
                                   {"content": "Another text.", "id": stored.id}]),
                (GraphMemError, [{"content": "Zeta six."}, {"content": "Eta seven."},
                                 {"content": "Theta eight.", "supersedes": ["nosuchmemory0001"]}]),
            ]  # fmt: skip
            for error, items in cases:
                with pytest.raises(error):
                    mem.remember_many(items, batch_size=2)
                assert [m.id for m in mem.memories(limit=None)] == [stored.id]
            # supersedes given as one string, as a tuple, or naming an id a later item gives
            # (a review found these written in part).
            for supersedes in ("nosuchmemory0001", ("nosuchmemory0002",), ["later0000000001"]):
                items = [{"content": "Mu twelve."}, {"content": "Nu thirteen."},
                         {"content": "Xi fourteen.", "supersedes": supersedes},
                         {"content": "Omicron fifteen.", "id": "later0000000001"}]  # fmt: skip
                with pytest.raises(GraphMemError):
                    mem.remember_many(items, batch_size=2)
                assert [m.id for m in mem.memories(limit=None)] == [stored.id]
            # Ids that cannot clash cost nothing more and are written.
            done = mem.remember_many(
                [{"content": "Iota nine.", "id": "fedcba9876543210"}, {"content": "Kappa ten."},
                 {"content": "Lambda eleven.", "supersedes": ["fedcba9876543210"]}],
                batch_size=2,
            )  # fmt: skip
            assert done[2].superseded == ["fedcba9876543210"]
        # A client with low Cypher limits of its own is not refused by the look-up.
        with GraphMemory(store, model_path=model_path, config=Config(cypher_max_rows=1)) as mem:
            done = mem.remember_many(
                [{"content": "Pi sixteen.", "id": "0a1b2c3d4e5f6a7b"}, {"content": "Rho."},
                 {"content": "Sigma.", "supersedes": ["0a1b2c3d4e5f6a7b"]}],
                batch_size=2,
            )  # fmt: skip
            assert done[2].superseded == ["0a1b2c3d4e5f6a7b"]
    finally:
        held.finish()

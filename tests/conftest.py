"""Shared fixtures: real Kùzu stores in temp folders, with the real embedding model or a fake.

``mem`` / ``make_mem`` open stores with the real model (all-MiniLM-L6-v2): for tests whose
assertions rest on what the model makes of the words (recall ranking, dedupe and conflict
figures, the README's examples). A module (``pytestmark = pytest.mark.embedder("fake")``)
or a test that checks the logic around the model (validation, tags, secrets, the page data)
gets them on ``HashEmbedder`` (tests/helpers.py) instead: deterministic, no ONNX work;
``fake_mem`` / ``make_fake_mem`` ask for it by name. None of them starts the socket server
(``served_mem`` does, and ``client_of`` is a client of it in this process); tests of other
processes open their stores themselves.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
SHARED_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx"

# Tests use the real model. GRAPHMEM_MODEL_PATH wins; a checkout beside ../shared finds it there.
if not os.environ.get("GRAPHMEM_MODEL_PATH") and SHARED_MODEL.is_dir():
    os.environ["GRAPHMEM_MODEL_PATH"] = str(SHARED_MODEL)

# A CLI call without an owner leaves one behind for the next call (graphmem.cli.linger). Tests
# own their stores and must leave no process behind: off here, on in the tests of it.
os.environ["GRAPHMEM_LINGER"] = "0"


@pytest.fixture(scope="session")
def model_path() -> str:
    path = os.environ.get("GRAPHMEM_MODEL_PATH")
    if not path:
        pytest.fail("Set GRAPHMEM_MODEL_PATH to the all-MiniLM-L6-v2 ONNX folder to run the tests.")
    return path


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def _model(request: pytest.FixtureRequest) -> dict:
    """GraphMemory's model arguments for a test: the real model, or the fake embedder where
    the test or its module says ``pytest.mark.embedder("fake")`` (the closest mark wins, so
    one test of a fake module can say ``embedder("real")``)."""
    mark = request.node.get_closest_marker("embedder")
    which = mark.args[0] if mark else "real"
    if which == "fake":
        return {"embedder": request.getfixturevalue("fake_embedder")}
    if which != "real":
        raise ValueError(f"pytest.mark.embedder: 'real' or 'fake', not {which!r}")
    return {"model_path": request.getfixturevalue("model_path")}


@pytest.fixture
def mem(request: pytest.FixtureRequest, store_path: Path):
    """A store with the real model (or the fake, see ``_model``). It serves no other process
    (no socket server thread to start and stop); a test whose other processes reach the store
    asks ``served_mem`` or ``make_mem(..., serve=True)``, or opens it itself."""
    from graphmem import GraphMemory

    with GraphMemory(store_path, serve=False, **_model(request)) as m:
        yield m


@pytest.fixture
def served_mem(store_path: Path, model_path: str):
    """``mem`` that serves other processes on its socket, as every store does by default."""
    from graphmem import GraphMemory

    with GraphMemory(store_path, model_path=model_path) as m:
        yield m


@pytest.fixture
def make_mem(request: pytest.FixtureRequest, tmp_path: Path):
    """Open extra stores with ``mem``'s model (closed at teardown); like ``mem``, serving no
    other process unless asked with ``serve=True``."""
    from graphmem import GraphMemory

    opened = []
    model = _model(request)

    def factory(name: str = "other", **kwargs):
        kwargs.setdefault("serve", False)
        m = GraphMemory(tmp_path / name, **{**model, **kwargs})
        opened.append(m)
        return m

    yield factory
    for m in opened:
        m.close()


@pytest.fixture(scope="session")
def fake_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def fake_mem(store_path: Path, fake_embedder: HashEmbedder):
    """A real store with the fake embedder, serving no other process (no socket, no thread)."""
    from graphmem import GraphMemory

    with GraphMemory(store_path, embedder=fake_embedder, serve=False) as m:
        yield m


@pytest.fixture
def make_fake_mem(tmp_path: Path, fake_embedder: HashEmbedder):
    """Open extra fake-embedder, non-serving stores (closed at teardown); keyword arguments
    go to ``GraphMemory``, so a test may still ask for ``serve=True``."""
    from graphmem import GraphMemory

    opened = []

    def factory(name: str = "other", **kwargs):
        kwargs.setdefault("serve", False)
        m = GraphMemory(tmp_path / name, embedder=fake_embedder, **kwargs)
        opened.append(m)
        return m

    yield factory
    for m in opened:
        m.close()


@pytest.fixture
def client_of():
    """The in-process client/server path: ``client_of(owner)`` is a client of a store this
    process serves (``served_mem``, or ``make_mem(..., serve=True)``), over the store's real
    socket, HTTP server and wire codec: the calls, results and typed errors another process
    gets, for tests of the wire where other processes are not the point. Closed at teardown.
    """
    from graphmem import paths
    from graphmem.remote.client import RemoteMemory, RemoteStore

    opened = []

    def factory(owner, *, read_only: bool = False):
        assert owner.owner is None and owner._shared.listener is not None, "serve the store"
        remote = RemoteStore(socket=paths.socket_path(owner.path))
        assert remote.ping(), "the store's server does not answer"  # as GraphMemory's open does
        client = RemoteMemory(remote, owner.path, read_only=read_only)
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.close()

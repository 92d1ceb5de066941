"""Shared fixtures: real Kùzu stores in temp folders and the real embedding model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


@pytest.fixture
def mem(store_path: Path, model_path: str):
    from graphmem import GraphMemory

    with GraphMemory(store_path, model_path=model_path) as m:
        yield m


@pytest.fixture
def make_mem(tmp_path: Path, model_path: str):
    """Open extra stores (closed at teardown)."""
    from graphmem import GraphMemory

    opened = []

    def factory(name: str = "other", **kwargs):
        m = GraphMemory(tmp_path / name, model_path=model_path, **kwargs)
        opened.append(m)
        return m

    yield factory
    for m in opened:
        m.close()

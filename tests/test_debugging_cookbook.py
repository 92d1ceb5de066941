"""Every Cypher block in examples/debugging.md runs against the store its setup block builds."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem import GraphMemory
from graphmem.cli.app import cli

COOKBOOK = Path(__file__).resolve().parent.parent / "examples" / "debugging.md"
TEXT = COOKBOOK.read_text(encoding="utf-8")
CYPHER = re.compile(r"(?:<!--\s*expect:\s*(\w+)\s*-->\s*\n)?```cypher\n(.*?)```", re.S)
BLOCKS = [(expect or "rows", query.strip()) for expect, query in CYPHER.findall(TEXT)]
SETUP = re.search(r"```bash\n(.*?)```", TEXT, re.S)


def test_cookbook_has_the_promised_sections() -> None:
    assert len(BLOCKS) >= 10
    for word in ("Supersedes", "Contradicts", "HasTag", "RelatesTo", "InCluster"):
        assert any(word in q for _, q in BLOCKS), word
    assert any(expect == "empty" for expect, _ in BLOCKS)
    assert all(expect in ("rows", "empty") for expect, _ in BLOCKS)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory, model_path: str) -> Path:
    """The demo store built by running the cookbook's own setup commands."""
    assert SETUP is not None, "the cookbook lost its ```bash setup block"
    path = tmp_path_factory.mktemp("cookbook") / "demo-memory"
    runner = CliRunner()
    for line in SETUP.group(1).strip().splitlines():
        args = shlex.split(line)
        assert args[:3] == ["graphmem", "-d", "./demo-memory"], line
        result = runner.invoke(cli, ["-d", str(path), *args[3:]], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def demo_mem(demo_store: Path, model_path: str):
    with GraphMemory(demo_store, model_path=model_path, read_only=True) as mem:
        yield mem


def test_setup_makes_clusters_and_a_contradiction(demo_mem: GraphMemory) -> None:
    assert len(demo_mem.clusters()) >= 1
    stats = demo_mem.stats()
    assert stats.edges["Contradicts"] >= 1 and stats.edges["Supersedes"] >= 1


@pytest.mark.parametrize(("expect", "query"), BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_cookbook_query(demo_mem: GraphMemory, expect: str, query: str) -> None:
    rows = demo_mem.cypher(query)
    if expect == "empty":
        assert rows == [], rows
    else:
        assert rows, f"no rows for:\n{query}"

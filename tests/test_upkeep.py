"""mem.maintain(): expiry, dormancy, near-duplicate merges and the link cap, without deleting."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import db_rows

from graphmem import GraphMemory
from graphmem.cli.app import cli
from graphmem.config import Config
from graphmem.remote.calls import CALLS

# What is tested is upkeep, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def test_maintain_expires_and_makes_stale_unused_memories_dormant(mem: GraphMemory) -> None:
    past = datetime.now(timezone.utc) - timedelta(days=2)
    expired = mem.remember("The office wifi password rotates on Mondays",
                           valid_from=past - timedelta(days=30), valid_until=past).id  # fmt: skip
    stale = mem.remember("Maybe the staging cluster runs on Nomad", confidence=0.01).id
    pinned = mem.remember("The on-call phone is in the top drawer", confidence=0.01,
                          pinned=True).id  # fmt: skip
    fresh = mem.remember("Deploys are frozen during the last week of December").id

    preview = mem.maintain(dry_run=True)
    assert preview.dry_run and preview.expired == [expired] and preview.dormant == [stale]
    assert mem.get(stale).active  # a dry run changes nothing

    report = mem.maintain()
    assert not report.dry_run and report.expired == [expired] and report.dormant == [stale]
    assert not mem.get(expired).active and not mem.get(stale).active
    assert mem.get(pinned).active and mem.get(fresh).active
    assert stale not in [h.memory.id for h in mem.search("staging cluster Nomad")]
    # Dormant is not deleted: it comes back with restore.
    assert mem.restore(stale).active
    # ... and stays: a restore sticks (the next pass does not make it dormant again).
    assert mem.maintain(dry_run=True).changes == 0


def test_maintain_merges_near_duplicates_and_keeps_the_history(mem: GraphMemory) -> None:
    first = mem.remember("Alice prefers green tea in the morning").id
    second = mem.remember("Alice prefers green tea in the morning.", dedupe=False).id
    other = mem.remember("Bob prefers black coffee in the morning").id
    report = mem.maintain()
    assert [(m["kept"], m["merged"]) for m in report.merged] == [(first, second)]
    kept, merged = mem.get(first), mem.get(second)
    assert kept.active and kept.strength == 2
    assert not merged.active and merged.superseded_by == first
    assert {m.id for m in mem.history(first)} == {first, second}
    assert mem.get(other).active


def test_maintain_caps_relates_to_links_weakest_first(make_mem) -> None:  # type: ignore[no-untyped-def]
    mem = make_mem("capped", config=Config(max_links=1))
    a = mem.remember("The payments service is written in Go").id
    b = mem.remember("Tokyo has many ramen shops").id
    c = mem.remember("The violin has four strings").id
    mem.link(a, b, weight=0.9)
    mem.link(a, c, weight=0.2)
    mem.link(b, c, type="contradicts")
    report = mem.maintain()
    assert [(p["src"], p["dst"]) for p in report.pruned_links] == [(a, c)]
    rows = db_rows(mem, "MATCH (a:Memory)-[:RelatesTo]->(b:Memory) RETURN a.id AS a, b.id AS b")
    assert [(r["a"], r["b"]) for r in rows] == [(a, b)]
    assert db_rows(mem, "MATCH ()-[r:Contradicts]->() RETURN count(r) AS n")[0]["n"] == 1
    assert mem.maintain().changes == 0


def test_maintain_from_the_cli_and_for_clients(store_path: Path, model_path: str) -> None:
    assert CALLS["maintain"] is True  # a write the owner answers for its clients
    with GraphMemory(store_path, model_path=model_path) as mem:
        stale = mem.remember("Perhaps the cache is Memcached", confidence=0.01).id
    runner = CliRunner()
    dry = runner.invoke(cli, ["-d", str(store_path), "maintain", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would change 1" in dry.output
    done = runner.invoke(cli, ["-d", str(store_path), "maintain", "--json"])
    assert done.exit_code == 0, done.output
    assert stale in done.output
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert not mem.get(stale).active

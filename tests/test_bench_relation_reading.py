"""bench/relation_reading.py: how its rows are tallied (the reading itself is recall's own,
measured by the script on real stores)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import relation_reading


def test_rows_are_tallied_by_hops_and_relations_read():
    rows = [
        {"hops": 1, "relations": 1, "recall": 1.0, "dense": 1.0},
        {"hops": 1, "relations": 2, "recall": 0.0, "dense": 1.0},
        {"hops": 1, "relations": 5, "recall": 1.0, "dense": 0.0},
        {"hops": 2, "relations": 2, "recall": 0.5, "dense": 0.0},
    ]
    assert relation_reading.tally(rows) == {
        "1-hop, read 1": {"questions": 1, "won": 0, "lost": 0},
        "1-hop, read 2": {"questions": 1, "won": 0, "lost": 1},
        "1-hop, read 3": {"questions": 1, "won": 1, "lost": 0},
        "2-hop, read 2": {"questions": 1, "won": 1, "lost": 0},
    }


def test_the_newest_worlds_stay_out_by_default():
    assert {"agent-seventeenth", "agent-eighteenth"}.isdisjoint(relation_reading.SETS)
    assert "agent-fourth" in relation_reading.SETS and "agent-test" in relation_reading.SETS

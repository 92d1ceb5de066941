"""The agent worlds other authors wrote whole (bench/fourth/ … bench/eighteenth/): each generator
rewrites its world.json byte for byte, and each world has the shape bench/quality.py scores."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent.parent / "bench"
WORLDS = (
    "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
    "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
)  # fmt: skip


# tenth's generator runs for seconds (the others under one): it is checked in the slow step.
@pytest.mark.parametrize(
    "world", [pytest.param(w, marks=pytest.mark.slow) if w == "tenth" else w for w in WORLDS]
)
def test_the_generator_rewrites_its_world(tmp_path, world):
    shutil.copy(BENCH / world / "make_world.py", tmp_path)
    subprocess.run([sys.executable, "make_world.py"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "world.json").read_bytes() == (BENCH / world / "world.json").read_bytes()


@pytest.mark.parametrize("world", WORLDS)
def test_the_world_has_the_shape_quality_scores(world):
    data = json.loads((BENCH / world / "world.json").read_text())
    ids = {f["id"] for f in data["facts"]}
    assert len(ids) == len(data["facts"]) >= 300
    hops = [q["hops"] for q in data["questions"]]
    assert {h: hops.count(h) for h in (1, 2, 3)} == {1: 50, 2: 60, 3: 50}
    for q in data["questions"]:
        assert len(q["gold"]) == q["hops"] and set(q["gold"]) <= ids

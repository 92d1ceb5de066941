"""The scripts in examples/ run and do what they say."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_agent_loop_example(capsys):
    runpy.run_path(str(EXAMPLES / "agent_loop.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "turn 4" in out
    assert "Helm" in out  # the deployment memory surfaced a turn later
    # The warning reaches the turn that mentions the migration, not the one after.
    turn3 = out.split("turn 3:")[1].split("turn 4:")[0]
    assert "WARNING: Never run database migrations on Fridays" in turn3
    assert out.count("Never run database migrations on Fridays") == 1

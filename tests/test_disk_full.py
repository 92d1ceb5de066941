"""Disk full: one typed error, nothing acknowledged lost, writing resumes by itself once space
is back, and no abort on close (graphmem/diskspace.py, issue 18).

A store on a small tmpfs is filled up by a child process (Kùzu, failing a write for lack of
space, used to abort the process on close: a child keeps that from killing pytest). Needs
root to mount; CI runs as root, elsewhere these tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import db_rows

from graphmem import GraphMemory

ROOT = Path(__file__).resolve().parent.parent
FS_MB = 48

CHILD = r"""
import json, os, random, sys
import graphmem
from graphmem import Config, GraphMemError, GraphMemory

# Looked up, not imported: on a graphmem without it the test fails on what it checks.
DiskFullError = getattr(graphmem, "DiskFullError", ())

folder, min_free_mb, left_mb = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
words = ("harbor lantern meadow violin glacier pepper canyon orchid falcon marble tundra saddle "
         "velvet compass thistle beacon quarry walnut sparrow ribbon cobalt prairie lagoon anchor "
         "biscuit cactus dolphin ember fjord gadget hammock igloo jasmine kettle lemon").split()
rng = random.Random(7)

def say(**m):
    print(json.dumps(m), flush=True)

def text(i):
    return "The " + " ".join(rng.sample(words, 9)) + f" entry {i}."

knob = {"min_free_disk_mb": min_free_mb} if "min_free_disk_mb" in Config.model_fields else {}
mem = GraphMemory(os.path.join(folder, "store"), config=Config(**knob))
mem.remember(text(-1), tags=["t"])  # the store exists before the disk fills
st = os.statvfs(folder)
filler = os.path.join(folder, "filler")
with open(filler, "wb") as f:
    f.write(b"x" * max(0, st.f_bavail * st.f_frsize - int(left_mb * 1024 * 1024)))
refused = 0
for i in range(5000):
    try:
        r = mem.remember(text(i), tags=["t"], session_id="s", dedupe=False, conflicts="off")
        say(ack=r.id)
    except GraphMemError as exc:
        refused += 1
        say(error=type(exc).__name__, disk_full=isinstance(exc, DiskFullError), message=str(exc))
        if refused >= 3:
            break
os.unlink(filler)
say(freed=True)
for i in range(5):
    try:
        r = mem.remember(text(10000 + i), tags=["t"], session_id="s", dedupe=False, conflicts="off")
        say(ack=r.id, after=True)
    except GraphMemError as exc:
        say(error=type(exc).__name__, disk_full=isinstance(exc, DiskFullError), message=str(exc),
            after=True)
mem.close()
say(closed=True)
"""


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of FS_MB megabytes, mounted for the test."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (CI runs these tests as root)")
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    folder = tmp_path / "fs"
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={FS_MB}m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def run_child(folder: Path, min_free_mb: float, left_mb: float) -> tuple[int, list[dict]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(min_free_mb), str(left_mb)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return done.returncode, lines


def reopen_and_check(folder: Path, acked: list[str]) -> None:
    """Every acknowledged memory is in the store, once."""
    with GraphMemory(folder / "store") as mem:
        rows = db_rows(mem, "MATCH (m:Memory) RETURN m.id AS id")
        ids = [r["id"] for r in rows]
        assert len(ids) == len(set(ids)), "a memory is stored twice"
        missing = set(acked) - set(ids)
        assert not missing, f"{len(missing)} acknowledged memories lost"


@pytest.mark.slow
def test_disk_full_is_one_typed_error_and_writing_resumes(small_fs: Path) -> None:
    code, lines = run_child(small_fs, min_free_mb=6, left_mb=8)
    assert code == 0, f"the child died (exit {code}): {lines[-3:]}"
    before = [m for m in lines if "error" in m and not m.get("after")]
    assert before, "the disk never filled up: the test proves nothing"
    # Every refusal is a DiskFullError that says the disk is full, not a database error.
    assert all(m["disk_full"] for m in before), before
    assert all("full" in m["message"] and "Kùzu" not in m["message"] for m in before), before
    # Space freed: the next writes go through, in the same process, with no reopen.
    after = [m for m in lines if m.get("after")]
    assert len(after) == 5 and all("ack" in m for m in after), after
    assert lines[-1] == {"closed": True}
    reopen_and_check(small_fs, [m["ack"] for m in lines if "ack" in m])


@pytest.mark.slow  # a full file system filled twice; fast: test_disk_full_is_one_typed_error_and_writing_resumes
def test_when_the_database_itself_runs_out_of_space_close_does_not_abort(
    small_fs: Path,
) -> None:
    # No margin: Kùzu itself meets the full disk (as when another process takes the last
    # bytes between graphmem's check and the write).
    code, lines = run_child(small_fs, min_free_mb=0, left_mb=2)
    assert code == 0, f"the child died (exit {code}, SIGABRT is -6): {lines[-3:]}"
    refused = [m for m in lines if "error" in m]
    assert refused and all(m["disk_full"] for m in refused), refused
    assert lines[-1] == {"closed": True}
    # What was acknowledged waits in the journal; the next owner applies it.
    reopen_and_check(small_fs, [m["ack"] for m in lines if "ack" in m])

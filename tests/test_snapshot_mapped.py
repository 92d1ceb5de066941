"""The snapshot's mapped vectors and the approximate index saved at close, attacked: a
snapshot replaced while mapped, old arrays kept past a close, several handles, damaged
headers, and opens that must not rewrite the snapshot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import HashEmbedder

import graphmem.index.ann as ann
from graphmem import GraphMemory
from graphmem.index.snapshot import SNAPSHOT_FILE

PORTS = [{"content": f"Service {i} listens on port {8000 + i}"} for i in range(30)]
QUERY = "which port does service 7 use"


def _top(mem: GraphMemory) -> list[str]:
    return [h.memory.id for h in mem.search(QUERY, limit=3)]


def _stamp(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def test_an_old_mapping_outlives_a_close_and_a_snapshot_saved_over_it(
    store_path: Path, model_path: str
) -> None:
    """Vectors mapped by one open stay readable (and unchanged) after the store is closed, a
    new snapshot renamed over the mapped file and the store opened again in this process."""
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [r.id for r in mem.remember_many(PORTS)]
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem._shared.from_snapshot
        old = mem._mirror.vectors
        with GraphMemory(store_path, model_path=model_path) as second:  # one mirror, shared
            assert second._mirror is mem._mirror
            second.update(ids[7], content="Service 7 now listens on port 9443")
        assert mem.get(ids[7]).content.endswith("9443")
        mem.remember("Service 31 listens on port 8031")  # grows past the mapped array
        kept = np.array(old[: len(ids)])
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem._shared.from_snapshot
        assert not np.shares_memory(mem._mirror.vectors, old)
        assert np.array_equal(old[: len(ids)], kept)  # the old file's pages, still mapped
        # 30 + 1 remembered, all active; update() kept the old content as an inactive version.
        assert ids[7] in _top(mem) and mem.stats().active == 31
        fresh = mem._embed(["Service 7 now listens on port 9443"])[0]
        assert np.allclose(mem._mirror.vectors[mem._mirror.slot[ids[7]]], fresh, atol=1e-5)


def _rewrite_header(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Change the vectors' entry of the snapshot's header, keeping its place in the file."""
    data = path.read_bytes()
    end = data.index(b"\n")
    header = json.loads(data[:end])
    entry = next(s for s in header["sections"] if s["name"] == "vectors")
    change(entry, header)
    line = json.dumps(header, separators=(",", ":")).encode()
    assert len(line) <= end, "the test's change must not lengthen the header"
    path.write_bytes(line + b" " * (end - len(line)) + data[end:])


@pytest.mark.parametrize(
    "change",
    [
        lambda e, h: e.update(shape=[e["shape"][0] + 1, e["shape"][1]]),  # shape vs length
        lambda e, h: e.update(
            shape=[e["shape"][0] - 1, e["shape"][1]], length=e["length"] - 4 * e["shape"][1]
        ),  # fewer rows than ids
        lambda e, h: e.update(offset=h["length"]),  # past the end of the file
        lambda e, h: e.update(offset=-4096),
        lambda e, h: e.update(dtype="|O8"),
        lambda e, h: e.update(dtype="<f8", shape=[e["shape"][0], e["shape"][1] // 2]),
    ],
    ids=["shape", "rows", "offset", "negative", "object", "float64"],
)
def test_a_damaged_vectors_entry_rebuilds_the_mirror_from_the_database(
    store_path: Path, model_path: str, change
) -> None:  # type: ignore[no-untyped-def]
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember_many(PORTS)
        top = _top(mem)
    _rewrite_header(store_path / SNAPSHOT_FILE, change)
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert not mem._shared.from_snapshot
        assert mem._mirror.vectors.dtype == np.float32
        assert _top(mem) == top


def test_an_index_saved_at_close_is_not_saved_again_by_later_opens(
    store_path: Path, model_path: str, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Opens that only search, through one handle or several, read-write or read-only, leave
    the snapshot as it is once it holds the index: a close must not rewrite the whole file."""
    monkeypatch.setattr(ann, "ANN_MIN", 20)
    snap = store_path / SNAPSHOT_FILE
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember_many(PORTS)
    stamp = _stamp(snap)
    with GraphMemory(store_path, model_path=model_path) as mem:
        with GraphMemory(store_path, model_path=model_path, read_only=True) as reader:
            top = _top(reader)  # trains the index, through a read-only handle
        assert mem._mirror.ann is not None
        assert _stamp(snap) == stamp  # another handle is open: nothing saved yet
    assert _stamp(snap) != stamp  # the last close saved the index
    stamp = _stamp(snap)
    for read_only in (False, True, False):
        with GraphMemory(store_path, model_path=model_path, read_only=read_only) as mem:
            assert mem._shared.from_snapshot
            assert _top(mem) == top
        assert _stamp(snap) == stamp


def test_a_snapshot_changed_in_place_while_mapped_is_documented_not_survived(
    store_path: Path, model_path: str, tmp_path: Path
) -> None:
    """The mapped vectors are the file's pages: truncating the snapshot in place while the
    store is open kills the process (SIGBUS), as changing Kùzu's own files would corrupt it.
    graphmem itself only ever renames a new file over it; README says not to do otherwise."""
    import signal
    import subprocess
    import sys

    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember_many(PORTS)
    script = (
        "import os, sys\n"
        "from graphmem import GraphMemory\n"
        "mem = GraphMemory(sys.argv[1], model_path=sys.argv[2])\n"
        "assert mem._shared.from_snapshot\n"
        "os.truncate(os.path.join(sys.argv[1], sys.argv[3]), 4096)\n"
        "mem.search('which port does service 7 use')\n"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", script, str(store_path), model_path, SNAPSHOT_FILE],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGBUS
    readme = (root / "README.md").read_text()
    assert "must not be changed in place while" in readme


def test_an_entity_sample_is_the_same_in_a_mirror_rebuilt_from_the_database(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    """A hub's members come in edge order, which updates and re-tags change and a mirror
    rebuilt from the database (after a free-form write, a crash, a stale snapshot) does not
    keep: the sample recall judges an entity by must not depend on it."""
    from graphmem.index.mirror import Mirror
    from graphmem.recall import chains

    # Edge order and sampling, not the model: the fake embedder.
    with GraphMemory(store_path, embedder=fake_embedder, serve=False) as mem:
        ids = [r.id for r in mem.remember_many(
            [{"content": f"Note {i}: the Orion team ships release {i}", "tags": ["orion"],
              "dedupe": False} for i in range(2 * chains.ENTITY_SAMPLE + 20)]
        )]  # fmt: skip
        for i in range(0, len(ids), 7):
            mem.update(ids[i], content=f"Note {i}: the Orion team shipped release {i} late")
        live = mem._mirror
        fresh = Mirror(live.dim)
        fresh.load(mem._store)
        members = live.members("t:orion")
        assert sorted(live.ids[s] for s in members.tolist()) == sorted(
            fresh.ids[s] for s in fresh.members("t:orion").tolist()
        )
        picked = [live.ids[s] for s in chains.sample(members).tolist()]
        assert len(picked) == chains.ENTITY_SAMPLE == len(set(picked))
        assert picked == [fresh.ids[s] for s in chains.sample(fresh.members("t:orion")).tolist()]
        small = members[: chains.ENTITY_SAMPLE]
        assert chains.sample(small) is small  # hubs this small: every member, as before


def test_the_index_read_from_the_snapshot_is_freed_once_the_mirror_drops_it(
    store_path: Path, model_path: str, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Remembering which index the snapshot holds must not keep it alive: after a reload from
    the database (a free-form write) the old index (as big as the vectors: 1.5 GB at a
    million memories) was kept until close, beside the one trained anew."""
    import gc
    import weakref

    monkeypatch.setattr(ann, "ANN_MIN", 20)
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember_many(PORTS)
        top = _top(mem)  # trains the index; the close saves it
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem._shared.from_snapshot and _top(mem) == top
        old = weakref.ref(mem._mirror.ann)
        assert old() is not None and old().index is not None
        mem.cypher("MATCH (m:Memory) SET m.confidence = 0.7", write=True)  # reloads the mirror
        gc.collect()
        assert old() is None
        assert _top(mem) == top  # trained again
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem._shared.from_snapshot and mem._mirror.ann is not None

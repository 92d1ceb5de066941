"""A snapshot's format is versioned on purpose (graphmem.index.snapshot.FORMAT).

The test pins, per FORMAT, a fingerprint of what a snapshot holds: each section's name and
type, the types in its pickled state, and what the saved indexes are built from (the BM25
index's arrays and the entity index for a fixed set of memories). A change to any of them
without a bump fails here, so a snapshot written by other code is never loaded as if it
matched; a change of layout with a bump makes old snapshots rebuild, as they should.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from graphmem import GraphMemory
from graphmem.index import snapshot

# FORMAT -> fingerprint. When this fails: if the change is meant, bump snapshot.FORMAT and add
# the new fingerprint printed in the failure (keep the old lines: they document the history).
PINNED = {
    3: "02f62d62bc030aaf",
}

TEXTS = [
    "Alice Chen owns the billing-api service; it runs on PostgreSQL 15 in eu-west-1.",
    "The checkout service depends on billing-api and calls it over gRPC.",
    "Deploys to prod need a change ticket in Jira (see docs/deploy.md).",
    "Bob prefers dark mode in VS Code and uses the Fira Code font.",
    "On 2024-03-02 the search cluster ran out of disk; we added 2 TB to es-prod-3.",
]


def fingerprint(mem: GraphMemory) -> str:
    mirror = mem._mirror
    digest = hashlib.sha256(json.dumps(snapshot.layout(mirror)).encode())
    for name, array in sorted(mirror.lexical.arrays().items()):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(repr(sorted(mirror.entities._by_first.items())).encode())
    return digest.hexdigest()[:16]


def test_the_snapshot_layout_changes_only_with_a_format_bump(
    tmp_path: Path, model_path: str
) -> None:
    with GraphMemory(tmp_path / "m", model_path=model_path) as mem:
        mem.remember_many([{"content": t, "tags": ["team"]} for t in TEXTS])
        got = fingerprint(mem)
    assert PINNED.get(snapshot.FORMAT) == got, (
        f"the snapshot's layout is {got} under FORMAT {snapshot.FORMAT}: if that is meant, bump "
        f"graphmem.index.snapshot.FORMAT and pin the new fingerprint in PINNED"
    )


def test_a_snapshot_of_another_format_is_ignored_and_the_mirror_rebuilt(
    tmp_path: Path, model_path: str, monkeypatch
) -> None:
    folder = tmp_path / "m"
    with GraphMemory(folder, model_path=model_path) as mem:
        mem.remember_many([{"content": t} for t in TEXTS])
    assert snapshot.path_for(folder).exists()
    monkeypatch.setattr(snapshot, "FORMAT", snapshot.FORMAT + 1)
    with GraphMemory(folder, model_path=model_path) as mem:
        assert sorted(m.content for m in mem.memories(limit=None)) == sorted(TEXTS)
        assert mem.search("who owns billing", limit=1)[0].memory.content == TEXTS[0]

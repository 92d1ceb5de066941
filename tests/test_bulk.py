"""A big ingest embedded on Dask workers (graphmem.write.bulk, examples/ingest_dask.py) stores what
one process embedding alone stores: the same memories, the same vectors, in file order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dask.distributed import Client, LocalCluster

from graphmem import GraphMemory, ValidationError
from graphmem.write.bulk import ingest_jsonl, read_batches

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("billing", "search", "ledger", "gateway", "payments", "media", "audit", "pricing")


def _items(n: int) -> list[dict]:
    return [
        {
            "content": f"The {SERVICES[i % 8]} service {i // 8} listens on port {8000 + i}",
            "tags": [SERVICES[i % 8]],
        }
        for i in range(n)
    ]


def _jsonl(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _by_content(mem: GraphMemory) -> dict[str, np.ndarray]:
    rows = mem.memories(limit=10_000)
    return {m.content: np.asarray(mem.get(m.id, with_embedding=True).embedding) for m in rows}


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"content": "fine"}\n\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bad.jsonl:3: expected a JSON object"):
        list(read_batches(path))
    path.write_text('{"content": "fine"}\n{oops\n', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bad.jsonl:2: not JSON"):
        list(read_batches(path))


def test_dask_workers_embed_what_the_store_would(tmp_path: Path, model_path: str) -> None:
    items = _items(40)
    path = _jsonl(tmp_path / "items.jsonl", items)
    # Threads in this process: the same code path as worker processes, started in a moment.
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as dask,
        GraphMemory(tmp_path / "distributed", model_path=model_path) as mem,
    ):
        seen: list[int] = []
        report = ingest_jsonl(path, mem, dask, model_path=model_path, batch_size=8,
                              progress=seen.append)  # fmt: skip
        distributed = _by_content(mem)
    assert report.items == 40 and report.batches == 5 and report.created == 40
    assert seen == [8, 16, 24, 32, 40]  # file order, batch by batch
    with GraphMemory(tmp_path / "alone", model_path=model_path) as mem:
        mem.remember_many(items)
        alone = _by_content(mem)
    assert distributed.keys() == alone.keys()
    for content, vector in alone.items():
        assert float(vector @ distributed[content]) > 0.9999, content


@pytest.mark.slow
def test_the_script_ingests_with_worker_processes(tmp_path: Path, model_path: str) -> None:
    path = _jsonl(tmp_path / "items.jsonl", _items(64))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ingest_dask.py"), str(path),
         str(tmp_path / "memory"), "--workers", "2", "--batch", "16"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ingested 64 items in 4 batches" in done.stdout
    with GraphMemory(tmp_path / "memory", model_path=model_path) as mem:
        assert mem.stats().memories == 64
        hits = mem.search("which port does the ledger service 2 listen on?")
        assert hits[0].memory.content == "The ledger service 2 listens on port 8018"

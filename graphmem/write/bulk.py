"""Big ingests: embed a JSONL file across Dask workers and feed the store in batches.

Embedding is what a big ingest costs (about 100-400 texts/s per machine on 2 cores), and the
store's owner writes much faster than one process embeds. So the embedding goes to Dask
workers (local processes here, a cluster's machines elsewhere, GPU workers where a user has
them), each with the model loaded once, and the owner receives batches that carry their
``embedding`` (``remember_many`` uses them as given and embeds nothing)::

    from dask.distributed import Client, LocalCluster
    from graphmem import GraphMemory
    from graphmem.write.bulk import ingest_jsonl

    with LocalCluster(n_workers=4, threads_per_worker=1) as cluster, Client(cluster) as dask:
        with GraphMemory("./memory") as mem:          # or "http://host:8765/s/<name>"
            report = ingest_jsonl("memories.jsonl", mem, dask, model_path="/models/minilm")

Each line of the file is one ``remember`` item (``{"content": ..., "tags": [...], ...}``).
Batches are written in file order (later items see earlier ones: duplicates reinforce,
conflicts supersede, as in one ``remember_many``), with at most ``window`` batches embedding at
once, so memory stays bounded whatever the file's size. Dask is an optional dependency
(``pip install graphmem[dask]``); Dask rather than Ray because it installs from PyPI with no
native runtime of its own, and its local cluster is plain processes.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import ValidationError

# Items per batch: one embedding task on a worker, one remember_many request to the owner.
BATCH = 256


class IngestReport(BaseModel):
    """What ``ingest_jsonl`` did."""

    items: int
    batches: int
    seconds: float
    created: int
    reinforced: int

    @property
    def per_second(self) -> float:
        return self.items / self.seconds if self.seconds else 0.0


def read_batches(path: str | Path, batch_size: int = BATCH) -> Iterator[list[dict[str, Any]]]:
    """The file's items, ``batch_size`` at a time (blank lines skipped).

    Raises:
        ValidationError: a line is not a JSON object (the message names the line).
    """
    batch: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise ValidationError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(item, dict):
                raise ValidationError(f"{path}:{number}: expected a JSON object")
            batch.append(item)
            if len(batch) == batch_size:
                yield batch
                batch = []
    if batch:
        yield batch


def embed_batch(
    items: list[dict[str, Any]],
    model_path: str | None,
    model_name: str | None = None,
    threads: int | None = None,
) -> list[dict[str, Any]]:
    """The items with ``embedding`` and ``embedding_model`` added (runs on a worker; the
    model loads once per worker process and stays). ``threads``: ONNX threads (None: all
    cores; give cores / workers when workers share a machine)."""
    from ..config import DEFAULT_MODEL
    from ..embed import FastEmbedder

    embedder = FastEmbedder(model_name or DEFAULT_MODEL, model_path=model_path, threads=threads)
    texts = [str(item.get("content", "")) for item in items]
    vectors = embedder.embed(texts)
    return [
        {**item, "embedding": vector.tolist(), "embedding_model": embedder.model_name}
        for item, vector in zip(items, vectors, strict=True)
    ]


def ingest_jsonl(
    path: str | Path,
    mem: Any,
    dask: Any,
    *,
    model_path: str | None = None,
    batch_size: int = BATCH,
    window: int | None = None,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestReport:
    """Embed ``path`` on ``dask``'s workers and write it to ``mem`` (a ``GraphMemory``, local
    or a server's client) in file order.

    Args:
        dask: a ``dask.distributed.Client``.
        model_path: the model folder on the workers (the store's model; None: the workers'
            ``GRAPHMEM_MODEL_PATH``).
        window: batches embedding at once (default: two per worker thread).
        threads: ONNX threads per worker (see ``embed_batch``).
        progress: called with the number of items written so far.
    """
    if window is None:
        threads = sum(dask.nthreads().values()) or 1
        window = 2 * threads
    model_name = getattr(mem, "model_name", None)
    started = time.perf_counter()
    pending: deque[Any] = deque()
    items = batches = created = reinforced = 0

    def write(future: Any) -> None:
        nonlocal items, batches, created, reinforced
        done = mem.remember_many(future.result(), batch_size=batch_size)
        future.release()
        items += len(done)
        batches += 1
        created += sum(1 for r in done if r.action != "reinforced")
        reinforced += sum(1 for r in done if r.action == "reinforced")
        if progress is not None:
            progress(items)

    for batch in read_batches(path, batch_size):
        pending.append(dask.submit(embed_batch, batch, model_path, model_name, threads, pure=False))
        if len(pending) >= window:
            write(pending.popleft())
    while pending:
        write(pending.popleft())
    return IngestReport(
        items=items,
        batches=batches,
        seconds=time.perf_counter() - started,
        created=created,
        reinforced=reinforced,
    )


__all__ = ["IngestReport", "embed_batch", "ingest_jsonl", "read_batches"]

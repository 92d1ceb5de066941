"""A big ingest embedded on Dask workers against one process embedding alone, same run.

The same corpus (bench/corpus.py) is written to three fresh stores:

- alone: ``GraphMemory.remember_many(items)`` in one process (the store embeds; it already
  overlaps embedding the next batch with writing this one);
- dask: ``graphmem.write.bulk.ingest_jsonl`` with a local cluster of ``--workers`` worker processes
  (one ONNX thread each) embedding, and this process writing the batches with their vectors;
- raw: embedding the texts alone in this process;
- given: the owner writing the same items with their vectors given (the ceiling of any
  spread of the embedding: what one owner absorbs).

    python bench/bulk.py --n 3000 --workers 2 --json bench/results-bulk.json

On a machine of C cores, the workers and the writer share the C cores: the ratio says what
moving the embedding off the writer buys here; on a cluster, each worker brings its own cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import memories  # noqa: E402

from graphmem import GraphMemory  # noqa: E402
from graphmem.embed import FastEmbedder  # noqa: E402
from graphmem.write.bulk import ingest_jsonl  # noqa: E402

DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--model-path", default=os.environ.get("GRAPHMEM_MODEL_PATH", DEFAULT_MODEL_PATH)
    )
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    items = memories(args.n, args.seed, with_ids=False)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "items.jsonl"
        jsonl.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")

        embedder = FastEmbedder(model_path=args.model_path)
        embedder.embed(["warm-up"] * 8)
        start = time.perf_counter()
        vectors = embedder.embed([i["content"] for i in items])
        raw = time.perf_counter() - start
        rows["raw embed, one process"] = {"seconds": raw, "per_s": args.n / raw}

        # The ceiling of any spread of the embedding: the owner writing vectors it is given.
        given = [{**i, "embedding": v} for i, v in zip(items, vectors, strict=True)]
        with GraphMemory(Path(tmp) / "given", model_path=args.model_path) as mem:
            start = time.perf_counter()
            mem.remember_many(given, batch_size=args.batch)
            mem.flush()
            written = time.perf_counter() - start
        rows["remember_many, embeddings given (writing only)"] = {
            "seconds": written, "per_s": args.n / written,
        }  # fmt: skip

        with GraphMemory(Path(tmp) / "alone", model_path=args.model_path) as mem:
            mem.embedder.embed(["warm-up"] * 8)
            start = time.perf_counter()
            mem.remember_many(items, batch_size=args.batch)
            mem.flush()
            alone = time.perf_counter() - start
            count = mem.stats().memories
        rows["remember_many, one process embedding"] = {
            "seconds": alone, "per_s": args.n / alone, "memories": count,
        }  # fmt: skip

        threads = max(1, (os.cpu_count() or 1) // args.workers)
        with (
            LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                         dashboard_address=None) as cluster,
            Client(cluster) as dask,
            GraphMemory(Path(tmp) / "dask", model_path=args.model_path) as mem,
        ):  # fmt: skip
            # Each worker loads the model before the clock starts, as the others did.
            dask.run(lambda: FastEmbedder(model_path=args.model_path, threads=threads).dim)
            start = time.perf_counter()
            report = ingest_jsonl(jsonl, mem, dask, model_path=args.model_path,
                                  batch_size=args.batch, threads=threads)  # fmt: skip
            mem.flush()
            spread = time.perf_counter() - start
            count = mem.stats().memories
        rows[f"ingest_jsonl, {args.workers} Dask worker processes"] = {
            "seconds": spread, "per_s": args.n / spread, "memories": count,
            "batches": report.batches,
        }  # fmt: skip

    base = rows["remember_many, one process embedding"]["per_s"]
    print(f"{args.n} memories, {os.cpu_count()} cores")
    for name, row in rows.items():
        print(f"  {name:48s} {row['seconds']:7.1f} s  {row['per_s']:6.0f}/s  "
              f"{row['per_s'] / base:4.2f}x one process")  # fmt: skip
    if args.json_path:
        result = {"n": args.n, "cores": os.cpu_count(), "workers": args.workers, "rows": rows}
        Path(args.json_path).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

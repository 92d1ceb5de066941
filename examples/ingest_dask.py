"""Embed a big JSONL file across Dask workers and write it to a store (docs/scale-out.md).

    python examples/ingest_dask.py memories.jsonl ./memory --workers 4
    python examples/ingest_dask.py memories.jsonl http://host:8765/s/team --scheduler tcp://dask:8786

Each line is one remember item ({"content": ..., "tags": [...], ...}). With --scheduler the
workers are a running Dask cluster's (each needs graphmem and the model at --model-path);
without it, --workers local processes. The store is a folder (this process owns it) or a
server's URL (the token from GRAPHMEM_TOKEN).
"""

from __future__ import annotations

import argparse
import os

from dask.distributed import Client, LocalCluster

from graphmem import GraphMemory
from graphmem.write.bulk import ingest_jsonl


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl")
    parser.add_argument("store", help="a store folder, or http://HOST:PORT[/s/NAME]")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes")
    parser.add_argument("--scheduler", help="a running Dask scheduler's address")
    parser.add_argument("--model-path", default=os.environ.get("GRAPHMEM_MODEL_PATH"))
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args(argv)

    if args.scheduler:
        cluster = None
        dask = Client(args.scheduler)
        threads = None
    else:
        # One ONNX thread per worker and one worker per core: the workers share the machine.
        cluster = LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        dask = Client(cluster)
        threads = max(1, (os.cpu_count() or 1) // args.workers)
    try:
        with GraphMemory(args.store, model_path=args.model_path) as mem:
            report = ingest_jsonl(
                args.jsonl, mem, dask, model_path=args.model_path, batch_size=args.batch,
                threads=threads,
            )  # fmt: skip
    finally:
        dask.close()
        if cluster is not None:
            cluster.close()
    print(
        f"ingested {report.items} items in {report.batches} batches, {report.seconds:.1f} s "
        f"({report.per_second:.0f}/s): {report.created} created, {report.reinforced} reinforced"
    )


if __name__ == "__main__":
    main()

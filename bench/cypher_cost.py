"""What a cypher() call costs now that it runs in the sandbox (graphmem.storage.sandbox).

    python bench/cypher_cost.py [--n 2000] [--calls 30]

Builds a store of N memories (the fake-free real model), then times, in one run: a mirror
read of the same count (the in-process floor), cypher() on an unchanged store (a round trip to
the worker), and the first cypher() after a write (a new copy of the log and a new worker).
Prints medians in milliseconds; the ratios are what to compare across machines.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from graphmem import GraphMemory


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, GraphMemory(Path(tmp) / "m") as mem:
        mem.remember_many(
            [
                {
                    "content": f"Service s{i} listens on port {8000 + i} and is owned by team t{i % 40}"
                }
                for i in range(args.n)
            ]
        )
        query = "MATCH (m:Memory) WHERE m.content CONTAINS $w RETURN count(*) AS n"
        mem.cypher(query, {"w": "s1"})
        steady, after_write, floor = [], [], []
        for i in range(args.calls):
            t = time.perf_counter()
            mem.stats()
            floor.append(time.perf_counter() - t)
            t = time.perf_counter()
            mem.cypher(query, {"w": f"s{i}"})
            steady.append(time.perf_counter() - t)
        for i in range(max(3, args.calls // 5)):
            mem.remember(f"A new note number {i} about service s{i}")
            mem.flush()
            t = time.perf_counter()
            mem.cypher(query, {"w": f"s{i}"})
            after_write.append(time.perf_counter() - t)
        ms = {
            k: 1000 * statistics.median(v)
            for k, v in {
                "stats (floor)": floor,
                "cypher, unchanged store": steady,
                "cypher, first after a write": after_write,
            }.items()
        }
        for k, v in ms.items():
            print(f"{k:32s} {v:8.1f} ms")


if __name__ == "__main__":
    main()

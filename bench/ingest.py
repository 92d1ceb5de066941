"""Ingest rate: ``remember_many`` against raw fastembed embedding of the same texts.

Measured in one run, on the synthetic corpus of bench/corpus.py:

- raw embed: ``fastembed.TextEmbedding(specific_model_path=...)`` embedding the texts in their
  given order, batch_size 64. The floor: what embedding alone costs.
- remember_many: the same items into a fresh temporary store (embedding, dedupe, conflict
  checks, tags, links, one transaction per batch; background clustering flushed at the end).
- remember (single): ``remember`` called once per item, for the first ``--single`` items, into
  another fresh store; and the same texts embedded one at a time by the store's model (the
  target: a ``remember`` within 2× the time of embedding its text). A small ``remember``
  returns once journalled (write-behind); the time of the first read after the last call
  (which applies what the journal still holds) is reported too.

With ``--into STORE`` both stores are copies of STORE (the rates at that store's size; the items
come from another seed and carry no ids, so they are new to it).

    python bench/ingest.py                       # 2,000 memories, 200 single calls
    python bench/ingest.py --n 5000 --json ingest.json
    python bench/ingest.py --n 3000 --into /tmp/s100000    # into a copy of a scale.py store
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import memories  # noqa: E402

from graphmem import Config, GraphMemory  # noqa: E402
from graphmem.config import DEFAULT_MODEL  # noqa: E402

DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")


def raw_embed(texts: list[str], model_path: str, batch_size: int) -> float:
    from fastembed import TextEmbedding

    model = TextEmbedding(DEFAULT_MODEL, specific_model_path=model_path)
    list(model.embed(["warm-up"] * 8, batch_size=batch_size))
    start = time.perf_counter()
    rows = list(model.embed(texts, batch_size=batch_size))
    seconds = time.perf_counter() - start
    assert len(rows) == len(texts)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000, help="memories for remember_many")
    parser.add_argument("--single", type=int, default=200, help="items for single remember")
    parser.add_argument("--batch-size", type=int, default=512, help="remember_many batch_size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model-path", default=DEFAULT_MODEL_PATH)
    parser.add_argument("--json", dest="json_path", default=None, help="Also write results here.")
    parser.add_argument("--into", type=Path, default=None, help="write into copies of this store")
    parser.add_argument("--sync", action="store_true",
                        help="no write-behind: every remember commits before it returns")  # fmt: skip
    args = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(110, Console().width))
    seed = args.seed + 1000 if args.into else args.seed
    items = memories(args.n, seed, with_ids=not args.into)
    texts = [it["content"] for it in items]

    def store(name: str) -> Path:
        path = Path(tmp) / name
        if args.into:
            shutil.copytree(args.into, path, ignore=shutil.ignore_patterns("*.sock"))
        return path

    raw_s = raw_embed(texts, args.model_path, 64)
    raw_rate = len(texts) / raw_s
    console.print(f"raw embed: {len(texts)} texts in {raw_s:.1f} s")

    rows = [{"row": "raw embed (fastembed, batch 64)", "items": len(texts),
             "seconds": raw_s, "per_s": raw_rate}]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        # The model is loaded (and warmed) before the clock starts, as for raw embedding.
        with GraphMemory(store("many"), model_path=args.model_path) as mem:
            mem.embedder.embed(["warm-up"] * 8)
            start = time.perf_counter()
            results = mem.remember_many(items, batch_size=args.batch_size)
            written = time.perf_counter() - start
            mem.flush()
            flushed = time.perf_counter() - start
            stats = mem.stats()
        actions = dict(Counter(r.action for r in results))
        console.print(f"remember_many: {written:.1f} s (+{flushed - written:.1f} s flush), "
                      f"actions {actions}")  # fmt: skip
        rows.append({"row": f"remember_many (batch {args.batch_size})", "items": len(items),
                     "seconds": written, "per_s": len(items) / written,
                     "seconds_with_flush": flushed, "actions": actions,
                     "stats": {"memories": stats.memories, "active": stats.active,
                               "tags": stats.tags, "edges": stats.edges,
                               "clusters": stats.clusters}})  # fmt: skip

        single = memories(args.single, seed + 1, with_ids=not args.into)
        config = Config(write_behind_items=0) if args.sync else Config()
        with GraphMemory(store("single"), model_path=args.model_path, config=config) as mem:
            mem.embedder.embed(["warm-up"] * 8)
            calls, embeds = [], []
            for i, it in enumerate(single):
                content = it.pop("content")
                # Interleaved, so load falls on both alike: the text alone, then remember.
                start = time.perf_counter()
                mem.embedder.embed([f"{content} ({i})"])
                embeds.append(time.perf_counter() - start)
                start = time.perf_counter()
                mem.remember(content, **it)
                calls.append(time.perf_counter() - start)
            one_s = sum(calls)
            # What the journal still held when the last call returned (write-behind): a read
            # of the database applies it first.
            start = time.perf_counter()
            mem.cypher("MATCH (m:Memory) RETURN count(m) AS n")
            backlog_s = time.perf_counter() - start
            mem.flush()
        rows.append({"row": "remember (single calls)", "items": len(single), "seconds": one_s,
                     "per_s": len(single) / one_s,
                     "median_ms": 1000 * statistics.median(calls),
                     "embed_one_median_ms": 1000 * statistics.median(embeds),
                     "backlog_s": backlog_s,
                     "x_embed_one": statistics.median(calls) / statistics.median(embeds)})  # fmt: skip
        console.print(f"single remember: median {rows[-1]['median_ms']:.1f} ms, embedding its "
                      f"text alone {rows[-1]['embed_one_median_ms']:.1f} ms "
                      f"({rows[-1]['x_embed_one']:.2f}×, target ≤ 2×); the first read after "
                      f"the last call took {1000 * backlog_s:.0f} ms")  # fmt: skip

    table = Table(title=f"ingest: {args.n} memories (remember_many), {args.single} single "
                        f"remember calls; {platform.machine()} ({_cores()} cores)")  # fmt: skip
    for col in ("row", "items", "seconds", "memories/s", "× raw embed rate", "ms/memory"):
        table.add_column(col, justify="left" if col == "row" else "right")
    for r in rows:
        r["ratio_to_raw"] = r["per_s"] / raw_rate
        table.add_row(r["row"], str(r["items"]), f"{r['seconds']:.2f}", f"{r['per_s']:.1f}",
                      f"{r['ratio_to_raw']:.2f}", f"{1000 / r['per_s']:.2f}")  # fmt: skip
    console.print(table)
    if args.json_path:
        out = {"benchmark": "ingest", "date": datetime.now().isoformat(timespec="seconds"),
               "cores": _cores(), "n": args.n, "single": args.single,
               "into": str(args.into) if args.into else None, "sync": args.sync,
               "rows": rows}  # fmt: skip
        Path(args.json_path).write_text(json.dumps(out, indent=2))


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


if __name__ == "__main__":
    main()

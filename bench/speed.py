"""Query latency of search and recall against the floor (embed the query + raw vector search).

Builds a store of ``--n`` synthetic memories (bench/corpus.py), or reuses ``--store DIR``
(built there once when missing), reopens it read-only so post-recall maintenance cannot write
during the measurement, then times each row over ``--q`` questions after a warm-up. The rows
run interleaved (every row on one question, then the next question), so load from other
processes on a shared machine falls on all rows alike:

- embed only: ``mem.embedder.embed([q])``, for reference.
- floor: embed + ``mirror.top_k(vec, mirror.mask(Filters()), 10)``, the raw in-process
  vector search every query path has to pay.
- top_k + mask only (tight loop): the vector search alone on pre-computed query vectors.
- search: ``mem.search(q, limit=10)`` (floor + loading the memories from Kùzu).
- recall d=2 / d=1: ``mem.recall(q, limit=10, depth=...)`` (hybrid seeds, graph walk,
  lifecycle scoring, loading the memories).
- recall d=2 (read-write): the same on a read-write copy of the store, where each recall also
  queues its deferred maintenance (access counts, link learning, gaps, a cluster refresh every
  ``Config.cluster_every_recalls``); the note gives the flush time that work needs afterwards.

Each row reports p50, p95 and mean latency and the ratio of its p50 and p95 to the floor's.
The target is recall p50 ≤ 2× the floor.

    python bench/speed.py                                  # 10,000 memories in a temp store
    python bench/speed.py --store /tmp/gm-speed-10k        # build once, reuse afterwards
    python bench/speed.py --store /tmp/gm-speed-10k --profile --json speed.json

``--longmemeval-m DIR`` measures an M-sized LongMemEval store instead (one of the
``longmemeval-m/g*`` folders ``quality.py --stores`` keeps: ~4,900 chat turns, ~480 sessions),
asked the 100 LongMemEval dev questions: the issue's "recall p50 within 2× the floor on the
M-sized stores".
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import memories, queries  # noqa: E402

from graphmem import GraphMemory  # noqa: E402
from graphmem.index.mirror import Filters  # noqa: E402

DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")
META = "bench-corpus.json"  # written next to graph.kuzu in a --store folder


def _total(value: object) -> int:
    return sum(value.values()) if isinstance(value, dict) else int(value)  # type: ignore[arg-type]


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def build(path: Path, n: int, seed: int, model_path: str, console) -> dict:  # type: ignore[no-untyped-def]
    """Build the store (or reuse it when its metadata says it holds the same corpus)."""
    meta_file = path / META
    if meta_file.exists():
        meta = json.loads(meta_file.read_text())
        if meta.get("n") != n or meta.get("seed") != seed:
            raise SystemExit(
                f"{path} holds a corpus of n={meta.get('n')} seed={meta.get('seed')}; "
                f"pass the same --n/--seed or another --store."
            )
        console.print(f"reusing store {path} (built in {meta['build_seconds']:.0f} s)")
        return meta
    if (path / "graph.kuzu").exists():
        raise SystemExit(
            f"{path} holds a store this benchmark did not build; pick another --store."
        )
    items = memories(n, seed)
    console.print(f"building {n} memories in {path} ...")
    start = time.perf_counter()
    with GraphMemory(path, model_path=model_path) as mem:
        results = mem.remember_many(items, progress=True)
        written = time.perf_counter() - start
        mem.flush()  # background cluster rebuilds (every Config.cluster_every_writes)
    seconds = time.perf_counter() - start
    meta = {
        "n": n,
        "seed": seed,
        "build_seconds": round(seconds, 1),
        "remember_many_seconds": round(written, 1),
        "actions": dict(Counter(r.action for r in results)),
        "built": datetime.now().isoformat(timespec="seconds"),
    }
    meta_file.write_text(json.dumps(meta, indent=2))
    console.print(f"built in {seconds:.0f} s (remember_many {written:.0f} s), {meta['actions']}")
    return meta


def interleaved(
    fns: dict[str, Callable[[str], object]], qs: list[str], warm: list[str]
) -> dict[str, list[float]]:
    """Time every row on each query in turn (rotating the order), so load from other processes
    on a shared machine falls on all rows alike and the ratios stay fair."""
    names = list(fns)
    for q in warm:
        for name in names:
            fns[name](q)
    out: dict[str, list[float]] = {name: [] for name in names}
    for i, q in enumerate(qs):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.perf_counter()
            fns[name](q)
            out[name].append((time.perf_counter() - start) * 1000.0)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]

    return {"p50": statistics.median(ordered), "p95": pct(95), "mean": statistics.fmean(ordered),
            "max": ordered[-1], "n": len(ordered)}  # fmt: skip


def read_write_row(path: Path, args, qs: list[str], warm: list[str]) -> tuple[list[float], str]:  # type: ignore[no-untyped-def]
    """Recall on a read-write copy of the store, in a child process (a crash there is reported,
    not fatal). Returns the latencies of the timed recalls that completed and a note."""
    with tempfile.TemporaryDirectory() as rw_tmp:
        rw_path = Path(rw_tmp) / "store"
        # A copy, so a cached store stays as built (maintenance writes access counts, links).
        shutil.copytree(path, rw_path)
        out = Path(rw_tmp) / "latencies.txt"
        spec = Path(rw_tmp) / "spec.json"
        spec.write_text(json.dumps({"path": str(rw_path), "model_path": args.model_path,
                                    "qs": qs, "warm": warm, "out": str(out)}))  # fmt: skip
        proc = subprocess.run([sys.executable, "-X", "faulthandler", __file__, "--rw-child", str(spec)],
                              capture_output=True, text=True)  # fmt: skip
        lines = out.read_text().splitlines() if out.exists() else []
    ms = [float(x) for x in lines if not x.startswith("#")]
    info = json.loads(lines[-1][1:]) if lines and lines[-1].startswith("#") else None
    if proc.returncode != 0 or info is None or info.get("error"):
        tail = " | ".join(
            ln.strip() for ln in (proc.stderr or "").splitlines()
            if "Error" in ln or "error" in ln or "graphmem/" in ln or "Fatal" in ln
        )[-600:]  # fmt: skip
        what = info.get("error") if info else f"exit code {proc.returncode}"
        return ms, f"FAILED after {len(ms)} timed recalls: {what}; {tail}"
    recalls = len(qs) + len(warm)
    return ms, (
        f"{recalls} recalls took {info['loop']:.2f} s, then flush {info['flush']:.2f} s "
        f"(maintenance still queued, incl. a cluster refresh every "
        f"{info['cluster_every_recalls']} recalls): "
        f"{1000 * (info['loop'] + info['flush']) / recalls:.1f} ms per recall all in"
    )


def rw_child(spec_file: str) -> None:
    spec = json.loads(Path(spec_file).read_text())
    out = open(spec["out"], "w", buffering=1)  # noqa: SIM115  (line-buffered: survives a crash)
    with GraphMemory(spec["path"], model_path=spec["model_path"]) as mem:
        mem.embedder.embed(["warm-up"])
        start = time.perf_counter()
        error = None
        try:
            for q in spec["warm"]:
                mem.recall(q, limit=10, depth=2)
            for q in spec["qs"]:
                t = time.perf_counter()
                mem.recall(q, limit=10, depth=2)
                out.write(f"{(time.perf_counter() - t) * 1000.0}\n")
            loop = time.perf_counter() - start
            t = time.perf_counter()
            mem.flush()
            flush_s = time.perf_counter() - t
        except Exception as exc:  # report, do not hide: the parent prints it
            error, loop, flush_s = f"{type(exc).__name__}: {str(exc)[:400]}", 0.0, 0.0
        info = {"loop": loop, "flush": flush_s, "error": error,
                "cluster_every_recalls": mem.config.cluster_every_recalls}  # fmt: skip
        out.write("#" + json.dumps(info) + "\n")
        out.close()
        if error:
            # Closing flushes the queue again and would raise the same error.
            os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=10_000, help="memories in the store")
    parser.add_argument("--q", type=int, default=200, help="timed queries per row")
    parser.add_argument("--warmup", type=int, default=20, help="untimed queries per row first")
    parser.add_argument("--store", default=None, help="store folder to reuse (built if missing)")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed")
    parser.add_argument("--query-seed", type=int, default=11)
    parser.add_argument("--model-path", default=DEFAULT_MODEL_PATH)
    parser.add_argument("--no-rw", action="store_true", help="skip the read-write row")
    parser.add_argument("--longmemeval-m", default=None, metavar="DIR",
                        help="an M-sized LongMemEval store built by quality.py --stores, asked "
                        "the LongMemEval dev questions (implies --no-rw)")  # fmt: skip
    parser.add_argument("--profile", action="store_true",
                        help="cProfile recall (depth 2) and print the top 25 cumulative")  # fmt: skip
    parser.add_argument("--json", dest="json_path", default=None, help="Also write results here.")
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="limit numpy's BLAS threads (threadpoolctl) to see their effect",
    )
    parser.add_argument("--rw-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rw_child:
        rw_child(args.rw_child)
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(110, Console().width))
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads, user_api="blas")
    tmp = tempfile.TemporaryDirectory()
    path = Path(args.store).expanduser() if args.store else Path(tmp.name) / "store"
    if args.longmemeval_m:
        import longmemeval as lme

        path = Path(args.longmemeval_m).expanduser()
        if not (path / "bench-manifest.json").exists():
            raise SystemExit(f"{path} is not a store quality.py built (no bench-manifest.json)")
        meta = {"longmemeval_m": str(path)}
        questions = [q.question for q in lme.load()[0]]
        qs, warm = questions[: args.q], questions[-args.warmup :]
    else:
        meta = build(path, args.n, args.seed, args.model_path, console)
        qs = queries(args.q, args.query_seed, vocab_seed=args.seed)
        warm = queries(args.warmup, args.query_seed + 1000, vocab_seed=args.seed)
    console.print(f"load average before measuring: {os.getloadavg()}")
    rows: dict[str, list[float]] = {}
    notes: dict[str, str] = {}
    profile_text = None
    with GraphMemory(path, model_path=args.model_path, read_only=True) as mem:
        stats = mem.stats()
        mirror = mem._mirror
        embed = mem.embedder.embed

        def floor(q: str) -> object:
            vec = embed([q])[0]
            return mirror.top_k(vec, mirror.mask(Filters()), 10)

        fns: dict[str, Callable[[str], object]] = {
            "embed only": lambda q: embed([q]),
            "floor: embed + top_k": floor,
            "search": lambda q: mem.search(q, limit=10),
            "recall d=2": lambda q: mem.recall(q, limit=10, depth=2),
            "recall d=1": lambda q: mem.recall(q, limit=10, depth=1),
        }
        rows.update(interleaved(fns, qs, warm))
        # The vector search alone, in a tight loop (no embedding in between).
        vecs = [embed([q])[0] for q in qs]
        ms = []
        for v in vecs:
            start = time.perf_counter()
            mirror.top_k(v, mirror.mask(Filters()), 10)
            ms.append((time.perf_counter() - start) * 1000.0)
        rows["top_k + mask only (tight loop)"] = ms
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            for q in qs:
                mem.recall(q, limit=10, depth=2)
            prof.disable()
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
            profile_text = buf.getvalue()

    if not args.no_rw and not args.longmemeval_m:
        ms, note = read_write_row(path, args, qs, warm)
        if ms:
            rows["recall d=2 (read-write)"] = ms
        notes["recall d=2 (read-write)"] = note

    base = summary(rows["floor: embed + top_k"])
    table = Table(
        title=f"speed: {stats.active} active memories ({stats.memories} stored, {stats.tags} tags, "
        f"{_total(stats.edges)} edges, {stats.clusters} clusters); {args.q} queries, warm-up "
        f"{args.warmup}; {platform.machine()}, {cores()} cores"
        + (f", BLAS threads {args.blas_threads}" if args.blas_threads else "")
    )
    for col in ("row", "p50 ms", "p95 ms", "mean ms", "p50 × floor", "p95 × floor"):
        table.add_column(col, justify="left" if col == "row" else "right")
    results = []
    for name, ms in rows.items():
        s = summary(ms)
        r = {"row": name, **{k: round(v, 3) for k, v in s.items()},
             "p50_x_floor": round(s["p50"] / base["p50"], 2),
             "p95_x_floor": round(s["p95"] / base["p95"], 2)}  # fmt: skip
        if name in notes:
            r["note"] = notes[name]
        results.append(r)
        table.add_row(name + (f" [{len(ms)} q]" if len(ms) != args.q else ""), f"{s['p50']:.2f}", f"{s['p95']:.2f}", f"{s['mean']:.2f}",
                      f"{r['p50_x_floor']:.2f}", f"{r['p95_x_floor']:.2f}")  # fmt: skip
    console.print(table)
    for name, note in notes.items():
        console.print(f"{name}: {note}")
    recall_ratio = summary(rows["recall d=2"])["p50"] / base["p50"]
    verdict = "meets" if recall_ratio <= 2 else "misses"
    console.print(f"recall d=2 p50 = {recall_ratio:.2f}× floor: {verdict} the ≤ 2× target")
    if profile_text:
        console.print("\n[bold]cProfile of recall (depth 2), top 25 by cumulative time[/bold]")
        print(profile_text)
    if args.json_path:
        out = {
            "benchmark": "speed", "date": datetime.now().isoformat(timespec="seconds"),
            "cores": cores(), "blas_threads": args.blas_threads, "load_avg": os.getloadavg(), "n": args.n, "queries": args.q, "warmup": args.warmup,
            "store": {"memories": stats.memories, "active": stats.active, "tags": stats.tags,
                      "edges": stats.edges, "clusters": stats.clusters},
            "build": meta, "rows": results, "recall_p50_x_floor": round(recall_ratio, 2),
            "profile": profile_text,
        }  # fmt: skip
        Path(args.json_path).write_text(json.dumps(out, indent=2))
    tmp.cleanup()


if __name__ == "__main__":
    main()

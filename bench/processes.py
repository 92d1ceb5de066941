"""What calling through a store's owner costs: recall latency in the owner vs in a client
process, and throughput with several client processes at once.

This process opens the store and so owns it (the owner); child processes open the same store
and become its clients (graphmem.remote.client over the owner's Unix socket). Latency rows run
interleaved, one question at a time in the owner and then in the client, so load from other
processes on a shared machine falls on both alike. The target is that a client adds ≤ 2 ms to
recall's p50.

    python bench/processes.py                                 # 10,000 memories, temp store
    python bench/processes.py --store /tmp/gm-speed-10k       # reuse a bench/speed.py store
    python bench/processes.py --clients 4 --json processes.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import queries  # noqa: E402
from speed import DEFAULT_MODEL_PATH, build, summary  # noqa: E402

from graphmem import GraphMemory  # noqa: E402


def child(store: str, q: int, mode: str) -> None:
    """A client process: "latency" answers one question per stdin line with its time;
    "throughput" waits for "go", runs every question, and reports the elapsed time."""
    qs = queries(q)
    with GraphMemory(store) as mem:
        assert mem.owner is not None, "the bench process should hold the store"
        mem.recall(qs[0], limit=10)  # warm the connection
        print("ready", flush=True)
        if mode == "latency":
            for line in sys.stdin:
                question = qs[int(line)]
                start = time.perf_counter()
                mem.recall(question, limit=10)
                print((time.perf_counter() - start) * 1000, flush=True)
        else:
            sys.stdin.readline()
            start = time.perf_counter()
            for question in qs:
                mem.recall(question, limit=10)
            print(time.perf_counter() - start, flush=True)


def spawn(store: Path, q: int, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", mode, "--store", str(store), "--q", str(q)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def throughput(store: Path, q: int, clients: int) -> float:
    """Recalls per second over ``clients`` processes started together."""
    procs = [spawn(store, q, "throughput") for _ in range(clients)]
    start = time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")  # type: ignore[union-attr]
        p.stdin.flush()  # type: ignore[union-attr]
    for p in procs:
        p.stdout.readline()  # type: ignore[union-attr]
        p.stdin.close()  # type: ignore[union-attr]
        p.wait()
    return clients * q / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--q", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", choices=["latency", "throughput"], default=None)
    args = parser.parse_args()
    os.environ.setdefault("GRAPHMEM_MODEL_PATH", DEFAULT_MODEL_PATH)
    if args.child:
        child(str(args.store), args.q, args.child)
        return
    from rich.console import Console

    console = Console()
    store = args.store or Path(tempfile.mkdtemp(prefix="gm-processes-")) / "store"
    build(store, args.n, args.seed, os.environ["GRAPHMEM_MODEL_PATH"], console)
    qs = queries(args.q)
    with GraphMemory(store) as mem:
        assert mem.owner is None
        for question in qs[:10]:
            mem.recall(question, limit=10)
        client = spawn(store, args.q, "latency")
        local, remote = [], []
        for i, question in enumerate(qs):
            start = time.perf_counter()
            mem.recall(question, limit=10)
            local.append((time.perf_counter() - start) * 1000)
            client.stdin.write(f"{i}\n")  # type: ignore[union-attr]
            client.stdin.flush()  # type: ignore[union-attr]
            remote.append(float(client.stdout.readline()))  # type: ignore[union-attr]
        client.stdin.close()  # type: ignore[union-attr]
        client.wait()
        mem.flush()
        start = time.perf_counter()
        for question in qs:
            mem.recall(question, limit=10)
        in_holder_rate = len(qs) / (time.perf_counter() - start)
        mem.flush()
        one = throughput(store, args.q, 1)
        many = throughput(store, args.q, args.clients)
    lo, re_ = summary(local), summary(remote)
    result = {
        "n": args.n,
        "questions": args.q,
        "recall_in_holder_ms": lo,
        "recall_in_client_ms": re_,
        "client_adds_p50_ms": round(re_["p50"] - lo["p50"], 2),
        "client_adds_p95_ms": round(re_["p95"] - lo["p95"], 2),
        "recalls_per_s": {
            "in_holder": round(in_holder_rate, 1),
            "1_client": round(one, 1),
            f"{args.clients}_clients": round(many, 1),
        },
        "cores": os.cpu_count(),
    }
    console.print_json(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

"""`graphmem serve --stores`: what a store costs in memory, how long a store's first call waits
for it to open, and requests per second through nginx to 1 and to 3 servers, in one run.

- memory: a server opens N small stores (100 memories each); the growth of its resident
  memory per store gives stores per GB. The per-store cost of bigger stores is what the
  server measured around each open (``cost_bytes`` in /v1/status).
- open on demand: stores of 1k, 10k and 100k memories (closed, snapshot written), each
  reached cold through a server that keeps one store open (``--max-open 1``): the first
  call's latency (it opens the store, after closing the previous one), the server's own open
  time, and a warm call's latency.
- routing: 30 stores of 200 memories behind nginx (deploy/nginx/graphmem.conf) with 1 server
  and with 3; ``--threads`` clients send ``--requests`` searches each to random stores; the
  same load straight to one server gives nginx's own cost (rounds interleaved, medians).

Stores are built with ``remember_many`` from bench/corpus.py texts and seeded random unit
embeddings (given, so building 100k takes minutes, not hours): open time and memory depend on
the store's size, not on what its vectors mean. Searches embed their query (real model).

    python bench/stores.py --sizes 1000 10000 100000 --json bench/results-stores.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from cluster import Cluster, Server  # noqa: E402
from corpus import memories, queries  # noqa: E402

from graphmem import Config, GraphMemory  # noqa: E402
from graphmem.embed import FastEmbedder  # noqa: E402

DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")
CONFIG = Config(buffer_pool_mb=1024, max_db_gb=64)  # what serve --stores uses


def build(folder: Path, n: int, embedder: FastEmbedder, seed: int) -> float:
    """A closed store of ``n`` memories (random unit vectors given); seconds it took."""
    rng = np.random.default_rng(seed)
    items = memories(n, seed, with_ids=False)
    start = time.perf_counter()
    with GraphMemory(folder, embedder=embedder, config=CONFIG) as mem:
        for i in range(0, n, 2048):
            chunk = items[i : i + 2048]
            vectors = rng.standard_normal((len(chunk), embedder.dim)).astype(np.float32)
            for item, vector in zip(chunk, vectors, strict=True):
                item["embedding"] = vector
            mem.remember_many(chunk, batch_size=512)
    return time.perf_counter() - start


def call(http: httpx.Client, url: str, method: str, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    response = http.post(f"{url}/v1/call/{method}", json={"args": list(args), "kwargs": kwargs})
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed


def memory_per_store(cluster: Cluster, token: str, n_small: int) -> dict[str, Any]:
    (server,) = cluster.start_servers(1, "--max-open", str(n_small + 1))
    http = httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=600)
    base = f"http://{server.address}"
    before = server.status(token)["resident_bytes"]
    for i in range(n_small):
        call(http, f"{base}/s/small-{i:03d}", "stats")
    after = server.status(token)["resident_bytes"]
    http.close()
    server.stop()
    per_store = (after - before) / n_small
    return {"stores": n_small, "memories_each": 100, "resident_before": before,
            "resident_after": after, "bytes_per_store": per_store,
            "stores_per_gb": (1 << 30) / per_store}  # fmt: skip


def open_on_demand(cluster: Cluster, token: str, sizes: list[int], rounds: int) -> list[dict]:
    (server,) = cluster.start_servers(1, "--max-open", "1")
    http = httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=600)
    base = f"http://{server.address}"
    results = {n: {"cold": [], "open": [], "warm": [], "cost": []} for n in sizes}
    for _ in range(rounds):
        for n in sizes:  # each call closes the previous store (max-open 1): every one is cold
            url = f"{base}/s/s{n}"
            results[n]["cold"].append(call(http, url, "stats"))
            entry = next(s for s in server.status(token)["stores"] if s["name"] == f"s{n}")
            results[n]["open"].append(entry["open_seconds"])
            results[n]["cost"].append(entry["cost_bytes"])
            results[n]["warm"].append(min(call(http, url, "stats") for _ in range(5)))
    http.close()
    server.stop()
    return [
        {"memories": n, "first_call_s": sorted(r["cold"]), "open_s": sorted(r["open"]),
         "warm_call_s": statistics.median(r["warm"]),
         "open_cost_mb": statistics.median(r["cost"]) / (1 << 20)}
        for n, r in results.items()
    ]  # fmt: skip


def load(url_of: Any, names: list[str], threads: int, per_thread: int, token: str) -> dict:
    """``threads`` clients, each ``per_thread`` searches to random stores."""
    asked = queries(64, seed=11)
    latencies: list[float] = []
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=600) as http:
            mine = [
                call(http, url_of(rng.choice(names)), "search", rng.choice(asked), limit=5)
                for _ in range(per_thread)
            ]
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - start
    latencies.sort()
    return {"requests": len(latencies), "seconds": seconds,
            "per_s": len(latencies) / seconds,
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p95_ms": 1000 * latencies[int(len(latencies) * 0.95)]}  # fmt: skip


def routing(cluster: Cluster, token: str, args: argparse.Namespace) -> dict[str, Any]:
    names = [f"r{i:02d}" for i in range(args.route_stores)]
    servers: list[Server] = cluster.start_servers(3)
    one = cluster.front(servers[:1])
    three = cluster.front(servers)
    fronts = {
        "direct, 1 server": lambda name: f"http://{servers[0].address}/s/{name}",
        "nginx, 1 server": one.url,
        "nginx, 3 servers": three.url,
    }
    out: dict[str, Any] = {}
    with httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=600) as http:
        for url_of in (fronts["direct, 1 server"], fronts["nginx, 3 servers"]):
            for name in names:  # every store open where each front sends it (no open timed)
                call(http, url_of(name), "search", "warm-up", limit=1)
    # Interleaved rounds (A B C A B C ...): on a shared machine the load drifts, and one
    # round per front would credit the drift to whichever ran first.
    runs: dict[str, list[dict]] = {label: [] for label in fronts}
    for _ in range(args.route_rounds):
        for label, url_of in fronts.items():
            run = load(url_of, names, args.threads, args.requests, token)
            runs[label].append(run)
            print(f"  {label:20s} {run['per_s']:6.1f} req/s  "
                  f"p50 {run['p50_ms']:.0f} ms  p95 {run['p95_ms']:.0f} ms")  # fmt: skip
    for label, done in runs.items():
        out[label] = {
            "per_s": statistics.median(r["per_s"] for r in done),
            "p50_ms": statistics.median(r["p50_ms"] for r in done),
            "p95_ms": statistics.median(r["p95_ms"] for r in done),
            "runs": done,
        }
    spread = {s.pid: len(s.status(token)["stores"]) for s in servers}
    out["stores_per_server_with_3"] = sorted(spread.values())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--small", type=int, default=20, help="stores for the memory figure")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--route-stores", type=int, default=30)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--requests", type=int, default=50, help="per client thread")
    parser.add_argument("--route-rounds", type=int, default=3)
    parser.add_argument("--model-path", default=os.environ.get("GRAPHMEM_MODEL_PATH",
                                                              DEFAULT_MODEL_PATH))  # fmt: skip
    parser.add_argument("--keep", type=Path, help="build the stores here (reused when present)")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()

    token = secrets.token_urlsafe(32)
    embedder = FastEmbedder(model_path=args.model_path)
    result: dict[str, Any] = {"cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "stores"
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        built = {}
        wanted = [(f"s{n}", n) for n in args.sizes]
        wanted += [(f"small-{i:03d}", 100) for i in range(args.small)]
        wanted += [(f"r{i:02d}", 200) for i in range(args.route_stores)]
        for seed, (name, n) in enumerate(wanted):
            if not (root / name / "graph.kuzu").exists():
                built[name] = build(root / name, n, embedder, seed)
        big = {k: round(v, 1) for k, v in built.items() if k.startswith("s") and "-" not in k}
        print(f"built {len(built)} stores; the sized ones in {big} s")
        with Cluster(root, Path(tmp) / "work", args.model_path, token) as cluster:
            result["memory"] = memory_per_store(cluster, token, args.small)
            print(f"memory: {result['memory']['bytes_per_store'] / (1 << 20):.1f} MB per store "
                  f"of 100 memories, {result['memory']['stores_per_gb']:.0f} per GB")  # fmt: skip
            result["open_on_demand"] = open_on_demand(cluster, token, args.sizes, args.rounds)
            for row in result["open_on_demand"]:
                print(f"open {row['memories']:>7}: first call {row['first_call_s']} s, "
                      f"open {row['open_s']} s, warm {row['warm_call_s'] * 1000:.1f} ms, "
                      f"{row['open_cost_mb']:.0f} MB")  # fmt: skip
            result["routing"] = routing(cluster, token, args)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

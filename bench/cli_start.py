"""What one CLI call costs when no process holds the store, with and without a lingering owner.

``linger=0``: every call opens the store itself (Kùzu, the mirror, the embedding model), as
before. ``linger=60``: the first call starts an owner that stays 60 s after the last call
(graphmem.cli.linger); later calls are its clients. Measured in rounds, each round running the
same calls both ways (the lingering owner is stopped between rounds), with the start of a bare
Python (``python -c pass``) and of ``graphmem --version`` as floors in the same run.

    python bench/cli_start.py [--rounds 3] [--calls 5] [--json bench/results-cli-start.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CALLS = (
    ("recall", ["recall", "who owns the billing service?", "-n", "3", "--json"]),
    ("remember", ["remember", "The staging VPN needs a hardware key ({i})"]),
    ("list", ["list", "-n", "5", "--json"]),
)


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: {done.stderr}")
    return elapsed


def stop_owner(store: Path) -> None:
    """Stop the owner a lingering call left (this benchmark started it) and wait for it."""
    from graphmem import GraphMemory

    sock = store / "graphmem.sock"
    if not sock.exists():
        return
    with GraphMemory(store, read_only=True) as mem:
        owner = mem.owner
    if owner is None:
        return
    pid = int(owner["pid"])
    os.kill(pid, signal.SIGTERM)
    while True:  # a benchmark may poll: it waits for a process it started to exit
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5, help="calls of each command per round")
    parser.add_argument("--json", dest="json_path", default=None)
    args = parser.parse_args()

    from agentmem import world
    from rich.console import Console
    from rich.table import Table

    from graphmem import GraphMemory

    facts, _ = world(seed=1)
    times: dict[str, list[float]] = {}
    first: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "memory"
        with GraphMemory(store) as mem:
            mem.remember_many([{k: v for k, v in f.items() if k != "id"} for f in facts])
        base = {**os.environ, "PYTHONPATH": str(ROOT)}
        cli = [sys.executable, "-m", "graphmem.cli", "-d", str(store)]
        n = 0
        for _ in range(args.rounds):
            for _ in range(args.calls):
                times.setdefault("python -c pass", []).append(
                    timed([sys.executable, "-c", "pass"], base)
                )
                times.setdefault("graphmem --version", []).append(timed([*cli, "--version"], base))
            for mode, linger in (("linger=0", "0"), ("linger=60", "60")):
                env = {**base, "GRAPHMEM_LINGER": linger}
                started = False
                for _ in range(args.calls):
                    for name, argv in CALLS:
                        n += 1
                        elapsed = timed([*cli, *(a.format(i=n) for a in argv)], env)
                        if mode == "linger=60" and not started:
                            first.append(elapsed)  # this call started the owner
                            started = True
                            continue
                        times.setdefault(f"{name} {mode}", []).append(elapsed)
                stop_owner(store)

    summary: dict[str, Any] = {
        key: {"median_s": round(statistics.median(v), 3), "min_s": round(min(v), 3), "n": len(v)}
        for key, v in times.items()
    }
    summary["first call linger=60 (starts the owner)"] = {
        "median_s": round(statistics.median(first), 3),
        "min_s": round(min(first), 3),
        "n": len(first),
    }
    for name, _ in CALLS:
        cold = summary[f"{name} linger=0"]["median_s"]
        warm = summary[f"{name} linger=60"]["median_s"]
        summary[f"{name} speed-up"] = round(cold / warm, 2)
    table = Table(title=f"CLI calls on a store of {len(facts)} memories (seconds)")
    for col in ("call", "median", "min", "n"):
        table.add_column(col, justify="right")
    for key, s in summary.items():
        if isinstance(s, dict):
            table.add_row(key, str(s["median_s"]), str(s["min_s"]), str(s["n"]))
        else:
            table.add_row(key, f"{s}x", "", "")
    Console(width=120).print(table)
    if args.json_path:
        out = {
            "command": "python bench/cli_start.py " + " ".join(sys.argv[1:]),
            "memories": len(facts),
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
            "results": summary,
        }
        Path(args.json_path).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""How each cost grows with the store: ingest, open, RSS, search and recall, cluster rebuild.

For each size (1k, 10k, 100k by default; ``--million`` adds 1M) a fresh store is filled with
``remember_many`` from bench/corpus.py, then measured:

- ingest: memories/s for the first and the last tenth of the ingest (flat ingest keeps the
  two close), against the raw batched embedding rate of the same texts measured in the same
  run; single ``remember`` against embedding its text alone.
- open: a fresh process opens the closed store (the mirror comes from its snapshot) and
  reports the time and its RSS after the open (the embedding model not loaded), then the
  time of its first search (a stored vector as the query: at 50k and more this reads the
  approximate index from the snapshot) and the RSS after it.
- search / recall p50 and p95 over ``--q`` questions, against the floor: embed the question
  plus an exact scan of every vector (``Mirror.similarities`` + top 10).
- recall@10 of the approximate index against exact search (stores ≥ ``ann.ANN_MIN``).
- cluster rebuild: ``mem.rebuild_clusters()``.
- with ``--viz``: what ``graphmem viz`` costs on the store (bench/viz.py): page generation
  time and size, first paint in headless Chromium, opening a cluster in a served page.

Embedding dominates ingest on a small machine (about 100 texts/s on 2 shared cores), so a 100k
ingest takes half an hour of embedding alone. ``--vectors FILE.npy`` embeds the corpus once into
FILE (or reuses it) and ingests with those embeddings; the ingest columns then measure
graphmem's own cost per memory, and "× raw" is computed as 1 / (1 + overhead / embed time).

A million texts would take 3.5 hours to embed here, so ``--derive-vectors`` (with ``--vectors``
holding the real embeddings of the first 100k items) derives the rest: an exact repeat of a text
gets the vector of its first occurrence (so the content-hash dedupe behaves as with real
vectors); every other text gets ``normalise(0.8·a + 0.3·b + 0.5·noise)``, with ``a`` the real
vector of an item of the same kind about the same entity (its first tag), ``b`` one of the same
kind, and unit Gaussian noise, all drawn from a fixed seed. The nearest neighbour of such a
vector is at cosine 0.81-0.86 (p10-p90) where real texts of this corpus have 0.86-0.99, so the
store grows as with distinct texts (1% reach ``dedupe_threshold`` 0.95, where the text check
decides). Caveat: the approximate index's recall@10 and the near-duplicate, conflict and
related-link rates on derived vectors are not those of real text; the costs (open, RSS, search
and recall latency, ingest) are those of a store of that size.

``--build-only`` stops after the ingest (its figures go to ``<keep>/s<n>.build.json``),
``--resume`` continues a stopped build where it left off, and ``--measure-only --keep DIR``
measures the stores kept there without building them again. Above ``recall.SPARSE_MIN`` the
measure also runs every question through recall with every similarity exact and reports how
many of the top 10 agree ("recall vs exact").

    python bench/scale.py --sizes 1000 10000                 # about 10 minutes here
    python bench/scale.py --sizes 1000 10000 100000 --vectors /tmp/vec100k.npy --plot scale.png
    nice -n 10 python bench/scale.py --sizes 1000000 --vectors vec100000.npy --derive-vectors \
        --keep /tmp/million --build-only                    # about an hour here
    python bench/scale.py --sizes 1000000 --keep /tmp/million --measure-only --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import corpus as corpus_mod  # noqa: E402
import numpy as np  # noqa: E402
from corpus import memories, queries  # noqa: E402
from tables import markdown  # noqa: E402

from graphmem import GraphMemory  # noqa: E402
from graphmem.config import DEFAULT_MODEL  # noqa: E402
from graphmem.embed import FastEmbedder  # noqa: E402
from graphmem.index import ann as ann_mod  # noqa: E402
from graphmem.index.mirror import Filters, best  # noqa: E402
from graphmem.recall import cascade as recall_mod  # noqa: E402
from graphmem.write.items import content_hash  # noqa: E402

DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")

_OPEN_CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
t = time.perf_counter()
from graphmem import GraphMemory
imported = time.perf_counter() - t
t = time.perf_counter()
mem = GraphMemory({path!r}, model_path={model!r})
opened = time.perf_counter() - t
# VmRSS, not ru_maxrss: Linux keeps the parent's peak across fork and exec.
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024
after_open = rss()
# The first search reads the approximate index (big stores) from the snapshot: its cost and
# the RSS after it, without the embedding model (a stored vector is the query).
from graphmem.index.mirror import Filters
mirror = mem._mirror
t = time.perf_counter()
if mirror.size:
    mirror.top_k(mirror.vectors[0].copy(), mirror.mask(Filters()), 10)
searched = time.perf_counter() - t
print(json.dumps({{"open_s": opened, "import_s": imported, "rss_mb": after_open,
                  "first_search_s": searched, "rss_search_mb": rss(),
                  "from_snapshot": mem._shared.from_snapshot}}))
mem.close()
"""


class CachedEmbedder:
    """Embeddings looked up by text from a precomputed matrix (``--vectors``)."""

    def __init__(self, texts: list[str], vectors: np.ndarray, model: FastEmbedder) -> None:
        self.model_name, self.dim, self._model = model.model_name, model.dim, model
        self._row = {t: i for i, t in enumerate(texts)}
        self._vectors = vectors

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = [self._row.get(t) for t in texts]
        if any(r is None for r in rows):
            return self._model.embed(texts)
        return self._vectors[rows]


def pct(ms: list[float], p: float) -> float:
    ordered = sorted(ms)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def embed_all(model: FastEmbedder, texts: list[str], cache: Path | None) -> np.ndarray | None:
    if cache is None:
        return None
    if cache.exists():
        vectors = np.load(cache)
        if len(vectors) >= len(texts):
            return vectors[: len(texts)]
        raise SystemExit(f"{cache} holds {len(vectors)} vectors; the corpus needs {len(texts)}")
    out = np.concatenate([model.embed(texts[i : i + 2048]) for i in range(0, len(texts), 2048)])
    np.save(cache, out)
    return out


# normalise(MIX_SAME·a + MIX_KIND·b + NOISE·g): see the module docstring (--derive-vectors).
MIX_SAME, MIX_KIND, NOISE = 0.8, 0.3, 0.5


def derive_vectors(items: list[dict], real: np.ndarray, seed: int = 0) -> np.ndarray:
    """Vectors for every item: the real ones for the first ``len(real)``, derived for the rest
    (an exact repeat of a text gets the vector of its first occurrence)."""
    n_real = len(real)
    first: dict[str, int] = {}
    same: dict[tuple[str, str], list[int]] = {}
    by_kind: dict[str, list[int]] = {}
    for i, it in enumerate(items[:n_real]):
        first.setdefault(it["content"], i)
        same.setdefault((it["kind"], it["tags"][0]), []).append(i)
        by_kind.setdefault(it["kind"], []).append(i)
    rng = np.random.default_rng(seed)
    out = np.empty((len(items), real.shape[1]), dtype=np.float32)
    out[:n_real] = real
    repeats: list[tuple[int, int]] = []
    rows, same_rows, kind_rows = [], [], []
    for i in range(n_real, len(items)):
        it = items[i]
        if (j := first.get(it["content"])) is not None:
            repeats.append((i, j))
            continue
        first[it["content"]] = i
        pool = (same.get((it["kind"], it["tags"][0])) or same.get((it["kind"], it["tags"][-1]))
                or by_kind[it["kind"]])  # fmt: skip
        kinds = by_kind[it["kind"]]
        rows.append(i)
        same_rows.append(pool[int(rng.integers(len(pool)))])
        kind_rows.append(kinds[int(rng.integers(len(kinds)))])
    at, a, b = np.asarray(rows), np.asarray(same_rows), np.asarray(kind_rows)
    for s in range(0, len(at), 65_536):
        part = slice(s, s + 65_536)
        noise = rng.standard_normal((len(at[part]), real.shape[1])).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        v = MIX_SAME * real[a[part]] + MIX_KIND * real[b[part]] + NOISE * noise
        out[at[part]] = v / np.linalg.norm(v, axis=1, keepdims=True)
    for i, j in repeats:
        out[i] = out[j]
    return out


def resume_at(mem: GraphMemory, items: list[dict], tenth: int, batch: int = 512) -> int:
    """Where a stopped build of these items left off (``--resume``): the first batch of which
    fewer than half the texts are stored (a text may repeat an earlier one, so a few of every
    batch are; a near-duplicate merged into another memory is not)."""
    hashes = mem._mirror.by_hash
    for s in range(0, len(items), tenth):
        for b in range(s, min(s + tenth, len(items)), batch):
            texts = items[b : min(b + batch, s + tenth)]
            stored = sum(hashes.get(content_hash(t["content"])) is not None for t in texts)
            if 2 * stored < len(texts):
                return b
    return len(items)


def rss_mb() -> float:
    # VmRSS, not ru_maxrss: the current size, not the peak.
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024


def measure(
    n: int,
    corpus: list[dict],
    cached: np.ndarray | None,
    args: argparse.Namespace,
    model: FastEmbedder,
    tmp: Path,
) -> dict:
    path = tmp / f"s{n}"
    row = build(n, corpus, cached, args, model, path)
    if args.build_only:
        return row
    return row | measure_store(path, args, model)


def build(
    n: int,
    corpus: list[dict],
    cached: np.ndarray | None,
    args: argparse.Namespace,
    model: FastEmbedder,
    path: Path,
) -> dict:
    """Fill a store with the first ``n`` items; the ingest figures (also in s<n>.build.json)."""
    # Every size takes a prefix of one corpus, so one --vectors file serves them all.
    items = [dict(it) for it in corpus[:n]]
    texts = [it["content"] for it in items]
    sample = texts[: min(n, 1000)]
    start = time.perf_counter()
    model.embed(sample)
    embed_per_s = len(sample) / (time.perf_counter() - start)
    row: dict = {"size": n, "raw_embed_per_s": round(embed_per_s, 1)}
    vectors = None if cached is None else cached[:n]
    embedder = CachedEmbedder(texts, vectors, model) if vectors is not None else model
    tenth = max(n // 10, 1)
    rates = []
    with GraphMemory(path, embedder=embedder) as mem:
        resumed = resume_at(mem, items, tenth) if args.resume else 0
        if resumed:
            row["resumed_at"] = resumed
        begin = time.perf_counter()
        for s in range(0, n, tenth):
            if s + tenth <= resumed:
                continue
            t = time.perf_counter()
            mem.remember_many(items[max(s, resumed) : s + tenth], batch_size=512)
            rates.append(len(items[max(s, resumed) : s + tenth]) / (time.perf_counter() - t))
            # Progress: a 1M build runs for an hour.
            print(json.dumps({"size": n, "done": s + len(items[s : s + tenth]),
                              "per_s": round(rates[-1], 1), "rss_mb": round(rss_mb()),
                              "stored": mem._mirror.size, "at": f"{datetime.now():%H:%M:%S}"}),
                  file=sys.stderr, flush=True)  # fmt: skip
        total = time.perf_counter() - begin
        mem.flush()
        row["ingest_per_s"] = round((n - resumed) / total, 1)
        row["ingest_first_tenth_per_s"] = round(rates[0], 1)
        row["ingest_last_tenth_per_s"] = round(rates[-1], 1)
        if vectors is not None:
            overhead = 1 / row["ingest_per_s"]
            row["x_raw_embed"] = round((1 / embed_per_s) / (1 / embed_per_s + overhead), 2)
            row["flat_last_over_first"] = round(rates[-1] / rates[0], 2)
        else:
            row["x_raw_embed"] = round(row["ingest_per_s"] / embed_per_s, 2)
            row["flat_last_over_first"] = round(rates[-1] / rates[0], 2)
        # single remember against embedding its text alone (real model either way)
        one, emb = [], []
        for i, it in enumerate(memories(30, seed=args.seed + 1, with_ids=False)):
            text = f"{it['content']} (note {i})"
            t = time.perf_counter()
            model.embed([text + " x"])
            emb.append(time.perf_counter() - t)
            t = time.perf_counter()
            mem.remember(text) if vectors is None else mem.remember_many([{"content": text}])
            one.append(time.perf_counter() - t)
        row["remember_ms"] = round(1000 * statistics.median(one), 1)
        row["embed_one_ms"] = round(1000 * statistics.median(emb), 1)
        row["build_rss_mb"] = round(rss_mb())
        active = mem._mirror.active[: mem._mirror.size] & mem._mirror.alive[: mem._mirror.size]
        row["active_memories"] = int(active.sum())
    path.with_name(f"{path.name}.build.json").write_text(json.dumps(row, indent=2))
    return row


def measure_store(path: Path, args: argparse.Namespace, model: FastEmbedder) -> dict:
    """Open in a fresh process (from the snapshot the build left), search and recall latency,
    then a cluster rebuild (last: it rewrites every InCluster edge, and the snapshot)."""
    row: dict = {}
    child = _OPEN_CHILD.format(root=str(ROOT), path=str(path), model=args.model_path)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    row.update(json.loads(out.stdout.strip().splitlines()[-1]))
    print(json.dumps(row), file=sys.stderr, flush=True)
    row.update(query_latency(path, args, model))
    print(json.dumps(row), file=sys.stderr, flush=True)
    if not args.no_clusters:
        row.update(rebuild_while_recalling(path, args, model))
    return row


def rebuild_while_recalling(path: Path, args: argparse.Namespace, model: FastEmbedder) -> dict:
    """A cluster rebuild, while another thread recalls: how long the rebuild takes, and how
    long a recall waits behind it (a rebuild runs every ``cluster_every_recalls`` recalls and
    whenever the store grew by a quarter, so its waits are the recall tail of a busy store)."""
    qs = queries(args.q, seed=13)
    done = threading.Event()
    waits: list[float] = []

    # The writer first: a read-only handle opened first would open the database read-only.
    with (
        GraphMemory(path, embedder=model) as mem,
        GraphMemory(path, embedder=model, read_only=True) as reader,
    ):
        reader.recall(qs[0])  # warm

        def recall_until_done() -> None:
            i = 0
            while not done.is_set():
                t = time.perf_counter()
                reader.recall(qs[i % len(qs)], limit=10)
                waits.append(1000 * (time.perf_counter() - t))
                i += 1

        other = threading.Thread(target=recall_until_done)
        other.start()
        start = time.perf_counter()
        try:
            mem.rebuild_clusters()
        finally:
            rebuilt = time.perf_counter() - start
            done.set()
            other.join()
    return {
        "cluster_rebuild_s": round(rebuilt, 1),
        "recalls_during_rebuild": len(waits),
        "recall_during_rebuild_p50_ms": round(pct(waits, 0.5), 1) if waits else None,
        "recall_during_rebuild_max_ms": round(max(waits), 1) if waits else None,
    }


def query_latency(path: Path, args: argparse.Namespace, model: FastEmbedder) -> dict:
    qs = queries(args.q + 5, seed=11)
    with GraphMemory(path, embedder=model, read_only=True) as mem:
        mirror = mem._mirror
        mask = mirror.mask(Filters())
        rows: dict[str, list[float]] = {"floor": [], "search": [], "recall": []}
        hits = total = 0
        recalled: list[list[str]] = []
        for i, q in enumerate(qs):
            t = time.perf_counter()
            vec = model.embed([q])[0]
            exact = best(mirror.similarities(vec), mask, 10)
            floor = time.perf_counter() - t
            t = time.perf_counter()
            mem.search(q, limit=10)
            search = time.perf_counter() - t
            t = time.perf_counter()
            found = mem.recall(q, limit=10)
            recall = time.perf_counter() - t
            recalled.append([h.memory.id for h in found])
            if i < 5:
                continue  # warm-up
            rows["floor"].append(1000 * floor)
            rows["search"].append(1000 * search)
            rows["recall"].append(1000 * recall)
            if mirror.size >= ann_mod.ANN_MIN:
                approx = mirror.top_k(vec, mask, 10)
                hits += len({s for s, _ in approx} & {s for s, _ in exact})
                total += len(exact)
        sparse = mirror.size >= recall_mod.SPARSE_MIN
        if sparse:
            # What recall loses by comparing the context only with the memories near it:
            # the same questions with every similarity exact.
            limit, recall_mod.SPARSE_MIN = recall_mod.SPARSE_MIN, 1 << 62
            try:
                exact_ids = [[h.memory.id for h in mem.recall(q, limit=10)] for q in qs]
            finally:
                recall_mod.SPARSE_MIN = limit
    # What the store holds (a stopped build holds fewer than its size).
    out = {"stored_memories": mirror.size, "active_memories": int(mask.sum())}
    if sparse:
        pairs = list(zip(recalled, exact_ids, strict=True))[5:]
        out["recall_overlap_exact_at_10"] = round(
            sum(len(set(a) & set(b)) for a, b in pairs) / max(1, sum(len(b) for _, b in pairs)), 3
        )
        out["recall_top1_as_exact"] = round(sum(a[:1] == b[:1] for a, b in pairs) / len(pairs), 3)
    for name, ms in rows.items():
        out[f"{name}_p50_ms"] = round(pct(ms, 0.5), 1)
        out[f"{name}_p95_ms"] = round(pct(ms, 0.95), 1)
        out[f"{name}_max_ms"] = round(max(ms), 1)
    out["search_p50_x_floor"] = round(out["search_p50_ms"] / out["floor_p50_ms"], 2)
    out["recall_p50_x_floor"] = round(out["recall_p50_ms"] / out["floor_p50_ms"], 2)
    out["ann_recall_at_10"] = round(hits / total, 4) if total else None
    return out


COLUMNS = (
    ("size", "memories"), ("active_memories", "active"), ("ingest_per_s", "ingest/s"), ("x_raw_embed", "× raw embed"),
    ("flat_last_over_first", "last/first tenth"), ("remember_ms", "remember ms"),
    ("embed_one_ms", "embed 1 ms"), ("open_s", "open s"), ("rss_mb", "RSS MB"),
    ("first_search_s", "1st search s"), ("rss_search_mb", "RSS after"),
    ("search_p50_ms", "search p50"), ("search_p95_ms", "p95"),
    ("search_p50_x_floor", "× floor"), ("recall_p50_ms", "recall p50"), ("recall_p95_ms", "p95"), ("recall_max_ms", "max"),
    ("recall_p50_x_floor", "× floor"), ("ann_recall_at_10", "ANN r@10"),
    ("recall_overlap_exact_at_10", "recall vs exact"),
    ("cluster_rebuild_s", "clusters s"), ("recall_during_rebuild_max_ms", "recall max during it ms"),
)  # fmt: skip


def plot(rows: list[dict], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["size"] for r in rows]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    panels = [
        ("ingest memories/s", ["ingest_first_tenth_per_s", "ingest_last_tenth_per_s",
                               "raw_embed_per_s"]),
        ("open s", ["open_s"]), ("RSS after open, MB", ["rss_mb", "rss_search_mb"]),
        ("search ms", ["floor_p50_ms", "search_p50_ms", "search_p95_ms"]),
        ("recall ms", ["floor_p50_ms", "recall_p50_ms", "recall_p95_ms"]),
        ("cluster rebuild s", ["cluster_rebuild_s"]),
    ]  # fmt: skip
    for ax, (title, keys) in zip(axes.flat, panels, strict=True):
        for key in keys:
            ax.plot(sizes, [r.get(key) for r in rows], marker="o", label=key)
        ax.set_xscale("log")
        ax.set_title(title)
        ax.set_xlabel("memories")
        if len(keys) > 1:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def viz_step(stores: list[Path], json_path: str | None) -> list[dict]:
    """bench/viz.py on each store: page generation, size and first paint (headless Chromium)."""
    from playwright.sync_api import sync_playwright

    import viz as viz_bench

    rows = []
    with sync_playwright() as pw:
        browser = viz_bench.launch(pw)
        try:
            for store in stores:
                rows.append(viz_bench.measure_store(store, browser=browser))
                print(json.dumps(rows[-1]), flush=True)
        finally:
            browser.close()
    print("\ngraphmem viz\n")
    print(markdown(rows, viz_bench.COLUMNS))
    if json_path:
        Path(json_path).write_text(json.dumps({"viz": rows}, indent=2))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--million", action="store_true", help="add a 1,000,000-memory store")
    parser.add_argument("--q", type=int, default=60, help="questions per size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vectors", help="embed the corpus once into this .npy and reuse it")
    parser.add_argument("--model-path", default=DEFAULT_MODEL_PATH)
    parser.add_argument("--json", dest="json_path", help="also write the rows here")
    parser.add_argument("--plot", help="draw the curves into this PNG (needs matplotlib)")
    parser.add_argument("--keep", help="build the stores in this folder and keep them")
    parser.add_argument(
        "--viz", action="store_true", help="also measure graphmem viz per size (bench/viz.py)"
    )
    parser.add_argument(
        "--viz-only", action="store_true",
        help="only the viz step, on the stores already kept in --keep (no ingest)",
    )  # fmt: skip
    parser.add_argument(
        "--derive-vectors",
        action="store_true",
        help="derive the vectors of items past the --vectors file (see above; never writes it)",
    )
    parser.add_argument("--build-only", action="store_true", help="stop after the ingest")
    parser.add_argument("--no-clusters", action="store_true", help="no cluster rebuild")
    parser.add_argument(
        "--resume", action="store_true",
        help="continue a stopped build kept in --keep where it left off (figures: the rest)",
    )  # fmt: skip
    parser.add_argument(
        "--measure-only", action="store_true",
        help="measure the stores kept in --keep (s<size>) without building them",
    )  # fmt: skip
    args = parser.parse_args()
    if args.measure_only:
        if not args.keep:
            parser.error("--measure-only needs --keep DIR holding s<size> stores")
        measure_only(args, sorted(set(args.sizes + ([1_000_000] if args.million else []))))
        return
    if args.derive_vectors and not (args.vectors and Path(args.vectors).exists()):
        parser.error("--derive-vectors needs --vectors FILE.npy holding real embeddings")
    if args.viz_only:
        if not args.keep:
            parser.error("--viz-only needs --keep DIR holding s<size> stores")
        viz_step([Path(args.keep) / f"s{n}" for n in sorted(set(args.sizes))], args.json_path)
        return
    sizes = sorted(set(args.sizes + ([1_000_000] if args.million else [])))
    model = FastEmbedder(DEFAULT_MODEL, model_path=args.model_path)
    model.embed(["warm-up"] * 8)
    rows = []
    with tempfile.TemporaryDirectory(dir=args.keep) as tmp:
        if args.keep:
            tmp = args.keep
        # Derived vectors continue the real ones: the corpus must start with the items embedded.
        longest = max(max(sizes), corpus_mod.BASE) if args.derive_vectors else max(sizes)
        corpus = memories(longest, seed=args.seed, with_ids=False)
        cached = None
        if args.derive_vectors:
            cached = derive_vectors(corpus, np.load(args.vectors))
        elif args.vectors:
            cached = embed_all(model, [it["content"] for it in corpus], Path(args.vectors))
        for n in sizes:
            rows.append(measure(n, corpus, cached, args, model, Path(tmp)))
            print(json.dumps(rows[-1]), flush=True)
        viz_rows = viz_step([Path(tmp) / f"s{n}" for n in sizes], None) if args.viz else []
    report(rows, args, viz_rows)


def measure_only(args: argparse.Namespace, sizes: list[int]) -> None:
    model = FastEmbedder(DEFAULT_MODEL, model_path=args.model_path)
    model.embed(["warm-up"] * 8)
    rows = []
    for n in sizes:
        path = Path(args.keep) / f"s{n}"
        built = path.with_name(f"{path.name}.build.json")
        row = json.loads(built.read_text()) if built.exists() else {"size": n}
        rows.append(row | measure_store(path, args, model))
        print(json.dumps(rows[-1]), flush=True)
    report(rows, args, [])


def report(rows: list[dict], args: argparse.Namespace, viz_rows: list[dict]) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"\n{platform.machine()}, {cores} cores, {datetime.now():%Y-%m-%d}\n")
    print(markdown(rows, COLUMNS))
    if args.json_path:
        data = {"cores": cores, "rows": rows} | ({"viz": viz_rows} if viz_rows else {})
        Path(args.json_path).write_text(json.dumps(data, indent=2))
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()

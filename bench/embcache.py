"""Embeddings cached on disk by text, for benchmarks that embed the same texts run after run.

LongMemEval's 100 haystacks hold 49k turns (47k distinct texts, ~1,000 characters each): about
half an hour of embedding on two shared cores. ``CachedEmbedder`` answers the texts it has seen
from ``bench/results/embeddings/<name>.npz`` (gitignored) and embeds only the rest; ``save``
writes what it learnt. The cache is keyed by the SHA-1 of the text and by the model's name, so
a different model never reads another's vectors.

    python bench/embcache.py longmemeval     # fill the LongMemEval cache (resumable)
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = ROOT / "bench" / "results" / "embeddings"


def key(text: str) -> str:
    # Hex, not raw bytes: numpy's fixed-width bytes drop a digest's trailing NUL bytes.
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class CachedEmbedder:
    """An ``Embedder`` (graphmem.embed) that looks texts up before embedding them."""

    def __init__(self, model: object, path: Path) -> None:
        self._model = model
        self.model_name: str = model.model_name  # type: ignore[attr-defined]
        self.dim: int = model.dim  # type: ignore[attr-defined]
        self.path = path
        self._known: dict[str, np.ndarray] = self._read()
        self._fresh: set[str] = set()

    def _read(self) -> dict[str, np.ndarray]:
        if not self.path.exists():
            return {}
        with np.load(self.path) as data:
            if str(data["model"]) != self.model_name:
                return {}
            keys, vectors = data["keys"], data["vectors"]
            if len(keys) != len(vectors):
                raise SystemExit(f"{self.path}: {len(keys)} keys for {len(vectors)} vectors")
            return {str(k): v for k, v in zip(keys, vectors, strict=True)}

    def __len__(self) -> int:
        return len(self._known)

    def known(self, text: str) -> bool:
        return key(text) in self._known

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._known}
        if todo:
            fresh = self._model.embed(list(todo.values()))  # type: ignore[attr-defined]
            for k, vec in zip(todo, fresh, strict=True):
                self._known[k] = np.asarray(vec, dtype=np.float32)
            self._fresh.update(todo)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._known[k] for k in keys])

    def save(self) -> None:
        """Add what this process embedded to the file, keeping what another process wrote to
        it meanwhile (under a lock: a filler and a quality run may both save)."""
        if not self._fresh:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            merged = self._read()
            merged.update({k: self._known[k] for k in self._fresh})
            tmp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp.npz")
            keys = list(merged)
            np.savez(tmp, vectors=np.stack([merged[k] for k in keys]),
                     keys=np.array(keys, dtype="U40"), model=np.array(self.model_name))  # fmt: skip
            tmp.replace(self.path)
            self._known.update(merged)
            self._fresh.clear()


def default_model_path() -> str:
    """``GRAPHMEM_MODEL_PATH``, else the shared MiniLM beside the bench data."""
    from longmemeval import data_dir

    env = os.environ.get("GRAPHMEM_MODEL_PATH")
    return env or str(data_dir().parent / "models" / "all-MiniLM-L6-v2-onnx")


def cached(name: str, model_path: str | None) -> CachedEmbedder:
    from graphmem.embed import FastEmbedder

    return CachedEmbedder(FastEmbedder(model_path=model_path), CACHE_DIR / f"{name}.npz")


def fill(embedder: CachedEmbedder, texts: list[str], chunk: int = 1024) -> None:
    """Embed every text the cache lacks, saving after each chunk (an interrupted run resumes)."""
    todo = list(dict.fromkeys(t for t in texts if not embedder.known(t)))
    start = time.perf_counter()
    for i in range(0, len(todo), chunk):
        embedder.embed(todo[i : i + chunk])
        embedder.save()
        done = i + len(todo[i : i + chunk])
        rate = done / (time.perf_counter() - start)
        print(f"{done}/{len(todo)} embedded, {rate:.1f}/s", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", choices=["longmemeval"])
    parser.add_argument("--model-path", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from longmemeval import all_texts, load, subset

    embedder = cached(args.name, args.model_path or default_model_path())
    # What ``quality.py --subset 20`` reads first (its S questions, its two M stores), so
    # iterating can start before the whole set is embedded.
    questions, _ = load()
    first = set(subset(20, len(questions))) | set(range(10)) | set(range(50, 60))
    early = [it["content"] for i in sorted(first) for it in questions[i].items]
    fill(embedder, early + all_texts())


if __name__ == "__main__":
    main()

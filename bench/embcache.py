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
import hashlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = ROOT / "bench" / "results" / "embeddings"


def key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


class CachedEmbedder:
    """An ``Embedder`` (graphmem.embed) that looks texts up before embedding them."""

    def __init__(self, model: object, path: Path) -> None:
        self._model = model
        self.model_name: str = model.model_name  # type: ignore[attr-defined]
        self.dim: int = model.dim  # type: ignore[attr-defined]
        self.path = path
        self._rows: dict[bytes, int] = {}
        self._vectors = np.zeros((0, self.dim), dtype=np.float32)
        self._fresh: list[np.ndarray] = []
        self._fresh_keys: list[bytes] = []
        if path.exists():
            with np.load(path) as data:
                if str(data["model"]) == self.model_name:
                    self._vectors = data["vectors"]
                    keys = data["keys"]
                    self._rows = {bytes(k): i for i, k in enumerate(keys)}
        self._keys = [k for k, _ in sorted(self._rows.items(), key=lambda kv: kv[1])]

    def __len__(self) -> int:
        return len(self._rows)

    def known(self, text: str) -> bool:
        return key(text) in self._rows

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [key(t) for t in texts]
        todo = list(dict.fromkeys(k for k in keys if k not in self._rows))
        if todo:
            first = {k: t for k, t in zip(keys, texts, strict=True)}
            fresh = self._model.embed([first[k] for k in todo])  # type: ignore[attr-defined]
            start = len(self._vectors) + sum(len(f) for f in self._fresh)
            for i, k in enumerate(todo):
                self._rows[k] = start + i
            self._fresh.append(np.asarray(fresh, dtype=np.float32))
            self._fresh_keys.extend(todo)
            self._merge()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._vectors[[self._rows[k] for k in keys]]

    def _merge(self) -> None:
        if self._fresh:
            self._vectors = np.concatenate([self._vectors, *self._fresh])
            self._keys.extend(self._fresh_keys)
            self._fresh, self._fresh_keys = [], []

    def save(self) -> None:
        """Write the cache, keeping what another process wrote to it meanwhile."""
        self._merge()
        if self.path.exists():
            with np.load(self.path) as data:
                if str(data["model"]) == self.model_name:
                    theirs = [i for i, k in enumerate(data["keys"]) if bytes(k) not in self._rows]
                    if theirs:
                        self._fresh.append(data["vectors"][theirs])
                        self._fresh_keys.extend(bytes(data["keys"][i]) for i in theirs)
                        for j, i in enumerate(theirs):
                            self._rows[bytes(data["keys"][i])] = len(self._vectors) + j
                        self._merge()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, vectors=self._vectors, keys=np.array(self._keys, dtype="S20"),
                 model=np.array(self.model_name))  # fmt: skip
        tmp.replace(self.path)


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
    from longmemeval import all_texts

    embedder = cached(args.name, args.model_path or default_model_path())
    fill(embedder, all_texts())


if __name__ == "__main__":
    main()

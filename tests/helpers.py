"""Test helpers: a fake embedding model and in-process reads of a store's database."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import numpy as np


def db_rows(mem: Any, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Rows of a read-only query on the database of a store this process owns.

    What the tests of the write path, journal and maintenance check in the database, read in
    this process: ``mem.cypher`` would start a sandbox worker process per store (about a
    second on a loaded machine) for a check that is not about Cypher. The engine applies
    the write-behind journal first, as ``cypher`` does, so no acknowledged write is missed.
    ``cypher`` itself, its sandbox and its client path are tested in test_cypher_guard.py,
    test_cypher_sandbox.py, test_api.py and test_processes.py.
    """
    if mem.owner is not None:
        # A client has no database in this process: its owner runs the query (in a sandbox).
        return mem.cypher(query, params)
    return mem._store.engine.rows(query, params)


class HashEmbedder:
    """A deterministic stand-in for the embedding model, for tests of logic that does not
    depend on the model's semantics (as llm's tests use a mock model).

    A text's vector is a signed feature hash of its words and its words' character trigrams,
    L2-normalised, 384 dimensions like all-MiniLM-L6-v2: texts sharing words are near
    ("The timeout is 30 seconds" / "The timeout is 45 seconds"), texts sharing none are about
    orthogonal, and the same text always gives the same vector in every process. It knows no
    synonyms, so it lives here and never in the product: a store built with it records its
    own model name, and opening that store with the real model is refused.
    """

    model_name = "test-hash-embedder"
    dim = 384

    def __init__(self) -> None:
        self._cache: dict[str, np.ndarray] = {}

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = re.findall(r"\w+", text.lower())
        features = [(f"w:{w}", 1.0) for w in words]
        for w in words:
            padded = f" {w} "
            features += [(f"c:{padded[i : i + 3]}", 0.25) for i in range(len(padded) - 2)]
        return features or [("empty", 1.0)]

    def _vector(self, text: str) -> np.ndarray:
        row = self._cache.get(text)
        if row is None:
            row = np.zeros(self.dim, dtype=np.float32)
            for feature, weight in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dim
                row[index] += weight if digest[4] & 1 else -weight
            norm = float(np.linalg.norm(row))
            # Features that cancel out exactly still give a unit row (the protocol's promise).
            row = row / norm if norm else np.eye(1, self.dim, dtype=np.float32)[0]
            self._cache[text] = row
        return row

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)

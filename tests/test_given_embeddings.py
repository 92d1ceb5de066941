"""remember_many items may carry an embedding computed elsewhere (a big ingest embedded on
other workers): used as given, never embedded again, and checked against the store's model
and dimension first, so a bad vector leaves the store unchanged."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem import EmbedderMismatchError, GraphMemory, ValidationError
from graphmem.embed import FastEmbedder

TEXTS = [
    "The payments service retries a failed charge three times",
    "Invoices are archived to cold storage after ninety days",
    "The on-call rotation changes every Monday at nine",
]


class Counting:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner: FastEmbedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts)


@pytest.fixture
def counting(model_path: str) -> Counting:
    return Counting(FastEmbedder(model_path=model_path))


@pytest.fixture
def store(tmp_path: Path, counting: Counting):
    with GraphMemory(tmp_path / "given", embedder=counting) as mem:
        yield mem


def test_given_embeddings_are_stored_as_given_and_not_embedded_again(store, counting) -> None:
    vectors = counting.inner.embed(TEXTS)
    before = counting.texts
    items = [
        {"content": t, "embedding": v, "embedding_model": counting.model_name}
        for t, v in zip(TEXTS, vectors, strict=True)
    ]
    results = store.remember_many(items)
    assert counting.texts == before  # nothing embedded by the store
    for result, vector in zip(results, vectors, strict=True):
        stored = store.get(result.id, with_embedding=True).embedding
        assert np.allclose(stored, vector, atol=1e-6)
    # They are found like any other memory.
    assert store.search("how often is a failed charge retried?")[0].memory.content == TEXTS[0]


def test_a_given_embedding_is_made_unit_length(store, counting) -> None:
    vector = counting.inner.embed([TEXTS[1]])[0] * 7.5
    made = store.remember(TEXTS[1], embedding=vector.tolist())
    stored = np.asarray(store.get(made.id, with_embedding=True).embedding)
    assert math.isclose(float(np.linalg.norm(stored)), 1.0, rel_tol=1e-5)


@pytest.mark.parametrize(
    ("embedding", "message"),
    [
        ([0.1] * 383, "383 dimensions"),
        ([0.1] * 385, "385 dimensions"),
        ([0.1] * 383 + [math.nan], "not finite"),
        ([0.1] * 383 + [math.inf], "not finite"),
        ([0.0] * 384, "all zeros"),
        ("0.1, 0.2", "list of numbers"),
        ([[0.1] * 384], "flat list"),
        (["a"] * 384, "flat list of numbers"),
        ([], "1 to"),
        (12, "list of numbers"),
    ],
)
def test_a_bad_embedding_is_refused_and_nothing_is_written(
    store, counting, embedding, message
) -> None:
    good = counting.inner.embed(TEXTS[:2])
    items = [
        {"content": TEXTS[0], "embedding": good[0]},
        {"content": TEXTS[1], "embedding": good[1]},
        {"content": TEXTS[2], "embedding": embedding},
    ]
    with pytest.raises(ValidationError, match=message) as err:
        store.remember_many(items)
    if "dimensions" in message:
        assert "item 2" in str(err.value)
    assert store.stats().memories == 0


def test_an_embedding_of_another_model_is_refused(store, counting) -> None:
    vector = counting.inner.embed([TEXTS[0]])[0]
    with pytest.raises(EmbedderMismatchError, match=r"BAAI/bge-small-en-v1\.5"):
        store.remember(TEXTS[0], embedding=vector, embedding_model="BAAI/bge-small-en-v1.5")
    assert store.stats().memories == 0

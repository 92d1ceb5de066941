"""The test helpers keep their promises: the fake embedder is deterministic, unit-length and
puts texts sharing words nearer than texts sharing none; db_rows sees every acknowledged write."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import HashEmbedder, db_rows

pytestmark = pytest.mark.embedder("fake")


def test_the_fake_embedder_is_deterministic_unit_and_near_for_shared_words() -> None:
    texts = [
        "The request timeout is 30 seconds",
        "The request timeout is 45 seconds",
        "Alice prefers green tea",
        "",
    ]
    first, again = HashEmbedder().embed(texts), HashEmbedder().embed(texts)
    assert first.shape == (4, 384) and first.dtype == np.float32
    assert np.array_equal(first, again)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    sims = first @ first.T
    assert sims[0, 1] > 0.7 > 0.2 > abs(sims[0, 2])
    assert HashEmbedder().embed([]).shape == (0, 384)


def test_db_rows_sees_what_was_just_acknowledged(mem) -> None:  # type: ignore[no-untyped-def]
    assert mem.embedder.model_name == HashEmbedder.model_name  # the module's mark took effect
    ids = [mem.remember(f"Service {i} listens on port {8000 + i}").id for i in range(3)]
    rows = db_rows(mem, "MATCH (m:Memory) RETURN m.id AS id ORDER BY m.id")
    assert [r["id"] for r in rows] == sorted(ids)

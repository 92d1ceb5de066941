"""Lifecycle factors in ranking: confidence decays by kind, recent access and the session boost."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..config import Config
    from ..index.mirror import Mirror

# The range of the lifecycle factor, as its formula gives it (bounds, not settings).
LIFECYCLE_MIN = 0.5  # (0.5 + 0.5·confidence) with confidence 0
LIFECYCLE_MAX = 1.5  # full confidence, just accessed (the session boost comes on top)


def effective_confidence(
    mirror: Mirror, slots: np.ndarray, now_epoch: float, config: Config
) -> np.ndarray:
    """Confidence decayed by age with a half-life per kind (pinned memories never decay)."""
    confidence = mirror.confidence[slots]
    kinds = mirror.kind[slots].tolist()
    sources = mirror.source[slots].tolist()
    half_lives = config.half_life_days
    half_life = np.array(
        [
            half_lives.get("inferred" if src == "inferred" else kind, 30.0)
            for kind, src in zip(kinds, sources, strict=True)
        ]
    )
    age_days = (now_epoch - mirror.created[slots]) / 86400.0
    age_days = np.where(np.isfinite(age_days), np.maximum(age_days, 0.0), 0.0)
    decayed = confidence * 0.5 ** (age_days / half_life)
    timeless = mirror.pinned[slots] | (mirror.kind[slots] == "episode")
    return np.where(timeless, confidence, decayed)


def lifecycle_factor(
    mirror: Mirror, slots: np.ndarray, now_epoch: float, config: Config
) -> np.ndarray:
    confidence = effective_confidence(mirror, slots, now_epoch, config)
    hours = np.maximum(0.0, (now_epoch - mirror.last_accessed[slots]) / 3600.0)
    # Never accessed (NaN) means no recency boost.
    recency = np.where(np.isfinite(hours), 1.0 + 0.5 * np.exp(-np.nan_to_num(hours) / 24.0), 1.0)
    # Confidence scales the score softly: a stale memory sinks but is not hidden.
    return (0.5 + 0.5 * confidence) * recency

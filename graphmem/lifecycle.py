"""Lifecycle factors in ranking: confidence decays by kind, recent access and the session boost."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .mirror import Mirror

HALF_LIFE_DAYS = {
    "correction": 365.0,
    "preference": 90.0,
    "procedure": 60.0,
    "fact": 30.0,
    "negative": 365.0,
    "inferred": 7.0,
}
SESSION_BOOST = 1.15
LIFECYCLE_MIN = 0.5  # (0.5 + 0.5·confidence) with confidence 0
LIFECYCLE_MAX = 1.5 * SESSION_BOOST  # full confidence, just accessed, current session


def effective_confidence(mirror: Mirror, slots: np.ndarray, now_epoch: float) -> np.ndarray:
    """Confidence decayed by age with a half-life per kind (pinned memories never decay)."""
    confidence = mirror.confidence[slots]
    kinds = mirror.kind[slots].tolist()
    sources = mirror.source[slots].tolist()
    half_life = np.array(
        [
            HALF_LIFE_DAYS.get("inferred" if src == "inferred" else kind, 30.0)
            for kind, src in zip(kinds, sources, strict=True)
        ]
    )
    age_days = (now_epoch - mirror.created[slots]) / 86400.0
    age_days = np.where(np.isfinite(age_days), np.maximum(age_days, 0.0), 0.0)
    decayed = confidence * 0.5 ** (age_days / half_life)
    timeless = mirror.pinned[slots] | (mirror.kind[slots] == "episode")
    return np.where(timeless, confidence, decayed)


def lifecycle_factor(mirror: Mirror, slots: np.ndarray, now_epoch: float) -> np.ndarray:
    confidence = effective_confidence(mirror, slots, now_epoch)
    hours = np.maximum(0.0, (now_epoch - mirror.last_accessed[slots]) / 3600.0)
    # Never accessed (NaN) means no recency boost.
    recency = np.where(np.isfinite(hours), 1.0 + 0.5 * np.exp(-np.nan_to_num(hours) / 24.0), 1.0)
    # Confidence scales the score softly: a stale memory sinks but is not hidden.
    return (0.5 + 0.5 * confidence) * recency

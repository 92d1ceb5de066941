"""HDBSCAN clusters over memory embeddings, with ids that survive rebuilds.

Clustering 10k×384 raw vectors took 53 s here and 3 s after PCA to 32 dimensions, so vectors are
reduced first; a big store is clustered on a sample and the rest placed by nearest neighbour. A new cluster takes the id of the old cluster it shares most members with
(Jaccard ≥ 0.5), so ids stay stable while membership mostly persists.
"""

from __future__ import annotations

import re
import uuid
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..text.lexical import tokenize

# A word as written (letters, then letters, digits, ' or -), for showing a term in a label.
_WORD = re.compile(r"[^\W\d_][\w'-]*")

# A new cluster keeps the id of a previous one whose members it shares this much (Jaccard): an
# id's stability across rebuilds, not a result (which memories cluster is Config's).
STABLE_JACCARD = 0.5
# HDBSCAN runs on at most this many memories (a random sample); the rest, and new memories
# later, take the cluster of their nearest sampled memory. HDBSCAN's cost grows faster than
# linearly (9 s at 10k, minutes at 100k); the sample keeps a rebuild within seconds.
# A bound on the work of a rebuild, not a setting (so is PCA_FIT).
SAMPLE = 4000
PCA_FIT = 20_000  # PCA is fitted on at most this many vectors


@dataclass
class ClusterModel:
    """What is needed to place a new memory into an existing cluster: the sampled memories
    in the reduced space, with their labels and membership strengths."""

    reducer: Any
    points: np.ndarray
    labels: np.ndarray
    strengths: np.ndarray
    label_ids: dict[int, str]


@dataclass
class Clustering:
    clusters: list[dict[str, Any]] = field(default_factory=list)  # id, label, centroid, size
    members: list[dict[str, Any]] = field(default_factory=list)  # src, dst, probability
    model: ClusterModel | None = None


def compute(
    ids: Sequence[str],
    vectors: np.ndarray,
    *,
    min_cluster_size: int,
    dims: int,
    previous: dict[str, set[str]],
    label_for: Callable[[list[str]], str],
    progress: Callable[[str], None] | None = None,
) -> Clustering:
    """Cluster the vectors; reuse the ids of matching previous clusters."""
    import hdbscan
    from sklearn.decomposition import PCA

    n = len(ids)
    if n < max(min_cluster_size * 2, 4):
        return Clustering()
    say = progress or (lambda _msg: None)
    dims = min(dims, n - 1, vectors.shape[1])
    say(f"reducing {n} vectors to {dims} dimensions")
    rng = np.random.default_rng(0)
    reducer = PCA(n_components=dims, random_state=0)
    reducer.fit(vectors if n <= PCA_FIT else vectors[rng.choice(n, PCA_FIT, replace=False)])
    reduced = reducer.transform(vectors).astype(np.float32)
    sample = np.arange(n) if n <= SAMPLE else np.sort(rng.choice(n, SAMPLE, replace=False))
    say(f"running HDBSCAN on {len(sample)} memories")
    clusterer = hdbscan.HDBSCAN(
        min_cluster_size=min_cluster_size,
        min_samples=max(2, min_cluster_size // 2),
        core_dist_n_jobs=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample_labels = clusterer.fit_predict(reduced[sample]).astype(np.int64)
    sample_strengths = np.asarray(clusterer.probabilities_, dtype=np.float32)
    points = reduced[sample]
    if len(sample) == n:
        labels, probabilities = sample_labels, sample_strengths
    else:
        say(f"placing the other {n - len(sample)} memories")
        labels, probabilities = _nearest(points, sample_labels, sample_strengths, reduced)
        labels[sample], probabilities[sample] = sample_labels, sample_strengths
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        if label >= 0:
            groups.setdefault(int(label), []).append(i)

    label_ids = _stable_ids(groups, ids, previous)
    model = ClusterModel(reducer, points, sample_labels, sample_strengths, label_ids)
    result = Clustering(model=model)
    for label, rows in sorted(groups.items()):
        member_ids = [ids[i] for i in rows]
        centroid = vectors[rows].mean(axis=0)
        centroid /= np.linalg.norm(centroid) or 1.0
        cid = label_ids[label]
        result.clusters.append(
            {"id": cid, "label": label_for(member_ids), "centroid": centroid, "size": len(rows)}
        )
        for i in rows:
            result.members.append(
                {"src": ids[i], "dst": cid, "probability": round(float(probabilities[i]), 4)}
            )
    say(f"{len(result.clusters)} clusters")
    return result


def _stable_ids(
    groups: dict[int, list[int]], ids: Sequence[str], previous: dict[str, set[str]]
) -> dict[int, str]:
    pairs = []
    member_sets = {label: {ids[i] for i in rows} for label, rows in groups.items()}
    for label, members in member_sets.items():
        for old_id, old_members in previous.items():
            inter = len(members & old_members)
            if inter:
                jaccard = inter / len(members | old_members)
                if jaccard >= STABLE_JACCARD:
                    pairs.append((jaccard, label, old_id))
    out: dict[int, str] = {}
    used: set[str] = set()
    for _, label, old_id in sorted(pairs, reverse=True):
        if label not in out and old_id not in used:
            out[label] = old_id
            used.add(old_id)
    for label in groups:
        out.setdefault(label, "c" + uuid.uuid4().hex[:10])
    return out


def predict_many(model: ClusterModel, vectors: np.ndarray) -> list[tuple[str, float] | None]:
    """The cluster each of many new memories joins: that of its nearest sampled memory."""
    reduced = model.reducer.transform(np.asarray(vectors, dtype=np.float32)).astype(np.float32)
    labels, strengths = _nearest(model.points, model.labels, model.strengths, reduced)
    out: list[tuple[str, float] | None] = []
    for label, strength in zip(labels, strengths, strict=True):
        cid = model.label_ids.get(int(label)) if label >= 0 else None
        out.append(None if cid is None else (cid, round(float(strength), 4)))
    return out


def _nearest(
    points: np.ndarray, labels: np.ndarray, strengths: np.ndarray, queries: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Label and strength of each query's nearest point (squared Euclidean), in blocks."""
    out_labels = np.empty(len(queries), dtype=np.int64)
    out_strengths = np.empty(len(queries), dtype=np.float32)
    norms = (points * points).sum(axis=1)
    for start in range(0, len(queries), 4096):
        block = queries[start : start + 4096]
        nearest = np.argmin(norms[None, :] - 2.0 * (block @ points.T), axis=1)
        out_labels[start : start + len(block)] = labels[nearest]
        out_strengths[start : start + len(block)] = strengths[nearest]
    return out_labels, out_strengths


def make_label(member_tags: list[list[str]], texts: list[str], tag_totals: dict[str, int]) -> str:
    """A readable label: the tags most typical of the members, else their commonest terms."""
    counts: Counter[str] = Counter()
    for tags in member_tags:
        counts.update(set(tags))
    scored = sorted(
        ((c / np.sqrt(tag_totals.get(t, c)), t) for t, c in counts.items() if c >= 2),
        reverse=True,
    )
    words = [t for _, t in scored[:3]]
    if len(words) < 3:
        # Terms are counted by stem ("deciding" and "decided" are one term), and each is shown
        # as the word the members use most for it ("decided", not the stem "decid").
        terms: Counter[str] = Counter()
        spelled: dict[str, Counter[str]] = {}
        for text in texts[:200]:
            seen: set[str] = set()
            for word in _WORD.findall(text):
                stems = tokenize(word)
                if len(stems) != 1 or len(stems[0]) <= 2 or stems[0].isdigit():
                    continue
                stem = stems[0]
                spelled.setdefault(stem, Counter())[word.casefold()] += 1
                seen.add(stem)
            terms.update(seen)
        chosen = [spelled[t].most_common(1)[0][0] for t, _ in terms.most_common(6)]
        words += [w for w in chosen if w not in words][: 3 - len(words)]
    return " / ".join(words) or "cluster"

"""Supersede precision and recall over a labelled set of realistic statement pairs.

tests/data/conflict_pairs.jsonl holds pairs (old, then new) with the action the new statement
should take: ``supersede`` (it replaces the old one), ``contradict`` (they disagree in part, or
may both hold), ``relate`` (both hold: created, at most linked) or ``reinforce`` (a restatement).
Categories: updates, negations, compound facts, repeated events with new numbers, compatible
statements with correction words, look-alike facts about different things, different speakers,
duplicates and passages.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

PAIRS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "conflict_pairs.jsonl").read_text().splitlines()
    if line.strip()
]
ACTIONS = {
    "superseded": "supersede",
    "contradicted": "contradict",
    "created": "relate",
    "reinforced": "reinforce",
}
LABELS = ("supersede", "contradict", "relate", "reinforce")


def _confusion(rows: list[tuple[dict, str]]) -> str:
    counts = Counter((pair["expected"], got) for pair, got in rows)
    lines = ["expected \\ got".ljust(16) + "".join(g.rjust(12) for g in LABELS)]
    for e in LABELS:
        lines.append(e.ljust(16) + "".join(str(counts[e, g]).rjust(12) for g in LABELS))
    lines += [
        f"  [{p['category']}] expected {p['expected']}, got {got}: {p['new']!r}"
        for p, got in rows
        if got != p["expected"]
    ]
    return "\n".join(lines)


def test_the_set_is_large_and_covers_every_case():
    assert len(PAIRS) >= 60
    assert {p["expected"] for p in PAIRS} == set(LABELS)
    assert {"update", "negation", "compound", "event", "compatible_cue", "lookalike",
            "speaker"} <= {p["category"] for p in PAIRS}  # fmt: skip


def test_supersede_precision_and_recall(mem):
    items = []
    for n, pair in enumerate(PAIRS):
        # One session per pair: each new statement only meets its own old one.
        for text in (pair["old"], pair["new"]):
            items.append({"content": text, "scope": "session", "session_id": f"pair-{n}"})
    results = mem.remember_many(items)
    rows = [(pair, ACTIONS[results[2 * n + 1].action]) for n, pair in enumerate(PAIRS)]
    table = _confusion(rows)
    print(table)
    tp = sum(1 for p, got in rows if got == "supersede" and p["expected"] == "supersede")
    predicted = sum(1 for _, got in rows if got == "supersede")
    actual = sum(1 for p, _ in rows if p["expected"] == "supersede")
    precision = tp / predicted if predicted else 1.0
    recall = tp / actual
    assert precision >= 0.95, f"supersede precision {precision:.2f}\n{table}"
    assert recall >= 0.85, f"supersede recall {recall:.2f}\n{table}"
    # Nothing that should stay visible is merged away either.
    merged = [p for p, got in rows if got == "reinforce" and p["expected"] != "reinforce"]
    assert not merged, f"false merges\n{table}"

"""Supersede exactly when one fact replaces another, on a labelled set of short team facts.

tests/data/supersede_dev.jsonl (tuned on) and tests/data/supersede_test.jsonl (written apart,
in other phrasings, never tuned on) hold four kinds of rows:

- ``multi``: facts that all hold at once (several values of one relation: "Team Identity is on
  call for auth-service" / "... for audit-log"); every one must stay active;
- ``correction``: ``new`` replaces ``old``; ``old`` must be superseded;
- ``paraphrase``: ``new`` says what ``old`` says; it must reinforce ``old`` (not be stored twice);
- ``distinct``: look-alikes that both hold ("staging database" / "production database"); both
  must stay active and apart.

Each row is remembered in a session of its own (so it meets only its own facts: no help from
other rows' evidence), its facts in order, one ``remember`` call each. With ``--one-store`` every
row goes into one global store instead, as an import of team notes would.

    python bench/supersede.py                    # both parts
    python bench/supersede.py --part test --show 20
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphmem import GraphMemory  # noqa: E402

DATA = ROOT / "tests" / "data"
DEFAULT_MODEL_PATH = os.environ.get(
    "GRAPHMEM_MODEL_PATH", str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")
)


def load(part: str) -> list[dict[str, Any]]:
    path = DATA / f"supersede_{part}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _texts(row: dict[str, Any]) -> list[str]:
    return row["facts"] if row["kind"] == "multi" else [row["old"], row["new"]]


def judge(row: dict[str, Any], results: list[Any], active: list[bool]) -> str | None:
    """Why the row went wrong, or None when the store did what the label says."""
    kind = row["kind"]
    if kind in ("multi", "distinct"):
        if not all(active):
            return "a fact that still holds was superseded"
        if any(r.action == "reinforced" for r in results[1:]):
            return "a different fact was merged into another"
        return None
    new = results[1]
    if kind == "correction":
        return None if new.action == "superseded" and not active[0] else f"got {new.action}"
    return None if new.action == "reinforced" else f"got {new.action}"


def run(rows: list[dict[str, Any]], model_path: str, one_store: bool = False) -> dict[str, Any]:
    wrong: list[tuple[dict[str, Any], str, list[Any]]] = []
    counts: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    contradicted = 0
    keep: list[tuple[str, str]] = []  # (id, text) of every fact that must be active at the end
    with tempfile.TemporaryDirectory() as tmp, GraphMemory(tmp, model_path=model_path) as mem:
        for n, row in enumerate(rows):
            space = {} if one_store else {"scope": "session", "session_id": f"row-{n}"}
            results = [mem.remember(text, **space) for text in _texts(row)]
            ids = [r.id for r in results]
            active = [mem.get(i).active for i in dict.fromkeys(ids)]
            if row["kind"] in ("multi", "distinct"):
                contradicted += sum(r.action == "contradicted" for r in results)
            counts[row["kind"]] += 1
            if row["kind"] in ("multi", "distinct"):
                keep += [(r.id, t) for r, t in zip(results, _texts(row), strict=True)]
            else:
                keep.append((results[1].id, row["new"]))
            why = judge(row, results, active)
            if why is not None:
                failures[row["kind"]] += 1
                wrong.append((row, why, results))
        # A later row's statement must not retire an earlier row's fact (one store: they meet).
        lost = [text for memory_id, text in keep if not mem.get(memory_id).active]

    def share(kind: str) -> float:
        return round(1 - failures[kind] / counts[kind], 3) if counts[kind] else 1.0

    return {
        "rows": dict(counts),
        "multi_groups_with_a_superseded_fact": sum(
            1 for row, why, _ in wrong if row["kind"] == "multi" and "superseded" in why
        ),
        "multi_kept": share("multi"),
        "corrections_superseded": share("correction"),
        "paraphrases_reinforced": share("paraphrase"),
        "distinct_kept": share("distinct"),
        "contradicts_edges_among_facts_that_all_hold": contradicted,
        "facts_retired_by_another_row": len(lost),
        "lost": lost,
        "wrong": [
            {
                "kind": row["kind"],
                "why": why,
                "texts": _texts(row),
                "reasons": [r.reason for r in rs],
            }
            for row, why, rs in wrong
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--model-path", default=DEFAULT_MODEL_PATH)
    parser.add_argument("--one-store", action="store_true", help="all rows in one global store")
    parser.add_argument("--show", type=int, default=50, help="wrong rows to print")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args()
    parts = ("dev", "test") if args.part == "both" else (args.part,)
    out = {}
    for part in parts:
        figures = run(load(part), args.model_path, one_store=args.one_store)
        for w in figures["wrong"][: args.show]:
            print(f"  [{part} {w['kind']}] {w['why']}: {' | '.join(w['texts'])}  ({w['reasons']})")
        for text in figures["lost"][: args.show]:
            print(f"  [{part}] retired by another row: {text}")
        out[part] = {k: v for k, v in figures.items() if k not in ("wrong", "lost")}
        print(part, json.dumps(out[part]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()

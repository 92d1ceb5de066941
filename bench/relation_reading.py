"""How many relations recall reads in each agent question, against how many hops it has, and
what that reading costs or earns against dense search.

Recall's chains hold at most one fact per relation the question names (``relations_said`` in
graphmem/recall/chains.py). A one-hop question read as naming two or three relations is
answered by chains of facts that each match a part of it, and those can push the one fact
that answers it out of the top k. This prints, per group of sets (our generator's pools, the
worlds other authors wrote), a row per (hops, relations read): questions, and the questions
where recall's R@5 is above or below dense search's on the same store:

    python bench/relation_reading.py --stores DIR [--sets NAME ...] [--json OUT]

Stores are built (or reused) as ``quality.py`` builds them. The reading is recall's own: the
script wraps ``relation_for`` where the cascade calls it, because no public call reports it
(it is an internal reading, not part of what ``explain()`` promises).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality
from rich.console import Console
from rich.table import Table

import graphmem.recall.cascade as cascade
from graphmem import GraphMemory

OURS = ("agent", "agent-test", "agent-third", "agent-v1", "agent-test-written",
        "agent-third-written")  # fmt: skip
# The newest worlds stay out by default, as in ablation.py: they are only scored.
HELD = ("agent-seventeenth", "agent-eighteenth")
SETS = OURS + tuple(w for w in quality.WORLDS if w not in HELD)
K = 5


def read(name: str, stores: Path, model_path: str | None) -> list[dict]:
    """Per question: hops, relations read (0 where no chain starts), recall and dense R@5."""
    facts, questions = quality.agent_world(name)
    _, _, memory_of = quality.build(stores / name, facts, model_path)
    seen: list[int] = []
    original = cascade.relation_for

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        relation = original(*args, **kwargs)
        seen.append(relation.relations)
        return relation

    cascade.relation_for = spy
    rows = []
    try:
        with GraphMemory(stores / name, model_path=model_path, read_only=True) as mem:
            for q in questions:
                gold = {memory_of[g] for g in q["gold"]}
                dense = [h.memory.id for h in mem.search(q["question"], limit=K)]
                seen.clear()
                found = [h.memory.id for h in mem.recall(q["question"], limit=K)]
                rows.append({
                    "hops": q["hops"], "relations": seen[-1] if seen else 0,
                    "recall": quality.recall_at(found, gold, K),
                    "dense": quality.recall_at(dense, gold, K),
                })  # fmt: skip
    finally:
        cascade.relation_for = original
    return rows


def tally(rows: list[dict]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"questions": 0, "won": 0, "lost": 0})
    for r in rows:
        cell = out[f"{r['hops']}-hop, read {min(r['relations'], 3)}"]
        cell["questions"] += 1
        cell["won"] += r["recall"] > r["dense"]
        cell["lost"] += r["recall"] < r["dense"]
    return dict(sorted(out.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", required=True, type=Path)
    parser.add_argument(
        "--sets", nargs="+", default=list(SETS), choices=OURS + tuple(quality.WORLDS)
    )
    parser.add_argument("--model-path", default=os.environ.get("GRAPHMEM_MODEL_PATH"))
    parser.add_argument("--json", dest="json_path", default=None)
    args = parser.parse_args()
    groups: dict[str, list[dict]] = defaultdict(list)
    for name in args.sets:
        groups["ours" if name in OURS else "others"].extend(
            read(name, args.stores, args.model_path)
        )
    result = {group: tally(rows) for group, rows in groups.items()}
    console = Console()
    for group, cells in result.items():
        table = Table(title=f"{group}: relations read against hops (R@5 against dense)")
        for column in ("hops, relations read (3 = three or more)", "questions", "won", "lost"):
            table.add_column(column)
        for cell, n in cells.items():
            table.add_row(cell, str(n["questions"]), str(n["won"]), str(n["lost"]))
        console.print(table)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"sets": args.sets, **result}, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""The secret screen's two error rates: what it flags in ordinary chat, what it misses.

    python bench/secret_screen.py [--show] [--json out.json]

False positives: every distinct turn of LongMemEval-S (``../shared/bench-data/longmemeval-dev``,
real user/assistant chat turns) goes through ``find_secrets``; a flagged turn is listed with
the kind and a clipped context (``--show``). Misses: the labelled set the tests use
(``tests/data/secrets_labelled.jsonl``): each "secret" text must be flagged (covering its secret
where the row names it), each "clean" text must not be; ``known_miss`` rows are counted apart.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from pathlib import Path

from graphmem.text.screen import find_secrets

ROOT = Path(__file__).resolve().parent.parent
CHAT = ROOT.parent / "shared" / "bench-data" / "longmemeval-dev" / "longmemeval-s-dev100.jsonl.gz"
LABELLED = ROOT / "tests" / "data" / "secrets_labelled.jsonl"


def chat_turns(path: Path) -> tuple[list[str], int]:
    """The distinct turns of every haystack session, and how many turns there are in all."""
    seen: dict[str, None] = {}
    total = 0
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            for session in json.loads(line)["haystack_sessions"]:
                for turn in session:
                    total += 1
                    seen.setdefault(turn["content"], None)
    return list(seen), total


def false_positives(path: Path, show: bool) -> dict[str, object]:
    turns, total = chat_turns(path)
    started = time.perf_counter()
    flagged = []
    kinds: Counter[str] = Counter()
    for text in turns:
        findings = find_secrets(text)
        if findings:
            flagged.append(text)
            kinds.update(f.kind for f in findings)
            if show:
                for f in findings:
                    context = text[max(f.start - 50, 0) : f.end + 20].replace("\n", " ")
                    print(f"  {f.kind:>20}: {context[:200]}")
    seconds = time.perf_counter() - started
    return {
        "turns": total,
        "distinct_turns": len(turns),
        "flagged_turns": len(flagged),
        "kinds": dict(kinds),
        "scan_seconds": round(seconds, 2),
    }


def misses() -> dict[str, object]:
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    caught = missed = known_caught = known = clean_flagged = clean = 0
    missed_categories: Counter[str] = Counter()
    for row in rows:
        text = row["text"]
        findings = find_secrets(text)
        if row["label"] == "clean":
            clean += 1
            clean_flagged += bool(findings)
            continue
        hit = bool(findings) and (
            row["secret"] is None or any(row["secret"] in text[f.start : f.end] for f in findings)
        )
        if row.get("known_miss"):
            known += 1
            known_caught += hit
        elif hit:
            caught += 1
        else:
            missed += 1
            missed_categories[row["category"]] += 1
    return {
        "secrets": caught + missed + known,
        "caught": caught + known_caught,
        "missed": missed + known - known_caught,
        "known_misses": known - known_caught,
        "missed_categories": dict(missed_categories),
        "clean_texts": clean,
        "clean_flagged": clean_flagged,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every flagged chat span")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--chat", type=Path, default=CHAT, help="the LongMemEval-S file")
    args = parser.parse_args()
    results = {"chat": false_positives(args.chat, args.show), "labelled": misses()}
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

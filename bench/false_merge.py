"""False merges: how often importing distinct, true texts hides one of them.

Imports real texts that are all true at once, with default settings, into fresh stores:

- passages: the MuSiQue and HotpotQA corpora of /work/shared/bench-data (one memory per
  passage, ``title + "\\n" + text``, exact repeats dropped);
- turns: the LoCoMo dialogue turns (``"{speaker}: {text}"``, the turns of one conversation in
  one store, kind ``fact`` as ``remember`` defaults to);
- notes: the facts of the agent-memory worlds other authors wrote whole (``bench/fourth/`` to
  ``bench/eighth/``, one store each): a team's notes in many phrasings, distractors written
  from one template about other services and people ("X and Y were moved to the distroless
  image in the same PR"), every one true at once.

No text replaces another, so every ``superseded`` is a false supersede. A ``reinforced`` is a
false merge unless the two texts are the same once case, punctuation and a few function words
are ignored (the corpora hold such copies: "World Cup." / "world cup."); those are counted as
``true_duplicates``, by a normalisation independent of graphmem's. ``contradicted`` hides
nothing but adds a doubtful edge; it is reported apart. Target: false merges + supersedes ≤ 1
per 1,000 texts.

    python bench/false_merge.py                      # all passages and turns
    python bench/false_merge.py --limit 500 --show 20
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphmem import GraphMemory  # noqa: E402
from graphmem.write.items import content_hash  # noqa: E402

DATA = ROOT.parent / "shared" / "bench-data"
DEFAULT_MODEL_PATH = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx")


def passages(data: Path) -> list[str]:
    musique = json.loads((data / "hipporag_musique_train100/musique_train_corpus.json").read_text())
    hotpot = json.loads(
        (data / "hipporag_hotpotqa_train100/hotpotqa_train_corpus.json").read_text()
    )
    texts = [f"{p['title']}\n{p['text']}" for p in musique]
    texts += [f"{title}\n{''.join(sentences)}" for title, sentences in hotpot.items()]
    return _distinct(texts)


def conversations(data: Path) -> list[list[str]]:
    out = []
    for sample in json.loads((data / "locomo-dev/locomo_dev.json").read_text()):
        conv = sample["conversation"]
        turns = []
        for n in range(1, 100):
            for turn in conv.get(f"session_{n}") or []:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                turns.append(text)
        out.append(_distinct(turns))
    return out


WORLDS = ("fourth", "fifth", "sixth", "seventh", "eighth")


def notes(world: str) -> list[str]:
    facts = json.loads((ROOT / "bench" / world / "world.json").read_text())["facts"]
    return _distinct([f["content"] for f in facts])


def _distinct(texts: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for t in texts:
        seen.setdefault(content_hash(t), t)
    return list(seen.values())


_FUNCTION_WORDS = frozenset(["a", "an", "the", "of", "to", "in", "on", "and", "or"])


def _copy_key(text: str) -> tuple[str, ...]:
    return tuple(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FUNCTION_WORDS)


def run(name: str, texts: list[str], model_path: str, show: int) -> Counter[str]:
    with tempfile.TemporaryDirectory() as tmp, GraphMemory(tmp, model_path=model_path) as mem:
        start = time.perf_counter()
        results = mem.remember_many([{"content": t} for t in texts])
        seconds = time.perf_counter() - start
        actions = Counter(r.action for r in results)
        by_id = {r.id: t for r, t in zip(results, texts, strict=True) if r.action != "reinforced"}
        for r, text in zip(results, texts, strict=True):
            if r.action == "reinforced" and _copy_key(text) == _copy_key(by_id[r.id]):
                actions["reinforced"] -= 1
                actions["true_duplicates"] += 1
        shown = 0
        for r, text in zip(results, texts, strict=True):
            if r.action in ("created",) or shown >= show:
                continue
            shown += 1
            others = r.superseded or r.contradicts or [r.id]
            print(f"  [{r.action}] {r.reason}")
            print(f"     new: {_one_line(text)}")
            for other in others:
                print(f"     old: {_one_line(by_id.get(other) or mem.get(other).content)}")
    print(f"{name}: {len(texts)} texts in {seconds:.0f}s: {dict(sorted(actions.items()))}")
    return actions


def _one_line(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model-path", default=DEFAULT_MODEL_PATH)
    parser.add_argument("--limit", type=int, default=0, help="texts per set (0: all)")
    parser.add_argument("--show", type=int, default=10, help="non-created outcomes to print")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--sets", nargs="+", choices=("passages", "turns", "notes"),
        default=["passages", "turns", "notes"],
    )  # fmt: skip
    args = parser.parse_args()

    sets: list[tuple[str, list[str]]] = []
    if "passages" in args.sets:
        sets.append(("passages", passages(args.data)))
    if "turns" in args.sets:
        sets += [(f"turns-{i}", t) for i, t in enumerate(conversations(args.data))]
    if "notes" in args.sets:
        sets += [(f"notes-{w}", notes(w)) for w in WORLDS]
    if args.limit:
        sets = [(n, t[: args.limit]) for n, t in sets]
    total: Counter[str] = Counter()
    texts = 0
    for name, items in sets:
        total += run(name, items, args.model_path, args.show)
        texts += len(items)
    hidden = total["superseded"] + total["reinforced"]
    figures = {
        "texts": texts,
        "actions": dict(sorted(total.items())),
        "false_merge_or_supersede_per_1000": round(1000 * hidden / texts, 2),
        "contradicted_per_1000": round(1000 * total["contradicted"] / texts, 2),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()

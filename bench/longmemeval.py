"""LongMemEval_S (dev100) as graphmem memories, and its session and turn recall.

Protocol (../shared/bench-data/README.md): every turn of every haystack session, in order, is one
memory, text ``"{role}: {content}"``, kind ``episode``, ``session_id`` the haystack session id (a
session listed twice in one haystack is two sessions), ``valid_from`` the session's date. Turns
are ranked, then sessions by their best turn.

The builders read only the haystack and the question (``Question``): the answer, the gold
sessions and the ``has_answer`` marks live in ``Gold``, which only the scorer reads.

Two settings:
- S: one store per question (its ~490 turns, ~50 sessions).
- M-sized: ten questions' haystacks in one store (~4,900 turns, ~480 sessions; LongMemEval_M
  has ~500 sessions a question), each question asked of the store its haystack is in. Groups
  are fixed: questions 0-9 of the file, 10-19, ... (the file is stratified by type).
"""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """The shared bench data: ``GRAPHMEM_BENCH_DATA``, else ``shared/bench-data`` in the first
    folder above the repository that has one (a worktree sits deeper than the main checkout)."""
    env = os.environ.get("GRAPHMEM_BENCH_DATA")
    if env:
        return Path(env)
    for parent in ROOT.parents:
        candidate = parent / "shared" / "bench-data"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "bench-data"


FILE = "longmemeval-dev/longmemeval-s-dev100.jsonl.gz"
GROUP = 10  # questions per M-sized store


@dataclass
class Question:
    """What a system may read: the question and its haystack."""

    qid: str
    qtype: str
    question: str
    date: str
    items: list[dict]  # remember_many items, ids "<question>.<session>.<turn>" (numbers)
    session_of: dict[str, str]  # item id -> session key


@dataclass
class Gold:
    """What only the scorer reads."""

    sessions: set[str]  # session keys
    turns: set[str]  # item ids


def _date(text: str) -> str | None:
    try:
        return datetime.strptime(text, "%Y/%m/%d (%a) %H:%M").isoformat()
    except ValueError:
        return None


def _rows() -> list[dict]:
    with gzip.open(data_dir() / FILE, "rt") as fh:
        return [json.loads(line) for line in fh]


def load(prefix: str = "") -> tuple[list[Question], list[Gold]]:
    """Every question with its haystack as items (item ids start with ``prefix``), and the
    gold. A session key is ``<prefix><index in the haystack>:<session id>``."""
    questions, golds = [], []
    for number, row in enumerate(_rows()):
        items, session_of = [], {}
        gold_sessions: set[str] = set()
        gold_turns: set[str] = set()
        answer_ids = set(row["answer_session_ids"])
        for index, (sid, date, turns) in enumerate(
            zip(row["haystack_session_ids"], row["haystack_dates"], row["haystack_sessions"],
                strict=True)
        ):  # fmt: skip
            session = f"{prefix}{row['question_id']}/{index}:{sid}"
            if sid in answer_ids:
                gold_sessions.add(session)
            when = _date(date)
            for t, turn in enumerate(turns):
                item_id = f"{prefix}{number}.{index}.{t}"
                item = {"id": item_id, "content": f"{turn['role']}: {turn['content']}",
                        "kind": "episode", "session_id": session}  # fmt: skip
                if when:
                    item["valid_from"] = when
                items.append(item)
                session_of[item_id] = session
                if turn.get("has_answer"):
                    gold_turns.add(item_id)
        question = Question(
            row["question_id"], row["question_type"], row["question"], row["question_date"],
            items, session_of,
        )  # fmt: skip
        questions.append(question)
        golds.append(Gold(gold_sessions, gold_turns))
    return questions, golds


def all_texts() -> list[str]:
    """Every text the benchmark embeds: turns and questions."""
    questions, _ = load()
    return [it["content"] for q in questions for it in q.items] + [q.question for q in questions]


def sessions_ranked(ranked: list[str], sessions_of: dict[str, list[str]]) -> list[str]:
    """Sessions in the order of their best turn (``ranked``: memory ids, best first; a memory
    that holds turns of several sessions, the same text twice, stands for each of them)."""
    return list(dict.fromkeys(s for m in ranked for s in sessions_of.get(m, [m])))


def sessions_of_store(questions: list[Question], memory_of: dict[str, str]) -> dict[str, list[str]]:
    """Memory id -> the session keys of the turns it holds, over every question whose haystack
    is in the store (``memory_of``: item id -> memory id). Every turn belongs to its session,
    whichever haystack it came from: sessions are ranked by their best turn, so another
    question's session takes one place however many of its turns rank, and its keys name that
    question, so it is never gold. (Until 2026-11-27 each turn of another haystack in an
    M-sized store counted as a session of its own: bench/README.md.)"""
    out: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        for it in q.items:
            out[memory_of[it["id"]]].append(q.session_of[it["id"]])
    return dict(out)


def sessions_for(question: Question, sessions_of: dict[str, list[str]]) -> dict[str, list[str]]:
    """``sessions_of`` as one question sees it: a memory that holds one of its own turns (the
    same text in two haystacks, stored once) stands for its own sessions only, so a session
    shared with another haystack takes one place, not two."""
    own = set(question.session_of.values())
    out = {}
    for memory, keys in sessions_of.items():
        mine = [k for k in keys if k in own]
        out[memory] = mine or keys
    return out


METRICS = ("any@5", "all@5", "all@10", "turn all@10")


def scores(
    ranked: list[str], sessions_of: dict[str, list[str]], gold_sessions: set[str],
    gold_turns: set[str],
) -> dict[str, float]:  # fmt: skip
    """Session recall_any@5, recall_all@5, recall_all@10 and turn recall_all@10 of one ranking
    of memory ids (1.0 or 0.0 each; turn recall NaN for a question with no marked turn)."""
    sessions = sessions_ranked(ranked, sessions_of)
    out = {
        "any@5": float(bool(set(sessions[:5]) & gold_sessions)),
        "all@5": float(gold_sessions <= set(sessions[:5])),
        "all@10": float(gold_sessions <= set(sessions[:10])),
    }
    out["turn all@10"] = float(gold_turns <= set(ranked[:10])) if gold_turns else float("nan")
    return out


def subset(n: int | None, total: int) -> list[int]:
    """``n`` question indices spread evenly over the file (all of them for None)."""
    if n is None or n >= total:
        return list(range(total))
    return sorted({i * total // n for i in range(n)})

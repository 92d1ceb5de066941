"""bench/longmemeval.py scores sessions as the LongMemEval protocol ranks them.

In an M-sized store (ten questions' haystacks together) every turn belongs to its session,
whichever haystack it came from: another question's session takes one place of session
recall@k however many of its turns rank, and is never gold.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from longmemeval import Question, scores, sessions_for, sessions_of_store


def _question(qid: str, sessions: list[int]) -> Question:
    """A haystack of sessions, each of three turns, item ids ``<qid>.<index>.<turn>``."""
    items, session_of = [], {}
    for index, sid in enumerate(sessions):
        for t in range(3):
            item_id = f"{qid}.{index}.{t}"
            items.append({"id": item_id, "content": f"user: turn {t}"})
            session_of[item_id] = f"{qid}/{index}:s{sid}"
    return Question(qid, "multi-session", "?", "", items, session_of)


def test_another_haystacks_session_takes_one_place_however_many_turns_rank() -> None:
    mine, other = _question("a", [1, 2]), _question("b", [3, 4, 5, 6])
    memory_of = {it["id"]: f"m-{it['id']}" for q in (mine, other) for it in q.items}
    sessions_of = sessions_of_store([mine, other], memory_of)
    # Every turn of the other haystack's first session ranks first, then three more of its
    # sessions, then both gold sessions: six sessions, gold at places 5 and 6.
    ranked = [memory_of[f"b.0.{t}"] for t in range(3)]
    ranked += [memory_of[f"b.{i}.0"] for i in (1, 2, 3)]
    ranked += [memory_of["a.0.1"], memory_of["a.1.2"]]
    gold = {"a/0:s1", "a/1:s2"}
    got = scores(ranked, sessions_of, gold, {memory_of["a.0.1"]})
    assert got["any@5"] == 1.0  # counted per turn, the other haystack would fill all five
    assert got["all@5"] == 0.0
    assert got["all@10"] == 1.0
    assert got["turn all@10"] == 1.0
    # Keys name their question: the other haystack's sessions are never gold.
    assert all(k.startswith("b/") for t in range(3) for k in sessions_of[memory_of[f"b.0.{t}"]])


def test_one_memory_holding_turns_of_two_sessions_stands_for_both() -> None:
    mine = _question("a", [1, 2])
    memory_of = {it["id"]: f"m-{it['id']}" for it in mine.items}
    memory_of["a.1.0"] = memory_of["a.0.0"]  # the same text in two sessions, stored once
    sessions_of = sessions_of_store([mine], memory_of)
    assert sorted(sessions_of[memory_of["a.0.0"]]) == ["a/0:s1", "a/1:s2"]
    got = scores([memory_of["a.0.0"]], sessions_of, {"a/0:s1", "a/1:s2"}, set())
    assert got["all@5"] == 1.0


def test_a_turn_shared_with_another_haystack_counts_once_for_each_question() -> None:
    mine, other = _question("a", [1, 2]), _question("b", [3])
    memory_of = {it["id"]: f"m-{it['id']}" for q in (mine, other) for it in q.items}
    memory_of["b.0.0"] = memory_of["a.1.0"]  # the same text in both haystacks, stored once
    sessions_of = sessions_of_store([mine, other], memory_of)
    assert sorted(sessions_of[memory_of["a.1.0"]]) == ["a/1:s2", "b/0:s3"]
    # For question a, that memory is its own session only; for b, b's.
    assert sessions_for(mine, sessions_of)[memory_of["a.1.0"]] == ["a/1:s2"]
    assert sessions_for(other, sessions_of)[memory_of["a.1.0"]] == ["b/0:s3"]
    ranked = [memory_of["a.1.0"]] + [memory_of[f"b.0.{t}"] for t in (1, 2)]
    got = scores(ranked, sessions_for(mine, sessions_of), {"a/1:s2"}, set())
    assert got["any@5"] == 1.0

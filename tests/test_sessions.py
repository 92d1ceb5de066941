"""Sessions as evidence (recall.cascade: ``_sessions_ranked`` and ``by_session``).

A conversation where several turns are about the context ranks high; recall's order is fused
with that ranking of sessions, so the sessions the walk favours do not push out the others.
Pure checks over a stand-in for the mirror (only ``session`` is read) and, end to end, a store
of conversations.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from graphmem import Config
from graphmem.recall.cascade import _sessions_ranked, by_session
from graphmem.recall.scope import Found


def _mirror(sessions: list[str | None]) -> SimpleNamespace:
    return SimpleNamespace(session=np.array(sessions, dtype=object))


def test_sessions_rank_by_the_mean_of_their_best_turns_and_singletons_do_not_rank() -> None:
    # slot: 0..5; similarity best first, as fuse's dense ranking gives them
    mirror = _mirror(["a", "b", "b", "b", "c", None])
    ranked = [(0, 0.9), (1, 0.8), (2, 0.7), (3, 0.6), (4, 0.5), (5, 0.4)]
    # "a" has one candidate: it says no more than that turn; "b" three; "c" one; None none.
    assert _sessions_ranked(mirror, ranked, top=3) == {"b": 1}  # type: ignore[arg-type]
    mirror = _mirror(["a", "b", "b", "b", "a", None])
    # a: (0.9 + 0.5 + floor 0.4) / 3 = 0.6; b: (0.8 + 0.7 + 0.6) / 3 = 0.7
    assert _sessions_ranked(mirror, ranked, top=3) == {"b": 1, "a": 2}  # type: ignore[arg-type]
    # with top=1 a session ranks by its best turn, as search ranks sessions
    assert _sessions_ranked(mirror, ranked, top=1) == {"a": 1, "b": 2}  # type: ignore[arg-type]
    assert _sessions_ranked(_mirror([None, None]), [(0, 0.5), (1, 0.4)], top=3) == {}  # type: ignore[arg-type]


def _found(scores: list[float]) -> list[Found]:
    return [Found(slot, score, []) for slot, score in enumerate(scores)]


def test_a_turn_of_the_session_most_about_the_context_rises_and_scores_stay_ordered() -> None:
    config = Config()
    # places 1..5: the walk's favourite session w fills places 2-4, a second turn of the best
    # session s comes 5th
    mirror = _mirror(["s", "w", "w", "w", "s"])
    found = _found([5.0, 4.0, 3.0, 2.0, 1.0])
    by_session(found, mirror, config, {"s": 1, "w": 2})  # type: ignore[arg-type]
    order = [f.slot for f in found]
    assert order.index(4) < 4  # the best session's turn no longer last
    assert order[0] == 0  # first in both keeps first place and its score
    assert found[0].score == pytest.approx(5.0)
    scores = [f.score for f in found]
    assert scores == sorted(scores, reverse=True)


def test_without_ranked_sessions_the_order_and_scores_are_kept() -> None:
    config = Config()
    for sessions, names in (({}, ["a", "b", None]), ({"z": 1}, ["a", None, None])):
        found = _found([3.0, 2.0, 1.0])
        by_session(found, _mirror(names), config, sessions)  # type: ignore[arg-type]
        assert [(f.slot, f.score) for f in found] == [(0, 3.0), (1, 2.0), (2, 1.0)]


def test_the_conversation_about_the_context_leads(make_mem, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """End to end on a store of conversations (real model): the session where several turns
    are about the context leads, scores stay ordered, and session_weight 0 skips the stage."""
    import graphmem.recall.cascade as cascade

    calls: list[int] = []
    original = cascade.by_session
    monkeypatch.setattr(cascade, "by_session", lambda *a, **k: calls.append(1) or original(*a, **k))
    turns = [
        ("trip", "I booked the train to Oslo for the conference"),
        ("trip", "The Oslo hotel is near the station"),
        ("trip", "I need a warm coat for Oslo in March"),
        ("misc", "My sister likes trains"),
        ("misc", "We watched a film about a station"),
        ("misc", "The conference call moved to Friday"),
    ]
    items = [{"content": t, "kind": "episode", "session_id": s} for s, t in turns]
    got = {}
    for weight in (0.0, 0.5):
        mem = make_mem(f"sessions{weight}", config=Config(session_weight=weight))
        mem.remember_many(items)
        hits = mem.recall("What did I plan for the Oslo trip?", limit=6)
        got[weight] = [h.memory.session_id for h in hits]
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert len(calls) == (weight > 0)
    assert got[0.5][:3] == ["trip", "trip", "trip"]

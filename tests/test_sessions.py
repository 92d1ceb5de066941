"""Sessions as evidence (``recall.cascade._sessions_ranked``, ``recall.ordering.by_session``).

A conversation where several turns are about the context ranks high; recall's order is fused
with that ranking of sessions, so the sessions the walk favours do not push out the others.
Pure checks over a stand-in for the mirror (only ``session`` is read) and, end to end, a store
of conversations.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from graphmem import Config, ValidationError
from graphmem.recall.cascade import _sessions_ranked
from graphmem.recall.ordering import by_session
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
    # What moved up says why: its conversation; what stayed or fell is not flagged.
    assert "conversation" in found[order.index(4)].flags
    assert all("conversation" not in f.flags for f in found if f.slot != 4)


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


@pytest.mark.parametrize(
    "field, value",
    [("session_weight", -1), ("session_weight", math.inf), ("session_weight", math.nan),
     ("session_top", 0), ("session_boost", math.inf), ("walk_weight", math.inf)],
)  # fmt: skip
def test_weights_that_would_break_the_scores_are_rejected(field: str, value: float) -> None:
    # An infinite weight made by_session's scores NaN (session_weight) or divided by zero
    # (an infinite best score: session_boost, walk_weight).
    with pytest.raises(ValidationError):
        Config(**{field: value})


def test_an_updated_turn_and_its_old_version_are_one_turn_of_their_session(
    make_mem, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The old version of an updated turn is still a seed (it hands over to the new one),
    but it is not a second turn: a session of one turn stays unranked."""
    import graphmem.recall.cascade as cascade

    ranked: list[dict[str, int]] = []
    original = cascade._sessions_ranked

    def spy(*args):  # type: ignore[no-untyped-def]
        ranked.append(original(*args))
        return ranked[-1]

    monkeypatch.setattr(cascade, "_sessions_ranked", spy)
    mem = make_mem("updated")
    turn = mem.remember("The Oslo hotel is near the station", kind="episode", session_id="x")
    mem.remember_many(
        [{"content": t, "kind": "episode", "session_id": "y"}
         for t in ("We talked about trains", "I like Oslo in spring", "The weather was cold")]
    )  # fmt: skip
    mem.update(turn.id, content="The Oslo hotel is right next to the central station")
    hits = mem.recall("Where is the Oslo hotel?", limit=5)
    assert hits[0].memory.id == turn.id
    assert "x" not in ranked[-1]
    assert list(ranked[-1]) == ["y"]


def test_a_memory_outside_any_conversation_keeps_its_place() -> None:
    """A fact beside chat turns in one store: only the turns move, among their places, and
    every place keeps its score."""
    config = Config()
    names: list[str | None] = ["a" if i % 2 else "b" for i in range(30)]
    names[9] = None  # a fact at place 10
    found = _found([30.0 - i for i in range(30)])
    by_session(found, _mirror(names), config, {"a": 1, "b": 2})  # type: ignore[arg-type]
    assert found[9].slot == 9 and found[9].score == 21.0
    assert [f.score for f in found] == [30.0 - i for i in range(30)]
    assert sorted(f.slot for f in found) == list(range(30))

"""The memory agent's same-turn warnings: a negative memory whose trigger the context mentions
comes back from submit() itself; the full recall stays in the background."""

from __future__ import annotations

from typing import Any

import pytest

# What is tested is the agent warnings, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def test_a_triggered_warning_reaches_the_same_turn(mem: Any) -> None:
    mem.remember("The checkout service is deployed with Helm", tags=["checkout"])
    friday = mem.remember(
        "Never run database migrations on Fridays", kind="negative", triggers=["migration"]
    ).id
    with mem.agent(limit=3) as agent:
        assert agent.submit("Can you help with the checkout service?") == []
        agent.wait_idle()
        agent.take_pending()
        warnings = agent.submit("OK, I'll run the migration now.")
        assert [h.memory.id for h in warnings] == [friday]
        assert warnings[0].flags == ["trigger"] and warnings[0].path[0].via == "trigger"
        agent.wait_idle()
        # Already shown this turn: the background recall does not repeat it next turn.
        assert friday not in {h.memory.id for h in agent.take_pending()}
        assert agent.submit("Another migration question") == []
        # A word that merely contains the trigger does not fire it.
        assert agent.submit("Talk about immigrationless paperwork") == []
    assert agent.error is None


def test_a_warning_added_during_the_session_fires_on_a_later_turn(mem: Any) -> None:
    mem.remember("The checkout service is deployed with Helm")
    with mem.agent(limit=3) as agent:
        assert agent.submit("Drop the users table?") == []
        agent.wait_idle()
        dropped = mem.remember(
            "Never drop production tables", kind="negative", triggers=["drop", "truncate"]
        ).id
        agent.submit("how do I deploy checkout?")
        agent.wait_idle()  # the background refresh picks up the new negative
        assert [h.memory.id for h in agent.submit("Truncate the orders table")] == [dropped]
        # Forgotten negatives stop firing after the next refresh.
        mem.forget(dropped)
        agent.submit("something else entirely: the weather")
        agent.wait_idle()
        agent.surfaced.clear()
        assert agent.submit("Truncate the orders table") == []

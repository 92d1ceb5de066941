"""An agent loop with graphmem's non-blocking memory agent.

Each turn the agent hands its context to the memory agent and takes the memories recalled for
the previous turn, so memory never blocks the reply: turn N's recall is ready at turn N+1.
A warning whose trigger the message mentions comes back from ``submit`` in the same turn.

    GRAPHMEM_MODEL_PATH=../shared/models/all-MiniLM-L6-v2-onnx python examples/agent_loop.py
"""

from __future__ import annotations

import tempfile

from graphmem import GraphMemory

KNOWLEDGE = [
    {"content": "The user's name is Sam and they work on the checkout service", "tags": ["sam"]},
    {"content": "The checkout service is written in Go and deployed with Helm", "tags": ["checkout"]},
    {"content": "Never run database migrations on Fridays", "kind": "negative",
     "triggers": ["migration", "migrate"]},
    {"content": "Sam prefers short answers with code", "kind": "preference", "tags": ["sam"]},
]  # fmt: skip

TURNS = [
    "Hi! Can you help me with the checkout service?",
    "How is it deployed again?",
    "OK, I'll run the migration now.",
    "Thanks, that's all for today.",
]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, GraphMemory(folder) as mem:
        mem.remember_many(KNOWLEDGE)
        with mem.agent(limit=3, session_id="demo-session") as agent:
            for number, message in enumerate(TURNS, 1):
                recalled = agent.take_pending()  # what the previous turn's context surfaced
                # Returns at once (recall runs in the background) with this turn's warnings:
                # negative memories whose triggers the message mentions.
                warnings = agent.submit(message)
                print(f"turn {number}: {message}")
                for hit in warnings:
                    print(f"   WARNING: {hit.memory.content}")
                for hit in recalled:
                    print(
                        f"   memory: {hit.memory.content}  ({', '.join(hit.flags) or 'recalled'})"
                    )
                agent.wait_idle()  # a real agent would be busy calling its LLM here
            for hit in agent.take_pending():
                print(f"   after the last turn: {hit.memory.content}")


if __name__ == "__main__":
    main()

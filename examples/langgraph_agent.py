"""A LangGraph agent that remembers across threads, with graphmem as its store.

No LLM: one deterministic node. A message "remember ..." stores a fact in the user's namespace;
any other message is answered from what cascade recall finds there. Each invoke runs in a new
thread (a new conversation), yet thread 2 knows what thread 1 was told, because the memory
lives in the store, not in the thread's state.

    pip install "graphmem[langgraph]"
    GRAPHMEM_MODEL_PATH=../shared/models/all-MiniLM-L6-v2-onnx python examples/langgraph_agent.py
"""

from __future__ import annotations

import sys
import tempfile
import uuid
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from graphmem.langgraph import GraphMemStore


class State(TypedDict):
    user: str
    message: str
    reply: str


def respond(state: State, *, store: BaseStore) -> dict[str, str]:
    namespace = ("users", state["user"], "memories")
    message = state["message"]
    if message.lower().startswith("remember "):
        fact = message[len("remember ") :]
        store.put(namespace, uuid.uuid4().hex, {"content": fact})
        return {"reply": f"Noted: {fact}"}
    hits = store.search(namespace, query=message, limit=2)
    if not hits:
        return {"reply": "I don't know yet."}
    return {"reply": " / ".join(h.value["content"] for h in hits)}


def build(store: BaseStore):  # -> CompiledStateGraph
    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(store=store)


CONVERSATIONS = [
    ("thread 1", "remember My dog is called Biscuit"),
    ("thread 1", "remember Biscuit is scared of thunderstorms"),
    ("thread 2", "What's my dog's name?"),
    ("thread 3", "What is my dog afraid of?"),
]


def main(folder: str) -> None:
    with GraphMemStore(folder) as store:
        graph = build(store)
        for thread, message in CONVERSATIONS:
            state = graph.invoke(
                {"user": "sam", "message": message, "reply": ""},
                {"configurable": {"thread_id": thread}},
            )
            print(f"{thread}: {message}\n   -> {state['reply']}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(tmp)

"""``from graphmem.langgraph import GraphMemStore``: the documented import path of the LangGraph
store, which lives in ``graphmem.adapters.langgraph``."""

from .adapters.langgraph import GraphMemStore, InvalidNamespace

__all__ = ["GraphMemStore", "InvalidNamespace"]

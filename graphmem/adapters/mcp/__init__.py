"""MCP: graphmem's own tools (``tools.py``), the reference memory server's tools and its
``memory.jsonl`` (``memory_server.py``, ``kg.py``, ``memory_file.py``), compact answers for an
agent's context (``answers.py``).

May import: what ``graphmem.adapters`` may."""

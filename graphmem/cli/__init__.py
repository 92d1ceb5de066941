"""The ``graphmem`` command: click commands that each make one ``GraphMemory`` call
(``app.py`` on memories, ``admin.py`` on a store, ``graph.py``, ``serve.py``, ``mcp.py``), the
Cypher console and the demo.

May import: everything; nothing imports it (``python -m graphmem.cli`` runs it)."""

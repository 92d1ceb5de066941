"""Other protocols over ``GraphMemory``: LangGraph's ``BaseStore`` (``langgraph.py``), the MCP
tools and the reference memory server drop-in (``mcp/``), the server of many stores
(``stores.py``, ``stores_server.py``).

May import: the API (``graphmem.memory``) and everything below it; never ``cli``."""

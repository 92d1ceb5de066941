"""Other protocols over GraphMemory: LangGraph's BaseStore, the MCP tools, the reference memory server drop-in, the multi-store server."""

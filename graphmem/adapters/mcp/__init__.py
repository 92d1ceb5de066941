"""MCP: graphmem's tools, the reference memory server's tools and file, compact answers."""

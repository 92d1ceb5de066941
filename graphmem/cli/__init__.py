"""The `graphmem` command: click commands that each make one GraphMemory call, the console and the demo."""

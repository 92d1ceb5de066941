"""Worker processes for the many-processes tests: `python tests/procs.py ROLE STORE [N]`.

Each prints one line per event on stdout ("role owner|client", "ack <id>", "done") and
reads commands from stdin where it must wait, so tests synchronise on what the workers say,
never on sleeps.
"""

from __future__ import annotations

import json
import sys

from graphmem import GraphMemory, StoreLockedError


def say(*parts: object) -> None:
    print(*parts, flush=True)


def role(mem: GraphMemory) -> str:
    return "owner" if mem.owner is None else "client"


def main() -> None:
    what, store = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    if what == "readonly":
        # Holds the database lock read-only: such an opener does not serve others.
        with GraphMemory(store, read_only=True) as mem:
            say("role", role(mem))
            sys.stdin.readline()
        return
    if what == "standby":
        # Opens the store only when told to (a test makes it the next owner at a set moment).
        sys.stdin.readline()
    mem = GraphMemory(store)
    say("role", role(mem))
    if what == "writer":
        # Writes n memories, each acknowledged once remember() returned; then waits.
        for i in range(n):
            result = mem.remember(f"Writer note {i}: service s{i} listens on port {8000 + i}")
            say("ack", result.id)
        say("done", role(mem))
        sys.stdin.readline()
    elif what == "recaller":
        for i in range(n):
            hits = mem.recall(f"which port does service s{i} listen on?", limit=3)
            say("hits", json.dumps([h.memory.id for h in hits]))
        say("done", role(mem))
    elif what in ("idle", "standby"):
        # Opens and waits; "call" runs stats() (and reports the role then); EOF closes.
        for line in sys.stdin:
            if line.strip() == "call":
                count = mem.stats().memories
                say("called", role(mem), count)
    elif what == "open-only":
        try:
            say("done", role(mem))
        except StoreLockedError as exc:
            say("locked", exc)
    mem.close()
    say("closed")


if __name__ == "__main__":
    main()

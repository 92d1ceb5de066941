"""A child process for tests/test_crash.py: writes to a store until it is killed.

Usage: ``python crash_child.py MODE STORE SEED``. Every call that returned is acknowledged on
stdout, one JSON object a line, flushed at once, so the parent knows exactly which writes the
store promised to keep when it sends SIGKILL:

- ``{"ready": pid, "owner": ...}`` once the store is open;
- ``{"ack": id, "content": text}`` after the ``remember``/``remember_many`` call that stored it
  returned;
- ``{"recalled": [ids]}`` after a ``recall`` and the ``flush`` that follows it returned (the
  access counts of those ids are then on disk);
- ``{"clustered": n}`` after a ``rebuild_clusters`` returned.

Modes: ``remember``, ``remember_many``, ``maintenance`` (recalls, each followed by ``flush``),
``clusters`` (cluster rebuilds between writes), ``owner`` (open the store, then wait to be
killed), ``client`` (``remember`` through another process that holds the store) and
``journal`` (a few ``remember`` calls, a snapshot saved, then a thread holds the database's
write lock so nothing more reaches the database: each later acknowledged ``remember`` is only
in the write-behind journal, ``{"ack": id, "content": text, "pending": n}``).
"""

from __future__ import annotations

import json
import random
import sys
import threading
from typing import Any

from graphmem import GraphMemory

# Plain words drawn at random make memories that are neither duplicates nor conflicts of one
# another (no shared subject, no numbers), so each acknowledged memory must stay active.
_WORD_TEXT = (
    "harbor lantern meadow violin glacier pepper canyon orchid falcon marble tundra saddle "
    "velvet compass thistle beacon quarry walnut sparrow ribbon cobalt prairie lagoon anchor "
    "biscuit cactus dolphin ember fjord gadget hammock igloo jasmine kettle lemon mosaic nectar "
    "oyster pebble quilt raven saffron tulip umbrella vortex willow yarn zephyr acorn bramble "
    "candle dune easel feather garnet hazel ivory juniper kiosk lilac magnet nutmeg opal parsley "
    "quartz rhubarb sequoia tinsel urchin vinegar wombat yodel zinnia almond barley cinder "
    "daisy engine fiddle goblet harpoon inkwell jigsaw kayak ladder mitten noodle olive pylon "
    "radish scarf trowel unicorn valley waffle xylophone yogurt zucchini attic bagpipe clover "
    "dragon eclipse furnace gravel hornet island jester koala lobster mango nickel orbit "
    "pretzel quiver rocket spindle turnip uplink vapor wigwam"
)
WORDS = _WORD_TEXT.split()


def sentence(rng: random.Random) -> str:
    return "The " + " ".join(rng.sample(WORDS, 9)) + "."


def say(**message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def ack(results: list[Any]) -> None:
    for r in results:
        say(ack=r.id, content=r.memory.content)


def main(mode: str, store: str, seed: int) -> None:
    rng = random.Random(seed)
    mem = GraphMemory(store)
    say(ready=True, owner=mem.owner)
    if mode == "owner":
        sys.stdin.read()  # the parent kills this process; it never writes
        return
    if mode == "journal":
        hold_back(mem, rng)
        return
    if mode in ("maintenance", "clusters"):
        # Something to recall and to cluster: 24 memories in a few tight themes.
        ack(mem.remember_many([{"content": sentence(rng)} for _ in range(24)]))
    for _ in range(100_000):
        if mode in ("remember", "client"):
            # A client whose owner dies reopens by itself (and re-sends a remember in flight).
            ack([mem.remember(sentence(rng))])
        elif mode == "remember_many":
            ack(mem.remember_many([{"content": sentence(rng)} for _ in range(rng.randint(2, 12))]))
        elif mode == "maintenance":
            hits = mem.recall(sentence(rng), limit=5)
            mem.flush()
            say(recalled=[h.memory.id for h in hits])
        elif mode == "clusters":
            clusters = mem.rebuild_clusters(min_cluster_size=2)
            say(clustered=len(clusters))
            ack([mem.remember(sentence(rng))])
        else:
            raise SystemExit(f"unknown mode {mode}")


def hold_back(mem: GraphMemory, rng: random.Random) -> None:
    """Remember with the journal's applier held back: a thread takes the engine's write lock
    (no transaction can start), so every acknowledged memory after it is in the journal only."""
    tags = ["alpha", "beta", "gamma"]
    for _ in range(3):
        ack([mem.remember(sentence(rng), tags=[rng.choice(tags)])])
    mem._shared.save_snapshot()  # a snapshot the journal's records make stale
    held = threading.Event()

    def hold() -> None:
        mem._store.engine.write_lock.acquire()
        held.set()
        threading.Event().wait()  # until the process is killed

    threading.Thread(target=hold, daemon=True).start()
    held.wait()
    for _ in range(100_000):
        r = mem.remember(sentence(rng), tags=[rng.choice(tags)])
        say(ack=r.id, content=r.memory.content, pending=mem._shared.journal.pending)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

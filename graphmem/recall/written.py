"""What a store writes of a name: the few current memories read to tell how a name is
written (as a person's, in capitals, as a mention, as one token). Aliases (``people``,
``acronyms``, ``shortened``) judge a name by these, never by every memory that holds it: a
name thousands of memories hold is read no more than one a few hold."""

from __future__ import annotations

import re

import numpy as np

from ..index.mirror import Mirror

# How many of a tag's current memories are read.
READ = 8


def live(mirror: Mirror, tag: str) -> list[int]:
    """The first few of a tag's current memories, in slot order (the same ones however the
    tag's edges were added)."""
    if not mirror.has_node(tag):
        return []
    members = np.sort(mirror.members(tag))
    return members[mirror.active[members]][:READ].tolist()


def writes(mirror: Mirror, tag: str, pattern: re.Pattern[str]) -> bool:
    """Whether one of the tag's first current memories holds ``pattern``."""
    return any(pattern.search(mirror.content.get(s, "")) for s in live(mirror, tag))


def holding(mirror: Mirror, word: str, most: int) -> list[int]:
    """The current memories among the first ``most`` that hold the word (by the lexical
    index: also where no tag names it)."""
    if not mirror.frequency(word)[0]:
        return []
    held = mirror.lexical.term_scores(word, mirror.size)
    slots = held.slots(0).tolist() if len(held) else []
    return [s for s in slots[:most] if mirror.active[s]]

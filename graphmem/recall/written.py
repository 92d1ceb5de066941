"""What a store writes of a name: the few current memories read to tell how a name is
written (as a person's, in capitals, as a mention, as one token). Aliases (``people``,
``acronyms``, ``shortened``) judge a name by these, never by every memory that holds it: a
name thousands of memories hold is read no more than one a few hold."""

from __future__ import annotations

import re

import numpy as np

from ..index.mirror import Mirror
from ..keys import TAG

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


def capitalised(mirror: Mirror, tag: str, *, rest_as_written: bool = False) -> bool:
    """Whether one of the tag's first current memories writes its words apart, each with a
    capital: as a person's name is written ("Henrik Nielsen": the rest of each word in lower
    case, not "billing-api"), or with ``rest_as_written`` as any name is ("Kettlewick WTW",
    "Bank of England": only the first letters are read)."""
    parts = tag[len(TAG) :].split(" ")
    if rest_as_written:
        spelled = [re.escape(w[:1].upper()) + "(?i:" + re.escape(w[1:]) + ")" for w in parts]
        written = re.compile(r"(?<![\w-])" + r"\s+".join(spelled) + r"(?![\w-])")
    else:
        written = re.compile(r"\b" + r"\s+".join(re.escape(w.capitalize()) for w in parts) + r"\b")
    return writes(mirror, tag, written)


def holding(mirror: Mirror, word: str, most: int) -> list[int]:
    """The current memories among the first ``most`` that hold the word (by the lexical
    index: also where no tag names it)."""
    if not mirror.frequency(word)[0]:
        return []
    held = mirror.lexical.term_scores(word, mirror.size)
    slots = held.slots(0).tolist() if len(held) else []
    return [s for s in slots[:most] if mirror.active[s]]

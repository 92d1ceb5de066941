"""What a store writes of a name: the few current memories read to tell how a name is
written (as a person's, in capitals, as a mention, as one token), and which words it writes
beside names as their kind. Aliases (``people``, ``acronyms``, ``shortened``) judge a name by
these, never by every memory that holds it: a name thousands of memories hold is read no more
than one a few hold."""

from __future__ import annotations

import re

import numpy as np

from ..index.mirror import Mirror
from ..keys import TAG
from ..text.phrasing import beside, layout

# How many of a tag's current memories are read.
READ = 8
# How many of the memories that hold a word are read for how the store uses it.
KIND_READ = 32


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


def kind_word(mirror: Mirror, noun: str) -> bool:
    """Whether the store writes ``noun``, as written, right beside a name as the name's kind
    ("the Ledger service", "team Osprey", or as a key: "service: LoadPlanner", "team=Sextant")
    in one of the first memories that hold it: a word for a kind of thing here, unlike
    "normal" or "week". The test of ``phrasing.typed_as`` (``beside``), but on the word as
    written, not its stem ("calls" in "Ledger calls Tally" would make "call" a kind), and
    across phrase breaks (a key is cut from its value there).
    Read over the store, not the one name's memories: most names are never written with
    their kind ("that service" for FleetPulse, which no memory calls a service)."""
    said = {noun}
    for slot in holding(mirror, noun, KIND_READ):
        lay = layout(mirror.content.get(slot, ""))
        if any(beside(lay, name, said) for name in mirror.tags_of(mirror.ids[slot])):
            return True
    return False


def holding(mirror: Mirror, word: str, most: int) -> list[int]:
    """The current memories among the first ``most`` that hold the word (by the lexical
    index: also where no tag names it)."""
    if not mirror.frequency(word)[0]:
        return []
    held = mirror.lexical.term_scores(word, mirror.size)
    slots = held.slots(0).tolist() if len(held) else []
    return [s for s in slots[:most] if mirror.active[s]]

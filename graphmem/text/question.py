"""What a question asks about the names it mentions, read from its words in order.

Chains (``recall.chains``) judge facts by a question's relation words: the question without its
names ("who owns the service that X depends on": who owns the service that depends on,
``relation_text``). Word order tells which of those words states the relation a name is in
(``phrasing.relation_of``: *depends*), which the relation of the phrase that makes (*owns*),
and so on: a chain's first fact states the first, its second fact the next (``onward_texts``,
``Reading.levels``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .entities import TYPE_WORDS, words
from .lexical import STOPWORDS
from .memo import memo
from .phrasing import Layout, asking_at, name_positions, possessives, relation_of


@dataclass(frozen=True)
class Reading:
    """The words of a question's relation text and, per name (in the order given), the level
    of the relation each word states outward from that name: 1 the relation the name is in,
    2 that of the phrase the name makes with it, ...; 0 for none."""

    words: tuple[str, ...]
    levels: tuple[tuple[int, ...], ...]

    def level(self, at: int) -> int:
        """The word's lowest level from any name (0: none)."""
        return min((n[at] for n in self.levels if n[at]), default=0)


def relation_text(context: str, names: Iterable[str]) -> str:
    """The context without the names it mentions, the type word a name is written with ("the
    ledger service"), nor the words it asks with ("tell me", "show us"): what it asks about
    them ("who owns the service that depends on")."""
    return " ".join(read(context, tuple(names), 0).words)


def onward_texts(context: str, names: Iterable[str], levels: int) -> list[str]:
    """What the context asks beyond the relations its names are in, one text per fact of a
    chain after the first (at most ``levels``): the relation text without the word that
    states the relation of a name, then without the word that states the relation of that
    phrase, and so on ("which team does the owner of X's upstream belong to": which team does
    the owner of belong to, then which team does the of belong to). Type words name kinds, no
    relation. The list stops at the last text that removes a word and still has one that is
    no stopword: a fact beyond it is judged by the last."""
    reading = read(context, tuple(names), levels)
    said = [(w, reading.level(i)) for i, w in enumerate(reading.words) if w not in TYPE_WORDS]
    out: list[str] = []
    last = " ".join(w for w, _ in said)
    for level in range(1, levels + 1):
        kept = [w for w, n in said if not 0 < n <= level]
        text = " ".join(kept)
        if text == last or all(w in STOPWORDS for w in kept):
            break
        out.append(text)
        last = text
    return out


def _held(reading: Reading) -> int:
    """What a reading holds beyond its question and names: a level per word and name."""
    return len(reading.words) * (1 + len(reading.levels))


@memo(budget=250_000, item_max=50_000, weigh=_held)
def read(context: str, names: tuple[str, ...], levels: int) -> Reading:
    """Read the question: its relation words, each with its level from each name (up to
    ``levels``). Cached: a recall reads the same question for the texts it embeds and for the
    levels it judges chains by; what is kept is bounded by its size (~6 MB), not by the
    number of questions, which callers choose."""
    ws = words(context)
    owned = possessives(context)
    asking = asking_at(ws)
    lay = Layout(ws, ())
    # Which names each word is part of (with the type word a name is written with: "the
    # ledger service"); a bare "service" is no mention of "quota service".
    of: list[set[int]] = [set() for _ in ws]
    for k, name in enumerate(names):
        n = len(words(name))
        for i in name_positions(lay, name):
            end = i + n + (i + n < len(ws) and ws[i + n] in TYPE_WORDS)
            for j in range(i, end):
                of[j].add(k)
    # The context as kept words and name marks (None), each mark with its names and whether
    # it is written possessive ("X's owner").
    seq: list[str | None] = []
    marks: dict[int, tuple[set[int], bool]] = {}
    for i, w in enumerate(ws):
        if of[i]:
            if not seq or seq[-1] is not None:
                seq.append(None)
            said, _ = marks.get(len(seq) - 1, (set(), False))
            marks[len(seq) - 1] = (said | of[i], owned[i])
            continue
        if i not in asking:
            seq.append(w)
    level = [[0] * len(seq) for _ in names]
    for at, (said, owns) in marks.items():
        lo = hi = at
        step = 1
        # Each step takes in at least one word: at most as many steps as words.
        while step <= levels and hi - lo < len(seq):
            place = relation_of(seq, lo, hi, owns and step == 1)
            if place < 0:
                break
            lo, hi = min(lo, place), max(hi, place)
            if seq[place] in TYPE_WORDS:
                continue  # the kind of the phrase ("the service that X calls"), no relation
            for k in said:
                if not level[k][place]:
                    level[k][place] = step
            step += 1
    kept = [(i, w) for i, w in enumerate(seq) if w is not None]
    return Reading(tuple(w for _, w in kept), tuple(tuple(n[i] for i, _ in kept) for n in level))

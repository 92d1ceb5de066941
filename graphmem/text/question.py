"""What a question asks about the names it mentions, read from its words in order.

Chains (``recall.chains``) judge facts by a question's relation words: the question without its
names ("who owns the service that X depends on": who owns the service that depends on,
``relation_text``). Word order tells which of those words states the relation a name is in
(``phrasing.relation_of``: *depends*), which the relation of the phrase that makes (*owns*),
and so on: a chain's first fact states the first, its second fact the next (``onward_texts``,
``Reading.levels``). A context that sets the scene in a sentence of its own and asks in the
next about "that team" is read as that question about the name (``scene_read_in``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .entities import TYPE_WORDS, words
from .lexical import STOPWORDS, stem
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


# A sentence ends at ". ", "! ", "? ", "; " or ": " ("tax.calc" and "svc:payments" go on).
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
# A demonstrative and the noun it points back with ("that team", "this system").
_DEMONSTRATIVE = re.compile(r"\b(?:that|this)\s+([^\W_][\w-]*)", re.IGNORECASE)
# Determiners and quantifiers that bring in something else a demonstrative could point back
# to ("X calls a service. Who owns that service?", "Trace X two dependencies down: who
# maintains that service?"); digits count too. Grammar words, a closed class.
_OTHER_REFERENTS = frozenset(
    {"a", "an", "some", "something", "somewhere", "someone", "somebody", "another", "other",
     "others", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "dozen", "dozens", "hundreds", "several", "many", "multiple", "few", "both", "every",
     "each", "all", "any", "these", "those", "various", "numerous", "couple"}
)  # fmt: skip
# Only a question's last sentences are read for it: a long context keeps its words.
RESOLVE_CHARS = 1_000


def scene_read_in(context: str, names: Iterable[str], kind: Callable[[str], bool]) -> str:
    """The context with a scene-setting sentence read into the question after it: "I'm
    reviewing headcount for Osprey. Who's in charge of that team?" asks who is in charge of
    Osprey; "reviewing" and "headcount" state no relation a chain should follow, and the
    question's relation words are read from the name's place ("the owner of that team"), as
    if it were written there.

    Read so only where the last sentence names none of ``names`` and points back with a
    demonstrative and a noun the store writes beside names as their kind (``kind(noun)``:
    "team Osprey", "service: Ledger"; not "Is that normal?", "this week"), and the sentence
    before states (no question: "Who owns Ledger? Who leads that team?" asks about the
    answer's team), names exactly one of them and nothing else the demonstrative could point
    to: no indefinite, number or quantifier ("X calls a service.
    Who owns that service?"), no noun of the name's ("Take Osprey's lead. Where does that
    person sit?": the lead), and not the demonstrative's noun apart from the name ("X's
    upstream is flaky. Who owns that upstream?"). Otherwise the context as it is.
    """
    names = tuple(dict.fromkeys(names))
    if not names:
        return context
    head, tail = context[:-RESOLVE_CHARS], context[-RESOLVE_CHARS:]
    parts = _SENTENCE_END.split(tail.rstrip())
    # Cut from a long context, the first part is the end of a sentence that began before.
    if len(parts) < 2 + bool(head):
        return context
    before, last = parts[-2], parts[-1]
    if before.endswith("?"):
        return context  # "Who owns Ledger? Who leads that team?": the team of the answer
    found = _named(before, names)
    if len(found) != 1 or _named(last, names):
        return context
    name = found[0]
    ws = words(before)
    at = name_positions(Layout(ws, ()), name)
    size = len(words(name))
    inside = {j for i in at for j in range(i, i + size)}
    owned = possessives(before)
    if (
        _OTHER_REFERENTS & set(ws)
        or any(w.isdigit() for w in ws)
        or any(owned[j] for j in inside if j < len(owned))
    ):
        return context
    # The noun may type the name right after it ("the Driftwood team"), not stand apart
    # ("the team Dmitri is on", "its upstream").
    apart = {stem(w) for j, w in enumerate(ws) if j not in inside and j - size not in at}
    pointing = [
        noun
        for noun in (m.group(1).lower() for m in _DEMONSTRATIVE.finditer(last))
        if noun not in STOPWORDS and not _verb(noun) and stem(noun) not in apart and kind(noun)
    ]
    if not pointing:
        return context
    noun = pointing[-1]
    # Read as written before: "the Driftwood team. ... that team" asks about the Driftwood team.
    said = (
        f"{name} {noun}" if any(i + size < len(ws) and ws[i + size] == noun for i in at) else name
    )
    asked = re.sub(rf"\b(?:that|this)\s+{re.escape(noun)}\b", lambda _: said, last,
                   flags=re.IGNORECASE)  # fmt: skip
    return " ".join([head + " ".join(parts[:-2]), asked]).lstrip()


def _verb(word: str) -> bool:
    """Whether the word after "that" is a verb by its form, so "that" is a relative pronoun:
    "the service that relies on it", "the team that owned it" (a store writes "Osprey relies
    on ..." too, so its memories alone would not tell). A demonstrative's noun is singular
    ("those teams"); "that status", "that class" are nouns."""
    return word.endswith(("s", "ed")) and not word.endswith(("ss", "us"))


def _named(text: str, names: tuple[str, ...]) -> list[str]:
    """The names a text mentions, of ``names``."""
    lay = Layout(words(text), ())
    return [n for n in names if name_positions(lay, n)]

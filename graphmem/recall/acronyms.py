"""A name written by its initials: "CRB" for Compliance Return Builder, "KWTW" for Kettlewick
WTW.

Teams write a long name in full in one note and by its acronym in the next. The tagger makes
a tag of each; chains (``recall.chains``) take them for one entity where the acronym is
written in capitals and exactly one known name has those initials (``aliases_of``), and a
question that writes one form where the store writes only the other is read with the form the
store writes (``spelled_as_stored``).
"""

from __future__ import annotations

import re

import numpy as np

from ..index.mirror import Mirror
from ..keys import TAG
from ..text.entities import initials, words
from ..text.lexical import STOPWORDS
from ..text.tags import infer_tags
from .people import live


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The acronym of a name the store writes both ways, or the name of an acronym."""
    name = tag[len(TAG) :]
    expansion = expansion_of(mirror, name)
    if expansion is not None:
        return (expansion,) if mirror.has_node(expansion) else ()
    found = []
    for key in initials(words(name)):
        if mirror.has_node(TAG + key) and expansion_of(mirror, key) == tag:
            found.append(TAG + key)
    return tuple(found)


def expansion_of(mirror: Mirror, acronym: str) -> str | None:
    """The tag of the one name with current memories whose initials ``acronym`` spells
    (``entities.initials``), where the store writes the acronym only in capitals ("CRB";
    not "Pat", a person, beside "PAT") or not at all; None where no name or several fit. A
    short last word counts whole only where the name writes it in capitals ("Kettlewick
    WTW": KWTW; "Peter Ng" is no PNG)."""
    if not _ACRONYM.fullmatch(acronym):
        return None
    entities = mirror.entities
    # The index first: most words are nobody's initials (and reading memories costs).
    fits = [
        n
        for n in entities.abbreviated(acronym)
        if live(mirror, TAG + (entities.name(n) or "")) and _spelled_by(mirror, acronym, n)
    ]
    tags = [TAG + (entities.name(n) or "") for n in fits]
    if len(tags) != 1 or not _written_as_a_name(mirror, tags[0]):
        return None  # not "timeout_ms" (the tag ``timeout ms``) for "TMS"
    if live(mirror, TAG + acronym) and not _only_in_capitals(mirror, acronym):
        return None
    return tags[0]


def _spelled_by(mirror: Mirror, acronym: str, toks: tuple[str, ...]) -> bool:
    """Whether the acronym is the name's initials, or its initials and its last word, which
    a current memory then writes in capitals."""
    if acronym in (
        "".join(t[0] for t in toks),
        "".join(t[0] for t in toks if t not in STOPWORDS),
    ):
        return True
    last = re.compile(r"(?<![\w-])" + re.escape(toks[-1].upper()) + r"(?![\w-])")
    tag = TAG + (mirror.entities.name(toks) or "")
    return any(last.search(mirror.content.get(s, "")) for s in live(mirror, tag))


def spelled_as_stored(mirror: Mirror, context: str) -> str:
    """The context with an acronym the store never writes ("Who owns WNM?") written as the
    name it abbreviates, and a name of several words the store never wrote ("Compliance
    Return Builder") followed by the acronym the store writes for it ("... (CRB)"): the
    chains start from it. An acronym any memory writes, even inside a longer name ("AWS
    Lambda", "Acme CLI"), is left as it is."""
    expanded: dict[str, str] = {}

    def expand(m: re.Match[str]) -> str:
        acronym = m.group(0).lower()
        if acronym not in expanded:
            expansion = None
            if not _written_anywhere(mirror, acronym):
                expansion = expansion_of(mirror, acronym)
            expanded[acronym] = (
                m.group(0)
                if expansion is None
                else " ".join(w[:1].upper() + w[1:] for w in expansion[len(TAG) :].split(" "))
            )
        return expanded[acronym]

    out = _CAPITALS.sub(expand, context)
    for found in infer_tags(out):
        if found.kind != "entity" or " " not in found.name or mirror.has_node(TAG + found.name):
            continue
        # An acronym the store writes that no known name spells: the name is its own.
        keys = [k for k in initials(words(found.name)) if live(mirror, TAG + k)]
        fits = [
            k for k in keys if not mirror.entities.abbreviated(k) and _only_in_capitals(mirror, k)
        ]
        if len(fits) == 1:
            spelled = r"\s+".join(re.escape(w) for w in found.name.split(" "))
            written = re.compile(rf"(?<![\w-])({spelled})(?![\w-])", re.IGNORECASE)
            hit = written.search(out)
            if hit:
                out = f"{out[: hit.end()]} ({fits[0].upper()}){out[hit.end() :]}"
    return out


# Three to six letters and digits, a letter first: "CRB", "KWTW", "TA2".
_ACRONYM = re.compile(r"[a-z][a-z0-9]{2,5}")
_CAPITALS = re.compile(r"(?<![\w@#.-])[A-Z][A-Z0-9]{2,5}(?![\w-])")


def _written_as_a_name(mirror: Mirror, tag: str) -> bool:
    """Whether one of the tag's first current memories writes it as words apart, each
    capitalised ("Kettlewick WTW", "Bank of England": function words aside)."""
    spelled = [
        re.escape(w[:1].upper()) + "(?i:" + re.escape(w[1:]) + ")" for w in tag[2:].split(" ")
    ]
    written = re.compile(r"(?<![\w-])" + r"\s+".join(spelled) + r"(?![\w-])")
    return any(written.search(mirror.content.get(s, "")) for s in live(mirror, tag))


def _written_anywhere(mirror: Mirror, word: str) -> bool:
    """Whether a current memory holds the word, alone or in a longer name ("AWS Lambda")."""
    if not mirror.frequency(word)[0]:
        return False
    held = mirror.lexical.term_scores(word, mirror.size)
    slots = held.slots(0) if len(held) else np.zeros(0, dtype=np.int64)
    return bool(mirror.active[slots].any())


def _only_in_capitals(mirror: Mirror, acronym: str) -> bool:
    """Whether the tag's first current memories write it, and only ever in capitals ("CRB";
    not "Pat rotated the PAT", where the word is a person's name too)."""
    word = re.compile(r"(?<![\w-])" + re.escape(acronym) + r"(?![\w-])", re.IGNORECASE)
    seen = [
        m.group(0)
        for s in live(mirror, TAG + acronym)
        for m in word.finditer(mirror.content.get(s, ""))
    ]
    return bool(seen) and all(w == acronym.upper() for w in seen)

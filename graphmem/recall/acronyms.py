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

from ..index.mirror import Mirror
from ..keys import TAG
from ..text.entities import initials, words
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
    (``entities.initials``), where the store writes the acronym in capitals ("CRB", not the
    word "crb") or writes it nowhere; None where no name or several fit."""
    if not _ACRONYM.fullmatch(acronym):
        return None
    entities = mirror.entities
    # The index first: most words are nobody's initials (and reading memories costs).
    tags = [TAG + (entities.name(n) or "") for n in entities.abbreviated(acronym)]
    tags = [t for t in tags if t != TAG and live(mirror, t)]
    if len(tags) != 1 or not _written_as_a_name(mirror, tags[0]):
        return None  # not "timeout_ms" (the tag ``timeout ms``) for "TMS"
    if mirror.has_node(TAG + acronym) and not _in_capitals(mirror, acronym):
        return None
    return tags[0]


def spelled_as_stored(mirror: Mirror, context: str) -> str:
    """The context with an acronym the store never wrote ("Who owns CRB?") written as the
    name it abbreviates, and a name of several words the store never wrote ("Compliance
    Return Builder") as the acronym the store writes for it: the chains start from it."""

    def expand(m: re.Match[str]) -> str:
        acronym = m.group(0).lower()
        if mirror.has_node(TAG + acronym):
            return m.group(0)
        expansion = expansion_of(mirror, acronym)
        if expansion is None:
            return m.group(0)
        return " ".join(w[:1].upper() + w[1:] for w in expansion[len(TAG) :].split(" "))

    out = _CAPITALS.sub(expand, context)
    for found in infer_tags(out):
        if found.kind != "entity" or " " not in found.name or mirror.has_node(TAG + found.name):
            continue
        # An acronym the store writes that no known name spells: the name is its own.
        keys = [k for k in initials(words(found.name)) if mirror.has_node(TAG + k)]
        fits = [k for k in keys if not mirror.entities.abbreviated(k) and _in_capitals(mirror, k)]
        if len(fits) == 1:
            spelled = r"\s+".join(re.escape(w) for w in found.name.split(" "))
            out = re.sub(spelled, fits[0].upper(), out, count=1, flags=re.IGNORECASE)
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


def _in_capitals(mirror: Mirror, acronym: str) -> bool:
    """Whether one of the tag's first current memories writes it in capitals."""
    written = re.compile(r"(?<![\w-])" + re.escape(acronym.upper()) + r"(?![\w-])")
    return any(written.search(mirror.content.get(s, "")) for s in live(mirror, TAG + acronym))

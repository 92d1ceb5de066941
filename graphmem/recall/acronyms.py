"""A name written by its initials: "CRB" for Compliance Return Builder, "KWTW" for Kettlewick
WTW.

Teams write a long name in full in one note and by its acronym in the next. The tagger makes
a tag of each; chains (``recall.chains``) take them for one entity where the store writes the
acronym only in capitals and exactly one known name has those initials (``aliases_of``). A
question's acronym is never read as a name the store does not write it for: "PDF", "ETA" or
"PTO" is a word of its own far more often than the initials of a name that happens to fit (a
review found "Payment Data Feed" read for PDF).
"""

from __future__ import annotations

import re

from ..index.mirror import Mirror
from ..keys import TAG
from ..text.entities import initials, words
from ..text.lexical import STOPWORDS
from .written import capitalised, live, writes


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
    WTW": KWTW; "Peter Ng" is no PNG). A person's name of three words is not told from a
    system's: with "The CTO ..." and "Chris Tan Ong ..." both written, they are one entity."""
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
    if len(tags) != 1 or not capitalised(mirror, tags[0], rest_as_written=True):
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
    return writes(mirror, tag, last)


# Three to six letters and digits, a letter first: "CRB", "KWTW", "TA2".
_ACRONYM = re.compile(r"[a-z][a-z0-9]{2,5}")


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

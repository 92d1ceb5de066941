"""Who a name refers to: the same person written by full name, first name and handle.

Teams write a person three ways: "Zainab Qureshi", "Zainab", "@zqureshi". The tagger makes a
tag of each; chains (``recall.chains``) take them for one entity where only one known person
fits (``aliases_of``), and a question that names a person by a handle the store never wrote
is read with the name the handle is made from (``spelled_out``).
"""

from __future__ import annotations

import re

from ..index.mirror import Mirror
from ..keys import TAG


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The tags of the same person written other ways: a name written as words apart in
    capitals ("Zainab Qureshi"), the first of its words alone ("Zainab is in Plymouth") when
    no other such name starts with that word (``alias_of``), and its handle ("@zqureshi",
    "@zainabq", "@zainabqureshi") when no other such name makes that handle
    (``person_of_handle``). Teams write people all three ways; a chain through one reaches
    the facts written the others."""
    full: tuple[str, ...] | None = None
    name = tag[len(TAG) :]
    if " " not in name:
        full = person_of_handle(mirror, name)
    found = [TAG + " ".join(full)] if full else []
    first = alias_of(mirror, found[0] if found else tag)
    if first and first != tag:
        found.append(first)
    whole = next((t for t in (tag, *found) if t.count(" ") == 1), None)
    if whole is not None:
        given, surname = whole[len(TAG) :].split(" ")
        for handle in (given[0] + surname, given + surname[0], given + surname):
            made = TAG + handle != tag and mirror.has_node(TAG + handle)
            if made and person_of_handle(mirror, handle) == (given, surname):
                found.append(TAG + handle)
    return tuple(dict.fromkeys(t for t in found if t != tag and mirror.has_node(t)))


def person_of_handle(mirror: Mirror, handle: str) -> tuple[str, str] | None:
    """The person's name a handle tag is made from (``made_from``), where the store writes
    the handle with an "@" (a word that only looks like a handle is no handle)."""
    made = made_from(mirror, handle)
    if made is None:
        return None
    at = re.compile(r"@" + re.escape(handle) + r"\b", re.IGNORECASE)
    if not any(at.search(mirror.content.get(s, "")) for s in mirror.members(TAG + handle)[:3]):
        return None
    return made


def made_from(mirror: Mirror, handle: str) -> tuple[str, str] | None:
    """The person's name, of two words written in capitals, that a handle is made from, the
    way teams make them: the first initial and the surname ("zqureshi"), the first name and
    the surname's initial ("olgai"), or both whole; None where no known name or more than
    one makes it."""
    if len(handle) < 4 or not handle.isalpha():
        return None
    fits: set[tuple[str, ...]] = {
        n for n in mirror.entities.ending(handle[1:]) if len(n) == 2 and n[0][0] == handle[0]
    }
    fits |= {
        n for n in mirror.entities.starting(handle[:-1]) if len(n) == 2 and n[1][0] == handle[-1]
    }
    for cut in range(2, len(handle) - 1):
        if (handle[:cut], handle[cut:]) in mirror.entities.starting(handle[:cut]):
            fits.add((handle[:cut], handle[cut:]))
    fits = {n for n in fits if all(w.isalpha() for w in n)}
    if len(fits) != 1:
        return None
    given, surname = next(iter(fits))
    if not _written_as_a_name(mirror, (given, surname)):
        return None
    return given, surname


def _written_as_a_name(mirror: Mirror, full: tuple[str, ...]) -> bool:
    """Whether a name is written as a person's is: capitalised words apart ("Henrik
    Nielsen", not "billing-api"), in one of its first memories."""
    written = re.compile(r"\b" + r"\s+".join(re.escape(w.capitalize()) for w in full) + r"\b")
    members = mirror.members(TAG + " ".join(full))[:3].tolist()
    return any(written.search(mirror.content.get(s, "")) for s in members)


def alias_of(mirror: Mirror, tag: str) -> str:
    """A name of two or three words and the first of its words alone, both ways: "" where
    another such name starts with that word, or it is not written as a person's name."""
    toks = tuple(tag[len(TAG) :].split(" "))
    if not toks or not all(t.isalpha() for t in toks) or len(toks) > 3:
        return ""
    starting = [n for n in mirror.entities.starting(toks[0]) if len(n) > 1]
    if len(starting) != 1:
        return ""
    full = starting[0]
    if len(full) > 3 or not all(w.isalpha() for w in full):
        return ""
    whole = TAG + " ".join(full)
    if len(toks) == 1:
        partner = whole
    elif toks == full:
        partner = TAG + toks[0]
    else:
        return ""
    if not mirror.has_node(partner) or not _written_as_a_name(mirror, full):
        return ""
    return partner


def spelled_out(mirror: Mirror, context: str) -> str:
    """The context with each handle the store never wrote ("which team does @wzhang belong
    to?") written as the one known person's name it is made from (``made_from``: "Wei
    Zhang"): no memory holds the handle, so nothing is lost, and the chains start from the
    person. A handle the store knows is an entity of its own (``aliases_of``)."""

    def name(m: re.Match[str]) -> str:
        handle = m.group(1).lower()
        if mirror.has_node(TAG + handle):
            return m.group(0)
        made = made_from(mirror, handle)
        return " ".join(w.capitalize() for w in made) if made else m.group(0)

    return _HANDLE.sub(name, context)


# "@wzhang": a handle of letters, not an e-mail address ("ops@example.com") nor "@@".
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z]+)\b(?![@.-]\w)")

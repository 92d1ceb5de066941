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
from ..text.entities import words
from ..text.lexical import fold
from .written import READ, capitalised, holding, live, writes


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The tags of the same person written other ways: a name written as words apart in
    capitals ("Zainab Qureshi"), the first of its words alone ("Zainab is in Plymouth") when
    no other such name starts with that word (``alias_of``), and its handle ("@zqureshi",
    "@zainabq", "@zainabqureshi") when no other such name makes that handle
    (``person_of_handle``). Teams write people all three ways; a chain through one reaches
    the facts written the others. A word that is both a first name and a handle of someone
    else is ambiguous: the first name wins (``made_from`` reads no known name as a handle)."""
    name = tag[len(TAG) :]
    if not name.strip():
        return ()
    found: list[str] = []
    person = None
    first = alias_of(mirror, tag)
    if first:
        found.append(first)
    elif name.count(" ") <= 1:
        person = person_of_handle(mirror, name)
        if person is not None:
            found.append(person)
            first = alias_of(mirror, person)
            if first:
                found.append(first)
    # The whole name: the person a handle is made from ("hannah l" has two words too).
    whole = person or next((t for t in (tag, *found) if t.count(" ") == 1), None)
    if whole is not None:
        for handle in handles(whole[len(TAG) :]):
            made = TAG + handle != tag and mirror.has_node(TAG + handle)
            if made and person_of_handle(mirror, handle) == whole:
                found.append(TAG + handle)
    return tuple(dict.fromkeys(t for t in found if t != tag and mirror.has_node(t)))


def handles(name: str) -> list[str]:
    """The handles teams make of a person's name of two words (``made_from``), as tags."""
    given, surname = (fold(w) for w in name.split(" "))
    apart = [f"{given} {surname[:i]}" for i in range(1, len(surname))]
    apart += [f"{given[:i]} {surname}" for i in range(1, len(given))]
    return [given[0] + surname, given + surname[0], given + surname, *apart]


def person_of_handle(mirror: Mirror, handle: str) -> str | None:
    """The tag of the person a handle tag is made from (``made_from``), where the store
    writes the handle as a mention ("@olgai", not the domain of "support@olgai.io"): a word
    that only looks like a handle is no handle."""
    made = made_from(mirror, handle)
    if made is None:
        return None
    if not writes(mirror, TAG + handle, _mention(handle)):
        return None
    return made


def made_from(mirror: Mirror, handle: str) -> str | None:
    """The tag of the person, a name of two words written in capitals, that a handle is
    made from, the way teams make them: the first initial and the surname ("zqureshi"), the
    first name of four letters or more and the surname's initial ("olgai"), both whole
    ("zainabqureshi"), or two parts apart, each the start of
    a word of the name and one of them whole ("hannah_l", "b.ince", the tags ``hannah l`` and
    ``b ince``); None where no known name or more than one makes it, where the handle is a
    known name or the first word of one itself ("dana": Dana, not Dan Abbott), or is a
    broadcast ("@here", "@oncall"). Only names with current memories count (whatever the
    recall's filters): a name whose memories were all forgotten makes no handle ambiguous."""
    entities = mirror.entities
    if " " in handle:
        if capitalised(mirror, TAG + handle):
            return None  # "@jo.smith" is the tag of Jo Smith, a person of their own
        return _one_person(mirror, _made_apart(mirror, handle))
    if len(handle) < 4 or not handle.isalpha() or handle in _BROADCASTS:
        return None
    first_of = [
        n
        for n in entities.starting(handle)
        if len(n) > 1 and live(mirror, TAG + (entities.name(n) or ""))
    ]
    if first_of or capitalised(mirror, TAG + handle):
        return None  # a first name ("Dana"), not the handle of another person
    # Not the surname alone: "@smith" is as often a bot, "@jenkins" the CI (a review found both).
    fits: set[tuple[str, ...]] = {
        n for n in entities.ending(handle[1:]) if len(n) == 2 and n[0][0] == handle[0]
    }
    fits |= {
        n
        for n in entities.starting(handle[:-1])
        if len(n) == 2 and len(n[0]) >= 4 and n[1][0] == handle[-1]
    }
    for cut in range(3, len(handle) - 1):
        if (handle[:cut], handle[cut:]) in entities.starting(handle[:cut]):
            fits.add((handle[:cut], handle[cut:]))
    return _one_person(mirror, fits)


def _made_apart(mirror: Mirror, handle: str) -> set[tuple[str, ...]]:
    """The names of two words a handle of two parts abbreviates ("hannah l", "b ince"): each
    part starts its word, one of them whole. Not the name itself: that is the same tag."""
    parts = handle.split(" ")
    if len(parts) != 2 or not all(p.isalpha() for p in parts) or len(handle) < 4:
        return set()
    given, surname = parts
    entities = mirror.entities
    fits: set[tuple[str, ...]] = {
        n for n in entities.starting(given) if len(n) == 2 and n[1].startswith(surname)
    }
    fits |= {n for n in entities.ending(surname) if n[0].startswith(given)}
    return {n for n in fits if len(n) == 2 and n != (given, surname)}


def _one_person(mirror: Mirror, fits: set[tuple[str, ...]]) -> str | None:
    """The tag of the one name among ``fits`` with current memories that is written as a
    person's; None where none is, or several are. Another handle is no person ("@b.ince",
    the tag ``b ince``, beside Bartholomew Ince)."""
    entities = mirror.entities
    spelled = [entities.name(n) for n in sorted(fits) if all(w.isalpha() for w in n)]
    tags = [TAG + name for name in spelled if name]
    tags = [t for t in tags if len(live(mirror, t)) and capitalised(mirror, t)]
    return tags[0] if len(tags) == 1 else None


# Handles that call a group, not a person.
_BROADCASTS = frozenset({"here", "channel", "everyone", "all", "oncall", "team", "group"})


def _mention(handle: str) -> re.Pattern[str]:
    """The handle written as a mention: "@olgai", not the domain of "support@olgai.io"; a
    handle of two parts with a dot, a hyphen or an underscore between them ("@hannah_l")."""
    spelled = r"[._-]".join(re.escape(p) for p in handle.split(" "))
    return re.compile(r"(?<![\w.@])@" + spelled + r"(?![\w(-]|\.\w)", re.IGNORECASE)


def alias_of(mirror: Mirror, tag: str) -> str:
    """A name of two or three words and the first of its words alone, both ways: "" where
    another such name starts with that word, or it is not written as a person's name."""
    toks = words(tag[len(TAG) :])
    if not toks or not all(t.isalpha() for t in toks) or len(toks) > 3:
        return ""
    # Names whose memories were all forgotten stay in the index (and in a snapshot of it):
    # only names with current memories count, however the mirror was loaded.
    starting = [
        n
        for n in mirror.entities.starting(toks[0])
        if len(n) > 1 and live(mirror, TAG + (mirror.entities.name(n) or ""))
    ]
    # A handle of two parts ("freya n", from "@freya.n") is no second person the first name
    # could be: a name with a word of one or two letters counts only where it is written as a
    # person's ("Jo Smith"). The others are not read: thousands of names may share the word.
    starting = [
        n
        for n in starting
        if min(len(w) for w in n) > 2 or capitalised(mirror, TAG + (mirror.entities.name(n) or ""))
    ]
    if len(starting) != 1:
        return ""
    full = starting[0]
    spelled = mirror.entities.name(full)
    if len(full) > 3 or not all(w.isalpha() for w in full) or not spelled:
        return ""
    if len(toks) == 1:
        partner = TAG + spelled
    elif toks == full:
        partner = TAG + (mirror.entities.name(toks[:1]) or toks[0])
    else:
        return ""
    if not mirror.has_node(partner) or not capitalised(mirror, TAG + spelled):
        return ""
    return partner


def spelled_out(mirror: Mirror, context: str) -> str:
    """The context with each handle the store never wrote ("which team does @wzhang belong
    to?") written as the one known person's name it is made from (``made_from``: "Wei
    Zhang"): no memory holds the handle's word but as a mention ("assigned to wzhang" keeps
    it as written), and the chains start from the person. A handle the store knows is an
    entity of its own (``aliases_of``)."""

    def name(m: re.Match[str]) -> str:
        handle = _APART.sub(" ", m.group(1).lower())
        if live(mirror, TAG + handle) or _written_bare(mirror, handle):
            return m.group(0)
        made = made_from(mirror, handle)
        return " ".join(w.capitalize() for w in made[len(TAG) :].split(" ")) if made else m.group(0)

    return _HANDLE.sub(name, context)


def _written_bare(mirror: Mirror, handle: str) -> bool:
    """Whether a current memory holds the handle's word other than as a mention ("assigned
    to wzhang"): a question rewritten to the name would no longer find it by that word."""
    if " " in handle:
        return False
    mention = _mention(handle)
    bare = re.compile(r"(?<![\w.@])" + re.escape(handle) + r"\b", re.IGNORECASE)
    return any(
        bare.search(mention.sub("", mirror.content.get(slot, "")))
        for slot in holding(mirror, handle, READ)
    )


# "@wzhang", "@hannah_l", "@b.ince": a handle of letters in one or two parts, not an e-mail
# address ("ops@example.com") nor "@@".
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z]+(?:[._-][A-Za-z]+)?)\b(?![@.-]\w)")
_APART = re.compile(r"[._-]")

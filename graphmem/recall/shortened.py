"""A name written shortened as an identifier: "deadline-repo" for Deadline Repository,
"bkp-orch" for Backup Orchestrator, "lut-srv" for LUT Server.

Engineers call a system by its service id in one note and by its display name in the next.
A question that writes an identifier the store never wrote is read with the one known name
whose words the identifier's parts shorten (``spelled_as_stored``): the chains start from it.
"""

from __future__ import annotations

import re

from ..index.mirror import Mirror
from ..keys import TAG
from ..text.entities import words
from .written import holding, live, writes

# A lower-case identifier of two to four parts: "deadline-repo", "bkp_orch", "tc.svc".
_IDENTIFIER = re.compile(r"(?<![\w@#./-])[a-z][a-z0-9]*(?:[-_.][a-z][a-z0-9]*){1,3}(?![\w/-]|\.\w)")
# How many first words of one letter to read at most (each is compared with the identifier's
# first part): beyond it, in a very big store, an identifier is read as it is written.
_READ_MAX = 5_000


def spelled_as_stored(mirror: Mirror, context: str) -> str:
    """The context with each identifier that names no known entity ("who owns bkp-orch?")
    followed by the one known name it shortens (``expansion_of``: "bkp-orch (Backup
    Orchestrator)")."""

    read: dict[str, str] = {}

    def expand(m: re.Match[str]) -> str:
        written = m.group(0)
        if written not in read:
            # A few per question: each one reads the names of its first letter.
            if len(read) >= _IDENTIFIERS_MAX:
                return written
            read[written] = written
            toks = words(written)
            known = mirror.entities.name(toks) if toks else None
            unknown = len(toks) >= 2 and not (known and live(mirror, TAG + known))
            if unknown and not _written_anywhere(mirror, toks):
                name = expansion_of(mirror, toks)
                # Kept beside the name: search still finds a memory by the identifier.
                read[written] = written if name is None else f"{written} ({name})"
        return read[written]

    if not any(c in context for c in "-_."):
        return context
    return _IDENTIFIER.sub(expand, context)


# How many distinct identifiers of one question are read.
_IDENTIFIERS_MAX = 8
_WRITTEN_READ = 50


def _written_anywhere(mirror: Mirror, toks: tuple[str, ...]) -> bool:
    """Whether a current memory writes the identifier itself ("Guests check-in at reception":
    check-in is a word there, not a name to read)."""
    spelled = re.compile(
        r"(?<![\w-])" + r"[-_. ]".join(re.escape(t) for t in toks) + r"(?![\w-])", re.IGNORECASE
    )
    rarest = min(toks, key=lambda t: mirror.frequency(t)[0])
    return any(
        spelled.search(mirror.content.get(slot, ""))
        for slot in holding(mirror, rarest, _WRITTEN_READ)
    )


def expansion_of(mirror: Mirror, parts: tuple[str, ...]) -> str | None:
    """The one known name with current memories, as its memories write it, whose words the
    ``parts`` shorten one by one (``shortens``); None where none or several do."""
    tag = _expansion_tag(mirror, parts)
    return None if tag is None else _as_written(mirror, tag)


def _expansion_tag(mirror: Mirror, parts: tuple[str, ...]) -> str | None:
    entities = mirror.entities
    firsts = entities.first_words(parts[0][:1], _READ_MAX)
    if firsts is None:
        return None
    found = []
    for first in firsts:
        if not shortens(parts[0], first):
            continue
        for toks in entities.starting(first):
            if toks != parts and len(toks) == len(parts) and all(map(shortens, parts, toks)):
                found.append(toks)
    tags = [TAG + (entities.name(t) or "") for t in found]
    tags = [t for t in tags if t != TAG and live(mirror, t)]
    return tags[0] if len(tags) == 1 else None


def _written_as_identifier(mirror: Mirror, tag: str) -> bool:
    """Whether one of the tag's first current memories writes its words as one token, not
    as a channel or a handle."""
    spelled = r"[-_.]".join(re.escape(w) for w in tag[len(TAG) :].split(" "))
    # Not a channel ("#plat-infra" is the team's channel, not the team) nor a handle.
    written = re.compile(r"(?<![\w#@-])" + spelled + r"(?![\w-])", re.IGNORECASE)
    return writes(mirror, tag, written)


def shortens(part: str, word: str) -> bool:
    """Whether an identifier's part is the word or a shortening of it: the word itself, its
    first letters ("repo", "orch"), or its first letter and some of its others in order
    ("bkp" for backup, "srv" for server); "svc" is read as "service" already. Three letters
    at least, or the word whole: "up" and "in" shorten too much ("follow-up", "sign_up")."""
    if part == word:
        return True
    if len(part) < 3 or part[0] != word[:1] or len(part) >= len(word):
        return False  # "check-in" is no "Checkout Integration"
    if word.startswith(part):
        return True
    rest = iter(word[1:])
    return all(c in rest for c in part[1:])


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The name an identifier the store writes shortens ("lut-srv", the tag ``lut srv``: LUT
    Server), where one known name fits; an identifier is written as one token ("lut-srv",
    "lut_srv") in its memories. One way only: from the name, finding the identifiers would
    read every name of its first letter for each entity a chain passes through."""
    toks = words(tag[len(TAG) :])
    if len(toks) < 2 or not _written_as_identifier(mirror, tag):
        return ()
    name = _expansion_tag(mirror, toks)
    return (name,) if name is not None and name != tag and mirror.has_node(name) else ()


def _as_written(mirror: Mirror, tag: str) -> str:
    """The name as one of its memories writes it ("Deadline Repository"), else its tag."""
    name = tag[len(TAG) :]
    pattern = re.compile(r"\s+".join(re.escape(w) for w in name.split(" ")), re.IGNORECASE)
    for slot in live(mirror, tag):
        m = pattern.search(mirror.content.get(slot, ""))
        if m:
            return m.group(0)
    return name

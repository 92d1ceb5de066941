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
from .people import live

# A lower-case identifier of two to four parts: "deadline-repo", "bkp_orch", "tc.svc".
_IDENTIFIER = re.compile(r"(?<![\w@#./-])[a-z][a-z0-9]*(?:[-_.][a-z][a-z0-9]*){1,3}(?![\w/-]|\.\w)")
# How many first words of one letter to read at most: a store of a million memories has
# thousands; a question's identifier is read back only where the names are few enough.
_READ_MAX = 20_000


def spelled_as_stored(mirror: Mirror, context: str) -> str:
    """The context with each identifier that names no known entity ("who owns bkp-orch?")
    followed by the one known name it shortens (``expansion_of``: "bkp-orch (Backup
    Orchestrator)")."""

    def expand(m: re.Match[str]) -> str:
        toks = words(m.group(0))
        known = mirror.entities.name(toks)
        if len(toks) < 2 or (known is not None and live(mirror, TAG + known)):
            return m.group(0)
        name = expansion_of(mirror, toks)
        # Kept beside the name: a memory may write the identifier untagged ("bkp-orch
        # restarted at 02:00"), and search finds it by that word.
        return m.group(0) if name is None else f"{m.group(0)} ({name})"

    return (
        _IDENTIFIER.sub(expand, context)
        if "-" in context or "_" in context or "." in context
        else context
    )


def expansion_of(mirror: Mirror, parts: tuple[str, ...]) -> str | None:
    """The one known name with current memories, as its memories write it, whose words the
    ``parts`` shorten one by one (``shortens``); None where none or several do."""
    tag = _expansion_tag(mirror, parts)
    return None if tag is None else _as_written(mirror, tag)


def _expansion_tag(mirror: Mirror, parts: tuple[str, ...]) -> str | None:
    entities = mirror.entities
    firsts = entities.first_words(parts[0][:1])
    if len(firsts) > _READ_MAX:
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
    return any(written.search(mirror.content.get(s, "")) for s in live(mirror, tag))


def shortens(part: str, word: str) -> bool:
    """Whether an identifier's part is the word or a shortening of it: the word itself, its
    first letters ("repo", "orch"), or its first letter and some of its others in order
    ("bkp" for backup, "srv" for server); "svc" is read as "service" already. Two letters at
    least, or the word whole."""
    if part == word:
        return True
    if len(part) < 2 or part[0] != word[:1] or len(part) >= len(word):
        return False
    if word.startswith(part):
        return True
    rest = iter(word[1:])
    return len(part) >= 3 and all(c in rest for c in part[1:])


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The name an identifier the store writes shortens ("lut-srv", the tag ``lut srv``: LUT
    Server), where one known name fits; an identifier is written as one token ("lut-srv",
    "lut_srv") in its memories."""
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

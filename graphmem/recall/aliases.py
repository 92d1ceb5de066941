"""One entity written several ways: a person by name, first name and handle (``people``), a
name by its acronym (``acronyms``) or by a shortened identifier (``shortened``). Chains take
the forms for one entity; a question that calls someone by a handle, or something by an
identifier, the store never wrote is read with the name it writes."""

from __future__ import annotations

from ..index.mirror import Mirror
from . import acronyms, people, shortened


def aliases_of(mirror: Mirror, tag: str) -> tuple[str, ...]:
    """The tags of the same entity written other ways."""
    found = (
        *people.aliases_of(mirror, tag),
        *acronyms.aliases_of(mirror, tag),
        *shortened.aliases_of(mirror, tag),
    )
    return tuple(dict.fromkeys(found))


def spelled_as_stored(mirror: Mirror, context: str) -> str:
    """The context with the names the store never wrote as the forms it writes."""
    return shortened.spelled_as_stored(mirror, people.spelled_out(mirror, context))

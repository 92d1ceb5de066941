"""A dictionary of known entity tags, matched in new text (entity linking without an LLM).

A memory that mentions an entity some other memory introduced ("Payments service", a passage
title) gets that entity's tag, so the two meet at one Tag node and recall can walk between
them. Matching is by whole words after the same normalisation on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lexical import STOPWORDS, fold
from .tags import is_common_word

_WORD = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s\b")
MAX_WORDS = 8


def words(text: str) -> tuple[str, ...]:
    """Lower-case word tokens without accents, the form both names and texts are matched in."""
    text = _POSSESSIVE.sub("", fold(text).casefold())
    return tuple(_WORD.findall(text))


def _cased_words(text: str) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """Word tokens (lower-cased) and whether each was written like a name (capital or digit)."""
    raw = _WORD.findall(_POSSESSIVE.sub("", fold(text)))
    return (
        tuple(w.casefold() for w in raw),
        tuple(w[:1].isupper() or w[:1].isdigit() for w in raw),
    )


def linkable(name: str) -> bool:
    """Whether an entity name is specific enough to link by mention."""
    toks = words(name)
    if not toks or len(toks) > MAX_WORDS or all(t in STOPWORDS for t in toks):
        return False
    if len(toks) == 1:
        tok = toks[0]
        return len(tok) >= 3 and not tok.isdigit() and not is_common_word(tok)
    return True


class EntityIndex:
    """Known entity names, looked up by their first word."""

    def __init__(self) -> None:
        self._by_first: dict[str, dict[tuple[str, ...], str]] = {}

    def __contains__(self, name: str) -> bool:
        toks = words(name)
        return bool(toks) and toks in self._by_first.get(toks[0], {})

    def add(self, name: str) -> None:
        if not linkable(name):
            return
        toks = words(name)
        self._by_first.setdefault(toks[0], {})[toks] = name

    def update(self, names: Iterable[str]) -> None:
        for name in names:
            self.add(name)

    def discard(self, name: str) -> None:
        toks = words(name)
        if toks and toks[0] in self._by_first:
            self._by_first[toks[0]].pop(toks, None)

    def find(self, text: str) -> set[str]:
        """The known names mentioned in ``text``, written as names.

        A mention counts when each of its words other than connectors ("of", "the") is
        capitalised (or a number): "University of North Texas" names the entity, "the north
        of texas" does not. Precision matters: a wrong link joins unrelated memories.
        """
        toks, cased = _cased_words(text)
        found: set[str] = set()
        for i, tok in enumerate(toks):
            candidates = self._by_first.get(tok)
            if not candidates:
                continue
            for name_toks, name in candidates.items():
                n = len(name_toks)
                if toks[i : i + n] == name_toks and _written_as_name(
                    toks[i : i + n], cased[i : i + n]
                ):
                    found.add(name)
        return found


def _written_as_name(toks: tuple[str, ...], cased: tuple[bool, ...]) -> bool:
    return all(c or t in STOPWORDS for t, c in zip(toks, cased, strict=True)) and cased[0]


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` as whole words written as a name."""
    needle = words(name)
    if not needle:
        return False
    hay, cased = _cased_words(text)
    n = len(needle)
    return any(
        hay[i : i + n] == needle and _written_as_name(hay[i : i + n], cased[i : i + n])
        for i in range(len(hay) - n + 1)
    )

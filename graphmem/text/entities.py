"""A dictionary of known entity tags, matched in new text (entity linking without an LLM).

A memory that mentions an entity some other memory introduced ("Payments service", a passage
title, ``billing-api``) gets that entity's tag, so the two meet at one Tag node and recall can
walk between them. Matching is by whole words after the same normalisation on both sides
("billing-api", "billing_api" and "Billing API" are the words billing, api).

A mention counts when it is written as a name (capitalised), as one technical token
("billing-api"), or, for a one-word name, in lower case when the corpus says the word names
something: it is known as a name and rare across the memories ("ledger" in "billing-api cannot
start without ledger"), unlike a common word that happens to name a service ("search").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from .lexical import STOPWORDS, fold
from .tags import heading, is_common_word, mentions_apart, normalize_tag

_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s\b")
_JOINERS = frozenset("-_")
# Words that say what kind of thing a name is: "ledger-svc" and "the ledger service" mention
# ledger, and "svc" is written for "service".
TYPE_WORDS = frozenset({"service"})
_ABBREVIATED = {"svc": "service"}
# Which words are names is the tagger's rule, not a Config field: a store's tags must not
# depend on who opened it (they change only with tags.TAGGER_VERSION).
MAX_WORDS = 8
# A one-word name is matched in lower case when at most this share of memories holds the word
# (or at most RARE_MIN of them, in a small store).
RARE_SHARE = 0.03
RARE_MIN = 10
# ... and only in a text of at most this many words that does not open with a heading: in a
# short note ("billing-api cannot start without ledger") a bare rare word is likely a name, in
# a passage ("Cappy (juice)\nCappy is a fruit juice brand ...") likely prose.
SHORT_TEXT_WORDS = 40

# word -> (documents holding it, documents in all)
Frequency = Callable[[str], tuple[int, int]]


def words(text: str) -> tuple[str, ...]:
    """Lower-case word tokens without accents, the form both names and texts are matched in."""
    text = _POSSESSIVE.sub("", fold(mentions_apart(text)).casefold())
    return tuple(_ABBREVIATED.get(w, w) for w in _WORD.findall(text))


def _tokens(text: str) -> tuple[tuple[str, ...], tuple[bool, ...], tuple[bool, ...]]:
    """Word tokens (lower-cased), whether each was written like a name (capital or digit), and
    whether each is joined to the one before it by ``-`` or ``_`` (one technical token)."""
    text = _POSSESSIVE.sub("", fold(mentions_apart(text)))
    toks: list[str] = []
    cased: list[bool] = []
    joined: list[bool] = []
    end = -1
    for m in _WORD.finditer(text):
        w = m.group(0)
        folded = w.casefold()
        toks.append(_ABBREVIATED.get(folded, folded))
        gap = text[end : m.start()] if end >= 0 else ""
        joined.append(bool(gap) and set(gap) <= _JOINERS)
        # The lower-case part of a capitalised hyphenated name is written as a name too:
        # "Kim Jong-il", "Saint-louis".
        cased.append(
            w[:1].isupper() or w[:1].isdigit() or (joined[-1] and gap == "-" and cased[-1])
        )
        end = m.end()
    return tuple(toks), tuple(cased), tuple(joined)


def initials(toks: tuple[str, ...]) -> tuple[str, ...]:
    """The acronyms teams write for a name of two to five words: its initials ("Compliance
    Return Builder": crb), without those of its function words ("Bank of England": be, and
    boe), and with a short last word whole ("Kettlewick WTW": kwtw). Three letters at least:
    "IT" or "OT" is a word of its own more often than a name's initials."""
    if not 2 <= len(toks) <= 5 or not all(t[:1].isalpha() for t in toks):
        return ()
    keys = {"".join(t[0] for t in toks)}
    content = [t for t in toks if t not in STOPWORDS]
    if 2 <= len(content) < len(toks):
        keys.add("".join(t[0] for t in content))
    if len(toks[-1]) <= 4:
        keys.add("".join(t[0] for t in toks[:-1]) + toks[-1])
    return tuple(sorted(k for k in keys if len(k) >= 3))


def linkable(name: str) -> bool:
    """Whether an entity name is specific enough to link by mention."""
    toks = words(name)
    if not toks or len(toks) > MAX_WORDS or all(t in STOPWORDS for t in toks):
        return False
    if len(toks) == 1:
        tok = toks[0]
        return len(tok) >= 3 and not tok.isdigit() and not is_common_word(tok)
    return True


def _document(text: str) -> bool:
    """Whether the text opens with a heading ("Title\nText"): a passage, whose lower-case
    words are prose however short it is."""
    return "\n" in text and heading(text) is not None


def rare(word: str, frequency: Frequency | None) -> bool:
    """Whether few memories hold the word (a name, not a common word)."""
    if frequency is None:
        return False
    df, n = frequency(word)
    return df <= max(RARE_MIN, RARE_SHARE * n)


def _mentioned(
    toks: tuple[str, ...],
    cased: tuple[bool, ...],
    joined: tuple[bool, ...],
    i: int,
    n: int,
    frequency: Frequency | None,
    lenient: bool = False,
) -> bool:
    """Whether ``toks[i:i+n]`` (equal to a known name) is a mention of it. ``lenient``: a
    known one-word name counts in lower case whatever its frequency (for questions)."""
    end = i + n
    if end < len(toks) and joined[end] and toks[end] in TYPE_WORDS:
        end += 1  # "ledger-svc" mentions ledger
    # Part of a longer technical token ("pg-invoice" does not mention "invoice").
    if joined[i] or (end < len(toks) and joined[end]):
        return False
    if end > i + n:
        return True
    if n > 1 and toks[i + n - 1] in TYPE_WORDS and not any(joined[i + 1 : i + n]):
        return True  # "the review service": a name with its type word, written as prose
    if cased[i] and all(
        c or t in STOPWORDS for t, c in zip(toks[i : i + n], cased[i : i + n], strict=False)
    ):
        return True  # written as a name: "University of North Texas", "Billing API"
    if n > 1:
        return all(joined[i + 1 : i + n])  # one technical token: "billing-api", "billing_api"
    return lenient or (len(toks) <= SHORT_TEXT_WORDS and rare(toks[i], frequency))


class EntityIndex:
    """Known entity names, looked up by their words: ``_by_first`` maps a name's first word to
    its words and the name (the form snapshots save), ``_lengths`` counts the names of each
    length per first word, so ``find`` looks each length up at each word of the text (a dict
    lookup, not a comparison with every name sharing the word: 2,000 names "ledger-xNNNN" cost
    a text of 2,800 "ledger"s 5.6 million comparisons)."""

    def __init__(self, frequency: Frequency | None = None) -> None:
        self._first: dict[str, dict[tuple[str, ...], str]] = {}
        self._lengths: dict[str, Counter[int]] = {}
        # The names of two or more words by their last word: a handle ("@zqureshi") is read
        # back to the name it is made from by its surname (``recall.people.made_from``).
        self._last: dict[str, set[tuple[str, ...]]] = {}
        # The names of two to five words by their initials: "CRB" is read back to the one
        # name it abbreviates (``recall.acronyms``).
        self._initials: dict[str, set[tuple[str, ...]]] = {}
        # First words by their first letter: "bkp-orch" is read back to the one name whose
        # words it shortens (``recall.shortened``).
        self._letters: dict[str, set[str]] = {}
        self.frequency = frequency

    @property
    def _by_first(self) -> dict[str, dict[tuple[str, ...], str]]:
        return self._first

    @_by_first.setter
    def _by_first(self, by_first: dict[str, dict[tuple[str, ...], str]]) -> None:
        self._first = by_first
        self._lengths = {
            first: Counter(len(toks) for toks in names) for first, names in by_first.items()
        }
        self._last = {}
        self._initials = {}
        self._letters = {}
        for first, names in by_first.items():
            if names:
                self._letters.setdefault(first[:1], set()).add(first)
            for toks in names:
                self._index_parts(toks)

    def __contains__(self, name: str) -> bool:
        toks = words(name)
        return bool(toks) and toks in self._first.get(toks[0], {})

    def add(self, name: str) -> None:
        if not linkable(name):
            return
        toks = words(name)
        names = self._first.setdefault(toks[0], {})
        if toks not in names:
            self._lengths.setdefault(toks[0], Counter())[len(toks)] += 1
            self._letters.setdefault(toks[0][:1], set()).add(toks[0])
            self._index_parts(toks)
        names[toks] = name

    def _index_parts(self, toks: tuple[str, ...]) -> None:
        if len(toks) > 1:
            self._last.setdefault(toks[-1], set()).add(toks)
            for key in initials(toks):
                self._initials.setdefault(key, set()).add(toks)

    def update(self, names: Iterable[str]) -> None:
        for name in names:
            self.add(name)

    def starting(self, word: str) -> list[tuple[str, ...]]:
        """The known names (as their words) whose first word is ``word``."""
        return list(self._first.get(word, {}))

    def name(self, toks: tuple[str, ...]) -> str | None:
        """The name as it was added (its tag's spelling, accents kept) for its words."""
        return self._first.get(toks[0], {}).get(toks) if toks else None

    def ending(self, word: str) -> list[tuple[str, ...]]:
        """The known names of two or more words (as their words) whose last word is ``word``."""
        return sorted(self._last.get(word, ()))

    def first_words(self, letter: str, most: int) -> list[str] | None:
        """The first words of known names that start with ``letter``; None where there are
        more than ``most`` (counted with those of forgotten names)."""
        held = self._letters.get(letter, ())
        if len(held) > most:
            return None
        return sorted(w for w in held if self._first.get(w))

    def abbreviated(self, acronym: str) -> list[tuple[str, ...]]:
        """The known names (as their words) that ``acronym`` (lower case) abbreviates."""
        return sorted(self._initials.get(acronym, ()))

    def discard(self, name: str) -> None:
        toks = words(name)
        if toks and toks[0] in self._first and self._first[toks[0]].pop(toks, None) is not None:
            lengths = self._lengths[toks[0]]
            lengths[len(toks)] -= 1
            if not lengths[len(toks)]:
                del lengths[len(toks)]
            self._last.get(toks[-1], set()).discard(toks)
            for key in initials(toks):
                self._initials.get(key, set()).discard(toks)

    def find(
        self,
        text: str,
        frequency: Frequency | None = None,
        *,
        lenient: bool = False,
        written: bool = False,
    ) -> set[str]:
        """The known names mentioned in ``text`` (see the module docstring for what counts).

        Precision matters: a wrong link joins unrelated memories, so "the north of texas" does
        not mention "North Texas". A question is read ``lenient``: a one-word name in lower
        case counts however many memories hold the word ("who owns fraud?" asks about the
        fraud service, however much the store talks about it); a wrong guess there only
        starts a walk, it links nothing. ``written``: only names written as names (capitalised
        or one technical token), no bare lower-case word.
        """
        frequency = None if written or _document(text) else frequency or self.frequency
        toks, cased, joined = _tokens(text)
        found: set[str] = set()
        for i, tok in enumerate(toks):
            lengths = self._lengths.get(tok)
            if not lengths:
                continue
            candidates = self._first[tok]
            for n in tuple(lengths):
                if i + n > len(toks):
                    continue
                name = candidates.get(toks[i : i + n])
                if (
                    name is not None
                    and name not in found
                    and _mentioned(toks, cased, joined, i, n, frequency, lenient)
                ):
                    found.add(name)
        return found


# A dot inside a token: "os.path", "example.com", "3.11". "mr. smith goes to washington" and
# "st. louis" are names with an abbreviation.
_DOTTED = re.compile(r"\.\S")


def indexed(name: str, kind: str) -> bool:
    """Whether a tag belongs in the entity index: every name but paths and dotted names,
    whatever made it a tag (a phrase, ``billing api`` written as billing-api, a user's
    ``-t billing-api``), so a process that wrote the tag and one that rebuilt its index from
    the database agree. A name too common to link by mention is not, nor one an older tagger
    spelt otherwise ("billing-api"): re-tagging replaces that."""
    if (
        kind == "path"
        or any(c in name for c in "/\\@")
        or _DOTTED.search(name)
        or not linkable(name)
    ):
        return False  # not "new", whose tag came from "What's New, Mr. Magoo?"
    try:
        return normalize_tag(name) == name
    except ValueError:
        return False


def positions(toks: tuple[str, ...], needle: tuple[str, ...]) -> list[int]:
    """Where the words of ``needle`` start, side by side, in ``toks``."""
    n = len(needle)
    return [i for i in range(len(toks) - n + 1) if toks[i : i + n] == needle] if n else []


def mentions(text: str, name: str, frequency: Frequency | None = None) -> bool:
    """Whether ``text`` mentions ``name`` as whole words (see ``EntityIndex.find``)."""
    needle = words(name)
    if not needle:
        return False
    if _document(text):
        frequency = None
    toks, cased, joined = _tokens(text)
    n = len(needle)
    return any(_mentioned(toks, cased, joined, i, n, frequency) for i in positions(toks, needle))

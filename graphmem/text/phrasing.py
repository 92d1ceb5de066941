"""Where the relation words of a short statement stand relative to the names it mentions.

Chains (``chains.chain``) judge a fact by the question's relation words. Two things a bag of
words misses, read here from word order:

- a relation word inside a name is no relation word: "forecast-worker calls catalog-worker"
  does not say what anyone "works" at;
- direction: "which service does invoice call?" asks for what invoice calls, and "kyc-worker
  calls invoice" answers the reverse. The side of the name a relation word stands on says which
  (the passive "is called by" swaps it; a clause break — comma, colon, arrow — leaves it open).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .entities import TYPE_WORDS, words
from .lexical import STOPWORDS, fold, stem

_TOKEN = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*|->|=>|[,;:()!?]|\.(?=\s|$)")
_POSSESSIVE = re.compile(r"['’]s\b")
_PASSIVE = "by"
TYPE_STEMS = frozenset(stem(w) for w in TYPE_WORDS)


@dataclass(frozen=True)
class Layout:
    """A text's word tokens (as ``entities.words`` spells them), their stems and the clause
    each belongs to."""

    words: tuple[str, ...]
    stems: tuple[str, ...]
    clause: tuple[int, ...]


@lru_cache(maxsize=65_536)
def layout(text: str) -> Layout:
    toks: list[str] = []
    clauses: list[int] = []
    clause = 0
    for tok in _TOKEN.findall(_POSSESSIVE.sub("", fold(text).casefold())):
        if tok[0].isalnum():
            toks.extend(words(tok))
            clauses.extend([clause] * (len(toks) - len(clauses)))
        else:
            clause += 1
    stems = tuple(w if w.isdigit() else stem(w) for w in toks)
    return Layout(tuple(toks), stems, tuple(clauses))


def variants(term: str) -> frozenset[str]:
    """A relation term and its agent noun or back ("own" and "owner"), as ``term_scores``."""
    out = {term, term + "er"}
    if term.endswith("er") and len(term) > 4:
        out.add(term[:-2])
    return frozenset(out)


def name_positions(lay: Layout, name: str) -> list[int]:
    """Where the words of ``name`` start in the text."""
    needle = words(name)
    n = len(needle)
    if not n:
        return []
    return [i for i in range(len(lay.words) - n + 1) if lay.words[i : i + n] == needle]


def outside(lay: Layout, names: tuple[str, ...]) -> list[bool]:
    """Which words of the text are not part of one of ``names``, nor the type word a name is
    written with ("the ledger service")."""
    free = [True] * len(lay.words)
    for name in names:
        n = len(words(name))
        for i in name_positions(lay, name):
            end = i + n + (i + n < len(lay.words) and lay.words[i + n] in TYPE_WORDS)
            free[i:end] = [False] * (end - i)
    return free


def side(lay: Layout, at: int, name_at: int) -> int:
    """Which side of a name the relation word at ``at`` stands on, read as a statement about
    the name: +1 the name is its subject ("invoice calls"), -1 its object ("calls invoice",
    "is called by invoice"... read back), 0 unknown (another clause)."""
    if lay.clause[at] != lay.clause[name_at]:
        return 0
    sign = 1 if at > name_at else -1
    if at + 1 < len(lay.words) and lay.words[at + 1] == _PASSIVE:
        sign = -sign
    return sign


def term_sides(
    text: str, name: str, terms: list[frozenset[str]], names: tuple[str, ...] = ()
) -> tuple[list[bool], list[int]]:
    """For each relation term (its variants): whether the text holds it outside ``names``,
    and the side of ``name`` its first such occurrence stands on (0 where unknown)."""
    lay = layout(text)
    free = outside(lay, names) if names else [True] * len(lay.words)
    starts = name_positions(lay, name)
    present, sides = [], []
    for forms in terms:
        at = next(
            (
                i
                for i, s in enumerate(lay.stems)
                if free[i] and s in forms and lay.words[i] not in STOPWORDS
            ),
            -1,
        )
        present.append(at >= 0)
        sides.append(side(lay, at, starts[0]) if at >= 0 and starts else 0)
    return present, sides


_ASKING = frozenset({"which", "what"})


def asked_kind(question: str) -> str:
    """The stem of the word that says what kind of thing a question asks for: the word after
    its first "which" or "what" ("which team is ...": team), or "" ("who owns ...")."""
    lay = layout(question)
    for i, w in enumerate(lay.words[:-1]):
        if w in _ASKING and lay.words[i + 1] not in STOPWORDS:
            return lay.stems[i + 1]
    return ""


def distances(text: str, name: str, terms: list[frozenset[str]]) -> list[int]:
    """For each relation term: how many content words (not stopwords) stand between its
    nearest occurrence and ``name`` in the text (``len(text)`` where either is missing)."""
    lay = layout(text)
    content = [i for i, w in enumerate(lay.words) if w not in STOPWORDS]
    n = len(words(name))
    # Each mention as the range of content words it covers.
    spans = []
    for start in name_positions(lay, name):
        covered = [r for r, i in enumerate(content) if start <= i < start + n]
        if covered:
            spans.append((covered[0], covered[-1]))
    out = []
    for forms in terms:
        gaps = [
            first - r - 1 if r < first else r - last - 1
            for r, i in enumerate(content)
            if lay.stems[i] in forms
            for first, last in spans
        ]
        out.append(max(0, min(gaps)) if gaps else len(text))
    return out


def typed_as(text: str, name: str, forms: frozenset[str]) -> bool:
    """Whether the text writes ``name`` with a kind word next to it ("the pg-push datastore",
    "team Growth", "region eu-west-1"): how a store says what kind of thing a name is."""
    lay = layout(text)
    n = len(words(name))
    for i in name_positions(lay, name):
        if (i > 0 and lay.stems[i - 1] in forms) or (
            i + n < len(lay.stems) and lay.stems[i + n] in forms
        ):
            return True
    return False

"""An incremental BM25 index held in memory and rebuilt from the database on open.

Kùzu's full-text index drops every token containing a digit, yet agents recall by ports,
versions and ids ("port 8080", "Python 3.11"); this index keeps them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from functools import lru_cache

import numpy as np
import snowballstemmer

_TOKEN = re.compile(r"[^\W_]+(?:[._][^\W_]+)*")
_STEMMER = snowballstemmer.stemmer("english")
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t don ll re ve d m o y""".split()  # noqa: SIM905
)


def fold(text: str) -> str:
    """Compatibility-normalised text without accents on Latin letters.

    People type names without their diacritics ("Aschenbrodel", "Zurich"); both sides of every
    match are folded. Marks on other scripts are letters of their own (Japanese バ is not ハ,
    Russian й is not и) and stay.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    out: list[str] = []
    for ch in decomposed:
        if out and unicodedata.combining(ch) and _is_latin(out[-1]):
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _is_latin(ch: str) -> bool:
    return ch < "\u0250" or "\u1e00" <= ch <= "\u1eff"


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def tokenize(text: str) -> list[str]:
    """Lower-case word, number and version tokens, accents folded, stemmed, stopwords removed.

    Words in any script count. A dotted or underscored token ("3.11", "os.path") is kept whole
    and also split into its parts, so "python 3.11" matches "3.11" and "3".
    """
    out: list[str] = []
    for tok in _TOKEN.findall(fold(text).casefold()):
        if "." in tok or "_" in tok:
            out.append(tok)
            out.extend(p for p in re.split(r"[._]", tok) if p and p not in STOPWORDS)
        elif tok not in STOPWORDS:
            out.append(tok if tok.isdigit() else _stem(tok))
    return out


class LexicalIndex:
    """BM25 (k1=1.2, b=0.75) over documents addressed by integer slots."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._postings: dict[str, dict[int, int]] = {}
        self._lengths: dict[int, int] = {}
        self._total_length = 0
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._length_by_slot = np.zeros(1024, dtype=np.float32)

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, slot: int, text: str) -> None:
        if slot in self._lengths:
            self.remove(slot)
        counts = Counter(tokenize(text))
        self._lengths[slot] = sum(counts.values())
        if slot >= len(self._length_by_slot):
            grown = np.zeros(max(slot + 1, 2 * len(self._length_by_slot)), dtype=np.float32)
            grown[: len(self._length_by_slot)] = self._length_by_slot
            self._length_by_slot = grown
        self._length_by_slot[slot] = self._lengths[slot]
        self._total_length += self._lengths[slot]
        for tok, tf in counts.items():
            self._postings.setdefault(tok, {})[slot] = tf
            self._arrays.pop(tok, None)

    def remove(self, slot: int) -> None:
        length = self._lengths.pop(slot, None)
        if length is None:
            return
        self._total_length -= length
        self._length_by_slot[slot] = 0
        # Removal is rare (purge, re-embed); a scan of the postings keeps the index small.
        for tok in [t for t, p in self._postings.items() if slot in p]:
            del self._postings[tok][slot]
            self._arrays.pop(tok, None)
            if not self._postings[tok]:
                del self._postings[tok]

    def document_frequency(self, word: str) -> int:
        """How many documents hold the word (its rarest token, for a word that splits)."""
        toks = tokenize(word)
        return min((len(self._postings.get(t, ())) for t in toks), default=0)

    def _posting_arrays(self, tok: str) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._arrays.get(tok)
        if arrays is None:
            posting = self._postings[tok]
            arrays = (
                np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)),
                np.fromiter(posting.values(), dtype=np.float32, count=len(posting)),
            )
            self._arrays[tok] = arrays
        return arrays

    def scores(self, query: str, size: int) -> np.ndarray:
        """BM25 score of every slot ``< size`` for the query (zeros where nothing matches)."""
        out = np.zeros(size, dtype=np.float32)
        n = len(self._lengths)
        if not n:
            return out
        avg = self._total_length / n or 1.0
        for tok in set(tokenize(query)):
            if tok not in self._postings:
                continue
            slots, tfs = self._posting_arrays(tok)
            keep = slots < size
            slots, tfs = slots[keep], tfs[keep]
            df = len(self._postings[tok])
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            dl = self._length_by_slot[slots]
            out[slots] += (
                idf * tfs * (self.k1 + 1) / (tfs + self.k1 * (1 - self.b + self.b * dl / avg))
            )
        return out

    def term_scores(self, query: str, size: int) -> np.ndarray:
        """BM25 of every slot ``< size`` for each distinct query token apart: one row a token.

        A token also matches its agent noun and back ("own" and "owner", "lead" and "leader"),
        as the relation words of a question and of a fact are often the two forms.
        """
        toks = sorted(set(tokenize(query)))
        out = np.zeros((len(toks), size), dtype=np.float32)
        n = len(self._lengths)
        if not n:
            return out
        avg = self._total_length / n or 1.0
        for row, tok in enumerate(toks):
            variants = {tok, tok + "er"}
            if tok.endswith("er") and len(tok) > 4:
                variants.add(tok[:-2])
            for variant in variants & self._postings.keys():
                slots, tfs = self._posting_arrays(variant)
                keep = slots < size
                slots, tfs = slots[keep], tfs[keep]
                df = len(self._postings[variant])
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                dl = self._length_by_slot[slots]
                value = (
                    idf * tfs * (self.k1 + 1) / (tfs + self.k1 * (1 - self.b + self.b * dl / avg))
                )
                np.maximum.at(out[row], slots, value)
        return out

    def candidates(self, text: str, limit: int) -> list[int]:
        """Slots holding every token of ``text`` (empty when the rarest token is too common)."""
        toks = set(tokenize(text))
        if not toks or any(t not in self._postings for t in toks):
            return []
        postings = sorted((self._postings[t] for t in toks), key=len)
        if len(postings[0]) > limit:
            return []
        slots = set(postings[0])
        for p in postings[1:]:
            slots &= p.keys()
        return sorted(slots)

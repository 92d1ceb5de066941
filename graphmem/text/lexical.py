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

from .memo import Memo

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


# Stems are cached (the stemmer takes ~25 µs a word, and a store's vocabulary repeats), at
# most STEM_CACHED words of at most STEM_CHARS characters: ~25 MB at the very most. A longer
# token (a hash, a blob, a word a caller made up) is kept apart, by its length: a recall stems
# the words of its question several times (12 ms each for one of 20,000 letters), and among
# the words it had been kept 200,000 times over, 40 KB each for that one.
STEM_CACHED = 100_000
STEM_CHARS = 64


@lru_cache(maxsize=STEM_CACHED)
def _cached_stem(word: str) -> str:
    return _STEMMER.stemWord(word)


_long_stem = Memo(_STEMMER.stemWord, budget=1_000_000, item_max=250_000, weigh=len)


def stem(word: str) -> str:
    return _cached_stem(word) if len(word) <= STEM_CHARS else _long_stem(word)


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
            out.append(tok if tok.isdigit() else stem(tok))
    return out


class TermRows:
    """Per token, the slots that hold it (sorted) and its BM25 score in each: a sparse
    tokens × slots matrix, read by column (a memory's score for each token) and by row."""

    def __init__(self, rows: list[tuple[np.ndarray, np.ndarray]], size: int) -> None:
        self.rows = rows
        self.size = size
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    # Beyond this many tokens, ``at`` reads one index of every token's slots (built once)
    # rather than each token's own: a question of thousands of distinct words costs a lookup
    # per slot asked for, not one per token.
    ROWS_APART = 32

    def at(self, slots: np.ndarray) -> np.ndarray:
        """The tokens × ``slots`` scores, zeros where a slot does not hold the token."""
        slots = np.asarray(slots, dtype=np.int64)
        out = np.zeros((len(self.rows), len(slots)), dtype=np.float32)
        if len(self.rows) > self.ROWS_APART:
            return self._at_flat(slots, out)
        for r, (held, values) in enumerate(self.rows):
            if not len(held) or not len(slots):
                continue
            i = np.minimum(np.searchsorted(held, slots), len(held) - 1)
            hit = held[i] == slots
            out[r, hit] = values[i[hit]]
        return out

    def _at_flat(self, slots: np.ndarray, out: np.ndarray) -> np.ndarray:
        if self._flat is None:
            held = [h for h, _ in self.rows]
            every = np.concatenate(held) if held else np.zeros(0, dtype=np.int64)
            rows = np.repeat(np.arange(len(self.rows)), [len(h) for h in held])
            values = np.concatenate([v for _, v in self.rows]) if held else np.zeros(0)
            order = np.argsort(every, kind="stable")
            self._flat = (every[order], rows[order], values[order])
        every, rows, values = self._flat
        lo = np.searchsorted(every, slots, "left")
        counts = np.searchsorted(every, slots, "right") - lo
        total = int(counts.sum())
        if total:
            place = np.repeat(np.arange(len(slots)), counts)
            starts = np.repeat(lo - (np.cumsum(counts) - counts), counts)
            idx = np.arange(total) + starts
            out[rows[idx], place] = values[idx]
        return out

    def slots(self, row: int) -> np.ndarray:
        """The slots that hold the token of ``row`` (with a score above 0), ascending."""
        held, values = self.rows[row]
        return held[values > 0]

    def best(self, rows: np.ndarray) -> float:
        """The largest sum, over one memory, of the scores of the tokens of ``rows`` (a mask)."""
        picked = [self.rows[r] for r in np.flatnonzero(rows).tolist()]
        if not picked:
            return 0.0
        slots = np.concatenate([p[0] for p in picked])
        if not len(slots):
            return 0.0
        values = np.concatenate([p[1] for p in picked]).astype(np.float64)
        return float(np.bincount(slots, weights=values).max(initial=0.0))


class LexicalIndex:
    """BM25 (k1=1.2, b=0.75) over documents addressed by integer slots.

    Postings from the last compaction are CSR arrays (token -> slots, term frequencies): a
    dict per token of slot -> frequency cost about 80 bytes a posting, 70 MB at 100k
    memories, and most of a snapshot's load time. Documents added since sit in such dicts
    until the next compaction; a document removed or replaced since is masked out of the
    arrays (``_stale``).
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        # compacted postings
        self._tokens: list[str] = []
        self._vocab: dict[str, int] = {}
        self._indptr = np.zeros(1, dtype=np.int64)
        self._slots = np.zeros(0, dtype=np.int32)
        self._tfs = np.zeros(0, dtype=np.float32)
        self._df = np.zeros(0, dtype=np.int64)  # live compacted postings per token
        self._stale = np.zeros(0, dtype=bool)  # slots whose compacted postings no longer count
        # postings added since: token -> slot -> frequency
        self._postings: dict[str, dict[int, int]] = {}
        self._pending = 0
        self._docs = 0
        self._total_length = 0
        self._has = np.zeros(1024, dtype=bool)
        self._length_by_slot = np.zeros(1024, dtype=np.float32)
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return self._docs

    def _reserve(self, slot: int) -> None:
        if slot >= len(self._length_by_slot):
            size = max(slot + 1, 2 * len(self._length_by_slot))
            for name in ("_length_by_slot", "_has"):
                old = getattr(self, name)
                grown = np.zeros(size, dtype=old.dtype)
                grown[: len(old)] = old
                setattr(self, name, grown)

    def add(self, slot: int, text: str) -> None:
        self.remove(slot)
        counts = Counter(tokenize(text))
        length = sum(counts.values())
        self._reserve(slot)
        self._has[slot] = True
        self._length_by_slot[slot] = length
        self._docs += 1
        self._total_length += length
        for tok, tf in counts.items():
            self._postings.setdefault(tok, {})[slot] = tf
            self._arrays.pop(tok, None)
        self._pending += len(counts)
        if self._pending > max(65_536, len(self._slots) // 2):
            self.compact()

    def remove(self, slot: int) -> None:
        if slot >= len(self._has) or not self._has[slot]:
            return
        self._has[slot] = False
        self._docs -= 1
        self._total_length -= int(self._length_by_slot[slot])
        self._length_by_slot[slot] = 0
        if slot >= len(self._stale) or not self._stale[slot]:
            # Removal is rare (purge, new content): a scan of the arrays keeps them small.
            at = np.flatnonzero(self._slots == slot)
            if len(at):
                self._stale[slot] = True
                toks = np.searchsorted(self._indptr, at, side="right") - 1
                np.subtract.at(self._df, toks, 1)
                for tok in toks.tolist():
                    self._arrays.pop(self._tokens[tok], None)
        for tok in [t for t, p in self._postings.items() if slot in p]:
            del self._postings[tok][slot]
            self._arrays.pop(tok, None)
            if not self._postings[tok]:
                del self._postings[tok]

    def _frequency(self, tok: str) -> int:
        """How many documents hold the token."""
        index = self._vocab.get(tok)
        base = 0 if index is None else int(self._df[index])
        return base + len(self._postings.get(tok, ()))

    def document_frequency(self, word: str) -> int:
        """How many documents hold the word (its rarest token, for a word that splits)."""
        toks = tokenize(word)
        return min((self._frequency(t) for t in toks), default=0)

    def _posting_arrays(self, tok: str) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._arrays.get(tok)
        if arrays is None:
            slots, tfs = self._slots[:0].astype(np.int64), self._tfs[:0]
            index = self._vocab.get(tok)
            if index is not None:
                lo, hi = self._indptr[index], self._indptr[index + 1]
                slots, tfs = self._slots[lo:hi].astype(np.int64), self._tfs[lo:hi]
                live = ~self._stale[slots]
                if not live.all():
                    slots, tfs = slots[live], tfs[live]
            posting = self._postings.get(tok)
            if posting:
                slots = np.concatenate(
                    (slots, np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)))
                )
                tfs = np.concatenate(
                    (tfs, np.fromiter(posting.values(), dtype=np.float32, count=len(posting)))
                )
            arrays = (slots, tfs)
            self._arrays[tok] = arrays
        return arrays

    def scores(self, query: str, size: int) -> np.ndarray:
        """BM25 score of every slot ``< size`` for the query (zeros where nothing matches)."""
        out = np.zeros(size, dtype=np.float32)
        for tok in set(tokenize(query)):
            slots, values = self._bm25(tok, size)
            out[slots] += values
        return out

    def _bm25(self, tok: str, size: int) -> tuple[np.ndarray, np.ndarray]:
        """The slots ``< size`` holding ``tok`` and the token's BM25 term score in each."""
        n = self._docs
        df = self._frequency(tok) if n else 0
        if not df:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        avg = self._total_length / n or 1.0
        slots, tfs = self._posting_arrays(tok)
        keep = slots < size
        slots, tfs = slots[keep], tfs[keep]
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        dl = self._length_by_slot[slots]
        k1, b = self.k1, self.b
        return slots, idf * tfs * (k1 + 1) / (tfs + k1 * (1 - b + b * dl / avg))

    def term_scores(self, query: str, size: int) -> TermRows:
        """BM25 of the slots ``< size`` for each distinct query token apart: one row a token,
        holding only the slots that hold it (a row per token over the whole store would cost
        a question of thousands of words gigabytes in a big store).

        A token also matches its agent noun and back ("own" and "owner", "lead" and "leader"),
        as the relation words of a question and of a fact are often the two forms.
        """
        rows = []
        for tok in sorted(set(tokenize(query))):
            variants = {tok, tok + "er"}
            if tok.endswith("er") and len(tok) > 4:
                variants.add(tok[:-2])
            parts = [self._bm25(variant, size) for variant in sorted(variants)]
            slots = np.concatenate([p[0] for p in parts]).astype(np.int64)
            values = np.concatenate([p[1] for p in parts]).astype(np.float32)
            # The best of the variants per slot: sort by slot, then by value, keep the last.
            order = np.lexsort((values, slots))
            slots, values = slots[order], values[order]
            last = np.ones(len(slots), dtype=bool)
            last[:-1] = slots[1:] != slots[:-1]
            rows.append((slots[last], values[last]))
        return TermRows(rows, size)

    def candidates(self, text: str, limit: int) -> list[int]:
        """Slots holding every token of ``text`` (empty when the rarest token is too common)."""
        toks = set(tokenize(text))
        if not toks or any(not self._frequency(t) for t in toks):
            return []
        toks_by_df = sorted(toks, key=self._frequency)
        if self._frequency(toks_by_df[0]) > limit:
            return []
        slots = set(self._posting_arrays(toks_by_df[0])[0].tolist())
        for tok in toks_by_df[1:]:
            slots &= set(self._posting_arrays(tok)[0].tolist())
        return sorted(slots)

    # ------------------------------------------------------------------ compaction

    def compact(self) -> None:
        """Fold the postings added since into the arrays and drop the masked ones."""
        counts = np.diff(self._indptr)
        base_tok = np.repeat(np.arange(len(self._tokens), dtype=np.int64), counts)
        live = ~self._stale[self._slots] if len(self._stale) else np.ones(len(self._slots), bool)
        vocab = dict(self._vocab)
        tokens = list(self._tokens)
        new_tok: list[int] = []
        new_slot: list[int] = []
        new_tf: list[int] = []
        for tok, posting in self._postings.items():
            index = vocab.get(tok)
            if index is None:
                index = vocab[tok] = len(tokens)
                tokens.append(tok)
            new_tok.extend([index] * len(posting))
            new_slot.extend(posting.keys())
            new_tf.extend(posting.values())
        tok_ids = np.concatenate((base_tok[live], np.asarray(new_tok, dtype=np.int64)))
        slots = np.concatenate((self._slots[live], np.asarray(new_slot, dtype=np.int32)))
        tfs = np.concatenate((self._tfs[live], np.asarray(new_tf, dtype=np.float32)))
        df = np.bincount(tok_ids, minlength=len(tokens))
        used = np.flatnonzero(df > 0)  # tokens no document holds any more are dropped
        renumber = np.zeros(len(tokens), dtype=np.int64)
        renumber[used] = np.arange(len(used))
        tok_ids = renumber[tok_ids]
        order = np.argsort(tok_ids, kind="stable")
        self._tokens = [tokens[i] for i in used.tolist()]
        self._vocab = {t: i for i, t in enumerate(self._tokens)}
        self._slots, self._tfs = slots[order].astype(np.int32), tfs[order]
        self._df = df[used].astype(np.int64)
        self._indptr = np.concatenate(([0], np.cumsum(self._df))).astype(np.int64)
        self._stale = np.zeros(len(self._has), dtype=bool)
        self._postings, self._pending, self._arrays = {}, 0, {}

    def arrays(self) -> dict[str, np.ndarray]:
        """The compacted index as arrays (for the mirror snapshot)."""
        self.compact()
        return {
            "lex_tokens": np.array(self._tokens, dtype=str), "lex_indptr": self._indptr,
            "lex_slots": self._slots, "lex_tfs": self._tfs, "lex_df": self._df,
            "lex_has": self._has, "lex_lengths": self._length_by_slot,
            "lex_totals": np.array([self._docs, self._total_length], dtype=np.int64),
        }  # fmt: skip

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> LexicalIndex:
        index = cls()
        index._tokens = arrays["lex_tokens"].tolist()
        index._vocab = {t: i for i, t in enumerate(index._tokens)}
        index._indptr, index._slots = arrays["lex_indptr"], arrays["lex_slots"]
        index._tfs, index._df = arrays["lex_tfs"], arrays["lex_df"]
        index._has, index._length_by_slot = arrays["lex_has"], arrays["lex_lengths"]
        index._stale = np.zeros(len(index._has), dtype=bool)
        index._docs, index._total_length = (int(v) for v in arrays["lex_totals"])
        return index

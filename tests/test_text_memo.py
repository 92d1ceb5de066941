"""The caches of text reading hold a bounded amount whatever callers send: ``lexical.stem``
keeps no long token, ``phrasing.layout`` no long text, and ``question.read`` and ``layout``
are bounded by the size of what they hold (``text.memo``), not by the number of texts; cached
or not, the results are the same."""

from __future__ import annotations

import gc
import random
import string
import tracemalloc
from collections.abc import Iterator

import pytest

from graphmem.text import lexical, phrasing, question
from graphmem.text.memo import OVERHEAD, Memo, memo


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    for cache in (lexical._cached_stem, lexical._long_stem, phrasing.layout, question.read):
        cache.cache_clear()
    yield
    for cache in (lexical._cached_stem, lexical._long_stem, phrasing.layout, question.read):
        cache.cache_clear()


def _word(rnd: random.Random, n: int) -> str:
    return "".join(rnd.choice(string.ascii_lowercase) for _ in range(n))


@pytest.mark.slow  # megabytes of tokens; fast: test_the_stem_cache_is_bounded_by_entries_and_characters
def test_long_tokens_are_stemmed_apart_within_a_budget() -> None:
    rnd = random.Random(3)
    long_words = [_word(rnd, 19_900) + "ing" for _ in range(50)]
    for w in long_words:
        assert lexical.stem(w) == lexical._STEMMER.stemWord(w)
        assert lexical.tokenize(f"who owns ledger {w}")[-1] == lexical._STEMMER.stemWord(w)
    # Among the words, only the short ones ("who" is a stopword): ~265 bytes at most each.
    assert lexical._cached_stem.cache_info().currsize == 2
    assert lexical.stem("relational") == "relat"
    assert lexical._cached_stem.cache_info().currsize == 3
    edge = "a" * lexical.STEM_CHARS
    assert lexical.stem(edge) == lexical._STEMMER.stemWord(edge)
    assert lexical._cached_stem.cache_info().currsize == 4  # at the limit: among the words
    # The long ones apart, the last few of them: a recall stems its question's words again.
    info = lexical._long_stem.cache_info()
    assert info.weight <= lexical._long_stem.budget
    assert info.currsize == lexical._long_stem.budget // (19_903 + 19_900 + OVERHEAD)
    assert info.hits >= 50  # each word stemmed by tokenize again


def test_the_stem_cache_is_bounded_by_entries_and_characters() -> None:
    info = lexical._cached_stem.cache_info()
    assert info.maxsize is not None
    # ~265 bytes an entry of 64 characters (key and stem), measured: ~27 MB at most.
    assert info.maxsize * (2 * lexical.STEM_CHARS + 140) <= 30 * 2**20


def test_layout_of_a_long_text_is_not_kept_and_is_the_same() -> None:
    rnd = random.Random(5)
    for _ in range(30):
        text = "who owns ledger " + _word(rnd, 19_900)
        assert phrasing.layout(text) == phrasing.layout.fn(text)
    assert phrasing.layout.cache_info().currsize == 0
    short = "the ledger service stores its data in pg-ledger"
    assert phrasing.layout(short) is phrasing.layout(short) == phrasing.layout.fn(short)
    info = phrasing.layout.cache_info()
    assert (info.currsize, info.hits, info.weight) == (1, 1, len(short) + OVERHEAD)


def test_readings_are_bounded_by_what_they_hold() -> None:
    rnd = random.Random(7)
    read = question.read
    for _ in range(60):
        context = "who owns ledger " + _word(rnd, 19_900)
        for levels in (0, 1, 2):
            assert read(context, ("ledger",), levels) == read.fn(context, ("ledger",), levels)
    info = read.cache_info()
    assert info.weight <= read.budget
    assert info.currsize <= read.budget // 19_900
    # A reading of many names and words weighs what it holds (a level per word and name).
    names = tuple(f"name{i}" for i in range(400))
    context = " ".join(f"word{i}" for i in range(2_000)) + " name1"
    assert read(context, names, 1) == read.fn(context, names, 1)
    assert read.cache_info().weight <= read.budget


@pytest.mark.slow  # a flood of long questions; fast: test_readings_are_bounded_by_what_they_hold
def test_a_flood_of_distinct_long_questions_keeps_little() -> None:
    """The reviewer's finding: each recall of "who owns ledger <a new 19,900-letter word>" kept
    ~100 KB (the stem, the layout and three readings of the question). Here the long word is a
    number, which is not stemmed (slow under tracemalloc): the stems are the test above."""
    rnd = random.Random(11)
    questions = [
        "who owns ledger " + "".join(rnd.choice(string.digits) for _ in range(19_900))
        for _ in range(150)
    ]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for q in questions:
            lexical.tokenize(q)
            phrasing.terms_held(q, [frozenset({"own", "owner"})], ("ledger",))
            for levels in (0, 1, 2):
                question.read(q, ("ledger",), levels)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Unbounded, 150 x ~100 KB = 15 MB; bounded, the readings of ~12 questions.
    assert kept < 2 * 2**20


def test_memo_keeps_the_most_recently_used_within_its_budget() -> None:
    calls: list[str] = []

    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    m = Memo(shout, budget=3 * (10 + OVERHEAD), item_max=10)
    for t in ("aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"):
        assert m(t) == t.upper()
    assert m("aaaaaaaaaa") == "AAAAAAAAAA"  # a hit: "a" is now the most recent
    m("dddddddddd")  # evicts "b", the least recently used
    assert m.cache_info().currsize == 3
    assert m.cache_info().weight == 3 * (10 + OVERHEAD) <= m.budget
    calls.clear()
    m("bbbbbbbbbb")
    m("aaaaaaaaaa")
    assert calls == ["bbbbbbbbbb"]
    # Too heavy to keep: computed each time, never held.
    calls.clear()
    assert m("x" * 11) == m("x" * 11) == "X" * 11
    assert calls == ["x" * 11] * 2
    assert m.cache_info().currsize == 3


def test_memo_weighs_results_and_keyword_arguments() -> None:
    @memo(budget=1_000, item_max=100, weigh=len)
    def repeat(text: str, times: int = 1) -> list[str]:
        return [text] * times

    assert repeat("ab", 3) == repeat("ab", 3) == ["ab"] * 3
    assert repeat.cache_info().weight == 2 + 3 + OVERHEAD
    assert repeat("ab", times=200) == ["ab"] * 200  # weighs 202 > 100: not kept
    assert repeat("ab", times=2) == repeat("ab", 2) == ["ab", "ab"]  # keyword: its own key
    assert repeat.cache_info().currsize == 3
    assert repeat.__name__ == "repeat"


@pytest.mark.slow  # fills a memo to its budget; fast: test_memo_keeps_the_most_recently_used_within_its_budget
def test_a_full_layout_memo_holds_about_what_its_budget_says() -> None:
    """The worst case per unit of weight: texts of two-letter words (~24 bytes a character)."""
    rnd = random.Random(13)
    m = Memo(phrasing.layout.fn, budget=200_000, item_max=phrasing.LAYOUT_CHARS)
    texts = [" ".join(_word(rnd, 2) for _ in range(phrasing.LAYOUT_CHARS // 3)) for _ in range(300)]
    for t in texts[:10]:  # the stems of two-letter words, cached apart
        m(t)
    m.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for t in texts:
            m(t)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert m.cache_info().weight <= m.budget
    assert m.cache_info().currsize < len(texts)
    # The texts themselves are kept by the list above, not counted: the rest is < 25 B/unit.
    assert held <= 25 * m.budget


def test_the_write_side_readings_are_bounded_by_what_they_hold() -> None:
    # A store's memories run to 20,000 characters: the conflict check's tokens and the slot
    # reading of each are kept within a budget of characters (``Memo``, whose bound the tests
    # above measure), not a count of texts.
    from graphmem.text import conflict, slots

    rnd = random.Random(11)
    for cache in (conflict.statement_tokens, slots._read):
        assert isinstance(cache, Memo) and cache.budget <= 2_000_000
        cache.cache_clear()
        texts = [" ".join(_word(rnd, 6) for _ in range(300)) for _ in range(3)]
        for text in texts * 2:
            assert cache(text) == cache.__wrapped__(text)
        info = cache.cache_info()
        assert info.hits == 3 and info.currsize == 3 and info.weight <= cache.budget
        cache.cache_clear()

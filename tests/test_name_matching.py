"""Finding names is near-linear and finds what the quadratic versions found.

``EntityIndex.find`` looks each length of name up at each word of the text (it compared every
name sharing the word: 2,000 names "ledger-xNNNN" and a text of 2,800 "ledger"s were 5.6 million
comparisons), and ``chains.chain_names`` looks runs of words up in a set (it asked ``part_of``
of every pair of names). The old versions are kept below, verbatim, and both are compared on
random names and texts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.keys import TAG
from graphmem.recall import chains
from graphmem.text import entities
from graphmem.text.entities import (
    EntityIndex,
    Frequency,
    _document,
    _mentioned,
    _tokens,
    linkable,
    words,
)

# ---------------------------------------------------------------- the old versions, verbatim


class OldEntityIndex:
    def __init__(self, frequency: Frequency | None = None) -> None:
        self._by_first: dict[str, dict[tuple[str, ...], str]] = {}
        self.frequency = frequency

    def add(self, name: str) -> None:
        if not linkable(name):
            return
        toks = words(name)
        self._by_first.setdefault(toks[0], {})[toks] = name

    def discard(self, name: str) -> None:
        toks = words(name)
        if toks and toks[0] in self._by_first:
            self._by_first[toks[0]].pop(toks, None)

    def find(
        self,
        text: str,
        frequency: Frequency | None = None,
        *,
        lenient: bool = False,
        written: bool = False,
    ) -> set[str]:
        frequency = None if written or _document(text) else frequency or self.frequency
        toks, cased, joined = _tokens(text)
        found: set[str] = set()
        for i, tok in enumerate(toks):
            candidates = self._by_first.get(tok)
            if not candidates:
                continue
            for name_toks, name in candidates.items():
                n = len(name_toks)
                if toks[i : i + n] == name_toks and _mentioned(
                    toks, cased, joined, i, n, frequency, lenient
                ):
                    found.add(name)
        return found


def old_part_of(tag: str, other: str) -> bool:
    """Whether a tag's name is a proper part (whole words) of another's."""
    return tag != other and f" {tag[2:]} " in f" {other[2:]} "


def old_chain_names(mirror: Any, config: Any, names: Iterable[str]) -> list[str]:
    names = list(names)
    return [
        n
        for n in names
        if not any(old_part_of(TAG + n, TAG + other) for other in names)
        and chains.chainable(mirror, config, TAG + n)
    ]


# ---------------------------------------------------------------- random names and texts

VOCAB = [
    "ledger", "Ledger", "billing", "Billing", "api", "API", "service", "svc", "the", "of",
    "North", "north", "Texas", "x0001", "X0001", "Ana", "Silva", "São", "Paulo", "pg", "42",
    "über", "Kim", "Jong", "il", "s",
]  # fmt: skip
JOINERS = [" ", " ", " ", "-", "_", "'s ", ", ", ". ", "\n", "  "]


def _phrase(draw: Any, max_words: int) -> str:
    n = draw(st.integers(1, max_words))
    out = draw(st.sampled_from(VOCAB))
    for _ in range(n - 1):
        out += draw(st.sampled_from(JOINERS)) + draw(st.sampled_from(VOCAB))
    return out


def _frequency(word: str) -> tuple[int, int]:
    return (len(word) * 7) % 30, 100  # rare (<= 10 of 100) for some words, not others


@st.composite
def index_cases(draw: Any) -> tuple[list[tuple[bool, str]], list[str]]:
    ops = [
        (draw(st.booleans()) or draw(st.booleans()), _phrase(draw, 4))  # 3 adds a discard
        for _ in range(draw(st.integers(0, 25)))
    ]
    texts = [_phrase(draw, 30) for _ in range(draw(st.integers(1, 4)))]
    return ops, texts


@settings(max_examples=200, deadline=None, database=None)
@given(index_cases(), st.booleans(), st.booleans(), st.booleans())
def test_find_finds_what_the_old_find_found(
    case: tuple[list[tuple[bool, str]], list[str]], lenient: bool, written: bool, own: bool
) -> None:
    ops, texts = case
    # The frequency the index was made with (``own``) or one given to ``find``.
    made, given_ = (_frequency, None) if own else (None, _frequency)
    new, old = EntityIndex(made), OldEntityIndex(made)
    for add, name in ops:
        (new.add if add else new.discard)(name)
        (old.add if add else old.discard)(name)
    assert new._by_first == old._by_first  # what snapshots save is unchanged
    # An index loaded from a snapshot (its names set at once) finds the same.
    loaded = EntityIndex(made)
    loaded._by_first = {first: dict(names) for first, names in old._by_first.items()}
    # ... and reads a surname and an acronym back to the same names (``recall.people``,
    # ``recall.acronyms``).
    for index in ("_last", "_initials"):
        kept = {k: v for k, v in getattr(new, index).items() if v}
        assert kept == {k: v for k, v in getattr(loaded, index).items() if v}
    for text in texts:
        want = old.find(text, given_, lenient=lenient, written=written)
        assert new.find(text, given_, lenient=lenient, written=written) == want
        assert loaded.find(text, given_, lenient=lenient, written=written) == want


def test_find_looks_up_each_length_once_per_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer's case: 2,000 names sharing their first word, a text of that word."""
    index = EntityIndex()
    index.update(f"ledger-x{i:04d}" for i in range(1, 2001))
    index.update(["ledger", "Ledger Billing API"])

    class Counted(dict[tuple[str, ...], str]):
        gets = 0

        def get(self, key: Any, default: Any = None) -> Any:
            Counted.gets += 1
            return super().get(key, default)

    index._first["ledger"] = Counted(index._first["ledger"])
    mentioned = 0

    def counted(*args: Any) -> bool:
        nonlocal mentioned
        mentioned += 1
        return _mentioned(*args)

    monkeypatch.setattr(entities, "_mentioned", counted)
    assert index.find("ledger " * 2800, lenient=True) == {"ledger"}
    assert Counted.gets <= 3 * 2800  # three lengths of name (1, 2, 3 words) at each word
    assert mentioned == 1  # once found, a name is not judged again
    Counted.gets = mentioned = 0
    text = "Ledger-x0007 " * 1000 + "Ledger Billing API"
    assert index.find(text) == {"ledger-x0007", "Ledger Billing API", "ledger"}
    assert Counted.gets <= 3 * 1003
    # "ledger" is judged at each "Ledger-x0007" (part of a longer token: no mention of it),
    # ledger-x0007 only until found, then "ledger" and "Ledger Billing API" at the end.
    assert mentioned == 1000 + 1 + 2


def test_discarded_names_are_not_found_and_lengths_follow() -> None:
    index = EntityIndex()
    index.update(["Billing API", "billing-api-gateway", "Billing"])
    assert index.find("Billing API calls the billing-api-gateway") == {
        "Billing API",
        "billing-api-gateway",
        "Billing",
    }
    index.discard("billing api gateway")
    index.discard("not known")
    index.discard("billing api gateway")  # twice: no harm
    assert index._lengths["billing"] == {1: 1, 2: 1}
    assert index.find("Billing API calls the billing-api-gateway") == {"Billing API", "Billing"}
    assert index.abbreviated("bag") == []
    index.update(["Bank of New England", "Kettlewick WTW"])
    bank = [("bank", "of", "new", "england")]
    assert index.abbreviated("bone") == index.abbreviated("bne") == bank
    assert index.abbreviated("kwtw") == [("kettlewick", "wtw")]
    index.discard("Bank of New England")
    assert index.abbreviated("bone") == []
    index.discard("Billing API")
    index.discard("Billing")
    assert not index._lengths["billing"]
    assert index.find("Billing API") == set()


# ---------------------------------------------------------------- chain names

NAME_WORDS = ["ellis", "island", "new", "york", "city", "of", "ny", "", "a"]


@st.composite
def name_lists(draw: Any) -> list[str]:
    names = []
    for _ in range(draw(st.integers(0, 12))):
        n = draw(st.integers(0, 5))
        names.append(" ".join(draw(st.sampled_from(NAME_WORDS)) for _ in range(n)))
    if names and draw(st.booleans()):
        names.append(draw(st.sampled_from(names)))  # the same name twice
    return names


@settings(max_examples=250, deadline=None, database=None)
@given(names=name_lists())
def test_chain_names_are_those_of_the_old_version(names: list[str]) -> None:
    asked: list[str] = []

    def chainable(mirror: Any, config: Any, tag: str) -> bool:
        asked.append(tag)
        return len(tag) % 3 != 0

    with patch.object(chains, "chainable", chainable):
        want = old_chain_names(None, None, names)
        asked_old, asked[:] = list(asked), []
        assert chains.chain_names(None, None, iter(names)) == want  # type: ignore[arg-type]
    assert asked == asked_old  # the same names asked, in the same order


def test_proper_parts_are_part_of_for_every_pair() -> None:
    """``proper_parts`` against ``part_of`` itself, on names with empty words and spaces at
    either end (what ``" a " in " b "`` makes of them)."""
    pool = ["", " ", "  ", "a", "a ", " a", "a  b", "a b", "b", "a b c", "b c", " b c ", "c a"]
    split = [tuple(n.split(" ")) for n in pool]
    parts = chains.proper_parts(split)
    for name, words_ in zip(pool, split, strict=True):
        expected = any(chains.part_of(TAG + name, TAG + other) for other in pool)
        assert (words_ in parts) == expected, name


def test_chain_names_asks_no_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = 0

    def counted(tag: str, other: str) -> bool:
        nonlocal pairs
        pairs += 1
        return old_part_of(tag, other)

    monkeypatch.setattr(chains, "part_of", counted)
    monkeypatch.setattr(chains, "chainable", lambda mirror, config, tag: True)
    names = [f"ledger-x{i:04d}" for i in range(1500)] + ["ellis island", "ellis"]
    got = chains.chain_names(None, None, names)  # type: ignore[arg-type]
    assert got == [*names[:1500], "ellis island"]
    assert pairs == 0


def test_a_part_the_question_also_writes_apart_is_a_name_of_its_own() -> None:
    """ "... a 1:1 with @freya.n. Which campus does freya work from?": freya is a part of the
    handle ``freya n`` and a name the question writes apart (bench/ninth)."""
    with patch.object(chains, "chainable", lambda mirror, config, tag: True):
        names = ["freya n", "freya", "ellis island", "ellis"]
        asked = "I met @freya.n at Ellis Island. Does freya work there?"
        got = chains.chain_names(None, None, names, asked)  # type: ignore[arg-type]
        assert got == ["freya n", "freya", "ellis island"]
        # Written only inside the whole name: a part, as before.
        got = chains.chain_names(None, None, names, "I met @freya.n at Ellis Island.")  # type: ignore[arg-type]
        assert got == ["freya n", "ellis island"]

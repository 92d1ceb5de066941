"""How recall reads a question's words: the distance of each relation word from a name, and
what kind of thing a name is written as. Pure text, no model."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.text.entities import words
from graphmem.text.lexical import STOPWORDS
from graphmem.text.phrasing import distances, layout, name_positions, typed_as, variants


def _distances_by_scan(text: str, name: str, terms: list[frozenset[str]]) -> list[int]:
    """The definition, read word by word for each term (what ``distances`` computed before
    it read each stem's places once)."""
    lay = layout(text)
    content = [i for i, w in enumerate(lay.words) if w not in STOPWORDS]
    n = len(words(name))
    spans = []
    for start in name_positions(lay, name):
        first, last = bisect_left(content, start), bisect_left(content, start + n) - 1
        if first <= last:
            spans.append((first, last))
    out = []
    for forms in terms:
        best = len(text)
        for r, i in enumerate(content):
            if lay.stems[i] in forms:
                for first, last in spans:
                    if first <= r <= last:
                        best = min(best, 0)
                    elif r > last:
                        best = min(best, r - last - 1)
                    else:
                        best = min(best, first - r - 1)
        out.append(best)
    return out


VOCAB = ["ledger", "billing", "api", "owns", "owner", "depends", "on", "the", "of", "who",
         "team", "service", "calls", "is", "a", "uses", "store", "data"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(VOCAB), min_size=0, max_size=40),
    st.sampled_from(["ledger", "billing api", "api", "the", "team"]),
)
def test_distances_match_their_definition(text_words: list[str], name: str) -> None:
    text = " ".join(text_words)
    terms = [variants(t) for t in ("own", "depend", "call", "team", "ledger", "missing")]
    assert distances(text, name, terms) == _distances_by_scan(text, name, terms)


def test_a_kind_word_types_a_name_only_in_its_own_phrase() -> None:
    service, team = variants("servic"), variants("team")
    # "(Henrik runs it)": the word before the bracket types image_resizer, not Henrik.
    text = "The image_resizer service (Henrik runs it)"
    assert typed_as(text, "image resizer", service)
    assert not typed_as(text, "henrik", service)
    assert typed_as("Ana - Payments team", "payments", team)
    assert not typed_as("Payments, team of Ana", "payments", team)
    assert typed_as("team Growth meets at 9", "growth", team)

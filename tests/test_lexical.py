"""BM25 tokens and entity matching: digits kept, accents folded, any script."""

from __future__ import annotations

from graphmem.entities import EntityIndex, mentions
from graphmem.lexical import LexicalIndex, fold, tokenize


def test_tokens_keep_numbers_and_versions() -> None:
    assert tokenize("Python 3.11 on port 8080") == ["python", "3.11", "3", "11", "port", "8080"]


def test_accents_fold_and_other_scripts_are_words() -> None:
    assert fold("Aschenbrödel in Zürich, São Paulo") == "Aschenbrodel in Zurich, Sao Paulo"
    assert tokenize("Zürich") == tokenize("Zurich") == ["zurich"]
    assert tokenize("東京 サーバー") == ["東京", "サーバー"]
    assert tokenize("Москва и Йошкар-Ола") == ["москва", "и", "йошкар", "ола"]


def test_bm25_matches_across_accents() -> None:
    index = LexicalIndex()
    index.add(0, "Aschenbrödel is a ballet by Johann Strauss II")
    index.add(1, "Cinderella is a folk tale")
    scores = index.scores("aschenbrodel", 2)
    assert scores[0] > 0 and scores[1] == 0


def test_entity_names_match_without_accents() -> None:
    entities = EntityIndex()
    entities.add("Aschenbrödel")
    entities.add("Zürich")
    assert entities.find("Who composed Aschenbrodel for the Zurich opera?") == {
        "Aschenbrödel",
        "Zürich",
    }
    assert mentions("A ballet, Aschenbrodel, premiered in 1901.", "Aschenbrödel")
    assert not mentions("the aschenbrodel ballet", "Aschenbrödel")  # not written as a name

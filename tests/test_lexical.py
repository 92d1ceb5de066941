"""BM25 tokens and entity matching: digits kept, accents folded, any script."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.text.entities import EntityIndex, mentions
from graphmem.text.lexical import LexicalIndex, TermRows, fold, tokenize


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


def test_compaction_and_removal_give_the_scores_of_an_index_built_afresh() -> None:
    docs = {
        i: f"service {i % 7} listens on port {8000 + i % 5} and logs to kafka" for i in range(40)
    }
    docs[3] = "Aschenbrödel premiered in Vienna"
    index = LexicalIndex()
    for slot, text in docs.items():
        index.add(slot, text)
    index.compact()
    for slot in (1, 2, 5):  # removed after compaction: masked out of the arrays
        index.remove(slot)
        del docs[slot]
    index.add(7, "the ledger service listens on port 9000")  # replaced: old postings masked
    docs[7] = "the ledger service listens on port 9000"
    index.add(50, "port 8001 belongs to the billing service")  # added since: a dict
    docs[50] = "port 8001 belongs to the billing service"
    fresh = LexicalIndex()
    for slot, text in docs.items():
        fresh.add(slot, text)
    for current in (index, fresh):
        assert len(current) == len(docs)
    for query in ("service port 8001", "kafka logs", "aschenbrodel", "ledger 9000", "owner"):
        assert index.scores(query, 64).tolist() == fresh.scores(query, 64).tolist()
        every = np.arange(64)
        assert (
            index.term_scores(query, 64).at(every).tolist()
            == fresh.term_scores(query, 64).at(every).tolist()
        )
        assert index.candidates(query, 100) == fresh.candidates(query, 100)
    assert index.document_frequency("port") == fresh.document_frequency("port") == 37
    index.compact()
    assert (
        index.scores("service port 8001", 64).tolist()
        == fresh.scores("service port 8001", 64).tolist()
    )
    assert index.candidates("ledger", 10) == [7]


@pytest.mark.parametrize("apart", [32, 0])  # each token's slots, or one index of them all
def test_term_rows_read_like_the_dense_matrix_they_stand_for(apart, monkeypatch) -> None:
    """``term_scores`` keeps, per token, only the slots that hold it; read by column, by row
    and by best sum it answers as the tokens × slots matrix of BM25 scores (with a token's
    agent noun and back: "own" and "owner")."""
    rng = np.random.default_rng(7)
    vocab = ["owns", "owner", "ledger", "depends", "leader", "lead", "team", "port"]
    index = LexicalIndex()
    for slot in range(60):
        if slot % 11 == 5:
            continue  # a hole: no memory in this slot
        index.add(slot, " ".join(rng.choice(vocab, size=int(rng.integers(1, 6)))))
    query, size = "who owns the ledger lead team zzz", 60
    monkeypatch.setattr(TermRows, "ROWS_APART", apart)
    rows = index.term_scores(query, size)
    toks = sorted(set(tokenize(query)))
    dense = np.zeros((len(toks), size), dtype=np.float32)
    for r, tok in enumerate(toks):  # the dense matrix as term_scores built it before
        variants = {tok, tok + "er"}
        if tok.endswith("er") and len(tok) > 4:
            variants.add(tok[:-2])
        for variant in variants:
            slots, values = index._bm25(variant, size)
            np.maximum.at(dense[r], slots, values)
    picked = rng.permutation(size)[:25]
    assert np.allclose(rows.at(picked), dense[:, picked])
    for r in range(len(toks)):
        assert rows.slots(r).tolist() == np.flatnonzero(dense[r] > 0).tolist()
    for mask in ([True] * len(toks), [r % 2 == 0 for r in range(len(toks))], [False] * len(toks)):
        m = np.array(mask)
        assert np.isclose(rows.best(m), float(dense[m].sum(axis=0).max(initial=0.0)))

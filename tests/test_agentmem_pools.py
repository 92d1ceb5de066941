"""bench/agentmem.py holds phrasing out: disjoint pools of facts and questions per split.

The agent sets measure whether recall generalises to wording it was not tuned on; that holds
only while the pools stay disjoint and each covers the forms the issue names.
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from agentmem import PHRASINGS, QUESTIONS, world


def test_every_relation_has_six_phrasings_per_split_and_splits_share_none() -> None:
    for split, pool in PHRASINGS.items():
        for relation, phrasings in pool.items():
            assert len(set(phrasings)) >= 6, (split, relation)
    for a, b in combinations(PHRASINGS, 2):
        for relation in PHRASINGS[a]:
            shared = set(PHRASINGS[a][relation]) & set(PHRASINGS[b][relation])
            assert not shared, (a, b, relation, shared)


def test_question_pools_are_disjoint_and_each_has_possessive_and_relative_forms() -> None:
    assert set(QUESTIONS) == set(PHRASINGS)
    for a, b in combinations(QUESTIONS, 2):
        for chain in QUESTIONS[a]:
            shared = set(QUESTIONS[a][chain]) & set(QUESTIONS[b][chain])
            assert not shared, (a, b, chain, shared)
    for split, pool in QUESTIONS.items():
        asked = [q for forms in pool.values() for q in forms]
        assert any("{s}'s" in q for q in asked), split  # possessive
        assert any(" that " in q or " who " in q for q in asked), split  # relative clause


@pytest.mark.parametrize(("seed", "split"), [(1, "dev"), (2, "test"), (3, "third")])
def test_gold_facts_exist_and_chains_have_as_many_facts_as_hops(seed: int, split: str) -> None:
    facts, questions = world(seed, split)
    ids = {f["id"] for f in facts}
    assert questions
    for q in questions:
        assert len(q["gold"]) == q["hops"]
        assert set(q["gold"]) <= ids


def test_the_written_questions_ask_about_facts_of_their_pool_one_fact_per_hop() -> None:
    """bench/agentmem_written.json: questions other authors wrote about the held-out pools."""
    import json

    from quality import WRITTEN

    pools = {"agent-test": world(2, "test")[0], "agent-third": world(3, "third")[0]}
    ids = {pool: {f["id"] for f in facts} for pool, facts in pools.items()}
    asked = json.loads(WRITTEN.read_text())
    assert len(asked) >= 150
    for q in asked:
        assert set(q["gold"]) <= ids[q["store"]], q
        assert len(q["gold"]) == q["hops"] and q["hops"] in (1, 2, 3), q
    # No written question is one of the generator's: they test other wording.
    generated = {q["question"] for split in ("test", "third") for q in world(2, split)[1]}
    assert not generated & {q["question"] for q in asked}

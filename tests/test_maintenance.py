"""Post-retrieval maintenance, feedback, gaps, clusters and the memory agent."""

from __future__ import annotations

import time

import numpy as np
import pytest
from helpers import db_rows

from graphmem import Config, GraphMemory, NotFoundError

# What is tested is background maintenance, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def weight(mem, a, b):
    rows = db_rows(
        mem,
        "MATCH (x:Memory {id: $a})-[r:RelatesTo]-(y:Memory {id: $b}) RETURN r.weight AS w, r.co_access AS n",
        {"a": a, "b": b},
    )
    return rows[0] if rows else None


def test_access_counts_and_link_learning_survive_reopen(store_path, model_path):
    with GraphMemory(store_path, model_path=model_path) as mem:
        a = mem.remember("The search cluster runs Elasticsearch 8", id="a").id
        b = mem.remember("Elasticsearch snapshots go to the backups bucket nightly", id="b").id
        mem.remember("Penguins cannot fly", id="c")
        mem.unlink(b, a) if weight(mem, a, b) else None
        assert weight(mem, a, b) is None
        for _ in range(3):
            mem.recall("Elasticsearch cluster and its snapshots", limit=2)
        mem.flush()
        first = weight(mem, a, b)
        assert first is not None and first["n"] == 3
        # w ← w + η(1 − w) three times from η: 1 − (1 − η)^3
        eta = Config().link_learning_rate
        assert first["w"] == pytest.approx(1 - (1 - eta) ** 3)
        assert mem.get(a).access_count == 3 and mem.get(a).last_accessed is not None
        assert mem.get("c").access_count == 0
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert weight(mem, a, b)["w"] == pytest.approx(first["w"])
        assert mem.get(a).access_count == 3


def test_feedback_links_used_and_lowers_rejected(mem):
    a = mem.remember("Grafana dashboards live in the ops folder", id="a").id
    b = mem.remember("Alert rules are versioned with the dashboards", id="b").id
    c = mem.remember("The lunch menu changes weekly", id="c").id
    r = mem.recall("where are dashboards and alerts kept", threshold=0.0)
    mem.feedback(r.recall_id, used=[a, b], rejected=[c])
    mem.flush()
    assert weight(mem, a, b)["n"] >= 1
    assert mem.get(c).confidence < 1.0
    assert mem.get(a).confidence == 1.0
    with pytest.raises(NotFoundError):
        mem.feedback("unknown-recall", used=[a])


def test_gaps_are_logged(mem):
    mem.remember("The build uses Bazel")
    mem.recall("What is the airspeed velocity of an unladen swallow?")
    gaps = mem.gaps()
    assert len(gaps) == 1 and "swallow" in gaps[0].context and gaps[0].best_score < 0.4
    mem.recall("Which build tool do we use, Bazel?")
    assert len(mem.gaps()) == 1


def _topic_items(prefix, texts):
    return [{"content": t, "tags": [prefix], "dedupe": False} for t in texts]


CATS = ["Cats purr when they are content", "Kittens sleep most of the day", "A cat's whiskers sense nearby objects",
        "Cats groom themselves with their rough tongues", "House cats love sunny windowsills",
        "Cats often knock objects off tables", "A kitten's eyes open after about a week"]  # fmt: skip
DB = ["PostgreSQL supports window functions", "Indexes speed up SQL queries on large tables",
      "Vacuum reclaims space in PostgreSQL tables", "SQL joins combine rows from two tables",
      "A primary key uniquely identifies each database row", "Query planners choose join orders in SQL",
      "Foreign keys keep relational tables consistent"]  # fmt: skip
SPACE = ["Mars has two small moons", "Jupiter is the largest planet in the solar system",
         "Saturn's rings are made of ice and rock", "Venus is the hottest planet",
         "Neptune has the strongest winds of any planet", "Mercury orbits closest to the Sun",
         "Uranus rotates on its side"]  # fmt: skip


def test_clusters_rebuild_with_stable_ids(store_path, model_path):
    cfg = Config(min_cluster_size=3, cluster_every_writes=0, cluster_every_recalls=0)
    with GraphMemory(store_path, model_path=model_path, config=cfg) as mem:
        mem.remember_many(
            _topic_items("cats", CATS) + _topic_items("db", DB) + _topic_items("space", SPACE)
        )
        first = mem.rebuild_clusters()
        assert len(first) >= 2
        members = {
            c.id: {
                r["id"]
                for r in db_rows(
                    mem,
                    "MATCH (m:Memory)-[:InCluster]->(c:Cluster {id: $c}) RETURN m.id AS id",
                    {"c": c.id},
                )
            }
            for c in first
        }
        assert all(len(v) == c.size for c, v in zip(first, members.values(), strict=True))
        labels = " ".join(c.label for c in first)
        assert any(t in labels for t in ("cats", "db", "space"))
        second = mem.rebuild_clusters()
        assert {c.id for c in second} == {c.id for c in first}
        # a new memory joins an existing cluster at write time
        r = mem.remember("Cats chase laser pointers around the room", tags=["cats"])
        joined = db_rows(
            mem,
            "MATCH (m:Memory {id: $id})-[r:InCluster]->(c:Cluster) RETURN c.id AS c",
            {"id": r.id},
        )
        assert joined and joined[0]["c"] in members
        # recall walks through clusters too
        hits = mem.recall("kittens", limit=15, threshold=0.0)
        assert any(s.edge == "InCluster" for h in hits for s in h.path)
    with GraphMemory(store_path, model_path=model_path, config=cfg) as mem:
        assert {c.id for c in mem.clusters()} == {c.id for c in second}
        r = mem.remember("Planets orbit the Sun in ellipses", tags=["space"])
        assert db_rows(
            mem, "MATCH (m:Memory {id: $id})-[:InCluster]->() RETURN count(*) AS n", {"id": r.id}
        )[0]["n"] in (0, 1)


def test_clusters_rebuild_automatically_every_n_writes(store_path, model_path):
    cfg = Config(min_cluster_size=3, cluster_every_writes=10, cluster_every_recalls=0)
    with GraphMemory(store_path, model_path=model_path, config=cfg) as mem:
        mem.remember_many(_topic_items("cats", CATS) + _topic_items("db", DB))
        mem.flush()
        assert mem.clusters()


def test_agent_returns_turn_n_results_at_turn_n_plus_1(mem):
    mem.remember("The user's dog is called Biscuit", id="dog")
    mem.remember("The user is allergic to peanuts", id="peanuts")
    mem.remember("Biscuit needs a walk every morning", id="walk")
    with mem.agent(limit=2, threshold=0.3) as agent:
        assert agent.take_pending() == []  # turn 1: nothing yet
        start = time.perf_counter()
        agent.submit("Tell me about my dog Biscuit")
        assert time.perf_counter() - start < 0.05  # returns at once
        agent.wait_idle()
        turn2 = agent.take_pending()
        assert {h.memory.id for h in turn2} & {"dog", "walk"}
        assert agent.take_pending() == []
        agent.submit("What else about Biscuit the dog?")
        agent.wait_idle()
        repeat = {h.memory.id for h in agent.take_pending()}
        assert not repeat & {h.memory.id for h in turn2}  # already surfaced: not repeated
        agent.submit("Any food allergies I should know about, like peanuts?")
        agent.wait_idle()
        assert agent.topic_changes == 1
        assert "peanuts" in {h.memory.id for h in agent.take_pending()}
    assert agent.error is None


def test_similarity_matrix_matches_model(mem):
    r = mem.remember("Vectors are stored unit-length")
    m = mem.get(r.id, with_embedding=True)
    assert np.linalg.norm(m.embedding) == pytest.approx(1.0, abs=1e-4)


def test_a_cluster_rebuild_writes_the_database_without_holding_recalls_lock(
    store_path, model_path, monkeypatch
):
    """Recall waits for the mirror's lock: a rebuild holds it only to read members in chunks
    and to swap the clusters in, not while it writes every InCluster edge; new memories
    planned in between join no cluster (the mirror does not have the new ones yet)."""
    import threading

    import graphmem.owner.feedback as maintenance

    cfg = Config(min_cluster_size=3, cluster_every_writes=0, cluster_every_recalls=0)
    monkeypatch.setattr(maintenance, "GATHER_CHUNK", 4)  # several chunks
    with GraphMemory(store_path, model_path=model_path, config=cfg) as mem:
        mem.remember_many(
            _topic_items("cats", CATS) + _topic_items("db", DB) + _topic_items("space", SPACE)
        )
        mem.rebuild_clusters()
        vec = mem._embed(["Cats chase laser pointers around the room"])
        assert mem._shared.clusters_for(vec)[0] is not None
        seen = []
        original = mem._store.replace_clusters

        def writing(clusters, members):
            lock = mem._shared.lock
            free = []
            other = threading.Thread(
                target=lambda: free.append(
                    lock.acquire(blocking=False) and (lock.release() or True)
                )
            )
            other.start()
            other.join()
            seen.append((free[0], mem._shared.clusters_for(vec)[0]))
            return original(clusters, members)

        monkeypatch.setattr(mem._store, "replace_clusters", writing)
        second = mem.rebuild_clusters()
        assert seen == [(True, None)]
        assert not mem._shared.clusters_changing
        assert mem._shared.clusters_for(vec)[0] is not None  # joins again after the swap
        counted = db_rows(
            mem, "MATCH (m:Memory)-[:InCluster]->(c:Cluster) RETURN c.id AS c, count(m) AS n"
        )
        assert {r["c"]: r["n"] for r in counted} == {c.id: c.size for c in second}
        stored = db_rows(
            mem, "MATCH (m:Memory)-[:InCluster]->(c:Cluster) RETURN m.id AS m, c.id AS c"
        )
        assert stored
        mirrored = {(u[2:], v[2:]) for u, v, *_ in mem._mirror.edges("InCluster")}
        assert mirrored == {(r["m"], r["c"]) for r in stored}

"""Crashes, hangs and races: purges during cluster rebuilds, hostile offsets and depths."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from helpers import db_rows

from graphmem import Config, GraphMemory
from graphmem.errors import GraphMemError, NotFoundError, ValidationError

# What is tested is robustness to bad input and damage, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


NAMES = ["Alice", "Bogdan", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro", "Ines", "Jonas"]
TOPICS = {
    "billing": [
        "reconciles the invoices",
        "audits VAT on refunds",
        "chases overdue payments",
        "reviews the credit-card fees",
        "exports the monthly ledger",
        "fixes failed charges",
        "prices the enterprise plan",
        "approves customer discounts",
        "closes the quarter books",
        "answers questions about receipts",
    ],
    "cooking": [
        "bakes sourdough bread",
        "makes pesto with fresh basil",
        "grills aubergines",
        "cooks risotto on Sundays",
        "ferments kimchi",
        "roasts a whole chicken",
        "whisks a chocolate mousse",
        "simmers tomato sauce",
        "fries crispy tofu",
        "kneads pizza dough",
    ],
    "hiking": [
        "climbs the northern ridge",
        "camps beside the alpine lake",
        "crosses the glacier",
        "walks the coastal path",
        "scrambles up the granite peak",
        "follows the river canyon",
        "hikes through the pine forest",
        "reaches the mountain hut",
        "descends the scree slope",
        "maps the old mule trail",
    ],
}


def _fill(mem: GraphMemory) -> list[str]:
    items = [
        {"content": f"{name} {what} ({topic}).", "tags": [topic]}
        for topic, whats in TOPICS.items()
        for name, what in zip(NAMES, whats, strict=True)
    ]
    return [r.id for r in mem.remember_many(items)]


def _consistent(mem: GraphMemory) -> None:
    """Stored counts agree with the edges that exist."""
    for c in mem.clusters():
        rows = db_rows(
            mem,
            "MATCH (m:Memory)-[r:InCluster]->(c:Cluster {id: $id}) RETURN count(r) AS n",
            {"id": c.id},
        )
        assert c.size == rows[0]["n"]
    for t in mem.tags():
        rows = db_rows(
            mem, "MATCH (m:Memory)-[h:HasTag]->(t:Tag {name: $n}) RETURN m.id AS id", {"n": t.name}
        )
        assert t.count == len(rows)
    total = db_rows(mem, "MATCH ()-[h:HasTag]->() RETURN count(h) AS n")[0]["n"]
    listed = db_rows(mem, "MATCH ()-[h:HasTag]->() RETURN h.source AS s")
    assert total == len(listed)


def test_purge_while_clusters_rebuild_in_another_thread(store_path: Path, model_path: str) -> None:
    config = Config(min_cluster_size=3, cluster_every_writes=0)
    with GraphMemory(store_path, model_path=model_path, config=config) as mem:
        ids = _fill(mem)
        victims = ids[::3]
        computing, purged = threading.Event(), threading.Event()
        errors: list[BaseException] = []

        def progress(message: str) -> None:
            if message.startswith("running HDBSCAN"):
                computing.set()
                # The rebuild holds no lock while it computes; let the purger run now.
                assert purged.wait(60)

        def purger() -> None:
            try:
                assert computing.wait(60)
                for memory_id in victims:
                    mem.forget(memory_id, purge=True)
            except BaseException as exc:
                errors.append(exc)
            finally:
                purged.set()

        thread = threading.Thread(target=purger)
        thread.start()
        try:
            clusters = mem.rebuild_clusters(progress=progress)
        finally:
            computing.set()  # never leave the purger waiting
            thread.join(60)
        assert not thread.is_alive() and not errors
        assert clusters, "the three topics should form clusters"
        members = db_rows(mem, "MATCH (m:Memory)-[:InCluster]->(:Cluster) RETURN m.id AS id")
        assert members and not {r["id"] for r in members} & set(victims)
        _consistent(mem)
        # Writes still work after the race.
        mem.remember("A fresh memory written after the race about invoices.", tags=["billing"])
        mem.forget(ids[1], purge=True)
        mem.flush()
        _consistent(mem)
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert mem.stats().memories == len(ids) - len(victims) - 1 + 1
        _consistent(mem)


def test_purge_updates_cluster_size(store_path: Path, model_path: str) -> None:
    config = Config(min_cluster_size=3, cluster_every_writes=0)
    with GraphMemory(store_path, model_path=model_path, config=config) as mem:
        _fill(mem)
        clusters = mem.rebuild_clusters()
        biggest = clusters[0]
        member = db_rows(
            mem,
            "MATCH (m:Memory)-[:InCluster]->(c:Cluster {id: $id}) RETURN m.id AS id LIMIT 1",
            {"id": biggest.id},
        )[0]["id"]
        mem.forget(member, purge=True)
        after = {c.id: c.size for c in mem.clusters()}
        assert after[biggest.id] == biggest.size - 1
        _consistent(mem)


@pytest.mark.parametrize("offset", [10**5, 10**7, 2**31 - 1])
def test_huge_offsets_return_nothing(mem: GraphMemory, offset: int) -> None:
    mem.remember("Offsets far past the end give an empty page.")
    assert mem.memories(offset=offset) == []
    assert mem.memories(offset=offset, limit=None) == []


@pytest.mark.parametrize("offset", [2**31, 2**32, 10**30, -1, 1.5, "3", None])
def test_offsets_out_of_range_are_refused(mem: GraphMemory, offset: object) -> None:
    mem.remember("A memory that no bad offset may wrap around to.")
    with pytest.raises(ValidationError):
        mem.memories(offset=offset)  # type: ignore[arg-type]


def test_deep_pages_match_shallow_ones(mem: GraphMemory) -> None:
    _fill(mem)
    everything = [m.id for m in mem.memories(limit=None)]
    assert len(everything) == 30
    assert [m.id for m in mem.memories(offset=5, limit=10)] == everything[5:15]
    # Past the top-k bound the page is cut in Python; it must agree with the Cypher page.
    assert [m.id for m in mem.memories(offset=5, limit=9_999)] == everything[5:]


def test_self_referencing_and_deep_ids_are_refused(mem: GraphMemory) -> None:
    r = mem.remember("Kept safe from hostile ids.")
    d: dict = {}
    d["self"] = d
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["x"] = {}
        node = node["x"]
    for bad in (d, deep, ["a"], 3, None, "", "a" * 129, "bad id", "\udfff"):
        with pytest.raises(ValidationError):
            mem.get(bad)  # type: ignore[arg-type]
        with pytest.raises(ValidationError):
            mem.unlink(bad, r.id)  # type: ignore[arg-type]
    assert mem.get(r.id).content == "Kept safe from hostile ids."


def test_neighbors_with_a_huge_depth_is_refused_and_a_big_one_ends(mem: GraphMemory) -> None:
    a = mem.remember("The Danube flows into the Black Sea.", tags=["rivers"])
    b = mem.remember("Salmon swim up the Columbia each autumn.", tags=["rivers"])
    with pytest.raises(ValidationError):
        mem.neighbors(a.id, depth=10**9)
    assert [m.id for m in mem.neighbors(a.id, depth=1_000)] == [b.id]


def test_recall_session_with_a_lone_surrogate_is_refused_and_flush_stays_clean(
    mem: GraphMemory,
) -> None:
    mem.remember("Session ids must be valid text.")
    with pytest.raises(ValidationError):
        mem.recall("session ids", session_id="s\udfff")
    mem.recall("session ids", session_id="s1")
    mem.flush()  # nothing queued that fails


def test_feedback_for_memories_the_recall_did_not_return(mem: GraphMemory) -> None:
    a = mem.remember("Feedback: the blue team owns the payments API.")
    b = mem.remember("Completely unrelated: the cat sleeps on the sofa in winter.")
    hits = mem.recall("who owns the payments API?", limit=1)
    assert [h.memory.id for h in hits] == [a.id]
    with pytest.raises(ValidationError):
        mem.feedback(hits.recall_id, used=[b.id])
    with pytest.raises(NotFoundError):
        mem.feedback("nope", used=[a.id])
    mem.feedback(hits.recall_id, used=[a.id])
    mem.flush()


def test_recall_limit_as_a_string_is_a_validation_error(mem: GraphMemory) -> None:
    mem.remember("Limits are integers.")
    with pytest.raises(ValidationError):
        mem.recall("limits", limit="3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [
        {"metadata": {"blob": "x" * 100_000}},
        {"tags": ["t" * 101]},
        {"tags": [f"tag{i}" for i in range(101)]},
        {"triggers": ["x"] * 51},
        {"triggers": ["x" * 501]},
        {"file_paths": ["a/b.py"] * 101},
        {"project": "p" * 257},
        {"session_id": "s" * 257},
        {"metadata": {"a": float("nan")}},
        {"metadata": {"k\udfff": 1}},
        {"id": "x" * 129},
        {"confidence": float("inf")},
        {"valid_from": "9999-12-31T23:59:59-14:00"},
    ],
)
def test_size_limits(mem: GraphMemory, fields: dict) -> None:
    with pytest.raises(ValidationError):
        mem.remember("Limits hold for every field.", **fields)
    assert mem.stats().memories == 0


def test_deep_metadata_is_refused_without_recursion_error(mem: GraphMemory) -> None:
    deep: dict = {}
    node = deep
    for _ in range(50_000):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ValidationError):
        mem.remember("Deep metadata.", metadata=deep)
    cyclic: dict = {}
    cyclic["me"] = cyclic
    with pytest.raises(ValidationError):
        mem.remember("Cyclic metadata.", metadata=cyclic)


def test_limits_are_config_fields(make_mem) -> None:  # type: ignore[no-untyped-def]
    m = make_mem("roomy", config=Config(max_tags=200))
    r = m.remember(
        "Many tags are fine when the config allows them.", tags=[f"t{i}" for i in range(150)]
    )
    assert len(r.memory.tags) >= 150


def test_cypher_params_must_be_a_dict(mem: GraphMemory) -> None:
    with pytest.raises(ValidationError):
        mem.cypher("RETURN 1 AS x", "notadict")  # type: ignore[arg-type]
    d: dict = {}
    d["d"] = d
    with pytest.raises(ValidationError):
        mem.cypher("RETURN $d AS x", {"d": d})
    assert mem.cypher("RETURN $x AS x", {"x": 5}) == [{"x": 5}]


def test_errors_are_graphmem_errors(mem: GraphMemory) -> None:
    for call in (
        lambda: mem.recall("x", depth=float("-inf")),
        lambda: mem.recall("x", at="+999999-01-01"),
        lambda: mem.search("x", limit=10**30),
        lambda: mem.remember_many(5),
        lambda: mem.tag("abc", 5),
        lambda: mem.link("a", "b", type=["relates_to"]),
    ):
        with pytest.raises(GraphMemError):
            call()


def test_tag_counts_stay_right_after_reopen(store_path: Path, model_path: str) -> None:
    """Kùzu miscounts OPTIONAL MATCH inside a write transaction after a reopen."""
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [
            mem.remember(f"{name} {what}.", tags=["shared"]).id
            for name, what in zip(NAMES[:3], TOPICS["cooking"][:3], strict=True)
        ]
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("Dana crosses the glacier at dawn.", tags=["shared", "glacier"])
        counts = {t.name: t.count for t in mem.tags()}
        assert counts["shared"] == 4 and counts["glacier"] == 1
        mem.untag(ids[0], "shared")
        mem.forget(ids[1], purge=True)
        assert {t.name: t.count for t in mem.tags()}["shared"] == 2
        _consistent(mem)


def test_a_missing_model_fails_fast_without_retries(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No GRAPHMEM_MODEL_PATH, nothing in fastembed's cache, offline: ModelLoadError at once,
    with no download attempts, back-off sleeps or ERROR lines (and no network probe here)."""
    from fastembed.common import model_management
    from loguru import logger

    from graphmem import embed
    from graphmem.errors import ModelLoadError

    monkeypatch.delenv("GRAPHMEM_MODEL_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "empty-cache"))
    sleeps: list[float] = []
    monkeypatch.setattr(model_management.time, "sleep", sleeps.append)
    monkeypatch.setattr(embed, "_reachable", lambda *a, **k: pytest.fail("probed the network"))
    errors: list[str] = []
    sink = logger.add(errors.append, level="ERROR")
    try:
        with pytest.raises(ModelLoadError, match="not in fastembed's cache") as info:
            embed.FastEmbedder(embed.DEFAULT_MODEL)
    finally:
        logger.remove(sink)
    assert not sleeps and not errors
    assert not re.search(r"\.\.(?!/)", str(info.value))  # no double full stop
    with pytest.raises(ModelLoadError, match=r"model\.onnx is missing"):
        embed.FastEmbedder(embed.DEFAULT_MODEL, model_path=str(tmp_path / "nowhere"))

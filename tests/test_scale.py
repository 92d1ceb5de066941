"""Scale: the mirror snapshot that makes a big store open at once, and batch ingest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import HashEmbedder, db_rows

from graphmem import GraphMemory
from graphmem.index.snapshot import SNAPSHOT_FILE


def _open(store_path: Path, fake_embedder: HashEmbedder) -> GraphMemory:
    # Snapshots, the mirror, batches and the index, not what the model makes of the words:
    # the fake embedder, and no socket server.
    return GraphMemory(store_path, embedder=fake_embedder, serve=False)


def test_reopen_loads_the_snapshot_and_answers_the_same(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(
            [{"content": f"Service {i} listens on port {8000 + i}"} for i in range(30)]
        )
        before = [
            (h.memory.id, round(h.score, 5)) for h in mem.search("which port does service 7 use")
        ]
        tags = sorted(t.name for t in mem.tags())
    assert (store_path / SNAPSHOT_FILE).stat().st_mode & 0o777 == 0o600
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot
        after = [
            (h.memory.id, round(h.score, 5)) for h in mem.search("which port does service 7 use")
        ]
        assert after == before
        assert sorted(t.name for t in mem.tags()) == tags
        assert mem.remember("Service 99 listens on port 9999").action == "created"


def test_a_snapshot_that_does_not_match_the_database_is_ignored(
    store_path: Path, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    with _open(store_path, fake_embedder) as mem:
        mem.remember("The billing service runs on Redis")
    old = tmp_path / "old.snapshot"
    shutil.copy2(store_path / SNAPSHOT_FILE, old)
    with _open(store_path, fake_embedder) as mem:
        new_id = mem.remember("The ledger service writes to ClickHouse").id
    # A snapshot from before the last commit: loading it would hide the newer memory.
    shutil.copy2(old, store_path / SNAPSHOT_FILE)
    with _open(store_path, fake_embedder) as mem:
        assert not mem._shared.from_snapshot
        assert new_id in [h.memory.id for h in mem.search("ledger ClickHouse")]


def test_a_damaged_snapshot_is_ignored(store_path: Path, fake_embedder: HashEmbedder) -> None:
    with _open(store_path, fake_embedder) as mem:
        memory_id = mem.remember("Deploys happen on Tuesdays").id
    snap = store_path / SNAPSHOT_FILE
    snap.write_bytes(snap.read_bytes()[:200])
    with _open(store_path, fake_embedder) as mem:
        assert not mem._shared.from_snapshot
        assert mem.get(memory_id).content == "Deploys happen on Tuesdays"


def _count_embedded(mem: GraphMemory) -> list[str]:
    """The texts the store's model embeds from now on (the model itself still runs)."""
    seen: list[str] = []
    embed = mem.embedder.embed

    def counting(texts):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return embed(texts)

    mem.embedder.embed = counting  # type: ignore[method-assign]
    return seen


def test_duplicate_texts_in_a_batch_are_embedded_once(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    with _open(store_path, fake_embedder) as mem:
        mem.remember("Alice prefers green tea")
        seen = _count_embedded(mem)
        results = mem.remember_many(
            [{"content": "Alice prefers green tea"}, {"content": "Bob likes coffee"},
             {"content": "Bob likes coffee"}]
        )  # fmt: skip
    assert seen == ["Bob likes coffee"]
    assert [r.action for r in results] == ["reinforced", "created", "reinforced"]


def test_chunks_embedded_while_the_previous_is_written_embed_each_text_once(
    store_path: Path, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    """remember_many embeds the next chunk in a thread while it writes the current one: a text
    repeated in a later chunk is still embedded once, and the store ends as a chunk-by-chunk
    write leaves it."""
    texts = [f"Service {i % 7} listens on port {8000 + i % 7}" for i in range(20)]
    texts += ["Alice prefers green tea", "Bob likes coffee", "Alice prefers green tea"]
    with _open(store_path, fake_embedder) as mem:
        seen = _count_embedded(mem)
        together = mem.remember_many([{"content": t} for t in texts], batch_size=3)
    assert sorted(seen) == sorted(set(texts))
    with _open(tmp_path / "serial", fake_embedder) as mem:
        serial = [mem.remember_many([{"content": t} for t in texts[i : i + 3]])
                  for i in range(0, len(texts), 3)]  # fmt: skip
    assert [r.action for r in together] == [r.action for rs in serial for r in rs]


def test_the_approximate_index_finds_what_an_exact_scan_finds_under_a_filter() -> None:
    import numpy as np

    from graphmem.index.ann import AnnIndex

    rng = np.random.default_rng(3)
    centres = rng.standard_normal((20, 64)).astype(np.float32)
    vectors = centres[rng.integers(0, 20, 2000)] + 0.3 * rng.standard_normal((2000, 64))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    index = AnnIndex(64)
    index.build(vectors, np.arange(2000))
    mask = rng.random(2000) < 0.5
    queries = vectors[:50]
    _, slots = index.search(queries, mask, 10)
    exact = np.where(mask, queries @ vectors.T, -np.inf)
    hits = 0
    for j in range(50):
        assert all(mask[s] for s in slots[j])  # the filter is applied inside the search
        hits += len(set(slots[j]) & set(np.argsort(-exact[j])[:10]))
    assert hits / 500 >= 0.95
    # A changed vector is found at its new place.
    index.upsert(np.array([1]), vectors[7:8])
    _, again = index.search(vectors[7:8], np.ones(2000, dtype=bool), 2)
    assert set(again[0]) == {1, 7}


def test_a_big_store_searches_and_writes_through_the_approximate_index(
    store_path: Path, fake_embedder: HashEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import graphmem.index.ann as ann

    monkeypatch.setattr(ann, "ANN_MIN", 20)  # every store is "big"
    items = [{"content": f"Team {c} owns the {s} service"} for c in "ABCDEFG" for s in
             ("billing", "search", "ledger", "gateway", "audit", "export")]  # fmt: skip
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(items)
        top = mem.search("who owns the ledger service", limit=3)
        assert mem._mirror.ann is not None
        assert "ledger" in top[0].memory.content
        # A duplicate is still caught through the index.
        assert mem.remember("Team C owns the audit service").action == "reinforced"
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot and mem._mirror.ann is not None
        assert mem._mirror.ann._load is not None  # read from the snapshot on first use
        assert "ledger" in mem.search("who owns the ledger service", limit=3)[0].memory.content
        assert mem._mirror.ann._index is not None
    # Saved again after the open (here by hand): the deferred read finds another file and the
    # index is built anew instead.
    snap = store_path / SNAPSHOT_FILE
    with _open(store_path, fake_embedder) as mem:
        snap.write_bytes(snap.read_bytes())
        assert mem._mirror.ann.index is None
        assert "ledger" in mem.search("who owns the ledger service", limit=3)[0].memory.content
        assert mem._mirror.ann.index is not None


def _mirror_state(mirror) -> dict:  # type: ignore[no-untyped-def]
    import numpy as np

    slots = {i: mirror.slot[i] for i in mirror.ids if i in mirror}
    bm25 = mirror.lexical.scores("PostgreSQL owner Kafka", mirror.size)
    return {
        "records": {i: mirror.records[s] for i, s in slots.items()},
        "vectors": {i: np.round(mirror.vectors[s], 5).tolist() for i, s in slots.items()},
        "active": {i: bool(mirror.active[s]) for i, s in slots.items()},
        "edges": sorted(
            (u, v, k, round(w, 4), via) for u, v, k, w, via in mirror.edges() if k != "InCluster"
        ),
        "hashes": {h: sorted(ids) for h, ids in mirror.by_hash.items() if ids},
        "content": {i: mirror.content.get(s) for i, s in slots.items()},
        "columns": {
            i: (
                mirror.kind[s],
                mirror.scope[s],
                mirror.session[s],
                mirror.created[s],
                bool(mirror.superseded[s]),
            )
            for i, s in slots.items()
        },
        "neighbours": {
            i: sorted((nb, e, round(w, 6)) for nb, e, w, _ in mirror.neighbours("m:" + i))
            for i in slots
        },
        "tags": {
            name: sorted(mirror.ids[s] for s in members.tolist())
            for name, members in mirror.hubs("t:").items()
        },
        "bm25": {i: round(float(bm25[s]), 5) for i, s in slots.items()},
    }


def _assert_mirror_and_counts_match_the_database(mem) -> None:
    """The mirror a write left equals one built from the database, and tag counts (kept from
    the mirror) agree with a count in the database."""
    from graphmem.index.mirror import Mirror

    fresh = Mirror(mem._mirror.dim)
    fresh.load(mem._store)
    assert _mirror_state(mem._mirror) == _mirror_state(fresh)
    stored = {t.name: t.count for t in mem.tags()}
    counted = db_rows(
        mem, "MATCH (t:Tag)<-[:HasTag]-(m:Memory) RETURN t.name AS name, count(DISTINCT m) AS n"
    )
    assert stored == {r["name"]: r["n"] for r in counted}


def test_the_mirror_after_batched_writes_equals_one_read_from_the_database(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    items = [
        {"content": "The payments service uses PostgreSQL 15", "tags": ["payments"]},
        {"content": "The payments service uses PostgreSQL 16", "session_id": "s1"},
        {"content": "Payments service owner is Dana Novak", "session_id": "s1"},
        {"content": "Dana Novak prefers tabs over spaces", "kind": "preference"},
        {"content": "The payments service uses PostgreSQL 16", "tags": ["db"]},
        {"content": "Never restart the Kafka brokers during business hours", "kind": "negative",
         "triggers": ["restart kafka"]},
    ]  # fmt: skip
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(items[:3])
        mem.remember_many(items[3:])
        mem.remember("Dana Novak moved to the ledger team", session_id="s1")
        _assert_mirror_and_counts_match_the_database(mem)


def _store_with_every_edge(store_path: Path, fake_embedder: HashEmbedder) -> list[str]:
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(
            [{"content": f"Service {i} of team {i % 3} listens on port {8000 + i}",
              "tags": [f"team-{i % 3}"], "session_id": "s1"} for i in range(24)]
        )  # fmt: skip
        a = mem.remember("The payments service uses PostgreSQL 15", tags=["payments"]).id
        b = mem.remember("The payments service uses PostgreSQL 16", supersedes=[a]).id
        c = mem.remember("Payments never use PostgreSQL", tags=["payments"]).id
        mem.link(b, c, "contradicts")
        mem.rebuild_clusters(min_cluster_size=3)
        mem.forget(mem.search("port 8003", limit=1)[0].memory.id)
    return [a, b, c]


def test_a_mirror_loaded_from_the_snapshot_equals_one_built_from_the_database(
    store_path: Path, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    from graphmem.index import snapshot
    from graphmem.index.mirror import Mirror

    _store_with_every_edge(store_path, fake_embedder)
    questions = ["which port does service 7 use", "payments database", "team 2 services"]
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot
        fresh = Mirror(mem._mirror.dim)
        fresh.load(mem._store)
        assert _mirror_state(mem._mirror) == _mirror_state(fresh)

        # Recall's ranking on each (recall() itself would also count accesses in between).
        from graphmem.index.mirror import Filters
        from graphmem.recall.cascade import RecallParams, cascade
        from graphmem.recall.ordering import with_contradictions

        vectors = mem.embedder.embed(questions)

        def answers(mirror: Mirror) -> list:
            out = []
            for q, vec in zip(questions, vectors, strict=True):
                found, _, _ = cascade(mirror, mem.config, vec, q, Filters(),
                                      RecallParams(limit=8, session_id="s1"), now_epoch=2e9)  # fmt: skip
                out.append([(mirror.ids[f.slot], round(f.score, 9), f.flags, f.contradicts,
                             [(st.node, st.edge) for st in f.path])
                            for f in with_contradictions(mirror, found)])  # fmt: skip
            return out

        loaded = answers(mem._mirror)
        assert any(f[2] == ["contradicted"] for row in loaded for f in row)
        # Saved and loaded again in this process: the same answers, entity index included.
        snapshot.save(mem._mirror, tmp_path, "c1")
        again = Mirror(mem._mirror.dim)
        assert snapshot.load(again, tmp_path, "c1")
        assert answers(again) == loaded
        # A build from the database knows the same entity names as the process that wrote
        # them (the index does not depend on the kind a tag was planned or stored with).
        assert fresh.entities._by_first == mem._mirror.entities._by_first
        assert answers(fresh) == loaded


def test_a_snapshot_of_another_format_is_ignored(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    import json

    with _open(store_path, fake_embedder) as mem:
        memory_id = mem.remember("Deploys happen on Tuesdays").id
    snap = store_path / SNAPSHOT_FILE
    head, rest = snap.read_bytes().split(b"\n", 1)
    header = json.loads(head)
    header["format"] = 1  # what a pickled networkx mirror was
    snap.write_bytes(json.dumps(header).encode() + b"\n" + rest)
    with _open(store_path, fake_embedder) as mem:
        assert not mem._shared.from_snapshot
        assert mem.get(memory_id).content == "Deploys happen on Tuesdays"
    with _open(store_path, fake_embedder) as mem:  # rebuilt, and saved again in today's format
        assert mem._shared.from_snapshot


def test_a_snapshot_with_a_damaged_section_is_ignored(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    import json

    with _open(store_path, fake_embedder) as mem:
        memory_id = mem.remember("Deploys happen on Tuesdays", tags=["deploys"]).id
    snap = store_path / SNAPSHOT_FILE
    data = bytearray(snap.read_bytes())
    head = data.index(b"\n") + 1
    header = json.loads(data[:head])
    start = -(-head // 64) * 64
    edges = next(e for e in header["sections"] if e["name"] == "edge_dst")
    data[start + edges["offset"]] ^= 0x40  # an edge now points elsewhere
    snap.write_bytes(bytes(data))
    with _open(store_path, fake_embedder) as mem:
        assert not mem._shared.from_snapshot
        assert "deploys" in mem.get(memory_id).tags


def test_bulk_batches_write_what_the_mirror_holds(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    # Batches of 24 rows or more are written with LOAD FROM (rows, then edges joined to their
    # ends by key), to memories of earlier batches and of the same transaction alike.
    from graphmem.storage.store import _BULK_MIN_ROWS

    services = ["billing", "ledger", "search", "gateway", "audit", "export", "payments", "auth"]
    facts = ("is written in Go", "logs to Loki", "pages the platform on-call rotation")
    first = [{"content": f"The {s} service {f}", "tags": [s, "ops"]} for s in services
             for f in facts]  # fmt: skip
    second = [{"content": f"The {s} service stores its data in {db}", "tags": [s]}
              for s in services for db in ("PostgreSQL", "Redis")]  # fmt: skip
    second += [{"content": f"The {s} service is owned by team Green"} for s in services]
    assert len(first) >= _BULK_MIN_ROWS and len(second) >= _BULK_MIN_ROWS
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(first)
        results = mem.remember_many(second)
        assert {r.action for r in results} >= {"created"}
        # The same again: every one reinforces its memory (one bulk update of those columns).
        again = mem.remember_many([{**it, "source": "observed"} for it in first])
        assert {r.action for r in again} == {"reinforced"}
        assert all(r.memory.strength == 2 for r in again)
        edges = mem._store.counts()["edges"]
        assert edges["HasTag"] >= len(first) + len(second) and edges["RelatesTo"] > 0
        _assert_mirror_and_counts_match_the_database(mem)


def test_a_bulk_edge_to_a_missing_node_fails_and_writes_nothing(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    import pytest

    from graphmem.errors import GraphMemError

    with _open(store_path, fake_embedder) as mem:
        ids = [r.id for r in mem.remember_many(
            [{"content": f"Worker {i} handles queue q{i} for the nightly export job"}
             for i in range(30)]
        )]  # fmt: skip
        store = mem._store
        before = store.counts()["edges"]["RelatesTo"]
        rows = [{"src": ids[i], "dst": ids[i + 1], "weight": 0.5} for i in range(29)]
        rows.append({"src": ids[0], "dst": "no-such-memory", "weight": 0.5})
        with pytest.raises(GraphMemError, match="1 of 30 RelatesTo edges"), store.transaction():
            store.insert_edges("RelatesTo", rows)
        assert store.counts()["edges"]["RelatesTo"] == before
        # A few edges of several tables go in one statement: one missing end fails it whole.
        few = {"RelatesTo": rows[:3] + rows[-1:], "HasTag": [{"src": ids[5], "dst": "export"}]}
        with pytest.raises(GraphMemError, match="not in the store"), store.transaction():
            store.insert_edge_sets(few)
        assert store.counts()["edges"]["RelatesTo"] == before
        with store.transaction():
            store.insert_edge_sets({"RelatesTo": rows[:3]})
        assert store.counts()["edges"]["RelatesTo"] == before + 3


def test_counts_are_set_by_key_and_a_missing_key_is_skipped(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many([{"content": f"Note {i} about the release", "tags": [f"t{i}"]}
                           for i in range(30)])  # fmt: skip
        store = mem._store
        few = {"t1": 7, "no-such-tag": 3, "t2": 9}
        many = {f"t{i}": 100 + i for i in range(3, 30)} | {"no-such-tag": 1}
        with store.transaction():
            store.set_tag_counts(few)
            store.set_tag_counts(many)
        counts = {t.name: t.count for t in mem.tags()}
        assert counts["t1"] == 7 and counts["t2"] == 9 and counts["t29"] == 129
        assert "no-such-tag" not in counts


def _recall_store(mem: GraphMemory) -> None:
    services = ("billing", "search", "ledger", "gateway", "audit", "export")
    mem.remember_many(
        [{"content": f"The {s} service is owned by team {c}.", "tags": [s]}
         for c in "ABCD" for s in services]
        + [{"content": f"The {s} service stores its data in {db}.", "tags": [s]}
           for s, db in zip(services, ("PostgreSQL", "Redis", "Kafka", "S3", "MinIO", "DuckDB"),
                            strict=True)]
        + [{"content": "Never restart the ledger service on Fridays.", "kind": "negative",
            "triggers": ["restart"]}]
    )  # fmt: skip


_QUESTIONS = (
    "Who owns the ledger service?",
    "Where does the audit service keep its data?",
    "Can I restart the ledger service now?",
    "Which team owns the service that stores its data in Redis?",
)


def test_a_big_store_recalls_without_scanning_every_vector(
    store_path: Path, fake_embedder: HashEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Above recall.SPARSE_MIN only the memories near the context (from the approximate index)
    get a similarity: with every memory near, recall answers as the exact scan does."""
    import graphmem.index.ann as ann
    import graphmem.recall.cascade as recall

    def answers(mem: GraphMemory) -> list[list[tuple[str, float, list[str]]]]:
        return [
            [(h.memory.id, h.score, h.flags) for h in mem.recall(q, limit=5)] for q in _QUESTIONS
        ]

    def same(got: list, want: list) -> bool:
        # Ids and flags exactly; scores to float noise (the approximate index's similarities
        # and the exact scan's differ in the last bits, which rounding to a fixed number of
        # places turned into a flaky test whenever a score sat on a rounding boundary).
        return [[(i, f) for i, _, f in a] for a in got] == [
            [(i, f) for i, _, f in a] for a in want
        ] and all(
            s == pytest.approx(t, rel=1e-6)
            for a, b in zip(got, want, strict=True)
            for (_, s, _), (_, t, _) in zip(a, b, strict=True)
        )

    with _open(store_path, fake_embedder) as mem:
        _recall_store(mem)
        exact = answers(mem)
        monkeypatch.setattr(ann, "ANN_MIN", 20)
        monkeypatch.setattr(recall, "SPARSE_MIN", 20)
        scans: list[int] = []
        original = type(mem._mirror).similarities
        monkeypatch.setattr(
            type(mem._mirror), "similarities",
            lambda self, q: scans.append(1) or original(self, q),
        )  # fmt: skip
        assert same(answers(mem), exact)
        assert scans == []  # no full scan
        assert mem._mirror.ann is not None


def test_a_big_store_gives_exact_similarities_for_what_recall_returns(
    store_path: Path, fake_embedder: HashEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    import graphmem.index.ann as ann
    import graphmem.recall.cascade as recall
    from graphmem.config import Config
    from graphmem.index.mirror import Filters

    monkeypatch.setattr(ann, "ANN_MIN", 20)
    monkeypatch.setattr(recall, "SPARSE_MIN", 20)
    monkeypatch.setattr(recall, "NEAR", 2)  # most memories are "far"
    monkeypatch.setattr(recall, "FILL_MAX", 0)  # and stay so when a walk opens their tag
    with _open(store_path, fake_embedder) as mem:
        _recall_store(mem)
        mirror = mem._mirror
        for q in _QUESTIONS:
            vec = mem._embed([q])[0]
            found, sims, best = recall.cascade(
                mirror, Config(), vec, q, Filters(), recall.RecallParams(limit=5)
            )
            exact = mirror.vectors[: mirror.size] @ vec
            assert found
            for f in found:
                assert sims[f.slot] == pytest.approx(exact[f.slot], abs=1e-5)
            assert best == pytest.approx(float(exact[mirror.mask(Filters())].max()), abs=1e-5)
            assert int((sims == recall.FAR).sum()) > 0  # the rest were never compared
            assert np.all((sims == recall.FAR) | np.isclose(sims, exact, atol=1e-5))


def test_the_spaces_of_a_batch_are_those_of_each_item(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    """The masks planned for a whole batch at once equal each item's own."""
    import numpy as np

    from graphmem.write import items as write_items
    from graphmem.write import planner as write

    items = [{"content": f"Note {i} about project {p}", "project": p}
             for i, p in enumerate(["a", "b", "c", "d", "e", "f", "a"])]  # fmt: skip
    items += [{"content": f"Session note {i}", "scope": "session", "session_id": f"s{i % 6}"}
              for i in range(8)]  # fmt: skip
    items += [{"content": "A global note"}]
    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(items)
        planner = write.Planner(mem._mirror, mem.config)
        prepared = [write_items.prepare(dict(it, content=it["content"] + " again"), mem.config)
                    for it in items]  # fmt: skip
        masks = planner._space_masks(prepared)
        assert len(masks) == 1 + 6 + 6
        for item in prepared:
            own = planner._space_mask(item)
            assert own.any()
            assert np.array_equal(masks[write._space_key(item)], own)


def test_recall_reads_a_bounded_sample_of_a_hub_entity(
    store_path: Path, fake_embedder: HashEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """What kind of thing an entity is, and its mean direction, come from at most
    chains.ENTITY_SAMPLE of its memories: reading every member of a hub cost seconds per
    recall at a million memories."""
    import graphmem.recall.chains as chains

    read: dict[str, int] = {}
    original = chains.typed_as

    def counting(text: str, name: str, forms: frozenset[str]) -> bool:
        read[name] = read.get(name, 0) + 1
        return original(text, name, forms)

    monkeypatch.setattr(chains, "typed_as", counting)
    monkeypatch.setattr(chains, "ENTITY_SAMPLE", 8)
    components = ["queue", "cache", "index", "parser", "scheduler", "exporter", "worker", "pool"]
    with _open(store_path, fake_embedder) as mem:
        mem.remember("billing-api depends on ledger.")
        mem.remember("billing-api is written in Go.")
        mem.remember("The ledger service is owned by team Payments.")
        for i, part in enumerate(components * 3):
            mem.remember(f"The ledger service runs its {part} number {i} on host node-{i}.")
        members = mem._mirror.member_count("t:ledger")
        assert members > 20
        hits = mem.recall("Which team owns the service that the service billing-api depends on?")
    assert hits
    assert read.get("ledger", 0) > 0  # the kind of ledger was judged ...
    # ... from a sample of its memories (for each kind word the question puts by a name)
    assert read["ledger"] % 8 == 0 and read["ledger"] < members
    assert chains.sample(__import__("numpy").arange(100), 8).tolist() == [
        0, 14, 28, 42, 56, 70, 84, 99,
    ]  # fmt: skip


def test_an_index_trained_after_open_is_saved_at_close_without_a_write(
    store_path: Path, fake_embedder: HashEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A snapshot saved before the store needed the approximate index holds none: the first
    open that trains it saves it at close, so later opens read it instead of training."""
    import json

    import graphmem.index.ann as ann

    def sections() -> list[str]:
        with (store_path / SNAPSHOT_FILE).open("rb") as f:
            return [s["name"] for s in json.loads(f.readline())["sections"]]

    with _open(store_path, fake_embedder) as mem:
        mem.remember_many(
            [{"content": f"Service {i} listens on port {8000 + i}"} for i in range(30)]
        )
    assert "ann" not in sections()  # too small for the index when it was written
    monkeypatch.setattr(ann, "ANN_MIN", 20)
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot and mem._mirror.ann is None
        top = mem.search("which port does service 7 use", limit=3)
        assert mem._mirror.ann is not None  # trained on the first search
    assert "ann" in sections()
    builds: list[int] = []
    original = ann.AnnIndex.build
    monkeypatch.setattr(
        ann.AnnIndex, "build", lambda self, *a: builds.append(1) or original(self, *a)
    )
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot
        assert [h.memory.id for h in mem.search("which port does service 7 use", limit=3)] == [
            h.memory.id for h in top
        ]
    assert builds == []  # read from the snapshot, not trained again


def test_vectors_are_mapped_from_the_snapshot_and_change_in_memory_only(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    """Open maps the snapshot's vectors instead of reading them; the mirror still changes
    them (an update re-embeds) without touching the file, and grows past them."""
    import mmap

    snap = store_path / SNAPSHOT_FILE
    with _open(store_path, fake_embedder) as mem:
        first = mem.remember("The billing service runs on Redis").id
        mem.remember("The ledger service writes to ClickHouse")
    saved = snap.read_bytes()
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot
        base = mem._mirror.vectors
        while isinstance(base.base, type(base)):  # views of views
            base = base.base
        assert isinstance(getattr(base.base, "obj", base.base), mmap.mmap)
        mem.update(first, content="The billing service runs on Valkey")
        assert snap.read_bytes() == saved or not mem._shared.from_snapshot
        assert mem.search("billing Valkey", limit=1)[0].memory.id == first
        mem.remember("The audit service keeps logs for a year")
        assert len(mem.search("audit logs", limit=5)) == 3
    with _open(store_path, fake_embedder) as mem:
        assert mem._shared.from_snapshot
        assert mem.search("billing Valkey", limit=1)[0].memory.id == first

"""Several handles on one store in one process: explicit rules, nothing silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import HashEmbedder

from graphmem import Config, GraphMemory, ReadOnlyError, ValidationError, paths
from graphmem.remote.client import RemoteStore


def test_a_read_only_handle_stays_read_only(mem: GraphMemory, model_path: str) -> None:
    mem.remember("The writable handle writes")
    with GraphMemory(mem.path, model_path=model_path, read_only=True) as reader:
        assert reader.read_only and reader.stats().memories == 1
        with pytest.raises(ReadOnlyError):
            reader.remember("A read-only handle must not write")
        with pytest.raises(ReadOnlyError):
            reader.cypher("MATCH (m:Memory) SET m.pinned = true", write=True)
    assert mem.stats().memories == 1


def test_a_handles_own_settings_are_honoured(mem: GraphMemory, model_path: str) -> None:
    first = mem.remember("Ledger is owned by Carla").id
    mem.remember("Billing depends on Ledger")
    with GraphMemory(mem.path, model_path=model_path, config=Config(depth=0)) as flat:
        hits = flat.recall("who owns what billing depends on?")
        # depth=0: no walk, so every hit is a seed (its path has one step).
        assert hits and all(len(h.path) == 1 for h in hits)
        assert first in [h.memory.id for h in hits]


def test_other_shared_settings_are_refused(store_path: Path, model_path: str) -> None:
    with GraphMemory(store_path, model_path=model_path):
        with pytest.raises(ValidationError, match="min_cluster_size"):
            GraphMemory(store_path, model_path=model_path, config=Config(min_cluster_size=9))
        # The same shared settings are fine.
        GraphMemory(store_path, model_path=model_path, config=Config(depth=1)).close()


def test_a_read_only_handle_recalls_without_a_trace(store_path, model_path):
    # The handle owns the store read-write (it serves other processes), yet its own recalls
    # count no access and learn no link: a benchmark or an inspector changes nothing.
    with GraphMemory(store_path, model_path=model_path) as mem:
        ids = [r.id for r in mem.remember_many(
            [{"content": "The Ledger service is owned by Carla Mendes."},
             {"content": "billing-api cannot start without ledger being reachable."}]
        )]  # fmt: skip
    with GraphMemory(store_path, model_path=model_path, read_only=True) as reader:
        for _ in range(3):
            assert reader.recall("Who owns the service billing-api depends on?", limit=2)
        reader.flush()
    with GraphMemory(store_path, model_path=model_path) as mem:
        assert [mem.get(i).access_count for i in ids] == [0, 0]
        assert mem.recall("Who owns the service billing-api depends on?", limit=2)
        mem.flush()
        assert sum(mem.get(i).access_count for i in ids) > 0  # a writer's recall does count


def _answers(sock: Path) -> bool:
    remote = RemoteStore(socket=sock)
    try:
        return remote.ping()
    finally:
        remote.close()


def test_serve_false_owns_the_store_without_serving_until_a_handle_asks(
    store_path: Path, fake_embedder: HashEmbedder
) -> None:
    sock = paths.socket_path(store_path)
    with GraphMemory(store_path, embedder=fake_embedder, serve=False) as quiet:
        quiet.remember("Nobody else reaches this store")
        assert quiet.owner is None and quiet._shared.listener is None
        assert not sock.exists() and not _answers(sock)
        # Another handle in this process that asks to serve (the default) starts the server.
        with GraphMemory(store_path, embedder=fake_embedder) as served:
            assert sock.exists() and _answers(sock)
            assert served.stats().memories == 1
        # The server belongs to the open store, not to the handle that started it.
        assert _answers(sock)
    assert not sock.exists()


def test_serve_must_be_a_flag(store_path: Path, fake_embedder: HashEmbedder) -> None:
    with pytest.raises(ValidationError, match="serve must be True or False"):
        GraphMemory(store_path, embedder=fake_embedder, serve="no")  # type: ignore[arg-type]
    assert not store_path.exists()


@pytest.mark.parametrize(
    ("path", "options"),
    [
        (123, {}),
        (b"/tmp/store", {}),
        ("", {}),
        ("   ", {}),
        (Path(""), {}),  # Path("") is "." (a review found it let through)
        (".", {}),
        ("HTTP://a..b:1", {}),
        ("http://127.0.0.1:1", {"token": "tökén"}),
        ("store\x00x", {}),
        ("store\ud800", {}),
        ("http://[::1", {}),
        ("https://256.0.0.1:1", {}),
        ("store", {"timeout": "abc"}),
        ("store", {"timeout": float("nan")}),
        ("store", {"timeout": -5}),
        ("store", {"config": {"depth": 0}}),
        ("store", {"embedder": object()}),
        ("store", {"read_only": "yes"}),
        ("store", {"model_path": 7}),
    ],
)
def test_a_handle_that_cannot_be_opened_so_is_refused_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: object, options: dict
) -> None:
    """Found by an attack: raw TypeError/ValueError/InvalidURL from the constructor, and ""
    (an unset variable) made the current folder a store and chmodded it 0700."""
    monkeypatch.chdir(tmp_path)
    mode = tmp_path.stat().st_mode
    with pytest.raises(ValidationError):
        GraphMemory(path, serve=False, **{"embedder": HashEmbedder(), **options})  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == [] and tmp_path.stat().st_mode == mode


def test_a_bad_config_value_raises_graphmems_validation_error() -> None:
    with pytest.raises(ValidationError, match="max_tags"):
        Config(max_tags=0)
    with pytest.raises(ValidationError, match="max_metadata_depth"):
        Config(max_metadata_depth=100_000)


@pytest.mark.parametrize(
    "fields",
    [{"kind": 0}, {"metadata": []}, {"conflicts": 0}, {"supersedes": False}, {"source": ""}],
)
def test_a_falsy_value_of_the_wrong_type_is_refused_not_defaulted(
    fake_mem: GraphMemory, fields: dict
) -> None:
    with pytest.raises(ValidationError):
        fake_mem.remember("The build uses make", **fields)
    assert fake_mem.stats().memories == 0


def test_remember_many_dry_run_must_be_a_bool(fake_mem: GraphMemory) -> None:
    with pytest.raises(ValidationError, match="dry_run"):
        fake_mem.remember_many([{"content": "Tests use pytest"}], dry_run=None)  # type: ignore[arg-type]
    assert fake_mem.stats().memories == 0


def test_legit_ways_to_name_a_store_still_open_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review found these refused by the first version of the checks."""
    import os
    from pathlib import PurePosixPath

    class Folder:
        def __fspath__(self) -> str:
            return str(tmp_path / "fs")

    for path, options in [
        (Folder(), {}),
        (PurePosixPath(tmp_path / "pure"), {}),
        (tmp_path / "token", {"token": ""}),
        (tmp_path / "name", {"model_name": ""}),
        (tmp_path / "forever", {"timeout": float("inf")}),
    ]:
        with GraphMemory(path, serve=False, embedder=HashEmbedder(), **options) as mem:  # type: ignore[arg-type]
            assert mem.remember("A note").action == "created"
    # The current folder, where it holds a store already, is that store.
    monkeypatch.chdir(tmp_path / "fs")
    with GraphMemory(".", serve=False, embedder=HashEmbedder()) as mem:
        assert mem.stats().memories == 1
    assert os.getcwd() == str(tmp_path / "fs")

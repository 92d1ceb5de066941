"""A damaged journal costs the damaged record only (graphmem/journal.py, issue 18).

One store is built once: two memories in the database, then 40 ``remember`` calls held in the
journal (a thread holds the database's write lock, as when the owner dies before applying
them). Each memory of the 40 links to the one before it (same session) and, from record 20 on,
shares a tag that record 20 created, so later records depend on the damaged one. Each test
puts a damaged copy of that journal beside a copy of the store's database and opens it, as the
next owner after a crash would.
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import stat
import struct
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import db_rows

from graphmem import Config, GraphMemory
from graphmem.keys import tnode
from graphmem.owner.journal import JOURNAL_NAME, read_records

# What is tested is a damaged journal, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


_WORD_TEXT = (
    "harbor lantern meadow violin glacier pepper canyon orchid falcon marble tundra saddle "
    "velvet compass thistle beacon quarry walnut sparrow ribbon cobalt prairie lagoon anchor "
    "biscuit cactus dolphin ember fjord gadget hammock igloo jasmine kettle lemon mosaic nectar "
    "oyster pebble quilt raven saffron tulip umbrella vortex willow yarn zephyr acorn bramble "
    "candle dune easel feather garnet hazel ivory juniper kiosk lilac magnet nutmeg opal parsley "
    "quartz rhubarb sequoia tinsel urchin vinegar wombat yodel zinnia almond barley cinder"
)
WORDS = _WORD_TEXT.split()
RECORDS = 40
DAMAGED = 20  # the record (1-based, in journal order) each test damages
FRESH_TAG = "freshtag"  # created by record 20, used by every later record
_HEADER = struct.Struct("<II")


@dataclass
class Built:
    base: Path  # the store's folder with the journal's records not applied
    journal: bytes  # the 40 records, as written
    spans: list[tuple[int, int]]  # (start, end) of each record in ``journal``
    ids: list[str]  # the memory each record wrote, in order
    seqs: list[int]  # the sequence number of each record
    before: list[str]  # the memories the database already held


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, model_path: str) -> Built:
    root = tmp_path_factory.mktemp("damage")
    store = root / "store"
    rng = random.Random(18)

    def text() -> str:
        return "The " + " ".join(rng.sample(WORDS, 9)) + "."

    config = Config(write_behind_items=16)
    with GraphMemory(store, model_path=model_path, config=config) as mem:
        before = [mem.remember(text(), dedupe=False, conflicts="off").id for _ in range(2)]
    base = root / "base"
    shutil.copytree(store, base)  # the database as the crashed owner left it
    with GraphMemory(store, model_path=model_path, config=config) as mem:
        held, release = threading.Event(), threading.Event()

        def hold() -> None:  # no transaction can start: every record stays in the journal
            with mem._store.engine.write_lock:
                held.set()
                release.wait()

        owner = threading.Thread(target=hold)
        owner.start()
        try:
            held.wait()
            ids = []
            for i in range(1, RECORDS + 1):
                tags = ["shared"] + ([FRESH_TAG] if i >= DAMAGED else [])
                r = mem.remember(text(), tags=tags, session_id="s", dedupe=False, conflicts="off")
                ids.append(r.id)
            journal = (store / JOURNAL_NAME).read_bytes()
        finally:
            release.set()
            owner.join()
    spans = []
    offset = 0
    while offset < len(journal):
        (length, _) = _HEADER.unpack_from(journal, offset)
        spans.append((offset, offset + _HEADER.size + length))
        offset += _HEADER.size + length
    assert len(spans) == RECORDS
    # Each record wrote one memory, in order, and record 21 links to record 20's memory.
    records = read_records_of(journal, root)
    assert [list(b.new_rows) for _, b in records] == [[i] for i in ids]
    later = records[DAMAGED][1]
    assert any(ids[DAMAGED - 1] in (e["src"], e["dst"]) for e in later.edges["RelatesTo"])
    return Built(base, journal, spans, ids, [s for s, _ in records], before)


def read_records_of(data: bytes, folder: Path) -> list:
    path = folder / "probe.bin"
    path.write_bytes(data)
    try:
        return read_records(path)
    finally:
        path.unlink()


def open_damaged(built: Built, tmp_path: Path, journal: bytes) -> Path:
    store = tmp_path / "store"
    shutil.copytree(built.base, store)
    (store / JOURNAL_NAME).write_bytes(journal)
    return store


def stored(mem: GraphMemory) -> Counter[str]:
    return Counter(r["id"] for r in db_rows(mem, "MATCH (m:Memory) RETURN m.id AS id"))


def assert_counts_agree(mem: GraphMemory) -> None:
    members = {
        r["name"]: r["n"]
        for r in db_rows(
            mem,
            "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name AS name, count(DISTINCT m.id) AS n",
        )
    }
    counts = {t.name: t.count for t in mem.tags()}
    assert counts == {name: members.get(name, 0) for name in counts}
    assert {n: mem._mirror.member_count(tnode(n)) for n in counts} == counts


def damaged_copies(store: Path) -> list[Path]:
    return sorted(store.glob("journal.damaged-*"))


def flip_payload(built: Built) -> bytes:
    start, end = built.spans[DAMAGED - 1]
    data = bytearray(built.journal)
    data[(start + _HEADER.size + end) // 2] ^= 0x20
    return bytes(data)


def flip_length(built: Built) -> bytes:
    start, _ = built.spans[DAMAGED - 1]
    data = bytearray(built.journal)
    data[start + 1] ^= 0x01  # the length field: the record's end is no longer known
    return bytes(data)


def truncate_middle(built: Built) -> bytes:
    end = built.spans[DAMAGED - 1][1]
    return built.journal[: end - 100] + built.journal[end:]  # 100 bytes of record 20 gone


@pytest.mark.parametrize("damage", [flip_payload, flip_length, truncate_middle])
def test_a_damaged_record_costs_that_record_only(
    built: Built, tmp_path: Path, model_path: str, caplog: pytest.LogCaptureFixture, damage
) -> None:
    damaged = damage(built)
    store = open_damaged(built, tmp_path, damaged)
    lost = built.ids[DAMAGED - 1]
    caplog.set_level(logging.WARNING, logger="graphmem.owner.journal")
    with GraphMemory(store, model_path=model_path) as mem:
        ids = stored(mem)
        # The 19 records before and the 20 after it are there, once each; its own is not.
        assert set(ids) == set(built.before) | set(built.ids) - {lost}
        assert max(ids.values()) == 1
        assert lost not in mem._mirror
        # Record 21's link to record 20's memory was dropped, and reported.
        recovery = mem._shared.journal.recovery
        assert recovery is not None
        assert recovery.lost == [built.seqs[DAMAGED - 1]]
        assert recovery.dropped and all(lost in (a, b) for _, a, b in recovery.dropped)
        linked = db_rows(
            mem,
            "MATCH (a:Memory)-[:RelatesTo]->(b:Memory) WHERE a.id = $id RETURN b.id AS b",
            {"id": built.ids[DAMAGED]},
        )
        assert lost not in [r["b"] for r in linked]
        # The tag record 20 created exists for the later records, counted right.
        fresh = {t.name: t.count for t in mem.tags()}
        assert fresh[FRESH_TAG] == RECORDS - DAMAGED
        assert fresh["shared"] == RECORDS - 1
        assert_counts_agree(mem)
        # The store takes writes after the recovery.
        new = mem.remember("After the recovery a walrus counted the icebergs.", session_id="s")
        assert new.id in stored(mem)
    # The damaged journal is kept aside, private, byte for byte; the journal itself is empty.
    (copy,) = damaged_copies(store)
    assert copy.read_bytes() == damaged
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert read_records(store / JOURNAL_NAME) == []
    # The warning says what was lost and where the copy is.
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert "1 acknowledged write(s) could not be read and are lost" in warning
    assert str(copy) in warning
    assert "dropped" in warning


@pytest.mark.parametrize(
    "variant",
    ["zero_tail", "duplicate_record", "duplicate_at_end"],
)
def test_zeros_and_duplicates_open_cleanly_and_lose_nothing(
    built: Built, tmp_path: Path, model_path: str, caplog: pytest.LogCaptureFixture, variant: str
) -> None:
    start, end = built.spans[DAMAGED - 1]
    record = built.journal[start:end]
    if variant == "zero_tail":
        # A file system may leave a zero-filled tail after a crash (the size grew, the data
        # did not reach the disk).
        journal = built.journal + bytes(8192)
    elif variant == "duplicate_record":
        journal = built.journal[:end] + record + built.journal[end:]
    else:
        journal = built.journal + record
    store = open_damaged(built, tmp_path, journal)
    caplog.set_level(logging.WARNING, logger="graphmem.owner.journal")
    with GraphMemory(store, model_path=model_path) as mem:
        ids = stored(mem)
        assert set(ids) == set(built.before) | set(built.ids)
        assert max(ids.values()) == 1, "a record written twice was applied twice"
        assert mem._shared.journal.recovery is None
        assert {t.name: t.count for t in mem.tags()}[FRESH_TAG] == RECORDS - DAMAGED + 1
        assert_counts_agree(mem)
    assert damaged_copies(store) == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_torn_last_record_is_ignored_and_kept_aside(
    built: Built, tmp_path: Path, model_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    journal = built.journal[: built.spans[-1][1] - 50]  # the crash cut the last append short
    store = open_damaged(built, tmp_path, journal)
    caplog.set_level(logging.WARNING, logger="graphmem.owner.journal")
    with GraphMemory(store, model_path=model_path) as mem:
        assert set(stored(mem)) == set(built.before) | set(built.ids[:-1])
        recovery = mem._shared.journal.recovery
        assert recovery is not None and recovery.torn_tail and recovery.lost == []
    assert len(damaged_copies(store)) == 1
    assert any("cut short by a crash" in r.getMessage() for r in caplog.records)


def test_a_damaged_journal_copy_is_private_even_with_a_wide_umask(
    built: Built, tmp_path: Path, model_path: str
) -> None:
    store = open_damaged(built, tmp_path, flip_payload(built))
    old = os.umask(0)
    try:
        with GraphMemory(store, model_path=model_path):
            pass
    finally:
        os.umask(old)
    (copy,) = damaged_copies(store)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600

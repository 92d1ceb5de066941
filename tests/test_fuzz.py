"""Property-based fuzzing of the public API: every ``GraphMemory`` call, fed random and hostile
values, ends in a correct result or a ``GraphMemError``, and a failed call leaves the store
exactly as it was (compared through store queries)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import HashEmbedder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import Config, GraphMemory
from graphmem.errors import GraphMemError
from graphmem.models import KINDS, LINK_TYPES, SCOPES, SOURCES

SEED = [
    "Alice reconciles the invoices every Monday.",
    "Bogdan climbs the granite ridge in summer.",
    "The staging cluster must be green before a deploy.",
    "Chen audits VAT on refunds.",
]


def _deep(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(levels):
        node["x"] = {}
        node = node["x"]
    return root


def _cyclic() -> dict[str, Any]:
    d: dict[str, Any] = {}
    d["self"] = d
    return d


class Existing:
    """Stands for the id of a memory that exists when the call is made."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"Existing({self.index})"


class LastRecall:
    def __repr__(self) -> str:
        return "LastRecall()"


NASTY_TEXT = [
    "", " ", "\t\n", "\x00", "a\x00b", "\udfff", "s\udfff", "x\ud800y", "\u202egnp.exe",
    "\x07\x1b[31mred\x0c", "\ufffe\uffff", "m:abc", "../../etc/passwd", "💥" * 20,
    "'; MATCH (n) DETACH DELETE n //", "$x", "x" * 1_000_000, "y" * 20_001, "z" * 129,
    "ghp_" + "a" * 36,
]  # fmt: skip
ZONES = [UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12, minutes=-59))]
EXTREME_TIMES = [
    datetime.min, datetime.max, datetime.min.replace(tzinfo=ZONES[1]),
    datetime.max.replace(tzinfo=ZONES[2]), date.min, date.max, "+999999-01-01", "9999-12-31T23:59:59-14:00",
    "not a date", "2024-02-30", "",
]  # fmt: skip
BIG_INTS = [2**31 - 1, 2**31, 2**32, 2**63, 2**64, 10**30, -(2**63), -1, 0, 10**9]
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [float("nan"), float("inf"), float("-inf"), 1e308, -0.0, 5e-324]
)

hostile_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(BIG_INTS),
    FLOATS,
    st.text(max_size=30),
    st.sampled_from(NASTY_TEXT),
    st.binary(max_size=10),
    st.sampled_from(EXTREME_TIMES),
    st.datetimes(timezones=st.none() | st.sampled_from(ZONES)),
    st.builds(object),
)
hostile = st.one_of(
    hostile_scalar,
    st.lists(hostile_scalar, max_size=4),
    st.dictionaries(st.text(max_size=5), hostile_scalar, max_size=3),
    st.builds(_deep, st.sampled_from([20, 200, 50_000])),
    st.builds(_cyclic),
    st.sampled_from([{1: 2}, {(1, 2): "t"}, {"a": {1, 2}}, [[[[[]]]]], set(), frozenset({"a"})]),
)

existing = st.builds(Existing, st.integers(0, 50))
ident = st.one_of(existing, st.sampled_from(["0123456789abcdef", "user-id:1", "nope"]))
words = st.sampled_from(["rate limits", "who climbs ridges?", "invoices", "deploy", "VAT"])
text = words | st.text(min_size=1, max_size=40)
short = st.sampled_from(["api", "billing", "Ops Team", "p1", "s1"]) | st.text(max_size=12)
tag_list = st.lists(short, max_size=4)
when = st.datetimes(timezones=st.none() | st.sampled_from(ZONES)) | st.dates()
meta = st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3)

VALID: dict[str, st.SearchStrategy[Any]] = {
    "text": text,
    "id": ident,
    "ids": st.lists(ident, max_size=3),
    "int": st.integers(-3, 60),
    "float": st.floats(-1.5, 1.5),
    "bool": st.booleans(),
    "kind": st.sampled_from(KINDS),
    "kinds": st.lists(st.sampled_from(KINDS), max_size=3),
    "tags": tag_list,
    "tag": short,
    "scope": st.sampled_from(SCOPES),
    "source": st.sampled_from(SOURCES),
    "name": short,
    "time": when,
    "link": st.sampled_from(LINK_TYPES),
    "meta": meta,
    "query": st.sampled_from(
        [
            "MATCH (m:Memory) RETURN m.id AS id LIMIT 3",
            "RETURN $x AS x",
            "UNWIND [1, 2] AS x RETURN sum(x) AS s",
            "MATCH (t:Tag) RETURN t.name, t.count",
            "RETURN 1 +",
        ]
    ),
    "params": st.dictionaries(st.just("x"), hostile_scalar | st.integers(), max_size=1),
    "recall": st.just(LastRecall()) | st.text(max_size=12),
    "seeds": st.integers(-1, 20) | st.lists(ident, max_size=2),
    "progress": st.sampled_from([None, True, False, print]),
    "format": st.sampled_from(["graphml", "gexf", "json", "cytoscape", "csv", "dot", "xml"]),
    "item": st.fixed_dictionaries({"content": text}, optional={"tags": tag_list, "id": ident}),
}
VALID["items"] = st.lists(VALID["item"], max_size=3)

# method -> (positional parameters, keyword parameters), each with the kind of valid value.
REMEMBER = {
    "kind": "kind", "tags": "tags", "scope": "scope", "project": "name", "session_id": "name",
    "source": "source", "confidence": "float", "pinned": "bool", "triggers": "tags",
    "file_paths": "tags", "metadata": "meta", "id": "id", "valid_from": "time",
    "valid_until": "time", "supersedes": "ids", "dedupe": "bool", "redact": "bool",
}  # fmt: skip
FILTERS = {"kinds": "kinds", "tags": "tags", "scope": "scope", "project": "name"}
METHODS: dict[str, tuple[list[str], dict[str, str]]] = {
    "remember": (["text"], REMEMBER),
    "remember_many": (["items"], {"batch_size": "int", "progress": "progress"}),
    "update": (
        ["id"],
        {
            "content": "text",
            "kind": "kind",
            "confidence": "float",
            "pinned": "bool",
            "metadata": "meta",
            "triggers": "tags",
            "file_paths": "tags",
            "valid_from": "time",
            "valid_until": "time",
            "redact": "bool",
        },
    ),
    "forget": (["id"], {"purge": "bool"}),
    "restore": (["id"], {}),
    "link": (["id", "id", "link"], {"weight": "float", "reason": "text"}),
    "unlink": (["id", "id", "link"], {}),
    "tag": (["id", "tag", "tag"], {}),
    "untag": (["id", "tag"], {}),
    "get": (["id"], {"with_embedding": "bool"}),
    "search": (
        ["text"],
        {"limit": "int", **FILTERS, "session_id": "name", "include_inactive": "bool"},
    ),
    "memories": (
        [],
        {
            "tag": "tag",
            "kinds": "kinds",
            "scope": "scope",
            "project": "name",
            "session_id": "name",
            "include_inactive": "bool",
            "limit": "int",
            "offset": "int",
        },
    ),
    "tags": ([], {}),
    "neighbors": (["id"], {"depth": "int", "include_inactive": "bool"}),
    "history": (["id"], {}),
    "stats": ([], {}),
    "cypher": (["query"], {"params": "params", "write": "bool"}),
    "recall": (
        ["text"],
        {
            "limit": "int",
            "depth": "int",
            "seeds": "seeds",
            "threshold": "float",
            **FILTERS,
            "session_id": "name",
            "at": "time",
            "budget_tokens": "int",
            "include_history": "bool",
        },
    ),
    "feedback": (["recall"], {"used": "ids", "rejected": "ids"}),
    "flush": ([], {}),
    "gaps": ([], {"limit": "int"}),
    "rebuild_clusters": ([], {"min_cluster_size": "int", "progress": "progress"}),
    "clusters": ([], {}),
    "agent": ([], {"limit": "int", "depth": "int", "topic_threshold": "float"}),
    "schema": ([], {}),
    "to_networkx": (
        [],
        {
            "include_inactive": "bool",
            "kinds": "kinds",
            "tags": "tags",
            "around": "ids",
            "depth": "int",
            "embeddings": "bool",
        },
    ),
    "export": ([], {"format": "format", "include_inactive": "bool", "depth": "int"}),
}


def snapshot(mem: GraphMemory) -> dict[str, Any]:
    """Everything a call could change, read back through the store."""
    mem.flush()  # background maintenance of earlier successful recalls lands first
    q = mem._store.engine.rows  # the raw engine: no validation in the way
    out: dict[str, Any] = {
        "memories": q(
            "MATCH (m:Memory) RETURN m.id, m.content, m.kind, m.scope, m.project, m.session_id, "
            "m.active, m.pinned, m.confidence, m.superseded_by, m.triggers, m.file_paths, "
            "m.metadata, m.valid_from, m.valid_until, m.strength, m.updated_at ORDER BY m.id"
        ),
        "tags": q("MATCH (t:Tag) RETURN t.name, t.kind, t.count ORDER BY t.name"),
        "clusters": q("MATCH (c:Cluster) RETURN c.id, c.label, c.size ORDER BY c.id"),
        "gaps": q("MATCH (g:Gap) RETURN count(g) AS n"),
    }
    for table in ("HasTag", "InCluster", "RelatesTo", "Supersedes", "Contradicts", "DerivedFrom"):
        key = "name" if table == "HasTag" else "id"
        extra = ", r.weight AS w" if table == "RelatesTo" else ""
        out[table] = q(
            f"MATCH (a:Memory)-[r:{table}]->(b) RETURN a.id AS src, b.{key} AS dst{extra} "
            "ORDER BY src, dst"
        )
    return out


class Harness:
    def __init__(self, mem: GraphMemory, folder: Path) -> None:
        self.mem = mem
        self.folder = folder
        self.recall_id = mem.recall("invoices").recall_id
        self.before = snapshot(mem)

    def resolve(self, value: Any) -> Any:
        if isinstance(value, Existing):
            ids = [r["m.id"] for r in self.before["memories"]]
            return ids[value.index % len(ids)] if ids else "0123456789abcdef"
        if isinstance(value, LastRecall):
            return self.recall_id
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
            try:
                return {k: self.resolve(v) for k, v in value.items()}
            except RecursionError:
                return value
        return value


def _draw_call(data: st.DataObject) -> tuple[str, list[Any], dict[str, Any]]:
    name = data.draw(st.sampled_from(sorted(METHODS)), label="method")
    positional, keywords = METHODS[name]
    args = [
        data.draw(st.one_of(VALID[kind], hostile) if data.draw(st.booleans()) else VALID[kind])
        for kind in positional
    ]
    kwargs = {}
    chosen = (
        data.draw(st.lists(st.sampled_from(sorted(keywords)), unique=True, max_size=4))
        if keywords
        else []
    )
    for key in chosen:
        hostile_one = data.draw(st.integers(0, 2)) == 0
        kwargs[key] = data.draw(hostile if hostile_one else VALID[keywords[key]], label=key)
    return name, args, kwargs


def _check_result(name: str, args: list[Any], kwargs: dict[str, Any], result: Any) -> None:
    """Light checks that a successful call answered sensibly."""
    if name == "get":
        assert result.id == args[0]
    elif name in ("search", "recall"):
        assert len(result) <= kwargs.get("limit", 10)
    elif name == "memories":
        limit = kwargs.get("limit", 50)
        assert limit is None or len(result) <= limit


def run_one(h: Harness, data: st.DataObject) -> None:
    name, args, kwargs = _draw_call(data)
    args, kwargs = h.resolve(args), h.resolve(kwargs)
    if name == "export":
        args = [h.folder / "out.graphml"]
    method: Callable[..., Any] = getattr(h.mem, name)
    try:
        result = method(*args, **kwargs)
    except GraphMemError:
        after = snapshot(h.mem)
        assert after == h.before, f"{name} failed but changed the store"
        return
    if name == "agent":
        result.close()
    if name == "recall":
        h.recall_id = result.recall_id
    _check_result(name, args, kwargs, result)
    h.before = snapshot(h.mem)


@pytest.fixture(scope="module")
def harness(
    tmp_path_factory: pytest.TempPathFactory, fake_embedder: HashEmbedder
) -> Iterator[Harness]:
    # What is fuzzed is how every call handles its arguments, not what the model makes of
    # the words: the deterministic fake embedder, and no socket server.
    folder = tmp_path_factory.mktemp("fuzz")
    config = Config(cluster_every_writes=0, cluster_every_recalls=0)
    with GraphMemory(folder / "store", embedder=fake_embedder, config=config, serve=False) as mem:
        mem.remember_many({"content": c, "tags": ["seed"]} for c in SEED)
        yield Harness(mem, folder)


_FUZZ: dict[str, Any] = dict(
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large],
    database=None,
)  # fmt: skip


# The default run: 100 examples; the slow step runs 3000 below.
@settings(max_examples=100, **_FUZZ)
@given(data=st.data())
def test_every_call_ends_in_a_result_or_a_graphmem_error(harness: Harness, data: Any) -> None:
    run_one(harness, data)


@pytest.mark.slow
@settings(max_examples=3000, **_FUZZ)
@given(data=st.data())
def test_every_call_ends_in_a_result_or_a_graphmem_error_long(harness: Harness, data: Any) -> None:
    run_one(harness, data)

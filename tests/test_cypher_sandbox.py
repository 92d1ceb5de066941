"""The Cypher sandbox (graphmem.storage.sandbox): what an attacker found on a text guard and an in-process
engine, tried again. Each statement here either read a file past the old guard or killed or
starved the process that owns the store; the test process is that owner, so it surviving each
call is the proof."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import Config, CypherError, GraphMemory, ReadOnlyError
from graphmem.paths import caller_folder
from graphmem.remote.client import RemoteMemory

# What is tested is the Cypher sandbox, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


PASSWD = "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN column0"
BYPASSES = [
    # The guard ended a comment at the first */, Kùzu does not end one at **/.
    f"/* **/ ' */ {PASSWD} LIMIT 3 //'",
    # The guard read 1LOAD as one number; Kùzu reads 1, then LOAD.
    f"UNWIND [1] AS x WITH x LIMIT 1{PASSWD}",
    f"UNWIND [1] AS x WITH x LIMIT 1{PASSWD.replace('/etc/passwd', '/etc/shadow')}",
    "COPY (RETURN 'x' AS k) TO '/tmp/graphmem-sandbox-escape.csv'",
    "EXPORT DATABASE '/tmp/graphmem-sandbox-escape'",
    "CALL threads=1",
]
CRASHERS = [
    "RETURN timestamp('9999-12-31 23:59:59') + interval('100000 years')",
    "RETURN repeat('ab', -1)",
    "CALL read_parquet('/nonexistent.parquet') RETURN *",
    # Deep nesting takes Kùzu's parser long before it crashes: the slow step runs these two.
    pytest.param("RETURN " + "[" * 3000 + "1" + "]" * 3000, marks=pytest.mark.slow),
    pytest.param("RETURN " + "{a: " * 2000 + "1" + "}" * 2000, marks=pytest.mark.slow),
]


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture
def filled(mem):
    mem.remember("The Billing API depends on the Ledger service", tags=["billing"])
    return mem


@pytest.mark.parametrize("query", BYPASSES)
def test_the_guard_bypasses_are_refused_by_kuzu_and_the_kernel(filled, query, tmp_path):
    with pytest.raises(CypherError) as err:
        filled.cypher(query)
    assert "root:" not in str(err.value)
    # Even with a folder named, nothing outside it is read or written.
    with pytest.raises(CypherError):
        filled.cypher(query, files=tmp_path)
    assert not Path("/tmp/graphmem-sandbox-escape.csv").exists()
    assert not Path("/tmp/graphmem-sandbox-escape").exists()
    assert filled.cypher("RETURN 1 AS one") == [{"one": 1}]


@pytest.mark.parametrize("query", CRASHERS)
def test_crashers_cost_the_worker_not_the_owner(filled, query):
    with pytest.raises(CypherError):
        filled.cypher(query, timeout=20)
    # The owner (this process) is alive, its store answers, and the next statement gets a
    # fresh worker.
    assert filled.recall("what does billing depend on")[0].memory.content.startswith("The Billing")
    assert filled.cypher("MATCH (m:Memory) RETURN count(*) AS n") == [{"n": 1}]


@pytest.mark.slow  # allocates up to the worker's cap; fast: test_crashers_cost_the_worker_not_the_owner
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")
def test_a_statement_cannot_grow_the_owner(filled):
    filled.cypher("RETURN 1")
    before = _rss()
    with pytest.raises(CypherError, match=r"memory|rows|larger"):
        filled.cypher("UNWIND range(1, 20000000) AS x RETURN collect(x)")
    with pytest.raises(CypherError, match=r"memory|rows|larger"):
        filled.cypher("UNWIND range(1, 2000000) AS x RETURN x")
    assert _rss() - before < 300 * 1024 * 1024


def test_results_are_bounded_in_rows_and_bytes(make_mem):
    mem = make_mem("limits", config=Config(cypher_max_rows=5, cypher_max_bytes=2000))
    assert len(mem.cypher("UNWIND range(1, 5) AS x RETURN x")) == 5
    with pytest.raises(CypherError, match="more than 5 rows"):
        mem.cypher("UNWIND range(1, 6) AS x RETURN x")
    with pytest.raises(CypherError, match="larger than 2000 bytes"):
        mem.cypher("RETURN repeat('x', 5000) AS big")


def test_a_write_is_checked_in_the_sandbox_then_run_by_the_owner(filled):
    # repeat(x, -1) kills a Kùzu process (or exhausts its memory): the scratch copy's worker.
    with pytest.raises(CypherError):
        filled.cypher("MATCH (m:Memory) SET m.content = repeat(m.content, -1)", write=True)
    assert filled.cypher("MATCH (m:Memory) RETURN m.content AS c")[0]["c"].startswith("The Billing")
    filled.cypher("MATCH (m:Memory) SET m.confidence = 0.5", write=True)
    assert filled.cypher("MATCH (m:Memory) RETURN m.confidence AS c") == [{"c": 0.5}]
    with pytest.raises(ReadOnlyError):
        filled.cypher("MATCH (m:Memory) SET m.confidence = 0.1")


def test_recall_goes_on_while_a_write_is_checked(filled):
    """A write is checked on a scratch copy, which may take the statement's whole time: the
    store's lock is not held meanwhile (an attack froze every recall for a --write
    statement's timeout). The check is held open here until a recall has answered."""
    import threading

    store = filled._backend._store
    checking, release = threading.Event(), threading.Event()
    check = store.cypher

    def held_check(*args, **kwargs):
        checking.set()
        release.wait(timeout=120)
        return check(*args, **kwargs)

    store.cypher = held_check
    writer = threading.Thread(
        target=filled.cypher, args=("MATCH (m:Memory) SET m.confidence = 0.5",),
        kwargs={"write": True},
    )  # fmt: skip
    try:
        writer.start()
        assert checking.wait(timeout=120)
        answered: list[int] = []
        reader = threading.Thread(target=lambda: answered.append(len(filled.recall("billing"))))
        reader.start()
        reader.join(timeout=120)
        assert answered and answered[0] >= 1, "recall waited for the write's check"
    finally:
        release.set()
        writer.join(timeout=120)
        del store.cypher
    assert filled.cypher("MATCH (m:Memory) RETURN m.confidence AS c") == [{"c": 0.5}]


def test_a_write_applied_past_its_limits_is_rolled_back(filled, monkeypatch):
    """A write is checked without the store's lock, so the store may grow before it is
    applied: the apply keeps the result limits too (a review got 1,849 rows past a limit of
    50 so). Here the check is skipped to stand for a store grown meanwhile."""
    store = filled._backend._store
    monkeypatch.setattr(store, "cypher", lambda *a, **k: None)
    filled.remember("The Ledger service is owned by Carla")
    filled.remember("The Ledger service runs on Postgres")
    small_config = Config(cypher_max_rows=2)
    with GraphMemory(
        filled.path, serve=False, embedder=filled.embedder, config=small_config
    ) as small:
        monkeypatch.setattr(small._backend._store, "cypher", lambda *a, **k: None)
        with pytest.raises(CypherError, match="rolled back"):
            small.cypher("MATCH (m:Memory) SET m.confidence = 0.25 RETURN m.id AS id", write=True)
    monkeypatch.undo()  # reads go through the sandbox again
    assert {r["c"] for r in filled.cypher("MATCH (m:Memory) RETURN m.confidence AS c")} != {0.25}


def test_the_view_follows_every_write(filled):
    for i in range(3):
        filled.remember(f"Service s{i} listens on port {8000 + i}")
        rows = filled.cypher("MATCH (m:Memory) RETURN count(*) AS n")
        assert rows == [{"n": 2 + i}]


def test_copying_the_store_keeps_the_owners_lock(filled):
    """POSIX drops a process's lock on a file when it closes any descriptor of it: a copy made
    by opening and closing the database let a second process open the store beside its owner."""
    import subprocess
    import sys

    filled.cypher("RETURN 1")
    filled.remember("Another note, so the next statement copies the store again")
    filled.cypher("RETURN 1")
    probe = (
        "import kuzu, sys\n"
        "try:\n    kuzu.Database(sys.argv[1])\nexcept RuntimeError as e:\n"
        "    print('locked' if 'lock' in str(e).lower() else e)\nelse:\n    print('opened')"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(filled.path / "graph.kuzu")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "locked", done.stdout + done.stderr


def test_files_may_not_reach_the_store_itself(filled):
    """With files= the store's folder (or one above it), COPY … TO could overwrite the
    database, its log or serve.token."""
    before = (filled.path / "graph.kuzu").stat().st_size
    for folder in (filled.path, filled.path.parent, filled.path / "cypher-view"):
        folder.mkdir(exist_ok=True)
        with pytest.raises(CypherError, match="store's folder"):
            filled.cypher("COPY (RETURN 'x' AS k) TO 'graph.kuzu'", files=folder)
    assert (filled.path / "graph.kuzu").stat().st_size == before
    assert filled.cypher("MATCH (m:Memory) RETURN count(*) AS n") == [{"n": 1}]


def test_views_of_other_processes_are_kept_and_of_dead_ones_removed(make_mem):
    """Several read-only processes may share a store: each keeps its own copy, and one that
    was killed leaves nothing behind for long."""
    mem = make_mem("views")
    mem.remember("A note for the views test")
    base = mem.path / "cypher-view"
    dead, alive = base / "p999999999", base / f"p{os.getppid()}"
    for folder in (dead, alive):
        (folder / "v-0").mkdir(parents=True)
    mem.close()
    again = make_mem("views")
    assert again.cypher("MATCH (m:Memory) RETURN count(*) AS n") == [{"n": 1}]
    assert not dead.exists()
    assert (alive / "v-0").exists()
    assert (base / f"p{os.getpid()}").is_dir()


def test_files_resolve_in_the_callers_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert caller_folder("files", ".") == tmp_path.resolve()
    sent = {}

    class Store:
        def call(self, name, args, kwargs, **_options):
            sent.update(kwargs)
            return []

    RemoteMemory(Store(), tmp_path).invoke("cypher", ("RETURN 1",), {"files": "."})  # type: ignore[arg-type]
    assert sent["files"] == tmp_path.resolve()


def test_mcp_offers_cypher_only_when_asked(filled):
    from graphmem.adapters.mcp.tools import build_server

    def names(server) -> set[str]:
        return {t.name for t in asyncio.run(server.list_tools())}

    assert "cypher" not in names(build_server(filled))
    assert "cypher" in names(build_server(filled, allow_cypher=True))


def _kuzu_functions() -> list[str]:
    """Every scalar function Kùzu 0.11.3 has (its own catalogue), for the fuzzer."""
    import kuzu

    conn = kuzu.Connection(kuzu.Database(":memory:"))
    rows = conn.execute(
        "CALL show_functions() WHERE type = 'SCALAR FUNCTION' RETURN DISTINCT name ORDER BY name"
    ).get_all()
    return [r[0] for r in rows if r[0].isidentifier()]


FUNCTIONS = _kuzu_functions()
_LITERAL = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(str),
    st.text(alphabet="ab%'\\", max_size=5).map(
        lambda s: "'" + s.replace("\\", "").replace("'", "") + "'"
    ),
    st.sampled_from(["NULL", "[]", "[1, 2]", "'9999-12-31'", "'100000 years'", "-1", "1e308"]),
    # Data from the store, so crashes that depend on a row's value are tried too.
    st.sampled_from(["m.content", "m.id", "m.created_at", "m.embedding", "m.confidence"]),
)


def _expr(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _LITERAL
    return st.one_of(
        _LITERAL,
        st.tuples(st.sampled_from(FUNCTIONS), st.lists(_expr(depth - 1), max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(
            _expr(depth - 1), st.sampled_from(["+", "-", "*", "/", "%"]), _expr(depth - 1)
        ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    )


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(expr=_expr(3))
def test_fuzzed_statements_never_take_the_owner_down(fuzz_mem, expr):
    # Any typed refusal is an answer (a sequence function such as NEXTVAL() is a write: a
    # ReadOnlyError); a raw exception, a hang or a dead owner is not.
    with contextlib.suppress(CypherError, ReadOnlyError):
        fuzz_mem.cypher(f"MATCH (m:Memory) RETURN {expr} AS v, m.content AS c LIMIT 3", timeout=5)
    assert fuzz_mem.cypher("RETURN 1 AS one") == [{"one": 1}]


@pytest.fixture(scope="module")
def fuzz_mem(tmp_path_factory, model_path):
    mem = GraphMemory(tmp_path_factory.mktemp("fuzz") / "store", model_path=model_path)
    mem.remember("The Billing API depends on the Ledger service")
    yield mem
    mem.close()

"""cypher() is confined: one statement, no writes unless asked, no file access unless a directory
is named, and nothing a statement does can take the owner down. Every attack below was reproduced
on an earlier release (several crashed the process, two read any file past a text guard)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from graphmem import CypherError, GraphMemError, ReadOnlyError
from graphmem.cli.app import cli
from graphmem.storage import landlock
from graphmem.storage.cypher_guard import read_plan

# What is tested is the Cypher guard, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


needs_landlock = pytest.mark.skipif(
    not landlock.abi_version(), reason="files= needs Linux Landlock"
)


def snapshot(mem) -> tuple:
    """Every node and edge as plain values, to prove a refused call changed nothing."""
    store = mem._store
    nodes = store.engine.rows(
        "MATCH (n) RETURN label(n) AS l, n.name AS name, n.id AS id, n.content AS c ORDER BY l"
    )
    edges = store.engine.rows("MATCH ()-[r]->() RETURN label(r) AS l, count(*) AS n")
    return (
        sorted(tuple(sorted((k, str(v)) for k, v in r.items())) for r in nodes),
        sorted((r["l"], r["n"]) for r in edges),
    )


@pytest.fixture
def filled(mem):
    first = mem.remember("The Billing API depends on the Ledger service", tags=["billing"])
    mem.remember("The Ledger service is owned by Carla Mendes", tags=["ledger"])
    return mem, first.id


ESCAPES = [
    "COMMIT; CREATE (:Tag {name:'evil'})",
    "ROLLBACK; CREATE (:Tag {name:'evil'})",
    "COMMIT; MATCH (m:Memory {id:'ID'}) SET m.content='PWNED'",
    "COMMIT; MATCH (t:Tag) DETACH DELETE t",
    "MATCH (m:Memory) RETURN m.id; MATCH (t:Tag) DETACH DELETE t",
    "COMMIT",
    "BEGIN TRANSACTION",
    "CHECKPOINT",
    "RETURN 1; RETURN 2",
]


@pytest.mark.parametrize("query", ESCAPES)
@pytest.mark.parametrize("write", [False, True])
def test_transaction_escapes_are_refused_and_change_nothing(filled, query, write):
    mem, memory_id = filled
    before = snapshot(mem)
    with pytest.raises(CypherError):
        mem.cypher(query.replace("ID", memory_id), write=write)
    assert snapshot(mem) == before
    assert mem.get(memory_id).content == "The Billing API depends on the Ledger service"
    # The handle still works afterwards (no transaction left open, no crash).
    assert mem.cypher("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"] == 2


WRITES = [
    "CREATE (:Tag {name:'evil'})",
    "MATCH (m:Memory) SET m.content = 'PWNED'",
    "MATCH (t:Tag) DETACH DELETE t",
    "MERGE (t:Tag {name:'evil'})",
    "MATCH (m:Memory) DETACH DELETE m",
    "match (m:Memory) set m.content = 'lower-case keywords too'",
    "/* comment */ MATCH (m:Memory) // another\nSET m.content = 'x'",
]


@pytest.mark.parametrize("query", WRITES)
def test_read_only_means_no_write(filled, query):
    mem, _ = filled
    before = snapshot(mem)
    with pytest.raises(ReadOnlyError):
        mem.cypher(query)
    assert snapshot(mem) == before


@pytest.mark.parametrize(
    "query",
    [
        "DROP TABLE Memory",
        "ALTER TABLE Memory ADD evil STRING",
        "CREATE NODE TABLE Evil(id STRING PRIMARY KEY)",
        "CREATE MACRO evil(x) AS x",
        "INSTALL httpfs",
        "LOAD EXTENSION '/tmp/evil.so'",
        "ATTACH '/tmp/other.kuzu' AS other (dbtype kuzu)",
        "CALL threads=1",
        "CALL CREATE_FTS_INDEX('Memory', 'evil', ['content'])",
        "CALL PROJECT_GRAPH('G', ['Memory'], [])",
        "IMPORT DATABASE '/tmp/x'",
        "CALL READ_CSV_SERIAL('/etc/passwd') RETURN *",
        "CALL read_parquet('/tmp/x.parquet') RETURN *",
        "CALL JSON_SCAN('/etc/hosts') RETURN *",
        "CALL FILE_INFO('/etc/passwd') RETURN *",
        "CALL READ_PANDAS('df') RETURN *",
    ],
)
def test_schema_extensions_and_settings_are_refused_even_with_write(filled, query):
    mem, _ = filled
    before = snapshot(mem)
    with pytest.raises(CypherError):
        mem.cypher(query, write=True)
    assert snapshot(mem) == before


def test_no_file_access_without_a_named_directory(filled, tmp_path):
    mem, _ = filled
    victim = tmp_path / "victim.csv"
    victim.write_text("keep me\n")
    attacks = [
        "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *",
        "LOAD FROM '/proc/self/environ' (file_format='csv', header=false) RETURN *",
        f"COPY (RETURN 'x' AS k) TO '{victim}'",
        f"EXPORT DATABASE '{tmp_path / 'dump'}'",
        "LOAD FROM df RETURN *",
        "LOAD FROM $p RETURN *",
    ]
    for query in attacks:
        params = {"p": "/etc/passwd"} if "$p" in query else None
        with pytest.raises(CypherError):
            mem.cypher(query, params)
        with pytest.raises(CypherError):
            mem.cypher(query, params, write=True)
    assert victim.read_text() == "keep me\n"
    assert not (tmp_path / "dump").exists()


@needs_landlock
def test_files_inside_the_named_directory_only(filled, tmp_path):
    mem, _ = filled
    allowed = tmp_path / "exports"
    allowed.mkdir()
    mem.cypher(
        f"COPY (MATCH (t:Tag) RETURN t.name AS name) TO '{allowed / 'tags.csv'}'", files=allowed
    )
    assert "billing" in (allowed / "tags.csv").read_text()
    rows = mem.cypher(f"LOAD FROM '{allowed / 'tags.csv'}' (header=false) RETURN *", files=allowed)
    assert {r[next(iter(r))] for r in rows} >= {"billing", "ledger"}
    outside = [
        f"COPY (RETURN 1 AS k) TO '{tmp_path / 'out.csv'}'",
        f"COPY (RETURN 1 AS k) TO '{allowed}/../out.csv'",
        "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *",
        f"LOAD FROM ['{allowed / 'tags.csv'}', '/etc/hosts'] (header=false) RETURN *",
        "LOAD FROM 'http://127.0.0.1/x.csv' RETURN *",
    ]
    for query in outside:
        with pytest.raises(CypherError):
            mem.cypher(query, files=allowed)
    assert not (tmp_path / "out.csv").exists()
    # A symlink inside the folder that points outside it does not open a way out.
    (allowed / "link").symlink_to("/etc")
    with pytest.raises(CypherError, match="Permission denied"):
        mem.cypher(
            f"LOAD FROM '{allowed}/link/passwd' (file_format='csv', header=false) RETURN *",
            files=allowed,
        )
    # Loading rows into the graph is a write.
    with pytest.raises(ReadOnlyError):
        mem.cypher(f"COPY Tag FROM '{allowed / 'tags.csv'}'", files=allowed)


def test_reads_still_work(filled):
    mem, memory_id = filled
    rows = mem.cypher(
        "MATCH (m:Memory)-[:HasTag]->(t:Tag) WHERE t.name = $t RETURN m.id AS id",
        {"t": "billing"},
    )
    assert [r["id"] for r in rows] == [memory_id]
    # Keywords used as names, and keywords inside strings and comments, are not statements.
    assert mem.cypher("RETURN 'COMMIT; DROP TABLE Memory' AS s")[0]["s"].startswith("COMMIT")
    assert mem.cypher("RETURN {set: 1, delete: 2} AS m // COMMIT;")[0]["m"] == {
        "set": 1,
        "delete": 2,
    }
    assert mem.cypher("RETURN 1 AS `copy`;")[0]["copy"] == 1
    assert mem.cypher("CALL show_tables() RETURN name")


def test_write_true_writes_and_refreshes(filled):
    mem, memory_id = filled
    mem.cypher("MATCH (m:Memory {id: $id}) SET m.confidence = 0.25", {"id": memory_id}, write=True)
    assert mem.get(memory_id).confidence == 0.25


def test_a_runaway_query_is_stopped(filled):
    mem, _ = filled
    # 30 tags in one statement (30 write statements cost a sandbox check and a mirror reload each).
    mem.cypher(
        "UNWIND range(0, 29) AS i CREATE (:Tag {name: 'bulk' + string(i), kind: 'user', count: 0})",
        write=True,
    )
    assert len(mem.cypher("MATCH (t:Tag) WHERE t.name STARTS WITH 'bulk' RETURN t.name")) == 30
    with pytest.raises(CypherError, match="longer than"):
        mem.cypher(
            "MATCH (a:Tag), (b:Tag), (c:Tag), (d:Tag), (e:Tag) "
            "WITH a.name + b.name + c.name + d.name + e.name AS s RETURN count(DISTINCT s)",
            timeout=0.2,
        )
    assert mem.cypher("RETURN 1 AS one")[0]["one"] == 1


@pytest.mark.parametrize(
    "bad", [{"query": "RETURN 1", "params": "notadict"}, {"query": "RETURN 1", "timeout": -1}]
)
def test_bad_arguments_are_typed_errors(mem, bad):
    with pytest.raises(GraphMemError):
        mem.cypher(**bad)


def test_unterminated_literals_are_refused_by_kuzu(filled):
    mem, _ = filled
    for query in ["RETURN 'abc", 'RETURN "abc', "RETURN `abc", "RETURN 1 /* open"]:
        with pytest.raises(CypherError):
            mem.cypher(query)
    # Kùzu's escapes: a backslash takes the next character literally.
    assert mem.cypher(r"RETURN 'a\'b; COMMIT' AS s")[0]["s"] == "a'b; COMMIT"


def test_a_plan_drawing_that_cannot_be_read_is_refused():
    with pytest.raises(CypherError, match="no operator"):
        read_plan("nothing drawn")
    box = "┌──────────┐\n│ garbage  │\n└──────────┘"
    with pytest.raises(CypherError, match="Could not read"):
        read_plan(box)
    plan = read_plan(
        "┌────────────┐ ┌─────────┐\n│ LIMIT[1]   │ │ SKIP[2] │\n└────────────┘ └─────────┘"
    )
    assert plan.operators == ("LIMIT", "SKIP")


@pytest.mark.embedder("real")  # the CLI opens the store with the real model
def test_cli_cypher_is_confined(filled, tmp_path):
    mem, memory_id = filled
    path = str(mem.path)
    mem.close()
    victim = tmp_path / "victim.csv"
    victim.write_text("keep me\n")
    # The CLI in this process (click's runner): its cypher command, the same checks and the
    # same sandbox worker (cypher from another process: test_processes' client test).
    runner = CliRunner()
    for query, write in [
        ("COMMIT; MATCH (t:Tag) DETACH DELETE t", False),
        ("COMMIT; MATCH (t:Tag) DETACH DELETE t", True),
        ("LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *", False),
        (f"COPY (RETURN 'x' AS k) TO '{victim}'", False),
        ("MATCH (m:Memory) SET m.content = 'PWNED'", False),
    ]:
        args = ["-d", path, "cypher", query] + (["--write"] if write else [])
        done = runner.invoke(cli, args)
        assert done.exit_code == 1, (query, done.exit_code, done.stderr)
        assert done.stderr.startswith("Error:")
        assert "root:" not in done.stdout
    assert victim.read_text() == "keep me\n"
    from graphmem import GraphMemory

    with GraphMemory(path) as again:
        assert again.get(memory_id).content == "The Billing API depends on the Ledger service"
        assert {t.name for t in again.tags()} >= {"billing", "ledger"}

"""The CLI end to end: each command against a real store, JSON and table output, errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from graphmem.cli.app import cli


@pytest.fixture
def run(store_path):
    runner = CliRunner()

    def invoke(*args, input=None, ok=True):
        result = runner.invoke(
            cli, ["-d", str(store_path), *args], input=input, catch_exceptions=False
        )
        if ok:
            assert result.exit_code == 0, result.output + result.stderr
        return result

    return invoke


def test_remember_get_search_list(run):
    r = run("remember", "The API rate limit is 100 requests/min", "-t", "api", "--json")
    created = json.loads(r.stdout)
    assert created["action"] == "created" and "api" in created["memory"]["tags"]
    memory_id = created["id"]
    assert run("remember", "The API rate limit is 100 requests/min").stdout.startswith(
        f"reinforced {memory_id}"
    )
    got = json.loads(run("get", memory_id, "--json").stdout)
    assert got["strength"] == 2 and "embedding" not in got
    assert "rate limit" in run("get", memory_id).stdout
    hits = json.loads(run("search", "rate limits", "--json").stdout)
    assert hits[0]["memory"]["id"] == memory_id and 0 < hits[0]["score"] <= 1
    assert memory_id in run("search", "rate limits").stdout
    assert [m["id"] for m in json.loads(run("list", "-t", "api", "--json").stdout)] == [memory_id]
    assert "api" in {t["name"] for t in json.loads(run("tags", "--json").stdout)}
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["memories"] == 1


def test_supersede_history_forget_restore(run):
    old = json.loads(run("remember", "The API rate limit is 100 requests/min", "--json").stdout)[
        "id"
    ]
    out = run("remember", "The API rate limit is 200 requests/min").stdout
    assert out.startswith("superseded ") and old in out
    new = out.split()[1]
    chain = json.loads(run("history", new, "--json").stdout)
    assert [m["id"] for m in chain] == [old, new]
    assert run("forget", new).stdout.strip() == f"forgot {new}"
    assert json.loads(run("get", new, "--json").stdout)["active"] is False
    run("restore", new)
    assert json.loads(run("get", new, "--json").stdout)["active"] is True
    run("forget", old, "--purge")
    r = run("get", old, ok=False)
    assert r.exit_code == 1 and "No memory" in r.stderr and "Traceback" not in r.output


def test_link_tag_neighbors(run):
    a = json.loads(run("remember", "Alpha service talks to Beta", "--json").stdout)["id"]
    b = json.loads(run("remember", "Gardening requires patience", "--json").stdout)["id"]
    run("link", a, b, "--type", "relates_to", "-w", "0.8")
    assert b in [m["id"] for m in json.loads(run("neighbors", a, "--json").stdout)]
    run("link", a, b, "--remove")
    assert b not in [m["id"] for m in json.loads(run("neighbors", a, "--json").stdout)]
    assert "infra" in run("tag", a, "infra", "Ops").stdout
    assert "infra" not in run("tag", a, "infra", "--remove").stdout


def test_cypher_read_only_and_write(run):
    run("remember", "Cypher from the command line", "-t", "cli")
    rows = json.loads(
        run("cypher", "MATCH (t:Tag) RETURN t.name AS name ORDER BY name", "--json").stdout
    )
    assert {"name": "cli"} in rows
    r = run("cypher", "MATCH (m:Memory) SET m.pinned = true", ok=False)
    assert r.exit_code == 1 and "--write" in r.stderr
    run("cypher", "MATCH (m:Memory) SET m.pinned = true", "--write")
    rows = json.loads(run("cypher", "MATCH (m:Memory) RETURN m.pinned AS p", "--json").stdout)
    assert rows == [{"p": True}]
    r = run("cypher", "MATCH (m:Memory RETURN m", ok=False)
    assert r.exit_code == 1 and "MATCH (m:Memory RETURN m" in r.stderr
    rows = json.loads(
        run("cypher", "-", "--json", input="MATCH (m:Memory) RETURN count(*) AS n").stdout
    )
    assert rows == [{"n": 1}]
    rows = json.loads(
        run(
            "cypher", "MATCH (t:Tag {name: $n}) RETURN t.name AS x", "-p", "n", "cli", "--json"
        ).stdout
    )
    assert rows == [{"x": "cli"}]


def test_import_jsonl_and_csv(run, tmp_path):
    jsonl = tmp_path / "m.jsonl"
    jsonl.write_text(
        json.dumps({"content": "Imported fact one about Kafka", "tags": ["kafka"]})
        + "\n\n"
        + json.dumps("A bare string line about Redis")
        + "\n",
        encoding="utf-8",
    )
    out = json.loads(run("import", str(jsonl), "--json").stdout)
    assert out == {"imported": 2, "actions": {"created": 2}, "skipped": [], "updated": []}
    csv_file = tmp_path / "m.csv"
    csv_file.write_text(
        "content,kind,tags\nUse pnpm not npm,preference,js;tooling\n", encoding="utf-8"
    )
    run("import", str(csv_file))
    prefs = json.loads(run("list", "-k", "preference", "--json").stdout)
    assert prefs[0]["content"] == "Use pnpm not npm" and {"js", "tooling"} <= set(prefs[0]["tags"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{not json}\n', encoding="utf-8")
    r = run("import", str(bad), ok=False)
    assert r.exit_code == 1 and "bad.jsonl:2" in r.stderr
    assert json.loads(run("stats", "--json").stdout)["memories"] == 3


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"content": "lone \\ud800 surrogate"}\n', "lone surrogate"),
        (b'{"content": "caf\xe9 in latin-1"}\n', "not UTF-8"),
        (b'{"content": "n", "metadata": {"k": ' + b"9" * 5000 + b"}}\n", "bad.jsonl:1"),
        (
            b'{"content": "deep", "metadata": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
            "bad.jsonl:1",
        ),
    ],
)
def test_an_import_file_that_cannot_be_read_is_one_error_line(run, tmp_path, body, says):
    """An attack found tracebacks here: a lone surrogate, bytes that are not UTF-8, an integer
    of 5,000 digits and JSON nested 100,000 deep."""
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(body)
    r = run("import", str(bad), ok=False)
    assert r.exit_code == 1 and r.stderr.startswith("Error:") and says in r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_import_reads_a_byte_order_mark_and_long_fields(run, tmp_path):
    """Excel's "CSV UTF-8" starts with a byte-order mark ("Unknown field(s): \\ufeffcontent"),
    and a field over 131,072 characters was a traceback (found by a review)."""
    csv_file = tmp_path / "excel.csv"
    csv_file.write_bytes("\ufeffcontent,tags\nUse pnpm not npm,js\n".encode())
    jsonl = tmp_path / "notepad.jsonl"
    jsonl.write_bytes("\ufeff".encode() + json.dumps({"content": "Kafka keeps 7 days"}).encode())
    long_csv = tmp_path / "long.csv"
    long_csv.write_text("content\n" + "word " * 40_000 + "\n", encoding="utf-8")
    assert json.loads(run("import", str(csv_file), "--json").stdout)["imported"] == 1
    assert json.loads(run("import", str(jsonl), "--json").stdout)["imported"] == 1
    r = run("import", str(long_csv), ok=False)  # past max_content_chars: the item's own error
    assert "Traceback" not in r.stderr and r.stderr.startswith("Error:")


def test_errors_are_one_line(run):
    r = run("remember", "password=hunter2isnotsafe", ok=False)
    assert r.exit_code == 1 and r.stderr.startswith("Error:") and r.stderr.count("\n") == 1
    r = run("remember", "   ", ok=False)
    assert r.exit_code == 1 and "empty" in r.stderr


def test_read_commands_need_a_store(tmp_path):
    r = CliRunner().invoke(cli, ["-d", str(tmp_path / "none"), "stats"])
    assert r.exit_code == 1 and "No graphmem store" in r.stderr


def test_init_and_demo(run):
    assert "Store ready" in run("init").stdout
    out = run("demo").stdout
    assert "superseded" in out and "why:" in out and "demo-never" in out
    again = run("demo").stdout  # re-running replaces the demo memories
    assert "superseded" in again
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["memories"] == 8 and stats["active"] == 7


@pytest.mark.parametrize(
    "args",
    [
        ["recall", "hello"],
        ["explain", "hello"],
        ["list"],
        ["stats"],
        ["search", "hello"],
        ["get", "abc"],
        ["forget", "abc"],
        ["tag", "abc", "x"],
        ["cluster"],
        ["gaps"],
        ["cypher", "RETURN 1"],
        ["cypher", "--write", "RETURN 1"],
    ],
)
def test_commands_refuse_a_missing_store(tmp_path, args):
    typo = tmp_path / "typo"
    result = CliRunner().invoke(cli, ["-d", str(typo), *args])
    assert result.exit_code == 1 and "No graphmem store" in result.stderr
    assert not typo.exists()


def test_list_with_a_huge_offset_is_empty(run):
    run("remember", "One memory, far before offset ten million.")
    assert json.loads(run("list", "--offset", "10000000", "--json").stdout) == []


def test_cypher_sum_is_a_number_and_vectors_are_short(run):
    run("remember", "Sums and vectors in the cypher table.")
    q = "UNWIND [100, 23] AS x RETURN sum(x) AS s"
    assert json.loads(run("cypher", q, "--json").stdout) == [{"s": 123}]
    assert run("cypher", q, "--csv").stdout == "s\n123\n"
    table = run("cypher", "MATCH (m:Memory) RETURN m").stdout
    assert "384 numbers" in table and len(table) < 4000


def test_cli_import_dry_run_and_conflicts(run, tmp_path):
    run("remember", "The worker pool size is 8")
    path = tmp_path / "notes.jsonl"
    lines = ["The worker pool size is 8", "The worker pool size is 16", "Bob likes green tea"]
    path.write_text("\n".join(json.dumps({"content": t}) for t in lines) + "\n")
    out = run("import", str(path), "--dry-run").stdout
    assert "line 1: would merge into" in out and "Nothing was written" in out
    assert "line 2: would supersede" in out and "'8' → '16'" in out
    assert json.loads(run("stats", "--json").stdout)["memories"] == 1
    plan = json.loads(run("import", str(path), "--dry-run", "--json").stdout)
    assert plan["dry_run"] and plan["actions"] == {"superseded": 1, "reinforced": 1, "created": 1}
    done = json.loads(run("import", str(path), "--conflicts", "flag", "--json").stdout)
    assert done["actions"] == {"contradicted": 1, "reinforced": 1, "created": 1}
    out = run("remember", "The worker pool size is 64", "--conflicts", "off").stdout
    assert out.startswith("created ")

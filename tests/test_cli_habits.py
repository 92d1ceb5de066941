"""The CLI's habits (sqlite-utils'): update and feedback commands, '-' for stdin and stdout,
JSON/NL/CSV wherever a list comes back, errors that name the line, and a CLI call that leaves
a short-lived owner behind so the next call is a fast client."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem import GraphMemory
from graphmem.cli.app import cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run(store_path: Path):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, code: int = 0):
        result = runner.invoke(cli, ["-d", str(store_path), *args], input=input)
        assert result.exit_code == code, (args, result.output, result.exception)
        return result

    return invoke


def test_update_changes_a_memory_in_place(run) -> None:
    made = json.loads(run("remember", "The API rate limit is 100 requests/min", "--json").stdout)
    out = run("update", made["id"], "The API rate limit is 250 requests/min").stdout
    assert out.startswith(f"updated {made['id']}")
    got = json.loads(run("get", made["id"], "--json").stdout)
    assert got["content"] == "The API rate limit is 250 requests/min"
    pinned = json.loads(run("update", made["id"], "--pinned", "--json").stdout)
    assert pinned["pinned"] is True and pinned["content"].endswith("250 requests/min")
    assert json.loads(run("update", made["id"], "--unpinned", "--json").stdout)["pinned"] is False
    piped = run("update", made["id"], "-", input="The API rate limit is 300 requests/min\n")
    assert "300 requests/min" in piped.stdout
    assert "Nothing to change" in run("update", made["id"], code=2).output
    assert "No memory with id 'nope'" in run("update", "nope", "--pinned", code=1).output


def test_remember_and_import_read_stdin(run) -> None:
    made = run("remember", "-", "-t", "vpn", "--json", input="The staging VPN needs a key\n")
    assert json.loads(made.stdout)["memory"]["content"] == "The staging VPN needs a key"
    lines = "\n".join(json.dumps({"content": f"Piped note {i} about port {9000 + i}"})
                      for i in range(3))  # fmt: skip
    assert json.loads(run("import", "-", "--json", input=lines).stdout)["imported"] == 3
    table = "content,tags\nCSV from stdin about the release train,release;train\n"
    assert (
        json.loads(run("import", "-", "-f", "csv", "--json", input=table).stdout)["imported"] == 1
    )
    listed = [json.loads(line) for line in run("list", "--nl").stdout.splitlines()]
    assert len(listed) == 5 and "The staging VPN needs a key" in [m["content"] for m in listed]


def test_export_to_stdout(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run("remember", "Exported to stdout, not to a file named -", "-t", "export")
    data = json.loads(run("export", "-o", "-").stdout)
    assert any(n.get("content", "").startswith("Exported to stdout") for n in data["nodes"])
    assert run("export", "-o", "-", "-f", "graphml").stdout.startswith("<?xml")
    kg = run("export", "-o", "-", "-f", "mcp-memory").stdout
    assert kg == "" or kg.startswith("{")
    assert "two files" in run("export", "-o", "-", "-f", "csv", code=1).output
    assert not (tmp_path / "-").exists()


def test_lists_as_json_nl_and_csv(run) -> None:
    for text in ("Deploy billing with make deploy", "Billing deploys need the VPN"):
        run("remember", text, "-t", "billing")
    rows = list(csv.DictReader(io.StringIO(run("list", "--csv").stdout)))
    assert {r["content"] for r in rows} == {
        "Deploy billing with make deploy", "Billing deploys need the VPN"
    }  # fmt: skip
    assert all("billing" in r["tags"].split(";") for r in rows)
    found = list(csv.DictReader(io.StringIO(run("search", "deploy", "--csv").stdout)))
    assert float(found[0]["score"]) > 0 and found[0]["id"]
    tags = [json.loads(line) for line in run("tags", "--nl").stdout.splitlines()]
    assert any(t["name"] == "billing" and t["count"] == 2 for t in tags)
    hits = [
        json.loads(line) for line in run("recall", "how do I deploy?", "--nl").stdout.splitlines()
    ]
    assert hits and len({h["recall_id"] for h in hits}) == 1 and hits[0]["why"]
    recalled = list(csv.DictReader(io.StringIO(run("recall", "deploy", "--csv").stdout)))
    assert recalled[0]["recall_id"] and recalled[0]["content"]
    gaps = list(csv.DictReader(io.StringIO(run("gaps", "--csv").stdout)))
    assert [g["context"] for g in gaps] == ["how do I deploy?"]  # below the seed threshold
    assert "choose one of" in run("list", "--json", "--csv", code=2).output


def test_import_errors_name_the_line_from_1(run, tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"content": "fine"}\n\n{"content": ""}\n')
    assert f"{notes}:3: content is empty" in run("import", str(notes), code=1).output
    kinds = tmp_path / "kinds.jsonl"
    kinds.write_text('{"content": "fine"}\n{"content": "odd", "kind": "nope"}\n')
    assert f"{kinds}:2: kind must be one of" in run("import", str(kinds), code=1).output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"content": "fine"}\n{oops\n')
    assert f"{broken}:2: not valid JSON" in run("import", str(broken), code=1).output
    table = tmp_path / "table.csv"
    table.write_text("content,confidence\nhello there,0.5\nbad row,abc\n")
    out = run("import", str(table), code=1).output
    assert f"{table}:3: could not convert" in out and "Traceback" not in out
    piped = run("import", "-", code=1, input='{"content": "a"}\n{"content": ""}\n').output
    assert "<stdin>:2: content is empty" in piped
    assert json.loads(run("stats", "--json").stdout)["memories"] == 0


def test_a_file_as_store_says_no_store(tmp_path: Path) -> None:
    file = tmp_path / "passwd"
    file.write_text("root:x:0:0:root:/root:/bin/bash\n")
    for command in (["stats"], ["list"], ["remember", "x"]):
        result = CliRunner().invoke(cli, ["-d", str(file), *command])
        assert result.exit_code == 1, result.output
        assert f"No graphmem store at '{file}'" in result.output, result.output
        assert "configuration file" not in result.output


def test_config_shows_whole_numbers_as_such(run, store_path: Path) -> None:
    run("init")
    (store_path / "graphmem.toml").write_text("timeout = 30\n[viz]\noverview_above = 50\n")
    shown = json.loads(run("config", "--json").stdout)
    assert shown["viz.overview_above"]["value"] == 50
    assert isinstance(shown["viz.overview_above"]["value"], int)
    assert shown["timeout"]["value"] == 30 and shown["linger"]["value"] == 0  # conftest: off
    table = run("config").stdout
    assert "50.0" not in table and "30.0" not in table
    (store_path / "graphmem.toml").write_text("[viz]\noverview_above = 50.5\n")
    assert "whole number" in run("config", code=1).output


def test_feedback_command_through_the_owner(mem: GraphMemory, run) -> None:
    """The test process owns the store; CLI calls are its clients (so it knows the recall)."""
    mem.remember("Deploy billing with make deploy", kind="procedure")
    mem.remember("Billing deploys need the VPN")
    hits = [json.loads(line) for line in run("recall", "how to deploy billing", "--nl").stdout.splitlines()]  # fmt: skip
    rid, first = hits[0]["recall_id"], hits[0]["memory"]["id"]
    assert run("feedback", rid, "--used", first).stdout.startswith(f"feedback on {rid}: 1 used")
    assert "No recent recall" in run("feedback", "nope", "--used", first, code=1).output
    assert "Give --used" in run("feedback", rid, code=2).output


def _wait_exit(pid: int, timeout: float) -> bool:
    """True once process ``pid`` (not a child of this one) has exited (Linux pidfd)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(fd)


@pytest.mark.slow  # an owner left to idle out; fast: test_serve_idle_exit (the same exit)
@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waiting on a pid needs Linux pidfd")
def test_a_cli_call_leaves_an_owner_for_the_next(store_path: Path, model_path: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path,
           "GRAPHMEM_LINGER": "3"}  # fmt: skip
    cli_argv = [sys.executable, "-m", "graphmem.cli", "-d", str(store_path)]

    def call(*args: str) -> str:
        done = subprocess.run([*cli_argv, *args], env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    owner = None
    try:
        made = json.loads(call("remember", "The lingering owner keeps the model loaded", "--json"))
        with GraphMemory(store_path, model_path=model_path) as probe:
            owner = probe.owner
            assert owner is not None, "the CLI call left no owner"
            owner = int(owner["pid"])
        # Later calls are its clients: the recall id is still known when feedback comes.
        hits = [json.loads(line) for line in call("recall", "model loaded", "--nl").splitlines()]
        assert hits[0]["memory"]["id"] == made["id"]
        assert "1 used" in call("feedback", hits[0]["recall_id"], "--used", made["id"])
        # After `linger` seconds without a call it closes the store and exits.
        assert _wait_exit(owner, timeout=60), "the lingering owner did not exit when idle"
        owner = None
        with GraphMemory(store_path, model_path=model_path) as mem:
            assert mem.owner is None and mem.get(made["id"]).access_count >= 1
    finally:
        if owner is not None:
            os.kill(owner, signal.SIGTERM)
            _wait_exit(owner, timeout=60)


def test_serve_idle_exit(store_path: Path, model_path: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store_path), "serve", "--idle-exit", "1"],
        env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("serving "):
                break
        assert proc.wait(timeout=60) == 0
        assert "no call for 1 s: stopping" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)


@pytest.mark.slow  # a lingering owner and a server; fast: test_serve_idle_exit
@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waiting on a pid needs Linux pidfd")
def test_serve_takes_the_store_from_a_lingering_owner(store_path: Path, model_path: str) -> None:
    """`graphmem import x && graphmem serve` had failed for a minute as "already served" by the
    owner the first call left (found by an attack): serve asks that one to go, and serves."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path,
           "GRAPHMEM_LINGER": "600"}  # fmt: skip
    cli_argv = [sys.executable, "-m", "graphmem.cli", "-d", str(store_path)]
    done = subprocess.run([*cli_argv, "remember", "The build server is ci-7"], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with GraphMemory(store_path, model_path=model_path) as probe:
        assert probe.owner is not None and probe.owner.get("lingering") is True
        lingering = int(probe.owner["pid"])
    proc = subprocess.Popen([*cli_argv, "serve"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            assert "already served" not in line, line
            if line.startswith("serving "):
                break
        assert _wait_exit(lingering, timeout=60), "the lingering owner did not go"
        with GraphMemory(store_path, model_path=model_path) as mem:
            assert mem.owner is not None and mem.owner["pid"] == proc.pid
            assert "lingering" not in mem.owner and mem.stats().memories == 1
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.kill(lingering, signal.SIGTERM)

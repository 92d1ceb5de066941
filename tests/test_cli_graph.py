"""The graph commands end to end: schema, explain, export, viz, and the Cypher console."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from graphmem import GraphMemory
from graphmem.cli.app import cli
from graphmem.export.graph import FORMATS, csv_paths, to_networkx

ROOT = Path(__file__).resolve().parent.parent
SUFFIX = {"graphml": ".graphml", "gexf": ".gexf", "json": ".json", "cytoscape": ".cyjs",
          "dot": ".dot", "csv": ".csv"}  # fmt: skip


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory: pytest.TempPathFactory, model_path: str) -> Path:
    path = tmp_path_factory.mktemp("cli-graph") / "memory"
    result = CliRunner().invoke(cli, ["-d", str(path), "demo"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def run(demo_path: Path):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, code: int = 0):
        result = runner.invoke(cli, ["-d", str(demo_path), *args], input=input)
        assert result.exit_code == code, result.output
        assert "Traceback" not in result.output
        return result

    return invoke


def node_count(demo_path: Path, model_path: str, **filters) -> int:
    with GraphMemory(demo_path, model_path=model_path, read_only=True) as mem:
        return to_networkx(mem, **filters).number_of_nodes()


def test_schema(run) -> None:
    text = run("schema").stdout
    for word in ("Node tables", "Relationship tables", "Memory", "embedding", "FLOAT[384]",
                 "HasTag", "Memory → Tag", "InCluster", "Memory → Cluster", "PK"):  # fmt: skip
        assert word in text, word
    data = json.loads(run("schema", "--json").stdout)
    memory = next(t for t in data["nodes"] if t["name"] == "Memory")
    assert {"name": "id", "type": "STRING", "primary_key": True} in memory["properties"]
    rels = {t["name"]: t for t in data["relationships"]}
    assert set(rels) >= {"HasTag", "InCluster", "RelatesTo", "Supersedes", "Contradicts"}
    assert rels["RelatesTo"]["connections"] == [{"from": "Memory", "to": "Memory"}]
    assert "weight" in {p["name"] for p in rels["RelatesTo"]["properties"]}


def test_explain_tree_and_json(run) -> None:
    text = run("explain", "who is Maria", "-n", "5").stdout
    assert text.startswith("recall 'who is Maria'")
    assert "demo-auth-owner" in text and "seed" in text
    assert "HasTag" in text and "tag auth" in text  # a hit reached through the auth tag
    assert re.search(r"\b[01]\.\d{3}\b", text)  # scores
    data = json.loads(run("explain", "who is Maria", "--json", "--depth", "2").stdout)
    assert data["context"] == "who is Maria" and data["recall_id"]
    walked = [h for h in data["hits"] if len(h["path"]) > 1]
    assert walked and walked[0]["path"][1]["edge"] == "HasTag"
    assert all(h["score"] > 0 for h in data["hits"])
    # The same options as recall: --depth 0 stops at the seeds.
    seeds_only = json.loads(run("explain", "who is Maria", "--json", "--depth", "0").stdout)
    assert all(len(h["path"]) == 1 for h in seeds_only["hits"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_each_format(run, demo_path: Path, model_path: str, tmp_path: Path,
                            fmt: str) -> None:  # fmt: skip
    target = tmp_path / f"graph{SUFFIX[fmt]}"
    text = run("export", "-f", fmt, "-o", str(target)).stdout
    expected = node_count(demo_path, model_path)
    assert f"Wrote {expected} nodes" in text and f"({fmt})" in text
    files = list(csv_paths(target)) if fmt == "csv" else [target]
    assert all(f.stat().st_size > 100 and str(f) in text for f in files)


def test_export_filters(run, demo_path: Path, model_path: str, tmp_path: Path) -> None:
    def exported(*args: str) -> nx.MultiDiGraph:
        target = tmp_path / "g.json"
        run("export", "-o", str(target), *args)
        data = json.loads(target.read_text(encoding="utf-8"))
        return nx.node_link_graph(data, edges="links")

    default = exported()
    assert "m:demo-api-limit" not in default
    assert "m:demo-api-limit" in exported("--all")
    procedures = exported("-k", "procedure")
    assert {d["kind"] for _, d in procedures.nodes(data=True) if d["type"] == "memory"} == {
        "procedure"
    }
    git = exported("-t", "git")
    assert {n for n in git if n.startswith("m:")} == {"m:demo-never"}
    around = exported("--around", "demo-pref", "--depth", "1")
    assert set(around) == set(nx.ego_graph(default.to_undirected(), "m:demo-pref", 1))
    assert len(around) == node_count(demo_path, model_path, around=["demo-pref"], depth=1)
    assert not any("embedding" in d for _, d in default.nodes(data=True))
    vectors = exported("--embeddings")
    assert len(vectors.nodes["m:demo-pref"]["embedding"].split()) == 384
    r = run("export", "-o", str(tmp_path / "g.xyz"), code=1)
    assert "format" in r.stderr
    r = run("export", "-o", str(tmp_path / "g.json"), "--around", "nope", code=1)
    assert "m:nope" in r.stderr


def page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="graphmem-data">(.*?)</script>', html,
                      re.S)  # fmt: skip
    assert match
    return json.loads(match.group(1))


def test_viz_writes_page(run, demo_path: Path, model_path: str, tmp_path: Path) -> None:
    target = tmp_path / "out" / "graph.html"
    text = run("viz", "-o", str(target), "--recall", "who is Maria").stdout
    assert str(target) in text
    html = target.read_text(encoding="utf-8")
    assert "Binder" not in html and "cytoscape" in html.lower()
    data = page_data(html)
    assert len(data["nodes"]) == node_count(demo_path, model_path)
    ids = {n["id"] for n in data["nodes"]}
    assert "m:demo-auth-owner" in ids and "t:auth" in ids
    assert data["recall"]["context"] == "who is Maria"
    hits = {h["id"]: h for h in data["recall"]["hits"]}
    assert "m:demo-auth-owner" in hits
    assert any("t:auth" in h["path"] for h in hits.values())
    assert all(set(h["path"]) <= ids for h in hits.values())
    # Filters apply to the page as to export; no recall gives no recall block.
    run("viz", "-o", str(target), "-k", "procedure")
    data = page_data(target.read_text(encoding="utf-8"))
    assert {n["kind"] for n in data["nodes"] if n["type"] == "memory"} == {"procedure"}
    assert data["recall"] is None
    r = run("viz", code=2)
    assert "-o PATH" in r.output


@pytest.mark.parametrize(
    ("stop", "ignore_sigint"),
    # Plain SIGINT in the slow step; the default run stops it by SIGTERM and by an ignored SIGINT.
    [
        pytest.param(signal.SIGINT, False, marks=pytest.mark.slow),
        (signal.SIGTERM, False),
        (signal.SIGINT, True),
    ],
    ids=["sigint", "sigterm", "sigint-when-ignored"],
)
def test_viz_serve_stops_cleanly_on_a_signal(
    demo_path: Path, stop: signal.Signals, ignore_sigint: bool
) -> None:
    """`viz --serve` stops on SIGINT or SIGTERM like `serve`: exit 0, "stopped", the store
    closed (the next opener owns it); also when started with SIGINT ignored (a background job).
    The test never leaves the server behind, whatever fails."""
    cmd = [sys.executable, "-m", "graphmem.cli", "-d", str(demo_path), "viz", "--serve"]

    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ,
        preexec_fn=ignore if ignore_sigint else None,
    )  # fmt: skip
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"Serving (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        assert match, line + (proc.stderr.read() if proc.stderr and proc.poll() else "")
        with urllib.request.urlopen(match.group(1), timeout=10) as response:
            assert response.status == 200
            assert "graphmem-data" in response.read().decode("utf-8")
        proc.send_signal(stop)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 0, stderr
        assert "stopped" in stderr and "Traceback" not in stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    with GraphMemory(demo_path) as mem:
        assert mem.owner is None  # the server closed the store on its way out


CONSOLE_INPUT = """\
MATCH (t:Tag {name: 'auth'})
RETURN t.name AS tag_name, t.count AS n;
MATCH (m:Memory) WHERE m.id = $mid
RETURN m.kind AS the_kind

:schema
MATCH (x:NoSuchTable) RETURN x;
RETURN 'still alive' AS status;
:help
:quit
RETURN 'after quit' AS status;
"""


def test_console_piped(run) -> None:
    r = run("cypher", "-p", "mid", "demo-pref", input=CONSOLE_INPUT)
    out = r.stdout
    assert "tag_name" in out and "auth" in out  # multi-line statement ended by ';'
    assert "the_kind" in out and "preference" in out  # ended by an empty line, with a param
    assert "Node tables" in out and "Relationship tables" in out and "HasTag" in out
    assert "still alive" in out  # the console went on after the error
    assert ":schema" in out and ":quit" in out  # the help text
    assert "after quit" not in out
    assert "NoSuchTable" in r.stderr and "Binder exception" in r.stderr
    assert "query: MATCH (x:NoSuchTable) RETURN x" in r.stderr
    assert "Traceback" not in r.output


def test_console_read_only_unless_write(run) -> None:
    write = "MATCH (m:Memory {id: 'demo-pref'}) SET m.pinned = m.pinned RETURN m.id AS id;\n"
    r = run("cypher", input=write + "RETURN 1 AS one;\n")
    assert "Write refused" in r.stderr and "--write" in r.stderr and "one" in r.stdout
    r = run("cypher", "--write", input=write)
    assert "demo-pref" in r.stdout and r.stderr == ""


def test_console_and_one_shot_csv_json(run) -> None:
    query = "MATCH (t:Tag) WHERE t.name IN ['auth', 'git'] RETURN t.name AS name, t.count AS n"
    rows = list(
        csv.DictReader(io.StringIO(run("cypher", query + " ORDER BY name", "--csv").stdout))
    )
    assert rows == [{"name": "auth", "n": "2"}, {"name": "git", "n": "1"}]
    text = run("cypher", "--csv", input=query + " ORDER BY name;\n").stdout
    assert text.splitlines() == ["name,n", "auth,2", "git,1"]
    git_only = query.replace(" RETURN", " AND t.name = 'git' RETURN")
    data = json.loads(run("cypher", "--json", input=git_only + "\n").stdout)
    assert data == [{"name": "git", "n": 1}]
    # "-" still reads one query from stdin; --json and --csv do not mix.
    assert run("cypher", "-", "--csv", input="RETURN 7 AS seven").stdout == "seven\n7\n"
    run("cypher", "RETURN 1", "--json", "--csv", code=2)

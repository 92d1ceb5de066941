"""Secrets never reach the store through any field, and the store's files are private."""

from __future__ import annotations

import json
import os
import pwd
import queue
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import db_rows

from graphmem import GraphMemory, SecretError
from graphmem.cli.app import cli

# What is tested is file modes and what is stored, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
DB_PASSWORD = "Sup3rS3cretPw"
PG_URL = f"postgres://app:{DB_PASSWORD}@db.internal:5432/app"


def dump(mem: GraphMemory) -> str:
    """Every node and relationship property in the store, as one string (rows sorted)."""
    rows = db_rows(mem, "MATCH (n) RETURN n") + db_rows(mem, "MATCH ()-[r]->() RETURN r")
    return "\n".join(sorted(json.dumps(r, default=str, sort_keys=True) for r in rows))


def assert_unchanged(mem: GraphMemory, before: str) -> None:
    after = dump(mem)
    assert after == before
    assert TOKEN not in after and DB_PASSWORD not in after


REMEMBER_FIELDS: list[tuple[str, dict[str, Any]]] = [
    ("tags", {"tags": ["deploy", TOKEN]}),
    ("project", {"project": f"billing-{TOKEN}"}),
    ("session_id", {"session_id": TOKEN}),
    ("id", {"id": TOKEN}),
    ("file_paths", {"file_paths": ["src/app.py", PG_URL]}),
    ("triggers", {"triggers": [f"when pushing use {TOKEN}"]}),
    ("metadata", {"metadata": {"ci": {"steps": [{"env": f"GITHUB_TOKEN={TOKEN}"}]}}}),
    ("metadata", {"metadata": {TOKEN: "ci"}}),
    ("metadata", {"metadata": {"note": f"the db password is {DB_PASSWORD}1"}}),
]


@pytest.mark.parametrize(("field", "fields"), REMEMBER_FIELDS)
def test_remember_refuses_a_secret_in_any_field(
    mem: GraphMemory, field: str, fields: dict[str, Any]
) -> None:
    mem.remember("The deploy job runs on every merge to main", tags=["deploy"])
    before = dump(mem)
    with pytest.raises(SecretError, match=field) as info:
        mem.remember("Releases are cut on Fridays", **fields)
    assert info.value.kinds
    assert TOKEN not in str(info.value) and DB_PASSWORD not in str(info.value)
    assert_unchanged(mem, before)


def test_redact_cleans_free_text_fields(mem: GraphMemory) -> None:
    r = mem.remember(
        "Releases are cut on Fridays",
        file_paths=[PG_URL],
        triggers=[f"push with {TOKEN}"],
        metadata={"ci": [f"token {TOKEN}"], "n": 3},
        redact=True,
    )
    m = mem.get(r.id)
    assert m.file_paths == ["postgres://app:[REDACTED:url_credentials]@db.internal:5432/app"]
    assert m.triggers == ["push with [REDACTED:github_token]"]
    assert m.metadata == {"ci": ["token [REDACTED:github_token]"], "n": 3}
    dumped = dump(mem)
    assert TOKEN not in dumped and DB_PASSWORD not in dumped


@pytest.mark.parametrize(
    "fields", [{"tags": [TOKEN]}, {"project": TOKEN}, {"metadata": {TOKEN: 1}}]
)
def test_redact_never_rewrites_identities(mem: GraphMemory, fields: dict[str, Any]) -> None:
    before = dump(mem)
    with pytest.raises(SecretError):
        mem.remember("Releases are cut on Fridays", redact=True, **fields)
    assert_unchanged(mem, before)


def test_tag_update_and_link_refuse_secrets(mem: GraphMemory) -> None:
    a = mem.remember("The deploy job runs on every merge to main").id
    b = mem.remember("Alice owns the billing service").id
    before = dump(mem)
    with pytest.raises(SecretError, match="tags"):
        mem.tag(a, "ci", TOKEN)
    with pytest.raises(SecretError, match="file_paths"):
        mem.update(a, file_paths=[PG_URL])
    with pytest.raises(SecretError, match="metadata"):
        mem.update(a, metadata={"deep": {"list": [TOKEN]}})
    with pytest.raises(SecretError, match="reason"):
        mem.link(a, b, "derived_from", reason=f"the db password is {DB_PASSWORD}1")
    assert_unchanged(mem, before)
    assert mem.neighbors(a) == []


def test_link_reason_is_redacted_when_config_says_so(make_mem) -> None:
    from graphmem import Config

    mem = make_mem("redacting", config=Config(redact_secrets=True))
    a = mem.remember("The deploy job runs on every merge to main").id
    b = mem.remember("Alice owns the billing service").id
    link = mem.link(a, b, "derived_from", reason=f"pushed with {TOKEN}")
    assert link.reason == "pushed with [REDACTED:github_token]"
    assert TOKEN not in dump(mem)


def test_recall_context_secret_is_redacted_in_the_gap(mem: GraphMemory) -> None:
    mem.remember("Alice prefers green tea")
    hits = mem.recall(f"how do I push to the repo with token {TOKEN}", session_id=f"s-{TOKEN}")
    assert hits.recall_id
    gaps = mem.gaps()
    assert len(gaps) == 1
    assert "[REDACTED:github_token]" in gaps[0].context and "push to the repo" in gaps[0].context
    assert gaps[0].session_id == "s-[REDACTED:github_token]"
    assert TOKEN not in dump(mem)


def test_cli_import_refuses_a_secret_in_tags(store_path: Path, tmp_path: Path) -> None:
    jsonl = tmp_path / "m.jsonl"
    lines = [{"content": "Fine memory about Kafka"}, {"content": "Redis", "tags": [TOKEN]}]
    jsonl.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["-d", str(store_path), "import", str(jsonl), "--on-secret", "refuse"]
    )
    assert result.exit_code != 0
    assert "secret" in result.output + result.stderr
    assert TOKEN not in result.output + result.stderr
    # By default the other items are stored and the flagged line is named.
    result = CliRunner().invoke(cli, ["-d", str(store_path), "import", str(jsonl)])
    assert result.exit_code == 0
    assert "m.jsonl:2: skipped: tags looks like it holds a secret" in result.stderr
    assert TOKEN not in result.output + result.stderr


# ---------------------------------------------------------------------------- file modes


def _modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]}


def _assert_private(folder: Path) -> None:
    modes = _modes(folder)
    assert modes[folder.name] == 0o700, modes
    files = {name: mode for name, mode in modes.items() if name != folder.name}
    assert files, "the store holds no files"
    assert all(mode == 0o600 for mode in files.values()), files


def test_new_store_is_private(store_path: Path, model_path: str) -> None:
    old = os.umask(0o022)  # the usual umask: without tightening files would be 0644
    try:
        with GraphMemory(store_path, model_path=model_path) as mem:
            mem.remember("Alice prefers green tea")
            mem.recall("what does Bob like to drink?")  # writes a gap in the background
            mem.flush()
            _assert_private(store_path)
        _assert_private(store_path)
    finally:
        os.umask(old)


def test_the_folders_made_for_a_new_store_are_private(tmp_path: Path, umask_022: None) -> None:
    """Missing parents of a new store had the umask's 0755 (found by an attack)."""
    from helpers import HashEmbedder

    store = tmp_path / "made" / "for" / "it" / "memory"
    before = stat.S_IMODE(tmp_path.stat().st_mode)
    with GraphMemory(store, embedder=HashEmbedder(), serve=False) as mem:
        mem.remember("Alice prefers green tea")
    for folder in (tmp_path / "made", tmp_path / "made" / "for", tmp_path / "made" / "for" / "it"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(tmp_path.stat().st_mode) == before  # a folder that was there: as it was


def test_existing_store_is_tightened_on_open(store_path: Path, model_path: str) -> None:
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("Alice prefers green tea")
    store_path.chmod(0o755)
    for p in store_path.iterdir():
        p.chmod(0o644)
    with GraphMemory(store_path, model_path=model_path) as mem:
        _assert_private(store_path)
        mem.remember("Bob prefers coffee")
        _assert_private(store_path)


# ------------------------------------------------------------- files graphmem writes

PRIVATE_TEXT = "Maria rotates the billing keys every Tuesday"


@pytest.fixture
def umask_022():  # type: ignore[no-untyped-def]
    """The usual umask, under which a plain open(path, "w") makes a file anyone can read."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("fmt", ["graphml", "gexf", "json", "cytoscape", "dot", "csv"])
def test_every_export_format_is_private(
    mem: GraphMemory, tmp_path: Path, umask_022: None, fmt: str
) -> None:
    from graphmem.export.graph import export

    mem.remember(PRIVATE_TEXT, tags=["billing"])
    # A file left world-readable (by an older graphmem or by hand) is replaced, not reused.
    for name in ("old.out", "old-nodes.out", "old-edges.out"):
        (tmp_path / name).write_text("stale", encoding="utf-8")
        (tmp_path / name).chmod(0o644)
    for target in (tmp_path / "new" / "sub" / "graph.out", tmp_path / "old.out"):
        written = export(mem, target, fmt)
        assert written and all(_mode(p) == 0o600 for p in written), [oct(_mode(p)) for p in written]
        assert any(PRIVATE_TEXT in p.read_text(encoding="utf-8") for p in written)
    assert _mode(tmp_path / "new") == 0o700 and _mode(tmp_path / "new" / "sub") == 0o700
    # Asked for, a wider mode is given.
    shared = export(mem, tmp_path / "shared.out", fmt, mode=0o640)
    assert all(_mode(p) == 0o640 for p in shared)
    # No temporary file is left beside them.
    assert not [p for p in tmp_path.rglob(".*") if p.is_file()]


def test_export_refuses_a_bad_mode_and_a_bad_path(mem: GraphMemory, tmp_path: Path) -> None:
    from graphmem import GraphMemError, ValidationError
    from graphmem.export.graph import export

    out = tmp_path / "out"
    for bad in (0o1777, -1, "600", True):
        with pytest.raises(ValidationError, match="mode"):
            export(mem, out / "g.json", mode=bad)
    (out / "dir.json").mkdir(parents=True)
    with pytest.raises(GraphMemError, match=r"dir\.json"):
        export(mem, out / "dir.json")
    assert sorted(p.name for p in out.iterdir()) == ["dir.json"]


def test_cli_writes_private_files(store_path: Path, tmp_path: Path, umask_022: None) -> None:
    with GraphMemory(store_path) as mem:
        mem.remember(PRIVATE_TEXT, tags=["billing"])
    runner = CliRunner()

    def run(*args: str) -> None:
        result = runner.invoke(cli, ["-d", str(store_path), *args])
        assert result.exit_code == 0, result.output + str(result.exception)

    out = tmp_path / "out"
    run("export", "-o", str(out / "g.graphml"))
    run("export", "-o", str(out / "g.csv"))
    run("export", "-f", "mcp-memory", "-o", str(out / "memory.jsonl"))
    run("viz", "-o", str(out / "page.html"))
    files = sorted(out.iterdir())
    assert [p.name for p in files] == [
        "g-edges.csv", "g-nodes.csv", "g.graphml", "memory.jsonl", "page.html"
    ]  # fmt: skip
    assert {p.name: oct(_mode(p)) for p in files} == {p.name: "0o600" for p in files}
    assert _mode(out) == 0o700
    assert PRIVATE_TEXT in (out / "page.html").read_text(encoding="utf-8")
    run("export", "--mode", "644", "-o", str(out / "shared.json"))
    run("viz", "--mode", "0o640", "-o", str(out / "shared.html"))
    assert _mode(out / "shared.json") == 0o644 and _mode(out / "shared.html") == 0o640
    bad = runner.invoke(cli, ["-d", str(store_path), "export", "--mode", "9", "-o", "x.json"])
    assert bad.exit_code == 2 and "octal" in bad.output


# ------------------------------------------------------------------ viz --serve


def _fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


@pytest.fixture
def served_viz(store_path: Path, model_path: str):  # type: ignore[no-untyped-def]
    """``graphmem viz --serve`` on a store holding PRIVATE_TEXT: (base URL, printed URL).

    The process is stopped (SIGINT, then killed if it does not stop) whatever the test does.
    """
    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember(PRIVATE_TEXT, tags=["billing"])
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHMEM_MODEL_PATH": model_path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store_path), "viz", "--serve"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ, cwd=str(ROOT),
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    try:
        line = lines.get(timeout=120)  # only a hang reaches the timeout
        match = re.search(r"Serving (http://127\.0\.0\.1:\d+/)(\S*)", line)
        assert match, line
        yield match.group(1), match.group(1) + match.group(2)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == 0


def test_viz_serve_needs_a_credential(served_viz: tuple[str, str], store_path: Path) -> None:
    base, printed = served_viz
    assert printed != base and "?token=" in printed
    for url in (base, base + "index.html", base + "members?group=t%3Abilling&offset=0"):
        status, body = _fetch(url)
        assert status == 401, url
        assert "Maria" not in body and "graphmem-data" not in body
    status, body = _fetch(printed)
    assert status == 200 and PRIVATE_TEXT in body
    # The same credential as `serve`: the store's token, as a bearer token.
    token = (store_path / "serve.token").read_text(encoding="ascii").strip()
    status, body = _fetch(base, {"Authorization": f"Bearer {token}"})
    assert status == 200 and PRIVATE_TEXT in body
    assert _mode(store_path / "serve.token") == 0o600


@pytest.fixture(scope="module")
def other_user():  # type: ignore[no-untyped-def]
    """A second local account (uid, gid), made for these tests and removed after them."""
    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("userdel"):
        pytest.skip("needs root and useradd to act as another local user")
    name = f"gmprobe{os.getpid()}"
    made = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        capture_output=True, text=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"useradd failed: {made.stderr.strip()}")
    try:
        info = pwd.getpwnam(name)
        yield info.pw_uid, info.pw_gid
    finally:
        subprocess.run(["userdel", name], capture_output=True)


PROBE = """
import json, sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=30) as r:
        out = {"status": r.status, "body": r.read().decode()}
except urllib.error.HTTPError as e:
    out = {"status": e.code, "body": e.read().decode()}
try:
    open(sys.argv[2]).read()
    out["token"] = "read"
except OSError as e:
    out["token"] = type(e).__name__
print(json.dumps(out))
"""


def test_viz_serve_shows_another_user_nothing(
    served_viz: tuple[str, str], store_path: Path, other_user: tuple[int, int]
) -> None:
    base, _printed = served_viz
    uid, gid = other_user
    # A real process of another uid: it can reach the loopback port, but has no secret and
    # cannot read the store's token.
    done = subprocess.run(
        ["/usr/bin/python3", "-c", PROBE, base, str(store_path / "serve.token")],
        user=uid, group=gid, extra_groups=[], env={"PATH": "/usr/bin:/bin"}, cwd="/",
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["status"] == 401
    assert "Maria" not in seen["body"] and "graphmem-data" not in seen["body"]
    assert seen["token"] == "PermissionError"

"""Secrets never reach the store through any field, and the store's files are private."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem import GraphMemory, SecretError
from graphmem.cli import cli

TOKEN = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
DB_PASSWORD = "Sup3rS3cretPw"
PG_URL = f"postgres://app:{DB_PASSWORD}@db.internal:5432/app"


def dump(mem: GraphMemory) -> str:
    """Every node and relationship property in the store, as one string (rows sorted)."""
    rows = mem.cypher("MATCH (n) RETURN n") + mem.cypher("MATCH ()-[r]->() RETURN r")
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

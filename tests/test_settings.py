"""One configuration: flag > env > the store's graphmem.toml > the user file > default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem import GraphMemory
from graphmem.cli.app import cli

VARIABLES = ("GRAPHMEM_MODEL_PATH", "GRAPHMEM_DB", "GRAPHMEM_TIMEOUT")


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No settings from the environment; the user file is tmp_path/user.toml."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    user = tmp_path / "user.toml"
    monkeypatch.setenv("GRAPHMEM_CONFIG", str(user))
    return user


def shown(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, [*args, "config", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_precedence_flag_env_store_user_default(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    s = shown("-d", str(store))
    assert s["model_path"] == {"value": None, "source": "default"}
    assert s["timeout"]["source"] == "default" and s["mcp.tools"]["value"] == "graphmem"

    clean.write_text('model_path = "/user/model"\ntimeout = 5\n[serve]\ntcp = "8765"\n')
    s = shown("-d", str(store))
    assert s["model_path"] == {"value": "/user/model", "source": f"user file {clean}"}
    assert s["timeout"]["value"] == 5.0 and s["serve.tcp"]["value"] == "8765"

    (store / "graphmem.toml").write_text(
        'model_path = "/store/model"\n[mcp]\ntools = "server-memory"\n'
    )
    s = shown("-d", str(store))
    assert s["model_path"]["value"] == "/store/model"
    assert s["model_path"]["source"] == f"store file {store / 'graphmem.toml'}"
    assert s["mcp.tools"]["value"] == "server-memory"
    assert s["timeout"]["value"] == 5.0  # still from the user file

    monkeypatch.setenv("GRAPHMEM_MODEL_PATH", "/env/model")
    s = shown("-d", str(store))
    assert s["model_path"] == {"value": "/env/model", "source": "env GRAPHMEM_MODEL_PATH"}

    s = shown("-d", str(store), "--model-path", "/flag/model")
    assert s["model_path"] == {"value": "/flag/model", "source": "flag --model-path"}


def test_the_default_store_comes_from_env_or_user_file(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shown()["db"] == {"value": "./memory", "source": "default"}
    clean.write_text('db = "memories/main"\n')  # relative to the file's folder
    assert shown()["db"]["value"] == str(tmp_path / "memories" / "main")
    # The store named by the user file has its own graphmem.toml.
    folder = tmp_path / "memories" / "main"
    folder.mkdir(parents=True)
    (folder / "graphmem.toml").write_text("timeout = 3\n")
    assert shown()["timeout"]["value"] == 3.0
    monkeypatch.setenv("GRAPHMEM_DB", str(tmp_path / "env-db"))
    assert shown()["db"]["source"] == "env GRAPHMEM_DB"
    assert shown("-d", "x")["db"] == {"value": "x", "source": "flag -d/--db"}


def test_bad_files_are_one_line_errors(clean: Path, tmp_path: Path) -> None:
    for text, words in (
        ("model_path = ", "cannot read"),
        ('modle_path = "/x"', "unknown setting 'modle_path'"),
        ("timeout = -1", "timeout must be a number >= 0"),
        ("model_path = 3", "model_path must be a non-empty string"),
    ):
        clean.write_text(text)
        result = CliRunner().invoke(cli, ["-d", str(tmp_path / "s"), "config"])
        assert result.exit_code == 1, text
        assert words in result.output and "Traceback" not in result.output, result.output


def test_the_library_finds_the_model_in_the_store_file(
    clean: Path, tmp_path: Path, model_path: str
) -> None:
    # No GRAPHMEM_MODEL_PATH: the store's graphmem.toml names the model, so a new shell works.
    store = tmp_path / "store"
    store.mkdir()
    (store / "graphmem.toml").write_text(f"model_path = {json.dumps(model_path)}\n")
    with GraphMemory(store) as mem:
        assert mem.embedder.model_path == model_path
        mem.remember("Configured once, found every time")
        assert mem.search("configured", limit=1)[0].memory.content.startswith("Configured")

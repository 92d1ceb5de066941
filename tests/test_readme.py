"""The README's commands and examples run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli.app import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_quick_start_commands_are_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install, tests = blocks("bash")[:2]
    assert "graphmem demo" in install and "pip install" in install
    assert tests.strip() == "python -m pytest"
    for command in (install.strip(), tests.strip()):
        assert command in ci.splitlines(), f"{command!r} is not run by .ci/run"


def test_python_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    examples = blocks("python")
    assert examples
    for code in examples:
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "created" in out and "superseded True" in out and "why:" in out


def test_cli_examples_run(tmp_path):
    runner = CliRunner()
    cli_block = next(b for b in blocks("bash") if b.lstrip().startswith("graphmem remember"))
    outputs = []
    for line in cli_block.strip().splitlines():
        argv = shlex.split(line)
        assert argv[0] == "graphmem"
        result = runner.invoke(cli, ["-d", str(tmp_path / "memory"), *argv[1:]])
        assert result.exit_code == 0, (line, result.output)
        outputs.append(result.output)
    procedure_id = outputs[0].split()[1]  # "created <id>"
    assert procedure_id in outputs[2]  # the recall finds the procedure


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_is_documented_and_has_help(command):
    assert f"`{command}`" in README, f"README does not mention `{command}`"
    assert cli.commands[command].help


def test_seeing_the_graph_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    db = ["-d", str(tmp_path / "memory")]
    assert runner.invoke(cli, [*db, "demo"]).exit_code == 0
    block = next(b for b in blocks("bash") if b.lstrip().startswith("graphmem explain"))
    outputs = []
    for line in block.strip().splitlines():
        result = runner.invoke(cli, [*db, *shlex.split(line)[1:]])
        assert result.exit_code == 0, (line, result.output)
        outputs.append(result.output)
    assert "demo-auth-owner" in outputs[0]
    assert "Supersedes" in outputs[1]
    assert "250 requests" in outputs[2]
    assert (tmp_path / "graph.graphml").stat().st_size > 0
    html = (tmp_path / "graph.html").read_text(encoding="utf-8")
    assert "demo-auth-owner" in html

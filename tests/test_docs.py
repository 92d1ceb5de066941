"""The docs stay true: the CLI reference is what the commands print, links lead somewhere, and
the names the README tells a user to import can be imported."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import graphmem

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def _gen_cli() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli", ROOT / "docs" / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_what_the_commands_print():
    gen_cli = _gen_cli()
    current = gen_cli.CLI_MD.read_text(encoding="utf-8")
    assert current == gen_cli.render(current), (
        "docs/cli.md is out of date with the commands' --help: run python docs/gen_cli.py"
    )


def test_cli_reference_has_every_command():
    from graphmem.cli.app import cli

    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## Reference", 1)[1]
    for name in cli.commands:
        assert f"$ graphmem {name} --help\nUsage: graphmem {name} " in reference, name


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a page's headings (lower case, punctuation dropped, spaces as -)."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_links_between_pages_lead_somewhere():
    broken = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        # Fenced blocks hold code, not links.
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: checked by nobody here
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif (
                anchor
                and linked.suffix == ".md"
                and anchor not in _anchors(linked.read_text(encoding="utf-8"))
            ):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name}" in readme, f"README does not link docs/{page.name}"


def test_the_readme_stays_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 320, f"README.md has {lines} lines: move details to a page in docs/"


def test_the_result_types_the_readme_names_can_be_imported():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = re.search(r"all importable from\s+`graphmem` \((.*?)\)", readme, flags=re.S)
    assert named is not None
    names = re.findall(r"`(\w+)`", named.group(1))
    assert "RecallHit" in names and "Hit" in names
    for name in names:
        assert name in graphmem.__all__ and getattr(graphmem, name) is not None, name

"""The package's layers, checked on the source: no module imports a higher layer, and no
import cycle, counting imports inside functions and under ``TYPE_CHECKING`` too.

Layers, top to bottom (each package's ``__init__`` says what it owns):

    cli                      the command
    adapters                 LangGraph, MCP, the multi-store server
    memory, agent            the API (graphmem/__init__ too)
    owner                    the process that owns a store (and where a handle's store lives)
    remote                   what crosses processes
    recall, export           ranking over the mirror; the graph going out
    write                    checking and planning writes
    index                    the in-process mirror
    text, storage            language heuristics; the database
    vocabulary               config, settings, errors, models, edges, paths, codec, ...

A module may import its own package and anything below its layer; packages on one layer do
not import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PKG = Path(__file__).resolve().parent.parent / "graphmem"
LAYERS = [
    {"cli"},
    {"adapters"},
    {"memory", "agent", "__init__"},
    {"owner"},
    {"remote"},
    {"recall", "export"},
    {"write"},
    {"index"},
    {"text", "storage"},
]
# Documented import paths kept where users import them from: module -> its package.
SHIMS = {"langgraph": "adapters"}
# The API's modules form one package for this rule (they import each other, without cycles).
API = {"memory", "agent", "__init__"}
VOCABULARY = {"config", "settings", "errors", "models", "edges", "paths", "timeutil", "embed",
              "progress", "private", "codec", "keys"}  # fmt: skip
# The one module that imports kuzu, and the packages that may not touch numpy (clients load them).
KUZU_IMPORTERS = {"graphmem.storage.engine", "graphmem.storage.sandbox_worker"}


def modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The graphmem modules ``name`` imports, wherever the import statement stands."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" for a in node.names] + [mod]
        else:
            continue
        for t in targets:
            # the longest known module the target names (a name imported from a module is the module)
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph() -> nx.DiGraph:
    mods = modules()
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        for target in imports(name, path, set(mods)):
            g.add_edge(name, target)
    return g


def layer(module: str) -> tuple[int, str]:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    top = SHIMS.get(top, top)
    if top in VOCABULARY:
        return len(LAYERS), "vocabulary"
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank, "api" if top in API else top
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS in {__file__}")


def test_every_module_is_in_a_layer() -> None:
    for module in modules():
        layer(module)


def test_no_module_imports_a_higher_layer_or_a_sibling_package() -> None:
    wrong = []
    for src, dst in graph().edges:
        (rs, ps), (rd, pd) = layer(src), layer(dst)
        if dst == "graphmem":  # the package itself: only its version string is read from below
            continue
        if rd < rs or (rd == rs and ps != pd and ps != "vocabulary"):
            wrong.append(f"{src} ({ps}) imports {dst} ({pd})")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_import_cycle() -> None:
    g = graph()
    g.remove_nodes_from([n for n in list(g) if n == "graphmem"])
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, cycles


def test_only_the_storage_engine_imports_kuzu() -> None:
    for name, path in modules().items():
        tree = ast.parse(path.read_text())
        uses = any(
            (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "kuzu" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "kuzu")
            for n in ast.walk(tree)
        )
        assert not uses or name in KUZU_IMPORTERS, f"{name} imports kuzu"


def test_every_package_says_what_it_owns() -> None:
    for init in PKG.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 40, f"{init} has no docstring saying what it owns"

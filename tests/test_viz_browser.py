"""Browser tests for the graphmem visualisation page (headless Debian Chromium + Playwright).

Skipped (with the reason) only when /usr/bin/chromium or the ``playwright`` package is missing.
CI installs both: ``apt-get install -y chromium`` and ``pip install playwright``.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import db_rows
from rich.console import Console

from graphmem import GraphMemory
from graphmem.cli.app import cli
from graphmem.cli.demo import run_demo
from graphmem.export.graph import to_networkx
from graphmem.export.viz import render_html, serve, write_html

CHROMIUM = os.environ.get("GRAPHMEM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# CI sets GRAPHMEM_REQUIRE_BROWSER=1: there a missing browser is an error, not a skip.
_REQUIRED = bool(os.environ.get("GRAPHMEM_REQUIRE_BROWSER"))


def _unavailable(reason: str) -> None:
    if _REQUIRED:
        raise RuntimeError(f"{reason} (GRAPHMEM_REQUIRE_BROWSER is set)")
    pytest.skip(reason, allow_module_level=True)


if not os.path.exists(CHROMIUM):
    _unavailable(f"browser tests need Chromium at {CHROMIUM} (apt-get install -y chromium)")
try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    _unavailable("browser tests need the 'playwright' Python package (pip install playwright)")

pytestmark = pytest.mark.browser

KINDS = ["fact", "preference", "procedure", "correction", "negative", "episode"]
TOPICS = ["auth", "database", "deploy", "frontend", "testing"]
WORDS = [
    "token",
    "schema",
    "index",
    "cache",
    "queue",
    "button",
    "retry",
    "fixture",
    "rollback",
    "latency",
    "session",
    "migration",
    "bundle",
    "endpoint",
    "timeout",
    "replica",
]


def small_graph() -> dict[str, Any]:
    """60 memories, 5 tags, 3 clusters, edges of every type and a recall block.

    Memories whose index is divisible by 7 contain the word "zebra" (9 of them).
    """
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for c in range(3):
        nodes.append(
            {"id": f"c:{c}", "type": "cluster", "label": f"cluster {c} / {TOPICS[c]}", "size": 20}
        )
    for t in TOPICS:
        nodes.append({"id": f"t:{t}", "type": "tag", "label": t, "kind": "topic", "count": 0})
    tag_counts = dict.fromkeys(TOPICS, 0)
    for i in range(60):
        kind = KINDS[i % len(KINDS)]
        tag_a = TOPICS[i % 5]
        tag_b = TOPICS[(i * 3 + 1) % 5]
        tags = sorted({tag_a, tag_b})
        zebra = " zebra crossing" if i % 7 == 0 else ""
        content = (
            f"Memory {i}: the {WORDS[i % len(WORDS)]} of the {tag_a} service uses "
            f"{WORDS[(i * 5) % len(WORDS)]}{zebra}. Details line two."
        )
        nodes.append(
            {
                "id": f"m:{i:03d}",
                "type": "memory",
                "label": content[:60],
                "kind": kind,
                "active": i % 10 != 9,
                "content": content,
                "tags": tags,
                "cluster": f"c:{i % 3}",
                "meta": {
                    "scope": "project",
                    "source": "test",
                    "confidence": round(0.5 + i / 200, 3),
                    "created_at": f"2024-01-{i % 28 + 1:02d}T10:00:00Z",
                    "superseded_by": f"m:{i + 1:03d}" if i % 10 == 9 else None,
                },
            }
        )
        for t in tags:
            tag_counts[t] += 1
            edges.append(
                {
                    "id": f"ht{i}-{t}",
                    "source": f"m:{i:03d}",
                    "target": f"t:{t}",
                    "type": "HasTag",
                    "weight": 1.0,
                }
            )
        edges.append(
            {
                "id": f"ic{i}",
                "source": f"m:{i:03d}",
                "target": f"c:{i % 3}",
                "type": "InCluster",
                "weight": 1.0,
            }
        )
        if i > 0:
            edges.append(
                {
                    "id": f"rt{i}",
                    "source": f"m:{i:03d}",
                    "target": f"m:{i - 1:03d}",
                    "type": "RelatesTo",
                    "weight": round((i % 10) / 10, 2),
                }
            )
    for n in nodes:
        if n["type"] == "tag":
            n["count"] = tag_counts[n["label"]]
    for i in range(9, 60, 10):
        if i + 1 < 60:
            edges.append(
                {
                    "id": f"sup{i}",
                    "source": f"m:{i + 1:03d}",
                    "target": f"m:{i:03d}",
                    "type": "Supersedes",
                    "weight": 1.0,
                }
            )
    edges.append(
        {"id": "con1", "source": "m:004", "target": "m:016", "type": "Contradicts", "weight": 0.9}
    )
    edges.append(
        {"id": "der1", "source": "m:030", "target": "m:012", "type": "DerivedFrom", "weight": 0.6}
    )
    recall = {
        "context": "Relevant memories for: how do we deploy?",
        "hits": [
            {"id": "m:002", "score": 0.91, "path": ["m:002"]},
            {"id": "m:012", "score": 0.74, "path": ["m:002", "t:deploy", "m:012"]},
            {"id": "m:030", "score": 0.52, "path": ["m:002", "t:deploy", "m:012", "m:030"]},
        ],
    }
    return {"title": "graphmem test graph", "nodes": nodes, "edges": edges, "recall": recall}


def large_graph(
    n_total: int = 5000, n_clusters: int = 40, n_tags: int = 300, seed: int = 7
) -> dict[str, Any]:
    """A synthetic graph of exactly ``n_total`` nodes with ~4 edges per memory."""
    rng = random.Random(seed)
    n_mem = n_total - n_clusters - n_tags
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for c in range(n_clusters):
        nodes.append({"id": f"c:{c}", "type": "cluster", "label": f"topic {c}", "size": 0})
    for t in range(n_tags):
        nodes.append(
            {"id": f"t:{t}", "type": "tag", "label": f"tag{t}", "kind": "topic", "count": 0}
        )
    sizes = [0] * n_clusters
    for i in range(n_mem):
        c = rng.randrange(n_clusters) if i % 50 else None  # 2 % unclustered
        t1 = rng.randrange(n_tags) if rng.random() < 0.5 else rng.randrange(12)
        t2 = (t1 + 1 + rng.randrange(n_tags - 1)) % n_tags
        content = f"memory {i} about {WORDS[i % len(WORDS)]} and {WORDS[(i * 7) % len(WORDS)]}"
        nodes.append(
            {
                "id": f"m:{i}",
                "type": "memory",
                "label": content[:60],
                "kind": KINDS[i % 6],
                "active": i % 13 != 0,
                "content": content,
                "tags": [f"tag{t1}", f"tag{t2}"],
                "cluster": None if c is None else f"c:{c}",
                "meta": {"n": i},
            }
        )
        edges.append(
            {
                "id": f"a{i}",
                "source": f"m:{i}",
                "target": f"t:{t1}",
                "type": "HasTag",
                "weight": 1.0,
            }
        )
        edges.append(
            {
                "id": f"b{i}",
                "source": f"m:{i}",
                "target": f"t:{t2}",
                "type": "HasTag",
                "weight": 1.0,
            }
        )
        if c is not None:
            sizes[c] += 1
            edges.append(
                {
                    "id": f"c{i}",
                    "source": f"m:{i}",
                    "target": f"c:{c}",
                    "type": "InCluster",
                    "weight": 1.0,
                }
            )
        if i:
            j = rng.randrange(i)
            edges.append(
                {
                    "id": f"r{i}",
                    "source": f"m:{i}",
                    "target": f"m:{j}",
                    "type": "RelatesTo",
                    "weight": round(rng.random(), 2),
                }
            )
    for c in range(n_clusters):
        nodes[c]["size"] = sizes[c]
    return {"title": "big", "nodes": nodes, "edges": edges, "recall": None}


def wait_js(page: Page, expression: str, timeout_s: float = 10.0) -> None:
    """Poll a JS expression until truthy.

    (``page.wait_for_function`` evaluates strings with ``eval``, which the page's
    Content-Security-Policy forbids; ``page.evaluate`` is not subject to it.)
    """
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for: {expression}")
        time.sleep(0.05)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def open_page(browser: Any, url: str, timeout_s: float = 30.0) -> tuple[Page, list[str]]:
    """Open ``url``, fail on any request that leaves the page's origin, wait for ready."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    external: list[str] = []
    origin = "/".join(url.split("/", 3)[:3]) + "/" if url.startswith("http") else None

    def on_request(req: Any) -> None:
        ok = req.url.startswith(("file://", "data:", "blob:")) or (
            origin is not None and req.url.startswith(origin)
        )
        if not ok:
            external.append(req.url)

    page.on("request", on_request)
    page.goto(url)
    wait_js(page, "!!(window.graphmemViz && window.graphmemViz.ready === true)", timeout_s)
    assert not external, f"page made external requests: {external}"
    return page, errors


# --------------------------------------------------------------------------- tests
def test_small_graph_interactions(browser: Any, tmp_path: pathlib.Path) -> None:
    graph = small_graph()
    page_path = write_html(graph, tmp_path / "graph.html")
    page, errors = open_page(browser, page_path.as_uri())
    viz = "window.graphmemViz"

    # Everything is rendered (68 nodes < overview threshold).
    assert page.evaluate(f"{viz}.mode()") == "full"
    assert page.evaluate(f"{viz}.nodeCount()") == 68
    assert page.evaluate(f"{viz}.edgeCount()") == len(graph["edges"])
    assert page.title() == "graphmem test graph"

    # Legend lists every kind and edge type.
    legend = page.inner_text("#legend")
    for word in [
        *KINDS,
        "HasTag",
        "InCluster",
        "RelatesTo",
        "Supersedes",
        "Contradicts",
        "DerivedFrom",
        "tag",
        "cluster",
    ]:
        assert word in legend

    # Search by typing.
    page.fill("#search", "zebra")
    wait_js(page, "document.getElementById('search-count').dataset.count === '9'")
    assert page.inner_text("#search-count").startswith("9 matches")
    assert page.locator("#search-results li").count() == 9
    # Tag names match too: the tag node, memories tagged or mentioning it, the cluster label.
    n_deploy = page.evaluate(f"{viz}.search('deploy')")
    expected = sum(
        1
        for n in graph["nodes"]
        if ("deploy" in n["label"])
        or (n["type"] == "memory" and ("deploy" in n["content"] or "deploy" in n["tags"]))
    )
    assert n_deploy == expected
    page.evaluate(f"{viz}.search('')")
    assert page.inner_text("#search-count") == ""

    # Details panel: content, metadata and edge list.
    assert page.evaluate(f"{viz}.select('m:004')") is True
    details = page.inner_text("#details")
    mem4 = next(n for n in graph["nodes"] if n["id"] == "m:004")
    assert mem4["content"] in details
    assert "Contradicts" in details and "RelatesTo" in details and "HasTag" in details
    assert "project" in details  # meta.scope
    edge_rows = page.locator("#details-edges li")
    n_edges_4 = sum(1 for e in graph["edges"] if "m:004" in (e["source"], e["target"]))
    assert edge_rows.count() == n_edges_4
    assert page.locator("#details-edges li[data-other='m:016']").count() == 1
    # Clicking an edge row navigates to the other end.
    page.click("#details-edges li[data-other='m:016']")
    assert page.get_attribute("#details", "data-node-id") == "m:016"

    # Real click on a rendered node.
    pos = page.evaluate(
        f"(() => {{ const n = {viz}.cy.getElementById('c:1'); const p = n.renderedPosition();"
        " const r = document.getElementById('cy').getBoundingClientRect();"
        " return [p.x + r.left, p.y + r.top]; })()"
    )
    page.mouse.click(pos[0], pos[1])
    wait_js(page, "document.getElementById('details').dataset.nodeId === 'c:1'")
    assert "cluster 1 / database" in page.inner_text("#details")

    # Recall panel lists the hits, best first, with scores.
    recall_items = page.locator("#recall-hits li")
    assert recall_items.count() == 3
    assert recall_items.nth(0).get_attribute("data-hit-id") == "m:002"
    recall_text = page.inner_text("#recall-panel")
    assert "0.910" in recall_text and "0.740" in recall_text and "0.520" in recall_text
    assert "how do we deploy?" in recall_text
    page.evaluate(f"{viz}.unselect()")
    hl = page.evaluate(
        f"[{viz}.cy.nodes('.recall-hit').length, {viz}.cy.edges('.recall-path').length]"
    )
    assert hl == [3, 3]  # m:002, m:012, m:030; edges m:002-t:deploy, t:deploy-m:012, der1

    # Kind filter reduces what is rendered; status filter too.
    before = page.evaluate(f"{viz}.nodeCount()")
    page.uncheck("#filters input[data-kind='fact']")
    after = page.evaluate(f"{viz}.nodeCount()")
    assert after == before - 10
    page.uncheck("#filters input[data-filter='status'][value='inactive']")
    assert page.evaluate(f"{viz}.nodeCount()") < after
    page.click("#filters-reset")
    assert page.evaluate(f"{viz}.nodeCount()") == 68

    # Screenshot with a selection and a search active.
    page.evaluate(f"{viz}.select('m:012')")
    page.evaluate(f"{viz}.fit()")
    shot = tmp_path / "viz.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 30_000
    if os.environ.get("GRAPHMEM_VIZ_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["GRAPHMEM_VIZ_SHOTS"], "small.png"))
    assert errors == []
    page.close()


def test_served_page_and_script_injection(browser: Any) -> None:
    graph = small_graph()
    evil = "</script><script>window.__pwned = 1</script><!-- <b>bold</b> & done"
    graph["nodes"][10]["content"] = evil
    server, url = serve(render_html(graph))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page, errors = open_page(browser, url)
        assert page.evaluate("window.__pwned === undefined")
        node_id = graph["nodes"][10]["id"]
        page.evaluate(f"window.graphmemViz.select({node_id!r})")
        assert evil in page.inner_text("#details .content")
        assert page.evaluate("window.graphmemViz.nodeCount()") == 68
        assert errors == []
        page.close()
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow  # a big store in the browser; the other browser tests stay
def test_large_graph_overview(browser: Any, tmp_path: pathlib.Path) -> None:
    graph = large_graph()
    assert len(graph["nodes"]) == 5000
    page_path = write_html(graph, tmp_path / "big.html")
    start = time.monotonic()
    page, errors = open_page(browser, page_path.as_uri(), timeout_s=30)
    load_s = time.monotonic() - start
    assert load_s < 30
    viz = "window.graphmemViz"
    assert page.evaluate(f"{viz}.mode()") == "overview"
    assert page.evaluate(f"{viz}.totalNodes()") == 5000
    shown = page.evaluate(f"{viz}.nodeCount()")
    assert 0 < shown < 200, shown
    if os.environ.get("GRAPHMEM_VIZ_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["GRAPHMEM_VIZ_SHOTS"], "big-start.png"))

    # Double-click a cluster to expand it.
    pos = page.evaluate(
        f"(() => {{ const n = {viz}.cy.getElementById('c:0'); const p = n.renderedPosition();"
        " const r = document.getElementById('cy').getBoundingClientRect();"
        " return [p.x + r.left, p.y + r.top]; })()"
    )
    page.mouse.dblclick(pos[0], pos[1])
    wait_js(page, f"{viz}.nodeCount() > {shown}")
    expanded = page.evaluate(f"{viz}.nodeCount()")
    members = sum(1 for n in graph["nodes"] if n.get("cluster") == "c:0")
    assert expanded >= shown + members
    # ...and collapse it again through the API.
    assert page.evaluate(f"{viz}.collapse('c:0')") is True
    assert page.evaluate(f"{viz}.nodeCount()") == shown

    # Search counts memories inside collapsed clusters too.
    n_tag = sum(1 for n in graph["nodes"] if n["type"] == "memory" and "tag299" in n["tags"])
    assert page.evaluate(f"{viz}.search('tag299')") == n_tag + 1
    assert "inside collapsed clusters" in page.inner_text("#search-count")
    page.evaluate(f"{viz}.search('')")

    # Selecting a hidden memory expands its cluster.
    target = next(n for n in graph["nodes"] if n.get("cluster") == "c:5")
    page.evaluate(f"{viz}.select({target['id']!r})")
    assert page.evaluate(f"{viz}.cy.getElementById({target['id']!r}).length") == 1
    if os.environ.get("GRAPHMEM_VIZ_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["GRAPHMEM_VIZ_SHOTS"], "big-overview.png"))

    # Everything at once still renders within the bound.
    start = time.monotonic()
    page.evaluate(f"{viz}.showAll()")
    assert page.evaluate(f"{viz}.nodeCount()") == 5000
    assert time.monotonic() - start < 30
    if os.environ.get("GRAPHMEM_VIZ_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["GRAPHMEM_VIZ_SHOTS"], "big-all.png"))
    assert errors == []
    page.close()


def test_demo_store_page_from_cli(browser: Any, tmp_path: pathlib.Path, model_path: str) -> None:
    """`graphmem viz --recall` on the demo store: every node drawn, hits listed, details work."""
    store = tmp_path / "demo-memory"
    with GraphMemory(store, model_path=model_path) as mem:
        run_demo(mem, Console(file=io.StringIO()))
    page_path = tmp_path / "demo.html"
    context = "who is Maria"
    result = CliRunner().invoke(
        cli,
        ["-d", str(store), "viz", "-o", str(page_path), "--recall", context, "-n", "5"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    with GraphMemory(store, model_path=model_path, read_only=True) as mem:
        graph = to_networkx(mem)
    html = page_path.read_text(encoding="utf-8")
    data = json.loads(html.split('id="graphmem-data">', 1)[1].split("</script>", 1)[0])
    hits = sorted(data["recall"]["hits"], key=lambda h: -h["score"])
    expected_hits = [h["id"] for h in hits]
    assert "m:demo-auth-owner" in expected_hits
    assert any("t:auth" in h["path"] for h in hits)  # one hit was reached through a tag

    page, errors = open_page(browser, page_path.as_uri())
    viz = "window.graphmemViz"
    assert page.evaluate(f"{viz}.mode()") == "full"
    assert page.evaluate(f"{viz}.nodeCount()") == graph.number_of_nodes()
    assert page.evaluate(f"{viz}.edgeCount()") == graph.number_of_edges()

    # The recall panel lists the hits, best first, with the context.
    recall_text = page.inner_text("#recall-panel")
    assert context in recall_text
    listed = page.locator("#recall-hits li")
    assert listed.count() == len(expected_hits) >= 2
    assert listed.nth(0).get_attribute("data-hit-id") == expected_hits[0]
    assert page.evaluate(f"{viz}.cy.nodes('.recall-hit').length") == len(expected_hits)
    assert page.evaluate(f"{viz}.cy.edges('.recall-path').length") >= 2  # through the auth tag

    # Search by typing: the memory about Maria and her tag.
    page.fill("#search", "maria")
    wait_js(page, "document.getElementById('search-count').dataset.count === '2'")
    results = page.inner_text("#search-results")
    assert "Maria owns the Auth service" in results and "#maria" in results

    # A real click on a rendered memory opens its details (the search zoomed in: zoom out).
    page.fill("#search", "")
    wait_js(page, "document.getElementById('search-count').textContent === ''")
    page.evaluate(f"{viz}.fit()")
    pos = page.evaluate(
        f"(() => {{ const n = {viz}.cy.getElementById('m:demo-deploy'); const p = n.renderedPosition();"
        " const r = document.getElementById('cy').getBoundingClientRect();"
        " return [p.x + r.left, p.y + r.top]; })()"
    )
    page.mouse.click(pos[0], pos[1])
    wait_js(page, "document.getElementById('details').dataset.nodeId === 'm:demo-deploy'")
    details = page.inner_text("#details")
    assert graph.nodes["m:demo-deploy"]["content"] in details
    assert "procedure" in details and "HasTag" in details
    n_edges = sum(1 for e in graph.edges("m:demo-deploy")) + graph.in_degree("m:demo-deploy")
    assert page.locator("#details-edges li").count() == n_edges

    shot = tmp_path / "demo.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 30_000
    if os.environ.get("GRAPHMEM_VIZ_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["GRAPHMEM_VIZ_SHOTS"], "demo.png"))
    assert errors == []
    page.close()


# --------------------------------------------------------------------------- store overview
def _node_at(page: Page, node_id: str) -> tuple[float, float]:
    """Where a rendered node's centre is on the page, once the view stopped moving."""
    wait_js(page, "!window.graphmemViz.cy.animated()")
    x, y = page.evaluate(
        f"(() => {{ const n = window.graphmemViz.cy.getElementById({node_id!r});"
        " const p = n.renderedPosition(); const r = document.getElementById('cy').getBoundingClientRect();"
        " return [p.x + r.left, p.y + r.top]; })()"
    )
    return x, y


def _click_node(page: Page, node_id: str) -> None:
    """A real mouse click at a rendered node's centre."""
    page.mouse.click(*_node_at(page, node_id))


def _drawn_memories(page: Page) -> set[str]:
    return set(page.evaluate("window.graphmemViz.cy.nodes('.memory').map(n => n.id())"))


@pytest.fixture(scope="module")
def topic_store(tmp_path_factory: pytest.TempPathFactory, model_path: str) -> dict[str, Any]:
    """The store of tests/vizstore.py (36 memories, clustered, two forgotten), closed."""
    from vizstore import build

    path = tmp_path_factory.mktemp("viz-overview") / "memory"
    with GraphMemory(path, model_path=model_path) as mem:
        made = build(mem)
        made["members"] = {
            c.id: [m["id"] for m in db_rows(mem,
                "MATCH (m:Memory)-[:InCluster]->(c:Cluster {id: $c}) RETURN m.id AS id", {"c": c.id})]
            for c in mem.clusters()
        }  # fmt: skip
        made["billing"] = [m.id for m in mem.memories(tag="billing", limit=None)]
    made["path"] = path
    return made


def test_store_overview_opens_a_cluster_on_click(
    browser: Any, tmp_path: pathlib.Path, topic_store: dict[str, Any]
) -> None:
    """Above --overview-above nodes the page opens as the overview; a click opens a cluster;
    counts leave inactive memories out even when they are on the page (--all)."""
    page_path = tmp_path / "overview.html"
    result = CliRunner().invoke(
        cli,
        ["-d", str(topic_store["path"]), "viz", "-o", str(page_path), "--all",
         "--overview-above", "20"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page, errors = open_page(browser, page_path.as_uri())
    viz = "window.graphmemViz"
    assert page.evaluate(f"{viz}.mode()") == "overview"
    assert _drawn_memories(page) == set()  # tiles and tags only
    assert page.evaluate(f"{viz}.drawnAt") > 0
    # The billing tag: ten active memories, two forgotten ones counted apart.
    billing = page.evaluate(f"{viz}.counts('t:billing')")
    assert billing == {"active": len(topic_store["billing"]), "inactive": 2,
                       "loaded": len(topic_store["billing"]) + 2}  # fmt: skip
    label = page.evaluate(f"{viz}.cy.getElementById('t:billing').data('label')")
    assert label == f"#billing \u00b7 {len(topic_store['billing'])}"

    # A cluster holding a forgotten memory: its tile counts the active members only.
    forgotten = set(topic_store["forgotten"])
    cluster, members = next(
        (c, ms) for c, ms in topic_store["members"].items() if forgotten & set(ms)
    )
    active = [m for m in members if m not in forgotten]
    tile = page.evaluate(f"{viz}.cy.getElementById('c:{cluster}').data('label')")
    assert tile.endswith(f"{len(active)} memor{'y' if len(active) == 1 else 'ies'} (+1 inactive)")
    _click_node(page, f"c:{cluster}")
    wait_js(page, f"{viz}.cy.nodes('.memory').length > 0")
    assert _drawn_memories(page) == {"m:" + m for m in members}
    assert page.get_attribute("#details", "data-node-id") == f"c:{cluster}"
    assert page.get_attribute("#details-count", "data-active") == str(len(active))
    assert page.get_attribute("#details-count", "data-inactive") == "1"

    # Labels are cut on the canvas; hovering a member shows its whole text.
    member = next(m for m in active)
    page.mouse.move(*_node_at(page, f"m:{member}"))
    wait_js(page, "!document.getElementById('tip').hidden")
    assert page.get_attribute("#tip", "data-node-id") == f"m:{member}"
    assert "(note " in page.inner_text("#tip")

    # The details button closes it again.
    page.click("#btn-toggle-cluster")
    assert _drawn_memories(page) == set()
    assert errors == []
    page.close()


def test_served_overview_loads_members_on_demand(
    browser: Any, topic_store: dict[str, Any], model_path: str
) -> None:
    """Above --embed-max memories a served page holds no member; a click on a tag fetches its
    members from the server (the store's owner) and draws them."""
    from graphmem.cli.graph import _VizPages

    filters = {"include_inactive": False, "kinds": None, "tags": None, "around": None,
               "depth": 1, "embeddings": False}  # fmt: skip
    pages = _VizPages(filters, None, 10, "served", 300, 10)
    with GraphMemory(topic_store["path"], model_path=model_path, read_only=True) as mem:
        server, url = serve(
            lambda: pages.page(mem, served=True)[0], background=True,
            members=lambda group, offset: pages.members(mem, group, offset),
        )  # fmt: skip
        try:
            page, errors = open_page(browser, url)
            viz = "window.graphmemViz"
            assert page.evaluate(f"{viz}.lazy") is True
            assert page.evaluate(f"{viz}.mode()") == "overview"
            assert _drawn_memories(page) == set()
            n_billing = len(topic_store["billing"])
            assert page.evaluate(f"{viz}.counts('t:billing')") == {
                "active": n_billing, "inactive": 0, "loaded": 0}  # fmt: skip

            _click_node(page, "t:billing")
            wait_js(page, f"{viz}.cy.nodes('.memory').length > 0 && {viz}.pending() === 0")
            assert _drawn_memories(page) == {"m:" + m for m in topic_store["billing"]}
            assert page.evaluate(f"{viz}.counts('t:billing')")["loaded"] == n_billing
            assert page.get_attribute("#details-loaded", "data-loaded") == str(n_billing)
            # A loaded member's details come from the store.
            first = topic_store["billing"][0]
            assert page.evaluate(f"{viz}.select('m:{first}')") is True
            assert "billing" in page.inner_text("#details .content").lower()
            assert errors == []
            page.close()
        finally:
            server.shutdown()
            server.server_close()


def test_overview_names_tags_in_words_and_recall_opens_the_clusters_of_its_hits(
    browser: Any, tmp_path: pathlib.Path, topic_store: dict[str, Any]
) -> None:
    """Issue 22: the overview's tag names are whole and readable at the zoom that fits the
    page (they were cut to 2-3 letters); a recall opens the clusters holding its hits and
    writes each hit's rank and text next to it, readable (they were unlabelled dots)."""
    page_path = tmp_path / "recall.html"
    context = "How many approvals does a production deploy need?"
    result = CliRunner().invoke(
        cli,
        ["-d", str(topic_store["path"]), "viz", "-o", str(page_path), "--overview-above", "20",
         "--recall", context, "-n", "3"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page, errors = open_page(browser, page_path.as_uri())
    viz = "window.graphmemViz"
    assert page.evaluate(f"{viz}.mode()") == "overview"
    # The view the page opens with: tags listed with names that fit their room and read at
    # 9px or more on screen.
    page.evaluate(f"{viz}.fit()")
    wait_js(page, f"{viz}.cy.nodes('.tag.ov').length > 0")
    page.wait_for_timeout(400)  # fonts follow the zoom after a 150 ms pause (viewport event)
    tags = page.evaluate(
        f"{viz}.cy.nodes('.tag.ov').map(n => [n.data('label'), n.data('font'), n.data('tmw'),"
        f" {viz}.cy.zoom()])"
    )
    assert tags and any(label.startswith("#deploy \u00b7 ") for label, *_ in tags)
    for label, font, room, zoom in tags:
        assert "\u2026" not in label, label
        assert 0.6 * font * len(label) <= room, (label, font, room)  # drawn whole
        assert font * zoom >= 9, (label, font, zoom)  # readable on screen

    # Recall: the clusters of the hits are open, each hit drawn and labelled with its rank.
    page.reload()
    wait_js(page, f"!!({viz} && {viz}.ready)")
    page.wait_for_timeout(400)
    hits = page.evaluate(
        "Array.from(document.querySelectorAll('#recall-hits li')).map(li => li.dataset.hitId)"
    )
    assert len(hits) == 3
    zoom = page.evaluate(f"{viz}.cy.zoom()")
    labelled = 0
    for rank, hit in enumerate(hits, 1):
        node = f"{viz}.cy.getElementById({hit!r})"
        assert page.evaluate(f"{node}.nonempty() && {node}.hasClass('recall-hit')"), hit
        cluster = page.evaluate(
            f"{viz}.cy.nodes('.cluster').filter(c => c.hasClass('expanded')).map(c => c.id())"
        )
        assert cluster, "no cluster was opened for the recall"
        text = page.evaluate(f"{node}.data('hitlabel')")
        if text:  # a label covering a better hit's is left out (that one says "+1")
            labelled += 1
            assert text.startswith(f"{rank}. "), text
            assert page.evaluate(f"{node}.data('hitfont')") * zoom >= 11
    assert labelled >= 1
    assert page.evaluate(f"{viz}.cy.getElementById({hits[0]!r}).data('hitlabel')")
    assert errors == []
    page.close()

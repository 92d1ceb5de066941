"""What ``graphmem viz`` costs as the store grows: page generation, page size, first paint.

For each store given (built by bench/scale.py, e.g. ``--keep /tmp/viz-100k``):

- gen: building the page ``graphmem viz -o`` writes (after the store is open), and its size.
  Above ``--embed-max`` memories (2000) it is the overview: clusters and tags with counts and a
  bounded sample of members; ``served`` is the page ``viz --serve`` sends (no sample).
- paint: headless Chromium (Playwright) opens the page; first paint is the page's own
  ``drawnAt`` (ms from navigation start to the first frame with the graph drawn: parsing the
  data, layout, drawing). Median of ``--loads`` loads after one warm-up.
- open a cluster: in the served page, the biggest cluster is opened; the time until its
  members (fetched from the server) are drawn, and the server's time for that request.
- ``--full``: also the page holding every memory (the only page before the overview existed)
  for stores up to that size, for comparison.

    python bench/viz.py /tmp/viz-100k/s1000 /tmp/viz-100k/s10000 /tmp/viz-100k/s100000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tables import markdown  # noqa: E402

from graphmem import GraphMemory  # noqa: E402
from graphmem.cli.graph import _VizPages  # noqa: E402
from graphmem.export.viz import serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FILTERS = {"include_inactive": False, "kinds": None, "tags": None, "around": None, "depth": 1,
           "embeddings": False}  # fmt: skip


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _wait(page: Any, expression: str, timeout_s: float = 300.0) -> None:
    # The page's CSP forbids eval, so no page.wait_for_function: poll with evaluate.
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        time.sleep(0.02)


def first_paint(browser: Any, url: str, loads: int) -> float:
    """Median ms from navigation start to the page's first frame with the graph drawn."""
    times = []
    for i in range(loads + 1):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url, timeout=600_000)
        _wait(page, "!!(window.graphmemViz && window.graphmemViz.ready)")
        if i:  # the first load warms the browser's caches
            times.append(page.evaluate("window.graphmemViz.drawnAt"))
        page.close()
    return statistics.median(times)


def open_cluster(browser: Any, url: str) -> dict[str, Any]:
    """Open the biggest cluster of a served page: ms until its fetched members are drawn."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(url, timeout=600_000)
    _wait(page, "!!(window.graphmemViz && window.graphmemViz.ready)")
    viz = "window.graphmemViz"
    biggest = page.evaluate(
        f"{viz}.cy.nodes('.cluster').map(n => [n.id(), {viz}.counts(n.id()).active])"
        ".sort((a, b) => b[1] - a[1])[0]"
    )
    start = time.perf_counter()
    page.evaluate(f"{viz}.expand({biggest[0]!r})")
    _wait(page, f"{viz}.pending() === 0 && {viz}.cy.nodes('.memory').length > 0")
    drawn = page.evaluate(f"{viz}.cy.nodes('.memory').length")
    out = {"cluster_members": biggest[1], "members_drawn": drawn,
           "open_cluster_ms": round(1000 * (time.perf_counter() - start))}  # fmt: skip
    page.close()
    return out


def measure_store(path: Path, *, loads: int = 3, full: int = 0, browser: Any = None) -> dict:
    """The viz figures for one store (see the module docstring)."""
    row: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        mem, open_s = _timed(lambda: GraphMemory(path, read_only=True))
        with mem:
            stats = mem.stats()
            row.update(memories=stats.memories, active=stats.active, clusters=stats.clusters)
            row["open_s"] = round(open_s, 2)
            pages = _VizPages(FILTERS, None, 10, "bench", 300, 2000)
            (html, summary), gen_s = _timed(lambda: pages.page(mem, served=False))
            row.update(
                page_s=round(gen_s, 2), page_kb=round(len(html.encode()) / 1024), page=summary
            )
            static = Path(tmp) / "page.html"
            static.write_text(html, encoding="utf-8")
            (served_html, _), served_s = _timed(lambda: pages.page(mem, served=True))
            row.update(served_page_s=round(served_s, 2),
                       served_page_kb=round(len(served_html.encode()) / 1024))  # fmt: skip
            if full and row["memories"] and row["memories"] <= full:
                whole = _VizPages(FILTERS, None, 10, "bench", 300, 10**9)
                (whole_html, _), whole_s = _timed(lambda: whole.page(mem, served=False))
                row.update(full_page_s=round(whole_s, 2),
                           full_page_kb=round(len(whole_html.encode()) / 1024))  # fmt: skip
                (Path(tmp) / "full.html").write_text(whole_html, encoding="utf-8")
            if browser is None:
                return row
            row["paint_ms"] = round(first_paint(browser, static.as_uri(), loads))
            if "full_page_s" in row:
                row["full_paint_ms"] = round(
                    first_paint(browser, (Path(tmp) / "full.html").as_uri(), loads)
                )
            server, url = serve(
                lambda: pages.page(mem, served=True)[0], background=True,
                members=lambda group, offset: pages.members(mem, group, offset),
            )  # fmt: skip
            try:
                row["served_paint_ms"] = round(first_paint(browser, url, loads))
                if summary.startswith("overview"):
                    row.update(open_cluster(browser, url))
            finally:
                server.shutdown()
                server.server_close()
    return row


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True,
        args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )  # fmt: skip


COLUMNS = (
    ("memories", "memories"), ("page_s", "page s"), ("page_kb", "page kB"),
    ("paint_ms", "first paint ms"), ("served_page_s", "served page s"),
    ("served_page_kb", "served kB"), ("served_paint_ms", "served paint ms"),
    ("open_cluster_ms", "open cluster ms"), ("cluster_members", "its members"),
    ("full_page_s", "whole page s"), ("full_page_kb", "whole kB"), ("full_paint_ms", "whole paint ms"),
)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--loads", type=int, default=3, help="page loads per figure (median)")
    parser.add_argument("--full", type=int, default=10_000,
                        help="also the whole page for stores up to this many memories")  # fmt: skip
    parser.add_argument("--json", dest="json_path", help="also write the rows here")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            for store in args.stores:
                rows.append(measure_store(store, loads=args.loads, full=args.full, browser=browser))
                print(json.dumps(rows[-1]), flush=True)
        finally:
            browser.close()
    print()
    print(markdown(rows, COLUMNS))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"rows": rows}, indent=2))


if __name__ == "__main__":
    main()

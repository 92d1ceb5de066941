"""Fast (no browser) tests for graphmem.export.viz: self-contained output, safe embedding, serving."""

from __future__ import annotations

import http.client
import json
import math
import pathlib
import re
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from graphmem.export.viz import asset_dir, render_html, serve, write_html

# What is tested is the page data and the viz command, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


EVIL = "</script><script>alert('x')</script><!-- </SCRIPT > & <b>"


def tiny_graph(content: str = "JWT tokens expire after 15 minutes") -> dict[str, Any]:
    return {
        "title": "graphmem",
        "nodes": [
            {
                "id": "m:1",
                "type": "memory",
                "label": content[:60],
                "kind": "fact",
                "active": True,
                "content": content,
                "tags": ["api"],
                "cluster": "c:1",
                "meta": {"scope": "project", "confidence": 0.9},
            },
            {
                "id": "m:2",
                "type": "memory",
                "label": "old",
                "kind": "correction",
                "active": False,
                "content": "old fact",
                "tags": [],
                "cluster": None,
                "meta": {"superseded_by": "m:1"},
            },
            {"id": "t:api", "type": "tag", "label": "api", "kind": "topic", "count": 1},
            {"id": "c:1", "type": "cluster", "label": "auth / jwt", "size": 1},
        ],
        "edges": [
            {"id": "e1", "source": "m:1", "target": "t:api", "type": "HasTag", "weight": 1.0},
            {"id": "e2", "source": "m:1", "target": "c:1", "type": "InCluster", "weight": 1.0},
            {"id": "e3", "source": "m:1", "target": "m:2", "type": "Supersedes", "weight": 1.0},
        ],
        "recall": {"context": "ctx", "hits": [{"id": "m:1", "score": 0.7, "path": ["m:1"]}]},
    }


def embedded_json(page: str) -> Any:
    m = re.search(
        r'<script type="application/json" id="graphmem-data">(.*?)</script>', page, re.DOTALL
    )
    assert m, "data block not found"
    return json.loads(m.group(1))


def test_asset_dir_has_everything() -> None:
    base = asset_dir()
    for name in (
        "template.html",
        "app.js",
        "style.css",
        "vendor/cytoscape.min.js",
        "vendor/LICENSE",
        "vendor/README.md",
    ):
        assert (base / name).is_file(), name


def test_render_is_self_contained() -> None:
    page = render_html(tiny_graph())
    assert page.startswith("<!DOCTYPE html>")
    lowered = page.lower()
    for bad in ('src="http', "src='http", 'href="http', "href='http", "@import", "<link "):
        assert bad not in lowered, bad
    assert "<script src" not in lowered
    # The vendored library, the app and the data are inline.
    vendor = (asset_dir() / "vendor/cytoscape.min.js").read_text(encoding="utf-8")
    assert vendor.strip()[-200:] in page
    assert "window.graphmemViz" in page
    assert "JWT tokens expire after 15 minutes" in page
    # No placeholder left behind; a CSP forbids network access.
    assert "@@" not in page.replace(vendor, "")
    assert "connect-src 'none'" in page
    data = embedded_json(page)
    assert [n["id"] for n in data["nodes"]] == ["m:1", "m:2", "t:api", "c:1"]
    assert data["recall"]["hits"][0]["score"] == 0.7
    for element_id in ("search", "search-count", "details", "legend", "filters", "recall-panel"):
        assert f'id="{element_id}"' in page


def test_script_close_in_content_is_escaped() -> None:
    graph = tiny_graph(EVIL)
    graph["title"] = "<title>&"
    page = render_html(graph)
    # Exactly the three script elements of the template (data, vendor, app) are closed.
    assert len(re.findall(r"</script", page, re.IGNORECASE)) == 3
    assert "<script>alert" not in page
    assert "<!-- </SCRIPT" not in page
    # ...and the data round-trips to the original strings.
    data = embedded_json(page)
    assert data["nodes"][0]["content"] == EVIL
    assert data["title"] == "<title>&"
    assert "<title>&lt;title&gt;&amp;</title>" in page


def test_title_override_and_odd_values() -> None:
    graph = tiny_graph()
    graph["nodes"][0]["meta"]["weird"] = {1: math.nan, "inf": math.inf, "s": {1, 2}}
    page = render_html(graph, title="My memories")
    assert "<title>My memories</title>" in page
    data = embedded_json(page)  # still strict JSON (no NaN/Infinity)
    assert data["title"] == "My memories"
    assert data["nodes"][0]["meta"]["weird"]["1"] is None
    assert "\u2028" not in page
    assert graph["title"] == "graphmem"  # input not mutated


def test_render_rejects_bad_input() -> None:
    with pytest.raises(TypeError):
        render_html([])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        render_html({"nodes": "nope"})
    page = render_html({"nodes": []})
    assert embedded_json(page) == {"nodes": [], "edges": [], "title": "graphmem", "recall": None}


def test_write_html(tmp_path: pathlib.Path) -> None:
    out = write_html(tiny_graph(), tmp_path / "sub" / "g.html", title="t")
    assert out == tmp_path / "sub" / "g.html"
    text = out.read_text(encoding="utf-8")
    assert "<title>t</title>" in text and len(text) > 400_000


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::", "10.0.0.1", ""])
def test_serve_refuses_non_loopback(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        serve("<p>x</p>", host=host)


def _split(url: str) -> tuple[str, str]:
    """The served URL's base (``http://host:port/``) and its secret."""
    base, _, secret = url.partition("?token=")
    assert secret, url
    return base, secret


def _get(url: str, secret: str) -> Any:
    """``urlopen`` with the secret as a bearer token."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {secret}"})
    return urllib.request.urlopen(request, timeout=10)


def test_serve_on_loopback() -> None:
    page = render_html(tiny_graph())
    server, url = serve(page)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{40,}", url), url
    base, secret = _split(url)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"].startswith("text/html")
            body = resp.read().decode("utf-8")
        assert body == page
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(base + "other", secret)
        assert err.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
    thread.join(timeout=5)


def test_serve_background_localhost() -> None:
    server, url = serve("<p>hello</p>", host="localhost", background=True)
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.read() == b"<p>hello</p>"
    finally:
        server.shutdown()
        server.server_close()


def _status(
    port: int, host_header: str | None, method: str = "GET", secret: str | None = None
) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, "/", skip_host=True)
        if host_header is not None:
            conn.putheader("Host", host_header)
        if secret is not None:
            conn.putheader("Authorization", f"Bearer {secret}")
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def test_serve_refuses_foreign_host_headers() -> None:
    # DNS rebinding: a hostile page re-points its own name at 127.0.0.1, so the browser sends
    # "Host: evil.example:<port>". Only loopback names with the served port are answered.
    server, url = serve("<p>private graph</p>", background=True)
    port = server.server_address[1]
    secret = _split(url)[1]
    try:
        for good in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"LOCALHOST:{port}",
            f"[::1]:{port}",
        ):
            assert _status(port, good, secret=secret) == 200, good
        assert _status(port, f"localhost:{port}", "HEAD", secret=secret) == 200
        for bad in (
            f"evil.example:{port}",
            "evil.example",
            f"127.0.0.1:{port + 1}",
            "127.0.0.1",
            f"localhost.evil.example:{port}",
            f"127.0.0.1.nip.io:{port}",
            "",
            None,
        ):
            assert _status(port, bad, secret=secret) == 403, bad
        assert _status(port, "evil.example", "HEAD", secret=secret) == 403
    finally:
        server.shutdown()
        server.server_close()


def test_tag_counts_on_the_page_leave_out_inactive_memories(mem) -> None:  # type: ignore[no-untyped-def]
    kept = mem.remember("The ledger service is written in Rust", tags=["ledger"]).id
    gone = mem.remember("The ledger service used to be written in Java", tags=["ledger"]).id
    mem.forget(gone)
    from graphmem.export.graph import graph_for_viz

    page = graph_for_viz(mem.to_networkx())
    assert next(n for n in page["nodes"] if n["id"] == "t:ledger")["count"] == 1
    everything = graph_for_viz(mem.to_networkx(include_inactive=True))
    assert next(n for n in everything["nodes"] if n["id"] == "t:ledger")["count"] == 2
    assert kept != gone


# ------------------------------------------------------------------ big stores: the overview


@pytest.fixture
def topics(mem):  # type: ignore[no-untyped-def]
    from vizstore import build

    return build(mem)


def test_overview_counts_leave_out_inactive_memories(mem, topics) -> None:  # type: ignore[no-untyped-def]
    from graphmem import ValidationError
    from graphmem.export import vizdata

    def carrying(tag: str, inactive: bool = False) -> int:
        return len(mem.memories(tag=tag, include_inactive=inactive, limit=None))

    page = vizdata.overview(mem, sample=0)
    by_id = {n["id"]: n for n in page["nodes"]}
    # Two billing memories were forgotten: the tag counts the active ones, none inactive.
    assert (by_id["t:billing"]["count"], by_id["t:billing"]["inactive"]) == (carrying("billing"), 0)
    assert carrying("billing", inactive=True) - carrying("billing") == 2
    assert (by_id["t:deploy"]["count"], by_id["t:team"]["count"]) == (
        carrying("deploy"), carrying("team"))  # fmt: skip
    clusters = [n for n in page["nodes"] if n["type"] == "cluster"]
    unclustered = page["groups"][vizdata.NO_CLUSTER]
    assert sum(c["count"] for c in clusters) + unclustered["count"] == 34
    assert page["totals"]["memories"] == page["totals"]["active"] == 34
    assert page["totals"]["clusters"] == len(clusters) == len(mem.clusters())
    assert not any(n["type"] == "memory" for n in page["nodes"])  # no sample asked for
    # With inactive memories shown they are counted apart, never in `count`.
    everything = vizdata.overview(mem, sample=0, include_inactive=True)
    billing = next(n for n in everything["nodes"] if n["id"] == "t:billing")
    assert (billing["count"], billing["inactive"]) == (carrying("billing"), 2)
    inactive = sum(n["inactive"] for n in everything["nodes"] if n["type"] == "cluster")
    assert inactive + everything["groups"][vizdata.NO_CLUSTER]["inactive"] == 2
    # The page's filters (-t, -k) apply to the counts.
    assert vizdata.count(mem, tags=["Billing"]) == carrying("billing")
    deploy_only = vizdata.overview(mem, sample=0, tags=["deploy"])
    assert deploy_only["totals"]["memories"] == carrying("deploy")
    with pytest.raises(ValidationError):
        vizdata.count(mem, kinds=["gossip"])
    # Group edges count the member links they stand for.
    tag_edges = [e for e in page["edges"] if e["target"] == "t:deploy"]
    assert sum(e["count"] for e in tag_edges) == carrying("deploy")
    assert all(e["group"] for e in tag_edges)


def test_overview_sample_is_bounded(mem, topics) -> None:  # type: ignore[no-untyped-def]
    from graphmem.export import vizdata

    page = vizdata.overview(mem, sample=8, hit_ids=["m:" + topics["ids"]["deploy"][5]])
    held = [n for n in page["nodes"] if n["type"] == "memory"]
    assert 0 < len(held) <= 9
    assert "m:" + topics["ids"]["deploy"][5] in {n["id"] for n in held}  # a recall hit is held
    assert not {n["id"] for n in held} & {"m:" + i for i in topics["forgotten"]}
    for n in held:
        assert n["active"] is True and len(n["content"]) <= vizdata.CONTENT_CHARS


def test_members_pages_through_a_group(mem, topics) -> None:  # type: ignore[no-untyped-def]
    from graphmem import NotFoundError, ValidationError
    from graphmem.export import vizdata

    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = vizdata.members(mem, "t:team", offset=offset, limit=4)
        assert page["group"] == "t:team" and len(page["nodes"]) <= 4
        seen += [n["id"] for n in page["nodes"]]
        offset = page["next"]
    # Every active member once, in three pages; the forgotten one is left out.
    active_team = {"m:" + m.id for m in mem.memories(tag="team", limit=None)}
    assert set(seen) == active_team
    assert len(seen) == len(set(seen)) == len(active_team) == 11
    first = vizdata.members(mem, "t:billing", limit=50)
    assert {e["type"] for e in first["edges"]} >= {"InCluster"}
    assert all(e["source"].startswith("m:") for e in first["edges"])
    with pytest.raises(NotFoundError):
        vizdata.members(mem, "t:no-such-tag")
    with pytest.raises(NotFoundError):
        vizdata.members(mem, "c:no-such-cluster")
    for bad in ("x:1", "c:", ""):
        with pytest.raises(ValidationError):
            vizdata.members(mem, bad)
    with pytest.raises(ValidationError):
        vizdata.members(mem, "t:team", limit=0)
    with pytest.raises(ValidationError, match="first 10000 members"):
        vizdata.members(mem, "t:team", offset=vizdata.MAX_PAGED - 10, limit=20)


@pytest.mark.embedder("real")  # the CLI opens the store with the real model
def test_cli_page_above_embed_max_holds_the_overview(mem, topics, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from graphmem.cli.app import cli

    store = mem.path
    mem.close()
    out = tmp_path / "big.html"
    result = CliRunner().invoke(
        cli, ["-d", str(store), "viz", "-o", str(out), "--embed-max", "6"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "overview of 34 memories" in result.output
    page = out.read_text(encoding="utf-8")
    data = embedded_json(page)
    assert data["options"] == {"overview_threshold": 300, "fetch": False}
    assert len([n for n in data["nodes"] if n["type"] == "memory"]) <= 6
    assert "connect-src 'none'" in page  # a file never fetches
    # Under the limit the page holds every memory, as before.
    whole = tmp_path / "whole.html"
    result = CliRunner().invoke(
        cli, ["-d", str(store), "viz", "-o", str(whole), "--overview-above", "20"]
    )
    assert result.exit_code == 0, result.output
    data = embedded_json(whole.read_text(encoding="utf-8"))
    assert "groups" not in data and data["options"]["overview_threshold"] == 20
    assert len([n for n in data["nodes"] if n["type"] == "memory"]) == 34


def test_serve_answers_members_requests() -> None:
    def members(group: str, offset: int) -> dict[str, Any]:
        if group == "t:gone":
            raise LookupError("no tag 'gone'")
        if group == "bad":
            raise ValueError("unknown group 'bad'")
        return {"group": group, "offset": offset, "nodes": [], "edges": [], "next": None}

    server, url = serve("<p>x</p>", background=True, members=members)
    base, secret = _split(url)
    try:
        with _get(base + "members?group=t%3Aapi&offset=3", secret) as resp:
            assert resp.headers["Content-Type"].startswith("application/json")
            assert json.loads(resp.read())["offset"] == 3
        for query, code in (("group=t%3Agone&offset=0", 404), ("group=bad&offset=0", 400),
                            ("offset=0", 400), ("group=t%3Aapi&offset=-1", 400)):  # fmt: skip
            with pytest.raises(urllib.error.HTTPError) as err:
                _get(base + "members?" + query, secret)
            assert err.value.code == code, query
            assert "error" in json.loads(err.value.read())
    finally:
        server.shutdown()
        server.server_close()
    # Without a members function the route does not exist.
    server, url = serve("<p>x</p>", background=True)
    base, secret = _split(url)
    try:
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(base + "members?group=t%3Aapi&offset=0", secret)
        assert err.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_overview_page_holds_the_recall_hits(mem, topics) -> None:  # type: ignore[no-untyped-def]
    from graphmem.cli.graph import _VizPages

    filters = {"include_inactive": False, "kinds": None, "tags": None, "around": None,
               "depth": 1, "embeddings": False}  # fmt: skip
    pages = _VizPages(filters, "who approves billing refunds?", 5, "t", 300, 6)
    html, summary = pages.page(mem, served=True)
    assert summary.startswith("overview of 34 memories")
    data = embedded_json(html)
    held = {n["id"] for n in data["nodes"] if n["type"] == "memory"}
    hits = [h["id"] for h in data["recall"]["hits"]]
    # A served page holds no sample, only the hits; it may fetch the rest from its server.
    assert hits and held == set(hits)
    assert data["options"]["fetch"] is True and "connect-src 'self'" in html


# ---------------------------------------------------------------------------- credential


def _request(
    port: int, path: str = "/", headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.fixture
def private_page():  # type: ignore[no-untyped-def]
    """A served page holding a memory's text, with members, and the store token "s3cret…"."""
    content = "Maria rotates the billing keys every Tuesday"

    def members(group: str, offset: int) -> dict[str, Any]:
        return {"group": group, "offset": offset, "nodes": [{"content": content}], "next": None}

    server, url = serve(
        render_html(tiny_graph(content)), background=True, members=members,
        token="s3cret-store-token-0123456789abcdef",
    )  # fmt: skip
    try:
        yield server.server_address[1], _split(url)[1], content
    finally:
        server.shutdown()
        server.server_close()


def test_served_page_is_401_without_its_secret(private_page) -> None:  # type: ignore[no-untyped-def]
    port, secret, content = private_page
    for path, method, headers in (
        ("/", "GET", {}),
        ("/", "HEAD", {}),
        ("/index.html", "GET", {}),
        ("/members?group=t%3Aapi&offset=0", "GET", {}),
        ("/elsewhere", "GET", {}),
        ("/?token=", "GET", {}),
        ("/?token=" + secret[:-1], "GET", {}),
        ("/", "GET", {"Authorization": "Bearer " + secret + "x"}),
        ("/", "GET", {"Authorization": "Basic " + secret}),
        ("/", "GET", {"Cookie": f"graphmem_viz_{port}={secret}"}),  # the URL's secret is no cookie
        ("/", "GET", {"Cookie": "garbage; =;;"}),
    ):
        status, head, body = _request(port, path, headers, method)
        assert status == 401, (path, headers)
        assert content.encode() not in body and b"Maria" not in body
        assert "set-cookie" not in head
        assert head["www-authenticate"].startswith("Bearer")


def test_served_page_opens_with_its_url_then_a_cookie(private_page) -> None:  # type: ignore[no-untyped-def]
    port, secret, content = private_page
    status, head, body = _request(port, "/?token=" + secret)
    assert status == 200 and content.encode() in body
    cookie = head["set-cookie"]
    name, _, rest = cookie.partition("=")
    assert name == f"graphmem_viz_{port}"
    attributes = {a.strip().lower() for a in rest.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    value = rest.split(";")[0]
    assert value != secret  # the cookie is a session of its own, not the URL's secret
    # The browser's later requests carry only the cookie: the page and its members open.
    status, _, body = _request(port, "/", {"Cookie": f"{name}={value}"})
    assert status == 200 and content.encode() in body
    status, _, body = _request(
        port, "/members?group=t%3Aapi&offset=0", {"Cookie": f"{name}={value}"}
    )
    assert status == 200 and json.loads(body)["nodes"][0]["content"] == content
    # The store's token opens it too (as serve's TCP clients send it).
    status, head, body = _request(
        port, "/", {"Authorization": "Bearer s3cret-store-token-0123456789abcdef"}
    )
    assert status == 200 and content.encode() in body and "set-cookie" not in head


def test_each_served_page_has_its_own_secret() -> None:
    first, url1 = serve("<p>one</p>", background=True)
    second, url2 = serve("<p>two</p>", background=True)
    try:
        assert _split(url1)[1] != _split(url2)[1]
        status, _, _ = _request(second.server_address[1], "/?token=" + _split(url1)[1])
        assert status == 401
    finally:
        for server in (first, second):
            server.shutdown()
            server.server_close()


def test_write_html_is_private_under_a_permissive_umask(tmp_path: pathlib.Path) -> None:
    import os
    import stat

    old = os.umask(0o022)
    try:
        out = write_html(tiny_graph(), tmp_path / "new" / "deeper" / "g.html")
        shared = write_html(tiny_graph(), tmp_path / "shared.html", mode=0o644)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new" / "deeper").stat().st_mode) == 0o700
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644  # asked for
    assert [p.name for p in (tmp_path / "new" / "deeper").iterdir()] == ["g.html"]  # no temp left


def test_cluster_labels_are_words_not_stems() -> None:
    """Issue 22: a label made from the members' words shows them as written ("morning",
    "decided"), not as the stems recall indexes ("morn", "decid")."""
    from graphmem.owner.clusters import make_label

    texts = [
        "We decided to deploy in the morning",
        "Decided: morning standups",
        "the morning deploy was decided",
        "Deploying every morning",
    ]
    label = make_label([[] for _ in texts], texts, {})
    assert set(label.split(" / ")) == {"morning", "decided", "deploy"}, label
    # Tags typical of the members still come first.
    assert make_label([["ops"], ["ops"], [], []], texts, {"ops": 2}).startswith("ops / ")

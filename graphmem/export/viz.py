"""Self-contained interactive HTML visualisation of a graphmem graph export.

The page is a single HTML file: the vendored Cytoscape.js build, the viewer's JavaScript and CSS
and the graph data are all inlined, and a Content-Security-Policy forbids any network access, so
the file can be opened straight from disk or served from memory with :func:`serve`.

The input is a JSON-able dict::

    {"title": "graphmem",
     "nodes": [{"id": "m:..", "type": "memory", "label": "..", "kind": "fact", "active": True,
                "content": "..", "tags": ["api"], "cluster": "c:3", "meta": {...}},
               {"id": "t:api", "type": "tag", "label": "api", "kind": "topic", "count": 3},
               {"id": "c:3", "type": "cluster", "label": "auth / jwt", "size": 12}],
     "edges": [{"id": "e1", "source": "m:..", "target": "t:api", "type": "HasTag", "weight": 0.8}],
     "recall": None | {"context": "..", "hits": [{"id": "m:..", "score": 0.7, "path": [...]}]}}

Nodes may carry numeric ``x``/``y`` to fix their positions; otherwise a fast deterministic layout
is computed in the browser. Graphs above ``options.overview_threshold`` nodes (default 300) open
in an overview: clusters and the busiest tags are nodes sized by their active memories, and a
click on one draws its members. Counts leave inactive memories out (they are counted apart).

A store too big to put whole in a page sends the overview of ``graphmem.export.vizdata`` instead: its
cluster and tag nodes carry ``count`` (active members) and ``inactive``, ``"groups"`` holds the
unclustered group's counts, edges with ``"group": true`` join groups and carry ``count``, and
only some memories are included. With ``options.fetch`` the page asks the server that served it
for a group's members (``GET /members?group=<id>&offset=<n>``, see :func:`serve`).

This module only uses the standard library (and ``graphmem.private`` to write files).
"""

from __future__ import annotations

import contextlib
import hmac
import http.cookies
import http.server
import ipaddress
import json
import math
import os
import pathlib
import re
import secrets as _secrets
import socket
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from html import escape as _html_escape
from typing import Any

from ..private import FILE_MODE, write_private

__all__ = ["asset_dir", "render_html", "serve", "write_html"]

DEFAULT_TITLE = "graphmem"
_TEMPLATE = "template.html"
_APP_JS = "app.js"
_STYLE = "style.css"
_VENDOR_JS = "vendor/cytoscape.min.js"
_PLACEHOLDER = re.compile(r"@@([A-Z_]+)@@")
_SCRIPT_CLOSE = re.compile(r"</(script)", re.IGNORECASE)
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def asset_dir() -> pathlib.Path:
    """Return the directory holding the viewer assets (template, JS, CSS, vendored library).

    An installed wheel ships them as ``graphmem/_viz``; a source checkout keeps them in the
    top-level ``viz/`` folder. Raises :class:`FileNotFoundError` if neither is present.
    """
    here = pathlib.Path(__file__)
    candidates = [here.parents[1] / "_viz", here.resolve().parents[2] / "viz"]
    for candidate in candidates:
        if (candidate / _TEMPLATE).is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"graphmem visualisation assets not found (looked for {_TEMPLATE} in: {tried}); "
        "the package was installed without its viz assets"
    )


def _read_asset(base: pathlib.Path, name: str) -> str:
    path = base / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"graphmem visualisation asset missing: {path}") from exc


def _sanitize(value: Any) -> Any:
    """Replace non-finite floats (not valid JSON) by ``None``, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _sanitize(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_sanitize(v) for v in value]
    return value


def _json_for_script(data: Any) -> str:
    """Serialise ``data`` for embedding inside a ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` are written as JSON unicode escapes, so no string in the data (for
    example ``</script>`` or ``<!--`` in a memory's content) can end the element early; the text
    is still valid JSON that ``JSON.parse`` turns back into the original strings.
    """
    try:
        text = json.dumps(
            data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str
        )
    except ValueError:
        text = json.dumps(
            _sanitize(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str
        )
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def _inline_script(code: str) -> str:
    """Make JavaScript source safe to inline in a ``<script>`` element."""
    return _SCRIPT_CLOSE.sub(r"<\\/\1", code)


def _inline_style(css: str) -> str:
    return re.sub(r"</(style)", r"<\\/\1", css, flags=re.IGNORECASE)


def render_html(
    graph: Mapping[str, Any], *, title: str | None = None, connect: bool = False
) -> str:
    """Render ``graph`` (see the module docstring) as one self-contained HTML page.

    Args:
        graph: the graph export; needs a ``nodes`` list, ``edges`` and ``recall`` are optional.
        title: page title; defaults to ``graph["title"]`` or ``"graphmem"``.
        connect: let the page fetch from the server it came from (a served page that loads
            members on demand); otherwise its Content-Security-Policy forbids any request.

    Returns:
        The HTML document as a string. It references no external resource.
    """
    if not isinstance(graph, Mapping):
        raise TypeError(f"graph must be a mapping, not {type(graph).__name__}")
    nodes = graph.get("nodes", [])
    edges = graph.get("edges", [])
    if not isinstance(nodes, list | tuple):
        raise TypeError("graph['nodes'] must be a list")
    if edges is None:
        edges = []
    if not isinstance(edges, list | tuple):
        raise TypeError("graph['edges'] must be a list")
    resolved_title = title if title is not None else str(graph.get("title") or DEFAULT_TITLE)
    payload = dict(graph)
    payload["title"] = resolved_title
    payload["nodes"] = list(nodes)
    payload["edges"] = list(edges)
    payload.setdefault("recall", None)

    base = asset_dir()
    parts = {
        "TITLE": _html_escape(resolved_title),
        "CONNECT_SRC": "'self'" if connect else "'none'",
        "STYLE": _inline_style(_read_asset(base, _STYLE)),
        "VENDOR_JS": _inline_script(_read_asset(base, _VENDOR_JS)),
        "APP_JS": _inline_script(_read_asset(base, _APP_JS)),
        "DATA": _json_for_script(payload),
    }
    template = _read_asset(base, _TEMPLATE)
    # One pass over the template only: text substituted in is never scanned for placeholders.
    return _PLACEHOLDER.sub(lambda m: parts.get(m.group(1), m.group(0)), template)


def write_html(
    graph: Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    mode: int = FILE_MODE,
) -> pathlib.Path:
    """Render ``graph`` with :func:`render_html` and write it to ``path`` (UTF-8).

    The page holds the memories' text, so the file is created with ``mode`` 0600 (only you
    can read it) unless you ask otherwise; missing parent folders are created 0700. Returns
    the path written.
    """
    return write_private(path, render_html(graph, title=title), perm=mode)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _allowed_hosts(bind_host: str, port: int) -> frozenset[str]:
    """The ``Host:`` values a browser sends for this server: loopback names with its port.

    Anything else means the page was reached through another name, as in DNS rebinding (a
    hostile site re-points its own name at 127.0.0.1 to read the page from the browser).
    """
    names = {"127.0.0.1", "localhost", "[::1]", bind_host.lower()}
    names = {f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names}
    allowed = {f"{n}:{port}" for n in names}
    if port == 80:  # a browser leaves out the default port
        allowed |= names
    return frozenset(allowed)


_UNAUTHORISED = (
    b"graphmem viz: this page needs its secret. Open the address `graphmem viz --serve` "
    b"printed (it carries one), or send 'Authorization: Bearer <token>' with the token in the "
    b"store's serve.token.\n"
)

Members = Callable[[str, int], Mapping[str, Any]]
"""``members(group, offset)``: one page of a group's members for a page that loads them."""


class _PageHandler(http.server.BaseHTTPRequestHandler):
    """Serves one in-memory page at ``/`` (and ``/index.html``) and, when given a ``members``
    function, JSON at ``/members``; everything else is 404.

    A request whose ``Host:`` is not a loopback name with the served port gets 403; one
    without a credential gets 401 and nothing of the graph (see :func:`serve`).
    """

    page: bytes = b""
    # Set when the page is made anew for each request (a live view of the store).
    render: Callable[[], str] | None = None
    members: Members | None = None
    allowed_hosts: frozenset[str] = frozenset()
    # The secrets that open the page (the URL's token, the store's serve token), and the
    # cookie a browser gets for showing one: its name carries the port, because browsers send
    # a host's cookies to all its ports and two served pages must not overwrite each other's.
    secrets: tuple[bytes, ...] = ()
    cookie_name: str = ""
    session: bytes = b""
    server_version = "graphmem-viz"
    sys_version = ""

    def _send(self, head_only: bool) -> None:
        route = self.path.split("?", 1)[0].split("#", 1)[0]
        host = (self.headers.get("Host") or "").strip().lower()
        extra: list[tuple[str, str]] = []
        if host not in self.allowed_hosts:
            body = b"forbidden host\n"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        elif (credential := self._credential()) is None:
            body = _UNAUTHORISED
            self.send_response(401)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("WWW-Authenticate", 'Bearer realm="graphmem viz"')
            self.send_header("Cache-Control", "no-store")
        else:
            if credential == "query":
                # The URL's secret is traded for a cookie, so the page's own requests (a
                # reload, /members) carry it without the secret in their addresses.
                extra.append(
                    (
                        "Set-Cookie",
                        f"{self.cookie_name}={self.session.decode()}; Path=/; HttpOnly; "
                        "SameSite=Strict",
                    )
                )
            if route == "/members" and type(self).members is not None:
                status, data = self._members()
                body = json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
            elif route not in ("/", "/index.html"):
                body = b"not found\n"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            else:
                body = self._page()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Referrer-Policy", "no-referrer")
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def _credential(self) -> str | None:
        """How the request proved it may see the page: ``"bearer"``, ``"query"`` (the
        ``token`` parameter of the URL :func:`serve` returned), ``"cookie"``, or None."""
        auth = self.headers.get("Authorization") or ""
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and self._accepts(value.strip()):
            return "bearer"
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if any(self._accepts(v) for v in query.get("token", [])):
            return "query"
        jar = http.cookies.SimpleCookie()
        with contextlib.suppress(http.cookies.CookieError):
            jar.load(self.headers.get("Cookie") or "")
        morsel = jar.get(self.cookie_name)
        if morsel is not None and hmac.compare_digest(morsel.value.encode(), self.session):
            return "cookie"
        return None

    def _accepts(self, value: str) -> bool:
        given = value.encode("utf-8", "replace")
        # Every secret is compared, in constant time, so timing tells nothing about which.
        return bool(value) and sum(hmac.compare_digest(given, s) for s in self.secrets) > 0

    def _members(self) -> tuple[int, Any]:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        group = (query.get("group") or [""])[0]
        offset_text = (query.get("offset") or ["0"])[0]
        if not group or not offset_text.isdigit():
            return 400, {"error": "give group=<id> and offset=<n>"}
        members = type(self).members
        assert members is not None
        try:
            return 200, dict(members(group, int(offset_text)))
        except LookupError as exc:  # an unknown cluster or tag
            return 404, {"error": str(exc)}
        except ValueError as exc:  # a malformed group id or offset
            return 400, {"error": str(exc)}
        except Exception as exc:  # the store's error, without a traceback in the page
            return 500, {"error": f"{type(exc).__name__}: {exc}"}

    def _page(self) -> bytes:
        render = type(self).render
        return self.page if render is None else render().encode("utf-8")

    def do_GET(self) -> None:
        """Serve the page (or a 404)."""
        self._send(head_only=False)

    def do_HEAD(self) -> None:
        """Like GET, without the body."""
        self._send(head_only=True)

    def log_message(self, fmt: str, *args: Any) -> None:
        """Silence the default per-request logging to stderr."""
        return


def serve(
    html: str | Callable[[], str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    background: bool = False,
    members: Members | None = None,
    token: str | None = None,
) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``html`` at ``/`` from memory on a loopback address; a function is called for
    every request, so a reload shows the store as it is now. With ``members``, ``GET
    /members?group=<id>&offset=<n>`` answers ``members(group, n)`` as JSON (404 for a
    ``LookupError``, 400 for a ``ValueError``), for a page rendered with ``connect=True``.

    Only loopback hosts (``127.0.0.0/8``, ``::1``, ``localhost``) are accepted; anything else
    raises :class:`ValueError`. Requests must name the server by a loopback ``Host:`` with its
    port (``127.0.0.1``, ``localhost``, ``[::1]`` or the bound address); others get 403, which
    stops DNS-rebinding pages from reading the graph. ``port=0`` picks a free port.

    Any local user can connect to a loopback port, so every request must also show a secret,
    or it gets 401 and nothing of the graph. The returned URL carries one made for this server
    (``?token=…``): a browser that opens it gets a cookie (HttpOnly, SameSite=Strict) that
    opens the page from then on. ``token`` is another secret accepted the same way (``graphmem
    viz --serve`` passes the store's serve token); either may also come as ``Authorization:
    Bearer <secret>``.

    The call never blocks: the server is bound and returned together with its URL; run it with
    ``server.serve_forever()`` (e.g. in a thread) and stop it with ``server.shutdown()`` then
    ``server.server_close()``. With ``background=True`` it is already running in a daemon
    thread when this returns.
    """
    if not isinstance(host, str) or not _is_loopback(host):
        raise ValueError(f"refusing to serve on non-loopback host {host!r}; use 127.0.0.1 or ::1")
    bind_host = host.strip("[]")
    if bind_host.lower() == "localhost":
        bind_host = "127.0.0.1"
    family = socket.AF_INET6 if ipaddress.ip_address(bind_host).version == 6 else socket.AF_INET

    fields: dict[str, Any] = (
        {"render": staticmethod(html)} if callable(html) else {"page": html.encode("utf-8")}
    )
    if members is not None:
        fields["members"] = staticmethod(members)
    handler: type[_PageHandler] = type("GraphmemPageHandler", (_PageHandler,), fields)
    server_cls = type(
        "GraphmemHTTPServer",
        (http.server.ThreadingHTTPServer,),
        {"address_family": family, "daemon_threads": True},
    )
    server = server_cls((bind_host, port), handler)
    actual_port = server.server_address[1]
    handler.allowed_hosts = _allowed_hosts(bind_host, actual_port)
    ticket = _secrets.token_urlsafe(32)
    handler.secrets = tuple(t.encode() for t in (ticket, token) if t)
    handler.session = _secrets.token_urlsafe(32).encode()
    handler.cookie_name = f"graphmem_viz_{actual_port}"
    url_host = f"[{bind_host}]" if family == socket.AF_INET6 else bind_host
    url = f"http://{url_host}:{actual_port}/?token={ticket}"
    if background:
        thread = threading.Thread(
            target=server.serve_forever, name="graphmem-viz-server", daemon=True
        )
        thread.start()
    return server, url

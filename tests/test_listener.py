"""The owner's listener against hostile and careless clients: descriptor exhaustion, slow and
oversized requests, malformed bodies, weak tokens, squatted socket folders, Host checks.

Fast cases run an in-process listener over a stub target; the rest run a real owner in a
subprocess. Network traffic stays on this machine (loopback or its own address); every wait is
bounded by a socket timeout or a loop count.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_processes import WAIT, Worker, env, worker

from graphmem import GraphMemError, GraphMemory, StoreLockedError, ValidationError, paths
from graphmem.remote import server
from graphmem.remote.client import RemoteStore

TOKEN = "Wq0pX2k9fJ3mZ7rT1vB8nC4yH6dL5sA0eG2uK9iO3wE"


class Echo:
    """A stand-in for the owner's ``GraphMemory``: ``echo`` returns what it was given;
    ``cypher`` too, unless ``hold`` is set: it then waits for ``hold`` to be released."""

    path = Path("echo")
    hold: threading.Event | None = None
    held = 0

    def echo(self, *args: Any, **kwargs: Any) -> list[Any]:
        return [list(args), kwargs]

    def cypher(self, *args: Any, **kwargs: Any) -> list[Any]:
        if Echo.hold is not None:
            Echo.held += 1
            Echo.hold.wait(timeout=WAIT)
        return [list(args), kwargs]


@pytest.fixture
def listen(tmp_path: Path) -> Iterator[Any]:
    """Start in-process listeners over ``Echo``; stopped at teardown."""
    started: list[server.Listener] = []

    def start(
        limits: server.Limits | None = None,
        max_body: int = server.MAX_BODY,
        **tcp: Any,
    ) -> server.Listener:
        app = server.create_app(
            Echo(),
            {"echo": False, "cypher": False},
            max_body=max_body,
            token=tcp.get("token"),
            tcp_hosts=tcp.get("hosts", set()),
        )
        unix = tmp_path / f"l{len(started)}.sock"
        listener = server.Listener(app, unix=unix, tcp=tcp.get("address"), limits=limits)
        started.append(listener)
        return listener

    yield start
    for listener in started:
        listener.stop()


def _unix(path: Path, timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(path))
    return sock


def _closed_within(sock: socket.socket, rounds: int, trickle: bytes = b"") -> bool:
    """Whether the server closes ``sock`` within ``rounds`` waits of the socket's timeout,
    sending one byte of ``trickle`` each round (a slowloris client)."""
    for i in range(rounds):
        if trickle:
            try:
                sock.sendall(trickle[i % len(trickle) : i % len(trickle) + 1])
            except OSError:
                return True
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset
            return True
    return False


# --- slow clients -------------------------------------------------------------------------


def test_a_connection_that_sends_nothing_is_closed(listen: Any) -> None:
    listener = listen(server.Limits(header_timeout=0.5))
    sock = _unix(listener.sock_path, timeout=0.25)
    # 0.5 s allowed; 200 rounds of 0.25 s is 100 times that.
    assert _closed_within(sock, rounds=200)
    sock.close()


def test_a_slowloris_request_head_is_cut_off(listen: Any) -> None:
    listener = listen(server.Limits(header_timeout=0.5))
    sock = _unix(listener.sock_path, timeout=0.1)
    sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: graphmem\r\n")
    # A header byte every 0.1 s: each byte would reset uvicorn's own (keep-alive) timer.
    assert _closed_within(sock, rounds=500, trickle=b"X-Slow: aaaaaaaaaaaaaaaaaaaaaa\r\n")
    sock.close()
    # The listener still answers others.
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as http:
        assert http.get("http://graphmem/v1/health").status_code == 200


_HEALTH = b"GET /v1/health HTTP/1.1\r\nHost: graphmem\r\n\r\n"


def _reads_nothing(path: Path) -> socket.socket:
    """A client that piles requests up on one connection, reading none of the answers, until
    the buffers between the two ends are full (the server is mid-answer, not idle)."""
    sock = _unix(path)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.setblocking(False)
    full = 0
    for _ in range(2000):  # bounded: at most 2,000 rounds of 0.05 s
        try:
            sock.send(_HEALTH * 100)
            full = 0
        except BlockingIOError:
            full += 1
            if full == 10:  # nothing taken for half a second: the server reads no more
                break
            threading.Event().wait(0.05)
    return sock


def test_clients_that_pile_requests_up_give_way_to_a_new_one(listen: Any) -> None:
    """Connections whose clients send requests before reading answers had kept every place
    (they are never idle), so a proper client was turned away (found by an attack: on a server
    of many stores, without the token, through the health probe): they go first."""
    listener = listen(server.Limits(max_connections=4))
    hogs = [_reads_nothing(listener.sock_path) for _ in range(4)]
    try:
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as http:
            response = http.post("http://graphmem/v1/call/echo", json={"args": [7]}, timeout=WAIT)
        assert response.status_code == 200 and response.json()["result"] == [[7], {}]

    finally:
        for h in hogs:
            h.close()


def test_a_client_that_reads_none_of_its_answers_is_closed(listen: Any) -> None:
    listener = listen(server.Limits(send_timeout=0.5))
    sock = _unix(listener.sock_path)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.setblocking(False)
    try:
        # Requests until the server is closed on us, reading none of the answers: their
        # bytes fill every buffer between the two ends, writing pauses, and 0.5 s later the
        # server closes. Bounded: 2,000 rounds of at most 0.05 s (200 times the 0.5 s).
        closed = False
        for _ in range(2000):
            try:
                sock.send(_HEALTH * 100)
            except BlockingIOError:  # our side is full too: the server reads no more
                threading.Event().wait(0.05)
            except OSError:  # reset or broken pipe: closed by the server
                closed = True
                break
        assert closed
    finally:
        sock.close()


def test_a_slow_body_is_cut_off(listen: Any) -> None:
    listener = listen(server.Limits(body_timeout=0.5))
    sock = _unix(listener.sock_path, timeout=0.1)
    sock.sendall(b"POST /v1/call/echo HTTP/1.1\r\nHost: graphmem\r\nContent-Length: 10000\r\n\r\n")
    assert _closed_within(sock, rounds=500, trickle=b"{")
    sock.close()


# --- oversized bodies ---------------------------------------------------------------------


def _chunked_upload(
    sock: socket.socket, chunk: bytes, chunks: int, path: bytes = b"/v1/call/echo"
) -> tuple[int, bytes]:
    """Send ``chunks`` chunks of a chunked body until the server answers; how many bytes were
    sent before it did, and its answer."""
    sock.sendall(
        b"POST " + path + b" HTTP/1.1\r\nHost: graphmem\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    framed = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    sent = 0
    for _ in range(chunks):
        try:
            sock.sendall(framed)
        except OSError:  # the server answered and closed: read the answer below
            break
        sent += len(chunk)
        sock.setblocking(False)
        try:
            answer = sock.recv(65536)
        except BlockingIOError:
            answer = b""
        finally:
            sock.setblocking(True)
        if answer:
            return sent, answer
    else:
        sock.sendall(b"0\r\n\r\n")
    return sent, sock.recv(65536)


def test_a_chunked_body_over_the_limit_is_refused(listen: Any) -> None:
    limit = 1 << 20
    listener = listen(max_body=limit)
    sock = _unix(listener.sock_path, timeout=30)
    sent, answer = _chunked_upload(sock, b" " * 65536, chunks=20 * 16)  # 20 MB
    sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"Request too large" in answer
    # Refused on the way, not after reading it all (the socket buffers hold a few MB).
    assert sent < 20 * limit


def _peak_rss_kb(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", text).group(1))  # type: ignore[union-attr]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_chunked_body_does_not_grow_the_owner(tmp_path: Path, model_path: str) -> None:
    """A 320 MB chunked body (five times the limit) to `graphmem serve`: 413, and the owner's
    peak memory grows by far less than the body (it grew by the whole body before)."""
    store = tmp_path / "memory"
    serve = _serve(store, model_path)
    try:
        before = _peak_rss_kb(serve.proc.pid)
        sock = _unix(paths.socket_path(store), timeout=60)
        chunk = b" " * (1 << 20)
        _, answer = _chunked_upload(
            sock, chunk, chunks=5 * server.MAX_BODY // len(chunk), path=b"/v1/call/stats"
        )
        sock.close()
        grown_mb = (_peak_rss_kb(serve.proc.pid) - before) / 1024
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        print(f"peak RSS grew by {grown_mb:.0f} MB for a {5 * server.MAX_BODY >> 20} MB body")
        assert grown_mb < 2 * server.MAX_BODY / (1 << 20), grown_mb
        _call_stats(store, model_path)
    finally:
        _stop(serve)


def test_a_declared_length_over_the_limit_is_refused_unread(listen: Any) -> None:
    listener = listen(max_body=1000)
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as http:
        response = http.post("http://graphmem/v1/call/echo", content=b"[" * 2000)
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "GraphMemError"


# --- malformed requests -------------------------------------------------------------------

DEEP = 5000
MALFORMED: dict[str, bytes] = {
    "not JSON": b"{not json",
    "not UTF-8": b'{"args": ["\xff"]}',
    "a list body": b"[1, 2]",
    "args not a list": b'{"args": {"a": 1}}',
    "kwargs not an object": b'{"kwargs": [1]}',
    "deep JSON": b'{"args": [' + b"[" * DEEP + b"]" * DEEP + b"]}",
    "deep dict": b'{"args": [' + b'{"a": ' * DEEP + b"1" + b"}" * DEEP + b"]}",
    "deep, under the JSON limit": b'{"args": [' + b"[" * 500 + b"]" * 500 + b"]}",
    "unknown tag": b'{"args": [{"$t": "pickle", "v": "x"}]}',
    "unhashable tag": b'{"args": [{"$t": [1], "v": "x"}]}',
    "tagged dict not an object": b'{"args": [{"$t": "dict", "v": 5}]}',
    "model without a name": b'{"args": [{"$t": "model", "v": {}}]}',
    "model with a list name": b'{"args": [{"$t": "model", "v": {"name": []}}]}',
    "unknown model": b'{"args": [{"$t": "model", "v": {"name": "Popen", "fields": {}}}]}',
    "bad model fields": b'{"args": [{"$t": "model", "v": {"name": "Memory", "fields": 3}}]}',
    "deep model fields": b'{"args": [{"$t": "model", "v": {"name": "Memory", "fields": '
    + b'{"a": ' * 200
    + b"1"
    + b"}" * 200
    + b"}}]}",
    "recall without hits": b'{"args": [{"$t": "recall", "v": {"id": "r"}}]}',
    "bad decimal": b'{"args": [{"$t": "decimal", "v": "one"}]}',
    "decimal of a list": b'{"args": [{"$t": "decimal", "v": [1]}]}',
    "huge timedelta": b'{"args": [{"$t": "timedelta", "v": 1e300}]}',
    "bad datetime": b'{"args": [{"$t": "datetime", "v": 5}]}',
    "bad float": b'{"args": [{"$t": "float", "v": "many"}]}',
    "bad uuid": b'{"args": [{"$t": "uuid", "v": 7}]}',
    "bad bytes": b'{"args": [{"$t": "bytes", "v": "!!!"}]}',
    "tuple of a number": b'{"args": [{"$t": "tuple", "v": 3}]}',
    "set of lists": b'{"args": [{"$t": "set", "v": [[1]]}]}',
    "path of a number": b'{"args": [{"$t": "path", "v": 3}]}',
    "huge integer": b'{"args": [' + b"9" * 10000 + b"]}",
    "bad tag in kwargs": b'{"kwargs": {"a": {"$t": "bad"}}}',
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_request_gets_a_typed_400(listen: Any, name: str) -> None:
    listener = listen()
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as http:
        response = http.post("http://graphmem/v1/call/echo", content=MALFORMED[name])
        assert response.status_code == 400, (response.status_code, response.text[:300])
        error = response.json()["error"]
        assert error["type"] == "ValidationError" and error["message"], error
        # And the listener carries on.
        assert http.get("http://graphmem/v1/health").status_code == 200


def test_wrong_types_for_a_call_get_a_400_of_their_class(tmp_path: Path, listen: Any) -> None:
    class Strict(Echo):
        def add(self, a: int, b: int) -> int:
            return a + b

    app = server.create_app(Strict(), {"add": False})
    listener = server.Listener(app, unix=tmp_path / "strict.sock")
    try:
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as http:
            for body in (b'{"args": [1, "x"]}', b'{"kwargs": {"c": 1}}'):
                response = http.post("http://graphmem/v1/call/add", content=body)
                assert response.status_code == 400, response.text
                assert response.json()["error"]["type"] == "TypeError"
    finally:
        listener.stop()


def test_the_client_raises_a_typed_error_for_a_refused_value(listen: Any) -> None:
    listener = listen()
    remote = RemoteStore(socket=listener.sock_path)
    try:
        nested: Any = 1
        for _ in range(150):  # deeper than the wire's limit, shallow enough to encode
            nested = [nested]
        with pytest.raises(ValidationError, match="nested more than"):
            remote.call("echo", (nested,))
        for _ in range(20 * sys.getrecursionlimit()):  # too deep even to encode here
            nested = [nested]
        with pytest.raises(GraphMemError):
            remote.call("echo", (nested,))
        assert remote.call("echo", (1,), {"a": "b"}) == [[1], {"a": "b"}]
    finally:
        remote.close()


# --- descriptor exhaustion ----------------------------------------------------------------

LIMIT = 64


def _serve(store: Path, model_path: str, *args: str) -> Worker:
    serve = Worker(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store), "serve", *args],
        env(model_path),
        stream="stderr",
    )
    serve.expect("serving")
    return serve


def _stop(serve: Worker) -> str:
    """SIGTERM `graphmem serve`, wait for it, and return the rest of its stderr."""
    if serve.proc.poll() is None:
        serve.proc.send_signal(signal.SIGTERM)
        serve.expect("stopping")
        assert serve.proc.wait(timeout=WAIT) == 0
    rest = []
    while not serve.lines.empty():
        rest.append(serve.lines.get())
    return "\n".join(serve.seen + rest)


def _call_stats(store: Path, model_path: str) -> None:
    """A normal client call from this process: the owner answers."""
    with GraphMemory(store, model_path=model_path, timeout=WAIT) as mem:
        assert mem.owner is not None
        assert mem.stats().memories >= 0


def _flood(sock_path: Path, n: int) -> list[socket.socket]:
    """``n`` idle connections (they send nothing)."""
    opened = []
    for _ in range(n):
        try:
            opened.append(_unix(sock_path, timeout=WAIT))
        except OSError:  # the listen queue is full: enough
            break
    return opened


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs prlimit (Linux)")
# Both owners in the slow step (thousands of descriptors); fast: test_a_chunked_body_does_not_grow_the_owner.
@pytest.mark.slow
@pytest.mark.parametrize("owner", ["serve", "library"])
def test_descriptor_exhaustion_leaves_the_owner_serving(
    tmp_path: Path, model_path: str, owner: str
) -> None:
    """More idle connections than the owner may open descriptors: it keeps serving (before,
    `serve`'s listener thread died, and a library owner logged without end)."""
    store = tmp_path / "memory"
    if owner == "serve":
        proc = _serve(store, model_path)
    else:
        proc = worker("idle", store, model_path)
        assert proc.expect("role") == "role owner"
    log_path = tmp_path / "owner.log"
    try:
        resource.prlimit(proc.proc.pid, resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
        idle = _flood(paths.socket_path(store), 3 * LIMIT)
        assert len(idle) > LIMIT
        # While they are open, a normal call is answered (idle connections make room).
        _call_stats(store, model_path)
        for sock in idle:
            sock.close()
        _call_stats(store, model_path)
        assert proc.proc.poll() is None
    finally:
        if owner == "serve":
            log = _stop(proc)
        else:
            assert proc.finish() == 0
            log = proc.stderr()
        log_path.write_text(log)
    # Rate-limited: a few lines, not one per failed accept (20 MB in 8 s before).
    assert len(log) < 20_000, log[:2000]


# --- the token ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "mode", "message"),
    [
        (TOKEN, 0o644, "can be read by other users"),
        (TOKEN, 0o640, "chmod 600"),
        ("changeme", 0o600, "too weak"),
        ("a" * 64, 0o600, "too weak"),
        ("password" * 6, 0o600, "too weak"),
        ("0123456789" * 4, 0o600, "too weak"),
    ],
)
def test_a_weak_or_readable_token_is_refused(
    tmp_path: Path, value: str, mode: int, message: str
) -> None:
    path = paths.token_path(tmp_path)
    path.write_text(value + "\n")
    path.chmod(mode)
    with pytest.raises(GraphMemError, match=message):
        paths.token(tmp_path, create=True)
    # Refused, never replaced or used.
    assert path.read_text().strip() == value


def test_a_token_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text(TOKEN)
    elsewhere.chmod(0o600)
    paths.token_path(tmp_path).symlink_to(elsewhere)
    with pytest.raises(GraphMemError, match="serve token"):
        paths.token(tmp_path, create=True)


def test_a_new_token_is_private_and_strong(tmp_path: Path) -> None:
    old = os.umask(0)  # even with no umask at all
    try:
        value = paths.token(tmp_path, create=True)
    finally:
        os.umask(old)
    path = paths.token_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert paths.token(tmp_path, create=False) == value
    assert len(value) >= paths.MIN_TOKEN_LENGTH
    assert [p.name for p in tmp_path.iterdir()] == [paths.TOKEN_NAME]  # no temp file left
    # An empty file is replaced by a new private one (not written through its old mode).
    path.write_text("")
    path.chmod(0o644)
    inode = path.stat().st_ino
    fresh = paths.token(tmp_path, create=True)
    assert fresh != value and path.stat().st_ino != inode
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_serve_refuses_a_readable_token(tmp_path: Path, model_path: str) -> None:
    store = tmp_path / "memory"
    with GraphMemory(store, model_path=model_path):
        pass
    token = paths.token_path(store)
    token.write_text(TOKEN + "\n")
    token.chmod(0o644)
    done = _run_cli(store, model_path, "serve", "--tcp", "127.0.0.1:0")
    assert done.returncode != 0
    assert "can be read by other users" in done.stderr and "chmod 600" in done.stderr


def _run_cli(store: Path, model_path: str, *args: str) -> Any:
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "graphmem.cli", "-d", str(store), *args],
        capture_output=True,
        text=True,
        env=env(model_path),
        timeout=WAIT,
    )


# --- the socket's folder ------------------------------------------------------------------


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    """Private stand-ins for $XDG_RUNTIME_DIR, the temp dir and ~/.cache (short paths: a
    socket path must fit in about 100 bytes)."""
    base = Path(tempfile.mkdtemp(prefix="gm-"))
    folders = {k: base / k for k in ("run", "tmp", "cache")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folders["run"]))
    monkeypatch.setenv("TMPDIR", str(folders["tmp"]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(folders["cache"]))
    monkeypatch.setattr(tempfile, "tempdir", str(folders["tmp"]))
    yield folders
    for folder in base.rglob("*"):  # make everything removable again
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o700)
    shutil.rmtree(base, ignore_errors=True)


def _long_store(tmp_path: Path) -> Path:
    return tmp_path / ("x" * 60) / ("y" * 60) / "memory"


def test_a_squatted_runtime_folder_is_passed_over(tmp_path: Path, runtime: dict[str, Path]) -> None:
    uid = os.getuid()
    store = _long_store(tmp_path)
    # Someone else got there first: a link to a folder of theirs.
    decoy = tmp_path / "decoy"
    decoy.mkdir(mode=0o777)
    (runtime["run"] / f"graphmem-{uid}").symlink_to(decoy)
    sock = paths.socket_path(store)
    assert sock.parent == runtime["tmp"] / f"graphmem-{uid}"
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    # A folder of ours that others may write in is no better.
    sock.parent.chmod(0o777)
    sock = paths.socket_path(store)
    assert sock.parent == runtime["cache"] / "graphmem" / "sockets"
    # All taken: a clear error saying what to do.
    (runtime["cache"] / "graphmem" / "sockets").chmod(0o733)
    with pytest.raises(GraphMemError, match="XDG_RUNTIME_DIR"):
        paths.socket_path(store)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user needs root")
def test_a_runtime_folder_of_another_user_is_passed_over(
    tmp_path: Path, runtime: dict[str, Path]
) -> None:
    squatted = runtime["run"] / f"graphmem-{os.getuid()}"
    squatted.mkdir(mode=0o700)
    os.chown(squatted, 65534, 65534)
    sock = paths.socket_path(_long_store(tmp_path))
    assert sock.parent == runtime["tmp"] / f"graphmem-{os.getuid()}"


def test_a_long_temp_dir_does_not_break_long_store_paths(
    tmp_path: Path, runtime: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    deep = runtime["tmp"] / ("t" * 80)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    sock = paths.socket_path(_long_store(tmp_path))
    assert len(os.fsencode(sock)) <= 100
    assert sock.parent == runtime["cache"] / "graphmem" / "sockets"


def test_an_owner_serves_past_a_squatted_folder(
    tmp_path: Path, runtime: dict[str, Path], model_path: str
) -> None:
    (runtime["run"] / f"graphmem-{os.getuid()}").write_text("squatter")
    store = _long_store(tmp_path)
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    assert paths.socket_path(store).parent == runtime["tmp"] / f"graphmem-{os.getuid()}"
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is not None and mem.stats().memories == 0
    assert owner.finish() == 0


def test_a_process_with_another_environment_finds_the_owner_of_a_long_path(
    tmp_path: Path, runtime: dict[str, Path], model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long store path puts the socket in a per-user folder the owner's environment chose;
    an MCP client starts its server with a reduced environment (no XDG_RUNTIME_DIR), which had
    looked elsewhere, found no owner and failed after its timeout (found by an attack). The
    owner names its socket in the store's folder while it listens."""
    store = _long_store(tmp_path)
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    sock = paths.socket_path(store)
    assert sock.parent == runtime["run"] / f"graphmem-{os.getuid()}"
    assert paths.socket_pointer(store).read_text().strip() == str(sock)
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert paths.socket_path(store) != sock  # this process alone would look elsewhere
    with GraphMemory(store, model_path=model_path, timeout=5) as mem:
        assert mem.owner is not None and mem.stats().memories == 0
    assert owner.finish() == 0
    assert not paths.socket_pointer(store).exists()


def test_a_copied_pointer_does_not_lead_to_another_store(
    tmp_path: Path, runtime: dict[str, Path], model_path: str
) -> None:
    """A store folder copied with its owner.socket named the original's socket: a client of
    the copy reached the original's owner and wrote there (found by a review). The owner must
    say it owns the store asked for."""
    store = _long_store(tmp_path)
    owner = worker("idle", store, model_path)
    assert owner.expect("role") == "role owner"
    copy = tmp_path / ("c" * 60) / ("d" * 60) / "memory"
    copy.mkdir(parents=True)
    shutil.copy2(paths.socket_pointer(store), paths.socket_pointer(copy))
    try:
        with GraphMemory(copy, model_path=model_path) as mem:
            assert mem.owner is None or mem.owner["store"] == str(copy.resolve())
            mem.remember("Written to the copy")
        with GraphMemory(store, model_path=model_path) as mem:
            assert mem.owner is not None and mem.stats().memories == 0
    finally:
        assert owner.finish() == 0


def test_a_pointer_not_ours_or_to_an_open_folder_is_not_followed(
    tmp_path: Path, runtime: dict[str, Path]
) -> None:
    store = _long_store(tmp_path)
    store.mkdir(parents=True)
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o777)
    open_folder.chmod(0o777)
    paths.socket_pointer(store).write_text(str(open_folder / "x.sock"))
    assert paths.owner_sockets(store) == [paths.socket_path(store)]
    paths.socket_pointer(store).write_text("relative/x.sock")
    assert paths.owner_sockets(store) == [paths.socket_path(store)]


# --- TCP: token and Host ------------------------------------------------------------------


def test_a_request_without_the_token_is_told_how_to_send_it(listen: Any) -> None:
    listener = listen(address=("127.0.0.1", 0), token=TOKEN, hosts=server.local_hosts("127.0.0.1"))
    host, port = listener.tcp_address
    url = f"http://{host}:{port}/v1/health"
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        response = httpx.get(url, headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert "Authorization: Bearer" in response.json()["error"]["message"]
    # The scheme is case-insensitive (RFC 9110).
    assert httpx.get(url, headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_files_for_cypher_are_refused_over_tcp(listen: Any) -> None:
    """A folder a network caller names for ``cypher(files=...)`` would be one of the server's
    host (its ~/.ssh, other stores' tokens): refused over TCP, token or not; a process of this
    machine may still name one over the owner's Unix socket."""
    listener = listen(address=("127.0.0.1", 0), token=TOKEN, hosts=server.local_hosts("127.0.0.1"))
    host, port = listener.tcp_address
    body = {"args": ["LOAD FROM '/etc/hostname' RETURN *"], "kwargs": {"files": "/etc"}}
    response = httpx.post(
        f"http://{host}:{port}/v1/call/cypher", json=body,
        headers={"Authorization": f"Bearer {TOKEN}"},
    )  # fmt: skip
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "ValidationError" and "not available over TCP" in error["message"]
    # Without files= the same call goes through over TCP, and with them over the socket.
    plain = {"args": ["RETURN 1"], "kwargs": {}}
    response = httpx.post(
        f"http://{host}:{port}/v1/call/cypher", json=plain,
        headers={"Authorization": f"Bearer {TOKEN}"},
    )  # fmt: skip
    assert response.status_code == 200
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as local:
        response = local.post("http://graphmem/v1/call/cypher", json=body)
    assert response.status_code == 200
    assert response.json()["result"][1]["files"] == "/etc"


def test_slow_cypher_calls_leave_room_for_every_other_call(listen: Any) -> None:
    """The store's sandbox runs one statement at a time: a statement waiting for it waits
    outside the call slots, so two slow ones no longer hold every slot while recalls queue
    behind them (found by an attack: a client's recall took 38 s)."""
    listener = listen()
    Echo.hold, Echo.held = threading.Event(), 0
    answers: list[int] = []

    def cypher() -> None:
        transport = httpx.HTTPTransport(uds=str(listener.sock_path))
        with httpx.Client(transport=transport, timeout=WAIT) as client:
            answers.append(client.post("http://graphmem/v1/call/cypher", json={}).status_code)

    slow = [threading.Thread(target=cypher) for _ in range(2)]
    try:
        for t in slow:
            t.start()
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(listener.sock_path))) as client:
            for _ in range(WAIT * 20):  # the first statement has reached the sandbox
                if Echo.held:
                    break
                threading.Event().wait(0.05)
            assert Echo.held == 1
            # Both statements are in: one running, one waiting its turn. Another call answers.
            response = client.post("http://graphmem/v1/call/echo", json={"args": [1]}, timeout=WAIT)
            assert response.status_code == 200 and response.json()["result"] == [[1], {}]
            assert Echo.held == 1
    finally:
        Echo.hold.set()
        for t in slow:
            t.join(timeout=WAIT)
        Echo.hold = None
    assert answers == [200, 200]


def _own_address() -> str:
    """This machine's address on its default route (no packet is sent), else 127.0.0.2."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
        address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.2"
    finally:
        probe.close()
    return address if address != "0.0.0.0" else "127.0.0.2"


@pytest.mark.slow  # a second address and a peer process; fast: test_serve_over_tcp_needs_the_token
def test_serve_on_all_interfaces_answers_a_container_peer(tmp_path: Path, model_path: str) -> None:
    """`--tcp 0.0.0.0`: a peer that uses the host's address, or a name given with
    --allow-host, is served with the token; any other Host is still refused."""
    store = tmp_path / "memory"
    serve = _serve(store, model_path, "--tcp", "0.0.0.0:0", "--allow-host", "Host.Test")
    try:
        line = next(s for s in serve.seen if s.startswith("serving"))
        port = int(re.search(r":(\d+) \(MCP", line).group(1))  # type: ignore[union-attr]
        token = paths.token_path(store).read_text().strip()
        address = _own_address()
        url = f"http://{address}:{port}"
        with GraphMemory(url, token=token) as mem:
            made = mem.remember("A container reaches its host by the host's address")
            assert mem.get(made.id).content.startswith("A container")
        auth = {"Authorization": f"Bearer {token}"}
        named = httpx.get(f"{url}/v1/health", headers={**auth, "Host": f"host.test:{port}"})
        assert named.status_code == 200, named.text
        forged = httpx.get(f"{url}/v1/health", headers={**auth, "Host": f"evil.example:{port}"})
        assert forged.status_code == 403 and "--allow-host" in forged.json()["error"]["message"]
        assert httpx.get(f"{url}/v1/health").status_code == 401
        with pytest.raises(GraphMemError, match="--allow-host"):
            remote = RemoteStore(url=url, token=token)
            remote._http.headers["host"] = "evil.example"
            try:
                remote.ping()
            finally:
                remote.close()
    finally:
        _stop(serve)


def test_an_unknown_host_name_is_refused_with_a_message(listen: Any) -> None:
    listener = listen(address=("127.0.0.1", 0), token=TOKEN, hosts=server.local_hosts("127.0.0.1"))
    host, port = listener.tcp_address
    response = httpx.get(
        f"http://{host}:{port}/v1/health",
        headers={"Authorization": f"Bearer {TOKEN}", "Host": "rebound.example"},
    )
    assert response.status_code == 403
    assert json.loads(response.text)["error"]["message"].startswith("Host 'rebound.example'")


def test_a_store_client_over_tcp_is_not_told_nothing_answers(listen: Any) -> None:
    """A Host refusal reaches the user as what it is, not as 'nothing answers'."""
    listener = listen(address=("127.0.0.1", 0), token=TOKEN, hosts=server.local_hosts("127.0.0.1"))
    host, port = listener.tcp_address
    remote = RemoteStore(url=f"http://{host}:{port}", token=TOKEN)
    remote._http.headers["host"] = "rebound.example"
    try:
        with pytest.raises(GraphMemError, match="not allowed") as caught:
            remote.ping()
        assert not isinstance(caught.value, StoreLockedError)
    finally:
        remote.close()


def test_serve_gives_up_the_store_when_its_listener_dies(
    tmp_path: Path, model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An owner whose listener is dead would lock every other process out: `serve` exits
    with an error and closes the store, so the next opener owns it."""
    from click.testing import CliRunner

    from graphmem.cli.app import cli

    monkeypatch.setattr(server.Listener, "alive", property(lambda self: False))
    store = tmp_path / "memory"
    result = CliRunner().invoke(cli, ["-d", str(store), "--model-path", model_path, "serve"])
    assert result.exit_code == 1, result.output
    assert "stopped; closing the store" in result.output
    with GraphMemory(store, model_path=model_path) as mem:
        assert mem.owner is None


def test_a_mounted_app_gets_the_same_body_limit(tmp_path: Path) -> None:
    """The limit is the guard's, so the MCP endpoint mounted beside /v1 obeys it too."""
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    read: list[int] = []

    async def swallow(request: Request) -> PlainTextResponse:
        read.append(len(await request.body()))
        return PlainTextResponse("read it all")

    limit = 1 << 20
    app = server.create_app(
        Echo(), {}, max_body=limit, mounts=[Route("/other", swallow, methods=["POST"])]
    )
    listener = server.Listener(app, unix=tmp_path / "m.sock")
    try:
        sock = _unix(listener.sock_path, timeout=30)
        _, answer = _chunked_upload(sock, b" " * 65536, chunks=20 * 16, path=b"/other")
        sock.close()
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert read == []  # the app never got the body
    finally:
        listener.stop()

"""Several `graphmem serve --stores` processes behind nginx on loopback, for tests and
bench/router.py. nginx runs the shipped config (deploy/nginx/graphmem.conf) with its upstream
servers and listen address replaced. Every process is started here and stopped by ``close``
(a context manager), whatever happened."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx" / "graphmem.conf"
WAIT = 120


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


class _Lines:
    """A process's stderr, line by line, read by a thread so waits time out."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.seen: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        assert proc.stderr is not None
        threading.Thread(target=self._read, args=(proc.stderr,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self._lines.put(line.rstrip("\n"))
        self._lines.put("<eof>")

    def expect(self, needle: str, timeout: float = WAIT) -> str:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no '{needle}' within {timeout} s; saw {self.seen}") from None
            self.seen.append(line)
            if line == "<eof>":
                raise AssertionError(f"exited before '{needle}': {self.seen}")
            if needle in line:
                return line


class Server:
    """One `graphmem serve --stores` process."""

    def __init__(self, root: Path, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem.cli", "serve", "--stores", str(root),
             "--tcp", "127.0.0.1:0", *args],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines = _Lines(self.proc)
        self.port = 0

    def wait_ready(self) -> Server:
        line = self.lines.expect("serving stores")
        self.port = int(re.search(r"http://127\.0\.0\.1:(\d+)", line).group(1))  # type: ignore[union-attr]
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def status(self, token: str) -> dict[str, Any]:
        """The server's own /v1/status (asked directly, not through nginx)."""
        response = httpx.get(
            f"http://{self.address}/v1/status",
            headers={"authorization": f"Bearer {token}"},
            timeout=WAIT,
        )
        response.raise_for_status()
        return dict(response.json())

    def stop(self) -> str:
        """SIGTERM (a drain) and wait; the line that reports what the drain closed."""
        self.proc.send_signal(signal.SIGTERM)
        line = self.lines.expect("stopped:")
        assert self.proc.wait(timeout=WAIT) == 0
        return line


class Nginx:
    """nginx in the foreground with the shipped config, in front of ``servers``."""

    def __init__(self, folder: Path, servers: list[Server]) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed")
        folder.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        upstreams = "".join(f"    server {s.address};\n" for s in servers)
        conf = NGINX_CONF.read_text(encoding="utf-8")
        conf = re.sub(r"(upstream graphmem \{\n(?:.*\n)*?)((?:    server [^\n]*\n)+)",
                      lambda m: m.group(1) + upstreams, conf, count=1)  # fmt: skip
        conf = conf.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{self.port};")
        (folder / "graphmem.conf").write_text(conf, encoding="utf-8")
        # As root, nginx's workers would run as nobody, who cannot enter pytest's 0700 folders.
        user = "user root;\n" if os.geteuid() == 0 else ""
        temps = "".join(
            f"    {kind}_temp_path {folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (folder / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\n"
            # notice: the "start worker process" line says it is listening.
            "error_log stderr notice;\n"
            "events { worker_connections 1024; }\n"
            f"http {{\n    access_log off;\n{temps}    include {folder / 'graphmem.conf'};\n}}\n",
            encoding="utf-8",
        )
        self.proc = subprocess.Popen(
            [binary, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", "stderr"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self.lines = _Lines(self.proc)
        self.lines.expect("start worker process")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, store: str) -> str:
        return f"{self.base}/s/{store}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish requests, then exit
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _free_port() -> int:
    # nginx cannot take a bound socket from here: a port free a moment ago (loopback only).
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """Servers on one folder of stores, and nginx fronts; everything stopped on exit."""

    def __init__(self, root: Path, work: Path, model_path: str, token: str) -> None:
        self.root = root
        self.work = work
        self.token = token
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "GRAPHMEM_MODEL_PATH": model_path,
            "GRAPHMEM_SERVE_TOKEN": token,
        }
        self.servers: list[Server] = []
        self.fronts: list[Nginx] = []

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start_servers(self, n: int, *args: str) -> list[Server]:
        """``n`` servers, started together (their model loads overlap)."""
        started = [Server(self.root, self.env, *args) for _ in range(n)]
        self.servers.extend(started)
        return [s.wait_ready() for s in started]

    def front(self, servers: list[Server]) -> Nginx:
        nginx = Nginx(self.work / f"nginx{len(self.fronts)}", servers)
        self.fronts.append(nginx)
        return nginx

    def close(self) -> None:
        for nginx in self.fronts:
            nginx.stop()
        for server in self.servers:
            if server.proc.poll() is None:
                server.proc.send_signal(signal.SIGTERM)
        for server in self.servers:
            try:
                server.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()

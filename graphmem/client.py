"""A client of a store's holder: the same calls as ``GraphMemory``, answered by the process that
owns the store (see ``graphmem.server``).

Kept light on purpose: it imports neither Kùzu nor the embedding model, so a CLI call served by
a holder starts fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from . import wire
from .errors import GraphMemError, StoreLockedError
from .server import API

# How long a call may take in the holder (a big remember_many batch or a cluster rebuild).
CALL_TIMEOUT = 600.0
CONNECT_TIMEOUT = 5.0


class HolderGone(StoreLockedError):
    """The holder stopped answering (it exited or was killed)."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        # Whether the request may have reached the holder (its effect is then unknown).
        self.sent = sent


class RemoteStore:
    """One connection to a holder, on its Unix socket or (with a token) over TCP."""

    def __init__(
        self, *, socket: Path | None = None, url: str | None = None, token: str | None = None
    ):
        if socket is not None:
            transport = httpx.HTTPTransport(uds=str(socket))
            base = "http://graphmem"
            self.where = str(socket)
        elif url is not None:
            transport = httpx.HTTPTransport()
            base = url.rstrip("/")
            self.where = base
        else:
            raise ValueError("give socket or url")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(
            transport=transport,
            base_url=base,
            headers=headers,
            timeout=httpx.Timeout(CALL_TIMEOUT, connect=CONNECT_TIMEOUT),
        )
        self.holder: dict[str, Any] = {}

    def ping(self) -> bool:
        """True when a holder answers; it then describes itself in ``holder`` (pid, store)."""
        try:
            response = self._http.get(f"{API}/health", timeout=CONNECT_TIMEOUT)
        except httpx.HTTPError:
            return False
        if response.status_code == 401:
            raise GraphMemError(f"The holder at {self.where} refused the token.")
        if response.status_code != 200:
            return False
        self.holder = response.json()
        return True

    def call(
        self, method: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        """Run ``method`` in the holder; its result, or its exception raised here.

        Raises:
            HolderGone: the holder did not answer (``sent`` says whether it may have acted).
        """
        try:
            body = json.dumps(
                {"args": wire.encode(list(args)), "kwargs": wire.encode(kwargs or {})}
            )
        except (TypeError, ValueError) as exc:
            raise GraphMemError(
                f"{method}(): an argument cannot be sent to the holder: {exc}"
            ) from exc
        try:
            response = self._http.post(
                f"{API}/call/{method}", content=body, headers={"content-type": "application/json"}
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise HolderGone(f"The holder at {self.where} is not answering.", sent=False) from exc
        except httpx.HTTPError as exc:
            raise HolderGone(
                f"The holder at {self.where} stopped while running {method}().", sent=True
            ) from exc
        try:
            data = response.json()
        except ValueError as exc:
            raise GraphMemError(
                f"The holder at {self.where} answered {response.status_code} with no result."
            ) from exc
        if "error" in data:
            raise wire.decode_error(data["error"])
        return wire.decode(data["result"])

    def close(self) -> None:
        self._http.close()

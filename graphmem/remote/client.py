"""A client of a store's owner: the same calls as ``GraphMemory`` (``MemoryBackend``), answered
by the process that owns the store (see ``graphmem.remote.server``).

Kept light on purpose: it imports neither Kùzu, numpy nor the embedding model, so a CLI call
served by an owner starts fast (``tests/test_seam.py`` checks). ``GraphMemory`` holds a
``RemoteMemory`` when another process owns its store (``graphmem.owner.backends`` decides).

The handle's ``Config`` travels with every call (the fields it sets), so it governs the call in
the owner as it would in this process; items are also checked here, with it, before a batch is
sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import httpx

from .. import codec
from ..codec import API
from ..config import Config
from ..errors import GraphMemError, OwnerGone, ReadOnlyError, ValidationError
from ..models import (
    ON_SECRET,
    Cluster,
    Gap,
    Hit,
    Link,
    MaintainReport,
    Memory,
    RecallResult,
    RememberBatch,
    RememberResult,
    Stats,
    Tag,
)
from ..paths import caller_folder
from ..progress import reporter
from ..write import idempotency, validate
from ..write.items import prepare_many
from .calls import CALLS, MemoryBackend

if TYPE_CHECKING:
    from ..embed import Embedder

# How long a call may take in the owner (a big remember_many batch or a cluster rebuild).
CALL_TIMEOUT = 600.0
CONNECT_TIMEOUT = 5.0


class RemoteStore:
    """One connection to a owner, on its Unix socket or (with a token) over TCP."""

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
        self.owner: dict[str, Any] = {}

    def ping(self) -> bool:
        """True when a owner answers; it then describes itself in ``owner`` (pid, store)."""
        try:
            response = self._http.get(f"{API}/health", timeout=CONNECT_TIMEOUT)
        except httpx.HTTPError:
            return False
        if response.status_code == 401:
            raise GraphMemError(f"The owner at {self.where} refused the token.")
        if response.status_code == 403:  # the Host this URL sends is not allowed
            raise GraphMemError(f"The owner at {self.where} refused: {_message(response)}")
        if response.status_code == 404:  # a server of many stores without this store
            error = _json_error(response)
            if error is not None:
                raise codec.decode_error(error)
        if response.status_code != 200:
            return False
        self.owner = response.json()
        return True

    def call(
        self,
        method: str,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        *,
        read_only: bool = False,
        request_id: str | None = None,
        retry: bool = False,
        config: dict[str, Any] | None = None,
    ) -> Any:
        """Run ``method`` in the owner; its result, or its exception raised here.
        ``read_only``: run it as a read-only handle would (a recall leaves no trace).
        ``request_id``: the write's id (``graphmem.write.idempotency``), the same when it is retried
        (``retry``). ``config``: the ``Config`` fields the calling handle sets (the call runs
        with them in the owner).

        Raises:
            OwnerGone: the owner did not answer (``sent`` says whether it may have acted).
        """
        try:
            payload = {"args": codec.encode(list(args)), "kwargs": codec.encode(kwargs or {})}
            if read_only:
                payload["read_only"] = True
            if config:
                payload["config"] = config
            if request_id is not None:
                payload["request_id"] = request_id
                if retry:
                    payload["retry"] = True
            body = json.dumps(payload)
        except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested deep
            raise ValidationError(
                f"{method}(): an argument cannot be sent to the owner: {exc}"
            ) from exc
        try:
            response = self._http.post(
                f"{API}/call/{method}", content=body, headers={"content-type": "application/json"}
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise OwnerGone(f"The owner at {self.where} is not answering.", sent=False) from exc
        except httpx.HTTPError as exc:
            raise OwnerGone(
                f"The owner at {self.where} stopped while running {method}().", sent=True
            ) from exc
        try:
            data = response.json()
        except ValueError as exc:
            raise GraphMemError(
                f"The owner at {self.where} answered {response.status_code} with no result."
            ) from exc
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            raise codec.decode_error(data["error"])
        if not isinstance(data, dict) or "result" not in data:
            raise GraphMemError(
                f"The owner at {self.where} answered {response.status_code} with no result."
            )
        return codec.decode(data["result"])

    def close(self) -> None:
        self._http.close()


def _json_error(response: httpx.Response) -> dict[str, Any] | None:
    """A owner's typed JSON error answer (``{"error": {"type", "message"}}``), else None."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    return error if isinstance(error, dict) else None


def _message(response: httpx.Response) -> str:
    """The message of a owner's JSON error answer, else its status."""
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


class RemoteMemory:
    """The calls of a store another process owns (a ``MemoryBackend``).

    Args:
        store: the connection to the owner.
        path: the store's folder (or URL), for messages and ``.path``.
        read_only: refuse writes here, before they reach the owner.
        config: this handle's settings; the fields it sets travel with every call.
        reopen: called when the owner is gone; returns where the call goes now (this
            process's own store, opened anew, or a client of the new owner). Without it the
            ``OwnerGone`` error is raised.
        model_name, model_path: the embedding model ``embedder`` loads here (for the agent).
    """

    def __init__(
        self,
        store: RemoteStore,
        path: Path,
        *,
        read_only: bool = False,
        config: Config | None = None,
        reopen: Callable[[], MemoryBackend] | None = None,
        model_name: str | None = None,
        model_path: str | None = None,
    ) -> None:
        self.store = store
        self.path = path
        self.read_only = read_only
        self.config = config or Config()
        # Only the fields the caller set: the owner fills the rest with Config's defaults
        # (and the settings every handle on the store shares with its own).
        self._config_fields = self.config.model_dump(mode="json", exclude_unset=True)
        self._reopen = reopen
        self._model = (model_name, model_path)
        self._embedder: Embedder | None = None

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def owner(self) -> dict[str, Any]:
        """The process that owns the store (pid, store)."""
        return dict(self.store.owner)

    @property
    def embedder(self) -> Embedder:
        """The embedding model, loaded in this process (the agent embeds contexts here)."""
        if self._embedder is None:
            from ..config import DEFAULT_MODEL
            from ..embed import FastEmbedder

            name, model_path = self._model
            self._embedder = FastEmbedder(name or DEFAULT_MODEL, model_path=model_path)
        return self._embedder

    def close(self) -> None:
        self.store.close()

    def invoke(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run one call in the owner; if the owner is gone, reopen and run it there."""
        writes = CALLS[name]
        if self.read_only and (writes or (name == "cypher" and kwargs.get("write"))):
            raise ReadOnlyError(f"'{self.path}' was opened read-only.")
        if name == "cypher" and kwargs.get("files") is not None:
            # The caller's folder, not the owner's working folder.
            kwargs = {**kwargs, "files": caller_folder("files", kwargs["files"])}
        # One id per logical write, kept by its retry (here, or in the reopened client when
        # this is already a retry): the owner applies a remember's request once.
        request = (idempotency.REQUEST.get() or idempotency.new_id()) if writes else None
        retry = idempotency.RETRY.get()
        try:
            if name == "remember_many":
                return self._remember_many(request, retry, *args, **kwargs)
            if name == "rebuild_clusters":
                # A callback cannot cross processes: the owner reports nothing mid-way.
                kwargs = {k: v for k, v in kwargs.items() if k != "progress"}
            return self.store.call(
                name,
                args,
                kwargs,
                read_only=self.read_only,
                request_id=request,
                retry=retry,
                config=self._config_fields,
            )
        except OwnerGone as exc:
            # A read, or a call that never reached the owner, is safe to run again. A write
            # that may have been applied is not (its effect is unknown), except remember:
            # the next owner knows its request id, and answers a retry with what it did.
            if exc.sent and writes and name != "remember":
                raise OwnerGone(
                    f"{exc} It may or may not have been applied: check, then retry.", sent=True
                ) from exc
            if self._reopen is None:
                raise
            with idempotency.serving(request, retry=True):
                return getattr(self._reopen(), name)(*args, **kwargs)

    def _remember_many(
        self,
        request: str | None,
        retry: bool,
        items: Any,
        *,
        batch_size: int = 512,
        progress: bool | Callable[[int, int], None] = False,
        **options: Any,
    ) -> RememberBatch:
        """One request per batch, so each stays bounded and a progress bar (which cannot
        cross processes) moves here. Every item is checked first, with this handle's
        ``Config``, as a local call does, so a bad item leaves the store unchanged.

        Each batch has its own request key: when the owner goes, the batch in flight is sent
        again (with its key, so it is applied once) to the next owner, or to this process
        when it takes the store over, and so are the batches after it."""
        batch_size = validate.as_int("batch_size", batch_size, 1, 100_000)
        if not isinstance(progress, bool) and not callable(progress):
            raise ValidationError("progress must be True, False or a function")
        on_secret = validate.as_choice("on_secret", options.get("on_secret", "skip"), ON_SECRET)
        items = validate.guard(lambda: list(items), "items must be an iterable of dicts")
        if not options.get("dry_run"):
            defaults = {
                k: options[k] for k in ("dedupe", "conflicts") if options.get(k) is not None
            }
            prepare_many(
                [{**defaults, **raw} if isinstance(raw, dict) else raw for raw in items],
                self.config,
                on_secret,
            )
        if not options.get("dry_run") and len(items) > batch_size:
            self._check_ids(items, batch_size, options)
        report, finish = reporter(progress, len(items))
        results = RememberBatch([])
        reopened: MemoryBackend | None = None  # once the owner is gone: where the rest go
        try:
            for index, start in enumerate(range(0, len(items), batch_size)):
                chunk = items[start : start + batch_size]
                key = None if request is None else idempotency.chunk_key(request, index)
                done: RememberBatch | None = None
                if reopened is None:
                    try:
                        done = self.store.call(
                            "remember_many",
                            (chunk,),
                            {"batch_size": batch_size, **options},
                            request_id=key,
                            retry=retry,
                            config=self._config_fields,
                        )
                    except OwnerGone:
                        if self._reopen is None:
                            raise
                        reopened = self._reopen()
                if reopened is not None:
                    # One batch per call, so its key is the batch's (``chunk_key(key, 0)``).
                    with idempotency.serving(key, retry=True):
                        done = reopened.remember_many(chunk, batch_size=batch_size, **options)
                assert done is not None  # sent, or sent to the next owner
                results.extend(done)
                # The owner numbers a chunk's items from 0: renumber them in the whole batch.
                results.flagged.extend(
                    f.model_copy(update={"index": f.index + start})
                    for f in getattr(done, "flagged", ())
                )
                report(start + len(chunk))
        finally:
            finish()
        return results

    def _check_ids(self, items: list[Any], batch_size: int, options: dict[str, Any]) -> None:
        """What the owner's ``remember_many`` checks before its first batch, for a call sent a
        batch per request: an id an item gives that a later batch would refuse (given twice in
        the call, or stored already, and not a duplicate it reinforces), or a ``supersedes`` id
        no earlier item gives and the store does not hold, would fail that batch after the
        earlier ones were written (found by an attack). Where one could, the whole call is
        planned once by the owner first (a dry run: the write's own rules), so it fails whole.
        """
        given = [str(raw["id"]) for raw in items if isinstance(raw, dict) and raw.get("id")]
        named: list[str] = []
        for raw in items:
            ids = raw.get("supersedes") if isinstance(raw, dict) else None
            if ids:
                # As given (the owner's checks refuse a wrong type): a string is one id.
                named.extend([ids] if isinstance(ids, str) else map(str, ids))
        if not given and not named:
            return
        asked = list(dict.fromkeys([*given, *named]))
        stored: set[str] = set()
        # The owner's limits, not this handle's (a low cypher_max_rows of its own would fail
        # the look-up): without this handle's Config.
        for start in range(0, len(asked), 1000):
            rows = self.store.call(
                "cypher",
                ("UNWIND $ids AS i MATCH (m:Memory {id: i}) RETURN m.id AS id",),
                {"params": {"ids": asked[start : start + 1000]}},
                read_only=True,
            )
            stored.update(r["id"] for r in rows)
        clash = len(set(given)) < len(given) or bool(stored & set(given))
        # A supersedes id the store does not hold: only the planner knows whether an earlier
        # item gives it.
        if not clash and not set(named) - stored:
            return
        plan = {k: v for k, v in options.items() if k != "dry_run"}
        try:
            self.store.call(
                "remember_many",
                (items,),
                {**plan, "batch_size": batch_size, "dry_run": True},
                config=self._config_fields,
            )
        except GraphMemError as exc:  # the owner refuses a body past its limit (413)
            if "too large" not in str(exc).lower():
                raise
            raise ValidationError(
                "remember_many: items give ids that may clash with stored ones or each other, "
                "and the call is too large to check whole before writing through the store's "
                "owner; send it in smaller calls."
            ) from None

    def to_networkx(self, **options: Any) -> Any:
        """The memory graph, built by the owner (see ``GraphMemory.to_networkx``)."""
        import networkx as nx

        data = self.graph_data(**options)
        return nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")

    # The calls: each sends its arguments as given (``invoke``); the owner checks them.
    def remember(self, *args: Any, **kwargs: Any) -> RememberResult:
        return cast("RememberResult", self.invoke("remember", args, kwargs))

    def remember_many(self, *args: Any, **kwargs: Any) -> RememberBatch:
        return cast("RememberBatch", self.invoke("remember_many", args, kwargs))

    def update(self, *args: Any, **kwargs: Any) -> Memory:
        return cast("Memory", self.invoke("update", args, kwargs))

    def forget(self, *args: Any, **kwargs: Any) -> None:
        self.invoke("forget", args, kwargs)

    def restore(self, *args: Any, **kwargs: Any) -> Memory:
        return cast("Memory", self.invoke("restore", args, kwargs))

    def link(self, *args: Any, **kwargs: Any) -> Link:
        return cast("Link", self.invoke("link", args, kwargs))

    def unlink(self, *args: Any, **kwargs: Any) -> int:
        return cast("int", self.invoke("unlink", args, kwargs))

    def tag(self, *args: Any, **kwargs: Any) -> Memory:
        return cast("Memory", self.invoke("tag", args, kwargs))

    def untag(self, *args: Any, **kwargs: Any) -> Memory:
        return cast("Memory", self.invoke("untag", args, kwargs))

    def feedback(self, *args: Any, **kwargs: Any) -> None:
        self.invoke("feedback", args, kwargs)

    def rebuild_clusters(self, *args: Any, **kwargs: Any) -> list[Cluster]:
        return cast("list[Cluster]", self.invoke("rebuild_clusters", args, kwargs))

    def maintain(self, *args: Any, **kwargs: Any) -> MaintainReport:
        return cast("MaintainReport", self.invoke("maintain", args, kwargs))

    def get(self, *args: Any, **kwargs: Any) -> Memory:
        return cast("Memory", self.invoke("get", args, kwargs))

    def search(self, *args: Any, **kwargs: Any) -> list[Hit]:
        return cast("list[Hit]", self.invoke("search", args, kwargs))

    def memories(self, *args: Any, **kwargs: Any) -> list[Memory]:
        return cast("list[Memory]", self.invoke("memories", args, kwargs))

    def tags(self, *args: Any, **kwargs: Any) -> list[Tag]:
        return cast("list[Tag]", self.invoke("tags", args, kwargs))

    def neighbors(self, *args: Any, **kwargs: Any) -> list[Memory]:
        return cast("list[Memory]", self.invoke("neighbors", args, kwargs))

    def history(self, *args: Any, **kwargs: Any) -> list[Memory]:
        return cast("list[Memory]", self.invoke("history", args, kwargs))

    def stats(self, *args: Any, **kwargs: Any) -> Stats:
        return cast("Stats", self.invoke("stats", args, kwargs))

    def cypher(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", self.invoke("cypher", args, kwargs))

    def recall(self, *args: Any, **kwargs: Any) -> RecallResult:
        return cast("RecallResult", self.invoke("recall", args, kwargs))

    def flush(self, *args: Any, **kwargs: Any) -> None:
        self.invoke("flush", args, kwargs)

    def gaps(self, *args: Any, **kwargs: Any) -> list[Gap]:
        return cast("list[Gap]", self.invoke("gaps", args, kwargs))

    def clusters(self, *args: Any, **kwargs: Any) -> list[Cluster]:
        return cast("list[Cluster]", self.invoke("clusters", args, kwargs))

    def schema(self, *args: Any, **kwargs: Any) -> dict[str, list[dict[str, Any]]]:
        return cast("dict[str, list[dict[str, Any]]]", self.invoke("schema", args, kwargs))

    def graph_data(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return cast("dict[str, Any]", self.invoke("graph_data", args, kwargs))

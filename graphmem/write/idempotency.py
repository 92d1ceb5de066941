"""Exactly-once writes from clients: every write a client sends carries a request id.

A client (``graphmem.remote.client``) whose owner dies while a ``remember`` is in flight cannot tell
whether the owner stored it: the owner may have died after journalling the write and before
answering. The client retries (the next owner replays the journal first), and without a way to
recognise the retry a ``dedupe=False`` memory was stored twice, and a ``remember`` with a
caller-given ``id`` failed with "already exists" although it was stored.

So each logical write call gets one id (``new_id``) on the client, sent with the request and
sent again, unchanged and marked as a retry, by the automatic retry. The owner stores the id
and the call's outcomes (the memory ids and actions) *with the write itself*: in the journal
record (``write.Batch.request``) and in the database's ``Request`` table in the same
transaction as the memories. Before it writes, the owner looks the id up (among its own
requests in memory; for a retry, in the database too, where a previous owner's are, its
journal replayed); a retry of a write that was applied gets the original outcomes back, and
nothing is written again. A first attempt costs no lookup in the database, and opening a
store reads nothing but the last request's number.

A ``remember_many`` sent in several requests (one per batch) gives each batch its own key
(``chunk_key``): a retry resumes at the batch that was in flight. Only ``remember`` and
``remember_many`` are looked up and retried by themselves; the other writes carry their id
too, but a client whose owner died during one raises ``OwnerGone`` (it may have been applied).

What is kept: the last ``KEEP`` request keys (a count, not an age). A retry is sent at once,
as soon as the next owner answers (within the client's open timeout, 20 s by default), so it
needs only the keys of the calls in flight when the owner died plus the writes the next
owner took meanwhile; ``KEEP`` is far above that, and bounds the table and the owner's memory
to a few MB (each key holds a few ids) whatever the write rate. A count, rather than an age,
also keeps the bound when the clock jumps or a store is written in bursts.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..errors import ValidationError
from ..timeutil import now

if TYPE_CHECKING:
    from ..storage.store import Store

# How many request keys the owner remembers (see the module docstring).
KEEP = 10_000
# The database's rows past ``KEEP`` are deleted once every this many requests (one scan).
PRUNE_EVERY = 512
# The id of the client call being served (in the owner), or being retried (in the client).
REQUEST: ContextVar[str | None] = ContextVar("graphmem_request", default=None)
# True while that call is a retry (it may have been applied by an owner that died).
RETRY: ContextVar[bool] = ContextVar("graphmem_retry", default=False)
_VALID = re.compile(r"[A-Za-z0-9_.:#-]{1,128}")
# Tests set this to a point's name to make the owner kill itself (SIGKILL) there, while it
# serves a client's write: the moment a real crash would be hardest on the client.
CRASH_ENV = "GRAPHMEM_TEST_CRASH_AT"

_T = TypeVar("_T")


def new_id() -> str:
    """A fresh request id (one per logical call; its retry reuses it)."""
    return uuid.uuid4().hex


def chunk_key(request_id: str, index: int) -> str:
    """The key of batch ``index`` of one call: the id itself for the first batch, so a
    one-batch call sent whole and a retry that resumes at that batch use the same key."""
    return request_id if index == 0 else f"{request_id}#{index}"


def check_id(value: Any) -> str:
    """A request id received from a client.

    Raises:
        ValidationError: not a short string of safe characters.
    """
    if not isinstance(value, str) or not _VALID.fullmatch(value):
        raise ValidationError("request_id must be 1-128 letters, digits or '_.:#-'")
    return value


@contextlib.contextmanager
def serving(request_id: str | None, *, retry: bool = False) -> Iterator[None]:
    """Run the enclosed call as request ``request_id`` (None: a call with no id); ``retry``:
    it was sent before, to an owner that may have applied it."""
    token, retry_token = REQUEST.set(request_id), RETRY.set(retry and request_id is not None)
    try:
        yield
    finally:
        RETRY.reset(retry_token)
        REQUEST.reset(token)


def run_as(request_id: str | None, retry: bool, fn: Callable[[], _T]) -> _T:
    """``fn()`` run as request ``request_id`` (for a worker thread)."""
    with serving(request_id, retry=retry):
        return fn()


def crash_point(name: str) -> None:
    """Test hook: die here (SIGKILL, as ``kill -9``) when ``GRAPHMEM_TEST_CRASH_AT`` names
    this point and a client's request is being served. Never set outside tests."""
    if REQUEST.get() is not None and os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


class Outcome(Protocol):
    """What the log keeps of a planned item (``planner.Outcome``; a Protocol here because the
    planner imports this module)."""

    id: str
    action: str
    superseded: list[str]
    contradicts: list[str]
    related: list[str]
    reason: str | None


def _outcome_dict(o: Outcome) -> dict[str, Any]:
    return {
        "id": o.id,
        "action": o.action,
        "superseded": list(o.superseded),
        "contradicts": list(o.contradicts),
        "related": list(o.related),
        "reason": o.reason,
    }


class RequestLog:
    """The owner's record of the request keys it (or an earlier owner) applied.

    In memory: the last ``KEEP`` keys this owner applied, and those a retry asked the
    database for (``fetch``: the keys of earlier owners, the journal's replayed ones
    included). Callers hold the store's shared lock around ``get`` … ``add``, so a retry that
    arrives while its original is still being written waits for it and then finds it.
    """

    def __init__(self) -> None:
        self._done: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._n = 0  # the order of the last key (the database's ``Request.n``)
        # ``fetch`` runs outside the shared lock (its read may apply the journal first).
        self._lock = threading.Lock()

    @classmethod
    def load(cls, store: Store) -> RequestLog:
        """The log of an opened store: only the last request's number is read (keys are
        looked up when a retry asks for them)."""
        log = cls()
        rows = store.engine.rows("MATCH (r:Request) RETURN max(r.n) AS n")
        log._n = int(rows[0]["n"] or 0) if rows else 0
        return log

    def fetch(self, store: Store, keys: list[str]) -> None:
        """Read from the database which of ``keys`` were applied (before a retry is planned;
        the read applies the journal first, so every durable key is there)."""
        missing = [k for k in keys if k not in self._done]
        if not missing:
            return
        rows = store.engine.rows(
            "UNWIND $keys AS k MATCH (r:Request {id: k}) RETURN r.id AS id, r.outcomes AS o",
            {"keys": missing},
        )
        with self._lock:
            for row in rows:
                self._done.setdefault(row["id"], json.loads(row["o"] or "[]"))

    def __len__(self) -> int:
        return len(self._done)

    def get(self, key: str) -> list[dict[str, Any]] | None:
        """The outcomes of request ``key`` when it was applied, else None."""
        return self._done.get(key)

    def attach(
        self, key: str, outcomes: Sequence[Outcome]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The request row for ``key`` with its outcomes, to store with the batch that applies
        them (``Batch.request``: ``write.apply`` writes it in the batch's transaction; the
        journal keeps it with the batch), and the outcomes as kept. Call ``add`` once the
        batch is durable."""
        done = [_outcome_dict(o) for o in outcomes]
        self._n += 1
        return {"id": key, "n": self._n, "at": now(), "outcomes": json.dumps(done)}, done

    def add(self, key: str, done: list[dict[str, Any]]) -> None:
        """Request ``key`` is durable (journalled or committed)."""
        with self._lock:
            self._done[key] = done
            while len(self._done) > KEEP:
                self._done.popitem(last=False)


def store_request(store: Store, request: dict[str, Any]) -> None:
    """Write a batch's request row (inside the batch's transaction); now and then delete the
    rows past the last ``KEEP``."""
    store.engine.execute(
        "MERGE (r:Request {id: $id}) SET r.n = $n, r.at = $at, r.outcomes = $outcomes",
        {k: request[k] for k in ("id", "n", "at", "outcomes")},
    )
    n = int(request["n"])
    if n % PRUNE_EVERY == 0 and n > KEEP:
        store.engine.execute("MATCH (r:Request) WHERE r.n <= $floor DELETE r", {"floor": n - KEEP})

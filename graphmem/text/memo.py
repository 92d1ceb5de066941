"""A cache of what was read from texts, bounded by how much it holds rather than by entries.

``functools.lru_cache`` bounds the number of entries, and an entry keyed by a caller's text holds
that text and everything read from it: 65,536 layouts of 20,000-character questions are
gigabytes. ``Memo`` weighs each entry (the characters of its key's strings, what ``weigh`` says
the result holds, and ``OVERHEAD`` for the entry itself), keeps at most ``budget`` of weight,
least recently used out first, and keeps no entry heavier than ``item_max``: such a call is
computed afresh each time, as if uncached. What the memos here hold costs at most about 25
bytes per unit of weight as they weigh it (a layout of two-letter words; the conflict check's
tokens count 16 each for the objects they are), so a budget of a million is ~25 MB.
The eviction is ``cachetools.LRUCache`` sized by weight; this module adds the weighing (of the
key as well as the result), the refusal of heavy entries, and the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from functools import update_wrapper
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar

from cachetools import LRUCache

P = ParamSpec("P")
R = TypeVar("R")

# The weight of an entry beyond its strings: the key tuple, the result object, the links.
OVERHEAD = 64


class MemoInfo(NamedTuple):
    hits: int
    misses: int
    currsize: int  # entries held
    weight: int  # their weight


def key_chars(args: tuple[Any, ...]) -> int:
    """The characters of the strings among the arguments (and in tuples among them)."""
    n = 0
    for a in args:
        if isinstance(a, str):
            n += len(a)
        elif isinstance(a, tuple):
            n += sum(len(x) if isinstance(x, str) else 1 for x in a)
    return n


class Memo(Generic[P, R]):
    """``fn`` with its results kept for the same arguments, bounded by weight."""

    def __init__(
        self,
        fn: Callable[P, R],
        budget: int,
        item_max: int,
        weigh: Callable[[R], int] | None = None,
    ) -> None:
        if item_max + OVERHEAD > budget:
            raise ValueError(f"a Memo of budget {budget} cannot hold an entry of {item_max}")
        self.fn = fn
        self.budget = budget
        self.item_max = item_max
        self.weigh = weigh
        self._held: LRUCache[Hashable, tuple[R, int]] = LRUCache(budget, getsizeof=_weight_of)
        self._hits = self._misses = 0
        self._lock = threading.Lock()
        update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        chars = key_chars(args) + key_chars(tuple(kwargs.values()))
        if chars > self.item_max:
            return self.fn(*args, **kwargs)  # too big to keep: not even looked up
        key: Hashable = (args, tuple(kwargs.items())) if kwargs else args
        with self._lock:
            found = self._held.get(key)  # a hit counts as a use: it moves to the end
            if found is not None:
                self._hits += 1
                return found[0]
            self._misses += 1
        result = self.fn(*args, **kwargs)
        weight = chars + (self.weigh(result) if self.weigh else 0)
        if weight > self.item_max:
            return result
        weight += OVERHEAD
        with self._lock:
            self._held[key] = (result, weight)  # evicts the least recently used to fit
        return result

    def cache_info(self) -> MemoInfo:
        with self._lock:
            return MemoInfo(self._hits, self._misses, len(self._held), int(self._held.currsize))

    def cache_clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._hits = self._misses = 0


def _weight_of(entry: tuple[Any, int]) -> int:
    return entry[1]


def memo(
    budget: int, item_max: int, weigh: Callable[[Any], int] | None = None
) -> Callable[[Callable[P, R]], Memo[P, R]]:
    """Decorate a function of texts with a ``Memo`` (``weigh``: of its result)."""

    def wrap(fn: Callable[P, R]) -> Memo[P, R]:
        return Memo(fn, budget, item_max, weigh)

    return wrap

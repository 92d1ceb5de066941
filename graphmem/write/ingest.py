"""How ``remember_many`` feeds the write path: the vectors of its items, chunk by chunk.

A text already stored, or in the chunk before (the same content hash), is not embedded again
(a text that only reinforced another memory two chunks back is). The next chunk is embedded in a thread while the caller writes the current one:
onnxruntime releases the GIL, and the write is mostly Kùzu, faiss and numpy, so an ingest takes
about the longer of the two instead of their sum (bench/ingest.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..index.mirror import Mirror
    from .items import Item

Vectors = list[np.ndarray | None]
# (vectors known so far, rows of each content hash still to embed)
Known = tuple[Vectors, dict[str, list[int]]]
Lookup = Callable[[Sequence["Item"], dict[str, np.ndarray]], Known]
Embed = Callable[[Sequence[str]], np.ndarray]


def known_vectors(mirror: Mirror, items: Sequence[Item], known: dict[str, np.ndarray]) -> Known:
    """The vectors of items whose text is stored already or in ``known`` (by content hash),
    and the rows of each text still to embed. The caller holds the mirror's lock."""
    vectors: Vectors = [None] * len(items)
    todo: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        if item.embedding is not None:  # the caller's own (checked against the store)
            vectors[i] = item.embedding
            continue
        stored = mirror.by_hash.get(item.content_hash)
        slot = mirror.slot.get(next(iter(stored))) if stored else None
        if slot is not None:
            vectors[i] = mirror.vectors[slot].copy()
        elif item.content_hash in known:
            vectors[i] = known[item.content_hash]
        else:
            todo.setdefault(item.content_hash, []).append(i)
    return vectors, todo


def embed_items(items: Sequence[Item], lookup: Lookup, embed: Embed) -> np.ndarray:
    """The items' vectors, embedding only the texts ``lookup`` does not know."""
    vectors, todo = lookup(items, {})
    return filled(vectors, todo, embed(_texts(items, todo)) if todo else None)


def embedded_chunks(
    chunks: list[list[Item]], lookup: Lookup, embed: Embed
) -> Iterator[tuple[list[Item], np.ndarray]]:
    """Each chunk with its vectors, the next one embedded while the caller writes this one."""
    if len(chunks) == 1:
        yield chunks[0], embed_items(chunks[0], lookup, embed)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="graphmem-embed") as pool:

        def start(
            chunk: list[Item], known: dict[str, np.ndarray]
        ) -> tuple[Vectors, dict[str, list[int]], Future[np.ndarray] | None]:
            # Looked up before the previous chunk is written: its texts come from ``known``.
            vectors, todo = lookup(chunk, known)
            return vectors, todo, pool.submit(embed, _texts(chunk, todo)) if todo else None

        pending = start(chunks[0], {})
        for i, chunk in enumerate(chunks):
            vectors, todo, future = pending
            done = filled(vectors, todo, future.result() if future else None)
            if i + 1 < len(chunks):
                known = {item.content_hash: done[j] for j, item in enumerate(chunk)}
                pending = start(chunks[i + 1], known)
            yield chunk, done


def filled(vectors: Vectors, todo: dict[str, list[int]], fresh: np.ndarray | None) -> np.ndarray:
    """The items' vectors: the known ones, and each embedded text's vector in all its rows."""
    if fresh is not None:
        for vec, rows in zip(fresh, todo.values(), strict=True):
            for i in rows:
                vectors[i] = vec
    return np.stack(vectors).astype(np.float32, copy=False)  # type: ignore[arg-type]


def _texts(items: Sequence[Item], todo: dict[str, list[int]]) -> list[str]:
    return [items[rows[0]].content for rows in todo.values()]

"""An in-memory cache bounded in bytes, for things an env builds once and many sessions share.

``functools.lru_cache(16)`` bounds a cache by its number of entries, which says nothing about
memory when one entry is a 2 MB world and another a 500 MB one. :class:`ByteCache` bounds the
sum of its entries' sizes (as the caller measures them) and evicts the least recently used
first. It is thread-safe, and concurrent calls for one key build it once (the env server runs
env calls in a thread pool, where two sessions of one world often start together). An entry
larger than the whole budget is built and returned but not kept.

>>> cache = ByteCache(max_bytes=10, size_of=len)
>>> cache.get("a", lambda: "x" * 6), cache.get("b", lambda: "y" * 6)
('xxxxxx', 'yyyyyy')
>>> cache.keys(), cache.bytes  # "a" was evicted to keep 6 + 6 under 10
(['b'], 6)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["ByteCache"]

V = TypeVar("V")


class ByteCache(Generic[V]):
    """A least-recently-used cache whose entries' sizes sum to at most ``max_bytes``.

    Args:
        max_bytes: the budget; ``size_of(value)`` of the kept values never sums above it.
        size_of: an entry's size in bytes (an estimate is fine; it is measured once, when
            the entry is built).
    """

    def __init__(self, max_bytes: int, size_of: Callable[[V], int]) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self.size_of = size_of
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._building: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.builds = 0

    def get(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value for ``key``, built by ``build()`` unless cached (or being built)."""
        while True:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    return self._entries[key][0]
                pending = self._building.get(key)
                if pending is None:
                    done = self._building[key] = threading.Event()
                    break
            pending.wait()  # another thread builds it; then look again (it may not fit)
        try:
            value = build()
            size = int(self.size_of(value))
            with self._lock:
                self.builds += 1
                if size <= self.max_bytes:
                    self._entries[key] = (value, size)
                    self.bytes += size
                    while self.bytes > self.max_bytes:
                        _, (_, old) = self._entries.popitem(last=False)
                        self.bytes -= old
            return value
        finally:
            with self._lock:
                del self._building[key]
            done.set()

    def keys(self) -> list[Hashable]:
        """The cached keys, least recently used first."""
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()
            self.bytes = 0

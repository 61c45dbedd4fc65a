"""A pool of warm sandboxes for one (image, limits, workdir): ``start`` takes a ready one.

A cold container start (create, start, seed the workspace, start the runner) costs a few
hundred milliseconds; taking a warm one costs a health check (one runner round trip). A
background thread keeps ``size`` sandboxes ready and refills after every take.

>>> import itertools
>>> counter = itertools.count()
>>> class Box:
...     def __init__(self): self.n, self.closed = next(counter), False
...     def ping(self): return True
...     def close(self, wait=True): self.closed = True
>>> pool = WarmPool(Box, size=1)
>>> box = pool.take()
>>> pool.close(); box.closed
False
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

__all__ = ["Poolable", "WarmPool"]

log = logging.getLogger(__name__)


class Poolable(Protocol):
    """What a pooled sandbox needs: a health check, and a close that need not wait."""

    def ping(self) -> bool: ...

    def close(self, wait: bool = True) -> None: ...


BoxT = TypeVar("BoxT", bound=Poolable)


class WarmPool(Generic[BoxT]):
    """Keeps ``size`` sandboxes made by ``factory`` ready; ``take`` returns one.

    A sandbox made by ``factory`` must have ``ping() -> bool`` and ``close(wait=...)``. When
    none is ready, ``take`` makes one in the caller's thread (a cold start) rather than wait
    for the refill thread. ``close`` stops the refill and closes the sandboxes still waiting;
    taken sandboxes belong to whoever took them.
    """

    def __init__(self, factory: Callable[[], BoxT], *, size: int = 2) -> None:
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"pool size must be an int >= 1, got {size!r}")
        self._factory = factory
        self.size = size
        self._ready: list[BoxT] = []
        self._cond = threading.Condition()
        self._closed = False
        self._failures = 0
        self.cold_starts = 0
        self.warm_takes = 0
        self._thread = threading.Thread(target=self._refill, name="agentgym-warm-pool",
                                        daemon=True)
        self._thread.start()

    def take(self) -> BoxT:
        """A ready sandbox (warm when the pool has one, else started now)."""
        while True:
            with self._cond:
                if self._closed:
                    raise RuntimeError("the warm pool is closed")
                box = self._ready.pop(0) if self._ready else None
                self._cond.notify_all()
            if box is None:
                self.cold_starts += 1
                return self._factory()
            if box.ping():
                self.warm_takes += 1
                return box
            box.close(wait=False)  # died while waiting (e.g. the daemon restarted it)

    def ready(self) -> int:
        """How many sandboxes are waiting now."""
        with self._cond:
            return len(self._ready)

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until the pool is full (benchmarks and tests use it); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self._ready) >= self.size or self._closed,
                                       timeout)

    def _refill(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or len(self._ready) < self.size)
                if self._closed:
                    return
            try:
                box = self._factory()
                self._failures = 0
            except Exception as exc:  # a failed start must not kill the refill thread
                self._failures += 1
                log.warning("warm pool: could not start a sandbox: %s", exc)
                with self._cond:
                    # Back off so a missing image does not spin; take() still starts cold.
                    self._cond.wait(timeout=min(30.0, 0.5 * 2 ** self._failures))
                continue
            with self._cond:
                if not self._closed:
                    self._ready.append(box)
                    self._cond.notify_all()
                    continue
            box.close()
            return

    def close(self, wait: bool = True) -> None:
        """Stop refilling and close every waiting sandbox (idempotent). ``wait=False`` does
        not wait for a start in progress (the refill thread closes that one itself)."""
        with self._cond:
            self._closed = True
            boxes, self._ready = self._ready, []
            self._cond.notify_all()
        for box in boxes:
            box.close(wait=False)
        if wait:
            self._thread.join(timeout=120)

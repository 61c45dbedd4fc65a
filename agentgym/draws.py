"""Random draws whose values are the same on every machine and NumPy version.

NumPy keeps a bit generator's raw output stable (PCG64 gives the same 64-bit words for a
seed everywhere), but not the streams of ``Generator.permutation``, ``permuted``,
``choice``, ``integers`` or ``shuffle``, whose algorithms may change between releases. Every
family draws through this module, which reads only the raw words, so a seed means one
episode forever (the golden tests in ``tests/test_golden.py`` would catch a drift).

Two forms:

* :class:`Draws` reads the words a batch at a time, for generators that draw many numbers in
  one call (a level, a puzzle, a product). It is made, used and dropped inside that call:
  its buffer is not part of a snapshot.
* :func:`below` and :func:`pick` read one word each, for draws during play (an opponent's
  move), so the generator state a snapshot stores is all there is.

>>> import numpy as np
>>> draws = Draws(np.random.default_rng(7))
>>> draws.below(10), draws.below(10)
(3, 5)
>>> below(np.random.default_rng(7), 6)
3
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

import numpy as np

__all__ = ["Draws", "below", "pick"]

T = TypeVar("T")

_TO_UNIT = 1.0 / (1 << 53)


def below(rng: np.random.Generator, n: int) -> int:
    """A uniform int in ``[0, n)`` from one raw 64-bit word (bias below ``n / 2**64``)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return int(rng.bit_generator.random_raw()) % n


def pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    """One item of ``items``, uniformly, from one raw word."""
    return items[below(rng, len(items))]


class Draws:
    """Uniform random bytes and numbers from a generator's raw output, drawn in batches.

    One numpy call per random number would cost more than the rest of a small level's
    generation (the Sokoban generation benchmark), so raw 64-bit words are drawn a batch at a
    time and read as little-endian bytes (the same on every platform). Iterating over bytes
    yields Python's cached small ints, which allocates nothing.
    """

    __slots__ = ("_buf", "_next", "_raw")

    def __init__(self, rng: np.random.Generator) -> None:
        self._raw = rng.bit_generator.random_raw
        self._buf = b""
        self._next = 0

    def take(self, k: int) -> bytes:
        """The next ``k`` random bytes."""
        start = self._next
        if start + k > len(self._buf):
            words = self._raw(max(32, (k + 7) // 8)).astype("<u8", copy=False)
            self._buf = self._buf[start:] + words.tobytes()
            start = 0
        self._next = start + k
        return self._buf[start : start + k]

    def below(self, n: int) -> int:
        """A uniform int in ``[0, n)`` (from 32 bits; the bias is below ``n / 2**32``)."""
        return int.from_bytes(self.take(4), "little") % n

    def random(self) -> float:
        """A uniform float in ``[0, 1)`` with 53 random bits.

        From a fresh generator, or whenever only whole words have been read, this equals
        what ``Generator.random()`` gives for PCG64 (both take the top 53 bits of a word).
        """
        return (int.from_bytes(self.take(8), "little") >> 11) * _TO_UNIT

    def pick(self, items: Sequence[T]) -> T:
        """One item of ``items``, uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``min(k, len(items))`` distinct items in draw order (a partial Fisher-Yates)."""
        pool = list(items)
        k = min(k, len(pool))
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

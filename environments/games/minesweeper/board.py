"""The Minesweeper board: neighbours, mine placement, the numbers, and the flood of a reveal.

Cells are flat indices ``i = row * cols + col`` (0-based). A set of cells is often an int
used as a bitmask (bit ``i`` for cell ``i``): the flood and the posterior counters then work
on whole sets with a few integer operations instead of a Python step per cell.

>>> counts = neighbour_counts(1, 4, [3])  # one mine, on the last cell
>>> counts
[0, 0, 1, 0]
>>> flood_reveal(1, 4, counts, [False] * 4, [False] * 4, 0)  # a 0 floods up to the 1
[0, 1, 2]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, compress, filterfalse, repeat

import numpy as np

from agentgym.draws import Draws

__all__ = [
    "bit_values",
    "cell_bits",
    "cells_of",
    "dilate",
    "flood_mask",
    "flood_reveal",
    "neighbour_counts",
    "neighbour_masks",
    "neighbours",
    "place_mines",
]

# Binary digits to byte values 0 and 1, for reading many cells off a mask at once.
_DIGIT_VALUES = bytes.maketrans(b"01", b"\x00\x01")


@lru_cache(maxsize=128)
def neighbours(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """The up-to-8 neighbours of every cell, ascending.

    >>> neighbours(2, 2)[0]
    (1, 2, 3)
    """
    table = []
    for r in range(rows):
        for c in range(cols):
            table.append(
                tuple(
                    rr * cols + cc
                    for rr in range(max(0, r - 1), min(rows, r + 2))
                    for cc in range(max(0, c - 1), min(cols, c + 2))
                    if (rr, cc) != (r, c)
                )
            )
    return tuple(table)


@lru_cache(maxsize=128)
def neighbour_masks(rows: int, cols: int) -> tuple[int, ...]:
    """The neighbours of every cell as a bitmask (bit ``j`` set for neighbour ``j``).

    >>> bin(neighbour_masks(2, 2)[0])
    '0b1110'
    """
    return tuple(sum(1 << j for j in cells) for cells in neighbours(rows, cols))


def place_mines(
    rows: int, cols: int, mines: int, first: int, rng: np.random.Generator
) -> list[int]:
    """Mine cells drawn from ``rng`` (through :mod:`agentgym.draws`, so a seed gives the same
    board on every machine), such that the first revealed cell is safe.

    The first cell's whole 3x3 neighbourhood is kept clear when enough cells remain (so the
    first reveal opens an area); otherwise only the first cell itself is.

    >>> cells = place_mines(5, 5, 5, 12, np.random.default_rng(0))
    >>> len(cells), any(c in (6, 7, 8, 11, 12, 13, 16, 17, 18) for c in cells)
    (5, False)
    """
    n = rows * cols
    if not 0 < mines < n:
        raise ValueError(f"mines must be in [1, {n - 1}] for a {rows}x{cols} board, got {mines}")
    excluded = {first, *neighbours(rows, cols)[first]}
    if n - len(excluded) < mines:
        excluded = {first}
    candidates = list(filterfalse(excluded.__contains__, range(n)))
    return sorted(Draws(rng).sample(candidates, mines))


def neighbour_counts(rows: int, cols: int, mine_cells: Sequence[int]) -> list[int]:
    """The number shown on each cell: mines among its neighbours (mine cells included).

    >>> neighbour_counts(1, 3, [0])
    [0, 1, 0]
    """
    table = neighbours(rows, cols)
    around = Counter(chain.from_iterable(map(table.__getitem__, mine_cells)))
    return list(map(around.get, range(rows * cols), repeat(0)))


@lru_cache(maxsize=16)
def cell_bits(n: int) -> tuple[int, ...]:
    """``1 << i`` for every cell ``i`` of an ``n``-cell board.

    >>> cell_bits(3)
    (1, 2, 4)
    """
    return tuple(1 << i for i in range(n))


def cells_of(mask: int) -> list[int]:
    """The cells (set bits) of ``mask``, ascending.

    >>> cells_of(0b10110)
    [1, 2, 4]
    """
    if mask.bit_count() > 12:
        # Many cells (a flood, a fresh board): read them off the binary digits without a
        # Python step per cell; this is on the reveal path of every step.
        digits = format(mask, "b")[::-1].encode().translate(_DIGIT_VALUES)
        return list(compress(range(len(digits)), digits))
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bit_values(mask: int) -> list[int]:
    """The set bits of ``mask`` as values (``1 << cell``), ascending.

    >>> bit_values(0b1010)
    [2, 8]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def flood_reveal(
    rows: int,
    cols: int,
    counts: Sequence[int],
    revealed: Sequence[bool],
    flags: Sequence[bool],
    start: int,
) -> list[int]:
    """Cells a reveal of the safe cell ``start`` opens: it, plus the flood through zeros.

    Already revealed and flagged cells are never included. The caller checks ``start`` is
    not a mine. (:func:`flood_mask` is the same on bitmasks.)

    >>> flood_reveal(1, 4, [0, 0, 1, 0], [False] * 4, [False] * 4, 0)
    [0, 1, 2]
    """
    n = rows * cols
    zeros = sum(1 << i for i in range(n) if counts[i] == 0)
    closed = sum(1 << i for i in range(n) if revealed[i] or flags[i])
    return cells_of(flood_mask(rows, cols, zeros, closed, start))


def flood_mask(rows: int, cols: int, zeros: int, closed: int, start: int) -> int:
    """:func:`flood_reveal` on bitmasks: ``zeros`` has a bit per cell showing 0, ``closed``
    per revealed or flagged cell; returns the opened cells as a mask.

    The flood grows a ring of neighbours at a time (a few shifts of the whole board), so
    its cost follows the flood's radius, not its area.

    >>> bin(flood_mask(1, 4, 0b1011, 0, 0))
    '0b111'
    """
    bit = 1 << start
    if closed & bit:
        return 0
    reachable = _column_masks(rows, cols)[2] & ~closed
    region = bit
    ring = bit & zeros
    while ring:
        grown = dilate(ring, rows, cols) & reachable & ~region
        region |= grown
        ring = grown & zeros
    return region


def dilate(cells: int, rows: int, cols: int) -> int:
    """``cells`` and all their neighbours, as a mask (a few shifts of the whole board).

    >>> bin(dilate(0b1, 1, 4))
    '0b11'
    """
    not_first, not_last, full = _column_masks(rows, cols)
    row = cells | (cells << 1 & not_first) | (cells >> 1 & not_last)
    return (row | row << cols | row >> cols) & full


@lru_cache(maxsize=128)
def _column_masks(rows: int, cols: int) -> tuple[int, int, int]:
    """Masks of the cells outside the first column, outside the last one, and of all."""
    first = sum(1 << (r * cols) for r in range(rows))
    full = (1 << (rows * cols)) - 1
    return full & ~first, full & ~(first << (cols - 1)), full

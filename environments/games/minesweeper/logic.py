"""Minesweeper maths: board generation, flood reveal and the exact mine posterior.

Cells are flat indices ``i = row * cols + col`` (0-based); a set of cells is often an int
used as a bitmask (bit ``i`` for cell ``i``), which keeps the hot loops to a few integer
operations. Everything here is a pure function of its arguments, so the oracle can be checked
without the env, except :class:`PosteriorSolver`, which keeps one board's frontier between
reveals so that a game pays only for what each reveal changed (:func:`mine_posterior` is a
one-shot use of it).

The posterior is exact Bayes under the only prior the game has: the mines are a uniformly
random set of ``mines`` cells among the hidden ones, conditioned on the revealed numbers.

>>> rows, cols = 1, 3
>>> # "1" revealed in the middle of a 1x3 strip: one mine, either side, 50/50.
>>> post = mine_posterior(rows, cols, 1, [False, True, False], [0, 1, 0])
>>> post.probs()
[0.5, None, 0.5]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, reduce
from itertools import chain, combinations, compress, filterfalse, repeat
from operator import or_

import numpy as np

# Work one frontier component may cost (backtracking assignments, or transitions of the
# state-merging count) before the oracle gives up on exactness and degrades. Typical boards
# need tens to hundreds; the hardest 16x16 boards seen in testing need ~100k transitions.
DEFAULT_POSTERIOR_BUDGET: int = 200_000
# Backtracking assignments tried per component before switching to the state-merging count.
_BACKTRACK_STAKE: int = 2_000
# Cell decisions, and layouts found, the bitmask listing may spend on one component before
# "auto" hands it to the class-level counters. Most components on 8x8-16x16 boards have
# 1-10 layouts, which listing finds fastest; many layouts mean big classes of
# interchangeable cells, which the class-level counters count without listing them.
_LIST_STAKE: int = 2_000
_LIST_LEAVES: int = 256
POSTERIOR_METHODS: tuple[str, ...] = ("auto", "bitmask", "backtrack", "transfer")
# Memoised component counts a solver keeps before it starts over (bounds its memory).
_CACHE_LIMIT: int = 4_096
# Binary digits to byte values 0 and 1, for reading many cells off a mask at once.
_DIGIT_VALUES = bytes.maketrans(b"01", b"\x00\x01")

__all__ = [
    "DEFAULT_POSTERIOR_BUDGET",
    "POSTERIOR_METHODS",
    "Posterior",
    "PosteriorSolver",
    "brute_force_posterior",
    "cell_bits",
    "cells_of",
    "flood_mask",
    "flood_reveal",
    "local_deduction",
    "mine_posterior",
    "neighbour_counts",
    "neighbour_masks",
    "neighbours",
    "place_mines",
]


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
    """Mine cells drawn from ``rng`` so that the first revealed cell is safe.

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
    chosen = rng.choice(len(candidates), size=mines, replace=False)
    return sorted(map(candidates.__getitem__, chosen.tolist()))


def neighbour_counts(rows: int, cols: int, mine_cells: Sequence[int]) -> list[int]:
    """The number shown on each cell: mines among its neighbours (mine cells included).

    >>> neighbour_counts(1, 3, [0])
    [0, 1, 0]
    """
    table = neighbours(rows, cols)
    around = Counter(chain.from_iterable(map(table.__getitem__, mine_cells)))
    return list(map(around.get, range(rows * cols), repeat(0)))


def cells_of(mask: int) -> list[int]:
    """The cells (set bits) of ``mask``, ascending.

    >>> cells_of(0b10110)
    [1, 2, 4]
    """
    if mask.bit_count() > 12:
        # Many cells: read them off the binary digits, without a Python step per cell.
        digits = format(mask, "b")[::-1].encode().translate(_DIGIT_VALUES)
        return list(compress(range(len(digits)), digits))
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@lru_cache(maxsize=4096)
def _combination_masks(cells: int, v: int) -> tuple[int, ...]:
    """Every way to pick ``v`` of the set bits of ``cells``, as masks."""
    return tuple(sum(c) for c in combinations(_bit_values(cells), v))


@lru_cache(maxsize=16)
def cell_bits(n: int) -> tuple[int, ...]:
    """``1 << i`` for every cell ``i`` of an ``n``-cell board.

    >>> cell_bits(3)
    (1, 2, 4)
    """
    return tuple(1 << i for i in range(n))


def _bit_values(mask: int) -> list[int]:
    """The set bits of ``mask`` as values (``1 << cell``), ascending."""
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
        grown = _dilate(ring, rows, cols) & reachable & ~region
        region |= grown
        ring = grown & zeros
    return region


def _dilate(cells: int, rows: int, cols: int) -> int:
    """``cells`` and all their neighbours, as a mask (a few shifts of the whole board)."""
    not_first, not_last, full = _column_masks(rows, cols)
    row = cells | (cells << 1 & not_first) | (cells >> 1 & not_last)
    return (row | row << cols | row >> cols) & full


@lru_cache(maxsize=128)
def _column_masks(rows: int, cols: int) -> tuple[int, int, int]:
    """Masks of the cells outside the first column, outside the last one, and of all."""
    first = sum(1 << (r * cols) for r in range(rows))
    full = (1 << (rows * cols)) - 1
    return full & ~first, full & ~(first << (cols - 1)), full


@dataclass(frozen=True)
class Posterior:
    """P(mine) for every cell as exact fractions over one common denominator.

    ``numerators[i]`` is ``None`` for revealed cells; ``P(mine at i) =
    numerators[i] / denominator``. ``degraded`` is True when the exact enumeration ran out of
    budget and the numbers come from local deduction (certain cells exact, the rest at the
    leftover mine density).

    >>> Posterior((1, None, 0), 2, False).probs()
    [0.5, None, 0.0]
    """

    numerators: tuple[int | None, ...]
    denominator: int
    degraded: bool

    def prob(self, cell: int) -> float | None:
        """P(mine) of one cell as a float (``None`` if revealed)."""
        num = self.numerators[cell]
        return None if num is None else num / self.denominator

    def probs(self) -> list[float | None]:
        """P(mine) of every cell as floats (``None`` for revealed cells)."""
        return [self.prob(i) for i in range(len(self.numerators))]

    def fraction(self, cell: int) -> Fraction | None:
        """P(mine) of one cell as an exact :class:`~fractions.Fraction`."""
        num = self.numerators[cell]
        return None if num is None else Fraction(num, self.denominator)


class _BudgetExceeded(Exception):
    pass


def _constraints(
    rows: int, cols: int, revealed: Sequence[bool], counts: Sequence[int]
) -> list[tuple[tuple[int, ...], int]]:
    """One (hidden neighbours, mines among them) pair per revealed cell touching hidden ones."""
    table = neighbours(rows, cols)
    out = []
    for i in range(rows * cols):
        if not revealed[i]:
            continue
        hidden = tuple(j for j in table[i] if not revealed[j])
        if hidden:
            need = counts[i]
            if need > len(hidden):
                raise ValueError(f"cell {i} shows {need} but has {len(hidden)} hidden neighbours")
            out.append((hidden, need))
        elif counts[i] != 0:
            raise ValueError(f"cell {i} shows {counts[i]} but has no hidden neighbours")
    return out


def _split_components(
    constraints: list[tuple[tuple[int, ...], int]],
) -> list[tuple[list[int], list[tuple[tuple[int, ...], int]]]]:
    """Frontier components: cells joined when they share a constraint, with their constraints.

    Cells are ordered constraint by constraint (breadth-first), which keeps cells that share a
    constraint next to each other in the search and lets propagation cut early.
    """
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cells, _ in constraints:
        for c in cells:
            parent.setdefault(c, c)
        root = find(cells[0])
        for c in cells[1:]:
            other = find(c)
            if other != root:
                parent[other] = root
    groups: dict[int, list[int]] = {}
    for ci, (cells, _) in enumerate(constraints):
        groups.setdefault(find(cells[0]), []).append(ci)

    comps = []
    for root in sorted(groups, key=lambda r: min(constraints[groups[r][0]][0])):
        cons_ids = groups[root]
        cell_cons: dict[int, list[int]] = {}
        for ci in cons_ids:
            for c in constraints[ci][0]:
                cell_cons.setdefault(c, []).append(ci)
        order: list[int] = []
        placed: set[int] = set()
        used: set[int] = set()
        queue = [cons_ids[0]]
        used.add(cons_ids[0])
        head = 0
        while head < len(queue):
            ci = queue[head]
            head += 1
            for c in constraints[ci][0]:
                if c not in placed:
                    placed.add(c)
                    order.append(c)
                for cj in cell_cons[c]:
                    if cj not in used:
                        used.add(cj)
                        queue.append(cj)
        comps.append((order, [constraints[ci] for ci in cons_ids]))
    return comps


@dataclass
class _Counts:
    """One component's layouts by mine count, and per class of interchangeable cells the
    layouts by mine count weighted by how many of them put a mine on one given cell of it."""

    cells: list[int]
    members: list[list[int]]
    layouts: list[int]
    per_class: list[list[int]]


def _cell_classes(
    cells: list[int], constraints: list[tuple[tuple[int, ...], int]]
) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Group cells lying in exactly the same constraints (they are interchangeable).

    A class of ``s`` cells holding ``v`` mines stands for ``C(s, v)`` layouts, and each of
    its cells is mined in ``C(s-1, v-1)`` of them, so both counters decide a mine count per
    class instead of a bit per cell. Returns ``(members, class_cons, cons_classes)``: local
    cell indexes per class, constraints per class, classes per constraint; classes follow the
    order of ``cells``.
    """
    sig: dict[int, list[int]] = {c: [] for c in cells}
    for ci, (cs, _) in enumerate(constraints):
        for c in cs:
            sig[c].append(ci)
    class_of: dict[tuple[int, ...], int] = {}
    members: list[list[int]] = []
    for i, c in enumerate(cells):
        key = tuple(sig[c])
        if key not in class_of:
            class_of[key] = len(members)
            members.append([])
        members[class_of[key]].append(i)
    class_cons = [list(key) for key in class_of]
    cons_classes: list[list[int]] = [[] for _ in constraints]
    for j, cons in enumerate(class_cons):
        for ci in cons:
            cons_classes[ci].append(j)
    return members, class_cons, cons_classes


def _count_backtracking(
    cells: list[int],
    constraints: list[tuple[tuple[int, ...], int]],
    max_mines: int,
    budget: int,
) -> _Counts:
    """Count a component's layouts by listing them: backtracking over cell classes.

    Propagation after every choice: a constraint with no mines left clears its classes, one
    with as many mines left as cells fills them, one with a single open class sets it. Fast
    when there are few layouts; raises :class:`_BudgetExceeded` past ``budget`` assignments.
    """
    n = len(cells)
    members, class_cons, cons_classes = _cell_classes(cells, constraints)
    m = len(members)
    size = [len(ms) for ms in members]
    need = [nd for _, nd in constraints]
    free = [len(cs) for cs, _ in constraints]
    open_classes = [len(cc) for cc in cons_classes]
    val = [-1] * m
    trail: list[int] = []
    layouts = [0] * (n + 1)
    # by_count[k][j]: allocated on the first layout with k mines; most counts never occur.
    by_count: list[list[int]] = [[] for _ in range(n + 1)]
    state = {"nodes": 0, "mines": 0}

    def set_class(j: int, v: int) -> bool:
        state["nodes"] += 1
        if state["nodes"] > budget:
            raise _BudgetExceeded
        val[j] = v
        trail.append(j)
        state["mines"] += v
        ok = state["mines"] <= max_mines
        s = size[j]
        for c in class_cons[j]:
            free[c] -= s
            need[c] -= v
            open_classes[c] -= 1
            if need[c] < 0 or need[c] > free[c]:
                ok = False
        return ok

    def undo(mark: int) -> None:
        while len(trail) > mark:
            j = trail.pop()
            v = val[j]
            s = size[j]
            state["mines"] -= v
            for c in class_cons[j]:
                free[c] += s
                need[c] += v
                open_classes[c] += 1
            val[j] = -1

    def propagate(stack: list[int]) -> bool:
        while stack:
            j = stack.pop()
            for c in class_cons[j]:
                if open_classes[c] == 0:
                    continue
                nd = need[c]
                full = nd == free[c]
                if nd != 0 and not full and open_classes[c] != 1:
                    continue
                for jj in cons_classes[c]:
                    if val[jj] < 0:
                        v = size[jj] if full else 0 if nd == 0 else nd
                        if v > size[jj] or not set_class(jj, v):
                            return False
                        stack.append(jj)
        return True

    def search(pos: int) -> None:
        while pos < m and val[pos] >= 0:
            pos += 1
        if pos == m:
            k = state["mines"]
            weight = 1
            for j in range(m):
                if 0 < val[j] < size[j]:
                    weight *= math.comb(size[j], val[j])
            layouts[k] += weight
            counts = by_count[k]
            if not counts:
                counts.extend([0] * m)
            for j in range(m):
                if val[j]:
                    # weight includes C(s, v), so this is the integer C(s-1, v-1) * rest.
                    counts[j] += weight * val[j] // size[j]
            return
        s = size[pos]
        hi = min(s, max_mines - state["mines"])
        lo = 0
        for c in class_cons[pos]:
            hi = min(hi, need[c])
            lo = max(lo, need[c] - (free[c] - s))
        for v in range(lo, hi + 1):
            mark = len(trail)
            if set_class(pos, v) and propagate([pos]):
                search(pos + 1)
            undo(mark)

    # Constraints that are already tight need no search.
    if propagate(list(range(m))):
        search(0)
    per_class = [[row[j] if row else 0 for row in by_count] for j in range(m)]
    return _Counts(cells, members, layouts, per_class)


def _count_transfer(
    cells: list[int],
    constraints: list[tuple[tuple[int, ...], int]],
    budget: int,
) -> _Counts:
    """Count a component's layouts without listing them: dynamic programming over classes.

    Classes are decided one at a time in a fixed order; after the first ``b`` of them all the
    rest depends on is how many mines each constraint cut by that boundary still needs, so
    partial layouts leaving the same needs are merged (a transfer-matrix count). A forward
    pass counts prefixes per state, a backward pass suffixes; every move joins the two.

    Counts by mine number are polynomials in ``x`` (coefficient ``k``: layouts with ``k``
    mines) packed into one Python int, ``width`` bits a coefficient, so adding ``v`` mines is
    a shift and joining a prefix to a suffix is one big-int product. No coefficient exceeds
    the component's ``2 ** len(cells)`` layouts, so slots never overflow. Polynomial in the
    frontier's width where backtracking is exponential in its length; raises
    :class:`_BudgetExceeded` past ``budget`` transitions.
    """
    members, class_cons, cons_classes = _cell_classes(cells, constraints)
    m = len(members)
    size = [len(ms) for ms in members]
    # active[b]: constraints cut by the boundary just before class b, in a fixed order.
    active: list[list[int]] = [[] for _ in range(m + 1)]
    for ci, cc in enumerate(cons_classes):
        for b in range(cc[0] + 1, cc[-1] + 1):
            active[b].append(ci)
    width = len(cells) + 1

    layers: list[dict[tuple[int, ...], int]] = [{(): 1}]
    moves: list[list[tuple[tuple[int, ...], int, tuple[int, ...]]]] = []
    nodes = 0
    for b in range(m):
        slot = {ci: t for t, ci in enumerate(active[b])}
        own = set(class_cons[b])
        s = size[b]
        # Where each need comes from (a slot of the state, or -1 when the constraint starts
        # here: its full count), and how many cells its classes after b leave for it.
        bounds = []
        for ci in class_cons[b]:
            room = sum(size[j] for j in cons_classes[ci] if j > b)
            bounds.append((slot.get(ci, -1), constraints[ci][1], room))
        template = [(slot.get(ci, -1), constraints[ci][1], ci in own) for ci in active[b + 1]]
        layer: dict[tuple[int, ...], int] = {}
        step: list[tuple[tuple[int, ...], int, tuple[int, ...]]] = []
        for state, poly in layers[b].items():
            lo, hi = 0, s
            for t, base, room in bounds:
                need = state[t] if t >= 0 else base
                hi = min(hi, need)
                lo = max(lo, need - room)
            for v in range(lo, hi + 1):
                nodes += 1
                if nodes > budget:
                    raise _BudgetExceeded
                key = tuple(
                    (state[t] if t >= 0 else base) - (v if dec else 0) for t, base, dec in template
                )
                layer[key] = layer.get(key, 0) + (poly << (v * width)) * math.comb(s, v)
                step.append((state, v, key))
        layers.append(layer)
        moves.append(step)

    later: dict[tuple[int, ...], int] = {(): 1} if () in layers[m] else {}
    class_polys = [0] * m
    for b in range(m - 1, -1, -1):
        s = size[b]
        here: dict[tuple[int, ...], int] = {}
        joined = 0
        for state, v, key in moves[b]:
            suffix = later.get(key)
            if suffix is None:
                continue  # a dead end: no completion satisfies every constraint
            here[state] = here.get(state, 0) + (suffix << (v * width)) * math.comb(s, v)
            if v:
                joined += ((layers[b][state] * suffix) << (v * width)) * math.comb(s - 1, v - 1)
        class_polys[b] = joined
        later = here

    mask = (1 << width) - 1

    def unpack(poly: int) -> list[int]:
        out = []
        while poly:
            out.append(poly & mask)
            poly >>= width
        return out or [0]

    layouts = unpack(layers[m].get((), 0))
    return _Counts(cells, members, layouts, [unpack(p) for p in class_polys])


def _count_component(
    cells: list[int],
    constraints: list[tuple[tuple[int, ...], int]],
    max_mines: int,
    budget: int,
    method: str,
) -> _Counts:
    if method == "backtrack":
        return _count_backtracking(cells, constraints, max_mines, budget)
    if method == "transfer":
        return _count_transfer(cells, constraints, budget)
    # Listing is quicker for the many components with a handful of layouts; counting by
    # states wins (by orders of magnitude) on long frontiers, so listing gets a small stake.
    try:
        return _count_backtracking(cells, constraints, max_mines, min(budget, _BACKTRACK_STAKE))
    except _BudgetExceeded:
        return _count_transfer(cells, constraints, budget)


# A constraint: (a revealed cell, the mask of its hidden neighbours, mines among them). The
# cell first, so constraints sort by it.
_Constraint = tuple[int, int, int]


class _Component:
    """One frontier component's consistent layouts, in the form the combination step reads.

    ``terms`` lists ``(k, layouts with k mines)`` for every ``k`` that has layouts and
    ``union`` has a bit for every cell mined in at least one layout (the other cells of
    ``cover`` are safe in all of them). ``layouts`` keeps the layouts themselves (bitmasks of
    mined cells) when they were listed, so the next state can extend them instead of starting
    over; ``None`` when a class-level counter made the counts, which come with the per-cell
    table :meth:`risky` (built from ``layouts`` on first use otherwise). Depends only on the
    component's constraints, so a solver reuses it while they stand.
    """

    __slots__ = ("_risky", "cover", "layouts", "terms", "union")

    def __init__(
        self,
        cover: int,
        terms: list[tuple[int, int]],
        layouts: list[int] | None,
        risky: dict[int, tuple[tuple[int, int], ...]] | None = None,
    ) -> None:
        self.cover = cover
        self.terms = terms
        self.layouts = layouts
        self._risky = risky
        union = 0
        for layout in layouts if layouts is not None else ():
            union |= layout
        for cell in risky or ():
            union |= 1 << cell
        self.union = union

    def risky(self) -> dict[int, tuple[tuple[int, int], ...]]:
        """Every cell mined in some layout -> its ``(k, layouts with k mines mining it)``."""
        if self._risky is None:
            mined: dict[int, dict[int, int]] = {}
            for layout in self.layouts or ():
                k = layout.bit_count()
                for cell in cells_of(layout):
                    per_k = mined.setdefault(cell, {})
                    per_k[k] = per_k.get(k, 0) + 1
            self._risky = {cell: tuple(sorted(mined[cell].items())) for cell in sorted(mined)}
        return self._risky

    def mined(self, cell: int, weights: dict[int, int]) -> int:
        """Sum of ``weights[k]`` over the layouts (with ``k`` mines) that mine ``cell``."""
        bit = 1 << cell
        if not self.union & bit:
            return 0
        layouts = self.layouts
        if layouts is not None and len(layouts) <= 32:
            return sum(weights[layout.bit_count()] for layout in layouts if layout & bit)
        return sum(x * weights[k] for k, x in self.risky()[cell])


def _list_layouts(
    constraints: list[_Constraint],
    cover: int,
    max_mines: int,
    budget: int,
    leaf_cap: int | None,
    seeds: Sequence[int] = (0,),
    fixed: int = 0,
) -> _Component:
    """Count a component's layouts by listing them, each layout a bitmask of mined cells.

    Propagation first (a constraint with no mines left clears its undecided cells, one with
    as many mines left as undecided cells fills them). Then, if some open constraint has
    cells no other open constraint sees, a branch on how many mines those cells hold (which
    of them is decided only when the layouts are written out, as they are interchangeable);
    otherwise a branch on one undecided cell of the first open constraint. A decision costs
    a few bit operations per constraint instead of the bookkeeping the class-level counters
    need, which wins on the usual components with a handful of layouts. Each of ``seeds``
    starts the search with the cells of ``fixed`` already decided (mined where the seed has a
    bit); ``constraints`` then need only be the ones the seeds do not already satisfy.
    Raises :class:`_BudgetExceeded` past ``budget`` decisions or ``leaf_cap`` layouts.
    """
    leaves: list[int] = []
    work = 0
    # Nodes: (mined cells, decided cells, open constraints, (cells, mines among them) left
    # to spread at the end, mines in those, cells decided since the constraints were last
    # checked, -1 for all).
    stack = [(seed, fixed, constraints, (), 0, -1) for seed in reversed(seeds)]
    while stack:
        mines, decided, active, spread, spread_mines, recent = stack.pop()
        while True:
            changed = 0
            still: list[_Constraint] = []
            for item in active:
                _, mask, need = item
                if not mask & recent:
                    # Nothing it sees was decided since it was last found open: still open.
                    still.append(item)
                    continue
                undecided = mask & ~decided
                left = need - (mask & mines).bit_count()
                if undecided:
                    free = undecided.bit_count()
                    if left == free:
                        mines |= undecided
                    elif 0 < left < free:
                        still.append(item)
                        continue
                    elif left:
                        break
                    decided |= undecided
                    work += free
                    changed |= undecided
                elif left:
                    break
            else:
                active = still
                if changed:
                    recent = changed
                    continue
                if mines.bit_count() + spread_mines > max_mines:
                    break
                if work > budget:
                    raise _BudgetExceeded
                if not active:
                    # Every undecided cell lies in some open constraint, so none is left.
                    if spread:
                        layouts = [mines]
                        for cells, v in spread:
                            if v == cells.bit_count():
                                layouts = [layout | cells for layout in layouts]
                            elif v:
                                picks = _combination_masks(cells, v)
                                layouts = [layout | p for layout in layouts for p in picks]
                        leaves += layouts
                    else:
                        leaves.append(mines)
                    if leaf_cap is not None and len(leaves) > leaf_cap:
                        raise _BudgetExceeded
                    break
                seen = twice = 0
                for item in active:
                    undecided = item[1] & ~decided
                    twice |= seen & undecided
                    seen |= undecided
                if seen & ~twice:
                    # A constraint whose undecided cells no other one sees takes its mines
                    # there in any of C(free, left) ways, whatever happens elsewhere: settle
                    # it now and write the ways out with the layouts.
                    still = []
                    for item in active:
                        undecided = item[1] & ~decided
                        if undecided & twice:
                            still.append(item)
                        else:
                            left = item[2] - (item[1] & mines).bit_count()
                            spread = (*spread, (undecided, left))
                            spread_mines += left
                            decided |= undecided
                            work += 1
                    if len(still) < len(active):
                        active = still
                        continue
                # Branch on a cell two constraints share (every open constraint has one now):
                # deciding it settles the most.
                undecided = active[0][1] & twice
                pick = undecided & -undecided
                work += 1
                stack.append((mines, decided | pick, active, spread, spread_mines, pick))
                stack.append((mines | pick, decided | pick, active, spread, spread_mines, pick))
            break
    return _tally(cover, leaves)


def _tally(cover: int, layouts: list[int]) -> _Component:
    """A :class:`_Component` from its listed layouts."""
    by_k: dict[int, int] = {}
    for layout in layouts:
        k = layout.bit_count()
        by_k[k] = by_k.get(k, 0) + 1
    return _Component(cover, sorted(by_k.items()), layouts)


def _count_masks(
    constraints: list[_Constraint], cover: int, max_mines: int, budget: int, method: str
) -> _Component:
    """Count one component from scratch with ``method`` (see :func:`mine_posterior`)."""
    # In ascending order of their revealed cell, however the game got here: the counters'
    # work (so where a budget runs out) depends on the order.
    constraints = sorted(constraints)
    # Below the class-level stake, "auto" leaves listing out, so a deliberately tiny budget
    # degrades exactly where it did before listing existed.
    if method == "bitmask" or (method == "auto" and budget >= _LIST_STAKE):
        try:
            if method == "bitmask":
                return _list_layouts(constraints, cover, max_mines, budget, None)
            return _list_layouts(
                constraints, cover, max_mines, min(budget, _LIST_STAKE), _LIST_LEAVES
            )
        except _BudgetExceeded:
            if method == "bitmask":
                raise
    # The class-level counters take cells and constraints as tuples, in breadth-first order.
    ((cells, cons),) = _split_components([(tuple(cells_of(m)), need) for _, m, need in constraints])
    counts = _count_component(cells, cons, max_mines, budget, method)
    risky = {}
    for j, members in enumerate(counts.members):
        pairs = tuple((k, x) for k, x in enumerate(counts.per_class[j]) if x)
        if pairs:
            for i in members:
                risky[cells[i]] = pairs
    terms = [(k, x) for k, x in enumerate(counts.layouts) if x]
    return _Component(cover, terms, None, dict(sorted(risky.items())))


def _group(constraints: list[_Constraint], hidden: int) -> list[list] | None:
    """Split constraints into components: ``[cover, sources, constraints]`` each.

    Masks are first cut down to the ``hidden`` cells (a constraint left with none is
    dropped; ``None`` if one of those still needed mines: the numbers contradict each
    other). ``sources`` has a bit per revealed cell whose constraint is in the component.
    Components grow from the first constraint left, a pass at a time; each one's constraints
    come out in the order they joined it, every one meeting those before it, so feeding a
    component back in after a few cells opened usually takes a single pass.
    """
    groups: list[list] = []
    rest: list[_Constraint] = []
    cover = sources = 0
    members: list[_Constraint] = []
    for item in constraints:
        mask = item[1]
        if mask & ~hidden:
            mask &= hidden
            if not mask:
                if item[2]:
                    return None
                continue
            item = (item[0], mask, item[2])
        if mask & cover or not cover:
            cover |= mask
            sources |= 1 << item[0]
            members.append(item)
        else:
            rest.append(item)
    while members:
        grew = True
        while grew and rest:
            grew = False
            left = []
            for item in rest:
                if item[1] & cover:
                    cover |= item[1]
                    sources |= 1 << item[0]
                    members.append(item)
                    grew = True
                else:
                    left.append(item)
            rest = left
        groups.append([cover, sources, members])
        if not rest:
            break
        first = rest[0]
        cover, sources, members = first[1], 1 << first[0], [first]
        rest = rest[1:]
    return groups


def _multiply(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Product of two sparse mine-count polynomials (``(k, coefficient)`` pairs)."""
    out: dict[int, int] = {}
    for i, x in a:
        for j, y in b:
            out[i + j] = out.get(i + j, 0) + x * y
    return sorted(out.items())


@lru_cache(maxsize=1024)
def _completions(unconstrained: int, mines: int) -> tuple[int, ...]:
    """``C(unconstrained, mines - k)`` for ``k`` in ``0..mines``: the ways the cells off the
    frontier take the mines a frontier layout with ``k`` mines leaves."""
    return tuple(
        math.comb(unconstrained, mines - k) if mines - k <= unconstrained else 0
        for k in range(mines + 1)
    )


class _Evaluation:
    """The posterior of one state, kept as counted components until a number is asked.

    The combination (``weights[j][k]``: the ways the other components and the unconstrained
    cells complete a layout of component ``j`` with ``k`` mines) runs on the first question
    that needs it; a settled cell, or one that no layout of its component mines, needs none.
    A cell's numerator is then a few multiplications, and the whole :class:`Posterior` is
    built only on request (then kept). ``post`` stands in for all of it when the posterior
    is degraded.
    """

    __slots__ = (
        "_low",
        "_post",
        "comps",
        "denominator",
        "expected",
        "hidden",
        "hidden_count",
        "mines",
        "safe_cells",
        "scale",
        "sure_mines",
        "weights",
    )

    def __init__(
        self,
        comps: list[_Component],
        hidden: int,
        hidden_count: int,
        mines: int,
        sure_mines: int = 0,
        safe_cells: int = 0,
        post: Posterior | None = None,
    ) -> None:
        self.comps = comps
        self.hidden = hidden
        self.hidden_count = hidden_count
        self.mines = mines
        self.sure_mines = sure_mines
        self.safe_cells = safe_cells & hidden
        self._post = post
        self._low: int | None = None
        self.weights: list[dict[int, int]] | None = None
        self.denominator = 0
        self.scale = 1
        self.expected: int | None = None
        if post is not None:
            self.denominator = post.denominator

    @property
    def degraded(self) -> bool:
        return self._post is not None and self._post.degraded

    def weigh(self) -> list[dict[int, int]]:
        """Combine the components (once): weights, denominator and the off-frontier share."""
        if self.weights is not None:
            return self.weights
        comps = self.comps
        sure = self.sure_mines.bit_count()
        # Settled cells are left out: their mines are taken off the total.
        mines = self.mines - sure
        unconstrained = (
            self.hidden_count
            - sure
            - self.safe_cells.bit_count()
            - sum(comp.cover.bit_count() for comp in comps)
        )
        if mines < 0 or unconstrained < 0:
            raise ValueError("no mine layout is consistent with the revealed numbers")
        completions = _completions(unconstrained, mines)
        if len(comps) == 1:
            total = comps[0].terms
            others = [[(0, 1)]]
        else:
            total = [(0, 1)]
            for comp in comps:
                total = _multiply(total, comp.terms)
            others = []
            for j in range(len(comps)):
                other = [(0, 1)]
                for i, comp in enumerate(comps):
                    if i != j:
                        other = _multiply(other, comp.terms)
                others.append(other)
        z = 0
        expected = 0
        for k, ways in total:
            if k <= mines:
                ways *= completions[k]
                z += ways
                # Mines left off the frontier, summed over layouts: spread evenly over them.
                expected += ways * (mines - k)
        if z == 0:
            raise ValueError("no mine layout is consistent with the revealed numbers")
        weights = []
        for comp, other in zip(comps, others, strict=True):
            w = {}
            for k, _ in comp.terms:
                w[k] = sum(o * completions[k + kk] for kk, o in other if k + kk <= mines)
            weights.append(w)
        self.scale = scale = unconstrained if unconstrained else 1
        self.denominator = z * scale
        self.expected = expected if unconstrained else None
        self.weights = weights
        return weights

    def safe(self, cell: int) -> bool:
        """Whether P(mine) of the hidden ``cell`` is 0."""
        if self._post is not None:
            return self._post.numerators[cell] == 0
        bit = 1 << cell
        if self.safe_cells & bit:
            return True
        for comp in self.comps:
            if comp.cover & bit and not comp.union & bit:
                return True  # no layout of its component mines it
        return self.numerator(cell) == 0

    def numerator(self, cell: int) -> int | None:
        if self._post is not None:
            return self._post.numerators[cell]
        bit = 1 << cell
        if not self.hidden & bit:
            return None
        if self.safe_cells & bit:
            return 0
        weights = self.weigh()
        if self.sure_mines & bit:
            return self.denominator
        for comp, w in zip(self.comps, weights, strict=True):
            if comp.cover & bit:
                return comp.mined(cell, w) * self.scale
        return self.expected

    def lowest(self) -> int | None:
        if self._low is None:
            if self._post is not None:
                nums = [x for x in self._post.numerators if x is not None]
                self._low = min(nums) if nums else None
                return self._low
            if self.safe_cells:
                self._low = 0
                return 0
            weights = self.weigh()
            low = self.expected
            if self.sure_mines and (low is None or self.denominator < low):
                low = self.denominator
            for comp, w in zip(self.comps, weights, strict=True):
                if comp.union != comp.cover:
                    self._low = 0  # a cell no layout mines
                    return 0
                for pairs in comp.risky().values():
                    num = sum(x * w[k] for k, x in pairs) * self.scale
                    if low is None or num < low:
                        low = num
            self._low = low
        return self._low

    def posterior(self, n: int) -> Posterior:
        if self._post is None:
            weights = self.weigh()
            hidden, expected = self.hidden, self.expected
            nums: list[int | None] = [expected if hidden >> i & 1 else None for i in range(n)]
            for c in cells_of(self.safe_cells):
                nums[c] = 0
            for c in cells_of(self.sure_mines):
                nums[c] = self.denominator
            scale = self.scale
            for comp, w in zip(self.comps, weights, strict=True):
                for c in cells_of(comp.cover):
                    nums[c] = 0
                for c, pairs in comp.risky().items():
                    nums[c] = sum(x * w[k] for k, x in pairs) * scale
            self._post = Posterior(tuple(nums), self.denominator, False)
        return self._post


class PosteriorSolver:
    """The exact mine posterior of one board, kept up to date as cells are revealed.

    ``counts`` are the board's numbers (read only for revealed cells), which must come from
    a real mine layout (:func:`mine_posterior` checks hand-made ones). Between questions the
    solver keeps the frontier split into components, each with its counted layouts, and
    works only on what a reveal changed:

    * components the opened cells do not touch keep their counts;
    * a touched one is counted again from its memo (a component's counts depend only on the
      hidden cells it covers and the revealed numbers over them, so they are memoised under
      that pair), or by extending the layouts of the components it grew from and checking
      only the new numbers, or else from scratch as :func:`mine_posterior` describes;
    * cells a component settles (safe, or a mine, in every one of its layouts) leave the
      frontier: their mines are taken off the numbers around them and off the total, so the
      components that remain are smaller (the counts, and so the posterior, are unchanged);
    * the components are combined at most once per state, and only when a question needs
      it: whether a cell is certainly safe is often known from its own component.

    Results are identical to :func:`mine_posterior` on the same revealed cells, which is
    this class used once. (The one exception is a component that exhausts ``budget``: a
    solver that has cut it down over several reveals may still count it exactly where a
    one-shot count degrades. The default budget leaves wide room on boards up to 16x16.)
    Flags are not knowledge: the solver never sees them.

    >>> solver = PosteriorSolver(1, 4, 1, neighbour_counts(1, 4, [3]))  # the mine is cell 3
    >>> solver.reveal([2])  # shows 1: cell 1 or cell 3, and no mine is left for cell 0
    >>> solver.posterior().probs()
    [0.0, 0.5, None, 0.5]
    >>> solver.reveal([1])  # shows 0: cell 1 was safe, so the mine is on cell 3
    >>> solver.cell(3), solver.cell(0), solver.safe(0), solver.lowest()
    ((1, 1, False), (0, 1, False), True, 0)
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        mines: int,
        counts: Sequence[int],
        budget: int = DEFAULT_POSTERIOR_BUDGET,
        *,
        method: str = "auto",
    ) -> None:
        if method not in POSTERIOR_METHODS:
            raise ValueError(f"method must be one of {POSTERIOR_METHODS}, got {method!r}")
        self.rows, self.cols, self.mines = rows, cols, mines
        self.budget, self.method = budget, method
        self._n = rows * cols
        self._nbr = neighbour_masks(rows, cols)
        self._bit = cell_bits(self._n)
        self._counts = list(counts)
        self._hidden = (1 << self._n) - 1
        self._hidden_count = self._n
        # Cells revealed since the components were last brought up to date.
        self._opened: list[int] = []
        self._opened_mask = 0
        self._groups: list[list] = []  # [cover, sources, constraints, component]
        # Settled cells, out of every component: mines in all layouts, and safe hidden ones.
        self._sure_mines = 0
        self._safe_cells = 0
        self._cache: dict[tuple[int, int], _Component | None] = {}
        self._inconsistent = False
        # Settling needs listed layouts, which the class-level counters (the only ones a
        # tiny budget or an explicit method allows) do not keep.
        self._incremental = method == "auto" and budget >= _LIST_STAKE
        self._eval: _Evaluation | None = None

    def reveal(self, cells: Iterable[int]) -> None:
        """Mark ``cells`` revealed (already revealed ones are ignored)."""
        cells = list(cells)
        bit = self._bit
        mask = reduce(or_, map(bit.__getitem__, cells), 0)
        new = mask & self._hidden
        if not new:
            return
        if new != mask or len(cells) != new.bit_count():
            # Some were revealed already, or repeated: keep each new cell once.
            cells = cells_of(new)
        self._hidden ^= new
        self._hidden_count -= len(cells)
        self._opened += cells
        self._opened_mask |= new
        self._eval = None

    def posterior(self) -> Posterior:
        """P(mine) of every cell (raises ``ValueError`` if no layout fits the numbers)."""
        return self._evaluate().posterior(self._n)

    def cell(self, cell: int) -> tuple[int | None, int, bool]:
        """``(numerator, denominator, degraded)`` of one cell's P(mine), as in
        :meth:`posterior`, without building the whole posterior."""
        ev = self._evaluate()
        num = ev.numerator(cell)
        if ev._post is None:
            ev.weigh()  # the denominator, even when the cell did not need it
        return num, ev.denominator, ev.degraded

    def safe(self, cell: int) -> bool:
        """Whether the hidden ``cell`` has P(mine) = 0, often answered without combining the
        components. Assumes the numbers are consistent, as a real board's are."""
        return self._evaluate().safe(cell)

    def degraded(self) -> bool:
        """Whether the posterior of this state fell back to :func:`local_deduction`."""
        return self._evaluate().degraded

    def lowest(self) -> int | None:
        """The smallest numerator over hidden cells (``None`` when no cell is hidden)."""
        return self._evaluate().lowest()

    def _evaluate(self) -> _Evaluation:
        if self._eval is None:
            self._eval = self._combine()
        return self._eval

    def _combine(self) -> _Evaluation:
        mines, hidden = self.mines, self._hidden
        if not 0 <= mines <= self._hidden_count:
            raise ValueError(f"{mines} mines cannot fit in {self._hidden_count} hidden cells")
        if self._opened:
            self._update()
        if self._inconsistent:
            raise ValueError("no mine layout is consistent with the revealed numbers")
        comps = [g[3] for g in self._groups]
        if None in comps:
            revealed = [not hidden >> i & 1 for i in range(self._n)]
            post = _degraded_posterior(self.rows, self.cols, mines, revealed, self._counts)
            return _Evaluation([], hidden, self._hidden_count, mines, post=post)
        return _Evaluation(
            comps,  # type: ignore[arg-type]  # no None left
            hidden,
            self._hidden_count,
            mines,
            self._sure_mines,
            self._safe_cells,
        )

    def _update(self) -> None:
        """Bring the components up to date with the cells opened since the last call."""
        opened, opened_mask = self._opened, self._opened_mask
        hidden, nbr, counts = self._hidden, self._nbr, self._counts
        self._opened, self._opened_mask = [], 0
        sure_mines = self._sure_mines
        if opened_mask & sure_mines:
            self._inconsistent = True  # a settled mine cannot be revealed
        live = hidden & ~(sure_mines | self._safe_cells)
        kept: list[list] = []
        parents: list[list] = []
        loose: list[_Constraint] = []
        for g in self._groups:
            if g[0] & opened_mask:
                parents.append(g)
                loose += g[2]
            else:
                kept.append(g)
        fresh: list[_Constraint] = []
        reach = 0
        if len(opened) > 8 and not sure_mines:
            # Many cells at once (a fresh solver, a flood): only those next to a live cell
            # make constraints, found for all of them by shifting the board; the others
            # must show 0.
            border = opened_mask & _dilate(live, self.rows, self.cols)
            if any(map(counts.__getitem__, cells_of(opened_mask & ~border))):
                self._inconsistent = True
            opened = cells_of(border)
        for c in opened:
            # Settled neighbours are out of the frontier; their mines are off the number.
            around = nbr[c]
            mask = around & live
            if mask:
                fresh.append((c, mask, counts[c] - (around & sure_mines).bit_count()))
                reach |= mask
            elif counts[c] and counts[c] != (around & sure_mines).bit_count():
                self._inconsistent = True
        if not parents and not reach:
            return  # only settled or unconstrained cells opened: no component changes
        if reach:
            # New numbers may reach components the opened cells did not touch: join them.
            untouched = []
            for g in kept:
                if g[0] & reach:
                    parents.append(g)
                    loose += g[2]
                else:
                    untouched.append(g)
            kept = untouched
            loose += fresh
        groups = _group(loose, hidden)
        if groups is None:
            self._inconsistent = True  # a number lost every cell its mines could hide in
            groups = []
        cache = self._cache
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        for group in groups:
            cover, sources, cons = group
            # The constraints on a component are the numbers of `sources` over their hidden
            # neighbours, all inside `cover`: the pair fixes them on this board.
            key = (cover, sources)
            if key in cache:
                comp = cache[key]
            else:
                comp = self._extend(cover, fresh, parents, opened_mask)
                if comp is None:
                    try:
                        comp = _count_masks(cons, cover, self.mines, self.budget, self.method)
                    except _BudgetExceeded:
                        comp = None
                cache[key] = comp
            group.append(comp)
            if self._incremental and comp is not None and comp.layouts:
                kept += self._settle(group)
            else:
                kept.append(group)
        self._groups = kept

    def _settle(self, group: list) -> list[list]:
        """Take the cells the component settles out of it; the rest, split into components.

        A cell mined in every layout is a mine in every layout of the board, one mined in
        none is safe in all: both leave the frontier for good, the mines taken off the
        numbers around them. What is left of the component may fall apart; each part's
        layouts are the old ones cut down to it (distinct, as the settled cells agreed).
        """
        cover, _, cons, comp = group
        always = cover
        for layout in comp.layouts:
            always &= layout
        never = cover & ~comp.union
        settled = always | never
        if not settled:
            return [group]
        self._sure_mines |= always
        self._safe_cells |= never
        rest = cover & ~settled
        if not rest:
            return []
        left = [
            (src, mask & rest, need - (mask & always).bit_count())
            for src, mask, need in cons
            if mask & rest
        ]
        parts = _group(left, rest) or []
        cache = self._cache
        for part in parts:
            key = (part[0], part[1])
            sub = cache.get(key)
            if sub is None:
                sub = _tally(part[0], sorted({layout & part[0] for layout in comp.layouts}))
                cache[key] = sub
            part.append(sub)
        return parts

    def _extend(
        self, cover: int, fresh: list[_Constraint], parents: list[list], opened_mask: int
    ) -> _Component | None:
        """Layouts of a changed component from the listed layouts of the ones it grew from.

        Each parent's layouts that keep the opened cells clear, cut down to this component,
        are exactly the assignments its old numbers allow here (revealed cells are safe, so
        those numbers still hold over the cells left, and the parts of a parent that now
        lie in other components are independent of this one); only the numbers of the cells
        just opened (``fresh``) need checking. ``None`` when a parent was not listed, or the
        listing would be large: then the caller counts from scratch, with the same result.
        """
        if not self._incremental:
            return None
        seeds = [0]
        fixed = 0
        for g in parents:
            part = g[0] & cover
            if not part:
                continue
            comp = g[3]
            if comp is None or comp.layouts is None:
                return None
            fixed |= part
            cut = {layout & part for layout in comp.layouts if not layout & opened_mask}
            seeds = [s | c for s in seeds for c in sorted(cut)]
            if len(seeds) > _LIST_LEAVES:
                return None
        if not fixed:
            return None
        new = [item for item in fresh if item[1] & cover]
        if len(new) == 1:
            # One new number (the usual reveal): its new cells, all seen by it alone, take
            # whatever mines each seed leaves it, in every possible way.
            _, mask, need = new[0]
            free = cover & ~fixed
            size = free.bit_count()
            max_mines = self.mines
            layouts = []
            for seed in seeds:
                v = need - (seed & mask).bit_count()
                if v == 0:
                    layouts.append(seed)
                elif v == size:
                    layouts.append(seed | free)
                elif 0 < v < size:
                    layouts += [seed | p for p in _combination_masks(free, v)]
            if len(layouts) > _LIST_LEAVES:
                return None
            return _tally(cover, [x for x in layouts if x.bit_count() <= max_mines])
        if fixed == cover:
            # No cell is new: the seeds are whole layouts, and the new numbers filter them.
            return _tally(
                cover,
                [
                    seed
                    for seed in seeds
                    if all((seed & mask).bit_count() == need for _, mask, need in new)
                ],
            )
        try:
            return _list_layouts(
                new, cover, self.mines, min(self.budget, _LIST_STAKE), _LIST_LEAVES, seeds, fixed
            )
        except _BudgetExceeded:
            return None


def mine_posterior(
    rows: int,
    cols: int,
    mines: int,
    revealed: Sequence[bool],
    counts: Sequence[int],
    budget: int = DEFAULT_POSTERIOR_BUDGET,
    *,
    method: str = "auto",
) -> Posterior:
    """Exact P(mine) for every hidden cell given the revealed numbers and the mine total.

    ``counts[i]`` is read only where ``revealed[i]``. Frontier cells (hidden cells next to a
    revealed number) are split into components that share no constraint; each component's
    consistent layouts are counted by mine number (and, per cell, those with a mine there),
    the components are combined by convolution, and every total ``K`` of frontier mines is
    weighted by the ``C(U, mines - K)`` ways to place the rest among the ``U`` unconstrained
    hidden cells, which each get the expected leftover mines divided by ``U``. All arithmetic
    is on Python ints, so the fractions are exact.

    ``method`` picks how a component is counted: ``"bitmask"`` lists its layouts as bitmasks
    (propagation, then branching), ``"backtrack"`` lists them a class of interchangeable
    cells at a time, ``"transfer"`` counts them by dynamic programming over merged partial
    layouts, and ``"auto"`` (default) tries the bitmask listing, then class backtracking,
    each with a small stake, and switches to the counting DP on long frontiers (with a
    ``budget`` below that stake it uses the class-level counters only). All give identical
    results. If a component needs more than ``budget`` units of work (decisions, assignments
    or transitions, by counter), the whole posterior falls back to :func:`local_deduction`
    (``degraded=True``). For a game in progress, :class:`PosteriorSolver` gives the same
    numbers incrementally.

    >>> # Row 1 shows "1 1 0" over hidden row 2: the 0 clears two cells, so the mine is left.
    >>> post = mine_posterior(2, 3, 1, [True, True, True, False, False, False], [1, 1, 0])
    >>> [post.fraction(i) for i in (3, 4, 5)]
    [Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    if method not in POSTERIOR_METHODS:
        raise ValueError(f"method must be one of {POSTERIOR_METHODS}, got {method!r}")
    # Numbers that no layout could explain get a precise error before any counting.
    _constraints(rows, cols, revealed, counts)
    solver = PosteriorSolver(rows, cols, mines, counts, budget, method=method)
    solver.reveal(i for i in range(rows * cols) if revealed[i])
    return solver.posterior()


def local_deduction(
    rows: int, cols: int, revealed: Sequence[bool], counts: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Cells certain to be safe and certain to be mines by single-constraint and subset rules.

    Sound but incomplete: it never labels a cell wrongly, but may miss deductions the exact
    posterior would make. Returns ``(safe, mines)``, each ascending.

    >>> local_deduction(2, 3, [True, True, True, False, False, False], [1, 1, 0])
    ([4, 5], [3])
    """
    base = _constraints(rows, cols, revealed, counts)
    known: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        cons = []
        for cells, need in base:
            rest = tuple(c for c in cells if c not in known)
            left = need - sum(known.get(c, 0) for c in cells)
            if rest:
                cons.append((frozenset(rest), left))
        found: dict[int, int] = {}
        for cells, left in cons:
            if left == 0:
                found.update((c, 0) for c in cells)
            elif left == len(cells):
                found.update((c, 1) for c in cells)
        if not found:
            for a_cells, a_left in cons:
                for b_cells, b_left in cons:
                    if a_cells < b_cells:
                        diff = b_cells - a_cells
                        extra = b_left - a_left
                        if extra == 0:
                            found.update((c, 0) for c in diff)
                        elif extra == len(diff):
                            found.update((c, 1) for c in diff)
        if found:
            known.update(found)
            changed = True
    safe = sorted(c for c, v in known.items() if v == 0)
    mine_cells = sorted(c for c, v in known.items() if v == 1)
    return safe, mine_cells


def _degraded_posterior(
    rows: int, cols: int, mines: int, revealed: Sequence[bool], counts: Sequence[int]
) -> Posterior:
    safe, known_mines = local_deduction(rows, cols, revealed, counts)
    is_safe = set(safe)
    is_mine = set(known_mines)
    hidden = [i for i in range(rows * cols) if not revealed[i]]
    unknown = len(hidden) - len(is_safe) - len(is_mine)
    den = unknown if unknown else 1
    left = mines - len(is_mine)
    numerators: list[int | None] = [None] * (rows * cols)
    for c in hidden:
        numerators[c] = 0 if c in is_safe else den if c in is_mine else left
    return Posterior(tuple(numerators), den, True)


def brute_force_posterior(
    rows: int, cols: int, mines: int, revealed: Sequence[bool], counts: Sequence[int]
) -> list[Fraction | None]:
    """Reference P(mine) by trying every placement of ``mines`` among the hidden cells.

    Exponential: for checking :func:`mine_posterior` on tiny boards only.

    >>> brute_force_posterior(1, 3, 1, [False, True, False], [0, 1, 0])
    [Fraction(1, 2), None, Fraction(1, 2)]
    """
    n = rows * cols
    hidden = [i for i in range(n) if not revealed[i]]
    position = {c: j for j, c in enumerate(hidden)}
    table = neighbours(rows, cols)
    checks = []
    for i in range(n):
        if revealed[i]:
            mask = 0
            for j in table[i]:
                if j in position:
                    mask |= 1 << position[j]
            checks.append((mask, counts[i]))
    hits = [0] * len(hidden)
    total = 0
    for combo in combinations(range(len(hidden)), mines):
        mask = 0
        for j in combo:
            mask |= 1 << j
        if all((mask & m).bit_count() == k for m, k in checks):
            total += 1
            for j in combo:
                hits[j] += 1
    if total == 0:
        raise ValueError("no mine layout is consistent with the revealed numbers")
    out: list[Fraction | None] = [None] * n
    for j, c in enumerate(hidden):
        out[c] = Fraction(hits[j], total)
    return out

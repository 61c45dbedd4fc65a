"""Counting one frontier component's mine layouts exactly, by mine number.

A component is a set of hidden cells (``cover``) and the revealed numbers over them; a
layout is a set of mined cells that satisfies every number. The posterior needs, for each
mine count ``k``, how many layouts have ``k`` mines, and per cell how many of those mine it
(:class:`Component`). Two exact counters, each needed where the other fails:

* :func:`list_layouts` lists the layouts as bitmasks. Most components have a handful, which
  it finds in a few bit operations each, and the listed layouts let the solver extend a
  component after a reveal instead of recounting it. It is exponential in the frontier's
  length: on dense 16x16 boards one component can have 10^5+ layouts (0.3 s to list).
* :func:`count_transfer` counts them without listing, by dynamic programming over classes
  of interchangeable cells: polynomial in the frontier's width, 2-3x slower on the usual
  small components and with no layouts to extend.

``benchmarks/test_bench_minesweeper.py`` shows both: ``minesweeper-posterior`` (listing only
blows up on 16x16 / 70-mine boards; counting only is slower on 9x9 / 10) and
``minesweeper-step`` (the extension that listing allows). ``"auto"`` lists with a small
stake and counts when the stake runs out.

>>> # Cells 0-2 under one "1" (cell 3, bit 3 of the sources): three layouts of one mine.
>>> comp = count_component([(3, 0b111, 1)], 0b111, 5, 10_000, "auto")
>>> comp.terms, comp.risky()[0]
([(1, 3)], ((1, 1),))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from .board import bit_values, cells_of

__all__ = [
    "LIST_LEAVES",
    "LIST_STAKE",
    "POSTERIOR_METHODS",
    "BudgetExceeded",
    "Component",
    "Constraint",
    "combination_masks",
    "count_component",
    "count_transfer",
    "list_layouts",
    "tally",
]

#: How a component may be counted: ``"bitmask"`` lists its layouts, ``"transfer"`` counts
#: them by dynamic programming, ``"auto"`` lists with a small stake, then counts.
POSTERIOR_METHODS: tuple[str, ...] = ("auto", "bitmask", "transfer")
# Cell decisions, and layouts found, the listing may spend on one component before "auto"
# hands it to the counting DP. Most components on 8x8-16x16 boards have 1-10 layouts,
# which listing finds fastest; many layouts mean big classes of interchangeable cells,
# which the DP counts without listing them.
LIST_STAKE: int = 2_000
LIST_LEAVES: int = 256

#: A revealed number as a constraint: (its cell, the mask of its hidden neighbours, the
#: mines among them). The cell first, so constraints sort by it.
Constraint = tuple[int, int, int]


class BudgetExceeded(Exception):
    """A counter spent its work budget; the caller degrades or tries another counter."""


@lru_cache(maxsize=4096)
def combination_masks(cells: int, v: int) -> tuple[int, ...]:
    """Every way to pick ``v`` of the set bits of ``cells``, as masks.

    >>> [bin(m) for m in combination_masks(0b1011, 2)]
    ['0b11', '0b1001', '0b1010']
    """
    return tuple(sum(c) for c in combinations(bit_values(cells), v))


class Component:
    """One frontier component's consistent layouts, in the form the combination step reads.

    ``terms`` lists ``(k, layouts with k mines)`` for every ``k`` that has layouts and
    ``union`` has a bit for every cell mined in at least one layout (the other cells of
    ``cover`` are safe in all of them). ``layouts`` keeps the layouts themselves (bitmasks of
    mined cells) when they were listed, so the next state can extend them instead of starting
    over; ``None`` when the DP made the counts, which come with the per-cell table
    :meth:`risky` (built from ``layouts`` on first use otherwise). Depends only on the
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


def tally(cover: int, layouts: list[int]) -> Component:
    """A :class:`Component` from its listed layouts.

    >>> tally(0b11, [0b01, 0b10]).terms
    [(1, 2)]
    """
    by_k: dict[int, int] = {}
    for layout in layouts:
        k = layout.bit_count()
        by_k[k] = by_k.get(k, 0) + 1
    return Component(cover, sorted(by_k.items()), layouts)


def count_component(
    constraints: list[Constraint], cover: int, max_mines: int, budget: int, method: str
) -> Component:
    """Count one component from scratch with ``method`` (one of :data:`POSTERIOR_METHODS`).

    Raises :class:`BudgetExceeded` when the counter(s) ``method`` allows spend ``budget``.
    """
    # In ascending order of their revealed cell, however the game got here: the counters'
    # work (so where a budget runs out) depends on the order.
    constraints = sorted(constraints)
    # Below the listing stake, "auto" leaves listing out: its work units are not the DP's,
    # so a deliberately tiny budget degrades where the DP alone would.
    if method == "bitmask" or (method == "auto" and budget >= LIST_STAKE):
        try:
            if method == "bitmask":
                return list_layouts(constraints, cover, max_mines, budget, None)
            return list_layouts(constraints, cover, max_mines, min(budget, LIST_STAKE), LIST_LEAVES)
        except BudgetExceeded:
            if method == "bitmask":
                raise
    return count_transfer([(tuple(cells_of(m)), need) for _, m, need in constraints], budget)


def list_layouts(
    constraints: list[Constraint],
    cover: int,
    max_mines: int,
    budget: int,
    leaf_cap: int | None,
    seeds: Sequence[int] = (0,),
    fixed: int = 0,
) -> Component:
    """Count a component's layouts by listing them, each layout a bitmask of mined cells.

    Propagation first (a constraint with no mines left clears its undecided cells, one with
    as many mines left as undecided cells fills them). Then, if some open constraint has
    cells no other open constraint sees, a branch on how many mines those cells hold (which
    of them is decided only when the layouts are written out, as they are interchangeable);
    otherwise a branch on one undecided cell of the first open constraint. A decision costs
    a few bit operations per constraint, which wins on the usual components with a handful
    of layouts. Each of ``seeds`` starts the search with the cells of ``fixed`` already
    decided (mined where the seed has a bit); ``constraints`` then need only be the ones the
    seeds do not already satisfy. Raises :class:`BudgetExceeded` past ``budget`` decisions
    or ``leaf_cap`` layouts.
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
            still: list[Constraint] = []
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
                    raise BudgetExceeded
                if not active:
                    # Every undecided cell lies in some open constraint, so none is left.
                    if spread:
                        if leaf_cap is not None:
                            # The cap is checked before the layouts are written out: their
                            # number is a product that can reach 10^9 on a 16x16 board.
                            ways = math.prod(math.comb(c.bit_count(), v) for c, v in spread)
                            if len(leaves) + ways > leaf_cap:
                                raise BudgetExceeded
                        layouts = [mines]
                        for cells, v in spread:
                            if v == cells.bit_count():
                                layouts = [layout | cells for layout in layouts]
                            elif v:
                                picks = combination_masks(cells, v)
                                layouts = [layout | p for layout in layouts for p in picks]
                        leaves += layouts
                    else:
                        leaves.append(mines)
                    if leaf_cap is not None and len(leaves) > leaf_cap:
                        raise BudgetExceeded
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
    return tally(cover, leaves)


def count_transfer(constraints: list[tuple[tuple[int, ...], int]], budget: int) -> Component:
    """Count a component's layouts without listing them: dynamic programming over classes.

    ``constraints`` are (cells, mines among them) of one component. Cells lying in exactly
    the same constraints are interchangeable, so the count decides a mine number per class
    (a class of ``s`` cells holding ``v`` mines stands for ``C(s, v)`` layouts, each cell
    mined in ``C(s-1, v-1)`` of them). Classes are decided one at a time in breadth-first
    order; after the first ``b`` of them all the rest depends on is how many mines each
    constraint cut by that boundary still needs, so partial layouts leaving the same needs
    are merged (a transfer-matrix count). A forward pass counts prefixes per state, a
    backward pass suffixes; every move joins the two.

    Counts by mine number are polynomials in ``x`` (coefficient ``k``: layouts with ``k``
    mines) packed into one Python int, ``width`` bits a coefficient, so adding ``v`` mines is
    a shift and joining a prefix to a suffix is one big-int product. No coefficient exceeds
    the component's ``2 ** cells`` layouts, so slots never overflow. Raises
    :class:`BudgetExceeded` past ``budget`` transitions.

    >>> # A "1" over cells 0-2 and a "1" over cells 2-3: a mine on 2, or on 0 or 1 and on 3.
    >>> comp = count_transfer([((0, 1, 2), 1), ((2, 3), 1)], 1_000)
    >>> comp.terms, comp.risky()[2], comp.risky()[3]
    ([(1, 1), (2, 2)], ((1, 1),), ((2, 2),))
    """
    cells = _breadth_first(constraints)
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
                    raise BudgetExceeded
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
    risky = {}
    for j, local in enumerate(members):
        pairs = tuple((k, x) for k, x in enumerate(unpack(class_polys[j])) if x)
        if pairs:
            for i in local:
                risky[cells[i]] = pairs
    cover = sum(1 << c for c in cells)
    terms = [(k, x) for k, x in enumerate(layouts) if x]
    return Component(cover, terms, None, dict(sorted(risky.items())))


def _breadth_first(constraints: list[tuple[tuple[int, ...], int]]) -> list[int]:
    """The component's cells, constraint by constraint breadth-first from the first one.

    Cells that share a constraint end up next to each other, which keeps the DP's states
    (the constraints cut by a boundary) few.
    """
    cell_cons: dict[int, list[int]] = {}
    for ci, (cells, _) in enumerate(constraints):
        for c in cells:
            cell_cons.setdefault(c, []).append(ci)
    order: list[int] = []
    placed: set[int] = set()
    used = {0}
    queue = [0]
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
    return order


def _cell_classes(
    cells: list[int], constraints: list[tuple[tuple[int, ...], int]]
) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Group cells lying in exactly the same constraints (they are interchangeable).

    Returns ``(members, class_cons, cons_classes)``: local cell indexes per class,
    constraints per class, classes per constraint; classes follow the order of ``cells``.
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

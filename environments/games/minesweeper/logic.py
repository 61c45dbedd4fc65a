"""Minesweeper maths: board generation, flood reveal and the exact mine posterior.

Cells are flat indices ``i = row * cols + col`` (0-based). Everything here is a pure function
of its arguments, so the oracle can be checked without the env.

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
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

import numpy as np

# Search nodes (cell assignments, forced ones included) one frontier component may cost before
# the oracle gives up on exactness. Typical 9x9 boards need a few hundred; 16x16 expert-density
# boards occasionally need millions, which would stall a rollout worker.
DEFAULT_POSTERIOR_BUDGET: int = 200_000

__all__ = [
    "DEFAULT_POSTERIOR_BUDGET",
    "Posterior",
    "brute_force_posterior",
    "flood_reveal",
    "local_deduction",
    "mine_posterior",
    "neighbour_counts",
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
    candidates = [i for i in range(n) if i not in excluded]
    chosen = rng.choice(len(candidates), size=mines, replace=False)
    return sorted(candidates[int(j)] for j in chosen)


def neighbour_counts(rows: int, cols: int, mine_cells: Sequence[int]) -> list[int]:
    """The number shown on each cell: mines among its neighbours (mine cells included).

    >>> neighbour_counts(1, 3, [0])
    [0, 1, 0]
    """
    counts = [0] * (rows * cols)
    table = neighbours(rows, cols)
    for m in mine_cells:
        for j in table[m]:
            counts[j] += 1
    return counts


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
    not a mine.

    >>> flood_reveal(1, 4, [0, 0, 1, 0], [False] * 4, [False] * 4, 0)
    [0, 1, 2]
    """
    if revealed[start] or flags[start]:
        return []
    table = neighbours(rows, cols)
    opened = [start]
    seen = {start}
    queue = [start]
    while queue:
        cell = queue.pop()
        if counts[cell] != 0:
            continue
        for j in table[cell]:
            if j not in seen and not revealed[j] and not flags[j]:
                seen.add(j)
                opened.append(j)
                queue.append(j)
    return sorted(opened)


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


def _enumerate_component(
    cells: list[int],
    constraints: list[tuple[tuple[int, ...], int]],
    max_mines: int,
    budget: int,
) -> tuple[list[int], list[list[int]]]:
    """Count the component's consistent layouts by mine count.

    Returns ``(layouts, per_cell)`` where ``layouts[k]`` is the number of layouts with ``k``
    mines and ``per_cell[k][i]`` how many of them put a mine on ``cells[i]``.

    Cells that lie in exactly the same constraints are interchangeable, so the search assigns
    a mine *count* to each such class and weights the layout by ``C(size, count)``; a cell of
    a class holding ``m`` of ``s`` mines is mined in ``m / s`` of those (``C(s-1, m-1)``, an
    integer). Backtracking with propagation: a constraint with no mines left clears its
    classes, one with as many mines left as cells fills them, one with a single open class
    sets it. Raises :class:`_BudgetExceeded` past ``budget`` class assignments.
    """
    n = len(cells)
    cell_sig: dict[int, list[int]] = {c: [] for c in cells}
    for ci, (cs, _) in enumerate(constraints):
        for c in cs:
            cell_sig[c].append(ci)
    class_of: dict[tuple[int, ...], int] = {}
    members: list[list[int]] = []
    for i, c in enumerate(cells):
        sig = tuple(cell_sig[c])
        if sig not in class_of:
            class_of[sig] = len(members)
            members.append([])
        members[class_of[sig]].append(i)
    m = len(members)
    size = [len(ms) for ms in members]
    class_cons: list[list[int]] = [list(sig) for sig in class_of]
    cons_classes: list[list[int]] = [[] for _ in constraints]
    for j, cons in enumerate(class_cons):
        for ci in cons:
            cons_classes[ci].append(j)
    need = [nd for _, nd in constraints]
    free = [len(cs) for cs, _ in constraints]
    open_classes = [len(cc) for cc in cons_classes]
    val = [-1] * m
    trail: list[int] = []
    layouts = [0] * (n + 1)
    # Allocated on the first layout with that many mines: most counts never occur.
    per_class: list[list[int]] = [[] for _ in range(n + 1)]
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
            counts = per_class[k]
            if not counts:
                counts.extend([0] * m)
            for j in range(m):
                if val[j]:
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
    per_cell: list[list[int]] = [[] for _ in range(n + 1)]
    for k in range(n + 1):
        if per_class[k]:
            row = [0] * n
            for j, ms in enumerate(members):
                for i in ms:
                    row[i] = per_class[k][j]
            per_cell[k] = row
    return layouts, per_cell


def _convolve(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def mine_posterior(
    rows: int,
    cols: int,
    mines: int,
    revealed: Sequence[bool],
    counts: Sequence[int],
    budget: int = DEFAULT_POSTERIOR_BUDGET,
) -> Posterior:
    """Exact P(mine) for every hidden cell given the revealed numbers and the mine total.

    ``counts[i]`` is read only where ``revealed[i]``. Frontier cells (hidden cells next to a
    revealed number) are split into components that share no constraint; each component's
    layouts are enumerated and counted by mine number, the components are combined by
    convolution, and every total ``K`` of frontier mines is weighted by
    ``C(U, mines - K)`` ways to place the rest among the ``U`` unconstrained hidden cells.
    All arithmetic is on Python ints. If a component needs more than ``budget`` search nodes
    the whole posterior falls back to :func:`local_deduction` (``degraded=True``).

    >>> # Row 1 shows "1 1 0" over hidden row 2: the 0 clears two cells, so the mine is left.
    >>> post = mine_posterior(2, 3, 1, [True, True, True, False, False, False], [1, 1, 0])
    >>> [post.fraction(i) for i in (3, 4, 5)]
    [Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    n = rows * cols
    hidden = [i for i in range(n) if not revealed[i]]
    if not 0 <= mines <= len(hidden):
        raise ValueError(f"{mines} mines cannot fit in {len(hidden)} hidden cells")
    constraints = _constraints(rows, cols, revealed, counts)
    comps = _split_components(constraints)
    frontier = sorted(c for cells, _ in comps for c in cells)
    unconstrained = len(hidden) - len(frontier)

    try:
        enumerated = [
            (cells, *_enumerate_component(cells, cons, mines, budget)) for cells, cons in comps
        ]
    except _BudgetExceeded:
        return _degraded_posterior(rows, cols, mines, revealed, counts)

    def weight(k: int) -> int:
        rest = mines - k
        return math.comb(unconstrained, rest) if 0 <= rest <= unconstrained else 0

    # prefix[j] / suffix[j]: mine-count distributions of components before / after j, so each
    # component can be weighted by every way the others and the unconstrained cells complete it.
    prefix = [[1]]
    for _, layouts, _ in enumerated:
        prefix.append(_convolve(prefix[-1], layouts))
    suffix = [[1]]
    for _, layouts, _ in reversed(enumerated):
        suffix.append(_convolve(suffix[-1], layouts))
    suffix.reverse()
    total = prefix[-1]
    z = sum(ways * weight(k) for k, ways in enumerate(total) if ways)
    if z == 0:
        raise ValueError("no mine layout is consistent with the revealed numbers")

    numerators: list[int | None] = [None] * n
    scale = unconstrained if unconstrained else 1
    for j, (cells, layouts, per_cell) in enumerate(enumerated):
        others = _convolve(prefix[j], suffix[j + 1])
        nums = [0] * len(cells)
        for k, ways in enumerate(layouts):
            if not ways:
                continue
            w = sum(o * weight(k + kk) for kk, o in enumerate(others) if o)
            if w:
                for i, cnt in enumerate(per_cell[k]):
                    if cnt:
                        nums[i] += cnt * w
        for i, c in enumerate(cells):
            numerators[c] = nums[i] * scale
    if unconstrained:
        # Expected mines off the frontier, spread evenly: sum_K ways_K * C(U, M-K) * (M-K) / U.
        expected = sum(ways * weight(k) * (mines - k) for k, ways in enumerate(total) if ways)
        in_frontier = set(frontier)
        for c in hidden:
            if c not in in_frontier:
                numerators[c] = expected
    for c in hidden:
        if numerators[c] is None:
            numerators[c] = 0
    return Posterior(tuple(numerators), z * scale, False)


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

"""Pure Sudoku maths: generation, uniqueness, candidates and the forced-cell / MRV oracle.

A grid is a flat ``list[int]`` of ``size * size`` cells in row-major order, ``0`` for an empty
cell and ``1..size`` for a digit. Cell ``i`` is row ``i // size``, column ``i % size`` (0-based
here; the env speaks 1-based). Candidate sets are bitmasks: bit ``d - 1`` set means digit ``d``
is still allowed, so a whole candidate analysis is one pass over the grid with integer ops.

The oracle names the cells whose digit is *forced*, or, when none is, the cells with the
fewest candidates (MRV). Two rules for "forced" (``oracle=``):

* ``"singles"`` (the default): a naked single (a cell with one candidate) or a hidden single
  (a digit with one possible cell in a row, column or box). Both are sound deductions, so a
  reward that pays for them pays for logic, not luck.
* ``"naked"``: naked singles only, the VPR paper's rule. In a state whose only deductions are
  hidden singles it calls nothing forced, so a two-candidate guess outscores the deduction.

Random draws go through :class:`agentgym.draws.Draws` (raw generator words only), so a seed
gives the same puzzle on every machine and NumPy version.

>>> import numpy as np
>>> puzzle, solution = make_puzzle(4, 6, np.random.default_rng(0))
>>> puzzle.count(0), count_solutions(puzzle, 4), solution == solve(puzzle, 4)
(6, 1, True)
>>> kind, cells = oracle_cells(puzzle, 4)
>>> kind in ("forced", "mrv") and all(puzzle[c] == 0 for c in cells)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from agentgym.draws import Draws

__all__ = [
    "DEFAULT_REWARDS",
    "ORACLES",
    "SIZES",
    "Rewards",
    "blank_range",
    "box_size",
    "candidate_masks",
    "cell_offsets",
    "conflicts",
    "count_solutions",
    "forced_cells",
    "format_grid",
    "format_row",
    "grid_lines",
    "hidden_singles",
    "make_puzzle",
    "mask_digits",
    "mask_table",
    "mrv_cells",
    "naked_singles",
    "oracle_cells",
    "parse_grid",
    "peers",
    "placement_reward",
    "random_full_grid",
    "remove_cells",
    "row_line",
    "score_move",
    "solve",
    "unit_cells",
]

SIZES: tuple[int, ...] = (4, 9)
#: The rules for a "forced" cell: naked and hidden singles, or naked singles only (VPR).
ORACLES: tuple[str, ...] = ("singles", "naked")


@dataclass(frozen=True, slots=True)
class Rewards:
    """Process rewards of one placement, judged in the state before it (VPR's table).

    ``forced``: the correct digit in a forced cell; ``mrv``: the correct digit in a
    fewest-candidates cell when no cell is forced; ``other``: any other correct digit;
    ``wrong``: a digit that differs from the unique solution.

    >>> Rewards().forced, Rewards(wrong=-2.0).wrong
    (2.0, -2.0)
    """

    forced: float = 2.0
    mrv: float = 1.0
    other: float = 0.5
    wrong: float = -1.0


DEFAULT_REWARDS = Rewards()

# One greedy removal pass ends at a *minimal* puzzle (no clue can go without losing
# uniqueness). Measured over 200 seeds, such passes end at 54-59 blanks on 9x9 (under 56 in
# 16% of passes) and 11-12 on 4x4 (under 12 in a third), so these caps are reached within a
# few of make_puzzle's attempts; asking for more would mostly hit the fallback.
_MAX_BLANKS: dict[int, int] = {4: 12, 9: 56}


def box_size(size: int) -> int:
    """Side of a box: 2 for 4x4, 3 for 9x9.

    >>> box_size(9)
    3
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    return math.isqrt(size)


def blank_range(size: int) -> tuple[int, int]:
    """Allowed ``blanks`` for ``size`` (inclusive): at least one, at most a reliable cap.

    >>> blank_range(9), blank_range(4)
    ((1, 56), (1, 12))
    """
    box_size(size)
    return 1, _MAX_BLANKS[size]


@cache
def _geometry(size: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Row, column and box index of every cell (cached: the hot loops only index tuples)."""
    b = box_size(size)
    rows = tuple(i // size for i in range(size * size))
    cols = tuple(i % size for i in range(size * size))
    boxes = tuple((i // size) // b * b + (i % size) // b for i in range(size * size))
    return rows, cols, boxes


@cache
def peers(size: int) -> tuple[tuple[int, ...], ...]:
    """Cells sharing a row, column or box with each cell (itself excluded), ascending.

    >>> len(peers(9)[0]), peers(4)[0]
    (20, (1, 2, 3, 4, 5, 8, 12))
    """
    rows, cols, boxes = _geometry(size)
    return tuple(
        tuple(
            j
            for j in range(size * size)
            if j != i and (rows[j] == rows[i] or cols[j] == cols[i] or boxes[j] == boxes[i])
        )
        for i in range(size * size)
    )


@cache
def mask_table(size: int) -> tuple[tuple[int, ...], ...]:
    """``mask_table(size)[mask]`` is :func:`mask_digits` of every mask (hot loops index it).

    >>> mask_table(4)[0b1010]
    (2, 4)
    """
    return tuple(tuple(mask_digits(m)) for m in range(1 << size))


@cache
def _popcounts(size: int) -> tuple[int, ...]:
    """Number of set bits of every candidate mask (a tuple index beats ``int.bit_count``)."""
    return tuple(m.bit_count() for m in range(1 << size))


@cache
def _units(size: int) -> tuple[tuple[int, int, int], ...]:
    """``(row, column, box)`` of every cell, for loops that need all three."""
    return tuple(zip(*_geometry(size), strict=True))


def _check_grid(grid: list[int], size: int) -> None:
    if len(grid) != size * size:
        raise ValueError(f"a {size}x{size} grid has {size * size} cells, got {len(grid)}")
    for v in grid:
        if not (isinstance(v, (int, np.integer)) and 0 <= v <= size):
            raise ValueError(f"cells must be integers in [0, {size}], got {v!r}")


def mask_digits(mask: int) -> list[int]:
    """Digits (ascending) whose bits are set in a candidate mask.

    >>> mask_digits(0b10110)
    [2, 3, 5]
    """
    digits = []
    d = 1
    while mask:
        if mask & 1:
            digits.append(d)
        mask >>= 1
        d += 1
    return digits


def _unit_masks(grid: list[int], size: int) -> tuple[list[int], list[int], list[int]] | None:
    """Used-digit masks per row, column and box, or None if a unit repeats a digit."""
    rows_of, cols_of, boxes_of = _geometry(size)
    rows = [0] * size
    cols = [0] * size
    boxes = [0] * size
    for i, v in enumerate(grid):
        if v:
            bit = 1 << (v - 1)
            r, c, b = rows_of[i], cols_of[i], boxes_of[i]
            if (rows[r] | cols[c] | boxes[b]) & bit:
                return None
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
    return rows, cols, boxes


def candidate_masks(grid: list[int], size: int) -> list[int]:
    """Candidate bitmask of every cell (``0`` for filled cells) from row/column/box rules.

    Only the direct rule is applied (no hidden singles), so a cell with one candidate is
    a "naked single". A grid that already repeats a digit in a unit still gets masks; cells
    in such units may show no candidates.

    >>> candidate_masks([1, 2, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0], 4)[2]
    12
    """
    rows = [0] * size
    cols = [0] * size
    boxes = [0] * size
    units = _units(size)
    for v, (r, c, b) in zip(grid, units, strict=True):
        if v:
            bit = 1 << (v - 1)
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
    full = (1 << size) - 1
    return [
        0 if v else full & ~(rows[r] | cols[c] | boxes[b])
        for v, (r, c, b) in zip(grid, units, strict=True)
    ]


@cache
def unit_cells(size: int) -> tuple[tuple[int, ...], ...]:
    """The cells of every unit: rows first, then columns, then boxes (``3 * size`` units).

    >>> unit_cells(4)[0], unit_cells(4)[4], unit_cells(4)[8]
    ((0, 1, 2, 3), (0, 4, 8, 12), (0, 1, 4, 5))
    """
    rows, cols, boxes = _geometry(size)
    return tuple(
        tuple(i for i in range(size * size) if index[i] == k)
        for index in (rows, cols, boxes)
        for k in range(size)
    )


def naked_singles(grid: list[int], size: int) -> list[int]:
    """Empty cells (ascending index) with exactly one candidate digit.

    >>> naked_singles([1, 2, 3, 0] + [0] * 12, 4)
    [3]
    """
    return [i for i, m in enumerate(candidate_masks(grid, size)) if m and m & (m - 1) == 0]


def hidden_singles(grid: list[int], size: int) -> dict[int, int]:
    """``{cell: digit}`` for every digit that has one possible cell in a row, column or box.

    Such a digit must go there (its unit needs it somewhere). A cell can also be a naked
    single; both count as forced under ``oracle="singles"``.

    Two 1s, at r2c3 and r3c1: the top-left box's 1 cannot go in column 1 or row 2, so only
    r1c2 (cell 1) is left for it; row 4's 1 cannot go in column 1, column 3 or the bottom-left
    box, so only r4c4 (cell 15). Every cell still has three or four candidates.

    >>> hidden_singles([0, 0, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0,  0, 0, 0, 0], 4)
    {1: 1, 15: 1}
    """
    masks = candidate_masks(grid, size)
    found: dict[int, int] = {}
    for unit in unit_cells(size):
        for d in range(1, size + 1):
            bit = 1 << (d - 1)
            cells = [i for i in unit if masks[i] & bit]
            if len(cells) == 1:
                found[cells[0]] = d
    return dict(sorted(found.items()))


def forced_cells(grid: list[int], size: int, oracle: str = "singles") -> list[int]:
    """Empty cells (ascending index) whose digit is forced under the ``oracle`` rule.

    >>> g = [0, 0, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0,  0, 0, 0, 0]  # see hidden_singles
    >>> forced_cells(g, 4), forced_cells(g, 4, oracle="naked")
    ([1, 15], [])
    """
    _check_oracle(oracle)
    cells = set(naked_singles(grid, size))
    if oracle == "singles":
        cells.update(hidden_singles(grid, size))
    return sorted(cells)


def mrv_cells(grid: list[int], size: int) -> list[int]:
    """Empty cells (ascending index) with the fewest candidates ("minimum remaining values").

    Empty cells with no candidate (a contradiction) are ignored; ``[]`` if none is empty.

    >>> g = [1, 2, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0]
    >>> mrv_cells(g, 4)
    [2, 3, 4, 5]
    """
    masks = candidate_masks(grid, size)
    counts = [m.bit_count() for m in masks]
    live = [c for c in counts if c]
    if not live:
        return []
    best = min(live)
    return [i for i, c in enumerate(counts) if c == best]


def oracle_cells(grid: list[int], size: int, oracle: str = "singles") -> tuple[str, list[int]]:
    """Oracle cells: ``("forced", cells)`` if a forced cell exists, else ``("mrv", cells)``.

    ``("none", [])`` when no empty cell has a candidate (solved or contradictory grid).

    >>> oracle_cells([1, 2, 3, 0] + [0] * 12, 4)
    ('forced', [3])
    >>> g = [0, 0, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0,  0, 0, 0, 0]  # see hidden_singles
    >>> oracle_cells(g, 4), oracle_cells(g, 4, oracle="naked")[1][:4]
    (('forced', [1, 15]), [0, 2, 3, 4])
    """
    forced = forced_cells(grid, size, oracle)
    if forced:
        return "forced", forced
    cells = mrv_cells(grid, size)
    return ("mrv", cells) if cells else ("none", [])


def score_move(
    grid: list[int],
    solution: list[int],
    size: int,
    cell: int,
    digit: int,
    oracle: str = "singles",
    rewards: Rewards = DEFAULT_REWARDS,
) -> tuple[float, str]:
    """Process reward of writing ``digit`` into empty ``cell``, judged before the move.

    Returns ``(reward, kind)`` with kind ``"forced"`` (``rewards.forced``, +2), ``"mrv"``
    (``rewards.mrv``, +1, only when no cell is forced), ``"other"`` (``rewards.other``, +0.5, a
    correct digit outside the oracle cells) or ``"wrong"`` (``rewards.wrong``, -1, the digit
    differs from the unique solution).

    >>> sol = [1, 2, 3, 4,  3, 4, 1, 2,  2, 1, 4, 3,  4, 3, 2, 1]
    >>> g = sol[:3] + [0] + sol[4:]
    >>> score_move(g, sol, 4, 3, 4), score_move(g, sol, 4, 3, 2)
    ((2.0, 'forced'), (-1.0, 'wrong'))
    """
    if digit != solution[cell]:
        return rewards.wrong, "wrong"
    kind, cells = oracle_cells(grid, size, oracle)
    return placement_reward(kind, cell in cells, rewards)


def placement_reward(
    kind: str, in_oracle: bool, rewards: Rewards = DEFAULT_REWARDS
) -> tuple[float, str]:
    """Reward and kind of a *correct* digit, given the oracle kind and whether its cell is one.

    >>> placement_reward("mrv", True), placement_reward("forced", False)
    ((1.0, 'mrv'), (0.5, 'other'))
    """
    if in_oracle and kind == "forced":
        return rewards.forced, "forced"
    if in_oracle and kind == "mrv":
        return rewards.mrv, "mrv"
    return rewards.other, "other"


def _check_oracle(oracle: str) -> None:
    if oracle not in ORACLES:
        raise ValueError(f"oracle must be one of {ORACLES}, got {oracle!r}")


def conflicts(grid: list[int], size: int, cell: int, digit: int) -> list[str]:
    """Units ("row", "column", "box") of ``cell`` that already hold ``digit``.

    >>> conflicts([1, 2, 0, 0] + [0] * 12, 4, 2, 1)
    ['row']
    """
    rows_of, cols_of, boxes_of = _geometry(size)
    found = []
    for unit, index in (("row", rows_of), ("column", cols_of), ("box", boxes_of)):
        key = index[cell]
        if any(v == digit and index[j] == key and j != cell for j, v in enumerate(grid)):
            found.append(unit)
    return found


# ---------------------------------------------------------------------------- search
def _dfs(
    work: list[int],
    masks: tuple[list[int], list[int], list[int]],
    empties: list[int],
    size: int,
    limit: int,
    draws: Draws | None = None,
) -> tuple[int, list[int] | None]:
    """Depth-first search with fewest-candidates branching over ``empties``.

    ``masks`` are the used-digit masks of rows, columns and boxes for ``work``; both are
    changed during the search and restored before returning. Returns ``(count, first)`` with
    ``count`` capped at ``limit``. Without ``draws`` digits are tried low to high; with it
    each branch tries its candidates in a random order, drawn one pick at a time as the
    search gets there (a fill rarely backtracks, so it needs about one draw per cell).
    """
    rows, cols, boxes = masks
    units = _units(size)
    pop = _popcounts(size)
    digits_of = mask_table(size)
    full = (1 << size) - 1
    first: list[int] | None = None
    count = 0

    def rec(empties: list[int]) -> None:
        nonlocal count, first
        if not empties:
            count += 1
            if first is None:
                first = list(work)
            return
        best_k = -1
        best_mask = 0
        best_n = size + 1
        # This scan is most of the generator's time, hence the flat loop and table lookups.
        for k, i in enumerate(empties):
            r, c, b = units[i]
            m = full & ~(rows[r] | cols[c] | boxes[b])
            if not m:
                return
            n = pop[m]
            if n < best_n:
                best_k, best_mask, best_n = k, m, n
                if n == 1:
                    break
        i = empties[best_k]
        rest = empties[:best_k] + empties[best_k + 1 :]
        r, c, b = units[i]
        left = best_mask
        while left:
            if draws is None or left & (left - 1) == 0:
                bit = left & -left
            else:
                bit = 1 << (draws.pick(digits_of[left]) - 1)
            left ^= bit
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
            work[i] = bit.bit_length()
            rec(rest)
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[b] ^= bit
            work[i] = 0
            if count >= limit:
                return

    rec(empties)
    return count, first


def _search(
    grid: list[int], size: int, limit: int, draws: Draws | None = None
) -> tuple[int, list[int] | None]:
    """:func:`_dfs` on a checked copy of ``grid``; ``(0, None)`` if a unit repeats a digit."""
    _check_grid(grid, size)
    masks = _unit_masks(grid, size)
    if masks is None:
        return 0, None
    empties = [i for i, v in enumerate(grid) if not v]
    return _dfs(list(grid), masks, empties, size, max(1, limit), draws)


def count_solutions(grid: list[int], size: int, limit: int = 2) -> int:
    """Number of solutions of ``grid``, counting stops at ``limit`` (so 2 means "2 or more").

    >>> count_solutions([0] * 16, 4)
    2
    >>> count_solutions([1, 2, 3, 4,  3, 4, 1, 2,  2, 1, 4, 3,  4, 3, 2, 0], 4)
    1
    """
    return _search(grid, size, limit)[0]


def solve(grid: list[int], size: int) -> list[int] | None:
    """The first solution in digit order, or ``None`` if the grid has none.

    >>> solve([1, 2, 3, 4,  3, 4, 1, 2,  2, 1, 4, 3,  4, 3, 2, 0], 4)[-1]
    1
    """
    return _search(grid, size, 1)[1]


def _draws(rng: np.random.Generator | Draws) -> Draws:
    return rng if isinstance(rng, Draws) else Draws(rng)


def random_full_grid(size: int, rng: np.random.Generator | Draws) -> list[int]:
    """A complete valid grid drawn with ``rng`` (DFS trying candidates in a random order).

    >>> g = random_full_grid(9, np.random.default_rng(1))
    >>> sorted(g[:9]) == list(range(1, 10)) and count_solutions(g, 9) == 1
    True
    """
    box_size(size)
    _, grid = _search([0] * (size * size), size, 1, _draws(rng))
    assert grid is not None  # an empty grid always has a completion
    return grid


def remove_cells(
    solution: list[int], size: int, blanks: int, rng: np.random.Generator | Draws
) -> list[int]:
    """Blank up to ``blanks`` cells of a full grid in a random order, keeping uniqueness.

    One greedy pass: a cell that cannot be blanked stays a clue (blanking more cells only adds
    solutions, so it could never be blanked later in this pass). The result may have fewer
    blanks than asked when the pass runs out of cells.

    >>> sol = random_full_grid(4, np.random.default_rng(2))
    >>> p = remove_cells(sol, 4, 8, np.random.default_rng(3))
    >>> p.count(0), count_solutions(p, 4)
    (8, 1)
    """
    _check_grid(solution, size)
    if 0 in solution:
        raise ValueError("remove_cells needs a complete grid")
    puzzle = list(solution)
    masks = _unit_masks(puzzle, size)
    if masks is None:
        raise ValueError("remove_cells needs a valid grid (a unit repeats a digit)")
    rows, cols, boxes = masks
    units = _units(size)
    full = (1 << size) - 1
    empties: list[int] = []
    order = list(range(size * size))
    _draws(rng).shuffle(order)
    for cell in order:
        if len(empties) >= blanks:
            break
        # The puzzle has the unique solution ``solution``; without ``cell`` it stays unique
        # iff no solution puts another digit there. So each other candidate is only tested
        # for existence, which is far cheaper than counting solutions, and a cell whose
        # only candidate is its own digit needs no search at all.
        digit = puzzle[cell]
        bit = 1 << (digit - 1)
        r, c, b = units[cell]
        rows[r] ^= bit
        cols[c] ^= bit
        boxes[b] ^= bit
        others = full & ~(rows[r] | cols[c] | boxes[b]) & ~bit
        unique = True
        while others and unique:
            other = others & -others
            others ^= other
            rows[r] |= other
            cols[c] |= other
            boxes[b] |= other
            puzzle[cell] = other.bit_length()
            unique = _dfs(puzzle, masks, empties, size, 1)[0] == 0
            rows[r] ^= other
            cols[c] ^= other
            boxes[b] ^= other
        if unique:
            puzzle[cell] = 0
            empties.append(cell)
        else:
            puzzle[cell] = digit
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
    return puzzle


def make_puzzle(
    size: int, blanks: int, rng: np.random.Generator | Draws, attempts: int = 20
) -> tuple[list[int], list[int]]:
    """A ``(puzzle, solution)`` pair with a unique solution and ``blanks`` empty cells.

    Tries up to ``attempts`` fresh grids; if none reaches ``blanks`` (only possible near the
    top of :func:`blank_range`) it returns the attempt with the most blanks, so the result is
    always deterministic in the rng state and the work is bounded.

    >>> p, s = make_puzzle(9, 40, np.random.default_rng(0))
    >>> p.count(0), count_solutions(p, 9), all(a in (0, b) for a, b in zip(p, s))
    (40, 1, True)
    """
    low, high = 1, size * size - 1
    if not low <= blanks <= high:
        raise ValueError(f"blanks must be in [{low}, {high}] for size {size}, got {blanks}")
    draws = _draws(rng)
    best: tuple[list[int], list[int]] | None = None
    for _ in range(max(1, attempts)):
        solution = random_full_grid(size, draws)
        puzzle = remove_cells(solution, size, blanks, draws)
        if best is None or puzzle.count(0) > best[0].count(0):
            best = (puzzle, solution)
        if puzzle.count(0) >= blanks:
            break
    assert best is not None
    return best


# ---------------------------------------------------------------------------- text forms
def parse_grid(text: str, size: int) -> list[int]:
    """Read a grid from digits with ``.`` or ``0`` for blanks; other characters are ignored.

    >>> parse_grid("12.. 34.. .... ....", 4)[:6]
    [1, 2, 0, 0, 3, 4]
    """
    box_size(size)
    cells = [ch for ch in text if ch == "." or "0" <= ch <= "9"]
    if len(cells) != size * size:
        raise ValueError(f"a {size}x{size} grid needs {size * size} cells, got {len(cells)}")
    grid = [0 if ch == "." else int(ch) for ch in cells]
    _check_grid(grid, size)
    return grid


_CELL_CHARS = ".123456789"


def format_grid(grid: list[int], size: int) -> str:
    """Grid with 1-based row/column labels, box separators and ``.`` for blanks.

    >>> print(format_grid([1, 2, 0, 0,  3, 4, 0, 0,  0, 0, 0, 0,  0, 0, 0, 1], 4))
        1 2   3 4
      +-----+-----+
    1 | 1 2 | . . |
    2 | 3 4 | . . |
      +-----+-----+
    3 | . . | . . |
    4 | . . | . 1 |
      +-----+-----+
    """
    return "\n".join(grid_lines(grid, size))


def grid_lines(grid: list[int], size: int) -> list[str]:
    """The lines of :func:`format_grid`; row ``r`` (0-based) is line :func:`row_line`.

    >>> lines = grid_lines([1, 2, 0, 0,  3, 4, 0, 0,  0, 0, 0, 0,  0, 0, 0, 1], 4)
    >>> lines[row_line(4, 3)]
    '4 | . . | . 1 |'
    """
    b = box_size(size)
    header = "    " + "   ".join(
        " ".join(str(band * b + k + 1) for k in range(b)) for band in range(b)
    )
    rule = "  +" + "+".join("-" * (2 * b + 1) for _ in range(b)) + "+"
    lines = [header, rule]
    for r in range(size):
        lines.append(format_row(grid, size, r))
        if r % b == b - 1:
            lines.append(rule)
    return lines


def row_line(size: int, row: int) -> int:
    """Index of row ``row`` (0-based) in :func:`grid_lines`: after the two header lines and
    one rule per box band above it.

    >>> row_line(9, 0), row_line(9, 3), row_line(9, 8)
    (2, 6, 12)
    """
    return 2 + row + row // box_size(size)


@cache
def cell_offsets(size: int) -> tuple[int, ...]:
    """Index of each cell's character in :func:`format_grid`'s text (row-major cells).

    The env keeps the rendered board as bytes and rewrites one character per placement.

    >>> text = format_grid([1, 2, 0, 0,  3, 4, 0, 0,  0, 0, 0, 0,  0, 0, 0, 1], 4)
    >>> offsets = cell_offsets(4)
    >>> text[offsets[0]], text[offsets[5]], text[offsets[15]], len(offsets)
    ('1', '4', '1', 16)
    """
    lines = grid_lines([0] * (size * size), size)
    offsets: list[int] = []
    for r in range(size):
        i = row_line(size, r)
        start = sum(len(line) + 1 for line in lines[:i])  # +1: the newline
        offsets.extend(start + k for k, ch in enumerate(lines[i]) if ch == ".")
    return tuple(offsets)


def format_row(grid: list[int], size: int, row: int) -> str:
    """One row's line: its label and its cells, boxes separated by ``|``.

    >>> format_row([1, 2, 0, 0] + [0] * 12, 4, 0)
    '1 | 1 2 | . . |'
    """
    cells = grid[row * size : (row + 1) * size]
    return _row_template(size).format(row + 1, *map(_CELL_CHARS.__getitem__, cells))


@cache
def _row_template(size: int) -> str:
    """``"{} | {} {} | {} {} |"`` for 4x4: one ``str.format`` draws a row (a placement
    redraws its row on every step, so this is on the hot path)."""
    b = box_size(size)
    return "{} | " + " | ".join(" ".join(["{}"] * b) for _ in range(b)) + " |"

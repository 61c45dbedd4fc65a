"""Local deduction: the sound, incomplete fallback when the exact count runs out of budget.

Each revealed number is a constraint "``need`` mines among these hidden cells". Single
constraints settle cells (no mine left: all safe; as many mines as cells: all mines), and so
do pairs where one constraint's cells are a subset of another's. That never labels a cell
wrongly but may miss what the exact posterior finds, so a posterior built from it is marked
``degraded``.

>>> # Row 1 shows "1 1 0" over hidden row 2: the 0 clears two cells, so the mine is left.
>>> local_deduction(2, 3, [True, True, True, False, False, False], [1, 1, 0])
([4, 5], [3])
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import neighbours
from .posterior import Posterior

__all__ = ["degraded_posterior", "local_deduction", "number_constraints"]


def number_constraints(
    rows: int, cols: int, revealed: Sequence[bool], counts: Sequence[int]
) -> list[tuple[tuple[int, ...], int]]:
    """One (hidden neighbours, mines among them) pair per revealed cell touching hidden ones.

    Raises ``ValueError`` for a number that no layout could explain (more mines than hidden
    neighbours, or a non-zero number with none).

    >>> number_constraints(1, 3, [False, True, False], [0, 1, 0])
    [((0, 2), 1)]
    """
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


def local_deduction(
    rows: int, cols: int, revealed: Sequence[bool], counts: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Cells certain to be safe and certain to be mines by single-constraint and subset rules.

    Sound but incomplete: it never labels a cell wrongly, but may miss deductions the exact
    posterior would make. Returns ``(safe, mines)``, each ascending.

    >>> local_deduction(3, 3, [False] * 3 + [True] * 6, [0, 0, 0, 1, 2, 1, 0, 0, 0])
    ([1], [0, 2])
    """
    base = number_constraints(rows, cols, revealed, counts)
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


def degraded_posterior(
    rows: int, cols: int, mines: int, revealed: Sequence[bool], counts: Sequence[int]
) -> Posterior:
    """A :class:`Posterior` from :func:`local_deduction`: settled cells at 0 or 1, every other
    hidden cell at the mines left over the cells left (``degraded=True``).

    >>> strip = [False, True, False, True, False, False, False]  # "# 1 # 1 # # #"
    >>> degraded_posterior(1, 7, 2, strip, [0, 1, 0, 1, 0, 0, 0]).probs()
    [0.4, None, 0.4, None, 0.4, 0.4, 0.4]
    """
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

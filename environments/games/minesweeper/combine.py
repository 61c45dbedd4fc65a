"""Combining counted components into one state's posterior, on demand.

Each frontier component comes counted by mine number (:class:`~.counting.Component`). A
layout of the whole board is one layout per component plus a placement of the remaining
mines on the ``U`` hidden cells off the frontier, so the weight of component ``j``'s
layouts with ``k`` mines is the convolution of the other components' counts with the
``C(U, mines - k - ...)`` completions. :class:`Evaluation` does that at most once per
state, and only when a question needs it.

>>> from agentgym.environments.games.minesweeper.counting import tally
>>> # One component {cell 0, cell 1} with one mine in either, and 2 free cells (2 and 3)
>>> # for the second of 2 mines: every hidden cell has P = 1/2.
>>> ev = Evaluation([tally(0b11, [0b01, 0b10])], hidden=0b1111, hidden_count=4, mines=2)
>>> ev.posterior(4).probs()
[0.5, 0.5, 0.5, 0.5]
"""

from __future__ import annotations

import math
from functools import lru_cache

from .board import cells_of
from .counting import Component
from .posterior import Posterior

__all__ = ["Evaluation"]


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


class Evaluation:
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
        comps: list[Component],
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

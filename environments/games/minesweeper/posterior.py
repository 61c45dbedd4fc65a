"""The mine posterior as exact fractions: what the oracle answers for a board.

>>> post = Posterior((1, None, 0), 2, False)
>>> post.probs(), post.fraction(0)
([0.5, None, 0.0], Fraction(1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Posterior"]


@dataclass(frozen=True)
class Posterior:
    """P(mine) for every cell as exact fractions over one common denominator.

    ``numerators[i]`` is ``None`` for revealed cells; ``P(mine at i) =
    numerators[i] / denominator``. ``degraded`` is True when the exact count ran out of
    budget and the numbers come from local deduction (certain cells exact as far as the
    deduction sees, the rest at the leftover mine density).

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

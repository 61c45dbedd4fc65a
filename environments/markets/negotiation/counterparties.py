"""Scripted counterparties: each one a documented schedule of the surplus share it keeps.

A counterparty plays the side opposite the agent. It is told both values (scripted opponents
stand in for an informed trader; the *agent* never sees the other side's value), so every
strategy is a rule for ``k_t``, the share of the surplus ``budget - cost`` it insists on in
round ``t`` (1-based, of ``rounds``):

* ``tough``: keeps 90%, concedes 2 points a round, never below 80%;
* ``fair``: the ZOPA midpoint, ``k_t = 0.5`` every round;
* ``boulware``: time-based, ``k_t = 1 - 0.8 (t / rounds) ** 5`` (holds, then gives late);
* ``conceder``: time-based, ``k_t = 1 - 0.8 (t / rounds) ** 0.2`` (gives early);
* ``tit-for-tat``: opens at 90% and concedes exactly what the agent has conceded so far, net
  (:func:`.logic.net_concession`: the agent's first kept share minus its latest, both
  clipped to [0, 1]), never below 0. So offers outside any zone of agreement and retreats
  concede nothing, and tit-for-tat can be moved no further than the agent moves itself;
* ``random``: ``k_t`` uniform on ``{0, 0.001, ..., 1}``, one raw word of the episode generator
  per round.

It accepts an agent offer that leaves it at least ``k_t`` (and at least its own value), else
counter-offers the price for ``k_t``; in the last round it accepts or walks away. Without a
ZOPA it offers its own value and accepts only offers within it.

>>> Counterparty("fair").share(1, 8, [])
0.5
>>> round(Counterparty("boulware").share(8, 8, []), 3)
0.2
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agentgym.draws import below

from .logic import net_concession

__all__ = ["OPPONENTS", "Counterparty"]

OPPONENTS: tuple[str, ...] = ("tough", "fair", "boulware", "conceder", "tit-for-tat", "random")
_TOUGH_OPEN, _TOUGH_STEP, _TOUGH_FLOOR = 0.9, 0.02, 0.8
_TIME_FLOOR = 0.2  # the share a time-based counterparty still keeps in the last round
_TFT_OPEN = 0.9


class Counterparty:
    """One strategy by name; :meth:`share` is a pure function of the round and the agent's
    kept shares so far, except ``random``, which reads ``rng``.

    >>> Counterparty("tit-for-tat").share(3, 8, [0.9, 0.8])
    0.8
    >>> Counterparty("tit-for-tat").share(7, 8, [3.0, 1.1, 3.0, 1.1, 3.0, 1.1])
    0.9
    """

    def __init__(self, name: str) -> None:
        if name not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {name!r}")
        self.name = name

    def share(
        self,
        round_: int,
        rounds: int,
        agent_shares: Sequence[float],
        rng: np.random.Generator | None = None,
    ) -> float:
        """``k_t``: the share it insists on in round ``round_``.

        ``agent_shares`` are the shares the agent's offers so far would leave the agent, oldest
        first (tit-for-tat mirrors their changes).
        """
        if self.name == "fair":
            return 0.5
        if self.name == "tough":
            return max(_TOUGH_FLOOR, _TOUGH_OPEN - _TOUGH_STEP * (round_ - 1))
        if self.name in ("boulware", "conceder"):
            exponent = 5.0 if self.name == "boulware" else 0.2
            return 1.0 - (1.0 - _TIME_FLOOR) * (round_ / rounds) ** exponent
        if self.name == "tit-for-tat":
            # Mirror only the agent's net concession on clipped shares: summing raw drops let
            # alternating out-of-range offers drive this to 0 (issue 30).
            return round(max(0.0, _TFT_OPEN - net_concession(agent_shares)), 12)
        if rng is None:
            raise ValueError("the random counterparty needs the episode generator")
        return below(rng, 1001) / 1000.0

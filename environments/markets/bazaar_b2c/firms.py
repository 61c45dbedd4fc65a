"""BazaarB2C's scripted firms: each prices the next round from the ledger so far, and nothing else.

Strategies (``firm_price(strategy, ...)``):

* ``"cost-plus"``: ``cost * (1 + MARKUP)`` every round, whatever the others do (stable).
* ``"undercutter"``: one ``UNDERCUT`` fraction below the cheapest rival of the last round,
  never below cost (a price war that stops at cost).
* ``"amplifier"``: momentum. It moves its own price by ``GAIN`` times the last change of the
  market mean price, and cuts ``CHASE * cost`` more when it sold less than the average firm;
  it has no cost floor, so a falling market falls faster (the Agent Bazaar crash dynamic).

The first round has no history: every firm opens at its seeded opening price.

>>> firm_price("cost-plus", 0, [], 10.0, 14.0)
13.0
>>> hist = [{"prices": [12.0, 11.0, 13.0], "sales": [1, 3, 0]}]
>>> firm_price("undercutter", 2, hist, 10.0, 13.0)
10.78
>>> hist.append({"prices": [12.0, 10.0, 12.0], "sales": [1, 3, 0]})
>>> firm_price("amplifier", 2, hist, 10.0, 13.0)
10.8
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .market import market_mean_price

__all__ = ["CHASE", "GAIN", "MARKUP", "STRATEGIES", "UNDERCUT", "firm_price"]

STRATEGIES: tuple[str, ...] = ("cost-plus", "undercutter", "amplifier")
#: The cost-plus margin: 30% over unit cost.
MARKUP = 0.3
#: The undercutter's cut below the cheapest rival.
UNDERCUT = 0.02
#: The amplifier's momentum gain (> 1 amplifies the market's last move) and its chase cut.
GAIN = 1.5
CHASE = 0.02
#: No firm prices at or below zero or above this multiple of cost.
FLOOR = 0.01
CAP_MULTIPLE = 2.0


def firm_price(
    strategy: str, firm: int, ledger: Sequence[dict[str, Any]], cost: float, opening: float
) -> float:
    """The price ``firm`` posts for the next round, from the ledger records so far.

    Rounded to cents so every price is what a ledger would print.
    """
    cap = CAP_MULTIPLE * cost
    if strategy == "cost-plus":
        return round(cost * (1 + MARKUP), 2)
    if not ledger:
        return round(opening, 2)
    last = ledger[-1]
    own = last["prices"][firm]
    own = opening if own is None else own
    if strategy == "undercutter":
        rivals = [p for i, p in enumerate(last["prices"]) if i != firm and p is not None]
        if not rivals:
            return round(own, 2)
        return round(min(cap, max(cost, min(rivals) * (1 - UNDERCUT))), 2)
    if strategy == "amplifier":
        move = 0.0
        if len(ledger) >= 2:
            now, before = market_mean_price(last), market_mean_price(ledger[-2])
            if now is not None and before is not None:
                move = now - before
        active = [s for s, p in zip(last["sales"], last["prices"], strict=True) if p is not None]
        average = sum(active) / len(active) if active else 0.0
        chase = CHASE * cost if last["sales"][firm] < average else 0.0
        return round(min(cap, max(FLOOR, own + GAIN * move - chase)), 2)
    raise ValueError(f"strategy must be one of {list(STRATEGIES)}, got {strategy!r}")

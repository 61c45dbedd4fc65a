"""BazaarB2C's market as pure functions: Poisson arrivals, one round of sales, the ledger, crashes.

Every number a reward reads is in the ledger, a list of :func:`play_round` records (plain
dicts, so a snapshot is JSON). Firm ``0`` is the agent's seat in the Gymnasium env.

One round:

1. every active firm opens the round with ``capacity`` units in stock;
2. ``Poisson(rate)`` consumers arrive, each with a reservation price uniform in
   ``[RES_LOW * cost, RES_HIGH * cost]`` (both drawn from uniforms by inversion);
3. consumers, in arrival order, each buy one unit from the cheapest active firm with stock
   whose price is at or below their reservation price. **Ties** between equally cheap firms
   are broken round-robin by the consumer's arrival index (the ``k``-th consumer among those
   who face a tie goes to the ``k mod n``-th tied firm in index order), so no seat, the
   agent's included, is favoured;
4. each firm pays ``cost`` per unit sold (it restocks what it sold, so the next round opens
   full again) and ``fixed_cost`` (overhead: a firm that sells nothing still bleeds cash);
   ``inventory`` records the units left unsold before the refill;
5. a firm whose cash falls below zero goes bankrupt: it leaves the market for good.

>>> arrivals(2.0, [0.1, 0.5, 0.99])
[0, 2, 6]
>>> rec = play_round([12.0, 11.0], [100.0, 100.0], [False, False], [14.0, 11.5, 9.0],
...                  cost=10.0, capacity=5, fixed_cost=1.0)
>>> rec["sales"], rec["profit"]
([0, 2], [-1.0, 1.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "CRASH_PRICE_FRACTION",
    "CRASH_WINDOW",
    "RES_HIGH",
    "RES_LOW",
    "arrivals",
    "crash_reason",
    "market_mean_price",
    "play_round",
    "reservation_price",
]

#: Reservation prices are uniform in [RES_LOW * cost, RES_HIGH * cost]: some consumers value
#: the good below cost (no efficient trade with them), the richest at twice cost (the cap).
RES_LOW = 0.8
RES_HIGH = 2.0
#: The crash: the mean price of the active firms below this fraction of unit cost for
#: CRASH_WINDOW consecutive rounds (a price war nobody can survive), or more than half of
#: the firms bankrupt.
CRASH_PRICE_FRACTION = 0.8
CRASH_WINDOW = 3


def arrivals(rate: float, uniforms: Sequence[float]) -> list[int]:
    """Poisson(``rate``) counts by inversion, one per uniform in ``[0, 1)``.

    Inversion (walk the CDF until it passes ``u``) reads exactly one uniform per count, so a
    round consumes a fixed number of draws whatever the count is.

    >>> arrivals(1.0, [0.0, 0.3678, 0.3679, 0.9])
    [0, 0, 1, 2]
    """
    out = []
    for u in uniforms:
        k, p = 0, math.exp(-rate)
        cdf = p
        # 1e-12 slack: a u within rounding of 1 would otherwise walk to float underflow.
        while u >= cdf and cdf < 1.0 - 1e-12:
            k += 1
            p *= rate / k
            cdf += p
        out.append(k)
    return out


def reservation_price(u: float, cost: float) -> float:
    """A consumer's reservation price from a uniform ``u`` in ``[0, 1)``.

    >>> reservation_price(0.5, 10.0)
    14.0
    """
    return cost * (RES_LOW + (RES_HIGH - RES_LOW) * u)


def play_round(
    prices: Sequence[float | None],
    cash: Sequence[float],
    bankrupt: Sequence[bool],
    reservations: Sequence[float],
    *,
    cost: float,
    capacity: int,
    fixed_cost: float,
) -> dict[str, Any]:
    """One round's ledger record from the firms' prices and the arriving consumers.

    ``prices[i]`` is ignored (recorded as None) for a bankrupt firm. The record holds, per
    firm: ``prices``, ``sales``, ``revenue``, ``cost`` (units sold at unit cost + fixed),
    ``profit`` (revenue - cost), ``inventory`` (unsold units), ``cash`` after the round and
    ``bankrupt``; and for the
    market: ``consumers``, ``surplus`` (consumer surplus: the sum of reservation minus paid
    price over purchases) and ``potential`` (the sum of ``max(0, r - cost)`` over all
    arrivals: the most surplus any prices could create).

    >>> rec = play_round([10.0, 10.0], [5.0, 5.0], [False, False], [12.0, 12.0, 12.0],
    ...                  cost=10.0, capacity=1, fixed_cost=0.0)
    >>> rec["sales"], rec["surplus"], rec["potential"]   # round-robin tie, then stock out
    ([1, 1], 4.0, 6.0)
    """
    n = len(prices)
    active = [not b for b in bankrupt]
    stock = [capacity if a else 0 for a in active]
    sales = [0] * n
    surplus = 0.0
    ties = 0
    # Price levels, cheapest first. Stock only falls, so the cheapest level with stock only
    # moves up: a consumer looks at that one level alone (O(1) per consumer).
    levels = sorted({float(prices[i]) for i in range(n) if active[i]})  # type: ignore[arg-type]
    groups = [[i for i in range(n) if active[i] and prices[i] == p] for p in levels]
    first = 0
    for r in reservations:
        while first < len(levels) and not groups[first]:
            first += 1
        if first == len(levels) or levels[first] > r:
            continue
        stocked = groups[first]
        if len(stocked) > 1:
            seller = stocked[ties % len(stocked)]
            ties += 1
        else:
            seller = stocked[0]
        stock[seller] -= 1
        sales[seller] += 1
        surplus += r - levels[first]
        if not stock[seller]:
            stocked.remove(seller)
    revenue = [sales[i] * float(prices[i]) if active[i] else 0.0 for i in range(n)]  # type: ignore[arg-type]
    spend = [sales[i] * cost + fixed_cost if active[i] else 0.0 for i in range(n)]
    profit = [revenue[i] - spend[i] for i in range(n)]
    new_cash = [cash[i] + profit[i] for i in range(n)]
    new_bankrupt = [bankrupt[i] or new_cash[i] < 0.0 for i in range(n)]
    return {
        "prices": [float(prices[i]) if active[i] else None for i in range(n)],  # type: ignore[arg-type]
        "sales": sales,
        "revenue": revenue,
        "cost": spend,
        "profit": profit,
        "inventory": stock,
        "cash": new_cash,
        "bankrupt": new_bankrupt,
        "consumers": len(reservations),
        "surplus": surplus,
        "potential": sum(max(0.0, r - cost) for r in reservations),
    }


def market_mean_price(record: dict[str, Any]) -> float | None:
    """Mean price of the firms active in a round (None when every firm was bankrupt).

    >>> market_mean_price({"prices": [10.0, None, 14.0]})
    12.0
    """
    prices = [p for p in record["prices"] if p is not None]
    return sum(prices) / len(prices) if prices else None


def crash_reason(ledger: Sequence[dict[str, Any]], cost: float) -> str:
    """Why the market has crashed by the last round of ``ledger``, or ``""`` if it has not.

    Crashed when more than half of the firms are bankrupt, or when the market mean price was
    below ``CRASH_PRICE_FRACTION * cost`` in each of the last ``CRASH_WINDOW`` rounds.

    >>> rec = {"prices": [7.0, 7.5], "bankrupt": [False, False]}
    >>> crash_reason([rec, rec], 10.0), crash_reason([rec, rec, rec], 10.0)
    ('', 'mean price below 80% of cost for 3 rounds')
    """
    if not ledger:
        return ""
    last = ledger[-1]
    if 2 * sum(last["bankrupt"]) > len(last["bankrupt"]):
        return "more than half of the firms are bankrupt"
    if len(ledger) >= CRASH_WINDOW:
        means = [market_mean_price(rec) for rec in ledger[-CRASH_WINDOW:]]
        if all(m is not None and m < CRASH_PRICE_FRACTION * cost for m in means):
            return (
                f"mean price below {round(100 * CRASH_PRICE_FRACTION)}% of cost for "
                f"{CRASH_WINDOW} rounds"
            )
    return ""

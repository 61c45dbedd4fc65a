"""Pure rules of bilateral trade with private values: values, ZOPA, offer checks, surplus.

The buyer has a private budget ``B`` (the most it may pay), the seller a private cost ``C``
(the least it may take). A zone of possible agreement (ZOPA) exists when ``B > C``: every
price in ``[C, B]`` leaves both sides no worse off, and the surplus ``B - C`` is what a deal
splits. Prices are in cents-rounded units between 0 and :data:`MAX_PRICE`.

>>> surplus_share("buyer", budget=100, cost=60, price=70)
0.75
>>> is_violation("buyer", budget=100, cost=60, price=101)
True
>>> offer_checks("seller", budget=100, cost=60, price=80, previous=[90])
{'rational': True, 'consistent': True}
>>> deal_success(zopa=True, deal=True, violation=False, share=0.05)
False
>>> deal_outcome("buyer", budget=100, cost=60, price=101)
-1.0
>>> net_concession([1.4, 0.2, 1.4, 0.2])
0.8
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agentgym.draws import below

__all__ = [
    "BUDGET_SPREAD",
    "COST_RANGE",
    "MAX_PRICE",
    "PRICE_GRID",
    "ROLES",
    "SUCCESS_SHARE",
    "VIOLATION_OUTCOME",
    "check_potential",
    "check_score",
    "deal_outcome",
    "deal_success",
    "draw_values",
    "has_zopa",
    "is_violation",
    "kept_share",
    "net_concession",
    "offer_checks",
    "other_role",
    "parse_price",
    "price_for_share",
    "shaped_process",
    "surplus_share",
]

ROLES: tuple[str, ...] = ("buyer", "seller")
#: The seller's cost is uniform on these integers (inclusive).
COST_RANGE: tuple[int, int] = (20, 80)
#: The buyer's budget is the cost plus a uniform integer in this range (inclusive), so about a
#: quarter of the episodes have no ZOPA (budget <= cost) and the right outcome is no deal.
BUDGET_SPREAD: tuple[int, int] = (-20, 60)
#: Prices above this are refused as input errors (a "huge" price), not as bad offers.
MAX_PRICE: float = 10_000.0
#: The offers listed in ``available_actions``: every 5 from 0 to 160 covers every value pair.
PRICE_GRID: tuple[int, ...] = tuple(range(0, 161, 5))
#: The least share of the surplus a deal must keep to count as success. Without it, offering
#: one's own value every round "succeeded" 99.5% of the time while keeping nothing (issue 30).
#: 0.15 stays reachable against every counterparty (the toughest leaves 0.16 from round 4) but
#: is more than tit-for-tat gives a side that never moves (0.1).
SUCCESS_SHARE: float = 0.15
#: The outcome of a deal past the agent's own limit (over its budget, under its cost): below
#: walking away (0), so breaking one's limit never scores like the right no-deal (issue 34:
#: at 0, stalling seven rounds and then accepting a price over the budget out-earned the
#: baseline's walk-away on an episode without a zone of agreement).
VIOLATION_OUTCOME: float = -1.0


def other_role(role: str) -> str:
    """``"seller"`` for ``"buyer"`` and back.

    >>> other_role("buyer")
    'seller'
    """
    return "seller" if role == "buyer" else "buyer"


def draw_values(rng: np.random.Generator) -> tuple[int, int]:
    """``(budget, cost)`` for one episode, from two raw words of ``rng``.

    >>> draw_values(np.random.default_rng(0))
    (40, 41)
    """
    cost = COST_RANGE[0] + below(rng, COST_RANGE[1] - COST_RANGE[0] + 1)
    budget = cost + BUDGET_SPREAD[0] + below(rng, BUDGET_SPREAD[1] - BUDGET_SPREAD[0] + 1)
    return budget, cost


def has_zopa(budget: float, cost: float) -> bool:
    """True when some price leaves both sides a positive surplus (``budget > cost``).

    >>> has_zopa(50, 50)
    False
    """
    return budget > cost


def is_violation(role: str, budget: float, cost: float, price: float) -> bool:
    """True when a deal at ``price`` breaks ``role``'s own limit (pays over budget / sells below
    cost). Only the side's own value matters: the other side's limit is not its to keep.

    >>> is_violation("seller", budget=100, cost=60, price=59.99)
    True
    """
    return price > budget if role == "buyer" else price < cost


def surplus_share(role: str, budget: float, cost: float, price: float) -> float:
    """The share of the surplus ``budget - cost`` that ``role`` keeps at ``price``.

    0 when there is no ZOPA or the deal is a violation for ``role`` (nothing kept, whatever
    the price; the episode's outcome then is :data:`VIOLATION_OUTCOME`, see
    :func:`deal_outcome`), else in ``[0, 1]``.

    >>> surplus_share("seller", budget=100, cost=60, price=70)
    0.25
    >>> surplus_share("buyer", budget=50, cost=60, price=55)
    0.0
    """
    if not has_zopa(budget, cost) or is_violation(role, budget, cost, price):
        return 0.0
    gain = budget - price if role == "buyer" else price - cost
    return min(1.0, max(0.0, gain / (budget - cost)))


def kept_share(role: str, budget: float, cost: float, price: float) -> float:
    """Like :func:`surplus_share` but unclipped and without the violation rule: the share a
    price *would* give ``role`` (negative past its own value, above 1 past the other's). Used
    by the counterparties to compare offers; 0 when there is no surplus to share.

    >>> kept_share("buyer", budget=100, cost=60, price=110)
    -0.25
    """
    if not has_zopa(budget, cost):
        return 0.0
    gain = budget - price if role == "buyer" else price - cost
    return gain / (budget - cost)


def price_for_share(role: str, budget: float, cost: float, share: float) -> float:
    """The price at which ``role`` keeps ``share`` of the surplus, rounded to cents; with no
    ZOPA, ``role``'s own value (the best it can do without a loss).

    >>> price_for_share("seller", budget=100, cost=60, share=0.5)
    80.0
    >>> price_for_share("buyer", budget=50, cost=60, share=0.9)
    50.0
    """
    if not has_zopa(budget, cost):
        return float(budget if role == "buyer" else cost)
    surplus = budget - cost
    price = budget - share * surplus if role == "buyer" else cost + share * surplus
    return round(price, 2)


def offer_checks(
    role: str, budget: float, cost: float, price: float, previous: Sequence[float]
) -> dict[str, bool]:
    """The verifiable checks of one offer (or accepted price) by ``role``.

    * ``rational``: individually rational, within the side's own value;
    * ``consistent``: no backward step: a buyer never offers less than it offered before, a
      seller never asks more (``previous`` holds the side's earlier offers; vacuous if empty);

    Only checks the offering side can judge from what it sees: whether a price lies inside
    the zone of agreement depends on the other side's private value, so scoring it would
    tell the agent that value through the reward (issue 30 found it in ``info`` too).

    >>> offer_checks("buyer", budget=100, cost=60, price=50, previous=[55])
    {'rational': True, 'consistent': False}
    >>> offer_checks("buyer", budget=50, cost=60, price=40, previous=[])
    {'rational': True, 'consistent': True}
    """
    checks = {"rational": not is_violation(role, budget, cost, price)}
    if role == "buyer":
        checks["consistent"] = all(price >= p for p in previous)
    else:
        checks["consistent"] = all(price <= p for p in previous)
    return checks


def net_concession(shares: Sequence[float]) -> float:
    """How much of the surplus a side has really given up: its first offer's kept share minus
    its last one's, each clipped to ``[0, 1]``, never below 0.

    Clipped, because a share above 1 or below 0 is a price outside any zone of agreement:
    moving between two such prices gives nothing up. Net, because a retreat (keeping more)
    followed by the same drop again is no new concession; summing the drops alone let a
    policy alternating far offers "concede" without end and drain tit-for-tat (issue 30).

    >>> net_concession([0.9, 0.7, 0.8, 0.6])
    0.3
    >>> net_concession([5.0, 1.2, 5.0, 1.2]), net_concession([0.4, 0.9]), net_concession([])
    (0.0, 0.0, 0.0)
    """
    if len(shares) < 2:
        return 0.0
    first, last = (min(1.0, max(0.0, s)) for s in (shares[0], shares[-1]))
    return round(max(0.0, first - last), 12)


def deal_success(*, zopa: bool, deal: bool, violation: bool, share: float) -> bool:
    """Whether an episode's result counts as success: with a zone of agreement, a deal without
    violation that keeps at least :data:`SUCCESS_SHARE` of the surplus; without one, no deal.

    >>> deal_success(zopa=True, deal=True, violation=False, share=0.15)
    True
    >>> deal_success(zopa=False, deal=False, violation=False, share=0.0)
    True
    >>> deal_success(zopa=True, deal=False, violation=False, share=0.0)
    False
    """
    if not zopa:
        return not deal
    return deal and not violation and share >= SUCCESS_SHARE - 1e-12


def check_score(checks: dict[str, bool]) -> float:
    """The score of one move's checks: the mean of +1 per passed and -1 per failed check, in
    ``[-1, 1]`` (0 with none).

    >>> check_score({"rational": True, "consistent": False})
    0.0
    >>> check_score({"rational": True, "consistent": True}), check_score({"rational": False})
    (1.0, -1.0)
    """
    if not checks:
        return 0.0
    n = len(checks)
    return (2 * sum(checks.values()) - n) / n


def check_potential(total: float, count: int, weight: float) -> float:
    """The process potential after ``count`` scored moves whose :func:`check_score`-s sum to
    ``total``: ``weight`` times their mean, 0 before the first one. In ``[-weight, weight]``.

    A potential on the *mean*, not the sum, so the number of moves earns nothing: a second
    perfect offer adds nothing to a first one, and only the quality of the offers pays
    (issue 34: at ``weight / max_rounds`` per offer, two needless offers out-earned the share
    of the surplus they gave away).

    >>> check_potential(0, 0, 0.2), check_potential(3, 3, 0.2), check_potential(1, 2, 0.2)
    (0.0, 0.2, 0.1)
    """
    if count <= 0:
        return 0.0
    return round(weight * total / count, 12)


def shaped_process(total: float, count: int, score: float, weight: float) -> float:
    """The process reward of one more scored move, ``score`` after ``count`` moves summing
    to ``total``: the change of :func:`check_potential` (shaping with gamma 1), so an
    episode's process rewards sum to the potential after its last move.

    >>> shaped_process(0, 0, 1.0, 0.2)  # the first perfect move: the whole potential
    0.2
    >>> shaped_process(1, 1, 1.0, 0.2)  # another perfect one: the mean stays 1
    0.0
    >>> shaped_process(2, 2, 0.0, 0.3)  # a backward step after two good offers: mean 2/3
    -0.1
    """
    before = weight * total / count if count > 0 else 0.0
    return round(weight * (total + score) / (count + 1) - before, 12)


def deal_outcome(role: str, budget: float, cost: float, price: float | None) -> float:
    """``role``'s outcome when the talks end at ``price`` (None: no deal): 0 with no deal,
    :data:`VIOLATION_OUTCOME` for a deal past its own limit, else its :func:`surplus_share`.

    >>> deal_outcome("buyer", budget=100, cost=60, price=None)
    0.0
    >>> deal_outcome("seller", budget=100, cost=60, price=70)
    0.25
    >>> deal_outcome("buyer", budget=40, cost=41, price=41)  # no zone, and over the budget
    -1.0
    """
    if price is None:
        return 0.0
    if is_violation(role, budget, cost, price):
        return VIOLATION_OUTCOME
    return surplus_share(role, budget, cost, price)


def parse_price(text: str) -> tuple[float | None, str]:
    """A price from the text inside ``offer(...)``: ``(price, "")`` or ``(None, why)``.

    Accepts ``70``, ``70.5``, ``$70``, ``1,200``; refuses negative, NaN, infinite, non-numeric
    and prices over :data:`MAX_PRICE`. Rounds to cents.

    >>> parse_price("$70.456")
    (70.46, '')
    >>> parse_price("-5")[1]
    'the price must not be negative, got -5'
    """
    raw = text.strip().lstrip("$").replace(",", "").strip()
    shown = text.strip()[:40]
    if not raw:
        return None, "offer(PRICE) needs a price, e.g. offer(PRICE) with PRICE a number"
    if len(raw) > 40:
        return None, f"the price {shown!r}... is not a number"
    try:
        value = float(raw)
    except ValueError:
        return None, f"the price {shown!r} is not a number"
    if math.isnan(value) or math.isinf(value):
        return None, f"the price must be a finite number, got {shown}"
    if value < 0:
        return None, f"the price must not be negative, got {shown}"
    if value > MAX_PRICE:
        return None, f"the price {shown} is over the limit of {MAX_PRICE:g}"
    return round(value, 2), ""

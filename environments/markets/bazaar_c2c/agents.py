"""The scripted baseline of ``agentgym/BazaarC2C-v0``: a guardian that reads the evidence.

:func:`guardian_move` is the documented fraud-detection rule (also the scripted guardian the
seller role and the parallel env's empty seats face); :class:`BaselineAgent` plays it as the
buyer and lists honestly as the seller. It reads only what the env shows any buyer
(``info["listings"]``: public fields, and the signal of listings it inspected).

>>> import gymnasium as gym
>>> from agentgym.environments.markets.bazaar_c2c.env import BazaarC2CEnv
>>> env = BazaarC2CEnv(sybils=3)
>>> obs, info = env.reset(seed=0)
>>> agent = BaselineAgent()
>>> agent.reset(env, seed=0)
>>> agent.act(obs, info) in info["available_actions"]
True
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent

from .market import VALUE_SCALE, Listing, signals, surplus

__all__ = ["FLAG_SIGNALS", "LIE_GAP", "BaselineAgent", "guardian_move", "honest_listing"]

#: Listings showing this many evidence signals are flagged without paying for an inspection.
#: Four, not three: honest quick sales look ``too_good`` too, so a young honest account with a
#: thin perfect rating pricing a bargain shows three (issue 30: the price-to-claim ratio is
#: evidence, not proof).
FLAG_SIGNALS: int = 4
#: An inspected signal this far below the claim is a lie: an honest claim is within 0.08 of
#: the truth and the noise within 0.15, so an honest gap stays under 0.23.
LIE_GAP: float = 0.3
#: The least expected surplus (money) for which the baseline buys.
BUY_MARGIN: float = 5.0


def guardian_move(listing: Listing, round_listings: list[Listing]) -> str:
    """The baseline's action for one open listing (``listing["signal"]`` None until inspected).

    Flag at :data:`FLAG_SIGNALS` signals; otherwise inspect, then flag a claim more than
    :data:`LIE_GAP` above the signal, buy when the signal promises :data:`BUY_MARGIN`, else skip.

    >>> x = {"id": "L03", "seller": "a", "price": 40.0, "claimed": 0.6, "description": "d",
    ...      "age_days": 300, "rating": 4.2, "ratings": 50, "signal": None}
    >>> guardian_move(x, [x]), guardian_move({**x, "signal": 0.58}, [x])
    ('inspect(L03)', 'buy(L03)')
    >>> guardian_move({**x, "signal": 0.2}, [x])
    'flag(L03)'
    >>> loud = {**x, "age_days": 3, "rating": 5.0, "ratings": 2, "claimed": 0.9}
    >>> copy = {**loud, "id": "L04", "seller": "b"}
    >>> guardian_move(loud, [loud]), guardian_move(loud, [loud, copy])
    ('inspect(L03)', 'flag(L03)')
    """
    lid = listing["id"]
    if len(signals(listing, round_listings)) >= FLAG_SIGNALS:
        return f"flag({lid})"
    signal = listing.get("signal")
    if signal is None:
        return f"inspect({lid})"
    if listing["claimed"] - signal > LIE_GAP:
        return f"flag({lid})"
    if surplus(signal, listing["price"]) > BUY_MARGIN:
        return f"buy({lid})"
    return f"skip({lid})"


def honest_listing(quality: float, cost: float) -> str:
    """The baseline seller's listing: the true quality, priced at 90 % of its value (never
    below cost), so a naive buyer expects a surplus and the sale makes a profit.

    >>> honest_listing(0.6, 36.0)
    'list(54.00, 0.60)'
    """
    price = max(cost, 0.9 * VALUE_SCALE * quality)
    return f"list({price:.2f}, {quality:.2f})"


class BaselineAgent(Agent):
    """:func:`guardian_move` on the first open listing (buyer); :func:`honest_listing` (seller)."""

    name: ClassVar[str] = "bazaar-c2c-baseline"
    families: ClassVar[tuple[str, ...]] = ("markets",)

    def reset(self, env: gym.Env | None = None, *, seed: int | None = None) -> None:
        """Nothing to reset: the rule reads each step's ``info``."""

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if info.get("role") == "seller":
            item = info.get("item") or {}
            if not item:
                return "pass"
            return honest_listing(item["quality"], item["cost"])
        listings = info.get("listings") or []
        for listing in listings:
            if listing["state"] == "open":
                return guardian_move(listing, listings)
        return "skip"

"""The scripted baseline for ``agentgym/Negotiation-v0``: split the difference, take a firm
offer (``make_agent("negotiation-fair")``).

It reads only what an LLM sees: its role, its own value and the offers (``info``), plus the
public price range of the rules and the round limit.

>>> import numpy as np
>>> from agentgym.environments.markets.negotiation.env import NegotiationEnv
>>> env = NegotiationEnv(opponent="fair")
>>> obs, info = env.reset(seed=1)
>>> agent = FairSplitAgent()
>>> agent.reset(env, seed=1)
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
...     if terminated or truncated:
...         break
>>> info["zopa"], info["surplus_share"]
(True, 0.5)
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent

from .logic import BUDGET_SPREAD, COST_RANGE, is_violation

__all__ = ["FairSplitAgent"]

#: Opening offers at the ends of the public price range: a counterparty's first reply then
#: carries information (a reply beyond the agent's own value means there is no ZOPA).
BUYER_OPEN = float(COST_RANGE[0])
SELLER_OPEN = float(COST_RANGE[1] + BUDGET_SPREAD[1])


class FairSplitAgent(Agent):
    """Opens at the far end of the price range, then splits the difference with each
    counter-offer; accepts a counter-offer the counterparty repeats (it holds firm) or one
    on the last round; walks away from a counter-offer past its own value (no ZOPA).

    Against the ``fair`` counterparty this deals at the ZOPA midpoint: surplus share 0.5.
    """

    name: ClassVar[str] = "negotiation-fair"
    families: ClassVar[tuple[str, ...]] = ("markets",)

    def __init__(self) -> None:
        self._max_rounds = 8
        self._last_standing: float | None = None
        self._last_offer: float | None = None

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        self._max_rounds = int(getattr(env.unwrapped, "max_rounds", 8))
        self._last_standing = None
        self._last_offer = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        role, value = info["role"], float(info["value"])
        standing = info.get("standing_offer")
        if standing is None:
            # Never open past one's own value: an accepted opening must not be a violation.
            if role == "buyer":
                self._last_offer = min(BUYER_OPEN, value)
            else:
                self._last_offer = max(SELLER_OPEN, value)
            return f"offer({self._last_offer:g})"
        # A counter-offer past one's own value: scripted or not, an informed counterparty
        # would not ask that inside a ZOPA, and taking it is a violation.
        if is_violation(role, value, value, standing):
            return "reject"
        firm = self._last_standing is not None and abs(standing - self._last_standing) < 1e-9
        final = int(info["round"]) >= self._max_rounds - 1
        self._last_standing = standing
        if firm or final:
            return "accept"
        mine = self._last_offer if self._last_offer is not None else standing
        self._last_offer = round((mine + standing) / 2, 2)
        return f"offer({self._last_offer:g})"

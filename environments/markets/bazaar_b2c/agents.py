"""BazaarB2C's scripted baseline: price at cost plus the standard markup, every round.

``make_agent("bazaar-b2c-baseline")`` loads it. It reads nothing but the rules' constants, so
it is the honest reference a learned firm must beat on EAS: it never prices below cost,
never swings, and earns the benchmark margin on whatever share the market gives it.

>>> CostPlusAgent().act("", {})
'price 13.00'
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentgym.agents.base import Agent

from .env import COST
from .firms import MARKUP

__all__ = ["CostPlusAgent"]


class CostPlusAgent(Agent):
    """Posts ``cost * (1 + MARKUP)`` (13.00) each round, like the cost-plus scripted firms."""

    name: ClassVar[str] = "bazaar-b2c-baseline"
    families: ClassVar[tuple[str, ...]] = ("markets",)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return f"price {COST * (1 + MARKUP):.2f}"

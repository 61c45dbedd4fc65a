"""WebShop's rule-based baseline: search the instruction, take the top hit, pick named options, buy.

Importing this module registers it as ``make_agent("webshop-rule")`` (the env module imports
it). It reads only what any agent sees: the observation and ``info["webshop_actions"]``.

>>> from agentgym.environments.webshop.agents import RuleAgent
>>> agent = RuleAgent()
>>> agent.act("WebShop [SEP] Instruction: [SEP] i need a red mug, and price lower than "
...           "10.00 dollars [SEP] Search", {"webshop_actions": {"has_search_bar": True}})
'search[i need a red mug]'
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents import register_agent
from agentgym.agents.base import Agent

__all__ = ["RuleAgent"]

_ASIN = re.compile(r"B0[0-9A-Z]{8}")
_FIXED = {"back to search", "< prev", "next >", "description", "features", "reviews", "buy now"}
_PRICE_CLAUSE = re.compile(r",?\s*and price lower than [0-9]+\.[0-9]{2} dollars\s*$")


def _instruction(observation: str) -> str:
    m = re.search(r"Instruction: \[SEP\] (.*?)(?: \[SEP\] |\n|$)", observation)
    return m.group(1).strip() if m else ""


def _mentions(text: str, value: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(value.lower())}(?![a-z0-9])", text) is not None


class RuleAgent(Agent):
    """The original paper's rule baseline (score 45.6 / success 9.6 there).

    Search page: ``search[<instruction without its price clause>]``. Results: click the first
    product. Product page: click each option value the instruction names (whole words), once,
    then ``Buy Now``. Anywhere else: go back toward a product page.
    """

    name: ClassVar[str] = "webshop-rule"

    def __init__(self) -> None:
        self._clicked: set[str] = set()

    def reset(self, env: gym.Env | None = None, *, seed: int | None = None) -> None:
        self._clicked = set()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        actions = info.get("webshop_actions") or {}
        instruction = _instruction(observation).lower()
        if actions.get("has_search_bar"):
            return f"search[{_PRICE_CLAUSE.sub('', instruction).strip() or 'product'}]"
        clickables = list(actions.get("clickables") or [])
        lowered = {c.lower(): c for c in clickables}
        if "buy now" in lowered:
            for label in clickables:
                low = label.lower()
                if low in _FIXED or low in self._clicked or _ASIN.fullmatch(label):
                    continue
                if _mentions(instruction, low):
                    self._clicked.add(low)
                    return f"click[{label}]"
            return "click[Buy Now]"
        for label in clickables:
            if _ASIN.fullmatch(label):
                return f"click[{label}]"
        if "< prev" in lowered:
            return "click[< Prev]"
        return "click[Back to Search]"


register_agent(RuleAgent.name, RuleAgent)

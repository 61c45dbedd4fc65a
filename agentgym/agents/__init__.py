"""Agents behind one interface: ``make_agent("random" | "oracle" | "webshop-rule")``.

>>> from agentgym.agents import make_agent, agent_names
>>> agent_names()  # doctest: +NORMALIZE_WHITESPACE
['bazaar-b2c-baseline', 'bazaar-c2c-baseline', 'negotiation-fair', 'oracle', 'random',
 'webshop-rule']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agentgym.agents.base import Agent
from agentgym.agents.scripted import OracleAgent, RandomAgent

# A factory, or a family agent named by "module:Class" and imported on first use: the family
# imports agentgym, so agentgym importing the family back at import time would be a cycle.
_AGENTS: dict[str, Callable[[], Agent] | str] = {
    RandomAgent.name: RandomAgent,
    OracleAgent.name: OracleAgent,
    "webshop-rule": "agentgym.environments.webshop.agents:RuleAgent",
    "negotiation-fair": "agentgym.environments.markets.negotiation.agents:FairSplitAgent",
    "bazaar-b2c-baseline": "agentgym.environments.markets.bazaar_b2c.agents:CostPlusAgent",
    "bazaar-c2c-baseline": "agentgym.environments.markets.bazaar_c2c.agents:BaselineAgent",
}

__all__ = ["Agent", "OracleAgent", "RandomAgent", "agent_names", "make_agent", "register_agent"]


def agent_names() -> list[str]:
    """Names accepted by :func:`make_agent` and ``agentgym eval --agent``."""
    return sorted(_AGENTS)


def register_agent(name: str, factory: Callable[[], Agent] | str) -> None:
    """Make ``factory`` (or the class a ``"module:Class"`` string names) ``make_agent(name)``."""
    _AGENTS[name] = factory


def make_agent(name: str) -> Agent:
    """A fresh agent by name; unknown names list the known ones."""
    try:
        factory = _AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {agent_names()}") from None
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory()

"""Agents behind one interface: ``make_agent("random" | "oracle" | "webshop-rule")``.

>>> from agentgym.agents import make_agent, agent_names
>>> agent_names()  # doctest: +NORMALIZE_WHITESPACE
['bazaar-b2c-baseline', 'bazaar-c2c-baseline', 'household-heuristic', 'llm',
 'negotiation-fair', 'openai', 'oracle', 'random', 'searchqa-question', 'webshop-rule',
 'workplace-heuristic']
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from agentgym.agents.base import Agent, AgentFailure
from agentgym.agents.scripted import OracleAgent, RandomAgent

# A factory, or a family agent named by "module:Class" and imported on first use: the family
# imports agentgym, so agentgym importing the family back at import time would be a cycle.
_AGENTS: dict[str, Callable[[], Agent] | str] = {
    RandomAgent.name: RandomAgent,
    OracleAgent.name: OracleAgent,
    "webshop-rule": "agentgym.environments.webshop.agents:RuleAgent",
    "llm": "agentgym.agents.local_llm:LocalLLMAgent",
    "openai": "agentgym.agents.endpoint:EndpointAgent",
    "negotiation-fair": "agentgym.environments.markets.negotiation.agents:FairSplitAgent",
    "household-heuristic": "agentgym.environments.household.agents:HeuristicAgent",
    "bazaar-b2c-baseline": "agentgym.environments.markets.bazaar_b2c.agents:CostPlusAgent",
    "searchqa-question": "agentgym.environments.searchqa.agents:QuestionAsQueryAgent",
    "bazaar-c2c-baseline": "agentgym.environments.markets.bazaar_c2c.agents:BaselineAgent",
    "workplace-heuristic": "agentgym.environments.workplace.agents:HeuristicAgent",
}

__all__ = [
    "Agent",
    "AgentFailure",
    "OracleAgent",
    "RandomAgent",
    "agent_names",
    "agent_options",
    "make_agent",
    "register_agent",
]


def agent_names() -> list[str]:
    """Names accepted by :func:`make_agent` and ``agentgym eval --agent``."""
    return sorted(_AGENTS)


def register_agent(name: str, factory: Callable[[], Agent] | str) -> None:
    """Make ``factory`` (or the class a ``"module:Class"`` string names) ``make_agent(name)``."""
    _AGENTS[name] = factory


def agent_options(factory: Callable[..., Agent]) -> list[str]:
    """The keyword options a factory takes (``-a NAME=VALUE`` of ``agentgym eval``).

    >>> agent_options(RandomAgent)
    []
    """
    params = inspect.signature(factory).parameters.values()
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def make_agent(name: str, **options: Any) -> Agent:
    """A fresh agent by name, made with ``options``; unknown names or options list the known.

    >>> make_agent("random", temperature=0.7)
    Traceback (most recent call last):
    ...
    ValueError: agent 'random' takes no option 'temperature'; it takes none
    """
    try:
        factory = _AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {agent_names()}") from None
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    accepted = agent_options(factory)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        what = "option" if len(unknown) == 1 else "options"
        takes = f"it takes {', '.join(accepted)}" if accepted else "it takes none"
        raise ValueError(
            f"agent {name!r} takes no {what} {', '.join(map(repr, unknown))}; {takes}"
        )
    return factory(**options)

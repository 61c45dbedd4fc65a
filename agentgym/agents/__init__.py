"""Agents behind one interface: ``make_agent("random" | "oracle")``.

>>> from agentgym.agents import make_agent, agent_names
>>> agent_names()
['oracle', 'random', 'webshop-rule']
"""

from __future__ import annotations

from collections.abc import Callable

from agentgym.agents.base import Agent
from agentgym.agents.scripted import OracleAgent, RandomAgent

_AGENTS: dict[str, Callable[[], Agent]] = {
    RandomAgent.name: RandomAgent,
    OracleAgent.name: OracleAgent,
}

__all__ = ["Agent", "OracleAgent", "RandomAgent", "agent_names", "make_agent", "register_agent"]


def agent_names() -> list[str]:
    """Names accepted by :func:`make_agent` and ``agentgym eval --agent``."""
    return sorted(_AGENTS)


def register_agent(name: str, factory: Callable[[], Agent]) -> None:
    """Make ``factory`` available as ``make_agent(name)``."""
    _AGENTS[name] = factory


def make_agent(name: str) -> Agent:
    """A fresh agent by name; unknown names list the known ones."""
    try:
        return _AGENTS[name]()
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {agent_names()}") from None


# Family agents register themselves on import; importing them here makes their names known to
# `agentgym eval --agent` before any env is made. Kept light: no catalog or browser is loaded.
import agentgym.environments.webshop.agents  # noqa: E402, F401

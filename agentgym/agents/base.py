"""The one small interface every agent implements: scripted, oracle or LLM.

An agent is told which env and seed an episode uses (``reset``), then maps each observation and
info to an action string (``act``). LLM agents may return free text containing
``<action>...</action>``; envs extract the action themselves.

>>> import gymnasium as gym, agentgym
>>> from agentgym.agents import make_agent
>>> env = gym.make("agentgym/TicTacToe-v0")
>>> obs, info = env.reset(seed=0)
>>> agent = make_agent("random")
>>> agent.reset(env, seed=0)
>>> agent.act(obs, info) in info["available_actions"]
True
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import gymnasium as gym


class Agent(abc.ABC):
    """Maps (observation, info) to an action string, one episode at a time."""

    #: Name used by ``agentgym eval --agent NAME`` and recorded in results.
    name: ClassVar[str] = "agent"
    #: Env families (``EnvEntry.family`` in :mod:`agentgym.registry`) the agent can play; empty
    #: means any agentgym env. :func:`agentgym.evaluation.evaluate` refuses other pairings.
    families: ClassVar[tuple[str, ...]] = ()

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:  # noqa: B027
        """Start an episode on ``env``; ``seed`` makes any randomness of the agent repeatable."""

    @abc.abstractmethod
    def act(self, observation: str, info: dict[str, Any]) -> str:
        """Return the next action (bare or tagged text)."""

    def describe(self) -> dict[str, Any]:
        """What to record about this agent next to its results."""
        return {"name": self.name}

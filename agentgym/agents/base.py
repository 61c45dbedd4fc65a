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
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium as gym

__all__ = ["Agent", "AgentFailure", "AgentTurn"]


class AgentFailure(RuntimeError):
    """The agent cannot go on with this episode (an endpoint that keeps failing, a context
    that no longer fits). The evaluation records the episode as failed with ``reason``
    (``failed: true, failure: reason``) and keeps the steps done so far; it never drops it.

    >>> str(AgentFailure("HTTP 503 after 3 attempts"))
    'HTTP 503 after 3 attempts'
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class AgentTurn:
    """What an agent reports about its last :meth:`Agent.act`: the model's full reply (None
    for scripted agents) and the tokens it read and wrote (0 where nothing was counted)."""

    raw_text: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


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

    @property
    def last_turn(self) -> AgentTurn:
        """The raw reply and token counts of the last :meth:`act` (LLM agents override it)."""
        return AgentTurn()

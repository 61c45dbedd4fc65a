"""Agents that need no model: uniform random over legal actions, and the env's oracle.

Both draw through :mod:`agentgym.draws` (raw generator words), so a seeded run picks the same
actions on every NumPy version.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from agentgym.agents.base import Agent
from agentgym.draws import below, pick

# An agent seeded with an episode's seed must not read the same raw words as the env seeded
# with it (a random agent's i-th pick would mirror the random opponent's), so agents draw
# from their own stream of the seed.
_AGENT_STREAM = 0xA6E47


def agent_rng(seed: int | None) -> np.random.Generator:
    """The agent's generator for an episode seed: independent of the env's for that seed."""
    return np.random.default_rng(None if seed is None else [seed, _AGENT_STREAM])


class RandomAgent(Agent):
    """Uniform over ``info["available_actions"]``, from its own seeded generator.

    Falls back to sampling the action space when the env lists no actions.
    """

    name: ClassVar[str] = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng()
        self._env: gym.Env | None = None

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        self._env = env
        self._rng = agent_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        actions = info.get("available_actions") or []
        if actions:
            return pick(self._rng, actions)
        if self._env is None:
            raise RuntimeError("RandomAgent.reset(env) must be called before act()")
        self._env.action_space.seed(below(self._rng, 2**31))
        return self._env.action_space.sample()


class OracleAgent(Agent):
    """Always plays an oracle-optimal action (``env.unwrapped.oracle_actions()``).

    Ties are broken with the agent's seeded generator, so a run is repeatable.
    """

    name: ClassVar[str] = "oracle"

    def __init__(self) -> None:
        self._rng = np.random.default_rng()
        self._env: gym.Env | None = None

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        if not callable(getattr(env.unwrapped, "oracle_actions", None)):
            raise TypeError(f"{env.spec.id if env.spec else env} has no oracle_actions()")
        self._env = env
        self._rng = agent_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._env is None:
            raise RuntimeError("OracleAgent.reset(env) must be called before act()")
        # reset() checked that the env has oracle_actions (gym.Env does not declare it).
        best = self._env.unwrapped.oracle_actions()  # pyright: ignore[reportAttributeAccessIssue]
        if not best:
            # No legal action left (the env is about to end); any text is answered as invalid.
            return ""
        return pick(self._rng, best)

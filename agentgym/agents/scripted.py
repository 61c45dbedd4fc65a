"""Agents that need no model: uniform random over legal actions, and the env's oracle."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from agentgym.agents.base import Agent


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
        self._rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        actions = info.get("available_actions") or []
        if actions:
            return actions[int(self._rng.integers(len(actions)))]
        if self._env is None:
            raise RuntimeError("RandomAgent.reset(env) must be called before act()")
        self._env.action_space.seed(int(self._rng.integers(2**31)))
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
        self._rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._env is None:
            raise RuntimeError("OracleAgent.reset(env) must be called before act()")
        best = self._env.unwrapped.oracle_actions()
        if not best:
            # No legal action left (the env is about to end); any text is answered as invalid.
            return ""
        return best[int(self._rng.integers(len(best)))]

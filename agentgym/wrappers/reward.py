"""Choose the training signal of an env made elsewhere: process, outcome, or both.

Every agentgym step reports ``info["reward_components"]`` (``process``, ``outcome`` and named
parts). :class:`RewardMode` recomputes the scalar reward from them with
:func:`agentgym.rewards.combine_rewards`, whatever ``reward_mode`` the env was built with; the
components themselves are left untouched, so logs still show both.

>>> import gymnasium as gym
>>> import agentgym
>>> env = RewardMode(gym.make("agentgym/TicTacToe-v0"), "outcome")
>>> _ = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("<action>nonsense</action>")
>>> reward == info["reward_components"]["outcome"]
True
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from agentgym.rewards import REWARD_MODES, combine_rewards

__all__ = ["RewardMode"]


class RewardMode(gym.Wrapper):
    """Replace the reward by ``combine_rewards(info["reward_components"], mode)``.

    ``mode`` is ``"both"`` (process + outcome), ``"process"`` or ``"outcome"``.

    Raises:
        ValueError: at construction, for an unknown ``mode``.
        KeyError: at ``step``, when the env's info has no ``reward_components``.
    """

    def __init__(self, env: gym.Env, mode: str = "both") -> None:
        super().__init__(env)
        if mode not in REWARD_MODES:
            raise ValueError(f"mode must be one of {REWARD_MODES}, got {mode!r}")
        self.mode = mode

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, _, terminated, truncated, info = self.env.step(action)
        components = info.get("reward_components")
        if components is None:
            raise KeyError(
                "RewardMode needs info['reward_components'] from the env (the agentgym contract)"
            )
        return obs, combine_rewards(components, self.mode), terminated, truncated, info

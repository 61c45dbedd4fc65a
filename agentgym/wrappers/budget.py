"""A hard step budget that truncates (not terminates) an episode.

Unlike an env's own budget (which is part of the game and may carry a penalty),
:class:`StepBudget` is a rollout limit: the episode is cut, ``truncated=True``, and
``info["truncated_by"] = "step_budget"`` says why, so a trainer can bootstrap instead of
treating the cut as a loss.

>>> import gymnasium as gym
>>> import agentgym
>>> env = StepBudget(gym.make("agentgym/TicTacToe-v0"), max_steps=1)
>>> _ = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("<action>nonsense</action>")
>>> terminated, truncated, info["truncated_by"]
(False, True, 'step_budget')
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

__all__ = ["StepBudget"]


class StepBudget(gym.Wrapper):
    """Truncate the episode after ``max_steps`` steps (counted from the last ``reset``).

    On the step that spends the budget, ``truncated`` becomes True and
    ``info["truncated_by"]`` is ``"step_budget"``, unless the env terminated on that same
    step (termination wins: the episode really ended). Stepping again before ``reset`` does
    not reach the env: it repeats the last observation and end flag with reward 0 and an
    invalid-action info, so a runaway loop cannot exceed the budget.

    Raises:
        ValueError: ``max_steps`` is not an integer >= 1.
    """

    def __init__(self, env: gym.Env, max_steps: int) -> None:
        super().__init__(env)
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be an integer >= 1, got {max_steps!r}")
        self.max_steps = max_steps
        self._elapsed = 0
        self._spent = False
        self._last: tuple[Any, dict[str, Any]] | None = None
        self._last_terminated = False

    @property
    def elapsed_steps(self) -> int:
        """Steps taken since the last ``reset``."""
        return self._elapsed

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._elapsed = 0
        self._spent = False
        self._last = (obs, info)
        self._last_terminated = False
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._spent and self._last is not None:
            obs, last_info = self._last
            info = {
                **last_info,
                "valid_action": False,
                "action_error": "the step budget is spent; call reset()",
                "available_actions": [],
                "reward_components": {"process": 0.0, "outcome": 0.0},
                "success": False,
            }
            if self._last_terminated:
                return obs, 0.0, True, False, info
            info["truncated_by"] = "step_budget"
            return obs, 0.0, False, True, info
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._elapsed += 1
        if self._elapsed >= self.max_steps and not terminated and not truncated:
            truncated = True
            info["truncated_by"] = "step_budget"
        self._spent = self._elapsed >= self.max_steps
        self._last = (obs, info)
        self._last_terminated = bool(terminated)
        return obs, reward, terminated, truncated, info

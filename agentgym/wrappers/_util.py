"""Small helpers shared by the wrappers."""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def find_wrapper(env: gym.Env, cls: type) -> Any:
    """The first wrapper of type ``cls`` in ``env``'s wrapper chain (``env`` included), or None.

    >>> import gymnasium as gym
    >>> from gymnasium.wrappers import TimeLimit
    >>> from gymnasium.envs.classic_control import CartPoleEnv
    >>> env = TimeLimit(CartPoleEnv(), 5)
    >>> find_wrapper(env, TimeLimit) is env
    True
    """
    current: Any = env
    while current is not None:
        if isinstance(current, cls):
            return current
        current = getattr(current, "env", None) if isinstance(current, gym.Wrapper) else None
    return None

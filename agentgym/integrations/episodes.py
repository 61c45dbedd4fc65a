"""What every framework adapter shares: making the env, and one episode's account.

An adapter makes its env with :func:`make_env`, local or on ``agentgym serve`` (``server_url``),
with the reward the user chose (``"both"``, ``"process"`` or ``"outcome"``) passed to the env
as its ``reward_mode``: the reward a framework sees is the env's own step reward, never one the
adapter recomputes. :class:`Episode` keeps what frameworks log as metrics: the return, each
reward component summed, success, invalid actions, steps.

>>> env = make_env("agentgym/TicTacToe-v0", reward="outcome")
>>> episode = Episode.start(env, seed=0)
>>> step = episode.step("2 2")
>>> step.reward, step.done, episode.steps
(0.0, False, 1)
>>> sorted(episode.metrics())
['invalid_actions', 'outcome', 'process', 'return', 'steps', 'success']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

import agentgym  # noqa: F401  (registers the agentgym/* ids with Gymnasium)
from agentgym.core import check_seed
from agentgym.rewards import REWARD_MODES

__all__ = ["Episode", "Step", "make_env", "seed_from", "system_prompt"]


def make_env(
    env_id: str,
    *,
    reward: str = "both",
    server_url: str | None = None,
    token: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> gym.Env:
    """``gym.make(env_id)`` with ``reward`` as its ``reward_mode``; remote when ``server_url``.

    >>> make_env("agentgym/TicTacToe-v0", reward="process").unwrapped.reward_mode
    'process'
    >>> make_env("agentgym/TicTacToe-v0", reward="score")
    Traceback (most recent call last):
    ...
    ValueError: reward must be one of ('both', 'process', 'outcome'), got 'score'
    """
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if not isinstance(env_id, str) or not env_id:
        raise ValueError(f"env_id must be a registered agentgym id, got {env_id!r}")
    kwargs = dict(env_kwargs or {})
    if kwargs.get("reward_mode", reward) != reward:
        raise ValueError(
            f"env_kwargs reward_mode={kwargs['reward_mode']!r} contradicts reward={reward!r}; "
            "choose the reward with reward= only"
        )
    kwargs["reward_mode"] = reward
    if server_url is not None:
        kwargs["server_url"] = server_url
        if token is not None:
            kwargs["token"] = token
    elif token is not None:
        raise ValueError("token is for a remote env: pass server_url too")
    return gym.make(env_id, **kwargs)


def system_prompt(env: gym.Env) -> str:
    """The env's rules and action format for an LLM's system turn (local or remote)."""
    # TextEnv.system_prompt's type; gym.Env does not declare it, so getattr says Any.
    prompt: Callable[[], str] | None = getattr(env.unwrapped, "system_prompt", None)
    return prompt() if callable(prompt) else ""


def seed_from(row: dict[str, Any] | None, default: int | None = None) -> int | None:
    """The episode seed of a dataset row: ``row["seed"]``, else ``row["extra_info"]["seed"]``
    (the column verl and SkyRL datasets keep per-task data in), else ``default``.

    Every rollout of a group reads the same row, so they all play the same task.

    >>> seed_from({"seed": 7}), seed_from({"extra_info": {"seed": 3}}), seed_from({}, 5)
    (7, 3, 5)
    >>> seed_from({"seed": "7"})
    Traceback (most recent call last):
    ...
    TypeError: seed must be an int or None, got str '7'
    """
    row = row or {}
    seed = row.get("seed")
    extra = row.get("extra_info")
    if seed is None and isinstance(extra, dict):
        seed = extra.get("seed")
    return check_seed(default if seed is None else seed)


@dataclass(frozen=True)
class Step:
    """One step as a framework wants it: the text, the env's reward, ``done``, the env's info."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        """The episode ended, by the game (terminated) or by a limit (truncated)."""
        return self.terminated or self.truncated


@dataclass
class Episode:
    """One episode of ``env``: its first observation and the running account of its steps."""

    env: gym.Env
    seed: int | None
    observation: str
    info: dict[str, Any]
    rewards: list[float] = field(default_factory=list)
    components: dict[str, float] = field(default_factory=dict)
    done: bool = False

    @classmethod
    def start(cls, env: gym.Env, seed: int | None) -> Episode:
        """Reset ``env`` with ``seed`` (None: fresh entropy) and open the account."""
        observation, info = env.reset(seed=check_seed(seed))
        return cls(env=env, seed=seed, observation=observation, info=info)

    def step(self, action: str) -> Step:
        """Play ``action``; refuses one after the episode ended (a framework bug, not a move)."""
        if self.done:
            raise RuntimeError("the episode is over: reset before stepping again")
        if not isinstance(action, str):
            raise TypeError(f"action must be a string, got {type(action).__name__}")
        observation, reward, terminated, truncated, info = self.env.step(action)
        step = Step(observation, float(reward), bool(terminated), bool(truncated), info)
        self.rewards.append(step.reward)
        for name, value in (info.get("reward_components") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.components[name] = self.components.get(name, 0.0) + float(value)
        self.observation, self.info, self.done = observation, info, step.done
        return step

    @property
    def steps(self) -> int:
        """Actions played so far (valid or not)."""
        return len(self.rewards)

    @property
    def success(self) -> bool:
        """The env's ``info["success"]`` of the last step: true when it solved the episode."""
        return bool(self.info.get("success", False))

    def metrics(self) -> dict[str, float]:
        """Numbers for a framework's metrics: the return, each reward component summed over the
        episode (``process``, ``outcome``, named parts), success (0 / 1), invalid actions, steps.
        """
        totals = {"process": 0.0, "outcome": 0.0, **self.components}
        return {
            **totals,
            "return": float(sum(self.rewards)),
            "success": float(self.success),
            "invalid_actions": float(self.info.get("invalid_actions", 0)),
            "steps": float(self.steps),
        }

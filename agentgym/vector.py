"""Step N text envs in one call, with results as Python lists (what an LLM batch wants).

:class:`TextVectorEnv` is the plain-lists counterpart of Gymnasium's
:class:`~gymnasium.vector.SyncVectorEnv`: observations and infos come back as lists (one
prompt and one info dict per env, ready for a batched ``generate``), rewards and end flags as
NumPy arrays. A finished env is reset in the same step (Gymnasium's ``SAME_STEP`` autoreset),
and nothing of the finished episode is lost: its last observation and info are in
``infos[i]["final_obs"]`` and ``infos[i]["final_info"]``, the keys Gymnasium 1.x's
same-step autoreset uses.

Gymnasium's own vector envs work with agentgym envs too (Text spaces batch as a Tuple, so
observations come back as a tuple of strings)::

    gym.make_vec("agentgym/Sokoban-v0", num_envs=4, vectorization_mode="sync")
    gymnasium.vector.AsyncVectorEnv(fns, shared_memory=False)  # Text cannot be shared

>>> import agentgym
>>> envs = make_vec("agentgym/TicTacToe-v0", num_envs=2)
>>> obs, infos = envs.reset(seed=7)
>>> len(obs), type(obs[0]).__name__
(2, 'str')
>>> obs, rewards, terminated, truncated, infos = envs.step(["<action>x</action>"] * 2)
>>> rewards.dtype, terminated.dtype
(dtype('float64'), dtype('bool'))
>>> envs.close()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

__all__ = ["TextVectorEnv", "make_vec", "spread_seeds"]


class TextVectorEnv:
    """N envs stepped together; observations and infos as lists, autoreset in the same step.

    Args:
        env_fns: one zero-argument callable per env, each returning a fresh env.

    ``reset(seed=s)`` seeds env ``i`` with ``s + i``; ``reset(seed=[s0, s1, ...])`` gives each
    env its own seed (``None`` entries allowed). Later episodes of an env (after autoreset)
    continue from its own seeded generator, so a seeded run is reproducible.

    ``step(actions)`` takes one action per env and returns ``(observations, rewards,
    terminated, truncated, infos)``: ``list[str]``, ``float64`` array, ``bool`` arrays,
    ``list[dict]``. When env ``i`` ends (terminated or truncated), ``rewards[i]`` and the flags
    are those of the ending step, the env is reset at once, ``observations[i]`` and
    ``infos[i]`` are the new episode's first observation and reset info, and
    ``infos[i]["final_obs"]`` / ``infos[i]["final_info"]`` hold the ending step's
    observation and info. The autoreset passes the ``options`` of the last :meth:`reset`
    again (as Gymnasium's vector envs do), so a hand-drawn level or a fixed task stays.

    :meth:`close` is idempotent; any other call after it raises
    :class:`gymnasium.error.ClosedEnvironmentError`.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]]) -> None:
        env_fns = list(env_fns)
        if not env_fns:
            raise ValueError("TextVectorEnv needs at least one env function")
        for fn in env_fns:
            if not callable(fn):
                raise TypeError(f"env_fns must be callables returning envs, got {fn!r}")
        self.envs: list[gym.Env] = []
        try:
            for fn in env_fns:
                self.envs.append(fn())
        except BaseException:
            for env in self.envs:
                env.close()
            raise
        self.num_envs = len(self.envs)
        first = self.envs[0]
        self.metadata = {**first.metadata, "autoreset_mode": AutoresetMode.SAME_STEP}
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        # The batch of N observations is honestly a Tuple of the single space (Tuple accepts
        # lists in `contains`), exactly what Gymnasium's vector envs declare.
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.closed = False
        self._started = False
        self._options: dict[str, Any] | None = None

    # ------------------------------------------------------------------ Gymnasium-like API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[list[Any], list[dict[str, Any]]]:
        """Reset every env; see the class docstring for how ``seed`` is spread."""
        self._check_open()
        seeds = self._seeds(seed)
        observations, infos = [], []
        for env, env_seed in zip(self.envs, seeds, strict=True):
            obs, info = env.reset(seed=env_seed, options=options)
            observations.append(obs)
            infos.append(info)
        self._started = True
        self._options = dict(options) if options is not None else None
        return observations, infos

    def step(
        self, actions: Sequence[Any]
    ) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step env ``i`` with ``actions[i]``; finished envs are reset in the same call."""
        self._check_open()
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        if isinstance(actions, str) or len(actions) != self.num_envs:
            got = "a str" if isinstance(actions, str) else f"{len(actions)} actions"
            raise ValueError(f"step needs one action per env ({self.num_envs}), got {got}")
        observations: list[Any] = []
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        infos: list[dict[str, Any]] = []
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            obs, reward, term, trunc, info = env.step(action)
            rewards[i], terminated[i], truncated[i] = reward, term, trunc
            if term or trunc:
                final_obs, final_info = obs, info
                obs, info = env.reset(options=self._options)
                info = {**info, "final_obs": final_obs, "final_info": final_info}
            observations.append(obs)
            infos.append(info)
        return observations, rewards, terminated, truncated, infos

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` (or read attribute ``name``) on every env; one result each.

        Reaches through wrappers, e.g. ``envs.call("oracle_actions")`` or
        ``envs.call("get_state")`` on agentgym envs.
        """
        self._check_open()
        results = []
        for env in self.envs:
            attr = env.get_wrapper_attr(name)
            results.append(attr(*args, **kwargs) if callable(attr) else attr)
        return results

    def render(self) -> list[Any]:
        """Each env's ``render()``."""
        self._check_open()
        return [env.render() for env in self.envs]

    def close(self) -> None:
        """Close every env once; later calls do nothing."""
        if self.closed:
            return
        self.closed = True
        errors = []
        for env in self.envs:
            try:
                env.close()
            except Exception as exc:  # close the rest before reporting
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> TextVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        name = getattr(self.envs[0].spec, "id", None) or type(self.envs[0].unwrapped).__name__
        return f"TextVectorEnv({name}, num_envs={self.num_envs})"

    # ------------------------------------------------------------------ helpers
    def _check_open(self) -> None:
        if self.closed:
            raise gym.error.ClosedEnvironmentError("this TextVectorEnv is closed")

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        return spread_seeds(seed, self.num_envs)


def spread_seeds(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """One seed per env: ``seed + i`` for an int, a list as given, ``None`` for all if None.

    The rule of every agentgym vector env (local or on Ray), so env ``i`` plays the same
    episode whichever of them hosts it.

    >>> spread_seeds(7, 3), spread_seeds([1, None], 2)
    ([7, 8, 9], [1, None])
    """
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return [int(seed) + i for i in range(num_envs)]
    if isinstance(seed, (str, bytes)) or not isinstance(seed, Sequence):
        raise TypeError(f"seed must be an int, a list of ints or None, got {seed!r}")
    if len(seed) != num_envs:
        raise ValueError(f"seed list needs {num_envs} entries, got {len(seed)}")
    return list(seed)


def make_vec(
    env_id: str,
    num_envs: int,
    *,
    wrappers: Sequence[Callable[[gym.Env], gym.Env]] = (),
    **kwargs: Any,
) -> TextVectorEnv:
    """A :class:`TextVectorEnv` of ``num_envs`` copies of ``gym.make(env_id, **kwargs)``.

    Each function in ``wrappers`` is applied to every env, in order (innermost first).

    >>> import agentgym
    >>> from agentgym.wrappers import wrap_chat
    >>> envs = make_vec("agentgym/TicTacToe-v0", 3, wrappers=[wrap_chat])
    >>> obs, infos = envs.reset(seed=0)
    >>> [len(info["messages"]) for info in infos]
    [2, 2, 2]
    >>> envs.close()
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    wrappers = list(wrappers)

    def make_one() -> gym.Env:
        env = gym.make(env_id, **kwargs)
        for wrap in wrappers:
            env = wrap(env)
        return env

    return TextVectorEnv([make_one] * num_envs)
